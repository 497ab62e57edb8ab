//! Interval geometry of the shortest-path search: clipping a segment to a half-plane and the
//! shortest way from a root through an interval to a point.

use crate::geom::{orient2d, Point2};
use crate::query::dist2;

/// Clips segment `u -> v` to the closed half-plane `side * orient2d(p0, p1, x) >= 0`; `None`
/// when nothing remains. Ends that need no clipping are returned unchanged (bit-exact), and an
/// end on the boundary line is kept as is, so vertex identity survives clipping.
#[inline]
pub(super) fn clip(u: Point2, v: Point2, p0: Point2, p1: Point2, side: f64) -> Option<(Point2, Point2)> {
    let ou = orient2d(p0, p1, u) * side;
    let ov = orient2d(p0, p1, v) * side;
    match (ou >= 0.0, ov >= 0.0) {
        (true, true) => Some((u, v)),
        (false, false) => None,
        (false, true) => Some((if ov == 0.0 { v } else { lerp_at(u, v, ou, ov) }, v)),
        (true, false) => Some((u, if ou == 0.0 { u } else { lerp_at(u, v, ou, ov) })),
    }
}

/// Whether a wedge bounded by the lines `ra` and `rb` (each through two exact points, both
/// through the root) has an interior: its lines differ. An interval whose computed ends rounded
/// to one point can still be the mouth of such a wedge when the wedge is thinner than a rounding
/// step there; what lies beyond it is decided on the exact lines, not on the rounded ends.
#[inline]
pub(super) fn wedge_open(ra: [Point2; 2], rb: [Point2; 2]) -> bool {
    orient2d(ra[0], ra[1], rb[0]) != 0.0 || orient2d(ra[0], ra[1], rb[1]) != 0.0
}

/// The piece of edge `u -> w` in the wedge from `root` between lines `ra` and `rb` when clipping it to the right boundary gave
/// `clipped` and clipping that to the left boundary left nothing: a point where the edge crosses
/// the right boundary ahead of the root, or `None`.
///
/// The first clip is exact (it tests the edge's own ends), the second tests the end the first
/// one computed, which is rounded. In a wedge thinner than a rounding step there, the rounded
/// crossing can fall outside the left boundary although the exact one is on the wedge's closed
/// boundary; chains of nearly collinear vertices along a carved obstacle's side make such
/// wedges, and the only way past the chain runs through them. The exact crossing lies on the
/// right boundary line, which passes through the root, so it is in the closed wedge exactly when
/// the wedge is open and the crossing is ahead of the root along that line (a test that is
/// robust unless the crossing is within rounding of the root itself).
pub(super) fn thin_wedge_mouth(
    root: Point2,
    ra: [Point2; 2],
    rb: [Point2; 2],
    (u, w): (Point2, Point2),
    clipped: (Point2, Point2),
) -> Option<(Point2, Point2)> {
    // (Only the right end can have moved onto the right boundary when the edge runs right to
    // left across the wedge's mouth; anything else is no thin-wedge case.)
    if clipped.0 == u || clipped.1 != w {
        return None;
    }
    let crossing = clipped.0;
    let d = [ra[1][0] - ra[0][0], ra[1][1] - ra[0][1]];
    let ahead = (crossing[0] - root[0]) * d[0] + (crossing[1] - root[1]) * d[1] > 0.0;
    (ahead && wedge_open(ra, rb)).then_some((crossing, crossing))
}

/// The far end of interval `[ia, ib]` on edge `a -> b` when the root lies on the edge's line (the
/// interval is seen end-on), else `None`.
///
/// Seen end-on, the wedge from the root is a ray, and both its boundary lines are the edge's
/// line, so clipping the next polygon's edges to the wedge keeps everything on that line, behind
/// the root too. The polygon across may have edges on that line that lead back to the root (a
/// portal chain in line with it), and a piece ending at the root would get a boundary "ray" from
/// the root to itself, which clips nothing: the search then went round the polygons along the
/// line for ever (each lap a single successor, so without the open list) until the node cap
/// ended it as unreachable. Only pieces at or beyond the far end are ahead of the root.
#[inline]
pub(super) fn end_on_far(root: Point2, a: Point2, b: Point2, ia: Point2, ib: Point2) -> Option<Point2> {
    (orient2d(a, b, root) == 0.0).then(|| if dist2(root, ia) >= dist2(root, ib) { ia } else { ib })
}

/// Whether `x`, on the line from `root` through `far`, lies at or beyond `far` (all three in
/// line, so the sign of the dot product is the order along the line; it is exactly zero at
/// `far`).
#[inline]
pub(super) fn ahead(root: Point2, far: Point2, x: Point2) -> bool {
    (x[0] - far[0]) * (far[0] - root[0]) + (x[1] - far[1]) * (far[1] - root[1]) >= 0.0
}

/// The point of `u -> v` where an affine function with values `fu`, `fv` at the ends is zero.
#[inline]
pub(in crate::query) fn lerp_at(u: Point2, v: Point2, fu: f64, fv: f64) -> Point2 {
    let t = (fu / (fu - fv)).clamp(0.0, 1.0);
    [u[0] + (v[0] - u[0]) * t, u[1] + (v[1] - u[1]) * t]
}

/// Reflection of `p` across the line through `a` and `b`.
pub(super) fn mirror(p: Point2, a: Point2, b: Point2) -> Point2 {
    let d = [b[0] - a[0], b[1] - a[1]];
    let len2 = d[0] * d[0] + d[1] * d[1];
    if len2 == 0.0 {
        return p;
    }
    let t = ((p[0] - a[0]) * d[0] + (p[1] - a[1]) * d[1]) / len2;
    let foot = [a[0] + d[0] * t, a[1] + d[1] * t];
    [2.0 * foot[0] - p[0], 2.0 * foot[1] - p[1]]
}

/// Length of the shortest path from `root` through the interval `[ia, ib]` (seen from the root
/// with `ia` on the right) to `goal`, which lies beyond the interval's line (mirrored if not);
/// also the interval point where that path bends (`None` when straight). `line` is two exact
/// points of the line the interval lies on (the ends of its edge).
///
/// Which side of that line the root and the goal lie on is decided on `line`, not on the
/// interval's ends: those are rounded, and where the root lies within rounding of the line (an
/// edge of a carved sliver passing through a corner) the line through them can put the root on
/// either side, so that a goal beyond the interval was mirrored back and the bound overestimated
/// (the search then finished through a worse node first).
pub(in crate::query) fn via_interval(
    root: Point2,
    (ia, ib): (Point2, Point2),
    ra: [Point2; 2],
    rb: [Point2; 2],
    line: [Point2; 2],
    goal: Point2,
) -> (f64, Option<Point2>) {
    if ia == ib {
        return (dist2(root, ia) + dist2(ia, goal), (ia != goal).then_some(ia));
    }
    // Beyond = on the side of the line opposite the root; a goal on the root's side is mirrored.
    let side_root = orient2d(line[0], line[1], root);
    let side_goal = orient2d(line[0], line[1], goal);
    let g = if side_root * side_goal > 0.0 { mirror(goal, line[0], line[1]) } else { goal };
    if orient2d(ra[0], ra[1], g) < 0.0 {
        (dist2(root, ia) + dist2(ia, g), Some(ia))
    } else if orient2d(rb[0], rb[1], g) > 0.0 {
        (dist2(root, ib) + dist2(ib, g), Some(ib))
    } else {
        (dist2(root, g), None)
    }
}
