//! Unit and property tests of the triangulation (ear clipping and flips).

use super::checks::*;
use super::*;
use meadow::geom::{incircle, orient2d};
use proptest::prelude::*;

fn run(p: &PolygonWithHoles) -> Triangulation {
    let t = triangulate(p).expect("triangulates");
    check_triangulation(p, &t, true);
    check_flipped(p, &t, true);
    t
}

/// Triangulates a hole-free polygon with the last-resort splits only: rings split where
/// they touch themselves, then along diagonals, until only triangles are left.
fn split_only(p: &PolygonWithHoles) -> Triangulation {
    let vertices = p.outer.clone();
    let (canonical, shared) = weld(&vertices);
    let mut c = Clipper::new(&vertices, canonical, shared);
    let start = c.build_ring(0, vertices.len());
    let start = c.prepare_ring(start, Winding::CounterClockwise).expect("has area");
    c.build_grid();
    let mut stack = vec![start];
    let mut triangles = Vec::new();
    while let Some(r) = stack.pop() {
        let nodes = c.ring_nodes(r);
        if nodes.len() == 3 {
            triangles.push([nodes[0], nodes[1], nodes[2]].map(|v| c.vert[v as usize]));
            continue;
        }
        let (a, b) = c.split_at_touch(r).or_else(|| c.split_by_diagonal(r)).expect("a split exists");
        assert!(c.ring_nodes(a).len() < nodes.len() && c.ring_nodes(b).len() < nodes.len());
        stack.extend([a, b]);
    }
    Triangulation { vertices, triangles }
}

#[test]
fn last_resort_splits_triangulate() {
    let comb = [[0.0, 0.0], [5.0, 0.0], [5.0, 4.0], [4.0, 4.0], [4.0, 1.0], [3.0, 1.0], [3.0, 4.0], [2.0, 4.0]];
    let touching = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [2.0, 1.0], [2.0, 2.0], [1.0, 2.0], [1.0, 1.0], [0.0, 1.0]];
    let mut fan = vec![[0.0, 0.0]];
    fan.extend((1..=6).map(|i| [i as f64, 0.0]));
    fan.push([3.0, 2.0]);
    for ring in [&comb[..], &touching[..], &fan[..], &square([0.0, 0.0], [1.0, 1.0], false)[..]] {
        let p = polygon(ring, &[]);
        check_triangulation(&p, &split_only(&p), true);
    }
}

#[test]
fn square_two_triangles() {
    // 3 +-----+
    //   |     |
    // 0 +-----+
    //   0     3
    let t = run(&polygon(&square([0.0, 0.0], [3.0, 3.0], false), &[]));
    assert_eq!(t.triangles.len(), 2);
}

