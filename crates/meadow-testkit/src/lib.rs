//! Test support shared by Meadow's tests, benches and fixture generator (not published).

pub mod oracle;
pub mod testmesh;
