//! Raycasts: walk the mesh along a segment (in XZ) through portals until the end or a wall.

use super::{xz, Location, QueryError, QueryMesh, NONE};
use crate::geom::{orient2d, Point2};
use crate::point::IntoPoint;

/// The first wall a raycast hits.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct WallHit {
    /// Fraction of the segment travelled before the hit, in `[0, 1]`.
    pub t: f64,
    /// The hit point `[x, y, z]` on the wall edge (height on the surface).
    pub point: [f64; 3],
    /// Unit normal of the wall in XZ (`y = 0`), pointing into the walkable side.
    pub normal: [f64; 3],
    /// The polygon whose edge was hit.
    pub polygon: u32,
    /// The index of the hit edge within that polygon.
    pub edge: u8,
}

/// The outcome of a raycast.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct RaycastResult {
    /// The first wall hit, or `None` when the segment reaches its end on the mesh.
    pub hit: Option<WallHit>,
    /// The last polygon visited (holding the end point when nothing was hit).
    pub last_polygon: u32,
}

/// What the vertex sides of a polygon tell a walk (see `QueryMesh::exit_by_sides`).
enum BySides {
    /// It leaves through this edge (or ends in the polygon, if the end point is not past it).
    Exit(usize),
    /// The end point is one of the polygon's vertices: the walk ends here.
    EndVertex,
    /// A vertex lies on the segment's line: the edge-by-edge test decides.
    Unsure,
}

/// How a walk along a segment ended.
pub(crate) enum WalkEnd {
    /// The end point lies in this polygon.
    Clear(u32),
    /// A wall was hit: polygon, edge index, and segment parameter.
    Hit(u32, usize, f64),
    /// The step limit was reached (degenerate geometry).
    Limit,
}

impl QueryMesh {
    /// Casts the segment `start -> end` (in XZ, starting on the polygon under `start`) across
    /// portals until it reaches `end` or hits a wall. The polygons walked through are written to
    /// `visited` in order (the buffer is cleared first and reused).
    pub fn raycast(
        &self,
        start: impl IntoPoint,
        end: impl IntoPoint,
        visited: &mut Vec<u32>,
    ) -> Result<RaycastResult, QueryError> {
        let (start, end) = (start.into_point(), end.into_point());
        visited.clear();
        super::check_input(end)?;
        let located = self.locate(start)?;
        let (ps, pe) = (xz(start), xz(end));
        visited.push(located.polygon);
        let walk = self.walk_segment(located.polygon, ps, pe, |h| {
            if let Some(q) = self.edge_neighbour(h) {
                visited.push(q);
            }
        });
        match walk {
            WalkEnd::Clear(poly) => Ok(RaycastResult { hit: None, last_polygon: poly }),
            WalkEnd::Hit(poly, k, t) => {
                let p = [ps[0] + (pe[0] - ps[0]) * t, ps[1] + (pe[1] - ps[1]) * t];
                let (a, b) = (self.poly_vertex(poly, k), self.poly_vertex(poly, k + 1));
                let d = [b[0] - a[0], b[2] - a[2]];
                let len = (d[0] * d[0] + d[1] * d[1]).sqrt();
                // The interior is on the left of a -> b: the left normal (-dz, dx).
                let normal = if len > 0.0 { [-d[1] / len, 0.0, d[0] / len] } else { [0.0; 3] };
                let point = [p[0], self.surface_height(poly, p), p[1]];
                let hit = WallHit { t, point, normal, polygon: poly, edge: k as u8 };
                Ok(RaycastResult { hit: Some(hit), last_polygon: poly })
            }
            WalkEnd::Limit => Err(QueryError::WalkLimit),
        }
    }

