//! Callables: dispatch (exact, promotion, ambiguity, no match), results of
//! the builtins, broadcasting modes, `out` arrays, and errors.

use dynd_arrfunc::{builtins, Callable, Error, Overload};
use dynd_kernels::elwise::Leaf;
use dynd_kernels::ArrayOps;
use dynd_kernels::{array, Array};
use dynd_types::Type;

fn t(s: &str) -> Type {
    s.parse().unwrap()
}

fn arr(json: &str, ty: &str) -> Array {
    Array::from_json(json, Some(&t(ty))).unwrap()
}

fn call(name: &str, args: &[&Array]) -> Result<String, String> {
    builtins::get(name)
        .unwrap()
        .call(args)
        .map(|a| format!("{a} : {}", a.ty()))
        .map_err(|e| e.to_string())
}

#[test]
fn promotion_picks_numpy_result_types() {
    let i8s = arr("[100, 100]", "2 * int8");
    assert_eq!(
        call("add", &[&i8s, &i8s]),
        Ok("[-56, -56] : 2 * int8".into()),
        "int8 + int8 wraps in int8"
    );
    let i32s = arr("[1, 2]", "2 * int32");
    let f32s = arr("[0.5, 0.25]", "2 * float32");
    assert_eq!(
        call("add", &[&i32s, &f32s]),
        Ok("[1.5, 2.25] : 2 * float64".into())
    );
    let u8s = arr("[200, 255]", "2 * uint8");
    assert_eq!(
        call("add", &[&u8s, &i8s]),
        Ok("[300, 355] : 2 * int16".into())
    );
    assert_eq!(
        call("divide", &[&i32s, &i32s]),
        Ok("[1, 1] : 2 * float64".into())
    );
    assert_eq!(
        call("sqrt", &[&arr("[4, 9]", "2 * int16")]),
        Ok("[2, 3] : 2 * float32".into())
    );
    assert_eq!(
        call("sqrt", &[&arr("[4, 9]", "2 * int64")]),
        Ok("[2, 3] : 2 * float64".into())
    );
    assert_eq!(
        call("less", &[&i32s, &f32s]),
        Ok("[false, false] : 2 * bool".into())
    );
    let bools = arr("[true, false]", "2 * bool");
    assert_eq!(
        call("add", &[&bools, &bools]),
        Ok("[2, 0] : 2 * int8".into())
    );
}

#[test]
fn integer_semantics_are_documented_ones() {
    assert_eq!(
        call("floor_divide", &[&array![7, -7, 5], &array![2, 2, 0]]),
        Ok("[3, -4, 0] : 3 * int64".into())
    );
    assert_eq!(
        call("abs", &[&arr("[-128, 5]", "2 * int8")]),
        Ok("[-128, 5] : 2 * int8".into())
    );
    assert_eq!(
        call("negative", &[&arr("[1]", "1 * uint8")]),
        Ok("[255] : 1 * uint8".into())
    );
    assert_eq!(
        call("divide", &[&array![1.0, -1.0, 0.0], &array![0.0]]),
        Ok("[Infinity, -Infinity, NaN] : 3 * float64".into())
    );
    assert_eq!(
        call("maximum", &[&array![1.0, f64::NAN], &array![2.0, 0.0]]),
        Ok("[2, NaN] : 2 * float64".into())
    );
}

#[test]
fn no_match_and_ambiguity_are_errors_naming_the_candidates() {
    let err = call("sqrt", &[&array!["a"]]).unwrap_err();
    assert_eq!(err, "sqrt: no overload accepts (string); the signatures are:\n  (float16) -> float16\n  (float32) -> float32\n  (float64) -> float64\n  (complex[float32]) -> complex[float32]\n  (complex[float64]) -> complex[float64]");
    let err = call("logical_and", &[&array!["a"], &array![true]]).unwrap_err();
    assert!(
        err.starts_with("logical_and: no overload accepts (string, bool)"),
        "{err}"
    );
    let err = call("add", &[&array![1]]).unwrap_err();
    assert_eq!(err, "add takes 2 argument(s), 1 given");

    // Two overloads equally cheap for (int8, int8): ambiguous.
    let pick = Callable::new(
        "pick",
        vec![
            Overload::new(Leaf::map(|a: i16, _b: i32| a)),
            Overload::new(Leaf::map(|_a: i32, b: i16| b)),
        ],
    )
    .unwrap();
    let a = arr("[1]", "1 * int8");
    let err = pick.call(&[&a, &a]).unwrap_err();
    assert!(matches!(err, Error::Ambiguous { .. }));
    assert_eq!(
        err.to_string(),
        "pick: the call with (int8, int8) is ambiguous between:\n  (int16, int32) -> int16\n  (int32, int16) -> int16"
    );
    // The same argument types twice is caught when the set is built.
    let dup = Callable::new(
        "dup",
        vec![
            Overload::new(Leaf::map(|a: f64| a)),
            Overload::new(Leaf::map(|a: f64| -a)),
        ],
    )
    .unwrap_err();
    assert_eq!(
        dup.to_string(),
        "dup: overloads (float64) -> float64 and (float64) -> float64 take the same argument types"
    );
}

