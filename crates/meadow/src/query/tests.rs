//! Query tests: geometric invariants on many random queries, checked against brute-force
//! oracles written independently of the query code (naive visibility graph + Dijkstra for
//! shortest lengths, Dijkstra over the midpoint graph for A* optimality, linear scans for point
//! location).

use super::chains::DEAD_END;
use super::testmesh::{check_path_in_corridor, combine, corridor_portals as corridor_portal, random_blocked};
use super::testmesh::{segments_intersect, sign, GridSpec};
use super::*;
use crate::asset::{AreaType, NavMesh};
use crate::geom::orient2d;
use std::collections::BTreeSet;

mod links;
mod shortest;

fn query_mesh(data: crate::asset::NavMeshData) -> QueryMesh {
    QueryMesh::new(NavMesh::new(data).expect("test mesh is valid"))
}

/// The brute-force shortest-path oracle: the visibility graph of all wall endpoints, built
/// naively (every pair against every wall), searched with Dijkstra. Valid for single-layer
/// meshes.
struct Oracle<'a> {
    mesh: &'a QueryMesh,
    walls: Vec<(Point2, Point2)>,
    corners: Vec<Point2>,
    corner_edges: Vec<Vec<(usize, f64)>>,
}

impl<'a> Oracle<'a> {
    fn new(mesh: &'a QueryMesh) -> Oracle<'a> {
        let mut walls = Vec::new();
        let mut corner_ids = BTreeSet::new();
        let data = mesh.mesh().data();
        for (h, link) in data.edge_links.iter().enumerate() {
            if *link == crate::asset::EdgeLink::Wall {
                let (a, b) = mesh.edge_endpoints(h);
                walls.push((xz(a), xz(b)));
                let owner = mesh.edge_owner[h];
                let k = h - mesh.poly_first(owner);
                let n = mesh.poly_len(owner);
                corner_ids.insert(data.polygon_vertices[h]);
                corner_ids.insert(data.polygon_vertices[mesh.poly_first(owner) + (k + 1) % n]);
            }
        }
        let corners: Vec<Point2> = corner_ids.iter().map(|&v| xz(mesh.mesh().vertices()[v as usize])).collect();
        let mut oracle = Oracle { mesh, walls, corners, corner_edges: Vec::new() };
        let n = oracle.corners.len();
        let mut edges = vec![Vec::new(); n];
        for i in 0..n {
            for j in i + 1..n {
                if oracle.visible(oracle.corners[i], oracle.corners[j]) {
                    let d = dist2(oracle.corners[i], oracle.corners[j]);
                    edges[i].push((j, d));
                    edges[j].push((i, d));
                }
            }
        }
        oracle.corner_edges = edges;
        oracle
    }

    fn inside(&self, p: Point2) -> bool {
        (0..self.mesh.mesh().polygon_count() as u32).any(|poly| self.mesh.polygon_contains(poly, p))
    }

    /// Whether the segment `p q` stays on the mesh: it crosses no wall properly, and every piece
    /// between the wall corners it touches has its midpoint on the mesh.
    fn visible(&self, p: Point2, q: Point2) -> bool {
        for &(a, b) in &self.walls {
            let (o1, o2) = (sign(orient2d(p, q, a)), sign(orient2d(p, q, b)));
            let (o3, o4) = (sign(orient2d(a, b, p)), sign(orient2d(a, b, q)));
            if o1 * o2 < 0 && o3 * o4 < 0 {
                return false;
            }
        }
        let mut stops = vec![p, q];
        for &c in &self.corners {
            if orient2d(p, q, c) == 0.0 && segments_intersect(p, q, c, c) {
                stops.push(c);
            }
        }
        let axis = if (q[0] - p[0]).abs() >= (q[1] - p[1]).abs() { 0 } else { 1 };
        let dir = q[axis] >= p[axis];
        stops.sort_by(|a, b| if dir { a[axis].total_cmp(&b[axis]) } else { b[axis].total_cmp(&a[axis]) });
        // A rounded midpoint can fall just off the mesh when the piece runs along a slanted wall;
        // a piece with both ends (exact points) in one convex polygon is inside for sure.
        stops.windows(2).all(|w| {
            w[0] == w[1]
                || self.inside([(w[0][0] + w[1][0]) * 0.5, (w[0][1] + w[1][1]) * 0.5])
                || (0..self.mesh.mesh().polygon_count() as u32)
                    .any(|poly| self.mesh.polygon_contains(poly, w[0]) && self.mesh.polygon_contains(poly, w[1]))
        })
    }

    /// The shortest walkable length from `s` to `g`, or `None` when unreachable.
    fn shortest(&self, s: Point2, g: Point2) -> Option<f64> {
        if self.visible(s, g) {
            return Some(dist2(s, g));
        }
        let n = self.corners.len();
        // Nodes 0..n are corners, n is the start; the goal is reached from visible corners.
        let to_goal: Vec<bool> = self.corners.iter().map(|&c| self.visible(c, g)).collect();
        let mut dist = vec![f64::INFINITY; n];
        let mut done = vec![false; n];
        for (i, &c) in self.corners.iter().enumerate() {
            if self.visible(s, c) {
                dist[i] = dist2(s, c);
            }
        }
        let mut best = f64::INFINITY;
        while let Some(u) =
            (0..n).filter(|&i| !done[i] && dist[i].is_finite()).min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
        {
            if dist[u] >= best {
                break;
            }
            done[u] = true;
            if to_goal[u] {
                best = best.min(dist[u] + dist2(self.corners[u], g));
            }
            for &(v, d) in &self.corner_edges[u] {
                if dist[u] + d < dist[v] {
                    dist[v] = dist[u] + d;
                }
            }
        }
        best.is_finite().then_some(best)
    }
}

/// Panics unless the path lies in its corridor ([`check_path_in_corridor`]).
fn assert_path_in_corridor(mesh: &QueryMesh, path: &Path) {
    if let Err(e) = check_path_in_corridor(mesh, path) {
        panic!("{e}");
    }
}

struct Styled {
    midpoints: Path,
    meadow: Path,
    /// String pulled on the A* corridor, without shortcuts.
    pulled: Path,
    /// The default: string pulled with corridor shortcuts.
    funnel: Path,
}

fn all_styles(q: &mut PathQuery, mesh: &QueryMesh, s: [f64; 3], g: [f64; 3]) -> Result<Styled, PathError> {
    let filter = QueryFilter::new();
    let mut run = |style, shortcuts| {
        let mut p = Path::default();
        q.find_path_into(mesh, s, g, &filter, PathOptions { style, allow_partial: false, shortcuts }, &mut p).map(|_| p)
    };
    Ok(Styled {
        midpoints: run(PathStyle::Midpoints, true)?,
        meadow: run(PathStyle::MeadowRefined, true)?,
        pulled: run(PathStyle::StringPulled, false)?,
        funnel: run(PathStyle::StringPulled, true)?,
    })
}

/// Mean relative excess over the true shortest length of the default paths (with shortcuts)
/// and of the plain string-pulled A* corridor, and the number of paths found.
struct Excess {
    funnel: f64,
    pulled: f64,
    found: usize,
}

/// Runs `pairs` random queries on a mesh and checks every invariant.
fn check_random_paths(mesh: &QueryMesh, pairs: usize, seed: u64, exact_midpoints: bool, max_excess: f64) -> Excess {
    let oracle = Oracle::new(mesh);
    let mut rng = SplitMix64::new(seed);
    let mut q = PathQuery::new(mesh);
    let (mut excess_sum, mut pulled_sum, mut found) = (0.0, 0.0, 0);
    for _ in 0..pairs {
        let s = mesh.random_point(&mut rng).unwrap();
        let g = mesh.random_point(&mut rng).unwrap();
        let truth = oracle.shortest(xz(s.point), xz(g.point));
        let styled = match all_styles(&mut q, mesh, s.point, g.point) {
            Ok(p) => p,
            Err(e) => {
                assert_eq!(e, PathError::Unreachable);
                assert_eq!(truth, None, "A* found no path but the oracle did");
                continue;
            }
        };
        let truth = truth.expect("A* found a path but the oracle did not");
        found += 1;
        for p in [&styled.midpoints, &styled.meadow, &styled.pulled, &styled.funnel] {
            assert_eq!(p.points.first(), Some(&s.point));
            assert_eq!(p.points.last(), Some(&g.point));
            assert!((p.length - polyline_length(&p.points)).abs() <= 1e-12 * (1.0 + p.length));
        }
        for p in [&styled.meadow, &styled.pulled] {
            assert_eq!(p.corridor, styled.midpoints.corridor, "styles share the A* corridor");
        }
        assert_path_in_corridor(mesh, &styled.funnel);
        assert_path_in_corridor(mesh, &styled.pulled);
        if exact_midpoints {
            assert_path_in_corridor(mesh, &styled.meadow);
            assert_path_in_corridor(mesh, &styled.midpoints);
        }
        let tol = 1e-9 * (1.0 + styled.midpoints.length);
        let straight = dist3(s.point, g.point);
        assert!(styled.funnel.length <= styled.pulled.length + tol, "shortcuts lengthened the path");
        assert!(
            styled.pulled.length <= styled.meadow.length + tol,
            "funnel {} > meadow {}",
            styled.pulled.length,
            styled.meadow.length
        );
        assert!(styled.meadow.length <= styled.midpoints.length + tol);
        assert!(styled.funnel.length >= straight - tol);
        assert!(
            styled.funnel.length >= truth - tol,
            "funnel {} shorter than the true shortest {truth}",
            styled.funnel.length
        );
        let excess = (styled.funnel.length - truth) / truth.max(1e-12);
        assert!(excess <= max_excess, "funnel {} exceeds shortest {truth} by {excess}", styled.funnel.length);
        excess_sum += excess;
        pulled_sum += (styled.pulled.length - truth) / truth.max(1e-12);
    }
    let n = found.max(1) as f64;
    Excess { funnel: excess_sum / n, pulled: pulled_sum / n, found }
}

#[test]
fn open_grid_of_squares_paths_are_shortest() {
    let mesh = query_mesh(GridSpec { cols: 9, rows: 6, ..GridSpec::default() }.build());
    let e = check_random_paths(&mesh, 150, 11, true, 0.01);
    println!(
        "open squares, {} pairs: mean excess over shortest {:.4}% (without shortcuts {:.4}%)",
        e.found,
        e.funnel * 100.0,
        e.pulled * 100.0
    );
    assert_eq!(e.found, 150);
}

#[test]
fn open_jittered_triangles_paths_are_shortest() {
    let spec = GridSpec { cols: 8, rows: 8, triangulate: true, jitter: 0.2, seed: 5, ..GridSpec::default() };
    let mesh = query_mesh(spec.build());
    let e = check_random_paths(&mesh, 150, 12, false, 0.01);
    println!(
        "open jittered triangles, {} pairs: mean excess over shortest {:.4}% (without shortcuts {:.4}%)",
        e.found,
        e.funnel * 100.0,
        e.pulled * 100.0
    );
    assert_eq!(e.found, 150);
}

#[test]
fn grid_with_obstacles_paths_are_valid_and_near_shortest() {
    for (triangulate, seed) in [(false, 21u64), (true, 22)] {
        let spec = GridSpec {
            cols: 12,
            rows: 10,
            triangulate,
            blocked: random_blocked(12, 10, 0.2, seed),
            ..GridSpec::default()
        };
        let mesh = query_mesh(spec.build());
        // The midpoint graph's corridor need not hold the true shortest path, so the funnel path
        // may be longer than the optimum; the bound is loose, the mean is reported.
        let e = check_random_paths(&mesh, 200, seed, true, 0.5);
        println!(
            "obstacles (triangulated {triangulate}), {} pairs: mean excess over shortest {:.4}% (without shortcuts {:.4}%)",
            e.found,
            e.funnel * 100.0,
            e.pulled * 100.0
        );
        assert!(e.found > 50);
        assert!(e.funnel < 0.05, "mean excess {}", e.funnel);
    }
}

#[test]
fn paths_use_all_of_an_edge_split_into_several_portals() {
    // Merged rectangles share sides split by collinear vertices into several portals between
    // the same two polygons; the string may cross anywhere along the whole side, not only on
    // the piece the search crossed.
    let mut widened = 0;
    for seed in 0..3u64 {
        let mesh = query_mesh(merged_rectangles(10, 8, seed * 5 + 1, 0.0, [0.0, 0.0]));
        let e = check_random_paths(&mesh, 120, seed + 40, true, 0.5);
        assert!(e.found > 60 && e.funnel < 0.05, "{} found, mean excess {}", e.found, e.funnel);
        widened += (0..mesh.half_edge_count()).filter(|&h| mesh.portal_run(h) != (h, h)).count();
    }
    assert!(widened > 100, "only {widened} half-edges on split sides");
}

/// Dijkstra over the undirected midpoint graph (portals as nodes), written independently of
/// the A* code: the A* midpoint path's cost must equal its optimum.
fn midpoint_graph_optimum(mesh: &QueryMesh, filter: &QueryFilter, s: Location, g: Location) -> Option<f64> {
    let nav = mesh.mesh();
    let cost = |poly: u32| filter.area_cost(nav, nav.data().polygons[poly as usize].area);
    // Node list: start, goal, then one node per undirected portal (lower half-edge index).
    let mut pos: Vec<[f64; 3]> = vec![s.point, g.point];
    let mut polys_of: Vec<Vec<u32>> = vec![vec![s.polygon], vec![g.polygon]];
    for h in 0..mesh.half_edge_count() {
        let twin = mesh.half_edges[h].twin;
        if twin != NONE && (h as u32) < twin {
            pos.push(mesh.half_edges[h].mid);
            polys_of.push(vec![mesh.edge_owner[h], mesh.edge_owner[twin as usize]]);
        }
    }
    let n = pos.len();
    let mut dist = vec![f64::INFINITY; n];
    let mut done = vec![false; n];
    dist[0] = 0.0;
    while let Some(u) = (0..n).filter(|&i| !done[i] && dist[i].is_finite()).min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
    {
        done[u] = true;
        if u == 1 {
            return Some(dist[1]);
        }
        for v in 0..n {
            if done[v] {
                continue;
            }
            for &p in &polys_of[u] {
                // Both nodes on polygon p's boundary: a straight move inside p.
                if !polys_of[v].contains(&p) {
                    continue;
                }
                // Portal nodes may only be used when both their polygons are allowed.
                if v >= 2 && polys_of[v].iter().any(|&r| cost(r).is_none()) {
                    continue;
                }
                if let Some(c) = cost(p) {
                    let d = dist[u] + dist3(pos[u], pos[v]) * c;
                    if d < dist[v] {
                        dist[v] = d;
                    }
                }
            }
        }
    }
    None
}

/// Per-cell areas of a `cols` × `rows` grid: area 1 in the columns `band`, area 0 elsewhere.
fn area_band(cols: usize, rows: usize, band: std::ops::Range<usize>) -> Vec<u16> {
    (0..cols * rows).map(|cell| u16::from(band.contains(&(cell % cols)))).collect()
}

/// Finds `pairs` random midpoint paths on `mesh` under three filters (everything; area 2
/// excluded; that and area 1 at half cost) and checks each path's cost against
/// [`midpoint_graph_optimum`]; returns how many found paths were compared.
fn check_midpoint_optimality(mesh: &QueryMesh, pairs: usize, seed: u64) -> usize {
    let filters = [QueryFilter::new(), QueryFilter::new().exclude(2), QueryFilter::new().exclude(2).with_cost(1, 0.5)];
    let mut rng = SplitMix64::new(seed);
    let mut q = PathQuery::new(mesh);
    let mut compared = 0;
    for _ in 0..pairs {
        let s = mesh.random_point(&mut rng).unwrap();
        let g = mesh.random_point(&mut rng).unwrap();
        for filter in &filters {
            let options = PathOptions { style: PathStyle::Midpoints, ..PathOptions::default() };
            let mut path = Path::default();
            let result = q.find_path_into(mesh, s.point, g.point, filter, options, &mut path);
            let start_area = mesh.mesh().data().polygons[s.polygon as usize].area;
            if filter.area_cost(mesh.mesh(), start_area).is_none() {
                assert_eq!(result, Err(PathError::StartExcluded));
                continue;
            }
            let optimum = if s.polygon == g.polygon {
                filter.area_cost(mesh.mesh(), start_area).map(|c| dist3(s.point, g.point) * c)
            } else {
                midpoint_graph_optimum(mesh, filter, s, g)
            };
            match (result, optimum) {
                (Ok(()), Some(best)) => {
                    // Segment i of a midpoint path runs inside corridor polygon i.
                    assert_eq!(path.points.len(), path.corridor.len() + 1);
                    let mut cost = 0.0;
                    for (i, w) in path.points.windows(2).enumerate() {
                        let poly = path.corridor[i];
                        let c = filter.area_cost(mesh.mesh(), mesh.mesh().data().polygons[poly as usize].area);
                        cost += dist3(w[0], w[1]) * c.expect("corridor avoids excluded areas");
                    }
                    assert!((cost - best).abs() <= 1e-9 * (1.0 + best), "A* cost {cost} vs optimum {best}");
                    compared += 1;
                }
                (Err(PathError::Unreachable), None) => {}
                (r, o) => panic!("A* {r:?} disagrees with Dijkstra {o:?}"),
            }
        }
    }
    compared
}

#[test]
fn astar_is_optimal_on_the_midpoint_graph_with_area_costs() {
    // Area 1 (cost 4) in a band of columns 3..6, area 2 excluded in a few cells.
    let (cols, rows) = (10, 8);
    let mut cell_area = area_band(cols, rows, 3..6);
    for &cell in &[2 * cols + 7, 3 * cols + 7, 4 * cols + 1] {
        cell_area[cell] = 2;
    }
    let areas = vec![
        AreaType { name: "default".into(), cost: 1.0 },
        AreaType { name: "mud".into(), cost: 4.0 },
        AreaType { name: "lava".into(), cost: 1.0 },
    ];
    let spec = GridSpec {
        cols,
        rows,
        triangulate: true,
        blocked: random_blocked(cols, rows, 0.1, 3),
        cell_area,
        areas,
        ..GridSpec::default()
    };
    let mesh = query_mesh(spec.build());
    let compared = check_midpoint_optimality(&mesh, 40, 77);
    assert!(compared > 60, "only {compared} paths compared");
}

#[test]
fn chain_jumps_keep_the_midpoint_optimum() {
    // Heavily blocked triangle grids are mostly runs of two-portal triangles and dead ends;
    // random areas break the runs and exclude some of them. A ring of eight squares around a
    // pillar has no end to jump to.
    let areas = vec![
        AreaType { name: "default".into(), cost: 1.0 },
        AreaType { name: "mud".into(), cost: 3.0 },
        AreaType { name: "lava".into(), cost: 1.0 },
    ];
    let ring = GridSpec { cols: 3, rows: 3, blocked: (0..9).map(|c| c == 4).collect(), ..GridSpec::default() };
    let ring = query_mesh(ring.build());
    assert!((0..8).all(|p| ring.link_state().chains.exits_around(p) == [NONE; 2]), "a ring is no chain");
    assert!(check_midpoint_optimality(&ring, 30, 5) > 60);
    let (mut jumps, mut dead_ends, mut in_chain, mut compared) = (0, 0, 0, 0);
    for seed in 0..6u64 {
        let (cols, rows) = (9, 7);
        let mut rng = SplitMix64::new(seed + 40);
        let cell_area = (0..cols * rows).map(|_| [0, 0, 0, 1, 2][(rng.next_u64() % 5) as usize]).collect();
        let spec = GridSpec {
            cols,
            rows,
            triangulate: true,
            blocked: random_blocked(cols, rows, 0.3 + 0.03 * seed as f64, seed),
            cell_area,
            areas: areas.clone(),
            ..GridSpec::default()
        };
        let mesh = query_mesh(spec.build());
        for h in 0..mesh.half_edge_count() {
            match mesh.link_state().chains.jump(h).exit {
                DEAD_END => dead_ends += 1,
                NONE => {}
                _ => jumps += 1,
            }
        }
        let polys = mesh.mesh().polygon_count() as u32;
        in_chain += (0..polys).filter(|&p| mesh.link_state().chains.exits_around(p)[0] != NONE).count();
        compared += check_midpoint_optimality(&mesh, 40, seed);
    }
    assert!(jumps > 300 && dead_ends > 20 && in_chain > 100, "{jumps} jumps, {dead_ends} dead ends, {in_chain}");
    assert!(compared > 300, "only {compared} paths compared");
}

#[test]
fn same_polygon_gives_the_straight_segment() {
    let mesh = query_mesh(GridSpec { cols: 2, rows: 2, ..GridSpec::default() }.build());
    let mut q = PathQuery::new(&mesh);
    let p = q.find_path(&mesh, [0.1, 0.0, 0.2], [0.9, 0.0, 0.7], &QueryFilter::new()).unwrap();
    assert_eq!(p.points, vec![[0.1, 0.0, 0.2], [0.9, 0.0, 0.7]]);
    assert_eq!(p.corridor, vec![0]);
    assert_eq!(p.length, dist3([0.1, 0.0, 0.2], [0.9, 0.0, 0.7]));
}

#[test]
fn bad_inputs_give_typed_errors() {
    let areas = vec![AreaType { name: "default".into(), cost: 1.0 }, AreaType { name: "water".into(), cost: 1.0 }];
    let mesh =
        query_mesh(GridSpec { cols: 3, rows: 1, cell_area: vec![1, 0, 0], areas, ..GridSpec::default() }.build());
    let mut q = PathQuery::new(&mesh);
    let f = QueryFilter::new();
    let on = [2.5, 0.0, 0.5];
    assert_eq!(q.find_path(&mesh, [f64::NAN, 0.0, 0.5], on, &f), Err(PathError::NonFiniteInput));
    assert_eq!(q.find_path(&mesh, on, [0.5, f64::INFINITY, 0.5], &f), Err(PathError::NonFiniteInput));
    assert_eq!(q.find_path(&mesh, [5.0, 0.0, 0.5], on, &f), Err(PathError::StartOffMesh));
    assert_eq!(q.find_path(&mesh, on, [1.5, 10.0, 0.5], &f), Err(PathError::GoalOffMesh));
    assert_eq!(q.find_path(&mesh, [0.5, 0.0, 0.5], on, &QueryFilter::new().exclude(1)), Err(PathError::StartExcluded));
    assert_eq!(q.find_path(&mesh, on, [0.5, 0.0, 0.5], &QueryFilter::new().exclude(1)), Err(PathError::Unreachable));
    assert_eq!(q.find_path(&mesh, on, [0.5, 0.0, 0.5], &QueryFilter::include_only(&[0])), Err(PathError::Unreachable));
    let bad = QueryFilter::new().with_cost(0, f32::NAN);
    assert!(matches!(q.find_path(&mesh, on, on, &bad), Err(PathError::InvalidFilter { area: 0, .. })));
    assert_eq!(mesh.locate([0.5, f64::NAN, 0.5]), Err(QueryError::NonFiniteInput));
    assert_eq!(mesh.raycast(on, [f64::NAN; 3], &mut Vec::new()), Err(QueryError::NonFiniteInput));
    // The coordinate contract: far points are refused by type, never answered with infinities
    // (regression: 1e300 with a huge snap box snapped to an arbitrary room).
    let far = [1e300, 0.0, 0.5];
    assert_eq!(q.find_path(&mesh, far, on, &f), Err(PathError::OutOfRange));
    assert_eq!(q.find_path(&mesh, on, [0.5, -1e38, 0.5], &f), Err(PathError::OutOfRange));
    assert_eq!(mesh.locate(far), Err(QueryError::OutOfRange));
    assert_eq!(mesh.nearest_point(far, [1e301; 3]), Err(QueryError::OutOfRange));
    assert_eq!(mesh.raycast(on, [0.5, 0.0, 1e39], &mut Vec::new()), Err(QueryError::OutOfRange));
    assert_eq!(mesh.raycast(far, on, &mut Vec::new()), Err(QueryError::OutOfRange));
    let mut sq = ShortestPathQuery::new(&mesh);
    assert_eq!(sq.find_shortest_path(&mesh, on, far, &f), Err(PathError::OutOfRange));
    let edge = crate::limits::MAX_COORDINATE;
    assert_eq!(mesh.locate([edge, 0.0, 0.0]), Err(QueryError::OffMesh), "inside the contract: only off the mesh");

    // A mesh without polygons answers everything with errors, never a panic.
    let empty = crate::asset::NavMeshData {
        polygons: vec![],
        polygon_vertices: vec![],
        edge_links: vec![],
        ..GridSpec::default().build()
    };
    let empty = query_mesh(empty);
    let mut q = PathQuery::new(&empty);
    assert_eq!(q.find_path(&empty, on, on, &f), Err(PathError::StartOffMesh));
    assert_eq!(empty.nearest_point(on, [10.0; 3]), Err(QueryError::OffMesh));
    assert_eq!(empty.random_point(&mut SplitMix64::new(1)), None);
    assert_eq!(empty.raycast(on, on, &mut Vec::new()), Err(QueryError::OffMesh));
}

#[test]
fn partial_path_ends_at_the_reachable_point_nearest_the_goal() {
    // A blocked column at x in [4, 5) splits the grid; the goal is on the far side.
    let (cols, rows) = (9, 5);
    let blocked: Vec<bool> = (0..cols * rows).map(|i| i % cols == 4).collect();
    let mesh = query_mesh(GridSpec { cols, rows, blocked, triangulate: true, ..GridSpec::default() }.build());
    let mut q = PathQuery::new(&mesh);
    let options = PathOptions { allow_partial: true, ..PathOptions::default() };
    let mut rng = SplitMix64::new(9);
    for _ in 0..20 {
        let s = [rng.next_f64() * 4.0, 0.0, rng.next_f64() * 5.0];
        let g = [5.0 + rng.next_f64() * 4.0, 0.0, rng.next_f64() * 5.0];
        assert_eq!(q.find_path(&mesh, s, g, &QueryFilter::new()), Err(PathError::Unreachable));
        let mut path = Path::default();
        q.find_path_into(&mesh, s, g, &QueryFilter::new(), options, &mut path).unwrap();
        assert!(path.partial);
        // Brute force: the nearest point of the left component is (4, z_goal).
        let end = *path.points.last().unwrap();
        assert!((end[0] - 4.0).abs() < 1e-12 && (end[2] - g[2]).abs() < 1e-12, "partial end {end:?} for goal {g:?}");
        assert_path_in_corridor(&mesh, &path);
    }
}

/// The locate rule, brute force over every polygon.
fn locate_brute(mesh: &QueryMesh, p: [f64; 3]) -> Option<u32> {
    let s = mesh.mesh().settings();
    let mut cands: Vec<(f64, u32)> = (0..mesh.mesh().polygon_count() as u32)
        .filter(|&poly| mesh.polygon_contains(poly, xz(p)))
        .map(|poly| (mesh.surface_height(poly, xz(p)), poly))
        .collect();
    cands.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let below = cands
        .iter()
        .filter(|(h, _)| *h <= p[1] && p[1] - h <= s.height)
        .max_by(|a, b| a.0.total_cmp(&b.0).then(b.1.cmp(&a.1)));
    let above = cands.iter().find(|(h, _)| *h > p[1] && h - p[1] <= s.max_climb);
    below.or(above).map(|c| c.1)
}

#[test]
fn locate_is_layer_aware_and_matches_a_linear_scan() {
    // A sloped lower floor and a flat upper floor at y = 3 overlapping it in XZ.
    let lower =
        GridSpec { cols: 8, rows: 6, triangulate: true, jitter: 0.2, slope: [0.05, -0.03], ..GridSpec::default() }
            .build();
    let upper =
        GridSpec { cols: 4, rows: 3, cell: 1.5, origin: [2.0, 3.0, 1.0], layer: 1, ..GridSpec::default() }.build();
    let mesh = query_mesh(combine(lower, upper));
    assert!(mesh.locate_index().dimensions().0 >= 2);
    let mut rng = SplitMix64::new(4);
    let mut hits = [0usize; 2];
    for _ in 0..3000 {
        let p = [rng.next_f64() * 10.0 - 1.0, rng.next_f64() * 7.0 - 2.0, rng.next_f64() * 8.0 - 1.0];
        let got = mesh.locate(p).ok().map(|l| l.polygon);
        assert_eq!(got, locate_brute(&mesh, p), "locate {p:?}");
        if let Some(poly) = got {
            let layer = mesh.mesh().data().polygons[poly as usize].layer;
            hits[layer as usize] += 1;
        }
    }
    assert!(hits[0] > 100 && hits[1] > 100, "{hits:?}");
    // Heights on the sloped planar floor are exact up to rounding.
    for _ in 0..200 {
        let l = mesh.random_point(&mut rng).unwrap();
        let layer = mesh.mesh().data().polygons[l.polygon as usize].layer;
        let plane = if layer == 0 { 0.05 * l.point[0] - 0.03 * l.point[2] } else { 3.0 };
        let located = mesh.locate([l.point[0], l.point[1] + 0.01, l.point[2]]).unwrap();
        assert!((located.point[1] - plane).abs() < 1e-9);
    }
    // Directly under the upper floor: y chooses the layer.
    let at = |y| mesh.locate([3.0, y, 2.0]).map(|l| mesh.mesh().data().polygons[l.polygon as usize].layer);
    assert_eq!(at(0.5), Ok(0));
    assert_eq!(at(3.2), Ok(1));
    assert_eq!(at(2.5), Ok(1), "just below the upper floor, within climb");
    assert_eq!(at(5.5), Err(QueryError::OffMesh));
}

#[test]
fn nearest_point_matches_a_linear_scan() {
    let spec = GridSpec {
        cols: 10,
        rows: 7,
        triangulate: true,
        blocked: random_blocked(10, 7, 0.25, 8),
        ..GridSpec::default()
    };
    let mesh = query_mesh(spec.build());
    let mut rng = SplitMix64::new(6);
    let mut found = 0;
    for _ in 0..2000 {
        let p = [rng.next_f64() * 12.0 - 1.0, rng.next_f64() * 2.0 - 1.0, rng.next_f64() * 9.0 - 1.0];
        let e = [rng.next_f64() * 1.5, 1.0, rng.next_f64() * 1.5];
        let brute = (0..mesh.mesh().polygon_count() as u32)
            .map(|poly| mesh.closest_point_on_polygon(poly, xz(p)))
            .filter(|c| (0..3).all(|k| (c[k] - p[k]).abs() <= e[k]))
            .map(|c| dist3(c, p))
            .min_by(f64::total_cmp);
        match (mesh.nearest_point(p, e), brute) {
            (Ok(l), Some(d)) => {
                assert_eq!(dist3(l.point, p), d);
                assert!(mesh.polygon_contains(l.polygon, xz(l.point)) || d > 0.0);
                found += 1;
            }
            (Err(QueryError::OffMesh), None) => {}
            (got, want) => panic!("nearest_point {got:?} vs brute force {want:?}"),
        }
    }
    assert!(found > 500);
}

#[test]
fn raycast_agrees_with_the_visibility_oracle() {
    let spec = GridSpec {
        cols: 10,
        rows: 8,
        triangulate: true,
        blocked: random_blocked(10, 8, 0.2, 31),
        ..GridSpec::default()
    };
    let mesh = query_mesh(spec.build());
    let oracle = Oracle::new(&mesh);
    let mut rng = SplitMix64::new(32);
    let mut visited = Vec::new();
    let (mut hits, mut clear) = (0, 0);
    for _ in 0..400 {
        let s = mesh.random_point(&mut rng).unwrap();
        let e = [rng.next_f64() * 12.0 - 1.0, 0.0, rng.next_f64() * 10.0 - 1.0];
        let r = mesh.raycast(s.point, e, &mut visited).unwrap();
        assert_eq!(visited.first(), Some(&s.polygon));
        for w in visited.windows(2) {
            assert!(!corridor_portal(&mesh, w[0], w[1]).is_empty(), "walk jumps {w:?}");
        }
        assert_eq!(r.last_polygon, *visited.last().unwrap());
        let visible = oracle.visible(xz(s.point), xz(e));
        match r.hit {
            None => {
                assert!(visible, "ray {s:?} -> {e:?} passed a wall");
                assert!(mesh.polygon_contains(r.last_polygon, xz(e)));
                clear += 1;
            }
            Some(hit) => {
                assert!(!visible, "ray {s:?} -> {e:?} hit a wall it does not reach");
                let (a, b) = (
                    mesh.poly_vertex(hit.polygon, hit.edge as usize),
                    mesh.poly_vertex(hit.polygon, hit.edge as usize + 1),
                );
                assert_eq!(mesh.edge_neighbour(mesh.poly_first(hit.polygon) + hit.edge as usize), None);
                assert!(crate::geom::point_segment_distance(xz(hit.point), xz(a), xz(b)) < 1e-9);
                assert!((0.0..=1.0).contains(&hit.t));
                // The normal faces the ray's origin.
                let d = [e[0] - s.point[0], e[2] - s.point[2]];
                assert!(d[0] * hit.normal[0] + d[1] * hit.normal[2] <= 0.0);
                assert!((hit.normal[0].hypot(hit.normal[2]) - 1.0).abs() < 1e-12);
                hits += 1;
            }
        }
    }
    assert!(hits > 50 && clear > 50, "hits {hits}, clear {clear}");
}

#[test]
fn rays_leave_through_the_right_one_of_collinear_edges() {
    // A wide top polygon whose bottom side is split into four collinear edges: three portals
    // to cells below and a wall. Every edge on that line gives the same (or a rounding-close)
    // segment parameter, so the exit edge must be told apart by where the ray's line crosses.
    let v = |x: f64, z: f64| [x, 0.0, z];
    let vertices = vec![
        v(0.0, 0.0),
        v(1.0, 0.0),
        v(2.0, 0.0),
        v(3.0, 0.0),
        v(4.0, 0.0), // 0..=4 on z = 0
        v(4.0, 1.0),
        v(0.0, 1.0), // 5, 6: the top polygon's far side
        v(0.0, -1.0),
        v(1.0, -1.0),
        v(2.0, -1.0),
        v(4.0, -1.0), // 7..=10 below
    ];
    let rings = vec![
        (vec![0, 1, 2, 3, 4, 5, 6], 0u16), // top: its bottom side 0-1, 1-2, 2-3 (wall), 3-4
        (vec![7, 8, 1, 0], 0),
        (vec![8, 9, 2, 1], 0),
        (vec![3, 10, 4], 0),
    ];
    let areas = vec![AreaType { name: "default".into(), cost: 1.0 }];
    let data = super::testmesh::assemble(crate::BakeSettings::DEFAULT, vertices, &rings, areas, 0);
    let mesh = query_mesh(data);
    let mut visited = Vec::new();
    for (x, below) in [(0.5, Some(1u32)), (1.5, Some(2)), (3.7, Some(3)), (2.5, None)] {
        let r = mesh.raycast([x, 0.0, 0.5], [x, 0.0, -0.2], &mut visited).unwrap();
        match below {
            Some(cell) => {
                assert_eq!(r.hit, None, "ray at x = {x}");
                assert_eq!(visited, vec![0, cell], "ray at x = {x}");
            }
            None => {
                let hit = r.hit.expect("the ray at x = 2.5 meets the wall between x = 2 and 3");
                assert_eq!((hit.polygon, visited.len()), (0, 1));
                assert!((hit.point[0] - 2.5).abs() < 1e-12 && hit.point[2].abs() < 1e-12);
            }
        }
    }
}

#[test]
fn walking_by_vertex_sides_matches_the_edge_by_edge_walk() {
    // The fast exit-edge choice (vertex sides, two reused per step) against the plain one on
    // meshes of jittered triangles, plain quads (many segments run through vertices and along
    // edges) and blocked cells, from random points and from mesh vertices.
    let specs = [
        GridSpec { cols: 12, rows: 9, triangulate: true, jitter: 0.2, seed: 4, ..GridSpec::default() },
        GridSpec { cols: 12, rows: 9, blocked: random_blocked(12, 9, 0.25, 5), ..GridSpec::default() },
        GridSpec {
            cols: 12,
            rows: 9,
            triangulate: true,
            blocked: random_blocked(12, 9, 0.2, 6),
            ..GridSpec::default()
        },
    ];
    let mut rng = SplitMix64::new(77);
    let (mut steps, mut hits) = (0, 0);
    for spec in specs {
        let mesh = query_mesh(spec.build());
        let vertices = mesh.mesh().vertices().to_vec();
        for i in 0..3000 {
            let start = mesh.random_point(&mut rng).unwrap();
            let (poly, ps) = if i % 3 == 0 {
                // From a vertex of the start polygon, as the shortcut pass casts from corners.
                let k = (rng.next_f64() * mesh.poly_len(start.polygon) as f64) as usize;
                (start.polygon, xz(mesh.poly_vertex(start.polygon, k)))
            } else {
                (start.polygon, xz(start.point))
            };
            let pe = if i % 5 == 0 {
                xz(vertices[(rng.next_f64() * vertices.len() as f64) as usize])
            } else {
                [rng.next_f64() * 14.0 - 1.0, rng.next_f64() * 11.0 - 1.0]
            };
            let run = |fast: bool| {
                let mut crossed = Vec::new();
                let end = match mesh.walk_segment_with(poly, ps, pe, |h| crossed.push(h), fast) {
                    raycast::WalkEnd::Clear(p) => (0, p, 0, 0.0),
                    raycast::WalkEnd::Hit(p, k, t) => (1, p, k, t),
                    raycast::WalkEnd::Limit => (2, 0, 0, 0.0),
                };
                (end, crossed)
            };
            let (fast, plain) = (run(true), run(false));
            assert_eq!(fast.0 .0, plain.0 .0, "{ps:?} -> {pe:?}");
            assert_eq!(fast.1, plain.1, "{ps:?} -> {pe:?}: different portals");
            assert_eq!(fast.0 .1, plain.0 .1);
            assert_eq!(fast.0 .2, plain.0 .2);
            assert!((fast.0 .3 - plain.0 .3).abs() <= 1e-12, "{ps:?} -> {pe:?}: t {} vs {}", fast.0 .3, plain.0 .3);
            steps += fast.1.len();
            hits += fast.0 .0;
        }
    }
    assert!(steps > 20_000 && hits > 1000, "steps {steps}, hits {hits}");
}

/// Grid cells merged into random rectangles of up to 4 × 3 cells (so polygons have collinear
/// vertices along every side), sheared by an exact factor and moved away from the origin.
fn merged_rectangles(cols: usize, rows: usize, seed: u64, shear: f64, origin: [f64; 2]) -> crate::asset::NavMeshData {
    let mut rng = SplitMix64::new(seed);
    let blocked = random_blocked(cols, rows, 0.15, seed + 1000);
    let mut taken = vec![false; cols * rows];
    let mut rects: Vec<(usize, usize, usize, usize)> = Vec::new();
    for r in 0..rows {
        for c in 0..cols {
            if taken[r * cols + c] || blocked[r * cols + c] {
                continue;
            }
            let (mut w, mut h) = (1 + (rng.next_f64() * 4.0) as usize, 1 + (rng.next_f64() * 3.0) as usize);
            // At most 12 vertices per polygon: 2 (w + h) <= 12.
            if w + h > 6 {
                w = 6 - h;
            }
            let free = |w: usize, h: usize, taken: &[bool]| {
                c + w <= cols
                    && r + h <= rows
                    && (0..h).all(|dr| {
                        (0..w).all(|dc| !taken[(r + dr) * cols + c + dc] && !blocked[(r + dr) * cols + c + dc])
                    })
            };
            while !free(w, h, &taken) {
                if w > 1 {
                    w -= 1
                } else {
                    h -= 1
                }
            }
            for dr in 0..h {
                for dc in 0..w {
                    taken[(r + dr) * cols + c + dc] = true;
                }
            }
            rects.push((c, r, w, h));
        }
    }
    let vid = |c: usize, r: usize| (r * (cols + 1) + c) as u32;
    let mut vertices = Vec::new();
    for r in 0..=rows {
        for c in 0..=cols {
            vertices.push([origin[0] + c as f64 + shear * r as f64, 0.0, origin[1] + r as f64]);
        }
    }
    let rings: Vec<(Vec<u32>, u16)> = rects
        .iter()
        .map(|&(c, r, w, h)| {
            let mut ring: Vec<u32> = (0..w).map(|i| vid(c + i, r)).collect();
            ring.extend((0..h).map(|j| vid(c + w, r + j)));
            ring.extend((0..w).map(|i| vid(c + w - i, r + h)));
            ring.extend((0..h).map(|j| vid(c, r + h - j)));
            (ring, 0u16)
        })
        .collect();
    let areas = vec![AreaType { name: "default".into(), cost: 1.0 }];
    super::testmesh::assemble(crate::BakeSettings::DEFAULT, vertices, &rings, areas, 0)
}

#[test]
fn walking_by_vertex_sides_matches_on_polygons_with_collinear_vertices() {
    // Segments from interior points and from vertices, along grid directions (through many
    // vertices and along edges) and to vertices, on sheared and far-off meshes.
    let mut rng = SplitMix64::new(5);
    let (mut walks, mut steps) = (0, 0);
    for (m, (shear, origin)) in
        [(0.0, [0.0, 0.0]), (1.0, [0.0, 0.0]), (0.5, [12345.5, -6789.25]), (2.0, [1.0e6 + 0.125, 3.0e5])]
            .into_iter()
            .enumerate()
    {
        for seed in 0..2u64 {
            let mesh = query_mesh(merged_rectangles(14, 11, seed * 31 + m as u64, shear, origin));
            let vertices = mesh.mesh().vertices().to_vec();
            for i in 0..2500 {
                let start = mesh.random_point(&mut rng).unwrap();
                let ps = if i % 4 == 0 {
                    let k = (rng.next_f64() * mesh.poly_len(start.polygon) as f64) as usize;
                    xz(mesh.poly_vertex(start.polygon, k))
                } else {
                    xz(start.point)
                };
                let pe = match i % 3 {
                    0 => xz(vertices[(rng.next_f64() * vertices.len() as f64) as usize]),
                    1 => {
                        let (dx, dz) = ((rng.next_f64() * 9.0).floor() - 4.0, (rng.next_f64() * 9.0).floor() - 4.0);
                        let s = (rng.next_f64() * 3.0).floor() + 0.5;
                        [ps[0] + dx * s, ps[1] + dz * s]
                    }
                    _ => xz(mesh.random_point(&mut rng).unwrap().point),
                };
                let run = |fast: bool| {
                    let mut crossed = Vec::new();
                    let end = match mesh.walk_segment_with(start.polygon, ps, pe, |h| crossed.push(h), fast) {
                        raycast::WalkEnd::Clear(p) => (0, p, 0, 0.0),
                        raycast::WalkEnd::Hit(p, k, t) => (1, p, k, t),
                        raycast::WalkEnd::Limit => (2, 0, 0, 0.0),
                    };
                    (end, crossed)
                };
                let (fast, plain) = (run(true), run(false));
                assert_eq!((fast.0 .0, fast.0 .1, fast.0 .2), (plain.0 .0, plain.0 .1, plain.0 .2), "{ps:?} -> {pe:?}");
                assert_eq!(fast.1, plain.1, "{ps:?} -> {pe:?}: different portals");
                assert!((fast.0 .3 - plain.0 .3).abs() <= 1e-12, "{ps:?} -> {pe:?}");
                walks += 1;
                steps += fast.1.len();
            }
        }
    }
    assert!(walks == 20_000 && steps > 30_000, "walks {walks}, steps {steps}");
}

#[test]
fn the_linear_funnel_pulls_the_same_strings_as_the_restarting_one() {
    // Corridors of midpoint paths on jittered triangle fans, blocked grids, sloped grids and
    // merged rectangles (collinear vertices on every side, sheared, far from the origin).
    let mut meshes = Vec::new();
    for seed in 0..4u64 {
        let tri = GridSpec {
            cols: 16,
            rows: 12,
            triangulate: true,
            jitter: if seed % 2 == 0 { 0.22 } else { 0.0 },
            seed,
            slope: [0.1 * seed as f64, -0.05],
            blocked: random_blocked(16, 12, 0.1 * seed as f64, seed),
            ..GridSpec::default()
        };
        meshes.push(query_mesh(tri.build()));
        let origin = [[0.0, 0.0], [1e5, -3e4]][seed as usize % 2];
        meshes.push(query_mesh(merged_rectangles(14, 11, seed * 7 + 3, 0.25 * seed as f64, origin)));
    }
    let (mut funnel, mut portals) = (funnel::Funnel::default(), Vec::new());
    let (mut a, mut b, mut at_a, mut at_b) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut compared, mut corners) = (0, 0);
    for (m, mesh) in meshes.iter().enumerate() {
        let mut q = PathQuery::new(mesh);
        let mut rng = SplitMix64::new(m as u64 + 90);
        let mut path = Path::default();
        let options = PathOptions { style: PathStyle::Midpoints, ..PathOptions::default() };
        for _ in 0..300 {
            let (Some(s), Some(g)) = (mesh.random_point(&mut rng), mesh.random_point(&mut rng)) else { break };
            if q.find_path_into(mesh, s.point, g.point, &QueryFilter::new(), options, &mut path).is_err() {
                continue;
            }
            portals.clear();
            for w in path.corridor.windows(2) {
                let first = mesh.poly_first(w[0]);
                let h = (first..first + mesh.poly_len(w[0])).find(|&h| mesh.edge_neighbour(h) == Some(w[1])).unwrap();
                let (right, left) = mesh.edge_endpoints(h);
                portals.push((left, right));
            }
            let (start, goal) = (path.points[0], path.points[path.points.len() - 1]);
            funnel::string_pull(start, goal, &portals, &mut a, &mut at_a, &mut funnel);
            funnel::string_pull_restarting(start, goal, &portals, &mut b, &mut at_b);
            assert_eq!((&a, &at_a), (&b, &at_b), "mesh {m}: {start:?} -> {goal:?}");
            compared += 1;
            corners += a.len() - 2;
        }
    }
    assert!(compared > 2000 && corners > 3000, "{compared} strings, {corners} corners");
}