    /// Whether the segment from `start` to `goal` walks the mesh without meeting a wall and ends
    /// in the goal's polygon, calling `crossed` with each portal half-edge it leaves through.
    pub(crate) fn walk_reaches(&self, start: &Location, goal: &Location, crossed: impl FnMut(usize)) -> bool {
        let end = self.walk_segment(start.polygon, xz(start.point), xz(goal.point), crossed);
        matches!(end, WalkEnd::Clear(poly) if poly == goal.polygon)
    }

    /// Walks from polygon `poly` (which holds `ps`) along `ps -> pe`, calling `crossed` with each
    /// portal half-edge it leaves through.
    pub(crate) fn walk_segment(&self, poly: u32, ps: Point2, pe: Point2, crossed: impl FnMut(usize)) -> WalkEnd {
        self.walk_segment_with(poly, ps, pe, crossed, true)
    }

    /// [`Self::walk_segment`]; `by_sides` picks the exit edge from the sides of the polygon's
    /// vertices relative to the segment's line (reusing the two known from the entry edge) while
    /// the line passes strictly between vertices, and falls back to [`Self::exit_edge`] when one
    /// lies on it. Without it every step uses `exit_edge` (the tests compare the two).
    pub(crate) fn walk_segment_with(
        &self,
        mut poly: u32,
        ps: Point2,
        pe: Point2,
        mut crossed: impl FnMut(usize),
        by_sides: bool,
    ) -> WalkEnd {
        let mut entry = NONE as usize;
        // Whether the entry edge's start vertex is known to lie strictly right of the line
        // (the previous exit was found by sides): then the scan can start after it.
        let mut strict_entry = false;
        let mut t_cur = 0.0f64;
        // Each step moves on along the segment (t never decreases); the only way to revisit a
        // polygon is rounding around a vertex the segment passes through, so a generous cap
        // turns any numeric loop into an error rather than a hang.
        let limit = 4 * self.mesh.polygon_count() + 16;
        for _ in 0..limit {
            let first = self.poly_first(poly);
            let by_side =
                if by_sides { self.exit_by_sides(poly, entry, strict_entry, ps, pe) } else { BySides::Unsure };
            strict_entry = matches!(by_side, BySides::Exit(_));
            let exit = match by_side {
                // The end point is a vertex of this polygon, so no edge has it strictly outside.
                BySides::EndVertex => None,
                // Leaving through edge k, unless the end point lies before its line.
                BySides::Exit(k) => self.leave_at(first + k, ps, pe, t_cur).map(|t| (t, k)),
                BySides::Unsure => self.exit_edge(poly, entry, ps, pe, t_cur, false).map(|(t, k)| {
                    // Collinear vertices (merged flat and sloped polygons keep them) put several
                    // edges on one line, where the smallest `t` ties or is decided by rounding:
                    // the exit edge is the one whose extent the segment's line actually crosses.
                    if self.line_crosses_edge(poly, k, ps, pe) {
                        (t, k)
                    } else {
                        self.exit_edge(poly, entry, ps, pe, t_cur, true).unwrap_or((t, k))
                    }
                }),
            };
            let Some((t, k)) = exit else {
                return WalkEnd::Clear(poly);
            };
            let h = first + k;
            match self.edge_neighbour(h) {
                Some(next) => {
                    crossed(h);
                    t_cur = t;
                    entry = self.half_edges[h].twin as usize;
                    poly = next;
                }
                None => return WalkEnd::Hit(poly, k, t),
            }
        }
        WalkEnd::Limit
    }

