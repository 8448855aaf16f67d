//! Elementwise kernels over several inputs: broadcasting, ragged rows,
//! merged loops, errors, and a naive reference.

use dynd_kernels::elwise::{apply, map1, map2, Leaf};
use dynd_kernels::ArrayOps;
use dynd_kernels::{array, Array, Error, Index};
use proptest::prelude::*;

#[test]
fn broadcasting_shapes() {
    let cases: &[(Array, Array, &str, &str)] = &[
        (
            array![1.0, 2.0, 3.0],
            array![10.0],
            "[11, 12, 13]",
            "3 * float64",
        ),
        (
            array![[1.0], [2.0]],
            array![10.0, 20.0, 30.0],
            "[[11, 21, 31], [12, 22, 32]]",
            "2 * 3 * float64",
        ),
        (
            array![[1.0, 2.0]],
            array![[10.0], [20.0]],
            "[[11, 12], [21, 22]]",
            "2 * 2 * float64",
        ),
        (
            Array::from_scalar(1.5f64),
            array![[1.0, 2.0], [3.0, 4.0]],
            "[[2.5, 3.5], [4.5, 5.5]]",
            "2 * 2 * float64",
        ),
        (
            array![[1.0], [2.0, 3.0]],
            array![[10.0, 20.0], [30.0, 40.0]],
            "[[11, 21], [32, 43]]",
            "2 * 2 * float64",
        ),
    ];
    for (a, b, value, ty) in cases {
        let r = map2(a, b, |x: f64, y: f64| x + y).unwrap();
        assert_eq!(
            (r.to_string().as_str(), r.ty().to_string().as_str()),
            (*value, *ty)
        );
    }
}

#[test]
fn errors() {
    let err = map2(
        &array![1.0, 2.0],
        &array![1.0, 2.0, 3.0],
        |x: f64, y: f64| x + y,
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("cannot broadcast dimension 0"),
        "{err}"
    );
    let err = map2(
        &array![[1.0, 2.0, 3.0], [4.0]],
        &array![[1.0, 2.0], [3.0, 4.0]],
        |x: f64, y: f64| x + y,
    )
    .unwrap_err();
    assert_eq!(
        err.to_string(),
        "a ragged row of length 3 cannot broadcast to length 2, at index [0]"
    );
    let err = map2(&array![1, 2], &array![1.0, 2.0], |x: f64, y: f64| x + y).unwrap_err();
    assert_eq!(
        err.to_string(),
        "argument 0 has data type int64, but the function takes float64"
    );
    let r = map1(&array![[1.0], [2.0, 3.0]], |x: f64| x * 2.0).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[[2], [4, 6]]".to_string(), "2 * var * float64".to_string())
    );
    let err = map1(&array!["a"], |x: f64| x).unwrap_err();
    assert!(matches!(err, Error::ArgumentType { arg: 0, .. }), "{err}");
    assert_eq!(
        err.to_string(),
        "argument 0 has data type string, but the function takes float64"
    );
}

#[test]
fn merged_loops_report_original_indexes() {
    let a = Array::from_shape_vec(&[3, 4], (0..12).map(f64::from).collect()).unwrap();
    let mut out = Array::zeros(&"3 * 4 * int32".parse().unwrap()).unwrap();
    out.apply_into(&[&a], &Leaf::map(|x: f64| x as i32 * 2))
        .unwrap();
    assert_eq!(
        out.to_vec::<i32>().unwrap(),
        (0..12).map(|i| i * 2).collect::<Vec<_>>()
    );
    // map into a strided view of the output's own type works through views of the input.
    let t = a.transpose().unwrap();
    let r = map1(&t, |x: f64| x + 0.5).unwrap();
    assert_eq!(r.get::<f64>(&[3, 2]).unwrap(), 11.5);
}

proptest! {
    #[test]
    fn map2_matches_a_naive_loop(rows in 1usize..9, cols in 1usize..9, b_is_row in any::<bool>(), reverse in any::<bool>()) {
        let a = Array::from_shape_vec(&[rows, cols], (0..rows * cols).map(|i| i as f64).collect()).unwrap();
        let a = if reverse { a.index(&[Index::slice(None, None, -1), Index::slice(None, None, -1)]).unwrap() } else { a };
        let b = if b_is_row {
            Array::from_vec((0..cols).map(|i| i as f64 * 10.0).collect())
        } else {
            Array::from_shape_vec(&[rows, 1], (0..rows).map(|i| i as f64 * 10.0).collect()).unwrap()
        };
        let r = map2(&a, &b, |x: f64, y: f64| x * 2.0 + y).unwrap();
        for i in 0..rows {
            for j in 0..cols {
                let x = a.get::<f64>(&[i, j]).unwrap();
                let y = if b_is_row { b.get::<f64>(&[j]).unwrap() } else { b.get::<f64>(&[i, 0]).unwrap() };
                prop_assert_eq!(r.get::<f64>(&[i, j]).unwrap(), x * 2.0 + y);
            }
        }
    }
}

