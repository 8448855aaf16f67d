//! `range` and `reshape`: result shapes from argument values, views where
//! the data allows, and errors.

use dynd_arrfunc::builtins;
use dynd_kernels::ArrayOps;
use dynd_kernels::{array, Array, Index, Value};

fn s(text: &str) -> Array {
    Array::from_value(&Value::Str(text.into()), None).unwrap()
}

fn call(name: &str, args: &[&Array], kw: &[(&str, &Array)]) -> Result<String, String> {
    builtins::get(name)
        .unwrap()
        .call_kw(args, kw)
        .map(|r| format!("{r} : {}", r.ty()))
        .map_err(|e| e.to_string())
}

#[test]
fn range_takes_stop_start_step_and_dtype() {
    let n = |v: i64| Array::from_scalar(v);
    assert_eq!(
        call("range", &[&n(4)], &[]).unwrap(),
        "[0, 1, 2, 3] : 4 * int64"
    );
    assert_eq!(
        call("range", &[&n(2), &n(5)], &[]).unwrap(),
        "[2, 3, 4] : 3 * int64"
    );
    assert_eq!(
        call("range", &[&n(5), &n(-5), &n(-4)], &[]).unwrap(),
        "[5, 1, -3] : 3 * int64"
    );
    assert_eq!(
        call("range", &[&n(5), &n(2)], &[]).unwrap(),
        "[] : 0 * int64"
    );
    assert_eq!(
        call(
            "range",
            &[
                &n(0),
                &Array::from_scalar(1.0f64),
                &Array::from_scalar(0.25f64)
            ],
            &[]
        )
        .unwrap(),
        "[0, 0.25, 0.5, 0.75] : 4 * float64"
    );
    assert_eq!(
        call("range", &[&n(3)], &[("dtype", &s("int8"))]).unwrap(),
        "[0, 1, 2] : 3 * int8"
    );
    assert_eq!(
        call("range", &[&n(300)], &[("dtype", &s("int8"))]).unwrap_err(),
        "128 is out of range for int8 (assigning int64 to int8), at index [128]"
    );
    assert_eq!(
        call("range", &[&n(1), &n(2), &n(0)], &[]).unwrap_err(),
        "range: the step must be non-zero, not 0"
    );
    let huge =
        |v: i128| Array::from_json(&v.to_string(), Some(&"int128".parse().unwrap())).unwrap();
    assert_eq!(
        call(
            "range",
            &[&huge(-(1 << 126)), &huge(1 << 126), &huge(1 << 125)],
            &[]
        )
        .unwrap_err(),
        "a range of int64 values overflows (start -85070591730234615865843651857942052864, stop 85070591730234615865843651857942052864, step 42535295865117307932921825928971026432)"
    );
    assert_eq!(
        call("range", &[&huge(i128::MIN + 1), &huge(i128::MAX)], &[]).unwrap_err(),
        "a range of int64 values overflows (start -170141183460469231731687303715884105727, stop 170141183460469231731687303715884105727, step 1)"
    );
    assert_eq!(
        call("range", &[], &[]).unwrap_err(),
        "range takes 1 argument(s), 0 given"
    );
    assert_eq!(
        call("range", &[&s("x")], &[]).unwrap_err(),
        "range: argument 0 must be a number, not \"x\" (string)"
    );
}

#[test]
fn reshape_views_contiguous_data_and_copies_the_rest() {
    let a = Array::from_vec((0..6i64).collect::<Vec<_>>());
    let r = builtins::get("reshape")
        .unwrap()
        .call(&[&a, &array![2, 3]])
        .unwrap();
    assert_eq!(r.to_string(), "[[0, 1, 2], [3, 4, 5]]");
    assert_eq!(r.data_block().as_ptr(), a.data_block().as_ptr(), "a view");
    // A transposed view is copied into C order first.
    let t = r.transpose().unwrap();
    let back = t.reshape([-1]).unwrap();
    assert_eq!(back.to_string(), "[0, 3, 1, 4, 2, 5]");
    assert_ne!(back.data_block().as_ptr(), a.data_block().as_ptr());
    // Strings keep their text.
    let words = array!["a", "bc", "def", "g"];
    assert_eq!(
        words.reshape([2, 2]).unwrap().to_string(),
        "[[\"a\", \"bc\"], [\"def\", \"g\"]]"
    );
    // A stepped view is not contiguous either.
    let odd = a.index(&[Index::slice(Some(1), None, 2)]).unwrap();
    assert_eq!(odd.reshape([3, 1]).unwrap().to_string(), "[[1], [3], [5]]");
    let err = |shape: &[i64]| a.reshape(shape).unwrap_err().to_string();
    assert_eq!(
        err(&[4, -1]),
        "cannot reshape 6 elements (6 * int64) into the shape [4, -1]: no size for -1 gives that many elements"
    );
    assert_eq!(
        err(&[-1, -1]),
        "cannot reshape 6 elements (6 * int64) into the shape [-1, -1]: only one size may be -1"
    );
    assert_eq!(
        err(&[7]),
        "cannot reshape 6 elements (6 * int64) into the shape [7]: the shape holds another number of elements"
    );
    assert!(array![[1], [2, 3]]
        .reshape([3])
        .unwrap_err()
        .to_string()
        .contains("var"));
    assert_eq!(
        call("reshape", &[&a, &s("2x3")], &[]).unwrap_err(),
        "reshape: argument 1 must be an integer or a list of integers, not \"2x3\" (string)"
    );
}

