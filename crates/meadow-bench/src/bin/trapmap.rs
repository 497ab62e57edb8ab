//! The trapezoidal map against the uniform grid for `locate`, and the trapezoid roadmap planner
//! against `find_path` and the exact shortest path, on the fixture levels and the third-party
//! levels present beside the repository (glTF and Recast levels baked with the default
//! settings, Polyanya's aurora and arena imported).
//!
//! Run with `cargo run --release -p meadow-bench --bin trapmap [-- LOCATES PAIRS]` (defaults
//! 200000 and 1000). Prints two Markdown tables: per level, the locate time (median of 5 rounds
//! over the same seeded points on the mesh) and heap bytes of each index, and whether every
//! answer agreed; then the roadmap's path-length ratio to the exact optimum and its median query
//! time beside `find_path`'s.

use meadow::query::{Locator, Path, PathOptions, PathQuery, QueryFilter, QueryMesh, ShortestPathQuery, SplitMix64};
use meadow::{BakeSettings, NavMesh};
use meadow_bake::import::polyanya;
use std::path::PathBuf;
use std::time::Instant;

/// The fixture levels, the third-party glTF and Recast levels, and Polyanya's aurora and arena.
fn levels() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let list = |dir: PathBuf, exts: &[&str]| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> =
            std::fs::read_dir(dir).map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
        v.retain(|p| p.extension().and_then(|e| e.to_str()).is_some_and(|e| exts.contains(&e)));
        v.sort();
        v
    };
    let mut all = list(root.join("fixtures/levels"), &["glb", "gltf"]);
    let shared = root.join("../shared/levels");
    for sub in ["gltf", "recast"] {
        all.extend(list(shared.join(sub), &["glb"]));
    }
    for name in ["aurora.mesh", "arena.mesh"] {
        let p = shared.join("polyanya").join(name);
        if p.exists() {
            all.push(p);
        }
    }
    all
}

fn load(path: &PathBuf) -> Result<NavMesh, String> {
    if path.extension().and_then(|e| e.to_str()) == Some("mesh") {
        polyanya::import_file(path, &polyanya::import_settings()).map_err(|e| e.to_string())
    } else {
        meadow_bake::bake_file(path, &BakeSettings::DEFAULT).map_err(|e| e.to_string())
    }
}

fn median(times: &mut [f64]) -> f64 {
    if times.is_empty() {
        return f64::NAN;
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2]
}

