//! Exact shortest paths over the baked corner visibility graph
//! ([`VisibilityGraph`](crate::asset::VisibilityGraph)): the answer of
//! [`ShortestPathQuery::find_shortest_path`](super::ShortestPathQuery::find_shortest_path) when the
//! mesh carries a graph and the query is one the graph answers exactly (see that method).
//!
//! A taut path turns only at corners and its legs between corners are graph edges, so only its
//! first and last legs need work at query time. A goal the start sees is answered with the
//! straight segment. Otherwise one best-first search runs over three kinds of entries:
//! visibility windows seen from the start (each step through a portal narrows an angular
//! window between two rays from the start through exact mesh vertices, so every in/out decision
//! is an exact orientation test, like Polyanya's observable successors), the graph's corner
//! nodes, and the goal. Every entry is keyed by a lower bound of the paths through it: a window
//! by the shortest way from the start through its interval on the portal to the goal, a corner
//! by its cost plus the straight distance to the goal. A corner vertex of a polygon reached
//! inside a window is seen; it is kept only where the path can turn taut there (both wall
//! neighbours of the corner on one side of the sight line, the rule the bake keeps edges by),
//! and gets its cost. Windows whose key exceeds the answer are never opened, so the walk stays
//! near the corridor instead of covering everything the start sees.
//!
//! A corner taken is left only the way a shortest path can leave it: turning round the corner's
//! walls, on the side of the line the path arrived on, or straight on (see `Bend`). A path that
//! turned the other way could be cut short beside the corner, so the edges and the goal ray
//! skipped this way are on no shortest path (on dungeon, 17 edges and 1.7 of 4.8 goal rays per
//! query). The arrival is through the corner's final parent, known once the corner's cost is
//! final, which is when it is taken.
//!
//! The last leg is found lazily: when a corner's cost is final, and a path can turn taut there
//! towards the goal, one ray walked through the mesh from the corner tells whether it sees the
//! goal, and the goal is offered through it. Far fewer corners are taken than the goal sees
//! windows, so this costs less than a second window walk from the goal (which it replaced).
//! The corridor is then recovered by walking each leg through the mesh.
//!
//! Pinch vertices (several wedges at one vertex) are a node per wedge, taut in every direction;
//! a path may pass through the point where walkable sectors touch, so the nodes of one vertex
//! are joined at no cost, as the search without the graph turns at a pinch over its whole fan.

use super::shortest::geometry::{lerp_at, via_interval};
use super::shortest::{lies_on_edge, vertex_at, VertexFans};
use super::{dist2, polyline_length, xz, Location, Path, QueryMesh, NONE};
use crate::asset::VisibilityGraph;
use crate::geom::{orient2d, Point2};
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use walks::{holds_direction, leg_polygon, reaches_marked, walk_leg, walk_leg_to, Target, WALK_BRANCHES};

mod walks;

/// Per-mesh tables that tie the graph's nodes to the mesh (built on first use, then shared).
#[derive(Clone, Debug, Default)]
pub(crate) struct CornerTable {
    /// Per half-edge slot (index into `polygon_vertices`): the node whose wedge holds that
    /// polygon at that vertex, or `NONE`.
    slot_node: Vec<u32>,
    /// Per node: its two wall neighbours in XZ (the far ends of the walls bounding its wedge;
    /// the corner's own point where a wedge has no wall, which no line through the corner has
    /// on either side).
    walls: Vec<[Point2; 2]>,
    /// Per node: the next node at the same vertex (a cycle; the node itself when alone).
    sibling: Vec<u32>,
    /// Per node: its vertex in XZ (read for every edge a search looks at, so kept beside the
    /// other per-node tables rather than found through the mesh's vertices).
    points: Vec<Point2>,
    /// Per node: whether a path may arrive and leave in any direction: its vertex is a pinch
    /// (several wedges, walkable sectors touching at a point; a path may pass through a pinch
    /// from one wedge into another at any angle, so sight lines to it need not be taut, and the
    /// bake keeps its edges the same way), or its wedge wraps about a full turn or more
    /// (stacked layers whose walls cross in XZ), where the sides of a line its walls lie on do
    /// not tell which way a path turns round it.
    pub(crate) pinch: Vec<bool>,
}

/// How far below a full turn, in radians, a wedge's summed polygon angles may be and still
/// count as wrapping: the sum is rounded, and a wedge taken for wrapping only keeps more ways
/// out of its corner (the taut rule prunes for speed, never for correctness).
const WRAP_SLACK: f64 = 1e-6;

