//! Node `extras`: navmesh tags, areas and their costs, area volumes, off-mesh links, and the
//! typed errors for each.

use super::*;

#[test]
fn tags_and_areas_are_inherited_and_overridden() {
    let (mut doc, mesh) = square_doc();
    let leaf = doc.node(json!({"name": "Leaf", "mesh": mesh}));
    let walk = doc.node(json!({"name": "Walk", "mesh": mesh, "extras": {"navmesh": "walkable"}}));
    let mud = doc.node(json!({"name": "Mud", "mesh": mesh, "children": [walk],
                              "extras": {"area": "mud", "cost": 3.0}}));
    let ignored = doc.node(json!({"name": "Ignored", "mesh": mesh, "children": [leaf],
                                  "extras": {"navmesh": "ignore"}}));
    let grass = doc.node(json!({"name": "Grass", "mesh": mesh, "children": [ignored, mud],
                                "extras": {"navmesh": "obstacle", "area": "grass", "cost": 2.0, "other": [1]}}));
    let again = doc.node(json!({"name": "Again", "mesh": mesh, "extras": {"area": "mud", "cost": 4.0}}));
    let plain = doc.node(json!({"name": "Plain", "mesh": mesh, "extras": "not an object"}));
    doc.scene(&[grass, again, plain]);
    let (scene, progress) = doc.ingest().unwrap();
    assert_eq!(scene.nodes, ["Grass", "Ignored", "Leaf", "Mud", "Walk", "Again", "Plain"]);
    let names: Vec<(&str, f32)> = scene.areas.iter().map(|a| (a.name.as_str(), a.cost)).collect();
    assert_eq!(names, [("default", 1.0), ("grass", 2.0), ("mud", 3.0)]);
    let per_node: Vec<(&str, NavTag, u16)> = scene
        .triangles
        .chunks(2)
        .map(|pair| {
            assert_eq!((pair[0].tag, pair[0].area, pair[0].node), (pair[1].tag, pair[1].area, pair[1].node));
            (scene.nodes[pair[0].node as usize].as_str(), pair[0].tag, pair[0].area)
        })
        .collect();
    assert_eq!(
        per_node,
        [
            ("Grass", NavTag::Obstacle, 1),
            ("Mud", NavTag::Obstacle, 2),
            ("Walk", NavTag::Walkable, 2),
            ("Again", NavTag::Auto, 2),
            ("Plain", NavTag::Auto, 0),
        ]
    );
    assert_eq!(scene.ignored_dropped, 4);
    assert_eq!(progress.warnings.len(), 1, "{:?}", progress.warnings);
    assert!(progress.warnings[0].contains("'Again'") && progress.warnings[0].contains("mud"));
}

fn extras_error(extras: Value) -> IngestError {
    let (mut doc, mesh) = square_doc();
    let target = doc.node(json!({"name": "Target"}));
    let n = doc.node(json!({"name": "Tagged", "mesh": mesh, "extras": extras}));
    doc.scene(&[target, n]);
    doc.ingest().unwrap_err()
}

#[test]
fn bad_extras_are_typed_errors_naming_the_node() {
    // 1e300 is finite in f64 but not in the asset's f32.
    for cost in [json!(0.5), json!(-2.0), json!(0.0), json!(1e300)] {
        let err = extras_error(json!({"area": "ice", "cost": cost}));
        assert!(matches!(&err, IngestError::BadAreaCost { node, .. } if node == "'Tagged'"), "{err}");
    }
    let err = extras_error(json!({"navmesh": "flying"}));
    assert!(matches!(&err, IngestError::UnknownTag { node, value, .. } if node == "'Tagged'" && value == "\"flying\""));
    assert!(err.to_string().contains("\"ignore\" or \"area_volume\")"), "{err}");
    assert!(matches!(extras_error(json!({"navmesh": 3})), IngestError::UnknownTag { .. }));
    for extras in [
        json!({"area": "ice", "cost": "high"}),
        json!({"area": 7}),
        json!({"cost": 2.0}),
        json!({"navmesh_link": "Target"}),
        json!({"navmesh_link": {"bidirectional": true}}),
        json!({"navmesh_link": {"to": "Target", "bidirectional": "yes"}}),
    ] {
        let err = extras_error(extras.clone());
        assert!(matches!(&err, IngestError::BadExtras { node, .. } if node == "'Tagged'"), "{extras}: {err}");
    }
    let err = extras_error(json!({"navmesh_link": {"to": "Nowhere"}}));
    assert!(matches!(&err, IngestError::UnknownLinkTarget { to, .. } if to == "Nowhere"), "{err}");
    let message = err.to_string();
    assert!(message.contains("test.glb") && message.contains("'Tagged'") && !message.contains('\n'));
}

