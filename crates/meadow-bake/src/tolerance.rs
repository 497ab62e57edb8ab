//! Every geometric tolerance and grid constant of the bake, in one place: each with its unit and
//! the reason for its value.

/// Grid units per metre for the exact polygon work (1/2048 m ≈ 0.5 mm; powers of two keep the
/// conversion to and from `f64` exact).
pub const GRID_SCALE: f64 = 2048.0;
