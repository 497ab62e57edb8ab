//! Planar geometry shared by the runtime and the bake: robust orientation and polygon measures.
//!
//! Orientation decisions go through [`orient2d`] (Shewchuk's adaptive exact predicate), never
//! through an ad-hoc epsilon; so do in-circle decisions, through [`incircle`].

use crate::tolerance::{ORIENT2D_FILTER_BOUND, WINDING_TOLERANCE};
/// A point in the XZ plane: `[x, z]`.
pub type Point2 = [f64; 2];

/// Whether the free wedge at `v` between the walls to `prev` (arriving) and to `next` (leaving),
/// free side on the left of the walk `prev → v → next`, is wider than a half-turn (a corner a
/// taut path can bend round): the walk turns right, or doubles back (a slit), or the wedge wraps
/// past a full turn. `around` holds the far ends of the edges at `v` of every polygon of the
/// wedge (in XZ).
///
/// A wedge of stacked layers can wrap past a full turn where its walls cross in XZ; the walk
/// then turns left as round a narrow wedge. Each polygon's angle is below a half-turn and they
/// cover the wedge without gaps, so from the direction of `next` the directions of their edges
/// step round by less than a half-turn each: a wedge wider than a full turn has one strictly in
/// the second half-turn, strictly right of the line `v → next`, while a wedge of at most a
/// half-turn has none there. All decisions are exact orientations.
pub fn wedge_is_reflex(prev: Point2, v: Point2, next: Point2, around: impl IntoIterator<Item = Point2>) -> bool {
    let turn = orient2d(prev, v, next);
    let doubles_back = turn == 0.0 && (prev[0] - v[0]) * (next[0] - v[0]) + (prev[1] - v[1]) * (next[1] - v[1]) > 0.0;
    turn < 0.0 || doubles_back || around.into_iter().any(|w| orient2d(v, next, w) < 0.0)
}

/// Twice the signed area of triangle `a b c`: positive when `c` lies left of `a → b`
/// (counter-clockwise), zero when collinear; the sign is exact.
#[inline]
pub fn orient2d(a: Point2, b: Point2, c: Point2) -> f64 {
    // `robust`'s own first stage, with one test of the magnitude instead of one per sign: the
    // sign of a determinant is data (half the calls go each way), so testing it costs a
    // mispredicted branch half the time, while the filter almost always passes. The value
    // returned when it passes is the one `robust` returns; otherwise `robust` decides.
    let left = (a[0] - c[0]) * (b[1] - c[1]);
    let right = (a[1] - c[1]) * (b[0] - c[0]);
    let det = left - right;
    if det.abs() >= ORIENT2D_FILTER_BOUND * (left + right).abs() {
        return det;
    }
    robust::orient2d(
        robust::Coord { x: a[0], y: a[1] },
        robust::Coord { x: b[0], y: b[1] },
        robust::Coord { x: c[0], y: c[1] },
    )
}

/// The sign of [`orient2d`] (1, -1) when plain floating point certifies it, else 0: for
/// decisions with a safe answer when unsure, where the exact fallback would cost more than the
/// unsure case (Shewchuk's first-stage filter with Ozaki et al.'s bound, underflow guard kept).
#[inline]
pub fn orient2d_certain_sign(a: Point2, b: Point2, c: Point2) -> i8 {
    let left = (a[0] - c[0]) * (b[1] - c[1]);
    let right = (a[1] - c[1]) * (b[0] - c[0]);
    let det = left - right;
    let bound = ORIENT2D_FILTER_BOUND * (left + right).abs() + f64::MIN_POSITIVE;
    if det > bound {
        1
    } else if -det > bound {
        -1
    } else {
        0
    }
}

/// Positive when `d` lies inside the circle through the counter-clockwise triangle `a b c`,
/// negative outside, zero on it; the sign is exact.
#[inline]
pub fn incircle(a: Point2, b: Point2, c: Point2, d: Point2) -> f64 {
    robust::incircle(
        robust::Coord { x: a[0], y: a[1] },
        robust::Coord { x: b[0], y: b[1] },
        robust::Coord { x: c[0], y: c[1] },
        robust::Coord { x: d[0], y: d[1] },
    )
}

