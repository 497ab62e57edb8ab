//! Path answers in every style: shortest on open meshes, valid and near shortest round obstacles,
//! typed errors, partial paths, bends only at walls, heights and layers.

use super::*;

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
        let oracle = Oracle::new(&mesh, Visibility::ClosedSegment);
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
fn last_expanded_counts_the_last_query_only() {
    // A 3 x 3 grid with the centre blocked: a path round it searches, one inside a cell does not.
    let mesh = query_mesh(
        GridSpec { cols: 3, rows: 3, blocked: vec![false, false, false, false, true], ..Default::default() }.build(),
    );
    let mut q = PathQuery::new(&mesh);
    let f = QueryFilter::new();
    let options = PathOptions { style: PathStyle::Midpoints, ..PathOptions::default() };
    let mut path = Path::default();
    q.find_path_into(&mesh, [0.5, 0.0, 1.5], [2.5, 0.0, 1.5], &f, options, &mut path).unwrap();
    assert!(q.last_expanded() > 0);
    q.find_path_into(&mesh, [0.2, 0.0, 0.2], [0.8, 0.0, 0.7], &f, options, &mut path).unwrap();
    assert_eq!(q.last_expanded(), 0, "one polygon: no search");
    q.find_path_into(&mesh, [0.5, 0.0, 1.5], [2.5, 0.0, 1.5], &f, options, &mut path).unwrap();
    assert!(q.last_expanded() > 0);
    assert!(q.find_path_into(&mesh, [0.5, 0.0, 1.5], [1.5, 0.0, 1.5], &f, options, &mut path).is_err());
    assert_eq!(q.last_expanded(), 0, "refused before any search");
}
