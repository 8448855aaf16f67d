//! Transcendental functions: dynd's builtins (vectorised `dynd::math`
//! loops, chosen at run time) against a hand loop over Rust's `f64::sin`
//! etc. (the platform libm), in the same run.
//!
//! Cases: `sin`, `cos`, `exp`, `log`, `tanh`, `pow` over 1e4 (in cache)
//! and 1e6 `float64`, on one and two threads; the same functions over
//! `float32`; the math loops in place (`dynd::math::Unary::map`, no
//! allocation); and the fused `sin(a)*exp(-b) + c` over 1e6.
//! `DYND_SIMD=portable` (or `avx2`) caps the instruction set.
//!
//! `cargo bench --bench math`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

mod common;

use std::hint::black_box;

use common::pools;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dynd::func::{builtins, Eval};
use dynd::math::{Binary, Unary};
use dynd::nd::expr::Expr;
use dynd::nd::Array;

/// `n` arguments in `[lo, hi)` from a seeded sequence.
fn values(n: usize, lo: f64, hi: f64, k: u64) -> Vec<f64> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64 ^ k;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            lo + (hi - lo) * ((s >> 11) as f64 / (1u64 << 53) as f64)
        })
        .collect()
}

/// A builtin's call on one array.
type Call = fn(&Array) -> Array;

