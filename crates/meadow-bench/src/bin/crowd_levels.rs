//! Crowd step time on real levels: `N` agents at random points of the mesh walk to random goals,
//! and each one that arrives gets a new random goal (re-planning its path), for a number of
//! steps, on one thread and on all threads. Prints ms/step and the share of the step spent in
//! path following, ORCA and keeping agents on the mesh (moving along the surface and the overlap
//! pass), with the load average.
//!
//! Run: `cargo run --release -p meadow-bench --bin crowd_levels [-- --sizes 250,1000,5000
//! --steps 100]`. The levels are `../shared/levels/gltf/collision-world.glb` and
//! `../shared/levels/recast/dungeon.glb` (skipped with a message when absent), baked with the
//! default settings.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use meadow::crowd::{Crowd, CrowdConfig};
use meadow::orca::AgentParams;
use meadow::query::{QueryMesh, SplitMix64};
use meadow::BakeSettings;

/// Agents of about a person's size, seeing a few metres ahead.
fn params(radius: f32) -> AgentParams {
    AgentParams {
        neighbor_dist: 5.0,
        max_neighbors: 10,
        time_horizon: 2.0,
        time_horizon_obst: 1.0,
        radius,
        max_speed: 1.5,
    }
}

fn load_average() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}

struct Run {
    ms_per_step: f64,
    path: Duration,
    orca: Duration,
    keep: Duration,
    replans: usize,
    /// FNV-1a of the final positions' bits: equal on every thread count (and across changes
    /// that must not change behaviour).
    digest: u64,
}

fn positions_digest(positions: &[[f64; 3]]) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325u64;
    for byte in positions.iter().flatten().flat_map(|c| c.to_bits().to_le_bytes()) {
        hash = (hash ^ byte as u64).wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

fn run(mesh: &QueryMesh, n: usize, steps: usize, pool: &rayon::ThreadPool) -> Option<Run> {
    let mut rng = SplitMix64::new(0x0063_726f_7764);
    let mut crowd = Crowd::new(mesh, CrowdConfig::default()).ok()?;
    let radius = (mesh.mesh().settings().radius as f32).min(0.5);
    let mut tries = 0;
    while crowd.num_agents() < n && tries < 20 * n {
        tries += 1;
        let (Some(a), Some(b)) = (mesh.random_point(&mut rng), mesh.random_point(&mut rng)) else { return None };
        // Starts at least two radii apart (a brute-force check, so only up to 1,000 agents; larger
        // crowds start as drawn and the overlap pass separates them in the first steps).
        let clear = n > 1000
            || crowd.positions().iter().all(|p| {
                let (dx, dz) = (p[0] - a.point[0], p[2] - a.point[2]);
                dx * dx + dz * dz >= (4.0 * radius * radius) as f64 || (p[1] - a.point[1]).abs() > 2.0
            });
        if clear {
            crowd.add_agent(a.point, b.point, params(radius)).ok()?;
        }
    }
    let mut times = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut replans = 0;
    let start = Instant::now();
    pool.install(|| {
        for _ in 0..steps {
            crowd.step();
            let t = crowd.last_step_times();
            times.0 += t.path_following;
            times.1 += t.orca;
            times.2 += t.keep_on_mesh;
            for i in 0..crowd.num_agents() {
                if crowd.arrived(i) {
                    if let Some(goal) = mesh.random_point(&mut rng) {
                        if crowd.set_goal(i, goal.point).is_ok() {
                            replans += 1;
                        }
                    }
                }
            }
        }
    });
    let ms_per_step = start.elapsed().as_secs_f64() * 1e3 / steps as f64;
    let digest = positions_digest(crowd.positions());
    Some(Run { ms_per_step, path: times.0, orca: times.1, keep: times.2, replans, digest })
}

fn main() {
    let mut sizes = vec![250usize, 1000, 5000];
    let mut steps = 100usize;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match (a.as_str(), args.next()) {
            ("--sizes", Some(v)) => sizes = v.split(',').filter_map(|s| s.trim().parse().ok()).collect(),
            ("--steps", Some(v)) => steps = v.parse().unwrap_or(steps),
            _ => {
                eprintln!("crowd_levels: usage: [--sizes 250,1000,5000] [--steps 100]");
                std::process::exit(2);
            }
        }
    }
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/levels");
    let levels = [root.join("gltf/collision-world.glb"), root.join("recast/dungeon.glb")];
    let all = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1);
    let pool = |t: usize| rayon::ThreadPoolBuilder::new().num_threads(t).build().expect("thread pool");
    let pools = [(1, pool(1)), (all, pool(all))];
    println!("{steps} steps per run; load average at start {}", load_average());
    println!(
        "| level | agents | threads | ms/step | path following | ORCA | keep on mesh | new goals | positions digest |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for path in &levels {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if !path.exists() {
            eprintln!(
                "crowd_levels: {} is absent (third-party levels live beside the repository); skipped",
                path.display()
            );
            continue;
        }
        let mesh = match meadow_bake::bake_file(path, &BakeSettings::DEFAULT) {
            Ok(m) => QueryMesh::new(m),
            Err(e) => {
                eprintln!("crowd_levels: {name}: {e}");
                continue;
            }
        };
        for &n in &sizes {
            for (threads, pool) in &pools {
                let Some(r) = run(&mesh, n, steps, pool) else {
                    eprintln!("crowd_levels: {name}: could not place {n} agents");
                    continue;
                };
                let total = (r.path + r.orca + r.keep).as_secs_f64().max(1e-12);
                let share = |d: Duration| 100.0 * d.as_secs_f64() / total;
                println!(
                    "| {name} | {n} | {threads} | {:.2} | {:.0}% | {:.0}% | {:.0}% | {} | {:016x} |",
                    r.ms_per_step,
                    share(r.path),
                    share(r.orca),
                    share(r.keep),
                    r.replans,
                    r.digest
                );
            }
        }
    }
    println!("load average at end {}", load_average());
}
