//! Stage 9, links: the level's off-mesh link requests ([`LinkRequest`]) → links connected to
//! the assembled mesh, stored in its link table ([`meadow::NavMeshData::links`]).
//!
//! Each request's end points are the world positions of the node carrying the `navmesh_link`
//! tag and of its `to` node. Each end connects to the nearest point (3D) of the polygon nearest
//! it within the link's radius, on any layer, with the runtime's own rule
//! ([`meadow::QueryMesh::connect_link`]), so a baked link and one a game adds at run time
//! connect alike. A request whose end finds no polygon within its radius is left out with a
//! warning naming both nodes and the radius; it never fails the bake. Links keep request order.

use crate::ingest::{LinkRequest, Scene};
use crate::progress::{Progress, Stage};
use meadow::query::{LinkError, LinkSpec, DEFAULT_LINK_REACH};
use meadow::{NavMesh, QueryMesh, ValidationError};

/// What the stage reads: the assembled mesh (without links) and the scene that requests them.
pub struct LinkInput<'a> {
    /// The mesh from the assemble stage.
    pub mesh: NavMesh,
    /// The scene: link requests, node names and world positions.
    pub scene: &'a Scene,
}

/// What the stage produces: the mesh with its link table, and the requests left out.
#[derive(Debug)]
pub struct LinkedMesh {
    /// The validated mesh holding every connected link, in request order.
    pub mesh: NavMesh,
    /// The requests that could not be connected (index into [`Scene::links`] and why).
    pub skipped: Vec<SkippedLink>,
}

/// A link request left out of the asset.
#[derive(Clone, Debug, PartialEq)]
pub struct SkippedLink {
    /// Index of the request in [`Scene::links`].
    pub request: usize,
    /// Why it could not be connected.
    pub error: LinkError,
}

/// The runtime's description of a request: end points at the two nodes' world positions.
pub fn link_spec(scene: &Scene, request: &LinkRequest) -> LinkSpec {
    let position = |node: u32| scene.node_positions.get(node as usize).copied().unwrap_or([f64::NAN; 3]);
    LinkSpec {
        start: position(request.from_node),
        end: position(request.to_node),
        bidirectional: request.bidirectional,
        cost: request.cost,
        area: request.area,
        id: request.id,
        radius: request.radius,
    }
}

/// Connects every link request of the scene to the mesh; see the module docs.
pub fn connect_links(input: LinkInput<'_>, progress: &mut dyn Progress) -> Result<LinkedMesh, ValidationError> {
    let LinkInput { mesh, scene } = input;
    progress.begin(Stage::Links, scene.links.len() as u64);
    if scene.links.is_empty() {
        progress.finish(Stage::Links);
        return Ok(LinkedMesh { mesh, skipped: Vec::new() });
    }
    let agent_radius = mesh.settings().radius;
    let query = QueryMesh::new(mesh);
    let mut links = Vec::with_capacity(scene.links.len());
    let mut skipped = Vec::new();
    for (i, request) in scene.links.iter().enumerate() {
        let spec = link_spec(scene, request);
        match query.connect_link(&spec) {
            Ok(link) => links.push(link),
            Err(error) => {
                progress.warn(&skip_message(scene, request, &error, agent_radius));
                skipped.push(SkippedLink { request: i, error });
            }
        }
        progress.advance(Stage::Links, i as u64 + 1);
    }
    let mut data = query.into_mesh().into_data();
    data.links = links;
    let mesh = NavMesh::new(data)?;
    progress.finish(Stage::Links);
    Ok(LinkedMesh { mesh, skipped })
}

/// The warning for a request left out: both nodes, the end that failed and the radius.
fn skip_message(scene: &Scene, request: &LinkRequest, error: &LinkError, agent_radius: f64) -> String {
    let name = |node: u32| scene.nodes.get(node as usize).map_or("?", String::as_str);
    let (from, to) = (name(request.from_node), name(request.to_node));
    let radius = request.radius.unwrap_or(agent_radius + DEFAULT_LINK_REACH);
    let at = |p: [f64; 3]| format!("({:.3}, {:.3}, {:.3})", p[0], p[1], p[2]);
    let what = match error {
        LinkError::StartOffMesh { point, .. } => {
            format!("its start at node '{from}' {} has no navmesh polygon within {radius:.3} m", at(*point))
        }
        LinkError::EndOffMesh { point, .. } => {
            format!("its end at node '{to}' {} has no navmesh polygon within {radius:.3} m", at(*point))
        }
        other => format!("{other} (radius {radius:.3} m)"),
    };
    format!("node '{from}': navmesh_link to '{to}' is left out: {what}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use meadow::AreaType;
    use meadow_testkit::testmesh::GridSpec;

    #[derive(Default)]
    struct Warnings(Vec<String>, Vec<Stage>);

    impl Progress for Warnings {
        fn begin(&mut self, stage: Stage, _: u64) {
            self.1.push(stage);
        }
        fn advance(&mut self, _: Stage, _: u64) {}
        fn finish(&mut self, _: Stage) {}
        fn warn(&mut self, message: &str) {
            self.0.push(message.to_string());
        }
    }

    fn request(from_node: u32, to_node: u32) -> LinkRequest {
        LinkRequest { from_node, to_node, bidirectional: true, ..LinkRequest::default() }
    }

    #[test]
    fn links_connect_in_request_order_and_off_mesh_ends_are_warned_and_skipped() {
        // A 4 × 1 strip of unit squares at y = 0, x ∈ [0, 4], z ∈ [0, 1].
        let mesh = NavMesh::new(GridSpec { cols: 4, rows: 1, ..GridSpec::default() }.build()).unwrap();
        let scene = Scene {
            areas: vec![AreaType { name: "default".into(), cost: 1.0 }],
            nodes: vec!["A".into(), "B".into(), "Far".into()],
            node_positions: vec![[0.5, 0.3, 0.5], [3.5, 0.0, 1.4], [3.5, 0.0, 9.0]],
            links: vec![
                LinkRequest { id: 7, cost: Some(2.0), bidirectional: false, ..request(0, 1) },
                LinkRequest { id: 8, ..request(0, 2) },
                LinkRequest { id: 9, radius: Some(0.1), ..request(1, 0) },
            ],
            ..Scene::default()
        };
        let mut progress = Warnings::default();
        let out = connect_links(LinkInput { mesh, scene: &scene }, &mut progress).unwrap();
        let links = out.mesh.links();
        assert_eq!(links.len(), 1);
        let l = links[0];
        assert_eq!((l.id, l.cost, l.bidirectional), (7, 2.0, false));
        assert_eq!((l.start, l.end), ([0.5, 0.0, 0.5], [3.5, 0.0, 1.0]));
        assert_eq!(out.skipped.iter().map(|s| s.request).collect::<Vec<_>>(), [1, 2]);
        assert_eq!(progress.1, [Stage::Links]);
        assert_eq!(progress.0.len(), 2, "{:?}", progress.0);
        let w = &progress.0[0];
        assert!(w.contains("'A'") && w.contains("'Far'") && w.contains("end") && w.contains("1.100 m"), "{w}");
        let w = &progress.0[1];
        assert!(w.contains("'B'") && w.contains("'A'") && w.contains("start") && w.contains("0.100 m"), "{w}");
    }
}