    /// The edge of `poly` through which the line `ps -> pe` leaves it, when that is decided by
    /// strict signs: the edge from a vertex strictly right of the line to one strictly left
    /// (counter-clockwise polygons have exactly one such edge where the line passes through
    /// their interior and no vertex lies on it). [`BySides::Unsure`] when a vertex on the line or
    /// no such edge leaves it to [`Self::exit_edge`].
    #[inline]
    fn exit_by_sides(&self, poly: u32, entry: usize, strict_entry: bool, ps: Point2, pe: Point2) -> BySides {
        let first = self.poly_first(poly);
        let n = self.poly_len(poly);
        let vertex = |k: usize| xz(self.edge_endpoints(first + k % n).0);
        let side = |k: usize| orient2d(ps, pe, vertex(k));
        let on_line = |k: usize| if vertex(k) == pe { BySides::EndVertex } else { BySides::Unsure };
        if strict_entry && entry >= first && entry < first + n {
            // The entry edge runs left -> right (it was the last polygon's exit, reversed), so
            // its end vertex is strictly right: scan on from there to the first vertex not right.
            let ke = entry - first;
            for j in ke + 2..ke + n {
                let s = side(j);
                if s > 0.0 {
                    return BySides::Exit((j - 1) % n);
                }
                if s == 0.0 {
                    return on_line(j);
                }
            }
            // Every vertex but the entry edge's start is strictly right: the line leaves through
            // the edge that ends at that start.
            return BySides::Exit((ke + n - 1) % n);
        }
        let mut prev = side(n - 1);
        for k in 0..n {
            let s = side(k);
            if s == 0.0 {
                return on_line(k);
            }
            if prev < 0.0 && s > 0.0 {
                let exit = (k + n - 1) % n;
                return if first + exit != entry { BySides::Exit(exit) } else { BySides::Unsure };
            }
            prev = s;
        }
        BySides::Unsure
    }

    /// Where the segment `ps -> pe` leaves its polygon through half-edge `h`'s line, as a
    /// segment parameter no smaller than `t_cur`; `None` when `pe` is not strictly outside it.
    #[inline]
    fn leave_at(&self, h: usize, ps: Point2, pe: Point2, t_cur: f64) -> Option<f64> {
        let (a, b) = self.edge_endpoints(h);
        let (a, b) = (xz(a), xz(b));
        let oe = orient2d(a, b, pe);
        if oe >= 0.0 {
            return None;
        }
        let os = orient2d(a, b, ps);
        let t = if os > 0.0 { os / (os - oe) } else { 0.0 };
        Some(t.max(t_cur).min(1.0))
    }

    /// Whether the line through `ps -> pe` meets edge `k` of `poly` (exactly, endpoints included).
    fn line_crosses_edge(&self, poly: u32, k: usize, ps: Point2, pe: Point2) -> bool {
        let (a, b) = self.edge_endpoints(self.poly_first(poly) + k);
        let (a, b) = (xz(a), xz(b));
        let (oa, ob) = (orient2d(ps, pe, a), orient2d(ps, pe, b));
        !((oa > 0.0 && ob > 0.0) || (oa < 0.0 && ob < 0.0))
    }

    /// The edge of `poly` (other than `entry`) through which the segment `ps -> pe` leaves it,
    /// with its segment parameter: the edge with `pe` strictly outside that is met first, and
    /// when `crossing` is set, only among edges whose extent the segment's line meets.
    fn exit_edge(
        &self,
        poly: u32,
        entry: usize,
        ps: Point2,
        pe: Point2,
        t_cur: f64,
        crossing: bool,
    ) -> Option<(f64, usize)> {
        let first = self.poly_first(poly);
        // (t, edge, is_wall) of the exit edge.
        let mut exit: Option<(f64, usize, bool)> = None;
        for k in 0..self.poly_len(poly) {
            if first + k == entry || (crossing && !self.line_crosses_edge(poly, k, ps, pe)) {
                continue;
            }
            let Some(t) = self.leave_at(first + k, ps, pe, t_cur) else { continue };
            let wall = self.edge_neighbour(first + k).is_none();
            // On ties (the segment leaves through a vertex) prefer the portal: grazing a wall's
            // end is not a hit.
            if exit.is_none_or(|(bt, _, bwall)| t < bt || (t == bt && bwall && !wall)) {
                exit = Some((t, k, wall));
            }
        }
        exit.map(|(t, k, _)| (t, k))
    }
}
