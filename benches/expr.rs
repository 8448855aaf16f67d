//! Expressions: whole trees fused into one pass against the same calls
//! made one by one (each materialising its result), a hand-fused loop,
//! and ndarray's operators, in the same run.
//!
//! Cases: `a*b + c*d - e` and `sqrt(x*x + y*y)` at 1e3, 1e5 and 1e7
//! elements; the shared subexpression `(a*b + 1) * (a*b + 2)`; `sum(a*b)`;
//! and a ragged `(x - m) / s` with a mean and scale per row over 1e6 rows
//! of 0..=20 values. dynd runs on one thread (`_1t`) and on the default
//! pool (`_2t` on this machine's two cores).
//!
//! `cargo bench --bench expr`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

mod common;

use std::hint::black_box;

use common::{lengths, pools};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dynd::func::{builtins, ArrayExt, AxisOptions, Eval};
use dynd::nd::expr::Expr;
use dynd::nd::{zip, Array};
use rayon::prelude::*;

/// `n` values from a seeded sequence; `k` varies them.
fn values(n: usize, k: u64) -> Vec<f64> {
    (0..n as u64)
        .map(|i| ((i * (2 * k + 7) + k) % 1000) as f64 / 250.0 - 2.0)
        .collect()
}

fn abcde(c: &mut Criterion) {
    let mut g = c.benchmark_group("expr/abcde");
    for n in [1_000usize, 100_000, 10_000_000] {
        let v: Vec<Vec<f64>> = (0..5).map(|k| values(n, k)).collect();
        let arrays: Vec<Array> = v.iter().map(|x| Array::from_vec(x.clone())).collect();
        let nd: Vec<ndarray::Array1<f64>> =
            v.iter().map(|x| ndarray::Array1::from(x.clone())).collect();
        let [a, b, cc, d, e] = [&arrays[0], &arrays[1], &arrays[2], &arrays[3], &arrays[4]];
        g.throughput(Throughput::Elements(n as u64));
        g.sample_size(if n >= 10_000_000 { 10 } else { 30 });
        for (name, pool) in pools() {
            g.bench_function(BenchmarkId::new(format!("dynd_fused_{name}"), n), |bn| {
                pool.install(|| bn.iter(|| (black_box(a) * b + cc * d - e).eval().unwrap()))
            });
            g.bench_function(BenchmarkId::new(format!("dynd_calls_{name}"), n), |bn| {
                pool.install(|| {
                    bn.iter(|| (black_box(a) * b + cc * d - e).eval_stepwise().unwrap())
                })
            });
            // Into an existing result: the loop alone, no fresh pages.
            let mut out = Array::from_vec(vec![0.0f64; n]);
            g.bench_function(
                BenchmarkId::new(format!("dynd_fused_into_{name}"), n),
                |bn| {
                    pool.install(|| {
                        bn.iter(|| (black_box(a) * b + cc * d - e).eval_into(&mut out).unwrap())
                    })
                },
            );
            // A hand-written loop on the engine.
            let mut out = Array::from_vec(vec![0.0f64; n]);
            g.bench_function(BenchmarkId::new(format!("dynd_zip_into_{name}"), n), |bn| {
                pool.install(|| {
                    bn.iter(|| {
                        zip((black_box(a), b, cc, d, e, &mut out))
                            .par_for_each(
                                |(a, b, c, d, e, o): (&f64, &f64, &f64, &f64, &f64, &mut f64)| {
                                    *o = a * b + c * d - e
                                },
                            )
                            .unwrap()
                    })
                })
            });
        }
        let (va, vb, vc, vd, ve) = (&v[0][..], &v[1][..n], &v[2][..n], &v[3][..n], &v[4][..n]);
        g.bench_function(BenchmarkId::new("hand_1t", n), |bn| {
            bn.iter(|| {
                let va = &black_box(va)[..n];
                (0..n)
                    .map(|i| va[i] * vb[i] + vc[i] * vd[i] - ve[i])
                    .collect::<Vec<f64>>()
            })
        });
        let mut out = vec![0.0f64; n];
        g.bench_function(BenchmarkId::new("hand_into_1t", n), |bn| {
            bn.iter(|| {
                let va = &black_box(va)[..n];
                for (i, o) in out.iter_mut().enumerate() {
                    *o = va[i] * vb[i] + vc[i] * vd[i] - ve[i];
                }
            })
        });
        let two = &pools()[1].1;
        g.bench_function(BenchmarkId::new("hand_into_2t", n), |bn| {
            two.install(|| {
                bn.iter(|| {
                    out.par_chunks_mut(1 << 16).enumerate().for_each(|(k, o)| {
                        let at = k << 16;
                        for (j, x) in o.iter_mut().enumerate() {
                            let i = at + j;
                            *x = va[i] * vb[i] + vc[i] * vd[i] - ve[i];
                        }
                    })
                })
            })
        });
        g.bench_function(BenchmarkId::new("ndarray", n), |bn| {
            bn.iter(|| black_box(&nd[0]) * &nd[1] + &nd[2] * &nd[3] - &nd[4])
        });
    }
    g.finish();
}

