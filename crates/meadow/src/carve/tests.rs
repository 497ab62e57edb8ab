//! Unit tests of carving on hand-made meshes.

use super::*;
use crate::asset::NavMeshData;

fn square_obstacle(cx: f64, cz: f64, half: f64, y: [f64; 2]) -> Obstacle {
    Obstacle {
        polygon: vec![[cx - half, cz - half], [cx + half, cz - half], [cx + half, cz + half], [cx - half, cz + half]],
        y,
    }
}

/// Two 1 m squares side by side (the asset module's test mesh), radius 0.1.
fn two_squares() -> NavMesh {
    let mut d: NavMeshData = crate::testmesh::GridSpec { cols: 2, rows: 1, cell: 1.0, ..Default::default() }.build();
    d.settings.radius = 0.1;
    NavMesh::new(d).unwrap()
}

#[test]
fn a_carve_validates_and_removing_restores_the_base() {
    let mut world = DynamicMesh::new(two_squares());
    let base_area = world.base().mesh().total_area();
    let id = world.add_obstacle(square_obstacle(1.0, 0.5, 0.2, [-1.0, 1.0])).unwrap();
    let stats = world.update();
    assert!(stats.rejected.is_none(), "{stats:?}");
    assert_eq!(stats.carved_polygons, 2);
    let dilated = world.dilated(id).unwrap().to_vec();
    let carved = world.mesh().mesh().total_area();
    let hole = crate::geom::signed_area(&dilated);
    assert!((base_area - hole - carved).abs() < 1e-9, "{base_area} {hole} {carved}");
    world.remove_obstacle(id).unwrap();
    assert_eq!(world.remove_obstacle(id), Err(ObstacleError::UnknownObstacle { id }));
    world.update();
    assert!(Arc::ptr_eq(world.mesh(), world.base()));
}

/// A convex polygon: the hull of `points` (`None` when degenerate).
fn hull(points: &[(f64, f64)]) -> Option<Vec<Point2>> {
    let mut pts: Vec<Point2> = points.iter().map(|&(x, z)| [x, z]).collect();
    let mut out = Vec::new();
    crate::geom::convex_hull(&mut pts, |p| *p, &mut out);
    (out.len() >= 3 && crate::geom::is_convex_ccw(&out)).then_some(out)
}

/// Area of `a ∩ b` for convex `a`, `b` (Sutherland-Hodgman clipping of `a` by each edge line of
/// `b`): an independent measure for the proptest.
fn intersection_area(a: &[Point2], b: &[Point2]) -> f64 {
    let mut poly = a.to_vec();
    for k in 0..b.len() {
        let (p, q) = (b[k], b[(k + 1) % b.len()]);
        let side = |x: Point2| (q[0] - p[0]) * (x[1] - p[1]) - (q[1] - p[1]) * (x[0] - p[0]);
        let mut next = Vec::new();
        for i in 0..poly.len() {
            let (s, e) = (poly[i], poly[(i + 1) % poly.len()]);
            let (ss, se) = (side(s), side(e));
            if ss >= 0.0 {
                next.push(s);
            }
            if (ss >= 0.0) != (se >= 0.0) {
                let t = ss / (ss - se);
                next.push([s[0] + (e[0] - s[0]) * t, s[1] + (e[1] - s[1]) * t]);
            }
        }
        poly = next;
        if poly.len() < 3 {
            return 0.0;
        }
    }
    crate::geom::signed_area(&poly)
}

