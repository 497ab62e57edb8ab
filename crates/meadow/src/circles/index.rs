//! Uniform grid over the circles: line-of-sight tests visit only the cells a segment passes
//! through, and searches for circles near a path visit the cells of an ellipse.

use super::geometry::point_segment_distance2;
use super::Circle;
use crate::geom::Point2;
use crate::tolerance::{CIRCLE_GRID_PAD, CIRCLE_REACH_REL};

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

/// `⌊v⌋` clamped to ±10¹⁵ (NaN gives 0). Not `f64::floor`: without SSE4.1 that is a library
/// call, and this runs for every cell lookup.
#[inline]
fn floor_index(v: f64) -> i64 {
    let v = v.clamp(-1e15, 1e15);
    let t = v as i64;
    if (t as f64) > v {
        t - 1
    } else {
        t
    }
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
        let mut cell = spacing.max(radius_sum / n).max(CIRCLE_GRID_PAD * (1.0 + extent[0] + extent[1]));
        // Cap the cell count at a few per circle (very elongated worlds).
        while (extent[0] / cell + 1.0) * (extent[1] / cell + 1.0) > 4.0 * n + 16.0 {
            cell *= 1.5;
        }
        let columns = ((extent[0] / cell).floor() as usize + 1).max(1);
        let rows = ((extent[1] / cell).floor() as usize + 1).max(1);
        let mut grid = Grid { origin: lo, cell, columns, rows, cell_start: vec![0; columns * rows + 1], items: vec![] };
        let pad = pad + cell * CIRCLE_GRID_PAD;
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

    /// The side of a cell in metres.
    pub(crate) fn cell_size(&self) -> f64 {
        self.cell
    }

    /// The grid of the circles with `keep[i]`, renumbered in order (a circle's cells stay as
    /// they were: valid, as any cell size is).
    pub(crate) fn retain(&self, keep: &[bool]) -> Grid {
        let mut renumber = vec![u32::MAX; keep.len()];
        let mut next = 0;
        for (i, &k) in keep.iter().enumerate() {
            if k {
                renumber[i] = next;
                next += 1;
            }
        }
        let mut cell_start = Vec::with_capacity(self.cell_start.len());
        let mut items = Vec::with_capacity(self.items.len());
        cell_start.push(0);
        for c in 0..self.columns * self.rows {
            let range = self.cell_start[c] as usize..self.cell_start[c + 1] as usize;
            items.extend(self.items[range].iter().map(|&i| renumber[i as usize]).filter(|&i| i != u32::MAX));
            cell_start.push(items.len() as u32);
        }
        Grid { origin: self.origin, cell: self.cell, columns: self.columns, rows: self.rows, cell_start, items }
    }

    #[inline]
    fn column_of(&self, x: f64) -> i64 {
        floor_index((x - self.origin[0]) / self.cell)
    }

    #[inline]
    fn row_of(&self, y: f64) -> i64 {
        floor_index((y - self.origin[1]) / self.cell)
    }

    #[inline]
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
        let pad = self.cell * CIRCLE_GRID_PAD;
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

    /// Visits the circles listed in every cell that may hold a point `x` with
    /// `|x − a| + |x − b| <= sum` (an ellipse with foci `a` and `b`), with repeats; returns
    /// whether that was every cell of the grid.
    pub(crate) fn visit_ellipse(&self, a: Point2, b: Point2, sum: f64, mut visit: impl FnMut(u32)) -> bool {
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let focal = 0.5 * (dx * dx + dy * dy).sqrt();
        let major = 0.5 * sum;
        // Also rejects NaN.
        if major.partial_cmp(&focal).is_none_or(|o| o == std::cmp::Ordering::Less) {
            return false;
        }
        // Padded against rounding: every cell is visited that holds a point of the exact ellipse.
        let pad = self.cell * CIRCLE_GRID_PAD + sum.abs() * CIRCLE_REACH_REL;
        let major = major + pad;
        let minor = ((major - focal) * (major + focal)).sqrt().max(pad);
        let (ux, uy) = if focal > 0.0 { (dx / (2.0 * focal), dy / (2.0 * focal)) } else { (1.0, 0.0) };
        let mid = [0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])];
        // Half-extents of the bounding box, and the heights of its leftmost and rightmost points.
        let ex = ((major * ux).powi(2) + (minor * uy).powi(2)).sqrt();
        let ey = ((major * uy).powi(2) + (minor * ux).powi(2)).sqrt();
        let y_right = mid[1] + ux * uy * (major - minor) * (major + minor) / ex;
        let y_left = 2.0 * mid[1] - y_right;
        // The chord at height y: A·t² + B·t + C <= 0 for x = mid + t.
        let (ia, ib) = (1.0 / (major * major), 1.0 / (minor * minor));
        let qa = ux * ux * ia + uy * uy * ib;
        let chord = |y: f64| -> Option<(f64, f64)> {
            let dy = y - mid[1];
            let qb = 2.0 * dy * ux * uy * (ia - ib);
            let qc = dy * dy * (uy * uy * ia + ux * ux * ib) - 1.0;
            let disc = qb * qb - 4.0 * qa * qc;
            if disc < 0.0 {
                return None;
            }
            let root = disc.sqrt();
            Some((mid[0] + (-qb - root) / (2.0 * qa), mid[0] + (-qb + root) / (2.0 * qa)))
        };
        let (r0, r1) = (self.row_of(mid[1] - ey - pad), self.row_of(mid[1] + ey + pad));
        let (columns, rows) = (self.columns as i64, self.rows as i64);
        let mut every = r0 <= 0 && r1 >= rows - 1;
        for row in r0.max(0)..=r1.min(rows - 1) {
            // A linear function's extremes over the ellipse within a band: at the band's edges,
            // or at the ellipse's own extremes when they lie in the band.
            let y0 = self.origin[1] + row as f64 * self.cell - pad;
            let y1 = y0 + self.cell + 2.0 * pad;
            let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
            for (l, h) in [chord(y0), chord(y1)].into_iter().flatten() {
                lo = lo.min(l);
                hi = hi.max(h);
            }
            if (y0..=y1).contains(&y_left) {
                lo = lo.min(mid[0] - ex);
            }
            if (y0..=y1).contains(&y_right) {
                hi = hi.max(mid[0] + ex);
            }
            if lo > hi {
                every = false;
                continue;
            }
            let (c0, c1) = (self.column_of(lo - pad), self.column_of(hi + pad));
            every &= c0 <= 0 && c1 >= columns - 1;
            for column in c0.max(0)..=c1.min(columns - 1) {
                self.cell_items(column as usize, row as usize).iter().for_each(|&i| visit(i));
            }
        }
        every
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meadow_testkit::rng::{Draw, Xorshift64};

    #[test]
    fn segment_test_matches_brute_force() {
        let mut rng = Xorshift64::new(0x9e3779b97f4a7c15);
        for round in 0..20 {
            let n = 5 + round * 7;
            let circles: Vec<Circle> = (0..n)
                .map(|_| Circle {
                    center: [rng.next_f64() * 50.0, rng.next_f64() * 30.0],
                    radius: 0.2 + rng.next_f64() * 3.0,
                })
                .collect();
            let grid = Grid::new(&circles, 0.0);
            for _ in 0..300 {
                // Endpoints may lie outside the grid.
                let a = [rng.next_f64() * 70.0 - 10.0, rng.next_f64() * 50.0 - 10.0];
                let b = if rng.next_f64() < 0.2 {
                    [a[0], rng.next_f64() * 50.0 - 10.0]
                } else {
                    [rng.next_f64() * 70.0 - 10.0, a[1]]
                };
                let b =
                    if rng.next_f64() < 0.5 { b } else { [rng.next_f64() * 70.0 - 10.0, rng.next_f64() * 50.0 - 10.0] };
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
    fn ellipse_visits_every_centre_inside() {
        let mut rng = Xorshift64::new(4242);
        let circles: Vec<Circle> = (0..300)
            .map(|_| Circle {
                center: [rng.next_f64() * 120.0, rng.next_f64() * 60.0],
                radius: 0.3 + rng.next_f64() * 2.0,
            })
            .collect();
        let grid = Grid::new(&circles, 0.0);
        let mut whole = 0;
        for round in 0..400 {
            let a = [rng.next_f64() * 160.0 - 20.0, rng.next_f64() * 100.0 - 20.0];
            let b = if round % 10 == 0 { a } else { [rng.next_f64() * 160.0 - 20.0, rng.next_f64() * 100.0 - 20.0] };
            let focal = (b[0] - a[0]).hypot(b[1] - a[1]);
            let sum = focal * (1.0 + rng.next_f64() * if round % 7 == 0 { 3.0 } else { 0.2 }) + rng.next_f64() * 5.0;
            let mut seen = vec![false; circles.len()];
            let every = grid.visit_ellipse(a, b, sum, |i| seen[i as usize] = true);
            for (i, c) in circles.iter().enumerate() {
                let d = (c.center[0] - a[0]).hypot(c.center[1] - a[1]) + (c.center[0] - b[0]).hypot(c.center[1] - b[1]);
                if d <= sum {
                    assert!(seen[i], "round {round}: circle {i} inside the ellipse was not visited");
                }
            }
            if every {
                whole += 1;
                assert!(seen.iter().all(|&s| s), "round {round}: every cell reported but a circle was missed");
            }
        }
        assert!(whole > 5, "the whole grid was covered only {whole} times");
    }
}
