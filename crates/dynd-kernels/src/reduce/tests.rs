use super::*;

/// Folding block by block gives the pairwise fold's bits, at every
/// length (full and partial last blocks, odd splits).
#[test]
fn pairwise_from_blocks_is_pairwise() {
    let xs: Vec<f64> = (0..CHUNK)
        .map(|i| ((i as f64) * 0.7316).sin() * 1e3)
        .collect();
    let add = |x: f64, y: f64| x + y;
    let lens = (0..1200).chain([4095, 4096, 4097, 30_001, CHUNK - 1, CHUNK]);
    for len in lens {
        let xs = &xs[..len];
        let blocks: Vec<Option<f64>> = xs.chunks(BLOCK).map(|b| fold8(b, &add)).collect();
        let want = fold_pairwise(xs, &add).map(f64::to_bits);
        assert_eq!(
            fold_pairwise_blocks(&blocks, len, &add).map(f64::to_bits),
            want,
            "{len}"
        );
    }
}

/// The dispatched folds on every instruction set this CPU has give the
/// pairwise fold's bits (sums of floats, NaN-propagating extremes, wrapping
/// integer sums and products), and the rows combined elementwise give the
/// scalar loop's.
#[test]
fn dispatched_folds_on_every_path_are_the_pairwise_fold() {
    let xs: Vec<f64> = (0..CHUNK)
        .map(|i| ((i as f64) * 0.7316).sin() * 1e3)
        .collect();
    let mut with_nan = xs.clone();
    with_nan[CHUNK / 3] = f64::NAN;
    let ints: Vec<i64> = xs.iter().map(|x| (x * 1e15) as i64).collect();
    let small: Vec<i32> = ints.iter().map(|&v| v as i32).collect();
    let lens = [0, 1, 63, 64, 65, 255, 256, 257, 1000, 4097, 30_001, CHUNK];
    fn check<T: Copy + PartialEq + std::fmt::Debug>(
        name: &str,
        xs: &[T],
        f: impl Fn(T, T) -> T,
        lens: &[usize],
    ) {
        for isa in crate::isa::available() {
            for &len in lens {
                let xs = &xs[..len];
                // SAFETY: the CPU has `isa` (filtered above).
                let got = unsafe { fold_chunk_on(isa, xs, &f) };
                let want = fold_pairwise(xs, &f);
                // Compare through `Debug`, so a NaN equals a NaN.
                assert_eq!(
                    format!("{got:?}"),
                    format!("{want:?}"),
                    "{name}, {len} on {}",
                    isa.name()
                );
                let mut acc: Vec<T> = xs.iter().rev().copied().collect();
                let want: Vec<T> = acc.iter().zip(xs).map(|(&a, &x)| f(a, x)).collect();
                // SAFETY: as above.
                unsafe { combine_into_on(isa, &mut acc, xs, &f) };
                assert_eq!(
                    format!("{acc:?}"),
                    format!("{want:?}"),
                    "{name} rows, {len}"
                );
            }
        }
    }
    check("f64 sum", &xs, |a, b| a + b, &lens);
    check("f64 max", &with_nan, Arith::max, &lens);
    check("f64 min", &xs, Arith::min, &lens);
    let f32s: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
    check("f32 sum", &f32s, |a, b| a + b, &lens);
    check("i64 sum", &ints, Arith::add, &lens);
    check("i64 product", &ints, Arith::mul, &lens);
    check("i64 max", &ints, Arith::max, &lens);
    check("i32 min", &small, Arith::min, &lens);
}

/// The `max` and `min` run kernels give the pairwise fold's bits on every
/// instruction set this CPU has: at lengths around their lanes and
/// blocks, with a NaN at either end or inside, infinities, both zeros
/// (the result's sign is the tree's), all-equal runs, and the integer
/// types' extremes.
#[test]
fn extreme_runs_are_the_pairwise_fold() {
    use super::extreme::{run_on, Extreme};
    fn check<T: Extreme + Arith + std::fmt::Debug>(name: &str, xs: &[T]) {
        let lens = [0, 1, 7, 8, 255, 256, 257, 300, 511, 1000, 4097, xs.len()];
        for isa in crate::isa::available() {
            for &len in lens.iter().filter(|&&n| n <= xs.len()) {
                let xs = &xs[..len];
                // SAFETY: the CPU has `isa` (filtered above).
                let (max, min) =
                    unsafe { (run_on::<T, true>(isa, xs), run_on::<T, false>(isa, xs)) };
                // Compare through `Debug`, so a NaN equals a NaN (and
                // `-0.0` differs from `0.0`).
                let want = |f: fn(T, T) -> T| format!("{:?}", fold_pairwise(xs, &f));
                let on = isa.name();
                assert_eq!(
                    format!("{max:?}"),
                    want(Arith::max),
                    "{name} max, {len} on {on}"
                );
                assert_eq!(
                    format!("{min:?}"),
                    want(Arith::min),
                    "{name} min, {len} on {on}"
                );
            }
        }
    }
    let base: Vec<f64> = (0..5000)
        .map(|i| ((i as f64) * 0.7316).sin() * 1e3)
        .collect();
    check("f64", &base);
    for at in [0, 1, 31, 256, 2500, 4999] {
        let mut xs = base.clone();
        xs[at] = f64::NAN;
        check(&format!("f64 NaN at {at}"), &xs);
    }
    let mut inf = base.clone();
    (inf[17], inf[4000]) = (f64::INFINITY, f64::NEG_INFINITY);
    check("f64 infinities", &inf);
    // Zeros of both signs as the largest (non-positive runs) and as the
    // smallest (non-negative runs), in several orders.
    for seed in 0..4usize {
        let sign = |i: usize| if (i * 7 + seed) % 5 < 2 { -0.0 } else { 0.0 };
        let neg: Vec<f64> = (0..1000)
            .map(|i| {
                if i % 3 == seed % 3 {
                    sign(i)
                } else {
                    -1.0 - i as f64
                }
            })
            .collect();
        check(&format!("f64 zeros at the top {seed}"), &neg);
        let pos: Vec<f64> = neg.iter().map(|x| -x).collect();
        check(&format!("f64 zeros at the bottom {seed}"), &pos);
    }
    check("f64 all -0", &vec![-0.0f64; 600]);
    check("f64 all equal", &vec![2.5f64; 600]);
    let f32s: Vec<f32> = base.iter().map(|&x| x as f32).collect();
    check("f32", &f32s);
    let mut f32_nan = f32s.clone();
    f32_nan[700] = f32::NAN;
    check("f32 NaN", &f32_nan);
    let ints: Vec<i64> = base.iter().map(|x| (x * 1e15) as i64).collect();
    check("i64", &ints);
    let mut ends = ints.clone();
    (ends[3], ends[4001]) = (i64::MIN, i64::MAX);
    check("i64 extremes", &ends);
    check("u64", &ints.iter().map(|&v| v as u64).collect::<Vec<_>>());
    check("i32", &ints.iter().map(|&v| v as i32).collect::<Vec<_>>());
    check("u32", &ints.iter().map(|&v| v as u32).collect::<Vec<_>>());
}
