//! The ragged operations: each function over `var` rows (deeper levels,
//! fixed dimensions above, views with steps, empty rows and rows of one,
//! `?T` elements), as literal data: what Awkward Array gives, written
//! down, and the edge cases it leaves open decided here.

use dynd_arrfunc::Eval;
use dynd_arrfunc::{
    argmax, argmin, argsort, builtins, concatenate, count_nonzero, diff, filter, flatten,
    local_index, log_softmax, logsumexp, num, pad, softmax, sort, take_along_axis, unflatten,
    unique, unique_rows, unpad,
};
use dynd_kernels::{Array, Index};
use dynd_types::Type;

fn arr(json: &str, ty: &str) -> Array {
    Array::from_json(json, Some(&ty.parse::<Type>().unwrap())).unwrap()
}

fn show(r: Result<Array, dynd_arrfunc::Error>) -> String {
    match r {
        Ok(a) => format!("{a} : {}", a.ty()),
        Err(e) => format!("error: {e}"),
    }
}

fn call(name: &str, args: &[&Array], kw: &[(&str, &Array)]) -> String {
    show(builtins::get(name).unwrap().call_kw(args, kw))
}

/// Three rows: one of three, an empty one, one of one.
fn x() -> Array {
    arr("[[1, 5, 2], [], [-3]]", "3 * var * float64")
}

