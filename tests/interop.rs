//! The optional `mint` and `serde` features, as the README shows them (the README's two
//! examples are the bodies of these tests: keep them in step).
//!
//! The suite's dev-dependency on `meadow` turns both features on, so `cargo test --workspace`
//! runs these.

use meadow::query::{PathQuery, QueryFilter, QueryMesh, ShortestPathQuery};
use meadow::NavMesh;

fn box_floor() -> QueryMesh {
    let bytes = include_bytes!(concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/assets/box_floor.nav"));
    QueryMesh::new(NavMesh::from_bytes(bytes).expect("the committed asset loads"))
}

#[test]
fn glam_vectors_go_in_directly_and_give_the_same_answers() -> Result<(), Box<dyn std::error::Error>> {
    let mesh = box_floor();
    // README: mint
    let (from, to) = (glam::DVec3::new(-5.0, 0.0, 0.0), glam::DVec3::new(5.0, 0.0, 0.0));
    let here = mesh.locate(from)?;
    let path = PathQuery::new(&mesh).find_path(&mesh, from, to, &QueryFilter::new())?;
    let corners: Vec<glam::DVec3> = path.points.iter().map(|&p| glam::DVec3::from(p)).collect();
    // README end

    assert_eq!(here, mesh.locate([-5.0, 0.0, 0.0])?);
    let arrays = PathQuery::new(&mesh).find_path(&mesh, [-5.0, 0.0, 0.0], [5.0, 0.0, 0.0], &QueryFilter::new())?;
    assert_eq!(path, arrays);
    assert_eq!(corners.first(), Some(&from));
    assert!(corners.len() > 2, "the path goes round the box");
    // mint's own types, and f32 vectors widened by the caller.
    let p = mint::Point3 { x: 3.0f64, y: 0.2, z: 3.0 };
    assert_eq!(mesh.locate(p)?.point, [3.0, 0.0, 3.0]);
    assert_eq!(mesh.locate(glam::Vec3::new(3.0, 0.2, 3.0).as_dvec3())?.polygon, mesh.locate(p)?.polygon);
    let mut visited = Vec::new();
    assert_eq!(mesh.raycast(from, to, &mut visited)?, mesh.raycast([-5.0, 0.0, 0.0], [5.0, 0.0, 0.0], &mut visited)?);
    Ok(())
}

#[test]
fn paths_and_query_results_round_trip_through_serde() -> Result<(), Box<dyn std::error::Error>> {
    let mesh = box_floor();
    // README: serde
    let (from, to) = ([-5.0, 0.0, 0.0], [5.0, 0.0, 0.0]);
    let path = ShortestPathQuery::new(&mesh).find_shortest_path(&mesh, from, to, &QueryFilter::new())?;
    let json = serde_json::to_string(&path)?;
    let back: meadow::Path = serde_json::from_str(&json)?;
    assert_eq!(back, path);
    // README end

    assert!(json.contains("\"points\"") && json.contains("\"length\""), "{json}");
    let location = mesh.locate([3.0, 0.2, 3.0])?;
    assert_eq!(serde_json::from_str::<meadow::query::Location>(&serde_json::to_string(&location)?)?, location);
    let mut visited = Vec::new();
    let ray = mesh.raycast(from, to, &mut visited)?;
    assert!(ray.hit.is_some());
    assert_eq!(serde_json::from_str::<meadow::query::RaycastResult>(&serde_json::to_string(&ray)?)?, ray);
    Ok(())
}
