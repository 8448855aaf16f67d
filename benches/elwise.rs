//! Elementwise benchmarks: dynd's `add` (the builtin callable) and the
//! same `add` made by `#[elemental]` against a hand-written loop (on one
//! thread, and on rayon's) and ndarray, in the same run.
//!
//! `cargo bench --bench elwise`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

mod common;

use std::hint::black_box;

use common::lengths;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dynd::func::builtins;
use dynd::nd::Array;
use ndarray::{Array1, Array2};

/// `add` made by the macro over the builtin's real and integer types (the
/// builtin's overload set, less the 128-bit, half and complex types).
#[dynd::elemental(T = [i8, i16, i32, i64, u8, u16, u32, u64, f32, f64])]
fn macro_add<T: Copy + std::ops::Add<Output = T>>(a: T, b: T) -> T {
    a + b
}

fn contiguous(c: &mut Criterion) {
    let add = builtins::get("add").unwrap();
    let mut g = c.benchmark_group("elwise/add_contiguous");
    for n in [1_000usize, 100_000, 10_000_000] {
        g.throughput(Throughput::Elements(n as u64));
        if n >= 10_000_000 {
            g.sample_size(20);
        }
        let xs: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let ys: Vec<f64> = (0..n).map(|i| (i * 2) as f64).collect();
        let (a, b) = (Array::from_vec(xs.clone()), Array::from_vec(ys.clone()));
        let mut out = Array::from_vec(vec![0.0f64; n]);
        g.bench_function(BenchmarkId::new("dynd_into", n), |bch| {
            bch.iter(|| {
                add.call_into(&mut out, &[black_box(&a), black_box(&b)])
                    .unwrap()
            })
        });
        g.bench_function(BenchmarkId::new("dynd_alloc", n), |bch| {
            bch.iter(|| add.call(&[black_box(&a), black_box(&b)]).unwrap())
        });
        let madd = macro_add::callable();
        g.bench_function(BenchmarkId::new("macro_into", n), |bch| {
            bch.iter(|| {
                madd.call_into(&mut out, &[black_box(&a), black_box(&b)])
                    .unwrap()
            })
        });
        g.bench_function(BenchmarkId::new("macro_alloc", n), |bch| {
            bch.iter(|| madd.call(&[black_box(&a), black_box(&b)]).unwrap())
        });
        // The arguments and the output in the library's own blocks (huge
        // pages where the system has them, as NumPy's own arrays are).
        let (oa, ob) = (Array::from_slice(&xs), Array::from_slice(&ys));
        let mut oout = Array::from_slice(&vec![0.0f64; n]);
        g.bench_function(BenchmarkId::new("dynd_into_own_blocks", n), |bch| {
            bch.iter(|| {
                add.call_into(&mut oout, &[black_box(&oa), black_box(&ob)])
                    .unwrap()
            })
        });
        let mut hand = vec![0.0f64; n];
        g.bench_function(BenchmarkId::new("hand_loop", n), |bch| {
            bch.iter(|| {
                for ((o, x), y) in hand.iter_mut().zip(black_box(&xs)).zip(black_box(&ys)) {
                    *o = x + y;
                }
            })
        });
        // The same loop on rayon's threads (as many as the machine has),
        // into an existing output and into a fresh one: what dynd's
        // parallel path is measured against.
        let mut par_hand = vec![0.0f64; n];
        g.bench_function(BenchmarkId::new("hand_rayon_into", n), |bch| {
            use rayon::prelude::*;
            bch.iter(|| {
                par_hand
                    .par_iter_mut()
                    .with_min_len(4096)
                    .zip(black_box(&xs).par_iter())
                    .zip(black_box(&ys).par_iter())
                    .for_each(|((o, x), y)| *o = x + y)
            })
        });
        g.bench_function(BenchmarkId::new("hand_rayon_alloc", n), |bch| {
            use rayon::prelude::*;
            bch.iter(|| {
                black_box(&xs)
                    .par_iter()
                    .with_min_len(4096)
                    .zip(black_box(&ys).par_iter())
                    .map(|(x, y)| x + y)
                    .collect::<Vec<f64>>()
            })
        });
        let (na, nb) = (Array1::from_vec(xs.clone()), Array1::from_vec(ys.clone()));
        let mut nout = Array1::<f64>::zeros(n);
        g.bench_function(BenchmarkId::new("ndarray_into", n), |bch| {
            bch.iter(|| {
                ndarray::Zip::from(&mut nout)
                    .and(black_box(&na))
                    .and(black_box(&nb))
                    .for_each(|o, x, y| *o = x + y)
            })
        });
        g.bench_function(BenchmarkId::new("ndarray_alloc", n), |bch| {
            bch.iter(|| black_box(&na) + black_box(&nb))
        });
    }
    g.finish();
}

