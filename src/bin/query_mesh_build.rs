//! Time to build a `QueryMesh` (validation included) from a baked level's data: the median of
//! 9 builds per level, for every fixture level and every third-party level present.
//!
//! Run with `cargo run --release -p meadow-suite --bin query_mesh_build`. This is the load
//! cost of an asset, and the part of a `DynamicMesh::update` that rebuilds the query tables.

use meadow::{BakeSettings, NavMesh, QueryMesh};
use meadow_bake::NoProgress;
use std::time::{Duration, Instant};

fn main() {
    println!("| level | polygons | validate µs | validate + QueryMesh::new µs |");
    println!("|---|---|---|---|");
    for (name, path) in &meadow_suite::all_levels() {
        let baked =
            meadow_bake::ingest::ingest_file(path, &mut NoProgress).map_err(|e| e.to_string()).and_then(|scene| {
                meadow_bake::bake(&scene, &BakeSettings::DEFAULT, &mut NoProgress).map_err(|e| e.to_string())
            });
        let data = match baked {
            Ok(mesh) => mesh.into_data(),
            Err(e) => {
                println!("| {name} | bake failed: {e} |");
                continue;
            }
        };
        let mut times: Vec<(Duration, Duration)> = (0..9)
            .map(|_| {
                let copy = data.clone();
                let t = Instant::now();
                let mesh = NavMesh::new(copy).expect("a baked mesh validates");
                let validated = t.elapsed();
                std::hint::black_box(QueryMesh::new(mesh));
                (validated, t.elapsed())
            })
            .collect();
        times.sort();
        let (v, q) = times[times.len() / 2];
        println!("| {name} | {} | {:.0} | {:.0} |", data.polygons.len(), v.as_secs_f64() * 1e6, q.as_secs_f64() * 1e6);
    }
}
