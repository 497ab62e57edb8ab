//! The coordinate contract: the one place that says how large a level may be.
//!
//! Every door into Meadow enforces it with a typed error: glTF ingest (per vertex, naming the
//! node and accessor), asset validation on load (vertices and bounds) and query entry (points
//! and directions). Inside the contract every integer computation of the bake is proven free of
//! overflow (see the bounds written next to each product in the region stage) and every query
//! result is finite.
//!
//! | limit              | value                 | why                                                    |
//! |--------------------|-----------------------|--------------------------------------------------------|
//! | [`MAX_COORDINATE`] | 2^20 m ≈ 1049 km      | any world coordinate (x, y or z); f64 keeps 2^-32 m    |
//! | [`MAX_EXTENT`]     | 2^16 m = 65,536 m     | span of a level along each axis: the exact bake grid   |
//! |                    |                       | (1/2048 m) then needs 2^27 units, i32 points and i64   |
//! |                    |                       | products (i128 where three factors meet)               |
//!
//! A level of the largest extent may sit anywhere within [`MAX_COORDINATE`] of the origin: the
//! bake works relative to the level's own centre.

/// Largest magnitude of any coordinate (x, y or z) in metres: `|c| <= 2^20 m` (about 1049 km).
/// At this magnitude an `f64` still resolves 2^-32 m, far below the bake's 1/2048 m grid, and
/// squared distances (< 2^44 m²) and path lengths stay far from overflow.
pub const MAX_COORDINATE: f64 = (1u64 << 20) as f64;

/// Largest span of a level along any axis in metres: `max - min <= 2^16 m` (65,536 m). The
/// bake's exact grid has 2048 units per metre around the level's centre, so a level of this
/// extent (plus the agent radius) needs `|x| <= 2^26` units, and a difference of two grid points
/// stays within `2^27`.
pub const MAX_EXTENT: f64 = (1u64 << 16) as f64;

/// Whether every component of `p` is finite and within [`MAX_COORDINATE`].
pub fn in_range<const N: usize>(p: [f64; N]) -> bool {
    p.iter().all(|c| c.abs() <= MAX_COORDINATE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_check_rejects_non_finite_and_far_points() {
        assert!(in_range([0.0, -MAX_COORDINATE, MAX_COORDINATE]));
        assert!(!in_range([f64::NAN, 0.0]));
        assert!(!in_range([f64::INFINITY, 0.0, 0.0]));
        assert!(!in_range([0.0, MAX_COORDINATE * 1.0000001]));
        assert!(!in_range([1e300, 0.0, 0.0]));
    }
}
