//! Point location: a uniform grid over polygon bounding boxes, surface heights, nearest points.
//!
//! The grid is built when a [`QueryMesh`] is created rather than stored in the asset: it is
//! derived data (storing it would mean validating it on load as well), it takes one linear pass
//! to build, and baked polygons have similar sizes, so a uniform grid with about one cell per
//! polygon finds the few candidates under a point in expected constant time. A polygon is
//! listed only in the cells it really overlaps, not every cell of its bounding box, so the long
//! thin triangles of open floors do not crowd the lists.

use super::{check_input, finite3, xz, Location, QueryError, QueryMesh};
use crate::geom::{orient2d, Point2};
use crate::point::IntoPoint;
use crate::tolerance::{LOCATE_MARGIN_CELLS, LOCATE_MARGIN_REL};

/// A uniform grid over the XZ bounds of the mesh; each cell lists the polygons that overlap it
/// (compressed sparse rows).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LocateIndex {
    origin: Point2,
    /// The far corner of the bounds (kept exactly rather than recomputed from the cell size).
    far: Point2,
    cell_size: Point2,
    cols: usize,
    rows: usize,
    /// `cell_start[c] .. cell_start[c + 1]` indexes `cell_polygons` for cell `c = row * cols + col`.
    cell_start: Vec<u32>,
    cell_polygons: Vec<u32>,
}

impl LocateIndex {
    /// Builds the grid from per-polygon XZ bounds `[min_x, min_z, max_x, max_z]` and outlines
    /// (`outline(i, ring)` fills `ring` with polygon `i`'s counter-clockwise XZ vertices).
    pub(crate) fn build(bounds: &[[f64; 4]], mut outline: impl FnMut(usize, &mut Vec<Point2>)) -> LocateIndex {
        let n = bounds.len();
        if n == 0 {
            return LocateIndex::default();
        }
        let mut lo = [f64::INFINITY; 2];
        let mut hi = [f64::NEG_INFINITY; 2];
        for b in bounds {
            lo = [lo[0].min(b[0]), lo[1].min(b[1])];
            hi = [hi[0].max(b[2]), hi[1].max(b[3])];
        }
        let w = (hi[0] - lo[0]).max(f64::MIN_POSITIVE);
        let h = (hi[1] - lo[1]).max(f64::MIN_POSITIVE);
        // About one cell per polygon, cells roughly square; dimensions clamped so the grid
        // stays within 4n cells whatever the aspect ratio.
        let max_cells = 16 * n + 4;
        let side = (w * h / (4 * n) as f64).sqrt();
        let clamp_dim = |v: f64| -> usize {
            if v.is_finite() {
                (v.ceil() as usize).clamp(1, max_cells)
            } else {
                1
            }
        };
        let mut cols = clamp_dim(w / side);
        let mut rows = clamp_dim(h / side);
        while cols * rows > max_cells {
            if cols >= rows {
                cols = cols.div_ceil(2);
            } else {
                rows = rows.div_ceil(2);
            }
        }
        // Long thin polygons (diagonal strips) can each cover a whole row of cells; coarsen the
        // grid until the cell lists stay linear in the polygon count.
        let budget = 32 * n + 64;
        loop {
            let cell_size = [w / cols as f64, h / rows as f64];
            let coord = |v: f64, axis: usize, dim: usize| -> usize {
                let t = ((v - lo[axis]) / cell_size[axis]).floor();
                if t.is_nan() || t < 0.0 {
                    0
                } else {
                    (t as usize).min(dim - 1)
                }
            };
            let entries: usize = bounds
                .iter()
                .map(|b| {
                    let dc = coord(b[2], 0, cols) - coord(b[0], 0, cols) + 1;
                    let dr = coord(b[3], 1, rows) - coord(b[1], 1, rows) + 1;
                    dc * dr
                })
                .sum();
            if entries <= budget || cols * rows == 1 {
                break;
            }
            cols = cols.div_ceil(2);
            rows = rows.div_ceil(2);
        }
        let mut index = LocateIndex {
            origin: lo,
            far: hi,
            cell_size: [w / cols as f64, h / rows as f64],
            cols,
            rows,
            cell_start: vec![0; cols * rows + 1],
            cell_polygons: Vec::new(),
        };
        // Counting pass, prefix sums, then fill: polygons appear in index order in every cell.
        let mut ring = Vec::new();
        let mut cells: Vec<(u32, u32)> = Vec::new();
        for (pi, b) in bounds.iter().enumerate() {
            ring.clear();
            outline(pi, &mut ring);
            let (c0, r0, c1, r1) = index.cell_range(b);
            for r in r0..=r1 {
                for c in c0..=c1 {
                    if index.cell_overlaps(c, r, &ring) {
                        index.cell_start[r * cols + c + 1] += 1;
                        cells.push((pi as u32, (r * cols + c) as u32));
                    }
                }
            }
        }
        for i in 0..cols * rows {
            index.cell_start[i + 1] += index.cell_start[i];
        }
        let mut fill: Vec<u32> = index.cell_start[..cols * rows].to_vec();
        index.cell_polygons = vec![0; index.cell_start[cols * rows] as usize];
        for (pi, cell) in cells {
            let slot = &mut fill[cell as usize];
            index.cell_polygons[*slot as usize] = pi;
            *slot += 1;
        }
        index
    }

