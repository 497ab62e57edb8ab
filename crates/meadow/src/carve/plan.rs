//! The cut plan of a dilated obstacle: which of its lines cut a polygon, in what order (a
//! few edge lines bounding it, then a fan per pocket between that bound and its arc).

use crate::geom::{orient2d, Point2};
use std::collections::BTreeMap;

/// The lines a carving cuts along, by `(obstacle, index)`: each dilated outline's edges
/// (indices `0..n`), then the chords and fan rays of its pockets (see [`CutPlan`]).
pub(crate) type CutLines = BTreeMap<(u64, u32), (Point2, Point2)>;

/// Largest turn (radians) between the edge normals of two consecutive edges of the bounding
/// polygon [`CutPlan`] chooses from an outline: a quarter turn takes a dilated box's four
/// sides; the margin keeps a rounded right angle (atan2 of computed corners) from pulling in an
/// arc edge as well.
const MAX_HULL_TURN: f64 = std::f64::consts::FRAC_PI_2 * 1.1;

/// One pocket of a [`CutPlan`]: the region between the bounding polygon's corner `C` (where
/// two consecutive chosen edge lines meet) and the outline's chain of edges between them.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Pocket {
    /// The line cutting the pocket off the rest of the bounding polygon: the chord from the
    /// chain's first vertex to its last (the chain's edge itself when it has one).
    pub(super) chord: u32,
    /// The fan rays from `C` through the chain's inner vertices, in chain order.
    pub(super) rays: Vec<u32>,
    /// The chain's outline edges, in order (one more than the rays).
    pub(super) edges: Vec<u32>,
}

/// How one dilated outline is subtracted from a convex piece. Cutting along every outline edge
/// in turn leaves a fan of long thin wedges reaching from each arc edge to the polygon's
/// boundary, each a junction of the portal graph. Instead the piece is cut first by a few edge
/// lines bounding the outline (a box's four sides: [`MAX_HULL_TURN`]), then each pocket
/// between a corner of that bounding polygon and the outline's arc is cut off by its chord and
/// split into sectors by rays from the corner through the arc's vertices, each sector less
/// the outline being the part beyond its arc edge. The sectors are small triangles along the
/// arc, each with two portals: a chain the path search crosses in one step, as the bake's
/// fans along a pillar's arc.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct CutPlan {
    /// The outline edges bounding it, ascending.
    pub(super) hull: Vec<u32>,
    pub(super) pockets: Vec<Pocket>,
}

/// The outward normal angle of edge `a → b` of a counter-clockwise outline, in `[0, 2π)`.
fn normal_angle(a: Point2, b: Point2) -> f64 {
    (-(b[0] - a[0])).atan2(b[1] - a[1]).rem_euclid(std::f64::consts::TAU)
}

/// The crossing of two lines, from the first one (callers pass them in key order, so both sides
/// of a shared point compute the same bits); `None` when parallel.
pub(super) fn line_crossing(first: (Point2, Point2), second: (Point2, Point2)) -> Option<Point2> {
    let sa = orient2d(second.0, second.1, first.0);
    let sb = orient2d(second.0, second.1, first.1);
    (sa != sb).then(|| {
        let t = sa / (sa - sb);
        let d = [first.1[0] - first.0[0], first.1[1] - first.0[1]];
        [first.0[0] + d[0] * t, first.0[1] + d[1] * t]
    })
}

