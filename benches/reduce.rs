//! Reduction benchmarks: dynd's `sum` (the builtin callable), `add.reduce`,
//! `sorted` and `take` against hand-written loops and ndarray, in the same run;
//! `sum` and `max` of 1e5 (in cache) over `float64` and `int64`, where the
//! fold's instruction set shows.
//!
//! `cargo bench --bench reduce`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dynd::func::builtins;
use dynd::nd::Array;
use ndarray::{Array1, Array2, Axis};

/// The hand-written reference for a total sum: eight accumulators.
fn sum8(xs: &[f64]) -> f64 {
    let mut acc = [0.0f64; 8];
    let mut chunks = xs.chunks_exact(8);
    for c in &mut chunks {
        for k in 0..8 {
            acc[k] += c[k];
        }
    }
    let tail: f64 = chunks.remainder().iter().sum();
    acc.iter().sum::<f64>() + tail
}

fn total(c: &mut Criterion) {
    const N: usize = 10_000_000;
    let sum = builtins::get("sum").unwrap();
    let xs: Vec<f64> = (0..N).map(|i| (i % 1000) as f64 * 0.001).collect();
    let a = Array::from_vec(xs.clone());
    let na = Array1::from_vec(xs.clone());
    let mut g = c.benchmark_group("reduce/sum_1e7");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(30);
    g.bench_function("dynd", |b| b.iter(|| sum.call(&[black_box(&a)]).unwrap()));
    let serial = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    g.bench_function("dynd_serial", |b| {
        b.iter(|| serial.install(|| sum.call(&[black_box(&a)]).unwrap()))
    });
    // The same values copied into the library's own block (huge pages
    // where the system has them, as NumPy's own arrays are): the other
    // rows read the caller's `Vec`.
    let own = Array::from_slice(&xs);
    g.bench_function("dynd_serial_own_block", |b| {
        b.iter(|| serial.install(|| sum.call(&[black_box(&own)]).unwrap()))
    });
    g.bench_function("hand_8_accumulators", |b| b.iter(|| sum8(black_box(&xs))));
    g.bench_function("ndarray", |b| b.iter(|| black_box(&na).sum()));
    // Two passes: the mean, then the squared deviations.
    let std = builtins::get("std").unwrap();
    g.bench_function("dynd_std", |b| {
        b.iter(|| std.call(&[black_box(&a)]).unwrap())
    });
    g.bench_function("dynd_std_serial", |b| {
        b.iter(|| serial.install(|| std.call(&[black_box(&a)]).unwrap()))
    });
    g.bench_function("hand_std_two_pass", |b| {
        b.iter(|| {
            let xs = black_box(&xs);
            let mean = sum8(xs) / xs.len() as f64;
            let mut acc = [0.0f64; 8];
            for c in xs.chunks_exact(8) {
                for k in 0..8 {
                    let d = c[k] - mean;
                    acc[k] += d * d;
                }
            }
            (acc.iter().sum::<f64>() / xs.len() as f64).sqrt()
        })
    });
    g.bench_function("ndarray_std", |b| b.iter(|| black_box(&na).std(0.0)));
    // The generic reduction of any associative callable: elementwise
    // calls on strided views, level by level in cache-sized blocks.
    let add_reduce = builtins::get("add.reduce").unwrap();
    g.bench_function("dynd_add_reduce", |b| {
        b.iter(|| add_reduce.call(&[black_box(&a)]).unwrap())
    });
    g.bench_function("dynd_add_reduce_serial", |b| {
        b.iter(|| serial.install(|| add_reduce.call(&[black_box(&a)]).unwrap()))
    });
    g.finish();
}

fn axes(c: &mut Criterion) {
    const M: usize = 2000;
    let sum = builtins::get("sum").unwrap();
    let xs: Vec<f64> = (0..M * M).map(|i| (i % 997) as f64 * 0.5).collect();
    let a = Array::from_shape_vec(&[M, M], xs.clone()).unwrap();
    let na = Array2::from_shape_vec((M, M), xs.clone()).unwrap();
    let axis0 = Array::from_scalar(0i64);
    let axis1 = Array::from_scalar(1i64);
    let mut g = c.benchmark_group("reduce/sum_2000x2000");
    g.throughput(Throughput::Elements((M * M) as u64));
    g.sample_size(30);
    g.bench_function("dynd_axis0", |b| {
        b.iter(|| sum.call_kw(&[black_box(&a)], &[("axis", &axis0)]).unwrap())
    });
    let std = builtins::get("std").unwrap();
    g.bench_function("dynd_std_axis0", |b| {
        b.iter(|| std.call_kw(&[black_box(&a)], &[("axis", &axis0)]).unwrap())
    });
    g.bench_function("dynd_std_axis1", |b| {
        b.iter(|| std.call_kw(&[black_box(&a)], &[("axis", &axis1)]).unwrap())
    });
    g.bench_function("ndarray_std_axis0", |b| {
        b.iter(|| black_box(&na).std_axis(ndarray::Axis(0), 0.0))
    });
    g.bench_function("hand_axis0", |b| {
        b.iter(|| {
            let mut out = vec![0.0f64; M];
            for row in black_box(&xs).chunks_exact(M) {
                for (o, x) in out.iter_mut().zip(row) {
                    *o += x;
                }
            }
            out
        })
    });
    g.bench_function("ndarray_axis0", |b| {
        b.iter(|| black_box(&na).sum_axis(Axis(0)))
    });
    g.bench_function("dynd_axis1", |b| {
        b.iter(|| sum.call_kw(&[black_box(&a)], &[("axis", &axis1)]).unwrap())
    });
    g.bench_function("hand_axis1", |b| {
        b.iter(|| {
            black_box(&xs)
                .chunks_exact(M)
                .map(sum8)
                .collect::<Vec<f64>>()
        })
    });
    g.bench_function("ndarray_axis1", |b| {
        b.iter(|| black_box(&na).sum_axis(Axis(1)))
    });
    g.finish();
}