impl CornerTable {
    /// Builds the tables of `graph` on `mesh` by walking each node's wedge round its vertex.
    pub(crate) fn build(mesh: &QueryMesh, graph: &VisibilityGraph) -> CornerTable {
        let data = mesh.mesh().data();
        let n = graph.node_count();
        let mut slot_node = vec![NONE; data.polygon_vertices.len()];
        let mut walls = vec![[NONE; 2]; n];
        let mut sibling: Vec<u32> = (0..n as u32).collect();
        let mut last_at = vec![NONE; mesh.mesh().vertices().len()];
        let mut wraps = vec![false; n];
        let verts = mesh.mesh().vertices();
        for (node, wall) in walls.iter_mut().enumerate() {
            let v = graph.corners[node];
            let poly = graph.polygons[node];
            let at = xz(verts[v as usize]);
            // The wedge's angle: its polygons' angles at the vertex, `poly` counted once.
            let mut angle = 0.0;
            // Round the vertex through the edges leaving it (`out`) and through those ending at
            // it (`into`), each until a wall; a full turn (no wall) ends the walk as well.
            for (side, out) in [(1usize, true), (0usize, false)] {
                let mut q = poly;
                for _ in 0..=data.polygon_vertices.len().min(1 << 16) {
                    let Some((into, from)) = mesh.edges_at_vertex(q, v) else { break };
                    slot_node[from] = node as u32;
                    if out || q != poly {
                        let (a, b) = (
                            xz(verts[mesh.edge_vertices(into).0 as usize]),
                            xz(verts[mesh.edge_vertices(from).1 as usize]),
                        );
                        let (u, w) = ([b[0] - at[0], b[1] - at[1]], [a[0] - at[0], a[1] - at[1]]);
                        angle += (u[0] * w[1] - u[1] * w[0]).atan2(u[0] * w[0] + u[1] * w[1]);
                    }
                    let h = if out { from } else { into };
                    match mesh.edge_neighbour(h) {
                        Some(next) if next != poly => q = next,
                        Some(_) => break,
                        None => {
                            let (a, b) = mesh.edge_vertices(h);
                            wall[side] = if out { b } else { a };
                            break;
                        }
                    }
                }
            }
            let vi = v as usize;
            if last_at[vi] != NONE {
                // Splice into the vertex's cycle.
                let prev = last_at[vi] as usize;
                sibling.swap(prev, node);
            }
            last_at[vi] = node as u32;
            wraps[node] = angle > std::f64::consts::TAU - WRAP_SLACK;
        }
        let pinch = (0..n).map(|i| sibling[i] != i as u32 || wraps[i]).collect();
        let points: Vec<Point2> = graph.corners.iter().map(|&v| xz(verts[v as usize])).collect();
        let walls = walls
            .iter()
            .zip(&points)
            .map(|(w, &at)| w.map(|x| if x == NONE { at } else { xz(verts[x as usize]) }))
            .collect();
        CornerTable { slot_node, walls, sibling, points, pinch }
    }
}

impl QueryMesh {
    /// The corner tables of this mesh's visibility graph, if it has one.
    pub(crate) fn corner_table(&self) -> Option<&CornerTable> {
        let graph = self.mesh.visibility()?;
        Some(self.corner_table.get_or_init(|| CornerTable::build(self, graph)))
    }
}

/// An open entry: its key (a lower bound of the paths through it, as the bits of a non-negative
/// f64, which order as the numbers do) and its node; the lowest key pops first, ties to the
/// lower node. Integer keys compare faster than [`f64::total_cmp`], and the heap's pops and
/// pushes are a good part of a query.
type Open = Reverse<(u64, u32)>;

/// The open entry of `node` keyed `f` (a length: non-negative, never NaN).
#[inline]
fn open_entry(f: f64, node: u32) -> Open {
    Reverse((f.to_bits(), node))
}

/// Node id of the start in the A* arrays (after the graph's nodes).
#[inline]
fn start_id(n: usize) -> u32 {
    n as u32
}

/// Node id of the goal in the A* arrays.
#[inline]
fn goal_id(n: usize) -> u32 {
    n as u32 + 1
}

/// One step of the visibility walk: polygon `poly` entered through half-edge `entry` (`NONE`
/// for a polygon holding the point), seen through the window between the rays from the point
/// through `right` and `left`.
#[derive(Clone, Copy, Debug)]
struct Frame {
    poly: u32,
    entry: u32,
    right: Point2,
    left: Point2,
}

/// The two ends of a query in XZ.
#[derive(Clone, Copy, Debug)]
struct Ends {
    start: Point2,
    goal: Point2,
}

/// Reusable memory of graph queries (stamped per query, never cleared).
#[derive(Clone, Debug, Default)]
pub(crate) struct VisibilitySearch {
    generation: u32,
    /// Per A* node: best cost, its stamp, parent, closed stamp.
    g: Vec<f64>,
    stamp: Vec<u32>,
    parent: Vec<u32>,
    closed: Vec<u32>,
    /// Per polygon: stamped when it holds the goal.
    goal_poly: Vec<u32>,
    /// Cost of the best path to the goal found so far, and the node it arrives from.
    goal_cost: f64,
    goal_parent: u32,
    /// Heap node id of the first window (window `i` is `frame_base + i`).
    frame_base: u32,
    open: BinaryHeap<Open>,
    /// The visibility windows opened or queued this query.
    frames: Vec<Frame>,
    seeds: Vec<u32>,
    stack: Vec<Frame>,
    /// The path's nodes, goal side first.
    chain: Vec<u32>,
    /// The path's turning vertices, start side first.
    turns: Vec<u32>,
}

