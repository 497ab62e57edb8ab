//! Stage 8, visibility: the assembled [`NavMesh`] → its corner [`VisibilityGraph`] (stored as
//! [`meadow::NavMeshData::visibility`]).
//!
//! It runs on the final mesh, after `assemble`, so the graph's vertex and polygon indices are the
//! asset's own. Semantics, shared with the runtime and the brute-force graph of the testkit:
//!
//! - a **corner** is a *free wedge* at a mesh vertex: a maximal fan of the polygons around the
//!   vertex joined through portals incident to it, bounded by two wall edges (a fan that closes
//!   a full circle is no corner). At a vertex with one wedge it is a corner when its total angle
//!   in XZ exceeds π (exactly π is a straight wall, not a corner). At a **pinch** (a vertex with
//!   several wedges: walkable sectors touching only there) every wedge is a corner, whatever its
//!   angle, since a path may pass through the point from one wedge into another. A corner's
//!   polygon is its wedge's lowest-index polygon; nodes are ordered by (vertex, polygon);
//! - two corners **see** each other when the XZ segment between them can be walked from the
//!   one's wedge to the other's, polygon to polygon across portals only. Where the segment
//!   passes through a vertex it continues only within the wedge it arrived in. Touching the
//!   boundary (running along a wall, grazing a wall's end) is allowed; crossing a wall is not.
//!   Following portals crosses layers and seams like any walk on the mesh. Corners at the same XZ
//!   point are never joined (the runtime joins the wedges of a pinch at no cost);
//! - an edge is **taut** at corner `A` when `A` is at a pinch, or when `A`'s wall neighbours
//!   (the previous and next vertex along the boundary) do not lie strictly on opposite sides of
//!   the edge's line (exact orientation). Only edges taut at both ends are kept: a shortest path
//!   turns at a corner only around its obstacle, and passes a pinch in any direction.
//!
//! Every decision is an exact predicate (`meadow::geom::orient2d`, or comparisons of points known
//! to lie on one line), so there is no tolerance. The work is per source corner in parallel: each
//! collects its partners of higher index (components first, then the taut test at both ends, then
//! the walk); the lists are joined in node order, so the output is the same for any thread count.
//! The taut test is a few orientations and rejects most pairs, so the walks run only for the pairs
//! that can be edges. The stage's work budget (`BakeSettings::max_visibility_work`: polygons
//! entered plus pairs tested / [`PAIRS_PER_WORK_UNIT`]) bounds it, checked between batches of
//! corners.

use meadow::geom::{orient2d, Point2};
use meadow::{EdgeLink, NavMesh, NavMeshData, VisibilityGraph};
use rayon::prelude::*;

/// No value (an unassigned wedge or component).
const NONE: u32 = u32::MAX;

/// A corner: its vertex, the lowest polygon of its wedge, its wall neighbours and its wedge.
#[derive(Clone, Copy, Debug)]
struct Corner {
    vertex: u32,
    polygon: u32,
    prev: u32,
    next: u32,
    wedge: u32,
    /// Whether its vertex is a pinch (several wedges): a path may pass through it from one
    /// wedge into another, at any angle, so edges need not be taut there.
    pinch: bool,
}

/// The mesh tables the walks run on. A *slot* is one entry of `polygon_vertices`: a polygon's
/// angle at one vertex.
struct Tables<'a> {
    d: &'a NavMeshData,
    /// XZ of every vertex.
    pts: Vec<Point2>,
    /// Per slot: its polygon.
    slot_polygon: Vec<u32>,
    /// Per slot: its wedge.
    slot_wedge: Vec<u32>,
    /// Per wedge: the range of its slots in `wedge_slots` (CSR offsets).
    wedge_first: Vec<u32>,
    /// The slots of every wedge, concatenated.
    wedge_slots: Vec<u32>,
    /// Per polygon: its component (polygons joined through portals).
    component: Vec<u32>,
    corners: Vec<Corner>,
}

