//! Warmed-up queries must not allocate: a counting global allocator checks it.
//! (Its own test binary, since it installs a `#[global_allocator]`.)

use meadow::query::{
    LinkSpec, Path, PathOptions, PathQuery, PathStyle, QueryFilter, QueryMesh, ShortestPathQuery, SplitMix64,
};
use meadow::NavMesh;
use meadow_testkit::testmesh::{random_blocked, GridSpec};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    // Per thread, so other tests' threads cannot disturb the count; const-initialised `Cell`s
    // need no allocation or destructor registration of their own.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let _ = ALLOCATIONS.try_with(|c| c.set(c.get() + 1));
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations() -> usize {
    ALLOCATIONS.with(|c| c.get())
}

/// Off-mesh links between random points: free teleporters, jumps at their length, one-way and
/// two-way, so that warmed-up paths over links are counted too.
fn add_links(mesh: &QueryMesh, rng: &mut SplitMix64) {
    for i in 0..6 {
        let a = mesh.random_point(rng).unwrap().point;
        let b = mesh.random_point(rng).unwrap().point;
        let spec = LinkSpec { bidirectional: i % 2 == 0, cost: (i % 3 == 0).then_some(0.0), ..LinkSpec::new(a, b) };
        mesh.add_link(&spec).unwrap();
    }
}

#[test]
fn warmed_up_queries_do_not_allocate() {
    let spec = GridSpec {
        cols: 30,
        rows: 30,
        triangulate: true,
        blocked: random_blocked(30, 30, 0.2, 7),
        ..GridSpec::default()
    };
    let mesh = QueryMesh::new(NavMesh::new(spec.build()).unwrap());
    let mut rng = SplitMix64::new(1);
    add_links(&mesh, &mut rng);
    let pairs: Vec<([f64; 3], [f64; 3])> = (0..200)
        .map(|_| (mesh.random_point(&mut rng).unwrap().point, mesh.random_point(&mut rng).unwrap().point))
        .collect();
    let filter = QueryFilter::new();
    let styles = [PathStyle::Midpoints, PathStyle::MeadowRefined, PathStyle::StringPulled];
    let mut query = PathQuery::new(&mesh);
    let mut path = Path::default();
    let mut visited = Vec::new();
    let run_all = |query: &mut PathQuery, path: &mut Path, visited: &mut Vec<u32>| -> (usize, usize, usize) {
        let (mut found, mut partial, mut linked) = (0, 0, 0);
        for &(s, g) in &pairs {
            for style in styles {
                let options = PathOptions { style, allow_partial: true, ..PathOptions::default() };
                if query.find_path_into(&mesh, s, g, &filter, options, path).is_ok() {
                    found += 1;
                    partial += path.partial as usize;
                    linked += usize::from(!path.links.is_empty());
                }
            }
            let _ = mesh.raycast(s, g, visited);
            let _ = mesh.locate(g);
            let _ = mesh.nearest_point([g[0] + 0.3, g[1], g[2] - 0.3], [1.0, 1.0, 1.0]);
        }
        (found, partial, linked)
    };
    let warm = run_all(&mut query, &mut path, &mut visited);
    let before = allocations();
    let again = run_all(&mut query, &mut path, &mut visited);
    let mut sampler = SplitMix64::new(3);
    for _ in 0..1000 {
        let _ = mesh.random_point(&mut sampler);
    }
    let allocated = allocations() - before;
    assert_eq!(warm, again);
    assert!(warm.0 == 600, "every query should give a (possibly partial) path: {warm:?}");
    assert!(warm.2 > 30, "too few paths over links: {warm:?}");
    assert_eq!(allocated, 0, "{allocated} allocations in {} warmed-up queries", 3 * pairs.len());

    // The convenience form allocates only the returned path's two vectors (once warmed up).
    let warm_path = query.find_path(&mesh, pairs[0].0, pairs[0].1, &filter);
    drop(warm_path);
    let before = allocations();
    let p = query.find_path(&mesh, pairs[0].0, pairs[0].1, &filter);
    let allocated = allocations() - before;
    drop(p);
    // The returned path's points, corridor and links.
    assert!(allocated <= 3, "find_path allocated {allocated} times");
}

#[test]
fn warmed_up_shortest_path_queries_do_not_allocate() {
    let spec = GridSpec {
        cols: 30,
        rows: 30,
        triangulate: true,
        blocked: random_blocked(30, 30, 0.2, 8),
        cell_area: (0..900).map(|i| (i % 7 == 3) as u16).collect(),
        areas: vec![
            meadow::AreaType { name: "default".into(), cost: 1.0 },
            meadow::AreaType { name: "mud".into(), cost: 1.0 },
        ],
        ..GridSpec::default()
    };
    let mesh = QueryMesh::new(NavMesh::new(spec.build()).unwrap());
    let mut rng = SplitMix64::new(2);
    add_links(&mesh, &mut rng);
    let pairs: Vec<([f64; 3], [f64; 3])> = (0..200)
        .map(|_| (mesh.random_point(&mut rng).unwrap().point, mesh.random_point(&mut rng).unwrap().point))
        .collect();
    // Excluding an area exercises the per-query corner classification too.
    let filters = [QueryFilter::new(), QueryFilter::new().exclude(1)];
    let mut query = ShortestPathQuery::new(&mesh);
    let mut path = Path::default();
    let run_all = |query: &mut ShortestPathQuery, path: &mut Path| -> (usize, f64) {
        let (mut found, mut total) = (0, 0.0);
        for &(s, g) in &pairs {
            for filter in &filters {
                if query.find_shortest_path_into(&mesh, s, g, filter, path).is_ok() {
                    found += 1;
                    total += path.length;
                }
            }
        }
        (found, total)
    };
    let warm = run_all(&mut query, &mut path);
    let before = allocations();
    let again = run_all(&mut query, &mut path);
    let allocated = allocations() - before;
    assert_eq!(warm, again);
    assert!(warm.0 > 300, "too few paths found: {warm:?}");
    assert_eq!(allocated, 0, "{allocated} allocations in {} warmed-up shortest-path queries", 2 * pairs.len());

    // The convenience form allocates only the returned path's two vectors.
    drop(query.find_shortest_path(&mesh, pairs[0].0, pairs[0].1, &filters[0]));
    let before = allocations();
    let p = query.find_shortest_path(&mesh, pairs[0].0, pairs[0].1, &filters[0]);
    let allocated = allocations() - before;
    drop(p);
    assert!(allocated <= 2, "find_shortest_path allocated {allocated} times");
}