#[test]
fn l_shape() {
    // 2 +--+
    //   |  |
    // 1 |  +--+
    //   |     |
    // 0 +-----+
    //   0  1  2
    let l = [[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [1.0, 1.0], [1.0, 2.0], [0.0, 2.0]];
    run(&polygon(&l, &[]));
}

#[test]
fn comb() {
    // 4 +-+ +-+ +-+
    //   | | | | | |
    // 1 | +-+ +-+ |
    // 0 +---------+
    //   0 1 2 3 4 5
    let c = [
        [0.0, 0.0],
        [5.0, 0.0],
        [5.0, 4.0],
        [4.0, 4.0],
        [4.0, 1.0],
        [3.0, 1.0],
        [3.0, 4.0],
        [2.0, 4.0],
        [2.0, 1.0],
        [1.0, 1.0],
        [1.0, 4.0],
        [0.0, 4.0],
    ];
    run(&polygon(&c, &[]));
}

#[test]
fn square_with_one_hole() {
    // 4 +-----------+
    //   |   +---+   |
    //   |   |   |   |
    //   |   +---+   |
    // 0 +-----------+
    //   0   1   3   4
    let hole = square([1.0, 1.0], [3.0, 3.0], true);
    let t = run(&polygon(&square([0.0, 0.0], [4.0, 4.0], false), &[&hole]));
    assert_eq!(t.triangles.len(), 8);
}

#[test]
fn several_holes_some_aligned() {
    // 6 +-----------------------+
    //   |  +-+   +-+            |
    //   |  +-+   +-+   +-+      |   two holes share their rightmost x with others,
    //   |  +-+         +-+      |   and rays from the left holes hit corners exactly
    //   |  +-+   +-+   +-+      |
    //   |        +-+   +-+      |
    // 0 +-----------------------+
    //   0  1 2   4 5   7 8      12
    let outer = square([0.0, 0.0], [12.0, 6.0], false);
    let holes = [
        square([1.0, 4.0], [2.0, 5.0], true),
        square([4.0, 4.0], [5.0, 5.0], true),
        square([1.0, 2.0], [2.0, 3.0], true),
        square([7.0, 2.0], [8.0, 3.0], true),
        square([4.0, 1.0], [5.0, 2.0], true),
        square([7.0, 1.0 / 3.0], [8.0, 1.5], true),
    ];
    let hole_refs: Vec<&[Point2]> = holes.iter().map(Vec::as_slice).collect();
    run(&polygon(&outer, &hole_refs));
}

#[test]
fn hole_touching_outer_at_a_point() {
    // 4 +-------+
    //   |   ^   |
    //   |  < >  |     the diamond hole touches the bottom edge at (2, 0)
    //   |   v   |
    // 0 +---+---+
    //   0   2   4
    let outer = [[0.0, 0.0], [2.0, 0.0], [4.0, 0.0], [4.0, 4.0], [0.0, 4.0]];
    let hole = [[2.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 1.0]];
    run(&polygon(&outer, &[&hole]));
}

#[test]
fn vertices_touching_edges_without_a_shared_vertex() {
    // 4 +-------+      the diamond hole's bottom vertex (2, 0) lies inside the outer
    //   |   ^   |      ring's bottom edge; the square hole's left edge passes through
    //   |  < >[]|      the diamond's right vertex (3, 1)
    //   |   v   |
    // 0 +---.---+
    //   0   2 3 4
    let outer = square([0.0, 0.0], [4.0, 4.0], false);
    let hole = [[2.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 1.0]];
    let side = square([3.0, 0.5], [3.5, 1.5], true);
    let p = polygon(&outer, &[&hole, &side]);
    let t = triangulate(&p).expect("triangulates");
    check_triangulation(&p, &t, true);
    check_flipped(&p, &t, true);
    // As if the touched edges had a vertex there: 5 + 4 + 5 vertices, 2 holes, 2 touches.
    assert_eq!(t.triangles.len(), 14 + 2 * 2 - 2 - 2 * 2);

    // 4 +--+  +--+     one ring whose vertex (2, 0) touches its own bottom edge: two
    //   |   \/   |     pieces joined at a point
    // 0 +---.----+
    //   0   2    4
    let notched = [[0.0, 0.0], [4.0, 0.0], [4.0, 4.0], [2.5, 4.0], [2.0, 0.0], [1.5, 4.0], [0.0, 4.0]];
    let p = polygon(&notched, &[]);
    let t = triangulate(&p).expect("triangulates");
    check_triangulation(&p, &t, true);
    check_flipped(&p, &t, true);
    assert_eq!(t.triangles.len(), 4);
}

#[test]
fn hole_cutting_the_polygon_in_two() {
    // 4 +---+---+
    //   |  /:\  |     the hole touches the bottom and the top: two pieces joined only
    //   | < : > |     at points
    //   |  \:/  |
    // 0 +---+---+
    //   0   2   4
    let outer = [[0.0, 0.0], [2.0, 0.0], [4.0, 0.0], [4.0, 4.0], [2.0, 4.0], [0.0, 4.0]];
    let hole = [[2.0, 0.0], [1.0, 2.0], [2.0, 4.0], [3.0, 2.0]];
    run(&polygon(&outer, &[&hole]));
}

#[test]
fn two_holes_touching_each_other() {
    // 4 +-----------+
    //   |  /\ /\    |
    //   | <  X  >   |   two diamonds touch at (3, 2)
    //   |  \/ \/    |
    // 0 +-----------+
    //   0  1  3  5  6
    let outer = square([0.0, 0.0], [6.0, 4.0], false);
    let a = diamond([2.0, 2.0], 1.0, true);
    let b = diamond([4.0, 2.0], 1.0, true);
    run(&polygon(&outer, &[&a, &b]));
    run(&polygon(&outer, &[&b, &a]));
}

#[test]
fn holes_touching_in_a_chain_to_the_outer_ring() {
    // Three diamonds in a row, each touching the next; the last touches the right edge,
    // and a fourth touches the first from below and the bottom edge.
    // 4 +-------------+
    //   |  <><><>     |
    // 0 +-------------+
    let outer = [[0.0, 0.0], [1.5, 0.0], [7.0, 0.0], [7.0, 2.0], [7.0, 4.0], [0.0, 4.0]];
    let holes = [
        diamond([2.0, 2.0], 1.0, true),
        diamond([4.0, 2.0], 1.0, true),
        diamond([6.0, 2.0], 1.0, true),
        vec![[1.5, 0.0], [1.0, 0.5], [2.0, 1.0]],
    ];
    let hole_refs: Vec<&[Point2]> = holes.iter().map(Vec::as_slice).collect();
    run(&polygon(&outer, &hole_refs));
}

#[test]
fn four_holes_enclosing_a_pocket() {
    // Four diamonds around (3, 3) touching in a ring: the pocket they enclose is part of
    // the polygon, reachable only through points.
    let outer = square([0.0, 0.0], [6.0, 6.0], false);
    let holes = [
        diamond([2.0, 2.0], 1.0, true),
        diamond([4.0, 2.0], 1.0, true),
        diamond([4.0, 4.0], 1.0, true),
        diamond([2.0, 4.0], 1.0, true),
    ];
    let hole_refs: Vec<&[Point2]> = holes.iter().map(Vec::as_slice).collect();
    run(&polygon(&outer, &hole_refs));
}

#[test]
fn three_rings_meeting_at_one_point() {
    // 2 +-------------+
    // 1 |  \_/ \_/   |    two triangular holes hanging from (2, 0), where the bottom
    //   |    \ /      |    edge has a vertex too
    // 0 +-----+-------+
    //   0     2       4
    let outer = [[0.0, 0.0], [2.0, 0.0], [4.0, 0.0], [4.0, 2.0], [0.0, 2.0]];
    let a = [[2.0, 0.0], [0.5, 1.0], [1.5, 1.0]];
    let b = [[2.0, 0.0], [2.5, 1.0], [3.5, 1.0]];
    run(&polygon(&outer, &[&a, &b]));
    run(&polygon(&outer, &[&b, &a]));
}

#[test]
fn outer_ring_touching_itself() {
    // 2     +--+
    //       |  |
    // 1  +--+--+     one ring visiting (1, 1) twice
    //    |  |
    // 0  +--+
    //    0  1  2
    let outer = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [2.0, 1.0], [2.0, 2.0], [1.0, 2.0], [1.0, 1.0], [0.0, 1.0]];
    run(&polygon(&outer, &[]));
}

