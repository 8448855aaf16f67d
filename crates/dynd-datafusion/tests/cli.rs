//! The `dynd-sql` tool over CSV and Parquet files.

use std::fs::File;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;

use datafusion::arrow::array::{ArrayRef, Float64Array, Int64Array, ListArray, RecordBatch};
use datafusion::arrow::datatypes::Float64Type;
use datafusion::parquet::arrow::ArrowWriter;

fn dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("dynd-sql-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).expect("a temporary directory");
    d
}

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_dynd-sql"))
        .args(args)
        .output()
        .expect("dynd-sql runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn csv_table_as_json() {
    let d = dir("csv");
    let path = d.join("points.csv");
    std::fs::write(&path, "x,y\n3,4\n5,12\n").expect("writes");
    let table = format!("p={}", path.display());
    let (ok, out, err) = run(&[
        "--json",
        "--table",
        &table,
        "SELECT add(x, y) AS s, dynd_sqrt(add(multiply(x, x), multiply(y, y))) AS h FROM p",
    ]);
    assert!(ok, "{err}");
    assert_eq!(out.trim(), r#"[{"s":7,"h":5.0},{"s":17,"h":13.0}]"#);
    let (ok, _, err) = run(&["--table", &table, "SELECT add(x) FROM p"]);
    assert!(!ok && err.contains("dynd function 'add'"), "{err}");
    let (ok, _, err) = run(&["--table", "p", "SELECT 1"]);
    assert!(!ok && err.contains("expected NAME=PATH"), "{err}");
    let (ok, _, err) = run(&["--table", "p=x.txt", "SELECT 1"]);
    assert!(!ok && err.contains("unknown file type"), "{err}");
    std::fs::remove_dir_all(d).ok();
}

#[test]
fn parquet_list_column_as_table() {
    let d = dir("parquet");
    let path = d.join("sessions.parquet");
    let batch = RecordBatch::try_from_iter([
        (
            "user",
            Arc::new(Int64Array::from(vec![1, 2, 1])) as ArrayRef,
        ),
        (
            "durations",
            Arc::new(ListArray::from_iter_primitive::<Float64Type, _, _>(vec![
                Some(vec![Some(10.0), Some(20.0)]),
                Some(vec![Some(5.0)]),
                Some(vec![]),
            ])),
        ),
        ("w", Arc::new(Float64Array::from(vec![1.0, 2.0, 3.0]))),
    ])
    .expect("a batch");
    let mut w = ArrowWriter::try_new(File::create(&path).expect("creates"), batch.schema(), None)
        .expect("a writer");
    w.write(&batch).expect("writes");
    w.close().expect("closes");
    let table = format!("s={}", path.display());
    let (ok, out, err) = run(&[
        "--table",
        &table,
        "SELECT user, kahan_sum(row_sum(durations)) AS total FROM s GROUP BY user ORDER BY user",
    ]);
    assert!(ok, "{err}");
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines.iter().any(|l| l.contains("| 1    | 30.0  |")),
        "{out}"
    );
    assert!(
        lines.iter().any(|l| l.contains("| 2    | 5.0   |")),
        "{out}"
    );
    std::fs::remove_dir_all(d).ok();
}
