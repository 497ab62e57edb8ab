//! Writes the glTF fixture levels into `fixtures/levels/` and malformed inputs into `fixtures/bad/`.
//!
//! Run with `cargo run -p meadow-suite --bin gen_fixtures [OUT_DIR]` (default: the workspace's
//! `fixtures/`). The output is deterministic (byte-identical on every run) and is committed;
//! `fixtures/levels/README.md` documents the exact geometry, and a test checks that the committed
//! files equal a fresh run. Conventions: metres, +Y up; boxes are closed 12-triangle boxes with
//! outward-facing counter-clockwise faces; floors face up.

use gltf_json as json;
use json::validation::Checked::Valid;
use json::validation::USize64;
use json::Index;
use meadow_testkit::gltf::{self, IndexWidth};
use serde_json::json as value;
use std::collections::BTreeMap;
use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};

type Result<T> = std::result::Result<T, Box<dyn Error>>;
type V3 = [f32; 3];

/// Triangle soup with an index list, built by the shape helpers below.
#[derive(Clone, Debug, Default)]
struct Geometry {
    positions: Vec<V3>,
    triangles: Vec<[u32; 3]>,
}

fn sub(a: V3, b: V3) -> [f64; 3] {
    [f64::from(a[0]) - f64::from(b[0]), f64::from(a[1]) - f64::from(b[1]), f64::from(a[2]) - f64::from(b[2])]
}

