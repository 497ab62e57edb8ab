//! A* against a Dijkstra over the midpoint graph (with area costs and chain jumps), and Meadow
//! refinement as a local optimum over portal choices.

use super::*;

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
