//! Arrays: construction from Rust values, literals and JSON; type
//! inference; reading back; printing.

use dynd_kernels::{array, Array, Complex, Error, Value, F16};
use dynd_types::{Dim, Type};

fn t(s: &str) -> Type {
    s.parse().unwrap()
}

#[test]
fn literals_infer_fixed_and_ragged_dimensions() {
    let cases: &[(Array, &str, &str)] = &[
        (array![1, 2, 3], "3 * int64", "[1, 2, 3]"),
        (array![1, 2.5], "2 * float64", "[1, 2.5]"),
        (array![[1, 2], [3, 4]], "2 * 2 * int64", "[[1, 2], [3, 4]]"),
        (
            array![[1.0], [5.0, 8.0]],
            "2 * var * float64",
            "[[1], [5, 8]]",
        ),
        (
            array![[[1], [2, 3]], [[4]]],
            "2 * var * var * int64",
            "[[[1], [2, 3]], [[4]]]",
        ),
        (
            array![[1], [2, 3], []],
            "3 * var * int64",
            "[[1], [2, 3], []]",
        ),
        (array![1.5, null], "2 * ?float64", "[1.5, null]"),
        (array![true, false], "2 * bool", "[true, false]"),
        (array!["a", "bc"], "2 * string", "[\"a\", \"bc\"]"),
        (array![], "0 * float64", "[]"),
        (array![[], []], "2 * 0 * float64", "[[], []]"),
    ];
    for (a, ty, text) in cases {
        assert_eq!(a.ty().to_string(), *ty);
        assert_eq!(a.to_string(), *text);
    }
}

#[test]
fn json_with_an_explicit_type() {
    let cases = [
        ("[1, 2, 3]", "3 * int8", "[1, 2, 3]"),
        (
            "[[1, null], [3, 4]]",
            "2 * 2 * ?int16",
            "[[1, null], [3, 4]]",
        ),
        ("[[1, 2], [3]]", "var * var * float32", "[[1, 2], [3]]"),
        ("[[1, 2], [3]]", "2 * var * uint8", "[[1, 2], [3]]"),
        (
            "[[1, 2], [3, -1.5]]",
            "2 * 2 * complex[float64]",
            "[[[1, 0], [2, 0]], [[3, 0], [-1.5, 0]]]",
        ),
        (
            "[[1, 2], [0.5, -1]]",
            "2 * complex[float32]",
            "[[1, 2], [0.5, -1]]",
        ),
        (
            "[NaN, inf, -Infinity]",
            "3 * float64",
            "[NaN, Infinity, -Infinity]",
        ),
        ("[NaN, null]", "2 * ?float64", "[NaN, null]"),
        // Halves print as the shortest decimal that is the same half (as NumPy does).
        ("[0.5, 65504, inf]", "3 * float16", "[0.5, 65500, Infinity]"),
        ("[1.1, 3.4e38]", "2 * float32", "[1.1, 3.4e38]"),
        (
            "[\"x\", null, \"\u{e9}t\u{e9}\"]",
            "3 * ?string",
            "[\"x\", null, \"\u{e9}t\u{e9}\"]",
        ),
        ("[[\"a\"], []]", "2 * var * string", "[[\"a\"], []]"),
        (
            "170141183460469231731687303715884105727",
            "int128",
            "170141183460469231731687303715884105727",
        ),
        ("true", "bool", "true"),
        ("7", "uint64", "7"),
    ];
    for (json, ty, text) in cases {
        let a =
            Array::from_json(json, Some(&t(ty))).unwrap_or_else(|e| panic!("{json} as {ty}: {e}"));
        assert_eq!(a.to_string(), text, "{json} as {ty}");
        assert_eq!(a.ty().to_string(), ty);
    }
}

