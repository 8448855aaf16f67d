//! Arrays through serde: JSON and CBOR (a binary format) round trips,
//! and bad input as the format's error with dynd's message.
#![cfg(feature = "serde")]

use dynd_array::{Array, Value};

fn arrays() -> Vec<Array> {
    let t = |s: &str| s.parse().unwrap();
    vec![
        Array::from_vec(vec![
            1.0f64,
            -0.0,
            2.5,
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
        ]),
        Array::from_vec(vec![1.5f32, 0.1]),
        Array::from_vec(vec![i64::MIN, -1, i64::MAX]),
        Array::from_vec(vec![u64::MAX, 0]),
        Array::from_vec(vec![true, false]),
        Array::from_scalar(7i8),
        Array::from_nested(vec![vec![1.0f64, 2.0], vec![], vec![3.0]]).unwrap(),
        Array::from_nested(vec![vec![vec![1i32], vec![]], vec![vec![2, 3]]]).unwrap(),
        Array::from_json("[[1, null], [NaN]]", Some(&t("2 * var * ?float64"))).unwrap(),
        Array::from_json("[1, null, 3]", Some(&t("3 * ?int16"))).unwrap(),
        Array::from_json("[[1, 2], [3, -4]]", Some(&t("2 * complex[float64]"))).unwrap(),
        Array::from_json(r#"["a", "", "NaN"]"#, Some(&t("3 * string"))).unwrap(),
        Array::from_json(
            r#"[{"x": 1, "s": "p"}, {"x": 2, "s": "q"}]"#,
            Some(&t("2 * {x: int32, s: string}")),
        )
        .unwrap(),
        Array::from_nested(vec![[1u8, 2], [3, 4]]).unwrap(),
    ]
}

fn same(a: &Array, b: &Array) {
    assert_eq!(a.ty(), b.ty());
    // The strict JSON text tells NaN, -0.0 and every bit of the values.
    assert_eq!(a.to_json(), b.to_json(), "{}", a.ty());
}

#[test]
fn arrays_round_trip_through_json() {
    for a in arrays() {
        let text = serde_json::to_string(&a).unwrap();
        let back: Array = serde_json::from_str(&text).unwrap();
        same(&a, &back);
    }
    let a = Array::from_vec(vec![1.0f64, f64::NAN]);
    assert_eq!(
        serde_json::to_string(&a).unwrap(),
        r#"{"type":"2 * float64","value":[1.0,"NaN"]}"#
    );
    // The fields in either order.
    let back: Array =
        serde_json::from_str(r#"{"value": [[1], []], "type": "2 * var * int8"}"#).unwrap();
    assert_eq!(
        (back.ty().to_string(), back.to_string()),
        ("2 * var * int8".into(), "[[1], []]".into())
    );
}

#[test]
fn arrays_round_trip_through_cbor() {
    for a in arrays() {
        let mut bytes = Vec::new();
        ciborium::into_writer(&a, &mut bytes).unwrap();
        let back: Array = ciborium::from_reader(bytes.as_slice()).unwrap();
        same(&a, &back);
    }
}

#[test]
fn values_round_trip_with_wide_integers() {
    let v = Value::List(vec![
        Value::Int(i128::MAX),
        Value::Int(-5),
        Value::Null,
        Value::Str("x".into()),
    ]);
    let mut bytes = Vec::new();
    ciborium::into_writer(&v, &mut bytes).unwrap();
    assert_eq!(
        ciborium::from_reader::<Value, _>(bytes.as_slice()).unwrap(),
        v
    );
    let json =
        serde_json::to_string(&Value::Object(vec![("a".into(), Value::Bool(true))])).unwrap();
    assert_eq!(json, r#"{"a":true}"#);
}

#[test]
fn bad_input_is_the_formats_error_with_dynds_message() {
    let err = |text: &str| serde_json::from_str::<Array>(text).unwrap_err().to_string();
    let e = err(r#"{"type": "3 * flaot64", "value": []}"#);
    assert!(
        e.contains("invalid datashape") && e.contains("float64"),
        "{e}"
    );
    let e = err(r#"{"type": "2 * int8", "value": [1, 300]}"#);
    assert!(e.contains("300") && e.contains("int8"), "{e}");
    let e = err(r#"{"type": "3 * int8", "value": [1, 2]}"#);
    assert!(e.contains('3') && e.contains('2'), "{e}");
    assert!(err(r#"{"type": "2 * int8"}"#).contains("missing field `value`"));
    assert!(err(r#"{"value": []}"#).contains("missing field `type`"));
    assert!(
        err(r#"{"type": "0 * int8", "value": [], "extra": 1}"#).contains("unknown field `extra`")
    );
    assert!(err(r#"[1, 2]"#).contains(r#"{"type": "<datashape>", "value": <nested data>}"#));
}