proptest::proptest! {
    /// Convex minus convex: every piece convex and counter-clockwise, the pieces' interiors
    /// disjoint from each other and from the cut, their areas summing to `area(P) - area(P ∩ O)`.
    #[test]
    fn convex_minus_convex_pieces_are_convex_disjoint_and_cover_the_difference(
        p in proptest::collection::vec((-10.0f64..10.0, -10.0f64..10.0), 3..9),
        o in proptest::collection::vec((-6.0f64..6.0, -6.0f64..6.0), 3..9),
    ) {
        let (Some(p), Some(o)) = (hull(&p), hull(&o)) else { return Ok(()) };
        let pieces = convex_minus_convex(&p, &o);
        let mut total = 0.0;
        for (i, piece) in pieces.iter().enumerate() {
            proptest::prop_assert!(crate::geom::is_convex_ccw(piece), "{piece:?}");
            proptest::prop_assert!(intersection_area(piece, &o) < 1e-9, "piece {i} enters the cut");
            for other in &pieces[i + 1..] {
                proptest::prop_assert!(intersection_area(piece, other) < 1e-9, "pieces overlap");
            }
            total += crate::geom::signed_area(piece);
        }
        let expected = crate::geom::signed_area(&p) - intersection_area(&p, &o);
        proptest::prop_assert!((total - expected).abs() <= 1e-9 * (1.0 + crate::geom::signed_area(&p)), "{total} vs {expected}");
    }
}