impl VisibilitySearch {
    /// Grows the per-node arrays to `n` graph nodes plus the start and the goal.
    fn reserve(&mut self, n: usize, polygons: usize) {
        if self.goal_poly.len() < polygons {
            self.goal_poly.resize(polygons, 0);
        }
        let want = n + 2;
        if self.g.len() < want {
            self.g.resize(want, 0.0);
            self.stamp.resize(want, 0);
            self.parent.resize(want, NONE);
            self.closed.resize(want, 0);
        }
    }

    /// Starts a new query generation (wiping the stamps once every 2^32 queries).
    fn next_generation(&mut self, n: usize, polygons: usize) -> u32 {
        self.reserve(n, polygons);
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            for v in [&mut self.stamp, &mut self.closed, &mut self.goal_poly] {
                v.fill(0);
            }
            self.generation = 1;
        }
        self.open.clear();
        self.generation
    }

    /// Answers a query the graph answers exactly (the caller checked the filter and links):
    /// writes the path and returns true, or returns false when the goal is unreachable. `start`
    /// and `goal` are checked locations in polygons of `mesh`.
    pub(crate) fn find(
        &mut self,
        mesh: &QueryMesh,
        graph: &VisibilityGraph,
        table: &CornerTable,
        start: Location,
        goal: Location,
        path: &mut Path,
    ) -> bool {
        path.clear();
        let fans = mesh.vertex_fans();
        let (sp, gp) = (xz(start.point), xz(goal.point));
        if start.polygon == goal.polygon || straight(mesh, &start, &goal, path) {
            if path.points.is_empty() {
                path.corridor.push(start.polygon);
                path.points.extend([start.point, goal.point]);
                path.length = polyline_length(&path.points);
            }
            return true;
        }
        // Polygons joined neither through portals nor at shared vertices: no path.
        if fans.component[start.polygon as usize] != fans.component[goal.polygon as usize] {
            return false;
        }
        let n = graph.node_count();
        let gen = self.next_generation(n, mesh.mesh().polygon_count());
        self.frames.clear();
        self.goal_cost = f64::INFINITY;
        self.goal_parent = NONE;
        self.frame_base = goal_id(n) + 1;
        let ends = Ends { start: sp, goal: gp };
        // The polygons holding the goal (a start window or a ray from a corner reaching one
        // sees the goal), then the polygons holding the start, seen whole.
        seeds(mesh, fans, goal, &mut self.seeds, &mut self.stack);
        for &q in &self.seeds {
            self.goal_poly[q as usize] = gen;
        }
        seeds(mesh, fans, start, &mut self.seeds, &mut self.stack);
        for i in 0..self.seeds.len() {
            let q = self.seeds[i];
            self.open_root(mesh, table, ends, q, gen);
        }
        let Some(()) = self.best_first(mesh, graph, table, ends, gen) else { return false };
        if self.goal_parent == start_id(n) {
            // Seen, though the plain mesh walk stopped (grazing a wall's end or passing where
            // polygons touch at a vertex): the straight segment.
            path.points.extend([start.point, goal.point]);
            path.corridor.push(start.polygon);
            let from = vertex_at(mesh, start.polygon, sp);
            if !walk_leg_to(mesh, start.polygon, from, (sp, gp), Target::Polygon(goal.polygon), &mut path.corridor) {
                walk_leg(mesh, leg_polygon(mesh, start.polygon, sp, gp), sp, gp, &mut path.corridor);
            }
            if path.corridor.last() != Some(&goal.polygon) {
                path.corridor.push(goal.polygon);
            }
            path.length = polyline_length(&path.points);
            return true;
        }
        self.parent[goal_id(n) as usize] = self.goal_parent;
        self.write(mesh, graph, start, goal, path);
        true
    }

    /// One best-first search over three kinds of entries, all keyed by a lower bound of the
    /// length of any path through them: visibility windows from the start (the shortest way
    /// from the start through the window's interval to the goal), corner nodes (their cost
    /// plus the straight distance to the goal) and the goal itself (the cost of the best path
    /// found to it). A window is opened only when no path found so far is shorter than every
    /// path through it, so the walk stays near the corridor instead of covering all the mesh
    /// the start sees. A corner taken offers the goal when a ray from it reaches the goal and
    /// the path can turn taut there. `None` when the goal is not reached.
    ///
    /// Why the first goal entry taken is optimal: every key is a lower bound of the paths it
    /// stands for, and a corner is taken only after every window that could improve it (a
    /// start window that sees corner `c` has a key at most `|s c| + |c g|`, which is at most
    /// the corner's own key), so its cost is final when it is taken. The last corner `c` of a
    /// shortest path sees the goal taut, so taking it offers the goal at the optimum, before
    /// anything keyed above the optimum is taken.
    fn best_first(
        &mut self,
        mesh: &QueryMesh,
        graph: &VisibilityGraph,
        table: &CornerTable,
        ends: Ends,
        gen: u32,
    ) -> Option<()> {
        let n = graph.node_count();
        let g_id = goal_id(n);
        let pos = |node: u32| table.points[node as usize];
        let frame_base = self.frame_base;
        // Cap on the windows opened: no input should come near it (a polygon is seen through
        // few gaps); it turns a reasoning error into a failed query instead of a hang.
        let mut budget = 128 * (mesh.half_edge_count() + 16);
        while let Some(Reverse((f, u))) = self.open.pop() {
            let f = f64::from_bits(f);
            if u >= frame_base {
                if budget == 0 {
                    return None;
                }
                budget -= 1;
                let frame = self.frames[(u - frame_base) as usize];
                self.open_window(mesh, table, ends, frame, gen);
                continue;
            }
            if u == g_id {
                if f > self.goal_cost {
                    continue;
                }
                return Some(());
            }
            let ui = u as usize;
            if self.closed[ui] == gen {
                continue;
            }
            self.closed[ui] = gen;
            let gu = self.g[ui];
            let at = pos(u);
            // The path leaves the corner only where it turns round the corner's walls, the way
            // it arrived: an optimal path is taut at every corner (a turn away from the walls
            // could be cut short), so other legs from here cannot be on it.
            let from = match self.parent[ui] {
                p if p == start_id(n) => ends.start,
                p => pos(p),
            };
            let bend = Bend::new(table, from, u, at);
            // The last leg: a ray from the corner to the goal, where it would improve the best
            // path found and a path can turn taut there.
            let straight = dist2(at, ends.goal);
            let via = gu + straight;
            if via < self.goal_cost
                && bend.leaves_taut(ends.goal)
                && taut_from(table, ends.goal, u, at)
                && self.sees_goal(mesh, graph.corners[ui], at, ends.goal, gen)
            {
                self.offer_goal(via, u, n);
            }
            // The other wedges of a pinch vertex, at no cost.
            let mut sib = table.sibling[ui];
            let mut guard = 0;
            while sib != u && guard < n {
                self.relax(sib, gu, u, pos(sib), ends.goal, gen);
                sib = table.sibling[sib as usize];
                guard += 1;
            }
            for (t, len) in graph.edges(ui) {
                if self.closed[t as usize] != gen {
                    let w = pos(t);
                    if bend.leaves_taut(w) {
                        self.relax(t, gu + len, u, w, ends.goal, gen);
                    }
                }
            }
        }
        None
    }

    /// Whether corner vertex `v` (point `a`) sees the goal `b`: the segment walks the mesh from a
    /// polygon round `v` holding its direction to a polygon holding the goal. Where it passes a
    /// vertex (grazing a wall's end, along a wall, or where polygons touch at a point), every
    /// polygon round that vertex holding the direction is tried, as the windows of the search
    /// see along their rays.
    fn sees_goal(&mut self, mesh: &QueryMesh, v: u32, a: Point2, b: Point2, gen: u32) -> bool {
        let mut budget = WALK_BRANCHES;
        let fans = mesh.vertex_fans();
        fans.fan(v).iter().any(|&(q, slot)| {
            holds_direction(mesh, q, slot as usize, a, b)
                && reaches_marked(mesh, q, a, b, &self.goal_poly, gen, &mut budget)
        })
    }

    /// Offers the goal at cost `g` through node `from` (the start or a corner that sees it).
    fn offer_goal(&mut self, g: f64, from: u32, n: usize) {
        if g < self.goal_cost {
            self.goal_cost = g;
            self.goal_parent = from;
            self.open.push(open_entry(g, goal_id(n)));
        }
    }

    /// Sees polygon `poly`, which holds the start, whole: reports its corners and opens a
    /// window through each of its portals.
    fn open_root(&mut self, mesh: &QueryMesh, table: &CornerTable, ends: Ends, poly: u32, gen: u32) {
        let (p, other) = (ends.start, ends.goal);
        let n = table.points.len();
        if self.goal_poly[poly as usize] == gen {
            self.offer_goal(dist2(p, other), start_id(n), n);
        }
        root_step(mesh, p, poly, |slot, a, child| {
            self.report(table, &ends, slot, a, gen);
            if let Some((f, a, b)) = child {
                self.push_window(mesh, f, a, b, ends);
            }
        });
    }

    /// Reports the corner node at half-edge slot `slot` (vertex point `w`) when the start sees
    /// it taut (both its walls on one side of the sight line): its cost is at most the sight
    /// line.
    #[inline]
    fn report(&mut self, table: &CornerTable, ends: &Ends, slot: usize, w: Point2, gen: u32) {
        let (node, p) = (table.slot_node[slot], ends.start);
        if node != NONE && w != p && taut_from(table, p, node, w) {
            self.relax(node, dist2(p, w), start_id(table.points.len()), w, ends.goal, gen);
        }
    }

    /// Opens a window: reports the corners of its polygon inside it, offers the goal when a
    /// start window holds it, and pushes a window through every portal it reaches.
    fn open_window(&mut self, mesh: &QueryMesh, table: &CornerTable, ends: Ends, f: Frame, gen: u32) {
        let (p, other) = (ends.start, ends.goal);
        let n = table.points.len();
        let window = Window::of(p, &f);
        if self.goal_poly[f.poly as usize] == gen && window.contains(other) {
            self.offer_goal(dist2(p, other), start_id(n), n);
        }
        let len = mesh.poly_len(f.poly);
        if len > WINDOW_POLYGON_MAX {
            window_corners(mesh, &f, &window, |slot, w| self.report(table, &ends, slot, w, gen));
            window_children(mesh, p, &f, |child, ia, ib| self.push_window(mesh, child, ia, ib, ends));
            return;
        }
        // One pass of `window_corners` and `window_children` that takes each vertex's side of
        // the two rays once (the separate passes take it up to three times): the same exact
        // tests on the same arguments, so the same windows and intervals.
        let first = mesh.poly_first(f.poly);
        let (r, l) = (f.right, f.left);
        let mut at = [[0.0; 2]; WINDOW_POLYGON_MAX];
        let mut sides = [[0.0; 2]; WINDOW_POLYGON_MAX];
        for k in 0..len {
            let w = xz(mesh.edge_endpoints(first + k).0);
            let side = [orient2d(p, r, w), orient2d(p, l, w)];
            at[k] = w;
            sides[k] = side;
            if window.contains_by_sides(w, side) {
                self.report(table, &ends, first + k, w, gen);
            }
        }
        for k in 0..len {
            let h = first + k;
            if h as u32 == f.entry {
                continue;
            }
            let j = if k + 1 == len { 0 } else { k + 1 };
            let (a, b) = (at[k], at[j]);
            let ([ra, la], [rb, lb]) = (sides[k], sides[j]);
            // As `window_children`: crossed forwards only, and only where the window meets it.
            if rb < 0.0 || la > 0.0 || orient2d(a, b, p) <= 0.0 {
                continue;
            }
            let nr = if ra > 0.0 { a } else { r };
            let nl = if lb < 0.0 { b } else { l };
            if orient2d(p, nr, nl) < 0.0 {
                continue;
            }
            let Some(q) = mesh.edge_neighbour(h) else { continue };
            let ia = if nr == a { a } else { lerp_at(a, b, ra, rb) };
            let ib = if nl == b { b } else { lerp_at(a, b, la, lb) };
            let child = Frame { poly: q, entry: mesh.half_edges[h].twin, right: nr, left: nl };
            self.push_window(mesh, child, ia, ib, ends);
        }
    }

    /// Queues window `f`, whose interval on its entry portal runs from `ia` (right) to `ib`,
    /// keyed by the shortest way from its end through the interval to the other end. The sides
    /// are decided on exact points: the rays through the window's vertices and the portal's
    /// own ends, not the rounded interval ends (see `via_interval`).
    fn push_window(&mut self, mesh: &QueryMesh, f: Frame, ia: Point2, ib: Point2, ends: Ends) {
        let (p, other) = (ends.start, ends.goal);
        let key = if ia == ib {
            dist2(p, ia) + dist2(ia, other)
        } else {
            let (x, y) = mesh.edge_endpoints(f.entry as usize);
            via_interval(p, (ia, ib), [p, f.right], [p, f.left], [xz(x), xz(y)], other).0
        };
        // Nothing through the window can beat the path already found.
        if key >= self.goal_cost {
            return;
        }
        let node = self.frame_base + self.frames.len() as u32;
        self.frames.push(f);
        self.open.push(open_entry(key, node));
    }

    /// Lowers node `v`'s cost to `g` (reached from `from`) if that improves it; `w` is its point,
    /// keyed by the straight distance to `goal` (taken only once the cheaper tests pass).
    #[inline]
    fn relax(&mut self, v: u32, g: f64, from: u32, w: Point2, goal: Point2, gen: u32) {
        let vi = v as usize;
        if self.closed[vi] == gen || (self.stamp[vi] == gen && g >= self.g[vi]) || g >= self.goal_cost {
            return;
        }
        let h = dist2(w, goal);
        // (A node whose key reaches the path already found cannot improve it.)
        if g + h >= self.goal_cost {
            return;
        }
        self.g[vi] = g;
        self.stamp[vi] = gen;
        self.parent[vi] = from;
        self.open.push(open_entry(g + h, v));
    }

    /// Writes the path found by [`Self::best_first`]: start, turning corners, goal; the corridor by
    /// walking each leg through the mesh.
    fn write(&mut self, mesh: &QueryMesh, graph: &VisibilityGraph, start: Location, goal: Location, path: &mut Path) {
        let n = graph.node_count();
        let verts = mesh.mesh().vertices();
        self.chain.clear();
        let mut i = self.parent[goal_id(n) as usize];
        while i != NONE && i != start_id(n) && self.chain.len() <= n {
            self.chain.push(i);
            i = self.parent[i as usize];
        }
        // The turning vertices (mesh vertex indices: corners of stacked floors can share an XZ
        // point); the nodes of one pinch vertex make one turn.
        self.turns.clear();
        for k in (0..self.chain.len()).rev() {
            let v = graph.corners[self.chain[k] as usize];
            if self.turns.last() != Some(&v) {
                self.turns.push(v);
            }
        }
        // A turn at the goal's own point is the goal.
        if self.turns.last().is_some_and(|&v| xz(verts[v as usize]) == xz(goal.point)) {
            self.turns.pop();
        }
        path.points.push(start.point);
        path.points.extend(self.turns.iter().map(|&v| verts[v as usize]));
        path.points.push(goal.point);
        // Corridor: each leg walked through the mesh from a polygon holding its start in the
        // leg's direction to one holding its end. Where floors share a wall line in XZ, several
        // polygons hold the direction; the walk that reaches the leg's own end vertex is kept.
        path.corridor.push(start.polygon);
        let legs = self.turns.len() + 1;
        for k in 0..legs {
            let (a, b) = (xz(path.points[k]), xz(path.points[k + 1]));
            let target = if k + 1 == legs { Target::Polygon(goal.polygon) } else { Target::Vertex(self.turns[k]) };
            let near = path.corridor[path.corridor.len() - 1];
            let mark = path.corridor.len();
            let from = if k == 0 { vertex_at(mesh, near, a) } else { Some(self.turns[k - 1]) };
            let reached = walk_leg_to(mesh, near, from, (a, b), target, &mut path.corridor);
            if !reached {
                // (Not expected: the graph's edges are walks. Keep the plain walk's corridor.)
                path.corridor.truncate(mark);
                walk_leg(mesh, leg_polygon(mesh, near, a, b), a, b, &mut path.corridor);
            }
        }
        if path.corridor.last() != Some(&goal.polygon) {
            path.corridor.push(goal.polygon);
        }
        path.length = polyline_length(&path.points);
    }
}

