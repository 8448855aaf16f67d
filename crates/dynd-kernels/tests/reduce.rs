//! Reductions against a naive reference over random shapes, axes and
//! layouts; accuracy of the float sum; the same bits on 1 and 2 threads;
//! var rows; every error.

use dynd_kernels::reduce::{reduce, reduce_tiny, ReduceArgs, Reduction};
use dynd_kernels::{array, Array, Index, Value};
use proptest::prelude::*;

fn add_f64() -> Reduction<f64, fn(f64, f64) -> f64> {
    Reduction {
        identity: Some(0.0),
        combine: |a, b| a + b,
        reorderable: true,
        neutral: Some(-0.0),
        run: None,
    }
}

fn max_i64() -> Reduction<i64, fn(i64, i64) -> i64> {
    Reduction {
        identity: None,
        combine: |a: i64, b: i64| a.max(b),
        reorderable: true,
        neutral: Some(i64::MIN),
        run: None,
    }
}

/// Naive reduction of a C-order `shape` array `data` over `axes`.
fn naive(
    data: &[i64],
    shape: &[usize],
    axes: &[usize],
    start: Option<i64>,
    mask: Option<&[bool]>,
) -> (Vec<usize>, Vec<Option<i64>>) {
    let kept: Vec<usize> = (0..shape.len()).filter(|k| !axes.contains(k)).collect();
    let out_shape: Vec<usize> = kept.iter().map(|&k| shape[k]).collect();
    let n_out: usize = out_shape.iter().product();
    let mut out = vec![start; n_out];
    for (flat, &x) in data.iter().enumerate() {
        if mask.is_some_and(|m| !m[flat]) {
            continue;
        }
        let mut rest = flat;
        let mut idx = vec![0; shape.len()];
        for k in (0..shape.len()).rev() {
            idx[k] = rest % shape[k];
            rest /= shape[k];
        }
        let o = kept.iter().fold(0, |acc, &k| acc * shape[k] + idx[k]);
        out[o] = Some(out[o].map_or(x, |a: i64| a.max(x)));
    }
    (out_shape, out)
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(128)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]
    #[test]
    fn reductions_match_a_naive_reference(
        shape in prop::collection::vec(0usize..5, 1..4),
        axes_bits in 0u8..8,
        all in any::<bool>(),
        keepdims in any::<bool>(),
        reverse in any::<bool>(),
        initial in prop::option::of(-3i64..3),
        masked in any::<bool>(),
        seed in 0i64..100,
    ) {
        let n: usize = shape.iter().product();
        let data: Vec<i64> = (0..n as i64).map(|i| (i * 37 + seed) % 23 - 11).collect();
        let base = Array::from_shape_vec(&shape, data.clone()).unwrap();
        // A reversed view holds the same values in reverse order per axis 0.
        let (a, data) = if reverse && shape[0] > 1 {
            let v = base.index(&[Index::slice(None, None, -1)]).unwrap();
            let inner: usize = shape[1..].iter().product();
            let mut d = Vec::with_capacity(n);
            for i in (0..shape[0]).rev() {
                d.extend_from_slice(&data[i * inner..(i + 1) * inner]);
            }
            (v, d)
        } else {
            (base, data)
        };
        let axes: Vec<usize> = (0..shape.len()).filter(|k| all || axes_bits & (1 << k) != 0).collect();
        let axes_i: Vec<i64> = axes.iter().map(|&k| k as i64).collect();
        let mask_data: Vec<bool> = (0..n).map(|i| !(i + seed as usize).is_multiple_of(3)).collect();
        let mask = Array::from_shape_vec(&shape, mask_data.clone()).unwrap();
        let args = ReduceArgs {
            axes: if all { None } else { Some(&axes_i) },
            keepdims,
            initial,
            mask: masked.then_some(&mask),
        };
        let got = reduce(&a, &args, &max_i64(), "max");
        let count: usize = axes.iter().map(|&k| shape[k]).product();
        let (out_shape, want) = naive(&data, &shape, &axes, initial, masked.then_some(&mask_data[..]));
        if (count == 0 && initial.is_none()) || (masked && initial.is_none()) {
            prop_assert!(got.is_err());
            return Ok(());
        }
        let got = got.unwrap();
        let mut want_shape: Vec<usize> = out_shape.clone();
        if keepdims {
            want_shape = (0..shape.len()).map(|k| if axes.contains(&k) { 1 } else { shape[k] }).collect();
        }
        prop_assert_eq!(got.ty().fixed_shape().unwrap(), want_shape);
        let want: Vec<i64> = want.into_iter().map(|v| v.unwrap_or(i64::MIN)).collect();
        prop_assert_eq!(got.to_vec::<i64>().unwrap(), want);
    }
}

