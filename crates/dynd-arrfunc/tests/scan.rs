//! `.accumulate` of associative binary callables: against the builtin
//! scans and a sequential loop over random shapes, axes, strided views
//! and ragged rows; element order for an operation that is associative
//! but not commutative; NA; every error.

use dynd_arrfunc::{builtins, Callable};
use dynd_kernels::{Array, Index};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(96)
}

/// `c(a, axis=axis)` as "value : type", or the error.
fn run(c: &Callable, a: &Array, axis: Option<i64>) -> Result<String, String> {
    let axis = axis.map(Array::from_scalar);
    let kw: Vec<(&str, &Array)> = axis.iter().map(|a| ("axis", a)).collect();
    c.call_kw(&[a], &kw)
        .map(|r| format!("{r} : {}", r.ty()))
        .map_err(|e| e.to_string())
}

/// Affine maps `x -> a x + b` modulo a prime, packed as `a * 1024 + b`:
/// composition (the earlier map first) is associative, not commutative.
const P: i64 = 1009;

fn compose(f: i64, g: i64) -> i64 {
    let (a, b) = (f / 1024, f % 1024);
    let (c, d) = (g / 1024, g % 1024);
    (c * a % P) * 1024 + (c * b + d) % P
}

fn composition() -> Callable {
    Callable::map("compose", compose).associative(None).unwrap()
}

/// The sequential scan of `rows` with `f`, row by row.
fn naive(rows: &[Vec<i64>], f: impl Fn(i64, i64) -> i64) -> Vec<Vec<i64>> {
    rows.iter()
        .map(|row| {
            let mut acc = None;
            row.iter()
                .map(|&x| {
                    let v = acc.map_or(x, |p| f(p, x));
                    acc = Some(v);
                    v
                })
                .collect()
        })
        .collect()
}

fn case() -> impl Strategy<Value = (Vec<usize>, Vec<i64>)> {
    prop::collection::vec(0usize..6, 1..4).prop_flat_map(|shape| {
        let n: usize = shape.iter().product();
        (Just(shape), prop::collection::vec(0i64..P, n))
    })
}

fn map() -> impl Strategy<Value = i64> {
    (1i64..P, 0i64..P).prop_map(|(a, b)| a * 1024 + b)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]
    #[test]
    fn accumulate_of_add_multiply_and_maximum_match_the_builtin_scans(
        (shape, data) in case(),
        axis in 0usize..3,
        negative in any::<bool>(),
        reversed in any::<bool>(),
    ) {
        let base = Array::from_shape_vec(&shape, data).unwrap();
        let a = if reversed { base.index(&[Index::slice(None, None, -1)]).unwrap() } else { base };
        let axis = (axis % shape.len()) as i64;
        let axis = if negative { axis - shape.len() as i64 } else { axis };
        for (op, builtin) in [("add", "cumsum"), ("multiply", "cumprod")] {
            let scanned = run(&builtins::get(&format!("{op}.accumulate")).unwrap(), &a, Some(axis));
            let want = run(&builtins::get(builtin).unwrap(), &a, Some(axis));
            prop_assert_eq!(scanned, want, "{} over {:?} axis {}", op, shape, axis);
        }
        // The running maximum, line by line: move the axis last.
        if shape.contains(&0) {
            return Ok(());
        }
        let k = axis.rem_euclid(shape.len() as i64) as usize;
        let mut perm: Vec<usize> = (0..shape.len()).filter(|&j| j != k).collect();
        perm.push(k);
        let lines = a.permute_axes(&perm).unwrap().reshape([-1, shape[k] as i64]).unwrap();
        let count = lines.ty().fixed_shape().unwrap()[0];
        let rows: Vec<Vec<i64>> = (0..count)
            .map(|i| lines.at(i as i64).unwrap().to_vec::<i64>().unwrap())
            .collect();
        let want = naive(&rows, i64::max);
        let scanned = builtins::get("maximum.accumulate").unwrap().call_kw(&[&a], &[("axis", &Array::from_scalar(axis))]).unwrap();
        let got = scanned.permute_axes(&perm).unwrap().reshape([-1, shape[k] as i64]).unwrap();
        let got: Vec<Vec<i64>> = (0..rows.len()).map(|i| got.at(i as i64).unwrap().to_vec::<i64>().unwrap()).collect();
        prop_assert_eq!(got, want);
    }

    #[test]
    fn scans_keep_the_order_of_operations_that_do_not_commute(
        rows in prop::collection::vec(prop::collection::vec(map(), 0..40), 1..6),
        fixed in any::<bool>(),
    ) {
        let want = naive(&rows, compose);
        let c = composition().accumulate().unwrap();
        if fixed {
            // Equal rows: a fixed dimension.
            let n = rows[0].len();
            let rows: Vec<Vec<i64>> = rows.iter().map(|r| { let mut r = r.clone(); r.resize(n, 1024); r }).collect();
            let a = Array::from_shape_vec(&[rows.len(), n], rows.concat()).unwrap();
            let got = c.call_kw(&[&a], &[("axis", &Array::from_scalar(1i64))]).unwrap();
            let want = Array::from_shape_vec(&[rows.len(), n], naive(&rows, compose).concat()).unwrap();
            prop_assert_eq!(got.to_string(), want.to_string());
        } else {
            let a = Array::from_nested(rows.clone()).unwrap();
            let got = c.call_kw(&[&a], &[("axis", &Array::from_scalar(-1i64))]).unwrap();
            prop_assert_eq!(got.ty(), a.ty());
            prop_assert_eq!(got.to_nested::<i64>().unwrap(), want);
        }
    }
}

