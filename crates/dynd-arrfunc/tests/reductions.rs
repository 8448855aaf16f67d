//! The reduction builtins: results, result types, keywords and errors.

use dynd_arrfunc::builtins;
use dynd_kernels::{array, Array, Value};
use dynd_types::Type;

fn t(s: &str) -> Type {
    s.parse().unwrap()
}

fn arr(json: &str, ty: &str) -> Array {
    Array::from_json(json, Some(&t(ty))).unwrap()
}

/// `name(a, **kwargs)` as "value : type", or the error.
fn call(name: &str, a: &Array, kwargs: &[(&str, &str)]) -> Result<String, String> {
    let values: Vec<Array> = kwargs
        .iter()
        .map(|(_, v)| Array::from_value(&Value::parse_json(v).unwrap(), None).unwrap())
        .collect();
    let kw: Vec<(&str, &Array)> = kwargs.iter().map(|(k, _)| *k).zip(values.iter()).collect();
    builtins::get(name)
        .unwrap()
        .call_kw(&[a], &kw)
        .map(|r| format!("{r} : {}", r.ty()))
        .map_err(|e| e.to_string())
}

/// A reduction, its array, its keywords and the expected result.
type Case<'a> = (&'a str, &'a Array, &'a [(&'a str, &'a str)], &'a str);

#[test]
fn reductions_give_numpy_results_and_types() {
    let a = array![[1, 2, 3], [4, 5, 6]];
    let cases: &[Case<'_>] = &[
        ("sum", &a, &[], "21 : int64"),
        ("sum", &a, &[("axis", "0")], "[5, 7, 9] : 3 * int64"),
        (
            "sum",
            &a,
            &[("axis", "[0, 1]"), ("keepdims", "true")],
            "[[21]] : 1 * 1 * int64",
        ),
        ("prod", &a, &[("axis", "-1")], "[6, 120] : 2 * int64"),
        ("min", &a, &[("axis", "1")], "[1, 4] : 2 * int64"),
        ("max", &a, &[("initial", "10")], "10 : int64"),
        (
            "mean",
            &a,
            &[("axis", "0")],
            "[2.5, 3.5, 4.5] : 3 * float64",
        ),
        ("sum", &a, &[("where", "[true, false, true]")], "14 : int64"),
        ("mean", &a, &[("where", "[[true], [false]]")], "2 : float64"),
        ("all", &a, &[], "true : bool"),
        (
            "any",
            &a,
            &[("axis", "1"), ("keepdims", "true")],
            "[[true], [true]] : 2 * 1 * bool",
        ),
    ];
    for (name, x, kw, want) in cases {
        assert_eq!(call(name, x, kw).as_deref(), Ok(*want), "{name} {kw:?}");
    }
    // Narrow integers accumulate in 64 bits; unsigned in uint64.
    let i8s = arr("[100, 100, 100]", "3 * int8");
    assert_eq!(call("sum", &i8s, &[]).unwrap(), "300 : int64");
    assert_eq!(
        call("sum", &arr("[200, 200]", "2 * uint8"), &[]).unwrap(),
        "400 : uint64"
    );
    assert_eq!(
        call("sum", &arr("[true, true]", "2 * bool"), &[]).unwrap(),
        "2 : int64"
    );
    // float32 stays float32 (mean too); float16 accumulates in float32.
    assert_eq!(
        call("mean", &arr("[1, 2]", "2 * float32"), &[]).unwrap(),
        "1.5 : float32"
    );
    assert_eq!(
        call("sum", &arr("[2048, 1, 1]", "3 * float16"), &[]).unwrap(),
        "2050 : float16",
        "summed in float32, so the two 1s are not lost to rounding at 2048"
    );
    // NaN propagates through min and max; all/any read NaN as true.
    assert_eq!(
        call("max", &array![1.0, f64::NAN, 3.0], &[]).unwrap(),
        "NaN : float64"
    );
    assert_eq!(
        call("all", &array![f64::NAN, 1.0], &[]).unwrap(),
        "true : bool"
    );
    // Complex sums; complex has no min.
    let z = arr("[[1, 2], [3, -1]]", "2 * complex[float64]");
    assert_eq!(call("sum", &z, &[]).unwrap(), "[4, 1] : complex[float64]");
    assert!(call("min", &z, &[]).unwrap_err().contains("no order"));
    // Ragged rows.
    let r = array![[1.0, 2.0], [], [3.0]];
    assert_eq!(
        call("sum", &r, &[("axis", "1")]).unwrap(),
        "[3, 0, 3] : 3 * float64"
    );
    assert_eq!(call("mean", &r, &[]).unwrap(), "2 : float64");
    assert_eq!(
        call("max", &r, &[("axis", "1"), ("initial", "-1")]).unwrap(),
        "[2, -1, 3] : 3 * float64"
    );
}

