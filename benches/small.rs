//! Small calls, where the fixed cost per call is all there is: a
//! 1-element `add` (allocating, and into an existing output), a 4×4
//! `sum_axis(1)`, and the expression `a*b + c*d - e` at 1,000 and 100 float64
//! (`eval` and `eval_into`) and int64, each beside `ndarray` or a hand-written
//! loop in the same run. One thread: the calls are far below the
//! parallel thresholds.
//!
//! `cargo bench --bench small`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use dynd::prelude::*;
use ndarray::{Array1, Array2, Axis, Zip};

fn add_one(c: &mut Criterion) {
    let add = builtins::get("add").unwrap();
    let (a, b) = (Array::from_vec(vec![1.5f64]), Array::from_vec(vec![2.5f64]));
    let mut out = Array::from_vec(vec![0.0f64]);
    let (na, nb) = (
        Array1::from_vec(vec![1.5f64]),
        Array1::from_vec(vec![2.5f64]),
    );
    let mut nout = Array1::from_vec(vec![0.0f64]);
    let (va, vb) = (vec![1.5f64], vec![2.5f64]);
    let mut vout = [0.0f64];
    let mut g = c.benchmark_group("small/add_1");
    g.bench_function("dynd_call", |bch| {
        bch.iter(|| add.call(&[black_box(&a), black_box(&b)]).unwrap())
    });
    let prepared = add.prepare(&[a.ty(), b.ty()]).unwrap();
    g.bench_function("dynd_prepared", |bch| {
        bch.iter(|| prepared.call(&[black_box(&a), black_box(&b)]).unwrap())
    });
    g.bench_function("dynd_operator", |bch| {
        bch.iter(|| (black_box(&a) + black_box(&b)).eval().unwrap())
    });
    g.bench_function("ndarray", |bch| {
        bch.iter(|| black_box(&na) + black_box(&nb))
    });
    g.bench_function("hand_vec", |bch| {
        bch.iter(|| {
            black_box(&va)
                .iter()
                .zip(black_box(&vb))
                .map(|(x, y)| x + y)
                .collect::<Vec<f64>>()
        })
    });
    g.bench_function("dynd_call_into", |bch| {
        bch.iter(|| {
            add.call_into(&mut out, &[black_box(&a), black_box(&b)])
                .unwrap()
        })
    });
    g.bench_function("dynd_prepared_into", |bch| {
        bch.iter(|| {
            prepared
                .call_into(&mut out, &[black_box(&a), black_box(&b)])
                .unwrap()
        })
    });
    g.bench_function("ndarray_zip_into", |bch| {
        bch.iter(|| {
            Zip::from(&mut nout)
                .and(black_box(&na))
                .and(black_box(&nb))
                .for_each(|o, x, y| *o = x + y)
        })
    });
    g.bench_function("hand_into", |bch| {
        bch.iter(|| {
            for ((o, x), y) in vout.iter_mut().zip(black_box(&va)).zip(black_box(&vb)) {
                *o = x + y;
            }
        })
    });
    g.finish();
}

fn sum_4x4(c: &mut Criterion) {
    let xs: Vec<f64> = (0..16).map(|i| i as f64 * 0.5).collect();
    let a = Array::from_shape_vec(&[4, 4], xs.clone()).unwrap();
    let n = Array2::from_shape_vec((4, 4), xs.clone()).unwrap();
    let mut g = c.benchmark_group("small/sum_axis1_4x4");
    g.bench_function("dynd", |bch| {
        bch.iter(|| black_box(&a).sum_axis(1).unwrap())
    });
    g.bench_function("ndarray", |bch| {
        bch.iter(|| black_box(&n).sum_axis(Axis(1)))
    });
    g.bench_function("hand", |bch| {
        bch.iter(|| {
            black_box(&xs)
                .chunks_exact(4)
                .map(|r| r.iter().sum::<f64>())
                .collect::<Vec<f64>>()
        })
    });
    g.finish();
}

