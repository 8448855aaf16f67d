//! The `dynd` command line: output, JSON contract and exit codes.

use std::process::Command;

use serde_json::{json, Value};

/// Runs `dynd` with `args`; returns (exit code, stdout, stderr).
fn dynd(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_dynd"))
        .args(args)
        .output()
        .expect("the dynd binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn dynd_json(args: &[&str]) -> (i32, Value) {
    let (code, stdout, stderr) = dynd(args);
    assert_eq!(
        stdout.lines().count(),
        1,
        "one JSON line expected, got {stdout:?} {stderr:?}"
    );
    (code, serde_json::from_str(&stdout).expect("valid JSON"))
}

#[test]
fn type_parse_prints_the_canonical_form() {
    assert_eq!(
        dynd(&["type", "parse", "3 *  var * int"]),
        (0, "3 * var * int32\n".into(), String::new())
    );
    assert_eq!(
        dynd_json(&["type", "parse", "--json", "{x: real, 'a b': ?int}"]),
        (
            0,
            json!({"ok": true, "type": "{x: float64, 'a b': ?int32}"})
        )
    );
}

#[test]
fn type_parse_errors_show_a_caret_on_stderr_and_exit_1() {
    let (code, stdout, stderr) = dynd(&["type", "parse", "3 * var * int3"]);
    assert_eq!(code, 1);
    assert_eq!(stdout, "");
    assert_eq!(
        stderr,
        "error: in DATASHAPE: unknown type 'int3' (did you mean 'int32'?) at line 1, column 11 (byte 10)\n  \
         3 * var * int3\n            ^\n"
    );
    assert_eq!(
        dynd_json(&["type", "parse", "--json", "3 * var * int3"]),
        (
            1,
            json!({"ok": false, "error": "unknown type 'int3' (did you mean 'int32'?)", "offset": 10, "argument": "DATASHAPE"})
        )
    );
}

#[test]
fn type_match_prints_bindings_and_exits_0_either_way() {
    assert_eq!(
        dynd_json(&[
            "type",
            "match",
            "--json",
            "Dims... * N * T",
            "3 * var * 5 * ?int32"
        ]),
        (
            0,
            json!({"ok": true, "matches": true, "bindings": {"Dims": "3 * var", "N": "5", "T": "?int32"}})
        )
    );
    assert_eq!(
        dynd_json(&["type", "match", "--json", "... * T", "int8"]),
        (
            0,
            json!({"ok": true, "matches": true, "bindings": {"T": "int8"}})
        )
    );
    assert_eq!(
        dynd_json(&["type", "match", "--json", "Dims... * T", "int8"]),
        (
            0,
            json!({"ok": true, "matches": true, "bindings": {"Dims": "", "T": "int8"}})
        )
    );
    assert_eq!(
        dynd_json(&[
            "type",
            "match",
            "--json",
            "(Dims... * int32, Dims... * float32)",
            "(3 * 1 * int32, 1 * 2 * float32)"
        ]),
        (
            0,
            json!({"ok": true, "matches": true, "bindings": {"Dims": "3 * 2"}})
        )
    );
    let (code, v) = dynd_json(&[
        "type",
        "match",
        "--json",
        "(M * N * T, N * R * T)",
        "(2 * 3 * int32, 4 * 5 * int32)",
    ]);
    assert_eq!(code, 0);
    assert_eq!(v["matches"], json!(false));
    assert_eq!(
        v["reason"],
        json!("dimension variable 'N' is bound to '3' but meets '4'")
    );
    assert_eq!(
        dynd(&["type", "match", "N * T", "3 * float64"]),
        (0, "matches\n  N = 3\n  T = float64\n".into(), String::new())
    );
    let (code, stdout, _) = dynd(&["type", "match", "var * T", "3 * float64"]);
    assert_eq!(
        (code, stdout.as_str()),
        (0, "no match: expected dimension 'var', found '3'\n")
    );
}

#[test]
fn type_match_parse_errors_name_the_argument_and_exit_1() {
    assert_eq!(
        dynd_json(&["type", "match", "--json", "N * T", "3 * flaot32"]),
        (
            1,
            json!({"ok": false, "error": "unknown type 'flaot32' (did you mean 'float32'?)", "offset": 4, "argument": "CANDIDATE"})
        )
    );
    let (code, _, stderr) = dynd(&["type", "match", "N * ", "int8"]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("error: in PATTERN: expected a type, found end of input"),
        "{stderr}"
    );
}

#[test]
fn broadcast_numpy_and_strict() {
    assert_eq!(
        dynd(&["broadcast", "2 * var * int32", "2 * 3 * float32"]).1,
        "2 * 3 * float64\n"
    );
    assert_eq!(
        dynd_json(&["broadcast", "--json", "10 * 1 * int8", "3 * uint8"]),
        (0, json!({"ok": true, "type": "10 * 3 * int16"}))
    );
    assert_eq!(
        dynd_json(&["broadcast", "--json", "3 * int32", "4 * int32"]),
        (
            1,
            json!({"ok": false, "error": "cannot broadcast dimension 0 of the result: argument 0 has size 3 (3 * int32) and argument 1 has size 4 (4 * int32)"})
        )
    );
    let (code, v) = dynd_json(&[
        "broadcast",
        "--json",
        "--strict",
        "3 * int32",
        "2 * 3 * int32",
    ]);
    assert_eq!(code, 1);
    assert!(v["error"]
        .as_str()
        .unwrap()
        .starts_with("strict broadcasting: argument 0"));
    assert_eq!(
        dynd_json(&["broadcast", "--json", "--strict", "int32", "2 * 3 * int32"]).1["type"],
        json!("2 * 3 * int32")
    );
    assert_eq!(
        dynd_json(&["broadcast", "--json", "int32", "3 * int"]),
        (0, json!({"ok": true, "type": "3 * int32"}))
    );
    assert_eq!(
        dynd_json(&["broadcast", "--json", "int32", "3 * ?"]).1["argument"],
        json!("TYPE 2")
    );
}

#[test]
fn type_info_describes_layout() {
    assert_eq!(
        dynd_json(&["type", "info", "--json", "3 * {x: int8, y: ?float64}"]),
        (
            0,
            json!({"ok": true, "type": "3 * {x: int8, y: ?float64}", "dims": ["3"], "dtype": "{x: int8, y: ?float64}",
                   "ndim": 1, "symbolic": false, "size": 72, "align": 8})
        )
    );
    assert_eq!(
        dynd_json(&["type", "info", "--json", "N * T"]).1["size"],
        json!(null)
    );
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(dynd(&["type", "parse"]).0, 2);
    assert_eq!(dynd(&["broadcast"]).0, 2);
    assert_eq!(dynd(&["frobnicate"]).0, 2);
}
