//! The GLB read back with the `gltf` crate: every reference in range, the faces covering the
//! navmesh's area, one node per layer, lines for walls, portals and links.

use super::*;
use crate::ingest::ingest_file;
use crate::NoProgress;
use meadow::BakeSettings;
use std::path::PathBuf;

/// Relative tolerance of the faces' XZ area against [`NavMesh::total_area`]: positions are
/// stored as `f32` (each coordinate rounded by at most 2^-24 of itself, about 6e-8), so each
/// triangle's area moves by a few times that relative to the coordinates' size; 1e-5 leaves a
/// wide margin over levels of tens of metres and still catches one missing triangle.
const AREA_TOLERANCE_REL: f64 = 1e-5;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/levels").join(name)
}

fn bake_fixture(name: &str) -> (Scene, NavMesh) {
    let scene = ingest_file(&fixture(name), &mut NoProgress).expect("fixture reads");
    let mesh = crate::bake(&scene, &BakeSettings::DEFAULT, &mut NoProgress).expect("fixture bakes");
    (scene, mesh)
}

/// What the read-back checks found, for the per-fixture assertions.
#[derive(Debug, Default)]
struct ReadBack {
    /// Per node name: triangles, line segments, primitives.
    nodes: BTreeMap<String, (usize, usize, usize)>,
    /// Sum of the layer faces' areas in XZ.
    face_area_xz: f64,
}

/// Reads `bytes` with the `gltf` crate, checks every accessor, buffer view, index, material and
/// mesh reference is in range and every layer face faces up, and sums what it finds.
fn read_back(bytes: &[u8]) -> ReadBack {
    let gltf = gltf::Gltf::from_slice(bytes).expect("the gltf crate reads and validates the file");
    let blob = gltf.blob.as_deref().expect("a BIN chunk");
    assert_eq!(bytes.len() % 4, 0, "GLB length is 4-byte aligned");
    let buffers: Vec<gltf::Buffer> = gltf.buffers().collect();
    assert_eq!(buffers.len(), 1);
    assert!(buffers[0].length() <= blob.len(), "buffer within the BIN chunk");
    for view in gltf.views() {
        assert_eq!(view.offset() % 4, 0, "view aligned");
        assert!(view.offset() + view.length() <= buffers[view.buffer().index()].length(), "view within buffer");
    }
    for accessor in gltf.accessors() {
        let view = accessor.view().expect("every accessor has a view");
        let end = accessor.offset() + accessor.count() * accessor.size();
        assert!(end <= view.length(), "accessor {} within its view", accessor.index());
    }
    let material_count = gltf.materials().count();
    let mut used_materials = std::collections::BTreeSet::new();
    let mut out = ReadBack::default();
    let scene = gltf.default_scene().expect("a default scene");
    for node in scene.nodes() {
        let name = node.name().expect("named nodes").to_string();
        let mut counts = (0, 0, 0);
        for primitive in node.mesh().into_iter().flat_map(|m| m.primitives().collect::<Vec<_>>()) {
            counts.2 += 1;
            let material = primitive.material().index().expect("every primitive has a material");
            assert!(material < material_count);
            used_materials.insert(material);
            let reader = primitive.reader(|b| (b.index() == 0).then_some(blob));
            let positions: Vec<[f32; 3]> = reader.read_positions().expect("positions").collect();
            let indices: Vec<u32> = match reader.read_indices() {
                Some(i) => i.into_u32().collect(),
                None => (0..positions.len() as u32).collect(),
            };
            assert!(indices.iter().all(|&i| (i as usize) < positions.len()), "{name}: index out of range");
            match primitive.mode() {
                gltf::mesh::Mode::Triangles => {
                    assert_eq!(indices.len() % 3, 0);
                    counts.0 += indices.len() / 3;
                    if !name.starts_with("layer ") {
                        continue;
                    }
                    for t in indices.chunks(3) {
                        let [a, b, c] = [0, 1, 2].map(|k| positions[t[k] as usize].map(f64::from));
                        let (u, v) = ([b[0] - a[0], b[2] - a[2]], [c[0] - a[0], c[2] - a[2]]);
                        // The normal's y component is (v × u) in (x, z): twice the area seen
                        // from above, positive for a face whose front is up.
                        let up = v[0] * u[1] - v[1] * u[0];
                        assert!(up >= 0.0, "{name}: a face turned down ({up})");
                        out.face_area_xz += up / 2.0;
                    }
                }
                gltf::mesh::Mode::Lines => {
                    assert_eq!(indices.len() % 2, 0);
                    counts.1 += indices.len() / 2;
                }
                mode => panic!("{name}: unexpected mode {mode:?}"),
            }
        }
        assert!(out.nodes.insert(name, counts).is_none(), "node names are unique");
    }
    assert_eq!(used_materials.len(), material_count, "every material is used");
    out
}