fn broadcast(c: &mut Criterion) {
    const M: usize = 1000;
    let add = builtins::get("add").unwrap();
    let mut g = c.benchmark_group("elwise/add_broadcast_1000x1000");
    g.throughput(Throughput::Elements((M * M) as u64));
    let data: Vec<f64> = (0..M * M).map(|i| i as f64).collect();
    let row: Vec<f64> = (0..M).map(|i| i as f64).collect();
    let m = Array::from_shape_vec(&[M, M], data.clone()).unwrap();
    let r = Array::from_vec(row.clone());
    let col = Array::from_shape_vec(&[M, 1], row.clone()).unwrap();
    let mut out = Array::from_shape_vec(&[M, M], vec![0.0; M * M]).unwrap();
    g.bench_function("dynd_row", |b| {
        b.iter(|| add.call_into(&mut out, &[&m, &r]).unwrap())
    });
    g.bench_function("dynd_column", |b| {
        b.iter(|| add.call_into(&mut out, &[&m, &col]).unwrap())
    });
    let mut hand = vec![0.0; M * M];
    g.bench_function("hand_row", |b| {
        b.iter(|| {
            for i in 0..M {
                for j in 0..M {
                    hand[i * M + j] = data[i * M + j] + row[j];
                }
            }
        })
    });
    g.bench_function("hand_column", |b| {
        b.iter(|| {
            for i in 0..M {
                let c = row[i];
                for j in 0..M {
                    hand[i * M + j] = data[i * M + j] + c;
                }
            }
        })
    });
    let nm = Array2::from_shape_vec((M, M), data.clone()).unwrap();
    let nr = Array1::from_vec(row.clone());
    let nc = Array2::from_shape_vec((M, 1), row.clone()).unwrap();
    let mut nout = Array2::<f64>::zeros((M, M));
    g.bench_function("ndarray_row", |b| {
        b.iter(|| {
            ndarray::Zip::from(&mut nout)
                .and(&nm)
                .and_broadcast(&nr)
                .for_each(|o, x, y| *o = x + y)
        })
    });
    g.bench_function("ndarray_column", |b| {
        b.iter(|| {
            ndarray::Zip::from(&mut nout)
                .and(&nm)
                .and_broadcast(&nc)
                .for_each(|o, x, y| *o = x + y)
        })
    });
    // The result allocated, as users most often call it.
    g.bench_function("dynd_row_alloc", |b| {
        b.iter(|| add.call(&[black_box(&m), black_box(&r)]).unwrap())
    });
    g.bench_function("hand_row_alloc", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(M * M);
            for i in 0..M {
                out.extend(
                    data[i * M..(i + 1) * M]
                        .iter()
                        .zip(&row)
                        .map(|(x, y)| x + y),
                );
            }
            out
        })
    });
    g.bench_function("ndarray_row_alloc", |b| {
        b.iter(|| black_box(&nm) + black_box(&nr))
    });
    g.finish();
}

fn transposed(c: &mut Criterion) {
    const M: usize = 2000;
    let add = builtins::get("add").unwrap();
    let mut g = c.benchmark_group("elwise/add_2000x2000");
    g.throughput(Throughput::Elements((M * M) as u64));
    g.sample_size(20);
    let data: Vec<f64> = (0..M * M).map(|i| i as f64).collect();
    let a = Array::from_shape_vec(&[M, M], data.clone()).unwrap();
    let t = a.transpose().unwrap();
    // The same values as `t`, laid out in C order: the all-C-order case
    // computes the same result from two distinct C-order operands.
    let tc = Array::from_shape_vec(
        &[M, M],
        (0..M * M).map(|k| data[(k % M) * M + k / M]).collect(),
    )
    .unwrap();
    let mut out = Array::from_shape_vec(&[M, M], vec![0.0; M * M]).unwrap();
    g.bench_function("dynd_c_order", |b| {
        b.iter(|| add.call_into(&mut out, &[&a, &tc]).unwrap())
    });
    g.bench_function("dynd_transposed", |b| {
        b.iter(|| add.call_into(&mut out, &[&a, &t]).unwrap())
    });
    let madd = macro_add::callable();
    g.bench_function("macro_transposed", |b| {
        b.iter(|| madd.call_into(&mut out, &[&a, &t]).unwrap())
    });
    // The hand-written reference: 32 x 32 tiles, serial.
    let mut hout = vec![0.0f64; M * M];
    g.bench_function("hand_tiled_transposed", |b| {
        b.iter(|| {
            const T: usize = 32;
            for ib in (0..M).step_by(T) {
                for jb in (0..M).step_by(T) {
                    for i in ib..(ib + T).min(M) {
                        for j in jb..(jb + T).min(M) {
                            hout[i * M + j] = data[i * M + j] + data[j * M + i];
                        }
                    }
                }
            }
            black_box(&hout);
        })
    });
    let na = Array2::from_shape_vec((M, M), data.clone()).unwrap();
    let mut nout = Array2::<f64>::zeros((M, M));
    g.bench_function("ndarray_transposed", |b| {
        b.iter(|| {
            ndarray::Zip::from(&mut nout)
                .and(&na)
                .and(&na.t())
                .for_each(|o, x, y| *o = x + y)
        })
    });
    g.finish();
}

