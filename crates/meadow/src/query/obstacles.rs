//! Islands as lone obstacles: the convex hulls of hole outlines that no walkable surface
//! overlaps, for answering a query whose straight segment is blocked by one island with a path
//! that is provably shortest.
//!
//! The certificate (lengths in XZ, the plane the string pulling works in): let the segment from
//! `s` to `g` enter island `O`, a hole in the walkable surface whose outline is a simple ring,
//! with `s` and `g` outside `O`'s convex hull `H`. Every path from `s` to `g` in the plane
//! minus `O`'s interior goes round `O` on one side or the other (the segment `s g` runs
//! through `O`). A path that enters a pocket of `H` (part of `H` outside `O`) must leave it
//! through the same hull edge, and that edge is shorter, so shortest paths stay outside `H`;
//! outside a convex set the shortest path on each side is the taut string round `H`, and a path
//! that winds round `H` more than once is longer still. So neither side has a path shorter than
//! the shorter of the two strings. Every path on the mesh from `s` stays in `s`'s connected
//! component, which, projected on XZ, lies in the plane minus `O`'s interior when none of it
//! overlaps `O`. When that string walks the mesh without meeting a wall, through polygons of
//! the cheapest area cost, it is a shortest path (and cheapest, cost being length times the
//! area cost).

use super::locate::LocateIndex;
use super::{xz, NONE};
use crate::geom::{orient2d, Point2};
use crate::{EdgeLink, NavMesh};

/// Largest hole outline considered: the load-time overlap test costs its vertex count per
/// polygon near it, and the per-query tangents its hull size. Islands this certificate serves
/// (rocks, pillars, crates, houses) are far smaller.
pub(crate) const MAX_OBSTACLE_VERTICES: usize = 256;

/// Largest number of (nearby polygon, outline vertex) pairs the overlap test of one outline may
/// look at: nearby means in the locate grid's cells over the outline's bounding box, which for a
/// long diagonal hole can be much of the level. Beyond it the outline certifies nothing, so
/// building a query mesh stays linear in the level's size.
const MAX_OVERLAP_WORK: usize = 1 << 18;

/// The hulls of the islands that can certify a path.
#[derive(Clone, Debug, Default)]
pub(crate) struct Obstacles {
    /// Per vertex: the outline whose hull certifies paths round it, or `NONE`.
    outline_of: Vec<u32>,
    /// Per outline plus one: where its hull starts in `hull`, `points` and `arc`.
    start: Vec<u32>,
    /// Hull vertices (mesh vertex indices), counter-clockwise in XZ, outline after outline.
    hull: Vec<u32>,
    /// Their XZ positions.
    points: Vec<Point2>,
    /// Per hull vertex: the hull's length from its first vertex counter-clockwise to it.
    arc: Vec<f64>,
    /// Per outline: its hull's perimeter.
    perimeter: Vec<f64>,
}

/// One island's hull, as [`Obstacles::hull_of`] gives it.
pub(crate) struct Hull<'a> {
    pub(crate) vertices: &'a [u32],
    pub(crate) points: &'a [Point2],
    arc: &'a [f64],
    perimeter: f64,
}

impl Obstacles {
    /// The hulls of the simple hole outlines of `mesh` (each vertex on one outline only, whose
    /// walls meet no other wall; at most [`MAX_OBSTACLE_VERTICES`]) whose interior no polygon
    /// of the component round them overlaps in XZ (no connected ramp or floor above or below
    /// them; a crate's unreachable top does not count). `simple_hole` tells those outlines,
    /// `component` gives each polygon's portal-graph component, and `index` finds the polygons
    /// near an outline.
    pub(crate) fn build(mesh: &NavMesh, index: &LocateIndex, component: &[u32], simple_hole: &[bool]) -> Obstacles {
        let data = mesh.data();
        let verts = &data.vertices;
        let mut o = Obstacles { outline_of: vec![NONE; verts.len()], start: vec![0], ..Obstacles::default() };
        let mut ring: Vec<Point2> = Vec::new();
        let mut corners: Vec<(Point2, u32)> = Vec::new();
        let mut hull: Vec<(Point2, u32)> = Vec::new();
        let mut near = Near {
            polygons: Vec::new(),
            stamp: vec![NONE; data.polygons.len()],
            points: Vec::new(),
            edges: Vec::new(),
        };
        for (i, outline) in data.outlines.iter().enumerate() {
            ring.clear();
            ring.extend(outline.vertices.iter().map(|&v| xz(verts[v as usize])));
            let hole = simple_hole[i] && outline.vertices.len() <= MAX_OBSTACLE_VERTICES;
            let uncovered = hole && !covered(mesh, index, component, i as u32, &outline.vertices, &ring, &mut near);
            if uncovered {
                corners.clear();
                corners.extend(outline.vertices.iter().map(|&v| (xz(verts[v as usize]), v)));
                crate::geom::convex_hull(&mut corners, |c| c.0, &mut hull);
            }
            if uncovered && hull.len() >= 3 {
                for &v in &outline.vertices {
                    o.outline_of[v as usize] = i as u32;
                }
                let mut length = 0.0;
                for (k, &(p, v)) in hull.iter().enumerate() {
                    if k > 0 {
                        length += super::dist2(hull[k - 1].0, p);
                    }
                    o.hull.push(v);
                    o.points.push(p);
                    o.arc.push(length);
                }
                o.perimeter.push(length + super::dist2(hull[hull.len() - 1].0, hull[0].0));
            } else {
                o.perimeter.push(0.0);
            }
            o.start.push(o.hull.len() as u32);
        }
        o
    }

