//! Malformed inputs for the error tests: broken containers, bad accessors, bad tags and links.

use crate::builder::*;
use crate::levels::*;
use gltf_json as json;
use json::validation::Checked::Valid;
use json::validation::USize64;
use meadow_testkit::gltf::IndexWidth;
use serde_json::json as value;
use std::path::Path;

/// A one-node level whose mesh is the given primitive list (for the malformed inputs).
pub(crate) fn single_mesh(positions: &[V3], indices: Option<&[u32]>) -> Builder {
    let mut b = Builder::new();
    let p = b.positions(positions);
    let i = indices.map(|i| b.indices(i, IndexWidth::U16));
    let primitive = b.primitive(p, i, json::mesh::Mode::Triangles);
    let mesh = b.mesh("Mesh", vec![primitive]);
    let node = b.node(placed("Node", Some(mesh), [0.0; 3]));
    b.scene(vec![node]);
    b
}

pub(crate) const QUAD: [V3; 4] = [[-1.0, 0.0, -1.0], [-1.0, 0.0, 1.0], [1.0, 0.0, 1.0], [1.0, 0.0, -1.0]];
pub(crate) const QUAD_INDICES: [u32; 6] = [0, 1, 2, 0, 2, 3];

pub(crate) fn bad_inputs(dir: &Path) -> Result<()> {
    let glb = box_floor_builder().glb_bytes()?;
    write(&dir.join("truncated.glb"), &glb[..glb.len() / 2])?;

    // A .gltf whose external buffer is deliberately not written.
    let mut missing = single_mesh(&QUAD, Some(&QUAD_INDICES));
    missing.set_buffer(Some("missing_bin.bin".into()));
    write(&dir.join("missing_bin.gltf"), json::serialize::to_string_pretty(&missing.root)?.as_bytes())?;

    let mut nan = QUAD;
    nan[2][1] = f32::NAN;
    single_mesh(&nan, Some(&QUAD_INDICES)).write_glb(&dir.join("nan_position.glb"))?;
    let mut inf = QUAD;
    inf[1][0] = f32::INFINITY;
    single_mesh(&inf, Some(&QUAD_INDICES)).write_glb(&dir.join("inf_position.glb"))?;

    let mut empty = Builder::new();
    let node = empty.node(placed("Nothing", None, [0.0; 3]));
    empty.scene(vec![node]);
    empty.write_glb(&dir.join("empty_scene.glb"))?;

    // Repeated indices and collinear corners only.
    let line = [[0.0, 0.0, 0.0], [1.0, 0.0, 1.0], [2.0, 0.0, 2.0], [5.0, 0.0, 0.0]];
    single_mesh(&line, Some(&[0, 1, 2, 0, 0, 3, 3, 3, 3, 2, 1, 0])).write_glb(&dir.join("degenerate_only.glb"))?;

    single_mesh(&QUAD, Some(&[0, 1, 2, 0, 2, 4])).write_glb(&dir.join("index_out_of_range.glb"))?;

    let mut no_position = single_mesh(&QUAD, Some(&QUAD_INDICES));
    let attributes = &mut no_position.root.meshes[0].primitives[0].attributes;
    let accessor = attributes.remove(&Valid(json::mesh::Semantic::Positions)).ok_or("no POSITION")?;
    attributes.insert(Valid(json::mesh::Semantic::Normals), accessor);
    no_position.write_glb(&dir.join("missing_position.glb"))?;

    // The .bin holds fewer bytes than the buffer's byteLength.
    let mut short = single_mesh(&QUAD, Some(&QUAD_INDICES));
    short.set_buffer(Some("buffer_too_short.bin".into()));
    write(&dir.join("buffer_too_short.gltf"), json::serialize::to_string_pretty(&short.root)?.as_bytes())?;
    write(&dir.join("buffer_too_short.bin"), &short.bin[..short.bin.len() - 8])?;

    let mut overrun = single_mesh(&QUAD, Some(&QUAD_INDICES));
    overrun.root.accessors[0].count = USize64(40);
    overrun.write_glb(&dir.join("accessor_overrun.glb"))?;

    write(&dir.join("not_gltf.glb"), b"PK\x03\x04 this is a zip archive, not a glTF level")?;
    write(&dir.join("bad_json.gltf"), b"{\n  \"asset\": {\"version\": \"2.0\"},\n  \"nodes\": [\n")?;

    let mut bad_tag = single_mesh(&QUAD, Some(&QUAD_INDICES));
    bad_tag.root.nodes[0] = with_extras(bad_tag.root.nodes[0].clone(), value!({"navmesh": "flying"}));
    bad_tag.write_glb(&dir.join("bad_tag.glb"))?;
    // A box without its top face, tagged as an area volume: not closed.
    let mut open = Geometry::default();
    open.cuboid([-1.0, -0.5, -1.0], [1.0, 0.5, 1.0]);
    open.triangles.drain(6..8);
    let mut open_volume = Builder::new();
    let floor = open_volume.geometry_mesh("Floor", &floor_geometry(5.0));
    let water = open_volume.geometry_mesh("OpenBox", &open);
    let roots = vec![
        open_volume.node(placed("Floor", Some(floor), [0.0; 3])),
        open_volume.node(with_extras(
            placed("Pond", Some(water), [0.0; 3]),
            value!({"navmesh": "area_volume", "area": "water", "cost": 3.0}),
        )),
    ];
    open_volume.scene(roots);
    open_volume.write_glb(&dir.join("open_volume.glb"))?;
    let mut no_area = Builder::new();
    let floor = no_area.geometry_mesh("Floor", &floor_geometry(5.0));
    let cube = no_area.geometry_mesh("UnitBox", &unit_box());
    let roots = vec![
        no_area.node(placed("Floor", Some(floor), [0.0; 3])),
        no_area.node(with_extras(placed("Marsh", Some(cube), [0.0; 3]), value!({"navmesh": "area_volume"}))),
    ];
    no_area.scene(roots);
    no_area.write_glb(&dir.join("volume_without_area.glb"))?;

    let mut bad_cost = single_mesh(&QUAD, Some(&QUAD_INDICES));
    bad_cost.root.nodes[0] = with_extras(bad_cost.root.nodes[0].clone(), value!({"area": "ice", "cost": 0.5}));
    bad_cost.write_glb(&dir.join("bad_cost.glb"))?;

    write(
        &dir.join("negative_radius.toml"),
        b"# Invalid: the agent radius must be >= 0.\nradius = -0.5\nheight = 2.0\nmax_climb = 0.9\nmax_slope = 45.0\n",
    )
}

