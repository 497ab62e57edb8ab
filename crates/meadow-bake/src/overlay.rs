//! The exact integer grid the region stage (and the classify stage's warnings) compute on:
//! [`Frame`] maps XZ points to grid units around a whole-metre origin and back, and the polygon
//! booleans and offsets run on grid contours in i_overlay's integer engine.
//!
//! Input: XZ points, rings and triangles. Output: grid contours and shapes, their areas and
//! boxes, and booleans of shapes.

use crate::grid::Box2;
use crate::tolerance::{GRID_BOUND, GRID_SCALE, MAX_EXTENT, SNAP_RADIUS_GROWTH};
use crate::xz::ccw_xz;
use i_overlay::core::fill_rule::FillRule;
use i_overlay::core::overlay::{IntOverlayOptions, Overlay, ShapeType};
use i_overlay::core::overlay_rule::OverlayRule;
use i_overlay::core::solver::{Precision, Solver};
use i_overlay::i_float::int::angle::Angle;
use i_overlay::i_float::int::point::IntPoint;
use i_overlay::mesh::int::arc::ArcOptions;
use meadow::geom::Point2;

pub(crate) type IntContour = Vec<IntPoint>;
pub(crate) type IntShape = Vec<IntContour>;

/// Maps XZ points to the integer grid around a whole-metre origin and back, exactly.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    origin: Point2,
}

impl Frame {
    /// The frame centred on the XZ box `[min_x, min_z, max_x, max_z]`.
    pub(crate) fn centred(b: Box2) -> Frame {
        Frame { origin: [((b[0] + b[2]) * 0.5).floor(), ((b[1] + b[3]) * 0.5).floor()] }
    }

    /// The frame centred on an XZ box, if the box is finite and within [`MAX_EXTENT`].
    pub(crate) fn around(b: Box2) -> Option<Frame> {
        let extent = (b[2] - b[0]).max(b[3] - b[1]);
        (b.iter().all(|c| c.is_finite()) && extent <= MAX_EXTENT).then(|| Frame::centred(b))
    }

    /// Grid point of an XZ point within the walkable bounds grown by the radius: its
    /// coordinates are below [`GRID_BOUND`] (see [`MAX_EXTENT`]); the clamp only guards the
    /// proof (a point outside would be moved, never wrapped).
    pub(crate) fn to_int(self, p: Point2) -> IntPoint {
        let bound = GRID_BOUND as f64;
        let unit = |v: f64| ((v * GRID_SCALE).round().clamp(-bound, bound)) as i32;
        IntPoint::new(unit(p[0] - self.origin[0]), unit(p[1] - self.origin[1]))
    }

    pub(crate) fn to_world(self, q: IntPoint) -> Point2 {
        [self.origin[0] + q.x as f64 / GRID_SCALE, self.origin[1] + q.y as f64 / GRID_SCALE]
    }

    /// A distance in whole grid units, rounded up so that clearance is never below it.
    pub(crate) fn units(metres: f64) -> i32 {
        (metres * GRID_SCALE).ceil() as i32
    }
}

/// The counter-clockwise integer footprint of a walkable triangle, if not degenerate on the grid.
pub(crate) fn walkable_contour(frame: Frame, t: &[[f64; 3]; 3]) -> Option<IntContour> {
    let ring: Vec<IntPoint> = ccw_xz(t).into_iter().map(|q| frame.to_int(q)).collect();
    // Differences below 2^28 (see `GRID_BOUND`): products below 2^56, their difference 2^57.
    let area2 = (ring[1].x as i64 - ring[0].x as i64) * (ring[2].y as i64 - ring[0].y as i64)
        - (ring[1].y as i64 - ring[0].y as i64) * (ring[2].x as i64 - ring[0].x as i64);
    (area2 > 0).then_some(ring)
}

