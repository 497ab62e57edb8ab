//! The `meadow` binary end to end: bake, info, render, and how it fails.

use std::path::{Path, PathBuf};

mod common;
use common::{assert_clean_failure, meadow, repo, s};

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    common::scratch("cli", name)
}

#[test]
fn bake_info_render_round_trip() {
    let dir = scratch("roundtrip");
    let nav = dir.join("rooms.nav");
    let out = meadow(&["bake", "fixtures/levels/rooms.glb", "-o", s(&nav), "--config", "fixtures/levels/meadow.toml"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let summary = String::from_utf8_lossy(&out.stdout);
    assert!(summary.contains("polygons") && summary.contains("m² walkable"), "{summary}");

    let out = meadow(&["info", s(&nav), "--json"]);
    assert!(out.status.success());
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).expect("info --json is JSON");
    for key in ["polygons", "vertices", "area", "bounds", "settings", "links"] {
        assert!(info.get(key).is_some(), "missing key {key}: {info}");
    }
    assert!(info["polygons"].as_u64().unwrap() > 0);
    assert_eq!(info["settings"]["radius"].as_f64(), Some(0.6));

    // A path around a wall: `--optimal` is never longer than the string-pulled midpoint A*,
    // and both are longer than the straight line through the wall.
    let (from, to) = ("7.620849,0,-3.691648", "2.276601,0,-2.433457");
    // The asset holds visibility data, so the exact path is the default; `--optimal` asks for
    // it explicitly and `--style funnel` still gives the smoothed A* corridor.
    let path_json = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["path", s(&nav), "--from", from, "--to", to, "--json"];
        args.extend_from_slice(extra);
        let out = meadow(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("path --json is JSON");
        assert_eq!(v["found"], true, "{v}");
        v
    };
    let (default, optimal, funnel) = (path_json(&[]), path_json(&["--optimal"]), path_json(&["--style", "funnel"]));
    assert_eq!(
        (&default["style"], &optimal["style"], &funnel["style"]),
        (&"exact".into(), &"exact".into(), &"funnel".into())
    );
    let length = |v: &serde_json::Value| v["length"].as_f64().expect("length");
    let (default, optimal, funnel) = (length(&default), length(&optimal), length(&funnel));
    let straight = (5.344248f64.powi(2) + 1.258191f64.powi(2)).sqrt();
    assert_eq!(default, optimal);
    assert!(optimal <= funnel + 1e-9 && optimal > straight + 0.1, "optimal {optimal}, funnel {funnel}");
    let out = meadow(&["path", s(&nav), "--from", from, "--to", to]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("(style: exact)"));
    // Exact paths are never partial: asking for both is refused, and `--partial` alone falls
    // back to the funnel.
    let out = meadow(&["path", s(&nav), "--from", from, "--to", to, "--style", "exact", "--partial"]);
    assert!(!out.status.success());
    let out = meadow(&["path", s(&nav), "--from", from, "--to", to, "--partial"]);
    assert!(String::from_utf8_lossy(&out.stdout).contains("(style: funnel)"));

    let svg = dir.join("rooms.svg");
    let out = meadow(&["render", s(&nav), "-o", s(&svg)]);
    assert!(out.status.success());
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("<polygon") && text.trim_end().ends_with("</svg>"));
}