impl<'a> Tables<'a> {
    fn new(mesh: &'a NavMesh) -> Tables<'a> {
        let d = mesh.data();
        let pts: Vec<Point2> = d.vertices.iter().map(|v| [v[0], v[2]]).collect();
        let slots = d.polygon_vertices.len();
        let mut slot_polygon = vec![0u32; slots];
        for (p, pd) in d.polygons.iter().enumerate() {
            slot_polygon[pd.first as usize..pd.first as usize + pd.vertex_count as usize].fill(p as u32);
        }
        // The slots at every vertex, in polygon order (CSR).
        let mut vertex_first = vec![0u32; d.vertices.len() + 1];
        for &v in &d.polygon_vertices {
            vertex_first[v as usize + 1] += 1;
        }
        for i in 0..d.vertices.len() {
            vertex_first[i + 1] += vertex_first[i];
        }
        let mut fill = vertex_first.clone();
        let mut vertex_slots = vec![0u32; slots];
        for (s, &v) in d.polygon_vertices.iter().enumerate() {
            vertex_slots[fill[v as usize] as usize] = s as u32;
            fill[v as usize] += 1;
        }
        let mut t = Tables {
            d,
            pts,
            slot_polygon,
            slot_wedge: vec![NONE; slots],
            wedge_first: vec![0],
            wedge_slots: Vec::with_capacity(slots),
            component: vec![NONE; d.polygons.len()],
            corners: Vec::new(),
        };
        // Wedges, numbered by (vertex, lowest polygon): a vertex's slots come in polygon order, so
        // the first slot met of a new wedge is its lowest polygon's.
        let mut stack = Vec::new();
        // The wedges of the current vertex with two walls, and whether each is reflex.
        let mut walled: Vec<(Corner, bool)> = Vec::new();
        for v in 0..d.vertices.len() {
            walled.clear();
            let wedges_before = t.wedge_first.len();
            for &s in &vertex_slots[vertex_first[v] as usize..vertex_first[v + 1] as usize] {
                if t.slot_wedge[s as usize] != NONE {
                    continue;
                }
                let w = t.wedge_first.len() as u32 - 1;
                let start = t.wedge_slots.len();
                let (mut prev, mut next) = (None, None);
                t.slot_wedge[s as usize] = w;
                stack.push(s);
                while let Some(s) = stack.pop() {
                    t.wedge_slots.push(s);
                    let (sp, sn) = t.around(s as usize);
                    // The edge arriving at the vertex (prev -> v) and the one leaving it (v -> next).
                    for (edge, end) in [(sp, sp), (s as usize, sn)] {
                        match d.edge_links[edge] {
                            EdgeLink::Wall if edge == sp => prev = Some(d.polygon_vertices[end]),
                            EdgeLink::Wall => next = Some(d.polygon_vertices[end]),
                            EdgeLink::Polygon(q) => {
                                let qs = t.slot_of(q, v as u32);
                                if t.slot_wedge[qs] == NONE {
                                    t.slot_wedge[qs] = w;
                                    stack.push(qs as u32);
                                }
                            }
                        }
                    }
                }
                t.wedge_slots[start..].sort_unstable();
                t.wedge_first.push(t.wedge_slots.len() as u32);
                let (Some(prev), Some(next)) = (prev, next) else { continue };
                let (a, pp, nn) = (t.pts[v], t.pts[prev as usize], t.pts[next as usize]);
                // Walking the boundary prev -> v -> next (free side on the left), the wedge is a
                // corner when wider than a half-turn (`wedge_is_reflex`: the walk turns right,
                // doubles back, or the wedge of stacked layers wraps past a full turn).
                let around = t.wedge_slots[start..].iter().flat_map(|&ws| {
                    let (sp, sn) = t.around(ws as usize);
                    [sp, sn].map(|x| t.pts[d.polygon_vertices[x] as usize])
                });
                let reflex = meadow::geom::wedge_is_reflex(pp, a, nn, around);
                let polygon = t.slot_polygon[s as usize];
                let corner = Corner { vertex: v as u32, polygon, prev, next, wedge: w, pinch: false };
                walled.push((corner, reflex));
            }
            // A pinch vertex is a node in every wedge (a path may pass through it whatever the
            // wedges' angles); elsewhere only a reflex wedge is.
            let pinch = t.wedge_first.len() - wedges_before >= 2;
            for &(corner, reflex) in &walled {
                if pinch || reflex {
                    t.corners.push(Corner { pinch, ..corner });
                }
            }
        }
        // Components through portals, numbered by their lowest polygon.
        for p in 0..d.polygons.len() {
            if t.component[p] != NONE {
                continue;
            }
            t.component[p] = p as u32;
            stack.push(p as u32);
            while let Some(q) = stack.pop() {
                let (first, n) = t.run(q);
                for &link in &d.edge_links[first..first + n] {
                    if let EdgeLink::Polygon(r) = link {
                        if t.component[r as usize] == NONE {
                            t.component[r as usize] = p as u32;
                            stack.push(r);
                        }
                    }
                }
            }
        }
        t
    }

    /// First slot and vertex count of polygon `p`.
    fn run(&self, p: u32) -> (usize, usize) {
        let pd = self.d.polygons[p as usize];
        (pd.first as usize, pd.vertex_count as usize)
    }

    /// The slots before and after slot `s` in its polygon.
    fn around(&self, s: usize) -> (usize, usize) {
        let (first, n) = self.run(self.slot_polygon[s]);
        let k = s - first;
        (first + (k + n - 1) % n, first + (k + 1) % n)
    }

    /// The slot of vertex `v` in polygon `p` (which holds it: portals match exactly).
    fn slot_of(&self, p: u32, v: u32) -> usize {
        let (first, n) = self.run(p);
        first + self.d.polygon_vertices[first..first + n].iter().position(|&w| w == v).expect("portal ends are shared")
    }

    fn pt(&self, s: usize) -> Point2 {
        self.pts[self.d.polygon_vertices[s] as usize]
    }

    /// Whether the direction from slot `s`'s vertex towards `b` lies in its polygon's closed
    /// angle there.
    fn in_angle(&self, s: usize, b: Point2) -> bool {
        let (sp, sn) = self.around(s);
        let c = self.pt(s);
        orient2d(c, self.pt(sn), b) >= 0.0 && orient2d(c, self.pt(sp), b) <= 0.0
    }

    /// Whether the line from corner `c` towards `b` is taut at `c` (always at a pinch).
    fn taut(&self, c: &Corner, b: Point2) -> bool {
        if c.pinch {
            return true;
        }
        let a = self.pts[c.vertex as usize];
        let sp = orient2d(a, b, self.pts[c.prev as usize]);
        let sn = orient2d(a, b, self.pts[c.next as usize]);
        !((sp > 0.0 && sn < 0.0) || (sp < 0.0 && sn > 0.0))
    }

    /// Pushes the polygons of wedge `w` whose angle at its vertex holds the direction to `b`,
    /// other than `except`.
    fn push_wedge(&self, w: u32, b: Point2, except: u32, scratch: &mut Scratch) {
        let range = self.wedge_first[w as usize] as usize..self.wedge_first[w as usize + 1] as usize;
        for &s in &self.wedge_slots[range] {
            let q = self.slot_polygon[s as usize];
            if q != except && self.in_angle(s as usize, b) {
                scratch.push(q);
            }
        }
    }

    /// Whether the segment from corner `from` to corner `to` walks the mesh from the one's
    /// wedge to the other's across portals only.
    fn sees(&self, from: &Corner, to: &Corner, scratch: &mut Scratch) -> bool {
        let d = self.d;
        let (a, b) = (self.pts[from.vertex as usize], self.pts[to.vertex as usize]);
        // Points on the line a -> b compare exactly by the coordinate that changes most.
        let axis = if (b[0] - a[0]).abs() >= (b[1] - a[1]).abs() { 0 } else { 1 };
        let ahead = |u: Point2, w: Point2| if b[axis] > a[axis] { u[axis] > w[axis] } else { u[axis] < w[axis] };
        scratch.begin();
        self.push_wedge(from.wedge, b, NONE, scratch);
        while let Some(p) = scratch.pop() {
            let (first, n) = self.run(p);
            let verts = &d.polygon_vertices[first..first + n];
            if let Some(k) = verts.iter().position(|&v| v == to.vertex) {
                if self.slot_wedge[first + k] == to.wedge {
                    return true;
                }
                continue;
            }
            // The line leaves a counter-clockwise polygon where its boundary passes from the
            // right of the line to the left: across an edge, or else at its farthest vertex on
            // the line. The end lies in the polygon (on another layer, or not at this corner:
            // a dead end) unless it is strictly beyond that exit.
            let side = |k: usize| orient2d(a, b, self.pts[verts[k % n] as usize]);
            let mut exit_edge = None;
            let mut exit_vertex: Option<usize> = None;
            let mut prev = side(n - 1);
            for k in 0..n {
                let s = side(k);
                if prev < 0.0 && s > 0.0 {
                    exit_edge = Some((k + n - 1) % n);
                    break;
                }
                if s == 0.0
                    && exit_vertex.is_none_or(|e| ahead(self.pts[verts[k] as usize], self.pts[verts[e] as usize]))
                {
                    exit_vertex = Some(k);
                }
                prev = s;
            }
            if let Some(k) = exit_edge {
                let (u, w) = (self.pts[verts[k] as usize], self.pts[verts[(k + 1) % n] as usize]);
                if orient2d(u, w, b) < 0.0 {
                    if let EdgeLink::Polygon(q) = d.edge_links[first + k] {
                        scratch.push(q);
                    }
                }
            } else if let Some(k) = exit_vertex {
                if ahead(b, self.pts[verts[k] as usize]) {
                    self.push_wedge(self.slot_wedge[first + k], b, p, scratch);
                }
            }
        }
        false
    }

    /// The partners of higher index that node `i` sees (and, with `taut`, that are taut at both
    /// ends), in increasing order. Counts the pairs it tests in `scratch.pairs`.
    fn partners(&self, i: usize, taut: bool, scratch: &mut Scratch) -> Vec<u32> {
        let from = &self.corners[i];
        let a = self.pts[from.vertex as usize];
        let comp = self.component[from.polygon as usize];
        let mut out = Vec::new();
        scratch.pairs += (self.corners.len() - i - 1) as u64;
        for (j, to) in self.corners.iter().enumerate().skip(i + 1) {
            let b = self.pts[to.vertex as usize];
            if self.component[to.polygon as usize] != comp || a == b {
                continue;
            }
            if taut && !(self.taut(from, b) && self.taut(to, a)) {
                continue;
            }
            if self.sees(from, to, scratch) {
                out.push(j as u32);
            }
        }
        out
    }

    /// The partners of every node, both directions, sorted, and the polygons the walks visited.
    fn adjacency(&self, taut: bool) -> (Vec<Vec<u32>>, u64) {
        match self.adjacency_within(taut, usize::MAX, u64::MAX) {
            Ok(done) => done,
            Err(_) => unreachable!("an unbounded build runs to the end"),
        }
    }

    /// [`Self::adjacency`], or why it stopped as soon as the pairs found make more than
    /// `max_edges` directed edges or the walks have visited more than `max_work` polygons.
    /// Corners are walked in fixed chunks and the bounds are checked between chunks, on sums per
    /// corner, so the answer does not depend on the thread count.
    fn adjacency_within(
        &self,
        taut: bool,
        max_edges: usize,
        max_work: u64,
    ) -> Result<(Vec<Vec<u32>>, u64), BuildStopped> {
        let n_poly = self.d.polygons.len();
        let n_corners = self.corners.len();
        let mut upper: Vec<Vec<u32>> = vec![Vec::new(); n_corners];
        let (mut edges, mut work) = (0usize, 0u64);
        // One walk state per worker thread, kept across batches: a state holds arrays as long as
        // the mesh, too costly to allocate per parallel job. Results are per corner, so which
        // thread's state walks a corner does not matter.
        type State = Option<Scratch>;
        let states: Vec<std::sync::Mutex<State>> =
            (0..rayon::current_num_threads().max(1)).map(|_| std::sync::Mutex::new(None)).collect();
        // Corners are walked in a spread order (every SPREAD-th first), so that every batch
        // samples the whole level and the cost of the first ones foretells the rest.
        let order: Vec<u32> = (0..SPREAD.min(n_corners.max(1)))
            .flat_map(|start| (start..n_corners).step_by(SPREAD))
            .map(|i| i as u32)
            .collect();
        let (mut done, mut size) = (0usize, FIRST_CHUNK);
        while done < n_corners {
            let batch = &order[done..n_corners.min(done + size)];
            done += batch.len();
            let found: Vec<(Vec<u32>, u64)> = batch
                .par_iter()
                .map(|&i| {
                    let slot = rayon::current_thread_index().unwrap_or(0) % states.len();
                    let mut guard = states[slot].lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    let scratch = guard.get_or_insert_with(|| Scratch::new(n_poly));
                    let (visits, pairs) = (scratch.visits, scratch.pairs);
                    let list = self.partners(i as usize, taut, scratch);
                    // Per corner, so the sum is the same however corners spread over threads.
                    (list, scratch.visits - visits + (scratch.pairs - pairs) / PAIRS_PER_WORK_UNIT)
                })
                .collect();
            // Each pair is two directed edges.
            edges = edges.saturating_add(2 * found.iter().map(|f| f.0.len()).sum::<usize>());
            work = work.saturating_add(found.iter().map(|f| f.1).sum::<u64>());
            if edges > max_edges {
                return Err(BuildStopped::Edges);
            }
            // The whole build's cost at the mean cost per corner so far.
            let projected = u64::try_from(work as u128 * n_corners as u128 / done as u128).unwrap_or(u64::MAX);
            let hopeless = done >= MIN_SAMPLE && projected / PROJECTION_MARGIN > max_work;
            if work > max_work || hopeless {
                return Err(BuildStopped::Work { projected: projected.max(work) });
            }
            for (&i, (list, _)) in batch.iter().zip(found) {
                upper[i as usize] = list;
            }
            // The next batch may use at most half the budget left at the cost per corner seen so
            // far, so a build passes its bound by little even where one corner sees half the
            // level; sizes depend on the counts only, never on the threads.
            let per_corner = work / done as u64 + 1;
            let room = (max_work - work) / per_corner / 2;
            size = usize::try_from(room).unwrap_or(usize::MAX).clamp(MIN_CHUNK, CORNER_CHUNK);
        }
        let mut adjacency: Vec<Vec<u32>> = vec![Vec::new(); n_corners];
        for (i, list) in upper.iter().enumerate() {
            for &j in list {
                adjacency[j as usize].push(i as u32);
            }
        }
        // Lower partners arrive in increasing order; the upper ones follow, also increasing.
        for (i, list) in upper.into_iter().enumerate() {
            adjacency[i].extend(list);
        }
        Ok((adjacency, work))
    }
}

/// Why a bounded visibility build ([`build_visibility_within`]) stopped before the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BuildStopped {
    /// The edges found are already more than the bound.
    Edges,
    /// Its work is more than the bound, or the corners done so far (at least [`MIN_SAMPLE`],
    /// spread over the level) foretell more than [`PROJECTION_MARGIN`] times the bound.
    Work {
        /// The whole build's work at the mean cost per corner so far (at least the work done).
        projected: u64,
    },
}

