//! Runtime queries on a loaded navmesh: point location, A* paths with three smoothing styles,
//! raycasts and random points.
//!
//! A [`QueryMesh`] wraps a validated [`NavMesh`] with the tables the queries need (point-location
//! grid, half-edge twins and midpoints, area prefix sums) and the off-mesh link table; it can be
//! shared between threads, and only its links change (see [`QueryMesh::add_link`]; every path
//! query takes links as edges, and [`Path::links`] says where a path leaves the mesh). A [`PathQuery`] holds the scratch memory of the path search (node pool, open
//! list, corridor and portal buffers); keep one per thread and reuse it, so that queries after
//! warm-up allocate nothing.
//!
//! ```
//! use meadow::query::{PathQuery, QueryFilter, QueryMesh};
//! # let data = meadow::query::testmesh::GridSpec { cols: 4, rows: 4, ..Default::default() }.build();
//! let mesh = QueryMesh::new(meadow::NavMesh::new(data)?); // or NavMesh::load("level.nav")?
//! let mut query = PathQuery::new(&mesh); // one per thread, reused for every query
//! let path = query.find_path(&mesh, [0.5, 0.0, 0.5], [3.5, 0.0, 3.5], &QueryFilter::new())?;
//! assert_eq!(path.points.len(), 2); // an open square: the straight segment
//! assert!((path.length - 18f64.sqrt()).abs() < 1e-12);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Heights: inside a polygon the surface height is interpolated over the fan triangulation from
//! the polygon's vertex 0 (barycentric in the fan triangle that holds the point); every query uses
//! this same rule.

mod astar;
mod chains;
mod funnel;
mod landmarks;
mod links;
mod locate;
mod obstacles;
mod random;
mod raycast;
mod refine;
mod shortest;
#[doc(hidden)]
pub mod testmesh;
#[cfg(test)]
mod tests;

pub use astar::PathQuery;
pub use links::{LinkError, LinkId, LinkSpec, Links, DEFAULT_LINK_REACH, MAX_LINKS, MAX_LINK_COST};
pub use locate::LocateIndex;
pub use random::SplitMix64;
pub use raycast::{RaycastResult, WallHit};
pub use shortest::ShortestPathQuery;

use crate::asset::{EdgeLink, NavMesh};
use crate::geom::Point2;

/// Why a point query failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// An input coordinate is NaN or infinite.
    #[error("query point has a non-finite coordinate")]
    NonFiniteInput,
    /// No polygon lies under the point within the vertical tolerance (or within the search box).
    #[error("point is not on the navmesh")]
    OffMesh,
    /// The raycast walk did not terminate within its step limit (degenerate geometry).
    #[error("raycast walk exceeded its step limit")]
    WalkLimit,
    /// An input coordinate lies outside the coordinate contract ([`crate::limits::MAX_COORDINATE`]).
    #[error("query point has a coordinate beyond {} m", crate::limits::MAX_COORDINATE)]
    OutOfRange,
}

/// Why a path query failed.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum PathError {
    /// The start or goal has a NaN or infinite coordinate.
    #[error("start or goal has a non-finite coordinate")]
    NonFiniteInput,
    /// No polygon lies under the start point.
    #[error("start point is not on the navmesh")]
    StartOffMesh,
    /// No polygon lies under the goal point.
    #[error("goal point is not on the navmesh")]
    GoalOffMesh,
    /// The start polygon's area is excluded by the filter.
    #[error("start polygon's area is excluded by the filter")]
    StartExcluded,
    /// A cost override in the filter is not a finite number > 0.
    #[error("filter has cost {cost} for area {area}; costs must be finite and > 0")]
    InvalidFilter { area: u16, cost: f32 },
    /// No path leads from the start to the goal (and a partial path was not asked for).
    #[error("goal is unreachable from the start")]
    Unreachable,
    /// The start or goal lies outside the coordinate contract ([`crate::limits::MAX_COORDINATE`]).
    #[error("start or goal has a coordinate beyond {} m", crate::limits::MAX_COORDINATE)]
    OutOfRange,
}

/// How the corridor found by A* is turned into path points.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum PathStyle {
    /// The raw A* path through the midpoints of the corridor's portals.
    Midpoints,
    /// Meadow mapping's refinement: each portal point is the midpoint or either endpoint,
    /// whichever shortens the path, iterated until nothing changes.
    MeadowRefined,
    /// The funnel algorithm: the shortest path inside the corridor (string pulling).
    #[default]
    StringPulled,
}

