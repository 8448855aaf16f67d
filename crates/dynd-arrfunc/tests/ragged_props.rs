//! The ragged operations against a naive per-row reference written over
//! `Vec<Vec<Option<i32>>>`: random ragged shapes with empty rows, views
//! with steps over the rows and within them, NA elements; and one large
//! array on two threads, so that the rows are split across tasks.

use dynd_arrfunc::{
    argmax, argmin, argsort, concatenate, count_nonzero, diff, filter, flatten, local_index,
    logsumexp, num, pad, softmax, sort, take_along_axis, unflatten, unique_rows, unpad,
};
use dynd_kernels::{Array, Index};
use dynd_types::Type;
use proptest::prelude::*;

type Rows = Vec<Vec<Option<i32>>>;

/// JSON of rows of optional values.
fn json<T: std::fmt::Display>(rows: &[Vec<Option<T>>]) -> String {
    let row = |r: &Vec<Option<T>>| {
        let items: Vec<String> = r
            .iter()
            .map(|v| v.as_ref().map_or("null".into(), |v| v.to_string()))
            .collect();
        format!("[{}]", items.join(", "))
    };
    format!("[{}]", rows.iter().map(row).collect::<Vec<_>>().join(", "))
}

fn make<T: std::fmt::Display>(rows: &[Vec<Option<T>>], dtype: &str) -> Array {
    let ty: Type = format!("{} * var * {dtype}", rows.len()).parse().unwrap();
    Array::from_json(&json(rows), Some(&ty)).unwrap()
}

/// The text of the array the reference describes.
fn text<T: std::fmt::Display>(rows: &[Vec<Option<T>>], dtype: &str) -> String {
    make(rows, dtype).to_string()
}

/// Python-style slicing of a list by a step (start at the step's end).
fn stepped<T: Clone>(v: &[T], step: i64) -> Vec<T> {
    if step > 0 {
        v.iter().step_by(step as usize).cloned().collect()
    } else {
        v.iter().rev().step_by((-step) as usize).cloned().collect()
    }
}

fn rows_strategy(na: bool) -> impl Strategy<Value = Rows> {
    let value = if na {
        prop::option::weighted(0.8, -4i32..5).boxed()
    } else {
        (-4i32..5).prop_map(Some).boxed()
    };
    prop::collection::vec(prop::collection::vec(value, 0..7), 0..9)
}

/// The array of `rows` (float64, or ?int32 with NA) seen through steps,
/// and the reference seen the same way.
fn view(rows: &Rows, na: bool, outer: i64, inner: i64) -> (Array, Rows) {
    let a = make(rows, if na { "?int32" } else { "float64" });
    let v = a
        .index(&[
            Index::slice(None, None, outer),
            Index::slice(None, None, inner),
        ])
        .unwrap();
    let r: Rows = stepped(rows, outer)
        .iter()
        .map(|row| stepped(row, inner))
        .collect();
    (v, r)
}

fn steps() -> impl Strategy<Value = (i64, i64)> {
    (
        prop_oneof![Just(1i64), Just(2), Just(-1)],
        prop_oneof![Just(1i64), Just(-1), Just(2)],
    )
}

