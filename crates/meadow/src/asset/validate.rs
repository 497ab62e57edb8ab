//! Structural validation of navmesh data on load: every index in range, polygons convex and
//! counter-clockwise, portals symmetric, no two polygons on one side of the same edge, off-mesh
//! links on their polygons.

use super::{EdgeLink, NavMeshData, OffMeshLink, PolygonData, ValidationError, VisibilityGraph};
use crate::geom::{self, Point2};
use crate::tolerance::LINK_POINT_SLACK;

pub(super) fn validate(d: &NavMeshData) -> Result<(), ValidationError> {
    d.settings.validate()?;
    if let Some(vertex) = d.vertices.iter().position(|v| v.iter().any(|c| !c.is_finite())) {
        return Err(ValidationError::NonFiniteVertex { vertex });
    }
    // The coordinate contract: every later computation on the mesh (query lengths, heights,
    // squared distances) stays finite for vertices within it.
    if let Some(vertex) = d.vertices.iter().position(|&v| !crate::limits::in_range(v)) {
        return Err(ValidationError::VertexBeyondLimit { vertex });
    }
    if let Some(first) = d.vertices.first() {
        let (lo, hi) = d.vertices.iter().fold((*first, *first), |(mut lo, mut hi), v| {
            for k in 0..3 {
                lo[k] = lo[k].min(v[k]);
                hi[k] = hi[k].max(v[k]);
            }
            (lo, hi)
        });
        if let Some(axis) = (0..3).find(|&k| hi[k] - lo[k] > crate::limits::MAX_EXTENT) {
            return Err(ValidationError::ExtentTooLarge { axis, extent: hi[axis] - lo[axis] });
        }
    }
    if d.edge_links.len() != d.polygon_vertices.len() {
        return Err(ValidationError::LinkCountMismatch {
            links: d.edge_links.len(),
            vertices: d.polygon_vertices.len(),
        });
    }
    for (area, a) in d.areas.iter().enumerate() {
        if !(a.cost.is_finite() && a.cost >= 1.0) {
            return Err(ValidationError::BadAreaCost { area, cost: a.cost });
        }
    }
    let nv = d.vertices.len();
    let mut expected_first = 0u64;
    let mut pts: Vec<Point2> = Vec::with_capacity(12);
    for (polygon, p) in d.polygons.iter().enumerate() {
        let bad_run = ValidationError::BadPolygonRun { polygon, first: p.first, count: p.vertex_count };
        if !(3..=12).contains(&p.vertex_count)
            || p.first as u64 + p.vertex_count as u64 > d.polygon_vertices.len() as u64
        {
            return Err(bad_run);
        }
        if p.first as u64 != expected_first {
            return Err(ValidationError::NonContiguousRuns { polygon });
        }
        expected_first += p.vertex_count as u64;
        if p.area as usize >= d.areas.len() {
            return Err(ValidationError::AreaOutOfRange { polygon, area: p.area, count: d.areas.len() });
        }
        let run = &d.polygon_vertices[p.first as usize..p.first as usize + p.vertex_count as usize];
        pts.clear();
        for &v in run {
            if v as usize >= nv {
                return Err(ValidationError::VertexOutOfRange { polygon, vertex: v, count: nv });
            }
            let q = d.vertices[v as usize];
            pts.push([q[0], q[2]]);
        }
        if !geom::is_convex_ccw(&pts) {
            return Err(ValidationError::NotConvex { polygon });
        }
    }
    if expected_first != d.polygon_vertices.len() as u64 {
        return Err(ValidationError::NonContiguousRuns { polygon: d.polygons.len() });
    }
    // Adjacency: edge (a -> b) of P linking to Q needs an edge (b -> a) of Q linking to P.
    let edge = |poly: &PolygonData, k: usize| -> (u32, u32, EdgeLink) {
        let n = poly.vertex_count as usize;
        let f = poly.first as usize;
        (d.polygon_vertices[f + k], d.polygon_vertices[f + (k + 1) % n], d.edge_links[f + k])
    };
    for (polygon, p) in d.polygons.iter().enumerate() {
        for k in 0..p.vertex_count as usize {
            let (a, b, link) = edge(p, k);
            let EdgeLink::Polygon(target) = link else { continue };
            if target as usize >= d.polygons.len() || target as usize == polygon {
                return Err(ValidationError::BadLink { polygon, edge: k, target });
            }
            let q = &d.polygons[target as usize];
            let back = (0..q.vertex_count as usize)
                .map(|j| edge(q, j))
                .any(|(qa, qb, ql)| qa == b && qb == a && ql == EdgeLink::Polygon(polygon as u32));
            if !back {
                return Err(ValidationError::AsymmetricLink { polygon, edge: k, target });
            }
        }
    }
    validate_directed_edges(d)?;
    for (outline, o) in d.outlines.iter().enumerate() {
        if o.vertices.len() < 3 || o.vertices.iter().any(|&v| v as usize >= nv) {
            return Err(ValidationError::BadOutline { outline });
        }
    }
    for (link, l) in d.links.iter().enumerate() {
        validate_link(d, l).map_err(|reason| ValidationError::BadOffMeshLink { link, reason })?;
    }
    if let Some(g) = &d.visibility {
        validate_visibility(d, g).map_err(ValidationError::BadVisibility)?;
    }
    validate_tiles(d).map_err(ValidationError::BadTiles)?;
    if let Some(p) = &d.partial {
        if d.tiles.is_empty() && !d.polygons.is_empty() {
            return Err(ValidationError::BadTiles("a partial asset's polygons belong to no tile"));
        }
        let ordered = |r: [i32; 4]| r[0] <= r[2] && r[1] <= r[3];
        if !ordered(p.grid) || !ordered(p.range) {
            return Err(ValidationError::BadTiles("a partial asset's grid or range is empty"));
        }
        if p.links.iter().any(|l| l.area as usize >= d.areas.len()) {
            return Err(ValidationError::BadTiles("a pending link's area is out of range"));
        }
    }
    Ok(())
}

