//! End-to-end: the baked corner visibility graph of every fixture level equals the testkit's
//! brute-force graph, is the same for any thread count (as is the whole asset), and is absent
//! when switched off.

use meadow::{BakeSettings, NavMesh};
use meadow_suite::*;
use meadow_testkit::visibility::naive_graph;
use std::path::{Path, PathBuf};

fn bake(path: &Path, s: &BakeSettings) -> NavMesh {
    meadow_bake::bake_file(path, s).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn check_against_oracle(path: &Path) {
    let mesh = bake(path, &BakeSettings::DEFAULT);
    let baked = mesh.visibility().unwrap_or_else(|| panic!("{}: no visibility graph", path.display()));
    let naive = naive_graph(&mesh);
    assert_eq!(baked.corners, naive.corners, "{}: corners", path.display());
    assert_eq!(baked.polygons, naive.polygons, "{}: corner polygons", path.display());
    assert_eq!(baked, &naive, "{}: edges", path.display());
}

/// The third-party `.glb` levels (`levels/gltf`, then `levels/recast`), each folder sorted;
/// absent data fails the test.
fn third_party_levels() -> Vec<PathBuf> {
    third_party_dir();
    meadow_suite::shared_glb_levels()
}

#[test]
fn fixture_graphs_equal_the_brute_force_graph() {
    let levels = fixture_levels();
    assert!(!levels.is_empty());
    for path in levels {
        check_against_oracle(&path);
    }
}

#[test]
#[ignore = "needs the third-party levels"]
fn third_party_graphs_equal_the_brute_force_graph() {
    for path in third_party_levels() {
        check_against_oracle(&path);
    }
}

/// Whether baking `path` gives the same bytes on 1, 2 and 4 rayon threads (layers of the region
/// stage and the visibility graph's rows run in parallel).
fn check_thread_counts(path: &Path) {
    let with = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| bake(path, &BakeSettings::DEFAULT).to_bytes())
    };
    let one = with(1);
    for threads in [2, 4] {
        assert!(one == with(threads), "{}: output differs on {threads} threads", path.display());
    }
}

#[test]
fn assets_are_byte_identical_for_any_thread_count() {
    for path in fixture_levels() {
        check_thread_counts(&path);
    }
}

#[test]
#[ignore = "needs the third-party levels"]
fn third_party_assets_are_byte_identical_for_any_thread_count() {
    for path in third_party_levels() {
        check_thread_counts(&path);
    }
}

#[test]
fn no_visibility_setting_bakes_no_graph() {
    let path = &fixture_levels()[0];
    let mut s = BakeSettings::DEFAULT;
    s.visibility = false;
    let off = bake(path, &s);
    assert_eq!(off.visibility(), None);
    let on = bake(path, &BakeSettings::DEFAULT);
    assert!(on.visibility().is_some());
    // Everything but the graph and the setting is the same.
    let mut data = on.into_data();
    data.visibility = None;
    data.settings.visibility = false;
    assert_eq!(&data, off.data());
}
