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

/// Parses dynd's JSON output as strict JSON (non-finite floats are the
/// strings "NaN", "Infinity", "-Infinity"), keeping the raw text too.
fn dynd_json_raw(args: &[&str]) -> (i32, Value, String) {
    let (code, stdout, _) = dynd(args);
    (
        code,
        serde_json::from_str(&stdout).expect("strict JSON"),
        stdout,
    )
}

#[test]
fn array_prints_value_and_type() {
    assert_eq!(
        dynd(&["array", "[[1, 2], [3]]"]),
        (
            0,
            "[[1, 2], [3]]\ntype: 2 * var * int64\n".into(),
            String::new()
        )
    );
    assert_eq!(
        dynd(&["array", "--json", "--type", "2 * ?float32", "[1.5, null]"]).1,
        "{\"ok\":true,\"type\":\"2 * ?float32\",\"value\":[1.5, null]}\n"
    );
    assert_eq!(
        dynd(&["array", "--json", "[[1, 2], [3, 4]]"]).1,
        "{\"ok\":true,\"type\":\"2 * 2 * int64\",\"value\":[[1, 2], [3, 4]]}\n"
    );
    let (code, v, raw) = dynd_json_raw(&["array", "--json", "[nan, inf, -inf, 1]"]);
    assert_eq!(code, 0);
    assert_eq!(v["type"], json!("4 * float64"));
    assert_eq!(
        v["value"],
        json!(["NaN", "Infinity", "-Infinity", 1.0]),
        "{raw}"
    );
    // What --json printed reads back as the same array.
    let (code, back, _) = dynd_json_raw(&["array", "--json", &v["value"].to_string()]);
    assert_eq!((code, &back), (0, &v));
    assert_eq!(
        dynd(&[
            "array",
            "--type",
            "2 * complex[float32]",
            "[[1, 2], [0, -1]]"
        ])
        .1,
        "[[1, 2], [0, -1]]\ntype: 2 * complex[float32]\n"
    );
    assert_eq!(
        dynd(&["array", "[\"a\", null]"]).1,
        "[\"a\", null]\ntype: 2 * ?string\n"
    );
}

#[test]
fn array_errors_exit_1() {
    let (code, _, stderr) = dynd(&["array", "[1, \"a\"]"]);
    assert_eq!(
        (code, stderr.as_str()),
        (
            1,
            "error: a list mixes int64 values and string values, which have no common type\n"
        )
    );
    assert_eq!(
        dynd_json(&["array", "--json", "--type", "2 * int8", "[1, 300]"]),
        (
            1,
            json!({"ok": false, "error": "300 is out of range for int8 (at index [1])"})
        )
    );
    assert_eq!(
        dynd_json(&["array", "--json", "[1, 2"]),
        (
            1,
            json!({"ok": false, "error": "in VALUE: invalid JSON value at byte 5: expected ',' or ']'"})
        )
    );
    assert_eq!(
        dynd_json(&["array", "--json", "--type", "3 * in", "[1]"]).1["argument"],
        json!("--type")
    );
}

#[test]
fn cast_under_each_error_mode() {
    assert_eq!(
        dynd(&["cast", "--errmode", "overflow", "[1.5, 300]", "2 * int16"]).1,
        "[1, 300]\ntype: 2 * int16\n"
    );
    assert_eq!(
        dynd_json(&["cast", "--json", "[1.5, 300]", "2 * int16"]),
        (
            1,
            json!({"ok": false, "error": "1.5 has a fractional part (assigning float64 to int16; error mode 'fractional' forbids truncation), at index [0]"})
        )
    );
    assert_eq!(
        dynd_json(&[
            "cast",
            "--json",
            "--errmode",
            "nocheck",
            "[300]",
            "1 * int8"
        ]),
        (0, json!({"ok": true, "type": "1 * int8", "value": [44]}))
    );
    assert_eq!(
        dynd_json(&["cast", "--json", "--errmode", "inexact", "[0.1]", "1 * float32"]).1["error"],
        json!("0.1 cannot be represented exactly (assigning float64 to float32; error mode 'inexact'), at index [0]")
    );
    assert_eq!(
        dynd_json(&[
            "cast",
            "--json",
            "--from",
            "2 * ?int32",
            "[1, null]",
            "2 * ?float64"
        ]),
        (
            0,
            json!({"ok": true, "type": "2 * ?float64", "value": [1.0, null]})
        )
    );
    assert_eq!(
        dynd_json(&["cast", "--json", "[1, null]", "2 * float64"]).1["error"],
        json!("NA cannot be assigned to float64, which is not an option type, at index [1]")
    );
    assert_eq!(
        dynd(&["cast", "[[1], [2, 3]]", "2 * 2 * float64"]).1,
        "[[1, 1], [2, 3]]\ntype: 2 * 2 * float64\n"
    );
    assert_eq!(
        dynd_json(&["cast", "--json", "[[1, 2], [2, 3, 4]]", "2 * 2 * float64"]).1["error"],
        json!("a ragged row of length 3 cannot broadcast to length 2, at index [1]")
    );
    assert_eq!(
        dynd_json(&["cast", "--json", "[\"1.5\", \"x\"]", "2 * float64"]).1["error"],
        json!("cannot parse \"x\" as float64, at index [1]")
    );
    assert_eq!(
        dynd(&["cast", "[1, 2]", "2 * string"]).1,
        "[\"1\", \"2\"]\ntype: 2 * string\n"
    );
    assert_eq!(
        dynd_json(&["cast", "--json", "--errmode", "sloppy", "[1]", "1 * int8"]).1["error"],
        json!("unknown error mode 'sloppy' (expected nocheck, overflow, fractional or inexact)")
    );
    assert_eq!(
        dynd(&["cast", "[[1, 2], [3]]", "2 * var * float32"]).1,
        "[[1, 2], [3]]\ntype: 2 * var * float32\n"
    );
}