/// Options of a path query that are not about areas.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathOptions {
    /// How the corridor is smoothed. Default [`PathStyle::StringPulled`].
    pub style: PathStyle,
    /// When the goal is unreachable, return the path to the reachable point nearest the goal
    /// (flagged [`Path::partial`]) instead of [`PathError::Unreachable`]. Default `false`.
    pub allow_partial: bool,
    /// With [`PathStyle::StringPulled`]: answer a start and goal that see each other with the
    /// straight segment, and re-route the corridor around the other side of corners at vertices
    /// no wall touches while that shortens the path (the corridor of the midpoint graph's
    /// optimum need not hold the shortest path). Default `true`.
    pub shortcuts: bool,
}

impl Default for PathOptions {
    fn default() -> Self {
        PathOptions { style: PathStyle::StringPulled, allow_partial: false, shortcuts: true }
    }
}

/// A found path.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Path {
    /// Path points `[x, y, z]` from the start to the goal, heights on the mesh surface.
    pub points: Vec<[f64; 3]>,
    /// Length of the polyline through `points` (metres, 3D).
    pub length: f64,
    /// The polygons the path passes through, from the start polygon to the goal polygon.
    pub corridor: Vec<u32>,
    /// Whether the path ends at the reachable point nearest an unreachable goal.
    pub partial: bool,
    /// The off-mesh links the path takes, in path order: segment `points[l.segment] ->
    /// points[l.segment + 1]` of each is the link (take-off to landing), walked off the mesh.
    pub links: Vec<PathLink>,
}

/// An off-mesh link a [`Path`] takes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PathLink {
    /// Index of the path point where the link takes off; the next point is where it lands.
    pub segment: usize,
    /// The link's handle in the mesh's link table.
    pub link: LinkId,
    /// The game's id of the link (from the level's `navmesh_link` extras or [`LinkSpec::id`]).
    pub id: u32,
    /// Whether the link is taken from its end to its start (a two-way link walked backwards).
    pub reversed: bool,
}

impl Path {
    /// Empties the path, keeping its buffers.
    pub(crate) fn clear(&mut self) {
        self.points.clear();
        self.corridor.clear();
        self.links.clear();
        self.length = 0.0;
        self.partial = false;
    }

    /// The link taken over segment `points[segment] -> points[segment + 1]`, if that segment is
    /// an off-mesh link.
    pub fn link_at(&self, segment: usize) -> Option<&PathLink> {
        self.links.iter().find(|l| l.segment == segment)
    }
}

/// Places a path query's start and goal on the mesh.
pub(crate) fn locate_endpoints(
    mesh: &QueryMesh,
    start: [f64; 3],
    goal: [f64; 3],
) -> Result<(Location, Location), PathError> {
    check_input(start).and(check_input(goal)).map_err(PathError::from_input)?;
    let s = mesh.locate(start).map_err(|_| PathError::StartOffMesh)?;
    let g = mesh.locate(goal).map_err(|_| PathError::GoalOffMesh)?;
    Ok((s, g))
}

/// Checks a start and goal placed by the caller: finite points on polygons of `mesh`.
pub(crate) fn check_endpoints(mesh: &QueryMesh, start: &Location, goal: &Location) -> Result<(), PathError> {
    check_input(start.point).and(check_input(goal.point)).map_err(PathError::from_input)?;
    let polygon_count = mesh.mesh().polygon_count();
    if start.polygon as usize >= polygon_count {
        return Err(PathError::StartOffMesh);
    }
    if goal.polygon as usize >= polygon_count {
        return Err(PathError::GoalOffMesh);
    }
    Ok(())
}

/// Per-area rule of a [`QueryFilter`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct AreaRule {
    listed: bool,
    excluded: bool,
    cost: Option<f32>,
}

/// Which areas a path may cross and what they cost; the default allows every area at the
/// mesh's own cost.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct QueryFilter {
    rules: Vec<AreaRule>,
    exclude_unlisted: bool,
    no_links: bool,
}

impl QueryFilter {
    /// A filter that allows every area at the mesh's cost.
    pub fn new() -> QueryFilter {
        QueryFilter::default()
    }

    /// A filter that allows only the given areas (at the mesh's cost unless overridden).
    pub fn include_only(areas: &[u16]) -> QueryFilter {
        let mut f = QueryFilter { rules: Vec::new(), exclude_unlisted: true, no_links: false };
        for &a in areas {
            f.rule_mut(a).listed = true;
        }
        f
    }

