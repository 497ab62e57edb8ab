//! Ingests every fixture level and malformed input; the expected numbers follow from the
//! geometry documented in `fixtures/levels/README.md` (written by `gen_fixtures`).

use meadow_bake::ingest::{ingest_file, IngestError, NavTag, Scene};
use meadow_bake::Stage;
use meadow_suite::*;

const EPS: f64 = 1e-5;

fn bounds(scene: &Scene) -> ([f64; 3], [f64; 3]) {
    scene.bounds().expect("scene has triangles")
}

fn total_area(triangles: &[&meadow_bake::ingest::SceneTriangle]) -> f64 {
    triangles.iter().map(|t| triangle_area(t)).sum()
}

/// Every named node's triangles form closed outward-facing surfaces of the given volume.
fn assert_closed_volume(scene: &Scene, node: &str, volume: f64) {
    let triangles = node_triangles(scene, node);
    assert!(!triangles.is_empty(), "node {node} has no triangles");
    let v = signed_volume(triangles.iter().copied());
    assert!((v - volume).abs() < 1e-4 * volume.max(1.0), "node {node}: volume {v}, expected {volume}");
}

/// The floor triangles (y = 0, facing up) cover `area` square metres.
fn floor_area(scene: &Scene) -> f64 {
    scene
        .triangles
        .iter()
        .filter(|t| t.vertices.iter().all(|v| v[1].abs() < EPS) && faces_up(t, 0.999))
        .map(triangle_area)
        .sum()
}

#[test]
fn open_floor_has_floor_pillars_and_boxes() {
    let (scene, progress) = ingest_level("open_floor.gltf").unwrap();
    // Floor 2 + two 16-gon prisms (32 side + 28 cap triangles each) + three boxes of 12.
    assert_eq!(scene.triangles.len(), 2 + 2 * 60 + 3 * 12);
    let (lo, hi) = bounds(&scene);
    assert!(close3(lo, [-10.0, 0.0, -10.0], EPS) && close3(hi, [10.0, 3.0, 10.0], EPS), "{lo:?} {hi:?}");
    assert!((floor_area(&scene) - 400.0).abs() < 1e-6);
    assert_closed_volume(&scene, "BigBox", 8.0);
    assert_closed_volume(&scene, "SmallBox", 1.0);
    assert_closed_volume(&scene, "LowCrate", 1.5 * 0.5 * 1.5);
    // A regular 16-gon of circumradius 0.5 has area 8 r² sin(2π/16); the prism is 3 m tall.
    let prism = 8.0 * 0.25 * (std::f64::consts::TAU / 16.0).sin() * 3.0;
    assert_closed_volume(&scene, "PillarWest", prism);
    assert_closed_volume(&scene, "PillarEast", prism);
    // The pillar mesh is instanced: both nodes give the same triangles shifted by (8, 0, -8).
    let west = node_triangles(&scene, "PillarWest");
    let east = node_triangles(&scene, "PillarEast");
    for (w, e) in west.iter().zip(&east) {
        for k in 0..3 {
            let shifted = [w.vertices[k][0] + 8.0, w.vertices[k][1], w.vertices[k][2] - 8.0];
            assert!(close3(shifted, e.vertices[k], 1e-6));
        }
    }
    assert!(scene.triangles.iter().all(|t| t.tag == NavTag::Auto && t.area == 0));
    assert_eq!(scene.areas.len(), 1);
    assert!(progress.warnings.is_empty(), "{:?}", progress.warnings);
    assert_eq!(progress.events.first(), Some(&ProgressEvent::Begin(Stage::Ingest, 6)));
    assert_eq!(progress.events.last(), Some(&ProgressEvent::Finish(Stage::Ingest)));
}

