//! The fixture levels, one function each (geometry documented in `fixtures/levels/README.md`).

use crate::builder::*;
use gltf_json as json;
use meadow_testkit::gltf::IndexWidth;
use serde_json::json as value;
use std::path::Path;

pub(crate) fn open_floor(dir: &Path) -> Result<()> {
    let mut b = Builder::new();
    let floor = b.geometry_mesh("Floor", &floor_geometry(10.0));
    let mut pillar = Geometry::default();
    pillar.prism(0.0, 0.0, 0.5, 0.0, 3.0, 16);
    let pillar = b.geometry_mesh("Pillar", &pillar);
    let cube = b.geometry_mesh("UnitBox", &unit_box());
    let mut roots = vec![b.node(placed("Floor", Some(floor), [0.0; 3]))];
    roots.push(b.node(placed("PillarWest", Some(pillar), [-4.0, 0.0, 4.0])));
    roots.push(b.node(placed("PillarEast", Some(pillar), [4.0, 0.0, -4.0])));
    for (name, min, max) in [
        ("BigBox", [-1.0, 0.0, -1.0], [1.0, 2.0, 1.0]),
        ("SmallBox", [6.0, 0.0, 6.0], [7.0, 1.0, 7.0]),
        ("LowCrate", [-7.0, 0.0, -6.5], [-5.5, 0.5, -5.0]),
    ] {
        let (t, s) = box_placement(min, max);
        roots.push(b.node(trs(name, Some(cube), t, IDENTITY_ROTATION, s)));
    }
    b.scene(roots);
    b.write_gltf_external(&dir.join("open_floor.gltf"))
}

pub(crate) fn box_floor_builder() -> Builder {
    let mut b = Builder::new();
    let floor = b.geometry_mesh("Floor", &floor_geometry(10.0));
    let mut cube = Geometry::default();
    cube.cuboid([-1.0, 0.0, -1.0], [1.0, 2.0, 1.0]);
    let cube = b.geometry_mesh("Box", &cube);
    let roots = vec![b.node(placed("Floor", Some(floor), [0.0; 3])), b.node(placed("Box", Some(cube), [0.0; 3]))];
    b.scene(roots);
    b
}

pub(crate) fn box_floor(dir: &Path) -> Result<()> {
    box_floor_builder().write_glb(&dir.join("box_floor.glb"))
}

/// Walls (as `[min, max]` boxes) of the three rooms, for `rooms.glb`.
pub(crate) const ROOM_WALLS: [(&str, V3, V3); 8] = [
    ("WallSouth", [-15.0, 0.0, -5.0], [15.0, 3.0, -4.8]),
    ("WallNorth", [-15.0, 0.0, 4.8], [15.0, 3.0, 5.0]),
    ("WallWest", [-15.0, 0.0, -4.8], [-14.8, 3.0, 4.8]),
    ("WallEast", [14.8, 0.0, -4.8], [15.0, 3.0, 4.8]),
    ("WallAB_South", [-5.1, 0.0, -4.8], [-4.9, 3.0, -0.5]),
    ("WallAB_North", [-5.1, 0.0, 0.5], [-4.9, 3.0, 4.8]),
    ("WallBC_South", [4.9, 0.0, -4.8], [5.1, 3.0, -1.0]),
    ("WallBC_North", [4.9, 0.0, 1.0], [5.1, 3.0, 4.8]),
];

pub(crate) fn rooms(dir: &Path) -> Result<()> {
    let mut b = Builder::new();
    let mut floor = Geometry::default();
    floor.floor(-15.0, -5.0, 15.0, 5.0, 0.0);
    let floor = b.geometry_mesh("Floor", &floor);
    let cube = b.geometry_mesh("UnitBox", &unit_box());
    let mut roots = vec![b.node(placed("Floor", Some(floor), [0.0; 3]))];
    for (name, min, max) in ROOM_WALLS {
        let (t, s) = box_placement(min, max);
        roots.push(b.node(trs(name, Some(cube), t, IDENTITY_ROTATION, s)));
    }
    b.scene(roots);
    b.write_glb(&dir.join("rooms.glb"))
}

