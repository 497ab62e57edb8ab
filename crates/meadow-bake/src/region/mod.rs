//! Stage 3, region: [`Classified`] triangles → [`Regions`], the free walkable area of every area
//! type as exact polygons with holes in XZ.
//!
//! ```text
//! free = erode(∪ walkable, radius)          outer borders of the walkable surface are walls
//!      − dilate(∪ column blockers, radius)  non-walkable geometry in the agent's column
//!      − dilate(∪ wall segments, radius)    vertical faces in the column, and drop edges
//! ```
//! computed per layer of the walkable surface ([`crate::layers`]: floors above one another
//! are separate layers, joined at seams where the surface continues within `max_climb`).
//! Erosion sees every walkable surface within the radius, of any layer, so that the free area
//! runs on across a seam; blockers and walls count for the layer of the floor triangle they
//! were found over and for the layers across its seams, but not for layers it lies above or
//! below (the table under a bridge does not cut the bridge). A walkable surface of another
//! layer inside the agent's column is a ceiling and blocks like any other geometry.
//! A column blocker is the part of a triangle that lies more than `max_climb` and at most
//! `height` above a walkable triangle under it. A drop edge is a border of a walkable triangle
//! where the surface across it (in XZ) is more than `max_climb` higher or lower and no surface
//! across it is within `max_climb`. All booleans and offsets run in i_overlay's integer engine
//! on a fixed grid of [`GRID_SCALE`] units per metre around a whole-metre origin, so every
//! output coordinate is an exact binary fraction and the stage is deterministic. Radius arcs
//! are approximated by chords whose sagitta is at most the arc tolerance.
//!
//! Each layer's free area is then split into regions by area type. Area volumes paint first:
//! a volume takes the part of every walkable triangle of the layer whose height lies within
//! the volume's `[y_min, y_max]` (the triangle's footprint cut by the two level lines of its
//! plane, exactly, before rounding to the grid) inside the volume's footprint (the union of
//! its triangles' XZ projections). Where volumes overlap, the one later in scene order wins.
//! What no volume paints goes by the triangles' own area types, higher area indices winning
//! where they overlap; on layers stacked over or under another, every piece is also split by
//! surface plane. Painted and unpainted pieces of one area type and plane are united, so a
//! volume painting the area already there leaves no seam.
//!
//! Layers are independent once the scan has sorted blockers, walls and hidden parts to them:
//! their booleans run in parallel on rayon's current pool, after every layer's inputs have been
//! charged to the budget in layer order. What their booleans and offsets make is charged as they
//! run to one shared count, whose total (and so whether the budget holds) does not depend on the
//! order; their regions and painted areas are gathered in layer order, so the output and any
//! budget error are the same for any thread count.
//!
//! Files: this one sequences the stage ([`build_regions_within`]: scan, unions and offsets per
//! layer, painting, shared vertices); `scan.rs` finds blockers, walls and hidden parts per floor
//! triangle; `paint.rs` paints area volumes; `planes.rs` groups stacked surfaces by plane;
//! `shared.rs` makes touching regions share vertices; `tests.rs` tests the stage. The grid
//! frame and the polygon booleans are in `overlay.rs` (shared with the classify stage), the
//! float XZ geometry in `xz.rs`.

mod paint;
mod planes;
mod scan;
mod shared;
#[cfg(test)]
mod tests;

use crate::budget::{boolean_work, BudgetExceeded, SharedWork, Work};
use crate::classify::{Classified, WalkableTriangle};
use crate::grid::{triangle_box, Box2, BoxGrid};
use crate::layers;
use crate::overlay::{
    arc_options, boolean, boolean_with, union, walkable_contour, Frame, IntBox, IntContour, IntShape,
};
use crate::progress::{Progress, Stage};
use crate::tolerance::{BOX_GRID_ITEMS_PER_CELL, LAYER_REACH_MARGIN, MAX_RADIUS, WALL_HALF_WIDTH_UNITS};
pub use crate::tolerance::{GRID_BOUND, GRID_SCALE, MAX_EXTENT};
use i_overlay::core::fill_rule::FillRule;
use i_overlay::core::overlay::{IntOverlayOptions, ShapeType};
use i_overlay::core::overlay_rule::OverlayRule;
use i_overlay::mesh::int::arc::ArcOptions;
use i_overlay::mesh::int::outline::offset::IntOutlineOffset;
use i_overlay::mesh::int::style::{IntLineJoin, IntOutlineStyle};
use meadow::geom::{self, Point2};
use meadow::BakeSettings;
use paint::{paint_layer, split_painted, VolumePaint};
pub use paint::{volume_warnings, volume_warnings_painted};
use planes::{plane_groups, plane_tolerance};
use rayon::prelude::*;
pub(crate) use scan::level_ceilings;
use scan::{merge_collinear, thin_quad, Found, Scan};
use shared::insert_shared_vertices;
use std::collections::BTreeMap;