    /// The hull of the certifying island whose outline holds wall edge `a -> b`, if any.
    pub(crate) fn hull_of(&self, a: u32, b: u32) -> Option<Hull<'_>> {
        let outline = *self.outline_of.get(a as usize)?;
        if outline == NONE || self.outline_of.get(b as usize) != Some(&outline) {
            return None;
        }
        let (s, e) = (self.start[outline as usize] as usize, self.start[outline as usize + 1] as usize);
        Some(Hull {
            vertices: &self.hull[s..e],
            points: &self.points[s..e],
            arc: &self.arc[s..e],
            perimeter: self.perimeter[outline as usize],
        })
    }
}

impl Hull<'_> {
    /// Whether `p` lies strictly outside the hull (exactly).
    pub(crate) fn outside(&self, p: Point2) -> bool {
        let n = self.points.len();
        (0..n).any(|i| orient2d(self.points[i], self.points[(i + 1) % n], p) < 0.0)
    }

    /// The hull vertex `t` seen from `p` (outside the hull) with the whole hull on the left of
    /// `p -> t` (`left`) or on its right. Where a hull edge lies on that line, of its two
    /// vertices the one whose next (`left`) or previous neighbour lies strictly off the line:
    /// the corner a taut string from or to `p` turns at, so none passes straight through one.
    pub(crate) fn tangent(&self, p: Point2, left: bool) -> Option<usize> {
        let n = self.points.len();
        let pts = self.points;
        (0..n).find(|&i| {
            let (before, after) = (orient2d(p, pts[i], pts[(i + n - 1) % n]), orient2d(p, pts[i], pts[(i + 1) % n]));
            if left {
                before >= 0.0 && after > 0.0
            } else {
                before < 0.0 && after <= 0.0
            }
        })
    }

    /// The hull's length counter-clockwise from vertex `i` to vertex `j`.
    pub(crate) fn arc_ccw(&self, i: usize, j: usize) -> f64 {
        let d = self.arc[j] - self.arc[i];
        if j >= i {
            d
        } else {
            self.perimeter + d
        }
    }
}

/// Scratch space for [`covered`]: the candidate polygons near one ring, each listed once.
struct Near {
    polygons: Vec<u32>,
    /// Per polygon: the ring it was last listed for.
    stamp: Vec<u32>,
    points: Vec<Point2>,
    /// The ring's edges as (start, end) vertex pairs, sorted.
    edges: Vec<(u32, u32)>,
}

/// Whether a polygon of the component the hole outline `outline` (id `id`, XZ points `ring`)
/// borders overlaps the ring's interior in XZ (a spiral ramp or a connected upper floor over
/// the hole). Polygons of other components are left out: no path from the hole's side reaches
/// them. Also true (as unsure) when the ring's edges do not all border polygons of one component.
fn covered(
    mesh: &NavMesh,
    index: &LocateIndex,
    component: &[u32],
    id: u32,
    outline: &[u32],
    ring: &[Point2],
    near: &mut Near,
) -> bool {
    let data = mesh.data();
    let mut rb = super::EMPTY_BOUNDS;
    for p in ring {
        super::grow_bounds(&mut rb, [p[0], 0.0, p[1]]);
    }
    near.polygons.clear();
    let (polygons, stamp) = (&mut near.polygons, &mut near.stamp);
    index.for_each_candidate(&rb, |p| {
        if stamp[p as usize] != id {
            stamp[p as usize] = id;
            polygons.push(p);
        }
    });
    let n = ring.len();
    if near.polygons.len() * n > MAX_OVERLAP_WORK {
        return true; // a long thin hole across much of the level: left uncertified
    }
    near.edges.clear();
    near.edges.extend((0..n).map(|i| (outline[i], outline[(i + 1) % n])));
    near.edges.sort_unstable();
    // The component of the polygons whose walls are the ring's edges (each edge has one).
    let (mut ring_component, mut bordering) = (NONE, 0);
    for &pi in &near.polygons {
        let poly = data.polygons[pi as usize];
        let (first, m) = (poly.first as usize, poly.vertex_count as usize);
        for k in (0..m).filter(|&k| data.edge_links[first + k] == EdgeLink::Wall) {
            let e = (data.polygon_vertices[first + k], data.polygon_vertices[first + (k + 1) % m]);
            if near.edges.binary_search(&e).is_ok() {
                bordering += 1;
                if ring_component == NONE {
                    ring_component = component[pi as usize];
                } else if ring_component != component[pi as usize] {
                    return true;
                }
            }
        }
    }
    if bordering != n {
        return true;
    }
    let poly = &mut near.points;
    for &pi in near.polygons.iter().filter(|&&pi| component[pi as usize] == ring_component) {
        poly.clear();
        poly.extend(mesh.polygon_points(pi as usize));
        if overlaps_ring_interior(poly, ring) {
            return true;
        }
    }
    false
}