pub(crate) fn corridor_l(dir: &Path) -> Result<()> {
    let mut b = Builder::new();
    let mut floor = Geometry::default();
    floor.floor(0.0, 0.0, 8.0, 2.0, 0.0).floor(8.0, 0.0, 10.0, 10.0, 0.0);
    let floor = b.geometry_mesh("CorridorFloor", &floor);
    let mut walls = Geometry::default();
    for (min, max) in [
        ([-0.2, 0.0, -0.2], [10.2, 3.0, 0.0]),
        ([10.0, 0.0, 0.0], [10.2, 3.0, 10.0]),
        ([-0.2, 0.0, 2.0], [8.0, 3.0, 2.2]),
        ([7.8, 0.0, 2.2], [8.0, 3.0, 10.0]),
        ([-0.2, 0.0, 0.0], [0.0, 3.0, 2.0]),
        ([7.8, 0.0, 10.0], [10.2, 3.0, 10.2]),
    ] {
        walls.cuboid(min, max);
    }
    let walls = b.geometry_mesh("CorridorWalls", &walls);
    let roots = vec![b.node(placed("Floor", Some(floor), [0.0; 3])), b.node(placed("Walls", Some(walls), [0.0; 3]))];
    b.scene(roots);
    b.write_gltf_embedded(&dir.join("corridor_l.gltf"))
}

pub(crate) fn ramps(dir: &Path) -> Result<()> {
    let mut b = Builder::new();
    let floor = b.geometry_mesh("Floor", &floor_geometry(10.0));
    let height = 1.5f32;
    let run_30 = (1.5 * 3f64.sqrt()) as f32;
    let run_60 = (1.5 / 3f64.sqrt()) as f32;
    let mut platforms = Geometry::default();
    platforms.cuboid([2.0, 0.0, -6.0], [6.0, height, -2.0]).cuboid([2.0, 0.0, 2.0], [6.0, height, 6.0]);
    let platforms = b.geometry_mesh("Platforms", &platforms);
    let mut ramp30 = Geometry::default();
    ramp30.wedge_rising_x(2.0 - run_30, 2.0, -5.0, -3.0, height);
    let ramp30 = b.geometry_mesh("Ramp30", &ramp30);
    let mut ramp60 = Geometry::default();
    ramp60.wedge_rising_x(2.0 - run_60, 2.0, 3.0, 5.0, height);
    let ramp60 = b.geometry_mesh("Ramp60", &ramp60);
    let roots = vec![
        b.node(placed("Floor", Some(floor), [0.0; 3])),
        b.node(placed("Platforms", Some(platforms), [0.0; 3])),
        b.node(placed("Ramp30", Some(ramp30), [0.0; 3])),
        b.node(placed("Ramp60", Some(ramp60), [0.0; 3])),
    ];
    b.scene(roots);
    b.write_glb(&dir.join("ramps.glb"))
}

pub(crate) fn table(dir: &Path) -> Result<()> {
    let mut b = Builder::new();
    let floor = b.geometry_mesh("Floor", &floor_geometry(10.0));
    let cube = b.geometry_mesh("UnitBox", &unit_box());
    let mut roots = vec![b.node(placed("Floor", Some(floor), [0.0; 3]))];
    let table = b.node(placed("Table", None, [0.0; 3]));
    roots.push(table);
    let (t, s) = box_placement([-1.0, 0.95, -0.5], [1.0, 1.0, 0.5]);
    let top = b.node(trs("TableTop", Some(cube), t, IDENTITY_ROTATION, s));
    b.add_child(table, top);
    for (k, (x, z)) in [(-1.0f32, -0.5f32), (0.9, -0.5), (-1.0, 0.4), (0.9, 0.4)].into_iter().enumerate() {
        let (t, s) = box_placement([x, 0.0, z], [x + 0.1, 0.95, z + 0.1]);
        let leg = b.node(trs(&format!("Leg{k}"), Some(cube), t, IDENTITY_ROTATION, s));
        b.add_child(table, leg);
    }
    b.scene(roots);
    b.write_glb(&dir.join("table.glb"))
}

/// Two floors, one above the other: a deck 3 m up, reached by a ramp at each end, over a floor
/// that runs on under it (multi-layer geometry).
pub(crate) fn bridge(dir: &Path) -> Result<()> {
    let mut b = Builder::new();
    let floor = b.geometry_mesh("Floor", &floor_geometry(12.0));
    let mut deck = Geometry::default();
    deck.cuboid([-3.0, 2.8, -1.5], [3.0, 3.0, 1.5]);
    let deck = b.geometry_mesh("Deck", &deck);
    // One wedge rising along +x to the deck's west end, instanced turned by 180° for the east.
    let mut ramp = Geometry::default();
    ramp.wedge_rising_x(-9.0, -3.0, -1.5, 1.5, 3.0);
    let ramp = b.geometry_mesh("Ramp", &ramp);
    let roots = vec![
        b.node(placed("Floor", Some(floor), [0.0; 3])),
        b.node(placed("Deck", Some(deck), [0.0; 3])),
        b.node(placed("RampWest", Some(ramp), [0.0; 3])),
        b.node(trs("RampEast", Some(ramp), [0.0; 3], rotation_y(180.0), [1.0; 3])),
    ];
    b.scene(roots);
    b.write_glb(&dir.join("bridge.glb"))
}