/// Per-thread walk state: the polygons to visit and the ones seen in this walk.
struct Scratch {
    todo: Vec<u32>,
    seen: Vec<u32>,
    stamp: u32,
    /// Polygons entered by every walk so far.
    visits: u64,
    /// Corner pairs tested so far.
    pairs: u64,
}

impl Scratch {
    fn new(polygons: usize) -> Scratch {
        Scratch { todo: Vec::new(), seen: vec![0; polygons], stamp: 0, visits: 0, pairs: 0 }
    }

    fn begin(&mut self) {
        self.todo.clear();
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.fill(0);
            self.stamp = 1;
        }
    }

    fn push(&mut self, p: u32) {
        if self.seen[p as usize] != self.stamp {
            self.seen[p as usize] = self.stamp;
            self.todo.push(p);
        }
    }

    fn pop(&mut self) -> Option<u32> {
        let p = self.todo.pop()?;
        self.visits += 1;
        Some(p)
    }
}

/// What the visibility stage did with the graph (see [`with_visibility`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GraphOutcome {
    /// The graph is in the asset.
    Stored,
    /// The graph was left out, for the reason given.
    LeftOut(GraphLeftOut),
}

/// Why the visibility stage left the graph out of the asset.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum GraphLeftOut {
    /// The graph's encoded size is above `max_visibility_ratio` times the rest of the asset.
    #[error(
        "visibility graph left out: at least {graph_bytes} bytes, more than {max_ratio} x the rest of the asset \
         ({rest_bytes} bytes); exact paths will search without it (raise `max_visibility_ratio` to keep it)"
    )]
    TooLarge {
        /// The graph's encoded size, or where its build stopped early, a lower bound of it.
        graph_bytes: usize,
        /// The encoded size of the rest of the asset.
        rest_bytes: usize,
        /// The bound (`BakeSettings::max_visibility_ratio`).
        max_ratio: f64,
    },
    /// The build costs more than the stage's work budget.
    #[error(
        "visibility graph left out: its build would cost about {projected_work} work units, more than the stage's \
         budget of {max_work}; exact paths will search without it (raise `max_visibility_work` to keep it)"
    )]
    TooCostly {
        /// The budget (`BakeSettings::max_visibility_work`, or its default).
        max_work: u64,
        /// The build's whole cost, projected from the corners it walked before it stopped.
        projected_work: u64,
    },
}

