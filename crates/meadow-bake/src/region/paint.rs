//! Area volumes paint a layer: each volume takes the part of the layer's walkable triangles
//! within its height range inside its footprint, later volumes winning; what no volume paints
//! goes by the triangles' own area types.
//!
//! Input: the area volumes, a layer's walkable triangles and free area. Output: the free area
//! split by area type and surface group, and the area each volume painted.
//! [`volume_warnings`] names the volumes that painted nothing.

use super::Regions;
use crate::grid::{Box2, BoxGrid};
use crate::ingest::Scene;
use crate::overlay::{int_ring, intersect, shapes_area, shapes_box, subtract, union, Frame, IntContour, IntShape};
use crate::xz::{ccw_xz, clip};
use meadow::geom::{self, Point2};

/// An area volume prepared for painting: its footprint on the grid and the walkable triangles
/// it may reach.
pub(super) struct VolumePaint {
    /// The area type it paints.
    pub(super) area: u16,
    /// Its height range `[y_min, y_max]`.
    pub(super) y: [f64; 2],
    /// The union of its triangles' XZ footprints (clipped to the walkable bounds).
    pub(super) footprint: Vec<IntShape>,
    /// Walkable triangles whose boxes meet the footprint's box and whose heights meet the
    /// range, ascending.
    pub(super) candidates: Vec<u32>,
}

impl VolumePaint {
    pub(super) fn new(
        v: &crate::ingest::AreaVolume,
        frame: Frame,
        bounds: Box2,
        walkable: &[crate::classify::WalkableTriangle],
        walk_grid: &mut BoxGrid,
    ) -> VolumePaint {
        // Beyond the walkable bounds there is nothing to paint, and far coordinates would
        // leave the grid.
        let clipped = |t: &[[f64; 3]; 3]| {
            let mut ring = ccw_xz(t);
            clip(&mut ring, |q| q[0] - bounds[0]);
            clip(&mut ring, |q| q[1] - bounds[1]);
            clip(&mut ring, |q| bounds[2] - q[0]);
            clip(&mut ring, |q| bounds[3] - q[1]);
            int_ring(frame, &ring)
        };
        let finite = v.triangles.iter().flatten().flatten().all(|c| c.is_finite());
        let footprint = if finite { union(v.triangles.iter().filter_map(clipped)) } else { Vec::new() };
        let mut candidates = Vec::new();
        if !footprint.is_empty() {
            walk_grid.query(&shapes_box(frame, &footprint), &mut candidates);
            candidates.retain(|&t| {
                let w = &walkable[t as usize].vertices;
                let lo = w[0][1].min(w[1][1]).min(w[2][1]);
                let hi = w[0][1].max(w[1][1]).max(w[2][1]);
                lo <= v.y_max && hi >= v.y_min
            });
        }
        VolumePaint { area: v.area, y: [v.y_min, v.y_max], footprint, candidates }
    }
}

/// What the volumes paint on layer `layer`: per volume (in scene order) and plane group, the
/// part of the layer's walkable triangles within the volume's height range, inside its
/// footprint. `groups` is indexed by position in the layer.
pub(super) fn paint_layer(
    volumes: &[VolumePaint],
    layer: u32,
    layer_of: &[u32],
    position_in_layer: &[u32],
    groups: &[u32],
    walkable: &[crate::classify::WalkableTriangle],
    frame: Frame,
) -> Vec<(usize, u32, Vec<IntShape>)> {
    let mut out = Vec::new();
    for (vi, v) in volumes.iter().enumerate() {
        let mut parts: Vec<(u32, IntContour)> = v
            .candidates
            .iter()
            .filter(|&&t| layer_of[t as usize] == layer)
            .filter_map(|&t| {
                let g = groups[position_in_layer[t as usize] as usize];
                int_ring(frame, &slab_part(&walkable[t as usize].vertices, v.y[0], v.y[1])).map(|c| (g, c))
            })
            .collect();
        parts.sort_by_key(|p| p.0);
        for run in parts.chunk_by(|a, b| a.0 == b.0) {
            let inside = intersect(&union(run.iter().map(|p| p.1.clone())), &v.footprint);
            if !inside.is_empty() {
                out.push((vi, run[0].0, inside));
            }
        }
    }
    out
}

