//! The navmesh asset: the data contract between the bake and the runtime, its binary file
//! format, and validation on load.
//!
//! # File format
//! ```text
//! offset  size  field
//! 0       8     magic  b"MEADOWNV"
//! 8       4     format version, u32 little-endian (FORMAT_VERSION)
//! 12      8     payload length in bytes, u64 little-endian
//! 20      4     CRC32 (IEEE) of bytes 24.. (source hash and payload), u32 little-endian
//! 24      8     source hash, u64 little-endian: a fingerprint of the bake's inputs and
//!               settings (build tools skip a bake whose fingerprint is unchanged); 0 = none
//! 32      n     payload: NavMeshData encoded with bincode 2 (standard configuration)
//! ```
//! Loading checks each field in turn and then validates the structure, so any byte string gives
//! either a valid [`NavMesh`] or a typed [`LoadError`]. An asset of another format version is
//! refused with [`LoadError::UnsupportedVersion`], whose message asks for a re-bake.

use crate::geom::{self, Point2};
use crate::settings::BakeSettings;
use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::Path;

mod error;
mod validate;

pub use crate::tolerance::LINK_POINT_SLACK;
pub use error::{LoadError, ValidationError};
use validate::validate;
pub(crate) use validate::validate_link;

/// The first eight bytes of every asset.
pub const MAGIC: [u8; 8] = *b"MEADOWNV";
/// The asset format version this runtime reads and writes.
/// Version 3 added the off-mesh link table ([`NavMeshData::links`]) and the `walkable` rule to
/// the stored settings; version 4 the corner visibility graph ([`NavMeshData::visibility`]);
/// version 5 its nodes at pinch vertices (every wedge, taut in every direction); version 6 the
/// source hash in the header ([`read_source_hash`]); version 7 the visibility work budget in the
/// stored settings; version 8 tiled bakes (the `tile_size` setting, [`NavMeshData::tiles`] and
/// [`NavMeshData::partial`]); version 9 the `partition` setting; version 10 refuses two polygons
/// holding the same directed edge (overlapping polygons, which earlier bakes could leave).
pub const FORMAT_VERSION: u32 = 10;
/// Size of the fixed header before the payload.
pub const HEADER_LEN: usize = 32;
/// The source hash of an asset written without one ([`NavMesh::to_bytes`]).
pub const NO_SOURCE_HASH: u64 = 0;

/// What lies across one polygon edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum EdgeLink {
    /// A wall: the edge is on the navmesh boundary.
    Wall,
    /// A portal to the polygon with this index, which has the same edge reversed.
    Polygon(u32),
}

/// One convex polygon: a run of `vertex_count` entries in [`NavMeshData::polygon_vertices`]
/// (and the parallel [`NavMeshData::edge_links`]) starting at `first`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PolygonData {
    /// Index of the polygon's first entry in `polygon_vertices` / `edge_links`.
    pub first: u32,
    /// Number of vertices (3 ..= 12).
    pub vertex_count: u8,
    /// Index into [`NavMeshData::areas`].
    pub area: u16,
    /// Layer (walkable surface) the polygon belongs to.
    pub layer: u16,
}

/// An area type: a name and a traversal cost multiplier (`>= 1` keeps A* heuristics admissible).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AreaType {
    /// The name from the level's `extras` (`"default"` for untagged geometry).
    pub name: String,
    /// Cost multiplier applied to distance travelled in this area.
    pub cost: f32,
}

/// A closed boundary ring of the navmesh (vertex indices), the walkable side on its left:
/// outer boundaries run counter-clockwise, holes clockwise. These are the ORCA obstacles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Outline {
    /// Vertex indices of the ring, without repeating the first at the end.
    pub vertices: Vec<u32>,
}

