//! Regression: every fixture level is baked with the default settings and the queries recorded in
//! `fixtures/queries/<level>.json` (by `src/bin/gen_queries.rs`) are re-run; found-ness must match
//! exactly and every style's path length within 1e-4 m. Any change of bake or query shows up here.

use meadow::query::{Path, PathOptions, PathQuery, PathStyle, QueryFilter, QueryMesh};
use meadow::BakeSettings;
use meadow_suite::{fixture_levels, fixtures_dir};
use serde_json::Value;

const TOLERANCE: f64 = 1e-4;

const STYLES: [(&str, PathStyle); 3] =
    [("midpoints", PathStyle::Midpoints), ("meadow", PathStyle::MeadowRefined), ("funnel", PathStyle::StringPulled)];

fn point(v: &Value, what: &str) -> [f64; 3] {
    let a = v.as_array().unwrap_or_else(|| panic!("{what} is not an array"));
    assert_eq!(a.len(), 3, "{what} is not [x, y, z]");
    let c = |i: usize| a[i].as_f64().unwrap_or_else(|| panic!("{what}[{i}] is not a number"));
    [c(0), c(1), c(2)]
}

#[test]
fn recorded_query_lengths_match_for_every_fixture() {
    let levels = fixture_levels();
    assert!(levels.len() >= 9, "fixtures missing: {levels:?}");
    let mut mismatches = Vec::new();
    let mut checked = 0;
    for level in &levels {
        let name = level.file_name().and_then(|n| n.to_str()).expect("fixture names are UTF-8");
        let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
        let file = fixtures_dir().join("queries").join(format!("{stem}.json"));
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| {
            panic!("{}: {e} (run `cargo run --release -p meadow-suite --bin gen_queries`)", file.display())
        });
        let recorded: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let recorded = recorded.as_array().unwrap_or_else(|| panic!("{}: not a list", file.display()));
        assert!(!recorded.is_empty(), "{}: no queries", file.display());

        let nav = meadow_bake::bake_file(level, &BakeSettings::DEFAULT).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mesh = QueryMesh::new(nav);
        let mut query = PathQuery::new(&mesh);
        let mut path = Path::default();
        for (i, q) in recorded.iter().enumerate() {
            let (from, to) = (point(&q["from"], "from"), point(&q["to"], "to"));
            let expect_found = q["found"].as_bool().unwrap_or_else(|| panic!("{name} query {i}: no \"found\""));
            for (key, style) in STYLES {
                let options = PathOptions { style, ..PathOptions::default() };
                let result = query.find_path_into(&mesh, from, to, &QueryFilter::new(), options, &mut path);
                checked += 1;
                let what = format!("{name} query {i} ({from:?} -> {to:?}) style {key}");
                match (expect_found, result) {
                    (true, Ok(())) => {
                        let expected = q["lengths"][key].as_f64().unwrap_or_else(|| panic!("{what}: no length"));
                        if (path.length - expected).abs() > TOLERANCE {
                            mismatches.push(format!("{what}: length {} but recorded {expected}", path.length));
                        }
                    }
                    (true, Err(e)) => mismatches.push(format!("{what}: recorded a path, now {e}")),
                    (false, Ok(())) => mismatches.push(format!("{what}: recorded no path, now length {}", path.length)),
                    (false, Err(_)) => {}
                }
            }
        }
    }
    assert!(checked > 0);
    assert!(
        mismatches.is_empty(),
        "{} of {checked} query results differ from fixtures/queries (regenerate with \
         `cargo run --release -p meadow-suite --bin gen_queries` if the change is intended):\n{}",
        mismatches.len(),
        mismatches.join("\n")
    );
}

/// After a splice the shortcut pass pulls only the changed stretch of the corridor again;
/// pulling all of it must give the same path everywhere (both are the sleeve's one shortest
/// path). Checked on every fixture.
#[test]
fn pulling_only_the_spliced_stretch_changes_no_path() {
    check_spliced_pulls(fixture_levels(), 1000, 20);
}

