//! dynd callables inside DataFusion SQL: scalar UDFs over every mapped Arrow
//! type, nulls, empty and sliced batches, scalar arguments, planning errors,
//! row reductions, and aggregates merged across partitions.

use std::sync::Arc;

use datafusion::arrow::array::{
    Array as _, ArrayRef, AsArray, BooleanArray, FixedSizeListArray, Float32Array, Float64Array,
    Int16Array, Int32Array, Int64Array, Int8Array, LargeListArray, LargeStringArray, ListArray,
    RecordBatch, StringArray, StringViewArray, StructArray, UInt16Array, UInt32Array, UInt64Array,
    UInt8Array,
};
use datafusion::arrow::datatypes::{DataType, Field, Float64Type, Int64Type};
use datafusion::common::{DataFusionError, Result};
use datafusion::datasource::MemTable;
use datafusion::prelude::{SessionConfig, SessionContext};
use dynd::elemental;
use dynd::func::builtins;

#[elemental]
fn hypot(x: f64, y: f64) -> f64 {
    (x * x + y * y).sqrt()
}

fn get(name: &str) -> Result<dynd::func::Callable> {
    builtins::get(name).map_err(|e| DataFusionError::External(Box::new(e)))
}

fn table(cols: Vec<(&str, ArrayRef)>) -> RecordBatch {
    RecordBatch::try_from_iter(cols).expect("columns of one length")
}

fn ctx_with(batch: RecordBatch) -> Result<SessionContext> {
    let ctx = SessionContext::new();
    dynd_datafusion::register_all(&ctx)?;
    ctx.register_batch("t", batch)?;
    Ok(ctx)
}

/// The one column of a query's result, concatenated.
async fn column(ctx: &SessionContext, sql: &str) -> Result<ArrayRef> {
    let batches = ctx.sql(sql).await?.collect().await?;
    let arrays: Vec<&dyn datafusion::arrow::array::Array> =
        batches.iter().map(|b| b.column(0).as_ref()).collect();
    if arrays.is_empty() {
        let schema = ctx.sql(sql).await?.schema().as_arrow().clone();
        return Ok(datafusion::arrow::array::new_empty_array(
            schema.field(0).data_type(),
        ));
    }
    Ok(datafusion::arrow::compute::concat(&arrays)?)
}

fn f64s(a: &ArrayRef) -> Vec<Option<f64>> {
    a.as_primitive::<Float64Type>().iter().collect()
}

fn lists(a: &ArrayRef) -> Vec<Option<Vec<Option<f64>>>> {
    let l = a.as_list::<i32>();
    l.iter()
        .map(|row| row.map(|v| v.as_primitive::<Float64Type>().iter().collect()))
        .collect()
}

fn list_col(rows: Vec<Option<Vec<Option<f64>>>>) -> ArrayRef {
    Arc::new(ListArray::from_iter_primitive::<Float64Type, _, _>(rows))
}

#[tokio::test]
async fn elementwise_over_columns_and_literals() -> Result<()> {
    let ctx = ctx_with(table(vec![
        (
            "x",
            Arc::new(Float64Array::from(vec![3.0, 5.0, -1.0])) as ArrayRef,
        ),
        ("y", Arc::new(Int32Array::from(vec![4, 12, 0]))),
    ]))?;
    dynd_datafusion::register(&ctx, &hypot::callable())?;
    // dynd's promotion: float64 + int32 is float64.
    let r = column(&ctx, "SELECT add(x, y) FROM t").await?;
    assert_eq!(f64s(&r), [Some(7.0), Some(17.0), Some(-1.0)]);
    let r = column(&ctx, "SELECT hypot(x, y) FROM t").await?;
    assert_eq!(f64s(&r), [Some(5.0), Some(13.0), Some(1.0)]);
    let r = column(&ctx, "SELECT dynd_hypot(x, 0) FROM t").await?;
    assert_eq!(f64s(&r), [Some(3.0), Some(5.0), Some(1.0)]);
    // A builtin whose name DataFusion has too is dynd_NAME.
    let r = column(&ctx, "SELECT dynd_floor(x / 2) FROM t").await?;
    assert_eq!(f64s(&r), [Some(1.0), Some(2.0), Some(-1.0)]);
    // int32 * int64 literal stays integral.
    let r = column(&ctx, "SELECT multiply(y, 2) FROM t").await?;
    assert_eq!(r.as_primitive::<Int64Type>().values(), &[8, 24, 0]);
    // Every argument a literal: one value.
    let r = column(&ctx, "SELECT hypot(6, 8) AS h").await?;
    assert_eq!(f64s(&r), [Some(10.0)]);
    Ok(())
}

#[tokio::test]
async fn list_rows_broadcast_per_row() -> Result<()> {
    let ctx = ctx_with(table(vec![
        (
            "d",
            list_col(vec![
                Some(vec![Some(1.0), Some(2.0), Some(6.0)]),
                Some(vec![]),
                Some(vec![Some(4.0)]),
            ]),
        ),
        ("m", Arc::new(Float64Array::from(vec![1.0, 2.0, 3.0]))),
    ]))?;
    let r = column(&ctx, "SELECT subtract(d, m) FROM t").await?;
    assert_eq!(
        lists(&r),
        [
            Some(vec![Some(0.0), Some(1.0), Some(5.0)]),
            Some(vec![]),
            Some(vec![Some(1.0)])
        ]
    );
    let r = column(&ctx, "SELECT add(d, 1.5) FROM t").await?;
    assert_eq!(
        lists(&r),
        [
            Some(vec![Some(2.5), Some(3.5), Some(7.5)]),
            Some(vec![]),
            Some(vec![Some(5.5)])
        ]
    );
    // An empty row has no mean, min or max (NULL) and a sum of 0.
    let r = column(&ctx, "SELECT row_mean(d) FROM t").await?;
    assert_eq!(f64s(&r), [Some(3.0), None, Some(4.0)]);
    let r = column(&ctx, "SELECT row_max(d) FROM t").await?;
    assert_eq!(f64s(&r), [Some(6.0), None, Some(4.0)]);
    // dynd reduces var rows with its builtin reductions, not through a
    // callable's .reduce: a planning error that says so.
    let e = ctx
        .sql("SELECT row_maximum_reduce(d) FROM t")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("reducing var dimensions through a callable's .reduce"),
        "{e}"
    );
    let r = column(&ctx, "SELECT row_std(d) FROM t").await?;
    assert_eq!(f64s(&r)[1], None);
    let r = column(&ctx, "SELECT row_sum(d) FROM t").await?;
    assert_eq!(f64s(&r), [Some(9.0), Some(0.0), Some(4.0)]);
    let r = column(&ctx, "SELECT subtract(d, row_mean(d)) FROM t WHERE m <> 2").await?;
    assert_eq!(
        lists(&r),
        [
            Some(vec![Some(-2.0), Some(-1.0), Some(3.0)]),
            Some(vec![Some(0.0)])
        ]
    );
    let r = column(&ctx, "SELECT row_sum(multiply(d, d)) FROM t").await?;
    assert_eq!(f64s(&r), [Some(41.0), Some(0.0), Some(16.0)]);
    // Two list columns with equal rows add value by value; a row of
    // another length is an error naming both lengths.
    let r = column(&ctx, "SELECT add(d, d) FROM t").await?;
    assert_eq!(lists(&r)[0], Some(vec![Some(2.0), Some(4.0), Some(12.0)]));
    let e = column(&ctx, "SELECT add(d, make_array(1.0, 2.0)) FROM t")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("dynd function 'add'"), "{e}");
    Ok(())
}

