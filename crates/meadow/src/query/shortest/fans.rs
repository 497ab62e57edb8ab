//! The per-vertex tables of the shortest-path search: the polygons round each vertex, the
//! components of polygons joined at vertices, and which vertices a taut path can bend at.

use crate::geom::{orient2d, Point2};
use crate::query::{xz, DisjointSets, QueryMesh};

/// Per-vertex adjacency the search needs, derived once from a [`QueryMesh`].
#[derive(Clone, Debug, Default)]
pub(crate) struct VertexFans {
    /// CSR offsets into `fan` per vertex (`vertex_count + 1` entries).
    pub(super) fan_start: Vec<usize>,
    /// The polygons around each vertex, with the vertex's index in that polygon.
    pub(super) fan: Vec<(u32, u32)>,
    /// Per polygon: its connected component, polygons being connected when they share a vertex
    /// (a superset of portal adjacency: paths may pass where polygons touch at a point). With
    /// no area excluded, a goal in another component is unreachable without a search.
    pub(crate) component: Vec<u32>,
    /// Per vertex: `CORNER | PINCH` bits with every polygon included (the common filter).
    pub(crate) corner: Vec<u8>,
}

impl QueryMesh {
    /// The vertex fans of this mesh (built on first use, then shared).
    pub(crate) fn vertex_fans(&self) -> &VertexFans {
        self.vertex_fans.get_or_init(|| VertexFans::build(self))
    }
}

impl VertexFans {
    /// Builds the vertex-to-polygon table of a mesh.
    pub(crate) fn build(mesh: &QueryMesh) -> VertexFans {
        let vcount = mesh.mesh().vertices().len();
        let (counts, fan) = crate::asset::corners_by_vertex(mesh.mesh().data(), |poly, k| (poly, k as u32));
        // Union-find over polygons sharing a vertex.
        let polys = mesh.mesh().polygon_count();
        let mut sets = DisjointSets::new(polys);
        for v in 0..vcount {
            let group = &fan[counts[v]..counts[v + 1]];
            if let Some(&(first, _)) = group.first() {
                for &(q, _) in &group[1..] {
                    sets.union(first, q);
                }
            }
        }
        let component = (0..polys as u32).map(|p| sets.root(p)).collect();
        let mut fans = VertexFans { fan_start: counts, fan, component, corner: Vec::new() };
        fans.corner = (0..vcount as u32).map(|v| corner_bits(mesh, &fans, v, |_| true)).collect();
        fans
    }

    pub(crate) fn fan(&self, v: u32) -> &[(u32, u32)] {
        let (a, b) = (self.fan_start[v as usize], self.fan_start[v as usize + 1]);
        &self.fan[a..b]
    }
}

/// Per-vertex corner status bits (the filter's exclusions change them).
pub(crate) const CORNER: u8 = 1;
pub(crate) const PINCH: u8 = 2;

/// Whether point `p` of a polygon lies on its edge `a -> b`, so that the polygon across the edge
/// holds `p` too: `p` is not strictly inside the edge's line (on it, or just outside after
/// rounding) and lies within the edge's extent along its longer axis. (The line alone is not
/// enough: a polygon with an edge in line with the one `p` lies on, or a point just outside
/// after rounding, would hand `p` to a polygon far from it, and each such polygon to more.)
pub(crate) fn lies_on_edge(a: Point2, b: Point2, p: Point2) -> bool {
    if orient2d(a, b, p) > 0.0 {
        return false;
    }
    let axis = usize::from((b[1] - a[1]).abs() > (b[0] - a[0]).abs());
    let (lo, hi) = if a[axis] <= b[axis] { (a[axis], b[axis]) } else { (b[axis], a[axis]) };
    lo <= p[axis] && p[axis] <= hi
}

/// Where the start or goal sits: a mesh vertex (exactly) or not.
pub(crate) fn vertex_at(mesh: &QueryMesh, poly: u32, p: Point2) -> Option<u32> {
    let first = mesh.poly_first(poly);
    let data = mesh.mesh().data();
    (0..mesh.poly_len(poly)).find_map(|k| {
        let v = data.polygon_vertices[first + k];
        (xz(mesh.mesh().vertices()[v as usize]) == p).then_some(v)
    })
}

/// `CORNER` / `PINCH` bits of vertex `v` under `included` (the polygons the path may enter).
/// Boundary edges are walls and edges into polygons not included. An ordinary boundary vertex
/// has two of them around it (one ending, one starting there) and is a corner only when the
/// walkable angle there exceeds 180°: a taut path never bends where the free space is locally
/// convex (a chord would cut the bend). Four or more make a pinch: walkable sectors touching
/// only at the vertex.
pub(super) fn corner_bits(mesh: &QueryMesh, fans: &VertexFans, v: u32, included: impl Fn(u32) -> bool) -> u8 {
    let data = mesh.mesh().data();
    let verts = mesh.mesh().vertices();
    let passable = |h: usize| mesh.edge_neighbour(h).is_some_and(&included);
    let (mut boundary, mut prev, mut next) = (0, None, None);
    let around = || {
        fans.fan(v).iter().filter(|&&(q, _)| included(q)).flat_map(|&(q, k)| {
            let (first, n, k) = (mesh.poly_first(q), mesh.poly_len(q), k as usize);
            [(k + 1) % n, (k + n - 1) % n].map(|j| xz(verts[data.polygon_vertices[first + j] as usize]))
        })
    };
    for &(q, k) in fans.fan(v) {
        if !included(q) {
            continue;
        }
        let first = mesh.poly_first(q);
        let n = mesh.poly_len(q);
        let k = k as usize;
        let (out_h, in_h) = (first + k, first + (k + n - 1) % n);
        if !passable(out_h) {
            boundary += 1;
            next = Some(data.polygon_vertices[first + (k + 1) % n]);
        }
        if !passable(in_h) {
            boundary += 1;
            prev = Some(data.polygon_vertices[in_h]);
        }
    }
    match (boundary, prev, next) {
        (0, _, _) => 0,
        (2, Some(a), Some(b)) => {
            let (a, p, b) = (xz(verts[a as usize]), xz(verts[v as usize]), xz(verts[b as usize]));
            // Wider than a half-turn: reflex, the tip of a wall with walkable space all around
            // (360°), or a wedge of stacked layers wrapping past a full turn.
            if crate::geom::wedge_is_reflex(a, p, b, around()) {
                CORNER
            } else {
                0
            }
        }
        (b, _, _) if b >= 4 => CORNER | PINCH,
        _ => CORNER,
    }
}