#[test]
fn string_pulled_paths_bend_only_at_walls() {
    // A path that bends at a vertex off the walls passes it on the wrong side; the shortcut
    // pass routes the corridor around such vertices (on the midpoint corridor alone, hundreds
    // of these paths bend off the walls).
    let mut bends = (0, 0);
    for seed in 0..6u64 {
        let spec = GridSpec {
            cols: 18,
            rows: 14,
            triangulate: true,
            jitter: 0.22,
            seed,
            blocked: random_blocked(18, 14, 0.15, seed + 3),
            ..GridSpec::default()
        };
        let mesh = query_mesh(spec.build());
        let mut on_wall = BTreeSet::new();
        for h in 0..mesh.half_edge_count() {
            if mesh.edge_neighbour(h).is_none() {
                let (a, b) = mesh.edge_endpoints(h);
                on_wall.insert((a[0].to_bits(), a[2].to_bits()));
                on_wall.insert((b[0].to_bits(), b[2].to_bits()));
            }
        }
        let mut q = PathQuery::new(&mesh);
        let mut rng = SplitMix64::new(seed + 500);
        let (mut path, mut plain) = (Path::default(), Path::default());
        let no_shortcuts = PathOptions { shortcuts: false, ..PathOptions::default() };
        for _ in 0..300 {
            let (Some(s), Some(g)) = (mesh.random_point(&mut rng), mesh.random_point(&mut rng)) else { break };
            if q.find_path_into(&mesh, s.point, g.point, &QueryFilter::new(), PathOptions::default(), &mut path)
                .is_err()
            {
                continue;
            }
            q.find_path_into(&mesh, s.point, g.point, &QueryFilter::new(), no_shortcuts, &mut plain).unwrap();
            let off_walls = |p: &Path| {
                p.points[1..p.points.len() - 1]
                    .iter()
                    .filter(|c| !on_wall.contains(&(c[0].to_bits(), c[2].to_bits())))
                    .count()
            };
            assert_eq!(off_walls(&path), 0, "seed {seed}: {:?} -> {:?} bends off the walls", s.point, g.point);
            assert!(path.length <= plain.length + 1e-9 * (1.0 + plain.length));
            bends.0 += off_walls(&plain);
            bends.1 += path.points.len() - 2;
        }
    }
    assert!(bends.0 > 100 && bends.1 > 1000, "{bends:?}");
}