/// The plain, serialisable contents of an asset: what the bake produces and the file stores.
///
/// Polygons are convex and counter-clockwise in XZ (see the crate docs). Edge `k` of a polygon
/// runs from its vertex `k` to vertex `k + 1` (cyclically), and `edge_links[first + k]` says what
/// lies across it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NavMeshData {
    /// The settings the mesh was baked with.
    pub settings: BakeSettings,
    /// Vertex positions `[x, y, z]`; `y` is the height of the walkable surface under `(x, z)`.
    pub vertices: Vec<[f64; 3]>,
    /// The convex polygons.
    pub polygons: Vec<PolygonData>,
    /// Vertex indices of every polygon, concatenated.
    pub polygon_vertices: Vec<u32>,
    /// What lies across every polygon edge, parallel to `polygon_vertices`.
    pub edge_links: Vec<EdgeLink>,
    /// Area types referenced by the polygons.
    pub areas: Vec<AreaType>,
    /// Boundary rings (walls), walkable side on the left.
    pub outlines: Vec<Outline>,
    /// Off-mesh links (jumps, ladders, drops, teleporters), connected to polygons at both ends.
    pub links: Vec<OffMeshLink>,
    /// The corner visibility graph for exact shortest paths; `None` when baked without it.
    pub visibility: Option<VisibilityGraph>,
    /// The tiles of a tiled bake (`settings.tile_size > 0`), ordered by row (`z`) then column
    /// (`x`), each owning a consecutive run of polygons; empty for a one-tile bake.
    pub tiles: Vec<TileSection>,
    /// Set in a partial asset (`meadow bake --tiles`): what `meadow merge` needs to finish the
    /// level. A partial asset has no visibility graph and no off-mesh links of its own.
    pub partial: Option<PartialBake>,
}

/// The polygon corners of `d` grouped by vertex (a stable counting sort): offsets per vertex
/// (`vertices.len() + 1` entries, corners of vertex `v` at `start[v]..start[v + 1]`) and per
/// corner `item(polygon, k)`, where `k` is the corner's index in its polygon; within a vertex,
/// polygons ascend. Runs of `d` must be in range (validated, or checked before the call).
pub(crate) fn corners_by_vertex<T: Copy + Default>(
    d: &NavMeshData,
    item: impl Fn(u32, usize) -> T,
) -> (Vec<usize>, Vec<T>) {
    let nv = d.vertices.len();
    let mut start = vec![0usize; nv + 1];
    for &v in &d.polygon_vertices {
        start[v as usize + 1] += 1;
    }
    for i in 0..nv {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut items = vec![T::default(); d.polygon_vertices.len()];
    for (polygon, p) in d.polygons.iter().enumerate() {
        let first = p.first as usize;
        for k in 0..p.vertex_count as usize {
            let v = d.polygon_vertices[first + k] as usize;
            items[fill[v]] = item(polygon as u32, k);
            fill[v] += 1;
        }
    }
    (start, items)
}

/// What a partial bake leaves for the merge of its parts: the level's tile grid, the tiles it
/// holds and the level's off-mesh link requests, connected once the parts are merged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PartialBake {
    /// The whole level's tile grid `[x0, z0, x1, z1]`: columns `x0..=x1`, rows `z0..=z1`.
    pub grid: [i32; 4],
    /// The tiles this part was asked for, `[x0, z0, x1, z1]` inclusive (may reach past the
    /// grid).
    pub range: [i32; 4],
    /// The level's off-mesh link requests, in the level's order.
    pub links: Vec<PendingLink>,
}

/// An off-mesh link request of the level, not yet connected to polygons (see [`PartialBake`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PendingLink {
    /// Name of the node the link starts at (for warnings).
    pub from_node: String,
    /// Name of the node the link ends at.
    pub to_node: String,
    /// World position of the start node (NaN when the level names no such node).
    pub start: [f64; 3],
    /// World position of the end node.
    pub end: [f64; 3],
    /// Whether the link can be used both ways.
    pub bidirectional: bool,
    /// Fixed traversal cost, or the 3D distance of the connected ends when `None`.
    pub cost: Option<f64>,
    /// How far each end may be from its polygon, or the default reach when `None`.
    pub radius: Option<f64>,
    /// Index into [`NavMeshData::areas`].
    pub area: u16,
    /// The game's identifier.
    pub id: u32,
}

/// One tile of a tiled bake: where it lies, the polygons it made and a hash of what it was made
/// from, so that an incremental bake re-bakes only tiles whose inputs changed.
///
/// Tile `(x, z)` covers `[x·t, (x+1)·t) × [z·t, (z+1)·t)` in world XZ, with `t` the stored
/// `tile_size`. Its polygons are `first_polygon .. first_polygon + polygon_count`; their layers
/// are the tile's own, numbered from the layer of its first polygon in order of first use.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TileSection {
    /// Tile column (along x).
    pub x: i32,
    /// Tile row (along z).
    pub z: i32,
    /// Index of the tile's first polygon.
    pub first_polygon: u32,
    /// Number of polygons the tile made (possibly 0).
    pub polygon_count: u32,
    /// Content hash of the tile's inputs: the settings, the tile's place and the triangles within
    /// its bounds grown by the radius and a margin.
    pub hash: u64,
    /// Offsets, within the tile's run of `polygon_vertices`, of the vertices that stitching
    /// inserted where a neighbouring tile's border vertex lies inside one of this tile's border
    /// edges (ascending); removing them gives the tile's polygons as baked alone.
    pub stitched: Vec<u32>,
}

