//! Containers: GLB chunk errors, missing BIN chunk, required extensions, external buffers.

use super::*;

#[test]
fn container_errors_are_typed() {
    let (mut doc, mesh) = square_doc();
    let n = doc.node(json!({"mesh": mesh}));
    doc.scene(&[n]);
    let good = doc.glb();
    assert!(ingest_glb(&good).is_ok());
    let err = |bytes: &[u8]| ingest_glb(bytes).unwrap_err();
    assert!(matches!(err(&good[..8]), IngestError::TruncatedGlb { expected: 12, actual: 8, .. }));
    assert!(matches!(err(&good[..good.len() - 1]), IngestError::TruncatedGlb { .. }));
    let mut long_chunk = good.clone();
    long_chunk[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(err(&long_chunk), IngestError::TruncatedGlb { .. }));
    let mut version1 = good.clone();
    version1[4] = 1;
    assert!(matches!(err(&version1), IngestError::NotGltf { .. }));
    assert!(matches!(err(b""), IngestError::NotGltf { .. }));
    assert!(matches!(err(b"\x89PNG\r\n"), IngestError::NotGltf { .. }));
    assert!(matches!(err(b"{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [1, 2"), IngestError::NotGltf { .. }));
    assert!(matches!(err(b"{\"nodes\": []}"), IngestError::NotGltf { .. }));
    // A buffer without uri needs the BIN chunk.
    let no_bin = glb(&doc.json(), &[]);
    assert!(matches!(err(&no_bin), IngestError::Malformed { .. }));
    // Draco-compressed geometry is refused up front.
    let mut draco = doc.json();
    draco["extensionsRequired"] = json!(["KHR_draco_mesh_compression"]);
    assert!(matches!(err(&glb(&draco, &doc.bin)), IngestError::UnsupportedExtension { .. }));
}

#[test]
fn external_buffers_resolve_next_to_the_file() {
    let dir = std::env::temp_dir().join(format!("meadow-ingest-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut doc, mesh) = square_doc();
    let n = doc.node(json!({"mesh": mesh}));
    doc.scene(&[n]);
    let mut json = doc.json();
    json["buffers"][0]["uri"] = json!("my%20level.bin");
    let gltf = dir.join("level.gltf");
    std::fs::write(&gltf, serde_json::to_vec(&json).unwrap()).unwrap();
    let err = ingest_file(&gltf, &mut NoProgress).unwrap_err();
    assert!(matches!(&err, IngestError::MissingBuffer { file, .. } if file.ends_with("my level.bin")), "{err}");
    std::fs::write(dir.join("my level.bin"), &doc.bin).unwrap();
    let scene = ingest_file(&gltf, &mut NoProgress).unwrap();
    assert_eq!(scene.triangles.len(), 2);
    std::fs::write(dir.join("my level.bin"), &doc.bin[..10]).unwrap();
    let err = ingest_file(&gltf, &mut NoProgress).unwrap_err();
    assert!(matches!(err, IngestError::BufferTooShort { expected: 60, actual: 10, .. }), "{err}");
    let err = ingest_file(&dir.join("absent.glb"), &mut NoProgress).unwrap_err();
    assert!(matches!(err, IngestError::Read { .. }));
    std::fs::remove_dir_all(&dir).unwrap();
}
