//! Accessors: sparse substitution, hostile layouts, quantized positions.

use super::*;

#[test]
fn sparse_accessors_substitute_values() {
    let mut doc = Doc::default();
    let base = doc.positions(&SQUARE);
    let base_view = doc.accessors[base]["bufferView"].clone();
    let indices_view = doc.view(&[2u8]);
    let values_view = doc.view(&[5.0f32, 0.0, 7.0].iter().flat_map(|c| c.to_le_bytes()).collect::<Vec<_>>());
    let sparse = json!({"count": 1, "indices": {"bufferView": indices_view, "componentType": 5121},
                        "values": {"bufferView": values_view}});
    let moved = doc.accessor(json!({"bufferView": base_view, "componentType": 5126, "count": 4,
                                    "type": "VEC3", "sparse": sparse}));
    // Without a buffer view the base values are zeros.
    let zeros = doc.accessor(json!({"componentType": 5126, "count": 4, "type": "VEC3", "sparse": sparse}));
    let i = doc.indices(&SQUARE_INDICES, 5123);
    let a = doc.mesh("Moved", json!([{"attributes": {"POSITION": moved}, "indices": i}]));
    let b = doc.mesh("Zeros", json!([{"attributes": {"POSITION": zeros}, "indices": i}]));
    let na = doc.node(json!({"mesh": a}));
    let nb = doc.node(json!({"mesh": b}));
    doc.scene(&[na, nb]);
    let (scene, progress) = doc.ingest().unwrap();
    assert_eq!(scene.triangles[0].vertices[2], [5.0, 0.0, 7.0]);
    assert_eq!(scene.triangles[1].vertices[1], [5.0, 0.0, 7.0]);
    // The zero-based copy has three corners at the origin: both triangles are degenerate.
    assert_eq!(scene.triangles.len(), 2);
    assert_eq!(scene.degenerate_dropped, 2);
    assert_eq!(progress.warnings.len(), 1);
}

#[test]
fn hostile_accessor_layouts_are_typed_errors() {
    type Check = fn(&IngestError) -> bool;
    let cases: Vec<(Value, Check)> = vec![
        (json!({"count": 4_000_000_000u64}), |e| matches!(e, IngestError::AccessorOutOfBounds { .. })),
        (json!({"count": 0}), |e| matches!(e, IngestError::IndexOutOfRange { vertex_count: 0, .. })),
        (json!({"byteOffset": 18_446_744_073_709_551_000u64}), |e| {
            matches!(e, IngestError::AccessorOutOfBounds { .. })
        }),
        (json!({"componentType": 5125}), |e| matches!(e, IngestError::Malformed { .. })),
        (json!({"type": "VEC2"}), |e| matches!(e, IngestError::Malformed { .. })),
        (json!({"componentType": 9999}), |e| matches!(e, IngestError::Malformed { .. })),
        (json!({"bufferView": 99}), |e| matches!(e, IngestError::AccessorOutOfBounds { .. })),
        (json!({"bufferView": null, "count": 1u64 << 40}), |e| matches!(e, IngestError::TooLarge { .. })),
    ];
    for (patch, expected) in cases {
        let (mut doc, mesh) = square_doc();
        for (key, value) in patch.as_object().unwrap() {
            if value.is_null() {
                doc.accessors[0].as_object_mut().unwrap().remove(key);
            } else {
                doc.accessors[0][key] = value.clone();
            }
        }
        let n = doc.node(json!({"mesh": mesh}));
        doc.scene(&[n]);
        let err = doc.ingest().unwrap_err();
        assert!(expected(&err), "{patch}: {err}");
    }
    // Stride shorter than an element, a view past its buffer, float indices.
    let (mut doc, mesh) = square_doc();
    doc.views[0]["byteStride"] = json!(4);
    let n = doc.node(json!({"mesh": mesh}));
    doc.scene(&[n]);
    assert!(matches!(doc.ingest().unwrap_err(), IngestError::AccessorOutOfBounds { .. }));
    doc.views[0]["byteStride"] = json!(12);
    doc.views[0]["byteLength"] = json!(4096);
    assert!(matches!(doc.ingest().unwrap_err(), IngestError::AccessorOutOfBounds { .. }));
    doc.views[0]["byteLength"] = json!(48);
    doc.accessors[1]["componentType"] = json!(5126);
    assert!(matches!(doc.ingest().unwrap_err(), IngestError::Malformed { .. }));
    doc.accessors[1]["componentType"] = json!(5123);
    doc.nodes[0]["rotation"] = json!([0.0, 0.0, 0.0, 0.0]);
    assert!(matches!(doc.ingest().unwrap_err(), IngestError::Malformed { .. }));
    doc.nodes[0]["rotation"] = json!([0.0, 0.0, 0.0, 1.0]);
    assert!(doc.ingest().is_ok());
}

#[test]
fn quantized_positions_are_normalized() {
    let mut doc = Doc::default();
    let raw: Vec<u8> = [[0u16, 0, 0], [0, 0, 65535], [65535, 0, 65535]]
        .iter()
        .flat_map(|p| p.iter().flat_map(|c| c.to_le_bytes()).chain([0, 0]))
        .collect();
    let view = doc.view(&raw);
    doc.views[view]["byteStride"] = json!(8);
    let p = doc.accessor(json!({"bufferView": view, "componentType": 5123, "normalized": true,
                                "count": 3, "type": "VEC3"}));
    let mesh = doc.mesh("Quantized", json!([{"attributes": {"POSITION": p}}]));
    let n = doc.node(json!({"mesh": mesh, "scale": [10.0, 10.0, 10.0]}));
    doc.scene(&[n]);
    let (scene, _) = doc.ingest().unwrap();
    assert_eq!(scene.triangles[0].vertices, [[0.0; 3], [0.0, 0.0, 10.0], [10.0, 0.0, 10.0]]);
}