    /// Excludes an area: paths never enter its polygons.
    pub fn exclude(mut self, area: u16) -> QueryFilter {
        self.rule_mut(area).excluded = true;
        self
    }

    /// Overrides an area's cost multiplier (must be finite and > 0; costs below 1 weaken the
    /// A* heuristic accordingly, so results stay optimal).
    pub fn with_cost(mut self, area: u16, cost: f32) -> QueryFilter {
        self.rule_mut(area).cost = Some(cost);
        self
    }

    /// Switches off-mesh links off: paths stay on the mesh. (Links of an excluded area are
    /// off already.)
    pub fn without_links(mut self) -> QueryFilter {
        self.no_links = true;
        self
    }

    /// Whether the filter lets paths take off-mesh links at all.
    pub fn allows_links(&self) -> bool {
        !self.no_links
    }

    /// The cost multiplier of an off-mesh link of area `area`, or `None` when the filter
    /// excludes links or that area.
    pub fn link_cost(&self, mesh: &NavMesh, area: u16) -> Option<f64> {
        if self.no_links {
            return None;
        }
        self.area_cost(mesh, area)
    }

    fn rule_mut(&mut self, area: u16) -> &mut AreaRule {
        let i = area as usize;
        if self.rules.len() <= i {
            self.rules.resize(i + 1, AreaRule::default());
        }
        &mut self.rules[i]
    }

    /// The cost multiplier of an area, or `None` when the filter excludes it.
    pub fn area_cost(&self, mesh: &NavMesh, area: u16) -> Option<f64> {
        let rule = self.rules.get(area as usize).copied().unwrap_or_default();
        if rule.excluded || (self.exclude_unlisted && !rule.listed) {
            return None;
        }
        match rule.cost {
            Some(c) => Some(c as f64),
            None => Some(mesh.areas().get(area as usize).map_or(1.0, |a| a.cost as f64)),
        }
    }

    /// Checks the overrides and returns the smallest cost multiplier any area can have, which
    /// scales the A* heuristic (mesh costs are validated `>= 1`).
    fn heuristic_scale(&self) -> Result<f64, PathError> {
        let mut scale = 1.0f64;
        for (area, rule) in self.rules.iter().enumerate() {
            if let Some(cost) = rule.cost {
                if !(cost.is_finite() && cost > 0.0) {
                    return Err(PathError::InvalidFilter { area: area as u16, cost });
                }
                scale = scale.min(cost as f64);
            }
        }
        Ok(scale)
    }
}

/// A polygon and a point on its surface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Location {
    /// The polygon index.
    pub polygon: u32,
    /// The point `[x, y, z]`, with `y` on the polygon's surface.
    pub point: [f64; 3],
}

/// A validated navmesh plus the derived tables the queries use, shareable between threads. Its
/// polygons never change; its off-mesh link table does, through `&self`
/// ([`QueryMesh::add_link`], [`QueryMesh::remove_link`]): each query sees the table as it was
/// when the query started.
#[derive(Clone, Debug)]
pub struct QueryMesh {
    mesh: NavMesh,
    index: LocateIndex,
    /// Per polygon: XZ bounds `[min_x, min_z, max_x, max_z]`.
    poly_bounds: Vec<[f64; 4]>,
    /// Per polygon: height range `[min_y, max_y]`.
    poly_heights: Vec<[f64; 2]>,
    /// Per half-edge (index into `polygon_vertices`): the polygon that owns it.
    edge_owner: Vec<u32>,
    /// Per half-edge: what the path search reads, packed together (one cache line per pair).
    half_edges: Vec<HalfEdge>,
    /// Per half-edge: the run of half-edges of its polygon leading to the same neighbour that
    /// it belongs to (see [`QueryMesh::portal_run`]; read for every corridor portal).
    portal_runs: Vec<[u32; 2]>,
    /// Per half-edge: its start and end vertex (read by every corridor and interval step, so
    /// kept apart from the vertex indirection).
    edge_ends: Vec<[[f64; 3]; 2]>,
    /// Prefix sums of polygon areas (XZ), for uniform random points.
    area_prefix: Vec<f64>,
    /// Polygons around each vertex, for the shortest-path search (built on first use).
    vertex_fans: std::sync::OnceLock<shortest::VertexFans>,
    /// Per vertex: whether a wall edge touches it (corners elsewhere are re-routed).
    on_wall: Vec<bool>,
    /// Per vertex: the small island (see [`QueryMesh::small_island_of`]) whose outline passes
    /// through it, or `NONE`.
    island_of: Vec<u32>,
    /// Per outline: a disk inside it when it is a small island (centre and radius; radius
    /// `-1` otherwise), for a quick lower bound on ways round it.
    island_disks: Vec<(Point2, f64)>,
    /// Per polygon: its connected component of the portal graph (numbered in order of first
    /// polygon).
    component: Vec<u32>,
    /// The convex hulls of islands that certify a path round one of them.
    obstacles: obstacles::Obstacles,
    /// The off-mesh link table and what depends on it (chains, landmarks, components joined
    /// through links): the one part of a query mesh that can change.
    links: links::LinkCell,
}