#[test]
fn broadcasting_numpy_strict_and_ragged() {
    let add = builtins::get("add").unwrap();
    let m = array![[1, 2, 3], [4, 5, 6]];
    assert_eq!(
        add.call(&[&m, &array![10, 20, 30]]).unwrap().to_string(),
        "[[11, 22, 33], [14, 25, 36]]"
    );
    let strict = add.clone().strict();
    let err = strict.call(&[&m, &array![10, 20, 30]]).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("strict broadcasting: argument 1 (3 * int64)"),
        "{err}"
    );
    assert_eq!(
        strict
            .call(&[&m, &Array::from_scalar(1i64)])
            .unwrap()
            .to_string(),
        "[[2, 3, 4], [5, 6, 7]]"
    );
    // The seed's ragged example: var with 1 broadcasts; a mismatched row names its index.
    let ragged = array![[1], [2, 3]];
    assert_eq!(
        add.call(&[&ragged, &array![[4, 5], [6, 7]]])
            .unwrap()
            .to_string(),
        "[[5, 6], [8, 10]]"
    );
    let err = add
        .call(&[&array![[1, 2, 3], [4]], &array![[1, 2], [3, 4]]])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "a ragged row of length 3 cannot broadcast to length 2, at index [0]"
    );
    let err = add.call(&[&array![1, 2], &array![1, 2, 3]]).unwrap_err();
    assert!(
        err.to_string()
            .contains("cannot broadcast dimension 0 of the result: argument 0 has size 2"),
        "{err}"
    );
    // Result types work on types alone.
    assert_eq!(
        add.resolve(&[t("3 * var * int8"), t("3 * 1 * float32")])
            .unwrap()
            .to_string(),
        "3 * var * float32"
    );
}

#[test]
fn out_arrays_are_checked_and_written() {
    let mul = builtins::get("multiply").unwrap();
    let mut out = Array::zeros(&t("2 * 2 * float64")).unwrap();
    mul.call_into(&mut out, &[&array![[1.0, 2.0], [3.0, 4.0]], &array![10.0]])
        .unwrap();
    assert_eq!(out.to_string(), "[[10, 20], [30, 40]]");
    // out takes part in broadcasting: arguments stretch to it.
    mul.call_into(&mut out, &[&array![2.0], &array![3.0]])
        .unwrap();
    assert_eq!(out.to_string(), "[[6, 6], [6, 6]]");
    let mut wrong = Array::zeros(&t("3 * float64")).unwrap();
    let err = mul
        .call_into(&mut wrong, &[&array![1.0, 2.0], &array![1.0]])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "multiply: the out array has type 3 * float64, but the result has type 2 * float64"
    );
    let mut wrong_type = Array::zeros(&t("2 * float32")).unwrap();
    assert!(matches!(
        mul.call_into(&mut wrong_type, &[&array![1.0, 2.0], &array![1.0]]),
        Err(Error::Out { .. })
    ));
}

#[test]
fn every_builtin_lists_its_signatures() {
    let names: Vec<&str> = builtins::all().map(|c| c.name()).collect();
    for n in [
        "add",
        "subtract",
        "multiply",
        "divide",
        "floor_divide",
        "negative",
        "abs",
        "maximum",
        "minimum",
        "power",
        "equal",
        "not_equal",
        "less",
        "less_equal",
        "greater",
        "greater_equal",
        "logical_and",
        "logical_or",
        "logical_not",
        "sqrt",
        "exp",
        "log",
        "sin",
        "cos",
        "tan",
        "arctan2",
    ] {
        assert!(names.contains(&n), "{n} missing");
    }
    // 10 integer types, 3 float types, 2 complex types, strings, and
    // per time unit datetime + timedelta, timedelta + datetime,
    // timedelta + timedelta.
    assert_eq!(builtins::get("add").unwrap().signatures().len(), 28);
}

