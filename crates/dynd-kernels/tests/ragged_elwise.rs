//! The ragged fast paths of elementwise operations (rows as one flat run,
//! rows with a value per row, per-row calls) against the general kernel
//! path, which checks and walks every row on its own: a fallible leaf
//! never takes the fast paths, so a leaf returning `Result` is an independent reference.
//!
//! Random outer shapes (0 to 2 fixed dimensions), rows of length 0 to 4,
//! operands that are separate arrays with the same lengths, arrays whose
//! rows differ in exactly one row, rows of length 1 that broadcast, a value
//! per row (`N * 1`), 0-d scalars, fixed last dimensions, and views with
//! negative steps over the rows and over the outer dimension.

use dynd_kernels::elwise::{apply, F64Op, Leaf};
use dynd_kernels::{Array, Index};

use crate::harness;

use harness::Rng;

/// A JSON list of rows of the given lengths under the outer shape.
fn rows_json(shape: &[usize], lens: &mut dyn FnMut() -> usize, rng: &mut Rng) -> String {
    match shape.split_first() {
        None => {
            let n = lens();
            let xs: Vec<String> = (0..n).map(|_| format!("{}", rng.below(100))).collect();
            format!("[{}]", xs.join(", "))
        }
        Some((&n, rest)) => {
            let xs: Vec<String> = (0..n).map(|_| rows_json(rest, lens, rng)).collect();
            format!("[{}]", xs.join(", "))
        }
    }
}

fn ty(shape: &[usize], last: &str) -> String {
    let mut t: String = shape.iter().map(|n| format!("{n} * ")).collect();
    t.push_str(last);
    t.push_str(" * float64");
    t
}

/// One operand for a result of outer shape `shape` whose rows have lengths
/// `lens`, described for the log.
fn operand(rng: &mut Rng, shape: &[usize], lens: &[usize]) -> (Array, String) {
    let kind = rng.below(8);
    let mut it = lens.iter().copied();
    match kind {
        // The same lengths, a separate array.
        0..=2 => {
            let json = rows_json(shape, &mut || it.next().unwrap_or(0), rng);
            let a = Array::from_json(&json, Some(&ty(shape, "var").parse().unwrap())).unwrap();
            (a, format!("same lengths {json}"))
        }
        // The same lengths but one row longer (or rows of length 1).
        3 => {
            let bump = rng.below(lens.len().max(1));
            let ones = rng.below(2) == 0;
            let mut i = 0;
            let json = rows_json(
                shape,
                &mut || {
                    let n = it.next().unwrap_or(0);
                    i += 1;
                    if ones && rng_free_pick(i) {
                        1
                    } else if i - 1 == bump {
                        n + 1
                    } else {
                        n
                    }
                },
                rng,
            );
            let a = Array::from_json(&json, Some(&ty(shape, "var").parse().unwrap())).unwrap();
            (a, format!("altered lengths {json}"))
        }
        // A value per row.
        4 => {
            let json = rows_json(shape, &mut || 1, rng);
            let a = Array::from_json(&json, Some(&ty(shape, "1").parse().unwrap())).unwrap();
            (a, format!("per row {json}"))
        }
        // A 0-d scalar.
        5 => (Array::from_scalar(rng.below(10) as f64), "scalar".into()),
        // The rows reversed: a view with a negative step over each row.
        6 => {
            let json = rows_json(shape, &mut || it.next().unwrap_or(0), rng);
            let a = Array::from_json(&json, Some(&ty(shape, "var").parse().unwrap())).unwrap();
            let mut idx: Vec<Index> = shape.iter().map(|_| Index::slice(None, None, 1)).collect();
            idx.push(Index::slice(None, None, -1));
            (a.index(&idx).unwrap(), format!("reversed rows of {json}"))
        }
        // The outer dimension reversed, over rows of the reversed lengths.
        _ => {
            if shape.is_empty() {
                return (Array::from_scalar(1.0f64), "scalar".into());
            }
            let inner: usize = shape[1..].iter().product();
            let mut rev: Vec<usize> = Vec::new();
            for block in lens.chunks(inner.max(1)).rev() {
                rev.extend_from_slice(block);
            }
            let mut it = rev.into_iter();
            let json = rows_json(shape, &mut || it.next().unwrap_or(0), rng);
            let a = Array::from_json(&json, Some(&ty(shape, "var").parse().unwrap())).unwrap();
            (
                a.index(&[Index::slice(None, None, -1)]).unwrap(),
                format!("outer reversed {json}"),
            )
        }
    }
}