/// Each primitive type goes in and comes out as itself (add of a column
/// to itself), and so do strings (their length), booleans, lists of each
/// kind and fixed-size lists.
#[tokio::test]
async fn every_mapped_type_in_and_out() -> Result<()> {
    let prims: Vec<(&str, ArrayRef)> = vec![
        ("i8", Arc::new(Int8Array::from(vec![1, -2]))),
        ("i16", Arc::new(Int16Array::from(vec![1, -2]))),
        ("i32", Arc::new(Int32Array::from(vec![1, -2]))),
        ("i64", Arc::new(Int64Array::from(vec![1, -2]))),
        ("u8", Arc::new(UInt8Array::from(vec![1, 2]))),
        ("u16", Arc::new(UInt16Array::from(vec![1, 2]))),
        ("u32", Arc::new(UInt32Array::from(vec![1, 2]))),
        ("u64", Arc::new(UInt64Array::from(vec![1, 2]))),
        ("f32", Arc::new(Float32Array::from(vec![1.5, -2.0]))),
        ("f64", Arc::new(Float64Array::from(vec![1.5, -2.0]))),
    ];
    let names: Vec<&str> = prims.iter().map(|(n, _)| *n).collect();
    let inputs: Vec<ArrayRef> = prims.iter().map(|(_, a)| a.clone()).collect();
    let mut cols = prims;
    cols.extend([
        (
            "b",
            Arc::new(BooleanArray::from(vec![true, false])) as ArrayRef,
        ),
        ("s", Arc::new(StringArray::from(vec!["héllo", ""]))),
        ("ls", Arc::new(LargeStringArray::from(vec!["ab", "c"]))),
        (
            "sv",
            Arc::new(StringViewArray::from(vec!["a long string view", "x"])),
        ),
        (
            "l",
            list_col(vec![
                Some(vec![Some(1.0), Some(2.0)]),
                Some(vec![Some(3.0)]),
            ]),
        ),
        (
            "ll",
            Arc::new(LargeListArray::from_iter_primitive::<Float64Type, _, _>(
                vec![Some(vec![Some(1.0), Some(2.0)]), Some(vec![Some(3.0)])],
            )),
        ),
        (
            "fl",
            Arc::new(
                FixedSizeListArray::from_iter_primitive::<Float64Type, _, _>(
                    vec![
                        Some(vec![Some(3.0), Some(4.0)]),
                        Some(vec![Some(0.0), Some(1.0)]),
                    ],
                    2,
                ),
            ),
        ),
    ]);
    let ctx = ctx_with(table(cols))?;
    for (name, input) in names.iter().zip(&inputs) {
        let r = column(&ctx, &format!("SELECT add({name}, {name}) FROM t")).await?;
        assert_eq!(r.data_type(), input.data_type(), "{name}");
        let twice = datafusion::arrow::compute::kernels::numeric::add(input, input)?;
        assert_eq!(&r, &twice, "{name}");
    }
    let r = column(&ctx, "SELECT logical_not(b) FROM t").await?;
    assert_eq!(r.as_boolean(), &BooleanArray::from(vec![false, true]));
    // Strings go in (counted by dynd; no overloaded builtin returns one).
    for col in ["s", "ls", "sv"] {
        let r = column(&ctx, &format!("SELECT dynd_count({col}) FROM t")).await?;
        assert_eq!(r.as_primitive::<Int64Type>().values(), &[2], "{col}");
    }
    for col in ["l", "ll"] {
        let r = column(&ctx, &format!("SELECT multiply({col}, 2) FROM t")).await?;
        assert_eq!(
            lists(&r),
            [Some(vec![Some(2.0), Some(4.0)]), Some(vec![Some(6.0)])],
            "{col}"
        );
    }
    // A fixed-size list is a fixed dimension: elementwise keeps it, a
    // core-dimension function (`norm`, `N * float64 -> float64`) takes it.
    let r = column(&ctx, "SELECT add(fl, fl) FROM t").await?;
    assert!(
        matches!(r.data_type(), DataType::FixedSizeList(_, 2)),
        "{:?}",
        r.data_type()
    );
    let r = column(&ctx, "SELECT norm(fl) FROM t").await?;
    assert_eq!(f64s(&r), [Some(5.0), Some(1.0)]);
    // dynd's core-dimension functions take fixed dimensions only: over
    // list rows, an execution error that says so.
    let e = column(&ctx, "SELECT norm(l) FROM t")
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("dynd function 'norm'") && e.contains("not fixed"),
        "{e}"
    );
    Ok(())
}

#[tokio::test]
async fn struct_rows_are_dynd_structs() -> Result<()> {
    let s = StructArray::from(vec![
        (
            Arc::new(Field::new("a", DataType::Float64, false)),
            Arc::new(Float64Array::from(vec![1.0, 2.0])) as ArrayRef,
        ),
        (
            Arc::new(Field::new("b", DataType::Float64, false)),
            Arc::new(Float64Array::from(vec![3.0, 4.0])) as ArrayRef,
        ),
    ]);
    let ctx = ctx_with(table(vec![("s", Arc::new(s) as ArrayRef)]))?;
    // No builtin takes structs: a planning error says so, with the types.
    let e = ctx.sql("SELECT add(s, 1) FROM t").await.unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("dynd function 'add'") && text.contains("Struct"),
        "{text}"
    );
    Ok(())
}

