//! Shared vertices: where regions (of one layer, or of layers meeting at a seam) share a
//! boundary, every ring vertex of one is made to appear on the rings of the others, so the
//! polygons built from them share whole edges.
//!
//! Input: the regions' grid shapes and the seams. Output: the same shapes, vertices inserted.

use crate::grid::BoxGrid;
use crate::overlay::{IntContour, IntShape};
use crate::tolerance::{SHARED_VERTEX_REACH_UNITS, SNAP_GRID_ITEMS_PER_CELL};
use i_overlay::i_float::int::point::IntPoint;

/// Where regions share a boundary, makes every ring vertex of one appear on the rings of the
/// others, so the polygons built from them share whole edges (portals). The regions of a layer
/// (per area and surface) and the layers meeting at a seam come from separate overlays, and
/// where a border crosses theirs each rounded the crossing to the grid on its own: so first a
/// vertex within a grid unit of a vertex of an earlier touching region is snapped onto it,
/// then the vertices of other touching regions within a grid unit of an edge are inserted
/// into it (a region's own vertices only when exactly on the edge). A vertex off the edge's
/// line is not inserted where its own region already runs back along that stretch of the edge
/// exactly (`held_back`): that region's edge keeps its line (its own vertices are not
/// inserted into it), so the bent edge would leave it and the two regions would overlap or
/// part. Nor is it inserted where its region's border runs along the edge the same way on
/// both sides of it (`alongside`): that region lies on the edge's own side there. Regions touch when they are
/// on one layer or on two layers that meet at a seam.
pub(super) fn insert_shared_vertices(regions: &mut [(u16, u16, Vec<IntShape>)], seams: &[(u32, u32)]) {
    let layer_of: Vec<u16> = regions.iter().map(|r| r.1).collect();
    let touching = |r: usize, s: usize| {
        let (a, b) = (layer_of[r], layer_of[s]);
        a == b || seams.binary_search(&(a.min(b) as u32, a.max(b) as u32)).is_ok()
    };
    let collect = |regions: &[(u16, u16, Vec<IntShape>)]| -> Vec<(IntPoint, u32)> {
        let mut p: Vec<(IntPoint, u32)> = ring_edges(regions).into_iter().map(|e| (e.from, e.region)).collect();
        p.dedup();
        p
    };
    let points = collect(regions);
    let mut lookup: std::collections::BTreeMap<(i32, i32), Vec<u32>> = std::collections::BTreeMap::new();
    for (q, r) in &points {
        lookup.entry((q.x, q.y)).or_default().push(*r);
    }
    for (r, (_, _, shapes)) in regions.iter_mut().enumerate() {
        let snap = |q: IntPoint| -> IntPoint {
            let mut best: Option<(u32, i32, i32)> = None;
            for dx in -1..=1 {
                for dy in -1..=1 {
                    for &o in lookup.get(&(q.x + dx, q.y + dy)).into_iter().flatten() {
                        let cand = (o, q.x + dx, q.y + dy);
                        if (o as usize) < r && touching(o as usize, r) && best.is_none_or(|b| cand < b) {
                            best = Some(cand);
                        }
                    }
                }
            }
            best.map_or(q, |(_, x, y)| IntPoint::new(x, y))
        };
        for ring in shapes.iter_mut().flatten() {
            for q in ring.iter_mut() {
                *q = snap(*q);
            }
            remove_spikes(ring);
        }
        for shape in shapes.iter_mut() {
            shape.retain(|ring| ring.len() >= 3);
        }
        shapes.retain(|shape| !shape.is_empty());
    }
    let edges = ring_edges(regions);
    let mut edges_in = edges.clone();
    edges_in.sort_unstable_by_key(|e| (e.to.x, e.to.y, e.region, e.from.x, e.from.y));
    let points = collect(regions);
    if points.is_empty() {
        return;
    }
    let boxes: Vec<[f64; 4]> = points.iter().map(|(q, _)| [q.x as f64, q.y as f64, q.x as f64, q.y as f64]).collect();
    let mut grid = BoxGrid::new(&boxes, SNAP_GRID_ITEMS_PER_CELL);
    let mut near = Vec::new();
    for (r, (_, _, shapes)) in regions.iter_mut().enumerate() {
        for ring in shapes.iter_mut().flatten() {
            let mut out = Vec::with_capacity(ring.len());
            for i in 0..ring.len() {
                let (a, b) = (ring[i], ring[(i + 1) % ring.len()]);
                out.push(a);
                let bx = [
                    a.x.min(b.x) as f64 - SHARED_VERTEX_REACH_UNITS,
                    a.y.min(b.y) as f64 - SHARED_VERTEX_REACH_UNITS,
                    a.x.max(b.x) as f64 + SHARED_VERTEX_REACH_UNITS,
                    a.y.max(b.y) as f64 + SHARED_VERTEX_REACH_UNITS,
                ];
                grid.query(&bx, &mut near);
                // Differences below 2^28 (see `GRID_BOUND`): `len2`, `dot` and `cross` are
                // below 2^57 in magnitude (i64); `cross²` is compared in i128.
                let dx = b.x as i64 - a.x as i64;
                let dy = b.y as i64 - a.y as i64;
                let len2 = dx * dx + dy * dy;
                let held = held_back(&edges, near.iter().map(|&k| points[k as usize]), a, b);
                let mut on: Vec<(i64, IntPoint)> = near
                    .iter()
                    .map(|&k| points[k as usize])
                    .filter(|&(q, o)| {
                        let (qx, qy) = (q.x as i64 - a.x as i64, q.y as i64 - a.y as i64);
                        let dot = qx * dx + qy * dy;
                        let cross = qx * dy - qy * dx;
                        let close = if o as usize == r {
                            cross == 0
                        } else {
                            touching(o as usize, r)
                                && (cross as i128).pow(2) <= len2 as i128
                                && q != a
                                && q != b
                                && (cross == 0
                                    || !held.iter().any(|h| h.0 == o && (h.1..=h.2).contains(&dot))
                                        && !alongside(&edges, &edges_in, q, o, a, b))
                        };
                        close && dot > 0 && dot < len2
                    })
                    .map(|(q, _)| ((q.x as i64 - a.x as i64) * dx + (q.y as i64 - a.y as i64) * dy, q))
                    .collect();
                on.sort_unstable_by_key(|e| (e.0, e.1.x, e.1.y));
                on.dedup_by_key(|e| e.1);
                out.extend(on.into_iter().map(|e| e.1));
            }
            remove_spikes(&mut out);
            *ring = out;
        }
    }
}

