//! Raycasts against the visibility oracle, and the vertex-side mesh walk against the edge-by-edge
//! one.

use super::*;

#[test]
fn raycast_agrees_with_the_visibility_oracle() {
    let spec = GridSpec {
        cols: 10,
        rows: 8,
        triangulate: true,
        blocked: random_blocked(10, 8, 0.2, 31),
        ..GridSpec::default()
    };
    let mesh = query_mesh(spec.build());
    let oracle = Oracle::new(&mesh, Visibility::ClosedSegment);
    let mut rng = SplitMix64::new(32);
    let mut visited = Vec::new();
    let (mut hits, mut clear) = (0, 0);
    for _ in 0..400 {
        let s = mesh.random_point(&mut rng).unwrap();
        let e = [rng.next_f64() * 12.0 - 1.0, 0.0, rng.next_f64() * 10.0 - 1.0];
        let r = mesh.raycast(s.point, e, &mut visited).unwrap();
        assert_eq!(visited.first(), Some(&s.polygon));
        for w in visited.windows(2) {
            assert!(!corridor_portal(&mesh, w[0], w[1]).is_empty(), "walk jumps {w:?}");
        }
        assert_eq!(r.last_polygon, *visited.last().unwrap());
        let visible = oracle.visible(xz(s.point), xz(e));
        match r.hit {
            None => {
                assert!(visible, "ray {s:?} -> {e:?} passed a wall");
                assert!(mesh.polygon_contains(r.last_polygon, xz(e)));
                clear += 1;
            }
            Some(hit) => {
                assert!(!visible, "ray {s:?} -> {e:?} hit a wall it does not reach");
                let (a, b) = (
                    mesh.poly_vertex(hit.polygon, hit.edge as usize),
                    mesh.poly_vertex(hit.polygon, hit.edge as usize + 1),
                );
                assert_eq!(mesh.edge_neighbour(mesh.poly_first(hit.polygon) + hit.edge as usize), None);
                assert!(crate::geom::point_segment_distance(xz(hit.point), xz(a), xz(b)) < 1e-9);
                assert!((0.0..=1.0).contains(&hit.t));
                // The normal faces the ray's origin.
                let d = [e[0] - s.point[0], e[2] - s.point[2]];
                assert!(d[0] * hit.normal[0] + d[1] * hit.normal[2] <= 0.0);
                assert!((hit.normal[0].hypot(hit.normal[2]) - 1.0).abs() < 1e-12);
                hits += 1;
            }
        }
    }
    assert!(hits > 50 && clear > 50, "hits {hits}, clear {clear}");
}

#[test]
fn rays_leave_through_the_right_one_of_collinear_edges() {
    // A wide top polygon whose bottom side is split into four collinear edges: three portals
    // to cells below and a wall. Every edge on that line gives the same (or a rounding-close)
    // segment parameter, so the exit edge must be told apart by where the ray's line crosses.
    let v = |x: f64, z: f64| [x, 0.0, z];
    let vertices = vec![
        v(0.0, 0.0),
        v(1.0, 0.0),
        v(2.0, 0.0),
        v(3.0, 0.0),
        v(4.0, 0.0), // 0..=4 on z = 0
        v(4.0, 1.0),
        v(0.0, 1.0), // 5, 6: the top polygon's far side
        v(0.0, -1.0),
        v(1.0, -1.0),
        v(2.0, -1.0),
        v(4.0, -1.0), // 7..=10 below
    ];
    let rings = vec![
        (vec![0, 1, 2, 3, 4, 5, 6], 0u16), // top: its bottom side 0-1, 1-2, 2-3 (wall), 3-4
        (vec![7, 8, 1, 0], 0),
        (vec![8, 9, 2, 1], 0),
        (vec![3, 10, 4], 0),
    ];
    let areas = vec![AreaType { name: "default".into(), cost: 1.0 }];
    let data = crate::testmesh::assemble(crate::BakeSettings::DEFAULT, vertices, &rings, areas, 0);
    let mesh = query_mesh(data);
    let mut visited = Vec::new();
    for (x, below) in [(0.5, Some(1u32)), (1.5, Some(2)), (3.7, Some(3)), (2.5, None)] {
        let r = mesh.raycast([x, 0.0, 0.5], [x, 0.0, -0.2], &mut visited).unwrap();
        match below {
            Some(cell) => {
                assert_eq!(r.hit, None, "ray at x = {x}");
                assert_eq!(visited, vec![0, cell], "ray at x = {x}");
            }
            None => {
                let hit = r.hit.expect("the ray at x = 2.5 meets the wall between x = 2 and 3");
                assert_eq!((hit.polygon, visited.len()), (0, 1));
                assert!((hit.point[0] - 2.5).abs() < 1e-12 && hit.point[2].abs() < 1e-12);
            }
        }
    }
}

