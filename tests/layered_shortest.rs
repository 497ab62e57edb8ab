//! `find_shortest_path` (by the search and over the baked visibility graph) against the layered
//! brute-force oracle of `meadow_testkit::layered_oracle` on every fixture level, multi-layer ones
//! included, on hand-made switchbacks (a deck right above a floor, joined by a ramp) and (ignored
//! by default) on the six third-party glTF and Recast levels: equal XZ lengths within 1e-9
//! relative, every path segment walkable by the oracle's rule, consecutive corridor polygons
//! touching, unreachable exactly when the oracle finds no walk, and never longer than
//! `find_path`.

use meadow::geom::orient2d;
use meadow::query::{Path, PathQuery, QueryFilter, QueryMesh, ShortestPathQuery};
use meadow::{AreaType, BakeSettings, NavMesh, PathError};
use meadow_suite::fixture_levels;
use meadow_testkit::layered_oracle::{End, LayeredOracle, OraclePath};
use meadow_testkit::rng::{Draw, SplitMix64};
use meadow_testkit::testmesh::{assemble, random_blocked};
use std::collections::BTreeMap;

/// XZ length of a polyline.
fn flat(points: &[[f64; 3]]) -> f64 {
    points.windows(2).map(|w| (w[1][0] - w[0][0]).hypot(w[1][2] - w[0][2])).sum()
}

/// The mesh vertex at a path's turning point: the vertex at exactly that 3D point, else, of the
/// corridor polygons' vertices at that XZ point, the one nearest in height (floors stacked in
/// one corridor share XZ points; a turn's height may differ from its vertex's by rounding).
fn turn_vertex(mesh: &QueryMesh, corridor: &[u32], p: [f64; 3]) -> Option<u32> {
    let verts = mesh.mesh().vertices();
    (0..verts.len() as u32).find(|&v| verts[v as usize] == p).or_else(|| {
        corridor
            .iter()
            .flat_map(|&c| mesh.mesh().polygon(c as usize).vertices.iter().copied())
            .filter(|&v| verts[v as usize][0] == p[0] && verts[v as usize][2] == p[2])
            .min_by(|&a, &b| (verts[a as usize][1] - p[1]).abs().total_cmp(&(verts[b as usize][1] - p[1]).abs()))
    })
}

/// The number of polygon pairs whose interiors overlap in XZ (floors above one another, where
/// a plane oracle would not apply): no edge line of either has the other on its outer side
/// (exact; touching counts as disjoint).
fn overlapping_pairs(mesh: &QueryMesh) -> usize {
    let rings: Vec<Vec<[f64; 2]>> =
        (0..mesh.mesh().polygon_count()).map(|p| mesh.mesh().polygon_points(p).collect()).collect();
    let separates = |r: &[[f64; 2]], o: &[[f64; 2]]| {
        (0..r.len()).any(|k| o.iter().all(|&p| orient2d(r[k], r[(k + 1) % r.len()], p) <= 0.0))
    };
    let lo_x = |r: &[[f64; 2]]| r.iter().map(|p| p[0]).fold(f64::INFINITY, f64::min);
    let hi_x = |r: &[[f64; 2]]| r.iter().map(|p| p[0]).fold(f64::NEG_INFINITY, f64::max);
    let mut order: Vec<usize> = (0..rings.len()).collect();
    order.sort_by(|&a, &b| lo_x(&rings[a]).total_cmp(&lo_x(&rings[b])));
    let mut count = 0;
    for (i, &a) in order.iter().enumerate() {
        let end = hi_x(&rings[a]);
        for &b in order[i + 1..].iter().take_while(|&&b| lo_x(&rings[b]) < end) {
            count += !(separates(&rings[a], &rings[b]) || separates(&rings[b], &rings[a])) as usize;
        }
    }
    count
}

/// What one level's comparison found.
#[derive(Debug, Default)]
struct Tally {
    found: usize,
    unreachable: usize,
    layers: usize,
    nodes: usize,
    overlaps: usize,
    /// Every disagreement, described.
    problems: Vec<String>,
}