/// Seconds per `locate` over `points`: the median of 5 rounds; and a checksum of the answers.
fn time_locate(mesh: &QueryMesh, points: &[[f64; 3]]) -> (f64, Vec<Option<u32>>) {
    let answers: Vec<Option<u32>> = points.iter().map(|&p| mesh.locate(p).ok().map(|l| l.polygon)).collect();
    let mut rounds = Vec::new();
    for _ in 0..5 {
        let t = Instant::now();
        let mut found = 0usize;
        for &p in points {
            found += usize::from(std::hint::black_box(mesh.locate(p)).is_ok());
        }
        std::hint::black_box(found);
        rounds.push(t.elapsed().as_secs_f64() / points.len().max(1) as f64);
    }
    (median(&mut rounds), answers)
}

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).filter_map(|a| a.parse().ok()).collect();
    let locates = args.first().copied().unwrap_or(200_000);
    let pairs_n = args.get(1).copied().unwrap_or(1000);
    let mut roadmap_rows = Vec::new();
    println!("| level | polygons | layers (mapped) | grid ns | map ns | grid KiB | map KiB | map build ms | agree |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for path in levels() {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        let nav = match load(&path) {
            Ok(nav) => nav,
            Err(e) => {
                println!("| {name} | load failed: {e} |");
                continue;
            }
        };
        let polygons = nav.polygon_count();
        let grid = QueryMesh::new(nav.clone());
        let t = Instant::now();
        let maps = QueryMesh::with_locator(nav, Locator::TrapezoidalMap);
        let with_maps = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let _again = QueryMesh::new(grid.mesh().clone());
        let build_ms = (with_maps - t.elapsed().as_secs_f64()).max(0.0) * 1e3;
        let stats = maps.trapezoidal_map_stats().unwrap_or_default();
        // Points on the mesh at their surface height (the common case: agents' positions).
        let mut rng = SplitMix64::new(meadow_bench::PAIR_SEED);
        let points: Vec<[f64; 3]> = (0..locates)
            .filter_map(|_| grid.random_point(&mut rng))
            .map(|l| [l.point[0], l.point[1] + 0.1, l.point[2]])
            .collect();
        let (grid_s, grid_answers) = time_locate(&grid, &points);
        let (map_s, map_answers) = time_locate(&maps, &points);
        let disagree = grid_answers.iter().zip(&map_answers).filter(|(a, b)| a != b).count();
        println!(
            "| {name} | {polygons} | {} ({}) | {:.0} | {:.0} | {:.1} | {:.1} | {:.1} | {} |",
            stats.layers,
            stats.mapped_layers,
            grid_s * 1e9,
            map_s * 1e9,
            grid.locate_index().heap_bytes() as f64 / 1024.0,
            stats.heap_bytes as f64 / 1024.0,
            build_ms,
            if disagree == 0 { "all".to_string() } else { format!("{disagree} differ") },
        );
        roadmap_rows.push(roadmap_row(&name, &grid, pairs_n));
    }
    println!();
    println!("| level | pairs (roadmap found / exact found) | ratio mean | ratio median | ratio max | roadmap µs | find_path µs | roadmap build ms |");
    println!("|---|---|---|---|---|---|---|---|");
    for row in roadmap_rows {
        println!("{row}");
    }
}

/// Roadmap against `find_path` and the exact optimum (links off, XZ lengths as the polylines'
/// 3D lengths) on `n` seeded pairs.
fn roadmap_row(name: &str, mesh: &QueryMesh, n: usize) -> String {
    let pairs = meadow_bench::seeded_pairs(mesh, n);
    let filter = QueryFilter::new().without_links();
    let t = Instant::now();
    let _ = mesh.find_roadmap_path(pairs.first().map_or([0.0; 3], |p| p.0), pairs.first().map_or([0.0; 3], |p| p.1));
    let build_ms = t.elapsed().as_secs_f64() * 1e3;
    let (mut exact, mut pq) = (ShortestPathQuery::new(mesh), PathQuery::new(mesh));
    let mut out = Path::default();
    let (mut ratios, mut road_t, mut astar_t) = (Vec::new(), Vec::new(), Vec::new());
    let (mut road_found, mut exact_found) = (0, 0);
    for &(a, b) in &pairs {
        let best = exact.find_shortest_path_into(mesh, a, b, &filter, &mut out).ok().map(|_| out.length);
        exact_found += usize::from(best.is_some());
        let t = Instant::now();
        let road = mesh.find_roadmap_path(a, b);
        road_t.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let _ = pq.find_path_into(mesh, a, b, &filter, PathOptions::default(), &mut out);
        astar_t.push(t.elapsed().as_secs_f64());
        if let Ok(road) = road {
            road_found += 1;
            if let Some(best) = best.filter(|&l| l > 0.0) {
                ratios.push(road.length / best);
            }
        }
    }
    let mean = ratios.iter().sum::<f64>() / ratios.len().max(1) as f64;
    let max = ratios.iter().copied().fold(f64::NAN, f64::max);
    format!(
        "| {name} | {} ({road_found} / {exact_found}) | {mean:.3} | {:.3} | {max:.3} | {:.1} | {:.1} | {build_ms:.1} |",
        pairs.len(),
        median(&mut ratios),
        median(&mut road_t) * 1e6,
        median(&mut astar_t) * 1e6,
    )
}
