//! A navmesh as a glTF 2.0 binary file (GLB) that any glTF viewer opens, optionally with its
//! source level in place.
//!
//! Layout of the document:
//!
//! - one node per layer (`layer N`, in layer order), whose mesh holds one `TRIANGLES` primitive
//!   per area type on that layer (material `layer N: AREA`, the layer's colour tinted by the
//!   area's), then a `LINES` primitive of its walls (material `wall`) and one of its portals
//!   (material `portal`; a portal between two layers is drawn with the lower polygon index's
//!   layer);
//! - a node `off-mesh links` (when the mesh has links): one `LINES` primitive per link, each an
//!   arc of [`LINK_ARC_SEGMENTS`] segments over the link, material `link: AREA`;
//! - a node `level` (with a level): the level's triangles in world space (node transforms
//!   applied, flattened), in a dimmed, semi-transparent, double-sided material.
//!
//! Polygons are fanned from their first vertex, wound counter-clockwise seen from above (glTF's
//! front face), and lifted [`SURFACE_LIFT`] above the walkable surface so that they do not
//! z-fight with the level's floor; lines are lifted [`LINE_LIFT`], above the faces. Positions
//! are `f32` (glTF's only float type for positions). Node and material `extras` carry the layer,
//! area name, cost, polygon count and link id, for scripts that read the file.

use crate::ingest::Scene;
use gltf::json;
use json::validation::Checked::Valid;
use json::validation::USize64;
use json::Index;
use meadow::{EdgeLink, NavMesh};
use std::collections::BTreeMap;

/// How far (metres) polygon faces are lifted above the walkable surface: far enough that a
/// viewer's depth buffer draws them over the level's floor they lie on (a 24-bit depth buffer
/// resolves about a millimetre at 10 m), near enough to read as on the floor.
pub const SURFACE_LIFT: f64 = 0.02;
/// How far (metres) wall, portal and link lines are lifted: one more centimetre than the faces,
/// so that lines draw over the faces they bound.
pub const LINE_LIFT: f64 = 0.03;
/// Straight segments per off-mesh link arc.
pub const LINK_ARC_SEGMENTS: usize = 8;
/// Height of a link arc's bow above the straight line, as a fraction of the link's length in
/// XZ: visible as a jump without hiding what lies beyond.
pub const LINK_ARC_RISE: f64 = 0.25;
/// Smallest bow (metres), so that a ladder (no length in XZ) still shows as an arc.
pub const LINK_ARC_MIN_RISE: f64 = 0.25;
/// Base colour alpha of the level's dimmed material (0 transparent, 1 opaque).
pub const LEVEL_ALPHA: f32 = 0.35;
/// Largest GLB the format can describe: its length fields are `u32`.
pub const MAX_GLB_BYTES: u64 = u32::MAX as u64;

/// Layer colours (linear RGB), by a layer's rank among the mesh's layers modulo the length:
/// hues far apart so neighbouring layers are told apart.
pub const LAYER_COLOURS: [[f32; 3]; 8] = [
    [0.25, 0.62, 0.22],
    [0.16, 0.38, 0.78],
    [0.85, 0.52, 0.10],
    [0.62, 0.22, 0.70],
    [0.10, 0.65, 0.65],
    [0.80, 0.20, 0.25],
    [0.55, 0.55, 0.12],
    [0.45, 0.30, 0.20],
];
/// Area tints (linear RGB) by area index modulo the length; area 0 (default) leaves the layer
/// colour as it is.
const AREA_TINTS: [[f32; 3]; 6] =
    [[1.0, 1.0, 1.0], [0.95, 0.85, 0.2], [0.2, 0.8, 0.95], [0.95, 0.3, 0.6], [0.6, 0.95, 0.3], [0.7, 0.5, 0.95]];
/// How much of an area's tint goes into a non-default area's colour (the rest is the layer's).
const AREA_TINT_WEIGHT: f32 = 0.5;
const WALL_COLOUR: [f32; 4] = [0.05, 0.05, 0.05, 1.0];
const PORTAL_COLOUR: [f32; 4] = [0.9, 0.9, 0.9, 1.0];
const LINK_COLOUR: [f32; 3] = [0.1, 0.45, 0.75];
const LEVEL_COLOUR: [f32; 3] = [0.6, 0.6, 0.6];

/// Why a navmesh could not be written as glTF.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// The file would pass the 4 GiB a GLB's `u32` length fields can describe.
    #[error("the glTF file would be {bytes} bytes, more than the {MAX_GLB_BYTES} a GLB can hold")]
    TooLarge {
        /// The size it would have had.
        bytes: u64,
    },
    /// The glTF JSON could not be written (a bug: the document is built from finite numbers).
    #[error("cannot write the glTF JSON: {0}")]
    Json(#[from] serde_json::Error),
}

