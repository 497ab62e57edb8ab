//! `meadow export` (glTF) and `meadow render` (SVG) end to end: the files read back with a
//! glTF reader and an XML parser, and hold what the navmesh holds.

use std::collections::BTreeSet;
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
    let dir = std::env::temp_dir().join(format!("meadow-look-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn ok(out: Output) -> Output {
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    out
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

/// Bakes a fixture level into `dir` with the fixtures' settings; returns the asset's path.
fn bake(dir: &Path, level: &str) -> PathBuf {
    let nav = dir.join(format!("{level}.nav"));
    let path = format!("fixtures/levels/{level}");
    ok(meadow(&["bake", &path, "-o", s(&nav), "--quiet", "--config", "fixtures/levels/meadow.toml"]));
    nav
}

#[test]
fn export_writes_a_glb_any_gltf_reader_opens() {
    let dir = scratch("export");
    let nav = bake(&dir, "links_ladder.glb");
    let mesh = meadow::NavMesh::load(&nav).unwrap();
    let layers: BTreeSet<u16> = mesh.polygons().map(|p| p.layer).collect();
    assert!(layers.len() >= 2 && !mesh.links().is_empty(), "the fixture has two floors and a ladder");

    let glb = dir.join("ladder.glb");
    let out = ok(meadow(&["export", s(&nav), "-o", s(&glb), "--with-level", "fixtures/levels/links_ladder.glb"]));
    assert!(String::from_utf8_lossy(&out.stdout).contains(&format!("{} layers", layers.len())));
    let bytes = std::fs::read(&glb).unwrap();
    let (document, buffers, _) = gltf::import_slice(&bytes).expect("gltf imports the file");
    let names: Vec<&str> = document.nodes().filter_map(|n| n.name()).collect();
    for layer in &layers {
        assert!(names.contains(&format!("layer {layer}").as_str()), "{names:?}");
    }
    assert!(names.contains(&"off-mesh links") && names.contains(&"level"), "{names:?}");
    // Every primitive's indices point at its positions and its material exists.
    let mut modes = BTreeSet::new();
    for mesh in document.meshes() {
        for primitive in mesh.primitives() {
            assert!(primitive.material().index().is_some_and(|m| m < document.materials().count()));
            let reader = primitive.reader(|b| Some(&buffers[b.index()]));
            let count = reader.read_positions().expect("positions").count();
            if let Some(indices) = reader.read_indices() {
                assert!(indices.into_u32().all(|i| (i as usize) < count));
            }
            modes.insert(format!("{:?}", primitive.mode()));
        }
    }
    assert_eq!(modes, BTreeSet::from(["Lines".to_string(), "Triangles".to_string()]));

    // Without the level: no level node, and a smaller file.
    let alone = dir.join("alone.glb");
    ok(meadow(&["export", s(&nav), "-o", s(&alone)]));
    let (document, _, _) = gltf::import(&alone).expect("gltf imports the file");
    assert!(document.nodes().all(|n| n.name() != Some("level")));
    assert!(std::fs::metadata(&alone).unwrap().len() < bytes.len() as u64);
}

#[test]
fn export_bad_inputs_fail_in_one_line_and_keep_the_old_output() {
    let dir = scratch("export-bad");
    let nav = bake(&dir, "rooms.glb");
    let old = dir.join("old.glb");
    std::fs::write(&old, b"previous output").unwrap();
    let truncated = dir.join("truncated.nav");
    std::fs::write(&truncated, &std::fs::read(&nav).unwrap()[..200]).unwrap();

    assert_clean_failure(&meadow(&["export", s(&truncated), "-o", s(&old)]), "truncated");
    assert_clean_failure(&meadow(&["export", "fixtures/levels/rooms.glb", "-o", s(&old)]), "not a Meadow navmesh");
    assert_clean_failure(&meadow(&["export", "no/such.nav", "-o", s(&old)]), "no/such.nav");
    for (level, mentions) in [
        ("fixtures/bad/truncated.glb", "truncated"),
        ("fixtures/bad/not_gltf.glb", "not_gltf.glb"),
        ("fixtures/bad/nan_position.glb", "nan_position.glb"),
        ("no/such/level.glb", "level.glb"),
    ] {
        assert_clean_failure(&meadow(&["export", s(&nav), "-o", s(&old), "--with-level", level]), mentions);
    }
    assert_eq!(std::fs::read(&old).unwrap(), b"previous output", "a failed export must not touch the output");
    let unwritable = dir.join("no/such/dir/out.glb");
    assert_clean_failure(&meadow(&["export", s(&nav), "-o", s(&unwritable)]), "cannot write");
    let files: BTreeSet<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(files, BTreeSet::from(["old.glb", "rooms.glb.nav", "truncated.nav"].map(String::from)));
}