fn cross(u: [f64; 3], v: [f64; 3]) -> [f64; 3] {
    [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
}

fn dot(u: [f64; 3], v: [f64; 3]) -> f64 {
    u[0] * v[0] + u[1] * v[1] + u[2] * v[2]
}

impl Geometry {
    fn vertex(&mut self, p: V3) -> u32 {
        self.positions.push(p);
        (self.positions.len() - 1) as u32
    }

    /// Adds triangle `a b c`, reordered so that its normal points along `outward`.
    fn triangle_facing(&mut self, [a, b, c]: [u32; 3], outward: [f64; 3]) {
        let (pa, pb, pc) = (self.positions[a as usize], self.positions[b as usize], self.positions[c as usize]);
        let normal = cross(sub(pb, pa), sub(pc, pa));
        let facing = dot(normal, outward);
        assert!(facing != 0.0, "generator bug: triangle perpendicular to its outward direction");
        self.triangles.push(if facing > 0.0 { [a, b, c] } else { [a, c, b] });
    }

    /// An upward-facing rectangle `[x0, x1] × [z0, z1]` at height `y` (2 triangles).
    fn floor(&mut self, x0: f32, z0: f32, x1: f32, z1: f32, y: f32) -> &mut Self {
        let v = [[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]].map(|p| self.vertex(p));
        self.triangle_facing([v[0], v[1], v[2]], [0.0, 1.0, 0.0]);
        self.triangle_facing([v[0], v[2], v[3]], [0.0, 1.0, 0.0]);
        self
    }

    /// A closed axis-aligned box (8 vertices, 12 outward triangles).
    fn cuboid(&mut self, min: V3, max: V3) -> &mut Self {
        let first = self.positions.len() as u32;
        for k in 0..8u32 {
            let pick = |bit: u32, axis: usize| if k & bit == 0 { min[axis] } else { max[axis] };
            self.vertex([pick(1, 0), pick(2, 1), pick(4, 2)]);
        }
        // Each face: the axis it is normal to, the side, and its four corners in ring order.
        for axis in 0..3usize {
            let bit = 1u32 << axis;
            let (u, v) = (1u32 << ((axis + 1) % 3), 1u32 << ((axis + 2) % 3));
            for side in [0, bit] {
                let ring = [side, side | u, side | u | v, side | v].map(|c| first + c);
                let mut outward = [0.0; 3];
                outward[axis] = if side == 0 { -1.0 } else { 1.0 };
                self.triangle_facing([ring[0], ring[1], ring[2]], outward);
                self.triangle_facing([ring[0], ring[2], ring[3]], outward);
            }
        }
        self
    }

    /// A closed vertical prism over a regular `sides`-gon (a cylinder), `4 * sides - 4` triangles.
    fn prism(&mut self, centre_x: f32, centre_z: f32, radius: f32, y0: f32, y1: f32, sides: u32) -> &mut Self {
        let first = self.positions.len() as u32;
        for k in 0..sides {
            let angle = std::f64::consts::TAU * f64::from(k) / f64::from(sides);
            let (x, z) =
                (centre_x + (radius as f64 * angle.cos()) as f32, centre_z + (radius as f64 * angle.sin()) as f32);
            self.vertex([x, y0, z]);
            self.vertex([x, y1, z]);
        }
        let bottom = |k: u32| first + 2 * (k % sides);
        let top = |k: u32| first + 2 * (k % sides) + 1;
        for k in 0..sides {
            let angle = std::f64::consts::TAU * (f64::from(k) + 0.5) / f64::from(sides);
            let out = [angle.cos(), 0.0, angle.sin()];
            self.triangle_facing([bottom(k), bottom(k + 1), top(k + 1)], out);
            self.triangle_facing([bottom(k), top(k + 1), top(k)], out);
        }
        for k in 1..sides - 1 {
            self.triangle_facing([top(0), top(k), top(k + 1)], [0.0, 1.0, 0.0]);
            self.triangle_facing([bottom(0), bottom(k), bottom(k + 1)], [0.0, -1.0, 0.0]);
        }
        self
    }

    /// A closed ramp wedge over `[x0, x1] × [z0, z1]` rising along +x from `y = 0` at `x0` to
    /// `height` at `x1` (8 triangles: slope 2, bottom 2, back 2, sides 2).
    fn wedge_rising_x(&mut self, x0: f32, x1: f32, z0: f32, z1: f32, height: f32) -> &mut Self {
        let [a, b, c, d] = [[x0, 0.0, z0], [x1, 0.0, z0], [x1, 0.0, z1], [x0, 0.0, z1]].map(|p| self.vertex(p));
        let [e, f] = [[x1, height, z0], [x1, height, z1]].map(|p| self.vertex(p));
        let slope_normal = [-f64::from(height), f64::from(x1 - x0), 0.0];
        self.triangle_facing([a, e, f], slope_normal);
        self.triangle_facing([a, f, d], slope_normal);
        self.triangle_facing([a, b, c], [0.0, -1.0, 0.0]);
        self.triangle_facing([a, c, d], [0.0, -1.0, 0.0]);
        self.triangle_facing([b, e, f], [1.0, 0.0, 0.0]);
        self.triangle_facing([b, f, c], [1.0, 0.0, 0.0]);
        self.triangle_facing([a, b, e], [0.0, 0.0, -1.0]);
        self.triangle_facing([d, c, f], [0.0, 0.0, 1.0]);
        self
    }

    fn flat_indices(&self) -> Vec<u32> {
        self.triangles.iter().flatten().copied().collect()
    }
}

/// A glTF document under construction plus its single binary buffer.
struct Builder {
    root: json::Root,
    bin: Vec<u8>,
}

impl Builder {
    fn new() -> Self {
        let mut root = json::Root::default();
        root.asset.generator = Some("meadow gen_fixtures".to_string());
        Builder { root, bin: Vec::new() }
    }

    fn view(&mut self, bytes: &[u8], target: json::buffer::Target) -> Index<json::buffer::View> {
        let offset = gltf::append_aligned(&mut self.bin, bytes);
        self.root.push(json::buffer::View {
            buffer: Index::new(0),
            byte_length: USize64::from(bytes.len()),
            byte_offset: Some(USize64::from(offset)),
            byte_stride: None,
            extensions: None,
            extras: None,
            name: None,
            target: Some(Valid(target)),
        })
    }

    fn positions(&mut self, points: &[V3]) -> Index<json::Accessor> {
        let view = self.view(&gltf::f32_bytes(points), json::buffer::Target::ArrayBuffer);
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        for p in points.iter().filter(|p| p.iter().all(|c| c.is_finite())) {
            for k in 0..3 {
                min[k] = min[k].min(p[k]);
                max[k] = max[k].max(p[k]);
            }
        }
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(points.len()),
            component_type: Valid(json::accessor::GenericComponentType(json::accessor::ComponentType::F32)),
            extensions: None,
            extras: None,
            type_: Valid(json::accessor::Type::Vec3),
            min: Some(value!(min)),
            max: Some(value!(max)),
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    fn indices(&mut self, indices: &[u32], width: IndexWidth) -> Index<json::Accessor> {
        use json::accessor::ComponentType;
        let component = match width {
            IndexWidth::U8 => ComponentType::U8,
            IndexWidth::U16 => ComponentType::U16,
            IndexWidth::U32 => ComponentType::U32,
        };
        let view = self.view(&width.bytes(indices), json::buffer::Target::ElementArrayBuffer);
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(indices.len()),
            component_type: Valid(json::accessor::GenericComponentType(component)),
            extensions: None,
            extras: None,
            type_: Valid(json::accessor::Type::Scalar),
            min: None,
            max: None,
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    fn primitive(
        &mut self,
        positions: Index<json::Accessor>,
        indices: Option<Index<json::Accessor>>,
        mode: json::mesh::Mode,
    ) -> json::mesh::Primitive {
        let mut attributes = BTreeMap::new();
        attributes.insert(Valid(json::mesh::Semantic::Positions), positions);
        json::mesh::Primitive {
            attributes,
            extensions: None,
            extras: None,
            indices,
            material: None,
            mode: Valid(mode),
            targets: None,
        }
    }

    /// An indexed TRIANGLES primitive of the geometry.
    fn triangles(&mut self, geometry: &Geometry, width: IndexWidth) -> json::mesh::Primitive {
        let positions = self.positions(&geometry.positions);
        let indices = self.indices(&geometry.flat_indices(), width);
        self.primitive(positions, Some(indices), json::mesh::Mode::Triangles)
    }

    fn mesh(&mut self, name: &str, primitives: Vec<json::mesh::Primitive>) -> Index<json::Mesh> {
        self.root.push(json::Mesh {
            extensions: None,
            extras: None,
            name: Some(name.to_string()),
            primitives,
            weights: None,
        })
    }

    fn geometry_mesh(&mut self, name: &str, geometry: &Geometry) -> Index<json::Mesh> {
        let primitive = self.triangles(geometry, IndexWidth::U16);
        self.mesh(name, vec![primitive])
    }

    fn node(&mut self, node: json::Node) -> Index<json::Node> {
        self.root.push(node)
    }

    fn add_child(&mut self, parent: Index<json::Node>, child: Index<json::Node>) {
        self.root.nodes[parent.value()].children.get_or_insert_with(Vec::new).push(child);
    }

    fn scene(&mut self, roots: Vec<Index<json::Node>>) {
        let scene = self.root.push(json::Scene { extensions: None, extras: None, name: None, nodes: roots });
        self.root.scene = Some(scene);
    }

    fn set_buffer(&mut self, uri: Option<String>) {
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        if self.bin.is_empty() {
            return;
        }
        self.root.buffers = vec![json::Buffer {
            byte_length: USize64::from(self.bin.len()),
            extensions: None,
            extras: None,
            name: None,
            uri,
        }];
    }

    /// `.glb`: header, JSON chunk padded with spaces, BIN chunk (if any) padded with zeros.
    fn glb_bytes(mut self) -> Result<Vec<u8>> {
        self.set_buffer(None);
        let json_chunk = json::serialize::to_vec(&self.root)?;
        Ok(gltf::glb(&json_chunk, (!self.bin.is_empty()).then_some(self.bin.as_slice())))
    }

    fn write_glb(self, path: &Path) -> Result<()> {
        write(path, &self.glb_bytes()?)
    }

    /// `.gltf` with an external `.bin` next to it (named after the `.gltf`).
    fn write_gltf_external(mut self, path: &Path) -> Result<()> {
        let bin_name = path.with_extension("bin");
        let uri = bin_name.file_name().and_then(|n| n.to_str()).ok_or("bad file name")?.to_string();
        self.set_buffer(Some(uri));
        let text = json::serialize::to_string_pretty(&self.root)?;
        write(path, format!("{text}\n").as_bytes())?;
        write(&bin_name, &self.bin)
    }

    /// `.gltf` with the buffer embedded as a base64 data URI.
    fn write_gltf_embedded(mut self, path: &Path) -> Result<()> {
        let uri = format!("data:application/octet-stream;base64,{}", base64(&self.bin));
        self.set_buffer(Some(uri));
        let text = json::serialize::to_string_pretty(&self.root)?;
        write(path, format!("{text}\n").as_bytes())
    }
}

fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()).into())
}

