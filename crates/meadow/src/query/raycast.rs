//! Raycasts: walk the mesh along a segment (in XZ) through portals until the end or a wall.

use super::{xz, Location, QueryError, QueryMesh, NONE};
use crate::geom::{orient2d, Point2};

/// The first wall a raycast hits.
#[derive(Clone, Copy, Debug, PartialEq)]
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
pub struct RaycastResult {
    /// The first wall hit, or `None` when the segment reaches its end on the mesh.
    pub hit: Option<WallHit>,
    /// The last polygon visited (holding the end point when nothing was hit).
    pub last_polygon: u32,
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
    pub fn raycast(&self, start: [f64; 3], end: [f64; 3], visited: &mut Vec<u32>) -> Result<RaycastResult, QueryError> {
        visited.clear();
        if !super::finite3(end) {
            return Err(QueryError::NonFiniteInput);
        }
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
    pub(crate) fn walk_segment(
        &self,
        mut poly: u32,
        ps: Point2,
        pe: Point2,
        mut crossed: impl FnMut(usize),
    ) -> WalkEnd {
        let mut entry = NONE as usize;
        let mut t_cur = 0.0f64;
        // Each step moves on along the segment (t never decreases); the only way to revisit a
        // polygon is rounding around a vertex the segment passes through, so a generous cap
        // turns any numeric loop into an error rather than a hang.
        let limit = 4 * self.mesh.polygon_count() + 16;
        for _ in 0..limit {
            let first = self.poly_first(poly);
            let exit = self.exit_edge(poly, entry, ps, pe, t_cur, false);
            let Some((mut t, mut k)) = exit else {
                return WalkEnd::Clear(poly);
            };
            // Collinear vertices (merged flat and sloped polygons keep them) put several edges on
            // one line, where the smallest `t` ties or is decided by rounding: the exit edge is
            // the one whose extent the segment's line actually crosses.
            if !self.line_crosses_edge(poly, k, ps, pe) {
                if let Some((t2, k2)) = self.exit_edge(poly, entry, ps, pe, t_cur, true) {
                    (t, k) = (t2, k2);
                }
            }
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

    /// Whether the line through `ps -> pe` meets edge `k` of `poly` (exactly, endpoints included).
    fn line_crosses_edge(&self, poly: u32, k: usize, ps: Point2, pe: Point2) -> bool {
        let (a, b) = (xz(self.poly_vertex(poly, k)), xz(self.poly_vertex(poly, k + 1)));
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
            let (a, b) = (xz(self.poly_vertex(poly, k)), xz(self.poly_vertex(poly, k + 1)));
            let oe = orient2d(a, b, pe);
            if oe >= 0.0 {
                continue;
            }
            let os = orient2d(a, b, ps);
            let t = if os > 0.0 { os / (os - oe) } else { 0.0 };
            let t = t.max(t_cur).min(1.0);
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
