//! Ear clipping (step 5): ears are cut off going round each ring, the neighbours of recent
//! cuts tried first after a few misses; a ring without an ear is split where it touches itself
//! or along a diagonal (last resorts).
//!
//! Input: the uncrossed rings. Output: counter-clockwise triangles over welded vertices.

use super::predicates::*;
use super::ring::Clipper;
use super::TriangulateError;
use meadow::geom::orient2d;
use std::cmp::Ordering;

impl Clipper {
    /// Whether node `b` is an ear tip: its corner is strictly convex and no other node of the
    /// ring reaches into the triangle (prev, b, next).
    pub(super) fn is_ear(&self, b: u32) -> bool {
        let (a, c) = (self.pv(b), self.nx(b));
        let (pa, pb, pc) = (self.p(a), self.p(b), self.p(c));
        if orient2d(pa, pb, pc).partial_cmp(&0.0) != Some(Ordering::Greater) {
            return false;
        }
        let Some(grid) = &self.grid else {
            return false;
        };
        let lo = [pa[0].min(pb[0]).min(pc[0]), pa[1].min(pb[1]).min(pc[1])];
        let hi = [pa[0].max(pb[0]).max(pc[0]), pa[1].max(pb[1]).max(pc[1])];
        let (c0, c1) = (grid.cell(lo), grid.cell(hi));
        let corners = [(a, pa, pb, pc), (b, pb, pc, pa), (c, pc, pa, pb)];
        for gz in c0[1]..=c1[1] {
            for gx in c0[0]..=c1[0] {
                for &p in &grid.cells[gz * grid.dims[0] + gx] {
                    if p == a || p == b || p == c || !self.alive[p as usize] {
                        continue;
                    }
                    let pp = self.p(p);
                    if pp[0] < lo[0] || pp[0] > hi[0] || pp[1] < lo[1] || pp[1] > hi[1] {
                        continue;
                    }
                    if let Some(&(_, x, r1, r2)) = corners.iter().find(|k| self.same_point(k.0, p)) {
                        // Another visit to a corner: its edges must not enter the triangle.
                        for q in [self.p(self.pv(p)), self.p(self.nx(p))] {
                            if orient2d(x, r1, q) > 0.0 && orient2d(x, r2, q) < 0.0 {
                                return false;
                            }
                        }
                    } else if orient2d(pa, pb, pp) >= 0.0 && orient2d(pb, pc, pp) >= 0.0 && orient2d(pc, pa, pp) >= 0.0
                    {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// A node at `c`'s coordinates whose edge runs back to `a`'s coordinates.
    pub(super) fn reverse_twin(&self, a: u32, c: u32) -> Option<u32> {
        let grid = self.grid.as_ref()?;
        let cell = grid.cell(self.p(c));
        grid.cells[cell[1] * grid.dims[0] + cell[0]].iter().copied().find(|&n| {
            // n == prev(a) would make `a` a spike tip, which `settle` removes.
            n != c
                && self.alive[n as usize]
                && self.same_point(n, c)
                && self.same_point(self.nx(n), a)
                && self.nx(n) != a
        })
    }

    /// Clips every ear of the joined ring through `start`, splitting it where it stalls.
    pub(super) fn clip_all(&mut self, rings: Vec<u32>, triangles: &mut Vec<[u32; 3]>) -> Result<(), TriangulateError> {
        if self.grid.is_none() {
            self.build_grid();
        }
        let mut stack = rings;
        // Every split or cancellation leaves smaller rings; the cap only guards the bound.
        let mut splits_left = self.pos.len() + 16;
        while let Some(start) = stack.pop() {
            if !self.alive[start as usize] {
                continue;
            }
            let nodes = self.ring_nodes(start);
            let mut count = nodes.len();
            let Some(mut ear) = self.settle(nodes, &mut count) else {
                continue;
            };
            let mut idle = 0;
            // Nodes next to recent clips: where new ears appear. Tried after a few misses, so a
            // spiral does not cost a lap of the ring per ear.
            let mut recent: Vec<u32> = Vec::new();
            loop {
                if count < 3 {
                    break;
                }
                let retry = if idle >= 3 {
                    std::iter::from_fn(|| recent.pop()).find(|&v| self.alive[v as usize])
                } else {
                    None
                };
                let tip = retry.unwrap_or(ear);
                if self.is_ear(tip) {
                    let (a, c) = (self.pv(tip), self.nx(tip));
                    triangles.push([self.vert[a as usize], self.vert[tip as usize], self.vert[c as usize]]);
                    self.remove(tip);
                    count -= 1;
                    if let Some(c2) = self.reverse_twin(a, c) {
                        // The new edge a → c runs back along an existing edge c' → a': the
                        // region on both sides of them is already clipped, so both go.
                        let a2 = self.nx(c2);
                        let (v, y) = (self.nx(a2), self.nx(c));
                        self.link(a, v);
                        self.alive[a2 as usize] = false;
                        self.link(c2, y);
                        self.alive[c as usize] = false;
                        stack.push(a);
                        stack.push(c2);
                        splits_left = splits_left.saturating_sub(1);
                        break;
                    }
                    match self.settle(vec![c, a], &mut count) {
                        None => break,
                        Some(v) => {
                            // Skip one node: clipping from the same place makes fans of slivers.
                            ear = if self.alive[c as usize] { self.nx(c) } else { self.nx(v) };
                            recent.extend([a, c].into_iter().filter(|&n| self.alive[n as usize]));
                        }
                    }
                    idle = 0;
                    continue;
                }
                if retry.is_some() {
                    continue;
                }
                ear = self.nx(ear);
                idle += 1;
                if idle > count {
                    let split = if splits_left == 0 {
                        None
                    } else {
                        splits_left -= 1;
                        self.split_at_touch(ear).or_else(|| self.split_by_diagonal(ear))
                    };
                    let Some((r1, r2)) = split else {
                        return Err(TriangulateError::NoEar { remaining: count });
                    };
                    stack.push(r1);
                    stack.push(r2);
                    break;
                }
            }
        }
        Ok(())
    }

    /// Splits the ring through `start` into two where it touches itself, if both halves are
    /// counter-clockwise.
    pub(super) fn split_at_touch(&mut self, start: u32) -> Option<(u32, u32)> {
        let nodes = self.ring_nodes(start);
        let mut seen: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
        for &v in &nodes {
            let w = self.vert[v as usize];
            if let Some(&u) = seen.get(&w) {
                let (un, vn) = (self.nx(u), self.nx(v));
                self.link(u, vn);
                self.link(v, un);
                if self.ring_area2(u) > 0.0 && self.ring_area2(v) > 0.0 {
                    return Some((u, v));
                }
                self.link(u, un);
                self.link(v, vn);
            } else {
                seen.insert(w, v);
            }
        }
        None
    }

    /// Splits the ring through `start` along a diagonal between two nodes that see each other.
    /// Gives up after about `DIAGONAL_BUDGET` edge tests (it is a last resort, cubic in the
    /// ring size).
    pub(super) fn split_by_diagonal(&mut self, start: u32) -> Option<(u32, u32)> {
        const DIAGONAL_BUDGET: usize = 20_000_000;
        let nodes = self.ring_nodes(start);
        let mut work = 0usize;
        for (i, &a) in nodes.iter().enumerate() {
            for &b in nodes.iter().skip(i + 2) {
                if b == self.pv(a) || self.same_point(a, b) {
                    continue;
                }
                work += nodes.len();
                if work > DIAGONAL_BUDGET {
                    return None;
                }
                let (pa, pb) = (self.p(a), self.p(b));
                if !strictly_in_wedge(pa, self.p(self.nx(a)), self.p(self.pv(a)), pb)
                    || !strictly_in_wedge(pb, self.p(self.nx(b)), self.p(self.pv(b)), pa)
                    || !self.segment_clear_ring(pa, self.vert[a as usize], b, start)
                {
                    continue;
                }
                // a → b' → (b's old successors) … and b → a' → (a's old successors) ….
                let (a2, b2) = (self.copy_node(a), self.copy_node(b));
                let (an, bn) = (self.nx(a), self.nx(b));
                self.link(a, b2);
                self.link(b2, bn);
                self.link(b, a2);
                self.link(a2, an);
                // Where the ring touches itself, a diagonal can be clear yet leave a hole-like
                // loop on the wrong side: both halves must keep counter-clockwise.
                if self.ring_area2(a) > 0.0 && self.ring_area2(b) > 0.0 {
                    return Some((a, b));
                }
                self.link(a, an);
                self.link(b, bn);
                self.alive[a2 as usize] = false;
                self.alive[b2 as usize] = false;
            }
        }
        None
    }
}
