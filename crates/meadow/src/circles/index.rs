//! Uniform grid over the circles: line-of-sight tests visit only the cells a segment passes
//! through, and neighbour searches grow square rings of cells around a point.

use super::geometry::point_segment_distance2;
use super::Circle;
use crate::geom::Point2;

/// A uniform grid; each circle is listed in every cell its (slightly padded) bounding box meets.
#[derive(Clone, Debug)]
pub(crate) struct Grid {
    origin: Point2,
    cell: f64,
    columns: usize,
    rows: usize,
    /// `cell_start[c]..cell_start[c + 1]` indexes `items` for cell `c = row * columns + column`.
    cell_start: Vec<u32>,
    items: Vec<u32>,
}

/// The cells visited by a ring search so far and how far from the query point they reach.
pub(crate) struct RingCursor {
    column: i64,
    row: i64,
    point: Point2,
    pub ring: i64,
}

impl Grid {
    /// Builds the grid; `pad` widens every bounding box so that boundary rounding cannot hide a
    /// circle from a segment that really comes within its radius.
    pub(crate) fn new(circles: &[Circle], pad: f64) -> Grid {
        if circles.is_empty() {
            return Grid { origin: [0.0, 0.0], cell: 1.0, columns: 1, rows: 1, cell_start: vec![0, 0], items: vec![] };
        }
        let mut lo = [f64::INFINITY; 2];
        let mut hi = [f64::NEG_INFINITY; 2];
        let mut radius_sum = 0.0;
        for c in circles {
            for axis in 0..2 {
                lo[axis] = lo[axis].min(c.center[axis] - c.radius);
                hi[axis] = hi[axis].max(c.center[axis] + c.radius);
            }
            radius_sum += c.radius;
        }
        let n = circles.len() as f64;
        let extent = [(hi[0] - lo[0]).max(0.0), (hi[1] - lo[1]).max(0.0)];
        // About one circle per cell, but never cells much smaller than a circle: a circle then
        // sits in a handful of cells and a segment's walk stays short.
        let spacing = (extent[0] * extent[1] / n).sqrt();
        let mut cell = spacing.max(radius_sum / n).max(1e-9 * (1.0 + extent[0] + extent[1]));
        // Cap the cell count at a few per circle (very elongated worlds).
        while (extent[0] / cell + 1.0) * (extent[1] / cell + 1.0) > 4.0 * n + 16.0 {
            cell *= 1.5;
        }
        let columns = ((extent[0] / cell).floor() as usize + 1).max(1);
        let rows = ((extent[1] / cell).floor() as usize + 1).max(1);
        let mut grid = Grid { origin: lo, cell, columns, rows, cell_start: vec![0; columns * rows + 1], items: vec![] };
        let pad = pad + cell * 1e-9;
        let ranges: Vec<_> = circles
            .iter()
            .map(|c| {
                let (c0, r0) = grid.clamped_cell([c.center[0] - c.radius - pad, c.center[1] - c.radius - pad]);
                let (c1, r1) = grid.clamped_cell([c.center[0] + c.radius + pad, c.center[1] + c.radius + pad]);
                (c0, r0, c1, r1)
            })
            .collect();
        for &(c0, r0, c1, r1) in &ranges {
            for row in r0..=r1 {
                for column in c0..=c1 {
                    grid.cell_start[row * columns + column + 1] += 1;
                }
            }
        }
        for i in 0..columns * rows {
            grid.cell_start[i + 1] += grid.cell_start[i];
        }
        let mut fill = grid.cell_start.clone();
        grid.items = vec![0; grid.cell_start[columns * rows] as usize];
        for (index, &(c0, r0, c1, r1)) in ranges.iter().enumerate() {
            for row in r0..=r1 {
                for column in c0..=c1 {
                    let slot = &mut fill[row * columns + column];
                    grid.items[*slot as usize] = index as u32;
                    *slot += 1;
                }
            }
        }
        grid
    }

    fn column_of(&self, x: f64) -> i64 {
        ((x - self.origin[0]) / self.cell).floor().clamp(-1e15, 1e15) as i64
    }

    fn row_of(&self, y: f64) -> i64 {
        ((y - self.origin[1]) / self.cell).floor().clamp(-1e15, 1e15) as i64
    }

