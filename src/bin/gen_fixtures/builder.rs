//! The glTF document builder and shape helpers the fixture levels are made of.

use gltf_json as json;
use json::validation::Checked::Valid;
use json::validation::USize64;
use json::Index;
use meadow_testkit::gltf::{self, IndexWidth};
use serde_json::json as value;
use std::collections::BTreeMap;
use std::error::Error;
use std::fs;
use std::path::Path;

pub(crate) type Result<T> = std::result::Result<T, Box<dyn Error>>;
pub(crate) type V3 = [f32; 3];

/// Triangle soup with an index list, built by the shape helpers below.
#[derive(Clone, Debug, Default)]
pub(crate) struct Geometry {
    pub(crate) positions: Vec<V3>,
    pub(crate) triangles: Vec<[u32; 3]>,
}

pub(crate) fn sub(a: V3, b: V3) -> [f64; 3] {
    [f64::from(a[0]) - f64::from(b[0]), f64::from(a[1]) - f64::from(b[1]), f64::from(a[2]) - f64::from(b[2])]
}

pub(crate) fn cross(u: [f64; 3], v: [f64; 3]) -> [f64; 3] {
    [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
}

pub(crate) fn dot(u: [f64; 3], v: [f64; 3]) -> f64 {
    u[0] * v[0] + u[1] * v[1] + u[2] * v[2]
}

impl Geometry {
    pub(crate) fn vertex(&mut self, p: V3) -> u32 {
        self.positions.push(p);
        (self.positions.len() - 1) as u32
    }

    /// Adds triangle `a b c`, reordered so that its normal points along `outward`.
    pub(crate) fn triangle_facing(&mut self, [a, b, c]: [u32; 3], outward: [f64; 3]) {
        let (pa, pb, pc) = (self.positions[a as usize], self.positions[b as usize], self.positions[c as usize]);
        let normal = cross(sub(pb, pa), sub(pc, pa));
        let facing = dot(normal, outward);
        assert!(facing != 0.0, "generator bug: triangle perpendicular to its outward direction");
        self.triangles.push(if facing > 0.0 { [a, b, c] } else { [a, c, b] });
    }

    /// An upward-facing rectangle `[x0, x1] × [z0, z1]` at height `y` (2 triangles).
    pub(crate) fn floor(&mut self, x0: f32, z0: f32, x1: f32, z1: f32, y: f32) -> &mut Self {
        let v = [[x0, y, z0], [x1, y, z0], [x1, y, z1], [x0, y, z1]].map(|p| self.vertex(p));
        self.triangle_facing([v[0], v[1], v[2]], [0.0, 1.0, 0.0]);
        self.triangle_facing([v[0], v[2], v[3]], [0.0, 1.0, 0.0]);
        self
    }

    /// A closed axis-aligned box (8 vertices, 12 outward triangles).
    pub(crate) fn cuboid(&mut self, min: V3, max: V3) -> &mut Self {
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
    pub(crate) fn prism(
        &mut self,
        centre_x: f32,
        centre_z: f32,
        radius: f32,
        y0: f32,
        y1: f32,
        sides: u32,
    ) -> &mut Self {
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
    pub(crate) fn wedge_rising_x(&mut self, x0: f32, x1: f32, z0: f32, z1: f32, height: f32) -> &mut Self {
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

    pub(crate) fn flat_indices(&self) -> Vec<u32> {
        self.triangles.iter().flatten().copied().collect()
    }
}

/// A glTF document under construction plus its single binary buffer.
pub(crate) struct Builder {
    pub(crate) root: json::Root,
    pub(crate) bin: Vec<u8>,
}

impl Builder {
    pub(crate) fn new() -> Self {
        let mut root = json::Root::default();
        root.asset.generator = Some("meadow gen_fixtures".to_string());
        Builder { root, bin: Vec::new() }
    }

    pub(crate) fn view(&mut self, bytes: &[u8], target: json::buffer::Target) -> Index<json::buffer::View> {
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

    pub(crate) fn positions(&mut self, points: &[V3]) -> Index<json::Accessor> {
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

    pub(crate) fn indices(&mut self, indices: &[u32], width: IndexWidth) -> Index<json::Accessor> {
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

    pub(crate) fn primitive(
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
    pub(crate) fn triangles(&mut self, geometry: &Geometry, width: IndexWidth) -> json::mesh::Primitive {
        let positions = self.positions(&geometry.positions);
        let indices = self.indices(&geometry.flat_indices(), width);
        self.primitive(positions, Some(indices), json::mesh::Mode::Triangles)
    }

    pub(crate) fn mesh(&mut self, name: &str, primitives: Vec<json::mesh::Primitive>) -> Index<json::Mesh> {
        self.root.push(json::Mesh {
            extensions: None,
            extras: None,
            name: Some(name.to_string()),
            primitives,
            weights: None,
        })
    }

    pub(crate) fn geometry_mesh(&mut self, name: &str, geometry: &Geometry) -> Index<json::Mesh> {
        let primitive = self.triangles(geometry, IndexWidth::U16);
        self.mesh(name, vec![primitive])
    }

    pub(crate) fn node(&mut self, node: json::Node) -> Index<json::Node> {
        self.root.push(node)
    }

    pub(crate) fn add_child(&mut self, parent: Index<json::Node>, child: Index<json::Node>) {
        self.root.nodes[parent.value()].children.get_or_insert_with(Vec::new).push(child);
    }

    pub(crate) fn scene(&mut self, roots: Vec<Index<json::Node>>) {
        let scene = self.root.push(json::Scene { extensions: None, extras: None, name: None, nodes: roots });
        self.root.scene = Some(scene);
    }

    pub(crate) fn set_buffer(&mut self, uri: Option<String>) {
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
    pub(crate) fn glb_bytes(mut self) -> Result<Vec<u8>> {
        self.set_buffer(None);
        let json_chunk = json::serialize::to_vec(&self.root)?;
        Ok(gltf::glb(&json_chunk, (!self.bin.is_empty()).then_some(self.bin.as_slice())))
    }

    pub(crate) fn write_glb(self, path: &Path) -> Result<()> {
        write(path, &self.glb_bytes()?)
    }

    /// `.gltf` with an external `.bin` next to it (named after the `.gltf`).
    pub(crate) fn write_gltf_external(mut self, path: &Path) -> Result<()> {
        let bin_name = path.with_extension("bin");
        let uri = bin_name.file_name().and_then(|n| n.to_str()).ok_or("bad file name")?.to_string();
        self.set_buffer(Some(uri));
        let text = json::serialize::to_string_pretty(&self.root)?;
        write(path, format!("{text}\n").as_bytes())?;
        write(&bin_name, &self.bin)
    }

    /// `.gltf` with the buffer embedded as a base64 data URI.
    pub(crate) fn write_gltf_embedded(mut self, path: &Path) -> Result<()> {
        let uri = format!("data:application/octet-stream;base64,{}", base64(&self.bin));
        self.set_buffer(Some(uri));
        let text = json::serialize::to_string_pretty(&self.root)?;
        write(path, format!("{text}\n").as_bytes())
    }
}

pub(crate) fn write(path: &Path, bytes: &[u8]) -> Result<()> {
    fs::write(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()).into())
}

/// Standard base64 with padding (RFC 4648), for embedded data URIs.
pub(crate) fn base64(bytes: &[u8]) -> String {
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
pub(crate) fn trs(name: &str, mesh: Option<Index<json::Mesh>>, t: V3, r: [f32; 4], s: V3) -> json::Node {
    json::Node {
        name: Some(name.to_string()),
        mesh,
        translation: (t != [0.0; 3]).then_some(t),
        rotation: (r != [0.0, 0.0, 0.0, 1.0]).then_some(json::scene::UnitQuaternion(r)),
        scale: (s != [1.0; 3]).then_some(s),
        ..Default::default()
    }
}

pub(crate) fn placed(name: &str, mesh: Option<Index<json::Mesh>>, t: V3) -> json::Node {
    trs(name, mesh, t, IDENTITY_ROTATION, [1.0; 3])
}

pub(crate) fn with_extras(mut node: json::Node, extras: serde_json::Value) -> json::Node {
    node.extras = Some(serde_json::value::to_raw_value(&extras).expect("extras serialise"));
    node
}

pub(crate) const IDENTITY_ROTATION: [f32; 4] = [0.0, 0.0, 0.0, 1.0];

/// Rotation about +Y by `degrees`, as a glTF quaternion `[x, y, z, w]`.
pub(crate) fn rotation_y(degrees: f64) -> [f32; 4] {
    let half = degrees.to_radians() / 2.0;
    [0.0, half.sin() as f32, 0.0, half.cos() as f32]
}

/// The unit cube `[-0.5, 0.5]³`, placed and sized by node transforms.
pub(crate) fn unit_box() -> Geometry {
    let mut g = Geometry::default();
    g.cuboid([-0.5; 3], [0.5; 3]);
    g
}

/// Translation and scale that map the unit cube onto the box `[min, max]`.
pub(crate) fn box_placement(min: V3, max: V3) -> (V3, V3) {
    let centre = [(min[0] + max[0]) / 2.0, (min[1] + max[1]) / 2.0, (min[2] + max[2]) / 2.0];
    let size = [max[0] - min[0], max[1] - min[1], max[2] - min[2]];
    (centre, size)
}

pub(crate) fn floor_geometry(half: f32) -> Geometry {
    let mut g = Geometry::default();
    g.floor(-half, -half, half, half, 0.0);
    g
}