/// A ring edge of a region.
#[derive(Clone, Copy, Debug)]
struct RingEdge {
    from: IntPoint,
    region: u32,
    to: IntPoint,
}

/// Every ring edge of every region, sorted by start point, then region (then end point, so the
/// order is total and the step deterministic).
fn ring_edges(regions: &[(u16, u16, Vec<IntShape>)]) -> Vec<RingEdge> {
    let mut out = Vec::new();
    for (r, (_, _, shapes)) in regions.iter().enumerate() {
        for ring in shapes.iter().flatten() {
            for i in 0..ring.len() {
                out.push(RingEdge { from: ring[i], region: r as u32, to: ring[(i + 1) % ring.len()] });
            }
        }
    }
    out.sort_unstable_by_key(|e| (e.from.x, e.from.y, e.region, e.to.x, e.to.y));
    out
}

/// The dot and cross products of `q - a` with the edge `a → b`.
fn along(a: IntPoint, b: IntPoint, q: IntPoint) -> (i64, i64) {
    // Differences below 2^28 (see `GRID_BOUND`): each product below 2^56, sums below 2^57.
    let (dx, dy) = (b.x as i64 - a.x as i64, b.y as i64 - a.y as i64);
    let (qx, qy) = (q.x as i64 - a.x as i64, q.y as i64 - a.y as i64);
    (qx * dx + qy * dy, qx * dy - qy * dx)
}

/// The stretches of the edge `a → b` that touching regions already hold exactly, running the
/// other way: each region's ring edges with both ends on the segment, pointing against it, as
/// (region, lowest and highest projection onto the edge, in units of its length times itself).
/// Such an edge starts at a point of its region on the segment, so `near` (the points in the
/// edge's box) holds its start.
fn held_back(
    edges: &[RingEdge],
    near: impl Iterator<Item = (IntPoint, u32)>,
    a: IntPoint,
    b: IntPoint,
) -> Vec<(u32, i64, i64)> {
    let (len2, _) = along(a, b, b);
    let on_segment = |p: IntPoint| {
        let (dot, cross) = along(a, b, p);
        (cross == 0 && (0..=len2).contains(&dot)).then_some(dot)
    };
    let mut out = Vec::new();
    for (p, region) in near {
        let Some(start) = on_segment(p) else { continue };
        let key = |e: &RingEdge| (e.from.x, e.from.y, e.region);
        let lo = edges.partition_point(|e| key(e) < (p.x, p.y, region));
        let hi = edges.partition_point(|e| key(e) <= (p.x, p.y, region));
        for e in &edges[lo..hi] {
            if let Some(end) = on_segment(e.to).filter(|&end| end < start) {
                out.push((region, end, start));
            }
        }
    }
    out
}