#[test]
fn walking_by_vertex_sides_matches_the_edge_by_edge_walk() {
    // The fast exit-edge choice (vertex sides, two reused per step) against the plain one on
    // meshes of jittered triangles, plain quads (many segments run through vertices and along
    // edges) and blocked cells, from random points and from mesh vertices.
    let specs = [
        GridSpec { cols: 12, rows: 9, triangulate: true, jitter: 0.2, seed: 4, ..GridSpec::default() },
        GridSpec { cols: 12, rows: 9, blocked: random_blocked(12, 9, 0.25, 5), ..GridSpec::default() },
        GridSpec {
            cols: 12,
            rows: 9,
            triangulate: true,
            blocked: random_blocked(12, 9, 0.2, 6),
            ..GridSpec::default()
        },
    ];
    let mut rng = SplitMix64::new(77);
    let (mut steps, mut hits) = (0, 0);
    for spec in specs {
        let mesh = query_mesh(spec.build());
        let vertices = mesh.mesh().vertices().to_vec();
        for i in 0..3000 {
            let start = mesh.random_point(&mut rng).unwrap();
            let (poly, ps) = if i % 3 == 0 {
                // From a vertex of the start polygon, as the shortcut pass casts from corners.
                let k = (rng.next_f64() * mesh.poly_len(start.polygon) as f64) as usize;
                (start.polygon, xz(mesh.poly_vertex(start.polygon, k)))
            } else {
                (start.polygon, xz(start.point))
            };
            let pe = if i % 5 == 0 {
                xz(vertices[(rng.next_f64() * vertices.len() as f64) as usize])
            } else {
                [rng.next_f64() * 14.0 - 1.0, rng.next_f64() * 11.0 - 1.0]
            };
            let run = |fast: bool| {
                let mut crossed = Vec::new();
                let end = match mesh.walk_segment_with(poly, ps, pe, |h| crossed.push(h), fast) {
                    raycast::WalkEnd::Clear(p) => (0, p, 0, 0.0),
                    raycast::WalkEnd::Hit(p, k, t) => (1, p, k, t),
                    raycast::WalkEnd::Limit => (2, 0, 0, 0.0),
                };
                (end, crossed)
            };
            let (fast, plain) = (run(true), run(false));
            assert_eq!(fast.0 .0, plain.0 .0, "{ps:?} -> {pe:?}");
            assert_eq!(fast.1, plain.1, "{ps:?} -> {pe:?}: different portals");
            assert_eq!(fast.0 .1, plain.0 .1);
            assert_eq!(fast.0 .2, plain.0 .2);
            assert!((fast.0 .3 - plain.0 .3).abs() <= 1e-12, "{ps:?} -> {pe:?}: t {} vs {}", fast.0 .3, plain.0 .3);
            steps += fast.1.len();
            hits += fast.0 .0;
        }
    }
    assert!(steps > 20_000 && hits > 1000, "steps {steps}, hits {hits}");
}

#[test]
fn walking_by_vertex_sides_matches_on_polygons_with_collinear_vertices() {
    // Segments from interior points and from vertices, along grid directions (through many
    // vertices and along edges) and to vertices, on sheared and far-off meshes.
    let mut rng = SplitMix64::new(5);
    let (mut walks, mut steps) = (0, 0);
    for (m, (shear, origin)) in
        [(0.0, [0.0, 0.0]), (1.0, [0.0, 0.0]), (0.5, [12345.5, -6789.25]), (2.0, [1.0e6 + 0.125, 3.0e5])]
            .into_iter()
            .enumerate()
    {
        for seed in 0..2u64 {
            let mesh = query_mesh(merged_rectangles(14, 11, seed * 31 + m as u64, shear, origin));
            let vertices = mesh.mesh().vertices().to_vec();
            for i in 0..2500 {
                let start = mesh.random_point(&mut rng).unwrap();
                let ps = if i % 4 == 0 {
                    let k = (rng.next_f64() * mesh.poly_len(start.polygon) as f64) as usize;
                    xz(mesh.poly_vertex(start.polygon, k))
                } else {
                    xz(start.point)
                };
                let pe = match i % 3 {
                    0 => xz(vertices[(rng.next_f64() * vertices.len() as f64) as usize]),
                    1 => {
                        let (dx, dz) = ((rng.next_f64() * 9.0).floor() - 4.0, (rng.next_f64() * 9.0).floor() - 4.0);
                        let s = (rng.next_f64() * 3.0).floor() + 0.5;
                        [ps[0] + dx * s, ps[1] + dz * s]
                    }
                    _ => xz(mesh.random_point(&mut rng).unwrap().point),
                };
                let run = |fast: bool| {
                    let mut crossed = Vec::new();
                    let end = match mesh.walk_segment_with(start.polygon, ps, pe, |h| crossed.push(h), fast) {
                        raycast::WalkEnd::Clear(p) => (0, p, 0, 0.0),
                        raycast::WalkEnd::Hit(p, k, t) => (1, p, k, t),
                        raycast::WalkEnd::Limit => (2, 0, 0, 0.0),
                    };
                    (end, crossed)
                };
                let (fast, plain) = (run(true), run(false));
                assert_eq!((fast.0 .0, fast.0 .1, fast.0 .2), (plain.0 .0, plain.0 .1, plain.0 .2), "{ps:?} -> {pe:?}");
                assert_eq!(fast.1, plain.1, "{ps:?} -> {pe:?}: different portals");
                assert!((fast.0 .3 - plain.0 .3).abs() <= 1e-12, "{ps:?} -> {pe:?}");
                walks += 1;
                steps += fast.1.len();
            }
        }
    }
    assert!(walks == 20_000 && steps > 30_000, "walks {walks}, steps {steps}");
}
