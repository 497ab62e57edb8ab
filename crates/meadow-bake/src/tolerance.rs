//! Every geometric tolerance and grid constant of the bake, in one place.
//!
//! Each constant gives its unit and why it has its value. Constants derived from
//! [`GRID_SCALE`] are written as the same expression the algorithms used before, so that the
//! `f64` values are bit for bit the ones they compute with. (The glTF reader keeps its own
//! input limits next to its code.)

// ---- The exact integer grid of the region stage ----

/// Grid units per metre for the exact polygon work (1/2048 m ≈ 0.5 mm; powers of two keep the
/// conversion to and from `f64` exact).
pub const GRID_SCALE: f64 = 2048.0;

/// One grid unit, in metres: lengths and overlaps no longer than this are rounding noise on the
/// grid, not geometry (an edge this short, a touch or a wall this long, are ignored).
pub const GRID_STEP: f64 = 1.0 / GRID_SCALE;

/// Half a grid unit, in metres: how far an edge is moved outward to probe the surface across
/// it, far enough to leave the edge's own triangle, near enough to stay on its neighbour.
pub const HALF_GRID_STEP: f64 = 0.5 / GRID_SCALE;

/// Largest XZ extent of the walkable surface, in metres: the coordinate contract's
/// [`meadow::limits::MAX_EXTENT`] (2^16 m).
///
/// Integer bound of the region stage, used in every product there: the grid origin is the
/// centre of the walkable bounds rounded down to a whole metre, so a grid coordinate is at most
/// `(MAX_EXTENT / 2 + 1 m + radius (<= 1000 m) + WALL_HALF_WIDTH) * GRID_SCALE`
/// `< (2^15 + 2^10 + 2) * 2^11 < 2^27` units in magnitude ([`GRID_BOUND`]): i32 points, and the
/// difference of two points is below `2^28`.
pub use meadow::limits::MAX_EXTENT;

/// Largest magnitude of a grid coordinate in units (see [`MAX_EXTENT`]): `|x| < 2^27`.
pub const GRID_BOUND: i64 = 1 << 27;

/// Largest agent radius, in metres: the settings' own limit, checked again by the region stage
/// so that [`GRID_BOUND`] holds for any caller of its public functions.
pub const MAX_RADIUS: f64 = 1000.0;

/// Half-width in grid units of the quad that stands for a wall segment: thin enough not to
/// matter (2 mm), thick enough that a point agent does not pass through a zero-thickness wall.
pub const WALL_HALF_WIDTH_UNITS: i64 = 4;

/// Growth of the snapping radius between passes of a polygon boolean, as the exponent of 2 by
/// which the squared radius (in squared grid units) grows per pass: 6, so the radius is 1, 8,
/// 64, 512, ... units in passes 1, 2, 3, 4, ... A pass after the first runs only when rounding
/// the previous pass's crossings to the grid made new ones, and then snaps each new crossing
/// onto an end point within the radius. With i_overlay's own growth (the squared radius doubles
/// per pass), long nearly parallel edges (walls and blockers a fuzzer sheared into kilometre-long
/// slivers) make each pass's rounding cross again: the union of 17 such wall quads made 28,109
/// points (1.4 s), of 19 such blockers 46,381 points (2.3 s); with this growth they make 656
/// and 8,585 points (growth 4: 1,477 and 20,793). What it costs: an end point moves at most 8
/// units (4 mm) in a second pass and 64 units (3 cm) in a third, only where rounding made those
/// passes necessary.
pub const SNAP_RADIUS_GROWTH: usize = 6;

/// Margin beyond the agent radius, in metres, within which a layer counts as reached from a
/// floor triangle: four grid units, a wall quad's half-width ([`WALL_HALF_WIDTH_UNITS`]), so
/// that rounding and wall thickness never hide a layer that the dilation reaches.
pub const LAYER_REACH_MARGIN: f64 = 4.0 / GRID_SCALE;

/// How far (in grid units) a ring vertex may be from a vertex or edge of another region and
/// still be moved onto it when regions are made to share vertices: one unit, the rounding
/// error of two overlays that each rounded the same crossing to the grid.
pub const SHARED_VERTEX_REACH_UNITS: f64 = 1.0;

