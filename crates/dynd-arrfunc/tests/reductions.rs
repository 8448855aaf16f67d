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
    assert_eq!(call("mean", &r, &[]).unwrap(), "2 : ?float64");
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
        "sum: unknown keyword argument 'axes' (valid keywords: axis, keepdims, initial, where, skip_na)"
    );
    assert_eq!(
        err("mean", &[("initial", "0")]),
        "mean: unknown keyword argument 'initial' (valid keywords: axis, keepdims, where, skip_na)"
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
        "cumsum needs an array without var dimensions when no `axis` is given (ragged rows are not flattened), not 3 * var * int64"
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
        "[2, null, 4.5]"
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
        ("[[2], [null], [4.5]]".into(), "3 * 1 * ?float64".into())
    );
    let f = Array::from_json("[[1, 2], [3]]", Some(&"2 * var * float32".parse().unwrap())).unwrap();
    let r = mean.call_kw(&[&f], &[("axis", &ax1)]).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[1.5, 3]".into(), "2 * ?float32".into())
    );
    let i = Array::from_json(
        "[[1, 2], [7], [1, 1, 2]]",
        Some(&"3 * var * int32".parse().unwrap()),
    )
    .unwrap();
    let r = mean.call_kw(&[&i], &[("axis", &ax1)]).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[1.5, 7, 1.3333333333333333]".into(), "3 * ?float64".into())
    );
    let tail = a
        .index(&[dynd_kernels::Index::slice(Some(1), None, 1)])
        .unwrap();
    assert_eq!(
        mean.call_kw(&[&tail], &[("axis", &ax1)])
            .unwrap()
            .to_string(),
        "[null, 4.5]"
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
    // An option array counts its values (not NA).
    assert_eq!(count.call(&[&na]).unwrap().to_string(), "1");
}

/// The naive two-pass variance of `xs` in f64, or NaN for `ddof` or fewer.
fn naive_var(xs: &[f64], ddof: usize) -> f64 {
    if xs.len() <= ddof {
        return f64::NAN;
    }
    let mean = xs.iter().sum::<f64>() / xs.len() as f64;
    xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (xs.len() - ddof) as f64
}

fn close(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || (a - b).abs() <= 1e-9 * (1.0 + b.abs())
}

#[test]
fn var_and_std_give_numpy_results_and_types() {
    let a = array![[1, 2, 3, 4], [2, 2, 2, 2]];
    let f32s = arr("[1, 2, 3, 4]", "4 * float32");
    let f16s = arr("[1, 2, 3, 4]", "4 * float16");
    let ragged = arr("[[1, 3], [], [5], [2, 4, 6, 8]]", "4 * var * float64");
    let cases: &[Case<'_>] = &[
        ("var", &a, &[], "0.6875 : float64"),
        ("var", &a, &[("axis", "1")], "[1.25, 0] : 2 * float64"),
        (
            "var",
            &a,
            &[("axis", "-1"), ("ddof", "1")],
            "[1.6666666666666667, 0] : 2 * float64",
        ),
        (
            "var",
            &a,
            &[("axis", "0")],
            "[0.25, 0, 0.25, 1] : 4 * float64",
        ),
        (
            "var",
            &a,
            &[("axis", "[0, 1]"), ("keepdims", "true")],
            "[[0.6875]] : 1 * 1 * float64",
        ),
        (
            "std",
            &a,
            &[("axis", "1"), ("keepdims", "true")],
            "[[1.118033988749895], [0]] : 2 * 1 * float64",
        ),
        ("std", &f32s, &[], "1.118034 : float32"),
        ("var", &f16s, &[], "1.25 : float16"),
        // A group of `ddof` elements or fewer is NaN, as in NumPy.
        ("var", &f32s, &[("ddof", "4")], "NaN : float32"),
        // Ragged rows: each row's variance, an empty row NA (Awkward's
        // `mask_identity`): `?float64` whatever the data.
        (
            "var",
            &ragged,
            &[("axis", "1")],
            "[1, null, 0, 5] : 4 * ?float64",
        ),
        (
            "std",
            &ragged,
            &[("axis", "-1"), ("keepdims", "true")],
            "[[1], [null], [0], [2.23606797749979]] : 4 * 1 * ?float64",
        ),
        // Across rows, lined up by position; all the values.
        (
            "var",
            &ragged,
            &[("axis", "0")],
            "[2.8888888888888893, 0.25, 0, 0] : var * float64",
        ),
        ("var", &ragged, &[], "4.979591836734694 : ?float64"),
    ];
    for (name, a, kw, want) in cases {
        assert_eq!(
            call(name, a, kw).as_deref(),
            Ok(*want),
            "{name}({a}, {kw:?})"
        );
    }
}

