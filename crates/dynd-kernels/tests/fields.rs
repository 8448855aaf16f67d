//! Tuples and structs: construction, inference, printing, field-by-field
//! assignment with broadcasting and errors that name the field.

use dynd_kernels::ArrayOps;
use dynd_kernels::{array, Array, ErrorMode, Value};
use dynd_types::Type;

fn t(s: &str) -> Type {
    s.parse().unwrap()
}

fn arr(json: &str, ty: &str) -> Array {
    Array::from_json(json, Some(&t(ty))).unwrap_or_else(|e| panic!("{json} as {ty}: {e}"))
}

#[test]
fn structs_and_tuples_build_and_print() {
    let a = Array::from_json("[{\"x\": 1, \"y\": 2.5}, {\"x\": 3, \"y\": null}]", None).unwrap();
    assert_eq!(a.ty().to_string(), "2 * {x: int64, y: ?float64}");
    assert_eq!(
        a.to_string(),
        "[{\"x\": 1, \"y\": 2.5}, {\"x\": 3, \"y\": null}]"
    );
    let b = arr("[[1, \"a\"], [2, \"bc\"]]", "2 * (int8, string)");
    assert_eq!(b.to_string(), "[[1, \"a\"], [2, \"bc\"]]");
    // Fields in any order, or positional.
    let c = arr(
        "[{\"y\": [1, 2], \"x\": true}, [false, [3]]]",
        "2 * {x: bool, y: var * int16}",
    );
    assert_eq!(
        c.to_string(),
        "[{\"x\": true, \"y\": [1, 2]}, {\"x\": false, \"y\": [3]}]"
    );
    let d = arr(
        "{\"pos\": [1, 2, 3], \"tag\": \"p\"}",
        "{pos: 3 * float32, tag: string}",
    );
    assert_eq!(d.to_json(), "{\"pos\": [1.0, 2.0, 3.0], \"tag\": \"p\"}");
    assert_eq!(d.to_string(), "{\"pos\": [1, 2, 3], \"tag\": \"p\"}");
    assert_eq!(
        Array::zeros(&t("2 * {a: int8, b: ?float64}"))
            .unwrap()
            .to_string(),
        "[{\"a\": 0, \"b\": null}, {\"a\": 0, \"b\": null}]"
    );
}

#[test]
fn struct_values_that_do_not_fit_say_which_field() {
    for (json, ty, msg) in [
        (
            "{\"x\": 1}",
            "{x: int8, y: int8}",
            "field \"y\" of {x: int8, y: int8} is missing",
        ),
        (
            "{\"x\": 1, \"z\": 2}",
            "{x: int8}",
            "{x: int8} has no field \"z\"",
        ),
        (
            "[1, 2, 3]",
            "(int8, int8)",
            "(int8, int8) needs a list of its fields, not [1, 2, 3]",
        ),
        (
            "[{\"x\": 300}]",
            "1 * {x: int8}",
            "300 is out of range for int8 (at index [0])",
        ),
    ] {
        let err = Array::from_json(json, Some(&t(ty))).unwrap_err();
        assert!(err.to_string().contains(msg), "{json} as {ty}: {err}");
    }
    let err = Array::from_json("[{\"x\": 1}, {\"y\": 2}]", None).unwrap_err();
    assert!(
        err.to_string()
            .contains("a list mixes objects and objects with other fields"),
        "{err}"
    );
}

#[test]
fn field_by_field_assignment() {
    let src = arr(
        "[{\"x\": 1, \"y\": 2.5}, {\"x\": 3, \"y\": null}]",
        "2 * {x: int64, y: ?float64}",
    );
    // By name, in another order and other types.
    let out = src
        .cast(&t("2 * {y: ?float32, x: int16}"), ErrorMode::Fractional)
        .unwrap();
    assert_eq!(
        out.to_string(),
        "[{\"y\": 2.5, \"x\": 1}, {\"y\": null, \"x\": 3}]"
    );
    // Struct to tuple, positionally.
    let out = src
        .cast(&t("2 * (float64, ?float64)"), ErrorMode::Fractional)
        .unwrap();
    assert_eq!(out.to_string(), "[[1, 2.5], [3, null]]");
    // Broadcast one struct to many.
    let one = arr("{\"x\": 7, \"y\": 0.5}", "{x: int64, y: ?float64}");
    let mut many = Array::zeros(&t("3 * {x: int32, y: ?float64}")).unwrap();
    many.assign(&one, ErrorMode::Fractional).unwrap();
    assert_eq!(
        many.to_value(),
        Value::parse_json(
            "[{\"x\": 7, \"y\": 0.5}, {\"x\": 7, \"y\": 0.5}, {\"x\": 7, \"y\": 0.5}]"
        )
        .unwrap()
    );
    // Fields with dimensions.
    let src = arr("[{\"p\": [1, 2]}, {\"p\": [3]}]", "2 * {p: var * int32}");
    let out = src
        .cast(&t("2 * {p: 2 * float64}"), ErrorMode::Fractional)
        .unwrap();
    assert_eq!(out.to_string(), "[{\"p\": [1, 2]}, {\"p\": [3, 3]}]");
    // Strings inside a struct.
    let src = arr("[{\"n\": 1, \"s\": \"a\"}]", "1 * {n: int8, s: string}");
    let out = src.cast(&t("1 * {n: string, s: string}"), ErrorMode::Fractional);
    assert!(
        out.is_err(),
        "two string fields in one assignment are not supported yet"
    );
    let out = src
        .cast(&t("1 * {n: float64, s: string}"), ErrorMode::Fractional)
        .unwrap();
    assert_eq!(out.to_string(), "[{\"n\": 1, \"s\": \"a\"}]");
}

#[test]
fn field_errors_name_the_field_and_index() {
    let src = arr(
        "[{\"x\": 1, \"y\": 2.5}, {\"x\": 300, \"y\": 1}]",
        "2 * {x: int64, y: float64}",
    );
    let err = src
        .cast(&t("2 * {x: int8, y: float64}"), ErrorMode::Overflow)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "in field 'x': 300 is out of range for int8 (assigning int64 to int8), at index [1]"
    );
    let err = src
        .cast(&t("2 * {x: int64, z: float64}"), ErrorMode::Overflow)
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "cannot assign {x: int64, y: float64} to {x: int64, z: float64}: the destination has no field 'y'"
    );
    let err = src
        .cast(&t("2 * (int64, float64, int8)"), ErrorMode::Overflow)
        .unwrap_err();
    assert!(
        err.to_string().contains("3 fields cannot take 2 fields"),
        "{err}"
    );
    let lit = array![1, 2];
    assert!(lit.cast(&t("2 * {x: int8}"), ErrorMode::Overflow).is_err());
}