/// Adds a closed cube mesh `[0, 1]³` (12 triangles; `drop` leaves out the last triangles,
/// the top face first).
fn cube_mesh(doc: &mut Doc, drop: usize) -> usize {
    let corners: Vec<[f32; 3]> =
        (0..8).map(|k| [(k & 1) as f32, ((k >> 1) & 1) as f32, ((k >> 2) & 1) as f32]).collect();
    let p = doc.positions(&corners);
    let faces = [[0, 2, 6, 4], [1, 3, 7, 5], [0, 1, 5, 4], [0, 1, 3, 2], [4, 5, 7, 6], [2, 3, 7, 6]];
    let mut indices: Vec<u32> = faces.iter().flat_map(|[a, b, c, d]| [*a, *b, *c, *a, *c, *d]).collect();
    indices.truncate(indices.len() - 3 * drop);
    let i = doc.indices(&indices, 5123);
    doc.mesh("Cube", json!([{"attributes": {"POSITION": p}, "indices": i}]))
}

#[test]
fn area_volumes_are_carried_apart_and_children_inherit_them() {
    let (mut doc, square) = square_doc();
    let cube = cube_mesh(&mut doc, 0);
    let child = doc.node(json!({"name": "Puddle", "mesh": cube, "translation": [5.0, 0.0, 0.0]}));
    let own = doc.node(json!({"name": "Shallows", "mesh": cube, "translation": [9.0, 0.0, 0.0],
                              "extras": {"area": "shallows", "cost": 1.5}}));
    let water = doc.node(json!({"name": "Water", "mesh": cube, "children": [child, own],
                                "scale": [2.0, 3.0, 4.0], "translation": [0.0, -1.0, 0.0],
                                "extras": {"navmesh": "area_volume", "area": "water", "cost": 4.0}}));
    let floor = doc.node(json!({"name": "Floor", "mesh": square}));
    doc.scene(&[floor, water]);
    let (scene, progress) = doc.ingest().unwrap();
    assert!(progress.warnings.is_empty(), "{:?}", progress.warnings);
    // Only the floor's triangles walk or block.
    assert_eq!(scene.triangles.len(), 2);
    assert_eq!(scene.areas.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(), ["default", "water", "shallows"]);
    let summary: Vec<(&str, u16, usize, f64, f64)> = scene
        .volumes
        .iter()
        .map(|v| (scene.nodes[v.node as usize].as_str(), v.area, v.triangles.len(), v.y_min, v.y_max))
        .collect();
    assert_eq!(summary, [("Water", 1, 12, -1.0, 2.0), ("Puddle", 1, 12, -1.0, 2.0), ("Shallows", 2, 12, -1.0, 2.0)]);
    // World space: the child's cube is scaled by its parent's transform.
    let xs = |v: &AreaVolume| {
        let x = v.triangles.iter().flatten().map(|p| p[0]);
        (x.clone().fold(f64::INFINITY, f64::min), x.fold(f64::NEG_INFINITY, f64::max))
    };
    assert_eq!(xs(&scene.volumes[1]), (10.0, 12.0));
}