/// Whether the convex counter-clockwise polygon `poly` and the simple ring `ring` have
/// interiors that meet (exact orientations; true when unsure).
///
/// If a ring edge passes through the polygon's interior, the ring's interior lies on one side
/// of it there. Otherwise the polygon's interior misses the ring's boundary, so it lies wholly
/// inside or wholly outside the ring, which one vertex off the ring (or, with every vertex on
/// the ring, the centroid) tells.
fn overlaps_ring_interior(poly: &[Point2], ring: &[Point2]) -> bool {
    let m = poly.len();
    let n = ring.len();
    for i in 0..n {
        let (c, d) = (ring[i], ring[(i + 1) % n]);
        // Separating axes of a segment and a convex polygon: the polygon's edge lines and the
        // segment's own line. The segment misses the polygon's interior iff one of them has
        // the two on opposite closed sides.
        let outside_an_edge = (0..m).any(|k| {
            let (a, b) = (poly[k], poly[(k + 1) % m]);
            orient2d(a, b, c) <= 0.0 && orient2d(a, b, d) <= 0.0
        });
        let (mut left, mut right) = (false, false);
        for &p in poly {
            let o = orient2d(c, d, p);
            left |= o > 0.0;
            right |= o < 0.0;
        }
        if !outside_an_edge && left && right {
            return true;
        }
    }
    for &p in poly {
        match ring_side(ring, p) {
            Side::Inside => return true,
            Side::Outside => return false,
            Side::On => {}
        }
    }
    let centroid =
        [poly.iter().map(|p| p[0]).sum::<f64>() / m as f64, poly.iter().map(|p| p[1]).sum::<f64>() / m as f64];
    let in_poly = (0..m).all(|k| orient2d(poly[k], poly[(k + 1) % m], centroid) > 0.0);
    !in_poly || ring_side(ring, centroid) != Side::Outside
}

/// Where a point lies relative to a simple ring.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Side {
    Inside,
    On,
    Outside,
}

/// Whether `p` lies inside the simple ring (either orientation), on it, or outside (exact
/// orientations, winding number).
fn ring_side(ring: &[Point2], p: Point2) -> Side {
    let n = ring.len();
    let mut winding = 0i32;
    for i in 0..n {
        let (a, b) = (ring[i], ring[(i + 1) % n]);
        let o = orient2d(a, b, p);
        if o == 0.0
            && p[0] >= a[0].min(b[0])
            && p[0] <= a[0].max(b[0])
            && p[1] >= a[1].min(b[1])
            && p[1] <= a[1].max(b[1])
        {
            return Side::On;
        }
        if a[1] <= p[1] {
            if b[1] > p[1] && o > 0.0 {
                winding += 1;
            }
        } else if b[1] <= p[1] && o < 0.0 {
            winding -= 1;
        }
    }
    if winding != 0 {
        Side::Inside
    } else {
        Side::Outside
    }
}

