//! Meadow runtime: loads baked navmesh assets and answers queries on them.
//!
//! ```
//! use meadow::crowd::{Crowd, CrowdConfig};
//! use meadow::orca::AgentParams;
//! use meadow::query::{PathQuery, QueryFilter, QueryMesh, ShortestPathQuery};
//! use meadow::NavMesh;
//!
//! // An asset baked by `meadow bake` or `meadow_bake` (here a 20 × 20 m floor with a 2 m box in
//! // its middle, baked for an agent of radius 0.6 m), embedded in the program.
//! let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/assets/box_floor.nav"));
//! let mesh = QueryMesh::new(NavMesh::from_bytes(bytes)?); // or NavMesh::load("level.nav")?
//!
//! // Locate: the polygon under a point, and the point on its surface.
//! let here = mesh.locate([-5.0, 0.5, 0.0])?;
//! assert_eq!(here.point, [-5.0, 0.0, 0.0]);
//!
//! // A path round the box: A* over the polygons, string pulled...
//! let (from, to) = ([-5.0, 0.0, 0.0], [5.0, 0.0, 0.0]);
//! let filter = QueryFilter::new();
//! let path = PathQuery::new(&mesh).find_path(&mesh, from, to, &filter)?;
//! // ...and the exact (Euclidean-shortest) path, never longer.
//! let exact = ShortestPathQuery::new(&mesh).find_shortest_path(&mesh, from, to, &filter)?;
//! assert!(exact.length <= path.length && exact.length > 10.0);
//!
//! // A raycast stops at the box grown by the agent radius, at x = -1.6.
//! let mut visited = Vec::new();
//! let hit = mesh.raycast(from, to, &mut visited)?.hit.expect("the box is in the way");
//! assert!((hit.point[0] + 1.6).abs() < 1e-3);
//!
//! // A crowd: two agents swap sides, one step at a time.
//! let mut crowd = Crowd::new(&mesh, CrowdConfig::default())?;
//! let params = AgentParams {
//!     neighbor_dist: 5.0,
//!     max_neighbors: 10,
//!     time_horizon: 2.0,
//!     time_horizon_obst: 1.0,
//!     radius: 0.5,
//!     max_speed: 2.0,
//! };
//! crowd.add_agent([-5.0, 0.0, 4.0], [5.0, 0.0, 4.0], params)?;
//! crowd.add_agent([5.0, 0.0, 4.0], [-5.0, 0.0, 4.0], params)?;
//! for _ in 0..10 {
//!     crowd.step();
//! }
//! assert!(crowd.positions()[0][0] > -5.0 && crowd.positions()[1][0] < 5.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The asset above is `fixtures/assets/box_floor.nav`, made by `cargo run -p meadow-cli --
//! bake fixtures/levels/box_floor.glb -o fixtures/assets/box_floor.nav --config
//! fixtures/levels/meadow.toml` (re-run it when the asset format version changes). A game that
//! bakes its levels in `build.rs` and embeds them is in `examples/game/`.
//!
//! The runtime owns the asset format ([`asset`]); the bake crate only produces it.
//!
//! # Features
//! - `parallel` (default): the ORCA velocity phase on rayon's thread pool.
//! - `mint`: query entry points take any `Into<mint::Point3<f64>>` as a point (glam's `DVec3`,
//!   nalgebra's and cgmath's `Point3<f64>`), see [`point`].
//! - `serde`: `Serialize`/`Deserialize` for [`Path`], [`query::PathLink`], [`query::LinkId`],
//!   [`query::Location`], [`query::RaycastResult`] and [`query::WallHit`].
//!
//! # Conventions
//! World space is glTF's: +Y up, metres. Planar work happens in the XZ plane, where a 2D point
//! is `[x, z]`. Every polygon in Meadow is wound counter-clockwise in `(x, z)` coordinates taken
//! as an ordinary math plane, i.e. its signed area `Σ (x_i z_{i+1} − x_{i+1} z_i) / 2` is
//! positive (see [`geom::signed_area`]). Holes and obstacle outlines run the other way.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod asset;
pub mod carve;
pub mod circles;
pub mod crowd;
pub mod geom;
pub mod limits;
pub mod orca;
pub mod point;
pub mod query;
pub mod settings;
mod tolerance;

// The unit tests share the test meshes and the path oracle of `meadow-testkit`, compiled into
// this crate: through a dev-dependency they would see a second, incompatible copy of its types.
#[cfg(test)]
extern crate self as meadow;
#[cfg(test)]
#[path = "../../meadow-testkit/src/oracle.rs"]
mod oracle;
#[cfg(test)]
#[path = "../../meadow-testkit/src/testmesh.rs"]
#[allow(dead_code)] // Not every helper serves a unit test.
mod testmesh;

pub use asset::{
    AreaType, EdgeLink, LoadError, NavMesh, NavMeshData, Outline, PartialBake, PendingLink, PolygonData, TileSection,
    ValidationError, VisibilityGraph,
};
pub use carve::{DynamicMesh, Obstacle, ObstacleError, ObstacleId, UpdateStats};
pub use point::IntoPoint;
pub use query::{Path, PathError, PathOptions, PathQuery, PathStyle, QueryError, QueryFilter, QueryMesh};
pub use settings::{BakeSettings, Budgets, Partition, SettingsError, WalkableRule};
