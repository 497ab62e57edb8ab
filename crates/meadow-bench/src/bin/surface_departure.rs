//! How far a navmesh's surface lies from the level's: 20,000 seeded random points of the mesh,
//! each compared with the nearest (in height) input triangle over it; prints the median, 99th
//! percentile and largest departure and how many points lie more than `max_climb` off.
//!
//! Run with `cargo run --release -p meadow-bench --bin surface_departure -- LEVEL [ASSET]`: with
//! an asset (baked by any build, say an older one), that asset is measured against `LEVEL`;
//! without, `LEVEL` is baked with the default settings first.

use meadow::query::{QueryMesh, SplitMix64};
use meadow::{BakeSettings, NavMesh};
use meadow_bake::{ingest, NoProgress};

/// Points sampled.
const SAMPLES: usize = 20_000;

/// The signed height of the input surface nearest `p` in height, less `p`'s (`None`: no
/// triangle over `p`).
fn departure(triangles: &[meadow_bake::ingest::SceneTriangle], p: [f64; 3]) -> Option<f64> {
    let mut best: Option<f64> = None;
    for t in triangles {
        let v = t.vertices;
        let det = (v[1][0] - v[0][0]) * (v[2][2] - v[0][2]) - (v[2][0] - v[0][0]) * (v[1][2] - v[0][2]);
        if det == 0.0 {
            continue;
        }
        let u = ((p[0] - v[0][0]) * (v[2][2] - v[0][2]) - (v[2][0] - v[0][0]) * (p[2] - v[0][2])) / det;
        let w = ((v[1][0] - v[0][0]) * (p[2] - v[0][2]) - (p[0] - v[0][0]) * (v[1][2] - v[0][2])) / det;
        if u < 0.0 || w < 0.0 || u + w > 1.0 {
            continue;
        }
        let d = v[0][1] + u * (v[1][1] - v[0][1]) + w * (v[2][1] - v[0][1]) - p[1];
        if best.is_none_or(|b| d.abs() < b.abs()) {
            best = Some(d);
        }
    }
    best
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(level) = args.first() else {
        eprintln!("usage: surface_departure LEVEL [ASSET]");
        std::process::exit(2);
    };
    let scene = ingest::ingest_file(std::path::Path::new(level), &mut NoProgress).unwrap_or_else(|e| {
        eprintln!("{level}: {e}");
        std::process::exit(1);
    });
    let nav = match args.get(1) {
        Some(asset) => std::fs::read(asset)
            .map_err(|e| e.to_string())
            .and_then(|b| NavMesh::from_bytes(&b).map_err(|e| e.to_string()))
            .unwrap_or_else(|e| {
                eprintln!("{asset}: {e}");
                std::process::exit(1);
            }),
        None => meadow_bake::bake(&scene, &BakeSettings::DEFAULT, &mut NoProgress).unwrap_or_else(|e| {
            eprintln!("{level}: {e}");
            std::process::exit(1);
        }),
    };
    let climb = nav.settings().max_climb;
    let polygons = nav.polygon_count();
    let mesh = QueryMesh::new(nav);
    let mut rng = SplitMix64::new(3);
    let mut off: Vec<f64> = (0..SAMPLES)
        .filter_map(|_| mesh.random_point(&mut rng).and_then(|l| departure(&scene.triangles, l.point)))
        .map(f64::abs)
        .collect();
    if off.is_empty() {
        eprintln!("{level}: no mesh point over the level's triangles");
        std::process::exit(1);
    }
    off.sort_by(f64::total_cmp);
    let n = off.len();
    println!(
        "{level}: {polygons} polygons; departure over {n} points: median {:.3} m, p99 {:.3} m, max {:.3} m, {} past max_climb ({climb} m)",
        off[n / 2],
        off[n * 99 / 100],
        off[n - 1],
        off.iter().filter(|&&d| d > climb).count()
    );
}