#[test]
fn box_floor_is_a_floor_with_one_box() {
    let (scene, _) = ingest_level("box_floor.glb").unwrap();
    assert_eq!(scene.triangles.len(), 14);
    assert!((floor_area(&scene) - 400.0).abs() < 1e-9);
    assert_closed_volume(&scene, "Box", 8.0);
    let (lo, hi) = bounds(&scene);
    assert_eq!((lo, hi), ([-10.0, 0.0, -10.0], [10.0, 2.0, 10.0]));
    // The box's top face is the only other upward face: 4 m² at y = 2.
    let top: f64 = node_triangles(&scene, "Box").iter().filter(|t| faces_up(t, 0.999)).map(|t| triangle_area(t)).sum();
    assert!((top - 4.0).abs() < 1e-9);
}

#[test]
fn rooms_walls_leave_two_doorways() {
    let (scene, _) = ingest_level("rooms.glb").unwrap();
    assert_eq!(scene.triangles.len(), 2 + 8 * 12);
    let (lo, hi) = bounds(&scene);
    assert!(close3(lo, [-15.0, 0.0, -5.0], EPS) && close3(hi, [15.0, 3.0, 5.0], EPS), "{lo:?} {hi:?}");
    assert!((floor_area(&scene) - 300.0).abs() < 1e-6);
    // The partition walls leave gaps of 1.0 m (A|B at x = -5) and 2.0 m (B|C at x = 5) around z = 0.
    let gap = |south: &str, north: &str| {
        let max_z =
            node_triangles(&scene, south).iter().flat_map(|t| t.vertices).map(|v| v[2]).fold(f64::MIN, f64::max);
        let min_z =
            node_triangles(&scene, north).iter().flat_map(|t| t.vertices).map(|v| v[2]).fold(f64::MAX, f64::min);
        min_z - max_z
    };
    assert!((gap("WallAB_South", "WallAB_North") - 1.0).abs() < EPS);
    assert!((gap("WallBC_South", "WallBC_North") - 2.0).abs() < EPS);
    for wall in ["WallSouth", "WallNorth", "WallWest", "WallEast", "WallAB_South", "WallBC_North"] {
        assert!(signed_volume(node_triangles(&scene, wall)) > 0.0, "{wall} faces inward");
    }
}

#[test]
fn corridor_l_reads_an_embedded_buffer() {
    let (scene, _) = ingest_level("corridor_l.gltf").unwrap();
    assert_eq!(scene.triangles.len(), 4 + 6 * 12);
    assert!((floor_area(&scene) - (16.0 + 20.0)).abs() < 1e-6);
    let (lo, hi) = bounds(&scene);
    assert!(close3(lo, [-0.2, 0.0, -0.2], EPS) && close3(hi, [10.2, 3.0, 10.2], EPS), "{lo:?} {hi:?}");
    assert!(signed_volume(node_triangles(&scene, "Walls")) > 0.0);
}

