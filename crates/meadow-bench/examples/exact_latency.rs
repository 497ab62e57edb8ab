//! Latency distribution of the exact path on one level: median, 75th and 90th percentile, worst
//! and mean time per query over 1000 seeded pairs (each pair's fastest of ROUNDS), over the
//! visibility graph (`graph`) or by the search (`search`); links off.
//!
//! `cargo run --release -p meadow-bench --example exact_latency -- LEVEL.glb graph|search [ROUNDS] [K]`
//! (`K` lists the K slowest pairs).

use meadow::query::{Path, QueryFilter, QueryMesh, ShortestPathQuery};
use meadow::BakeSettings;
use std::time::Instant;
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let nav = meadow_bake::bake_file(&args[1], &BakeSettings::DEFAULT).unwrap();
    let mesh = QueryMesh::new(nav);
    let pairs = meadow_bench::seeded_pairs(&mesh, 1000);
    let filter = QueryFilter::new().without_links();
    let mut sq = ShortestPathQuery::new(&mesh);
    sq.use_visibility_graph(args.get(2).is_none_or(|a| a == "graph"));
    let mut out = Path::default();
    let reps: usize = args.get(3).map_or(200, |a| a.parse().unwrap());
    let mut times = vec![f64::INFINITY; pairs.len()];
    for _ in 0..reps {
        for (i, &(a, b)) in pairs.iter().enumerate() {
            let t = Instant::now();
            let _ = sq.find_shortest_path_into(&mesh, a, b, &filter, &mut out);
            times[i] = times[i].min(t.elapsed().as_secs_f64() * 1e6);
        }
    }
    let mean = times.iter().sum::<f64>() / times.len() as f64;
    let mut order: Vec<usize> = (0..times.len()).collect();
    order.sort_by(|&a, &b| times[a].total_cmp(&times[b]));
    let q = |f: f64| times[order[((order.len() - 1) as f64 * f) as usize]];
    eprintln!("median {:.2} p75 {:.2} p90 {:.2} max {:.2} mean {:.2}", q(0.5), q(0.75), q(0.9), q(1.0), mean);
    if let Some(k) = args.get(4) {
        let k: usize = k.parse().unwrap();
        for &i in order.iter().rev().take(k) {
            eprintln!("{:.1} {:?}", times[i], pairs[i]);
        }
    }
    let t = Instant::now();
    let _ = t;
}