/// Standard base64 with padding (RFC 4648), for embedded data URIs.
fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk[0], *chunk.get(1).unwrap_or(&0), *chunk.get(2).unwrap_or(&0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for k in 0..4 {
            if k <= chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * k)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A node with a name, optional mesh and translation/rotation/scale.
fn trs(name: &str, mesh: Option<Index<json::Mesh>>, t: V3, r: [f32; 4], s: V3) -> json::Node {
    json::Node {
        name: Some(name.to_string()),
        mesh,
        translation: (t != [0.0; 3]).then_some(t),
        rotation: (r != [0.0, 0.0, 0.0, 1.0]).then_some(json::scene::UnitQuaternion(r)),
        scale: (s != [1.0; 3]).then_some(s),
        ..Default::default()
    }
}

fn placed(name: &str, mesh: Option<Index<json::Mesh>>, t: V3) -> json::Node {
    trs(name, mesh, t, IDENTITY_ROTATION, [1.0; 3])
}

fn with_extras(mut node: json::Node, extras: serde_json::Value) -> json::Node {
    node.extras = Some(serde_json::value::to_raw_value(&extras).expect("extras serialise"));
    node
}

const IDENTITY_ROTATION: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// Rotation about +Y by `degrees`, as a glTF quaternion `[x, y, z, w]`.
fn rotation_y(degrees: f64) -> [f32; 4] {
    let half = degrees.to_radians() / 2.0;
    [0.0, half.sin() as f32, 0.0, half.cos() as f32]
}

/// The unit cube `[-0.5, 0.5]³`, placed and sized by node transforms.
fn unit_box() -> Geometry {
    let mut g = Geometry::default();
    g.cuboid([-0.5; 3], [0.5; 3]);
    g
}

/// Translation and scale that map the unit cube onto the box `[min, max]`.
fn box_placement(min: V3, max: V3) -> (V3, V3) {
    let centre = [(min[0] + max[0]) / 2.0, (min[1] + max[1]) / 2.0, (min[2] + max[2]) / 2.0];
    let size = [max[0] - min[0], max[1] - min[1], max[2] - min[2]];
    (centre, size)
}

fn floor_geometry(half: f32) -> Geometry {
    let mut g = Geometry::default();
    g.floor(-half, -half, half, half, 0.0);
    g
}

fn open_floor(dir: &Path) -> Result<()> {
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

fn box_floor_builder() -> Builder {
    let mut b = Builder::new();
    let floor = b.geometry_mesh("Floor", &floor_geometry(10.0));
    let mut cube = Geometry::default();
    cube.cuboid([-1.0, 0.0, -1.0], [1.0, 2.0, 1.0]);
    let cube = b.geometry_mesh("Box", &cube);
    let roots = vec![b.node(placed("Floor", Some(floor), [0.0; 3])), b.node(placed("Box", Some(cube), [0.0; 3]))];
    b.scene(roots);
    b
}

fn box_floor(dir: &Path) -> Result<()> {
    box_floor_builder().write_glb(&dir.join("box_floor.glb"))
}

/// Walls (as `[min, max]` boxes) of the three rooms, for `rooms.glb`.
const ROOM_WALLS: [(&str, V3, V3); 8] = [
    ("WallSouth", [-15.0, 0.0, -5.0], [15.0, 3.0, -4.8]),
    ("WallNorth", [-15.0, 0.0, 4.8], [15.0, 3.0, 5.0]),
    ("WallWest", [-15.0, 0.0, -4.8], [-14.8, 3.0, 4.8]),
    ("WallEast", [14.8, 0.0, -4.8], [15.0, 3.0, 4.8]),
    ("WallAB_South", [-5.1, 0.0, -4.8], [-4.9, 3.0, -0.5]),
    ("WallAB_North", [-5.1, 0.0, 0.5], [-4.9, 3.0, 4.8]),
    ("WallBC_South", [4.9, 0.0, -4.8], [5.1, 3.0, -1.0]),
    ("WallBC_North", [4.9, 0.0, 1.0], [5.1, 3.0, 4.8]),
];

fn rooms(dir: &Path) -> Result<()> {
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

fn corridor_l(dir: &Path) -> Result<()> {
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

fn ramps(dir: &Path) -> Result<()> {
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

fn table(dir: &Path) -> Result<()> {
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
fn bridge(dir: &Path) -> Result<()> {
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
fn matrix_trs(t: V3, degrees: f64, s: V3) -> [f32; 16] {
    let (sin, cos) = degrees.to_radians().sin_cos();
    // Snap the exact angles so that 180° gives exactly -1 and 0.
    let snap = |v: f64| if v.abs() < 1e-12 { 0.0 } else { v };
    let (sin, cos) = (snap(sin) as f32, snap(cos) as f32);
    [cos * s[0], 0.0, -sin * s[0], 0.0, 0.0, s[1], 0.0, 0.0, sin * s[2], 0.0, cos * s[2], 0.0, t[0], t[1], t[2], 1.0]
}

fn hierarchy(dir: &Path) -> Result<()> {
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

fn strips_fans(dir: &Path) -> Result<()> {
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

fn tagged(dir: &Path) -> Result<()> {
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
fn link_node(name: &str, t: V3, link: serde_json::Value) -> json::Node {
    with_extras(placed(name, None, t), value!({ "navmesh_link": link }))
}

/// Two floors with a 2 m gap between them that no step crosses, and two jump links across it.
fn links_gap(dir: &Path) -> Result<()> {
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
fn links_ladder(dir: &Path) -> Result<()> {
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
fn links_islands(dir: &Path) -> Result<()> {
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
fn halls(dir: &Path) -> Result<()> {
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
const FLOOR_STRIPS: [(&str, f32, f32); 7] = [
    ("TaggedStrip", 0.0, 5.0),
    ("Strip1", 5.0, 6.0),
    ("Strip2", 6.0, 8.0),
    ("Strip3", 8.0, 11.0),
    ("Strip4", 11.0, 15.0),
    ("Strip5", 15.0, 20.0),
    ("Strip6", 20.0, 26.0),
];

/// One floor split into seven meshes, only the first tagged walkable.
fn split_floor(dir: &Path) -> Result<()> {
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
fn road(dir: &Path) -> Result<()> {
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
fn slope_volume(dir: &Path) -> Result<()> {
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

/// A one-node level whose mesh is the given primitive list (for the malformed inputs).
fn single_mesh(positions: &[V3], indices: Option<&[u32]>) -> Builder {
    let mut b = Builder::new();
    let p = b.positions(positions);
    let i = indices.map(|i| b.indices(i, IndexWidth::U16));
    let primitive = b.primitive(p, i, json::mesh::Mode::Triangles);
    let mesh = b.mesh("Mesh", vec![primitive]);
    let node = b.node(placed("Node", Some(mesh), [0.0; 3]));
    b.scene(vec![node]);
    b
}

const QUAD: [V3; 4] = [[-1.0, 0.0, -1.0], [-1.0, 0.0, 1.0], [1.0, 0.0, 1.0], [1.0, 0.0, -1.0]];
const QUAD_INDICES: [u32; 6] = [0, 1, 2, 0, 2, 3];

fn bad_inputs(dir: &Path) -> Result<()> {
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
fn bad_link_inputs(dir: &Path) -> Result<()> {
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

const SETTINGS_EXAMPLE: &str = "\
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

fn main() -> Result<()> {
    // Optional argument: another output directory (the tests regenerate into a temporary one).
    let root = match std::env::args_os().nth(1) {
        Some(dir) => PathBuf::from(dir),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures"),
    };
    let levels = root.join("levels");
    let bad = root.join("bad");
    fs::create_dir_all(&levels)?;
    fs::create_dir_all(&bad)?;
    open_floor(&levels)?;
    box_floor(&levels)?;
    rooms(&levels)?;
    corridor_l(&levels)?;
    ramps(&levels)?;
    table(&levels)?;
    hierarchy(&levels)?;
    strips_fans(&levels)?;
    tagged(&levels)?;
    bridge(&levels)?;
    links_gap(&levels)?;
    links_ladder(&levels)?;
    links_islands(&levels)?;
    halls(&levels)?;
    split_floor(&levels)?;
    road(&levels)?;
    slope_volume(&levels)?;
    write(&levels.join("meadow.toml"), SETTINGS_EXAMPLE.as_bytes())?;
    bad_inputs(&bad)?;
    bad_link_inputs(&bad)?;
    println!("wrote fixtures to {}", root.display());
    Ok(())
}