    /// The grid of a carved mesh (see [`super::mesh::Derivation`]), `self` being the grid of
    /// the previous one (or of the base mesh) and `base` the base mesh's: the base grid's
    /// cells, each listing, per base polygon in it, the previous entries renumbered when the
    /// polygon did not change, else its new polygons that meet the cell (`outline` as in
    /// [`LocateIndex::build`], for the carved mesh's polygons). A base polygon's replacements
    /// lie within it, so every cell they meet is one of its cells.
    pub(crate) fn derive(
        &self,
        base: &LocateIndex,
        how: &super::mesh::Derivation<'_>,
        mut outline: impl FnMut(usize, &mut Vec<Point2>),
    ) -> LocateIndex {
        let mut index = LocateIndex {
            origin: base.origin,
            far: base.far,
            cell_size: base.cell_size,
            cols: base.cols,
            rows: base.rows,
            cell_start: Vec::with_capacity(base.cell_start.len()),
            cell_polygons: Vec::with_capacity(self.cell_polygons.len() + 64),
        };
        if base.cell_start.is_empty() {
            return index;
        }
        let (before, after) = (how.before, how.after);
        let mut ring = Vec::new();
        index.cell_start.push(0);
        for cell in 0..base.cols * base.rows {
            let (col, row) = (cell % base.cols, cell / base.cols);
            let prev = &self.cell_polygons[self.cell_start[cell] as usize..self.cell_start[cell + 1] as usize];
            let mut j = 0;
            for &p in &base.cell_polygons[base.cell_start[cell] as usize..base.cell_start[cell + 1] as usize] {
                let p = p as usize;
                if how.changed[p] {
                    for q in after[p]..after[p + 1] {
                        ring.clear();
                        outline(q as usize, &mut ring);
                        if index.cell_overlaps(col, row, &ring) {
                            index.cell_polygons.push(q);
                        }
                    }
                    continue;
                }
                // Both lists are in polygon order, which follows the base polygons' order.
                while j < prev.len() && prev[j] < before[p] {
                    j += 1;
                }
                while j < prev.len() && prev[j] < before[p + 1] {
                    index.cell_polygons.push(after[p] + (prev[j] - before[p]));
                    j += 1;
                }
            }
            index.cell_start.push(index.cell_polygons.len() as u32);
        }
        index
    }

    /// Whether cell `(col, row)`, grown by a rounding margin, meets the convex counter-clockwise
    /// `ring`: false only when one ring edge has the whole grown cell strictly on its outer
    /// side, so a polygon containing any point that `cell_coord` maps to the cell is kept.
    fn cell_overlaps(&self, col: usize, row: usize, ring: &[Point2]) -> bool {
        let margin = |axis: usize| {
            let span = self.far[axis] - self.origin[axis];
            LOCATE_MARGIN_REL * (self.origin[axis].abs() + self.far[axis].abs() + span)
                + LOCATE_MARGIN_CELLS * self.cell_size[axis]
        };
        let (mx, mz) = (margin(0), margin(1));
        let x0 = self.origin[0] + col as f64 * self.cell_size[0] - mx;
        let z0 = self.origin[1] + row as f64 * self.cell_size[1] - mz;
        let mut x1 = self.origin[0] + (col + 1) as f64 * self.cell_size[0] + mx;
        let mut z1 = self.origin[1] + (row + 1) as f64 * self.cell_size[1] + mz;
        // The last column and row reach the far corner (points beyond it clamp into them).
        if col + 1 == self.cols {
            x1 = x1.max(self.far[0] + mx);
        }
        if row + 1 == self.rows {
            z1 = z1.max(self.far[1] + mz);
        }
        let corners = [[x0, z0], [x1, z0], [x1, z1], [x0, z1]];
        let n = ring.len();
        !(0..n).any(|k| {
            let (a, b) = (ring[k], ring[(k + 1) % n]);
            corners.iter().all(|&c| orient2d(a, b, c) < 0.0)
        })
    }

