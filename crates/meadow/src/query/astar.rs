//! A* over the portal graph (Meadow mapping's midpoint graph), with reusable scratch memory.
//!
//! Search nodes are directed half-edges: node `h` means "standing on the midpoint of portal `h`,
//! having crossed it into the polygon on its far side". Successors are the other portals of that
//! polygon (and the goal, when it is the goal polygon); the edge cost is the 3D distance between
//! the two points times the polygon's area cost. Crossing a portal and coming straight back is
//! never shorter than not crossing it (triangle inequality), so the directed graph has the same
//! optimum as the undirected midpoint graph, and its parent chain spells out the corridor.
//!
//! Off-mesh links are edges too: a node `H + 2 + t` (after the half-edges, the start and the
//! goal) means "landed by take-off direction `t` of the current link snapshot"; it is reached
//! from any node in the take-off polygon at the walk to the take-off point plus the link's cost
//! times its area's multiplier, and expands like the start node, from the landing point. The
//! traced corridor is split at the links into legs, and each leg is smoothed on its own. Links
//! cheaper than the straight line between their ends (teleporters) cap the straight-line part of
//! the heuristic; the landmark part is computed over portals and link end points.
//!
//! Two string-pulled answers skip the search: a goal in sight through cheapest-cost polygons
//! (the straight segment), and a segment that runs into one island whose convex hull certifies
//! the taut string round it (see the `obstacles` module). Other paths are searched, pulled, and
//! then shortened by the shortcut pass (re-routing round off-wall corners and small islands).

use super::chains::DEAD_END;
use super::links::LinkState;
use super::raycast::WalkEnd;
use super::{check_endpoints, locate_endpoints, Location, OpenEntry, QueryFilter, QueryMesh, NONE};
use super::{dist3, funnel, polyline_length, refine, xz, Path, PathError, PathLink, PathOptions, PathStyle};
use crate::geom::{orient2d, orient2d_certain_sign, Point2};

/// A search node (16 bytes: the pool is walked at random, so it is kept small).
#[derive(Clone, Copy, Debug, Default)]
struct Node {
    /// Cost from the start.
    g: f64,
    /// The node this one was reached from.
    parent: u32,
    /// `2 × generation` when the node was last touched in that query generation, plus one once
    /// its cost is final (closed); other values mean "unvisited". One word for both, so the
    /// search touches one cache line per node.
    stamp: u32,
}

/// Reusable path-query state: node pool (one node per half-edge, stamped per query so it is
/// never cleared), open list, and corridor/portal buffers. Sized to a mesh on creation; a query
/// only allocates when it needs more room than any before it (a longer corridor or a larger
/// open list), so a warmed-up game loop allocates nothing.
#[derive(Clone, Debug, Default)]
pub struct PathQuery {
    nodes: Vec<Node>,
    /// Per area type: its cost multiplier under the current query's filter, or a negative
    /// value when the filter excludes it (looked up once per query, not per edge).
    area_costs: Vec<f64>,
    open: std::collections::BinaryHeap<OpenEntry>,
    /// The best entry pushed since the last pop, held outside the heap: expanding a node
    /// usually yields the next node to expand, which then skips the heap's sift up and down.
    pending: Option<OpenEntry>,
    generation: u32,
    /// Half-edges of the found path, start to goal.
    edges: Vec<u32>,
    /// Corridor portals as (left, right) endpoints seen walking towards the goal.
    portals: Vec<([f64; 3], [f64; 3])>,
    /// Meadow refinement's per-portal choice.
    choice: Vec<u8>,
    /// Per string-pulled point, the virtual portal it came from (see `funnel::string_pull`).
    corner_at: Vec<u32>,
    /// The funnel's chains.
    funnel: funnel::Funnel,
    /// Scratch for re-routing: the half-edges of a way round a vertex, the spliced edge chain,
    /// and its string-pulled points.
    crossed: Vec<u32>,
    edges_alt: Vec<u32>,
    points_alt: Vec<[f64; 3]>,
    corner_alt: Vec<u32>,
    /// Per point of the path being shortened: what the shortcut pass needs to know of it.
    corners: Vec<Corner>,
    /// Buffers of [`PathQuery::find_path`]'s result before it is copied out.
    scratch_path: Path,
    /// Pull the whole corridor after every splice, never only the changed stretch (for tests).
    full_repulls: bool,
    /// Path points the last accepted splice left as they were (with their corners).
    settled: usize,
    /// Scratch for the convex hull bounding a walk round an island: its points and its chain.
    hull: Vec<Point2>,
    hull_chain: Vec<Point2>,
    /// Per polygon: its index in the corridor plus one while a walk round an island runs,
    /// else 0.
    corridor_mark: Vec<u32>,
    /// The portals of the spliced corridor `edges_alt`.
    portals_alt: Vec<([f64; 3], [f64; 3])>,
    /// Whether the last path went round one island by its certificate (for tests).
    round_island: bool,
    /// The traced route: half-edges, and `LINK_MARK | t` where take-off `t` is used.
    route: Vec<u32>,
    /// One leg's smoothed points before they join the path.
    leg_points: Vec<[f64; 3]>,
}

/// Marks a take-off in a traced route (half-edge indices stay below 2^31: a mesh of that many
/// half-edges would need tens of gigabytes).
const LINK_MARK: u32 = 1 << 31;

/// What the search knows of the node it expands, for the take-offs there.
#[derive(Clone, Copy)]
struct Here {
    poly: u32,
    pos: [f64; 3],
    g: f64,
    /// The polygon's area cost multiplier.
    cost: f64,
    node: u32,
}

/// What a search's heuristic needs for the landing nodes of take-offs.
struct LinkContext<'a> {
    links: &'a LinkState,
    landmarks: &'a super::landmarks::Landmarks,
    bounds: Option<&'a super::landmarks::GoalBounds>,
    teleport_bound: f64,
    goal_pos: [f64; 3],
    h_scale: f64,
}

/// What the straight walk from the start to the goal found (see
/// [`PathQuery::straight_corridor`]).
enum Straight {
    /// The straight segment is the path (its string is pulled).
    Pulled,
    /// The walk hit wall `k` of this polygon, the start polygon's cost being the least.
    HitWall(u32, usize),
    /// The search decides.
    Searched,
}

/// Upper bound on accepted shortcuts per query; each one strictly shortens the path, so this
/// only caps the work on pathological corridors.
const MAX_SHORTCUTS: usize = 256;

/// Length of a polyline in XZ.
fn xz_length(points: &[[f64; 3]]) -> f64 {
    points.windows(2).map(|w| super::dist2(xz(w[0]), xz(w[1]))).sum()
}

