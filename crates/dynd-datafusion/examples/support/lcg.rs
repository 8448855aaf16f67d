//! The seeded generator of the example data and the benchmarks (a 64-bit
//! LCG's top bits): the same tables on every run and machine.

/// A 64-bit linear congruential generator.
pub(crate) struct Lcg(pub(crate) u64);

impl Lcg {
    /// The next 53 random bits.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 11
    }

    /// A uniform value in [0, 1).
    pub(crate) fn unit(&mut self) -> f64 {
        self.next() as f64 / (1u64 << 53) as f64
    }
}
