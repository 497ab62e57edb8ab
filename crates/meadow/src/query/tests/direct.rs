//! The search-free answers: visible goals get the straight segment, and paths round one island
//! certified by its convex hull are shortest.

use super::*;

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
    let oracle = Oracle::new(&mesh, Visibility::ClosedSegment);
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
        let oracle = Oracle::new(&mesh, Visibility::ClosedSegment);
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
    let data = crate::testmesh::assemble(crate::BakeSettings::DEFAULT, vertices, &rings, floor.areas.clone(), 0);
    let mesh = query_mesh(data);
    let mut q = PathQuery::new(&mesh);
    q.find_path_into(&mesh, s, g, &QueryFilter::new(), PathOptions::default(), &mut path).unwrap();
    assert!(!q.last_went_round_one_island());
    assert!((path.length - round).abs() < 1e-9);
    let on_deck = q.find_path(&mesh, [3.45, 3.0, 2.45], [6.5, 0.0, 3.5], &QueryFilter::new()).unwrap();
    assert!(on_deck.corridor.len() >= 4, "the deck joins the floor");
}
