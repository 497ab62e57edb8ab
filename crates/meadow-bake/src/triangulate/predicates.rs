//! Exact predicates on points and segments that the steps decide with: directions, wedges,
//! touching segments. Every topological decision goes through [`orient2d`].
//!
//! Input: points. Output: booleans and orderings.

use meadow::geom::{orient2d, Point2};
use std::cmp::Ordering;

/// The signs of `to − from` in each coordinate (exact): equal for two collinear vectors
/// exactly when they point the same way.
pub(super) fn direction(from: Point2, to: Point2) -> (Ordering, Ordering) {
    (to[0].partial_cmp(&from[0]).unwrap_or(Ordering::Equal), to[1].partial_cmp(&from[1]).unwrap_or(Ordering::Equal))
}

/// Whether `p` lies on the closed segment `a b`, given that the three are collinear.
pub(super) fn within_box(a: Point2, b: Point2, p: Point2) -> bool {
    p[0] >= a[0].min(b[0]) && p[0] <= a[0].max(b[0]) && p[1] >= a[1].min(b[1]) && p[1] <= a[1].max(b[1])
}

/// Whether closed segments `a b` and `c d` share a point.
pub(super) fn segments_touch(a: Point2, b: Point2, c: Point2, d: Point2) -> bool {
    let (o1, o2) = (orient2d(a, b, c), orient2d(a, b, d));
    let (o3, o4) = (orient2d(c, d, a), orient2d(c, d, b));
    let opposite = |u: f64, v: f64| (u > 0.0 && v < 0.0) || (u < 0.0 && v > 0.0);
    (opposite(o1, o2) && opposite(o3, o4))
        || (o1 == 0.0 && within_box(a, b, c))
        || (o2 == 0.0 && within_box(a, b, d))
        || (o3 == 0.0 && within_box(c, d, a))
        || (o4 == 0.0 && within_box(c, d, b))
}

/// Whether `p` lies within `distance` of the segment `a b`, level with its inside.
pub(super) fn near_inside(a: Point2, b: Point2, p: Point2, distance: f64) -> bool {
    let ab = [b[0] - a[0], b[1] - a[1]];
    let ap = [p[0] - a[0], p[1] - a[1]];
    let len2 = ab[0] * ab[0] + ab[1] * ab[1];
    let t = (ap[0] * ab[0] + ap[1] * ab[1]) / len2;
    if !(t > 0.0 && t < 1.0) {
        return false;
    }
    let off = [ap[0] - ab[0] * t, ap[1] - ab[1] * t];
    off[0] * off[0] + off[1] * off[1] <= distance * distance
}

/// Whether direction `d` (from the apex `c`) lies strictly inside the wedge swept
/// counter-clockwise from direction `r1` to direction `r2`. A wedge whose rays coincide is
/// taken as empty (the tip of a zero-area spike).
pub(super) fn strictly_in_wedge(c: Point2, r1: Point2, r2: Point2, d: Point2) -> bool {
    let o12 = orient2d(c, r1, r2);
    let o1d = orient2d(c, r1, d);
    let o2d = orient2d(c, r2, d);
    if o12 > 0.0 {
        o1d > 0.0 && o2d < 0.0
    } else if o12 < 0.0 {
        !(o1d <= 0.0 && o2d >= 0.0)
    } else if direction(c, r1) == direction(c, r2) {
        false
    } else {
        o1d > 0.0
    }
}

/// Whether direction `d` lies in the closed wedge from `r1` counter-clockwise to `r2`.
pub(super) fn closed_in_wedge(c: Point2, r1: Point2, r2: Point2, d: Point2) -> bool {
    !strictly_in_wedge(c, r2, r1, d)
}