/// Every other row, for the "rows of length 1" variant.
fn rng_free_pick(i: usize) -> bool {
    i.is_multiple_of(2)
}

#[test]
fn ragged_fast_paths_match_the_kernel_path() {
    let fast2 = Leaf::map(|x: f64, y: f64| x * 10.0 + y);
    let slow2 = Leaf::map(|x: f64, y: f64| Ok::<f64, String>(x * 10.0 + y));
    let fast3 = Leaf::map(|x: f64, y: f64, z: f64| x * 100.0 + y * 10.0 + z);
    let slow3 = Leaf::map(|x: f64, y: f64, z: f64| Ok::<f64, String>(x * 100.0 + y * 10.0 + z));
    let mut rng = Rng(0x7a99_ed00);
    let (mut ok, mut errors) = (0, 0);
    // 3000 cases, or `DYND_ROBUST_CASES` (fewer under valgrind).
    let cases: usize = std::env::var("DYND_ROBUST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3000);
    for case in 0..cases {
        let ndim = rng.below(3);
        let shape: Vec<usize> = (0..ndim).map(|_| rng.below(4)).collect();
        let rows: usize = shape.iter().product();
        let lens: Vec<usize> = (0..rows).map(|_| rng.below(5)).collect();
        let nargs = 2 + rng.below(2);
        // At least one operand with rows, so the result is ragged.
        let json = rows_json(
            &shape,
            &mut {
                let mut it = lens.clone().into_iter();
                move || it.next().unwrap_or(0)
            },
            &mut rng,
        );
        let first = Array::from_json(&json, Some(&ty(&shape, "var").parse().unwrap())).unwrap();
        let mut args = vec![(first, format!("same lengths {json}"))];
        for _ in 1..nargs {
            args.push(operand(&mut rng, &shape, &lens));
        }
        // The ragged operand in a random position.
        let at = rng.below(nargs);
        args.swap(0, at);
        let refs: Vec<&Array> = args.iter().map(|(a, _)| a).collect();
        let (fast, slow) = if nargs == 2 {
            (&fast2, &slow2)
        } else {
            (&fast3, &slow3)
        };
        let got = apply(&refs, fast);
        let want = apply(&refs, slow);
        let log = || {
            let ops: Vec<&str> = args.iter().map(|(_, d)| d.as_str()).collect();
            format!("case {case}: shape {shape:?}, operands {ops:#?}")
        };
        // The plain float64 operations take loops of their own (a
        // segmented loop, a loop per row): each against the kernel path.
        if nargs == 2 {
            for op in [
                F64Op::Add,
                F64Op::Sub,
                F64Op::Mul,
                F64Op::Div,
                F64Op::Maximum,
                F64Op::Minimum,
            ] {
                let got = apply(&refs, &Leaf::f64_op(op));
                let want = apply(
                    &refs,
                    &Leaf::map(move |x: f64, y: f64| Ok::<f64, String>(op.apply(x, y))),
                );
                match (got, want) {
                    (Ok(g), Ok(w)) => {
                        assert_eq!(g.ty(), w.ty(), "{op:?}: {}", log());
                        assert_eq!(g.to_json(), w.to_json(), "{op:?}: {}", log());
                    }
                    (Err(g), Err(w)) => {
                        assert_eq!(g.to_string(), w.to_string(), "{op:?}: {}", log())
                    }
                    (g, w) => panic!("{op:?}: {}: fast {g:?}, kernel path {w:?}", log()),
                }
            }
        }
        match (got, want) {
            (Ok(g), Ok(w)) => {
                assert_eq!(g.ty(), w.ty(), "{}", log());
                assert_eq!(g.to_json(), w.to_json(), "{}", log());
                ok += 1;
            }
            (Err(g), Err(w)) => {
                assert_eq!(g.to_string(), w.to_string(), "{}", log());
                errors += 1;
            }
            (g, w) => panic!("{}: fast {g:?}, kernel path {w:?}", log()),
        }
    }
    // Both outcomes well represented (a third results, a thirtieth errors
    // at least).
    assert!(
        ok > cases / 3 && errors > cases / 30,
        "{ok} results, {errors} errors"
    );
}

#[test]
fn rows_that_differ_in_one_row_do_not_run_flat() {
    let x = Array::from_json(
        "[[1, 2], [3], [4, 5, 6]]",
        Some(&"3 * var * float64".parse().unwrap()),
    )
    .unwrap();
    let y = Array::from_json(
        "[[10, 20], [30, 31], [40, 50, 60]]",
        Some(&"3 * var * float64".parse().unwrap()),
    )
    .unwrap();
    let add = Leaf::map(|a: f64, b: f64| a + b);
    // Row 1 has length 1 in `x`: it broadcasts.
    let r = apply(&[&x, &y], &add).unwrap();
    assert_eq!(r.to_string(), "[[11, 22], [33, 34], [44, 55, 66]]");
    let z = Array::from_json(
        "[[10, 20], [30, 31, 32], [40, 50, 60]]",
        Some(&"3 * var * float64".parse().unwrap()),
    )
    .unwrap();
    let e = apply(&[&y, &z], &add).unwrap_err();
    assert_eq!(
        e.to_string(),
        "a ragged row of length 3 cannot broadcast to length 2, at index [1]"
    );
}

#[test]
fn results_share_their_operands_row_pairs() {
    let x = Array::from_json(
        "[[1, 2], [], [3, 4, 5]]",
        Some(&"3 * var * float64".parse().unwrap()),
    )
    .unwrap();
    let y = Array::from_json(
        "[[1, 1], [], [2, 2, 2]]",
        Some(&"3 * var * float64".parse().unwrap()),
    )
    .unwrap();
    let add = Leaf::map(|a: f64, b: f64| a + b);
    let r = apply(&[&x, &y], &add).unwrap();
    assert_eq!(r.to_string(), "[[2, 3], [], [5, 6, 7]]");
    // The pairs of `x` (its data block) are the result's.
    assert!(std::sync::Arc::ptr_eq(r.data_block(), x.data_block()));
    // A value per row: still shared.
    let per = Array::from_json(
        "[[10], [20], [30]]",
        Some(&"3 * 1 * float64".parse().unwrap()),
    )
    .unwrap();
    let r = apply(&[&per, &x], &add).unwrap();
    assert_eq!(r.to_string(), "[[11, 12], [], [33, 34, 35]]");
    assert!(std::sync::Arc::ptr_eq(r.data_block(), x.data_block()));
}

/// Rows longer than the spread's short-row stores and than its blocks,
/// values per row of each element size, and per-row values of two sizes
/// (spread byte by byte).
#[test]
fn long_rows_and_every_size_match_the_kernel_path() {
    let lens = [0usize, 17, 1500, 3, 2100, 16, 1024, 1025, 1, 0, 40];
    let rows: Vec<String> = lens
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let xs: Vec<String> = (0..n).map(|j| ((i * 31 + j) % 97).to_string()).collect();
            format!("[{}]", xs.join(","))
        })
        .collect();
    let json = format!("[{}]", rows.join(","));
    let n = lens.len();
    let per = |t: &str| {
        let xs: Vec<String> = (0..n).map(|i| format!("[{}]", i % 5)).collect();
        Array::from_json(
            &format!("[{}]", xs.join(",")),
            Some(&format!("{n} * 1 * {t}").parse().unwrap()),
        )
        .unwrap()
    };
    macro_rules! case {
        ($t:ty, $name:literal) => {{
            let x = Array::from_json(
                &json,
                Some(&format!("{n} * var * {}", $name).parse().unwrap()),
            )
            .unwrap();
            let y = Array::from_json(
                &json,
                Some(&format!("{n} * var * {}", $name).parse().unwrap()),
            )
            .unwrap();
            let p = per($name);
            let fast = Leaf::map(|a: $t, b: $t, c: $t| a.wrapping_add(b).wrapping_add(c));
            let slow = Leaf::map(|a: $t, b: $t, c: $t| {
                Ok::<$t, String>(a.wrapping_add(b).wrapping_add(c))
            });
            for args in [[&p, &x, &y], [&x, &p, &y], [&x, &y, &p]] {
                let got = apply(&args, &fast).unwrap();
                assert_eq!(
                    got.to_json(),
                    apply(&args, &slow).unwrap().to_json(),
                    "{}",
                    $name
                );
            }
        }};
    }
    case!(u8, "uint8");
    case!(i16, "int16");
    case!(i32, "int32");
    case!(i64, "int64");
    case!(u128, "uint128");
    // Two per-row operands of different sizes.
    let x = Array::from_json(
        &json,
        Some(&format!("{n} * var * float64").parse().unwrap()),
    )
    .unwrap();
    let (pi, pf) = (per("int32"), per("float64"));
    let fast = Leaf::map(|a: i32, b: f64, c: f64| a as f64 * 1000.0 + b * 10.0 + c);
    let slow =
        Leaf::map(|a: i32, b: f64, c: f64| Ok::<f64, String>(a as f64 * 1000.0 + b * 10.0 + c));
    let got = apply(&[&pi, &pf, &x], &fast).unwrap();
    assert_eq!(
        got.to_json(),
        apply(&[&pi, &pf, &x], &slow).unwrap().to_json()
    );
}