#[test]
fn a_transposed_operand_runs_in_tiles_and_is_exact() {
    let (r, c) = (100usize, 70usize);
    let a = Array::from_shape_vec(&[r, c], (0..r * c).map(|i| i as f64).collect()).unwrap();
    let b = Array::from_shape_vec(&[c, r], (0..r * c).map(|i| (i * 7) as f64).collect())
        .unwrap()
        .transpose()
        .unwrap();
    let sum = map2(&a, &b, |x: f64, y: f64| x + y).unwrap();
    for i in 0..r {
        for j in 0..c {
            let want = a.get::<f64>(&[i, j]).unwrap() + b.get::<f64>(&[i, j]).unwrap();
            assert_eq!(sum.get::<f64>(&[i, j]).unwrap(), want);
        }
    }
}

#[test]
fn large_runs_split_across_threads_with_the_same_result() {
    let n = dynd_kernels::elwise::PARALLEL_MIN * 3 + 7;
    let a = Array::from_vec((0..n).map(|i| i as f64).collect::<Vec<_>>());
    let b = Array::from_scalar(0.5f64);
    let parallel = map2(&a, &b, |x: f64, y: f64| x * y + 1.0).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let serial = pool.install(|| map2(&a, &b, |x: f64, y: f64| x * y + 1.0).unwrap());
    let (p, s) = (
        parallel.as_slice::<f64>().unwrap(),
        serial.as_slice::<f64>().unwrap(),
    );
    assert_eq!(p, s);
    assert!(p
        .iter()
        .enumerate()
        .all(|(i, v)| *v == i as f64 * 0.5 + 1.0));
    // Into a given output, too.
    let mut out = Array::from_vec(vec![0.0f64; n]);
    out.apply_into(&[&a, &b], &Leaf::map(|x: f64, y: f64| x - y))
        .unwrap();
    assert_eq!(out.as_slice::<f64>().unwrap()[n - 1], (n - 1) as f64 - 0.5);
}

/// Checks `f(a, b)` elementwise against a naive loop over `get`.
fn check_2d<A, B, R>(a: &Array, b: &Array, f: fn(A, B) -> R)
where
    A: dynd_kernels::Element,
    B: dynd_kernels::Element,
    R: dynd_kernels::Element,
{
    let got = map2(a, b, f).unwrap();
    let shape: Vec<usize> = got.ty().fixed_shape().unwrap();
    for i in 0..shape[0] {
        for j in 0..shape[1] {
            let want = f(a.get::<A>(&[i, j]).unwrap(), b.get::<B>(&[i, j]).unwrap());
            assert_eq!(got.get::<R>(&[i, j]).unwrap(), want, "at ({i}, {j})");
        }
    }
}

#[test]
fn transposed_operands_of_every_element_size_through_strips_and_tiles() {
    // Sizes past two tiles in both loops (so the loops run blocked), not
    // multiples of the tile, and one past the parallel threshold.
    for (r, c) in [(97usize, 131usize), (70, 66), (400, 400)] {
        let n = r * c;
        let t8 = Array::from_shape_vec(&[c, r], (0..n).map(|i| (i % 251) as i8).collect()).unwrap();
        let c8 = Array::from_shape_vec(&[r, c], (0..n).map(|i| (i % 13) as i8).collect()).unwrap();
        check_2d(&c8, &t8.transpose().unwrap(), |x: i8, y: i8| {
            x.wrapping_add(y)
        });
        let t16 = Array::from_shape_vec(&[c, r], (0..n).map(|i| i as i16).collect()).unwrap();
        check_2d(&t16.transpose().unwrap(), &c8, |x: i16, y: i8| {
            x.wrapping_mul(y as i16)
        });
        let t32 = Array::from_shape_vec(&[c, r], (0..n).map(|i| i as f32).collect()).unwrap();
        check_2d(&c8, &t32.transpose().unwrap(), |x: i8, y: f32| {
            f32::from(x) - y
        });
        let t64 = Array::from_shape_vec(&[c, r], (0..n).map(|i| i as f64).collect()).unwrap();
        // Both operands transposed, and one also reversed.
        let rev = t64
            .index(&[Index::slice(None, None, -1)])
            .unwrap()
            .transpose()
            .unwrap();
        check_2d(&t64.transpose().unwrap(), &rev, |x: f64, y: f64| {
            x * 2.0 + y
        });
        // 16-byte elements are not copied through a strip; tiles still apply.
        let t128 = Array::from_shape_vec(&[c, r], (0..n).map(|i| i as i128).collect()).unwrap();
        check_2d(&c8, &t128.transpose().unwrap(), |x: i8, y: i128| {
            y - i128::from(x)
        });
    }
}

