//! A Ballista cluster built with dynd's functions: a scheduler and two
//! executors on 127.0.0.1 (in this process, as tasks; the same configs
//! start them as separate programs on separate machines), and a client
//! that runs SQL calling a dynd builtin, a row reduction and an
//! `#[elemental]` fn over a Parquet file.
//!
//! ```text
//! cargo run --release --features ballista --example ballista
//! ```

use std::fs::File;
use std::sync::Arc;
use std::time::Duration;

use datafusion::arrow::array::{ArrayRef, Float64Array, Int64Array, ListArray, RecordBatch};
use datafusion::arrow::datatypes::Float64Type;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::prelude::ParquetReadOptions;
use dynd::elemental;
use dynd_datafusion::ballista::{
    ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig},
    ballista_scheduler::{
        cluster::BallistaCluster, config::SchedulerConfig, scheduler_process::start_server,
    },
    function_registry, remote, session_builder,
};

/// Your function: compiled into the scheduler, every executor and the
/// client (Ballista ships no code).
#[elemental]
fn hypot(x: f64, y: f64) -> f64 {
    (x * x + y * y).sqrt()
}

/// A free port on 127.0.0.1.
fn port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    // The scheduler plans with dynd's functions.
    let scheduler_port = port()?;
    let config = SchedulerConfig {
        bind_host: "127.0.0.1".into(),
        external_host: "127.0.0.1".into(),
        bind_port: scheduler_port,
        override_session_builder: Some(session_builder(vec![hypot::callable()])),
        ..Default::default()
    };
    let cluster = BallistaCluster::new_from_config(&config).await?;
    let addr = format!("127.0.0.1:{scheduler_port}").parse()?;
    tokio::spawn(start_server(cluster, addr, Arc::new(config)));
    tokio::time::sleep(Duration::from_millis(500)).await;

    // Two executors decode and run plans with the same functions.
    for _ in 0..2 {
        let config = ExecutorProcessConfig {
            bind_host: "127.0.0.1".into(),
            external_host: Some("127.0.0.1".into()),
            port: port()?,
            grpc_port: port()?,
            scheduler_host: "127.0.0.1".into(),
            scheduler_port,
            vcores: 1,
            override_function_registry: Some(function_registry(&[hypot::callable()])?),
            ..Default::default()
        };
        tokio::spawn(start_executor_process(Arc::new(config)));
    }
    tokio::time::sleep(Duration::from_secs(1)).await;

    // Some data: per-user lists of session lengths.
    let dir = std::env::temp_dir().join(format!("dynd-ballista-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("sessions.parquet");
    let batch = RecordBatch::try_from_iter([
        (
            "user",
            Arc::new(Int64Array::from(vec![1, 2, 1, 3])) as ArrayRef,
        ),
        ("x", Arc::new(Float64Array::from(vec![3.0, 5.0, 8.0, 1.0]))),
        (
            "y",
            Arc::new(Float64Array::from(vec![4.0, 12.0, 15.0, 0.0])),
        ),
        (
            "durations",
            Arc::new(ListArray::from_iter_primitive::<Float64Type, _, _>(vec![
                Some(vec![Some(12.0), Some(3.0)]),
                Some(vec![Some(40.0)]),
                Some(vec![Some(7.0), Some(9.0), Some(1.0)]),
                Some(vec![]),
            ])),
        ),
    ])?;
    let mut w = ArrowWriter::try_new(File::create(&path)?, batch.schema(), None)?;
    w.write(&batch)?;
    w.close()?;

    // The client: Ballista's session with dynd's functions, connected to
    // the scheduler.
    let ctx = remote(
        &format!("df://127.0.0.1:{scheduler_port}"),
        &[hypot::callable()],
    )
    .await?;
    ctx.register_parquet(
        "s",
        path.to_string_lossy().as_ref(),
        ParquetReadOptions::default(),
    )
    .await?;
    let df = ctx
        .sql(
            "SELECT user, kahan_sum(row_sum(durations)) AS minutes, \
             dynd_max(hypot(x, y)) AS reach FROM s GROUP BY user ORDER BY user",
        )
        .await?;
    println!("{}", pretty_format_batches(&df.collect().await?)?);
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}
