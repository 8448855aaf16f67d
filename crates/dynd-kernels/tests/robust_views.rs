//! The robustness campaign's view part: random arrays (edge values, empty
//! dimensions, empty rows, strings), random chains of views (index with any
//! `i64` start/stop/step, reshape with any sizes, permute, expand_dims,
//! transpose, take), then the kernels over the result, each compared with
//! the same work on a C-order copy. Nothing may panic; an error is fine.
//! `scripts/valgrind.sh robust` runs it under valgrind (every raw-pointer
//! loop reading a view).
//!
//! `DYND_ROBUST_CASES=N` sets the number of cases (default 5000; the
//! ignored `long_run` test runs 10^6).

use crate::harness;
use dynd_kernels::ArrayOps;
use harness::{cases, Rng};

use dynd_kernels::elwise::{apply, Leaf};
use dynd_kernels::reduce::{reduce, ReduceArgs, Reduction};
use dynd_kernels::take::TakeMode;
use dynd_kernels::{Array, ErrorMode, Index, Value};

/// Positions and sizes a user might pass: small, negative, and the extremes.
const EDGE_I64: &[i64] = &[
    0,
    1,
    2,
    3,
    -1,
    -2,
    -3,
    5,
    100,
    -100,
    1 << 40,
    -(1 << 40),
    i64::MAX,
    i64::MIN,
    i64::MAX - 1,
    i64::MIN + 1,
    4611686018427387907,
];

const EDGE_F64: &[f64] = &[
    0.0,
    -0.0,
    1.5,
    -2.25,
    f64::NAN,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::MAX,
    f64::MIN_POSITIVE,
    5e-324,
    1e300,
];

/// A random base array: fixed dims (sizes 0..5), or ragged rows (some
/// empty), of int64, float64, int8 or strings.
fn base(rng: &mut Rng) -> Array {
    let kind = rng.below(5);
    let ndim = rng.below(4);
    let shape: Vec<usize> = (0..ndim).map(|_| rng.below(5)).collect();
    let count: usize = shape.iter().product();
    match kind {
        0 => Array::from_shape_vec(
            &shape,
            (0..count).map(|_| rng.pick(EDGE_I64)).collect::<Vec<i64>>(),
        )
        .unwrap(),
        1 => Array::from_shape_vec(
            &shape,
            (0..count).map(|_| rng.pick(EDGE_F64)).collect::<Vec<f64>>(),
        )
        .unwrap(),
        2 => Array::from_shape_vec(
            &shape,
            (0..count)
                .map(|_| rng.pick(&[i8::MIN, -1, 0, 1, i8::MAX]))
                .collect::<Vec<i8>>(),
        )
        .unwrap(),
        3 => {
            // Ragged rows under 0..2 fixed dims.
            let outer = rng.below(3);
            let n: usize = (0..outer).map(|_| rng.below(4)).product::<usize>().max(1);
            let rows: Vec<Value> = (0..n)
                .map(|_| {
                    let len = rng.pick(&[0, 0, 1, 2, 5]);
                    Value::List((0..len).map(|_| Value::Float(rng.pick(EDGE_F64))).collect())
                })
                .collect();
            let ty = format!("{n} * var * float64").parse().unwrap();
            Array::from_value(&Value::List(rows), Some(&ty)).unwrap()
        }
        _ => {
            let words = ["", "a", "naïve", "日本語", "x y z", "\u{0}"];
            let items: Vec<Value> = (0..count.max(1))
                .map(|_| Value::Str(rng.pick(&words).to_string()))
                .collect();
            let ty = format!("{} * string", items.len()).parse().unwrap();
            Array::from_value(&Value::List(items), Some(&ty)).unwrap()
        }
    }
}

fn random_index(rng: &mut Rng) -> Index {
    if rng.below(3) == 0 {
        Index::At(rng.pick(EDGE_I64))
    } else {
        let opt = |rng: &mut Rng| (rng.below(3) > 0).then(|| rng.pick(EDGE_I64));
        let (start, stop) = (opt(rng), opt(rng));
        Index::slice(start, stop, rng.pick(EDGE_I64))
    }
}

