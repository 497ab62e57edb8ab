//! Planar geometry of carving: obstacle validation, dilation by the agent radius, exact overlap
//! of convex polygons, and convex minus convex by successive half-plane splits.

use super::ObstacleError;
use crate::geom::{self, orient2d, Point2};
use crate::tolerance::DILATION_GROWTH_REL;

/// Checks an obstacle's outline and height range (see [`ObstacleError`] for what is refused).
pub(crate) fn validate(polygon: &[Point2], y: [f64; 2]) -> Result<(), ObstacleError> {
    if polygon.len() < 3 {
        return Err(ObstacleError::TooFewVertices { count: polygon.len() });
    }
    if let Some(vertex) = polygon.iter().position(|p| !p.iter().all(|c| c.is_finite())) {
        return Err(ObstacleError::NonFinite { vertex });
    }
    if let Some(vertex) = polygon.iter().position(|p| !crate::limits::in_range([p[0], 0.0, p[1]])) {
        return Err(ObstacleError::OutOfRange { vertex });
    }
    if !geom::is_convex_ccw(polygon) {
        return Err(ObstacleError::NotConvex);
    }
    let finite = y.iter().all(|h| h.is_finite() && crate::limits::in_range([0.0, *h, 0.0]));
    if !finite || y[0] >= y[1] {
        return Err(ObstacleError::BadHeightRange { y });
    }
    Ok(())
}

/// The obstacle grown by `radius`: a convex counter-clockwise polygon that contains the
/// Minkowski sum of `polygon` and the disc of that radius and lies within `tolerance` of it.
///
/// Each corner's arc (between the normals of its two edges) is replaced by `k` segments of the
/// polygon circumscribed about it: tangent to the arc at `k + 1` evenly spaced angles, its
/// corners at distance `radius / cos(δ/2)` from the obstacle's corner (`δ` the angle step), so
/// it lies outside the arc and at most `radius (1 / cos(δ/2) - 1) <= tolerance` from it. The
/// straight sides are the obstacle's edges pushed out by the radius, exactly the sum's. The
/// corners are pushed out a further [`DILATION_GROWTH_REL`] of the coordinates' magnitude so
/// that rounding never leaves a point of the sum outside (the angle step leaves room for it); the exact hull then drops any corner that rounding
/// left collinear.
pub(crate) fn dilate(polygon: &[Point2], radius: f64, tolerance: f64) -> Vec<Point2> {
    let n = polygon.len();
    let mut points: Vec<Point2> = Vec::new();
    if radius > 0.0 {
        let scale = polygon.iter().fold(radius, |m, p| m.max(p[0].abs()).max(p[1].abs()));
        let growth = DILATION_GROWTH_REL * scale;
        // Largest angle step whose circumscribed corners stay within the tolerance, the growth
        // included.
        let within = (tolerance - growth).max(tolerance * 0.5);
        let step_max = 2.0 * (radius / (radius + within)).acos();
        let normal = |a: Point2, b: Point2| {
            let d = [b[0] - a[0], b[1] - a[1]];
            // The outward normal of a counter-clockwise edge points to its right.
            (-d[0]).atan2(d[1]).rem_euclid(std::f64::consts::TAU)
        };
        for i in 0..n {
            let (p, c, q) = (polygon[(i + n - 1) % n], polygon[i], polygon[(i + 1) % n]);
            let from = normal(p, c);
            let sweep = (normal(c, q) - from).rem_euclid(std::f64::consts::TAU);
            // `step_max > 0` for any positive tolerance; the count is at least one segment.
            let count = ((sweep / step_max).ceil() as usize).max(1);
            let step = sweep / count as f64;
            let reach = radius / (step * 0.5).cos() + growth;
            for j in 0..count {
                let angle = from + step * (j as f64 + 0.5);
                points.push([c[0] + reach * angle.cos(), c[1] + reach * angle.sin()]);
            }
        }
    } else {
        points.extend_from_slice(polygon);
    }
    let mut hull = Vec::with_capacity(points.len());
    geom::convex_hull(&mut points, |p| *p, &mut hull);
    hull
}