#[test]
fn ramps_have_the_documented_slopes() {
    let (scene, _) = ingest_level("ramps.glb").unwrap();
    assert_eq!(scene.triangles.len(), 2 + 2 * 12 + 2 * 8);
    let slope_degrees = |node: &str| {
        let mut slopes: Vec<f64> = node_triangles(&scene, node)
            .iter()
            .filter(|t| faces_up(t, 0.01))
            .map(|t| {
                let n = triangle_normal(t);
                (n[1] / (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt()).acos().to_degrees()
            })
            .collect();
        slopes.dedup_by(|a, b| (*a - *b).abs() < 1e-3);
        slopes
    };
    let s30 = slope_degrees("Ramp30");
    let s60 = slope_degrees("Ramp60");
    assert_eq!(s30.len(), 1, "{s30:?}");
    assert_eq!(s60.len(), 1, "{s60:?}");
    assert!((s30[0] - 30.0).abs() < 1e-3 && (s60[0] - 60.0).abs() < 1e-3, "{s30:?} {s60:?}");
    assert_closed_volume(&scene, "Ramp30", 1.5 * 1.5 * 3f64.sqrt() * 2.0 / 2.0);
    assert_closed_volume(&scene, "Platforms", 2.0 * 4.0 * 4.0 * 1.5);
}

#[test]
fn table_top_is_one_metre_high() {
    let (scene, _) = ingest_level("table.glb").unwrap();
    assert_eq!(scene.triangles.len(), 2 + 5 * 12);
    let top = node_triangles(&scene, "TableTop");
    let top_y = top.iter().flat_map(|t| t.vertices).map(|v| v[1]).fold(f64::MIN, f64::max);
    let under_y = top.iter().flat_map(|t| t.vertices).map(|v| v[1]).fold(f64::MAX, f64::min);
    assert!((top_y - 1.0).abs() < EPS && (under_y - 0.95).abs() < EPS);
    assert_closed_volume(&scene, "TableTop", 2.0 * 1.0 * 0.05);
    for leg in ["Leg0", "Leg1", "Leg2", "Leg3"] {
        assert_closed_volume(&scene, leg, 0.1 * 0.1 * 0.95);
    }
}

#[test]
fn hierarchy_transforms_compose_to_a_tiled_floor() {
    let (scene, _) = ingest_level("hierarchy.glb").unwrap();
    assert_eq!(scene.triangles.len(), 16 * 2 + 4 * 12);
    // Every tile, including the mirrored (negative scale) and matrix rows, faces +Y at y = 0.
    let tiles: Vec<_> = scene.triangles.iter().filter(|t| scene.nodes[t.node as usize].contains("_Tile")).collect();
    assert_eq!(tiles.len(), 32);
    for t in &tiles {
        assert!(faces_up(t, 0.999999), "tile of {} faces {:?}", scene.nodes[t.node as usize], triangle_normal(t));
        assert!(t.vertices.iter().all(|v| v[1].abs() < EPS));
    }
    assert!((total_area(&tiles) - 64.0).abs() < 1e-4);
    // The mirrored row (scale -1 in x, determinant < 0) in particular: its stored windings face
    // down after the mirror, and the glTF front-face rule turns them up again.
    let mirrored_tiles: Vec<_> = tiles.iter().filter(|t| scene.nodes[t.node as usize].starts_with("Row1_")).collect();
    assert_eq!(mirrored_tiles.len(), 8);
    assert!(mirrored_tiles.iter().all(|t| triangle_normal(t)[1] > 0.0));
    // The tiles cover [-4, 4]² without overlap: each 2 m cell centre is covered exactly once.
    for cx in [-3.0, -1.0, 1.0, 3.0] {
        for cz in [-3.0, -1.0, 1.0, 3.0] {
            let covering = tiles
                .iter()
                .filter(|t| {
                    let c = triangle_centroid(t);
                    (c[0] - cx).abs() < 1.0 && (c[2] - cz).abs() < 1.0
                })
                .count();
            assert_eq!(covering, 2, "cell ({cx}, {cz})");
        }
    }
    // Row 0 lands at world x = -3 (the level node turns 90° about +Y), row 1 at x = -1, etc.
    for (row, x) in [("Row0", -3.0), ("Row1", -1.0), ("Row2", 1.0), ("Row3", 3.0)] {
        for t in tiles.iter().filter(|t| scene.nodes[t.node as usize].starts_with(row)) {
            assert!((triangle_centroid(t)[0] - x).abs() < 1.0, "{row}");
        }
    }
    // Boxes stay closed and outward-facing through mirroring, matrices and deep chains.
    assert_closed_volume(&scene, "MirroredCrate", 0.5);
    assert_closed_volume(&scene, "MatrixPillarBox", 0.75);
    assert_closed_volume(&scene, "DeepCrate", 0.25);
    assert_closed_volume(&scene, "LevelCrate", 1.0);
    let (lo, hi) = bounds(&scene);
    assert!(close3(lo, [-4.0, 0.0, -4.0], EPS) && close3(hi, [4.0, 3.0, 4.0], EPS), "{lo:?} {hi:?}");
    let mirrored: Vec<_> = node_triangles(&scene, "MirroredCrate");
    let centre =
        mirrored.iter().map(|t| triangle_centroid(t)).fold([0.0; 3], |s, c| [s[0] + c[0], s[1] + c[1], s[2] + c[2]]);
    let centre = centre.map(|c| c / mirrored.len() as f64);
    assert!(close3(centre, [-1.0, 0.5, 1.0], 1e-5), "{centre:?}");
}

#[test]
fn strips_fans_and_index_widths_are_read_and_lines_skipped() {
    let (scene, progress) = ingest_level("strips_fans.gltf").unwrap();
    // Floor strip 2 + strip/fan box 8 + 2 + 2 + u32 box 12 + octagon fan 8.
    assert_eq!(scene.triangles.len(), 2 + 12 + 12 + 8);
    assert!(node_triangles(&scene, "Floor").iter().all(|t| faces_up(t, 0.999999)));
    assert!(node_triangles(&scene, "Stage").iter().all(|t| faces_up(t, 0.999999)));
    assert_closed_volume(&scene, "StripFanBox", 4.0);
    assert_closed_volume(&scene, "U32Box", 8.0);
    let octagon = 2.0 * 1.5f64 * 1.5 * 2f64.sqrt();
    assert!((total_area(&node_triangles(&scene, "Stage")) - octagon).abs() < 1e-5);
    let line_warnings: Vec<_> = progress.warnings.iter().filter(|w| w.contains("LINES")).collect();
    assert_eq!(line_warnings.len(), 1, "{:?}", progress.warnings);
    assert!(line_warnings[0].contains("'Guides'") && line_warnings[0].contains("'GuideLines'"));
    assert!(node_triangles(&scene, "Guides").is_empty());
}

#[test]
fn tagged_extras_are_inherited_and_overridden() {
    let (scene, progress) = ingest_level("tagged.glb").unwrap();
    // Floor 2 + grass 2 + 2 + slab 12 + override crate 12; the ignored box and lamp (24) are dropped.
    assert_eq!(scene.triangles.len(), 30);
    assert_eq!(scene.ignored_dropped, 24);
    assert!(node_triangles(&scene, "BigBox").is_empty() && node_triangles(&scene, "Lamp").is_empty());
    let crate_tris = node_triangles(&scene, "OverrideCrate");
    assert_eq!(crate_tris.len(), 12);
    assert!(crate_tris.iter().all(|t| t.tag == NavTag::Obstacle));
    assert!(node_triangles(&scene, "ObstacleSlab").iter().all(|t| t.tag == NavTag::Obstacle && t.area == 0));
    assert_eq!(scene.areas.len(), 2);
    assert_eq!((scene.areas[0].name.as_str(), scene.areas[0].cost), ("default", 1.0));
    assert_eq!((scene.areas[1].name.as_str(), scene.areas[1].cost), ("grass", 2.0));
    // The `Meadow` group is tagged walkable (and the untagged `Floor` still walks by slope).
    for node in ["GrassWest", "GrassEast"] {
        let tris = node_triangles(&scene, node);
        assert_eq!(tris.len(), 2);
        assert!(tris.iter().all(|t| t.area == 1 && t.tag == NavTag::Walkable), "{node}");
    }
    assert!(node_triangles(&scene, "Floor").iter().all(|t| t.area == 0 && t.tag == NavTag::Auto));
    assert_eq!(progress.warnings.iter().filter(|w| w.contains("grass") && w.contains("GrassEast")).count(), 1);
    assert_eq!(scene.links.len(), 1);
    let link = &scene.links[0];
    assert_eq!(scene.nodes[link.from_node as usize], "LinkStart");
    assert_eq!((link.to.as_str(), scene.nodes[link.to_node as usize].as_str()), ("LinkEnd", "LinkEnd"));
    assert!(link.bidirectional);
    assert_eq!(scene.node_positions[link.from_node as usize], [1.5, 0.0, -3.5]);
    assert_eq!(scene.node_positions[link.to_node as usize], [5.5, 0.0, -3.5]);
}

#[test]
fn halls_face_up_through_the_mirror_and_only_the_west_one_is_tagged() {
    let (scene, progress) = ingest_level("halls.glb").unwrap();
    assert!(progress.warnings.is_empty(), "{:?}", progress.warnings);
    assert_eq!(scene.triangles.len(), 2 + 2 + 12);
    assert_eq!(scene.nodes, ["WestHall", "EastWing", "EastHall", "EastPillar"]);
    let xs = |node: &str| {
        let x = node_triangles(&scene, node).into_iter().flat_map(|t| t.vertices).map(|v| v[0]);
        (x.clone().fold(f64::MAX, f64::min), x.fold(f64::MIN, f64::max))
    };
    assert_eq!(xs("WestHall"), (-18.0, 0.0));
    assert_eq!(xs("EastHall"), (0.0, 18.0), "mirrored by the parent's scale (-1, 1, 1)");
    for hall in ["WestHall", "EastHall"] {
        let tris = node_triangles(&scene, hall);
        assert!(tris.iter().all(|t| faces_up(t, 0.999999)), "{hall}");
        assert!((total_area(&tris) - 180.0).abs() < 1e-9);
    }
    assert!(node_triangles(&scene, "WestHall").iter().all(|t| t.tag == NavTag::Walkable));
    assert!(node_triangles(&scene, "EastHall").iter().all(|t| t.tag == NavTag::Auto));
    assert_closed_volume(&scene, "EastPillar", 12.0);
    assert_eq!(xs("EastPillar"), (8.0, 10.0));
}

#[test]
fn split_floor_strips_tile_the_floor_and_one_is_tagged() {
    let (scene, _) = ingest_level("split_floor.glb").unwrap();
    assert_eq!(scene.triangles.len(), 14);
    assert!((floor_area(&scene) - 260.0).abs() < 1e-9);
    let tagged: Vec<&str> = scene
        .triangles
        .iter()
        .filter(|t| t.tag == NavTag::Walkable)
        .map(|t| scene.nodes[t.node as usize].as_str())
        .collect();
    assert_eq!(tagged, ["TaggedStrip", "TaggedStrip"]);
    for (name, width) in [("Strip1", 1.0), ("Strip3", 3.0), ("Strip6", 6.0)] {
        assert!((total_area(&node_triangles(&scene, name)) - 10.0 * width).abs() < 1e-9, "{name}");
    }
}

#[test]
fn area_volumes_are_read_apart_from_the_floor() {
    let (scene, progress) = ingest_level("road.glb").unwrap();
    assert!(progress.warnings.is_empty(), "{:?}", progress.warnings);
    // Only the field walks or blocks; the three boxes are volumes.
    assert_eq!(scene.triangles.len(), 2);
    let areas: Vec<(&str, f32)> = scene.areas.iter().map(|a| (a.name.as_str(), a.cost)).collect();
    assert_eq!(areas, [("default", 1.0), ("field", 3.0), ("road", 1.0), ("mud", 50.0), ("crossing", 2.0)]);
    let volumes: Vec<(&str, u16, usize, f64, f64)> = scene
        .volumes
        .iter()
        .map(|v| (scene.nodes[v.node as usize].as_str(), v.area, v.triangles.len(), v.y_min, v.y_max))
        .collect();
    assert_eq!(volumes, [("Road", 2, 12, -0.5, 0.5), ("Mud", 3, 12, -0.5, 0.5), ("Crossing", 4, 12, -0.5, 0.5)]);
    let (scene, _) = ingest_level("slope_volume.glb").unwrap();
    let ranges: Vec<(f64, f64)> = scene.volumes.iter().map(|v| (v.y_min, v.y_max)).collect();
    assert_eq!(ranges, [(-1.0, 1.5), (4.0, 5.0)]);
    let ramp = node_triangles(&scene, "Ramp");
    assert!((total_area(&ramp) - 10.0 * 10.0f64.hypot(3.0)).abs() < 1e-4);
}

#[test]
fn every_level_ingests_deterministically() {
    for name in [
        "open_floor.gltf",
        "box_floor.glb",
        "rooms.glb",
        "corridor_l.gltf",
        "ramps.glb",
        "table.glb",
        "hierarchy.glb",
        "strips_fans.gltf",
        "tagged.glb",
        "halls.glb",
        "split_floor.glb",
        "road.glb",
        "slope_volume.glb",
    ] {
        let (a, _) = ingest_level(name).unwrap();
        let (b, _) = ingest_level(name).unwrap();
        assert_eq!(a, b, "{name}");
        assert!(a.triangles.iter().all(|t| triangle_area(t) > 0.0), "{name}");
    }
}

/// Every malformed input and the error it must give.
fn expected_bad_input_error(name: &str, error: &IngestError) -> bool {
    match name {
        "truncated.glb" => matches!(error, IngestError::TruncatedGlb { .. }),
        "missing_bin.gltf" => matches!(error, IngestError::MissingBuffer { buffer: 0, .. }),
        "nan_position.glb" => matches!(error, IngestError::NonFinitePosition { vertex: 2, world: false, .. }),
        "inf_position.glb" => matches!(error, IngestError::NonFinitePosition { vertex: 1, .. }),
        "empty_scene.glb" => matches!(error, IngestError::EmptyScene { degenerate: 0, .. }),
        "degenerate_only.glb" => matches!(error, IngestError::EmptyScene { degenerate: 4, .. }),
        "index_out_of_range.glb" => matches!(error, IngestError::IndexOutOfRange { index: 4, vertex_count: 4, .. }),
        "missing_position.glb" => matches!(error, IngestError::MissingPosition { primitive: 0, .. }),
        "buffer_too_short.gltf" => {
            matches!(error, IngestError::BufferTooShort { buffer: 0, expected: 60, actual: 52, .. })
        }
        "accessor_overrun.glb" => matches!(error, IngestError::AccessorOutOfBounds { accessor: 0, .. }),
        "not_gltf.glb" | "bad_json.gltf" => matches!(error, IngestError::NotGltf { .. }),
        "bad_tag.glb" => matches!(error, IngestError::UnknownTag { .. }),
        "bad_cost.glb" => matches!(error, IngestError::BadAreaCost { .. }),
        "bad_link_self.glb" => matches!(error, IngestError::LinkToItself { node, .. } if node == "'Node'"),
        "bad_link_target.glb" => {
            matches!(error, IngestError::UnknownLinkTarget { node, to, .. } if node == "'Node'" && to == "Missing")
        }
        "bad_link_cost.glb" => matches!(error, IngestError::BadExtras { node, .. } if node == "'Node'"),
        "open_volume.glb" => matches!(error, IngestError::OpenVolume { node, open_edges: 4, .. } if node == "'Pond'"),
        "volume_without_area.glb" => matches!(error, IngestError::VolumeWithoutArea { node, .. } if node == "'Marsh'"),
        _ => panic!("no expectation for bad input {name}"),
    }
}

#[test]
fn bad_inputs_give_typed_errors() {
    let mut checked = 0;
    let mut entries: Vec<_> =
        std::fs::read_dir(fixtures_dir().join("bad")).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if !(name.ends_with(".glb") || name.ends_with(".gltf")) {
            continue;
        }
        let error = ingest_file(&path, &mut RecordingProgress::default()).unwrap_err();
        assert!(expected_bad_input_error(&name, &error), "{name}: {error}");
        // One line that names the file.
        let message = error.to_string();
        assert!(!message.contains('\n') && message.contains(&name), "{message}");
        checked += 1;
    }
    assert_eq!(checked, 19);
    let missing = ingest_file(&bad_input("does_not_exist.glb"), &mut RecordingProgress::default()).unwrap_err();
    assert!(matches!(missing, IngestError::Read { .. }));
}

