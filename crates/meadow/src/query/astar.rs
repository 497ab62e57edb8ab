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

mod direct;
mod shortcut;

use crate::point::IntoPoint;
use direct::Straight;
use shortcut::Corner;

use super::chains::DEAD_END;
use super::links::LinkState;
use super::{check_endpoints, locate_endpoints, Location, OpenEntry, QueryFilter, QueryMesh, NONE};
use super::{dist3, funnel, polyline_length, refine, xz, Path, PathError, PathLink, PathOptions, PathStyle};
use crate::geom::Point2;

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
///
/// ```
/// use meadow::{NavMesh, PathError, PathQuery, QueryFilter, QueryMesh};
/// # let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/assets/box_floor.nav"));
/// let mesh = QueryMesh::new(NavMesh::from_bytes(bytes)?);
/// let mut query = PathQuery::new(&mesh); // one per thread, reused
/// let filter = QueryFilter::new();
/// let across = query.find_path(&mesh, [-8.0, 0.0, 8.0], [8.0, 0.0, 8.0], &filter)?;
/// assert_eq!(across.points.len(), 2); // nothing in the way: the straight segment
/// // The box's top is a floor of its own, reached by no walk.
/// let onto_box = query.find_path(&mesh, [-8.0, 0.0, 8.0], [0.0, 2.0, 0.0], &filter);
/// assert_eq!(onto_box.unwrap_err(), PathError::Unreachable);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    /// Nodes the last search expanded (see [`PathQuery::last_expanded`]).
    expanded: u32,
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

    /// How many search nodes (portals, the start, link take-offs) the last query's A* expanded:
    /// the work a query did, for benchmarks and for comparing meshes (0 when it needed no
    /// search).
    pub fn last_expanded(&self) -> u32 {
        self.expanded
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
        start: impl IntoPoint,
        goal: impl IntoPoint,
        filter: &QueryFilter,
    ) -> Result<Path, PathError> {
        let (start, goal) = (start.into_point(), goal.into_point());
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
        start: impl IntoPoint,
        goal: impl IntoPoint,
        filter: &QueryFilter,
        options: PathOptions,
        path: &mut Path,
    ) -> Result<(), PathError> {
        match locate_endpoints(mesh, start.into_point(), goal.into_point()) {
            Ok((start, goal)) => self.find_path_between(mesh, start, goal, filter, options, path),
            Err(e) => {
                path.clear();
                self.expanded = 0;
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
        // A query answered without a search (or refused) expanded nothing.
        self.expanded = 0;
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

    /// Whether the last found path went round one island by the certificate of
    /// `round_one_island` (for tests that check those paths are shortest). They read the
    /// search's internals, which no other API shows, hence the `test-hooks` feature.
    #[cfg(any(test, feature = "test-hooks"))]
    pub fn last_went_round_one_island(&self) -> bool {
        self.round_island
    }

    /// Makes the shortcut pass pull the whole corridor after every splice (for tests that check
    /// pulling only the changed stretch changes no path).
    #[cfg(any(test, feature = "test-hooks"))]
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
        self.expanded = 0;
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
            self.expanded += 1;
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
