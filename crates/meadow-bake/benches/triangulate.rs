//! Timing of the triangulate (ear clipping, then flips) and convex stages on large rings,
//! checking each answer's area.
//!
//! Run with `cargo bench -p meadow-bake --bench triangulate`.

use meadow::geom::{signed_area, Point2};
use meadow_bake::convex::merge_convex;
use meadow_bake::region::PolygonWithHoles;
use meadow_bake::triangulate::{make_delaunay, triangulate};
use std::f64::consts::TAU;
use std::time::{Duration, Instant};

/// A wavy ring of `n` vertices around the origin (radius 100 ± 8) with `holes_per_side`²
/// small octagonal holes on a grid inside it.
fn wavy_with_holes(n: usize, holes_per_side: usize) -> PolygonWithHoles {
    let outer: Vec<Point2> = (0..n)
        .map(|i| {
            let a = i as f64 * TAU / n as f64;
            let r = 100.0 + 8.0 * (a * 37.0).sin();
            [r * a.cos(), r * a.sin()]
        })
        .collect();
    let mut holes = Vec::new();
    let span = 120.0;
    let step = span / holes_per_side as f64;
    for i in 0..holes_per_side {
        for j in 0..holes_per_side {
            let c = [-span / 2.0 + (i as f64 + 0.5) * step, -span / 2.0 + (j as f64 + 0.5) * step];
            // Clockwise octagon.
            holes.push(
                (0..8)
                    .map(|k| {
                        let a = -(k as f64) * TAU / 8.0 + 0.1 * (i + j) as f64;
                        [c[0] + 0.3 * step * a.cos(), c[1] + 0.3 * step * a.sin()]
                    })
                    .collect(),
            );
        }
    }
    PolygonWithHoles { outer, holes }
}

/// A square spiral corridor with `turns` turns: long reflex chains, the hard case of ear
/// clipping.
fn spiral(turns: usize) -> PolygonWithHoles {
    let mut inner = Vec::new();
    let mut outer = Vec::new();
    for k in 0..turns * 4 {
        let r = 1.0 + k as f64 * 0.5;
        let a = k as f64 * TAU / 4.0;
        inner.push([r * a.cos(), r * a.sin()]);
        outer.push([(r + 0.3) * a.cos(), (r + 0.3) * a.sin()]);
    }
    outer.reverse();
    inner.extend(outer);
    if signed_area(&inner) < 0.0 {
        inner.reverse();
    }
    PolygonWithHoles { outer: inner, holes: Vec::new() }
}

/// A triangle whose base carries `n` collinear vertices: every triangle is a long sliver from
/// the apex, and the ear tests' boxes span much of the polygon.
fn collinear_fan(n: usize) -> PolygonWithHoles {
    let mut outer: Vec<Point2> = (0..=n).map(|i| [i as f64, 0.0]).collect();
    outer.push([n as f64 * 0.3, n as f64 * 0.5]);
    PolygonWithHoles { outer, holes: Vec::new() }
}

fn time<T>(label: &str, runs: u32, mut f: impl FnMut() -> T) -> T {
    let mut best = Duration::MAX;
    let mut out = None;
    for _ in 0..runs {
        let start = Instant::now();
        out = Some(f());
        best = best.min(start.elapsed());
    }
    println!("{label:<52} best of {runs}: {:>9.3} ms", best.as_secs_f64() * 1e3);
    out.expect("at least one run")
}

fn area(p: &PolygonWithHoles) -> f64 {
    signed_area(&p.outer) + p.holes.iter().map(|h| signed_area(h)).sum::<f64>()
}

fn bench(label: &str, p: &PolygonWithHoles, runs: u32) {
    let verts = p.outer.len() + p.holes.iter().map(Vec::len).sum::<usize>();
    let t = time(&format!("triangulate {label} ({verts} vertices)"), runs, || triangulate(p).expect("triangulates"));
    let t = time(&format!("make_delaunay {label} ({} triangles)", t.triangles.len()), runs, || {
        let mut d = t.clone();
        make_delaunay(&mut d);
        d
    });
    let tri_area: f64 = t
        .triangles
        .iter()
        .map(|tri| {
            let [a, b, c] = tri.map(|i| t.vertices[i as usize]);
            ((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])) * 0.5
        })
        .sum();
    let expected = area(p);
    assert!((tri_area - expected).abs() <= 1e-9 * expected, "area {tri_area} != {expected}");
    let c = time(&format!("merge_convex {label} ({} triangles)", t.triangles.len()), runs, || {
        merge_convex(&t, 6).expect("merges")
    });
    let poly_area: f64 = c
        .polygons
        .iter()
        .map(|poly| signed_area(&poly.iter().map(|&i| t.vertices[i as usize]).collect::<Vec<_>>()))
        .sum();
    assert!((poly_area - expected).abs() <= 1e-9 * expected, "convex area {poly_area} != {expected}");
    println!("{:<52} {} polygons", "", c.polygons.len());
}

fn main() {
    bench("ring 5000 + 196 holes", &wavy_with_holes(5000, 14), 5);
    bench("ring 20000 + 2500 holes", &wavy_with_holes(20000, 50), 3);
    bench("spiral 400 turns", &spiral(400), 3);
    bench("collinear fan 10000", &collinear_fan(10000), 3);
}
