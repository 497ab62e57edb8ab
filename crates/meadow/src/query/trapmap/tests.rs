//! The trapezoidal map against linear scans (random points, points on edges and vertices, the
//! tie rule), degenerate and non-planar inputs, the locator against the grid, and roadmap paths
//! staying in free space.

use super::*;
use crate::asset::NavMesh;
use crate::oracle::{Oracle, Visibility};
use crate::query::{xz, QueryMesh, SplitMix64};
use crate::testmesh::{combine, random_blocked, segment_in_one_layer, GridSpec};

/// Every polygon edge of the mesh, labelled with its polygon.
fn all_edges(mesh: &QueryMesh) -> Vec<(Point2, Point2, u32)> {
    (0..mesh.mesh().polygon_count() as u32)
        .flat_map(|p| mesh.poly_edges(p).iter().map(move |&[a, b]| (xz(a), xz(b), p)))
        .collect()
}

/// The polygon whose interior holds `q` strictly (exact orientation), by linear scan.
fn strictly_inside(mesh: &QueryMesh, q: Point2) -> Option<u32> {
    (0..mesh.mesh().polygon_count() as u32)
        .find(|&p| mesh.poly_edges(p).iter().all(|&[a, b]| orient2d(xz(a), xz(b), q) > 0.0))
}

fn label(map: &TrapMap, q: Point2, tie: Tie) -> (u32, bool) {
    let (t, on) = map.locate(q, tie);
    (if t == NONE { NONE } else { map.trapezoids()[t as usize].label }, on)
}

/// Integer grids: square cells (vertical edges, many points on one x, collinear edges along
/// the grid lines) or cells split by diagonals, with holes.
fn integer_grid(triangulate: bool, seed: u64) -> QueryMesh {
    let (cols, rows) = (9, 7);
    let spec =
        GridSpec { cols, rows, triangulate, blocked: random_blocked(cols, rows, 0.3, seed), ..GridSpec::default() };
    QueryMesh::new(NavMesh::new(spec.build()).expect("valid grid"))
}

#[test]
fn map_agrees_with_a_linear_scan_on_random_points_edges_and_vertices() {
    for (triangulate, seed) in [(false, 1), (true, 2), (false, 3), (true, 4)] {
        let mesh = integer_grid(triangulate, seed);
        let map = TrapMap::build(&all_edges(&mesh), |a, b| a == b).expect("a grid is planar");
        let mut rng = SplitMix64::new(seed);
        let mut checked_on = 0;
        for i in 0..4000 {
            // Random points, vertices (integers), edge points (halves: on square sides and on
            // the diagonals), some outside the mesh.
            let q = match i % 3 {
                0 => [rng.next_f64() * 11.0 - 1.0, rng.next_f64() * 9.0 - 1.0],
                1 => [(rng.next_u64() % 12) as f64 - 1.0, (rng.next_u64() % 10) as f64 - 1.0],
                _ => [((rng.next_u64() % 22) as f64 - 2.0) * 0.5, ((rng.next_u64() % 18) as f64 - 2.0) * 0.5],
            };
            let on_edge = strictly_inside(&mesh, q).is_none()
                && (0..mesh.mesh().polygon_count() as u32).any(|p| mesh.polygon_contains(p, q));
            let (got, on) = label(&map, q, Tie::Up);
            // The tie rule: the point moved straight up, an infinitesimal step (slightly left,
            // so a point on a vertical edge goes to its left side).
            let moved = [q[0] - 1e-9, q[1] + 1e-6];
            assert_eq!(got, strictly_inside(&mesh, moved).unwrap_or(NONE), "{q:?}");
            if let Some(p) = strictly_inside(&mesh, q) {
                assert!(!on, "{q:?} is inside polygon {p}");
            }
            if on_edge {
                checked_on += 1;
                assert!(on, "{q:?} lies on an edge");
                // Moved towards the inside of any polygon holding it, it lands in that polygon.
                for p in (0..mesh.mesh().polygon_count() as u32).filter(|&p| mesh.polygon_contains(p, q)) {
                    let n = mesh.poly_len(p) as f64;
                    let c = (0..mesh.poly_len(p))
                        .map(|k| xz(mesh.poly_vertex(p, k)))
                        .fold([0.0, 0.0], |s, v| [s[0] + v[0] / n, s[1] + v[1] / n]);
                    assert_eq!(label(&map, q, Tie::Toward(c)).0, p, "{q:?} towards {c:?}");
                }
            }
        }
        assert!(checked_on > 500, "only {checked_on} boundary points");
    }
}