#[test]
fn ragged_results_take_their_row_lengths_from_the_arguments() {
    let add = builtins::get("add").unwrap();
    let r = |a: &Array, b: &Array| {
        add.call(&[a, b])
            .map(|x| format!("{x} : {}", x.ty()))
            .map_err(|e| e.to_string())
    };
    // The multidim-kernels seed's examples.
    assert_eq!(
        r(&array![[1], [2, 3]], &array![[4], [5]]),
        Ok("[[5], [7, 8]] : 2 * var * int64".into())
    );
    assert_eq!(
        r(&array![[1], [2, 3]], &array![[4, 5], [6, 7]]),
        Ok("[[5, 6], [8, 10]] : 2 * 2 * int64".into())
    );
    // The mixed-rank cases libdynd got wrong.
    let v = arr("[1, 2, 3]", "var * int32");
    assert_eq!(
        r(&v, &Array::from_scalar(10i32)),
        Ok("[11, 12, 13] : var * int32".into())
    );
    let v3 = arr("[[1, 2, 3], [4, 5, 6]]", "var * 3 * int32");
    assert_eq!(
        r(&v3, &arr("[10, 20, 30]", "3 * int32")),
        Ok("[[11, 22, 33], [14, 25, 36]] : var * 3 * int32".into())
    );
    assert_eq!(
        r(&v, &arr("[[1, 1, 1], [2, 2, 2]]", "2 * 3 * int32")),
        Ok("[[2, 3, 4], [3, 4, 5]] : 2 * 3 * int32".into())
    );
    // Rows of different lengths in two var arguments must match or be 1.
    assert_eq!(
        r(
            &array![[1, 2], [3], [4, 5, 6]],
            &array![[10], [20, 30], [40, 50, 60]]
        ),
        Ok("[[11, 12], [23, 33], [44, 55, 66]] : 3 * var * int64".into())
    );
    assert_eq!(
        r(&array![[1, 2], [3, 4, 5]], &array![[1, 2], [3, 4]]),
        Err("a ragged row of length 3 cannot broadcast to length 2, at index [1]".into()),
        "against a fixed 2 * 2"
    );
    assert_eq!(
        r(
            &array![[1, 2], [3, 4, 5]],
            &array![[1, 2], [3, 4], [5]]
                .index(&[dynd_kernels::Index::slice(None, Some(2), 1)])
                .unwrap()
        ),
        Err("a ragged row of length 2 cannot broadcast to length 3, at index [1]".into()),
        "two var arguments"
    );
    // Nested ragged dims, and a var result from var * scalar.
    let nested = array![[[1], [2, 3]], [[4, 5, 6]]];
    assert_eq!(
        r(&nested, &array![100]),
        Ok("[[[101], [102, 103]], [[104, 105, 106]]] : 2 * var * var * int64".into())
    );
    let mul = builtins::get("multiply").unwrap();
    let out = mul
        .call(&[&array![[1.5], [2.0, 3.0]], &Array::from_scalar(2.0f64)])
        .unwrap();
    assert_eq!(out.to_string(), "[[3], [4, 6]]");
}

mod properties {
    use super::*;
    use dynd_kernels::Value;
    use proptest::prelude::*;

    /// Ragged rows of small integers.
    fn ragged() -> impl Strategy<Value = Vec<Vec<i64>>> {
        prop::collection::vec(prop::collection::vec(-50i64..50, 0..5), 1..6)
    }

    fn to_rows(v: &Value) -> Vec<Vec<i64>> {
        match v {
            Value::List(rows) => rows
                .iter()
                .map(|r| match r {
                    Value::List(xs) => xs
                        .iter()
                        .map(|x| match x {
                            Value::Int(i) => *i as i64,
                            _ => panic!("{x}"),
                        })
                        .collect(),
                    _ => panic!("{r}"),
                })
                .collect(),
            _ => panic!("{v}"),
        }
    }

