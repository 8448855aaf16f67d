//! The typed API against the callables it wraps, in the same run: a
//! reduction method against `builtins::get(..).call_kw`, and an operator
//! expression's `eval` against the same calls made by hand, on small
//! (where any overhead shows) and large arrays.
//!
//! `cargo bench --bench typed`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion};
use dynd::prelude::*;

fn typed(c: &mut Criterion) {
    let sum = builtins::get("sum").unwrap();
    let (add, mul) = (
        builtins::get("add").unwrap(),
        builtins::get("multiply").unwrap(),
    );
    let axis = Array::from_scalar(1i64);
    for n in [16usize, 1 << 20] {
        let v = |k: f64| {
            Array::from_shape_vec(&[n / 16, 16], (0..n).map(|i| i as f64 * k).collect()).unwrap()
        };
        let (a, b, cc) = (v(1.0), v(0.5), v(0.25));
        let mut g = c.benchmark_group(format!("typed/{n}"));
        g.bench_function("sum_axis_method", |bch| {
            bch.iter(|| black_box(&a).sum_axis(1).unwrap())
        });
        g.bench_function("sum_axis_call_kw", |bch| {
            bch.iter(|| sum.call_kw(&[black_box(&a)], &[("axis", &axis)]).unwrap())
        });
        g.bench_function("expr_a_times_b_plus_c_eval", |bch| {
            bch.iter(|| (black_box(&a) * &b + &cc).eval().unwrap())
        });
        g.bench_function("two_calls_by_hand", |bch| {
            bch.iter(|| {
                let t = mul.call(&[black_box(&a), &b]).unwrap();
                add.call(&[&t, &cc]).unwrap()
            })
        });
        g.finish();
    }
}

criterion_group!(benches, typed);
criterion_main!(benches);
