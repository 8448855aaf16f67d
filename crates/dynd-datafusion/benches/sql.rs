//! dynd functions inside DataFusion against DataFusion's own, over
//! generated tables: `hypot(x, y)` vs `sqrt(x * x + y * y)` (1e7 rows), the
//! per-row mean of a `List<Float64>` column (1e6 rows, 0–19 values each)
//! vs `array_avg`, the list functions (`argmax`, `sort`, `unique`, `pad`,
//! `concatenate`, `softmax` per row) vs DataFusion's nearest
//! (`array_position(d, array_max(d))`, `array_sort`, `array_distinct`,
//! `array_resize`, `array_concat`, an `unnest` + window rewrite), and grouped `kahan_sum`/`dynd_std` vs `sum`/`stddev_pop`
//! (1e7 rows, 1000 groups), and `array_agg` per group (the groups as
//! lists). Each on 1 and 2 partitions (threads).
//!
//! Each query runs as `dynd-sql` runs it: as a task on the runtime
//! (`tokio::spawn`), so that its partitions hand their batches to a task on
//! the runtime's own threads. Two rows per thread count run from the
//! caller's thread instead (`rt.block_on(collect)`, the stream polled
//! outside the runtime): there every batch of a 2-partition query wakes a
//! thread the workers share the cores with, and `scan/x_from_caller`
//! (no function at all) shows what that hand-off costs on its own.
#![allow(missing_docs)] // criterion_group! generates undocumented fns

use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use datafusion::arrow::array::{ArrayRef, Float64Array, Int64Array, ListArray, RecordBatch};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::datasource::MemTable;
use datafusion::prelude::{SessionConfig, SessionContext};
use dynd::elemental;

#[path = "../examples/support/lcg.rs"]
mod lcg;
use lcg::Lcg;

#[elemental]
fn hypot(x: f64, y: f64) -> f64 {
    (x * x + y * y).sqrt()
}

const BATCH: usize = 8192;

/// `n` rows in batches of 8192, spread over `partitions`.
fn partitioned(batches: Vec<RecordBatch>, partitions: usize) -> Vec<Vec<RecordBatch>> {
    let mut parts = vec![Vec::new(); partitions];
    for (i, b) in batches.into_iter().enumerate() {
        parts[i % partitions].push(b);
    }
    parts
}

fn points(n: usize) -> Vec<RecordBatch> {
    let mut g = Lcg(7);
    (0..n)
        .step_by(BATCH)
        .map(|start| {
            let m = BATCH.min(n - start);
            let x: Vec<f64> = (0..m).map(|_| g.unit() * 2.0 - 1.0).collect();
            let y: Vec<f64> = (0..m).map(|_| g.unit() * 2.0 - 1.0).collect();
            let k: Vec<i64> = (0..m).map(|_| (g.next() % 1000) as i64).collect();
            RecordBatch::try_from_iter([
                ("x", Arc::new(Float64Array::from(x)) as ArrayRef),
                ("y", Arc::new(Float64Array::from(y))),
                ("k", Arc::new(Int64Array::from(k))),
            ])
            .expect("equal lengths")
        })
        .collect()
}

fn sessions(rows: usize) -> Vec<RecordBatch> {
    let mut g = Lcg(11);
    (0..rows)
        .step_by(BATCH)
        .map(|start| {
            let m = BATCH.min(rows - start);
            let lengths: Vec<usize> = (0..m).map(|_| (g.next() % 20) as usize).collect();
            let total: usize = lengths.iter().sum();
            let values: Vec<f64> = (0..total).map(|_| g.unit() * 100.0).collect();
            let list = ListArray::new(
                Arc::new(Field::new("item", DataType::Float64, true)),
                OffsetBuffer::from_lengths(lengths),
                Arc::new(Float64Array::from(values)),
                None,
            );
            RecordBatch::try_from_iter([("d", Arc::new(list) as ArrayRef)]).expect("one column")
        })
        .collect()
}

fn context(threads: usize, tables: &[(&str, &[RecordBatch])]) -> SessionContext {
    let ctx = SessionContext::new_with_config(
        SessionConfig::new()
            .with_target_partitions(threads)
            .with_batch_size(BATCH),
    );
    dynd_datafusion::register_all(&ctx).expect("builtins register");
    dynd_datafusion::register(&ctx, &hypot::callable()).expect("hypot registers");
    for (name, batches) in tables {
        let schema = batches[0].schema();
        let mem =
            MemTable::try_new(schema, partitioned(batches.to_vec(), threads)).expect("a table");
        ctx.register_table(*name, Arc::new(mem)).expect("registers");
    }
    ctx
}

