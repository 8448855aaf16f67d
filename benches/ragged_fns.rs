//! The ragged operations per row: 1e6 rows of 0..=20 seeded `float64`
//! values (the ragged benches' row lengths, ~1e7 values, random values
//! rather than sorted ones), each beside a hand-written loop over the
//! offsets in the same run, dynd on one thread (`_1t`) and two (`_2t`).
//!
//! `cargo bench --bench ragged_fns`; `scripts/peers.py ragged_fns` times
//! Awkward Array and Polars on the same rows.

#![allow(missing_docs)] // criterion_group! generates undocumented fns

mod common;

use std::hint::black_box;

use common::{lengths, pools};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dynd::func::{argmax, concatenate, filter, flatten, pad, softmax, sort, take_along_axis};
use dynd::nd::Array;

const ROWS: usize = 1_000_000;

/// Seeded values in [-1, 1) and the offsets of rows of `lens`.
fn data(lens: &[usize], seed: u64) -> (Vec<f64>, Vec<i64>) {
    let mut s = seed | 1;
    let mut offsets = vec![0i64];
    let mut values = Vec::new();
    for &n in lens {
        for _ in 0..n {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            values.push((s >> 11) as f64 / (1u64 << 52) as f64 - 1.0);
        }
        offsets.push(values.len() as i64);
    }
    (values, offsets)
}

/// Row `i` of `values`.
fn row<'a>(v: &'a [f64], o: &[i64], i: usize) -> &'a [f64] {
    &v[o[i] as usize..o[i + 1] as usize]
}

fn hand_argmax(v: &[f64], o: &[i64]) -> Vec<i64> {
    (0..o.len() - 1)
        .map(|i| {
            let r = row(v, o, i);
            let mut best = -1i64;
            let mut m = f64::NEG_INFINITY;
            for (k, &x) in r.iter().enumerate() {
                if best < 0 || x > m {
                    m = x;
                    best = k as i64;
                }
            }
            best
        })
        .collect()
}

fn hand_sort(v: &[f64], o: &[i64]) -> Vec<f64> {
    let mut out = v.to_vec();
    for i in 0..o.len() - 1 {
        out[o[i] as usize..o[i + 1] as usize].sort_unstable_by(f64::total_cmp);
    }
    out
}

fn hand_softmax(v: &[f64], o: &[i64]) -> Vec<f64> {
    let mut out = vec![0.0; v.len()];
    for i in 0..o.len() - 1 {
        let r = row(v, o, i);
        let dst = &mut out[o[i] as usize..o[i + 1] as usize];
        let m = r.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
        let mut sum = 0.0;
        for (d, &x) in dst.iter_mut().zip(r) {
            *d = (x - m).exp();
            sum += *d;
        }
        let inv = 1.0 / sum;
        dst.iter_mut().for_each(|d| *d *= inv);
    }
    out
}

fn hand_pad(v: &[f64], o: &[i64], n: usize) -> Vec<f64> {
    let mut out = vec![0.0; (o.len() - 1) * n];
    for (i, dst) in out.chunks_exact_mut(n).enumerate() {
        let r = row(v, o, i);
        let k = r.len().min(n);
        dst[..k].copy_from_slice(&r[..k]);
    }
    out
}

fn hand_flatten(v: &[f64], o: &[i64]) -> Vec<f64> {
    let mut out = Vec::with_capacity(v.len());
    for i in 0..o.len() - 1 {
        out.extend_from_slice(row(v, o, i));
    }
    out
}

fn hand_filter(v: &[f64], o: &[i64], keep: &[bool]) -> (Vec<f64>, Vec<i64>) {
    let mut out = Vec::with_capacity(v.len());
    let mut offsets = Vec::with_capacity(o.len());
    offsets.push(0);
    for i in 0..o.len() - 1 {
        let (s, e) = (o[i] as usize, o[i + 1] as usize);
        for (&x, &k) in v[s..e].iter().zip(&keep[s..e]) {
            if k {
                out.push(x);
            }
        }
        offsets.push(out.len() as i64);
    }
    (out, offsets)
}