/// The committed fixtures are exactly what the generator writes (it is deterministic).
#[test]
fn generator_reproduces_the_committed_fixtures() {
    let out = std::env::temp_dir().join(format!("meadow-gen-fixtures-{}", std::process::id()));
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_gen_fixtures")).arg(&out).status().unwrap();
    assert!(status.success());
    for sub in ["levels", "bad"] {
        let mut generated: Vec<_> = std::fs::read_dir(out.join(sub)).unwrap().map(|e| e.unwrap().file_name()).collect();
        generated.sort();
        assert!(generated.len() >= 10, "{sub}: {generated:?}");
        for name in generated {
            let fresh = std::fs::read(out.join(sub).join(&name)).unwrap();
            let committed = std::fs::read(fixtures_dir().join(sub).join(&name))
                .unwrap_or_else(|e| panic!("{sub}/{name:?} is generated but not committed: {e}"));
            assert!(fresh == committed, "{sub}/{name:?} differs from the generator's output; rerun gen_fixtures");
        }
    }
    std::fs::remove_dir_all(&out).unwrap();
}

#[test]
fn settings_files_parse_and_negative_radius_is_rejected() {
    let read = |path: std::path::PathBuf| -> meadow::BakeSettings {
        toml::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    };
    let example = read(level("meadow.toml"));
    example.validate().unwrap();
    assert_eq!(example, meadow::BakeSettings::DEFAULT);
    let bad = read(bad_input("negative_radius.toml"));
    assert_eq!(bad.radius, -0.5);
    assert_eq!(bad.validate().unwrap_err().name, "radius");
}

