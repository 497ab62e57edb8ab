//! Walks of sight lines through the mesh for the graph query: whether a ray from a corner
//! reaches the goal, and the corridor of each leg of a graph path. A walk stops where the line
//! grazes a wall's end or passes where polygons touch only at a vertex, and resumes there.

use crate::geom::{orient2d, Point2};
use crate::query::raycast::WalkEnd;
use crate::query::shortest::vertex_at;
use crate::query::{xz, QueryMesh};

/// Most walks [`walk_to`] tries for one leg (each branch where the leg passes a vertex shared
/// by several polygons holding its direction is one more).
pub(super) const WALK_BRANCHES: u32 = 64;

/// Where a leg of a graph path ends: at a mesh vertex (a turn) or in the goal's polygon (or
/// one touching it).
#[derive(Clone, Copy, Debug)]
pub(super) enum Target {
    Vertex(u32),
    Polygon(u32),
}

/// Whether polygon `q`'s corner at its `slot`-th vertex (point `a`) holds the direction to `b`.
pub(super) fn holds_direction(mesh: &QueryMesh, q: u32, slot: usize, a: Point2, b: Point2) -> bool {
    let data = mesh.mesh().data();
    let (f, len) = (mesh.poly_first(q), mesh.poly_len(q));
    let at = |j: usize| xz(mesh.mesh().vertices()[data.polygon_vertices[f + j % len] as usize]);
    let (next, prev) = (at(slot + 1), at(slot + len - 1));
    orient2d(a, next, b) >= 0.0 && orient2d(a, prev, b) <= 0.0
}

/// Appends the polygons the leg `a -> b` crosses from `from` (which holds `a`) to `corridor`
/// and returns true when the walk ends at `target`; on false `corridor` is as it was. Where
/// the leg passes a vertex (grazing a wall's end, running along a wall, or where polygons touch
/// at a point), every polygon round it that holds the direction is tried, depth first.
pub(super) fn walk_to(
    mesh: &QueryMesh,
    from: u32,
    a: Point2,
    b: Point2,
    target: Target,
    corridor: &mut Vec<u32>,
    budget: &mut u32,
) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    let mark = corridor.len();
    if corridor.last() != Some(&from) {
        corridor.push(from);
    }
    let data = mesh.mesh().data();
    let end = mesh.walk_segment(from, a, b, |h| {
        if let Some(q) = mesh.edge_neighbour(h) {
            corridor.push(q);
        }
    });
    let ring = |poly: u32| {
        let first = mesh.poly_first(poly);
        &data.polygon_vertices[first..first + mesh.poly_len(poly)]
    };
    // The goal's polygon, or one sharing a vertex with it (the goal on their common boundary).
    let holds = |poly: u32| match target {
        Target::Polygon(g) => poly == g || ring(poly).iter().any(|v| ring(g).contains(v)),
        Target::Vertex(v) => ring(poly).contains(&v),
    };
    match end {
        WalkEnd::Clear(poly) if holds(poly) => return true,
        WalkEnd::Hit(poly, k, _) => {
            if let Some((v, _)) = resume_vertex(mesh, poly, k, a, b) {
                if target_is_vertex(target, v) {
                    if corridor.last() != Some(&poly) {
                        corridor.push(poly);
                    }
                    return true;
                }
                let x = xz(mesh.mesh().vertices()[v as usize]);
                let at_hit = corridor.len();
                for &(q, slot) in mesh.vertex_fans().fan(v) {
                    if holds_direction(mesh, q, slot as usize, x, b) {
                        if corridor.last() != Some(&poly) {
                            corridor.push(poly);
                        }
                        if walk_to(mesh, q, x, b, target, corridor, budget) {
                            return true;
                        }
                        corridor.truncate(at_hit);
                    }
                }
            }
        }
        _ => {}
    }
    corridor.truncate(mark);
    false
}

/// Whether the segment `a -> b` walks from polygon `from` (which holds `a`) to a polygon whose
/// entry in `marks` is `gen`, trying each polygon round a vertex it passes that holds its
/// direction (depth first, one walk per unit of `budget`).
pub(super) fn reaches_marked(
    mesh: &QueryMesh,
    from: u32,
    a: Point2,
    b: Point2,
    marks: &[u32],
    gen: u32,
    budget: &mut u32,
) -> bool {
    if *budget == 0 {
        return false;
    }
    *budget -= 1;
    match mesh.walk_segment(from, a, b, |_| {}) {
        WalkEnd::Clear(poly) => marks[poly as usize] == gen,
        WalkEnd::Hit(poly, k, _) => {
            let Some((v, x)) = resume_vertex(mesh, poly, k, a, b) else { return false };
            mesh.vertex_fans().fan(v).iter().any(|&(q, slot)| {
                holds_direction(mesh, q, slot as usize, x, b) && reaches_marked(mesh, q, x, b, marks, gen, budget)
            })
        }
        WalkEnd::Limit => false,
    }
}