/// Checks one answer of `find_shortest_path` against the oracle's `truth` (see the module docs).
fn check_answer(
    mesh: &QueryMesh,
    oracle: &LayeredOracle,
    pq: &mut PathQuery,
    (s, start): ([f64; 3], End),
    (g, goal): ([f64; 3], End),
    answer: &Result<Path, PathError>,
    truth: Option<&OraclePath>,
) -> Result<(), String> {
    let (p, t) = match (answer, truth) {
        (Ok(p), Some(t)) => (p, t),
        (Err(PathError::Unreachable), None) => return Ok(()),
        (r, t) => {
            let by_portals = pq.find_path(mesh, s, g, &QueryFilter::new().without_links()).is_ok();
            return Err(format!(
                "{:?}, the oracle {t:?}; find_path finds a path: {by_portals}",
                r.as_ref().map(|p| &p.points)
            ));
        }
    };
    let len = flat(&p.points);
    if (len - t.length).abs() > 1e-9 * t.length {
        return Err(format!("{len} vs the oracle's {} turning at {:?}; path {:?}", t.length, t.turns, p.points));
    }
    // Every segment walks on the mesh by the oracle's rule.
    let n = p.points.len();
    let mut ends = vec![start];
    for &q in &p.points[1..n.saturating_sub(1)] {
        let v = turn_vertex(mesh, &p.corridor, q).ok_or_else(|| format!("turn {q:?} is no vertex"))?;
        ends.push(End::Vertex(v));
    }
    ends.push(goal);
    if let Some(w) = ends.windows(2).find(|w| !oracle.sees(w[0], w[1])) {
        return Err(format!("segment {w:?} leaves the mesh"));
    }
    // Consecutive corridor polygons touch (share an edge, or the vertex of a turn).
    let touch = |a: u32, b: u32| {
        let rb = mesh.mesh().polygon(b as usize).vertices;
        mesh.mesh().polygon(a as usize).vertices.iter().any(|v| rb.contains(v))
    };
    if let Some(w) = p.corridor.windows(2).find(|w| !touch(w[0], w[1])) {
        return Err(format!("corridor step {w:?} does not touch; corridor {:?}", p.corridor));
    }
    // Compared in XZ, where both are measured by the search: on ramps an XZ-shorter path can be
    // longer in 3D.
    if let Ok(f) = pq.find_path(mesh, s, g, &QueryFilter::new().without_links()) {
        let fl = flat(&f.points);
        if len > fl + 1e-9 * fl {
            return Err(format!("{len} longer than find_path's {fl}"));
        }
    }
    Ok(())
}

/// Compares `pairs` seeded pairs on the level at `path` (baked with the default settings).
fn compare_level(path: &std::path::Path, pairs: usize) -> Tally {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_string();
    let nav = meadow_bake::bake_file(path, &BakeSettings::DEFAULT).unwrap_or_else(|e| panic!("{name}: {e}"));
    compare_mesh(&name, &QueryMesh::new(nav), pairs, true)
}