/// Signed area of a closed ring (positive when counter-clockwise).
pub fn signed_area(ring: &[Point2]) -> f64 {
    let n = ring.len();
    if n < 3 {
        return 0.0;
    }
    // Shoelace relative to the first point: keeps precision far from the origin.
    let o = ring[0];
    let mut twice = 0.0;
    for i in 1..n - 1 {
        let a = [ring[i][0] - o[0], ring[i][1] - o[1]];
        let b = [ring[i + 1][0] - o[0], ring[i + 1][1] - o[1]];
        twice += a[0] * b[1] - a[1] * b[0];
    }
    twice * 0.5
}

/// Whether a ring is convex and counter-clockwise: no right turn anywhere, positive area, and
/// the boundary winds around exactly once. Collinear vertices are allowed.
pub fn is_convex_ccw(ring: &[Point2]) -> bool {
    let n = ring.len();
    if n < 3 {
        return false;
    }
    // With no right turn, one exact left turn means positive area (a float shoelace sum can
    // round a valid sliver to zero).
    let mut any_left = false;
    let mut turning = 0.0;
    for i in 0..n {
        let a = ring[i];
        let b = ring[(i + 1) % n];
        let c = ring[(i + 2) % n];
        let o = orient2d(a, b, c);
        if o < 0.0 {
            return false;
        }
        any_left |= o > 0.0;
        let d1 = [b[0] - a[0], b[1] - a[1]];
        let d2 = [c[0] - b[0], c[1] - b[1]];
        if d1 == [0.0, 0.0] || d2 == [0.0, 0.0] {
            return false;
        }
        turning += (d1[0] * d2[1] - d1[1] * d2[0]).atan2(d1[0] * d2[0] + d1[1] * d2[1]);
    }
    // A star polygon with only left turns winds twice (4π); a simple convex one winds once.
    any_left && (turning - std::f64::consts::TAU).abs() < WINDING_TOLERANCE
}

/// The convex hull of `points`, counter-clockwise without collinear or repeated points, into
/// `hull` (Andrew's monotone chain with exact orientations; `points` is sorted in place, `at`
/// gives an item's position). Fewer than three points, or all on a line, give a degenerate
/// chain of at most two.
pub fn convex_hull<T: Copy>(points: &mut [T], at: impl Fn(&T) -> Point2, hull: &mut Vec<T>) {
    // `+ 0.0` turns -0.0 into 0.0, which `total_cmp` would order apart while the orientation
    // tests take them as equal (a lexicographic order the chain needs).
    let key = |t: &T| {
        let p = at(t);
        (p[0] + 0.0, p[1] + 0.0)
    };
    points.sort_by(|p, q| {
        let (a, b) = (key(p), key(q));
        a.0.total_cmp(&b.0).then(a.1.total_cmp(&b.1))
    });
    hull.clear();
    // Lower hull left to right, then upper hull right to left, each point popping the ones it
    // makes non-convex (or repeats).
    for pass in 0..2 {
        let floor = hull.len();
        let ordered: &mut dyn Iterator<Item = &T> =
            if pass == 0 { &mut points.iter() } else { &mut points.iter().rev() };
        for &p in ordered {
            while hull.len() >= floor + 2
                && orient2d(at(&hull[hull.len() - 2]), at(&hull[hull.len() - 1]), at(&p)) <= 0.0
            {
                hull.pop();
            }
            hull.push(p);
        }
        hull.pop(); // the last point starts the other half
    }
}

