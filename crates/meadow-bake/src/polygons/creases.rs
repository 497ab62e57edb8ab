//! Creases: region rings and triangles made to follow the walkable surface.
//!
//! Rings are flat XZ polygons whose vertices take surface heights, so an edge stands for the
//! straight line between its ends' heights. Simplification and tile borders make edges that
//! cross a crease of the surface (a floor running into a stair, a tile border from the floor
//! to the stair's top): the line then cuts through the floor or hangs above it. Every edge along
//! which the surface leaves that line by more than the tolerance (the bake's `max_climb`: a
//! point of the surface is then always within `locate`'s reach of the mesh) is halved, and its
//! halves again, until each follows the surface or is shorter than
//! [`CREASE_SPLIT_MIN_LENGTH`]. A step the agent may climb (at most `max_climb` high) never
//! causes a split: a line across one step departs from it by less than the step's height.
//!
//! Ring edges are halved here, before triangulation, over all rings at once: an edge that two
//! rings share (areas meeting in a layer, layers at a seam) is split at the same points on both
//! sides, where either's surface asks for it, so no T-junction appears. Tiles agree too: a
//! tile-border edge has the same ends and the same surface under it in both tiles. Midpoints
//! of grid coordinates are exact. After triangulation, [`SurfaceFit`] has
//! [`crate::triangulate::refine`] split interior edges the same way and make a vertex of every
//! surface corner inside a triangle that lies more than the tolerance off the triangle's plane:
//! the surface is piecewise linear, so its largest departure from a triangle is at such a
//! corner or where it crosses one of the triangle's edges.
//!
//! Input: the simplified [`Regions`] and the [`SurfaceHeights`]. Output: the same regions with
//! ring vertices added on the edges that need them (`None` when none does).

use crate::heights::SurfaceHeights;
use crate::region::Regions;
use crate::tolerance::CREASE_SPLIT_MIN_LENGTH;
use crate::triangulate::Refinement;
use meadow::geom::{orient2d, Point2};
use std::cmp::Ordering;

/// An undirected ring edge: its ends, the lower (by x, then z) first.
type EdgeKey = (Point2, Point2);

fn cmp_point(a: &Point2, b: &Point2) -> Ordering {
    a[0].total_cmp(&b[0]).then(a[1].total_cmp(&b[1]))
}

fn key(a: Point2, b: Point2) -> EdgeKey {
    if cmp_point(&a, &b) == Ordering::Greater {
        (b, a)
    } else {
        (a, b)
    }
}

fn cmp_key(a: &EdgeKey, b: &EdgeKey) -> Ordering {
    cmp_point(&a.0, &b.0).then(cmp_point(&a.1, &b.1))
}

/// Whether the surface of `layer` under the segment `a b` (given lower end first, so the answer
/// does not depend on the ring's direction) stays within `tolerance` of the line between its
/// ends' heights, or the segment is too short to split.
pub(super) fn follows(surface: &mut SurfaceHeights<'_>, a: Point2, b: Point2, layer: u32, tolerance: f64) -> bool {
    let (a, b) = key(a, b);
    (b[0] - a[0]).hypot(b[1] - a[1]) < CREASE_SPLIT_MIN_LENGTH || surface.follows_line(a, b, layer, tolerance)
}

/// The walkable surface of one layer, as [`crate::triangulate::refine`] asks it: which interior
/// edges follow it, and which of its corners inside a triangle must become vertices.
pub struct SurfaceFit<'s, 'a> {
    surface: &'s mut SurfaceHeights<'a>,
    layer: u32,
    /// Largest departure kept, metres.
    tolerance: f64,
    /// Scratch: surface corners near a triangle.
    corners: Vec<Point2>,
}

impl<'s, 'a> SurfaceFit<'s, 'a> {
    /// The surface of `layer`, departures up to `tolerance` metres kept (the bake's `max_climb`).
    pub fn new(surface: &'s mut SurfaceHeights<'a>, layer: u32, tolerance: f64) -> Self {
        SurfaceFit { surface, layer, tolerance, corners: Vec::new() }
    }
}