/// Column-major 4×4 matrix of `translation · rotation_y(degrees) · scale`, for `matrix` nodes.
pub(crate) fn matrix_trs(t: V3, degrees: f64, s: V3) -> [f32; 16] {
    let (sin, cos) = degrees.to_radians().sin_cos();
    // Snap the exact angles so that 180° gives exactly -1 and 0.
    let snap = |v: f64| if v.abs() < 1e-12 { 0.0 } else { v };
    let (sin, cos) = (snap(sin) as f32, snap(cos) as f32);
    [cos * s[0], 0.0, -sin * s[0], 0.0, 0.0, s[1], 0.0, 0.0, sin * s[2], 0.0, cos * s[2], 0.0, t[0], t[1], t[2], 1.0]
}

pub(crate) fn hierarchy(dir: &Path) -> Result<()> {
    let mut b = Builder::new();
    let mut tile = Geometry::default();
    tile.floor(-0.5, -0.5, 0.5, 0.5, 0.0);
    let tile = b.geometry_mesh("Tile", &tile);
    let cube = b.geometry_mesh("UnitBox", &unit_box());
    let tile_scale = [2.0, 0.5, 2.0];
    let columns = [-3.0f32, -1.0, 1.0, 3.0];

    let level = b.node(trs("Level", None, [0.0; 3], rotation_y(90.0), [1.0; 3]));

    // Row 0: plain translation/scale.
    let row0 = b.node(placed("Row0_TRS", None, [0.0, 0.0, -3.0]));
    b.add_child(level, row0);
    for (k, &x) in columns.iter().enumerate() {
        let t = b.node(trs(&format!("Row0_Tile{k}"), Some(tile), [x, 0.0, 0.0], IDENTITY_ROTATION, tile_scale));
        b.add_child(row0, t);
    }

    // Row 1: mirrored by a negative scale (determinant < 0), plus a mirrored box.
    let row1 = b.node(trs("Row1_Mirrored", None, [0.0, 0.0, -1.0], IDENTITY_ROTATION, [-1.0, 1.0, 1.0]));
    b.add_child(level, row1);
    for (k, &x) in columns.iter().enumerate() {
        let t = b.node(trs(&format!("Row1_Tile{k}"), Some(tile), [x, 0.0, 0.0], IDENTITY_ROTATION, tile_scale));
        b.add_child(row1, t);
    }
    let mirrored_box = b.node(trs("MirroredCrate", Some(cube), [1.0, 0.5, 0.0], IDENTITY_ROTATION, [1.0, 1.0, 0.5]));
    b.add_child(row1, mirrored_box);

    // Row 2: matrix transforms (a half turn about +Y), tiles placed by matrices too.
    let row2 = b.node(json::Node {
        name: Some("Row2_Matrix".into()),
        matrix: Some(matrix_trs([0.0, 0.0, 1.0], 180.0, [1.0; 3])),
        ..Default::default()
    });
    b.add_child(level, row2);
    for (k, &x) in columns.iter().enumerate() {
        let t = b.node(json::Node {
            name: Some(format!("Row2_Tile{k}")),
            mesh: Some(tile),
            matrix: Some(matrix_trs([x, 0.0, 0.0], 0.0, tile_scale)),
            ..Default::default()
        });
        b.add_child(row2, t);
    }
    let tall = b.node(json::Node {
        name: Some("MatrixPillarBox".into()),
        mesh: Some(cube),
        matrix: Some(matrix_trs([-3.0, 1.5, 0.0], 0.0, [0.5, 3.0, 0.5])),
        ..Default::default()
    });
    b.add_child(row2, tall);

    // Row 3: deep chain whose rotations cancel and whose half scale is undone by the tiles.
    let row3 = b.node(placed("Row3_Deep", None, [0.0, 0.0, 3.0]));
    b.add_child(level, row3);
    let inner = b.node(trs("Row3_Inner", None, [0.0; 3], rotation_y(90.0), [0.5, 1.0, 0.5]));
    b.add_child(row3, inner);
    let deeper = b.node(trs("Row3_Deeper", None, [0.0; 3], rotation_y(-90.0), [1.0; 3]));
    b.add_child(inner, deeper);
    for (k, &x) in columns.iter().enumerate() {
        let t =
            b.node(trs(&format!("Row3_Tile{k}"), Some(tile), [2.0 * x, 0.0, 0.0], IDENTITY_ROTATION, [4.0, 0.5, 4.0]));
        b.add_child(deeper, t);
    }
    let deep_box = b.node(placed("DeepCrate", Some(cube), [4.0, 0.5, 0.0]));
    b.add_child(deeper, deep_box);

    // A crate directly under the rotated level node.
    let crate_node = b.node(placed("LevelCrate", Some(cube), [2.0, 0.5, 2.0]));
    b.add_child(level, crate_node);
    b.scene(vec![level]);
    b.write_glb(&dir.join("hierarchy.glb"))
}

