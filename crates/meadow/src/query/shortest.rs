//! `find_shortest_path`: the Euclidean-shortest any-angle path (in XZ) on the navmesh, by
//! Polyanya-style search (Cui, Harabor & Grastien, IJCAI 2017, "Compromise-free Pathfinding on a
//! Navigation Mesh").
//!
//! When the mesh carries a baked corner visibility graph and the query is one the graph answers
//! exactly, [`ShortestPathQuery::find_shortest_path`] answers over the graph instead
//! (`query/visibility.rs`); this search needs no graph and handles every filter and off-mesh
//! links. A search node is an interval on a polygon edge plus a root (the start or a mesh
//! vertex) that sees the whole interval; the path so far runs from the start to the root. A node
//! is expanded by projecting the rays from the root through the interval's ends across the next
//! polygon: the edge pieces between the rays are *observable* successors (same root); where the
//! interval ends at a corner vertex, the path may turn there, and the region behind the corner
//! is searched with that vertex as the new root (*non-observable* successors). `f = g + h` with
//! `h` the distance from the root through the interval to the goal (the goal mirrored across the
//! interval's line when it lies on the root's side), an exact lower bound, so the first goal
//! node taken from the open list is optimal.
//!
//! Corners: a vertex is a corner when, under the filter, boundary edges (walls, or edges into
//! excluded polygons) meet there and the walkable angle exceeds 180° — a taut path never bends
//! where free space is locally convex, so the baked meshes' many collinear boundary vertices
//! are not turning points. Mesh adjacency decides this (per-vertex polygon fans, built on first
//! use and kept in the [`QueryMesh`]); all topology tests are exact `orient2d` predicates.
//!
//! Pruning: a per-vertex table of the best `g` at which the vertex became a root discards every
//! node whose root was since reached more cheaply (equal turns are made once); a node with a
//! single successor of the same root is expanded at once without the open list ("collapsing").
//! A turn searches, with the corner as root, the polygons from the next one round the corner up
//! to the obstacle (the only directions in which a bend there is taut), clipped to the open
//! half-plane behind the corner. Vertices where walkable sectors touch only at a point ("pinch"
//! vertices) are turned at over their whole fan: like the visibility-graph definition of
//! shortest paths (and its brute-force oracle in the tests), a path may pass through such a
//! point. Point intervals are kept only at corner vertices (to turn there). Without excluded
//! areas, a goal in another component (polygons linked by shared vertices) is unreachable at
//! once; otherwise an unreachable goal costs a search of everything reachable.
//!
//! Off-mesh links: a polygon holding a link's take-off point is a place the path may leave the
//! mesh. Entering it (or searching it from a root inside it) offers a *take-off* node: the
//! exact distance from the root through the interval to the take-off point, plus the link's
//! cost (metres, its area's multiplier not applied, like every area here). Taken from the open
//! list, a take-off lands: the landing point becomes a root, like the start, with that cost,
//! and the polygons holding it are searched whole. One landing per direction of a link is kept
//! (the cheapest). Links cheaper than the XZ distance between their ends (teleporters) cap the
//! heuristic at the cheapest such link plus the distance from its landing to the goal; other
//! links cannot beat the straight line, so the interval bound stands for them.
//!
//! Areas: polygons of areas the filter excludes are obstacles. Area costs are not honoured: a
//! Euclidean search treats every included area as cost 1 (use `PathQuery::find_path` for costed
//! paths). The search is in XZ; on slopes the XZ-shortest path need not be the 3D-shortest.

mod fans;
pub(super) mod geometry;
mod links;
mod path;

use crate::point::IntoPoint;
use crate::tolerance::SHORTEST_ROOT_SLACK;
use fans::corner_bits;
pub(crate) use fans::lies_on_edge;
pub(crate) use fans::vertex_at;
pub(crate) use fans::VertexFans;
pub(crate) use fans::{CORNER, PINCH};
use geometry::{ahead, clip, end_on_far, thin_wedge_mouth, via_interval, wedge_open};
use path::straight_segment;

use super::links::LinkState;
use super::{check_endpoints, dist2, locate_endpoints, polyline_length, xz};
use super::{Location, OpenEntry, Path, PathError, PathLink, QueryFilter, QueryMesh, NONE};
use crate::geom::{orient2d, Point2};
use std::collections::BinaryHeap;

/// Root id of the start point when it is not a mesh vertex.
const START: u32 = u32::MAX;
/// `edge` of a goal node.
const GOAL: u32 = u32::MAX;
/// `edge` of a pending turn at the pinch vertex `ia` of polygon `from` (which holds the root):
/// made when taken from the open list rather than at once, so that chains of pinches need no
/// recursion.
const TURN: u32 = u32::MAX - 1;
/// `edge` of a take-off by direction `t` of the link snapshot: `TAKEOFF + t`. The take-off point
/// is `ib`, reached from the root via `ia` (the take-off point itself when seen directly).
/// Half-edge indices stay below it (a mesh of 2^31 half-edges would need tens of gigabytes).
const TAKEOFF: u32 = 1 << 31;
/// Root id of a landing point: `LANDING + t` for take-off direction `t`.
const LANDING: u32 = 1 << 31;

/// Whether a node's `edge` is an interval's half-edge (not a goal, turn or take-off).
#[inline]
fn is_interval(edge: u32) -> bool {
    edge < TAKEOFF
}

/// The take-off direction of a node's `edge`, if it is a take-off.
#[inline]
fn takeoff_of(edge: u32) -> Option<u32> {
    (TAKEOFF..TURN).contains(&edge).then(|| edge - TAKEOFF)
}