#[test]
fn pairwise_sum_is_accurate_where_a_running_sum_is_not() {
    // 1e7 copies of 0.1: a running sum drifts by ~1e-4 relative; the
    // pairwise sum stays within a few ulps of the exact 1e6.
    let n = 10_000_000;
    let xs = vec![0.1f64; n];
    let naive: f64 = xs.iter().fold(0.0, |a, x| a + x);
    let a = Array::from_vec(xs);
    let r = reduce(&a, &ReduceArgs::default(), &add_f64(), "sum").unwrap();
    let s = r.get::<f64>(&[]).unwrap();
    let exact = 0.1f64 * n as f64; // 1e6 to within an ulp
    assert!((s - exact).abs() / exact < 1e-13, "pairwise: {s}");
    assert!(
        (naive - exact).abs() / exact > 1e-10,
        "the running sum drifts: {naive}"
    );
}

#[test]
fn large_reductions_give_the_same_bits_on_one_and_two_threads() {
    let n: u64 = 3_000_017;
    let xs: Vec<f64> = (0..n).map(|i| ((i * 7919) % 10007) as f64 / 3.0).collect();
    let a = Array::from_vec(xs);
    let m = Array::from_shape_vec(
        &[1000, 3000],
        (0..3_000_000).map(|i| (i % 97) as f64 * 0.1).collect(),
    )
    .unwrap();
    let run = || {
        let total = reduce(&a, &ReduceArgs::default(), &add_f64(), "sum").unwrap();
        let rows = reduce(
            &m,
            &ReduceArgs {
                axes: Some(&[1]),
                ..ReduceArgs::default()
            },
            &add_f64(),
            "sum",
        )
        .unwrap();
        let cols = reduce(
            &m,
            &ReduceArgs {
                axes: Some(&[0]),
                ..ReduceArgs::default()
            },
            &add_f64(),
            "sum",
        )
        .unwrap();
        (
            total.get::<f64>(&[]).unwrap().to_bits(),
            rows.to_vec::<f64>()
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>(),
            cols.to_vec::<f64>()
                .unwrap()
                .iter()
                .map(|x| x.to_bits())
                .collect::<Vec<_>>(),
        )
    };
    let parallel = run();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let serial = pool.install(run);
    assert_eq!(parallel, serial);
}

#[test]
fn var_rows_reduce_along_the_ragged_axis_or_entirely() {
    let a = array![[1.0, 2.0, 3.0], [], [4.0]];
    let rows = ReduceArgs {
        axes: Some(&[1]),
        ..ReduceArgs::default()
    };
    assert_eq!(
        reduce(&a, &rows, &add_f64(), "sum").unwrap().to_string(),
        "[6, 0, 4]"
    );
    assert_eq!(
        reduce(&a, &ReduceArgs::default(), &add_f64(), "sum")
            .unwrap()
            .to_string(),
        "10"
    );
    let keep = ReduceArgs {
        axes: Some(&[-1]),
        keepdims: true,
        ..ReduceArgs::default()
    };
    let r = reduce(&a, &keep, &add_f64(), "sum").unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[[6], [0], [4]]".into(), "3 * 1 * float64".into())
    );
    // An empty row has no maximum.
    let ints = array![[1, 5], [], [4]];
    let int_rows = ReduceArgs {
        axes: Some(&[1]),
        ..ReduceArgs::default()
    };
    let err = reduce(&ints, &int_rows, &max_i64(), "max").unwrap_err();
    assert_eq!(
        err.to_string(),
        "max: a reduction over no elements needs an identity, and max has none; pass `initial`"
    );
    let rows_init = ReduceArgs {
        axes: Some(&[1]),
        initial: Some(0),
        ..ReduceArgs::default()
    };
    assert_eq!(
        reduce(&ints, &rows_init, &max_i64(), "max")
            .unwrap()
            .to_string(),
        "[5, 0, 4]"
    );
    // Across the rows (axis 0): lined up by position, as long as the
    // longest row.
    let across = ReduceArgs {
        axes: Some(&[0]),
        ..ReduceArgs::default()
    };
    let r = reduce(&a, &across, &add_f64(), "sum").unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[5, 2, 3]".into(), "var * float64".into())
    );
    // Other nestings (var dimensions above the innermost, a fixed one
    // under them) reduce by the same left-aligned rule.
    let outer: Array = Array::from_json(
        "[[[1], [2]], [[3]]]",
        Some(&"var * var * 1 * int64".parse().unwrap()),
    )
    .unwrap();
    let r = reduce(&outer, &ReduceArgs::default(), &max_i64(), "max").unwrap();
    assert_eq!(r.to_string(), "3");
    let rows = ReduceArgs {
        axes: Some(&[1]),
        ..Default::default()
    };
    let r = reduce(&outer, &rows, &max_i64(), "max").unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[[2], [3]]".into(), "var * 1 * int64".into())
    );
}

/// A ragged `fixed... * var * int64` case: the fixed shape, the rows (C
/// order), and a mask of the same structure.
fn ragged_case() -> impl Strategy<Value = (Vec<usize>, Vec<Vec<i64>>, Vec<Vec<bool>>)> {
    prop::collection::vec(0usize..4, 1..3).prop_flat_map(|shape| {
        let n: usize = shape.iter().product();
        let row = prop::collection::vec((-9i64..10, any::<bool>()), 0..6);
        prop::collection::vec(row, n).prop_map(move |rows| {
            let data = rows
                .iter()
                .map(|r| r.iter().map(|p| p.0).collect())
                .collect();
            let mask = rows
                .iter()
                .map(|r| r.iter().map(|p| p.1).collect())
                .collect();
            (shape.clone(), data, mask)
        })
    })
}

