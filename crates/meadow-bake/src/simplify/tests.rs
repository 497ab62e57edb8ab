//! Tests of the simplify stage: ring simplification, shared borders, edge splitting.

use super::*;
use crate::progress::NoProgress;
use crate::region::AreaRegion;
use crate::tolerance::GRID_SCALE;
use meadow::query::SplitMix64;
use std::collections::BTreeSet;

/// A point in whole grid units.
type Unit = (i64, i64);

const PARAMS: SimplifyParams = SimplifyParams { shrink: 0.01, grow: 2.0 / GRID_SCALE, max_edge: 0.0 };

/// A point from whole grid units.
fn pt(x: i64, z: i64) -> Point2 {
    [x as f64 / GRID_SCALE, z as f64 / GRID_SCALE]
}

/// Grid units of a point (exact: test points are built on the grid).
fn units(p: Point2) -> Unit {
    ((p[0] * GRID_SCALE) as i64, (p[1] * GRID_SCALE) as i64)
}

fn regions(polys: Vec<(u16, PolygonWithHoles)>) -> Regions {
    let mut areas: Vec<AreaRegion> = Vec::new();
    for (area, p) in polys {
        match areas.iter_mut().find(|a| a.area == area) {
            Some(a) => a.polygons.push(p),
            None => areas.push(AreaRegion { area, layer: 0, polygons: vec![p] }),
        }
    }
    Regions { areas, ..Regions::default() }
}

fn all_rings(r: &Regions) -> Vec<Vec<Point2>> {
    r.areas
        .iter()
        .flat_map(|a| &a.polygons)
        .flat_map(|p| std::iter::once(p.outer.clone()).chain(p.holes.iter().cloned()))
        .collect()
}

fn cross(a: Unit, b: Unit, c: Unit) -> i128 {
    (b.0 - a.0) as i128 * (c.1 - a.1) as i128 - (b.1 - a.1) as i128 * (c.0 - a.0) as i128
}

fn dot(a: Unit, b: Unit, c: Unit) -> i128 {
    (b.0 - a.0) as i128 * (c.0 - a.0) as i128 + (b.1 - a.1) as i128 * (c.1 - a.1) as i128
}

/// Whether two closed segments share more than one common endpoint (exact, brute force).
fn segments_clash(a: Unit, b: Unit, p: Unit, q: Unit) -> bool {
    let (d1, d2, d3, d4) = (cross(a, b, p), cross(a, b, q), cross(p, q, a), cross(p, q, b));
    let meet = if d1 == 0 && d2 == 0 {
        let ov = |f: fn(Unit) -> i64| f(a).min(f(b)) <= f(p).max(f(q)) && f(p).min(f(q)) <= f(a).max(f(b));
        ov(|v| v.0) && ov(|v| v.1)
    } else {
        d1.signum() * d2.signum() <= 0 && d3.signum() * d4.signum() <= 0
    };
    if !meet {
        return false;
    }
    let common: Vec<(Unit, Unit, Unit)> = [(a, b, p, q), (a, b, q, p), (b, a, p, q), (b, a, q, p)]
        .into_iter()
        .filter(|(c, _, e, _)| c == e)
        .map(|(c, u, _, v)| (c, u, v))
        .collect();
    match common.as_slice() {
        [(c, u, v)] => d1 == 0 && d2 == 0 && dot(*c, *u, *v) > 0,
        _ => true,
    }
}

/// -1 outside, 0 on the boundary, 1 inside (exact winding number).
fn status(ring: &[Unit], x: Unit) -> i32 {
    let mut w = 0;
    for i in 0..ring.len() {
        let (u, v) = (ring[i], ring[(i + 1) % ring.len()]);
        let c = cross(u, v, x);
        if c == 0 && x.0 >= u.0.min(v.0) && x.0 <= u.0.max(v.0) && x.1 >= u.1.min(v.1) && x.1 <= u.1.max(v.1) {
            return 0;
        }
        if u.1 <= x.1 {
            if v.1 > x.1 && c > 0 {
                w += 1;
            }
        } else if v.1 <= x.1 && c < 0 {
            w -= 1;
        }
    }
    if w != 0 {
        1
    } else {
        -1
    }
}

