//! How much longer `find_path` (midpoint A*, string pulled, shortcuts) is than the exact
//! `find_shortest_path` on the real levels and the largest fixture: the mean ratio over seeded
//! random pairs, split by how far off each pair is, so a few wrong corridors show apart from
//! many small detours.
//!
//! Run with `cargo run --release -p meadow-bench --bin path_excess [-- MAX_EDGE_LENGTH [--worst]]`:
//! an optional bake `max_edge_length` in metres (default: the bake's default), and `--worst` to
//! list the pairs more than 15% off.

use meadow::query::{Path, PathOptions, PathQuery, QueryFilter, QueryMesh, ShortestPathQuery};
use meadow::BakeSettings;
use meadow_bake::{ingest, NoProgress};

fn main() {
    let levels = meadow_bench::query_levels();
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut settings = BakeSettings::DEFAULT;
    if let Some(v) = args.iter().find_map(|a| a.parse::<f64>().ok()) {
        settings.max_edge_length = v;
    }
    let worst = args.iter().any(|a| a == "--worst");
    println!("max_edge_length {} m", settings.max_edge_length);
    println!("| level | polygons | pairs | mean find_path / shortest | pairs > 5% (their share of the excess) | pairs 0.5–5% |");
    println!("|---|---|---|---|---|---|");
    for path in levels {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        let Ok(scene) = ingest::ingest_file(&path, &mut NoProgress) else {
            println!("| {name} | missing |");
            continue;
        };
        let Ok(nav) = meadow_bake::bake(&scene, &settings, &mut NoProgress) else {
            println!("| {name} | bake failed |");
            continue;
        };
        let mesh = QueryMesh::new(nav);
        let pairs = meadow_bench::seeded_pairs(&mesh, 1000);
        let filter = QueryFilter::new();
        let (mut query, mut shortest) = (PathQuery::new(&mesh), ShortestPathQuery::new(&mesh));
        let (mut midpoint_path, mut exact_path) = (Path::default(), Path::default());
        let mut ratios = Vec::new();
        for &(a, b) in &pairs {
            let found = query.find_path_into(&mesh, a, b, &filter, PathOptions::default(), &mut midpoint_path);
            let exact = shortest.find_shortest_path_into(&mesh, a, b, &filter, &mut exact_path);
            if found.is_ok() && exact.is_ok() && exact_path.length > 1e-6 {
                let ratio = midpoint_path.length / exact_path.length;
                ratios.push(ratio);
                if worst && ratio > 1.15 {
                    eprintln!("{name}: {ratio:.3} from {a:?} to {b:?}");
                }
            }
        }
        let n = ratios.len().max(1) as f64;
        let mean = ratios.iter().sum::<f64>() / n;
        let big: Vec<f64> = ratios.iter().copied().filter(|&r| r > 1.05).collect();
        let excess = ratios.iter().map(|r| r - 1.0).sum::<f64>().max(f64::MIN_POSITIVE);
        let big_share = big.iter().map(|r| r - 1.0).sum::<f64>() / excess;
        let mid = ratios.iter().filter(|&&r| r > 1.005 && r <= 1.05).count();
        println!(
            "| {name} | {} | {} | {mean:.4} | {} ({:.0}%) | {mid} |",
            mesh.mesh().polygon_count(),
            ratios.len(),
            big.len(),
            big_share * 100.0
        );
    }
}
