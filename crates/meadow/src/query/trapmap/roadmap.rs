//! The trapezoid roadmap planner (de Berg et al., ch. 6.1 and 13): the classic path planner
//! that navmeshes replaced, kept to compare against.
//!
//! Per layer, a trapezoidal map of the layer's boundary (its walls, and the portals into other
//! layers, called seams here) splits the free space into trapezoids. Roadmap nodes sit at each
//! trapezoid's centre and at the midpoint of each wall piece two trapezoids share; edges join a
//! trapezoid's centre to its wall pieces. A seam gets a node at its midpoint, joined to the
//! trapezoids on both of its layers through a node at the middle of the piece of the seam that
//! bounds each (so the roadmap edge runs along the seam). Every roadmap edge lies in one closed
//! trapezoid or along a seam, so a roadmap path never leaves the walkable area. A query joins
//! the start and goal to their trapezoids' centres and runs A* (3D lengths) in between.

use super::{Tie, TrapMap, NONE};
use crate::geom::Point2;
use crate::query::{dist3, polyline_length, xz, OpenEntry, Path, PathError, QueryMesh};
use std::collections::BinaryHeap;

/// How far round a roadmap node (metres, XZ) the height lookup searches for a polygon of its
/// layer when rounding put the node just outside every one (nodes are computed in floating
/// point on the boundary of trapezoids, which may be a wall).
const HEIGHT_REACH: f64 = 1e-3;

/// One layer's map and the roadmap node at each of its trapezoids' centres.
#[derive(Clone, Debug)]
struct RoadLayer {
    layer: u16,
    /// `None` when the layer's boundary is not a planar subdivision.
    map: Option<TrapMap>,
    centre: Vec<u32>,
}

/// The trapezoid roadmap of a mesh (see the module docs).
#[derive(Clone, Debug, Default)]
pub(crate) struct Roadmap {
    layers: Vec<RoadLayer>,
    nodes: Vec<[f64; 3]>,
    /// `adjacency[adj_start[n] .. adj_start[n + 1]]`: node `n`'s neighbours and edge lengths.
    adj_start: Vec<u32>,
    adjacency: Vec<(u32, f64)>,
    /// The search's per-node tables, reused between queries (a query that finds them in use by
    /// another thread allocates its own).
    scratch: ScratchCell,
}

/// A* tables indexed by roadmap node; an entry is valid when its stamp is the current search's.
#[derive(Debug, Default)]
struct Scratch {
    generation: u32,
    reached: Vec<u32>,
    closed: Vec<u32>,
    cost: Vec<f64>,
    parent: Vec<u32>,
    open: BinaryHeap<OpenEntry>,
}

impl Scratch {
    /// Starts a search over `n` nodes: every entry invalid.
    fn begin(&mut self, n: usize) {
        if self.reached.len() != n || self.generation == u32::MAX {
            *self = Scratch {
                reached: vec![0; n],
                closed: vec![0; n],
                cost: vec![0.0; n],
                parent: vec![NONE; n],
                ..Scratch::default()
            };
        }
        self.generation += 1;
        self.open.clear();
    }
}

/// [`Scratch`] behind a lock; cloning gives a fresh one.
#[derive(Debug, Default)]
struct ScratchCell(std::sync::Mutex<Scratch>);

impl Clone for ScratchCell {
    fn clone(&self) -> Self {
        ScratchCell::default()
    }
}

/// An XZ segment as the exact bits of its lexicographically ordered endpoints.
type SegmentKey = [u64; 4];

fn segment_key(a: Point2, b: Point2) -> SegmentKey {
    let (a, b) = ([a[0] + 0.0, a[1] + 0.0], [b[0] + 0.0, b[1] + 0.0]);
    let (lo, hi) = if super::lex_cmp(a, b).is_le() { (a, b) } else { (b, a) };
    [lo[0].to_bits(), lo[1].to_bits(), hi[0].to_bits(), hi[1].to_bits()]
}

