//! Stage 1, ingest: a glTF level (`.gltf` + `.bin`, embedded `.gltf`, or `.glb`) → [`Scene`],
//! world-space triangles with the navmesh tags of their nodes.

use crate::progress::Progress;
use meadow::AreaType;
use std::path::Path;

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
    /// Whether the link can be used both ways.
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
}

/// Why a level could not be read.
#[derive(Debug, thiserror::Error)]
pub enum IngestError {
    /// Placeholder until the stage is written.
    #[error("{0}")]
    Other(String),
}

/// Reads a glTF level into a [`Scene`]; skipped primitives and odd content go to `progress.warn`.
pub fn ingest_file(path: &Path, progress: &mut dyn Progress) -> Result<Scene, IngestError> {
    let _ = (path, progress);
    todo!("ingest")
}
