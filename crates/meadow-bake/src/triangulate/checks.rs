//! Checks of triangulation invariants shared by this module's and the convex stage's tests,
//! and proptest strategies for polygons with holes.

use super::predicates::within_box;
use super::*;
use meadow::geom::signed_area;
use meadow::geom::{incircle, orient2d};
use proptest::prelude::*;
use std::collections::{BTreeMap, BTreeSet};

/// `cases` proptest cases, unless the `PROPTEST_CASES` environment variable asks for
/// more (for long local runs).
pub fn config(cases: u32) -> ProptestConfig {
    let env = std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok());
    ProptestConfig { cases: env.unwrap_or(cases), ..ProptestConfig::default() }
}

/// A polygon from coordinate lists.
pub fn polygon(outer: &[[f64; 2]], holes: &[&[[f64; 2]]]) -> PolygonWithHoles {
    PolygonWithHoles { outer: outer.to_vec(), holes: holes.iter().map(|h| h.to_vec()).collect() }
}

/// The polygon's area: the outer ring's minus the holes'.
pub fn polygon_area(p: &PolygonWithHoles) -> f64 {
    signed_area(&p.outer).abs() - p.holes.iter().map(|h| signed_area(h).abs()).sum::<f64>()
}

/// Twice the area of triangle `t`.
pub fn area2(v: &[Point2], t: [u32; 3]) -> f64 {
    let (a, b, c) = (v[t[0] as usize], v[t[1] as usize], v[t[2] as usize]);
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

/// Bit pattern of a point (with -0 folded into +0), for exact coordinate keys.
pub fn key(p: Point2) -> [u64; 2] {
    [(p[0] + 0.0).to_bits(), (p[1] + 0.0).to_bits()]
}

/// Whether two convex counter-clockwise polygons' interiors are disjoint: some edge of one
/// has the whole other polygon on its closed right side.
pub fn interiors_disjoint(a: &[Point2], b: &[Point2]) -> bool {
    let separates = |p: &[Point2], q: &[Point2]| {
        (0..p.len()).any(|i| {
            let (u, v) = (p[i], p[(i + 1) % p.len()]);
            q.iter().all(|&w| orient2d(u, v, w) <= 0.0)
        })
    };
    separates(a, b) || separates(b, a)
}

/// Pairs of convex polygons (by index) whose interiors overlap, found with a sweep in x.
pub fn overlapping_pairs(polys: &[Vec<Point2>]) -> Vec<(usize, usize)> {
    let bounds: Vec<(f64, f64)> = polys
        .iter()
        .map(|p| p.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), q| (lo.min(q[0]), hi.max(q[0]))))
        .collect();
    let mut order: Vec<usize> = (0..polys.len()).collect();
    order.sort_by(|&a, &b| bounds[a].0.total_cmp(&bounds[b].0));
    let mut out = Vec::new();
    for (i, &a) in order.iter().enumerate() {
        for &b in &order[i + 1..] {
            if bounds[b].0 >= bounds[a].1 {
                break;
            }
            if !interiors_disjoint(&polys[a], &polys[b]) {
                out.push((a.min(b), a.max(b)));
            }
        }
    }
    out
}