/// The cut plan of obstacle `id`'s dilated `outline`, adding its lines to `lines`.
pub(super) fn plan_cuts(id: u64, outline: &[Point2], lines: &mut CutLines) -> CutPlan {
    let n = outline.len();
    let edge = |k: usize| (outline[k], outline[(k + 1) % n]);
    for k in 0..n {
        lines.insert((id, k as u32), edge(k));
    }
    let angle: Vec<f64> = (0..n).map(|k| normal_angle(edge(k).0, edge(k).1)).collect();
    let length = |k: usize| {
        let (a, b) = edge(k);
        (b[0] - a[0]).hypot(b[1] - a[1])
    };
    // The bounding edges: the longest, then, while two consecutive chosen normals turn by more
    // than MAX_HULL_TURN with edges between them, the edge of the widest such gap whose normal
    // is nearest the gap's middle (lowest index on ties).
    let longest = (0..n).fold(0, |best, k| if length(k) > length(best) { k } else { best });
    let mut hull = vec![longest];
    loop {
        let mut widest: Option<(f64, usize, usize)> = None;
        for (i, &a) in hull.iter().enumerate() {
            let b = hull[(i + 1) % hull.len()];
            let gap = if hull.len() == 1 {
                std::f64::consts::TAU
            } else {
                (angle[b] - angle[a]).rem_euclid(std::f64::consts::TAU)
            };
            let inner = (b + n - a) % n;
            let inner = if hull.len() == 1 { n - 1 } else { inner.saturating_sub(1) };
            if gap > MAX_HULL_TURN && inner > 0 && widest.is_none_or(|w| gap > w.0) {
                widest = Some((gap, a, b));
            }
        }
        let Some((gap, a, _)) = widest else { break };
        let middle = angle[a] + gap * 0.5;
        let mut best = None;
        let mut k = (a + 1) % n;
        while !hull.contains(&k) {
            let off =
                (angle[k] - middle + std::f64::consts::PI).rem_euclid(std::f64::consts::TAU) - std::f64::consts::PI;
            if best.is_none_or(|(d, _)| off.abs() < d) {
                best = Some((off.abs(), k));
            }
            k = (k + 1) % n;
        }
        let Some((_, k)) = best else { break };
        hull.push(k);
        hull.sort_unstable();
    }
    let mut next_line = n as u32;
    let mut pockets = Vec::new();
    for (i, &a) in hull.iter().enumerate() {
        let b = hull[(i + 1) % hull.len()];
        // The chain runs from the end of edge `a` to the start of edge `b`.
        let edges: Vec<u32> = (1..(b + n - a) % n).map(|d| ((a + d) % n) as u32).collect();
        if hull.len() == 1 || edges.is_empty() {
            continue;
        }
        // In key order, as `cut_point` computes the same crossing.
        let (first, second) = if a < b { (edge(a), edge(b)) } else { (edge(b), edge(a)) };
        let corner = line_crossing(first, second).unwrap_or(edge(a).1);
        let chord = if edges.len() == 1 {
            edges[0]
        } else {
            lines.insert((id, next_line), (outline[(a + 1) % n], outline[b]));
            next_line += 1;
            next_line - 1
        };
        let mut rays = Vec::with_capacity(edges.len() - 1);
        for &e in &edges[1..] {
            lines.insert((id, next_line), (corner, outline[e as usize]));
            rays.push(next_line);
            next_line += 1;
        }
        pockets.push(Pocket { chord, rays, edges });
    }
    CutPlan { hull: hull.into_iter().map(|k| k as u32).collect(), pockets }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 1 m box at `(x, z)` grown by 0.6 m within 1 cm (the default bake's radius and arc
    /// tolerance): four sides (a little over 1 m) and five corners on each quarter arc.
    fn dilated_box(x: f64, z: f64) -> Vec<Point2> {
        let square = [[x - 0.5, z - 0.5], [x + 0.5, z - 0.5], [x + 0.5, z + 0.5], [x - 0.5, z + 0.5]];
        super::super::geometry::dilate(&square, 0.6, 0.01)
    }

    #[test]
    fn a_dilated_box_is_bounded_by_its_four_sides_and_fanned_in_four_pockets() {
        let outline = dilated_box(3.0, -2.0);
        let n = outline.len();
        assert_eq!(n, 20, "four corners of five arc points");
        let mut lines = CutLines::new();
        let plan = plan_cuts(7, &outline, &mut lines);
        // The bound: the four longest edges (the sides, 1 m against about 0.2 m for arc edges).
        let length = |k: u32| {
            let (a, b) = lines[&(7, k)];
            (b[0] - a[0]).hypot(b[1] - a[1])
        };
        assert_eq!(plan.hull.len(), 4);
        let shortest_side = plan.hull.iter().map(|&k| length(k)).fold(f64::INFINITY, f64::min);
        let longest_arc = (0..n as u32).filter(|k| !plan.hull.contains(k)).map(length).fold(0.0, f64::max);
        assert!(shortest_side > 1.0 && longest_arc < 0.2, "{plan:?}");
        assert_eq!(plan.pockets.len(), 4);
        let mut arc_edges: Vec<u32> = Vec::new();
        for pocket in &plan.pockets {
            // Each pocket holds one corner's arc: four edges, a chord, three rays from one
            // corner, each through an arc vertex strictly outside the bound's other lines.
            assert_eq!(pocket.edges.len(), 4);
            assert_eq!(pocket.rays.len(), 3);
            let corner = lines[&(7, pocket.rays[0])].0;
            for (t, &ray) in pocket.rays.iter().enumerate() {
                let (from, through) = lines[&(7, ray)];
                assert_eq!(from, corner);
                assert_eq!(through, lines[&(7, pocket.edges[t + 1])].0, "ray {t} ends where edge {} starts", t + 1);
            }
            let (a, b) = lines[&(7, pocket.chord)];
            assert_eq!(a, lines[&(7, pocket.edges[0])].0);
            assert_eq!(b, lines[&(7, *pocket.edges.last().unwrap())].1);
            arc_edges.extend(&pocket.edges);
        }
        // Every edge is in the bound or in exactly one pocket.
        arc_edges.extend(&plan.hull);
        arc_edges.sort_unstable();
        assert_eq!(arc_edges, (0..n as u32).collect::<Vec<_>>());
    }
}