/// One random view step; an error leaves the array as it was.
fn step(a: &Array, rng: &mut Rng, log: &mut Vec<String>) -> Array {
    let r = match rng.below(7) {
        0 | 1 => {
            let idx: Vec<Index> = (0..rng.below(a.ndim() + 2))
                .map(|_| random_index(rng))
                .collect();
            log.push(format!("index({idx:?})"));
            a.index(&idx)
        }
        2 => {
            let shape: Vec<i64> = (0..rng.below(4))
                .map(|_| rng.pick(&[-1, 0, 1, 2, 3, 4, 6, 12, 1 << 31, i64::MAX]))
                .collect();
            log.push(format!("reshape({shape:?})"));
            a.reshape(&shape)
        }
        3 => {
            let n = rng.below(a.ndim() + 1);
            let mut perm: Vec<usize> = (0..n).collect();
            for i in (1..n).rev() {
                perm.swap(i, rng.below(i + 1));
            }
            if rng.below(8) == 0 {
                perm.push(rng.below(5));
            }
            log.push(format!("permute_axes({perm:?})"));
            a.permute_axes(&perm)
        }
        4 => {
            let axis = rng.below(a.ndim() + 2);
            log.push(format!("expand_dims({axis})"));
            a.expand_dims(axis)
        }
        5 => {
            log.push("transpose".into());
            a.transpose()
        }
        _ => {
            let idx: Vec<i64> = (0..rng.below(5)).map(|_| rng.pick(EDGE_I64)).collect();
            let axis = (rng.below(2) == 0).then(|| rng.pick(&[0, 1, -1, 5, i64::MIN]));
            let mode = rng.pick(&[TakeMode::Raise, TakeMode::Wrap, TakeMode::Clip]);
            log.push(format!("take({idx:?}, {axis:?}, {mode:?})"));
            a.take(&Array::from_vec(idx), axis, mode)
        }
    };
    match r {
        Ok(v) => v,
        Err(e) => {
            log.push(format!("  -> error: {e}"));
            a.clone()
        }
    }
}

fn add_f64() -> Reduction<f64, fn(f64, f64) -> f64> {
    Reduction {
        identity: Some(0.0),
        combine: |a, b| a + b,
        reorderable: true,
        neutral: Some(-0.0),
        run: None,
    }
}

fn add_i64() -> Reduction<i64, fn(i64, i64) -> i64> {
    Reduction {
        identity: Some(0),
        combine: |a: i64, b: i64| a.wrapping_add(b),
        reorderable: true,
        neutral: Some(0),
        run: None,
    }
}

/// The result of an operation, as text, for comparison.
fn text(r: Result<Array, dynd_kernels::Error>) -> String {
    match r {
        Ok(a) => format!("{} : {}", a.try_to_json().unwrap_or_default(), a.ty()),
        Err(_) => "error".into(),
    }
}