/// `a*b + c*d - e` over `n` float64 each, evaluated allocating and into an
/// output, beside ndarray's operators and a hand-written fused loop.
fn expr_f64(c: &mut Criterion, n: usize) {
    let v = |k: f64| (0..n).map(|i| i as f64 * k + 1.0).collect::<Vec<f64>>();
    let (xa, xb, xc, xd, xe) = (v(1.0), v(0.5), v(0.25), v(2.0), v(3.0));
    let arr = |x: &Vec<f64>| Array::from_vec(x.clone());
    let (a, b, cc, d, e) = (arr(&xa), arr(&xb), arr(&xc), arr(&xd), arr(&xe));
    let nd = |x: &Vec<f64>| Array1::from_vec(x.clone());
    let (na, nb, nc, ndd, ne) = (nd(&xa), nd(&xb), nd(&xc), nd(&xd), nd(&xe));
    let mut out = Array::from_vec(vec![0.0f64; n]);
    let mut vout = vec![0.0f64; n];
    let mut g = c.benchmark_group(format!("small/expr_{n}"));
    // The expression is built in each iteration, as a user writes it.
    g.bench_function("dynd_eval", |bch| {
        bch.iter(|| (black_box(&a) * &b + &cc * &d - &e).eval().unwrap())
    });
    g.bench_function("dynd_eval_into", |bch| {
        bch.iter(|| {
            (black_box(&a) * &b + &cc * &d - &e)
                .eval_into(&mut out)
                .unwrap()
        })
    });
    g.bench_function("dynd_build_drop", |bch| {
        bch.iter(|| black_box(black_box(&a) * &b + &cc * &d - &e))
    });
    g.bench_function("ndarray_operators", |bch| {
        bch.iter(|| &(&(black_box(&na) * &nb) + &(&nc * &ndd)) - &ne)
    });
    g.bench_function("hand_fused", |bch| {
        bch.iter(|| {
            let (a, b, c, d, e) = (black_box(&xa), &xb, &xc, &xd, &xe);
            a.iter()
                .zip(b)
                .zip(c)
                .zip(d)
                .zip(e)
                .map(|((((a, b), c), d), e)| a * b + c * d - e)
                .collect::<Vec<f64>>()
        })
    });
    g.bench_function("hand_fused_into", |bch| {
        bch.iter(|| {
            let (a, b, c, d, e) = (black_box(&xa), &xb, &xc, &xd, &xe);
            let ins = a.iter().zip(b).zip(c).zip(d).zip(e);
            for (o, ((((a, b), c), d), e)) in vout.iter_mut().zip(ins) {
                *o = a * b + c * d - e;
            }
        })
    });
    g.finish();
}

fn expr_1000(c: &mut Criterion) {
    expr_f64(c, 1000);
}

fn expr_100(c: &mut Criterion) {
    expr_f64(c, 100);
}

/// The same expression over int64: the leaves' own loops in one pass
/// (`Dense`), beside the node-by-node evaluation and a hand loop.
fn expr_i64_1000(c: &mut Criterion) {
    const N: i64 = 1000;
    let v = |k: i64| (0..N).map(|i| i * k + 1).collect::<Vec<i64>>();
    let (xa, xb, xc, xd, xe) = (v(1), v(5), v(3), v(2), v(7));
    let arr = |x: &Vec<i64>| Array::from_vec(x.clone());
    let (a, b, cc, d, e) = (arr(&xa), arr(&xb), arr(&xc), arr(&xd), arr(&xe));
    let mut g = c.benchmark_group("small/expr_i64_1000");
    g.bench_function("dynd_eval", |bch| {
        bch.iter(|| (black_box(&a) * &b + &cc * &d - &e).eval().unwrap())
    });
    g.bench_function("dynd_stepwise", |bch| {
        bch.iter(|| {
            (black_box(&a) * &b + &cc * &d - &e)
                .eval_stepwise()
                .unwrap()
        })
    });
    g.bench_function("hand_fused", |bch| {
        bch.iter(|| {
            let (a, b, c, d, e) = (black_box(&xa), &xb, &xc, &xd, &xe);
            a.iter()
                .zip(b)
                .zip(c)
                .zip(d)
                .zip(e)
                .map(|((((a, b), c), d), e)| {
                    a.wrapping_mul(*b)
                        .wrapping_add(c.wrapping_mul(*d))
                        .wrapping_sub(*e)
                })
                .collect::<Vec<i64>>()
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    add_one,
    sum_4x4,
    expr_1000,
    expr_100,
    expr_i64_1000
);
criterion_main!(benches);