/// The search-relevant data of one half-edge.
#[derive(Clone, Copy, Debug)]
pub(crate) struct HalfEdge {
    /// The 3D midpoint of the edge (the A* node position).
    pub(crate) mid: [f64; 3],
    /// The polygon across the edge, or `NONE` when it is not a portal.
    pub(crate) neighbour: u32,
    /// The same edge reversed in the neighbouring polygon, or `NONE`.
    pub(crate) twin: u32,
}

/// Largest outline (in vertices) the shortcut pass walks round as an island. Each candidate
/// costs a scan of the outline: 32 takes the pillars and crates of the fixtures and nav_test
/// (their mean excess over the shortest path falls from 1.0035 to 1.0012 on open_floor, 1.0048
/// to 1.0012 on nav_test) for 3.5% of the median query on undulating, whose rocks have more
/// vertices; 64 reaches 1.0000 on open_floor but costs undulating 22%.
pub(crate) const MAX_ISLAND_VERTICES: usize = 32;

/// Sentinel for "no half-edge" / "no node".
pub(crate) const NONE: u32 = u32::MAX;

/// Per polygon: its connected component of the portal graph, numbered 0, 1, … in order of
/// each component's first polygon (flood fill over portals).
fn portal_components(data: &crate::asset::NavMeshData) -> Vec<u32> {
    let mut component = vec![NONE; data.polygons.len()];
    let mut stack = Vec::new();
    let mut count = 0;
    for seed in 0..data.polygons.len() {
        if component[seed] != NONE {
            continue;
        }
        component[seed] = count;
        stack.push(seed);
        while let Some(p) = stack.pop() {
            let poly = data.polygons[p];
            let first = poly.first as usize;
            for link in &data.edge_links[first..first + poly.vertex_count as usize] {
                if let EdgeLink::Polygon(q) = *link {
                    if component[q as usize] == NONE {
                        component[q as usize] = count;
                        stack.push(q as usize);
                    }
                }
            }
        }
        count += 1;
    }
    component
}

/// XZ bounds `[min_x, min_z, max_x, max_z]` that hold nothing yet.
pub(crate) const EMPTY_BOUNDS: [f64; 4] = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];

/// Grows XZ bounds `[min_x, min_z, max_x, max_z]` to hold the point `p` (`[x, y, z]`).
#[inline]
pub(crate) fn grow_bounds(b: &mut [f64; 4], p: [f64; 3]) {
    *b = [b[0].min(p[0]), b[1].min(p[2]), b[2].max(p[0]), b[3].max(p[2])];
}

/// Disjoint sets over `0..n` (union–find with path halving); the smaller root wins a union, so
/// the final roots do not depend on the order of the unions.
pub(crate) struct DisjointSets {
    parent: Vec<u32>,
}

impl DisjointSets {
    /// `n` singleton sets.
    pub(crate) fn new(n: usize) -> DisjointSets {
        DisjointSets { parent: (0..n as u32).collect() }
    }

    /// The root of `x`'s set.
    pub(crate) fn root(&mut self, mut x: u32) -> u32 {
        while self.parent[x as usize] != x {
            let up = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = up;
            x = up;
        }
        x
    }

    /// Joins the sets of `a` and `b`.
    pub(crate) fn union(&mut self, a: u32, b: u32) {
        let (ra, rb) = (self.root(a), self.root(b));
        if ra != rb {
            self.parent[ra.max(rb) as usize] = ra.min(rb);
        }
    }
}

