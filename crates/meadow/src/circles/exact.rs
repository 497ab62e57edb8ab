//! The exact sign behind every contact decision of the planner: is the distance between two
//! points larger than, equal to or smaller than a sum of two radii?
//!
//! Kisses and gaps exactly `2r` wide are decided by equality, which rounded arithmetic cannot
//! see; so the sign of `|b − a|² − (r1 + r2)²` is taken from the inputs as given (doubles),
//! with error-free transformations: each difference and the radius sum is an exact pair of
//! doubles, each square an exact sum of products (Dekker's split), and the 18 terms are summed
//! into a non-overlapping expansion whose largest term has the sign (Shewchuk's `grow
//! expansion`). A floating-point filter answers first when the rounded value is clearly away
//! from zero, which is nearly always.

use crate::geom::Point2;
use std::cmp::Ordering;

/// Unit roundoff of `f64` (2⁻⁵³).
const UNIT_ROUNDOFF: f64 = 1.0 / 9_007_199_254_740_992.0;

/// Error bound of the filter, as a multiple of the unit roundoff times the sum of the squares:
/// the three rounded inputs (a relative error of one unit each, doubled by squaring), the three
/// products and the two additions lose at most about 8 units; 16 leaves a factor of two.
const FILTER_UNITS: f64 = 16.0;

/// Largest input magnitude (metres) of the exact path: Dekker's split and the squares must not
/// overflow. Beyond it (no world the planner serves comes near) the sign is the rounded one.
const EXACT_MAX: f64 = 1e90;

/// Smallest non-zero input magnitude (metres) of the exact path: every input is then a
/// multiple of about 2⁻³⁵⁰, so every product term is a multiple of 2⁻⁷⁰⁰, far above where
/// doubles lose bits (2⁻¹⁰²²). Below it the sign is the rounded one.
const EXACT_MIN: f64 = 1e-90;

/// `a + b` as `(rounded sum, exact error)`.
#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bv = s - a;
    let av = s - bv;
    (s, (a - av) + (b - bv))
}

