//! The scan: per walkable floor triangle, what stands in the agent's column over it (blockers,
//! vertical faces), the drop edges along its border, and the parts of it hidden under another
//! layer's surface; wall segments then merge along their lines into thin quads.
//!
//! Input: the classified triangles, the layering, a floor triangle. Output: [`Found`] items,
//! each anchored on the floor triangle it was found over.

use super::is_sliver;
use super::RegionParams;
use crate::budget::{boolean_work, BudgetExceeded, Work};
use crate::classify::HullObstacle;
use crate::grid::{triangle_box, BoxGrid};
use crate::overlay::{boolean, walkable_contour, Frame, IntContour, IntShape};
use crate::tolerance::{
    BASE_TOLERANCE, CLIMB_MARGIN, GRID_STEP, HALF_GRID_STEP, LAYER_TIE_MARGIN, MIN_HIDDEN_AREA, MIN_OVERLAP_AREA,
    VERTICAL_NORMAL_Y,
};
use crate::xz::{
    ccw_edges, ccw_xz, clip, cross, norm, normal, segment_in_convex, segment_in_triangle, sub_interval,
    subtract_intervals, Plane,
};
use i_overlay::core::fill_rule::FillRule;
use i_overlay::core::overlay::ShapeType;
use i_overlay::core::overlay_rule::OverlayRule;
use i_overlay::i_float::int::point::IntPoint;
use meadow::geom::{self, Point2};

/// What the scan finds in XZ, each with the walkable triangle it was found over (its anchor).
#[derive(Default)]
pub(super) struct Found {
    /// Parts of non-walkable triangles (and of walkable ones of other layers) inside the
    /// agent's column over a floor triangle.
    pub(super) column: Vec<(u32, IntContour)>,
    /// Vertical faces in the column over a floor triangle, and drop edges.
    pub(super) walls: Vec<(u32, [Point2; 2])>,
    /// Parts of a floor triangle that a walkable surface of another layer covers within
    /// `max_climb` above it (a ramp lying on a floor): the agent stands on the upper one there.
    pub(super) hidden: Vec<(u32, IntContour)>,
    /// Walkable triangles that are a ceiling (more than `max_climb`, at most `height` above)
    /// over a floor triangle of another layer, with that layer: what stands on them (their
    /// drop edges) concerns that layer too.
    pub(super) ceilings: Vec<(u32, u32)>,
}

/// Per-floor geometry queries against all triangles (walkable ones first, then blocking ones,
/// then tagged obstacles) and the hull obstacles (numbered after the triangles).
pub(super) struct Scan<'a> {
    pub(super) params: &'a RegionParams,
    pub(super) walkable: &'a [crate::classify::WalkableTriangle],
    pub(super) blocking: &'a [[[f64; 3]; 3]],
    pub(super) obstacles: &'a [[[f64; 3]; 3]],
    pub(super) hulls: &'a [HullObstacle],
    /// Per walkable triangle: its layer.
    pub(super) layer_of: &'a [u32],
    pub(super) grid: &'a mut BoxGrid,
    pub(super) frame: Frame,
    pub(super) near: Vec<u32>,
    /// The work budget, charged with the per-floor booleans and what they find.
    pub(super) work: Work,
}