fn bench(c: &mut Criterion) {
    let points = points(10_000_000);
    let sessions = sessions(1_000_000);
    let cases: &[(&str, &str)] = &[
        ("hypot/dynd", "SELECT hypot(x, y) FROM p"),
        ("hypot/datafusion", "SELECT sqrt(x * x + y * y) FROM p"),
        // The table's columns alone: what scanning and collecting cost.
        ("scan/x", "SELECT x FROM p"),
        ("row_mean/dynd", "SELECT row_mean(d) FROM s"),
        ("row_mean/datafusion", "SELECT array_avg(d) FROM s"),
        // The list functions beside DataFusion's nearest.
        ("list_argmax/dynd", "SELECT argmax(d) FROM s"),
        (
            "list_argmax/datafusion",
            "SELECT array_position(d, array_max(d)) FROM s",
        ),
        ("list_max/dynd", "SELECT row_max(d) FROM s"),
        ("list_max/datafusion", "SELECT array_max(d) FROM s"),
        ("list_sort/dynd", "SELECT sort(d) FROM s"),
        ("list_sort/datafusion", "SELECT array_sort(d) FROM s"),
        ("list_unique/dynd", "SELECT unique(d) FROM s"),
        ("list_unique/datafusion", "SELECT array_distinct(d) FROM s"),
        ("list_pad/dynd", "SELECT pad(d, 20) FROM s"),
        ("list_pad/datafusion", "SELECT array_resize(d, 20) FROM s"),
        ("list_concat/dynd", "SELECT dynd_concatenate(d, d) FROM s"),
        ("list_concat/datafusion", "SELECT array_concat(d, d) FROM s"),
        ("list_softmax/dynd", "SELECT softmax(d) FROM s"),
        (
            "list_softmax/datafusion_unnest",
            "SELECT id, array_agg(exp(v - m) / z) FROM (SELECT id, v, max(v) OVER (PARTITION BY id) AS m, \
             sum(exp(v)) OVER (PARTITION BY id) / exp(max(v) OVER (PARTITION BY id)) AS z \
             FROM (SELECT id, unnest(d) AS v FROM (SELECT row_number() OVER () AS id, d FROM s))) GROUP BY id",
        ),
        (
            "grouped_sum/dynd_kahan",
            "SELECT k, kahan_sum(x) FROM p GROUP BY k",
        ),
        (
            "grouped_sum/dynd_sum",
            "SELECT k, dynd_sum(x) FROM p GROUP BY k",
        ),
        (
            "grouped_sum/datafusion",
            "SELECT k, sum(x) FROM p GROUP BY k",
        ),
        // Groups as lists, to set beside `groupby` in `benches/groups.rs`
        // (the same 1e7 rows by 1e3 keys there).
        (
            "grouped_lists/datafusion_array_agg",
            "SELECT k, array_agg(x) FROM p GROUP BY k",
        ),
        (
            "grouped_std/dynd",
            "SELECT k, dynd_std(x) FROM p GROUP BY k",
        ),
        (
            "grouped_std/datafusion",
            "SELECT k, stddev_pop(x) FROM p GROUP BY k",
        ),
    ];
    let only = std::env::var("SQL_BENCH_THREADS").ok();
    for threads in [1usize, 2] {
        if only.as_deref().is_some_and(|t| t != threads.to_string()) {
            continue;
        }
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(threads)
            .enable_all()
            .build()
            .expect("a runtime");
        let ctx = context(threads, &[("p", &points), ("s", &sessions)]);
        let mut group = c.benchmark_group(format!("sql_{threads}t"));
        group.sample_size(10);
        for (name, sql) in cases {
            // Planned once; each iteration executes and collects.
            let df = rt.block_on(ctx.sql(sql)).expect("plans");
            group.bench_function(*name, |b| {
                b.iter(|| {
                    let task = rt.spawn(df.clone().collect());
                    rt.block_on(task).expect("joins").expect("runs")
                })
            });
        }
        for (name, sql) in [
            ("hypot/dynd_from_caller", "SELECT hypot(x, y) FROM p"),
            ("scan/x_from_caller", "SELECT x FROM p"),
        ] {
            let df = rt.block_on(ctx.sql(sql)).expect("plans");
            group.bench_function(name, |b| {
                b.iter(|| rt.block_on(df.clone().collect()).expect("runs"))
            });
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
