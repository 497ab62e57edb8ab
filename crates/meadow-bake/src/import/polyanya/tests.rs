use super::*;
use meadow::query::{QueryFilter, QueryMesh, ShortestPathQuery};

/// Version 2 text of `vertices` (with empty per-vertex polygon lists) and polygons given as
/// (vertices, neighbours in the file's order: entry j across the edge from vertex j - 1 to j).
fn v2(vertices: &[Point2], polygons: &[(Vec<u32>, Vec<i64>)]) -> String {
    let mut s = format!("mesh\n2\n{} {}\n", vertices.len(), polygons.len());
    for p in vertices {
        s += &format!("{} {} 0\n", p[0], p[1]);
    }
    for (vs, ns) in polygons {
        let words: Vec<String> = vs.iter().map(|v| v.to_string()).chain(ns.iter().map(|n| n.to_string())).collect();
        s += &format!("{} {}\n", vs.len(), words.join(" "));
    }
    s
}

/// Two unit squares side by side, joined by a portal.
fn two_squares() -> String {
    let vertices = [[0.0, 0.0], [1.0, 0.0], [2.0, 0.0], [2.0, 1.0], [1.0, 1.0], [0.0, 1.0]];
    v2(&vertices, &[(vec![0, 1, 4, 5], vec![-1, -1, 1, -1]), (vec![1, 2, 3, 4], vec![0, -1, -1, -1])])
}

/// Two traversable triangles of a square and a blocked triangle beside them, in version 3
/// (counting from 1), with comments.
const V3: &str = "mesh // a version 3 mesh\n3\n5 3\n0 0\n2 0\n2 2\n0 2\n3 1\n\
                  1 3 1 2 3 2 0 -3 // walkable\n1 3 1 3 4 0 1 0\n0 3 2 5 3 1 0 0 // blocked\n";

fn shortest(nav: NavMesh, a: Point2, b: Point2) -> f64 {
    let mesh = QueryMesh::new(nav);
    let mut sq = ShortestPathQuery::new(&mesh);
    sq.use_visibility_graph(true);
    let path = sq.find_shortest_path(&mesh, [a[0], 0.0, a[1]], [b[0], 0.0, b[1]], &QueryFilter::new()).unwrap();
    path.points.windows(2).map(|w| (w[1][0] - w[0][0]).hypot(w[1][2] - w[0][2])).sum()
}

#[test]
fn version_2_squares_become_two_polygons_with_a_portal() {
    let nav = import_str(&two_squares(), &import_settings()).unwrap();
    let d = nav.data();
    assert_eq!(d.polygons.len(), 2);
    assert_eq!(d.vertices.len(), 6);
    assert!(d.vertices.iter().all(|v| v[1] == 0.0));
    assert_eq!(d.edge_links.iter().filter(|l| matches!(l, EdgeLink::Polygon(_))).count(), 2);
    assert_eq!(d.outlines.len(), 1);
    assert!(d.visibility.is_some());
    assert!((nav.total_area() - 2.0).abs() < 1e-12);
    // Polyanya's y is Meadow's z.
    assert_eq!(d.vertices[d.polygon_vertices[2] as usize], [1.0, 0.0, 1.0]);
    let len = shortest(nav, [0.1, 0.5], [1.9, 0.5]);
    assert!((len - 1.8).abs() < 1e-12, "{len}");
}

#[test]
fn version_3_keeps_traversable_faces_and_walls_off_blocked_ones() {
    let parsed = parse(V3).unwrap();
    assert_eq!(parsed.version, 3);
    assert_eq!(parsed.polygons[0].vertices, vec![0, 1, 2]);
    // File entry 0 of face 1 (across vertex 3 -> 1) is Meadow edge 2; entry 2 names a blocked face.
    assert_eq!(parsed.polygons[0].neighbours, vec![None, None, Some(1)]);
    assert!(!parsed.polygons[2].traversable);
    let nav = to_navmesh(&parsed, &import_settings()).unwrap();
    let d = nav.data();
    assert_eq!(d.polygons.len(), 2);
    assert_eq!(d.vertices.len(), 4, "the blocked face's own vertex is dropped");
    assert_eq!(d.edge_links.iter().filter(|l| matches!(l, EdgeLink::Polygon(_))).count(), 2);
    let len = shortest(nav, [1.8, 0.2], [0.2, 1.8]);
    assert!((len - 1.6 * 2f64.sqrt()).abs() < 1e-12, "{len}");
}

#[test]
fn long_polygons_are_split_and_keep_their_portals() {
    // A regular 16-gon (split into two pieces) with a triangle outside its edge 12 -> 13,
    // which lands in the second piece.
    let mut vertices: Vec<Point2> = (0..16)
        .map(|i| {
            let a = i as f64 * std::f64::consts::TAU / 16.0;
            [10.0 * a.cos(), 10.0 * a.sin()]
        })
        .collect();
    let (p, q) = (vertices[12], vertices[13]);
    vertices.push([(p[0] + q[0]) * 0.75, (p[1] + q[1]) * 0.75]);
    let mut ns = vec![-1; 16];
    ns[13] = 1;
    let text = v2(&vertices, &[((0..16).collect(), ns), (vec![13, 12, 16], vec![-1, 0, -1])]);
    let nav = import_str(&text, &import_settings()).unwrap();
    let d = nav.data();
    assert_eq!(d.polygons.len(), 3);
    assert!(d.polygons.iter().all(|p| p.vertex_count as usize <= MAX_POLYGON_VERTICES));
    let triangle = d.polygons.iter().position(|p| p.vertex_count == 3).unwrap();
    let tri = nav.polygon(triangle);
    let k = tri.links.iter().position(|l| matches!(l, EdgeLink::Polygon(_))).unwrap();
    let EdgeLink::Polygon(other) = tri.links[k] else { unreachable!() };
    let piece = nav.polygon(other as usize);
    assert!(piece.vertices.contains(&tri.vertices[k]) && piece.vertices.contains(&tri.vertices[(k + 1) % 3]));
    // Across the whole 16-gon and into the triangle: a straight line.
    let goal = [(p[0] + q[0]) * 0.6, (p[1] + q[1]) * 0.6];
    let start = [-goal[0] * 0.7, -goal[1] * 0.7];
    let len = shortest(nav, start, goal);
    assert!((len - (goal[0] - start[0]).hypot(goal[1] - start[1])).abs() < 1e-9, "{len}");
}

