//! Stage 4, simplify: [`Regions`] → [`Regions`] with the near-collinear and millimetre-scale
//! zigzag vertices of the region rings removed, then edges longer than the bake's
//! `max_edge_length` split.
//!
//! The region stage's booleans and offsets leave many vertices that carry no shape: runs of
//! almost collinear points and back-and-forth jaggies a grid step or two high. Every ring is cut
//! into chains at its *pinned* vertices and each chain is simplified Douglas–Peucker style with
//! an asymmetric tolerance. Free area lies left of every ring edge (outer rings counter-clockwise,
//! holes clockwise), so a chain `a … b` may be replaced by its chord `a → b` when every vertex
//! between them lies
//!
//! * right of the chord (in blocked space, so dropping it *shrinks* the free area, which never
//!   costs clearance) within [`SimplifyParams::shrink`], or
//! * anywhere within [`SimplifyParams::grow`] of the chord (dropping a vertex on the free side
//!   lets the boundary move that much closer to a wall, so this stays a grid step or two),
//!
//! and the chord crosses or touches nothing: no edge of any ring meets it except at `a` and `b`,
//! and no vertex of any ring lies inside or on the region between the chain and the chord.
//!
//! Pinned vertices are those whose position occurs more than once among all rings: where regions
//! of different areas touch (every ring vertex of one lies on a ring vertex of the other, so the
//! shared boundary is made of such vertices only and is never changed), where rings touch each
//! other and where a ring touches itself. Rings keep at least three vertices and their
//! orientation; no ring or polygon is dropped.
//!
//! Chains are also cut at both ends of every edge that crosses a line of a world-aligned square
//! grid of [`SIMPLIFY_CELL`] (half a metre), so every chain lies in one closed grid cell: whether
//! a vertex is dropped depends only on the rings within that cell, never on where a ring starts
//! or how far it runs. A tile of a tiled bake, whose free area agrees with the whole level's up
//! to a metre beyond its sides, therefore simplifies the rings in and around it exactly as the
//! untiled bake does (see `tiles/mod.rs`).
//!
//! Every chord is checked against the *original* rings, so the decisions do not depend on the
//! order chains are visited in, and any set of accepted chords is free of crossings together: a
//! chord that crossed another accepted chord would have to enter that chord's swept region and
//! leave it through an original edge or end inside it, and both were ruled out.
//!
//! Last, every ring edge longer than [`SimplifyParams::max_edge`] is halved, and its halves
//! again, until none is (Recast's `maxEdgeLen`). A long wall facing a dense run of vertices (a
//! stair's steps, a pillar's arcs) otherwise makes the triangulation fan thin triangles across
//! the whole floor, and the midpoint A* misjudges routes through such fans. Halving keeps the
//! walkable area exactly: region coordinates are grid multiples, so `(a + b) / 2` is exact and
//! lies on the edge, and two rings that share an edge split it at the same points.

use crate::grid::{Box2, BoxGrid};
use crate::progress::{Progress, Stage};
use crate::region::{PolygonWithHoles, Regions};
pub use crate::tolerance::GROW_TOLERANCE;
use crate::tolerance::{BOX_GRID_ITEMS_PER_CELL, SIMPLIFY_CELL};
use meadow::geom::{orient2d, point_segment_distance, signed_area, Point2};
use meadow::BakeSettings;

/// How far simplified ring edges may move from the vertices they replace, in metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SimplifyParams {
    /// Largest distance of a dropped vertex on the blocked side of its chord (the free area
    /// shrinks). Default: the bake's arc tolerance.
    pub shrink: f64,
    /// Largest distance of a dropped vertex on the free side of its chord (the free area grows
    /// into the clearance zone). Default: [`GROW_TOLERANCE`].
    pub grow: f64,
    /// Longest ring edge after simplification; longer ones are halved until they fit. `0` (or
    /// anything not positive and finite) keeps every edge. Default: the bake's
    /// `max_edge_length`.
    pub max_edge: f64,
}

impl From<&BakeSettings> for SimplifyParams {
    fn from(s: &BakeSettings) -> Self {
        SimplifyParams { shrink: s.arc_tolerance, grow: GROW_TOLERANCE, max_edge: s.max_edge_length }
    }
}

