//! Bakes the query levels and answers their seeded pairs `ROUNDS` times (default 1) with
//! `find_path`, or with `find_shortest_path` when a second argument `exact` is given, printing
//! the summed path length as a checksum. A fixed workload for instruction counts, which do not
//! depend on what else the machine runs:
//!
//! ```sh
//! cargo build --release -p meadow-bench --bin path_rounds
//! valgrind --tool=callgrind --toggle-collect='*find_path_into*' target/release/path_rounds 1
//! ```

use meadow::query::{Path, PathOptions, PathQuery, QueryFilter, QueryMesh, ShortestPathQuery};
use meadow::BakeSettings;
use meadow_bake::{ingest, NoProgress};

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(1);
    let exact = std::env::args().nth(2).is_some_and(|a| a == "exact");
    let mut total = 0.0;
    for level in meadow_bench::query_levels() {
        let Ok(scene) = ingest::ingest_file(&level, &mut NoProgress) else { continue };
        let Ok(nav) = meadow_bake::bake(&scene, &BakeSettings::DEFAULT, &mut NoProgress) else { continue };
        let mesh = QueryMesh::new(nav);
        let pairs = meadow_bench::seeded_pairs(&mesh, 1000);
        let filter = QueryFilter::new();
        let (mut query, mut exact_query) = (PathQuery::new(&mesh), ShortestPathQuery::new(&mesh));
        let mut path = Path::default();
        for _ in 0..rounds {
            for &(a, b) in &pairs {
                let found = if exact {
                    exact_query.find_shortest_path_into(&mesh, a, b, &filter, &mut path)
                } else {
                    query.find_path_into(&mesh, a, b, &filter, PathOptions::default(), &mut path)
                };
                if found.is_ok() {
                    total += path.length;
                }
            }
        }
    }
    println!("{total}");
}
