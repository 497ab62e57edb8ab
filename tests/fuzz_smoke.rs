//! The fuzz targets' mutators, run for a few seconds on stable Rust in every `cargo test`: a few
//! thousand seeded structure-aware mutations of baked assets (header recomputed, so the
//! validator behind the checksum sees them) and of the fixture levels. No input may panic, and
//! no query may return a non-finite number. Also replays `fixtures/regressions/`.

use meadow_suite::fuzzing::{check_asset, check_level, mutate_asset, mutate_level, Outcome};
use std::time::{Duration, Instant};

/// Wall-clock cap per mutator (the counts below normally finish well within it).
const TIME_CAP: Duration = Duration::from_secs(20);

fn fixture_levels() -> Vec<Vec<u8>> {
    ["box_floor.glb", "rooms.glb", "table.glb", "ramps.glb", "tagged.glb"]
        .iter()
        .map(|name| std::fs::read(meadow_suite::level(name)).expect("fixture level"))
        .collect()
}

fn run(seeds: &[Vec<u8>], count: u64, mutate: fn(&[u8], u64) -> Vec<u8>, check: fn(&[u8]) -> Outcome) -> (u64, u64) {
    let started = Instant::now();
    let (mut runs, mut accepted) = (0u64, 0u64);
    // Each mutant is also mutated again (depth 2), as a fuzzer's corpus grows.
    for i in 0..count {
        let seed = &seeds[(i % seeds.len() as u64) as usize];
        let once = mutate(seed, i);
        let input = if i % 3 == 0 { mutate(&once, i ^ 0x5EED) } else { once };
        let outcome = check(&input);
        assert_eq!(outcome.non_finite, 0, "mutation {i}: a query returned a non-finite number");
        runs += 1;
        accepted += u64::from(outcome.accepted);
        if started.elapsed() > TIME_CAP {
            break;
        }
    }
    (runs, accepted)
}

#[test]
fn asset_mutations_never_panic_or_return_non_finite_numbers() {
    let settings = meadow_suite::fuzzing::small_settings();
    let seeds: Vec<Vec<u8>> = ["box_floor.glb", "rooms.glb", "table.glb"]
        .iter()
        .map(|name| meadow_bake::bake_file(meadow_suite::level(name), &settings).expect("fixture bakes").to_bytes())
        .collect();
    for seed in &seeds {
        assert!(check_asset(seed).accepted && check_asset(seed).queries > 0);
    }
    let (runs, accepted) = run(&seeds, 6000, mutate_asset, check_asset);
    println!("asset mutations: {runs} run, {accepted} loaded");
    assert!(runs >= 500, "only {runs} mutations within {TIME_CAP:?}");
    assert!(accepted > 0, "some mutants pass validation (e.g. moved vertices), so queries are exercised");
}

#[test]
fn level_mutations_never_panic_or_return_non_finite_numbers() {
    let seeds = fixture_levels();
    let (runs, accepted) = run(&seeds, 3000, mutate_level, check_level);
    println!("level mutations: {runs} run, {accepted} baked");
    assert!(runs >= 200, "only {runs} mutations within {TIME_CAP:?}");
    assert!(accepted > 0);
}

#[test]
fn regression_inputs_stay_fixed() {
    let dir = meadow_suite::fixtures_dir().join("regressions");
    for entry in std::fs::read_dir(&dir).expect("fixtures/regressions") {
        let path = entry.unwrap().path();
        if path.is_dir() {
            continue;
        }
        let bytes = std::fs::read(&path).unwrap();
        let outcome = match path.extension().and_then(|e| e.to_str()) {
            Some("nav") => check_asset(&bytes),
            Some("glb" | "gltf") => check_level(&bytes),
            _ => continue,
        };
        assert_eq!(outcome.non_finite, 0, "{}", path.display());
    }
}

/// Most vertices a sheared-sliver level's mesh may have: about twice the largest seen (4,342).
const MAX_SLIVER_MESH_VERTICES: usize = 10_000;

/// Levels whose wall quads and blockers mutation sheared into kilometre-long, nearly parallel
/// slivers (fuzz finds, see `fixtures/regressions/README.md`). Their unions once snapped and
/// re-split for dozens of passes (28,000 points from 17 wall quads, 1.4-6.9 s per level in
/// release, see the unit test `overlay::tests`): now each either bakes to a small mesh or stops
/// at a work budget, with a typed error.
#[test]
fn sheared_sliver_levels_bake_small_or_stop_at_a_budget() {
    let dir = meadow_suite::fixtures_dir().join("regressions");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("fixtures/regressions") {
        let path = entry.unwrap().path();
        if !path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.contains("sheared-sliver")) {
            continue;
        }
        seen += 1;
        let bytes = std::fs::read(&path).unwrap();
        let scene = meadow_bake::ingest::ingest_slice(&bytes, &path, &mut meadow_bake::NoProgress).expect("reads");
        let settings = meadow_suite::fuzzing::small_settings();
        match meadow_bake::bake(&scene, &settings, &mut meadow_bake::NoProgress) {
            Ok(mesh) => {
                let vertices = mesh.vertices().len();
                assert!(vertices <= MAX_SLIVER_MESH_VERTICES, "{}: {vertices} vertices", path.display());
            }
            Err(e) => assert!(
                matches!(e, meadow_bake::BakeError::Budget(_) | meadow_bake::BakeError::Region(_)),
                "{}: {e}",
                path.display()
            ),
        }
    }
    assert!(seen >= 9, "only {seen} sheared-sliver levels in fixtures/regressions");
}