#[test]
fn collinear_runs() {
    // 4 +.......+     dots: extra vertices on straight edges, on the outer ring and on
    //   :  +.+  :     the hole
    //   :  : :  :
    //   :  +.+  :
    // 0 +.......+
    let mut outer = Vec::new();
    for side in 0..4 {
        for i in 0..8 {
            let s = i as f64 * 0.5;
            outer.push(match side {
                0 => [s, 0.0],
                1 => [4.0, s],
                2 => [4.0 - s, 4.0],
                _ => [0.0, 4.0 - s],
            });
        }
    }
    let hole = [[1.0, 1.0], [1.0, 2.0], [1.0, 3.0], [2.0, 3.0], [3.0, 3.0], [3.0, 2.0], [3.0, 1.0], [2.0, 1.0]];
    run(&polygon(&outer, &[&hole]));
    // A triangle with many vertices along one side.
    let mut fan = vec![[0.0, 0.0]];
    fan.extend((1..=20).map(|i| [i as f64, 0.0]));
    fan.push([10.0, 5.0]);
    run(&polygon(&fan, &[]));
}

#[test]
fn regression_hole_vertex_a_rounding_error_inside_another_hole() {
    // Float output of i_overlay (17 × 17 square minus two triangles): the first hole's
    // vertex near (8, 10) lies 1e-16 inside the second hole's edge from (9, 9) to (7, 11),
    // which it touches in the exact integer result. Joined by snapping it onto the edge.
    let outer = [
        [1.4710535012341097e-9, 17.000000013377132],
        [1.4710535012341097e-9, 1.3377131402592113e-8],
        [17.000000001471054, 1.3377131402592113e-8],
        [17.000000001471054, 17.000000013377132],
    ];
    let a = [
        [4.0000000014710535, 10.000000013377132],
        [4.0000000014710535, 11.000000013377132],
        [8.000000001471054, 10.000000013377132],
    ];
    let b = [
        [7.0000000014710535, 11.000000013377132],
        [9.000000001471054, 11.000000013377132],
        [9.000000001471054, 9.000000013377132],
    ];
    let p = polygon(&outer, &[&a, &b]);
    // Really invalid without snapping: the vertex is inside the other hole.
    assert!(orient2d(b[2], b[0], a[2]) < 0.0);
    assert!(triangulate_snapped(&p, 0.0).is_err());
    let t = triangulate(&p).expect("triangulates after snapping");
    check_triangulation(&p, &t, true);
    check_flipped(&p, &t, true);
}