/// Splits a layer's free area `free` by the volumes' `paints` and the triangles' `(area,
/// group)` keys: later volumes first (a volume later in scene order wins where volumes
/// overlap), then the keys, higher areas first, then lower groups, each taking what the ones
/// before left. Pieces of one area and group are united; the result is in key order.
/// `painted` gains `(v, area)` for the free area each volume `v` takes, in painting order (the
/// caller adds them up in layer order, so that the sums do not depend on the thread count).
pub(super) fn split_painted(
    free: &[IntShape],
    paints: &[(usize, u32, Vec<IntShape>)],
    volumes: &[VolumePaint],
    keys: &[(u16, u32)],
    key_union: impl Fn(u16, u32) -> Vec<IntShape>,
    painted: &mut Vec<(usize, f64)>,
) -> Vec<(u16, Vec<IntShape>)> {
    let mut claimed: Vec<IntShape> = Vec::new();
    let mut pieces: Vec<(u16, u32, Vec<IntShape>)> = Vec::new();
    for (v, g, shape) in paints.iter().rev() {
        let piece = intersect(free, &subtract(shape, &claimed));
        painted.push((*v, shapes_area(&piece)));
        pieces.push((volumes[*v].area, *g, piece));
        claimed.extend(shape.iter().cloned());
    }
    let mut keys = keys.to_vec();
    keys.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    for &(a, g) in &keys {
        let shape = key_union(a, g);
        pieces.push((a, g, intersect(free, &subtract(&shape, &claimed))));
        claimed.extend(shape);
    }
    pieces.retain(|p| !p.2.is_empty());
    pieces.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    pieces
        .chunk_by(|a, b| (a.0, a.1) == (b.0, b.1))
        .map(|run| {
            let shapes = if run.len() == 1 {
                run[0].2.clone()
            } else {
                union(run.iter().flat_map(|p| p.2.iter().flatten().cloned()))
            };
            (run[0].0, shapes)
        })
        .collect()
}

/// The XZ footprint of the part of triangle `t` whose height lies within `[lo, hi]`, counter-
/// clockwise (fewer than three points when none): the triangle's corners within the range
/// and the points where its edges cross `lo` and `hi`, in order round the triangle. Each
/// crossing is computed from its edge's end points taken in coordinate order, so triangles
/// sharing an edge get the very same points and their parts join without gaps.
pub(super) fn slab_part(t: &[[f64; 3]; 3], lo: f64, hi: f64) -> Vec<Point2> {
    let mut v = *t;
    if geom::orient2d([v[0][0], v[0][2]], [v[1][0], v[1][2]], [v[2][0], v[2][2]]) < 0.0 {
        v.swap(1, 2);
    }
    let crossing = |p: [f64; 3], q: [f64; 3], level: f64| -> Point2 {
        let ordered = p[0].total_cmp(&q[0]).then(p[1].total_cmp(&q[1])).then(p[2].total_cmp(&q[2])).is_le();
        let (a, b) = if ordered { (p, q) } else { (q, p) };
        let s = (level - a[1]) / (b[1] - a[1]);
        [a[0] + (b[0] - a[0]) * s, a[2] + (b[2] - a[2]) * s]
    };
    let mut out = Vec::with_capacity(7);
    for i in 0..3 {
        let (p, q) = (v[i], v[(i + 1) % 3]);
        if p[1] >= lo && p[1] <= hi {
            out.push([p[0], p[2]]);
        }
        // The levels the edge crosses strictly inside, in order from p to q.
        let levels = if q[1] > p[1] { [lo, hi] } else { [hi, lo] };
        for level in levels {
            if (p[1] < level && level < q[1]) || (q[1] < level && level < p[1]) {
                out.push(crossing(p, q, level));
            }
        }
    }
    out
}

/// One warning per area volume of `scene` that painted nothing in `regions` (a volume placed
/// off the floor or outside its height range, most likely by mistake).
pub fn volume_warnings(scene: &Scene, regions: &Regions) -> Vec<String> {
    volume_warnings_painted(scene, &regions.painted)
}

/// As [`volume_warnings`], from the free area each volume painted (m², in scene order).
pub fn volume_warnings_painted(scene: &Scene, painted: &[f64]) -> Vec<String> {
    let mut warnings = Vec::new();
    for (volume, &painted) in scene.volumes.iter().zip(painted) {
        if painted <= 0.0 {
            let name = scene.nodes.get(volume.node as usize).map_or("?", String::as_str);
            let area = scene.areas.get(volume.area as usize).map_or("?", |a| a.name.as_str());
            warnings.push(format!(
                "area volume '{name}' (area '{area}') paints nothing: no free walkable surface lies inside its \
                 footprint within its height range y = {:.2} ..= {:.2} m",
                volume.y_min, volume.y_max
            ));
        }
    }
    warnings
}
