//! String pulling: the funnel algorithm over a corridor's portals (the shortest path in XZ
//! inside the corridor). Side tests go through the exact `orient2d`.

use super::xz;
use crate::geom::orient2d;

/// Writes the shortest path from `start` to `goal` through `portals` (each `(left, right)` as
/// seen walking towards the goal) into `out`: the start, the portal endpoints where the path
/// turns, and the goal. `corner_at[j]` receives where point `j` came from: 0 for the start,
/// `i + 1` for an endpoint of `portals[i]`, `portals.len() + 1` for the goal.
pub(crate) fn string_pull(
    start: [f64; 3],
    goal: [f64; 3],
    portals: &[([f64; 3], [f64; 3])],
    out: &mut Vec<[f64; 3]>,
    corner_at: &mut Vec<u32>,
) {
    out.clear();
    corner_at.clear();
    out.push(start);
    corner_at.push(0);
    // Virtual portal list: the start and the goal as degenerate portals around the real ones.
    let count = portals.len() + 2;
    let portal = |i: usize| -> ([f64; 3], [f64; 3]) {
        if i == 0 {
            (start, start)
        } else if i == count - 1 {
            (goal, goal)
        } else {
            portals[i - 1]
        }
    };
    let mut apex = start;
    let mut left = start;
    let mut right = start;
    let (mut left_i, mut right_i) = (0usize, 0usize);
    let mut i = 1;
    // Every restart moves the apex to a later portal, so the loop ends after at most
    // count² steps; the cap only guards against that reasoning being defeated by bad input.
    let mut steps = 0usize;
    while i < count && steps <= count.saturating_mul(count) {
        steps += 1;
        let (pl, pr) = portal(i);
        // Right side: `pr` on or left of apex -> right narrows the funnel.
        if side(apex, right, pr) >= 0.0 {
            if xz(apex) == xz(right) || side(apex, left, pr) < 0.0 {
                right = pr;
                right_i = i;
            } else {
                // The right side crossed the left one: the left point is a corner.
                push_corner(out, corner_at, left, left_i);
                apex = left;
                right = apex;
                right_i = left_i;
                i = left_i + 1;
                continue;
            }
        }
        // Left side: `pl` on or right of apex -> left narrows the funnel.
        if side(apex, left, pl) <= 0.0 {
            if xz(apex) == xz(left) || side(apex, right, pl) > 0.0 {
                left = pl;
                left_i = i;
            } else {
                push_corner(out, corner_at, right, right_i);
                apex = right;
                left = apex;
                left_i = right_i;
                i = right_i + 1;
                continue;
            }
        }
        i += 1;
    }
    push_corner(out, corner_at, goal, count - 1);
    drop_straight_corners(out, corner_at);
}

/// `orient2d` in XZ of `apex`, `b`, `c`: exactly 0 when `b` is the apex, which a funnel side
/// is after every restart; answered without `orient2d`, whose exact fallback a zero-area
/// triangle with two equal corners would otherwise take.
#[inline]
fn side(apex: [f64; 3], b: [f64; 3], c: [f64; 3]) -> f64 {
    if xz(apex) == xz(b) {
        0.0
    } else {
        orient2d(xz(apex), xz(b), xz(c))
    }
}

/// Removes corners the path runs straight through (a vertex exactly on the segment between its
/// neighbours in XZ, whose height lies on that segment too): they arise when the string passes
/// exactly through a vertex, and they carry no information.
fn drop_straight_corners(out: &mut Vec<[f64; 3]>, corner_at: &mut Vec<u32>) {
    let mut kept = 1;
    for j in 1..out.len() {
        let is_last = j + 1 == out.len();
        if !is_last {
            let (a, p, b) = (out[kept - 1], out[j], out[j + 1]);
            let ab = [b[0] - a[0], b[2] - a[2]];
            let len2 = ab[0] * ab[0] + ab[1] * ab[1];
            if orient2d(xz(a), xz(p), xz(b)) == 0.0 && len2 > 0.0 {
                let t = ((p[0] - a[0]) * ab[0] + (p[2] - a[2]) * ab[1]) / len2;
                let y = a[1] + (b[1] - a[1]) * t;
                let scale = 1.0 + a[1].abs().max(b[1].abs());
                if (0.0..=1.0).contains(&t) && (p[1] - y).abs() <= 1e-12 * scale {
                    continue;
                }
            }
        }
        out[kept] = out[j];
        corner_at[kept] = corner_at[j];
        kept += 1;
    }
    out.truncate(kept);
    corner_at.truncate(kept);
}

/// Appends a corner unless it repeats the last point.
fn push_corner(out: &mut Vec<[f64; 3]>, corner_at: &mut Vec<u32>, p: [f64; 3], portal: usize) {
    if out.last() != Some(&p) {
        out.push(p);
        corner_at.push(portal as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An L-shaped corridor of three unit cells turning left around the inner corner (1, 1):
    /// ```text
    ///  z
    ///  2        +----+
    ///           | C  |        portals: A|B at x = 1 (left end (1,1), right end (1,0)),
    ///  1  +----(*)---+                 B|C at z = 1 (left end (1,1), right end (2,1))
    ///     | A  | B   |
    ///  0  +----+-----+
    ///     0    1    2  x
    /// ```
    /// From (0.5, 0.5) to (1.5, 1.5) the string pulls tight around (1, 1), which is straight:
    /// the points are collinear, so no corner remains; to (1.2, 1.9) it must bend at (1, 1).
    #[test]
    fn pulls_the_string_around_the_inner_corner() {
        let p = |x: f64, z: f64| [x, 0.0, z];
        let portals = [(p(1.0, 1.0), p(1.0, 0.0)), (p(1.0, 1.0), p(2.0, 1.0))];
        let (mut out, mut at) = (Vec::new(), Vec::new());
        string_pull(p(0.5, 0.5), p(1.5, 1.5), &portals, &mut out, &mut at);
        assert_eq!(out, vec![p(0.5, 0.5), p(1.5, 1.5)]);
        string_pull(p(0.5, 0.5), p(1.2, 1.9), &portals, &mut out, &mut at);
        assert_eq!(out, vec![p(0.5, 0.5), p(1.0, 1.0), p(1.2, 1.9)]);
        // The corner was last tightened on the second portal (virtual index 2).
        assert_eq!(at, vec![0, 2, 3]);
        // With no portals the path is the segment.
        string_pull(p(0.0, 0.0), p(0.3, 0.2), &[], &mut out, &mut at);
        assert_eq!(out, vec![p(0.0, 0.0), p(0.3, 0.2)]);
    }
}
