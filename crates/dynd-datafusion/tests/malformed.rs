//! The robustness campaign over malformed input files: valid CSV, Parquet
//! and Arrow IPC files with bytes flipped, cut short, spliced or repeated,
//! registered and queried with dynd's functions the way `dynd-sql` runs a
//! query — in a task of its own, so that a panic inside a reader comes back
//! as an error. Nothing may abort, hang or take more than the memory
//! pool's limit for the query's own buffers; an error is the expected
//! answer to most cases, a result the rest.
//!
//! `DYND_ROBUST_CASES=N` sets the cases per format (default 600); the
//! ignored `long_run` runs 10^6 per format.

use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Float64Array, Int64Array, ListArray, RecordBatch};
use datafusion::arrow::datatypes::Float64Type;
use datafusion::parquet::arrow::ArrowWriter;

#[path = "../../dynd-kernels/tests/common/campaign.rs"]
#[allow(dead_code)]
mod harness;
use harness::{cases, Rng};

fn batch() -> RecordBatch {
    let lists = ListArray::from_iter_primitive::<Float64Type, _, _>((0..40).map(|i| {
        Some(
            (0..i % 5)
                .map(|j| Some(f64::from(i * j)))
                .collect::<Vec<_>>(),
        )
    }));
    RecordBatch::try_from_iter([
        (
            "k",
            Arc::new(Int64Array::from((0..40).collect::<Vec<i64>>())) as ArrayRef,
        ),
        (
            "x",
            Arc::new(Float64Array::from(
                (0..40).map(|i| f64::from(i) * 0.5).collect::<Vec<_>>(),
            )) as ArrayRef,
        ),
        ("d", Arc::new(lists) as ArrayRef),
    ])
    .expect("a batch")
}

fn parquet_bytes() -> Vec<u8> {
    let b = batch();
    let mut out = Vec::new();
    let mut w = ArrowWriter::try_new(&mut out, b.schema(), None).expect("a writer");
    w.write(&b).expect("writes");
    w.close().expect("closes");
    out
}

fn ipc_bytes() -> Vec<u8> {
    let b = batch();
    let mut out = Vec::new();
    {
        let mut w = datafusion::arrow::ipc::writer::FileWriter::try_new(&mut out, &b.schema())
            .expect("a writer");
        w.write(&b).expect("writes");
        w.finish().expect("finishes");
    }
    out
}

fn csv_bytes() -> Vec<u8> {
    let mut s = String::from("k,x,y\n");
    for i in 0..40 {
        s.push_str(&format!("{i},{},{}\n", f64::from(i) * 0.5, i * 3));
    }
    s.into_bytes()
}

/// `good` damaged one of several ways.
fn mutate(rng: &mut Rng, good: &[u8]) -> Vec<u8> {
    let mut b = good.to_vec();
    for _ in 0..1 + rng.below(3) {
        match rng.below(6) {
            0 => {
                let n = rng.below(b.len() + 1);
                b.truncate(n);
            }
            1 if !b.is_empty() => {
                for _ in 0..1 + rng.below(8) {
                    let i = rng.below(b.len());
                    b[i] ^= 1 << rng.below(8);
                }
            }
            2 if !b.is_empty() => {
                // A 4-byte length or offset set to an extreme.
                let i = rng.below(b.len().saturating_sub(4).max(1));
                let v: u32 = [u32::MAX, i32::MAX as u32, 0, 1 << 30][rng.below(4)];
                for (k, byte) in v.to_le_bytes().iter().enumerate() {
                    if let Some(x) = b.get_mut(i + k) {
                        *x = *byte;
                    }
                }
            }
            3 => {
                // A span repeated or removed.
                let i = rng.below(b.len() + 1);
                let j = (i + rng.below(64)).min(b.len());
                if rng.below(2) == 0 {
                    let span = b[i..j].to_vec();
                    b.splice(i..i, span);
                } else {
                    b.drain(i..j);
                }
            }
            _ => {
                let i = rng.below(b.len() + 1);
                let junk: Vec<u8> = (0..rng.below(32)).map(|_| rng.next() as u8).collect();
                b.splice(i..i, junk);
            }
        }
    }
    b
}

const QUERIES: &[&str] = &[
    "SELECT * FROM t",
    "SELECT add(x, 1) AS a, kahan_sum(x) OVER () AS s FROM t",
    "SELECT kahan_sum(x) FROM t",
    "SELECT row_mean(d) FROM t",
    "SELECT k, dynd_sqrt(x) FROM t ORDER BY k DESC",
];

