//! XZ geometry of triangles in floating point, shared by the layer and region stages: footprints
//! ([`ccw_xz`]), planes as height functions ([`Plane`]), convex clipping ([`clip`]), segment
//! parameter intervals inside triangles ([`segment_in_triangle`], [`sub_interval`]) and interval
//! arithmetic on a line ([`subtract_intervals`]).
//!
//! Input: triangles as three `[x, y, z]` corners, XZ points. Output: XZ rings, parameter
//! intervals, heights. Nothing here rounds to the grid.

use crate::tolerance::FLAT_DIFFERENCE;
use meadow::geom::{self, Point2};

/// A non-vertical plane as a height function over XZ.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Plane {
    origin: [f64; 3],
    slope: [f64; 2],
}

impl Plane {
    /// The plane through the triangle `t`.
    pub(crate) fn through(t: &[[f64; 3]; 3]) -> Plane {
        let n = normal(t);
        let ny = if n[1] == 0.0 { f64::MIN_POSITIVE } else { n[1] };
        Plane { origin: t[0], slope: [-n[0] / ny, -n[2] / ny] }
    }

    /// The plane's height at XZ point `q`.
    pub(crate) fn y(&self, q: Point2) -> f64 {
        self.origin[1] + self.slope[0] * (q[0] - self.origin[0]) + self.slope[1] * (q[1] - self.origin[2])
    }
}

/// The (unnormalised) normal of a triangle, right-handed.
pub(crate) fn normal(t: &[[f64; 3]; 3]) -> [f64; 3] {
    let e1 = [t[1][0] - t[0][0], t[1][1] - t[0][1], t[1][2] - t[0][2]];
    let e2 = [t[2][0] - t[0][0], t[2][1] - t[0][1], t[2][2] - t[0][2]];
    [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]]
}

/// The Euclidean length of a vector.
pub(crate) fn norm(v: [f64; 3]) -> f64 {
    (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt()
}

/// The triangle's footprint as a counter-clockwise XZ ring.
pub(crate) fn ccw_xz(t: &[[f64; 3]; 3]) -> Vec<Point2> {
    let mut ring: Vec<Point2> = t.iter().map(|v| [v[0], v[2]]).collect();
    if geom::orient2d(ring[0], ring[1], ring[2]) < 0.0 {
        ring.reverse();
    }
    ring
}

/// The edges of the triangle's counter-clockwise XZ footprint.
pub(crate) fn ccw_edges(t: &[[f64; 3]; 3]) -> [(Point2, Point2); 3] {
    let r = ccw_xz(t);
    [(r[0], r[1]), (r[1], r[2]), (r[2], r[0])]
}

/// Twice the signed area of `a b q` (positive when `q` is left of `a → b`), as a float.
pub(crate) fn cross(a: Point2, b: Point2, q: Point2) -> f64 {
    (b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0])
}

/// Sutherland–Hodgman: keeps the part of convex `poly` where the affine function `f >= 0`.
pub(crate) fn clip(poly: &mut Vec<Point2>, f: impl Fn(Point2) -> f64) {
    if poly.is_empty() {
        return;
    }
    let values: Vec<f64> = poly.iter().map(|&q| f(q)).collect();
    if values.iter().all(|&v| v >= 0.0) {
        return;
    }
    let mut out = Vec::with_capacity(poly.len() + 2);
    for i in 0..poly.len() {
        let j = (i + 1) % poly.len();
        let (p, q, fp, fq) = (poly[i], poly[j], values[i], values[j]);
        if fp >= 0.0 {
            out.push(p);
        }
        if (fp >= 0.0) != (fq >= 0.0) {
            let s = fp / (fp - fq);
            out.push([p[0] + (q[0] - p[0]) * s, p[1] + (q[1] - p[1]) * s]);
        }
    }
    *poly = out;
}

/// The parameter interval `[t0, t1]` of segment `a → b` inside the closed XZ footprint of `t`;
/// exact for segments along the triangle's own edges (shared vertices give orientation zero).
pub(crate) fn segment_in_triangle(a: Point2, b: Point2, t: &[[f64; 3]; 3]) -> Option<(f64, f64)> {
    segment_in_convex(a, b, &ccw_xz(t))
}

/// The parameter interval `[t0, t1]` of segment `a → b` inside the closed convex
/// counter-clockwise polygon `poly` (Cyrus–Beck).
pub(crate) fn segment_in_convex(a: Point2, b: Point2, poly: &[Point2]) -> Option<(f64, f64)> {
    let (mut t0, mut t1) = (0.0f64, 1.0f64);
    for i in 0..poly.len() {
        let (p, q) = (poly[i], poly[(i + 1) % poly.len()]);
        let fa = geom::orient2d(p, q, a);
        let fb = geom::orient2d(p, q, b);
        match (fa >= 0.0, fb >= 0.0) {
            (true, true) => {}
            (false, false) => return None,
            (true, false) => t1 = t1.min(fa / (fa - fb)),
            (false, true) => t0 = t0.max(fa / (fa - fb)),
        }
    }
    (t1 > t0).then_some((t0, t1))
}

/// The sub-interval of `[t0, t1]` where the affine value (d0 at t0, d1 at t1) lies strictly
/// between `lo` and `hi` (closed at the finite bound nearest zero, which is what "within
/// `max_climb`" means).
pub(crate) fn sub_interval(t0: f64, t1: f64, d0: f64, d1: f64, lo: f64, hi: f64) -> Option<[f64; 2]> {
    let inside = |d: f64| d >= lo && d <= hi;
    if (d1 - d0).abs() < FLAT_DIFFERENCE {
        return inside(d0).then_some([t0, t1]);
    }
    let at = |v: f64| t0 + (t1 - t0) * (v - d0) / (d1 - d0);
    let (mut s0, mut s1) = (at(lo), at(hi));
    if s0 > s1 {
        std::mem::swap(&mut s0, &mut s1);
    }
    let (s0, s1) = (s0.max(t0), s1.min(t1));
    (s1 > s0).then_some([s0, s1])
}

/// `∪ a − ∪ b` for intervals on a line.
pub(crate) fn subtract_intervals(mut a: Vec<[f64; 2]>, mut b: Vec<[f64; 2]>) -> Vec<[f64; 2]> {
    let merge = |v: &mut Vec<[f64; 2]>| {
        v.sort_by(|x, y| x[0].total_cmp(&y[0]));
        let mut out: Vec<[f64; 2]> = Vec::new();
        for iv in v.drain(..) {
            match out.last_mut() {
                Some(last) if iv[0] <= last[1] => last[1] = last[1].max(iv[1]),
                _ => out.push(iv),
            }
        }
        out
    };
    let a = merge(&mut a);
    let b = merge(&mut b);
    let mut out = Vec::new();
    for [mut s, e] in a {
        for &[bs, be] in &b {
            if be <= s || bs >= e {
                continue;
            }
            if bs > s {
                out.push([s, bs]);
            }
            s = s.max(be);
        }
        if e > s {
            out.push([s, e]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_subtraction() {
        assert_eq!(
            subtract_intervals(vec![[0.0, 1.0]], vec![[0.2, 0.3], [0.5, 0.6]]),
            vec![[0.0, 0.2], [0.3, 0.5], [0.6, 1.0]]
        );
        assert!(subtract_intervals(vec![[0.0, 1.0]], vec![[0.0, 1.0]]).is_empty());
    }
}
