//! Landmark lower bounds (ALT) for the midpoint A*: exact portal-graph distances from a few
//! far-apart portals, which bound the remaining cost far more tightly than the straight line.
//!
//! The portal graph here is undirected: its nodes are portals (an edge shared by two polygons,
//! both half-edges at once) and two portals of one polygon are joined by the 3D distance
//! between their midpoints. Every A* step moves between two portals of one polygon at that
//! distance times an area cost of at least the filter's smallest cost `s`, so the A* cost from a
//! node to the goal is at least `s` times the graph distance from its portal to some portal of
//! the goal polygon. For a landmark `L` with graph distances `D(L, ·)`, the triangle inequality
//! gives, for every goal portal `p`, `D(n, p) >= D(L, p) - D(L, n)` and `>= D(L, n) - D(L, p)`;
//! the bound used is the largest of these over the landmarks, minimised over the goal portals.
//! It is consistent (each term changes along a graph edge by at most the edge's length), so
//! the A* still returns the optimum of the midpoint graph and never reopens a node.
//!
//! Landmarks are chosen per connected component of the portal graph (farthest-point order,
//! deterministic), so every node's slots refer to landmarks of its own component. The table
//! takes `8 × LANDMARKS` bytes per half-edge (32 bytes: about 32 MB for a million half-edges).

use super::links::LinkState;
use super::{dist3, QueryMesh, NONE};
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Landmarks per component (fewer in components with fewer portals). Four bound well enough:
/// more tighten the bound a little but each pushed node then reads a longer row (median query
/// time on dungeon and undulating against 8 landmarks: 2: -3% / +5%, 4: -3.5% / -3%,
/// 12: +6% / +7%).
pub(crate) const LANDMARKS: usize = 4;

/// Graph distances from each component's landmarks to every portal.
#[derive(Clone, Debug)]
pub(crate) struct Landmarks {
    /// Per row (every half-edge, then two per active off-mesh link), [`LANDMARKS`] slots: the
    /// distance from the `k`-th landmark of its component to its portal or link end point
    /// (`INFINITY` in unused slots and on non-portal edges).
    dist: Vec<[f64; LANDMARKS]>,
}

/// Per query: the landmark distances of the goal polygon's portals.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GoalBounds {
    /// Per slot: the smallest and largest distance from the landmark to a goal portal.
    near: [f64; LANDMARKS],
    far: [f64; LANDMARKS],
}

/// A Dijkstra queue entry: distance (as ordered bits, all distances being non-negative) and node.
type Entry = Reverse<(u64, u32)>;

impl Landmarks {
    /// Landmark distances for `mesh` with the off-mesh links of `links`.
    ///
    /// The graph's nodes are the portals (both half-edges of one at once) and the end points of
    /// the links (rows after the half-edges: active link `i` has rows `H + 2i` and `H + 2i + 1`).
    /// Two nodes on one polygon are joined by their 3D distance, and a link's two end points by
    /// its cost before the area multiplier, both ways: every A* step (area costs and link area
    /// costs at least the filter's smallest cost `s`) costs at least `s` times a path here, so the
    /// bounds stay admissible and consistent with links, one-way ones included.
    pub(crate) fn build(mesh: &QueryMesh, links: &LinkState) -> Landmarks {
        let halves = mesh.half_edge_count();
        let rows = halves + 2 * links.active_count();
        // Each component's nodes, in row order.
        let component = links.components();
        let count = component.iter().map(|&c| c as usize + 1).max().unwrap_or(0);
        let mut members: Vec<Vec<u32>> = vec![Vec::new(); count];
        for h in (0..halves).filter(|&h| mesh.edge_neighbour(h).is_some()) {
            members[component[mesh.edge_owner[h] as usize] as usize].push(h as u32);
        }
        for r in halves..rows {
            let (_, poly) = links.point((r - halves) / 2, (r - halves) % 2);
            members[component[poly as usize] as usize].push(r as u32);
        }
        let graph = Graph { mesh, links, halves };
        let mut dist = vec![[f64::INFINITY; LANDMARKS]; rows];
        let mut from = vec![f64::INFINITY; rows];
        let mut heap: BinaryHeap<Entry> = BinaryHeap::new();
        let mut nearest = vec![f64::INFINITY; rows];
        for nodes in &members {
            let Some(&first) = nodes.first() else { continue };
            // The first landmark is the node farthest from the component's first node; each
            // next one the node farthest from all landmarks chosen so far.
            graph.shortest_from(nodes, first, &mut from, &mut heap);
            let mut next = farthest(nodes, &from);
            for n in &nodes[..] {
                nearest[*n as usize] = f64::INFINITY;
            }
            #[allow(clippy::needless_range_loop)] // `k` is the slot of every node's row
            for k in 0..LANDMARKS.min(nodes.len()) {
                graph.shortest_from(nodes, next, &mut from, &mut heap);
                for &h in nodes {
                    let d = from[h as usize];
                    dist[h as usize][k] = d;
                    nearest[h as usize] = nearest[h as usize].min(d);
                }
                next = farthest(nodes, &nearest);
            }
        }
        Landmarks { dist }
    }