/// Checks `output` against `input` with brute-force oracles: rings are cyclic subsequences
/// within the asymmetric tolerances, keep orientation and shared positions, no edges clash
/// that did not before, and no vertex of another ring changes side. Returns the vertex counts.
fn check(input: &Regions, output: &Regions) -> (usize, usize) {
    let (rin, rout) = (all_rings(input), all_rings(output));
    assert_eq!(rin.len(), rout.len(), "ring count changed");
    let ints = |rings: &[Vec<Point2>]| -> Vec<Vec<Unit>> {
        rings.iter().map(|r| r.iter().map(|&p| units(p)).collect()).collect()
    };
    let (iin, iout) = (ints(&rin), ints(&rout));
    let mut count: std::collections::BTreeMap<Unit, usize> = Default::default();
    iin.iter().flatten().for_each(|&p| *count.entry(p).or_default() += 1);
    let mut input_edges = BTreeSet::new();
    for (r, ring) in iin.iter().enumerate() {
        for i in 0..ring.len() {
            let (a, b) = (ring[i], ring[(i + 1) % ring.len()]);
            input_edges.insert((r, a.min(b), a.max(b)));
        }
    }
    for (r, (a, b)) in iin.iter().zip(&iout).enumerate() {
        assert!(b.len() >= 3, "ring {r} has {} vertices", b.len());
        assert_eq!(signed_area(&rin[r]) > 0.0, signed_area(&rout[r]) > 0.0, "ring {r} flipped");
        // Cyclic subsequence from the same start, and every dropped vertex within tolerance.
        let mut kept = Vec::new();
        let mut i = 0;
        for q in b {
            while i < a.len() && a[i] != *q {
                i += 1;
            }
            assert!(i < a.len(), "ring {r}: output vertex {q:?} is not an input vertex in order");
            kept.push(i);
            i += 1;
        }
        for (w, &k) in kept.iter().enumerate() {
            let next = kept[(w + 1) % kept.len()];
            let (u, v) = (a[k], a[next]);
            let mut j = (k + 1) % a.len();
            while j != next {
                let x = a[j];
                assert_eq!(count[&x], 1, "ring {r}: shared vertex {x:?} dropped");
                let d = point_segment_distance(rin[r][j], rin[r][k], rin[r][next]);
                let limit = if cross(u, v, x) < 0 { PARAMS.shrink } else { PARAMS.grow };
                assert!(d <= limit + 1e-12, "ring {r}: dropped vertex {x:?} is {d} from its chord");
                j = (j + 1) % a.len();
            }
        }
    }
    let edges: Vec<(usize, Unit, Unit)> = iout
        .iter()
        .enumerate()
        .flat_map(|(r, ring)| (0..ring.len()).map(move |i| (r, ring[i], ring[(i + 1) % ring.len()])))
        .collect();
    for (i, &(r1, a, b)) in edges.iter().enumerate() {
        for &(r2, p, q) in &edges[i + 1..] {
            if segments_clash(a, b, p, q) {
                let same = a.min(b) == p.min(q) && a.max(b) == p.max(q);
                let was =
                    input_edges.contains(&(r1, a.min(b), a.max(b))) && input_edges.contains(&(r2, p.min(q), p.max(q)));
                assert!(same && was, "edges {a:?}-{b:?} (ring {r1}) and {p:?}-{q:?} (ring {r2}) clash");
            }
        }
    }
    for (r, ring) in iout.iter().enumerate() {
        for (r2, other) in iin.iter().enumerate() {
            if r2 != r {
                for &x in other {
                    assert_eq!(status(&iin[r], x), status(ring, x), "vertex {x:?} of ring {r2} vs ring {r}");
                }
            }
        }
    }
    (rin.iter().map(Vec::len).sum(), rout.iter().map(Vec::len).sum())
}

/// A counter-clockwise ring around the box `[x0, z0, x1, z1]` (grid units) with a vertex
/// every `step` units, each pushed out of the straight side by `offset()` units (negative:
/// inwards); the corners stay put.
fn jagged_box(b: [i64; 4], step: i64, mut offset: impl FnMut() -> i64) -> Vec<Point2> {
    let corners = [(b[0], b[1]), (b[2], b[1]), (b[2], b[3]), (b[0], b[3])];
    let normals = [(0, -1), (1, 0), (0, 1), (-1, 0)];
    let mut ring = Vec::new();
    for s in 0..4 {
        let (c, d, n) = (corners[s], corners[(s + 1) % 4], normals[s]);
        let len = (d.0 - c.0).abs() + (d.1 - c.1).abs();
        let dir = ((d.0 - c.0).signum(), (d.1 - c.1).signum());
        ring.push(pt(c.0, c.1));
        let mut t = step;
        while t + step / 2 < len {
            let o = offset();
            ring.push(pt(c.0 + dir.0 * t + n.0 * o, c.1 + dir.1 * t + n.1 * o));
            t += step;
        }
    }
    ring
}

fn uniform(rng: &mut SplitMix64, lo: i64, hi: i64) -> i64 {
    lo + (rng.next_u64() % (hi - lo + 1) as u64) as i64
}

