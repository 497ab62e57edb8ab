//! Bakes every fixture level, and every third-party level when present beside the repository,
//! under several settings, and prints one digest line per asset: the proof that a refactor left
//! the bake's output byte-identical.
//!
//! ```sh
//! git checkout BEFORE && cargo run --release -p meadow-suite --bin asset_digests > before.txt
//! git checkout AFTER  && cargo run --release -p meadow-suite --bin asset_digests > after.txt
//! diff before.txt after.txt && echo byte-identical
//! ```

use meadow_bake::NoProgress;

fn main() {
    let levels = meadow_suite::all_levels();
    if meadow_suite::shared_dir().is_none() {
        eprintln!("asset_digests: third-party levels absent; fixtures only");
    }
    for (name, path) in &levels {
        let scene = match meadow_bake::ingest::ingest_file(path, &mut NoProgress) {
            Ok(scene) => scene,
            Err(e) => {
                println!("ingest-error {name}: {e}");
                continue;
            }
        };
        for (label, settings) in meadow_suite::settings_variants() {
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
