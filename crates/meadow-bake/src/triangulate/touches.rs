//! Touches: a vertex lying inside another edge gets a visit on that edge (step 2), and where
//! the joined ring visits a point several times the visits are reconnected so that each bounds
//! one sector of the polygon there (step 4).
//!
//! Input: cleaned rings (step 2), the joined ring (step 4). Output: rings touching only at
//! shared coordinates; the uncrossed rings.

use super::grid::{bounds, Grid};
use super::predicates::*;
use super::ring::Clipper;
use meadow::geom::{orient2d, Point2};
use std::cmp::Ordering;

impl Clipper {
    /// Where a vertex lies inside another edge (a ring touching another, or itself, without a
    /// shared vertex there), adds a visit to that vertex to the edge, so that every touch is
    /// at shared coordinates. With `snap > 0`, vertices that close to an edge's inside count.
    pub(super) fn split_touched_edges(&mut self, rings: &[u32], snap: f64) {
        let nodes: Vec<u32> = rings.iter().flat_map(|&r| self.ring_nodes(r)).collect();
        let (lo, hi) = bounds(nodes.iter().map(|&v| self.p(v)));
        let mut grid = Grid::over(lo, hi, nodes.len());
        for &u in &nodes {
            grid.insert_segment(u, self.p(u), self.p(self.nx(u)));
        }
        // (edge start, touching node), found before any edge changes.
        let mut touches: Vec<(u32, u32)> = Vec::new();
        for &v in &nodes {
            let pv = self.p(v);
            for u in grid.query([pv[0] - snap, pv[1] - snap], [pv[0] + snap, pv[1] + snap]) {
                let w = self.nx(u);
                let (pu, pw) = (self.p(u), self.p(w));
                if self.same_point(u, v) || self.same_point(w, v) {
                    continue;
                }
                let on = orient2d(pu, pw, pv) == 0.0 && within_box(pu, pw, pv);
                if on || (snap > 0.0 && near_inside(pu, pw, pv, snap)) {
                    touches.push((u, v));
                }
            }
        }
        touches.sort_unstable();
        touches.dedup();
        // Several vertices may touch one edge: insert them in order along it.
        for group in touches.chunk_by(|x, y| x.0 == y.0) {
            let u = group[0].0;
            let (pu, w) = (self.p(u), self.nx(u));
            let along = |p: Point2| (p[0] - pu[0]).abs() + (p[1] - pu[1]).abs();
            let mut on_edge: Vec<u32> = group.iter().map(|t| t.1).collect();
            on_edge.sort_by(|&x, &y| along(self.p(x)).total_cmp(&along(self.p(y))).then(x.cmp(&y)));
            on_edge.dedup_by(|x, y| self.same_point(*x, *y));
            let mut last = u;
            for v in on_edge {
                let copy = self.copy_node(v);
                self.shared[self.vert[v as usize] as usize] = true;
                self.link(last, copy);
                last = copy;
            }
            self.link(last, w);
        }
    }

    /// Where the ring through `start` visits a point several times, reconnects the visits so
    /// that each one bounds one of the polygon's sectors there (they may cross as joined:
    /// several touches of one hole, a hole inside a hole's pocket), keeping a point's new
    /// connection only if every ring it leaves is counter-clockwise. The same edges stay, so
    /// the covered area does not change; the ring may fall apart into several. Returns a node
    /// of each ring.
    pub(super) fn uncross_touches(&mut self, start: u32) -> Vec<u32> {
        let nodes = self.ring_nodes(start);
        let mut at: std::collections::BTreeMap<u32, Vec<u32>> = std::collections::BTreeMap::new();
        for &v in &nodes {
            at.entry(self.vert[v as usize]).or_default().push(v);
        }
        for group in at.values().filter(|g| g.len() > 1) {
            let x = self.p(group[0]);
            // Rays to the neighbours: (neighbour, node, incoming).
            let mut rays: Vec<(u32, u32, bool)> = Vec::with_capacity(2 * group.len());
            for &n in group {
                rays.push((self.pv(n), n, true));
                rays.push((self.nx(n), n, false));
            }
            let half = |d: Point2| if d[1] > x[1] || (d[1] == x[1] && d[0] > x[0]) { 0 } else { 1 };
            rays.sort_by(|r, s| {
                let (dr, ds) = (self.p(r.0), self.p(s.0));
                half(dr).cmp(&half(ds)).then_with(|| {
                    let o = orient2d(x, dr, ds);
                    // Counter-clockwise order; along one direction the incoming ray first.
                    if o > 0.0 {
                        Ordering::Less
                    } else if o < 0.0 {
                        Ordering::Greater
                    } else {
                        s.2.cmp(&r.2)
                    }
                })
            });
            // Each outgoing ray starts a sector of the polygon, which the next ray, incoming,
            // closes: pair them.
            let k = rays.len();
            let mut pairs = Vec::with_capacity(group.len());
            for i in 0..k {
                if !rays[i].2 {
                    let close = rays[(i + 1) % k];
                    if !close.2 {
                        pairs.clear();
                        break;
                    }
                    pairs.push((close.0, rays[i].0));
                }
            }
            if pairs.len() != group.len() {
                continue;
            }
            let old: Vec<(u32, u32, u32)> = group.iter().map(|&n| (self.pv(n), n, self.nx(n))).collect();
            if old.iter().all(|&(p, _, q)| pairs.contains(&(p, q))) {
                continue;
            }
            for (&n, &(p, q)) in group.iter().zip(&pairs) {
                self.link(p, n);
                self.link(n, q);
            }
            if group.iter().any(|&n| self.ring_area2(n).partial_cmp(&0.0) != Some(Ordering::Greater)) {
                for &(p, n, q) in &old {
                    self.link(p, n);
                    self.link(n, q);
                }
            }
        }
        let mut seen = vec![false; self.pos.len()];
        let mut rings = Vec::new();
        for &v in &nodes {
            if !seen[v as usize] {
                rings.push(v);
                for w in self.ring_nodes(v) {
                    seen[w as usize] = true;
                }
            }
        }
        rings
    }
}