    /// The landmark distances of the ways into `goal_poly`: its portals and the link end points
    /// on it.
    pub(crate) fn goal_bounds(&self, mesh: &QueryMesh, links: &LinkState, goal_poly: u32) -> GoalBounds {
        let mut b = GoalBounds { near: [f64::INFINITY; LANDMARKS], far: [f64::NEG_INFINITY; LANDMARKS] };
        let first = mesh.poly_first(goal_poly);
        let portals = (first..first + mesh.poly_len(goal_poly)).filter(|&h| mesh.edge_neighbour(h).is_some());
        for row in portals.chain(links.points_on(goal_poly).iter().map(|&r| r as usize)) {
            for ((near, far), &d) in b.near.iter_mut().zip(&mut b.far).zip(&self.dist[row]) {
                *near = near.min(d);
                *far = far.max(d);
            }
        }
        b
    }

    /// A lower bound on the graph distance from node `row` (a portal's half-edge, or a link end
    /// point's row) to the goal polygon's ways in (0 when nothing better is known). `row` must
    /// be in the goal's component.
    #[inline]
    pub(crate) fn lower_bound(&self, row: u32, goal: &GoalBounds) -> f64 {
        let d = &self.dist[row as usize];
        let mut best = 0.0f64;
        for ((&near, &far), &here) in goal.near.iter().zip(&goal.far).zip(d) {
            // Unused slots hold infinities on both sides; their differences are NaN or
            // negative infinity, which `max` ignores.
            best = best.max(near - here).max(here - far);
        }
        best
    }
}

/// The node with the largest finite `value` in `nodes` (the lowest row on ties).
fn farthest(nodes: &[u32], value: &[f64]) -> u32 {
    let mut best = (f64::NEG_INFINITY, nodes[0]);
    for &h in nodes {
        let v = value[h as usize];
        if v.is_finite() && v > best.0 {
            best = (v, h);
        }
    }
    best.1
}

/// The undirected graph of portals and link end points (see [`Landmarks::build`]).
struct Graph<'a> {
    mesh: &'a QueryMesh,
    links: &'a LinkState,
    halves: usize,
}

