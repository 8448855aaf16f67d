//! `.reduce` of associative binary callables: against the typed builtins
//! over random shapes, axes, keepdims, `initial` and masks; element order
//! for operations that are associative but not commutative; every error.

use dynd_arrfunc::{builtins, Callable};
use dynd_kernels::{Array, Index, Value};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(96)
}

/// `c(a, **kw)` as "value : type", or the error.
fn run(c: &Callable, a: &Array, kw: &[(&str, &Array)]) -> Result<String, String> {
    c.call_kw(&[a], kw)
        .map(|r| format!("{r} : {}", r.ty()))
        .map_err(|e| e.to_string())
}

fn case() -> impl Strategy<Value = (Vec<usize>, Vec<i64>, Vec<bool>)> {
    prop::collection::vec(0usize..5, 1..4).prop_flat_map(|shape| {
        let n: usize = shape.iter().product();
        (
            Just(shape),
            prop::collection::vec(-50i64..50, n),
            prop::collection::vec(any::<bool>(), n),
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]
    #[test]
    fn reduce_of_add_and_maximum_match_sum_and_max(
        (shape, data, mask) in case(),
        axes_bits in 0u8..8,
        all in any::<bool>(),
        keepdims in any::<bool>(),
        initial in prop::option::of(-3i64..3),
        masked in any::<bool>(),
        reversed in any::<bool>(),
    ) {
        let base = Array::from_shape_vec(&shape, data).unwrap();
        let a = if reversed { base.index(&[Index::slice(None, None, -1)]).unwrap() } else { base };
        let mask = Array::from_shape_vec(&shape, mask).unwrap();
        let axes: Vec<Value> = (0..shape.len())
            .filter(|k| axes_bits & (1 << k) != 0)
            .map(|k| Value::Int(k as i128 - shape.len() as i128))
            .collect();
        let axis = Array::from_value(&Value::List(axes.clone()), Some(&"var * int64".parse().unwrap())).unwrap();
        let axis = if axes.len() == 1 { axis.at(0).unwrap() } else { axis };
        let keep = Array::from_scalar(keepdims);
        let init = initial.map(Array::from_scalar);
        let mut kw: Vec<(&str, &Array)> = vec![("keepdims", &keep)];
        if !all {
            kw.push(("axis", &axis));
        }
        if let Some(i) = &init {
            kw.push(("initial", i));
        }
        if masked {
            kw.push(("where", &mask));
        }
        for (op, builtin) in [("add", "sum"), ("maximum", "max")] {
            let folded = run(&builtins::get(op).unwrap().reduce().unwrap(), &a, &kw);
            let want = run(&builtins::get(builtin).unwrap(), &a, &kw);
            if op == "maximum" && masked {
                // No identity: a mask cannot leave elements out of a fold.
                prop_assert!(folded.unwrap_err().contains("has no identity"));
                continue;
            }
            match (folded, want) {
                (Err(_), Err(_)) => {}
                (folded, want) => prop_assert_eq!(folded, want, "{} over {:?}", op, shape),
            }
        }
    }

    #[test]
    fn associative_but_not_commutative_operations_keep_c_order(
        (shape, data, _) in case(),
        axes_bits in 0u8..8,
    ) {
        // `first` and `last` are associative, not commutative: their folds
        // are the first and last element of each reduced block in C order.
        let a = Array::from_shape_vec(&shape, data).unwrap();
        let axes: Vec<usize> = (0..shape.len()).filter(|k| axes_bits & (1 << k) != 0).collect();
        prop_assume!(axes.iter().all(|&k| shape[k] > 0));
        let axis_values: Vec<Value> = axes.iter().map(|&k| Value::Int(k as i128)).collect();
        let axis = Array::from_value(&Value::List(axis_values), Some(&"var * int64".parse().unwrap())).unwrap();
        for (name, at) in [("first", 0i64), ("last", -1)] {
            let op = if at == 0 {
                Callable::map(name, |x: i64, _: i64| x)
            } else {
                Callable::map(name, |_: i64, y: i64| y)
            };
            let folded = op.associative(None).unwrap().reduce().unwrap()
                .call_kw(&[&a], &[("axis", &axis)]).unwrap();
            let index: Vec<Index> = (0..shape.len())
                .map(|k| if axes.contains(&k) { Index::At(at) } else { Index::ALL })
                .collect();
            let want = a.index(&index).unwrap();
            prop_assert_eq!(folded.to_string(), want.to_string(), "{} over {:?} axes {:?}", name, shape, axes);
        }
    }
}

#[test]
fn reduce_errors_say_what_was_wrong() {
    let a = Array::from_shape_vec(&[2, 2], vec![1i64, 2, 3, 4]).unwrap();
    let err = |c: &Callable, a: &Array, kw: &[(&str, &Array)]| run(c, a, kw).unwrap_err();
    let add = builtins::get("add.reduce").unwrap();
    assert_eq!(
        builtins::get("subtract")
            .unwrap()
            .reduce()
            .unwrap_err()
            .to_string(),
        "subtract has no reduction: it is not declared associative"
    );
    assert!(builtins::get("subtract.reduce").is_err());
    assert_eq!(
        builtins::get("negative")
            .unwrap()
            .associative(None)
            .unwrap_err()
            .to_string(),
        err_arity()
    );
    let two = Array::from_scalar(2i64);
    assert_eq!(
        err(&add, &a, &[("axis", &two)]),
        "add.reduce: axis 2 is out of bounds for an array of 2 dimension(s)"
    );
    let twice = Array::from_json("[1, -1]", None).unwrap();
    assert_eq!(
        err(&add, &a, &[("axis", &twice)]),
        "add.reduce: axis -1 is given more than once"
    );
    let empty = Array::zeros(&"0 * int32".parse().unwrap()).unwrap();
    let max = builtins::get("maximum.reduce").unwrap();
    assert_eq!(
        err(&max, &empty, &[]),
        "maximum.reduce: a reduction over no elements needs an identity, and maximum has none; pass `initial`"
    );
    let mask = Array::from_json("[true, false]", None).unwrap();
    assert_eq!(
        err(&max, &a, &[("where", &mask)]),
        "maximum.reduce has no identity, so a `where` mask cannot leave elements out"
    );
    let long_mask = Array::from_json("[[[true]], [[false]]]", None).unwrap();
    assert_eq!(
        err(&add, &a, &[("where", &long_mask)]),
        "add.reduce: the `where` mask 2 * 1 * 1 * bool does not broadcast to the array 2 * 2 * int64"
    );
    let less = builtins::get("less").unwrap().associative(None).unwrap();
    assert_eq!(
        err(&less.reduce().unwrap(), &a, &[]),
        "less.reduce: less of (int64, int64) gives bool, so it cannot fold an array of int64"
    );
    let ragged = Array::from_json("[[1], [2, 3]]", None).unwrap();
    assert!(err(&add, &ragged, &[]).contains("the builtins sum, prod, min, max"));
    // Empty with identity or initial; initial comes first.
    assert_eq!(run(&add, &empty, &[]).unwrap(), "0 : int32");
    assert_eq!(
        run(&max, &empty, &[("initial", &two)]).unwrap(),
        "2 : int32"
    );
    let sub_first = Callable::map("f", |x: i64, y: i64| x * 10 + y)
        .associative(None)
        .unwrap();
    // Not truly associative, which shows the grouping: ((2·10+1)·10+2)…
    let r = sub_first
        .reduce()
        .unwrap()
        .call_kw(&[&Array::from_vec(vec![1i64])], &[("initial", &two)])
        .unwrap();
    assert_eq!(r.to_string(), "21");
}

fn err_arity() -> String {
    "negative is not a binary operation (two arguments), so it cannot be associative".to_string()
}

#[test]
fn na_propagates_through_a_fold_as_through_the_operation() {
    let ty = "2 * 3 * ?int64".parse().unwrap();
    let a = Array::from_json("[[1, null, 2], [3, 4, 5]]", Some(&ty)).unwrap();
    let add = builtins::get("add.reduce").unwrap();
    let axis = Array::from_scalar(1i64);
    assert_eq!(
        run(&add, &a, &[("axis", &axis)]).unwrap(),
        "[null, 12] : 2 * ?int64"
    );
    assert_eq!(run(&add, &a, &[]).unwrap(), "null : ?int64");
}

/// Axes long enough to fold in blocks (of about 2^17 elements, a power of
/// two indices each) and then across the blocks: sums equal the builtin's
/// exactly (integers), `first` and `last` still give the first and last
/// element along the axis (order kept across blocks and the odd ones
/// out), and a float sum stays a pairwise tree (within a few ulps of an
/// exact sum where a sequential one drifts).
#[test]
fn long_axes_fold_in_blocks_in_order() {
    let first = Callable::map("first", |x: i64, _: i64| x)
        .associative(None)
        .unwrap()
        .reduce()
        .unwrap();
    let last = Callable::map("last", |_: i64, y: i64| y)
        .associative(None)
        .unwrap()
        .reduce()
        .unwrap();
    let add = builtins::get("add.reduce").unwrap();
    let sum = builtins::get("sum").unwrap();
    // Lengths around the block sizes (whole blocks and a part), and axes
    // too short or too wide to be cut.
    for (shape, axis) in [
        (vec![131_072 + 1], 0i64),
        (vec![3 * 131_072 + 5], 0),
        (vec![5 * 16_384 + 3, 8], 0),
        (vec![7, 11 * 16_384 + 1], 1),
        (vec![3, 4099, 5], 1),
        (vec![300, 2100], 0),
    ] {
        let n: usize = shape.iter().product();
        let data: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 1001 - 500).collect();
        let a = Array::from_shape_vec(&shape, data).unwrap();
        let ax = Array::from_scalar(axis);
        let kw = [("axis", &ax)];
        assert_eq!(run(&add, &a, &kw), run(&sum, &a, &kw), "{shape:?}");
        let index = |at: i64| -> Vec<Index> {
            (0..shape.len())
                .map(|k| {
                    if k as i64 == axis {
                        Index::At(at)
                    } else {
                        Index::ALL
                    }
                })
                .collect()
        };
        let f = first.call_kw(&[&a], &kw).unwrap();
        assert_eq!(
            f.to_string(),
            a.index(&index(0)).unwrap().to_string(),
            "{shape:?}"
        );
        let l = last.call_kw(&[&a], &kw).unwrap();
        assert_eq!(
            l.to_string(),
            a.index(&index(-1)).unwrap().to_string(),
            "{shape:?}"
        );
    }
    // 0.1 added 200 001 times: a sequential sum is off by about 1e-8
    // here; a pairwise tree by far less.
    let n = 200_001;
    let a = Array::from_vec(vec![0.1f64; n]);
    let got = add.call(&[&a]).unwrap().to_vec::<f64>().unwrap()[0];
    let exact = 0.1f64 * n as f64;
    assert!((got - exact).abs() < 1e-9, "{got} vs {exact}");
}
