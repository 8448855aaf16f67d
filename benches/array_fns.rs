//! The common array functions: `argmax` and `sort` of 1e7 `float64`
//! (against a hand loop and, for `argmax`, ndarray's fold), `unique` of
//! 1e6 values with many repeats, and `concatenate` of two 5e6 arrays,
//! each beside a hand-written version in the same run, one thread.
//!
//! `cargo bench --bench array_fns`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dynd::func::{argmax, concatenate, sort, unique};
use dynd::nd::Array;
use ndarray::Array1;

/// Seeded values in [0, 1e6), no NaN (the hand loops need none either).
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % 1_000_000) as f64 + 0.5
        })
        .collect()
}

/// NumPy's argmax in a plain loop: the first maximum, the first NaN.
fn hand_argmax(xs: &[f64]) -> usize {
    let mut best = 0;
    for (i, &x) in xs.iter().enumerate() {
        if x.is_nan() {
            return i;
        }
        if x > xs[best] {
            best = i;
        }
    }
    best
}

fn bench(c: &mut Criterion) {
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let n = 10_000_000;
    let xs = values(n, 0x9e37_79b9_7f4a_7c15);
    let a = Array::from_vec(xs.clone());

    let mut g = c.benchmark_group("array_fns/argmax_1e7");
    g.throughput(Throughput::Elements(n as u64)).sample_size(20);
    g.bench_function("dynd", |b| {
        b.iter(|| one.install(|| argmax(black_box(&a), None, false).unwrap()))
    });
    g.bench_function("hand_loop", |b| b.iter(|| hand_argmax(black_box(&xs))));
    let na = Array1::from_vec(xs.clone());
    g.bench_function("ndarray_fold", |b| {
        b.iter(|| {
            black_box(&na)
                .indexed_iter()
                .fold((0, f64::NEG_INFINITY), |(bi, bv), (i, &x)| {
                    if x > bv {
                        (i, x)
                    } else {
                        (bi, bv)
                    }
                })
        })
    });
    g.finish();

    let mut g = c.benchmark_group("array_fns/sort_1e7");
    g.throughput(Throughput::Elements(n as u64)).sample_size(10);
    g.bench_function("dynd", |b| {
        b.iter(|| one.install(|| sort(black_box(&a), -1, true).unwrap()))
    });
    g.bench_function("hand_copy_sort_unstable_total_cmp", |b| {
        b.iter(|| {
            let mut v = black_box(&xs).clone();
            v.sort_unstable_by(f64::total_cmp);
            v
        })
    });
    g.finish();

    let m = 1_000_000;
    let small: Vec<f64> = values(m, 7)
        .into_iter()
        .map(|x| (x / 1000.0).floor())
        .collect();
    let s = Array::from_vec(small.clone());
    let mut g = c.benchmark_group("array_fns/unique_1e6");
    g.throughput(Throughput::Elements(m as u64)).sample_size(20);
    g.bench_function("dynd", |b| {
        b.iter(|| one.install(|| unique(black_box(&s)).unwrap()))
    });
    g.bench_function("hand_sort_dedup", |b| {
        b.iter(|| {
            let mut v = black_box(&small).clone();
            v.sort_unstable_by(f64::total_cmp);
            v.dedup();
            v
        })
    });
    g.finish();

    let half = n / 2;
    let (p, q) = (values(half, 3), values(half, 5));
    let (pa, qa) = (Array::from_vec(p.clone()), Array::from_vec(q.clone()));
    let mut g = c.benchmark_group("array_fns/concatenate_1e7");
    g.throughput(Throughput::Elements(n as u64)).sample_size(20);
    g.bench_function("dynd", |b| {
        b.iter(|| concatenate(&[black_box(&pa), black_box(&qa)], 0).unwrap())
    });
    g.bench_function("hand_vec", |b| {
        b.iter(|| {
            let mut v = Vec::with_capacity(n);
            v.extend_from_slice(black_box(&p));
            v.extend_from_slice(black_box(&q));
            v
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