fn hand_concat(a: &[f64], b: &[f64], o: &[i64], p: &[i64]) -> (Vec<f64>, Vec<i64>) {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let mut offsets = Vec::with_capacity(o.len());
    offsets.push(0);
    for i in 0..o.len() - 1 {
        out.extend_from_slice(row(a, o, i));
        out.extend_from_slice(row(b, p, i));
        offsets.push(out.len() as i64);
    }
    (out, offsets)
}

fn hand_take(v: &[f64], o: &[i64], idx: &[i64]) -> Vec<Option<f64>> {
    idx.iter()
        .enumerate()
        .map(|(i, &k)| (k >= 0).then(|| v[(o[i] + k) as usize]))
        .collect()
}

fn per_row(c: &mut Criterion) {
    let lens = lengths(ROWS);
    let (v, o) = data(&lens, 0x2545_f491_4f6c_dd1d);
    let (w, p) = data(&lens, 0x9e37_79b9_7f4a_7c15);
    let x = Array::from_offsets(v.clone(), &o).unwrap();
    let y = Array::from_offsets(w.clone(), &p).unwrap();
    let keep: Vec<bool> = v.iter().map(|&x| x > 0.0).collect();
    let mask = Array::from_offsets(keep.clone(), &o).unwrap();
    let best = argmax(&x, Some(-1), true).unwrap();
    let best_hand = hand_argmax(&v, &o);
    let zero = Array::from_scalar(0.0);
    let mut g = c.benchmark_group("ragged_fns/1e6_rows");
    g.throughput(Throughput::Elements(v.len() as u64));
    g.sample_size(15);
    g.bench_function("argmax_hand", |b| b.iter(|| hand_argmax(black_box(&v), &o)));
    g.bench_function("sort_hand", |b| b.iter(|| hand_sort(black_box(&v), &o)));
    g.bench_function("softmax_hand", |b| {
        b.iter(|| hand_softmax(black_box(&v), &o))
    });
    g.bench_function("pad20_hand", |b| b.iter(|| hand_pad(black_box(&v), &o, 20)));
    g.bench_function("flatten_hand", |b| {
        b.iter(|| hand_flatten(black_box(&v), &o))
    });
    g.bench_function("filter_hand", |b| {
        b.iter(|| hand_filter(black_box(&v), &o, &keep))
    });
    g.bench_function("concatenate1_hand", |b| {
        b.iter(|| hand_concat(black_box(&v), black_box(&w), &o, &p))
    });
    g.bench_function("take_argmax_hand", |b| {
        b.iter(|| hand_take(black_box(&v), &o, &best_hand))
    });
    // Without a pool: `flatten` of packed rows is a view, cheaper than
    // handing a job to a thread.
    g.bench_function("flatten_dynd_view", |b| {
        b.iter(|| flatten(black_box(&x), Some(1)).unwrap())
    });
    for (name, pool) in pools() {
        let run = |f: &(dyn Fn() -> Array + Sync)| pool.install(f);
        g.bench_function(format!("argmax_dynd_{name}"), |b| {
            b.iter(|| run(&|| argmax(black_box(&x), Some(-1), false).unwrap()))
        });
        g.bench_function(format!("sort_dynd_{name}"), |b| {
            b.iter(|| run(&|| sort(black_box(&x), -1, true).unwrap()))
        });
        g.bench_function(format!("softmax_dynd_{name}"), |b| {
            b.iter(|| run(&|| softmax(black_box(&x), -1).unwrap()))
        });
        g.bench_function(format!("pad20_dynd_{name}"), |b| {
            b.iter(|| run(&|| pad(black_box(&x), 20, true, Some(&zero)).unwrap()))
        });
        g.bench_function(format!("flatten_dynd_{name}"), |b| {
            b.iter(|| run(&|| flatten(black_box(&x), Some(1)).unwrap()))
        });
        g.bench_function(format!("filter_dynd_{name}"), |b| {
            b.iter(|| run(&|| filter(black_box(&x), &mask).unwrap()))
        });
        g.bench_function(format!("concatenate1_dynd_{name}"), |b| {
            b.iter(|| run(&|| concatenate(&[black_box(&x), black_box(&y)], 1).unwrap()))
        });
        g.bench_function(format!("take_argmax_dynd_{name}"), |b| {
            b.iter(|| run(&|| take_along_axis(black_box(&x), &best, -1).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(benches, per_row);
criterion_main!(benches);