#[test]
fn reduction_errors_say_what_was_wrong() {
    let a = array![[1, 2], [3, 4]];
    let err = |name: &str, kw: &[(&str, &str)]| call(name, &a, kw).unwrap_err();
    assert_eq!(
        err("sum", &[("axis", "2")]),
        "sum: axis 2 is out of bounds for an array of 2 dimension(s)"
    );
    assert_eq!(
        err("sum", &[("axis", "[1, -1]")]),
        "sum: axis -1 is given more than once"
    );
    assert_eq!(
        err("sum", &[("axis", "1.5")]),
        "sum: keyword argument 'axis' must be an integer or a list of integers, not 1.5 (float64)"
    );
    assert_eq!(
        err("max", &[("where", "[true, false]")]),
        "max has no identity, so a `where` mask needs an `initial` value"
    );
    assert_eq!(
        err("sum", &[("initial", "[1, 2]")]),
        "sum: keyword argument 'initial' must be one value convertible to int64, not [1, 2] (2 * int64)"
    );
    assert_eq!(
        err("sum", &[("axes", "0")]),
        "sum: unknown keyword argument 'axes' (valid keywords: axis, keepdims, initial, where)"
    );
    assert_eq!(
        err("mean", &[("initial", "0")]),
        "mean: unknown keyword argument 'initial' (valid keywords: axis, keepdims, where)"
    );
    let empty = Array::zeros(&t("0 * float64")).unwrap();
    assert_eq!(
        call("min", &empty, &[]).unwrap_err(),
        "min: a reduction over no elements needs an identity, and min has none; pass `initial`"
    );
    assert_eq!(call("sum", &empty, &[]).unwrap(), "0 : float64");
    let s = array!["a"];
    assert!(call("sum", &s, &[]).unwrap_err().contains("not supported"));
}