/// Compares `pairs` seeded pairs on `mesh`, answered by the search and, with `graph`, over the
/// visibility graph as well.
fn compare_mesh(name: &str, mesh: &QueryMesh, pairs: usize, graph: bool) -> Tally {
    let mut oracle = LayeredOracle::new(mesh.mesh());
    let layers = mesh.mesh().polygons().map(|p| p.layer as usize + 1).max().unwrap_or(0);
    let mut tally =
        Tally { layers, nodes: oracle.nodes().len(), overlaps: overlapping_pairs(mesh), ..Tally::default() };
    // The oracle knows walls and portals only: off-mesh links stay off on every side.
    let filter = QueryFilter::new().without_links();
    let mut by_search = ShortestPathQuery::new(mesh);
    by_search.use_visibility_graph(false);
    let mut by_graph = ShortestPathQuery::new(mesh);
    by_graph.use_visibility_graph(true);
    let mut pq = PathQuery::new(mesh);
    let verts = mesh.mesh().vertices();
    let mut rng = SplitMix64::new(29);
    let sample = |rng: &mut SplitMix64| -> [f64; 3] {
        loop {
            // Mostly random points; every fourth a mesh vertex and every fourth a point on a
            // polygon's edge (degenerate segments through and along the boundary, and ends on
            // portals, held by the polygons on both sides).
            let p = match rng.below(4) {
                0 => verts[rng.below(verts.len())],
                1 => {
                    let poly = mesh.mesh().polygon(rng.below(mesh.mesh().polygon_count()));
                    let k = rng.below(poly.vertices.len());
                    let a = verts[poly.vertices[k] as usize];
                    let b = verts[poly.vertices[(k + 1) % poly.vertices.len()] as usize];
                    let t = if rng.below(2) == 0 { 0.5 } else { rng.next_f64() };
                    [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]
                }
                _ => mesh.random_point(rng).expect("level has area").point,
            };
            if mesh.locate(p).is_ok() {
                return p;
            }
        }
    };
    for _ in 0..pairs {
        let (s, g) = (sample(&mut rng), sample(&mut rng));
        let (sl, gl) = (mesh.locate(s).expect("sampled on the mesh"), mesh.locate(g).expect("sampled on the mesh"));
        let start = End::Point { polygon: sl.polygon, at: [sl.point[0], sl.point[2]] };
        let goal = End::Point { polygon: gl.polygon, at: [gl.point[0], gl.point[2]] };
        let truth = oracle.shortest(start, goal);
        let queries = [("search", &mut by_search), ("graph", &mut by_graph)];
        for (how, query) in queries.into_iter().take(1 + graph as usize) {
            let answer = query.find_shortest_path(mesh, s, g, &filter);
            if let Err(e) = check_answer(mesh, &oracle, &mut pq, (s, start), (g, goal), &answer, truth.as_ref()) {
                tally.problems.push(format!("{name} ({how}): {s:?} -> {g:?}: {e}"));
            }
        }
        match truth {
            Some(_) => tally.found += 1,
            None => tally.unreachable += 1,
        }
    }
    println!(
        "{name}: {} layers, {} polygon pairs overlapping in XZ, {} turning vertices; {} pairs found, {} \
         unreachable, {} disagreements",
        tally.layers,
        tally.overlaps,
        tally.nodes,
        tally.found,
        tally.unreachable,
        tally.problems.len()
    );
    for p in &tally.problems {
        println!("  {p}");
    }
    tally
}

#[test]
fn shortest_paths_match_the_layered_oracle_on_every_fixture() {
    let levels = fixture_levels();
    assert!(levels.len() >= 9, "fixtures missing: {levels:?}");
    let (mut found, mut layered, mut overlapping) = (0, 0, 0);
    for level in &levels {
        let t = compare_level(level, 400);
        assert!(t.problems.is_empty(), "{}", t.problems.join("\n"));
        found += t.found;
        layered += (t.layers > 1) as usize;
        overlapping += (t.overlaps > 0) as usize;
    }
    println!("{found} paths equal to the oracle's; {layered} levels of several layers, {overlapping} with floors overlapping in XZ");
    assert!(layered >= 3 && overlapping >= 2, "only {layered} multi-layer levels, {overlapping} overlapping");
    assert!(found > 4000);
}