impl Refinement for SurfaceFit<'_, '_> {
    fn keeps(&mut self, a: Point2, b: Point2) -> bool {
        follows(self.surface, a, b, self.layer, self.tolerance)
    }

    fn point_inside(&mut self, t: [Point2; 3]) -> Option<Point2> {
        let bounds = [
            t[0][0].min(t[1][0]).min(t[2][0]),
            t[0][1].min(t[1][1]).min(t[2][1]),
            t[0][0].max(t[1][0]).max(t[2][0]),
            t[0][1].max(t[1][1]).max(t[2][1]),
        ];
        self.corners.clear();
        self.surface.corners_near(bounds, self.layer, &mut self.corners);
        let far = |p: Point2| t.iter().all(|c| (p[0] - c[0]).hypot(p[1] - c[1]) >= CREASE_SPLIT_MIN_LENGTH);
        self.corners.retain(|&p| (0..3).all(|k| orient2d(t[k], t[(k + 1) % 3], p) > 0.0) && far(p));
        if self.corners.is_empty() {
            return None;
        }
        self.corners.sort_by(cmp_point);
        self.corners.dedup();
        let h = t.map(|c| self.surface.at(c, self.layer));
        let area = orient2d(t[0], t[1], t[2]);
        let mut worst: Option<(f64, Point2)> = None;
        for k in 0..self.corners.len() {
            let p = self.corners[k];
            // The triangle's plane at p, by barycentric weights.
            let (w0, w1) = (orient2d(t[1], t[2], p) / area, orient2d(t[2], t[0], p) / area);
            let plane = w0 * h[0] + w1 * h[1] + (1.0 - w0 - w1) * h[2];
            let off = (self.surface.at(p, self.layer) - plane).abs();
            if off > self.tolerance && worst.is_none_or(|(w, _)| off > w) {
                worst = Some((off, p));
            }
        }
        worst.map(|(_, p)| p)
    }
}

/// The points splitting `a b` (lower end first) into pieces that follow the surface of every
/// layer in `layers`, in order from `a`.
fn split_points(
    surface: &mut SurfaceHeights<'_>,
    a: Point2,
    b: Point2,
    layers: &[u32],
    tolerance: f64,
    out: &mut Vec<Point2>,
) {
    if layers.iter().all(|&l| follows(surface, a, b, l, tolerance)) {
        return;
    }
    let m = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
    split_points(surface, a, m, layers, tolerance, out);
    out.push(m);
    split_points(surface, m, b, layers, tolerance, out);
}

/// The regions with every ring edge that leaves the surface by more than `tolerance` halved
/// until its pieces follow it (see the module docs); `None` when no edge needs it.
pub fn split_ring_edges(regions: &Regions, surface: &mut SurfaceHeights<'_>, tolerance: f64) -> Option<Regions> {
    // Every ring edge with the layer of its ring; an edge of several rings is decided once, for
    // all their layers.
    let mut edges: Vec<(EdgeKey, u32)> = Vec::new();
    for a in &regions.areas {
        for poly in &a.polygons {
            for ring in std::iter::once(&poly.outer).chain(&poly.holes) {
                for k in 0..ring.len() {
                    edges.push((key(ring[k], ring[(k + 1) % ring.len()]), a.layer as u32));
                }
            }
        }
    }
    edges.sort_by(|x, y| cmp_key(&x.0, &y.0).then(x.1.cmp(&y.1)));
    edges.dedup();
    let mut splits: Vec<(EdgeKey, Vec<Point2>)> = Vec::new();
    let mut layers = Vec::new();
    let mut i = 0;
    while i < edges.len() {
        let k = edges[i].0;
        layers.clear();
        while i < edges.len() && cmp_key(&edges[i].0, &k) == Ordering::Equal {
            layers.push(edges[i].1);
            i += 1;
        }
        let mut points = Vec::new();
        split_points(surface, k.0, k.1, &layers, tolerance, &mut points);
        if !points.is_empty() {
            splits.push((k, points));
        }
    }
    if splits.is_empty() {
        return None;
    }
    let mut out = regions.clone();
    for a in &mut out.areas {
        for poly in &mut a.polygons {
            for ring in std::iter::once(&mut poly.outer).chain(&mut poly.holes) {
                *ring = split_ring(ring, &splits);
            }
        }
    }
    Some(out)
}

