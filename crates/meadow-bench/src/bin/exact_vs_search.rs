//! Exact shortest paths over the baked visibility graph against the search without it and
//! against `find_path`: the median time per query of each on the same 1000 seeded pairs, per
//! fixture level and per third-party level (those present beside the repository).
//!
//! Run with `cargo run --release -p meadow-bench --bin exact_vs_search`. Links are switched
//! off in the filter, so the graph answers on levels that have them.

use meadow::query::{Path, PathOptions, PathQuery, QueryFilter, QueryMesh, ShortestPathQuery};
use meadow::BakeSettings;
use std::path::PathBuf;
use std::time::Instant;

/// The fixture levels, then the third-party glTF and Recast levels that are present.
fn levels() -> Vec<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let list = |dir: PathBuf| -> Vec<PathBuf> {
        let mut v: Vec<PathBuf> =
            std::fs::read_dir(dir).map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
        v.retain(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("glb" | "gltf")));
        v.sort();
        v
    };
    let mut all = list(root.join("fixtures/levels"));
    for sub in ["gltf", "recast"] {
        all.extend(list(root.join("../shared/levels").join(sub)));
    }
    all
}

/// Median of per-query times in microseconds.
fn median_us(times: &mut [f64]) -> f64 {
    if times.is_empty() {
        return f64::NAN;
    }
    times.sort_by(f64::total_cmp);
    times[times.len() / 2] * 1e6
}

fn main() {
    println!("| level | polygons | corners | edges | by graph | graph µs | search µs | find_path µs | speed-up |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for path in levels() {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        let nav = match meadow_bake::bake_file(&path, &BakeSettings::DEFAULT) {
            Ok(nav) => nav,
            Err(e) => {
                println!("| {name} | bake failed: {e} |");
                continue;
            }
        };
        let (corners, edges) = nav.visibility().map_or((0, 0), |g| (g.node_count(), g.edge_count() / 2));
        let mesh = QueryMesh::new(nav);
        let pairs = meadow_bench::seeded_pairs(&mesh, 1000);
        let filter = QueryFilter::new().without_links();
        let (mut sq, mut pq) = (ShortestPathQuery::new(&mesh), PathQuery::new(&mesh));
        sq.use_visibility_graph(true);
        let mut out = Path::default();
        // Warm-up: builds the per-mesh tables and sizes the scratch memory.
        for &(a, b) in &pairs {
            let _ = sq.find_shortest_path_into(&mesh, a, b, &filter, &mut out);
            let _ = sq.find_shortest_path_by_search(&mesh, a, b, &filter);
            let _ = pq.find_path_into(&mesh, a, b, &filter, PathOptions::default(), &mut out);
        }
        let (mut graph, mut search, mut funnel) = (Vec::new(), Vec::new(), Vec::new());
        for &(a, b) in &pairs {
            // Both exact forms return a fresh `Path`, so they pay the same copy.
            let t = Instant::now();
            let _ = sq.find_shortest_path(&mesh, a, b, &filter);
            graph.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let _ = sq.find_shortest_path_by_search(&mesh, a, b, &filter);
            search.push(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let _ = pq.find_path_into(&mesh, a, b, &filter, PathOptions::default(), &mut out);
            funnel.push(t.elapsed().as_secs_f64());
        }
        let (g, s, f) = (median_us(&mut graph), median_us(&mut search), median_us(&mut funnel));
        println!(
            "| {name} | {} | {corners} | {edges} | {} | {g:.1} | {s:.1} | {f:.1} | {:.2}× |",
            mesh.mesh().polygon_count(),
            if ShortestPathQuery::answers_by_graph(&mesh, &filter) { "yes" } else { "no" },
            s / g
        );
    }
}