/// Per layer: (triangles a fan gives, wall edges, portal edges drawn by this layer).
fn expected_layers(mesh: &NavMesh) -> BTreeMap<u16, (usize, usize, usize)> {
    let mut layers: BTreeMap<u16, (usize, usize, usize)> = BTreeMap::new();
    for (i, p) in mesh.polygons().enumerate() {
        let e = layers.entry(p.layer).or_default();
        e.0 += p.vertices.len() - 2;
        for link in p.links {
            match *link {
                EdgeLink::Wall => e.1 += 1,
                EdgeLink::Polygon(q) if (i as u32) < q => e.2 += 1,
                EdgeLink::Polygon(_) => {}
            }
        }
    }
    layers
}

fn check_fixture(name: &str, min_layers: usize, min_links: usize) {
    let (scene, mesh) = bake_fixture(name);
    let layers = expected_layers(&mesh);
    assert!(layers.len() >= min_layers && mesh.links().len() >= min_links, "{name}: the fixture changed");
    let bytes = export_glb(&mesh, Some(&scene)).expect("export");
    let back = read_back(&bytes);

    let total = mesh.total_area();
    assert!(
        (back.face_area_xz - total).abs() <= AREA_TOLERANCE_REL * total,
        "{name}: faces cover {} m² in XZ, the navmesh {total} m²",
        back.face_area_xz
    );
    for (layer, &(triangles, walls, portals)) in &layers {
        let node =
            back.nodes.get(&format!("layer {layer}")).unwrap_or_else(|| panic!("{name}: no node for layer {layer}"));
        assert_eq!(node.0, triangles, "{name} layer {layer}: triangles");
        assert_eq!(node.1, walls + portals, "{name} layer {layer}: wall and portal segments");
        assert!(walls > 0, "{name} layer {layer}: a layer is bounded by walls");
    }
    let layer_nodes = back.nodes.keys().filter(|n| n.starts_with("layer ")).count();
    assert_eq!(layer_nodes, layers.len(), "{name}: one node per layer");
    match back.nodes.get("off-mesh links") {
        Some(&(triangles, segments, primitives)) => {
            assert_eq!((triangles, primitives), (0, mesh.links().len()), "{name}: one line primitive per link");
            assert_eq!(segments, mesh.links().len() * LINK_ARC_SEGMENTS);
        }
        None => assert!(mesh.links().is_empty(), "{name}: links not drawn"),
    }
    assert_eq!(back.nodes["level"].0, scene.triangles.len(), "{name}: every level triangle");

    // Without the level: the same navmesh nodes and no level.
    let alone = read_back(&export_glb(&mesh, None).expect("export"));
    assert!(!alone.nodes.contains_key("level"));
    assert_eq!(alone.nodes.len(), back.nodes.len() - 1);
    // Deterministic bytes.
    assert_eq!(export_glb(&mesh, Some(&scene)).expect("export"), bytes);
}

#[test]
fn stacked_floors_and_a_ladder_read_back_whole() {
    check_fixture("links_ladder.glb", 2, 1);
}

#[test]
fn islands_and_one_way_links_read_back_whole() {
    check_fixture("links_islands.glb", 2, 2);
}

#[test]
fn ramps_and_a_bridge_read_back_whole() {
    // Faces on slopes: the XZ area still sums exactly (a fan keeps a convex polygon's XZ area
    // whatever its heights), and every face still turns up.
    check_fixture("ramps.glb", 1, 0);
    check_fixture("bridge.glb", 2, 0);
}

#[test]
fn area_types_get_their_own_materials() {
    let (_, mesh) = bake_fixture("tagged.glb");
    let areas: std::collections::BTreeSet<(u16, u16)> = mesh.polygons().map(|p| (p.layer, p.area)).collect();
    assert!(areas.iter().any(|&(_, a)| a != 0), "tagged.glb has non-default areas");
    let bytes = export_glb(&mesh, None).expect("export");
    let gltf = gltf::Gltf::from_slice(&bytes).expect("reads");
    let names: Vec<String> = gltf.materials().filter_map(|m| m.name().map(str::to_string)).collect();
    for (layer, area) in areas {
        let wanted = format!("layer {layer}: {}", mesh.areas()[area as usize].name);
        assert!(names.contains(&wanted), "no material {wanted:?} in {names:?}");
    }
}

#[test]
fn link_arcs_start_and_end_on_the_link() {
    let (a, b) = ([1.0, 0.0, 2.0], [1.0, 4.0, 2.0]);
    let arc = link_arc(a, b);
    assert_eq!((arc[0], arc[LINK_ARC_SEGMENTS]), (a, b));
    // A ladder still bows: its middle is above the straight line by the smallest rise.
    assert!((arc[LINK_ARC_SEGMENTS / 2][1] - (2.0 + LINK_ARC_MIN_RISE)).abs() < 1e-12);
}
