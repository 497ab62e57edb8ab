//! Stage 1, ingest: a glTF level (`.gltf` + `.bin`, embedded `.gltf`, or `.glb`) → [`Scene`],
//! world-space triangles with the navmesh tags of their nodes.
//!
//! The file is parsed into `gltf`'s JSON model and every accessor, buffer view and buffer is read
//! here with checked arithmetic, so that a malformed or hostile file gives a typed
//! [`IngestError`] instead of a panic (the `gltf` crate's own readers assert on bad layouts).
//! Node transforms are composed in `f64`; triangles come out in scene → node (pre-order) →
//! primitive order, front face counter-clockwise seen from the side the normal points to.

use crate::progress::{Progress, Stage};
use gltf::json;
use meadow::AreaType;
use nalgebra::{Matrix4, Quaternion, UnitQuaternion, Vector3};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// How a node's `extras` tag `navmesh` says its geometry takes part in the bake.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NavTag {
    /// No tag: walkable where the slope allows, blocking elsewhere.
    Auto,
    /// `"walkable"`: walkable where the slope allows. When any node of a scene is tagged
    /// walkable, untagged geometry only blocks (the level names its floors explicitly).
    Walkable,
    /// `"obstacle"`: never walkable, always blocks.
    Obstacle,
}

/// One world-space triangle of the level, front face counter-clockwise seen from its normal side.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SceneTriangle {
    /// Corner positions `[x, y, z]` in metres, world space.
    pub vertices: [[f64; 3]; 3],
    /// The inherited `navmesh` tag.
    pub tag: NavTag,
    /// Index into [`Scene::areas`] (0 is the default area).
    pub area: u16,
    /// Index into [`Scene::nodes`] of the node the triangle came from.
    pub node: u32,
}

/// An off-mesh link requested by a node's `extras` (`navmesh_link`).
#[derive(Clone, Debug, PartialEq)]
pub struct LinkRequest {
    /// The node carrying the tag (index into [`Scene::nodes`]).
    pub from_node: u32,
    /// The name of the target node.
    pub to: String,
    /// The target node (index into [`Scene::nodes`]; the first node of that name).
    pub to_node: u32,
    /// Whether the link can be used both ways (default `true`).
    pub bidirectional: bool,
}

/// A level as world-space triangles: the output of [`ingest_file`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    /// Every triangle of every mesh primitive of every node in the scene(s), in world space.
    pub triangles: Vec<SceneTriangle>,
    /// Area types; index 0 is `{"default", 1.0}`, the others come from `extras` in node order.
    pub areas: Vec<AreaType>,
    /// Node names (or `node <index>` when unnamed), for messages.
    pub nodes: Vec<String>,
    /// Node world positions (translation of the world transform), parallel to `nodes`.
    pub node_positions: Vec<[f64; 3]>,
    /// Off-mesh link requests.
    pub links: Vec<LinkRequest>,
    /// Triangles dropped because they have no area (repeated or collinear corners).
    pub degenerate_dropped: usize,
    /// Triangles dropped because their node is tagged `"navmesh": "ignore"`.
    pub ignored_dropped: usize,
}

