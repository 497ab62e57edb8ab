//! Answers over a visibility graph (built here by the query's own walk, until a bake provides
//! one) against the search without the graph and the brute-force oracle.

use super::*;

/// XZ length of a polyline.
fn flat_length(points: &[[f64; 3]]) -> f64 {
    points.windows(2).map(|w| dist2(xz(w[0]), xz(w[1]))).sum()
}

/// `blocked` with every pinch (two blocked cells meeting at one corner only) filled in, so the
/// graph answers on the mesh.
fn without_pinches(cols: usize, mut blocked: Vec<bool>) -> Vec<bool> {
    let rows = blocked.len() / cols;
    loop {
        let mut changed = false;
        for r in 0..rows - 1 {
            for c in 0..cols - 1 {
                let at = |dc: usize, dr: usize| (r + dr) * cols + c + dc;
                let (a, b, d, e) = (blocked[at(0, 0)], blocked[at(1, 0)], blocked[at(0, 1)], blocked[at(1, 1)]);
                if (a && e && !b && !d) || (b && d && !a && !e) {
                    blocked[at(1, 0)] = true;
                    blocked[at(0, 0)] = true;
                    changed = true;
                }
            }
        }
        if !changed {
            return blocked;
        }
    }
}

/// `data` with a visibility graph attached.
fn with_graph(data: crate::asset::NavMeshData) -> QueryMesh {
    let plain = query_mesh(data);
    let graph = crate::query::visibility::graph_by_walks(&plain);
    let mut data = plain.into_mesh().into_data();
    data.visibility = Some(graph);
    query_mesh(data)
}

/// Compares `pairs` random queries (vertices and edge midpoints among the ends); returns the
/// number of paths found.
fn compare(mesh: &QueryMesh, pairs: usize, seed: u64) -> usize {
    let oracle = Oracle::new(mesh, Visibility::ClosedSegment);
    let mut rng = SplitMix64::new(seed);
    let verts = mesh.mesh().vertices();
    let edges = mesh.half_edge_count();
    let points: Vec<[f64; 3]> = (0..pairs * 4)
        .map(|i| match i % 5 {
            0 => verts[(rng.next_u64() % verts.len() as u64) as usize],
            1 => {
                let (a, b) = mesh.edge_endpoints((rng.next_u64() % edges as u64) as usize);
                [(a[0] + b[0]) * 0.5, (a[1] + b[1]) * 0.5, (a[2] + b[2]) * 0.5]
            }
            _ => mesh.random_point(&mut rng).unwrap().point,
        })
        .filter(|&p| mesh.locate(p).is_ok())
        .take(pairs * 2)
        .collect();
    let mut sq = ShortestPathQuery::new(mesh);
    sq.use_visibility_graph(true);
    let filter = QueryFilter::new();
    let mut found = 0;
    for w in points.chunks(2) {
        let (s, g) = (w[0], w[1]);
        let by_graph = sq.find_shortest_path(mesh, s, g, &filter);
        let by_search = sq.find_shortest_path_by_search(mesh, s, g, &filter);
        let (p, q) = match (by_graph, by_search) {
            (Ok(p), Ok(q)) => (p, q),
            (Err(a), Err(b)) if a == b => continue,
            (a, b) => panic!("{s:?} -> {g:?}: graph {a:?}, search {b:?}"),
        };
        let (a, b) = (flat_length(&p.points), flat_length(&q.points));
        assert!(
            (a - b).abs() <= 1e-9 * (1.0 + b),
            "{s:?} -> {g:?}: graph {a} vs search {b}: {:?} / {:?}",
            p.points,
            q.points
        );
        let (sl, gl) = (mesh.locate(s).unwrap(), mesh.locate(g).unwrap());
        assert_eq!(p.points.first(), Some(&sl.point));
        assert_eq!(p.points.last(), Some(&gl.point));
        assert_eq!(p.corridor.first(), Some(&sl.polygon));
        assert_eq!(p.corridor.last(), Some(&gl.polygon));
        assert_eq!(p.length.to_bits(), polyline_length(&p.points).to_bits());
        for w in p.corridor.windows(2) {
            let ring = |p: u32| (0..mesh.poly_len(p)).map(move |k| xz(mesh.poly_vertex(p, k)));
            assert!(
                ring(w[0]).any(|a| ring(w[1]).any(|b| a == b)),
                "{s:?} -> {g:?}: corridor {w:?} does not touch: {:?} {:?}",
                p.points,
                p.corridor
            );
        }
        for w in p.points.windows(2) {
            assert!(oracle.visible(xz(w[0]), xz(w[1])), "segment {w:?} leaves the mesh");
        }
        found += 1;
    }
    found
}

#[test]
fn graph_answers_equal_the_search_on_grids() {
    let (mut total, mut pinched) = (0, 0);
    for (seed, triangulate, fraction, jitter) in
        [(1, false, 0.2, 0.0), (2, true, 0.25, 0.0), (3, true, 0.15, 0.2), (4, false, 0.3, 0.0), (5, true, 0.35, 0.0)]
    {
        // Each grid with its pinches filled in, and a grid as drawn (blocked cells touching at a
        // corner pinch the free space there).
        let mut rng = SplitMix64::new(seed);
        let raw: Vec<bool> = (0..14 * 12).map(|_| rng.next_f64() < fraction).collect();
        for blocked in [without_pinches(14, random_blocked(14, 12, fraction, seed)), raw] {
            let spec = GridSpec { cols: 14, rows: 12, triangulate, jitter, seed, blocked, ..GridSpec::default() };
            let mesh = with_graph(spec.build());
            assert!(mesh.mesh().visibility().is_some_and(|g| g.edge_count() > 0));
            assert!(ShortestPathQuery::answers_by_graph(&mesh, &QueryFilter::new()), "the graph must answer here");
            pinched += usize::from(mesh.corner_table().unwrap().pinch.iter().any(|&p| p));
            total += compare(&mesh, 300, seed);
        }
    }
    assert!(pinched >= 3, "only {pinched} grids with pinches");
    assert!(total > 2000, "{total}");
}

#[test]
fn excluded_areas_and_links_use_the_search() {
    let spec =
        GridSpec { cols: 6, rows: 6, blocked: without_pinches(6, random_blocked(6, 6, 0.2, 9)), ..GridSpec::default() };
    let mesh = with_graph(spec.build());
    let mut sq = ShortestPathQuery::new(&mesh);
    sq.use_visibility_graph(true);
    let (s, g) = ([0.5, 0.0, 0.5], [5.5, 0.0, 5.5]);
    let a = sq.find_shortest_path(&mesh, s, g, &QueryFilter::new());
    let b = sq.find_shortest_path_by_search(&mesh, s, g, &QueryFilter::new());
    assert_eq!(a.map(|p| flat_length(&p.points)).ok(), b.map(|p| flat_length(&p.points)).ok());
    // A free teleporter from the start's cell to the goal's: only the search takes it.
    mesh.add_link(&LinkSpec { cost: Some(0.0), ..LinkSpec::new([0.5, 0.0, 0.5], [5.5, 0.0, 5.5]) }).unwrap();
    let p = sq.find_shortest_path(&mesh, [0.4, 0.0, 0.5], [5.5, 0.0, 5.4], &QueryFilter::new()).unwrap();
    assert_eq!(p.links.len(), 1);
}