/// Axis-aligned XZ bounds `[min_x, min_z, max_x, max_z]` of a ring.
pub(crate) fn bounds(ring: &[Point2]) -> [f64; 4] {
    ring.iter().fold([f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY], |b, p| {
        [b[0].min(p[0]), b[1].min(p[1]), b[2].max(p[0]), b[3].max(p[1])]
    })
}

/// Whether two XZ boxes overlap with positive area.
pub(crate) fn boxes_overlap(a: &[f64; 4], b: &[f64; 4]) -> bool {
    a[0] < b[2] && b[0] < a[2] && a[1] < b[3] && b[1] < a[3]
}

/// Whether the interiors of two convex counter-clockwise polygons overlap (exact): no edge line
/// of either has the whole other polygon on or beyond its outer side. Touching is no overlap.
pub(crate) fn interiors_overlap(a: &[Point2], b: &[Point2]) -> bool {
    let separates = |r: &[Point2], o: &[Point2]| {
        (0..r.len()).any(|k| o.iter().all(|&p| orient2d(r[k], r[(k + 1) % r.len()], p) <= 0.0))
    };
    !(separates(a, b) || separates(b, a))
}

/// Whether `p` lies strictly inside the convex counter-clockwise polygon `ring` (exact).
pub(crate) fn strictly_inside(ring: &[Point2], p: Point2) -> bool {
    (0..ring.len()).all(|k| orient2d(ring[k], ring[(k + 1) % ring.len()], p) > 0.0)
}

/// The point where the line through `o0 → o1` crosses segment `a → b`, given the exact
/// orientations `sa`, `sb` of `a` and `b` against it (of opposite signs): `a + t (b - a)` with
/// `t = sa / (sa - sb)`, clamped to the segment. Also returns `t`.
pub(crate) fn crossing(a: [f64; 3], b: [f64; 3], sa: f64, sb: f64) -> ([f64; 3], f64) {
    let t = (sa / (sa - sb)).clamp(0.0, 1.0);
    let p = [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
    (p, t)
}

/// `piece` minus the convex counter-clockwise polygon `cut`, as convex pieces: the parts of
/// `piece` right of each edge line of `cut` in turn, the rest carried on to the next line and
/// finally dropped (it lies inside `cut`). Classification is exact; cut points are rounded.
/// Pieces that rounding left degenerate (not strictly convex) are dropped. The plain-point
/// version of what the carving (module `pieces`) does with shared vertices, for tests and the proptest.
pub fn convex_minus_convex(piece: &[Point2], cut: &[Point2]) -> Vec<Vec<Point2>> {
    let mut out = Vec::new();
    let mut rest: Vec<Point2> = piece.to_vec();
    for k in 0..cut.len() {
        let (o0, o1) = (cut[k], cut[(k + 1) % cut.len()]);
        let sides: Vec<f64> = rest.iter().map(|&p| orient2d(o0, o1, p)).collect();
        if sides.iter().all(|&s| s >= 0.0) {
            continue;
        }
        if sides.iter().all(|&s| s <= 0.0) {
            out.push(std::mem::take(&mut rest));
            break;
        }
        let mut right = Vec::new();
        let mut left = Vec::new();
        for i in 0..rest.len() {
            let j = (i + 1) % rest.len();
            let (a, b) = (rest[i], rest[j]);
            let (sa, sb) = (sides[i], sides[j]);
            if sa <= 0.0 {
                right.push(a);
            }
            if sa >= 0.0 {
                left.push(a);
            }
            if (sa < 0.0 && sb > 0.0) || (sa > 0.0 && sb < 0.0) {
                let (p, _) = crossing([a[0], 0.0, a[1]], [b[0], 0.0, b[1]], sa, sb);
                right.push([p[0], p[2]]);
                left.push([p[0], p[2]]);
            }
        }
        out.push(right);
        rest = left;
    }
    out.retain(|p| geom::is_convex_ccw(p));
    out
}
