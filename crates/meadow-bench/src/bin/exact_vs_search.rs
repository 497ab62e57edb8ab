//! Exact shortest paths over the baked visibility graph against the search without it and
//! against `find_path`: the median time per query of each on the same 1000 seeded pairs, per
//! fixture level and per third-party level (those present beside the repository).
//!
//! Run with `cargo run --release -p meadow-bench --bin exact_vs_search [-- [--level NAME]
//! [--partition merge|meadow] [--repeat N]]`. Links are switched off in the filter, so the
//! graph answers on levels that have them. `--level` keeps the levels whose file name contains
//! NAME; `--repeat N` then answers the pairs N more times over the graph only, untimed (a loop
//! to profile, e.g. under `perf record`).

use meadow::query::{Path, PathOptions, PathQuery, QueryFilter, QueryMesh, ShortestPathQuery};
use meadow::{BakeSettings, Partition};
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    let value_of = |flag: &str| args.iter().position(|a| a == flag).and_then(|i| args.get(i + 1)).cloned();
    let only = value_of("--level");
    let repeat: usize = value_of("--repeat").and_then(|v| v.parse().ok()).unwrap_or(0);
    let mut settings = BakeSettings::DEFAULT;
    match value_of("--partition").as_deref() {
        None | Some("merge") => settings.partition = Partition::Merge,
        Some("meadow") => settings.partition = Partition::Meadow,
        Some(other) => {
            eprintln!("exact_vs_search: --partition needs merge or meadow, not {other}");
            std::process::exit(2);
        }
    }
    println!("| level | polygons | corners | edges | by graph | graph µs | search µs | find_path µs | speed-up |");
    println!("|---|---|---|---|---|---|---|---|---|");
    for path in levels() {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        if only.as_ref().is_some_and(|o| !name.contains(o.as_str())) {
            continue;
        }
        let nav = match meadow_bake::bake_file(&path, &settings) {
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
        // The graph's answers against the search's: found on the same pairs, lengths in XZ (the
        // length both minimise) within 1e-9 relative.
        let flat = |p: Path| p.points.windows(2).map(|w| (w[1][0] - w[0][0]).hypot(w[1][2] - w[0][2])).sum::<f64>();
        let mut differ = 0;
        for &(a, b) in &pairs {
            let by_graph = sq.find_shortest_path(&mesh, a, b, &filter).map(flat);
            let by_search = sq.find_shortest_path_by_search(&mesh, a, b, &filter).map(flat);
            match (by_graph, by_search) {
                (Ok(x), Ok(y)) if (x - y).abs() <= 1e-9 * y.max(1.0) => {}
                (Err(_), Err(_)) => {}
                (x, y) => {
                    differ += 1;
                    if differ <= 3 {
                        eprintln!("{name}: {a:?} -> {b:?}: graph {x:?}, search {y:?}");
                    }
                }
            }
        }
        if differ > 0 {
            println!("{name}: the graph and the search differ on {differ} pairs");
        }
        let (g, s, f) = (median_us(&mut graph), median_us(&mut search), median_us(&mut funnel));
        println!(
            "| {name} | {} | {corners} | {edges} | {} | {g:.1} | {s:.1} | {f:.1} | {:.2}× |",
            mesh.mesh().polygon_count(),
            if ShortestPathQuery::answers_by_graph(&mesh, &filter) { "yes" } else { "no" },
            s / g
        );
        let t = Instant::now();
        for _ in 0..repeat {
            for &(a, b) in &pairs {
                let _ = sq.find_shortest_path_into(&mesh, a, b, &filter, &mut out);
            }
        }
        if repeat > 0 {
            let per = t.elapsed().as_secs_f64() / (repeat * pairs.len()) as f64 * 1e6;
            println!("{name}: {repeat} more passes over the graph, mean {per:.2} µs per query");
        }
    }
}