/// Perimeter of the convex hull of `points` (reordered; `chain` is scratch): Andrew's
/// monotone chain with exact orientation tests.
pub(crate) fn convex_hull_perimeter(points: &mut [Point2], chain: &mut Vec<Point2>) -> f64 {
    crate::geom::convex_hull(points, |p| *p, chain);
    let n = chain.len();
    (0..n).map(|i| crate::query::dist2(chain[i], chain[(i + 1) % n])).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The indices of `pts` on their convex hull, as the obstacles take it.
    fn hull_ids(pts: &[Point2]) -> Vec<u32> {
        let mut corners: Vec<(Point2, u32)> = pts.iter().enumerate().map(|(i, &p)| (p, i as u32)).collect();
        let mut hull = Vec::new();
        crate::geom::convex_hull(&mut corners, |c| c.0, &mut hull);
        hull.iter().map(|q| q.1).collect()
    }

    #[test]
    fn hull_of_a_square_with_a_notch_and_collinear_points() {
        let pts = [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0], [1.0, 1.0], [0.0, 2.0]];
        assert_eq!(hull_ids(&pts), vec![0, 2, 3, 5]);
    }

    #[test]
    fn tangents_from_a_point_in_line_with_a_hull_edge_take_the_turning_corner() {
        // The unit square, counter-clockwise; points in line with its bottom edge (z = 0).
        let points = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
        let arc = [0.0, 1.0, 2.0, 3.0];
        let hull = Hull { vertices: &[0, 1, 2, 3], points: &points, arc: &arc, perimeter: 4.0 };
        // From the left, (0, 0) and (1, 0) both see the hull on their left; a string going
        // counter-clockwise turns at (1, 0). On the right side the tangent is (0, 1).
        assert_eq!(hull.tangent([-1.0, 0.0], true), Some(1));
        assert_eq!(hull.tangent([-1.0, 0.0], false), Some(3));
        // From the right, with the hull on the right: a string going on clockwise (towards
        // (0, 0) along the bottom edge) turns at (0, 0), not at (1, 0) in line with it.
        assert_eq!(hull.tangent([2.0, 0.0], false), Some(0));
        assert_eq!(hull.tangent([2.0, 0.0], true), Some(2));
        assert_eq!(hull.tangent([-1.0, 0.5], false), Some(3));
        assert_eq!(hull.arc_ccw(3, 1), 2.0);
        assert_eq!(hull.arc_ccw(1, 3), 2.0);
    }

    #[test]
    fn overlap_with_a_ring_interior_is_exact_in_degenerate_cases() {
        // A clockwise square hole [0, 2]², as the bake writes holes.
        let ring = [[0.0, 0.0], [0.0, 2.0], [2.0, 2.0], [2.0, 0.0]];
        let cases: [(&[Point2], bool); 9] = [
            // The same square (every vertex and edge on the ring).
            (&[[0.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.0, 2.0]], true),
            // A triangle on three of its corners (its diagonal runs through the interior).
            (&[[0.0, 0.0], [2.0, 0.0], [2.0, 2.0]], true),
            // A polygon bordering the hole along one side.
            (&[[2.0, 0.0], [3.0, 0.0], [3.0, 2.0], [2.0, 2.0]], false),
            // A fan triangle touching a corner only, straddling the line of a ring edge.
            (&[[2.0, 2.0], [3.0, 1.0], [3.0, 3.0]], false),
            // One inside it with vertices on the ring.
            (&[[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [1.0, 2.0]], true),
            // One across it with no vertex inside (a band through the middle).
            (&[[-1.0, 0.5], [3.0, 0.5], [3.0, 1.5], [-1.0, 1.5]], true),
            // One holding it whole.
            (&[[-1.0, -1.0], [3.0, -1.0], [3.0, 3.0], [-1.0, 3.0]], true),
            // One beside it.
            (&[[3.0, 0.0], [4.0, 0.0], [4.0, 1.0]], false),
            // One whose edge lies along a ring edge and extends past it.
            (&[[-1.0, 2.0], [3.0, 2.0], [1.0, 3.0]], false),
        ];
        for (poly, overlaps) in cases {
            assert_eq!(overlaps_ring_interior(poly, &ring), overlaps, "{poly:?}");
        }
    }

    #[test]
    fn hull_with_mixed_signed_zeros_keeps_every_corner() {
        let pts = [[-0.0, 2.0], [0.0, 0.0], [0.0, 1.0], [1.0, 1.0]];
        assert_eq!(hull_ids(&pts), vec![1, 3, 0]);
        let mut flat: Vec<Point2> = pts.to_vec();
        let perimeter = convex_hull_perimeter(&mut flat, &mut Vec::new());
        assert!((perimeter - (2.0 + 2.0 * 2f64.sqrt())).abs() < 1e-12, "{perimeter}");
    }

    #[test]
    fn ring_interior_excludes_the_ring() {
        let ring = [[0.0, 0.0], [0.0, 2.0], [2.0, 2.0], [2.0, 0.0]]; // clockwise
        assert_eq!(ring_side(&ring, [1.0, 1.0]), Side::Inside);
        assert_eq!(ring_side(&ring, [0.0, 1.0]), Side::On);
        assert_eq!(ring_side(&ring, [2.0, 2.0]), Side::On);
        assert_eq!(ring_side(&ring, [3.0, 1.0]), Side::Outside);
    }
}
