//! Circle geometry for the round-obstacle planner: bitangents, arcs, covered arcs of
//! overlapping circles, segment distances.
//!
//! Angles are in radians, measured counter-clockwise from +x in the `(x, z)` plane. A travel
//! direction around a circle is a sign `s`: `+1.0` counter-clockwise (centre on the left of the
//! traveller), `-1.0` clockwise.

use super::exact::compare_distance;
use crate::geom::{orient2d, Point2};
use std::cmp::Ordering;
use std::f64::consts::TAU;

pub(crate) use crate::tolerance::FULL_TURN_SNAP;

/// A straight tangent segment between two circles (or a point and a circle).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Tangent {
    /// Angle of the tangent point on the first circle (meaningless for a point).
    pub from_angle: f64,
    /// Angle of the tangent point on the second circle (meaningless for a point).
    pub to_angle: f64,
    pub from: Point2,
    pub to: Point2,
    pub length: f64,
}

/// The segment tangent to circle A (travelled in direction `sa`) and circle B (travelled in
/// direction `sb` on arrival). Same directions give an external bitangent, opposite ones an
/// internal bitangent; a radius of zero makes that end a point.
///
/// Decided exactly on the inputs ([`compare_distance`]): with `k = rA − sa·sb·rB`, the tangent
/// exists when `|k| < d`; when `|k| = d` exactly it is the zero-length tangent at the contact
/// point (an internal one at the kiss point of touching circles, or a point end on the
/// circle's boundary); when `|k| > d` (overlapping circles for internal ones, one circle inside
/// the other, a point end inside the circle) there is none.
pub(crate) fn tangent(ca: Point2, ra: f64, sa: f64, cb: Point2, rb: f64, sb: f64) -> Option<Tangent> {
    tangent_points(ca, ra, sa, cb, rb, sb).map(|t| t.with_angles())
}

/// A [`Tangent`] before its angles are taken (two `atan2`s, often not needed: most candidate
/// tangents are found blocked first).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TangentPoints {
    /// Unit normals at the two ends.
    pub na: Point2,
    pub nb: Point2,
    pub from: Point2,
    pub to: Point2,
    pub length: f64,
}

impl TangentPoints {
    pub(crate) fn departure_angle(&self) -> f64 {
        self.na[1].atan2(self.na[0])
    }

    pub(crate) fn arrival_angle(&self) -> f64 {
        self.nb[1].atan2(self.nb[0])
    }

    pub(crate) fn with_angles(&self) -> Tangent {
        Tangent {
            from_angle: self.departure_angle(),
            to_angle: self.arrival_angle(),
            from: self.from,
            to: self.to,
            length: self.length,
        }
    }
}

/// [`tangent`] without the angles.
pub(crate) fn tangent_points(ca: Point2, ra: f64, sa: f64, cb: Point2, rb: f64, sb: f64) -> Option<TangentPoints> {
    let dx = cb[0] - ca[0];
    let dy = cb[1] - ca[1];
    let d = (dx * dx + dy * dy).sqrt();
    // cos θ = k / d, where θ is the angle between the centre line and the normal at A.
    let k = ra - sa * sb * rb;
    let (cos, sin, length) = match compare_distance(ca, cb, ra, -sa * sb * rb) {
        Ordering::Greater => {
            // sqrt(d² − k²) in the cancellation-free form; rounding may take `d` below `|k|`
            // when they differ by a few units, where the tangent is just a little longer than 0.
            let length = ((d - k.abs()).max(0.0) * (d + k.abs())).sqrt();
            ((k / d).clamp(-1.0, 1.0), length / d, length)
        }
        Ordering::Equal if d > 0.0 => (k.signum(), 0.0, 0.0),
        _ => return None,
    };
    let (ux, uy) = (dx / d, dy / d);
    // Normal at A: the centre direction rotated by −sa·θ.
    let na = [cos * ux + sa * sin * uy, cos * uy - sa * sin * ux];
    let nb = [sa * sb * na[0], sa * sb * na[1]];
    let from = [ca[0] + ra * na[0], ca[1] + ra * na[1]];
    let to = [cb[0] + rb * nb[0], cb[1] + rb * nb[1]];
    Some(TangentPoints { na, nb, from, to, length })
}

