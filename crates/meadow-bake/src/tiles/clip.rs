//! A tile's simplified free area cut to the tile's box, with every point where a ring edge
//! crosses a side of the box placed on that edge (not rounded to the grid), computed from the
//! edge alone: both tiles at a border, and the untiled bake's edge, agree on it up to rounding.

use crate::grid::Box2;
use crate::overlay::{boolean_with, Frame, IntContour, IntShape};
use crate::region::{AreaRegion, PolygonWithHoles, Regions};
use crate::tolerance::{CROSSING_MATCH, GRID_STEP};
use i_overlay::core::fill_rule::FillRule;
use i_overlay::core::overlay::{IntOverlayOptions, ShapeType};
use i_overlay::core::overlay_rule::OverlayRule;
use i_overlay::i_float::int::point::IntPoint;
use meadow::geom::Point2;
use std::collections::BTreeSet;

/// A side line of the box: `axis` 0 is the line `x = c`, 1 the line `z = c`.
#[derive(Clone, Copy)]
struct Side {
    axis: usize,
    c: f64,
}

/// Where the segment `p q` crosses `side` strictly between its ends (its ends on either side of
/// the line), as the coordinate along the line. Computed from the end with the smaller
/// coordinate across the line, so that the segment gives the same bits in either direction.
fn crossing(p: Point2, q: Point2, side: Side) -> Option<f64> {
    let (a, o) = (side.axis, 1 - side.axis);
    let (lo, hi) = if p[a] < q[a] { (p, q) } else { (q, p) };
    if !(lo[a] < side.c && side.c < hi[a]) {
        return None;
    }
    // lo[a] < c < hi[a]: the fraction lies in (0, 1) and the result between the ends' coordinates.
    let t = (side.c - lo[a]) / (hi[a] - lo[a]);
    Some(lo[o] + t * (hi[o] - lo[o]))
}

