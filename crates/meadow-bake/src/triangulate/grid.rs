//! Uniform grids over node positions and ring edges, for the bridge search and the ear test,
//! and the check that no two ring edges cross (end of step 2).
//!
//! Input: the clipper's live nodes and ring edges. Output: the grids, crossing edges if any.

use super::predicates::*;
use super::ring::Clipper;
use crate::tolerance::EDGE_GRID_COLUMN_MARGIN;
use meadow::geom::{orient2d, Point2};

/// A uniform grid over node positions for the ear test's neighbourhood queries. Removed nodes
/// stay in their cells and are skipped by the caller.
pub(super) struct Grid {
    pub(super) min: Point2,
    pub(super) scale: Point2,
    pub(super) dims: [usize; 2],
    pub(super) cells: Vec<Vec<u32>>,
}

impl Grid {
    /// A grid over the box `min ..= max` with about `n` square-ish cells.
    pub(super) fn over(min: Point2, max: Point2, n: usize) -> Grid {
        if !(min[0] <= max[0] && min[1] <= max[1]) {
            return Grid { min: [0.0; 2], scale: [0.0; 2], dims: [1, 1], cells: vec![Vec::new()] };
        }
        let size = [max[0] - min[0], max[1] - min[1]];
        let target = (n as f64).max(1.0);
        let (nx, nz) = if size[0] > 0.0 && size[1] > 0.0 {
            let nx = (target * size[0] / size[1]).sqrt();
            (nx.clamp(1.0, target), (target / nx).clamp(1.0, target))
        } else if size[0] > 0.0 {
            (target, 1.0)
        } else {
            (1.0, target)
        };
        let dims = [(nx.ceil() as usize).clamp(1, 2048), (nz.ceil() as usize).clamp(1, 2048)];
        let scale = [
            if size[0] > 0.0 { dims[0] as f64 / size[0] } else { 0.0 },
            if size[1] > 0.0 { dims[1] as f64 / size[1] } else { 0.0 },
        ];
        Grid { min, scale, dims, cells: vec![Vec::new(); dims[0] * dims[1]] }
    }

    /// The cell column/row of a coordinate; monotone in the coordinate, so a box query's
    /// corner cells bound the cells of every point inside the box.
    pub(super) fn cell(&self, p: Point2) -> [usize; 2] {
        let mut c = [0; 2];
        for k in 0..2 {
            // `as` saturates: negative (and NaN) go to 0.
            c[k] = (((p[k] - self.min[k]) * self.scale[k]) as usize).min(self.dims[k] - 1);
        }
        c
    }

    pub(super) fn insert(&mut self, id: u32, p: Point2) {
        self.insert_box(id, p, p);
    }

    /// Files `id` in every cell the box `lo ..= hi` overlaps.
    pub(super) fn insert_box(&mut self, id: u32, lo: Point2, hi: Point2) {
        let (c0, c1) = (self.cell(lo), self.cell(hi));
        for z in c0[1]..=c1[1] {
            for x in c0[0]..=c1[0] {
                self.cells[z * self.dims[0] + x].push(id);
            }
        }
    }

    /// The cells the segment `a b` passes through, with a margin of a cell across it for
    /// rounding. A long slanted segment stays in few cells, unlike its bounding box.
    pub(super) fn segment_cells(&self, a: Point2, b: Point2) -> impl Iterator<Item = usize> + '_ {
        let (ca, cb) = (self.cell(a), self.cell(b));
        let (lo_x, hi_x) = (a[0].min(b[0]), a[0].max(b[0]));
        let (lo_z, hi_z) = (a[1].min(b[1]), a[1].max(b[1]));
        let slanted = ca[0] != cb[0] && a[0] != b[0] && self.scale[0] > 0.0;
        (ca[0].min(cb[0])..=ca[0].max(cb[0])).flat_map(move |c| {
            let (z0, z1) = if slanted {
                // The segment's z range over the column, the column a little widened.
                let width = 1.0 / self.scale[0];
                let x0 = (self.min[0] + (c as f64 - EDGE_GRID_COLUMN_MARGIN) * width).max(lo_x);
                let x1 = (self.min[0] + (c as f64 + (1.0 + EDGE_GRID_COLUMN_MARGIN)) * width).min(hi_x);
                let z_at = |x: f64| (a[1] + (x - a[0]) * (b[1] - a[1]) / (b[0] - a[0])).clamp(lo_z, hi_z);
                (z_at(x0).min(z_at(x1)), z_at(x0).max(z_at(x1)))
            } else {
                (lo_z, hi_z)
            };
            let r0 = self.cell([a[0], z0])[1].saturating_sub(1);
            let r1 = (self.cell([a[0], z1])[1] + 1).min(self.dims[1] - 1);
            (r0..=r1).map(move |r| r * self.dims[0] + c)
        })
    }

    /// Files `id` in the cells the segment `a b` passes through.
    pub(super) fn insert_segment(&mut self, id: u32, a: Point2, b: Point2) {
        let cells: Vec<usize> = self.segment_cells(a, b).collect();
        for c in cells {
            self.cells[c].push(id);
        }
    }

    /// The ids filed in the cells the segment `a b` passes through (an id may repeat).
    pub(super) fn query_segment(&self, a: Point2, b: Point2) -> impl Iterator<Item = u32> + '_ {
        self.segment_cells(a, b).flat_map(move |c| self.cells[c].iter().copied())
    }

    /// The ids filed in the cells overlapping the box `lo ..= hi` (an id may repeat).
    pub(super) fn query(&self, lo: Point2, hi: Point2) -> impl Iterator<Item = u32> + '_ {
        let (c0, c1) = (self.cell(lo), self.cell(hi));
        (c0[1]..=c1[1])
            .flat_map(move |z| (c0[0]..=c1[0]).map(move |x| z * self.dims[0] + x))
            .flat_map(move |c| self.cells[c].iter().copied())
    }
}