/// Returns `regions` with every ring simplified and its long edges split (see the module docs);
/// everything else is kept.
pub fn simplify_regions(regions: &Regions, params: &SimplifyParams, progress: &mut dyn Progress) -> Regions {
    split_regions(&simplify_regions_unsplit(regions, params, progress), params.max_edge)
}

/// As [`simplify_regions`] without splitting long edges: a tile clips its simplified free area
/// to its box first, so that its border cuts the edges the untiled bake splits.
pub fn simplify_regions_unsplit(regions: &Regions, params: &SimplifyParams, progress: &mut dyn Progress) -> Regions {
    let rings: Vec<&[Point2]> = regions
        .areas
        .iter()
        .flat_map(|a| a.polygons.iter())
        .flat_map(|p| std::iter::once(&p.outer).chain(p.holes.iter()))
        .map(|r| r.as_slice())
        .collect();
    progress.begin(Stage::Simplify, rings.len() as u64);
    let finite = rings.iter().all(|r| r.iter().flatten().all(|c| c.is_finite()));
    let tolerances_ok = params.shrink.is_finite() && params.grow.is_finite();
    if !finite || !tolerances_ok || rings.is_empty() {
        progress.finish(Stage::Simplify);
        return regions.clone();
    }
    let mut simplifier = Simplifier::new(&rings, params);
    let mut simplified: Vec<Vec<Point2>> = Vec::with_capacity(rings.len());
    for r in 0..rings.len() {
        simplified.push(simplifier.ring(r));
        if r % 256 == 0 {
            progress.advance(Stage::Simplify, r as u64);
        }
    }
    progress.finish(Stage::Simplify);
    map_rings(regions, simplified)
}

/// `regions` with every ring edge longer than `max_edge` halved until none is.
pub fn split_regions(regions: &Regions, max_edge: f64) -> Regions {
    let split = regions
        .areas
        .iter()
        .flat_map(|a| &a.polygons)
        .flat_map(|p| std::iter::once(&p.outer).chain(&p.holes))
        .map(|r| split_long_edges(r, max_edge))
        .collect();
    map_rings(regions, split)
}

/// `regions` with its rings replaced, in order (outer ring, then holes, polygon by polygon).
fn map_rings(regions: &Regions, rings: Vec<Vec<Point2>>) -> Regions {
    let mut next = rings.into_iter();
    let mut take = |original: &Vec<Point2>| next.next().unwrap_or_else(|| original.clone());
    let mut out = regions.clone();
    for area in &mut out.areas {
        for poly in &mut area.polygons {
            let PolygonWithHoles { outer, holes } = poly;
            *outer = take(outer);
            for h in holes.iter_mut() {
                *h = take(h);
            }
        }
    }
    out
}

/// How many ring vertices `regions` has once every edge longer than `max_edge` is halved as
/// [`simplify_regions`] does, counted on the rings before simplification (a chord that replaces
/// a chain is no longer than the chain, so simplification at most doubles an edge's pieces).
/// Lets a bake check its budget before allocating the split vertices.
pub fn split_vertex_estimate(regions: &Regions, max_edge: f64) -> u64 {
    let rings = regions.areas.iter().flat_map(|a| &a.polygons).flat_map(|p| std::iter::once(&p.outer).chain(&p.holes));
    let pieces = |a: Point2, b: Point2| -> u64 {
        if !(max_edge > 0.0 && max_edge.is_finite()) {
            return 1;
        }
        let mut len = (b[0] - a[0]).hypot(b[1] - a[1]);
        let mut n = 1u64;
        // At most 16 halvings per edge, as in `split_long_edges`.
        while len > max_edge && n < 1 << 16 {
            len /= 2.0;
            n *= 2;
        }
        n
    };
    rings.map(|r| (0..r.len()).map(|k| pieces(r[k], r[(k + 1) % r.len()])).sum::<u64>()).sum()
}

