//! `find_shortest_path` on every baked fixture level against the brute-force oracle of
//! `meadow_testkit::oracle` (written from the public API only: the visibility graph of all wall
//! endpoints, every pair tested against every wall with exact predicates, searched with
//! Dijkstra). The oracle works in XZ, so it needs levels whose polygons do not overlap in XZ;
//! that is checked (exactly) first.

use meadow::geom::{orient2d, Point2};
use meadow::query::{PathQuery, QueryFilter, QueryMesh, ShortestPathQuery, SplitMix64};
use meadow::{BakeSettings, PathError};
use meadow_suite::fixture_levels;
use meadow_testkit::oracle::{Oracle, Visibility};

fn xz(p: [f64; 3]) -> Point2 {
    [p[0], p[2]]
}

fn dist(a: Point2, b: Point2) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2)).sqrt()
}

/// XZ rings of every polygon.
fn rings(mesh: &QueryMesh) -> Vec<Vec<Point2>> {
    (0..mesh.mesh().polygon_count()).map(|p| mesh.mesh().polygon_points(p).collect()).collect()
}

/// Whether two convex CCW rings have disjoint interiors: some edge line of one has the other
/// entirely on its outer side (or on the line).
fn interiors_disjoint(a: &[Point2], b: &[Point2]) -> bool {
    let separates = |r: &[Point2], o: &[Point2]| {
        (0..r.len()).any(|k| o.iter().all(|&p| orient2d(r[k], r[(k + 1) % r.len()], p) <= 0.0))
    };
    separates(a, b) || separates(b, a)
}

#[test]
fn shortest_paths_match_the_oracle_on_every_fixture() {
    let levels = fixture_levels();
    assert!(levels.len() >= 9, "fixtures missing: {levels:?}");
    let mut compared = 0;
    for level in &levels {
        let name = level.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
        let nav = meadow_bake::bake_file(level, &BakeSettings::DEFAULT).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mesh = QueryMesh::new(nav);
        // The oracle is a plane visibility graph: it does not apply to floors above one another.
        if mesh.mesh().polygons().any(|p| p.layer != 0) {
            println!("{name}: skipped, several layers");
            continue;
        }
        let r = rings(&mesh);
        for i in 0..r.len() {
            for j in i + 1..r.len() {
                assert!(interiors_disjoint(&r[i], &r[j]), "{name}: polygons {i} and {j} overlap in XZ");
            }
        }
        let oracle = Oracle::new(&mesh, Visibility::OpenSegment);
        let verts = mesh.mesh().vertices();
        let mut rng = SplitMix64::new(7);
        let mut sq = ShortestPathQuery::new(&mesh);
        let mut pq = PathQuery::new(&mesh);
        // The oracle knows walls only: off-mesh links stay off on both sides.
        let filter = QueryFilter::new().without_links();
        let sample = |rng: &mut SplitMix64| -> [f64; 3] {
            loop {
                // Mostly random points; every fourth a mesh vertex (the baked boundaries have many
                // collinear ones).
                let p = if rng.next_u64().is_multiple_of(4) {
                    verts[(rng.next_u64() % verts.len() as u64) as usize]
                } else {
                    mesh.random_point(rng).expect("mesh has area").point
                };
                if mesh.locate(p).is_ok() {
                    return p;
                }
            }
        };
        let (mut found, mut unreachable) = (0, 0);
        for _ in 0..400 {
            let (s, g) = (sample(&mut rng), sample(&mut rng));
            let (sl, gl) = (mesh.locate(s).expect("sampled on the mesh"), mesh.locate(g).expect("sampled on the mesh"));
            let truth = oracle.shortest(xz(sl.point), xz(gl.point));
            match (sq.find_shortest_path(&mesh, s, g, &filter), truth) {
                (Ok(p), Some(t)) => {
                    let flat: f64 = p.points.windows(2).map(|w| dist(xz(w[0]), xz(w[1]))).sum();
                    assert!((flat - t).abs() <= 1e-9 * (1.0 + t), "{name}: {s:?} -> {g:?}: {flat} vs oracle {t}");
                    for w in p.points.windows(2) {
                        assert!(oracle.visible(xz(w[0]), xz(w[1])), "{name}: segment {w:?} leaves the mesh");
                    }
                    // Compared in XZ, where the search is optimal: on ramps an XZ-shorter path
                    // can be longer in 3D.
                    if let Ok(f) = pq.find_path(&mesh, s, g, &filter) {
                        let f_flat: f64 = f.points.windows(2).map(|w| dist(xz(w[0]), xz(w[1]))).sum();
                        assert!(flat <= f_flat + 1e-9 * (1.0 + f_flat), "{name}: longer than find_path");
                    }
                    found += 1;
                }
                (Err(PathError::Unreachable), None) => unreachable += 1,
                (r, t) => panic!("{name}: {s:?} -> {g:?}: shortest {r:?}, oracle {t:?}"),
            }
        }
        println!("{name}: {found} paths equal to the oracle's, {unreachable} unreachable");
        assert!(found > 50, "{name}: only {found} paths");
        compared += found;
    }
    assert!(compared > 1000);
}