#[derive(dynd::nd::Record, Clone, Copy)]
#[repr(C)]
struct Point {
    x: f64,
    y: f64,
}

#[elemental]
fn dist(p: Point, q: Point) -> f64 {
    ((p.x - q.x).powi(2) + (p.y - q.y).powi(2)).sqrt()
}

#[elemental]
fn mid(p: Point, q: Point) -> Point {
    Point {
        x: (p.x + q.x) / 2.0,
        y: (p.y + q.y) / 2.0,
    }
}

#[tokio::test]
async fn elemental_fns_over_struct_columns() -> Result<()> {
    let point = |xs: Vec<f64>, ys: Vec<f64>| {
        Arc::new(StructArray::from(vec![
            (
                Arc::new(Field::new("x", DataType::Float64, false)),
                Arc::new(Float64Array::from(xs)) as ArrayRef,
            ),
            (
                Arc::new(Field::new("y", DataType::Float64, false)),
                Arc::new(Float64Array::from(ys)) as ArrayRef,
            ),
        ])) as ArrayRef
    };
    let ctx = ctx_with(table(vec![
        ("p", point(vec![3.0, 6.0, 1.0], vec![4.0, 8.0, 1.0])),
        ("q", point(vec![0.0, 0.0, 1.0], vec![0.0, 0.0, 2.0])),
    ]))?;
    ctx.register_udf(dynd_datafusion::function_udf(&dist::callable())?);
    ctx.register_udf(dynd_datafusion::function_udf(&mid::callable())?);
    let d = column(&ctx, "SELECT dist(p, q) FROM t").await?;
    assert_eq!(f64s(&d), [Some(5.0), Some(10.0), Some(1.0)]);
    // Against a literal struct, broadcast to every row.
    let d = column(
        &ctx,
        "SELECT dist(p, named_struct('x', 0.0, 'y', 0.0)) FROM t",
    )
    .await?;
    assert_eq!(f64s(&d), [Some(5.0), Some(10.0), Some(2.0f64.sqrt())]);
    // A record result is a struct column.
    let m = column(&ctx, "SELECT mid(p, q) FROM t").await?;
    let m = m.as_struct();
    assert_eq!(
        f64s(m.column_by_name("y").unwrap()),
        [Some(2.0), Some(4.0), Some(1.5)]
    );
    // An overloaded callable is not a function UDF.
    assert!(dynd_datafusion::function_udf(&get("add")?).is_err());
    Ok(())
}

#[tokio::test]
async fn nulls_are_na() -> Result<()> {
    let ctx = ctx_with(table(vec![
        (
            "x",
            Arc::new(Float64Array::from(vec![Some(1.0), None, Some(3.0)])) as ArrayRef,
        ),
        (
            "d",
            list_col(vec![
                Some(vec![Some(1.0), None, Some(5.0)]),
                None,
                Some(vec![Some(2.0)]),
            ]),
        ),
    ]))?;
    let r = column(&ctx, "SELECT add(x, 1) FROM t").await?;
    assert_eq!(f64s(&r), [Some(2.0), None, Some(4.0)]);
    let r = column(&ctx, "SELECT add(x, NULL) FROM t").await?;
    assert_eq!(f64s(&r), [None, None, None]);
    // A null list row gives a null row; NA inside a row propagates.
    let r = column(&ctx, "SELECT add(d, x) FROM t").await?;
    assert_eq!(
        lists(&r),
        [
            Some(vec![Some(2.0), None, Some(6.0)]),
            None,
            Some(vec![Some(5.0)])
        ]
    );
    // Row reductions skip NA inside a row, as SQL aggregates skip nulls.
    let r = column(&ctx, "SELECT row_mean(d) FROM t").await?;
    assert_eq!(f64s(&r), [Some(3.0), None, Some(2.0)]);
    // Aggregates skip nulls; a group of nulls alone gives NULL.
    let r = column(&ctx, "SELECT dynd_sum(x) FROM t").await?;
    assert_eq!(f64s(&r), [Some(4.0)]);
    let r = column(&ctx, "SELECT kahan_sum(x) FROM t WHERE x IS NULL").await?;
    assert_eq!(f64s(&r), [None]);
    let r = column(&ctx, "SELECT dynd_count(x) FROM t").await?;
    assert_eq!(r.as_primitive::<Int64Type>().values(), &[2]);
    Ok(())
}

#[tokio::test]
async fn empty_and_sliced_batches() -> Result<()> {
    let x: ArrayRef = Arc::new(Float64Array::from(vec![1.0, 2.0, 3.0, 4.0, 5.0]));
    let d = list_col(vec![
        Some(vec![Some(1.0)]),
        Some(vec![Some(2.0), Some(3.0)]),
        Some(vec![]),
        Some(vec![Some(4.0), Some(5.0), Some(6.0)]),
        Some(vec![Some(7.0)]),
    ]);
    let full = table(vec![("x", x), ("d", d)]);
    // A slice: the arrays keep their offsets into the buffers.
    let sliced = full.slice(1, 3);
    let empty = full.slice(0, 0);
    let ctx = SessionContext::new();
    dynd_datafusion::register_all(&ctx)?;
    let mem = MemTable::try_new(full.schema(), vec![vec![sliced, empty.clone()]])?;
    ctx.register_table("t", Arc::new(mem))?;
    let r = column(&ctx, "SELECT subtract(d, x) FROM t").await?;
    assert_eq!(
        lists(&r),
        [
            Some(vec![Some(0.0), Some(1.0)]),
            Some(vec![]),
            Some(vec![Some(0.0), Some(1.0), Some(2.0)])
        ]
    );
    let r = column(&ctx, "SELECT row_sum(d) FROM t").await?;
    assert_eq!(f64s(&r), [Some(5.0), Some(0.0), Some(15.0)]);
    let r = column(&ctx, "SELECT add(x, 1) FROM t WHERE x > 100").await?;
    assert_eq!(r.len(), 0);
    let mem = MemTable::try_new(full.schema(), vec![vec![empty]])?;
    ctx.register_table("e", Arc::new(mem))?;
    let r = column(&ctx, "SELECT kahan_sum(x) FROM e").await?;
    assert_eq!(f64s(&r), [None]);
    let r = column(&ctx, "SELECT add(x, x) FROM e").await?;
    assert_eq!(r.len(), 0);
    Ok(())
}

