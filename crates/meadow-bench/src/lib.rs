//! Benchmarks of Meadow against peer libraries. The peers sit behind features (`detour`: Recast
//! and Detour through `recastnavigation-sys`, with Detour's tile cache; `polyanya`: the
//! `polyanya` crate; `rvo2`: RVO2's C++ sources from `../shared/peers/rvo2`), so the workspace
//! builds without a C++ toolchain or the peers' dependencies.
//!
//! The carving benchmark (temporary obstacles, `vs_tilecache`): [`obstacles`] makes the seeded
//! box obstacles every side carves, [`carving`] times any side implementing
//! [`carving::DynamicNavigation`]; Detour's tile cache is `detour::tile_cache::TileCacheMesh`.
//! Run it with `RECAST_VENDOR=true cargo run --release -p meadow-bench --features detour --bin
//! vs_tilecache`.

pub mod carving;
#[cfg(feature = "detour")]
pub mod detour;
pub mod obstacles;
pub mod rvo2;

use meadow::query::{QueryMesh, SplitMix64};
use std::path::PathBuf;

/// The clock a bench binary times steps by.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Clock {
    /// Wall-clock time.
    Wall,
    /// CPU time of the calling thread ([`thread_cpu_seconds`]).
    ThreadCpu,
}

impl Clock {
    /// Seconds since `origin` by wall clock, or the thread's CPU seconds so far (NaN where that
    /// clock cannot be read; callers check [`thread_cpu_seconds`] before choosing it).
    pub fn seconds(self, origin: std::time::Instant) -> f64 {
        match self {
            Clock::Wall => origin.elapsed().as_secs_f64(),
            Clock::ThreadCpu => thread_cpu_seconds().unwrap_or(f64::NAN),
        }
    }
}

/// Seconds the calling thread has run on a CPU (`CLOCK_THREAD_CPUTIME_ID`), `None` where the
/// clock cannot be read. On a loaded machine it leaves out the time other processes take.
pub fn thread_cpu_seconds() -> Option<f64> {
    let mut t = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `t` is a valid, writable timespec; clock_gettime only writes it.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (rc == 0).then_some(t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9)
}

/// Seed of the start/goal pairs every path benchmark answers.
pub const PAIR_SEED: u64 = 0x6d65_6164_6f77;

/// The levels the query-phase benchmarks use: the real levels Recast also bakes (from
/// `../shared`, when present: two game levels and RecastDemo's three meshes) and the largest
/// fixture.
pub fn query_levels() -> [PathBuf; 6] {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let shared = root.join("../shared/levels");
    [
        shared.join("gltf/collision-world.glb"),
        shared.join("gltf/navcat-proto-level.glb"),
        shared.join("recast/dungeon.glb"),
        shared.join("recast/nav_test.glb"),
        shared.join("recast/undulating.glb"),
        root.join("fixtures/levels/open_floor.gltf"),
    ]
}

/// `count` start/goal pairs of uniform random points on `mesh`, seeded with [`PAIR_SEED`]
/// (fewer only when the mesh has no area).
pub fn seeded_pairs(mesh: &QueryMesh, count: usize) -> Vec<([f64; 3], [f64; 3])> {
    pairs_with_seed(mesh, count, PAIR_SEED)
}

/// [`seeded_pairs`] from another seed (to see how much a figure owes to the sample).
pub fn pairs_with_seed(mesh: &QueryMesh, count: usize, seed: u64) -> Vec<([f64; 3], [f64; 3])> {
    let mut rng = SplitMix64::new(seed);
    let mut pairs = Vec::with_capacity(count);
    for _ in 0..count {
        match (mesh.random_point(&mut rng), mesh.random_point(&mut rng)) {
            (Some(a), Some(b)) => pairs.push((a.point, b.point)),
            _ => break,
        }
    }
    pairs
}