#[test]
fn paths_from_points_on_portals_do_not_turn_at_the_portal_ends() {
    // A start on the first portal (or a goal on the last) puts the funnel's apex on that
    // portal's line, where its far end used to look like a corner (found in review).
    let p = |x: f64, z: f64| [x, 0.0, z];
    let portals = [(p(1.0, 1.0), p(1.0, 0.0)), (p(2.0, 1.0), p(2.0, 0.0))];
    let (mut out, mut at, mut f) = (Vec::new(), Vec::new(), funnel::Funnel::default());
    funnel::string_pull(p(1.0, 0.5), p(2.5, 0.6), &portals, &mut out, &mut at, &mut f);
    assert_eq!((out, at), (vec![p(1.0, 0.5), p(2.5, 0.6)], vec![0, 3]));
    let (mut out, mut at) = (Vec::new(), Vec::new());
    funnel::string_pull(p(0.5, 0.4), p(2.0, 0.5), &portals, &mut out, &mut at, &mut f);
    assert_eq!((out, at), (vec![p(0.5, 0.4), p(2.0, 0.5)], vec![0, 3]));
    // Paths from the midpoints of interior edges: never longer than Meadow refinement on the
    // same corridor, and near the true shortest length.
    let (mut paths, mut worst) = (0, 0.0f64);
    for seed in 0..4u64 {
        let spec = GridSpec {
            cols: 10,
            rows: 8,
            triangulate: seed % 2 == 0,
            blocked: random_blocked(10, 8, 0.15, seed),
            ..GridSpec::default()
        };
        let mesh = query_mesh(spec.build());
        let oracle = Oracle::new(&mesh);
        let mut q = PathQuery::new(&mesh);
        let mut rng = SplitMix64::new(seed + 99);
        for _ in 0..300 {
            let h = (rng.next_u64() % mesh.half_edge_count() as u64) as usize;
            let Some(g) = mesh.random_point(&mut rng) else { continue };
            if mesh.edge_neighbour(h).is_none() {
                continue;
            }
            let (e0, e1) = mesh.edge_endpoints(h);
            let point = [(e0[0] + e1[0]) * 0.5, (e0[1] + e1[1]) * 0.5, (e0[2] + e1[2]) * 0.5];
            let s = Location { polygon: mesh.edge_owner[h], point };
            let mut run = |style| {
                let mut path = Path::default();
                let options = PathOptions { style, ..PathOptions::default() };
                q.find_path_between(&mesh, s, g, &QueryFilter::new(), options, &mut path).map(|_| path)
            };
            let Ok(pulled) = run(PathStyle::StringPulled) else { continue };
            let meadow = run(PathStyle::MeadowRefined).unwrap();
            assert!(pulled.length <= meadow.length + 1e-9 * (1.0 + meadow.length), "{s:?} -> {g:?}");
            let truth = oracle.shortest(xz(s.point), xz(g.point)).unwrap();
            worst = worst.max(pulled.length / truth - 1.0);
            paths += 1;
        }
    }
    assert!(paths > 500 && worst < 0.25, "{paths} paths, worst excess {worst}");
}