/// A simple polygon with holes in XZ: outer ring counter-clockwise, holes clockwise; rings do
/// not repeat their first vertex. Rings may touch at single points but never cross.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PolygonWithHoles {
    /// The outer boundary, counter-clockwise.
    pub outer: Vec<Point2>,
    /// The holes, each clockwise.
    pub holes: Vec<Vec<Point2>>,
}

impl PolygonWithHoles {
    /// Area in square metres (outer minus holes).
    pub fn area(&self) -> f64 {
        geom::signed_area(&self.outer) + self.holes.iter().map(|h| geom::signed_area(h)).sum::<f64>()
    }
}

/// The free area of one area type on one layer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AreaRegion {
    /// Area type index (into the scene's areas).
    pub area: u16,
    /// The layer (see [`crate::layers`]).
    pub layer: u16,
    /// Disjoint polygons with holes.
    pub polygons: Vec<PolygonWithHoles>,
}

/// The output of [`build_regions`]: free walkable area per layer and area type.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Regions {
    /// Non-empty regions, by ascending layer, then area index. Regions of one layer do not
    /// overlap; regions of different layers overlap only where one floor lies above another.
    /// Where regions touch (areas in a layer, layers at a seam) every ring vertex of one lies
    /// on a ring vertex of the other.
    pub areas: Vec<AreaRegion>,
    /// Number of layers the walkable surface was split into.
    pub layers: usize,
    /// Per walkable triangle of the input: its layer.
    pub triangle_layers: Vec<u32>,
    /// Number of column-blocker polygons found.
    pub blocker_count: usize,
    /// Number of wall segments found (vertical faces and drop edges).
    pub wall_count: usize,
    /// Per area volume of the input (in order): the free area it paints, m² in XZ (before the
    /// regions' borders are made to meet; 0 when it paints nothing).
    pub painted: Vec<f64>,
}

/// The settings the region stage needs, in metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RegionParams {
    /// Agent radius.
    pub radius: f64,
    /// Agent height.
    pub height: f64,
    /// Step height.
    pub max_climb: f64,
    /// Largest chord sagitta for radius arcs.
    pub arc_tolerance: f64,
}

impl From<&BakeSettings> for RegionParams {
    fn from(s: &BakeSettings) -> Self {
        RegionParams { radius: s.radius, height: s.height, max_climb: s.max_climb, arc_tolerance: s.arc_tolerance }
    }
}

/// Why the free area could not be computed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RegionError {
    /// There is no walkable triangle at all.
    #[error("the level has no walkable surface (no upward-facing triangle within the slope limit)")]
    NoWalkableSurface,
    /// The level is too large for the exact integer grid.
    #[error(
        "the walkable part of the level spans {extent:.0} m, more than the {MAX_EXTENT:.0} m the exact grid holds"
    )]
    TooLarge {
        /// The level's larger XZ extent in metres.
        extent: f64,
    },
    /// A coordinate is NaN or infinite.
    #[error("a triangle has a non-finite coordinate")]
    NonFinite,
    /// The work budget of the stage ([`meadow::BakeSettings::max_region_vertices`]) is spent.
    #[error(transparent)]
    Budget(#[from] BudgetExceeded),
    /// The walkable surface splits into more layers than the asset can number.
    #[error("the walkable surface splits into {count} layers, more than the 65536 an asset holds")]
    TooManyLayers {
        /// Number of layers found.
        count: usize,
    },
}