/// Registers the file at `path` as table `t` and runs a query, as
/// `dynd-sql` does (its session and registration);
/// `Err` for an error or a panic (with which).
fn query(rt: &tokio::runtime::Runtime, path: &std::path::Path, sql: &str) -> Result<usize, String> {
    let path = path.to_string_lossy().into_owned();
    let sql = sql.to_string();
    rt.block_on(async move {
        let task = tokio::spawn(async move {
            let ctx = dynd_datafusion::files::session(256 << 20)?;
            dynd_datafusion::files::register_file(&ctx, "t", &path).await?;
            let batches = ctx.sql(&sql).await?.collect().await?;
            Ok::<usize, datafusion::error::DataFusionError>(
                batches.iter().map(RecordBatch::num_rows).sum(),
            )
        });
        match task.await {
            Ok(Ok(rows)) => Ok(rows),
            Ok(Err(e)) => Err(format!("error: {e}")),
            Err(e) if e.is_panic() => Err("panic".into()),
            Err(e) => Err(format!("cancelled: {e}")),
        }
    })
}

/// Runs `n` cases per format; returns (results, errors, panics) per format.
fn run(n: usize) -> Vec<(&'static str, usize, usize, usize)> {
    // Panics inside readers are caught by the task; keep their messages
    // out of the test output.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let dir = std::env::temp_dir().join(format!("dynd-malformed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let mut report = Vec::new();
    for (ext, good) in [
        ("csv", csv_bytes()),
        ("parquet", parquet_bytes()),
        ("arrow", ipc_bytes()),
    ] {
        let (mut ok, mut err, mut panics) = (0, 0, 0);
        for k in 0..n {
            let mut rng = seed(ext, k);
            let bad = mutate(&mut rng, &good);
            let path = dir.join(format!("case.{ext}"));
            std::fs::write(&path, &bad).expect("writes");
            if std::env::var_os("DYND_CASE_TIMES").is_some() {
                eprintln!("{ext} {k}: starting");
            }
            let started = std::time::Instant::now();
            let outcome = query(&rt, &path, QUERIES[rng.below(QUERIES.len())]);
            if std::env::var_os("DYND_CASE_TIMES").is_some() {
                eprintln!(
                    "{ext} {k}: {:?} {:?}",
                    started.elapsed(),
                    outcome.as_ref().map_err(|e| &e[..e.len().min(100)])
                );
            }
            match outcome {
                Ok(_) => ok += 1,
                Err(e) if e == "panic" => panics += 1,
                Err(_) => err += 1,
            }
        }
        report.push((ext, ok, err, panics));
    }
    std::fs::remove_dir_all(&dir).ok();
    std::panic::set_hook(hook);
    report
}

#[test]
fn malformed_files_give_errors_and_no_crash() {
    let report = run(cases(600));
    for (ext, ok, err, panics) in &report {
        eprintln!("{ext}: {ok} results, {err} errors, {panics} panics caught as errors");
    }
    // The valid file gives results for some queries, so the campaign is
    // not all rejects.
    assert!(report.iter().all(|(_, ok, err, p)| ok + err + p > 0));
}

/// The seed of case `k` for files of extension `ext`.
fn seed(ext: &str, k: usize) -> Rng {
    Rng(0x5eed_0434 ^ (k as u64).wrapping_mul(0x1000_0000_01b3) ^ ext.len() as u64)
}

#[test]
fn a_parquet_chunk_past_the_end_is_an_error_not_an_abort() {
    // Case 25852 of the long run: a column chunk said it started 44 TB into
    // a 2,239-byte file, and the object store's buffer for it ended the
    // process.
    let mut rng = seed("parquet", 25_852);
    let bad = mutate(&mut rng, &parquet_bytes());
    let dir = std::env::temp_dir().join(format!("dynd-chunk-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let path = dir.join("chunk.parquet");
    std::fs::write(&path, &bad).expect("writes");
    let e = dynd_datafusion::files::check_parquet_file(&path)
        .unwrap_err()
        .to_string();
    assert!(e.contains("past the end (2239 bytes)"), "{e}");
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let r = query(&rt, &path, "SELECT * FROM t").unwrap_err();
    assert!(r.contains("not a well-formed Parquet file"), "{r}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
#[ignore = "10^6 cases per format: hours"]
fn long_run() {
    for (ext, ok, err, panics) in run(1_000_000) {
        eprintln!("{ext}: {ok} results, {err} errors, {panics} panics caught as errors");
    }
}
