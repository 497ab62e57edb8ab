//! Temporary obstacles carved exactly out of a baked navmesh at run time.
//!
//! A [`DynamicMesh`] owns a baked [`NavMesh`] (which stays immutable) and a set of obstacles:
//! convex polygons in XZ with a height range (a door, a crate, a parked vehicle). After
//! [`DynamicMesh::update`], [`DynamicMesh::mesh`] is a [`QueryMesh`] whose polygons are the
//! baked ones minus the obstacles grown by the agent radius, so every query (`locate`,
//! `find_path`, `find_shortest_path`, `raycast`, islands) and a [`Crowd`](crate::crowd::Crowd)
//! (through [`Crowd::set_mesh`](crate::crowd::Crowd::set_mesh)) see them.
//!
//! ```
//! use meadow::query::ShortestPathQuery;
//! use meadow::{DynamicMesh, NavMesh, Obstacle, QueryFilter};
//! # let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/assets/box_floor.nav"));
//! let mut world = DynamicMesh::new(NavMesh::from_bytes(bytes)?);
//! // A 1 m crate at (5, 5), from the floor up.
//! let crate_box = Obstacle { polygon: vec![[4.5, 4.5], [5.5, 4.5], [5.5, 5.5], [4.5, 5.5]], y: [-0.1, 1.0] };
//! let id = world.add_obstacle(crate_box)?;
//! world.update();
//! assert!(world.mesh().locate([5.0, 0.0, 5.0]).is_err()); // carved: no floor under the crate
//! let mesh = world.mesh().clone(); // an Arc: keep it while the world changes
//! let path = ShortestPathQuery::new(&mesh).find_shortest_path(&mesh, [3.0, 0.0, 5.0], [7.0, 0.0, 5.0], &QueryFilter::new())?;
//! assert!(path.length > 4.0); // round the crate
//! world.remove_obstacle(id)?;
//! world.update();
//! assert_eq!(world.mesh().mesh(), world.base().mesh()); // the baked mesh again
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What is carved
//! - **Dilation.** An obstacle is grown by the bake's agent radius (`settings().radius`): the
//!   Minkowski sum of the polygon and the disc, approximated by a convex polygon that contains
//!   the sum and lies within the bake's own `arc_tolerance` of it (the circumscribed polygon of
//!   each corner's arc, see [`Obstacle`]), so the carved mesh keeps agents as far from obstacles
//!   as the bake keeps them from walls, with the same arc error.
//! - **The column rule.** An obstacle carves a base polygon when their XZ interiors overlap
//!   (exactly; touching is no overlap) and the polygon's column meets the obstacle's height
//!   range: with `lo`, `hi` the lowest and highest vertex heights of the polygon and `h` the
//!   agent height, `y_min < hi + h` and `y_max > lo`. A floor below an obstacle (its column
//!   ends below `y_min`) and a bridge above it (its surface above `y_max`) stay untouched.
//! - **Carving.** Each carved base polygon is replaced by the convex pieces of the polygon minus
//!   its obstacles: each obstacle in turn is subtracted from every piece it overlaps by
//!   successive half-plane splits (the part right of a line is a piece, the rest goes on to the
//!   next line, and what is left at the end lies inside the obstacle). The lines are first a few
//!   edge lines bounding the dilated obstacle (a box's four sides), then, in each pocket between
//!   a corner of that bounding polygon and the obstacle's arc, the chord of the arc and rays
//!   from the corner through the arc's vertices, each sector then cut by its arc edge. So the
//!   area round an obstacle is a few large pieces and, along each arc, a fan of small triangles
//!   with two portals each (a chain the path search crosses in one step), rather than one long
//!   wedge per arc edge reaching across the polygon.
//!   Sides are decided by the exact [`orient2d`](crate::geom::orient2d); cut points are rounded
//!   once: a point on a base edge is computed along the whole edge from its lower-numbered
//!   vertex (height interpolated along it), a point inside from the cut edge's ends in a fixed
//!   order (height from the polygon's surface), so the polygons on both sides get the same
//!   bits. Every polygon (untouched neighbours included) then gets the points of its supports
//!   that lie inside its edges, so portals match end to end (no T-junctions); where a rounded
//!   point makes a corner turn the wrong way by an ulp, the ring is split by diagonals between
//!   its own corners into convex polygons of at most 12 vertices.
//! - **Walls and links.** Walls (the outlines, which are the crowd's ORCA obstacles) are traced
//!   again from the wall edges, so every obstacle gets a hole outline. Off-mesh links (the base
//!   mesh's current table: baked links and those added or removed at run time on
//!   [`DynamicMesh::base`], in handle order) re-attach to the piece under each end; a link with
//!   an end strictly inside a dilated obstacle is disabled (left out of the carved mesh's link
//!   table) while it is covered, and counted in [`UpdateStats::disabled_links`]. A change of the
//!   base's links reaches the carved mesh at the next update; links added to a carved mesh
//!   itself are gone after the next update that rebuilds it, so add them to the base. The baked
//!   visibility graph is left out of a carved mesh, so `find_shortest_path` runs its search
//!   without it.
//! - **Nothing left.** With no obstacle carving anything, [`DynamicMesh::mesh`] is the base
//!   mesh itself (the same `Arc`).
//!
//! # What an update costs
//! [`DynamicMesh::update`] re-carves only the base polygons under changed obstacles (pieces are
//! cached per base polygon), and computes the final polygons (pieces with their neighbours'
//! points inserted, made convex) only for those and their neighbours (kept per base polygon
//! too). The carved navmesh is then written out whole, in the base polygons' order (a base
//! polygon's pieces where it was), and its [`QueryMesh`] is derived from the previous one: the
//! tables of polygons that did not change are copied, the locate grid keeps the base mesh's
//! cells and tests only the changed polygons against them. Release builds trust the assembly
//! (debug builds validate every carved mesh as `NavMesh::new` does; the tests validate it after
//! every update). What is left linear in the mesh size is copying: the navmesh arrays, the
//! per-polygon and per-half-edge tables, the grid's lists, and the tables a query mesh derives
//! from its whole portal graph (components, chains, outlines). [`UpdateStats`] reports the time
//! of each part.

