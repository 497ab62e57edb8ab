//! `meadow bake` as a build step: `--depfile` lists what a bake read, `--if-changed` skips a
//! level whose inputs, settings and format version are unchanged and re-bakes anything else.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/levels")
}

/// A fresh scratch directory holding copies of two levels (`open_floor.gltf` with its external
/// `open_floor.bin`, and `box_floor.glb`) and the fixture settings.
fn project(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("meadow-build-step-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("levels")).unwrap();
    std::fs::create_dir_all(dir.join("out")).unwrap();
    for file in ["open_floor.gltf", "open_floor.bin", "box_floor.glb"] {
        std::fs::copy(fixtures().join(file), dir.join("levels").join(file)).unwrap();
    }
    std::fs::copy(fixtures().join("meadow.toml"), dir.join("meadow.toml")).unwrap();
    dir
}

/// `meadow bake levels/LEVEL -o out/STEM.nav --config meadow.toml --if-changed --depfile
/// out/STEM.nav.d` in `dir`, as a Makefile rule runs it.
fn bake(dir: &Path, level: &str) -> Output {
    let stem = level.split('.').next().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_meadow"))
        .args(["bake", &format!("levels/{level}"), "-o", &format!("out/{stem}.nav")])
        .args(["--config", "meadow.toml", "--if-changed", "--depfile", &format!("out/{stem}.nav.d")])
        .current_dir(dir)
        .output()
        .expect("run meadow");
    assert!(out.status.success(), "{level}: {}", String::from_utf8_lossy(&out.stderr));
    out
}

/// Bakes both levels; which of them were baked (rather than skipped as up to date).
fn bake_all(dir: &Path) -> Vec<&'static str> {
    let mut baked = Vec::new();
    for level in ["open_floor.gltf", "box_floor.glb"] {
        let out = bake(dir, level);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(stdout.lines().count(), 1, "{stdout}");
        if stdout.starts_with("baked ") {
            baked.push(level);
        } else {
            assert!(stdout.contains("up to date") && stdout.contains("bake skipped"), "{stdout}");
        }
    }
    baked
}

fn append(path: &Path, bytes: &[u8]) {
    let mut data = std::fs::read(path).unwrap();
    data.extend_from_slice(bytes);
    std::fs::write(path, data).unwrap();
}