/// `ring` with every edge longer than `max_edge` halved until none is (see the module docs).
fn split_long_edges(ring: &[Point2], max_edge: f64) -> Vec<Point2> {
    /// Pushes the interior split points of `a -> b`, in order; `depth` halvings at most, so a
    /// tiny limit on a huge level cannot explode the vertex count (2^16 pieces per edge).
    fn halve(a: Point2, b: Point2, max_edge: f64, depth: u32, out: &mut Vec<Point2>) {
        if depth == 0 || (b[0] - a[0]).hypot(b[1] - a[1]) <= max_edge {
            return;
        }
        let m = [(a[0] + b[0]) / 2.0, (a[1] + b[1]) / 2.0];
        halve(a, m, max_edge, depth - 1, out);
        out.push(m);
        halve(m, b, max_edge, depth - 1, out);
    }
    if !(max_edge > 0.0 && max_edge.is_finite()) {
        return ring.to_vec();
    }
    let mut out = Vec::with_capacity(ring.len());
    for (k, &a) in ring.iter().enumerate() {
        out.push(a);
        halve(a, ring[(k + 1) % ring.len()], max_edge, 16, &mut out);
    }
    out
}

/// The original rings with an index over their edges, and scratch space for queries.
struct Simplifier<'a> {
    rings: &'a [&'a [Point2]],
    params: SimplifyParams,
    /// Global index of each ring's first vertex (vertex `k` of ring `r` starts edge `first[r] + k`).
    first: Vec<usize>,
    /// Owning ring of each global edge.
    owner: Vec<u32>,
    /// Whether each global vertex's position occurs more than once among all rings.
    pinned: Vec<bool>,
    grid: BoxGrid,
    near: Vec<u32>,
}