mod geometry;
mod pieces;
mod plan;

pub use geometry::convex_minus_convex;

use crate::asset::{NavMesh, ValidationError};
use crate::geom::Point2;
use crate::query::{Derivation, LinkState, QueryMesh};
use pieces::{Cutter, Piece};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

/// A run-time obstacle: a convex polygon in XZ (counter-clockwise) and the height range it
/// occupies.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Obstacle {
    /// The outline `[x, z]`, convex and counter-clockwise (collinear corners allowed).
    pub polygon: Vec<[f64; 2]>,
    /// The height range `[y_min, y_max]` it occupies, `y_min < y_max`.
    pub y: [f64; 2],
}

/// The handle of an obstacle in a [`DynamicMesh`] (never reused).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ObstacleId(u64);

impl ObstacleId {
    /// The handle as a number (ids count up from 0 in order of addition).
    pub fn get(self) -> u64 {
        self.0
    }
}

/// Why an obstacle or an obstacle id was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ObstacleError {
    /// The outline has fewer than three corners.
    #[error("an obstacle needs at least 3 corners, this one has {count}")]
    TooFewVertices {
        /// Corners given.
        count: usize,
    },
    /// A corner has a NaN or infinite coordinate.
    #[error("obstacle corner {vertex} has a non-finite coordinate")]
    NonFinite {
        /// Index of the corner.
        vertex: usize,
    },
    /// A corner lies outside the coordinate contract ([`crate::limits`]).
    #[error("obstacle corner {vertex} lies beyond the coordinate limit")]
    OutOfRange {
        /// Index of the corner.
        vertex: usize,
    },
    /// The outline is not convex and counter-clockwise (seen from above, x right, z up).
    #[error("an obstacle outline must be convex and counter-clockwise in (x, z)")]
    NotConvex,
    /// The height range is empty, inverted, not finite or beyond the coordinate limit.
    #[error("obstacle height range {y:?} must be finite with y_min < y_max")]
    BadHeightRange {
        /// The range given.
        y: [f64; 2],
    },
    /// No obstacle has this id (never added, or already removed).
    #[error("no obstacle {} (never added or already removed)", id.0)]
    UnknownObstacle {
        /// The id given.
        id: ObstacleId,
    },
}

