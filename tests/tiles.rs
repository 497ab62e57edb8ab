//! Tiled bakes (`tile_size > 0`): tiled and untiled bakes of the same level agree (walkable area,
//! reachability, exact path lengths), tile borders are portals, the bytes do not depend on the
//! thread count, an incremental bake after moving a prop equals a full bake, and four quarter
//! bakes merged equal the full bake, byte for byte.

use meadow::query::{PathQuery, QueryFilter, QueryMesh, ShortestPathQuery, SplitMix64};
use meadow::{BakeSettings, EdgeLink, NavMesh};
use meadow_bake::ingest::{self, Scene};
use meadow_bake::tiles::{border, TileRange};
use meadow_bake::{BakeError, BakeOptions, NoProgress};
use meadow_suite::level;

fn tiled(size: f64) -> BakeSettings {
    let mut s = BakeSettings::DEFAULT;
    s.tile_size = size;
    s
}

fn scene(name: &str) -> Scene {
    scene_at(&level(name))
}

fn scene_at(path: &std::path::Path) -> Scene {
    ingest::ingest_file(path, &mut NoProgress).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn bake(scene: &Scene, settings: &BakeSettings) -> NavMesh {
    meadow_bake::bake(scene, settings, &mut NoProgress).unwrap_or_else(|e| panic!("bake: {e}"))
}

/// XZ length of a polyline (what exact paths minimise; heights follow the polygons' planes,
/// which differ between the two bakes).
fn flat(points: &[[f64; 3]]) -> f64 {
    points.windows(2).map(|w| (w[1][0] - w[0][0]).hypot(w[1][2] - w[0][2])).sum()
}

/// Distance from `p` to segment `a b` in XZ.
fn to_segment(p: [f64; 2], a: [f64; 2], b: [f64; 2]) -> f64 {
    meadow::geom::point_segment_distance(p, a, b)
}

/// The wall edges of `nav` that lie on a side of their polygon's tile, as XZ segments.
fn border_walls(nav: &NavMesh) -> Vec<([f64; 2], [f64; 2])> {
    let d = nav.data();
    let size = d.settings.tile_size;
    let xz = |v: u32| [d.vertices[v as usize][0], d.vertices[v as usize][2]];
    let mut out = Vec::new();
    for t in &d.tiles {
        let sides =
            [(0, border(t.x, size)), (0, border(t.x + 1, size)), (1, border(t.z, size)), (1, border(t.z + 1, size))];
        for p in t.first_polygon..t.first_polygon + t.polygon_count {
            let poly = nav.polygon(p as usize);
            for k in 0..poly.vertices.len() {
                let (a, b) = (xz(poly.vertices[k]), xz(poly.vertices[(k + 1) % poly.vertices.len()]));
                let on_side = sides.iter().any(|&(axis, c)| a[axis] == c && b[axis] == c);
                if on_side && poly.links[k] == EdgeLink::Wall {
                    out.push((a, b));
                }
            }
        }
    }
    out
}

/// An XZ segment.
type Segment = ([f64; 2], [f64; 2]);

/// The edges of `nav`'s boundary outlines and their corners, in XZ.
fn outline(nav: &NavMesh) -> (Vec<Segment>, Vec<[f64; 2]>) {
    let p = |v: u32| [nav.vertices()[v as usize][0], nav.vertices()[v as usize][2]];
    let edges = nav
        .outlines()
        .iter()
        .flat_map(|o| {
            let v = &o.vertices;
            (0..v.len()).map(move |k| (v[k], v[(k + 1) % v.len()]))
        })
        .map(|(a, b)| (p(a), p(b)))
        .collect();
    let corners = nav.outlines().iter().flat_map(|o| o.vertices.iter().map(|&v| p(v))).collect();
    (edges, corners)
}

/// Compares the tiled bake of a fixture level with its untiled bake on `pairs` random pairs:
/// returns the largest relative difference of exact path lengths.
fn compare(name: &str, size: f64, pairs: usize) -> f64 {
    compare_scene(name, &scene(name), size, pairs)
}

/// [`compare`] on a loaded scene.
fn compare_scene(name: &str, scene: &Scene, size: f64, pairs: usize) -> f64 {
    let untiled = bake(scene, &BakeSettings::DEFAULT);
    let tiled_mesh = bake(scene, &tiled(size));
    assert!(tiled_mesh.data().tiles.len() > 1, "{name}: {size} m tiles make one tile");
    let reloaded = NavMesh::from_bytes(&tiled_mesh.to_bytes()).unwrap_or_else(|e| panic!("{name}: reload: {e}"));
    assert_eq!(reloaded, tiled_mesh);
    // The tiles cover the untiled area (up to the rounding of the area sums).
    let (au, at) = (untiled.total_area(), tiled_mesh.total_area());
    assert!((au - at).abs() <= 1e-9 * au, "{name}: area untiled {au} tiled {at}");
    let (outline_edges, untiled_corners) = outline(&untiled);
    let (tiled_edges, tiled_corners) = outline(&tiled_mesh);
    // The boundaries are the same: every corner of either lies on the other's boundary, up to
    // rounding (the tiled one adds corners where tile borders cut edges, and each splits long
    // edges at its own midpoints).
    for (corners, edges, what) in [
        (&untiled_corners, &tiled_edges, "untiled corner off the tiled"),
        (&tiled_corners, &outline_edges, "tiled corner off the untiled"),
    ] {
        for &p in corners {
            let near = edges.iter().map(|&(a, b)| to_segment(p, a, b)).fold(f64::INFINITY, f64::min);
            assert!(near <= 1e-12, "{name}: {what} boundary: {p:?} by {near} m");
        }
    }
    for (a, b) in border_walls(&tiled_mesh) {
        let mid = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
        let near = outline_edges.iter().map(|&(p, q)| to_segment(mid, p, q)).fold(f64::INFINITY, f64::min);
        assert!(near <= 0.011, "{name}: tile border wall {a:?}-{b:?} is {near} m from any untiled wall");
    }
    let (mu, mt) = (QueryMesh::new(untiled), QueryMesh::new(tiled_mesh));
    let filter = QueryFilter::new().without_links();
    let (mut pu, mut pt) = (PathQuery::new(&mu), PathQuery::new(&mt));
    let (mut su, mut st) = (ShortestPathQuery::new(&mu), ShortestPathQuery::new(&mt));
    let mut rng = SplitMix64::new(11);
    let mut worst = 0.0f64;
    for _ in 0..pairs {
        let s = mu.random_point(&mut rng).unwrap().point;
        let g = mu.random_point(&mut rng).unwrap().point;
        let (a, b) = (pu.find_path(&mu, s, g, &filter), pt.find_path(&mt, s, g, &filter));
        assert_eq!(a.is_ok(), b.is_ok(), "{name}: {s:?} -> {g:?}: untiled {a:?}, tiled {b:?}");
        let (a, b) = (su.find_shortest_path(&mu, s, g, &filter), st.find_shortest_path(&mt, s, g, &filter));
        assert_eq!(a.is_ok(), b.is_ok(), "{name}: {s:?} -> {g:?}: exact untiled {a:?}, tiled {b:?}");
        if let (Ok(a), Ok(b)) = (a, b) {
            let (la, lb) = (flat(&a.points), flat(&b.points));
            worst = worst.max((la - lb).abs() / la.max(1e-6));
        }
    }
    worst
}

#[test]
fn tiled_and_untiled_bakes_cover_the_same_area_and_give_the_same_exact_paths() {
    // 8 m tiles cut these 10-30 m levels into 4-16 tiles through rooms, doors, ramps and a
    // bridge. The boundaries are the same, so exact lengths agree up to rounding (measured
    // equal on every pair).
    for name in
        ["rooms.glb", "halls.glb", "ramps.glb", "bridge.glb", "tagged.glb", "corridor_l.gltf", "open_floor.gltf"]
    {
        let worst = compare(name, 8.0, 200);
        assert!(worst <= 1e-9, "{name}: exact path lengths differ by {worst:e} relative");
    }
}

/// [`compare`] on a third-party level (`levels/<level>` beside the repository), with 16 m tiles.
///
/// Known bug: on every shared level the tiled walkable area still differs from the untiled one
/// (16 m tiles; relative difference collision-world 2.7e-6, dungeon 1.4e-6, nav_test 2.7e-7,
/// undulating 3.3e-9), spread over many tiles by a few square millimetres each. The fixtures
/// above and navcat-proto-level agree exactly. On dungeon the corners that differ (by up to
/// 4.8 mm) lie 2 to 6 m inside their tiles, not on borders, and the difference is there before
/// simplification: in tile (0, -5) the untiled region ring runs through five vertices over
/// 0.2 m near (13.8, -79.2) where the tile's has one edge, within the arc tolerance of it.
/// Neither the frame origin (every bake on one origin at (0, 0) gives the same differences) nor
/// the snap radius growth (`SNAP_RADIUS_GROWTH` 1 instead of 6: the same) is the cause. On
/// collision-world (tile (2, -3), near x = 35.05, z -46.2 to -26.9) the layer's dilated blockers
/// and dilated walls both have the edge x = 35.05322 there, in the tile and untiled alike; the
/// difference `eroded - blockers - walls` of the whole level puts its free edge one and two grid
/// units east of it at the two ends of a 19 m edge, so the edge runs slanted, while the tile's
/// follows x = 35.05322 exactly. The overlay's rounding where the two nearly coincident inputs
/// meet is decided at the ends of the long edges, and those ends lie where the inputs end, which
/// differs between a tile's input and the level's: a long edge carries a unit of rounding at
/// one end along its whole length. Splitting the difference's three inputs at a 1 m world-aligned
/// grid before it (a trial, not kept) cut the area differences (collision-world 0.030 to
/// 0.014 m², dungeon 0.0024 to 0.0007 m², undulating 3.9e-4 to 3.6e-4 m²) without removing them;
/// splitting the inputs of every boolean and offset of the layer's free area the same way made
/// them larger (dungeon 2.3 m²), so plain edge splitting is not the fix.
fn third_party(level: &str, size: f64) {
    let path = meadow_suite::third_party_dir().join("levels").join(level);
    let worst = compare_scene(level, &scene_at(&path), size, 1000);
    assert!(worst <= 1e-9, "{level}: exact path lengths differ by {worst:e} relative");
}

#[test]
#[ignore = "known bug: tiled and untiled boundaries differ by fractions of a millimetre (see below)"]
fn known_bug_tiled_collision_world_gives_the_same_exact_paths() {
    third_party("gltf/collision-world.glb", 16.0);
}

#[test]
#[ignore = "needs the third-party levels"]
fn tiled_navcat_proto_level_gives_the_same_exact_paths() {
    third_party("gltf/navcat-proto-level.glb", 16.0);
}

#[test]
#[ignore = "known bug: tiled and untiled boundaries differ by fractions of a millimetre (see below)"]
fn known_bug_tiled_dungeon_gives_the_same_exact_paths() {
    third_party("recast/dungeon.glb", 16.0);
}

#[test]
#[ignore = "known bug: tiled and untiled boundaries differ by fractions of a millimetre (see below)"]
fn known_bug_tiled_nav_test_gives_the_same_exact_paths() {
    third_party("recast/nav_test.glb", 16.0);
}

#[test]
#[ignore = "known bug: tiled and untiled boundaries differ by fractions of a millimetre (see below)"]
fn known_bug_tiled_undulating_gives_the_same_exact_paths() {
    third_party("recast/undulating.glb", 16.0);
}

/// An up-facing triangle (counter-clockwise seen from above).
fn up(a: [f64; 3], b: [f64; 3], c: [f64; 3]) -> meadow_bake::ingest::SceneTriangle {
    let ny = (b[2] - a[2]) * (c[0] - a[0]) - (b[0] - a[0]) * (c[2] - a[2]);
    let vertices = if ny > 0.0 { [a, b, c] } else { [a, c, b] };
    meadow_bake::ingest::SceneTriangle { vertices, tag: meadow_bake::ingest::NavTag::Auto, area: 0, node: 0 }
}

/// An empty scene of one node with the fixtures' area types, for triangles a test adds.
fn synthetic_scene() -> Scene {
    Scene {
        areas: scene("rooms.glb").areas,
        nodes: vec!["level".into()],
        node_positions: vec![[0.0; 3]],
        ..Scene::default()
    }
}

#[test]
fn a_ramp_over_a_floor_walls_the_floor_alike_in_every_tile() {
    // A floor of 1 m squares and a 30 m ramp over it, 1.2 m up at its foot (more than the climb,
    // less than the agent's height: a ceiling over the floor there) and 8 m up at its head. The
    // ramp's drop edges are walls on the floor all along it in the untiled bake; the tile at
    // its head holds none of the floor under its foot, and must wall the floor alike.
    let mut scene = synthetic_scene();
    for i in -5..35 {
        for k in -3..9 {
            let (x, z) = (i as f64, k as f64);
            scene.triangles.push(up([x, 0.0, z], [x + 1.0, 0.0, z], [x + 1.0, 0.0, z + 1.0]));
            scene.triangles.push(up([x, 0.0, z], [x + 1.0, 0.0, z + 1.0], [x, 0.0, z + 1.0]));
        }
    }
    let (foot, head) = (1.2, 8.0);
    scene.triangles.push(up([0.0, foot, 2.0], [30.0, head, 2.0], [30.0, head, 4.0]));
    scene.triangles.push(up([0.0, foot, 2.0], [30.0, head, 4.0], [0.0, foot, 4.0]));
    let worst = compare_scene("ramp over a floor", &scene, 8.0, 200);
    assert!(worst <= 1e-9, "exact path lengths differ by {worst:e} relative");
}

#[test]
fn a_floor_running_into_a_ramp_keeps_its_height_in_every_tile() {
    // A 16 x 20 m floor at height 0 running into a 6 m ramp 4 m up (34 degrees), then a landing.
    // Tile borders and long sides cross the ramp's foot: an edge from the floor to the ramp
    // would stand for a line up to 1.3 m above the floor, past the climb, and points of the
    // floor under it would be off the mesh. Every point of both meshes is within the climb of
    // the surface, and the two bakes agree.
    let mut scene = synthetic_scene();
    let surface = |z: f64| ((z - 20.0) * 4.0 / 6.0).clamp(0.0, 4.0);
    let rows = [0.0, 20.0, 26.0, 30.0];
    for w in rows.windows(2) {
        let (z0, z1) = (w[0], w[1]);
        let (y0, y1) = (surface(z0), surface(z1));
        scene.triangles.push(up([0.0, y0, z0], [16.0, y0, z0], [16.0, y1, z1]));
        scene.triangles.push(up([0.0, y0, z0], [16.0, y1, z1], [0.0, y1, z1]));
    }
    let settings = BakeSettings::DEFAULT;
    for size in [0.0, 8.0] {
        let mesh = QueryMesh::new(bake(&scene, &tiled(size)));
        let mut rng = SplitMix64::new(5);
        for _ in 0..2000 {
            let p = mesh.random_point(&mut rng).unwrap().point;
            let off = p[1] - surface(p[2]);
            assert!(off.abs() <= settings.max_climb, "{size} m tiles: {p:?} is {off} m off the surface");
        }
    }
    let worst = compare_scene("floor into a ramp", &scene, 8.0, 200);
    assert!(worst <= 1e-9, "exact path lengths differ by {worst:e} relative");
}

#[test]
fn tiled_bakes_are_the_same_bytes_for_any_thread_count() {
    let scene = scene("ramps.glb");
    let with = |threads: usize| {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
        pool.install(|| bake(&scene, &tiled(4.0)).to_bytes())
    };
    let one = with(1);
    assert_eq!(one, with(3));
    assert_eq!(one, with(2));
}

/// The world generator's small world (about 20,000 triangles, 170 m across).
fn small_world() -> Scene {
    let w = meadow_testkit::world::generate(20_000);
    ingest::ingest_slice(&w.glb, std::path::Path::new("world.glb"), &mut NoProgress).unwrap()
}

/// `scene` with every triangle of the first node whose name starts with `prefix` moved by `dx`
/// along x.
fn moved(scene: &Scene, prefix: &str, dx: f64) -> Scene {
    let node = scene.nodes.iter().position(|n| n.starts_with(prefix)).expect("such a node") as u32;
    let mut out = scene.clone();
    let mut moved = 0;
    for t in out.triangles.iter_mut().filter(|t| t.node == node) {
        t.vertices.iter_mut().for_each(|v| v[0] += dx);
        moved += 1;
    }
    assert!(moved > 0);
    out
}

#[test]
fn an_incremental_bake_after_moving_a_prop_equals_a_full_bake() {
    let before = small_world();
    let settings = tiled(32.0);
    let old = bake(&before, &settings);
    let after = moved(&before, "crate_", 1.5);
    let full = bake(&after, &settings);
    assert_ne!(full.to_bytes(), old.to_bytes(), "moving the crate changes the mesh");
    let options = BakeOptions { previous: Some(&old), ..BakeOptions::default() };
    let incremental = meadow_bake::bake_with(&after, &settings, options, &mut NoProgress).unwrap();
    assert_eq!(incremental.to_bytes(), full.to_bytes());
    // Only the tiles around the crate were baked again.
    let unchanged = full
        .data()
        .tiles
        .iter()
        .zip(&old.data().tiles)
        .filter(|(a, b)| (a.x, a.z, a.hash) == (b.x, b.z, b.hash))
        .count();
    let tiles = full.data().tiles.len();
    assert!(tiles >= 25 && unchanged + 4 >= tiles, "{unchanged} of {tiles} tiles unchanged");
    // Other settings: the previous asset's tiles are not taken.
    let mut other = settings.clone();
    other.radius = 0.5;
    let options = BakeOptions { previous: Some(&old), ..BakeOptions::default() };
    let rebaked = meadow_bake::bake_with(&after, &other, options, &mut NoProgress).unwrap();
    assert_eq!(rebaked.to_bytes(), bake(&after, &other).to_bytes());
}

#[test]
fn four_quarter_bakes_merged_equal_the_full_bake() {
    let scene = scene("rooms.glb");
    let settings = tiled(4.0);
    let full = bake(&scene, &settings);
    let (x, z) =
        (full.data().tiles.iter().map(|t| t.x).max().unwrap(), full.data().tiles.iter().map(|t| t.z).max().unwrap());
    let (xm, zm) = (x / 2, z / 2);
    let quarters = [
        TileRange { columns: (i32::MIN, xm), rows: (i32::MIN, zm) },
        TileRange { columns: (xm + 1, i32::MAX), rows: (i32::MIN, zm) },
        TileRange { columns: (i32::MIN, xm), rows: (zm + 1, i32::MAX) },
        TileRange { columns: (xm + 1, i32::MAX), rows: (zm + 1, i32::MAX) },
    ];
    let parts: Vec<NavMesh> = quarters
        .iter()
        .map(|&r| {
            let part = meadow_bake::bake_with(
                &scene,
                &settings,
                BakeOptions { tiles: Some(r), previous: None },
                &mut NoProgress,
            )
            .unwrap();
            // A part is a valid mesh of its tiles, saved and loaded like any asset.
            NavMesh::from_bytes(&part.to_bytes()).unwrap()
        })
        .collect();
    assert!(parts.iter().all(|p| p.data().partial.is_some() && !p.data().tiles.is_empty()));
    // Any order of the parts.
    let merged =
        meadow_bake::merge(&[parts[2].clone(), parts[0].clone(), parts[3].clone(), parts[1].clone()], &mut NoProgress)
            .unwrap();
    assert_eq!(merged.to_bytes(), full.to_bytes());
    // A missing quarter, or one given twice, is refused.
    let err = meadow_bake::merge(&parts[..3], &mut NoProgress).unwrap_err();
    assert!(err.to_string().contains("in 0 parts"), "{err}");
    let twice = [parts[0].clone(), parts[0].clone(), parts[1].clone(), parts[2].clone(), parts[3].clone()];
    let err = meadow_bake::merge(&twice, &mut NoProgress).unwrap_err();
    assert!(err.to_string().contains("in 2 parts"), "{err}");
    let err = meadow_bake::merge(std::slice::from_ref(&full), &mut NoProgress).unwrap_err();
    assert!(err.to_string().contains("not a partial asset"), "{err}");
}

#[test]
fn off_mesh_links_survive_tiling_and_merging() {
    let scene = scene("links_islands.glb");
    let untiled = bake(&scene, &BakeSettings::DEFAULT);
    let settings = tiled(3.0);
    let full = bake(&scene, &settings);
    assert!(!untiled.links().is_empty());
    assert_eq!(full.links().len(), untiled.links().len());
    let halves = [
        TileRange { columns: (i32::MIN, 0), rows: (i32::MIN, i32::MAX) },
        TileRange { columns: (1, i32::MAX), rows: (i32::MIN, i32::MAX) },
    ];
    let parts: Vec<NavMesh> = halves
        .iter()
        .map(|&r| {
            meadow_bake::bake_with(&scene, &settings, BakeOptions { tiles: Some(r), previous: None }, &mut NoProgress)
                .unwrap()
        })
        .collect();
    assert!(parts.iter().all(|p| p.links().is_empty() && p.visibility().is_none()));
    let merged = meadow_bake::merge(&parts, &mut NoProgress).unwrap();
    assert_eq!(merged.to_bytes(), full.to_bytes());
}

#[test]
fn impossible_tile_settings_fail_before_any_work() {
    let scene = scene("rooms.glb");
    // Below 4 x the radius (0.6 m).
    let err = meadow_bake::bake(&scene, &tiled(2.0), &mut NoProgress).unwrap_err();
    assert!(matches!(err, BakeError::Settings(ref e) if e.name == "tile_size"), "{err}");
    // A 2 km floor in 1 m tiles: four million tiles.
    let mut big = scene.clone();
    for t in &mut big.triangles {
        for v in &mut t.vertices {
            v[0] *= 100.0;
            v[2] *= 100.0;
        }
    }
    let mut settings = tiled(1.0);
    settings.radius = 0.2;
    let mut progress = meadow_suite::RecordingProgress::default();
    let err = meadow_bake::bake(&big, &settings, &mut progress).unwrap_err();
    assert!(matches!(err, BakeError::Tiles(_)), "{err}");
    assert!(err.to_string().contains("tile_size"), "{err}");
    let tiles_began =
        progress.events.iter().any(|e| matches!(e, meadow_suite::ProgressEvent::Begin(meadow_bake::Stage::Tiles, _)));
    assert!(!tiles_began, "the tile count is checked before the tiles bake");
}