impl Graph<'_> {
    /// Dijkstra from node `source` over the component whose nodes are `nodes`; fills `dist`
    /// there (both half-edges of a portal alike). Only the component's entries are reset, so
    /// that building every component's landmarks stays linear in the mesh size on levels with
    /// many islands.
    fn shortest_from(&self, nodes: &[u32], source: u32, dist: &mut [f64], heap: &mut BinaryHeap<Entry>) {
        let mesh = self.mesh;
        for &h in nodes {
            dist[h as usize] = f64::INFINITY;
        }
        heap.clear();
        dist[source as usize] = 0.0;
        if (source as usize) < self.halves {
            let twin = mesh.half_edges[source as usize].twin;
            if twin != NONE {
                dist[twin as usize] = 0.0;
            }
        }
        heap.push(Reverse((0f64.to_bits(), source)));
        while let Some(Reverse((bits, x))) = heap.pop() {
            let d = f64::from_bits(bits);
            if d > dist[x as usize] {
                continue;
            }
            let mut relax = |y: u32, nd: f64, heap: &mut BinaryHeap<Entry>| {
                if nd < dist[y as usize] {
                    dist[y as usize] = nd;
                    if (y as usize) < self.halves {
                        let twin = mesh.half_edges[y as usize].twin;
                        if twin != NONE {
                            dist[twin as usize] = nd;
                        }
                    }
                    heap.push(Reverse((nd.to_bits(), y)));
                }
            };
            // Where the node is, and the polygons it lies on (a portal lies on both sides).
            let (here, sides) = if (x as usize) < self.halves {
                let he = mesh.half_edges[x as usize];
                let twin_owner = if he.twin == NONE { NONE } else { mesh.edge_owner[he.twin as usize] };
                (he.mid, [mesh.edge_owner[x as usize], twin_owner])
            } else {
                let r = x as usize - self.halves;
                let (i, end) = (r / 2, r % 2);
                let partner = (self.halves + 2 * i + 1 - end) as u32;
                relax(partner, d + self.links.active_cost(i), heap);
                let (p, poly) = self.links.point(i, end);
                (p, [poly, NONE])
            };
            for poly in sides.into_iter().filter(|&p| p != NONE) {
                let first = mesh.poly_first(poly);
                for e in first..first + mesh.poly_len(poly) {
                    let other = mesh.half_edges[e];
                    if other.neighbour == NONE || e as u32 == x || other.twin == x {
                        continue;
                    }
                    relax(e as u32, d + dist3(here, other.mid), heap);
                }
                for &r in self.links.points_on(poly) {
                    if r != x {
                        let (p, _) = self.links.point((r as usize - self.halves) / 2, (r as usize - self.halves) % 2);
                        relax(r, d + dist3(here, p), heap);
                    }
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testmesh::{random_blocked, GridSpec};
    use crate::NavMesh;

    /// All-pairs portal distances by Floyd–Warshall over the undirected portal graph, built
    /// naively (every pair of portals of a polygon joined), indexed by half-edge.
    #[allow(clippy::needless_range_loop)] // index loops mirror the textbook algorithm
    fn floyd(mesh: &QueryMesh) -> Vec<Vec<f64>> {
        let n = mesh.half_edge_count();
        let mut d = vec![vec![f64::INFINITY; n]; n];
        let portal = |h: usize| mesh.half_edges[h].neighbour != NONE;
        for a in 0..n {
            if !portal(a) {
                continue;
            }
            d[a][a] = 0.0;
            let twin = mesh.half_edges[a].twin as usize;
            d[a][twin] = 0.0;
            for b in 0..n {
                let same_poly = [a, twin].iter().any(|&x| mesh.edge_owner[x] == mesh.edge_owner[b]);
                if portal(b) && same_poly {
                    let w = dist3(mesh.half_edges[a].mid, mesh.half_edges[b].mid);
                    let tb = mesh.half_edges[b].twin as usize;
                    for t in [b, tb] {
                        d[a][t] = d[a][t].min(w);
                        d[t][a] = d[t][a].min(w);
                    }
                }
            }
        }
        for k in 0..n {
            for i in 0..n {
                for j in 0..n {
                    let via = d[i][k] + d[k][j];
                    if via < d[i][j] {
                        d[i][j] = via;
                    }
                }
            }
        }
        d
    }

    #[test]
    fn bounds_never_exceed_the_portal_graph_distance_and_are_consistent() {
        for (seed, triangulate) in [(4u64, false), (5, true)] {
            let spec = GridSpec {
                cols: 9,
                rows: 7,
                triangulate,
                blocked: random_blocked(9, 7, 0.25, seed),
                ..GridSpec::default()
            };
            let mesh = QueryMesh::new(NavMesh::new(spec.build()).expect("valid grid"));
            let lm = Landmarks::build(&mesh, &mesh.link_state());
            let d = floyd(&mesh);
            let portals: Vec<u32> =
                (0..mesh.half_edge_count() as u32).filter(|&h| mesh.half_edges[h as usize].neighbour != NONE).collect();
            let mut informative = 0;
            for goal in 0..mesh.mesh().polygon_count() as u32 {
                let goal_portals: Vec<usize> = (mesh.poly_first(goal)..mesh.poly_first(goal) + mesh.poly_len(goal))
                    .filter(|&h| mesh.half_edges[h].neighbour != NONE)
                    .collect();
                if goal_portals.is_empty() {
                    continue;
                }
                let bounds = lm.goal_bounds(&mesh, &mesh.link_state(), goal);
                for &h in &portals {
                    if !mesh.connected(mesh.edge_owner[h as usize], goal) {
                        continue;
                    }
                    let truth = goal_portals.iter().map(|&p| d[h as usize][p]).fold(f64::INFINITY, f64::min);
                    let lb = lm.lower_bound(h, &bounds);
                    assert!(lb <= truth + 1e-9, "bound {lb} above distance {truth}");
                    if lb > 0.5 * truth {
                        informative += 1;
                    }
                    // Consistency: along every graph edge the bound drops by at most its length.
                    for &other in &portals {
                        let w = d[h as usize][other as usize];
                        let adjacent = [h, mesh.half_edges[h as usize].twin]
                            .iter()
                            .any(|&x| mesh.edge_owner[x as usize] == mesh.edge_owner[other as usize]);
                        if adjacent && mesh.connected(mesh.edge_owner[other as usize], goal) {
                            assert!(lb <= w + lm.lower_bound(other, &bounds) + 1e-9);
                        }
                    }
                }
            }
            // The bounds must carry information, or the test would pass with all zeros.
            assert!(informative > portals.len(), "only {informative} informative bounds");
        }
    }

    #[test]
    fn separate_components_are_not_connected() {
        // A wall of blocked cells splits the grid into two components.
        let (cols, rows) = (6, 3);
        let blocked: Vec<bool> = (0..cols * rows).map(|i| i % cols == 3).collect();
        let spec = GridSpec { cols, rows, blocked, ..GridSpec::default() };
        let mesh = QueryMesh::new(NavMesh::new(spec.build()).expect("valid grid"));
        let left = mesh.locate([0.5, 0.0, 0.5]).expect("left cell").polygon;
        let left2 = mesh.locate([2.5, 0.0, 2.5]).expect("left cell").polygon;
        let right = mesh.locate([5.5, 0.0, 0.5]).expect("right cell").polygon;
        assert!(mesh.connected(left, left2));
        assert!(!mesh.connected(left, right));
    }
}