/// A jagged floor of area 0 with jagged holes, tiny holes just inside its border, and a
/// neighbour of area 1 sharing a zigzag border chain.
fn random_level(seed: u64) -> Regions {
    let mut rng = SplitMix64::new(seed);
    let (w, h) = (uniform(&mut rng, 2048, 6000), uniform(&mut rng, 2048, 6000));
    let step = uniform(&mut rng, 40, 120);
    // Mostly into blocked space within the shrink tolerance, a little into free space, and
    // now and then a spike into free space that must stay.
    let jag = |rng: &mut SplitMix64| match uniform(rng, 0, 19) {
        0 => -uniform(rng, 3, 12),
        _ => uniform(rng, -2, 18),
    };
    let mut outer = jagged_box([0, 0, w, h], step, || jag(&mut rng));
    // The right side becomes the chain shared with area 1 (zigzag of ±2 units about x = w).
    outer.retain(|p| units(*p).0 < w - 20 || units(*p).1 == 0 || units(*p).1 == h);
    let first_top = outer.iter().position(|p| units(*p) == (w, h)).expect("corner");
    let shared: Vec<Point2> = (1..h / step).map(|k| pt(w + uniform(&mut rng, -2, 2), k * step)).collect();
    outer.splice(first_top..first_top, shared.iter().copied());
    let mut holes = Vec::new();
    let slots = (w / 1024).min(h / 1024);
    for k in 0..slots {
        if rng.next_u64().is_multiple_of(2) {
            let (x, z) = (400 + k * 1024, 400 + k * 1024);
            let mut hole = jagged_box([x, z, x + 500, z + 400], step, || -jag(&mut rng));
            hole.reverse();
            holes.push(hole);
        }
    }
    // Tiny holes just inside the tips of outward bumps of the bottom side, which dropping
    // the tip would swallow.
    let bottom: Vec<Unit> = outer.iter().map(|&p| units(p)).take_while(|p| p.0 < w).collect();
    for t in 1..bottom.len().saturating_sub(1) {
        let (x, z) = bottom[t];
        if z <= -12 && bottom[t - 1].1 >= z + 6 && bottom[t + 1].1 >= z + 6 && holes.len() < 8 {
            holes.push(vec![pt(x - 1, z + 3), pt(x - 1, z + 5), pt(x + 1, z + 5), pt(x + 1, z + 3)]);
        }
    }
    let mut right = jagged_box([w, 0, w + 2048, h], step, || jag(&mut rng));
    right.retain(|p| units(*p).0 > w + 20 || units(*p).1 == 0 || units(*p).1 == h);
    let top_left = right.iter().position(|p| units(*p) == (w, h)).expect("corner");
    right.splice(top_left + 1..top_left + 1, shared.iter().rev().copied());
    // Moved off the simplification cells' lines (half-metre multiples), which the box's sides
    // would otherwise run along, every jag across them kept.
    let off = |ring: Vec<Point2>| ring.into_iter().map(|p| [p[0] + 0.125, p[1] + 0.125]).collect::<Vec<_>>();
    let holes = holes.into_iter().map(off).collect();
    regions(vec![
        (0, PolygonWithHoles { outer: off(outer), holes }),
        (1, PolygonWithHoles { outer: off(right), holes: vec![] }),
    ])
}

#[test]
fn random_jagged_levels_simplify_within_tolerance_without_crossings() {
    let (mut before, mut after) = (0, 0);
    for seed in 0..24 {
        let input = random_level(seed);
        // The generator's own output must pass the oracle unchanged.
        check(&input, &input);
        let output = simplify_regions(&input, &PARAMS, &mut NoProgress);
        let (b, a) = check(&input, &output);
        before += b;
        after += a;
        assert_eq!(output, simplify_regions(&input, &PARAMS, &mut NoProgress), "seed {seed}: not deterministic");
    }
    // Nearly all jaggies lie within the tolerances, but both ends of every edge that crosses a
    // half-metre cell line stay (a metre-wide box crosses a few dozen): over 40% must go
    // (measured 10,820 -> 6,019).
    assert!(after * 5 < before * 3, "{before} vertices became {after}");
}

