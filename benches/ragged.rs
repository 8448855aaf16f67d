//! Ragged (`var`) benchmarks: 1e6 rows of 0..=20 f64 values from a seeded
//! generator (about 1e7 values), the same rows everywhere, against
//! hand-written loops and ndarray (over the flat values) in the same run.
//!
//! Each dynd case runs on one thread (`_1t`, a one-thread rayon pool) and
//! on the default pool (`_2t` on this machine's two cores).
//!
//! `cargo bench --bench ragged`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

mod common;

use std::hint::black_box;

use common::{lengths, pools};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dynd::func::builtins;
use dynd::nd::{Array, Index};

const ROWS: usize = 1_000_000;

/// A user's function: the ragged cases run the leaf's own loop (no
/// builtin `float64` loop), as every `#[elemental]` function does.
#[dynd::elemental]
fn user_add(a: f64, b: f64) -> f64 {
    a + b
}

/// Rows of the given lengths; `seed` varies the values.
fn rows(lens: &[usize], seed: f64) -> Vec<Vec<f64>> {
    lens.iter()
        .enumerate()
        .map(|(i, &n)| (0..n).map(|j| seed + (i % 7) as f64 + j as f64).collect())
        .collect()
}

/// The same rows as one values vector and Arrow-style offsets.
fn flatten(rows: &[Vec<f64>]) -> (Vec<f64>, Vec<usize>) {
    let mut offsets = Vec::with_capacity(rows.len() + 1);
    offsets.push(0);
    let mut values = Vec::new();
    for r in rows {
        values.extend_from_slice(r);
        offsets.push(values.len());
    }
    (values, offsets)
}

fn elementwise(c: &mut Criterion) {
    let add = builtins::get("add").unwrap();
    let lens = lengths(ROWS);
    let (xr, yr) = (rows(&lens, 0.0), rows(&lens, 0.5));
    let total: usize = lens.iter().sum();
    let (xv, offsets) = flatten(&xr);
    let (yv, _) = flatten(&yr);
    // Two separate arrays whose rows have the same lengths.
    let x = Array::from_nested(xr.clone()).unwrap();
    let y = Array::from_nested(yr.clone()).unwrap();
    let per_row = Array::from_shape_vec(&[ROWS, 1], (0..ROWS).map(|i| i as f64).collect()).unwrap();
    let (fx, fy) = (Array::from_vec(xv.clone()), Array::from_vec(yv.clone()));
    // Rows that broadcast: every fourth non-empty row of `z` has length 1.
    let zr: Vec<Vec<f64>> = yr
        .iter()
        .enumerate()
        .map(|(i, r)| {
            if i % 4 == 0 && !r.is_empty() {
                vec![r[0]]
            } else {
                r.clone()
            }
        })
        .collect();
    let z = Array::from_nested(zr).unwrap();
    // A view with a negative step over each row.
    let reversed = y
        .index(&[Index::slice(None, None, 1), Index::slice(None, None, -1)])
        .unwrap();
    let mut g = c.benchmark_group("ragged/add_1e6_rows");
    g.throughput(Throughput::Elements(total as u64));
    g.sample_size(20);
    for (name, pool) in pools() {
        g.bench_function(format!("dynd_x_plus_y_{name}"), |b| {
            b.iter(|| pool.install(|| add.call(&[black_box(&x), black_box(&y)]).unwrap()))
        });
        g.bench_function(format!("dynd_x_plus_x_{name}"), |b| {
            b.iter(|| pool.install(|| add.call(&[black_box(&x), black_box(&x)]).unwrap()))
        });
        g.bench_function(format!("dynd_row_scalar_plus_x_{name}"), |b| {
            b.iter(|| pool.install(|| add.call(&[black_box(&per_row), black_box(&x)]).unwrap()))
        });
        g.bench_function(format!("dynd_x_plus_rows_of_one_{name}"), |b| {
            b.iter(|| pool.install(|| add.call(&[black_box(&x), black_box(&z)]).unwrap()))
        });
        g.bench_function(format!("dynd_x_plus_reversed_rows_{name}"), |b| {
            b.iter(|| pool.install(|| add.call(&[black_box(&x), black_box(&reversed)]).unwrap()))
        });
        g.bench_function(format!("dynd_flat_x_plus_y_{name}"), |b| {
            b.iter(|| pool.install(|| add.call(&[black_box(&fx), black_box(&fy)]).unwrap()))
        });
    }
    let user = user_add::callable();
    let (_, one) = pools().into_iter().next().unwrap();
    for (case, p, q) in [
        ("x_plus_y", &x, &y),
        ("row_scalar_plus_x", &per_row, &x),
        ("x_plus_rows_of_one", &x, &z),
        ("x_plus_reversed_rows", &x, &reversed),
    ] {
        g.bench_function(format!("user_fn_{case}_1t"), |b| {
            b.iter(|| one.install(|| user.call(&[black_box(p), black_box(q)]).unwrap()))
        });
    }
    g.bench_function("hand_flat", |b| {
        b.iter(|| {
            black_box(&xv)
                .iter()
                .zip(black_box(&yv))
                .map(|(a, b)| a + b)
                .collect::<Vec<f64>>()
        })
    });
    // Into a buffer allocated once: the loop without the page faults a
    // fresh 76 MB vector takes (dynd reuses freed blocks).
    let mut out = vec![0.0; total];
    g.bench_function("hand_flat_into", |b| {
        b.iter(|| {
            for ((o, a), b) in out.iter_mut().zip(black_box(&xv)).zip(black_box(&yv)) {
                *o = a + b;
            }
        })
    });
    g.bench_function("hand_rows", |b| {
        b.iter(|| {
            black_box(&xr)
                .iter()
                .zip(black_box(&yr))
                .map(|(a, b)| a.iter().zip(b).map(|(p, q)| p + q).collect::<Vec<f64>>())
                .collect::<Vec<_>>()
        })
    });
    let per: Vec<f64> = (0..ROWS).map(|i| i as f64).collect();
    g.bench_function("hand_row_scalar_offsets", |b| {
        b.iter(|| {
            let mut out = Vec::with_capacity(total);
            for (r, w) in black_box(&offsets).windows(2).enumerate() {
                let s = per[r];
                out.extend(xv[w[0]..w[1]].iter().map(|v| s + v));
            }
            out
        })
    });
    let mut out = vec![0.0; total];
    g.bench_function("hand_row_scalar_into", |b| {
        b.iter(|| {
            for (r, w) in black_box(&offsets).windows(2).enumerate() {
                let s = per[r];
                for (o, v) in out[w[0]..w[1]].iter_mut().zip(&xv[w[0]..w[1]]) {
                    *o = s + v;
                }
            }
        })
    });
    let (nx, ny) = (
        ndarray::Array1::from(xv.clone()),
        ndarray::Array1::from(yv.clone()),
    );
    g.bench_function("ndarray_flat", |b| {
        b.iter(|| black_box(&nx) + black_box(&ny))
    });
    g.finish();
}

