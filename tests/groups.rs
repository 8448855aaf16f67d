//! Groups: `groupby` against literal answers (pandas' `groupby(...).agg(list)`
//! computed once and written in here), keys of every kind, NA keys, one
//! group, all distinct, empty input, record keys, 2-d values; a property
//! test that `groupby` is a permutation of the values whose rows' keys
//! are constant and ascending; `value_counts`, `run_lengths`, `first`,
//! `last`; and the ragged functions over groups.

use dynd::func::{self, builtins, ArrayExt};
use dynd::nd::{array, Array};
use dynd::ndt::Type;
use proptest::prelude::*;

fn ty(s: &str) -> Type {
    s.parse().unwrap()
}

fn arr(json: &str, t: &str) -> Array {
    Array::from_json(json, Some(&ty(t))).unwrap()
}

fn by(values: &Array, keys: &Array) -> (String, String) {
    let g = func::groupby(values, keys).unwrap();
    let k = func::groupby_keys(keys).unwrap();
    (k.to_string(), g.to_string())
}

#[test]
fn keys_of_every_kind() {
    let v = array![1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    // Integers, out of order.
    assert_eq!(
        by(&v, &array![30, 10, 30, 20, 10, 30]),
        ("[10, 20, 30]".into(), "[[2, 5], [4], [1, 3, 6]]".into())
    );
    // Integers far apart (the hash path) and negative.
    assert_eq!(
        by(
            &v,
            &array![1_i64 << 40, -7_i64, 1_i64 << 40, -7_i64, 0_i64, i64::MIN]
        ),
        (
            "[-9223372036854775808, -7, 0, 1099511627776]".into(),
            "[[6], [2, 4], [5], [1, 3]]".into()
        )
    );
    // Floats: NaN one group, last; -0.0 and 0.0 one group.
    let f = arr("[0.5, NaN, -0.0, 0.0, NaN, -1e300]", "6 * float64");
    assert_eq!(
        by(&v, &f),
        (
            "[-1e300, -0.0, 0.5, NaN]".into(),
            "[[6], [3, 4], [1], [2, 5]]".into()
        )
    );
    // Booleans, strings (byte order: upper case first), bytes of UTF-8.
    assert_eq!(
        by(&v, &array![true, false, true, true, false, true]),
        ("[false, true]".into(), "[[2, 5], [1, 3, 4, 6]]".into())
    );
    assert_eq!(
        by(&v, &array!["b", "a", "B", "b", "é", "a"]),
        (
            r#"["B", "a", "b", "é"]"#.into(),
            "[[3], [2, 6], [1, 4], [5]]".into()
        )
    );
    // Dates and datetimes: by their instants.
    let d = arr(
        r#"["2024-02-29", "1969-12-31", "2024-02-29", "0001-01-01", "1969-12-31", "2100-03-01"]"#,
        "6 * date",
    );
    assert_eq!(
        by(&v, &d),
        (
            r#"["0001-01-01", "1969-12-31", "2024-02-29", "2100-03-01"]"#.into(),
            "[[4], [2, 5], [1, 3], [6]]".into()
        )
    );
    let t = arr(
        r#"["2024-07-01T00:00:00Z", "2024-07-01T02:00:00+02:00", "2024-06-30T23:00:00Z", "2024-07-01T00:00:00Z", "2024-07-01T01:00:00Z", "2024-06-30T23:00:00Z"]"#,
        "6 * datetime[unit=\"s\", tz=\"Europe/Paris\"]",
    );
    let g = func::groupby(&v, &t).unwrap();
    assert_eq!(g.to_string(), "[[3, 6], [1, 2, 4], [5]]");
    assert_eq!(
        func::groupby_keys(&t).unwrap().ty().to_string(),
        "3 * datetime[unit=\"s\", tz=\"Europe/Paris\"]"
    );
    // Fixed-size strings, as the text they hold.
    let fs = arr(r#"["ab", "a", "ab", "a", "b", "b"]"#, "6 * fixed_string[2]");
    assert_eq!(
        by(&v, &fs),
        (
            r#"["a", "ab", "b"]"#.into(),
            "[[2, 4], [1, 3], [5, 6]]".into()
        )
    );
}

#[test]
fn na_keys_form_one_group_last() {
    let v = array![1, 2, 3, 4, 5];
    let k = arr("[2, null, 1, null, 2]", "5 * ?int32");
    assert_eq!(
        by(&v, &k),
        ("[1, 2, null]".into(), "[[3], [1, 5], [2, 4]]".into())
    );
    let s = arr(r#"[null, "x", null, "w", "x"]"#, "5 * ?string");
    assert_eq!(
        by(&v, &s),
        (r#"["w", "x", null]"#.into(), "[[4], [2, 5], [1, 3]]".into())
    );
    // Every key NA: one group.
    let all = arr("[null, null]", "2 * ?float64");
    assert_eq!(
        by(&array![7, 8], &all),
        ("[null]".into(), "[[7, 8]]".into())
    );
}

#[test]
fn edges_one_group_all_distinct_empty() {
    let v = array![3, 1, 2];
    assert_eq!(
        by(&v, &array![5, 5, 5]),
        ("[5]".into(), "[[3, 1, 2]]".into())
    );
    assert_eq!(
        by(&v, &array![9, 8, 7]),
        ("[7, 8, 9]".into(), "[[2], [1], [3]]".into())
    );
    let empty = Array::from_vec(Vec::<f64>::new());
    let keys = Array::from_vec(Vec::<i64>::new());
    let g = func::groupby(&empty, &keys).unwrap();
    assert_eq!(
        (g.ty().to_string(), g.to_string()),
        ("0 * var * float64".into(), "[]".into())
    );
    assert_eq!(func::value_counts(&keys).unwrap().to_string(), "[]");
}

#[test]
fn already_grouped_values_are_a_view() {
    let v = Array::from_vec((0..1000).map(f64::from).collect::<Vec<_>>());
    let k = Array::from_vec((0..1000).map(|i| i / 10).collect::<Vec<i64>>());
    let g = func::groupby(&v, &k).unwrap();
    assert_eq!(g.ty().to_string(), "100 * var * float64");
    let (values, offsets) = g.to_offsets().unwrap();
    assert_eq!(values.data_ptr(), v.data_ptr());
    assert_eq!(offsets[..3], [0, 10, 20]);
}

#[test]
fn record_keys_and_two_dimensional_values() {
    // Two key columns, compared field by field (pandas: groupby(["a", "b"])).
    let a = array!["x", "y", "x", "x", "y"];
    let b = array![2, 1, 1, 2, 1];
    let keys = func::zip(&[&a, &b], Some(&["a", "b"])).unwrap();
    let v = array![[1, 10], [2, 20], [3, 30], [4, 40], [5, 50]];
    let g = func::groupby(&v, &keys).unwrap();
    assert_eq!(g.ty().to_string(), "3 * var * 2 * int64");
    assert_eq!(
        g.to_string(),
        "[[[3, 30]], [[1, 10], [4, 40]], [[2, 20], [5, 50]]]"
    );
    assert_eq!(
        func::groupby_keys(&keys).unwrap().to_string(),
        r#"[{"a": "x", "b": 1}, {"a": "x", "b": 2}, {"a": "y", "b": 1}]"#
    );
    // Record values ride along whole.
    let pts = func::zip(
        &[&array![1.0, 2.0, 3.0], &array![4.0, 5.0, 6.0]],
        Some(&["x", "y"]),
    )
    .unwrap();
    let g = func::groupby(&pts, &array![1, 0, 1]).unwrap();
    assert_eq!(g.field("y").unwrap().to_string(), "[[5], [4, 6]]");
}

#[test]
fn ragged_functions_run_on_groups() {
    let v = array![4.0, 1.0, 3.0, 2.0, 8.0];
    let k = array!["b", "a", "b", "a", "c"];
    let g = func::groupby(&v, &k).unwrap();
    assert_eq!(g.sum_axis(1).unwrap().to_string(), "[3, 7, 8]");
    assert_eq!(g.mean_axis(1).unwrap().to_string(), "[1.5, 3.5, 8]");
    assert_eq!(g.max_axis(1).unwrap().to_string(), "[2, 4, 8]");
    assert_eq!(g.count_axis(1).unwrap().to_string(), "[2, 2, 1]");
    assert_eq!(
        builtins::get("sort")
            .unwrap()
            .call(&[&g])
            .unwrap()
            .to_string(),
        "[[1, 2], [3, 4], [8]]"
    );
    assert_eq!(
        func::argmax(&g, Some(1), false).unwrap().to_string(),
        "[1, 0, 0]"
    );
    assert_eq!(func::first(&g).unwrap().to_string(), "[1, 4, 8]");
    assert_eq!(func::last(&g).unwrap().to_string(), "[2, 3, 8]");
    // softmax per group: e^x / sum(e^x) within each row.
    let sm = builtins::get("softmax")
        .unwrap()
        .call_kw(&[&g], &[("axis", &Array::from_scalar(-1i64))])
        .unwrap();
    let rows: Vec<Vec<f64>> = sm.to_nested().unwrap();
    let (lo, hi) = (1.0 / (1.0 + 1f64.exp()), 1f64.exp() / (1.0 + 1f64.exp()));
    let want = [vec![lo, hi], vec![hi, lo], vec![1.0]];
    assert_eq!(rows.len(), 3);
    for (row, want) in rows.iter().zip(&want) {
        assert_eq!(row.len(), want.len());
        for (x, w) in row.iter().zip(want) {
            assert!((x - w).abs() < 1e-15, "{rows:?}");
        }
    }
}

/// A reduction of a `groupby` expression runs as one aggregation pass,
/// with the values and the type of the reduction of the groups.
#[test]
fn reductions_of_a_groupby_expression_aggregate_in_one_pass() {
    use dynd::func::{AxisOptions, Eval};
    use dynd::nd::expr::Expr;
    let cases: Vec<(Array, Array)> = vec![
        (
            array![1.5, -2.0, 4.0, f64::NAN, 0.25, 8.0],
            array![3, 1, 3, 2, 1, 1],
        ),
        (
            array![1.5, -2.0, 4.0, 7.5, 0.25, 8.0],
            array![1_i64 << 50, -1, 1_i64 << 50, 0, -1, -1],
        ),
        (
            array![5_i64, -2, 40, 7, 1, 8],
            array!["b", "a", "b", "c", "a", "a"],
        ),
        (
            array![5_i64, -2, 40, 7, 1, 8],
            arr("[1, null, 1, 2, null, null]", "6 * ?int64"),
        ),
        (
            array![5_i64, -2, 40, 7, 1, 8],
            array![0.5, 0.5, -0.0, 0.0, 2.0, f64::NAN],
        ),
        (
            array![1.0, 2.0, 4.0, 8.0, 16.0, 32.0],
            arr(r#"[null, "x", "y", null, "x", "a"]"#, "6 * ?string"),
        ),
        (
            array![1.0, 2.0, 4.0, 8.0, 16.0, 32.0],
            arr(
                "[null, 9000000000000, 5, null, 5, -9000000000000]",
                "6 * ?int64",
            ),
        ),
        // A group whose sum is -0.0 beside a key the range skips (the sum
        // by slot tells them apart), and every key of a range present.
        (array![-0.0, 1.0, 2.0, -0.0], array![0, 2, 2, 0]),
        (array![-0.0, 1.0, 2.0, 0.5], array![0, 1, 2, 3]),
    ];
    for (v, k) in &cases {
        let g = func::groupby(v, k).unwrap();
        for name in ["sum", "mean", "count", "min", "max"] {
            let r = builtins::get(name).unwrap();
            let e = builtins::GROUPBY
                .callable()
                .expr([Expr::from(v), Expr::from(k)]);
            let fused = e.reduce(&r, &AxisOptions::new().axis(1)).unwrap();
            let plain = r.reduce_with(&g, &AxisOptions::new().axis(1)).unwrap();
            assert_eq!(fused.ty(), plain.ty(), "{name} by {k}");
            assert_eq!(fused.to_string(), plain.to_string(), "{name} of {v} by {k}");
        }
    }
}

#[test]
fn value_counts_most_frequent_first() {
    // pandas: Series([...]).value_counts(dropna=False), ties by value.
    let x = arr("[3, 1, null, 3, 2, 1, 3, null]", "8 * ?int64");
    let c = func::value_counts(&x).unwrap();
    assert_eq!(c.ty().to_string(), "4 * {value: ?int64, count: int64}");
    assert_eq!(c.field("value").unwrap().to_string(), "[3, 1, null, 2]");
    assert_eq!(c.field("count").unwrap().to_string(), "[3, 2, 2, 1]");
    let s = array!["b", "a", "c", "a", "b"];
    assert_eq!(
        func::value_counts(&s).unwrap().to_string(),
        r#"[{"value": "a", "count": 2}, {"value": "b", "count": 2}, {"value": "c", "count": 1}]"#
    );
}

#[test]
fn run_lengths_first_and_last() {
    // Awkward: ak.run_lengths([[1, 1, 2], [], [2, 2]]) → [[2, 1], [], [2]].
    assert_eq!(
        func::run_lengths(&arr("[1, 1, 2, 2, 2, 1]", "6 * int32"))
            .unwrap()
            .to_string(),
        "[2, 3, 1]"
    );
    let rows = arr(r#"[["a", "a", "b"], [], ["b", "b"]]"#, "3 * var * string");
    assert_eq!(
        func::run_lengths(&rows).unwrap().to_string(),
        "[[2, 1], [], [2]]"
    );
    // NaNs equal, NA equal to NA.
    assert_eq!(
        func::run_lengths(&arr("[NaN, NaN, 1, null, null]", "5 * ?float64"))
            .unwrap()
            .to_string(),
        "[2, 1, 2]"
    );
    let x = arr("[[4, 5], [], [6]]", "3 * var * int64");
    assert_eq!(func::first(&x).unwrap().ty().to_string(), "3 * ?int64");
    assert_eq!(func::first(&x).unwrap().to_string(), "[4, null, 6]");
    assert_eq!(func::last(&x).unwrap().to_string(), "[5, null, 6]");
    // Fixed rows of at least one value: no NA.
    let m = array![[1, 2, 3], [4, 5, 6]];
    assert_eq!(func::last(&m).unwrap().to_string(), "[3, 6]");
    assert_eq!(func::last(&m).unwrap().ty().to_string(), "2 * int64");
    let e = arr("[[], []]", "2 * var * string");
    assert_eq!(func::first(&e).unwrap().to_string(), "[null, null]");
}

#[test]
fn bad_input_is_an_error_that_says_what() {
    let e = func::groupby(&array![1, 2, 3], &array![1, 2])
        .unwrap_err()
        .to_string();
    assert!(e.contains("2 keys for 3 values"), "{e}");
    let c = arr("[[1, 2], [3, 4]]", "2 * 2 * complex[float64]");
    let e = func::groupby(&array![1, 2], &c).unwrap_err().to_string();
    assert!(e.contains("one fixed dimension"), "{e}");
    let c = arr("[[1, 2], [3, 4]]", "2 * complex[float64]");
    let e = func::groupby(&array![1, 2], &c).unwrap_err().to_string();
    assert!(e.contains("complex numbers have none"), "{e}");
    let e = func::first(&Array::from_scalar(1)).unwrap_err().to_string();
    assert!(e.contains("at least one dimension"), "{e}");
}

/// Integer keys' range is guessed from the first 4096 of them: a later
/// key outside the guess (just outside, far outside, at either end of
/// `int64`) still lands in its own group, in key order.
#[test]
fn a_key_past_the_first_ones_outside_their_range() {
    for late in [20i64, -20, 1000, -1000, i64::MAX, i64::MIN] {
        let mut keys: Vec<i64> = (0..5000).map(|i| (i * 7) % 10).collect();
        keys[4500] = late;
        keys[4999] = late;
        let v = Array::from_vec((0..5000).map(|i| i as f64).collect::<Vec<_>>());
        let got: Vec<Vec<f64>> = func::groupby(&v, &Array::from_vec(keys.clone()))
            .unwrap()
            .to_nested()
            .unwrap();
        let mut want = std::collections::BTreeMap::<i64, Vec<f64>>::new();
        for (i, &k) in keys.iter().enumerate() {
            want.entry(k).or_default().push(i as f64);
        }
        assert_eq!(
            got,
            want.into_values().collect::<Vec<_>>(),
            "late key {late}"
        );
    }
}

/// Past 2^19 keys, on more than one thread, a reduction of `groupby` scans
/// the keys in parts (a hash table each, merged in order of first
/// appearance) and folds the values by the ids: the same groups and sums
/// as one thread's one pass, and as the groups made and then summed —
/// string keys with NA among them, and int64 keys spread too wide for a
/// table (hashed). The values are small integers, so every order of
/// adding gives the same bits.
#[test]
fn many_keys_on_two_threads_as_on_one() {
    use dynd::func::{AxisOptions, Eval};
    use dynd::nd::expr::Expr;

    let n = 600_000usize;
    let h = |i: usize| (i as u64).wrapping_mul(2_654_435_761) % 997;
    let v = Array::from_vec((0..n).map(|i| (i % 7) as f64).collect::<Vec<_>>());
    let words: Vec<Option<String>> = (0..n)
        .map(|i| (i % 1000 != 3).then(|| format!("k{}", h(i))))
        .collect();
    let strings = Array::from_json(&serde_json::to_string(&words).unwrap(), None).unwrap();
    let spread = Array::from_vec(
        (0..n)
            .map(|i| h(i).wrapping_mul(0x9e37_79b9_7f4a_7c15) as i64)
            .collect::<Vec<_>>(),
    );
    let axis1 = AxisOptions::new().axis(1);
    let axis = Array::from_scalar(1i64);
    for keys in [&strings, &spread] {
        for name in ["sum", "count", "max"] {
            let r = builtins::get(name).unwrap();
            let fused = || {
                builtins::GROUPBY
                    .callable()
                    .expr([Expr::from(&v), Expr::from(keys)])
                    .reduce(&r, &axis1)
                    .unwrap()
                    .to_string()
            };
            let pool = |t| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(t)
                    .build()
                    .unwrap()
            };
            let two = pool(2).install(fused);
            let one = pool(1).install(fused);
            let made = r
                .call_kw(&[&func::groupby(&v, keys).unwrap()], &[("axis", &axis)])
                .unwrap()
                .to_string();
            assert_eq!(two, one, "{name} by {}", keys.ty());
            assert_eq!(two, made, "{name} by {}", keys.ty());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// `groupby` of the positions is a permutation of them whose rows'
    /// keys are constant and ascending from row to row, each row in its
    /// original order; for keys in a small range (the table) and spread
    /// out (the hash).
    #[test]
    fn groupby_is_a_sorted_permutation(
        keys in prop::collection::vec(prop_oneof![-5i64..5, any::<i64>()], 0..200),
    ) {
        let n = keys.len();
        let k = Array::from_vec(keys.clone());
        let g = func::groupby(&Array::from_vec((0..n as i64).collect::<Vec<_>>()), &k).unwrap();
        let rows: Vec<Vec<i64>> = g.to_nested().unwrap();
        let mut all: Vec<i64> = rows.iter().flatten().copied().collect();
        all.sort_unstable();
        prop_assert_eq!(all, (0..n as i64).collect::<Vec<_>>());
        let labels: Vec<i64> = func::groupby_keys(&k).unwrap().to_vec().unwrap();
        prop_assert_eq!(labels.len(), rows.len());
        for (r, row) in rows.iter().enumerate() {
            prop_assert!(!row.is_empty());
            prop_assert!(row.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(row.iter().all(|&i| keys[i as usize] == labels[r]));
        }
        prop_assert!(labels.windows(2).all(|w| w[0] < w[1]));
    }
}
