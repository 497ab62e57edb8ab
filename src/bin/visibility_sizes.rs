//! Prints a markdown table of the corner visibility graph per level (the fixture levels, then
//! the third-party levels in `../shared/levels/{gltf,recast}` when present): polygons, corner
//! nodes, corner pairs that see each other before the taut rule and edges after it, the graph's
//! encoded bytes, the whole asset's bytes, the build's work (the units of `max_visibility_work`)
//! and the median time of the visibility stage alone.
//!
//! Run with `cargo run --release -p meadow-suite --bin visibility_sizes [-- RUNS]` (default 3).

use meadow::{BakeSettings, NavMesh, NavMeshData};
use meadow_bake::visibility::{build_visibility_counted, visible_pair_count};
use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let runs: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(3).max(1);
    let mut levels: Vec<(String, PathBuf)> = meadow_suite::fixture_levels()
        .into_iter()
        .map(|p| (format!("fixtures/{}", p.file_name().unwrap().to_string_lossy()), p))
        .collect();
    if let Some(shared) = meadow_suite::shared_dir() {
        let name = |p: &PathBuf| p.strip_prefix(&shared).unwrap_or(p).display().to_string();
        levels.extend(meadow_suite::shared_glb_levels().into_iter().map(|p| (name(&p), p)));
    }
    println!(
        "| level | polygons | corners | visible pairs | taut edges | graph bytes | asset bytes | graph > rest | work units | median build s (n={runs}) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let mut settings = BakeSettings::DEFAULT;
    settings.visibility = false;
    for (name, path) in levels {
        let mesh = match meadow_bake::bake_file(&path, &settings) {
            Ok(m) => m,
            Err(e) => {
                println!("| {name} | bake failed: {e} | | | | | | | | |");
                continue;
            }
        };
        let mut times = Vec::new();
        let mut graph = None;
        let mut work = 0;
        for _ in 0..runs {
            let t = Instant::now();
            let (g, v) = build_visibility_counted(&mesh);
            times.push(t.elapsed().as_secs_f64());
            graph = Some(g);
            work = v;
        }
        times.sort_by(f64::total_cmp);
        let graph = graph.unwrap();
        let (nodes, edges) = (graph.node_count(), graph.edge_count() / 2);
        let pairs = visible_pair_count(&mesh);
        let without = meadow::asset::to_bytes(mesh.data()).len();
        let with = NavMesh::new(NavMeshData { visibility: Some(graph), ..mesh.data().clone() }).unwrap();
        let asset = with.to_bytes().len();
        let section = meadow::asset::to_bytes(with.data()).len() - without;
        let bigger = if section > asset - section { "yes" } else { "no" };
        println!(
            "| {name} | {} | {nodes} | {pairs} | {edges} | {section} | {asset} | {bigger} | {work} | {:.4} |",
            mesh.polygon_count(),
            times[times.len() / 2]
        );
    }
}
