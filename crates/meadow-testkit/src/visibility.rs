//! The brute-force corner visibility graph: input a [`NavMesh`], output the
//! [`VisibilityGraph`] the bake's visibility stage must produce, built the slow and obvious way
//! (every pair of corners, every segment walked polygon by polygon) so tests can compare.
//!
//! Semantics (shared with the bake):
//! - a *corner* is a free wedge at a vertex: a maximal fan of the polygons around the vertex
//!   joined by portals incident to it, bounded by two wall edges, whose total angle in XZ
//!   exceeds π; at a pinch (a vertex with several wedges) every wedge, whatever its angle; its
//!   polygon is the wedge's lowest-index polygon;
//! - two corners *see* each other when the segment between them can be walked from the one's
//!   wedge to the other's, polygon to polygon across portals only (through a vertex it passes,
//!   only within the wedge it arrived in); running along a wall or touching one is allowed;
//! - an edge is kept only when it is taut at both ends: the corner is at a pinch, or its two
//!   wall neighbours do not lie strictly on opposite sides of the edge's line.

use meadow::geom::{orient2d, Point2};
use meadow::{EdgeLink, NavMesh, NavMeshData, VisibilityGraph};
use std::collections::BTreeSet;

/// A corner of the oracle: vertex, lowest polygon of its wedge, wall neighbours, wedge.
struct Corner {
    vertex: u32,
    polygon: u32,
    prev: u32,
    next: u32,
    wedge: BTreeSet<u32>,
    /// At a pinch: any direction is taut.
    pinch: bool,
}

fn xz(d: &NavMeshData, v: u32) -> Point2 {
    let p = d.vertices[v as usize];
    [p[0], p[2]]
}

fn run(d: &NavMeshData, p: u32) -> (&[u32], &[EdgeLink]) {
    let pd = d.polygons[p as usize];
    let r = pd.first as usize..pd.first as usize + pd.vertex_count as usize;
    (&d.polygon_vertices[r.clone()], &d.edge_links[r])
}

/// The position of `v` in polygon `p` with its previous and next vertices and the links of the
/// edge arriving at `v` and the edge leaving it.
fn at_vertex(d: &NavMeshData, p: u32, v: u32) -> Option<(u32, u32, EdgeLink, EdgeLink)> {
    let (verts, links) = run(d, p);
    let n = verts.len();
    let k = verts.iter().position(|&w| w == v)?;
    Some((verts[(k + n - 1) % n], verts[(k + 1) % n], links[(k + n - 1) % n], links[k]))
}

/// The polygons of the wedge of `p` at `v`: reachable through portals on edges incident to `v`.
fn wedge(d: &NavMeshData, v: u32, p: u32) -> BTreeSet<u32> {
    let mut seen = BTreeSet::from([p]);
    let mut todo = vec![p];
    while let Some(q) = todo.pop() {
        let (_, _, incoming, outgoing) = at_vertex(d, q, v).expect("wedge polygons hold the vertex");
        for link in [incoming, outgoing] {
            if let EdgeLink::Polygon(r) = link {
                if seen.insert(r) {
                    todo.push(r);
                }
            }
        }
    }
    seen
}

/// The corners of the mesh, ordered by (vertex, polygon).
fn corners(d: &NavMeshData) -> Vec<Corner> {
    let mut out = Vec::new();
    for v in 0..d.vertices.len() as u32 {
        // Every walled wedge at `v`, with whether it is reflex; at a pinch (several wedges at
        // `v`) every wedge is a corner.
        let mut walled = Vec::new();
        let mut wedges = 0;
        for p in 0..d.polygons.len() as u32 {
            if at_vertex(d, p, v).is_none() {
                continue;
            }
            let w = wedge(d, v, p);
            if w.first() != Some(&p) {
                continue;
            }
            wedges += 1;
            // The wall ends of the fan: the edge leaving `v` clockwise-most and the edge arriving
            // counter-clockwise-most; a fan without walls closes a full circle.
            let mut next = None;
            let mut prev = None;
            for &q in &w {
                let (pv, nv, incoming, outgoing) = at_vertex(d, q, v).unwrap();
                if outgoing == EdgeLink::Wall {
                    next = Some(nv);
                }
                if incoming == EdgeLink::Wall {
                    prev = Some(pv);
                }
            }
            let (Some(prev), Some(next)) = (prev, next) else { continue };
            let (a, pp, nn) = (xz(d, v), xz(d, prev), xz(d, next));
            // Walking the boundary prev -> v -> next with the free side on the left, the wedge is
            // a corner when wider than a half-turn (the walk turns right, doubles back, or the
            // wedge wraps past a full turn: see `wedge_is_reflex`).
            let around: Vec<_> = w
                .iter()
                .flat_map(|&q| {
                    let (pv, nv, _, _) = at_vertex(d, q, v).unwrap();
                    [xz(d, pv), xz(d, nv)]
                })
                .collect();
            walled.push((
                Corner { vertex: v, polygon: p, prev, next, wedge: w, pinch: false },
                meadow::geom::wedge_is_reflex(pp, a, nn, around),
            ));
        }
        let pinch = wedges >= 2;
        out.extend(walled.into_iter().filter(|(_, reflex)| pinch || *reflex).map(|(c, _)| Corner { pinch, ..c }));
    }
    out
}