fn ragged(c: &mut Criterion) {
    const ROWS: usize = 1_000_000;
    let add = builtins::get("add").unwrap();
    let lens = lengths(ROWS);
    let total: usize = lens.iter().sum();
    let mut g = c.benchmark_group("elwise/add_ragged_1e6_rows");
    g.throughput(Throughput::Elements(total as u64));
    g.sample_size(10);
    let rows: Vec<Vec<f64>> = lens
        .iter()
        .map(|&n| (0..n).map(|j| j as f64).collect())
        .collect();
    let a = Array::from_nested(rows.clone()).unwrap();
    let per_row = Array::from_shape_vec(&[ROWS, 1], (0..ROWS).map(|i| i as f64).collect()).unwrap();
    let flat_a = Array::from_vec(rows.concat());
    g.bench_function("dynd_ragged_plus_ragged", |b| {
        b.iter(|| add.call(&[&a, &a]).unwrap())
    });
    let madd = macro_add::callable();
    g.bench_function("macro_ragged_plus_ragged", |b| {
        b.iter(|| madd.call(&[&a, &a]).unwrap())
    });
    // Into an existing ragged result: the write first checks that the
    // result's rows do not overlap (one pass over its row pairs).
    let b2 = Array::from_nested(
        rows.iter()
            .map(|r| r.iter().map(|x| x * 0.5).collect::<Vec<f64>>())
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let mut out = add.call(&[&a, &b2]).unwrap();
    g.bench_function("dynd_ragged_plus_ragged_into", |b| {
        b.iter(|| add.call_into(&mut out, &[&a, &b2]).unwrap())
    });
    g.bench_function("dynd_ragged_plus_row_scalar", |b| {
        b.iter(|| add.call(&[&a, &per_row]).unwrap())
    });
    g.bench_function("dynd_same_values_flat", |b| {
        b.iter(|| add.call(&[&flat_a, &flat_a]).unwrap())
    });
    g.bench_function("hand_loop_rows", |b| {
        b.iter(|| {
            rows.iter()
                .map(|r| r.iter().map(|x| x + x).collect::<Vec<f64>>())
                .collect::<Vec<_>>()
        })
    });
    g.finish();
}

fn small_calls(c: &mut Criterion) {
    let add = builtins::get("add").unwrap();
    let mut g = c.benchmark_group("elwise/small_call");
    for n in [1usize, 16] {
        let a = Array::from_vec(vec![1.0f64; n]);
        let b = Array::from_vec(vec![2.0f64; n]);
        g.bench_function(BenchmarkId::new("dynd_alloc", n), |bch| {
            bch.iter(|| add.call(&[black_box(&a), black_box(&b)]).unwrap())
        });
        let madd = macro_add::callable();
        g.bench_function(BenchmarkId::new("macro_alloc", n), |bch| {
            bch.iter(|| madd.call(&[black_box(&a), black_box(&b)]).unwrap())
        });
        g.bench_function(BenchmarkId::new("macro_call_fn", n), |bch| {
            bch.iter(|| macro_add::call(black_box(&a), black_box(&b)).unwrap())
        });
        let na = Array1::from_vec(vec![1.0f64; n]);
        let nb = Array1::from_vec(vec![2.0f64; n]);
        g.bench_function(BenchmarkId::new("ndarray_alloc", n), |bch| {
            bch.iter(|| black_box(&na) + black_box(&nb))
        });
    }
    g.finish();
}

fn transcendental(c: &mut Criterion) {
    const N: usize = 1_000_000;
    let mut g = c.benchmark_group("elwise/unary_1e6");
    g.throughput(Throughput::Elements(N as u64));
    let xs: Vec<f64> = (0..N).map(|i| i as f64 * 1e-6).collect();
    let a = Array::from_vec(xs.clone());
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    for name in ["sin", "exp"] {
        let f = builtins::get(name).unwrap();
        g.bench_function(BenchmarkId::new("dynd_serial", name), |b| {
            b.iter(|| one_thread.install(|| f.call(&[&a]).unwrap()))
        });
        g.bench_function(BenchmarkId::new("dynd_parallel", name), |b| {
            b.iter(|| f.call(&[&a]).unwrap())
        });
    }
    g.bench_function(BenchmarkId::new("hand_loop", "sin"), |b| {
        b.iter(|| xs.iter().map(|x| x.sin()).collect::<Vec<_>>())
    });
    g.bench_function(BenchmarkId::new("hand_loop", "exp"), |b| {
        b.iter(|| xs.iter().map(|x| x.exp()).collect::<Vec<_>>())
    });
    g.finish();
}

criterion_group!(
    benches,
    contiguous,
    broadcast,
    transposed,
    ragged,
    small_calls,
    transcendental
);
criterion_main!(benches);