impl Scan<'_> {
    pub(super) fn triangle(&self, index: usize) -> &[[f64; 3]; 3] {
        let (nw, nb) = (self.walkable.len(), self.blocking.len());
        match index {
            i if i < nw => &self.walkable[i].vertices,
            i if i < nw + nb => &self.blocking[i - nw],
            i => &self.obstacles[i - nw - nb],
        }
    }

    /// Adds what stands on walkable triangle `wi`: the column blockers and walls over it
    /// (walkable surfaces of other layers in its column are ceilings, so they block too) and
    /// its drop edges.
    pub(super) fn floor(&mut self, wi: usize, found: &mut Found) -> Result<(), BudgetExceeded> {
        let p = *self.params;
        let w = &self.walkable[wi].vertices;
        let w_lo = w[0][1].min(w[1][1]).min(w[2][1]);
        let floor = Plane::through(w);
        self.grid.query(&triangle_box(w), &mut self.near);
        let near = std::mem::take(&mut self.near);
        let anchor = wi as u32;
        // Footprints of other layers' surfaces lying on `w` within climb (their part is taken
        // out of this layer), and of any surface doing so (what stands on `w` there does not
        // count), with the convex pieces of `w` they cover.
        let mut uppers: Vec<IntContour> = Vec::new();
        let mut covers: Vec<IntContour> = Vec::new();
        let mut hidden_convex: Vec<Vec<Point2>> = Vec::new();
        let mut column: Vec<IntContour> = Vec::new();
        let mut walls: Vec<[Point2; 2]> = Vec::new();
        for &ti in &near {
            let ti = ti as usize;
            if ti == wi {
                continue;
            }
            let triangles = self.walkable.len() + self.blocking.len() + self.obstacles.len();
            if ti >= triangles {
                if let Some(contour) = self.hull_over(&self.hulls[ti - triangles], w, &floor) {
                    column.push(contour);
                }
                continue;
            }
            let is_walkable = ti < self.walkable.len();
            // One layer is a height field: its triangles are within climb of each other, so
            // one of them never blocks another; it can only hold the ground over it.
            let same_layer = is_walkable && self.layer_of[ti] == self.layer_of[wi];
            let t = self.triangle(ti);
            // Tagged obstacles block from the floor up: the agent does not step over them.
            let climb = if ti >= self.walkable.len() + self.blocking.len() { 0.0 } else { p.max_climb };
            let t_hi = t[0][1].max(t[1][1]).max(t[2][1]);
            let (roof, mut band, n) = match reach_over(t, w, is_walkable, p.height) {
                Reach::Apart => continue,
                Reach::Vertical => {
                    if let Some(seg) = vertical_blocker(t, w, &RegionParams { max_climb: climb, ..p }) {
                        walls.push(seg);
                    }
                    continue;
                }
                Reach::Over { roof, band, normal } => (roof, band, normal),
            };
            if is_walkable {
                // Where another layer's surface lies on this one within climb, the upper one
                // holds the ground (on exact ties, the lower layer index does), so layers meet
                // at seams instead of overlapping. Where it lies higher, within the agent's
                // height, it is a ceiling: this floor is cut away under it, not around it, as
                // its drop edges (which concern this layer, see `Found::ceilings`) keep agents
                // away from its borders except where it joins a surface of this layer (a
                // stair's next step).
                let tie = if self.layer_of[ti] < self.layer_of[wi] { 0.0 } else { LAYER_TIE_MARGIN };
                let reach = if same_layer { climb } else { p.height };
                if let Some(lying) = lying_over(t, &band, (&roof, &floor), (tie, reach), climb) {
                    // Cut on the grid from the footprints themselves (below, all at once), so
                    // that the border of the hidden part is the upper triangles' own edges
                    // (the other layer's border there), not rounded intersection points.
                    let upper: IntContour = lying.upper.iter().map(|&q| self.frame.to_int(q)).collect();
                    if !same_layer {
                        uppers.push(upper.clone());
                        if lying.rises {
                            found.ceilings.push((ti as u32, self.layer_of[wi]));
                        }
                    }
                    covers.push(upper);
                    hidden_convex.push(lying.under);
                }
                continue;
            }
            // The back face of a double-sided floor is the floor itself, not a base on it.
            let back_face = t.iter().all(|v| w.contains(v));
            if n[1] < 0.0 && !back_face {
                // The base of a solid standing on this floor (a face looking down, lying on
                // it): the floor goes on inside the solid only in the mesh, so it blocks like
                // the solid does (otherwise a pocket under a tall wedge, walled in by its
                // sides, would stay walkable).
                let mut base = band.clone();
                clip(&mut base, |q| roof.y(q) - floor.y(q) + BASE_TOLERANCE);
                clip(&mut base, |q| BASE_TOLERANCE - (roof.y(q) - floor.y(q)));
                if base.len() >= 3 && geom::signed_area(&base) > MIN_OVERLAP_AREA {
                    column.push(base.iter().map(|&q| self.frame.to_int(q)).collect());
                }
            }
            if t_hi <= w_lo + climb {
                continue;
            }
            clip(&mut band, |q| roof.y(q) - floor.y(q) - climb);
            clip(&mut band, |q| p.height - (roof.y(q) - floor.y(q)));
            let rises = band.iter().any(|&q| roof.y(q) - floor.y(q) > climb + CLIMB_MARGIN);
            if band.len() >= 3 && rises && geom::signed_area(&band) > MIN_OVERLAP_AREA {
                column.push(band.iter().map(|&q| self.frame.to_int(q)).collect());
            }
        }
        self.drop_edges(wi, &near, &mut walls);
        self.near = near;
        let lower = walkable_contour(self.frame, w);
        // This floor's own overlays below must fit in what is left of the budget (their memory
        // is freed after the floor); what it adds to the layers' booleans is charged: its
        // vertices (their crossings are charged per layer).
        let found_here = || column.iter().chain(&uppers).chain(&covers).chain(&lower).map(|c| c.as_slice());
        if boolean_work(found_here(), self.work.left()) > self.work.left() {
            return Err(BudgetExceeded::region_vertices(self.work.limit));
        }
        self.work.add(found_here().map(|c| c.len() as u64).sum::<u64>() + 2 * walls.len() as u64)?;
        let covered_part = |contours: &[IntContour]| -> Vec<IntShape> {
            let Some(lower) = &lower else { return Vec::new() };
            if contours.is_empty() {
                return Vec::new();
            }
            let mut ov = boolean(contours.len() + 1);
            ov.add_contour(lower, ShapeType::Subject);
            for c in contours {
                ov.add_contour(c, ShapeType::Clip);
            }
            ov.overlay(OverlayRule::Intersect, FillRule::NonZero)
        };
        found.hidden.extend(covered_part(&uppers).into_iter().flatten().map(|c| (anchor, c)));
        let hidden = covered_part(&covers);
        if hidden.is_empty() {
            // A blocker thinner than a wall quad is a rounding artefact where faces meet at a
            // point or along an edge (a ramp's corner under its side face): dilated, it would
            // cut a radius-wide notch. It is dropped here as below, whether or not a surface
            // hides part of the floor (which depends on surfaces far along a large triangle, so
            // a tiled bake would keep what the untiled one drops).
            let thick = |c: &IntContour| !is_sliver(std::slice::from_ref(c));
            found.column.extend(column.into_iter().filter(thick).map(|c| (anchor, c)));
            found.walls.extend(walls.into_iter().map(|seg| (anchor, seg)));
            return Ok(());
        }
        // Where another surface holds the ground, what stands on `w` there is that surface's
        // business (a stair's riser is no wall for the step below it, which the floor under
        // the stair would otherwise see).
        if !column.is_empty() {
            let mut overlay = boolean(column.len() + hidden.len());
            for c in &column {
                overlay.add_contour(c, ShapeType::Subject);
            }
            overlay.add_source(&hidden, ShapeType::Clip);
            let visible = overlay.overlay(OverlayRule::Difference, FillRule::NonZero);
            // Slivers left where the blocker and the hiding surface share a border rounded
            // differently to the grid are dropped: dilated, they would cut a radius-wide notch.
            found.column.extend(visible.into_iter().filter(|s| !is_sliver(s)).flatten().map(|c| (anchor, c)));
        }
        for [a, b] in walls {
            let inside: Vec<[f64; 2]> =
                hidden_convex.iter().filter_map(|h| segment_in_convex(a, b, h)).map(|(t0, t1)| [t0, t1]).collect();
            let len = ((b[0] - a[0]).powi(2) + (b[1] - a[1]).powi(2)).sqrt();
            for [s0, s1] in subtract_intervals(vec![[0.0, 1.0]], inside) {
                if (s1 - s0) * len > GRID_STEP {
                    let at = |t: f64| [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
                    found.walls.push((anchor, [at(s0), at(s1)]));
                }
            }
        }
        Ok(())
    }

    /// The part of floor triangle `w` (on plane `floor`) that `hull` blocks: under its outline,
    /// where its height range meets the agent's column from the floor (exclusive, as for a
    /// tagged obstacle's triangles: the agent does not step over it) up to `height`.
    fn hull_over(&self, hull: &HullObstacle, w: &[[f64; 3]; 3], floor: &Plane) -> Option<IntContour> {
        let p = self.params;
        let mut band = hull.outline.clone();
        for (a, b) in ccw_edges(w) {
            clip(&mut band, |q| cross(a, b, q));
        }
        clip(&mut band, |q| hull.y_max - floor.y(q));
        clip(&mut band, |q| floor.y(q) + p.height - hull.y_min);
        // As for a tagged obstacle's triangle: it must rise above the floor somewhere.
        let rises = band.iter().any(|&q| hull.y_max - floor.y(q) > CLIMB_MARGIN);
        (band.len() >= 3 && rises && geom::signed_area(&band) > MIN_OVERLAP_AREA)
            .then(|| band.iter().map(|&q| self.frame.to_int(q)).collect())
    }

    /// Adds the borders of walkable triangle `index` across which the surface drops or rises by
    /// more than `max_climb` (and is not also joined within it); `near` holds the triangles
    /// whose boxes meet its box.
    pub(super) fn drop_edges(&self, index: usize, near: &[u32], walls: &mut Vec<[Point2; 2]>) {
        let climb = self.params.max_climb;
        let w = &self.walkable[index].vertices;
        let orientation = geom::orient2d([w[0][0], w[0][2]], [w[1][0], w[1][2]], [w[2][0], w[2][2]]).signum();
        for k in 0..3 {
            let (a, b) = (w[k], w[(k + 1) % 3]);
            let (a2, b2) = ([a[0], a[2]], [b[0], b[2]]);
            // What lies across the edge is judged half a grid step outside it, so a surface on
            // the same side that shares the edge (a table top over its leg tops) does not count.
            let len = ((b2[0] - a2[0]).powi(2) + (b2[1] - a2[1]).powi(2)).sqrt();
            if len == 0.0 {
                continue;
            }
            let step = HALF_GRID_STEP / len;
            // Outward normal: to the right of a → b for a counter-clockwise footprint.
            let out = [(b2[1] - a2[1]) * step * orientation, -(b2[0] - a2[0]) * step * orientation];
            let (edge_a, edge_b) = (a2, b2);
            let (a2, b2) = ([a2[0] + out[0], a2[1] + out[1]], [b2[0] + out[0], b2[1] + out[1]]);
            let mut joined: Vec<[f64; 2]> = Vec::new();
            let mut dropped: Vec<[f64; 2]> = Vec::new();
            for &oi in near {
                let oi = oi as usize;
                if oi == index || oi >= self.walkable.len() {
                    continue;
                }
                let o = &self.walkable[oi].vertices;
                let Some((t0, t1)) = segment_in_triangle(a2, b2, o) else { continue };
                let plane = Plane::through(o);
                // Height difference across the edge, affine in the edge parameter t.
                let lerp = |t: f64| [a2[0] + (b2[0] - a2[0]) * t, a2[1] + (b2[1] - a2[1]) * t];
                let diff = |t: f64| plane.y(lerp(t)) - (a[1] + (b[1] - a[1]) * t);
                let (d0, d1) = (diff(t0), diff(t1));
                let sub = |lo: f64, hi: f64| sub_interval(t0, t1, d0, d1, lo, hi);
                if let Some(iv) = sub(-climb, climb) {
                    joined.push(iv);
                }
                for iv in [sub(f64::NEG_INFINITY, -climb), sub(climb, f64::INFINITY)].into_iter().flatten() {
                    dropped.push(iv);
                }
            }
            let len = ((b2[0] - a2[0]).powi(2) + (b2[1] - a2[1]).powi(2)).sqrt();
            for [s0, s1] in subtract_intervals(dropped, joined) {
                if (s1 - s0) * len > GRID_STEP {
                    let at =
                        |t: f64| [edge_a[0] + (edge_b[0] - edge_a[0]) * t, edge_a[1] + (edge_b[1] - edge_a[1]) * t];
                    walls.push([at(s0), at(s1)]);
                }
            }
        }
    }
}