#[test]
fn area_volumes_need_an_area_and_a_closed_mesh() {
    let (mut doc, _) = square_doc();
    let cube = cube_mesh(&mut doc, 0);
    let n = doc.node(json!({"name": "Mud", "mesh": cube, "extras": {"navmesh": "area_volume"}}));
    doc.scene(&[n]);
    let err = doc.ingest().unwrap_err();
    assert!(matches!(&err, IngestError::VolumeWithoutArea { node, .. } if node == "'Mud'"), "{err}");
    assert!(err.to_string().contains("'Mud'") && err.to_string().contains("\"area\""), "{err}");

    // Without its top face the cube is open along the top square's four edges.
    let (mut doc, _) = square_doc();
    let open = cube_mesh(&mut doc, 2);
    let n = doc.node(json!({"name": "Mud", "mesh": open, "extras": {"navmesh": "area_volume", "area": "mud"}}));
    doc.scene(&[n]);
    let err = doc.ingest().unwrap_err();
    assert!(
        matches!(&err, IngestError::OpenVolume { node, open_edges: 4, edge, .. }
            if node == "'Mud'" && edge[0][1] == 1.0 && edge[1][1] == 1.0),
        "{err}"
    );
    assert!(err.to_string().contains("'Mud'") && !err.to_string().contains('\n'), "{err}");
    // The same open mesh under another tag is ordinary geometry.
    doc.nodes[n]["extras"] = json!({"navmesh": "obstacle"});
    assert_eq!(doc.ingest().unwrap().0.triangles.len(), 10);
}

#[test]
fn links_resolve_their_target_and_default_to_bidirectional() {
    let (mut doc, mesh) = square_doc();
    let target = doc.node(json!({"name": "Target", "translation": [3.0, 1.0, 2.0]}));
    let a = doc.node(json!({"name": "A", "mesh": mesh, "extras": {"navmesh_link": {"to": "Target"}}}));
    let b = doc.node(json!({"name": "B", "extras": {"navmesh_link": {"to": "A", "bidirectional": false}}}));
    doc.scene(&[a, b, target]);
    let (scene, _) = doc.ingest().unwrap();
    assert_eq!(
        scene.links,
        [
            LinkRequest { from_node: 0, to: "Target".into(), to_node: 2, bidirectional: true, ..Default::default() },
            LinkRequest { from_node: 1, to: "A".into(), to_node: 0, bidirectional: false, ..Default::default() },
        ]
    );
    assert_eq!(scene.node_positions[2], [3.0, 1.0, 2.0]);
}

#[test]
fn link_cost_radius_area_and_id_are_read_and_areas_resolved_by_name() {
    let (mut doc, mesh) = square_doc();
    let target = doc.node(json!({"name": "Target"}));
    let jump = doc.node(json!({"name": "Jump", "extras": {"navmesh_link": {
        "to": "Target", "cost": 2.5, "radius": 0.25, "area": "jump", "id": 4_000_000_000u32}}}));
    // "mud" is named with a cost by a later node: the link takes that area and its cost.
    let climb = doc.node(json!({"name": "Climb", "extras": {"navmesh_link": {
        "to": "Target", "cost": 0, "area": "mud", "id": 7, "colour": "red"}}}));
    let mud = doc.node(json!({"name": "Mud", "mesh": mesh, "extras": {"area": "mud", "cost": 3.0}}));
    doc.scene(&[jump, climb, mud, target]);
    let (scene, progress) = doc.ingest().unwrap();
    let names: Vec<(&str, f32)> = scene.areas.iter().map(|a| (a.name.as_str(), a.cost)).collect();
    assert_eq!(names, [("default", 1.0), ("mud", 3.0), ("jump", 1.0)]);
    assert_eq!(
        scene.links,
        [
            LinkRequest {
                from_node: 0,
                to: "Target".into(),
                to_node: 3,
                bidirectional: true,
                cost: Some(2.5),
                radius: Some(0.25),
                area_name: Some("jump".into()),
                area: 2,
                id: 4_000_000_000,
            },
            LinkRequest {
                from_node: 1,
                to: "Target".into(),
                to_node: 3,
                bidirectional: true,
                cost: Some(0.0),
                radius: None,
                area_name: Some("mud".into()),
                area: 1,
                id: 7,
            },
        ]
    );
    // The unknown key is named, with the node, in a warning.
    assert_eq!(progress.warnings.len(), 1, "{:?}", progress.warnings);
    assert!(progress.warnings[0].contains("'Climb'") && progress.warnings[0].contains("colour"));
}