#[test]
fn random_points_are_uniform_by_area() {
    let spec = GridSpec { cols: 6, rows: 5, triangulate: true, jitter: 0.22, seed: 12, ..GridSpec::default() };
    let mesh = query_mesh(spec.build());
    let n = mesh.mesh().polygon_count();
    let total = mesh.mesh().total_area();
    let mut counts = vec![0usize; n];
    let mut rng = SplitMix64::new(2024);
    let draws = 30_000;
    for _ in 0..draws {
        let l = mesh.random_point(&mut rng).unwrap();
        assert!(mesh.polygon_contains(l.polygon, xz(l.point)));
        counts[l.polygon as usize] += 1;
    }
    // Pearson's chi-squared against the area fractions; dof = n - 1 (~60), so 6 standard
    // deviations above the mean is far outside chance.
    let chi2: f64 = (0..n)
        .map(|i| {
            let expected = draws as f64 * mesh.mesh().polygon_area(i) / total;
            (counts[i] as f64 - expected).powi(2) / expected
        })
        .sum();
    let dof = (n - 1) as f64;
    assert!(chi2 < dof + 6.0 * (2.0 * dof).sqrt(), "chi2 {chi2} with {dof} degrees of freedom");
    // Same seed, same points.
    let a = mesh.random_point(&mut SplitMix64::new(5));
    assert_eq!(a, mesh.random_point(&mut SplitMix64::new(5)));
}