/// Where triangle `t` is against floor triangle `w`, before what it is decides what it does.
pub(super) enum Reach {
    /// Entirely below the step height (for a walkable surface: entirely below `w`, as one lying
    /// on `w` within climb hides it), above the head of an agent standing anywhere on `w`,
    /// degenerate, or apart in XZ.
    Apart,
    /// A vertical face (its footprint is a segment).
    Vertical,
    /// Over `w` in XZ: its plane, the part of its footprint over `w` (counter-clockwise) and
    /// its normal.
    Over { roof: Plane, band: Vec<Point2>, normal: [f64; 3] },
}

/// Where triangle `t` (`walkable` or not) is against floor triangle `w` for an agent `height` tall.
pub(super) fn reach_over(t: &[[f64; 3]; 3], w: &[[f64; 3]; 3], walkable: bool, height: f64) -> Reach {
    let w_lo = w[0][1].min(w[1][1]).min(w[2][1]);
    let w_hi = w[0][1].max(w[1][1]).max(w[2][1]);
    let t_lo = t[0][1].min(t[1][1]).min(t[2][1]);
    let t_hi = t[0][1].max(t[1][1]).max(t[2][1]);
    // Cheap rejection first.
    let low = if walkable { t_hi < w_lo } else { t_hi < w_lo - BASE_TOLERANCE };
    if low || t_lo > w_hi + height {
        return Reach::Apart;
    }
    let n = normal(t);
    let len = norm(n);
    if len == 0.0 {
        return Reach::Apart;
    }
    if n[1].abs() < VERTICAL_NORMAL_Y * len {
        return Reach::Vertical;
    }
    let mut band = ccw_xz(t);
    for (a, b) in ccw_edges(w) {
        clip(&mut band, |q| cross(a, b, q));
    }
    if band.len() < 3 {
        return Reach::Apart;
    }
    Reach::Over { roof: Plane::through(t), band, normal: n }
}

