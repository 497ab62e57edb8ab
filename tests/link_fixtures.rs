//! End to end: the off-mesh link fixtures (`links_gap.glb`, `links_ladder.glb`,
//! `links_islands.glb`, see `fixtures/levels/README.md`) bake their links into the asset, and
//! paths exist only through them, honour their direction and follow their costs.

use meadow::asset::{LoadError, OffMeshLink, FORMAT_VERSION};
use meadow::query::{LinkId, LinkSpec, PathOptions, PathQuery, PathStyle, QueryFilter, QueryMesh, DEFAULT_LINK_REACH};
use meadow::query::{ShortestPathQuery, SplitMix64};
use meadow::{BakeSettings, NavMesh, Path, PathError};
use meadow_bake::ingest::Scene;
use meadow_bake::Stage;
use meadow_suite::{level, ProgressEvent, RecordingProgress};

/// End points of a baked link lie on the boundary of a straight floor edge: exact up to the
/// bake's grid rounding.
const POINT_TOLERANCE: f64 = 1e-3;

/// Bakes a fixture with the default settings, returning the mesh, its scene and the progress.
fn bake(name: &str) -> (NavMesh, Scene, RecordingProgress) {
    let mut progress = RecordingProgress::default();
    let scene = meadow_bake::ingest::ingest_file(&level(name), &mut progress).unwrap();
    let mesh =
        meadow_bake::bake(&scene, &BakeSettings::DEFAULT, &mut progress).unwrap_or_else(|e| panic!("{name}: {e}"));
    (mesh, scene, progress)
}