#[test]
fn var_errors_say_what_was_wrong() {
    let err = call("var", &array![1.0, 2.0], &[("ddof", "-1")]).unwrap_err();
    assert!(
        err.contains("ddof") && err.contains("-1") && err.contains("at least 0"),
        "{err}"
    );
    let err = call("std", &arr("[[1, 2]]", "1 * 2 * complex[float64]"), &[]).unwrap_err();
    assert!(err.contains("variance of complex numbers"), "{err}");
    let err = call("var", &array![[1.0]], &[("axis", "2")]).unwrap_err();
    assert!(err.contains("axis 2") || err.contains("2"), "{err}");
    let err = call("var", &arr("[\"a\"]", "1 * string"), &[]).unwrap_err();
    assert!(
        err.contains("variance of this data type") && err.contains("string"),
        "{err}"
    );
}

/// Two passes stay accurate where `Σx² - (Σx)²/n` cancels: values of
/// variance 1 around 1e9, long enough for the chunked, parallel path.
#[test]
fn var_stays_accurate_far_from_zero_on_any_threads() {
    let n = 300_001;
    let xs: Vec<f64> = (0..n)
        .map(|i| 1e9 + if i % 2 == 0 { 1.0 } else { -1.0 })
        .collect();
    let a = Array::from_vec(xs.clone());
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    let var = builtins::get("var").unwrap();
    let r1 = one
        .install(|| var.call(&[&a]))
        .unwrap()
        .get::<f64>(&[])
        .unwrap();
    let r2 = two
        .install(|| var.call(&[&a]))
        .unwrap()
        .get::<f64>(&[])
        .unwrap();
    assert_eq!(r1.to_bits(), r2.to_bits());
    assert!(
        close(r1, naive_var(&xs, 0)),
        "{r1} vs {}",
        naive_var(&xs, 0)
    );
    assert!((r1 - 1.0).abs() < 1e-5, "{r1}");
}

mod var_props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// On random 3-d arrays, views included, every axis set gives the
        /// naive two-pass variance of the elements it folds.
        #[test]
        fn var_over_any_axes_matches_a_naive_two_pass(
            shape in proptest::collection::vec(0usize..5, 3),
            axes_bits in 0u8..8,
            ddof in 0usize..2,
            flip in any::<bool>(),
            seed in any::<u64>(),
        ) {
            let n: usize = shape.iter().product();
            let mut s = seed | 1;
            let values: Vec<f64> = (0..n).map(|_| { s ^= s << 13; s ^= s >> 7; s ^= s << 17; (s % 1000) as f64 / 10.0 }).collect();
            let mut a = Array::from_shape_vec(&shape, values.clone()).unwrap();
            let mut order: Vec<usize> = vec![0, 1, 2];
            if flip {
                a = a.permute_axes(&[2, 0, 1]).unwrap();
                order = vec![2, 0, 1];
            }
            let axes: Vec<i64> = (0..3).filter(|k| axes_bits & (1 << k) != 0).map(|k| k as i64).collect();
            let kw_axes = Array::from_value(&Value::List(axes.iter().map(|&k| Value::Int(k.into())).collect()), None).unwrap();
            let kw_ddof = Array::from_scalar(ddof as i64);
            let r = builtins::get("var").unwrap()
                .call_kw(&[&a], &[("axis", &kw_axes), ("ddof", &kw_ddof)]).unwrap();
            // Naive: for each index of the view, its group key.
            let vshape: Vec<usize> = order.iter().map(|&k| shape[k]).collect();
            let kept: Vec<usize> = (0..3).filter(|k| !axes.contains(&(*k as i64))).collect();
            let mut groups: std::collections::BTreeMap<Vec<usize>, Vec<f64>> = Default::default();
            let kshape: Vec<usize> = kept.iter().map(|&d| vshape[d]).collect();
            let mut keys: Vec<Vec<usize>> = vec![Vec::new()];
            for &m in &kshape {
                keys = keys.into_iter().flat_map(|k| (0..m).map(move |x| { let mut k = k.clone(); k.push(x); k })).collect();
            }
            for k in keys {
                groups.insert(k, Vec::new());
            }
            for i in 0..vshape[0] { for j in 0..vshape[1] { for k in 0..vshape[2] {
                let idx = [i, j, k];
                let key: Vec<usize> = kept.iter().map(|&d| idx[d]).collect();
                groups.entry(key).or_default().push(a.get::<f64>(&idx).unwrap());
            }}}
            let got = r.to_vec::<f64>().unwrap();
            let want: Vec<f64> = groups.values().map(|xs| naive_var(xs, ddof)).collect();
            prop_assert_eq!(got.len(), want.len());
            for (g, w) in got.iter().zip(&want) {
                prop_assert!(close(*g, *w), "{} vs {}", g, w);
            }
        }
    }
}