#[test]
fn map_agrees_with_a_linear_scan_on_jittered_triangles() {
    let spec = GridSpec { cols: 12, rows: 10, triangulate: true, jitter: 0.2, seed: 7, ..GridSpec::default() };
    let mesh = QueryMesh::new(NavMesh::new(spec.build()).expect("valid grid"));
    let map = TrapMap::build(&all_edges(&mesh), |a, b| a == b).expect("a triangulation is planar");
    let mut rng = SplitMix64::new(8);
    for _ in 0..5000 {
        let q = [rng.next_f64() * 14.0 - 1.0, rng.next_f64() * 12.0 - 1.0];
        let (got, on) = label(&map, q, Tie::Up);
        match strictly_inside(&mesh, q) {
            Some(p) => assert_eq!((got, on), (p, false), "{q:?}"),
            None if (0..mesh.mesh().polygon_count() as u32).any(|p| mesh.polygon_contains(p, q)) => assert!(on),
            None => assert_eq!(got, NONE, "{q:?} is outside"),
        }
    }
    // Every vertex is reported on the boundary.
    for v in mesh.mesh().vertices() {
        assert!(map.locate(xz(*v), Tie::Up).1, "vertex {v:?}");
    }
}

#[test]
fn degenerate_but_planar_inputs_build() {
    let sq = |x0: f64, z0: f64, x1: f64, z1: f64, l: u32| {
        vec![([x0, z0], [x1, z0], l), ([x1, z0], [x1, z1], l), ([x1, z1], [x0, z1], l), ([x0, z1], [x0, z0], l)]
    };
    // A column of squares: every point shares an x with three others, vertical edges meet end
    // to end, horizontal edges are shared.
    let mut column = Vec::new();
    for k in 0..4 {
        column.extend(sq(0.0, k as f64, 1.0, k as f64 + 1.0, k));
    }
    let map = TrapMap::build(&column, |a, b| a == b).expect("planar");
    for k in 0..4 {
        assert_eq!(label(&map, [0.5, k as f64 + 0.5], Tie::Up), (k, false));
        // On the left (vertical) side: the tie puts it left, outside.
        assert_eq!(label(&map, [0.0, k as f64 + 0.5], Tie::Up), (NONE, true));
        assert_eq!(label(&map, [0.0, k as f64 + 0.5], Tie::Toward([0.5, 0.5 + k as f64])), (k, true));
        // On the shared bottom side: above it.
        assert_eq!(label(&map, [0.5, k as f64], Tie::Up), (k, true));
    }
    // Collinear edges one after another (a polygon with a straight angle at (1, 0)).
    let tri = vec![
        ([0.0, 0.0], [1.0, 0.0], 0),
        ([1.0, 0.0], [2.0, 0.0], 0),
        ([2.0, 0.0], [1.0, 1.0], 0),
        ([1.0, 1.0], [0.0, 0.0], 0),
    ];
    let map = TrapMap::build(&tri, |a, b| a == b).expect("planar");
    assert_eq!(label(&map, [1.0, 0.5], Tie::Up), (0, false));
    assert_eq!(label(&map, [1.0, 0.0], Tie::Up), (0, true));
    assert_eq!(label(&map, [1.0, 1.5], Tie::Up), (NONE, false));
}

