//! The f32 2D vector ORCA computes with, with RVO2's exact operation order.
//!
//! Every operation rounds exactly like RVO2's `Vector2` (f32, no fused multiply-add; Rust never
//! contracts `a * b + c`). In particular a division by a scalar multiplies by its reciprocal, and
//! [`Vec2::normalize`] divides by the length that way, because that is what RVO2 does and the
//! reference trajectories are bit-exact.

use std::ops::{Add, Div, Mul, Neg, Sub};

/// A 2D vector or point in the ORCA plane, single precision like RVO2.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Vec2 {
    /// First coordinate.
    pub x: f32,
    /// Second coordinate.
    pub y: f32,
}

impl Vec2 {
    /// The zero vector.
    pub const ZERO: Vec2 = Vec2 { x: 0.0, y: 0.0 };

    /// Makes a vector from its coordinates.
    pub const fn new(x: f32, y: f32) -> Self {
        Vec2 { x, y }
    }

    /// Dot product `x·x' + y·y'`.
    #[inline]
    pub fn dot(self, other: Vec2) -> f32 {
        self.x * other.x + self.y * other.y
    }

    /// Squared length.
    #[inline]
    pub fn abs_sq(self) -> f32 {
        self.dot(self)
    }

    /// Length.
    #[inline]
    pub fn abs(self) -> f32 {
        self.abs_sq().sqrt()
    }

    /// Determinant of the 2×2 matrix with rows `self` and `other` (`x·y' − y·x'`).
    #[inline]
    pub fn det(self, other: Vec2) -> f32 {
        self.x * other.y - self.y * other.x
    }

    /// Unit vector in the same direction (`self / |self|`, RVO2's rounding).
    #[inline]
    pub fn normalize(self) -> Vec2 {
        self / self.abs()
    }

    /// True when both coordinates are finite.
    pub fn is_finite(self) -> bool {
        self.x.is_finite() && self.y.is_finite()
    }
}

impl From<[f32; 2]> for Vec2 {
    fn from(p: [f32; 2]) -> Self {
        Vec2::new(p[0], p[1])
    }
}

impl From<Vec2> for [f32; 2] {
    fn from(v: Vec2) -> Self {
        [v.x, v.y]
    }
}

impl Add for Vec2 {
    type Output = Vec2;
    #[inline]
    fn add(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x + o.x, self.y + o.y)
    }
}

impl Sub for Vec2 {
    type Output = Vec2;
    #[inline]
    fn sub(self, o: Vec2) -> Vec2 {
        Vec2::new(self.x - o.x, self.y - o.y)
    }
}

impl Neg for Vec2 {
    type Output = Vec2;
    #[inline]
    fn neg(self) -> Vec2 {
        Vec2::new(-self.x, -self.y)
    }
}

impl Mul<f32> for Vec2 {
    type Output = Vec2;
    #[inline]
    fn mul(self, s: f32) -> Vec2 {
        Vec2::new(self.x * s, self.y * s)
    }
}

impl Div<f32> for Vec2 {
    type Output = Vec2;
    /// Division by a scalar, done as multiplication by `1 / s` (RVO2's rounding).
    #[inline]
    fn div(self, s: f32) -> Vec2 {
        let inv = 1.0 / s;
        Vec2::new(self.x * inv, self.y * inv)
    }
}

impl Mul<Vec2> for f32 {
    type Output = Vec2;
    #[inline]
    fn mul(self, v: Vec2) -> Vec2 {
        Vec2::new(self * v.x, self * v.y)
    }
}

/// Signed area test: positive when `c` lies to the left of the line from `a` to `b`
/// (`det(a − c, b − a)`, RVO2's `leftOf`).
#[inline]
pub fn left_of(a: Vec2, b: Vec2, c: Vec2) -> f32 {
    (a - c).det(b - a)
}

/// Squared distance from point `c` to the segment `a`–`b` (RVO2's rounding).
#[inline]
pub fn dist_sq_point_segment(a: Vec2, b: Vec2, c: Vec2) -> f32 {
    let r = (c - a).dot(b - a) / (b - a).abs_sq();
    if r < 0.0 {
        (c - a).abs_sq()
    } else if r > 1.0 {
        (c - b).abs_sq()
    } else {
        (c - (a + r * (b - a))).abs_sq()
    }
}

/// `a * a`.
#[inline]
pub(crate) fn sqr(a: f32) -> f32 {
    a * a
}

/// `std::min` semantics: `b` if `b < a`, else `a` (keeps the first on ties and signed zeros).
#[inline]
pub(crate) fn min_f(a: f32, b: f32) -> f32 {
    if b < a {
        b
    } else {
        a
    }
}

/// `std::max` semantics: `b` if `a < b`, else `a`.
#[inline]
pub(crate) fn max_f(a: f32, b: f32) -> f32 {
    if a < b {
        b
    } else {
        a
    }
}
