//! Meadow bake library: turns a glTF level into an exact convex navmesh ([`meadow::NavMesh`]).
//!
//! The pipeline is one module per stage, each a function from one named type to the next:
//! [`ingest`] (`Scene`) → [`classify`] (`Classified`) → [`region`] (`Regions`) →
//! [`triangulate`] (`Triangulation`) → [`convex`] (`ConvexMesh`) → [`portals`] (edge links) →
//! [`assemble`] (`NavMesh`).

pub mod assemble;
pub mod classify;
pub mod convex;
pub mod ingest;
pub mod portals;
pub mod progress;
pub mod region;
pub mod triangulate;

pub use meadow::BakeSettings;
pub use progress::{NoProgress, Progress, Stage};
