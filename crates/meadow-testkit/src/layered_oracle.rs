//! The brute-force shortest-path oracle for meshes of any number of layers (floors above one
//! another, ramps over floors, seams): written from the asset's public data only, independently
//! of the runtime's query code.
//!
//! The answer is the length in XZ of the shortest walkable polyline, the metric of
//! `find_shortest_path`. Nodes are mesh *vertices* (indices), not XZ points, so corners at the same
//! XZ point on different floors stay distinct.
//!
//! **Seeing.** Two places (a point on a given polygon, or a mesh vertex) see each other when the
//! straight XZ segment between them can be followed polygon by polygon from a polygon holding the
//! one to a polygon holding the other ([`LayeredOracle::sees`]). In a polygon (convex) the segment
//! runs from where it entered to the far end of its chord through the polygon; there it leaves:
//! - through the inside of an edge: into the polygon across it if the edge is a portal (a
//!   neighbour has the same edge, reversed vertex indices: floors, ramps and seams are all joined
//!   this way), nowhere if it is a wall;
//! - through a vertex (the segment passes exactly through it): into *any* polygon that has that
//!   vertex index. A vertex is one point of the surface, so every polygon around it touches the
//!   segment there; the ones that do not contain the continuation end the walk at once (their
//!   chord ends at the vertex). This includes polygons touching the others only at the vertex (a
//!   pinch): the runtime documents that polygons touching at one vertex are connected through
//!   it, and a polygon of another floor that merely has a vertex at the same XZ point is a
//!   different vertex index, so it is never entered.
//!
//! Running along a wall, or touching one at a point, is allowed (the closed polygons are walkable).
//! Every decision is an exact orientation sign (`meadow::geom::orient2d`) on the stored
//! coordinates; no parameter along the segment is ever computed.
//!
//! **Search.** Dijkstra over the turning vertices (the vertices where a shortest path can bend:
//! reflex or slit corners of the boundary, and every vertex whose polygons form several fans),
//! edges built lazily by walking every pair, plus the start and goal. An edge at a simple reflex
//! corner is used only when it is taut there (the corner's two walls are not strictly on opposite
//! sides of its line), which a bend of a shortest path always is.

use meadow::geom::{orient2d, Point2};
use meadow::{EdgeLink, NavMesh};
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// One end of a segment: a point on a polygon's surface, or a mesh vertex.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum End {
    /// The XZ point `at` on polygon `polygon` (inside it or on its boundary).
    Point {
        /// The polygon holding the point.
        polygon: u32,
        /// The point in XZ.
        at: Point2,
    },
    /// The mesh vertex with this index.
    Vertex(u32),
}

/// A shortest walk the oracle found.
#[derive(Clone, Debug, PartialEq)]
pub struct OraclePath {
    /// Its length in XZ.
    pub length: f64,
    /// The mesh vertices it bends at, in order.
    pub turns: Vec<u32>,
}

/// What may bend a shortest path at a vertex, and how its edges may be pruned.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Turn {
    /// Never a bend (interior, convex or straight boundary vertex).
    No,
    /// A bend without pruning (several fans, or a fan overlapping itself in XZ).
    Any,
    /// A simple reflex or slit corner with its two wall neighbours (previous, next) in XZ.
    Taut(Point2, Point2),
}

/// The layered oracle of one mesh (see the module docs).
pub struct LayeredOracle {
    /// XZ of every vertex.
    verts: Vec<Point2>,
    /// Per polygon: vertex indices, counter-clockwise in XZ.
    rings: Vec<Vec<u32>>,
    /// Per polygon: what lies across edge `k` (from vertex `k` to `k + 1`).
    links: Vec<Vec<EdgeLink>>,
    /// Per vertex: the polygons that have it.
    around: Vec<Vec<u32>>,
    /// Per vertex: whether and how a path may bend there.
    turn: Vec<Turn>,
    /// The turning vertices (the graph's nodes).
    nodes: Vec<u32>,
    /// Per node: the nodes it sees along taut edges with their XZ lengths, once computed.
    edges: Vec<Option<Vec<(usize, f64)>>>,
}

/// XZ distance.
fn dist(a: Point2, b: Point2) -> f64 {
    (b[0] - a[0]).hypot(b[1] - a[1])
}

