//! Hostile levels through the real glTF path (ingest, then bake): regressions of the
//! hostile-input report.

use meadow_testkit::gltf::glb;
use serde_json::json;

/// A GLB with one node whose POSITION accessor holds `positions` as raw (not normalised)
/// unsigned 16-bit integers, non-indexed.
fn raw_u16_level(positions: &[[u16; 3]]) -> Vec<u8> {
    let mut bin: Vec<u8> = positions.iter().flatten().flat_map(|c| c.to_le_bytes()).collect();
    bin.resize(bin.len().next_multiple_of(4), 0);
    let gltf = json!({
        "asset": {"version": "2.0"}, "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [{"name": "Soup", "mesh": 0}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}}]}],
        "buffers": [{"byteLength": bin.len()}],
        "bufferViews": [{"buffer": 0, "byteOffset": 0, "byteLength": bin.len()}],
        "accessors": [{"bufferView": 0, "componentType": 5123, "normalized": false,
                       "count": positions.len(), "type": "VEC3"}],
    });
    glb(&serde_json::to_vec(&gltf).unwrap(), Some(&bin))
}

/// Regression: a 31 KB level whose position accessor was mutated to 16-bit integers (positions
/// up to about 65 km) drove the bake past 24 GB until the OOM killer ended it. Now it fails
/// within seconds with the region-vertex budget named.
#[test]
fn a_level_of_raw_u16_positions_fails_fast_naming_the_budget() {
    let mut state = 0x5EEDu64;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 48) as u16
    };
    let positions: Vec<[u16; 3]> = (0..4500).map(|_| [next(), next(), next()]).collect();
    let bytes = raw_u16_level(&positions);
    assert!(bytes.len() < 32 * 1024, "{} bytes", bytes.len());
    let started = std::time::Instant::now();
    let scene = meadow_bake::ingest::ingest_slice(&bytes, "soup.glb".as_ref(), &mut meadow_bake::NoProgress)
        .expect("within the coordinate contract, the level reads");
    let result = meadow_bake::bake(&scene, &meadow::BakeSettings::DEFAULT, &mut meadow_bake::NoProgress);
    let message = match result {
        Ok(mesh) => panic!("expected a budget error, baked {} polygons", mesh.polygon_count()),
        Err(e) => e.to_string(),
    };
    assert!(message.contains("budget `max_region_vertices`"), "{message}");
    assert!(started.elapsed().as_secs() < 20, "{:?}", started.elapsed());
}