impl QueryMesh {
    /// Builds the query tables for a validated mesh (linear time plus the grid build).
    pub fn new(mesh: NavMesh) -> QueryMesh {
        let n = mesh.polygon_count();
        let data = mesh.data();
        let verts = mesh.vertices();
        let mut poly_bounds = Vec::with_capacity(n);
        let mut poly_heights = Vec::with_capacity(n);
        let mut edge_owner = vec![0u32; data.polygon_vertices.len()];
        let mut edge_mid = vec![[0.0; 3]; data.polygon_vertices.len()];
        let mut edge_ends = vec![[[0.0; 3]; 2]; data.polygon_vertices.len()];
        let mut area_prefix = Vec::with_capacity(n);
        let mut total = 0.0;
        for (pi, p) in data.polygons.iter().enumerate() {
            let first = p.first as usize;
            let count = p.vertex_count as usize;
            let mut b = EMPTY_BOUNDS;
            let mut h = [f64::INFINITY, f64::NEG_INFINITY];
            let o = verts[data.polygon_vertices[first] as usize];
            let mut twice_area = 0.0;
            for k in 0..count {
                let a = verts[data.polygon_vertices[first + k] as usize];
                let c = verts[data.polygon_vertices[first + (k + 1) % count] as usize];
                grow_bounds(&mut b, a);
                h = [h[0].min(a[1]), h[1].max(a[1])];
                edge_owner[first + k] = pi as u32;
                edge_mid[first + k] = [(a[0] + c[0]) * 0.5, (a[1] + c[1]) * 0.5, (a[2] + c[2]) * 0.5];
                edge_ends[first + k] = [a, c];
                twice_area += (a[0] - o[0]) * (c[2] - o[2]) - (c[0] - o[0]) * (a[2] - o[2]);
            }
            poly_bounds.push(b);
            poly_heights.push(h);
            total += twice_area * 0.5;
            area_prefix.push(total);
        }
        // Twins: validation guarantees the neighbour has the reversed edge linking back.
        let mut edge_twin = vec![NONE; data.polygon_vertices.len()];
        for (pi, p) in data.polygons.iter().enumerate() {
            let first = p.first as usize;
            let count = p.vertex_count as usize;
            for k in 0..count {
                let EdgeLink::Polygon(q) = data.edge_links[first + k] else { continue };
                let a = data.polygon_vertices[first + k];
                let b = data.polygon_vertices[first + (k + 1) % count];
                let qd = data.polygons[q as usize];
                let qf = qd.first as usize;
                let qc = qd.vertex_count as usize;
                for j in 0..qc {
                    if data.polygon_vertices[qf + j] == b
                        && data.polygon_vertices[qf + (j + 1) % qc] == a
                        && data.edge_links[qf + j] == EdgeLink::Polygon(pi as u32)
                    {
                        edge_twin[first + k] = (qf + j) as u32;
                        break;
                    }
                }
            }
        }
        let index = LocateIndex::build(&poly_bounds, |pi, ring| {
            let p = data.polygons[pi];
            let run = &data.polygon_vertices[p.first as usize..p.first as usize + p.vertex_count as usize];
            ring.extend(run.iter().map(|&v| {
                let q = verts[v as usize];
                [q[0], q[2]]
            }));
        });
        let half_edges = (0..edge_owner.len())
            .map(|h| HalfEdge {
                mid: edge_mid[h],
                neighbour: if let EdgeLink::Polygon(q) = data.edge_links[h] { q } else { NONE },
                twin: edge_twin[h],
            })
            .collect();
        let mut wall_degree = vec![0u32; verts.len()];
        for p in &data.polygons {
            let (first, n) = (p.first as usize, p.vertex_count as usize);
            for k in (0..n).filter(|&k| data.edge_links[first + k] == EdgeLink::Wall) {
                wall_degree[data.polygon_vertices[first + k] as usize] += 1;
                wall_degree[data.polygon_vertices[first + (k + 1) % n] as usize] += 1;
            }
        }
        let on_wall = wall_degree.iter().map(|&d| d > 0).collect();
        // Simple holes: hole outlines (clockwise) none of whose vertices is shared with another
        // outline or pinched, so a walk round one meets each of its vertices once.
        let simple_hole: Vec<bool> = data
            .outlines
            .iter()
            .map(|ring| {
                let pts: Vec<Point2> = ring.vertices.iter().map(|&v| xz(verts[v as usize])).collect();
                ring.vertices.iter().all(|&v| wall_degree[v as usize] == 2) && crate::geom::signed_area(&pts) < 0.0
            })
            .collect();
        // Small islands: simple holes of few vertices.
        let mut island_of = vec![NONE; verts.len()];
        let mut island_disks = vec![([0.0, 0.0], -1.0); data.outlines.len()];
        for (i, ring) in data.outlines.iter().enumerate() {
            if simple_hole[i] && ring.vertices.len() <= MAX_ISLAND_VERTICES {
                for &v in &ring.vertices {
                    island_of[v as usize] = i as u32;
                }
                let pts: Vec<Point2> = ring.vertices.iter().map(|&v| xz(verts[v as usize])).collect();
                island_disks[i] = inner_disk(&pts);
            }
        }
        let component = portal_components(data);
        let obstacles = obstacles::Obstacles::build(&mesh, &index, &component, &simple_hole);
        let mut query_mesh = QueryMesh {
            mesh,
            index,
            poly_bounds,
            poly_heights,
            edge_owner,
            half_edges,
            portal_runs: Vec::new(),
            edge_ends,
            area_prefix,
            vertex_fans: std::sync::OnceLock::new(),
            on_wall,
            island_of,
            island_disks,
            component,
            obstacles,
            links: links::LinkCell::new(links::LinkState::empty()),
        };
        query_mesh.portal_runs = (0..query_mesh.half_edges.len())
            .map(|h| {
                let (first, last) = query_mesh.find_portal_run(h);
                [first as u32, last as u32]
            })
            .collect();
        let baked = query_mesh.mesh.data().links.iter().map(|&l| Some(l)).collect();
        query_mesh.links = links::LinkCell::new(links::LinkState::build(&query_mesh, baked));
        query_mesh
    }