/// The corner visibility graph: the corners of the walkable boundary where a taut (shortest)
/// path can turn, and the edges between corners that see each other through walkable space and
/// can lie on a taut path at both ends, in CSR form.
///
/// The graph is undirected and stored in both directions. A corner is a mesh vertex together
/// with one polygon touching it inside its free wedge (a vertex where the walkable surface
/// pinches may be several corners, one per wedge).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct VisibilityGraph {
    /// Per node: the mesh vertex of the corner.
    pub corners: Vec<u32>,
    /// Per node: a polygon touching the corner, inside the corner's free wedge.
    pub polygons: Vec<u32>,
    /// CSR offsets, one more than there are nodes: node `i`'s edges are
    /// `first_edge[i] as usize..first_edge[i + 1] as usize`.
    pub first_edge: Vec<u32>,
    /// Per edge: the node it leads to.
    pub targets: Vec<u32>,
    /// Per edge: its length in metres, the XZ distance of its two corners computed as
    /// `(b[0] - a[0]).hypot(b[2] - a[2])` on the stored vertices: the same f64 a query computes,
    /// so sums over edges equal the lengths of the paths they make.
    pub lengths: Vec<f64>,
}

impl VisibilityGraph {
    /// Number of corner nodes.
    pub fn node_count(&self) -> usize {
        self.corners.len()
    }

    /// Number of stored (directed) edges: twice the undirected ones.
    pub fn edge_count(&self) -> usize {
        self.targets.len()
    }

    /// The edges of node `node`: `(target node, length)`.
    pub fn edges(&self, node: usize) -> impl Iterator<Item = (u32, f64)> + '_ {
        let range = self.first_edge[node] as usize..self.first_edge[node + 1] as usize;
        self.targets[range.clone()].iter().copied().zip(self.lengths[range].iter().copied())
    }
}

/// An off-mesh link: a connection the agent traverses off the mesh (a jump, a ladder, a drop,
/// a teleporter), from a point on one polygon to a point on another, of any layer and at any
/// distance.
///
/// Its traversal cost is `cost` (metres of walking at cost multiplier 1) times its area's cost
/// multiplier; a path's `length` counts it as the straight 3D distance between its end points.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct OffMeshLink {
    /// Where the agent leaves the mesh `[x, y, z]`, on the surface of `start_polygon`.
    pub start: [f64; 3],
    /// Where the agent lands `[x, y, z]`, on the surface of `end_polygon`.
    pub end: [f64; 3],
    /// The polygon holding `start`.
    pub start_polygon: u32,
    /// The polygon holding `end`.
    pub end_polygon: u32,
    /// Whether the link can also be taken from `end` to `start`.
    pub bidirectional: bool,
    /// Traversal cost in metres of walking before the area multiplier (finite, `>= 0`; the
    /// bake's default is the 3D distance between the end points).
    pub cost: f64,
    /// Index into [`NavMeshData::areas`]: filters exclude links by area, and the area's cost
    /// multiplies `cost`.
    pub area: u16,
    /// The game's own identifier, handed back in paths (not required to be unique).
    pub id: u32,
}

/// A validated navmesh: every index in range, polygons convex and counter-clockwise,
/// adjacency symmetric. Built only through [`NavMesh::new`] or [`NavMesh::from_bytes`].
///
/// ```
/// use meadow::NavMesh;
/// # let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/assets/box_floor.nav"));
/// let mesh = NavMesh::from_bytes(bytes)?; // or NavMesh::load("level.nav")?
/// assert_eq!(mesh.settings().radius, 0.6); // the settings it was baked with
/// // The 20 × 20 m floor less the box grown by the radius, plus the box's top.
/// let expected = 18.8f64.powi(2) - (4.0 + 8.0 * 0.6 + std::f64::consts::PI * 0.36) + 0.8f64.powi(2);
/// assert!((mesh.total_area() - expected).abs() < 0.05);
/// // Any other byte string is a typed error, never a panic.
/// assert!(NavMesh::from_bytes(&bytes[..100]).is_err());
/// # Ok::<(), meadow::LoadError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct NavMesh {
    data: NavMeshData,
}