/// Nested values of a C-order `shape` from its items.
fn nest<T: Clone>(shape: &[usize], items: &[T], leaf: &dyn Fn(&T) -> Value) -> Value {
    match shape.split_first() {
        None => leaf(&items[0]),
        Some((&n, rest)) => {
            let inner: usize = rest.iter().product();
            Value::List(
                (0..n)
                    .map(|i| nest(rest, &items[i * inner..(i + 1) * inner], leaf))
                    .collect(),
            )
        }
    }
}

/// Naive left-aligned max of ragged rows over `axes` (the var axis is
/// `shape.len()`): one (possibly empty) list of results per output group.
fn naive_ragged(
    shape: &[usize],
    rows: &[Vec<i64>],
    mask: Option<&[Vec<bool>]>,
    axes: &[usize],
    start: Option<i64>,
) -> Vec<Vec<Option<i64>>> {
    let var_axis = shape.len();
    let kept: Vec<usize> = (0..shape.len()).filter(|k| !axes.contains(k)).collect();
    let ngroups: usize = kept.iter().map(|&k| shape[k]).product();
    let mut out: Vec<Vec<Option<i64>>> = vec![Vec::new(); ngroups];
    if axes.contains(&var_axis) {
        out.iter_mut().for_each(|o| o.push(start));
    }
    for (r, row) in rows.iter().enumerate() {
        let mut rest = r;
        let mut idx = vec![0; shape.len()];
        for k in (0..shape.len()).rev() {
            idx[k] = rest % shape[k];
            rest /= shape[k];
        }
        let g = kept.iter().fold(0, |acc, &k| acc * shape[k] + idx[k]);
        for (j, &x) in row.iter().enumerate() {
            let slot = if axes.contains(&var_axis) { 0 } else { j };
            if out[g].len() <= slot {
                out[g].resize(slot + 1, start);
            }
            if mask.is_some_and(|m| !m[r][j]) {
                continue;
            }
            out[g][slot] = Some(out[g][slot].map_or(x, |a| a.max(x)));
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]
    #[test]
    fn ragged_reductions_match_a_naive_reference(
        (shape, rows, mask_rows) in ragged_case(),
        axes_bits in 0u8..8,
        keepdims in any::<bool>(),
        initial in prop::option::of(-3i64..3),
        masked in any::<bool>(),
    ) {
        let nfixed = shape.len();
        let ty_of = |d: &str| -> dynd_kernels::types::Type {
            let dims: String = shape.iter().map(|n| format!("{n} * ")).collect();
            format!("{dims}var * {d}").parse().unwrap()
        };
        let a = Array::from_value(
            &nest(&shape, &rows, &|r: &Vec<i64>| Value::List(r.iter().map(|x| Value::Int(*x as i128)).collect())),
            Some(&ty_of("int64")),
        ).unwrap();
        let mask = Array::from_value(
            &nest(&shape, &mask_rows, &|r: &Vec<bool>| Value::List(r.iter().map(|x| Value::Bool(*x)).collect())),
            Some(&ty_of("bool")),
        ).unwrap();
        let axes: Vec<usize> = (0..=nfixed).filter(|k| axes_bits & (1 << k) != 0).collect();
        let axes_i: Vec<i64> = axes.iter().map(|&k| k as i64).collect();
        let args = ReduceArgs { axes: Some(&axes_i), keepdims, initial, mask: masked.then_some(&mask) };
        let got = reduce(&a, &args, &max_i64(), "max");
        let want = naive_ragged(&shape, &rows, masked.then_some(&mask_rows[..]), &axes, initial);
        if (masked && initial.is_none()) || want.iter().flatten().any(Option::is_none) {
            prop_assert!(got.is_err(), "{:?}", got);
            return Ok(());
        }
        let got = got.unwrap();
        let mut out_shape: Vec<usize> = Vec::new();
        for (k, &n) in shape.iter().enumerate() {
            match (axes.contains(&k), keepdims) {
                (false, _) => out_shape.push(n),
                (true, true) => out_shape.push(1),
                _ => {}
            }
        }
        let var_reduced = axes.contains(&nfixed);
        let int = |v: &Option<i64>| Value::Int(v.unwrap() as i128);
        let want_value = if var_reduced {
            if keepdims {
                out_shape.push(1);
            }
            let flat: Vec<Option<i64>> = want.iter().map(|g| g[0]).collect();
            nest(&out_shape, &flat, &int)
        } else {
            nest(&out_shape, &want, &|g: &Vec<Option<i64>>| Value::List(g.iter().map(int).collect()))
        };
        prop_assert_eq!(got.to_value(), want_value);
        let dims: String = out_shape.iter().map(|n| format!("{n} * ")).collect();
        let want_ty = if var_reduced { format!("{dims}int64") } else { format!("{dims}var * int64") };
        prop_assert_eq!(got.ty().to_string(), want_ty);
    }
}

#[test]
fn errors_name_the_axis_the_ndim_and_what_is_missing() {
    let a = array![[1, 2], [3, 4]];
    let msg = |args: ReduceArgs<'_, i64>| {
        reduce(&a, &args, &max_i64(), "max")
            .unwrap_err()
            .to_string()
    };
    assert_eq!(
        msg(ReduceArgs {
            axes: Some(&[2]),
            ..ReduceArgs::default()
        }),
        "max: axis 2 is out of bounds for an array of 2 dimension(s)"
    );
    assert_eq!(
        msg(ReduceArgs {
            axes: Some(&[-3]),
            ..ReduceArgs::default()
        }),
        "max: axis -3 is out of bounds for an array of 2 dimension(s)"
    );
    assert_eq!(
        msg(ReduceArgs {
            axes: Some(&[1, -1]),
            ..ReduceArgs::default()
        }),
        "max: axis -1 is given more than once"
    );
    let mask = array![true, false];
    assert_eq!(
        msg(ReduceArgs {
            mask: Some(&mask),
            ..ReduceArgs::default()
        }),
        "max has no identity, so a `where` mask needs an `initial` value"
    );
    let bad_mask = array![true, false, true];
    assert_eq!(
        msg(ReduceArgs { mask: Some(&bad_mask), initial: Some(0), ..ReduceArgs::default() }),
        "max: the `where` mask 3 * bool does not broadcast to the array 2 * 2 * int64 (dimension 1)"
    );
    let int_mask = array![1, 0];
    assert_eq!(
        msg(ReduceArgs {
            mask: Some(&int_mask),
            initial: Some(0),
            ..ReduceArgs::default()
        }),
        "max: the `where` mask must be bool, not int64"
    );
    let sub = Reduction {
        identity: None,
        combine: |a: i64, b: i64| a - b,
        reorderable: false,
        neutral: None,
        run: None,
    };
    assert_eq!(
        reduce(&a, &ReduceArgs::default(), &sub, "subtract")
            .unwrap_err()
            .to_string(),
        "subtract is not reorderable, so it reduces one axis at a time"
    );
    // One axis at a time works, in order: (1 - 3), (2 - 4).
    let r = reduce(
        &a,
        &ReduceArgs {
            axes: Some(&[0]),
            ..ReduceArgs::default()
        },
        &sub,
        "subtract",
    )
    .unwrap();
    assert_eq!(r.to_string(), "[-2, -2]");
    let f = array![1.5];
    assert_eq!(
        reduce(&f, &ReduceArgs::default(), &max_i64(), "max")
            .unwrap_err()
            .to_string(),
        "argument 0 has data type float64, but the reduction max takes int64"
    );
}