/// Computes the free walkable area (see the module docs), with no work budget.
pub fn build_regions(
    classified: &Classified,
    params: &RegionParams,
    progress: &mut dyn Progress,
) -> Result<Regions, RegionError> {
    build_regions_within(classified, params, u64::MAX, progress)
}

/// Computes the free walkable area (see the module docs), failing with
/// [`RegionError::Budget`] as soon as the vertices fed to its polygon booleans and their
/// possible crossings (`budget::boolean_work`) would exceed `budget`: checked per floor triangle
/// while scanning and per layer before the unions, so memory stays bounded.
pub fn build_regions_within(
    classified: &Classified,
    params: &RegionParams,
    budget: u64,
    progress: &mut dyn Progress,
) -> Result<Regions, RegionError> {
    build_regions_layered(classified, None, None, params, budget, progress)
}

/// As [`build_regions_within`], for a tile: with the walkable triangles' layering given (a
/// tile's part of the whole level's, [`layers::Layering::restricted`], so that a tile decides
/// which floor is which as the whole level does) instead of computed from `classified`, and
/// with the surface groups of its triangles given (their groups in the whole level,
/// [`level_plane_groups`]).
pub fn build_regions_layered(
    classified: &Classified,
    layering: Option<layers::Layering>,
    groups: Option<&[u32]>,
    params: &RegionParams,
    budget: u64,
    progress: &mut dyn Progress,
) -> Result<Regions, RegionError> {
    let walkable = &classified.walkable;
    if walkable.is_empty() {
        return Err(RegionError::NoWalkableSurface);
    }
    let all_tris =
        || walkable.iter().map(|w| &w.vertices).chain(classified.blocking.iter()).chain(classified.obstacles.iter());
    let hull_values = classified.hulls.iter().flat_map(|h| h.outline.iter().flatten().chain([&h.y_min, &h.y_max]));
    if all_tris().any(|t| t.iter().flatten().any(|c| !c.is_finite())) || hull_values.clone().any(|c| !c.is_finite()) {
        return Err(RegionError::NonFinite);
    }
    let walk_boxes: Vec<_> = walkable.iter().map(|w| triangle_box(&w.vertices)).collect();
    let bounds =
        walk_boxes.iter().fold([f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY], |a, b| {
            [a[0].min(b[0]), a[1].min(b[1]), a[2].max(b[2]), a[3].max(b[3])]
        });
    let extent = (bounds[2] - bounds[0]).max(bounds[3] - bounds[1]);
    // The radius is checked here too (the settings allow at most 1000 m), so that the bound of
    // `GRID_BOUND` holds for any caller of this public function.
    if extent > MAX_EXTENT || !(0.0..=MAX_RADIUS).contains(&params.radius) {
        return Err(RegionError::TooLarge { extent: extent + 2.0 * params.radius });
    }
    let frame = Frame::centred(bounds);
    progress.begin(Stage::Region, walkable.len() as u64);
    let (layering, groups) = match layering {
        Some(l) if l.layer_of.len() == walkable.len() => (l, groups.filter(|g| g.len() == walkable.len())),
        _ => (layers::assign_layers(walkable, params.max_climb), None),
    };
    if layering.count > u16::MAX as u32 + 1 {
        return Err(RegionError::TooManyLayers { count: layering.count as usize });
    }

    let boxes: Vec<_> = all_tris().map(triangle_box).chain(classified.hulls.iter().map(|h| h.xz_box())).collect();
    let mut grid = BoxGrid::new(&boxes, BOX_GRID_ITEMS_PER_CELL);
    let mut scan = Scan {
        params,
        walkable,
        blocking: &classified.blocking,
        obstacles: &classified.obstacles,
        hulls: &classified.hulls,
        layer_of: &layering.layer_of,
        grid: &mut grid,
        frame,
        near: Vec::new(),
        work: Work { used: 0, limit: budget },
    };
    let mut found = Found::default();
    for i in 0..walkable.len() {
        scan.floor(i, &mut found)?;
        if i % 4096 == 0 {
            progress.advance(Stage::Region, i as u64);
        }
    }
    let mut work = scan.work;
    let Found { column: blockers, walls, hidden, mut ceilings } = found;
    ceilings.extend_from_slice(&layering.ceilings);
    ceilings.sort_unstable();
    ceilings.dedup();
    let blocker_count = blockers.len();
    let wall_count = walls.len();

    // What stands on a floor triangle concerns the layers it does not conflict with that come
    // within the radius of the triangle: its own layer, and the layers across its seams. Every
    // item lies over its anchor triangle, so the layers are found once per anchor.
    let reach = params.radius + LAYER_REACH_MARGIN;
    let mut walk_grid = BoxGrid::new(&walk_boxes, BOX_GRID_ITEMS_PER_CELL);
    let mut near = Vec::new();
    let mut concerned_by_anchor: Vec<Vec<u32>> = vec![Vec::new(); walkable.len()];
    let mut anchors: Vec<u32> = blockers.iter().map(|b| b.0).chain(walls.iter().map(|w| w.0)).collect();
    anchors.sort_unstable();
    anchors.dedup();
    for &anchor in &anchors {
        let b = walk_boxes[anchor as usize];
        walk_grid.query(&[b[0] - reach, b[1] - reach, b[2] + reach, b[3] + reach], &mut near);
        let out = &mut concerned_by_anchor[anchor as usize];
        out.extend(near.iter().map(|&t| layering.layer_of[t as usize]));
        out.push(layering.layer_of[anchor as usize]);
        out.sort_unstable();
        out.dedup();
        let lo = ceilings.partition_point(|c| c.0 < anchor);
        let hi = ceilings.partition_point(|c| c.0 <= anchor);
        let under = &ceilings[lo..hi];
        out.retain(|&l| layering.concerns(anchor as usize, l) || under.binary_search(&(anchor, l)).is_ok());
    }
    let layer_count = layering.count as usize;
    let mut layer_blockers: Vec<Vec<IntContour>> = vec![Vec::new(); layer_count];
    let mut layer_walls: Vec<Vec<[Point2; 2]>> = vec![Vec::new(); layer_count];
    for (anchor, contour) in blockers {
        for &l in &concerned_by_anchor[anchor as usize] {
            layer_blockers[l as usize].push(contour.clone());
        }
    }
    for (anchor, seg) in walls {
        for &l in &concerned_by_anchor[anchor as usize] {
            layer_walls[l as usize].push(seg);
        }
    }
    let mut layer_hidden: Vec<Vec<IntContour>> = vec![Vec::new(); layer_count];
    for (anchor, contour) in hidden {
        layer_hidden[layering.layer_of[anchor as usize] as usize].push(contour);
    }
    let mut layer_tris: Vec<Vec<u32>> = vec![Vec::new(); layer_count];
    // Per walkable triangle: its position in its layer's list.
    let mut position_in_layer: Vec<u32> = vec![0; walkable.len()];
    for (t, &l) in layering.layer_of.iter().enumerate() {
        position_in_layer[t] = layer_tris[l as usize].len() as u32;
        layer_tris[l as usize].push(t as u32);
    }
    let volumes: Vec<VolumePaint> =
        classified.volumes.iter().map(|v| VolumePaint::new(v, frame, bounds, walkable, &mut walk_grid)).collect();
    let mut painted = vec![0.0; volumes.len()];

    // The budget is charged layer by layer in layer order before any layer's booleans run, so
    // that the same input fails with the same error for any thread count.
    let mut inputs: Vec<LayerInput> = Vec::with_capacity(layer_count);
    for ((tris, blockers), hidden) in layer_tris.iter().zip(layer_blockers).zip(layer_hidden) {
        let l = inputs.len();
        // The layer's booleans take its floor triangles, blockers and wall quads (4 corners).
        let floor: Vec<IntContour> =
            tris.iter().filter_map(|&t| walkable_contour(frame, &walkable[t as usize].vertices)).collect();
        let contours = floor.iter().chain(&blockers).chain(&hidden);
        work.add(boolean_work(contours.map(|c| c.as_slice()), work.left()))?;
        // Walls join as thin quads (see below); long walls crossing at shallow angles are where
        // the union's work grows fastest, so their possible crossings count too.
        let wall_quads: Vec<IntContour> =
            merge_collinear(layer_walls[l].iter().map(|s| [frame.to_int(s[0]), frame.to_int(s[1])]))
                .into_iter()
                .map(|seg| thin_quad(seg[0], seg[1], WALL_HALF_WIDTH_UNITS))
                .collect();
        work.add(boolean_work(wall_quads.iter().map(|c| c.as_slice()), work.left()))?;
        inputs.push(LayerInput { floor, blockers, hidden, wall_quads });
    }
    drop(layer_walls);

    // What each boolean and offset makes is charged too: nearly parallel slivers can make a
    // union far larger than its inputs and their crossings suggest, and the offsets after it
    // cost as much again. Layers charge one shared count as they run.
    let made = SharedWork::new(work);
    let shared = LayerShared {
        made: &made,
        walkable,
        walk_boxes: &walk_boxes,
        walk_grid: &walk_grid,
        layering: &layering,
        groups,
        position_in_layer: &position_in_layer,
        volumes: &volumes,
        frame,
        reach,
        radius_units: Frame::units(params.radius),
        arc: arc_options(params.radius, params.arc_tolerance),
        plane_tolerance: plane_tolerance(params.max_climb),
    };
    // Layers are independent: each only reads the shared data. Rayon's indexed collect keeps
    // layer order, and the painted areas are added in layer order below, so the result does
    // not depend on the thread count.
    let outputs: Vec<LayerOutput> = inputs
        .into_par_iter()
        .zip(layer_tris.par_iter())
        .enumerate()
        .map(|(l, (input, tris))| shared.free_regions(l as u16, tris, input))
        .collect::<Result<_, _>>()?;
    let mut per_region: Vec<(u16, u16, Vec<IntShape>)> = Vec::new();
    for out in outputs {
        per_region.extend(out.regions);
        for (v, area) in out.painted {
            painted[v] += area;
        }
    }
    per_region.retain(|(_, _, shapes)| !shapes.is_empty());
    // Regions of different areas in a layer, and layers joined at seams, share whole edges.
    if per_region.len() > 1 {
        insert_shared_vertices(&mut per_region, &layering.seams);
    }
    if per_region.len() > 1 {
        // Snapping can close a free strip narrower than a grid unit, leaving rings that share
        // an edge: resolve them with one union that keeps every (shared) vertex.
        for (_, _, shapes) in &mut per_region {
            let mut ov = boolean_with(256, IntOverlayOptions::keep_all_points());
            ov.add_source(shapes, ShapeType::Subject);
            *shapes = ov.overlay(OverlayRule::Subject, FillRule::NonZero);
        }
        per_region.retain(|(_, _, shapes)| !shapes.is_empty());
    }

    let areas = per_region
        .into_iter()
        .map(|(area, layer, shapes)| AreaRegion {
            area,
            layer,
            polygons: shapes.iter().map(|s| to_polygon(frame, s)).collect(),
        })
        .collect();
    progress.finish(Stage::Region);
    Ok(Regions {
        areas,
        layers: layering.count as usize,
        blocker_count,
        wall_count,
        triangle_layers: layering.layer_of,
        painted,
    })
}