    /// The underlying navmesh.
    pub fn mesh(&self) -> &NavMesh {
        &self.mesh
    }

    /// Consumes the query mesh, returning the navmesh.
    pub fn into_mesh(self) -> NavMesh {
        self.mesh
    }

    /// The point-location grid.
    pub fn locate_index(&self) -> &LocateIndex {
        &self.index
    }

    /// The vertex of half-edge `h` at `p` (its start when `p` is there, else its end).
    pub(crate) fn edge_vertex_at(&self, h: usize, p: Point2) -> u32 {
        let data = self.mesh.data();
        if xz(self.edge_ends[h][0]) == p {
            data.polygon_vertices[h]
        } else {
            let poly = self.edge_owner[h];
            let (first, n) = (self.poly_first(poly), self.poly_len(poly));
            data.polygon_vertices[first + (h - first + 1) % n]
        }
    }

    /// Portal `h` as `(left, right)` seen crossing it out of its owner, spanning the whole edge
    /// when the bake split it into collinear pieces leading to the same neighbour.
    pub(crate) fn portal_ends(&self, h: usize) -> ([f64; 3], [f64; 3]) {
        let (first, last) = self.portal_run(h);
        let (a, b) = (self.edge_endpoints(first).0, self.edge_endpoints(last).1);
        // Leaving the owner (interior on the left of a -> b), b is on the walker's left.
        (b, a)
    }

    /// The run of half-edges `(first, last)` around `h` in its polygon that lead to the same
    /// neighbour (the collinear pieces of one split edge; `(h, h)` for a wall or a whole edge).
    #[inline]
    pub(crate) fn portal_run(&self, h: usize) -> (usize, usize) {
        let [first, last] = self.portal_runs[h];
        (first as usize, last as usize)
    }

    /// [`QueryMesh::portal_run`] worked out from the polygon (for the table it reads).
    fn find_portal_run(&self, h: usize) -> (usize, usize) {
        let q = self.half_edges[h].neighbour;
        let poly = self.edge_owner[h];
        let (f, n) = (self.poly_first(poly), self.poly_len(poly));
        let (mut first, mut last) = (h, h);
        if q == NONE {
            return (h, h);
        }
        // Two convex polygons share one segment, so the pieces are contiguous.
        for _ in 1..n {
            let prev = f + (first - f + n - 1) % n;
            if prev == last || self.half_edges[prev].neighbour != q {
                break;
            }
            first = prev;
        }
        for _ in 1..n {
            let next = f + (last - f + 1) % n;
            if next == first || self.half_edges[next].neighbour != q {
                break;
            }
            last = next;
        }
        (first, last)
    }

    /// The small island whose outline passes through vertex `v`: its index in the navmesh's
    /// outlines (a hole of at most [`MAX_ISLAND_VERTICES`] vertices: a pillar, a crate).
    pub(crate) fn small_island_of(&self, v: u32) -> Option<u32> {
        self.island_of.get(v as usize).copied().filter(|&i| i != NONE)
    }