#[test]
fn values_that_do_not_fit_name_the_element() {
    // Each: the JSON, the type, the message, and the index the error names.
    let cases: [(&str, &str, &str, &[usize]); 10] = [
        (
            "[1, 300]",
            "2 * int8",
            "300 is out of range for int8 (at index [1])",
            &[1],
        ),
        (
            "[1, 2.5]",
            "2 * int32",
            "2.5 has a fractional part, and cannot be stored in int32 (at index [1])",
            &[1],
        ),
        (
            "[[1, 2], [3]]",
            "2 * 2 * int32",
            "a list of length 1 cannot be a dimension of size 2 (type 2 * int32) (at index [1])",
            &[1],
        ),
        (
            "[1, null]",
            "2 * int32",
            "null (NA) cannot be stored in int32, which is not an option type (at index [1])",
            &[1],
        ),
        (
            "[1, \"a\"]",
            "2 * int32",
            "int32 needs a number, not \"a\" (at index [1])",
            &[1],
        ),
        (
            "[-1]",
            "1 * uint8",
            "-1 is out of range for uint8 (at index [0])",
            &[0],
        ),
        (
            "[[1], 2]",
            "2 * var * int32",
            "var * int32 needs a list, not 2 (at index [1])",
            &[1],
        ),
        (
            "[1, 2]",
            "3 * int32",
            "a list of length 2 cannot be a dimension of size 3 (type 3 * int32)",
            &[],
        ),
        (
            "[2]",
            "1 * bool",
            "2 is out of range for bool (at index [0])",
            &[0],
        ),
        (
            "[1e9]",
            "1 * float16",
            "1000000000 is out of range for float16 (at index [0])",
            &[0],
        ),
    ];
    for (json, ty, msg, at) in cases {
        let err = Array::from_json(json, Some(&t(ty))).unwrap_err();
        assert_eq!(err.to_string(), msg, "{json} as {ty}");
        let Error::FromValue { path, .. } = &err else {
            panic!("{json} as {ty}: {err:?}")
        };
        assert_eq!(path, at, "{json} as {ty}");
    }
    // The problem carries the data: here the list's length and the size.
    let err = Array::from_json("[[1, 2], [3]]", Some(&t("2 * 2 * int32"))).unwrap_err();
    let Error::FromValue { problem, .. } = err else {
        panic!("{err:?}")
    };
    assert!(matches!(
        *problem,
        dynd_types::ValueProblem::Length {
            len: 1,
            size: 2,
            ..
        }
    ));
    assert!(Array::from_json("[1, 2", None)
        .unwrap_err()
        .to_string()
        .contains("at byte 5"));
    for (json, msg) in [
        ("[1, \"a\"]", "mixes int64 values and string values"),
        ("[1, [2]]", "mixes lists and scalars"),
        ("[null, [2]]", "mixes null and lists"),
    ] {
        let err = Array::from_json(json, None).unwrap_err();
        assert!(err.to_string().contains(msg), "{json}: {err}");
    }
    assert!(matches!(
        Array::from_json("[1]", Some(&t("N * int32"))),
        Err(Error::Symbolic { .. })
    ));
}

#[test]
fn rust_values_zero_copy_and_read_back() {
    let v = vec![1.5f64, 2.5, 3.5];
    let ptr = v.as_ptr();
    let a = Array::from_vec(v);
    assert_eq!(a.as_slice::<f64>().unwrap().as_ptr(), ptr);
    assert_eq!(a.ty().to_string(), "3 * float64");
    assert!(a.as_slice::<f32>().is_err());
    assert_eq!(
        a.as_slice::<i64>().unwrap_err().to_string(),
        "the array's data type is float64, not int64"
    );

    let m = Array::from_shape_vec(&[2, 3], (0..6).collect::<Vec<i32>>()).unwrap();
    assert_eq!(m.ty().to_string(), "2 * 3 * int32");
    assert_eq!(m.strides(), vec![12, 4]);
    assert!(m.is_c_contiguous());
    assert_eq!(m.get::<i32>(&[1, 2]).unwrap(), 5);
    assert_eq!(m.to_vec::<i32>().unwrap(), vec![0, 1, 2, 3, 4, 5]);
    assert_eq!(
        m.get::<i32>(&[2, 0]).unwrap_err().to_string(),
        "index 2 is out of bounds for dimension 0 of size 2"
    );
    assert!(Array::from_shape_vec(&[2, 2], vec![1u8; 3]).is_err());

    let s = Array::from_scalar(7u16);
    assert_eq!(format!("{s:?}"), "Array(7, type=\"uint16\")");
    assert_eq!(s.ndim(), 0);
    assert_eq!(s.get::<u16>(&[]).unwrap(), 7);

    let c = Array::from_vec(vec![Complex::new(1.0f32, -2.0)]);
    assert_eq!(c.to_string(), "[[1, -2]]");
    let h = Array::from_vec(vec![F16::from_f64(0.5)]);
    assert_eq!(h.to_string(), "[0.5]");
    assert_eq!(h.ty().to_string(), "1 * float16");
}

#[test]
fn static_data_is_read_only() {
    static DATA: [i32; 3] = [1, 2, 3];
    let a = Array::from_static(&DATA);
    assert!(a.is_readonly());
    assert_eq!(a.as_slice::<i32>().unwrap(), &DATA);
    assert!(!Array::from_vec(vec![1]).is_readonly());
}

#[test]
fn ragged_reads() {
    let a = array![[1, 2, 3], [4], []];
    assert_eq!(a.shape(), vec![Dim::Fixed(3), Dim::Var]);
    assert_eq!(a.get::<i64>(&[0, 2]).unwrap(), 3);
    assert_eq!(a.get::<i64>(&[1, 0]).unwrap(), 4);
    assert_eq!(
        a.get::<i64>(&[2, 0]).unwrap_err().to_string(),
        "index 0 is out of bounds for dimension 1 of size 0"
    );
    assert!(a.to_vec::<i64>().is_err());
    assert_eq!(
        a.to_value(),
        Value::parse_json("[[1, 2, 3], [4], []]").unwrap()
    );
}

#[test]
fn zeros_of_a_type() {
    let z = Array::zeros(&t("2 * 3 * ?float32")).unwrap();
    assert_eq!(z.to_string(), "[[null, null, null], [null, null, null]]");
    let z = Array::zeros(&t("2 * int16")).unwrap();
    assert_eq!(z.to_string(), "[0, 0]");
    let z = Array::zeros(&t("2 * string")).unwrap();
    assert_eq!(z.to_string(), "[\"\", \"\"]");
    assert!(Array::zeros(&t("var * int8")).is_err());
}