/// A small reduction keeps its plan (worked out from the type, the axes
/// as given and `keepdims`) for the next call on the thread: calls that
/// change any of the three, or bring other data of the same type (a view
/// at an offset, a strided view), must each get their own answer.
#[test]
fn small_reductions_replan_when_the_type_axes_or_keepdims_change() {
    let tiny = |a: &Array, axes: Option<&[i64]>, keep: bool| {
        let r = reduce_tiny(a, axes, keep, &add_f64(), "sum").map(|r| r.unwrap());
        r.map(|r| (r.ty().to_string(), r.to_string()))
    };
    let own = |ty: &str, v: &str| Some((ty.to_string(), v.to_string()));
    let a = Array::from_shape_vec(&[4, 4], (0..16).map(f64::from).collect()).unwrap();
    // Rows 1 to 4 of a 5×4 array: the same type, 32 bytes into its block.
    let b = Array::from_shape_vec(&[5, 4], (0..20).map(|i| f64::from(i * 10)).collect()).unwrap();
    let view = b.index(&[Index::slice(Some(1), None, 1)]).unwrap();
    assert_eq!(view.ty(), a.ty());
    let rows = "4 * float64";
    // Each call after the first changes one thing from the one before it
    // (the data, the type, `keepdims`, the axes), so a plan taken for the
    // wrong key shows in the result.
    for _ in 0..2 {
        assert_eq!(tiny(&a, Some(&[1]), false), own(rows, "[6, 22, 38, 54]"));
        assert_eq!(
            tiny(&view, Some(&[1]), false),
            own(rows, "[220, 380, 540, 700]")
        );
        assert_eq!(
            tiny(&b, Some(&[1]), false),
            own("5 * float64", "[60, 220, 380, 540, 700]")
        );
        assert_eq!(tiny(&a, Some(&[1]), false), own(rows, "[6, 22, 38, 54]"));
        assert_eq!(
            tiny(&a, Some(&[1]), true),
            own("4 * 1 * float64", "[[6], [22], [38], [54]]")
        );
        assert_eq!(
            tiny(&a, Some(&[0]), true),
            own("1 * 4 * float64", "[[24, 28, 32, 36]]")
        );
        assert_eq!(
            tiny(&a, Some(&[-1]), true),
            own("4 * 1 * float64", "[[6], [22], [38], [54]]")
        );
        assert_eq!(
            tiny(&a, Some(&[0]), true),
            own("1 * 4 * float64", "[[24, 28, 32, 36]]")
        );
        assert_eq!(tiny(&a, Some(&[0]), false), own(rows, "[24, 28, 32, 36]"));
        assert_eq!(
            tiny(&view, Some(&[0]), false),
            own(rows, "[400, 440, 480, 520]")
        );
        assert_eq!(tiny(&a, None, false), own("float64", "120"));
        assert_eq!(tiny(&a, None, true), own("1 * 1 * float64", "[[120]]"));
        assert_eq!(
            tiny(&a, Some(&[0, 1]), true),
            own("1 * 1 * float64", "[[120]]")
        );
        // The same type, not C-contiguous: the general path's to take.
        assert_eq!(tiny(&a.transpose().unwrap(), Some(&[1]), false), None);
        // An axis out of range or repeated: left to the general path too.
        assert_eq!(tiny(&a, Some(&[2]), false), None);
        assert_eq!(tiny(&a, Some(&[1, -1]), false), None);
    }
    // Another element type of the same shape has its own plan.
    let i = Array::from_shape_vec(&[4, 4], (0..16i64).rev().collect()).unwrap();
    let max = reduce_tiny(&i, Some(&[1]), false, &max_i64(), "max")
        .unwrap()
        .unwrap();
    assert_eq!(max.to_string(), "[15, 11, 7, 3]");
    // A reduction that is not reorderable does not take a plan of two
    // axes made by one that is: the general path says why.
    let sub = Reduction {
        identity: None,
        combine: |x: f64, y: f64| x - y,
        reorderable: false,
        neutral: None,
        run: None,
    };
    assert_eq!(tiny(&a, None, false), own("float64", "120"));
    assert!(reduce_tiny(&a, None, false, &sub, "subtract").is_none());
    let r = reduce_tiny(&a, Some(&[1]), false, &sub, "subtract")
        .unwrap()
        .unwrap();
    assert_eq!(r.to_string(), "[-6, -14, -22, -30]");
    // No elements: `reduce_tiny` leaves them to its caller's rules;
    // `reduce`'s small path gives the identity where there is one, else
    // the error, on the first call and from the plan on the next.
    let e = Array::from_shape_vec(&[4, 0], Vec::<f64>::new()).unwrap();
    assert_eq!(tiny(&e, Some(&[1]), false), None);
    let rows_of = ReduceArgs {
        axes: Some(&[1]),
        ..ReduceArgs::default()
    };
    for _ in 0..2 {
        let r = reduce(&e, &rows_of, &add_f64(), "sum").unwrap();
        assert_eq!(
            (r.ty().to_string(), r.to_string()),
            (rows.into(), "[0, 0, 0, 0]".into())
        );
        assert_eq!(
            reduce(&e, &rows_of, &sub, "subtract").unwrap_err().to_string(),
            "subtract: a reduction over no elements needs an identity, and subtract has none; pass `initial`"
        );
    }
}

