//! Prints, per level, what the polygons stage makes of the simplified regions: polygons, the
//! lower bound on any convex partition (r/2 + 1 - h per region polygon, r reflex ring vertices
//! and h holes: each diagonal resolves at most two reflex vertices) and slivers (polygons with
//! an angle under 5 degrees or a width under 5 cm).
//!
//! Run with `cargo run --release -p meadow-suite --bin partition_stats [-- LEVEL ...]`
//! (default: the fixtures, then the third-party levels beside the repository when present);
//! `PARTITION=meadow` bakes with the Meadow partition, `MAX_VERTS=N` with another vertex limit.

use meadow::geom::{orient2d, Point2};
use meadow::BakeSettings;
use meadow_bake::progress::NoProgress;
use meadow_bake::{classify, ingest, polygons, region, simplify};
use std::path::PathBuf;

fn main() {
    let mut levels: Vec<PathBuf> = std::env::args().skip(1).map(PathBuf::from).collect();
    if levels.is_empty() {
        levels = meadow_suite::fixture_levels();
        levels.extend(meadow_suite::shared_glb_levels());
    }
    let mut settings = BakeSettings::DEFAULT;
    if let Some(v) = std::env::var("MAX_VERTS").ok().and_then(|v| v.parse().ok()) {
        settings.max_verts_per_poly = v;
    }
    if std::env::var("PARTITION").as_deref() == Ok("meadow") {
        settings.partition = meadow::Partition::Meadow;
    }
    println!(
        "| level | region polygons | ring vertices | reflex | holes | lower bound | polygons | / bound | slivers |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for path in levels {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let scene = match ingest::ingest_file(&path, &mut NoProgress) {
            Ok(s) => s,
            Err(e) => {
                println!("| {name} | ingest failed: {e} |");
                continue;
            }
        };
        let classified = classify::classify(&scene, settings.max_slope, settings.walkable);
        let params = region::RegionParams::from(&settings);
        let Ok(regions) = region::build_regions_within(&classified, &params, u64::MAX, &mut NoProgress) else {
            println!("| {name} | regions failed |");
            continue;
        };
        let regions = simplify::simplify_regions(&regions, &simplify::SimplifyParams::from(&settings), &mut NoProgress);
        let (mut count, mut verts, mut reflex, mut holes, mut bound) = (0usize, 0usize, 0usize, 0usize, 0i64);
        let mut partnered = 0usize;
        for a in &regions.areas {
            for p in &a.polygons {
                count += 1;
                let mut r = reflex_count(&p.outer);
                verts += p.outer.len();
                for h in &p.holes {
                    r += reflex_count(h);
                    verts += h.len();
                }
                reflex += r;
                partnered += partnered_reflex(p);
                holes += p.holes.len();
                bound += ((r as i64 + 1) / 2 + 1 - p.holes.len() as i64).max(1);
            }
        }
        let input = polygons::PolygonInput { regions: &regions, walkable: &classified.walkable };
        let mesh = match polygons::build_polygons(input, &polygons::PolygonParams::from(&settings), &mut NoProgress) {
            Ok(m) => m,
            Err(e) => {
                println!("| {name} | polygons failed: {e} |");
                continue;
            }
        };
        let polys: Vec<Vec<Point2>> =
            mesh.polygons.iter().map(|p| p.iter().map(|&v| mesh.vertices[v as usize]).collect()).collect();
        let slivers = polys.iter().filter(|p| is_sliver(p)).count();
        println!(
            "| {name} | {count} | {verts} | {reflex} ({partnered}) | {holes} | {bound} | {} | {:.2} | {slivers} |",
            polys.len(),
            polys.len() as f64 / bound as f64
        );
    }
}

/// Ring vertices whose turn is clockwise (reflex for the area on the ring's left).
fn reflex_count(ring: &[Point2]) -> usize {
    let n = ring.len();
    (0..n).filter(|&i| orient2d(ring[(i + n - 1) % n], ring[i], ring[(i + 1) % n]) < 0.0).count()
}

/// Smallest angle under 5 degrees, or width (least extent over the edge normals) under 5 cm.
fn is_sliver(p: &[Point2]) -> bool {
    let n = p.len();
    let min_angle = (0..n)
        .map(|i| {
            let (a, b, c) = (p[(i + n - 1) % n], p[i], p[(i + 1) % n]);
            let (u, v) = ((a[0] - b[0], a[1] - b[1]), (c[0] - b[0], c[1] - b[1]));
            (u.0 * v.1 - u.1 * v.0).abs().atan2(u.0 * v.0 + u.1 * v.1)
        })
        .fold(f64::INFINITY, f64::min);
    let width = (0..n)
        .map(|i| {
            let (a, b) = (p[i], p[(i + 1) % n]);
            let len = ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
            if len == 0.0 {
                return f64::INFINITY;
            }
            p.iter()
                .map(|q| ((b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0])).abs() / len)
                .fold(0.0, f64::max)
        })
        .fold(f64::INFINITY, f64::min);
    min_angle < 5f64.to_radians() || width < 0.05
}

/// Reflex vertices that see another reflex vertex by a diagonal resolving both.
fn partnered_reflex(p: &meadow_bake::region::PolygonWithHoles) -> usize {
    let rings: Vec<&Vec<Point2>> = std::iter::once(&p.outer).chain(p.holes.iter()).collect();
    let mut reflex = Vec::new();
    for r in &rings {
        let n = r.len();
        for i in 0..n {
            let (a, b, c) = (r[(i + n - 1) % n], r[i], r[(i + 1) % n]);
            if orient2d(a, b, c) < 0.0 {
                reflex.push((a, b, c));
            }
        }
    }
    let resolves =
        |(a, v, c): (Point2, Point2, Point2), w: Point2| orient2d(v, c, w) >= 0.0 && orient2d(v, w, a) >= 0.0;
    let clear = |v: Point2, w: Point2| {
        rings.iter().all(|r| {
            let n = r.len();
            (0..n).all(|i| {
                let (e0, e1) = (r[i], r[(i + 1) % n]);
                if e0 == v || e0 == w || e1 == v || e1 == w {
                    return true;
                }
                let (o1, o2) = (orient2d(v, w, e0), orient2d(v, w, e1));
                let (o3, o4) = (orient2d(e0, e1, v), orient2d(e0, e1, w));
                let crosses = o1 * o2 < 0.0 && o3 * o4 < 0.0;
                let on = |q: Point2, o: f64| {
                    o == 0.0
                        && q[0] >= v[0].min(w[0])
                        && q[0] <= v[0].max(w[0])
                        && q[1] >= v[1].min(w[1])
                        && q[1] <= v[1].max(w[1])
                };
                !crosses && !on(e0, o1)
            })
        })
    };
    (0..reflex.len())
        .filter(|&i| {
            (0..reflex.len()).any(|j| {
                j != i
                    && reflex[i].1 != reflex[j].1
                    && resolves(reflex[i], reflex[j].1)
                    && resolves(reflex[j], reflex[i].1)
                    && clear(reflex[i].1, reflex[j].1)
            })
        })
        .count()
}