#[test]
fn regression_boolean_shape_a() {
    let outer = [
        [3.9999999945513194, 10.00000000225753],
        [-5.4486806178033476e-9, 10.00000000225753],
        [2.0344221984497493, 7.9655777983590985],
        [1.3370722179762309, 7.988783331982794],
        [0.9999999945513194, 9.00000000225753],
        [0.9999999945513194, 8.00000000225753],
        [0.9667416607490962, 7.00055320786685],
        [0.9999999945513194, 6.999446483723822],
        [0.9999999945513194, 6.000000002257528],
        [1.9999999945513194, 6.000000002257528],
        [1.6743310188404505, 6.977006944291296],
        [2.965635249530453, 6.934036540262404],
        [2.9688663279167598, 7.031133668892088],
        [3.9999999945513194, 6.000000002257528],
    ];
    let p = polygon(&outer, &[]);
    let t = triangulate(&p).expect("triangulates");
    check_triangulation(&p, &t, true);
    check_flipped(&p, &t, true);
}

#[test]
fn regression_boolean_shape_b() {
    // A hole touching itself twice along its own edges, next to rounding-error near-touches.
    let outer = square([0.0, 0.0], [17.0, 17.0], false);
    let a = [[1.0, 5.0], [1.0, 6.0], [2.0, 5.0]];
    let b = [
        [2.8252360224723816, 3.2126439213752747],
        [3.018939971923828, 4.1937039494514465],
        [4.0, 4.0],
        [3.8062960505485535, 3.018939971923828],
    ];
    let c = [
        [7.0, 6.0],
        [11.0, 6.0],
        [11.0, 4.0],
        [13.0, 4.0],
        [13.0, 2.0],
        [12.0, 2.666666656732559],
        [12.0, 1.0],
        [10.0, 3.0],
        [11.5, 3.0],
        [11.0, 3.333333343267441],
        [11.0, 3.0],
    ];
    let p = polygon(&outer, &[&a, &b, &c]);
    let t = triangulate(&p).expect("triangulates");
    check_triangulation(&p, &t, true);
    check_flipped(&p, &t, true);
}

