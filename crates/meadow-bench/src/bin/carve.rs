//! Carved temporary obstacles (`meadow::DynamicMesh`) on the shared levels: the median time of
//! one change plus its `update()` (add, move, remove) with 1, 10 and 100 obstacles present, split
//! into carving (re-cutting the baked polygons under the changed obstacle) and rebuilding (the
//! navmesh assembly with its validation, and the `QueryMesh` tables); then the median
//! `find_path` and `find_shortest_path` time on 1000 seeded pairs with 100 obstacles present,
//! and on the baked mesh for comparison.
//!
//! Obstacles are 1 m × 1 m boxes (axis-aligned in XZ) centred on seeded random points of the
//! mesh, from 0.1 m below the surface there to 2 m above it. Run with
//! `cargo run --release -p meadow-bench --bin carve [-- --cpu] [LEVEL...]` (levels from
//! `../shared/levels` unless given). `--cpu` times changes by the thread's time on the CPU
//! (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`) instead of the wall clock, so that on a loaded
//! machine the time other processes take does not count; the split into carving and
//! rebuilding stays wall-clock.

use meadow::query::{Path, PathOptions, PathQuery, QueryFilter, QueryMesh, ShortestPathQuery, SplitMix64};
use meadow::{BakeSettings, DynamicMesh, Obstacle, ObstacleId, UpdateStats};
use meadow_bench::{thread_cpu_seconds, Clock};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

/// Seed of the obstacle positions.
const OBSTACLE_SEED: u64 = 0x0063_6172_7665;

/// The shared glTF and Recast levels beside the repository, sorted.
fn levels() -> Vec<PathBuf> {
    let shared = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/levels");
    let mut all = Vec::new();
    for sub in ["gltf", "recast"] {
        let mut v: Vec<PathBuf> = std::fs::read_dir(shared.join(sub))
            .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
            .unwrap_or_default();
        v.retain(|p| p.extension().and_then(|e| e.to_str()) == Some("glb"));
        v.sort();
        all.extend(v);
    }
    all
}

fn median_ms(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(f64::total_cmp);
    v[v.len() / 2] * 1e3
}

/// A 1 m box on the mesh at a seeded random point.
fn box_at(mesh: &QueryMesh, rng: &mut SplitMix64) -> Obstacle {
    let p = mesh.random_point(rng).expect("the level has area").point;
    let (x, z) = (p[0], p[2]);
    Obstacle {
        polygon: vec![[x - 0.5, z - 0.5], [x + 0.5, z - 0.5], [x + 0.5, z + 0.5], [x - 0.5, z + 0.5]],
        y: [p[1] - 0.1, p[1] + 2.0],
    }
}

/// Per-change samples: total, carving, rebuilding.
#[derive(Default)]
struct Samples {
    total: Vec<f64>,
    carve: Vec<f64>,
    rebuild: Vec<f64>,
}

impl Samples {
    fn push(&mut self, total: f64, stats: &UpdateStats) {
        self.total.push(total);
        self.carve.push(stats.carve_time.as_secs_f64());
        self.rebuild.push((stats.assemble_time + stats.query_mesh_time).as_secs_f64());
    }

    fn cell(self) -> String {
        format!("{:.3} ({:.3} + {:.3})", median_ms(self.total), median_ms(self.carve), median_ms(self.rebuild))
    }
}

/// Median query times (ms) of `find_path` and `find_shortest_path` on 1000 seeded pairs.
fn query_times(mesh: &QueryMesh) -> (f64, f64) {
    let pairs = meadow_bench::seeded_pairs(mesh, 1000);
    let filter = QueryFilter::new().without_links();
    let (mut pq, mut sq) = (PathQuery::new(mesh), ShortestPathQuery::new(mesh));
    let mut out = Path::default();
    for &(a, b) in &pairs {
        let _ = pq.find_path_into(mesh, a, b, &filter, PathOptions::default(), &mut out);
        let _ = sq.find_shortest_path_into(mesh, a, b, &filter, &mut out);
    }
    let (mut tp, mut ts) = (Vec::new(), Vec::new());
    for &(a, b) in &pairs {
        let t = Instant::now();
        let _ = pq.find_path_into(mesh, a, b, &filter, PathOptions::default(), &mut out);
        tp.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let _ = sq.find_shortest_path_into(mesh, a, b, &filter, &mut out);
        ts.push(t.elapsed().as_secs_f64());
    }
    (median_ms(tp), median_ms(ts))
}

