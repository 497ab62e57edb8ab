//! Every geometric tolerance of the runtime, in one place, each with its unit and the reason for
//! its value.
//!
//! Most of Meadow's decisions are exact (robust orientation tests on the stored `f64`
//! coordinates); the tolerances below guard the few places that compare computed lengths,
//! heights or angles. "Relative" tolerances are multiplied by a magnitude named in their
//! documentation (usually `1 + |value|`, so they stay meaningful near zero). Changing any of
//! them changes query answers: the committed query answers and the ORCA comparison with RVO2
//! pin them.

// --- Exact-predicate filter -------------------------------------------------------------------

/// Error bound of the floating-point first stage of [`crate::geom::orient2d`] (relative to
/// `|left| + |right|` of the determinant; dimensionless). Shewchuk's `ccwerrboundA`,
/// `(3 + 16ε)ε` with `ε = 2^-53`, the value `robust` uses, so the filter returns what `robust`
/// would.
pub(crate) const ORIENT2D_FILTER_BOUND: f64 = 3.3306690621773722e-16;

/// How far the total turning of a ring with only left turns may be from one full turn (radians)
/// for [`crate::geom`]'s convexity test: the sum of `atan2` angles carries rounding of order
/// 1e-15 per vertex, far below this; a star polygon winds twice (4π), far above it.
pub(crate) const WINDING_TOLERANCE: f64 = 1e-6;

// --- Asset ------------------------------------------------------------------------------------

/// How far (metres, in XZ) a link's end point may lie outside its polygon's bounds: the bake
/// places it on the polygon, and rounding of that nearest-point computation stays far below.
pub const LINK_POINT_SLACK: f64 = 1e-3;

// --- Path queries -----------------------------------------------------------------------------

/// Relative gain (dimensionless, of `1 + length` in metres) a re-routed path must have over the
/// current one before the shortcut pass accepts it, and the relative shrink of the current
/// stretch before it is compared with a lower bound on a way round an island: rounding noise
/// in two string-pulled lengths of the same path is of order 1e-15, so 1e-9 never mistakes it
/// for a shortcut and never loses a real one that matters.
pub(crate) const SHORTCUT_MIN_GAIN: f64 = 1e-9;

/// Relative margin (dimensionless, of `1 + length` in metres) by which a portal choice of
/// Meadow refinement must shorten the path to count as an improvement: keeps rounding noise
/// from flipping choices back and forth.
pub(crate) const REFINE_MIN_GAIN: f64 = 1e-12;

/// How far (relative to `1 + |y|` of the neighbours, metres) a string-pulled point collinear in
/// XZ with its neighbours may lie off their 3D segment and still be dropped: such a point only
/// carries a height the interpolation between its neighbours reproduces up to rounding.
pub(crate) const FUNNEL_HEIGHT_REL: f64 = 1e-12;

/// Relative slack (dimensionless, of the root's path length) of the shortest-path search's
/// root-level pruning, so that the same vertex reached with the same length along different
/// prefixes (equal up to rounding) is turned at from each of them.
pub(crate) const SHORTEST_ROOT_SLACK: f64 = 1e-12;

/// Rounding margin of the point-location grid, relative to the magnitude of the grid's
/// coordinates (metres per metre): a polygon is listed in every cell that `cell_coord` could map
/// one of its points to, whatever the rounding of that mapping.
pub(crate) const LOCATE_MARGIN_REL: f64 = 1e-9;

/// Rounding margin of the point-location grid, in cells (dimensionless), added to
/// [`LOCATE_MARGIN_REL`] for grids whose coordinates are near zero.
pub(crate) const LOCATE_MARGIN_CELLS: f64 = 1e-6;

// --- Carving -----------------------------------------------------------------------------------

