//! Bakes every fixture level, and every third-party level when present beside the repository,
//! under several settings, and prints one digest line per asset: the proof that a refactor left
//! the bake's output byte-identical.
//!
//! ```sh
//! git checkout BEFORE && cargo run --release -p meadow-suite --bin asset_digests > before.txt
//! git checkout AFTER  && cargo run --release -p meadow-suite --bin asset_digests > after.txt
//! diff before.txt after.txt && echo byte-identical
//! ```

use meadow_bake::{BakeSettings, NoProgress};
use std::path::{Path, PathBuf};

/// The settings each level is baked with: the defaults and the corners that take other branches
/// of the pipeline (point agent, no edge splitting, triangles only, a wide agent).
fn settings_variants() -> Vec<(&'static str, BakeSettings)> {
    let with = |change: fn(&mut BakeSettings)| {
        let mut s = BakeSettings::DEFAULT;
        change(&mut s);
        s
    };
    vec![
        ("default", BakeSettings::DEFAULT),
        ("point", with(|s| s.radius = 0.0)),
        ("fuzz-small", meadow_suite::fuzzing::small_settings()),
        (
            "tri-only",
            with(|s| {
                s.max_verts_per_poly = 3;
                s.max_edge_length = 2.0;
            }),
        ),
        (
            "wide",
            with(|s| {
                s.radius = 1.2;
                s.height = 2.5;
                s.max_climb = 0.6;
                s.max_slope = 30.0;
            }),
        ),
    ]
}

fn levels_in(dir: &Path) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> =
        std::fs::read_dir(dir).map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect()).unwrap_or_default();
    out.retain(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("glb" | "gltf")));
    out.sort();
    out
}

fn main() {
    let root = meadow_suite::repo_root();
    let mut levels: Vec<(String, PathBuf)> = levels_in(&root.join("fixtures/levels"))
        .into_iter()
        .map(|p| (p.strip_prefix(&root).unwrap_or(&p).display().to_string(), p))
        .collect();
    match meadow_suite::shared_dir() {
        Some(shared) => {
            for d in ["levels/gltf", "levels/gltf/original", "levels/recast"] {
                for p in levels_in(&shared.join(d)) {
                    levels.push((format!("shared/{}", p.strip_prefix(&shared).unwrap_or(&p).display()), p));
                }
            }
        }
        None => eprintln!("asset_digests: third-party levels absent; fixtures only"),
    }
    for (name, path) in &levels {
        let scene = match meadow_bake::ingest::ingest_file(path, &mut NoProgress) {
            Ok(scene) => scene,
            Err(e) => {
                println!("ingest-error {name}: {e}");
                continue;
            }
        };
        for (label, settings) in settings_variants() {
            match meadow_bake::bake(&scene, &settings, &mut NoProgress) {
                Ok(mesh) => {
                    let bytes = mesh.to_bytes();
                    println!("{:016x} {:>9} {name} {label}", meadow_bake::fingerprint::hash_bytes(&bytes), bytes.len());
                }
                Err(e) => println!("bake-error {name} {label}: {e}"),
            }
        }
    }
}