#[test]
fn stateful_reductions_and_scans_follow_views() {
    use dynd_kernels::reduce::{accumulate, reduce_with, KahanSum};
    let base = Array::from_shape_vec(&[2, 3], vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]).unwrap();
    let t = base.transpose().unwrap(); // [[1, 4], [2, 5], [3, 6]]
    assert_eq!(
        reduce_with(&t, Some(&[1]), false, &KahanSum, "k")
            .unwrap()
            .to_string(),
        "[5, 7, 9]"
    );
    assert_eq!(
        reduce_with(&t, None, true, &KahanSum, "k")
            .unwrap()
            .to_string(),
        "[[21]]"
    );
    assert_eq!(
        accumulate(&t, 0, |a: f64, b: f64| a + b, "cumsum")
            .unwrap()
            .to_string(),
        "[[1, 4], [3, 9], [6, 15]]"
    );
    let rev = base
        .index(&[Index::slice(None, None, 1), Index::slice(None, None, -1)])
        .unwrap();
    assert_eq!(
        accumulate(&rev, -1, |a: f64, b: f64| a * b, "cumprod")
            .unwrap()
            .to_string(),
        "[[3, 6, 6], [6, 30, 120]]"
    );
    let empty = Array::zeros(&"0 * float64".parse().unwrap()).unwrap();
    assert_eq!(
        reduce_with(&empty, None, false, &KahanSum, "k")
            .unwrap()
            .to_string(),
        "0"
    );
    assert_eq!(
        accumulate(&empty, 0, |a: f64, b: f64| a + b, "cumsum")
            .unwrap()
            .to_string(),
        "[]"
    );
    // Along ragged rows; not across them.
    let ragged = array![[1.0], [2.0, 3.0]];
    let add = |a: f64, b: f64| a + b;
    assert_eq!(
        accumulate(&ragged, 1, add, "cumsum").unwrap().to_string(),
        "[[1], [2, 5]]"
    );
    let reversed = ragged
        .index(&[Index::slice(None, None, -1), Index::slice(None, None, -1)])
        .unwrap();
    assert_eq!(
        accumulate(&reversed, -1, add, "cumsum")
            .unwrap()
            .to_string(),
        "[[3, 5], [1]]"
    );
    assert!(accumulate(&ragged, 0, add, "cumsum").is_err());
    // Rows under two fixed dimensions, every other one (the general row
    // reader, not plain slices), strided within each row.
    let deep = Array::from_json(
        "[[[1, 2, 3], [], [4, 5]], [[6], [7, 8, 9, 10], [11, 12]]]",
        Some(&"2 * 3 * var * float64".parse().unwrap()),
    )
    .unwrap();
    let view = deep
        .index(&[
            Index::ALL,
            Index::slice(None, None, 2),
            Index::slice(None, None, 2),
        ])
        .unwrap();
    let scanned = accumulate(&view, 2, add, "cumsum").unwrap();
    assert_eq!(scanned.ty().to_string(), "2 * 2 * var * float64");
    assert_eq!(scanned.to_string(), "[[[1, 4], [4]], [[6], [11]]]");
}