/// [`pulling_only_the_spliced_stretch_changes_no_path`] on real levels.
#[test]
#[ignore = "needs the third-party levels"]
fn pulling_only_the_spliced_stretch_changes_no_path_on_real_levels() {
    let shared = meadow_suite::third_party_dir();
    let levels =
        ["gltf/collision-world.glb", "gltf/navcat-proto-level.glb", "recast/dungeon.glb", "recast/nav_test.glb"]
            .map(|name| shared.join("levels").join(name));
    check_spliced_pulls(levels.to_vec(), 1000, 50);
}

/// Compares local and full re-pulls on random pairs of `levels`; at least `min_compared` paths
/// and `min_shortcuts` paths the shortcut pass made shorter.
fn check_spliced_pulls(levels: Vec<std::path::PathBuf>, min_compared: usize, min_shortcuts: usize) {
    let filter = QueryFilter::new();
    let (mut compared, mut shortcut_paths) = (0, 0);
    for level in levels {
        let name = level.display().to_string();
        let nav = meadow_bake::bake_file(&level, &BakeSettings::DEFAULT).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mesh = QueryMesh::new(nav);
        let (mut local, mut full) = (PathQuery::new(&mesh), PathQuery::new(&mesh));
        full.set_full_repulls(true);
        let plain = PathOptions { shortcuts: false, ..PathOptions::default() };
        let mut rng = meadow::query::SplitMix64::new(99);
        let (mut a, mut b, mut c) = (Path::default(), Path::default(), Path::default());
        let mut n = 0;
        for i in 0..600 {
            let (Some(s), Some(mut g)) = (mesh.random_point(&mut rng), mesh.random_point(&mut rng)) else { break };
            // Every third goal exactly on a mesh vertex (where the funnel may end on a corner it
            // already turned at, and record no separate goal point).
            if i % 3 == 0 {
                let poly = mesh.mesh().polygon(g.polygon as usize);
                g.point = mesh.mesh().vertices()[poly.vertices[i % poly.vertices.len()] as usize];
            }
            let fa = local.find_path_into(&mesh, s.point, g.point, &filter, PathOptions::default(), &mut a);
            let fb = full.find_path_into(&mesh, s.point, g.point, &filter, PathOptions::default(), &mut b);
            assert_eq!(fa.is_ok(), fb.is_ok(), "{name}");
            if fa.is_err() {
                continue;
            }
            n += 1;
            assert_eq!((&a.points, &a.corridor), (&b.points, &b.corridor), "{name}: {:?} -> {:?}", s.point, g.point);
            local.find_path_into(&mesh, s.point, g.point, &filter, plain, &mut c).unwrap();
            shortcut_paths += usize::from(a.points.len() < c.points.len() && a.length < c.length - 1e-9);
        }
        println!("{name}: {n} paths");
        compared += n;
    }
    assert!(
        compared > min_compared && shortcut_paths > min_shortcuts,
        "compared {compared}, shortcut paths {shortcut_paths}"
    );
}

/// On `box_floor` (one box in an open square, so every vertex lies on a wall) the midpoint
/// corridor often passes the box on the longer side; re-routing round the island must then
/// make every `find_path` the exact shortest path.
#[test]
fn paths_round_a_single_island_are_optimal() {
    let level = fixtures_dir().join("levels/box_floor.glb");
    let nav = meadow_bake::bake_file(&level, &BakeSettings::DEFAULT).expect("box_floor bakes");
    let mesh = QueryMesh::new(nav);
    let (mut query, mut exact) = (PathQuery::new(&mesh), meadow::query::ShortestPathQuery::new(&mesh));
    let filter = QueryFilter::new();
    let mut rng = meadow::query::SplitMix64::new(3);
    let (mut path, mut optimum) = (Path::default(), Path::default());
    let (mut pairs, mut round_the_box) = (0, 0);
    for _ in 0..800 {
        let (Some(a), Some(b)) = (mesh.random_point(&mut rng), mesh.random_point(&mut rng)) else { break };
        query.find_path_into(&mesh, a.point, b.point, &filter, PathOptions::default(), &mut path).unwrap();
        exact.find_shortest_path_into(&mesh, a.point, b.point, &filter, &mut optimum).unwrap();
        assert!(
            path.length <= optimum.length * (1.0 + 1e-9),
            "{:?} -> {:?}: find_path {} m, shortest {} m",
            a.point,
            b.point,
            path.length,
            optimum.length
        );
        pairs += 1;
        round_the_box += usize::from(path.points.len() > 2);
    }
    assert!(pairs == 800 && round_the_box > 100, "pairs {pairs}, bending round the box {round_the_box}");
}

