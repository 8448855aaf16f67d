//! `to_json` writes strict JSON that `from_json` reads back faithfully:
//! with the type given, the same type and values; with none, the type
//! inference gives (floats stay floats, non-finite floats included).

use dynd_kernels::{Array, Value};
use proptest::prelude::*;

/// A float from a mix that covers the awkward cases: integral values,
/// fractions, huge and tiny magnitudes, -0.0, NaN and infinities.
fn float() -> impl Strategy<Value = f64> {
    prop_oneof![
        (-1000i32..1000).prop_map(f64::from),
        any::<f64>(),
        Just(-0.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(1e300),
        Just(5e-324),
    ]
}

/// A scalar as JSON text for a dtype, by a naive printer.
fn naive(dtype: &str, x: f64, na: bool) -> String {
    if na {
        return "null".into();
    }
    let x = if dtype.ends_with("float32") {
        x as f32 as f64
    } else {
        x
    };
    match dtype {
        "float64" | "?float64" | "float32" | "?float32" => {
            if x.is_nan() {
                "\"NaN\"".into()
            } else if x.is_infinite() {
                (if x > 0.0 {
                    "\"Infinity\""
                } else {
                    "\"-Infinity\""
                })
                .into()
            } else {
                format!("{x:e}")
            }
        }
        "bool" => (x > 0.0).to_string(),
        d if d.contains("uint") => format!("{}", x.trunc().clamp(0.0, 100.0) as i64),
        _ => format!("{}", x.trunc().clamp(-100.0, 100.0) as i64),
    }
}

fn is_strict_json(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok()
}

/// Rows of values of `dtype` (with NA where the type is an option),
/// as a ragged or a fixed-width array built from JSON text.
fn rows_of(dtype: &'static str) -> impl Strategy<Value = (String, Vec<Vec<String>>)> {
    let option = dtype.starts_with('?');
    let cell = (float(), any::<bool>()).prop_map(move |(x, na)| naive(dtype, x, option && na));
    (
        Just(dtype.to_string()),
        prop::collection::vec(prop::collection::vec(cell, 0..5), 1..6),
    )
}

fn json_of(rows: &[Vec<String>]) -> String {
    let rows: Vec<String> = rows.iter().map(|r| format!("[{}]", r.join(", "))).collect();
    format!("[{}]", rows.join(", "))
}

fn dtypes() -> impl Strategy<Value = (String, Vec<Vec<String>>)> {
    prop_oneof![
        rows_of("float64"),
        rows_of("?float64"),
        rows_of("float32"),
        rows_of("int8"),
        rows_of("?int32"),
        rows_of("uint16"),
        rows_of("int64"),
        rows_of("?int64"),
        rows_of("bool"),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn json_round_trips_with_the_type_given((dtype, rows) in dtypes()) {
        let ty = format!("{} * var * {dtype}", rows.len()).parse().unwrap();
        let a = Array::from_json(&json_of(&rows), Some(&ty)).unwrap();
        let text = a.to_json();
        prop_assert!(is_strict_json(&text), "{text}");
        let back = Array::from_json(&text, Some(&ty)).unwrap();
        prop_assert_eq!(back.ty(), a.ty());
        prop_assert_eq!(back.to_json(), text.clone());
        // The same bits for floats (NaN compares by its text above).
        prop_assert_eq!(back.to_value().to_text(), a.to_value().to_text());
        // Fixed rows too, when the rows have one length.
        let n = rows[0].len();
        if rows.iter().all(|r| r.len() == n) {
            let fixed = format!("{} * {n} * {dtype}", rows.len()).parse().unwrap();
            let f = Array::from_json(&text, Some(&fixed)).unwrap();
            prop_assert_eq!(Array::from_json(&f.to_json(), Some(&fixed)).unwrap().to_json(), text);
        }
    }

    #[test]
    fn json_round_trips_to_the_inferred_type((dtype, rows) in dtypes()) {
        // The types inference gives: int64, float64, bool and their
        // options; rows of different lengths (var) or one length (fixed).
        let inferred = matches!(dtype.as_str(), "float64" | "?float64" | "int64" | "?int64" | "bool");
        prop_assume!(inferred);
        let n = rows[0].len();
        let dims = if rows.iter().all(|r| r.len() == n) {
            format!("{} * {n}", rows.len())
        } else {
            format!("{} * var", rows.len())
        };
        let has_na = rows.iter().flatten().any(|c| c == "null");
        let dtype = if has_na || !dtype.starts_with('?') { dtype.clone() } else { dtype[1..].to_string() };
        let dtype = if has_na && !dtype.starts_with('?') { format!("?{dtype}") } else { dtype };
        let ty = format!("{dims} * {dtype}").parse().unwrap();
        let a = Array::from_json(&json_of(&rows), Some(&ty)).unwrap();
        // Empty rows or only NA leave nothing to infer the data type from.
        prop_assume!(rows.iter().flatten().any(|c| c != "null"));
        let back = Array::from_json(&a.to_json(), None).unwrap();
        prop_assert_eq!(back.ty(), a.ty(), "{}", a.to_json());
        prop_assert_eq!(back.to_json(), a.to_json());
    }
}

#[test]
fn floats_stay_floats_and_non_finite_floats_are_strings() {
    let a = Array::from_json(
        "[1, 2.5, NaN, -inf, -0.0]",
        Some(&"5 * float64".parse().unwrap()),
    )
    .unwrap();
    assert_eq!(a.to_json(), r#"[1.0, 2.5, "NaN", "-Infinity", -0.0]"#);
    assert_eq!(a.to_string(), "[1, 2.5, NaN, -Infinity, -0.0]");
    let back = Array::from_json(&a.to_json(), None).unwrap();
    assert_eq!(back.ty().to_string(), "5 * float64");
    // All NaN: still float64.
    let nan = Array::from_json(r#"["NaN", "Infinity"]"#, None).unwrap();
    assert_eq!(nan.ty().to_string(), "2 * float64");
    // NA among them: an option.
    let na = Array::from_json(r#"["NaN", null, 1]"#, None).unwrap();
    assert_eq!(na.ty().to_string(), "3 * ?float64");
    // Among other strings they are strings.
    let s = Array::from_json(r#"["NaN", "x"]"#, None).unwrap();
    assert_eq!(s.ty().to_string(), "2 * string");
    assert_eq!(s.to_json(), r#"["NaN", "x"]"#);
    // Complex parts, and float32.
    let c = Array::from_json(
        r#"[[1, "NaN"]]"#,
        Some(&"1 * complex[float64]".parse().unwrap()),
    )
    .unwrap();
    assert_eq!(c.to_json(), r#"[[1.0, "NaN"]]"#);
    let f = Array::from_json("[0.1, 3]", Some(&"2 * float32".parse().unwrap())).unwrap();
    assert_eq!(f.to_json(), "[0.1, 3.0]");
    // Value's own printers.
    assert_eq!(Value::Float(2.0).to_json(), "2.0");
    assert_eq!(Value::Float(2.0).to_string(), "2");
}