/// Height of layer `layer`'s surface at the XZ point `q`: on the lowest-numbered polygon of the
/// layer holding it, else on the nearest one within [`HEIGHT_REACH`], else (a point the map put
/// in the layer's walkable area that rounding moved off it) on the layer's nearest polygon.
fn layer_height(mesh: &QueryMesh, layer: u16, q: Point2) -> f64 {
    let polygons = &mesh.mesh.data().polygons;
    let mut inside: Option<u32> = None;
    let mut nearest: Option<(f64, u32)> = None;
    let reach = [q[0] - HEIGHT_REACH, q[1] - HEIGHT_REACH, q[0] + HEIGHT_REACH, q[1] + HEIGHT_REACH];
    mesh.index.for_each_candidate(&reach, |poly| {
        if polygons[poly as usize].layer != layer {
            return;
        }
        if mesh.polygon_contains(poly, q) {
            inside = Some(inside.map_or(poly, |p| p.min(poly)));
        } else {
            let c = mesh.closest_point_on_polygon(poly, q);
            let d = crate::query::dist2(xz(c), q);
            if nearest.is_none_or(|(bd, bp)| d < bd || (d == bd && poly < bp)) {
                nearest = Some((d, poly));
            }
        }
    });
    if let Some(poly) = inside.or(nearest.map(|n| n.1)) {
        return mesh.surface_height(poly, q);
    }
    // Rare: scan the layer. Every mapped layer has polygons, so the last arm is never taken.
    let mut best: Option<(f64, u32)> = None;
    for (poly, p) in polygons.iter().enumerate() {
        if p.layer == layer {
            let d = crate::query::dist2(xz(mesh.closest_point_on_polygon(poly as u32, q)), q);
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, poly as u32));
            }
        }
    }
    best.map_or(0.0, |(_, poly)| mesh.surface_height(poly, q))
}

impl Roadmap {
    /// Builds the maps and the roadmap of every layer.
    pub(crate) fn build(mesh: &QueryMesh) -> Roadmap {
        let data = mesh.mesh.data();
        let mut roadmap = Roadmap::default();
        let mut edges_out: Vec<(u32, u32)> = Vec::new();
        // Seams: the XZ segment, its 3D midpoint, its node (made on first use).
        let mut seams: Vec<(SegmentKey, [f64; 3], u32)> = Vec::new();
        let mut boundaries = Vec::new();
        for (layer, polys) in mesh.mesh.polygons_by_layer() {
            let mut edges = Vec::new();
            for &poly in &polys {
                for (k, &[a, b]) in mesh.poly_edges(poly).iter().enumerate() {
                    let h = mesh.poly_first(poly) + k;
                    match mesh.edge_neighbour(h) {
                        Some(q) if data.polygons[q as usize].layer == layer => continue,
                        Some(_) => {
                            let mid = [(a[0] + b[0]) * 0.5, (a[1] + b[1]) * 0.5, (a[2] + b[2]) * 0.5];
                            seams.push((segment_key(xz(a), xz(b)), mid, NONE));
                        }
                        None => {}
                    }
                    edges.push((xz(a), xz(b), poly));
                }
            }
            boundaries.push((layer, edges));
        }
        seams.sort_by_key(|x| x.0);
        seams.dedup_by(|x, y| x.0 == y.0);
        for (layer, edges) in boundaries {
            let map = TrapMap::build(&edges, |a, b| (a == NONE) == (b == NONE)).ok();
            let mut road = RoadLayer { layer, map: None, centre: Vec::new() };
            if let Some(map) = map {
                roadmap.add_layer(mesh, &map, layer, &mut road.centre, &mut seams, &mut edges_out);
                road.map = Some(map);
            }
            roadmap.layers.push(road);
        }
        // Compressed adjacency, neighbours in edge order (deterministic).
        let n = roadmap.nodes.len();
        let mut start = vec![0u32; n + 1];
        for &(a, b) in &edges_out {
            start[a as usize + 1] += 1;
            start[b as usize + 1] += 1;
        }
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start[..n].to_vec();
        roadmap.adjacency = vec![(0, 0.0); start[n] as usize];
        for &(a, b) in &edges_out {
            let len = dist3(roadmap.nodes[a as usize], roadmap.nodes[b as usize]);
            for (from, to) in [(a, b), (b, a)] {
                roadmap.adjacency[fill[from as usize] as usize] = (to, len);
                fill[from as usize] += 1;
            }
        }
        roadmap.adj_start = start;
        roadmap
    }