    proptest! {
        #[test]
        fn ragged_add_matches_a_naive_reference(a in ragged(), kind in 0usize..4, seed in -50i64..50) {
            let add = builtins::get("add").unwrap();
            let x = Array::from_nested(a.clone()).unwrap();
            // The partner: a scalar, the same structure, one value per row, or a fixed column.
            let (y, expect): (Array, Vec<Vec<i64>>) = match kind {
                0 => (Array::from_scalar(seed), a.iter().map(|r| r.iter().map(|v| v + seed).collect()).collect()),
                1 => {
                    let b: Vec<Vec<i64>> = a.iter().map(|r| r.iter().map(|v| v * 3 + seed).collect()).collect();
                    let e = a.iter().zip(&b).map(|(r, s)| r.iter().zip(s).map(|(p, q)| p + q).collect()).collect();
                    (Array::from_nested(b).unwrap(), e)
                }
                2 => {
                    let col: Vec<Vec<i64>> = (0..a.len()).map(|i| vec![i as i64 + seed]).collect();
                    let e = a.iter().enumerate().map(|(i, r)| r.iter().map(|v| v + i as i64 + seed).collect()).collect();
                    (Array::from_shape_vec(&[a.len(), 1], col.concat()).unwrap(), e)
                }
                _ => {
                    let col: Vec<i64> = (0..a.len()).map(|i| i as i64 * seed).collect();
                    let e = a.iter().enumerate().map(|(i, r)| r.iter().map(|v| v + i as i64 * seed).collect()).collect();
                    (Array::from_shape_vec(&[a.len(), 1], col).unwrap(), e)
                }
            };
            let r = add.call(&[&x, &y]);
            match r {
                Ok(r) => {
                    let got = to_rows(&r.to_value());
                    prop_assert_eq!(got, expect);
                    // `Vec<Vec<_>>` rows are `var` whatever their lengths,
                    // and so are the result's.
                    prop_assert!(r.ty().to_string().contains("var"), "{}", r.ty());
                }
                Err(e) => prop_assert!(false, "{}", e),
            }
        }

        #[test]
        fn strict_mode_refuses_only_rank_extension(rows in 1usize..5, cols in 1usize..5) {
            let add = builtins::get("add").unwrap().strict();
            let m = Array::from_shape_vec(&[rows, cols], vec![1i64; rows * cols]).unwrap();
            let row = Array::from_vec(vec![2i64; cols]);
            prop_assert!(add.call(&[&m, &row]).is_err());
            let r = add.call(&[&m, &Array::from_scalar(2i64)]).unwrap();
            prop_assert_eq!(r.to_vec::<i64>().unwrap(), vec![3i64; rows * cols]);
            let col = Array::from_shape_vec(&[rows, 1], vec![5i64; rows]).unwrap();
            prop_assert_eq!(add.call(&[&m, &col]).unwrap().to_vec::<i64>().unwrap(), vec![6i64; rows * cols]);
        }
    }
}

#[test]
fn outer_gives_each_argument_its_own_dimensions() {
    let add = builtins::get("add").unwrap();
    let r = add
        .outer(&[&array![[1, 2], [3, 4]], &array![10, 20, 30]])
        .unwrap();
    assert_eq!(r.ty().to_string(), "2 * 2 * 3 * int64");
    assert_eq!(r.get::<i64>(&[1, 0, 2]).unwrap(), 33);
    let ragged = add
        .outer(&[&array![[1], [2, 3]], &array![100, 200]])
        .unwrap();
    assert_eq!(
        ragged.to_string(),
        "[[[101, 201]], [[102, 202], [103, 203]]]"
    );
    assert_eq!(
        add.outer(&[&Array::from_scalar(1i64), &array![1, 2]])
            .unwrap()
            .to_string(),
        "[2, 3]"
    );
}