#[test]
fn kahan_sum_beats_naive_summation_and_scans_run_along_one_axis() {
    // Built to defeat a running sum: the 1s vanish next to 1e100.
    let tricky = array![1.0, 1e100, 1.0, -1e100];
    assert_eq!(tricky.to_vec::<f64>().unwrap().iter().sum::<f64>(), 0.0);
    assert_eq!(call("kahan_sum", &tricky, &[]).unwrap(), "2 : float64");
    // Many small terms after a large one: naive loses them all.
    let mut v = vec![1e16];
    v.extend(std::iter::repeat_n(1.0, 10_000));
    v.push(-1e16);
    let naive: f64 = v.iter().sum();
    assert_eq!(naive, 0.0);
    let long = Array::from_vec(v);
    assert_eq!(call("kahan_sum", &long, &[]).unwrap(), "10000 : float64");
    // Along an axis, keeping it; integers are converted to float64.
    assert_eq!(
        call(
            "kahan_sum",
            &array![[1, 2], [3, 4]],
            &[("axis", "1"), ("keepdims", "true")]
        )
        .unwrap(),
        "[[3], [7]] : 2 * 1 * float64"
    );
    // The parallel chunks combine to the serial result, bit for bit.
    let big = Array::from_vec(
        (0..1_000_003)
            .map(|i| (i % 17) as f64 * 0.1)
            .collect::<Vec<_>>(),
    );
    let parallel = call("kahan_sum", &big, &[]).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    assert_eq!(
        pool.install(|| call("kahan_sum", &big, &[])).unwrap(),
        parallel
    );

    let a = array![[1, 2, 3], [4, 5, 6]];
    assert_eq!(
        call("cumsum", &a, &[("axis", "1")]).unwrap(),
        "[[1, 3, 6], [4, 9, 15]] : 2 * 3 * int64"
    );
    assert_eq!(
        call("cumprod", &a, &[("axis", "0")]).unwrap(),
        "[[1, 2, 3], [4, 10, 18]] : 2 * 3 * int64"
    );
    assert_eq!(
        call("cumsum", &array![0.5, 0.25], &[]).unwrap(),
        "[0.5, 0.75] : 2 * float64"
    );
    assert_eq!(
        call("cumsum", &arr("[100, 100]", "2 * int8"), &[]).unwrap(),
        "[100, 200] : 2 * int64",
        "narrow integers accumulate in 64 bits"
    );
    assert_eq!(
        call("cumsum", &a, &[]).unwrap(),
        "[1, 3, 6, 10, 15, 21] : 6 * int64",
        "without an axis, the flattened array (NumPy)"
    );
    assert_eq!(
        call("cumsum", &a.transpose().unwrap(), &[]).unwrap(),
        "[1, 5, 7, 12, 15, 21] : 6 * int64",
        "flattened in the view's C order"
    );
    let ragged = array![[1, 2, 3], [], [4, 5]];
    assert_eq!(
        call("cumprod", &ragged, &[("axis", "-1")]).unwrap(),
        "[[1, 2, 6], [], [4, 20]] : 3 * var * int64"
    );
    assert_eq!(
        call(
            "cumsum",
            &arr("[[0.5], [0.25, 0.25]]", "2 * var * float32"),
            &[("axis", "1")]
        )
        .unwrap(),
        "[[0.5], [0.25, 0.5]] : 2 * var * float32"
    );
    assert_eq!(
        call("cumsum", &ragged, &[]).unwrap_err(),
        "cumsum: an array with var dimensions (3 * var * int64) needs `axis` (ragged rows are not flattened)"
    );
    assert_eq!(
        call("cumsum", &ragged, &[("axis", "0")]).unwrap_err(),
        "a scan of an array with a var dimension other than along its innermost var axis is not supported for 3 * var * int64"
    );
    assert_eq!(
        call("cumsum", &a, &[("axis", "[0, 1]")]).unwrap_err(),
        "cumsum: keyword argument 'axis' must be an integer, not [0, 1] (2 * int64)"
    );
    assert_eq!(
        call("cumsum", &a, &[("axis", "2")]).unwrap_err(),
        "cumsum: axis 2 is out of bounds for an array of 2 dimension(s)"
    );
}

