//! A uniform grid over XZ bounding boxes, for finding the triangles near a point or a box.

use crate::tolerance::{
    BOX_GRID_MAX_CELLS, BOX_GRID_MAX_CELLS_ACROSS, BOX_GRID_MAX_DIM, BOX_GRID_MAX_ENTRIES_PER_ITEM, BOX_GRID_MIN_CELL,
};

/// Buckets of item indices over a uniform XZ grid (compressed rows: cell → items).
#[derive(Clone, Debug)]
pub(crate) struct BoxGrid {
    origin: [f64; 2],
    cell: f64,
    dims: [usize; 2],
    starts: Vec<u32>,
    items: Vec<u32>,
    stamp: Vec<u32>,
    epoch: u32,
}

/// An axis-aligned box in XZ: `[min_x, min_z, max_x, max_z]`.
pub(crate) type Box2 = [f64; 4];

impl BoxGrid {
    /// Builds a grid over `boxes` with roughly `per_cell` items per cell on average.
    pub(crate) fn new(boxes: &[Box2], per_cell: f64) -> BoxGrid {
        let mut lo = [f64::INFINITY; 2];
        let mut hi = [f64::NEG_INFINITY; 2];
        let mut mean_extent = 0.0;
        for b in boxes {
            lo = [lo[0].min(b[0]), lo[1].min(b[1])];
            hi = [hi[0].max(b[2]), hi[1].max(b[3])];
            mean_extent += (b[2] - b[0]).max(b[3] - b[1]);
        }
        if boxes.is_empty() {
            lo = [0.0; 2];
            hi = [1.0; 2];
        }
        let extent = [(hi[0] - lo[0]).max(BOX_GRID_MIN_CELL), (hi[1] - lo[1]).max(BOX_GRID_MIN_CELL)];
        mean_extent /= boxes.len().max(1) as f64;
        // Cells about the size of a typical item, but no more than ~4 cells per item overall.
        let by_count = (extent[0] * extent[1] * per_cell / boxes.len().max(1) as f64).sqrt();
        let mut cell =
            mean_extent.max(by_count).max(extent[0].max(extent[1]) / BOX_GRID_MAX_CELLS_ACROSS).max(BOX_GRID_MIN_CELL);
        // A few huge boxes among many small ones (a sliver across the level) would each be
        // listed in millions of cells: coarsen until the lists hold at most `BOX_GRID_MAX_ENTRIES_PER_ITEM`
        // entries per item on average, which also keeps every count within u32.
        let budget = (BOX_GRID_MAX_ENTRIES_PER_ITEM * boxes.len() as u64).saturating_add(BOX_GRID_MAX_CELLS as u64);
        let mut grid = loop {
            let dims = [
                ((extent[0] / cell) as usize + 1).min(BOX_GRID_MAX_DIM),
                ((extent[1] / cell) as usize + 1).min(BOX_GRID_MAX_DIM),
            ];
            let grid =
                BoxGrid { origin: lo, cell, dims, starts: Vec::new(), items: Vec::new(), stamp: Vec::new(), epoch: 0 };
            let entries: u64 = boxes
                .iter()
                .map(|b| {
                    let r = grid.cell_range(b);
                    (r[2] - r[0] + 1) as u64 * (r[3] - r[1] + 1) as u64
                })
                .sum();
            if entries <= budget || dims == [1, 1] {
                break grid;
            }
            cell *= 2.0;
        };
        let dims = grid.dims;
        grid.starts = vec![0; dims[0] * dims[1] + 1];
        grid.stamp = vec![0; boxes.len()];
        let ranges: Vec<[usize; 4]> = boxes.iter().map(|b| grid.cell_range(b)).collect();
        for r in &ranges {
            for z in r[1]..=r[3] {
                for x in r[0]..=r[2] {
                    grid.starts[z * dims[0] + x] += 1;
                }
            }
        }
        let mut acc = 0u32;
        for s in grid.starts.iter_mut() {
            let n = *s;
            *s = acc;
            acc += n;
        }
        grid.items = vec![0; acc as usize];
        let mut fill = grid.starts.clone();
        for (i, r) in ranges.iter().enumerate() {
            for z in r[1]..=r[3] {
                for x in r[0]..=r[2] {
                    let c = z * dims[0] + x;
                    grid.items[fill[c] as usize] = i as u32;
                    fill[c] += 1;
                }
            }
        }
        grid
    }

    fn cell_range(&self, b: &Box2) -> [usize; 4] {
        let f = |v: f64, o: f64, n: usize| (((v - o) / self.cell).floor().max(0.0) as usize).min(n - 1);
        [
            f(b[0], self.origin[0], self.dims[0]),
            f(b[1], self.origin[1], self.dims[1]),
            f(b[2], self.origin[0], self.dims[0]),
            f(b[3], self.origin[1], self.dims[1]),
        ]
    }

    /// Collects into `out` every item whose cells overlap `b`, once each, in ascending order.
    pub(crate) fn query(&mut self, b: &Box2, out: &mut Vec<u32>) {
        out.clear();
        self.epoch = self.epoch.wrapping_add(1);
        if self.epoch == 0 {
            self.stamp.iter_mut().for_each(|s| *s = 0);
            self.epoch = 1;
        }
        if !(b.iter().all(|v| v.is_finite())) {
            return;
        }
        let [x0, z0, x1, z1] = self.cell_range(b);
        for z in z0..=z1 {
            for x in x0..=x1 {
                let c = z * self.dims[0] + x;
                for &i in &self.items[self.starts[c] as usize..self.starts[c + 1] as usize] {
                    if self.stamp[i as usize] != self.epoch {
                        self.stamp[i as usize] = self.epoch;
                        out.push(i);
                    }
                }
            }
        }
        out.sort_unstable();
    }

    /// [`BoxGrid::query`] without the grid's scratch marks, so that threads can share the grid:
    /// the same items in the same order, deduplicated by sorting instead.
    pub(crate) fn query_shared(&self, b: &Box2, out: &mut Vec<u32>) {
        out.clear();
        if !(b.iter().all(|v| v.is_finite())) {
            return;
        }
        let [x0, z0, x1, z1] = self.cell_range(b);
        for z in z0..=z1 {
            for x in x0..=x1 {
                let c = z * self.dims[0] + x;
                out.extend_from_slice(&self.items[self.starts[c] as usize..self.starts[c + 1] as usize]);
            }
        }
        out.sort_unstable();
        out.dedup();
    }
}

/// The XZ bounding box of a 3D triangle.
pub(crate) fn triangle_box(t: &[[f64; 3]; 3]) -> Box2 {
    [
        t[0][0].min(t[1][0]).min(t[2][0]),
        t[0][2].min(t[1][2]).min(t[2][2]),
        t[0][0].max(t[1][0]).max(t[2][0]),
        t[0][2].max(t[1][2]).max(t[2][2]),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_query_finds_what_query_finds() {
        let boxes: Vec<Box2> = (0..200)
            .map(|i| [(i % 17) as f64, (i / 17) as f64, (i % 17) as f64 + 1.5, (i / 17) as f64 + 0.5])
            .collect();
        let mut grid = BoxGrid::new(&boxes, 2.0);
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for q in [[0.0, 0.0, 3.0, 3.0], [5.2, 1.1, 9.7, 8.0], [-5.0, -5.0, 50.0, 50.0], [f64::NAN, 0.0, 1.0, 1.0]] {
            grid.query(&q, &mut a);
            grid.query_shared(&q, &mut b);
            assert_eq!(a, b);
        }
    }
}
