//! The common array functions over dense arrays: argmax/argmin, argsort,
//! sort, unique, searchsorted, count_nonzero, nonzero, concatenate,
//! stack, flip, repeat, tile, diff, linspace and arange, against the
//! values NumPy 2.x gives, written down as literal data.

use dynd_arrfunc::{
    argmax, argmin, argsort, builtins, concatenate, count_nonzero, diff, flip, linspace, nonzero,
    repeat, searchsorted, sort, stack, tile, unique, unique_counts, unique_index,
};
use dynd_kernels::{array, Array, Index};
use dynd_types::Type;

const NAN: f64 = f64::NAN;

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

#[test]
fn argmax_and_argmin_flat_along_an_axis_and_kept() {
    let x = array![[3.0, 9.0, 1.0], [9.0, 2.0, 7.0]];
    assert_eq!(show(argmax(&x, None, false)), "1 : int64");
    assert_eq!(show(argmin(&x, None, false)), "2 : int64");
    assert_eq!(show(argmax(&x, Some(0), false)), "[1, 0, 1] : 3 * int64");
    assert_eq!(show(argmax(&x, Some(1), false)), "[1, 0] : 2 * int64");
    assert_eq!(show(argmin(&x, Some(-1), false)), "[2, 1] : 2 * int64");
    assert_eq!(
        show(argmax(&x, Some(1), true)),
        "[[1], [0]] : 2 * 1 * int64"
    );
    assert_eq!(show(argmax(&x, None, true)), "[[1]] : 1 * 1 * int64");
    // A transposed view: its own C order.
    let t = x.transpose().unwrap();
    assert_eq!(show(argmax(&t, None, false)), "1 : int64");
    assert_eq!(show(argmax(&t, Some(1), false)), "[1, 0, 1] : 3 * int64");
}

#[test]
fn argmax_takes_the_first_of_ties_and_the_first_nan() {
    let f = |v: Vec<f64>| {
        let a = Array::from_vec(v);
        (show(argmax(&a, None, false)), show(argmin(&a, None, false)))
    };
    assert_eq!(
        f(vec![1.0, NAN, 5.0, NAN]),
        ("1 : int64".into(), "1 : int64".into())
    );
    assert_eq!(f(vec![-0.0, 0.0]), ("0 : int64".into(), "0 : int64".into()));
    assert_eq!(
        f(vec![5.0, 5.0, -1.0, -1.0]),
        ("0 : int64".into(), "2 : int64".into())
    );
    assert_eq!(
        f(vec![f64::NEG_INFINITY, f64::INFINITY]),
        ("1 : int64".into(), "0 : int64".into())
    );
    let i8s = arr("[-128, 127, 127, -128]", "4 * int8");
    assert_eq!(
        (
            show(argmax(&i8s, None, false)),
            show(argmin(&i8s, None, false))
        ),
        ("1 : int64".into(), "0 : int64".into())
    );
    let u = Array::from_vec(vec![u64::MAX, 0, u64::MAX]);
    assert_eq!(show(argmax(&u, None, false)), "0 : int64");
    assert_eq!(
        show(argmax(&array![false, true, true], None, false)),
        "1 : int64"
    );
    assert_eq!(
        show(argmax(&arr("[1, 3, 2]", "3 * float16"), None, false)),
        "1 : int64"
    );
}

#[test]
fn argmax_agrees_with_a_plain_scan_across_block_boundaries() {
    // Lengths around the 512-element blocks; maxima, ties and NaNs placed
    // anywhere.
    let mut s: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for n in [1usize, 2, 511, 512, 513, 1024, 1500, 2049] {
        for case in 0..12 {
            let mut v: Vec<f64> = (0..n).map(|_| (next() % 1000) as f64).collect();
            if case % 3 == 1 {
                let at = (next() as usize) % n;
                v[at] = NAN;
            }
            if case % 4 == 2 {
                let at = (next() as usize) % n;
                v[at] = 5000.0;
                v[(at + n / 2) % n] = 5000.0;
            }
            let plain_max = v.iter().position(|x| x.is_nan()).unwrap_or_else(|| {
                let mut b = 0;
                for (i, x) in v.iter().enumerate() {
                    if *x > v[b] {
                        b = i;
                    }
                }
                b
            });
            let plain_min = v.iter().position(|x| x.is_nan()).unwrap_or_else(|| {
                let mut b = 0;
                for (i, x) in v.iter().enumerate() {
                    if *x < v[b] {
                        b = i;
                    }
                }
                b
            });
            let a = Array::from_vec(v.clone());
            assert_eq!(
                argmax(&a, None, false).unwrap().get::<i64>(&[]).unwrap(),
                plain_max as i64,
                "n={n} case={case}"
            );
            assert_eq!(
                argmin(&a, None, false).unwrap().get::<i64>(&[]).unwrap(),
                plain_min as i64,
                "n={n} case={case}"
            );
            let ints = Array::from_vec(
                v.iter()
                    .map(|x| if x.is_nan() { 7 } else { *x as i32 })
                    .collect::<Vec<_>>(),
            );
            let want = ints.to_vec::<i32>().unwrap();
            let best = want
                .iter()
                .enumerate()
                .fold(0, |b, (i, x)| if *x > want[b] { i } else { b });
            assert_eq!(
                argmax(&ints, None, false).unwrap().get::<i64>(&[]).unwrap(),
                best as i64
            );
        }
    }
}