#[test]
fn bad_link_extras_are_typed_errors_naming_the_node() {
    for link in [
        json!({"to": "Target", "cost": -1.0}),
        json!({"to": "Target", "cost": "cheap"}),
        json!({"to": "Target", "cost": null}),
        json!({"to": "Target", "radius": -0.5}),
        json!({"to": "Target", "radius": [1]}),
        json!({"to": "Target", "area": 3}),
        json!({"to": "Target", "id": -1}),
        json!({"to": "Target", "id": 1.5}),
        json!({"to": "Target", "id": 4_294_967_296u64}),
        json!({"to": "Target", "id": "seven"}),
        json!({"to": 5}),
    ] {
        let err = extras_error(json!({ "navmesh_link": link }));
        assert!(matches!(&err, IngestError::BadExtras { node, .. } if node == "'Tagged'"), "{link}: {err}");
        let message = err.to_string();
        assert!(message.contains("test.glb") && !message.contains('\n'), "{message}");
    }
    let err = extras_error(json!({"navmesh_link": {"to": "Tagged"}}));
    assert!(matches!(&err, IngestError::LinkToItself { node, .. } if node == "'Tagged'"), "{err}");
    assert!(err.to_string().contains("'Tagged'") && err.to_string().contains("itself"), "{err}");
}

/// `"footprint": "hull"` groups an obstacle node's subtree into one hull; descendants that stop
/// being obstacles, say `"footprint": "mesh"` or start their own hull leave it.
#[test]
fn hull_footprints_group_an_obstacle_subtree() {
    let (mut doc, mesh) = square_doc();
    let part = doc.node(json!({"name": "Part", "mesh": mesh}));
    let floor = doc.node(json!({"name": "Floor", "mesh": mesh, "extras": {"navmesh": "walkable"}}));
    let own = doc.node(json!({"name": "Own", "mesh": mesh, "children": [part], "extras": {"footprint": "hull"}}));
    let plain = doc.node(json!({"name": "Plain", "mesh": mesh, "extras": {"footprint": "mesh"}}));
    let rock = doc.node(json!({"name": "Rock", "mesh": mesh, "children": [floor, own, plain],
                               "extras": {"navmesh": "obstacle", "footprint": "hull"}}));
    let other = doc.node(json!({"name": "Other", "mesh": mesh, "extras": {"navmesh": "obstacle"}}));
    doc.scene(&[rock, other]);
    let (scene, _) = doc.ingest().unwrap();
    assert_eq!(scene.nodes, ["Rock", "Floor", "Own", "Part", "Plain", "Other"]);
    assert_eq!(scene.hull_of_node, [Some(0), None, Some(2), Some(2), None, None]);
}

#[test]
fn bad_footprints_are_typed_errors_naming_the_node() {
    for (extras, says) in [
        (json!({"footprint": "hull"}), "untagged"),
        (json!({"navmesh": "walkable", "footprint": "hull"}), "\"walkable\""),
        (json!({"navmesh": "ignore", "footprint": "hull"}), "\"ignore\""),
        (json!({"navmesh": "obstacle", "footprint": "convex"}), "\"convex\""),
        (json!({"navmesh": "obstacle", "footprint": true}), "true"),
    ] {
        let err = extras_error(extras.clone());
        assert!(matches!(&err, IngestError::BadExtras { node, .. } if node == "'Tagged'"), "{extras}: {err}");
        let message = err.to_string();
        assert!(message.contains("footprint") && message.contains(says) && !message.contains('\n'), "{message}");
    }
}