    fn add_node(&mut self, p: [f64; 3]) -> u32 {
        self.nodes.push(p);
        self.nodes.len() as u32 - 1
    }

    /// Adds layer `layer`'s nodes and edges: centres, shared wall pieces, seam pieces.
    fn add_layer(
        &mut self,
        mesh: &QueryMesh,
        map: &TrapMap,
        layer: u16,
        centre: &mut Vec<u32>,
        seams: &mut [(SegmentKey, [f64; 3], u32)],
        edges: &mut Vec<(u32, u32)>,
    ) {
        let traps = map.trapezoids();
        let mut mids = Vec::with_capacity(traps.len());
        for t in 0..traps.len() as u32 {
            let c = map.corners(t);
            let mid = [(c[0][0] + c[1][0] + c[2][0] + c[3][0]) * 0.25, (c[0][1] + c[1][1] + c[2][1] + c[3][1]) * 0.25];
            mids.push(mid);
            centre.push(self.add_node([mid[0], layer_height(mesh, layer, mid), mid[1]]));
        }
        // Neighbours across a wall: the trapezoids right of it share its point and their top or
        // bottom segment.
        let mut by_left: Vec<(u32, u32)> = traps.iter().enumerate().map(|(i, t)| (t.leftp, i as u32)).collect();
        by_left.sort_unstable();
        for (i, tr) in traps.iter().enumerate() {
            let r = tr.rightp;
            let from = by_left.partition_point(|e| e.0 < r);
            for &(_, j) in by_left[from..].iter().take_while(|e| e.0 == r) {
                let other = traps[j as usize];
                if other.top != tr.top && other.bottom != tr.bottom {
                    continue;
                }
                let rp = map.point_at(r);
                let lo = map.z_on(tr.bottom, rp).max(map.z_on(other.bottom, rp));
                let hi = map.z_on(tr.top, rp).min(map.z_on(other.top, rp));
                let m = [rp[0], (lo + hi) * 0.5];
                let w = self.add_node([m[0], layer_height(mesh, layer, m), m[1]]);
                edges.push((centre[i], w));
                edges.push((w, centre[j as usize]));
            }
        }
        // Seam pieces.
        for (i, tr) in traps.iter().enumerate() {
            for s in [tr.top, tr.bottom] {
                let seg = map.segment(s);
                let key = segment_key(map.point_at(seg.a), map.point_at(seg.b));
                let Ok(k) = seams.binary_search_by(|e| e.0.cmp(&key)) else { continue };
                if seams[k].2 == NONE {
                    seams[k].2 = self.add_node(seams[k].1);
                }
                let c = map.corners(i as u32);
                let x = (c[0][0] + c[1][0]) * 0.5;
                let piece = [x, map.z_on(s, [x, mids[i][1]])];
                let p = self.add_node([piece[0], layer_height(mesh, layer, piece), piece[1]]);
                edges.push((centre[i], p));
                edges.push((p, seams[k].2));
            }
        }
    }

    /// The trapezoid (and its centre node) holding `loc` on its polygon's layer.
    fn place(&self, mesh: &QueryMesh, polygon: u32, q: Point2) -> Option<(u32, u32)> {
        let layer = mesh.mesh.data().polygons[polygon as usize].layer;
        let i = self.layers.binary_search_by_key(&layer, |l| l.layer).ok()?;
        let road = &self.layers[i];
        let map = road.map.as_ref()?;
        // Resolve a point on the boundary towards the inside of its polygon (the vertex average
        // of a convex polygon is inside it).
        let n = mesh.poly_len(polygon) as f64;
        let inner = (0..mesh.poly_len(polygon))
            .map(|k| xz(mesh.poly_vertex(polygon, k)))
            .fold([0.0, 0.0], |s, p| [s[0] + p[0] / n, s[1] + p[1] / n]);
        let tie = if inner == q { Tie::Up } else { Tie::Toward(inner) };
        let (t, _) = map.locate(q, tie);
        let (t, _) = if t == NONE { map.locate(q, Tie::Up) } else { (t, false) };
        (t != NONE).then(|| (t, road.centre[t as usize]))
    }
}

