//! Stage 4, triangulate: a polygon with holes → triangles, by ear clipping with hole bridging,
//! then edge flips to the constrained Delaunay triangulation ([`make_delaunay`]).
//!
//! Steps 1 to 5 work on doubly linked rings of nodes (a node is one visit of a ring to a
//! vertex):
//! 1. Clean: drop zero-length edges and zero-area spikes, read rings of the wrong winding
//!    backwards, drop rings without area.
//! 2. Touches: a vertex lying inside another edge gets a visit on that edge, so rings touch
//!    only at shared coordinates; then any two edges that still meet elsewhere than at a
//!    shared end are crossing rings, an error.
//! 3. Join: holes right to left by their rightmost vertex (so an unjoined hole never blocks a
//!    bridge). A hole touching the joined ring is spliced in at that point; otherwise it is
//!    bridged to a mutually visible node found Eberly's way (ray to +x, nearest edge hit, node
//!    of least angle in the triangle it spans), through a grid of edges, checked exactly.
//! 4. Uncross: where the ring visits a point several times, the visits are reconnected so that
//!    each bounds one sector of the polygon there (the ring may fall apart into several).
//! 5. Clip: ears (strictly convex corner, no other node reaching into the triangle; a grid of
//!    nodes finds the candidates) are cut off going round each ring, trying the neighbours of
//!    recent cuts first after a few misses. A cut whose new edge runs back along an existing
//!    edge cancels both (the region between is used up). If a ring has no ear left, it is
//!    split where it touches itself or along a diagonal (last resorts, not needed by any
//!    known valid input).
//! 6. Flip ([`make_delaunay`], a separate call): Lawson's algorithm turns the ear-clipped
//!    triangles into the constrained Delaunay triangulation of the rings. Ear clipping leaves
//!    long fans of slivers (from a round pillar's arc to a far corner, say); their edges
//!    become long portals between convex polygons, whose midpoints mislead path searches,
//!    and slivers merge into more convex polygons than fatter triangles do.
//!
//! Every topological decision goes through [`orient2d`] (and, for flips, [`incircle`]). If
//! ear clipping fails because the input is invalid only by rounding errors (float output of
//! boolean operations), the whole is retried once with vertices that close to another edge
//! snapped onto it ([`triangulate`]).
//!
//! Coincident vertices (rings touching at a point) are welded: triangles index the first vertex
//! with the given coordinates, so triangles meeting there share an index.

use crate::region::PolygonWithHoles;
use meadow::geom::{incircle, orient2d, Point2};
use std::cmp::Ordering;
use std::collections::VecDeque;

/// Triangles over the vertices of one polygon with holes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Triangulation {
    /// The ring vertices: the outer ring's, then each hole's, in ring order.
    pub vertices: Vec<Point2>,
    /// Counter-clockwise triangles indexing `vertices`. Where several vertices share
    /// coordinates, triangles use the first of them.
    pub triangles: Vec<[u32; 3]>,
}

/// Why a polygon could not be triangulated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum TriangulateError {
    /// A vertex has a NaN or infinite coordinate.
    #[error("vertex {vertex} of {} has a non-finite coordinate", ring_name(*.hole))]
    NonFiniteVertex {
        /// The hole the vertex belongs to, `None` for the outer ring.
        hole: Option<usize>,
        /// The vertex's position in its ring.
        vertex: usize,
    },
    /// A vertex has a coordinate beyond ±[`MAX_COORDINATE`].
    #[error("vertex {vertex} of {} has a coordinate beyond ±1e100", ring_name(*.hole))]
    VertexOutOfRange {
        /// The hole the vertex belongs to, `None` for the outer ring.
        hole: Option<usize>,
        /// The vertex's position in its ring.
        vertex: usize,
    },
    /// More vertices than `u32` indices can address.
    #[error("{count} vertices are too many to index with u32")]
    TooManyVertices {
        /// The total number of ring vertices.
        count: usize,
    },
    /// No segment joins the hole to the outer ring without crossing an edge: the hole is not
    /// inside the outer ring, or rings cross.
    #[error("hole {hole} cannot be joined to the outer ring (outside it, or crossing rings?)")]
    NoBridge {
        /// The hole's index in [`PolygonWithHoles::holes`].
        hole: usize,
    },
    /// Two ring edges cross or overlap (more than rounding errors can explain).
    #[error("ring edges {first:?} and {second:?} cross")]
    CrossingEdges {
        /// One edge, as the coordinates of its end points.
        first: [Point2; 2],
        /// The other edge.
        second: [Point2; 2],
    },
    /// Ear clipping found neither an ear nor a diagonal to split at: the rings cross.
    #[error("no ear or diagonal found in a ring of {remaining} vertices (crossing rings?)")]
    NoEar {
        /// Vertices left in the ring that could not be clipped.
        remaining: usize,
    },
}

fn ring_name(hole: Option<usize>) -> String {
    match hole {
        None => "the outer ring".to_string(),
        Some(h) => format!("hole {h}"),
    }
}

pub use crate::tolerance::MAX_TRIANGULATE_COORDINATE as MAX_COORDINATE;
use crate::tolerance::{EDGE_GRID_COLUMN_MARGIN, SNAP_ULPS};

/// Ear-clips `polygon` (outer ring counter-clockwise, holes clockwise) into triangles that
/// cover exactly its area.
///
/// Rings of the opposite winding are read backwards, zero-length edges and zero-area spikes
/// are dropped (they cover no area); collinear vertices are kept and used by triangles. A
/// vertex inside another edge makes the rings touch there.
///
/// Float output of boolean operations can put a vertex a few rounding errors inside another
/// ring (an overlap that does not exist in the library's exact integer result). When the exact
/// triangulation fails for that reason, it is retried once with such vertices taken as
/// touching the edge they sit next to (the edge is bent through them; the area changes by
/// rounding-error amounts).
pub fn triangulate(polygon: &PolygonWithHoles) -> Result<Triangulation, TriangulateError> {
    match triangulate_snapped(polygon, 0.0) {
        Err(
            error @ (TriangulateError::NoBridge { .. }
            | TriangulateError::NoEar { .. }
            | TriangulateError::CrossingEdges { .. }),
        ) => {
            let rings = std::iter::once(&polygon.outer).chain(&polygon.holes);
            let scale = rings.flatten().fold(0.0f64, |m, p| m.max(p[0].abs()).max(p[1].abs()));
            let snap = SNAP_ULPS * f64::EPSILON * scale;
            triangulate_snapped(polygon, snap).map_err(|_| error)
        }
        result => result,
    }
}

/// [`triangulate`], with vertices closer than `snap` to the inside of another edge taken as
/// touching it (exactly on it only, when `snap` is 0).
fn triangulate_snapped(polygon: &PolygonWithHoles, snap: f64) -> Result<Triangulation, TriangulateError> {
    let rings: Vec<&[Point2]> =
        std::iter::once(polygon.outer.as_slice()).chain(polygon.holes.iter().map(Vec::as_slice)).collect();
    let count: usize = rings.iter().map(|r| r.len()).sum();
    // Nodes get u32 ids: room for every vertex, two bridge copies per hole and split copies.
    if count.saturating_add(2 * rings.len()) > (u32::MAX / 4) as usize {
        return Err(TriangulateError::TooManyVertices { count });
    }
    let mut vertices = Vec::with_capacity(count);
    for (r, ring) in rings.iter().enumerate() {
        for (i, p) in ring.iter().enumerate() {
            if !(p[0].is_finite() && p[1].is_finite()) {
                return Err(TriangulateError::NonFiniteVertex { hole: r.checked_sub(1), vertex: i });
            }
            if p[0].abs() > MAX_COORDINATE || p[1].abs() > MAX_COORDINATE {
                return Err(TriangulateError::VertexOutOfRange { hole: r.checked_sub(1), vertex: i });
            }
            vertices.push(*p);
        }
    }
    let (canonical, shared) = weld(&vertices);
    let mut clipper = Clipper::new(&vertices, canonical, shared);

    let mut offset = 0;
    let mut ring_starts = Vec::with_capacity(rings.len());
    for ring in &rings {
        ring_starts.push(clipper.build_ring(offset, ring.len()));
        offset += ring.len();
    }

    let mut triangles = Vec::new();
    let Some(outer) = clipper.prepare_ring(ring_starts[0], Winding::CounterClockwise) else {
        return Ok(Triangulation { vertices, triangles });
    };

    // Holes right to left by their rightmost vertex, so an unjoined hole never blocks a bridge.
    let mut holes: Vec<(usize, u32)> = Vec::new();
    for (h, start) in ring_starts.iter().enumerate().skip(1) {
        if let Some(start) = clipper.prepare_ring(*start, Winding::Clockwise) {
            holes.push((h - 1, clipper.rightmost(start)));
        }
    }
    let rings: Vec<u32> = std::iter::once(outer).chain(holes.iter().map(|h| h.1)).collect();
    clipper.split_touched_edges(&rings, snap);
    clipper.register(outer);
    holes.sort_by(|a, b| {
        let (pa, pb) = (clipper.pos[a.1 as usize], clipper.pos[b.1 as usize]);
        pb[0].total_cmp(&pa[0]).then(a.0.cmp(&b.0))
    });
    clipper.build_grid();
    clipper.build_edge_grid(&rings);
    if let Some((e, f)) = clipper.crossing_edges() {
        return Err(TriangulateError::CrossingEdges { first: e, second: f });
    }
    for &(hole, rightmost) in &holes {
        if !clipper.join_hole(outer, rightmost) {
            return Err(TriangulateError::NoBridge { hole });
        }
    }
    let rings = clipper.uncross_touches(outer);
    clipper.clip_all(rings, &mut triangles)?;
    Ok(Triangulation { vertices, triangles })
}