/// A switchback of unit cells, like the oracle's own test mesh but larger, with blocked cells: a
/// floor (x in [0, 8], z in [0, 4], y = 0) and a deck right above it (y = 3), each with some
/// cells blocked; a ramp beside them (z in [4, 6]) rising from y = 0 at x = 8 to y = 3 at x = 0;
/// a landing at each end (x in [8, 10] at y = 0, x in [-2, 0] at y = 3). Vertices are shared
/// where the surfaces meet (same XZ and height), so portals join exactly there. Carries the
/// corner visibility graph the bake would store.
fn switchback(seed: u64) -> QueryMesh {
    let mut index: BTreeMap<(i64, i64, i64), u32> = BTreeMap::new();
    let mut vertices = Vec::new();
    let mut vid = |x: i64, z: i64, y: f64| {
        *index.entry((x, z, (y * 1000.0) as i64)).or_insert_with(|| {
            vertices.push([x as f64, y, z as f64]);
            vertices.len() as u32 - 1
        })
    };
    // (vertex ring, layer)
    let mut rings: Vec<(Vec<u32>, u16)> = Vec::new();
    let mut cell = |x: i64, z: i64, y: &dyn Fn(i64) -> f64, layer: u16, rings: &mut Vec<(Vec<u32>, u16)>| {
        let ring = vec![vid(x, z, y(x)), vid(x + 1, z, y(x + 1)), vid(x + 1, z + 1, y(x + 1)), vid(x, z + 1, y(x))];
        rings.push((ring, layer));
    };
    let floor = random_blocked(8, 4, 0.25, seed);
    let deck = random_blocked(8, 4, 0.25, seed + 100);
    for z in 0..4 {
        for x in 0..8 {
            if !floor[(z * 8 + x) as usize] {
                cell(x, z, &|_| 0.0, 0, &mut rings);
            }
            if !deck[(z * 8 + x) as usize] {
                cell(x, z, &|_| 3.0, 1, &mut rings);
            }
        }
    }
    for z in 0..6 {
        for x in 8..10 {
            cell(x, z, &|_| 0.0, 0, &mut rings);
        }
        for x in -2..0 {
            cell(x, z, &|_| 3.0, 1, &mut rings);
        }
    }
    for z in 4..6 {
        for x in 0..8 {
            cell(x, z, &|x| 3.0 * (8 - x) as f64 / 8.0, 2, &mut rings);
        }
    }
    let areas = vec![AreaType { name: "default".into(), cost: 1.0 }];
    let by_area: Vec<(Vec<u32>, u16)> = rings.iter().map(|(ring, _)| (ring.clone(), 0)).collect();
    let mut data = assemble(BakeSettings::DEFAULT, vertices, &by_area, areas, 0);
    for (p, (_, layer)) in data.polygons.iter_mut().zip(&rings) {
        p.layer = *layer;
    }
    let mut data = NavMesh::new(data).expect("valid switchback").into_data();
    // With the corner visibility graph the bake would store, so both answers are checked.
    data.visibility = Some(meadow_bake::visibility::build_visibility(&NavMesh::new(data.clone()).expect("valid")));
    QueryMesh::new(NavMesh::new(data).expect("valid switchback with its graph"))
}

/// Compares the switchbacks of seeds 1 to 6, with or without the graph answers.
fn compare_switchbacks(graph: bool) {
    let mut found = 0;
    for seed in 1..=6 {
        let mesh = switchback(seed);
        assert!(ShortestPathQuery::answers_by_graph(&mesh, &QueryFilter::new().without_links()));
        let t = compare_mesh(&format!("switchback {seed}"), &mesh, 300, graph);
        assert!(t.problems.is_empty(), "{}", t.problems.join("\n"));
        assert!(t.overlaps >= 8, "switchback {seed}: floor and deck overlap in only {} pairs", t.overlaps);
        found += t.found;
    }
    assert!(found > 1200, "only {found} paths");
}

#[test]
fn shortest_paths_match_the_layered_oracle_on_switchbacks() {
    compare_switchbacks(false);
}

#[test]
fn graph_paths_match_the_layered_oracle_on_switchbacks() {
    compare_switchbacks(true);
}