    fn cell_coord(&self, v: f64, axis: usize) -> usize {
        let dim = if axis == 0 { self.cols } else { self.rows };
        // Truncation is the floor for the non-negative quotients, and the saturating conversion
        // sends negative ones and NaN to 0 (a libm `floor` call cost more than the cell lookup).
        let t = (v - self.origin[axis]) / self.cell_size[axis];
        (t as usize).min(dim - 1)
    }

    /// Inclusive cell range `(col0, row0, col1, row1)` of an XZ box (clamped to the grid).
    fn cell_range(&self, b: &[f64; 4]) -> (usize, usize, usize, usize) {
        (self.cell_coord(b[0], 0), self.cell_coord(b[1], 1), self.cell_coord(b[2], 0), self.cell_coord(b[3], 1))
    }

    /// Whether an XZ box misses the grid's bounds entirely.
    fn misses(&self, b: &[f64; 4]) -> bool {
        self.cols == 0 || b[2] < self.origin[0] || b[3] < self.origin[1] || b[0] > self.far[0] || b[1] > self.far[1]
    }

    /// Total length of the cell lists (a polygon counts once per cell it overlaps).
    pub fn entry_count(&self) -> usize {
        self.cell_polygons.len()
    }

    /// Heap bytes held by the grid's cell lists.
    pub fn heap_bytes(&self) -> usize {
        (self.cell_start.capacity() + self.cell_polygons.capacity()) * std::mem::size_of::<u32>()
    }

    /// Grid dimensions `(columns, rows)`.
    pub fn dimensions(&self) -> (usize, usize) {
        (self.cols, self.rows)
    }

    /// Calls `f` for every polygon that may overlap the XZ box: those listed in the cells it
    /// spans (a polygon may be reported more than once when the box spans several cells).
    pub(crate) fn for_each_candidate(&self, b: &[f64; 4], mut f: impl FnMut(u32)) {
        if self.misses(b) {
            return;
        }
        let (c0, r0, c1, r1) = self.cell_range(b);
        for r in r0..=r1 {
            for c in c0..=c1 {
                let cell = r * self.cols + c;
                let range = self.cell_start[cell] as usize..self.cell_start[cell + 1] as usize;
                for &p in &self.cell_polygons[range] {
                    f(p);
                }
            }
        }
    }
}

impl QueryMesh {
    /// Height of polygon `poly`'s surface above the XZ point `p` (fan interpolation from vertex 0).
    /// For a point outside the polygon, the height at the nearest boundary point. Panics when
    /// `poly` is out of range, like [`NavMesh::polygon`](crate::NavMesh::polygon).
    pub fn surface_height(&self, poly: u32, p: Point2) -> f64 {
        // A level polygon (most floors) is its own height everywhere, with no rounding.
        let [low, high] = self.poly_heights[poly as usize];
        if low == high {
            return low;
        }
        let edges = self.poly_edges(poly);
        let v0 = edges[0][0];
        // Fan triangle (v0, v1, v2) for each edge v1 -> v2 not touching v0.
        for &[v1, v2] in edges.iter().take(edges.len() - 1).skip(1) {
            let (a, b, c) = (xz(v0), xz(v1), xz(v2));
            let area = orient2d(a, b, c);
            if area <= 0.0 {
                continue; // collinear vertices make empty fan triangles
            }
            let wa = orient2d(b, c, p);
            let wb = orient2d(c, a, p);
            let wc = orient2d(a, b, p);
            if wa >= 0.0 && wb >= 0.0 && wc >= 0.0 {
                return (wa * v0[1] + wb * v1[1] + wc * v2[1]) / area;
            }
        }
        let (q, _) = self.closest_boundary_point(poly, p);
        q[1]
    }