/// Asserts every invariant of a triangulation of `p`: the vertices are the rings', the
/// triangles are counter-clockwise and non-degenerate, disjoint, cover the polygon's area,
/// use every ring edge, and meet edge to edge. With `exact_count` the rings are clean (no
/// zero-length edges or spikes), so the triangle count follows from the angle sum.
pub fn check_triangulation(p: &PolygonWithHoles, t: &Triangulation, exact_count: bool) {
    let rings: Vec<&Vec<Point2>> = std::iter::once(&p.outer).chain(&p.holes).collect();
    let all: Vec<Point2> = rings.iter().flat_map(|r| r.iter().copied()).collect();
    assert_eq!(t.vertices, all, "vertices are the rings' vertices in order");
    let v = &t.vertices;
    for tri in &t.triangles {
        assert!(tri.iter().all(|&i| (i as usize) < v.len()), "index out of range in {tri:?}");
        let (a, b, c) = (v[tri[0] as usize], v[tri[1] as usize], v[tri[2] as usize]);
        assert!(orient2d(a, b, c) > 0.0, "triangle {tri:?} is not counter-clockwise: {a:?} {b:?} {c:?}");
    }
    let total: f64 = t.triangles.iter().map(|&tri| area2(v, tri) * 0.5).sum();
    let expected = polygon_area(p);
    let scale = expected.abs().max(signed_area(&p.outer).abs()).max(1e-300);
    assert!((total - expected).abs() <= 1e-9 * scale, "area {total} != polygon area {expected}");

    let polys: Vec<Vec<Point2>> = t.triangles.iter().map(|tri| tri.iter().map(|&i| v[i as usize]).collect()).collect();
    let overlaps = overlapping_pairs(&polys);
    assert!(overlaps.is_empty(), "overlapping triangles: {overlaps:?}");

    // Directed edges by coordinates: every ring edge is a triangle edge; every other
    // triangle edge has its twin.
    let mut tri_edges: BTreeMap<([u64; 2], [u64; 2]), usize> = BTreeMap::new();
    for tri in &t.triangles {
        for i in 0..3 {
            let e = (key(v[tri[i] as usize]), key(v[tri[(i + 1) % 3] as usize]));
            *tri_edges.entry(e).or_default() += 1;
        }
    }
    // Ring vertices inside other ring edges (touches without a shared vertex) split them.
    // Vertices off an edge by rounding errors may or may not (the triangulation snaps them
    // only when the polygon is invalid without): accept either, all or none.
    let exact = split_at_touches(p, 0.0);
    let scale = all.iter().fold(0.0f64, |m, q| m.max(q[0].abs()).max(q[1].abs()));
    let loose = split_at_touches(p, 1e-13 * scale);
    let (exact_edges, loose_edges) = (directed_edges(&exact), directed_edges(&loose));
    if exact_count {
        let covered = |edges: &BTreeSet<_>| edges.iter().all(|e| tri_edges.contains_key(e));
        assert!(covered(&exact_edges) || covered(&loose_edges), "a ring edge is not a triangle edge");
    }
    for (e, n) in &tri_edges {
        assert_eq!(*n, 1, "directed edge {e:?} used by {n} triangles");
        if !exact_edges.contains(e) && !loose_edges.contains(e) {
            assert!(tri_edges.contains_key(&(e.1, e.0)), "edge {e:?} has no twin and is not on a ring");
        }
    }
    if exact_count && exact == loose {
        // Triangles' angles add up to the polygon's angles at its vertices: π each.
        let expected = (domain_angle_sum(&exact) / std::f64::consts::PI).round() as usize;
        assert_eq!(t.triangles.len(), expected, "triangle count (angle sum)");
    }
}

/// Interior edges of `t` (used once each way) that Lawson's algorithm would flip: the far
/// vertex of one triangle strictly inside the other's circumcircle, the quad strictly
/// convex, and the other diagonal not an edge yet.
pub fn flippable_edges(t: &Triangulation) -> Vec<(u32, u32)> {
    let mut far: BTreeMap<(u32, u32), Vec<u32>> = BTreeMap::new();
    for tri in &t.triangles {
        for k in 0..3 {
            far.entry((tri[k], tri[(k + 1) % 3])).or_default().push(tri[(k + 2) % 3]);
        }
    }
    let p = |i: u32| t.vertices[i as usize];
    let mut out = Vec::new();
    for (&(a, b), cs) in &far {
        let Some(ds) = far.get(&(b, a)) else { continue };
        if a > b || cs.len() != 1 || ds.len() != 1 {
            continue;
        }
        let (c, d) = (cs[0], ds[0]);
        let exists = far.contains_key(&(c, d)) || far.contains_key(&(d, c));
        if incircle(p(a), p(b), p(c), p(d)) > 0.0
            && orient2d(p(c), p(d), p(a)) < 0.0
            && orient2d(p(c), p(d), p(b)) > 0.0
            && !exists
        {
            out.push((a, b));
        }
    }
    out
}

/// The directed edges of `t` without a reverse twin: its constraint (ring) edges.
pub fn constraint_edges(t: &Triangulation) -> BTreeSet<(u32, u32)> {
    let edges: BTreeSet<(u32, u32)> =
        t.triangles.iter().flat_map(|tri| (0..3).map(move |k| (tri[k], tri[(k + 1) % 3]))).collect();
    edges.iter().copied().filter(|&(a, b)| !edges.contains(&(b, a))).collect()
}

