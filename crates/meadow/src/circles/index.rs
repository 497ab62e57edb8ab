//! Uniform grid over the circles: line-of-sight tests visit only the cells a segment passes
//! through, and searches for circles near a path visit the cells of an ellipse.

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
        let minor = ((major - focal) * (major + focal)).sqrt();
        let (ux, uy) = if focal > 0.0 { (dx / (2.0 * focal), dy / (2.0 * focal)) } else { (1.0, 0.0) };
        // Half-extents of the ellipse's bounding box, padded against rounding.
        let pad = self.cell * 1e-9 + sum.abs() * 1e-12;
        let ex = (major * ux).hypot(minor * uy) + pad;
        let ey = (major * uy).hypot(minor * ux) + pad;
        let mid = [0.5 * (a[0] + b[0]), 0.5 * (a[1] + b[1])];
        let (c0, c1) = (self.column_of(mid[0] - ex), self.column_of(mid[0] + ex));
        let (r0, r1) = (self.row_of(mid[1] - ey), self.row_of(mid[1] + ey));
        let (columns, rows) = (self.columns as i64, self.rows as i64);
        let mut every = c0 <= 0 && r0 <= 0 && c1 >= columns - 1 && r1 >= rows - 1;
        let (c0, c1, r0, r1) = (c0.max(0), c1.min(columns - 1), r0.max(0), r1.min(rows - 1));
        if c0 > c1 || r0 > r1 {
            return false;
        }
        // Distance from `p` to the padded box of a cell, per axis.
        let gap = |p: f64, lo: f64| (lo - pad - p).max(p - (lo + self.cell + pad)).max(0.0);
        for row in r0..=r1 {
            let y = self.origin[1] + row as f64 * self.cell;
            let (ga, gb) = (gap(a[1], y), gap(b[1], y));
            for column in c0..=c1 {
                let x = self.origin[0] + column as f64 * self.cell;
                let (xa, xb) = (gap(a[0], x), gap(b[0], x));
                let da = (xa * xa + ga * ga).sqrt();
                let db = (xb * xb + gb * gb).sqrt();
                if da + db <= sum {
                    self.cell_items(column as usize, row as usize).iter().for_each(|&i| visit(i));
                } else {
                    every = false;
                }
            }
        }
        every
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
    fn ellipse_visits_every_centre_inside() {
        let mut rng = Rng(4242);
        let circles: Vec<Circle> = (0..300)
            .map(|_| Circle { center: [rng.next() * 120.0, rng.next() * 60.0], radius: 0.3 + rng.next() * 2.0 })
            .collect();
        let grid = Grid::new(&circles, 0.0);
        let mut whole = 0;
        for round in 0..400 {
            let a = [rng.next() * 160.0 - 20.0, rng.next() * 100.0 - 20.0];
            let b = if round % 10 == 0 { a } else { [rng.next() * 160.0 - 20.0, rng.next() * 100.0 - 20.0] };
            let focal = (b[0] - a[0]).hypot(b[1] - a[1]);
            let sum = focal * (1.0 + rng.next() * if round % 7 == 0 { 3.0 } else { 0.2 }) + rng.next() * 5.0;
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
