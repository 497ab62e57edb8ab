//! Meadow runtime: loads baked navmesh assets and answers queries on them.
//!
//! The runtime owns the asset format ([`asset`]); the bake crate only produces it.
//!
//! # Conventions
//! World space is glTF's: +Y up, metres. Planar work happens in the XZ plane, where a 2D point
//! is `[x, z]`. Every polygon in Meadow is wound counter-clockwise in `(x, z)` coordinates taken
//! as an ordinary math plane, i.e. its signed area `Σ (x_i z_{i+1} − x_{i+1} z_i) / 2` is
//! positive (see [`geom::signed_area`]). Holes and obstacle outlines run the other way.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod asset;
pub mod circles;
pub mod crowd;
pub mod geom;
pub mod limits;
pub mod orca;
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
    AreaType, EdgeLink, LoadError, NavMesh, NavMeshData, Outline, PolygonData, ValidationError, VisibilityGraph,
};
pub use query::{Path, PathError, PathOptions, PathQuery, PathStyle, QueryError, QueryFilter, QueryMesh};
pub use settings::{BakeSettings, Budgets, SettingsError, WalkableRule};