/// Whether the ring of region `o` runs along the edge `a → b` at its vertex `q` the same way as
/// the edge: each of its edges at `q` has both ends within a grid unit of the edge (and
/// projecting onto it) and runs forward. Then `o` lies on the edge's own
/// side there (a sliver along a border that two other regions share, say): inserting `q` would
/// bend the edge along `o`'s border and the two regions would overlap. Where `o` lies across
/// the edge its border runs back along it, and its vertices are inserted.
fn alongside(edges: &[RingEdge], edges_in: &[RingEdge], q: IntPoint, o: u32, a: IntPoint, b: IntPoint) -> bool {
    let (len2, _) = along(a, b, b);
    let reach = |p: IntPoint| {
        let (dot, cross) = along(a, b, p);
        ((cross as i128).pow(2) <= len2 as i128 && (0..=len2).contains(&dot)).then_some(dot)
    };
    let out_lo = edges.partition_point(|e| (e.from.x, e.from.y, e.region) < (q.x, q.y, o));
    let out_hi = edges.partition_point(|e| (e.from.x, e.from.y, e.region) <= (q.x, q.y, o));
    let in_lo = edges_in.partition_point(|e| (e.to.x, e.to.y, e.region) < (q.x, q.y, o));
    let in_hi = edges_in.partition_point(|e| (e.to.x, e.to.y, e.region) <= (q.x, q.y, o));
    let mut incident = edges[out_lo..out_hi].iter().chain(&edges_in[in_lo..in_hi]).peekable();
    incident.peek().is_some()
        && incident.all(|e| matches!((reach(e.from), reach(e.to)), (Some(from), Some(to)) if to > from))
}