/// `n` rows of 0 to 20 values (xorshift lengths, the same every run).
fn ragged_rows(n: usize) -> Vec<Vec<f64>> {
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (0..(s % 21) as usize).map(|j| j as f64).collect()
        })
        .collect()
}

fn ragged(c: &mut Criterion) {
    const ROWS: usize = 1_000_000;
    let sum = builtins::get("sum").unwrap();
    let rows = ragged_rows(ROWS);
    let total: usize = rows.iter().map(Vec::len).sum();
    let a = Array::from_nested(rows.clone()).unwrap();
    let axis1 = Array::from_scalar(1i64);
    let mut g = c.benchmark_group("reduce/sum_ragged_1e6_rows");
    g.throughput(Throughput::Elements(total as u64));
    g.sample_size(20);
    g.bench_function("dynd_ragged_axis", |b| {
        b.iter(|| sum.call_kw(&[black_box(&a)], &[("axis", &axis1)]).unwrap())
    });
    g.bench_function("hand_rows", |b| {
        b.iter(|| {
            black_box(&rows)
                .iter()
                .map(|r| r.iter().sum::<f64>())
                .collect::<Vec<f64>>()
        })
    });
    // Across the rows: position by position, as long as the longest row.
    let axis0 = Array::from_scalar(0i64);
    g.bench_function("dynd_across_rows", |b| {
        b.iter(|| sum.call_kw(&[black_box(&a)], &[("axis", &axis0)]).unwrap())
    });
    g.bench_function("hand_across_rows", |b| {
        b.iter(|| {
            let mut out: Vec<f64> = Vec::new();
            for r in black_box(&rows) {
                if out.len() < r.len() {
                    out.resize(r.len(), 0.0);
                }
                for (o, x) in out.iter_mut().zip(r) {
                    *o += x;
                }
            }
            out
        })
    });
    g.finish();
}

fn take(c: &mut Criterion) {
    const N: usize = 1_000_000;
    let take = builtins::get("take").unwrap();
    let xs: Vec<f64> = (0..N).map(|i| i as f64).collect();
    let mut s: u64 = 0x1234_5678_9abc_def1;
    let idx: Vec<i64> = (0..N)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s % N as u64) as i64
        })
        .collect();
    let uidx: Vec<usize> = idx.iter().map(|&i| i as usize).collect();
    let a = Array::from_vec(xs.clone());
    let ai = Array::from_vec(idx.clone());
    let na = Array1::from_vec(xs.clone());
    let mut g = c.benchmark_group("reduce/take_1e6_random");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(20);
    g.bench_function("dynd_take", |b| {
        b.iter(|| take.call(&[black_box(&a), black_box(&ai)]).unwrap())
    });
    g.bench_function("hand_gather", |b| {
        b.iter(|| {
            black_box(&uidx)
                .iter()
                .map(|&i| xs[i])
                .collect::<Vec<f64>>()
        })
    });
    g.bench_function("ndarray_select", |b| {
        b.iter(|| black_box(&na).select(Axis(0), black_box(&uidx)))
    });
    g.finish();
}

fn sort(c: &mut Criterion) {
    const N: usize = 1_000_000;
    let sorted = builtins::get("sorted").unwrap();
    let mut s: u64 = 0x2545_f491_4f6c_dd1d;
    let xs: Vec<f64> = (0..N)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect();
    let a = Array::from_vec(xs.clone());
    let mut g = c.benchmark_group("reduce/sort_1e6_f64");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(20);
    g.bench_function("dynd_sorted", |b| {
        b.iter(|| sorted.call(&[black_box(&a)]).unwrap())
    });
    g.bench_function("hand_sort_by", |b| {
        b.iter(|| {
            let mut v = black_box(&xs).clone();
            v.sort_by(|x, y| x.total_cmp(y));
            v
        })
    });
    g.finish();
}

