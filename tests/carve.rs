//! Carved temporary obstacles (`meadow::DynamicMesh`) on the fixture levels: seeded random
//! sequences of add / move / remove on an untiled level, a multi-layer one (a bridge over a
//! floor), a tiled one and one with off-mesh links. After every update the carved mesh validates
//! again (`NavMesh::new`: convex counter-clockwise polygons, symmetric portals), its area equals
//! the baked area minus the area of each baked polygon covered by the dilated obstacles its
//! column meets (computed independently, with `i_overlay`) within 1e-6 relative, exact paths
//! equal the layered brute-force oracle's on the carved mesh and no path point lies inside a
//! dilated obstacle on its floor; removing every obstacle gives back the baked mesh. The query
//! mesh `update()` derives from the previous one answers `locate`, `nearest_point`,
//! `random_point`, `find_path`, `find_shortest_path` and `raycast` exactly as `QueryMesh::new`
//! of the same navmesh does.
//!
//! Longer random sequences than these seeds found pairs where `find_shortest_path` on a carved
//! mesh missed the oracle's route (wedges thinner than a rounding step along an obstacle's
//! side); `exact_paths_pass_nearly_collinear_chains_of_carved_corners` keeps two of them, and
//! `exact_paths_by_slivers_of_carved_fans` two found after obstacles were cut as a bound and fans
//! (edges passing within rounding of the corner a path turns at).

use i_overlay::core::fill_rule::FillRule;
use i_overlay::core::overlay_rule::OverlayRule;
use i_overlay::float::single::SingleFloatOverlay;
use meadow::geom::{orient2d, signed_area, Point2};
use meadow::query::{PathQuery, QueryFilter, QueryMesh, ShortestPathQuery};
use meadow::{BakeSettings, DynamicMesh, NavMesh, Obstacle, ObstacleId};
use meadow_testkit::layered_oracle::{End, LayeredOracle};
use meadow_testkit::rng::{Draw, SplitMix64};
use std::sync::Arc;

