//! Hole joining (step 3): each hole, right to left, is spliced into the outer ring where it
//! touches it, or bridged to a mutually visible node found Eberly's way (ray to +x, nearest
//! edge hit, node of least angle in the triangle it spans), through the edge grid.
//!
//! Input: the outer ring and a hole's rightmost node. Output: one joined ring.

use super::grid::bounds;
use super::predicates::*;
use super::ring::Clipper;
use meadow::geom::{orient2d, Point2};

impl Clipper {
    /// Joins the hole ring through `hole` (its rightmost node) into the ring through `outer`:
    /// at a point where they touch, else by a bridge. Holes to the right of it are joined.
    pub(super) fn join_hole(&mut self, outer: u32, hole: u32) -> bool {
        let hole_nodes = self.ring_nodes(hole);
        if let Some((o, h)) = self.touch_point(&hole_nodes) {
            // Splice: o → (hole from h's successor round to h) → o's old successor.
            let (on, hn) = (self.nx(o), self.nx(h));
            self.link(o, hn);
            self.link(h, on);
            for v in hole_nodes {
                self.register_node(v);
            }
            return true;
        }
        let target = self.bridge_target(hole).or_else(|| self.bridge_target_exhaustive(outer, hole));
        let Some(target) = target else {
            return false;
        };
        // target → hole … hole' → target' → target's old successor.
        let hole_copy = self.copy_node(hole);
        let target_copy = self.copy_node(target);
        let (tn, hp) = (self.nx(target), self.pv(hole));
        self.link(target, hole);
        self.link(hp, hole_copy);
        self.link(hole_copy, target_copy);
        self.link(target_copy, tn);
        for v in hole_nodes {
            self.register_node(v);
        }
        self.register_node(hole_copy);
        self.register_node(target_copy);
        let (tv, hv) = (self.vert[target as usize], self.vert[hole as usize]);
        self.add_edge([tv, hv]);
        self.add_edge([hv, tv]);
        true
    }

    /// A hole node and a joined node at the same coordinates whose wedge holds the hole there.
    pub(super) fn touch_point(&self, hole_nodes: &[u32]) -> Option<(u32, u32)> {
        for &h in hole_nodes {
            let w = self.vert[h as usize] as usize;
            if !self.shared[w] {
                continue;
            }
            for &o in &self.joined_at[w] {
                if !self.alive[o as usize] {
                    continue;
                }
                let x = self.p(o);
                let (q, p) = (self.p(self.nx(o)), self.p(self.pv(o)));
                let (hk, h1) = (self.p(self.pv(h)), self.p(self.nx(h)));
                // The hole's body at x (from hk counter-clockwise to h1) must lie in o's wedge
                // (from q counter-clockwise to p).
                if closed_in_wedge(x, q, p, hk) && closed_in_wedge(x, q, p, h1) && !strictly_in_wedge(x, hk, h1, q) {
                    return Some((o, h));
                }
            }
        }
        None
    }

    /// Eberly's bridge target for the hole node `m`: the nearest edge hit by the ray from `m`
    /// towards +x, then the joined node in the triangle (m, hit, edge end) closest in angle to
    /// the ray. Checked exactly before use; `None` if the check fails.
    ///
    /// Holes still unjoined lie left of `m` (holes go right to left), so neither their edges
    /// nor their nodes can be hit or picked.
    pub(super) fn bridge_target(&self, m: u32) -> Option<u32> {
        let (edge_grid, grid) = (self.edge_grid.as_ref()?, self.grid.as_ref()?);
        let mp = self.p(m);
        let [first, row] = edge_grid.cell(mp);
        let mut hit: Option<(f64, Point2, Point2)> = None;
        for col in first..edge_grid.dims[0] {
            for &e in &edge_grid.cells[row * edge_grid.dims[0] + col] {
                let [u, v] = self.edges[e as usize];
                let (pa, pb) = (self.pos[u as usize], self.pos[v as usize]);
                // Edges crossing the ray's line upwards with m on their inner (left) side.
                if !(pa[1] <= mp[1] && mp[1] <= pb[1] && pa[1] < pb[1] && orient2d(pa, pb, mp) > 0.0) {
                    continue;
                }
                let x = if pa[1] == mp[1] {
                    pa[0]
                } else if pb[1] == mp[1] {
                    pb[0]
                } else {
                    let x = pa[0] + (mp[1] - pa[1]) * (pb[0] - pa[0]) / (pb[1] - pa[1]);
                    x.clamp(pa[0].min(pb[0]), pa[0].max(pb[0]))
                };
                let x = x.max(mp[0]);
                if hit.is_none_or(|(best, _, _)| x < best) {
                    hit = Some((x, pa, pb));
                }
            }
            // Every edge is filed in all cells it passes through: a hit in this column or
            // left of it cannot be beaten by later columns.
            if hit.is_some_and(|(x, _, _)| edge_grid.cell([x, mp[1]])[0] <= col) {
                break;
            }
        }
        let (x, pa, pb) = hit?;
        let hitp = [x, mp[1]];
        let pe = if pa == hitp {
            pa
        } else if pb == hitp || pb[0] > pa[0] {
            pb
        } else {
            pa
        };
        let above = pe[1] > mp[1];
        // The triangle m, hit, end, counter-clockwise.
        let tri = if above { [mp, hitp, pe] } else { [mp, pe, hitp] };
        let degenerate = orient2d(tri[0], tri[1], tri[2]) == 0.0;
        let (lo, hi) = bounds(tri.into_iter());
        let mut best: Option<u32> = None;
        for r in grid.query(lo, hi) {
            let pr = self.p(r);
            if !self.alive[r as usize] || pr[0] <= mp[0] || Some(r) == best {
                continue;
            }
            let inside = if degenerate {
                orient2d(mp, pe, pr) == 0.0 && within_box(mp, pe, pr)
            } else {
                orient2d(tri[0], tri[1], pr) >= 0.0
                    && orient2d(tri[1], tri[2], pr) >= 0.0
                    && orient2d(tri[2], tri[0], pr) >= 0.0
            };
            if !inside || !strictly_in_wedge(pr, self.p(self.nx(r)), self.p(self.pv(r)), mp) {
                continue;
            }
            best = match best {
                None => Some(r),
                Some(cur) => {
                    let pc = self.p(cur);
                    let turn = orient2d(mp, pc, pr);
                    // Smaller angle to the ray wins: clockwise of the current when above it;
                    // on one line, the nearer; at one point, the lower node id.
                    let better = if turn != 0.0 {
                        (turn < 0.0) == above
                    } else if pr[0] != pc[0] {
                        pr[0] < pc[0]
                    } else {
                        r < cur
                    };
                    Some(if better { r } else { cur })
                }
            };
        }
        let best = best?;
        self.segment_clear(mp, self.vert[m as usize], best).then_some(best)
    }