/// Runs [`make_delaunay`] on a triangulation `t` of `p` and asserts that the result is
/// still a triangulation of `p` (see [`check_triangulation`]) with the same vertices,
/// triangle count, area and constraint edges, that no edge is left to flip, and that a
/// second run gives the same triangles. Returns the flipped triangulation.
pub fn check_flipped(p: &PolygonWithHoles, t: &Triangulation, exact_count: bool) -> Triangulation {
    let mut d = t.clone();
    make_delaunay(&mut d);
    check_triangulation(p, &d, exact_count);
    assert_eq!(d.vertices, t.vertices, "flips keep the vertices");
    assert_eq!(d.triangles.len(), t.triangles.len(), "flips keep the triangle count");
    let area = |t: &Triangulation| t.triangles.iter().map(|&tri| area2(&t.vertices, tri)).sum::<f64>();
    let (before, after) = (area(t), area(&d));
    assert!((before - after).abs() <= 1e-9 * before.abs().max(1e-300), "area {after} != {before}");
    assert_eq!(constraint_edges(&d), constraint_edges(t), "constraint edges stay");
    let left = flippable_edges(&d);
    assert!(left.is_empty(), "edges left to flip: {left:?}");
    let mut again = t.clone();
    make_delaunay(&mut again);
    assert_eq!(again, d, "same input, same flips");
    d
}

/// The directed edges of the rings by coordinates, rings of the wrong winding reversed.
pub fn directed_edges(p: &PolygonWithHoles) -> BTreeSet<([u64; 2], [u64; 2])> {
    let mut edges = BTreeSet::new();
    for (r, ring) in std::iter::once(&p.outer).chain(&p.holes).enumerate() {
        let backwards = (signed_area(ring) < 0.0) == (r == 0);
        for i in 0..ring.len() {
            let mut e = (key(ring[i]), key(ring[(i + 1) % ring.len()]));
            if backwards {
                e = (e.1, e.0);
            }
            if e.0 != e.1 {
                edges.insert(e);
            }
        }
    }
    edges
}

/// The polygon with every ring edge split at the ring vertices lying inside it, or within
/// `tolerance` of it (brute force).
pub fn split_at_touches(p: &PolygonWithHoles, tolerance: f64) -> PolygonWithHoles {
    let all: Vec<Point2> = std::iter::once(&p.outer).chain(&p.holes).flatten().copied().collect();
    let split = |ring: &Vec<Point2>| {
        let mut out = Vec::new();
        for i in 0..ring.len() {
            let (u, w) = (ring[i], ring[(i + 1) % ring.len()]);
            out.push(u);
            let on = |q: Point2| {
                (orient2d(u, w, q) == 0.0 && within_box(u, w, q))
                    || (tolerance > 0.0
                        && meadow::geom::point_segment_distance(q, u, w) <= tolerance
                        && meadow::geom::point_segment_distance(q, u, u) > tolerance
                        && meadow::geom::point_segment_distance(q, w, w) > tolerance)
            };
            let mut inside: Vec<Point2> = all.iter().copied().filter(|&q| q != u && q != w && on(q)).collect();
            inside.sort_by(|a, b| {
                let d = |q: Point2| (q[0] - u[0]).abs() + (q[1] - u[1]).abs();
                d(*a).total_cmp(&d(*b))
            });
            inside.dedup();
            out.extend(inside);
        }
        out
    };
    PolygonWithHoles { outer: split(&p.outer), holes: p.holes.iter().map(split).collect() }
}