fn bake(name: &str, tile_size: f64) -> NavMesh {
    let mut settings = BakeSettings::DEFAULT;
    settings.tile_size = tile_size;
    meadow_bake::bake_file(meadow_suite::level(name), &settings).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A random convex obstacle (a rotated rectangle or triangle, 0.3 to 2.5 m across) at a random
/// point of the base mesh (one in eight far off it), from 0.1 m below the surface to 2 m above.
fn random_obstacle(base: &QueryMesh, rng: &mut SplitMix64) -> Obstacle {
    let at = base.random_point(rng).expect("the level has area").point;
    let (cx, cz) = if rng.below(8) == 0 { (at[0] + 1e4, at[2]) } else { (at[0], at[2]) };
    let (a, b) = (rng.uniform(0.15, 1.25), rng.uniform(0.15, 1.25));
    let turn = rng.uniform(0.0, std::f64::consts::TAU);
    let corners: Vec<Point2> = if rng.below(3) == 0 {
        (0..3).map(|k| [a * (turn + k as f64 * 2.1).cos(), a * (turn + k as f64 * 2.1).sin()]).collect()
    } else {
        [[-a, -b], [a, -b], [a, b], [-a, b]].to_vec()
    };
    let (s, c) = turn.sin_cos();
    let polygon = corners.iter().map(|p| [cx + p[0] * c - p[1] * s, cz + p[0] * s + p[1] * c]).collect();
    Obstacle { polygon, y: [at[1] - 0.1, at[1] + 2.0] }
}

/// Area of i_overlay shapes (outer contour first, holes after, of either winding).
fn shapes_area(shapes: &[Vec<Vec<[f64; 2]>>]) -> f64 {
    shapes
        .iter()
        .map(|shape| {
            shape
                .iter()
                .enumerate()
                .map(|(i, c)| if i == 0 { signed_area(c).abs() } else { -signed_area(c).abs() })
                .sum::<f64>()
        })
        .sum()
}

/// The baked area the live obstacles cover, by the column rule, computed with i_overlay: for
/// each baked polygon, its intersection with the union of the dilated obstacles whose height
/// range meets its column (`y_min < highest vertex + agent height`, `y_max > lowest vertex`).
fn covered_area(world: &DynamicMesh) -> f64 {
    let nav = world.base().mesh();
    let height = nav.settings().height;
    let obstacles: Vec<(Vec<Point2>, [f64; 2])> =
        world.obstacles().map(|(id, o)| (world.dilated(id).expect("live").to_vec(), o.y)).collect();
    let mut total = 0.0;
    for p in 0..nav.polygon_count() {
        let ring: Vec<Point2> = nav.polygon_points(p).collect();
        let ys: Vec<f64> = nav.polygon(p).vertices.iter().map(|&v| nav.vertices()[v as usize][1]).collect();
        let (lo, hi) =
            (ys.iter().copied().fold(f64::INFINITY, f64::min), ys.iter().copied().fold(f64::NEG_INFINITY, f64::max));
        let clip: Vec<Vec<[f64; 2]>> =
            obstacles.iter().filter(|(_, y)| y[0] < hi + height && y[1] > lo).map(|(o, _)| o.clone()).collect();
        if clip.is_empty() {
            continue;
        }
        let result = vec![ring].overlay(&clip, OverlayRule::Intersect, FillRule::NonZero);
        total += shapes_area(&result);
    }
    total
}

/// Whether `p` lies inside `ring` deeper than `margin` metres (XZ).
fn deep_inside(ring: &[Point2], p: Point2, margin: f64) -> bool {
    (0..ring.len()).all(|k| {
        let (a, b) = (ring[k], ring[(k + 1) % ring.len()]);
        let len = (b[0] - a[0]).hypot(b[1] - a[1]);
        orient2d(a, b, p) > margin * len
    })
}

/// Checks the current carved mesh of `world` (see the module docs); `pairs` oracle pairs.
fn check(name: &str, step: usize, world: &DynamicMesh, rng: &mut SplitMix64, pairs: usize) {
    let mesh: Arc<QueryMesh> = world.mesh().clone();
    let nav = mesh.mesh();
    NavMesh::new(nav.data().clone()).unwrap_or_else(|e| panic!("{name} step {step}: {e}"));
    let base_area = world.base().mesh().total_area();
    let expected = base_area - covered_area(world);
    let area = nav.total_area();
    assert!(
        (area - expected).abs() <= 1e-6 * base_area,
        "{name} step {step}: carved area {area}, expected {expected} (baked {base_area})"
    );
    let height = nav.settings().height;
    let dilated: Vec<(Vec<Point2>, [f64; 2])> =
        world.obstacles().map(|(id, o)| (world.dilated(id).expect("live").to_vec(), o.y)).collect();
    let mut oracle = LayeredOracle::new(nav);
    let filter = QueryFilter::new().without_links();
    let mut search = ShortestPathQuery::new(&mesh);
    let mut pq = PathQuery::new(&mesh);
    for _ in 0..pairs {
        let (Some(s), Some(g)) = (mesh.random_point(rng), mesh.random_point(rng)) else { return };
        let start = End::Point { polygon: s.polygon, at: [s.point[0], s.point[2]] };
        let goal = End::Point { polygon: g.polygon, at: [g.point[0], g.point[2]] };
        let truth = oracle.shortest(start, goal);
        let answer = search.find_shortest_path(&mesh, s.point, g.point, &filter);
        match (&answer, &truth) {
            (Ok(path), Some(t)) => {
                let len: f64 = path.points.windows(2).map(|w| (w[1][0] - w[0][0]).hypot(w[1][2] - w[0][2])).sum();
                assert!(
                    (len - t.length).abs() <= 1e-9 * t.length.max(1.0),
                    "{name} step {step}: {:?} -> {:?}: {len} vs the oracle's {}",
                    s.point,
                    g.point,
                    t.length
                );
                for found in
                    [Some(path.clone()), pq.find_path(&mesh, s.point, g.point, &filter).ok()].into_iter().flatten()
                {
                    for q in &found.points {
                        for (o, y) in &dilated {
                            let on_floor = y[0] < q[1] + height && y[1] > q[1];
                            assert!(
                                !(on_floor && deep_inside(o, [q[0], q[2]], 1e-7)),
                                "{name} step {step}: path point {q:?} inside obstacle {o:?}"
                            );
                        }
                    }
                }
            }
            (Err(_), None) => {}
            (a, t) => panic!("{name} step {step}: {:?} -> {:?}: {a:?}, the oracle {t:?}", s.point, g.point),
        }
    }
}

/// Checks that the carved mesh `update()` derived from the base answers every query as
/// `QueryMesh::new` of the same navmesh does: same located polygons and points on `points`
/// random points of the bounding box (on and off the mesh), same nearest points, same random
/// points from one seed (area prefix sums), and equal `find_path` and `find_shortest_path`
/// results (lengths, corridors, points) and raycasts on `pairs` random pairs. Draws from its own
/// generator, so the sequences' other draws stay the same.
fn same_answers(name: &str, step: usize, world: &DynamicMesh, points: usize, pairs: usize) {
    let derived: Arc<QueryMesh> = world.mesh().clone();
    let scratch = QueryMesh::new(derived.mesh().clone());
    let Some((lo, hi)) = derived.mesh().bounds() else { return };
    let mut rng = SplitMix64::new(0x5EED_0000 + step as u64);
    let draw = |rng: &mut SplitMix64| {
        let t = [rng.next_f64(), rng.next_f64(), rng.next_f64()];
        [0, 1, 2].map(|k| lo[k] - 1.0 + t[k] * (hi[k] - lo[k] + 2.0))
    };
    for _ in 0..points {
        let p = draw(&mut rng);
        assert_eq!(derived.locate(p), scratch.locate(p), "{name} step {step}: locate {p:?}");
        let extents = [1.5, 2.0, 1.5];
        assert_eq!(
            derived.nearest_point(p, extents),
            scratch.nearest_point(p, extents),
            "{name} step {step}: nearest_point {p:?}"
        );
    }
    let seed = rng.next_u64();
    let (mut a, mut b) = (SplitMix64::new(seed), SplitMix64::new(seed));
    let filter = QueryFilter::new();
    let (mut pq_d, mut pq_s) = (PathQuery::new(&derived), PathQuery::new(&scratch));
    let (mut sq_d, mut sq_s) = (ShortestPathQuery::new(&derived), ShortestPathQuery::new(&scratch));
    let (mut seen_d, mut seen_s) = (Vec::new(), Vec::new());
    for _ in 0..pairs {
        let (s, g) = (derived.random_point(&mut a), derived.random_point(&mut a));
        assert_eq!((s, g), (scratch.random_point(&mut b), scratch.random_point(&mut b)), "{name} step {step}");
        let (Some(s), Some(g)) = (s, g) else { return };
        let (s, g) = (s.point, g.point);
        let path_d = pq_d.find_path(&derived, s, g, &filter);
        assert_eq!(path_d, pq_s.find_path(&scratch, s, g, &filter), "{name} step {step}: find_path {s:?} -> {g:?}");
        let exact_d = sq_d.find_shortest_path(&derived, s, g, &filter);
        let exact_s = sq_s.find_shortest_path(&scratch, s, g, &filter);
        assert_eq!(exact_d, exact_s, "{name} step {step}: find_shortest_path {s:?} -> {g:?}");
        let ray_d = derived.raycast(s, g, &mut seen_d);
        assert_eq!(ray_d, scratch.raycast(s, g, &mut seen_s), "{name} step {step}: raycast {s:?} -> {g:?}");
        assert_eq!(seen_d, seen_s, "{name} step {step}: raycast {s:?} -> {g:?}");
    }
}

/// One seeded random change: an add (more likely while few obstacles are live), a move or a
/// removal of a live obstacle.
fn random_change(world: &mut DynamicMesh, base: &QueryMesh, rng: &mut SplitMix64, live: &mut Vec<ObstacleId>) {
    let op = if live.is_empty() { 0 } else { rng.below(if live.len() < 6 { 5 } else { 3 }) };
    match op {
        0 | 3 | 4 => live.push(world.add_obstacle(random_obstacle(base, rng)).expect("a valid obstacle")),
        1 => {
            let id = live[rng.below(live.len())];
            world.move_obstacle(id, random_obstacle(base, rng)).expect("a live obstacle");
        }
        _ => {
            let id = live.swap_remove(rng.below(live.len()));
            world.remove_obstacle(id).expect("a live obstacle");
        }
    }
}

/// `steps` seeded random changes on `nav`, checked after every update; then all removed.
fn random_sequence(name: &str, nav: NavMesh, seed: u64, steps: usize) -> (usize, usize) {
    let base_data = nav.data().clone();
    let mut world = DynamicMesh::new(nav);
    let base = world.base().clone();
    let mut rng = SplitMix64::new(seed);
    let mut live: Vec<ObstacleId> = Vec::new();
    let (mut most_carved, mut most_polygons) = (0, 0);
    for step in 0..steps {
        random_change(&mut world, &base, &mut rng, &mut live);
        let stats = world.update();
        assert!(stats.rejected.is_none(), "{name} step {step}: {stats:?}");
        // Every inserted point kept convex, every portal matched; no piece lost to rounding.
        assert_eq!((stats.unmatched_rings, stats.dropped_slivers), (0, 0), "{name} step {step}: {stats:?}");
        most_carved = most_carved.max(stats.carved_polygons);
        most_polygons = most_polygons.max(stats.polygons);
        check(name, step, &world, &mut rng, 4);
        same_answers(name, step, &world, 200, 10);
    }
    for id in live {
        world.remove_obstacle(id).expect("a live obstacle");
    }
    world.update();
    assert!(Arc::ptr_eq(world.mesh(), &base), "{name}: not the baked mesh after removing every obstacle");
    assert_eq!(world.mesh().mesh().data(), &base_data, "{name}: not the baked data");
    println!("{name}: at most {most_carved} baked polygons carved, {most_polygons} polygons");
    (most_carved, most_polygons)
}

#[test]
fn random_obstacles_on_an_untiled_level() {
    let (carved, _) = random_sequence("box_floor", bake("box_floor.glb", 0.0), 1, 80);
    assert!(carved > 0);
}

#[test]
fn random_obstacles_on_a_multi_layer_level() {
    let nav = bake("bridge.glb", 0.0);
    assert!(nav.polygons().map(|p| p.layer).max() > Some(0), "bridge.glb has layers");
    random_sequence("bridge", nav, 2, 80);
}

#[test]
fn random_obstacles_on_a_tiled_level() {
    let nav = bake("rooms.glb", 4.0);
    assert!(!nav.data().tiles.is_empty());
    random_sequence("rooms (4 m tiles)", nav, 3, 80);
}

#[test]
fn random_obstacles_on_a_level_with_links() {
    let nav = bake("links_gap.glb", 0.0);
    assert!(!nav.links().is_empty());
    random_sequence("links_gap", nav, 4, 60);
}

/// A bridge deck over a floor: an obstacle on the floor under the deck carves the floor only, one
/// on the deck carves the deck only.
#[test]
fn the_column_rule_leaves_other_floors_alone() {
    let nav = bake("bridge.glb", 0.0);
    let mut world = DynamicMesh::new(nav);
    let layer_of = |world: &DynamicMesh, id| {
        let mut layers: Vec<u16> =
            world.carved_by(id).expect("live").iter().map(|&p| world.base().mesh().polygon(p as usize).layer).collect();
        layers.dedup();
        layers
    };
    let square =
        |y: f64| Obstacle { polygon: vec![[-0.5, -0.5], [0.5, -0.5], [0.5, 0.5], [-0.5, 0.5]], y: [y - 0.1, y + 2.0] };
    let below = world.add_obstacle(square(0.0)).unwrap();
    let above = world.add_obstacle(square(3.0)).unwrap();
    let (lb, la) = (layer_of(&world, below), layer_of(&world, above));
    assert_eq!((lb.len(), la.len()), (1, 1), "{lb:?} {la:?}");
    assert_ne!(lb, la);
    world.remove_obstacle(above).unwrap();
    world.update();
    let near = |world: &DynamicMesh, y: f64| world.mesh().nearest_point([0.0, y, 0.0], [0.1, 0.5, 0.1]).is_ok();
    assert!(!near(&world, 0.0) && near(&world, 3.0), "the floor is carved under the deck, the deck is not");
    world.remove_obstacle(below).unwrap();
    world.add_obstacle(square(3.0)).unwrap();
    world.update();
    assert!(near(&world, 0.0) && !near(&world, 3.0), "the deck is carved, the floor under it is not");
}

/// Replays `steps` random changes (seeded `seed`) on fixture `name` baked in tiles of `tile` m
/// (0: untiled), checked after each but the last, and returns the carved mesh.
fn carved(name: &str, tile: f64, seed: u64, steps: usize) -> Arc<QueryMesh> {
    let mut world = DynamicMesh::new(bake(name, tile));
    let base = world.base().clone();
    let mut rng = SplitMix64::new(seed);
    let mut live: Vec<ObstacleId> = Vec::new();
    for step in 0..steps {
        random_change(&mut world, &base, &mut rng, &mut live);
        world.update();
        if step + 1 < steps {
            check(name, step, &world, &mut rng, 4);
        }
    }
    world.mesh().clone()
}

/// Asserts that `find_shortest_path` and `find_shortest_path_by_search` from `s` to `g` on
/// `mesh` give the layered oracle's length.
fn assert_oracle_length(mesh: &QueryMesh, s: [f64; 3], g: [f64; 3], what: &str) {
    let filter = QueryFilter::new().without_links();
    let (sl, gl) = (mesh.locate(s).unwrap(), mesh.locate(g).unwrap());
    let truth = LayeredOracle::new(mesh.mesh())
        .shortest(
            End::Point { polygon: sl.polygon, at: [s[0], s[2]] },
            End::Point { polygon: gl.polygon, at: [g[0], g[2]] },
        )
        .expect("reachable");
    let mut query = ShortestPathQuery::new(mesh);
    for by_search in [false, true] {
        let exact = if by_search {
            query.find_shortest_path_by_search(mesh, s, g, &filter)
        } else {
            query.find_shortest_path(mesh, s, g, &filter)
        };
        let length = exact.map(|p| p.length).unwrap_or(f64::INFINITY);
        assert!(
            (length - truth.length).abs() < 1e-9 * truth.length,
            "{what} (by search: {by_search}): {length} vs the oracle's {}",
            truth.length
        );
    }
}

/// Found by longer random sequences than the committed ones: an obstacle's side cut through many
/// baked polygons leaves a chain of vertices in line up to rounding, some of them corners by
/// 1e-17, and the way past the chain is a wedge thinner than one rounding step. The search
/// dropped such wedges (their rounded ends met, or the rounded crossing of one boundary fell
/// outside the other) and reported the goal unreachable where the oracle walks round the chain.
#[test]
fn exact_paths_pass_nearly_collinear_chains_of_carved_corners() {
    let cases = [
        (100, 16, [9.140009886165515, 0.0, -3.617243111667402], [-4.22354491161774, 0.0, -0.22737087411495457]),
        (21, 47, [-2.162572762245983, 0.0, -0.26305989794057544], [8.295874827610916, 0.0, -3.2184413649640873]),
    ];
    for (seed, steps, s, g) in cases {
        assert_oracle_length(&carved("rooms.glb", 4.0, seed, steps), s, g, &format!("rooms seed {seed}"));
    }
}

/// Found by the longer campaign after obstacles were cut as a bound and fans: a fan triangle
/// whose far edge passes within rounding of the corner the search turns at (bridge, seed 29),
/// and a sliver piece along a bounding line whose four corners are in line within 1e-15, its
/// portal passing within rounding of the corner (box_floor, seed 60). The search saw through
/// walls from the corner in the first (a turn's wedge boundary took its direction from an end
/// rounded to one ulp behind the corner: a path shorter than the oracle's) and, in the second,
/// mirrored a goal beyond the portal back onto the corner's side (the portal's side decided on
/// its rounded interval ends), overestimated the way through it and finished through a worse
/// node first. In the third (bridge, seed 195), a corner of a chain of slivers along an
/// obstacle's side lies within 1e-17 of the far edge of the sliver across: the crossing the
/// wedge's right boundary cut on that edge rounded beyond its left boundary, and the search
/// lost the wedge's mouth (a path 0.17 m longer than the oracle's).
#[test]
fn exact_paths_by_slivers_of_carved_fans() {
    let cases = [
        (
            "bridge.glb",
            29,
            47,
            [-0.8426860464165395, 0.0, 5.248493254064604],
            [9.934392877369017, 0.0, -1.2815849699891955],
        ),
        (
            "box_floor.glb",
            60,
            51,
            [-9.08365207686204, 0.0, -0.34425237112086876],
            [-3.5539361537125465, 0.0, 7.210757821711453],
        ),
        (
            "bridge.glb",
            195,
            41,
            [-2.984977411694189, 0.0, 6.564611469980596],
            [0.8660024239916293, 0.0, -11.129411341495732],
        ),
    ];
    for (name, seed, steps, s, g) in cases {
        assert_oracle_length(&carved(name, 0.0, seed, steps), s, g, &format!("{name} seed {seed}"));
    }
}

/// A crowd on a `DynamicMesh`: a crate dropped across the agents' way after they set off; after
/// `Crowd::set_mesh` they walk round it, never entering it (grown by the radius), and arrive.
#[test]
fn a_crowd_walks_round_an_obstacle_placed_in_its_way() {
    use meadow::crowd::{Crowd, CrowdConfig};
    use meadow::orca::AgentParams;
    let mut world =
        DynamicMesh::new(NavMesh::load(meadow_suite::repo_root().join("fixtures/assets/box_floor.nav")).unwrap());
    let mut crowd = Crowd::with_shared_mesh(world.mesh().clone(), CrowdConfig::default()).unwrap();
    let params = AgentParams {
        neighbor_dist: 5.0,
        max_neighbors: 10,
        time_horizon: 2.0,
        time_horizon_obst: 1.0,
        radius: 0.4,
        max_speed: 2.0,
    };
    for k in 0..3 {
        let z = 4.0 + k as f64;
        crowd.add_agent([-7.0, 0.0, z], [7.0, 0.0, z], params).unwrap();
    }
    for _ in 0..20 {
        crowd.step();
    }
    // A 2 × 4 m crate across all three lanes, ahead of every agent.
    assert!(crowd.positions().iter().all(|p| p[0] < -2.5), "{:?}", crowd.positions());
    let id = world
        .add_obstacle(Obstacle { polygon: vec![[-1.0, 3.0], [1.0, 3.0], [1.0, 7.0], [-1.0, 7.0]], y: [-0.1, 1.5] })
        .unwrap();
    world.update();
    crowd.set_mesh(world.mesh().clone()).unwrap();
    let dilated = world.dilated(id).unwrap().to_vec();
    let mut steps = 0;
    while !crowd.all_arrived() && steps < 2000 {
        crowd.step();
        steps += 1;
        for p in crowd.positions() {
            assert!(!deep_inside(&dilated, [p[0], p[2]], 1e-6), "an agent at {p:?} entered the obstacle");
        }
    }
    assert!(crowd.all_arrived(), "after {steps} steps: {:?}", crowd.positions());
}

/// links_gap.glb: an obstacle over the west end of the north jump (-1.6, 0, 3) disables that link
/// while it covers it; moved beside it, the link is back, attached to the piece under its end.
#[test]
fn a_covered_link_end_disables_the_link_while_covered() {
    let nav = bake("links_gap.glb", 0.0);
    let links = nav.links().len();
    let mut world = DynamicMesh::new(nav);
    let boxed =
        |x0: f64, x1: f64| Obstacle { polygon: vec![[x0, 2.5], [x1, 2.5], [x1, 3.5], [x0, 3.5]], y: [-0.1, 2.0] };
    let id = world.add_obstacle(boxed(-3.0, -2.0)).unwrap();
    let stats = world.update();
    assert_eq!((stats.disabled_links, world.mesh().mesh().links().len()), (1, links - 1), "{stats:?}");
    world.move_obstacle(id, boxed(-6.0, -4.5)).unwrap();
    let stats = world.update();
    assert!(stats.carved_polygons > 0);
    assert_eq!((stats.disabled_links, world.mesh().mesh().links().len()), (0, links), "{stats:?}");
    let mesh = world.mesh().clone();
    let path = ShortestPathQuery::new(&mesh)
        .find_shortest_path(&mesh, [-5.0, 0.0, -3.0], [5.0, 0.0, -3.0], &QueryFilter::new())
        .unwrap();
    assert_eq!(path.links.iter().map(|l| l.id).collect::<Vec<_>>(), vec![11], "the north jump: {:?}", path.points);
}

/// Links added to or removed from the base mesh at run time are carried into the carved mesh at
/// the next update, re-attached to the pieces, like the baked ones.
#[test]
fn links_changed_on_the_base_follow_into_the_carved_mesh() {
    let nav = bake("links_gap.glb", 0.0);
    let baked = nav.links().len();
    let mut world = DynamicMesh::new(nav);
    let base = world.base().clone();
    // An obstacle far from every link end, so that the mesh is carved and no link disabled.
    world
        .add_obstacle(Obstacle { polygon: vec![[-6.0, 2.5], [-4.5, 2.5], [-4.5, 3.5], [-6.0, 3.5]], y: [-0.1, 2.0] })
        .unwrap();
    assert_eq!(world.update().disabled_links, 0);
    assert!(!Arc::ptr_eq(world.mesh(), &base));
    let (s, g) = ([-5.0, 0.0, -3.0], [5.0, 0.0, -3.0]);
    let crossing = |world: &DynamicMesh| {
        let mesh = world.mesh().clone();
        ShortestPathQuery::new(&mesh).find_shortest_path(&mesh, s, g, &QueryFilter::new()).map(|p| p.links.len())
    };
    assert!(crossing(&world).is_ok(), "the baked jumps cross the gap");
    // Every baked link removed from the base: the carved mesh follows after the update.
    let ids: Vec<_> = base.links().iter().map(|(id, _)| id).collect();
    for id in ids {
        base.remove_link(id).unwrap();
    }
    assert_eq!(world.mesh().links().len(), baked, "not before the update");
    world.update();
    assert_eq!(world.mesh().links().len(), 0);
    assert!(crossing(&world).is_err(), "no way over the gap without links");
    // A jump added to the base at run time: carried over and taken.
    let mut spec = meadow::query::LinkSpec::new([-1.0, 0.0, -3.0], [1.0, 0.0, -3.0]);
    spec.id = 77;
    base.add_link(&spec).unwrap();
    world.update();
    assert_eq!(world.mesh().links().len(), 1);
    let mesh = world.mesh().clone();
    let path = ShortestPathQuery::new(&mesh).find_shortest_path(&mesh, s, g, &QueryFilter::new()).unwrap();
    assert_eq!(path.links.iter().map(|l| l.id).collect::<Vec<_>>(), vec![77], "{:?}", path.points);
}

/// More seeds on the two levels where long sequences found faults (unmatched rings on tiled and
/// layered levels, exact paths missing routes round chains of carved corners): 20 sequences of
/// 60 steps each, all checked as above.
#[test]
fn random_obstacles_on_more_seeds_of_tiled_and_layered_levels() {
    for seed in 10..20 {
        random_sequence("rooms (4 m tiles)", bake("rooms.glb", 4.0), seed, 60);
        random_sequence("bridge", bake("bridge.glb", 0.0), seed, 60);
    }
}

/// A longer campaign of the same seeded sequences (60 changes each) on four fixtures, for seeds
/// `CARVE_STRESS_FIRST` (default 100) onwards, `CARVE_STRESS_SEEDS` (default 10) of them:
/// `CARVE_STRESS_FIRST=10 CARVE_STRESS_SEEDS=140 cargo test --release --test carve -- --ignored stress`.
/// Every failing sequence is listed before the test fails.
#[test]
#[ignore = "a longer random campaign; run with --ignored"]
fn stress_random_obstacle_sequences() {
    let env = |name: &str, default: u64| std::env::var(name).ok().and_then(|s| s.parse().ok()).unwrap_or(default);
    let (first, count) = (env("CARVE_STRESS_FIRST", 100), env("CARVE_STRESS_SEEDS", 10));
    let mut failures = Vec::new();
    for seed in first..first + count {
        for (name, tile) in [("box_floor.glb", 0.0), ("bridge.glb", 0.0), ("rooms.glb", 4.0), ("links_gap.glb", 0.0)] {
            let nav = bake(name, tile);
            if let Err(e) = std::panic::catch_unwind(|| random_sequence(name, nav, seed, 60)) {
                let message = e.downcast_ref::<String>().cloned().unwrap_or_default();
                failures.push(format!("{name} seed {seed}: {message}"));
            }
        }
    }
    assert!(failures.is_empty(), "{} failing sequences:\n{}", failures.len(), failures.join("\n"));
}