/// The `.glb` files follow the container layout: header length = file length, 4-byte aligned
/// chunks, JSON padded with spaces, BIN padded with zeros.
#[test]
fn glb_containers_are_well_formed() {
    let word = |b: &[u8], at: usize| u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]]) as usize;
    for name in ["box_floor.glb", "rooms.glb", "ramps.glb", "table.glb", "hierarchy.glb", "tagged.glb"] {
        let bytes = std::fs::read(level(name)).unwrap();
        assert_eq!(&bytes[..4], b"glTF");
        assert_eq!((word(&bytes, 4), word(&bytes, 8)), (2, bytes.len()), "{name}");
        let json_length = word(&bytes, 12);
        assert_eq!(&bytes[16..20], b"JSON");
        assert_eq!(json_length % 4, 0);
        let json = &bytes[20..20 + json_length];
        let text_end = json.iter().rposition(|&b| b == b'}').unwrap() + 1;
        assert!(json[text_end..].iter().all(|&b| b == b' ') && json.len() - text_end < 4, "{name}");
        let bin_at = 20 + json_length;
        let bin_length = word(&bytes, bin_at);
        assert_eq!(&bytes[bin_at + 4..bin_at + 8], b"BIN\0");
        assert_eq!(bin_length % 4, 0);
        assert_eq!(bin_at + 8 + bin_length, bytes.len(), "{name}");
        let declared: serde_json::Value = serde_json::from_slice(json).unwrap();
        let buffer_length = declared["buffers"][0]["byteLength"].as_u64().unwrap() as usize;
        assert!(buffer_length <= bin_length && bin_length - buffer_length < 4, "{name}");
    }
}

