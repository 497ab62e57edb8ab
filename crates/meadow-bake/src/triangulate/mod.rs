//! Stage 5a (run by [`crate::polygons`]), triangulate: a polygon with holes → triangles, by ear
//! clipping with hole bridging, then edge flips to the constrained Delaunay triangulation
//! ([`make_delaunay`]).
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
//! 7. Steiner vertices ([`refine`], a separate call): interior edges the caller refuses (the
//!    bake: those along which the surface leaves the line) are halved by new vertices, and
//!    points it names inside triangles (surface vertices off their plane) become vertices,
//!    flipping back to Delaunay after each round.
//!
//! Every topological decision goes through [`orient2d`](meadow::geom::orient2d) (and, for flips,
//! [`incircle`](meadow::geom::incircle)). If
//! ear clipping fails because the input is invalid only by rounding errors (float output of
//! boolean operations), the whole is retried once with vertices that close to another edge
//! snapped onto it ([`triangulate`]).
//!
//! Coincident vertices (rings touching at a point) are welded: triangles index the first vertex
//! with the given coordinates, so triangles meeting there share an index.
//!
//! Files, in step order: `ring.rs` (nodes, cleaning), `touches.rs` (touch splits, uncrossing),
//! `grid.rs` (node and edge grids, crossing check), `holes.rs` (joining), `ears.rs` (clipping),
//! `delaunay.rs` (flips), `steiner.rs` (splits), `diagonals.rs` (the Meadow split's
//! diagonals); `predicates.rs` holds the exact tests they share, `checks.rs` and `tests.rs` the
//! tests.

mod delaunay;
mod diagonals;
mod ears;
mod grid;
mod holes;
mod predicates;
mod ring;
mod steiner;
mod touches;

#[cfg(test)]
pub(crate) mod checks;
#[cfg(test)]
mod tests;

use crate::region::PolygonWithHoles;
pub use crate::tolerance::MAX_TRIANGULATE_COORDINATE as MAX_COORDINATE;
use crate::tolerance::SNAP_ULPS;
pub use delaunay::make_delaunay;
pub use diagonals::{insert_reflex_diagonals, MAX_DIAGONAL_CANDIDATES, MAX_PAIR_CANDIDATES};
use meadow::geom::Point2;
use ring::{Clipper, Winding};
use std::cmp::Ordering;
pub use steiner::{refine, Refinement, MAX_REFINE_ROUNDS};

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
