//! Node traversal: the scenes' node hierarchy in pre-order, each node's world transform, and
//! the navmesh tags, areas and off-mesh links of its `extras`.

use super::reader::Reader;
use super::{IngestError, LinkRequest, Scene};
use crate::progress::Progress;
use gltf::json;
use meadow::AreaType;
use nalgebra::{Matrix4, Quaternion, UnitQuaternion, Vector3};
use serde_json::Value;

/// The keys a `navmesh_link` object may have.
const LINK_KEYS: [&str; 6] = ["to", "bidirectional", "cost", "radius", "area", "id"];

/// A node's own `navmesh` tag; `Ignore` drops the geometry, `AreaVolume` turns it into an
/// [`AreaVolume`](super::AreaVolume).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum OwnTag {
    Walkable,
    Obstacle,
    Ignore,
    AreaVolume,
}

impl OwnTag {
    /// The tag's value in `extras`.
    fn name(self) -> &'static str {
        match self {
            OwnTag::Walkable => "walkable",
            OwnTag::Obstacle => "obstacle",
            OwnTag::Ignore => "ignore",
            OwnTag::AreaVolume => "area_volume",
        }
    }
}

/// What a node passes down to its children.
#[derive(Clone, Copy, Debug)]
pub(super) struct Inherited {
    pub(super) tag: Option<OwnTag>,
    pub(super) area: u16,
    /// The node (index into [`Scene::nodes`]) whose `"footprint": "hull"` this node's obstacle
    /// geometry joins: one hull over that node's subtree.
    pub(super) hull: Option<u32>,
}

/// One visited node: its index in [`Scene::nodes`], glTF index, world transform and tags.
pub(super) struct Instance {
    pub(super) scene_node: u32,
    pub(super) gltf_node: usize,
    pub(super) world: Matrix4<f64>,
    pub(super) inherited: Inherited,
}

impl Reader<'_> {
    /// Visits the default scene (or every scene, or every root node when the file has no scene)
    /// in pre-order, recording node names, world positions, areas and links.
    pub(super) fn traverse(
        &self,
        progress: &mut dyn Progress,
        scene: &mut Scene,
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
            let top = Inherited { tag: None, area: 0, hull: None };
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
                scene.hull_of_node.push(inherited.hull);
                scene.node_positions.push([world[(0, 3)], world[(1, 3)], world[(2, 3)]]);
                for child in node.children.iter().flatten().rev() {
                    stack.push((child.value(), world, inherited));
                }
                instances.push(Instance { scene_node, gltf_node: node_index, world, inherited });
            }
        }
        Ok(instances)
    }

    /// The node's local matrix: `matrix` (column-major) or translation · rotation · scale.
    pub(super) fn local_transform(&self, index: usize, node: &json::Node) -> Result<Matrix4<f64>, IngestError> {
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
    pub(super) fn read_extras(
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
        // A descendant that is no longer an obstacle leaves its ancestor's hull.
        if own.tag != Some(OwnTag::Obstacle) {
            own.hull = None;
        }
        if let Some(footprint) = extras.get("footprint") {
            own.hull = match footprint.as_str() {
                Some("hull") if own.tag == Some(OwnTag::Obstacle) => Some(scene_node),
                Some("hull") => {
                    return Err(bad(format!(
                        "\"footprint\": \"hull\" needs an obstacle (\"navmesh\": \"obstacle\" on the node or an \
                         ancestor), not {}",
                        match own.tag {
                            None => "untagged geometry".to_string(),
                            Some(tag) => format!("\"navmesh\": \"{}\"", tag.name()),
                        }
                    )))
                }
                Some("mesh") => None,
                _ => return Err(bad(format!("\"footprint\" must be \"hull\" or \"mesh\", not {footprint}"))),
            };
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
    pub(super) fn read_link(
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
}