/// Why a level could not be read. Every message is one line naming the file and the offending
/// node, mesh, accessor or buffer.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IngestError {
    /// The file does not exist or cannot be read.
    #[error("cannot read {}: {source}", path.display())]
    Read {
        /// The level file.
        path: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// The file is neither a GLB container nor glTF JSON.
    #[error("{} is not a glTF file: {reason}", path.display())]
    NotGltf {
        /// The level file.
        path: PathBuf,
        /// What was wrong (bad magic, JSON syntax error with line and column, ...).
        reason: String,
    },
    /// A `.glb` file ends before the end its header or a chunk header announces.
    #[error("{}: truncated GLB: {what} needs {expected} bytes but the file has {actual}", path.display())]
    TruncatedGlb {
        /// The level file.
        path: PathBuf,
        /// Which part is cut off.
        what: &'static str,
        /// Bytes required.
        expected: u64,
        /// Bytes present.
        actual: u64,
    },
    /// An external buffer file (`.bin`) is missing or unreadable.
    #[error("{}: buffer {buffer} refers to {} which cannot be read: {source}", path.display(), file.display())]
    MissingBuffer {
        /// The level file.
        path: PathBuf,
        /// The buffer index.
        buffer: usize,
        /// The resolved external file.
        file: PathBuf,
        /// The operating system's reason.
        source: std::io::Error,
    },
    /// A buffer holds fewer bytes than its `byteLength` declares.
    #[error("{}: buffer {buffer} is too short: byteLength is {expected} but only {actual} bytes are present", path.display())]
    BufferTooShort {
        /// The level file.
        path: PathBuf,
        /// The buffer index.
        buffer: usize,
        /// Declared length.
        expected: u64,
        /// Available length.
        actual: u64,
    },
    /// An accessor or buffer view reaches past the end of the data it reads.
    #[error("{}: accessor {accessor} ({role}): {detail}", path.display())]
    AccessorOutOfBounds {
        /// The level file.
        path: PathBuf,
        /// The accessor index.
        accessor: usize,
        /// What the accessor is used for (`POSITION of mesh 'Floor'`, ...).
        role: String,
        /// Which range overruns what.
        detail: String,
    },
    /// A vertex index is not below the primitive's vertex count.
    #[error(
        "{}: node {node}, mesh {mesh}, primitive {primitive}: index {index} is out of range \
         (POSITION accessor {accessor} has {vertex_count} vertices)",
        path.display()
    )]
    IndexOutOfRange {
        /// The level file.
        path: PathBuf,
        /// The node label.
        node: String,
        /// The mesh label.
        mesh: String,
        /// The primitive index within the mesh.
        primitive: usize,
        /// The POSITION accessor index.
        accessor: usize,
        /// The offending vertex index.
        index: u32,
        /// Number of vertices.
        vertex_count: usize,
    },
    /// A vertex position is NaN or infinite, in the file or after the node's world transform.
    #[error(
        "{}: node {node}, mesh {mesh}: vertex {vertex} of POSITION accessor {accessor} is not finite{}: {value:?}",
        path.display(),
        if *world { " after the node's world transform" } else { "" }
    )]
    NonFinitePosition {
        /// The level file.
        path: PathBuf,
        /// The node label.
        node: String,
        /// The mesh label.
        mesh: String,
        /// The POSITION accessor index.
        accessor: usize,
        /// The vertex index.
        vertex: usize,
        /// The offending position.
        value: [f64; 3],
        /// Whether the position became non-finite only in world space.
        world: bool,
    },
    /// A triangle primitive has no `POSITION` attribute.
    #[error("{}: node {node}, mesh {mesh}, primitive {primitive} has no POSITION attribute", path.display())]
    MissingPosition {
        /// The level file.
        path: PathBuf,
        /// The node label.
        node: String,
        /// The mesh label.
        mesh: String,
        /// The primitive index within the mesh.
        primitive: usize,
    },
    /// A node's `navmesh` tag is not `walkable`, `obstacle` or `ignore`.
    #[error("{}: node {node}: unknown navmesh tag {value} (expected \"walkable\", \"obstacle\" or \"ignore\")", path.display())]
    UnknownTag {
        /// The level file.
        path: PathBuf,
        /// The node label.
        node: String,
        /// The tag value as JSON.
        value: String,
    },
    /// An area cost is not finite or below 1.
    #[error("{}: node {node}: area '{area}' has cost {cost}, which must be finite and >= 1", path.display())]
    BadAreaCost {
        /// The level file.
        path: PathBuf,
        /// The node label.
        node: String,
        /// The area name.
        area: String,
        /// The offending cost.
        cost: f64,
    },
    /// A node's `extras` has a navmesh key with the wrong shape (area not a string, link without `to`...).
    #[error("{}: node {node}: bad extras: {reason}", path.display())]
    BadExtras {
        /// The level file.
        path: PathBuf,
        /// The node label.
        node: String,
        /// What is wrong.
        reason: String,
    },
    /// A `navmesh_link` names a node that is not in the scene.
    #[error("{}: node {node}: navmesh_link target '{to}' is not a node of the scene", path.display())]
    UnknownLinkTarget {
        /// The level file.
        path: PathBuf,
        /// The node label.
        node: String,
        /// The missing target name.
        to: String,
    },
    /// The glTF structure is invalid (dangling reference, cyclic hierarchy, unsupported layout...).
    #[error("{}: invalid glTF: {detail}", path.display())]
    Malformed {
        /// The level file.
        path: PathBuf,
        /// What is wrong and where.
        detail: String,
    },
    /// The file requires an extension that changes how geometry is stored (Draco, meshopt).
    #[error("{}: requires the unsupported glTF extension {extension}; export without it", path.display())]
    UnsupportedExtension {
        /// The level file.
        path: PathBuf,
        /// The extension name.
        extension: String,
    },
    /// The scene yields no triangles at all.
    #[error(
        "{}: the scene has no triangles to bake ({ignored} ignored, {degenerate} degenerate, \
         {skipped} non-triangle primitives skipped)",
        path.display()
    )]
    EmptyScene {
        /// The level file.
        path: PathBuf,
        /// Triangles dropped by `ignore` tags.
        ignored: usize,
        /// Degenerate triangles dropped.
        degenerate: usize,
        /// Point and line primitives skipped.
        skipped: usize,
    },
    /// The level is larger than the bake handles.
    #[error("{}: too large: {detail}", path.display())]
    TooLarge {
        /// The level file.
        path: PathBuf,
        /// Which limit was hit.
        detail: String,
    },
    /// A bug in the reader was hit (a caught panic); the file may be unusual.
    #[error("{}: internal error while reading (please report this file): {message}", path.display())]
    Internal {
        /// The level file.
        path: PathBuf,
        /// The panic message.
        message: String,
    },
}

/// Most triangles a level may produce (about 1.5 GB of [`SceneTriangle`]s).
pub const MAX_TRIANGLES: usize = 1 << 24;

/// Most elements of an accessor without a buffer view (its values are implicit zeros).
const MAX_IMPLICIT_ELEMENTS: u64 = 1 << 24;

/// Reads a glTF level into a [`Scene`]; skipped primitives and odd content go to `progress.warn`.
pub fn ingest_file(path: &Path, progress: &mut dyn Progress) -> Result<Scene, IngestError> {
    // The reader checks every layout itself; the guard turns a remaining bug into an error
    // instead of taking the caller down.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ingest_inner(path, progress))) {
        Ok(result) => result,
        Err(payload) => {
            let message = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "unknown panic".to_string());
            Err(IngestError::Internal { path: path.to_path_buf(), message })
        }
    }
}