/// One layer's boolean inputs on the grid, gathered (and charged to the budget) before the
/// layers run.
struct LayerInput {
    /// Its floor triangles.
    floor: Vec<IntContour>,
    /// Column blockers that concern it.
    blockers: Vec<IntContour>,
    /// Parts of its floor that other layers cover within climb above it.
    hidden: Vec<IntContour>,
    /// Its walls as thin quads.
    wall_quads: Vec<IntContour>,
}

/// What one layer contributes: its regions `(area, layer, shapes)` in order, and the free area
/// each volume painted on it, in painting order.
struct LayerOutput {
    regions: Vec<(u16, u16, Vec<IntShape>)>,
    painted: Vec<(usize, f64)>,
}

/// What every layer reads.
struct LayerShared<'a> {
    /// The region budget's count, charged with what the layers' booleans make.
    made: &'a SharedWork,
    walkable: &'a [WalkableTriangle],
    walk_boxes: &'a [Box2],
    walk_grid: &'a BoxGrid,
    layering: &'a layers::Layering,
    /// Per walkable triangle, its surface group, when given by the caller.
    groups: Option<&'a [u32]>,
    position_in_layer: &'a [u32],
    volumes: &'a [VolumePaint],
    frame: Frame,
    /// How far beyond its floor what concerns a layer reaches (radius plus margin).
    reach: f64,
    radius_units: i32,
    arc: ArcOptions,
    plane_tolerance: f64,
}