#[test]
fn argmax_errors_say_what_is_wrong() {
    let e = show(argmax(&Array::from_vec(Vec::<f64>::new()), None, false));
    assert!(
        e.starts_with("error: argmax: the array must be non-empty"),
        "{e}"
    );
    let e = show(argmax(
        &arr("[[], [], []]", "3 * 0 * int32"),
        Some(1),
        false,
    ));
    assert!(
        e.starts_with("error: argmax: the array must be non-empty"),
        "{e}"
    );
    // No rows at all is an empty result, as NumPy.
    assert_eq!(
        show(argmax(&arr("[[], []]", "2 * 0 * int32"), Some(0), false)),
        "[] : 0 * int64"
    );
    let e = show(argmax(
        &arr("[[1, 2]]", "1 * complex[float64]"),
        None,
        false,
    ));
    assert!(e.contains("no order"), "{e}");
    let e = show(argmax(&array![[1.0], [2.0, 3.0]], Some(0), false));
    assert!(e.contains("the last one (-1)"), "{e}");
    let e = show(argmax(&array![1, 2], Some(1), false));
    assert!(e.contains("axis"), "{e}");
    let e = show(argmax(&arr("[1, null]", "2 * ?int32"), None, false));
    assert!(e.contains("fill_na"), "{e}");
}

#[test]
fn argsort_is_stable_both_ways_with_nan_last() {
    let x = array![3, 1, 2, 1];
    assert_eq!(show(argsort(&x, -1, true)), "[1, 3, 2, 0] : 4 * int64");
    assert_eq!(show(argsort(&x, -1, false)), "[0, 2, 1, 3] : 4 * int64");
    let f = Array::from_vec(vec![NAN, 1.0, NAN, 0.0, -0.0, 0.0]);
    assert_eq!(show(argsort(&f, 0, true)), "[3, 4, 5, 1, 0, 2] : 6 * int64");
    assert_eq!(
        show(argsort(&f, 0, false)),
        "[1, 3, 4, 5, 0, 2] : 6 * int64"
    );
    let m = array![[3, 1], [2, 4]];
    assert_eq!(
        show(argsort(&m, 0, true)),
        "[[1, 0], [0, 1]] : 2 * 2 * int64"
    );
    assert_eq!(
        show(argsort(&m, 1, true)),
        "[[1, 0], [0, 1]] : 2 * 2 * int64"
    );
    assert_eq!(
        show(argsort(&arr("[[], []]", "2 * 0 * int8"), -1, true)),
        "[[], []] : 2 * 0 * int64"
    );
    assert_eq!(
        call(
            "argsort",
            &[&x],
            &[("ascending", &Array::from_scalar(false))]
        ),
        "[0, 2, 1, 3] : 4 * int64"
    );
}

#[test]
fn sort_ascending_or_descending_nan_last_ragged_rows_each() {
    let f = Array::from_vec(vec![NAN, 1.0, f64::NEG_INFINITY, 3.0]);
    assert_eq!(
        show(sort(&f, -1, true)),
        "[-Infinity, 1, 3, NaN] : 4 * float64"
    );
    assert_eq!(
        show(sort(&f, -1, false)),
        "[3, 1, -Infinity, NaN] : 4 * float64"
    );
    assert_eq!(
        show(sort(&array![[3, 1], [2, 0]], 0, true)),
        "[[2, 0], [3, 1]] : 2 * 2 * int64"
    );
    assert_eq!(
        show(sort(&array![[3, 1], [], [2]], 1, true)),
        "[[1, 3], [], [2]] : 3 * var * int64"
    );
    // The builtin, and `sorted` under its older keyword.
    let x = array![2, 3, 1];
    assert_eq!(
        call("sort", &[&x], &[("ascending", &Array::from_scalar(false))]),
        "[3, 2, 1] : 3 * int64"
    );
    assert_eq!(
        call("sorted", &[&x], &[("reverse", &Array::from_scalar(true))]),
        "[3, 2, 1] : 3 * int64"
    );
    // The input is not changed.
    assert_eq!(x.to_string(), "[2, 3, 1]");
}