/// How far (relative to the largest coordinate magnitude of an obstacle and the radius, metres
/// per metre) a dilated obstacle's arc corners are pushed out beyond the circumscribed polygon,
/// so that the rounding of `cos`, `sin` and the sums (of order 1e-16 of that magnitude) never
/// leaves a point of the exact Minkowski sum outside it; the angle step is chosen so that the
/// corners still lie within the arc tolerance.
pub(crate) const DILATION_GROWTH_REL: f64 = 1e-12;

// --- Crowds -----------------------------------------------------------------------------------

/// How close (XZ, metres) an agent must come to a link's take-off point to take the link when
/// the crowd's goal radius is smaller.
pub(crate) const CROWD_LINK_REACH: f64 = 0.05;

/// A wall-hit point is pulled back this far along the move so the agent stays strictly inside
/// the mesh, where the next raycast can start (metres).
pub(crate) const CROWD_WALL_BACKOFF: f64 = 1e-5;

/// Outline vertices closer than this (metres) to the line through their neighbours are dropped
/// before the walls are built: near-collinear runs (arc chords, split edges) give ORCA tiny
/// obstacle edges with ill-defined corners that agents jam on.
pub(crate) const CROWD_FLAT_VERTEX_TOLERANCE: f64 = 1e-3;

/// Smallest length (of the sum of two unit normals; dimensionless) for which a wall corner is
/// offset along its bisector; below it the two walls turn back on each other (a spike) and the
/// bisector is undefined.
pub(crate) const CROWD_MITRE_MIN: f64 = 1e-12;

/// RVO2's `RVO_EPSILON` (metres per second, `f32`): the parallel-line threshold of the linear
/// programs and the "already covered" slack of obstacle lines. Kept at RVO2's value so that
/// ORCA stays bit-exact with it.
pub(crate) const RVO_EPSILON: f32 = 0.00001;

// --- Circle planner ---------------------------------------------------------------------------

/// Sweeps this close to a full turn (radians) are treated as no turn: they only arise from
/// rounding when a path leaves a circle where it arrived (three circles on one tangent line).
pub(crate) const FULL_TURN_SNAP: f64 = 1e-12;

/// The circle world's line-of-sight slack, relative to its scale (metres: the largest of
/// `|centre| + radius + agent radius`): a segment must come closer than a radius minus this to
/// be blocked (tangent points are computed with rounding: one grazing a third circle must not
/// be cut by it), circles smaller than this block nothing, and circles protruding less than
/// this from another are dropped. Rounding of distances at that scale is of order 1e-16 of it.
/// Contacts between circles and the query points' inside test do not use it: they are exact.
pub(crate) const CIRCLE_EPS_REL: f64 = 1e-12;

/// Relative growth (dimensionless) of squared reaches and of reaches before a "may touch" or
/// "may block" test, and relative shrink of a sweep radius known to be covered, so that
/// rounding never drops a neighbour or a candidate that exact arithmetic would keep.
pub(crate) const CIRCLE_REACH_REL: f64 = 1e-12;

/// Slack (dimensionless, on a cosine) of the all-round blocking test of the sweep: a cosine
/// within this of a boundary is not trusted to decide "blocked".
pub(crate) const CIRCLE_COSINE_SLACK: f64 = 1e-12;

/// Relative shrink (dimensionless) of lower bounds on tangent lengths and of blocker radii,
/// and relative margin (of `1 + |g| + h`, metres) of the lazy search's rounds: a bound computed
/// with rounding must never exceed a true cost, and these computations lose far less than 1e-9.
pub(crate) const CIRCLE_BOUND_REL: f64 = 1e-9;

/// Padding (radians) of the angular range a sweep asks the sight bins about, against rounding
/// of the `acos`/`atan2` that computed it.
pub(crate) const CIRCLE_ANGLE_PAD: f64 = 1e-9;

/// Padding of the circle grid's walks, in cells (dimensionless), and the smallest cell,
/// relative to `1 +` the world's extent (metres per metre): every cell is visited that holds a
/// point of the exact shape, and a degenerate world still gets cells of positive size.
pub(crate) const CIRCLE_GRID_PAD: f64 = 1e-9;