#[test]
fn one_query_state_serves_meshes_of_any_size() {
    let small = query_mesh(GridSpec { cols: 2, rows: 1, ..GridSpec::default() }.build());
    let large = query_mesh(GridSpec { cols: 20, rows: 20, triangulate: true, ..GridSpec::default() }.build());
    let mut q = PathQuery::new(&small);
    let f = QueryFilter::new();
    for _ in 0..2 {
        let a = q.find_path(&small, [0.1, 0.0, 0.1], [1.9, 0.0, 0.9], &f).unwrap();
        assert_eq!(a.length, dist3([0.1, 0.0, 0.1], [1.9, 0.0, 0.9]));
        let b = q.find_path(&large, [0.5, 0.0, 0.5], [19.5, 0.0, 19.5], &f).unwrap();
        assert!((b.length - 19.0 * 2f64.sqrt()).abs() < 1e-9);
    }
}

#[test]
fn locate_grid_stays_linear_for_long_diagonal_strips() {
    // 1500 thin parallelograms running corner to corner: each bounding box covers most of the
    // mesh, which a fine grid would repeat in almost every cell.
    let n = 1500;
    let d = 0.01;
    let mut vertices = Vec::new();
    let mut rings = Vec::new();
    for i in 0..n {
        let x = i as f64 * d;
        let base = vertices.len() as u32;
        vertices.extend([[x, 0.0, 0.0], [x + d, 0.0, 0.0], [x + d + 100.0, 0.0, 100.0], [x + 100.0, 0.0, 100.0]]);
        rings.push((vec![base, base + 1, base + 2, base + 3], 0u16));
    }
    let areas = vec![AreaType { name: "default".into(), cost: 1.0 }];
    let data = super::testmesh::assemble(crate::BakeSettings::DEFAULT, vertices, &rings, areas, 0);
    let mesh = query_mesh(data);
    assert!(mesh.locate_index().entry_count() <= 16 * n + 64, "{} entries", mesh.locate_index().entry_count());
    let mut rng = SplitMix64::new(8);
    for _ in 0..300 {
        let p = [rng.next_f64() * 116.0 - 1.0, 0.0, rng.next_f64() * 102.0 - 1.0];
        assert_eq!(mesh.locate(p).ok().map(|l| l.polygon), locate_brute(&mesh, p));
    }
}

