//! `find_path` on carved meshes: per level, the mesh with the 100 box obstacles `vs_tilecache`
//! places (same seed, same boxes), its polygon and vertex counts, and the median `find_path`
//! time and A* expansions and the mean path length over the same 1,000 seeded pairs (over the pairs
//! found both ways),
//! without and with the obstacles.
//! A loop without Detour, to profile (`perf record -g`) and compare Meadow's side alone.
//!
//! Run with `cargo run --release -p meadow-bench --bin carved_paths [-- --rounds N] [LEVEL...]`
//! (levels default to `meadow_bench::query_levels`).

use meadow::query::{Path, PathOptions, PathQuery, QueryFilter, QueryMesh};
use meadow::{BakeSettings, DynamicMesh, Obstacle};
use meadow_bake::{ingest, NoProgress};
use meadow_bench::obstacles::box_obstacles;
use std::path::PathBuf;
use std::time::Instant;

/// The obstacle seed of `vs_tilecache`, so both place the same boxes.
const OBSTACLE_SEED: u64 = 0x6f62_7374;
/// Obstacles placed.
const OBSTACLES: usize = 100;

/// Each pair's fastest of `rounds` answers (s), its A* expansions and its path's length (`None`:
/// no path).
fn time_paths(mesh: &QueryMesh, pairs: &[([f64; 3], [f64; 3])], rounds: usize) -> Vec<(f64, u32, Option<f64>)> {
    let mut query = PathQuery::new(mesh);
    let mut out = Path::default();
    let filter = QueryFilter::new();
    let mut per_pair = vec![(f64::INFINITY, 0, None); pairs.len()];
    for round in 0..rounds {
        for (slot, &(a, b)) in per_pair.iter_mut().zip(pairs) {
            let t = Instant::now();
            let ok = query.find_path_into(mesh, a, b, &filter, PathOptions::default(), &mut out).is_ok();
            slot.0 = slot.0.min(t.elapsed().as_secs_f64());
            if round == 0 {
                (slot.1, slot.2) = (query.last_expanded(), ok.then_some(out.length));
            }
        }
    }
    per_pair
}

/// The median time (µs) and expansions over the pairs `keep` accepts.
fn medians(per_pair: &[(f64, u32, Option<f64>)], keep: &[bool]) -> (f64, u32) {
    let mut t: Vec<f64> = per_pair.iter().zip(keep).filter(|(_, &k)| k).map(|(p, _)| p.0).collect();
    let mut e: Vec<u32> = per_pair.iter().zip(keep).filter(|(_, &k)| k).map(|(p, _)| p.1).collect();
    t.sort_by(f64::total_cmp);
    e.sort_unstable();
    (t.get(t.len() / 2).copied().unwrap_or(0.0) * 1e6, e.get(e.len() / 2).copied().unwrap_or(0))
}

fn main() {
    let mut rounds = 5;
    let mut named = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--rounds" => rounds = args.next().and_then(|v| v.parse().ok()).filter(|&n| n > 0).unwrap_or(rounds),
            _ => named.push(PathBuf::from(a)),
        }
    }
    let levels: Vec<PathBuf> = if named.is_empty() { meadow_bench::query_levels().to_vec() } else { named };
    println!(
        "| level | polygons | polygons, {OBSTACLES} obstacles | vertices | vertices, {OBSTACLES} obstacles | path µs | \
         path µs, {OBSTACLES} obstacles | expanded | expanded, {OBSTACLES} obstacles | found | found, {OBSTACLES} obstacles | mean length m | mean length m, {OBSTACLES} obstacles |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for path in levels {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        let Ok(scene) = ingest::ingest_file(&path, &mut NoProgress) else {
            println!("| {name} | missing |");
            continue;
        };
        let Ok(nav) = meadow_bake::bake(&scene, &BakeSettings::DEFAULT, &mut NoProgress) else {
            println!("| {name} | bake failed |");
            continue;
        };
        let base = QueryMesh::new(nav.clone());
        let pairs = meadow_bench::seeded_pairs(&base, 1000);
        let mut world = DynamicMesh::new(nav);
        for b in box_obstacles(&base, OBSTACLES, OBSTACLE_SEED) {
            let obstacle = Obstacle { polygon: b.polygon_xz(), y: b.y_range() };
            if world.add_obstacle(obstacle).is_ok() {
                world.update();
            }
        }
        let carved = world.mesh().clone();
        let clear = time_paths(&base, &pairs, rounds);
        let blocked = time_paths(&carved, &pairs, rounds);
        // Medians over the pairs found both ways, as vs_tilecache's last path column.
        let both: Vec<bool> = clear.iter().zip(&blocked).map(|(c, b)| c.2.is_some() && b.2.is_some()).collect();
        let (clear_us, clear_expanded) = medians(&clear, &both);
        let (blocked_us, blocked_expanded) = medians(&blocked, &both);
        let found = |v: &[(f64, u32, Option<f64>)]| v.iter().filter(|p| p.2.is_some()).count();
        let mean_length = |v: &[(f64, u32, Option<f64>)]| {
            let lengths: Vec<f64> = v.iter().zip(&both).filter(|(_, &k)| k).filter_map(|(p, _)| p.2).collect();
            lengths.iter().sum::<f64>() / lengths.len().max(1) as f64
        };
        println!(
            "| {name} | {} | {} | {} | {} | {clear_us:.1} | {blocked_us:.1} | {clear_expanded} | {blocked_expanded} | \
             {} | {} | {:.3} | {:.3} |",
            base.mesh().polygon_count(),
            carved.mesh().polygon_count(),
            base.mesh().vertices().len(),
            carved.mesh().vertices().len(),
            found(&clear),
            found(&blocked),
            mean_length(&clear),
            mean_length(&blocked),
        );
    }
    println!("\n{} pairs from seed {:#x}; obstacles: seed {OBSTACLE_SEED:#x}; median over pairs of each pair's fastest of {rounds} rounds", 1000, meadow_bench::PAIR_SEED);
}