#[test]
fn ragged_arguments_with_the_same_rows_run_flat_and_share_the_rows() {
    let add = builtins::get("add").unwrap();
    let a = array![[1.0, 2.0], [], [3.0, 4.0, 5.0]];
    let r = add.call(&[&a, &a]).unwrap();
    assert_eq!(r.to_string(), "[[2, 4], [], [6, 8, 10]]");
    // The result shares the rows (the (start, length) pairs) of its argument.
    assert_eq!(r.data_block().as_ptr(), a.data_block().as_ptr());
    // ... and so does a result computed from it, which again runs flat.
    let r2 = add.call(&[&r, &a]).unwrap();
    assert_eq!(r2.to_string(), "[[3, 6], [], [9, 12, 15]]");
    assert_eq!(r2.data_block().as_ptr(), a.data_block().as_ptr());
    // With a scalar.
    let r3 = add.call(&[&a, &Array::from_scalar(0.5f64)]).unwrap();
    assert_eq!(r3.to_string(), "[[1.5, 2.5], [], [3.5, 4.5, 5.5]]");
    // A different element size takes the general path, same values.
    let less = builtins::get("less").unwrap();
    assert_eq!(
        less.call(&[&a, &Array::from_scalar(3.0f64)])
            .unwrap()
            .to_string(),
        "[[true, true], [], [false, false, false]]"
    );
    // A view (every other row) still computes the right values.
    let v = a
        .index(&[dynd_kernels::Index::slice(None, None, 2)])
        .unwrap();
    assert_eq!(
        add.call(&[&v, &v]).unwrap().to_string(),
        "[[2, 4], [6, 8, 10]]"
    );
    // Writing into a result does not change the argument it shares rows with.
    let mut w = add.call(&[&a, &a]).unwrap();
    w.assign(
        &Array::from_scalar(0.0f64),
        dynd_kernels::ErrorMode::Fractional,
    )
    .unwrap();
    assert_eq!(w.to_string(), "[[0, 0], [], [0, 0, 0]]");
    assert_eq!(a.to_string(), "[[1, 2], [], [3, 4, 5]]");
}

#[test]
fn options_propagate_na_and_na_is_not_nan() {
    let add = builtins::get("add").unwrap();
    let x = arr("[1, null, 3]", "3 * ?int32");
    let r = add.call(&[&x, &array![10]]).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[11, null, 13]".to_string(), "3 * ?int64".to_string())
    );
    let y = arr("[null, 2.5, NaN]", "3 * ?float64");
    let r = add.call(&[&x, &y]).unwrap();
    assert_eq!(r.to_string(), "[null, null, NaN]");
    assert_eq!(r.ty().to_string(), "3 * ?float64");
    let less = builtins::get("less").unwrap();
    assert_eq!(
        less.call(&[&x, &array![2]]).unwrap().to_string(),
        "[true, null, false]"
    );
    let sqrt = builtins::get("sqrt").unwrap();
    assert_eq!(
        sqrt.call(&[&arr("[4, null]", "2 * ?float32")])
            .unwrap()
            .to_string(),
        "[2, null]"
    );
    // Ragged with options.
    let rg = arr("[[1, null], [3]]", "2 * var * ?int8");
    assert_eq!(
        add.call(&[&rg, &Array::from_scalar(1i8)])
            .unwrap()
            .to_string(),
        "[[2, null], [4]]"
    );
    // An out array must be an option when an argument is.
    let mut out = Array::zeros(&t("3 * int64")).unwrap();
    assert!(add.call_into(&mut out, &[&x, &array![1]]).is_err());
    let mut out = Array::zeros(&t("3 * ?int64")).unwrap();
    add.call_into(&mut out, &[&x, &array![1]]).unwrap();
    assert_eq!(out.to_string(), "[2, null, 4]");
    assert_eq!(
        add.resolve(&[t("3 * ?int8"), t("int16")])
            .unwrap()
            .to_string(),
        "3 * ?int16"
    );
}

