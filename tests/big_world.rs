//! The generated open world (`meadow_testkit::world`) at about 100,000 triangles, baked with the
//! default settings: the smaller sibling of the million-triangle world measured in the notes.
//! Checks what a game expects of such a world: instancing and node transforms resolved, every
//! storey of every building reachable from outside by its stairs, cliff-sided plateaus cut off.

use meadow::query::{PathQuery, QueryFilter, QueryMesh};
use meadow::BakeSettings;
use meadow_testkit::world;

#[test]
fn a_generated_world_of_100k_triangles_bakes_with_reachable_storeys_and_unreachable_plateaus() {
    let w = world::generate(100_000);
    assert!(w.triangles >= 100_000, "{} triangles", w.triangles);
    assert!(w.props >= 1_000 && w.buildings.len() >= 2 && w.plateaus.len() >= 3);
    assert_eq!(world::generate(100_000).glb, w.glb, "the generator is deterministic");

    let dir = std::env::temp_dir().join(format!("meadow-big-world-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("world.glb");
    std::fs::write(&path, &w.glb).unwrap();
    let mut progress = meadow_suite::RecordingProgress::default();
    let scene = meadow_bake::ingest::ingest_file(&path, &mut progress).unwrap();
    std::fs::remove_dir_all(&dir).ok();
    // Every instance placed: the scene holds the world's triangles, props and buildings included.
    assert_eq!(scene.triangles.len(), w.triangles);

    let mesh = meadow_bake::bake(&scene, &BakeSettings::DEFAULT, &mut progress).unwrap();
    let mesh = QueryMesh::new(mesh);
    let filter = QueryFilter::new();
    let mut query = PathQuery::new(&mesh);
    for (k, b) in w.buildings.iter().enumerate() {
        for (storey, &p) in b.storey_points.iter().enumerate() {
            let goal = mesh.locate(p).unwrap_or_else(|e| panic!("building {k} storey {storey} at {p:?}: {e}"));
            assert!((goal.point[1] - p[1]).abs() < 0.05, "building {k} storey {storey} located at {:?}", goal.point);
            let route = query
                .find_path(&mesh, b.outside_door, p, &filter)
                .unwrap_or_else(|e| panic!("building {k}: no path from the door to storey {storey}: {e}"));
            let end = route.points.last().unwrap();
            assert!((end[1] - p[1]).abs() < 0.05, "building {k} storey {storey}: path ends at {end:?}");
            let top = route.points.iter().map(|q| q[1]).fold(f64::NEG_INFINITY, f64::max);
            assert!(top >= p[1] - 0.05, "building {k} storey {storey}: the path never climbs to it");
        }
    }
    for (k, plateau) in w.plateaus.iter().enumerate() {
        let top = mesh.locate(plateau.top).unwrap_or_else(|e| panic!("plateau {k} top: {e}"));
        // The terrain mesh interpolates the generator's heights linearly over 2 m cells.
        assert!(
            (top.point[1] - plateau.top[1]).abs() < 0.3,
            "plateau {k} at {:?} located at {:?}",
            plateau.top,
            top.point
        );
        let door = w.buildings[0].outside_door;
        assert!(query.find_path(&mesh, plateau.top, door, &filter).is_err(), "plateau {k}'s cliffs are walkable");
    }
}