/// Most polygon vertices [`VisibilitySearch::open_window`] handles in its one-pass form (on the
/// stack); larger polygons take the separate passes. Assets keep polygons to 12 vertices.
const WINDOW_POLYGON_MAX: usize = 16;

/// When the segment from the start to the goal walks the mesh through portals, writes it as the
/// path and returns true; otherwise leaves `path` empty and returns false.
fn straight(mesh: &QueryMesh, start: &Location, goal: &Location, path: &mut Path) -> bool {
    path.corridor.push(start.polygon);
    let corridor = &mut path.corridor;
    let clear = mesh.walk_reaches(start, goal, |h| corridor.push(mesh.edge_neighbour(h).unwrap_or(NONE)));
    if clear && path.corridor.iter().all(|&q| q != NONE) {
        path.points.extend([start.point, goal.point]);
        path.length = polyline_length(&path.points);
        return true;
    }
    path.clear();
    false
}

/// The polygons holding location `at` into `out`: the fan of the vertex it sits on, or its
/// polygon and those across the edges it lies on (`stack` is scratch).
fn seeds(mesh: &QueryMesh, fans: &VertexFans, at: Location, out: &mut Vec<u32>, stack: &mut Vec<Frame>) {
    out.clear();
    let p = xz(at.point);
    let data = mesh.mesh().data();
    let first = mesh.poly_first(at.polygon);
    let vertex = (0..mesh.poly_len(at.polygon))
        .map(|k| data.polygon_vertices[first + k])
        .find(|&v| xz(mesh.mesh().vertices()[v as usize]) == p);
    if let Some(v) = vertex {
        out.extend(fans.fan(v).iter().map(|&(q, _)| q));
        return;
    }
    stack.clear();
    out.push(at.polygon);
    let mut i = 0;
    while i < out.len() && i < 64 {
        let r = out[i];
        i += 1;
        let first = mesh.poly_first(r);
        for k in 0..mesh.poly_len(r) {
            let (a, b) = mesh.edge_endpoints(first + k);
            if !lies_on_edge(xz(a), xz(b), p) {
                continue;
            }
            if let Some(q) = mesh.edge_neighbour(first + k) {
                if !out.contains(&q) {
                    out.push(q);
                }
            }
        }
    }
}