/// For every vertex the first vertex with the same coordinates, and whether any other vertex
/// shares its coordinates.
fn weld(vertices: &[Point2]) -> (Vec<u32>, Vec<bool>) {
    let mut order: Vec<u32> = (0..vertices.len() as u32).collect();
    let key = |i: u32| vertices[i as usize];
    // Finite coordinates: `partial_cmp` is total here and treats -0.0 and 0.0 as equal.
    let cmp = |a: Point2, b: Point2| {
        a[0].partial_cmp(&b[0]).unwrap_or(Ordering::Equal).then(a[1].partial_cmp(&b[1]).unwrap_or(Ordering::Equal))
    };
    order.sort_by(|&a, &b| cmp(key(a), key(b)).then(a.cmp(&b)));
    let mut canonical = vec![0u32; vertices.len()];
    let mut shared = vec![false; vertices.len()];
    let mut i = 0;
    while i < order.len() {
        let mut j = i + 1;
        while j < order.len() && cmp(key(order[i]), key(order[j])) == Ordering::Equal {
            j += 1;
        }
        for &v in &order[i..j] {
            canonical[v as usize] = order[i];
            shared[v as usize] = j - i > 1;
        }
        i = j;
    }
    (canonical, shared)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Winding {
    CounterClockwise,
    Clockwise,
}

/// The signs of `to − from` in each coordinate (exact): equal for two collinear vectors
/// exactly when they point the same way.
fn direction(from: Point2, to: Point2) -> (Ordering, Ordering) {
    (to[0].partial_cmp(&from[0]).unwrap_or(Ordering::Equal), to[1].partial_cmp(&from[1]).unwrap_or(Ordering::Equal))
}

/// Whether `p` lies on the closed segment `a b`, given that the three are collinear.
fn within_box(a: Point2, b: Point2, p: Point2) -> bool {
    p[0] >= a[0].min(b[0]) && p[0] <= a[0].max(b[0]) && p[1] >= a[1].min(b[1]) && p[1] <= a[1].max(b[1])
}

/// Whether closed segments `a b` and `c d` share a point.
fn segments_touch(a: Point2, b: Point2, c: Point2, d: Point2) -> bool {
    let (o1, o2) = (orient2d(a, b, c), orient2d(a, b, d));
    let (o3, o4) = (orient2d(c, d, a), orient2d(c, d, b));
    let opposite = |u: f64, v: f64| (u > 0.0 && v < 0.0) || (u < 0.0 && v > 0.0);
    (opposite(o1, o2) && opposite(o3, o4))
        || (o1 == 0.0 && within_box(a, b, c))
        || (o2 == 0.0 && within_box(a, b, d))
        || (o3 == 0.0 && within_box(c, d, a))
        || (o4 == 0.0 && within_box(c, d, b))
}

/// Whether `p` lies within `distance` of the segment `a b`, level with its inside.
fn near_inside(a: Point2, b: Point2, p: Point2, distance: f64) -> bool {
    let ab = [b[0] - a[0], b[1] - a[1]];
    let ap = [p[0] - a[0], p[1] - a[1]];
    let len2 = ab[0] * ab[0] + ab[1] * ab[1];
    let t = (ap[0] * ab[0] + ap[1] * ab[1]) / len2;
    if !(t > 0.0 && t < 1.0) {
        return false;
    }
    let off = [ap[0] - ab[0] * t, ap[1] - ab[1] * t];
    off[0] * off[0] + off[1] * off[1] <= distance * distance
}

/// Whether direction `d` (from the apex `c`) lies strictly inside the wedge swept
/// counter-clockwise from direction `r1` to direction `r2`. A wedge whose rays coincide is
/// taken as empty (the tip of a zero-area spike).
fn strictly_in_wedge(c: Point2, r1: Point2, r2: Point2, d: Point2) -> bool {
    let o12 = orient2d(c, r1, r2);
    let o1d = orient2d(c, r1, d);
    let o2d = orient2d(c, r2, d);
    if o12 > 0.0 {
        o1d > 0.0 && o2d < 0.0
    } else if o12 < 0.0 {
        !(o1d <= 0.0 && o2d >= 0.0)
    } else if direction(c, r1) == direction(c, r2) {
        false
    } else {
        o1d > 0.0
    }
}

/// Whether direction `d` lies in the closed wedge from `r1` counter-clockwise to `r2`.
fn closed_in_wedge(c: Point2, r1: Point2, r2: Point2, d: Point2) -> bool {
    !strictly_in_wedge(c, r2, r1, d)
}

/// A uniform grid over node positions for the ear test's neighbourhood queries. Removed nodes
/// stay in their cells and are skipped by the caller.
struct Grid {
    min: Point2,
    scale: Point2,
    dims: [usize; 2],
    cells: Vec<Vec<u32>>,
}

impl Grid {
    /// A grid over the box `min ..= max` with about `n` square-ish cells.
    fn over(min: Point2, max: Point2, n: usize) -> Grid {
        if !(min[0] <= max[0] && min[1] <= max[1]) {
            return Grid { min: [0.0; 2], scale: [0.0; 2], dims: [1, 1], cells: vec![Vec::new()] };
        }
        let size = [max[0] - min[0], max[1] - min[1]];
        let target = (n as f64).max(1.0);
        let (nx, nz) = if size[0] > 0.0 && size[1] > 0.0 {
            let nx = (target * size[0] / size[1]).sqrt();
            (nx.clamp(1.0, target), (target / nx).clamp(1.0, target))
        } else if size[0] > 0.0 {
            (target, 1.0)
        } else {
            (1.0, target)
        };
        let dims = [(nx.ceil() as usize).clamp(1, 2048), (nz.ceil() as usize).clamp(1, 2048)];
        let scale = [
            if size[0] > 0.0 { dims[0] as f64 / size[0] } else { 0.0 },
            if size[1] > 0.0 { dims[1] as f64 / size[1] } else { 0.0 },
        ];
        Grid { min, scale, dims, cells: vec![Vec::new(); dims[0] * dims[1]] }
    }

    /// The cell column/row of a coordinate; monotone in the coordinate, so a box query's
    /// corner cells bound the cells of every point inside the box.
    fn cell(&self, p: Point2) -> [usize; 2] {
        let mut c = [0; 2];
        for k in 0..2 {
            // `as` saturates: negative (and NaN) go to 0.
            c[k] = (((p[k] - self.min[k]) * self.scale[k]) as usize).min(self.dims[k] - 1);
        }
        c
    }

    fn insert(&mut self, id: u32, p: Point2) {
        self.insert_box(id, p, p);
    }

    /// Files `id` in every cell the box `lo ..= hi` overlaps.
    fn insert_box(&mut self, id: u32, lo: Point2, hi: Point2) {
        let (c0, c1) = (self.cell(lo), self.cell(hi));
        for z in c0[1]..=c1[1] {
            for x in c0[0]..=c1[0] {
                self.cells[z * self.dims[0] + x].push(id);
            }
        }
    }

    /// The cells the segment `a b` passes through, with a margin of a cell across it for
    /// rounding. A long slanted segment stays in few cells, unlike its bounding box.
    fn segment_cells(&self, a: Point2, b: Point2) -> impl Iterator<Item = usize> + '_ {
        let (ca, cb) = (self.cell(a), self.cell(b));
        let (lo_x, hi_x) = (a[0].min(b[0]), a[0].max(b[0]));
        let (lo_z, hi_z) = (a[1].min(b[1]), a[1].max(b[1]));
        let slanted = ca[0] != cb[0] && a[0] != b[0] && self.scale[0] > 0.0;
        (ca[0].min(cb[0])..=ca[0].max(cb[0])).flat_map(move |c| {
            let (z0, z1) = if slanted {
                // The segment's z range over the column, the column a little widened.
                let width = 1.0 / self.scale[0];
                let x0 = (self.min[0] + (c as f64 - EDGE_GRID_COLUMN_MARGIN) * width).max(lo_x);
                let x1 = (self.min[0] + (c as f64 + (1.0 + EDGE_GRID_COLUMN_MARGIN)) * width).min(hi_x);
                let z_at = |x: f64| (a[1] + (x - a[0]) * (b[1] - a[1]) / (b[0] - a[0])).clamp(lo_z, hi_z);
                (z_at(x0).min(z_at(x1)), z_at(x0).max(z_at(x1)))
            } else {
                (lo_z, hi_z)
            };
            let r0 = self.cell([a[0], z0])[1].saturating_sub(1);
            let r1 = (self.cell([a[0], z1])[1] + 1).min(self.dims[1] - 1);
            (r0..=r1).map(move |r| r * self.dims[0] + c)
        })
    }

    /// Files `id` in the cells the segment `a b` passes through.
    fn insert_segment(&mut self, id: u32, a: Point2, b: Point2) {
        let cells: Vec<usize> = self.segment_cells(a, b).collect();
        for c in cells {
            self.cells[c].push(id);
        }
    }

    /// The ids filed in the cells the segment `a b` passes through (an id may repeat).
    fn query_segment(&self, a: Point2, b: Point2) -> impl Iterator<Item = u32> + '_ {
        self.segment_cells(a, b).flat_map(move |c| self.cells[c].iter().copied())
    }

    /// The ids filed in the cells overlapping the box `lo ..= hi` (an id may repeat).
    fn query(&self, lo: Point2, hi: Point2) -> impl Iterator<Item = u32> + '_ {
        let (c0, c1) = (self.cell(lo), self.cell(hi));
        (c0[1]..=c1[1])
            .flat_map(move |z| (c0[0]..=c1[0]).map(move |x| z * self.dims[0] + x))
            .flat_map(move |c| self.cells[c].iter().copied())
    }
}

/// The bounding box of points.
fn bounds(points: impl Iterator<Item = Point2>) -> (Point2, Point2) {
    points.fold(([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]), |(lo, hi), p| {
        ([lo[0].min(p[0]), lo[1].min(p[1])], [hi[0].max(p[0]), hi[1].max(p[1])])
    })
}

/// The linked ring of nodes being clipped. A node is one visit of the ring to a vertex; bridge
/// ends and diagonal splits visit a vertex twice.
struct Clipper {
    pos: Vec<Point2>,
    /// The welded vertex index of each node (equal iff equal coordinates).
    vert: Vec<u32>,
    prev: Vec<u32>,
    next: Vec<u32>,
    alive: Vec<bool>,
    /// Whether some other vertex has the same coordinates as this welded vertex.
    shared: Vec<bool>,
    /// Nodes of the joined ring at shared coordinates, by welded vertex: where holes touch.
    joined_at: Vec<Vec<u32>>,
    /// The live nodes by position, for the bridge search and the ear test.
    grid: Option<Grid>,
    /// Every ring edge and bridge as welded vertex pairs, for the bridge search: edges never
    /// disappear while holes are joined (a splice only reconnects them).
    edges: Vec<[u32; 2]>,
    /// `edges` by the cells their bounding boxes overlap.
    edge_grid: Option<Grid>,
}

impl Clipper {
    fn new(vertices: &[Point2], canonical: Vec<u32>, shared: Vec<bool>) -> Clipper {
        let n = vertices.len();
        Clipper {
            pos: Vec::with_capacity(n + 16),
            vert: Vec::with_capacity(n + 16),
            prev: Vec::with_capacity(n + 16),
            next: Vec::with_capacity(n + 16),
            alive: Vec::with_capacity(n + 16),
            joined_at: vec![Vec::new(); n],
            shared,
            grid: None,
            edges: Vec::new(),
            edge_grid: None,
        }
        .with_vertices(vertices, &canonical)
    }

    fn with_vertices(mut self, vertices: &[Point2], canonical: &[u32]) -> Clipper {
        for (p, c) in vertices.iter().zip(canonical) {
            self.push_node(*p, *c);
        }
        self
    }

    fn push_node(&mut self, p: Point2, vert: u32) -> u32 {
        let id = self.pos.len() as u32;
        self.pos.push(p);
        self.vert.push(vert);
        self.prev.push(id);
        self.next.push(id);
        self.alive.push(true);
        if let Some(grid) = &mut self.grid {
            grid.insert(id, p);
        }
        id
    }

    /// A copy of node `v` (same vertex), not linked.
    fn copy_node(&mut self, v: u32) -> u32 {
        self.push_node(self.pos[v as usize], self.vert[v as usize])
    }

    fn p(&self, v: u32) -> Point2 {
        self.pos[v as usize]
    }
    fn nx(&self, v: u32) -> u32 {
        self.next[v as usize]
    }
    fn pv(&self, v: u32) -> u32 {
        self.prev[v as usize]
    }
    fn same_point(&self, a: u32, b: u32) -> bool {
        self.vert[a as usize] == self.vert[b as usize]
    }

    fn link(&mut self, a: u32, b: u32) {
        self.next[a as usize] = b;
        self.prev[b as usize] = a;
    }

    fn remove(&mut self, v: u32) {
        let (p, n) = (self.pv(v), self.nx(v));
        self.link(p, n);
        self.alive[v as usize] = false;
    }

    /// Links the nodes `offset..offset + len` (one input ring) into a cycle; `None` if empty.
    fn build_ring(&mut self, offset: usize, len: usize) -> Option<u32> {
        if len == 0 {
            return None;
        }
        for i in 0..len {
            self.link((offset + i) as u32, (offset + (i + 1) % len) as u32);
        }
        Some(offset as u32)
    }

    /// Nodes of the ring through `start`, in order.
    fn ring_nodes(&self, start: u32) -> Vec<u32> {
        let mut out = vec![start];
        let mut v = self.nx(start);
        while v != start && out.len() <= self.pos.len() {
            out.push(v);
            v = self.nx(v);
        }
        out
    }