/// Bakes `links_islands.glb` (a one-way drop from a ledge, a teleporter to an island and a link
/// whose end is off the mesh) into `dir`.
fn bake_islands(dir: &Path) -> PathBuf {
    let nav = dir.join("islands.nav");
    let out = meadow(&["bake", "fixtures/levels/links_islands.glb", "-o", s(&nav), "--quiet"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("warning") && err.contains("'BrokenStart'") && err.contains("'Nowhere'"), "{err}");
    nav
}

/// Runs `meadow path --json` and checks the `links` array against the points: returns the
/// links' ids and whether each is taken backwards.
fn json_path_links(nav: &Path, from: &str, to: &str, extra: &[&str]) -> Vec<(u64, bool)> {
    let mut args = vec!["path", s(nav), "--from", from, "--to", to, "--json"];
    args.extend_from_slice(extra);
    let out = meadow(&args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("path --json is JSON");
    assert_eq!(v["found"], true, "{v}");
    let points: Vec<[f64; 3]> = serde_json::from_value(v["points"].clone()).unwrap();
    let polyline: f64 = points
        .windows(2)
        .map(|w| ((w[1][0] - w[0][0]).powi(2) + (w[1][1] - w[0][1]).powi(2) + (w[1][2] - w[0][2]).powi(2)).sqrt())
        .sum();
    assert!((v["length"].as_f64().unwrap() - polyline).abs() < 1e-9, "{v}");
    v["links"]
        .as_array()
        .expect("a links array")
        .iter()
        .map(|l| {
            let segment = l["segment"].as_u64().unwrap() as usize;
            assert!(segment + 1 < points.len(), "{l}");
            assert!(l["link"].as_u64().is_some(), "{l}");
            (l["id"].as_u64().unwrap(), l["reversed"].as_bool().unwrap())
        })
        .collect()
}

#[test]
fn off_mesh_links_are_counted_drawn_and_marked_in_paths() {
    let dir = scratch("links");
    let nav = bake_islands(&dir);

    let out = meadow(&["info", s(&nav), "--json"]);
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(info["links"], 2, "{info}");
    let text = String::from_utf8_lossy(&meadow(&["info", s(&nav)]).stdout).to_string();
    assert!(text.contains("links     2") && text.contains("id 40"), "{text}");

    // From the ledge down the one-way drop, then over the teleporter, in every style.
    let (ledge, island) = ("-7,3,0", "35,0,0");
    for style in ["funnel", "meadow", "midpoints"] {
        assert_eq!(json_path_links(&nav, ledge, island, &["--style", style]), [(30, false), (40, false)], "{style}");
    }
    assert_eq!(json_path_links(&nav, island, "0,0,0", &[]), [(40, true)]);
    // No way back up the drop.
    let out = meadow(&["path", s(&nav), "--from", "0,0,0", "--to", ledge, "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!((v["found"].as_bool(), v["links"].as_array().map(Vec::len)), (Some(false), Some(0)), "{v}");

    // Excluding the teleporter's area excludes the teleporter.
    let out = meadow(&["path", s(&nav), "--from", "0,0,0", "--to", island, "--exclude-area", "teleport", "--json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["found"], false, "{v}");

    let out = meadow(&["path", s(&nav), "--from", ledge, "--to", island]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("2 off-mesh links") && text.contains("off-mesh link id 30"), "{text}");

    let svg = dir.join("islands.svg");
    let out = meadow(&["render", s(&nav), "-o", s(&svg), "--path", &format!("{ledge}:{island}")]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&svg).unwrap();
    assert_eq!(text.matches(r#"class="link""#).count(), 2, "one arc per link");
    assert_eq!(text.matches("marker-end=").count(), 2, "an arrowhead at the end of each link");
    assert_eq!(text.matches("marker-start=").count(), 1, "and at the start of the two-way one");
    assert_eq!(text.matches("stroke-dasharray").count(), 2, "the path's two link segments");
}

/// `--optimal` (the exact shortest path) marks links too.
#[test]
fn optimal_paths_mark_off_mesh_links() {
    let dir = scratch("links-optimal");
    let nav = bake_islands(&dir);
    assert_eq!(json_path_links(&nav, "-7,3,0", "35,0,0", &["--optimal"]), [(30, false), (40, false)]);
}

#[test]
fn flags_override_the_config_file() {
    let dir = scratch("flags");
    let nav = dir.join("a.nav");
    let out = meadow(&["bake", "fixtures/levels/box_floor.glb", "-o", s(&nav), "--quiet", "--radius", "0.3"]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty(), "--quiet prints nothing");
    let info: serde_json::Value = serde_json::from_slice(&meadow(&["info", s(&nav), "--json"]).stdout).unwrap();
    assert_eq!(info["settings"]["radius"].as_f64(), Some(0.3));
    assert_eq!(info["settings"]["partition"].as_str(), Some("merge"));

    // --partition is a stored setting: info shows it.
    let out = meadow(&["bake", "fixtures/levels/box_floor.glb", "-o", s(&nav), "--quiet", "--partition", "meadow"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8_lossy(&meadow(&["info", s(&nav)]).stdout).to_string();
    assert!(text.contains("partition meadow, tile size 0 m"), "{text}");
    let info: serde_json::Value = serde_json::from_slice(&meadow(&["info", s(&nav), "--json"]).stdout).unwrap();
    assert_eq!(info["settings"]["partition"].as_str(), Some("meadow"));
}

#[test]
fn walkable_rule_from_flag_or_config_and_its_warning() {
    let dir = scratch("walkable");
    let nav = dir.join("halls.nav");
    let walkable = |nav: &Path| -> serde_json::Value {
        let info: serde_json::Value = serde_json::from_slice(&meadow(&["info", s(nav), "--json"]).stdout).unwrap();
        info["settings"]["walkable"].clone()
    };
    let out = meadow(&["bake", "fixtures/levels/halls.glb", "-o", s(&nav), "--quiet"]);
    assert!(out.status.success() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(walkable(&nav), "by-slope");

    let out = meadow(&["bake", "fixtures/levels/halls.glb", "-o", s(&nav), "--quiet", "--walkable", "tagged-only"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with("meadow: warning: walkable = \"tagged-only\": 184.00 m² (XZ) of untagged floor")
            && err.contains("'EastHall' (180.00 m²)"),
        "{err}"
    );
    assert_eq!(walkable(&nav), "tagged-only");

    let config = dir.join("meadow.toml");
    std::fs::write(&config, "walkable = \"tagged-only\"\n").unwrap();
    let out = meadow(&["bake", "fixtures/levels/halls.glb", "-o", s(&nav), "--quiet", "--config", s(&config)]);
    assert!(out.status.success() && !out.stderr.is_empty());
    assert_eq!(walkable(&nav), "tagged-only");
    // The flag overrides the file.
    let out = meadow(&[
        "bake",
        "fixtures/levels/halls.glb",
        "-o",
        s(&nav),
        "--quiet",
        "--config",
        s(&config),
        "--walkable",
        "by-slope",
    ]);
    assert!(out.status.success() && out.stderr.is_empty());
    assert_eq!(walkable(&nav), "by-slope");

    std::fs::write(&config, "walkable = \"tagged\"\n").unwrap();
    assert_clean_failure(
        &meadow(&["bake", "fixtures/levels/halls.glb", "-o", s(&nav), "--config", s(&config)]),
        "walkable",
    );
}

#[test]
fn bad_inputs_fail_cleanly_and_keep_the_old_asset() {
    let dir = scratch("bad");
    let nav = dir.join("keep.nav");
    std::fs::write(&nav, b"previous asset").unwrap();
    assert_clean_failure(&meadow(&["bake", "fixtures/bad/truncated.glb", "-o", s(&nav)]), "truncated.glb");
    assert_clean_failure(&meadow(&["bake", "fixtures/bad/nan_position.glb", "-o", s(&nav)]), "nan_position.glb");
    assert_clean_failure(&meadow(&["bake", "fixtures/bad/missing_bin.gltf", "-o", s(&nav)]), "missing_bin");
    assert_clean_failure(
        &meadow(&[
            "bake",
            "fixtures/levels/box_floor.glb",
            "-o",
            s(&nav),
            "--config",
            "fixtures/bad/negative_radius.toml",
        ]),
        "radius",
    );
    assert_clean_failure(
        &meadow(&["bake", "fixtures/levels/box_floor.glb", "-o", s(&nav), "--max-verts", "2"]),
        "max_verts",
    );
    assert_clean_failure(&meadow(&["bake", "no/such/level.glb", "-o", s(&nav)]), "level.glb");
    assert_clean_failure(&meadow(&["bake", "fixtures/bad/bad_link_self.glb", "-o", s(&nav)]), "node 'Node'");
    assert_clean_failure(&meadow(&["bake", "fixtures/bad/bad_link_cost.glb", "-o", s(&nav)]), "\"cost\"");
    assert_eq!(std::fs::read(&nav).unwrap(), b"previous asset", "a failed bake must not touch the output");
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 1, "no temporary files left behind");

    assert_clean_failure(&meadow(&["info", s(&nav)]), "not a Meadow navmesh");
    assert_clean_failure(&meadow(&["info", "fixtures/levels/rooms.glb"]), "not a Meadow navmesh");
}

#[test]
fn damaged_asset_is_reported() {
    let dir = scratch("damaged");
    let nav = dir.join("rooms.nav");
    assert!(meadow(&["bake", "fixtures/levels/rooms.glb", "-o", s(&nav), "--quiet"]).status.success());
    let mut bytes = std::fs::read(&nav).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0xff;
    std::fs::write(&nav, &bytes).unwrap();
    assert_clean_failure(&meadow(&["info", s(&nav)]), "checksum");
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&nav, &bytes).unwrap();
    assert_clean_failure(&meadow(&["render", s(&nav), "-o", s(&dir.join("x.svg"))]), "truncated");
}

#[test]
fn simulate_navmesh_crowd_reaches_goals_for_any_thread_count() {
    let dir = scratch("crowd");
    let nav = dir.join("rooms.nav");
    let out = meadow(&["bake", "fixtures/levels/rooms.glb", "-o", s(&nav), "-q"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let scenario = "fixtures/scenarios/rooms_crowd.json";
    let mut csvs = Vec::new();
    for threads in ["1", "2"] {
        let csv = dir.join(format!("t{threads}.csv"));
        let out = meadow(&["simulate", scenario, "--navmesh", s(&nav), "--threads", threads, "--out", s(&csv)]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && err.contains("all agents arrived"), "{err}");
        csvs.push(std::fs::read_to_string(&csv).unwrap());
    }
    assert_eq!(csvs[0], csvs[1], "trajectories differ between 1 and 2 threads");
    assert_eq!(csvs[0].lines().next(), Some("step,agent,x,y,z"));

    // The last row of every agent is within the goal radius of its goal (XZ).
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(repo().join(scenario)).unwrap()).unwrap();
    let agents = json["agents"].as_array().unwrap();
    let radius = json["goal_radius"].as_f64().unwrap();
    let rows: Vec<Vec<f64>> =
        csvs[0].lines().skip(1).map(|l| l.split(',').map(|v| v.parse().unwrap()).collect()).collect();
    let last_step = rows.last().unwrap()[0];
    for (i, agent) in agents.iter().enumerate() {
        let row = rows.iter().find(|r| r[0] == last_step && r[1] == i as f64).unwrap();
        let g = &agent["goal"];
        let d = ((row[2] - g[0].as_f64().unwrap()).powi(2) + (row[4] - g[2].as_f64().unwrap()).powi(2)).sqrt();
        assert!(d <= radius + 1e-9, "agent {i} ends {d} m from its goal");
    }

    // Without --navmesh the 3D scenario is rejected cleanly.
    let out = meadow(&["simulate", scenario]);
    assert_clean_failure(&out, "scenario");
}

/// Regression (hostile inputs): every subcommand exits non-zero when its single query fails,
/// with the reason on stderr; batches report failures per line and succeed.
#[test]
fn a_failed_single_query_exits_non_zero_in_every_subcommand() {
    let dir = scratch("exitcodes");
    let scene = dir.join("scene.json");
    std::fs::write(&scene, br#"{"circles": [{"center": [0, 0], "radius": 1}]}"#).unwrap();
    // The start lies strictly inside the disc: no path.
    let out = meadow(&["circles", s(&scene), "--from", "0,0", "--to", "5,5"]);
    assert_clean_failure(&out, "no path");
    assert!(out.stdout.is_empty(), "the reason goes to stderr only");
    let out = meadow(&["circles", s(&scene), "--from", "0,0", "--to", "5,5", "--json"]);
    assert!(!out.status.success());
    let answer: serde_json::Value = serde_json::from_slice(&out.stdout).expect("the JSON answer is still printed");
    assert_eq!(answer["found"], false);
    let out = meadow(&["circles", s(&scene), "--from", "-3,0", "--to", "3,0"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let queries = dir.join("q.json");
    std::fs::write(&queries, br#"[{"from": [0, 0], "to": [5, 5]}, {"from": [-3, 0], "to": [3, 0]}]"#).unwrap();
    let out = meadow(&["circles", s(&scene), "--queries", s(&queries), "--json"]);
    assert!(out.status.success(), "a batch succeeds and reports each failure in its line");
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 2);

    let nav = dir.join("rooms.nav");
    assert!(meadow(&["bake", "fixtures/levels/rooms.glb", "-o", s(&nav), "--quiet"]).status.success());
    assert_clean_failure(&meadow(&["path", s(&nav), "--from", "0,0,-3", "--to", "500,0,500"]), "not on the navmesh");
}

/// Regression: a point near 1e300 with a huge `--snap` snapped to an arbitrary room; points
/// beyond the coordinate limit are refused.
#[test]
fn far_points_are_refused_not_snapped() {
    let dir = scratch("far");
    let nav = dir.join("rooms.nav");
    assert!(meadow(&["bake", "fixtures/levels/rooms.glb", "-o", s(&nav), "--quiet"]).status.success());
    let out = meadow(&["path", s(&nav), "--from", "1e300,0,0", "--to", "0,0,-3", "--snap", "1e300"]);
    assert_clean_failure(&out, "coordinate limit");
    let out = meadow(&["path", s(&nav), "--from", "0,0,-3", "--to", "0,0,-2e7", "--snap", "1e30", "--json"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("coordinate limit"));
}

/// Regression: replacing a read-only output gave the new file default permissions.
#[cfg(unix)]
#[test]
fn a_replaced_output_keeps_its_permission_bits() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("perms");
    let nav = dir.join("level.nav");
    std::fs::write(&nav, b"previous asset").unwrap();
    std::fs::set_permissions(&nav, std::fs::Permissions::from_mode(0o440)).unwrap();
    let out = meadow(&["bake", "fixtures/levels/box_floor.glb", "-o", s(&nav), "--quiet"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_ne!(std::fs::read(&nav).unwrap(), b"previous asset");
    assert_eq!(std::fs::metadata(&nav).unwrap().permissions().mode() & 0o777, 0o440);
    let svg = dir.join("level.svg");
    std::fs::write(&svg, b"old").unwrap();
    std::fs::set_permissions(&svg, std::fs::Permissions::from_mode(0o604)).unwrap();
    assert!(meadow(&["render", s(&nav), "-o", s(&svg)]).status.success());
    assert_eq!(std::fs::metadata(&svg).unwrap().permissions().mode() & 0o777, 0o604);
}

/// `--timings` names every stage as it starts and ends, also with `--quiet`.
#[test]
fn timings_show_where_a_bake_is() {
    let dir = scratch("timings");
    let nav = dir.join("level.nav");
    let out = meadow(&["bake", "fixtures/levels/box_floor.glb", "-o", s(&nav), "--quiet", "--timings"]);
    assert!(out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    for stage in ["ingest", "classify", "region", "simplify", "triangulate", "convex", "portals", "assemble"] {
        assert!(err.contains(&format!("{stage} started")) && err.contains(&format!("{stage} took")), "{err}");
    }
}

/// Usage errors are one line too (exit 2); a negative number is a value, refused by validation.
#[test]
fn usage_errors_are_one_line_and_negative_values_are_validated() {
    let out = meadow(&["bake", "fixtures/levels/box_floor.glb", "-o", "x.nav", "--no-such-flag"]);
    assert_eq!(out.status.code(), Some(2));
    assert_clean_failure(&out, "--no-such-flag");
    let out = meadow(&["path", "x.nav", "--from", "1,2", "--to", "0,0,0"]);
    assert_eq!(out.status.code(), Some(2));
    assert_clean_failure(&out, "x,y,z");
    // Regression: the names of missing arguments follow clap's first line; they stay in the line.
    let out = meadow(&["bake", "fixtures/levels/box_floor.glb"]);
    assert_eq!(out.status.code(), Some(2));
    assert_clean_failure(&out, "--output <OUTPUT>");
    let dir = scratch("negative");
    let nav = dir.join("x.nav");
    let out = meadow(&["bake", "fixtures/levels/box_floor.glb", "-o", s(&nav), "--radius", "-1"]);
    assert_eq!(out.status.code(), Some(1));
    assert_clean_failure(&out, "radius");
    assert!(meadow(&["--help"]).status.success());
}

#[test]
fn polyanya_meshes_are_imported_and_answer_exact_paths() {
    let dir = scratch("polyanya");
    // Two unit squares side by side (version 2: vertex x y and its polygons; polygon n, vertices,
    // neighbours across the edge ending at each vertex).
    let mesh = dir.join("squares.mesh");
    std::fs::write(
        &mesh,
        "mesh\n2\n6 2\n0 0 0\n1 0 0\n2 0 0\n2 1 0\n1 1 0\n0 1 0\n4 0 1 4 5 -1 -1 1 -1\n4 1 2 3 4 0 -1 -1 -1\n",
    )
    .unwrap();
    let nav = dir.join("squares.nav");
    let out = meadow(&["bake", s(&mesh), "-o", s(&nav)]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = meadow(&["path", s(&nav), "--from", "0.1,0,0.5", "--to", "1.9,0,0.5", "--optimal", "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("path --json is JSON");
    assert!((v["length"].as_f64().unwrap() - 1.8).abs() < 1e-9, "{v}");

    let bad = dir.join("bad.mesh");
    std::fs::write(&bad, "mesh\n2\n6 2\n0 0 0\n").unwrap();
    assert_clean_failure(&meadow(&["bake", s(&bad), "-o", s(&nav)]), "ends early");
}

#[test]
fn roadmap_planner_answers_beside_the_exact_path_and_refuses_styles() {
    let nav = "fixtures/assets/box_floor.nav";
    let run_json = |extra: &[&str]| -> serde_json::Value {
        let mut args = vec!["path", nav, "--from", "-5,0,0", "--to", "5,0,0", "--json"];
        args.extend_from_slice(extra);
        let out = meadow(&args);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).expect("path --json is JSON")
    };
    let road = run_json(&["--planner", "roadmap"]);
    let exact = run_json(&["--style", "exact"]);
    assert_eq!((road["style"].as_str(), road["found"].as_bool()), (Some("roadmap"), Some(true)), "{road}");
    // Round the box either way: never shorter than the exact path.
    assert!(road["length"].as_f64().unwrap() >= exact["length"].as_f64().unwrap() - 1e-9, "{road} {exact}");
    let out = meadow(&["path", nav, "--from", "-5,0,0", "--to", "5,0,0", "--planner", "roadmap", "--style", "funnel"]);
    assert_clean_failure(&out, "--planner roadmap");
}

/// Touching circles in `meadow circles`: a start exactly on a grown boundary and a path through
/// a kiss point are found; a start one step of 2^-40 m inside is not (`found: false`).
#[test]
fn circles_kiss_points_and_boundaries_are_exact() {
    let dir = scratch("circles_kiss");
    let scene = dir.join("scene.json");
    // Grown by 0.5 the circles are 2.5 and 7.5 around centres 10 apart: they kiss at (1.5, 2).
    std::fs::write(&scene, br#"{"circles": [{"center": [0, 0], "radius": 2}, {"center": [6, 8], "radius": 7}]}"#)
        .unwrap();
    let answer = |from: &str, to: &str| -> serde_json::Value {
        let out = meadow(&["circles", s(&scene), "--radius", "0.5", "--from", from, "--to", to, "--json"]);
        serde_json::from_slice(&out.stdout).expect("a JSON answer")
    };
    let through = answer("-2.5,5", "5.5,-1");
    assert_eq!(through["found"], true, "{through}");
    assert_eq!(through["length"], 10.0, "straight through the kiss point");
    assert_eq!(answer("1.5,-2", "6,15.5")["found"], true, "from boundary to boundary");
    let inside = format!("{},-2", 1.5 - 1.0 / (1u64 << 40) as f64);
    let refused = answer(&inside, "6,15.5");
    assert_eq!(refused["found"], false, "{refused}");
    assert!(refused["reason"].as_str().unwrap().contains("start lies inside obstacle 0"), "{refused}");
}

/// `--obstacles`: a crate carved out of box_floor's asset lengthens the exact path through it
/// (single and batch queries), `render` draws the carved mesh, and bad obstacle files fail in one
/// line with a non-zero exit.
#[test]
fn path_and_render_carve_obstacles() {
    let dir = scratch("obstacles");
    let nav = "fixtures/assets/box_floor.nav";
    let obstacles = dir.join("crate.json");
    // A 2 m crate across the straight line from (-6, 0, 5) to (6, 0, 5), on the floor.
    std::fs::write(&obstacles, r#"[{"polygon": [[-1, 4], [1, 4], [1, 6], [-1, 6]], "y": [-0.1, 2.0]}]"#).unwrap();
    let length = |extra: &[&str]| -> f64 {
        let mut args = vec!["path", nav, "--from", "-6,0,5", "--to", "6,0,5", "--json", "--style", "exact"];
        args.extend_from_slice(extra);
        let out = common::ok(meadow(&args));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("path --json is JSON");
        v["length"].as_f64().expect("a path")
    };
    let (open, carved) = (length(&[]), length(&["--obstacles", s(&obstacles)]));
    assert!((open - 12.0).abs() < 1e-9, "{open}");
    // Round the crate grown by the radius (0.6): it must pass 1.6 m off the line over x in
    // [-1, 1], so at least via (-1, 6.6) and (1, 6.6); the corner arcs add a little.
    let round = 2.0 * 5f64.hypot(1.6) + 2.0;
    assert!(carved >= round && carved < round + 0.05, "{carved} vs at least {round}");
    let queries = dir.join("queries.json");
    std::fs::write(&queries, r#"[{"from": [-6, 0, 5], "to": [6, 0, 5]}, {"from": [-6, 0, -8], "to": [6, 0, -8]}]"#)
        .unwrap();
    let out = common::ok(meadow(&["path", nav, "--queries", s(&queries), "--obstacles", s(&obstacles), "--json"]));
    let lines: Vec<serde_json::Value> =
        String::from_utf8_lossy(&out.stdout).lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[0]["length"].as_f64().unwrap() > 12.5 && (lines[1]["length"].as_f64().unwrap() - 12.0).abs() < 1e-9);
    // The render of the carved mesh has more polygons than the baked one.
    let polygons = |extra: &[&str]| -> usize {
        let svg = dir.join("mesh.svg");
        let mut args = vec!["render", nav, "-o", s(&svg)];
        args.extend_from_slice(extra);
        common::ok(meadow(&args));
        std::fs::read_to_string(&svg).unwrap().matches("<polygon").count()
    };
    assert!(polygons(&["--obstacles", s(&obstacles)]) > polygons(&[]));
    // Bad files: one line, non-zero exit.
    for (name, text, mentions) in [
        ("nan.json", r#"[{"polygon": [[0, 0], [1, 0], [NaN, 1]], "y": [0, 1]}]"#, "nan.json"),
        ("two.json", r#"[{"polygon": [[0, 0], [1, 0]], "y": [0, 1]}]"#, "at least 3 corners"),
        ("cw.json", r#"[{"polygon": [[0, 0], [0, 1], [1, 0]], "y": [0, 1]}]"#, "convex and counter-clockwise"),
        ("star.json", r#"[{"polygon": [[0, 0], [2, 0], [1, 0.2], [2, 2], [0, 2]], "y": [0, 1]}]"#, "convex"),
        ("flat.json", r#"[{"polygon": [[0, 0], [1, 0], [0, 1]], "y": [1, 1]}]"#, "height range"),
        ("key.json", r#"[{"polygon": [[0, 0], [1, 0], [0, 1]], "y": [0, 1], "h": 2}]"#, "key.json"),
        ("huge.json", r#"[{"polygon": [[0, 0], [1e300, 0], [0, 1]], "y": [0, 1]}]"#, "coordinate limit"),
    ] {
        let file = dir.join(name);
        std::fs::write(&file, text).unwrap();
        let out = meadow(&["path", nav, "--from", "-6,0,5", "--to", "6,0,5", "--obstacles", s(&file)]);
        assert_clean_failure(&out, mentions);
        let svg = dir.join("bad.svg");
        std::fs::write(&svg, "previous").unwrap();
        let out = meadow(&["render", nav, "-o", s(&svg), "--obstacles", s(&file)]);
        assert_clean_failure(&out, mentions);
        assert_eq!(std::fs::read_to_string(&svg).unwrap(), "previous");
    }
    let out = meadow(&["path", nav, "--from", "-6,0,5", "--to", "6,0,5", "--obstacles", "no/such/file.json"]);
    assert_clean_failure(&out, "cannot read");
}