#[test]
fn warmed_up_graph_shortest_path_queries_do_not_allocate() {
    // 2 × 2 pillars apart from one another: no pinch vertices, so the graph answers.
    let blocked =
        (0..24 * 24).map(|i| (i % 24) % 5 >= 2 && (i % 24) % 5 <= 3 && (i / 24) % 5 >= 2 && (i / 24) % 5 <= 3);
    let spec = GridSpec { cols: 24, rows: 24, triangulate: true, blocked: blocked.collect(), ..GridSpec::default() };
    let plain = NavMesh::new(spec.build()).unwrap();
    let graph = meadow_testkit::visibility::naive_graph(&plain);
    let mut data = plain.into_data();
    data.visibility = Some(graph);
    let mesh = QueryMesh::new(NavMesh::new(data).unwrap());
    let filter = QueryFilter::new();
    assert!(ShortestPathQuery::answers_by_graph(&mesh, &filter));
    let mut rng = SplitMix64::new(4);
    let pairs: Vec<([f64; 3], [f64; 3])> = (0..300)
        .map(|_| (mesh.random_point(&mut rng).unwrap().point, mesh.random_point(&mut rng).unwrap().point))
        .collect();
    let mut query = ShortestPathQuery::new(&mesh);
    query.use_visibility_graph(true);
    let mut path = Path::default();
    let run_all = |query: &mut ShortestPathQuery, path: &mut Path| -> (usize, f64, usize) {
        let (mut found, mut total, mut turns) = (0, 0.0, 0);
        for &(s, g) in &pairs {
            if query.find_shortest_path_into(&mesh, s, g, &filter, path).is_ok() {
                found += 1;
                total += path.length;
                turns += path.points.len() - 2;
            }
        }
        (found, total, turns)
    };
    let warm = run_all(&mut query, &mut path);
    let before = allocations();
    let again = run_all(&mut query, &mut path);
    let allocated = allocations() - before;
    assert_eq!(warm, again);
    assert_eq!(warm.0, pairs.len(), "an open grid with pillars: every pair has a path");
    assert!(warm.2 > 100, "too few paths turn at corners: {warm:?}");
    assert_eq!(allocated, 0, "{allocated} allocations in {} warmed-up graph queries", pairs.len());
}

/// A warmed-up ORCA step allocates nothing: a second run of the same Circle trajectory, once its
/// own buffers are sized by its first two steps (the neighbour memory and the grid swap their
/// lists, so each pair is sized over two steps), reuses every buffer, the thread's scratch
/// included (warmed by the first run over the whole trajectory).
#[cfg(feature = "parallel")]
#[test]
fn warmed_up_orca_steps_do_not_allocate() {
    use meadow::orca::scenario::{circle, pref_velocity, CIRCLE_PARAMS, CIRCLE_TIME_STEP};
    use meadow::orca::{Simulator, Vec2};
    const AGENTS: usize = 300;
    const STEPS: usize = 200;
    const WARM_UP_STEPS: usize = 2;
    // One worker: the closure and every step run on it, so its per-thread count sees all of a
    // step's allocations.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().unwrap();
    pool.install(|| {
        let (positions, goals) = circle(AGENTS);
        let new_simulator = || {
            let mut sim = Simulator::new(CIRCLE_TIME_STEP).unwrap();
            for &p in &positions {
                sim.add_agent(p, Vec2::ZERO, CIRCLE_PARAMS).unwrap();
            }
            sim
        };
        let step = |sim: &mut Simulator| {
            for (i, &goal) in goals.iter().enumerate() {
                let v = pref_velocity(sim.positions()[i], goal);
                sim.set_pref_velocity(i, v).unwrap();
            }
            sim.step();
        };
        let mut first = new_simulator();
        for _ in 0..STEPS {
            step(&mut first);
        }
        let mut second = new_simulator();
        for _ in 0..WARM_UP_STEPS {
            step(&mut second);
        }
        let before = allocations();
        for _ in WARM_UP_STEPS..STEPS {
            step(&mut second);
        }
        let allocated = allocations() - before;
        assert_eq!(first.positions(), second.positions());
        let moved = first.positions().iter().zip(&positions).filter(|(a, b)| (**a - **b).abs_sq() > 1.0).count();
        assert_eq!(moved, AGENTS, "every agent walks towards its antipode");
        assert_eq!(allocated, 0, "{allocated} allocations in {} warmed-up ORCA steps", STEPS - WARM_UP_STEPS);
    });
}
