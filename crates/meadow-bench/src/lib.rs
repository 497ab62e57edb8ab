//! Benchmarks of Meadow against peer libraries. The peers sit behind features (`detour`: Recast
//! and Detour through `recastnavigation-sys`), so the workspace builds without a C++ toolchain.

#[cfg(feature = "detour")]
pub mod detour;

use meadow::query::{QueryMesh, SplitMix64};
use std::path::PathBuf;

/// Seed of the start/goal pairs every path benchmark answers.
pub const PAIR_SEED: u64 = 0x6d65_6164_6f77;

/// The levels the query-phase benchmarks use: the two real levels Recast also bakes (from
/// `../shared`, when present) and the largest fixture.
pub fn query_levels() -> [PathBuf; 3] {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    [
        root.join("../shared/levels/gltf/collision-world.glb"),
        root.join("../shared/levels/gltf/navcat-proto-level.glb"),
        root.join("fixtures/levels/open_floor.gltf"),
    ]
}

/// `count` start/goal pairs of uniform random points on `mesh`, seeded with [`PAIR_SEED`]
/// (fewer only when the mesh has no area).
pub fn seeded_pairs(mesh: &QueryMesh, count: usize) -> Vec<([f64; 3], [f64; 3])> {
    let mut rng = SplitMix64::new(PAIR_SEED);
    let mut pairs = Vec::with_capacity(count);
    for _ in 0..count {
        match (mesh.random_point(&mut rng), mesh.random_point(&mut rng)) {
            (Some(a), Some(b)) => pairs.push((a.point, b.point)),
            _ => break,
        }
    }
    pairs
}