pub(crate) fn strips_fans(dir: &Path) -> Result<()> {
    use json::mesh::Mode;
    let mut b = Builder::new();
    // Floor: non-indexed TRIANGLE_STRIP of 4 vertices (2 triangles).
    let floor_positions =
        b.positions(&[[-10.0, 0.0, -10.0], [-10.0, 0.0, 10.0], [10.0, 0.0, -10.0], [10.0, 0.0, 10.0]]);
    let floor_strip = b.primitive(floor_positions, None, Mode::TriangleStrip);
    let floor = b.mesh("FloorStrip", vec![floor_strip]);

    // Box [2, 4] × [0, 1] × [2, 4]: sides as one u16-indexed strip around the box (8 triangles),
    // top and bottom as u8-indexed fans (2 triangles each).
    let (x0, x1, z0, z1, h) = (2.0f32, 4.0f32, 2.0f32, 4.0f32, 1.0f32);
    let corners = [[x0, z0], [x1, z0], [x1, z1], [x0, z1]];
    let mut ring = Vec::new();
    for [x, z] in corners {
        ring.push([x, 0.0, z]);
        ring.push([x, h, z]);
    }
    let box_positions = b.positions(&ring);
    let side_strip: Vec<u32> = (0..10).map(|k| k % 8).collect();
    let side_indices = b.indices(&side_strip, IndexWidth::U16);
    let sides = b.primitive(box_positions, Some(side_indices), Mode::TriangleStrip);
    let top_indices = b.indices(&[7, 5, 3, 1], IndexWidth::U8);
    let top = b.primitive(box_positions, Some(top_indices), Mode::TriangleFan);
    let bottom_indices = b.indices(&[0, 2, 4, 6], IndexWidth::U8);
    let bottom = b.primitive(box_positions, Some(bottom_indices), Mode::TriangleFan);
    let strip_box = b.mesh("StripFanBox", vec![sides, top, bottom]);

    // A second box, u32-indexed TRIANGLES.
    let mut cube = Geometry::default();
    cube.cuboid([-4.0, 0.0, -4.0], [-2.0, 2.0, -2.0]);
    let u32_box = b.triangles(&cube, IndexWidth::U32);
    let u32_box = b.mesh("U32Box", vec![u32_box]);

    // A raised octagonal stage top at y = 0.25, a non-indexed TRIANGLE_FAN (8 triangles).
    let mut disc = vec![[0.0f32, 0.25, -6.0]];
    for k in 0..=8 {
        let angle = -std::f64::consts::TAU * f64::from(k) / 8.0;
        disc.push([(1.5 * angle.cos()) as f32, 0.25, -6.0 + (1.5 * angle.sin()) as f32]);
    }
    let disc_positions = b.positions(&disc);
    let disc = b.primitive(disc_positions, None, Mode::TriangleFan);
    let disc = b.mesh("StageFan", vec![disc]);

    // Guide lines (LINES), to be skipped with a warning.
    let guide_positions = b.positions(&[[-10.0, 0.0, 0.0], [10.0, 0.0, 0.0], [0.0, 0.0, -10.0], [0.0, 0.0, 10.0]]);
    let guides = b.primitive(guide_positions, None, Mode::Lines);
    let guides = b.mesh("GuideLines", vec![guides]);

    let roots = vec![
        b.node(placed("Floor", Some(floor), [0.0; 3])),
        b.node(placed("StripFanBox", Some(strip_box), [0.0; 3])),
        b.node(placed("U32Box", Some(u32_box), [0.0; 3])),
        b.node(placed("Stage", Some(disc), [0.0; 3])),
        b.node(placed("Guides", Some(guides), [0.0; 3])),
    ];
    b.scene(roots);
    b.write_gltf_embedded(&dir.join("strips_fans.gltf"))
}

