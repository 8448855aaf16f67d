//! Arrow in and out (feature `arrow`): 1e6 list rows of 0..=20 f64 values
//! (the rows of the `ragged` bench), as an Arrow `ListArray`.
//!
//! The case users have: an Arrow list column in, a sum per row, an Arrow
//! column out, against the sum alone on a dynd array made beforehand, and
//! the conversions alone. Each on one thread and on the default pool.
//!
//! `cargo bench --features arrow --bench arrow`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

mod common;

use dynd::nd::ToArrow;
use std::hint::black_box;
use std::sync::Arc;

use common::{lengths, pools};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dynd::func::builtins;
use dynd::nd::arrow_interop::arrow_array::{Array as _, Float64Array, ListArray};
use dynd::nd::arrow_interop::arrow_buffer::{OffsetBuffer, ScalarBuffer};
use dynd::nd::arrow_interop::arrow_schema::{DataType, Field};
use dynd::nd::Array;

const ROWS: usize = 1_000_000;

fn list_column() -> ListArray {
    let lens = lengths(ROWS);
    let mut offsets = Vec::with_capacity(ROWS + 1);
    offsets.push(0i32);
    let mut values = Vec::new();
    for (i, &n) in lens.iter().enumerate() {
        values.extend((0..n).map(|j| (i % 7) as f64 + j as f64));
        offsets.push(values.len() as i32);
    }
    ListArray::new(
        Arc::new(Field::new("item", DataType::Float64, true)),
        OffsetBuffer::new(ScalarBuffer::from(offsets)),
        Arc::new(Float64Array::from_iter_values(values)),
        None,
    )
}

fn arrow(c: &mut Criterion) {
    let sum = builtins::get("sum").unwrap();
    let column = list_column();
    let axis = Array::from_scalar(1i64);
    let a = Array::from_arrow(&column).unwrap();
    let per_row = |a: &Array| sum.call_kw(&[a], &[("axis", &axis)]).unwrap();
    // The pipeline gives the sum's answer.
    let out = per_row(&Array::from_arrow(&column).unwrap())
        .to_arrow()
        .unwrap();
    assert_eq!(out.len(), ROWS);

    let mut g = c.benchmark_group("arrow/list_1e6_rows");
    g.throughput(Throughput::Elements(column.values().len() as u64));
    g.sample_size(30);
    for (name, pool) in pools() {
        g.bench_function(format!("sum_per_row_alone_{name}"), |b| {
            pool.install(|| b.iter(|| per_row(black_box(&a))))
        });
        g.bench_function(format!("arrow_in_sum_arrow_out_{name}"), |b| {
            pool.install(|| {
                b.iter(|| {
                    let a = Array::from_arrow(black_box(&column)).unwrap();
                    per_row(&a).to_arrow().unwrap()
                })
            })
        });
        g.bench_function(format!("arrow_in_alone_{name}"), |b| {
            pool.install(|| b.iter(|| Array::from_arrow(black_box(&column)).unwrap()))
        });
    }
    let result = per_row(&a);
    g.bench_function("arrow_out_of_result", |b| {
        b.iter(|| black_box(&result).to_arrow().unwrap())
    });
    g.bench_function("arrow_out_of_list", |b| {
        b.iter(|| black_box(&a).to_arrow().unwrap())
    });
    g.finish();
}

criterion_group!(benches, arrow);
criterion_main!(benches);
