//! Off-mesh links in every query: the midpoint A* against a brute-force Dijkstra over the same
//! graph (links included), the exact search against an oracle that joins link-free exact
//! distances through the links, direction, filters, and links added and removed at run time.

use super::*;
use crate::query::links::LinkSpec;
use std::collections::BinaryHeap;

/// A grid split by a blocked column into two halves that only links can join.
fn split_grid(cols: usize, rows: usize, wall: usize) -> QueryMesh {
    let blocked: Vec<bool> = (0..cols * rows).map(|i| i % cols == wall).collect();
    let spec = GridSpec { cols, rows, blocked, ..GridSpec::default() };
    QueryMesh::new(NavMesh::new(spec.build()).expect("valid grid"))
}

fn link(start: [f64; 3], end: [f64; 3], bidirectional: bool, cost: Option<f64>, id: u32) -> LinkSpec {
    LinkSpec { start, end, bidirectional, cost, area: 0, id, radius: Some(0.5) }
}

/// The search objective of a path: walking (XZ for the exact search, at cost 1; 3D for the A*,
/// times the area cost of the corridor polygon each midpoint segment lies in) plus link costs.
fn objective(mesh: &QueryMesh, path: &Path, planar: bool) -> f64 {
    let links = mesh.links();
    let nav = mesh.mesh();
    let area_cost = |poly: u32| nav.areas()[nav.data().polygons[poly as usize].area as usize].cost as f64;
    let mut total = 0.0;
    // A leg of m portals has m + 2 points and m + 1 corridor polygons: walking segment j of a
    // leg lies in its polygon j; a link segment lies in none.
    let mut c = 0;
    for (k, w) in path.points.windows(2).enumerate() {
        total += match path.link_at(k) {
            Some(l) => {
                let link = links.get(l.link).expect("path links are active");
                link.cost * if planar { 1.0 } else { nav.areas()[link.area as usize].cost as f64 }
            }
            None if planar => dist2(xz(w[0]), xz(w[1])),
            None => {
                c += 1;
                dist3(w[0], w[1]) * area_cost(path.corridor[c - 1])
            }
        };
    }
    total
}

/// Brute-force optimum of the midpoint graph with links (Dijkstra, no heuristic, no chains):
/// nodes are the start, the half-edges (standing on a portal's midpoint, in the polygon across),
/// and one landing node per take-off direction.
fn midpoint_optimum(mesh: &QueryMesh, start: Location, goal: Location) -> Option<f64> {
    let state = mesh.link_state();
    let h = mesh.half_edge_count();
    let (start_node, link_base) = (h, h + 1);
    let n = h + 1 + state.takeoffs.len();
    let mut dist = vec![f64::INFINITY; n];
    let mut heap = BinaryHeap::new();
    dist[start_node] = 0.0;
    heap.push(std::cmp::Reverse((0u64, start_node)));
    let mut best = f64::INFINITY;
    while let Some(std::cmp::Reverse((bits, u))) = heap.pop() {
        let d = f64::from_bits(bits);
        if d > dist[u] {
            continue;
        }
        let (poly, pos) = if u == start_node {
            (start.polygon, start.point)
        } else if u >= link_base {
            let t = state.takeoffs[u - link_base];
            (t.to_poly, t.to)
        } else {
            (mesh.edge_neighbour(u).expect("portal"), mesh.half_edges[u].mid)
        };
        let nav = mesh.mesh();
        let cost = nav.areas()[nav.data().polygons[poly as usize].area as usize].cost as f64;
        if poly == goal.polygon {
            best = best.min(d + dist3(pos, goal.point) * cost);
        }
        let mut relax = |v: usize, nd: f64| {
            if nd < dist[v] {
                dist[v] = nd;
                heap.push(std::cmp::Reverse((nd.to_bits(), v)));
            }
        };
        let first = mesh.poly_first(poly);
        for e in first..first + mesh.poly_len(poly) {
            if mesh.edge_neighbour(e).is_some() {
                relax(e, d + dist3(pos, mesh.half_edges[e].mid) * cost);
            }
        }
        for &t in state.takeoffs_from(poly) {
            let k = state.takeoffs[t as usize];
            let link_cost = nav.areas()[k.area as usize].cost as f64;
            relax(link_base + t as usize, d + dist3(pos, k.from) * cost + k.cost * link_cost);
        }
    }
    best.is_finite().then_some(best)
}