    /// The point of polygon `poly`'s boundary nearest the XZ point `p` (3D, height interpolated
    /// along the edge) and its XZ distance.
    fn closest_boundary_point(&self, poly: u32, p: Point2) -> ([f64; 3], f64) {
        let edges = self.poly_edges(poly);
        let mut best = (edges[0][0], f64::INFINITY);
        for &[a, b] in edges {
            let ab = [b[0] - a[0], b[2] - a[2]];
            let ap = [p[0] - a[0], p[1] - a[2]];
            let len2 = ab[0] * ab[0] + ab[1] * ab[1];
            let t = if len2 > 0.0 { ((ap[0] * ab[0] + ap[1] * ab[1]) / len2).clamp(0.0, 1.0) } else { 0.0 };
            let q = [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
            let d = super::dist2(xz(q), p);
            if d < best.1 {
                best = (q, d);
            }
        }
        best
    }

    /// The point of polygon `poly` nearest the XZ point `p` (on its surface). Panics when `poly`
    /// is out of range, like [`NavMesh::polygon`](crate::NavMesh::polygon).
    pub fn closest_point_on_polygon(&self, poly: u32, p: Point2) -> [f64; 3] {
        if self.polygon_contains(poly, p) {
            [p[0], self.surface_height(poly, p), p[1]]
        } else {
            self.closest_boundary_point(poly, p).0
        }
    }

    /// The polygon under a 3D point: among the polygons containing `(x, z)`, the one whose surface
    /// is nearest at or below `y` (no more than the agent height below), else the nearest one
    /// above it by at most the agent's climb height. The returned point is snapped to that
    /// surface.
    pub fn locate(&self, p: impl IntoPoint) -> Result<Location, QueryError> {
        let p = p.into_point();
        check_input(p)?;
        let settings = self.mesh.settings();
        let (below, above) = (settings.height, settings.max_climb);
        let q = xz(p);
        // (height, polygon) of the best surface at/below and above the point.
        let mut best_below: Option<(f64, u32)> = None;
        let mut best_above: Option<(f64, u32)> = None;
        let mut consider = |poly: u32| {
            let b = self.poly_bounds[poly as usize];
            let hr = self.poly_heights[poly as usize];
            if q[0] < b[0] || q[0] > b[2] || q[1] < b[1] || q[1] > b[3] {
                return;
            }
            if hr[1] < p[1] - below || hr[0] > p[1] + above || !self.polygon_contains(poly, q) {
                return;
            }
            let h = self.surface_height(poly, q);
            if h <= p[1] {
                if p[1] - h <= below && best_below.is_none_or(|(bh, bp)| h > bh || (h == bh && poly < bp)) {
                    best_below = Some((h, poly));
                }
            } else if h - p[1] <= above && best_above.is_none_or(|(bh, bp)| h < bh || (h == bh && poly < bp)) {
                best_above = Some((h, poly));
            }
        };
        let answered = match &self.trap_locator {
            Some(maps) => maps.for_each_candidate(p, below, above, &mut consider),
            None => false,
        };
        if !answered {
            self.index.for_each_candidate(&[q[0], q[1], q[0], q[1]], consider);
        }
        match best_below.or(best_above) {
            Some((h, poly)) => Ok(Location { polygon: poly, point: [p[0], h, p[2]] }),
            None => Err(QueryError::OffMesh),
        }
    }

    /// The nearest point on the mesh (3D distance) within the box `p ± extents`, and its polygon.
    pub fn nearest_point(&self, p: impl IntoPoint, extents: [f64; 3]) -> Result<Location, QueryError> {
        let p = p.into_point();
        if !finite3(extents) {
            return Err(QueryError::NonFiniteInput);
        }
        check_input(p)?;
        let e = [extents[0].abs(), extents[1].abs(), extents[2].abs()];
        let bx = [p[0] - e[0], p[2] - e[2], p[0] + e[0], p[2] + e[2]];
        let mut best: Option<(f64, u32, [f64; 3])> = None;
        self.index.for_each_candidate(&bx, |poly| {
            let b = self.poly_bounds[poly as usize];
            let hr = self.poly_heights[poly as usize];
            if b[2] < bx[0] || b[0] > bx[2] || b[3] < bx[1] || b[1] > bx[3] {
                return;
            }
            if hr[1] < p[1] - e[1] || hr[0] > p[1] + e[1] {
                return;
            }
            let c = self.closest_point_on_polygon(poly, xz(p));
            let inside = (c[0] - p[0]).abs() <= e[0] && (c[1] - p[1]).abs() <= e[1] && (c[2] - p[2]).abs() <= e[2];
            if !inside {
                return;
            }
            let d = super::dist3(c, p);
            if best.is_none_or(|(bd, bp, _)| d < bd || (d == bd && poly < bp)) {
                best = Some((d, poly, c));
            }
        });
        match best {
            Some((_, polygon, point)) => Ok(Location { polygon, point }),
            None => Err(QueryError::OffMesh),
        }
    }
}
