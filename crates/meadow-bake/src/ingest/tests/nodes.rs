//! The node hierarchy: windings under transforms, parent-to-child composition, scene selection,
//! cycles, and world positions against the coordinate contract.

use super::*;

#[test]
fn square_faces_up_and_negative_determinant_keeps_front_faces() {
    let (mut doc, mesh) = square_doc();
    let plain = doc.node(json!({"name": "Plain", "mesh": mesh}));
    let mirrored = doc.node(json!({"name": "Mirrored", "mesh": mesh, "scale": [-1.0, 1.0, 1.0]}));
    // Two negative scales are a half turn about z (determinant +1): the square is upside down.
    let turned = doc.node(json!({"name": "Turned", "mesh": mesh, "scale": [-1.0, -1.0, 1.0]}));
    doc.scene(&[plain, mirrored, turned]);
    let (scene, progress) = doc.ingest().unwrap();
    assert_eq!(scene.triangles.len(), 6);
    for (k, t) in scene.triangles.iter().enumerate() {
        let n = normal(t);
        let expected_up = k < 4;
        assert_eq!(n[1] > 0.0, expected_up, "triangle {k} of {}: {n:?}", scene.nodes[t.node as usize]);
        assert!(n[0] == 0.0 && n[2] == 0.0);
    }
    // The mirrored square covers x in [-1, 0].
    assert!(scene.triangles[2..4].iter().flat_map(|t| t.vertices).all(|v| v[0] <= 0.0));
    assert_eq!(scene.nodes, ["Plain", "Mirrored", "Turned"]);
    assert_eq!(progress.begun, Some(3));
    assert_eq!(progress.advanced, [1, 2, 3]);
    assert!(progress.finished && progress.warnings.is_empty());
}

#[test]
fn transforms_compose_parent_to_child() {
    let (mut doc, mesh) = square_doc();
    let s = std::f32::consts::FRAC_1_SQRT_2;
    // Parent: translate (10, 0, 0), turn 90° about +Y, scale x by 2. Child: translate (1, 0, 0).
    let child = doc.node(json!({"name": "Child", "mesh": mesh, "translation": [1.0, 0.0, 0.0]}));
    let parent = doc.node(json!({
        "name": "Parent", "children": [child],
        "translation": [10.0, 0.0, 0.0], "rotation": [0.0, s, 0.0, s], "scale": [2.0, 1.0, 1.0]
    }));
    // A matrix node (column-major): translation (0, 5, 0) and a uniform scale of 3.
    let matrix = doc.node(json!({
        "name": "Matrix", "mesh": mesh,
        "matrix": [3.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 5.0, 0.0, 1.0]
    }));
    doc.scene(&[parent, matrix]);
    let (scene, _) = doc.ingest().unwrap();
    assert_eq!(scene.nodes, ["Parent", "Child", "Matrix"]);
    // T · R · S applied to the child's origin (1, 0, 0): scale → (2, 0, 0), R_y(90°) → (0, 0, -2).
    assert!(close(scene.node_positions[1], [10.0, 0.0, -2.0]), "{:?}", scene.node_positions[1]);
    // Local (1, 0, 1) of the child: (2, 0, 1) → scale (4, 0, 1) → turn (1, 0, -4) → (11, 0, -4).
    let child_corner = scene.triangles[0].vertices[2];
    assert!(close(child_corner, [11.0, 0.0, -4.0]), "{child_corner:?}");
    assert!(close(scene.node_positions[2], [0.0, 5.0, 0.0]));
    assert!(close(scene.triangles[2].vertices[2], [3.0, 5.0, 3.0]));
    // Rotation and positive scales keep the square facing up.
    assert!(scene.triangles.iter().all(|t| normal(t)[1] > 0.0));
}