fn hypot(c: &mut Criterion) {
    let sqrt = builtins::get("sqrt").unwrap();
    let mut g = c.benchmark_group("expr/hypot");
    for n in [1_000usize, 100_000, 10_000_000] {
        let (vx, vy) = (values(n, 1), values(n, 2));
        let (x, y) = (Array::from_vec(vx.clone()), Array::from_vec(vy.clone()));
        let (nx, ny) = (
            ndarray::Array1::from(vx.clone()),
            ndarray::Array1::from(vy.clone()),
        );
        g.throughput(Throughput::Elements(n as u64));
        g.sample_size(if n >= 10_000_000 { 10 } else { 30 });
        let expr = |x: &Array, y: &Array| -> Array {
            sqrt.expr([black_box(x) * x + y * y]).eval().unwrap()
        };
        for (name, pool) in pools() {
            g.bench_function(BenchmarkId::new(format!("dynd_fused_{name}"), n), |bn| {
                pool.install(|| bn.iter(|| expr(&x, &y)))
            });
            g.bench_function(BenchmarkId::new(format!("dynd_calls_{name}"), n), |bn| {
                pool.install(|| {
                    bn.iter(|| {
                        sqrt.expr([black_box(&x) * &x + &y * &y])
                            .eval_stepwise()
                            .unwrap()
                    })
                })
            });
        }
        g.bench_function(BenchmarkId::new("hand_1t", n), |bn| {
            bn.iter(|| {
                let (vx, vy) = (&black_box(&vx)[..n], &vy[..n]);
                (0..n)
                    .map(|i| (vx[i] * vx[i] + vy[i] * vy[i]).sqrt())
                    .collect::<Vec<f64>>()
            })
        });
        g.bench_function(BenchmarkId::new("ndarray", n), |bn| {
            bn.iter(|| (black_box(&nx) * &nx + &ny * &ny).mapv_into(f64::sqrt))
        });
    }
    g.finish();
}

fn shared(c: &mut Criterion) {
    let n = 100_000;
    let (va, vb) = (values(n, 1), values(n, 2));
    let (a, b) = (Array::from_vec(va.clone()), Array::from_vec(vb.clone()));
    let mut g = c.benchmark_group("expr/cse_1e5");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(30);
    let one = &pools()[0].1;
    g.bench_function("dynd_fused_1t", |bn| {
        one.install(|| {
            bn.iter(|| {
                let ab: Expr<'_> = black_box(&a) * &b;
                ((&ab + 1.0) * (&ab + 2.0)).eval().unwrap()
            })
        })
    });
    g.bench_function("dynd_calls_1t", |bn| {
        one.install(|| {
            bn.iter(|| {
                let ab: Expr<'_> = black_box(&a) * &b;
                ((&ab + 1.0) * (&ab + 2.0)).eval_stepwise().unwrap()
            })
        })
    });
    g.bench_function("hand_1t", |bn| {
        bn.iter(|| {
            let (va, vb) = (&black_box(&va)[..n], &vb[..n]);
            (0..n)
                .map(|i| {
                    let ab = va[i] * vb[i];
                    (ab + 1.0) * (ab + 2.0)
                })
                .collect::<Vec<f64>>()
        })
    });
    g.finish();
}