#[tokio::test]
async fn type_errors_are_planning_errors() -> Result<()> {
    let ctx = ctx_with(table(vec![
        ("s", Arc::new(StringArray::from(vec!["a"])) as ArrayRef),
        ("x", Arc::new(Float64Array::from(vec![1.0]))),
        (
            "t",
            Arc::new(datafusion::arrow::array::Date32Array::from(vec![1])),
        ),
    ]))?;
    let plan_error = |e: DataFusionError| {
        let text = e.to_string();
        assert!(
            matches!(e.find_root(), DataFusionError::Plan(_)),
            "not a planning error: {text}"
        );
        text
    };
    let e = plan_error(ctx.sql("SELECT add(s, x) FROM t").await.unwrap_err());
    assert!(
        e.contains("dynd function 'add' cannot take (Utf8, Float64)"),
        "{e}"
    );
    assert!(
        e.contains("(float64, float64) -> float64"),
        "candidates listed: {e}"
    );
    let e = plan_error(
        ctx.sql("SELECT sqrt(x) FROM t")
            .await
            .map(|_| ())
            .err()
            .unwrap_or_else(|| DataFusionError::Plan("sqrt is DataFusion's: fine".into())),
    );
    assert!(!e.contains("dynd"), "{e}");
    let e = plan_error(ctx.sql("SELECT dynd_sqrt(t) FROM t").await.unwrap_err());
    assert!(
        e.contains("dynd function 'dynd_sqrt'") && e.contains("Date32"),
        "{e}"
    );
    let e = plan_error(ctx.sql("SELECT add(x) FROM t").await.unwrap_err());
    assert!(e.contains("'add'") && e.contains("Float64"), "{e}");
    let e = plan_error(ctx.sql("SELECT kahan_sum(s) FROM t").await.unwrap_err());
    assert!(e.contains("kahan_sum") && e.contains("Utf8"), "{e}");
    let e = plan_error(ctx.sql("SELECT dynd_max(s, x) FROM t").await.unwrap_err());
    assert!(e.contains("dynd_max") && e.contains("one argument"), "{e}");
    Ok(())
}

/// A table in four partitions, so aggregates run partially per partition
/// and merge their states.
fn grouped(ctx_partitions: usize) -> Result<(SessionContext, Vec<(i64, f64)>)> {
    let mut rows = Vec::new();
    let mut seed = 42u64;
    for i in 0..4000i64 {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let v = (seed >> 11) as f64 / (1u64 << 53) as f64 * 100.0 - 30.0;
        rows.push((i % 7, v));
    }
    let batches: Vec<Vec<RecordBatch>> = rows
        .chunks(1000)
        .map(|c| {
            vec![table(vec![
                (
                    "g",
                    Arc::new(Int64Array::from(c.iter().map(|r| r.0).collect::<Vec<_>>()))
                        as ArrayRef,
                ),
                (
                    "v",
                    Arc::new(Float64Array::from(
                        c.iter().map(|r| r.1).collect::<Vec<_>>(),
                    )),
                ),
            ])]
        })
        .collect();
    let schema = batches[0][0].schema();
    let ctx = SessionContext::new_with_config(
        SessionConfig::new().with_target_partitions(ctx_partitions),
    );
    dynd_datafusion::register_all(&ctx)?;
    ctx.register_table("t", Arc::new(MemTable::try_new(schema, batches)?))?;
    Ok((ctx, rows))
}

#[tokio::test]
async fn aggregates_merge_across_partitions() -> Result<()> {
    let (ctx, rows) = grouped(4)?;
    let sql = "SELECT g, dynd_sum(v), kahan_sum(v), dynd_mean(v), dynd_std(v), dynd_var(v), \
               dynd_min(v), dynd_max(v), dynd_count(v), maximum_reduce(v), add_reduce(v), \
               sum(v), avg(v), stddev_pop(v), min(v), max(v), count(v) \
               FROM t GROUP BY g ORDER BY g";
    let batches = ctx.sql(sql).await?.collect().await?;
    let mut groups = 0;
    for b in &batches {
        let c = |i: usize| b.column(i).clone();
        let g = c(0);
        let g = g.as_primitive::<Int64Type>();
        for r in 0..b.num_rows() {
            groups += 1;
            let vals: Vec<f64> = rows
                .iter()
                .filter(|x| x.0 == g.value(r))
                .map(|x| x.1)
                .collect();
            let n = vals.len() as f64;
            let mean = vals.iter().sum::<f64>() / n;
            let var = vals.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n;
            let f = |i: usize| c(i).as_primitive::<Float64Type>().value(r);
            let close = |a: f64, b: f64, what: &str| {
                assert!(
                    (a - b).abs() <= 1e-9 * b.abs().max(1.0),
                    "{what}: {a} vs {b}"
                )
            };
            close(f(1), f(11), "dynd_sum vs sum");
            close(f(2), f(11), "kahan_sum vs sum");
            close(f(3), f(12), "dynd_mean vs avg");
            close(f(4), f(13), "dynd_std vs stddev_pop");
            close(f(4), var.sqrt(), "dynd_std vs two-pass");
            close(f(5), var, "dynd_var vs two-pass");
            assert_eq!(f(6), f(14), "min");
            assert_eq!(f(7), f(15), "max");
            assert_eq!(f(9), f(15), "maximum.reduce");
            close(f(10), f(11), "add.reduce vs sum");
            assert_eq!(
                c(8).as_primitive::<Int64Type>().value(r),
                c(16).as_primitive::<Int64Type>().value(r),
                "count"
            );
        }
    }
    assert_eq!(groups, 7);
    // Without GROUP BY (one accumulator per partition, states merged), with
    // a FILTER (the grouped path's mask), and over integers (the grouped
    // query's accumulator per group).
    let sql = "SELECT dynd_sum(v), kahan_sum(v), dynd_mean(v), dynd_std(v), dynd_max(v), \
               sum(v), avg(v), stddev_pop(v), max(v) FROM t";
    let b = &ctx.sql(sql).await?.collect().await?[0];
    let f = |i: usize| b.column(i).as_primitive::<Float64Type>().value(0);
    for (i, j) in [(0, 5), (1, 5), (2, 6), (3, 7), (4, 8)] {
        assert!(
            (f(i) - f(j)).abs() <= 1e-9 * f(j).abs(),
            "column {i}: {} vs {}",
            f(i),
            f(j)
        );
    }
    let sql = "SELECT g, kahan_sum(v) FILTER (WHERE v > 0), sum(v) FILTER (WHERE v > 0), \
               dynd_sum(g * 3), sum(g * 3) FROM t GROUP BY g";
    for b in ctx.sql(sql).await?.collect().await? {
        let (x, y) = (
            b.column(1).as_primitive::<Float64Type>(),
            b.column(2).as_primitive::<Float64Type>(),
        );
        let (p, q) = (
            b.column(3).as_primitive::<Int64Type>(),
            b.column(4).as_primitive::<Int64Type>(),
        );
        for r in 0..b.num_rows() {
            assert!((x.value(r) - y.value(r)).abs() <= 1e-9 * y.value(r).abs());
            assert_eq!(p.value(r), q.value(r));
        }
    }
    // The same answers on one partition (no merging).
    let (one, _) = grouped(1)?;
    let a = ctx
        .sql("SELECT g, kahan_sum(v), dynd_std(v) FROM t GROUP BY g ORDER BY g")
        .await?;
    let b = one
        .sql("SELECT g, kahan_sum(v), dynd_std(v) FROM t GROUP BY g ORDER BY g")
        .await?;
    let (a, b) = (a.collect().await?, b.collect().await?);
    let text = |x: &[RecordBatch]| {
        datafusion::arrow::util::pretty::pretty_format_batches(x)
            .map(|t| t.to_string())
            .unwrap_or_default()
    };
    // kahan_sum is exact enough to agree to the printed digits.
    let (ta, tb) = (text(&a), text(&b));
    let kahan = |t: &str| -> Vec<String> {
        t.lines()
            .filter_map(|l| l.split('|').nth(2).map(|s| s.trim().to_string()))
            .collect()
    };
    assert_eq!(kahan(&ta), kahan(&tb), "{ta}\n{tb}");
    Ok(())
}