    /// Fallback bridge search: the nearest node (by distance) of the joined ring that sees `m`.
    pub(super) fn bridge_target_exhaustive(&self, outer: u32, m: u32) -> Option<u32> {
        let mp = self.p(m);
        let mut candidates: Vec<(f64, u32)> = self
            .ring_nodes(outer)
            .into_iter()
            .map(|r| {
                let p = self.p(r);
                ((p[0] - mp[0]).powi(2) + (p[1] - mp[1]).powi(2), r)
            })
            .collect();
        candidates.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        candidates.into_iter().map(|(_, r)| r).find(|&r| {
            !self.same_point(r, m)
                && strictly_in_wedge(self.p(r), self.p(self.nx(r)), self.p(self.pv(r)), mp)
                && strictly_in_wedge(mp, self.p(self.nx(m)), self.p(self.pv(m)), self.p(r))
                && self.segment_clear(mp, self.vert[m as usize], r)
        })
    }

    /// Whether the segment from `a` (welded vertex `a_vert`) to node `b` meets no indexed edge
    /// (ring edges of every ring, joined or not, and bridges) except at its own end points.
    pub(super) fn segment_clear(&self, a: Point2, a_vert: u32, b: u32) -> bool {
        let Some(edge_grid) = &self.edge_grid else {
            return false;
        };
        let bp = self.p(b);
        edge_grid.query_segment(a, bp).all(|e| {
            let [u, v] = self.edges[e as usize];
            self.edge_clear(a, a_vert, bp, self.vert[b as usize], u, v)
        })
    }

    /// Whether segment `a b` (welded vertices `a_vert`, `b_vert`) and the edge between welded
    /// vertices `u`, `v` meet only at the segment's end points.
    pub(super) fn edge_clear(&self, a: Point2, a_vert: u32, bp: Point2, b_vert: u32, u: u32, v: u32) -> bool {
        let at_end = |w: u32| w == a_vert || w == b_vert;
        let (pu, pv) = (self.pos[u as usize], self.pos[v as usize]);
        match (at_end(u), at_end(v)) {
            // An edge from one end to the other runs along the segment; a zero-length one at
            // an end is harmless.
            (true, true) => u == v,
            (true, false) => !(orient2d(a, bp, pv) == 0.0 && within_box(a, bp, pv)),
            (false, true) => !(orient2d(a, bp, pu) == 0.0 && within_box(a, bp, pu)),
            (false, false) => !segments_touch(a, bp, pu, pv),
        }
    }

    /// Whether the segment from `a` (welded vertex `a_vert`) to node `b` meets no edge of the
    /// ring through `start` except at its own end points.
    pub(super) fn segment_clear_ring(&self, a: Point2, a_vert: u32, b: u32, start: u32) -> bool {
        let (bp, b_vert) = (self.p(b), self.vert[b as usize]);
        self.ring_nodes(start)
            .into_iter()
            .all(|p| self.edge_clear(a, a_vert, bp, b_vert, self.vert[p as usize], self.vert[self.nx(p) as usize]))
    }
}