/// Checks that no two polygons hold the same directed edge (they would both lie on its left,
/// overlapping there).
fn validate_directed_edges(d: &NavMeshData) -> Result<(), ValidationError> {
    // Edges grouped by first vertex as (end vertex, polygon), then each group's end vertices
    // stamped: linear in the edges, whatever the fans.
    let nv = d.vertices.len();
    let (start, out) = super::corners_by_vertex(d, |polygon, k| {
        let p = &d.polygons[polygon as usize];
        let next = p.first as usize + (k + 1) % p.vertex_count as usize;
        (d.polygon_vertices[next], polygon)
    });
    // Per end vertex: the group (first vertex + 1) that last held it, and by which polygon.
    let mut seen = vec![(0usize, 0u32); nv];
    for a in 0..nv {
        for &(b, polygon) in &out[start[a]..start[a + 1]] {
            let (group, first) = seen[b as usize];
            if group == a + 1 {
                return Err(ValidationError::SharedDirectedEdge {
                    first: first as usize,
                    second: polygon as usize,
                    from: a as u32,
                    to: b,
                });
            }
            seen[b as usize] = (a + 1, polygon);
        }
    }
    Ok(())
}

/// Checks the tile sections: only in a tiled bake, in row-major order without repeats, within
/// the coordinate contract, their polygon runs consecutive and covering every polygon, and their
/// stitched offsets ascending within their runs.
fn validate_tiles(d: &NavMeshData) -> Result<(), &'static str> {
    if d.tiles.is_empty() {
        return Ok(());
    }
    let size = d.settings.tile_size;
    if size <= 0.0 {
        return Err("the asset has tile sections but its settings have no tile size");
    }
    // A tile's corner lies within a tile of the coordinate limit.
    let limit = (crate::limits::MAX_COORDINATE / size).ceil() + 1.0;
    let mut next_polygon = 0u64;
    let mut previous: Option<(i32, i32)> = None;
    for t in &d.tiles {
        if (t.x as f64).abs() > limit || (t.z as f64).abs() > limit {
            return Err("a tile lies beyond the coordinate limit");
        }
        if previous.is_some_and(|p| p >= (t.z, t.x)) {
            return Err("the tiles are not in row-major order or repeat");
        }
        previous = Some((t.z, t.x));
        if t.first_polygon as u64 != next_polygon {
            return Err("a tile's polygons do not follow the previous tile's");
        }
        next_polygon += t.polygon_count as u64;
        if next_polygon > d.polygons.len() as u64 {
            return Err("a tile's polygons run past the last polygon");
        }
        let slots: u64 =
            d.polygons[t.first_polygon as usize..next_polygon as usize].iter().map(|p| p.vertex_count as u64).sum();
        if t.stitched.windows(2).any(|w| w[0] >= w[1]) || t.stitched.last().is_some_and(|&s| s as u64 >= slots) {
            return Err("a tile's stitched vertex offsets are not ascending within its polygons");
        }
    }
    if next_polygon != d.polygons.len() as u64 {
        return Err("the tiles do not cover every polygon");
    }
    Ok(())
}

