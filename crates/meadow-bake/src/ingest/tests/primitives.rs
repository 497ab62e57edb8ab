//! Mesh primitives: strips, fans, index widths, skipped modes, degenerate and ignored triangles.

use super::*;
use crate::ingest::primitives::{triangle_corners, triangle_count};

#[test]
fn strips_alternate_and_fans_turn_about_their_first_vertex() {
    let mut doc = Doc::default();
    // A strip along +x: bottom/top pairs (x, z = 0) / (x, z = 1), listed so that the
    // first triangle faces up: (0,0), (0,1), (1,0), (1,1), (2,0), (2,1).
    let strip: Vec<[f32; 3]> = (0..6).map(|k| [(k / 2) as f32, 0.0, if k % 2 == 0 { 0.0 } else { 1.0 }]).collect();
    let p = doc.positions(&strip);
    let strip_mesh = doc.mesh("Strip", json!([{"attributes": {"POSITION": p}, "mode": 5}]));
    // A fan around (0, 1, 0): ring points clockwise in (x, z) seen from +Y → faces up.
    let fan: [[f32; 3]; 5] = [[0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, -1.0], [-1.0, 1.0, 0.0], [0.0, 1.0, 1.0]];
    let p = doc.positions(&fan);
    let i = doc.indices(&[0, 1, 2, 3, 4], 5121);
    let fan_mesh = doc.mesh("Fan", json!([{"attributes": {"POSITION": p}, "indices": i, "mode": 6}]));
    let a = doc.node(json!({"mesh": strip_mesh}));
    let b = doc.node(json!({"mesh": fan_mesh}));
    doc.scene(&[a, b]);
    let (scene, _) = doc.ingest().unwrap();
    assert_eq!(scene.triangles.len(), 4 + 3);
    for t in &scene.triangles {
        assert!(normal(t)[1] > 0.0, "{t:?}");
    }
    // Every fan triangle has the centre as a corner; strip triangles tile [0, 2] × [0, 1].
    assert!(scene.triangles[4..].iter().all(|t| t.vertices.contains(&[0.0, 1.0, 0.0])));
    let strip_area: f64 = scene.triangles[..4].iter().map(|t| normal(t)[1] / 2.0).sum();
    assert_eq!(strip_area, 2.0);
    assert_eq!(scene.nodes, ["node 0", "node 1"]);
}

#[test]
fn index_widths_and_non_indexed_give_the_same_triangles() {
    let mut doc = Doc::default();
    let p = doc.positions(&SQUARE);
    let mut roots = Vec::new();
    for component_type in [5121, 5123, 5125] {
        let i = doc.indices(&SQUARE_INDICES, component_type);
        let mesh = doc.mesh("Indexed", json!([{"attributes": {"POSITION": p}, "indices": i}]));
        roots.push(doc.node(json!({"mesh": mesh})));
    }
    let unrolled: Vec<[f32; 3]> = SQUARE_INDICES.iter().map(|&i| SQUARE[i as usize]).collect();
    let q = doc.positions(&unrolled);
    let mesh = doc.mesh("Soup", json!([{"attributes": {"POSITION": q}}]));
    roots.push(doc.node(json!({"mesh": mesh})));
    doc.scene(&roots);
    let (scene, _) = doc.ingest().unwrap();
    assert_eq!(scene.triangles.len(), 8);
    for k in 1..4 {
        for j in 0..2 {
            assert_eq!(scene.triangles[2 * k + j].vertices, scene.triangles[j].vertices);
        }
    }
}

#[test]
fn point_and_line_primitives_are_skipped_with_a_warning() {
    let (mut doc, square) = square_doc();
    let p = doc.accessors.len() - 2;
    let lines = doc.mesh(
        "Guides",
        json!([{"attributes": {"POSITION": p}, "mode": 1},
                                         {"attributes": {"POSITION": p}, "mode": 0}]),
    );
    let a = doc.node(json!({"name": "Helpers", "mesh": lines}));
    let b = doc.node(json!({"name": "Ground", "mesh": square}));
    doc.scene(&[a, b]);
    let (scene, progress) = doc.ingest().unwrap();
    assert_eq!(scene.triangles.len(), 2);
    assert_eq!(progress.warnings.len(), 2, "{:?}", progress.warnings);
    assert!(progress.warnings[0].contains("LINES") && progress.warnings[1].contains("POINTS"));
    assert!(progress.warnings.iter().all(|w| w.contains("'Helpers'") && w.contains("'Guides'")));

    // Only lines: a clear empty-scene error that counts the skipped primitives.
    doc.scenes.clear();
    doc.scene(&[a]);
    let err = doc.ingest().unwrap_err();
    assert!(matches!(err, IngestError::EmptyScene { skipped: 2, .. }), "{err}");
}

#[test]
fn degenerate_triangles_are_dropped_and_counted() {
    let mut doc = Doc::default();
    // 0, 1, 2 lie on the line x = 2t, y = t, z = 3t (collinear but no coordinate is constant).
    let p = doc.positions(&[[0.0, 0.0, 0.0], [2.0, 1.0, 3.0], [4.0, 2.0, 6.0], [1.0, 0.0, 0.0]]);
    let i = doc.indices(&[0, 1, 2, 1, 1, 3, 0, 3, 1], 5123);
    let mesh = doc.mesh("Mixed", json!([{"attributes": {"POSITION": p}, "indices": i}]));
    let n = doc.node(json!({"mesh": mesh}));
    doc.scene(&[n]);
    let (scene, progress) = doc.ingest().unwrap();
    assert_eq!(scene.triangles.len(), 1);
    assert_eq!(scene.degenerate_dropped, 2);
    assert_eq!(progress.warnings.len(), 1);
    assert!(progress.warnings[0].contains("2 degenerate"));
}

#[test]
fn ignored_geometry_is_not_decoded_but_counted() {
    let (mut doc, square) = square_doc();
    let broken = doc.positions(&[[f32::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0]]);
    let mesh = doc
        .mesh("Broken", json!([{"attributes": {"POSITION": broken}, "mode": 5}, {"attributes": {"NORMAL": broken}}]));
    let helper = doc.node(json!({"name": "Helper", "mesh": mesh, "extras": {"navmesh": "ignore"}}));
    let ground = doc.node(json!({"name": "Ground", "mesh": square}));
    doc.scene(&[helper, ground]);
    let (scene, _) = doc.ingest().unwrap();
    assert_eq!((scene.triangles.len(), scene.ignored_dropped), (2, 2));
    // Without the tag the same mesh is an error.
    doc.nodes[helper].as_object_mut().unwrap().remove("extras");
    assert!(matches!(doc.ingest().unwrap_err(), IngestError::NonFinitePosition { .. }));
}

#[test]
fn triangle_count_matches_the_corner_triples() {
    use json::mesh::Mode;
    for mode in [Mode::Triangles, Mode::TriangleStrip, Mode::TriangleFan, Mode::Lines] {
        for n in 0..12u32 {
            let indices: Vec<u32> = (0..n).collect();
            assert_eq!(triangle_corners(mode, &indices).len(), triangle_count(mode, u64::from(n)), "{mode:?} {n}");
        }
    }
}
