//! Benchmarks of Meadow against peer libraries. The peers sit behind features (`detour`: Recast
//! and Detour through `recastnavigation-sys`), so the workspace builds without a C++ toolchain.

#[cfg(feature = "detour")]
pub mod detour;
