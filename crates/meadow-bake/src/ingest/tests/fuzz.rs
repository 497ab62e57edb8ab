//! Property tests: corrupted GLB bytes and hostile JSON numbers never make the reader panic.

use super::*;
use proptest::prelude::*;

fn sample_doc() -> Doc {
    let (mut doc, mesh) = square_doc();
    let strip = doc.mesh("Strip", json!([{"attributes": {"POSITION": 0}, "mode": 5}]));
    let indices_view = doc.view(&[1u8, 3]);
    let values_view =
        doc.view(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].iter().flat_map(|c| c.to_le_bytes()).collect::<Vec<_>>());
    let sparse = doc.accessor(json!({"bufferView": 0, "byteOffset": 0, "componentType": 5126, "count": 4,
        "type": "VEC3", "sparse": {"count": 2, "indices": {"bufferView": indices_view, "componentType": 5121},
        "values": {"bufferView": values_view, "byteOffset": 0}}}));
    let fan = doc.mesh("Fan", json!([{"attributes": {"POSITION": sparse}, "indices": 1, "mode": 6}]));
    let child = doc.node(json!({"name": "C", "mesh": strip, "scale": [-1.0, 1.0, 1.0],
                                "extras": {"area": "grass", "cost": 2.0}}));
    let grandchild = doc.node(json!({"name": "G", "mesh": fan, "matrix": [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
                                      0.0, 0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 1.0]}));
    doc.nodes[child]["children"] = json!([grandchild]);
    let n = doc.node(json!({"mesh": mesh, "children": [child], "extras": {"navmesh": "walkable",
                            "navmesh_link": {"to": "C"}}}));
    doc.scene(&[n]);
    doc
}

fn sample() -> Vec<u8> {
    sample_doc().glb()
}

#[test]
fn the_fuzz_sample_itself_is_a_valid_level() {
    let (scene, _) = sample_doc().ingest().unwrap();
    // Square 2 + strip 2 + fan of 6 indices 4, all under the walkable root.
    assert_eq!(scene.triangles.len() + scene.degenerate_dropped, 8);
    assert!(scene.triangles.len() >= 6);
    assert_eq!(scene.links.len(), 1);
    assert!(scene.triangles.iter().all(|t| t.tag == NavTag::Walkable));
}

/// Paths (object keys and array positions) of every number in a JSON value.
fn number_paths(value: &Value, path: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match value {
        Value::Number(_) => out.push(path.clone()),
        Value::Array(items) => {
            for (k, item) in items.iter().enumerate() {
                path.push(json!(k));
                number_paths(item, path, out);
                path.pop();
            }
        }
        Value::Object(map) => {
            for (key, item) in map {
                path.push(json!(key));
                number_paths(item, path, out);
                path.pop();
            }
        }
        _ => {}
    }
}

fn at_path<'v>(value: &'v mut Value, path: &[Value]) -> &'v mut Value {
    path.iter().fold(value, |v, step| match step {
        Value::String(key) => &mut v[key.as_str()],
        step => &mut v[step.as_u64().unwrap() as usize],
    })
}

fn hostile_number() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => (0u64..8).prop_map(|v| json!(v)),
        1 => Just(json!(0)),
        1 => Just(json!(u32::MAX)),
        1 => Just(json!(u64::MAX)),
        1 => Just(json!(1u64 << 31)),
        1 => Just(json!(-1)),
        1 => Just(json!(0.5)),
        1 => Just(json!(-3.0e38)),
        1 => (0u64..100_000).prop_map(|v| json!(v)),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    /// Corrupted files give errors or scenes, never a panic (which would surface as
    /// `Internal`).
    #[test]
    fn corrupted_glb_never_panics(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        cut in any::<prop::sample::Index>(),
        truncate in any::<bool>(),
    ) {
        let mut bytes = sample();
        for (at, value) in edits {
            let i = at.index(bytes.len());
            bytes[i] = value;
        }
        if truncate {
            bytes.truncate(cut.index(bytes.len()));
        }
        let result = ingest_slice(&bytes, Path::new("fuzz.glb"), &mut NoProgress);
        prop_assert!(!matches!(result, Err(IngestError::Internal { .. })), "{:?}", result.err());
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    /// Hostile numbers in the JSON (indices, offsets, counts, strides, modes, component
    /// types, transforms) give errors or scenes, never a panic.
    #[test]
    fn hostile_json_numbers_never_panic(
        edits in proptest::collection::vec((any::<prop::sample::Index>(), hostile_number()), 1..6),
    ) {
        let doc = sample_doc();
        let mut root = doc.json();
        let mut paths = Vec::new();
        number_paths(&root, &mut Vec::new(), &mut paths);
        for (at, number) in edits {
            let path = &paths[at.index(paths.len())];
            *at_path(&mut root, path) = number;
        }
        let result = ingest_slice(&glb(&root, &doc.bin), Path::new("fuzz.glb"), &mut NoProgress);
        prop_assert!(!matches!(result, Err(IngestError::Internal { .. })), "{:?}", result.err());
    }
}
