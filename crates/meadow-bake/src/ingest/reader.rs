//! The reader state of one level and the scene assembly: nodes are visited, then every mesh
//! primitive of every node is read, then links are resolved by node name.

use super::accessors::AccessorUse;
use super::nodes::OwnTag;
use super::primitives::PrimitiveOutcome;
use super::volume::VolumeParts;
use super::{IngestError, Scene};
use crate::progress::{Progress, Stage};
use gltf::json;
use meadow::AreaType;
use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::path::Path;
use std::rc::Rc;

/// Decoded accessor values by accessor index and use.
type DecodedAccessors = BTreeMap<(usize, AccessorUse), Rc<Vec<f64>>>;

/// One level being read: the parsed document, its buffers and what has been read so far.
pub(super) struct Reader<'a> {
    pub(super) path: &'a Path,
    pub(super) root: &'a json::Root,
    pub(super) buffers: Vec<Vec<u8>>,
    /// Accessors already read: instanced meshes are decoded once.
    pub(super) decoded: RefCell<DecodedAccessors>,
    /// World-space bounds `[min, max]` of the vertices accepted so far (the extent check).
    pub(super) bounds: RefCell<[[f64; 3]; 2]>,
    /// Triangles of area volumes kept so far (they count towards
    /// [`MAX_TRIANGLES`](super::MAX_TRIANGLES)).
    pub(super) volume_triangles: Cell<usize>,
}

impl Reader<'_> {
    pub(super) fn malformed(&self, detail: String) -> IngestError {
        IngestError::Malformed { path: self.path.to_path_buf(), detail }
    }

    pub(super) fn too_large(&self, detail: String) -> IngestError {
        IngestError::TooLarge { path: self.path.to_path_buf(), detail }
    }

    pub(super) fn node_label(&self, index: usize) -> String {
        match self.root.nodes.get(index).and_then(|n| n.name.as_deref()) {
            Some(name) => format!("'{name}'"),
            None => format!("#{index}"),
        }
    }

    pub(super) fn mesh_label(&self, index: usize) -> String {
        match self.root.meshes.get(index).and_then(|m| m.name.as_deref()) {
            Some(name) => format!("'{name}'"),
            None => format!("#{index}"),
        }
    }

    pub(super) fn node_mesh(&self, node: usize) -> Option<&json::Mesh> {
        let mesh = self.root.nodes.get(node)?.mesh?;
        self.root.meshes.get(mesh.value())
    }

    /// Reads every visited node's mesh primitives into the scene, then resolves links by node
    /// name; warns about skipped primitives, leftover indices and degenerate triangles.
    pub(super) fn build_scene(&self, progress: &mut dyn Progress) -> Result<Scene, IngestError> {
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
}