/// Checks the visibility graph's shape: parallel arrays, CSR offsets, indices in range, each
/// corner on its polygon, lengths equal to the corners' XZ distance (so no query sums a wrong
/// or non-finite number).
fn validate_visibility(d: &NavMeshData, g: &VisibilityGraph) -> Result<(), &'static str> {
    let n = g.corners.len();
    if g.polygons.len() != n || g.first_edge.len() != n + 1 {
        return Err("its per-node arrays differ in length");
    }
    if g.targets.len() != g.lengths.len() {
        return Err("its per-edge arrays differ in length");
    }
    if g.first_edge[0] != 0
        || g.first_edge[n] as usize != g.targets.len()
        || g.first_edge.windows(2).any(|w| w[0] > w[1])
    {
        return Err("its edge offsets are not a CSR index of its edges");
    }
    for (&v, &p) in g.corners.iter().zip(&g.polygons) {
        let Some(pd) = d.polygons.get(p as usize) else {
            return Err("a corner's polygon is out of range");
        };
        let run = &d.polygon_vertices[pd.first as usize..pd.first as usize + pd.vertex_count as usize];
        if !run.contains(&v) {
            return Err("a corner is not a vertex of its polygon");
        }
    }
    for node in 0..n {
        let a = d.vertices[g.corners[node] as usize];
        for (t, len) in g.edges(node) {
            let Some(&tv) = g.corners.get(t as usize) else {
                return Err("an edge leads to a node out of range");
            };
            let b = d.vertices[tv as usize];
            if t as usize == node || len.to_bits() != (b[0] - a[0]).hypot(b[2] - a[2]).to_bits() {
                return Err("an edge is a loop or its length is not its corners' distance");
            }
        }
    }
    Ok(())
}

/// Checks one off-mesh link of `d` (whose polygons are already validated).
pub(crate) fn validate_link(d: &NavMeshData, l: &OffMeshLink) -> Result<(), &'static str> {
    if !(l.start.iter().chain(&l.end).all(|c| c.is_finite())) {
        return Err("an end point has a non-finite coordinate");
    }
    if !(l.cost.is_finite() && (0.0..=crate::query::MAX_LINK_COST).contains(&l.cost)) {
        return Err("its cost must be finite, >= 0 and at most MAX_LINK_COST");
    }
    if l.area as usize >= d.areas.len() {
        return Err("its area index is out of range");
    }
    for (poly, p) in [(l.start_polygon, l.start), (l.end_polygon, l.end)] {
        let Some(pd) = d.polygons.get(poly as usize) else {
            return Err("a polygon index is out of range");
        };
        let run = &d.polygon_vertices[pd.first as usize..pd.first as usize + pd.vertex_count as usize];
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for &v in run {
            let q = d.vertices[v as usize];
            for k in 0..3 {
                lo[k] = lo[k].min(q[k]);
                hi[k] = hi[k].max(q[k]);
            }
        }
        let outside = |k: usize| p[k] < lo[k] - LINK_POINT_SLACK || p[k] > hi[k] + LINK_POINT_SLACK;
        if outside(0) || outside(1) || outside(2) {
            return Err("an end point does not lie on its polygon");
        }
    }
    Ok(())
}