#[test]
fn crossing_touching_and_overlapping_segments_are_refused() {
    let e = |a: Point2, b: Point2| (a, b, 0u32);
    let cases: Vec<Vec<(Point2, Point2, u32)>> = vec![
        vec![e([0.0, 0.0], [2.0, 2.0]), e([0.0, 2.0], [2.0, 0.0])],
        vec![e([0.0, 0.0], [2.0, 0.0]), e([1.0, 0.0], [1.0, 1.0])],
        vec![e([0.0, 0.0], [2.0, 0.0]), e([1.0, 1.0], [1.0, 0.0])],
        vec![e([0.0, 0.0], [2.0, 0.0]), e([1.0, 0.0], [3.0, 0.0])],
        vec![e([0.0, 0.0], [2.0, 0.0]), e([0.0, 0.0], [1.0, 0.0])],
        vec![e([0.0, 0.0], [0.0, 2.0]), e([0.0, 1.0], [0.0, 3.0])],
        vec![e([0.0, 0.0], [0.0, 2.0]), e([-1.0, 1.0], [1.0, 1.0])],
        vec![e([0.0, 0.0], [2.0, 0.0]), e([0.0, 0.0], [2.0, 0.0])],
    ];
    for (i, case) in cases.iter().enumerate() {
        // With other segments round them, in both input orders (the shuffle is seeded by input).
        let mut padded = case.clone();
        for k in 0..6 {
            let x = 10.0 + k as f64;
            padded.push(e([x, 0.0], [x + 0.5, 1.0]));
        }
        let mut reversed = padded.clone();
        reversed.reverse();
        for input in [case, &padded, &reversed] {
            assert_eq!(TrapMap::build(input, |_, _| true).err(), Some(NotPlanar), "case {i}");
        }
    }
}

/// Random points on a mesh: on polygons, at vertices, on edges, at several heights.
fn probe_points(mesh: &QueryMesh, rng: &mut SplitMix64, n: usize) -> Vec<[f64; 3]> {
    let mut out = Vec::new();
    let verts = mesh.mesh().vertices();
    for i in 0..n {
        let dy = [0.0, 0.3, -0.3, 2.0, 3.1][i % 5];
        let p = match i % 3 {
            0 => mesh.random_point(rng).expect("mesh has area").point,
            1 => verts[(rng.next_u64() % verts.len() as u64) as usize],
            _ => {
                let h = (rng.next_u64() % mesh.half_edge_count() as u64) as usize;
                let (a, b) = mesh.edge_endpoints(h);
                [(a[0] + b[0]) * 0.5, (a[1] + b[1]) * 0.5, (a[2] + b[2]) * 0.5]
            }
        };
        out.push([p[0], p[1] + dy, p[2]]);
    }
    out
}

#[test]
fn trapezoidal_locator_returns_the_grids_polygon_on_layered_meshes() {
    let lower =
        GridSpec { cols: 8, rows: 6, triangulate: true, jitter: 0.2, slope: [0.05, -0.03], ..GridSpec::default() };
    let upper = GridSpec { cols: 4, rows: 3, cell: 1.5, origin: [2.0, 3.0, 1.0], layer: 1, ..GridSpec::default() };
    let data = combine(lower.build(), upper.build());
    let grid = QueryMesh::new(NavMesh::new(data.clone()).expect("valid"));
    let maps = QueryMesh::with_locator(NavMesh::new(data).expect("valid"), Locator::TrapezoidalMap);
    assert_eq!(maps.locator(), Locator::TrapezoidalMap);
    let stats = maps.trapezoidal_map_stats().expect("built");
    assert_eq!((stats.layers, stats.mapped_layers), (2, 2));
    let mut rng = SplitMix64::new(11);
    for p in probe_points(&grid, &mut rng, 3000) {
        assert_eq!(maps.locate(p), grid.locate(p), "{p:?}");
    }
}