#[test]
fn spikes_and_duplicates_are_dropped() {
    // A square with a doubled vertex and an antenna poking out of its right side.
    let outer = [[0.0, 0.0], [2.0, 0.0], [2.0, 0.0], [2.0, 1.0], [3.0, 1.0], [2.0, 1.0], [2.0, 2.0], [0.0, 2.0]];
    let p = polygon(&outer, &[]);
    let t = triangulate(&p).unwrap();
    check_triangulation(&p, &t, false);
    check_flipped(&p, &t, false);
    assert_eq!(polygon_area(&p), 4.0);
}

#[test]
fn wrong_windings_are_read_backwards() {
    let mut outer = square([0.0, 0.0], [4.0, 4.0], false);
    outer.reverse();
    let hole = square([1.0, 1.0], [3.0, 3.0], false);
    let p = polygon(&outer, &[&hole]);
    let t = triangulate(&p).unwrap();
    check_triangulation(&p, &t, false);
    check_flipped(&p, &t, false);
    assert_eq!(t.triangles.len(), 8);
}

#[test]
fn degenerate_inputs_give_no_triangles() {
    assert!(triangulate(&PolygonWithHoles::default()).unwrap().triangles.is_empty());
    let line = polygon(&[[0.0, 0.0], [1.0, 0.0], [2.0, 0.0]], &[]);
    assert!(triangulate(&line).unwrap().triangles.is_empty());
    // An arealess hole is ignored.
    let flat_hole = [[1.0, 1.0], [2.0, 1.0], [1.5, 1.0]];
    let p = polygon(&square([0.0, 0.0], [4.0, 4.0], false), &[&flat_hole]);
    assert_eq!(triangulate(&p).unwrap().triangles.len(), 2);
}

#[test]
fn bad_inputs_are_typed_errors() {
    let nan = polygon(&[[0.0, 0.0], [1.0, f64::NAN], [0.0, 1.0]], &[]);
    assert_eq!(triangulate(&nan), Err(TriangulateError::NonFiniteVertex { hole: None, vertex: 1 }));
    let crossing = square([3.0, 1.0], [5.0, 2.0], true);
    let p = polygon(&square([0.0, 0.0], [4.0, 4.0], false), &[&crossing]);
    assert!(matches!(triangulate(&p), Err(TriangulateError::CrossingEdges { .. })));
    let outside = square([5.0, 5.0], [6.0, 6.0], true);
    let p = polygon(&square([0.0, 0.0], [4.0, 4.0], false), &[&outside]);
    assert_eq!(triangulate(&p), Err(TriangulateError::NoBridge { hole: 0 }));
}

#[test]
fn flips_the_long_diagonal_of_a_rhombus() {
    // 3 (1, 3)        split along the long diagonal 1-3, the short one 0-2 is Delaunay
    //   /  |  \
    // 0 ---+--- 2
    //   \  |  /
    // 1 (1, -3)
    let vertices = vec![[0.0, 0.0], [1.0, -3.0], [2.0, 0.0], [1.0, 3.0]];
    let mut t = Triangulation { vertices, triangles: vec![[0, 1, 3], [1, 2, 3]] };
    assert_eq!(flippable_edges(&t), vec![(1, 3)]);
    make_delaunay(&mut t);
    let mut sorted: Vec<[u32; 3]> = t
        .triangles
        .iter()
        .map(|tri| {
            let k = (0..3).min_by_key(|&k| tri[k]).unwrap_or(0);
            [tri[k], tri[(k + 1) % 3], tri[(k + 2) % 3]]
        })
        .collect();
    sorted.sort_unstable();
    assert_eq!(sorted, vec![[0, 1, 2], [0, 2, 3]]);
}