/// Whether a path from `p` can turn taut at corner node `node` (vertex point `w`): always at a
/// pinch, else where both its walls lie on one side of the sight line.
#[inline]
fn taut_from(table: &CornerTable, p: Point2, node: u32, w: Point2) -> bool {
    if table.pinch[node as usize] {
        return true;
    }
    let [w0, w1] = table.walls[node as usize];
    let (o0, o1) = (orient2d(p, w, w0), orient2d(p, w, w1));
    (o0 >= 0.0 && o1 >= 0.0) || (o0 <= 0.0 && o1 <= 0.0)
}

/// How a path arriving at a corner node may leave it taut: turning round the corner's walls,
/// on the side of the arriving line they lie on (or straight on).
#[derive(Clone, Copy, Debug)]
struct Bend {
    from: Point2,
    at: Point2,
    /// The sides of the corner's two walls of the line `from -> at` (0 for a missing wall).
    sides: [f64; 2],
    /// A pinch (a path may pass into another wedge at any angle) or an arrival from the corner's
    /// own point: every way out is kept.
    any: bool,
}

impl Bend {
    /// The bend at corner node `node` (vertex point `at`) of a path arriving from `from`.
    #[inline]
    fn new(table: &CornerTable, from: Point2, node: u32, at: Point2) -> Bend {
        let any = table.pinch[node as usize] || from == at;
        if any {
            return Bend { from, at, sides: [0.0; 2], any };
        }
        let [w0, w1] = table.walls[node as usize];
        Bend { from, at, sides: [orient2d(from, at, w0), orient2d(from, at, w1)], any }
    }