fn ingest_inner(path: &Path, progress: &mut dyn Progress) -> Result<Scene, IngestError> {
    let bytes = std::fs::read(path).map_err(|source| IngestError::Read { path: path.to_path_buf(), source })?;
    let (json_bytes, blob) = split_container(path, &bytes)?;
    let root: json::Root = json::deserialize::from_slice(json_bytes).map_err(|e| {
        let first = json_bytes.iter().find(|b| !b.is_ascii_whitespace());
        let reason = if first == Some(&b'{') {
            format!("bad glTF JSON: {e}")
        } else {
            "neither a GLB container (magic \"glTF\") nor JSON".to_string()
        };
        IngestError::NotGltf { path: path.to_path_buf(), reason }
    })?;
    for extension in &root.extensions_required {
        if matches!(extension.as_str(), "KHR_draco_mesh_compression" | "EXT_meshopt_compression") {
            return Err(IngestError::UnsupportedExtension { path: path.to_path_buf(), extension: extension.clone() });
        }
    }
    let base_dir = path.parent().unwrap_or_else(|| Path::new("."));
    let buffers = load_buffers(path, &root, base_dir, blob)?;
    let reader = Reader { path, root: &root, buffers };
    reader.build_scene(progress)
}

/// Splits a `.glb` into its JSON chunk and optional BIN chunk; other bytes are taken as JSON.
fn split_container<'a>(path: &Path, bytes: &'a [u8]) -> Result<(&'a [u8], Option<&'a [u8]>), IngestError> {
    if !bytes.starts_with(b"glTF") {
        return Ok((bytes, None));
    }
    let truncated = |what, expected: u64, actual: u64| IngestError::TruncatedGlb {
        path: path.to_path_buf(),
        what,
        expected,
        actual,
    };
    let actual = bytes.len() as u64;
    if bytes.len() < 12 {
        return Err(truncated("the 12-byte GLB header", 12, actual));
    }
    let word = |at: usize| -> u32 {
        let mut four = [0u8; 4];
        four.copy_from_slice(&bytes[at..at + 4]);
        u32::from_le_bytes(four)
    };
    let version = word(4);
    if version != 2 {
        return Err(IngestError::NotGltf {
            path: path.to_path_buf(),
            reason: format!("GLB version {version} is not supported (only version 2)"),
        });
    }
    let declared = word(8) as u64;
    if declared > actual {
        return Err(truncated("the length in the GLB header", declared, actual));
    }
    let end = declared as usize;
    let mut at = 12usize;
    let mut json_chunk = None;
    let mut bin_chunk = None;
    while at < end {
        if end - at < 8 {
            return Err(truncated("a GLB chunk header", at as u64 + 8, declared));
        }
        let length = word(at) as usize;
        let kind = word(at + 4);
        let start = at + 8;
        let stop = start.checked_add(length).filter(|&s| s <= end);
        let Some(stop) = stop else {
            return Err(truncated("a GLB chunk", start as u64 + length as u64, declared));
        };
        match kind {
            0x4E4F_534A if json_chunk.is_none() => json_chunk = Some(&bytes[start..stop]),
            0x004E_4942 if bin_chunk.is_none() => bin_chunk = Some(&bytes[start..stop]),
            // Unknown chunks must be ignored (glTF 2.0, GLB file format).
            _ => {}
        }
        at = stop;
    }
    let json_chunk = json_chunk
        .ok_or_else(|| IngestError::NotGltf { path: path.to_path_buf(), reason: "the GLB has no JSON chunk".into() })?;
    Ok((json_chunk, bin_chunk))
}

/// Reads every buffer: the GLB BIN chunk, base64 data URIs and external files next to the level.
fn load_buffers(
    path: &Path,
    root: &json::Root,
    base_dir: &Path,
    blob: Option<&[u8]>,
) -> Result<Vec<Vec<u8>>, IngestError> {
    let malformed = |detail: String| IngestError::Malformed { path: path.to_path_buf(), detail };
    let mut buffers = Vec::with_capacity(root.buffers.len());
    for (index, buffer) in root.buffers.iter().enumerate() {
        let data = match buffer.uri.as_deref() {
            None => match (index, blob) {
                (0, Some(blob)) => blob.to_vec(),
                _ => return Err(malformed(format!("buffer {index} has no uri and there is no GLB BIN chunk for it"))),
            },
            Some(uri) if uri.starts_with("data:") => {
                if !uri.contains(";base64,") {
                    return Err(malformed(format!("buffer {index}: only base64 data URIs are supported")));
                }
                gltf::buffer::Data::from_source(gltf::buffer::Source::Uri(uri), None)
                    .map_err(|e| malformed(format!("buffer {index}: bad base64 data URI: {e}")))?
                    .0
            }
            Some(uri) if uri.contains(':') => {
                return Err(malformed(format!("buffer {index}: unsupported URI scheme in '{uri}'")));
            }
            Some(uri) => {
                let relative = percent_decode(uri)
                    .ok_or_else(|| malformed(format!("buffer {index}: bad percent-encoding in uri '{uri}'")))?;
                let file = base_dir.join(relative);
                std::fs::read(&file).map_err(|source| IngestError::MissingBuffer {
                    path: path.to_path_buf(),
                    buffer: index,
                    file: file.clone(),
                    source,
                })?
            }
        };
        let expected = buffer.byte_length.0;
        if (data.len() as u64) < expected {
            return Err(IngestError::BufferTooShort {
                path: path.to_path_buf(),
                buffer: index,
                expected,
                actual: data.len() as u64,
            });
        }
        buffers.push(data);
    }
    Ok(buffers)
}

/// Decodes `%XX` escapes of a relative URI; `None` when an escape or the result is invalid.
fn percent_decode(uri: &str) -> Option<String> {
    let bytes = uri.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).ok()
}

/// A node's own `navmesh` tag; `Ignore` drops the geometry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OwnTag {
    Walkable,
    Obstacle,
    Ignore,
}

