//! The `meadow` binary end to end: bake, info, render, and how it fails.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn meadow(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meadow")).args(args).current_dir(repo()).output().expect("run meadow")
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("meadow-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A failure is one line on stderr, a non-zero exit, and never a panic.
fn assert_clean_failure(out: &Output, mentions: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "expected failure, got success; stderr: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "stderr is not one line: {err}");
    assert!(err.starts_with("meadow: error: "), "{err}");
    assert!(err.contains(mentions), "stderr should mention {mentions:?}: {err}");
    assert!(!err.contains("panicked"), "{err}");
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
    for key in ["polygons", "vertices", "area", "bounds", "settings"] {
        assert!(info.get(key).is_some(), "missing key {key}: {info}");
    }
    assert!(info["polygons"].as_u64().unwrap() > 0);
    assert_eq!(info["settings"]["radius"].as_f64(), Some(0.6));

    let svg = dir.join("rooms.svg");
    let out = meadow(&["render", s(&nav), "-o", s(&svg)]);
    assert!(out.status.success());
    let text = std::fs::read_to_string(&svg).unwrap();
    assert!(text.starts_with("<svg") && text.contains("<polygon") && text.trim_end().ends_with("</svg>"));
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
