//! Tiled bakes on the command line: `--tile-size`, `--update` after moving a prop (the same bytes
//! as a full bake), `--tiles` quarter bakes merged by `meadow merge` (the same bytes again), and
//! the errors of impossible tile settings.

use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn meadow(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_meadow")).args(args).current_dir(dir).output().expect("run meadow")
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let out = meadow(dir, args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Runs a command that must fail with `code`; its stderr, one line.
fn fails(dir: &Path, args: &[&str], code: i32) -> String {
    let out = meadow(dir, args);
    assert_eq!(out.status.code(), Some(code), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    err
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("meadow-cli-tiles-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// `glb` with node `name` moved by `dx` along x (its translation, created if absent).
fn move_node(glb: &[u8], name: &str, dx: f64) -> Vec<u8> {
    let json_len = u32::from_le_bytes(glb[12..16].try_into().unwrap()) as usize;
    let mut json: Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin_start = 20 + json_len;
    let bin_len = u32::from_le_bytes(glb[bin_start..bin_start + 4].try_into().unwrap()) as usize;
    let bin = &glb[bin_start + 8..bin_start + 8 + bin_len];
    let node = json["nodes"].as_array_mut().unwrap().iter_mut().find(|n| n["name"] == name).expect("node");
    let t = node["translation"].as_array().map_or([0.0; 3], |a| [0, 1, 2].map(|k| a[k].as_f64().unwrap()));
    node["translation"] = serde_json::json!([t[0] + dx, t[1], t[2]]);
    meadow_testkit::gltf::glb(&serde_json::to_vec(&json).unwrap(), Some(bin))
}

#[test]
fn update_and_merge_give_the_bytes_of_a_full_bake() {
    let dir = scratch("update");
    let world = meadow_testkit::world::generate(20_000);
    std::fs::write(dir.join("w.glb"), &world.glb).unwrap();
    let out = ok(&dir, &["bake", "w.glb", "-o", "full.nav", "--tile-size", "32"]);
    assert!(out.contains("tiles of 32 m"), "{out}");
    let info = ok(&dir, &["info", "full.nav"]);
    assert!(info.lines().any(|l| l.starts_with("tiles ") && l.contains("of 32 m")), "{info}");

    // Nothing changed: every tile is taken, the bytes stay.
    let before = std::fs::read(dir.join("full.nav")).unwrap();
    let out = ok(&dir, &["bake", "w.glb", "-o", "full.nav", "--tile-size", "32", "--update"]);
    assert!(out.contains("update: 0 of "), "{out}");
    assert_eq!(std::fs::read(dir.join("full.nav")).unwrap(), before);

    // One prop moved: a few tiles re-baked, the bytes of a full bake.
    let prop = {
        let json_len = u32::from_le_bytes(world.glb[12..16].try_into().unwrap()) as usize;
        let json: Value = serde_json::from_slice(&world.glb[20..20 + json_len]).unwrap();
        let nodes = json["nodes"].as_array().unwrap();
        nodes.iter().find_map(|n| n["name"].as_str().filter(|s| s.starts_with("crate_"))).unwrap().to_string()
    };
    std::fs::write(dir.join("w.glb"), move_node(&world.glb, &prop, 1.5)).unwrap();
    std::fs::copy(dir.join("full.nav"), dir.join("updated.nav")).unwrap();
    let out = ok(&dir, &["bake", "w.glb", "-o", "updated.nav", "--tile-size", "32", "--update"]);
    let rebaked: usize = out.split("update: ").nth(1).and_then(|s| s.split(' ').next()).unwrap().parse().unwrap();
    assert!((1..=4).contains(&rebaked), "{out}");
    ok(&dir, &["bake", "w.glb", "-o", "full2.nav", "--tile-size", "32"]);
    let full = std::fs::read(dir.join("full2.nav")).unwrap();
    assert_ne!(full, before);
    assert_eq!(std::fs::read(dir.join("updated.nav")).unwrap(), full, "--update differs from a full bake");

    // Four quarters, merged in any order: the bytes of the full bake, header included.
    let quarters = ["..0,..0", "0..,..0", "..0,0..", "0..,0.."];
    for (k, q) in quarters.iter().enumerate() {
        let part = format!("part{k}.nav");
        let out = ok(&dir, &["bake", "w.glb", "-o", &part, "--tile-size", "32", &format!("--tiles={q}")]);
        assert!(out.contains("partial"), "{out}");
    }
    let out = ok(&dir, &["merge", "part3.nav", "part1.nav", "part0.nav", "part2.nav", "-o", "merged.nav"]);
    assert!(out.starts_with("merged 4 parts"), "{out}");
    assert_eq!(std::fs::read(dir.join("merged.nav")).unwrap(), full, "merged quarters differ from a full bake");

    // A missing quarter, or a full asset among the parts, is refused in one line.
    let err = fails(&dir, &["merge", "part0.nav", "part1.nav", "part2.nav", "-o", "bad.nav"], 1);
    assert!(err.contains("in 0 parts"), "{err}");
    let err = fails(&dir, &["merge", "part0.nav", "full2.nav", "-o", "bad.nav"], 1);
    assert!(err.contains("full2.nav") && err.contains("not a partial asset"), "{err}");
    assert!(!dir.join("bad.nav").exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn impossible_tile_settings_are_one_line_errors() {
    let dir = scratch("errors");
    let level = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/levels/rooms.glb");
    let level = level.to_str().unwrap();
    // Below 4 x the radius.
    let err = fails(&dir, &["bake", level, "-o", "x.nav", "--tile-size", "1"], 1);
    assert!(err.contains("tile_size") && err.contains("4 x radius"), "{err}");
    // Partial bakes need tiles.
    let err = fails(&dir, &["bake", level, "-o", "x.nav", "--tiles", "0..2,0..2"], 1);
    assert!(err.contains("--tile-size"), "{err}");
    // A range that is not one, or holds no tile.
    for bad in ["0..2", "a..b,0..1", "3..3,0..1", "0..=,0..1"] {
        let err = fails(&dir, &["bake", level, "-o", "x.nav", "--tile-size", "4", &format!("--tiles={bad}")], 2);
        assert!(err.contains("--tiles"), "{bad}: {err}");
    }
    // Too many tiles: a 300 m floor in 1 m tiles is 90,000 of them.
    let positions = meadow_testkit::gltf::f32_bytes(&[
        [0.0f32, 0.0, 0.0],
        [0.0, 0.0, 300.0],
        [300.0, 0.0, 300.0],
        [300.0, 0.0, 0.0],
    ]);
    let json = serde_json::json!({
        "asset": {"version": "2.0"},
        "scene": 0,
        "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "Floor", "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "buffers": [{"byteLength": 56}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": 48}, {"buffer": 0, "byteOffset": 48, "byteLength": 6}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 4, "type": "VEC3", "min": [0, 0, 0], "max": [300, 0, 300]},
            {"bufferView": 1, "componentType": 5123, "count": 3, "type": "SCALAR"}
        ]
    });
    let mut bin = positions;
    bin.extend_from_slice(&[0, 0, 1, 0, 2, 0, 0, 0]);
    std::fs::write(dir.join("big.glb"), meadow_testkit::gltf::glb(&serde_json::to_vec(&json).unwrap(), Some(&bin)))
        .unwrap();
    let err = fails(&dir, &["bake", "big.glb", "-o", "x.nav", "--tile-size", "1", "--radius", "0.2"], 1);
    assert!(err.contains("tiles") && err.contains("65536"), "{err}");
    assert!(!dir.join("x.nav").exists());
    // The smallest tile allowed on a normal level bakes.
    ok(&dir, &["bake", level, "-o", "x.nav", "--tile-size", "2.4", "-q"]);
    std::fs::remove_dir_all(&dir).ok();
}
