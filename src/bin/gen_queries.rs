//! Writes `fixtures/queries/<level>.json`: for every fixture level, baked with the default
//! settings, a seeded set of start/goal pairs on the mesh and the path length of each path style.
//! `tests/query_fixtures.rs` re-runs them, so any change in bake or query shows up.
//!
//! Run with `cargo run --release -p meadow-suite --bin gen_queries`; the output is deterministic.

use meadow::query::{PathOptions, PathQuery, PathStyle, QueryFilter, QueryMesh, SplitMix64};
use meadow::BakeSettings;
use serde_json::{json, Value};
use std::path::Path;

/// Start/goal pairs per level.
const PAIRS: usize = 30;

/// The styles, by the key they have in the JSON files.
const STYLES: [(&str, PathStyle); 3] =
    [("midpoints", PathStyle::Midpoints), ("meadow", PathStyle::MeadowRefined), ("funnel", PathStyle::StringPulled)];

/// A seed from the level's file name (FNV-1a), so adding a level leaves the others' pairs alone.
fn seed(name: &str) -> u64 {
    meadow_bake::fingerprint::hash_bytes(name.as_bytes())
}

fn queries_for(path: &Path, name: &str) -> Result<Value, String> {
    let nav = meadow_bake::bake_file(path, &BakeSettings::DEFAULT).map_err(|e| format!("{name}: bake: {e}"))?;
    let mesh = QueryMesh::new(nav);
    let mut query = PathQuery::new(&mesh);
    let filter = QueryFilter::new();
    let mut rng = SplitMix64::new(seed(name));
    let mut out = Vec::with_capacity(PAIRS);
    for _ in 0..PAIRS {
        let (Some(from), Some(to)) = (mesh.random_point(&mut rng), mesh.random_point(&mut rng)) else {
            return Err(format!("{name}: the navmesh is empty"));
        };
        let (from, to) = (from.point, to.point);
        let mut lengths = serde_json::Map::new();
        let mut found = None;
        for (key, style) in STYLES {
            let options = PathOptions { style, ..PathOptions::default() };
            let mut p = meadow::query::Path::default();
            let r = query.find_path_into(&mesh, from, to, &filter, options, &mut p);
            let ok = r.is_ok();
            if *found.get_or_insert(ok) != ok {
                return Err(format!("{name}: styles disagree on whether {from:?} -> {to:?} has a path"));
            }
            lengths.insert(key.to_string(), if ok { json!(p.length) } else { Value::Null });
        }
        out.push(json!({ "from": from, "to": to, "found": found == Some(true), "lengths": lengths }));
    }
    Ok(Value::Array(out))
}

fn main() {
    let dir = meadow_suite::fixtures_dir().join("queries");
    if let Err(e) = std::fs::create_dir_all(&dir) {
        eprintln!("gen_queries: cannot create {}: {e}", dir.display());
        std::process::exit(1);
    }
    let mut failed = false;
    for path in meadow_suite::fixture_levels() {
        let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
        let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
        match queries_for(&path, name) {
            Ok(value) => {
                let found = value.as_array().map_or(0, |a| a.iter().filter(|q| q["found"] == true).count());
                // One query per line: diffs after a regeneration show which queries changed.
                let lines: Vec<String> = value.as_array().into_iter().flatten().map(Value::to_string).collect();
                let text = format!("[\n{}\n]\n", lines.join(",\n"));
                let file = dir.join(format!("{stem}.json"));
                if let Err(e) = std::fs::write(&file, text) {
                    eprintln!("gen_queries: cannot write {}: {e}", file.display());
                    failed = true;
                } else {
                    println!("{}: {PAIRS} queries, {found} found", file.display());
                }
            }
            Err(e) => {
                eprintln!("gen_queries: {e}");
                failed = true;
            }
        }
    }
    if failed {
        std::process::exit(1);
    }
}