/// An independent reading of each level with the `gltf` crate's importer (which also runs its
/// full validation), composing transforms in `f32`: same triangles, same order, same windings.
#[test]
fn gltf_crate_reading_agrees_with_ingest() {
    type M4 = [[f32; 4]; 4];
    fn mul(a: &M4, b: &M4) -> M4 {
        // Column-major: (a·b)[c][r] = Σ_k a[k][r] · b[c][k].
        let mut out = [[0.0; 4]; 4];
        for c in 0..4 {
            for r in 0..4 {
                out[c][r] = (0..4).map(|k| a[k][r] * b[c][k]).sum();
            }
        }
        out
    }
    fn visit(node: gltf::Node, parent: &M4, buffers: &[gltf::buffer::Data], out: &mut Vec<[[f64; 3]; 3]>) {
        let world = mul(parent, &node.transform().matrix());
        let det = world[0][0] * (world[1][1] * world[2][2] - world[2][1] * world[1][2])
            - world[1][0] * (world[0][1] * world[2][2] - world[2][1] * world[0][2])
            + world[2][0] * (world[0][1] * world[1][2] - world[1][1] * world[0][2]);
        if let Some(mesh) = node.mesh() {
            for primitive in mesh.primitives() {
                let reader = primitive.reader(|b| Some(&buffers[b.index()].0[..]));
                let positions: Vec<[f32; 3]> = reader.read_positions().unwrap().collect();
                let indices: Vec<u32> = match reader.read_indices() {
                    Some(i) => i.into_u32().collect(),
                    None => (0..positions.len() as u32).collect(),
                };
                let triples: Vec<[u32; 3]> = match primitive.mode() {
                    gltf::mesh::Mode::Triangles => indices.chunks(3).map(|t| [t[0], t[1], t[2]]).collect(),
                    gltf::mesh::Mode::TriangleStrip => (0..indices.len() - 2)
                        .map(|i| {
                            if i % 2 == 0 {
                                [indices[i], indices[i + 1], indices[i + 2]]
                            } else {
                                [indices[i], indices[i + 2], indices[i + 1]]
                            }
                        })
                        .collect(),
                    gltf::mesh::Mode::TriangleFan => {
                        (1..indices.len() - 1).map(|i| [indices[i], indices[i + 1], indices[0]]).collect()
                    }
                    _ => Vec::new(),
                };
                for triple in triples {
                    let mut corners = triple.map(|i| {
                        let p = positions[i as usize];
                        let w: Vec<f64> = (0..3)
                            .map(|r| {
                                f64::from(world[0][r] * p[0] + world[1][r] * p[1] + world[2][r] * p[2] + world[3][r])
                            })
                            .collect();
                        [w[0], w[1], w[2]]
                    });
                    if det < 0.0 {
                        corners.swap(1, 2);
                    }
                    out.push(corners);
                }
            }
        }
        for child in node.children() {
            visit(child, &world, buffers, out);
        }
    }
    for name in [
        "open_floor.gltf",
        "box_floor.glb",
        "rooms.glb",
        "corridor_l.gltf",
        "ramps.glb",
        "table.glb",
        "hierarchy.glb",
        "strips_fans.gltf",
        "halls.glb",
        "split_floor.glb",
    ] {
        let (document, buffers, _) = gltf::import(level(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let identity: M4 = [[1.0, 0.0, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0]];
        let mut expected = Vec::new();
        for node in document.default_scene().unwrap().nodes() {
            visit(node, &identity, &buffers, &mut expected);
        }
        let (scene, _) = ingest_level(name).unwrap();
        assert_eq!(scene.triangles.len(), expected.len(), "{name}");
        for (ours, theirs) in scene.triangles.iter().zip(&expected) {
            for k in 0..3 {
                assert!(close3(ours.vertices[k], theirs[k], 1e-5), "{name}: {:?} vs {theirs:?}", ours.vertices);
            }
        }
    }
}

/// Ingest reports every file it read (the build-system dependency list): the level, then its
/// external buffer; embedded buffers (data URIs, GLB chunks) add no file.
#[test]
fn ingest_reports_the_files_it_read() {
    let (scene, _) = ingest_level("open_floor.gltf").unwrap();
    let paths: Vec<_> = scene.inputs.iter().map(|i| i.path.clone()).collect();
    assert_eq!(paths, vec![level("open_floor.gltf"), level("open_floor.bin")]);
    assert_eq!(scene.inputs[1].len, std::fs::metadata(level("open_floor.bin")).unwrap().len());
    assert_eq!(scene.inputs[1].hash, meadow_bake::fingerprint::hash_bytes(&read(&level("open_floor.bin"))));
    for embedded in ["corridor_l.gltf", "box_floor.glb"] {
        let (scene, _) = ingest_level(embedded).unwrap();
        let paths: Vec<_> = scene.inputs.iter().map(|i| i.path.clone()).collect();
        assert_eq!(paths, vec![level(embedded)], "{embedded}");
    }
}