/// Where a walk along `a -> b` that stopped at edge `k` of polygon `poly` resumes: the vertex of
/// that edge on the segment, farthest along it (not `a` itself), with its point.
pub(super) fn resume_vertex(mesh: &QueryMesh, poly: u32, k: usize, a: Point2, b: Point2) -> Option<(u32, Point2)> {
    let data = mesh.mesh().data();
    let first = mesh.poly_first(poly);
    let len = mesh.poly_len(poly);
    let along = |x: Point2| (x[0] - a[0]) * (b[0] - a[0]) + (x[1] - a[1]) * (b[1] - a[1]);
    [k, (k + 1) % len]
        .map(|j| data.polygon_vertices[first + j])
        .into_iter()
        .map(|v| (v, xz(mesh.mesh().vertices()[v as usize])))
        .filter(|&(_, x)| x != a && orient2d(a, b, x) == 0.0 && along(x) > 0.0)
        .max_by(|&(_, x), &(_, y)| along(x).total_cmp(&along(y)))
}

/// Appends the polygons of the leg `a -> b` to `corridor`, from polygon `near` (which holds
/// `a`), and returns true when the walk ends at `target` (`corridor` is as it was on false).
/// When `a` is the mesh vertex `vertex`, every polygon round it that holds the leg's direction
/// is tried: where floors meet at a vertex, the one `near` may hold the direction only along a
/// wall that the leg runs beside on another floor.
pub(super) fn walk_leg_to(
    mesh: &QueryMesh,
    near: u32,
    vertex: Option<u32>,
    (a, b): (Point2, Point2),
    target: Target,
    corridor: &mut Vec<u32>,
) -> bool {
    let mut budget = WALK_BRANCHES;
    match vertex {
        Some(v) => mesh.vertex_fans().fan(v).iter().any(|&(q, slot)| {
            holds_direction(mesh, q, slot as usize, a, b) && walk_to(mesh, q, a, b, target, corridor, &mut budget)
        }),
        None => walk_to(mesh, near, a, b, target, corridor, &mut budget),
    }
}

/// Whether `target` is the mesh vertex `v`.
pub(super) fn target_is_vertex(target: Target, v: u32) -> bool {
    matches!(target, Target::Vertex(t) if t == v)
}

/// Appends the polygons the leg `a -> b` crosses to `corridor`, starting from `from` (which
/// holds `a`). The mesh walk stops where the leg grazes a wall's end or passes where polygons
/// touch only at a vertex; it resumes there, from the polygon round that vertex that holds the
/// leg's direction.
pub(super) fn walk_leg(mesh: &QueryMesh, mut from: u32, mut a: Point2, b: Point2, corridor: &mut Vec<u32>) {
    for _ in 0..64 {
        if corridor.last() != Some(&from) {
            corridor.push(from);
        }
        let end = mesh.walk_segment(from, a, b, |h| {
            if let Some(q) = mesh.edge_neighbour(h) {
                corridor.push(q);
            }
        });
        let WalkEnd::Hit(poly, k, _) = end else { return };
        let Some((_, x)) = resume_vertex(mesh, poly, k, a, b) else { return };
        if corridor.last() != Some(&poly) {
            corridor.push(poly);
        }
        from = leg_polygon(mesh, poly, x, b);
        a = x;
    }
}

/// A polygon round vertex point `a` (a vertex of polygon `near`) whose corner at `a` holds the
/// direction towards `b`; `near` itself when none does (rounding cannot happen here, the tests
/// are exact, but the answer must not panic).
pub(super) fn leg_polygon(mesh: &QueryMesh, near: u32, a: Point2, b: Point2) -> u32 {
    let fans = mesh.vertex_fans();
    let Some(v) = vertex_at(mesh, near, a) else { return near };
    fans.fan(v).iter().find(|&&(q, k)| holds_direction(mesh, q, k as usize, a, b)).map_or(near, |&(q, _)| q)
}