#[test]
fn path_points_lie_on_a_sloped_surface() {
    let slope = [0.2, -0.1];
    let spec = GridSpec {
        cols: 10,
        rows: 8,
        triangulate: true,
        slope,
        blocked: random_blocked(10, 8, 0.2, 41),
        ..GridSpec::default()
    };
    let mesh = query_mesh(spec.build());
    let mut q = PathQuery::new(&mesh);
    let mut rng = SplitMix64::new(42);
    let mut checked = 0;
    for _ in 0..50 {
        let s = mesh.random_point(&mut rng).unwrap();
        let g = mesh.random_point(&mut rng).unwrap();
        for style in [PathStyle::Midpoints, PathStyle::MeadowRefined, PathStyle::StringPulled] {
            let mut path = Path::default();
            let options = PathOptions { style, ..PathOptions::default() };
            if q.find_path_into(&mesh, s.point, g.point, &QueryFilter::new(), options, &mut path).is_err() {
                continue;
            }
            for p in &path.points {
                let plane = slope[0] * p[0] + slope[1] * p[2];
                assert!((p[1] - plane).abs() < 1e-9, "point {p:?} off the surface {plane}");
            }
            checked += 1;
        }
    }
    assert!(checked > 60);
}

#[test]
fn paths_stay_on_the_layer_they_start_on() {
    let lower = GridSpec { cols: 8, rows: 6, ..GridSpec::default() }.build();
    let upper =
        GridSpec { cols: 4, rows: 3, cell: 1.5, origin: [2.0, 3.0, 1.0], layer: 1, ..GridSpec::default() }.build();
    let mesh = query_mesh(combine(lower, upper));
    let mut q = PathQuery::new(&mesh);
    let f = QueryFilter::new();
    let layer = |poly: u32| mesh.mesh().data().polygons[poly as usize].layer;
    let top = q.find_path(&mesh, [2.2, 3.1, 1.2], [7.8, 3.0, 5.3], &f).unwrap();
    assert!(top.corridor.iter().all(|&p| layer(p) == 1));
    assert!(top.points.iter().all(|p| p[1] == 3.0));
    let bottom = q.find_path(&mesh, [2.2, 0.1, 1.2], [7.8, 0.0, 5.3], &f).unwrap();
    assert!(bottom.corridor.iter().all(|&p| layer(p) == 0));
    assert!((bottom.length - dist3([2.2, 0.0, 1.2], [7.8, 0.0, 5.3])).abs() < 1e-9);
    assert_eq!(q.find_path(&mesh, [2.2, 0.1, 1.2], [7.8, 3.0, 5.3], &f), Err(PathError::Unreachable));
}