/// Whether the direction from `v` towards `b` lies in polygon `q`'s closed angle at `v`.
fn in_angle(d: &NavMeshData, q: u32, v: u32, b: Point2) -> bool {
    let (prev, next, _, _) = at_vertex(d, q, v).unwrap();
    let c = xz(d, v);
    orient2d(c, xz(d, next), b) >= 0.0 && orient2d(c, xz(d, prev), b) <= 0.0
}

/// Whether the segment from corner `from` to corner `to` walks the mesh from one's wedge to the
/// other's across portals only.
fn sees(d: &NavMeshData, from: &Corner, to: &Corner) -> bool {
    let (a, b) = (xz(d, from.vertex), xz(d, to.vertex));
    let mut seen = BTreeSet::new();
    let mut todo: Vec<u32> = from.wedge.iter().copied().filter(|&q| in_angle(d, q, from.vertex, b)).collect();
    while let Some(p) = todo.pop() {
        if !seen.insert(p) {
            continue;
        }
        let (verts, links) = run(d, p);
        let n = verts.len();
        let holds_end = (0..n).all(|k| orient2d(xz(d, verts[k]), xz(d, verts[(k + 1) % n]), b) >= 0.0);
        if holds_end {
            if verts.contains(&to.vertex) && to.wedge.contains(&p) {
                return true;
            }
            continue;
        }
        let side: Vec<f64> = verts.iter().map(|&v| orient2d(a, b, xz(d, v))).collect();
        // The line leaves a counter-clockwise polygon where its boundary goes from the right of
        // the line to the left: across an edge, or at a vertex on the line.
        if let Some(k) = (0..n).find(|&k| side[k] < 0.0 && side[(k + 1) % n] > 0.0) {
            if let EdgeLink::Polygon(q) = links[k] {
                todo.push(q);
            }
            continue;
        }
        // The farthest vertex on the line along a -> b (points on one line compare exactly by the
        // coordinate that changes most along it).
        let axis = if (b[0] - a[0]).abs() >= (b[1] - a[1]).abs() { 0 } else { 1 };
        let forward = b[axis] > a[axis];
        let Some(v) = (0..n).filter(|&k| side[k] == 0.0).map(|k| verts[k]).max_by(|&u, &w| {
            let (cu, cw) = (xz(d, u)[axis], xz(d, w)[axis]);
            if forward {
                cu.total_cmp(&cw)
            } else {
                cw.total_cmp(&cu)
            }
        }) else {
            continue;
        };
        for q in wedge(d, v, p) {
            if q != p && in_angle(d, q, v, b) {
                todo.push(q);
            }
        }
    }
    false
}

/// Whether the line from corner `c` to the point `b` is taut at `c`: `c` is at a pinch, or its
/// wall neighbours do not lie strictly on opposite sides of it.
fn taut(d: &NavMeshData, c: &Corner, b: Point2) -> bool {
    if c.pinch {
        return true;
    }
    let a = xz(d, c.vertex);
    let sp = orient2d(a, b, xz(d, c.prev));
    let sn = orient2d(a, b, xz(d, c.next));
    !((sp > 0.0 && sn < 0.0) || (sp < 0.0 && sn > 0.0))
}

/// Every pair of corners `(i, j)`, `i < j`, that see each other (at distinct XZ points), and
/// whether the pair is taut at both ends.
pub fn naive_pairs(mesh: &NavMesh) -> (usize, Vec<(u32, u32, bool)>) {
    let d = mesh.data();
    let cs = corners(d);
    let mut pairs = Vec::new();
    for i in 0..cs.len() {
        for j in i + 1..cs.len() {
            let (a, b) = (xz(d, cs[i].vertex), xz(d, cs[j].vertex));
            if a == b || !sees(d, &cs[i], &cs[j]) {
                continue;
            }
            let taut_both = taut(d, &cs[i], b) && taut(d, &cs[j], a);
            pairs.push((i as u32, j as u32, taut_both));
        }
    }
    (cs.len(), pairs)
}

