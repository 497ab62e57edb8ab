//! The clipper's state: rings of nodes (a node is one visit of a ring to a vertex) linked both
//! ways, and the ring primitives every step uses: building, cleaning (step 1: zero-length
//! edges, spikes, wrong windings) and walking rings.
//!
//! Input: the welded ring vertices. Output: the cleaned rings as node ids.

use super::grid::Grid;
use super::predicates::*;
use meadow::geom::{orient2d, Point2};

/// Which way a ring turns: the outer ring counter-clockwise, holes clockwise.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Winding {
    CounterClockwise,
    Clockwise,
}

/// The linked ring of nodes being clipped. A node is one visit of the ring to a vertex; bridge
/// ends and diagonal splits visit a vertex twice.
pub(super) struct Clipper {
    pub(super) pos: Vec<Point2>,
    /// The welded vertex index of each node (equal iff equal coordinates).
    pub(super) vert: Vec<u32>,
    pub(super) prev: Vec<u32>,
    pub(super) next: Vec<u32>,
    pub(super) alive: Vec<bool>,
    /// Whether some other vertex has the same coordinates as this welded vertex.
    pub(super) shared: Vec<bool>,
    /// Nodes of the joined ring at shared coordinates, by welded vertex: where holes touch.
    pub(super) joined_at: Vec<Vec<u32>>,
    /// The live nodes by position, for the bridge search and the ear test.
    pub(super) grid: Option<Grid>,
    /// Every ring edge and bridge as welded vertex pairs, for the bridge search: edges never
    /// disappear while holes are joined (a splice only reconnects them).
    pub(super) edges: Vec<[u32; 2]>,
    /// `edges` by the cells their bounding boxes overlap.
    pub(super) edge_grid: Option<Grid>,
}

impl Clipper {
    pub(super) fn new(vertices: &[Point2], canonical: Vec<u32>, shared: Vec<bool>) -> Clipper {
        let n = vertices.len();
        Clipper {
            pos: Vec::with_capacity(n + 16),
            vert: Vec::with_capacity(n + 16),
            prev: Vec::with_capacity(n + 16),
            next: Vec::with_capacity(n + 16),
            alive: Vec::with_capacity(n + 16),
            joined_at: vec![Vec::new(); n],
            shared,
            grid: None,
            edges: Vec::new(),
            edge_grid: None,
        }
        .with_vertices(vertices, &canonical)
    }

    pub(super) fn with_vertices(mut self, vertices: &[Point2], canonical: &[u32]) -> Clipper {
        for (p, c) in vertices.iter().zip(canonical) {
            self.push_node(*p, *c);
        }
        self
    }

    pub(super) fn push_node(&mut self, p: Point2, vert: u32) -> u32 {
        let id = self.pos.len() as u32;
        self.pos.push(p);
        self.vert.push(vert);
        self.prev.push(id);
        self.next.push(id);
        self.alive.push(true);
        if let Some(grid) = &mut self.grid {
            grid.insert(id, p);
        }
        id
    }

    /// A copy of node `v` (same vertex), not linked.
    pub(super) fn copy_node(&mut self, v: u32) -> u32 {
        self.push_node(self.pos[v as usize], self.vert[v as usize])
    }

    pub(super) fn p(&self, v: u32) -> Point2 {
        self.pos[v as usize]
    }

    pub(super) fn nx(&self, v: u32) -> u32 {
        self.next[v as usize]
    }

    pub(super) fn pv(&self, v: u32) -> u32 {
        self.prev[v as usize]
    }

    pub(super) fn same_point(&self, a: u32, b: u32) -> bool {
        self.vert[a as usize] == self.vert[b as usize]
    }

    pub(super) fn link(&mut self, a: u32, b: u32) {
        self.next[a as usize] = b;
        self.prev[b as usize] = a;
    }

    pub(super) fn remove(&mut self, v: u32) {
        let (p, n) = (self.pv(v), self.nx(v));
        self.link(p, n);
        self.alive[v as usize] = false;
    }