/// A spiral: five triangles round one vertex at the origin, each 4 m along its sides, turning
/// 400 degrees in all and rising with the angle, so the last (layer 1) lies over the first
/// (layer 0). The free wedge at the origin wraps past a full turn, and its walls (the first
/// triangle's side along +x and the last one's at 40 degrees) lie on both sides of any line
/// through the origin between them.
fn spiral() -> QueryMesh {
    let height = |deg: f64| deg / 400.0 * 2.5;
    let point = |deg: f64| {
        let r = deg.to_radians();
        [4.0 * r.cos(), height(deg), 4.0 * r.sin()]
    };
    let mut vertices = vec![[0.0, 1.25, 0.0]];
    vertices.extend([0.0, 90.0, 180.0, 270.0, 360.0, 400.0].map(point));
    let rings: Vec<(Vec<u32>, u16)> = (1..6).map(|k| (vec![0, k, k + 1], 0)).collect();
    let areas = vec![AreaType { name: "default".into(), cost: 1.0 }];
    let mut data = assemble(BakeSettings::DEFAULT, vertices, &rings, areas, 0);
    data.polygons[4].layer = 1;
    let mut data = NavMesh::new(data).expect("valid spiral").into_data();
    data.visibility = Some(meadow_bake::visibility::build_visibility(&NavMesh::new(data.clone()).expect("valid")));
    QueryMesh::new(NavMesh::new(data).expect("valid spiral with its graph"))
}

#[test]
fn paths_wrap_round_a_corner_whose_wedge_passes_a_full_turn() {
    let mesh = spiral();
    let filter = QueryFilter::new().without_links();
    assert!(ShortestPathQuery::answers_by_graph(&mesh, &filter));
    // From the first triangle at 20 degrees to the last at 390 degrees: round the origin.
    let at = |deg: f64, r: f64, y: f64| {
        let a = f64::to_radians(deg);
        [r * a.cos(), y, r * a.sin()]
    };
    let (s, g) = (at(20.0, 1.5, 0.2), at(390.0, 2.0, 2.45));
    for graph in [false, true] {
        let mut query = ShortestPathQuery::new(&mesh);
        query.use_visibility_graph(graph);
        let path = query.find_shortest_path(&mesh, s, g, &filter).unwrap_or_else(|e| panic!("graph {graph}: {e:?}"));
        assert!((flat(&path.points) - 3.5).abs() < 1e-9, "graph {graph}: {:?}", path.points);
        // And back.
        let path = query.find_shortest_path(&mesh, g, s, &filter).unwrap_or_else(|e| panic!("graph {graph}: {e:?}"));
        assert!((flat(&path.points) - 3.5).abs() < 1e-9, "graph {graph}, back: {:?}", path.points);
    }
    let t = compare_mesh("spiral", &mesh, 300, true);
    assert!(t.problems.is_empty(), "{}", t.problems.join("\n"));
}

/// One third-party level (`gltf/…` or `recast/…` under the shared levels directory).
fn third_party(level: &str, pairs: usize) {
    let path = meadow_suite::third_party_dir().join("levels").join(level);
    let t = compare_level(&path, pairs);
    assert!(t.problems.is_empty(), "{}", t.problems.join("\n"));
    assert!(t.found > pairs / 5, "{level}: only {} paths", t.found);
}

#[test]
#[ignore = "needs the third-party levels"]
fn layered_oracle_collision_world() {
    third_party("gltf/collision-world.glb", 5000);
}

#[test]
#[ignore = "needs the third-party levels"]
fn layered_oracle_navcat_proto_level() {
    third_party("gltf/navcat-proto-level.glb", 5000);
}

#[test]
#[ignore = "needs the third-party levels"]
fn layered_oracle_navcat_tower_big() {
    third_party("gltf/navcat-tower-big.glb", 5000);
}

#[test]
#[ignore = "needs the third-party levels"]
fn layered_oracle_dungeon() {
    third_party("recast/dungeon.glb", 5000);
}

#[test]
#[ignore = "needs the third-party levels"]
fn layered_oracle_nav_test() {
    third_party("recast/nav_test.glb", 5000);
}

#[test]
#[ignore = "needs the third-party levels"]
fn layered_oracle_undulating() {
    third_party("recast/undulating.glb", 5000);
}
