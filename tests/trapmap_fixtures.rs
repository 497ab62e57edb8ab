//! The trapezoidal-map locator and the trapezoid roadmap on real bakes: `locate` through the
//! maps returns the grid's polygon on every fixture level (and, ignored, on the third-party
//! levels), and every roadmap path between random points stays in one layer's walkable area.

use meadow::query::{Locator, QueryMesh, SplitMix64};
use meadow::{BakeSettings, NavMesh};
use meadow_suite::fixture_levels;
use meadow_testkit::testmesh::segment_in_one_layer;
use std::path::PathBuf;

/// Probe points: on the mesh at several heights above and below the surface, at vertices and
/// at edge midpoints (where the maps hand over to the grid).
fn probes(mesh: &QueryMesh, n: usize, seed: u64) -> Vec<[f64; 3]> {
    let mut rng = SplitMix64::new(seed);
    let data = mesh.mesh().data();
    let verts = mesh.mesh().vertices();
    (0..n)
        .filter_map(|i| {
            let dy = [0.0, 0.25, -0.25, 1.5, -1.5][i % 5];
            let p = match i % 3 {
                0 => mesh.random_point(&mut rng)?.point,
                1 => verts[(rng.next_u64() % verts.len() as u64) as usize],
                _ => {
                    let k = (rng.next_u64() % data.polygon_vertices.len() as u64) as usize;
                    let poly = data.polygons.iter().rposition(|p| p.first as usize <= k)?;
                    let (first, count) =
                        (data.polygons[poly].first as usize, data.polygons[poly].vertex_count as usize);
                    let (a, b) = (
                        verts[data.polygon_vertices[k] as usize],
                        verts[data.polygon_vertices[first + (k - first + 1) % count] as usize],
                    );
                    [(a[0] + b[0]) * 0.5, (a[1] + b[1]) * 0.5, (a[2] + b[2]) * 0.5]
                }
            };
            Some([p[0], p[1] + dy, p[2]])
        })
        .collect()
}

/// Checks the locator and the roadmap on one mesh; returns (probes, roadmap paths).
fn check(name: &str, nav: NavMesh, probe_count: usize, pairs: usize) -> (usize, usize) {
    let grid = QueryMesh::new(nav.clone());
    let maps = QueryMesh::with_locator(nav, Locator::TrapezoidalMap);
    let stats = maps.trapezoidal_map_stats().expect("built");
    assert_eq!(stats.mapped_layers, stats.layers, "{name}: a layer's edges are not a planar subdivision");
    let points = probes(&grid, probe_count, 17);
    for &p in &points {
        assert_eq!(maps.locate(p), grid.locate(p), "{name}: {p:?}");
    }
    let mut rng = SplitMix64::new(23);
    let mut found = 0;
    for _ in 0..pairs {
        let (Some(s), Some(g)) = (grid.random_point(&mut rng), grid.random_point(&mut rng)) else { break };
        let Ok(path) = grid.find_roadmap_path(s.point, g.point) else { continue };
        found += 1;
        // The ends are the start and goal as `locate` places them (same XZ, surface height).
        let ends = (path.points[0], *path.points.last().unwrap());
        assert_eq!(
            [ends.0[0], ends.0[2], ends.1[0], ends.1[2]],
            [s.point[0], s.point[2], g.point[0], g.point[2]],
            "{name}"
        );
        for w in path.points.windows(2) {
            let (a, b) = ([w[0][0], w[0][2]], [w[1][0], w[1][2]]);
            assert!(segment_in_one_layer(&grid, a, b), "{name}: roadmap segment {:?} -> {:?} leaves", w[0], w[1]);
        }
    }
    (points.len(), found)
}

#[test]
fn trapezoidal_locator_and_roadmap_on_every_fixture() {
    let levels = fixture_levels();
    assert!(levels.len() >= 9, "fixtures missing: {levels:?}");
    for level in &levels {
        let name = level.display().to_string();
        let nav = meadow_bake::bake_file(level, &BakeSettings::DEFAULT).unwrap_or_else(|e| panic!("{name}: {e}"));
        let (probed, found) = check(&name, nav, 3000, 100);
        assert!(probed > 2000 && found > 0, "{name}: {probed} probes, {found} paths");
    }
}

#[test]
#[ignore = "needs the third-party levels in ../shared/levels"]
fn trapezoidal_locator_and_roadmap_on_the_third_party_levels() {
    let shared = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/levels");
    let mut levels: Vec<PathBuf> = ["gltf", "recast"]
        .iter()
        .flat_map(|sub| {
            std::fs::read_dir(shared.join(sub)).into_iter().flatten().filter_map(|e| e.ok().map(|e| e.path()))
        })
        .filter(|p| p.extension().and_then(|e| e.to_str()) == Some("glb"))
        .collect();
    levels.sort();
    let aurora = shared.join("polyanya/aurora.mesh");
    if levels.is_empty() || !aurora.exists() {
        eprintln!("skipped: the third-party levels are not in {}", shared.display());
        return;
    }
    for level in &levels {
        let name = level.display().to_string();
        let nav = meadow_bake::bake_file(level, &BakeSettings::DEFAULT).unwrap_or_else(|e| panic!("{name}: {e}"));
        check(&name, nav, 20_000, 100);
    }
    use meadow_bake::import::polyanya::{import_file, import_settings};
    let nav = import_file(&aurora, &import_settings()).expect("aurora imports");
    check("aurora", nav, 20_000, 30);
}