/// A counter-clockwise XZ ring rounded to the grid, without repeated points, if it keeps a
/// positive area there.
pub(crate) fn int_ring(frame: Frame, ring: &[Point2]) -> Option<IntContour> {
    let mut out: IntContour = ring.iter().map(|&q| frame.to_int(q)).collect();
    out.dedup();
    while out.len() > 1 && out.first() == out.last() {
        out.pop();
    }
    (out.len() >= 3 && contour_area2(&out) > 0).then_some(out)
}

/// Twice the signed area of an integer ring, in square grid units.
pub(crate) fn contour_area2(c: &IntContour) -> i128 {
    (0..c.len())
        .map(|i| {
            let (a, b) = (c[i], c[(i + 1) % c.len()]);
            a.x as i128 * b.y as i128 - b.x as i128 * a.y as i128
        })
        .sum()
}

/// The area of overlay output shapes (outer rings counter-clockwise, holes clockwise), m².
pub(crate) fn shapes_area(shapes: &[IntShape]) -> f64 {
    let area2: i128 = shapes.iter().flatten().map(contour_area2).sum();
    area2 as f64 / (2.0 * GRID_SCALE * GRID_SCALE)
}

/// The XZ bounding box of shapes, in world coordinates (an inverted box when empty).
pub(crate) fn shapes_box(frame: Frame, shapes: &[IntShape]) -> Box2 {
    shapes.iter().flatten().flatten().fold(
        [f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY],
        |b, &q| {
            let p = frame.to_world(q);
            [b[0].min(p[0]), b[1].min(p[1]), b[2].max(p[0]), b[3].max(p[1])]
        },
    )
}

/// A polygon boolean with room for `capacity` edges, snapping with the bake's radius growth
/// ([`SNAP_RADIUS_GROWTH`]): every boolean of the bake is made here.
pub(crate) fn boolean(capacity: usize) -> Overlay<i32> {
    boolean_with(capacity, IntOverlayOptions::default())
}

/// [`boolean`] with non-default output options.
pub(crate) fn boolean_with(capacity: usize, options: IntOverlayOptions<u64>) -> Overlay<i32> {
    let solver = Solver { precision: Precision { start: 0, progression: SNAP_RADIUS_GROWTH }, ..Solver::default() };
    Overlay::new_custom(capacity, options, solver)
}

/// `a ∩ b`.
pub(crate) fn intersect(a: &[IntShape], b: &[IntShape]) -> Vec<IntShape> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut ov = boolean(256);
    ov.add_source(a, ShapeType::Subject);
    ov.add_source(b, ShapeType::Clip);
    ov.overlay(OverlayRule::Intersect, FillRule::NonZero)
}

/// `a − b`.
pub(crate) fn subtract(a: &[IntShape], b: &[IntShape]) -> Vec<IntShape> {
    if a.is_empty() || b.is_empty() {
        return a.to_vec();
    }
    let mut ov = boolean(256);
    ov.add_source(a, ShapeType::Subject);
    ov.add_source(b, ShapeType::Clip);
    ov.overlay(OverlayRule::Difference, FillRule::NonZero)
}

/// An axis-aligned box on the integer grid, bounds inclusive: a cheap test that two contours
/// cannot meet, so that a boolean takes only the contours near its subject.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IntBox {
    min: [i32; 2],
    max: [i32; 2],
}

impl IntBox {
    /// The box of nothing (meets no box; merging with it gives the other box).
    pub(crate) const EMPTY: IntBox = IntBox { min: [i32::MAX; 2], max: [i32::MIN; 2] };

    /// The box of a contour's points.
    pub(crate) fn of(c: &[IntPoint]) -> IntBox {
        c.iter().fold(IntBox::EMPTY, |b, p| b.merge(IntBox { min: [p.x, p.y], max: [p.x, p.y] }))
    }

    /// The smallest box holding both.
    pub(crate) fn merge(self, o: IntBox) -> IntBox {
        IntBox {
            min: [self.min[0].min(o.min[0]), self.min[1].min(o.min[1])],
            max: [self.max[0].max(o.max[0]), self.max[1].max(o.max[1])],
        }
    }