#[test]
fn long_edges_are_halved_exactly_and_alike_from_both_sides() {
    let max_edge = 0.3;
    let params = SimplifyParams { max_edge, ..PARAMS };
    for seed in 0..12 {
        let input = random_level(seed);
        let plain = simplify_regions(&input, &PARAMS, &mut NoProgress);
        let split = simplify_regions(&input, &params, &mut NoProgress);
        let mut pieces = 0;
        for (ring, split_ring) in all_rings(&plain).iter().zip(all_rings(&split)) {
            // The plain ring's vertices in order, each edge's split points exactly on it,
            // and no piece longer than the limit.
            let mut at = 0;
            for (k, &a) in ring.iter().enumerate() {
                let b = ring[(k + 1) % ring.len()];
                assert_eq!(split_ring[at], a, "seed {seed}: vertex {k} moved");
                let mut prev = a;
                at += 1;
                while at < split_ring.len() && split_ring[at] != b {
                    let m = split_ring[at];
                    assert_eq!(orient2d(a, b, m), 0.0, "seed {seed}: split point off its edge");
                    assert!((m[0] - a[0]) * (b[0] - a[0]) + (m[1] - a[1]) * (b[1] - a[1]) > 0.0);
                    assert!((m[0] - prev[0]).hypot(m[1] - prev[1]) <= max_edge);
                    prev = m;
                    at += 1;
                    pieces += 1;
                }
                assert!((b[0] - prev[0]).hypot(b[1] - prev[1]) <= max_edge, "seed {seed}: edge {k} too long");
            }
            assert_eq!(at % split_ring.len(), 0, "seed {seed}: extra vertices");
        }
        assert!(pieces > 0, "seed {seed}: nothing was split");
        // Edges two rings share (the two areas' common boundary) are split at the same
        // points from both sides, so the portals between them still link vertex to vertex.
        let directed = |r: &Regions| -> BTreeSet<[u64; 4]> {
            all_rings(r)
                .iter()
                .flat_map(|ring| (0..ring.len()).map(move |k| (ring[k], ring[(k + 1) % ring.len()])))
                .map(|(a, b)| [a[0].to_bits(), a[1].to_bits(), b[0].to_bits(), b[1].to_bits()])
                .collect()
        };
        let rev = |e: &[u64; 4]| [e[2], e[3], e[0], e[1]];
        let (plain_edges, split_edges) = (directed(&plain), directed(&split));
        let shared_plain = plain_edges.iter().filter(|e| plain_edges.contains(&rev(e))).count();
        let shared_split = split_edges.iter().filter(|e| split_edges.contains(&rev(e))).count();
        assert!(shared_plain > 0, "seed {seed}: the areas share no edge");
        let lost = split_edges
            .iter()
            .filter(|e| !split_edges.contains(&rev(e)))
            .filter(|e| {
                let (a, b) =
                    ([f64::from_bits(e[0]), f64::from_bits(e[1])], [f64::from_bits(e[2]), f64::from_bits(e[3])]);
                // A piece of a shared plain edge must itself be shared.
                plain_edges.iter().filter(|p| plain_edges.contains(&rev(p))).any(|p| {
                    let (u, v) =
                        ([f64::from_bits(p[0]), f64::from_bits(p[1])], [f64::from_bits(p[2]), f64::from_bits(p[3])]);
                    orient2d(u, v, a) == 0.0
                        && orient2d(u, v, b) == 0.0
                        && point_segment_distance(a, u, v) == 0.0
                        && point_segment_distance(b, u, v) == 0.0
                })
            })
            .count();
        assert_eq!(lost, 0, "seed {seed}: a shared edge was split differently on its two sides");
        assert!(shared_split >= shared_plain);
    }
    // A huge level with a tiny limit stops at 2^16 pieces per edge.
    let ring = vec![[0.0, 0.0], [1e5, 0.0], [0.0, 1.0]];
    assert_eq!(split_long_edges(&ring, 0.05).len(), 3 + 2 * ((1 << 16) - 1) + 31);
    // No limit: unchanged.
    assert_eq!(split_long_edges(&ring, 0.0), ring);
}

fn square_with(bottom: Vec<Point2>, top: Vec<Point2>) -> Vec<Point2> {
    let mut ring = vec![pt(0, 0)];
    ring.extend(bottom);
    ring.extend([pt(2048, 0), pt(2048, 2048)]);
    ring.extend(top);
    ring.push(pt(0, 2048));
    ring
}

/// A quarter-metre square (256..768 units, inside one simplification cell) with `bottom` and
/// `top` vertices.
fn small_square_with(bottom: Vec<Point2>, top: Vec<Point2>) -> Vec<Point2> {
    let mut ring = vec![pt(256, 256)];
    ring.extend(bottom);
    ring.extend([pt(768, 256), pt(768, 768)]);
    ring.extend(top);
    ring.push(pt(256, 768));
    ring
}