/// What one [`DynamicMesh::update`] did, and how long its two parts took.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UpdateStats {
    /// Obstacles added, moved or removed since the previous update.
    pub changed_obstacles: usize,
    /// Base polygons carved again (those under changed obstacles).
    pub recarved_polygons: usize,
    /// Base polygons carved by some obstacle now.
    pub carved_polygons: usize,
    /// Polygons of the mesh now.
    pub polygons: usize,
    /// Off-mesh links disabled because an end is covered.
    pub disabled_links: usize,
    /// Pieces left out because rounding made them degenerate (a sliver of at most a few ulps).
    pub dropped_slivers: usize,
    /// Rings whose inserted neighbour points could not be kept convex (their edges there stay
    /// walls); 0 unless points are within ulps of degenerate.
    pub unmatched_rings: usize,
    /// Time re-carving the changed base polygons.
    pub carve_time: Duration,
    /// Time assembling the carved navmesh (and validating it, in debug builds).
    pub assemble_time: Duration,
    /// Time deriving its [`QueryMesh`].
    pub query_mesh_time: Duration,
    /// Set when the carved mesh failed validation (a bug; checked in debug builds only): the
    /// previous mesh is kept.
    pub rejected: Option<ValidationError>,
}

/// One live obstacle.
#[derive(Clone, Debug)]
struct Entry {
    obstacle: Obstacle,
    /// The outline grown by the agent radius.
    dilated: Vec<Point2>,
    /// The base polygons it carves (ascending).
    carves: Vec<u32>,
}

/// A navmesh with temporary obstacles carved out of it: a base mesh that never changes, the
/// obstacles, and the carved [`QueryMesh`] queries run on (see the [module docs](self)).
#[derive(Clone, Debug)]
pub struct DynamicMesh {
    base: Arc<QueryMesh>,
    /// Per base polygon: XZ bounds.
    bounds: Vec<[f64; 4]>,
    /// Per base polygon: lowest and highest vertex height.
    heights: Vec<[f64; 2]>,
    obstacles: BTreeMap<u64, Entry>,
    next_id: u64,
    /// Per carved base polygon: the obstacles carving it.
    carvers: BTreeMap<u32, BTreeSet<u64>>,
    /// Per carved base polygon: its pieces (the cache `update` keeps).
    pieces: BTreeMap<u32, Vec<Piece>>,
    /// Base polygons to carve again at the next update.
    dirty: BTreeSet<u32>,
    changed: usize,
    current: Arc<QueryMesh>,
    /// Per base polygon beside or under an obstacle: its final rings in `current` (the cache
    /// the assembly keeps).
    rings: BTreeMap<u32, pieces::Rings>,
    /// How `current`'s polygons come from the base polygons: per base polygon (and one past
    /// the last) its first polygon, and per polygon its base polygon (`None`: `current` is the
    /// base mesh).
    layout: Option<(Vec<u32>, Vec<u32>)>,
    /// Set when the last assembly was rejected, so that the next one computes every ring.
    reassemble_all: bool,
    /// The base mesh's link table the current carved mesh was assembled with: links added to
    /// or removed from the base since then make the next update assemble again.
    links_seen: Option<Arc<LinkState>>,
}

/// The time now, where the target has a clock (`Instant::now` panics on
/// `wasm32-unknown-unknown`, where the stats' times stay zero).
fn clock() -> Option<std::time::Instant> {
    #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
    let now = None;
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    let now = Some(std::time::Instant::now());
    now
}

fn since(a: Option<std::time::Instant>) -> Duration {
    match (a, clock()) {
        (Some(a), Some(b)) => b.saturating_duration_since(a),
        _ => Duration::ZERO,
    }
}

impl DynamicMesh {
    /// A dynamic mesh over `mesh` with no obstacles (`mesh()` is `mesh` itself).
    pub fn new(mesh: NavMesh) -> DynamicMesh {
        DynamicMesh::from_query_mesh(Arc::new(QueryMesh::new(mesh)))
    }