/// A point of a string-pulled path, as the shortcut pass sees it.
#[derive(Clone, Copy, Debug)]
struct Corner {
    /// The certain sign of the path's turn there (0 at the ends or when float cannot tell).
    turn: i8,
    /// Whether it is a mesh vertex no wall touches.
    off_walls: bool,
    /// Its mesh vertex (`NONE` at the ends or when unknown).
    vertex: u32,
}

/// Perimeter of the convex hull of `points` (reordered; `chain` is scratch): Andrew's
/// monotone chain with exact orientation tests.
pub(crate) fn convex_hull_perimeter(points: &mut [Point2], chain: &mut Vec<Point2>) -> f64 {
    crate::geom::convex_hull(points, |p| *p, chain);
    let n = chain.len();
    (0..n).map(|i| super::dist2(chain[i], chain[(i + 1) % n])).sum()
}

impl Corner {
    /// The small island this corner bends round, if any.
    fn island(&self, mesh: &QueryMesh) -> Option<u32> {
        if self.vertex == NONE || self.turn == 0 {
            return None;
        }
        mesh.small_island_of(self.vertex)
    }
}

/// Largest number of steps (portals crossed and island vertices passed) of a walk round an
/// island.
const ISLAND_WALK_STEPS: usize = 256;

/// Polygon `r` of the corridor that starts in `start_poly` and crosses the portals `edges`.
fn corridor_polygon(mesh: &QueryMesh, edges: &[u32], start_poly: u32, r: usize) -> u32 {
    match r.checked_sub(1).and_then(|i| edges.get(i)) {
        Some(&h) => mesh.edge_neighbour(h as usize).unwrap_or(start_poly),
        None => start_poly,
    }
}

/// Where the A* search ended.
enum SearchEnd {
    /// Reached the goal; the last node before it.
    Goal(u32),
    /// Goal unreachable; the reached node (possibly the start node) whose polygon comes nearest
    /// the goal, and that nearest point.
    Partial(u32, [f64; 3]),
    /// Goal unreachable and no partial path asked for.
    Unreachable,
}

impl PathQuery {
    /// Query state sized for `mesh` (one node per half-edge plus the start and the goal).
    pub fn new(mesh: &QueryMesh) -> PathQuery {
        let mut q = PathQuery::default();
        q.reserve(mesh);
        q
    }

    /// Grows the scratch memory to fit `mesh`, so that later queries on it do not allocate.
    pub fn reserve(&mut self, mesh: &QueryMesh) {
        self.reserve_with(mesh, &mesh.link_state());
    }

    /// [`PathQuery::reserve`] with the link snapshot the query uses.
    fn reserve_with(&mut self, mesh: &QueryMesh, links: &LinkState) {
        let count = mesh.half_edge_count() + 2 + links.takeoffs.len();
        if self.nodes.len() < count {
            self.nodes.resize(count, Node::default());
        }
        let areas = mesh.mesh().areas().len();
        self.area_costs.reserve(areas.saturating_sub(self.area_costs.len()));
        // Lazy deletion can hold a node more than once; one entry per node covers the common
        // case, and rarer queries that need more grow the heap once (it keeps its capacity).
        let want = count.saturating_sub(self.open.len());
        self.open.reserve(want);
        let polys = mesh.mesh().polygon_count();
        if self.corridor_mark.len() < polys {
            self.corridor_mark.resize(polys, 0);
        }
        for v in [&mut self.hull, &mut self.hull_chain] {
            v.reserve((super::MAX_ISLAND_VERTICES + 2).saturating_sub(v.len()));
        }
        self.edges.reserve(polys.saturating_sub(self.edges.len()));
        self.portals.reserve(polys.saturating_sub(self.portals.len()));
        self.portals_alt.reserve(polys.saturating_sub(self.portals_alt.len()));
        self.choice.reserve(polys.saturating_sub(self.choice.len()));
        for v in [&mut self.corner_at, &mut self.crossed, &mut self.edges_alt, &mut self.corner_alt] {
            v.reserve(polys.saturating_sub(v.len()));
        }
        self.points_alt.reserve(polys.saturating_sub(self.points_alt.len()));
        self.leg_points.reserve(polys.saturating_sub(self.leg_points.len()));
        self.route.reserve(polys.saturating_sub(self.route.len()));
        self.funnel.reserve(polys);
        self.corners.reserve((polys + 2).saturating_sub(self.corners.len()));
    }

    /// Finds a path from `start` to `goal` with the default options (string pulled, no partial
    /// paths). Allocates only the returned [`Path`]'s two vectors once warmed up; see
    /// [`PathQuery::find_path_into`] for the allocation-free form.
    pub fn find_path(
        &mut self,
        mesh: &QueryMesh,
        start: [f64; 3],
        goal: [f64; 3],
        filter: &QueryFilter,
    ) -> Result<Path, PathError> {
        // Build into the reused buffers, then copy out at the exact size.
        let mut scratch = std::mem::take(&mut self.scratch_path);
        let result = self.find_path_into(mesh, start, goal, filter, PathOptions::default(), &mut scratch);
        let path = result.map(|()| Path {
            points: scratch.points.clone(),
            length: scratch.length,
            corridor: scratch.corridor.clone(),
            partial: scratch.partial,
            links: scratch.links.clone(),
        });
        self.scratch_path = scratch;
        path
    }

    /// Finds a path and writes it into `path`, reusing its buffers (cleared on error).
    pub fn find_path_into(
        &mut self,
        mesh: &QueryMesh,
        start: [f64; 3],
        goal: [f64; 3],
        filter: &QueryFilter,
        options: PathOptions,
        path: &mut Path,
    ) -> Result<(), PathError> {
        match locate_endpoints(mesh, start, goal) {
            Ok((start, goal)) => self.find_path_between(mesh, start, goal, filter, options, path),
            Err(e) => {
                path.clear();
                Err(e)
            }
        }
    }