#[derive(Debug)]
struct MeanAbs;

impl dynd::func::Accumulator<f64> for MeanAbs {
    type State = (i64, f64);
    type Output = f64;
    fn init(&self) -> (i64, f64) {
        (0, 0.0)
    }
    fn step(&self, (n, s): (i64, f64), x: f64) -> (i64, f64) {
        (n + 1, s + x.abs())
    }
    fn combine(&self, a: (i64, f64), b: (i64, f64)) -> (i64, f64) {
        (a.0 + b.0, a.1 + b.1)
    }
    fn finish(&self, (n, s): (i64, f64)) -> f64 {
        s / n as f64
    }
}

#[tokio::test]
async fn user_stateful_aggregate() -> Result<()> {
    let (ctx, _) = grouped(4)?;
    ctx.register_udaf(dynd_datafusion::accumulator_udaf("mean_abs", MeanAbs));
    let a = ctx
        .sql("SELECT g, mean_abs(v), avg(abs(v)) FROM t GROUP BY g ORDER BY g")
        .await?
        .collect()
        .await?;
    for b in &a {
        let x = b.column(1).as_primitive::<Float64Type>();
        let y = b.column(2).as_primitive::<Float64Type>();
        for r in 0..b.num_rows() {
            assert!(
                (x.value(r) - y.value(r)).abs() < 1e-9,
                "{} vs {}",
                x.value(r),
                y.value(r)
            );
        }
    }
    Ok(())
}

#[tokio::test]
async fn names_never_shadow_datafusion() -> Result<()> {
    let ctx = SessionContext::new();
    let added = dynd_datafusion::register_all(&ctx)?;
    for name in [
        "add",
        "dynd_add",
        "kahan_sum",
        "dynd_kahan_sum",
        "row_mean",
        "norm",
        "add_reduce",
    ] {
        assert!(
            added.scalar.contains(name) || added.aggregate.contains(name),
            "{name} missing: {added:?}"
        );
    }
    // DataFusion's own names stay DataFusion's.
    for name in ["sum", "min", "max", "abs", "sqrt", "count"] {
        assert!(
            !added.scalar.contains(name) && !added.aggregate.contains(name),
            "{name}"
        );
        assert!(
            added.scalar.contains(&format!("dynd_{name}"))
                || added.aggregate.contains(&format!("dynd_{name}")),
            "dynd_{name}"
        );
    }
    // Every elementwise builtin has a scalar UDF.
    for f in builtins::all().filter(|f| f.is_overloaded()) {
        let n = f.name();
        assert!(
            added.scalar.contains(n) || added.scalar.contains(&format!("dynd_{n}")),
            "{n}"
        );
    }
    // The function callables that are neither are not UDFs, and say why.
    let e = dynd_datafusion::scalar_udf(&get("take")?).unwrap_err();
    assert!(e.to_string().contains("'take'"), "{e}");
    let e = dynd_datafusion::aggregate_udf(&get("add")?).unwrap_err();
    assert!(e.to_string().contains("not a reduction"), "{e}");
    Ok(())
}