/// `a` as a sum of two halves of at most 26 significant bits each.
#[inline]
fn split(a: f64) -> (f64, f64) {
    // 2^27 + 1 (Dekker).
    let c = 134_217_729.0 * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// `a · b` as `(rounded product, exact error)`.
#[inline]
fn two_product(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    let err = al * bl - (((p - ah * bh) - al * bh) - ah * bl);
    (p, err)
}

/// Adds `b` to the non-overlapping expansion `e` (increasing magnitude), keeping it exact.
fn grow(e: &mut [f64; 40], len: &mut usize, b: f64) {
    let mut q = b;
    let mut out = 0;
    for i in 0..*len {
        let (s, h) = two_sum(q, e[i]);
        q = s;
        if h != 0.0 {
            e[out] = h;
            out += 1;
        }
    }
    if q != 0.0 {
        e[out] = q;
        out += 1;
    }
    *len = out;
}

/// The exact terms of `(h + l)²` for an exact pair `(h, l)`, added to `e` with `sign`.
fn add_square(e: &mut [f64; 40], len: &mut usize, (h, l): (f64, f64), sign: f64) {
    for (a, b, times) in [(h, h, 1.0), (h, l, 2.0), (l, l, 1.0)] {
        let (p, err) = two_product(a, b);
        // Doubling and negating are exact.
        grow(e, len, sign * times * err);
        grow(e, len, sign * times * p);
    }
}

/// The sign of `|b − a|² − (r1 + r2)²`, exact for finite inputs of metre-like size (see
/// [`EXACT_MAX`]): `Greater` when the points are farther apart than `|r1 + r2|`, `Equal` when
/// exactly that far (a kiss, a point on a boundary), `Less` when closer.
pub(crate) fn compare_distance(a: Point2, b: Point2, r1: f64, r2: f64) -> Ordering {
    let (dx, dy, k) = (b[0] - a[0], b[1] - a[1], r1 + r2);
    let (x2, y2, k2) = (dx * dx, dy * dy, k * k);
    let value = (x2 + y2) - k2;
    let magnitude = x2 + y2 + k2;
    if !magnitude.is_finite() || value.abs() > FILTER_UNITS * UNIT_ROUNDOFF * magnitude {
        return value.partial_cmp(&0.0).unwrap_or(Ordering::Equal);
    }
    let in_range = |v: f64| v == 0.0 || (EXACT_MIN..=EXACT_MAX).contains(&v.abs());
    if ![a[0], a[1], b[0], b[1], r1, r2].into_iter().all(in_range) {
        return value.partial_cmp(&0.0).unwrap_or(Ordering::Equal);
    }
    let mut e = [0.0; 40];
    let mut len = 0;
    add_square(&mut e, &mut len, two_sum(b[0], -a[0]), 1.0);
    add_square(&mut e, &mut len, two_sum(b[1], -a[1]), 1.0);
    add_square(&mut e, &mut len, two_sum(r1, r2), -1.0);
    // The largest component (the last non-zero one) has the sign of the sum.
    match len {
        0 => Ordering::Equal,
        n => e[n - 1].partial_cmp(&0.0).unwrap_or(Ordering::Equal),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kisses_and_boundaries_are_equal() {
        // 3-4-5 triangles.
        assert_eq!(compare_distance([0.0, 0.0], [3.0, 4.0], 2.0, 3.0), Ordering::Equal);
        assert_eq!(compare_distance([0.0, 0.0], [6.0, 8.0], 2.5, 7.5), Ordering::Equal);
        assert_eq!(compare_distance([1.5, -2.0], [0.0, 0.0], 2.5, 0.0), Ordering::Equal);
        // One unit in the last place either way is seen, where rounding would call both equal.
        let up = f64::from_bits(7.5f64.to_bits() + 1);
        let down = f64::from_bits(7.5f64.to_bits() - 1);
        assert_eq!(compare_distance([0.0, 0.0], [6.0, 8.0], 2.5, up), Ordering::Less);
        assert_eq!(compare_distance([0.0, 0.0], [6.0, 8.0], 2.5, down), Ordering::Greater);
        let x = 1.5 - 1.0 / (1u64 << 40) as f64;
        assert_eq!(compare_distance([x, -2.0], [0.0, 0.0], 2.5, 0.0), Ordering::Less);
        // Coordinates far from the origin keep their small differences exactly.
        let far = 1e9;
        assert_eq!(compare_distance([far, far], [far + 3.0, far + 4.0], 2.0, 3.0), Ordering::Equal);
        // Opposite signs: |r1 + r2| is what counts (an internal bitangent's `rA − (−rB)`).
        assert_eq!(compare_distance([0.0, 0.0], [3.0, 4.0], 8.0, -3.0), Ordering::Equal);
    }

    #[test]
    fn matches_rational_arithmetic_on_a_binary_lattice() {
        // Points and radii on a lattice of 2^-8: i128 arithmetic on the scaled values is exact.
        let mut state = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |m: i64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % (2 * m as u64 + 1)) as i64 - m
        };
        let mut equal = 0;
        for round in 0..30_000 {
            let m = if round % 2 == 0 { 64 } else { 1 << 30 };
            let (ax, ay, r1) = (next(m), next(m), next(m));
            // Two rounds in three put the points on a 3-4-5 triangle with a radius sum equal to
            // the distance, or one lattice step off it.
            let (bx, by, r2) = match round % 3 {
                0 => (next(m), next(m), next(m)),
                off => {
                    let t = next(m / 8);
                    (ax + 3 * t, ay + 4 * t, 5 * t.abs() - r1 + (off - 1) as i64 * next(1))
                }
            };
            let (dx, dy) = (i128::from(bx - ax), i128::from(by - ay));
            let d2 = dx * dx + dy * dy;
            let k = i128::from(r1) + i128::from(r2);
            let expected = d2.cmp(&(k * k));
            equal += usize::from(expected == Ordering::Equal);
            let s = 1.0 / 256.0;
            let got = compare_distance(
                [ax as f64 * s, ay as f64 * s],
                [bx as f64 * s, by as f64 * s],
                r1 as f64 * s,
                r2 as f64 * s,
            );
            assert_eq!(got, expected, "{ax} {ay} {bx} {by} {r1} {r2}");
        }
        assert!(equal > 5_000, "only {equal} exact ties");
    }
}