/// Exact oracle with links: Dijkstra over the start, the goal and the link end points, joined
/// by link-free exact distances (`find_shortest_path` without links, itself checked against a
/// brute-force visibility graph) and by the links.
fn exact_optimum(mesh: &QueryMesh, start: [f64; 3], goal: [f64; 3]) -> Option<f64> {
    let state = mesh.link_state();
    let mut sq = ShortestPathQuery::new(mesh);
    let off = QueryFilter::new().without_links();
    let mut points = vec![start, goal];
    for k in &state.takeoffs {
        points.push(k.from);
        points.push(k.to);
    }
    let n = points.len();
    let walk = |sq: &mut ShortestPathQuery, a: [f64; 3], b: [f64; 3]| -> f64 {
        let (Ok(la), Ok(lb)) = (mesh.nearest_point(a, [1e-6; 3]), mesh.nearest_point(b, [1e-6; 3])) else {
            return f64::INFINITY;
        };
        let mut p = Path::default();
        match sq.find_shortest_path_between(mesh, la, lb, &off, &mut p) {
            Ok(()) => p.points.windows(2).map(|w| dist2(xz(w[0]), xz(w[1]))).sum(),
            Err(_) => f64::INFINITY,
        }
    };
    let mut dist = vec![f64::INFINITY; n];
    let mut done = vec![false; n];
    dist[0] = 0.0;
    for _ in 0..n {
        let Some(u) = (0..n).filter(|&i| !done[i] && dist[i].is_finite()).min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
        else {
            break;
        };
        done[u] = true;
        for v in 0..n {
            if !done[v] {
                let d = dist[u] + walk(&mut sq, points[u], points[v]);
                dist[v] = dist[v].min(d);
            }
        }
        // A take-off point (even index from 2) leads over its link to the landing after it.
        if u >= 2 && u % 2 == 0 {
            let k = state.takeoffs[(u - 2) / 2];
            dist[u + 1] = dist[u + 1].min(dist[u] + k.cost);
        }
    }
    dist[1].is_finite().then_some(dist[1])
}

#[test]
fn paths_cross_only_by_links_and_honour_direction() {
    let mesh = split_grid(9, 5, 4);
    let (west, east) = ([1.5, 0.0, 2.5], [7.5, 0.0, 2.5]);
    let mut q = PathQuery::new(&mesh);
    let mut sq = ShortestPathQuery::new(&mesh);
    assert_eq!(q.find_path(&mesh, west, east, &QueryFilter::new()), Err(PathError::Unreachable));
    let id = mesh.add_link(&link([3.8, 0.0, 1.5], [5.2, 0.0, 1.5], false, None, 42)).unwrap();
    assert_eq!(mesh.links().len(), 1);
    for style in [PathStyle::StringPulled, PathStyle::Midpoints, PathStyle::MeadowRefined] {
        let options = PathOptions { style, ..PathOptions::default() };
        let mut path = Path::default();
        q.find_path_into(&mesh, west, east, &QueryFilter::new(), options, &mut path).unwrap();
        assert_eq!(path.links.len(), 1, "{style:?}");
        let l = path.links[0];
        assert_eq!((l.link, l.id, l.reversed), (id, 42, false));
        let stored = *mesh.links().get(id).unwrap();
        assert_eq!(path.points[l.segment], stored.start);
        assert_eq!(path.points[l.segment + 1], stored.end);
        assert!((path.length - polyline_length(&path.points)).abs() < 1e-12);
        assert_eq!(path.points.first(), Some(&west));
        assert_eq!(path.points.last(), Some(&east));
    }
    let exact = sq.find_shortest_path(&mesh, west, east, &QueryFilter::new()).unwrap();
    assert_eq!(exact.links.len(), 1);
    assert_eq!(exact.points[exact.links[0].segment], mesh.links().get(id).unwrap().start);
    // One-way: no way back, and switched off per query.
    assert_eq!(q.find_path(&mesh, east, west, &QueryFilter::new()), Err(PathError::Unreachable));
    assert_eq!(sq.find_shortest_path(&mesh, east, west, &QueryFilter::new()), Err(PathError::Unreachable));
    let off = QueryFilter::new().without_links();
    assert_eq!(q.find_path(&mesh, west, east, &off), Err(PathError::Unreachable));
    assert_eq!(sq.find_shortest_path(&mesh, west, east, &off), Err(PathError::Unreachable));
    assert_eq!(q.find_path(&mesh, west, east, &QueryFilter::new().exclude(0)), Err(PathError::StartExcluded));
}

