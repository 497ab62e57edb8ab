//! Search-free string-pulled answers: the straight segment when the start sees the goal through
//! least-cost polygons, and the taut string round one island whose convex hull certifies it
//! (see the `obstacles` module). Both fill the corridor and the points the search would have
//! reduced to the same path.

use super::PathQuery;
use crate::geom::{orient2d, orient2d_certain_sign, Point2};
use crate::query::raycast::WalkEnd;
use crate::query::{dist2, funnel, xz, Location, QueryMesh};

/// What the straight walk from the start to the goal found (see
/// [`PathQuery::straight_corridor`]).
pub(super) enum Straight {
    /// The straight segment is the path (its string is pulled).
    Pulled,
    /// The walk hit wall `k` of this polygon, the start polygon's cost being the least.
    HitWall(u32, usize),
    /// The search decides.
    Searched,
}

impl PathQuery {
    /// When the segment from the start to the goal walks the mesh without meeting a wall, and
    /// only through polygons of the least cost ([`Self::costs_least`]), fills `self.edges` with
    /// the portals it crosses and `self.points_alt` with the string, and returns
    /// [`Straight::Pulled`]; when the walk hits a wall from a least-cost start, which wall
    /// ([`Straight::HitWall`], for [`Self::round_one_island`]). The straight segment is then the optimal path, and what the
    /// shortcut pass would reduce an A* corridor to, so the search is skipped. (The outputs can
    /// differ only where the segment passes exactly through a mesh vertex, in which polygons
    /// the corridor lists there, or where the A* path bends by less than the shortcut pass's
    /// `tolerance::SHORTCUT_MIN_GAIN` relative threshold.)
    pub(super) fn straight_corridor(&mut self, mesh: &QueryMesh, start: &Location, goal: &Location) -> Straight {
        if !self.costs_least(mesh, start.polygon) {
            return Straight::Searched;
        }
        self.edges.clear();
        let edges = &mut self.edges;
        let (ps, pg) = (xz(start.point), xz(goal.point));
        let clear = match mesh.walk_segment(start.polygon, ps, pg, |h| edges.push(h as u32)) {
            WalkEnd::Clear(poly) => poly == goal.polygon,
            WalkEnd::Hit(poly, k, _) => {
                self.edges.clear();
                return Straight::HitWall(poly, k);
            }
            WalkEnd::Limit => false,
        };
        if clear && self.crosses_only_least_cost(mesh) {
            // The walk's corridor must also hold the segment for the funnel (sliver polygons a
            // grid unit wide can make the two disagree); otherwise the search decides. When
            // every portal's ends lie strictly on their sides of the segment (certified in
            // float), the segment crosses each portal inside it and the funnel is not run (it
            // can turn needlessly when its apex, the start, lies on the first portal).
            let (s, g) = (xz(start.point), xz(goal.point));
            let strictly_through = self.edges.iter().all(|&h| {
                let (right, left) = mesh.edge_endpoints(h as usize);
                orient2d_certain_sign(s, g, xz(left)) > 0 && orient2d_certain_sign(s, g, xz(right)) < 0
            });
            if strictly_through {
                self.points_alt.clear();
                self.points_alt.extend_from_slice(&[start.point, goal.point]);
                return Straight::Pulled;
            }
            self.build_portals(mesh, true);
            funnel::string_pull(
                start.point,
                goal.point,
                &self.portals,
                &mut self.points_alt,
                &mut self.corner_alt,
                &mut self.funnel,
            );
            if self.points_alt.len() == 2 {
                return Straight::Pulled;
            }
        }
        self.edges.clear();
        Straight::Searched
    }

    /// Whether polygon `poly`'s area has the least cost the filter gives any area (areas no
    /// polygon uses included, which only makes the answers that need it rarer).
    fn costs_least(&self, mesh: &QueryMesh, poly: u32) -> bool {
        let cheapest = self.area_costs.iter().copied().filter(|&c| c >= 0.0).fold(f64::INFINITY, f64::min);
        self.area_costs[mesh.mesh().data().polygons[poly as usize].area as usize] == cheapest
    }

    /// Whether every polygon entered across the portals in `self.edges` has the least cost.
    fn crosses_only_least_cost(&self, mesh: &QueryMesh) -> bool {
        self.edges.iter().all(|&h| mesh.edge_neighbour(h as usize).is_some_and(|q| self.costs_least(mesh, q)))
    }