/// The encoded size in bytes of `mesh`'s visibility graph and of the rest of its asset.
pub fn graph_and_rest_bytes(mesh: &NavMesh) -> (usize, usize) {
    let rest = meadow::asset::to_bytes(&NavMeshData { visibility: None, ..mesh.data().clone() }).len();
    // Bincode writes an absent option as one tag byte and a present one as the same tag byte
    // followed by the value, so the difference is the graph's own encoding.
    (meadow::asset::to_bytes(mesh.data()).len() - rest, rest)
}

/// The visibility stage: `nav` with its corner visibility graph, unless the graph's encoded
/// size is above `max_ratio` times the rest of the asset, or its build costs more than
/// `max_work` ([`BakeSettings::max_visibility_work`](meadow::BakeSettings)); then `nav` without it. The build stops soon after either bound is
/// passed (at the end of a chunk of corners), so a graph that would be left out costs little
/// of its build and the stage's time is bounded whatever the level.
pub fn with_visibility(
    nav: NavMesh,
    max_ratio: f64,
    max_work: u64,
) -> Result<(NavMesh, GraphOutcome), meadow::ValidationError> {
    let rest_bytes = meadow::asset::to_bytes(nav.data()).len();
    let max_bytes = max_ratio * rest_bytes as f64;
    let max_edges = ((max_bytes / EDGE_BYTES as f64).floor().min(usize::MAX as f64)) as usize;
    let graph = match build_visibility_within(&nav, max_edges, max_work) {
        Ok(graph) => graph,
        Err(BuildStopped::Edges) => {
            let graph_bytes = (max_edges + 1).saturating_mul(EDGE_BYTES);
            let too_large = GraphLeftOut::TooLarge { graph_bytes, rest_bytes, max_ratio };
            return Ok((nav, GraphOutcome::LeftOut(too_large)));
        }
        Err(BuildStopped::Work { projected }) => {
            let too_costly = GraphLeftOut::TooCostly { max_work, projected_work: projected };
            return Ok((nav, GraphOutcome::LeftOut(too_costly)));
        }
    };
    let with = NavMesh::new(NavMeshData { visibility: Some(graph), ..nav.into_data() })?;
    let (graph_bytes, rest_bytes) = graph_and_rest_bytes(&with);
    if graph_bytes as f64 <= max_bytes {
        return Ok((with, GraphOutcome::Stored));
    }
    let too_large = GraphLeftOut::TooLarge { graph_bytes, rest_bytes, max_ratio };
    let without = NavMesh::new(NavMeshData { visibility: None, ..with.into_data() })?;
    Ok((without, GraphOutcome::LeftOut(too_large)))
}