#[test]
fn malformed_files_give_typed_errors() {
    let err = |text: &str| import_str(text, &import_settings()).unwrap_err();
    assert!(matches!(err(""), PolyanyaError::NotAMesh));
    assert!(matches!(err("navmesh 2"), PolyanyaError::NotAMesh));
    assert!(matches!(err("mesh\n4\n0 0\n"), PolyanyaError::UnsupportedVersion(v) if v == "4"));
    assert!(matches!(err("mesh\n2\n"), PolyanyaError::UnexpectedEnd { .. }));
    assert!(matches!(err("mesh\n2\n3 -1\n"), PolyanyaError::BadToken { line: 3, .. }));
    let squares = two_squares();
    let cut = &squares[..squares.len() - 6];
    assert!(matches!(err(cut), PolyanyaError::UnexpectedEnd { .. }));
    assert!(matches!(err(&format!("{squares}7\n")), PolyanyaError::TrailingData { line: 12 }));
    assert!(matches!(err(&squares.replace("2 1 0", "2 x 0")), PolyanyaError::BadToken { line: 7, .. }));
    assert!(matches!(err(&squares.replace("2 1 0", "2 NaN 0")), PolyanyaError::NonFiniteVertex { vertex: 3 }));
    assert!(matches!(err(&squares.replace("2 1 0", "2 1e400 0")), PolyanyaError::NonFiniteVertex { vertex: 3 }));
    assert!(matches!(
        err(&squares.replace("1 2 3 4 0", "1 2 3 9 0")),
        PolyanyaError::VertexOutOfRange { polygon: 1, vertex: 9, count: 6 }
    ));
    assert!(matches!(
        err(&squares.replace("4 0 -1 -1 -1", "4 0 -1 -1 5")),
        PolyanyaError::NeighbourOutOfRange { polygon: 1, neighbour: 5, .. }
    ));
    assert!(matches!(
        err(&squares.replace("4 0 -1 -1 -1", "4 -1 -1 -1 -1")),
        PolyanyaError::AsymmetricNeighbour { polygon: 0, edge: 1, neighbour: 1 }
    ));
    // Clockwise.
    assert!(matches!(err(&squares.replace("4 1 2 3 4", "4 4 3 2 1")), PolyanyaError::NotConvex { polygon: 1 }));
    assert!(matches!(
        err(&squares.replace("4 1 2 3 4 0 -1 -1 -1", "2 1 2 0 -1")),
        PolyanyaError::TooFewVertices { polygon: 1, count: 2 }
    ));
    assert!(matches!(err("mesh 3 1 1 0 0 0 3 1 1 1 0 0 0"), PolyanyaError::Empty));
    assert!(matches!(err("mesh 3 3 1 0 0 1 0 0 1 0 3 1 2 3 0 0 0"), PolyanyaError::Empty));
    // Beyond Meadow's coordinate contract.
    let far = squares.replace("2 0 0\n", "3000000 0 0\n");
    assert!(matches!(err(&far), PolyanyaError::NotConvex { .. } | PolyanyaError::Invalid(_)));
    let e = err(&squares.replace("2 1 0", "2 x 0"));
    assert_eq!(e.to_string(), "line 7: expected a vertex y, found `x`");
}

#[test]
fn no_edit_of_a_small_file_panics() {
    for text in [two_squares(), V3.to_string()] {
        for end in 0..=text.len() {
            let _ = import_str(&text[..end], &import_settings());
        }
        for (i, _) in text.char_indices() {
            for c in ["9", "-", "x", " ", "\n", "0", "-1", "1e9"] {
                let mut t = text.clone();
                t.replace_range(i..i + 1, c);
                let _ = import_str(&t, &import_settings());
            }
        }
    }
}

#[test]
fn missing_files_name_their_path() {
    let e = import_file("/nonexistent/level.mesh", &import_settings()).unwrap_err();
    assert!(matches!(e, PolyanyaError::Io { .. }));
    assert!(e.to_string().contains("/nonexistent/level.mesh"));
}

#[test]
fn polygons_touching_at_a_point_do_not_share_it() {
    // Two triangles meeting only at (1, 1), no portal between them: as in Polyanya, no path
    // passes through the point, so Meadow gets one copy of the vertex per triangle.
    let vertices = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [2.0, 1.0], [2.0, 2.0]];
    let text = v2(&vertices, &[(vec![0, 1, 2], vec![-1, -1, -1]), (vec![2, 3, 4], vec![-1, -1, -1])]);
    let nav = import_str(&text, &import_settings()).unwrap();
    assert_eq!(nav.vertices().len(), 6);
    let mesh = QueryMesh::new(nav);
    let mut sq = ShortestPathQuery::new(&mesh);
    let r = sq.find_shortest_path(&mesh, [0.8, 0.0, 0.3], [1.8, 0.0, 1.5], &QueryFilter::new());
    assert!(r.is_err(), "{r:?}");
}
