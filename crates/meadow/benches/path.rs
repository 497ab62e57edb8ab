//! Path query timings on a large hand-made mesh (200 × 200 cells, triangulated, 20 % of the
//! cells blocked: about 64 000 triangles). Every timed query also checks its answer.

use criterion::{criterion_group, criterion_main, Criterion};
use meadow::query::{Path, PathOptions, PathQuery, PathStyle, QueryFilter, QueryMesh, ShortestPathQuery, SplitMix64};
use meadow::NavMesh;
use meadow_testkit::testmesh::{random_blocked, GridSpec};
use std::hint::black_box;

fn large_mesh() -> QueryMesh {
    let (cols, rows) = (200, 200);
    let spec =
        GridSpec { cols, rows, triangulate: true, blocked: random_blocked(cols, rows, 0.2, 99), ..GridSpec::default() };
    QueryMesh::new(NavMesh::new(spec.build()).expect("valid mesh"))
}

fn distance(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

fn bench_paths(c: &mut Criterion) {
    let mesh = large_mesh();
    let mut rng = SplitMix64::new(7);
    let pairs: Vec<([f64; 3], [f64; 3])> = (0..256)
        .map(|_| (mesh.random_point(&mut rng).unwrap().point, mesh.random_point(&mut rng).unwrap().point))
        .collect();
    let filter = QueryFilter::new();
    let mut query = PathQuery::new(&mesh);
    let mut path = Path::default();
    let mut group = c.benchmark_group("find_path_200x200");
    for (name, style, shortcuts) in [
        ("midpoints", PathStyle::Midpoints, false),
        ("meadow", PathStyle::MeadowRefined, false),
        ("funnel_no_shortcuts", PathStyle::StringPulled, false),
        ("funnel", PathStyle::StringPulled, true),
    ] {
        let options = PathOptions { style, allow_partial: true, shortcuts };
        let mut i = 0;
        group.bench_function(name, |b| {
            b.iter(|| {
                let (s, g) = pairs[i % pairs.len()];
                i += 1;
                query.find_path_into(&mesh, s, g, &filter, options, &mut path).expect("partial paths always exist");
                // A path is never shorter than the straight line unless it stops short.
                assert!(path.partial || path.length >= distance(s, g) - 1e-9);
                black_box(path.length)
            })
        });
    }
    group.finish();

    let mut visited = Vec::new();
    let mut i = 0;
    c.bench_function("raycast_200x200", |b| {
        b.iter(|| {
            let (s, g) = pairs[i % pairs.len()];
            i += 1;
            let r = mesh.raycast(s, g, &mut visited).expect("start is on the mesh");
            assert_eq!(visited.first().copied(), mesh.locate(s).ok().map(|l| l.polygon));
            black_box(r.hit.is_some())
        })
    });
    let mut i = 0;
    c.bench_function("locate_200x200", |b| {
        b.iter(|| {
            let (s, _) = pairs[i % pairs.len()];
            i += 1;
            let l = mesh.locate(s).expect("on the mesh");
            assert!(mesh.polygon_contains(l.polygon, [s[0], s[2]]));
            black_box(l.polygon)
        })
    });
}

/// `find_path` (default: funnel with shortcuts) against `find_shortest_path` (Polyanya) on the
/// same reachable pairs; each shortest path is checked against the funnel length found first.
fn bench_shortest(c: &mut Criterion) {
    let mesh = large_mesh();
    let mut rng = SplitMix64::new(7);
    let filter = QueryFilter::new();
    let mut query = PathQuery::new(&mesh);
    let mut shortest = ShortestPathQuery::new(&mesh);
    let mut path = Path::default();
    // Reachable pairs with their funnel lengths.
    let mut pairs = Vec::new();
    while pairs.len() < 256 {
        let (s, g) = (mesh.random_point(&mut rng).unwrap().point, mesh.random_point(&mut rng).unwrap().point);
        if let Ok(p) = query.find_path(&mesh, s, g, &filter) {
            pairs.push((s, g, p.length));
        }
    }
    let mut group = c.benchmark_group("shortest_200x200");
    let mut i = 0;
    group.bench_function("find_path", |b| {
        b.iter(|| {
            let (s, g, _) = pairs[i % pairs.len()];
            i += 1;
            query.find_path_into(&mesh, s, g, &filter, PathOptions::default(), &mut path).expect("reachable");
            black_box(path.length)
        })
    });
    let mut i = 0;
    group.bench_function("find_shortest_path", |b| {
        b.iter(|| {
            let (s, g, funnel) = pairs[i % pairs.len()];
            i += 1;
            shortest.find_shortest_path_into(&mesh, s, g, &filter, &mut path).expect("reachable");
            assert!(path.length <= funnel + 1e-9 * (1.0 + funnel), "shortest path longer than the funnel path");
            black_box(path.length)
        })
    });
    group.finish();
}

criterion_group!(benches, bench_paths, bench_shortest);
criterion_main!(benches);