fn reductions(c: &mut Criterion) {
    let lens = lengths(ROWS);
    let xr = rows(&lens, 0.0);
    let total: usize = lens.iter().sum();
    let (xv, offsets) = flatten(&xr);
    let x = Array::from_nested(xr.clone()).unwrap();
    let (axis0, axis1) = (Array::from_scalar(0i64), Array::from_scalar(1i64));
    let mut g = c.benchmark_group("ragged/reduce_1e6_rows");
    g.throughput(Throughput::Elements(total as u64));
    g.sample_size(20);
    for (name, pool) in pools() {
        // `max` of an empty row has no value: it starts from -inf.
        let low = Array::from_scalar(f64::NEG_INFINITY);
        for f in ["sum", "mean", "max", "std"] {
            let func = builtins::get(f).unwrap();
            let mut kw = vec![("axis", &axis1)];
            if f == "max" {
                kw.push(("initial", &low));
            }
            g.bench_function(format!("dynd_{f}_per_row_{name}"), |b| {
                b.iter(|| pool.install(|| func.call_kw(&[black_box(&x)], &kw).unwrap()))
            });
        }
        let std = builtins::get("std").unwrap();
        g.bench_function(format!("dynd_std_across_rows_{name}"), |b| {
            b.iter(|| pool.install(|| std.call_kw(&[black_box(&x)], &[("axis", &axis0)]).unwrap()))
        });
        let sum = builtins::get("sum").unwrap();
        g.bench_function(format!("dynd_sum_across_rows_{name}"), |b| {
            b.iter(|| pool.install(|| sum.call_kw(&[black_box(&x)], &[("axis", &axis0)]).unwrap()))
        });
    }
    g.bench_function("hand_sum_per_row_naive", |b| {
        b.iter(|| {
            black_box(&xr)
                .iter()
                .map(|r| r.iter().sum::<f64>())
                .collect::<Vec<f64>>()
        })
    });
    g.bench_function("hand_sum_per_row_offsets", |b| {
        b.iter(|| {
            black_box(&offsets)
                .windows(2)
                .map(|w| xv[w[0]..w[1]].iter().sum::<f64>())
                .collect::<Vec<f64>>()
        })
    });
    g.bench_function("hand_sum_across_rows", |b| {
        b.iter(|| {
            let mut out: Vec<f64> = Vec::new();
            for r in black_box(&xr) {
                if out.len() < r.len() {
                    out.resize(r.len(), 0.0);
                }
                for (o, v) in out.iter_mut().zip(r) {
                    *o += v;
                }
            }
            out
        })
    });
    g.finish();
}

criterion_group!(benches, elementwise, reductions);
criterion_main!(benches);
