//! Stage 3a (run by [`crate::region`]), layers of the walkable surface: groups of walkable
//! triangles that form one height field, so that floors above one another (bridges, balconies,
//! stories, spiral ramps) get their own free area instead of being flattened into one.
//!
//! Two walkable triangles *conflict* when their XZ footprints overlap and somewhere in the
//! overlap their surfaces are more than `max_climb` apart: they can never be the same floor.
//! They are *joined* when they do not conflict and either overlap (a duplicated or slightly
//! overlapping floor) or touch along an edge with the surfaces within `max_climb` there (an
//! agent steps across). Layers grow breadth-first over joined triangles from the lowest index
//! not yet placed, and a triangle joins a layer only when it conflicts with none of the
//! layer's triangles: every layer is then a height field, and where the surface climbs over
//! itself (a spiral ramp) the growth stops and a new layer starts, joined to the old one at a
//! seam. The result depends only on triangle order, so bakes stay deterministic.

use crate::classify::WalkableTriangle;
use crate::grid::{triangle_box, BoxGrid};
use crate::tolerance::{BOX_GRID_ITEMS_PER_CELL, GRID_STEP, HALF_GRID_STEP, LAYER_BOX_PAD, MIN_OVERLAP_AREA};
use crate::xz::{ccw_edges, ccw_xz, clip, segment_in_triangle, sub_interval, Plane};
use meadow::geom;

/// Stands in a restricted layering ([`Layering::restricted`]) for every conflicting layer
/// that is not present.
const ABSENT_LAYER: u32 = u32::MAX;

/// Marks a triangle not yet placed in a layer.
const UNPLACED: u32 = u32::MAX;

/// The layering of the walkable triangles.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layering {
    /// Per walkable triangle: its layer.
    pub layer_of: Vec<u32>,
    /// Number of layers.
    pub count: u32,
    /// Per walkable triangle: the layers (other than its own) it conflicts with, ascending.
    pub conflicts_with: Vec<Vec<u32>>,
    /// Pairs `(lower, higher)` of layers that meet at a seam (some of their triangles are
    /// joined), ascending.
    pub seams: Vec<(u32, u32)>,
    /// Pairs `(triangle, layer)`, ascending: the walkable triangle is a ceiling over a floor of
    /// that other layer somewhere in the level (`crate::region`'s scan finds these per floor;
    /// a tiled bake finds them over the whole level first, since a tile sees only its floors).
    /// Empty where each scan finds its own.
    pub ceilings: Vec<(u32, u32)>,
}

impl Layering {
    /// The layering of the walkable triangles `triangles` (indices into this layering's
    /// triangles, ascending), as the region stage of a tile sees it: the layers present renumbered
    /// densely in their order here (so ties between layers go the same way), conflicts with
    /// layers not present kept as one marker past every present layer (a triangle stays stacked
    /// where the floor over it lies outside the tile's input), and the seams between present
    /// layers.
    pub fn restricted(&self, triangles: &[u32]) -> Layering {
        let mut present: Vec<u32> = triangles.iter().map(|&t| self.layer_of[t as usize]).collect();
        present.sort_unstable();
        present.dedup();
        let local = |l: u32| present.binary_search(&l).map(|i| i as u32);
        let layer_of = triangles.iter().map(|&t| local(self.layer_of[t as usize]).unwrap_or(0)).collect();
        let conflicts_with = triangles
            .iter()
            .map(|&t| {
                let mut c: Vec<u32> =
                    self.conflicts_with[t as usize].iter().map(|&l| local(l).unwrap_or(ABSENT_LAYER)).collect();
                c.sort_unstable();
                c.dedup();
                c
            })
            .collect();
        let seams = self.seams.iter().filter_map(|&(a, b)| Some((local(a).ok()?, local(b).ok()?))).collect();
        // `triangles` is ascending, so the local indices keep the pairs' order.
        let ceilings = self
            .ceilings
            .iter()
            .filter_map(|&(t, l)| Some((triangles.binary_search(&t).ok()? as u32, local(l).ok()?)))
            .collect();
        Layering { layer_of, count: present.len() as u32, conflicts_with, seams, ceilings }
    }

    /// Whether what stands on walkable triangle `anchor` concerns layer `layer`: its own layer,
    /// or any layer it does not conflict with (a neighbour across a seam).
    pub fn concerns(&self, anchor: usize, layer: u32) -> bool {
        self.layer_of[anchor] == layer || self.conflicts_with[anchor].binary_search(&layer).is_err()
    }
}