#[test]
fn depfile_lists_the_level_its_external_buffer_and_the_config() {
    let dir = project("depfile");
    bake(&dir, "open_floor.gltf");
    let text = std::fs::read_to_string(dir.join("out/open_floor.nav.d")).unwrap();
    assert_eq!(
        text,
        "out/open_floor.nav: \\\n  levels/open_floor.gltf \\\n  levels/open_floor.bin \\\n  meadow.toml\n"
    );
    bake(&dir, "box_floor.glb");
    let text = std::fs::read_to_string(dir.join("out/box_floor.nav.d")).unwrap();
    assert_eq!(text, "out/box_floor.nav: \\\n  levels/box_floor.glb \\\n  meadow.toml\n");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn only_changed_levels_are_rebaked() {
    let dir = project("changed");
    assert_eq!(bake_all(&dir), ["open_floor.gltf", "box_floor.glb"]);
    // An unchanged tree re-bakes nothing.
    assert_eq!(bake_all(&dir), Vec::<&str>::new());
    let nav = std::fs::read(dir.join("out/box_floor.nav")).unwrap();
    // Rewriting a file with the same bytes (a `touch`, a checkout) re-bakes nothing either.
    std::fs::write(dir.join("levels/box_floor.glb"), std::fs::read(dir.join("levels/box_floor.glb")).unwrap()).unwrap();
    assert_eq!(bake_all(&dir), Vec::<&str>::new());
    // A changed external buffer re-bakes its level alone (bytes past `byteLength` are allowed).
    append(&dir.join("levels/open_floor.bin"), &[0; 4]);
    assert_eq!(bake_all(&dir), ["open_floor.gltf"]);
    // A changed GLB (bytes after its declared length are ignored, but they are its bytes).
    append(&dir.join("levels/box_floor.glb"), b"    ");
    assert_eq!(bake_all(&dir), ["box_floor.glb"]);
    // The same mesh as before: a skipped bake left the asset alone, a re-bake made the same one.
    let again = std::fs::read(dir.join("out/box_floor.nav")).unwrap();
    assert_eq!(nav[32..], again[32..], "payloads differ");
    assert_ne!(nav[20..32], again[20..32], "the source hash must change with the level's bytes");
    // Changed settings re-bake every level; a comment in the config changes nothing.
    append(&dir.join("meadow.toml"), b"\n# a comment\n");
    assert_eq!(bake_all(&dir), Vec::<&str>::new());
    let config = std::fs::read_to_string(dir.join("meadow.toml")).unwrap().replace("radius = 0.6", "radius = 0.5");
    std::fs::write(dir.join("meadow.toml"), config).unwrap();
    assert_eq!(bake_all(&dir), ["open_floor.gltf", "box_floor.glb"]);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn damaged_foreign_or_old_outputs_are_rebaked_not_trusted() {
    let dir = project("untrusted");
    assert_eq!(bake_all(&dir), ["open_floor.gltf", "box_floor.glb"]);
    let good = std::fs::read(dir.join("out/open_floor.nav")).unwrap();
    let nav = dir.join("out/open_floor.nav");
    let mut flipped = good.clone();
    flipped[40] ^= 0x10;
    let mut old_version = good.clone();
    old_version[8..12].copy_from_slice(&5u32.to_le_bytes());
    let other_level = std::fs::read(dir.join("out/box_floor.nav")).unwrap();
    let cases: [(&str, Vec<u8>); 5] = [
        ("a flipped payload byte", flipped),
        ("a truncated file", good[..good.len() / 2].to_vec()),
        ("not an asset", b"not a navmesh\n".to_vec()),
        ("format version 5", old_version),
        ("another level's asset", other_level),
    ];
    for (what, bytes) in cases {
        std::fs::write(&nav, bytes).unwrap();
        assert_eq!(bake_all(&dir), ["open_floor.gltf"], "{what}");
        assert_eq!(std::fs::read(&nav).unwrap(), good, "{what}: the re-bake restores the asset");
    }
    // An asset written without a source hash (by the library's `save`) is re-baked too.
    let mesh = meadow::NavMesh::from_bytes(&good).unwrap();
    mesh.save(&nav).unwrap();
    assert_eq!(bake_all(&dir), ["open_floor.gltf"]);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `make` on the README's Makefile (`examples/make/Makefile`).
fn make(dir: &Path) -> Option<String> {
    let out = Command::new("make")
        .args(["-j2", &format!("MEADOW={}", env!("CARGO_BIN_EXE_meadow"))])
        .current_dir(dir)
        .output()
        .ok()?;
    assert!(out.status.success(), "make failed: {}", String::from_utf8_lossy(&out.stderr));
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn the_readme_makefile_bakes_a_folder_and_only_what_changed() {
    let dir = project("make");
    std::fs::copy(fixtures().join("../../examples/make/Makefile"), dir.join("Makefile")).unwrap();
    let Some(first) = make(&dir) else {
        eprintln!("SKIPPED: `make` is not installed");
        return;
    };
    let runs = |log: &str| log.lines().filter(|l| l.contains(" bake ")).count();
    assert_eq!(runs(&first), 2, "{first}");
    for asset in ["out/open_floor.nav", "out/box_floor.nav"] {
        meadow::NavMesh::load(dir.join(asset)).unwrap();
    }
    // Nothing changed: make runs nothing.
    assert_eq!(runs(&make(&dir).unwrap()), 0);
    // The external buffer changed: its level alone is re-baked (make learnt of the buffer from
    // the depfile).
    let before = std::fs::read(dir.join("out/open_floor.nav")).unwrap();
    append(&dir.join("levels/open_floor.bin"), &[0; 4]);
    // Make compares modification times: a file system with coarse timestamps can give the
    // buffer the same time as the asset baked a moment ago, so date it clearly later.
    let later = std::time::SystemTime::now() + std::time::Duration::from_secs(2);
    std::fs::File::options().append(true).open(dir.join("levels/open_floor.bin")).unwrap().set_modified(later).unwrap();
    let log = make(&dir).unwrap();
    assert_eq!(runs(&log), 1, "{log}");
    assert!(log.contains("open_floor"), "{log}");
    assert_ne!(std::fs::read(dir.join("out/open_floor.nav")).unwrap(), before);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn info_shows_the_source_hash_a_bake_recorded() {
    let dir = project("info");
    bake(&dir, "box_floor.glb");
    let info = |nav: &str| -> serde_json::Value {
        let out = Command::new(env!("CARGO_BIN_EXE_meadow")).args(["info", nav, "--json"]).current_dir(&dir).output();
        serde_json::from_slice(&out.unwrap().stdout).expect("info --json is JSON")
    };
    let baked = info("out/box_floor.nav");
    let hash = baked["source_hash"].as_str().expect("a recorded hash");
    assert!(hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()), "{hash}");
    assert_eq!(baked["format_version"], meadow::asset::FORMAT_VERSION);
    let mesh = meadow::NavMesh::load(dir.join("out/box_floor.nav")).unwrap();
    mesh.save(dir.join("out/plain.nav")).unwrap();
    assert!(info("out/plain.nav")["source_hash"].is_null());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bake interrupted (Ctrl-C, a killed build agent) leaves the previous asset as it was and no
/// temporary file: the asset is written to a temporary file and renamed only once the bake is
/// done. The test kills with SIGKILL, the harshest interruption and one no environment can
/// ignore (a shell without job control starts background jobs with SIGINT ignored); Ctrl-C's
/// default action ends the process the same way.
#[cfg(unix)]
#[test]
fn an_interrupted_bake_leaves_the_previous_asset_intact() {
    let dir = project("interrupt");
    bake(&dir, "box_floor.glb");
    let previous = std::fs::read(dir.join("out/box_floor.nav")).unwrap();
    // A generated world that takes seconds to bake, over the same output.
    let world = meadow_testkit::world::generate(300_000);
    std::fs::write(dir.join("levels/world.glb"), &world.glb).unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_meadow"))
        .args(["bake", "levels/world.glb", "-o", "out/box_floor.nav", "--quiet"])
        .current_dir(&dir)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("run meadow");
    std::thread::sleep(std::time::Duration::from_millis(700));
    assert!(child.try_wait().unwrap().is_none(), "the bake ended before it could be interrupted");
    child.kill().expect("kill the bake");
    let status = child.wait().unwrap();
    assert!(!status.success(), "an interrupted bake does not succeed: {status:?}");
    assert_eq!(std::fs::read(dir.join("out/box_floor.nav")).unwrap(), previous, "the previous asset changed");
    let names: Vec<String> = std::fs::read_dir(dir.join("out"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.contains(".tmp-")), "a temporary file was left: {names:?}");
    std::fs::remove_dir_all(&dir).ok();
}