impl LayerShared<'_> {
    /// Offsets `shapes` outwards by `by` grid units (round joins), or returns them when `by <= 0`.
    fn dilate(&self, shapes: Vec<IntShape>, by: i32) -> Vec<IntShape> {
        if by > 0 {
            shapes.outline(&IntOutlineStyle::new(by).line_join(IntLineJoin::Round(self.arc))).unwrap_or_default()
        } else {
            shapes
        }
    }

    /// The free area of layer `l` (walkable triangles `tris`), split by area type and plane.
    fn free_regions(&self, l: u16, tris: &[u32], input: LayerInput) -> Result<LayerOutput, BudgetExceeded> {
        let LayerInput { floor, blockers, hidden, wall_quads } = input;
        let mut out = LayerOutput { regions: Vec::new(), painted: Vec::new() };
        // The four big booleans of a layer (its footprint, the surface round it eroded, the
        // dilated blockers, the dilated walls) are independent: they run in two parallel pairs,
        // each the same computation as on one thread.
        let (footprint, around_eroded) =
            rayon::join(|| self.charged(footprint_of(floor, &hidden)), || self.eroded_around(tris));
        let (footprint, around_eroded) = (footprint?, around_eroded?);
        if footprint.is_empty() {
            return Ok(out);
        }
        let eroded = match around_eroded {
            Some(around) => {
                let mut ov = boolean(1024);
                ov.add_source(&around, ShapeType::Subject);
                ov.add_source(&footprint, ShapeType::Clip);
                self.charged(ov.overlay(OverlayRule::Intersect, FillRule::NonZero))?
            }
            None => footprint,
        };
        if eroded.is_empty() {
            return Ok(out);
        }
        // Walls join the column blockers as thin quads, so that one union and one offset dilate
        // everything: far cheaper than unioning thousands of overlapping capsules, and thick
        // walls (two faces a few centimetres apart) merge before they are offset.
        // The quads already reach their half-width beyond the wall line: offset them by the
        // rest, so walls keep exactly the radius (a point agent keeps the half-width).
        let (dilated_blockers, dilated_walls) = rayon::join(
            || self.charged(self.dilate(self.charged(union(blockers.into_iter()))?, self.radius_units)),
            || {
                let walls = self.charged(union(wall_quads.into_iter()))?;
                self.charged(self.dilate(walls, self.radius_units - WALL_HALF_WIDTH_UNITS as i32))
            },
        );
        let (dilated_blockers, dilated_walls) = (dilated_blockers?, dilated_walls?);
        let mut cut = boolean(1024);
        cut.add_source(&eroded, ShapeType::Subject);
        cut.add_source(&dilated_blockers, ShapeType::Clip);
        cut.add_source(&dilated_walls, ShapeType::Clip);
        let free = self.charged(cut.overlay(OverlayRule::Difference, FillRule::NonZero))?;
        if free.is_empty() {
            return Ok(out);
        }
        self.split(l, tris, free, &mut out);
        Ok(out)
    }

    /// `shapes`, once their vertices are charged to the region budget.
    fn charged(&self, shapes: Vec<IntShape>) -> Result<Vec<IntShape>, BudgetExceeded> {
        self.made.add(shapes.iter().flatten().map(|c| c.len() as u64).sum())?;
        Ok(shapes)
    }

    /// Every walkable surface within reach of the layer's triangles `tris`, of any layer,
    /// eroded by the radius, or `None` for a point agent. Erosion sees other layers: across a
    /// seam the floor goes on, and where it ends or drops the drop edges are walls anyway.
    fn eroded_around(&self, tris: &[u32]) -> Result<Option<Vec<IntShape>>, BudgetExceeded> {
        if self.radius_units <= 0 {
            return Ok(None);
        }
        let (walkable, frame, reach) = (self.walkable, self.frame, self.reach);
        let b = tris
            .iter()
            .map(|&t| self.walk_boxes[t as usize])
            .fold([f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY], |a, b| {
                [a[0].min(b[0]), a[1].min(b[1]), a[2].max(b[2]), a[3].max(b[3])]
            });
        let mut near = Vec::new();
        self.walk_grid.query_shared(&[b[0] - reach, b[1] - reach, b[2] + reach, b[3] + reach], &mut near);
        let around =
            self.charged(union(near.iter().filter_map(|&t| walkable_contour(frame, &walkable[t as usize].vertices))))?;
        let eroded = around
            .outline(&IntOutlineStyle::new(-self.radius_units).line_join(IntLineJoin::Round(self.arc)))
            .unwrap_or_default();
        self.charged(eroded).map(Some)
    }

    /// Splits layer `l`'s free area by area type and, where stacked, by plane, into `out`.
    fn split(&self, l: u16, tris: &[u32], free: Vec<IntShape>, out: &mut LayerOutput) {
        let (walkable, frame, layering) = (self.walkable, self.frame, self.layering);
        // Split by area type (lower area indices give way to higher ones where they overlap)
        // and, on a layer stacked over or under another, by surface plane (a region spanning a
        // crease, such as a ramp's top edge, would give its polygons wrong heights, and a
        // point could be located on the wrong floor).
        // Only triangles stacked over or under another layer need it: elsewhere a height off
        // by a crease cannot put a point on the wrong floor, and terrain would split into many
        // small pieces.
        let groups = match self.groups {
            Some(g) => tris.iter().map(|&t| g[t as usize]).collect(),
            None => layer_groups(walkable, tris, layering, self.plane_tolerance),
        };
        let mut keys: Vec<(u16, u32)> =
            tris.iter().zip(&groups).map(|(&t, g)| (walkable[t as usize].area, *g)).collect();
        keys.sort_unstable();
        keys.dedup();
        let paints =
            paint_layer(self.volumes, l as u32, &layering.layer_of, self.position_in_layer, &groups, walkable, frame);
        if !paints.is_empty() {
            let key_union = |a: u16, g: u32| {
                union(
                    tris.iter()
                        .zip(&groups)
                        .filter(|&(&t, &gr)| walkable[t as usize].area == a && gr == g)
                        .filter_map(|(&t, _)| walkable_contour(frame, &walkable[t as usize].vertices)),
                )
            };
            let split = split_painted(&free, &paints, self.volumes, &keys, key_union, &mut out.painted);
            out.regions.extend(split.into_iter().map(|(a, shapes)| (a, l, shapes)));
            return;
        }
        if keys.len() == 1 {
            out.regions.push((keys[0].0, l, free));
            return;
        }
        // Priority: higher area first, then lower group (groups are numbered from the highest
        // surface down).
        keys.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        // A layer under thousands of crates has thousands of keys: gather each key's triangles
        // in one pass (in layer order), and give each boolean only the contours whose boxes meet
        // the key's; a contour apart from the key's union cannot change the result, so the
        // output is the same as with every contour, without work quadratic in the keys.
        let mut key_tris: BTreeMap<(u16, u32), Vec<u32>> = BTreeMap::new();
        for (&t, &g) in tris.iter().zip(&groups) {
            key_tris.entry((walkable[t as usize].area, g)).or_default().push(t);
        }
        let free_boxes: Vec<Vec<IntBox>> =
            free.iter().map(|shape| shape.iter().map(|c| IntBox::of(c)).collect()).collect();
        let mut above: Vec<(IntBox, IntContour)> = Vec::new();
        for &(a, g) in &keys {
            let key_union = union(
                key_tris[&(a, g)].iter().filter_map(|&t| walkable_contour(frame, &walkable[t as usize].vertices)),
            );
            let key_box = key_union.iter().flatten().map(|c| IntBox::of(c)).fold(IntBox::EMPTY, IntBox::merge);
            let mut ex = boolean(256);
            ex.add_source(&key_union, ShapeType::Subject);
            for (b, c) in &above {
                if b.meets(&key_box) {
                    ex.add_contour(c, ShapeType::Clip);
                }
            }
            let exclusive = ex.overlay(OverlayRule::Difference, FillRule::NonZero);
            let mut clip = boolean(256);
            for (shape, boxes) in free.iter().zip(&free_boxes) {
                // A shape's holes lie inside its outer contour (the first).
                if boxes.first().is_some_and(|b| b.meets(&key_box)) {
                    for (c, b) in shape.iter().zip(boxes) {
                        if b.meets(&key_box) {
                            clip.add_contour(c, ShapeType::Subject);
                        }
                    }
                }
            }
            clip.add_source(&exclusive, ShapeType::Clip);
            out.regions.push((a, l, clip.overlay(OverlayRule::Intersect, FillRule::NonZero)));
            above.extend(key_union.into_iter().flatten().map(|c| (IntBox::of(&c), c)));
        }
    }
}