/// NumPy's order with NA last: the first extreme among the values.
fn arg_ref(row: &[Option<i32>], max: bool) -> Option<usize> {
    let mut best: Option<(i32, usize)> = None;
    for (i, v) in row.iter().enumerate() {
        if let Some(v) = *v {
            if best.is_none_or(|(b, _)| if max { v > b } else { v < b }) {
                best = Some((v, i));
            }
        }
    }
    best.map(|(_, i)| i)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn per_row_order_matches_the_reference(rows in rows_strategy(true), (o, i) in steps()) {
        let (x, r) = view(&rows, true, o, i);
        for max in [true, false] {
            let got = if max { argmax(&x, Some(-1), false) } else { argmin(&x, Some(-1), false) }.unwrap();
            let want: Vec<Vec<Option<usize>>> = vec![r.iter().map(|row| arg_ref(row, max)).collect()];
            let want = make(&want, "?int64");
            prop_assert_eq!(got.to_string(), want.at(0).unwrap().to_string());
        }
        // argsort: stable, NA last; sort the same order.
        for ascending in [true, false] {
            let got = argsort(&x, -1, ascending).unwrap();
            let want: Vec<Vec<Option<usize>>> = r.iter().map(|row| {
                let mut idx: Vec<usize> = (0..row.len()).filter(|&k| row[k].is_some()).collect();
                idx.sort_by(|&a, &b| {
                    let c = row[a].cmp(&row[b]);
                    if ascending { c } else { c.reverse() }
                });
                idx.extend((0..row.len()).filter(|&k| row[k].is_none()));
                idx.into_iter().map(Some).collect()
            }).collect();
            prop_assert_eq!(got.to_string(), text(&want, "int64"));
            let sorted: Rows = want.iter().zip(&r).map(|(idx, row)| idx.iter().map(|k| row[k.unwrap()]).collect()).collect();
            prop_assert_eq!(sort(&x, -1, ascending).unwrap().to_string(), text(&sorted, "?int32"));
        }
        // count_nonzero per row (NA not counted).
        let counts: Vec<Vec<Option<usize>>> = vec![r.iter().map(|row| Some(row.iter().filter(|v| v.is_some_and(|v| v != 0)).count())).collect()];
        prop_assert_eq!(count_nonzero(&x, Some(-1)).unwrap().to_string(), make(&counts, "int64").at(0).unwrap().to_string());
    }

    #[test]
    fn per_row_structure_matches_the_reference(rows in rows_strategy(false), (o, i) in steps(), n in 0usize..5) {
        let (x, r) = view(&rows, false, o, i);
        let lens: Vec<Vec<Option<usize>>> = vec![r.iter().map(|row| Some(row.len())).collect()];
        prop_assert_eq!(num(&x, 1).unwrap().to_string(), make(&lens, "int64").at(0).unwrap().to_string());
        let flat: Vec<Vec<Option<i32>>> = vec![r.iter().flatten().copied().collect()];
        prop_assert_eq!(flatten(&x, Some(1)).unwrap().to_string(), make(&flat, "float64").at(0).unwrap().to_string());
        let back = unflatten(&flatten(&x, Some(1)).unwrap(), &num(&x, 1).unwrap()).unwrap();
        prop_assert_eq!(back.to_string(), x.to_string());
        let li: Vec<Vec<Option<usize>>> = r.iter().map(|row| (0..row.len()).map(Some).collect()).collect();
        prop_assert_eq!(local_index(&x).unwrap().to_string(), text(&li, "int64"));
        // unique per row.
        let uniq: Rows = r.iter().map(|row| {
            let mut v: Vec<i32> = row.iter().map(|v| v.unwrap()).collect();
            v.sort();
            v.dedup();
            v.into_iter().map(Some).collect()
        }).collect();
        prop_assert_eq!(unique_rows(&x).unwrap().to_string(), text(&uniq, "float64"));
        // pad, clipped or not, with NA or a fill; unpad back.
        for clip in [true, false] {
            let padded: Rows = r.iter().map(|row| {
                let mut p: Vec<Option<i32>> = row.clone();
                if clip { p.truncate(n); }
                while p.len() < n { p.push(None); }
                p
            }).collect();
            prop_assert_eq!(pad(&x, n, clip, None).unwrap().to_string(), text(&padded, "?float64"));
            let filled: Rows = padded.iter().map(|p| p.iter().map(|v| Some(v.unwrap_or(7))).collect()).collect();
            prop_assert_eq!(pad(&x, n, clip, Some(&Array::from_scalar(7i64))).unwrap().to_string(), text(&filled, "float64"));
        }
        let padded = pad(&x, 6, false, None).unwrap();
        prop_assert_eq!(unpad(&padded, None).unwrap().to_string(), x.to_string());
        // filter by `value > 0`.
        let mask_rows: Vec<Vec<Option<bool>>> = r.iter().map(|row| row.iter().map(|v| Some(v.unwrap() > 0)).collect()).collect();
        let mask = make(&mask_rows, "bool");
        let kept: Rows = r.iter().map(|row| row.iter().filter(|v| v.unwrap() > 0).copied().collect()).collect();
        prop_assert_eq!(filter(&x, &mask).unwrap().to_string(), text(&kept, "float64"));
        // take_along_axis by each row's argmax (keepdims) and by reversed local indexes.
        let best = argmax(&x, Some(-1), true).unwrap();
        let picked: Rows = r.iter().map(|row| vec![arg_ref(row, true).map(|k| row[k].unwrap())]).collect();
        prop_assert_eq!(take_along_axis(&x, &best, -1).unwrap().to_string(), text(&picked, "?float64"));
        let rev: Vec<Vec<Option<i64>>> = r.iter().map(|row| (0..row.len()).map(|k| Some(-(k as i64) - 1)).collect()).collect();
        let reversed: Rows = r.iter().map(|row| row.iter().rev().copied().collect()).collect();
        prop_assert_eq!(take_along_axis(&x, &make(&rev, "int64"), -1).unwrap().to_string(), text(&reversed, "float64"));
        // diff and concatenate.
        let d: Rows = r.iter().map(|row| row.windows(2).map(|w| Some(w[1].unwrap() - w[0].unwrap())).collect()).collect();
        prop_assert_eq!(diff(&x, 1, -1).unwrap().to_string(), text(&d, "float64"));
        let both: Rows = r.iter().map(|row| row.iter().chain(row.iter().rev()).copied().collect()).collect();
        let xr = x.index(&[Index::ALL, Index::slice(None, None, -1)]).unwrap();
        prop_assert_eq!(concatenate(&[&x, &xr], -1).unwrap().to_string(), text(&both, "float64"));
        let appended: Rows = r.iter().chain(r.iter()).cloned().collect();
        prop_assert_eq!(concatenate(&[&x, &x], 0).unwrap().to_string(), text(&appended, "float64"));
        // logsumexp and softmax, to rounding.
        let lse = logsumexp(&x, -1).unwrap().to_vec::<f64>().unwrap();
        let sm = softmax(&x, -1).unwrap().to_nested::<f64>().unwrap();
        for (k, row) in r.iter().enumerate() {
            let vals: Vec<f64> = row.iter().map(|v| f64::from(v.unwrap())).collect();
            let want = vals.iter().map(|v| v.exp()).sum::<f64>().ln();
            prop_assert!(lse[k] == want || (lse[k] - want).abs() <= 1e-12 * want.abs().max(1.0), "{} vs {}", lse[k], want);
            let got = &sm[k];
            for (g, v) in got.iter().zip(&vals) {
                let w = (v - want).exp();
                prop_assert!((g - w).abs() <= 1e-12, "{} vs {}", g, w);
            }
        }
    }
}