    /// Like [`PathQuery::find_path_into`], for a start and goal already placed on polygons (by
    /// [`QueryMesh::locate`] or [`QueryMesh::nearest_point`]), which are used as given.
    pub fn find_path_between(
        &mut self,
        mesh: &QueryMesh,
        start: Location,
        goal: Location,
        filter: &QueryFilter,
        options: PathOptions,
        path: &mut Path,
    ) -> Result<(), PathError> {
        path.clear();
        check_endpoints(mesh, &start, &goal)?;
        let h_scale = filter.heuristic_scale()?;
        let nav = mesh.mesh();
        let start_area = nav.data().polygons[start.polygon as usize].area;
        if filter.area_cost(nav, start_area).is_none() {
            return Err(PathError::StartExcluded);
        }
        let links = mesh.link_state();
        let links = &*links;
        self.reserve_with(mesh, links);
        self.area_costs.clear();
        self.area_costs.extend((0..nav.areas().len()).map(|a| filter.area_cost(nav, a as u16).unwrap_or(-1.0)));
        let links_on = filter.allows_links() && !links.is_empty();
        self.edges.clear();
        let mut end_point = goal.point;
        let pulled = start.polygon != goal.polygon && options.style == PathStyle::StringPulled && options.shortcuts;
        self.round_island = false;
        // The search-free answers are shortest among paths on the mesh; a path over a link is
        // at least as long as the bound below, so they stand when they are no longer than it.
        let seen = pulled
            && match self.straight_corridor(mesh, &start, &goal) {
                Straight::Pulled => {
                    !links_on || self.cost_of(&self.points_alt) <= self.link_bound(links, &start, &goal, true)
                }
                Straight::HitWall(poly, k) => {
                    self.round_island = self.round_one_island(mesh, &start, &goal, poly, k)
                        && (!links_on
                            || self.cost_of(&self.points_alt) <= self.link_bound(links, &start, &goal, false));
                    self.round_island || self.give_up()
                }
                Straight::Searched => false,
            };
        if !seen {
            self.edges.clear();
        }
        let search = if start.polygon == goal.polygon {
            // The straight segment in one convex polygon, unless a teleporter may beat it.
            links_on
                && self.link_bound(links, &start, &goal, true)
                    < dist3(start.point, goal.point) * self.area_costs[start_area as usize]
        } else {
            !seen
        };
        if search {
            let (allow_partial, goal_at) = (options.allow_partial, (goal.polygon, goal.point));
            let ends = (start.polygon, start.point, goal_at);
            match self.search(mesh, links, links_on, ends, h_scale, allow_partial) {
                SearchEnd::Unreachable => return Err(PathError::Unreachable),
                SearchEnd::Goal(last) => self.trace(mesh, links, start.polygon, last),
                SearchEnd::Partial(node, point) => {
                    if !options.allow_partial {
                        return Err(PathError::Unreachable);
                    }
                    path.partial = true;
                    end_point = point;
                    self.trace(mesh, links, start.polygon, node);
                }
            }
        }
        if seen {
            // `straight_corridor` or `round_one_island` already pulled the string.
            path.points.extend_from_slice(&self.points_alt);
            path.corridor.push(start.polygon);
            for &h in &self.edges {
                if let Some(q) = mesh.edge_neighbour(h as usize) {
                    path.corridor.push(q);
                }
            }
            path.length = polyline_length(&path.points);
            return Ok(());
        }
        path.corridor.push(start.polygon);
        if !links_on {
            // One leg (the common case): smoothed straight into the path.
            self.smooth_leg(mesh, filter, options, start, end_point, &mut path.points);
            for &h in &self.edges {
                if let Some(q) = mesh.edge_neighbour(h as usize) {
                    path.corridor.push(q);
                }
            }
            path.length = polyline_length(&path.points);
            return Ok(());
        }
        // Smooth each leg between the start, the links' take-off and landing points and the goal.
        std::mem::swap(&mut self.route, &mut self.edges);
        let mut leg_start = start;
        let mut leg_points = std::mem::take(&mut self.leg_points);
        let mut i = 0;
        loop {
            let mark = self.route[i..].iter().position(|&e| e & LINK_MARK != 0).map(|k| i + k);
            let stop = mark.unwrap_or(self.route.len());
            self.edges.clear();
            self.edges.extend_from_slice(&self.route[i..stop]);
            let takeoff = mark.map(|j| links.takeoffs[(self.route[j] & !LINK_MARK) as usize]);
            let leg_goal = takeoff.map_or(end_point, |t| t.from);
            self.smooth_leg(mesh, filter, options, leg_start, leg_goal, &mut leg_points);
            // Legs meet only at links: each leg after the first starts at a landing point.
            path.points.extend_from_slice(&leg_points);
            if i > 0 {
                path.corridor.push(leg_start.polygon);
            }
            for &h in &self.edges {
                if let Some(q) = mesh.edge_neighbour(h as usize) {
                    path.corridor.push(q);
                }
            }
            let (Some(t), Some(j)) = (takeoff, mark) else { break };
            path.links.push(PathLink { segment: path.points.len() - 1, link: t.link, id: t.id, reversed: t.reversed });
            leg_start = Location { polygon: t.to_poly, point: t.to };
            i = j + 1;
        }
        self.leg_points = leg_points;
        std::mem::swap(&mut self.route, &mut self.edges);
        path.length = polyline_length(&path.points);
        Ok(())
    }

    /// Smooths the corridor in `self.edges` from `from` to `to` (a point of its last polygon)
    /// in the asked style into `points`.
    fn smooth_leg(
        &mut self,
        mesh: &QueryMesh,
        filter: &QueryFilter,
        options: PathOptions,
        from: Location,
        to: [f64; 3],
        points: &mut Vec<[f64; 3]>,
    ) {
        // The string may use all of an edge split into collinear portals; the midpoint
        // styles keep the portals the search crossed.
        self.build_portals(mesh, options.style == PathStyle::StringPulled);
        match options.style {
            PathStyle::Midpoints => {
                points.clear();
                points.push(from.point);
                for &(l, r) in &self.portals {
                    points.push([(l[0] + r[0]) * 0.5, (l[1] + r[1]) * 0.5, (l[2] + r[2]) * 0.5]);
                }
                points.push(to);
            }
            PathStyle::MeadowRefined => {
                refine::meadow_refine(from.point, to, &self.portals, &mut self.choice, points);
            }
            PathStyle::StringPulled => {
                funnel::string_pull(from.point, to, &self.portals, points, &mut self.corner_at, &mut self.funnel);
                if options.shortcuts {
                    self.shortcut(mesh, filter, from.polygon, points);
                }
            }
        }
    }

    /// Cost of walking the polyline `points` through polygons of the least cost.
    fn cost_of(&self, points: &[[f64; 3]]) -> f64 {
        let cheapest = self.area_costs.iter().copied().filter(|&c| c >= 0.0).fold(f64::INFINITY, f64::min);
        polyline_length(points) * cheapest
    }