    /// Links the nodes `offset..offset + len` (one input ring) into a cycle; `None` if empty.
    pub(super) fn build_ring(&mut self, offset: usize, len: usize) -> Option<u32> {
        if len == 0 {
            return None;
        }
        for i in 0..len {
            self.link((offset + i) as u32, (offset + (i + 1) % len) as u32);
        }
        Some(offset as u32)
    }

    /// Nodes of the ring through `start`, in order.
    pub(super) fn ring_nodes(&self, start: u32) -> Vec<u32> {
        let mut out = vec![start];
        let mut v = self.nx(start);
        while v != start && out.len() <= self.pos.len() {
            out.push(v);
            v = self.nx(v);
        }
        out
    }

    /// Twice the signed area of the ring through `start`.
    pub(super) fn ring_area2(&self, start: u32) -> f64 {
        let o = self.p(start);
        let mut sum = 0.0;
        let mut v = self.nx(start);
        let mut guard = 0;
        while self.nx(v) != start && guard <= self.pos.len() {
            let (a, b) = (self.p(v), self.p(self.nx(v)));
            sum += (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
            v = self.nx(v);
            guard += 1;
        }
        sum
    }

    /// Whether node `v` is the tip of a zero-area spike: its edges double back on each other.
    pub(super) fn is_spike(&self, v: u32) -> bool {
        let (a, b, c) = (self.p(self.pv(v)), self.p(v), self.p(self.nx(v)));
        orient2d(a, b, c) == 0.0 && direction(b, a) == direction(b, c)
    }

    /// Drops zero-length edges and spike tips around the nodes in `work`; returns a live node
    /// of the ring, or `None` when fewer than three nodes remain.
    pub(super) fn settle(&mut self, mut work: Vec<u32>, count: &mut usize) -> Option<u32> {
        let mut last = *work.last()?;
        while let Some(v) = work.pop() {
            if *count < 3 {
                return None;
            }
            if !self.alive[v as usize] {
                continue;
            }
            last = v;
            let n = self.nx(v);
            if self.same_point(v, n) {
                self.remove(n);
                *count -= 1;
                work.push(self.nx(v));
                work.push(v);
            } else if self.is_spike(v) {
                let (p, n) = (self.pv(v), self.nx(v));
                self.remove(v);
                *count -= 1;
                last = p;
                work.push(n);
                work.push(p);
            }
        }
        if *count < 3 {
            return None;
        }
        // A removed node's successor was alive when it was removed: following them ends at a
        // live node.
        while !self.alive[last as usize] {
            last = self.nx(last);
        }
        Some(last)
    }

    /// Cleans the input ring through `start` and orients it; `None` if it covers no area.
    pub(super) fn prepare_ring(&mut self, start: Option<u32>, winding: Winding) -> Option<u32> {
        let start = start?;
        let nodes = self.ring_nodes(start);
        let mut count = nodes.len();
        let settled = self.settle(nodes.clone(), &mut count);
        let Some(start) = settled.filter(|&s| self.ring_area2(s) != 0.0) else {
            // Dropped rings must not show up in the bridge search or the ear test.
            for v in nodes {
                self.alive[v as usize] = false;
            }
            return None;
        };
        let area2 = self.ring_area2(start);
        if (area2 < 0.0) != (winding == Winding::Clockwise) {
            for v in self.ring_nodes(start) {
                let i = v as usize;
                std::mem::swap(&mut self.prev[i], &mut self.next[i]);
            }
        }
        Some(start)
    }

    /// The node with the largest x (then smallest z) of a ring.
    pub(super) fn rightmost(&self, start: u32) -> u32 {
        let mut best = start;
        for v in self.ring_nodes(start) {
            let (p, b) = (self.p(v), self.p(best));
            if p[0] > b[0] || (p[0] == b[0] && p[1] < b[1]) {
                best = v;
            }
        }
        best
    }
}
