//! Why an asset does not load: a damaged file ([`LoadError`]) or structurally invalid data
//! ([`ValidationError`]).

use super::{FORMAT_VERSION, HEADER_LEN};
use crate::settings::SettingsError;

/// A structural defect found while validating navmesh data; names the offending item.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ValidationError {
    /// The stored settings are outside their limits.
    #[error("stored settings are invalid: {0}")]
    Settings(#[from] SettingsError),
    /// A vertex coordinate is NaN or infinite.
    #[error("vertex {vertex} has a non-finite coordinate")]
    NonFiniteVertex {
        /// Index of the vertex.
        vertex: usize,
    },
    /// A vertex coordinate lies beyond [`crate::limits::MAX_COORDINATE`].
    #[error("vertex {vertex} has a coordinate beyond {} m", crate::limits::MAX_COORDINATE)]
    VertexBeyondLimit {
        /// Index of the vertex.
        vertex: usize,
    },
    /// The vertices span more than [`crate::limits::MAX_EXTENT`] along an axis (0 = x, 1 = y, 2 = z).
    #[error("the mesh spans {extent} m along axis {axis}, more than {} m", crate::limits::MAX_EXTENT)]
    ExtentTooLarge {
        /// The axis (0 = x, 1 = y, 2 = z).
        axis: usize,
        /// The span along it (metres).
        extent: f64,
    },
    /// `edge_links` and `polygon_vertices` differ in length.
    #[error("edge_links has {links} entries but polygon_vertices has {vertices}")]
    LinkCountMismatch {
        /// Entries of `edge_links`.
        links: usize,
        /// Entries of `polygon_vertices`.
        vertices: usize,
    },
    /// A polygon's vertex run is out of range or has too few/many vertices.
    #[error("polygon {polygon} has a bad vertex run (first {first}, count {count})")]
    BadPolygonRun {
        /// Index of the polygon.
        polygon: usize,
        /// Its first index into `polygon_vertices`.
        first: u32,
        /// Its vertex count.
        count: u8,
    },
    /// Polygon runs overlap or leave gaps in `polygon_vertices`.
    #[error("polygon {polygon} does not start where the previous one ended")]
    NonContiguousRuns {
        /// Index of the polygon.
        polygon: usize,
    },
    /// A vertex index is out of range.
    #[error("polygon {polygon} refers to vertex {vertex}, but there are only {count} vertices")]
    VertexOutOfRange {
        /// Index of the polygon.
        polygon: usize,
        /// The vertex index it refers to.
        vertex: u32,
        /// Number of vertices in the mesh.
        count: usize,
    },
    /// A polygon's area index is out of range.
    #[error("polygon {polygon} has area {area}, but there are only {count} area types")]
    AreaOutOfRange {
        /// Index of the polygon.
        polygon: usize,
        /// Its area index.
        area: u16,
        /// Number of area types in the mesh.
        count: usize,
    },
    /// An area cost is not a finite number >= 1.
    #[error("area {area} has cost {cost}; costs must be finite and >= 1")]
    BadAreaCost {
        /// Index of the area type.
        area: usize,
        /// Its cost.
        cost: f32,
    },
    /// A polygon is not convex and counter-clockwise in XZ.
    #[error("polygon {polygon} is not convex and counter-clockwise")]
    NotConvex {
        /// Index of the polygon.
        polygon: usize,
    },
    /// A portal points at a polygon out of range or at itself.
    #[error("polygon {polygon} edge {edge} links to polygon {target}, which is out of range or itself")]
    BadLink {
        /// Index of the polygon.
        polygon: usize,
        /// Index of the edge within the polygon.
        edge: usize,
        /// The polygon the edge links to.
        target: u32,
    },
    /// A portal is not matched by the same edge, reversed, linking back.
    #[error("polygon {polygon} edge {edge} links to polygon {target}, which does not link back over the same edge")]
    AsymmetricLink {
        /// Index of the polygon.
        polygon: usize,
        /// Index of the edge within the polygon.
        edge: usize,
        /// The polygon the edge links to.
        target: u32,
    },
    /// Two polygons hold the same directed edge, so both lie on its left side: they overlap
    /// (two floors stacked in XZ never share vertices, and neighbours hold an edge in opposite
    /// directions).
    #[error("polygons {first} and {second} both hold the edge from vertex {from} to vertex {to}, so they overlap")]
    SharedDirectedEdge {
        /// The lower-numbered polygon.
        first: usize,
        /// The other polygon.
        second: usize,
        /// The edge's first vertex.
        from: u32,
        /// The edge's second vertex.
        to: u32,
    },
    /// An outline is too short or refers to a vertex out of range.
    #[error("outline {outline} is malformed (fewer than 3 vertices or a vertex out of range)")]
    BadOutline {
        /// Index of the outline.
        outline: usize,
    },
    /// An off-mesh link has a bad end point, polygon, cost or area.
    #[error("off-mesh link {link} is invalid: {reason}")]
    BadOffMeshLink {
        /// Index of the off-mesh link.
        link: usize,
        /// What is wrong with it.
        reason: &'static str,
    },
    /// The corner visibility graph is malformed.
    #[error("the visibility graph is invalid: {0}")]
    BadVisibility(&'static str),
    /// The tile sections of a tiled bake are malformed.
    #[error("the tile sections are invalid: {0}")]
    BadTiles(&'static str),
}

/// Why an asset could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// Reading the file failed.
    #[error("cannot read asset: {0}")]
    Io(#[from] std::io::Error),
    /// Fewer bytes than the header.
    #[error("not a Meadow navmesh: {len} bytes is shorter than the {HEADER_LEN}-byte header")]
    TooShort {
        /// Length of the input (bytes).
        len: usize,
    },
    /// The magic bytes are wrong.
    #[error("not a Meadow navmesh: wrong magic bytes")]
    BadMagic,
    /// Written by another format version (an older or newer Meadow): re-bake the level.
    #[error("{}", unsupported_version(*found))]
    UnsupportedVersion {
        /// The format version of the file.
        found: u32,
    },
    /// The payload is shorter or longer than the header says.
    #[error("navmesh is truncated or padded: header says {expected} payload bytes, file has {actual}")]
    LengthMismatch {
        /// Payload length the header gives (bytes).
        expected: u64,
        /// Payload length of the file (bytes).
        actual: u64,
    },
    /// The payload's CRC32 does not match the header.
    #[error("navmesh is corrupt: payload checksum {actual:#010x} does not match header {expected:#010x}")]
    Checksum {
        /// The CRC32 in the header.
        expected: u32,
        /// The CRC32 of the payload.
        actual: u32,
    },
    /// The payload does not decode.
    #[error("navmesh payload does not decode: {0}")]
    Decode(String),
    /// The payload decodes but is structurally invalid.
    #[error("navmesh is invalid: {0}")]
    Invalid(#[from] ValidationError),
}

/// The message of [`LoadError::UnsupportedVersion`]: both format versions and the Meadow
/// version to re-bake with.
fn unsupported_version(found: u32) -> String {
    let meadow = env!("CARGO_PKG_VERSION");
    let age = if found < FORMAT_VERSION { "an older" } else { "a newer" };
    format!(
        "navmesh asset format {found} is from {age} Meadow; Meadow {meadow} reads format {FORMAT_VERSION} only: \
         re-bake the level with Meadow {meadow} (`meadow bake` or `meadow_bake::bake_file`)"
    )
}
