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

/// The shortcut pass skips corners whose wall loop reaches outside the detour: on a single floor
/// such an obstacle cannot be passed on its far side, so skipping must change no path. Checked
/// on every single-layer fixture and, when `../shared` is present, on the real levels, where
/// floors above one another may cost a rare shortcut (bounded here). Also: after a splice the
/// shortcut pass pulls only the changed stretch of the corridor again; pulling all of it must
/// give the same path everywhere (both are the sleeve's one shortest path).
#[test]
fn the_shortcut_filter_and_local_repulls_change_no_path_on_a_single_floor() {
    let mut levels: Vec<(std::path::PathBuf, bool)> = fixture_levels().into_iter().map(|p| (p, true)).collect();
    match meadow_suite::shared_dir() {
        Some(shared) => {
            for name in
                ["gltf/collision-world.glb", "gltf/navcat-proto-level.glb", "recast/dungeon.glb", "recast/nav_test.glb"]
            {
                levels.push((shared.join("levels").join(name), false));
            }
        }
        None => println!("../shared is absent: checking the fixtures only"),
    }
    let filter = QueryFilter::new();
    let (mut compared, mut shortcut_paths) = (0, 0);
    for (level, fixture) in levels {
        let name = level.display().to_string();
        let nav = meadow_bake::bake_file(&level, &BakeSettings::DEFAULT).unwrap_or_else(|e| panic!("{name}: {e}"));
        let layers = nav.polygons().any(|p| p.layer != 0);
        let mesh = QueryMesh::new(nav);
        let (mut filtered, mut unfiltered) = (PathQuery::new(&mesh), PathQuery::new(&mesh));
        unfiltered.set_unfiltered_shortcuts(true);
        let mut full = PathQuery::new(&mesh);
        full.set_full_repulls(true);
        let plain = PathOptions { shortcuts: false, ..PathOptions::default() };
        let mut rng = meadow::query::SplitMix64::new(99);
        let (mut a, mut b, mut c, mut d) = (Path::default(), Path::default(), Path::default(), Path::default());
        let (mut n, mut differ, mut excess) = (0, 0, 0.0);
        for _ in 0..600 {
            let (Some(s), Some(g)) = (mesh.random_point(&mut rng), mesh.random_point(&mut rng)) else { break };
            let fa = filtered.find_path_into(&mesh, s.point, g.point, &filter, PathOptions::default(), &mut a);
            let fb = unfiltered.find_path_into(&mesh, s.point, g.point, &filter, PathOptions::default(), &mut b);
            assert_eq!(fa.is_ok(), fb.is_ok(), "{name}");
            if fa.is_err() {
                continue;
            }
            n += 1;
            full.find_path_into(&mesh, s.point, g.point, &filter, PathOptions::default(), &mut d).unwrap();
            assert_eq!((&a.points, &a.corridor), (&d.points, &d.corridor), "{name}: {:?} -> {:?}", s.point, g.point);
            unfiltered.find_path_into(&mesh, s.point, g.point, &filter, plain, &mut c).unwrap();
            shortcut_paths += usize::from(b.points.len() < c.points.len() && b.length < c.length - 1e-9);
            if a.points != b.points {
                differ += 1;
                excess += a.length / b.length - 1.0;
            }
        }
        if fixture && !layers {
            assert_eq!(differ, 0, "{name}: the filter changed {differ} of {n} paths");
        } else {
            assert!(differ * 100 <= n && excess / n.max(1) as f64 <= 1e-4, "{name}: {differ} of {n} paths changed");
        }
        println!("{name}: {n} paths, {differ} changed by the filter");
        compared += n;
    }
    assert!(compared > 3000 && shortcut_paths > 50, "compared {compared}, shortcut paths {shortcut_paths}");
}