/// How two walkable triangles relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Relation {
    /// Unrelated (apart, or touching only at points).
    Apart,
    /// Overlap with the surfaces more than `max_climb` apart somewhere.
    Conflict,
    /// Overlap everywhere within `max_climb`.
    Overlap,
    /// Share part of an edge with the surfaces within `max_climb` there.
    Touch,
}

/// Groups the walkable triangles into layers (see the module docs).
pub fn assign_layers(walkable: &[WalkableTriangle], max_climb: f64) -> Layering {
    let n = walkable.len();
    let pad = LAYER_BOX_PAD;
    let boxes: Vec<_> = walkable
        .iter()
        .map(|w| {
            let b = triangle_box(&w.vertices);
            [b[0] - pad, b[1] - pad, b[2] + pad, b[3] + pad]
        })
        .collect();
    let mut grid = BoxGrid::new(&boxes, BOX_GRID_ITEMS_PER_CELL);
    let mut near = Vec::new();
    let mut conflicts: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut joined: Vec<Vec<u32>> = vec![Vec::new(); n];
    for i in 0..n {
        grid.query(&boxes[i], &mut near);
        let bi = boxes[i];
        for &j in near.iter().filter(|&&j| j as usize > i) {
            let bj = boxes[j as usize];
            if bj[0] > bi[2] || bj[2] < bi[0] || bj[1] > bi[3] || bj[3] < bi[1] {
                continue;
            }
            match relation(&walkable[i].vertices, &walkable[j as usize].vertices, max_climb) {
                Relation::Apart => {}
                Relation::Conflict => {
                    conflicts[i].push(j);
                    conflicts[j as usize].push(i as u32);
                }
                Relation::Overlap | Relation::Touch => {
                    joined[i].push(j);
                    joined[j as usize].push(i as u32);
                }
            }
        }
    }

    let mut layer_of = vec![UNPLACED; n];
    let mut count = 0u32;
    let mut queue = std::collections::VecDeque::new();
    for seed in 0..n {
        if layer_of[seed] != UNPLACED {
            continue;
        }
        let layer = count;
        count += 1;
        layer_of[seed] = layer;
        queue.push_back(seed as u32);
        while let Some(t) = queue.pop_front() {
            for &u in &joined[t as usize] {
                let u = u as usize;
                if layer_of[u] == UNPLACED && !conflicts[u].iter().any(|&c| layer_of[c as usize] == layer) {
                    layer_of[u] = layer;
                    queue.push_back(u as u32);
                }
            }
        }
    }

    let conflicts_with = conflicts
        .iter()
        .enumerate()
        .map(|(t, list)| {
            let mut layers: Vec<u32> =
                list.iter().map(|&c| layer_of[c as usize]).filter(|&l| l != layer_of[t]).collect();
            layers.sort_unstable();
            layers.dedup();
            layers
        })
        .collect();
    let mut seams: Vec<(u32, u32)> = joined
        .iter()
        .enumerate()
        .flat_map(|(t, list)| list.iter().map(move |&u| (t, u as usize)))
        .map(|(t, u)| (layer_of[t].min(layer_of[u]), layer_of[t].max(layer_of[u])))
        .filter(|(a, b)| a != b)
        .collect();
    seams.sort_unstable();
    seams.dedup();
    Layering { layer_of, count, conflicts_with, seams, ceilings: Vec::new() }
}

/// The relation of two walkable triangles (see [`Relation`]).
fn relation(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3], climb: f64) -> Relation {
    let (pa, pb) = (Plane::through(a), Plane::through(b));
    let mut overlap = ccw_xz(b);
    for (p, q) in ccw_edges(a) {
        clip(&mut overlap, |x| geom::orient2d(p, q, x));
    }
    if overlap.len() >= 3 && geom::signed_area(&overlap) > MIN_OVERLAP_AREA {
        for sign in [1.0, -1.0] {
            let mut apart = overlap.clone();
            clip(&mut apart, |x| sign * (pb.y(x) - pa.y(x)) - climb);
            if apart.len() >= 3 && geom::signed_area(&apart) > MIN_OVERLAP_AREA {
                return Relation::Conflict;
            }
        }
        return Relation::Overlap;
    }
    if touches(a, b, &pb, climb) || touches(b, a, &pa, climb) {
        Relation::Touch
    } else {
        Relation::Apart
    }
}