    /// Whether the path may go on to point `t` taut: straight on, or turning towards the side
    /// both walls lie on.
    #[inline]
    fn leaves_taut(&self, t: Point2) -> bool {
        if self.any {
            return true;
        }
        let turn = orient2d(self.from, self.at, t);
        let [a, b] = self.sides;
        turn == 0.0 || (turn > 0.0 && a >= 0.0 && b >= 0.0) || (turn < 0.0 && a <= 0.0 && b <= 0.0)
    }
}

/// The first step of a visibility walk from `p`, which polygon `poly` holds (seen whole): for
/// each of its half-edges, `step(slot, a, child)` with the edge's first vertex `a` and, where
/// `p` is strictly inside the edge and a neighbour lies across it, the window through it and
/// its interval on the portal (the whole edge).
#[inline]
fn root_step(
    mesh: &QueryMesh,
    p: Point2,
    poly: u32,
    mut step: impl FnMut(usize, Point2, Option<(Frame, Point2, Point2)>),
) {
    let first = mesh.poly_first(poly);
    for k in 0..mesh.poly_len(poly) {
        let (a, b) = mesh.edge_endpoints(first + k);
        let (a, b) = (xz(a), xz(b));
        let child = (orient2d(a, b, p) > 0.0)
            .then(|| mesh.edge_neighbour(first + k))
            .flatten()
            .map(|q| (Frame { poly: q, entry: mesh.half_edges[first + k].twin, right: a, left: b }, a, b));
        step(first + k, a, child);
    }
}

