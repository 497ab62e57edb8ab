//! Crowd unit tests: agents on a sloped mesh with holes, a jump link, invalid input.

use super::*;
use crate::query::SplitMix64;
use crate::testmesh::{random_blocked, GridSpec};
use crate::NavMesh;

fn params() -> AgentParams {
    AgentParams {
        neighbor_dist: 4.0,
        max_neighbors: 8,
        time_horizon: 2.0,
        time_horizon_obst: 1.0,
        radius: 0.3,
        max_speed: 1.5,
    }
}

/// On a sloped grid with blocked cells (and no outlines, so no ORCA walls at all) the
/// keep-on-mesh move alone holds every agent on the surface, overlaps stay within the bound,
/// and everyone arrives.
#[test]
fn agents_stay_on_a_sloped_mesh_with_holes() {
    let spec = GridSpec {
        cols: 12,
        rows: 12,
        cell: 1.0,
        slope: [0.1, -0.05],
        blocked: random_blocked(12, 12, 0.2, 7),
        ..Default::default()
    };
    let mut data = spec.build();
    data.outlines.clear();
    let mesh = QueryMesh::new(NavMesh::new(data).unwrap());
    let mut crowd = Crowd::new(&mesh, CrowdConfig::default()).unwrap();
    let mut rng = SplitMix64::new(11);
    let mut starts: Vec<[f64; 3]> = Vec::new();
    while starts.len() < 12 {
        let p = mesh.random_point(&mut rng).unwrap().point;
        let clear = starts.iter().all(|q| len2([p[0] - q[0], p[2] - q[2]]) >= 0.6);
        if clear {
            starts.push(p);
        }
    }
    // Everyone walks to the start of the agent after it (a cyclic shift keeps goals apart).
    for (i, &s) in starts.iter().enumerate() {
        crowd.add_agent(s, starts[(i + 1) % starts.len()], params()).unwrap();
    }
    let mut steps = 0;
    while !crowd.all_arrived() {
        assert!(steps < 3000, "not all arrived");
        crowd.step();
        steps += 1;
        for (i, &p) in crowd.positions().iter().enumerate() {
            let at = mesh.locate(p).unwrap_or_else(|e| panic!("step {steps}: agent {i} at {p:?}: {e}"));
            assert!((at.point[1] - p[1]).abs() < 1e-9, "agent {i} off the surface");
        }
        assert!(crowd.max_overlap_ratio() <= 0.01, "step {steps}: overlap {}", crowd.max_overlap_ratio());
    }
}

/// A blocked column splits the grid; a one-way jump link crosses it. Every agent walks to
/// the take-off, moves along the link outside ORCA and lands on the far side; nobody ever
/// stands in the gap, and agents on the mesh keep the overlap bound.
#[test]
fn agents_cross_a_gap_by_a_jump_link() {
    let (cols, rows) = (12, 6);
    let blocked: Vec<bool> = (0..cols * rows).map(|i| i % cols == 5 || i % cols == 6).collect();
    let mesh = QueryMesh::new(NavMesh::new(GridSpec { cols, rows, blocked, ..Default::default() }.build()).unwrap());
    let spec = crate::query::LinkSpec {
        bidirectional: false,
        id: 9,
        ..crate::query::LinkSpec::new([4.8, 0.0, 3.0], [7.2, 0.0, 3.0])
    };
    mesh.add_link(&spec).unwrap();
    let mut crowd = Crowd::new(&mesh, CrowdConfig::default()).unwrap();
    for k in 0..6 {
        let z = 0.5 + k as f64;
        crowd.add_agent([1.0, 0.0, z], [10.5, 0.0, z], params()).unwrap();
    }
    let mut jumped = [false; 6];
    let mut steps = 0;
    while !crowd.all_arrived() {
        assert!(steps < 4000, "not all arrived: {:?}", crowd.positions());
        crowd.step();
        steps += 1;
        for (i, &p) in crowd.positions().iter().enumerate() {
            if crowd.on_link(i) {
                jumped[i] = true;
                assert!((p[2] - 3.0).abs() < 1e-9, "agent {i} off the link line at {p:?}");
            } else {
                assert!(mesh.locate(p).is_ok(), "step {steps}: agent {i} off the mesh at {p:?}");
            }
        }
        assert!(crowd.max_overlap_ratio() <= 0.01, "step {steps}: overlap {}", crowd.max_overlap_ratio());
    }
    assert_eq!(jumped, [true; 6], "every agent took the link");
}

#[test]
fn invalid_config_and_agents_are_rejected() {
    let mesh = QueryMesh::new(NavMesh::new(GridSpec { cols: 2, rows: 2, ..Default::default() }.build()).unwrap());
    let bad = CrowdConfig { goal_radius: f64::NAN, ..CrowdConfig::default() };
    assert!(matches!(Crowd::new(&mesh, bad), Err(CrowdError::InvalidConfig { .. })));
    let bad = CrowdConfig { time_step: 0.0, ..CrowdConfig::default() };
    assert!(matches!(Crowd::new(&mesh, bad), Err(CrowdError::Orca(_))));
    let mut crowd = Crowd::new(&mesh, CrowdConfig::default()).unwrap();
    let far = [50.0, 0.0, 50.0];
    assert!(matches!(crowd.add_agent(far, [0.5, 0.0, 0.5], params()), Err(CrowdError::StartOffMesh { .. })));
    assert!(matches!(crowd.add_agent([0.5, 0.0, 0.5], far, params()), Err(CrowdError::GoalOffMesh { .. })));
    let nan = [f64::NAN, 0.0, 0.0];
    assert!(matches!(crowd.add_agent(nan, [0.5, 0.0, 0.5], params()), Err(CrowdError::NonFinite { .. })));
    assert!(matches!(crowd.set_goal(3, [0.5, 0.0, 0.5]), Err(CrowdError::UnknownAgent { agent: 3 })));
    assert_eq!(crowd.num_agents(), 0);
}