/// How a walkable triangle lies over a floor triangle of another layer or its own.
pub(super) struct Lying {
    /// The convex part of the floor triangle it covers.
    pub(super) under: Vec<Point2>,
    /// Its own footprint there.
    pub(super) upper: Vec<Point2>,
    /// Whether it rises more than the climb over the floor somewhere there: a ceiling.
    pub(super) rises: bool,
}

/// How walkable triangle `t`, on plane `roof` and over the floor on plane `floor` within
/// `band` (see [`Reach::Over`]), lies at least `tie` and at most `reach` above the floor;
/// `None` where it covers no more than a sliver.
pub(super) fn lying_over(
    t: &[[f64; 3]; 3],
    band: &[Point2],
    (roof, floor): (&Plane, &Plane),
    (tie, reach): (f64, f64),
    climb: f64,
) -> Option<Lying> {
    let within = |poly: &mut Vec<Point2>| {
        clip(poly, |q| roof.y(q) - floor.y(q) - tie);
        clip(poly, |q| reach - (roof.y(q) - floor.y(q)));
    };
    let mut under = band.to_vec();
    within(&mut under);
    if under.len() < 3 || geom::signed_area(&under) <= MIN_HIDDEN_AREA {
        return None;
    }
    let mut upper = ccw_xz(t);
    within(&mut upper);
    let rises = under.iter().any(|&q| roof.y(q) - floor.y(q) > climb + CLIMB_MARGIN);
    Some(Lying { under, upper, rises })
}