/// The surface group of each of a layer's walkable triangles `tris` (see `planes.rs`): all 0
/// unless some are stacked over or under another layer.
fn layer_groups(walkable: &[WalkableTriangle], tris: &[u32], layering: &layers::Layering, tolerance: f64) -> Vec<u32> {
    let stacked: Vec<bool> = tris.iter().map(|&t| !layering.conflicts_with[t as usize].is_empty()).collect();
    if stacked.iter().any(|&s| s) {
        plane_groups(walkable, tris, &stacked, tolerance)
    } else {
        vec![0; tris.len()]
    }
}

/// Per walkable triangle of a whole level (layered by `layering`), the surface group the region
/// stage splits its layer by, as [`build_regions`] finds them. Groups grow from seed triangles
/// across the whole layer, so a tile takes them from here (see [`build_regions_layered`]): its
/// own part of a layer could be seeded and split differently.
pub fn level_plane_groups(walkable: &[WalkableTriangle], layering: &layers::Layering, max_climb: f64) -> Vec<u32> {
    let mut layer_tris: Vec<Vec<u32>> = vec![Vec::new(); layering.count as usize];
    for (t, &l) in layering.layer_of.iter().enumerate() {
        layer_tris[l as usize].push(t as u32);
    }
    let mut out = vec![0; walkable.len()];
    for tris in &layer_tris {
        for (&t, g) in tris.iter().zip(layer_groups(walkable, tris, layering, plane_tolerance(max_climb))) {
            out[t as usize] = g;
        }
    }
    out
}