#[test]
fn unique_values_counts_and_first_indexes() {
    assert_eq!(
        show(unique(&array![[2, 1], [2, 5]])),
        "[1, 2, 5] : 3 * int64"
    );
    assert_eq!(
        show(unique(&Array::from_vec(vec![NAN, 1.0, NAN, 0.0]))),
        "[0, 1, NaN] : 3 * float64"
    );
    let z = unique(&Array::from_vec(vec![0.0, -0.0, 0.0]))
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert_eq!((z.len(), z[0]), (1, 0.0));
    assert_eq!(
        show(unique(&array![true, false, true])),
        "[false, true] : 2 * bool"
    );
    assert_eq!(
        show(unique(&Array::from_vec(Vec::<i16>::new()))),
        "[] : 0 * int16"
    );
    let (v, c) = unique_counts(&array![2, 1, 2, 5, 2]).unwrap();
    assert_eq!(
        (v.to_string(), c.to_string()),
        ("[1, 2, 5]".into(), "[1, 3, 1]".into())
    );
    let (v, i) = unique_index(&array![[2, 1], [2, 5]]).unwrap();
    assert_eq!(
        (v.to_string(), i.to_string()),
        ("[1, 2, 5]".into(), "[1, 0, 3]".into())
    );
    let (v, i) = unique_index(&Array::from_vec(vec![NAN, 3.0, NAN])).unwrap();
    assert_eq!(
        (v.to_string(), i.to_string()),
        ("[3, NaN]".into(), "[1, 0]".into())
    );
    assert!(show(unique(&arr("[[1, 2]]", "1 * complex[float32]"))).contains("no order"));
}

#[test]
fn searchsorted_left_and_right_with_promotion_and_nan() {
    let a = array![1, 3, 5];
    assert_eq!(
        show(searchsorted(&a, &array![0, 3, 6], false)),
        "[0, 1, 3] : 3 * int64"
    );
    assert_eq!(
        show(searchsorted(&a, &array![0, 3, 6], true)),
        "[0, 2, 3] : 3 * int64"
    );
    let d = array![1, 2, 2, 2, 3];
    assert_eq!(show(searchsorted(&d, &array![2], false)), "[1] : 1 * int64");
    assert_eq!(show(searchsorted(&d, &array![2], true)), "[4] : 1 * int64");
    assert_eq!(
        show(searchsorted(&a, &array![[2.5], [5.0]], false)),
        "[[1], [2]] : 2 * 1 * int64"
    );
    let f = Array::from_vec(vec![1.0, 2.0, NAN]);
    let v = Array::from_vec(vec![NAN, f64::INFINITY]);
    assert_eq!(show(searchsorted(&f, &v, false)), "[2, 2] : 2 * int64");
    assert_eq!(show(searchsorted(&f, &v, true)), "[3, 2] : 2 * int64");
    let e = show(searchsorted(&array![[1, 2]], &array![1], false));
    assert!(e.contains("1-dimensional"), "{e}");
    let side = Array::from_value(&dynd_kernels::Value::Str("middle".into()), None).unwrap();
    let e = call("searchsorted", &[&a, &array![1]], &[("side", &side)]);
    assert!(
        e.contains("side must be 'left' or 'right', not middle"),
        "{e}"
    );
}

#[test]
fn count_nonzero_and_nonzero() {
    let m = array![[0, 1, 2], [0, 0, 3]];
    assert_eq!(show(count_nonzero(&m, None)), "3 : int64");
    assert_eq!(show(count_nonzero(&m, Some(0))), "[0, 1, 2] : 3 * int64");
    assert_eq!(show(count_nonzero(&m, Some(1))), "[2, 1] : 2 * int64");
    assert_eq!(
        show(count_nonzero(
            &Array::from_vec(vec![0.0, -0.0, NAN, 2.0]),
            None
        )),
        "2 : int64"
    );
    assert_eq!(
        show(count_nonzero(
            &arr("[[0, 0], [0, 1], [0, -0.0]]", "3 * complex[float64]"),
            None
        )),
        "1 : int64"
    );
    let parts = nonzero(&array![[0, 1], [2, 0]]).unwrap();
    let parts: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
    assert_eq!(parts, ["[0, 1]", "[1, 0]"]);
    assert_eq!(
        call("nonzero", &[&array![[0, 1], [2, 0]]], &[]),
        "[[0, 1], [1, 0]] : 2 * 2 * int64"
    );
    assert_eq!(
        call("nonzero", &[&array![false, false]], &[]),
        "[[]] : 1 * 0 * int64"
    );
}