/// Distance from `p` to the segment `a b` (all in XZ).
pub fn point_segment_distance(p: Point2, a: Point2, b: Point2) -> f64 {
    let ab = [b[0] - a[0], b[1] - a[1]];
    let ap = [p[0] - a[0], p[1] - a[1]];
    let len2 = ab[0] * ab[0] + ab[1] * ab[1];
    let t = if len2 > 0.0 { ((ap[0] * ab[0] + ap[1] * ab[1]) / len2).clamp(0.0, 1.0) } else { 0.0 };
    let d = [ap[0] - ab[0] * t, ap[1] - ab[1] * t];
    (d[0] * d[0] + d[1] * d[1]).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wedges_wider_than_a_half_turn_are_reflex_even_past_a_full_turn() {
        let v = [0.0, 0.0];
        // Free side on the left of prev -> v -> next; `around` the far ends of the polygons'
        // edges at `v`, in their order round the wedge.
        let reflex =
            |prev: Point2, next: Point2, around: &[Point2]| wedge_is_reflex(prev, v, next, around.iter().copied());
        // A quarter-turn (convex), a half-turn (a straight wall), three quarters, a slit.
        assert!(!reflex([0.0, 1.0], [1.0, 0.0], &[[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]));
        assert!(!reflex([-1.0, 0.0], [1.0, 0.0], &[[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]]));
        assert!(reflex([0.0, -1.0], [1.0, 0.0], &[[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0]]));
        assert!(reflex([2.0, 0.0], [1.0, 0.0], &[[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0], [0.0, -1.0], [2.0, 0.0]]));
        // Stacked layers whose walls cross: the wedge runs a full turn and a few degrees more
        // (nav_test's ramp foot, as baked: the walk prev -> v -> next turns left, as round a
        // wedge of a few degrees).
        let (prev, v2, next) =
            ([44.3505859375, -1.23046875], [44.341796875, -1.21728515625], [44.349609375, -1.2294921875]);
        assert!(orient2d(prev, v2, next) > 0.0);
        let around =
            [next, [46.9267578125, -1.5908203125], [44.34130859375, -1.216796875], [44.33984375, -1.216796875], prev];
        assert!(wedge_is_reflex(prev, v2, next, around));
        // The same walls round a narrow wedge (no edge beyond the half-turn) are no corner.
        assert!(!wedge_is_reflex(prev, v2, next, [next, prev]));
    }
    use meadow_testkit::rng::{Draw, Xorshift64};

    #[test]
    fn certain_signs_agree_with_the_exact_predicate() {
        // Random, exactly collinear (points on a line through grid multiples), and nearly
        // collinear triples (one ulp off), at small and large offsets.
        let mut rng = Xorshift64::new(0x9e37_79b9_7f4a_7c15);
        let mut next = move || rng.next_f64();
        let (mut certain, mut unsure) = (0, 0);
        for i in 0..30_000 {
            let off = [1.0, 1e3, 1e6][i % 3];
            let a = [off + next() * 10.0, off + next() * 10.0];
            let b = [off + next() * 10.0, off + next() * 10.0];
            let c = match i % 4 {
                0 => [off + next() * 10.0, off + next() * 10.0],
                1 => {
                    let t = (next() * 8.0).floor() / 4.0;
                    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t]
                }
                2 => [a[0] + (b[0] - a[0]) * 0.5, f64::from_bits((a[1] + (b[1] - a[1]) * 0.5).to_bits() + 1)],
                _ => [b[0], b[1]],
            };
            let exact = orient2d(a, b, c);
            match orient2d_certain_sign(a, b, c) {
                0 => unsure += 1,
                s => {
                    assert_eq!(f64::from(s), exact.signum(), "{a:?} {b:?} {c:?}");
                    certain += 1;
                }
            }
        }
        assert!(certain > 7_000 && unsure > 7_000, "{certain} certain, {unsure} unsure");
    }

    #[test]
    fn square_is_convex_and_reverse_is_not() {
        let sq = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        assert!(is_convex_ccw(&sq));
        let mut rev = sq;
        rev.reverse();
        assert!(!is_convex_ccw(&rev));
        assert_eq!(signed_area(&sq), 1.0);
    }

    #[test]
    fn pentagram_is_rejected() {
        // Five points of a regular pentagon visited in star order: all left turns, winds twice.
        let p: Vec<Point2> = (0..5)
            .map(|i| {
                let a = (i * 2) as f64 * std::f64::consts::TAU / 5.0;
                [a.cos(), a.sin()]
            })
            .collect();
        assert!(!is_convex_ccw(&p));
    }

    #[test]
    fn incircle_signs_are_exact() {
        let (a, b, c) = ([0.0, 0.0], [1.0, 0.0], [1.0, 1.0]);
        assert!(incircle(a, b, c, [0.5, 0.5]) > 0.0);
        assert!(incircle(a, b, c, [3.0, 0.5]) < 0.0);
        // The fourth corner of the square is on the circle; one ulp off it is not.
        assert_eq!(incircle(a, b, c, [0.0, 1.0]), 0.0);
        assert!(incircle(a, b, c, [0.0, 1.0 - f64::EPSILON / 2.0]) > 0.0);
        assert!(incircle(a, b, c, [0.0, 1.0 + f64::EPSILON]) < 0.0);
        // Clockwise order flips the sign.
        assert!(incircle(a, c, b, [0.5, 0.5]) < 0.0);
    }

    #[test]
    fn collinear_vertex_allowed() {
        let p = [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [2.0, 1.0]];
        assert!(is_convex_ccw(&p));
    }
}