/// The unary cases: (name, builtin, math function, libm, argument range).
type Case = (&'static str, Call, Unary, fn(f64) -> f64, (f64, f64));

fn cases() -> [Case; 5] {
    [
        (
            "sin",
            |a| builtins::SIN.call(&[a]).unwrap(),
            Unary::Sin,
            f64::sin,
            (-10.0, 10.0),
        ),
        (
            "cos",
            |a| builtins::COS.call(&[a]).unwrap(),
            Unary::Cos,
            f64::cos,
            (-10.0, 10.0),
        ),
        (
            "exp",
            |a| builtins::EXP.call(&[a]).unwrap(),
            Unary::Exp,
            f64::exp,
            (-20.0, 20.0),
        ),
        (
            "log",
            |a| builtins::LOG.call(&[a]).unwrap(),
            Unary::Log,
            f64::ln,
            (1e-3, 1e3),
        ),
        (
            "tanh",
            |a| builtins::TANH.call(&[a]).unwrap(),
            Unary::Tanh,
            f64::tanh,
            (-5.0, 5.0),
        ),
    ]
}

fn unary(c: &mut Criterion) {
    let [p1, p2] = pools();
    for (name, builtin, f, libm, (lo, hi)) in cases() {
        let mut g = c.benchmark_group(format!("math/{name}"));
        for n in [10_000usize, 1_000_000] {
            let v = values(n, lo, hi, 1);
            let a = Array::from_vec(v.clone());
            let v32: Vec<f32> = v.iter().map(|&x| x as f32).collect();
            let a32 = Array::from_vec(v32.clone());
            g.throughput(Throughput::Elements(n as u64));
            g.sample_size(if n >= 1_000_000 { 20 } else { 50 });
            g.bench_function(BenchmarkId::new("hand_libm", n), |b| {
                b.iter(|| black_box(&v).iter().map(|&x| libm(x)).collect::<Vec<f64>>())
            });
            let mut buf = v.clone();
            g.bench_function(BenchmarkId::new("math_in_place", n), |b| {
                b.iter(|| {
                    buf.copy_from_slice(&v);
                    f.map(black_box(&mut buf))
                })
            });
            for (t, pool) in [("1t", &p1.1), ("2t", &p2.1)] {
                g.bench_function(BenchmarkId::new(format!("dynd_{t}"), n), |b| {
                    pool.install(|| b.iter(|| builtin(black_box(&a))))
                });
            }
            g.bench_function(BenchmarkId::new("hand_libm_f32", n), |b| {
                b.iter(|| {
                    black_box(&v32)
                        .iter()
                        .map(|&x| libm(x as f64) as f32)
                        .collect::<Vec<f32>>()
                })
            });
            g.bench_function(BenchmarkId::new("dynd_f32_1t", n), |b| {
                p1.1.install(|| b.iter(|| builtin(black_box(&a32))))
            });
            if n >= 1_000_000 {
                // The arguments copied into the library's own blocks (huge
                // pages where the system has them, as NumPy's are).
                let (own, own32) = (Array::from_slice(&v), Array::from_slice(&v32));
                g.bench_function(BenchmarkId::new("dynd_1t_own_block", n), |b| {
                    p1.1.install(|| b.iter(|| builtin(black_box(&own))))
                });
                g.bench_function(BenchmarkId::new("dynd_f32_1t_own_block", n), |b| {
                    p1.1.install(|| b.iter(|| builtin(black_box(&own32))))
                });
            }
        }
        g.finish();
    }
}

fn pow(c: &mut Criterion) {
    let [p1, p2] = pools();
    let mut g = c.benchmark_group("math/pow");
    for n in [10_000usize, 1_000_000] {
        let x = values(n, 1e-3, 1e3, 2);
        let y = values(n, -10.0, 10.0, 3);
        let (a, b) = (Array::from_vec(x.clone()), Array::from_vec(y.clone()));
        g.throughput(Throughput::Elements(n as u64));
        g.sample_size(if n >= 1_000_000 { 20 } else { 50 });
        g.bench_function(BenchmarkId::new("hand_libm", n), |bn| {
            bn.iter(|| {
                black_box(&x)
                    .iter()
                    .zip(&y)
                    .map(|(&x, &y)| x.powf(y))
                    .collect::<Vec<f64>>()
            })
        });
        let mut buf = x.clone();
        g.bench_function(BenchmarkId::new("math_in_place", n), |bn| {
            bn.iter(|| {
                buf.copy_from_slice(&x);
                Binary::Pow.map(black_box(&mut buf), &y)
            })
        });
        for (t, pool) in [("1t", &p1.1), ("2t", &p2.1)] {
            g.bench_function(BenchmarkId::new(format!("dynd_{t}"), n), |bn| {
                pool.install(|| bn.iter(|| builtins::POWER.call(&[black_box(&a), &b]).unwrap()))
            });
        }
        let (a32, b32) = (
            Array::from_vec(x.iter().map(|&v| v as f32).collect::<Vec<f32>>()),
            Array::from_vec(y.iter().map(|&v| v as f32).collect::<Vec<f32>>()),
        );
        g.bench_function(BenchmarkId::new("dynd_f32_1t", n), |bn| {
            p1.1.install(|| bn.iter(|| builtins::POWER.call(&[black_box(&a32), &b32]).unwrap()))
        });
        if n >= 1_000_000 {
            let (oa, ob) = (Array::from_slice(&x), Array::from_slice(&y));
            g.bench_function(BenchmarkId::new("dynd_1t_own_blocks", n), |bn| {
                p1.1.install(|| bn.iter(|| builtins::POWER.call(&[black_box(&oa), &ob]).unwrap()))
            });
        }
    }
    g.finish();
}

fn fused(c: &mut Criterion) {
    let [p1, p2] = pools();
    let mut g = c.benchmark_group("math/sin_a_exp_b_plus_c");
    let n = 1_000_000;
    let (x, y, z) = (
        values(n, -10.0, 10.0, 4),
        values(n, -5.0, 5.0, 5),
        values(n, -1.0, 1.0, 6),
    );
    let (a, b, cc) = (
        Array::from_vec(x.clone()),
        Array::from_vec(y.clone()),
        Array::from_vec(z.clone()),
    );
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(20);
    g.bench_function(BenchmarkId::new("hand_libm", n), |bn| {
        bn.iter(|| {
            black_box(&x)
                .iter()
                .zip(&y)
                .zip(&z)
                .map(|((&x, &y), &z)| x.sin() * (-y).exp() + z)
                .collect::<Vec<f64>>()
        })
    });
    for (t, pool) in [("1t", &p1.1), ("2t", &p2.1)] {
        g.bench_function(BenchmarkId::new(format!("dynd_fused_{t}"), n), |bn| {
            pool.install(|| {
                bn.iter(|| {
                    let e = builtins::SIN.expr([black_box(&a)])
                        * builtins::EXP.expr([-Expr::from(&b)])
                        + &cc;
                    e.eval().unwrap()
                })
            })
        });
    }
    g.finish();
}

criterion_group!(benches, unary, pow, fused);
criterion_main!(benches);