/// Whether `p` lies on the closed segment `a b` (exact).
fn on_segment(p: Point2, a: Point2, b: Point2) -> bool {
    orient2d(a, b, p) == 0.0
        && p[0] >= a[0].min(b[0])
        && p[0] <= a[0].max(b[0])
        && p[1] >= a[1].min(b[1])
        && p[1] <= a[1].max(b[1])
}

/// Whether the line through `p` and `q` meets the closed segment `a b` (exact).
fn line_meets(p: Point2, q: Point2, a: Point2, b: Point2) -> bool {
    let (oa, ob) = (orient2d(p, q, a), orient2d(p, q, b));
    !(oa > 0.0 && ob > 0.0 || oa < 0.0 && ob < 0.0)
}

/// The interior angle (radians) of a convex polygon at `v` between its edges to `next` and from
/// `prev` (only used to tell fans wider than a turn from plain ones, never for a visibility).
fn angle(prev: Point2, v: Point2, next: Point2) -> f64 {
    let (u, w) = ([next[0] - v[0], next[1] - v[1]], [prev[0] - v[0], prev[1] - v[1]]);
    (u[0] * w[1] - u[1] * w[0]).atan2(u[0] * w[0] + u[1] * w[1])
}

/// A Dijkstra queue entry, smallest distance first.
#[derive(PartialEq)]
struct Entry(f64, usize);

impl Eq for Entry {}

impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Entry {
    fn cmp(&self, other: &Self) -> Ordering {
        other.0.total_cmp(&self.0).then(other.1.cmp(&self.1))
    }
}

impl LayeredOracle {
    /// The oracle of `mesh` (edges between turning vertices are walked lazily, when needed).
    pub fn new(mesh: &NavMesh) -> LayeredOracle {
        let verts: Vec<Point2> = mesh.vertices().iter().map(|p| [p[0], p[2]]).collect();
        let rings: Vec<Vec<u32>> = mesh.polygons().map(|p| p.vertices.to_vec()).collect();
        let links: Vec<Vec<EdgeLink>> = mesh.polygons().map(|p| p.links.to_vec()).collect();
        let mut around = vec![Vec::new(); verts.len()];
        for (pi, ring) in rings.iter().enumerate() {
            for &v in ring {
                around[v as usize].push(pi as u32);
            }
        }
        let mut oracle =
            LayeredOracle { verts, rings, links, around, turn: Vec::new(), nodes: Vec::new(), edges: Vec::new() };
        oracle.turn = (0..oracle.verts.len() as u32).map(|v| oracle.classify(v)).collect();
        oracle.nodes = (0..oracle.verts.len() as u32).filter(|&v| oracle.turn[v as usize] != Turn::No).collect();
        oracle.edges = vec![None; oracle.nodes.len()];
        oracle
    }

    /// The turning vertices (the nodes of the oracle's graph).
    pub fn nodes(&self) -> &[u32] {
        &self.nodes
    }

    /// The position of `v` in polygon `p`: (previous vertex, next vertex, link of the edge arriving
    /// at `v`, link of the edge leaving it).
    fn at_vertex(&self, p: u32, v: u32) -> (u32, u32, EdgeLink, EdgeLink) {
        let (ring, links) = (&self.rings[p as usize], &self.links[p as usize]);
        let n = ring.len();
        let k = ring.iter().position(|&w| w == v).expect("the polygon has the vertex");
        (ring[(k + n - 1) % n], ring[(k + 1) % n], links[(k + n - 1) % n], links[k])
    }