/// The dilated outline contains the Minkowski sum (points at the radius from the outline in
/// every direction) and lies within the radius plus the arc tolerance of the obstacle.
#[test]
fn dilation_contains_the_sum_within_the_arc_tolerance() {
    let cases: [(&[Point2], f64, f64); 4] = [
        (&[[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]], 0.6, 0.01),
        (&[[0.0, 0.0], [3.0, 0.1], [0.2, 0.5]], 0.25, 0.001),
        (&[[1000.0, -2000.0], [1000.5, -2000.0], [1000.5, -1999.0], [1000.25, -1998.5], [1000.0, -1999.0]], 1.0, 0.05),
        (&[[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [1.0, 1.0]], 0.4, 0.01), // a collinear corner
    ];
    for (polygon, radius, tolerance) in cases {
        let dilated = geometry::dilate(polygon, radius, tolerance);
        assert!(crate::geom::is_convex_ccw(&dilated));
        // Every dilated corner lies within radius + tolerance of the obstacle (and outside it).
        for &q in &dilated {
            let d = (0..polygon.len())
                .map(|k| crate::geom::point_segment_distance(q, polygon[k], polygon[(k + 1) % polygon.len()]))
                .fold(f64::INFINITY, f64::min);
            assert!(d <= radius + tolerance && d >= radius * (1.0 - 1e-9), "{q:?} at {d}");
        }
        // Points at the radius from every corner, in 3600 directions, are inside or on it.
        for &c in polygon {
            for i in 0..3600 {
                let a = i as f64 * std::f64::consts::TAU / 3600.0;
                let p = [c[0] + radius * a.cos(), c[1] + radius * a.sin()];
                assert!(
                    (0..dilated.len())
                        .all(|k| crate::geom::orient2d(dilated[k], dilated[(k + 1) % dilated.len()], p) >= 0.0),
                    "{p:?} outside"
                );
            }
        }
    }
}

/// Bad obstacles are refused with typed errors; an obstacle off the mesh carves nothing.
#[test]
fn bad_obstacles_are_refused_and_far_ones_are_no_ops() {
    let mut world = DynamicMesh::new(two_squares());
    let tri = |p: Vec<Point2>, y: [f64; 2]| Obstacle { polygon: p, y };
    let ok = vec![[0.2, 0.2], [0.8, 0.2], [0.5, 0.8]];
    assert_eq!(world.add_obstacle(tri(ok[..2].to_vec(), [0.0, 1.0])), Err(ObstacleError::TooFewVertices { count: 2 }));
    assert_eq!(
        world.add_obstacle(tri(vec![[0.2, 0.2], [f64::NAN, 0.2], [0.5, 0.8]], [0.0, 1.0])),
        Err(ObstacleError::NonFinite { vertex: 1 })
    );
    assert_eq!(
        world.add_obstacle(tri(vec![[0.2, 0.2], [f64::INFINITY, 0.2], [0.5, 0.8]], [0.0, 1.0])),
        Err(ObstacleError::NonFinite { vertex: 1 })
    );
    assert_eq!(
        world.add_obstacle(tri(vec![[0.2, 0.2], [1e300, 0.2], [0.5, 0.8]], [0.0, 1.0])),
        Err(ObstacleError::OutOfRange { vertex: 1 })
    );
    let clockwise: Vec<Point2> = ok.iter().rev().copied().collect();
    assert_eq!(world.add_obstacle(tri(clockwise, [0.0, 1.0])), Err(ObstacleError::NotConvex));
    let dart = vec![[0.0, 0.0], [2.0, 0.0], [1.0, 0.2], [2.0, 2.0], [0.0, 2.0]];
    assert_eq!(world.add_obstacle(tri(dart, [0.0, 1.0])), Err(ObstacleError::NotConvex));
    for y in [[1.0, 1.0], [1.0, 0.0], [f64::NAN, 1.0], [0.0, f64::INFINITY]] {
        assert!(matches!(world.add_obstacle(tri(ok.clone(), y)), Err(ObstacleError::BadHeightRange { .. })), "{y:?}");
    }
    let far = world.add_obstacle(tri(ok.iter().map(|p| [p[0] + 100.0, p[1]]).collect(), [0.0, 1.0])).unwrap();
    let above = world.add_obstacle(tri(ok.clone(), [5.0, 6.0])).unwrap();
    let stats = world.update();
    assert_eq!(
        (stats.carved_polygons, world.carved_by(far), world.carved_by(above)),
        (0, Some(&[][..]), Some(&[][..]))
    );
    assert!(Arc::ptr_eq(world.mesh(), world.base()));
    let unknown = ObstacleId(99);
    assert_eq!(world.remove_obstacle(unknown), Err(ObstacleError::UnknownObstacle { id: unknown }));
    assert_eq!(world.move_obstacle(unknown, tri(ok, [0.0, 1.0])), Err(ObstacleError::UnknownObstacle { id: unknown }));
}

/// `ring` (points in XZ, counter-clockwise) split by `make_convex`: every part convex,
/// counter-clockwise and within the vertex limit, the parts' areas summing to the ring's, and
/// every point of the ring kept as a corner of some part (the points carved neighbours insert
/// must stay, or their shared edges would not match).
fn assert_splits(ring: &[Point2]) {
    let data = two_squares().data().clone();
    let piece: pieces::Piece =
        ring.iter().map(|p| (pieces::Corner::New([p[0], 0.0, p[1]]), pieces::Support::Diagonal)).collect();
    let parts = pieces::make_convex(&data, piece).unwrap_or_else(|| panic!("no convex split of {} points", ring.len()));
    let mut area = 0.0;
    for part in &parts {
        let pts: Vec<Point2> = part
            .iter()
            .map(|&(c, _)| match c {
                pieces::Corner::New(p) => [p[0], p[2]],
                pieces::Corner::Base(_) => unreachable!(),
            })
            .collect();
        assert!(pts.len() <= pieces::MAX_VERTICES && crate::geom::is_convex_ccw(&pts), "{pts:?}");
        area += crate::geom::signed_area(&pts);
    }
    let whole = crate::geom::signed_area(ring);
    assert!((area - whole).abs() < 1e-12 * whole, "{area} vs {whole}");
    for p in ring {
        let kept = parts.iter().flatten().any(|&(c, _)| c == pieces::Corner::New([p[0], 0.0, p[1]]));
        assert!(kept, "{p:?} lost");
    }
}

/// A carved tile corner: a square whose sides hold many points in line, inserted by carved
/// neighbours (more corners than one polygon may have, none of them reflex). Splitting it along
/// a run of points in line used to leave flat parts and spend the search's budget.
#[test]
fn rings_with_long_runs_of_points_in_line_split_into_small_convex_parts() {
    for extra in [4usize, 9, 13, 25] {
        let mut ring = vec![[0.0, 0.0]];
        ring.extend((1..=extra).map(|k| [-4.0 * (k as f64 / (extra + 1) as f64).powf(1.3), 0.0]));
        ring.extend([[-4.0, 0.0], [-4.0, -4.0], [0.0, -4.0]]);
        ring.extend((1..=extra).map(|k| [0.0, -4.0 + 4.0 * (k as f64 / (extra + 1) as f64).sqrt()]));
        assert_splits(&ring);
    }
    // Points computed along a slanted side are in line only up to rounding: some of them are
    // reflex by a few ulps.
    for extra in [6usize, 15, 30] {
        let mut ring = vec![[0.0, 0.0], [4.1, 0.0], [4.1, 3.3]];
        ring.extend((1..=extra).rev().map(|k| {
            let t = k as f64 / (extra + 1) as f64 + 1e-3 * (k as f64).sin();
            [4.1 * t, 3.3 * t]
        }));
        assert_splits(&ring);
    }
}

/// A seeded random square obstacle (0.2 to 1.4 m across) over the XZ box `lo..hi`.
fn random_square(rng: &mut crate::query::SplitMix64, lo: [f64; 2], hi: [f64; 2]) -> Obstacle {
    let c = [lo[0] + rng.next_f64() * (hi[0] - lo[0]), lo[1] + rng.next_f64() * (hi[1] - lo[1])];
    square_obstacle(c[0], c[1], 0.1 + 0.6 * rng.next_f64(), [-1.0, 1.0])
}

/// After every update of random add / move / remove sequences, the query mesh `update()`
/// derived from the previous one (copying what did not change) has the tables of
/// `QueryMesh::new` on the same navmesh bit for bit, and a second world given only the live
/// obstacles at once (in id order) builds the same navmesh: the result does not depend on the
/// history of updates.
#[test]
fn derived_query_meshes_equal_fresh_builds_after_every_update() {
    let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/assets/box_floor.nav"));
    let grid: NavMeshData = crate::testmesh::GridSpec { cols: 9, rows: 7, cell: 1.0, ..Default::default() }.build();
    let mut grid = grid;
    grid.settings.radius = 0.1;
    for (name, nav) in [("grid", NavMesh::new(grid).unwrap()), ("box_floor", NavMesh::from_bytes(bytes).unwrap())] {
        let (lo, hi) = nav.bounds().unwrap();
        let (lo, hi) = ([lo[0], lo[2]], [hi[0], hi[2]]);
        let mut world = DynamicMesh::new(nav);
        let mut rng = crate::query::SplitMix64::new(7);
        let mut live: Vec<(ObstacleId, Obstacle)> = Vec::new();
        let mut carved_steps = 0;
        for step in 0..60 {
            // Up to three changes per update: adds while few are live, else moves and removals.
            for _ in 0..1 + rng.next_u64() % 3 {
                let op = if live.len() < 4 { 0 } else { rng.next_u64() % 3 };
                match op {
                    0 => {
                        let o = random_square(&mut rng, lo, hi);
                        live.push((world.add_obstacle(o.clone()).unwrap(), o));
                    }
                    1 => {
                        let k = (rng.next_u64() % live.len() as u64) as usize;
                        let o = random_square(&mut rng, lo, hi);
                        world.move_obstacle(live[k].0, o.clone()).unwrap();
                        live[k].1 = o;
                    }
                    _ => {
                        let k = (rng.next_u64() % live.len() as u64) as usize;
                        world.remove_obstacle(live.swap_remove(k).0).unwrap();
                    }
                }
            }
            let stats = world.update();
            assert!(stats.rejected.is_none(), "{name} step {step}: {stats:?}");
            let mesh = world.mesh();
            if !Arc::ptr_eq(mesh, world.base()) {
                carved_steps += 1;
            }
            let fresh = QueryMesh::new(mesh.mesh().clone());
            assert_eq!(mesh.first_table_difference(&fresh), None, "{name} step {step}");
            // Added in id order, so the obstacles carve in the same order.
            let mut again = DynamicMesh::from_query_mesh(world.base().clone());
            let mut by_id = live.clone();
            by_id.sort_by_key(|(id, _)| *id);
            for (_, o) in &by_id {
                again.add_obstacle(o.clone()).unwrap();
            }
            again.update();
            assert_eq!(again.mesh().mesh(), mesh.mesh(), "{name} step {step}: depends on the history");
        }
        assert!(carved_steps > 30, "{name}: only {carved_steps} carved steps");
    }
}
