//! Heights of the walkable surface under region vertices: region rings are flat XZ polygons,
//! and each vertex takes the height of its layer's walkable surface there.
//!
//! Input: the walkable triangles, each with its layer, and XZ points. Output: heights in metres.

use crate::classify::WalkableTriangle;
use crate::grid::{triangle_box, BoxGrid};
use crate::tolerance::{
    BOX_GRID_ITEMS_PER_CELL, NEAREST_SEARCH_GROWTH, NEAREST_SEARCH_LIMIT, NEAREST_SEARCH_START, SURFACE_HEIGHT_REACH,
};
use meadow::geom::{self, Point2};

/// Heights of the walkable surface of each layer over XZ points.
pub struct SurfaceHeights<'a> {
    triangles: &'a [WalkableTriangle],
    /// Per triangle: its layer.
    layers: &'a [u32],
    grid: BoxGrid,
    near: Vec<u32>,
}

impl<'a> SurfaceHeights<'a> {
    /// Indexes the walkable triangles, each with its layer.
    pub fn new(triangles: &'a [WalkableTriangle], layers: &'a [u32]) -> Self {
        let boxes: Vec<_> = triangles.iter().map(|t| triangle_box(&t.vertices)).collect();
        SurfaceHeights { triangles, layers, grid: BoxGrid::new(&boxes, BOX_GRID_ITEMS_PER_CELL), near: Vec::new() }
    }

    /// The highest surface of `layer` whose footprint comes within two grid steps of `p` (region
    /// vertices are rounded to the grid, so one on the border of a higher surface may lie just
    /// outside it); failing that, the height at the nearest point of the nearest triangle of
    /// the layer.
    pub fn at(&mut self, p: Point2, layer: u32) -> f64 {
        let tol = SURFACE_HEIGHT_REACH;
        let mut best: Option<f64> = None;
        self.grid.query(&[p[0] - tol, p[1] - tol, p[0] + tol, p[1] + tol], &mut self.near);
        let layers = self.layers;
        self.near.retain(|&i| layers.get(i as usize).is_none_or(|&l| l == layer));
        for &i in &self.near {
            let (d, y) = nearest_on(&self.triangles[i as usize].vertices, p);
            if d <= tol {
                best = Some(best.map_or(y, |b: f64| b.max(y)));
            }
        }
        if let Some(y) = best {
            return y;
        }
        let mut reach = NEAREST_SEARCH_START;
        while reach < NEAREST_SEARCH_LIMIT {
            self.grid.query(&[p[0] - reach, p[1] - reach, p[0] + reach, p[1] + reach], &mut self.near);
            self.near.retain(|&i| layers.get(i as usize).is_none_or(|&l| l == layer));
            let nearest = self
                .near
                .iter()
                .map(|&i| nearest_on(&self.triangles[i as usize].vertices, p))
                .min_by(|a, b| a.0.total_cmp(&b.0).then(b.1.total_cmp(&a.1)));
            if let Some((_, y)) = nearest {
                return y;
            }
            reach *= NEAREST_SEARCH_GROWTH;
        }
        0.0
    }
}

impl SurfaceHeights<'_> {
    /// Whether the surface of `layer` under the segment from `a` to `b` stays within
    /// `tolerance` metres of the straight line between its heights at the two ends. The surface
    /// is piecewise linear, so its largest departure from the line is at a point where the
    /// segment enters or leaves a triangle: each triangle's plane is checked there. (A point
    /// under two triangles of one layer is checked against both: a stricter test, which only
    /// refuses more segments.)
    pub fn follows_line(&mut self, a: Point2, b: Point2, layer: u32, tolerance: f64) -> bool {
        let (ya, yb) = (self.at(a, layer), self.at(b, layer));
        let bounds = [a[0].min(b[0]), a[1].min(b[1]), a[0].max(b[0]), a[1].max(b[1])];
        self.grid.query(&bounds, &mut self.near);
        let layers = self.layers;
        self.near.iter().filter(|&&i| layers.get(i as usize).is_none_or(|&l| l == layer)).all(|&i| {
            let t = &self.triangles[i as usize].vertices;
            clip_to_footprint(t, a, b).is_none_or(|(s0, s1)| {
                [s0, s1].into_iter().all(|s| {
                    let p = [a[0] + (b[0] - a[0]) * s, a[1] + (b[1] - a[1]) * s];
                    (barycentric_height(t, p) - (ya + (yb - ya) * s)).abs() <= tolerance
                })
            })
        })
    }
}

impl SurfaceHeights<'_> {
    /// The XZ corners of the triangles of `layer` whose boxes meet `bounds` (`[x0, z0, x1, z1]`),
    /// appended to `out` (a corner shared by several triangles appears once per triangle).
    pub fn corners_near(&mut self, bounds: [f64; 4], layer: u32, out: &mut Vec<Point2>) {
        self.grid.query(&bounds, &mut self.near);
        let layers = self.layers;
        for &i in self.near.iter().filter(|&&i| layers.get(i as usize).is_none_or(|&l| l == layer)) {
            out.extend(self.triangles[i as usize].vertices.iter().map(|v| [v[0], v[2]]));
        }
    }
}