mod fuzz {
    use super::*;
    use proptest::prelude::*;

    fn coordinate() -> impl Strategy<Value = f64> {
        prop_oneof![
            4 => -2.0..12.0f64,
            1 => prop::num::f64::ANY,
            1 => Just(1e300),
            1 => Just(-1e300),
            1 => Just(4.0),
            1 => Just(0.0),
        ]
    }

    fn point() -> impl Strategy<Value = [f64; 3]> {
        (coordinate(), coordinate(), coordinate()).prop_map(|(x, y, z)| [x, y * 0.01, z])
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
        /// Any input gives an answer or a typed error, never a panic or a hang.
        #[test]
        fn queries_never_panic(s in point(), g in point(), e in point(), partial in any::<bool>(), style in 0..3u8) {
            thread_local! {
                static MESH: QueryMesh = query_mesh(GridSpec {
                    cols: 8, rows: 8, triangulate: true, blocked: random_blocked(8, 8, 0.25, 2), ..GridSpec::default()
                }.build());
            }
            MESH.with(|mesh| {
                let style = [PathStyle::Midpoints, PathStyle::MeadowRefined, PathStyle::StringPulled][style as usize];
                let mut q = PathQuery::new(mesh);
                let mut path = Path::default();
                let options = PathOptions { style, allow_partial: partial, ..PathOptions::default() };
                if q.find_path_into(mesh, s, g, &QueryFilter::new(), options, &mut path).is_ok() {
                    prop_assert!(path.length.is_finite());
                    prop_assert!(path.points.len() >= 2 || path.points.len() == 1 && s[0] == g[0] && s[2] == g[2]);
                }
                let _ = mesh.locate(s);
                let _ = mesh.nearest_point(s, e);
                let _ = mesh.raycast(s, g, &mut Vec::new());
                Ok(())
            })?;
        }
    }
}

#[test]
fn meadow_refinement_is_a_local_optimum_over_portal_choices() {
    let spec = GridSpec {
        cols: 12,
        rows: 10,
        triangulate: true,
        blocked: random_blocked(12, 10, 0.2, 51),
        ..GridSpec::default()
    };
    let mesh = query_mesh(spec.build());
    let mut q = PathQuery::new(&mesh);
    let mut rng = SplitMix64::new(52);
    let mut moved_somewhere = 0;
    for _ in 0..60 {
        let s = mesh.random_point(&mut rng).unwrap();
        let g = mesh.random_point(&mut rng).unwrap();
        let mut path = Path::default();
        let options = PathOptions { style: PathStyle::MeadowRefined, ..PathOptions::default() };
        if q.find_path_into(&mesh, s.point, g.point, &QueryFilter::new(), options, &mut path).is_err() {
            continue;
        }
        // One point per portal between the start and the goal, each a portal midpoint or end.
        assert_eq!(path.points.len(), path.corridor.len() + 1);
        for (i, w) in path.corridor.windows(2).enumerate() {
            let portals = corridor_portal(&mesh, w[0], w[1]);
            assert_eq!(portals.len(), 1, "grid meshes share one edge per neighbour pair");
            let (a, b) = portals[0];
            let options = [a, b, [(a[0] + b[0]) * 0.5, (a[1] + b[1]) * 0.5]];
            let p = xz(path.points[i + 1]);
            assert!(options.contains(&p), "point {p:?} is not a portal midpoint or end");
            moved_somewhere += (p != options[2]) as usize;
            let (prev, next) = (xz(path.points[i]), xz(path.points[i + 2]));
            let here = dist2(prev, p) + dist2(p, next);
            for o in options {
                assert!(
                    dist2(prev, o) + dist2(o, next) >= here - 1e-9,
                    "moving point {} to {o:?} shortens the path",
                    i + 1
                );
            }
        }
    }
    assert!(moved_somewhere > 20, "refinement never moved a point");
}

#[test]
fn paths_between_snapped_points_work_even_if_rounding_leaves_them_outside() {
    // Nearest points on slanted walls are rounded and may fall a hair outside their polygon, so
    // `locate` alone could reject them; `find_path_between` takes the polygon as given.
    let spec = GridSpec { cols: 6, rows: 6, triangulate: true, jitter: 0.2, seed: 3, ..GridSpec::default() };
    let mesh = query_mesh(spec.build());
    let mut q = PathQuery::new(&mesh);
    let mut rng = SplitMix64::new(61);
    for _ in 0..100 {
        // Points just outside the square, snapped back onto it.
        let outside = [rng.next_f64() * 6.0, 0.0, -0.2];
        let start = mesh.nearest_point(outside, [0.5, 1.0, 0.5]).unwrap();
        assert_eq!(start.point[2], 0.0);
        let goal = mesh.random_point(&mut rng).unwrap();
        let mut path = Path::default();
        q.find_path_between(&mesh, start, goal, &QueryFilter::new(), PathOptions::default(), &mut path).unwrap();
        assert_eq!(path.points.first(), Some(&start.point));
        assert_eq!(path.points.last(), Some(&goal.point));
        // The square is convex: the path is straight.
        assert!((path.length - dist3(start.point, goal.point)).abs() < 1e-9);
    }
    let bad = Location { polygon: 10_000, point: [0.5, 0.0, 0.5] };
    let mut path = Path::default();
    let r = q.find_path_between(&mesh, bad, bad, &QueryFilter::new(), PathOptions::default(), &mut path);
    assert_eq!(r, Err(PathError::StartOffMesh));
}

#[test]
fn visible_goals_get_the_straight_segment_and_costly_areas_still_go_to_the_search() {
    // Mud (cost 4) in columns 4..6: a straight segment through it is not the cheapest path, so
    // only segments on plain ground may skip the search.
    let (cols, rows) = (12, 10);
    let cell_area = area_band(cols, rows, 4..6);
    let areas = vec![AreaType { name: "default".into(), cost: 1.0 }, AreaType { name: "mud".into(), cost: 4.0 }];
    let spec = GridSpec {
        cols,
        rows,
        triangulate: true,
        blocked: random_blocked(cols, rows, 0.15, 8),
        cell_area,
        areas,
        ..GridSpec::default()
    };
    let mesh = query_mesh(spec.build());
    let oracle = Oracle::new(&mesh);
    let mut rng = SplitMix64::new(31);
    let mut q = PathQuery::new(&mesh);
    let plain = QueryFilter::new().with_cost(1, 1.0);
    let (mut straight, mut bent, mut mud_detours) = (0, 0, 0);
    for _ in 0..300 {
        let s = mesh.random_point(&mut rng).unwrap();
        let g = mesh.random_point(&mut rng).unwrap();
        let Ok(path) = q.find_path(&mesh, s.point, g.point, &plain) else { continue };
        if oracle.visible(xz(s.point), xz(g.point)) {
            assert_eq!(path.points, vec![s.point, g.point], "visible pair not joined straight");
            straight += 1;
            // With mud at cost 4 the search must decide, and some paths leave the line.
            let muddy = q.find_path(&mesh, s.point, g.point, &QueryFilter::new()).unwrap();
            if muddy.points.len() > 2 {
                mud_detours += 1;
            }
        } else {
            assert!(path.points.len() > 2, "a hidden goal cannot be reached in a straight line");
            bent += 1;
        }
    }
    assert!(straight > 20 && bent > 20 && mud_detours > 0, "straight {straight}, bent {bent}, mud {mud_detours}");
}