    /// A disk inside small island `island` (centre, radius), when one is known.
    pub(crate) fn island_disk(&self, island: u32) -> Option<(Point2, f64)> {
        self.island_disks.get(island as usize).copied().filter(|d| d.1 >= 0.0)
    }

    /// The start and end vertex of half-edge `h`.
    pub(crate) fn edge_vertices(&self, h: usize) -> (u32, u32) {
        let data = self.mesh.data();
        let poly = self.edge_owner[h];
        let (first, n) = (self.poly_first(poly), self.poly_len(poly));
        (data.polygon_vertices[h], data.polygon_vertices[first + (h - first + 1) % n])
    }

    /// Whether a wall edge touches vertex `v`.
    pub(crate) fn touches_wall(&self, v: u32) -> bool {
        self.on_wall.get(v as usize).copied().unwrap_or(false)
    }

    /// Polygon `poly`'s two half-edges at vertex `v`: the one ending there and the one starting
    /// there (`None` when `v` is not one of its corners).
    pub(crate) fn edges_at_vertex(&self, poly: u32, v: u32) -> Option<(usize, usize)> {
        let (first, n) = (self.poly_first(poly), self.poly_len(poly));
        let run = &self.mesh.data().polygon_vertices[first..first + n];
        let k = run.iter().position(|&w| w == v)?;
        Some((first + (k + n - 1) % n, first + k))
    }

    /// Polygon `poly`'s edge at vertex `v` that does not lead into polygon `next`, when the
    /// other one does: where a corridor leaving `poly` through an edge at `v` (or a piece of
    /// one) would turn round `v` the other way. `None` otherwise.
    pub(crate) fn edge_at_vertex_away_from(&self, poly: u32, v: u32, next: u32) -> Option<usize> {
        let (into, out_of) = self.edges_at_vertex(poly, v)?;
        let leads_on = |h: usize| self.half_edges[h].neighbour == next;
        match (leads_on(into), leads_on(out_of)) {
            (true, false) => Some(out_of),
            (false, true) => Some(into),
            _ => None,
        }
    }

    /// Whether two polygons lie in one component of the portal graph joined through the current
    /// off-mesh links (paths between different ones cannot exist).
    #[cfg(test)]
    pub(crate) fn connected(&self, a: u32, b: u32) -> bool {
        self.link_state().connected(a, b)
    }

    /// Per polygon: its component of the portal graph, numbered in order of first polygon.
    pub(crate) fn components(&self) -> &[u32] {
        &self.component
    }

    /// The hulls of the islands that certify a path round one of them.
    pub(crate) fn obstacles(&self) -> &obstacles::Obstacles {
        &self.obstacles
    }

    /// Number of half-edges (entries of `polygon_vertices`).
    pub(crate) fn half_edge_count(&self) -> usize {
        self.edge_owner.len()
    }

    /// Vertex `k` of polygon `poly` as `[x, y, z]` (k taken modulo the vertex count).
    #[inline]
    pub(crate) fn poly_vertex(&self, poly: u32, k: usize) -> [f64; 3] {
        let data = self.mesh.data();
        let p = data.polygons[poly as usize];
        let idx = data.polygon_vertices[p.first as usize + k % p.vertex_count as usize];
        self.mesh.vertices()[idx as usize]
    }

    /// Number of vertices of polygon `poly`.
    #[inline]
    pub(crate) fn poly_len(&self, poly: u32) -> usize {
        self.mesh.data().polygons[poly as usize].vertex_count as usize
    }

    /// Index of polygon `poly`'s first half-edge.
    #[inline]
    pub(crate) fn poly_first(&self, poly: u32) -> usize {
        self.mesh.data().polygons[poly as usize].first as usize
    }

    /// The polygon across half-edge `h`, if it is a portal.
    #[inline]
    pub(crate) fn edge_neighbour(&self, h: usize) -> Option<u32> {
        let q = self.half_edges[h].neighbour;
        (q != NONE).then_some(q)
    }

    /// Whether the XZ point lies inside or on the boundary of polygon `poly` (exact; panics when
    /// `poly` is out of range, like [`NavMesh::polygon`]).
    pub fn polygon_contains(&self, poly: u32, p: Point2) -> bool {
        self.poly_edges(poly).iter().all(|&[a, b]| crate::geom::orient2d(xz(a), xz(b), p) >= 0.0)
    }