/// `count` gives what each reduction folds: from the shape, the row
/// lengths (per row and across rows) or the mask; `mean` divides by it.
#[test]
fn count_and_mean_from_shapes_row_lengths_and_masks() {
    let count = builtins::get("count").unwrap();
    let mean = builtins::get("mean").unwrap();
    let ax = |n: i64| Array::from_scalar(n);
    let a = Array::from_json(
        "[[1, 2, 3], [], [4, 5]]",
        Some(&"3 * var * float64".parse().unwrap()),
    )
    .unwrap();
    let (ax0, ax1) = (ax(0), ax(1));
    assert_eq!(
        count.call_kw(&[&a], &[("axis", &ax1)]).unwrap().to_string(),
        "[3, 0, 2]"
    );
    assert_eq!(
        count.call_kw(&[&a], &[("axis", &ax0)]).unwrap().to_string(),
        "[2, 2, 1]"
    );
    assert_eq!(count.call(&[&a]).unwrap().to_string(), "5");
    assert_eq!(
        mean.call_kw(&[&a], &[("axis", &ax1)]).unwrap().to_string(),
        "[2, NaN, 4.5]"
    );
    assert_eq!(
        mean.call_kw(&[&a], &[("axis", &ax0)]).unwrap().to_string(),
        "[2.5, 3.5, 3]"
    );
    // Per row: the sums divided by the row lengths, for any spelling of
    // the var axis, with keepdims, from float32, from integers, and over
    // a view that skips a row.
    let keep = Array::from_scalar(true);
    let r = mean
        .call_kw(&[&a], &[("axis", &ax(-1)), ("keepdims", &keep)])
        .unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[[2], [NaN], [4.5]]".into(), "3 * 1 * float64".into())
    );
    let f = Array::from_json("[[1, 2], [3]]", Some(&"2 * var * float32".parse().unwrap())).unwrap();
    let r = mean.call_kw(&[&f], &[("axis", &ax1)]).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[1.5, 3]".into(), "2 * float32".into())
    );
    let i = Array::from_json(
        "[[1, 2], [7], [1, 1, 2]]",
        Some(&"3 * var * int32".parse().unwrap()),
    )
    .unwrap();
    let r = mean.call_kw(&[&i], &[("axis", &ax1)]).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[1.5, 7, 1.3333333333333333]".into(), "3 * float64".into())
    );
    let tail = a
        .index(&[dynd_kernels::Index::slice(Some(1), None, 1)])
        .unwrap();
    assert_eq!(
        mean.call_kw(&[&tail], &[("axis", &ax1)])
            .unwrap()
            .to_string(),
        "[NaN, 4.5]"
    );
    let r = count
        .call_kw(&[&a], &[("axis", &ax1), ("keepdims", &keep)])
        .unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[[3], [0], [2]]".into(), "3 * 1 * int64".into())
    );
    // Fixed dimensions: the product of the reduced sizes.
    let d = Array::from_shape_vec(&[2, 3, 4], (0..24).map(|i| i as f64).collect()).unwrap();
    let axes = Array::from_json("[0, 2]", None).unwrap();
    let r = count.call_kw(&[&d], &[("axis", &axes)]).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[8, 8, 8]".into(), "3 * int64".into())
    );
    assert_eq!(
        mean.call_kw(&[&d], &[("axis", &axes)]).unwrap().to_string(),
        "[7.5, 11.5, 15.5]"
    );
    // A mask: the elements it keeps.
    let m = Array::from_json(
        "[[true, false, true], [], [false, false]]",
        Some(&"3 * var * bool".parse().unwrap()),
    )
    .unwrap();
    assert_eq!(
        count
            .call_kw(&[&a], &[("axis", &ax1), ("where", &m)])
            .unwrap()
            .to_string(),
        "[2, 0, 0]"
    );
    let row_mask = Array::from_json("[true, false, true, true]", None).unwrap();
    assert_eq!(
        count
            .call_kw(&[&d], &[("axis", &ax(2)), ("where", &row_mask)])
            .unwrap()
            .to_string(),
        "[[3, 3, 3], [3, 3, 3]]"
    );
    let short = Array::from_json("[true, false, true]", None).unwrap();
    let e = count.call_kw(&[&d], &[("where", &short)]).unwrap_err();
    assert!(
        e.to_string()
            .contains("does not broadcast to the array 2 * 3 * 4 * float64"),
        "{e}"
    );
    // Errors say what was wrong.
    let e = count.call_kw(&[&d], &[("axis", &ax(3))]).unwrap_err();
    assert!(e.to_string().contains("axis 3"), "{e}");
    let na = Array::from_json("[1, null]", Some(&"2 * ?float64".parse().unwrap())).unwrap();
    let e = count.call(&[&na]).unwrap_err();
    assert!(e.to_string().contains("option"), "{e}");
}