    /// A dynamic mesh over an existing query mesh, shared (no tables are built again).
    pub fn from_query_mesh(base: Arc<QueryMesh>) -> DynamicMesh {
        let nav = base.mesh();
        let mut bounds = Vec::with_capacity(nav.polygon_count());
        let mut heights = Vec::with_capacity(nav.polygon_count());
        for p in nav.polygons() {
            let pts: Vec<Point2> =
                p.vertices.iter().map(|&v| [nav.vertices()[v as usize][0], nav.vertices()[v as usize][2]]).collect();
            bounds.push(geometry::bounds(&pts));
            heights.push(p.vertices.iter().fold([f64::INFINITY, f64::NEG_INFINITY], |h, &v| {
                let y = nav.vertices()[v as usize][1];
                [h[0].min(y), h[1].max(y)]
            }));
        }
        DynamicMesh {
            current: base.clone(),
            base,
            bounds,
            heights,
            obstacles: BTreeMap::new(),
            next_id: 0,
            carvers: BTreeMap::new(),
            pieces: BTreeMap::new(),
            dirty: BTreeSet::new(),
            changed: 0,
            rings: BTreeMap::new(),
            layout: None,
            reassemble_all: false,
            links_seen: None,
        }
    }

    /// The baked mesh, without obstacles.
    pub fn base(&self) -> &Arc<QueryMesh> {
        &self.base
    }

    /// The mesh as of the last [`DynamicMesh::update`]: queries on it see the obstacles.
    pub fn mesh(&self) -> &Arc<QueryMesh> {
        &self.current
    }