    /// Polygon `poly`'s edges as `[start, end]` vertex pairs, counter-clockwise (its half-edges
    /// in order; panics when `poly` is out of range).
    #[inline]
    pub(crate) fn poly_edges(&self, poly: u32) -> &[[[f64; 3]; 2]] {
        let p = self.mesh.data().polygons[poly as usize];
        &self.edge_ends[p.first as usize..p.first as usize + p.vertex_count as usize]
    }
}

/// A disk inside the clockwise ring `pts` (a hole seen from the walkable side): centred on the
/// vertex average, as wide as its distance to the nearest edge; radius `-1` when the centre
/// is not strictly inside.
fn inner_disk(pts: &[Point2]) -> (Point2, f64) {
    let n = pts.len() as f64;
    let c = pts.iter().fold([0.0, 0.0], |s, p| [s[0] + p[0] / n, s[1] + p[1] / n]);
    let mut radius = f64::INFINITY;
    for (k, &a) in pts.iter().enumerate() {
        let b = pts[(k + 1) % pts.len()];
        // Clockwise ring: the inside lies right of every edge of a convex ring; a centre left of
        // (or on) an edge is not known to be inside.
        if crate::geom::orient2d(a, b, c) >= 0.0 {
            return (c, -1.0);
        }
        let ab = [b[0] - a[0], b[1] - a[1]];
        let len2 = ab[0] * ab[0] + ab[1] * ab[1];
        let t = if len2 > 0.0 { (((c[0] - a[0]) * ab[0] + (c[1] - a[1]) * ab[1]) / len2).clamp(0.0, 1.0) } else { 0.0 };
        radius = radius.min(dist2(c, [a[0] + ab[0] * t, a[1] + ab[1] * t]));
    }
    (c, if radius.is_finite() { radius } else { -1.0 })
}

/// XZ projection of a 3D point.
#[inline]
pub(crate) fn xz(p: [f64; 3]) -> Point2 {
    [p[0], p[2]]
}

/// 3D distance.
#[inline]
pub(crate) fn dist3(a: [f64; 3], b: [f64; 3]) -> f64 {
    let d = [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
    (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt()
}

/// XZ distance.
#[inline]
pub(crate) fn dist2(a: Point2, b: Point2) -> f64 {
    ((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1])).sqrt()
}

/// Length of a 3D polyline.
pub(crate) fn polyline_length(points: &[[f64; 3]]) -> f64 {
    points.windows(2).map(|w| dist3(w[0], w[1])).sum()
}

fn finite3(p: [f64; 3]) -> bool {
    p.iter().all(|c| c.is_finite())
}

/// Checks a query input point against the coordinate contract: [`QueryError::NonFiniteInput`]
/// for NaN or infinity, [`QueryError::OutOfRange`] beyond [`crate::limits::MAX_COORDINATE`].
pub(crate) fn check_input(p: [f64; 3]) -> Result<(), QueryError> {
    if !finite3(p) {
        Err(QueryError::NonFiniteInput)
    } else if !crate::limits::in_range(p) {
        Err(QueryError::OutOfRange)
    } else {
        Ok(())
    }
}

impl PathError {
    /// The path error for a start or goal that failed [`check_input`].
    fn from_input(e: QueryError) -> PathError {
        match e {
            QueryError::OutOfRange => PathError::OutOfRange,
            _ => PathError::NonFiniteInput,
        }
    }
}

impl QueryMesh {
    /// The endpoints `(a, b)` of half-edge `h`, in its owner's counter-clockwise order.
    pub(crate) fn edge_endpoints(&self, h: usize) -> ([f64; 3], [f64; 3]) {
        let [a, b] = self.edge_ends[h];
        (a, b)
    }
}

/// An open-list entry of the path searches (A* and the shortest-path search). The open list is a plain binary heap with lazy deletion: a node whose
/// cost improves is pushed again and the stale entry (larger `f`, popped later) is skipped
/// because the node is closed by then, so sifting touches only the heap's own contiguous
/// memory (no position bookkeeping in the node pool).
#[derive(Clone, Copy, Debug)]
pub(crate) struct OpenEntry {
    /// `g` plus the heuristic.
    pub(crate) f: f64,
    /// The search node.
    pub(crate) node: u32,
}

impl PartialEq for OpenEntry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == std::cmp::Ordering::Equal
    }
}
impl Eq for OpenEntry {}
impl PartialOrd for OpenEntry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for OpenEntry {
    /// Reversed, so that `BinaryHeap` (a max-heap) pops the lowest `f`; ties by node index keep
    /// the search deterministic.
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        other.f.total_cmp(&self.f).then(other.node.cmp(&self.node))
    }
}
