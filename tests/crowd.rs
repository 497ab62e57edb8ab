//! End-to-end: navmesh crowds on fixture levels. Every step, every agent must stand on the mesh
//! (its height on the surface) and no pair may overlap by more than 1% of its combined radius;
//! every agent must reach its goal; runs must not depend on the thread count.

use meadow::crowd::{Crowd, CrowdConfig};
use meadow::orca::AgentParams;
use meadow::query::QueryMesh;
use meadow::BakeSettings;
use meadow_suite::level;

fn bake(name: &str, radius: f64) -> QueryMesh {
    let mut s = BakeSettings::DEFAULT;
    s.radius = radius;
    let mesh = meadow_bake::bake_file(level(name), &s).unwrap_or_else(|e| panic!("{name}: {e}"));
    QueryMesh::new(mesh)
}

fn params(radius: f32) -> AgentParams {
    AgentParams {
        neighbor_dist: 5.0,
        max_neighbors: 10,
        time_horizon: 2.0,
        time_horizon_obst: 1.0,
        radius,
        max_speed: 1.5,
    }
}

/// Worst pair overlap as a fraction of the combined radius, and the smallest distance over
/// the combined radius (brute force, independent of the crowd's own sweep).
fn pair_figures(crowd: &Crowd<'_>) -> (f64, f64) {
    let p = crowd.positions();
    let mut worst = f64::NEG_INFINITY;
    let mut min_ratio = f64::INFINITY;
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            let sum = (crowd.agent_params(i).unwrap().radius + crowd.agent_params(j).unwrap().radius) as f64;
            let d = ((p[i][0] - p[j][0]).powi(2) + (p[i][2] - p[j][2]).powi(2)).sqrt();
            worst = worst.max((sum - d) / sum);
            min_ratio = min_ratio.min(d / sum);
        }
    }
    (worst, min_ratio)
}

/// Checks that every agent stands on the mesh surface.
fn check_on_mesh(mesh: &QueryMesh, crowd: &Crowd<'_>, step: usize) {
    for (i, &p) in crowd.positions().iter().enumerate() {
        let at = mesh.locate(p).unwrap_or_else(|e| panic!("step {step}: agent {i} at {p:?} off the mesh: {e}"));
        assert!((at.point[1] - p[1]).abs() < 1e-9, "step {step}: agent {i} at {p:?} not on the surface {:?}", at.point);
    }
}

struct Figures {
    steps: usize,
    worst_overlap: f64,
    min_distance_ratio: f64,
}

/// Runs until everyone arrived, checking the invariants after every step.
fn run_checked(mesh: &QueryMesh, crowd: &mut Crowd<'_>, max_steps: usize, name: &str) -> Figures {
    let mut worst_overlap = f64::NEG_INFINITY;
    let mut min_distance_ratio = f64::INFINITY;
    check_on_mesh(mesh, crowd, 0);
    while !crowd.all_arrived() {
        assert!(
            crowd.steps() < max_steps,
            "{name}: {} agents not arrived after {max_steps} steps: {:?}",
            (0..crowd.num_agents()).filter(|&i| !crowd.arrived(i)).count(),
            (0..crowd.num_agents()).filter(|&i| !crowd.arrived(i)).map(|i| crowd.positions()[i]).collect::<Vec<_>>()
        );
        crowd.step();
        check_on_mesh(mesh, crowd, crowd.steps());
        let (w, m) = pair_figures(crowd);
        assert!(w <= 0.01, "{name}: step {}: overlap {w} beyond 1%", crowd.steps());
        worst_overlap = worst_overlap.max(w);
        min_distance_ratio = min_distance_ratio.min(m);
    }
    eprintln!(
        "{name}: {} agents, {} steps, min pair distance / (r1 + r2) = {min_distance_ratio:.4}, max overlap ratio = {:.5}",
        crowd.num_agents(),
        crowd.steps(),
        worst_overlap.max(0.0)
    );
    Figures { steps: crowd.steps(), worst_overlap, min_distance_ratio }
}

#[test]
fn doorway_forces_a_queue() {
    // Rooms B -> C through the 2 m doorway at x = 5: radius-0.6 agents pass one at a time.
    let mesh = bake("rooms.glb", 0.6);
    let mut crowd = Crowd::new(&mesh, CrowdConfig::default()).unwrap();
    let mut k = 0;
    for row in 0..4 {
        for col in 0..3 {
            let start = [-3.0 + 1.6 * col as f64, 0.0, -2.4 + 1.6 * row as f64];
            let goal = [8.0 + 1.6 * col as f64, 0.0, -2.4 + 1.6 * row as f64];
            crowd.add_agent(start, goal, params(0.6)).unwrap();
            k += 1;
        }
    }
    assert_eq!(k, 12);
    let f = run_checked(&mesh, &mut crowd, 2000, "doorway queue");
    // Everyone went through the doorway one at a time, so the queue took longer than one agent
    // walking the longest route (about 11 m at 1.5 m/s, 74 steps).
    assert!(f.steps > 100, "{} steps: no queue", f.steps);
    assert!(f.worst_overlap <= 0.01 && f.min_distance_ratio >= 0.99);
}

