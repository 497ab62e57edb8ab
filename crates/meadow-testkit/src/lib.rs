//! Test support shared by Meadow's tests, benches and fixture generator (not published).

pub mod gltf;
pub mod layered_oracle;
pub mod oracle;
pub mod rng;
pub mod testmesh;
pub mod visibility;
pub mod world;