/// The per-row fast path (rows read as slices, short rows folded by
/// length four side by side) against a naive in-order fold of each row:
/// rows of length 0 to 40 (short and long), an order-sensitive reduction
/// (`a - b`, not reorderable), `initial`, many rows (several units, both
/// threads), reversed rows (the general path), and `count`.
#[test]
fn per_row_folds_match_an_in_order_fold() {
    let mut s: u64 = 0x5eed;
    let mut next = |n: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % n
    };
    let rows: Vec<Vec<i64>> = (0..5000)
        .map(|_| {
            let len = if next(4) == 0 { next(41) } else { next(6) };
            (0..len).map(|_| next(1000) as i64 - 500).collect()
        })
        .collect();
    let json = serde_json_rows(&rows);
    let ty = format!("{} * var * int64", rows.len()).parse().unwrap();
    let a = Array::from_json(&json, Some(&ty)).unwrap();
    let sub = Reduction {
        identity: None,
        combine: |x: i64, y: i64| x.wrapping_sub(y),
        reorderable: false,
        neutral: None,
        run: None,
    };
    let args = ReduceArgs {
        axes: Some(&[1]),
        initial: Some(7),
        ..ReduceArgs::default()
    };
    // The row folds in order, then `initial` is combined with it (as
    // every reduction here combines `initial` with a folded run).
    let in_order = |xs: &mut dyn Iterator<Item = i64>| match xs.next() {
        Some(first) => 7i64.wrapping_sub(xs.fold(first, |acc, x| acc.wrapping_sub(x))),
        None => 7,
    };
    let want: Vec<i64> = rows
        .iter()
        .map(|r| in_order(&mut r.iter().copied()))
        .collect();
    let got = reduce(&a, &args, &sub, "subtract.reduce").unwrap();
    assert_same(&got.to_vec::<i64>().unwrap(), &want, &rows);
    // Reversed rows: the general path, in the view's order.
    let rev = a
        .index(&[Index::slice(None, None, 1), Index::slice(None, None, -1)])
        .unwrap();
    let want_rev: Vec<i64> = rows
        .iter()
        .map(|r| in_order(&mut r.iter().rev().copied()))
        .collect();
    let got = reduce(&rev, &args, &sub, "subtract.reduce").unwrap();
    assert_same(&got.to_vec::<i64>().unwrap(), &want_rev, &rows);
    // Max without an identity: an empty row is an error naming the reduction.
    let max = max_i64();
    let no_initial = ReduceArgs {
        axes: Some(&[1]),
        ..ReduceArgs::default()
    };
    let e = reduce(&a, &no_initial, &max, "max").unwrap_err();
    assert!(e.to_string().contains("pass `initial`"), "{e}");
    let counts = dynd_kernels::reduce::count(&a, Some(&[1]), false, None, "count").unwrap();
    let want: Vec<i64> = rows.iter().map(|r| r.len() as i64).collect();
    assert_eq!(counts.to_vec::<i64>().unwrap(), want);
    let across = dynd_kernels::reduce::count(&a, Some(&[0]), false, None, "count").unwrap();
    let longest = rows.iter().map(Vec::len).max().unwrap();
    let want: Vec<i64> = (0..longest)
        .map(|j| rows.iter().filter(|r| r.len() > j).count() as i64)
        .collect();
    assert_eq!(
        across.to_value(),
        Value::List(want.into_iter().map(|n| Value::Int(n.into())).collect())
    );
}

/// Equal, or a failure naming the first row that differs.
fn assert_same(got: &[i64], want: &[i64], rows: &[Vec<i64>]) {
    assert_eq!(got.len(), want.len());
    if let Some(r) = (0..got.len()).find(|&r| got[r] != want[r]) {
        panic!("row {r} ({:?}): got {}, want {}", rows[r], got[r], want[r]);
    }
}