impl<'a> Simplifier<'a> {
    fn new(rings: &'a [&'a [Point2]], params: &SimplifyParams) -> Self {
        let mut first = Vec::with_capacity(rings.len() + 1);
        let mut owner = Vec::new();
        let mut boxes: Vec<Box2> = Vec::new();
        for (r, ring) in rings.iter().enumerate() {
            first.push(owner.len());
            for k in 0..ring.len() {
                let (p, q) = (ring[k], ring[(k + 1) % ring.len()]);
                owner.push(r as u32);
                boxes.push([p[0].min(q[0]), p[1].min(q[1]), p[0].max(q[0]), p[1].max(q[1])]);
            }
        }
        first.push(owner.len());
        let mut order: Vec<(Point2, usize)> =
            rings.iter().flat_map(|r| r.iter().copied()).enumerate().map(|(i, p)| (p, i)).collect();
        order.sort_unstable_by(|a, b| a.0[0].total_cmp(&b.0[0]).then(a.0[1].total_cmp(&b.0[1])).then(a.1.cmp(&b.1)));
        let mut pinned = vec![false; owner.len()];
        for run in order.chunk_by(|a, b| a.0 == b.0) {
            if run.len() > 1 {
                run.iter().for_each(|&(_, i)| pinned[i] = true);
            }
        }
        Simplifier {
            rings,
            params: *params,
            first,
            owner,
            pinned,
            grid: BoxGrid::new(&boxes, BOX_GRID_ITEMS_PER_CELL),
            near: Vec::new(),
        }
    }

    /// The simplified ring `r` (the original if simplifying would leave it degenerate).
    fn ring(&mut self, r: usize) -> Vec<Point2> {
        let ring = self.rings[r];
        let n = ring.len();
        if n <= 3 {
            return ring.to_vec();
        }
        let Some(anchors) = self.anchors(r) else {
            return ring.to_vec();
        };
        let mut keep = vec![true; n];
        for (w, &start) in anchors.iter().enumerate() {
            let end = anchors[(w + 1) % anchors.len()];
            let len = (end + n - start) % n;
            self.chain(r, start, if len == 0 { n } else { len }, &mut keep);
        }
        let out: Vec<Point2> = ring.iter().zip(&keep).filter(|(_, &k)| k).map(|(p, _)| *p).collect();
        let (before, after) = (signed_area(ring), signed_area(&out));
        let same_orientation = (before > 0.0 && after > 0.0) || (before < 0.0 && after < 0.0);
        if out.len() >= 3 && same_orientation {
            out
        } else {
            ring.to_vec()
        }
    }

    /// The ring indices that chains run between, ascending: the pinned vertices and both ends
    /// of every edge that leaves its [`SIMPLIFY_CELL`] cell, plus, for a ring within one cell
    /// with fewer than two of those, the lowest vertex (by x, then z) and the one farthest from
    /// it. `None` when the ring has no two distinct positions.
    fn anchors(&self, r: usize) -> Option<Vec<usize>> {
        let ring = self.rings[r];
        let base = self.first[r];
        let n = ring.len();
        let cell = |p: Point2| ((p[0] / SIMPLIFY_CELL).floor(), (p[1] / SIMPLIFY_CELL).floor());
        let crosses = |k: usize| cell(ring[k]) != cell(ring[(k + 1) % n]);
        let mut anchors: Vec<usize> =
            (0..n).filter(|&k| self.pinned[base + k] || crosses(k) || crosses((k + n - 1) % n)).collect();
        if anchors.len() < 2 {
            let low = (0..ring.len())
                .min_by(|&i, &j| ring[i][0].total_cmp(&ring[j][0]).then(ring[i][1].total_cmp(&ring[j][1])))?;
            let dist2 = |k: usize| (ring[k][0] - ring[low][0]).powi(2) + (ring[k][1] - ring[low][1]).powi(2);
            // The first of the farthest (max_by would return the last).
            let far = (0..ring.len()).rev().max_by(|&i, &j| dist2(i).total_cmp(&dist2(j)))?;
            if dist2(far) <= 0.0 {
                return None;
            }
            anchors.extend([low, far]);
            anchors.sort_unstable();
            anchors.dedup();
        }
        Some(anchors)
    }

    /// Simplifies the chain of `len` edges from ring vertex `start`, clearing `keep` for the
    /// vertices it drops (Douglas–Peucker with an explicit stack).
    fn chain(&mut self, r: usize, start: usize, len: usize, keep: &mut [bool]) {
        let ring = self.rings[r];
        let n = ring.len();
        let at = |s: usize| ring[(start + s) % n];
        let mut stack = vec![(0usize, len)];
        while let Some((s, e)) = stack.pop() {
            if e - s < 2 {
                continue;
            }
            let (a, b) = (at(s), at(e));
            let split = if a == b {
                // A closed sub-chain (the ring touches itself): split at the farthest vertex.
                Some(farthest(s, e, |k| (at(k)[0] - a[0]).hypot(at(k)[1] - a[1])))
            } else {
                let mut worst: Option<(f64, usize)> = None;
                for k in s + 1..e {
                    let p = at(k);
                    let d = point_segment_distance(p, a, b);
                    let blocked_side = orient2d(a, b, p) < 0.0;
                    let limit = if blocked_side { self.params.shrink.max(self.params.grow) } else { self.params.grow };
                    if d > limit {
                        let score = d / limit.max(f64::MIN_POSITIVE);
                        if worst.is_none_or(|(w, _)| score > w) {
                            worst = Some((score, k));
                        }
                    }
                }
                match worst {
                    Some((_, k)) => Some(k),
                    None if self.chord_is_clear(r, start, s, e) => None,
                    None => Some(farthest(s, e, |k| point_segment_distance(at(k), a, b))),
                }
            };
            match split {
                Some(k) => {
                    stack.push((k, e));
                    stack.push((s, k));
                }
                None => (s + 1..e).for_each(|k| keep[(start + k) % n] = false),
            }
        }
    }

    /// Whether the chord from chain offset `s` to `e` (chain of ring `r` starting at `start`)
    /// meets no other ring edge except at its ends, and no other ring vertex lies in the region
    /// between it and the chain.
    fn chord_is_clear(&mut self, r: usize, start: usize, s: usize, e: usize) -> bool {
        let ring = self.rings[r];
        let n = ring.len();
        let at = |k: usize| ring[(start + k) % n];
        let (a, b) = (at(s), at(e));
        let mut bounds = [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY];
        for k in s..=e {
            let p = at(k);
            bounds = [bounds[0].min(p[0]), bounds[1].min(p[1]), bounds[2].max(p[0]), bounds[3].max(p[1])];
        }
        let mut near = std::mem::take(&mut self.near);
        self.grid.query(&bounds, &mut near);
        let mut clear = true;
        for &edge in &near {
            let edge = edge as usize;
            let other = self.owner[edge] as usize;
            let k = edge - self.first[other];
            // Offset of the edge's first vertex along this chain, if it belongs to the ring.
            let offset = (other == r).then(|| (k + n - start) % n);
            if offset.is_some_and(|o| o >= s && o < e) {
                continue; // an edge of the chain itself
            }
            let ring2 = self.rings[other];
            let (p, q) = (ring2[k], ring2[(k + 1) % ring2.len()]);
            if !edge_spares_chord(a, b, p, q) {
                clear = false;
                break;
            }
            let inside_bounds = p[0] >= bounds[0] && p[0] <= bounds[2] && p[1] >= bounds[1] && p[1] <= bounds[3];
            if p != a && p != b && inside_bounds && in_swept_region((s..=e).map(at), p) {
                clear = false;
                break;
            }
        }
        self.near = near;
        clear
    }
}

