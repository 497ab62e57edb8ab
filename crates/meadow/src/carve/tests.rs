//! Unit tests of carving on hand-made meshes.

use super::*;
use crate::asset::NavMeshData;

fn square_obstacle(cx: f64, cz: f64, half: f64, y: [f64; 2]) -> Obstacle {
    Obstacle { polygon: vec![[cx - half, cz - half], [cx + half, cz - half], [cx + half, cz + half], [cx - half, cz + half]], y }
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
