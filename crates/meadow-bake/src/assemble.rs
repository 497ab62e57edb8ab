//! Stage 7, assemble: polygons, links and the walkable surface → a validated [`NavMesh`], with
//! vertex heights taken from the surface and the boundary outlines traced.

pub use crate::heights::SurfaceHeights;
use crate::portals::PolygonMesh;
use meadow::geom::Point2;
use meadow::{
    AreaType, BakeSettings, EdgeLink, NavMesh, NavMeshData, Outline, PartialBake, PolygonData, TileSection,
    ValidationError,
};

/// Builds the asset data and validates it.
pub fn assemble(
    mesh: &PolygonMesh,
    links: &[Vec<EdgeLink>],
    areas: &[AreaType],
    settings: &BakeSettings,
) -> Result<NavMesh, ValidationError> {
    assemble_tiled(mesh, links, areas, settings, Vec::new(), None)
}

/// As [`assemble`], for a tiled bake: `tiles` are the stitched tiles' sections
/// ([`crate::tiles::stitch`]), `partial` what a partial bake leaves for the merge.
pub fn assemble_tiled(
    mesh: &PolygonMesh,
    links: &[Vec<EdgeLink>],
    areas: &[AreaType],
    settings: &BakeSettings,
    tiles: Vec<TileSection>,
    partial: Option<PartialBake>,
) -> Result<NavMesh, ValidationError> {
    let vertices: Vec<[f64; 3]> = mesh.vertices.iter().zip(&mesh.heights).map(|(&p, &y)| [p[0], y, p[1]]).collect();
    let mut polygons = Vec::with_capacity(mesh.polygons.len());
    let mut polygon_vertices = Vec::new();
    let mut edge_links = Vec::new();
    for (i, poly) in mesh.polygons.iter().enumerate() {
        polygons.push(PolygonData {
            first: polygon_vertices.len() as u32,
            vertex_count: poly.len() as u8,
            area: mesh.areas[i],
            layer: mesh.layers[i],
        });
        polygon_vertices.extend_from_slice(poly);
        edge_links.extend_from_slice(&links[i]);
    }
    let outlines = trace_outlines(mesh, links);
    let areas = if areas.is_empty() { vec![AreaType { name: "default".into(), cost: 1.0 }] } else { areas.to_vec() };
    NavMesh::new(NavMeshData {
        settings: settings.clone(),
        vertices,
        polygons,
        polygon_vertices,
        edge_links,
        areas,
        outlines,
        // Off-mesh links are connected to the finished mesh by the `links` stage.
        links: Vec::new(),
        visibility: None,
        tiles,
        partial,
    })
}

/// Chains the wall edges into closed rings (walkable side on the left). Where several rings
/// pass through one vertex, a ring leaves by the wall edge that turns most to the left, which
/// keeps to the boundary of its own piece of walkable area, so every ring is simple.
fn trace_outlines(mesh: &PolygonMesh, links: &[Vec<EdgeLink>]) -> Vec<Outline> {
    let mut walls: Vec<(u32, u32)> = Vec::new();
    for (poly, l) in mesh.polygons.iter().zip(links) {
        for k in 0..poly.len() {
            if l[k] == EdgeLink::Wall {
                walls.push((poly[k], poly[(k + 1) % poly.len()]));
            }
        }
    }
    walls.sort_unstable();
    let mut used = vec![false; walls.len()];
    let out_of = |v: u32| {
        let lo = walls.partition_point(|e| e.0 < v);
        let hi = walls.partition_point(|e| e.0 <= v);
        lo..hi
    };
    let mut outlines = Vec::new();
    for start in 0..walls.len() {
        if used[start] {
            continue;
        }
        let mut ring = Vec::new();
        let mut e = start;
        loop {
            used[e] = true;
            let (a, b) = walls[e];
            ring.push(a);
            let pa = mesh.vertices[a as usize];
            let pb = mesh.vertices[b as usize];
            let next = out_of(b).filter(|&c| !used[c]).min_by(|&x, &y| {
                let turn = |c: usize| turn_angle(pa, pb, mesh.vertices[walls[c].1 as usize]);
                turn(y).total_cmp(&turn(x)).then(x.cmp(&y))
            });
            match next {
                Some(n) => e = n,
                None => break,
            }
        }
        if ring.len() >= 3 {
            outlines.push(Outline { vertices: ring });
        }
    }
    outlines
}

/// Signed turn from direction `a → b` to `b → c` in radians (left positive).
fn turn_angle(a: Point2, b: Point2, c: Point2) -> f64 {
    let d1 = [b[0] - a[0], b[1] - a[1]];
    let d2 = [c[0] - b[0], c[1] - b[1]];
    (d1[0] * d2[1] - d1[1] * d2[0]).atan2(d1[0] * d2[0] + d1[1] * d2[1])
}