fn main() {
    let mut clock = Clock::Wall;
    let mut args: Vec<PathBuf> = Vec::new();
    for a in std::env::args().skip(1) {
        if a == "--cpu" {
            clock = Clock::ThreadCpu;
        } else {
            args.push(PathBuf::from(a));
        }
    }
    if matches!(clock, Clock::ThreadCpu) && thread_cpu_seconds().is_none() {
        eprintln!("--cpu needs a thread CPU-time clock, which this system does not give");
        std::process::exit(1);
    }
    let origin = Instant::now();
    let levels = if args.is_empty() { levels() } else { args };
    if levels.is_empty() {
        eprintln!("no levels: the shared levels are not beside the repository; give level files as arguments");
        std::process::exit(1);
    }
    let mut updates = Vec::new();
    let mut queries = Vec::new();
    for path in levels {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        let nav = match meadow_bake::bake_file(&path, &BakeSettings::DEFAULT) {
            Ok(nav) => nav,
            Err(e) => {
                eprintln!("{name}: bake failed: {e}");
                continue;
            }
        };
        let polygons = nav.polygon_count();
        let base = Arc::new(QueryMesh::new(nav));
        let mut carved_100: Option<Arc<QueryMesh>> = None;
        for count in [1usize, 10, 100] {
            let mut rng = SplitMix64::new(OBSTACLE_SEED);
            let mut world = DynamicMesh::from_query_mesh(base.clone());
            let (mut add, mut mov, mut rem) = (Samples::default(), Samples::default(), Samples::default());
            // Fewer obstacles are added and removed in several rounds, for at least 20 samples.
            let rounds = 20usize.div_ceil(count);
            for round in 0..rounds {
                let mut ids: Vec<ObstacleId> = Vec::new();
                for _ in 0..count {
                    let o = box_at(&base, &mut rng);
                    let t = clock.seconds(origin);
                    let id = world.add_obstacle(o).expect("a valid box");
                    let stats = world.update();
                    add.push(clock.seconds(origin) - t, &stats);
                    assert!(stats.rejected.is_none(), "{name}: {stats:?}");
                    ids.push(id);
                }
                for &id in &ids {
                    let o = box_at(&base, &mut rng);
                    let t = clock.seconds(origin);
                    world.move_obstacle(id, o).expect("a live obstacle");
                    let stats = world.update();
                    mov.push(clock.seconds(origin) - t, &stats);
                }
                if count == 100 && round == rounds - 1 {
                    carved_100 = Some(world.mesh().clone());
                }
                for &id in &ids {
                    let t = clock.seconds(origin);
                    world.remove_obstacle(id).expect("a live obstacle");
                    let stats = world.update();
                    rem.push(clock.seconds(origin) - t, &stats);
                }
            }
            updates.push(format!(
                "| {name} | {polygons} | {count} | {} | {} | {} |",
                add.cell(),
                mov.cell(),
                rem.cell()
            ));
        }
        let (bp, bs) = query_times(&base);
        let carved = carved_100.expect("measured with 100 obstacles");
        let (cp, cs) = query_times(&carved);
        let row = format!(
            "| {name} | {polygons} | {} | {bp:.4} | {cp:.4} | {bs:.4} | {cs:.4} |",
            carved.mesh().polygon_count()
        );
        eprintln!("{row}");
        queries.push(row);
    }
    let basis = match clock {
        Clock::Wall => "wall clock",
        Clock::ThreadCpu => "thread CPU time",
    };
    println!("Median ms per change + update(): total by {basis} (carving + rebuilding the navmesh and its QueryMesh, wall clock)\n");
    println!("| level | polygons | obstacles | add | move | remove |");
    println!("|---|---|---|---|---|---|");
    for row in updates {
        println!("{row}");
    }
    println!("\nMedian ms per query on 1000 seeded pairs, baked mesh and with 100 obstacles carved\n");
    println!("| level | polygons | carved polygons | find_path baked | find_path carved | find_shortest_path baked | find_shortest_path carved |");
    println!("|---|---|---|---|---|---|---|");
    for row in queries {
        println!("{row}");
    }
}