/// `ring` with the split points of its edges inserted, in ring order.
fn split_ring(ring: &[Point2], splits: &[(EdgeKey, Vec<Point2>)]) -> Vec<Point2> {
    let mut out = Vec::with_capacity(ring.len());
    for k in 0..ring.len() {
        let (a, b) = (ring[k], ring[(k + 1) % ring.len()]);
        out.push(a);
        let e = key(a, b);
        if let Ok(s) = splits.binary_search_by(|(x, _)| cmp_key(x, &e)) {
            let points = &splits[s].1;
            if e.0 == a {
                out.extend(points.iter().copied());
            } else {
                out.extend(points.iter().rev().copied());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::WalkableTriangle;
    use crate::region::{AreaRegion, PolygonWithHoles};

    /// A floor at height 0 for z in [0, 10] rising as a ramp to 3 m at z = 13 (x in [0, 4]).
    fn floor_and_ramp() -> Vec<WalkableTriangle> {
        let tri = |v: [[f64; 3]; 3]| WalkableTriangle { vertices: v, area: 0 };
        vec![
            tri([[0.0, 0.0, 0.0], [0.0, 0.0, 10.0], [4.0, 0.0, 10.0]]),
            tri([[0.0, 0.0, 0.0], [4.0, 0.0, 10.0], [4.0, 0.0, 0.0]]),
            tri([[0.0, 0.0, 10.0], [0.0, 3.0, 13.0], [4.0, 3.0, 13.0]]),
            tri([[0.0, 0.0, 10.0], [4.0, 3.0, 13.0], [4.0, 0.0, 10.0]]),
        ]
    }

    fn regions(outer: Vec<Point2>) -> Regions {
        Regions {
            areas: vec![AreaRegion { area: 0, layer: 0, polygons: vec![PolygonWithHoles { outer, holes: vec![] }] }],
            layers: 1,
            triangle_layers: vec![0; 4],
            ..Regions::default()
        }
    }

    #[test]
    fn an_edge_from_the_floor_to_the_ramp_top_is_split_at_the_crease() {
        let walkable = floor_and_ramp();
        let layers = vec![0; walkable.len()];
        let mut surface = SurfaceHeights::new(&walkable, &layers);
        // The side x = 0 runs from the floor's far end to the ramp's top: 3 m over 13 m, while
        // the surface is flat for 10 m of it.
        let r = regions(vec![[0.0, 0.0], [4.0, 0.0], [4.0, 13.0], [0.0, 13.0]]);
        let split = split_ring_edges(&r, &mut surface, 0.9).expect("the sides cross the crease");
        let ring = &split.areas[0].polygons[0].outer;
        // Each long side is halved at z = 6.5 (the line 2.3 m above the floor's end at z = 10),
        // its upper half again at z = 9.75 (1.6 m above it), and the last quarter follows the
        // ramp within 0.25 m.
        let side = [[4.0, 6.5], [4.0, 9.75], [4.0, 13.0], [0.0, 13.0], [0.0, 9.75], [0.0, 6.5]];
        assert_eq!(ring[..2], [[0.0, 0.0], [4.0, 0.0]]);
        assert_eq!(ring[2..], side);
        // Every edge now follows the surface within the tolerance.
        for k in 0..ring.len() {
            assert!(follows(&mut surface, ring[k], ring[(k + 1) % ring.len()], 0, 0.9));
        }
        // With a loose tolerance nothing is split; a ring on the floor alone never is.
        assert!(split_ring_edges(&r, &mut surface, 3.0).is_none());
        let flat = regions(vec![[0.0, 0.0], [4.0, 0.0], [4.0, 10.0], [0.0, 10.0]]);
        assert!(split_ring_edges(&flat, &mut surface, 0.01).is_none());
    }

    #[test]
    fn a_bump_inside_a_triangle_becomes_a_vertex() {
        // A 10 x 10 m floor with a bump 1.5 m high and 1 m in radius at (2.5, 5), clear of both
        // diagonals of the square: the square's two triangles pass under it, and none of
        // their edges crosses it.
        let tri = |v: [[f64; 3]; 3]| WalkableTriangle { vertices: v, area: 0 };
        let at = |x: f64, z: f64| [x, 0.0, z];
        let (a, b, c, d) = (at(0.0, 0.0), at(10.0, 0.0), at(10.0, 10.0), at(0.0, 10.0));
        let (l, s, r, n, top) = (at(1.5, 5.0), at(2.5, 4.0), at(3.5, 5.0), at(2.5, 6.0), [2.5, 1.5, 5.0]);
        let walkable = vec![
            tri([a, b, s]),
            tri([b, r, s]),
            tri([b, c, r]),
            tri([c, n, r]),
            tri([c, d, n]),
            tri([d, l, n]),
            tri([d, a, l]),
            tri([a, s, l]),
            tri([top, l, s]),
            tri([top, s, r]),
            tri([top, r, n]),
            tri([top, n, l]),
        ];
        let layers = vec![0; walkable.len()];
        let mut surface = SurfaceHeights::new(&walkable, &layers);
        let r = regions(vec![[0.0, 0.0], [10.0, 0.0], [10.0, 10.0], [0.0, 10.0]]);
        assert!(split_ring_edges(&r, &mut surface, 0.9).is_none(), "the sides lie on the floor");
        let mut t = crate::triangulate::triangulate(&r.areas[0].polygons[0]).unwrap();
        crate::triangulate::make_delaunay(&mut t);
        let mut fit = SurfaceFit::new(&mut surface, 0, 0.9);
        assert!(crate::triangulate::refine(&mut t, &[], &mut fit) >= 1);
        assert!(t.vertices.contains(&[2.5, 5.0]), "the top is a vertex: {:?}", t.vertices);
        // Every edge follows the surface and no surface corner inside a triangle is far off it.
        for tri in &t.triangles {
            let p = tri.map(|v| t.vertices[v as usize]);
            for k in 0..3 {
                assert!(follows(fit.surface, p[k], p[(k + 1) % 3], 0, 0.9), "edge {:?}-{:?}", p[k], p[(k + 1) % 3]);
            }
            assert_eq!(fit.point_inside(p), None, "triangle {p:?}");
        }
    }

    #[test]
    fn a_shared_edge_is_split_alike_in_both_rings() {
        let walkable = floor_and_ramp();
        let layers = vec![0; walkable.len()];
        let mut surface = SurfaceHeights::new(&walkable, &layers);
        // Two rings sharing the line x = 2, one each way.
        let mut r = regions(vec![[0.0, 0.0], [2.0, 0.0], [2.0, 13.0], [0.0, 13.0]]);
        r.areas.push(AreaRegion {
            area: 1,
            layer: 0,
            polygons: vec![PolygonWithHoles {
                outer: vec![[2.0, 0.0], [4.0, 0.0], [4.0, 13.0], [2.0, 13.0]],
                holes: vec![],
            }],
        });
        let split = split_ring_edges(&r, &mut surface, 0.5).unwrap();
        let on_line = |ring: &Vec<Point2>| {
            let mut z: Vec<f64> = ring.iter().filter(|p| p[0] == 2.0).map(|p| p[1]).collect();
            z.sort_by(f64::total_cmp);
            z
        };
        let (left, right) = (on_line(&split.areas[0].polygons[0].outer), on_line(&split.areas[1].polygons[0].outer));
        assert_eq!(left, right);
        assert!(left.len() > 2, "the shared side was split: {left:?}");
    }
}
