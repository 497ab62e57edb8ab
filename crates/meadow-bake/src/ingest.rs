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
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::rc::Rc;

/// How a node's `extras` tag `navmesh` says its geometry takes part in the bake (the geometry
/// of `"ignore"` nodes is dropped, that of `"area_volume"` nodes goes to [`Scene::volumes`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum NavTag {
    /// No tag: walkable where the slope allows, blocking elsewhere (with the bake setting
    /// `walkable = "tagged-only"`, blocking everywhere).
    Auto,
    /// `"walkable"`: walkable where the slope allows, blocking elsewhere, under either
    /// `walkable` setting.
    Walkable,
    /// `"obstacle"`: never walkable, always blocks.
    Obstacle,
}

/// A node tagged `{"navmesh": "area_volume", "area": ...}`: a closed mesh that neither walks
/// nor blocks, but paints the walkable surface inside it (its XZ footprint and its Y range)
/// with its area type.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AreaVolume {
    /// The node the mesh came from (index into [`Scene::nodes`]).
    pub node: u32,
    /// The area type painted inside (index into [`Scene::areas`]).
    pub area: u16,
    /// The mesh's non-degenerate triangles in world space; their XZ projections, united, are
    /// the volume's footprint.
    pub triangles: Vec<[[f64; 3]; 3]>,
    /// The lowest corner height of the mesh, in metres.
    pub y_min: f64,
    /// The highest corner height of the mesh, in metres.
    pub y_max: f64,
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
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkRequest {
    /// The node carrying the tag (index into [`Scene::nodes`]).
    pub from_node: u32,
    /// The name of the target node.
    pub to: String,
    /// The target node (index into [`Scene::nodes`]; the first node of that name).
    pub to_node: u32,
    /// Whether the link can be used both ways (default `true`).
    pub bidirectional: bool,
    /// Fixed traversal cost in metres of walking, before the area's cost multiplier (`"cost"`,
    /// finite, `>= 0`); `None`: the 3D distance between the connected end points.
    pub cost: Option<f64>,
    /// How far (3D, metres) each end point may be from the polygon it connects to (`"radius"`,
    /// finite, `>= 0`); `None`: the agent radius plus [`meadow::query::DEFAULT_LINK_REACH`].
    pub radius: Option<f64>,
    /// The area name given (`"area"`), if any.
    pub area_name: Option<String>,
    /// Index into [`Scene::areas`] of the link's area: the area of that name (an area first
    /// named by a link gets cost 1.0), or 0 (default) without a name.
    pub area: u16,
    /// The game's identifier (`"id"`, an integer `0 ..= u32::MAX`, default 0), handed back in
    /// paths.
    pub id: u32,
}