/// Writes `mesh` (and `level`'s triangles, dimmed, when given) as a GLB file's bytes.
pub fn export_glb(mesh: &NavMesh, level: Option<&Scene>) -> Result<Vec<u8>, ExportError> {
    let mut doc = Document::new();
    let mut roots = Vec::new();
    // Colours by rank among the layers: layer numbers can be sparse.
    for (rank, (layer, polygons)) in mesh.polygons_by_layer().into_iter().enumerate() {
        let colour = LAYER_COLOURS[rank % LAYER_COLOURS.len()];
        roots.push(doc.layer_node(mesh, layer, &polygons, colour));
    }
    if !mesh.links().is_empty() {
        roots.push(doc.links_node(mesh));
    }
    if let Some(scene) = level {
        roots.push(doc.level_node(scene));
    }
    let scene = doc.root.push(json::Scene { extensions: None, extras: None, name: None, nodes: roots });
    doc.root.scene = Some(scene);
    doc.into_glb()
}

/// `point` raised by `lift` metres, as glTF's `f32`.
fn lifted(point: [f64; 3], lift: f64) -> [f32; 3] {
    [point[0] as f32, (point[1] + lift) as f32, point[2] as f32]
}

/// A link's arc: `LINK_ARC_SEGMENTS + 1` points from `start` to `end`, bowed up by a parabola.
pub fn link_arc(start: [f64; 3], end: [f64; 3]) -> Vec<[f64; 3]> {
    let length_xz = ((end[0] - start[0]).powi(2) + (end[2] - start[2]).powi(2)).sqrt();
    let rise = (LINK_ARC_RISE * length_xz).max(LINK_ARC_MIN_RISE);
    (0..=LINK_ARC_SEGMENTS)
        .map(|k| {
            let t = k as f64 / LINK_ARC_SEGMENTS as f64;
            let along = |c: usize| start[c] + (end[c] - start[c]) * t;
            [along(0), along(1) + rise * 4.0 * t * (1.0 - t), along(2)]
        })
        .collect()
}

/// A JSON `extras` value.
fn extras(value: serde_json::Value) -> json::Extras {
    serde_json::value::to_raw_value(&value).ok()
}

/// The glTF document under construction and its one binary buffer.
struct Document {
    root: json::Root,
    bin: Vec<u8>,
    /// The wall and portal line materials, made on first use (an unused one would be flagged
    /// by validators).
    wall: Option<Index<json::Material>>,
    portal: Option<Index<json::Material>>,
}

impl Document {
    fn new() -> Document {
        let mut root = json::Root::default();
        root.asset.generator = Some(format!("meadow export {}", env!("CARGO_PKG_VERSION")));
        Document { root, bin: Vec::new(), wall: None, portal: None }
    }

    /// A buffer view of `bytes`, appended at the buffer's next 4-byte boundary (glTF requires
    /// accessor data aligned to its component size; 4 covers `f32` and `u32`).
    fn view(&mut self, bytes: &[u8], target: json::buffer::Target) -> Index<json::buffer::View> {
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        let offset = self.bin.len();
        self.bin.extend_from_slice(bytes);
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

    /// A `VEC3` `FLOAT` position accessor with the `min` and `max` glTF requires.
    fn positions(&mut self, points: &[[f32; 3]]) -> Index<json::Accessor> {
        let bytes: Vec<u8> = points.iter().flatten().flat_map(|c| c.to_le_bytes()).collect();
        let view = self.view(&bytes, json::buffer::Target::ArrayBuffer);
        let mut min = [f32::INFINITY; 3];
        let mut max = [f32::NEG_INFINITY; 3];
        for p in points {
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
            min: Some(serde_json::json!(min)),
            max: Some(serde_json::json!(max)),
            name: None,
            normalized: false,
            sparse: None,
        })
    }