/// A search node: root, interval on half-edge `edge` (crossed from `from` into its neighbour);
/// or, with `edge == GOAL`, the goal reached from the root via `ia` (the goal itself when the
/// goal is seen directly); or, with `edge == TURN`, a turn at a pinch vertex seen from the root.
#[derive(Clone, Copy, Debug)]
struct Node {
    root: Point2,
    /// Interval end nearer the edge's start vertex `a` (on the root's right).
    ia: Point2,
    /// Interval end nearer the edge's end vertex `b` (on the root's left).
    ib: Point2,
    /// The wedge's right and left boundary rays as lines through two exact points, oriented
    /// away from the root: a computed interval end is rounded, but whether a vertex lies on,
    /// inside or outside the wedge is decided on these exact lines (grid meshes put vertices
    /// exactly on rays through corners all the time).
    ra: [Point2; 2],
    rb: [Point2; 2],
    /// Path length from the start to the root (XZ).
    g: f64,
    /// Mesh vertex of the root, or `START`.
    root_id: u32,
    /// Half-edge the interval lies on (in polygon `from`), or `GOAL` or `TURN`.
    edge: u32,
    /// The polygon the interval's half-edge belongs to (holding the root side).
    from: u32,
    parent: u32,
}

/// Reusable state of [`find_shortest_path`](ShortestPathQuery::find_shortest_path) queries: node
/// pool, open list and per-vertex / per-polygon tables stamped per query (never cleared). Queries
/// allocate only when they need more room than any before them; keep one per thread.
///
/// The path is the Euclidean-shortest one in XZ (Polyanya search: any-angle, optimal, no baked
/// visibility graph), turning only at mesh vertices; its `length` is the 3D length of that
/// polyline, like [`PathQuery::find_path`](super::PathQuery::find_path)'s. Areas the filter
/// excludes are obstacles; every included area counts as cost 1 (a Euclidean search cannot
/// weigh areas, use `find_path` for that), cost overrides are only validated. Polygons touching
/// at a single vertex are connected through it, as in the visibility-graph definition of
/// shortest paths. An unreachable goal is [`PathError::Unreachable`] (no partial paths).
///
/// ```
/// use meadow::query::{QueryFilter, QueryMesh, ShortestPathQuery};
/// # let data = meadow_testkit::testmesh::GridSpec {
/// #     cols: 3, rows: 3, blocked: vec![false, false, false, false, true], ..Default::default()
/// # }.build();
/// let mesh = QueryMesh::new(meadow::NavMesh::new(data)?); // a 3 × 3 grid, centre cell blocked
/// let mut query = ShortestPathQuery::new(&mesh); // one per thread, reused for every query
/// let path = query.find_shortest_path(&mesh, [0.5, 0.0, 1.5], [2.5, 0.0, 1.4], &QueryFilter::new())?;
/// assert_eq!(path.points[1], [1.0, 0.0, 1.0]); // taut around the blocked cell's corners
/// assert_eq!(path.points[2], [2.0, 0.0, 1.0]);
/// assert!((path.length - (0.5f64.sqrt() + 1.0 + 0.41f64.sqrt())).abs() < 1e-12);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ShortestPathQuery {
    nodes: Vec<Node>,
    open: BinaryHeap<OpenEntry>,
    generation: u32,
    /// Per vertex: best `g` at which it became a root, valid when `root_stamp` is current.
    root_g: Vec<f64>,
    root_stamp: Vec<u32>,
    /// Per vertex: the previous root and the sides (bits: left, right, unrestricted) of the
    /// turns made there at `root_g`, so that repeated equal turns are made once.
    turn_from: Vec<u32>,
    turn_sides: Vec<u8>,
    turn_from_point: Vec<Point2>,
    /// Per vertex: `CORNER | PINCH` bits, valid when `corner_stamp` is current.
    corner: Vec<u8>,
    corner_stamp: Vec<u32>,
    /// Per polygon: stamps marking the polygons holding the start / the goal.
    start_mark: Vec<u32>,
    goal_mark: Vec<u32>,
    /// Per link take-off direction: the best landing cost pushed, valid when `link_stamp` is
    /// current.
    link_g: Vec<f64>,
    link_stamp: Vec<u32>,
    /// Scratch: the polygons holding a landing point.
    landing: Vec<u32>,
    /// Scratch: polygon stack of the start/goal flood and the included polygons it found,
    /// successors of one expansion.
    stack: Vec<u32>,
    found: Vec<u32>,
    succ: Vec<Node>,
    /// Buffers of `find_shortest_path`'s result before it is copied out.
    scratch_path: Path,
    /// Scratch memory of answers over the baked visibility graph.
    graph: super::visibility::VisibilitySearch,
    /// Whether queries skip the baked visibility graph (off by default: the graph answers
    /// where it is exact).
    search_only: bool,
}

/// The search context of one query (borrowed pieces of the query state and the inputs).
struct Search<'a> {
    mesh: &'a QueryMesh,
    fans: &'a VertexFans,
    filter: &'a QueryFilter,
    goal: Point2,
    gen: u32,
    /// Whether the filter excludes any area the mesh uses.
    any_excluded: bool,
    /// The link snapshot of this query, and whether the filter lets the path take links.
    links: &'a LinkState,
    links_on: bool,
    /// Cap on the remaining distance: the cheapest teleporter plus the distance from the
    /// nearest teleporter landing to the goal (infinite without teleporters).
    teleport_bound: f64,
}