/// Enough rows for several units on several threads (and the parallel
/// check of where each unit starts), with one row changed at the end.
#[test]
fn many_rows_in_parallel_match_the_kernel_path() {
    let mut rng = Rng(42);
    let lens: Vec<usize> = (0..40_000).map(|_| rng.below(12)).collect();
    let mk = |lens: &[usize], seed: usize| {
        let rows: Vec<String> = lens
            .iter()
            .enumerate()
            .map(|(i, &n)| {
                let xs: Vec<String> = (0..n).map(|j| ((i + j + seed) % 89).to_string()).collect();
                format!("[{}]", xs.join(","))
            })
            .collect();
        Array::from_json(
            &format!("[{}]", rows.join(",")),
            Some(&format!("{} * var * float64", lens.len()).parse().unwrap()),
        )
        .unwrap()
    };
    let (x, y) = (mk(&lens, 0), mk(&lens, 7));
    let per = Array::from_shape_vec(
        &[lens.len(), 1],
        (0..lens.len()).map(|i| i as f64).collect(),
    )
    .unwrap();
    let fast = Leaf::map(|a: f64, b: f64| a * 3.0 + b);
    let slow = Leaf::map(|a: f64, b: f64| Ok::<f64, String>(a * 3.0 + b));
    for args in [[&x, &y], [&per, &x], [&y, &per]] {
        assert_eq!(
            apply(&args, &fast).unwrap().to_json(),
            apply(&args, &slow).unwrap().to_json()
        );
    }
    // The last row one longer: an error, the same either way.
    let mut other = lens.clone();
    *other.last_mut().unwrap() = 20;
    let z = mk(&other, 1);
    let (e1, e2) = (
        apply(&[&x, &z], &fast).unwrap_err(),
        apply(&[&x, &z], &slow).unwrap_err(),
    );
    assert_eq!(e1.to_string(), e2.to_string());
}