/// What a node passes down to its children.
#[derive(Clone, Copy, Debug)]
struct Inherited {
    tag: Option<OwnTag>,
    area: u16,
}

/// One visited node: its index in [`Scene::nodes`], glTF index, world transform and tags.
struct Instance {
    scene_node: u32,
    gltf_node: usize,
    world: Matrix4<f64>,
    inherited: Inherited,
}

struct Reader<'a> {
    path: &'a Path,
    root: &'a json::Root,
    buffers: Vec<Vec<u8>>,
}

impl Reader<'_> {
    fn malformed(&self, detail: String) -> IngestError {
        IngestError::Malformed { path: self.path.to_path_buf(), detail }
    }

    fn node_label(&self, index: usize) -> String {
        match self.root.nodes.get(index).and_then(|n| n.name.as_deref()) {
            Some(name) => format!("'{name}'"),
            None => format!("#{index}"),
        }
    }

    fn mesh_label(&self, index: usize) -> String {
        match self.root.meshes.get(index).and_then(|m| m.name.as_deref()) {
            Some(name) => format!("'{name}'"),
            None => format!("#{index}"),
        }
    }

    fn build_scene(&self, progress: &mut dyn Progress) -> Result<Scene, IngestError> {
        let mut scene = Scene { areas: vec![AreaType { name: "default".to_string(), cost: 1.0 }], ..Scene::default() };
        let mut area_costs: Vec<f64> = vec![1.0];
        let mut link_nodes: Vec<(u32, String, bool)> = Vec::new();
        let instances = self.traverse(progress, &mut scene, &mut area_costs, &mut link_nodes)?;

        let total: u64 =
            instances.iter().map(|i| self.node_mesh(i.gltf_node).map_or(0, |m| m.primitives.len() as u64)).sum();
        progress.begin(Stage::Ingest, total);
        let mut done = 0u64;
        let mut skipped = 0usize;
        let mut short_lists = 0usize;
        for instance in &instances {
            let Some(mesh_index) = self.root.nodes[instance.gltf_node].mesh.map(|m| m.value()) else {
                continue;
            };
            let mesh = self.node_mesh(instance.gltf_node).ok_or_else(|| {
                self.malformed(format!(
                    "node {} refers to mesh {mesh_index}, which does not exist",
                    self.node_label(instance.gltf_node)
                ))
            })?;
            for (primitive_index, primitive) in mesh.primitives.iter().enumerate() {
                let outcome = self.add_primitive(instance, mesh_index, primitive_index, primitive, &mut scene)?;
                match outcome {
                    PrimitiveOutcome::Added { leftover_indices } => short_lists += usize::from(leftover_indices),
                    PrimitiveOutcome::Skipped(mode) => {
                        skipped += 1;
                        progress.warn(&format!(
                            "{}: node {}, mesh {}, primitive {primitive_index}: {mode} primitive skipped \
                             (only triangles are baked)",
                            self.path.display(),
                            self.node_label(instance.gltf_node),
                            self.mesh_label(mesh_index)
                        ));
                    }
                }
                done += 1;
                progress.advance(Stage::Ingest, done);
            }
        }
        if short_lists > 0 {
            progress.warn(&format!(
                "{}: {short_lists} TRIANGLES primitive(s) have an index count that is not a multiple of 3; \
                 the extra indices were ignored",
                self.path.display()
            ));
        }
        if scene.degenerate_dropped > 0 {
            progress.warn(&format!(
                "{}: dropped {} degenerate triangle(s) (zero area or repeated corners)",
                self.path.display(),
                scene.degenerate_dropped
            ));
        }
        if scene.triangles.is_empty() {
            return Err(IngestError::EmptyScene {
                path: self.path.to_path_buf(),
                ignored: scene.ignored_dropped,
                degenerate: scene.degenerate_dropped,
                skipped,
            });
        }
        for (from_node, to, bidirectional) in link_nodes {
            let Some(to_node) = scene.nodes.iter().position(|n| *n == to) else {
                return Err(IngestError::UnknownLinkTarget {
                    path: self.path.to_path_buf(),
                    node: format!("'{}'", scene.nodes[from_node as usize]),
                    to,
                });
            };
            if scene.nodes.iter().filter(|n| **n == to).count() > 1 {
                progress.warn(&format!(
                    "{}: navmesh_link target '{to}' names several nodes; the first in scene order is used",
                    self.path.display()
                ));
            }
            scene.links.push(LinkRequest { from_node, to, to_node: to_node as u32, bidirectional });
        }
        progress.finish(Stage::Ingest);
        Ok(scene)
    }

    fn node_mesh(&self, node: usize) -> Option<&json::Mesh> {
        let mesh = self.root.nodes.get(node)?.mesh?;
        self.root.meshes.get(mesh.value())
    }

    /// Visits the default scene (or every scene, or every root node when the file has no scene)
    /// in pre-order, recording node names, world positions, areas and links.
    fn traverse(
        &self,
        progress: &mut dyn Progress,
        scene: &mut Scene,
        area_costs: &mut Vec<f64>,
        link_nodes: &mut Vec<(u32, String, bool)>,
    ) -> Result<Vec<Instance>, IngestError> {
        let scene_roots: Vec<Vec<usize>> = match self.root.scene {
            Some(default) => {
                let s = self
                    .root
                    .scenes
                    .get(default.value())
                    .ok_or_else(|| self.malformed(format!("default scene {} does not exist", default.value())))?;
                vec![s.nodes.iter().map(|n| n.value()).collect()]
            }
            None if !self.root.scenes.is_empty() => {
                self.root.scenes.iter().map(|s| s.nodes.iter().map(|n| n.value()).collect()).collect()
            }
            None => {
                // No scene at all: every node that is nobody's child is a root.
                let mut is_child = vec![false; self.root.nodes.len()];
                for node in &self.root.nodes {
                    for child in node.children.iter().flatten() {
                        if let Some(flag) = is_child.get_mut(child.value()) {
                            *flag = true;
                        }
                    }
                }
                vec![(0..self.root.nodes.len()).filter(|&i| !is_child[i]).collect()]
            }
        };

        let mut instances = Vec::new();
        for roots in scene_roots {
            // glTF node hierarchies are disjoint strict trees: a node reached twice in one scene
            // means a cycle or a second parent, both invalid.
            let mut visited = vec![false; self.root.nodes.len()];
            let top = Inherited { tag: None, area: 0 };
            let mut stack: Vec<(usize, Matrix4<f64>, Inherited)> =
                roots.iter().rev().map(|&n| (n, Matrix4::identity(), top)).collect();
            while let Some((node_index, parent_world, parent_inherited)) = stack.pop() {
                let node =
                    self.root.nodes.get(node_index).ok_or_else(|| {
                        self.malformed(format!("reference to node {node_index}, which does not exist"))
                    })?;
                if std::mem::replace(&mut visited[node_index], true) {
                    return Err(self.malformed(format!(
                        "node {} is reached twice in the hierarchy (a cycle or two parents)",
                        self.node_label(node_index)
                    )));
                }
                let world = parent_world * self.local_transform(node_index, node)?;
                let scene_node = u32::try_from(scene.nodes.len())
                    .map_err(|_| self.too_large("more than 2^32 node instances".into()))?;
                let inherited = self.read_extras(
                    node_index,
                    node,
                    scene_node,
                    parent_inherited,
                    scene,
                    area_costs,
                    link_nodes,
                    progress,
                )?;
                scene.nodes.push(node.name.clone().unwrap_or_else(|| format!("node {node_index}")));
                scene.node_positions.push([world[(0, 3)], world[(1, 3)], world[(2, 3)]]);
                for child in node.children.iter().flatten().rev() {
                    stack.push((child.value(), world, inherited));
                }
                instances.push(Instance { scene_node, gltf_node: node_index, world, inherited });
            }
        }
        Ok(instances)
    }

    fn too_large(&self, detail: String) -> IngestError {
        IngestError::TooLarge { path: self.path.to_path_buf(), detail }
    }

    /// The node's local matrix: `matrix` (column-major) or translation · rotation · scale.
    fn local_transform(&self, index: usize, node: &json::Node) -> Result<Matrix4<f64>, IngestError> {
        if let Some(m) = node.matrix {
            let columns: Vec<f64> = m.iter().map(|&v| f64::from(v)).collect();
            return Ok(Matrix4::from_column_slice(&columns));
        }
        let t = node.translation.unwrap_or([0.0; 3]).map(f64::from);
        let s = node.scale.unwrap_or([1.0; 3]).map(f64::from);
        let r = node.rotation.map_or([0.0, 0.0, 0.0, 1.0], |q| q.0).map(f64::from);
        let quaternion = Quaternion::new(r[3], r[0], r[1], r[2]);
        let norm = quaternion.norm();
        if !(norm.is_finite() && norm > 0.0) {
            return Err(self.malformed(format!("node {} has a zero rotation quaternion", self.node_label(index))));
        }
        let rotation = UnitQuaternion::from_quaternion(quaternion).to_homogeneous();
        let translation = Matrix4::new_translation(&Vector3::new(t[0], t[1], t[2]));
        let scale = Matrix4::new_nonuniform_scaling(&Vector3::new(s[0], s[1], s[2]));
        Ok(translation * rotation * scale)
    }

    /// Applies the node's `extras` on top of what it inherits; records areas and links.
    #[allow(clippy::too_many_arguments)]
    fn read_extras(
        &self,
        index: usize,
        node: &json::Node,
        scene_node: u32,
        inherited: Inherited,
        scene: &mut Scene,
        area_costs: &mut Vec<f64>,
        link_nodes: &mut Vec<(u32, String, bool)>,
        progress: &mut dyn Progress,
    ) -> Result<Inherited, IngestError> {
        let mut own = inherited;
        let Some(raw) = node.extras.as_ref() else {
            return Ok(own);
        };
        // Extras that are not an object (or not even JSON we understand) belong to other tools.
        let Ok(Value::Object(extras)) = serde_json::from_str::<Value>(raw.get()) else {
            return Ok(own);
        };
        let label = self.node_label(index);
        let bad =
            |reason: String| IngestError::BadExtras { path: self.path.to_path_buf(), node: label.clone(), reason };
        if let Some(tag) = extras.get("navmesh") {
            own.tag = Some(match tag.as_str() {
                Some("walkable") => OwnTag::Walkable,
                Some("obstacle") => OwnTag::Obstacle,
                Some("ignore") => OwnTag::Ignore,
                _ => {
                    return Err(IngestError::UnknownTag {
                        path: self.path.to_path_buf(),
                        node: label.clone(),
                        value: tag.to_string(),
                    })
                }
            });
        }
        match (extras.get("area"), extras.get("cost")) {
            (None, None) => {}
            (None, Some(_)) => return Err(bad("\"cost\" without \"area\"".into())),
            (Some(area), cost) => {
                let name = area.as_str().ok_or_else(|| bad(format!("\"area\" must be a string, not {area}")))?;
                let cost = match cost {
                    None => 1.0,
                    Some(c) => c.as_f64().ok_or_else(|| bad(format!("\"cost\" must be a number, not {c}")))?,
                };
                if !(cost.is_finite() && cost >= 1.0) {
                    return Err(IngestError::BadAreaCost {
                        path: self.path.to_path_buf(),
                        node: label.clone(),
                        area: name.to_string(),
                        cost,
                    });
                }
                own.area = match scene.areas.iter().position(|a| a.name == name) {
                    Some(existing) => {
                        if area_costs[existing] != cost {
                            progress.warn(&format!(
                                "{}: node {label}: area '{name}' was first given cost {}, cost {cost} is ignored",
                                self.path.display(),
                                area_costs[existing]
                            ));
                        }
                        existing as u16
                    }
                    None => {
                        let new = u16::try_from(scene.areas.len())
                            .map_err(|_| self.too_large("more than 65536 area types".into()))?;
                        scene.areas.push(AreaType { name: name.to_string(), cost: cost as f32 });
                        area_costs.push(cost);
                        new
                    }
                };
            }
        }
        if let Some(link) = extras.get("navmesh_link") {
            let link = link.as_object().ok_or_else(|| bad("\"navmesh_link\" must be an object".into()))?;
            let to = link
                .get("to")
                .and_then(Value::as_str)
                .ok_or_else(|| bad("\"navmesh_link\" needs a \"to\" node name".into()))?;
            let bidirectional = match link.get("bidirectional") {
                None => true,
                Some(Value::Bool(b)) => *b,
                Some(other) => return Err(bad(format!("\"bidirectional\" must be true or false, not {other}"))),
            };
            link_nodes.push((scene_node, to.to_string(), bidirectional));
        }
        Ok(own)
    }

    /// Adds one primitive's triangles (world space, front face CCW) to the scene.
    fn add_primitive(
        &self,
        instance: &Instance,
        mesh_index: usize,
        primitive_index: usize,
        primitive: &json::mesh::Primitive,
        scene: &mut Scene,
    ) -> Result<PrimitiveOutcome, IngestError> {
        use json::mesh::Mode;
        use json::validation::Checked;
        let node_label = || self.node_label(instance.gltf_node);
        let mode = match primitive.mode {
            Checked::Valid(mode) => mode,
            Checked::Invalid => {
                return Err(self.malformed(format!(
                    "mesh {}, primitive {primitive_index} has an invalid mode",
                    self.mesh_label(mesh_index)
                )))
            }
        };
        match mode {
            Mode::Triangles | Mode::TriangleStrip | Mode::TriangleFan => {}
            Mode::Points => return Ok(PrimitiveOutcome::Skipped("POINTS")),
            Mode::Lines => return Ok(PrimitiveOutcome::Skipped("LINES")),
            Mode::LineLoop => return Ok(PrimitiveOutcome::Skipped("LINE_LOOP")),
            Mode::LineStrip => return Ok(PrimitiveOutcome::Skipped("LINE_STRIP")),
        }
        let Some(position_accessor) =
            primitive.attributes.get(&Checked::Valid(json::mesh::Semantic::Positions)).map(|a| a.value())
        else {
            return Err(IngestError::MissingPosition {
                path: self.path.to_path_buf(),
                node: node_label(),
                mesh: self.mesh_label(mesh_index),
                primitive: primitive_index,
            });
        };
        let role = format!("POSITION of mesh {}", self.mesh_label(mesh_index));
        let positions = self.read_accessor(position_accessor, &role, AccessorUse::Position)?;
        let vertex_count = positions.len() / 3;

        let indices: Vec<u32> = match primitive.indices {
            Some(accessor) => {
                let role = format!("indices of mesh {}", self.mesh_label(mesh_index));
                let values = self.read_accessor(accessor.value(), &role, AccessorUse::Index)?;
                // Index values were read from unsigned integers of at most 32 bits: exact.
                values.iter().map(|&v| v as u32).collect()
            }
            None => {
                let count = u32::try_from(vertex_count)
                    .map_err(|_| self.too_large(format!("accessor {position_accessor} has too many vertices")))?;
                (0..count).collect()
            }
        };
        if let Some(&index) = indices.iter().find(|&&i| i as usize >= vertex_count) {
            return Err(IngestError::IndexOutOfRange {
                path: self.path.to_path_buf(),
                node: node_label(),
                mesh: self.mesh_label(mesh_index),
                primitive: primitive_index,
                accessor: position_accessor,
                index,
                vertex_count,
            });
        }

        // Only the vertices the primitive uses are transformed and checked.
        let mut world: Vec<Option<[f64; 3]>> = vec![None; vertex_count];
        let m = &instance.world;
        for &i in &indices {
            let i = i as usize;
            if world[i].is_some() {
                continue;
            }
            let p = [positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]];
            let w = [
                m[(0, 0)] * p[0] + m[(0, 1)] * p[1] + m[(0, 2)] * p[2] + m[(0, 3)],
                m[(1, 0)] * p[0] + m[(1, 1)] * p[1] + m[(1, 2)] * p[2] + m[(1, 3)],
                m[(2, 0)] * p[0] + m[(2, 1)] * p[1] + m[(2, 2)] * p[2] + m[(2, 3)],
            ];
            for (value, in_world) in [(p, false), (w, true)] {
                if value.iter().any(|c| !c.is_finite()) {
                    return Err(IngestError::NonFinitePosition {
                        path: self.path.to_path_buf(),
                        node: node_label(),
                        mesh: self.mesh_label(mesh_index),
                        accessor: position_accessor,
                        vertex: i,
                        value,
                        world: in_world,
                    });
                }
            }
            world[i] = Some(w);
        }

        let corner_triples = triangle_corners(mode, &indices);
        let leftover_indices = mode == Mode::Triangles && !indices.len().is_multiple_of(3);
        let flip = instance.world.fixed_view::<3, 3>(0, 0).determinant() < 0.0;
        let tag = match instance.inherited.tag {
            None => NavTag::Auto,
            Some(OwnTag::Walkable) => NavTag::Walkable,
            Some(OwnTag::Obstacle) => NavTag::Obstacle,
            Some(OwnTag::Ignore) => {
                scene.ignored_dropped += corner_triples.len();
                return Ok(PrimitiveOutcome::Added { leftover_indices });
            }
        };
        if scene.triangles.len() + corner_triples.len() > MAX_TRIANGLES {
            return Err(self.too_large(format!("more than {MAX_TRIANGLES} triangles")));
        }
        for [a, b, c] in corner_triples {
            if a == b || b == c || a == c {
                scene.degenerate_dropped += 1;
                continue;
            }
            let corner = |i: u32| world[i as usize].unwrap_or([0.0; 3]);
            let (pa, mut pb, mut pc) = (corner(a), corner(b), corner(c));
            if is_collinear(pa, pb, pc) {
                scene.degenerate_dropped += 1;
                continue;
            }
            if flip {
                std::mem::swap(&mut pb, &mut pc);
            }
            scene.triangles.push(SceneTriangle {
                vertices: [pa, pb, pc],
                tag,
                area: instance.inherited.area,
                node: instance.scene_node,
            });
        }
        Ok(PrimitiveOutcome::Added { leftover_indices })
    }

    /// Reads an accessor (with sparse substitution) into `f64`s, checking every byte range.
    fn read_accessor(&self, index: usize, role: &str, usage: AccessorUse) -> Result<Vec<f64>, IngestError> {
        use json::accessor::{ComponentType, Type};
        use json::validation::Checked;
        let out_of_bounds = |detail: String| IngestError::AccessorOutOfBounds {
            path: self.path.to_path_buf(),
            accessor: index,
            role: role.to_string(),
            detail,
        };
        let accessor = self
            .root
            .accessors
            .get(index)
            .ok_or_else(|| self.malformed(format!("{role} refers to accessor {index}, which does not exist")))?;
        let (Checked::Valid(component), Checked::Valid(kind)) = (&accessor.component_type, &accessor.type_) else {
            return Err(self.malformed(format!("accessor {index} ({role}) has an invalid componentType or type")));
        };
        let component = component.0;
        let width = match kind {
            Type::Scalar => 1,
            Type::Vec2 => 2,
            Type::Vec3 => 3,
            Type::Vec4 => 4,
            Type::Mat2 | Type::Mat3 | Type::Mat4 => 0,
        };
        let wanted = match usage {
            AccessorUse::Position => {
                // Float, or 8/16-bit integers as KHR_mesh_quantization allows.
                width == 3 && component != ComponentType::U32
            }
            AccessorUse::Index => {
                width == 1 && matches!(component, ComponentType::U8 | ComponentType::U16 | ComponentType::U32)
            }
        };
        if !wanted {
            return Err(self.malformed(format!(
                "accessor {index} ({role}) has type {kind:?} of {component:?}, which cannot hold {}",
                match usage {
                    AccessorUse::Position => "positions (VEC3 of float or, quantized, of 8/16-bit integers)",
                    AccessorUse::Index => "vertex indices (SCALAR of unsigned 8/16/32-bit integers)",
                }
            )));
        }
        let count = accessor.count.0;
        let mut values = match accessor.buffer_view {
            Some(view) => self.read_elements(
                view.value(),
                accessor.byte_offset.map_or(0, |o| o.0),
                count,
                component,
                width,
                true,
                &out_of_bounds,
            )?,
            None => {
                if count > MAX_IMPLICIT_ELEMENTS {
                    return Err(self.too_large(format!(
                        "accessor {index} ({role}) has {count} implicit elements (limit {MAX_IMPLICIT_ELEMENTS})"
                    )));
                }
                vec![0.0; count as usize * width]
            }
        };
        if let Some(sparse) = &accessor.sparse {
            let sparse_count = sparse.count.0;
            let index_component = match &sparse.indices.component_type {
                Checked::Valid(c) if matches!(c.0, ComponentType::U8 | ComponentType::U16 | ComponentType::U32) => c.0,
                _ => return Err(self.malformed(format!("accessor {index} ({role}) has invalid sparse index type"))),
            };
            let targets = self.read_elements(
                sparse.indices.buffer_view.value(),
                sparse.indices.byte_offset.0,
                sparse_count,
                index_component,
                1,
                false,
                &|d| out_of_bounds(format!("sparse indices: {d}")),
            )?;
            let substitutes = self.read_elements(
                sparse.values.buffer_view.value(),
                sparse.values.byte_offset.0,
                sparse_count,
                component,
                width,
                false,
                &|d| out_of_bounds(format!("sparse values: {d}")),
            )?;
            for (k, &target) in targets.iter().enumerate() {
                if target >= count as f64 {
                    return Err(out_of_bounds(format!("sparse index {target} is not below count {count}")));
                }
                let target = target as usize;
                values[target * width..(target + 1) * width].copy_from_slice(&substitutes[k * width..(k + 1) * width]);
            }
        }
        if accessor.normalized && usage == AccessorUse::Position {
            // glTF's normalized-integer mapping (KHR_mesh_quantization).
            let scale = match component {
                ComponentType::I8 => 127.0,
                ComponentType::U8 => 255.0,
                ComponentType::I16 => 32767.0,
                ComponentType::U16 => 65535.0,
                _ => 1.0,
            };
            for v in &mut values {
                *v = (*v / scale).max(-1.0);
            }
        }
        Ok(values)
    }

    /// Reads `count` elements of `width` components from a buffer view, checking all ranges.
    #[allow(clippy::too_many_arguments)]
    fn read_elements(
        &self,
        view_index: usize,
        offset: u64,
        count: u64,
        component: json::accessor::ComponentType,
        width: usize,
        strided: bool,
        out_of_bounds: &dyn Fn(String) -> IngestError,
    ) -> Result<Vec<f64>, IngestError> {
        use json::accessor::ComponentType;
        let view = self
            .root
            .buffer_views
            .get(view_index)
            .ok_or_else(|| out_of_bounds(format!("buffer view {view_index} does not exist")))?;
        let buffer_index = view.buffer.value();
        let buffer = self.buffers.get(buffer_index).ok_or_else(|| {
            out_of_bounds(format!("buffer view {view_index} refers to missing buffer {buffer_index}"))
        })?;
        let declared = self.root.buffers.get(buffer_index).map_or(0, |b| b.byte_length.0);
        let view_start = view.byte_offset.map_or(0, |o| o.0);
        let view_end = view_start.checked_add(view.byte_length.0);
        match view_end {
            Some(end) if end <= declared && end <= buffer.len() as u64 => {}
            _ => {
                return Err(out_of_bounds(format!(
                    "buffer view {view_index} spans bytes {view_start}+{} but buffer {buffer_index} has {declared}",
                    view.byte_length.0
                )))
            }
        }
        let component_size = component.size() as u64;
        let element_size = component_size * width as u64;
        let stride = match (strided, view.byte_stride) {
            (true, Some(stride)) => stride.0 as u64,
            _ => element_size,
        };
        if stride < element_size {
            return Err(out_of_bounds(format!(
                "buffer view {view_index} has byteStride {stride}, less than the element size {element_size}"
            )));
        }
        if count == 0 {
            return Ok(Vec::new());
        }
        let needed = (count - 1)
            .checked_mul(stride)
            .and_then(|s| s.checked_add(element_size))
            .and_then(|s| s.checked_add(offset));
        let view_length = view.byte_length.0;
        match needed {
            Some(needed) if needed <= view_length => {}
            _ => {
                return Err(out_of_bounds(format!(
                    "{count} elements of {element_size} bytes (stride {stride}) from offset {offset} need more than \
                     the {view_length} bytes of buffer view {view_index}"
                )))
            }
        }
        let base = (view_start + offset) as usize;
        let data = buffer.as_slice();
        let mut values = Vec::with_capacity(count as usize * width);
        for element in 0..count as usize {
            let start = base + element * stride as usize;
            for c in 0..width {
                let at = start + c * component_size as usize;
                let v = match component {
                    ComponentType::I8 => f64::from(data[at] as i8),
                    ComponentType::U8 => f64::from(data[at]),
                    ComponentType::I16 => f64::from(i16::from_le_bytes([data[at], data[at + 1]])),
                    ComponentType::U16 => f64::from(u16::from_le_bytes([data[at], data[at + 1]])),
                    ComponentType::U32 => {
                        f64::from(u32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]))
                    }
                    ComponentType::F32 => {
                        f64::from(f32::from_le_bytes([data[at], data[at + 1], data[at + 2], data[at + 3]]))
                    }
                };
                values.push(v);
            }
        }
        Ok(values)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AccessorUse {
    Position,
    Index,
}