#[test]
fn eval_calls_builtins_on_json_literals() {
    assert_eq!(
        dynd(&["eval", "add([[1], [2, 3]], [[4], [5]])"]).1,
        "[[5], [7, 8]]\ntype: 2 * var * int64\n"
    );
    assert_eq!(
        dynd(&[
            "eval",
            "--json",
            "multiply(array([1, 2], \"2 * float32\"), 0.5)"
        ])
        .1,
        // The literal is weak (NEP 50): float32 data stays float32.
        "{\"ok\":true,\"type\":\"2 * float32\",\"value\":[0.5, 1.0]}\n"
    );
    assert_eq!(
        dynd(&["eval", "sqrt(add([[2], [7, 14]], 2))"]).1,
        "[[2], [3, 4]]\ntype: 2 * var * float64\n"
    );
    assert_eq!(
        dynd(&["eval", "floor([[2.5], [-0.5, 7]])"]).1,
        "[[2], [-1, 7]]\ntype: 2 * var * float64\n"
    );
    assert_eq!(
        dynd(&["eval", "less(zeros(\"3 * int8\"), ones(\"3 * int8\"))"]).1,
        "[true, true, true]\ntype: 3 * bool\n"
    );
    assert_eq!(
        dynd(&[
            "eval",
            "cast([1.5, 2], \"2 * int32\", errmode=\"overflow\")"
        ])
        .1,
        "[1, 2]\ntype: 2 * int32\n"
    );
    assert_eq!(
        dynd(&["eval", "full(\"2 * 2 * float32\", [1, 2])"]).1,
        "[[1, 2], [1, 2]]\ntype: 2 * 2 * float32\n"
    );
    assert_eq!(
        dynd(&["eval", "[1, 2.5]"]).1,
        "[1, 2.5]\ntype: 2 * float64\n"
    );
}

#[test]
fn eval_errors_say_what_and_where() {
    let cases = [
        ("add([1, 2], [1, 2, 3])", "cannot broadcast dimension 0 of the result: argument 0 has size 2 (2 * int64) and argument 1 has size 3 (3 * int64)"),
        ("xyzzy(1)", "unknown function 'xyzzy' (`dynd list` shows all"),
        ("mena([1])", "unknown function 'mena'; did you mean 'mean'?"),
        ("florr([1])", "unknown function 'florr'; did you mean 'floor'?"),
        ("add([1, 2", "expected ',' or ']' at byte 9"),
        ("add(1, 2, x=3)", "add: unknown keyword argument 'x' (valid keywords: none)"),
        ("add(1)", "add takes 2 argument(s), 1 given"),
        ("sqrt([\"a\"])", "sqrt: no overload accepts (string); the signatures are:"),
        ("add([[1, 2, 3], [4]], [[1, 2], [3, 4]])", "a ragged row of length 3 cannot broadcast to length 2, at index [0]"),
        ("cast([1.5], \"1 * int8\")", "1.5 has a fractional part"),
        ("add(1, 2) extra", "expected the end of the expression at byte 10"),
        ("array([1], \"1 * flaot32\")", "array's type: unknown type 'flaot32'"),
    ];
    for (expr, msg) in cases {
        let (code, v) = dynd_json(&["eval", "--json", expr]);
        assert_eq!(code, 1, "{expr}");
        let err = v["error"].as_str().unwrap();
        assert!(err.contains(msg), "{expr}: {err}");
    }
    let (code, _, stderr) = dynd(&["eval", "--strict", "add([[1, 2], [3, 4]], [1, 2])"]);
    assert_eq!(code, 1);
    assert!(
        stderr.starts_with("error: in 'add(a0, a1)': strict broadcasting: argument 1 (2 * int64)"),
        "{stderr}"
    );
    assert_eq!(
        dynd(&["eval", "--strict", "add([[1, 2], [3, 4]], 1)"]).1,
        "[[2, 3], [4, 5]]\ntype: 2 * 2 * int64\n"
    );
}