#[test]
fn strided_layouts_split_across_threads_with_the_same_result() {
    // Every other row and column of a 3-d array: no flat path, so the
    // nested loops themselves run in parallel above the threshold.
    let (p, r, c) = (4usize, 400usize, 300usize);
    let base =
        Array::from_shape_vec(&[p, r, c], (0..p * r * c).map(|i| i as f64).collect()).unwrap();
    let step = Index::slice(None, None, 2);
    let a = base
        .index(&[Index::slice(None, None, 1), step, step])
        .unwrap();
    let b = base
        .permute_axes(&[0, 2, 1])
        .unwrap()
        .index(&[
            Index::slice(None, None, 1),
            Index::slice(None, Some(150), 1),
            Index::slice(None, Some(200), 1),
        ])
        .unwrap();
    assert_eq!(a.ty().to_string(), "4 * 200 * 150 * float64");
    assert_eq!(b.ty().to_string(), "4 * 150 * 200 * float64");
    let b = b.permute_axes(&[0, 2, 1]).unwrap();
    let f = |x: f64, y: f64| x - 3.0 * y;
    let parallel = map2(&a, &b, f).unwrap();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let serial = pool.install(|| map2(&a, &b, f).unwrap());
    assert_eq!(
        parallel.to_vec::<f64>().unwrap(),
        serial.to_vec::<f64>().unwrap()
    );
    for (k, i, j) in [(0, 0, 0), (3, 199, 149), (2, 17, 101)] {
        let want = f(
            a.get::<f64>(&[k, i, j]).unwrap(),
            b.get::<f64>(&[k, i, j]).unwrap(),
        );
        assert_eq!(parallel.get::<f64>(&[k, i, j]).unwrap(), want);
    }
}

#[test]
fn fallible_leaves_fail_the_call_naming_the_first_failing_element() {
    use dynd_kernels::elwise::{apply, Leaf};
    let checked = Leaf::map(|x: i64, y: i64| x.checked_add(y).ok_or("overflow"));
    assert_eq!(
        apply(&[&array![[1, 2], [3]], &array![10]], &checked)
            .unwrap()
            .to_string(),
        "[[11, 12], [13]]"
    );
    let err = apply(&[&array![[1], [2, i64::MAX]], &array![1]], &checked).unwrap_err();
    assert_eq!(err.to_string(), "overflow, at index [1, 1]");
    // Large and parallel: the lowest failing index is the one reported,
    // as a serial run would report it.
    let n = 1_000_000usize;
    let mut xs = vec![0i64; n];
    xs[700_000] = i64::MAX;
    xs[900_000] = i64::MAX;
    let a = Array::from_vec(xs);
    let err = apply(&[&a, &Array::from_scalar(1i64)], &checked).unwrap_err();
    assert_eq!(err.to_string(), "overflow, at index [700000]");
    let m = Array::from_shape_vec(&[1000, 1000], a.to_vec::<i64>().unwrap()).unwrap();
    let err = apply(
        &[&m.transpose().unwrap(), &Array::from_scalar(1i64)],
        &checked,
    )
    .unwrap_err();
    assert_eq!(err.to_string(), "overflow, at index [0, 700]");
}