/// A view of one polygon of a [`NavMesh`].
#[derive(Clone, Copy, Debug)]
pub struct PolygonRef<'a> {
    /// Vertex indices, counter-clockwise in XZ.
    pub vertices: &'a [u32],
    /// What lies across each edge (edge `k` runs from `vertices[k]` to `vertices[k + 1]`).
    pub links: &'a [EdgeLink],
    /// Index of the polygon's area type.
    pub area: u16,
    /// The polygon's layer.
    pub layer: u16,
}

fn bincode_config() -> impl bincode::config::Config {
    // Bincode's standard layout (variable-length integers, fixed-size floats); the limit guards
    // decode allocations.
    bincode::config::standard().with_limit::<{ 1 << 30 }>()
}

/// Encodes navmesh data to a bincode payload (the codec sits behind this pair alone).
pub fn to_bytes(data: &NavMeshData) -> Vec<u8> {
    bincode::serde::encode_to_vec(data, bincode_config()).expect("encoding plain data into a Vec cannot fail")
}

/// Decodes a bincode payload into navmesh data (not yet validated).
pub fn from_bytes(payload: &[u8]) -> Result<NavMeshData, LoadError> {
    let (data, used): (NavMeshData, usize) =
        bincode::serde::decode_from_slice(payload, bincode_config()).map_err(|e| LoadError::Decode(e.to_string()))?;
    if used != payload.len() {
        return Err(LoadError::Decode(format!("{} trailing bytes after the payload", payload.len() - used)));
    }
    Ok(data)
}

impl NavMesh {
    /// Validates `data` and wraps it.
    pub fn new(data: NavMeshData) -> Result<NavMesh, ValidationError> {
        validate(&data)?;
        Ok(NavMesh { data })
    }

    /// Wraps data the runtime built itself (a carved mesh), validating it only in debug builds:
    /// release builds trust the builder, whose output the tests validate in full.
    pub(crate) fn new_trusted(data: NavMeshData) -> Result<NavMesh, ValidationError> {
        if cfg!(debug_assertions) {
            validate(&data)?;
        }
        Ok(NavMesh { data })
    }

    /// The plain data (for inspection and re-serialisation).
    pub fn data(&self) -> &NavMeshData {
        &self.data
    }

    /// Consumes the mesh, returning its data.
    pub fn into_data(self) -> NavMeshData {
        self.data
    }

    /// The settings the mesh was baked with.
    pub fn settings(&self) -> &BakeSettings {
        &self.data.settings
    }

    /// Vertex positions `[x, y, z]`.
    pub fn vertices(&self) -> &[[f64; 3]] {
        &self.data.vertices
    }

    /// The polygons of each layer, by ascending layer (polygons in index order).
    pub fn polygons_by_layer(&self) -> Vec<(u16, Vec<u32>)> {
        let mut order: Vec<(u16, u32)> =
            self.data.polygons.iter().enumerate().map(|(i, p)| (p.layer, i as u32)).collect();
        order.sort_unstable();
        let mut layers: Vec<(u16, Vec<u32>)> = Vec::new();
        for (layer, poly) in order {
            match layers.last_mut() {
                Some((l, polys)) if *l == layer => polys.push(poly),
                _ => layers.push((layer, vec![poly])),
            }
        }
        layers
    }

    /// Number of polygons.
    pub fn polygon_count(&self) -> usize {
        self.data.polygons.len()
    }