    /// Twice the signed area of the ring through `start`.
    fn ring_area2(&self, start: u32) -> f64 {
        let o = self.p(start);
        let mut sum = 0.0;
        let mut v = self.nx(start);
        let mut guard = 0;
        while self.nx(v) != start && guard <= self.pos.len() {
            let (a, b) = (self.p(v), self.p(self.nx(v)));
            sum += (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
            v = self.nx(v);
            guard += 1;
        }
        sum
    }

    /// Whether node `v` is the tip of a zero-area spike: its edges double back on each other.
    fn is_spike(&self, v: u32) -> bool {
        let (a, b, c) = (self.p(self.pv(v)), self.p(v), self.p(self.nx(v)));
        orient2d(a, b, c) == 0.0 && direction(b, a) == direction(b, c)
    }

    /// Drops zero-length edges and spike tips around the nodes in `work`; returns a live node
    /// of the ring, or `None` when fewer than three nodes remain.
    fn settle(&mut self, mut work: Vec<u32>, count: &mut usize) -> Option<u32> {
        let mut last = *work.last()?;
        while let Some(v) = work.pop() {
            if *count < 3 {
                return None;
            }
            if !self.alive[v as usize] {
                continue;
            }
            last = v;
            let n = self.nx(v);
            if self.same_point(v, n) {
                self.remove(n);
                *count -= 1;
                work.push(self.nx(v));
                work.push(v);
            } else if self.is_spike(v) {
                let (p, n) = (self.pv(v), self.nx(v));
                self.remove(v);
                *count -= 1;
                last = p;
                work.push(n);
                work.push(p);
            }
        }
        if *count < 3 {
            return None;
        }
        // A removed node's successor was alive when it was removed: following them ends at a
        // live node.
        while !self.alive[last as usize] {
            last = self.nx(last);
        }
        Some(last)
    }

    /// Cleans the input ring through `start` and orients it; `None` if it covers no area.
    fn prepare_ring(&mut self, start: Option<u32>, winding: Winding) -> Option<u32> {
        let start = start?;
        let nodes = self.ring_nodes(start);
        let mut count = nodes.len();
        let settled = self.settle(nodes.clone(), &mut count);
        let Some(start) = settled.filter(|&s| self.ring_area2(s) != 0.0) else {
            // Dropped rings must not show up in the bridge search or the ear test.
            for v in nodes {
                self.alive[v as usize] = false;
            }
            return None;
        };
        let area2 = self.ring_area2(start);
        if (area2 < 0.0) != (winding == Winding::Clockwise) {
            for v in self.ring_nodes(start) {
                let i = v as usize;
                std::mem::swap(&mut self.prev[i], &mut self.next[i]);
            }
        }
        Some(start)
    }

    /// The node with the largest x (then smallest z) of a ring.
    fn rightmost(&self, start: u32) -> u32 {
        let mut best = start;
        for v in self.ring_nodes(start) {
            let (p, b) = (self.p(v), self.p(best));
            if p[0] > b[0] || (p[0] == b[0] && p[1] < b[1]) {
                best = v;
            }
        }
        best
    }

    /// Where a vertex lies inside another edge (a ring touching another, or itself, without a
    /// shared vertex there), adds a visit to that vertex to the edge, so that every touch is
    /// at shared coordinates. With `snap > 0`, vertices that close to an edge's inside count.
    fn split_touched_edges(&mut self, rings: &[u32], snap: f64) {
        let nodes: Vec<u32> = rings.iter().flat_map(|&r| self.ring_nodes(r)).collect();
        let (lo, hi) = bounds(nodes.iter().map(|&v| self.p(v)));
        let mut grid = Grid::over(lo, hi, nodes.len());
        for &u in &nodes {
            grid.insert_segment(u, self.p(u), self.p(self.nx(u)));
        }
        // (edge start, touching node), found before any edge changes.
        let mut touches: Vec<(u32, u32)> = Vec::new();
        for &v in &nodes {
            let pv = self.p(v);
            for u in grid.query([pv[0] - snap, pv[1] - snap], [pv[0] + snap, pv[1] + snap]) {
                let w = self.nx(u);
                let (pu, pw) = (self.p(u), self.p(w));
                if self.same_point(u, v) || self.same_point(w, v) {
                    continue;
                }
                let on = orient2d(pu, pw, pv) == 0.0 && within_box(pu, pw, pv);
                if on || (snap > 0.0 && near_inside(pu, pw, pv, snap)) {
                    touches.push((u, v));
                }
            }
        }
        touches.sort_unstable();
        touches.dedup();
        // Several vertices may touch one edge: insert them in order along it.
        for group in touches.chunk_by(|x, y| x.0 == y.0) {
            let u = group[0].0;
            let (pu, w) = (self.p(u), self.nx(u));
            let along = |p: Point2| (p[0] - pu[0]).abs() + (p[1] - pu[1]).abs();
            let mut on_edge: Vec<u32> = group.iter().map(|t| t.1).collect();
            on_edge.sort_by(|&x, &y| along(self.p(x)).total_cmp(&along(self.p(y))).then(x.cmp(&y)));
            on_edge.dedup_by(|x, y| self.same_point(*x, *y));
            let mut last = u;
            for v in on_edge {
                let copy = self.copy_node(v);
                self.shared[self.vert[v as usize] as usize] = true;
                self.link(last, copy);
                last = copy;
            }
            self.link(last, w);
        }
    }

    /// Records the nodes of a ring now part of the joined ring, where holes may touch.
    fn register(&mut self, start: u32) {
        for v in self.ring_nodes(start) {
            self.register_node(v);
        }
    }

    fn register_node(&mut self, v: u32) {
        let w = self.vert[v as usize] as usize;
        if self.shared[w] {
            self.joined_at[w].push(v);
        }
    }

    /// Joins the hole ring through `hole` (its rightmost node) into the ring through `outer`:
    /// at a point where they touch, else by a bridge. Holes to the right of it are joined.
    fn join_hole(&mut self, outer: u32, hole: u32) -> bool {
        let hole_nodes = self.ring_nodes(hole);
        if let Some((o, h)) = self.touch_point(&hole_nodes) {
            // Splice: o → (hole from h's successor round to h) → o's old successor.
            let (on, hn) = (self.nx(o), self.nx(h));
            self.link(o, hn);
            self.link(h, on);
            for v in hole_nodes {
                self.register_node(v);
            }
            return true;
        }
        let target = self.bridge_target(hole).or_else(|| self.bridge_target_exhaustive(outer, hole));
        let Some(target) = target else {
            return false;
        };
        // target → hole … hole' → target' → target's old successor.
        let hole_copy = self.copy_node(hole);
        let target_copy = self.copy_node(target);
        let (tn, hp) = (self.nx(target), self.pv(hole));
        self.link(target, hole);
        self.link(hp, hole_copy);
        self.link(hole_copy, target_copy);
        self.link(target_copy, tn);
        for v in hole_nodes {
            self.register_node(v);
        }
        self.register_node(hole_copy);
        self.register_node(target_copy);
        let (tv, hv) = (self.vert[target as usize], self.vert[hole as usize]);
        self.add_edge([tv, hv]);
        self.add_edge([hv, tv]);
        true
    }

    /// A hole node and a joined node at the same coordinates whose wedge holds the hole there.
    fn touch_point(&self, hole_nodes: &[u32]) -> Option<(u32, u32)> {
        for &h in hole_nodes {
            let w = self.vert[h as usize] as usize;
            if !self.shared[w] {
                continue;
            }
            for &o in &self.joined_at[w] {
                if !self.alive[o as usize] {
                    continue;
                }
                let x = self.p(o);
                let (q, p) = (self.p(self.nx(o)), self.p(self.pv(o)));
                let (hk, h1) = (self.p(self.pv(h)), self.p(self.nx(h)));
                // The hole's body at x (from hk counter-clockwise to h1) must lie in o's wedge
                // (from q counter-clockwise to p).
                if closed_in_wedge(x, q, p, hk) && closed_in_wedge(x, q, p, h1) && !strictly_in_wedge(x, hk, h1, q) {
                    return Some((o, h));
                }
            }
        }
        None
    }

    /// Eberly's bridge target for the hole node `m`: the nearest edge hit by the ray from `m`
    /// towards +x, then the joined node in the triangle (m, hit, edge end) closest in angle to
    /// the ray. Checked exactly before use; `None` if the check fails.
    ///
    /// Holes still unjoined lie left of `m` (holes go right to left), so neither their edges
    /// nor their nodes can be hit or picked.
    fn bridge_target(&self, m: u32) -> Option<u32> {
        let (edge_grid, grid) = (self.edge_grid.as_ref()?, self.grid.as_ref()?);
        let mp = self.p(m);
        let [first, row] = edge_grid.cell(mp);
        let mut hit: Option<(f64, Point2, Point2)> = None;
        for col in first..edge_grid.dims[0] {
            for &e in &edge_grid.cells[row * edge_grid.dims[0] + col] {
                let [u, v] = self.edges[e as usize];
                let (pa, pb) = (self.pos[u as usize], self.pos[v as usize]);
                // Edges crossing the ray's line upwards with m on their inner (left) side.
                if !(pa[1] <= mp[1] && mp[1] <= pb[1] && pa[1] < pb[1] && orient2d(pa, pb, mp) > 0.0) {
                    continue;
                }
                let x = if pa[1] == mp[1] {
                    pa[0]
                } else if pb[1] == mp[1] {
                    pb[0]
                } else {
                    let x = pa[0] + (mp[1] - pa[1]) * (pb[0] - pa[0]) / (pb[1] - pa[1]);
                    x.clamp(pa[0].min(pb[0]), pa[0].max(pb[0]))
                };
                let x = x.max(mp[0]);
                if hit.is_none_or(|(best, _, _)| x < best) {
                    hit = Some((x, pa, pb));
                }
            }
            // Every edge is filed in all cells it passes through: a hit in this column or
            // left of it cannot be beaten by later columns.
            if hit.is_some_and(|(x, _, _)| edge_grid.cell([x, mp[1]])[0] <= col) {
                break;
            }
        }
        let (x, pa, pb) = hit?;
        let hitp = [x, mp[1]];
        let pe = if pa == hitp {
            pa
        } else if pb == hitp || pb[0] > pa[0] {
            pb
        } else {
            pa
        };
        let above = pe[1] > mp[1];
        // The triangle m, hit, end, counter-clockwise.
        let tri = if above { [mp, hitp, pe] } else { [mp, pe, hitp] };
        let degenerate = orient2d(tri[0], tri[1], tri[2]) == 0.0;
        let (lo, hi) = bounds(tri.into_iter());
        let mut best: Option<u32> = None;
        for r in grid.query(lo, hi) {
            let pr = self.p(r);
            if !self.alive[r as usize] || pr[0] <= mp[0] || Some(r) == best {
                continue;
            }
            let inside = if degenerate {
                orient2d(mp, pe, pr) == 0.0 && within_box(mp, pe, pr)
            } else {
                orient2d(tri[0], tri[1], pr) >= 0.0
                    && orient2d(tri[1], tri[2], pr) >= 0.0
                    && orient2d(tri[2], tri[0], pr) >= 0.0
            };
            if !inside || !strictly_in_wedge(pr, self.p(self.nx(r)), self.p(self.pv(r)), mp) {
                continue;
            }
            best = match best {
                None => Some(r),
                Some(cur) => {
                    let pc = self.p(cur);
                    let turn = orient2d(mp, pc, pr);
                    // Smaller angle to the ray wins: clockwise of the current when above it;
                    // on one line, the nearer; at one point, the lower node id.
                    let better = if turn != 0.0 {
                        (turn < 0.0) == above
                    } else if pr[0] != pc[0] {
                        pr[0] < pc[0]
                    } else {
                        r < cur
                    };
                    Some(if better { r } else { cur })
                }
            };
        }
        let best = best?;
        self.segment_clear(mp, self.vert[m as usize], best).then_some(best)
    }

    /// Fallback bridge search: the nearest node (by distance) of the joined ring that sees `m`.
    fn bridge_target_exhaustive(&self, outer: u32, m: u32) -> Option<u32> {
        let mp = self.p(m);
        let mut candidates: Vec<(f64, u32)> = self
            .ring_nodes(outer)
            .into_iter()
            .map(|r| {
                let p = self.p(r);
                ((p[0] - mp[0]).powi(2) + (p[1] - mp[1]).powi(2), r)
            })
            .collect();
        candidates.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        candidates.into_iter().map(|(_, r)| r).find(|&r| {
            !self.same_point(r, m)
                && strictly_in_wedge(self.p(r), self.p(self.nx(r)), self.p(self.pv(r)), mp)
                && strictly_in_wedge(mp, self.p(self.nx(m)), self.p(self.pv(m)), self.p(r))
                && self.segment_clear(mp, self.vert[m as usize], r)
        })
    }

    /// Whether the segment from `a` (welded vertex `a_vert`) to node `b` meets no indexed edge
    /// (ring edges of every ring, joined or not, and bridges) except at its own end points.
    fn segment_clear(&self, a: Point2, a_vert: u32, b: u32) -> bool {
        let Some(edge_grid) = &self.edge_grid else {
            return false;
        };
        let bp = self.p(b);
        edge_grid.query_segment(a, bp).all(|e| {
            let [u, v] = self.edges[e as usize];
            self.edge_clear(a, a_vert, bp, self.vert[b as usize], u, v)
        })
    }

    /// Whether segment `a b` (welded vertices `a_vert`, `b_vert`) and the edge between welded
    /// vertices `u`, `v` meet only at the segment's end points.
    fn edge_clear(&self, a: Point2, a_vert: u32, bp: Point2, b_vert: u32, u: u32, v: u32) -> bool {
        let at_end = |w: u32| w == a_vert || w == b_vert;
        let (pu, pv) = (self.pos[u as usize], self.pos[v as usize]);
        match (at_end(u), at_end(v)) {
            // An edge from one end to the other runs along the segment; a zero-length one at
            // an end is harmless.
            (true, true) => u == v,
            (true, false) => !(orient2d(a, bp, pv) == 0.0 && within_box(a, bp, pv)),
            (false, true) => !(orient2d(a, bp, pu) == 0.0 && within_box(a, bp, pu)),
            (false, false) => !segments_touch(a, bp, pu, pv),
        }
    }

    /// Whether the segment from `a` (welded vertex `a_vert`) to node `b` meets no edge of the
    /// ring through `start` except at its own end points.
    fn segment_clear_ring(&self, a: Point2, a_vert: u32, b: u32, start: u32) -> bool {
        let (bp, b_vert) = (self.p(b), self.vert[b as usize]);
        self.ring_nodes(start)
            .into_iter()
            .all(|p| self.edge_clear(a, a_vert, bp, b_vert, self.vert[p as usize], self.vert[self.nx(p) as usize]))
    }

    /// Whether node `b` is an ear tip: its corner is strictly convex and no other node of the
    /// ring reaches into the triangle (prev, b, next).
    fn is_ear(&self, b: u32) -> bool {
        let (a, c) = (self.pv(b), self.nx(b));
        let (pa, pb, pc) = (self.p(a), self.p(b), self.p(c));
        if orient2d(pa, pb, pc).partial_cmp(&0.0) != Some(Ordering::Greater) {
            return false;
        }
        let Some(grid) = &self.grid else {
            return false;
        };
        let lo = [pa[0].min(pb[0]).min(pc[0]), pa[1].min(pb[1]).min(pc[1])];
        let hi = [pa[0].max(pb[0]).max(pc[0]), pa[1].max(pb[1]).max(pc[1])];
        let (c0, c1) = (grid.cell(lo), grid.cell(hi));
        let corners = [(a, pa, pb, pc), (b, pb, pc, pa), (c, pc, pa, pb)];
        for gz in c0[1]..=c1[1] {
            for gx in c0[0]..=c1[0] {
                for &p in &grid.cells[gz * grid.dims[0] + gx] {
                    if p == a || p == b || p == c || !self.alive[p as usize] {
                        continue;
                    }
                    let pp = self.p(p);
                    if pp[0] < lo[0] || pp[0] > hi[0] || pp[1] < lo[1] || pp[1] > hi[1] {
                        continue;
                    }
                    if let Some(&(_, x, r1, r2)) = corners.iter().find(|k| self.same_point(k.0, p)) {
                        // Another visit to a corner: its edges must not enter the triangle.
                        for q in [self.p(self.pv(p)), self.p(self.nx(p))] {
                            if orient2d(x, r1, q) > 0.0 && orient2d(x, r2, q) < 0.0 {
                                return false;
                            }
                        }
                    } else if orient2d(pa, pb, pp) >= 0.0 && orient2d(pb, pc, pp) >= 0.0 && orient2d(pc, pa, pp) >= 0.0
                    {
                        return false;
                    }
                }
            }
        }
        true
    }

    /// Indexes the live nodes for the ear test.
    fn build_grid(&mut self) {
        let live: Vec<u32> = (0..self.pos.len() as u32).filter(|&v| self.alive[v as usize]).collect();
        let (lo, hi) = bounds(live.iter().map(|&v| self.p(v)));
        let mut grid = Grid::over(lo, hi, live.len());
        for v in live {
            grid.insert(v, self.p(v));
        }
        self.grid = Some(grid);
    }

    /// Indexes the edges of the given rings for the bridge search.
    fn build_edge_grid(&mut self, rings: &[u32]) {
        let mut edges = Vec::new();
        for &r in rings {
            for v in self.ring_nodes(r) {
                edges.push([self.vert[v as usize], self.vert[self.nx(v) as usize]]);
            }
        }
        let (lo, hi) = bounds(edges.iter().map(|e| self.pos[e[0] as usize]));
        self.edge_grid = Some(Grid::over(lo, hi, edges.len()));
        for e in edges {
            self.add_edge(e);
        }
    }

    /// Two indexed edges that meet other than at a shared end point (with nothing else in
    /// common), if any: rings touching edges have been split, so that is a crossing.
    fn crossing_edges(&self) -> Option<([Point2; 2], [Point2; 2])> {
        let grid = self.edge_grid.as_ref()?;
        for (i, &[u, v]) in self.edges.iter().enumerate() {
            let (pu, pv) = (self.pos[u as usize], self.pos[v as usize]);
            for j in grid.query_segment(pu, pv) {
                if j as usize <= i {
                    continue;
                }
                let [a, b] = self.edges[j as usize];
                let (pa, pb) = (self.pos[a as usize], self.pos[b as usize]);
                let on = |s: Point2, t: Point2, p: Point2| orient2d(s, t, p) == 0.0 && within_box(s, t, p);
                let clear = match (a == u || a == v, b == u || b == v) {
                    // The same segment, both ways or twice.
                    (true, true) => false,
                    // A shared end: neither edge's other end may lie on the other edge.
                    (true, false) => {
                        let other = if a == u { pv } else { pu };
                        !(on(pu, pv, pb) || on(pa, pb, other))
                    }
                    (false, true) => {
                        let other = if b == u { pv } else { pu };
                        !(on(pu, pv, pa) || on(pa, pb, other))
                    }
                    (false, false) => !segments_touch(pu, pv, pa, pb),
                };
                if !clear {
                    return Some(([pu, pv], [pa, pb]));
                }
            }
        }
        None
    }

    fn add_edge(&mut self, e: [u32; 2]) {
        let id = self.edges.len() as u32;
        self.edges.push(e);
        let (a, b) = (self.pos[e[0] as usize], self.pos[e[1] as usize]);
        if let Some(grid) = &mut self.edge_grid {
            grid.insert_segment(id, a, b);
        }
    }

    /// A node at `c`'s coordinates whose edge runs back to `a`'s coordinates.
    fn reverse_twin(&self, a: u32, c: u32) -> Option<u32> {
        let grid = self.grid.as_ref()?;
        let cell = grid.cell(self.p(c));
        grid.cells[cell[1] * grid.dims[0] + cell[0]].iter().copied().find(|&n| {
            // n == prev(a) would make `a` a spike tip, which `settle` removes.
            n != c
                && self.alive[n as usize]
                && self.same_point(n, c)
                && self.same_point(self.nx(n), a)
                && self.nx(n) != a
        })
    }

    /// Clips every ear of the joined ring through `start`, splitting it where it stalls.
    fn clip_all(&mut self, rings: Vec<u32>, triangles: &mut Vec<[u32; 3]>) -> Result<(), TriangulateError> {
        if self.grid.is_none() {
            self.build_grid();
        }
        let mut stack = rings;
        // Every split or cancellation leaves smaller rings; the cap only guards the bound.
        let mut splits_left = self.pos.len() + 16;
        while let Some(start) = stack.pop() {
            if !self.alive[start as usize] {
                continue;
            }
            let nodes = self.ring_nodes(start);
            let mut count = nodes.len();
            let Some(mut ear) = self.settle(nodes, &mut count) else {
                continue;
            };
            let mut idle = 0;
            // Nodes next to recent clips: where new ears appear. Tried after a few misses, so a
            // spiral does not cost a lap of the ring per ear.
            let mut recent: Vec<u32> = Vec::new();
            loop {
                if count < 3 {
                    break;
                }
                let retry = if idle >= 3 {
                    std::iter::from_fn(|| recent.pop()).find(|&v| self.alive[v as usize])
                } else {
                    None
                };
                let tip = retry.unwrap_or(ear);
                if self.is_ear(tip) {
                    let (a, c) = (self.pv(tip), self.nx(tip));
                    triangles.push([self.vert[a as usize], self.vert[tip as usize], self.vert[c as usize]]);
                    self.remove(tip);
                    count -= 1;
                    if let Some(c2) = self.reverse_twin(a, c) {
                        // The new edge a → c runs back along an existing edge c' → a': the
                        // region on both sides of them is already clipped, so both go.
                        let a2 = self.nx(c2);
                        let (v, y) = (self.nx(a2), self.nx(c));
                        self.link(a, v);
                        self.alive[a2 as usize] = false;
                        self.link(c2, y);
                        self.alive[c as usize] = false;
                        stack.push(a);
                        stack.push(c2);
                        splits_left = splits_left.saturating_sub(1);
                        break;
                    }
                    match self.settle(vec![c, a], &mut count) {
                        None => break,
                        Some(v) => {
                            // Skip one node: clipping from the same place makes fans of slivers.
                            ear = if self.alive[c as usize] { self.nx(c) } else { self.nx(v) };
                            recent.extend([a, c].into_iter().filter(|&n| self.alive[n as usize]));
                        }
                    }
                    idle = 0;
                    continue;
                }
                if retry.is_some() {
                    continue;
                }
                ear = self.nx(ear);
                idle += 1;
                if idle > count {
                    let split = if splits_left == 0 {
                        None
                    } else {
                        splits_left -= 1;
                        self.split_at_touch(ear).or_else(|| self.split_by_diagonal(ear))
                    };
                    let Some((r1, r2)) = split else {
                        return Err(TriangulateError::NoEar { remaining: count });
                    };
                    stack.push(r1);
                    stack.push(r2);
                    break;
                }
            }
        }
        Ok(())
    }

    /// Where the ring through `start` visits a point several times, reconnects the visits so
    /// that each one bounds one of the polygon's sectors there (they may cross as joined:
    /// several touches of one hole, a hole inside a hole's pocket), keeping a point's new
    /// connection only if every ring it leaves is counter-clockwise. The same edges stay, so
    /// the covered area does not change; the ring may fall apart into several. Returns a node
    /// of each ring.
    fn uncross_touches(&mut self, start: u32) -> Vec<u32> {
        let nodes = self.ring_nodes(start);
        let mut at: std::collections::BTreeMap<u32, Vec<u32>> = std::collections::BTreeMap::new();
        for &v in &nodes {
            at.entry(self.vert[v as usize]).or_default().push(v);
        }
        for group in at.values().filter(|g| g.len() > 1) {
            let x = self.p(group[0]);
            // Rays to the neighbours: (neighbour, node, incoming).
            let mut rays: Vec<(u32, u32, bool)> = Vec::with_capacity(2 * group.len());
            for &n in group {
                rays.push((self.pv(n), n, true));
                rays.push((self.nx(n), n, false));
            }
            let half = |d: Point2| if d[1] > x[1] || (d[1] == x[1] && d[0] > x[0]) { 0 } else { 1 };
            rays.sort_by(|r, s| {
                let (dr, ds) = (self.p(r.0), self.p(s.0));
                half(dr).cmp(&half(ds)).then_with(|| {
                    let o = orient2d(x, dr, ds);
                    // Counter-clockwise order; along one direction the incoming ray first.
                    if o > 0.0 {
                        Ordering::Less
                    } else if o < 0.0 {
                        Ordering::Greater
                    } else {
                        s.2.cmp(&r.2)
                    }
                })
            });
            // Each outgoing ray starts a sector of the polygon, which the next ray, incoming,
            // closes: pair them.
            let k = rays.len();
            let mut pairs = Vec::with_capacity(group.len());
            for i in 0..k {
                if !rays[i].2 {
                    let close = rays[(i + 1) % k];
                    if !close.2 {
                        pairs.clear();
                        break;
                    }
                    pairs.push((close.0, rays[i].0));
                }
            }
            if pairs.len() != group.len() {
                continue;
            }
            let old: Vec<(u32, u32, u32)> = group.iter().map(|&n| (self.pv(n), n, self.nx(n))).collect();
            if old.iter().all(|&(p, _, q)| pairs.contains(&(p, q))) {
                continue;
            }
            for (&n, &(p, q)) in group.iter().zip(&pairs) {
                self.link(p, n);
                self.link(n, q);
            }
            if group.iter().any(|&n| self.ring_area2(n).partial_cmp(&0.0) != Some(Ordering::Greater)) {
                for &(p, n, q) in &old {
                    self.link(p, n);
                    self.link(n, q);
                }
            }
        }
        let mut seen = vec![false; self.pos.len()];
        let mut rings = Vec::new();
        for &v in &nodes {
            if !seen[v as usize] {
                rings.push(v);
                for w in self.ring_nodes(v) {
                    seen[w as usize] = true;
                }
            }
        }
        rings
    }

    /// Splits the ring through `start` into two where it touches itself, if both halves are
    /// counter-clockwise.
    fn split_at_touch(&mut self, start: u32) -> Option<(u32, u32)> {
        let nodes = self.ring_nodes(start);
        let mut seen: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
        for &v in &nodes {
            let w = self.vert[v as usize];
            if let Some(&u) = seen.get(&w) {
                let (un, vn) = (self.nx(u), self.nx(v));
                self.link(u, vn);
                self.link(v, un);
                if self.ring_area2(u) > 0.0 && self.ring_area2(v) > 0.0 {
                    return Some((u, v));
                }
                self.link(u, un);
                self.link(v, vn);
            } else {
                seen.insert(w, v);
            }
        }
        None
    }

    /// Splits the ring through `start` along a diagonal between two nodes that see each other.
    /// Gives up after about `DIAGONAL_BUDGET` edge tests (it is a last resort, cubic in the
    /// ring size).
    fn split_by_diagonal(&mut self, start: u32) -> Option<(u32, u32)> {
        const DIAGONAL_BUDGET: usize = 20_000_000;
        let nodes = self.ring_nodes(start);
        let mut work = 0usize;
        for (i, &a) in nodes.iter().enumerate() {
            for &b in nodes.iter().skip(i + 2) {
                if b == self.pv(a) || self.same_point(a, b) {
                    continue;
                }
                work += nodes.len();
                if work > DIAGONAL_BUDGET {
                    return None;
                }
                let (pa, pb) = (self.p(a), self.p(b));
                if !strictly_in_wedge(pa, self.p(self.nx(a)), self.p(self.pv(a)), pb)
                    || !strictly_in_wedge(pb, self.p(self.nx(b)), self.p(self.pv(b)), pa)
                    || !self.segment_clear_ring(pa, self.vert[a as usize], b, start)
                {
                    continue;
                }
                // a → b' → (b's old successors) … and b → a' → (a's old successors) ….
                let (a2, b2) = (self.copy_node(a), self.copy_node(b));
                let (an, bn) = (self.nx(a), self.nx(b));
                self.link(a, b2);
                self.link(b2, bn);
                self.link(b, a2);
                self.link(a2, an);
                // Where the ring touches itself, a diagonal can be clear yet leave a hole-like
                // loop on the wrong side: both halves must keep counter-clockwise.
                if self.ring_area2(a) > 0.0 && self.ring_area2(b) > 0.0 {
                    return Some((a, b));
                }
                self.link(a, an);
                self.link(b, bn);
                self.alive[a2 as usize] = false;
                self.alive[b2 as usize] = false;
            }
        }
        None
    }
}

/// No half-edge: the missing twin of a constraint edge, or the end of a corner list.
const NONE: u32 = u32::MAX;

/// Flips interior edges of `t` until each is locally Delaunay or cannot be flipped: makes an
/// ear-clipped triangulation the constrained Delaunay triangulation of its rings.
///
/// An interior edge is one used by exactly two triangles, once in each direction; every other
/// edge (a ring edge, used by one triangle) is a constraint and stays. An interior edge is
/// flipped when the far vertex of one triangle lies strictly inside the other's circumcircle
/// ([`incircle`] > 0) and the two triangles form a strictly convex quad ([`orient2d`]), unless
/// the new diagonal already is an edge elsewhere (a guard for welded vertices: in triangles
/// that do not overlap it cannot happen). The triangles keep covering the same area with the
/// same vertices, counter-clockwise. The work order is fixed: same input, same output.
///
/// `t` should be as [`triangulate`] makes it: counter-clockwise triangles that do not overlap,
/// each directed edge used once. Other input gets no guarantee beyond ending without a panic
/// (triangles indexing past the vertices: left alone).
pub fn make_delaunay(t: &mut Triangulation) {
    let Some(mut flipper) = Flipper::new(&t.vertices, &mut t.triangles) else {
        return;
    };
    flipper.run();
}

/// Lawson's flip algorithm over a half-edge view of the triangles. Half-edge `h` is the edge
/// from corner `h % 3` of triangle `h / 3` to the next corner; corner `h` is that vertex.
struct Flipper<'a> {
    pos: &'a [Point2],
    tris: &'a mut [[u32; 3]],
    /// The opposite half-edge of each interior edge; `NONE` on constraints.
    twin: Vec<u32>,
    /// Each vertex's first corner and number of corners, then the previous and next corner
    /// at the same vertex (a doubly linked list): the triangles around a vertex, for the test
    /// whether an edge exists.
    first_corner: Vec<[u32; 2]>,
    corner_links: Vec<[u32; 2]>,
}