/// The bounding box of points.
pub(super) fn bounds(points: impl Iterator<Item = Point2>) -> (Point2, Point2) {
    points.fold(([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]), |(lo, hi), p| {
        ([lo[0].min(p[0]), lo[1].min(p[1])], [hi[0].max(p[0]), hi[1].max(p[1])])
    })
}

impl Clipper {
    /// Records the nodes of a ring now part of the joined ring, where holes may touch.
    pub(super) fn register(&mut self, start: u32) {
        for v in self.ring_nodes(start) {
            self.register_node(v);
        }
    }

    pub(super) fn register_node(&mut self, v: u32) {
        let w = self.vert[v as usize] as usize;
        if self.shared[w] {
            self.joined_at[w].push(v);
        }
    }

    /// Indexes the live nodes for the ear test.
    pub(super) fn build_grid(&mut self) {
        let live: Vec<u32> = (0..self.pos.len() as u32).filter(|&v| self.alive[v as usize]).collect();
        let (lo, hi) = bounds(live.iter().map(|&v| self.p(v)));
        let mut grid = Grid::over(lo, hi, live.len());
        for v in live {
            grid.insert(v, self.p(v));
        }
        self.grid = Some(grid);
    }

    /// Indexes the edges of the given rings for the bridge search.
    pub(super) fn build_edge_grid(&mut self, rings: &[u32]) {
        let mut edges = Vec::new();
        for &r in rings {
            for v in self.ring_nodes(r) {
                edges.push([self.vert[v as usize], self.vert[self.nx(v) as usize]]);
            }
        }
        let (lo, hi) = bounds(edges.iter().map(|e| self.pos[e[0] as usize]));
        self.edge_grid = Some(Grid::over(lo, hi, edges.len()));
        for e in edges {
            self.add_edge(e);
        }
    }

    pub(super) fn add_edge(&mut self, e: [u32; 2]) {
        let id = self.edges.len() as u32;
        self.edges.push(e);
        let (a, b) = (self.pos[e[0] as usize], self.pos[e[1] as usize]);
        if let Some(grid) = &mut self.edge_grid {
            grid.insert_segment(id, a, b);
        }
    }

    /// Two indexed edges that meet other than at a shared end point (with nothing else in
    /// common), if any: rings touching edges have been split, so that is a crossing.
    pub(super) fn crossing_edges(&self) -> Option<([Point2; 2], [Point2; 2])> {
        let grid = self.edge_grid.as_ref()?;
        for (i, &[u, v]) in self.edges.iter().enumerate() {
            let (pu, pv) = (self.pos[u as usize], self.pos[v as usize]);
            for j in grid.query_segment(pu, pv) {
                if j as usize <= i {
                    continue;
                }
                let [a, b] = self.edges[j as usize];
                let (pa, pb) = (self.pos[a as usize], self.pos[b as usize]);
                let on = |s: Point2, t: Point2, p: Point2| orient2d(s, t, p) == 0.0 && within_box(s, t, p);
                let clear = match (a == u || a == v, b == u || b == v) {
                    // The same segment, both ways or twice.
                    (true, true) => false,
                    // A shared end: neither edge's other end may lie on the other edge.
                    (true, false) => {
                        let other = if a == u { pv } else { pu };
                        !(on(pu, pv, pb) || on(pa, pb, other))
                    }
                    (false, true) => {
                        let other = if b == u { pv } else { pu };
                        !(on(pu, pv, pa) || on(pa, pb, other))
                    }
                    (false, false) => !segments_touch(pu, pv, pa, pb),
                };
                if !clear {
                    return Some(([pu, pv], [pa, pb]));
                }
            }
        }
        None
    }
}