    /// When the straight walk from the start to the goal hit the wall `(poly, k)` of an island
    /// that certifies paths (see the `obstacles` module), takes the shorter of the two taut
    /// strings round the island's convex hull; when it walks the mesh without meeting a wall and
    /// only through polygons of the cheapest cost, it is a shortest path: fills `self.edges`
    /// with the portals it crosses and `self.points_alt` with its points, and returns true.
    pub(super) fn round_one_island(
        &mut self,
        mesh: &QueryMesh,
        start: &Location,
        goal: &Location,
        poly: u32,
        k: usize,
    ) -> bool {
        let h = mesh.poly_first(poly) + k;
        let (a, b) = mesh.edge_vertices(h);
        let Some(hull) = mesh.obstacles().hull_of(a, b) else { return false };
        let (ps, pg) = (xz(start.point), xz(goal.point));
        // The bound needs the segment to enter the island: cross the wall's interior from the
        // walkable side (left) to the island's (right). A segment that only grazes the island
        // at a vertex may be a shorter way past it.
        let (wa, wb) = mesh.edge_endpoints(h);
        let (wa, wb) = (xz(wa), xz(wb));
        let (oa, ob) = (orient2d(ps, pg, wa), orient2d(ps, pg, wb));
        let enters = orient2d(wa, wb, ps) > 0.0
            && orient2d(wa, wb, pg) < 0.0
            && ((oa > 0.0 && ob < 0.0) || (oa < 0.0 && ob > 0.0));
        if !enters || !hull.outside(ps) || !hull.outside(pg) {
            return false;
        }
        // Counter-clockwise round the hull (it on the path's left) or clockwise.
        let (Some(s_ccw), Some(g_ccw), Some(s_cw), Some(g_cw)) =
            (hull.tangent(ps, true), hull.tangent(pg, false), hull.tangent(ps, false), hull.tangent(pg, true))
        else {
            return false;
        };
        let pts = hull.points;
        let ccw = dist2(ps, pts[s_ccw]) + hull.arc_ccw(s_ccw, g_ccw) + dist2(pts[g_ccw], pg);
        let cw = dist2(ps, pts[s_cw]) + hull.arc_ccw(g_cw, s_cw) + dist2(pts[g_cw], pg);
        let n = pts.len();
        let (from, to, step) = if ccw <= cw { (s_ccw, g_ccw, 1) } else { (s_cw, g_cw, n - 1) };
        let verts = mesh.mesh().vertices();
        self.points_alt.clear();
        self.points_alt.push(start.point);
        let mut i = from;
        loop {
            self.points_alt.push(verts[hull.vertices[i] as usize]);
            if i == to || self.points_alt.len() > n + 1 {
                break;
            }
            i = (i + step) % n;
        }
        self.points_alt.push(goal.point);
        // The corridor: each leg walked, turning round each corner through the polygons at it.
        self.edges.clear();
        let mut poly = start.polygon;
        let legs = self.points_alt.len() - 1;
        for leg in 0..legs {
            let (p, q) = (self.points_alt[leg], self.points_alt[leg + 1]);
            if leg > 0 {
                let v = hull.vertices[(from + (leg - 1) * step) % n];
                match self.turn_at_vertex(mesh, poly, v, xz(q)) {
                    Some(next) => poly = next,
                    None => return self.give_up(),
                }
            }
            let edges = &mut self.edges;
            match mesh.walk_segment(poly, xz(p), xz(q), |h| edges.push(h as u32)) {
                WalkEnd::Clear(end) => poly = end,
                _ => return self.give_up(),
            }
        }
        if poly != goal.polygon {
            return self.give_up();
        }
        // (The start polygon's cost was checked before the straight walk.)
        self.crosses_only_least_cost(mesh) || self.give_up()
    }

    /// Moves from `poly` round vertex `v` (one of its corners) through the polygons at `v` to
    /// the one the ray from `v` towards `q` enters, adding the portals crossed to `self.edges`;
    /// `None` when a wall comes first both ways round.
    fn turn_at_vertex(&mut self, mesh: &QueryMesh, poly: u32, v: u32, q: Point2) -> Option<u32> {
        let holds = |p: u32| {
            let (into, out_of) = mesh.edges_at_vertex(p, v)?;
            let (u, c) = mesh.edge_endpoints(into);
            let w = mesh.edge_endpoints(out_of).1;
            Some(orient2d(xz(u), xz(c), q) >= 0.0 && orient2d(xz(c), xz(w), q) >= 0.0)
        };
        if holds(poly)? {
            return Some(poly);
        }
        let mark = self.edges.len();
        for forward in [true, false] {
            self.edges.truncate(mark);
            let mut p = poly;
            for _ in 0..64 {
                let (into, out_of) = mesh.edges_at_vertex(p, v)?;
                let h = if forward { out_of } else { into };
                let Some(next) = mesh.edge_neighbour(h) else { break };
                self.edges.push(h as u32);
                p = next;
                if holds(p)? {
                    return Some(p);
                }
            }
        }
        self.edges.truncate(mark);
        None
    }

    /// Clears the corridor of an abandoned attempt; false.
    pub(super) fn give_up(&mut self) -> bool {
        self.edges.clear();
        false
    }
}