/// Fewest encoded bytes of one directed edge of the graph: its target (a variable-length
/// integer, at least 1 byte) and its length (an `f64`, 8 bytes).
const EDGE_BYTES: usize = 9;

/// Most corners walked per parallel batch: large enough to keep the threads busy, small enough
/// that a build over its edge bound stops soon after passing it.
const CORNER_CHUNK: usize = 512;

/// Corners in the first batch, before the cost per corner is known: the sample a projection of
/// the build's cost may rest on.
const FIRST_CHUNK: usize = MIN_SAMPLE;

/// The spread order walks every `SPREAD`-th corner first: corners are numbered by vertex, and
/// vertices by the bake's regions, so neighbours in number are neighbours in the level.
const SPREAD: usize = 64;

/// Corner pairs tested per unit of work: a pair's test (components, then the taut rule) costs
/// about a sixteenth of entering a polygon in a walk.
pub const PAIRS_PER_WORK_UNIT: u64 = 16;

/// Fewest corners walked before the build may stop on a projection of its cost.
pub const MIN_SAMPLE: usize = 32;

/// A build stops at once when the corners walked foretell more than this many times the work
/// budget: a sample of 32 corners spread over the level would have to overestimate the mean
/// cost per corner by this factor for a graph within budget to be left out.
pub const PROJECTION_MARGIN: u64 = 4;