    /// Whether the boxes share a point (touching counts).
    pub(crate) fn meets(&self, o: &IntBox) -> bool {
        self.min[0] <= o.max[0] && o.min[0] <= self.max[0] && self.min[1] <= o.max[1] && o.min[1] <= self.max[1]
    }
}

/// The union of `contours` (non-zero fill), as shapes.
pub(crate) fn union(contours: impl Iterator<Item = IntContour>) -> Vec<IntShape> {
    let mut overlay = boolean(1024);
    for c in contours {
        if c.len() >= 3 {
            overlay.add_contour(&c, ShapeType::Subject);
        }
    }
    overlay.overlay(OverlayRule::Subject, FillRule::NonZero)
}

/// Chord angle for radius arcs whose sagitta stays within `tolerance`.
pub(crate) fn arc_options(radius: f64, tolerance: f64) -> ArcOptions {
    let step = if radius > tolerance { 2.0 * (1.0 - tolerance / radius).acos() } else { std::f64::consts::FRAC_PI_4 };
    let max_step = Angle::from_radians(step).unwrap_or(ArcOptions::MAX_STEP);
    ArcOptions { max_step, ..ArcOptions::default() }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The wall quads of one layer of `fixtures/regressions/sheared-sliver-unions-2.glb` (grid
    /// units): walls a fuzzer sheared into kilometre-long, nearly parallel slivers, several of
    /// them meeting at shared end points.
    const SHEARED_WALL_QUADS: [[[i32; 2]; 4]; 17] = [
        [[-33421308, -50522116], [-33421308, 49669329], [-33421316, 49669329], [-33421316, -50522116]],
        [[-33166392, 50141180], [-20795568, 50141180], [-20795568, 50141188], [-33166392, 50141188]],
        [[-19892781, 50141180], [2052, 50141180], [2052, 50141188], [-19892781, 50141188]],
        [[-12936024, 11174742], [-7554146, 27383694], [-7554154, 27383696], [-12936032, 11174744]],
        [[-32957120, -49124088], [-7554146, 27383694], [-7554154, 27383696], [-32957128, -49124086]],
        [[-7281862, 28203747], [-239706, 49413065], [-239714, 49413067], [-7281870, 28203749]],
        [[-7009576, 29023808], [-132937, 49734629], [-132945, 49734631], [-7009584, 29023810]],
        [[-7009576, 29023808], [2053, 50141187], [2045, 50141189], [-7009584, 29023810]],
        [[-7159330, 28572785], [2053, 50141187], [2045, 50141189], [-7159338, 28572787]],
        [[-7521746, 27481274], [-108373, 49808609], [-108381, 49808611], [-7521754, 27481276]],
        [[-33421309, -50522117], [-7554146, 27383694], [-7554154, 27383696], [-33421317, -50522115]],
        [[-19645, 50468817], [27206925, 50522203], [27206925, 50522211], [-19645, 50468825]],
        [[-33421309, -50522117], [-7281860, 28203755], [-7281868, 28203757], [-33421317, -50522115]],
        [[-30593869, -41973269], [-19636, 50468824], [-19644, 50468826], [-30593877, -41973267]],
        [[-32389807, -47415474], [-108373, 49808609], [-108381, 49808611], [-32389815, -47415472]],
        [[-32389807, -47415474], [2053, 50141187], [2045, 50141189], [-32389815, -47415472]],
        [[-33421311, -50522118], [33112070, 50060699], [33112063, 50060704], [-33421318, -50522113]],
    ];

    #[test]
    fn nearly_parallel_sliver_union_ends_in_a_few_snapping_passes() {
        let quads = SHEARED_WALL_QUADS.iter().map(|q| q.iter().map(|p| IntPoint::new(p[0], p[1])).collect());
        let points: usize = union(quads).iter().flatten().map(|c| c.len()).sum();
        // With the squared snapping radius doubling per pass (i_overlay's default) this union
        // re-split into 28,109 points; with [`SNAP_RADIUS_GROWTH`] it makes 656.
        assert!(points <= 1_000, "{points} points");
    }
}