/// The offset in `s+1..e` with the largest `dist` (the first of equals).
fn farthest(s: usize, e: usize, dist: impl Fn(usize) -> f64) -> usize {
    let mut best = (f64::NEG_INFINITY, s + 1);
    for k in s + 1..e {
        let d = dist(k);
        if d > best.0 {
            best = (d, k);
        }
    }
    best.1
}

/// Whether the closed segment `p q` meets the chord `a → b` at most in a shared endpoint (`a` or
/// `b` is `p` or `q`) without running along it.
fn edge_spares_chord(a: Point2, b: Point2, p: Point2, q: Point2) -> bool {
    if !segments_meet(a, b, p, q) {
        return true;
    }
    let at_a = p == a || q == a;
    let at_b = p == b || q == b;
    if at_a == at_b {
        return false; // meets in between, or is the chord itself
    }
    let (end, toward) = if at_a { (a, b) } else { (b, a) };
    let far = if p == end { q } else { p };
    // Collinear and pointing into the chord means the two overlap.
    let along = (far[0] - end[0]) * (toward[0] - end[0]) + (far[1] - end[1]) * (toward[1] - end[1]);
    !(orient2d(end, toward, far) == 0.0 && along > 0.0)
}

/// Whether the closed segments `a b` and `p q` have a point in common.
fn segments_meet(a: Point2, b: Point2, p: Point2, q: Point2) -> bool {
    let side = |x: f64| x.partial_cmp(&0.0).unwrap_or(std::cmp::Ordering::Equal);
    let (o1, o2) = (side(orient2d(a, b, p)), side(orient2d(a, b, q)));
    let (o3, o4) = (side(orient2d(p, q, a)), side(orient2d(p, q, b)));
    use std::cmp::Ordering::Equal;
    if o1 == Equal && o2 == Equal {
        // Collinear: the projections on the line must overlap.
        let overlap = |i: usize| a[i].min(b[i]) <= p[i].max(q[i]) && p[i].min(q[i]) <= a[i].max(b[i]);
        return overlap(0) && overlap(1);
    }
    (o1 == Equal || o2 == Equal || o1 != o2) && (o3 == Equal || o4 == Equal || o3 != o4)
}

/// Whether `x` lies inside or on the closed ring `chain` (first point joined back to the last).
fn in_swept_region(chain: impl Iterator<Item = Point2> + Clone, x: Point2) -> bool {
    let mut prev = match chain.clone().last() {
        Some(p) => p,
        None => return false,
    };
    let mut winding = 0i64;
    for p in chain {
        let (u, w) = (prev, p);
        prev = p;
        let o = orient2d(u, w, x);
        let within =
            x[0] >= u[0].min(w[0]) && x[0] <= u[0].max(w[0]) && x[1] >= u[1].min(w[1]) && x[1] <= u[1].max(w[1]);
        if o == 0.0 && within {
            return true;
        }
        if u[1] <= x[1] {
            if w[1] > x[1] && o > 0.0 {
                winding += 1;
            }
        } else if w[1] <= x[1] && o < 0.0 {
            winding -= 1;
        }
    }
    winding != 0
}

#[cfg(test)]
mod tests;
