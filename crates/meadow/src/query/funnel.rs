//! String pulling: the funnel algorithm over a corridor's portals (the shortest path in XZ
//! inside the corridor). Side tests go through the exact `orient2d`.

use super::xz;
use crate::geom::orient2d;
use crate::tolerance::FUNNEL_HEIGHT_REL;

/// A funnel vertex: a point and the virtual portal it was last taken from.
#[derive(Clone, Copy, Debug)]
struct Vertex {
    p: [f64; 3],
    at: u32,
}

/// Scratch memory of [`string_pull`]: the funnel's two chains.
#[derive(Clone, Debug, Default)]
pub(crate) struct Funnel {
    /// The left and right chains from the apex outwards (entries before a head are spent).
    left: Vec<Vertex>,
    right: Vec<Vertex>,
}

impl Funnel {
    /// Room for corridors of `portals` portals.
    pub(crate) fn reserve(&mut self, portals: usize) {
        for chain in [&mut self.left, &mut self.right] {
            chain.reserve((portals + 2).saturating_sub(chain.len()));
        }
    }
}

/// Writes the shortest path from `start` to `goal` through `portals` (each `(left, right)` as
/// seen walking towards the goal) into `out`: the start, the portal endpoints where the path
/// turns, and the goal. `corner_at[j]` receives where point `j` came from: 0 for the start,
/// `i + 1` for an endpoint of `portals[i]`, `portals.len() + 1` for the goal.
///
/// The funnel keeps both its chains (the shortest paths from the apex to the latest left and
/// right ends), so each end is pushed and popped at most once and a corner moves the apex
/// along a chain instead of rescanning the portals after it (linear time; the restarting
/// funnel rescanned each portal about three times on the real levels).
pub(crate) fn string_pull(
    start: [f64; 3],
    goal: [f64; 3],
    portals: &[([f64; 3], [f64; 3])],
    out: &mut Vec<[f64; 3]>,
    corner_at: &mut Vec<u32>,
    funnel: &mut Funnel,
) {
    out.clear();
    corner_at.clear();
    out.push(start);
    corner_at.push(0);
    let count = portals.len() + 2;
    let Funnel { left, right } = funnel;
    left.clear();
    right.clear();
    let (mut left_head, mut right_head) = (0, 0);
    let mut apex = Vertex { p: start, at: 0 };
    // Portals the start or the goal lies on are passed already: an apex on a portal's line
    // would make that portal's far end look like a corner.
    let lead = portals.iter().take_while(|&&(l, r)| holds(l, r, start)).count();
    let trail = portals[lead..].iter().rev().take_while(|&&(l, r)| holds(l, r, goal)).count();
    let kept = (lead + 1..count - 1 - trail).chain(std::iter::once(count - 1));
    for i in kept {
        let (pl, pr) = if i == count - 1 { (goal, goal) } else { portals[i - 1] };
        let at = i as u32;
        let v = Vertex { p: pr, at };
        add_end::<true>(&mut apex, (right, &mut right_head), (left, &mut left_head), v, out, corner_at);
        let v = Vertex { p: pl, at };
        add_end::<false>(&mut apex, (left, &mut left_head), (right, &mut right_head), v, out, corner_at);
    }
    push_corner(out, corner_at, goal, count - 1);
    drop_straight_corners(out, corner_at);
}