#[tokio::test]
async fn numpys_ufuncs_are_sql_functions() -> Result<()> {
    let ctx = ctx_with(table(vec![
        (
            "x",
            Arc::new(Float64Array::from(vec![
                Some(-1.5),
                None,
                Some(f64::NAN),
                Some(0.5),
            ])) as ArrayRef,
        ),
        ("i", Arc::new(Int64Array::from(vec![12, 5, -1, 6]))),
        (
            "l",
            list_col(vec![
                Some(vec![Some(0.5), Some(-2.25)]),
                Some(vec![]),
                None,
                Some(vec![Some(1.0)]),
            ]),
        ),
    ]))?;
    // DataFusion's own `floor` stays DataFusion's; dynd's is `dynd_floor`.
    let r = column(&ctx, "SELECT dynd_floor(x) FROM t").await?;
    let got = f64s(&r);
    assert_eq!((got[0], got[1], got[3]), (Some(-2.0), None, Some(0.0)));
    assert!(got[2].is_some_and(f64::is_nan));
    let r = column(&ctx, "SELECT arcsin(x) FROM t").await?;
    assert_eq!(f64s(&r)[0].map(f64::is_nan), Some(true));
    assert_eq!(f64s(&r)[3], Some(0.5f64.asin()));
    let r = column(&ctx, "SELECT bitwise_and(i, 6) FROM t").await?;
    let ints: Vec<Option<i64>> = r.as_primitive::<Int64Type>().iter().collect();
    assert_eq!(ints, [Some(4), Some(4), Some(6), Some(6)]);
    let r = column(&ctx, "SELECT dynd_isnan(x) FROM t").await?;
    let b: Vec<Option<bool>> = r.as_boolean().iter().collect();
    assert_eq!(b, [Some(false), None, Some(true), Some(false)]);
    // Over list columns, with dynd's broadcasting.
    let r = column(&ctx, "SELECT dynd_ceil(l) FROM t").await?;
    assert_eq!(
        lists(&r),
        [
            Some(vec![Some(1.0), Some(-2.0)]),
            Some(vec![]),
            None,
            Some(vec![Some(1.0)])
        ]
    );
    Ok(())
}

#[tokio::test]
async fn ragged_list_functions_are_sql_functions() -> Result<()> {
    let l = list_col(vec![
        Some(vec![Some(1.0), Some(5.0), Some(2.0)]),
        Some(vec![]),
        None,
        Some(vec![Some(-3.0), None, Some(7.0)]),
    ]);
    let ctx = ctx_with(table(vec![("l", l)]))?;
    let ints =
        |r: &ArrayRef| -> Vec<Option<i64>> { r.as_primitive::<Int64Type>().iter().collect() };
    // Per row: an empty row (or a NULL row) gives NULL; NA is skipped.
    let r = column(&ctx, "SELECT argmax(l) FROM t").await?;
    assert_eq!(ints(&r), [Some(1), None, None, Some(2)]);
    let r = column(&ctx, "SELECT dynd_argmin(l) FROM t").await?;
    assert_eq!(ints(&r), [Some(0), None, None, Some(0)]);
    let r = column(&ctx, "SELECT num(l) FROM t").await?;
    assert_eq!(ints(&r), [Some(3), Some(0), None, Some(3)]);
    // Rows back: sorted (NULL last), padded, filtered, joined.
    let r = column(&ctx, "SELECT sort(l) FROM t").await?;
    assert_eq!(
        lists(&r),
        [
            Some(vec![Some(1.0), Some(2.0), Some(5.0)]),
            Some(vec![]),
            None,
            Some(vec![Some(-3.0), Some(7.0), None])
        ]
    );
    let r = column(&ctx, "SELECT pad(l, 2) FROM t").await?;
    assert_eq!(
        lists(&r),
        [
            Some(vec![Some(1.0), Some(5.0), Some(2.0)]),
            Some(vec![None, None]),
            None,
            Some(vec![Some(-3.0), None, Some(7.0)])
        ]
    );
    let r = column(&ctx, "SELECT softmax(l) FROM t").await?;
    let rows = lists(&r);
    assert_eq!(rows[3].as_ref().map(|v| v[1]), Some(None));
    let total: f64 = rows[0].as_ref().unwrap().iter().map(|v| v.unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-15);
    let r = column(&ctx, "SELECT logsumexp(l) FROM t").await?;
    assert_eq!(f64s(&r)[1], Some(f64::NEG_INFINITY));
    let r = column(&ctx, "SELECT dynd_concatenate(l, l) FROM t").await?;
    assert_eq!(lists(&r)[0].as_ref().map(Vec::len), Some(6));
    let r = column(&ctx, "SELECT unique(dynd_concatenate(l, l)) FROM t").await?;
    assert_eq!(
        lists(&r),
        [
            Some(vec![Some(1.0), Some(2.0), Some(5.0)]),
            Some(vec![]),
            None,
            Some(vec![Some(-3.0), Some(7.0), None])
        ]
    );
    // The same functions over a LargeList column.
    let large = datafusion::arrow::compute::cast(
        &list_col(vec![Some(vec![Some(2.0), Some(9.0)]), Some(vec![])]),
        &DataType::LargeList(Arc::new(Field::new_list_field(DataType::Float64, true))),
    )?;
    let ctx = ctx_with(table(vec![("l", large)]))?;
    let r = column(&ctx, "SELECT argmax(l) FROM t").await?;
    assert_eq!(ints(&r), [Some(1), None]);
    Ok(())
}

/// Issue 57: `take_along_axis` plans from the argument types (a sample
/// row's index of 1 into a row of one is out of bounds), and `power` of a
/// negative base past 2^52 keeps the exponent's parity.
#[tokio::test]
async fn take_along_axis_plans_and_power_keeps_parity() -> Result<()> {
    let l = list_col(vec![
        Some(vec![Some(1.0), Some(5.0), Some(2.0)]),
        Some(vec![Some(4.0)]),
    ]);
    let i: ArrayRef = Arc::new(ListArray::from_iter_primitive::<Int64Type, _, _>(vec![
        Some(vec![Some(2), Some(0)]),
        Some(vec![Some(0), Some(0), Some(0)]),
    ]));
    let ctx = ctx_with(table(vec![("l", l), ("i", i)]))?;
    let r = column(&ctx, "SELECT take_along_axis(l, i) FROM t").await?;
    assert_eq!(
        lists(&r),
        [
            Some(vec![Some(2.0), Some(1.0)]),
            Some(vec![Some(4.0), Some(4.0), Some(4.0)])
        ]
    );
    let r = column(&ctx, "SELECT take_along_axis(l, argsort(l)) FROM t").await?;
    assert_eq!(lists(&r)[0], Some(vec![Some(1.0), Some(2.0), Some(5.0)]));
    let r = column(
        &ctx,
        "SELECT dynd_power(-1.0, 4503599627370497.0), dynd_power(-2.0, 9007199254740994.0)",
    )
    .await?;
    assert_eq!(f64s(&r), [Some(-1.0)]);
    let batches = ctx
        .sql("SELECT dynd_power(-2.0, 9007199254740994.0)")
        .await?
        .collect()
        .await?;
    assert_eq!(f64s(batches[0].column(0)), [Some(f64::INFINITY)]);
    Ok(())
}