#[test]
fn sorting_is_stable_nan_last_along_any_axis_and_ragged_rows() {
    let sorted = |a: &Array, kw: &[(&str, &Array)]| call("sorted", &[a], kw);
    let a = array![[3.0, f64::NAN, 1.0], [0.0, -0.0, -1.0]];
    // IEEE total order among numbers (-0 before 0), NaN last.
    assert_eq!(
        sorted(&a, &[]).unwrap(),
        "[[1, 3, NaN], [-1, -0.0, 0]] : 2 * 3 * float64"
    );
    let t = Array::from_scalar(true);
    assert_eq!(
        sorted(&a, &[("reverse", &t)]).unwrap(),
        "[[3, 1, NaN], [0, -0.0, -1]] : 2 * 3 * float64",
        "descending, NaN still last"
    );
    let zero = Array::from_scalar(0i64);
    assert_eq!(
        sorted(&array![[3, 1], [2, 4], [1, 0]], &[("axis", &zero)]).unwrap(),
        "[[1, 0], [2, 1], [3, 4]] : 3 * 2 * int64"
    );
    // A transposed view sorts along its own axes; the base is untouched.
    let base = array![[3, 1, 2], [6, 5, 4]];
    let tv = base.transpose().unwrap(); // [[3, 6], [1, 5], [2, 4]]
    assert_eq!(
        sorted(&tv, &[("axis", &zero)]).unwrap(),
        "[[1, 4], [2, 5], [3, 6]] : 3 * 2 * int64"
    );
    assert_eq!(base.to_string(), "[[3, 1, 2], [6, 5, 4]]");
    // Ragged rows, each sorted; the input keeps its order (copy on write).
    let rows = array![[3, 1, 2], [], [9, 7]];
    assert_eq!(
        sorted(&rows, &[]).unwrap(),
        "[[1, 2, 3], [], [7, 9]] : 3 * var * int64"
    );
    assert_eq!(rows.to_string(), "[[3, 1, 2], [], [9, 7]]");
    // In place; read-only data refuses.
    let mut v = array![2u8, 1, 3];
    v.sort(0, false).unwrap();
    assert_eq!(v.to_string(), "[1, 2, 3]");
    static DATA: [i32; 3] = [3, 2, 1];
    let mut fixed = Array::from_static(&DATA);
    assert_eq!(
        fixed.sort(0, false).unwrap_err().to_string(),
        "the array is read-only"
    );
    // Errors.
    let two = Array::from_scalar(2i64);
    assert_eq!(
        sorted(&a, &[("axis", &two)]).unwrap_err(),
        "sort: axis 2 is out of bounds for an array of 2 dimension(s)"
    );
    // Complex numbers sort in NumPy's order; strings have none.
    let z = Array::from_json(
        "[[1, 2], [0, 9]]",
        Some(&"2 * complex[float64]".parse().unwrap()),
    )
    .unwrap();
    assert_eq!(
        sorted(&z, &[]).unwrap(),
        "[[0, 9], [1, 2]] : 2 * complex[float64]"
    );
    let s = Array::from_json(r#"["b", "a"]"#, None).unwrap();
    assert!(sorted(&s, &[]).unwrap_err().contains("no order"));
    assert!(sorted(&rows, &[("axis", &zero)])
        .unwrap_err()
        .contains("not supported"));
}

/// The character block of a string array whose element record is reached
/// through fixed and var levels.
fn text_block(a: &Array) -> *const u8 {
    let mut m = a.arrmeta();
    loop {
        match m {
            dynd_kernels::Arrmeta::Fixed { element, .. }
            | dynd_kernels::Arrmeta::Var { element, .. } => m = element,
            dynd_kernels::Arrmeta::Text { block } => return block.as_ptr(),
            other => panic!("not a string array: {other:?}"),
        }
    }
}

#[test]
fn split_returns_views_of_the_input_characters() {
    let a = array!["a,b", "", "naïve,ok,"];
    let sep = s(",");
    let parts = builtins::get("split")
        .unwrap()
        .call_kw(&[&a], &[("sep", &sep)])
        .unwrap();
    assert_eq!(
        parts.to_string(),
        r#"[["a", "b"], [""], ["naïve", "ok", ""]]"#
    );
    assert_eq!(parts.ty().to_string(), "3 * var * string");
    assert_eq!(
        text_block(&parts),
        text_block(&a),
        "the pieces share the input's characters"
    );
    // The pieces are ordinary strings: views of them work, and so do lengths.
    let first = parts.at(2).unwrap();
    assert_eq!(
        call("string_length", &[&first], &[]).unwrap(),
        "[5, 2, 0] : var * int64"
    );
    assert_eq!(
        call("string_length", &[&a], &[]).unwrap(),
        "[3, 0, 9] : 3 * int64"
    );
    // Errors.
    assert_eq!(
        call("split", &[&a], &[("sep", &s(""))]).unwrap_err(),
        "split: the separator must be a non-empty string, not \"\""
    );
    // Without a separator, at runs of whitespace (Python's `str.split()`).
    assert_eq!(
        call("split", &[&a], &[]).unwrap(),
        r#"[["a,b"], [], ["naïve,ok,"]] : 3 * var * string"#
    );
    assert!(call("split", &[&array![1, 2]], &[("sep", &sep)])
        .unwrap_err()
        .contains("must be strings"));
    assert_eq!(
        call("string_length", &[&array![["a"], ["bc", "déf"]]], &[]).unwrap(),
        "[[1], [2, 3]] : 2 * var * int64"
    );
    assert!(call("string_length", &[&array![1.5]], &[])
        .unwrap_err()
        .contains("no overload accepts (float64)"));
}

#[test]
fn take_and_index_are_callables_giving_views_where_they_can() {
    let m = array![[1, 2, 3], [4, 5, 6]];
    let i = |v: i64| Array::from_scalar(v);
    assert_eq!(
        call("take", &[&m, &array![2, 0]], &[("axis", &i(1))]).unwrap(),
        "[[3, 1], [6, 4]] : 2 * 2 * int64"
    );
    assert_eq!(
        call("take", &[&m, &array![[5], [0]]], &[]).unwrap(),
        "[[6], [1]] : 2 * 1 * int64"
    );
    assert_eq!(
        call(
            "take",
            &[&m, &array![7, -8]],
            &[("axis", &i(1)), ("mode", &s("wrap"))]
        )
        .unwrap(),
        "[[2, 2], [5, 5]] : 2 * 2 * int64"
    );
    assert_eq!(
        call("take", &[&m, &array![3]], &[("axis", &i(0))]).unwrap_err(),
        "take: index 3 is out of bounds for axis 0 of size 2, at position [0] of the indices"
    );
    assert_eq!(
        call("take", &[&m, &array![0]], &[("mode", &s("nearest"))]).unwrap_err(),
        "take: the mode must be one of raise, wrap, clip, not 'nearest'"
    );
    // Evenly spaced positions: a view.
    let rows = builtins::get("take")
        .unwrap()
        .call_kw(&[&m, &array![1, 0]], &[("axis", &i(0))])
        .unwrap();
    assert_eq!(rows.data_block().as_ptr(), m.data_block().as_ptr());
    assert_eq!(
        call("index", &[&m, &i(-1)], &[]).unwrap(),
        "[4, 5, 6] : 3 * int64"
    );
    assert_eq!(
        call("index", &[&m, &s(":"), &s("::-2")], &[]).unwrap(),
        "[[3, 1], [6, 4]] : 2 * 2 * int64"
    );
    assert_eq!(
        call("index", &[&m, &s(" 1 : ")], &[]).unwrap(),
        "[[4, 5, 6]] : 1 * 3 * int64"
    );
    assert_eq!(
        call("index", &[&m], &[]).unwrap(),
        "[[1, 2, 3], [4, 5, 6]] : 2 * 3 * int64"
    );
    for (arg, why) in [
        (s("1"), ": a slice has one or two ':'"),
        (s("1:2:3:4"), ": a slice has one or two ':'"),
        (s("a:"), ": 'a' is not an integer"),
        (Array::from_scalar(1.5), ""),
    ] {
        assert_eq!(
            call("index", &[&m, &arg], &[]).unwrap_err(),
            format!("index: argument 1 must be an integer or a slice such as \"1:5:2\", not {arg} ({}){why}", arg.ty())
        );
    }
    assert_eq!(
        call("index", &[&m, &i(0), &i(3)], &[]).unwrap_err(),
        "index 3 is out of bounds for dimension 1 of size 3"
    );
    assert!(call("index", &[&m, &s("::0")], &[])
        .unwrap_err()
        .contains("step"));
}

#[test]
fn range_too_large_for_memory_is_an_alloc_error() {
    // Found by the long campaign: range(-2147483648, 2) of int32 collected
    // 16 GiB into a Vec, aborting where memory was short.
    let range = dynd_arrfunc::builtins::get("range").unwrap();
    let n = Array::from_scalar(1i64 << 40); // 8 TiB of int64
    let e = range.call(&[&n]).unwrap_err();
    assert!(
        e.to_string()
            .contains("cannot allocate 8796093022208 bytes"),
        "{e}"
    );
    let e = range
        .call(&[
            &Array::from_scalar(0.0f64),
            &Array::from_scalar(1e12f64),
            &Array::from_scalar(1.0f64),
        ])
        .unwrap_err();
    assert!(e.to_string().contains("cannot allocate"), "{e}");
}