mod var_ragged_props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// On random `2 * M * var` arrays, every axis set gives the naive
        /// two-pass variance of what it folds (across rows: by position).
        #[test]
        fn ragged_var_over_any_axes_matches_a_naive_two_pass(
            rows in proptest::collection::vec(proptest::collection::vec(-50i32..50, 0..12), 2..9),
            axes_bits in 1u8..8,
            ddof in 0usize..2,
        ) {
            let m = rows.len() / 2;
            let rows = &rows[..2 * m];
            let nested: Vec<Vec<Vec<f64>>> = rows
                .chunks(m)
                .map(|c| c.iter().map(|r| r.iter().map(|&x| f64::from(x) / 4.0).collect()).collect())
                .collect();
            let json = format!("{nested:?}");
            let a = Array::from_json(&json, Some(&t(&format!("2 * {m} * var * float64")))).unwrap();
            let axes: Vec<i64> = (0..3).filter(|k| axes_bits & (1 << k) != 0).map(|k| k as i64).collect();
            let kw_axes = Array::from_value(&Value::List(axes.iter().map(|&k| Value::Int(k.into())).collect()), None).unwrap();
            let kw_ddof = Array::from_scalar(ddof as i64);
            let r = builtins::get("var").unwrap()
                .call_kw(&[&a], &[("axis", &kw_axes), ("ddof", &kw_ddof)]).unwrap();
            // Group key: the kept indices (the var position included when kept).
            let kept: Vec<usize> = (0..3).filter(|k| !axes.contains(&(*k as i64))).collect();
            let mut groups: std::collections::BTreeMap<Vec<usize>, Vec<f64>> = Default::default();
            for (i, plane) in nested.iter().enumerate() {
                for (j, row) in plane.iter().enumerate() {
                    let fixed_key: Vec<usize> = kept.iter().filter(|&&d| d < 2).map(|&d| [i, j][d]).collect();
                    if axes.contains(&2) {
                        groups.entry(fixed_key.clone()).or_default();
                    }
                    for (k, &x) in row.iter().enumerate() {
                        let mut key = fixed_key.clone();
                        if !axes.contains(&2) {
                            key.push(k);
                        }
                        groups.entry(key).or_default().push(x);
                    }
                }
            }
            let got: Vec<f64> = match r.to_value() {
                Value::List(items) => flatten(&items),
                v => flatten(&[v]),
            };
            let want: Vec<f64> = groups.values().map(|xs| naive_var(xs, ddof)).collect();
            prop_assert_eq!(got.len(), want.len(), "{} {:?}", r, axes);
            for (g, w) in got.iter().zip(&want) {
                prop_assert!(close(*g, *w), "{} vs {} in {} for {:?}", g, w, r, axes);
            }
        }
    }

    fn flatten(items: &[Value]) -> Vec<f64> {
        items
            .iter()
            .flat_map(|v| match v {
                Value::List(xs) => flatten(xs),
                Value::Float(x) => vec![*x],
                // An empty group: NA, where the naive variance is NaN.
                Value::Null => vec![f64::NAN],
                other => panic!("unexpected {other:?}"),
            })
            .collect()
    }
}