#[test]
fn removing_a_link_cuts_the_way_and_adding_it_back_restores_the_path() {
    let mesh = split_grid(9, 5, 4);
    let (west, east) = ([0.5, 0.0, 0.5], [8.5, 0.0, 4.5]);
    let spec = link([3.9, 0.0, 3.5], [5.1, 0.0, 3.5], true, Some(2.0), 7);
    let id = mesh.add_link(&spec).unwrap();
    let mut q = PathQuery::new(&mesh);
    let mut sq = ShortestPathQuery::new(&mesh);
    let before = q.find_path(&mesh, west, east, &QueryFilter::new()).unwrap();
    let exact_before = sq.find_shortest_path(&mesh, west, east, &QueryFilter::new()).unwrap();
    let back = q.find_path(&mesh, east, west, &QueryFilter::new()).unwrap();
    assert!(back.links[0].reversed, "a two-way link walked backwards");
    let removed = mesh.remove_link(id).unwrap();
    assert_eq!(mesh.remove_link(id), Err(LinkError::UnknownLink(id)));
    assert_eq!(q.find_path(&mesh, west, east, &QueryFilter::new()), Err(PathError::Unreachable));
    assert_eq!(sq.find_shortest_path(&mesh, west, east, &QueryFilter::new()), Err(PathError::Unreachable));
    let again = mesh.insert_link(removed).unwrap();
    assert_ne!(again, id, "handles are never reused");
    let after = q.find_path(&mesh, west, east, &QueryFilter::new()).unwrap();
    assert_eq!((after.points, after.length, after.corridor), (before.points, before.length, before.corridor));
    let exact_after = sq.find_shortest_path(&mesh, west, east, &QueryFilter::new()).unwrap();
    assert_eq!(exact_after.points, exact_before.points);
}

#[test]
fn link_costs_choose_the_route() {
    let mesh = split_grid(9, 9, 4);
    let (west, east) = ([2.5, 0.0, 4.5], [6.5, 0.0, 4.5]);
    // A near link (z = 4.5) and a far one (z = 0.5).
    let near = mesh.add_link(&link([3.8, 0.0, 4.5], [5.2, 0.0, 4.5], true, Some(1.4), 1)).unwrap();
    let far = mesh.add_link(&link([3.8, 0.0, 0.5], [5.2, 0.0, 0.5], true, Some(1.4), 2)).unwrap();
    let mut q = PathQuery::new(&mesh);
    let mut sq = ShortestPathQuery::new(&mesh);
    let taken = |p: &Path| p.links.iter().map(|l| l.link).collect::<Vec<_>>();
    assert_eq!(taken(&q.find_path(&mesh, west, east, &QueryFilter::new()).unwrap()), vec![near]);
    assert_eq!(taken(&sq.find_shortest_path(&mesh, west, east, &QueryFilter::new()).unwrap()), vec![near]);
    // Make the near link dear: the far one wins.
    let mut dear = *mesh.links().get(near).unwrap();
    mesh.remove_link(near).unwrap();
    dear.cost = 50.0;
    let near = mesh.insert_link(dear).unwrap();
    assert_eq!(taken(&q.find_path(&mesh, west, east, &QueryFilter::new()).unwrap()), vec![far]);
    assert_eq!(taken(&sq.find_shortest_path(&mesh, west, east, &QueryFilter::new()).unwrap()), vec![far]);
    // A free teleporter right beside the start beats walking even inside one half.
    let tele = mesh.add_link(&link([1.5, 0.0, 1.5], [7.5, 0.0, 7.5], false, Some(0.0), 3)).unwrap();
    let p = q.find_path(&mesh, [1.5, 0.0, 2.5], [7.5, 0.0, 7.0], &QueryFilter::new()).unwrap();
    assert_eq!(taken(&p), vec![tele]);
    let p = sq.find_shortest_path(&mesh, [1.5, 0.0, 2.5], [7.5, 0.0, 7.0], &QueryFilter::new()).unwrap();
    assert_eq!(taken(&p), vec![tele]);
    assert!((objective(&mesh, &p, true) - 1.5).abs() < 1e-12, "1 m walk, free jump, 0.5 m walk");
    let _ = near;
}