    fn clamped_cell(&self, p: Point2) -> (usize, usize) {
        (
            self.column_of(p[0]).clamp(0, self.columns as i64 - 1) as usize,
            self.row_of(p[1]).clamp(0, self.rows as i64 - 1) as usize,
        )
    }

    #[inline]
    fn cell_items(&self, column: usize, row: usize) -> &[u32] {
        let c = row * self.columns + column;
        &self.items[self.cell_start[c] as usize..self.cell_start[c + 1] as usize]
    }

    /// The circles whose padded bounding box contains `p`'s cell.
    pub(crate) fn items_at(&self, p: Point2) -> &[u32] {
        let (column, row) = (self.column_of(p[0]), self.row_of(p[1]));
        if column < 0 || row < 0 || column >= self.columns as i64 || row >= self.rows as i64 {
            return &[];
        }
        self.cell_items(column as usize, row as usize)
    }

    /// Visits the circles listed in the cells meeting the box `lo..hi` (with repeats).
    pub(crate) fn items_in_box(&self, lo: Point2, hi: Point2, mut visit: impl FnMut(u32)) {
        let (c0, r0) = self.clamped_cell(lo);
        let (c1, r1) = self.clamped_cell(hi);
        for row in r0..=r1 {
            for column in c0..=c1 {
                self.cell_items(column, row).iter().for_each(|&i| visit(i));
            }
        }
    }

    /// Whether a circle other than `skip` comes closer than its radius minus `slack` to the
    /// segment `a b`. Cells are visited from `a` towards `b`, so blockers near `a` end the walk
    /// early. Counts the circle distance tests in `tests`.
    pub(crate) fn segment_blocked(
        &self,
        circles: &[Circle],
        a: Point2,
        b: Point2,
        skip: [u32; 2],
        slack: f64,
        tests: &mut u64,
    ) -> bool {
        let pad = self.cell * 1e-9;
        let (ca, cb) = (self.column_of(a[0]), self.column_of(b[0]));
        let step = if cb >= ca { 1 } else { -1 };
        // Columns outside the grid hold nothing: walk only from just outside it.
        let (first, last) = (ca.clamp(-1, self.columns as i64), cb.clamp(-1, self.columns as i64));
        let (xmin, xmax) = (a[0].min(b[0]), a[0].max(b[0]));
        let dx = b[0] - a[0];
        let mut column = first;
        loop {
            if column >= 0 && column < self.columns as i64 {
                // The part of the segment inside this column, as a range of rows.
                let x0 = (self.origin[0] + column as f64 * self.cell).max(xmin);
                let x1 = (self.origin[0] + (column + 1) as f64 * self.cell).min(xmax);
                let (y0, y1) = if dx.abs() > 0.0 && ca != cb {
                    let slope = (b[1] - a[1]) / dx;
                    (a[1] + (x0 - a[0]) * slope, a[1] + (x1 - a[0]) * slope)
                } else {
                    (a[1], b[1])
                };
                let (lo, hi) = (y0.min(y1) - pad, y0.max(y1) + pad);
                let (r0, r1) = (self.row_of(lo).max(0), self.row_of(hi).min(self.rows as i64 - 1));
                let upward = b[1] >= a[1];
                for k in 0..=(r1 - r0).max(-1) {
                    let row = if upward { r0 + k } else { r1 - k };
                    for &index in self.cell_items(column as usize, row as usize) {
                        if index == skip[0] || index == skip[1] {
                            continue;
                        }
                        let circle = &circles[index as usize];
                        *tests += 1;
                        let reach = circle.radius - slack;
                        if reach > 0.0 && point_segment_distance2(circle.center, a, b) < reach * reach {
                            return true;
                        }
                    }
                }
            }
            if column == last {
                return false;
            }
            column += step;
        }
    }

    /// Starts a ring search around `p`.
    pub(crate) fn ring_cursor(&self, p: Point2) -> RingCursor {
        let (column, row) = self.clamped_cell(p);
        RingCursor { column: column as i64, row: row as i64, point: p, ring: 0 }
    }