/// A level as world-space triangles: the output of [`ingest_file`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    /// Every triangle of every mesh primitive of every node in the scene(s), in world space.
    pub triangles: Vec<SceneTriangle>,
    /// Area types; index 0 is `{"default", 1.0}`, the others come from `extras` in node order,
    /// then those only off-mesh links name (cost 1.0).
    pub areas: Vec<AreaType>,
    /// Node names (or `node <index>` when unnamed), one per visited node in traversal order
    /// (scene by scene, parents before children, children in file order).
    pub nodes: Vec<String>,
    /// Node world positions (translation of the world transform), parallel to `nodes`.
    pub node_positions: Vec<[f64; 3]>,
    /// Off-mesh link requests.
    pub links: Vec<LinkRequest>,
    /// Area volumes, one per `area_volume` node with a mesh, in scene order.
    pub volumes: Vec<AreaVolume>,
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
    /// A node's `navmesh` tag is not `walkable`, `obstacle`, `ignore` or `area_volume`.
    #[error(
        "{}: node {node}: unknown navmesh tag {value} (expected \"walkable\", \"obstacle\", \"ignore\" or \
         \"area_volume\")",
        path.display()
    )]
    UnknownTag {
        /// The level file.
        path: PathBuf,
        /// The node label.
        node: String,
        /// The tag value as JSON.
        value: String,
    },
    /// A node tagged `area_volume` has no `area` of its own.
    #[error("{}: node {node}: an \"area_volume\" node needs an \"area\" (and may give a \"cost\")", path.display())]
    VolumeWithoutArea {
        /// The level file.
        path: PathBuf,
        /// The node label.
        node: String,
    },
    /// The mesh of an area volume is not closed: some edge is not shared by exactly two
    /// triangles.
    #[error(
        "{}: node {node}: an area volume's mesh must be closed, but {open_edges} edge(s) are not shared by \
         exactly two triangles (one runs from {:?} to {:?})",
        path.display(),
        edge[0],
        edge[1]
    )]
    OpenVolume {
        /// The level file.
        path: PathBuf,
        /// The node label.
        node: String,
        /// How many edges are used by one triangle or by more than two.
        open_edges: usize,
        /// One such edge's end points (world space), the first in coordinate order.
        edge: [[f64; 3]; 2],
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
    /// A `navmesh_link` names the node that carries it.
    #[error("{}: node {node}: navmesh_link leads to the node itself", path.display())]
    LinkToItself {
        /// The level file.
        path: PathBuf,
        /// The node label.
        node: String,
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
    /// A vertex lies outside the coordinate contract ([`meadow::limits`]): a world coordinate
    /// beyond `MAX_COORDINATE`, or the level would span more than `MAX_EXTENT` along an axis.
    #[error(
        "{}: node {node}: vertex {vertex} of POSITION accessor {accessor} is at {value:?} in world space: {detail}",
        path.display()
    )]
    OutOfRange {
        /// The level file.
        path: PathBuf,
        /// The node label.
        node: String,
        /// The POSITION accessor index.
        accessor: usize,
        /// The vertex index.
        vertex: usize,
        /// The offending world position.
        value: [f64; 3],
        /// Which limit it breaks.
        detail: String,
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

/// The keys a `navmesh_link` object may have.
const LINK_KEYS: [&str; 6] = ["to", "bidirectional", "cost", "radius", "area", "id"];

/// Most triangles a level may produce (about 1.5 GB of [`SceneTriangle`]s).
pub const MAX_TRIANGLES: usize = 1 << 24;

/// Most elements of an accessor without a buffer view (its values are implicit zeros).
const MAX_IMPLICIT_ELEMENTS: u64 = 1 << 24;

/// Reads a glTF level into a [`Scene`]; skipped primitives and odd content go to `progress.warn`.
pub fn ingest_file(path: &Path, progress: &mut dyn Progress) -> Result<Scene, IngestError> {
    guard(path, || {
        let bytes = std::fs::read(path).map_err(|source| IngestError::Read { path: path.to_path_buf(), source })?;
        ingest_bytes(path, &bytes, progress)
    })
}

/// Reads a glTF level from memory; `origin` names it in messages and locates external buffers
/// (they are resolved next to it).
pub fn ingest_slice(bytes: &[u8], origin: &Path, progress: &mut dyn Progress) -> Result<Scene, IngestError> {
    guard(origin, || ingest_bytes(origin, bytes, progress))
}

/// Runs the reader, turning a panic (a reader bug) into [`IngestError::Internal`].
fn guard(path: &Path, read: impl FnOnce() -> Result<Scene, IngestError>) -> Result<Scene, IngestError> {
    // The reader checks every layout itself; the guard keeps a remaining bug from taking the
    // caller (a build tool, an editor) down.
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(read)) {
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

fn ingest_bytes(path: &Path, bytes: &[u8], progress: &mut dyn Progress) -> Result<Scene, IngestError> {
    let is_glb = bytes.starts_with(b"glTF");
    let (json_bytes, blob) = split_container(path, bytes)?;
    // A UTF-8 byte order mark is not allowed by glTF but some exporters write one.
    let json_bytes = json_bytes.strip_prefix(b"\xEF\xBB\xBF".as_slice()).unwrap_or(json_bytes);
    let root: json::Root = json::deserialize::from_slice(json_bytes).map_err(|e| {
        let first = json_bytes.iter().find(|b| !b.is_ascii_whitespace());
        let reason = if is_glb || first == Some(&b'{') {
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
    let reader = Reader {
        path,
        root: &root,
        buffers,
        decoded: RefCell::default(),
        bounds: RefCell::new([[f64::INFINITY; 3], [f64::NEG_INFINITY; 3]]),
        volume_triangles: Cell::new(0),
    };
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

/// A node's own `navmesh` tag; `Ignore` drops the geometry, `AreaVolume` turns it into an
/// [`AreaVolume`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OwnTag {
    Walkable,
    Obstacle,
    Ignore,
    AreaVolume,
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

/// Decoded accessor values by accessor index and use.
type DecodedAccessors = BTreeMap<(usize, AccessorUse), Rc<Vec<f64>>>;

struct Reader<'a> {
    path: &'a Path,
    root: &'a json::Root,
    buffers: Vec<Vec<u8>>,
    /// Accessors already read: instanced meshes are decoded once.
    decoded: RefCell<DecodedAccessors>,
    /// World-space bounds `[min, max]` of the vertices accepted so far (the extent check).
    bounds: RefCell<[[f64; 3]; 2]>,
    /// Triangles of area volumes kept so far (they count towards [`MAX_TRIANGLES`]).
    volume_triangles: Cell<usize>,
}

/// The triangles of one `area_volume` node, gathered over its primitives.
#[derive(Default)]
struct VolumeParts {
    /// Triangles with area (the footprint).
    triangles: Vec<[[f64; 3]; 3]>,
    /// The undirected edges of every triangle whose three corners are distinct points (collinear
    /// ones included: they close a mesh as much as any other), lesser end first.
    edges: Vec<[[f64; 3]; 2]>,
}

impl VolumeParts {
    fn add(&mut self, corners: [[f64; 3]; 3]) {
        // -0.0 and 0.0 are one point.
        let corners = corners.map(|p| p.map(|c| c + 0.0));
        let [a, b, c] = corners;
        if a == b || b == c || a == c {
            return;
        }
        for (p, q) in [(a, b), (b, c), (c, a)] {
            self.edges.push(if point_cmp(&p, &q).is_le() { [p, q] } else { [q, p] });
        }
        if !is_collinear(a, b, c) {
            self.triangles.push(corners);
        }
    }

    /// The number of edges not shared by exactly two triangles, and the first of them.
    fn open_edges(&mut self) -> (usize, Option<[[f64; 3]; 2]>) {
        let edge_cmp = |e: &[[f64; 3]; 2], f: &[[f64; 3]; 2]| point_cmp(&e[0], &f[0]).then(point_cmp(&e[1], &f[1]));
        self.edges.sort_unstable_by(edge_cmp);
        let (mut open, mut first) = (0, None);
        for run in self.edges.chunk_by(|e, f| edge_cmp(e, f).is_eq()) {
            if run.len() != 2 {
                open += 1;
                first = first.or(Some(run[0]));
            }
        }
        (open, first)
    }
}

/// Lexicographic order of finite points.
fn point_cmp(p: &[f64; 3], q: &[f64; 3]) -> std::cmp::Ordering {
    p[0].total_cmp(&q[0]).then(p[1].total_cmp(&q[1])).then(p[2].total_cmp(&q[2]))
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
        let instances = self.traverse(progress, &mut scene)?;

        let total: u64 =
            instances.iter().map(|i| self.node_mesh(i.gltf_node).map_or(0, |m| m.primitives.len() as u64)).sum();
        progress.begin(Stage::Ingest, total);
        let mut done = 0u64;
        let mut skipped = 0usize;
        let mut short_lists = 0usize;
        for instance in &instances {
            let node = &self.root.nodes[instance.gltf_node];
            let Some(mesh_index) = node.mesh.map(|m| m.value()) else {
                continue;
            };
            if node.skin.is_some() {
                progress.warn(&format!(
                    "{}: node {} has a skinned mesh; it is baked in its bind pose",
                    self.path.display(),
                    self.node_label(instance.gltf_node)
                ));
            }
            let mesh = self.node_mesh(instance.gltf_node).ok_or_else(|| {
                self.malformed(format!(
                    "node {} refers to mesh {mesh_index}, which does not exist",
                    self.node_label(instance.gltf_node)
                ))
            })?;
            let mut volume = (instance.inherited.tag == Some(OwnTag::AreaVolume)).then(VolumeParts::default);
            for (primitive_index, primitive) in mesh.primitives.iter().enumerate() {
                let outcome =
                    self.add_primitive(instance, mesh_index, primitive_index, primitive, &mut scene, volume.as_mut())?;
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
            if let Some(parts) = volume {
                self.add_volume(instance, parts, &mut scene)?;
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
        // Links name real node names only (not the `node <index>` stand-ins of unnamed nodes).
        let names: Vec<Option<&str>> = instances.iter().map(|i| self.root.nodes[i.gltf_node].name.as_deref()).collect();
        for link in &mut scene.links {
            let to = link.to.as_str();
            let Some(to_node) = names.iter().position(|n| *n == Some(to)) else {
                return Err(IngestError::UnknownLinkTarget {
                    path: self.path.to_path_buf(),
                    node: format!("'{}'", scene.nodes[link.from_node as usize]),
                    to: to.to_string(),
                });
            };
            if names.iter().filter(|n| **n == Some(to)).count() > 1 {
                progress.warn(&format!(
                    "{}: navmesh_link target '{to}' names several nodes; the first in scene order is used",
                    self.path.display()
                ));
            }
            link.to_node = to_node as u32;
            // A link's area is an area type by name: the one nodes gave a cost, else a new one
            // of cost 1.0.
            if let Some(name) = &link.area_name {
                link.area = match scene.areas.iter().position(|a| &a.name == name) {
                    Some(existing) => existing as u16,
                    None => {
                        let new = u16::try_from(scene.areas.len())
                            .map_err(|_| self.too_large("more than 65536 area types".into()))?;
                        scene.areas.push(AreaType { name: name.clone(), cost: 1.0 });
                        new
                    }
                };
            }
        }
        progress.finish(Stage::Ingest);
        Ok(scene)
    }

    /// Checks that an area volume's mesh is closed and adds it to the scene (a mesh with no
    /// triangle with area adds nothing).
    fn add_volume(&self, instance: &Instance, mut parts: VolumeParts, scene: &mut Scene) -> Result<(), IngestError> {
        let (open_edges, first) = parts.open_edges();
        if let Some(edge) = first {
            return Err(IngestError::OpenVolume {
                path: self.path.to_path_buf(),
                node: self.node_label(instance.gltf_node),
                open_edges,
                edge,
            });
        }
        if parts.triangles.is_empty() {
            return Ok(());
        }
        let heights = parts.triangles.iter().flatten().map(|p| p[1]);
        let y_min = heights.clone().fold(f64::INFINITY, f64::min);
        let y_max = heights.fold(f64::NEG_INFINITY, f64::max);
        scene.volumes.push(AreaVolume {
            node: instance.scene_node,
            area: instance.inherited.area,
            triangles: parts.triangles,
            y_min,
            y_max,
        });
        Ok(())
    }

    fn node_mesh(&self, node: usize) -> Option<&json::Mesh> {
        let mesh = self.root.nodes.get(node)?.mesh?;
        self.root.meshes.get(mesh.value())
    }

    /// Visits the default scene (or every scene, or every root node when the file has no scene)
    /// in pre-order, recording node names, world positions, areas and links.
    fn traverse(&self, progress: &mut dyn Progress, scene: &mut Scene) -> Result<Vec<Instance>, IngestError> {
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
                let inherited = self.read_extras(node_index, node, scene_node, parent_inherited, scene, progress)?;
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
    fn read_extras(
        &self,
        index: usize,
        node: &json::Node,
        scene_node: u32,
        inherited: Inherited,
        scene: &mut Scene,
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
                // The area is required on the node itself: a volume that silently painted the
                // inherited (often default) area would do nothing visible.
                Some("area_volume") if extras.contains_key("area") => OwnTag::AreaVolume,
                Some("area_volume") => {
                    return Err(IngestError::VolumeWithoutArea { path: self.path.to_path_buf(), node: label.clone() })
                }
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
                // The asset stores costs as f32: they must stay finite there too.
                if !(cost.is_finite() && cost >= 1.0 && (cost as f32).is_finite()) {
                    return Err(IngestError::BadAreaCost {
                        path: self.path.to_path_buf(),
                        node: label.clone(),
                        area: name.to_string(),
                        cost,
                    });
                }
                own.area = match scene.areas.iter().position(|a| a.name == name) {
                    Some(existing) => {
                        let first = scene.areas[existing].cost;
                        if first != cost as f32 {
                            progress.warn(&format!(
                                "{}: node {label}: area '{name}' was first given cost {}, cost {cost} is ignored",
                                self.path.display(),
                                first
                            ));
                        }
                        existing as u16
                    }
                    None => {
                        let new = u16::try_from(scene.areas.len())
                            .map_err(|_| self.too_large("more than 65536 area types".into()))?;
                        scene.areas.push(AreaType { name: name.to_string(), cost: cost as f32 });
                        new
                    }
                };
            }
        }
        if let Some(link) = extras.get("navmesh_link") {
            let request = self.read_link(link, node, scene_node, &label, progress)?;
            scene.links.push(request);
        }
        Ok(own)
    }

    /// Reads a node's `navmesh_link` object: `to` (required), `bidirectional`, `cost`, `radius`,
    /// `area` and `id`. The target node and the area are resolved once every node is known.
    fn read_link(
        &self,
        link: &Value,
        node: &json::Node,
        scene_node: u32,
        label: &str,
        progress: &mut dyn Progress,
    ) -> Result<LinkRequest, IngestError> {
        let bad =
            |reason: String| IngestError::BadExtras { path: self.path.to_path_buf(), node: label.to_string(), reason };
        let link = link.as_object().ok_or_else(|| bad("\"navmesh_link\" must be an object".into()))?;
        let to = link
            .get("to")
            .and_then(Value::as_str)
            .ok_or_else(|| bad("\"navmesh_link\" needs a \"to\" node name".into()))?;
        if node.name.as_deref() == Some(to) {
            return Err(IngestError::LinkToItself { path: self.path.to_path_buf(), node: label.to_string() });
        }
        let bidirectional = match link.get("bidirectional") {
            None => true,
            Some(Value::Bool(b)) => *b,
            Some(other) => return Err(bad(format!("\"bidirectional\" must be true or false, not {other}"))),
        };
        // A distance in metres: a finite number >= 0 (JSON has no NaN; strings, negatives and
        // numbers beyond f64 are refused).
        let distance = |key: &str| -> Result<Option<f64>, IngestError> {
            match link.get(key) {
                None => Ok(None),
                Some(v) => match v.as_f64() {
                    Some(x) if x.is_finite() && x >= 0.0 => Ok(Some(x)),
                    _ => Err(bad(format!("navmesh_link \"{key}\" must be a finite number >= 0, not {v}"))),
                },
            }
        };
        let cost = distance("cost")?;
        let radius = distance("radius")?;
        let area_name = match link.get("area") {
            None => None,
            Some(Value::String(name)) => Some(name.clone()),
            Some(other) => return Err(bad(format!("navmesh_link \"area\" must be an area name, not {other}"))),
        };
        let id = match link.get("id") {
            None => 0,
            Some(v) => v.as_u64().and_then(|id| u32::try_from(id).ok()).ok_or_else(|| {
                bad(format!("navmesh_link \"id\" must be an integer from 0 to {}, not {v}", u32::MAX))
            })?,
        };
        for key in link.keys().filter(|k| !LINK_KEYS.contains(&k.as_str())) {
            progress.warn(&format!(
                "{}: node {label}: navmesh_link key \"{key}\" is not known (expected one of {}); it is ignored",
                self.path.display(),
                LINK_KEYS.join(", ")
            ));
        }
        Ok(LinkRequest {
            from_node: scene_node,
            to: to.to_string(),
            to_node: u32::MAX,
            bidirectional,
            cost,
            radius,
            area_name,
            area: 0,
            id,
        })
    }

    /// Adds one primitive's triangles (world space, front face CCW) to the scene.
    fn add_primitive(
        &self,
        instance: &Instance,
        mesh_index: usize,
        primitive_index: usize,
        primitive: &json::mesh::Primitive,
        scene: &mut Scene,
        mut volume: Option<&mut VolumeParts>,
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
        let tag = match instance.inherited.tag {
            None => NavTag::Auto,
            Some(OwnTag::Walkable) => NavTag::Walkable,
            Some(OwnTag::Obstacle) => NavTag::Obstacle,
            // Unused: the triangles go to `volume`.
            Some(OwnTag::AreaVolume) => NavTag::Obstacle,
            Some(OwnTag::Ignore) => {
                // Ignored geometry is not even decoded (a broken helper mesh can be ignored);
                // its triangles are counted from the accessor counts alone.
                let counted = primitive
                    .indices
                    .or_else(|| primitive.attributes.get(&Checked::Valid(json::mesh::Semantic::Positions)).copied());
                let corners = counted.and_then(|a| self.root.accessors.get(a.value())).map_or(0, |a| a.count.0);
                scene.ignored_dropped += triangle_count(mode, corners);
                return Ok(PrimitiveOutcome::Added { leftover_indices: false });
            }
        };
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
        let positions = self.decoded_accessor(position_accessor, &role, AccessorUse::Position)?;
        let vertex_count = positions.len() / 3;

        let indices: Vec<u32> = match primitive.indices {
            Some(accessor) => {
                let role = format!("indices of mesh {}", self.mesh_label(mesh_index));
                let values = self.decoded_accessor(accessor.value(), &role, AccessorUse::Index)?;
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
            self.check_contract(w).map_err(|detail| IngestError::OutOfRange {
                path: self.path.to_path_buf(),
                node: node_label(),
                accessor: position_accessor,
                vertex: i,
                value: w,
                detail,
            })?;
            world[i] = Some(w);
        }

        let corner_triples = triangle_corners(mode, &indices);
        let leftover_indices = mode == Mode::Triangles && !indices.len().is_multiple_of(3);
        let flip = instance.world.fixed_view::<3, 3>(0, 0).determinant() < 0.0;
        let held = scene.triangles.len() + self.volume_triangles.get();
        if held + corner_triples.len() > MAX_TRIANGLES {
            return Err(self.too_large(format!("more than {MAX_TRIANGLES} triangles")));
        }
        for [a, b, c] in corner_triples {
            if a == b || b == c || a == c {
                scene.degenerate_dropped += 1;
                continue;
            }
            let corner = |i: u32| world[i as usize].unwrap_or([0.0; 3]);
            let (pa, mut pb, mut pc) = (corner(a), corner(b), corner(c));
            if let Some(parts) = volume.as_deref_mut() {
                // Windings do not matter for a volume: only its footprint and heights do.
                parts.add([pa, pb, pc]);
                self.volume_triangles.set(self.volume_triangles.get() + 1);
                continue;
            }
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

    /// Checks a finite world-space vertex against the coordinate contract and widens the
    /// level's bounds by it; the error says which limit it breaks.
    fn check_contract(&self, w: [f64; 3]) -> Result<(), String> {
        use meadow::limits::{MAX_COORDINATE, MAX_EXTENT};
        if !meadow::limits::in_range(w) {
            return Err(format!("a coordinate is beyond the {MAX_COORDINATE} m limit"));
        }
        let mut bounds = self.bounds.borrow_mut();
        let [mut lo, mut hi] = *bounds;
        for k in 0..3 {
            lo[k] = lo[k].min(w[k]);
            hi[k] = hi[k].max(w[k]);
            if hi[k] - lo[k] > MAX_EXTENT {
                let axis = ["x", "y", "z"][k];
                return Err(format!(
                    "the level would span {:.0} m along {axis}, more than the {MAX_EXTENT} m limit \
                     (tag far-away helper geometry \"navmesh\": \"ignore\")",
                    hi[k] - lo[k]
                ));
            }
        }
        *bounds = [lo, hi];
        Ok(())
    }

    /// [`Self::read_accessor`], once per accessor and use.
    fn decoded_accessor(&self, index: usize, role: &str, usage: AccessorUse) -> Result<Rc<Vec<f64>>, IngestError> {
        if let Some(values) = self.decoded.borrow().get(&(index, usage)) {
            return Ok(Rc::clone(values));
        }
        let values = Rc::new(self.read_accessor(index, role, usage)?);
        self.decoded.borrow_mut().insert((index, usage), Rc::clone(&values));
        Ok(values)
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

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
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

/// How many triangles a triangle primitive of `corners` indices (or vertices) draws.
fn triangle_count(mode: json::mesh::Mode, corners: u64) -> usize {
    use json::mesh::Mode;
    let count = match mode {
        Mode::Triangles => corners / 3,
        Mode::TriangleStrip | Mode::TriangleFan => corners.saturating_sub(2),
        _ => 0,
    };
    usize::try_from(count).unwrap_or(usize::MAX)
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

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// A glTF document assembled in a test, written as a GLB in memory.
    #[derive(Default)]
    struct Doc {
        bin: Vec<u8>,
        views: Vec<Value>,
        accessors: Vec<Value>,
        meshes: Vec<Value>,
        nodes: Vec<Value>,
        scenes: Vec<Value>,
        scene: Option<usize>,
    }

    impl Doc {
        fn view(&mut self, bytes: &[u8]) -> usize {
            self.bin.resize(self.bin.len().next_multiple_of(4), 0);
            self.views.push(json!({"buffer": 0, "byteOffset": self.bin.len(), "byteLength": bytes.len()}));
            self.bin.extend_from_slice(bytes);
            self.views.len() - 1
        }

        fn accessor(&mut self, accessor: Value) -> usize {
            self.accessors.push(accessor);
            self.accessors.len() - 1
        }

        fn positions(&mut self, points: &[[f32; 3]]) -> usize {
            let bytes: Vec<u8> = points.iter().flatten().flat_map(|c| c.to_le_bytes()).collect();
            let view = self.view(&bytes);
            self.accessor(json!({"bufferView": view, "componentType": 5126, "count": points.len(), "type": "VEC3"}))
        }

        /// Indices with component type 5121 (u8), 5123 (u16) or 5125 (u32).
        fn indices(&mut self, indices: &[u32], component_type: u32) -> usize {
            let bytes: Vec<u8> = match component_type {
                5121 => indices.iter().map(|&i| i as u8).collect(),
                5123 => indices.iter().flat_map(|&i| (i as u16).to_le_bytes()).collect(),
                _ => indices.iter().flat_map(|&i| i.to_le_bytes()).collect(),
            };
            let view = self.view(&bytes);
            self.accessor(
                json!({"bufferView": view, "componentType": component_type, "count": indices.len(), "type": "SCALAR"}),
            )
        }

        fn mesh(&mut self, name: &str, primitives: Value) -> usize {
            self.meshes.push(json!({"name": name, "primitives": primitives}));
            self.meshes.len() - 1
        }

        fn node(&mut self, node: Value) -> usize {
            self.nodes.push(node);
            self.nodes.len() - 1
        }

        /// Adds a scene of root nodes and makes it the default.
        fn scene(&mut self, roots: &[usize]) {
            self.scenes.push(json!({"nodes": roots}));
            self.scene = Some(self.scenes.len() - 1);
        }

        fn json(&self) -> Value {
            let mut root = json!({
                "asset": {"version": "2.0"},
                "bufferViews": self.views,
                "accessors": self.accessors,
                "meshes": self.meshes,
                "nodes": self.nodes,
                "scenes": self.scenes,
            });
            if !self.bin.is_empty() {
                root["buffers"] = json!([{"byteLength": self.bin.len()}]);
            }
            if let Some(scene) = self.scene {
                root["scene"] = json!(scene);
            }
            root
        }

        fn glb(&self) -> Vec<u8> {
            glb(&self.json(), &self.bin)
        }

        fn ingest(&self) -> Result<(Scene, Recorder), IngestError> {
            ingest_glb(&self.glb())
        }
    }

    fn glb(json: &Value, bin: &[u8]) -> Vec<u8> {
        let mut json_chunk = serde_json::to_vec(json).unwrap();
        json_chunk.resize(json_chunk.len().next_multiple_of(4), b' ');
        let mut bin = bin.to_vec();
        bin.resize(bin.len().next_multiple_of(4), 0);
        let total = 12 + 8 + json_chunk.len() + if bin.is_empty() { 0 } else { 8 + bin.len() };
        let mut out = Vec::new();
        out.extend_from_slice(b"glTF");
        out.extend_from_slice(&2u32.to_le_bytes());
        out.extend_from_slice(&(total as u32).to_le_bytes());
        out.extend_from_slice(&(json_chunk.len() as u32).to_le_bytes());
        out.extend_from_slice(b"JSON");
        out.extend_from_slice(&json_chunk);
        if !bin.is_empty() {
            out.extend_from_slice(&(bin.len() as u32).to_le_bytes());
            out.extend_from_slice(b"BIN\0");
            out.extend_from_slice(&bin);
        }
        out
    }

    #[derive(Default, Debug)]
    struct Recorder {
        warnings: Vec<String>,
        begun: Option<u64>,
        advanced: Vec<u64>,
        finished: bool,
    }

    impl Progress for Recorder {
        fn begin(&mut self, stage: Stage, total: u64) {
            assert_eq!(stage, Stage::Ingest);
            self.begun = Some(total);
        }
        fn advance(&mut self, stage: Stage, done: u64) {
            assert_eq!(stage, Stage::Ingest);
            self.advanced.push(done);
        }
        fn finish(&mut self, stage: Stage) {
            assert_eq!(stage, Stage::Ingest);
            self.finished = true;
        }
        fn warn(&mut self, message: &str) {
            self.warnings.push(message.to_string());
        }
    }

    fn ingest_glb(bytes: &[u8]) -> Result<(Scene, Recorder), IngestError> {
        let mut recorder = Recorder::default();
        let scene = ingest_slice(bytes, Path::new("test.glb"), &mut recorder)?;
        Ok((scene, recorder))
    }

    fn normal(t: &SceneTriangle) -> [f64; 3] {
        let [a, b, c] = t.vertices;
        let (u, v) = ([b[0] - a[0], b[1] - a[1], b[2] - a[2]], [c[0] - a[0], c[1] - a[1], c[2] - a[2]]);
        [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]]
    }

    /// Unit square at y = 0, `[0, 1]²` in (x, z), two upward triangles (CCW seen from +Y).
    const SQUARE: [[f32; 3]; 4] = [[0.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0], [1.0, 0.0, 0.0]];
    const SQUARE_INDICES: [u32; 6] = [0, 1, 2, 0, 2, 3];

    /// A document with one square mesh (u16 indices) and nothing placed yet.
    fn square_doc() -> (Doc, usize) {
        let mut doc = Doc::default();
        let p = doc.positions(&SQUARE);
        let i = doc.indices(&SQUARE_INDICES, 5123);
        let mesh = doc.mesh("Square", json!([{"attributes": {"POSITION": p}, "indices": i}]));
        (doc, mesh)
    }

    fn close(a: [f64; 3], b: [f64; 3]) -> bool {
        (0..3).all(|k| (a[k] - b[k]).abs() < 1e-6)
    }

    #[test]
    fn square_faces_up_and_negative_determinant_keeps_front_faces() {
        let (mut doc, mesh) = square_doc();
        let plain = doc.node(json!({"name": "Plain", "mesh": mesh}));
        let mirrored = doc.node(json!({"name": "Mirrored", "mesh": mesh, "scale": [-1.0, 1.0, 1.0]}));
        // Two negative scales are a half turn about z (determinant +1): the square is upside down.
        let turned = doc.node(json!({"name": "Turned", "mesh": mesh, "scale": [-1.0, -1.0, 1.0]}));
        doc.scene(&[plain, mirrored, turned]);
        let (scene, progress) = doc.ingest().unwrap();
        assert_eq!(scene.triangles.len(), 6);
        for (k, t) in scene.triangles.iter().enumerate() {
            let n = normal(t);
            let expected_up = k < 4;
            assert_eq!(n[1] > 0.0, expected_up, "triangle {k} of {}: {n:?}", scene.nodes[t.node as usize]);
            assert!(n[0] == 0.0 && n[2] == 0.0);
        }
        // The mirrored square covers x in [-1, 0].
        assert!(scene.triangles[2..4].iter().flat_map(|t| t.vertices).all(|v| v[0] <= 0.0));
        assert_eq!(scene.nodes, ["Plain", "Mirrored", "Turned"]);
        assert_eq!(progress.begun, Some(3));
        assert_eq!(progress.advanced, [1, 2, 3]);
        assert!(progress.finished && progress.warnings.is_empty());
    }

    #[test]
    fn transforms_compose_parent_to_child() {
        let (mut doc, mesh) = square_doc();
        let s = std::f32::consts::FRAC_1_SQRT_2;
        // Parent: translate (10, 0, 0), turn 90° about +Y, scale x by 2. Child: translate (1, 0, 0).
        let child = doc.node(json!({"name": "Child", "mesh": mesh, "translation": [1.0, 0.0, 0.0]}));
        let parent = doc.node(json!({
            "name": "Parent", "children": [child],
            "translation": [10.0, 0.0, 0.0], "rotation": [0.0, s, 0.0, s], "scale": [2.0, 1.0, 1.0]
        }));
        // A matrix node (column-major): translation (0, 5, 0) and a uniform scale of 3.
        let matrix = doc.node(json!({
            "name": "Matrix", "mesh": mesh,
            "matrix": [3.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 5.0, 0.0, 1.0]
        }));
        doc.scene(&[parent, matrix]);
        let (scene, _) = doc.ingest().unwrap();
        assert_eq!(scene.nodes, ["Parent", "Child", "Matrix"]);
        // T · R · S applied to the child's origin (1, 0, 0): scale → (2, 0, 0), R_y(90°) → (0, 0, -2).
        assert!(close(scene.node_positions[1], [10.0, 0.0, -2.0]), "{:?}", scene.node_positions[1]);
        // Local (1, 0, 1) of the child: (2, 0, 1) → scale (4, 0, 1) → turn (1, 0, -4) → (11, 0, -4).
        let child_corner = scene.triangles[0].vertices[2];
        assert!(close(child_corner, [11.0, 0.0, -4.0]), "{child_corner:?}");
        assert!(close(scene.node_positions[2], [0.0, 5.0, 0.0]));
        assert!(close(scene.triangles[2].vertices[2], [3.0, 5.0, 3.0]));
        // Rotation and positive scales keep the square facing up.
        assert!(scene.triangles.iter().all(|t| normal(t)[1] > 0.0));
    }

    #[test]
    fn strips_alternate_and_fans_turn_about_their_first_vertex() {
        let mut doc = Doc::default();
        // A strip along +x: bottom/top pairs (x, z = 0) / (x, z = 1), listed so that the
        // first triangle faces up: (0,0), (0,1), (1,0), (1,1), (2,0), (2,1).
        let strip: Vec<[f32; 3]> = (0..6).map(|k| [(k / 2) as f32, 0.0, if k % 2 == 0 { 0.0 } else { 1.0 }]).collect();
        let p = doc.positions(&strip);
        let strip_mesh = doc.mesh("Strip", json!([{"attributes": {"POSITION": p}, "mode": 5}]));
        // A fan around (0, 1, 0): ring points clockwise in (x, z) seen from +Y → faces up.
        let fan: [[f32; 3]; 5] =
            [[0.0, 1.0, 0.0], [1.0, 1.0, 0.0], [0.0, 1.0, -1.0], [-1.0, 1.0, 0.0], [0.0, 1.0, 1.0]];
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
    fn sparse_accessors_substitute_values() {
        let mut doc = Doc::default();
        let base = doc.positions(&SQUARE);
        let base_view = doc.accessors[base]["bufferView"].clone();
        let indices_view = doc.view(&[2u8]);
        let values_view = doc.view(&[5.0f32, 0.0, 7.0].iter().flat_map(|c| c.to_le_bytes()).collect::<Vec<_>>());
        let sparse = json!({"count": 1, "indices": {"bufferView": indices_view, "componentType": 5121},
                            "values": {"bufferView": values_view}});
        let moved = doc.accessor(json!({"bufferView": base_view, "componentType": 5126, "count": 4,
                                        "type": "VEC3", "sparse": sparse}));
        // Without a buffer view the base values are zeros.
        let zeros = doc.accessor(json!({"componentType": 5126, "count": 4, "type": "VEC3", "sparse": sparse}));
        let i = doc.indices(&SQUARE_INDICES, 5123);
        let a = doc.mesh("Moved", json!([{"attributes": {"POSITION": moved}, "indices": i}]));
        let b = doc.mesh("Zeros", json!([{"attributes": {"POSITION": zeros}, "indices": i}]));
        let na = doc.node(json!({"mesh": a}));
        let nb = doc.node(json!({"mesh": b}));
        doc.scene(&[na, nb]);
        let (scene, progress) = doc.ingest().unwrap();
        assert_eq!(scene.triangles[0].vertices[2], [5.0, 0.0, 7.0]);
        assert_eq!(scene.triangles[1].vertices[1], [5.0, 0.0, 7.0]);
        // The zero-based copy has three corners at the origin: both triangles are degenerate.
        assert_eq!(scene.triangles.len(), 2);
        assert_eq!(scene.degenerate_dropped, 2);
        assert_eq!(progress.warnings.len(), 1);
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

    #[test]
    fn ignored_geometry_is_not_decoded_but_counted() {
        let (mut doc, square) = square_doc();
        let broken = doc.positions(&[[f32::NAN, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [1.0, 0.0, 1.0]]);
        let mesh = doc.mesh(
            "Broken",
            json!([{"attributes": {"POSITION": broken}, "mode": 5}, {"attributes": {"NORMAL": broken}}]),
        );
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
        assert!(
            matches!(&err, IngestError::UnknownTag { node, value, .. } if node == "'Tagged'" && value == "\"flying\"")
        );
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
        assert_eq!(
            summary,
            [("Water", 1, 12, -1.0, 2.0), ("Puddle", 1, 12, -1.0, 2.0), ("Shallows", 2, 12, -1.0, 2.0)]
        );
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
                LinkRequest {
                    from_node: 0,
                    to: "Target".into(),
                    to_node: 2,
                    bidirectional: true,
                    ..Default::default()
                },
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

    #[test]
    fn positions_that_overflow_in_world_space_are_rejected() {
        let (mut doc, mesh) = square_doc();
        // Nine nested scales of 1e38 exceed f64's range (about 1.8e308).
        let mut child = doc.node(json!({"name": "Leaf", "mesh": mesh}));
        for _ in 0..9 {
            child = doc.node(json!({"children": [child], "scale": [1e38, 1e38, 1e38]}));
        }
        doc.scene(&[child]);
        let err = doc.ingest().unwrap_err();
        assert!(matches!(&err, IngestError::NonFinitePosition { world: true, node, .. } if node == "'Leaf'"), "{err}");
    }

    #[test]
    fn geometry_outside_the_coordinate_contract_names_node_and_accessor() {
        use meadow::limits::{MAX_COORDINATE, MAX_EXTENT};
        let (mut doc, mesh) = square_doc();
        let n = doc.node(json!({"name": "Huge", "mesh": mesh, "scale": [2.0 * MAX_COORDINATE, 1.0, 1.0]}));
        doc.scene(&[n]);
        let err = doc.ingest().unwrap_err();
        assert!(
            matches!(&err, IngestError::OutOfRange { node, accessor: 0, detail, .. }
                if node == "'Huge'" && detail.contains("beyond")),
            "{err}"
        );
        // Regression (hostile levels): one vertex of a small level moved 300 km away passed
        // ingest; the level's span is checked vertex by vertex, naming the one that breaks it.
        let (mut doc, mesh) = square_doc();
        let near = doc.node(json!({"name": "Near", "mesh": mesh}));
        let far = doc.node(json!({"name": "Far", "mesh": mesh, "translation": [300_000.0, 0.0, 0.0]}));
        doc.scene(&[near, far]);
        let err = doc.ingest().unwrap_err();
        assert!(
            matches!(&err, IngestError::OutOfRange { node, detail, .. } if node == "'Far'" && detail.contains("span")),
            "{err}"
        );
        // The largest level, far from the origin, is fine.
        let (mut doc, mesh) = square_doc();
        let a = doc.node(json!({"name": "A", "mesh": mesh, "translation": [MAX_COORDINATE - MAX_EXTENT, 0.0, 0.0]}));
        let b = doc.node(json!({"name": "B", "mesh": mesh, "translation": [MAX_COORDINATE - 1.0, 0.0, 0.0]}));
        doc.scene(&[a, b]);
        doc.ingest().unwrap();
    }

    #[test]
    fn cyclic_and_shared_nodes_are_rejected() {
        let (mut doc, mesh) = square_doc();
        doc.node(json!({"name": "A", "mesh": mesh, "children": [1]}));
        doc.node(json!({"name": "B", "children": [0]}));
        doc.scene(&[0]);
        assert!(matches!(doc.ingest().unwrap_err(), IngestError::Malformed { .. }));
        let (mut doc, mesh) = square_doc();
        let shared = doc.node(json!({"mesh": mesh}));
        let p1 = doc.node(json!({"children": [shared]}));
        let p2 = doc.node(json!({"children": [shared]}));
        doc.scene(&[p1, p2]);
        assert!(matches!(doc.ingest().unwrap_err(), IngestError::Malformed { .. }));
        let (mut doc, _) = square_doc();
        let n = doc.node(json!({"children": [42]}));
        doc.scene(&[n]);
        assert!(matches!(doc.ingest().unwrap_err(), IngestError::Malformed { .. }));
    }

    #[test]
    fn scene_selection_default_then_all_then_root_nodes() {
        let (mut doc, mesh) = square_doc();
        let a = doc.node(json!({"name": "A", "mesh": mesh}));
        let b = doc.node(json!({"name": "B", "mesh": mesh}));
        let c = doc.node(json!({"name": "C", "mesh": mesh, "children": [b]}));
        doc.scene(&[a]);
        doc.scene(&[c]);
        doc.scene = Some(0);
        assert_eq!(doc.ingest().unwrap().0.nodes, ["A"]);
        doc.scene = None;
        assert_eq!(doc.ingest().unwrap().0.nodes, ["A", "C", "B"]);
        doc.scenes.clear();
        assert_eq!(doc.ingest().unwrap().0.nodes, ["A", "C", "B"]);
    }

    #[test]
    fn container_errors_are_typed() {
        let (mut doc, mesh) = square_doc();
        let n = doc.node(json!({"mesh": mesh}));
        doc.scene(&[n]);
        let good = doc.glb();
        assert!(ingest_glb(&good).is_ok());
        let err = |bytes: &[u8]| ingest_glb(bytes).unwrap_err();
        assert!(matches!(err(&good[..8]), IngestError::TruncatedGlb { expected: 12, actual: 8, .. }));
        assert!(matches!(err(&good[..good.len() - 1]), IngestError::TruncatedGlb { .. }));
        let mut long_chunk = good.clone();
        long_chunk[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(err(&long_chunk), IngestError::TruncatedGlb { .. }));
        let mut version1 = good.clone();
        version1[4] = 1;
        assert!(matches!(err(&version1), IngestError::NotGltf { .. }));
        assert!(matches!(err(b""), IngestError::NotGltf { .. }));
        assert!(matches!(err(b"\x89PNG\r\n"), IngestError::NotGltf { .. }));
        assert!(matches!(err(b"{\"asset\": {\"version\": \"2.0\"}, \"nodes\": [1, 2"), IngestError::NotGltf { .. }));
        assert!(matches!(err(b"{\"nodes\": []}"), IngestError::NotGltf { .. }));
        // A buffer without uri needs the BIN chunk.
        let no_bin = glb(&doc.json(), &[]);
        assert!(matches!(err(&no_bin), IngestError::Malformed { .. }));
        // Draco-compressed geometry is refused up front.
        let mut draco = doc.json();
        draco["extensionsRequired"] = json!(["KHR_draco_mesh_compression"]);
        assert!(matches!(err(&glb(&draco, &doc.bin)), IngestError::UnsupportedExtension { .. }));
    }

    #[test]
    fn hostile_accessor_layouts_are_typed_errors() {
        type Check = fn(&IngestError) -> bool;
        let cases: Vec<(Value, Check)> = vec![
            (json!({"count": 4_000_000_000u64}), |e| matches!(e, IngestError::AccessorOutOfBounds { .. })),
            (json!({"count": 0}), |e| matches!(e, IngestError::IndexOutOfRange { vertex_count: 0, .. })),
            (json!({"byteOffset": 18_446_744_073_709_551_000u64}), |e| {
                matches!(e, IngestError::AccessorOutOfBounds { .. })
            }),
            (json!({"componentType": 5125}), |e| matches!(e, IngestError::Malformed { .. })),
            (json!({"type": "VEC2"}), |e| matches!(e, IngestError::Malformed { .. })),
            (json!({"componentType": 9999}), |e| matches!(e, IngestError::Malformed { .. })),
            (json!({"bufferView": 99}), |e| matches!(e, IngestError::AccessorOutOfBounds { .. })),
            (json!({"bufferView": null, "count": 1u64 << 40}), |e| matches!(e, IngestError::TooLarge { .. })),
        ];
        for (patch, expected) in cases {
            let (mut doc, mesh) = square_doc();
            for (key, value) in patch.as_object().unwrap() {
                if value.is_null() {
                    doc.accessors[0].as_object_mut().unwrap().remove(key);
                } else {
                    doc.accessors[0][key] = value.clone();
                }
            }
            let n = doc.node(json!({"mesh": mesh}));
            doc.scene(&[n]);
            let err = doc.ingest().unwrap_err();
            assert!(expected(&err), "{patch}: {err}");
        }
        // Stride shorter than an element, a view past its buffer, float indices.
        let (mut doc, mesh) = square_doc();
        doc.views[0]["byteStride"] = json!(4);
        let n = doc.node(json!({"mesh": mesh}));
        doc.scene(&[n]);
        assert!(matches!(doc.ingest().unwrap_err(), IngestError::AccessorOutOfBounds { .. }));
        doc.views[0]["byteStride"] = json!(12);
        doc.views[0]["byteLength"] = json!(4096);
        assert!(matches!(doc.ingest().unwrap_err(), IngestError::AccessorOutOfBounds { .. }));
        doc.views[0]["byteLength"] = json!(48);
        doc.accessors[1]["componentType"] = json!(5126);
        assert!(matches!(doc.ingest().unwrap_err(), IngestError::Malformed { .. }));
        doc.accessors[1]["componentType"] = json!(5123);
        doc.nodes[0]["rotation"] = json!([0.0, 0.0, 0.0, 0.0]);
        assert!(matches!(doc.ingest().unwrap_err(), IngestError::Malformed { .. }));
        doc.nodes[0]["rotation"] = json!([0.0, 0.0, 0.0, 1.0]);
        assert!(doc.ingest().is_ok());
    }

    #[test]
    fn quantized_positions_are_normalized() {
        let mut doc = Doc::default();
        let raw: Vec<u8> = [[0u16, 0, 0], [0, 0, 65535], [65535, 0, 65535]]
            .iter()
            .flat_map(|p| p.iter().flat_map(|c| c.to_le_bytes()).chain([0, 0]))
            .collect();
        let view = doc.view(&raw);
        doc.views[view]["byteStride"] = json!(8);
        let p = doc.accessor(json!({"bufferView": view, "componentType": 5123, "normalized": true,
                                    "count": 3, "type": "VEC3"}));
        let mesh = doc.mesh("Quantized", json!([{"attributes": {"POSITION": p}}]));
        let n = doc.node(json!({"mesh": mesh, "scale": [10.0, 10.0, 10.0]}));
        doc.scene(&[n]);
        let (scene, _) = doc.ingest().unwrap();
        assert_eq!(scene.triangles[0].vertices, [[0.0; 3], [0.0, 0.0, 10.0], [10.0, 0.0, 10.0]]);
    }

    #[test]
    fn external_buffers_resolve_next_to_the_file() {
        let dir = std::env::temp_dir().join(format!("meadow-ingest-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let (mut doc, mesh) = square_doc();
        let n = doc.node(json!({"mesh": mesh}));
        doc.scene(&[n]);
        let mut json = doc.json();
        json["buffers"][0]["uri"] = json!("my%20level.bin");
        let gltf = dir.join("level.gltf");
        std::fs::write(&gltf, serde_json::to_vec(&json).unwrap()).unwrap();
        let err = ingest_file(&gltf, &mut NoProgressForTests).unwrap_err();
        assert!(matches!(&err, IngestError::MissingBuffer { file, .. } if file.ends_with("my level.bin")), "{err}");
        std::fs::write(dir.join("my level.bin"), &doc.bin).unwrap();
        let scene = ingest_file(&gltf, &mut NoProgressForTests).unwrap();
        assert_eq!(scene.triangles.len(), 2);
        std::fs::write(dir.join("my level.bin"), &doc.bin[..10]).unwrap();
        let err = ingest_file(&gltf, &mut NoProgressForTests).unwrap_err();
        assert!(matches!(err, IngestError::BufferTooShort { expected: 60, actual: 10, .. }), "{err}");
        let err = ingest_file(&dir.join("absent.glb"), &mut NoProgressForTests).unwrap_err();
        assert!(matches!(err, IngestError::Read { .. }));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    struct NoProgressForTests;

    impl Progress for NoProgressForTests {
        fn begin(&mut self, _: Stage, _: u64) {}
        fn advance(&mut self, _: Stage, _: u64) {}
        fn finish(&mut self, _: Stage) {}
        fn warn(&mut self, _: &str) {}
    }

    mod fuzz {
        use super::*;
        use proptest::prelude::*;

        fn sample_doc() -> Doc {
            let (mut doc, mesh) = square_doc();
            let strip = doc.mesh("Strip", json!([{"attributes": {"POSITION": 0}, "mode": 5}]));
            let indices_view = doc.view(&[1u8, 3]);
            let values_view =
                doc.view(&[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0].iter().flat_map(|c| c.to_le_bytes()).collect::<Vec<_>>());
            let sparse = doc.accessor(json!({"bufferView": 0, "byteOffset": 0, "componentType": 5126, "count": 4,
                "type": "VEC3", "sparse": {"count": 2, "indices": {"bufferView": indices_view, "componentType": 5121},
                "values": {"bufferView": values_view, "byteOffset": 0}}}));
            let fan = doc.mesh("Fan", json!([{"attributes": {"POSITION": sparse}, "indices": 1, "mode": 6}]));
            let child = doc.node(json!({"name": "C", "mesh": strip, "scale": [-1.0, 1.0, 1.0],
                                        "extras": {"area": "grass", "cost": 2.0}}));
            let grandchild = doc
                .node(json!({"name": "G", "mesh": fan, "matrix": [1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0,
                                              0.0, 0.0, 1.0, 0.0, 0.0, 2.0, 0.0, 1.0]}));
            doc.nodes[child]["children"] = json!([grandchild]);
            let n = doc.node(json!({"mesh": mesh, "children": [child], "extras": {"navmesh": "walkable",
                                    "navmesh_link": {"to": "C"}}}));
            doc.scene(&[n]);
            doc
        }

        fn sample() -> Vec<u8> {
            sample_doc().glb()
        }

        #[test]
        fn the_fuzz_sample_itself_is_a_valid_level() {
            let (scene, _) = sample_doc().ingest().unwrap();
            // Square 2 + strip 2 + fan of 6 indices 4, all under the walkable root.
            assert_eq!(scene.triangles.len() + scene.degenerate_dropped, 8);
            assert!(scene.triangles.len() >= 6);
            assert_eq!(scene.links.len(), 1);
            assert!(scene.triangles.iter().all(|t| t.tag == NavTag::Walkable));
        }

        /// Paths (object keys and array positions) of every number in a JSON value.
        fn number_paths(value: &Value, path: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
            match value {
                Value::Number(_) => out.push(path.clone()),
                Value::Array(items) => {
                    for (k, item) in items.iter().enumerate() {
                        path.push(json!(k));
                        number_paths(item, path, out);
                        path.pop();
                    }
                }
                Value::Object(map) => {
                    for (key, item) in map {
                        path.push(json!(key));
                        number_paths(item, path, out);
                        path.pop();
                    }
                }
                _ => {}
            }
        }

        fn at_path<'v>(value: &'v mut Value, path: &[Value]) -> &'v mut Value {
            path.iter().fold(value, |v, step| match step {
                Value::String(key) => &mut v[key.as_str()],
                step => &mut v[step.as_u64().unwrap() as usize],
            })
        }

        fn hostile_number() -> impl Strategy<Value = Value> {
            prop_oneof![
                3 => (0u64..8).prop_map(|v| json!(v)),
                1 => Just(json!(0)),
                1 => Just(json!(u32::MAX)),
                1 => Just(json!(u64::MAX)),
                1 => Just(json!(1u64 << 31)),
                1 => Just(json!(-1)),
                1 => Just(json!(0.5)),
                1 => Just(json!(-3.0e38)),
                1 => (0u64..100_000).prop_map(|v| json!(v)),
            ]
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

            /// Corrupted files give errors or scenes, never a panic (which would surface as
            /// `Internal`).
            #[test]
            fn corrupted_glb_never_panics(
                edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
                cut in any::<prop::sample::Index>(),
                truncate in any::<bool>(),
            ) {
                let mut bytes = sample();
                for (at, value) in edits {
                    let i = at.index(bytes.len());
                    bytes[i] = value;
                }
                if truncate {
                    bytes.truncate(cut.index(bytes.len()));
                }
                let result = ingest_slice(&bytes, Path::new("fuzz.glb"), &mut NoProgressForTests);
                prop_assert!(!matches!(result, Err(IngestError::Internal { .. })), "{:?}", result.err());
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

            /// Hostile numbers in the JSON (indices, offsets, counts, strides, modes, component
            /// types, transforms) give errors or scenes, never a panic.
            #[test]
            fn hostile_json_numbers_never_panic(
                edits in proptest::collection::vec((any::<prop::sample::Index>(), hostile_number()), 1..6),
            ) {
                let doc = sample_doc();
                let mut root = doc.json();
                let mut paths = Vec::new();
                number_paths(&root, &mut Vec::new(), &mut paths);
                for (at, number) in edits {
                    let path = &paths[at.index(paths.len())];
                    *at_path(&mut root, path) = number;
                }
                let result = ingest_slice(&glb(&root, &doc.bin), Path::new("fuzz.glb"), &mut NoProgressForTests);
                prop_assert!(!matches!(result, Err(IngestError::Internal { .. })), "{:?}", result.err());
            }
        }
    }
}