    /// The polygon with index `index` (panics when out of range, like slice indexing).
    pub fn polygon(&self, index: usize) -> PolygonRef<'_> {
        let p = self.data.polygons[index];
        let range = p.first as usize..p.first as usize + p.vertex_count as usize;
        PolygonRef {
            vertices: &self.data.polygon_vertices[range.clone()],
            links: &self.data.edge_links[range],
            area: p.area,
            layer: p.layer,
        }
    }

    /// Iterates over all polygons in index order.
    pub fn polygons(&self) -> impl ExactSizeIterator<Item = PolygonRef<'_>> + '_ {
        (0..self.polygon_count()).map(move |i| self.polygon(i))
    }

    /// A polygon's vertices projected to XZ, counter-clockwise.
    pub fn polygon_points(&self, index: usize) -> impl ExactSizeIterator<Item = Point2> + '_ {
        self.polygon(index).vertices.iter().map(move |&v| {
            let p = self.data.vertices[v as usize];
            [p[0], p[2]]
        })
    }

    /// Area of one polygon in XZ (square metres).
    pub fn polygon_area(&self, index: usize) -> f64 {
        let pts: Vec<Point2> = self.polygon_points(index).collect();
        geom::signed_area(&pts)
    }

    /// Total walkable area in XZ (square metres): the sum of polygon areas.
    pub fn total_area(&self) -> f64 {
        (0..self.polygon_count()).map(|i| self.polygon_area(i)).sum()
    }

    /// Axis-aligned bounds of all vertices, `(min, max)`; `None` for an empty mesh.
    pub fn bounds(&self) -> Option<([f64; 3], [f64; 3])> {
        let mut it = self.data.vertices.iter();
        let first = *it.next()?;
        Some(it.fold((first, first), |(mut lo, mut hi), v| {
            for k in 0..3 {
                lo[k] = lo[k].min(v[k]);
                hi[k] = hi[k].max(v[k]);
            }
            (lo, hi)
        }))
    }

    /// The area types.
    pub fn areas(&self) -> &[AreaType] {
        &self.data.areas
    }

    /// The boundary outlines (walls), walkable side on the left.
    pub fn outlines(&self) -> &[Outline] {
        &self.data.outlines
    }

    /// The baked off-mesh links.
    pub fn links(&self) -> &[OffMeshLink] {
        &self.data.links
    }

    /// The corner visibility graph, if the mesh was baked with it.
    pub fn visibility(&self) -> Option<&VisibilityGraph> {
        self.data.visibility.as_ref()
    }

    /// Serialises the mesh into the asset file format (header + payload), with no source hash.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.to_bytes_with_source_hash(NO_SOURCE_HASH)
    }

    /// Serialises the mesh into the asset file format, recording `source_hash` (a fingerprint
    /// of what the mesh was baked from, e.g. `meadow_bake::fingerprint`) in the header.
    pub fn to_bytes_with_source_hash(&self, source_hash: u64) -> Vec<u8> {
        let payload = to_bytes(&self.data);
        let mut out = Vec::with_capacity(HEADER_LEN + payload.len());
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        out.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&source_hash.to_le_bytes());
        out.extend_from_slice(&payload);
        // The checksum covers the source hash too, so a damaged hash is never trusted.
        let crc = crc32fast::hash(&out[24..]);
        out[20..24].copy_from_slice(&crc.to_le_bytes());
        out
    }

    /// Parses and validates an asset; a typed error for any malformed byte string.
    pub fn from_bytes(bytes: &[u8]) -> Result<NavMesh, LoadError> {
        let (_, payload) = check_header(bytes)?;
        Ok(NavMesh::new(from_bytes(payload)?)?)
    }

    /// Reads and validates an asset file.
    pub fn load(path: impl AsRef<Path>) -> Result<NavMesh, LoadError> {
        NavMesh::from_bytes(&std::fs::read(path)?)
    }

    /// Writes the asset atomically: a temporary file in the same directory, synced, then renamed
    /// over `path`, so readers never see a half-written asset.
    pub fn save(&self, path: impl AsRef<Path>) -> std::io::Result<()> {
        write_atomically(path.as_ref(), &self.to_bytes())
    }

    /// Writes the asset atomically (as [`NavMesh::save`]) with `source_hash` in its header.
    pub fn save_with_source_hash(&self, path: impl AsRef<Path>, source_hash: u64) -> std::io::Result<()> {
        write_atomically(path.as_ref(), &self.to_bytes_with_source_hash(source_hash))
    }
}

/// The source hash in an asset's header ([`NO_SOURCE_HASH`] when none was recorded), after
/// checking magic, version, length and checksum; the payload is neither decoded nor validated.
pub fn read_source_hash(bytes: &[u8]) -> Result<u64, LoadError> {
    check_header(bytes).map(|(hash, _)| hash)
}