#[test]
fn two_groups_crossing() {
    // In room B: one group walks west -> east, the other south -> north, crossing in the middle.
    let mesh = bake("rooms.glb", 0.6);
    let mut crowd = Crowd::new(&mesh, CrowdConfig::default()).unwrap();
    for a in 0..3 {
        for b in 0..3 {
            // Goals 1.25 m apart leave gaps wider than an agent (2r = 0.6 m) between those who
            // arrived first, so any arrival order works; the two goal blocks
            // [1.75, 4.25] x [-1.25, 1.25] and its mirror keep the groups apart.
            let (u, v) = (-4.0 + a as f64, -1.0 + b as f64);
            let (gu, gv) = (1.75 + 1.25 * a as f64, -1.25 + 1.25 * b as f64);
            crowd.add_agent([u, 0.0, v], [gu, 0.0, gv], params(0.3)).unwrap();
            crowd.add_agent([v, 0.0, u], [gv, 0.0, gu], params(0.3)).unwrap();
        }
    }
    let f = run_checked(&mesh, &mut crowd, 2000, "crossing");
    assert!(f.worst_overlap <= 0.01);
}

#[test]
fn corridor_both_ways() {
    // The 2 m L corridor baked for radius 0.3 (1.4 m of mesh): agents of radius 0.3 pass two
    // abreast, from both ends.
    let mesh = bake("corridor_l.gltf", 0.3);
    let mut crowd = Crowd::new(&mesh, CrowdConfig::default()).unwrap();
    let west: Vec<[f64; 3]> = (0..4).map(|i| [0.6 + 0.9 * i as f64, 0.0, if i % 2 == 0 { 0.6 } else { 1.4 }]).collect();
    let north: Vec<[f64; 3]> =
        (0..4).map(|i| [if i % 2 == 0 { 8.6 } else { 9.4 }, 0.0, 9.4 - 0.9 * i as f64]).collect();
    for i in 0..4 {
        crowd.add_agent(west[i], north[i], params(0.3)).unwrap();
        crowd.add_agent(north[i], west[i], params(0.3)).unwrap();
    }
    let f = run_checked(&mesh, &mut crowd, 2000, "corridor");
    assert!(f.worst_overlap <= 0.01);
}

/// Rooms B and C swap 128 agents (enough for the parallel ORCA phase to split the work).
fn swap_run(threads: usize, mesh: &QueryMesh) -> Vec<[f64; 3]> {
    let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
    pool.install(|| {
        let mut crowd = Crowd::new(mesh, CrowdConfig::default()).unwrap();
        for i in 0..64 {
            let (x, z) = (-4.0 + 1.1 * (i % 8) as f64, -4.0 + 1.1 * (i / 8) as f64);
            crowd.add_agent([x, 0.0, z], [x + 10.0, 0.0, z], params(0.4)).unwrap();
            crowd.add_agent([x + 10.0, 0.0, z], [x, 0.0, z], params(0.4)).unwrap();
        }
        let mut trace = Vec::new();
        for _ in 0..60 {
            crowd.step();
            trace.extend_from_slice(crowd.positions());
        }
        trace
    })
}

#[test]
fn deterministic_across_thread_counts() {
    let mesh = bake("rooms.glb", 0.4);
    let one = swap_run(1, &mesh);
    let two = swap_run(2, &mesh);
    assert_eq!(one.len(), two.len());
    for (k, (a, b)) in one.iter().zip(&two).enumerate() {
        assert!(a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()), "entry {k}: {a:?} vs {b:?}");
    }
}

