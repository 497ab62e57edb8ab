//! Stage 5, polygons: the simplified [`Regions`] → a [`PolygonMesh`] of convex polygons over
//! shared vertices, each vertex with the height of the walkable surface under it.
//!
//! Ring edges along which the walkable surface leaves the straight line between their ends by
//! more than `max_climb` (a floor running into a stair) are halved first, alike in every ring
//! that shares them ([`creases`]). Every region polygon is then triangulated
//! ([`crate::triangulate`]: ear clipping, then flips to the constrained Delaunay triangulation,
//! so that the merge below works on fat triangles rather than long slivers: fewer polygons,
//! and shorter portals whose midpoints guide path searches better), and interior edges that
//! leave the surface the same way are halved by new vertices, and surface corners far off a
//! triangle's plane become vertices. Each triangulation then takes
//! its vertex heights from its layer's walkable surface ([`SurfaceHeights`]), is merged into
//! convex polygons that stay flat ([`crate::convex`]), and is added to the mesh, whose vertices
//! are welded across regions within `max_climb` of each other ([`PortalVertexIndex`]). All
//! polygons are triangulated before any is merged, in region order, so progress reports the
//! two steps one after the other.

use crate::classify::WalkableTriangle;
use crate::convex::{self, ConvexError, FLAT_TOLERANCE};
use crate::heights::SurfaceHeights;
use crate::portals::{PolygonMesh, VertexIndex as PortalVertexIndex};
use crate::progress::{Progress, Stage};
use crate::region::Regions;
use crate::triangulate::{self, TriangulateError, Triangulation};
use meadow::geom::orient2d;
use meadow::{BakeSettings, Partition};

pub mod creases;

/// The settings the polygons stage needs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PolygonParams {
    /// Largest height difference, in metres, between vertices welded into one.
    pub max_climb: f64,
    /// Most vertices per convex polygon.
    pub max_verts_per_poly: usize,
    /// How the free area is cut into convex polygons.
    pub partition: Partition,
}

impl From<&BakeSettings> for PolygonParams {
    fn from(s: &BakeSettings) -> Self {
        PolygonParams {
            max_climb: s.max_climb,
            max_verts_per_poly: s.max_verts_per_poly as usize,
            partition: s.partition,
        }
    }
}

/// What the stage reads: the simplified regions and the walkable surface that gives heights.
#[derive(Clone, Copy, Debug)]
pub struct PolygonInput<'a> {
    /// The simplified free area (its `triangle_layers` give each walkable triangle's layer).
    pub regions: &'a Regions,
    /// The walkable triangles of the classify stage.
    pub walkable: &'a [WalkableTriangle],
}

/// Why the polygons could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum PolygonError {
    /// A region polygon could not be triangulated.
    #[error("cannot triangulate region polygon {polygon} of area type {area}: {source}")]
    Triangulate {
        /// Area type index.
        area: u16,
        /// Polygon index within the area's region.
        polygon: usize,
        /// What went wrong.
        source: TriangulateError,
    },
    /// Merging triangles into convex polygons failed.
    #[error("cannot merge triangles of area type {area} into convex polygons: {source}")]
    Convex {
        /// Area type index.
        area: u16,
        /// What went wrong.
        source: ConvexError,
    },
}

/// How many triangles triangulating `regions` makes, each at most one output polygon: a polygon
/// with holes of v ring vertices and h holes triangulates into v + 2h - 2 triangles (counted
/// here as v + 2h, an upper bound). Checked against the polygon budget before the stage runs.
pub fn triangle_estimate(regions: &Regions) -> u64 {
    regions
        .areas
        .iter()
        .flat_map(|a| &a.polygons)
        .map(|p| (p.outer.len() + p.holes.iter().map(|h| h.len() + 2).sum::<usize>()) as u64)
        .sum()
}

/// Triangulates every region polygon and merges the triangles into convex polygons with
/// surface heights (see the module docs).
pub fn build_polygons(
    input: PolygonInput<'_>,
    params: &PolygonParams,
    progress: &mut dyn Progress,
) -> Result<PolygonMesh, PolygonError> {
    let mut surface = SurfaceHeights::new(input.walkable, &input.regions.triangle_layers);
    let split = creases::split_ring_edges(input.regions, &mut surface, params.max_climb);
    let regions = split.as_ref().unwrap_or(input.regions);
    let pieces = triangulate_regions(regions, &mut surface, params, progress)?;
    let mut mesh = merge_convex(&pieces, &mut surface, params, progress)?;
    let dropped = drop_covered_overlaps(&mut mesh, params.max_climb);
    if dropped > 0 {
        progress.warn(&format!(
            "dropped {dropped} polygon(s) lying inside another polygon that holds one of their edges \
             (slivers where separately rounded regions meet; no walkable area is lost)"
        ));
    }
    Ok(mesh)
}