/// Checks the header fields in turn; the source hash and the payload.
fn check_header(bytes: &[u8]) -> Result<(u64, &[u8]), LoadError> {
    // Magic and version come first, so an old asset gets the re-bake message even if its
    // header was shorter.
    if bytes.len() >= 8 && bytes[0..8] != MAGIC {
        return Err(LoadError::BadMagic);
    }
    if bytes.len() >= 12 {
        let version = u32::from_le_bytes(bytes[8..12].try_into().expect("4-byte slice"));
        if version != FORMAT_VERSION {
            return Err(LoadError::UnsupportedVersion { found: version });
        }
    }
    if bytes.len() < HEADER_LEN {
        return Err(LoadError::TooShort { len: bytes.len() });
    }
    let expected = u64::from_le_bytes(bytes[12..20].try_into().expect("8-byte slice"));
    let payload = &bytes[HEADER_LEN..];
    if expected != payload.len() as u64 {
        return Err(LoadError::LengthMismatch { expected, actual: payload.len() as u64 });
    }
    let stored_crc = u32::from_le_bytes(bytes[20..24].try_into().expect("4-byte slice"));
    let actual_crc = crc32fast::hash(&bytes[24..]);
    if stored_crc != actual_crc {
        return Err(LoadError::Checksum { expected: stored_crc, actual: actual_crc });
    }
    let source_hash = u64::from_le_bytes(bytes[24..32].try_into().expect("8-byte slice"));
    Ok((source_hash, payload))
}

