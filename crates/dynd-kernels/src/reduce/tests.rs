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