#[test]
fn groups_in_eval() {
    let (code, out, err) = dynd(&[
        "eval",
        "--let",
        "v=[12.0, 30.0, 7.0, 18.0, 25.0]",
        "--let",
        "user=[\"bo\", \"al\", \"bo\", \"cy\", \"al\"]",
        "mean(groupby(v, user), axis=1)",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(out.starts_with("[27.5, 9.5, 18]"), "{out}");
    let (code, out, _) = dynd(&["eval", "groupby_keys([3, 1, 3])"]);
    assert_eq!((code, out.lines().next()), (0, Some("[1, 3]")));
    let (code, _, err) = dynd(&["eval", "groupby([1, 2, 3], [1, 2])"]);
    assert_eq!(code, 1);
    assert!(err.contains("2 keys for 3 values"), "{err}");
}

#[test]
fn categories_in_eval() {
    let x = "x=[\"lo\", \"hi\", \"lo\", \"lo\"]";
    let (code, out, err) = dynd(&["eval", "--let", x, "upper(dictionary_encode(x))"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "[\"LO\", \"HI\", \"LO\", \"LO\"]\ntype: 4 * categorical[string]\n"
    );
    let (code, out, err) = dynd(&[
        "eval",
        "--let",
        x,
        "codes(cast(x, \"categorical[string, index=int8]\"))",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "[0, 1, 0, 0]\ntype: 4 * int8\n");
    let (code, out, _) = dynd(&["eval", "--let", x, "dictionary_encode(x) == \"lo\""]);
    assert_eq!(
        (code, out.lines().next()),
        (0, Some("[true, false, true, true]"))
    );
    let (code, _, err) = dynd(&["eval", "codes([1, 2])"]);
    assert_eq!(code, 1);
    assert!(err.contains("a categorical array"), "{err}");
}

#[test]
fn resolve_and_list() {
    assert_eq!(
        dynd_json(&[
            "resolve",
            "--json",
            "(M * N * T, N * P * T) -> M * P * T",
            "10 * 2 * 3 * float64",
            "3 * 4 * float64"
        ]),
        (0, json!({"ok": true, "type": "10 * 2 * 4 * float64"}))
    );
    let (code, v) = dynd_json(&[
        "resolve",
        "--json",
        "(N * float64, N * float64) -> float64",
        "5 * float64",
        "4 * float64",
    ]);
    assert_eq!(code, 1);
    assert!(v["error"]
        .as_str()
        .unwrap()
        .contains("'N' is bound to '5' but meets '4'"));
    assert_eq!(
        dynd(&["resolve", "--strict", "(N * T) -> T", "7 * 3 * int8"]).1,
        "7 * int8\n"
    );
    // A time type's unit and zone bind as variables.
    let shift = "(datetime[unit=U, tz=TZ], timedelta[unit=U]) -> datetime[unit=U, tz=TZ]";
    assert_eq!(
        dynd(&[
            "resolve",
            shift,
            "3 * datetime[unit=\"ms\", tz=\"Europe/Paris\"]",
            "timedelta[unit=\"ms\"]"
        ])
        .1,
        "3 * datetime[unit=\"ms\", tz=\"Europe/Paris\"]\n"
    );
    let (code, v) = dynd_json(&[
        "resolve",
        "--json",
        "(datetime[tz=TZ], datetime[tz=TZ]) -> timedelta",
        "datetime[tz=\"Europe/Paris\"]",
        "datetime[tz=\"UTC\"]",
    ]);
    assert_eq!(code, 1);
    assert!(v["error"]
        .as_str()
        .unwrap()
        .contains("zone variable 'TZ' is bound to 'Europe/Paris' but meets 'UTC'"));
    let (code, v) = dynd_json(&["list", "--json"]);
    assert_eq!(code, 0);
    // Every number type, strings (joined), and instants and durations
    // in each time unit.
    assert_eq!(v["functions"]["add"].as_array().unwrap().len(), 28);
    assert_eq!(v["functions"]["upper"], json!(["(string) -> string"]));
    assert_eq!(
        v["functions"]["cast"],
        json!(["(Any, string, errmode: ?string) -> Any"])
    );
    assert_eq!(
        v["functions"]["dot"][0],
        json!("(N * int32, N * int32) -> int32")
    );
    // `bool` first, then every number (NumPy's truth of a number).
    let not = v["functions"]["logical_not"].as_array().unwrap();
    assert_eq!((not[0].as_str(), not.len()), (Some("(bool) -> bool"), 16));
    assert!(not.contains(&json!("(complex[float64]) -> bool")));
    assert!(v["functions"]["array"].is_array());
    assert!(dynd(&["list"]).1.starts_with("abs\n    (int8) -> int8\n"));
}

#[test]
fn eval_passes_keyword_arguments() {
    assert_eq!(
        dynd(&["eval", "clip([-2, 0.5, 3], lo=0, hi=1)"]).1,
        "[0, 0.5, 1]\ntype: 3 * float64\n"
    );
    let (code, v) = dynd_json(&["eval", "--json", "clip([1], low=0)"]);
    assert_eq!(code, 1);
    assert_eq!(
        v["error"],
        json!("clip: unknown keyword argument 'low' (valid keywords: lo, hi)")
    );
}

#[test]
fn eval_reaches_reductions_scans_and_array_functions() {
    let cases = [
        (
            r#"sum(zeros("2 * 3 * 4 * float64"), axis=[0, 2], keepdims=true)"#,
            "[[[0], [0], [0]]]\ntype: 1 * 3 * 1 * float64\n",
        ),
        (
            r#"split(["a,b", "c"], sep=",")"#,
            "[[\"a\", \"b\"], [\"c\"]]\ntype: 2 * var * string\n",
        ),
        (
            "add.reduce([[1, 2, 3], [4, 5, 6]], axis=0)",
            "[5, 7, 9]\ntype: 3 * int64\n",
        ),
        (
            "maximum.accumulate([[3, 1, 4], [1, 5]], axis=1)",
            "[[3, 3, 4], [1, 5]]\ntype: 2 * var * int64\n",
        ),
        (
            "mean([[1, 2, 3], [4, 5]], axis=0)",
            "[2.5, 3.5, 3]\ntype: var * float64\n",
        ),
        (
            "cumsum([[1, 2], [3, 4]], axis=1)",
            "[[1, 3], [3, 7]]\ntype: 2 * 2 * int64\n",
        ),
        (
            "sorted([3, 1, 2], reverse=true)",
            "[3, 2, 1]\ntype: 3 * int64\n",
        ),
        ("range(1, 7, 2)", "[1, 3, 5]\ntype: 3 * int64\n"),
        (
            "take([[1, 2, 3], [4, 5, 6]], [2, 0], axis=1)",
            "[[3, 1], [6, 4]]\ntype: 2 * 2 * int64\n",
        ),
        (
            r#"fill_na(array([1.5, null], "2 * ?float64"), 0)"#,
            "[1.5, 0]\ntype: 2 * float64\n",
        ),
        (
            r#"index([[1, 2, 3], [4, 5, 6]], ":", "::-1")"#,
            "[[3, 2, 1], [6, 5, 4]]\ntype: 2 * 3 * int64\n",
        ),
    ];
    for (expr, want) in cases {
        let (code, out, err) = dynd(&["eval", expr]);
        assert_eq!((code, out.as_str(), err.as_str()), (0, want, ""), "{expr}");
    }
    // A function the tool defines with #[elemental] (last digits vary with libm).
    let (code, out, _) = dynd(&["eval", "haversine([[0, 0], [0, 90]], [0, 180])"]);
    assert_eq!(code, 0);
    assert!(
        out.starts_with("[20015.0867960205") && out.contains(", 10007.5433980102"),
        "{out}"
    );
    assert!(out.ends_with("type: 2 * float64\n"), "{out}");
    let (code, v) = dynd_json(&["eval", "--json", "subtract.reduce([1, 2])"]);
    assert_eq!(code, 1);
    assert_eq!(
        v["error"],
        json!("subtract has no reduction: it is not declared associative")
    );
    let listed = dynd(&["list"]).1;
    for name in [
        "sum",
        "add.reduce",
        "add.accumulate",
        "cumsum",
        "split",
        "sorted",
        "range",
        "where",
    ] {
        assert!(listed.lines().any(|l| l == name), "{name} is not listed");
    }
}

/// The soundness issue's reproductions: each is an error with exit status
/// 1 (or the documented value), never a crash, abort or hang.
#[test]
fn bad_input_from_the_shell_gets_an_error_not_a_crash() {
    let errors: &[(&str, &str)] = &[
        (
            r#"negative(index(reshape(range(12), [4, 4611686018427387907]), ":", "1000000:1000001"))"#,
            "the sizes' product overflows",
        ),
        (
            r#"cast(index(reshape(range(12), [4, 4611686018427387907]), ":", "1000000:1000001"), "float64")"#,
            "the sizes' product overflows",
        ),
        (
            r#"reshape(array([], "0 * string"), [4611686018427387904, 4])"#,
            "the sizes' product overflows",
        ),
        (
            r#"reshape(range(12), [4, 4611686018427387907])"#,
            "overflows",
        ),
        (
            r#"zeros("100000000000 * float64")"#,
            "cannot allocate 800000000000 bytes",
        ),
        (
            r#"ones("100000000000 * float64")"#,
            "cannot allocate 800000000000 bytes",
        ),
        (
            r#"full("100000000000 * float64", 1)"#,
            "cannot allocate 800000000000 bytes",
        ),
        (
            r#"array([1, 2], "100000000000 * float64")"#,
            "cannot be a dimension of size 100000000000",
        ),
        (
            r#"add(array(1e300, "float64"), array(1, "int8"), bogus=1)"#,
            "unknown keyword",
        ),
        (r#"cast(1e300, "int8")"#, "1e300 is out of range for int8"),
    ];
    for (expr, want) in errors {
        let (code, stdout, stderr) = dynd(&["eval", expr]);
        assert_eq!(code, 1, "{expr}: {stdout} {stderr}");
        assert!(stderr.contains(want), "{expr}: {stderr}");
    }
    let deep = format!("{}1{}", "negative(".repeat(5000), ")".repeat(5000));
    let (code, _, stderr) = dynd(&["eval", &deep]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("expressions nest more than 64 deep"),
        "{stderr}"
    );
    let parens = format!("{}1{}", "(".repeat(5000), ")".repeat(5000));
    let (code, _, stderr) = dynd(&["eval", &parens]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("expressions nest more than 64 deep"),
        "{stderr}"
    );
    let minus = format!("{}1", "- ".repeat(5000));
    let (code, _, stderr) = dynd(&["eval", &minus]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("expressions nest more than 64 deep"),
        "{stderr}"
    );
    assert!(
        stderr.len() < 1000,
        "the message shows a window, not the whole input"
    );
    let values: &[(&str, &str)] = &[
        (
            r#"index(array([1, 1], "2 * uint8"), "::9223372036854775807")"#,
            "[1]\ntype: 1 * uint8\n",
        ),
        (
            r#"max(index(array([1, 1], "2 * uint8"), "::9223372036854775807"))"#,
            "1\ntype: uint8\n",
        ),
        (
            r#"floor_divide(array(-128, "int8"), array(-1, "int8"))"#,
            "-128\ntype: int8\n",
        ),
        (
            r#"remainder(array(-128, "int8"), array(-1, "int8"))"#,
            "0\ntype: int8\n",
        ),
        (
            r#"range(2000)"#,
            "[0, 1, 2, ..., 1997, 1998, 1999]\ntype: 2000 * int64\n",
        ),
    ];
    for (expr, want) in values {
        let (code, stdout, stderr) = dynd(&["eval", expr]);
        assert_eq!((code, stdout.as_str()), (0, *want), "{expr}: {stderr}");
    }
    // Negative numbers are values, not flags.
    assert_eq!(dynd(&["cast", "-1", "int8"]).1, "-1\ntype: int8\n");
    assert_eq!(dynd(&["array", "-2.5"]).1, "-2.5\ntype: float64\n");
}

#[test]
fn eval_takes_infix_expressions_over_named_inputs() {
    let (code, out, err) = dynd(&[
        "eval",
        "--let",
        "x=[[1], [2, 3]]",
        "--let",
        "y=[10, 20]",
        "x * 2 + y > 22",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "[[false, false], [false, true]]\ntype: 2 * 2 * bool\n");
    // Precedence: unary minus, then **, then * / %, then + -, then comparisons.
    let (_, out, _) = dynd(&["eval", "--let", "x=[[1], [2, 3]]", "-x ** 2 + (1 - x) * 3"]);
    assert_eq!(out, "[[-1], [-7, -15]]\ntype: 2 * var * int64\n");
    let (_, out, _) = dynd(&["eval", "2 + 3 * 4 - 10 / 4 % 2"]);
    assert_eq!(out, "13.5\ntype: float64\n");
    let (_, out, _) = dynd(&["eval", "[1, 2] - -1 == [2, 3]"]);
    assert_eq!(out, "[true, true]\ntype: 2 * bool\n");
    // Calls and operators mix; inputs may come from files.
    let dir = std::env::temp_dir().join(format!("dynd-cli-let-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("v.json");
    std::fs::write(&file, "[3.0, 4.0]").unwrap();
    let bind = format!("v=@{}", file.display());
    let (code, out, err) = dynd(&["eval", "--let", &bind, "sqrt(v * v + 16) / 5"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "[1, 1.131370849898476]\ntype: 2 * float64\n");
    std::fs::remove_dir_all(&dir).unwrap();
    // Unknown names and bad bindings say what to do.
    let (code, _, err) = dynd(&["eval", "--let", "x=[1]", "x + y"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("unknown name 'y' (inputs: x; bind one with --let y=JSON)"),
        "{err}"
    );
    let (code, _, err) = dynd(&["eval", "--let", "1x=[1]", "1"]);
    assert_eq!(code, 1);
    assert!(err.contains("'1x' is not a name"), "{err}");
    let (code, _, err) = dynd(&["eval", "--let", "x=[1, 2]", "x + [1, 2, 3]"]);
    assert_eq!(code, 1);
    assert!(err.contains("in 'add(a0, a1)': cannot broadcast"), "{err}");
}

#[test]
fn eval_has_numpys_ufuncs_and_bitwise_operators() {
    // Python's precedence: shifts over `&` over `^` over `|`.
    let (code, out, err) = dynd(&["eval", "--let", "x=[1, 6, 12]", "x & 6 | 1 << 4"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "[16, 22, 20]\ntype: 3 * int64\n");
    let (_, out, _) = dynd(&["eval", "--let", "x=[1, 6]", "x ^ 3 & 1"]);
    assert_eq!(out, "[0, 7]\ntype: 2 * int64\n");
    let (_, out, _) = dynd(&[
        "eval",
        "--let",
        "x=[-1.5, 0.5, 2]",
        "(x > 0) & (x < 1) | isnan(x)",
    ]);
    assert_eq!(out, "[false, true, false]\ntype: 3 * bool\n");
    let (_, out, _) = dynd(&["eval", "~[0, 5] >> 1"]);
    assert_eq!(out, "[-1, -3]\ntype: 2 * int64\n");
    let (_, out, _) = dynd(&["eval", "~[true, false]"]);
    assert_eq!(out, "[false, true]\ntype: 2 * bool\n");
    // The ufuncs by NumPy's names, keywords included.
    let (_, out, _) = dynd(&[
        "eval",
        "floor([-1.5, 2.5]) + round([0.125, 2.5], decimals=2)",
    ]);
    assert_eq!(out, "[-1.88, 4.5]\ntype: 2 * float64\n");
    let (_, out, _) = dynd(&["eval", "gcd([12, 18], 8) + bitwise_count([-1, 255])"]);
    assert_eq!(out, "[5, 10]\ntype: 2 * int64\n");
    let (code, _, err) = dynd(&["eval", "[1.5] & 1"]);
    assert_eq!(code, 1);
    assert!(err.contains("bitwise_and: no overload"), "{err}");
}

#[test]
fn eval_has_the_common_array_functions() {
    let (code, out, err) = dynd(&[
        "eval",
        "--let",
        "x=[[3, 9, 1], [9, 2, 7]]",
        "argmax(x, axis=1)",
    ]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out, "[1, 0]\ntype: 2 * int64\n");
    let (_, out, _) = dynd(&["eval", "--let", "x=[[3, 9, 1], [9, 2, 7]]", "unique(x)"]);
    assert_eq!(out, "[1, 2, 3, 7, 9]\ntype: 5 * int64\n");
    let (_, out, _) = dynd(&["eval", "concatenate([1, 2], [3.5], [4], axis=0)"]);
    assert_eq!(out, "[1, 2, 3.5, 4]\ntype: 4 * float64\n");
    let (_, out, _) = dynd(&["eval", "--let", "x=[0, 5, 0, 7]", "where(x)"]);
    assert_eq!(out, "[[1, 3]]\ntype: 1 * 2 * int64\n");
    let (_, out, _) = dynd(&["eval", "sort([3, 1, 2], ascending=false)"]);
    assert_eq!(out, "[3, 2, 1]\ntype: 3 * int64\n");
    let (_, out, _) = dynd(&["eval", "diff(linspace(0, 1, num=5))"]);
    assert_eq!(out, "[0.25, 0.25, 0.25, 0.25]\ntype: 4 * float64\n");
}

#[test]
fn eval_has_the_ragged_list_functions() {
    let x = "x=[[1, 5, 2], [], [-3]]";
    let run = |expr: &str| {
        let (code, out, err) = dynd(&["eval", "--let", x, expr]);
        assert_eq!(code, 0, "{expr}: {err}");
        out
    };
    assert_eq!(
        run("argmax(x, axis=-1)"),
        "[1, null, 0]\ntype: 3 * ?int64\n"
    );
    assert_eq!(run("num(x)"), "[3, 0, 1]\ntype: 3 * int64\n");
    assert_eq!(
        run("sort(x, ascending=false)"),
        "[[5, 2, 1], [], [-3]]\ntype: 3 * var * int64\n"
    );
    assert_eq!(
        run("pad(x, 2, clip=true, fill=0)"),
        "[[1, 5], [0, 0], [-3, 0]]\ntype: 3 * 2 * int64\n"
    );
    assert_eq!(
        run("filter(x, x > 1)"),
        "[[5, 2], [], []]\ntype: 3 * var * int64\n"
    );
    assert_eq!(
        run("concatenate(x, x, axis=-1)"),
        "[[1, 5, 2, 1, 5, 2], [], [-3, -3]]\ntype: 3 * var * int64\n"
    );
    assert_eq!(
        run("logsumexp(x - x)"),
        "[1.0986122886681098, -Infinity, 0]\ntype: 3 * float64\n"
    );
    assert_eq!(run("max(x, axis=1)"), "[5, null, -3]\ntype: 3 * ?int64\n");
    let (code, _, err) = dynd(&["eval", "--let", x, "argmax(x, axis=0)"]);
    assert_eq!(code, 1);
    assert!(err.contains("the last one (-1)"), "{err}");
}

#[test]
fn sql_without_the_tool_says_how_to_install_it() {
    // No dynd-sql beside the test binary's dynd, and none on an empty PATH.
    let out = Command::new(env!("CARGO_BIN_EXE_dynd"))
        .args(["sql", "SELECT 1"])
        .env("PATH", "")
        .output()
        .expect("the dynd binary runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("cargo install --path crates/dynd-datafusion"),
        "{err}"
    );
}

/// The second soundness pass (issue 34): each reproducer that reaches the
/// tool, through the binary.
mod soundness {
    use super::*;

    /// `+` repeated `n - 1` times between `n` copies of `term`.
    fn chain(term: &str, op: &str, n: usize) -> String {
        vec![term; n].join(op)
    }

    #[test]
    fn mismatched_fixed_rows_are_broadcast_errors_not_panics() {
        let (code, out, err) = dynd(&["cast", "[[1],[2,3]]", "3 * var * int8"]);
        assert_eq!((code, out.as_str()), (1, ""), "{err}");
        assert!(
            err.contains("a dimension of size 2 cannot broadcast to size 3"),
            "{err}"
        );
        let (code, _, err) = dynd(&["eval", "add([[1], [1]], [[[], [1]], []])"]);
        assert_eq!(code, 1, "{err}");
        assert!(err.contains("cannot broadcast"), "{err}");
        assert!(!err.contains("panicked"), "{err}");
    }

    #[test]
    fn a_leading_plus_is_a_sign_and_a_bare_plus_a_parse_error() {
        assert_eq!(
            dynd(&["array", "+1"]),
            (0, "1\ntype: int64\n".into(), String::new())
        );
        assert_eq!(
            dynd(&["array", "+NaN"]),
            (0, "NaN\ntype: float64\n".into(), String::new())
        );
        assert_eq!(
            dynd(&["cast", "+1", "int8"]),
            (0, "1\ntype: int8\n".into(), String::new())
        );
        assert_eq!(
            dynd(&["eval", "--let", "x=+1", "x"]),
            (0, "1\ntype: int64\n".into(), String::new())
        );
        assert_eq!(
            dynd(&["eval", "+1 + +2"]),
            (0, "3\ntype: int64\n".into(), String::new())
        );
        for bad in ["+", "+-1", "-", "+x"] {
            let (code, _, err) = dynd(&["array", bad]);
            assert_eq!(code, 1, "{bad}: {err}");
            assert!(err.contains("expected a JSON value"), "{bad}: {err}");
        }
        let (code, _, err) = dynd(&["eval", "+"]);
        assert_eq!(code, 1, "{err}");
        assert!(
            err.contains("expected a JSON value") && err.contains('^'),
            "{err}"
        );
    }

    #[test]
    fn a_name_bound_twice_is_an_error() {
        let (code, out, err) = dynd(&["eval", "--let", "x=[1]", "--let", "x=[2]", "x"]);
        assert_eq!((code, out.as_str()), (1, ""));
        assert!(err.contains("--let x is given twice"), "{err}");
    }

    #[test]
    fn long_operator_chains_evaluate_or_say_they_are_too_long() {
        // 6,000 terms overflowed the stack; 60,000 (about the most one
        // shell argument holds) evaluate, with every operator.
        let six = chain("1", "+", 6000);
        assert_eq!(dynd(&["eval", &six]).1, "6000\ntype: int64\n");
        let long = chain("x", "-", 60_000);
        let (code, out, err) = dynd(&["eval", "--let", "x=[1, 2]", &long]);
        assert_eq!(code, 0, "{err}");
        assert_eq!(out, "[-59998, -119996]\ntype: 2 * int64\n");
        let product = chain("1", "*", 40_000);
        assert_eq!(dynd(&["eval", &product]).1, "1\ntype: int64\n");
        // Nested parentheses still stop at their own limit.
        let deep = format!("{}1{}", "(".repeat(65), ")".repeat(65));
        let (code, _, err) = dynd(&["eval", &deep]);
        assert_eq!(code, 1);
        assert!(err.contains("nest more than 64 deep"), "{err}");
    }

    #[test]
    fn a_closed_pipe_ends_the_tool_quietly() {
        use std::io::Read;
        use std::process::Stdio;
        let big = format!("[{}]", chain("1", ", ", 20_000));
        for _ in 0..5 {
            let mut child = Command::new(env!("CARGO_BIN_EXE_dynd"))
                .args(["array", &big])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("runs");
            // Read nothing and close the pipe at once.
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
            assert!(
                !err.contains("panicked") && !err.contains("Broken pipe"),
                "{err}"
            );
        }
    }

    #[test]
    fn uint128_and_large_integer_literals_are_exact() {
        assert_eq!(
            dynd(&[
                "array",
                "--type",
                "uint128",
                "340282366920938463463374607431768211455"
            ])
            .1,
            "340282366920938463463374607431768211455\ntype: uint128\n"
        );
        assert_eq!(
            dynd(&[
                "eval",
                r#"cast(array(200000000000000000000000000000000000001, "uint128"), "string")"#
            ])
            .1,
            "\"200000000000000000000000000000000000001\"\ntype: string\n"
        );
        assert_eq!(
            dynd(&["eval", r#"negative(array(1, "uint128"))"#]).1,
            "340282366920938463463374607431768211455\ntype: uint128\n"
        );
        // The smallest integer type that holds each literal.
        for (literal, ty) in [
            ("9223372036854775807", "int64"),
            ("9223372036854775808", "uint64"),
            ("-9223372036854775809", "int128"),
            ("170141183460469231731687303715884105727", "int128"),
            ("170141183460469231731687303715884105728", "uint128"),
            ("[-1, 18446744073709551616]", "2 * int128"),
        ] {
            let (code, out, err) = dynd(&["array", literal]);
            assert_eq!(code, 0, "{literal}: {err}");
            assert_eq!(out, format!("{literal}\ntype: {ty}\n").replace(", ", ", "));
        }
        // Beyond every integer type: an error, not a rounded float.
        let (code, _, err) = dynd(&["array", "3402823669209384634633746074317682114560"]);
        assert_eq!(code, 1);
        assert!(err.contains("too large for any integer type"), "{err}");
        let (code, _, err) = dynd(&["array", "[-1, 340282366920938463463374607431768211455]"]);
        assert_eq!(code, 1);
        assert!(err.contains("no integer type holds both"), "{err}");
        // JSON output keeps the digits.
        // (Read as text: serde_json without arbitrary precision would
        // read the number back as a float.)
        let (code, out, _) = dynd(&["array", "--json", "340282366920938463463374607431768211455"]);
        assert_eq!(code, 0);
        assert!(
            out.contains("\"value\":340282366920938463463374607431768211455}"),
            "{out}"
        );
    }

    #[test]
    fn errors_quote_a_bounded_window_of_the_input() {
        let ones = format!("[{}]", chain("1", ",", 40_000));
        let (code, _, err) = dynd(&["array", "--type", "{x: int8}", &ones]);
        assert_eq!(code, 1);
        assert!(
            err.len() < 400,
            "{} bytes: {}",
            err.len(),
            &err[..400.min(err.len())]
        );
        assert!(err.contains("bytes in all"), "{err}");
    }

    #[cfg(unix)]
    #[test]
    fn sql_says_which_signal_ended_dynd_sql() {
        use std::os::unix::fs::PermissionsExt;
        let dir = std::env::temp_dir().join(format!("dynd-signal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fake = dir.join("dynd-sql");
        std::fs::write(&fake, "#!/bin/sh\nkill -SEGV $$\n").unwrap();
        std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
        let out = Command::new(env!("CARGO_BIN_EXE_dynd"))
            .args(["sql", "SELECT 1"])
            .env("PATH", &dir)
            .output()
            .expect("the dynd binary runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(128 + 11), "{err}");
        assert!(err.contains("killed by signal 11 (SIGSEGV)"), "{err}");
        std::fs::remove_dir_all(&dir).ok();
    }
}

/// A `type` subcommand given at the top level points at `dynd type …`;
/// other unknown subcommands get clap's own message.
#[test]
fn type_subcommands_at_the_top_level_point_at_type() {
    for sub in ["parse", "match", "info"] {
        let (code, stdout, stderr) = dynd(&[sub, "3 * int32"]);
        assert_eq!(code, 2, "{sub}");
        assert!(stdout.is_empty());
        assert!(
            stderr.contains(&format!(
                "'{sub}' is a subcommand of 'type': 'dynd type {sub} ...'"
            )),
            "{stderr}"
        );
    }
    let (code, _, stderr) = dynd(&["prase", "x"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("unrecognized subcommand 'prase'"),
        "{stderr}"
    );
    assert!(!stderr.contains("subcommand of 'type'"), "{stderr}");
}

/// NumPy's indexing and slicing in infix `eval`: integers, slices with
/// any part left out, negative steps, several per bracket and brackets
/// in a row, binding tighter than unary minus; mistakes say where.
#[test]
fn eval_indexes_and_slices_like_numpy() {
    let x = "x=[[1, 2, 3], [4, 5, 6]]";
    let cases = [
        ("x[1:]", json!([[4, 5, 6]])),
        ("x[:, 0]", json!([1, 4])),
        ("x[::-1]", json!([[4, 5, 6], [1, 2, 3]])),
        ("x[-1, ::2]", json!([4, 6])),
        ("x[0][1]", json!(2)),
        ("-x[0, 1:] * 2", json!([-4, -6])),
        ("sum(x[:, 1:], axis=1)", json!([5, 11])),
        ("[1, 2, 3][::2]", json!([1, 3])),
        ("r[1]", json!([2, 3])),
    ];
    for (expr, want) in cases {
        let (code, v) = dynd_json(&[
            "eval",
            "--json",
            "--let",
            x,
            "--let",
            "r=[[1], [2, 3]]",
            expr,
        ]);
        assert_eq!((code, &v["value"]), (0, &want), "{expr}: {v}");
    }
    for (expr, msg) in [
        ("x[1:2:3:4]", "expected ',' or ']' at byte 7"),
        // Any other expression is a mask: here an unbound name.
        ("x[a]", "unknown name 'a'"),
        (
            "x[x > 1, 0]",
            "a boolean mask indexes alone: x[mask] at byte 2",
        ),
        ("x[0", "expected ',' or ']' at byte 3"),
        (
            "x[:, -5]",
            "index -5 is out of bounds for dimension 1 of size 3",
        ),
    ] {
        let (code, v) = dynd_json(&["eval", "--json", "--let", x, expr]);
        assert_eq!(code, 1, "{expr}");
        let e = v["error"].as_str().unwrap();
        assert!(e.contains(msg), "{expr}: {e}");
    }
}

/// Issue 57's command-line reproducers.
#[test]
fn eval_third_soundness_pass() {
    let x = "x=[[1, 2, 3], [4, 5, 6]]";
    let cases = [
        // A negative infinity literal is a literal (array's first argument).
        (
            r#"array(-Infinity, "float32")"#,
            json!(f64::NEG_INFINITY.to_string()),
            "float32",
        ),
        ("array(-inf, \"float64\") < 0", json!(true), "bool"),
        // `//` is floor_divide.
        ("7 // 2", json!(3), "int64"),
        ("-7.0 // 2", json!(-4.0), "float64"),
        // Literals are weak scalars (NEP 50).
        (
            r#"cast([1.5], "1 * float32") * 1.0"#,
            json!([1.5]),
            "1 * float32",
        ),
        (r#"cast([1], "1 * int8") + 1"#, json!([2]), "1 * int8"),
        (r#"cast([1], "1 * int8") + 300"#, json!([301]), "1 * int64"),
        (
            r#"cast([1], "1 * int8") * 1.5"#,
            json!([1.5]),
            "1 * float64",
        ),
        // None / newaxis, masks, outer.
        ("x[x > 2]", json!([[3], [4, 5, 6]]), "2 * var * int64"),
        ("x[0][x[0] >= 2]", json!([2, 3]), "var * int64"),
        (
            "equal.outer([1, 2], [1, 2, 3])",
            json!([[true, false, false], [false, true, false]]),
            "2 * 3 * bool",
        ),
        // Wrong results before: pow's parity past 2^52.
        ("power(-1.0, 4503599627370497.0)", json!(-1.0), "float64"),
        ("remainder(0.0, -1.0)", json!(-0.0), "float64"),
        // unique along an axis, with counts.
        (
            "unique(x, axis=1)",
            json!([[1, 2, 3], [4, 5, 6]]),
            "2 * 3 * int64",
        ),
        (
            "unique([[1, 2], [0, 5], [1, 2]], axis=0)",
            json!([[0, 5], [1, 2]]),
            "2 * 2 * int64",
        ),
        (
            "unique_counts([3, 1, 3])",
            json!([[1, 3], [1, 2]]),
            "(2 * int64, 2 * int64)",
        ),
        (
            "unique([3, 1, 3], return_counts=true)",
            json!([[1, 3], [1, 2]]),
            "(2 * int64, 2 * int64)",
        ),
    ];
    for (expr, want, ty) in cases {
        let (code, v) = dynd_json(&["eval", "--json", "--let", x, expr]);
        assert_eq!(code, 0, "{expr}: {v}");
        if want.is_string() {
            assert_eq!(
                v["value"].to_string().trim_matches('"'),
                "-Infinity",
                "{expr}: {v}"
            );
        } else {
            assert_eq!(v["value"], want, "{expr}: {v}");
        }
        assert_eq!(v["type"], ty, "{expr}: {v}");
    }
    for (expr, shape) in [
        ("x[:, None]", "2 * 1 * 3 * int64"),
        ("x[None]", "1 * 2 * 3 * int64"),
        ("x[1, newaxis]", "1 * 3 * int64"),
    ] {
        let (code, v) = dynd_json(&["eval", "--json", "--let", x, expr]);
        assert_eq!((code, v["type"].as_str()), (0, Some(shape)), "{expr}: {v}");
    }
    // A --let name that is a literal keyword is refused, not ignored.
    for word in ["null", "true", "false", "NaN", "Infinity"] {
        let (code, v) = dynd_json(&["eval", "--json", "--let", &format!("{word}=1"), word]);
        assert_eq!(code, 1, "{word}");
        let e = v["error"].as_str().unwrap();
        assert!(e.contains("is a literal in expressions"), "{word}: {e}");
    }
}

#[test]
fn eval_reads_fields_and_builds_records() {
    let p = r#"p=[{"x": 1, "y": 2.5}, {"x": 3, "y": -1}]"#;
    assert_eq!(
        dynd(&["eval", "--let", p, "p.x * 2.0 + p.y"]).1,
        "[4.5, 5]\ntype: 2 * float64\n"
    );
    assert_eq!(
        dynd(&["eval", "--let", p, r#"p["y"]"#]).1,
        "[2.5, -1]\ntype: 2 * float64\n"
    );
    let nested = r#"r=[{"a": {"b": [1, 2]}}, {"a": {"b": []}}]"#;
    assert_eq!(
        dynd(&["eval", "--let", nested, "r.a.b"]).1,
        "[[1, 2], []]\ntype: 2 * var * int64\n"
    );
    assert_eq!(
        dynd(&[
            "eval",
            r#"zip([1, 2, 3], [[1.5], [], [2.5, 3.5]], fields=["a", "b"]).b"#
        ])
        .1,
        "[[1.5], [], [2.5, 3.5]]\ntype: 3 * var * float64\n"
    );
    assert_eq!(
        dynd(&["eval", r#"zip([1, 2], ["a", "b"]).1"#]).1,
        "[\"a\", \"b\"]\ntype: 2 * string\n"
    );
    // A method of a callable is still a call.
    assert_eq!(dynd(&["eval", "add.reduce([1, 2])"]).1, "3\ntype: int64\n");
    let (code, _, stderr) = dynd(&["eval", "--let", p, "p.z"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("{x: int64, y: float64} has no field 'z'; its fields are x, y"),
        "{stderr}"
    );
}