#[test]
fn concatenate_and_stack_promote_and_check_shapes() {
    let (a, b) = (array![[1, 2]], array![[3.5, 4.0]]);
    assert_eq!(
        show(concatenate(&[&a, &b], 0)),
        "[[1, 2], [3.5, 4]] : 2 * 2 * float64"
    );
    assert_eq!(
        show(concatenate(&[&a, &array![[3]]], 1)),
        "[[1, 2, 3]] : 1 * 3 * int64"
    );
    assert_eq!(
        show(concatenate(
            &[&arr("[-1]", "1 * int8"), &arr("[200]", "1 * uint8")],
            0
        )),
        "[-1, 200] : 2 * int16"
    );
    assert_eq!(
        show(concatenate(&[&array![1], &array![2, 3], &array![4]], -1)),
        "[1, 2, 3, 4] : 4 * int64"
    );
    assert_eq!(
        show(concatenate(
            &[&arr("[1, null]", "2 * ?int64"), &array![2]],
            0
        )),
        "[1, null, 2] : 3 * ?int64"
    );
    // A reversed view goes through the general path.
    let rev = array![1, 2, 3]
        .index(&[Index::slice(None, None, -1)])
        .unwrap();
    assert_eq!(
        show(concatenate(&[&rev, &array![9]], 0)),
        "[3, 2, 1, 9] : 4 * int64"
    );
    let e = show(concatenate(&[&array![[1, 2]], &array![[1, 2, 3]]], 0));
    assert!(e.contains("equal except along the axis"), "{e}");
    assert!(show(concatenate(&[], 0)).contains("at least one"));
    assert!(show(concatenate(&[&Array::from_scalar(1)], 0)).contains("at least 1-dimensional"));
    assert_eq!(
        show(stack(&[&array![1, 2], &array![3, 4]], 0)),
        "[[1, 2], [3, 4]] : 2 * 2 * int64"
    );
    assert_eq!(
        show(stack(&[&array![1, 2], &array![3, 4]], -1)),
        "[[1, 3], [2, 4]] : 2 * 2 * int64"
    );
    assert_eq!(
        show(stack(
            &[&Array::from_scalar(1), &Array::from_scalar(2.5)],
            0
        )),
        "[1, 2.5] : 2 * float64"
    );
    assert!(show(stack(&[&array![1], &array![1, 2]], 0)).contains("all equal"));
    // The builtins take the arrays as positional arguments.
    let ax = Array::from_scalar(1i64);
    assert_eq!(
        call("concatenate", &[&a, &a, &a], &[("axis", &ax)]),
        "[[1, 2, 1, 2, 1, 2]] : 1 * 6 * int64"
    );
    assert_eq!(
        call("stack", &[&array![1], &array![2]], &[]),
        "[[1], [2]] : 2 * 1 * int64"
    );
}