impl<'a> Flipper<'a> {
    /// The half-edge view of `tris`; `None` if a triangle indexes past `pos` or there are too
    /// many triangles for `u32` half-edge ids.
    fn new(pos: &'a [Point2], tris: &'a mut [[u32; 3]]) -> Option<Flipper<'a>> {
        let halves = tris.len().checked_mul(3).filter(|&h| h < NONE as usize)?;
        if tris.iter().flatten().any(|&v| v as usize >= pos.len()) {
            return None;
        }
        // Half-edges by undirected edge: twins are the runs of exactly two, opposite ways.
        let mut keyed: Vec<(u64, u32)> = Vec::with_capacity(halves);
        for (i, tri) in tris.iter().enumerate() {
            for k in 0..3 {
                let (a, b) = (tri[k] as u64, tri[(k + 1) % 3] as u64);
                keyed.push((a.min(b) << 32 | a.max(b), (3 * i + k) as u32));
            }
        }
        keyed.sort_unstable();
        let mut twin = vec![NONE; halves];
        for run in keyed.chunk_by(|x, y| x.0 == y.0) {
            if let [(_, h), (_, g)] = *run {
                let origin = |h: u32| tris[h as usize / 3][h as usize % 3];
                if origin(h) != origin(g) {
                    twin[h as usize] = g;
                    twin[g as usize] = h;
                }
            }
        }
        let mut flipper = Flipper {
            pos,
            tris,
            twin,
            first_corner: vec![[NONE, 0]; pos.len()],
            corner_links: vec![[NONE; 2]; halves],
        };
        for c in 0..halves as u32 {
            flipper.link_corner(c);
        }
        Some(flipper)
    }

    fn corner(&self, c: u32) -> u32 {
        self.tris[c as usize / 3][c as usize % 3]
    }

    fn link_corner(&mut self, c: u32) {
        let v = self.corner(c) as usize;
        let [head, degree] = self.first_corner[v];
        self.corner_links[c as usize] = [NONE, head];
        if head != NONE {
            self.corner_links[head as usize][0] = c;
        }
        self.first_corner[v] = [c, degree + 1];
    }

    fn unlink_corner(&mut self, c: u32) {
        let [p, n] = self.corner_links[c as usize];
        let v = self.corner(c) as usize;
        self.first_corner[v][1] -= 1;
        if p == NONE {
            self.first_corner[v][0] = n;
        } else {
            self.corner_links[p as usize][1] = n;
        }
        if n != NONE {
            self.corner_links[n as usize][0] = p;
        }
    }

    /// Whether some triangle has both `u` and `v` as corners.
    fn has_edge(&self, u: u32, v: u32) -> bool {
        // Round the vertex with fewer triangles: a fan's apex can have thousands.
        let (u, v) = if self.first_corner[u as usize][1] <= self.first_corner[v as usize][1] { (u, v) } else { (v, u) };
        let mut c = self.first_corner[u as usize][0];
        while c != NONE {
            if self.tris[c as usize / 3].contains(&v) {
                return true;
            }
            c = self.corner_links[c as usize][1];
        }
        false
    }

    fn pair(&mut self, h: u32, g: u32) {
        self.twin[h as usize] = g;
        if g != NONE {
            self.twin[g as usize] = h;
        }
    }

    /// Flips every interior edge that is not locally Delaunay, rechecking the quad's sides
    /// after each flip.
    fn run(&mut self) {
        let halves = self.twin.len() as u32;
        // Each edge is queued once, by its lower half-edge, in order; the sides of flipped
        // quads go to the back.
        let mut queued = vec![false; halves as usize];
        let mut queue: VecDeque<u32> = (0..halves).filter(|&h| h < self.twin[h as usize]).collect();
        for &h in &queue {
            queued[h as usize] = true;
        }
        // Every flip lowers the lifted surface, so an edge flipped away never returns: at most
        // one flip per vertex pair. The bound only guards against a broken invariant.
        let n = self.pos.len() as u64;
        let mut flips_left = n * n.saturating_sub(1) / 2 + 1;
        while let Some(h) = queue.pop_front() {
            queued[h as usize] = false;
            if flips_left == 0 {
                break;
            }
            if let Some(sides) = self.flip_if_needed(h) {
                flips_left -= 1;
                // The quad's four sides have new opposite vertices.
                for s in sides {
                    let g = self.twin[s as usize];
                    if g != NONE && !queued[s as usize] && !queued[g as usize] {
                        queued[s as usize] = true;
                        queue.push_back(s);
                    }
                }
            }
        }
    }

    /// Flips the edge of half-edge `h` if it is interior, not locally Delaunay, its quad is
    /// strictly convex and the other diagonal is not an edge yet; returns the quad's sides.
    fn flip_if_needed(&mut self, h: u32) -> Option<[u32; 4]> {
        let g = self.twin[h as usize];
        if g == NONE || h / 3 == g / 3 {
            return None;
        }
        // Triangle i is a b c with h = a → b at slot ki; triangle j is b a d with g = b → a.
        let (i, j) = (h as usize / 3, g as usize / 3);
        let (ki, kj) = (h as usize % 3, g as usize % 3);
        let (ki1, ki2, kj1, kj2) = ((ki + 1) % 3, (ki + 2) % 3, (kj + 1) % 3, (kj + 2) % 3);
        let (a, b, c, d) = (self.tris[i][ki], self.tris[i][ki1], self.tris[i][ki2], self.tris[j][kj2]);
        let p = |v: u32| self.pos[v as usize];
        let (pa, pb, pc, pd) = (p(a), p(b), p(c), p(d));
        // Not locally Delaunay, and c → d crosses a → b strictly inside both.
        if !(incircle(pa, pb, pc, pd) > 0.0 && orient2d(pc, pd, pa) < 0.0 && orient2d(pc, pd, pb) > 0.0) {
            return None;
        }
        if c == d || self.has_edge(c, d) {
            return None;
        }
        // Triangle i becomes a d c and j becomes b c d: one corner each changes (b → d in i,
        // a → c in j), the sides c → a and d → b keep their slots and twins.
        let (hi1, hj1) = ((3 * i + ki1) as u32, (3 * j + kj1) as u32);
        let (bc, ad) = (self.twin[hi1 as usize], self.twin[hj1 as usize]);
        self.unlink_corner(hi1);
        self.unlink_corner(hj1);
        self.tris[i][ki1] = d;
        self.tris[j][kj1] = c;
        self.link_corner(hi1);
        self.link_corner(hj1);
        self.pair(h, ad);
        self.pair(g, bc);
        self.pair(hi1, hj1);
        Some([h, (3 * i + ki2) as u32, g, (3 * j + kj2) as u32])
    }
}