#[test]
fn roadmap_paths_stay_in_free_space_and_connect_what_the_mesh_connects() {
    let meshes = [
        integer_grid(false, 21),
        integer_grid(true, 22),
        QueryMesh::new(
            NavMesh::new(
                GridSpec {
                    cols: 10,
                    rows: 8,
                    triangulate: true,
                    jitter: 0.2,
                    seed: 5,
                    blocked: random_blocked(10, 8, 0.25, 23),
                    ..GridSpec::default()
                }
                .build(),
            )
            .expect("valid"),
        ),
    ];
    for (m, mesh) in meshes.iter().enumerate() {
        check_roadmap(mesh, m);
    }
}

/// Roadmap paths between random points of `mesh`: found exactly when the exact oracle finds a
/// path, from the start to the goal, no shorter than the optimum, every segment in free space.
fn check_roadmap(mesh: &QueryMesh, m: usize) {
    {
        let oracle = Oracle::new(mesh, Visibility::ClosedSegment);
        let mut rng = SplitMix64::new(31 + m as u64);
        let mut found = 0;
        for _ in 0..150 {
            let s = mesh.random_point(&mut rng).expect("area").point;
            let g = mesh.random_point(&mut rng).expect("area").point;
            let truth = oracle.shortest(xz(s), xz(g));
            match mesh.find_roadmap_path(s, g) {
                Ok(path) => {
                    found += 1;
                    let exact =
                        truth.unwrap_or_else(|| panic!("mesh {m}: roadmap joins {s:?} {g:?}, the mesh does not"));
                    assert_eq!((path.points[0], *path.points.last().unwrap()), (s, g));
                    assert!(path.length >= exact - 1e-9, "shorter than the optimum");
                    for w in path.points.windows(2) {
                        assert!(
                            segment_in_one_layer(mesh, xz(w[0]), xz(w[1])),
                            "mesh {m}: {:?} -> {:?} leaves",
                            w[0],
                            w[1]
                        );
                    }
                }
                Err(e) => assert!(truth.is_none(), "mesh {m}: {s:?} -> {g:?}: {e}, the mesh joins them"),
            }
        }
        assert!(found > 50, "mesh {m}: only {found} paths");
        assert!(mesh.roadmap.get().expect("built").node_count() > 0);
    }
}

/// A grid whose polygons are put on three layers by position (all in one plane, so the
/// portals between them are seams).
fn three_layer_grid() -> QueryMesh {
    let spec =
        GridSpec { cols: 9, rows: 7, triangulate: true, blocked: random_blocked(9, 7, 0.2, 41), ..GridSpec::default() };
    let mut data = spec.build();
    for p in 0..data.polygons.len() {
        let first = data.polygons[p].first as usize;
        let n = data.polygons[p].vertex_count as usize;
        let c = (first..first + n)
            .map(|k| data.vertices[data.polygon_vertices[k] as usize])
            .fold([0.0; 3], |s, v| [s[0] + v[0], 0.0, s[2] + v[2]]);
        data.polygons[p].layer = if c[0] / n as f64 > 4.5 {
            1
        } else if c[2] / n as f64 > 3.5 {
            2
        } else {
            0
        };
    }
    QueryMesh::new(NavMesh::new(data).expect("valid"))
}

#[test]
fn roadmap_crosses_layers_through_seams() {
    let mesh = three_layer_grid();
    check_roadmap(&mesh, 3);
    // The same polygons on one layer give the same connectivity, through no seam.
    let maps = QueryMesh::with_locator(mesh.mesh().clone(), Locator::TrapezoidalMap);
    assert_eq!(maps.trapezoidal_map_stats().map(|s| (s.layers, s.mapped_layers)), Some((3, 3)));
    let mut rng = SplitMix64::new(5);
    for p in probe_points(&mesh, &mut rng, 2000) {
        assert_eq!(maps.locate(p), mesh.locate(p), "{p:?}");
    }
}
