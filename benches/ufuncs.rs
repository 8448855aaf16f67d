//! NumPy's ufuncs at 1e7 elements: `floor` and `isnan` of `float64`,
//! `less` of two separate `float64` arrays and `bitwise_and` of two
//! separate `int64` arrays, each as the builtin (into
//! an existing output and allocating, on one thread and two) against a
//! hand-written loop and ndarray in the same run; and integer `multiply`,
//! `maximum` and `add` of two separate arrays of 1e4 (in cache), where
//! the loop's instruction set shows.
//!
//! `cargo bench --bench ufuncs`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

mod common;

use std::hint::black_box;

use common::pools;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dynd::func::builtins::{Builtin, ADD, BITWISE_AND, FLOOR, ISNAN, LESS, MAXIMUM, MULTIPLY};
use dynd::nd::Array;
use ndarray::Array1;

const N: usize = 10_000_000;

/// Values with fractions, signs and a NaN every 1000th.
fn floats() -> Vec<f64> {
    (0..N)
        .map(|i| {
            if i % 1000 == 999 {
                f64::NAN
            } else {
                (i as f64 - 5e6) * 0.37
            }
        })
        .collect()
}

fn floor(c: &mut Criterion) {
    let mut g = c.benchmark_group("ufuncs/floor_1e7");
    g.throughput(Throughput::Elements(N as u64)).sample_size(20);
    let xs = floats();
    let a = Array::from_vec(xs.clone());
    let mut out = Array::from_vec(vec![0.0f64; N]);
    for (threads, pool) in pools() {
        g.bench_function(BenchmarkId::new("dynd_into", threads), |b| {
            b.iter(|| {
                pool.install(|| {
                    FLOOR
                        .callable()
                        .call_into(&mut out, &[black_box(&a)])
                        .unwrap()
                })
            })
        });
        g.bench_function(BenchmarkId::new("dynd_alloc", threads), |b| {
            b.iter(|| pool.install(|| FLOOR.call(&[black_box(&a)]).unwrap()))
        });
    }
    // The argument and the output in the library's own blocks (huge pages
    // where the system has them, as NumPy's own arrays are), one thread.
    let (own, mut own_out) = (Array::from_slice(&xs), Array::from_slice(&vec![0.0f64; N]));
    let [(_, one), _] = pools();
    g.bench_function("dynd_into_own_blocks_1t", |b| {
        b.iter(|| {
            one.install(|| {
                FLOOR
                    .callable()
                    .call_into(&mut own_out, &[black_box(&own)])
                    .unwrap()
            })
        })
    });
    let mut hand = vec![0.0f64; N];
    g.bench_function("hand_into", |b| {
        b.iter(|| {
            for (o, x) in hand.iter_mut().zip(black_box(&xs)) {
                *o = x.floor();
            }
        })
    });
    g.bench_function("hand_alloc", |b| {
        b.iter(|| {
            black_box(&xs)
                .iter()
                .map(|x| x.floor())
                .collect::<Vec<f64>>()
        })
    });
    let na = Array1::from_vec(xs.clone());
    let mut nout = Array1::<f64>::zeros(N);
    g.bench_function("ndarray_into", |b| {
        b.iter(|| {
            ndarray::Zip::from(&mut nout)
                .and(black_box(&na))
                .for_each(|o, x| *o = x.floor())
        })
    });
    g.bench_function("ndarray_alloc", |b| {
        b.iter(|| black_box(&na).mapv(f64::floor))
    });
    g.finish();
}

