//! Surface planes of stacked layers: walkable triangles grouped into connected near-planar
//! surfaces, so that regions on layers stacked over or under another split by surface.
//!
//! Input: a layer's walkable triangles and which are stacked. Output: a group per triangle.

use crate::tolerance::{COPLANAR_TOLERANCE, PLANE_TOLERANCE_PER_CLIMB};
use crate::xz::Plane;

/// How far off a seed triangle's plane the corners of the connected walkable triangles grown
/// from it may be and still count as one surface with it (see [`PLANE_TOLERANCE_PER_CLIMB`]).
pub(super) fn plane_tolerance(max_climb: f64) -> f64 {
    PLANE_TOLERANCE_PER_CLIMB * max_climb
}

/// Groups the `stacked` walkable triangles of `tris` (one layer) into connected near-planar
/// surfaces, grown across shared edges from the lowest-index triangle not yet placed, taking in
/// the unstacked triangles they reach that lie in the seed's plane (within
/// [`COPLANAR_TOLERANCE`]); the other unstacked ones form one more group. Per triangle: its
/// group number, groups numbered from the highest surface down (ties by seed).
pub(super) fn plane_groups(
    walkable: &[crate::classify::WalkableTriangle],
    tris: &[u32],
    stacked: &[bool],
    tolerance: f64,
) -> Vec<u32> {
    let key = |v: [f64; 3]| ((v[0] + 0.0).to_bits(), (v[2] + 0.0).to_bits());
    // (lower end, upper end, triangle) per edge, ends keyed by their exact XZ bits.
    type EdgeKey = ((u64, u64), (u64, u64), u32);
    let mut edges: Vec<EdgeKey> = Vec::with_capacity(tris.len() * 3);
    for (i, &t) in tris.iter().enumerate() {
        let v = &walkable[t as usize].vertices;
        for k in 0..3 {
            let (a, b) = (key(v[k]), key(v[(k + 1) % 3]));
            edges.push((a.min(b), a.max(b), i as u32));
        }
    }
    edges.sort_unstable();
    let mut neighbours: Vec<Vec<u32>> = vec![Vec::new(); tris.len()];
    for run in edges.chunk_by(|x, y| x.0 == y.0 && x.1 == y.1) {
        for x in run {
            for y in run {
                if x.2 != y.2 {
                    neighbours[x.2 as usize].push(y.2);
                }
            }
        }
    }
    let mut group: Vec<u32> = vec![u32::MAX; tris.len()];
    // Per group: its seed (first) triangle.
    let mut seeds: Vec<usize> = Vec::new();
    let mut stack = Vec::new();
    if let Some(first) = stacked.iter().position(|&s| !s) {
        // The triangles stacked with no other layer: one group.
        for (i, _) in stacked.iter().enumerate().filter(|(_, &s)| !s) {
            group[i] = 0;
        }
        seeds.push(first);
    }
    for i in 0..tris.len() {
        if group[i] != u32::MAX {
            continue;
        }
        let plane = Plane::through(&walkable[tris[i] as usize].vertices);
        let g = seeds.len() as u32;
        group[i] = g;
        stack.push(i as u32);
        while let Some(j) = stack.pop() {
            for &k in &neighbours[j as usize] {
                let t = &walkable[tris[k as usize] as usize].vertices;
                let off_plane = |v: &[f64; 3]| (plane.y([v[0], v[2]]) - v[1]).abs();
                // Unstacked triangles in the seed's plane join too, and the growth goes on from
                // them: a floor partly under a bridge or a crate stays one surface instead of
                // being cut where the shadow ends (a cut that leaves interior vertices with fans
                // of thin polygons round them behind).
                let joins = match (group[k as usize], stacked[k as usize]) {
                    (u32::MAX, true) => t.iter().all(|v| off_plane(v) <= tolerance),
                    (0, false) => t.iter().all(|v| off_plane(v) <= COPLANAR_TOLERANCE),
                    _ => false,
                };
                if joins {
                    group[k as usize] = g;
                    stack.push(k);
                }
            }
        }
        seeds.push(i);
    }
    // Per group: its highest point and seed (once the unstacked group has given up its floors).
    let mut tops: Vec<(f64, usize)> = seeds.iter().map(|&seed| (f64::NEG_INFINITY, seed)).collect();
    for (i, &g) in group.iter().enumerate() {
        let top = &mut tops[g as usize].0;
        *top = walkable[tris[i] as usize].vertices.iter().fold(*top, |m, v| m.max(v[1]));
    }
    let mut order: Vec<usize> = (0..tops.len()).collect();
    order.sort_by(|&a, &b| tops[b].0.total_cmp(&tops[a].0).then(tops[a].1.cmp(&tops[b].1)));
    let mut rank = vec![0u32; tops.len()];
    for (r, &g) in order.iter().enumerate() {
        rank[g] = r as u32;
    }
    group.iter().map(|&g| rank[g as usize]).collect()
}