#[test]
fn scene_selection_default_then_all_then_root_nodes() {
    let (mut doc, mesh) = square_doc();
    let a = doc.node(json!({"name": "A", "mesh": mesh}));
    let b = doc.node(json!({"name": "B", "mesh": mesh}));
    let c = doc.node(json!({"name": "C", "mesh": mesh, "children": [b]}));
    doc.scene(&[a]);
    doc.scene(&[c]);
    doc.scene = Some(0);
    assert_eq!(doc.ingest().unwrap().0.nodes, ["A"]);
    doc.scene = None;
    assert_eq!(doc.ingest().unwrap().0.nodes, ["A", "C", "B"]);
    doc.scenes.clear();
    assert_eq!(doc.ingest().unwrap().0.nodes, ["A", "C", "B"]);
}

#[test]
fn cyclic_and_shared_nodes_are_rejected() {
    let (mut doc, mesh) = square_doc();
    doc.node(json!({"name": "A", "mesh": mesh, "children": [1]}));
    doc.node(json!({"name": "B", "children": [0]}));
    doc.scene(&[0]);
    assert!(matches!(doc.ingest().unwrap_err(), IngestError::Malformed { .. }));
    let (mut doc, mesh) = square_doc();
    let shared = doc.node(json!({"mesh": mesh}));
    let p1 = doc.node(json!({"children": [shared]}));
    let p2 = doc.node(json!({"children": [shared]}));
    doc.scene(&[p1, p2]);
    assert!(matches!(doc.ingest().unwrap_err(), IngestError::Malformed { .. }));
    let (mut doc, _) = square_doc();
    let n = doc.node(json!({"children": [42]}));
    doc.scene(&[n]);
    assert!(matches!(doc.ingest().unwrap_err(), IngestError::Malformed { .. }));
}

#[test]
fn positions_that_overflow_in_world_space_are_rejected() {
    let (mut doc, mesh) = square_doc();
    // Nine nested scales of 1e38 exceed f64's range (about 1.8e308).
    let mut child = doc.node(json!({"name": "Leaf", "mesh": mesh}));
    for _ in 0..9 {
        child = doc.node(json!({"children": [child], "scale": [1e38, 1e38, 1e38]}));
    }
    doc.scene(&[child]);
    let err = doc.ingest().unwrap_err();
    assert!(matches!(&err, IngestError::NonFinitePosition { world: true, node, .. } if node == "'Leaf'"), "{err}");
}

#[test]
fn geometry_outside_the_coordinate_contract_names_node_and_accessor() {
    use meadow::limits::{MAX_COORDINATE, MAX_EXTENT};
    let (mut doc, mesh) = square_doc();
    let n = doc.node(json!({"name": "Huge", "mesh": mesh, "scale": [2.0 * MAX_COORDINATE, 1.0, 1.0]}));
    doc.scene(&[n]);
    let err = doc.ingest().unwrap_err();
    assert!(
        matches!(&err, IngestError::OutOfRange { node, accessor: 0, detail, .. }
            if node == "'Huge'" && detail.contains("beyond")),
        "{err}"
    );
    // Regression (hostile levels): one vertex of a small level moved 300 km away passed
    // ingest; the level's span is checked vertex by vertex, naming the one that breaks it.
    let (mut doc, mesh) = square_doc();
    let near = doc.node(json!({"name": "Near", "mesh": mesh}));
    let far = doc.node(json!({"name": "Far", "mesh": mesh, "translation": [300_000.0, 0.0, 0.0]}));
    doc.scene(&[near, far]);
    let err = doc.ingest().unwrap_err();
    assert!(
        matches!(&err, IngestError::OutOfRange { node, detail, .. } if node == "'Far'" && detail.contains("span")),
        "{err}"
    );
    // The largest level, far from the origin, is fine.
    let (mut doc, mesh) = square_doc();
    let a = doc.node(json!({"name": "A", "mesh": mesh, "translation": [MAX_COORDINATE - MAX_EXTENT, 0.0, 0.0]}));
    let b = doc.node(json!({"name": "B", "mesh": mesh, "translation": [MAX_COORDINATE - 1.0, 0.0, 0.0]}));
    doc.scene(&[a, b]);
    doc.ingest().unwrap();
}