fn isnan(c: &mut Criterion) {
    let mut g = c.benchmark_group("ufuncs/isnan_1e7");
    g.throughput(Throughput::Elements(N as u64)).sample_size(20);
    let xs = floats();
    let a = Array::from_vec(xs.clone());
    let mut out = Array::from_vec(vec![false; N]);
    for (threads, pool) in pools() {
        g.bench_function(BenchmarkId::new("dynd_into", threads), |b| {
            b.iter(|| {
                pool.install(|| {
                    ISNAN
                        .callable()
                        .call_into(&mut out, &[black_box(&a)])
                        .unwrap()
                })
            })
        });
        g.bench_function(BenchmarkId::new("dynd_alloc", threads), |b| {
            b.iter(|| pool.install(|| ISNAN.call(&[black_box(&a)]).unwrap()))
        });
    }
    // In the library's own blocks (huge pages), one thread.
    let (own, mut own_out) = (Array::from_slice(&xs), Array::from_slice(&vec![false; N]));
    let [(_, one), _] = pools();
    g.bench_function("dynd_into_own_blocks_1t", |b| {
        b.iter(|| {
            one.install(|| {
                ISNAN
                    .callable()
                    .call_into(&mut own_out, &[black_box(&own)])
                    .unwrap()
            })
        })
    });
    let mut hand = vec![false; N];
    g.bench_function("hand_into", |b| {
        b.iter(|| {
            for (o, x) in hand.iter_mut().zip(black_box(&xs)) {
                *o = x.is_nan();
            }
        })
    });
    g.bench_function("hand_alloc", |b| {
        b.iter(|| {
            black_box(&xs)
                .iter()
                .map(|x| x.is_nan())
                .collect::<Vec<bool>>()
        })
    });
    let na = Array1::from_vec(xs.clone());
    g.bench_function("ndarray_alloc", |b| {
        b.iter(|| black_box(&na).mapv(f64::is_nan))
    });
    g.finish();
}

fn less(c: &mut Criterion) {
    let mut g = c.benchmark_group("ufuncs/less_1e7");
    g.throughput(Throughput::Elements(N as u64)).sample_size(20);
    let xs = floats();
    let ys: Vec<f64> = xs.iter().rev().copied().collect();
    let (a, b) = (Array::from_vec(xs.clone()), Array::from_vec(ys.clone()));
    let mut out = Array::from_vec(vec![false; N]);
    let [(_, one), _] = pools();
    g.bench_function("dynd_into_1t", |bch| {
        bch.iter(|| {
            one.install(|| {
                LESS.callable()
                    .call_into(&mut out, &[black_box(&a), black_box(&b)])
                    .unwrap()
            })
        })
    });
    // In the library's own blocks (huge pages), one thread.
    let (oa, ob) = (Array::from_slice(&xs), Array::from_slice(&ys));
    let mut own_out = Array::from_slice(&vec![false; N]);
    g.bench_function("dynd_into_own_blocks_1t", |bch| {
        bch.iter(|| {
            one.install(|| {
                LESS.callable()
                    .call_into(&mut own_out, &[black_box(&oa), black_box(&ob)])
                    .unwrap()
            })
        })
    });
    let mut hand = vec![false; N];
    g.bench_function("hand_into", |bch| {
        bch.iter(|| {
            for ((o, x), y) in hand.iter_mut().zip(black_box(&xs)).zip(black_box(&ys)) {
                *o = x < y;
            }
        })
    });
    g.finish();
}