    /// The live obstacles, by id.
    pub fn obstacles(&self) -> impl Iterator<Item = (ObstacleId, &Obstacle)> + '_ {
        self.obstacles.iter().map(|(&id, e)| (ObstacleId(id), &e.obstacle))
    }

    /// An obstacle's outline grown by the agent radius (what is carved), if it is live.
    pub fn dilated(&self, id: ObstacleId) -> Option<&[[f64; 2]]> {
        self.obstacles.get(&id.0).map(|e| e.dilated.as_slice())
    }

    /// The base polygons an obstacle carves (ascending), if it is live.
    pub fn carved_by(&self, id: ObstacleId) -> Option<&[u32]> {
        self.obstacles.get(&id.0).map(|e| e.carves.as_slice())
    }

    /// Adds an obstacle; the mesh changes at the next [`DynamicMesh::update`]. An obstacle off
    /// the mesh is accepted and carves nothing.
    pub fn add_obstacle(&mut self, obstacle: Obstacle) -> Result<ObstacleId, ObstacleError> {
        let entry = self.entry(obstacle)?;
        let id = self.next_id;
        self.next_id += 1;
        self.insert(id, entry);
        self.changed += 1;
        Ok(ObstacleId(id))
    }

    /// Moves (or reshapes) an obstacle; the mesh changes at the next update.
    pub fn move_obstacle(&mut self, id: ObstacleId, obstacle: Obstacle) -> Result<(), ObstacleError> {
        if !self.obstacles.contains_key(&id.0) {
            return Err(ObstacleError::UnknownObstacle { id });
        }
        let entry = self.entry(obstacle)?;
        self.take(id.0);
        self.insert(id.0, entry);
        self.changed += 1;
        Ok(())
    }

    /// Removes an obstacle; the mesh changes at the next update.
    pub fn remove_obstacle(&mut self, id: ObstacleId) -> Result<(), ObstacleError> {
        if !self.obstacles.contains_key(&id.0) {
            return Err(ObstacleError::UnknownObstacle { id });
        }
        self.take(id.0);
        self.changed += 1;
        Ok(())
    }

    /// Applies pending changes; queries on `mesh()` see them afterwards.
    pub fn update(&mut self) -> UpdateStats {
        let mut stats = UpdateStats { changed_obstacles: std::mem::take(&mut self.changed), ..UpdateStats::default() };
        // Links added to or removed from the base since the carved mesh was assembled: carry
        // them over (no polygon changes, so only the link table is new).
        let links_changed = !self.pieces.is_empty()
            && self.links_seen.as_ref().is_some_and(|seen| !Arc::ptr_eq(seen, &self.base.link_state()));
        if self.dirty.is_empty() && !links_changed {
            stats.carved_polygons = self.pieces.len();
            stats.polygons = self.current.mesh().polygon_count();
            return stats;
        }
        let started = clock();
        let dirty = std::mem::take(&mut self.dirty);
        stats.recarved_polygons = dirty.len();
        for &poly in &dirty {
            let ids: Vec<u64> = self.carvers.get(&poly).map(|s| s.iter().copied().collect()).unwrap_or_default();
            if ids.is_empty() {
                self.pieces.remove(&poly);
                continue;
            }
            let cutters: Vec<Cutter<'_>> =
                ids.iter().map(|id| Cutter { id: *id, outline: &self.obstacles[id].dilated }).collect();
            let pieces = pieces::carve_polygon(&self.base, poly, &cutters);
            self.pieces.insert(poly, pieces);
        }
        stats.carve_time = since(started);
        stats.carved_polygons = self.pieces.len();
        if self.pieces.is_empty() {
            self.current = self.base.clone();
            self.layout = None;
            self.rings.clear();
            stats.polygons = self.current.mesh().polygon_count();
            return stats;
        }
        let started = clock();
        let cutters_of = |poly: u32| -> Vec<(u64, Vec<Point2>)> {
            self.carvers
                .get(&poly)
                .map(|s| s.iter().map(|id| (*id, self.obstacles[id].dilated.clone())).collect())
                .unwrap_or_default()
        };
        // After a rejected mesh the cached rings are not those of `current`: assemble them all.
        let changed = (!self.reassemble_all).then_some(&dirty);
        self.links_seen = Some(self.base.link_state());
        let assembled = pieces::assemble(&self.base, &self.pieces, &cutters_of, changed, &mut self.rings);
        let counts = assembled.counts;
        stats.dropped_slivers = counts.dropped_slivers;
        stats.unmatched_rings = counts.unmatched_rings;
        stats.disabled_links = counts.disabled_links;
        let checked = NavMesh::new_trusted(assembled.data);
        stats.assemble_time = since(started);
        match checked {
            Ok(nav) => {
                let started = clock();
                let identity: Vec<u32>;
                let (before, before_origin) = match &self.layout {
                    Some((first_of, origin)) => (first_of.as_slice(), origin.as_slice()),
                    None => {
                        identity = (0..=self.base.mesh().polygon_count() as u32).collect();
                        (identity.as_slice(), &identity[..identity.len() - 1])
                    }
                };
                let how = Derivation { before, before_origin, after: &assembled.first_of, changed: &assembled.changed };
                let derived = QueryMesh::derive(&self.current, self.base.locate_index(), nav, &how);
                self.current = Arc::new(derived);
                self.layout = Some((assembled.first_of, assembled.origin));
                self.reassemble_all = false;
                stats.query_mesh_time = since(started);
            }
            Err(e) => {
                stats.rejected = Some(e);
                self.reassemble_all = true;
            }
        }
        stats.polygons = self.current.mesh().polygon_count();
        stats
    }

    /// Validates and dilates an obstacle and finds the base polygons it carves.
    fn entry(&self, obstacle: Obstacle) -> Result<Entry, ObstacleError> {
        geometry::validate(&obstacle.polygon, obstacle.y)?;
        let settings = self.base.mesh().settings();
        let dilated = geometry::dilate(&obstacle.polygon, settings.radius, settings.arc_tolerance);
        let bounds = geometry::bounds(&dilated);
        let nav = self.base.mesh();
        let height = settings.height;
        // The base locate grid lists every polygon whose interior meets a cell, so the cells
        // under the obstacle's bounds hold every polygon it can overlap.
        let mut candidates = Vec::new();
        self.base.locate_index().for_each_candidate(&bounds, |p| candidates.push(p));
        candidates.sort_unstable();
        candidates.dedup();
        let carves = candidates
            .into_iter()
            .filter(|&p| {
                let [lo, hi] = self.heights[p as usize];
                geometry::boxes_overlap(&self.bounds[p as usize], &bounds)
                    && obstacle.y[0] < hi + height
                    && obstacle.y[1] > lo
                    && geometry::interiors_overlap(&nav.polygon_points(p as usize).collect::<Vec<_>>(), &dilated)
            })
            .collect();
        Ok(Entry { obstacle, dilated, carves })
    }

    fn insert(&mut self, id: u64, entry: Entry) {
        for &p in &entry.carves {
            self.carvers.entry(p).or_default().insert(id);
            self.dirty.insert(p);
        }
        self.obstacles.insert(id, entry);
    }

    fn take(&mut self, id: u64) {
        if let Some(entry) = self.obstacles.remove(&id) {
            for p in entry.carves {
                if let Some(set) = self.carvers.get_mut(&p) {
                    set.remove(&id);
                    if set.is_empty() {
                        self.carvers.remove(&p);
                    }
                }
                self.dirty.insert(p);
            }
        }
    }
}

#[cfg(test)]
mod tests;