/// Issue 59: the string functions over `Utf8` and list-of-`Utf8` columns,
/// their keywords as trailing literals; NULL strings are NA (a NULL row
/// of `split`'s lists).
#[tokio::test]
async fn string_functions_are_sql_functions() -> Result<()> {
    let s: ArrayRef = Arc::new(StringArray::from(vec![
        Some("  naïve,ß "),
        None,
        Some("日本,語"),
        Some(""),
    ]));
    let ctx = ctx_with(table(vec![("s", s)]))?;
    let strs = |r: &ArrayRef| -> Vec<Option<String>> {
        let r = datafusion::arrow::compute::cast(r, &DataType::Utf8).expect("strings");
        r.as_string::<i32>()
            .iter()
            .map(|v| v.map(str::to_string))
            .collect()
    };
    let some = |v: &[Option<&str>]| -> Vec<Option<String>> {
        v.iter().map(|s| s.map(str::to_string)).collect()
    };
    let ints =
        |r: &ArrayRef| -> Vec<Option<i64>> { r.as_primitive::<Int64Type>().iter().collect() };
    // The overloaded ones, named as DataFusion leaves them free.
    let r = column(&ctx, "SELECT dynd_upper(strip(s)) FROM t").await?;
    assert_eq!(
        strs(&r),
        some(&[Some("NAÏVE,SS"), None, Some("日本,語"), Some("")])
    );
    let r = column(&ctx, "SELECT str_len(s) FROM t").await?;
    assert_eq!(ints(&r), [Some(10), None, Some(4), Some(0)]);
    // Keywords as trailing literals.
    let r = column(&ctx, "SELECT strip(s, ' ,n') FROM t").await?;
    assert_eq!(
        strs(&r),
        some(&[Some("aïve,ß"), None, Some("日本,語"), Some("")])
    );
    let r = column(&ctx, "SELECT center(s, 6, '*') FROM t").await?;
    assert_eq!(
        strs(&r),
        some(&[Some("  naïve,ß "), None, Some("*日本,語*"), Some("******")])
    );
    let r = column(&ctx, "SELECT find(s, ',', 3) FROM t").await?;
    assert_eq!(ints(&r), [Some(7), None, Some(-1), Some(-1)]);
    let r = column(&ctx, "SELECT dynd_replace(s, ',', ' | ', 1) FROM t").await?;
    assert_eq!(
        strs(&r),
        some(&[Some("  naïve | ß "), None, Some("日本 | 語"), Some("")])
    );
    let r = column(&ctx, "SELECT slice(s, 2, 4) FROM t").await?;
    assert_eq!(strs(&r), some(&[Some("na"), None, Some(",語"), Some("")]));
    let r = column(&ctx, "SELECT regex_extract(s, '(\\w+),', 1) FROM t").await?;
    assert_eq!(strs(&r), some(&[Some("naïve"), None, Some("日本"), None]));
    // Lists of strings out and in: split, then join the rows.
    let r = column(&ctx, "SELECT split(s, ',') FROM t").await?;
    let rows: Vec<Option<Vec<Option<String>>>> = r
        .as_list::<i32>()
        .iter()
        .map(|row| row.map(|v| strs(&v)))
        .collect();
    assert_eq!(
        rows,
        [
            Some(some(&[Some("  naïve"), Some("ß ")])),
            None,
            Some(some(&[Some("日本"), Some("語")])),
            Some(some(&[Some("")])),
        ]
    );
    let r = column(&ctx, "SELECT join(split(s, ','), '+') FROM t").await?;
    assert_eq!(
        strs(&r),
        some(&[Some("  naïve+ß "), None, Some("日本+語"), Some("")])
    );
    // An option that is not a literal of its type is a clear error.
    let e = ctx
        .sql("SELECT center(s, 'wide') FROM t")
        .await?
        .collect()
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("center") && e.contains("width"), "{e}");
    Ok(())
}