impl Search<'_> {
    fn included(&self, poly: u32) -> bool {
        if !self.any_excluded {
            return true;
        }
        let nav = self.mesh.mesh();
        self.filter.area_cost(nav, nav.data().polygons[poly as usize].area).is_some()
    }

    /// Whether half-edge `h` leads into a polygon the path may enter.
    fn passable(&self, h: usize) -> Option<u32> {
        self.mesh.edge_neighbour(h).filter(|&q| self.included(q))
    }

    /// Whether take-off direction `t` may be used: links allowed, its area and its landing
    /// polygon included.
    fn takeoff_allowed(&self, t: u32) -> bool {
        let k = &self.links.takeoffs[t as usize];
        self.links_on
            && self.filter.link_cost(self.mesh.mesh(), k.area).is_some()
            && self.included(k.to_poly)
            && self.included(k.from_poly)
    }

    /// A lower bound on the distance left from point `p` to the goal.
    #[inline]
    fn remaining(&self, p: Point2) -> f64 {
        dist2(p, self.goal).min(self.teleport_bound)
    }
}

impl ShortestPathQuery {
    /// Query state sized for `mesh`.
    pub fn new(mesh: &QueryMesh) -> ShortestPathQuery {
        let mut q = ShortestPathQuery::default();
        q.reserve(mesh);
        q
    }

    /// Grows the per-vertex and per-polygon tables to fit `mesh`.
    pub fn reserve(&mut self, mesh: &QueryMesh) {
        let v = mesh.mesh().vertices().len();
        if self.root_g.len() < v {
            self.root_g.resize(v, 0.0);
            self.root_stamp.resize(v, 0);
            self.turn_from.resize(v, NONE);
            self.turn_sides.resize(v, 0);
            self.turn_from_point.resize(v, [0.0; 2]);
            self.corner.resize(v, 0);
            self.corner_stamp.resize(v, 0);
        }
        let p = mesh.mesh().polygon_count();
        if self.start_mark.len() < p {
            self.start_mark.resize(p, 0);
            self.goal_mark.resize(p, 0);
        }
        self.reserve_links(mesh.link_state().takeoffs.len());
        let want = mesh.half_edge_count().saturating_sub(self.nodes.len());
        self.nodes.reserve(want);
        let want = mesh.half_edge_count().saturating_sub(self.open.len());
        self.open.reserve(want);
    }

    /// Grows the per-take-off tables to `t` directions.
    fn reserve_links(&mut self, t: usize) {
        if self.link_g.len() < t {
            self.link_g.resize(t, 0.0);
            self.link_stamp.resize(t, 0);
        }
    }

    /// Finds the shortest path from `start` to `goal`. Allocates only the returned [`Path`]'s
    /// vectors once warmed up; see [`ShortestPathQuery::find_shortest_path_into`] for the
    /// allocation-free form.
    ///
    /// **Which algorithm answers.** When the mesh carries a corner visibility graph
    /// ([`NavMesh::visibility`](crate::NavMesh::visibility)), the filter excludes no area the
    /// mesh has, and no off-mesh link can be taken (the mesh has none, baked or added, or the
    /// filter switches links off), the path is searched over the graph (one best-first search
    /// over the windows the start sees and the graph's corners, each corner taken joined to the
    /// goal by one ray through the mesh), unless
    /// [`ShortestPathQuery::use_visibility_graph`] turned that off; otherwise by the search
    /// described in the module docs
    /// ([`ShortestPathQuery::find_shortest_path_by_search`]). Both give Euclidean-shortest
    /// paths in XZ, so the choice changes speed, not lengths. Cost overrides do not matter:
    /// exact paths count every included area as cost 1 either way (they are still validated).
    pub fn find_shortest_path(
        &mut self,
        mesh: &QueryMesh,
        start: impl IntoPoint,
        goal: impl IntoPoint,
        filter: &QueryFilter,
    ) -> Result<Path, PathError> {
        let (start, goal) = (start.into_point(), goal.into_point());
        self.copy_out(|q, path| q.find_shortest_path_into(mesh, start, goal, filter, path))
    }

    /// [`ShortestPathQuery::find_shortest_path`] always by the search of the module docs, never
    /// over a baked visibility graph (for comparisons and benchmarks).
    pub fn find_shortest_path_by_search(
        &mut self,
        mesh: &QueryMesh,
        start: [f64; 3],
        goal: [f64; 3],
        filter: &QueryFilter,
    ) -> Result<Path, PathError> {
        self.copy_out(|q, path| {
            path.clear();
            let (s, g) = locate_endpoints(mesh, start, goal)?;
            q.search_between(mesh, s, g, filter, path)
        })
    }

    /// Runs `find` on the scratch path and copies the result out.
    fn copy_out(
        &mut self,
        find: impl FnOnce(&mut ShortestPathQuery, &mut Path) -> Result<(), PathError>,
    ) -> Result<Path, PathError> {
        let mut scratch = std::mem::take(&mut self.scratch_path);
        let result = find(self, &mut scratch);
        let path = result.map(|()| Path {
            points: scratch.points.clone(),
            length: scratch.length,
            corridor: scratch.corridor.clone(),
            partial: false,
            links: scratch.links.clone(),
        });
        self.scratch_path = scratch;
        path
    }

    /// Finds the shortest path and writes it into `path`, reusing its buffers (cleared on error).
    /// The algorithm is chosen as for [`ShortestPathQuery::find_shortest_path`].
    pub fn find_shortest_path_into(
        &mut self,
        mesh: &QueryMesh,
        start: [f64; 3],
        goal: [f64; 3],
        filter: &QueryFilter,
        path: &mut Path,
    ) -> Result<(), PathError> {
        path.clear();
        let (s, g) = locate_endpoints(mesh, start, goal)?;
        self.find_shortest_path_between(mesh, s, g, filter, path)
    }