/// The angle swept travelling from `from` to `to` in direction `s` (in `[0, 2π)`).
pub(crate) fn sweep(from: f64, to: f64, s: f64) -> f64 {
    let raw = if s > 0.0 { to - from } else { from - to };
    let swept = raw.rem_euclid(TAU);
    if swept > TAU - FULL_TURN_SNAP || swept.is_nan() {
        0.0
    } else {
        swept
    }
}

/// The closed arc `[start, start + width]` (counter-clockwise) of a circle that lies inside or on
/// another circle.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct CoveredArc {
    pub start: f64,
    pub width: f64,
}

/// The arc of circle A covered by circle B, by the radical line: the chord of the two
/// intersection points is at distance `a = (rA² − rB² + d²) / 2d` from A's centre, so the
/// intersection points are at `±acos(a / rA)` around the centre line. `None` unless the circles
/// overlap (exactly: circles that only touch cover nothing, their kiss point stays passable),
/// or when one contains the other. An overlap too shallow for `acos` to resolve gives an arc
/// of width 0, which still blocks (see [`arc_blocked`]).
pub(crate) fn covered_arc(ca: Point2, ra: f64, cb: Point2, rb: f64) -> Option<CoveredArc> {
    let dx = cb[0] - ca[0];
    let dy = cb[1] - ca[1];
    let d = dx.hypot(dy);
    if compare_distance(ca, cb, ra, rb) != Ordering::Less || d <= (ra - rb).abs() || d == 0.0 {
        return None;
    }
    let a = (ra * ra - rb * rb + d * d) / (2.0 * d);
    let half = (a / ra).clamp(-1.0, 1.0).acos();
    let centre = dy.atan2(dx);
    Some(CoveredArc { start: centre - half, width: 2.0 * half })
}

/// Whether `angle` lies strictly inside a covered arc.
pub(crate) fn strictly_covered(angle: f64, arcs: &[CoveredArc]) -> bool {
    arcs.iter().any(|arc| {
        let offset = (angle - arc.start).rem_euclid(TAU);
        offset > 0.0 && offset < arc.width
    })
}

/// Whether the open arc leaving `from` in direction `s` over `swept` radians meets a covered
/// arc (one of width 0 counts: it is an overlap too shallow to measure, not a kiss, as
/// [`covered_arc`] gives none for circles that only touch).
pub(crate) fn arc_blocked(from: f64, swept: f64, s: f64, arcs: &[CoveredArc]) -> bool {
    if swept <= 0.0 {
        return false;
    }
    arcs.iter().any(|arc| {
        // Mirror clockwise travel so the test below is always counter-clockwise.
        let (from, start) = if s > 0.0 { (from, arc.start) } else { (-from, -(arc.start + arc.width)) };
        let offset = (start - from).rem_euclid(TAU);
        let wraps_past_start = offset + arc.width > TAU && offset + arc.width - TAU > 0.0;
        (offset > 0.0 && offset < swept) || (offset == 0.0 && arc.width > 0.0) || wraps_past_start
    })
}

/// Squared distance from `p` to the segment `a b` (the parameter clamped to `[0, 1]`).
#[inline]
pub(crate) fn point_segment_distance2(p: Point2, a: Point2, b: Point2) -> f64 {
    let ab = [b[0] - a[0], b[1] - a[1]];
    let ap = [p[0] - a[0], p[1] - a[1]];
    let len2 = ab[0] * ab[0] + ab[1] * ab[1];
    let t = if len2 > 0.0 { ((ap[0] * ab[0] + ap[1] * ab[1]) / len2).clamp(0.0, 1.0) } else { 0.0 };
    let d = [ap[0] - ab[0] * t, ap[1] - ab[1] * t];
    d[0] * d[0] + d[1] * d[1]
}