#[test]
fn nested_var_dimensions_reduce_over_any_axis() {
    let a = arr("[[1, 2, 3], [], [4, 5], [6]]", "var * var * int64");
    let f = arr("[[1, 2, 3], [], [4, 5], [6]]", "var * var * float64");
    let o = arr("[[1, null, 3], [], [null], [6]]", "var * var * ?float64");
    let b = arr("[[true, false], [], [true]]", "var * var * bool");
    let deep = arr(
        "[[[1, 2], [3]], [[4], [], [5, 6, 7]], []]",
        "var * var * var * int64",
    );
    let cases: &[Case<'_>] = &[
        ("sum", &a, &[("axis", "1")], "[6, 0, 9, 6] : var * int64"),
        ("sum", &a, &[("axis", "0")], "[11, 7, 3] : var * int64"),
        ("sum", &a, &[], "21 : int64"),
        (
            "sum",
            &a,
            &[("axis", "0"), ("keepdims", "true")],
            "[[11, 7, 3]] : 1 * var * int64",
        ),
        ("prod", &a, &[("axis", "0")], "[24, 10, 3] : var * int64"),
        ("max", &a, &[("axis", "0")], "[6, 5, 3] : var * ?int64"),
        (
            "min",
            &a,
            &[("axis", "1"), ("initial", "0")],
            "[0, 0, 0, 0] : var * int64",
        ),
        ("count", &a, &[("axis", "0")], "[3, 2, 1] : var * int64"),
        ("count", &a, &[("axis", "-1")], "[3, 0, 2, 1] : var * int64"),
        (
            "mean",
            &f,
            &[("axis", "0")],
            "[3.6666666666666665, 3.5, 3] : var * ?float64",
        ),
        (
            "mean",
            &a,
            &[("axis", "1")],
            "[2, null, 4.5, 6] : var * ?float64",
        ),
        (
            "var",
            &f,
            &[("axis", "0")],
            "[4.222222222222222, 2.25, 0] : var * ?float64",
        ),
        (
            "std",
            &f,
            &[("axis", "0"), ("ddof", "1")],
            "[2.516611478423583, 2.1213203435596424, NaN] : var * ?float64",
        ),
        // NA propagates unless skipped, as in every reduction of `?T`.
        (
            "sum",
            &o,
            &[("axis", "0")],
            "[null, null, 3] : var * ?float64",
        ),
        (
            "sum",
            &o,
            &[("axis", "0"), ("skip_na", "true")],
            "[7, 0, 3] : var * float64",
        ),
        (
            "mean",
            &o,
            &[("axis", "1"), ("skip_na", "true")],
            "[2, null, null, 6] : var * ?float64",
        ),
        ("any", &b, &[("axis", "0")], "[true, false] : var * bool"),
        (
            "all",
            &b,
            &[("axis", "1")],
            "[false, true, true] : var * bool",
        ),
        (
            "sum",
            &deep,
            &[("axis", "1")],
            "[[4, 2], [9, 6, 7], []] : var * var * int64",
        ),
        (
            "sum",
            &deep,
            &[("axis", "[0, 2]")],
            "[7, 3, 18] : var * int64",
        ),
        (
            "max",
            &deep,
            &[("axis", "[0, 1]")],
            "[5, 6, 7] : var * ?int64",
        ),
    ];
    for (name, x, kw, want) in cases {
        assert_eq!(
            call(name, x, kw).as_deref(),
            Ok(*want),
            "{name} {kw:?} of {x}"
        );
    }
    // An empty row's maximum is NA (the result is `?T` by its type).
    let r = call("max", &a, &[("axis", "1")]);
    assert_eq!(r.as_deref(), Ok("[3, null, 5, 6] : var * ?int64"));
    // A `where` mask in the array's shape.
    let m = arr(
        "[[true, false, true], [], [false, true], [true]]",
        "var * var * bool",
    );
    let axis0 = Array::from_scalar(0i64);
    let r = builtins::get("sum")
        .unwrap()
        .call_kw(&[&a], &[("axis", &axis0), ("where", &m)])
        .unwrap();
    assert_eq!(r.to_string(), "[7, 5, 3]");
}