/// Fewest corners per batch (near the work bound, batches shrink to this).
const MIN_CHUNK: usize = 8;

/// Builds the corner visibility graph of `mesh`.
pub fn build_visibility(mesh: &NavMesh) -> VisibilityGraph {
    build_visibility_counted(mesh).0
}

/// Builds the corner visibility graph of `mesh`, and the work it took (in the units of
/// `BakeSettings::max_visibility_work`).
pub fn build_visibility_counted(mesh: &NavMesh) -> (VisibilityGraph, u64) {
    let t = Tables::new(mesh);
    let (adjacency, work) = t.adjacency(true);
    (t.graph(&adjacency), work)
}

/// Builds the corner visibility graph of `mesh`, or says why it stopped: as soon as it is sure
/// to hold more than `max_edges` directed edges, or its work is (or is foretold to be) more than
/// `max_work`.
pub fn build_visibility_within(
    mesh: &NavMesh,
    max_edges: usize,
    max_work: u64,
) -> Result<VisibilityGraph, BuildStopped> {
    let t = Tables::new(mesh);
    let (adjacency, _) = t.adjacency_within(true, max_edges, max_work)?;
    Ok(t.graph(&adjacency))
}

/// The number of corner pairs that see each other, before the taut rule prunes them.
pub fn visible_pair_count(mesh: &NavMesh) -> usize {
    Tables::new(mesh).adjacency(false).0.iter().map(Vec::len).sum::<usize>() / 2
}

