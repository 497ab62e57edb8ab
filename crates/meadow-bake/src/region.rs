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

use crate::budget::{boolean_work, BudgetExceeded, Work};
use crate::classify::Classified;
use crate::grid::{triangle_box, Box2, BoxGrid};
use crate::layers;
use crate::progress::{Progress, Stage};
use crate::xz::{
    ccw_edges, ccw_xz, clip, cross, norm, normal, segment_in_convex, segment_in_triangle, sub_interval,
    subtract_intervals, Plane,
};
use i_overlay::core::fill_rule::FillRule;
use i_overlay::core::overlay::{IntOverlayOptions, Overlay, ShapeType};
use i_overlay::core::overlay_rule::OverlayRule;
use i_overlay::core::solver::Solver;
use i_overlay::i_float::int::angle::Angle;
use i_overlay::i_float::int::point::IntPoint;
use i_overlay::mesh::int::arc::ArcOptions;
use i_overlay::mesh::int::outline::offset::IntOutlineOffset;
use i_overlay::mesh::int::style::{IntLineJoin, IntOutlineStyle};
use meadow::geom::{self, Point2};
use meadow::BakeSettings;

use crate::tolerance::{
    BASE_TOLERANCE, BOX_GRID_ITEMS_PER_CELL, CLIMB_MARGIN, COPLANAR_TOLERANCE, GRID_STEP, HALF_GRID_STEP,
    LAYER_REACH_MARGIN, LAYER_TIE_MARGIN, MAX_RADIUS, MIN_HIDDEN_AREA, MIN_OVERLAP_AREA, PLANE_TOLERANCE_PER_CLIMB,
    SHARED_VERTEX_REACH_UNITS, SNAP_GRID_ITEMS_PER_CELL, VERTICAL_NORMAL_Y, WALL_HALF_WIDTH_UNITS,
};
pub use crate::tolerance::{GRID_BOUND, GRID_SCALE, MAX_EXTENT};

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

pub(crate) type IntContour = Vec<IntPoint>;
pub(crate) type IntShape = Vec<IntContour>;

/// Maps XZ points to the integer grid around a whole-metre origin and back, exactly.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    origin: Point2,
}

