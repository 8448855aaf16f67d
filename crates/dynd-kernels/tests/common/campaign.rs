//! The robustness campaigns' harness: a seeded generator and a runner that
//! catches panics and reports each failing seed with what the case logged.
//! Shared by `crates/dynd-kernels/tests/robust_views.rs` and the root
//! package's `tests/robustness.rs` (through `#[path]`).

use std::panic::{catch_unwind, AssertUnwindSafe};

/// SplitMix64: small, seeded, reproducible.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    /// The next 64 random bits.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 for `n == 0`).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    /// One of `xs`.
    pub(crate) fn pick<T: Clone>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len())].clone()
    }
}

/// Runs `case` once per seed under `catch_unwind`; fails listing every
/// panicking seed with the message and what the case logged.
pub(crate) fn campaign(
    name: &str,
    seed: u64,
    cases: usize,
    case: impl Fn(&mut Rng, &mut Vec<String>),
) {
    let mut failures = Vec::new();
    for k in 0..cases {
        let s = seed.wrapping_add(k as u64 * 0x1000_0000_01b3);
        let mut log = Vec::new();
        if let Err(payload) = catch_unwind(AssertUnwindSafe(|| case(&mut Rng(s), &mut log))) {
            let msg = payload
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            failures.push(format!("{name} seed {s:#x}: {msg}\n  {}", log.join("\n  ")));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {cases} {name} cases panicked:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The number of cases: `DYND_ROBUST_CASES`, or `default`.
pub(crate) fn cases(default: usize) -> usize {
    std::env::var("DYND_ROBUST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}
