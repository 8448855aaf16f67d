//! Variance over every layout the kernel walks (contiguous runs, strided
//! runs, kept innermost lines, masks, ragged rows alone, in groups and
//! across), against a naive two-pass fold; and option arrays split into
//! values and validity views. These run under valgrind in CI: the
//! kernels read elements through raw pointers.

use dynd_kernels::reduce::{std_dev, variance, VarArgs};
use dynd_kernels::ArrayOps;
use dynd_kernels::{Array, Index};

fn naive(xs: &[f64], ddof: usize) -> f64 {
    if xs.len() <= ddof {
        return f64::NAN;
    }
    let m = xs.iter().sum::<f64>() / xs.len() as f64;
    xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (xs.len() - ddof) as f64
}

fn same(got: &[f64], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!(
            (g.is_nan() && w.is_nan()) || (g - w).abs() <= 1e-9 * (1.0 + w.abs()),
            "{got:?} vs {want:?}"
        );
    }
}

#[test]
fn fixed_layouts_match_a_naive_two_pass() {
    let (m, n) = (7, 300);
    let xs: Vec<f64> = (0..m * n)
        .map(|i| ((i * 37) % 101) as f64 * 0.25 - 3.0)
        .collect();
    let a = Array::from_shape_vec(&[m, n], xs.clone()).unwrap();
    let row = |i: usize| xs[i * n..(i + 1) * n].to_vec();
    let col = |j: usize| (0..m).map(|i| xs[i * n + j]).collect::<Vec<f64>>();
    for ddof in [0, 1] {
        let rows = VarArgs {
            axes: Some(&[1]),
            ddof,
            ..VarArgs::default()
        };
        let cols = VarArgs {
            axes: Some(&[0]),
            ddof,
            ..VarArgs::default()
        };
        let all = VarArgs {
            ddof,
            ..VarArgs::default()
        };
        // Contiguous runs; kept innermost lines; everything.
        same(
            &variance::<f64>(&a, &rows, "var").unwrap().to_vec().unwrap(),
            &(0..m).map(|i| naive(&row(i), ddof)).collect::<Vec<_>>(),
        );
        same(
            &variance::<f64>(&a, &cols, "var").unwrap().to_vec().unwrap(),
            &(0..n).map(|j| naive(&col(j), ddof)).collect::<Vec<_>>(),
        );
        same(
            &variance::<f64>(&a, &all, "var").unwrap().to_vec().unwrap(),
            &[naive(&xs, ddof)],
        );
        // A transposed view: strided runs, gathered; and reversed steps.
        let t = a.transpose().unwrap();
        same(
            &variance::<f64>(&t, &rows, "var").unwrap().to_vec().unwrap(),
            &(0..n).map(|j| naive(&col(j), ddof)).collect::<Vec<_>>(),
        );
        let rev = a
            .index(&[Index::ALL, Index::slice(None, None, -1)])
            .unwrap();
        same(
            &variance::<f64>(&rev, &cols, "var")
                .unwrap()
                .to_vec()
                .unwrap(),
            &(0..n)
                .rev()
                .map(|j| naive(&col(j), ddof))
                .collect::<Vec<_>>(),
        );
    }
    // A mask broadcast along the rows: every other column.
    let keep = Array::from_vec((0..n).map(|j| j % 2 == 0).collect::<Vec<bool>>());
    let masked = VarArgs {
        axes: Some(&[1]),
        mask: Some(&keep),
        ..VarArgs::default()
    };
    let want: Vec<f64> = (0..m)
        .map(|i| naive(&row(i).into_iter().step_by(2).collect::<Vec<_>>(), 0))
        .collect();
    same(
        &variance::<f64>(&a, &masked, "var")
            .unwrap()
            .to_vec()
            .unwrap(),
        &want,
    );
    let sd = std_dev::<f64>(&a, &VarArgs::default(), "std")
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    same(&sd, &[naive(&xs, 0).sqrt()]);
}