#[test]
fn keyword_arguments_are_checked_and_passed() {
    let clip = builtins::get("clip").unwrap();
    let x = array![-2.0, 0.5, 3.0, f64::NAN];
    let lo = Array::from_scalar(0.0f64);
    let hi = Array::from_scalar(1.0f64);
    assert_eq!(
        clip.call_kw(&[&x], &[("lo", &lo), ("hi", &hi)])
            .unwrap()
            .to_string(),
        "[0, 0.5, 1, NaN]"
    );
    assert_eq!(
        clip.call_kw(&[&x], &[("hi", &hi)]).unwrap().to_string(),
        "[-2, 0.5, 1, NaN]"
    );
    assert_eq!(
        clip.call_kw(&[&x], &[]).unwrap().to_string(),
        "[-2, 0.5, 3, NaN]"
    );
    // Keyword values broadcast like arguments, and are cast to their type.
    let his = array![1, 1, 2, 2];
    assert_eq!(
        clip.call_kw(&[&x], &[("hi", &his)]).unwrap().to_string(),
        "[-2, 0.5, 2, NaN]"
    );
    // float32 data keeps its type.
    let f = arr("[5, -5]", "2 * float32");
    let r = clip.call_kw(&[&f], &[("hi", &hi)]).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[1, -5]".to_string(), "2 * float32".to_string())
    );
    assert_eq!(
        clip.signatures().last().map(ToString::to_string).as_deref(),
        Some("(float64, lo: ?float64, hi: ?float64) -> float64")
    );
    let err = clip
        .call_kw(&[&x], &[("lo", &lo), ("lo", &hi)])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "clip: keyword argument 'lo' given more than once"
    );
    let err = clip.call_kw(&[&x], &[("low", &lo)]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "clip: unknown keyword argument 'low' (valid keywords: lo, hi)"
    );
    let err = clip.call_kw(&[&x, &x], &[]).unwrap_err();
    assert_eq!(err.to_string(), "clip takes 1 argument(s), 2 given");
    // A required keyword.
    let scale = Callable::new(
        "scale",
        vec![Overload::new(Leaf::map(|x: f64, k: f64| x * k))],
    )
    .unwrap()
    .with_keywords(vec![dynd_arrfunc::Keyword::required(
        "by",
        dynd_types::Scalar::Float64,
    )])
    .unwrap();
    let err = scale.call_kw(&[&x], &[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "scale: missing required keyword argument 'by' (valid keywords: by)"
    );
    assert_eq!(
        scale
            .call_kw(&[&array![1.0, 2.0]], &[("by", &Array::from_scalar(3i32))])
            .unwrap()
            .to_string(),
        "[3, 6]"
    );
    assert_eq!(
        scale.signatures()[0].to_string(),
        "(float64, by: float64) -> float64"
    );
}

fn text(s: &str) -> Array {
    Array::from_value(&dynd_kernels::Value::Str(s.into()), None).unwrap()
}

#[test]
fn constructors_and_cast_are_callables_whose_type_is_a_value() {
    let cast = builtins::get("cast").unwrap();
    let x = arr("[1.5, -2.0]", "2 * float64");
    assert_eq!(
        cast.call(&[&arr("[1, 2]", "2 * int64"), &text("float32")])
            .map(|a| format!("{a} : {}", a.ty()))
            .unwrap(),
        "[1, 2] : 2 * float32"
    );
    // The default error mode refuses truncation; a keyword relaxes it.
    let err = cast.call(&[&x, &text("int8")]).unwrap_err().to_string();
    assert!(err.contains("fractional part"), "{err}");
    let r = cast
        .call_kw(&[&x, &text("int8")], &[("errmode", &text("nocheck"))])
        .unwrap();
    assert_eq!(r.to_string(), "[1, -2]");
    // A full target type broadcasts the argument to it.
    let r = cast.call(&[&x, &text("2 * 2 * float32")]).unwrap();
    assert_eq!(r.to_string(), "[[1.5, -2], [1.5, -2]]");
    // Errors name the callable and what was wrong.
    assert_eq!(
        cast.call_kw(&[&x, &text("int8")], &[("errmode", &text("sloppy"))])
            .unwrap_err()
            .to_string(),
        "cast: keyword argument 'errmode' must be an error mode (nocheck, overflow, fractional or inexact), not 'sloppy'"
    );
    assert_eq!(
        cast.call_kw(
            &[&x, &text("int8")],
            &[("errmode", &Array::from_scalar(3i64))]
        )
        .unwrap_err()
        .to_string(),
        "cast: keyword argument 'errmode' must be a string, not 3 (int64)"
    );
    assert_eq!(
        cast.call(&[&x, &Array::from_scalar(1i64)])
            .unwrap_err()
            .to_string(),
        "cast: argument 1 must be a datashape string, not 1 (int64)"
    );
    assert_eq!(
        cast.call(&[&x]).unwrap_err().to_string(),
        "cast takes 2 argument(s), 1 given"
    );
    assert_eq!(
        cast.resolve(&[t("2 * float64"), t("string")])
            .unwrap_err()
            .to_string(),
        "cast: the result type depends on the argument values (call it to find out)"
    );
    assert_eq!(
        cast.signatures()[0].to_string(),
        "(Any, string, errmode: ?string) -> Any"
    );

    let call1 = |name: &str, args: &[&Array]| {
        builtins::get(name)
            .unwrap()
            .call(args)
            .map(|a| format!("{a} : {}", a.ty()))
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        call1("zeros", &[&text("2 * ?int32")]),
        Ok("[null, null] : 2 * ?int32".into())
    );
    assert_eq!(
        call1("ones", &[&text("2 * 2 * float32")]),
        Ok("[[1, 1], [1, 1]] : 2 * 2 * float32".into())
    );
    assert_eq!(
        call1("full", &[&text("3 * int8"), &Array::from_scalar(7i64)]),
        Ok("[7, 7, 7] : 3 * int8".into())
    );
    assert!(
        call1("full", &[&text("3 * int8"), &Array::from_scalar(700i64)])
            .unwrap_err()
            .contains("out of range for int8")
    );
    assert!(call1("zeros", &[&text("2 * flaot64")])
        .unwrap_err()
        .contains("did you mean 'float64'?"));
}