#[test]
fn ragged_rows_under_several_fixed_dimensions_and_views() {
    let a = Array::from_json(
        "[[[1, 2, 3], [], [4]], [[5, 6], [7, 8, 9, 10], [11]]]",
        Some(&"2 * 3 * var * int32".parse().unwrap()),
    )
    .unwrap();
    let max = builtins::get("maximum.accumulate").unwrap();
    let add = builtins::get("add.accumulate").unwrap();
    assert_eq!(
        run(&add, &a, Some(-1)).unwrap(),
        "[[[1, 3, 6], [], [4]], [[5, 11], [7, 15, 24, 34], [11]]] : 2 * 3 * var * int32"
    );
    // A view: every other row, each row reversed.
    let v = a
        .index(&[
            Index::ALL,
            Index::slice(None, None, 2),
            Index::slice(None, None, -1),
        ])
        .unwrap();
    assert_eq!(
        run(&max, &v, Some(2)).unwrap(),
        "[[[3, 3, 3], [4]], [[6, 6], [11]]] : 2 * 2 * var * int32"
    );
    // The scan's result is its own: the input is untouched.
    assert_eq!(v.to_string(), "[[[3, 2, 1], [4]], [[6, 5], [11]]]");
    // One ragged row, as an outermost var dimension.
    let row = Array::from_json("[2, 7, 1, 8]", Some(&"var * int64".parse().unwrap())).unwrap();
    assert_eq!(run(&max, &row, None).unwrap(), "[2, 7, 7, 8] : var * int64");
}

#[test]
fn na_propagates_through_a_scan_as_through_the_operation() {
    let a = Array::from_json(
        "[[1, null, 2], [3, 4]]",
        Some(&"2 * var * ?int64".parse().unwrap()),
    )
    .unwrap();
    let add = builtins::get("add.accumulate").unwrap();
    assert_eq!(
        run(&add, &a, Some(1)).unwrap(),
        "[[1, null, null], [3, 7]] : 2 * var * ?int64"
    );
}

#[test]
fn the_scan_runs_in_the_operation_s_type() {
    // bool + bool is int64 in dynd's add? Whatever add gives for two of
    // its results, the scan's elements are that type.
    let a = Array::from_json("[1, 2, 3]", Some(&"3 * int8".parse().unwrap())).unwrap();
    let add = builtins::get("add.accumulate").unwrap();
    assert_eq!(run(&add, &a, None).unwrap(), "[1, 3, 6] : 3 * int8");
    let f = Array::from_json("[0.5, 0.25]", None).unwrap();
    assert_eq!(run(&add, &f, None).unwrap(), "[0.5, 0.75] : 2 * float64");
    let empty = Array::zeros(&"2 * 0 * int32".parse().unwrap()).unwrap();
    assert_eq!(
        run(&add, &empty, Some(1)).unwrap(),
        "[[], []] : 2 * 0 * int32"
    );
}

#[test]
fn scan_errors_say_what_was_wrong() {
    assert_eq!(
        builtins::get("subtract")
            .unwrap()
            .accumulate()
            .unwrap_err()
            .to_string(),
        "subtract has no scan: it is not declared associative"
    );
    assert_eq!(
        builtins::get("add.accumulat").unwrap_err().to_string(),
        "no builtin is called 'add.accumulat' (did you mean 'add.accumulate'?)"
    );
    let add = builtins::get("add.accumulate").unwrap();
    let a = Array::from_shape_vec(&[2, 2], vec![1i64, 2, 3, 4]).unwrap();
    assert_eq!(
        run(&add, &a, Some(2)).unwrap_err(),
        "add.accumulate: axis 2 is out of bounds for an array of 2 dimension(s)"
    );
    assert_eq!(
        run(&add, &Array::from_scalar(1i64), None).unwrap_err(),
        "add.accumulate needs an array with a dimension (a scan runs along one), not int64"
    );
    let ragged = Array::from_json("[[1], [2, 3]]", None).unwrap();
    assert!(run(&add, &ragged, Some(0))
        .unwrap_err()
        .contains("a scan of a callable along this axis"));
    let less = builtins::get("less").unwrap().associative(None).unwrap();
    assert_eq!(
        run(&less.accumulate().unwrap(), &a, None).unwrap_err(),
        "less.accumulate: less of (int64, int64) gives bool, so it cannot fold an array of int64"
    );
    let text = Array::from_json("\"a\"", None).unwrap();
    let wrong = add
        .call_kw(&[&a], &[("axis", &text)])
        .unwrap_err()
        .to_string();
    assert!(wrong.contains("axis"), "{wrong}");
}
