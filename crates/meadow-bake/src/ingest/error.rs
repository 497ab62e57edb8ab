//! Why a level could not be read: one typed error per kind of fault, each message one line
//! naming the file and the offending part.

use std::path::PathBuf;

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