// ---- Heights and areas in floating point (metres) ----

/// How far below or above a floor the base of a solid may be and still be taken as standing
/// on it, in metres (the floor's own underside, a slab's thickness below, is not).
pub const BASE_TOLERANCE: f64 = 1e-3;

/// A triangle is treated as a vertical face (a segment in XZ) when the vertical component of
/// its unit normal is below this (dimensionless; about 0.006° off vertical).
pub const VERTICAL_NORMAL_Y: f64 = 1e-4;

/// How far off a stacked surface's seed plane the corners of an unstacked triangle next to it
/// may be for the triangle to join it as part of the same floor, in metres (1 mm).
pub const COPLANAR_TOLERANCE: f64 = 1e-3;

/// How far off a seed triangle's plane, as a fraction of `max_climb`, the corners of the
/// connected walkable triangles grown from it may be and still count as one surface with it:
/// half a step, so a staircase stays one ramp-like surface but a deck does not merge with the
/// floor under it.
pub const PLANE_TOLERANCE_PER_CLIMB: f64 = 0.5;

/// Smallest XZ area, in m², of a clipped overlap (of two triangles' footprints, of a solid's
/// base or of a column blocker) that counts: below it the overlap is a rounding residue of
/// clipping along shared edges.
pub const MIN_OVERLAP_AREA: f64 = 1e-9;

/// Smallest XZ area, in m², of the part of a floor hidden under another layer's surface that
/// counts. Smaller than [`MIN_OVERLAP_AREA`] so that thin hidden strips along a seam are still
/// cut away exactly.
pub const MIN_HIDDEN_AREA: f64 = 1e-12;

/// Height margin, in metres, by which a surface must rise above `max_climb` to count as
/// higher than a step (a ceiling, a blocker): heights equal to the climb up to rounding are
/// steps.
pub const CLIMB_MARGIN: f64 = 1e-9;

/// Height, in metres, by which another layer's surface must lie above a floor to hold the
/// ground there when the other layer has the higher index (exact ties go to the lower index).
pub const LAYER_TIE_MARGIN: f64 = 1e-9;

/// Difference, in metres, between the heights at a segment's two ends below which the height
/// difference is taken as constant along it (no division by a near-zero slope).
pub const FLAT_DIFFERENCE: f64 = 1e-12;

/// Extra angle allowed beyond `max_slope`, in degrees, so that slopes modelled at exactly the
/// limit count as walkable (exported floors bevel tiles at exactly 45°; a strict test would
/// scatter them into islands).
pub const SLOPE_TOLERANCE_DEG: f64 = 0.01;

/// Largest height of a polygon's vertex off the plane of its others that a merge may create,
/// in metres: a polygon spanning a crease (a ramp's top edge) would give points on it wrong
/// heights.
pub const FLAT_TOLERANCE: f64 = 0.05;

// ---- Snapping distances ----

/// Pad, in metres, of the walkable triangles' boxes when layers look for neighbours: two grid
/// steps, so triangles that touch only after rounding are still compared.
pub const LAYER_BOX_PAD: f64 = 2.0 / GRID_SCALE;

/// How far from a surface's footprint, in metres, a region vertex may lie and still take that
/// surface's height: two grid steps (region vertices are rounded to the grid, so one on the
/// border of a higher surface may lie just outside it).
pub const SURFACE_HEIGHT_REACH: f64 = 2.0 / GRID_SCALE;

/// Default [`crate::simplify::SimplifyParams::grow`]: two region grid steps (≈ 1 mm), in metres.
pub const GROW_TOLERANCE: f64 = 2.0 / GRID_SCALE;

/// First search radius, in metres, for the nearest triangle of a layer when no surface lies
/// under a vertex: about a centimetre, the size of a rounding gap.
pub const NEAREST_SEARCH_START: f64 = 0.01;

/// Factor by which that search radius grows per round: few rounds to cover a level.
pub const NEAREST_SEARCH_GROWTH: f64 = 8.0;