/// The angular window of a walk step: the rays from `p` through `right` and `left`.
#[derive(Clone, Copy, Debug)]
struct Window {
    p: Point2,
    right: Point2,
    left: Point2,
    /// Both rays on one line: the window is that ray, forwards only.
    degenerate: bool,
}

impl Window {
    /// The window of step `f` seen from `p`.
    #[inline]
    fn of(p: Point2, f: &Frame) -> Window {
        Window { p, right: f.right, left: f.left, degenerate: orient2d(p, f.right, f.left) == 0.0 }
    }

    /// [`Window::contains`] given `w`'s sides of the right and left rays
    /// (`orient2d(p, right, w)`, `orient2d(p, left, w)`).
    #[inline]
    fn contains_by_sides(&self, w: Point2, [r, l]: [f64; 2]) -> bool {
        let (p, right) = (self.p, self.right);
        let forward = || (w[0] - p[0]) * (right[0] - p[0]) + (w[1] - p[1]) * (right[1] - p[1]) > 0.0;
        r >= 0.0 && l <= 0.0 && (!self.degenerate || forward())
    }

    /// Whether point `w` lies in the window (its rays included).
    #[inline]
    fn contains(&self, w: Point2) -> bool {
        let (p, r) = (self.p, self.right);
        let forward = || (w[0] - p[0]) * (r[0] - p[0]) + (w[1] - p[1]) * (r[1] - p[1]) > 0.0;
        orient2d(p, r, w) >= 0.0 && orient2d(p, self.left, w) <= 0.0 && (!self.degenerate || forward())
    }
}

/// Calls `corner(slot, w)` for every vertex `w` of step `f`'s polygon inside its window.
#[inline]
fn window_corners(mesh: &QueryMesh, f: &Frame, window: &Window, mut corner: impl FnMut(usize, Point2)) {
    let data = mesh.mesh().data();
    let verts = mesh.mesh().vertices();
    let first = mesh.poly_first(f.poly);
    for k in 0..mesh.poly_len(f.poly) {
        let w = xz(verts[data.polygon_vertices[first + k] as usize]);
        if window.contains(w) {
            corner(first + k, w);
        }
    }
}

/// Calls `child(frame, ia, ib)` for every portal of step `f`'s polygon (but its entry) that
/// its window reaches, crossed forwards from `p`: the narrowed window beyond it, and the
/// window's interval on the portal from `ia` (right) to `ib`.
#[inline]
fn window_children(mesh: &QueryMesh, p: Point2, f: &Frame, mut child: impl FnMut(Frame, Point2, Point2)) {
    let (r, l) = (f.right, f.left);
    let first = mesh.poly_first(f.poly);
    for k in 0..mesh.poly_len(f.poly) {
        let h = first + k;
        if h as u32 == f.entry {
            continue;
        }
        let (a, b) = mesh.edge_endpoints(h);
        let (a, b) = (xz(a), xz(b));
        // Crossed forwards only (the point strictly on the inner side), and only where the
        // window meets it.
        if orient2d(a, b, p) <= 0.0 || orient2d(p, r, b) < 0.0 || orient2d(p, l, a) > 0.0 {
            continue;
        }
        let nr = if orient2d(p, r, a) > 0.0 { a } else { r };
        let nl = if orient2d(p, l, b) < 0.0 { b } else { l };
        if orient2d(p, nr, nl) < 0.0 {
            continue;
        }
        let Some(q) = mesh.edge_neighbour(h) else { continue };
        // The window's interval on the portal: its ends cut by the rays where they are not the
        // portal's own ends.
        let ia = if nr == a { a } else { lerp_at(a, b, orient2d(p, nr, a), orient2d(p, nr, b)) };
        let ib = if nl == b { b } else { lerp_at(a, b, orient2d(p, nl, a), orient2d(p, nl, b)) };
        child(Frame { poly: q, entry: mesh.half_edges[h].twin, right: nr, left: nl }, ia, ib);
    }
}

