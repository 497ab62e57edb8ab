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
/// into it (a region's own vertices only when exactly on the edge). Regions touch when they
/// are on one layer or on two layers that meet at a seam.
pub(super) fn insert_shared_vertices(regions: &mut [(u16, u16, Vec<IntShape>)], seams: &[(u32, u32)]) {
    let layer_of: Vec<u16> = regions.iter().map(|r| r.1).collect();
    let touching = |r: usize, s: usize| {
        let (a, b) = (layer_of[r], layer_of[s]);
        a == b || seams.binary_search(&(a.min(b) as u32, a.max(b) as u32)).is_ok()
    };
    let collect = |regions: &[(u16, u16, Vec<IntShape>)]| -> Vec<(IntPoint, u32)> {
        let mut p: Vec<(IntPoint, u32)> = regions
            .iter()
            .enumerate()
            .flat_map(|(r, (_, _, s))| s.iter().flatten().flatten().map(move |&q| (q, r as u32)))
            .collect();
        p.sort_unstable_by_key(|(q, r)| (q.x, q.y, *r));
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
                            touching(o as usize, r) && (cross as i128).pow(2) <= len2 as i128 && q != a && q != b
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