#[test]
fn convex_hull_perimeters_match_gift_wrapping() {
    // Brute force: a point is a hull edge's start when every other point lies left of or on
    // the edge to some next point; walk the hull that way from the lowest-leftmost point.
    fn gift_wrap_perimeter(points: &[crate::geom::Point2]) -> f64 {
        let mut distinct: Vec<crate::geom::Point2> = Vec::new();
        for &p in points {
            if !distinct.contains(&p) {
                distinct.push(p);
            }
        }
        if distinct.len() < 2 {
            return 0.0;
        }
        let start = *distinct.iter().min_by(|p, q| p[0].total_cmp(&q[0]).then(p[1].total_cmp(&q[1]))).unwrap();
        let (mut here, mut total) = (start, 0.0);
        for _ in 0..=distinct.len() {
            // The next hull point: no point right of here -> next; among collinear, the farthest.
            let mut next = if distinct[0] == here { distinct[1] } else { distinct[0] };
            for &p in &distinct {
                if p == here {
                    continue;
                }
                let o = orient2d(here, next, p);
                if o < 0.0 || (o == 0.0 && dist2(here, p) > dist2(here, next)) {
                    next = p;
                }
            }
            total += dist2(here, next);
            here = next;
            if here == start {
                return total;
            }
        }
        panic!("gift wrapping did not close");
    }
    let mut rng = SplitMix64::new(17);
    let mut chain = Vec::new();
    for case in 0..400 {
        let n = 1 + case % 40;
        // Coarse coordinates make duplicates and collinear runs common.
        let grid = if case % 3 == 0 { 4.0 } else { 1000.0 };
        let mut points: Vec<crate::geom::Point2> =
            (0..n).map(|_| [(rng.next_f64() * grid).floor() - 3.0, (rng.next_f64() * grid).floor() + 7.5]).collect();
        let want = gift_wrap_perimeter(&points);
        let got = obstacles::convex_hull_perimeter(&mut points, &mut chain);
        assert!((got - want).abs() <= 1e-9 * (1.0 + want), "case {case}: {got} vs {want} for {points:?}");
    }
}

#[test]
fn paths_certified_round_one_island_are_shortest_by_the_oracle() {
    // Scattered islands (clusters of blocked cells, some concave; jittered into uneven shapes)
    // on flat and sloped grids.
    let mut certified = 0;
    for (triangulate, slope, seed) in [(false, [0.0, 0.0], 31u64), (true, [0.2, -0.1], 32), (true, [0.0, 0.0], 33)] {
        let spec = GridSpec {
            cols: 14,
            rows: 12,
            triangulate,
            jitter: if triangulate { 0.2 } else { 0.0 },
            slope,
            seed,
            blocked: random_blocked(14, 12, 0.1, seed),
            ..GridSpec::default()
        };
        let mesh = query_mesh(spec.build());
        let oracle = Oracle::new(&mesh);
        let mut rng = SplitMix64::new(seed);
        let mut q = PathQuery::new(&mesh);
        let mut path = Path::default();
        for _ in 0..400 {
            let (s, g) = (mesh.random_point(&mut rng).unwrap(), mesh.random_point(&mut rng).unwrap());
            if q.find_path_into(&mesh, s.point, g.point, &QueryFilter::new(), PathOptions::default(), &mut path)
                .is_err()
                || !q.last_went_round_one_island()
            {
                continue;
            }
            certified += 1;
            assert_path_in_corridor(&mesh, &path);
            let truth = oracle.shortest(xz(s.point), xz(g.point)).expect("the oracle finds the path");
            let got: f64 = path.points.windows(2).map(|w| dist2(xz(w[0]), xz(w[1]))).sum();
            assert!(
                (got - truth).abs() <= 1e-9 * (1.0 + truth),
                "{:?} -> {:?}: {got} m, shortest {truth} m",
                s.point,
                g.point
            );
        }
    }
    assert!(certified > 60, "only {certified} certified paths");
}

#[test]
fn costly_areas_and_covered_islands_are_not_certified() {
    // A 7 × 5 floor with one blocked cell in the middle: an island.
    let blocked: Vec<bool> = (0..35).map(|i| i == 17).collect();
    let floor = GridSpec { cols: 7, rows: 5, blocked: blocked.clone(), ..GridSpec::default() };
    let (s, g) = ([3.5, 0.0, 0.5], [3.5, 0.0, 4.5]);
    let mesh = query_mesh(floor.build());
    let mut q = PathQuery::new(&mesh);
    let mut path = Path::default();
    q.find_path_into(&mesh, s, g, &QueryFilter::new(), PathOptions::default(), &mut path).unwrap();
    assert!(q.last_went_round_one_island());
    assert!((path.length - (2.0 * 1.5f64.hypot(0.5) + 1.0)).abs() < 1e-12);

    // A costlier area beside the island: the search decides.
    let mut costly = floor.clone();
    costly.areas.push(AreaType { name: "mud".into(), cost: 3.0 });
    costly.cell_area = (0..35).map(|i| u16::from(i == 16 || i == 18)).collect();
    let mesh = query_mesh(costly.build());
    let mut q = PathQuery::new(&mesh);
    q.find_path_into(&mesh, s, g, &QueryFilter::new(), PathOptions::default(), &mut path).unwrap();
    assert!(!q.last_went_round_one_island());

    // A deck above the island: when no walkway joins it to the floor, no path from the floor
    // can use it and the island still certifies paths round it; when a walkway over the floor
    // joins it (as a spiral ramp's upper turn joins its lower one), it does not.
    let round = 2.0 * 1.5f64.hypot(0.5) + 1.0;
    let deck = GridSpec { cols: 1, rows: 1, origin: [3.2, 3.0, 2.2], cell: 0.5, layer: 1, ..GridSpec::default() };
    let mesh = query_mesh(combine(floor.build(), deck.build()));
    let mut q = PathQuery::new(&mesh);
    q.find_path_into(&mesh, s, g, &QueryFilter::new(), PathOptions::default(), &mut path).unwrap();
    assert!(q.last_went_round_one_island());
    assert!((path.length - round).abs() < 1e-12);

    let mut vertices: Vec<[f64; 3]> = (0..48).map(|i| [(i % 8) as f64, 0.0, (i / 8) as f64]).collect();
    let mut rings: Vec<(Vec<u32>, u16)> = Vec::new();
    for (c, r) in (0..5).flat_map(|r| (0..7).map(move |c| (c, r))).filter(|&cr| cr != (3, 2)) {
        let v = |c: usize, r: usize| (r * 8 + c) as u32;
        rings.push((vec![v(c, r), v(c + 1, r), v(c + 1, r + 1), v(c, r + 1)], 0));
    }
    let mut add = |p: [f64; 3]| {
        vertices.push(p);
        (vertices.len() - 1) as u32
    };
    // The deck (above the hole), a walkway east at the same height, a landing beyond the floor's
    // edge, and a ramp down from the landing onto the floor's edge at x = 7, z in [3, 4].
    let (d0, d1, d2, d3) = (add([3.2, 3.0, 2.2]), add([3.7, 3.0, 2.2]), add([3.7, 3.0, 2.7]), add([3.2, 3.0, 2.7]));
    let (e1, e2) = (add([8.0, 3.0, 2.2]), add([8.0, 3.0, 2.7]));
    let (g1, g2, g3, g4) = (add([9.0, 3.0, 2.2]), add([9.0, 3.0, 4.0]), add([8.0, 3.0, 4.0]), add([8.0, 3.0, 3.0]));
    rings.push((vec![d0, d1, d2, d3], 0));
    rings.push((vec![d1, e1, e2, d2], 0));
    rings.push((vec![e1, g1, g2, g3, g4, e2], 0));
    rings.push((vec![3 * 8 + 7, g4, g3, 4 * 8 + 7], 0));
    let data = super::testmesh::assemble(crate::BakeSettings::DEFAULT, vertices, &rings, floor.areas.clone(), 0);
    let mesh = query_mesh(data);
    let mut q = PathQuery::new(&mesh);
    q.find_path_into(&mesh, s, g, &QueryFilter::new(), PathOptions::default(), &mut path).unwrap();
    assert!(!q.last_went_round_one_island());
    assert!((path.length - round).abs() < 1e-9);
    let on_deck = q.find_path(&mesh, [3.45, 3.0, 2.45], [6.5, 0.0, 3.5], &QueryFilter::new()).unwrap();
    assert!(on_deck.corridor.len() >= 4, "the deck joins the floor");
}