/// When the straight segment runs into one island, `find_path` may answer with the taut string
/// round the island's convex hull, certified shortest without a search. Every path answered so
/// must be as short (in XZ) as the exact `find_shortest_path`, and walk the mesh. Checked on
/// every fixture.
#[test]
fn paths_certified_round_one_island_are_shortest() {
    check_island_certificates(fixture_levels());
}

/// [`paths_certified_round_one_island_are_shortest`] on the real levels with islands.
#[test]
#[ignore = "needs the third-party levels"]
fn paths_certified_round_one_island_are_shortest_on_real_levels() {
    let shared = meadow_suite::third_party_dir();
    let levels = ["recast/undulating.glb", "gltf/collision-world.glb", "recast/dungeon.glb"]
        .map(|name| shared.join("levels").join(name));
    check_island_certificates(levels.to_vec());
}

/// Checks every path certified round one island on random pairs of `levels` against the exact
/// shortest path.
fn check_island_certificates(levels: Vec<std::path::PathBuf>) {
    let filter = QueryFilter::new();
    let xz_length = |p: &Path| p.points.windows(2).map(|w| (w[1][0] - w[0][0]).hypot(w[1][2] - w[0][2])).sum::<f64>();
    let mut certified_total = 0;
    for level in levels {
        let name = level.display().to_string();
        let nav = meadow_bake::bake_file(&level, &BakeSettings::DEFAULT).unwrap_or_else(|e| panic!("{name}: {e}"));
        let mesh = QueryMesh::new(nav);
        let (mut query, mut exact) = (PathQuery::new(&mesh), meadow::query::ShortestPathQuery::new(&mesh));
        let mut rng = meadow::query::SplitMix64::new(17);
        let (mut path, mut optimum) = (Path::default(), Path::default());
        let mut certified = 0;
        for _ in 0..1500 {
            let (Some(a), Some(b)) = (mesh.random_point(&mut rng), mesh.random_point(&mut rng)) else { break };
            if query.find_path_into(&mesh, a.point, b.point, &filter, PathOptions::default(), &mut path).is_err()
                || !query.last_went_round_one_island()
            {
                continue;
            }
            certified += 1;
            exact.find_shortest_path_into(&mesh, a.point, b.point, &filter, &mut optimum).unwrap();
            let (got, best) = (xz_length(&path), xz_length(&optimum));
            assert!(
                (got - best).abs() <= 1e-9 * (1.0 + best),
                "{name}: {:?} -> {:?}: round the island {got} m, shortest {best} m",
                a.point,
                b.point
            );
            assert!(path.points.len() >= 3, "{name}: a certified path bends");
            assert_eq!(path.corridor.first(), Some(&a.polygon), "{name}");
            assert_eq!(path.corridor.last(), Some(&b.polygon), "{name}");
            if let Err(e) = meadow_testkit::testmesh::check_path_in_corridor(&mesh, &path) {
                panic!("{name}: {:?} -> {:?}: {e}", a.point, b.point);
            }
        }
        println!("{name}: {certified} of 1500 paths certified round one island");
        certified_total += certified;
    }
    assert!(certified_total > 100, "only {certified_total} certified paths: the test checks too little");
}
