//! A game's use of Meadow at run time: levels baked by `build.rs` are embedded in the binary,
//! loaded, asked for paths, and walked by a small crowd.

use meadow::crowd::{Crowd, CrowdConfig};
use meadow::orca::AgentParams;
use meadow::query::{PathQuery, QueryFilter, QueryMesh, ShortestPathQuery};
use meadow::NavMesh;
use std::error::Error;

static OPEN_FLOOR: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/open_floor.nav"));
static ROOMS: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/rooms.nav"));

fn main() -> Result<(), Box<dyn Error>> {
    let open_floor = QueryMesh::new(NavMesh::from_bytes(OPEN_FLOOR)?);
    let rooms = QueryMesh::new(NavMesh::from_bytes(ROOMS)?);
    for (name, mesh) in [("open_floor", &open_floor), ("rooms", &rooms)] {
        let nav = mesh.mesh();
        println!("{name}: {} polygons, {:.2} m² walkable", nav.polygon_count(), nav.total_area());
    }

    // Paths: A* with string pulling (fast), and the exact shortest path.
    let filter = QueryFilter::new();
    let routes = [
        ("open_floor", &open_floor, [-8.0, 0.0, -8.0], [8.0, 0.0, 8.0]),
        ("rooms", &rooms, [0.0, 0.0, -3.0], [10.0, 0.0, -3.0]),
        // Room A's doorway is 1 m wide, too narrow for a 0.6 m agent: no path.
        ("rooms", &rooms, [-10.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
    ];
    for (name, mesh, from, to) in routes {
        let found = PathQuery::new(mesh).find_path(mesh, from, to, &filter);
        let exact = ShortestPathQuery::new(mesh).find_shortest_path(mesh, from, to, &filter);
        match (found, exact) {
            (Ok(path), Ok(shortest)) => println!(
                "{name}: path {from:?} -> {to:?}: find_path {:.3} m ({} points), exact {:.3} m ({} points)",
                path.length,
                path.points.len(),
                shortest.length,
                shortest.points.len()
            ),
            (Err(e), _) | (_, Err(e)) => println!("{name}: path {from:?} -> {to:?}: none ({e})"),
        }
    }

    // A line of sight across the open floor, blocked by the box in its middle.
    let mut visited = Vec::new();
    let ray = open_floor.raycast([-8.0, 0.0, 0.0], [8.0, 0.0, 0.0], &mut visited)?;
    match ray.hit {
        Some(hit) => {
            println!("open_floor: raycast hits a wall at x = {:.3} after {} polygons", hit.point[0], visited.len())
        }
        None => println!("open_floor: raycast reaches its end"),
    }

    // Six agents cross the open floor, three each way.
    let mut crowd = Crowd::new(&open_floor, CrowdConfig::default())?;
    let params = AgentParams {
        neighbor_dist: 5.0,
        max_neighbors: 10,
        time_horizon: 2.0,
        time_horizon_obst: 1.0,
        radius: 0.5,
        max_speed: 2.0,
    };
    for z in [-2.5, 0.0, 2.5] {
        crowd.add_agent([-8.0, 0.0, z], [8.0, 0.0, z], params)?;
        crowd.add_agent([8.0, 0.0, z + 0.5], [-8.0, 0.0, z + 0.5], params)?;
    }
    while !crowd.all_arrived() && crowd.steps() < 2000 {
        crowd.step();
    }
    let arrived = (0..crowd.num_agents()).filter(|&a| crowd.arrived(a)).count();
    println!(
        "crowd: {arrived} of {} agents arrived in {} steps ({:.1} s)",
        crowd.num_agents(),
        crowd.steps(),
        crowd.steps() as f64 * f64::from(CrowdConfig::default().time_step)
    );
    Ok(())
}