pub(crate) fn tagged(dir: &Path) -> Result<()> {
    let mut b = Builder::new();
    let mut main_floor = Geometry::default();
    main_floor.floor(-10.0, -10.0, 10.0, 4.0, 0.0);
    let main_floor = b.geometry_mesh("MainFloor", &main_floor);
    let mut grass_west = Geometry::default();
    grass_west.floor(-10.0, 4.0, 0.0, 10.0, 0.0);
    let grass_west = b.geometry_mesh("GrassWest", &grass_west);
    let mut grass_east = Geometry::default();
    grass_east.floor(0.0, 4.0, 10.0, 10.0, 0.0);
    let grass_east = b.geometry_mesh("GrassEast", &grass_east);
    let cube = b.geometry_mesh("UnitBox", &unit_box());

    let mut roots = vec![b.node(placed("Floor", Some(main_floor), [0.0; 3]))];

    let ignored = b.node(with_extras(placed("IgnoredGroup", None, [-6.0, 0.0, -6.0]), value!({"navmesh": "ignore"})));
    roots.push(ignored);
    let big = b.node(trs("BigBox", Some(cube), [0.0, 2.0, 0.0], IDENTITY_ROTATION, [4.0; 3]));
    b.add_child(ignored, big);
    let lamp = b.node(trs("Lamp", Some(cube), [0.0, 4.25, 0.0], IDENTITY_ROTATION, [0.5; 3]));
    b.add_child(ignored, lamp);
    let crate_node =
        b.node(with_extras(placed("OverrideCrate", Some(cube), [3.5, 0.5, -1.5]), value!({"navmesh": "obstacle"})));
    b.add_child(ignored, crate_node);

    let (t, s) = box_placement([2.0, 0.0, -5.0], [5.0, 0.1, -2.0]);
    roots.push(
        b.node(with_extras(trs("ObstacleSlab", Some(cube), t, IDENTITY_ROTATION, s), value!({"navmesh": "obstacle"}))),
    );

    let meadow = b.node(with_extras(
        placed("Meadow", None, [0.0; 3]),
        value!({"navmesh": "walkable", "area": "grass", "cost": 2.0}),
    ));
    roots.push(meadow);
    let west = b.node(placed("GrassWest", Some(grass_west), [0.0; 3]));
    b.add_child(meadow, west);
    let east =
        b.node(with_extras(placed("GrassEast", Some(grass_east), [0.0; 3]), value!({"area": "grass", "cost": 5.0})));
    b.add_child(meadow, east);

    roots.push(b.node(with_extras(
        placed("LinkStart", None, [1.5, 0.0, -3.5]),
        value!({"navmesh_link": {"to": "LinkEnd", "bidirectional": true}}),
    )));
    roots.push(b.node(placed("LinkEnd", None, [5.5, 0.0, -3.5])));
    b.scene(roots);
    b.write_glb(&dir.join("tagged.glb"))
}

/// A node at `t` carrying an off-mesh link tag `{"navmesh_link": link}`.
pub(crate) fn link_node(name: &str, t: V3, link: serde_json::Value) -> json::Node {
    with_extras(placed(name, None, t), value!({ "navmesh_link": link }))
}

/// Two floors with a 2 m gap between them that no step crosses, and two jump links across it.
pub(crate) fn links_gap(dir: &Path) -> Result<()> {
    let mut b = Builder::new();
    let mut west = Geometry::default();
    west.floor(-10.0, -5.0, -1.0, 5.0, 0.0);
    let west = b.geometry_mesh("FloorWest", &west);
    let mut east = Geometry::default();
    east.floor(1.0, -5.0, 10.0, 5.0, 0.0);
    let east = b.geometry_mesh("FloorEast", &east);
    let roots = vec![
        b.node(placed("FloorWest", Some(west), [0.0; 3])),
        b.node(placed("FloorEast", Some(east), [0.0; 3])),
        b.node(link_node("JumpNorthWest", [-1.5, 0.0, 3.0], value!({"to": "JumpNorthEast", "id": 11}))),
        b.node(placed("JumpNorthEast", None, [1.5, 0.0, 3.0])),
        b.node(link_node(
            "JumpSouthWest",
            [-1.5, 0.0, -3.0],
            value!({"to": "JumpSouthEast", "bidirectional": true, "id": 12, "cost": 20.0, "area": "jump"}),
        )),
        b.node(placed("JumpSouthEast", None, [1.5, 0.0, -3.0])),
    ];
    b.scene(roots);
    b.write_glb(&dir.join("links_gap.glb"))
}