#[test]
fn nullable_leaves_see_na_in_option_parameters_and_propagate_it_in_plain_ones() {
    use dynd_kernels::elwise::{apply, Leaf};
    let t = |s: &str| s.parse::<dynd_kernels::types::Type>().unwrap();
    // Option parameter: NA reaches the function. Plain one: NA propagates.
    let fill = Leaf::map(|x: Option<i32>, k: i32| x.unwrap_or(k) * 10);
    let xs = Array::from_json("[[1, null], [null]]", Some(&t("2 * var * ?int32"))).unwrap();
    let r = apply(&[&xs, &Array::from_scalar(7i32)], &fill).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[[10, 70], [70]]".into(), "2 * var * int32".into())
    );
    let ks = Array::from_json("[3, null]", Some(&t("2 * ?int32"))).unwrap();
    let plain = Array::from_vec(vec![1i32, 2]);
    let r = apply(&[&plain, &ks], &fill);
    // A plain array for an option parameter is refused here (callables cast it).
    assert_eq!(
        r.unwrap_err().to_string(),
        "argument 0 has data type int32, but the function takes ?int32"
    );
    let opt_plain = Array::from_json("[1, null]", Some(&t("2 * ?int32"))).unwrap();
    let r = apply(&[&opt_plain, &ks], &fill).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[10, null]".into(), "2 * ?int32".into())
    );
    // An option result, strided and transposed inputs.
    let half = Leaf::map(|x: i64| (x % 2 == 0).then_some(x / 2));
    let m = Array::from_shape_vec(&[2, 3], vec![2i64, 3, 4, 5, 6, 7]).unwrap();
    let r = apply(&[&m.transpose().unwrap()], &half).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        (
            "[[1, null], [null, 3], [2, null]]".into(),
            "3 * 2 * ?int64".into()
        )
    );
    // An option result with NA propagating from a plain parameter.
    let half2 = Leaf::map(|x: i64, y: i64| (y != 0).then(|| x / y));
    let ys = Array::from_json("[0, null, 2]", Some(&t("3 * ?int64"))).unwrap();
    let r = apply(&[&Array::from_vec(vec![4i64, 4, 4]), &ys], &half2).unwrap();
    assert_eq!(r.to_string(), "[null, null, 2]");
}

/// Views that walk as one loop of one stride (every other element,
/// reversed, every third backwards, a C-order 2-d view of a 1-d run) take
/// the flat path with their stride, on one thread and across threads
/// (past the parallel threshold), and match a naive loop (`map2` there:
/// the kernel path).
#[test]
fn views_of_one_stride_run_flat_with_their_stride() {
    for n in [7usize, 300_001] {
        let base = Array::from_vec((0..3 * n).map(|i| i as f64).collect());
        let other = Array::from_vec((0..3 * n).map(|i| (i % 17) as f64).collect());
        let take = |a: &Array, start: i64, step: i64| {
            let stop = if step > 0 {
                None
            } else {
                Some(-(3 * n as i64) - 1)
            };
            let v = a.index(&[Index::slice(Some(start), stop, step)]).unwrap();
            v.index(&[Index::slice(None, Some(n as i64), 1)]).unwrap()
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        for (x, y) in [
            (take(&base, 0, 2), take(&other, 1, 2)),
            (take(&base, -1, -1), take(&other, 0, 3)),
            (take(&base, -2, -3), take(&other, -1, -2)),
        ] {
            let f = |a: f64, b: f64| a * 0.5 - b;
            let want: Vec<f64> = (0..n)
                .map(|i| f(x.get::<f64>(&[i]).unwrap(), y.get::<f64>(&[i]).unwrap()))
                .collect();
            assert_eq!(
                map2(&x, &y, f).unwrap().to_vec::<f64>().unwrap(),
                want,
                "{n}"
            );
            assert_eq!(
                apply(&[&x, &y], &Leaf::map(f))
                    .unwrap()
                    .to_vec::<f64>()
                    .unwrap(),
                want,
                "{n}"
            );
            let serial = pool.install(|| apply(&[&x, &y], &Leaf::map(f)).unwrap());
            assert_eq!(serial.to_vec::<f64>().unwrap(), want, "{n}");
        }
    }
    // A 2-d view whose rows follow each other at one stride: 3 rows of
    // every other element of a run.
    let base = Array::from_shape_vec(&[3, 8], (0..24).map(|i| i as f64).collect()).unwrap();
    let v = base
        .index(&[Index::slice(None, None, 1), Index::slice(None, None, 2)])
        .unwrap();
    let ones = Array::from_shape_vec(&[3, 4], vec![1.0; 12]).unwrap();
    let r = apply(&[&v, &ones], &Leaf::map(|a: f64, b: f64| a + b)).unwrap();
    assert_eq!(
        r.to_string(),
        "[[1, 3, 5, 7], [9, 11, 13, 15], [17, 19, 21, 23]]"
    );
}