/// The whole visibility walk from point `p` (held by each polygon of `seeds`), depth first (the
/// test graph builder's; queries open windows best first instead): calls `visit(node,
/// distance)` for every corner node `p` sees at which a path from `p` can turn taut (a node may
/// be reported more than once). Returns whether `p` sees the point `target.0`, held by the
/// polygons whose entry in `target.1` is `target.2`.
#[cfg(test)]
fn visible_corners(
    mesh: &QueryMesh,
    table: &CornerTable,
    p: Point2,
    seeds: &[u32],
    frames: &mut Vec<Frame>,
    target: (Point2, &[u32], u32),
    mut visit: impl FnMut(u32, f64),
) -> bool {
    let (goal, goal_poly, gen) = target;
    let holds_goal = |q: u32| goal_poly.get(q as usize) == Some(&gen);
    let mut sees_goal = false;
    let mut report = |slot: usize, w: Point2| {
        let node = table.slot_node[slot];
        if node != NONE && w != p && taut_from(table, p, node, w) {
            visit(node, dist2(p, w));
        }
    };
    frames.clear();
    for &poly in seeds {
        // A polygon holding `p` is seen whole; each portal starts a window.
        sees_goal |= holds_goal(poly);
        root_step(mesh, p, poly, |slot, a, child| {
            report(slot, a);
            frames.extend(child.map(|c| c.0));
        });
    }
    // Cap on the steps: no input should come near it (a polygon is seen through few gaps); it
    // turns a reasoning error into a shorter corner list instead of a hang.
    let mut budget = 64 * (mesh.half_edge_count() + 16);
    while let Some(f) = frames.pop() {
        if budget == 0 {
            frames.clear();
            return sees_goal;
        }
        budget -= 1;
        let window = Window::of(p, &f);
        if !sees_goal && holds_goal(f.poly) && window.contains(goal) {
            sees_goal = true;
        }
        window_corners(mesh, &f, &window, &mut report);
        window_children(mesh, p, &f, |child, _, _| frames.push(child));
    }
    sees_goal
}

/// Builds a visibility graph of `mesh` with the walk above, for tests before a bake provides
/// one: a node per wedge at every vertex where a taut path can bend, edges to the corners each
/// node sees where the path is taut at both ends.
#[cfg(test)]
pub(crate) fn graph_by_walks(mesh: &QueryMesh) -> VisibilityGraph {
    use super::shortest::CORNER;
    let fans = mesh.vertex_fans();
    let data = mesh.mesh().data();
    let verts = mesh.mesh().vertices();
    let mut g = VisibilityGraph::default();
    let mut seen = vec![false; data.polygon_vertices.len()];
    for v in 0..verts.len() as u32 {
        if fans.corner[v as usize] & CORNER == 0 {
            continue;
        }
        for &(q, k) in fans.fan(v) {
            let slot = mesh.poly_first(q) + k as usize;
            if seen[slot] {
                continue;
            }
            // One node per wedge: mark the wedge's slots through a throwaway table.
            let probe =
                VisibilityGraph { corners: vec![v], polygons: vec![q], first_edge: vec![0, 0], ..Default::default() };
            let t = CornerTable::build(mesh, &probe);
            let mut lowest = q;
            for (s, &n) in t.slot_node.iter().enumerate() {
                if n == 0 {
                    seen[s] = true;
                    lowest = lowest.min(mesh.edge_owner[s]);
                }
            }
            g.corners.push(v);
            g.polygons.push(lowest);
        }
    }
    let table = CornerTable::build(mesh, &g);
    let (mut frames, mut found) = (Vec::new(), Vec::new());
    g.first_edge.push(0);
    for node in 0..g.node_count() {
        let v = g.corners[node];
        let p = xz(verts[v as usize]);
        let seeds: Vec<u32> = (0..data.polygon_vertices.len())
            .filter(|&s| table.slot_node[s] == node as u32)
            .map(|s| mesh.edge_owner[s])
            .collect();
        found.clear();
        visible_corners(mesh, &table, p, &seeds, &mut frames, (p, &[], 0), |c, _| found.push(c));
        found.sort_unstable();
        found.dedup();
        for &c in &found {
            let w = xz(verts[g.corners[c as usize] as usize]);
            // Taut at this end too: seen from the corner `c`, looking back.
            if c as usize != node && taut_from(&table, w, node as u32, p) {
                let (a, b) = (verts[v as usize], verts[g.corners[c as usize] as usize]);
                g.targets.push(c);
                g.lengths.push((b[0] - a[0]).hypot(b[2] - a[2]));
            }
        }
        g.first_edge.push(g.targets.len() as u32);
    }
    g
}