impl Frame {
    /// The frame centred on the XZ box `[min_x, min_z, max_x, max_z]`.
    fn centred(b: Box2) -> Frame {
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
    fn units(metres: f64) -> i32 {
        (metres * GRID_SCALE).ceil() as i32
    }
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
/// possible crossings ([`boolean_work`]) would exceed `budget`: checked per floor triangle
/// while scanning and per layer before the unions, so memory stays bounded.
pub fn build_regions_within(
    classified: &Classified,
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
    if all_tris().any(|t| t.iter().flatten().any(|c| !c.is_finite())) {
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
    let layering = layers::assign_layers(walkable, params.max_climb);
    if layering.count > u16::MAX as u32 + 1 {
        return Err(RegionError::TooManyLayers { count: layering.count as usize });
    }

    let boxes: Vec<_> = all_tris().map(triangle_box).collect();
    let mut grid = BoxGrid::new(&boxes, BOX_GRID_ITEMS_PER_CELL);
    let mut scan = Scan {
        params,
        walkable,
        blocking: &classified.blocking,
        obstacles: &classified.obstacles,
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

    let arc = arc_options(params.radius, params.arc_tolerance);
    let radius_units = Frame::units(params.radius);
    let dilate = |shapes: Vec<IntShape>, by: i32| {
        if by > 0 {
            shapes.outline(&IntOutlineStyle::new(by).line_join(IntLineJoin::Round(arc))).unwrap_or_default()
        } else {
            shapes
        }
    };
    let mut per_region: Vec<(u16, u16, Vec<IntShape>)> = Vec::new();
    for (l, tris) in layer_tris.iter().enumerate() {
        // The layer's booleans take its floor triangles, blockers and wall quads (4 corners).
        let floor_contours: Vec<IntContour> =
            tris.iter().filter_map(|&t| walkable_contour(frame, &walkable[t as usize].vertices)).collect();
        let inputs = floor_contours.iter().chain(&layer_blockers[l]).chain(&layer_hidden[l]);
        work.add(boolean_work(inputs.map(|c| c.as_slice()), work.left()))?;
        work.add(4 * layer_walls[l].len() as u64)?;
        // The layer's own footprint, less what other layers cover within climb above it.
        let own = union(floor_contours.into_iter());
        let footprint = if layer_hidden[l].is_empty() {
            own
        } else {
            let mut ov = Overlay::new(256);
            ov.add_source(&own, ShapeType::Subject);
            for c in &layer_hidden[l] {
                ov.add_contour(c, ShapeType::Clip);
            }
            ov.overlay(OverlayRule::Difference, FillRule::NonZero)
        };
        if footprint.is_empty() {
            continue;
        }
        // Erosion sees every walkable surface within the radius, of any layer: across a seam
        // the floor goes on, and where it ends or drops the drop edges are walls anyway.
        let eroded = if radius_units > 0 {
            let b = tris
                .iter()
                .map(|&t| walk_boxes[t as usize])
                .fold([f64::INFINITY, f64::INFINITY, f64::NEG_INFINITY, f64::NEG_INFINITY], |a, b| {
                    [a[0].min(b[0]), a[1].min(b[1]), a[2].max(b[2]), a[3].max(b[3])]
                });
            walk_grid.query(&[b[0] - reach, b[1] - reach, b[2] + reach, b[3] + reach], &mut near);
            let around = union(near.iter().filter_map(|&t| walkable_contour(frame, &walkable[t as usize].vertices)));
            let eroded = around
                .outline(&IntOutlineStyle::new(-radius_units).line_join(IntLineJoin::Round(arc)))
                .unwrap_or_default();
            let mut ov = Overlay::new(1024);
            ov.add_source(&eroded, ShapeType::Subject);
            ov.add_source(&footprint, ShapeType::Clip);
            ov.overlay(OverlayRule::Intersect, FillRule::NonZero)
        } else {
            footprint.clone()
        };
        if eroded.is_empty() {
            continue;
        }
        // Walls join the column blockers as thin quads, so that one union and one offset dilate
        // everything: far cheaper than unioning thousands of overlapping capsules, and thick
        // walls (two faces a few centimetres apart) merge before they are offset.
        let wall_quads = merge_collinear(layer_walls[l].iter().map(|s| [frame.to_int(s[0]), frame.to_int(s[1])]))
            .into_iter()
            .map(|seg| thin_quad(seg[0], seg[1], WALL_HALF_WIDTH_UNITS));
        let dilated_blockers = dilate(union(std::mem::take(&mut layer_blockers[l]).into_iter()), radius_units);
        // The quads already reach their half-width beyond the wall line: offset them by the
        // rest, so walls keep exactly the radius (a point agent keeps the half-width).
        let dilated_walls = dilate(union(wall_quads), radius_units - WALL_HALF_WIDTH_UNITS as i32);
        let mut cut = Overlay::new(1024);
        cut.add_source(&eroded, ShapeType::Subject);
        cut.add_source(&dilated_blockers, ShapeType::Clip);
        cut.add_source(&dilated_walls, ShapeType::Clip);
        let free = cut.overlay(OverlayRule::Difference, FillRule::NonZero);
        if free.is_empty() {
            continue;
        }

        // Split by area type (lower area indices give way to higher ones where they overlap)
        // and, on a layer stacked over or under another, by surface plane (a region spanning a
        // crease, such as a ramp's top edge, would give its polygons wrong heights, and a
        // point could be located on the wrong floor).
        // Only triangles stacked over or under another layer need it: elsewhere a height off
        // by a crease cannot put a point on the wrong floor, and terrain would split into many
        // small pieces.
        let stacked: Vec<bool> = tris.iter().map(|&t| !layering.conflicts_with[t as usize].is_empty()).collect();
        let groups = if stacked.iter().any(|&s| s) {
            plane_groups(walkable, tris, &stacked, plane_tolerance(params.max_climb))
        } else {
            vec![0; tris.len()]
        };
        let mut keys: Vec<(u16, u32)> =
            tris.iter().zip(&groups).map(|(&t, g)| (walkable[t as usize].area, *g)).collect();
        keys.sort_unstable();
        keys.dedup();
        let paints = paint_layer(&volumes, l as u32, &layering.layer_of, &position_in_layer, &groups, walkable, frame);
        if !paints.is_empty() {
            let key_union = |a: u16, g: u32| {
                union(
                    tris.iter()
                        .zip(&groups)
                        .filter(|&(&t, &gr)| walkable[t as usize].area == a && gr == g)
                        .filter_map(|(&t, _)| walkable_contour(frame, &walkable[t as usize].vertices)),
                )
            };
            let split = split_painted(&free, &paints, &volumes, &keys, key_union, &mut painted);
            per_region.extend(split.into_iter().map(|(a, shapes)| (a, l as u16, shapes)));
            continue;
        }
        if keys.len() == 1 {
            per_region.push((keys[0].0, l as u16, free));
            continue;
        }
        // Priority: higher area first, then lower group (groups are numbered from the highest
        // surface down).
        keys.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let mut above: Vec<IntShape> = Vec::new();
        for &(a, g) in &keys {
            let key_union = union(
                tris.iter()
                    .zip(&groups)
                    .filter(|&(&t, &gr)| walkable[t as usize].area == a && gr == g)
                    .filter_map(|(&t, _)| walkable_contour(frame, &walkable[t as usize].vertices)),
            );
            let mut ex = Overlay::new(256);
            ex.add_source(&key_union, ShapeType::Subject);
            ex.add_source(&above, ShapeType::Clip);
            let exclusive = ex.overlay(OverlayRule::Difference, FillRule::NonZero);
            let mut clip = Overlay::new(256);
            clip.add_source(&free, ShapeType::Subject);
            clip.add_source(&exclusive, ShapeType::Clip);
            per_region.push((a, l as u16, clip.overlay(OverlayRule::Intersect, FillRule::NonZero)));
            above.extend(key_union);
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
            let mut ov = Overlay::new_custom(256, IntOverlayOptions::keep_all_points(), Solver::default());
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

/// An area volume prepared for painting: its footprint on the grid and the walkable triangles
/// it may reach.
struct VolumePaint {
    /// The area type it paints.
    area: u16,
    /// Its height range `[y_min, y_max]`.
    y: [f64; 2],
    /// The union of its triangles' XZ footprints (clipped to the walkable bounds).
    footprint: Vec<IntShape>,
    /// Walkable triangles whose boxes meet the footprint's box and whose heights meet the
    /// range, ascending.
    candidates: Vec<u32>,
}

impl VolumePaint {
    fn new(
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
fn paint_layer(
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
/// `painted[v]` grows by the free area volume `v` takes.
fn split_painted(
    free: &[IntShape],
    paints: &[(usize, u32, Vec<IntShape>)],
    volumes: &[VolumePaint],
    keys: &[(u16, u32)],
    key_union: impl Fn(u16, u32) -> Vec<IntShape>,
    painted: &mut [f64],
) -> Vec<(u16, Vec<IntShape>)> {
    let mut claimed: Vec<IntShape> = Vec::new();
    let mut pieces: Vec<(u16, u32, Vec<IntShape>)> = Vec::new();
    for (v, g, shape) in paints.iter().rev() {
        let piece = intersect(free, &subtract(shape, &claimed));
        painted[*v] += shapes_area(&piece);
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
fn slab_part(t: &[[f64; 3]; 3], lo: f64, hi: f64) -> Vec<Point2> {
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

/// What the scan finds in XZ, each with the walkable triangle it was found over (its anchor).
#[derive(Default)]
struct Found {
    /// Parts of non-walkable triangles (and of walkable ones of other layers) inside the
    /// agent's column over a floor triangle.
    column: Vec<(u32, IntContour)>,
    /// Vertical faces in the column over a floor triangle, and drop edges.
    walls: Vec<(u32, [Point2; 2])>,
    /// Parts of a floor triangle that a walkable surface of another layer covers within
    /// `max_climb` above it (a ramp lying on a floor): the agent stands on the upper one there.
    hidden: Vec<(u32, IntContour)>,
    /// Walkable triangles that are a ceiling (more than `max_climb`, at most `height` above)
    /// over a floor triangle of another layer, with that layer: what stands on them (their
    /// drop edges) concerns that layer too.
    ceilings: Vec<(u32, u32)>,
}

/// Per-floor geometry queries against all triangles (walkable ones first, then blocking ones,
/// then tagged obstacles).
struct Scan<'a> {
    params: &'a RegionParams,
    walkable: &'a [crate::classify::WalkableTriangle],
    blocking: &'a [[[f64; 3]; 3]],
    obstacles: &'a [[[f64; 3]; 3]],
    /// Per walkable triangle: its layer.
    layer_of: &'a [u32],
    grid: &'a mut BoxGrid,
    frame: Frame,
    near: Vec<u32>,
    /// The work budget, charged with the per-floor booleans and what they find.
    work: Work,
}

impl Scan<'_> {
    fn triangle(&self, index: usize) -> &[[f64; 3]; 3] {
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
    fn floor(&mut self, wi: usize, found: &mut Found) -> Result<(), BudgetExceeded> {
        let p = *self.params;
        let w = &self.walkable[wi].vertices;
        let w_lo = w[0][1].min(w[1][1]).min(w[2][1]);
        let w_hi = w[0][1].max(w[1][1]).max(w[2][1]);
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
            let is_walkable = ti < self.walkable.len();
            // One layer is a height field: its triangles are within climb of each other, so
            // one of them never blocks another; it can only hold the ground over it.
            let same_layer = is_walkable && self.layer_of[ti] == self.layer_of[wi];
            let t = self.triangle(ti);
            // Tagged obstacles block from the floor up: the agent does not step over them.
            let climb = if ti >= self.walkable.len() + self.blocking.len() { 0.0 } else { p.max_climb };
            let t_lo = t[0][1].min(t[1][1]).min(t[2][1]);
            let t_hi = t[0][1].max(t[1][1]).max(t[2][1]);
            // Cheap rejection: the triangle is entirely below the step height (for a walkable
            // surface of another layer: entirely below `w`, as one lying on `w` within climb
            // hides it) or entirely above the head of an agent standing anywhere on `w`.
            let low = if is_walkable { t_hi < w_lo } else { t_hi < w_lo - BASE_TOLERANCE };
            if low || t_lo > w_hi + p.height {
                continue;
            }
            let n = normal(t);
            let len = norm(n);
            if len == 0.0 {
                continue;
            }
            if n[1].abs() < VERTICAL_NORMAL_Y * len {
                if let Some(seg) = vertical_blocker(t, w, &RegionParams { max_climb: climb, ..p }) {
                    walls.push(seg);
                }
                continue;
            }
            let roof = Plane::through(t);
            let mut band = ccw_xz(t);
            for (a, b) in ccw_edges(w) {
                clip(&mut band, |q| cross(a, b, q));
            }
            if band.len() < 3 {
                continue;
            }
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
                let within = |poly: &mut Vec<Point2>| {
                    clip(poly, |q| roof.y(q) - floor.y(q) - tie);
                    clip(poly, |q| reach - (roof.y(q) - floor.y(q)));
                };
                let mut under = band.clone();
                within(&mut under);
                if under.len() >= 3 && geom::signed_area(&under) > MIN_HIDDEN_AREA {
                    // Cut on the grid from the footprints themselves (below, all at once), so
                    // that the border of the hidden part is the upper triangles' own edges
                    // (the other layer's border there), not rounded intersection points.
                    let mut upper = ccw_xz(t);
                    within(&mut upper);
                    let upper: IntContour = upper.iter().map(|&q| self.frame.to_int(q)).collect();
                    if !same_layer {
                        uppers.push(upper.clone());
                        if under.iter().any(|&q| roof.y(q) - floor.y(q) > climb + CLIMB_MARGIN) {
                            found.ceilings.push((ti as u32, self.layer_of[wi]));
                        }
                    }
                    covers.push(upper);
                    hidden_convex.push(under);
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
            let mut ov = Overlay::new(contours.len() + 1);
            ov.add_contour(lower, ShapeType::Subject);
            for c in contours {
                ov.add_contour(c, ShapeType::Clip);
            }
            ov.overlay(OverlayRule::Intersect, FillRule::NonZero)
        };
        found.hidden.extend(covered_part(&uppers).into_iter().flatten().map(|c| (anchor, c)));
        let hidden = covered_part(&covers);
        if hidden.is_empty() {
            found.column.extend(column.into_iter().map(|c| (anchor, c)));
            found.walls.extend(walls.into_iter().map(|seg| (anchor, seg)));
            return Ok(());
        }
        // Where another surface holds the ground, what stands on `w` there is that surface's
        // business (a stair's riser is no wall for the step below it, which the floor under
        // the stair would otherwise see).
        if !column.is_empty() {
            let mut overlay = Overlay::new(column.len() + hidden.len());
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

    /// Adds the borders of walkable triangle `index` across which the surface drops or rises by
    /// more than `max_climb` (and is not also joined within it); `near` holds the triangles
    /// whose boxes meet its box.
    fn drop_edges(&self, index: usize, near: &[u32], walls: &mut Vec<[Point2; 2]>) {
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

/// The XZ segment of vertical triangle `t` that stands in the agent's column over `w`.
fn vertical_blocker(t: &[[f64; 3]; 3], w: &[[f64; 3]; 3], p: &RegionParams) -> Option<[Point2; 2]> {
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
fn merge_collinear(segments: impl Iterator<Item = [IntPoint; 2]>) -> Vec<IntContour> {
    fn gcd(a: i64, b: i64) -> i64 {
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
fn thin_quad(a: IntPoint, b: IntPoint, half_width: i64) -> IntContour {
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
fn contour_area2(c: &IntContour) -> i128 {
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

/// `a ∩ b`.
pub(crate) fn intersect(a: &[IntShape], b: &[IntShape]) -> Vec<IntShape> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut ov = Overlay::new(256);
    ov.add_source(a, ShapeType::Subject);
    ov.add_source(b, ShapeType::Clip);
    ov.overlay(OverlayRule::Intersect, FillRule::NonZero)
}

/// `a − b`.
fn subtract(a: &[IntShape], b: &[IntShape]) -> Vec<IntShape> {
    if a.is_empty() || b.is_empty() {
        return a.to_vec();
    }
    let mut ov = Overlay::new(256);
    ov.add_source(a, ShapeType::Subject);
    ov.add_source(b, ShapeType::Clip);
    ov.overlay(OverlayRule::Difference, FillRule::NonZero)
}

pub(crate) fn union(contours: impl Iterator<Item = IntContour>) -> Vec<IntShape> {
    let mut overlay = Overlay::new(1024);
    for c in contours {
        if c.len() >= 3 {
            overlay.add_contour(&c, ShapeType::Subject);
        }
    }
    overlay.overlay(OverlayRule::Subject, FillRule::NonZero)
}

/// Chord angle for radius arcs whose sagitta stays within `tolerance`.
fn arc_options(radius: f64, tolerance: f64) -> ArcOptions {
    let step = if radius > tolerance { 2.0 * (1.0 - tolerance / radius).acos() } else { std::f64::consts::FRAC_PI_4 };
    let max_step = Angle::from_radians(step).unwrap_or(ArcOptions::MAX_STEP);
    ArcOptions { max_step, ..ArcOptions::default() }
}

/// Where regions share a boundary, makes every ring vertex of one appear on the rings of the
/// others, so the polygons built from them share whole edges (portals). The regions of a layer
/// (per area and surface) and the layers meeting at a seam come from separate overlays, and
/// where a border crosses theirs each rounded the crossing to the grid on its own: so first a
/// vertex within a grid unit of a vertex of an earlier touching region is snapped onto it,
/// then the vertices of other touching regions within a grid unit of an edge are inserted
/// into it (a region's own vertices only when exactly on the edge). Regions touch when they
/// are on one layer or on two layers that meet at a seam.
fn insert_shared_vertices(regions: &mut [(u16, u16, Vec<IntShape>)], seams: &[(u32, u32)]) {
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
fn remove_spikes(ring: &mut IntContour) {
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

/// How far off a seed triangle's plane the corners of the connected walkable triangles grown
/// from it may be and still count as one surface with it (see [`PLANE_TOLERANCE_PER_CLIMB`]).
fn plane_tolerance(max_climb: f64) -> f64 {
    PLANE_TOLERANCE_PER_CLIMB * max_climb
}

/// Groups the `stacked` walkable triangles of `tris` (one layer) into connected near-planar
/// surfaces, grown across shared edges from the lowest-index triangle not yet placed, taking in
/// the unstacked triangles they reach that lie in the seed's plane (within
/// [`COPLANAR_TOLERANCE`]); the other unstacked ones form one more group. Per triangle: its
/// group number, groups numbered from the highest surface down (ties by seed).
fn plane_groups(
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

/// Whether a shape is on average (twice its area over its perimeter) thinner than a wall quad's
/// half-width.
fn is_sliver(shape: &IntShape) -> bool {
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

fn to_polygon(frame: Frame, shape: &IntShape) -> PolygonWithHoles {
    let ring = |c: &IntContour| c.iter().map(|&q| frame.to_world(q)).collect::<Vec<_>>();
    PolygonWithHoles { outer: ring(&shape[0]), holes: shape[1..].iter().map(ring).collect() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::classify::WalkableTriangle;
    use crate::progress::NoProgress;

    fn quad(x0: f64, z0: f64, x1: f64, z1: f64, y: f64) -> [[[f64; 3]; 3]; 2] {
        // Facing up (+Y): counter-clockwise seen from above.
        [[[x0, y, z0], [x0, y, z1], [x1, y, z1]], [[x0, y, z0], [x1, y, z1], [x1, y, z0]]]
    }

    fn floor(x0: f64, z0: f64, x1: f64, z1: f64, y: f64) -> Vec<WalkableTriangle> {
        quad(x0, z0, x1, z1, y).into_iter().map(|v| WalkableTriangle { vertices: v, area: 0 }).collect()
    }

    fn params(radius: f64) -> RegionParams {
        RegionParams { radius, height: 2.0, max_climb: 0.9, arc_tolerance: 0.01 }
    }

    fn total_area(r: &Regions) -> f64 {
        r.areas.iter().flat_map(|a| &a.polygons).map(|p| p.area()).sum()
    }

    #[test]
    fn open_floor_erodes_by_radius() {
        let c = Classified {
            walkable: floor(0.0, 0.0, 20.0, 20.0, 0.0),
            blocking: vec![],
            obstacles: vec![],
            volumes: vec![],
        };
        let r = build_regions(&c, &params(0.5), &mut NoProgress).unwrap();
        assert!((total_area(&r) - 19.0 * 19.0).abs() < 1e-6, "{}", total_area(&r));
        let r0 = build_regions(&c, &params(0.0), &mut NoProgress).unwrap();
        assert!((total_area(&r0) - 400.0).abs() < 1e-9);
    }

    #[test]
    fn low_ceiling_blocks_and_high_one_does_not() {
        // A slab 1.5 m over the middle of the floor (facing down: a ceiling).
        let slab = |y: f64| quad(8.0, 8.0, 12.0, 12.0, y).map(|t| [t[0], t[2], t[1]]).to_vec();
        let floor_only = Classified {
            walkable: floor(0.0, 0.0, 20.0, 20.0, 0.0),
            blocking: slab(1.5),
            obstacles: vec![],
            volumes: vec![],
        };
        let r = build_regions(&floor_only, &params(0.0), &mut NoProgress).unwrap();
        assert!((total_area(&r) - (400.0 - 16.0)).abs() < 1e-6, "{}", total_area(&r));
        let high = Classified {
            walkable: floor(0.0, 0.0, 20.0, 20.0, 0.0),
            blocking: slab(2.5),
            obstacles: vec![],
            volumes: vec![],
        };
        let r = build_regions(&high, &params(0.0), &mut NoProgress).unwrap();
        assert!((total_area(&r) - 400.0).abs() < 1e-6);
        let low = Classified {
            walkable: floor(0.0, 0.0, 20.0, 20.0, 0.0),
            blocking: slab(0.5),
            obstacles: vec![],
            volumes: vec![],
        };
        let r = build_regions(&low, &params(0.0), &mut NoProgress).unwrap();
        assert!((total_area(&r) - 400.0).abs() < 1e-6, "a slab below the step height is stepped over");
    }

    #[test]
    fn raised_platform_edge_is_a_wall_on_both_sides() {
        // Floor 0..10 at y=0 and a floating platform 10..20 at y=1.5, no side faces.
        let mut walkable = floor(0.0, 0.0, 10.0, 10.0, 0.0);
        walkable.extend(floor(10.0, 0.0, 20.0, 10.0, 1.5));
        let c = Classified { walkable, blocking: vec![], obstacles: vec![], volumes: vec![] };
        let r = build_regions(&c, &params(0.5), &mut NoProgress).unwrap();
        let expected = 2.0 * 9.0 * 9.0;
        assert!((total_area(&r) - expected).abs() < 0.05, "{}", total_area(&r));
        assert_eq!(r.layers, 2, "not joined: two layers");
        assert_eq!(r.areas.iter().map(|a| a.polygons.len()).sum::<usize>(), 2);
        // A step within max_climb joins them instead.
        let mut walkable = floor(0.0, 0.0, 10.0, 10.0, 0.0);
        walkable.extend(floor(10.0, 0.0, 20.0, 10.0, 0.5));
        let r = build_regions(
            &Classified { walkable, blocking: vec![], obstacles: vec![], volumes: vec![] },
            &params(0.5),
            &mut NoProgress,
        )
        .unwrap();
        assert_eq!(r.areas[0].polygons.len(), 1);
        assert!((total_area(&r) - 19.0 * 9.0).abs() < 1e-6);
    }

    #[test]
    fn a_floor_partly_under_a_deck_stays_one_region() {
        // A floor of four 10 m tiles (shared corners), with a deck 3 m above part of one tile:
        // the tile under it is stacked, the others are not, and all four lie in one plane.
        let mut walkable = Vec::new();
        for (x, z) in [(0.0, 0.0), (10.0, 0.0), (0.0, 10.0), (10.0, 10.0)] {
            walkable.extend(floor(x, z, x + 10.0, z + 10.0, 0.0));
        }
        walkable.extend(floor(2.0, 2.0, 6.0, 6.0, 3.0));
        let c = Classified { walkable, blocking: vec![], obstacles: vec![], volumes: vec![] };
        let r = build_regions(&c, &params(0.5), &mut NoProgress).unwrap();
        assert_eq!(r.layers, 2);
        let floor_layer = r.triangle_layers[0] as u16;
        let pieces: usize = r.areas.iter().filter(|a| a.layer == floor_layer).map(|a| a.polygons.len()).sum();
        assert_eq!(pieces, 1, "the floor is cut where the deck's shadow ends");
        assert!((total_area(&r) - (19.0 * 19.0 + 3.0 * 3.0)).abs() < 1e-6, "{}", total_area(&r));
        // A ramp next to the deck's tile (not in its plane) still is a surface of its own.
        let mut walkable = c.walkable.clone();
        walkable.extend([
            WalkableTriangle { vertices: [[20.0, 0.0, 0.0], [20.0, 0.0, 10.0], [30.0, 2.0, 10.0]], area: 0 },
            WalkableTriangle { vertices: [[20.0, 0.0, 0.0], [30.0, 2.0, 10.0], [30.0, 2.0, 0.0]], area: 0 },
        ]);
        let with_ramp = Classified { walkable, blocking: vec![], obstacles: vec![], volumes: vec![] };
        let r = build_regions(&with_ramp, &params(0.5), &mut NoProgress).unwrap();
        let pieces: usize = r.areas.iter().filter(|a| a.layer == floor_layer).map(|a| a.polygons.len()).sum();
        assert_eq!(pieces, 2, "floor and ramp");
    }

    #[test]
    fn thin_vertical_wall_cuts_even_a_point_agent() {
        // A zero-thickness wall across the whole floor at x = 10 (two triangles, both sides).
        let wall = vec![
            [[10.0, 0.0, -1.0], [10.0, 3.0, -1.0], [10.0, 3.0, 21.0]],
            [[10.0, 0.0, -1.0], [10.0, 3.0, 21.0], [10.0, 0.0, 21.0]],
        ];
        let c = Classified {
            walkable: floor(0.0, 0.0, 20.0, 20.0, 0.0),
            blocking: wall,
            obstacles: vec![],
            volumes: vec![],
        };
        let r = build_regions(&c, &params(0.0), &mut NoProgress).unwrap();
        assert_eq!(r.areas[0].polygons.len(), 2);
        let r = build_regions(&c, &params(0.6), &mut NoProgress).unwrap();
        assert_eq!(r.areas[0].polygons.len(), 2);
        let expected = 2.0 * (10.0 - 1.2) * 18.8;
        assert!((total_area(&r) - expected).abs() < 0.05, "{}", total_area(&r));
    }

    /// Free area with x ≤ `x_max` (half-plane clipping keeps signed areas exact for any ring).
    fn area_left_of(r: &Regions, x_max: f64) -> f64 {
        let rings = r.areas.iter().flat_map(|a| &a.polygons).flat_map(|p| std::iter::once(&p.outer).chain(&p.holes));
        rings
            .map(|ring| {
                let mut ring = ring.clone();
                clip(&mut ring, |q| x_max - q[0]);
                geom::signed_area(&ring)
            })
            .sum()
    }

    #[test]
    fn upper_floor_is_its_own_layer_and_blocks_only_the_floor_under_it() {
        // Ground 10×10 at y=0; a walkable slab at y=1.5 over x∈[0,5] whose underside (facing
        // down, 1.4 m up) blocks the ground under it but must not cut the slab itself.
        let mut walkable = floor(0.0, 0.0, 10.0, 10.0, 0.0);
        walkable.extend(floor(0.0, 0.0, 5.0, 10.0, 1.5));
        let underside = quad(0.0, 0.0, 5.0, 10.0, 1.4).map(|t| [t[0], t[2], t[1]]).to_vec();
        let c = Classified { walkable, blocking: underside, obstacles: vec![], volumes: vec![] };
        // The slab's edge at x = 5 is a drop edge (the ground is 1.5 m below across it); its
        // other edges lie on the level's outer border, and the ground's borders under the slab
        // are hidden.
        let w = WALL_HALF_WIDTH_UNITS as f64 / GRID_SCALE;
        for radius in [0.0, 0.5] {
            let r = build_regions(&c, &params(radius), &mut NoProgress).unwrap();
            // Outer borders erode by the radius; the drop edge at x = 5 keeps the radius (or the
            // quad's half-width `w` for a point agent) on both sides.
            let wall = if radius > 0.0 { radius } else { w };
            let slab = (5.0 - radius - wall) * (10.0 - 2.0 * radius);
            // The slab is a ceiling over the ground: its drop edge at x = 5 is a wall for the
            // ground too.
            let ground = (5.0 - radius - wall) * (10.0 - 2.0 * radius);
            let left = area_left_of(&r, 5.0);
            assert!(left > 0.0);
            assert!((left - slab).abs() < 1e-3, "radius {radius}: slab {left} vs {slab}");
            assert!((total_area(&r) - slab - ground).abs() < 1e-3, "radius {radius}: {}", total_area(&r));
            assert_eq!(r.layers, 2);
            assert_eq!(r.areas.len(), 2, "one region per layer");
            assert!(r.areas.iter().all(|a| a.polygons.len() == 1));
        }
        // Lifted above the agent's height, the slab is a second floor: the ground runs on
        // under it, uncut by the slab's drop edges.
        let mut walkable = floor(0.0, 0.0, 10.0, 10.0, 0.0);
        walkable.extend(floor(0.0, 0.0, 5.0, 10.0, 3.0));
        let underside = quad(0.0, 0.0, 5.0, 10.0, 2.9).map(|t| [t[0], t[2], t[1]]).to_vec();
        let r = build_regions(
            &Classified { walkable, blocking: underside, obstacles: vec![], volumes: vec![] },
            &params(0.0),
            &mut NoProgress,
        )
        .unwrap();
        let slab = (5.0 - w) * 10.0;
        let layer_area = |l: u16| -> f64 {
            r.areas.iter().filter(|a| a.layer == l).flat_map(|a| &a.polygons).map(|p| p.area()).sum()
        };
        assert_eq!(r.layers, 2);
        assert!((layer_area(0) - 100.0).abs() < 1e-3, "ground {}", layer_area(0));
        assert!((layer_area(1) - slab).abs() < 1e-3, "slab {}", layer_area(1));
    }

    #[test]
    fn spiral_tower_keeps_its_floors() {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/levels/gltf/navcat-tower-big.glb");
        if !path.exists() {
            println!("skipped: {} is absent", path.display());
            return;
        }
        let scene = crate::ingest::ingest_file(&path, &mut NoProgress).unwrap();
        let c = crate::classify::classify(&scene, 45.0, meadow::WalkableRule::BySlope);
        // Stairs and landings about 1 m wide: an agent of radius 0.6 barely fits even with no
        // blocking geometry at all, so the checks use smaller agents. Blockers under a floor
        // must not cut it: with them the free area stays close to the bare walkable surface
        // (the old flattening lost about 40% of it at radius 0).
        let bare = Classified { walkable: c.walkable.clone(), blocking: vec![], obstacles: vec![], volumes: vec![] };
        for (radius, keep) in [(0.0, 0.85), (0.3, 0.5)] {
            let r = build_regions(&c, &params(radius), &mut NoProgress).unwrap();
            let area = total_area(&r);
            let bare_area = total_area(&build_regions(&bare, &params(radius), &mut NoProgress).unwrap());
            println!(
                "tower radius {radius}: free area {area:.3} m² in {} polygons, {bare_area:.3} m² without blockers",
                r.areas.iter().map(|a| a.polygons.len()).sum::<usize>()
            );
            assert!(area > keep * bare_area && area <= bare_area + 1e-6);
        }
    }

    #[test]
    fn collinear_segments_merge_exactly() {
        let p = |x: i32, y: i32| IntPoint::new(x, y);
        let merged = merge_collinear(
            [[p(0, 0), p(10, 5)], [p(20, 10), p(6, 3)], [p(30, 15), p(40, 20)], [p(0, 1), p(10, 6)]].into_iter(),
        );
        assert_eq!(merged.len(), 3);
        assert!(merged.contains(&vec![p(0, 0), p(20, 10)]));
        assert!(merged.contains(&vec![p(30, 15), p(40, 20)]));
        assert!(merged.contains(&vec![p(0, 1), p(10, 6)]));
    }

    /// An area volume over `[x0, x1] × [y0, y1] × [z0, z1]` (its top and bottom faces: the
    /// region stage only needs the footprint and the height range).
    fn volume(area: u16, x: [f64; 2], y: [f64; 2], z: [f64; 2]) -> crate::ingest::AreaVolume {
        let mut triangles = quad(x[0], z[0], x[1], z[1], y[1]).to_vec();
        triangles.extend(quad(x[0], z[0], x[1], z[1], y[0]).map(|t| [t[0], t[2], t[1]]));
        crate::ingest::AreaVolume { node: 0, area, triangles, y_min: y[0], y_max: y[1] }
    }

    fn area_of(r: &Regions, area: u16) -> f64 {
        r.areas.iter().filter(|a| a.area == area).flat_map(|a| &a.polygons).map(|p| p.area()).sum()
    }

    #[test]
    fn volumes_paint_their_footprint_and_later_ones_win() {
        let floor_with = |volumes| Classified {
            walkable: floor(0.0, 0.0, 20.0, 20.0, 0.0),
            blocking: vec![],
            obstacles: vec![],
            volumes,
        };
        // A strip across the floor, reaching beyond it.
        let c = floor_with(vec![volume(1, [5.0, 10.0], [-1.0, 1.0], [-5.0, 25.0])]);
        let r = build_regions(&c, &params(0.0), &mut NoProgress).unwrap();
        assert!((area_of(&r, 1) - 100.0).abs() < 1e-9 && (area_of(&r, 0) - 300.0).abs() < 1e-9);
        assert_eq!(r.painted, [100.0]);
        // With a radius, the painted part is what is free of the border.
        let r = build_regions(&c, &params(0.5), &mut NoProgress).unwrap();
        assert!((area_of(&r, 1) - 5.0 * 19.0).abs() < 1e-9, "{}", area_of(&r, 1));
        assert!((total_area(&r) - 19.0 * 19.0).abs() < 1e-9);
        // Overlapping volumes: the later one takes the overlap, whatever the area indices.
        for (first, second) in [(1, 2), (2, 1)] {
            let c = floor_with(vec![
                volume(first, [0.0, 10.0], [-1.0, 1.0], [0.0, 20.0]),
                volume(second, [5.0, 15.0], [-1.0, 1.0], [0.0, 20.0]),
            ]);
            let r = build_regions(&c, &params(0.0), &mut NoProgress).unwrap();
            assert!((area_of(&r, second) - 200.0).abs() < 1e-9, "{first} then {second}");
            assert!((area_of(&r, first) - 100.0).abs() < 1e-9, "{first} then {second}");
            assert!((area_of(&r, 0) - 100.0).abs() < 1e-9);
            assert_eq!(r.painted, [100.0, 200.0]);
        }
        // A volume painting the area already there leaves one region, and one above the floor
        // paints nothing.
        let c = floor_with(vec![
            volume(0, [5.0, 10.0], [-1.0, 1.0], [0.0, 20.0]),
            volume(1, [0.0, 20.0], [0.5, 3.0], [0.0, 20.0]),
        ]);
        let r = build_regions(&c, &params(0.0), &mut NoProgress).unwrap();
        assert_eq!(r.areas.len(), 1);
        assert_eq!(r.areas[0].polygons.len(), 1);
        assert_eq!(r.painted, [100.0, 0.0]);
    }

    #[test]
    fn volumes_paint_only_the_layer_within_their_height_range() {
        // A deck 3 m over a floor (two layers, both stacked: the split by plane runs too), and
        // a volume over both in XZ whose height range holds one of them.
        let mut walkable = floor(0.0, 0.0, 10.0, 10.0, 0.0);
        walkable.extend(floor(2.0, 2.0, 6.0, 6.0, 3.0));
        for (y, painted_layer) in [([2.5, 3.5], 1u16), ([-1.0, 1.0], 0u16)] {
            let c = Classified {
                walkable: walkable.clone(),
                blocking: vec![],
                obstacles: vec![],
                volumes: vec![volume(1, [-1.0, 11.0], y, [-1.0, 11.0])],
            };
            let r = build_regions(&c, &params(0.0), &mut NoProgress).unwrap();
            assert_eq!(r.layers, 2);
            let layer_area = |layer: u16, area: u16| -> f64 {
                r.areas
                    .iter()
                    .filter(|a| a.layer == layer && a.area == area)
                    .flat_map(|a| &a.polygons)
                    .map(|p| p.area())
                    .sum()
            };
            let deck = r.triangle_layers[2] as u16;
            let ground = r.triangle_layers[0] as u16;
            let (painted, dry) = if painted_layer == 1 { (deck, ground) } else { (ground, deck) };
            assert!(layer_area(painted, 1) > 15.0, "{y:?}: {}", layer_area(painted, 1));
            assert_eq!(layer_area(painted, 0), 0.0, "{y:?}");
            assert_eq!(layer_area(dry, 1), 0.0, "{y:?}");
            assert!(layer_area(dry, 0) > 15.0, "{y:?}");
            assert_eq!(r.painted, [layer_area(painted, 1)]);
        }
    }

    #[test]
    fn volumes_paint_only_the_part_of_a_slope_within_their_height_range() {
        // A ramp over [0, 10]² rising 0.3 m per metre along +x (0 to 3 m), in four triangles
        // that meet at its centre, and a volume up to 1.5 m: it paints x ≤ 5.
        let y = |x: f64| 0.3 * x;
        let p = |x: f64, z: f64| [x, y(x), z];
        let centre = p(5.0, 5.0);
        let walkable = [
            [p(0.0, 0.0), p(0.0, 10.0), centre],
            [p(0.0, 10.0), p(10.0, 10.0), centre],
            [p(10.0, 10.0), p(10.0, 0.0), centre],
            [p(10.0, 0.0), p(0.0, 0.0), centre],
        ]
        .map(|t| WalkableTriangle { vertices: t, area: 0 })
        .to_vec();
        assert!(walkable.iter().all(|w| normal(&w.vertices)[1] > 0.0));
        for (top, expected) in [(1.5, 50.0), (0.75, 25.0), (2.1, 70.0)] {
            let c = Classified {
                walkable: walkable.clone(),
                blocking: vec![],
                obstacles: vec![],
                volumes: vec![volume(1, [-1.0, 11.0], [-1.0, top], [-1.0, 11.0])],
            };
            let r = build_regions(&c, &params(0.0), &mut NoProgress).unwrap();
            assert!((area_of(&r, 1) - expected).abs() < 1e-6, "top {top}: {}", area_of(&r, 1));
            assert!((area_of(&r, 0) - (100.0 - expected)).abs() < 1e-6, "top {top}: {}", area_of(&r, 0));
            // Every painted vertex lies within the height range.
            for poly in r.areas.iter().filter(|a| a.area == 1).flat_map(|a| &a.polygons) {
                assert!(poly.outer.iter().all(|q| y(q[0]) <= top + 1e-3), "{:?}", poly.outer);
            }
        }
    }
}