/// A layer's own footprint (the union of its floor triangles), less what other layers cover
/// within climb above it (`hidden`).
fn footprint_of(floor: Vec<IntContour>, hidden: &[IntContour]) -> Vec<IntShape> {
    let own = union(floor.into_iter());
    if hidden.is_empty() {
        return own;
    }
    let mut ov = boolean(256);
    ov.add_source(&own, ShapeType::Subject);
    for c in hidden {
        ov.add_contour(c, ShapeType::Clip);
    }
    ov.overlay(OverlayRule::Difference, FillRule::NonZero)
}

/// Whether a shape is on average (twice its area over its perimeter) thinner than a wall quad's
/// half-width.
fn is_sliver(shape: &[IntContour]) -> bool {
    // |x|, |y| < 2^27 units, so each term is below 2^55 in magnitude; the running sum of up to
    // 2^64 terms is kept in i128 (a partial shoelace sum is not bounded by the area).
    let mut area2 = 0i128;
    let mut perimeter = 0.0f64;
    for c in shape {
        for i in 0..c.len() {
            let (a, b) = (c[i], c[(i + 1) % c.len()]);
            area2 += a.x as i128 * b.y as i128 - b.x as i128 * a.y as i128;
            perimeter += ((b.x as f64 - a.x as f64).powi(2) + (b.y as f64 - a.y as f64).powi(2)).sqrt();
        }
    }
    // A strip of length l and width d has area l·d and perimeter about 2·l.
    (area2.abs() as f64) < WALL_HALF_WIDTH_UNITS as f64 * perimeter
}

/// The polygon with holes, in world coordinates, of an overlay output shape.
fn to_polygon(frame: Frame, shape: &IntShape) -> PolygonWithHoles {
    let ring = |c: &IntContour| c.iter().map(|&q| frame.to_world(q)).collect::<Vec<_>>();
    PolygonWithHoles { outer: ring(&shape[0]), holes: shape[1..].iter().map(ring).collect() }
}