/// Adds the next portal end `v` to the funnel's right chain (`RIGHT`) or left chain (`own`),
/// moving the apex along the other chain when `v` crosses it.
#[inline(always)]
fn add_end<const RIGHT: bool>(
    apex: &mut Vertex,
    (own, own_head): (&mut Vec<Vertex>, &mut usize),
    (other, other_head): (&mut Vec<Vertex>, &mut usize),
    v: Vertex,
    out: &mut Vec<[f64; 3]>,
    corner_at: &mut Vec<u32>,
) {
    let vx = xz(v.p);
    if vx == xz(apex.p) {
        return; // a portal through the apex leaves the funnel as it is
    }
    // Consecutive portals share an end (one per triangle step): the same vertex again only
    // moves its portal index.
    if own.len() > *own_head {
        if let Some(last) = own.last_mut() {
            if xz(last.p) == vx {
                *last = v;
                return;
            }
        }
    }
    // Orientation `o` of a point seen along a chain edge: inside the funnel (or on the edge's
    // line) is `o >= 0` on the right side, `o <= 0` on the left.
    let inward = |o: f64| if RIGHT { o >= 0.0 } else { o <= 0.0 };
    // Drop own-side vertices `v` makes redundant: it lies on or inside the line through the
    // chain's last edge (for the first edge, the funnel's boundary from the apex: it narrows).
    while own.len() > *own_head {
        let n = own.len();
        let prev = if n - 1 > *own_head { own[n - 2].p } else { apex.p };
        if inward(side(prev, own[n - 1].p, v.p)) {
            own.pop();
        } else {
            break;
        }
    }
    if own.len() == *own_head {
        // `v` bounds its side from the apex; while it lies across the other side's boundary
        // (or on it, beyond its vertex), the path to it turns at that vertex: a corner.
        while *other_head < other.len() {
            let first = other[*other_head];
            let o = side(apex.p, first.p, v.p);
            let across = if RIGHT { o > 0.0 } else { o < 0.0 };
            if across || (o == 0.0 && ahead(apex.p, v.p, first.p) && !short_of(apex.p, v.p, first.p)) {
                push_corner(out, corner_at, first.p, first.at as usize);
                *apex = first;
                *other_head += 1;
            } else {
                break;
            }
        }
    }
    own.push(v);
}

/// Whether the segment from `l` to `r` holds the point `p` (XZ, exactly).
fn holds(l: [f64; 3], r: [f64; 3], p: [f64; 3]) -> bool {
    orient2d(xz(l), xz(r), xz(p)) == 0.0 && (xz(p) == xz(l) || xz(p) == xz(r) || short_of(l, p, r))
}

/// For `v` on the line through `apex` and `first` (XZ): whether it lies on the ray from `apex`
/// through `first` rather than behind the apex.
fn ahead(apex: [f64; 3], v: [f64; 3], first: [f64; 3]) -> bool {
    let (d, w) = ([first[0] - apex[0], first[2] - apex[2]], [v[0] - apex[0], v[2] - apex[2]]);
    d[0] * w[0] + d[1] * w[1] > 0.0
}

/// For `v` on the line from `apex` through `first` (XZ, exactly): whether it lies strictly
/// between them, compared coordinate by coordinate along the line's longer axis (exact).
fn short_of(apex: [f64; 3], v: [f64; 3], first: [f64; 3]) -> bool {
    let k = if (first[0] - apex[0]).abs() >= (first[2] - apex[2]).abs() { 0 } else { 2 };
    (apex[k] < v[k] && v[k] < first[k]) || (first[k] < v[k] && v[k] < apex[k])
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
                if (0.0..=1.0).contains(&t) && (p[1] - y).abs() <= FUNNEL_HEIGHT_REL * scale {
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
/// The restarting ("simple stupid") funnel that [`string_pull`] replaced, kept as its test
/// reference. Writes the shortest path from `start` to `goal` through `portals` (each `(left, right)` as
/// seen walking towards the goal) into `out`: the start, the portal endpoints where the path
/// turns, and the goal. `corner_at[j]` receives where point `j` came from: 0 for the start,
/// `i + 1` for an endpoint of `portals[i]`, `portals.len() + 1` for the goal.
pub(crate) fn string_pull_restarting(
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
        let (mut out, mut at, mut funnel) = (Vec::new(), Vec::new(), Funnel::default());
        string_pull(p(0.5, 0.5), p(1.5, 1.5), &portals, &mut out, &mut at, &mut funnel);
        assert_eq!(out, vec![p(0.5, 0.5), p(1.5, 1.5)]);
        string_pull(p(0.5, 0.5), p(1.2, 1.9), &portals, &mut out, &mut at, &mut funnel);
        assert_eq!(out, vec![p(0.5, 0.5), p(1.0, 1.0), p(1.2, 1.9)]);
        // The corner was last tightened on the second portal (virtual index 2).
        assert_eq!(at, vec![0, 2, 3]);
        // With no portals the path is the segment.
        string_pull(p(0.0, 0.0), p(0.3, 0.2), &[], &mut out, &mut at, &mut funnel);
        assert_eq!(out, vec![p(0.0, 0.0), p(0.3, 0.2)]);
    }
}