/// Search radius, in metres, beyond which the nearest-triangle search gives up (height 0): far
/// beyond [`MAX_EXTENT`].
pub const NEAREST_SEARCH_LIMIT: f64 = 1e7;

// ---- Triangulation ----

/// The largest coordinate magnitude the triangulation accepts: beyond it the exact orientation
/// predicate could overflow.
pub const MAX_TRIANGULATE_COORDINATE: f64 = 1e100;

/// How far (in units of the largest coordinate's rounding error) a vertex may lie from another
/// edge and still be taken as touching it, when a polygon is invalid as given.
pub const SNAP_ULPS: f64 = 1024.0;

/// How far, as a fraction of a cell's width, a column of the triangulation's edge grid is
/// widened on each side when a slanted segment's cells are listed, so that rounding at a
/// column border never drops a cell the segment touches.
pub const EDGE_GRID_COLUMN_MARGIN: f64 = 0.01;

// ---- Neighbour grids (`BoxGrid`) ----

/// Average number of items per cell of the box grids used for neighbour queries among
/// triangles and ring vertices: few, so queries stay cheap; not one, so cells stay few.
pub const BOX_GRID_ITEMS_PER_CELL: f64 = 2.0;

/// Items per cell of the box grid of region vertices matched when regions share vertices
/// (points, so cells may hold more of them).
pub const SNAP_GRID_ITEMS_PER_CELL: f64 = 4.0;

/// Smallest extent and cell size of a box grid, in the boxes' units: keeps empty or
/// degenerate inputs from giving zero-sized cells.
pub const BOX_GRID_MIN_CELL: f64 = 1e-3;

/// Most cells along a box grid's longer side before the cell grows with the extent, whatever
/// the item sizes (see also its entry budget).
pub const BOX_GRID_MAX_CELLS_ACROSS: f64 = 2048.0;

/// Most cell-list entries per item on average before a box grid is coarsened (bounds its
/// memory when a few huge boxes lie among many small ones).
pub const BOX_GRID_MAX_ENTRIES_PER_ITEM: u64 = 16;

/// Most cells along each axis of a box grid.
pub const BOX_GRID_MAX_DIM: usize = 4096;

/// Most cells of a box grid.
pub const BOX_GRID_MAX_CELLS: usize = BOX_GRID_MAX_DIM * BOX_GRID_MAX_DIM;

// ---- Tiles ----

/// How far beyond the agent radius around a tile, in metres, the geometry a tile is baked from
/// reaches. The walkable surface a tile takes in ends, by construction, at least this far
/// beyond the radius from the tile; the walls and drop edges that false end makes stay a
/// metre away from the tile once dilated by the radius. A metre also lets the layers of
/// stairs and ramps next to the tile border look as they do in the whole level.
pub const TILE_MARGIN: f64 = 1.0;

/// Side, in metres, of the world-aligned square cells that bound a simplification chain
/// ([`crate::simplify`]): both ends of a ring edge that leaves its cell are kept, so whether a
/// vertex is dropped depends only on the rings within half a metre. Half of [`TILE_MARGIN`],
/// so that a tile, whose free area is the whole level's up to a metre beyond its sides,
/// simplifies every ring near it as an untiled bake does; a power of two, so cell borders are
/// exact grid lines. Costs the vertices kept where rings cross cell lines: open_floor's rings
/// keep 204 of 416 vertices against 160 before, collision-world bakes 1,027 polygons against 953.
pub const SIMPLIFY_CELL: f64 = 0.5;

/// How far along a tile side, in metres, a point the clip to the tile's box made may lie from
/// where a ring edge crosses that side and still be taken as that crossing: two grid steps, the
/// rounding of a crossing to the grid (half a step) with room for the boolean's snapping.
pub const CROSSING_MATCH: f64 = 2.0 / GRID_SCALE;

/// Shortest ring or triangle edge, in metres, that is halved where the walkable surface leaves
/// it (see `polygons/creases.rs`): below it a departure is a step, which the agent climbs; the
/// bound also ends the halving on any input.
pub const CREASE_SPLIT_MIN_LENGTH: f64 = 0.1;