/// A ground floor and a mezzanine 4 m above half of it, no stairs: a ladder link joins them.
pub(crate) fn links_ladder(dir: &Path) -> Result<()> {
    let mut b = Builder::new();
    let ground = b.geometry_mesh("Ground", &floor_geometry(8.0));
    let mut mezzanine = Geometry::default();
    mezzanine.cuboid([-8.0, 3.8, -8.0], [0.0, 4.0, 8.0]);
    let mezzanine = b.geometry_mesh("Mezzanine", &mezzanine);
    let roots = vec![
        b.node(placed("Ground", Some(ground), [0.0; 3])),
        b.node(placed("Mezzanine", Some(mezzanine), [0.0; 3])),
        b.node(link_node(
            "LadderBottom",
            [0.5, 0.0, 0.0],
            value!({"to": "LadderTop", "id": 20, "cost": 8.0, "area": "ladder"}),
        )),
        b.node(placed("LadderTop", None, [-0.5, 4.0, 0.0])),
    ];
    b.scene(roots);
    b.write_glb(&dir.join("links_ladder.glb"))
}

/// A ground floor with a 3 m ledge at its west end (a one-way drop leads down), a far island
/// (a teleporter leads there) and a link whose end is off the mesh (left out with a warning).
pub(crate) fn links_islands(dir: &Path) -> Result<()> {
    let mut b = Builder::new();
    let mut ground = Geometry::default();
    ground.floor(-10.0, -5.0, 10.0, 5.0, 0.0);
    let ground = b.geometry_mesh("Ground", &ground);
    let mut ledge = Geometry::default();
    ledge.cuboid([-10.0, 0.0, -5.0], [-4.0, 3.0, 5.0]);
    let ledge = b.geometry_mesh("Ledge", &ledge);
    let mut island = Geometry::default();
    island.floor(30.0, -5.0, 40.0, 5.0, 0.0);
    let island = b.geometry_mesh("Island", &island);
    let roots = vec![
        b.node(placed("Ground", Some(ground), [0.0; 3])),
        b.node(placed("Ledge", Some(ledge), [0.0; 3])),
        b.node(placed("Island", Some(island), [0.0; 3])),
        b.node(link_node("DropTop", [-4.5, 3.0, 0.0], value!({"to": "DropBottom", "bidirectional": false, "id": 30}))),
        b.node(placed("DropBottom", None, [-2.5, 0.0, 0.0])),
        b.node(link_node(
            "TeleportIn",
            [8.0, 0.0, 0.0],
            value!({"to": "TeleportOut", "id": 40, "cost": 1.0, "area": "teleport"}),
        )),
        b.node(placed("TeleportOut", None, [32.0, 0.0, 0.0])),
        b.node(link_node("BrokenStart", [5.0, 0.0, 2.0], value!({"to": "Nowhere", "id": 50}))),
        b.node(placed("Nowhere", None, [20.0, 0.0, 2.0])),
    ];
    b.scene(roots);
    b.write_glb(&dir.join("links_islands.glb"))
}

/// Two halls side by side, one tagged walkable and one untagged under a mirroring parent
/// (negative determinant), with a pillar in the untagged one.
pub(crate) fn halls(dir: &Path) -> Result<()> {
    let mut b = Builder::new();
    let mut hall = Geometry::default();
    hall.floor(-18.0, -5.0, 0.0, 5.0, 0.0);
    let hall = b.geometry_mesh("HallFloor", &hall);
    let cube = b.geometry_mesh("UnitBox", &unit_box());
    let west = b.node(with_extras(placed("WestHall", Some(hall), [0.0; 3]), value!({"navmesh": "walkable"})));
    let wing = b.node(trs("EastWing", None, [0.0; 3], IDENTITY_ROTATION, [-1.0, 1.0, 1.0]));
    let east = b.node(placed("EastHall", Some(hall), [0.0; 3]));
    b.add_child(wing, east);
    let (t, s) = box_placement([-10.0, 0.0, -1.0], [-8.0, 3.0, 1.0]);
    let pillar = b.node(trs("EastPillar", Some(cube), t, IDENTITY_ROTATION, s));
    b.add_child(wing, pillar);
    b.scene(vec![west, wing]);
    b.write_glb(&dir.join("halls.glb"))
}