fn bitwise_and(c: &mut Criterion) {
    let mut g = c.benchmark_group("ufuncs/bitwise_and_1e7");
    g.throughput(Throughput::Elements(N as u64)).sample_size(20);
    let xs: Vec<i64> = (0..N as i64).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let ys: Vec<i64> = (0..N as i64).map(|i| i ^ 0x5555).collect();
    let (a, bb) = (Array::from_vec(xs.clone()), Array::from_vec(ys.clone()));
    let mut out = Array::from_vec(vec![0i64; N]);
    for (threads, pool) in pools() {
        g.bench_function(BenchmarkId::new("dynd_into", threads), |b| {
            b.iter(|| {
                pool.install(|| {
                    BITWISE_AND
                        .callable()
                        .call_into(&mut out, &[black_box(&a), black_box(&bb)])
                        .unwrap()
                })
            })
        });
        g.bench_function(BenchmarkId::new("dynd_alloc", threads), |b| {
            b.iter(|| pool.install(|| BITWISE_AND.call(&[black_box(&a), black_box(&bb)]).unwrap()))
        });
    }
    // In the library's own blocks (huge pages), one thread.
    let (oa, ob) = (Array::from_slice(&xs), Array::from_slice(&ys));
    let mut own_out = Array::from_slice(&vec![0i64; N]);
    let [(_, one), _] = pools();
    g.bench_function("dynd_into_own_blocks_1t", |b| {
        b.iter(|| {
            one.install(|| {
                BITWISE_AND
                    .callable()
                    .call_into(&mut own_out, &[black_box(&oa), black_box(&ob)])
                    .unwrap()
            })
        })
    });
    let mut hand = vec![0i64; N];
    g.bench_function("hand_into", |b| {
        b.iter(|| {
            for ((o, x), y) in hand.iter_mut().zip(black_box(&xs)).zip(black_box(&ys)) {
                *o = x & y;
            }
        })
    });
    let (na, nb) = (Array1::from_vec(xs.clone()), Array1::from_vec(ys.clone()));
    let mut nout = Array1::<i64>::zeros(N);
    g.bench_function("ndarray_into", |b| {
        b.iter(|| {
            ndarray::Zip::from(&mut nout)
                .and(black_box(&na))
                .and(black_box(&nb))
                .for_each(|o, x, y| *o = x & y)
        })
    });
    g.bench_function("ndarray_alloc", |b| {
        b.iter(|| black_box(&na) & black_box(&nb))
    });
    g.finish();
}

/// `f` of two separate arrays of 1e4 integers (in cache) into an existing
/// output: the builtin against a hand loop and ndarray's `Zip`.
fn int_case<T, F>(c: &mut Criterion, name: &str, builtin: &'static Builtin, f: F)
where
    T: dynd::nd::Element + Copy + Default + TryFrom<i64> + Send + Sync + 'static,
    F: Fn(T, T) -> T + Copy,
{
    const M: usize = 10_000;
    let mut g = c.benchmark_group(format!("ufuncs/{name}_1e4"));
    g.throughput(Throughput::Elements(M as u64));
    let of = |v: i64| T::try_from(v).unwrap_or_default();
    let xs: Vec<T> = (0..M as i64)
        .map(|i| of((i * 7919) % 20011 - 10000))
        .collect();
    let ys: Vec<T> = (0..M as i64)
        .map(|i| of((i * 104_729) % 30011 - 15000))
        .collect();
    let (a, b) = (Array::from_slice(&xs), Array::from_slice(&ys));
    let mut out = Array::from_slice(&[T::default(); M]);
    // On the calling thread (below the parallel threshold; a pool's
    // `install` would add its wake-up).
    g.bench_function("dynd_into", |bch| {
        bch.iter(|| {
            builtin
                .callable()
                .call_into(&mut out, &[black_box(&a), black_box(&b)])
                .unwrap()
        })
    });
    let mut hand = [T::default(); M];
    g.bench_function("hand_into", |bch| {
        bch.iter(|| {
            for ((o, &x), &y) in hand.iter_mut().zip(black_box(&xs)).zip(black_box(&ys)) {
                *o = f(x, y);
            }
        })
    });
    let (na, nb) = (Array1::from_vec(xs.clone()), Array1::from_vec(ys.clone()));
    let mut nout = Array1::<T>::from_elem(M, T::default());
    g.bench_function("ndarray_into", |bch| {
        bch.iter(|| {
            ndarray::Zip::from(&mut nout)
                .and(black_box(&na))
                .and(black_box(&nb))
                .for_each(|o, &x, &y| *o = f(x, y))
        })
    });
    g.finish();
}

fn ints_in_cache(c: &mut Criterion) {
    int_case(c, "multiply_i64", &MULTIPLY, |x: i64, y: i64| {
        x.wrapping_mul(y)
    });
    int_case(c, "maximum_i64", &MAXIMUM, |x: i64, y: i64| x.max(y));
    int_case(c, "add_i32", &ADD, |x: i32, y: i32| x.wrapping_add(y));
}

criterion_group!(benches, floor, isnan, less, bitwise_and, ints_in_cache);
criterion_main!(benches);