#[test]
fn cocircular_quads_are_not_flipped() {
    // A square's corners are cocircular: either diagonal is Delaunay, none is flipped.
    let square = vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]];
    let mut t = Triangulation { vertices: square, triangles: vec![[0, 1, 2], [0, 2, 3]] };
    let before = t.clone();
    make_delaunay(&mut t);
    assert_eq!(t, before);
}

#[test]
fn no_flip_onto_an_existing_edge() {
    // Triangles 0 1 2 and 1 0 3 want the diagonal 2-3, but a third triangle (overlapping
    // them: not a valid triangulation) already has the edge 2 → 3.
    let vertices = vec![[0.0, 0.0], [4.0, 0.0], [2.0, 1.0], [2.0, -1.0], [3.0, 0.0]];
    let quad = vec![[0, 1, 2], [1, 0, 3]];
    let mut alone = Triangulation { vertices: vertices.clone(), triangles: quad.clone() };
    make_delaunay(&mut alone);
    assert_ne!(alone.triangles, quad, "without the third triangle, 0-1 is flipped");
    let mut t = Triangulation { vertices, triangles: vec![quad[0], quad[1], [2, 3, 4]] };
    let before = t.clone();
    make_delaunay(&mut t);
    assert_eq!(t, before);
}

#[test]
fn out_of_range_indices_are_left_alone() {
    let mut t = Triangulation { vertices: vec![[0.0, 0.0], [1.0, 0.0]], triangles: vec![[0, 1, 7], [1, 0, 9]] };
    let before = t.clone();
    make_delaunay(&mut t);
    assert_eq!(t, before);
}

#[test]
fn ear_clipping_fans_are_flipped() {
    // A flat ellipse and a room with an octagonal pillar: ear clipping leaves long fan
    // triangles whose edges are not Delaunay.
    let ellipse: Vec<Point2> = (0..24)
        .map(|i| {
            let a = i as f64 * std::f64::consts::TAU / 24.0;
            [10.0 * a.cos(), 2.0 * a.sin()]
        })
        .collect();
    let pillar: Vec<Point2> = (0..8)
        .map(|i| {
            let a = -(i as f64) * std::f64::consts::TAU / 8.0;
            [5.0 + a.cos(), 2.0 + a.sin()]
        })
        .collect();
    for p in [polygon(&ellipse, &[]), polygon(&square([0.0, 0.0], [20.0, 4.0], false), &[&pillar])] {
        let t = triangulate(&p).expect("triangulates");
        assert!(!flippable_edges(&t).is_empty(), "the ear-clipped triangulation is not Delaunay");
        check_flipped(&p, &t, true);
    }
}

#[test]
fn every_small_diamond_lattice() {
    for n in 1..=3 {
        for mask in 0u32..1 << (n * n) {
            let cells: Vec<bool> = (0..n * n).map(|c| mask >> c & 1 == 1).collect();
            let p = lattice(n, &cells);
            match triangulate(&p) {
                Ok(t) => {
                    check_triangulation(&p, &t, true);
                    check_flipped(&p, &t, true);
                    check_flipped(&p, &t, true);
                }
                Err(e) => panic!("n {n} mask {mask:b}: {e}"),
            }
        }
    }
}