#[test]
fn ragged_layouts_match_a_naive_two_pass() {
    let rows: Vec<Vec<f64>> = (0..5000)
        .map(|r| {
            (0..(r * 7) % 23)
                .map(|i| ((r + i * 13) % 17) as f64 - 8.0)
                .collect()
        })
        .collect();
    let a = Array::from_nested(rows.clone()).unwrap();
    // Per row (the parallel, slice path), then a view that skips rows.
    let per_row = VarArgs {
        axes: Some(&[1]),
        ..VarArgs::default()
    };
    let want: Vec<f64> = rows
        .iter()
        .map(|r| if r.is_empty() { f64::NAN } else { naive(r, 0) })
        .collect();
    same(
        &variance::<f64>(&a, &per_row, "var")
            .unwrap()
            .to_vec()
            .unwrap(),
        &want,
    );
    let odd = a.index(&[Index::slice(Some(1), None, 2)]).unwrap();
    let want_odd: Vec<f64> = want.iter().skip(1).step_by(2).copied().collect();
    same(
        &variance::<f64>(&odd, &per_row, "var")
            .unwrap()
            .to_vec()
            .unwrap(),
        &want_odd,
    );
    // Every value; across the rows, by position.
    let flat: Vec<f64> = rows.iter().flatten().copied().collect();
    same(
        &variance::<f64>(&a, &VarArgs::default(), "var")
            .unwrap()
            .to_vec()
            .unwrap(),
        &[naive(&flat, 0)],
    );
    let across = variance::<f64>(
        &a,
        &VarArgs {
            axes: Some(&[0]),
            ..VarArgs::default()
        },
        "var",
    )
    .unwrap();
    let longest = rows.iter().map(Vec::len).max().unwrap();
    let want: Vec<f64> = (0..longest)
        .map(|j| {
            naive(
                &rows
                    .iter()
                    .filter_map(|r| r.get(j).copied())
                    .collect::<Vec<_>>(),
                0,
            )
        })
        .collect();
    same(
        &match across.to_value() {
            dynd_kernels::Value::List(xs) => xs
                .iter()
                .map(|v| match v {
                    dynd_kernels::Value::Float(x) => *x,
                    other => panic!("{other:?}"),
                })
                .collect::<Vec<f64>>(),
            other => panic!("{other:?}"),
        },
        &want,
    );
}

#[test]
fn option_parts_are_views_of_values_and_validity() {
    let t = "4 * var * ?float64".parse().unwrap();
    let a = Array::from_json("[[1, null], [], [null, 2.5, 3], [4]]", Some(&t)).unwrap();
    let (values, valid) = a.option_parts().unwrap();
    assert_eq!(values.to_string(), "[[1, 0], [], [0, 2.5, 3], [4]]");
    assert_eq!(
        valid.to_string(),
        "[[true, false], [], [false, true, true], [true]]"
    );
    // A view (every other row, reversed values) splits the same way.
    let v = a
        .index(&[Index::slice(None, None, 2), Index::slice(None, None, -1)])
        .unwrap();
    let (values, valid) = v.option_parts().unwrap();
    assert_eq!(values.to_string(), "[[0, 1], [3, 2.5, 0]]");
    assert_eq!(valid.to_string(), "[[false, true], [true, true, false]]");
    assert_eq!(
        Array::from_option_parts(&values, &valid)
            .unwrap()
            .to_string(),
        "[[null, 1], [3, 2.5, null]]"
    );
    assert_eq!(v.null_count().unwrap(), 2);
    // Fixed dimensions, narrower types.
    let b = Array::from_json("[[1, null, 3]]", Some(&"1 * 3 * ?int8".parse().unwrap())).unwrap();
    let (values, valid) = b.option_parts().unwrap();
    assert_eq!(
        (values.to_string(), values.ty().to_string()),
        ("[[1, 0, 3]]".into(), "1 * 3 * int8".into())
    );
    assert_eq!(b.is_na().unwrap().to_string(), "[[false, true, false]]");
    assert_eq!(
        Array::from_option_parts(&values, &valid)
            .unwrap()
            .to_string(),
        "[[1, null, 3]]"
    );
    // Not an option: no parts, nothing NA.
    assert!(values.option_parts().is_none());
    assert_eq!(values.null_count().unwrap(), 0);
    let err = Array::from_option_parts(&values, &values).unwrap_err();
    assert!(
        err.to_string()
            .contains("argument 1 has data type int8, but from_option_parts takes bool"),
        "{err}"
    );
}