#[test]
fn searches_with_random_links_equal_the_brute_force_optima() {
    let mut checked = (0, 0);
    let mut with_links = 0;
    for seed in 0..12u64 {
        let spec = GridSpec {
            cols: 10,
            rows: 8,
            triangulate: seed % 2 == 1,
            jitter: if seed % 2 == 1 { 0.2 } else { 0.0 },
            seed,
            blocked: random_blocked(10, 8, 0.3, seed + 100),
            // Every third seed: a dear area on some cells (the A* weighs it; exact paths do not).
            cell_area: (0..80).map(|c| u16::from(seed % 3 == 2 && c % 5 == 1)).collect(),
            areas: vec![AreaType { name: "default".into(), cost: 1.0 }, AreaType { name: "mud".into(), cost: 2.5 }],
            ..GridSpec::default()
        };
        let mesh = QueryMesh::new(NavMesh::new(spec.build()).unwrap());
        let mut rng = SplitMix64::new(seed);
        for i in 0..6 {
            let mut a = mesh.random_point(&mut rng).unwrap().point;
            let mut b = mesh.random_point(&mut rng).unwrap().point;
            if i % 3 == 2 && seed % 2 == 0 {
                // On grid vertices and edge midpoints: landings shared by several polygons.
                let snap = |p: [f64; 3]| [(p[0] * 2.0).round() / 2.0, p[1], (p[2] * 2.0).round() / 2.0];
                (a, b) = (snap(a), snap(b));
            }
            let straight = dist3(a, b);
            // Teleporters (cheaper than the line), jumps at their length, and dear links.
            let cost = [0.0, 0.3 * straight, straight, 3.0 * straight][i % 4];
            // (A snapped end may fall in a blocked cell, beyond the radius: then no link.)
            let spec = LinkSpec { area: u16::from(i == 5), ..link(a, b, rng.next_f64() < 0.5, Some(cost), i as u32) };
            let _ = mesh.add_link(&spec);
        }
        let mut q = PathQuery::new(&mesh);
        let mut sq = ShortestPathQuery::new(&mesh);
        let midpoints = PathOptions { style: PathStyle::Midpoints, ..PathOptions::default() };
        for _ in 0..30 {
            let s = mesh.random_point(&mut rng).unwrap();
            let g = mesh.random_point(&mut rng).unwrap();
            let mut path = Path::default();
            let found = q.find_path_between(&mesh, s, g, &QueryFilter::new(), midpoints, &mut path);
            match (found, midpoint_optimum(&mesh, s, g)) {
                (Ok(()), Some(best)) => {
                    let got = objective(&mesh, &path, false);
                    assert!((got - best).abs() <= 1e-9 * (1.0 + best), "seed {seed}: A* {got} vs Dijkstra {best}");
                    checked.0 += 1;
                }
                (Err(PathError::Unreachable), None) => {}
                (got, want) => panic!("seed {seed}: A* {got:?} vs Dijkstra {want:?}"),
            }
            let exact = sq.find_shortest_path(&mesh, s.point, g.point, &QueryFilter::new());
            match (exact, exact_optimum(&mesh, s.point, g.point)) {
                (Ok(p), Some(best)) => {
                    let got = objective(&mesh, &p, true);
                    assert!((got - best).abs() <= 1e-9 * (1.0 + best), "seed {seed}: exact {got} vs oracle {best}");
                    checked.1 += 1;
                    with_links += usize::from(!p.links.is_empty());
                }
                (Err(PathError::Unreachable), None) => {}
                (got, want) => panic!("seed {seed}: exact {got:?} vs oracle {want:?}"),
            }
        }
    }
    assert!(checked.0 > 250 && checked.1 > 250, "too few found paths: {checked:?}");
    assert!(with_links > 80, "only {with_links} exact paths take links");
}

#[test]
fn bad_links_are_typed_errors() {
    let mesh = split_grid(5, 3, 2);
    let ok = link([0.5, 0.0, 0.5], [4.5, 0.0, 0.5], true, None, 0);
    let nan = LinkSpec { start: [f64::NAN, 0.0, 0.0], ..ok };
    assert_eq!(mesh.add_link(&nan), Err(LinkError::NonFinite));
    assert!(matches!(mesh.add_link(&LinkSpec { cost: Some(-1.0), ..ok }), Err(LinkError::BadCost { .. })));
    assert!(matches!(mesh.add_link(&LinkSpec { radius: Some(-1.0), ..ok }), Err(LinkError::NegativeRadius { .. })));
    assert!(matches!(mesh.add_link(&LinkSpec { area: 9, ..ok }), Err(LinkError::AreaOutOfRange { .. })));
    assert!(matches!(mesh.add_link(&LinkSpec { cost: Some(1e300), ..ok }), Err(LinkError::BadCost { .. })));
    assert!(matches!(mesh.add_link(&LinkSpec { end: [1e300, 0.0, 0.0], ..ok }), Err(LinkError::OutOfRange { .. })));
    let far = LinkSpec { end: [40.0, 0.0, 0.5], ..ok };
    assert!(matches!(mesh.add_link(&far), Err(LinkError::EndOffMesh { .. })));
    assert!(mesh.links().is_empty());
    let id = mesh.add_link(&ok).unwrap();
    let l = *mesh.links().get(id).unwrap();
    assert_eq!(l.cost, 4.0, "default cost: the 3D distance between the connected ends");
    let mut data = mesh.mesh().data().clone();
    data.links.push(OffMeshLinkAlias { start_polygon: 999, ..l });
    assert!(matches!(NavMesh::new(data), Err(crate::ValidationError::BadOffMeshLink { .. })));
}