enum PrimitiveOutcome {
    Added { leftover_indices: bool },
    Skipped(&'static str),
}

/// The corner index triples of a triangle primitive, each in the front-face order of glTF
/// (strips alternate so every triangle keeps the strip's winding; fans turn around the first vertex).
fn triangle_corners(mode: json::mesh::Mode, indices: &[u32]) -> Vec<[u32; 3]> {
    use json::mesh::Mode;
    match mode {
        Mode::Triangles => indices.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect(),
        Mode::TriangleStrip => (0..indices.len().saturating_sub(2))
            .map(|i| {
                if i % 2 == 0 {
                    [indices[i], indices[i + 1], indices[i + 2]]
                } else {
                    [indices[i], indices[i + 2], indices[i + 1]]
                }
            })
            .collect(),
        Mode::TriangleFan => {
            (1..indices.len().saturating_sub(1)).map(|i| [indices[i], indices[i + 1], indices[0]]).collect()
        }
        _ => Vec::new(),
    }
}

/// Whether three points lie on one line: exact, through the orientation of their projections
/// onto the three coordinate planes (collinear in 3D iff collinear in all three projections).
fn is_collinear(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> bool {
    use meadow::geom::orient2d;
    [(0, 1), (1, 2), (2, 0)].iter().all(|&(u, v)| orient2d([a[u], a[v]], [b[u], b[v]], [c[u], c[v]]) == 0.0)
}

impl Scene {
    /// The world-space axis-aligned bounds `(min, max)` of all triangles, `None` when empty.
    pub fn bounds(&self) -> Option<([f64; 3], [f64; 3])> {
        let mut corners = self.triangles.iter().flat_map(|t| t.vertices.iter());
        let first = *corners.next()?;
        Some(corners.fold((first, first), |(mut lo, mut hi), p| {
            for k in 0..3 {
                lo[k] = lo[k].min(p[k]);
                hi[k] = hi[k].max(p[k]);
            }
            (lo, hi)
        }))
    }
}