    /// A `SCALAR` `UNSIGNED_INT` index accessor.
    fn indices(&mut self, indices: &[u32]) -> Index<json::Accessor> {
        let bytes: Vec<u8> = indices.iter().flat_map(|i| i.to_le_bytes()).collect();
        let view = self.view(&bytes, json::buffer::Target::ElementArrayBuffer);
        self.root.push(json::Accessor {
            buffer_view: Some(view),
            byte_offset: None,
            count: USize64::from(indices.len()),
            component_type: Valid(json::accessor::GenericComponentType(json::accessor::ComponentType::U32)),
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

    /// An unlit-looking (rough, not metallic) material; `alpha < 1` blends and shows both sides.
    fn material(&mut self, name: &str, colour: [f32; 4], more: Option<serde_json::Value>) -> Index<json::Material> {
        let blend = colour[3] < 1.0;
        self.root.push(json::Material {
            name: Some(name.to_string()),
            alpha_mode: Valid(if blend { json::material::AlphaMode::Blend } else { json::material::AlphaMode::Opaque }),
            double_sided: blend,
            pbr_metallic_roughness: json::material::PbrMetallicRoughness {
                base_color_factor: json::material::PbrBaseColorFactor(colour),
                metallic_factor: json::material::StrengthFactor(0.0),
                roughness_factor: json::material::StrengthFactor(1.0),
                ..Default::default()
            },
            extras: more.and_then(extras),
            ..Default::default()
        })
    }

    fn primitive(
        &mut self,
        positions: Index<json::Accessor>,
        indices: Option<&[u32]>,
        mode: json::mesh::Mode,
        material: Index<json::Material>,
    ) -> json::mesh::Primitive {
        let indices = indices.map(|i| self.indices(i));
        let mut attributes = BTreeMap::new();
        attributes.insert(Valid(json::mesh::Semantic::Positions), positions);
        json::mesh::Primitive {
            attributes,
            extensions: None,
            extras: None,
            indices,
            material: Some(material),
            mode: Valid(mode),
            targets: None,
        }
    }

    fn node(
        &mut self,
        name: &str,
        primitives: Vec<json::mesh::Primitive>,
        more: serde_json::Value,
    ) -> Index<json::Node> {
        let mesh = self.root.push(json::Mesh {
            extensions: None,
            extras: None,
            name: Some(name.to_string()),
            primitives,
            weights: None,
        });
        self.root.push(json::Node {
            name: Some(name.to_string()),
            mesh: Some(mesh),
            extras: extras(more),
            ..Default::default()
        })
    }

    /// One layer: faces per area, then walls and portals as lines.
    fn layer_node(&mut self, mesh: &NavMesh, layer: u16, polygons: &[u32], colour: [f32; 3]) -> Index<json::Node> {
        // The layer's vertices in order of first use, numbered locally.
        let mut local: BTreeMap<u32, u32> = BTreeMap::new();
        let mut used = Vec::new();
        for &p in polygons {
            for &v in mesh.polygon(p as usize).vertices {
                local.entry(v).or_insert_with(|| {
                    used.push(v);
                    (used.len() - 1) as u32
                });
            }
        }
        let vertices = mesh.vertices();
        let faces: Vec<[f32; 3]> = used.iter().map(|&v| lifted(vertices[v as usize], SURFACE_LIFT)).collect();
        let lines: Vec<[f32; 3]> = used.iter().map(|&v| lifted(vertices[v as usize], LINE_LIFT)).collect();
        let face_positions = self.positions(&faces);
        let line_positions = self.positions(&lines);

        let mut triangles: BTreeMap<u16, Vec<u32>> = BTreeMap::new();
        let (mut walls, mut portals) = (Vec::new(), Vec::new());
        for &p in polygons {
            let poly = mesh.polygon(p as usize);
            let ring: Vec<u32> = poly.vertices.iter().map(|v| local[v]).collect();
            let fan = triangles.entry(poly.area).or_default();
            // Counter-clockwise in (x, z) is clockwise seen from +Y (x × z = -y), so each fan
            // triangle is written reversed to face up.
            for k in 1..ring.len() - 1 {
                fan.extend_from_slice(&[ring[0], ring[k + 1], ring[k]]);
            }
            for (k, link) in poly.links.iter().enumerate() {
                let edge = [ring[k], ring[(k + 1) % ring.len()]];
                match *link {
                    EdgeLink::Wall => walls.extend_from_slice(&edge),
                    EdgeLink::Polygon(q) if p < q => portals.extend_from_slice(&edge),
                    EdgeLink::Polygon(_) => {}
                }
            }
        }
        let mut primitives = Vec::new();
        for (area, indices) in &triangles {
            let (name, cost) =
                mesh.areas().get(*area as usize).map_or(("?".to_string(), 1.0), |a| (a.name.clone(), a.cost));
            let material = self.material(
                &format!("layer {layer}: {name}"),
                area_colour(colour, *area),
                Some(serde_json::json!({ "layer": layer, "area": name, "cost": cost })),
            );
            primitives.push(self.primitive(face_positions, Some(indices), json::mesh::Mode::Triangles, material));
        }
        if !walls.is_empty() {
            let wall = match self.wall {
                Some(m) => m,
                None => {
                    let m = self.material("wall", WALL_COLOUR, None);
                    *self.wall.insert(m)
                }
            };
            primitives.push(self.primitive(line_positions, Some(&walls), json::mesh::Mode::Lines, wall));
        }
        if !portals.is_empty() {
            let portal = match self.portal {
                Some(m) => m,
                None => {
                    let m = self.material("portal", PORTAL_COLOUR, None);
                    *self.portal.insert(m)
                }
            };
            primitives.push(self.primitive(line_positions, Some(&portals), json::mesh::Mode::Lines, portal));
        }
        let area: f64 = polygons.iter().map(|&p| mesh.polygon_area(p as usize)).sum();
        self.node(
            &format!("layer {layer}"),
            primitives,
            serde_json::json!({ "layer": layer, "polygons": polygons.len(), "area_m2": area }),
        )
    }

    /// Every off-mesh link as an arc, one `LINES` primitive each.
    fn links_node(&mut self, mesh: &NavMesh) -> Index<json::Node> {
        let mut materials: BTreeMap<u16, Index<json::Material>> = BTreeMap::new();
        let mut primitives = Vec::new();
        let mut ids = Vec::new();
        for link in mesh.links() {
            let material = match materials.get(&link.area) {
                Some(m) => *m,
                None => {
                    let name = mesh.areas().get(link.area as usize).map_or("?", |a| a.name.as_str()).to_string();
                    let [r, g, b] = LINK_COLOUR;
                    let m = self.material(
                        &format!("link: {name}"),
                        [r, g, b, 1.0],
                        Some(serde_json::json!({ "area": name })),
                    );
                    materials.insert(link.area, m);
                    m
                }
            };
            let points: Vec<[f32; 3]> =
                link_arc(link.start, link.end).into_iter().map(|p| lifted(p, LINE_LIFT)).collect();
            let positions = self.positions(&points);
            let segments: Vec<u32> = (0..LINK_ARC_SEGMENTS as u32).flat_map(|k| [k, k + 1]).collect();
            primitives.push(self.primitive(positions, Some(&segments), json::mesh::Mode::Lines, material));
            ids.push(serde_json::json!({ "id": link.id, "bidirectional": link.bidirectional, "cost": link.cost }));
        }
        self.node("off-mesh links", primitives, serde_json::json!({ "links": ids }))
    }

    /// The level's triangles, dimmed, one non-indexed primitive.
    fn level_node(&mut self, scene: &Scene) -> Index<json::Node> {
        let points: Vec<[f32; 3]> = scene.triangles.iter().flat_map(|t| t.vertices).map(|p| lifted(p, 0.0)).collect();
        let [r, g, b] = LEVEL_COLOUR;
        let material = self.material("level", [r, g, b, LEVEL_ALPHA], None);
        let mut primitives = Vec::new();
        if !points.is_empty() {
            let positions = self.positions(&points);
            primitives.push(self.primitive(positions, None, json::mesh::Mode::Triangles, material));
        }
        // The file name only: the bytes do not depend on where the level was read from.
        let name = scene
            .inputs
            .first()
            .and_then(|i| i.path.file_name())
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let more = serde_json::json!({ "source": name, "triangles": scene.triangles.len() });
        if primitives.is_empty() {
            // A mesh needs a primitive; a level without triangles is a node alone.
            return self.root.push(json::Node {
                name: Some("level".into()),
                extras: extras(more),
                ..Default::default()
            });
        }
        self.node("level", primitives, more)
    }

    /// `.glb`: the 12-byte header, the JSON chunk padded with spaces, the BIN chunk (when the
    /// buffer is not empty) padded with zeros; both chunks 4-byte aligned.
    fn into_glb(mut self) -> Result<Vec<u8>, ExportError> {
        self.bin.resize(self.bin.len().next_multiple_of(4), 0);
        if !self.bin.is_empty() {
            self.root.buffers = vec![json::Buffer {
                byte_length: USize64::from(self.bin.len()),
                extensions: None,
                extras: None,
                name: None,
                uri: None,
            }];
        }
        let mut json_chunk = json::serialize::to_vec(&self.root)?;
        json_chunk.resize(json_chunk.len().next_multiple_of(4), b' ');
        let bin_chunk = if self.bin.is_empty() { 0 } else { 8 + self.bin.len() as u64 };
        let total = 12 + 8 + json_chunk.len() as u64 + bin_chunk;
        let length = u32::try_from(total).map_err(|_| ExportError::TooLarge { bytes: total })?;
        let mut out = Vec::with_capacity(total as usize);
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&length.to_le_bytes());
        // Both chunk lengths are below `total`, which fits in u32.
        out.extend_from_slice(&(json_chunk.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&json_chunk);
        if !self.bin.is_empty() {
            out.extend_from_slice(&(self.bin.len() as u32).to_le_bytes());
            out.extend_from_slice(b"BIN\0");
            out.extend_from_slice(&self.bin);
        }
        Ok(out)
    }
}

/// A face colour: the layer's colour, tinted for non-default areas; opaque.
fn area_colour(layer: [f32; 3], area: u16) -> [f32; 4] {
    let tint = AREA_TINTS[area as usize % AREA_TINTS.len()];
    let w = if area == 0 { 0.0 } else { AREA_TINT_WEIGHT };
    let mix = |k: usize| layer[k] * (1.0 - w) + tint[k] * w;
    [mix(0), mix(1), mix(2), 1.0]
}

#[cfg(test)]
mod tests;