use crate::asset::OffMeshLink as OffMeshLinkAlias;

#[test]
fn a_link_over_an_island_beats_the_way_round_it() {
    // A 3 × 3 block of blocked cells in the middle of a 9 × 9 grid: a small island whose hull
    // certifies the way round it when no link can do better.
    let blocked: Vec<bool> = (0..81).map(|i| (3..6).contains(&(i % 9)) && (3..6).contains(&(i / 9))).collect();
    let spec = GridSpec { cols: 9, rows: 9, blocked, ..GridSpec::default() };
    let mut data = spec.build();
    data.outlines = crate::testmesh::boundary_rings(&data);
    let mesh = QueryMesh::new(NavMesh::new(data).unwrap());
    let (s, g) = ([1.0, 0.0, 4.5], [8.0, 0.0, 4.5]);
    let mut q = PathQuery::new(&mesh);
    let round = q.find_path(&mesh, s, g, &QueryFilter::new()).unwrap();
    assert!(round.links.is_empty() && round.length > 7.5);
    assert!(q.last_went_round_one_island(), "the certificate answers without links");
    // A jump over the island at its length: shorter than the way round.
    let id = mesh.add_link(&link([2.9, 0.0, 4.5], [6.1, 0.0, 4.5], true, None, 5)).unwrap();
    let over = q.find_path(&mesh, s, g, &QueryFilter::new()).unwrap();
    assert_eq!(over.links.iter().map(|l| l.link).collect::<Vec<_>>(), vec![id]);
    assert!((over.length - 7.0).abs() < 1e-9, "{}", over.length);
    assert!(!q.last_went_round_one_island());
    // A teleporter inside one polygon's reach: start and goal in one cell, the link cheaper.
    let cell = mesh.add_link(&link([0.1, 0.0, 0.1], [0.9, 0.0, 0.9], false, Some(0.0), 6)).unwrap();
    let p = q.find_path(&mesh, [0.1, 0.0, 0.2], [0.9, 0.0, 0.8], &QueryFilter::new()).unwrap();
    assert_eq!(p.links.iter().map(|l| l.link).collect::<Vec<_>>(), vec![cell]);
    assert!((objective(&mesh, &p, false) - 0.2).abs() < 1e-9);
}

#[test]
fn links_join_layers_and_partial_paths_use_them() {
    // Two floors 4 m apart over the same ground, joined only by a ladder link.
    let ground = GridSpec { cols: 4, rows: 4, ..GridSpec::default() }.build();
    let upper = GridSpec { cols: 4, rows: 4, origin: [0.0, 4.0, 0.0], layer: 1, ..GridSpec::default() }.build();
    let mesh = QueryMesh::new(NavMesh::new(combine(ground, upper)).unwrap());
    let (low, high) = ([0.5, 0.0, 0.5], [3.5, 4.0, 3.5]);
    let mut q = PathQuery::new(&mesh);
    assert_eq!(q.find_path(&mesh, low, high, &QueryFilter::new()), Err(PathError::Unreachable));
    let ladder = link([2.0, 0.0, 2.0], [2.0, 4.0, 2.0], true, None, 11);
    let id = mesh.add_link(&ladder).unwrap();
    let l = *mesh.links().get(id).unwrap();
    assert_eq!((l.start[1], l.end[1]), (0.0, 4.0), "each end connects to the floor nearest it");
    assert_eq!(l.cost, 4.0);
    let up = q.find_path(&mesh, low, high, &QueryFilter::new()).unwrap();
    assert_eq!(up.links.len(), 1);
    let expected = dist3(low, l.start) + 4.0 + dist3(l.end, high);
    assert!((up.length - expected).abs() < 1e-9, "{} vs {expected}", up.length);
    let down = ShortestPathQuery::new(&mesh).find_shortest_path(&mesh, high, low, &QueryFilter::new()).unwrap();
    assert!(down.links[0].reversed);
    // Partial paths: with links off, the nearest reachable point on the upper floor.
    let options = PathOptions { allow_partial: true, ..PathOptions::default() };
    let mut path = Path::default();
    let off = QueryFilter::new().without_links();
    q.find_path_into(&mesh, high, [0.5, 0.0, 0.5], &off, options, &mut path).unwrap();
    assert!(path.partial && path.links.is_empty());
}