/// Removes repeated vertices and the spikes that snapping can leave: a vertex where the ring
/// turns straight back along itself (its neighbours and it collinear, the direction reversed).
pub(super) fn remove_spikes(ring: &mut IntContour) {
    loop {
        ring.dedup();
        while ring.len() > 1 && ring.first() == ring.last() {
            ring.pop();
        }
        let n = ring.len();
        if n < 3 {
            return;
        }
        let spike = (0..n).find(|&i| {
            let (a, b, c) = (ring[(i + n - 1) % n], ring[i], ring[(i + 1) % n]);
            // Differences below 2^28 (see `GRID_BOUND`): products below 2^56 (i64).
            let (ux, uy) = (b.x as i64 - a.x as i64, b.y as i64 - a.y as i64);
            let (vx, vy) = (c.x as i64 - b.x as i64, c.y as i64 - b.y as i64);
            ux * vy - uy * vx == 0 && ux * vx + uy * vy < 0
        });
        match spike {
            Some(i) => {
                ring.remove(i);
            }
            None => return,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ring(points: &[(i32, i32)]) -> IntContour {
        points.iter().map(|&(x, y)| IntPoint::new(x, y)).collect()
    }

    /// Region `x` east of the line x = 0 (its edge (0, 0) → (0, -1646) on it) and region `y`
    /// west of it, both on layer 0; returns both rings after the step.
    fn shared(x: IntContour, y: IntContour) -> (IntContour, IntContour) {
        let mut regions = vec![(0, 0, vec![vec![x]]), (0, 0, vec![vec![y]])];
        insert_shared_vertices(&mut regions, &[]);
        (regions[0].2[0][0].clone(), regions[1].2[0][0].clone())
    }

    /// Regression (undulating.glb): a corner of `y` one unit from an edge that `y` already holds
    /// reversed was inserted into the edge, bending it into `y`: the two regions overlapped in
    /// a sliver, and their polygons held one directed edge twice.
    #[test]
    fn a_corner_beside_an_edge_held_reversed_is_not_inserted() {
        let x = ring(&[(0, 0), (0, -1646), (2000, -1646), (2000, 0)]);
        let y = ring(&[(0, 0), (-2000, 0), (-1, -1643), (0, -1646)]);
        assert_eq!(shared(x.clone(), y.clone()), (x, y));
    }

    /// Where `y`'s border runs along the edge through a vertex one unit off it (the same
    /// crossing rounded apart by two overlays), the vertex is inserted and the borders match.
    #[test]
    fn a_vertex_on_the_neighbours_border_is_inserted() {
        let x = ring(&[(0, 0), (0, -1646), (2000, -1646), (2000, 0)]);
        let y = ring(&[(0, 0), (-2000, 0), (-2000, -1646), (0, -1646), (1, -800)]);
        let (x2, y2) = shared(x, y.clone());
        assert_eq!(x2, ring(&[(0, 0), (1, -800), (0, -1646), (2000, -1646), (2000, 0)]));
        assert_eq!(y2, y);
    }

    /// Known bug (undulating.glb, radius 0): `x` holds the one-unit edge (-1, -1) → (0, 0).
    /// `y`'s vertex (0, 0) snaps onto (-1, -1) (the earlier region's lowest vertex within a
    /// unit, though `x` holds (0, 0) exactly), and (0, 0) is then inserted into `y`'s edge from
    /// (-1, -1): both hold (-1, -1) → (0, 0) and their polygons overlap beside it. Keeping exact
    /// matches in the snap, or not inserting a vertex after one its region holds the edge from,
    /// each fix this case but make other levels' radius-0 bakes worse.
    #[test]
    #[ignore = "known bug: a snapped vertex repeats an earlier region's one-unit edge"]
    fn known_bug_a_snapped_vertex_repeats_a_one_unit_edge() {
        let x = ring(&[(-2516, -838), (-1, -1), (0, 0), (-550, 550), (-2516, 550)]);
        let y = ring(&[(-550, 550), (0, 0), (1255, 418), (1255, 2000), (-550, 2000)]);
        let mut regions = vec![(0, 0, vec![vec![x]]), (0, 0, vec![vec![y]])];
        insert_shared_vertices(&mut regions, &[]);
        let mut directed: Vec<(IntPoint, IntPoint)> = regions
            .iter()
            .map(|r| &r.2[0][0])
            .flat_map(|r| (0..r.len()).map(move |i| (r[i], r[(i + 1) % r.len()])))
            .collect();
        directed.sort_unstable_by_key(|e| (e.0.x, e.0.y, e.1.x, e.1.y));
        assert!(directed.windows(2).all(|w| w[0] != w[1]), "{directed:?}");
    }

    /// Regression (dungeon.glb, collision-world.glb): a sliver one unit wide on an edge that
    /// two regions already share exactly. Its vertex (1, -1000), where its border runs along
    /// the edge the way the west region's edge runs on both sides of it, was inserted into both neighbours,
    /// and the sliver and the west region both held the edge (1, -1000) → (0, 0).
    #[test]
    fn a_sliver_on_a_shared_edge_bends_each_neighbour_only_around_itself() {
        let x = ring(&[(0, 0), (0, -2000), (2000, -2000), (2000, 0)]);
        let y = ring(&[(0, 0), (-2000, 0), (-2000, -2000), (0, -2000)]);
        let s = ring(&[(0, 0), (1, -1500), (1, -1000)]);
        let mut regions = vec![(0, 0, vec![vec![x]]), (0, 0, vec![vec![y]]), (0, 0, vec![vec![s.clone()]])];
        insert_shared_vertices(&mut regions, &[]);
        let rings: Vec<IntContour> = regions.iter().map(|r| r.2[0][0].clone()).collect();
        assert_eq!(rings[0], ring(&[(0, 0), (1, -1000), (1, -1500), (0, -2000), (2000, -2000), (2000, 0)]));
        assert_eq!(rings[1], ring(&[(0, 0), (-2000, 0), (-2000, -2000), (0, -2000), (1, -1500)]));
        assert_eq!(rings[2], s);
        let mut directed: Vec<(IntPoint, IntPoint)> =
            rings.iter().flat_map(|r| (0..r.len()).map(move |i| (r[i], r[(i + 1) % r.len()]))).collect();
        directed.sort_unstable_by_key(|e| (e.0.x, e.0.y, e.1.x, e.1.y));
        assert!(directed.windows(2).all(|w| w[0] != w[1]), "{directed:?}");
    }
}