/// The parameter range `[s0, s1]` of the segment `a + s (b - a)`, `s` in `[0, 1]`, inside the
/// closed XZ footprint of `t`, if any (a triangle vertical in XZ has none).
fn clip_to_footprint(t: &[[f64; 3]; 3], a: Point2, b: Point2) -> Option<(f64, f64)> {
    let c = [[t[0][0], t[0][2]], [t[1][0], t[1][2]], [t[2][0], t[2][2]]];
    let sign = geom::orient2d(c[0], c[1], c[2]).signum();
    if sign == 0.0 {
        return None;
    }
    let (mut s0, mut s1) = (0.0f64, 1.0f64);
    for k in 0..3 {
        // Signed area of the edge with each end: the segment's side of the edge is linear in s.
        let (fa, fb) = (geom::orient2d(c[k], c[(k + 1) % 3], a) * sign, geom::orient2d(c[k], c[(k + 1) % 3], b) * sign);
        if fa < 0.0 && fb < 0.0 {
            return None;
        }
        if fa < 0.0 {
            s0 = s0.max(fa / (fa - fb));
        } else if fb < 0.0 {
            s1 = s1.min(fa / (fa - fb));
        }
    }
    (s0 <= s1).then_some((s0, s1))
}

/// The surface height of `t` at `p` if `p` lies in its closed XZ footprint.
fn height_in(t: &[[f64; 3]; 3], p: Point2) -> Option<f64> {
    let a = [t[0][0], t[0][2]];
    let b = [t[1][0], t[1][2]];
    let c = [t[2][0], t[2][2]];
    let s = geom::orient2d(a, b, c).signum();
    let inside =
        [geom::orient2d(a, b, p), geom::orient2d(b, c, p), geom::orient2d(c, a, p)].iter().all(|&o| o * s >= 0.0);
    inside.then(|| barycentric_height(t, p))
}

/// The height of the plane of `t` at `p` (the highest corner when `t` is vertical in XZ).
fn barycentric_height(t: &[[f64; 3]; 3], p: Point2) -> f64 {
    let (a, b, c) = (t[0], t[1], t[2]);
    let det = (b[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (b[2] - a[2]);
    if det == 0.0 {
        return a[1].max(b[1]).max(c[1]);
    }
    let u = ((p[0] - a[0]) * (c[2] - a[2]) - (c[0] - a[0]) * (p[1] - a[2])) / det;
    let v = ((b[0] - a[0]) * (p[1] - a[2]) - (p[0] - a[0]) * (b[2] - a[2])) / det;
    a[1] + u * (b[1] - a[1]) + v * (c[1] - a[1])
}

/// Distance in XZ from `p` to the footprint of `t`, and the surface height at the nearest point.
fn nearest_on(t: &[[f64; 3]; 3], p: Point2) -> (f64, f64) {
    if let Some(y) = height_in(t, p) {
        return (0.0, y);
    }
    let mut best = (f64::INFINITY, 0.0);
    for k in 0..3 {
        let (a, b) = (t[k], t[(k + 1) % 3]);
        let (a2, b2) = ([a[0], a[2]], [b[0], b[2]]);
        let ab = [b2[0] - a2[0], b2[1] - a2[1]];
        let len2 = ab[0] * ab[0] + ab[1] * ab[1];
        let s =
            if len2 > 0.0 { (((p[0] - a2[0]) * ab[0] + (p[1] - a2[1]) * ab[1]) / len2).clamp(0.0, 1.0) } else { 0.0 };
        let d = geom::point_segment_distance(p, a2, b2);
        if d < best.0 {
            best = (d, a[1] + (b[1] - a[1]) * s);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_segment_over_a_ridge_does_not_follow_the_surface() {
        // A tent: two ramps meeting at a ridge 1 m high along x = 1, flat ground beyond x = 2.
        let tri = |v: [[f64; 3]; 3]| WalkableTriangle { vertices: v, area: 0 };
        let triangles = vec![
            tri([[0.0, 0.0, 0.0], [1.0, 1.0, 0.0], [1.0, 1.0, 4.0]]),
            tri([[0.0, 0.0, 0.0], [1.0, 1.0, 4.0], [0.0, 0.0, 4.0]]),
            tri([[1.0, 1.0, 0.0], [2.0, 0.0, 0.0], [2.0, 0.0, 4.0]]),
            tri([[1.0, 1.0, 0.0], [2.0, 0.0, 4.0], [1.0, 1.0, 4.0]]),
        ];
        let layers = vec![0; triangles.len()];
        let mut surface = SurfaceHeights::new(&triangles, &layers);
        // Across the ridge the line from 0 m to 0 m passes 1 m under the top.
        assert!(!surface.follows_line([0.0, 1.0], [2.0, 3.0], 0, 0.05));
        // Up one ramp, and along the ridge, the surface is the line.
        assert!(surface.follows_line([0.0, 1.0], [1.0, 3.0], 0, 1e-9));
        assert!(surface.follows_line([1.0, 0.5], [1.0, 3.5], 0, 1e-9));
        // A shallow crossing stays within a generous tolerance: 0.1 m under the ridge.
        assert!(surface.follows_line([0.9, 0.0], [1.1, 4.0], 0, 0.15));
        assert!(!surface.follows_line([0.9, 0.0], [1.1, 4.0], 0, 0.05));
    }

    #[test]
    fn barycentric_height_on_a_ramp() {
        let t = [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 1.0, 0.0]];
        assert!((height_in(&t, [0.5, 0.25]).unwrap() - 0.5).abs() < 1e-12);
        assert!(height_in(&t, [2.0, 0.0]).is_none());
        let (d, y) = nearest_on(&t, [2.0, 0.0]);
        assert!((d - 1.0).abs() < 1e-12 && (y - 1.0).abs() < 1e-12);
    }
}