#[test]
fn flip_repeat_tile() {
    let x = array![1, 2, 3];
    let f = flip(&x, None).unwrap();
    assert_eq!(f.to_string(), "[3, 2, 1]");
    assert_eq!(f.data_block().as_ptr(), x.data_block().as_ptr(), "a view");
    let m = array![[1, 2], [3, 4]];
    assert_eq!(show(flip(&m, Some(0))), "[[3, 4], [1, 2]] : 2 * 2 * int64");
    assert_eq!(show(flip(&m, Some(-1))), "[[2, 1], [4, 3]] : 2 * 2 * int64");
    assert_eq!(show(flip(&m, None)), "[[4, 3], [2, 1]] : 2 * 2 * int64");
    assert_eq!(
        show(repeat(&array![1, 2], &[2], None)),
        "[1, 1, 2, 2] : 4 * int64"
    );
    assert_eq!(
        show(repeat(&m, &[1, 2], Some(0))),
        "[[1, 2], [3, 4], [3, 4]] : 3 * 2 * int64"
    );
    assert_eq!(
        show(repeat(&m, &[2], None)),
        "[1, 1, 2, 2, 3, 3, 4, 4] : 8 * int64"
    );
    assert_eq!(show(repeat(&m, &[0], Some(1))), "[[], []] : 2 * 0 * int64");
    assert!(show(repeat(&m, &[-1], None)).contains("at least 0"));
    // Counts past memory are an allocation error, not an abort.
    assert!(show(repeat(&m, &[i64::MAX], None)).contains("cannot allocate"));
    assert!(show(tile(&m, &[i64::MAX, 3])).contains("cannot allocate"));
    assert!(show(repeat(&m, &[1, 2, 3], Some(0))).contains("one per element"));
    assert_eq!(show(tile(&array![1, 2], &[2])), "[1, 2, 1, 2] : 4 * int64");
    assert_eq!(
        show(tile(&array![1, 2], &[2, 2])),
        "[[1, 2, 1, 2], [1, 2, 1, 2]] : 2 * 4 * int64"
    );
    assert_eq!(
        show(tile(&m, &[2])),
        "[[1, 2, 1, 2], [3, 4, 3, 4]] : 2 * 4 * int64"
    );
    assert_eq!(show(tile(&m, &[0])), "[[], []] : 2 * 0 * int64");
    assert_eq!(
        call("repeat", &[&array![7, 8], &array![1, 3]], &[]),
        "[7, 8, 8, 8] : 4 * int64"
    );
    assert_eq!(
        call("tile", &[&array![7], &array![2, 1]], &[]),
        "[[7], [7]] : 2 * 1 * int64"
    );
    assert_eq!(
        call("flip", &[&m], &[("axis", &Array::from_scalar(0i64))]),
        "[[3, 4], [1, 2]] : 2 * 2 * int64"
    );
}

#[test]
fn diff_linspace_arange() {
    assert_eq!(
        show(diff(&array![1, 4, 9, 16], 1, -1)),
        "[3, 5, 7] : 3 * int64"
    );
    assert_eq!(
        show(diff(&array![1, 4, 9, 16], 2, -1)),
        "[2, 2] : 2 * int64"
    );
    assert_eq!(show(diff(&array![1, 4], 0, -1)), "[1, 4] : 2 * int64");
    assert_eq!(show(diff(&array![1, 4], 3, -1)), "[] : 0 * int64");
    assert_eq!(show(diff(&array![1, 4], usize::MAX, -1)), "[] : 0 * int64");
    assert_eq!(
        show(diff(&array![[1, 2], [4, 8]], 1, 0)),
        "[[3, 6]] : 1 * 2 * int64"
    );
    assert_eq!(
        show(diff(&array![true, true, false], 1, 0)),
        "[false, true] : 2 * bool"
    );
    assert_eq!(
        show(diff(&arr("[5, 3]", "2 * uint8"), 1, 0)),
        "[254] : 1 * uint8"
    );
    assert_eq!(
        show(linspace(0.0, 1.0, 5, true)),
        "[0, 0.25, 0.5, 0.75, 1] : 5 * float64"
    );
    assert_eq!(
        show(linspace(0.0, 1.0, 4, false)),
        "[0, 0.25, 0.5, 0.75] : 4 * float64"
    );
    assert_eq!(
        show(linspace(0.0, 1.0, 3, true)),
        "[0, 0.5, 1] : 3 * float64"
    );
    assert_eq!(show(linspace(2.0, 3.0, 1, true)), "[2] : 1 * float64");
    assert_eq!(show(linspace(2.0, 3.0, 0, true)), "[] : 0 * float64");
    assert_eq!(show(linspace(1.0, 1.0, 3, true)), "[1, 1, 1] : 3 * float64");
    // The last value is `stop` exactly.
    let v = linspace(0.1, 0.7, 7, true)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert_eq!(v[6], 0.7);
    assert_eq!(
        call(
            "linspace",
            &[&Array::from_scalar(0i64), &Array::from_scalar(10i64)],
            &[("num", &Array::from_scalar(3i64))]
        ),
        "[0, 5, 10] : 3 * float64"
    );
    assert_eq!(
        call("arange", &[&Array::from_scalar(4i64)], &[]),
        "[0, 1, 2, 3] : 4 * int64"
    );
    assert!(call(
        "linspace",
        &[&Array::from_scalar(0i64), &Array::from_scalar(1i64)],
        &[("num", &Array::from_scalar(-1i64))]
    )
    .contains("at least 0"));
}