    /// Whether and how a shortest path may bend at vertex `v`.
    fn classify(&self, v: u32) -> Turn {
        let polys = &self.around[v as usize];
        if polys.is_empty() {
            return Turn::No;
        }
        // The fan of the first polygon: polygons reached through portals on edges at `v`.
        let mut fan = vec![polys[0]];
        let mut k = 0;
        while k < fan.len() {
            let (_, _, incoming, outgoing) = self.at_vertex(fan[k], v);
            for link in [incoming, outgoing] {
                if let EdgeLink::Polygon(q) = link {
                    if !fan.contains(&q) {
                        fan.push(q);
                    }
                }
            }
            k += 1;
        }
        let (mut prev, mut next, mut walls_in, mut walls_out, mut sum) = (v, v, 0, 0, 0.0);
        for &p in &fan {
            let (pv, nv, incoming, outgoing) = self.at_vertex(p, v);
            if incoming == EdgeLink::Wall {
                walls_in += 1;
                prev = pv;
            }
            if outgoing == EdgeLink::Wall {
                walls_out += 1;
                next = nv;
            }
            sum += angle(self.verts[pv as usize], self.verts[v as usize], self.verts[nv as usize]);
        }
        if fan.len() != polys.len() {
            return Turn::Any;
        }
        if walls_in == 0 && walls_out == 0 {
            return Turn::No;
        }
        if walls_in != 1 || walls_out != 1 || sum > 2.5 * std::f64::consts::PI {
            return Turn::Any;
        }
        let (pp, c, nn) = (self.verts[prev as usize], self.verts[v as usize], self.verts[next as usize]);
        let o = orient2d(pp, c, nn);
        let wide = sum > 1.5 * std::f64::consts::PI;
        if o < 0.0 || (o == 0.0 && wide) {
            Turn::Taut(pp, nn)
        } else if wide {
            // Turning left by the orientation, yet wider than a half-turn: the fan overlaps
            // itself in XZ; no local argument applies.
            Turn::Any
        } else {
            Turn::No
        }
    }

    /// Whether a segment from `from` to vertex `v` (or on from `v`) may be part of a bend at `v`.
    fn taut_at(&self, v: u32, from: Point2) -> bool {
        match self.turn[v as usize] {
            Turn::Taut(prev, next) => {
                let c = self.verts[v as usize];
                let (a, b) = (orient2d(from, c, prev), orient2d(from, c, next));
                !(a > 0.0 && b < 0.0 || a < 0.0 && b > 0.0)
            }
            _ => true,
        }
    }

    /// The XZ position of an end.
    pub fn position(&self, e: End) -> Point2 {
        match e {
            End::Point { at, .. } => at,
            End::Vertex(v) => self.verts[v as usize],
        }
    }

    /// The polygons holding an end at its place on the surface: for a vertex, every polygon that
    /// has it; for a point, its polygon and every polygon joined to it by a portal or vertex the
    /// point lies on (repeated).
    pub fn holders(&self, e: End) -> Vec<u32> {
        let (mut out, at) = match e {
            End::Vertex(v) => return self.around[v as usize].clone(),
            End::Point { polygon, at } => (vec![polygon], at),
        };
        let mut k = 0;
        while k < out.len() {
            let p = out[k] as usize;
            let n = self.rings[p].len();
            for j in 0..n {
                let (a, b) = (self.rings[p][j], self.rings[p][(j + 1) % n]);
                let mut add = Vec::new();
                if self.verts[a as usize] == at {
                    add.extend_from_slice(&self.around[a as usize]);
                }
                if let EdgeLink::Polygon(q) = self.links[p][j] {
                    if on_segment(at, self.verts[a as usize], self.verts[b as usize]) {
                        add.push(q);
                    }
                }
                for q in add {
                    if !out.contains(&q) {
                        out.push(q);
                    }
                }
            }
            k += 1;
        }
        out
    }

    /// Whether polygon `p` holds `q` (closed, exact).
    fn contains(&self, p: u32, q: Point2) -> bool {
        let ring = &self.rings[p as usize];
        let n = ring.len();
        (0..n).all(|k| orient2d(self.verts[ring[k] as usize], self.verts[ring[(k + 1) % n] as usize], q) >= 0.0)
    }

    /// Whether the straight XZ segment from `from` to `to` can be walked on the mesh (see the
    /// module docs); a segment of length zero is walkable when the two ends share a holder.
    pub fn sees(&self, from: End, to: End) -> bool {
        self.walk(from, to).is_some()
    }