/// `links_gap.glb`: agents on the west floor with goals on the east floor, which only the jump
/// links reach. Every agent walks to a take-off, moves along the link (off the mesh, on the
/// segment between the link's ends), lands and arrives; agents on the mesh stay on it and keep
/// the overlap bound.
#[test]
fn crowd_agents_cross_the_gap_by_the_jump_links() {
    let mesh = bake("links_gap.glb", 0.6);
    let links: Vec<_> = mesh.links().iter().map(|(_, l)| *l).collect();
    assert_eq!(links.len(), 2);
    let mut crowd = Crowd::new(&mesh, CrowdConfig::default()).unwrap();
    let count = 8;
    for k in 0..count {
        let z = -3.5 + k as f64;
        crowd.add_agent([-8.0, 0.0, z], [8.0, 0.0, -z], params(0.3)).unwrap();
    }
    let mut jumped = vec![false; count];
    let mut steps = 0;
    while !crowd.all_arrived() {
        assert!(steps < 3000, "not all arrived after {steps} steps: {:?}", crowd.positions());
        crowd.step();
        steps += 1;
        for (i, &p) in crowd.positions().iter().enumerate() {
            if crowd.on_link(i) {
                jumped[i] = true;
                // On the segment between some link's ends (XZ), within rounding.
                let on_segment = links.iter().any(|l| {
                    let (a, b) = ([l.start[0], l.start[2]], [l.end[0], l.end[2]]);
                    meadow::geom::point_segment_distance([p[0], p[2]], a, b) < 1e-9
                });
                assert!(on_segment, "step {steps}: agent {i} on a link but off its segment at {p:?}");
            } else {
                let at =
                    mesh.locate(p).unwrap_or_else(|e| panic!("step {steps}: agent {i} off the mesh at {p:?}: {e}"));
                assert!((at.point[1] - p[1]).abs() < 1e-6, "step {steps}: agent {i} off the surface");
            }
        }
        let (worst, _) = pair_figures(&crowd);
        let on_mesh_worst = if (0..count).any(|i| crowd.on_link(i)) { crowd.max_overlap_ratio() } else { worst };
        assert!(on_mesh_worst <= 0.01, "step {steps}: overlap {on_mesh_worst}");
    }
    assert!(jumped.iter().all(|&j| j), "every agent took a link: {jumped:?}");
}

/// Worst overlap ratio among pairs on one layer (heights within `band`), brute force.
fn layered_overlap(crowd: &Crowd<'_>, band: f64) -> f64 {
    let p = crowd.positions();
    let mut worst = f64::NEG_INFINITY;
    for i in 0..p.len() {
        for j in i + 1..p.len() {
            if (p[i][1] - p[j][1]).abs() > band {
                continue;
            }
            let sum = (crowd.agent_params(i).unwrap().radius + crowd.agent_params(j).unwrap().radius) as f64;
            let d = ((p[i][0] - p[j][0]).powi(2) + (p[i][2] - p[j][2]).powi(2)).sqrt();
            worst = worst.max((sum - d) / sum);
        }
    }
    worst
}

/// `bridge.glb` (a deck 3 m up over a floor that runs on under it): two agents cross the deck
/// while 8 agents walk the floor right under it, both ways along it. Returns the bridge agents'
/// positions after every step until they arrive (`with_road`: whether the floor crowd is there).
/// `None` when the bridge agents have not both arrived after 600 steps.
fn bridge_run(mesh: &QueryMesh, config: CrowdConfig, with_road: bool) -> Option<Vec<[[f64; 3]; 2]>> {
    let mut crowd = Crowd::new(mesh, config).unwrap();
    // On the ramps' upper ends (2.5 m up), heading for the other end.
    let a = crowd.add_agent([-4.0, 2.5, 0.0], [4.0, 2.5, 0.0], params(0.3)).unwrap();
    let b = crowd.add_agent([4.0, 2.5, 0.3], [-4.0, 2.5, 0.3], params(0.3)).unwrap();
    if with_road {
        // The floor right under the deck, between the ramps' feet, walked end to end both ways.
        for k in 0..4 {
            let z = -0.9 + 0.6 * k as f64;
            crowd.add_agent([-2.4, 0.0, z], [2.4, 0.0, z], params(0.25)).unwrap();
            crowd.add_agent([2.4, 0.0, z + 0.3], [-2.4, 0.0, z + 0.3], params(0.25)).unwrap();
        }
    }
    let band = mesh.mesh().settings().height;
    let mut trace = Vec::new();
    while !(crowd.arrived(a) && crowd.arrived(b)) {
        if crowd.steps() >= 600 {
            return None;
        }
        crowd.step();
        check_on_mesh(mesh, &crowd, crowd.steps());
        let w = layered_overlap(&crowd, band);
        assert!(w <= 0.01, "step {}: overlap {w} beyond 1% on one layer", crowd.steps());
        trace.push([crowd.positions()[a], crowd.positions()[b]]);
    }
    if with_road {
        while !crowd.all_arrived() {
            assert!(
                crowd.steps() < 3000,
                "road agents did not arrive: {:?}",
                (0..crowd.num_agents())
                    .filter(|&i| !crowd.arrived(i))
                    .map(|i| (crowd.positions()[i], crowd.goal(i)))
                    .collect::<Vec<_>>()
            );
            crowd.step();
            check_on_mesh(mesh, &crowd, crowd.steps());
            assert!(layered_overlap(&crowd, band) <= 0.01, "step {}: overlap beyond 1%", crowd.steps());
        }
    }
    Some(trace)
}