#[test]
fn function_callables_check_their_declarations() {
    let f = |args: &[&Array], _: &dynd_arrfunc::Kwargs<'_>| Ok(args[0].clone());
    let err = Callable::function("id", "(Any, k: ?int64) -> Any", vec![], f).unwrap_err();
    assert_eq!(
        err.to_string(),
        "id: the signature names keywords (k), but () are declared"
    );
    let err = Callable::function("id", "int32", vec![], f).unwrap_err();
    assert_eq!(err.to_string(), "int32 is not a callable signature");
    let id = Callable::function("id", "(Any) -> Any", vec![], f).unwrap();
    let mut out = Array::zeros(&t("2 * int64")).unwrap();
    id.call_into(&mut out, &[&arr("[4, 5]", "2 * int64")])
        .unwrap();
    assert_eq!(out.to_string(), "[4, 5]");
    let err = id
        .call_into(&mut out, &[&arr("[4, 5, 6]", "3 * int64")])
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "id: the out array has type 2 * int64, but the result has type 3 * int64"
    );
    assert!(id
        .with_keywords(vec![dynd_arrfunc::Keyword::required(
            "k",
            dynd_types::Scalar::Int64
        )])
        .is_err());
}

#[test]
fn int128_float16_and_complex_have_overloads() {
    let c = |json: &str, ty: &str| arr(json, ty);
    // int128 wraps like the other integers; true division gives float64.
    let big = c("[170141183460469231731687303715884105727]", "1 * int128");
    assert_eq!(
        call("add", &[&big, &c("[1]", "1 * int128")]),
        Ok("[-170141183460469231731687303715884105728] : 1 * int128".into())
    );
    assert_eq!(
        call(
            "divide",
            &[&c("[7]", "1 * uint128"), &c("[2]", "1 * uint128")]
        ),
        Ok("[3.5] : 1 * float64".into())
    );
    // float16 rounds once, to nearest even; NumPy's result types.
    let h = c("[1, 2048, 0.1]", "3 * float16");
    assert_eq!(
        call("add", &[&h, &c("[0.5, 1, 0.2]", "3 * float16")]),
        Ok("[1.5, 2048, 0.2998] : 3 * float16".into()),
        "2048 + 1 is a tie and rounds to even"
    );
    assert_eq!(
        call("sqrt", &[&c("[4, 2]", "2 * int8")]),
        Ok("[2, 1.414] : 2 * float16".into()),
        "int8 promotes to float16, as in NumPy"
    );
    assert_eq!(
        call(
            "equal",
            &[
                &c("[0, NaN]", "2 * float16"),
                &c("[-0.0, NaN]", "2 * float16")
            ]
        ),
        Ok("[true, false] : 2 * bool".into()),
        "-0 == 0 and NaN != NaN for halves too"
    );
    // Complex arithmetic and functions.
    let z = c("[[1, 2], [0, 1]]", "2 * complex[float64]");
    let w = c("[[3, -1], [0, 1]]", "2 * complex[float64]");
    assert_eq!(
        call("multiply", &[&z, &w]),
        Ok("[[5, 5], [-1, 0]] : 2 * complex[float64]".into())
    );
    let v = c("[[1, -1], [0, 2]]", "2 * complex[float64]");
    assert_eq!(
        call("divide", &[&z, &v]),
        Ok("[[-0.5, 1.5], [0.5, 0]] : 2 * complex[float64]".into())
    );
    assert_eq!(
        call("abs", &[&c("[[3, 4]]", "1 * complex[float32]")]),
        Ok("[5] : 1 * float32".into())
    );
    assert_eq!(
        call("sqrt", &[&c("[[-4, 0], [0, 2]]", "2 * complex[float64]")]),
        Ok("[[0, 2], [1, 1]] : 2 * complex[float64]".into())
    );
    let e = builtins::get("exp")
        .unwrap()
        .call(&[&c("[[0, 3.141592653589793]]", "1 * complex[float64]")])
        .unwrap();
    let v = e.get::<dynd_kernels::Complex<f64>>(&[0]).unwrap();
    assert!(
        (v.re + 1.0).abs() < 1e-15 && v.im.abs() < 1e-15,
        "e^(i pi) = -1: {v:?}"
    );
    // Mixed real and complex promote to complex.
    assert_eq!(
        call(
            "add",
            &[
                &c("[1]", "1 * float64"),
                &c("[[0, 1]]", "1 * complex[float32]")
            ]
        ),
        Ok("[[1, 1]] : 1 * complex[float64]".into())
    );
    // Complex numbers compare in NumPy's order: real parts, then imaginary.
    assert_eq!(
        call("less", &[&z, &w]),
        Ok("[true, false] : 2 * bool".into())
    );
}