/// Malformed off-mesh links: each a one-line ingest error naming the node.
pub(crate) fn bad_link_inputs(dir: &Path) -> Result<()> {
    for (file, link) in [
        ("bad_link_self.glb", value!({"to": "Node"})),
        ("bad_link_target.glb", value!({"to": "Missing"})),
        ("bad_link_cost.glb", value!({"to": "Other", "cost": -1.0})),
    ] {
        let mut level = single_mesh(&QUAD, Some(&QUAD_INDICES));
        level.root.nodes[0] = with_extras(level.root.nodes[0].clone(), value!({ "navmesh_link": link }));
        let other = level.node(placed("Other", None, [0.5, 0.0, 0.5]));
        level.root.scenes[0].nodes.push(other);
        level.write_glb(&dir.join(file))?;
    }
    Ok(())
}

pub(crate) const SETTINGS_EXAMPLE: &str = "\
# Bake settings for the fixture levels (Recast's demo agent). Units: metres and degrees.
radius = 0.6
height = 2.0
max_climb = 0.9
max_slope = 45.0
max_verts_per_poly = 6
arc_tolerance = 0.01
max_edge_length = 12.0
# Which geometry may be floor: \"by-slope\" (untagged too) or \"tagged-only\".
walkable = \"by-slope\"
";