/// Checks of triangulation invariants shared by this module's and the convex stage's tests.
#[cfg(test)]
pub(crate) mod checks {
    use super::*;
    use meadow::geom::signed_area;
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};

    /// `cases` proptest cases, unless the `PROPTEST_CASES` environment variable asks for
    /// more (for long local runs).
    pub fn config(cases: u32) -> ProptestConfig {
        let env = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok());
        ProptestConfig { cases: env.unwrap_or(cases), ..ProptestConfig::default() }
    }

    /// A polygon from coordinate lists.
    pub fn polygon(outer: &[[f64; 2]], holes: &[&[[f64; 2]]]) -> PolygonWithHoles {
        PolygonWithHoles { outer: outer.to_vec(), holes: holes.iter().map(|h| h.to_vec()).collect() }
    }

    /// The polygon's area: the outer ring's minus the holes'.
    pub fn polygon_area(p: &PolygonWithHoles) -> f64 {
        signed_area(&p.outer).abs() - p.holes.iter().map(|h| signed_area(h).abs()).sum::<f64>()
    }

    /// Twice the area of triangle `t`.
    pub fn area2(v: &[Point2], t: [u32; 3]) -> f64 {
        let (a, b, c) = (v[t[0] as usize], v[t[1] as usize], v[t[2] as usize]);
        (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
    }

    /// Bit pattern of a point (with -0 folded into +0), for exact coordinate keys.
    pub fn key(p: Point2) -> [u64; 2] {
        [(p[0] + 0.0).to_bits(), (p[1] + 0.0).to_bits()]
    }

    /// Whether two convex counter-clockwise polygons' interiors are disjoint: some edge of one
    /// has the whole other polygon on its closed right side.
    pub fn interiors_disjoint(a: &[Point2], b: &[Point2]) -> bool {
        let separates = |p: &[Point2], q: &[Point2]| {
            (0..p.len()).any(|i| {
                let (u, v) = (p[i], p[(i + 1) % p.len()]);
                q.iter().all(|&w| orient2d(u, v, w) <= 0.0)
            })
        };
        separates(a, b) || separates(b, a)
    }

    /// Pairs of convex polygons (by index) whose interiors overlap, found with a sweep in x.
    pub fn overlapping_pairs(polys: &[Vec<Point2>]) -> Vec<(usize, usize)> {
        let bounds: Vec<(f64, f64)> = polys
            .iter()
            .map(|p| p.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| (lo.min(q[0]), hi.max(q[0]))))
            .collect();
        let mut order: Vec<usize> = (0..polys.len()).collect();
        order.sort_by(|&a, &b| bounds[a].0.total_cmp(&bounds[b].0));
        let mut out = Vec::new();
        for (i, &a) in order.iter().enumerate() {
            for &b in &order[i + 1..] {
                if bounds[b].0 >= bounds[a].1 {
                    break;
                }
                if !interiors_disjoint(&polys[a], &polys[b]) {
                    out.push((a.min(b), a.max(b)));
                }
            }
        }
        out
    }

    /// Asserts every invariant of a triangulation of `p`: the vertices are the rings', the
    /// triangles are counter-clockwise and non-degenerate, disjoint, cover the polygon's area,
    /// use every ring edge, and meet edge to edge. With `exact_count` the rings are clean (no
    /// zero-length edges or spikes), so the triangle count follows from the angle sum.
    pub fn check_triangulation(p: &PolygonWithHoles, t: &Triangulation, exact_count: bool) {
        let rings: Vec<&Vec<Point2>> = std::iter::once(&p.outer).chain(&p.holes).collect();
        let all: Vec<Point2> = rings.iter().flat_map(|r| r.iter().copied()).collect();
        assert_eq!(t.vertices, all, "vertices are the rings' vertices in order");
        let v = &t.vertices;
        for tri in &t.triangles {
            assert!(tri.iter().all(|&i| (i as usize) < v.len()), "index out of range in {tri:?}");
            let (a, b, c) = (v[tri[0] as usize], v[tri[1] as usize], v[tri[2] as usize]);
            assert!(orient2d(a, b, c) > 0.0, "triangle {tri:?} is not counter-clockwise: {a:?} {b:?} {c:?}");
        }
        let total: f64 = t.triangles.iter().map(|&tri| area2(v, tri) * 0.5).sum();
        let expected = polygon_area(p);
        let scale = expected.abs().max(signed_area(&p.outer).abs()).max(1e-300);
        assert!((total - expected).abs() <= 1e-9 * scale, "area {total} != polygon area {expected}");

        let polys: Vec<Vec<Point2>> =
            t.triangles.iter().map(|tri| tri.iter().map(|&i| v[i as usize]).collect()).collect();
        let overlaps = overlapping_pairs(&polys);
        assert!(overlaps.is_empty(), "overlapping triangles: {overlaps:?}");

        // Directed edges by coordinates: every ring edge is a triangle edge; every other
        // triangle edge has its twin.
        let mut tri_edges: BTreeMap<([u64; 2], [u64; 2]), usize> = BTreeMap::new();
        for tri in &t.triangles {
            for i in 0..3 {
                let e = (key(v[tri[i] as usize]), key(v[tri[(i + 1) % 3] as usize]));
                *tri_edges.entry(e).or_default() += 1;
            }
        }
        // Ring vertices inside other ring edges (touches without a shared vertex) split them.
        // Vertices off an edge by rounding errors may or may not (the triangulation snaps them
        // only when the polygon is invalid without): accept either, all or none.
        let exact = split_at_touches(p, 0.0);
        let scale = all.iter().fold(0.0f64, |m, q| m.max(q[0].abs()).max(q[1].abs()));
        let loose = split_at_touches(p, 1e-13 * scale);
        let (exact_edges, loose_edges) = (directed_edges(&exact), directed_edges(&loose));
        if exact_count {
            let covered = |edges: &BTreeSet<_>| edges.iter().all(|e| tri_edges.contains_key(e));
            assert!(covered(&exact_edges) || covered(&loose_edges), "a ring edge is not a triangle edge");
        }
        for (e, n) in &tri_edges {
            assert_eq!(*n, 1, "directed edge {e:?} used by {n} triangles");
            if !exact_edges.contains(e) && !loose_edges.contains(e) {
                assert!(tri_edges.contains_key(&(e.1, e.0)), "edge {e:?} has no twin and is not on a ring");
            }
        }
        if exact_count && exact == loose {
            // Triangles' angles add up to the polygon's angles at its vertices: π each.
            let expected = (domain_angle_sum(&exact) / std::f64::consts::PI).round() as usize;
            assert_eq!(t.triangles.len(), expected, "triangle count (angle sum)");
        }
    }

    /// Interior edges of `t` (used once each way) that Lawson's algorithm would flip: the far
    /// vertex of one triangle strictly inside the other's circumcircle, the quad strictly
    /// convex, and the other diagonal not an edge yet.
    pub fn flippable_edges(t: &Triangulation) -> Vec<(u32, u32)> {
        let mut far: BTreeMap<(u32, u32), Vec<u32>> = BTreeMap::new();
        for tri in &t.triangles {
            for k in 0..3 {
                far.entry((tri[k], tri[(k + 1) % 3])).or_default().push(tri[(k + 2) % 3]);
            }
        }
        let p = |i: u32| t.vertices[i as usize];
        let mut out = Vec::new();
        for (&(a, b), cs) in &far {
            let Some(ds) = far.get(&(b, a)) else { continue };
            if a > b || cs.len() != 1 || ds.len() != 1 {
                continue;
            }
            let (c, d) = (cs[0], ds[0]);
            let exists = far.contains_key(&(c, d)) || far.contains_key(&(d, c));
            if incircle(p(a), p(b), p(c), p(d)) > 0.0
                && orient2d(p(c), p(d), p(a)) < 0.0
                && orient2d(p(c), p(d), p(b)) > 0.0
                && !exists
            {
                out.push((a, b));
            }
        }
        out
    }

    /// The directed edges of `t` without a reverse twin: its constraint (ring) edges.
    pub fn constraint_edges(t: &Triangulation) -> BTreeSet<(u32, u32)> {
        let edges: BTreeSet<(u32, u32)> =
            t.triangles.iter().flat_map(|tri| (0..3).map(move |k| (tri[k], tri[(k + 1) % 3]))).collect();
        edges.iter().copied().filter(|&(a, b)| !edges.contains(&(b, a))).collect()
    }

    /// Runs [`make_delaunay`] on a triangulation `t` of `p` and asserts that the result is
    /// still a triangulation of `p` (see [`check_triangulation`]) with the same vertices,
    /// triangle count, area and constraint edges, that no edge is left to flip, and that a
    /// second run gives the same triangles. Returns the flipped triangulation.
    pub fn check_flipped(p: &PolygonWithHoles, t: &Triangulation, exact_count: bool) -> Triangulation {
        let mut d = t.clone();
        make_delaunay(&mut d);
        check_triangulation(p, &d, exact_count);
        assert_eq!(d.vertices, t.vertices, "flips keep the vertices");
        assert_eq!(d.triangles.len(), t.triangles.len(), "flips keep the triangle count");
        let area = |t: &Triangulation| t.triangles.iter().map(|&tri| area2(&t.vertices, tri)).sum::<f64>();
        let (before, after) = (area(t), area(&d));
        assert!((before - after).abs() <= 1e-9 * before.abs().max(1e-300), "area {after} != {before}");
        assert_eq!(constraint_edges(&d), constraint_edges(t), "constraint edges stay");
        let left = flippable_edges(&d);
        assert!(left.is_empty(), "edges left to flip: {left:?}");
        let mut again = t.clone();
        make_delaunay(&mut again);
        assert_eq!(again, d, "same input, same flips");
        d
    }

    /// The directed edges of the rings by coordinates, rings of the wrong winding reversed.
    pub fn directed_edges(p: &PolygonWithHoles) -> BTreeSet<([u64; 2], [u64; 2])> {
        let mut edges = BTreeSet::new();
        for (r, ring) in std::iter::once(&p.outer).chain(&p.holes).enumerate() {
            let backwards = (signed_area(ring) < 0.0) == (r == 0);
            for i in 0..ring.len() {
                let mut e = (key(ring[i]), key(ring[(i + 1) % ring.len()]));
                if backwards {
                    e = (e.1, e.0);
                }
                if e.0 != e.1 {
                    edges.insert(e);
                }
            }
        }
        edges
    }

    /// The polygon with every ring edge split at the ring vertices lying inside it, or within
    /// `tolerance` of it (brute force).
    pub fn split_at_touches(p: &PolygonWithHoles, tolerance: f64) -> PolygonWithHoles {
        let all: Vec<Point2> = std::iter::once(&p.outer).chain(&p.holes).flatten().copied().collect();
        let split = |ring: &Vec<Point2>| {
            let mut out = Vec::new();
            for i in 0..ring.len() {
                let (u, w) = (ring[i], ring[(i + 1) % ring.len()]);
                out.push(u);
                let on = |q: Point2| {
                    (orient2d(u, w, q) == 0.0 && within_box(u, w, q))
                        || (tolerance > 0.0
                            && meadow::geom::point_segment_distance(q, u, w) <= tolerance
                            && meadow::geom::point_segment_distance(q, u, u) > tolerance
                            && meadow::geom::point_segment_distance(q, w, w) > tolerance)
                };
                let mut inside: Vec<Point2> = all.iter().copied().filter(|&q| q != u && q != w && on(q)).collect();
                inside.sort_by(|a, b| {
                    let d = |q: Point2| (q[0] - u[0]).abs() + (q[1] - u[1]).abs();
                    d(*a).total_cmp(&d(*b))
                });
                inside.dedup();
                out.extend(inside);
            }
            out
        };
        PolygonWithHoles { outer: split(&p.outer), holes: p.holes.iter().map(split).collect() }
    }

    /// The sum over the polygon's distinct vertices of the angle the polygon fills around each.
    /// Where rings touch, every visit of a ring to the point bounds a wedge; the winding number
    /// is a constant plus the number of wedges covering a direction, so the polygon fills the
    /// directions covered most.
    pub fn domain_angle_sum(p: &PolygonWithHoles) -> f64 {
        use std::f64::consts::TAU;
        let mut wedges: BTreeMap<[u64; 2], Vec<(f64, f64)>> = BTreeMap::new();
        for (r, ring) in std::iter::once(&p.outer).chain(&p.holes).enumerate() {
            let n = ring.len();
            let backwards = (signed_area(ring) < 0.0) == (r == 0);
            for i in 0..n {
                let x = ring[i];
                let (mut prev, mut next) = (ring[(i + n - 1) % n], ring[(i + 1) % n]);
                if backwards {
                    std::mem::swap(&mut prev, &mut next);
                }
                let angle = |q: Point2| (q[1] - x[1]).atan2(q[0] - x[0]);
                // The wedge from the outgoing edge counter-clockwise to the incoming one.
                wedges.entry(key(x)).or_default().push((angle(next), angle(prev)));
            }
        }
        let mut sum = 0.0;
        for passes in wedges.values() {
            let mut rays: Vec<f64> = passes.iter().flat_map(|&(a, b)| [a, b]).collect();
            rays.sort_by(f64::total_cmp);
            let mut sectors = Vec::new();
            for k in 0..rays.len() {
                let width = (rays[(k + 1) % rays.len()] - rays[k]).rem_euclid(TAU);
                if width == 0.0 {
                    continue;
                }
                let mid = rays[k] + width / 2.0;
                let covered = passes
                    .iter()
                    .filter(|&&(from, to)| (mid - from).rem_euclid(TAU) < (to - from).rem_euclid(TAU))
                    .count();
                sectors.push((width, covered));
            }
            let most = sectors.iter().map(|s| s.1).max().unwrap_or(0);
            sum += sectors.iter().filter(|s| s.1 == most).map(|s| s.0).sum::<f64>();
        }
        sum
    }

    /// A square with corners `lo`, `hi`: counter-clockwise, or clockwise for a hole.
    pub fn square(lo: [f64; 2], hi: [f64; 2], hole: bool) -> Vec<Point2> {
        let mut r = vec![lo, [hi[0], lo[1]], hi, [lo[0], hi[1]]];
        if hole {
            r.reverse();
        }
        r
    }

    /// A diamond (square turned 45°) around `c` with half-diagonal `r`; clockwise for a hole.
    pub fn diamond(c: [f64; 2], r: f64, hole: bool) -> Vec<Point2> {
        let mut d = vec![[c[0], c[1] - r], [c[0] + r, c[1]], [c[0], c[1] + r], [c[0] - r, c[1]]];
        if hole {
            d.reverse();
        }
        d
    }

    pub fn lattice(n: usize, cells: &[bool]) -> PolygonWithHoles {
        let side = n as f64;
        let mut outer = Vec::new();
        for s in 0..4 {
            for i in 0..2 * n {
                let t = i as f64 * 0.5;
                outer.push(match s {
                    0 => [t, 0.0],
                    1 => [side, t],
                    2 => [side - t, side],
                    _ => [0.0, side - t],
                });
            }
        }
        let holes = (0..n * n)
            .filter(|&c| cells[c])
            .map(|c| diamond([(c % n) as f64 + 0.5, (c / n) as f64 + 0.5], 0.5, true))
            .collect();
        PolygonWithHoles { outer, holes }
    }

    /// A random star-shaped outer ring around the origin (radius 5..10, containing the disk of
    /// radius 3.5) with random square holes in the cells of a 5 × 5 grid of unit cells.
    pub fn star_with_holes() -> impl Strategy<Value = PolygonWithHoles> {
        let outer = (8usize..40).prop_flat_map(|k| {
            proptest::collection::vec((0.0f64..0.9, 5.0f64..10.0), k).prop_map(move |v| {
                v.iter()
                    .enumerate()
                    .map(|(i, &(jitter, r))| {
                        let a = (i as f64 + jitter) * std::f64::consts::TAU / k as f64;
                        [r * a.cos(), r * a.sin()]
                    })
                    .collect::<Vec<Point2>>()
            })
        });
        // Per cell: none, an axis-aligned square with dyadic corners and 1, 2 or 4 vertices per
        // side (collinear runs), or a rotated square.
        let hole = prop_oneof![
            2 => Just(None),
            2 => (2u32..8, prop_oneof![Just(1usize), Just(2), Just(4)]).prop_map(|(h, d)| Some((h as f64 / 16.0, d, None))),
            1 => (0.15f64..0.48, 0.0f64..std::f64::consts::FRAC_PI_2).prop_map(|(r, a)| Some((r, 1, Some(a)))),
        ];
        (outer, proptest::collection::vec(hole, 25)).prop_map(|(outer, cells)| {
            let mut holes = Vec::new();
            for (c, cell) in cells.into_iter().enumerate() {
                let centre = [(c % 5) as f64 - 2.0, (c / 5) as f64 - 2.0];
                let Some((size, per_side, angle)) = cell else { continue };
                let ring: Vec<Point2> = match angle {
                    None => {
                        let (lo, hi) = ([centre[0] - size, centre[1] - size], [centre[0] + size, centre[1] + size]);
                        let corners = [lo, [lo[0], hi[1]], hi, [hi[0], lo[1]]]; // clockwise
                        (0..4)
                            .flat_map(|s| {
                                let (a, b) = (corners[s], corners[(s + 1) % 4]);
                                (0..per_side).map(move |i| {
                                    let f = i as f64 / per_side as f64;
                                    [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f]
                                })
                            })
                            .collect()
                    }
                    Some(a) => (0..4)
                        .map(|s| {
                            let t = a - s as f64 * std::f64::consts::FRAC_PI_2; // clockwise
                            [centre[0] + size * t.cos(), centre[1] + size * t.sin()]
                        })
                        .collect(),
                };
                holes.push(ring);
            }
            PolygonWithHoles { outer, holes }
        })
    }

    /// A square outer ring with vertices every half unit and diamond holes in random cells of
    /// its unit grid: neighbouring diamonds touch at points, and border ones touch the outer
    /// ring.
    pub fn diamond_lattice() -> impl Strategy<Value = PolygonWithHoles> {
        (2usize..6, proptest::collection::vec(any::<bool>(), 36)).prop_map(|(n, cells)| lattice(n, &cells))
    }

    /// Polygons with holes as a boolean-operation library makes them: a union of random grid
    /// rectangles and triangles minus others, computed by `i_overlay`. Its output has holes
    /// touching outer rings and each other at points.
    pub fn overlay_shapes() -> impl Strategy<Value = Vec<PolygonWithHoles>> {
        use i_overlay::core::fill_rule::FillRule;
        use i_overlay::core::overlay_rule::OverlayRule;
        use i_overlay::float::single::SingleFloatOverlay;
        let piece = (0i32..12, 0i32..12, 1i32..5, 1i32..5, 0u8..4, 0.0f64..std::f64::consts::TAU).prop_map(
            |(x, z, w, h, kind, turn)| {
                let (x0, z0, x1, z1) = (x as f64, z as f64, (x + w) as f64, (z + h) as f64);
                match kind {
                    // Triangles: slanted edges meeting the grid at their corners.
                    0 => vec![[x0, z0], [x1, z0], [x0, z1]],
                    1 => vec![[x1, z0], [x1, z1], [x0, z1]],
                    2 => vec![[x0, z0], [x1, z0], [x1, z1], [x0, z1]],
                    // A rectangle turned about its corner: off-grid coordinates.
                    _ => [[0.0, 0.0], [w as f64, 0.0], [w as f64, h as f64], [0.0, h as f64]]
                        .iter()
                        .map(|q| {
                            [x0 + q[0] * turn.cos() - q[1] * turn.sin(), z0 + q[0] * turn.sin() + q[1] * turn.cos()]
                        })
                        .collect(),
                }
            },
        );
        // Either a few pieces minus a few, or a big square minus many (holes, many touching).
        let base = vec![vec![[0.0, 0.0], [17.0, 0.0], [17.0, 17.0], [0.0, 17.0]]];
        let subject = prop_oneof![proptest::collection::vec(piece.clone(), 1..12), Just(base)];
        (subject, proptest::collection::vec(piece, 0..24)).prop_map(|(subject, clip)| {
            let shapes = subject.overlay(&clip, OverlayRule::Difference, FillRule::NonZero);
            shapes
                .into_iter()
                .map(|mut rings| {
                    let outer = rings.remove(0);
                    PolygonWithHoles { outer, holes: rings }
                })
                .collect()
        })
    }

    /// Unit-square holes on the even cells of a checkerboard: holes touch at corners.
    pub fn checkerboard() -> impl Strategy<Value = PolygonWithHoles> {
        (2usize..6, proptest::collection::vec(any::<bool>(), 36)).prop_map(|(n, cells)| {
            let side = n as f64 + 2.0;
            let outer = square([0.0, 0.0], [side, side], false);
            let holes = (0..n * n)
                .filter(|&c| (c % n + c / n) % 2 == 0 && cells[c])
                .map(|c| {
                    let lo = [(c % n) as f64 + 1.0, (c / n) as f64 + 1.0];
                    square(lo, [lo[0] + 1.0, lo[1] + 1.0], true)
                })
                .collect();
            PolygonWithHoles { outer, holes }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::checks::*;
    use super::*;
    use proptest::prelude::*;

    fn run(p: &PolygonWithHoles) -> Triangulation {
        let t = triangulate(p).expect("triangulates");
        check_triangulation(p, &t, true);
        check_flipped(p, &t, true);
        t
    }

    /// Triangulates a hole-free polygon with the last-resort splits only: rings split where
    /// they touch themselves, then along diagonals, until only triangles are left.
    fn split_only(p: &PolygonWithHoles) -> Triangulation {
        let vertices = p.outer.clone();
        let (canonical, shared) = weld(&vertices);
        let mut c = Clipper::new(&vertices, canonical, shared);
        let start = c.build_ring(0, vertices.len());
        let start = c.prepare_ring(start, Winding::CounterClockwise).expect("has area");
        c.build_grid();
        let mut stack = vec![start];
        let mut triangles = Vec::new();
        while let Some(r) = stack.pop() {
            let nodes = c.ring_nodes(r);
            if nodes.len() == 3 {
                triangles.push([nodes[0], nodes[1], nodes[2]].map(|v| c.vert[v as usize]));
                continue;
            }
            let (a, b) = c.split_at_touch(r).or_else(|| c.split_by_diagonal(r)).expect("a split exists");
            assert!(c.ring_nodes(a).len() < nodes.len() && c.ring_nodes(b).len() < nodes.len());
            stack.extend([a, b]);
        }
        Triangulation { vertices, triangles }
    }

    #[test]
    fn last_resort_splits_triangulate() {
        let comb = [[0.0, 0.0], [5.0, 0.0], [5.0, 4.0], [4.0, 4.0], [4.0, 1.0], [3.0, 1.0], [3.0, 4.0], [2.0, 4.0]];
        let touching = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [2.0, 1.0], [2.0, 2.0], [1.0, 2.0], [1.0, 1.0], [0.0, 1.0]];
        let mut fan = vec![[0.0, 0.0]];
        fan.extend((1..=6).map(|i| [i as f64, 0.0]));
        fan.push([3.0, 2.0]);
        for ring in [&comb[..], &touching[..], &fan[..], &square([0.0, 0.0], [1.0, 1.0], false)[..]] {
            let p = polygon(ring, &[]);
            check_triangulation(&p, &split_only(&p), true);
        }
    }

    #[test]
    fn square_two_triangles() {
        // 3 +-----+
        //   |     |
        // 0 +-----+
        //   0     3
        let t = run(&polygon(&square([0.0, 0.0], [3.0, 3.0], false), &[]));
        assert_eq!(t.triangles.len(), 2);
    }

    #[test]
    fn l_shape() {
        // 2 +--+
        //   |  |
        // 1 |  +--+
        //   |     |
        // 0 +-----+
        //   0  1  2
        let l = [[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [1.0, 1.0], [1.0, 2.0], [0.0, 2.0]];
        run(&polygon(&l, &[]));
    }

    #[test]
    fn comb() {
        // 4 +-+ +-+ +-+
        //   | | | | | |
        // 1 | +-+ +-+ |
        // 0 +---------+
        //   0 1 2 3 4 5
        let c = [
            [0.0, 0.0],
            [5.0, 0.0],
            [5.0, 4.0],
            [4.0, 4.0],
            [4.0, 1.0],
            [3.0, 1.0],
            [3.0, 4.0],
            [2.0, 4.0],
            [2.0, 1.0],
            [1.0, 1.0],
            [1.0, 4.0],
            [0.0, 4.0],
        ];
        run(&polygon(&c, &[]));
    }

    #[test]
    fn square_with_one_hole() {
        // 4 +-----------+
        //   |   +---+   |
        //   |   |   |   |
        //   |   +---+   |
        // 0 +-----------+
        //   0   1   3   4
        let hole = square([1.0, 1.0], [3.0, 3.0], true);
        let t = run(&polygon(&square([0.0, 0.0], [4.0, 4.0], false), &[&hole]));
        assert_eq!(t.triangles.len(), 8);
    }

    #[test]
    fn several_holes_some_aligned() {
        // 6 +-----------------------+
        //   |  +-+   +-+            |
        //   |  +-+   +-+   +-+      |   two holes share their rightmost x with others,
        //   |  +-+         +-+      |   and rays from the left holes hit corners exactly
        //   |  +-+   +-+   +-+      |
        //   |        +-+   +-+      |
        // 0 +-----------------------+
        //   0  1 2   4 5   7 8      12
        let outer = square([0.0, 0.0], [12.0, 6.0], false);
        let holes = [
            square([1.0, 4.0], [2.0, 5.0], true),
            square([4.0, 4.0], [5.0, 5.0], true),
            square([1.0, 2.0], [2.0, 3.0], true),
            square([7.0, 2.0], [8.0, 3.0], true),
            square([4.0, 1.0], [5.0, 2.0], true),
            square([7.0, 1.0 / 3.0], [8.0, 1.5], true),
        ];
        let hole_refs: Vec<&[Point2]> = holes.iter().map(Vec::as_slice).collect();
        run(&polygon(&outer, &hole_refs));
    }

    #[test]
    fn hole_touching_outer_at_a_point() {
        // 4 +-------+
        //   |   ^   |
        //   |  < >  |     the diamond hole touches the bottom edge at (2, 0)
        //   |   v   |
        // 0 +---+---+
        //   0   2   4
        let outer = [[0.0, 0.0], [2.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]];
        let hole = [[2.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 1.0]];
        run(&polygon(&outer, &[&hole]));
    }

    #[test]
    fn vertices_touching_edges_without_a_shared_vertex() {
        // 4 +-------+      the diamond hole's bottom vertex (2, 0) lies inside the outer
        //   |   ^   |      ring's bottom edge; the square hole's left edge passes through
        //   |  < >[]|      the diamond's right vertex (3, 1)
        //   |   v   |
        // 0 +---.---+
        //   0   2 3 4
        let outer = square([0.0, 0.0], [4.0, 4.0], false);
        let hole = [[2.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 1.0]];
        let side = square([3.0, 0.5], [3.5, 1.5], true);
        let p = polygon(&outer, &[&hole, &side]);
        let t = triangulate(&p).expect("triangulates");
        check_triangulation(&p, &t, true);
        check_flipped(&p, &t, true);
        // As if the touched edges had a vertex there: 5 + 4 + 5 vertices, 2 holes, 2 touches.
        assert_eq!(t.triangles.len(), 14 + 2 * 2 - 2 - 2 * 2);

        // 4 +--+  +--+     one ring whose vertex (2, 0) touches its own bottom edge: two
        //   |   \/   |     pieces joined at a point
        // 0 +---.----+
        //   0   2    4
        let notched = [[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [2.5, 4.0], [2.0, 0.0], [1.5, 4.0], [0.0, 4.0]];
        let p = polygon(&notched, &[]);
        let t = triangulate(&p).expect("triangulates");
        check_triangulation(&p, &t, true);
        check_flipped(&p, &t, true);
        assert_eq!(t.triangles.len(), 4);
    }

    #[test]
    fn hole_cutting_the_polygon_in_two() {
        // 4 +---+---+
        //   |  /:\  |     the hole touches the bottom and the top: two pieces joined only
        //   | < : > |     at points
        //   |  \:/  |
        // 0 +---+---+
        //   0   2   4
        let outer = [[0.0, 0.0], [2.0, 0.0], [4.0, 0.0], [4.0, 4.0], [2.0, 4.0], [0.0, 4.0]];
        let hole = [[2.0, 0.0], [1.0, 2.0], [2.0, 4.0], [3.0, 2.0]];
        run(&polygon(&outer, &[&hole]));
    }

    #[test]
    fn two_holes_touching_each_other() {
        // 4 +-----------+
        //   |  /\ /\    |
        //   | <  X  >   |   two diamonds touch at (3, 2)
        //   |  \/ \/    |
        // 0 +-----------+
        //   0  1  3  5  6
        let outer = square([0.0, 0.0], [6.0, 4.0], false);
        let a = diamond([2.0, 2.0], 1.0, true);
        let b = diamond([4.0, 2.0], 1.0, true);
        run(&polygon(&outer, &[&a, &b]));
        run(&polygon(&outer, &[&b, &a]));
    }

    #[test]
    fn holes_touching_in_a_chain_to_the_outer_ring() {
        // Three diamonds in a row, each touching the next; the last touches the right edge,
        // and a fourth touches the first from below and the bottom edge.
        // 4 +-------------+
        //   |  <><><>     |
        // 0 +-------------+
        let outer = [[0.0, 0.0], [1.5, 0.0], [7.0, 0.0], [7.0, 2.0], [7.0, 4.0], [0.0, 4.0]];
        let holes = [
            diamond([2.0, 2.0], 1.0, true),
            diamond([4.0, 2.0], 1.0, true),
            diamond([6.0, 2.0], 1.0, true),
            vec![[1.5, 0.0], [1.0, 0.5], [2.0, 1.0]],
        ];
        let hole_refs: Vec<&[Point2]> = holes.iter().map(Vec::as_slice).collect();
        run(&polygon(&outer, &hole_refs));
    }

    #[test]
    fn four_holes_enclosing_a_pocket() {
        // Four diamonds around (3, 3) touching in a ring: the pocket they enclose is part of
        // the polygon, reachable only through points.
        let outer = square([0.0, 0.0], [6.0, 6.0], false);
        let holes = [
            diamond([2.0, 2.0], 1.0, true),
            diamond([4.0, 2.0], 1.0, true),
            diamond([4.0, 4.0], 1.0, true),
            diamond([2.0, 4.0], 1.0, true),
        ];
        let hole_refs: Vec<&[Point2]> = holes.iter().map(Vec::as_slice).collect();
        run(&polygon(&outer, &hole_refs));
    }

    #[test]
    fn three_rings_meeting_at_one_point() {
        // 2 +-------------+
        // 1 |  \_/ \_/   |    two triangular holes hanging from (2, 0), where the bottom
        //   |    \ /      |    edge has a vertex too
        // 0 +-----+-------+
        //   0     2       4
        let outer = [[0.0, 0.0], [2.0, 0.0], [4.0, 0.0], [4.0, 2.0], [0.0, 2.0]];
        let a = [[2.0, 0.0], [0.5, 1.0], [1.5, 1.0]];
        let b = [[2.0, 0.0], [2.5, 1.0], [3.5, 1.0]];
        run(&polygon(&outer, &[&a, &b]));
        run(&polygon(&outer, &[&b, &a]));
    }

    #[test]
    fn outer_ring_touching_itself() {
        // 2     +--+
        //       |  |
        // 1  +--+--+     one ring visiting (1, 1) twice
        //    |  |
        // 0  +--+
        //    0  1  2
        let outer = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [2.0, 1.0], [2.0, 2.0], [1.0, 2.0], [1.0, 1.0], [0.0, 1.0]];
        run(&polygon(&outer, &[]));
    }

    #[test]
    fn collinear_runs() {
        // 4 +.......+     dots: extra vertices on straight edges, on the outer ring and on
        //   :  +.+  :     the hole
        //   :  : :  :
        //   :  +.+  :
        // 0 +.......+
        let mut outer = Vec::new();
        for side in 0..4 {
            for i in 0..8 {
                let s = i as f64 * 0.5;
                outer.push(match side {
                    0 => [s, 0.0],
                    1 => [4.0, s],
                    2 => [4.0 - s, 4.0],
                    _ => [0.0, 4.0 - s],
                });
            }
        }
        let hole = [[1.0, 1.0], [1.0, 2.0], [1.0, 3.0], [2.0, 3.0], [3.0, 3.0], [3.0, 2.0], [3.0, 1.0], [2.0, 1.0]];
        run(&polygon(&outer, &[&hole]));
        // A triangle with many vertices along one side.
        let mut fan = vec![[0.0, 0.0]];
        fan.extend((1..=20).map(|i| [i as f64, 0.0]));
        fan.push([10.0, 5.0]);
        run(&polygon(&fan, &[]));
    }

    #[test]
    fn regression_hole_vertex_a_rounding_error_inside_another_hole() {
        // Float output of i_overlay (17 × 17 square minus two triangles): the first hole's
        // vertex near (8, 10) lies 1e-16 inside the second hole's edge from (9, 9) to (7, 11),
        // which it touches in the exact integer result. Joined by snapping it onto the edge.
        let outer = [
            [1.4710535012341097e-9, 17.000000013377132],
            [1.4710535012341097e-9, 1.3377131402592113e-8],
            [17.000000001471054, 1.3377131402592113e-8],
            [17.000000001471054, 17.000000013377132],
        ];
        let a = [
            [4.0000000014710535, 10.000000013377132],
            [4.0000000014710535, 11.000000013377132],
            [8.000000001471054, 10.000000013377132],
        ];
        let b = [
            [7.0000000014710535, 11.000000013377132],
            [9.000000001471054, 11.000000013377132],
            [9.000000001471054, 9.000000013377132],
        ];
        let p = polygon(&outer, &[&a, &b]);
        // Really invalid without snapping: the vertex is inside the other hole.
        assert!(orient2d(b[2], b[0], a[2]) < 0.0);
        assert!(triangulate_snapped(&p, 0.0).is_err());
        let t = triangulate(&p).expect("triangulates after snapping");
        check_triangulation(&p, &t, true);
        check_flipped(&p, &t, true);
    }

    #[test]
    fn regression_boolean_shape_a() {
        let outer = [
            [3.9999999945513194, 10.00000000225753],
            [-5.4486806178033476e-9, 10.00000000225753],
            [2.0344221984497493, 7.9655777983590985],
            [1.3370722179762309, 7.988783331982794],
            [0.9999999945513194, 9.00000000225753],
            [0.9999999945513194, 8.00000000225753],
            [0.9667416607490962, 7.00055320786685],
            [0.9999999945513194, 6.999446483723822],
            [0.9999999945513194, 6.000000002257528],
            [1.9999999945513194, 6.000000002257528],
            [1.6743310188404505, 6.977006944291296],
            [2.965635249530453, 6.934036540262404],
            [2.9688663279167598, 7.031133668892088],
            [3.9999999945513194, 6.000000002257528],
        ];
        let p = polygon(&outer, &[]);
        let t = triangulate(&p).expect("triangulates");
        check_triangulation(&p, &t, true);
        check_flipped(&p, &t, true);
    }

    #[test]
    fn regression_boolean_shape_b() {
        // A hole touching itself twice along its own edges, next to rounding-error near-touches.
        let outer = square([0.0, 0.0], [17.0, 17.0], false);
        let a = [[1.0, 5.0], [1.0, 6.0], [2.0, 5.0]];
        let b = [
            [2.8252360224723816, 3.2126439213752747],
            [3.018939971923828, 4.1937039494514465],
            [4.0, 4.0],
            [3.8062960505485535, 3.018939971923828],
        ];
        let c = [
            [7.0, 6.0],
            [11.0, 6.0],
            [11.0, 4.0],
            [13.0, 4.0],
            [13.0, 2.0],
            [12.0, 2.666666656732559],
            [12.0, 1.0],
            [10.0, 3.0],
            [11.5, 3.0],
            [11.0, 3.333333343267441],
            [11.0, 3.0],
        ];
        let p = polygon(&outer, &[&a, &b, &c]);
        let t = triangulate(&p).expect("triangulates");
        check_triangulation(&p, &t, true);
        check_flipped(&p, &t, true);
    }

    #[test]
    fn spikes_and_duplicates_are_dropped() {
        // A square with a doubled vertex and an antenna poking out of its right side.
        let outer = [[0.0, 0.0], [2.0, 0.0], [2.0, 0.0], [2.0, 1.0], [3.0, 1.0], [2.0, 1.0], [2.0, 2.0], [0.0, 2.0]];
        let p = polygon(&outer, &[]);
        let t = triangulate(&p).unwrap();
        check_triangulation(&p, &t, false);
        check_flipped(&p, &t, false);
        assert_eq!(polygon_area(&p), 4.0);
    }

    #[test]
    fn wrong_windings_are_read_backwards() {
        let mut outer = square([0.0, 0.0], [4.0, 4.0], false);
        outer.reverse();
        let hole = square([1.0, 1.0], [3.0, 3.0], false);
        let p = polygon(&outer, &[&hole]);
        let t = triangulate(&p).unwrap();
        check_triangulation(&p, &t, false);
        check_flipped(&p, &t, false);
        assert_eq!(t.triangles.len(), 8);
    }

    #[test]
    fn degenerate_inputs_give_no_triangles() {
        assert!(triangulate(&PolygonWithHoles::default()).unwrap().triangles.is_empty());
        let line = polygon(&[[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]], &[]);
        assert!(triangulate(&line).unwrap().triangles.is_empty());
        // An arealess hole is ignored.
        let flat_hole = [[1.0, 1.0], [2.0, 1.0], [1.5, 1.0]];
        let p = polygon(&square([0.0, 0.0], [4.0, 4.0], false), &[&flat_hole]);
        assert_eq!(triangulate(&p).unwrap().triangles.len(), 2);
    }

    #[test]
    fn bad_inputs_are_typed_errors() {
        let nan = polygon(&[[0.0, 0.0], [1.0, f64::NAN], [0.0, 1.0]], &[]);
        assert_eq!(triangulate(&nan), Err(TriangulateError::NonFiniteVertex { hole: None, vertex: 1 }));
        let crossing = square([3.0, 1.0], [5.0, 2.0], true);
        let p = polygon(&square([0.0, 0.0], [4.0, 4.0], false), &[&crossing]);
        assert!(matches!(triangulate(&p), Err(TriangulateError::CrossingEdges { .. })));
        let outside = square([5.0, 5.0], [6.0, 6.0], true);
        let p = polygon(&square([0.0, 0.0], [4.0, 4.0], false), &[&outside]);
        assert_eq!(triangulate(&p), Err(TriangulateError::NoBridge { hole: 0 }));
    }

    #[test]
    fn flips_the_long_diagonal_of_a_rhombus() {
        // 3 (1, 3)        split along the long diagonal 1-3, the short one 0-2 is Delaunay
        //   /  |  \
        // 0 ---+--- 2
        //   \  |  /
        // 1 (1, -3)
        let vertices = vec![[0.0, 0.0], [1.0, -3.0], [2.0, 0.0], [1.0, 3.0]];
        let mut t = Triangulation { vertices, triangles: vec![[0, 1, 3], [1, 2, 3]] };
        assert_eq!(flippable_edges(&t), vec![(1, 3)]);
        make_delaunay(&mut t);
        let mut sorted: Vec<[u32; 3]> = t
            .triangles
            .iter()
            .map(|tri| {
                let k = (0..3).min_by_key(|&k| tri[k]).unwrap_or(0);
                [tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3]]
            })
            .collect();
        sorted.sort_unstable();
        assert_eq!(sorted, vec![[0, 1, 2], [0, 2, 3]]);
    }

    #[test]
    fn cocircular_quads_are_not_flipped() {
        // A square's corners are cocircular: either diagonal is Delaunay, none is flipped.
        let square = vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        let mut t = Triangulation { vertices: square, triangles: vec![[0, 1, 2], [0, 2, 3]] };
        let before = t.clone();
        make_delaunay(&mut t);
        assert_eq!(t, before);
    }

    #[test]
    fn no_flip_onto_an_existing_edge() {
        // Triangles 0 1 2 and 1 0 3 want the diagonal 2-3, but a third triangle (overlapping
        // them: not a valid triangulation) already has the edge 2 → 3.
        let vertices = vec![[0.0, 0.0], [4.0, 0.0], [2.0, 1.0], [2.0, -1.0], [3.0, 0.0]];
        let quad = vec![[0, 1, 2], [1, 0, 3]];
        let mut alone = Triangulation { vertices: vertices.clone(), triangles: quad.clone() };
        make_delaunay(&mut alone);
        assert_ne!(alone.triangles, quad, "without the third triangle, 0-1 is flipped");
        let mut t = Triangulation { vertices, triangles: vec![quad[0], quad[1], [2, 3, 4]] };
        let before = t.clone();
        make_delaunay(&mut t);
        assert_eq!(t, before);
    }

    #[test]
    fn out_of_range_indices_are_left_alone() {
        let mut t = Triangulation { vertices: vec![[0.0, 0.0], [1.0, 0.0]], triangles: vec![[0, 1, 7], [1, 0, 9]] };
        let before = t.clone();
        make_delaunay(&mut t);
        assert_eq!(t, before);
    }

    #[test]
    fn ear_clipping_fans_are_flipped() {
        // A flat ellipse and a room with an octagonal pillar: ear clipping leaves long fan
        // triangles whose edges are not Delaunay.
        let ellipse: Vec<Point2> = (0..24)
            .map(|i| {
                let a = i as f64 * std::f64::consts::TAU / 24.0;
                [10.0 * a.cos(), 2.0 * a.sin()]
            })
            .collect();
        let pillar: Vec<Point2> = (0..8)
            .map(|i| {
                let a = -(i as f64) * std::f64::consts::TAU / 8.0;
                [5.0 + a.cos(), 2.0 + a.sin()]
            })
            .collect();
        for p in [polygon(&ellipse, &[]), polygon(&square([0.0, 0.0], [20.0, 4.0], false), &[&pillar])] {
            let t = triangulate(&p).expect("triangulates");
            assert!(!flippable_edges(&t).is_empty(), "the ear-clipped triangulation is not Delaunay");
            check_flipped(&p, &t, true);
        }
    }

    #[test]
    fn every_small_diamond_lattice() {
        for n in 1..=3 {
            for mask in 0u32..1 << (n * n) {
                let cells: Vec<bool> = (0..n * n).map(|c| mask >> c & 1 == 1).collect();
                let p = lattice(n, &cells);
                match triangulate(&p) {
                    Ok(t) => {
                        check_triangulation(&p, &t, true);
                        check_flipped(&p, &t, true);
                        check_flipped(&p, &t, true);
                    }
                    Err(e) => panic!("n {n} mask {mask:b}: {e}"),
                }
            }
        }
    }

    proptest! {
        #![proptest_config(config(64))]

        #[test]
        fn random_stars_with_holes(p in star_with_holes()) {
            let t = triangulate(&p).expect("triangulates");
            check_triangulation(&p, &t, true);
            check_flipped(&p, &t, true);
        }

        #[test]
        fn random_touching_diamonds(p in diamond_lattice()) {
            let t = triangulate(&p).expect("triangulates");
            check_triangulation(&p, &t, true);
            check_flipped(&p, &t, true);
        }

        #[test]
        fn random_stars_far_from_the_origin(p in star_with_holes(), offset in prop_oneof![Just(1e4), Just(1e6), Just(-3e7)]) {
            let shift = |r: &Vec<Point2>| r.iter().map(|q| [q[0] + offset, q[1] - offset]).collect::<Vec<_>>();
            let p = PolygonWithHoles { outer: shift(&p.outer), holes: p.holes.iter().map(shift).collect() };
            let t = triangulate(&p).expect("triangulates");
            check_triangulation(&p, &t, true);
            check_flipped(&p, &t, true);
        }

        #[test]
        fn random_spikes_and_duplicates(p in star_with_holes(), picks in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..3), 1..8)) {
            // Doubled vertices and zero-area antennas a tenth of the way towards the centre:
            // inside the star-shaped outer ring (radius >= 5) and clear of the holes (radius
            // < 3.4).
            let mut outer = p.outer.clone();
            for (at, kind) in picks {
                let i = at.index(outer.len());
                let v = outer[i];
                match kind {
                    0 => outer.insert(i, v),
                    _ => {
                        let tip = [v[0] * 0.9, v[1] * 0.9];
                        outer.splice(i + 1..i + 1, [tip, v]);
                    }
                }
            }
            let p = PolygonWithHoles { outer, holes: p.holes };
            let t = triangulate(&p).expect("triangulates");
            check_triangulation(&p, &t, false);
            check_flipped(&p, &t, false);
        }

        #[test]
        fn random_garbage_never_panics(
            outer in proptest::collection::vec((-5i32..5, -5i32..5), 0..12),
            holes in proptest::collection::vec(proptest::collection::vec((-5i32..5, -5i32..5), 0..6), 0..3),
            scale in prop_oneof![Just(1.0), Just(1e-300), Just(1e300), Just(0.1)],
        ) {
            // Random rings cross themselves and each other: errors are fine, panics and endless
            // loops are not, and whatever comes back is counter-clockwise.
            let ring = |r: &Vec<(i32, i32)>| r.iter().map(|&(x, z)| [x as f64 * scale, z as f64 * scale]).collect();
            let p = PolygonWithHoles { outer: ring(&outer), holes: holes.iter().map(ring).collect() };
            if let Ok(t) = triangulate(&p) {
                for tri in &t.triangles {
                    let [a, b, c] = tri.map(|i| t.vertices[i as usize]);
                    prop_assert!(orient2d(a, b, c) > 0.0);
                }
            }
        }

        #[test]
        fn random_boolean_shapes(shapes in overlay_shapes()) {
            for p in shapes {
                let t = triangulate(&p).expect("triangulates");
                check_triangulation(&p, &t, true);
                check_flipped(&p, &t, true);
            }
        }

        #[test]
        fn random_checkerboards(p in checkerboard()) {
            let t = triangulate(&p).expect("triangulates");
            check_triangulation(&p, &t, true);
            check_flipped(&p, &t, true);
        }

        #[test]
        fn random_convex_polygons_become_delaunay(
            angles in proptest::collection::vec(0.0f64..std::f64::consts::TAU, 3..40),
            stretch in 1.0f64..20.0,
        ) {
            // Points on an ellipse in angle order: a convex polygon, whose constrained
            // Delaunay triangulation is the Delaunay triangulation of its vertices: no vertex
            // inside any triangle's circumcircle (brute force).
            let mut angles = angles;
            angles.sort_by(f64::total_cmp);
            angles.dedup();
            let outer: Vec<Point2> = angles.iter().map(|a| [stretch * a.cos(), a.sin()]).collect();
            let p = polygon(&outer, &[]);
            let t = triangulate(&p).expect("triangulates");
            let d = check_flipped(&p, &t, false);
            for tri in &d.triangles {
                let [a, b, c] = tri.map(|i| d.vertices[i as usize]);
                for &q in &d.vertices {
                    prop_assert!(incircle(a, b, c, q) <= 0.0, "{q:?} inside the circle of {tri:?}");
                }
            }
        }
    }
}