/// Untagged strips of a floor, by increasing width after the tagged first one:
/// `(name, x0, x1)` over z ∈ [0, 10].
pub(crate) const FLOOR_STRIPS: [(&str, f32, f32); 7] = [
    ("TaggedStrip", 0.0, 5.0),
    ("Strip1", 5.0, 6.0),
    ("Strip2", 6.0, 8.0),
    ("Strip3", 8.0, 11.0),
    ("Strip4", 11.0, 15.0),
    ("Strip5", 15.0, 20.0),
    ("Strip6", 20.0, 26.0),
];

/// One floor split into seven meshes, only the first tagged walkable.
pub(crate) fn split_floor(dir: &Path) -> Result<()> {
    let mut b = Builder::new();
    let mut roots = Vec::new();
    for (k, (name, x0, x1)) in FLOOR_STRIPS.into_iter().enumerate() {
        let mut strip = Geometry::default();
        strip.floor(x0, 0.0, x1, 10.0, 0.0);
        let mesh = b.geometry_mesh(name, &strip);
        let node = placed(name, Some(mesh), [0.0; 3]);
        let node = if k == 0 { with_extras(node, value!({"navmesh": "walkable"})) } else { node };
        roots.push(b.node(node));
    }
    b.scene(roots);
    b.write_glb(&dir.join("split_floor.glb"))
}

/// A field with a cheap road, an expensive mud patch and a crossing over the road, all as area
/// volumes (unit boxes placed by translation and scale).
pub(crate) fn road(dir: &Path) -> Result<()> {
    let mut b = Builder::new();
    let field = b.geometry_mesh("Field", &{
        let mut g = Geometry::default();
        g.floor(-20.0, -10.0, 20.0, 10.0, 0.0);
        g
    });
    let cube = b.geometry_mesh("UnitBox", &unit_box());
    let mut roots =
        vec![b.node(with_extras(placed("Field", Some(field), [0.0; 3]), value!({"area": "field", "cost": 3.0})))];
    for (name, min, max, area, cost) in [
        ("Road", [-16.0, -0.5, -1.0], [16.0, 0.5, 1.0], "road", 1.0),
        ("Mud", [-3.0, -0.5, 4.0], [3.0, 0.5, 12.0], "mud", 50.0),
        ("Crossing", [-1.0, -0.5, -3.0], [1.0, 0.5, 3.0], "crossing", 2.0),
    ] {
        let (t, s) = box_placement(min, max);
        let node = trs(name, Some(cube), t, IDENTITY_ROTATION, s);
        roots.push(b.node(with_extras(node, value!({"navmesh": "area_volume", "area": area, "cost": cost}))));
    }
    b.scene(roots);
    b.write_glb(&dir.join("road.glb"))
}

/// A ramp with an area volume reaching half way up it, and one above it.
pub(crate) fn slope_volume(dir: &Path) -> Result<()> {
    let mut b = Builder::new();
    let mut ramp = Geometry::default();
    let v = [[0.0, 0.0, 0.0], [10.0, 3.0, 0.0], [10.0, 3.0, 10.0], [0.0, 0.0, 10.0]].map(|p| ramp.vertex(p));
    ramp.triangle_facing([v[0], v[1], v[2]], [0.0, 1.0, 0.0]);
    ramp.triangle_facing([v[0], v[2], v[3]], [0.0, 1.0, 0.0]);
    let ramp = b.geometry_mesh("Ramp", &ramp);
    let cube = b.geometry_mesh("UnitBox", &unit_box());
    let mut roots = vec![b.node(placed("Ramp", Some(ramp), [0.0; 3]))];
    for (name, min, max, area) in [
        ("Puddle", [-1.0, -1.0, -1.0], [11.0, 1.5, 11.0], "puddle"),
        ("Cloud", [-1.0, 4.0, -1.0], [11.0, 5.0, 11.0], "cloud"),
    ] {
        let (t, s) = box_placement(min, max);
        let node = trs(name, Some(cube), t, IDENTITY_ROTATION, s);
        roots.push(b.node(with_extras(node, value!({"navmesh": "area_volume", "area": area, "cost": 2.0}))));
    }
    b.scene(roots);
    b.write_glb(&dir.join("slope_volume.glb"))
}