/// Whether segments `a b` and `c d` cross at a single interior point of both (exact predicates).
pub(crate) fn segments_cross(a: Point2, b: Point2, c: Point2, d: Point2) -> bool {
    let o1 = orient2d(a, b, c);
    let o2 = orient2d(a, b, d);
    let o3 = orient2d(c, d, a);
    let o4 = orient2d(c, d, b);
    o1 * o2 < 0.0 && o3 * o4 < 0.0
}

#[inline]
pub(crate) fn distance(a: Point2, b: Point2) -> f64 {
    // Not `hypot`: its overflow care costs several times more and coordinates are metres.
    let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
    (dx * dx + dy * dy).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dot(a: Point2, b: Point2) -> f64 {
        a[0] * b[0] + a[1] * b[1]
    }

    fn sub(a: Point2, b: Point2) -> Point2 {
        [a[0] - b[0], a[1] - b[1]]
    }

    /// Checks tangency at both ends and that travel direction `s` agrees with the segment.
    fn check_tangent(ca: Point2, ra: f64, sa: f64, cb: Point2, rb: f64, sb: f64) -> Tangent {
        let t = tangent(ca, ra, sa, cb, rb, sb).expect("tangent exists");
        let dir = sub(t.to, t.from);
        assert!((distance(t.from, t.to) - t.length).abs() < 1e-12);
        assert!((distance(t.from, ca) - ra).abs() < 1e-12);
        assert!((distance(t.to, cb) - rb).abs() < 1e-12);
        // Radius perpendicular to the segment at both ends.
        assert!(dot(sub(t.from, ca), dir).abs() < 1e-9);
        assert!(dot(sub(t.to, cb), dir).abs() < 1e-9);
        // Counter-clockwise travel has the centre on the left: cross(dir, centre − point) > 0.
        let cross = |p: Point2, c: Point2| dir[0] * (c[1] - p[1]) - dir[1] * (c[0] - p[0]);
        if ra > 0.0 {
            assert!(cross(t.from, ca) * sa > 0.0, "direction at A");
        }
        if rb > 0.0 {
            assert!(cross(t.to, cb) * sb > 0.0, "direction at B");
        }
        t
    }

    #[test]
    fn four_bitangents_between_separate_circles() {
        let (ca, cb) = ([0.0, 0.0], [5.0, 1.0]);
        for sa in [1.0, -1.0] {
            for sb in [1.0, -1.0] {
                let t = check_tangent(ca, 1.0, sa, cb, 1.5, sb);
                let k: f64 = 1.0 - sa * sb * 1.5;
                assert!((t.length - (26.0 - k * k).sqrt()).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn point_tangents() {
        check_tangent([0.0, 0.0], 0.0, 1.0, [4.0, 3.0], 2.0, 1.0);
        check_tangent([0.0, 0.0], 0.0, 1.0, [4.0, 3.0], 2.0, -1.0);
        check_tangent([4.0, 3.0], 2.0, 1.0, [0.0, 0.0], 0.0, 1.0);
        check_tangent([4.0, 3.0], 2.0, -1.0, [0.0, 0.0], 0.0, -1.0);
    }

    #[test]
    fn missing_bitangents_are_skipped() {
        // Overlapping: externals only.
        assert!(tangent([0.0, 0.0], 1.0, 1.0, [1.5, 0.0], 1.0, -1.0).is_none());
        assert!(tangent([0.0, 0.0], 1.0, 1.0, [1.5, 0.0], 1.0, 1.0).is_some());
        // Touching: the internal ones are the zero-length tangent at the kiss point.
        let kiss = tangent([0.0, 0.0], 2.5, -1.0, [6.0, 8.0], 7.5, 1.0).unwrap();
        assert_eq!(kiss.length, 0.0);
        assert!(distance(kiss.from, [1.5, 2.0]) < 1e-15 && distance(kiss.to, [1.5, 2.0]) < 1e-15, "{kiss:?}");
        // A unit in the last place of overlap: none.
        assert!(tangent([0.0, 0.0], 1.0, -1.0, [2.0, 0.0], f64::from_bits(1f64.to_bits() + 1), 1.0).is_none());
        // Contained: none at all.
        for (sa, sb) in [(1.0, 1.0), (1.0, -1.0), (-1.0, -1.0)] {
            assert!(tangent([0.0, 0.0], 3.0, sa, [0.5, 0.0], 1.0, sb).is_none());
        }
        // A point on the circle: the degenerate tangent; inside: none.
        let t = tangent([1.0, 0.0], 0.0, 1.0, [0.0, 0.0], 1.0, 1.0).unwrap();
        assert_eq!(t.length, 0.0);
        assert!(distance(t.to, [1.0, 0.0]) < 1e-12);
        assert!(tangent([1.0 - 1.0 / (1u64 << 50) as f64, 0.0], 0.0, 1.0, [0.0, 0.0], 1.0, 1.0).is_none());
    }

    #[test]
    fn sweep_directions() {
        assert!((sweep(0.0, 1.0, 1.0) - 1.0).abs() < 1e-15);
        assert!((sweep(0.0, 1.0, -1.0) - (TAU - 1.0)).abs() < 1e-15);
        assert_eq!(sweep(1.0, 1.0 + TAU, 1.0), 0.0);
    }

    #[test]
    fn covered_arc_by_radical_line() {
        // Unit circles 1 apart intersect at x = 0.5, y = ±√3/2: ±60° on A.
        let arc = covered_arc([0.0, 0.0], 1.0, [1.0, 0.0], 1.0).unwrap();
        assert!((arc.start + TAU / 6.0).abs() < 1e-12);
        assert!((arc.width - TAU / 3.0).abs() < 1e-12);
        assert!(covered_arc([0.0, 0.0], 1.0, [3.0, 0.0], 1.0).is_none());
        assert!(covered_arc([0.0, 0.0], 3.0, [0.5, 0.0], 1.0).is_none());
        // Touching circles cover nothing; a unit in the last place of overlap covers a point.
        assert!(covered_arc([0.0, 0.0], 2.0, [3.0, 4.0], 3.0).is_none());
        let overlap = covered_arc([0.0, 0.0], 1.0, [2.0, 0.0], f64::from_bits(1f64.to_bits() + 1)).unwrap();
        assert!(overlap.width.abs() < 1e-6);
    }

    #[test]
    fn arcs_blocked_by_covered_arcs() {
        let arcs = [CoveredArc { start: -0.5, width: 1.0 }];
        // Counter-clockwise from π/2 to π: clear; from −π/2 to π/2: through the covered part.
        assert!(!arc_blocked(TAU / 4.0, TAU / 4.0, 1.0, &arcs));
        assert!(arc_blocked(-TAU / 4.0, TAU / 2.0, 1.0, &arcs));
        // Clockwise from π/2 to −π/2 passes 0 too; clockwise from π/2 the other way does not.
        assert!(arc_blocked(TAU / 4.0, TAU / 2.0, -1.0, &arcs));
        assert!(!arc_blocked(-TAU / 4.0, TAU / 2.0 - 0.01, -1.0, &arcs));
        // Leaving the covered arc from its end is fine, entering it from its start is not.
        assert!(!arc_blocked(0.5, 1.0, 1.0, &arcs));
        assert!(arc_blocked(-0.5, 0.1, 1.0, &arcs));
        // A touching point in the middle of the arc blocks it.
        let touch = [CoveredArc { start: 1.0, width: 0.0 }];
        assert!(arc_blocked(0.0, 2.0, 1.0, &touch));
        assert!(!arc_blocked(1.0, 2.0, 1.0, &touch));
        assert!(strictly_covered(0.0, &arcs));
        assert!(!strictly_covered(0.5, &arcs));
    }

    #[test]
    fn crossing_segments() {
        assert!(segments_cross([0.0, 0.0], [2.0, 2.0], [0.0, 2.0], [2.0, 0.0]));
        assert!(!segments_cross([0.0, 0.0], [1.0, 1.0], [1.0, 1.0], [2.0, 0.0]));
        assert!(!segments_cross([0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]));
    }
}
