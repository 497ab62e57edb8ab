//! The brute-force shortest-path oracle, written from the public API only and independently of
//! the query code: the visibility graph of all wall endpoints (every pair tested against every
//! wall, exact predicates), searched with Dijkstra.
//!
//! The oracle works in XZ, so it holds for meshes whose polygons do not overlap in XZ (single
//! layer). Whether a segment stays on the mesh is decided by one of two [`Visibility`] rules;
//! they agree on every segment of positive length and differ only in how they split it.

use meadow::geom::{orient2d, Point2};
use meadow::query::QueryMesh;
use meadow::EdgeLink;
use std::collections::BTreeSet;

use crate::testmesh::{segments_intersect, sign};

/// How [`Oracle::visible`] cuts a segment into pieces before testing each piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Visibility {
    /// Cut at every wall corner on the closed segment (its ends included), pieces in the
    /// segment's direction. Not meant for zero-length segments (the runtime's unit tests).
    ClosedSegment,
    /// Cut at the wall corners strictly inside the segment; a zero-length segment is visible
    /// (the fixture tests).
    OpenSegment,
}

/// The visibility-graph oracle of one mesh.
pub struct Oracle {
    rule: Visibility,
    /// XZ rings of every polygon (counter-clockwise).
    rings: Vec<Vec<Point2>>,
    walls: Vec<(Point2, Point2)>,
    /// The wall endpoints (the graph's nodes), each once.
    pub corners: Vec<Point2>,
    /// Per corner: the corners it sees and their distance.
    pub corner_edges: Vec<Vec<(usize, f64)>>,
}

/// XZ projection of a 3D point.
fn xz(p: [f64; 3]) -> Point2 {
    [p[0], p[2]]
}

/// XZ distance.
fn dist(a: Point2, b: Point2) -> f64 {
    ((a[0] - b[0]) * (a[0] - b[0]) + (a[1] - b[1]) * (a[1] - b[1])).sqrt()
}

/// Whether the convex counter-clockwise `ring` holds `p` (inside or on its boundary; exact).
fn contains(ring: &[Point2], p: Point2) -> bool {
    (0..ring.len()).all(|k| orient2d(ring[k], ring[(k + 1) % ring.len()], p) >= 0.0)
}

impl Oracle {
    /// Builds the visibility graph of `mesh`'s wall corners under `rule`.
    pub fn new(mesh: &QueryMesh, rule: Visibility) -> Oracle {
        let nav = mesh.mesh();
        let data = nav.data();
        let verts = nav.vertices();
        let mut walls = Vec::new();
        let mut corner_ids = BTreeSet::new();
        for p in &data.polygons {
            let (first, n) = (p.first as usize, p.vertex_count as usize);
            for k in 0..n {
                if data.edge_links[first + k] == EdgeLink::Wall {
                    let (a, b) = (data.polygon_vertices[first + k], data.polygon_vertices[first + (k + 1) % n]);
                    walls.push((xz(verts[a as usize]), xz(verts[b as usize])));
                    corner_ids.insert(a);
                    corner_ids.insert(b);
                }
            }
        }
        let corners: Vec<Point2> = corner_ids.iter().map(|&v| xz(verts[v as usize])).collect();
        let rings = (0..nav.polygon_count()).map(|p| nav.polygon_points(p).collect()).collect();
        let mut oracle = Oracle { rule, rings, walls, corners, corner_edges: Vec::new() };
        let n = oracle.corners.len();
        let mut edges = vec![Vec::new(); n];
        for i in 0..n {
            for j in i + 1..n {
                if oracle.visible(oracle.corners[i], oracle.corners[j]) {
                    let d = dist(oracle.corners[i], oracle.corners[j]);
                    edges[i].push((j, d));
                    edges[j].push((i, d));
                }
            }
        }
        oracle.corner_edges = edges;
        oracle
    }

    /// Whether some polygon holds `p`.
    pub fn inside(&self, p: Point2) -> bool {
        self.rings.iter().any(|r| contains(r, p))
    }

    /// Whether the segment `p q` stays on the mesh: it crosses no wall properly, and every piece
    /// between the wall corners on it (cut by the oracle's [`Visibility`] rule) has its midpoint
    /// on the mesh or both its ends in one convex polygon (a rounded midpoint can fall just off
    /// the mesh when the piece runs along a slanted wall; exact ends in one polygon are sure).
    pub fn visible(&self, p: Point2, q: Point2) -> bool {
        if self.rule == Visibility::OpenSegment && p == q {
            return true;
        }
        for &(a, b) in &self.walls {
            let (o1, o2) = (sign(orient2d(p, q, a)), sign(orient2d(p, q, b)));
            let (o3, o4) = (sign(orient2d(a, b, p)), sign(orient2d(a, b, q)));
            if o1 * o2 < 0 && o3 * o4 < 0 {
                return false;
            }
        }
        let axis = if (q[0] - p[0]).abs() >= (q[1] - p[1]).abs() { 0 } else { 1 };
        let mut stops = vec![p, q];
        match self.rule {
            Visibility::ClosedSegment => {
                stops.extend(
                    self.corners.iter().filter(|&&c| orient2d(p, q, c) == 0.0 && segments_intersect(p, q, c, c)),
                );
                let dir = q[axis] >= p[axis];
                stops.sort_by(|a, b| if dir { a[axis].total_cmp(&b[axis]) } else { b[axis].total_cmp(&a[axis]) });
            }
            Visibility::OpenSegment => {
                let (lo, hi) = (p[axis].min(q[axis]), p[axis].max(q[axis]));
                stops
                    .extend(self.corners.iter().filter(|c| orient2d(p, q, **c) == 0.0 && c[axis] > lo && c[axis] < hi));
                stops.sort_by(|a, b| a[axis].total_cmp(&b[axis]));
            }
        }
        stops.windows(2).all(|w| {
            w[0] == w[1]
                || self.inside([(w[0][0] + w[1][0]) * 0.5, (w[0][1] + w[1][1]) * 0.5])
                || self.rings.iter().any(|r| contains(r, w[0]) && contains(r, w[1]))
        })
    }

    /// The shortest walkable XZ length from `s` to `g`, or `None` when unreachable.
    pub fn shortest(&self, s: Point2, g: Point2) -> Option<f64> {
        if self.visible(s, g) {
            return Some(dist(s, g));
        }
        let n = self.corners.len();
        // Nodes are the corners, reached from the start when visible; the goal is reached from
        // the corners that see it.
        let to_goal: Vec<bool> = self.corners.iter().map(|&c| self.visible(c, g)).collect();
        let mut d: Vec<f64> =
            self.corners.iter().map(|&c| if self.visible(s, c) { dist(s, c) } else { f64::INFINITY }).collect();
        let mut done = vec![false; n];
        let mut best = f64::INFINITY;
        while let Some(u) = (0..n).filter(|&i| !done[i] && d[i].is_finite()).min_by(|&a, &b| d[a].total_cmp(&d[b])) {
            if d[u] >= best {
                break;
            }
            done[u] = true;
            if to_goal[u] {
                best = best.min(d[u] + dist(self.corners[u], g));
            }
            for &(v, w) in &self.corner_edges[u] {
                d[v] = d[v].min(d[u] + w);
            }
        }
        best.is_finite().then_some(best)
    }
}