#[test]
fn calls_cycling_through_more_types_than_a_thread_keeps_resolve_each_correctly() {
    // A thread keeps its last few resolutions and looks them up newest
    // first; more argument types than it keeps, from two callables, in
    // rounds and in reverse, must each resolve to their own result type.
    let add = builtins::get("add").unwrap();
    let mul = builtins::get("multiply").unwrap();
    let args: Vec<(Array, Array)> = (1..=20usize)
        .map(|n| {
            let x = Array::from_vec((0..n).map(|i| i as f64).collect());
            let y = Array::from_vec((0..n as i32).collect());
            (x, y)
        })
        .collect();
    let order: Vec<usize> = (0..20)
        .chain((0..20).rev())
        .chain((0..20).step_by(3))
        .collect();
    for _ in 0..3 {
        for &k in &order {
            let (x, y) = &args[k];
            let n = k + 1;
            let last = k as f64;
            for (f, want) in [(&add, last + last), (&mul, last * last)] {
                let r = f.call(&[x, y]).unwrap();
                assert_eq!(r.ty().to_string(), format!("{n} * float64"));
                assert_eq!(r.get::<f64>(&[n - 1]).unwrap(), want);
            }
            let r = add.call(&[y, y]).unwrap();
            assert_eq!(r.ty().to_string(), format!("{n} * int32"));
        }
    }
}

#[test]
fn floor_rounds_down_keeping_signed_zero_and_nan() {
    assert_eq!(
        call(
            "floor",
            &[&arr("[1.5, -1.5, -0.0, 2, 1e300]", "5 * float64")]
        ),
        Ok("[1, -2, -0.0, 2, 1e300] : 5 * float64".into())
    );
    let nan = call(
        "floor",
        &[&arr("[NaN, Infinity, -Infinity]", "3 * float32")],
    );
    assert_eq!(nan, Ok("[NaN, Infinity, -Infinity] : 3 * float32".into()));
    // float16 through float64; integers kept (NumPy 2's integer loops).
    assert_eq!(
        call("floor", &[&arr("[2.75, -0.25]", "2 * float16")]),
        Ok("[2, -1] : 2 * float16".into())
    );
    assert_eq!(
        call("floor", &[&arr("[3, -4]", "2 * int16")]),
        Ok("[3, -4] : 2 * int16".into())
    );
    // Ragged rows, and NA through an option.
    assert_eq!(
        call("floor", &[&array![[0.5, -0.5], [7.9]]]),
        Ok("[[0, -1], [7]] : 2 * var * float64".into())
    );
    assert_eq!(
        call("floor", &[&arr("[1.5, null]", "2 * ?float64")]),
        Ok("[1, null] : 2 * ?float64".into())
    );
    let e = call("floor", &[&arr("[[1, 2]]", "1 * complex[float64]")]).unwrap_err();
    assert!(e.contains("floor"), "{e}");
}
