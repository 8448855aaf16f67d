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

/// The second soundness pass (issue 34): what `dynd-sql` does with
/// non-finite floats, NULL list literals, broken pipes and malformed files.
mod soundness {
    use super::*;

    #[test]
    fn json_keeps_non_finite_floats_apart_from_null() {
        let (ok, out, err) = run(&[
            "--json",
            "SELECT divide(1.0, 0.0) AS a, divide(0.0, 0.0) AS b, divide(-1.0, 0.0) AS c, \
             0.5 AS d, 1e300 AS e, CAST(2 AS REAL) AS f, [1.0, divide(1.0, 0.0)] AS l, \
             CAST(NULL AS DOUBLE) AS n",
        ]);
        assert!(ok, "{err}");
        assert_eq!(
            out.trim(),
            r#"[{"a":"Infinity","b":"NaN","c":"-Infinity","d":0.5,"e":1e300,"f":2.0,"l":[1.0,"Infinity"]}]"#
        );
    }

    #[test]
    fn a_null_list_literal_gives_null_as_a_null_row_does() {
        let (ok, out, err) = run(&["--json", "SELECT row_mean(CAST(NULL AS DOUBLE[])) AS m"]);
        assert!(ok, "{err}");
        assert_eq!(out.trim(), "[{}]");
        let (ok, out, err) = run(&[
            "--json",
            "SELECT row_mean(d) AS m, subtract(d, CAST(NULL AS DOUBLE[])) AS s \
             FROM (VALUES ([1.0, 2.0]), (CAST(NULL AS DOUBLE[]))) AS t(d)",
        ]);
        assert!(ok, "{err}");
        assert_eq!(out.trim(), r#"[{"m":1.5},{}]"#);
    }

    #[test]
    fn help_lists_only_registered_functions() {
        let (ok, help, err) = run(&["--help"]);
        assert!(ok, "{err}");
        assert!(!help.contains("haversine"), "{help}");
        for name in ["row_mean", "kahan_sum", "dynd_sqrt", "add_reduce"] {
            assert!(help.contains(name), "{name} missing from:\n{help}");
            let (ok, _, err) = run(&[&format!(
                "SELECT {name}({}) AS x",
                if name == "row_mean" { "[1.0]" } else { "1.0" }
            )]);
            assert!(ok, "{name}: {err}");
        }
    }

    #[test]
    fn a_closed_pipe_ends_the_tool_quietly() {
        use std::io::Read;
        use std::process::Stdio;
        for _ in 0..3 {
            let mut child = Command::new(env!("CARGO_BIN_EXE_dynd-sql"))
                .args(["SELECT 1"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("runs");
            drop(child.stdout.take());
            let status = child.wait().expect("exits");
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            assert!(status.success(), "{status:?} {err}");
            assert!(!err.contains("panicked"), "{err}");
        }
    }

    #[test]
    fn malformed_files_are_errors_not_crashes() {
        let d = dir("malformed");
        // A Parquet footer claiming 2^31 - 1 bytes.
        let parquet = d.join("footer.parquet");
        let mut bytes = b"PAR1".to_vec();
        bytes.extend_from_slice(&[0; 8]);
        bytes.extend_from_slice(&(i32::MAX as u32).to_le_bytes());
        bytes.extend_from_slice(b"PAR1");
        std::fs::write(&parquet, &bytes).unwrap();
        // An Arrow IPC file cut short, and one of noise.
        let ipc = d.join("cut.arrow");
        {
            let batch = RecordBatch::try_from_iter([(
                "x",
                Arc::new(Float64Array::from(
                    (0..100).map(f64::from).collect::<Vec<_>>(),
                )) as ArrayRef,
            )])
            .unwrap();
            let mut w = datafusion::arrow::ipc::writer::FileWriter::try_new(
                File::create(&ipc).unwrap(),
                &batch.schema(),
            )
            .unwrap();
            w.write(&batch).unwrap();
            w.finish().unwrap();
        }
        let whole = std::fs::read(&ipc).unwrap();
        let noise = d.join("noise.arrow");
        let mut x = 0x9e37_79b9_u32;
        let junk: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect();
        std::fs::write(&noise, [b"ARROW1\0\0".as_slice(), &junk].concat()).unwrap();
        let csv = d.join("ragged.csv");
        std::fs::write(&csv, "x,y\n1,2\n3\n\"unterminated\n").unwrap();
        let mut cases = vec![
            (parquet.clone(), "SELECT * FROM t".to_string()),
            (noise.clone(), "SELECT * FROM t".to_string()),
            (csv.clone(), "SELECT add(x, y) FROM t".to_string()),
        ];
        for cut in [
            533.min(whole.len() - 1),
            whole.len() / 2,
            12,
            whole.len() - 7,
        ] {
            let p = d.join(format!("cut{cut}.arrow"));
            std::fs::write(&p, &whole[..cut]).unwrap();
            cases.push((p, "SELECT sum(x) FROM t".to_string()));
        }
        for (path, query) in &cases {
            let table = format!("t={}", path.display());
            let out = Command::new(env!("CARGO_BIN_EXE_dynd-sql"))
                .args(["--memory-limit", "512", "--table", &table, query])
                .output()
                .expect("runs");
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{}: {err}", path.display());
            assert!(err.starts_with("error: "), "{}: {err}", path.display());
            assert!(!err.contains("RUST_BACKTRACE"), "{}: {err}", path.display());
        }
        std::fs::remove_dir_all(d).ok();
    }
}
