//! `find_shortest_path` over the baked corner visibility graph against the search without it
//! (`find_shortest_path_by_search`) and against `find_path`, on every fixture level baked with
//! the graph (and, ignored by default, on the third-party levels).

use meadow::query::{PathQuery, QueryFilter, QueryMesh, ShortestPathQuery, SplitMix64};
use meadow::BakeSettings;
use meadow_suite::fixture_levels;
use std::path::Path;

/// XZ length of a polyline.
fn flat(points: &[[f64; 3]]) -> f64 {
    points.windows(2).map(|w| (w[1][0] - w[0][0]).hypot(w[1][2] - w[0][2])).sum()
}

/// What one level's comparison found.
#[derive(Debug, Default)]
struct Tally {
    found: usize,
    unreachable: usize,
    max_rel: f64,
    by_graph: bool,
}

/// A uniform random point of the mesh.
fn uniform(mesh: &QueryMesh, rng: &mut SplitMix64) -> [f64; 3] {
    mesh.random_point(rng).expect("level has area").point
}

/// A random polygon's vertex, or a point on one of its edges (the degenerate starts and goals:
/// on a portal or a wall, collinear with the sides of the windows through it).
fn on_vertex_or_edge(mesh: &QueryMesh, rng: &mut SplitMix64) -> [f64; 3] {
    let nav = mesh.mesh();
    let poly = nav.polygon((rng.next_u64() % nav.polygon_count() as u64) as usize);
    let k = (rng.next_u64() % poly.vertices.len() as u64) as usize;
    let a = nav.vertices()[poly.vertices[k] as usize];
    let b = nav.vertices()[poly.vertices[(k + 1) % poly.vertices.len()] as usize];
    // Half the points on a vertex, the others on the edge (at its middle or a random place).
    let t = match rng.next_u64() % 4 {
        0 | 1 => 0.0,
        2 => 0.5,
        _ => rng.next_f64(),
    };
    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
}

/// Compares `pairs` random pairs on the level at `path`, drawn by `sample`.
fn compare_level(path: &Path, pairs: usize) -> Tally {
    compare_level_with(path, pairs, uniform)
}

/// Compares `pairs` pairs on the level at `path`, each end drawn by `sample`.
fn compare_level_with(path: &Path, pairs: usize, sample: fn(&QueryMesh, &mut SplitMix64) -> [f64; 3]) -> Tally {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
    let nav = meadow_bake::bake_file(path, &BakeSettings::DEFAULT).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(nav.visibility().is_some(), "{name}: baked without a visibility graph");
    let mesh = QueryMesh::new(nav);
    // Links off: with links the search answers, which would compare it with itself.
    let filter = QueryFilter::new().without_links();
    let mut tally = Tally { by_graph: ShortestPathQuery::answers_by_graph(&mesh, &filter), ..Tally::default() };
    let mut rng = SplitMix64::new(17);
    let mut sq = ShortestPathQuery::new(&mesh);
    sq.use_visibility_graph(true);
    let mut pq = PathQuery::new(&mesh);
    for _ in 0..pairs {
        let (s, g) = (sample(&mesh, &mut rng), sample(&mesh, &mut rng));
        let graph = sq.find_shortest_path(&mesh, s, g, &filter);
        let search = sq.find_shortest_path_by_search(&mesh, s, g, &filter);
        let (p, q) = match (graph, search) {
            (Ok(p), Ok(q)) => (p, q),
            (Err(a), Err(b)) if a == b => {
                tally.unreachable += 1;
                continue;
            }
            (a, b) => panic!("{name}: {s:?} -> {g:?}: graph {a:?}, search {b:?}"),
        };
        let (a, b) = (flat(&p.points), flat(&q.points));
        let rel = (a - b).abs() / (1.0 + b);
        assert!(rel <= 1e-9, "{name}: {s:?} -> {g:?}: graph {a} vs search {b}\n{:?}\n{:?}", p.points, q.points);
        tally.max_rel = tally.max_rel.max(rel).max((p.length - q.length).abs() / (1.0 + q.length));
        assert!(p.length.is_finite() && p.points.iter().flatten().all(|c| c.is_finite()));
        assert_eq!(p.points.first(), q.points.first(), "{name}: start");
        assert_eq!(p.points.last(), q.points.last(), "{name}: goal");
        assert_eq!(p.corridor.first(), q.corridor.first(), "{name}: corridor start");
        assert_eq!(p.corridor.last(), q.corridor.last(), "{name}: corridor end");
        // The path stays on the mesh: every corridor step shares an edge or a turning vertex,
        // and every path point lies in a corridor polygon.
        for w in p.corridor.windows(2) {
            let ring = |i: u32| {
                let poly = mesh.mesh().polygon(i as usize);
                poly.vertices.to_vec()
            };
            let (r0, r1) = (ring(w[0]), ring(w[1]));
            assert!(r0.iter().any(|v| r1.contains(v)), "{name}: corridor {w:?} does not touch");
        }
        for pt in &p.points {
            assert!(
                p.corridor.iter().any(|&c| mesh.polygon_contains(c, [pt[0], pt[2]])),
                "{name}: point {pt:?} off the corridor"
            );
        }
        if let Ok(f) = pq.find_path(&mesh, s, g, &filter) {
            let fl = flat(&f.points);
            assert!(a <= fl + 1e-9 * (1.0 + fl), "{name}: graph path {a} longer than find_path {fl}");
        }
        tally.found += 1;
    }
    println!("{name}: {tally:?}");
    tally
}

#[test]
fn graph_paths_equal_the_search_on_every_fixture() {
    let levels = fixture_levels();
    assert!(levels.len() >= 9, "fixtures missing: {levels:?}");
    let (mut found, mut graph_levels, mut max_rel) = (0, 0, 0.0f64);
    for level in &levels {
        let t = compare_level(level, 500);
        found += t.found;
        graph_levels += t.by_graph as usize;
        max_rel = max_rel.max(t.max_rel);
    }
    println!(
        "{found} paths compared on {graph_levels} levels answered over the graph; max relative difference {max_rel:e}"
    );
    assert!(graph_levels >= levels.len() / 2, "only {graph_levels} levels use the graph");
    assert!(found > 2000);
}

/// Starts and goals on polygon vertices and edges. (On tagged.glb, (-3.0452, -8.5969) ->
/// (4.3842, 4.0) has its goal on the portal z = 4: the search once handed the goal to polygons
/// far from it, across edges merely in line with that portal, and cut 3 cm through an arc.)
#[test]
fn graph_paths_equal_the_search_from_vertices_and_edges() {
    let levels = fixture_levels();
    let mut found = 0;
    for level in &levels {
        found += compare_level_with(level, 300, on_vertex_or_edge).found;
    }
    assert!(found > 1000, "only {found} pairs found");
}

#[test]
#[ignore = "needs the third-party levels"]
fn graph_paths_equal_the_search_on_the_third_party_levels() {
    let dir = meadow_suite::third_party_dir().join("levels");
    let mut levels: Vec<_> = ["gltf", "recast"]
        .iter()
        .filter_map(|sub| std::fs::read_dir(dir.join(sub)).ok())
        .flat_map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())))
        .filter(|p| matches!(p.extension().and_then(|e| e.to_str()), Some("gltf" | "glb")))
        .collect();
    levels.sort();
    assert!(!levels.is_empty(), "no levels in {}", dir.display());
    for level in &levels {
        // Links are off in the comparison's filter, so every level, pinches and all, is
        // answered over its graph.
        let t = compare_level(level, 500);
        assert!(t.by_graph, "{} is not answered over its graph", level.display());
    }
}
