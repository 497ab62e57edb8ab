//! Runtime queries on a loaded navmesh: point location, A* paths with three smoothing styles,
//! raycasts and random points.
//!
//! A [`QueryMesh`] wraps a validated [`NavMesh`](crate::NavMesh) with the tables the queries need (point-location
//! grid, half-edge twins and midpoints, area prefix sums) and the off-mesh link table; it can be
//! shared between threads, and only its links change (see [`QueryMesh::add_link`]; every path
//! query takes links as edges, and [`Path::links`] says where a path leaves the mesh). A [`PathQuery`] holds the scratch memory of the path search (node pool, open
//! list, corridor and portal buffers); keep one per thread and reuse it, so that queries after
//! warm-up allocate nothing.
//!
//! ```
//! use meadow::query::{PathQuery, QueryFilter, QueryMesh};
//! # let data = meadow_testkit::testmesh::GridSpec { cols: 4, rows: 4, ..Default::default() }.build();
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
pub(crate) use links::LinkState;
mod locate;
mod mesh;
mod obstacles;
mod random;
mod raycast;
mod refine;
mod shortest;
#[cfg(test)]
mod tests;
mod trapmap;
mod types;
mod visibility;

pub use astar::PathQuery;
pub use links::{LinkError, LinkId, LinkSpec, Links, DEFAULT_LINK_REACH, MAX_LINKS, MAX_LINK_COST};
pub use locate::LocateIndex;
pub use mesh::QueryMesh;
pub(crate) use mesh::{Derivation, MAX_ISLAND_VERTICES};
pub use random::SplitMix64;
pub use raycast::{RaycastResult, WallHit};
pub use shortest::ShortestPathQuery;
pub use trapmap::{Locator, TrapezoidalMapStats};
pub use types::{Location, Path, PathError, PathLink, PathOptions, PathStyle, QueryError, QueryFilter};

use crate::geom::Point2;

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

/// Sentinel for "no half-edge" / "no node".
pub(crate) const NONE: u32 = u32::MAX;

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