/// The sum over the polygon's distinct vertices of the angle the polygon fills around each.
/// Where rings touch, every visit of a ring to the point bounds a wedge; the winding number
/// is a constant plus the number of wedges covering a direction, so the polygon fills the
/// directions covered most.
pub fn domain_angle_sum(p: &PolygonWithHoles) -> f64 {
    use std::f64::consts::TAU;
    let mut wedges: BTreeMap<[u64; 2], Vec<(f64, f64)>> = BTreeMap::new();
    for (r, ring) in std::iter::once(&p.outer).chain(&p.holes).enumerate() {
        let n = ring.len();
        let backwards = (signed_area(ring) < 0.0) == (r == 0);
        for i in 0..n {
            let x = ring[i];
            let (mut prev, mut next) = (ring[(i + n - 1) % n], ring[(i + 1) % n]);
            if backwards {
                std::mem::swap(&mut prev, &mut next);
            }
            let angle = |q: Point2| (q[1] - x[1]).atan2(q[0] - x[0]);
            // The wedge from the outgoing edge counter-clockwise to the incoming one.
            wedges.entry(key(x)).or_default().push((angle(next), angle(prev)));
        }
    }
    let mut sum = 0.0;
    for passes in wedges.values() {
        let mut rays: Vec<f64> = passes.iter().flat_map(|&(a, b)| [a, b]).collect();
        rays.sort_by(f64::total_cmp);
        let mut sectors = Vec::new();
        for k in 0..rays.len() {
            let width = (rays[(k + 1) % rays.len()] - rays[k]).rem_euclid(TAU);
            if width == 0.0 {
                continue;
            }
            let mid = rays[k] + width / 2.0;
            let covered =
                passes.iter().filter(|&&(from, to)| (mid - from).rem_euclid(TAU) < (to - from).rem_euclid(TAU)).count();
            sectors.push((width, covered));
        }
        let most = sectors.iter().map(|s| s.1).max().unwrap_or(0);
        sum += sectors.iter().filter(|s| s.1 == most).map(|s| s.0).sum::<f64>();
    }
    sum
}

/// A square with corners `lo`, `hi`: counter-clockwise, or clockwise for a hole.
pub fn square(lo: [f64; 2], hi: [f64; 2], hole: bool) -> Vec<Point2> {
    let mut r = vec![lo, [hi[0], lo[1]], hi, [lo[0], hi[1]]];
    if hole {
        r.reverse();
    }
    r
}

/// A diamond (square turned 45°) around `c` with half-diagonal `r`; clockwise for a hole.
pub fn diamond(c: [f64; 2], r: f64, hole: bool) -> Vec<Point2> {
    let mut d = vec![[c[0], c[1] - r], [c[0] + r, c[1]], [c[0], c[1] + r], [c[0] - r, c[1]]];
    if hole {
        d.reverse();
    }
    d
}

pub fn lattice(n: usize, cells: &[bool]) -> PolygonWithHoles {
    let side = n as f64;
    let mut outer = Vec::new();
    for s in 0..4 {
        for i in 0..2 * n {
            let t = i as f64 * 0.5;
            outer.push(match s {
                0 => [t, 0.0],
                1 => [side, t],
                2 => [side - t, side],
                _ => [0.0, side - t],
            });
        }
    }
    let holes = (0..n * n)
        .filter(|&c| cells[c])
        .map(|c| diamond([(c % n) as f64 + 0.5, (c / n) as f64 + 0.5], 0.5, true))
        .collect();
    PolygonWithHoles { outer, holes }
}

/// A random star-shaped outer ring around the origin (radius 5..10, containing the disk of
/// radius 3.5) with random square holes in the cells of a 5 × 5 grid of unit cells.
pub fn star_with_holes() -> impl Strategy<Value = PolygonWithHoles> {
    let outer = (8usize..40).prop_flat_map(|k| {
        proptest::collection::vec((0.0f64..0.9, 5.0f64..10.0), k).prop_map(move |v| {
            v.iter()
                .enumerate()
                .map(|(i, &(jitter, r))| {
                    let a = (i as f64 + jitter) * std::f64::consts::TAU / k as f64;
                    [r * a.cos(), r * a.sin()]
                })
                .collect::<Vec<Point2>>()
        })
    });
    // Per cell: none, an axis-aligned square with dyadic corners and 1, 2 or 4 vertices per
    // side (collinear runs), or a rotated square.
    let hole = prop_oneof![
        2 => Just(None),
        2 => (2u32..8, prop_oneof![Just(1usize), Just(2), Just(4)]).prop_map(|(h, d)| Some((h as f64 / 16.0, d, None))),
        1 => (0.15f64..0.48, 0.0f64..std::f64::consts::FRAC_PI_2).prop_map(|(r, a)| Some((r, 1, Some(a)))),
    ];
    (outer, proptest::collection::vec(hole, 25)).prop_map(|(outer, cells)| {
        let mut holes = Vec::new();
        for (c, cell) in cells.into_iter().enumerate() {
            let centre = [(c % 5) as f64 - 2.0, (c / 5) as f64 - 2.0];
            let Some((size, per_side, angle)) = cell else { continue };
            let ring: Vec<Point2> = match angle {
                None => {
                    let (lo, hi) = ([centre[0] - size, centre[1] - size], [centre[0] + size, centre[1] + size]);
                    let corners = [lo, [lo[0], hi[1]], hi, [hi[0], lo[1]]]; // clockwise
                    (0..4)
                        .flat_map(|s| {
                            let (a, b) = (corners[s], corners[(s + 1) % 4]);
                            (0..per_side).map(move |i| {
                                let f = i as f64 / per_side as f64;
                                [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f]
                            })
                        })
                        .collect()
                }
                Some(a) => (0..4)
                    .map(|s| {
                        let t = a - s as f64 * std::f64::consts::FRAC_PI_2; // clockwise
                        [centre[0] + size * t.cos(), centre[1] + size * t.sin()]
                    })
                    .collect(),
            };
            holes.push(ring);
        }
        PolygonWithHoles { outer, holes }
    })
}