fn dist3(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

fn close(a: [f64; 3], b: [f64; 3]) -> bool {
    dist3(a, b) <= POINT_TOLERANCE
}

/// Distance in XZ from `p` to convex polygon `poly` (0 inside).
fn xz_distance_to_polygon(mesh: &NavMesh, poly: u32, p: [f64; 3]) -> f64 {
    let ring: Vec<[f64; 2]> = mesh.polygon_points(poly as usize).collect();
    let q = [p[0], p[2]];
    let inside = (0..ring.len()).all(|k| {
        let (a, b) = (ring[k], ring[(k + 1) % ring.len()]);
        (b[0] - a[0]) * (q[1] - a[1]) - (b[1] - a[1]) * (q[0] - a[0]) >= 0.0
    });
    if inside {
        return 0.0;
    }
    (0..ring.len())
        .map(|k| meadow::geom::point_segment_distance(q, ring[k], ring[(k + 1) % ring.len()]))
        .fold(f64::INFINITY, f64::min)
}

/// Every baked link: on its polygons, within the default radius of its nodes, with the cost,
/// area, id and direction the level asks for.
fn assert_links_match_the_scene(mesh: &NavMesh, scene: &Scene) {
    let radius = mesh.settings().radius + DEFAULT_LINK_REACH;
    for l in mesh.links() {
        let request = scene.links.iter().find(|r| r.id == l.id).expect("a request with the link's id");
        let (from, to) =
            (scene.node_positions[request.from_node as usize], scene.node_positions[request.to_node as usize]);
        assert!(dist3(l.start, from) <= radius && dist3(l.end, to) <= radius, "{l:?} is too far from its nodes");
        assert!(xz_distance_to_polygon(mesh, l.start_polygon, l.start) <= 1e-9, "{l:?}: start not on its polygon");
        assert!(xz_distance_to_polygon(mesh, l.end_polygon, l.end) <= 1e-9, "{l:?}: end not on its polygon");
        assert_eq!((l.bidirectional, l.area), (request.bidirectional, request.area));
        assert_eq!(l.cost, request.cost.unwrap_or_else(|| dist3(l.start, l.end)));
    }
}

fn find(mesh: &QueryMesh, from: [f64; 3], to: [f64; 3], filter: &QueryFilter) -> Result<Path, PathError> {
    PathQuery::new(mesh).find_path(mesh, from, to, filter)
}

fn ids(path: &Path) -> Vec<u32> {
    path.links.iter().map(|l| l.id).collect()
}

/// The path's length is its polyline's, and each link segment runs exactly between the link's
/// end points (in the direction taken).
fn assert_link_segments(mesh: &QueryMesh, path: &Path) {
    let polyline: f64 = path.points.windows(2).map(|w| dist3(w[0], w[1])).sum();
    assert!((path.length - polyline).abs() <= 1e-9 * (1.0 + polyline), "length {} vs {polyline}", path.length);
    let links = mesh.links();
    for pl in &path.links {
        let l: &OffMeshLink = links.get(pl.link).expect("the path's link is in the table");
        assert_eq!(l.id, pl.id);
        let (from, to) = if pl.reversed { (l.end, l.start) } else { (l.start, l.end) };
        assert_eq!((path.points[pl.segment], path.points[pl.segment + 1]), (from, to), "{pl:?}");
    }
}

#[test]
fn the_gap_is_crossed_only_by_the_jump_links_and_costs_choose_which() {
    let (mesh, scene, progress) = bake("links_gap.glb");
    assert!(progress.warnings.is_empty(), "{:?}", progress.warnings);
    assert_eq!(mesh.links().iter().map(|l| l.id).collect::<Vec<_>>(), [11, 12]);
    assert_links_match_the_scene(&mesh, &scene);
    let [north, south] = [mesh.links()[0], mesh.links()[1]];
    assert!(close(north.start, [-1.6, 0.0, 3.0]) && close(north.end, [1.6, 0.0, 3.0]), "{north:?}");
    assert!(close(south.start, [-1.6, 0.0, -3.0]) && close(south.end, [1.6, 0.0, -3.0]), "{south:?}");
    let jump = mesh.areas().iter().position(|a| a.name == "jump").expect("the link's area") as u16;
    assert_eq!((north.area, south.area, south.cost), (0, jump, 20.0));
    assert_eq!(mesh.areas()[jump as usize].cost, 1.0, "an area first named by a link costs 1");

    let mesh = QueryMesh::new(mesh);
    let (west, east) = ([-5.0, 0.0, -3.0], [5.0, 0.0, -3.0]);
    assert_eq!(find(&mesh, west, east, &QueryFilter::new().without_links()), Err(PathError::Unreachable));
    // The south jump is on the straight line but costs 20 m: the walk round by the north one
    // (about 17 m) is cheaper.
    let path = find(&mesh, west, east, &QueryFilter::new()).unwrap();
    assert_eq!(ids(&path), [11]);
    assert!(!path.links[0].reversed);
    assert_link_segments(&mesh, &path);
    let expected = 2.0 * (3.4f64.powi(2) + 6.0f64.powi(2)).sqrt() + 3.2;
    assert!((path.length - expected).abs() < 0.01, "{} vs {expected}", path.length);
    // A filter that makes the jump area cheap (20 m × 0.1) sends the path over the south link.
    let cheap = find(&mesh, west, east, &QueryFilter::new().with_cost(jump, 0.1)).unwrap();
    assert_eq!(ids(&cheap), [12]);
    assert_link_segments(&mesh, &cheap);
    assert!((cheap.length - 10.0).abs() < 0.01, "{}", cheap.length);
    // Excluding the area excludes its links.
    assert_eq!(ids(&find(&mesh, west, east, &QueryFilter::new().with_cost(jump, 0.1).exclude(jump)).unwrap()), [11]);
    // Two-way: east to west takes the north link backwards, in every style.
    for style in [PathStyle::Midpoints, PathStyle::MeadowRefined, PathStyle::StringPulled] {
        let mut back = Path::default();
        let options = PathOptions { style, ..PathOptions::default() };
        PathQuery::new(&mesh).find_path_into(&mesh, east, west, &QueryFilter::new(), options, &mut back).unwrap();
        assert_eq!(ids(&back), [11], "{style:?}");
        assert!(back.links[0].reversed, "{style:?}");
        assert_link_segments(&mesh, &back);
    }
}

#[test]
fn the_ladder_joins_the_mezzanine_to_the_ground_floor_across_layers() {
    let (mesh, scene, progress) = bake("links_ladder.glb");
    assert!(progress.warnings.is_empty(), "{:?}", progress.warnings);
    assert_eq!(mesh.links().len(), 1);
    assert_links_match_the_scene(&mesh, &scene);
    let ladder = mesh.links()[0];
    assert_eq!((ladder.id, ladder.cost, ladder.bidirectional), (20, 8.0, true));
    assert_eq!(mesh.areas()[ladder.area as usize].name, "ladder");
    assert!(close(ladder.start, [0.5, 0.0, 0.0]) && close(ladder.end, [-0.6, 4.0, 0.0]), "{ladder:?}");
    let layer = |p: u32| mesh.polygon(p as usize).layer;
    assert_ne!(layer(ladder.start_polygon), layer(ladder.end_polygon), "the ladder links two layers");

    let upper_layer = layer(ladder.end_polygon);
    let mesh = QueryMesh::new(mesh);
    let (ground, upstairs) = ([5.0, 0.0, 5.0], [-5.0, 4.0, -5.0]);
    assert_eq!(mesh.locate(upstairs).map(|l| layer_of(&mesh, l.polygon)), Ok(upper_layer));
    assert_eq!(find(&mesh, ground, upstairs, &QueryFilter::new().without_links()), Err(PathError::Unreachable));
    let up = find(&mesh, ground, upstairs, &QueryFilter::new()).unwrap();
    assert_eq!((ids(&up), up.links[0].reversed), (vec![20], false));
    assert_link_segments(&mesh, &up);
    let down = find(&mesh, upstairs, ground, &QueryFilter::new()).unwrap();
    assert_eq!((ids(&down), down.links[0].reversed), (vec![20], true));
    assert_link_segments(&mesh, &down);
    assert!((up.length - down.length).abs() < 1e-9);
}

fn layer_of(mesh: &QueryMesh, poly: u32) -> u16 {
    mesh.mesh().polygon(poly as usize).layer
}

#[test]
fn the_drop_is_one_way_the_teleporter_joins_the_islands_and_an_off_mesh_end_is_left_out() {
    let (mesh, scene, progress) = bake("links_islands.glb");
    assert_eq!(progress.warnings.len(), 1, "{:?}", progress.warnings);
    let warning = &progress.warnings[0];
    assert!(
        warning.contains("'BrokenStart'") && warning.contains("'Nowhere'") && warning.contains("1.100 m"),
        "{warning}"
    );
    assert!(progress.events.contains(&ProgressEvent::Begin(Stage::Links, 3)));
    assert_eq!(progress.events.last(), Some(&ProgressEvent::Finish(Stage::Links)));
    assert_eq!(mesh.links().iter().map(|l| l.id).collect::<Vec<_>>(), [30, 40]);
    assert_links_match_the_scene(&mesh, &scene);
    let [drop, teleport] = [mesh.links()[0], mesh.links()[1]];
    assert!(!drop.bidirectional && teleport.bidirectional);
    assert!(close(drop.start, [-4.6, 3.0, 0.0]) && close(drop.end, [-2.5, 0.0, 0.0]), "{drop:?}");
    assert!(close(teleport.start, [8.0, 0.0, 0.0]) && close(teleport.end, [32.0, 0.0, 0.0]), "{teleport:?}");
    assert_eq!(teleport.cost, 1.0);

    let mesh = QueryMesh::new(mesh);
    let (ledge, ground, island) = ([-7.0, 3.0, 0.0], [0.0, 0.0, 0.0], [35.0, 0.0, 0.0]);
    let down = find(&mesh, ledge, ground, &QueryFilter::new()).unwrap();
    assert_eq!((ids(&down), down.links[0].reversed), (vec![30], false));
    assert_link_segments(&mesh, &down);
    assert_eq!(find(&mesh, ground, ledge, &QueryFilter::new()), Err(PathError::Unreachable), "one way only");

    assert_eq!(find(&mesh, ground, island, &QueryFilter::new().without_links()), Err(PathError::Unreachable));
    let over = find(&mesh, ground, island, &QueryFilter::new()).unwrap();
    assert_eq!(ids(&over), [40]);
    assert_link_segments(&mesh, &over);
    // The length counts the teleporter as its 24 m straight line, whatever it costs.
    assert!((over.length - 35.0).abs() < 1e-6, "{}", over.length);
    let both = find(&mesh, ledge, island, &QueryFilter::new()).unwrap();
    assert_eq!(ids(&both), [30, 40]);
    assert_link_segments(&mesh, &both);
}

#[test]
fn removing_a_link_at_run_time_cuts_the_island_off_and_adding_it_back_restores_the_path() {
    let (mesh, scene, _) = bake("links_islands.glb");
    let mesh = QueryMesh::new(mesh);
    let (ground, island) = ([0.0, 0.0, 0.0], [35.0, 0.0, 0.0]);
    let before = find(&mesh, ground, island, &QueryFilter::new()).unwrap();
    let handle = mesh.links().iter().find(|(_, l)| l.id == 40).map(|(h, _)| h).unwrap();
    assert_eq!(handle, LinkId(1));
    let removed = mesh.remove_link(handle).unwrap();
    assert_eq!(find(&mesh, ground, island, &QueryFilter::new()), Err(PathError::Unreachable));
    assert!(mesh.remove_link(handle).is_err(), "removed twice");
    // The spec the bake built for the teleporter connects to the same link.
    let request = scene.links.iter().find(|r| r.id == 40).unwrap();
    let spec: LinkSpec = meadow_bake::links::link_spec(&scene, request);
    assert_eq!(mesh.connect_link(&spec), Ok(removed));
    let added = mesh.add_link(&spec).unwrap();
    assert_eq!(added, LinkId(2), "handles are never reused: the next after the two baked links");
    let after = find(&mesh, ground, island, &QueryFilter::new()).unwrap();
    assert_eq!((&after.points, after.length, &after.corridor), (&before.points, before.length, &before.corridor));
    assert_eq!(ids(&after), ids(&before));
    assert_eq!(after.links[0].link, added);
}

#[test]
fn assets_keep_their_links_and_old_or_cut_assets_ask_for_a_re_bake() {
    let (mesh, _, _) = bake("links_islands.glb");
    let bytes = mesh.to_bytes();
    let back = NavMesh::from_bytes(&bytes).unwrap();
    assert_eq!(back.links(), mesh.links());
    assert_eq!(back, mesh);
    let mut old = bytes.clone();
    old[8..12].copy_from_slice(&(FORMAT_VERSION - 1).to_le_bytes());
    let err = NavMesh::from_bytes(&old).unwrap_err();
    assert!(matches!(err, LoadError::UnsupportedVersion { found } if found == FORMAT_VERSION - 1));
    assert!(err.to_string().contains("re-bake"), "{err}");
    for len in [0, 10, 30, bytes.len() / 2, bytes.len() - 1] {
        assert!(NavMesh::from_bytes(&bytes[..len]).is_err(), "cut to {len}");
    }
}

/// XZ distance.
fn dist_xz(a: [f64; 3], b: [f64; 3]) -> f64 {
    ((a[0] - b[0]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// What the exact search minimises: walking in XZ plus the links' costs (before area costs,
/// which exact paths do not weigh).
fn exact_objective(mesh: &QueryMesh, path: &Path) -> f64 {
    let links = mesh.links();
    path.points
        .windows(2)
        .enumerate()
        .map(|(k, w)| match path.link_at(k) {
            Some(l) => links.get(l.link).expect("active link").cost,
            None => dist_xz(w[0], w[1]),
        })
        .sum()
}

/// The oracle of exact paths over links: Dijkstra over the start, the goal and every link end,
/// joined by the link-free exact shortest path between them (itself checked against a
/// brute-force visibility graph in `shortest_fixtures.rs`) and by the links, each way they go.
fn exact_oracle(mesh: &QueryMesh, start: [f64; 3], goal: [f64; 3]) -> Option<f64> {
    let links: Vec<OffMeshLink> = mesh.links().iter().map(|(_, l)| *l).collect();
    let mut points = vec![start, goal];
    for l in &links {
        points.extend([l.start, l.end]);
    }
    let n = points.len();
    let mut sq = ShortestPathQuery::new(mesh);
    let off = QueryFilter::new().without_links();
    let walk = |sq: &mut ShortestPathQuery, a: [f64; 3], b: [f64; 3]| -> f64 {
        let near = |p: [f64; 3]| mesh.nearest_point(p, [1e-6; 3]);
        let (Ok(la), Ok(lb)) = (near(a), near(b)) else { return f64::INFINITY };
        let mut path = Path::default();
        match sq.find_shortest_path_between(mesh, la, lb, &off, &mut path) {
            Ok(()) => path.points.windows(2).map(|w| dist_xz(w[0], w[1])).sum(),
            Err(_) => f64::INFINITY,
        }
    };
    let mut dist = vec![f64::INFINITY; n];
    let mut done = vec![false; n];
    dist[0] = 0.0;
    while let Some(u) = (0..n).filter(|&i| !done[i] && dist[i].is_finite()).min_by(|&a, &b| dist[a].total_cmp(&dist[b]))
    {
        done[u] = true;
        for v in (0..n).filter(|&v| !done[v]) {
            dist[v] = dist[v].min(dist[u] + walk(&mut sq, points[u], points[v]));
        }
        if u >= 2 {
            let (l, at_start) = (&links[(u - 2) / 2], u % 2 == 0);
            if at_start || l.bidirectional {
                let other = if at_start { u + 1 } else { u - 1 };
                dist[other] = dist[other].min(dist[u] + l.cost);
            }
        }
    }
    dist[1].is_finite().then_some(dist[1])
}

#[test]
fn exact_paths_over_links_equal_the_oracle() {
    let mut over_links = 0;
    for name in ["links_gap.glb", "links_ladder.glb", "links_islands.glb", "tagged.glb"] {
        let (nav, _, _) = bake(name);
        let mesh = QueryMesh::new(nav);
        let mut sq = ShortestPathQuery::new(&mesh);
        let mut rng = SplitMix64::new(17);
        for _ in 0..60 {
            let (Some(s), Some(g)) = (mesh.random_point(&mut rng), mesh.random_point(&mut rng)) else { break };
            let got = sq.find_shortest_path(&mesh, s.point, g.point, &QueryFilter::new());
            match (got, exact_oracle(&mesh, s.point, g.point)) {
                (Ok(path), Some(best)) => {
                    let value = exact_objective(&mesh, &path);
                    assert!((value - best).abs() <= 1e-9 * (1.0 + best), "{name}: exact {value} vs oracle {best}");
                    assert_link_segments(&mesh, &path);
                    over_links += usize::from(!path.links.is_empty());
                }
                (Err(PathError::Unreachable), None) => {}
                (got, want) => panic!("{name}: exact {got:?} vs oracle {want:?}"),
            }
        }
    }
    assert!(over_links > 40, "only {over_links} exact paths take links");
}