/// Scans per ragged row: the builtin `cumsum` (one sequential pass)
/// beside `add.accumulate` (log2 of the longest row in whole-array calls)
/// and a hand loop; and over one flat row of 1e6.
fn scan(c: &mut Criterion) {
    const ROWS: usize = 100_000;
    let cumsum = builtins::get("cumsum").unwrap();
    let accumulate = builtins::get("add.accumulate").unwrap();
    let rows = ragged_rows(ROWS);
    let total: usize = rows.iter().map(Vec::len).sum();
    let a = Array::from_nested(rows.clone()).unwrap();
    let axis1 = Array::from_scalar(1i64);
    let mut g = c.benchmark_group("reduce/scan_ragged_1e5_rows");
    g.throughput(Throughput::Elements(total as u64));
    g.sample_size(20);
    g.bench_function("dynd_cumsum", |b| {
        b.iter(|| {
            cumsum
                .call_kw(&[black_box(&a)], &[("axis", &axis1)])
                .unwrap()
        })
    });
    g.bench_function("dynd_add_accumulate", |b| {
        b.iter(|| {
            accumulate
                .call_kw(&[black_box(&a)], &[("axis", &axis1)])
                .unwrap()
        })
    });
    g.bench_function("hand_rows", |b| {
        b.iter(|| {
            let mut out: Vec<f64> = Vec::with_capacity(total);
            for r in black_box(&rows) {
                let mut acc = 0.0;
                out.extend(r.iter().map(|x| {
                    acc += x;
                    acc
                }));
            }
            out
        })
    });
    g.finish();
    const N: usize = 1_000_000;
    let xs: Vec<f64> = (0..N).map(|i| (i % 7) as f64).collect();
    let flat = Array::from_vec(xs.clone());
    let na = ndarray::Array1::from_vec(xs.clone());
    let mut g = c.benchmark_group("reduce/scan_1e6");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(20);
    g.bench_function("dynd_cumsum", |b| {
        b.iter(|| cumsum.call(&[black_box(&flat)]).unwrap())
    });
    g.bench_function("dynd_add_accumulate", |b| {
        b.iter(|| accumulate.call(&[black_box(&flat)]).unwrap())
    });
    g.bench_function("ndarray_accumulate_axis_inplace", |b| {
        b.iter(|| {
            let mut v = black_box(&na).clone();
            v.accumulate_axis_inplace(ndarray::Axis(0), |&prev, cur| *cur += prev);
            v
        })
    });
    g.bench_function("hand", |b| {
        b.iter(|| {
            let mut acc = 0.0;
            black_box(&xs)
                .iter()
                .map(|x| {
                    acc += x;
                    acc
                })
                .collect::<Vec<f64>>()
        })
    });
    g.finish();
}

/// `sum` and `max` of 1e5 elements (in cache), on the calling thread
/// (below the parallel threshold; a pool's `install` would add its
/// wake-up): the builtin against a hand loop (eight accumulators for the
/// float sum, as the builtin's tree has; iterator folds otherwise) and
/// ndarray.
fn in_cache(c: &mut Criterion) {
    const M: usize = 100_000;
    let floats: Vec<f64> = (0..M).map(|i| ((i * 7919) % 20011) as f64 * 0.37).collect();
    let ints: Vec<i64> = (0..M as i64).map(|i| (i * 7919) % 20011 - 10000).collect();
    for f in ["sum", "max"] {
        let callable = builtins::get(f).unwrap();
        let mut g = c.benchmark_group(format!("reduce/{f}_1e5"));
        g.throughput(Throughput::Elements(M as u64));
        let (a, ai) = (Array::from_slice(&floats), Array::from_slice(&ints));
        g.bench_function("dynd_f64", |b| {
            b.iter(|| callable.call(&[black_box(&a)]).unwrap())
        });
        g.bench_function("dynd_i64", |b| {
            b.iter(|| callable.call(&[black_box(&ai)]).unwrap())
        });
        let (na, nai) = (
            Array1::from_vec(floats.clone()),
            Array1::from_vec(ints.clone()),
        );
        if f == "sum" {
            g.bench_function("hand_f64", |b| b.iter(|| sum8(black_box(&floats))));
            g.bench_function("hand_i64", |b| {
                b.iter(|| {
                    black_box(&ints)
                        .iter()
                        .fold(0i64, |s, &x| s.wrapping_add(x))
                })
            });
            g.bench_function("ndarray_f64", |b| b.iter(|| black_box(&na).sum()));
            g.bench_function("ndarray_i64", |b| b.iter(|| black_box(&nai).sum()));
        } else {
            g.bench_function("hand_f64", |b| {
                b.iter(|| {
                    black_box(&floats)
                        .iter()
                        .fold(f64::NEG_INFINITY, |m, &x| m.max(x))
                })
            });
            g.bench_function("hand_i64", |b| b.iter(|| black_box(&ints).iter().max()));
            g.bench_function("ndarray_i64", |b| {
                b.iter(|| black_box(&nai).fold(i64::MIN, |m, &x| m.max(x)))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, total, axes, ragged, sort, take, scan, in_cache);
criterion_main!(benches);
