//! Bakes the game's levels into navmesh assets in `OUT_DIR`, and tells Cargo to bake again
//! when a level, one of its buffers or the settings change.

use meadow_bake::{BakeSettings, NoProgress};
use std::error::Error;
use std::path::PathBuf;

/// The levels: asset name and glTF file (relative to this crate).
const LEVELS: [(&str, &str); 2] = [
    // A .gltf whose geometry is in an external open_floor.bin buffer.
    ("open_floor", "../../fixtures/levels/open_floor.gltf"),
    ("rooms", "../../fixtures/levels/rooms.glb"),
];

fn main() -> Result<(), Box<dyn Error>> {
    let crate_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);

    let config = crate_dir.join("navmesh.toml");
    println!("cargo:rerun-if-changed={}", config.display());
    let settings: BakeSettings = toml::from_str(&std::fs::read_to_string(&config)?)?;

    for (name, level) in LEVELS {
        let scene = meadow_bake::ingest::ingest_file(&crate_dir.join(level), &mut NoProgress)?;
        // Every file the ingest read: the level and its external buffers.
        for input in &scene.inputs {
            println!("cargo:rerun-if-changed={}", input.path.display());
        }
        let mesh = meadow_bake::bake(&scene, &settings, &mut NoProgress)?;
        mesh.save(out_dir.join(format!("{name}.nav")))?;
    }
    Ok(())
}
