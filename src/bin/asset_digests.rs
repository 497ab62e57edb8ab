//! Bakes every fixture level, and every third-party level when present beside the repository,
//! under several settings, and prints one digest line per asset: the proof that a refactor left
//! the bake's output byte-identical. The third column digests the visibility graph alone
//! (`-` when the asset has none), so a change of the asset layout still shows whether the graph
//! changed.
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
                    let graph = mesh.visibility().map_or("-".to_string(), |g| {
                        let mut raw = Vec::new();
                        for list in [&g.corners, &g.polygons, &g.first_edge, &g.targets] {
                            raw.extend(list.len().to_le_bytes());
                            raw.extend(list.iter().flat_map(|x| x.to_le_bytes()));
                        }
                        raw.extend(g.lengths.iter().flat_map(|x| x.to_bits().to_le_bytes()));
                        format!("{:016x}", meadow_bake::fingerprint::hash_bytes(&raw))
                    });
                    let digest = meadow_bake::fingerprint::hash_bytes(&bytes);
                    println!("{digest:016x} {:>9} {graph:>16} {name} {label}", bytes.len());
                }
                Err(e) => println!("bake-error {name} {label}: {e}"),
            }
        }
    }
}
