//! Points as the query entry points take them: `[f64; 3]` always, and with the `mint` feature
//! any type that converts into `mint::Point3<f64>`, the ecosystem's interchange type (glam's
//! `DVec3`, nalgebra's and cgmath's `Point3<f64>`), so those users pass their vectors directly.
//!
//! Results stay `[f64; 3]`; glam, nalgebra and cgmath convert from arrays (`DVec3::from(p)`,
//! `Point3::from(p)`).

/// A point `[x, y, z]` in metres (+Y up), as the query entry points take it.
///
/// Sealed: with `mint` it covers every `Into<mint::Point3<f64>>` type, so an implementation
/// of a downstream crate would stop compiling once any crate of the build turned `mint` on.
/// With `mint`, give a type of your own `From<MyVec> for mint::Point3<f64>` instead.
pub trait IntoPoint: sealed::Sealed {
    /// The point as `[x, y, z]`.
    fn into_point(self) -> [f64; 3];
}

mod sealed {
    /// Implemented exactly where [`super::IntoPoint`] is.
    pub trait Sealed {}

    #[cfg(not(feature = "mint"))]
    impl Sealed for [f64; 3] {}

    #[cfg(feature = "mint")]
    impl<T: Into<mint::Point3<f64>>> Sealed for T {}
}

#[cfg(not(feature = "mint"))]
impl IntoPoint for [f64; 3] {
    fn into_point(self) -> [f64; 3] {
        self
    }
}

// With `mint`, arrays come through `mint::Point3<f64>: From<[f64; 3]>`, so the feature only
// adds types: code that builds without it builds with it.
#[cfg(feature = "mint")]
impl<T: Into<mint::Point3<f64>>> IntoPoint for T {
    fn into_point(self) -> [f64; 3] {
        self.into().into()
    }
}
