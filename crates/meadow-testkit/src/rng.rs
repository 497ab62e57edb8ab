//! Seeded random number generators for tests and benches.
//!
//! A test's answers depend on its exact random sequence, so each test keeps the generator it was
//! written with: [`SplitMix64`] (the runtime's own, re-exported, which also drives
//! `QueryMesh::random_point`) or [`Xorshift64`]. [`Draw`] gives both the same ways to draw
//! floats and indices, with the same arithmetic the former private copies used.

pub use meadow::query::SplitMix64;

/// Floats and indices drawn from a generator's 64 random bits.
pub trait Draw {
    /// The next 64 random bits.
    fn next_u64(&mut self) -> u64;

    /// A uniform float in `[0, 1)` (the top 53 bits).
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// A uniform float in `[lo, hi)`.
    fn uniform(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.next_f64()
    }

    /// An index in `0..n` (by remainder: a negligible bias for small `n`); `n` must not be 0.
    fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

impl Draw for SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        SplitMix64::next_u64(self)
    }

    fn next_f64(&mut self) -> f64 {
        SplitMix64::next_f64(self)
    }
}

/// Marsaglia's 64-bit xorshift (shifts 13, 7, 17): the generator of the circle-planner unit
/// tests. Its output is the new state; a zero seed gives only zeros.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Xorshift64 {
    state: u64,
}

impl Xorshift64 {
    /// A generator with the given (non-zero) seed.
    pub fn new(seed: u64) -> Xorshift64 {
        Xorshift64 { state: seed }
    }
}

impl Draw for Xorshift64 {
    fn next_u64(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splitmix_draws_match_the_runtime_generator() {
        let (mut a, mut b) = (SplitMix64::new(7), SplitMix64::new(7));
        for _ in 0..100 {
            assert_eq!(Draw::next_f64(&mut a), b.next_f64());
        }
        // The published first output of SplitMix64 seeded with 0.
        assert_eq!(Draw::next_u64(&mut SplitMix64::new(0)), 0xE220_A839_7B1D_CDAF);
    }

    #[test]
    fn xorshift_is_the_13_7_17_generator() {
        let mut rng = Xorshift64::new(1);
        let mut x = 1u64;
        for _ in 0..10 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            assert_eq!(rng.next_u64(), x);
        }
        // Multiplying by 2^-53 equals dividing by 2^53 exactly.
        let mut rng = Xorshift64::new(99);
        let mut copy = rng.clone();
        let bits = copy.next_u64();
        assert_eq!(rng.uniform(2.0, 5.0), 2.0 + 3.0 * ((bits >> 11) as f64 / (1u64 << 53) as f64));
    }
}
