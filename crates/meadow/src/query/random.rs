//! Uniformly distributed random points on the mesh, from a small seeded generator.

use super::{xz, Location, QueryMesh};
use crate::geom::orient2d;

/// SplitMix64 (Steele, Lea and Flood): a tiny, fast, seedable 64-bit generator; enough for
/// sampling points, not for cryptography.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SplitMix64 {
    state: u64,
}

impl SplitMix64 {
    /// A generator with the given seed (every seed, including 0, is fine).
    pub fn new(seed: u64) -> SplitMix64 {
        SplitMix64 { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A uniform float in `[0, 1)` (53 random bits).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

impl QueryMesh {
    /// A point drawn uniformly by XZ area over the whole mesh (its height on the surface), or
    /// `None` for a mesh without polygons.
    pub fn random_point(&self, rng: &mut SplitMix64) -> Option<Location> {
        let total = *self.area_prefix.last()?;
        let r = rng.next_f64() * total;
        let poly = self.area_prefix.partition_point(|&c| c <= r).min(self.area_prefix.len() - 1) as u32;
        // Pick a fan triangle by area, then a uniform point in it.
        let n = self.poly_len(poly);
        let v0 = self.poly_vertex(poly, 0);
        let twice_area = |i: usize| orient2d(xz(v0), xz(self.poly_vertex(poly, i)), xz(self.poly_vertex(poly, i + 1)));
        let poly_twice: f64 = (1..n - 1).map(twice_area).sum();
        let mut t = rng.next_f64() * poly_twice;
        let mut tri = n - 2;
        for i in 1..n - 1 {
            let a = twice_area(i);
            if t < a {
                tri = i;
                break;
            }
            t -= a;
        }
        let (v1, v2) = (self.poly_vertex(poly, tri), self.poly_vertex(poly, tri + 1));
        let s = rng.next_f64().sqrt();
        let u = rng.next_f64();
        let (w0, w1, w2) = (1.0 - s, s * (1.0 - u), s * u);
        let point = [
            w0 * v0[0] + w1 * v1[0] + w2 * v2[0],
            w0 * v0[1] + w1 * v1[1] + w2 * v2[1],
            w0 * v0[2] + w1 * v1[2] + w2 * v2[2],
        ];
        Some(Location { polygon: poly, point })
    }
}