/// The corner visibility graph of `mesh`, built by brute force.
pub fn naive_graph(mesh: &NavMesh) -> VisibilityGraph {
    let d = mesh.data();
    let cs = corners(d);
    let (_, pairs) = naive_pairs(mesh);
    let mut adjacency: Vec<BTreeSet<u32>> = vec![BTreeSet::new(); cs.len()];
    for (i, j, taut_both) in pairs {
        if taut_both {
            adjacency[i as usize].insert(j);
            adjacency[j as usize].insert(i);
        }
    }
    let mut g = VisibilityGraph {
        corners: cs.iter().map(|c| c.vertex).collect(),
        polygons: cs.iter().map(|c| c.polygon).collect(),
        first_edge: vec![0],
        targets: Vec::new(),
        lengths: Vec::new(),
    };
    for (i, targets) in adjacency.iter().enumerate() {
        let a = d.vertices[cs[i].vertex as usize];
        for &t in targets {
            let b = d.vertices[cs[t as usize].vertex as usize];
            g.targets.push(t);
            g.lengths.push((b[0] - a[0]).hypot(b[2] - a[2]));
        }
        g.first_edge.push(g.targets.len() as u32);
    }
    g
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testmesh::GridSpec;

    fn grid(cols: usize, rows: usize, blocked: &[(usize, usize)], triangulate: bool) -> NavMesh {
        let mut b = vec![false; cols * rows];
        for &(c, r) in blocked {
            b[r * cols + c] = true;
        }
        NavMesh::new(GridSpec { cols, rows, blocked: b, triangulate, ..GridSpec::default() }.build()).unwrap()
    }

    fn edges(mesh: &NavMesh, g: &VisibilityGraph) -> Vec<([f64; 2], [f64; 2])> {
        let v = mesh.vertices();
        let mut out = Vec::new();
        for i in 0..g.node_count() {
            for (t, _) in g.edges(i) {
                let (a, b) = (v[g.corners[i] as usize], v[g.corners[t as usize] as usize]);
                out.push(([a[0], a[2]], [b[0], b[2]]));
            }
        }
        out
    }

    #[test]
    fn open_grid_has_no_corners() {
        let g = naive_graph(&grid(3, 3, &[], false));
        assert_eq!(g.node_count(), 0);
        assert_eq!(g.first_edge, vec![0]);
    }

    #[test]
    fn one_hole_has_four_corners_joined_along_its_sides() {
        // A 3x3 grid with the centre blocked: the hole's corners (1,1), (2,1), (2,2), (1,2) are
        // reflex; each sees its two neighbours along the hole's walls (taut: the hole lies on
        // one side) but not its opposite corner (through the hole).
        for triangulate in [false, true] {
            let mesh = grid(3, 3, &[(1, 1)], triangulate);
            let g = naive_graph(&mesh);
            let pts: Vec<[f64; 2]> =
                g.corners.iter().map(|&v| [mesh.vertices()[v as usize][0], mesh.vertices()[v as usize][2]]).collect();
            assert_eq!(pts, vec![[1.0, 1.0], [2.0, 1.0], [1.0, 2.0], [2.0, 2.0]]);
            assert_eq!(g.edge_count(), 8, "{triangulate}");
            for (a, b) in edges(&mesh, &g) {
                assert!(a[0] == b[0] || a[1] == b[1], "{a:?} {b:?} is a diagonal");
            }
        }
    }

    #[test]
    fn two_holes_see_each_other_where_taut() {
        // 5x3 grid, cells (1,1) and (3,1) blocked. Between the holes the corners (2,1)-(3,1) and
        // (2,2)-(3,2) see along the walls; the diagonals (2,1)-(3,2) and (2,2)-(3,1) are visible
        // through the open cell (2,1) and taut at both ends (each corner's walls lie on one side).
        let mesh = grid(5, 3, &[(1, 1), (3, 1)], false);
        let g = naive_graph(&mesh);
        assert_eq!(g.node_count(), 8);
        let e = edges(&mesh, &g);
        let has = |a: [f64; 2], b: [f64; 2]| e.contains(&(a, b)) && e.contains(&(b, a));
        assert!(has([2.0, 1.0], [3.0, 1.0]));
        assert!(has([2.0, 1.0], [3.0, 2.0]));
        assert!(has([2.0, 2.0], [3.0, 1.0]));
        // (1,1)-(4,1) runs along the bottom of both holes: visible and taut.
        assert!(has([1.0, 1.0], [4.0, 1.0]));
        // (1,1)-(3,2) crosses hole (1,1).
        assert!(!has([1.0, 1.0], [3.0, 2.0]));
        // (1,1)-(4,2) crosses hole (3,1).
        assert!(!has([1.0, 1.0], [4.0, 2.0]));
        assert!(NavMesh::new(NavMeshData { visibility: Some(g), ..mesh.data().clone() }).is_ok());
    }

    #[test]
    fn l_shaped_room_has_one_corner_without_partners() {
        // 2x2 grid with (1,1) blocked: one reflex corner at (1,1), no other corner to see.
        let mesh = grid(2, 2, &[(1, 1)], true);
        let g = naive_graph(&mesh);
        assert_eq!(g.corners.len(), 1);
        assert_eq!(mesh.vertices()[g.corners[0] as usize], [1.0, 0.0, 1.0]);
        assert_eq!(g.edge_count(), 0);
    }
}