/// Runs the kernels over `v` and over a C-order copy; the results agree.
fn check(v: &Array, rng: &mut Rng, log: &[String]) {
    let _ = v.to_string();
    // A view may hold billions of empty lists (`2147483648 * 0 * int8`):
    // fine to make and print, too many to hold as a value tree here.
    if v.ty().fixed_shape().is_some_and(|s| {
        s.iter()
            .try_fold(1usize, |a, &n| a.checked_mul(n.max(1)))
            .is_none_or(|c| c > 1 << 20)
    }) {
        return;
    }
    let Ok(value) = v.try_to_value() else {
        return;
    };
    let copy = match v.cast(v.ty(), ErrorMode::NoCheck) {
        Ok(c) => c,
        Err(e) => panic!("a copy of a valid view failed: {e}\n{log:#?}"),
    };
    assert_eq!(copy.to_value().to_json(), value.to_json(), "{log:#?}");
    let from_value = Array::from_value(&value, Some(v.ty()));
    if let Ok(back) = from_value {
        assert_eq!(back.to_json(), v.to_json(), "{log:#?}");
    }
    let scalar = v.dtype().as_scalar();
    let same = |leaf: &Leaf, args: [&Array; 2], n: usize| {
        let on_view = text(apply(&args[..n], leaf));
        let on_copy = text(apply(&[&copy, &copy][..n], leaf));
        assert_eq!(on_view, on_copy, "{log:#?}");
    };
    match scalar {
        Some(dynd_types::Scalar::Float64) => {
            same(&Leaf::map(|x: f64| -x), [v, v], 1);
            same(&Leaf::map(|x: f64, y: f64| x + y), [v, &copy], 2);
            if !v.ty().has_var_dim() {
                let axes = [rng.pick(EDGE_I64)];
                let args = ReduceArgs {
                    axes: (rng.below(2) == 0).then_some(&axes[..]),
                    keepdims: rng.below(2) == 0,
                    ..ReduceArgs::default()
                };
                let a = text(reduce(v, &args, &add_f64(), "sum"));
                let b = text(reduce(&copy, &args, &add_f64(), "sum"));
                assert_eq!(a, b, "{log:#?}");
            }
        }
        Some(dynd_types::Scalar::Int64) => {
            same(&Leaf::map(|x: i64| x.wrapping_neg()), [v, v], 1);
            same(
                &Leaf::map(|x: i64, y: i64| x.wrapping_mul(y)),
                [v, &copy],
                2,
            );
            let args = ReduceArgs::default();
            let a = text(reduce(v, &args, &add_i64(), "sum"));
            let b = text(reduce(&copy, &args, &add_i64(), "sum"));
            assert_eq!(a, b, "{log:#?}");
        }
        Some(dynd_types::Scalar::Int8) => {
            same(&Leaf::map(|x: i8| x.wrapping_abs()), [v, v], 1);
        }
        _ => {}
    }
    // Sorting a clone of the view, in place: as sorting its contiguous
    // copy does, and the view itself keeps its order (copy on write).
    let reverse = rng.below(2) == 0;
    let mut sorted = v.clone();
    let on_view = sorted.sort(-1, reverse).map(|()| sorted.to_json());
    let mut sorted_copy = copy.clone();
    let on_copy = sorted_copy
        .sort(-1, reverse)
        .map(|()| sorted_copy.to_json());
    assert_eq!(
        on_view.map_err(|e| e.to_string()),
        on_copy.map_err(|e| e.to_string()),
        "{log:#?}"
    );
    assert_eq!(v.to_json(), value.to_json(), "{log:#?}");
}

fn campaign(seed: u64, n: usize) {
    harness::campaign("view chain", seed, n, |rng, log| {
        let mut a = base(rng);
        log.push(format!("base {} : {}", a, a.ty()));
        for _ in 0..1 + rng.below(4) {
            a = step(&a, rng, log);
        }
        check(&a, rng, log);
    });
}

#[test]
fn random_view_chains_then_kernels() {
    campaign(0x5eed_0001, cases(5000));
}

#[test]
#[ignore = "long: 10^6 cases, for a long session"]
fn long_run() {
    campaign(0x5eed_1000, cases(1_000_000));
}

#[test]
fn empty_views_read_as_empty_slices_wherever_they_start() {
    let a = Array::from_vec(vec![1i32, 2, 3]);
    // Slices past the end and reversed empty ones: no element, no read.
    for index in [
        Index::slice(Some(10), Some(20), 1),
        Index::slice(Some(0), Some(0), -1),
        Index::slice(Some(3), None, 1),
    ] {
        let v = a.index(&[index]).unwrap();
        assert_eq!(v.as_slice::<i32>().unwrap(), &[] as &[i32]);
        assert_eq!(v.to_vec::<i32>().unwrap(), Vec::<i32>::new());
    }
    let e = Array::from_vec(Vec::<i32>::new());
    let r = e.index(&[Index::slice(None, None, -1)]).unwrap();
    assert_eq!(r.as_slice::<i32>().unwrap(), &[] as &[i32]);
}
