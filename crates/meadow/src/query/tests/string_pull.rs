//! The linear funnel against the restarting one.

use super::*;

#[test]
fn the_linear_funnel_pulls_the_same_strings_as_the_restarting_one() {
    // Corridors of midpoint paths on jittered triangle fans, blocked grids, sloped grids and
    // merged rectangles (collinear vertices on every side, sheared, far from the origin).
    let mut meshes = Vec::new();
    for seed in 0..4u64 {
        let tri = GridSpec {
            cols: 16,
            rows: 12,
            triangulate: true,
            jitter: if seed % 2 == 0 { 0.22 } else { 0.0 },
            seed,
            slope: [0.1 * seed as f64, -0.05],
            blocked: random_blocked(16, 12, 0.1 * seed as f64, seed),
            ..GridSpec::default()
        };
        meshes.push(query_mesh(tri.build()));
        let origin = [[0.0, 0.0], [1e5, -3e4]][seed as usize % 2];
        meshes.push(query_mesh(merged_rectangles(14, 11, seed * 7 + 3, 0.25 * seed as f64, origin)));
    }
    let (mut funnel, mut portals) = (funnel::Funnel::default(), Vec::new());
    let (mut a, mut b, mut at_a, mut at_b) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut compared, mut corners) = (0, 0);
    for (m, mesh) in meshes.iter().enumerate() {
        let mut q = PathQuery::new(mesh);
        let mut rng = SplitMix64::new(m as u64 + 90);
        let mut path = Path::default();
        let options = PathOptions { style: PathStyle::Midpoints, ..PathOptions::default() };
        for _ in 0..300 {
            let (Some(s), Some(g)) = (mesh.random_point(&mut rng), mesh.random_point(&mut rng)) else { break };
            if q.find_path_into(mesh, s.point, g.point, &QueryFilter::new(), options, &mut path).is_err() {
                continue;
            }
            portals.clear();
            for w in path.corridor.windows(2) {
                let first = mesh.poly_first(w[0]);
                let h = (first..first + mesh.poly_len(w[0])).find(|&h| mesh.edge_neighbour(h) == Some(w[1])).unwrap();
                let (right, left) = mesh.edge_endpoints(h);
                portals.push((left, right));
            }
            let (start, goal) = (path.points[0], path.points[path.points.len() - 1]);
            funnel::string_pull(start, goal, &portals, &mut a, &mut at_a, &mut funnel);
            funnel::string_pull_restarting(start, goal, &portals, &mut b, &mut at_b);
            assert_eq!((&a, &at_a), (&b, &at_b), "mesh {m}: {start:?} -> {goal:?}");
            compared += 1;
            corners += a.len() - 2;
        }
    }
    assert!(compared > 2000 && corners > 3000, "{compared} strings, {corners} corners");
}