impl Tables<'_> {
    /// The graph in CSR form from its adjacency lists.
    fn graph(&self, adjacency: &[Vec<u32>]) -> VisibilityGraph {
        let mut g = VisibilityGraph {
            corners: self.corners.iter().map(|c| c.vertex).collect(),
            polygons: self.corners.iter().map(|c| c.polygon).collect(),
            first_edge: Vec::with_capacity(self.corners.len() + 1),
            targets: Vec::new(),
            lengths: Vec::new(),
        };
        g.first_edge.push(0);
        let v = &self.d.vertices;
        for (c, list) in self.corners.iter().zip(adjacency) {
            let a = v[c.vertex as usize];
            for &j in list {
                let b = v[self.corners[j as usize].vertex as usize];
                g.targets.push(j);
                g.lengths.push((b[0] - a[0]).hypot(b[2] - a[2]));
            }
            g.first_edge.push(g.targets.len() as u32);
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use meadow_testkit::testmesh::GridSpec;
    use meadow_testkit::visibility::naive_graph;

    #[test]
    fn a_bounded_build_stops_exactly_above_its_edge_bound() {
        // Enough corners for several chunks, so the bound is checked between chunks too.
        let blocked = meadow_testkit::testmesh::random_blocked(80, 80, 0.3, 7);
        let spec = GridSpec { cols: 80, rows: 80, blocked, jitter: 0.1, seed: 7, ..GridSpec::default() };
        let mesh = NavMesh::new(spec.build()).unwrap();
        let g = build_visibility(&mesh);
        let edges = g.targets.len();
        assert!(g.corners.len() > CORNER_CHUNK && edges > 0, "{} corners", g.corners.len());
        assert_eq!(build_visibility_within(&mesh, edges, u64::MAX), Ok(g));
        assert_eq!(build_visibility_within(&mesh, edges - 1, u64::MAX), Err(BuildStopped::Edges));
        assert_eq!(build_visibility_within(&mesh, 0, u64::MAX), Err(BuildStopped::Edges));
    }

    #[test]
    fn a_bounded_build_stops_exactly_above_its_work_bound_for_any_thread_count() {
        let blocked = meadow_testkit::testmesh::random_blocked(60, 60, 0.3, 11);
        let spec = GridSpec { cols: 60, rows: 60, blocked, jitter: 0.1, seed: 11, ..GridSpec::default() };
        let mesh = NavMesh::new(spec.build()).unwrap();
        let (g, work) = build_visibility_counted(&mesh);
        assert!(work > g.targets.len() as u64, "{work} work units");
        let in_pool = |threads: usize, max_edges: usize, max_work: u64| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            pool.install(|| build_visibility_within(&mesh, max_edges, max_work))
        };
        for threads in [1, 3] {
            assert_eq!(in_pool(threads, usize::MAX, work), Ok(g.clone()));
            assert!(matches!(in_pool(threads, usize::MAX, work - 1), Err(BuildStopped::Work { .. })));
            assert_eq!(in_pool(threads, usize::MAX, work / 3), in_pool(1, usize::MAX, work / 3));
            // A build foretold far over its budget stops after its first sample.
            let Err(BuildStopped::Work { projected }) = in_pool(threads, usize::MAX, work / 10) else {
                panic!("a tenth of the work needed");
            };
            assert!(projected > work / 2 && projected < work * 2, "projected {projected} of {work}");
            // Whichever bound a batch passes first decides, the same way on any thread count.
            let edges = g.targets.len() / 2;
            assert_eq!(in_pool(threads, edges, work / 2), in_pool(1, edges, work / 2));
        }
    }

    #[test]
    fn grids_match_the_brute_force_graph() {
        for seed in 0..12u64 {
            let (cols, rows) = (6 + seed as usize % 3, 5);
            let blocked = meadow_testkit::testmesh::random_blocked(cols, rows, 0.3, seed);
            let spec =
                GridSpec { cols, rows, blocked, triangulate: seed % 2 == 0, jitter: 0.1, seed, ..GridSpec::default() };
            let mesh = NavMesh::new(spec.build()).unwrap();
            let g = build_visibility(&mesh);
            assert_eq!(g, naive_graph(&mesh), "seed {seed}");
            let data = NavMeshData { visibility: Some(g), ..mesh.data().clone() };
            NavMesh::new(data).unwrap();
        }
    }

    #[test]
    fn pinched_grids_match_the_brute_force_graph() {
        // Cells touching only at a corner pinch the walkable area at a vertex of two wedges:
        // segments through it must stay within one wedge in both builds.
        for seed in 0..12u64 {
            let (cols, rows) = (7, 6);
            let mut rng = meadow_testkit::rng::SplitMix64::new(seed);
            let blocked = (0..cols * rows).map(|_| rng.next_f64() < 0.35).collect();
            let spec = GridSpec { cols, rows, blocked, triangulate: seed % 2 == 1, ..GridSpec::default() };
            let mesh = NavMesh::new(spec.build()).unwrap();
            assert_eq!(build_visibility(&mesh), naive_graph(&mesh), "seed {seed}");
        }
    }

    #[test]
    fn unlinked_layers_see_only_their_own_corners() {
        let mut blocked = vec![false; 15];
        blocked[6] = true;
        let bottom = GridSpec { cols: 5, rows: 3, blocked: blocked.clone(), ..GridSpec::default() };
        blocked[6] = false;
        blocked[8] = true;
        let top = GridSpec { cols: 5, rows: 3, blocked, layer: 1, origin: [0.0, 3.0, 0.0], ..GridSpec::default() };
        let mesh = NavMesh::new(meadow_testkit::testmesh::combine(bottom.build(), top.build())).unwrap();
        let g = build_visibility(&mesh);
        assert_eq!(g, naive_graph(&mesh));
        assert_eq!(g.node_count(), 8);
        for i in 0..g.node_count() {
            for (t, _) in g.edges(i) {
                let (a, b) = (g.corners[i] as usize, g.corners[t as usize] as usize);
                assert_eq!(mesh.vertices()[a][1], mesh.vertices()[b][1]);
            }
        }
    }
}
