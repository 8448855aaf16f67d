//! The same SQL (a scalar UDF over a list column, a grouped dynd aggregate
//! and a user's `#[elemental]` fn) on a Ballista cluster started in this
//! process (scheduler and executor on localhost, plans crossing gRPC) and
//! on a single-node `SessionContext`: equal results.
#![cfg(feature = "ballista")]

use std::fs::File;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Float64Array, Int64Array, ListArray, RecordBatch};
use datafusion::arrow::buffer::OffsetBuffer;
use datafusion::arrow::datatypes::{DataType, Field};
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::common::Result;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::prelude::{ParquetReadOptions, SessionConfig, SessionContext};
use dynd::elemental;
use dynd_datafusion::ballista::standalone;

#[elemental]
fn hypot(x: f64, y: f64) -> f64 {
    (x * x + y * y).sqrt()
}

/// 20 000 rows in four row groups: a group key, two numbers and a list.
fn write_table(path: &std::path::Path) {
    let mut seed = 9u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        seed >> 11
    };
    let file = File::create(path).expect("creates");
    let mut writer: Option<ArrowWriter<File>> = None;
    let mut file = Some(file);
    for _ in 0..4 {
        let n = 5000;
        let g: Vec<i64> = (0..n).map(|_| (next() % 13) as i64).collect();
        let x: Vec<f64> = (0..n).map(|_| (next() % 10_000) as f64 / 100.0).collect();
        let y: Vec<f64> = (0..n).map(|_| (next() % 10_000) as f64 / 100.0).collect();
        let lengths: Vec<usize> = (0..n).map(|_| (next() % 6) as usize).collect();
        let total: usize = lengths.iter().sum();
        let values: Vec<f64> = (0..total).map(|_| (next() % 1000) as f64).collect();
        let d = ListArray::new(
            Arc::new(Field::new("item", DataType::Float64, true)),
            OffsetBuffer::from_lengths(lengths),
            Arc::new(Float64Array::from(values)),
            None,
        );
        let batch = RecordBatch::try_from_iter([
            ("g", Arc::new(Int64Array::from(g)) as ArrayRef),
            ("x", Arc::new(Float64Array::from(x))),
            ("y", Arc::new(Float64Array::from(y))),
            ("d", Arc::new(d)),
        ])
        .expect("a batch");
        let w = writer.get_or_insert_with(|| {
            ArrowWriter::try_new(file.take().expect("one file"), batch.schema(), None)
                .expect("a writer")
        });
        w.write(&batch).expect("writes");
        w.flush().expect("a row group");
    }
    writer.expect("written").close().expect("closes");
}

async fn run(ctx: &SessionContext, path: &str) -> Result<Vec<String>> {
    ctx.register_parquet("t", path, ParquetReadOptions::default())
        .await?;
    let queries = [
        // A grouped dynd aggregate over a scalar UDF of a list column, and
        // a user's #[elemental] fn, beside DataFusion's own aggregates.
        "SELECT g, kahan_sum(row_sum(d)) AS total, dynd_std(hypot(x, y)) AS spread, \
         count(*) AS n FROM t GROUP BY g ORDER BY g",
        // A scalar UDF broadcasting a per-row value against each list.
        "SELECT g, x, y, subtract(d, row_mean(d)) AS centred FROM t \
         WHERE g = 3 AND x < 5 ORDER BY x, y LIMIT 20",
    ];
    let mut out = Vec::new();
    for q in queries {
        let batches = ctx.sql(q).await?.collect().await?;
        out.push(pretty_format_batches(&batches)?.to_string());
    }
    Ok(out)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ballista_cluster_and_single_node_agree() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("dynd-ballista-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("t.parquet");
    write_table(&path);
    let path = path.to_string_lossy().into_owned();

    let single = SessionContext::new_with_config(SessionConfig::new().with_target_partitions(2));
    dynd_datafusion::register_all(&single)?;
    dynd_datafusion::register(&single, &hypot::callable())?;
    let expected = run(&single, &path).await?;

    let cluster = standalone(&[hypot::callable()]).await?;
    let got = run(&cluster, &path).await?;

    // Elementwise results are equal to the bit; an aggregate's partial
    // states merge in another order on the cluster (other partitions),
    // so a float result agrees to rounding.
    assert_eq!(got.len(), expected.len());
    for (e, g) in expected.iter().zip(&got) {
        let (el, gl): (Vec<&str>, Vec<&str>) = (e.lines().collect(), g.lines().collect());
        assert_eq!(el.len(), gl.len(), "single node:\n{e}\nBallista:\n{g}");
        for (a, b) in el.iter().zip(&gl) {
            for (x, y) in a.split('|').zip(b.split('|')) {
                let (x, y) = (x.trim(), y.trim());
                match (x.parse::<f64>(), y.parse::<f64>()) {
                    (Ok(x), Ok(y)) => assert!(
                        (x - y).abs() <= 1e-12 * x.abs().max(1.0),
                        "{x} vs {y}\nsingle node:\n{e}\nBallista:\n{g}"
                    ),
                    _ => assert_eq!(x, y, "single node:\n{e}\nBallista:\n{g}"),
                }
            }
        }
    }
    assert!(expected[0].lines().count() > 13, "{}", expected[0]);
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}