/// `regions` (rings on the region grid, as the simplify stage leaves them before splitting)
/// cut to the box `rect`, whose sides are region grid lines. Points where the cut crosses a
/// ring edge lie on that edge (see the module docs); every other point keeps its position.
pub(crate) fn clip_regions(regions: &Regions, rect: Box2) -> Regions {
    let rings =
        || regions.areas.iter().flat_map(|a| &a.polygons).flat_map(|p| std::iter::once(&p.outer).chain(&p.holes));
    let bounds =
        rings().flatten().fold([f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY], |b, p| {
            [b[0].min(p[0]), b[1].min(p[1]), b[2].max(p[0]), b[3].max(p[1])]
        });
    // The box as far as the rings reach (one grid step beyond them, so no ring touches a side
    // that is not the tile's): its corners stay within the rings' frame.
    let cut = [
        rect[0].max(bounds[0] - GRID_STEP),
        rect[1].max(bounds[1] - GRID_STEP),
        rect[2].min(bounds[2] + GRID_STEP),
        rect[3].min(bounds[3] + GRID_STEP),
    ];
    let mut out = Regions { areas: Vec::new(), ..regions.clone() };
    if !(cut[0] < cut[2] && cut[1] < cut[3]) {
        return out;
    }
    let frame = Frame::centred(bounds);
    let sides = [
        Side { axis: 0, c: rect[0] },
        Side { axis: 0, c: rect[2] },
        Side { axis: 1, c: rect[1] },
        Side { axis: 1, c: rect[3] },
    ];
    // Every crossing of a ring edge with a side, sorted along it, and every ring point.
    let mut crossings: [Vec<f64>; 4] = Default::default();
    let mut points: BTreeSet<(u64, u64)> = BTreeSet::new();
    for ring in rings() {
        for k in 0..ring.len() {
            let (p, q) = (ring[k], ring[(k + 1) % ring.len()]);
            points.insert((p[0].to_bits(), p[1].to_bits()));
            for (list, &side) in crossings.iter_mut().zip(&sides) {
                list.extend(crossing(p, q, side));
            }
        }
    }
    for list in &mut crossings {
        list.sort_unstable_by(f64::total_cmp);
    }
    let (lo, hi) = (frame.to_int([cut[0], cut[1]]), frame.to_int([cut[2], cut[3]]));
    let clip: IntContour = vec![lo, IntPoint::new(hi.x, lo.y), hi, IntPoint::new(lo.x, hi.y)];
    // A point made by the cut on a side: the crossing of the edge it rounds, if one lies
    // within the match distance along the side.
    let place = |p: Point2| -> Point2 {
        if points.contains(&(p[0].to_bits(), p[1].to_bits())) {
            return p;
        }
        let on: Vec<usize> = (0..4).filter(|&s| p[sides[s].axis] == sides[s].c).collect();
        let [s] = on[..] else { return p };
        let along = p[1 - sides[s].axis];
        let list = &crossings[s];
        let i = list.partition_point(|&v| v < along);
        let nearest = [i.checked_sub(1), Some(i)]
            .into_iter()
            .flatten()
            .filter_map(|j| list.get(j).copied())
            .min_by(|a, b| (a - along).abs().total_cmp(&(b - along).abs()));
        match nearest {
            Some(v) if (v - along).abs() <= CROSSING_MATCH => {
                let mut q = p;
                q[1 - sides[s].axis] = v;
                q
            }
            _ => p,
        }
    };
    for area in &regions.areas {
        let shapes: Vec<IntShape> = area
            .polygons
            .iter()
            .map(|p| {
                std::iter::once(&p.outer)
                    .chain(&p.holes)
                    .map(|r| r.iter().map(|&q| frame.to_int(q)).collect())
                    .collect()
            })
            .collect();
        let mut ov = boolean_with(256, IntOverlayOptions::keep_all_points());
        ov.add_source(&shapes, ShapeType::Subject);
        ov.add_contour(&clip, ShapeType::Clip);
        let clipped = ov.overlay(OverlayRule::Intersect, FillRule::NonZero);
        if clipped.is_empty() {
            continue;
        }
        let ring = |c: &IntContour| c.iter().map(|&q| place(frame.to_world(q))).collect::<Vec<_>>();
        let polygons = clipped
            .iter()
            .map(|s| PolygonWithHoles { outer: ring(&s[0]), holes: s[1..].iter().map(ring).collect() })
            .collect();
        out.areas.push(AreaRegion { area: area.area, layer: area.layer, polygons });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_crossing_has_the_same_bits_in_either_direction_and_lies_on_the_side() {
        let side = Side { axis: 0, c: 2.0 };
        let (p, q) = ([0.1, 0.3], [5.7, 9.1]);
        let v = crossing(p, q, side).unwrap();
        assert_eq!(crossing(q, p, side), Some(v));
        assert!((v - (0.3 + (1.9 / 5.6) * 8.8)).abs() < 1e-12);
        assert_eq!(crossing([2.0, 0.0], [3.0, 1.0], side), None, "an end on the line is no crossing");
    }

    #[test]
    fn cutting_a_slanted_square_puts_the_cut_points_on_its_edges() {
        // A square turned so that its edges cross the box's sides between grid points.
        let outer = [[0.0, -3.0], [3.0, 0.0], [0.0, 3.0], [-3.0, 0.0]];
        let outer: Vec<Point2> = outer.iter().map(|p: &[f64; 2]| [p[0] + 0.123046875, p[1] * 0.9990234375]).collect();
        let regions = Regions {
            areas: vec![AreaRegion { area: 0, layer: 0, polygons: vec![PolygonWithHoles { outer, holes: vec![] }] }],
            layers: 1,
            ..Regions::default()
        };
        let rect = [0.0, 0.0, 2.0, 2.0];
        let out = clip_regions(&regions, rect);
        let ring = &out.areas[0].polygons[0].outer;
        let edge = |p: Point2| {
            let o = &regions.areas[0].polygons[0].outer;
            (0..4).map(|k| meadow::geom::point_segment_distance(p, o[k], o[(k + 1) % 4])).fold(f64::INFINITY, f64::min)
        };
        let mut on_sides = 0;
        for &p in ring {
            assert!(p[0] >= 0.0 && p[0] <= 2.0 && p[1] >= 0.0 && p[1] <= 2.0, "{p:?} outside the box");
            let on_side = p[0] == 0.0 || p[0] == 2.0 || p[1] == 0.0 || p[1] == 2.0;
            let corner = (p[0] == 0.0 || p[0] == 2.0) && (p[1] == 0.0 || p[1] == 2.0);
            if on_side && !corner {
                on_sides += 1;
                assert!(edge(p) <= 1e-12, "{p:?} is {} m off the square's edge", edge(p));
            }
        }
        assert_eq!(on_sides, 2, "{ring:?}");
    }
}