/// Rows enough for many parallel tasks, on two threads, against the
/// one-row-at-a-time reference.
#[test]
fn large_arrays_split_across_threads_agree_with_the_reference() {
    let mut s: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let rows: Vec<Vec<f64>> = (0..40_000)
        .map(|_| {
            let n = (next() % 12) as usize;
            (0..n).map(|_| (next() % 1000) as f64 - 500.0).collect()
        })
        .collect();
    let x = Array::from_nested(rows.clone()).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    pool.install(|| {
        let am = argmax(&x, Some(-1), false).unwrap();
        let (v, ok) = dynd_kernels::ArrayOps::option_parts(&am).unwrap();
        let (v, ok) = (v.to_vec::<i64>().unwrap(), ok.to_vec::<bool>().unwrap());
        let sorted = sort(&x, -1, false).unwrap().to_nested::<f64>().unwrap();
        let sm = softmax(&x, -1).unwrap().to_nested::<f64>().unwrap();
        let padded = pad(&x, 5, true, Some(&Array::from_scalar(0.0))).unwrap();
        let padded = padded.to_vec::<f64>().unwrap();
        let mask = x.greater(0.0);
        let mask = dynd_arrfunc::Eval::eval(&mask).unwrap();
        let kept = filter(&x, &mask).unwrap().to_nested::<f64>().unwrap();
        let joined = concatenate(&[&x, &x], 1)
            .unwrap()
            .to_nested::<f64>()
            .unwrap();
        for (k, row) in rows.iter().enumerate() {
            let best =
                row.iter()
                    .enumerate()
                    .fold(None, |b: Option<(usize, f64)>, (i, &x)| match b {
                        Some((_, m)) if m >= x => b,
                        _ => Some((i, x)),
                    });
            assert_eq!(best.map(|b| b.0 as i64), ok[k].then_some(v[k]), "row {k}");
            let mut want = row.clone();
            want.sort_by(|a, b| b.total_cmp(a));
            assert_eq!(sorted[k], want, "row {k}");
            let m = row.iter().fold(f64::NEG_INFINITY, |a, &b| a.max(b));
            let e: Vec<f64> = row.iter().map(|v| (v - m).exp()).collect();
            let sum: f64 = e.iter().sum();
            // `exp` is vectorised: within an ULP of libm's, so a few here.
            let want: Vec<f64> = e.iter().map(|v| v * (1.0 / sum)).collect();
            assert_eq!(sm[k].len(), want.len(), "row {k}");
            for (g, w) in sm[k].iter().zip(&want) {
                assert!(
                    (g - w).abs() <= 4.0 * f64::EPSILON * w.abs(),
                    "row {k}: {g} {w}"
                );
            }
            let mut p = row.clone();
            p.resize(5, 0.0);
            assert_eq!(&padded[k * 5..k * 5 + 5], &p[..5], "row {k}");
            let pos: Vec<f64> = row.iter().copied().filter(|&v| v > 0.0).collect();
            assert_eq!(kept[k], pos, "row {k}");
            assert_eq!(joined[k], [row.clone(), row.clone()].concat(), "row {k}");
        }
    });
}
