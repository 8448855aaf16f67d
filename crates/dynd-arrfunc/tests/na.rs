//! Missing values in reductions: NA propagates by default, `skip_na`
//! leaves it out, `count` counts values, and NA and NaN never turn into
//! each other; `is_na`, `fill_na` and `null_count`.

use dynd_arrfunc::builtins;
use dynd_kernels::ArrayOps;
use dynd_kernels::{Array, Value};

fn arr(json: &str, ty: &str) -> Array {
    Array::from_json(json, Some(&ty.parse().unwrap())).unwrap()
}

/// `name(args..., **kwargs)` as "value : type", or the error.
fn call(name: &str, args: &[&Array], kwargs: &[(&str, &str)]) -> Result<String, String> {
    let values: Vec<Array> = kwargs
        .iter()
        .map(|(_, v)| Array::from_value(&Value::parse_json(v).unwrap(), None).unwrap())
        .collect();
    let kw: Vec<(&str, &Array)> = kwargs.iter().map(|(k, _)| *k).zip(values.iter()).collect();
    builtins::get(name)
        .unwrap()
        .call_kw(args, &kw)
        .map(|r| format!("{r} : {}", r.ty()))
        .map_err(|e| e.to_string())
}

/// A reduction, its array, its keywords and the expected result.
type Case<'a> = (&'a str, &'a Array, &'a [(&'a str, &'a str)], &'a str);

#[test]
fn reductions_propagate_na_by_default_and_skip_it_when_asked() {
    let flat = arr("[1, null, 3]", "3 * ?float64");
    let rows = arr("[[1, null], [2, 3], [], [null]]", "4 * var * ?float64");
    let ints = arr("[[5, null, -2], [null]]", "2 * var * ?int32");
    let bools = arr("[[true, null], [null], [false, true]]", "3 * var * ?bool");
    let skip = ("skip_na", "true");
    let cases: &[Case<'_>] = &[
        // Propagating: a group holding NA is NA; the result is an option.
        ("sum", &flat, &[], "null : ?float64"),
        (
            "sum",
            &rows,
            &[("axis", "1")],
            "[null, 5, 0, null] : 4 * ?float64",
        ),
        (
            "mean",
            &rows,
            &[("axis", "1")],
            "[null, 2.5, NaN, null] : 4 * ?float64",
        ),
        (
            "max",
            &ints,
            &[("axis", "1"), ("initial", "0")],
            "[null, null] : 2 * ?int32",
        ),
        (
            "std",
            &rows,
            &[("axis", "-1")],
            "[null, 0.5, NaN, null] : 4 * ?float64",
        ),
        (
            "all",
            &bools,
            &[("axis", "1")],
            "[null, null, false] : 3 * ?bool",
        ),
        // Skipping: sums, products, all and any of no value give their
        // identity, as plain values...
        ("sum", &flat, &[skip], "4 : float64"),
        (
            "sum",
            &rows,
            &[("axis", "1"), skip],
            "[1, 5, 0, 0] : 4 * float64",
        ),
        (
            "prod",
            &ints,
            &[("axis", "1"), skip],
            "[-10, 1] : 2 * int64",
        ),
        (
            "all",
            &bools,
            &[("axis", "1"), skip],
            "[true, true, false] : 3 * bool",
        ),
        (
            "any",
            &bools,
            &[("axis", "1"), skip],
            "[true, false, true] : 3 * bool",
        ),
        // ...min, max, mean, var and std of no value are NA.
        (
            "mean",
            &rows,
            &[("axis", "1"), skip],
            "[1, 2.5, null, null] : 4 * ?float64",
        ),
        (
            "min",
            &ints,
            &[("axis", "1"), skip],
            "[-2, null] : 2 * ?int32",
        ),
        (
            "max",
            &ints,
            &[("axis", "-1"), skip, ("keepdims", "true")],
            "[[5], [null]] : 2 * 1 * ?int32",
        ),
        (
            "var",
            &rows,
            &[("axis", "1"), skip],
            "[0, 0.25, null, null] : 4 * ?float64",
        ),
        ("std", &rows, &[skip], "0.816496580927726 : ?float64"),
        // With `initial`, min and max of no value are the initial value.
        (
            "min",
            &ints,
            &[("axis", "1"), skip, ("initial", "0")],
            "[-2, 0] : 2 * int32",
        ),
        // Across ragged rows, by position.
        (
            "sum",
            &rows,
            &[("axis", "0"), skip],
            "[3, 3] : var * float64",
        ),
        // count counts the values that are not NA.
        ("count", &rows, &[("axis", "1")], "[1, 2, 0, 0] : 4 * int64"),
        ("count", &rows, &[], "3 : int64"),
    ];
    for (name, a, kw, want) in cases {
        assert_eq!(
            call(name, &[a], kw).as_deref(),
            Ok(*want),
            "{name}({a}, {kw:?})"
        );
    }
}