/// Agents on a bridge neither avoid the agents on the floor under them nor the floor's walls:
/// their every position is bit for bit the same with and without a crowd walking right under
/// them, and they stay on the deck. With one plane for all (no layer band, the behaviour before
/// layers) the floor's wall under the deck's end stops them, so the test can tell.
#[test]
fn bridge_agents_ignore_the_crowd_and_walls_below() {
    let mesh = bake("bridge.glb", 0.3);
    let alone = bridge_run(&mesh, CrowdConfig::default(), false).expect("bridge agents arrive alone");
    let over_road = bridge_run(&mesh, CrowdConfig::default(), true).expect("bridge agents arrive over the road");
    assert_eq!(alone.len(), over_road.len(), "steps to cross the bridge");
    for (step, (a, b)) in alone.iter().zip(&over_road).enumerate() {
        for k in 0..2 {
            assert!(
                a[k].iter().zip(&b[k]).all(|(x, y)| x.to_bits() == y.to_bits()),
                "step {step}: bridge agent {k} at {:?} over the road, {:?} alone",
                b[k],
                a[k]
            );
            assert!(a[k][1] >= 2.5, "step {step}: bridge agent {k} left the deck: {:?}", a[k]);
        }
    }
    let flat = CrowdConfig { layer_band: Some(f64::INFINITY), ..CrowdConfig::default() };
    assert!(
        bridge_run(&mesh, flat, false).is_none(),
        "in one plane the floor's walls under the deck's ends should have stopped the bridge agents"
    );
    eprintln!("bridge: crossed in {} steps, alone and over the road alike", alone.len());
}

/// `bridge.glb`'s ramps: agents walk up the ramps onto the deck and down them to the floor,
/// both ways at once on both ramps, with a crowd on the floor at the ramps' feet; every step
/// everyone stands on the surface and no two agents on one layer overlap by more than 1%.
#[test]
fn agents_climbing_between_layers_keep_the_overlap_bound() {
    let mesh = bake("bridge.glb", 0.3);
    let mut crowd = Crowd::new(&mesh, CrowdConfig::default()).unwrap();
    // The ramps rise from 0 at |x| = 9 to 3 at |x| = 3; walkers start and end 0.5 m up (the
    // mesh's outline at the very foot of a ramp makes a wall there; see the report of the
    // change that added this test).
    for k in 0..4 {
        let z = -0.9 + 0.6 * k as f64;
        // Up a ramp onto the deck, and from the deck down the other ramp.
        let (up, down) = if k % 2 == 0 { (-8.0, 8.0) } else { (8.0, -8.0) };
        crowd.add_agent([up, 0.5, z], [0.5 * up / 8.0, 3.0, -z], params(0.25)).unwrap();
        crowd.add_agent([-0.5 * up / 8.0, 3.0, z + 0.3], [down, 0.5, -z - 0.3], params(0.25)).unwrap();
        // Floor agents walking along the ramps' sides, both ways.
        let lane = 2.8 + 0.7 * (k / 2) as f64;
        let side = if k % 2 == 0 { -lane } else { lane };
        crowd.add_agent([-11.0, 0.0, side], [-4.5, 0.0, side], params(0.25)).unwrap();
        crowd.add_agent([4.5, 0.0, -side], [11.0, 0.0, -side], params(0.25)).unwrap();
    }
    let band = mesh.mesh().settings().height;
    let mut climbed = [false; 8];
    while !crowd.all_arrived() {
        assert!(
            crowd.steps() < 3000,
            "not all arrived: {:?}",
            (0..crowd.num_agents())
                .filter(|&i| !crowd.arrived(i))
                .map(|i| (i, crowd.positions()[i], crowd.goal(i)))
                .collect::<Vec<_>>()
        );
        crowd.step();
        check_on_mesh(&mesh, &crowd, crowd.steps());
        let w = layered_overlap(&crowd, band);
        assert!(w <= 0.01, "step {}: overlap {w} beyond 1% on one layer", crowd.steps());
        for k in 0..4 {
            for (slot, agent) in [(2 * k, 4 * k), (2 * k + 1, 4 * k + 1)] {
                let y = crowd.positions()[agent][1];
                // Up walkers reach the deck; down walkers the foot of the other ramp (their goal
                // is 0.5 m up a 1:2 ramp, and an agent within the goal radius of 0.25 m of it
                // stands at most 0.625 m up: 1 m is well off the deck at 3 m).
                climbed[slot] |= if slot % 2 == 0 { y > 2.9 } else { y < 1.0 };
            }
        }
    }
    assert!(climbed.iter().all(|&c| c), "every ramp walker changed floors: {climbed:?}");
}