    /// Like [`ShortestPathQuery::find_shortest_path_into`], for a start and goal already placed on
    /// polygons (by [`QueryMesh::locate`] or [`QueryMesh::nearest_point`]); the algorithm is
    /// chosen as for [`ShortestPathQuery::find_shortest_path`].
    ///
    /// The path's points are the start, the mesh vertices where it turns, and the goal (always at
    /// least two points); `corridor` lists the polygons it crosses, where consecutive polygons
    /// share an edge or, at a turn, the turning vertex. A start or goal on the border of an
    /// excluded polygon uses the included polygon next to it; [`PathError::StartExcluded`] means
    /// no included polygon holds the start.
    pub fn find_shortest_path_between(
        &mut self,
        mesh: &QueryMesh,
        start: Location,
        goal: Location,
        filter: &QueryFilter,
        path: &mut Path,
    ) -> Result<(), PathError> {
        if self.search_only {
            return self.search_between(mesh, start, goal, filter, path);
        }
        path.clear();
        check_endpoints(mesh, &start, &goal)?;
        filter.heuristic_scale()?;
        let (Some(graph), Some(table)) = (mesh.mesh().visibility(), mesh.corner_table()) else {
            return self.search_between(mesh, start, goal, filter, path);
        };
        if !Self::answers_by_graph(mesh, filter) {
            return self.search_between(mesh, start, goal, filter, path);
        }
        if self.graph.find(mesh, graph, table, start, goal, path) {
            Ok(())
        } else {
            path.clear();
            Err(PathError::Unreachable)
        }
    }

    /// Whether this query answers over the mesh's baked visibility graph where that is exact
    /// (the rule is on [`ShortestPathQuery::find_shortest_path`]); on by default. Both ways give
    /// the same lengths; on the third-party levels the graph answers with a lower mean and a far
    /// lower 90th percentile and worst case, the search with a lower median on open levels (see
    /// the `exact_vs_search` benchmark).
    pub fn use_visibility_graph(&mut self, on: bool) {
        self.search_only = !on;
    }

    /// Whether [`ShortestPathQuery::find_shortest_path`] answers queries on `mesh` under
    /// `filter` over the mesh's visibility graph (unless [`ShortestPathQuery::use_visibility_graph`]
    /// turned it off; the rule is on that method).
    pub fn answers_by_graph(mesh: &QueryMesh, filter: &QueryFilter) -> bool {
        let nav = mesh.mesh();
        if mesh.corner_table().is_none() {
            return false;
        }
        let any_excluded = (0..nav.areas().len()).any(|a| filter.area_cost(nav, a as u16).is_none());
        let links_on = filter.allows_links() && !mesh.link_state().is_empty();
        !(any_excluded || links_on)
    }

    /// The search of the module docs between two placed points.
    fn search_between(
        &mut self,
        mesh: &QueryMesh,
        start: Location,
        goal: Location,
        filter: &QueryFilter,
        path: &mut Path,
    ) -> Result<(), PathError> {
        path.clear();
        check_endpoints(mesh, &start, &goal)?;
        filter.heuristic_scale()?;
        let fans = mesh.vertex_fans();
        let nav = mesh.mesh();
        // (Validation keeps every polygon's area index below the area count.)
        let any_excluded = (0..nav.areas().len()).any(|a| filter.area_cost(nav, a as u16).is_none());
        let links = mesh.link_state();
        let links = &*links;
        let links_on = filter.allows_links() && !links.is_empty();
        // Teleporters: links cheaper than the XZ distance between their ends.
        let (mut cheapest, mut takeoff, mut landing) = (f64::INFINITY, f64::INFINITY, f64::INFINITY);
        if links_on {
            for k in links.takeoffs.iter().filter(|k| k.cost < dist2(xz(k.from), xz(k.to))) {
                if filter.link_cost(nav, k.area).is_some() {
                    cheapest = cheapest.min(k.cost);
                    takeoff = takeoff.min(dist2(xz(start.point), xz(k.from)));
                    landing = landing.min(dist2(xz(k.to), xz(goal.point)));
                }
            }
        }
        let teleport_bound = cheapest + landing;
        // The straight segment is shortest unless a teleporter may beat it.
        let straight_bound = takeoff + cheapest + landing;
        if (start.polygon != goal.polygon || straight_bound.is_finite())
            && straight_segment(mesh, filter, &start, &goal, path)
        {
            if dist2(xz(start.point), xz(goal.point)) <= straight_bound {
                return Ok(());
            }
            path.clear();
        }
        let gen = self.next_generation(mesh);
        let search =
            Search { mesh, fans, filter, goal: xz(goal.point), gen, any_excluded, links, links_on, teleport_bound };
        let Some(end) = self.search(&search, start, goal)? else {
            return Err(PathError::Unreachable);
        };
        let ends_included = (search.included(start.polygon), search.included(goal.polygon));
        self.write_path(mesh, start, goal, end, ends_included, path);
        Ok(())
    }

    /// Statistics of the last query's search, for tests: (nodes, distinct (root, g) pairs,
    /// nodes that exactly repeat an earlier one).
    #[cfg(test)]
    pub(crate) fn search_stats(&self) -> (usize, usize, usize) {
        let roots: std::collections::BTreeSet<(u32, u64)> =
            self.nodes.iter().map(|n| (n.root_id, n.g.to_bits())).collect();
        let key = |n: &Node| (n.root_id, n.edge, n.g.to_bits(), n.ia.map(f64::to_bits), n.ib.map(f64::to_bits));
        let distinct: std::collections::BTreeSet<_> = self.nodes.iter().map(key).collect();
        (self.nodes.len(), roots.len(), self.nodes.len() - distinct.len())
    }