mod nested_props {
    use super::*;
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};

    type Deep = Vec<Vec<Vec<i64>>>;

    /// `v` as JSON (a nested `Vec` of integers prints as its JSON).
    fn json(v: &Deep) -> String {
        format!("{v:?}")
    }

    /// Every element's index path at each depth (1: the outer rows, 2:
    /// their lists, 3: the values), with the value at depth 3.
    fn paths(v: &Deep) -> Vec<(Vec<usize>, Option<i64>)> {
        let mut out = Vec::new();
        for (i, mid) in v.iter().enumerate() {
            out.push((vec![i], None));
            for (j, inner) in mid.iter().enumerate() {
                out.push((vec![i, j], None));
                for (k, x) in inner.iter().enumerate() {
                    out.push((vec![i, j, k], Some(*x)));
                }
            }
        }
        out
    }

    /// The result's positions (index paths at every depth) and leaf values.
    fn positions(r: &Array) -> (BTreeSet<Vec<usize>>, BTreeMap<Vec<usize>, i64>) {
        let levels = r.to_levels::<i64>().unwrap();
        let n = levels.dims.len();
        let mut set = BTreeSet::new();
        let mut vals = BTreeMap::new();
        // Walk the levels depth first.
        fn go(
            l: &dynd_kernels::Levels<i64>,
            depth: usize,
            path: &mut Vec<usize>,
            at: &mut Vec<usize>,
            set: &mut BTreeSet<Vec<usize>>,
            vals: &mut BTreeMap<Vec<usize>, i64>,
        ) {
            if depth == l.dims.len() {
                vals.insert(path.clone(), l.values[at[depth]]);
                at[depth] += 1;
                return;
            }
            let len = l.lengths[depth][at[depth]];
            at[depth] += 1;
            for p in 0..len {
                path.push(p);
                set.insert(path.clone());
                go(l, depth + 1, path, at, set, vals);
                path.pop();
            }
        }
        go(
            &levels,
            0,
            &mut Vec::new(),
            &mut vec![0; n + 1],
            &mut set,
            &mut vals,
        );
        (set, vals)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn sums_and_counts_match_the_union_of_positions(
            v in prop::collection::vec(
                prop::collection::vec(prop::collection::vec(-9i64..10, 0..4), 0..4),
                0..5,
            ),
            axes in prop::sample::subsequence(vec![0usize, 1, 2], 1..=3),
        ) {
            let a = arr(&json(&v), "var * var * var * int64");
            let axis = format!("[{}]", axes.iter().map(|x| x.to_string()).collect::<Vec<_>>().join(", "));
            let kept: Vec<usize> = (0..3).filter(|k| !axes.contains(k)).collect();
            let project = |p: &[usize]| -> Vec<usize> {
                kept.iter().filter(|&&k| k < p.len()).map(|&k| p[k]).collect()
            };
            // The reference: a position for every element of a kept
            // dimension (projected), the values summed and counted by
            // their projected paths.
            let mut want_pos = BTreeSet::new();
            let mut sums: BTreeMap<Vec<usize>, (i64, i64)> = BTreeMap::new();
            for (p, x) in paths(&v) {
                let last = p.len() - 1;
                if kept.contains(&last) {
                    want_pos.insert(project(&p));
                }
                if let Some(x) = x {
                    let e = sums.entry(project(&p)).or_default();
                    *e = (e.0 + x, e.1 + 1);
                }
            }
            for (name, pick) in [("sum", 0), ("count", 1)] {
                let r = builtins::get(name).unwrap().call_kw(
                    &[&a],
                    &[("axis", &Array::from_value(&Value::parse_json(&axis).unwrap(), None).unwrap())],
                ).unwrap();
                let (pos, vals) = positions(&r);
                prop_assert_eq!(&pos, &want_pos, "{} {} of {}", name, axis, a);
                for (p, got) in vals {
                    let want = sums.get(&p).map_or(0, |s| if pick == 0 { s.0 } else { s.1 });
                    prop_assert_eq!(got, want, "{} {} of {} at {:?}", name, axis, a, p);
                }
            }
        }
    }
}