fn serde_json_rows(rows: &[Vec<i64>]) -> String {
    let rows: Vec<String> = rows
        .iter()
        .map(|r| {
            let xs: Vec<String> = r.iter().map(i64::to_string).collect();
            format!("[{}]", xs.join(","))
        })
        .collect();
    format!("[{}]", rows.join(","))
}

/// Rows of lengths 0..=40 (with some of 200 and 300: past the block
/// folds) from a seeded generator; `value` makes element `j` of row `r`.
fn seeded_rows<T>(n: usize, value: impl Fn(usize, usize) -> T) -> Vec<Vec<T>> {
    let mut s: u64 = 0xfeed;
    (0..n)
        .map(|r| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let len = match s % 50 {
                0 => 300,
                1 => 200,
                k => (k % 41) as usize,
            };
            (0..len).map(|j| value(r, j)).collect()
        })
        .collect()
}

#[test]
fn short_rows_fold_in_masked_blocks_like_a_naive_fold() {
    // f64 sums: the lanes past each row's end must add nothing, not even
    // a sign (a row of -0.0 sums to -0.0), and the last rows of the
    // values block (whose blocks would reach past it) fold too.
    let mut rows = seeded_rows(3000, |r, j| ((r * 31 + j * 7) % 97) as f64 * 0.25 - 12.0);
    rows[5] = vec![-0.0];
    rows[6] = vec![-0.0; 17];
    rows[7] = vec![f64::NAN, 1.0];
    rows.push(vec![1.5; 3]);
    let a = Array::from_nested(rows.clone()).unwrap();
    let per_row = ReduceArgs {
        axes: Some(&[1]),
        ..ReduceArgs::default()
    };
    let got = reduce(&a, &per_row, &add_f64(), "sum")
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    for (r, (g, row)) in got.iter().zip(&rows).enumerate() {
        let want: f64 = row.iter().sum();
        let ok = (g.is_nan() && want.is_nan())
            || (g.to_bits() == want.to_bits())
            || (g - want).abs() <= 1e-12 * row.iter().map(|x| x.abs()).sum::<f64>();
        assert!(ok, "row {r} ({} long): got {g}, want {want}", row.len());
    }
    // Without an identity to start from (`0.0 + -0.0` is `0.0`), rows of
    // -0.0 keep their sign through the masked lanes.
    let no_identity = Reduction {
        identity: None,
        ..add_f64()
    };
    let zeros = typed_rows(
        vec![vec![-0.0f64], vec![-0.0; 17], vec![-0.0; 3]],
        "float64",
    );
    let got_zeros = reduce(&zeros, &per_row, &no_identity, "sum")
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert!(
        got_zeros.iter().all(|x| x.to_bits() == (-0.0f64).to_bits()),
        "{got_zeros:?}"
    );
    // The same rows from the middle of a values block (a view that drops
    // the first rows): the blocks read past the view's rows too.
    let tail = a.index(&[Index::slice(Some(1000), None, 1)]).unwrap();
    let got_tail = reduce(&tail, &per_row, &add_f64(), "sum")
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert_eq!(
        got_tail.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        got[1000..].iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
    // Rows whose pairs do not lie end to end (reversed, every third):
    // each row read on its own, the same bits.
    for step in [-1, 3, -2] {
        let view = a.index(&[Index::slice(None, None, step)]).unwrap();
        let got_view = reduce(&view, &per_row, &add_f64(), "sum")
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        let want: Vec<u64> = if step < 0 {
            got.iter()
                .rev()
                .step_by(step.unsigned_abs() as usize)
                .map(|x| x.to_bits())
                .collect()
        } else {
            got.iter()
                .step_by(step as usize)
                .map(|x| x.to_bits())
                .collect()
        };
        let bits: Vec<u64> = got_view.iter().map(|x| x.to_bits()).collect();
        assert_eq!(bits, want, "rows with step {step}");
    }

    // Integers are exact in any grouping: i32 and u64 sums, i64 max.
    let rows32 = seeded_rows(3000, |r, j| ((r * 13 + j * 5) % 1000) as i32 - 500);
    let a32 = typed_rows(rows32.clone(), "int32");
    let add32 = Reduction {
        identity: Some(0i32),
        combine: |x: i32, y: i32| x.wrapping_add(y),
        reorderable: true,
        neutral: Some(0),
        run: None,
    };
    let rows_i32 = ReduceArgs {
        axes: Some(&[1]),
        ..ReduceArgs::default()
    };
    let got = reduce(&a32, &rows_i32, &add32, "sum")
        .unwrap()
        .to_vec::<i32>()
        .unwrap();
    let want: Vec<i32> = rows32
        .iter()
        .map(|r| r.iter().fold(0, |a: i32, &x| a.wrapping_add(x)))
        .collect();
    assert_eq!(got, want);
    let rows64 = seeded_rows(3000, |r, j| (r as u64) << 32 | j as u64);
    let a64 = typed_rows(rows64.clone(), "uint64");
    let add64 = Reduction {
        identity: Some(0u64),
        combine: |x: u64, y: u64| x.wrapping_add(y),
        reorderable: true,
        neutral: Some(0),
        run: None,
    };
    let rows_u64 = ReduceArgs {
        axes: Some(&[1]),
        ..ReduceArgs::default()
    };
    let got = reduce(&a64, &rows_u64, &add64, "sum")
        .unwrap()
        .to_vec::<u64>()
        .unwrap();
    let want: Vec<u64> = rows64
        .iter()
        .map(|r| r.iter().fold(0, |a: u64, &x| a.wrapping_add(x)))
        .collect();
    assert_eq!(got, want);
    let rows_max = seeded_rows(3000, |r, j| ((r * 7919 + j * 104_729) % 2001) as i64 - 1000);
    let amax = Array::from_nested(rows_max.clone()).unwrap();
    let with_initial = ReduceArgs {
        axes: Some(&[1]),
        initial: Some(-5000),
        ..ReduceArgs::default()
    };
    let got = reduce(&amax, &with_initial, &max_i64(), "max")
        .unwrap()
        .to_vec::<i64>()
        .unwrap();
    let want: Vec<i64> = rows_max
        .iter()
        .map(|r| r.iter().copied().fold(-5000, i64::max))
        .collect();
    assert_eq!(got, want);
    // A neutral element that is not one shows: every short row would
    // gain it. (The test guards the masking, not the reduction.)
    let wrong = Reduction {
        neutral: Some(1.0),
        run: None,
        ..add_f64()
    };
    let got = reduce(
        &typed_rows(vec![vec![1.0f64; 3]; 40], "float64"),
        &per_row,
        &wrong,
        "sum",
    )
    .unwrap()
    .to_vec::<f64>()
    .unwrap();
    assert!(got[..20].iter().all(|&x| x > 3.0), "{got:?}");
}

/// `rows` as an `N * var * dtype` array.
fn typed_rows<V>(rows: Vec<V>, dtype: &str) -> Array
where
    Vec<V>: dynd_kernels::IntoValue,
{
    let ty = format!("{} * var * {dtype}", rows.len()).parse().unwrap();
    Array::from_value(&dynd_kernels::IntoValue::into_value(rows), Some(&ty)).unwrap()
}

#[test]
fn folds_across_many_rows_run_in_parts_with_the_same_bits_on_any_threads() {
    // 100_003 rows (several runs of rows, the last one short), under one
    // and under two fixed dimensions (several groups).
    let rows = seeded_rows(100_003, |r, j| ((r * 31 + j * 7) % 97) as f64 * 0.1 - 4.0);
    let a = Array::from_nested(rows.clone()).unwrap();
    let across = ReduceArgs {
        axes: Some(&[0]),
        ..ReduceArgs::default()
    };
    let run = |a: &Array, args: &ReduceArgs<'_, f64>| {
        reduce(a, args, &add_f64(), "sum").unwrap().to_value()
    };
    let two = run(&a, &across);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    assert_eq!(two, pool.install(|| run(&a, &across)));
    // Close to a naive left-aligned fold.
    let longest = rows.iter().map(Vec::len).max().unwrap();
    let mut naive = vec![0.0f64; longest];
    for r in &rows {
        for (o, x) in naive.iter_mut().zip(r) {
            *o += x;
        }
    }
    let Value::List(got) = two else {
        panic!("a list")
    };
    assert_eq!(got.len(), longest);
    for (j, (g, w)) in got.iter().zip(&naive).enumerate() {
        let Value::Float(g) = g else {
            panic!("a float")
        };
        assert!(
            (g - w).abs() <= 1e-9 * w.abs().max(1.0),
            "position {j}: {g} vs {w}"
        );
    }
    // Integers across rows under two fixed dimensions: exact, per group.
    let ints = seeded_rows(2 * 40_000, |r, j| (r as i64 % 1000) - (j as i64) * 3);
    let ty = "2 * 40000 * var * int64".parse().unwrap();
    let halves: Vec<String> = ints.chunks(40_000).map(serde_json_rows).collect();
    let flat = format!("[{}]", halves.join(","));
    let b = Array::from_json(&flat, Some(&ty)).unwrap();
    let max = max_i64();
    let args = ReduceArgs {
        axes: Some(&[1]),
        initial: Some(i64::MIN),
        ..ReduceArgs::default()
    };
    let got = reduce(&b, &args, &max, "max").unwrap().to_value();
    assert_eq!(
        got,
        pool.install(|| reduce(&b, &args, &max, "max").unwrap().to_value())
    );
    let want: Vec<Value> = ints
        .chunks(40_000)
        .map(|c| {
            let longest = c.iter().map(Vec::len).max().unwrap();
            Value::List(
                (0..longest)
                    .map(|j| {
                        let m = c.iter().filter_map(|r| r.get(j)).copied().max().unwrap();
                        Value::Int(m.into())
                    })
                    .collect(),
            )
        })
        .collect();
    assert_eq!(got, Value::List(want));
}
