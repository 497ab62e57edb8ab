//! End-to-end: a noisy rock of 5,000 triangles tagged `{"navmesh": "obstacle", "footprint":
//! "hull"}` (`rock_hull.glb`) blocks exactly its convex hull grown by the radius; the same rock
//! tagged `obstacle` alone (`rock.glb`) blocks its own outline, which is measurably smaller.
//! The hull is computed here by gift wrapping, independently of the bake's monotone chain.

use meadow::geom::{orient2d, point_segment_distance, Point2};
use meadow::{BakeSettings, NavMesh};
use meadow_bake::ingest;
use meadow_bake::NoProgress;
use meadow_suite::*;
use std::f64::consts::PI;

/// Where the bake's boundary may be off the exact one: the arc tolerance (arcs and
/// simplification) plus two grid steps of the region stage.
fn tolerance(s: &BakeSettings) -> f64 {
    s.arc_tolerance + 2.0 / meadow_bake::region::GRID_SCALE
}

fn settings(radius: f64) -> BakeSettings {
    let mut s = BakeSettings::DEFAULT;
    s.radius = radius;
    s
}

/// The XZ corners of the rock's triangles, as the level stores them.
fn rock_points() -> Vec<Point2> {
    let scene = ingest::ingest_file(&level("rock_hull.glb"), &mut NoProgress).unwrap();
    let rock = node_triangles(&scene, "Rock");
    assert_eq!(rock.len(), 5000);
    rock.iter().flat_map(|t| t.vertices.iter().map(|v| [v[0], v[2]])).collect()
}

/// Gift wrapping (Jarvis): from the lowest-leftmost point, repeatedly the point with every other
/// point on its left (the farthest on ties), counter-clockwise.
fn gift_wrap(points: &[Point2]) -> Vec<Point2> {
    let start = points.iter().copied().fold(points[0], |a, p| if (p[0], p[1]) < (a[0], a[1]) { p } else { a });
    let mut hull = vec![start];
    loop {
        let here = *hull.last().unwrap();
        let mut next = if points[0] == here { points[1] } else { points[0] };
        for &p in points {
            let o = orient2d(here, next, p);
            let farther =
                |a: Point2, b: Point2| (b[0] - here[0]).hypot(b[1] - here[1]) > (a[0] - here[0]).hypot(a[1] - here[1]);
            if o < 0.0 || (o == 0.0 && farther(next, p)) {
                next = p;
            }
        }
        if next == start {
            return hull;
        }
        hull.push(next);
        assert!(hull.len() <= points.len(), "gift wrapping does not close");
    }
}

fn area_and_perimeter(ring: &[Point2]) -> (f64, f64) {
    let n = ring.len();
    let (mut area, mut perimeter) = (0.0, 0.0);
    for i in 0..n {
        let (a, b) = (ring[i], ring[(i + 1) % n]);
        area += a[0] * b[1] - b[0] * a[1];
        perimeter += (b[0] - a[0]).hypot(b[1] - a[1]);
    }
    (area / 2.0, perimeter)
}

/// Whether the convex counter-clockwise rings `a` and `b` are separated by a line through an
/// edge of one of them (for convex sets: whether their interiors are disjoint).
fn separated(a: &[Point2], b: &[Point2]) -> bool {
    let by_edges_of = |p: &[Point2], q: &[Point2]| {
        (0..p.len()).any(|i| {
            let (u, v) = (p[i], p[(i + 1) % p.len()]);
            q.iter().all(|&x| orient2d(u, v, x) <= 0.0)
        })
    };
    by_edges_of(a, b) || by_edges_of(b, a)
}

/// Distance between two disjoint convex rings.
fn ring_distance(a: &[Point2], b: &[Point2]) -> f64 {
    let one_way = |p: &[Point2], q: &[Point2]| {
        p.iter()
            .flat_map(|&x| (0..q.len()).map(move |i| point_segment_distance(x, q[i], q[(i + 1) % q.len()])))
            .fold(f64::INFINITY, f64::min)
    };
    one_way(a, b).min(one_way(b, a))
}

fn bake(name: &str, s: &BakeSettings) -> NavMesh {
    meadow_bake::bake_file(level(name), s).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn tagged_rock_blocks_exactly_its_hull_grown_by_the_radius() {
    let points = rock_points();
    let hull = gift_wrap(&points);
    let (area, perimeter) = area_and_perimeter(&hull);
    assert!(hull.len() >= 10 && area > 5.0, "hull of {} corners, {area} m²", hull.len());
    for radius in [0.6, 0.25] {
        let s = settings(radius);
        let tol = tolerance(&s);
        // Floor eroded at its border, minus the hull grown by the radius (rounded corners).
        let expected = (20.0 - 2.0 * radius).powi(2) - (area + perimeter * radius + PI * radius * radius);
        // The rounded corners are polygons within the arc tolerance of their arcs, and every
        // boundary vertex is on the region grid (within a grid step of the exact boundary).
        let boundary = perimeter + 2.0 * PI * radius + 4.0 * (20.0 - 2.0 * radius);
        let allowed = s.arc_tolerance * 2.0 * PI * radius + boundary / meadow_bake::region::GRID_SCALE;
        let mesh = bake("rock_hull.glb", &s);
        let got = mesh.total_area();
        assert!((got - expected).abs() < allowed, "radius {radius}: area {got}, expected {expected} ± {allowed}");
        // No polygon reaches into the hull grown by the radius.
        for p in 0..mesh.polygon_count() {
            let ring = ring(&mesh, p);
            assert!(separated(&ring, &hull), "radius {radius}: polygon {p} overlaps the hull: {ring:?}");
            let d = ring_distance(&ring, &hull);
            assert!(d >= radius - tol, "radius {radius}: polygon {p} is {d} from the hull");
        }
        // The rock tagged `obstacle` alone blocks its own (dented) outline: more free area, by
        // more than the tolerance, so the comparison above tells the two apart.
        let plain = bake("rock.glb", &s).total_area();
        assert!(plain - expected > allowed, "radius {radius}: obstacle-only rock {plain} vs hull {expected}");
    }
}

#[test]
fn hull_bake_is_deterministic_and_tiles_agree() {
    // Tiles cut the hull obstacle like any other: the same free area up to grid rounding.
    let s = settings(0.6);
    let whole = bake("rock_hull.glb", &s);
    assert_eq!(whole.to_bytes(), bake("rock_hull.glb", &s).to_bytes());
    let mut tiles = s.clone();
    tiles.tile_size = 4.0;
    let tiled = bake("rock_hull.glb", &tiles);
    let (a, b) = (whole.total_area(), tiled.total_area());
    assert!((a - b).abs() < 1e-5 * a, "untiled {a} vs tiled {b}");
}
