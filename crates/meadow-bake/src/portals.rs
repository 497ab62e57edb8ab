//! Stage 6, portals: convex polygons over shared vertices ([`PolygonMesh`]) → what lies across
//! every polygon edge (a neighbouring polygon or a wall).

use meadow::geom::Point2;
use meadow::EdgeLink;
use std::collections::BTreeMap;

/// Convex polygons of every region over one welded vertex list: the input of [`link_portals`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolygonMesh {
    /// XZ positions; equal coordinates at heights within `max_climb` share one index.
    pub vertices: Vec<Point2>,
    /// Surface height of each vertex (the highest of the surfaces welded into it).
    pub heights: Vec<f64>,
    /// Vertex indices of each polygon, counter-clockwise.
    pub polygons: Vec<Vec<u32>>,
    /// Area type of each polygon.
    pub areas: Vec<u16>,
    /// Layer of each polygon.
    pub layers: Vec<u16>,
}

impl PolygonMesh {
    /// Adds polygons over a local vertex list with the surface height of each vertex, welding
    /// vertices with identical XZ coordinates (region coordinates are exact grid values, so
    /// equality is exact) whose heights are within `max_climb` — the same point of the surface,
    /// also where two layers meet at a seam, but not the same point of two floors one above
    /// the other — and dropping repeated consecutive vertices.
    pub fn add(
        &mut self,
        local_vertices: &[Point2],
        heights: &[f64],
        polygons: &[Vec<u32>],
        area: u16,
        layer: u16,
        index: &mut VertexIndex,
    ) {
        let labels = vec![(area, layer); polygons.len()];
        self.add_labelled(local_vertices, heights, polygons, &labels, index);
    }

    /// As [`PolygonMesh::add`], with an `(area, layer)` per polygon; returns how many of the
    /// polygons were added (a ring welded below three vertices is dropped).
    pub fn add_labelled(
        &mut self,
        local_vertices: &[Point2],
        heights: &[f64],
        polygons: &[Vec<u32>],
        labels: &[(u16, u16)],
        index: &mut VertexIndex,
    ) -> usize {
        let global: Vec<u32> = local_vertices
            .iter()
            .zip(heights)
            .map(|(&p, &h)| index.get_or_insert(p, h, &mut self.vertices, &mut self.heights))
            .collect();
        let before = self.polygons.len();
        for (poly, &(area, layer)) in polygons.iter().zip(labels) {
            let mut ring: Vec<u32> = poly.iter().map(|&v| global[v as usize]).collect();
            ring.dedup();
            while ring.len() > 1 && ring.first() == ring.last() {
                ring.pop();
            }
            if ring.len() >= 3 {
                self.polygons.push(ring);
                self.areas.push(area);
                self.layers.push(layer);
            }
        }
        self.polygons.len() - before
    }
}

/// Exact-coordinate lookup used while welding vertices.
#[derive(Clone, Debug, Default)]
pub struct VertexIndex {
    by_bits: BTreeMap<(u64, u64), Vec<u32>>,
    max_climb: f64,
}

impl VertexIndex {
    /// An empty index welding heights within `max_climb`.
    pub fn new(max_climb: f64) -> VertexIndex {
        VertexIndex { by_bits: BTreeMap::new(), max_climb }
    }

    fn get_or_insert(&mut self, p: Point2, h: f64, vertices: &mut Vec<Point2>, heights: &mut Vec<f64>) -> u32 {
        // +0.0 and -0.0 are the same point.
        let key = ((p[0] + 0.0).to_bits(), (p[1] + 0.0).to_bits());
        let same = self.by_bits.entry(key).or_default();
        if let Some(&v) = same.iter().find(|&&v| (heights[v as usize] - h).abs() <= self.max_climb) {
            heights[v as usize] = heights[v as usize].max(h);
            return v;
        }
        vertices.push(p);
        heights.push(h);
        let v = (vertices.len() - 1) as u32;
        same.push(v);
        v
    }
}

/// For every edge `k` (vertex `k` → `k + 1`) of every polygon: the polygon with the same edge
/// reversed, or a wall. An edge claimed by more than two polygons is a wall for all of them.
pub fn link_portals(mesh: &PolygonMesh) -> Vec<Vec<EdgeLink>> {
    // Every directed edge with its polygon, sorted: the owners of an edge are one run, found by
    // binary search (a hash map of the same edges took 0.7 s on 418,000 polygons).
    let mut edges: Vec<(u32, u32, u32)> = Vec::with_capacity(mesh.polygons.iter().map(Vec::len).sum());
    for (p, poly) in mesh.polygons.iter().enumerate() {
        for k in 0..poly.len() {
            edges.push((poly[k], poly[(k + 1) % poly.len()], p as u32));
        }
    }
    edges.sort_unstable();
    let owners = |a: u32, b: u32| {
        let start = edges.partition_point(|e| (e.0, e.1) < (a, b));
        let end = start + edges[start..].partition_point(|e| (e.0, e.1) == (a, b));
        &edges[start..end]
    };
    mesh.polygons
        .iter()
        .enumerate()
        .map(|(p, poly)| {
            (0..poly.len())
                .map(|k| {
                    let (a, b) = (poly[k], poly[(k + 1) % poly.len()]);
                    match owners(b, a) {
                        [q] if owners(a, b).len() == 1 && q.2 as usize != p => EdgeLink::Polygon(q.2),
                        _ => EdgeLink::Wall,
                    }
                })
                .collect()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_triangles_share_one_portal() {
        //  3 ---- 2
        //  | P1 / |
        //  |  /P0 |
        //  0 ---- 1
        let mut mesh = PolygonMesh::default();
        let verts = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        mesh.add(&verts, &[0.0; 4], &[vec![0, 1, 2], vec![0, 2, 3]], 0, 0, &mut VertexIndex::new(0.5));
        let links = link_portals(&mesh);
        assert_eq!(links[0], vec![EdgeLink::Wall, EdgeLink::Wall, EdgeLink::Polygon(1)]);
        assert_eq!(links[1], vec![EdgeLink::Polygon(0), EdgeLink::Wall, EdgeLink::Wall]);
    }

    #[test]
    fn welding_merges_equal_points_across_pieces() {
        let mut mesh = PolygonMesh::default();
        let mut index = VertexIndex::new(0.5);
        mesh.add(&[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]], &[0.0; 3], &[vec![0, 1, 2]], 0, 0, &mut index);
        mesh.add(&[[0.0, 0.0], [1.0, 1.0], [-0.0, 1.0]], &[0.2; 3], &[vec![0, 1, 2]], 1, 1, &mut index);
        assert_eq!(mesh.vertices.len(), 4);
        assert_eq!(mesh.heights[0], 0.2, "welded vertices take the highest surface");
        // The same triangle one floor up shares nothing.
        mesh.add(&[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]], &[3.0; 3], &[vec![0, 1, 2]], 0, 2, &mut index);
        assert_eq!(mesh.vertices.len(), 7);
        let links = link_portals(&mesh);
        assert_eq!(links[0][2], EdgeLink::Polygon(1));
        assert_eq!(links[1][0], EdgeLink::Polygon(0));
    }
}
