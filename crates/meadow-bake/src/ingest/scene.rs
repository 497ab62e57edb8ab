//! The output of ingest: a level as world-space triangles with their navmesh tags, plus the
//! areas, nodes, off-mesh link requests and area volumes read from the nodes' `extras`.

use crate::fingerprint::InputFile;
use meadow::AreaType;

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

/// A level as world-space triangles: the output of [`ingest_file`](super::ingest_file).
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
    /// Per node (parallel to `nodes`; missing entries mean `None`): the node tagged
    /// `"footprint": "hull"` whose convex hull this node's obstacle triangles join (itself or
    /// an ancestor), or `None` when they block as they are.
    pub hull_of_node: Vec<Option<u32>>,
    /// Off-mesh link requests.
    pub links: Vec<LinkRequest>,
    /// Area volumes, one per `area_volume` node with a mesh, in scene order.
    pub volumes: Vec<AreaVolume>,
    /// Triangles dropped because they have no area (repeated or collinear corners).
    pub degenerate_dropped: usize,
    /// Triangles dropped because their node is tagged `"navmesh": "ignore"`.
    pub ignored_dropped: usize,
    /// Every file the level was read from, in read order: the level itself, then its external
    /// `.bin` buffers in buffer order (embedded and GLB buffers are part of the level file).
    /// A build script's `cargo:rerun-if-changed` list, a depfile's inputs, and with the
    /// settings the bake's [`fingerprint`](crate::fingerprint::fingerprint).
    pub inputs: Vec<InputFile>,
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