    /// A lower bound on the cost of every path from `start` to `goal` that takes an off-mesh
    /// link: the walk to the nearest take-off, the cheapest link, and the walk from the nearest
    /// landing, each at the least cost (straight lines: the triangle inequality). With
    /// `shortcuts_only`, only over links cheaper than the straight line between their ends: a
    /// path over other links is no shorter than the straight line from the start to the goal.
    fn link_bound(&self, links: &LinkState, start: &Location, goal: &Location, shortcuts_only: bool) -> f64 {
        let cheapest = self.area_costs.iter().copied().filter(|&c| c >= 0.0).fold(f64::INFINITY, f64::min);
        let (mut to_takeoff, mut link, mut from_landing) = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
        for t in &links.takeoffs {
            let area_cost = self.area_costs[t.area as usize];
            if area_cost < 0.0 || (shortcuts_only && !t.is_shortcut()) {
                continue;
            }
            to_takeoff = to_takeoff.min(dist3(start.point, t.from));
            link = link.min(t.cost * area_cost);
            from_landing = from_landing.min(dist3(t.to, goal.point));
        }
        (to_takeoff + from_landing) * cheapest + link
    }

    /// When the segment from the start to the goal walks the mesh without meeting a wall, and
    /// only through polygons of the least cost ([`Self::costs_least`]), fills `self.edges` with
    /// the portals it crosses and `self.points_alt` with the string, and returns
    /// [`Straight::Pulled`]; when the walk hits a wall from a least-cost start, which wall
    /// ([`Straight::HitWall`], for [`Self::round_one_island`]). The straight segment is then the optimal path, and what the
    /// shortcut pass would reduce an A* corridor to, so the search is skipped. (The outputs can
    /// differ only where the segment passes exactly through a mesh vertex, in which polygons
    /// the corridor lists there, or where the A* path bends by less than the shortcut pass's
    /// 1e-9 relative threshold.)
    fn straight_corridor(&mut self, mesh: &QueryMesh, start: &Location, goal: &Location) -> Straight {
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
    fn round_one_island(&mut self, mesh: &QueryMesh, start: &Location, goal: &Location, poly: u32, k: usize) -> bool {
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
        let ccw = super::dist2(ps, pts[s_ccw]) + hull.arc_ccw(s_ccw, g_ccw) + super::dist2(pts[g_ccw], pg);
        let cw = super::dist2(ps, pts[s_cw]) + hull.arc_ccw(g_cw, s_cw) + super::dist2(pts[g_cw], pg);
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
    fn give_up(&mut self) -> bool {
        self.edges.clear();
        false
    }

    /// Rebuilds `self.portals` from `self.edges`.
    /// With `widen`, each portal spans the whole edge it is a piece of: an edge split into
    /// collinear portals (long edges halved at bake time) shared by the same two polygons.
    fn build_portals(&mut self, mesh: &QueryMesh, widen: bool) {
        self.portals.clear();
        for &h in &self.edges {
            self.portals.push(if widen {
                mesh.portal_ends(h as usize)
            } else {
                let (a, b) = mesh.edge_endpoints(h as usize);
                (b, a)
            });
        }
    }

    /// Shortens a string-pulled path by re-routing its corridor: a corner at a vertex no wall
    /// touches is no obstacle, the corridor merely passes the vertex on the wrong side (a
    /// common misjudgement of the midpoint graph in fans of thin polygons). The corridor is
    /// routed around the vertex's other side, through the rest of its fan (only through areas
    /// no dearer than the ones it replaces), the string pulled again, and the change kept when
    /// the path got shorter; until no corner gives way. Then, for a run of corners round a
    /// small island (a pillar, a crate: a hole outline of at most 32 vertices), the same with
    /// the corridor walked round the island's other side, when a lower bound on that way (the
    /// convex hull of the island's far side) leaves room for it to be shorter.
    ///
    /// Casting rays between path points further apart (Detour's path-corridor visibility
    /// optimisation) was tried as well and dropped: on the real levels it shortened about one
    /// path in 3,000 and took a tenth of the query time.
    fn shortcut(&mut self, mesh: &QueryMesh, filter: &QueryFilter, start_poly: u32, points: &mut Vec<[f64; 3]>) {
        let corridor_at = |edges: &[u32], r: usize| corridor_polygon(mesh, edges, start_poly, r);
        if points.is_empty() {
            return;
        }
        let mut length = xz_length(points);
        // Leading path points whose off-wall corners, and whose island runs, were looked at
        // with the path as it is now there: an accepted splice keeps the points before its
        // first anchor (`self.settled`), and a re-route ends that iteration before islands.
        let (mut vertices_seen, mut islands_seen) = (0, 0);
        let mut accepted = 0;
        'search: while accepted < MAX_SHORTCUTS {
            let m = self.edges.len();
            let k = points.len();
            self.note_corners(mesh, points);
            // A corner at a vertex off the walls is no obstacle: the corridor merely passes it on
            // the wrong side. Route the corridor around the vertex's other side.
            for j in vertices_seen.max(1)..k.saturating_sub(1) {
                let Corner { vertex, off_walls, turn } = self.corners[j];
                // A point straight in XZ (kept for its height) has no shorter way round.
                if vertex == NONE || !off_walls || turn == 0 {
                    continue;
                }
                let e = self.corner_at[j] as usize - 1;
                let has_v = |r: usize| {
                    let poly = corridor_at(&self.edges, r);
                    mesh.edges_at_vertex(poly, vertex).is_some()
                };
                let (mut lo, mut hi) = (e, e + 1);
                while lo > 0 && has_v(lo - 1) {
                    lo -= 1;
                }
                while hi < m && has_v(hi + 1) {
                    hi += 1;
                }
                if !self.around_the_other_side(mesh, start_poly, lo, hi, vertex) {
                    continue;
                }
                if self.crossed_is_affordable(mesh, filter, start_poly, lo, hi)
                    && self.adopt_if_shorter(mesh, lo, hi, &mut length, points)
                {
                    accepted += 1;
                    vertices_seen = self.settled;
                    islands_seen = islands_seen.min(self.settled);
                    continue 'search;
                }
            }
            // Corners at a small island: the corridor may pass the whole island on the wrong
            // side. Walk round it the other way when that could be shorter.
            // From the start of the island run the first unseen point belongs to.
            let mut from = islands_seen.max(1);
            while from > 1
                && from < k
                && self.corners[from].island(mesh).is_some_and(|i| self.corners[from - 1].island(mesh) == Some(i))
            {
                from -= 1;
            }
            for j in from..k.saturating_sub(1) {
                let Some(island) = self.corners[j].island(mesh) else { continue };
                // The run of corners on this island, and the points either side of it.
                if self.corners[j - 1].island(mesh) == Some(island) {
                    continue;
                }
                let mut last = j;
                while last + 2 < k && self.corners[last + 1].island(mesh) == Some(island) {
                    last += 1;
                }
                if !self.other_side_could_be_shorter(mesh, island, points, j, last) {
                    continue;
                }
                let e = self.corner_at[j] as usize - 1;
                let vertex = self.corners[j].vertex;
                let Some((lo, end)) = self.around_the_island(mesh, start_poly, e, vertex, island) else { continue };
                if self.crossed_is_affordable(mesh, filter, start_poly, lo, end)
                    && self.adopt_if_shorter(mesh, lo, end, &mut length, points)
                {
                    accepted += 1;
                    (vertices_seen, islands_seen) = (self.settled, self.settled);
                    continue 'search;
                }
            }
            break;
        }
    }

    /// Whether a path from the point before corner `first` to the point after corner `last`
    /// (a run of corners round `island`, all on one side of the line between those points)
    /// could be shorter round the island's other side. Such a path and the current one enclose
    /// the island, so it is at least as long as the far side of the convex hull of the two
    /// points and the island's vertices beyond their line (the shortest way round those).
    fn other_side_could_be_shorter(
        &mut self,
        mesh: &QueryMesh,
        island: u32,
        points: &[[f64; 3]],
        first: usize,
        last: usize,
    ) -> bool {
        let (a, b) = (xz(points[first - 1]), xz(points[last + 1]));
        let side = orient2d_certain_sign(a, b, xz(points[first]));
        if side == 0 || a == b || (first..=last).any(|j| orient2d_certain_sign(a, b, xz(points[j])) != side) {
            return false;
        }
        let current = xz_length(&points[first - 1..=last + 1]) * (1.0 - 1e-9);
        let ab = super::dist2(a, b);
        // Quick bounds first: the same holds for the ray from any point of the island beyond
        // the line, such as the far point of a disk inside it, or an island vertex.
        let through = |w: Point2| super::dist2(a, w) + super::dist2(w, b);
        if let Some((c, r)) = mesh.island_disk(island) {
            let normal = [-f64::from(side) * -(b[1] - a[1]) / ab, -f64::from(side) * (b[0] - a[0]) / ab];
            let far = [c[0] + r * normal[0], c[1] + r * normal[1]];
            if orient2d_certain_sign(a, b, far) == -side && through(far) >= current {
                return false;
            }
        }
        let ring = &mesh.mesh().outlines()[island as usize].vertices;
        let verts = mesh.mesh().vertices();
        let beyond = |w: &Point2| orient2d_certain_sign(a, b, *w) == -side;
        if ring.iter().map(|&v| xz(verts[v as usize])).filter(beyond).any(|w| through(w) >= current) {
            return false;
        }
        self.hull.clear();
        self.hull.extend([a, b]);
        self.hull.extend(ring.iter().map(|&v| xz(verts[v as usize])).filter(beyond));
        let around = convex_hull_perimeter(&mut self.hull, &mut self.hull_chain) - ab;
        around < current
    }

    /// Fills `self.crossed` with the portals of a walk round `island` the other way than the
    /// corridor goes: from corridor polygon `e`, which the corridor leaves through portal `e` at
    /// island vertex `v` (a corner of the path), turning round one island vertex after another
    /// through the polygons at them. Where the walk meets the corridor before `e` (the corridor
    /// came along the island) it starts again from there; where it meets the corridor past `e`,
    /// it has gone round the island's far side: returns the corridor indices `(lo, end)` of
    /// the polygons it left and reached. `None` when it takes too long or leaves the island.
    fn around_the_island(
        &mut self,
        mesh: &QueryMesh,
        start_poly: u32,
        e: usize,
        v: u32,
        island: u32,
    ) -> Option<(usize, usize)> {
        // Each corridor polygon marked with its first index (plus one), cleared on return.
        let m = self.edges.len();
        for r in (0..=m).rev() {
            self.corridor_mark[corridor_polygon(mesh, &self.edges, start_poly, r) as usize] = r as u32 + 1;
        }
        let found = self.walk_round_island(mesh, corridor_polygon(mesh, &self.edges, start_poly, e), e, v, island);
        for r in 0..=m {
            self.corridor_mark[corridor_polygon(mesh, &self.edges, start_poly, r) as usize] = 0;
        }
        found
    }

    /// The walk of [`PathQuery::around_the_island`], over the marked corridor.
    fn walk_round_island(
        &mut self,
        mesh: &QueryMesh,
        from: u32,
        e: usize,
        v: u32,
        island: u32,
    ) -> Option<(usize, usize)> {
        let next = mesh.edge_neighbour(*self.edges.get(e)? as usize)?;
        let (mut lo, mut poly, mut pivot) = (e, from, v);
        let mut x = mesh.edge_at_vertex_away_from(from, v, next)?;
        self.crossed.clear();
        for _ in 0..ISLAND_WALK_STEPS {
            let he = mesh.half_edges[x];
            if he.neighbour == NONE {
                // The island's wall: move the pivot along it to the next island vertex.
                let (a, b) = mesh.edge_vertices(x);
                pivot = if a == pivot { b } else { a };
                if mesh.small_island_of(pivot) != Some(island) {
                    return None;
                }
                let (into, out_of) = mesh.edges_at_vertex(poly, pivot)?;
                x = if into == x { out_of } else { into };
                continue;
            }
            self.crossed.push(x as u32);
            poly = he.neighbour;
            if let Some(r) = self.corridor_mark[poly as usize].checked_sub(1) {
                let r = r as usize;
                if r > e {
                    return Some((lo, r));
                }
                if r >= lo {
                    return None;
                }
                lo = r;
                self.crossed.clear();
            }
            let (into, out_of) = mesh.edges_at_vertex(poly, pivot)?;
            x = if into as u32 == he.twin { out_of } else { into };
        }
        None
    }

    /// Splices `self.crossed` into the corridor in place of its portals `lo..hi` and pulls the
    /// string again; keeps the change when the path got shorter (returns whether it did).
    ///
    /// Only the stretch between the last corner before the splice and the first corner after
    /// it is pulled again. The sleeve a corridor spans is simply connected, so a path that is
    /// locally shortest everywhere is its one shortest path: when the two kept corners still
    /// turn the way they did (around the same vertices, which stay on the same sides), the
    /// spliced path equals what pulling the whole corridor gives. Otherwise the whole corridor
    /// is pulled.
    fn adopt_if_shorter(
        &mut self,
        mesh: &QueryMesh,
        lo: usize,
        hi: usize,
        length: &mut f64,
        points: &mut Vec<[f64; 3]>,
    ) -> bool {
        let (Some(&start), Some(&end)) = (points.first(), points.last()) else { return false };
        if self.edges[lo..hi] == self.crossed[..] {
            return false;
        }
        self.edges_alt.clear();
        self.edges_alt.extend_from_slice(&self.edges[..lo]);
        self.edges_alt.extend_from_slice(&self.crossed);
        self.edges_alt.extend_from_slice(&self.edges[hi..]);
        self.portals_alt.clear();
        self.portals_alt.extend_from_slice(&self.portals[..lo]);
        for &h in &self.crossed {
            self.portals_alt.push(mesh.portal_ends(h as usize));
        }
        self.portals_alt.extend_from_slice(&self.portals[hi..]);
        // Corner `j` lies on portal `corner_at[j] - 1` (0: the start, m + 1: the goal), in
        // order along the path. The anchors: the last corner on a portal before `lo`, the
        // first on a portal from `hi` on (both kept), and the portals between them.
        let k = points.len();
        let ja = (0..k).rev().find(|&j| self.corner_at[j] as usize <= lo).unwrap_or(0);
        // (The goal is not recorded when it repeats the last corner: then no point lies past
        // the splice for certain, and the whole corridor is pulled.)
        let jb = (ja + 1..k).find(|&j| self.corner_at[j] as usize > hi);
        let delta = self.crossed.len() as isize - (hi - lo) as isize;
        let base = self.corner_at[ja] as usize;
        let stop = jb.map_or(usize::MAX, |jb| (self.corner_at[jb] as isize - 1 + delta) as usize);
        let mut taut = false;
        if let Some(jb) = jb.filter(|_| base <= stop && stop <= self.portals_alt.len()) {
            let (a, b) = (points[ja], points[jb]);
            let portals = &self.portals_alt[base..stop];
            funnel::string_pull(a, b, portals, &mut self.points_alt, &mut self.corner_alt, &mut self.funnel);
            let n = self.points_alt.len();
            let keeps_turn = |j: usize, before: [f64; 3], after: [f64; 3]| {
                let turn = self.corners[j].turn;
                turn != 0 && orient2d_certain_sign(xz(before), xz(points[j]), xz(after)) == turn
            };
            taut = (ja == 0 || keeps_turn(ja, points[ja - 1], self.points_alt[1]))
                && (jb + 1 == k || keeps_turn(jb, self.points_alt[n - 2], points[jb + 1]));
            if taut && !self.full_repulls {
                let new_length = xz_length(&points[..=ja]) + xz_length(&self.points_alt) + xz_length(&points[jb..]);
                if new_length >= *length - 1e-9 * (1.0 + *length) {
                    return false;
                }
                points.splice(ja..=jb, self.points_alt.iter().copied());
                let shifted = self.corner_at[jb + 1..].iter().map(|&c| (c as isize + delta) as u32);
                self.corner_alt.iter_mut().for_each(|c| *c += base as u32);
                self.corner_alt.extend(shifted);
                self.corner_at.truncate(ja);
                self.corner_at.extend_from_slice(&self.corner_alt);
                self.accept_splice(points, length, ja);
                return true;
            }
        }
        let portals = &self.portals_alt;
        funnel::string_pull(start, end, portals, &mut self.points_alt, &mut self.corner_alt, &mut self.funnel);
        let new_length = xz_length(&self.points_alt);
        if new_length >= *length - 1e-9 * (1.0 + *length) {
            return false;
        }
        // Copied, not swapped, so the caller's buffer keeps its own capacity.
        points.clear();
        points.extend_from_slice(&self.points_alt);
        std::mem::swap(&mut self.corner_at, &mut self.corner_alt);
        self.accept_splice(points, length, if taut { ja } else { 0 });
        true
    }

    /// Makes the spliced corridor (`edges_alt`, `portals_alt`) the current one, and `length`
    /// that of `points`, the string pulled through it, whose first `settled` points and their
    /// corners are those of the path before.
    fn accept_splice(&mut self, points: &[[f64; 3]], length: &mut f64, settled: usize) {
        self.settled = settled;
        std::mem::swap(&mut self.edges, &mut self.edges_alt);
        std::mem::swap(&mut self.portals, &mut self.portals_alt);
        *length = xz_length(points);
    }

    /// Whether every polygon the portals in `self.crossed` lead into is allowed and costs no
    /// more than the cheapest of corridor polygons `lo..=hi`, which they would replace.
    fn crossed_is_affordable(
        &self,
        mesh: &QueryMesh,
        filter: &QueryFilter,
        start_poly: u32,
        lo: usize,
        hi: usize,
    ) -> bool {
        let nav = mesh.mesh();
        let cost_of = |poly: u32| filter.area_cost(nav, nav.data().polygons[poly as usize].area);
        let cheapest = (lo..=hi)
            .filter_map(|r| cost_of(corridor_polygon(mesh, &self.edges, start_poly, r)))
            .fold(f64::INFINITY, f64::min);
        self.crossed.iter().all(|&h| mesh.edge_neighbour(h as usize).and_then(cost_of).is_some_and(|c| c <= cheapest))
    }

    /// Fills `self.crossed` with the portals that lead around vertex `v` from corridor polygon
    /// `lo` to corridor polygon `hi` the other way than the corridor does (through the rest of
    /// `v`'s fan); false when there is no such way (a wall at `v`, a fan of more than 64
    /// polygons).
    fn around_the_other_side(&mut self, mesh: &QueryMesh, start_poly: u32, lo: usize, hi: usize, v: u32) -> bool {
        let corridor_at = |r: usize| corridor_polygon(mesh, &self.edges, start_poly, r);
        let (from, to) = (corridor_at(lo), corridor_at(hi));
        let Some(mut x) = mesh.edge_at_vertex_away_from(from, v, corridor_at(lo + 1)) else { return false };
        self.crossed.clear();
        for _ in 0..64 {
            let he = mesh.half_edges[x];
            if he.neighbour == NONE || he.neighbour == from {
                return false;
            }
            self.crossed.push(x as u32);
            if he.neighbour == to {
                return true;
            }
            let Some((a, b)) = mesh.edges_at_vertex(he.neighbour, v) else { return false };
            x = if a as u32 == he.twin { b } else { a };
        }
        false
    }

    /// Fills `self.corners` for `points`, the string pulled through the current corridor
    /// (`self.edges`, `self.corner_at`): each point's turn, vertex and whether walls touch it.
    fn note_corners(&mut self, mesh: &QueryMesh, points: &[[f64; 3]]) {
        self.corners.clear();
        for (j, p) in points.iter().enumerate() {
            let turn = match (j.checked_sub(1).and_then(|i| points.get(i)), points.get(j + 1)) {
                (Some(&a), Some(&b)) => orient2d_certain_sign(xz(a), xz(*p), xz(b)),
                _ => 0,
            };
            let v = self.corner_at.get(j).copied().unwrap_or(0) as usize;
            // A point the corridor does not place on a portal end is treated as unknown.
            let vertex = match v.checked_sub(1).and_then(|e| self.edges.get(e)) {
                Some(&h) if j > 0 && j + 1 < points.len() => {
                    let (first, last) = mesh.portal_run(h as usize);
                    let at_start = xz(mesh.edge_endpoints(first).0) == xz(*p);
                    mesh.edge_vertex_at(if at_start { first } else { last }, xz(*p))
                }
                _ => NONE,
            };
            let off_walls = vertex != NONE && !mesh.touches_wall(vertex);
            self.corners.push(Corner { turn, off_walls, vertex });
        }
    }

    /// Whether the last found path went round one island by the certificate of
    /// `round_one_island` (for tests that check those paths are shortest).
    #[doc(hidden)]
    pub fn last_went_round_one_island(&self) -> bool {
        self.round_island
    }

    /// Makes the shortcut pass pull the whole corridor after every splice (for tests that check
    /// pulling only the changed stretch changes no path).
    #[doc(hidden)]
    pub fn set_full_repulls(&mut self, on: bool) {
        self.full_repulls = on;
    }

    /// Number of search nodes the last query touched (a diagnostic; scans the node pool).
    pub fn last_search_size(&self) -> usize {
        let touched = self.generation.wrapping_mul(2);
        self.nodes.iter().filter(|n| self.generation != 0 && n.stamp & !1 == touched).count()
    }

    /// Fills `self.edges` with the half-edges from the start (in `start_poly`) to `last`
    /// (inclusive), spelling out the portals of every chain the search jumped across, and
    /// `LINK_MARK | t` where take-off `t` of `links` was used.
    fn trace(&mut self, mesh: &QueryMesh, links: &LinkState, start_poly: u32, last: u32) {
        let start_node = mesh.half_edge_count() as u32;
        let link_base = start_node + 2;
        // The polygon a node stands in.
        let poly_of = |node: u32| {
            if node == start_node {
                start_poly
            } else if node >= link_base {
                links.takeoffs.get((node - link_base) as usize).map_or(NONE, |t| t.to_poly)
            } else {
                mesh.edge_neighbour(node as usize).unwrap_or(NONE)
            }
        };
        let mut n = last;
        // At most one entry per half-edge; the bound guards against a corrupted pool.
        let mut guard = self.nodes.len();
        while n != start_node && n != NONE && guard > 0 {
            let parent = self.nodes[n as usize].parent;
            if n >= link_base {
                self.edges.push(LINK_MARK | (n - link_base));
                n = parent;
                guard -= 1;
                continue;
            }
            self.edges.push(n);
            let from = poly_of(parent);
            // A node reached in one step is a half-edge of its parent's polygon; otherwise it
            // ends a chain jump, whose portals are walked back one two-portal polygon at a time.
            let mut m = n as usize;
            while mesh.edge_owner[m] != from && guard > 0 {
                let entry = links.chains.entry_before(m);
                if entry == NONE {
                    break;
                }
                self.edges.push(entry);
                m = entry as usize;
                guard -= 1;
            }
            n = parent;
            guard -= 1;
        }
        self.edges.reverse();
    }

    fn search(
        &mut self,
        mesh: &QueryMesh,
        links: &LinkState,
        links_on: bool,
        (start_poly, start_pos, (goal_poly, goal_pos)): (u32, [f64; 3], (u32, [f64; 3])),
        h_scale: f64,
        allow_partial: bool,
    ) -> SearchEnd {
        let nav = mesh.mesh();
        let polygons = &nav.data().polygons;
        let half_edges = mesh.half_edge_count();
        let start_node = half_edges as u32;
        let goal_node = start_node + 1;
        let link_base = start_node + 2;
        self.generation += 1;
        if self.generation >= 1 << 31 {
            // Stamps hold twice the generation: before it wraps, wipe them once so that stamps
            // from 2^31 queries ago cannot look current.
            for n in &mut self.nodes {
                n.stamp = 0;
            }
            self.generation = 1;
        }
        let open_stamp = self.generation.wrapping_mul(2);
        let closed_stamp = open_stamp | 1;
        self.open.clear();
        self.pending = None;
        let goal_cost = self.area_costs[polygons[goal_poly as usize].area as usize];
        // Most filters exclude nothing: then the neighbour's area need not be read per edge.
        let excludes = self.area_costs.iter().any(|&c| c < 0.0);
        // Landmark bounds, when start and goal share a component; otherwise no path exists
        // and only a partial path (which scans everything reachable anyway) is worth a search.
        let landmarks = links.landmarks(mesh);
        let bounds = if links.connected(start_poly, goal_poly) {
            Some(landmarks.goal_bounds(mesh, links, goal_poly))
        } else if allow_partial {
            None
        } else {
            return SearchEnd::Unreachable;
        };
        // Links cheaper than the straight line between their ends cap the straight-line bound:
        // a path taking one costs at least the cheapest such link plus the straight line from
        // the nearest of their landings to the goal.
        let mut teleport_bound = f64::INFINITY;
        if links_on && !links.shortcuts.is_empty() {
            let (mut cost, mut landing) = (f64::INFINITY, f64::INFINITY);
            for &t in &links.shortcuts {
                let t = &links.takeoffs[t as usize];
                cost = cost.min(t.cost);
                landing = landing.min(dist3(t.to, goal_pos));
            }
            teleport_bound = cost + landing;
        }
        // Chain jumps skip nodes, which a partial path's scan of the reached polygons needs;
        // a chain holding the goal polygon must be walked so that polygon is expanded.
        let chains = &links.chains;
        let jumps = !allow_partial;
        let goal_exits = chains.exits_around(goal_poly);
        self.nodes[start_node as usize] = Node { g: 0.0, parent: NONE, stamp: open_stamp };
        let start_f = dist3(start_pos, goal_pos).min(teleport_bound) * h_scale;
        self.push_open(OpenEntry { f: start_f, node: start_node });
        while let Some(entry) = self.pop_open() {
            let u = entry.node;
            let node = &mut self.nodes[u as usize];
            if node.stamp == closed_stamp {
                continue; // stale duplicate of a node already expanded at a lower cost
            }
            node.stamp = closed_stamp;
            let g_u = node.g;
            if u == goal_node {
                return SearchEnd::Goal(node.parent);
            }
            let (poly, pos, came_from) = if u == start_node {
                (start_poly, start_pos, NONE)
            } else if u >= link_base {
                let t = &links.takeoffs[(u - link_base) as usize];
                (t.to_poly, t.to, NONE)
            } else {
                let he = &mesh.half_edges[u as usize];
                if he.neighbour == NONE {
                    continue;
                }
                (he.neighbour, he.mid, he.twin)
            };
            let cost = self.area_costs[polygons[poly as usize].area as usize];
            if cost < 0.0 {
                continue;
            }
            if poly == goal_poly && goal_cost >= 0.0 {
                self.relax(goal_node, u, g_u + dist3(pos, goal_pos) * goal_cost, 0.0, open_stamp);
            }
            let first = mesh.poly_first(poly);
            for h in first..first + mesh.poly_len(poly) {
                let he = mesh.half_edges[h];
                if h as u32 == came_from || he.neighbour == NONE {
                    continue;
                }
                if excludes && self.area_costs[polygons[he.neighbour as usize].area as usize] < 0.0 {
                    continue;
                }
                let mut g = g_u + dist3(pos, he.mid) * cost;
                let (mut v, mut v_mid) = (h, he.mid);
                if jumps {
                    let jump = chains.jump(h);
                    if jump.exit == DEAD_END {
                        if he.neighbour != goal_poly {
                            continue;
                        }
                    } else if jump.exit != NONE && jump.exit != goal_exits[0] && jump.exit != goal_exits[1] {
                        let chain_cost = self.area_costs[jump.area as usize];
                        if chain_cost < 0.0 {
                            continue;
                        }
                        g += jump.length * chain_cost;
                        v = jump.exit as usize;
                        v_mid = mesh.half_edges[v].mid;
                    }
                }
                let node = self.nodes[v];
                if node.stamp == closed_stamp || (node.stamp == open_stamp && g >= node.g) {
                    continue; // the heuristic is only computed for nodes that get pushed
                }
                let mut lower = dist3(v_mid, goal_pos).min(teleport_bound);
                if let Some(b) = &bounds {
                    lower = lower.max(landmarks.lower_bound(v as u32, b));
                }
                self.relax(v as u32, u, g, lower * h_scale, open_stamp);
            }
            if links_on && !links.takeoffs_from(poly).is_empty() {
                let here = Here { poly, pos, g: g_u, cost, node: u };
                let ctx = LinkContext { links, landmarks, bounds: bounds.as_ref(), teleport_bound, goal_pos, h_scale };
                self.relax_takeoffs(mesh, &ctx, here, open_stamp);
            }
        }
        if !allow_partial {
            return SearchEnd::Unreachable;
        }
        // Unreachable: the reached polygon whose nearest point is nearest the goal.
        let mut best = (NONE, start_poly);
        let mut best_point = mesh.closest_point_on_polygon(start_poly, xz(goal_pos));
        let mut best_d = dist3(best_point, goal_pos);
        let landed = (0..links.takeoffs.len()).map(|t| (link_base + t as u32, links.takeoffs[t].to_poly));
        let crossed = (0..half_edges).filter_map(|h| mesh.edge_neighbour(h).map(|q| (h as u32, q)));
        for (node, poly) in crossed.chain(landed) {
            if self.nodes[node as usize].stamp != closed_stamp || poly == best.1 {
                continue;
            }
            let c = mesh.closest_point_on_polygon(poly, xz(goal_pos));
            let d = dist3(c, goal_pos);
            if d < best_d {
                best = (node, poly);
                best_point = c;
                best_d = d;
            }
        }
        SearchEnd::Partial(if best.0 == NONE { start_node } else { best.0 }, best_point)
    }

    /// Offers the landing nodes of the take-offs from `here.poly` (kept out of the search loop,
    /// which most polygons leave without a link).
    #[inline(never)]
    fn relax_takeoffs(&mut self, mesh: &QueryMesh, ctx: &LinkContext, here: Here, open_stamp: u32) {
        let polygons = &mesh.mesh().data().polygons;
        let half_edges = mesh.half_edge_count() as u32;
        let closed_stamp = open_stamp | 1;
        for &t in ctx.links.takeoffs_from(here.poly) {
            let k = &ctx.links.takeoffs[t as usize];
            let link_cost = self.area_costs[k.area as usize];
            if link_cost < 0.0 || self.area_costs[polygons[k.to_poly as usize].area as usize] < 0.0 {
                continue;
            }
            let v = half_edges + 2 + t;
            let g = here.g + dist3(here.pos, k.from) * here.cost + k.cost * link_cost;
            let node = self.nodes[v as usize];
            if node.stamp == closed_stamp || (node.stamp == open_stamp && g >= node.g) {
                continue;
            }
            let mut lower = dist3(k.to, ctx.goal_pos).min(ctx.teleport_bound);
            if let Some(b) = ctx.bounds {
                // The landing point's landmark row.
                let row = half_edges + 2 * k.active + u32::from(!k.reversed);
                lower = lower.max(ctx.landmarks.lower_bound(row, b));
            }
            self.relax(v, here.node, g, lower * ctx.h_scale, open_stamp);
        }
    }

    /// Adds an entry to the open list.
    #[inline]
    fn push_open(&mut self, entry: OpenEntry) {
        match self.pending {
            // `OpenEntry` orders the lowest `f` greatest (the heap is a max-heap).
            Some(held) if entry > held => {
                self.open.push(held);
                self.pending = Some(entry);
            }
            Some(_) => self.open.push(entry),
            None => self.pending = Some(entry),
        }
    }

    /// Takes the open list's entry of lowest `f` (ties by node index, as the heap alone would).
    #[inline]
    fn pop_open(&mut self) -> Option<OpenEntry> {
        match self.pending {
            Some(held) if self.open.peek().is_none_or(|top| held > *top) => {
                self.pending = None;
                Some(held)
            }
            _ => self.open.pop(),
        }
    }

    /// Offers node `v` the cost `g` via `parent`; `h` is its heuristic. Closed nodes keep
    /// their cost (the heuristic is consistent, so it is final).
    #[inline]
    fn relax(&mut self, v: u32, parent: u32, g: f64, h: f64, open_stamp: u32) {
        let node = &mut self.nodes[v as usize];
        if node.stamp & !1 != open_stamp || (g < node.g && node.stamp == open_stamp) {
            *node = Node { g, parent, stamp: open_stamp };
            self.push_open(OpenEntry { f: g + h, node: v });
        }
    }
}