    /// Starts a new query generation (wiping the stamps once every 2^32 queries).
    fn next_generation(&mut self, mesh: &QueryMesh) -> u32 {
        self.reserve(mesh);
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            for v in [&mut self.root_stamp, &mut self.corner_stamp, &mut self.start_mark, &mut self.goal_mark] {
                v.fill(0);
            }
            self.generation = 1;
        }
        self.nodes.clear();
        self.open.clear();
        self.generation
    }

    /// Marks (with stamp `gen`) the polygons holding `p`: the whole fan when `p` is a mesh
    /// vertex, else `poly` and the polygons across edges through `p` (excluded ones too, so that
    /// a point on the border of an excluded polygon still finds its included neighbour); the
    /// included ones are listed in `found`. Returns the vertex `p` sits on, if any.
    fn mark_polygons(&mut self, s: &Search, poly: u32, p: Point2, goal_side: bool) -> Option<u32> {
        let mesh = s.mesh;
        let marks = if goal_side { &mut self.goal_mark } else { &mut self.start_mark };
        self.found.clear();
        let vertex = vertex_at(mesh, poly, p);
        if let Some(v) = vertex {
            for &(q, _) in s.fans.fan(v) {
                if s.included(q) && marks[q as usize] != s.gen {
                    marks[q as usize] = s.gen;
                    self.found.push(q);
                }
            }
            return vertex;
        }
        self.stack.clear();
        marks[poly as usize] = s.gen;
        self.stack.push(poly);
        while let Some(r) = self.stack.pop() {
            if s.included(r) {
                self.found.push(r);
            }
            let first = mesh.poly_first(r);
            for k in 0..mesh.poly_len(r) {
                let (a, b) = mesh.edge_endpoints(first + k);
                if !lies_on_edge(xz(a), xz(b), p) {
                    continue;
                }
                if let Some(q) = mesh.edge_neighbour(first + k) {
                    if marks[q as usize] != s.gen {
                        marks[q as usize] = s.gen;
                        self.stack.push(q);
                    }
                }
            }
        }
        None
    }

    /// `CORNER` / `PINCH` bits of vertex `v` under the filter (see [`corner_bits`]): from the
    /// mesh's table when the filter excludes nothing, else computed once per query.
    fn corner_bits(&mut self, s: &Search, v: u32) -> u8 {
        if !s.any_excluded {
            return s.fans.corner[v as usize];
        }
        if self.corner_stamp[v as usize] == s.gen {
            return self.corner[v as usize];
        }
        let bits = corner_bits(s.mesh, s.fans, v, |q| s.included(q));
        self.corner[v as usize] = bits;
        self.corner_stamp[v as usize] = s.gen;
        bits
    }

    /// Whether a node rooted at `v` with cost `g` is dominated by an earlier root at `v`.
    fn root_dominated(&self, s: &Search, v: u32, g: f64) -> bool {
        // (Landing roots and the start are not vertices: landings are pruned per link.)
        v < LANDING && self.root_stamp[v as usize] == s.gen && g > self.root_g[v as usize] * (1.0 + SHORTEST_ROOT_SLACK)
    }

    /// Runs the search; returns the goal node, or `None` when the goal is unreachable.
    fn search(&mut self, s: &Search, start: Location, goal: Location) -> Result<Option<u32>, PathError> {
        let sp = xz(start.point);
        self.mark_polygons(s, goal.polygon, xz(goal.point), true);
        let start_vertex = self.mark_polygons(s, start.polygon, sp, false);
        if self.found.is_empty() {
            return Err(PathError::StartExcluded);
        }
        // (Links may join components: then only a search tells.)
        if !s.any_excluded
            && !s.links_on
            && s.fans.component[start.polygon as usize] != s.fans.component[goal.polygon as usize]
        {
            return Ok(None);
        }
        let root_id = start_vertex.unwrap_or(START);
        if let Some(v) = start_vertex {
            self.root_g[v as usize] = 0.0;
            self.root_stamp[v as usize] = s.gen;
            self.turn_from[v as usize] = START;
            self.turn_from_point[v as usize] = sp;
            self.turn_sides[v as usize] = 0;
        }
        // Seeds: the start's polygons seen whole from the start (the goal in one of them is
        // seen directly).
        self.succ.clear();
        for i in 0..self.found.len() {
            let q = self.found[i];
            self.fan_polygon(s, q, sp, root_id, 0.0, None, NONE);
        }
        // A goal node among the seeds means the straight segment: done.
        if let Some(goal_node) = self.succ.iter().position(|n| n.edge == GOAL) {
            let n = self.succ[goal_node];
            self.nodes.push(n);
            return Ok(Some(self.nodes.len() as u32 - 1));
        }
        self.push_successors(s);
        // Cap on node count: no input should get near it (each vertex is a root a few times at
        // most); it turns a reasoning error or numeric loop into "unreachable" instead of a hang.
        let cap = 64 * (s.mesh.half_edge_count() + s.links.takeoffs.len() + 16);
        while let Some(OpenEntry { node, .. }) = self.open.pop() {
            let mut cur = self.nodes[node as usize];
            if cur.edge == GOAL {
                return Ok(Some(node));
            }
            let mut cur_idx = node;
            // Collapse chains of single same-root successors without the open list.
            loop {
                if self.root_dominated(s, cur.root_id, cur.g) || self.nodes.len() > cap {
                    break;
                }
                self.succ.clear();
                if cur.edge == TURN {
                    if let Some(v) = vertex_at(s.mesh, cur.from, cur.ia) {
                        self.turn(s, v, cur.g + dist2(cur.root, cur.ia), None, None, cur_idx);
                    }
                } else if let Some(t) = takeoff_of(cur.edge) {
                    self.land(s, cur, t, cur_idx);
                } else {
                    self.expand(s, cur, cur_idx);
                }
                let single = self.succ.len() == 1 && is_interval(self.succ[0].edge);
                if single && self.succ[0].root_id == cur.root_id {
                    let next = self.succ[0];
                    self.nodes.push(next);
                    cur_idx = self.nodes.len() as u32 - 1;
                    cur = next;
                    continue;
                }
                self.push_successors(s);
                break;
            }
        }
        Ok(None)
    }

    /// Moves `succ` into the node pool and the open list.
    fn push_successors(&mut self, s: &Search) {
        for i in 0..self.succ.len() {
            let n = self.succ[i];
            let f = if is_interval(n.edge) {
                let (u, w) = s.mesh.edge_endpoints(n.edge as usize);
                let (via, _) = via_interval(n.root, (n.ia, n.ib), n.ra, n.rb, [xz(u), xz(w)], s.goal);
                n.g + via.min(s.teleport_bound)
            } else if n.edge == GOAL {
                n.g + dist2(n.root, n.ia) + dist2(n.ia, s.goal)
            } else if n.edge == TURN {
                n.g + dist2(n.root, n.ia) + s.remaining(n.ia)
            } else {
                let t = n.edge - TAKEOFF;
                self.landing_cost(s, &n, t) + s.remaining(xz(s.links.takeoffs[t as usize].to))
            };
            self.nodes.push(n);
            self.open.push(OpenEntry { f, node: self.nodes.len() as u32 - 1 });
        }
        self.succ.clear();
    }

    /// Successors of polygon `poly` seen from `root` (a point of `poly`'s boundary or interior)
    /// through the whole polygon, optionally only in the closed half-plane `clip_to`:
    /// `(p0, p1, side)` keeps `side * orient2d(p0, p1, x) >= 0`. Adds the goal node when `poly`
    /// holds the goal.
    #[allow(clippy::too_many_arguments)]
    fn fan_polygon(
        &mut self,
        s: &Search,
        poly: u32,
        root: Point2,
        root_id: u32,
        g: f64,
        clip_to: Option<(Point2, Point2, f64)>,
        parent: u32,
    ) {
        let base =
            Node { root, ia: root, ib: root, ra: [root; 2], rb: [root; 2], g, root_id, edge: GOAL, from: poly, parent };
        // Take-off points of the polygon are seen directly from a root on or in it.
        if s.links_on {
            for i in 0..s.links.takeoffs_from(poly).len() {
                let t = s.links.takeoffs_from(poly)[i];
                let p = xz(s.links.takeoffs[t as usize].from);
                self.offer_takeoff(s, Node { ia: p, ib: p, edge: TAKEOFF + t, ..base });
            }
        }
        if self.goal_mark[poly as usize] == s.gen {
            self.succ.push(Node { ia: s.goal, ib: s.goal, ..base });
            return;
        }
        let first = s.mesh.poly_first(poly);
        // Pinch vertices of the polygon are seen from the root: the path may pass through them.
        for k in 0..s.mesh.poly_len(poly) {
            let v = s.mesh.mesh().data().polygon_vertices[first + k];
            let w = xz(s.mesh.mesh().vertices()[v as usize]);
            let inside = clip_to.is_none_or(|(p0, p1, side)| orient2d(p0, p1, w) * side >= 0.0);
            if w != root && inside && self.corner_bits(s, v) & PINCH != 0 {
                self.succ.push(Node { ia: w, ib: w, edge: TURN, ..base });
            }
        }
        for k in 0..s.mesh.poly_len(poly) {
            let h = first + k;
            if s.passable(h).is_none() {
                continue;
            }
            let (a, b) = s.mesh.edge_endpoints(h);
            let (a, b) = (xz(a), xz(b));
            let side_of_root = orient2d(a, b, root);
            if side_of_root < 0.0 {
                continue;
            }
            if side_of_root == 0.0 {
                // The root is on this edge's line. On the edge itself, the polygon across holds
                // it too. Off it (a polygon with collinear vertices, where a wall and this edge
                // lie in line), the edge is seen end-on: the path reaches its nearer end along
                // the line and may turn there, so that end is offered as a point interval.
                let between = (a[0] - root[0]) * (b[0] - root[0]) + (a[1] - root[1]) * (b[1] - root[1]) <= 0.0;
                let near = if dist2(root, a) <= dist2(root, b) { a } else { b };
                let inside = clip_to.is_none_or(|(p0, p1, side)| orient2d(p0, p1, near) * side >= 0.0);
                if !between && inside {
                    self.offer(
                        s,
                        Node { ia: near, ib: near, ra: [root, near], rb: [root, near], edge: h as u32, ..base },
                        a,
                        b,
                    );
                }
                continue;
            }
            let piece = match clip_to {
                // Pieces on the boundary line itself are left out: the path straight through
                // the corner is the previous root's, not a turn.
                Some((p0, p1, side)) => {
                    clip(a, b, p0, p1, side).filter(|&(u, w)| orient2d(p0, p1, u) != 0.0 || orient2d(p0, p1, w) != 0.0)
                }
                None => Some((a, b)),
            };
            if let Some((ia, ib)) = piece {
                // An end moved by the clip lies on the clip line, which passes through the root
                // (`p1`): on its forward half (beyond the root, away from the previous root
                // `p0`) or its backward half. The edge spans less than a half-turn seen from the
                // root (strictly on its left), and the half-plane exactly a half-turn, from the
                // forward half counter-clockwise to the backward one when it lies left of the
                // line (`side > 0`), from the backward half to the forward one when right. So a
                // clipped right end lies on the half where the half-plane starts, a clipped left
                // end where it ends. (Telling the half from the rounded end fails when the edge
                // passes within rounding of the root, as the sliver triangles of a carved fan
                // do: an end one ulp behind the root turned the wedge's boundary round.)
                let ray = |end: Point2, vertex: Point2, left_end: bool| -> [Point2; 2] {
                    match clip_to {
                        Some((p0, p1, side)) if end != vertex => {
                            if (side > 0.0) != left_end {
                                [p0, p1]
                            } else {
                                [p1, p0]
                            }
                        }
                        _ => [root, vertex],
                    }
                };
                let (ra, rb) = (ray(ia, a, false), ray(ib, b, true));
                self.offer(s, Node { ia, ib, ra, rb, edge: h as u32, ..base }, a, b);
            }
        }
    }

    /// Adds an interval node to `succ` unless it is a point that is not a corner vertex and
    /// whose wedge is a single ray (a ray through a point reaches nothing the neighbouring
    /// intervals do not, except turning there). A point interval whose exact wedge is open is
    /// kept: carved meshes put chains of nearly collinear vertices along an obstacle's side, and
    /// the only way round such a chain can be a wedge thinner than one rounding step, whose
    /// ends round to the same point.
    fn offer(&mut self, s: &Search, node: Node, a: Point2, b: Point2) {
        if node.ia == node.ib && !wedge_open(node.ra, node.rb) {
            let at_vertex = node.ia == a || node.ia == b;
            if !at_vertex || a == b {
                return;
            }
            let v = self.edge_vertex(s, node.edge as usize, node.ia == b);
            if self.corner_bits(s, v) & CORNER == 0 {
                return;
            }
        }
        self.succ.push(node);
    }

    /// Vertex id of half-edge `h`'s start (or end when `end`).
    fn edge_vertex(&self, s: &Search, h: usize, end: bool) -> u32 {
        let data = s.mesh.mesh().data();
        let owner = s.mesh.edge_owner[h];
        let first = s.mesh.poly_first(owner);
        let n = s.mesh.poly_len(owner);
        let k = h - first;
        data.polygon_vertices[first + if end { (k + 1) % n } else { k }]
    }

    /// Turns at vertex `v` (reached with cost `g`): polygons around it are searched with `v` as
    /// the root, in the half-plane `clip_to`. With `walk = (poly, edge, clockwise)` only the
    /// polygons from `poly` round `v` through its half-edge `edge` (at `v`) in that sense, up to
    /// the first boundary edge: a taut path bends at `v` only into directions between the ray
    /// through `v` and the obstacle (beyond them a chord near `v` would be free). Pinch vertices
    /// and the other callers search the whole fan without restriction.
    fn turn(
        &mut self,
        s: &Search,
        v: u32,
        g: f64,
        clip_to: Option<(Point2, Point2, f64)>,
        walk: Option<(u32, usize, bool)>,
        parent: u32,
    ) {
        let bits = self.corner_bits(s, v);
        if bits & CORNER == 0 {
            return;
        }
        let vi = v as usize;
        let root_point = xz(s.mesh.mesh().vertices()[vi]);
        let clip_to = if bits & PINCH != 0 { None } else { clip_to };
        let side = match clip_to {
            Some((_, _, d)) if d > 0.0 => 1u8,
            Some(_) => 2,
            None => 4,
        };
        let (pred, pred_point) = self.nodes.get(parent as usize).map_or((START, root_point), |n| (n.root_id, n.root));
        if self.root_stamp[vi] == s.gen && g >= self.root_g[vi] * (1.0 - SHORTEST_ROOT_SLACK) {
            if g > self.root_g[vi] * (1.0 + SHORTEST_ROOT_SLACK) {
                return;
            }
            // As good as the best turn here (up to rounding): skip it when it repeats one
            // already made (same side, coming along the same line: the same previous root or
            // one in line with it), else make it too, since a tie reached from elsewhere may
            // turn the other way.
            let same_line =
                self.turn_from[vi] == pred || orient2d(self.turn_from_point[vi], pred_point, root_point) == 0.0;
            if same_line {
                if self.turn_sides[vi] & side != 0 {
                    return;
                }
                self.turn_sides[vi] |= side;
            } else {
                self.turn_from[vi] = pred;
                self.turn_from_point[vi] = pred_point;
                self.turn_sides[vi] = side;
            }
            self.root_g[vi] = self.root_g[vi].min(g);
        } else {
            self.root_g[vi] = g;
            self.root_stamp[vi] = s.gen;
            self.turn_from[vi] = pred;
            self.turn_from_point[vi] = pred_point;
            self.turn_sides[vi] = side;
        }
        let fan_len = s.fans.fan(v).len();
        match walk {
            Some((mut poly, mut e, clockwise)) if bits & PINCH == 0 => {
                let mesh = s.mesh;
                for _ in 0..fan_len {
                    self.fan_polygon(s, poly, root_point, v, g, clip_to, parent);
                    let Some(next) = s.passable(e) else { break };
                    let t = mesh.half_edges[e].twin;
                    if next == walk.map_or(NONE, |w| w.0) || t == NONE {
                        break;
                    }
                    // The twin ends (starts) at `v`; the next edge round `v` follows (precedes) it.
                    let (first, len) = (mesh.poly_first(next), mesh.poly_len(next));
                    let k = t as usize - first;
                    e = first + if clockwise { (k + 1) % len } else { (k + len - 1) % len };
                    poly = next;
                }
            }
            _ => {
                for i in 0..fan_len {
                    let (q, _) = s.fans.fan(v)[i];
                    if s.included(q) {
                        self.fan_polygon(s, q, root_point, v, g, clip_to, parent);
                    }
                }
            }
        }
    }

    /// Writes the successors of node `n` (index `idx`) into `succ`.
    fn expand(&mut self, s: &Search, n: Node, idx: u32) {
        let mesh = s.mesh;
        let h = n.edge as usize;
        let Some(q) = s.passable(h) else { return };
        let (a3, b3) = mesh.edge_endpoints(h);
        let (a, b) = (xz(a3), xz(b3));
        let (r, ia, ib) = (n.root, n.ia, n.ib);
        let base = Node { from: q, parent: idx, ..n };
        // Take-off points in `q`, through the interval.
        if s.links_on {
            for i in 0..s.links.takeoffs_from(q).len() {
                let t = s.links.takeoffs_from(q)[i];
                let p = xz(s.links.takeoffs[t as usize].from);
                let (_, via) = via_interval(r, (ia, ib), n.ra, n.rb, [a, b], p);
                self.offer_takeoff(s, Node { ia: via.unwrap_or(p), ib: p, edge: TAKEOFF + t, ..base });
            }
        }
        if self.goal_mark[q as usize] == s.gen {
            // The goal's polygon: the exact remaining distance ends the search through here.
            let (_, via) = via_interval(r, (ia, ib), n.ra, n.rb, [a, b], s.goal);
            let via = via.unwrap_or(s.goal);
            self.succ.push(Node { ia: via, ib: via, edge: GOAL, ..base });
            return;
        }
        let twin = mesh.half_edges[h].twin;
        if twin == NONE {
            return;
        }
        let first = mesh.poly_first(q);
        let len = mesh.poly_len(q);
        let j = twin as usize - first;
        // Turns at the interval's ends when they are corner vertices: behind the corner on the
        // right (left) of the ray through it, from `q` round the vertex away from `h`.
        if ia == a {
            let v = self.edge_vertex(s, h, false);
            let walk = (q, first + (j + 1) % len, true);
            self.turn(s, v, n.g + dist2(r, a), Some((r, a, -1.0)), Some(walk), idx);
        }
        if ib == b {
            let v = self.edge_vertex(s, h, true);
            let walk = (q, first + (j + len - 1) % len, false);
            self.turn(s, v, n.g + dist2(r, b), Some((r, b, 1.0)), Some(walk), idx);
        }
        if ia == ib && !wedge_open(n.ra, n.rb) {
            return; // a point interval with a one-ray wedge exists only to turn at its vertex
        }
        // Seen end-on, the wedge is a ray along the edge's line: only pieces ahead of it count.
        let end_on = end_on_far(r, a, b, ia, ib);
        // Far edges of `q`, from `a` round to `b` (right to left as seen from the root).
        for k in 1..len {
            let e = first + (j + k) % len;
            let (u3, w3) = mesh.edge_endpoints(e);
            let (u, w) = (xz(u3), xz(w3));
            // Pinch vertices strictly inside the wedge: the path may pass through them into
            // polygons touching only there.
            if k > 1 && orient2d(n.ra[0], n.ra[1], u) >= 0.0 && orient2d(n.rb[0], n.rb[1], u) <= 0.0 {
                let v = self.edge_vertex(s, e, false);
                if self.corner_bits(s, v) & PINCH != 0 {
                    self.turn(s, v, n.g + dist2(r, u), None, None, idx);
                }
            }
            if s.passable(e).is_none() {
                continue;
            }
            let Some((u1, w1)) = clip(u, w, n.ra[0], n.ra[1], 1.0) else { continue };
            // The left boundary cuts the edge only where an end of the edge itself lies beyond
            // it, decided on those exact ends: the end the first clip computed is rounded, and
            // where the edge passes within rounding of the root (slivers along a carved
            // obstacle's side, the root one of their corners) it can fall beyond the left
            // boundary although the whole edge lies inside, losing the wedge's mouth.
            let inside_left = |x: Point2| orient2d(n.rb[0], n.rb[1], x) <= 0.0;
            let (u2, w2) = if inside_left(u) && inside_left(w) {
                (u1, w1)
            } else {
                let clipped =
                    clip(u1, w1, n.rb[0], n.rb[1], -1.0).or_else(|| thin_wedge_mouth(r, n.ra, n.rb, (u, w), (u1, w1)));
                let Some(piece) = clipped else { continue };
                piece
            };
            if end_on.is_some_and(|far| !(ahead(r, far, u2) && ahead(r, far, w2))) {
                continue;
            }
            // Each new boundary: through the unclipped vertex, or the boundary that clipped it.
            let ra = if u2 == u {
                [r, u]
            } else if u2 != u1 {
                n.rb
            } else {
                n.ra
            };
            let rb = if w2 == w {
                [r, w]
            } else if w2 != w1 {
                n.rb
            } else {
                n.ra
            };
            self.offer(s, Node { ia: u2, ib: w2, ra, rb, edge: e as u32, from: q, parent: idx, ..n }, u, w);
        }
    }
}