/// Whether an edge of `a`, moved half a grid step outward, runs over `b` for more than a grid
/// step with the surfaces within `climb` of each other (`pb` is `b`'s plane).
fn touches(a: &[[f64; 3]; 3], b: &[[f64; 3]; 3], pb: &Plane, climb: f64) -> bool {
    let orientation = geom::orient2d([a[0][0], a[0][2]], [a[1][0], a[1][2]], [a[2][0], a[2][2]]).signum();
    for k in 0..3 {
        let (p, q) = (a[k], a[(k + 1) % 3]);
        let (p2, q2) = ([p[0], p[2]], [q[0], q[2]]);
        let len = ((q2[0] - p2[0]).powi(2) + (q2[1] - p2[1]).powi(2)).sqrt();
        if len <= GRID_STEP {
            continue;
        }
        let step = HALF_GRID_STEP / len;
        let out = [(q2[1] - p2[1]) * step * orientation, -(q2[0] - p2[0]) * step * orientation];
        let (s, e) = ([p2[0] + out[0], p2[1] + out[1]], [q2[0] + out[0], q2[1] + out[1]]);
        let Some((t0, t1)) = segment_in_triangle(s, e, b) else { continue };
        let at = |t: f64| [s[0] + (e[0] - s[0]) * t, s[1] + (e[1] - s[1]) * t];
        let diff = |t: f64| pb.y(at(t)) - (p[1] + (q[1] - p[1]) * t);
        if let Some([u0, u1]) = sub_interval(t0, t1, diff(t0), diff(t1), -climb, climb) {
            if (u1 - u0) * len > GRID_STEP {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn quad(x0: f64, z0: f64, x1: f64, z1: f64, y0: f64, y1: f64) -> Vec<WalkableTriangle> {
        // Height rises linearly from y0 at x0 to y1 at x1; counter-clockwise from above.
        let v = |x: f64, z: f64| [x, y0 + (y1 - y0) * (x - x0) / (x1 - x0), z];
        vec![
            WalkableTriangle { vertices: [v(x0, z0), v(x0, z1), v(x1, z1)], area: 0 },
            WalkableTriangle { vertices: [v(x0, z0), v(x1, z1), v(x1, z0)], area: 0 },
        ]
    }

    #[test]
    fn one_floor_is_one_layer() {
        let mut tris = quad(0.0, 0.0, 4.0, 4.0, 0.0, 0.0);
        tris.extend(quad(4.0, 0.0, 8.0, 4.0, 0.0, 0.0));
        let l = assign_layers(&tris, 0.5);
        assert_eq!(l.count, 1);
        assert!(l.conflicts_with.iter().all(Vec::is_empty));
    }

    #[test]
    fn bridge_over_a_floor_is_its_own_layer_joined_by_ramps() {
        // Floor y = 0 over x 0..10; bridge at y = 3 over x 4..6 reached by ramps from x 1..4
        // and 6..9 (which lie over the floor, so they conflict with it where high enough).
        let mut tris = quad(0.0, 0.0, 10.0, 2.0, 0.0, 0.0);
        let floor = tris.len();
        tris.extend(quad(1.0, 0.0, 4.0, 2.0, 0.0, 3.0));
        tris.extend(quad(4.0, 0.0, 6.0, 2.0, 3.0, 3.0));
        tris.extend(quad(6.0, 0.0, 9.0, 2.0, 3.0, 0.0));
        let l = assign_layers(&tris, 0.5);
        assert!(l.count >= 2);
        let bridge = l.layer_of[floor + 2];
        assert_ne!(bridge, l.layer_of[0], "the bridge is not the floor's layer");
        assert_eq!(l.layer_of[floor + 3], bridge);
        assert!(l.conflicts_with[0].contains(&bridge));
        assert!(!l.concerns(0, bridge));
        assert!(l.concerns(floor + 2, bridge));
    }

    #[test]
    fn a_step_within_climb_joins_and_a_higher_one_does_not() {
        let mut tris = quad(0.0, 0.0, 4.0, 4.0, 0.0, 0.0);
        tris.extend(quad(4.0, 0.0, 8.0, 4.0, 0.3, 0.3));
        // Triangle 1 has the edge x = 4, which triangle 2 of the step starts from.
        assert_eq!(relation(&tris[1].vertices, &tris[2].vertices, 0.5), Relation::Touch);
        assert_eq!(relation(&tris[1].vertices, &tris[2].vertices, 0.2), Relation::Apart);
        let mut stacked = quad(0.0, 0.0, 4.0, 4.0, 0.0, 0.0);
        stacked.extend(quad(0.0, 0.0, 4.0, 4.0, 3.0, 3.0));
        assert_eq!(relation(&stacked[0].vertices, &stacked[2].vertices, 0.5), Relation::Conflict);
        assert_eq!(assign_layers(&stacked, 0.5).count, 2);
    }
}