/// Latitude bands and vertices per ring of the noisy rock: `ROCK_RINGS - 1` rings between the
/// poles, `2 · segments · (bands − 1)` = 5,000 triangles.
pub(crate) const ROCK_RINGS: u32 = 51;
pub(crate) const ROCK_SEGMENTS: u32 = 50;

/// A scanned-looking rock: a closed ellipsoid (semi-axes 2.0 m along x, 1.0 m up, 1.4 m along
/// z, centred at (0, 0.7, 0)) whose every vertex is pushed along its direction from the centre
/// by a smooth bulge (±15%) and seeded noise (±12%), so its outline is full of dents. Two poles,
/// `ROCK_RINGS - 1` rings; outward counter-clockwise faces.
pub(crate) fn noisy_rock() -> Geometry {
    use meadow_testkit::rng::{Draw, SplitMix64};
    use std::f64::consts::{PI, TAU};
    let mut rng = SplitMix64::new(0x0c0b_b1e5);
    let mut g = Geometry::default();
    let centre = [0.0, 0.7, 0.0];
    let point = |g: &mut Geometry, polar: f64, azimuth: f64, rng: &mut SplitMix64| {
        let bulge = 0.15 * (3.0 * azimuth).sin() * (2.0 * polar).cos();
        let scale = 1.0 + bulge + rng.uniform(-0.12, 0.12);
        let dir = [polar.sin() * azimuth.cos(), polar.cos(), polar.sin() * azimuth.sin()];
        let p = [2.0 * dir[0] * scale, 1.0 * dir[1] * scale + centre[1], 1.4 * dir[2] * scale];
        g.vertex(p.map(|v| v as f32))
    };
    let top = point(&mut g, 0.0, 0.0, &mut rng);
    let mut rings = Vec::new();
    for i in 1..ROCK_RINGS {
        let polar = PI * f64::from(i) / f64::from(ROCK_RINGS);
        rings.push(
            (0..ROCK_SEGMENTS)
                .map(|k| point(&mut g, polar, TAU * f64::from(k) / f64::from(ROCK_SEGMENTS), &mut rng))
                .collect::<Vec<_>>(),
        );
    }
    let bottom = point(&mut g, PI, 0.0, &mut rng);
    let at = |g: &Geometry, v: u32| g.positions[v as usize].map(f64::from);
    // Outward: from the centre to the triangle's centroid.
    let face = |g: &mut Geometry, t: [u32; 3]| {
        let c = [0, 1, 2].map(|axis| t.iter().map(|&v| at(g, v)[axis]).sum::<f64>() / 3.0 - centre[axis]);
        g.triangle_facing(t, c);
    };
    let n = ROCK_SEGMENTS as usize;
    for k in 0..n {
        let (a, b) = (rings[0][k], rings[0][(k + 1) % n]);
        face(&mut g, [top, a, b]);
        let last = &rings[rings.len() - 1];
        let (a, b) = (last[k], last[(k + 1) % n]);
        face(&mut g, [bottom, a, b]);
    }
    for r in 0..rings.len() - 1 {
        for k in 0..n {
            let (a, b) = (rings[r][k], rings[r][(k + 1) % n]);
            let (c, d) = (rings[r + 1][k], rings[r + 1][(k + 1) % n]);
            face(&mut g, [a, b, d]);
            face(&mut g, [a, d, c]);
        }
    }
    g
}

/// The noisy rock on a 20 × 20 floor, tagged `obstacle` with `"footprint": "hull"`
/// (`rock_hull.glb`) or `obstacle` alone (`rock.glb`).
pub(crate) fn rock(dir: &Path, hull: bool) -> Result<()> {
    let mut b = Builder::new();
    let floor = b.geometry_mesh("Floor", &floor_geometry(10.0));
    let rock = b.geometry_mesh("Rock", &noisy_rock());
    let tags =
        if hull { value!({"navmesh": "obstacle", "footprint": "hull"}) } else { value!({"navmesh": "obstacle"}) };
    let roots = vec![
        b.node(placed("Floor", Some(floor), [0.0; 3])),
        b.node(with_extras(placed("Rock", Some(rock), [0.0; 3]), tags)),
    ];
    b.scene(roots);
    b.write_glb(&dir.join(if hull { "rock_hull.glb" } else { "rock.glb" }))
}