/// Dates, timestamps (with their zone) and durations into dynd's calendar
/// functions and arithmetic, and back as Arrow's types.
#[tokio::test]
async fn time_columns_and_calendar_functions() -> Result<()> {
    use datafusion::arrow::array::{
        Date32Array, StringArray, TimestampMicrosecondArray, TimestampNanosecondArray,
    };
    use datafusion::arrow::datatypes::{DataType, TimeUnit};
    let ts = TimestampNanosecondArray::from(vec![Some(1_709_214_310_000_000_000), None, Some(-1)]);
    let paris = TimestampMicrosecondArray::from(vec![1_719_792_000_000_000, 0, 0])
        .with_timezone("Europe/Paris");
    let ctx = ctx_with(table(vec![
        ("ts", Arc::new(ts) as ArrayRef),
        ("paris", Arc::new(paris)),
        ("d", Arc::new(Date32Array::from(vec![19_782, 0, -1]))),
        (
            "s",
            Arc::new(StringArray::from(vec![
                "29/02/2024",
                "01/01/1970",
                "31/12/1969",
            ])),
        ),
    ]))?;
    let ints =
        |a: &ArrayRef| -> Vec<Option<i64>> { a.as_primitive::<Int64Type>().iter().collect() };
    let r = column(&ctx, "SELECT year(ts) FROM t").await?;
    assert_eq!(ints(&r), [Some(2024), None, Some(1969)]);
    let r = column(&ctx, "SELECT hour(paris) FROM t").await?;
    assert_eq!(ints(&r), [Some(2), Some(1), Some(1)]);
    let r = column(&ctx, "SELECT day_of_week(d) FROM t").await?;
    assert_eq!(ints(&r), [Some(3), Some(3), Some(2)]);
    let r = column(&ctx, "SELECT days_between(d, ts) FROM t").await?;
    assert_eq!(ints(&r), [Some(0), None, Some(0)]);
    let r = column(&ctx, "SELECT strftime(ts, '%d %b %Y') FROM t").await?;
    let text: Vec<Option<&str>> = r.as_string::<i32>().iter().collect();
    assert_eq!(text, [Some("29 Feb 2024"), None, Some("31 Dec 1969")]);
    let r = column(&ctx, "SELECT floor_temporal(ts, 'month') FROM t").await?;
    assert_eq!(
        r.data_type(),
        &DataType::Timestamp(TimeUnit::Nanosecond, None)
    );
    let r = column(&ctx, "SELECT strptime(s, '%d/%m/%Y') FROM t").await?;
    assert_eq!(
        r.data_type(),
        &DataType::Timestamp(TimeUnit::Microsecond, None)
    );
    assert_eq!(
        r.as_primitive::<datafusion::arrow::datatypes::TimestampMicrosecondType>()
            .value(0),
        1_709_164_800_000_000
    );
    // The unit asked for; a format with `%z` gives UTC instants (pyarrow's).
    let r = column(&ctx, "SELECT strptime(s, '%d/%m/%Y', 's') FROM t").await?;
    assert_eq!(r.data_type(), &DataType::Timestamp(TimeUnit::Second, None));
    assert_eq!(
        r.as_primitive::<datafusion::arrow::datatypes::TimestampSecondType>()
            .iter()
            .collect::<Vec<_>>(),
        [Some(1_709_164_800), Some(0), Some(-86_400)]
    );
    let r = column(
        &ctx,
        "SELECT strptime(concat(s, ' +0100'), '%d/%m/%Y %z', 'ms') FROM t",
    )
    .await?;
    assert_eq!(
        r.data_type(),
        &DataType::Timestamp(TimeUnit::Millisecond, Some("UTC".into()))
    );
    assert_eq!(
        r.as_primitive::<datafusion::arrow::datatypes::TimestampMillisecondType>()
            .value(1),
        -3_600_000
    );
    // A text that does not match: an error, or NULL where asked.
    let e = ctx
        .sql("SELECT strptime(s, '%Y-%m-%d') FROM t")
        .await?
        .collect()
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("29/02/2024"), "{e}");
    let r = column(&ctx, "SELECT strptime(s, '%Y-%m-%d', 'us', true) FROM t").await?;
    assert_eq!(r.null_count(), 3);
    // Wall times read in a zone: the zone is the result type's.
    let r = column(
        &ctx,
        "SELECT assume_timezone(strptime(s, '%d/%m/%Y', 's'), 'Europe/Paris') FROM t",
    )
    .await?;
    assert_eq!(
        r.data_type(),
        &DataType::Timestamp(TimeUnit::Second, Some("Europe/Paris".into()))
    );
    assert_eq!(
        r.as_primitive::<datafusion::arrow::datatypes::TimestampSecondType>()
            .iter()
            .collect::<Vec<_>>(),
        [Some(1_709_161_200), Some(-3_600), Some(-90_000)]
    );
    let r = column(
        &ctx,
        "SELECT hour(assume_timezone(ts, 'America/New_York')) FROM t",
    )
    .await?;
    assert_eq!(ints(&r), [Some(13), None, Some(23)]);
    // A nonexistent wall time (New York, 2024-03-10 02:30), refused or
    // moved as asked.
    let gap = "SELECT assume_timezone(strptime('2024-03-10 02:30', '%Y-%m-%d %H:%M', 's'), \
               'America/New_York'{}) FROM t";
    let e = ctx
        .sql(&gap.replace("{}", ""))
        .await?
        .collect()
        .await
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("nonexistent") || e.contains("does not exist"),
        "{e}"
    );
    let r = column(&ctx, &gap.replace("{}", ", 'raise', 'latest'")).await?;
    assert_eq!(
        r.as_primitive::<datafusion::arrow::datatypes::TimestampSecondType>()
            .value(0),
        1_710_054_000
    );
    // The zone must be a literal: it is the result's type.
    let e = ctx
        .sql("SELECT assume_timezone(ts, s) FROM t")
        .await
        .unwrap_err()
        .to_string();
    assert!(e.contains("the time zone") && e.contains("literal"), "{e}");
    // Arithmetic of instants: a duration, in Arrow's type.
    let r = column(&ctx, "SELECT subtract(ts, ts) FROM t").await?;
    assert_eq!(r.data_type(), &DataType::Duration(TimeUnit::Nanosecond));
    Ok(())
}

#[tokio::test]
async fn dictionary_columns_in_and_out() -> Result<()> {
    use datafusion::arrow::array::DictionaryArray;
    use datafusion::arrow::datatypes::Int32Type;
    let keys = Int32Array::from(vec![Some(1), Some(0), None, Some(1), Some(2)]);
    let values: ArrayRef = Arc::new(StringArray::from(vec!["lo", "hi", "mid"]));
    let k: ArrayRef = Arc::new(DictionaryArray::<Int32Type>::try_new(keys, values)?);
    let v: ArrayRef = Arc::new(Float64Array::from(vec![1.0, 2.0, 4.0, 8.0, 16.0]));
    let ctx = ctx_with(table(vec![("k", k.clone()), ("v", v)]))?;
    // A dictionary column passes through untouched: the same keys buffer.
    let r = column(&ctx, "SELECT k FROM t").await?;
    let (r, k_in) = (
        r.as_dictionary::<Int32Type>(),
        k.as_dictionary::<Int32Type>(),
    );
    assert_eq!(r.keys().values().as_ptr(), k_in.keys().values().as_ptr());
    // dynd's functions see its values.
    let r = column(&ctx, "SELECT dynd_upper(k) FROM t").await?;
    let up = datafusion::arrow::compute::cast(&r, &DataType::Utf8)?;
    let up: Vec<Option<&str>> = up.as_string::<i32>().iter().collect();
    assert_eq!(up, [Some("HI"), Some("LO"), None, Some("HI"), Some("MID")]);
    let r = column(&ctx, "SELECT str_len(k) FROM t").await?;
    let n: Vec<Option<i64>> = r.as_primitive::<Int64Type>().iter().collect();
    assert_eq!(n, [Some(2), Some(2), None, Some(2), Some(3)]);
    // Grouped by the dictionary column, reduced by dynd's aggregates.
    let batches = ctx
        .sql("SELECT k, dynd_sum(v) FROM t GROUP BY k ORDER BY k NULLS LAST")
        .await?
        .collect()
        .await?;
    let b = datafusion::arrow::compute::concat_batches(&batches[0].schema(), &batches)?;
    let names = datafusion::arrow::compute::cast(b.column(0), &DataType::Utf8)?;
    let names: Vec<Option<&str>> = names.as_string::<i32>().iter().collect();
    assert_eq!(names, [Some("hi"), Some("lo"), Some("mid"), None]);
    assert_eq!(
        f64s(b.column(1)),
        [Some(9.0), Some(2.0), Some(16.0), Some(4.0)]
    );
    Ok(())
}
