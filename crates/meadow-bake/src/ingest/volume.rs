//! Area volumes: the triangles of an `area_volume` node, checked to form a closed mesh, become
//! an [`AreaVolume`] of the scene.

use super::nodes::Instance;
use super::primitives::is_collinear;
use super::reader::Reader;
use super::{AreaVolume, IngestError, Scene};

/// The triangles of one `area_volume` node, gathered over its primitives.
#[derive(Default)]
pub(super) struct VolumeParts {
    /// Triangles with area (the footprint).
    triangles: Vec<[[f64; 3]; 3]>,
    /// The undirected edges of every triangle whose three corners are distinct points (collinear
    /// ones included: they close a mesh as much as any other), lesser end first.
    edges: Vec<[[f64; 3]; 2]>,
}

impl VolumeParts {
    /// Adds a triangle (world space, any winding): its edges, and the triangle if it has area.
    pub(super) fn add(&mut self, corners: [[f64; 3]; 3]) {
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
    /// Checks that an area volume's mesh is closed and adds it to the scene (a mesh with no
    /// triangle with area adds nothing).
    pub(super) fn add_volume(
        &self,
        instance: &Instance,
        mut parts: VolumeParts,
        scene: &mut Scene,
    ) -> Result<(), IngestError> {
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
}
