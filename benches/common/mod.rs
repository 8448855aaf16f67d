//! What several benchmarks share: the seeded ragged row lengths and the
//! one- and two-thread pools.

#![allow(dead_code)] // each bench uses its own part

/// Row lengths 0..=20 from a seeded xorshift: the same every run.
pub(crate) fn lengths(rows: usize) -> Vec<usize> {
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..rows)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 21) as usize
        })
        .collect()
}

/// A one-thread rayon pool and a two-thread one, named `1t` and `2t`.
pub(crate) fn pools() -> [(&'static str, rayon::ThreadPool); 2] {
    let pool = |n| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build()
            .unwrap()
    };
    [("1t", pool(1)), ("2t", pool(2))]
}