/// Removes each polygon that overlaps another by lying inside it, and returns how many (see
/// [`build_polygons`]'s warning).
///
/// Two polygons holding one directed edge both lie on its left, which a navmesh must not have
/// (loading refuses it). Where the regions of one layer, or of two layers meeting at a seam, are
/// rounded to the grid by separate overlays, their shared-vertex pass can leave a sliver a grid
/// unit wide on top of its neighbour. A polygon `p` holding an edge that `q` holds the same way
/// round is dropped when it adds nothing: every vertex of `p` lies in `q` (exact orientation
/// tests against `q`'s convex ring) and on `q`'s surface within `max_climb`, and no edge of `p`
/// that `q` does not hold is a portal to a third polygon (dropping `p` would make it a wall).
/// Other overlaps are left for validation to report.
fn drop_covered_overlaps(mesh: &mut PolygonMesh, max_climb: f64) -> usize {
    let nv = mesh.vertices.len();
    // Edges grouped by first vertex (a counting sort): (end vertex, polygon), polygons ascending.
    let mut start = vec![0usize; nv + 1];
    for p in &mesh.polygons {
        for &v in p {
            start[v as usize + 1] += 1;
        }
    }
    for i in 0..nv {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    let mut out = vec![(0u32, 0usize); start[nv]];
    for (i, p) in mesh.polygons.iter().enumerate() {
        for k in 0..p.len() {
            let a = p[k] as usize;
            out[fill[a]] = (p[(k + 1) % p.len()], i);
            fill[a] += 1;
        }
    }
    let holds = |q: usize, u: u32, w: u32| out[start[u as usize]..start[u as usize + 1]].contains(&(w, q));
    let held_by_other = |u: u32, w: u32, not: usize| {
        out[start[u as usize]..start[u as usize + 1]].iter().any(|&(e, r)| e == w && r != not)
    };
    let adds_nothing = |p: usize, q: usize| {
        let (inner, outer) = (&mesh.polygons[p], &mesh.polygons[q]);
        let xz = |v: u32| mesh.vertices[v as usize];
        let inside = inner
            .iter()
            .all(|&v| (0..outer.len()).all(|k| orient2d(xz(outer[k]), xz(outer[(k + 1) % outer.len()]), xz(v)) >= 0.0));
        let on_surface = || {
            inner.iter().all(|&v| {
                outer.contains(&v)
                    || surface_in_fan(outer, &mesh.vertices, &mesh.heights, xz(v))
                        .is_some_and(|h| (h - mesh.heights[v as usize]).abs() <= max_climb)
            })
        };
        let no_portal_lost = || {
            (0..inner.len()).all(|k| {
                let (u, w) = (inner[k], inner[(k + 1) % inner.len()]);
                holds(q, u, w) || !held_by_other(w, u, p)
            })
        };
        inside && on_surface() && no_portal_lost()
    };
    let mut drop = vec![false; mesh.polygons.len()];
    // Per end vertex: the group (first vertex + 1) that last held it, and by which polygon.
    let mut seen = vec![(0usize, 0usize); nv];
    for a in 0..nv {
        for &(b, q) in &out[start[a]..start[a + 1]] {
            let (group, p) = seen[b as usize];
            seen[b as usize] = (a + 1, q);
            if group != a + 1 || p == q {
                continue;
            }
            // The later polygon first, so that of two equal rings the earlier one stays. A
            // polygon inside one already dropped lies inside what that one lay in.
            if !drop[q] && adds_nothing(q, p) {
                drop[q] = true;
            } else if !drop[p] && adds_nothing(p, q) {
                drop[p] = true;
            }
        }
    }
    let dropped = drop.iter().filter(|&&d| d).count();
    if dropped > 0 {
        keep_undropped(&mut mesh.polygons, &drop);
        keep_undropped(&mut mesh.areas, &drop);
        keep_undropped(&mut mesh.layers, &drop);
        drop_unused_vertices(mesh);
    }
    dropped
}

/// Removes the vertices no polygon uses (a dropped polygon's own), keeping the others in order,
/// so an untiled bake holds only used vertices, as a tiled one does.
fn drop_unused_vertices(mesh: &mut PolygonMesh) {
    let mut new_index = vec![u32::MAX; mesh.vertices.len()];
    for &v in mesh.polygons.iter().flatten() {
        new_index[v as usize] = 0;
    }
    for (next, i) in new_index.iter_mut().filter(|i| **i == 0).enumerate() {
        *i = next as u32;
    }
    let unused: Vec<bool> = new_index.iter().map(|&i| i == u32::MAX).collect();
    keep_undropped(&mut mesh.vertices, &unused);
    keep_undropped(&mut mesh.heights, &unused);
    for v in mesh.polygons.iter_mut().flatten() {
        *v = new_index[*v as usize];
    }
}

/// The height of convex ring `ring`'s surface at the XZ point `at` (interpolated in the fan from
/// its first vertex), or `None` when no fan triangle holds the point.
fn surface_in_fan(
    ring: &[u32],
    vertices: &[meadow::geom::Point2],
    heights: &[f64],
    at: meadow::geom::Point2,
) -> Option<f64> {
    let (v0, p0) = (ring[0] as usize, vertices[ring[0] as usize]);
    ring.windows(2).skip(1).find_map(|w| {
        let (i, j) = (w[0] as usize, w[1] as usize);
        let (a, b) = (vertices[i], vertices[j]);
        let area = orient2d(p0, a, b);
        let (wa, wb, wc) = (orient2d(a, b, at), orient2d(b, p0, at), orient2d(p0, a, at));
        (area > 0.0 && wa >= 0.0 && wb >= 0.0 && wc >= 0.0)
            .then(|| (wa * heights[v0] + wb * heights[i] + wc * heights[j]) / area)
    })
}

/// Keeps the items of `items` whose flag in `drop` is false, in order.
fn keep_undropped<T>(items: &mut Vec<T>, drop: &[bool]) {
    *items = std::mem::take(items).into_iter().zip(drop).filter(|(_, &d)| !d).map(|(x, _)| x).collect();
}

/// One triangulated region polygon: its area type, layer and triangles, and the edges to merge
/// across last (the Meadow split's diagonals).
struct Piece {
    area: u16,
    layer: u16,
    triangulation: Triangulation,
    late: Vec<[u32; 2]>,
}

/// Triangulates every region polygon, in region order, each flipped to Delaunay and, for the
/// Meadow partition, given its reflex diagonals where the surface along them is straight
/// within [`FLAT_TOLERANCE`] (the polygons they bound are flat within it).
fn triangulate_regions(
    regions: &Regions,
    surface: &mut SurfaceHeights<'_>,
    params: &PolygonParams,
    progress: &mut dyn Progress,
) -> Result<Vec<Piece>, PolygonError> {
    let polygon_total: usize = regions.areas.iter().map(|a| a.polygons.len()).sum();
    progress.begin(Stage::Triangulate, polygon_total as u64);
    let mut pieces = Vec::with_capacity(polygon_total);
    for a in &regions.areas {
        for (i, poly) in a.polygons.iter().enumerate() {
            let mut triangulation = triangulate::triangulate(poly).map_err(|source| PolygonError::Triangulate {
                area: a.area,
                polygon: i,
                source,
            })?;
            triangulate::make_delaunay(&mut triangulation);
            let late = match params.partition {
                Partition::Merge => Vec::new(),
                Partition::Meadow => triangulate::insert_reflex_diagonals(&mut triangulation, &mut |p, q| {
                    surface.follows_line(p, q, a.layer as u32, FLAT_TOLERANCE)
                }),
            };
            let mut fit = creases::SurfaceFit::new(surface, a.layer as u32, params.max_climb);
            triangulate::refine(&mut triangulation, &late, &mut fit);
            pieces.push(Piece { area: a.area, layer: a.layer, triangulation, late });
            progress.advance(Stage::Triangulate, pieces.len() as u64);
        }
    }
    progress.finish(Stage::Triangulate);
    Ok(pieces)
}

/// Merges each piece into convex polygons with surface heights and adds them to one mesh.
fn merge_convex(
    pieces: &[Piece],
    surface: &mut SurfaceHeights<'_>,
    params: &PolygonParams,
    progress: &mut dyn Progress,
) -> Result<PolygonMesh, PolygonError> {
    progress.begin(Stage::Convex, pieces.len() as u64);
    let mut mesh = PolygonMesh::default();
    let mut index = PortalVertexIndex::new(params.max_climb);
    let mut heights = Vec::new();
    for (k, piece) in pieces.iter().enumerate() {
        let tri = &piece.triangulation;
        heights.clear();
        heights.extend(tri.vertices.iter().map(|&p| surface.at(p, piece.layer as u32)));
        let convex = convex::merge_convex_late(tri, Some(&heights), params.max_verts_per_poly, &piece.late)
            .map_err(|source| PolygonError::Convex { area: piece.area, source })?;
        mesh.add(&tri.vertices, &heights, &convex.polygons, piece.area, piece.layer, &mut index);
        progress.advance(Stage::Convex, k as u64 + 1);
    }
    progress.finish(Stage::Convex);
    Ok(mesh)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mesh(vertices: &[Point], polygons: &[&[u32]]) -> PolygonMesh {
        PolygonMesh {
            vertices: vertices.to_vec(),
            heights: vec![0.0; vertices.len()],
            polygons: polygons.iter().map(|p| p.to_vec()).collect(),
            areas: (0..polygons.len() as u16).collect(),
            layers: vec![0; polygons.len()],
        }
    }

    type Point = meadow::geom::Point2;

    /// The generated world's case: a one-unit rectangle of walls lying inside a pentagon that
    /// holds three of its edges the same way round.
    #[test]
    fn a_polygon_inside_another_that_holds_its_edge_is_dropped() {
        let v = [[0.0, 0.0], [4.0, 0.0], [4.0, 1.0], [0.0, 1.0], [4.0, 3.0], [8.0, 0.0], [8.0, 1.0]];
        let mut m = mesh(&v, &[&[1, 5, 6, 2], &[0, 1, 2, 3], &[3, 0, 1, 2, 4]]);
        assert_eq!(drop_covered_overlaps(&mut m, 0.5), 1);
        assert_eq!(m.polygons, vec![vec![1, 5, 6, 2], vec![3, 0, 1, 2, 4]]);
        assert_eq!(m.areas, vec![0, 2]);
        // A vertex only the dropped polygon used goes with it, and the others are renumbered.
        let mut m = mesh(&[[0.0, 0.0], [4.0, 0.0], [1.0, 0.5], [4.0, 1.0], [0.0, 1.0]], &[&[0, 1, 3, 4], &[0, 1, 2]]);
        assert_eq!(drop_covered_overlaps(&mut m, 0.5), 1);
        assert_eq!(m.polygons, vec![vec![0, 1, 2, 3]]);
        assert_eq!(m.vertices, vec![[0.0, 0.0], [4.0, 0.0], [4.0, 1.0], [0.0, 1.0]]);
        assert_eq!(m.heights.len(), 4);
        // Neighbours hold their shared edge in opposite directions: nothing to drop.
        let mut m = mesh(&v, &[&[0, 1, 2, 3], &[1, 5, 6, 2]]);
        assert_eq!(drop_covered_overlaps(&mut m, 0.5), 0);
    }

    /// A polygon inside another is kept where dropping it would lose something: a portal to a
    /// third polygon (that edge would become a wall), or a vertex off the other's surface.
    #[test]
    fn a_covered_polygon_with_a_portal_or_off_the_surface_is_kept() {
        let v = [[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0], [2.0, 1.0], [3.0, -1.0]];
        // Triangle 0 -> 1 -> 4 inside the square, and a third polygon across its edge 1 -> 4.
        let mut m = mesh(&v, &[&[0, 1, 2, 3], &[0, 1, 4], &[4, 1, 5]]);
        assert_eq!(drop_covered_overlaps(&mut m, 0.5), 0);
        let mut m = mesh(&v, &[&[0, 1, 2, 3], &[0, 1, 4]]);
        m.heights[4] = 2.0;
        assert_eq!(drop_covered_overlaps(&mut m, 0.5), 0);
        m.heights[4] = 0.4;
        assert_eq!(drop_covered_overlaps(&mut m, 0.5), 1);
    }

    /// Two polygons on one side of an edge where neither lies inside the other are left for
    /// validation to report: dropping either would lose walkable area.
    #[test]
    fn overlaps_that_cover_new_area_are_kept() {
        let v = [[0.0, 0.0], [4.0, 0.0], [4.0, 1.0], [0.0, 1.0], [2.0, 3.0]];
        let mut m = mesh(&v, &[&[0, 1, 2, 3], &[0, 1, 4]]);
        assert_eq!(drop_covered_overlaps(&mut m, 0.5), 0);
        assert_eq!(m.polygons.len(), 2);
    }
}
