//! Records, beside hand-written Rust in the same run, one thread:
//!
//! - `sum(field(x, "a"))` over an Arrow record batch of 8 float64 columns
//!   and 1e7 rows, the import included (`Array::from_record_batch`, O(1)
//!   in the rows: also timed alone at 1e3 and 1e7 rows), against the sum of
//!   the plain column and a hand loop over its `&[f64]`;
//! - `p.x * 2 + p.y` over 1e7 records held as columns, one fused pass,
//!   against a hand loop over the two columns;
//! - `sort` of 1e6 records `{k: int64, v: float64}` (k from 1000 values,
//!   so ties go to v), against a copy and `sort_unstable_by` of `(i64, f64)`
//!   tuples;
//! - an `#[elemental]` `dist(p: Point, q: Point)` over two separate arrays
//!   of 1e7 interleaved `#[repr(C)]` points, against a hand loop over the
//!   two `&[Point]`.
//!
//! `scripts/peers.py records` times Polars' `struct.field` and NumPy's
//! structured-array sort on the same cases.
//!
//! `cargo bench --bench records --features arrow`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dynd::nd::arrow_interop::arrow_array::{ArrayRef, Float64Array, RecordBatch};
use dynd::nd::expr::Expr;
use dynd::prelude::*;

/// `n` values in [0, 1) from a seeded xorshift (`scripts/peers.py`
/// makes the same).
fn values(n: usize, seed: u64) -> Vec<f64> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64 ^ seed.wrapping_mul(0x2545_f491_4f6c_dd1d);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

fn one_thread() -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
}

fn batch(n: usize) -> RecordBatch {
    let columns: Vec<(String, ArrayRef)> = (0..8)
        .map(|k| {
            let c: ArrayRef = Arc::new(Float64Array::from(values(n, k)));
            (((b'a' + k as u8) as char).to_string(), c)
        })
        .collect();
    RecordBatch::try_from_iter(columns).unwrap()
}

fn sum_field(c: &mut Criterion) {
    let pool = one_thread();
    let n = 10_000_000;
    let b = batch(n);
    let small = batch(1000);
    let plain = Array::from_arrow(b.column(0).as_ref()).unwrap();
    let slice: Vec<f64> = plain.to_vec().unwrap();
    let mut g = c.benchmark_group("records/sum_field_1e7");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(20);
    g.bench_function("dynd_import_field_sum", |bn| {
        pool.install(|| {
            bn.iter(|| {
                let r = Array::from_record_batch(black_box(&b)).unwrap();
                r.field("a").unwrap().sum().unwrap()
            })
        })
    });
    g.bench_function("dynd_plain_column_sum", |bn| {
        pool.install(|| bn.iter(|| black_box(&plain).sum().unwrap()))
    });
    g.bench_function("hand_8acc", |bn| {
        bn.iter(|| {
            let v = black_box(&slice);
            let mut acc = [0.0f64; 8];
            let chunks = v.chunks_exact(8);
            let tail: f64 = chunks.remainder().iter().sum();
            for x in chunks {
                for k in 0..8 {
                    acc[k] += x[k];
                }
            }
            acc.iter().sum::<f64>() + tail
        })
    });
    g.finish();
    let mut g = c.benchmark_group("records/import_8_columns");
    g.bench_function("rows_1e3", |bn| {
        bn.iter(|| Array::from_record_batch(black_box(&small)).unwrap())
    });
    g.bench_function("rows_1e7", |bn| {
        bn.iter(|| Array::from_record_batch(black_box(&b)).unwrap())
    });
    g.finish();
}