proptest! {
    #![proptest_config(config(64))]

    #[test]
    fn random_stars_with_holes(p in star_with_holes()) {
        let t = triangulate(&p).expect("triangulates");
        check_triangulation(&p, &t, true);
        check_flipped(&p, &t, true);
    }

    #[test]
    fn random_touching_diamonds(p in diamond_lattice()) {
        let t = triangulate(&p).expect("triangulates");
        check_triangulation(&p, &t, true);
        check_flipped(&p, &t, true);
    }

    #[test]
    fn random_stars_far_from_the_origin(p in star_with_holes(), offset in prop_oneof![Just(1e4), Just(1e6), Just(-3e7)]) {
        let shift = |r: &Vec<Point2>| r.iter().map(|q| [q[0] + offset, q[1] - offset]).collect::<Vec<_>>();
        let p = PolygonWithHoles { outer: shift(&p.outer), holes: p.holes.iter().map(shift).collect() };
        let t = triangulate(&p).expect("triangulates");
        check_triangulation(&p, &t, true);
        check_flipped(&p, &t, true);
    }

    #[test]
    fn random_spikes_and_duplicates(p in star_with_holes(), picks in proptest::collection::vec((any::<prop::sample::Index>(), 0u8..3), 1..8)) {
        // Doubled vertices and zero-area antennas a tenth of the way towards the centre:
        // inside the star-shaped outer ring (radius >= 5) and clear of the holes (radius
        // < 3.4).
        let mut outer = p.outer.clone();
        for (at, kind) in picks {
            let i = at.index(outer.len());
            let v = outer[i];
            match kind {
                0 => outer.insert(i, v),
                _ => {
                    let tip = [v[0] * 0.9, v[1] * 0.9];
                    outer.splice(i + 1..i + 1, [tip, v]);
                }
            }
        }
        let p = PolygonWithHoles { outer, holes: p.holes };
        let t = triangulate(&p).expect("triangulates");
        check_triangulation(&p, &t, false);
        check_flipped(&p, &t, false);
    }

    #[test]
    fn random_garbage_never_panics(
        outer in proptest::collection::vec((-5i32..5, -5i32..5), 0..12),
        holes in proptest::collection::vec(proptest::collection::vec((-5i32..5, -5i32..5), 0..6), 0..3),
        scale in prop_oneof![Just(1.0), Just(1e-300), Just(1e300), Just(0.1)],
    ) {
        // Random rings cross themselves and each other: errors are fine, panics and endless
        // loops are not, and whatever comes back is counter-clockwise.
        let ring = |r: &Vec<(i32, i32)>| r.iter().map(|&(x, z)| [x as f64 * scale, z as f64 * scale]).collect();
        let p = PolygonWithHoles { outer: ring(&outer), holes: holes.iter().map(ring).collect() };
        if let Ok(t) = triangulate(&p) {
            for tri in &t.triangles {
                let [a, b, c] = tri.map(|i| t.vertices[i as usize]);
                prop_assert!(orient2d(a, b, c) > 0.0);
            }
        }
    }

    #[test]
    fn random_boolean_shapes(shapes in overlay_shapes()) {
        for p in shapes {
            let t = triangulate(&p).expect("triangulates");
            check_triangulation(&p, &t, true);
            check_flipped(&p, &t, true);
        }
    }

    #[test]
    fn random_checkerboards(p in checkerboard()) {
        let t = triangulate(&p).expect("triangulates");
        check_triangulation(&p, &t, true);
        check_flipped(&p, &t, true);
    }

    #[test]
    fn random_convex_polygons_become_delaunay(
        angles in proptest::collection::vec(0.0f64..std::f64::consts::TAU, 3..40),
        stretch in 1.0f64..20.0,
    ) {
        // Points on an ellipse in angle order: a convex polygon, whose constrained
        // Delaunay triangulation is the Delaunay triangulation of its vertices: no vertex
        // inside any triangle's circumcircle (brute force).
        let mut angles = angles;
        angles.sort_by(f64::total_cmp);
        angles.dedup();
        let outer: Vec<Point2> = angles.iter().map(|a| [stretch * a.cos(), a.sin()]).collect();
        let p = polygon(&outer, &[]);
        let t = triangulate(&p).expect("triangulates");
        let d = check_flipped(&p, &t, false);
        for tri in &d.triangles {
            let [a, b, c] = tri.map(|i| d.vertices[i as usize]);
            for &q in &d.vertices {
                prop_assert!(incircle(a, b, c, q) <= 0.0, "{q:?} inside the circle of {tri:?}");
            }
        }
    }
}