/// Every (walkable triangle, layer) pair the scan of the whole level finds as a ceiling: the
/// triangle lies more than `max_climb` and at most the agent's height over a floor triangle of
/// that other layer somewhere. A tile's scan sees only the floors in its input, and whether a
/// surface's drop edges concern a layer must not depend on that (a long ramp is a ceiling over
/// the floor at its foot, in another tile than its head), so tiles take these.
pub(crate) fn level_ceilings(
    walkable: &[crate::classify::WalkableTriangle],
    layer_of: &[u32],
    p: &RegionParams,
) -> Vec<(u32, u32)> {
    use rayon::prelude::*;
    let boxes: Vec<_> = walkable.iter().map(|w| triangle_box(&w.vertices)).collect();
    let grid = BoxGrid::new(&boxes, crate::tolerance::BOX_GRID_ITEMS_PER_CELL);
    // Floors are independent; the pairs are sorted after, so the thread count does not matter.
    let mut out: Vec<(u32, u32)> = (0..walkable.len())
        .into_par_iter()
        .map_init(Vec::new, |near, wi| {
            let w = &walkable[wi].vertices;
            let floor = Plane::through(w);
            grid.query_shared(&boxes[wi], near);
            let mut found = Vec::new();
            for &ti in near.iter() {
                let ti = ti as usize;
                if ti == wi || layer_of[ti] == layer_of[wi] {
                    continue;
                }
                let t = &walkable[ti].vertices;
                let Reach::Over { roof, band, .. } = reach_over(t, w, true, p.height) else { continue };
                let tie = if layer_of[ti] < layer_of[wi] { 0.0 } else { LAYER_TIE_MARGIN };
                if lying_over(t, &band, (&roof, &floor), (tie, p.height), p.max_climb).is_some_and(|l| l.rises) {
                    found.push((ti as u32, layer_of[wi]));
                }
            }
            found
        })
        .flatten_iter()
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// The XZ segment of vertical triangle `t` that stands in the agent's column over `w`.
pub(super) fn vertical_blocker(t: &[[f64; 3]; 3], w: &[[f64; 3]; 3], p: &RegionParams) -> Option<[Point2; 2]> {
    // The face's footprint is (nearly) a segment: span it by its two farthest corners.
    let xz = |v: [f64; 3]| [v[0], v[2]];
    let pairs = [(0, 1), (1, 2), (2, 0)];
    let d2 = |i: usize, j: usize| (t[i][0] - t[j][0]).powi(2) + (t[i][2] - t[j][2]).powi(2);
    let &(i, j) = pairs.iter().max_by(|x, y| d2(x.0, x.1).total_cmp(&d2(y.0, y.1)))?;
    let (a, b) = (xz(t[i]), xz(t[j]));
    let length = d2(i, j).sqrt();
    if length < GRID_STEP {
        return None;
    }
    let u = [(b[0] - a[0]) / length, (b[1] - a[1]) / length];
    let (t0, t1) = segment_in_triangle(a, b, w)?;
    let (s0, s1) = (t0 * length, t1 * length);
    let floor = Plane::through(w);
    let at = |s: f64| [a[0] + u[0] * s, a[1] + u[1] * s];
    // The face in (s, y), clipped to the part over `w` and inside the column band.
    let mut poly: Vec<[f64; 2]> =
        t.iter().map(|v| [(v[0] - a[0]) * u[0] + (v[2] - a[1]) * u[1], v[1]]).collect::<Vec<_>>();
    if geom::signed_area(&poly) < 0.0 {
        poly.reverse();
    }
    clip(&mut poly, |q| q[0] - s0);
    clip(&mut poly, |q| s1 - q[0]);
    clip(&mut poly, |q| q[1] - floor.y(at(q[0])) - p.max_climb);
    clip(&mut poly, |q| p.height - (q[1] - floor.y(at(q[0]))));
    if poly.is_empty() || !poly.iter().any(|q| q[1] - floor.y(at(q[0])) > p.max_climb + CLIMB_MARGIN) {
        return None;
    }
    let lo = poly.iter().map(|q| q[0]).fold(f64::INFINITY, f64::min);
    let hi = poly.iter().map(|q| q[0]).fold(f64::NEG_INFINITY, f64::max);
    Some([at(lo), at(hi)])
}

/// Merges grid segments that lie on one line and overlap or touch into single segments, so
/// that a wall found piecewise (once per floor triangle under it) is dilated once.
pub(super) fn merge_collinear(segments: impl Iterator<Item = [IntPoint; 2]>) -> Vec<IntContour> {
    pub(super) fn gcd(a: i64, b: i64) -> i64 {
        if b == 0 {
            a.abs()
        } else {
            gcd(b, a % b)
        }
    }
    // Bounds (see `GRID_BOUND`): |ax|, |ay| < 2^27 and |dx|, |dy| < 2^28, so the offset
    // `dy·ax − dx·ay` and the parameters `ax·dx + ay·dy` are below 2^56 in magnitude (i64), and
    // |d|² < 2^57. Mapping a parameter back, `t·dx + c·dy` reaches 2^85: i128.
    // Key: reduced direction (first non-zero component positive) and the line's offset.
    let mut on_lines: Vec<((i64, i64, i64), i64, i64)> = Vec::new();
    for [a, b] in segments {
        let (ax, ay, bx, by) = (a.x as i64, a.y as i64, b.x as i64, b.y as i64);
        let (mut dx, mut dy) = (bx - ax, by - ay);
        if dx == 0 && dy == 0 {
            continue;
        }
        let g = gcd(dx, dy);
        (dx, dy) = (dx / g, dy / g);
        if dx < 0 || (dx == 0 && dy < 0) {
            (dx, dy) = (-dx, -dy);
        }
        let offset = dy * ax - dx * ay;
        let (ta, tb) = (ax * dx + ay * dy, bx * dx + by * dy);
        on_lines.push(((dx, dy, offset), ta.min(tb), ta.max(tb)));
    }
    on_lines.sort_unstable();
    let mut out = Vec::new();
    let mut i = 0;
    while i < on_lines.len() {
        let (dx, dy, c) = on_lines[i].0;
        // The point at parameter t: p = (t·d + c·n) / |d|² with n = (dy, −dx); exact for the
        // grid endpoints that produced t.
        let (dx, dy, c, n2) = (dx as i128, dy as i128, c as i128, (dx * dx + dy * dy) as i128);
        // The quotients are grid coordinates of segment endpoints: below 2^27, so i32.
        let at = |t: i64| {
            let t = t as i128;
            IntPoint::new(((t * dx + c * dy) / n2) as i32, ((t * dy - c * dx) / n2) as i32)
        };
        let (mut lo, mut hi) = (on_lines[i].1, on_lines[i].2);
        let mut j = i + 1;
        while j < on_lines.len() && on_lines[j].0 == on_lines[i].0 {
            if on_lines[j].1 <= hi {
                hi = hi.max(on_lines[j].2);
            } else {
                out.push(vec![at(lo), at(hi)]);
                (lo, hi) = (on_lines[j].1, on_lines[j].2);
            }
            j += 1;
        }
        out.push(vec![at(lo), at(hi)]);
        i = j;
    }
    out
}

/// A counter-clockwise quad around segment `a b`, `half_width` grid units to each side and
/// beyond each end (rounded to the grid).
pub(super) fn thin_quad(a: IntPoint, b: IntPoint, half_width: i64) -> IntContour {
    let (dx, dy) = ((b.x - a.x) as f64, (b.y - a.y) as f64);
    let len = (dx * dx + dy * dy).sqrt().max(1.0);
    let (ux, uy) = (dx / len * half_width as f64, dy / len * half_width as f64);
    let p = |q: IntPoint, along: f64, side: f64| {
        IntPoint::new(
            (q.x as f64 + along * ux - side * uy).round() as i32,
            (q.y as f64 + along * uy + side * ux).round() as i32,
        )
    };
    vec![p(a, -1.0, -1.0), p(b, 1.0, -1.0), p(b, 1.0, 1.0), p(a, -1.0, 1.0)]
}