    /// The polygons a walk of the straight XZ segment from `from` to `to` passes, from a holder
    /// of `from` to a holder of `to` (through vertices, the polygons in between are left out), or
    /// `None` when the segment cannot be walked ([`LayeredOracle::sees`]).
    pub fn walk(&self, from: End, to: End) -> Option<Vec<u32>> {
        let (p, q) = (self.position(from), self.position(to));
        let goal = self.holders(to);
        let first = self.holders(from);
        if p == q {
            return first.iter().find(|r| goal.contains(r)).map(|&r| vec![r]);
        }
        // (polygon, index in `seen` of the polygon it was entered from, or `usize::MAX`)
        let mut seen: Vec<(u32, usize)> = first.iter().map(|&r| (r, usize::MAX)).collect();
        let mut todo: Vec<usize> = (0..first.len()).rev().collect();
        while let Some(i) = todo.pop() {
            let r = seen[i].0;
            if goal.contains(&r) {
                let mut chain = vec![r];
                let mut at = seen[i].1;
                while at != usize::MAX {
                    chain.push(seen[at].0);
                    at = seen[at].1;
                }
                chain.reverse();
                return Some(chain);
            }
            // The rest of the segment lies in `r`, but `r` holds the goal's XZ point on another
            // sheet of the surface: the segment ends there.
            if self.contains(r, q) {
                continue;
            }
            // The segment leaves `r` at the far end of its chord: on the edges that have `q`
            // strictly outside and meet the segment's line.
            let (ring, links) = (&self.rings[r as usize], &self.links[r as usize]);
            let n = ring.len();
            for k in 0..n {
                let (a, b) = (ring[k], ring[(k + 1) % n]);
                let (pa, pb) = (self.verts[a as usize], self.verts[b as usize]);
                if orient2d(pa, pb, q) >= 0.0 || !line_meets(p, q, pa, pb) {
                    continue;
                }
                let next: &[u32] = if orient2d(p, q, pa) == 0.0 {
                    &self.around[a as usize]
                } else if orient2d(p, q, pb) == 0.0 {
                    &self.around[b as usize]
                } else if let EdgeLink::Polygon(t) = &links[k] {
                    std::slice::from_ref(t)
                } else {
                    &[]
                };
                for &t in next {
                    if !seen.iter().any(|e| e.0 == t) {
                        seen.push((t, i));
                        todo.push(seen.len() - 1);
                    }
                }
            }
        }
        None
    }

    /// The taut edges of node `i` (computed once).
    fn node_edges(&mut self, i: usize) -> &[(usize, f64)] {
        if self.edges[i].is_none() {
            let v = self.nodes[i];
            let c = self.verts[v as usize];
            let list = (0..self.nodes.len())
                .filter(|&j| j != i)
                .filter_map(|j| {
                    let w = self.nodes[j];
                    let d = self.verts[w as usize];
                    let ok = self.taut_at(v, d) && self.taut_at(w, c) && self.sees(End::Vertex(v), End::Vertex(w));
                    ok.then(|| (j, dist(c, d)))
                })
                .collect();
            self.edges[i] = Some(list);
        }
        self.edges[i].as_deref().expect("just computed")
    }

    /// The shortest walk from `start` to `goal`: its XZ length and the vertices it bends at, or
    /// `None` when the goal cannot be reached.
    pub fn shortest(&mut self, start: End, goal: End) -> Option<OraclePath> {
        let (s, g) = (self.position(start), self.position(goal));
        if self.sees(start, goal) {
            return Some(OraclePath { length: dist(s, g), turns: Vec::new() });
        }
        let n = self.nodes.len();
        let mut d = vec![f64::INFINITY; n];
        let mut from = vec![usize::MAX; n];
        let mut done = vec![false; n];
        let mut heap = BinaryHeap::new();
        for (i, &v) in self.nodes.iter().enumerate() {
            if self.taut_at(v, s) && self.sees(start, End::Vertex(v)) {
                d[i] = dist(s, self.verts[v as usize]);
                heap.push(Entry(d[i], i));
            }
        }
        let (mut best, mut last) = (f64::INFINITY, usize::MAX);
        while let Some(Entry(du, u)) = heap.pop() {
            if done[u] || du > d[u] {
                continue;
            }
            if du >= best {
                break;
            }
            done[u] = true;
            let (vu, cu) = (self.nodes[u], self.verts[self.nodes[u] as usize]);
            if self.taut_at(vu, g) && self.sees(End::Vertex(vu), goal) && du + dist(cu, g) < best {
                best = du + dist(cu, g);
                last = u;
            }
            let edges = self.node_edges(u).to_vec();
            for (w, len) in edges {
                if du + len < d[w] {
                    d[w] = du + len;
                    from[w] = u;
                    heap.push(Entry(d[w], w));
                }
            }
        }
        if !best.is_finite() {
            return None;
        }
        let mut turns = Vec::new();
        while last != usize::MAX {
            turns.push(self.nodes[last]);
            last = from[last];
        }
        turns.reverse();
        Some(OraclePath { length: best, turns })
    }
}

#[cfg(test)]
#[path = "layered_oracle_tests.rs"]
mod tests;