/// ```text
///   (0,1) ────\/──── (1,1)    a notch 10 units into free space: kept
///     │              │
///   (0,0) ────/\──── (1,0)    a bump 10 units into blocked space: dropped
/// ```
/// (in a quarter-metre square within one simplification cell).
#[test]
fn bumps_into_blocked_space_go_and_notches_into_free_space_stay() {
    let outer = small_square_with(vec![pt(512, 246)], vec![pt(512, 758)]);
    let input = regions(vec![(0, PolygonWithHoles { outer, holes: vec![] })]);
    let output = simplify_regions(&input, &PARAMS, &mut NoProgress);
    check(&input, &output);
    let expected = small_square_with(vec![], vec![pt(512, 758)]);
    assert_eq!(output.areas[0].polygons[0].outer, expected);
    // Holes run clockwise, so the same rule keeps their notches into free space too.
    let mut hole = small_square_with(vec![pt(512, 246)], vec![pt(512, 758)]);
    hole.reverse();
    let outer = vec![pt(-4096, -4096), pt(4096, -4096), pt(4096, 4096), pt(-4096, 4096)];
    let input = regions(vec![(0, PolygonWithHoles { outer, holes: vec![hole] })]);
    let output = simplify_regions(&input, &PARAMS, &mut NoProgress);
    check(&input, &output);
    assert_eq!(output.areas[0].polygons[0].holes[0].len(), 5, "{:?}", output.areas[0].polygons[0].holes[0]);
    assert!(output.areas[0].polygons[0].holes[0].contains(&pt(512, 246)));
}

#[test]
fn chains_end_where_an_edge_leaves_its_cell() {
    // A bump into blocked space within the shrink tolerance, in the middle of a side within one
    // cell (dropped) and of a side across the cell line x = 0.5 m (kept: both ends of an edge
    // crossing a cell line are anchors, so that the decision depends only on the rings within
    // a cell).
    for (bump, right, kept) in [(pt(512, 246), 768, false), (pt(768, 246), 1280, true)] {
        let outer = vec![pt(256, 256), bump, pt(right, 256), pt(right, 768), pt(256, 768)];
        let input = regions(vec![(0, PolygonWithHoles { outer, holes: vec![] })]);
        let output = simplify_regions(&input, &PARAMS, &mut NoProgress);
        check(&input, &output);
        assert_eq!(output.areas[0].polygons[0].outer.contains(&bump), kept, "{bump:?}");
    }
}

#[test]
fn a_tiny_hole_inside_a_bump_keeps_the_bump() {
    let outer = square_with(vec![pt(1024, -16)], vec![]);
    let hole = vec![pt(1023, -13), pt(1023, -11), pt(1025, -11), pt(1025, -13)];
    let input = regions(vec![(0, PolygonWithHoles { outer: outer.clone(), holes: vec![hole] })]);
    let output = simplify_regions(&input, &PARAMS, &mut NoProgress);
    check(&input, &output);
    assert_eq!(output.areas[0].polygons[0].outer, outer);
}

#[test]
fn touching_polygons_keep_their_common_vertex() {
    // Two squares of one area touching at (512, 512) units, with collinear vertices everywhere,
    // both inside one simplification cell.
    let a = vec![pt(128, 128), pt(320, 128), pt(512, 128), pt(512, 320), pt(512, 512), pt(320, 512), pt(128, 512)];
    let b: Vec<Point2> = a.iter().map(|p| [p[0] + 0.1875, p[1] + 0.1875]).collect();
    let input = regions(vec![
        (0, PolygonWithHoles { outer: a, holes: vec![] }),
        (0, PolygonWithHoles { outer: b, holes: vec![] }),
    ]);
    let output = simplify_regions(&input, &PARAMS, &mut NoProgress);
    check(&input, &output);
    let polys = &output.areas[0].polygons;
    assert_eq!(polys[0].outer, vec![pt(128, 128), pt(512, 128), pt(512, 512), pt(128, 512)]);
    assert_eq!(polys[1].outer, vec![pt(512, 512), pt(896, 512), pt(896, 896), pt(512, 896)]);
}

#[test]
fn degenerate_input_is_returned_unchanged() {
    let nan = vec![[f64::NAN, 0.0], pt(1, 0), pt(1, 1), pt(0, 1), pt(0, 2)];
    let input = regions(vec![(0, PolygonWithHoles { outer: nan, holes: vec![] })]);
    assert_eq!(format!("{:?}", simplify_regions(&input, &PARAMS, &mut NoProgress)), format!("{input:?}"));
    let same = vec![pt(3, 3); 5];
    let input = regions(vec![(0, PolygonWithHoles { outer: same, holes: vec![] })]);
    assert_eq!(simplify_regions(&input, &PARAMS, &mut NoProgress), input);
}
