//! Compares a tiled bake of a level with its untiled bake: polygons, walkable area, bake time,
//! and path lengths on random pairs (`find_path` and exact `find_shortest_path`).
//!
//! `cargo run --release --bin tile_compare -- TILE_METRES [PAIRS] LEVEL...`

use meadow::query::{PathQuery, QueryFilter, QueryMesh, ShortestPathQuery, SplitMix64};
use meadow::BakeSettings;
use std::time::Instant;

/// XZ length of a polyline: the length exact paths minimise (heights come from the polygon
/// planes, which differ with the polygons).
fn flat(points: &[[f64; 3]]) -> f64 {
    points.windows(2).map(|w| (w[1][0] - w[0][0]).hypot(w[1][2] - w[0][2])).sum()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(tile) = args.first().and_then(|a| a.parse::<f64>().ok()) else {
        eprintln!("usage: tile_compare TILE_METRES [PAIRS] LEVEL...");
        std::process::exit(2);
    };
    let (pairs, levels) = match args.get(1).and_then(|a| a.parse::<usize>().ok()) {
        Some(n) => (n, &args[2..]),
        None => (1000, &args[1..]),
    };
    println!(
        "| level | polygons untiled | tiled | tiles | area rel. diff | bake untiled s | tiled s | pairs | reach differs | find_path > 1 mm | max find_path diff m | max exact rel. diff |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|");
    for level in levels {
        let name = std::path::Path::new(level).file_stem().and_then(|n| n.to_str()).unwrap_or("?");
        let scene = match meadow_bake::ingest::ingest_file(level.as_ref(), &mut meadow_bake::NoProgress) {
            Ok(s) => s,
            Err(e) => {
                println!("| {name} | {e} |");
                continue;
            }
        };
        let untiled_settings = BakeSettings::DEFAULT;
        let mut tiled_settings = BakeSettings::DEFAULT;
        tiled_settings.tile_size = tile;
        let t = Instant::now();
        let untiled = meadow_bake::bake(&scene, &untiled_settings, &mut meadow_bake::NoProgress).expect("untiled bake");
        let untiled_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let tiled = match meadow_bake::bake(&scene, &tiled_settings, &mut meadow_bake::NoProgress) {
            Ok(n) => n,
            Err(e) => {
                println!("| {name} | tiled bake failed: {e} |");
                continue;
            }
        };
        let tiled_s = t.elapsed().as_secs_f64();
        let (au, at) = (untiled.total_area(), tiled.total_area());
        let tiles = tiled.data().tiles.len();
        let (pu, pt) = (untiled.data().polygons.len(), tiled.data().polygons.len());
        let (mu, mt) = (QueryMesh::new(untiled), QueryMesh::new(tiled));
        let filter = QueryFilter::new().without_links();
        let (mut qu, mut qt) = (PathQuery::new(&mu), PathQuery::new(&mt));
        let (mut su, mut st) = (ShortestPathQuery::new(&mu), ShortestPathQuery::new(&mt));
        let mut rng = SplitMix64::new(7);
        let (mut reach_differs, mut max_path, mut max_exact, mut worst) = (0, 0.0f64, 0.0f64, String::new());
        let mut path_over = 0;
        for _ in 0..pairs {
            let s = mu.random_point(&mut rng).expect("area").point;
            let g = mu.random_point(&mut rng).expect("area").point;
            match (qu.find_path(&mu, s, g, &filter), qt.find_path(&mt, s, g, &filter)) {
                (Ok(a), Ok(b)) => {
                    let d = (flat(&a.points) - flat(&b.points)).abs();
                    max_path = max_path.max(d);
                    path_over += usize::from(d > 1e-3);
                }
                (Err(_), Err(_)) => {}
                _ => reach_differs += 1,
            }
            if let (Ok(a), Ok(b)) =
                (su.find_shortest_path(&mu, s, g, &filter), st.find_shortest_path(&mt, s, g, &filter))
            {
                let (la, lb) = (flat(&a.points), flat(&b.points));
                let rel = (la - lb).abs() / la.max(1e-9);
                if rel > max_exact {
                    max_exact = rel;
                    worst = format!("{s:?} -> {g:?}: {la} vs {lb}");
                }
            }
        }
        println!(
            "| {name} | {pu} | {pt} | {tiles} | {:.2e} | {untiled_s:.3} | {tiled_s:.3} | {pairs} | {reach_differs} | {path_over} | {max_path:.2e} | {max_exact:.2e} |",
            (at - au).abs() / au
        );
        if !worst.is_empty() {
            eprintln!("{name}: worst exact pair {worst}");
        }
    }
}