fn fused_fields(c: &mut Criterion) {
    let pool = one_thread();
    let n = 10_000_000;
    let (vx, vy) = (values(n, 11), values(n, 12));
    let p = Array::from_columns([
        ("x", Array::from_vec(vx.clone())),
        ("y", Array::from_vec(vy.clone())),
    ])
    .unwrap();
    let mut g = c.benchmark_group("records/px2_plus_py_1e7");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(20);
    g.bench_function("dynd_fused", |bn| {
        pool.install(|| {
            bn.iter(|| {
                let p = black_box(&p);
                let (x, y) = (p.field("x").unwrap(), p.field("y").unwrap());
                let e: Expr<'_> = &x * 2.0;
                black_box((e + &y).eval().unwrap());
            })
        })
    });
    g.bench_function("hand_collect", |bn| {
        bn.iter(|| {
            let (x, y) = (black_box(&vx), &vy);
            x.iter()
                .zip(y)
                .map(|(x, y)| x * 2.0 + y)
                .collect::<Vec<f64>>()
        })
    });
    // Into a result buffer kept from the last call (dynd keeps freed
    // large blocks for the next result, so its pages are mapped already;
    // a fresh `Vec` pays a page fault per 4 KiB).
    let mut out = vec![0.0f64; n];
    g.bench_function("hand_into_reused", |bn| {
        bn.iter(|| {
            let (x, y) = (black_box(&vx), &vy);
            for ((o, x), y) in out.iter_mut().zip(x).zip(y) {
                *o = x * 2.0 + y;
            }
            black_box(&out);
        })
    });
    g.finish();
}

fn sort_records(c: &mut Criterion) {
    let n = 1_000_000;
    let k: Vec<i64> = values(n, 21).iter().map(|x| (x * 1000.0) as i64).collect();
    let v = values(n, 22);
    let r = Array::from_columns([
        ("k", Array::from_vec(k.clone())),
        ("v", Array::from_vec(v.clone())),
    ])
    .unwrap();
    let tuples: Vec<(i64, f64)> = k.iter().copied().zip(v.iter().copied()).collect();
    let pool = one_thread();
    let mut g = c.benchmark_group("records/sort_1e6_two_fields");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(10);
    g.bench_function("dynd_sort", |bn| {
        pool.install(|| bn.iter(|| dynd::func::sort(black_box(&r), 0, true).unwrap()))
    });
    g.bench_function("hand_copy_sort_unstable_by", |bn| {
        bn.iter(|| {
            let mut t = black_box(&tuples).clone();
            t.sort_unstable_by(|a, b| a.0.cmp(&b.0).then(a.1.total_cmp(&b.1)));
            t
        })
    });
    g.finish();
}

#[derive(Record, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Point {
    x: f64,
    y: f64,
}

#[elemental]
fn dist(p: Point, q: Point) -> f64 {
    ((p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)).sqrt()
}

fn elemental_records(c: &mut Criterion) {
    let n = 10_000_000;
    let points = |s: u64| -> Vec<Point> {
        values(n, s)
            .chunks(2)
            .chain(values(n, s + 1).chunks(2))
            .take(n)
            .map(|w| Point {
                x: w[0],
                y: w[w.len() - 1],
            })
            .collect()
    };
    let (vp, vq) = (points(31), points(33));
    let (p, q) = (
        Array::from_records(vp.clone()).unwrap(),
        Array::from_records(vq.clone()).unwrap(),
    );
    let pool = one_thread();
    let mut g = c.benchmark_group("records/elemental_dist_1e7");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(20);
    g.bench_function("dynd_elemental", |bn| {
        pool.install(|| bn.iter(|| dist::call(black_box(&p), &q).unwrap()))
    });
    g.bench_function("hand_collect", |bn| {
        bn.iter(|| {
            black_box(&vp)
                .iter()
                .zip(&vq)
                .map(|(p, q)| dist(*p, *q))
                .collect::<Vec<f64>>()
        })
    });
    let mut out = vec![0.0f64; n];
    g.bench_function("hand_into_reused", |bn| {
        bn.iter(|| {
            for ((o, p), q) in out.iter_mut().zip(black_box(&vp)).zip(&vq) {
                *o = dist(*p, *q);
            }
            black_box(&out);
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    sum_field,
    fused_fields,
    sort_records,
    elemental_records
);
criterion_main!(benches);