    /// Visits the cells of the cursor's current ring (Chebyshev distance `ring` from the start
    /// cell), advances the cursor, and returns the radius around the point within which every
    /// circle centre has now been visited (`INFINITY` once the whole grid has been visited).
    pub(crate) fn visit_ring(&self, cursor: &mut RingCursor, mut visit: impl FnMut(u32)) -> f64 {
        let k = cursor.ring;
        let (c0, c1, r0, r1) = (cursor.column - k, cursor.column + k, cursor.row - k, cursor.row + k);
        let in_grid = |c: i64, r: i64| c >= 0 && r >= 0 && c < self.columns as i64 && r < self.rows as i64;
        for row in r0..=r1 {
            if row == r0 || row == r1 {
                for column in c0..=c1 {
                    if in_grid(column, row) {
                        self.cell_items(column as usize, row as usize).iter().for_each(|&i| visit(i));
                    }
                }
            } else {
                for column in [c0, c1] {
                    if in_grid(column, row) {
                        self.cell_items(column as usize, row as usize).iter().for_each(|&i| visit(i));
                    }
                }
            }
        }
        cursor.ring += 1;
        // Distance from the point to each side of the visited block that still has grid beyond it.
        let p = cursor.point;
        let mut reach = f64::INFINITY;
        if c0 > 0 {
            reach = reach.min(p[0] - (self.origin[0] + c0 as f64 * self.cell));
        }
        if c1 < self.columns as i64 - 1 {
            reach = reach.min(self.origin[0] + (c1 + 1) as f64 * self.cell - p[0]);
        }
        if r0 > 0 {
            reach = reach.min(p[1] - (self.origin[1] + r0 as f64 * self.cell));
        }
        if r1 < self.rows as i64 - 1 {
            reach = reach.min(self.origin[1] + (r1 + 1) as f64 * self.cell - p[1]);
        }
        reach.max(0.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator for tests (xorshift).
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    #[test]
    fn segment_test_matches_brute_force() {
        let mut rng = Rng(0x9e3779b97f4a7c15);
        for round in 0..20 {
            let n = 5 + round * 7;
            let circles: Vec<Circle> = (0..n)
                .map(|_| Circle { center: [rng.next() * 50.0, rng.next() * 30.0], radius: 0.2 + rng.next() * 3.0 })
                .collect();
            let grid = Grid::new(&circles, 0.0);
            for _ in 0..300 {
                // Endpoints may lie outside the grid.
                let a = [rng.next() * 70.0 - 10.0, rng.next() * 50.0 - 10.0];
                let b =
                    if rng.next() < 0.2 { [a[0], rng.next() * 50.0 - 10.0] } else { [rng.next() * 70.0 - 10.0, a[1]] };
                let b = if rng.next() < 0.5 { b } else { [rng.next() * 70.0 - 10.0, rng.next() * 50.0 - 10.0] };
                let skip = [0, u32::MAX];
                let brute = circles
                    .iter()
                    .enumerate()
                    .skip(1)
                    .any(|(_, c)| point_segment_distance2(c.center, a, b) < c.radius * c.radius);
                let mut tests = 0;
                assert_eq!(grid.segment_blocked(&circles, a, b, skip, 0.0, &mut tests), brute, "{a:?} {b:?}");
            }
        }
    }

    #[test]
    fn rings_reach_every_centre_within_their_radius() {
        let mut rng = Rng(12345);
        let circles: Vec<Circle> = (0..200)
            .map(|_| Circle { center: [rng.next() * 100.0, rng.next() * 100.0], radius: 0.5 + rng.next() })
            .collect();
        let grid = Grid::new(&circles, 0.0);
        for p in [[50.0, 50.0], [0.0, 0.0], [-20.0, 130.0], [99.0, 3.0]] {
            let mut cursor = grid.ring_cursor(p);
            let mut seen = vec![false; circles.len()];
            loop {
                let reach = grid.visit_ring(&mut cursor, |i| seen[i as usize] = true);
                for (i, c) in circles.iter().enumerate() {
                    let d = (c.center[0] - p[0]).hypot(c.center[1] - p[1]);
                    if d < reach {
                        assert!(seen[i]);
                    }
                }
                if reach.is_infinite() {
                    assert!(seen.iter().all(|&s| s));
                    break;
                }
            }
        }
    }
}