impl QueryMesh {
    /// A path from `start` to `goal` on the trapezoid roadmap (see the `trapmap::roadmap`
    /// module): far from shortest, kept as the baseline that navmesh paths improve on. Built on
    /// first use; ignores off-mesh links and area costs. [`PathError::Unreachable`] when no
    /// roadmap path joins them, including when a layer's boundary could not be mapped.
    /// `corridor` holds only the start and goal polygons.
    pub fn find_roadmap_path(&self, start: [f64; 3], goal: [f64; 3]) -> Result<Path, PathError> {
        let (s, g) = crate::query::locate_endpoints(self, start, goal)?;
        let roadmap = self.roadmap.get_or_init(|| Roadmap::build(self));
        let (ts, cs) = roadmap.place(self, s.polygon, xz(s.point)).ok_or(PathError::Unreachable)?;
        let (tg, cg) = roadmap.place(self, g.polygon, xz(g.point)).ok_or(PathError::Unreachable)?;
        let corridor = if s.polygon == g.polygon { vec![s.polygon] } else { vec![s.polygon, g.polygon] };
        let same_layer =
            self.mesh.data().polygons[s.polygon as usize].layer == self.mesh.data().polygons[g.polygon as usize].layer;
        if same_layer && ts == tg {
            // One convex trapezoid holds both.
            let points = vec![s.point, g.point];
            return Ok(Path { length: dist3(s.point, g.point), points, corridor, partial: false, links: Vec::new() });
        }
        let nodes = roadmap.search(cs, cg).ok_or(PathError::Unreachable)?;
        let mut points = Vec::with_capacity(nodes.len() + 2);
        points.push(s.point);
        points.extend(nodes.iter().map(|&n| roadmap.nodes[n as usize]));
        points.push(g.point);
        Ok(Path { length: polyline_length(&points), points, corridor, partial: false, links: Vec::new() })
    }
}

impl Roadmap {
    /// A* over the roadmap from node `from` to node `to` (3D lengths, straight-line heuristic):
    /// the nodes in order, or `None` when `to` cannot be reached.
    fn search(&self, from: u32, to: u32) -> Option<Vec<u32>> {
        let mut own = Scratch::default();
        let mut guard = self.scratch.0.try_lock().ok();
        let scratch = guard.as_deref_mut().unwrap_or(&mut own);
        scratch.begin(self.nodes.len());
        let stamp = scratch.generation;
        let goal = self.nodes[to as usize];
        let (from_i, to_i) = (from as usize, to as usize);
        scratch.reached[from_i] = stamp;
        scratch.cost[from_i] = 0.0;
        scratch.parent[from_i] = NONE;
        scratch.open.push(OpenEntry { f: dist3(self.nodes[from_i], goal), node: from });
        while let Some(OpenEntry { node, .. }) = scratch.open.pop() {
            let at = node as usize;
            if std::mem::replace(&mut scratch.closed[at], stamp) == stamp {
                continue;
            }
            if at == to_i {
                let mut path = vec![to];
                let mut back = to;
                while scratch.parent[back as usize] != NONE {
                    back = scratch.parent[back as usize];
                    path.push(back);
                }
                path.reverse();
                return Some(path);
            }
            let range = self.adj_start[at] as usize..self.adj_start[at + 1] as usize;
            for &(next, len) in &self.adjacency[range] {
                let (n, c) = (next as usize, scratch.cost[at] + len);
                if scratch.closed[n] == stamp {
                    continue; // settled (a consistent heuristic: no shorter way comes later)
                }
                if scratch.reached[n] != stamp || c < scratch.cost[n] {
                    scratch.reached[n] = stamp;
                    scratch.cost[n] = c;
                    scratch.parent[n] = node;
                    scratch.open.push(OpenEntry { f: c + dist3(self.nodes[n], goal), node: next });
                }
            }
        }
        None
    }

    /// Number of roadmap nodes.
    #[cfg(test)]
    pub(crate) fn node_count(&self) -> usize {
        self.nodes.len()
    }
}