/// A square outer ring with vertices every half unit and diamond holes in random cells of
/// its unit grid: neighbouring diamonds touch at points, and border ones touch the outer
/// ring.
pub fn diamond_lattice() -> impl Strategy<Value = PolygonWithHoles> {
    (2usize..6, proptest::collection::vec(any::<bool>(), 36)).prop_map(|(n, cells)| lattice(n, &cells))
}

/// Polygons with holes as a boolean-operation library makes them: a union of random grid
/// rectangles and triangles minus others, computed by `i_overlay`. Its output has holes
/// touching outer rings and each other at points.
pub fn overlay_shapes() -> impl Strategy<Value = Vec<PolygonWithHoles>> {
    use i_overlay::core::fill_rule::FillRule;
    use i_overlay::core::overlay_rule::OverlayRule;
    use i_overlay::float::single::SingleFloatOverlay;
    let piece = (0i32..12, 0i32..12, 1i32..5, 1i32..5, 0u8..4, 0.0f64..std::f64::consts::TAU).prop_map(
        |(x, z, w, h, kind, turn)| {
            let (x0, z0, x1, z1) = (x as f64, z as f64, (x + w) as f64, (z + h) as f64);
            match kind {
                // Triangles: slanted edges meeting the grid at their corners.
                0 => vec![[x0, z0], [x1, z0], [x0, z1]],
                1 => vec![[x1, z0], [x1, z1], [x0, z1]],
                2 => vec![[x0, z0], [x1, z0], [x1, z1], [x0, z1]],
                // A rectangle turned about its corner: off-grid coordinates.
                _ => [[0.0, 0.0], [w as f64, 0.0], [w as f64, h as f64], [0.0, h as f64]]
                    .iter()
                    .map(|q| [x0 + q[0] * turn.cos() - q[1] * turn.sin(), z0 + q[0] * turn.sin() + q[1] * turn.cos()])
                    .collect(),
            }
        },
    );
    // Either a few pieces minus a few, or a big square minus many (holes, many touching).
    let base = vec![vec![[0.0, 0.0], [17.0, 0.0], [17.0, 17.0], [0.0, 17.0]]];
    let subject = prop_oneof![proptest::collection::vec(piece.clone(), 1..12), Just(base)];
    (subject, proptest::collection::vec(piece, 0..24)).prop_map(|(subject, clip)| {
        let shapes = subject.overlay(&clip, OverlayRule::Difference, FillRule::NonZero);
        shapes
            .into_iter()
            .map(|mut rings| {
                let outer = rings.remove(0);
                PolygonWithHoles { outer, holes: rings }
            })
            .collect()
    })
}

/// Unit-square holes on the even cells of a checkerboard: holes touch at corners.
pub fn checkerboard() -> impl Strategy<Value = PolygonWithHoles> {
    (2usize..6, proptest::collection::vec(any::<bool>(), 36)).prop_map(|(n, cells)| {
        let side = n as f64 + 2.0;
        let outer = square([0.0, 0.0], [side, side], false);
        let holes = (0..n * n)
            .filter(|&c| (c % n + c / n) % 2 == 0 && cells[c])
            .map(|c| {
                let lo = [(c % n) as f64 + 1.0, (c / n) as f64 + 1.0];
                square(lo, [lo[0] + 1.0, lo[1] + 1.0], true)
            })
            .collect();
        PolygonWithHoles { outer, holes }
    })
}