/// An empty ragged row of options is NA for `min` and `max` whether NA is
/// skipped or propagates (it was an error when NA propagated).
#[test]
fn an_empty_row_of_options_is_na_both_ways() {
    let x = arr("[[1, null], [], [3, 2]]", "3 * var * ?int64");
    for (name, kw, want) in [
        ("max", vec![("axis", "1")], "[null, null, 3] : 3 * ?int64"),
        ("min", vec![("axis", "1")], "[null, null, 2] : 3 * ?int64"),
        (
            "max",
            vec![("axis", "1"), ("skip_na", "true")],
            "[1, null, 3] : 3 * ?int64",
        ),
        // (A mean of no element is NaN, NA or not.)
        (
            "mean",
            vec![("axis", "1")],
            "[null, NaN, 2.5] : 3 * ?float64",
        ),
    ] {
        assert_eq!(call(name, &[&x], &kw).as_deref(), Ok(want), "{name} {kw:?}");
    }
}

#[test]
fn where_and_na_work_together() {
    let rows = arr("[[1, null, 4], [2, 3, 10]]", "2 * 3 * ?float64");
    let keep = arr("[true, false, true]", "3 * bool");
    let k = Array::from_scalar(1i64);
    let t = Array::from_scalar(true);
    let sum = builtins::get("sum").unwrap();
    // An NA element that `where` leaves out does not make the group NA.
    let r = sum
        .call_kw(&[&rows], &[("axis", &k), ("where", &keep)])
        .unwrap();
    assert_eq!(r.to_string(), "[5, 12]");
    assert_eq!(r.ty().to_string(), "2 * ?float64");
    let count = builtins::get("count").unwrap();
    let r = count
        .call_kw(
            &[&arr("[[1, null, 4], [null, 3, 10]]", "2 * 3 * ?float64")],
            &[("axis", &k), ("where", &keep)],
        )
        .unwrap();
    assert_eq!(r.to_string(), "[2, 1]");
    let mean = builtins::get("mean").unwrap();
    let r = mean
        .call_kw(
            &[&arr("[[null, 2, 4]]", "1 * 3 * ?float64")],
            &[("axis", &k), ("where", &keep), ("skip_na", &t)],
        )
        .unwrap();
    assert_eq!(r.to_string(), "[4]");
}

#[test]
fn na_and_nan_stay_apart() {
    let x = arr("[NaN, null, 1]", "3 * ?float64");
    assert_eq!(
        call("sum", &[&x], &[("skip_na", "true")]).as_deref(),
        Ok("NaN : float64")
    );
    assert_eq!(call("sum", &[&x], &[]).as_deref(), Ok("null : ?float64"));
    assert_eq!(
        call("is_na", &[&x], &[]).as_deref(),
        Ok("[false, true, false] : 3 * bool")
    );
    assert_eq!(call("null_count", &[&x], &[]).as_deref(), Ok("1 : int64"));
    // A mean of no value is NA, never NaN; a mean over NaN is NaN, never NA.
    let y = arr("[[null, null], [NaN, 1]]", "2 * 2 * ?float64");
    assert_eq!(
        call("mean", &[&y], &[("axis", "1"), ("skip_na", "true")]).as_deref(),
        Ok("[null, NaN] : 2 * ?float64")
    );
    // fill_na fills NA, not NaN.
    assert_eq!(
        call("fill_na", &[&x, &Array::from_scalar(0.0)], &[]).as_deref(),
        Ok("[NaN, 0, 1] : 3 * float64")
    );
}

#[test]
fn is_na_fill_na_and_null_count() {
    let rows = arr("[[1, null], [2, 3], [null]]", "3 * var * ?int32");
    assert_eq!(
        call("is_na", &[&rows], &[]).as_deref(),
        Ok("[[false, true], [false, false], [true]] : 3 * var * bool")
    );
    assert_eq!(
        call("fill_na", &[&rows, &Array::from_scalar(-1i64)], &[]).as_deref(),
        Ok("[[1, -1], [2, 3], [-1]] : 3 * var * int32")
    );
    assert_eq!(
        call("null_count", &[&rows], &[("axis", "1")]).as_deref(),
        Ok("[1, 0, 1] : 3 * int64")
    );
    assert_eq!(
        call("null_count", &[&rows], &[]).as_deref(),
        Ok("2 : int64")
    );
    assert_eq!(rows.null_count().unwrap(), 2);
    // Arrays without NA: nothing is NA, nothing to fill.
    let plain = arr("[[1.5], [2, 3]]", "2 * var * float64");
    assert_eq!(
        call("is_na", &[&plain], &[]).as_deref(),
        Ok("[[false], [false, false]] : 2 * var * bool")
    );
    assert_eq!(
        call("null_count", &[&plain], &[]).as_deref(),
        Ok("0 : int64")
    );
    assert_eq!(
        call("fill_na", &[&plain, &Array::from_scalar(0.0)], &[]).as_deref(),
        Ok("[[1.5], [2, 3]] : 2 * var * float64")
    );
}

#[test]
fn na_errors_say_what_was_wrong() {
    let rows = arr("[[1, null]]", "1 * var * ?int32");
    let err = call("fill_na", &[&rows, &Array::from_scalar(1.5)], &[]).unwrap_err();
    assert!(
        err.contains("fill_na") && err.contains("1.5") && err.contains("int32"),
        "{err}"
    );
    let err = call("sum", &[&rows], &[("skip_na", "\"yes\"")]).unwrap_err();
    assert!(err.contains("skip_na") && err.contains("bool"), "{err}");
    let err = call("sum", &[&rows], &[("skipna", "true")]).unwrap_err();
    assert!(err.contains("skipna") && err.contains("skip_na"), "{err}");
}