/// Across many rows (several fixed runs, merged in run order): the same
/// bits on one thread and two, close to a naive two-pass fold, with one
/// group and with two, with a `where` mask.
#[test]
fn across_many_rows_in_runs_matches_on_any_threads() {
    let n = 70_003;
    let rows: Vec<Vec<f64>> = (0..n)
        .map(|r| {
            (0..(r * 7) % 19)
                .map(|i| ((r * 31 + i * 13) % 101) as f64 * 0.25 - 12.0)
                .collect()
        })
        .collect();
    let a = Array::from_nested(rows.clone()).unwrap();
    let values = |v: dynd_kernels::Value| -> Vec<f64> {
        match v {
            dynd_kernels::Value::List(xs) => xs
                .into_iter()
                .flat_map(|v| match v {
                    dynd_kernels::Value::Float(x) => vec![x],
                    dynd_kernels::Value::List(ys) => ys
                        .into_iter()
                        .map(|y| match y {
                            dynd_kernels::Value::Float(x) => x,
                            other => panic!("{other:?}"),
                        })
                        .collect(),
                    other => panic!("{other:?}"),
                })
                .collect(),
            other => panic!("{other:?}"),
        }
    };
    let across = VarArgs {
        axes: Some(&[0]),
        ..VarArgs::default()
    };
    let on = |threads: usize, a: &Array, args: &VarArgs<'_>| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| values(variance::<f64>(a, args, "var").unwrap().to_value()))
    };
    let one = on(1, &a, &across);
    let two = on(2, &a, &across);
    assert_eq!(
        one.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        two.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
    let longest = rows.iter().map(Vec::len).max().unwrap();
    let column = |rows: &[Vec<f64>], j: usize| -> Vec<f64> {
        rows.iter().filter_map(|r| r.get(j).copied()).collect()
    };
    let want: Vec<f64> = (0..longest).map(|j| naive(&column(&rows, j), 0)).collect();
    same(&one, &want);
    // Two groups: `2 * (n/2) * var`, across the middle axis.
    let half = n / 2;
    let b = Array::from_json(
        &format!("[{}]", {
            let rows: Vec<String> = (0..2)
                .map(|g| {
                    let rs: Vec<String> = rows[g * half..(g + 1) * half]
                        .iter()
                        .map(|r| format!("{r:?}"))
                        .collect();
                    format!("[{}]", rs.join(","))
                })
                .collect();
            rows.join(",")
        }),
        Some(&format!("2 * {half} * var * float64").parse().unwrap()),
    )
    .unwrap();
    let mid = VarArgs {
        axes: Some(&[1]),
        ..VarArgs::default()
    };
    let one = on(1, &b, &mid);
    let two = on(2, &b, &mid);
    assert_eq!(
        one.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        two.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
    let mut want = Vec::new();
    for g in 0..2 {
        let part = &rows[g * half..(g + 1) * half];
        let longest = part.iter().map(Vec::len).max().unwrap();
        want.extend((0..longest).map(|j| naive(&column(part, j), 0)));
    }
    same(&one, &want);
    // A mask that keeps the elements at even positions of odd rows and
    // every element of even rows.
    let mask = Array::from_nested(
        rows.iter()
            .enumerate()
            .map(|(r, row)| (0..row.len()).map(|j| r % 2 == 0 || j % 2 == 0).collect())
            .collect::<Vec<Vec<bool>>>(),
    )
    .unwrap();
    let masked = VarArgs {
        axes: Some(&[0]),
        mask: Some(&mask),
        ..VarArgs::default()
    };
    let one = on(1, &a, &masked);
    let two = on(2, &a, &masked);
    assert_eq!(
        one.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        two.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
    let want: Vec<f64> = (0..longest)
        .map(|j| {
            let xs: Vec<f64> = rows
                .iter()
                .enumerate()
                .filter(|(r, _)| r % 2 == 0 || j % 2 == 0)
                .filter_map(|(_, row)| row.get(j).copied())
                .collect();
            naive(&xs, 0)
        })
        .collect();
    same(&one, &want);
}

/// `rows` as one `var` dimension over exactly their values (no spare
/// capacity after the last row).
fn exact_rows<T: dynd_kernels::Element>(rows: &[Vec<T>]) -> Array
where
    Vec<T>: Into<Array>,
{
    let mut offsets = vec![0usize];
    for r in rows {
        offsets.push(offsets.last().unwrap() + r.len());
    }
    Array::from_offsets(rows.concat(), &offsets).unwrap()
}

#[test]
fn per_row_spreads_of_every_length_match_a_naive_two_pass() {
    // Lengths 0..300: one block, several, and past the blocked path; data
    // far from zero, where a one-pass formula would cancel.
    let rows: Vec<Vec<f64>> = (0..300)
        .map(|n| {
            (0..n)
                .map(|i| 1e6 + ((n * 31 + i * 17) % 101) as f64 * 0.01)
                .collect()
        })
        .collect();
    let mut odd = rows.clone();
    odd[3] = vec![1.0, f64::NAN, 2.0];
    odd[4] = vec![f64::INFINITY; 5];
    let a = Array::from_nested(odd.clone()).unwrap();
    for ddof in [0, 1] {
        let args = VarArgs {
            axes: Some(&[1]),
            ddof,
            ..VarArgs::default()
        };
        let want: Vec<f64> = odd.iter().map(|r| naive(r, ddof)).collect();
        let var = variance::<f64>(&a, &args, "var").unwrap().to_vec().unwrap();
        same(&var, &want);
        let sd: Vec<f64> = std_dev::<f64>(&a, &args, "std").unwrap().to_vec().unwrap();
        same(&sd, &want.iter().map(|v| v.sqrt()).collect::<Vec<_>>());
        // f32 rows, against the naive fold in f64.
        let rows32: Vec<Vec<f32>> = rows
            .iter()
            .map(|r| r.iter().map(|&x| (x - 1e6) as f32).collect())
            .collect();
        let a32 = Array::from_nested(rows32.clone()).unwrap();
        let got32: Vec<f32> = variance::<f32>(&a32, &args, "var")
            .unwrap()
            .to_vec()
            .unwrap();
        for (r, (g, row)) in got32.iter().zip(&rows32).enumerate() {
            let w = naive(&row.iter().map(|&x| x as f64).collect::<Vec<_>>(), ddof);
            assert!(
                (g.is_nan() && w.is_nan()) || (*g as f64 - w).abs() <= 1e-5 * (1.0 + w.abs()),
                "row {r}: {g} vs {w}"
            );
        }
    }
    // A row's result does not depend on where it lies: the same rows as
    // the last ones of their values (whose blocks would reach past them)
    // and followed by others.
    // Values whose sums round differently in another grouping.
    let short: Vec<Vec<f64>> = (0..40)
        .map(|n| {
            (0..n)
                .map(|i| ((i as f64 + n as f64 * 0.37) * 0.7316).sin() * 1e3)
                .collect()
        })
        .collect();
    let mut padded = short.clone();
    padded.extend((0..4).map(|_| vec![3.0; 64]));
    let args = VarArgs {
        axes: Some(&[1]),
        ..VarArgs::default()
    };
    let bits = |a: &Array, n: usize| -> Vec<u64> {
        let v: Vec<f64> = variance::<f64>(a, &args, "var").unwrap().to_vec().unwrap();
        v[..n].iter().map(|x| x.to_bits()).collect()
    };
    let everywhere = bits(&exact_rows(&padded), 40);
    for n in 1..=40 {
        assert_eq!(
            bits(&exact_rows(&short[..n]), n),
            everywhere[..n],
            "{n} rows"
        );
    }
}