/// Writes `bytes` to `path` through a temporary sibling file and a rename.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => std::path::PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::new(std::io::ErrorKind::InvalidInput, "output path has no file name"))?;
    let mut tmp_name = std::ffi::OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(".tmp-{}", std::process::id()));
    let tmp = dir.join(tmp_name);
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        // A replaced file keeps its permission bits (a read-only asset stays read-only).
        if let Ok(old) = std::fs::metadata(path) {
            f.set_permissions(old.permissions())?;
        }
        f.sync_all()?;
        drop(f);
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two unit squares side by side sharing the edge x = 1:
    /// ```text
    ///  z
    ///  1  3 ---- 2 ---- 5
    ///     |  P0  |  P1  |
    ///  0  0 ---- 1 ---- 4
    ///     0      1      2  x
    /// ```
    pub(crate) fn two_squares() -> NavMeshData {
        NavMeshData {
            settings: BakeSettings::DEFAULT,
            vertices: vec![[0., 0., 0.], [1., 0., 0.], [1., 0., 1.], [0., 0., 1.], [2., 0., 0.], [2., 0., 1.]],
            polygons: vec![
                PolygonData { first: 0, vertex_count: 4, area: 0, layer: 0 },
                PolygonData { first: 4, vertex_count: 4, area: 0, layer: 0 },
            ],
            polygon_vertices: vec![0, 1, 2, 3, 1, 4, 5, 2],
            edge_links: vec![
                EdgeLink::Wall,
                EdgeLink::Polygon(1),
                EdgeLink::Wall,
                EdgeLink::Wall,
                EdgeLink::Wall,
                EdgeLink::Wall,
                EdgeLink::Wall,
                EdgeLink::Polygon(0),
            ],
            areas: vec![AreaType { name: "default".into(), cost: 1.0 }],
            outlines: vec![Outline { vertices: vec![0, 1, 4, 5, 2, 3] }],
            links: Vec::new(),
            visibility: None,
            tiles: Vec::new(),
            partial: None,
        }
    }

    /// [`two_squares`] as two 1 m tiles, `(0, 0)` and `(1, 0)`, changed by `change`.
    fn tiled(change: impl FnOnce(&mut NavMeshData)) -> Result<NavMesh, ValidationError> {
        let mut d = two_squares();
        d.settings.radius = 0.2;
        d.settings.tile_size = 1.0;
        let section =
            |x, first| TileSection { x, z: 0, first_polygon: first, polygon_count: 1, hash: 7, stitched: vec![] };
        d.tiles = vec![section(0, 0), section(1, 1)];
        change(&mut d);
        NavMesh::new(d)
    }

    #[test]
    fn tile_sections_are_validated() {
        let bad = |change: fn(&mut NavMeshData), what: &str| match tiled(change) {
            Err(ValidationError::BadTiles(why)) => assert!(why.contains(what), "{what}: {why}"),
            other => panic!("{what}: {other:?}"),
        };
        tiled(|_| {}).unwrap();
        tiled(|d| d.tiles[1].stitched = vec![0, 3]).unwrap();
        bad(|d| d.settings.tile_size = 0.0, "no tile size");
        bad(
            |d| {
                d.tiles.swap(0, 1);
                (d.tiles[0].first_polygon, d.tiles[1].first_polygon) = (0, 1);
            },
            "row-major",
        );
        bad(|d| d.tiles[1].x = 0, "row-major");
        bad(|d| d.tiles[1].first_polygon = 0, "follow");
        bad(|d| d.tiles[1].polygon_count = 2, "past the last");
        bad(|d| d.tiles[0].polygon_count = 0, "follow");
        bad(|d| d.tiles.truncate(1), "cover every polygon");
        bad(|d| d.tiles[0].stitched = vec![4], "stitched");
        bad(|d| d.tiles[0].stitched = vec![2, 1], "stitched");
        bad(|d| d.tiles[0].x = i32::MIN, "coordinate limit");
        bad(|d| d.partial = Some(PartialBake { grid: [0, 0, 1, 0], range: [1, 0, 0, 0], links: vec![] }), "empty");
        tiled(|d| d.partial = Some(PartialBake { grid: [0, 0, 1, 0], range: [0, 0, 0, 0], links: vec![] })).unwrap();
    }

    #[test]
    fn round_trip() {
        let mesh = NavMesh::new(two_squares()).unwrap();
        let bytes = mesh.to_bytes();
        let back = NavMesh::from_bytes(&bytes).unwrap();
        assert_eq!(mesh, back);
        assert_eq!(back.total_area(), 2.0);
    }

    /// A graph over corners 0 and 5 of [`two_squares`] (a made-up pair; validation checks shape,
    /// ranges and lengths, not visibility, which the bake's tests check).
    fn with_graph(change: impl FnOnce(&mut VisibilityGraph)) -> Result<NavMesh, ValidationError> {
        let mut d = two_squares();
        let len = 2f64.hypot(1.0);
        let mut g = VisibilityGraph {
            corners: vec![0, 5],
            polygons: vec![0, 1],
            first_edge: vec![0, 1, 2],
            targets: vec![1, 0],
            lengths: vec![len, len],
        };
        change(&mut g);
        d.visibility = Some(g);
        NavMesh::new(d)
    }

    #[test]
    fn source_hash_round_trips_and_is_covered_by_the_checksum() {
        let mesh = NavMesh::new(two_squares()).unwrap();
        assert_eq!(read_source_hash(&mesh.to_bytes()).unwrap(), NO_SOURCE_HASH);
        let bytes = mesh.to_bytes_with_source_hash(0x0123_4567_89ab_cdef);
        assert_eq!(read_source_hash(&bytes).unwrap(), 0x0123_4567_89ab_cdef);
        assert_eq!(NavMesh::from_bytes(&bytes).unwrap(), mesh);
        let mut damaged = bytes.clone();
        damaged[26] ^= 1;
        assert!(matches!(read_source_hash(&damaged), Err(LoadError::Checksum { .. })));
    }

    #[test]
    fn an_old_asset_is_refused_with_a_rebake_message() {
        let mut bytes = NavMesh::new(two_squares()).unwrap().to_bytes();
        bytes[8..12].copy_from_slice(&5u32.to_le_bytes());
        bytes.truncate(24);
        let err = NavMesh::from_bytes(&bytes).unwrap_err();
        assert!(matches!(err, LoadError::UnsupportedVersion { found: 5 }));
        let text = err.to_string();
        assert!(text.contains("format 5") && text.contains(&format!("format {FORMAT_VERSION}")), "{text}");
        assert!(text.contains(&format!("re-bake the level with Meadow {}", env!("CARGO_PKG_VERSION"))), "{text}");
    }

    #[test]
    fn visibility_graph_round_trips_and_malformed_graphs_are_refused() {
        let mesh = with_graph(|_| {}).unwrap();
        let back = NavMesh::from_bytes(&mesh.to_bytes()).unwrap();
        assert_eq!(back, mesh);
        let g = back.visibility().unwrap();
        assert_eq!((g.node_count(), g.edge_count()), (2, 2));
        assert_eq!(g.edges(1).collect::<Vec<_>>(), vec![(0, 5f64.sqrt())]);
        let refused =
            |change: fn(&mut VisibilityGraph)| matches!(with_graph(change), Err(ValidationError::BadVisibility(_)));
        assert!(refused(|g| {
            g.polygons.pop();
        }));
        assert!(refused(|g| {
            g.lengths.pop();
        }));
        assert!(refused(|g| g.first_edge[1] = 3));
        assert!(refused(|g| g.first_edge = vec![0, 2, 1]));
        assert!(refused(|g| g.targets[0] = 7));
        assert!(refused(|g| g.targets[0] = 0));
        assert!(refused(|g| g.polygons[0] = 9));
        assert!(refused(|g| g.polygons[1] = 0)); // vertex 5 is not a corner of polygon 0
        assert!(refused(|g| g.lengths[0] = f64::NAN));
        assert!(refused(|g| g.lengths[1] *= 1.0 + f64::EPSILON));
    }

    #[test]
    fn every_truncation_and_byte_flip_is_a_typed_error() {
        let bytes = NavMesh::new(two_squares()).unwrap().to_bytes();
        for len in 0..bytes.len() {
            assert!(NavMesh::from_bytes(&bytes[..len]).is_err(), "truncated to {len}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x40;
            assert!(NavMesh::from_bytes(&b).is_err(), "flipped byte {i}");
        }
        let mut b = bytes.clone();
        b[40] ^= 1;
        assert!(matches!(NavMesh::from_bytes(&b), Err(LoadError::Checksum { .. })));
        assert!(matches!(NavMesh::from_bytes(b"glTF\x02\0\0\0................"), Err(LoadError::BadMagic)));
    }

    #[test]
    fn structural_defects_are_named() {
        let mut d = two_squares();
        d.edge_links[7] = EdgeLink::Wall;
        assert_eq!(NavMesh::new(d).unwrap_err(), ValidationError::AsymmetricLink { polygon: 0, edge: 1, target: 1 });
        let mut d = two_squares();
        d.polygon_vertices[5] = 99;
        assert!(matches!(NavMesh::new(d), Err(ValidationError::VertexOutOfRange { polygon: 1, vertex: 99, .. })));
        let mut d = two_squares();
        d.polygon_vertices.swap(0, 1);
        assert!(matches!(NavMesh::new(d), Err(ValidationError::NotConvex { polygon: 0 })));
    }

    /// Regression (foreign assets): a polygon lying over another one, holding one of its edges
    /// in the same direction, was accepted, and exact paths on such a mesh turned at points that
    /// are no vertices (`tests/shortest_known_bugs.rs`).
    #[test]
    fn polygons_holding_the_same_directed_edge_are_rejected() {
        let mut d = two_squares();
        // The triangle 0 -> 1 -> 2 lies inside square 0, on the left of its edge 0 -> 1.
        d.polygons.push(PolygonData { first: 8, vertex_count: 3, area: 0, layer: 0 });
        d.polygon_vertices.extend([0, 1, 2]);
        d.edge_links.extend([EdgeLink::Wall; 3]);
        assert_eq!(
            NavMesh::new(d.clone()).unwrap_err(),
            ValidationError::SharedDirectedEdge { first: 0, second: 2, from: 0, to: 1 }
        );
        // The same edge held both ways is a portal's two sides, or two walls back to back.
        d.polygon_vertices.truncate(8);
        d.edge_links.truncate(8);
        d.polygons.pop();
        d.vertices.push([1.0, 0.0, -1.0]);
        d.polygons.push(PolygonData { first: 8, vertex_count: 3, area: 0, layer: 0 });
        d.polygon_vertices.extend([1, 0, 6]);
        d.edge_links.extend([EdgeLink::Wall; 3]);
        NavMesh::new(d).unwrap();
    }

    /// Regression (hostile assets): vertices near 1e38 were accepted and queries on them gave
    /// infinite lengths and heights; the coordinate contract now rejects them on load.
    #[test]
    fn vertices_and_bounds_outside_the_coordinate_contract_are_rejected() {
        use crate::limits::{MAX_COORDINATE, MAX_EXTENT};
        let scaled = |f: f64| {
            let mut d = two_squares();
            for v in &mut d.vertices {
                v[0] *= f;
                v[2] *= f;
            }
            d
        };
        assert_eq!(NavMesh::new(scaled(1e38)).unwrap_err(), ValidationError::VertexBeyondLimit { vertex: 1 });
        // Within the magnitude but wider than the extent (the squares reach x = 2 f).
        let wide = scaled(MAX_EXTENT * 0.51);
        assert!(matches!(NavMesh::new(wide), Err(ValidationError::ExtentTooLarge { axis: 0, .. })));
        NavMesh::new(scaled(MAX_EXTENT * 0.5)).unwrap();
        // The largest level may sit anywhere within the magnitude.
        let mut far = scaled(MAX_EXTENT * 0.5);
        for v in &mut far.vertices {
            v[0] += MAX_COORDINATE - MAX_EXTENT;
            v[1] -= MAX_COORDINATE;
        }
        NavMesh::new(far.clone()).unwrap();
        far.vertices[3][1] = -MAX_COORDINATE * 1.5;
        assert_eq!(NavMesh::new(far).unwrap_err(), ValidationError::VertexBeyondLimit { vertex: 3 });
    }
}