/// `f(x, **kw)` on the array that takes a fast path and on the same
/// values viewed with a step (the general path); `what` names the case.
fn on_both(
    f: &dynd_arrfunc::Callable,
    (fast, general): (&Array, &Array),
    kw: &[(&str, &Array)],
    what: &str,
) -> (Array, Array) {
    let call = |x: &Array| {
        f.call_kw(&[x], kw)
            .unwrap_or_else(|e| panic!("{what}: {e}"))
    };
    (call(fast), call(general))
}

/// Small dense arrays reduce through a shortcut (`reduce_tiny`); a strided
/// view of the same values takes the general path. Both must give the
/// same types and bits, NaN included, over every axis choice, with and
/// without `keepdims`, on both sides of the shortcut's size limit.
#[test]
fn small_dense_reductions_give_the_general_paths_bits() {
    use dynd_kernels::Index;
    fn seeded(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed | 1;
        (0..n)
            .map(|i| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                // Mixed magnitudes (a sum's bits depend on its order), a NaN
                // now and then, and exact integers for the integer types.
                match i % 97 {
                    13 => f64::NAN,
                    _ => ((s >> 40) as f64 - 8e6) * if i % 3 == 0 { 1e-7 } else { 1.0 },
                }
            })
            .collect()
    }
    let shapes: &[&[usize]] = &[&[1], &[7], &[5, 1], &[4, 4], &[3, 5, 7], &[2, 513], &[1000]];
    for &shape in shapes {
        let n: usize = shape.iter().product();
        let xs = seeded(n, n as u64);
        let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
        for dtype in ["float64", "float32", "int64", "uint64"] {
            let values: Vec<Value> = xs
                .iter()
                .map(|&x| match dtype {
                    "int64" => Value::Int(if x.is_nan() { 3 } else { x as i128 % 1000 }),
                    "uint64" => Value::Int(if x.is_nan() {
                        3
                    } else {
                        (x as i128 % 1000).abs()
                    }),
                    _ => Value::Float(x),
                })
                .collect();
            let flat = Array::from_value(&Value::List(values), Some(&t(&format!("{n} * {dtype}"))))
                .unwrap();
            let dense = flat.reshape(shape).unwrap();
            // Every value twice, the view taking every other: the same
            // values, not C-contiguous.
            let doubled = builtins::get("repeat")
                .unwrap()
                .call(&[&flat, &Array::from_scalar(2i64)])
                .unwrap();
            let mut wide = shape.to_vec();
            *wide.last_mut().unwrap() *= 2;
            let mut every_other = vec![Index::slice(None, None, 1); shape.len() - 1];
            every_other.push(Index::slice(None, None, 2));
            let strided = doubled
                .reshape(&wide[..])
                .unwrap()
                .index(&every_other)
                .unwrap();
            // (A last dimension of 1 is contiguous at any stride.)
            assert!(
                shape.last() == Some(&1) || !strided.is_c_contiguous(),
                "{shape:?}"
            );
            assert_eq!(
                strided.ty().to_string(),
                format!("{} * {dtype}", dims.join(" * "))
            );
            let nd = shape.len() as i64;
            let mut axes: Vec<Option<Vec<i64>>> = vec![None];
            axes.extend((0..nd).map(|k| Some(vec![k])));
            axes.extend((1..nd).map(|k| Some(vec![k - 1, k])));
            axes.push(Some(vec![-1]));
            for name in ["sum", "prod", "min", "max"] {
                let f = builtins::get(name).unwrap();
                for ax in &axes {
                    for keepdims in [false, true] {
                        let mut kw: Vec<(&str, Array)> =
                            vec![("keepdims", Array::from_scalar(keepdims))];
                        if let Some(ax) = ax {
                            kw.push(("axis", Array::from_vec(ax.clone())));
                        }
                        let kw: Vec<(&str, &Array)> = kw.iter().map(|(k, v)| (*k, v)).collect();
                        let what =
                            format!("{name} of {shape:?} {dtype} over {ax:?}, keepdims {keepdims}");
                        let (fast, general) = on_both(&f, (&dense, &strided), &kw, &what);
                        assert_eq!(fast.ty(), general.ty(), "{what}");
                        let bits = |a: &Array| -> Vec<u64> {
                            match dtype {
                                "float64" => a
                                    .to_vec::<f64>()
                                    .unwrap()
                                    .iter()
                                    .map(|x| x.to_bits())
                                    .collect(),
                                "float32" => a
                                    .to_vec::<f32>()
                                    .unwrap()
                                    .iter()
                                    .map(|x| u64::from(x.to_bits()))
                                    .collect(),
                                "int64" => a
                                    .to_vec::<i64>()
                                    .unwrap()
                                    .iter()
                                    .map(|&x| x as u64)
                                    .collect(),
                                _ => a.to_vec::<u64>().unwrap(),
                            }
                        };
                        assert_eq!(bits(&fast), bits(&general), "{what}");
                    }
                }
            }
        }
    }
}