#[test]
fn argmax_and_argmin_per_row_give_na_for_an_empty_row() {
    assert_eq!(
        show(argmax(&x(), Some(-1), false)),
        "[1, null, 0] : 3 * ?int64"
    );
    assert_eq!(
        show(argmin(&x(), Some(1), false)),
        "[0, null, 0] : 3 * ?int64"
    );
    assert_eq!(
        show(argmax(&x(), Some(-1), true)),
        "[[1], [null], [0]] : 3 * 1 * ?int64"
    );
    // Flat over every value, as NumPy's argmax without an axis.
    assert_eq!(show(argmax(&x(), None, false)), "1 : int64");
    // The first of equal maxima; NaN wins at its first place; null skipped.
    let y = arr(
        "[[2, 7, 7], [1, NaN, 9, NaN], [null, 4, null], [null]]",
        "4 * var * ?float64",
    );
    assert_eq!(
        show(argmax(&y, Some(-1), false)),
        "[1, 1, 1, null] : 4 * ?int64"
    );
    assert_eq!(
        show(argmin(&y, Some(-1), false)),
        "[0, 1, 1, null] : 4 * ?int64"
    );
    // Deeper levels and fixed dimensions above.
    let z = arr("[[[3, 1], []], [[4, 9, 2]]]", "2 * var * var * int32");
    assert_eq!(
        show(argmax(&z, Some(-1), false)),
        "[[0, null], [1]] : 2 * var * ?int64"
    );
    let f = arr("[[[3, 1], []], [[4], [0, 7]]]", "2 * 2 * var * int8");
    assert_eq!(
        show(argmin(&f, Some(2), false)),
        "[[1, null], [0, 0]] : 2 * 2 * ?int64"
    );
    // Rows of a fixed length under a var dimension stay `int64`.
    let g = arr("[[[3, 1]], [[4, 9], [8, 2]]]", "2 * var * 2 * int64");
    assert_eq!(
        show(argmax(&g, Some(-1), false)),
        "[[0], [1, 0]] : 2 * var * int64"
    );
    // Only along the rows.
    assert!(show(argmax(&x(), Some(0), false)).contains("the last one (-1)"));
    // Strings order by their bytes (code points); an empty row is NA.
    let s = arr(r#"[["a", "b", "日"], []]"#, "2 * var * string");
    assert_eq!(show(argmax(&s, Some(-1), false)), "[2, null] : 2 * ?int64");
}

#[test]
fn argmax_with_keepdims_indexes_the_array() {
    let best = argmax(&x(), Some(-1), true).unwrap();
    assert_eq!(
        show(take_along_axis(&x(), &best, -1)),
        "[[5], [null], [-3]] : 3 * 1 * ?float64"
    );
    // Ragged indexes, negative from the row's end.
    let idx = arr("[[2, -3], [], [0, 0, -1]]", "3 * var * int64");
    assert_eq!(
        show(take_along_axis(&x(), &idx, -1)),
        "[[2, 1], [], [-3, -3, -3]] : 3 * var * float64"
    );
    let bad = arr("[[3], [], []]", "3 * var * int64");
    assert_eq!(
        show(take_along_axis(&x(), &bad, -1)),
        "error: take_along_axis: an index must be inside its row (negative from its end), not 3 for row 0 of length 3"
    );
    let other = arr("[[0], []]", "2 * var * int64");
    assert!(show(take_along_axis(&x(), &other, -1)).contains("dimensions above the rows"));
}

#[test]
fn sort_argsort_and_unique_per_row() {
    let y = arr("[[3, 1, 2, 1], [], [NaN, -0.0, 0.0]]", "3 * var * float64");
    assert_eq!(
        show(sort(&y, -1, true)),
        "[[1, 1, 2, 3], [], [-0.0, 0, NaN]] : 3 * var * float64"
    );
    assert_eq!(
        show(sort(&y, -1, false)),
        "[[3, 2, 1, 1], [], [0, -0.0, NaN]] : 3 * var * float64"
    );
    // Stable: equal elements keep their order, both ways.
    assert_eq!(
        show(argsort(&y, -1, true)),
        "[[1, 3, 2, 0], [], [1, 2, 0]] : 3 * var * int64"
    );
    assert_eq!(
        show(argsort(&y, -1, false)),
        "[[0, 2, 1, 3], [], [1, 2, 0]] : 3 * var * int64"
    );
    let na = arr("[[null, 2, 1], [null]]", "2 * var * ?int32");
    assert_eq!(
        show(argsort(&na, -1, true)),
        "[[2, 1, 0], [0]] : 2 * var * int64"
    );
    assert_eq!(
        show(unique_rows(&y)),
        "[[1, 2, 3], [], [-0.0, NaN]] : 3 * var * float64"
    );
    assert_eq!(
        call("unique", &[&y], &[("axis", &Array::from_scalar(-1i64))]),
        "[[1, 2, 3], [], [-0.0, NaN]] : 3 * var * float64"
    );
    // Over every value.
    assert_eq!(show(unique(&y)), "[-0.0, 1, 2, 3, NaN] : 5 * float64");
    let na = arr("[[null, 2, 1, 2, null], [null], []]", "3 * var * ?int32");
    assert_eq!(
        show(unique_rows(&na)),
        "[[1, 2, null], [null], []] : 3 * var * ?int32"
    );
    let fixed = arr("[[2, 2], [1, 3]]", "2 * 2 * int64");
    assert_eq!(show(unique_rows(&fixed)), "[[2], [1, 3]] : 2 * var * int64");
}

#[test]
fn flatten_num_local_index_and_unflatten() {
    assert_eq!(show(num(&x(), 1)), "[3, 0, 1] : 3 * int64");
    assert_eq!(show(num(&x(), 0)), "3 : int64");
    let z = arr("[[[3, 1], []], [[4, 9, 2]]]", "2 * var * var * int32");
    assert_eq!(show(num(&z, 1)), "[2, 1] : 2 * int64");
    assert_eq!(show(num(&z, 2)), "[[2, 0], [3]] : 2 * var * int64");
    assert_eq!(
        show(flatten(&z, Some(1))),
        "[[3, 1], [], [4, 9, 2]] : 3 * var * int32"
    );
    assert_eq!(show(flatten(&z, None)), "[3, 1, 4, 9, 2] : 5 * int32");
    assert!(show(flatten(&z, Some(2))).contains("1 (one level"));
    assert_eq!(
        show(local_index(&z)),
        "[[[0, 1], []], [[0, 1, 2]]] : 2 * var * var * int64"
    );
    let flat = flatten(&x(), Some(1)).unwrap();
    let counts = num(&x(), 1).unwrap();
    assert_eq!(
        show(unflatten(&flat, &counts)),
        "[[1, 5, 2], [], [-3]] : 3 * var * float64"
    );
    assert_eq!(
        show(unflatten(&flat, &Array::from_vec(vec![3i64, 2]))),
        "error: unflatten: the counts must be adding up to the values' length, not a sum of 5 for 4 values"
    );
    assert!(show(unflatten(&flat, &Array::from_vec(vec![5i64, -1]))).contains("-1 at index 1"));
}

/// Seeded rows of `min..=40` values (past one 32-lane block), ties and
/// NaN among them: the values and the offsets.
fn seeded_rows(n: usize, seed: u64, min: u64) -> (Vec<f64>, Vec<i64>) {
    let mut s = seed | 1;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let (mut v, mut o) = (Vec::new(), vec![0i64]);
    for _ in 0..n {
        for _ in 0..min + next() % (41 - min) {
            let r = next();
            v.push(if r % 97 == 0 {
                f64::NAN
            } else {
                (r % 13) as f64 - 6.0
            });
        }
        o.push(v.len() as i64);
    }
    (v, o)
}

#[test]
fn packed_rows_take_the_unit_path_with_the_general_paths_results() {
    // 5,000 rows: several units of 1,024, on the threads.
    let (v, o) = seeded_rows(5000, 0x2545_f491_4f6c_dd1d, 0);
    let starts: Vec<i64> = o[..o.len() - 1].to_vec();
    let lens: Vec<i64> = o.windows(2).map(|w| w[1] - w[0]).collect();
    let ints: Vec<i32> = v
        .iter()
        .map(|&x| if x.is_nan() { 7 } else { x as i32 })
        .collect();
    let pairs = [
        (
            Array::from_offsets(v.clone(), &o).unwrap(),
            Array::from_starts_lengths(v.clone(), &starts, &lens).unwrap(),
        ),
        (
            Array::from_offsets(ints.clone(), &o).unwrap(),
            Array::from_starts_lengths(ints, &starts, &lens).unwrap(),
        ),
    ];
    for (packed, general) in &pairs {
        assert!(packed.packed_values().unwrap().is_some());
        assert!(general.packed_values().unwrap().is_none());
        for keepdims in [false, true] {
            let a = argmax(packed, Some(-1), keepdims).unwrap();
            assert_eq!(
                show(Ok(a.clone())),
                show(argmax(general, Some(-1), keepdims))
            );
            assert_eq!(
                show(argmin(packed, Some(-1), keepdims)),
                show(argmin(general, Some(-1), keepdims))
            );
            if keepdims {
                // `?int64` indexes with NA for the empty rows.
                assert_eq!(
                    show(take_along_axis(packed, &a, -1)),
                    show(take_along_axis(general, &a, -1))
                );
            }
        }
        // Two plain indexes per row, one from each end, on rows of at
        // least one value.
        let (w, q) = seeded_rows(5000, 0x9e37_79b9_7f4a_7c15, 1);
        let lens: Vec<i64> = q.windows(2).map(|w| w[1] - w[0]).collect();
        let starts: Vec<i64> = q[..q.len() - 1].to_vec();
        let p = Array::from_offsets(w.clone(), &q).unwrap();
        let g = Array::from_starts_lengths(w, &starts, &lens).unwrap();
        let ix: Vec<i64> = (0..5000)
            .flat_map(|r| [(r as i64 * 7) % lens[r], -1 - (r as i64 % lens[r])])
            .collect();
        let idx = Array::from_vec(ix).reshape([5000, 2]).unwrap();
        assert_eq!(
            show(take_along_axis(&p, &idx, -1)),
            show(take_along_axis(&g, &idx, -1))
        );
        // One plain index per row (the one-index loop), from either end,
        // and one past its row.
        let one: Vec<i64> = (0..5000)
            .map(|r| [(r as i64 * 3) % lens[r], -1 - (r as i64 % lens[r])][r % 2])
            .collect();
        let one = Array::from_vec(one).reshape([5000, 1]).unwrap();
        assert_eq!(
            show(take_along_axis(&p, &one, -1)),
            show(take_along_axis(&g, &one, -1))
        );
        let mut far = vec![0i64; 5000];
        far[4999] = -30;
        let far = Array::from_vec(far).reshape([5000, 1]).unwrap();
        let e = show(take_along_axis(&p, &far, -1));
        assert!(e.contains("not -30 for row 4999"), "{e}");
        assert_eq!(e, show(take_along_axis(&g, &far, -1)));
        // An index past its row: the general path's error, from either.
        let mut far = vec![0i64; 2 * 5000];
        far[2 * 1500 + 1] = 41;
        let far = Array::from_vec(far).reshape([5000, 2]).unwrap();
        let e = show(take_along_axis(&p, &far, -1));
        assert!(e.contains("not 41 for row 1500"), "{e}");
        assert_eq!(e, show(take_along_axis(&g, &far, -1)));
    }
}

#[test]
fn flatten_shares_packed_rows_and_copies_the_others() {
    let z = arr(
        "[[[3, 1], []], [[4, 9, 2]], [], [[5], [6, 7]]]",
        "4 * var * var * int32",
    );
    let ptr = |a: &Array| a.data_ptr() as usize;
    // Made from JSON: every level packed, so both flattens are views.
    let one = flatten(&z, Some(1)).unwrap();
    let all = flatten(&z, None).unwrap();
    assert_eq!(
        show(Ok(one.clone())),
        "[[3, 1], [], [4, 9, 2], [5], [6, 7]] : 5 * var * int32"
    );
    assert_eq!(
        show(Ok(all.clone())),
        "[3, 1, 4, 9, 2, 5, 6, 7] : 8 * int32"
    );
    let rows = z.packed_values().unwrap().expect("packed");
    assert_eq!(ptr(&one), ptr(&rows));
    let values = rows.packed_values().unwrap().expect("packed");
    assert_eq!(ptr(&all), ptr(&values));
    // Views that drop or reorder rows: not packed, the same values, copied.
    let every = Index::ALL;
    for (view, want_one, want_all) in [
        (
            z.index(&[Index::slice(Some(1), None, 1)]).unwrap(),
            "[[4, 9, 2], [5], [6, 7]] : 3 * var * int32",
            "[4, 9, 2, 5, 6, 7] : 6 * int32",
        ),
        (
            z.index(&[Index::slice(None, None, -2)]).unwrap(),
            "[[5], [6, 7], [4, 9, 2]] : 3 * var * int32",
            "[5, 6, 7, 4, 9, 2] : 6 * int32",
        ),
        (
            z.index(&[every, Index::slice(Some(1), None, 1)]).unwrap(),
            "[[], [6, 7]] : 2 * var * int32",
            "[6, 7] : 2 * int32",
        ),
    ] {
        assert_eq!(show(flatten(&view, Some(1))), want_one);
        assert_eq!(show(flatten(&view, None)), want_all);
    }
    // The whole view `[:, :]` keeps the rows as they are.
    let same = z.index(&[every, every]).unwrap();
    assert_eq!(ptr(&flatten(&same, None).unwrap()), ptr(&values));
    // Fixed dimensions above the rows, read in C order: packed; the
    // transposed view reads them in another order, and is not.
    let m = arr("[[[1], [2, 3]], [[], [4]]]", "2 * 2 * var * int64");
    assert!(m.packed_values().unwrap().is_some());
    assert_eq!(show(flatten(&m, None)), "[1, 2, 3, 4] : 4 * int64");
    let t = m.transpose().unwrap();
    assert!(t.packed_values().unwrap().is_none());
    assert_eq!(show(flatten(&t, None)), "[1, 2, 3, 4] : 4 * int64");
    assert_eq!(
        show(flatten(&t, Some(1))),
        "[[1], [], [2, 3], [4]] : 4 * var * int64"
    );
    // Rows from offsets that leave values out at either end.
    let r = Array::from_offsets(vec![0.5, 1.5, 2.5, 3.5, 4.5], &[1i64, 3, 3, 4]).unwrap();
    assert_eq!(show(flatten(&r, Some(1))), "[1.5, 2.5, 3.5] : 3 * float64");
    assert!(r.packed_values().unwrap().is_some());
    let empty = Array::from_offsets(Vec::<f64>::new(), &[0i64]).unwrap();
    assert_eq!(show(flatten(&empty, None)), "[] : 0 * float64");
}

#[test]
fn pad_and_unpad_round_trip() {
    assert_eq!(
        show(pad(&x(), 2, false, None)),
        "[[1, 5, 2], [null, null], [-3, null]] : 3 * var * ?float64"
    );
    assert_eq!(
        show(pad(&x(), 2, true, None)),
        "[[1, 5], [null, null], [-3, null]] : 3 * 2 * ?float64"
    );
    // Every number type: the typed one-pass path (value and flag side by
    // side), and the complex numbers, whose options are laid out otherwise.
    for t in [
        "int8",
        "uint16",
        "float32",
        "int64",
        "complex64",
        "complex128",
    ] {
        let a = arr("[[1, 2, 3], []]", &format!("2 * var * {t}"));
        let got = show(pad(&a, 2, true, None));
        let ty = pad(&a, 2, true, None).unwrap().ty().to_string();
        assert_eq!(ty, format!("2 * 2 * ?{}", a.dtype()), "{got}");
        assert!(
            got.starts_with("[[1, 2], [null, null]]")
                || got.starts_with("[[[1, 0], [2, 0]], [null, null]]"),
            "{got}"
        );
    }
    let zero = Array::from_scalar(0i64);
    assert_eq!(
        show(pad(&x(), 3, true, Some(&zero))),
        "[[1, 5, 2], [0, 0, 0], [-3, 0, 0]] : 3 * 3 * float64"
    );
    // The fill's type joins the elements'.
    let ints = arr("[[1], []]", "2 * var * int32");
    assert_eq!(
        show(pad(&ints, 2, true, Some(&Array::from_scalar(0.5)))),
        "[[1, 0.5], [0.5, 0.5]] : 2 * 2 * float64"
    );
    assert_eq!(show(pad(&ints, 0, true, None)), "[[], []] : 2 * 0 * ?int32");
    let padded = pad(&x(), 3, true, None).unwrap();
    assert_eq!(
        show(unpad(&padded, None)),
        "[[1, 5, 2], [], [-3]] : 3 * var * float64"
    );
    let dense = pad(&x(), 3, true, Some(&zero)).unwrap();
    let lengths = num(&x(), 1).unwrap();
    assert_eq!(
        show(unpad(&dense, Some(&lengths))),
        "[[1, 5, 2], [], [-3]] : 3 * var * float64"
    );
    assert!(show(unpad(&dense, None)).contains("elements of an option type"));
    assert!(
        show(unpad(&dense, Some(&Array::from_vec(vec![1i64, 4, 0]))))
            .contains("4 for row 1 of length 3")
    );
    // Strings move as any element does.
    let s = arr(r#"[["ab", "c"], []]"#, "2 * var * string");
    assert_eq!(
        show(pad(&s, 1, false, None)),
        r#"[["ab", "c"], [null]] : 2 * var * ?string"#
    );
    assert_eq!(
        call(
            "pad",
            &[&x(), &Array::from_scalar(1i64)],
            &[("clip", &Array::from_scalar(true))]
        ),
        "[[1], [null], [-3]] : 3 * 1 * ?float64"
    );
}

#[test]
fn softmax_is_stable_and_exact_at_the_edges() {
    let y = arr("[[1000, 1000], [], [5], [0, 1, 2]]", "4 * var * float64");
    let s = softmax(&y, -1).unwrap().to_nested::<f64>().unwrap();
    assert_eq!(s[0], [0.5, 0.5]); // no overflow at 1000
    assert!(s[1].is_empty());
    assert_eq!(s[2], [1.0]);
    let e: Vec<f64> = [0.0f64, 1.0, 2.0].iter().map(|v| (v - 2.0).exp()).collect();
    let total: f64 = e.iter().sum();
    for (got, want) in s[3].iter().zip(&e) {
        assert!(
            (got - want / total).abs() < 1e-15,
            "{got} vs {}",
            want / total
        );
    }
    let l = log_softmax(&y, -1).unwrap().to_nested::<f64>().unwrap();
    assert_eq!(l[0], [-std::f64::consts::LN_2; 2]);
    assert_eq!(l[2], [0.0]);
    assert_eq!(
        show(logsumexp(&y, -1).map(|a| a.index(&[Index::slice(Some(1), Some(3), 1)]).unwrap())),
        "[-Infinity, 5] : 2 * float64"
    );
    let big = logsumexp(&y, -1).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(big[0], 1000.0 + std::f64::consts::LN_2);
    // float32 stays float32; integers compute in float64; null stays null.
    let f = arr("[[1, 1]]", "1 * var * float32");
    assert_eq!(show(softmax(&f, -1)), "[[0.5, 0.5]] : 1 * var * float32");
    let na = arr("[[null, 0, 0], [null]]", "2 * var * ?int64");
    assert_eq!(
        show(softmax(&na, -1)),
        "[[null, 0.5, 0.5], [null]] : 2 * var * ?float64"
    );
    assert_eq!(
        show(logsumexp(&na, -1)),
        "[0.6931471805599453, -Infinity] : 2 * float64"
    );
    // Infinities as `exp` and `log` say; complex numbers have no softmax.
    let inf = arr(
        "[[Infinity, 1], [-Infinity, -Infinity]]",
        "2 * var * float64",
    );
    assert_eq!(
        show(logsumexp(&inf, -1)),
        "[Infinity, -Infinity] : 2 * float64"
    );
    let c = arr("[[1]]", "1 * var * complex128");
    assert!(show(softmax(&c, -1)).starts_with("error:"));
}

#[test]
fn filter_keeps_the_masked_elements_row_by_row() {
    let y = x();
    let mask = y.greater(1.5).eval().unwrap();
    assert_eq!(
        show(filter(&x(), &mask)),
        "[[5, 2], [], []] : 3 * var * float64"
    );
    let na_mask = arr("[[true, null, true], [], [null]]", "3 * var * ?bool");
    assert_eq!(
        show(filter(&x(), &na_mask)),
        "[[1, 2], [], []] : 3 * var * float64"
    );
    let other = arr("[[true], [], [true]]", "3 * var * bool");
    assert!(show(filter(&x(), &other)).contains("row lengths"));
    let ints = arr("[[1, 2], [3]]", "2 * var * int64");
    assert!(
        show(filter(&x(), &ints)).contains("dimensions and row lengths")
            || show(filter(&ints, &ints)).contains("bool")
    );
    // Wide elements (complex128, 16 bytes) and strings.
    let s = arr(r#"[["a", "bb", "c"]]"#, "1 * var * string");
    let m = arr("[[false, true, true]]", "1 * var * bool");
    assert_eq!(show(filter(&s, &m)), r#"[["bb", "c"]] : 1 * var * string"#);
}

#[test]
fn concatenate_appends_rows_or_joins_them() {
    let a = arr("[[1, 2], []]", "2 * var * int32");
    let b = arr("[[3.5], [4.5, 5.5]]", "2 * var * float64");
    assert_eq!(
        show(concatenate(&[&a, &b], 0)),
        "[[1, 2], [], [3.5], [4.5, 5.5]] : 4 * var * float64"
    );
    assert_eq!(
        show(concatenate(&[&a, &b], 1)),
        "[[1, 2, 3.5], [4.5, 5.5]] : 2 * var * float64"
    );
    assert_eq!(
        show(concatenate(&[&a, &b, &a], -1)),
        "[[1, 2, 3.5, 1, 2], [4.5, 5.5]] : 2 * var * float64"
    );
    let dense = arr("[[7, 8]]", "1 * 2 * int32");
    assert_eq!(show(concatenate(&[&a, &dense], 1)), "error: concatenate: the arrays must be alike above the rows (the same dimensions and row counts), not 2 * var * int32, 1 * 2 * int32");
    let dense2 = arr("[[7, 8], [9, 9]]", "2 * 2 * int32");
    assert_eq!(
        show(concatenate(&[&a, &dense2], 1)),
        "[[1, 2, 7, 8], [9, 9]] : 2 * var * int32"
    );
    let z = arr("[[[1], []], [[2, 3]]]", "2 * var * var * int64");
    assert_eq!(
        show(concatenate(&[&z, &z], 0)),
        "[[[1], []], [[2, 3]], [[1], []], [[2, 3]]] : 4 * var * var * int64"
    );
    assert_eq!(
        show(concatenate(&[&z, &z], -1)),
        "[[[1, 1], []], [[2, 3, 2, 3]]] : 2 * var * var * int64"
    );
}

#[test]
fn diff_count_nonzero_and_views_with_steps() {
    let y = arr("[[1, 4, 9], [], [2], [5, 5]]", "4 * var * int64");
    assert_eq!(
        show(diff(&y, 1, -1)),
        "[[3, 5], [], [], [0]] : 4 * var * int64"
    );
    assert_eq!(show(diff(&y, 2, -1)), "[[2], [], [], []] : 4 * var * int64");
    assert_eq!(
        show(count_nonzero(&y, Some(-1))),
        "[3, 0, 1, 2] : 4 * int64"
    );
    assert_eq!(show(count_nonzero(&y, None)), "6 : int64");
    let b = arr("[[true, false, true]]", "1 * var * bool");
    assert_eq!(show(diff(&b, 1, -1)), "[[true, true]] : 1 * var * bool");
    // A view with steps over the rows and within them.
    let v = y
        .index(&[Index::slice(None, None, -2), Index::slice(None, None, 2)])
        .unwrap();
    assert_eq!(v.to_string(), "[[5], []]");
    assert_eq!(show(argmax(&v, Some(-1), false)), "[0, null] : 2 * ?int64");
    assert_eq!(show(sort(&v, -1, false)), "[[5], []] : 2 * var * int64");
    let w = arr("[[1, 9, 2, 8, 3]]", "1 * var * float64")
        .index(&[Index::ALL, Index::slice(None, None, 2)])
        .unwrap();
    let s = softmax(&w, -1).unwrap();
    assert_eq!(s.ty().to_string(), "1 * var * float64");
    let want: Vec<f64> = [1.0f64, 2.0, 3.0].iter().map(|v| (v - 3.0).exp()).collect();
    let total: f64 = want.iter().sum();
    assert_eq!(
        s.to_nested::<f64>().unwrap()[0],
        want.iter().map(|v| v * (1.0 / total)).collect::<Vec<_>>()
    );
    assert_eq!(show(argsort(&w, -1, true)), "[[0, 1, 2]] : 1 * var * int64");
    assert_eq!(
        show(pad(&w, 4, true, None)),
        "[[1, 2, 3, null]] : 1 * 4 * ?float64"
    );
}

#[test]
fn the_functions_are_builtins_by_name() {
    let y = x();
    let one = Array::from_scalar(1i64);
    assert_eq!(call("num", &[&y], &[]), "[3, 0, 1] : 3 * int64");
    assert_eq!(call("flatten", &[&y], &[]), "[1, 5, 2, -3] : 4 * float64");
    assert_eq!(
        call("flatten", &[&y], &[("all", &Array::from_scalar(true))]),
        "[1, 5, 2, -3] : 4 * float64"
    );
    assert_eq!(
        call("local_index", &[&y], &[]),
        "[[0, 1, 2], [], [0]] : 3 * var * int64"
    );
    assert_eq!(
        call("argmax", &[&y], &[("axis", &Array::from_scalar(-1i64))]),
        "[1, null, 0] : 3 * ?int64"
    );
    assert_eq!(
        call("logsumexp", &[&arr("[[0, 0]]", "1 * var * float64")], &[]),
        "[0.6931471805599453] : 1 * float64"
    );
    assert_eq!(
        call("diff", &[&y], &[("n", &one)]),
        "[[4, -3], [], []] : 3 * var * float64"
    );
    let pairs = call("unpad", &[&pad(&y, 3, true, None).unwrap()], &[]);
    assert_eq!(pairs, "[[1, 5, 2], [], [-3]] : 3 * var * float64");
}