fn sum_of_product(c: &mut Criterion) {
    let n = 10_000_000;
    let (va, vb) = (values(n, 1), values(n, 2));
    let (a, b) = (Array::from_vec(va.clone()), Array::from_vec(vb.clone()));
    let mut g = c.benchmark_group("expr/sum_ab_1e7");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(10);
    for (name, pool) in pools() {
        g.bench_function(format!("dynd_fused_sum_{name}"), |bn| {
            pool.install(|| bn.iter(|| (black_box(&a) * &b).sum().unwrap()))
        });
        g.bench_function(format!("dynd_eval_then_sum_{name}"), |bn| {
            pool.install(|| bn.iter(|| (black_box(&a) * &b).eval().unwrap().sum().unwrap()))
        });
    }
    g.bench_function("hand_8acc_1t", |bn| {
        bn.iter(|| {
            let (va, vb) = (&black_box(&va)[..n], &vb[..n]);
            let mut acc = [0.0f64; 8];
            let (ca, cb) = (va.chunks_exact(8), vb.chunks_exact(8));
            let tail: f64 = ca
                .remainder()
                .iter()
                .zip(cb.remainder())
                .map(|(x, y)| x * y)
                .sum();
            for (x, y) in ca.zip(cb) {
                for k in 0..8 {
                    acc[k] += x[k] * y[k];
                }
            }
            acc.iter().sum::<f64>() + tail
        })
    });
    g.finish();
}

fn ragged(c: &mut Criterion) {
    let rows = 1_000_000;
    let lens = lengths(rows);
    let total: usize = lens.iter().sum();
    let mut offsets = vec![0usize];
    for l in &lens {
        offsets.push(offsets.last().unwrap() + l);
    }
    let vx = values(total, 3);
    let (vm, vs) = (
        values(rows, 4),
        values(rows, 5)
            .iter()
            .map(|s| s + 3.0)
            .collect::<Vec<f64>>(),
    );
    let x = Array::from_offsets(vx.clone(), &offsets).unwrap();
    let m = Array::from_shape_vec(&[rows, 1], vm.clone()).unwrap();
    let s = Array::from_shape_vec(&[rows, 1], vs.clone()).unwrap();
    let mut g = c.benchmark_group("expr/ragged_standardise_1e6_rows");
    g.throughput(Throughput::Elements(total as u64));
    g.sample_size(10);
    for (name, pool) in pools() {
        g.bench_function(format!("dynd_fused_{name}"), |bn| {
            pool.install(|| bn.iter(|| ((black_box(&x) - &m) / &s).eval().unwrap()))
        });
        g.bench_function(format!("dynd_calls_{name}"), |bn| {
            pool.install(|| bn.iter(|| ((black_box(&x) - &m) / &s).eval_stepwise().unwrap()))
        });
    }
    // Reduced per row without the standardised values.
    let mean = builtins::get("mean").unwrap();
    let by_row = AxisOptions::new().axis(1);
    for (name, pool) in pools() {
        g.bench_function(format!("dynd_fused_row_mean_{name}"), |bn| {
            pool.install(|| bn.iter(|| ((black_box(&x) - &m) / &s).reduce(&mean, &by_row).unwrap()))
        });
        g.bench_function(format!("dynd_eval_then_row_mean_{name}"), |bn| {
            pool.install(|| {
                bn.iter(|| {
                    let v = ((black_box(&x) - &m) / &s).eval().unwrap();
                    mean.reduce_with(&v, &by_row).unwrap()
                })
            })
        });
    }
    g.bench_function("hand_row_mean_1t", |bn| {
        bn.iter(|| {
            let vx = black_box(&vx);
            (0..rows)
                .map(|r| {
                    let (mr, sr) = (vm[r], vs[r]);
                    let row = &vx[offsets[r]..offsets[r + 1]];
                    row.iter().map(|v| (v - mr) / sr).sum::<f64>() / row.len() as f64
                })
                .collect::<Vec<f64>>()
        })
    });
    g.bench_function("hand_per_row_1t", |bn| {
        bn.iter(|| {
            let vx = black_box(&vx);
            let mut out = Vec::with_capacity(total);
            for r in 0..rows {
                let (mr, sr) = (vm[r], vs[r]);
                out.extend(vx[offsets[r]..offsets[r + 1]].iter().map(|v| (v - mr) / sr));
            }
            (out, offsets.clone())
        })
    });
    g.finish();
}

criterion_group!(benches, abcde, hypot, shared, sum_of_product, ragged);
criterion_main!(benches);