/// Per-row `mean`, `var` and `std` of contiguous ragged rows write their
/// `?T` results in the fold's pass. Their values must be the bits the
/// per-row folds give (the row sums over the lengths; the kernels'
/// per-row variance), NA exactly for each empty row, on one unit of rows
/// and on many (several threads); rows viewed with a step take the
/// general path (values, counts, validity, combined), whose sums run in
/// another order: the same NA, values within rounding.
#[test]
fn per_row_moments_write_na_in_the_fold() {
    use dynd_kernels::reduce::{std_dev, variance, VarArgs};
    use dynd_kernels::Index;
    use dynd_kernels::{ArrayOps, ErrorMode};
    let mut s = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for nrows in [7usize, 5000] {
        let rows: Vec<Vec<f64>> = (0..nrows)
            .map(|r| {
                let len = if r % 5 == 0 {
                    0
                } else {
                    (next() % 40) as usize
                };
                (0..len)
                    .map(|_| ((next() >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 1e3)
                    .collect()
            })
            .collect();
        let doubled: Vec<Vec<f64>> = rows
            .iter()
            .map(|r| r.iter().flat_map(|&x| [x, -1.0]).collect())
            .collect();
        let na: Vec<bool> = rows.iter().map(|r| r.is_empty()).collect();
        for dtype in ["float64", "float32", "int32"] {
            let json = |rows: &[Vec<f64>]| {
                let rows: Vec<String> = rows
                    .iter()
                    .map(|r| {
                        let xs: Vec<String> = r
                            .iter()
                            .map(|x| {
                                if dtype == "int32" {
                                    format!("{}", x.round() as i64)
                                } else {
                                    format!("{x:?}")
                                }
                            })
                            .collect();
                        format!("[{}]", xs.join(", "))
                    })
                    .collect();
                format!("[{}]", rows.join(", "))
            };
            let ty = format!("{nrows} * var * {dtype}");
            let dense = arr(&json(&rows), &ty);
            let strided = arr(&json(&doubled), &ty)
                .index(&[Index::slice(None, None, 1), Index::slice(None, None, 2)])
                .unwrap();
            assert_eq!(dense.to_string(), strided.to_string());
            let float = if dtype == "float32" {
                "float32"
            } else {
                "float64"
            };
            let as_float = dense
                .cast(&t(&format!("{nrows} * var * {float}")), ErrorMode::NoCheck)
                .unwrap();
            let lens: Vec<f64> = rows.iter().map(|r| r.len() as f64).collect();
            for (name, ddof) in [
                ("mean", None),
                ("var", Some(0usize)),
                ("var", Some(1)),
                ("std", Some(0)),
                ("std", Some(1)),
            ] {
                // The per-row values the folds give, as f64 (f32 widened).
                let reference: Vec<f64> = match (name, float) {
                    ("mean", _) => {
                        let sums = builtins::get("sum")
                            .unwrap()
                            .call_kw(&[&as_float], &[("axis", &Array::from_scalar(-1i64))])
                            .unwrap();
                        if float == "float32" {
                            let sums = sums.to_vec::<f32>().unwrap();
                            sums.iter()
                                .zip(&lens)
                                .map(|(s, n)| f64::from(s / *n as f32))
                                .collect()
                        } else {
                            let sums = sums.to_vec::<f64>().unwrap();
                            sums.iter().zip(&lens).map(|(s, n)| s / n).collect()
                        }
                    }
                    _ => {
                        let args = VarArgs {
                            axes: Some(&[-1]),
                            keepdims: false,
                            ddof: ddof.unwrap(),
                            mask: None,
                        };
                        let root = name == "std";
                        if float == "float32" {
                            let v = if root {
                                std_dev::<f32>(&as_float, &args, name)
                            } else {
                                variance::<f32>(&as_float, &args, name)
                            };
                            v.unwrap()
                                .to_vec::<f32>()
                                .unwrap()
                                .into_iter()
                                .map(f64::from)
                                .collect()
                        } else {
                            let v = if root {
                                std_dev::<f64>(&as_float, &args, name)
                            } else {
                                variance::<f64>(&as_float, &args, name)
                            };
                            v.unwrap().to_vec::<f64>().unwrap()
                        }
                    }
                };
                let want: Vec<Option<u64>> = reference
                    .iter()
                    .zip(&na)
                    .map(|(v, na)| (!na).then_some(v.to_bits()))
                    .collect();
                for keepdims in [false, true] {
                    let mut kw: Vec<(&str, Array)> = vec![
                        ("axis", Array::from_scalar(-1i64)),
                        ("keepdims", Array::from_scalar(keepdims)),
                    ];
                    if let Some(d) = ddof {
                        kw.push(("ddof", Array::from_scalar(d as i64)));
                    }
                    let kw: Vec<(&str, &Array)> = kw.iter().map(|(k, v)| (*k, v)).collect();
                    let f = builtins::get(name).unwrap();
                    let what = format!(
                        "{name} (ddof {ddof:?}, keepdims {keepdims}) of {nrows} rows of {dtype}"
                    );
                    let (fast, general) = on_both(&f, (&dense, &strided), &kw, &what);
                    let shape = if keepdims {
                        format!("{nrows} * 1")
                    } else {
                        format!("{nrows}")
                    };
                    assert_eq!(
                        fast.ty().to_string(),
                        format!("{shape} * ?{float}"),
                        "{what}"
                    );
                    assert_eq!(fast.ty(), general.ty(), "{what}");
                    let values = |a: &Array| -> Vec<Option<f64>> {
                        if float == "float32" {
                            a.to_vec::<Option<f32>>()
                                .unwrap()
                                .into_iter()
                                .map(|x| x.map(f64::from))
                                .collect()
                        } else {
                            a.to_vec::<Option<f64>>().unwrap()
                        }
                    };
                    let got = values(&fast);
                    assert_eq!(
                        got.iter().map(|x| x.map(f64::to_bits)).collect::<Vec<_>>(),
                        want,
                        "{what}"
                    );
                    for (r, (g, w)) in got.iter().zip(values(&general)).enumerate() {
                        match (g, w) {
                            (None, None) => {}
                            (Some(g), Some(w)) => {
                                let tol = if float == "float32" { 1e-4 } else { 1e-9 };
                                assert!(
                                    (g - w).abs() <= tol * w.abs().max(1.0)
                                        || (g.is_nan() && w.is_nan()),
                                    "{what}, row {r}: {g} vs {w}"
                                );
                            }
                            _ => panic!("{what}, row {r}: NA on one path only ({g:?} vs {w:?})"),
                        }
                    }
                }
            }
        }
    }
}
