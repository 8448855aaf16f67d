//! Fused evaluation of expressions agrees with evaluating them node by
//! node: the same values (bit for bit), the same types, the same errors,
//! over dense layouts (views with negative strides, transposes,
//! broadcasting), ragged rows, NA, casts and shared subexpressions.

use dynd::func::{builtins, select, AxisOptions, Eval};
use dynd::nd::expr::Expr;
use dynd::nd::{array, Array, ArrayOps, Index};
use proptest::prelude::*;

/// Both evaluations of `e`, which must agree, the first fused.
fn fused(e: &Expr<'_>) -> Result<Array, String> {
    assert!(e.eval_fused().is_some(), "{e} is not fused");
    agree(e)
}

/// Both evaluations of `e`, which must agree: the fused pass (whatever
/// the size; `eval` itself takes small expressions node by node) when it
/// takes the layout, and `eval` otherwise, against the stepwise one.
fn agree(e: &Expr<'_>) -> Result<Array, String> {
    let fused = match e.eval_fused() {
        Some(r) => Ok(r),
        None => e.eval(),
    };
    let stepwise = e.eval_stepwise();
    match (fused, stepwise) {
        (Ok(f), Ok(s)) => {
            assert_eq!(f.ty(), s.ty(), "types of {e}");
            assert_eq!(f.to_string(), s.to_string(), "values of {e}");
            assert_eq!(bits(&f), bits(&s), "bits of {e}");
            Ok(f)
        }
        (Err(f), Err(s)) => {
            assert_eq!(f.to_string(), s.to_string(), "errors of {e}");
            Err(f.to_string())
        }
        (f, s) => panic!("{e}: fused {f:?} but stepwise {s:?}"),
    }
}

/// The elements' bits, for floating-point results (NaN included).
fn bits(a: &Array) -> Option<Vec<u64>> {
    let flat = a.reshape([-1i64]).ok()?;
    match a.dtype().to_string().as_str() {
        "float64" => Some(
            flat.to_vec::<f64>()
                .ok()?
                .iter()
                .map(|x| x.to_bits())
                .collect(),
        ),
        "float32" => Some(
            flat.to_vec::<f32>()
                .ok()?
                .iter()
                .map(|x| u64::from(x.to_bits()))
                .collect(),
        ),
        _ => None,
    }
}

fn seq(n: usize, scale: f64) -> Vec<f64> {
    (0..n)
        .map(|i| ((i * 7919) % 101) as f64 * scale - 3.0)
        .collect()
}

#[test]
fn a_compound_expression_fuses_to_the_stepwise_result() {
    let shape = [37usize, 53];
    let n = shape[0] * shape[1];
    let [a, b, c, d, e] =
        [1.0, 0.5, 0.25, 2.0, 0.125].map(|s| Array::from_shape_vec(&shape, seq(n, s)).unwrap());
    let r = fused(&(&a * &b + &c * &d - &e)).unwrap();
    assert_eq!(r.ty().to_string(), "37 * 53 * float64");
    let a0 = a.to_vec::<f64>().unwrap()[0];
    let want = a0 * b.to_vec::<f64>().unwrap()[0]
        + c.to_vec::<f64>().unwrap()[0] * d.to_vec::<f64>().unwrap()[0]
        - e.to_vec::<f64>().unwrap()[0];
    assert_eq!(r.get::<f64>(&[0, 0]).unwrap(), want);
}

#[test]
fn views_transposes_and_broadcasting_are_read_through_their_strides() {
    let m = Array::from_shape_vec(&[64, 70], seq(64 * 70, 0.5)).unwrap();
    let rev = m
        .index(&[Index::slice(None, None, -1), Index::slice(None, None, -2)])
        .unwrap(); // 64 * 35, negative strides
    let t = Array::from_shape_vec(&[35, 64], seq(35 * 64, 0.25))
        .unwrap()
        .transpose()
        .unwrap(); // 64 * 35, read across rows
    let col = Array::from_shape_vec(&[64, 1], seq(64, 1.0)).unwrap();
    let row = Array::from_vec(seq(35, 2.0));
    fused(&((&rev - &t) * &col + &row / 3.0)).unwrap();
    // A leaf whose rows are another leaf's, reversed.
    let r = agree(&(&rev * 2.0 + &rev.index(&[Index::slice(None, None, -1)]).unwrap())).unwrap();
    assert_eq!(r.ty().to_string(), "64 * 35 * float64");
}

#[test]
fn mixed_types_promote_as_the_calls_do() {
    let i = array![1i32, -2, 3];
    let f = array![0.5f32, 0.25, 2.0];
    let l = array![10i64, 20, 30];
    let r = fused(&(&i * &f + &l)).unwrap();
    assert_eq!(r.ty().to_string(), "3 * float64");
    let r = agree(&(&i + 1i32 - &i * 2i32)).unwrap();
    assert_eq!(r.ty().to_string(), "3 * int64"); // as add(int32, int32 scalar) gives
    let r = agree(&(Expr::from(&i).cast(&"float32".parse().unwrap()) * &f)).unwrap();
    assert_eq!(r.to_string(), "[0.5, -0.5, 6]");
}

#[test]
fn comparisons_and_select_fuse() {
    let x = array![-2.0, 0.0, 3.0, -0.5];
    let y = array![1.0, 2.0, 3.0, 4.0];
    let r = fused(&select(Expr::from(&x).greater(0.0), &x * &y, -&y)).unwrap();
    assert_eq!(r.to_string(), "[-1, -2, 9, -4]");
    let r = agree(&Expr::from(&x).less_equal(&y)).unwrap();
    assert_eq!(r.ty().to_string(), "4 * bool");
    let maximum = builtins::get("maximum").unwrap();
    let r = agree(&maximum.expr([&x * 2.0, Expr::from(&y)])).unwrap();
    assert_eq!(r.to_string(), "[1, 2, 6, 4]");
}

#[test]
fn rounding_fuses_and_agrees() {
    // Quarters: ties (x.5) and both signs, large enough to fuse.
    let shape = [61usize, 89];
    let x = Array::from_shape_vec(&shape, seq(shape[0] * shape[1], 0.25)).unwrap();
    let big = 4503599627370495.5;
    let halves = [-2.5, -1.5, -0.5, -0.0, 0.5, 1.5, 2.5, big];
    let a = Array::from_vec(halves.to_vec());
    for (name, want) in [
        ("floor", [-3.0, -2.0, -1.0, -0.0, 0.0, 1.0, 2.0, big - 0.5]),
        ("ceil", [-2.0, -1.0, -0.0, -0.0, 1.0, 2.0, 3.0, big + 0.5]),
        ("trunc", [-2.0, -1.0, -0.0, -0.0, 0.0, 1.0, 2.0, big - 0.5]),
        ("rint", [-2.0, -2.0, -0.0, -0.0, 0.0, 2.0, 2.0, big + 0.5]),
    ] {
        let f = builtins::get(name).unwrap();
        fused(&(f.expr([&x * 1.5]) - &x)).unwrap();
        // Small: the dense loop of `eval`, and the call itself.
        let want = bits(&Array::from_vec(want.to_vec()));
        let r = (f.expr([&a * 1.0]) * 1.0).eval().unwrap();
        assert_eq!(bits(&r), want, "{name}");
        assert_eq!(bits(&f.call(&[&a]).unwrap()), want, "{name}");
    }
}

#[test]
fn common_subexpressions_give_the_same_values() {
    let a = Array::from_vec(seq(5000, 0.01));
    let b = Array::from_vec(seq(5000, 0.02));
    let ab = &a * &b;
    fused(&((&ab + 1.0) * (&ab + 2.0))).unwrap();
    agree(&(&a * &a + &a)).unwrap();
}

#[test]
fn ragged_rows_fuse_over_their_values() {
    // Two separate arrays with the same rows, and a value per row.
    let offsets: Vec<i64> = (0..=300).map(|i: i64| i * (i % 7) / 3).collect();
    let offsets: Vec<i64> = offsets
        .iter()
        .scan(0, |acc, &o| {
            *acc += o % 11;
            Some(*acc)
        })
        .collect();
    let total = *offsets.last().unwrap() as usize;
    let x = Array::from_offsets(seq(total, 0.5), &offsets).unwrap();
    let y = Array::from_offsets(seq(total, 0.75), &offsets).unwrap();
    let m = Array::from_shape_vec(&[300, 1], seq(300, 0.1)).unwrap();
    let s = Array::from_shape_vec(&[300, 1], seq(300, 0.3)).unwrap();
    let r = fused(&((&x - &m) / &s + &y * 2.0)).unwrap();
    assert_eq!(r.ty().to_string(), "300 * var * float64");
    agree(&(&x * &y - &x)).unwrap();
    // Rows that do not match are the stepwise evaluation's error.
    let z = Array::from_offsets(seq(total, 1.0), &offsets[1..]).unwrap();
    let e = agree(&(&x + &z)).unwrap_err();
    assert!(e.contains("in '"), "{e}");
}

#[test]
fn na_propagates_as_in_the_calls() {
    let t = "4 * ?float64".parse().unwrap();
    let x = Array::from_json("[1, null, 3, 4]", Some(&t)).unwrap();
    let y = array![10.0, 20.0, 30.0, 40.0];
    let r = fused(&(&x * &y + 1.0)).unwrap();
    assert_eq!(r.to_string(), "[11, null, 91, 161]");
}

#[test]
fn errors_name_the_node_and_agree() {
    let a = array![1.0, 2.0];
    let b = array![1.0, 2.0, 3.0];
    let e = agree(&(&a * 2.0 + (&b - 1.0))).unwrap_err();
    assert!(
        e.starts_with("in 'add(multiply(a0, 2), subtract(a1, 1))': "),
        "{e}"
    );
    // A failed conversion, deep in a tree.
    let big = array![1.0, 300.0];
    let e = agree(&(Expr::from(&big).cast(&"int8".parse().unwrap()) + 1i8)).unwrap_err();
    assert!(e.starts_with("in 'cast(a0, int8)': "), "{e}");
    let s = Array::from_json(r#"["a"]"#, None).unwrap();
    let e = agree(&(&s * 2.0)).unwrap_err();
    assert!(e.starts_with("in 'multiply(a0, 2)': "), "{e}");
}

#[test]
fn eval_into_overlapping_memory_is_as_if_through_a_temporary() {
    let mut a = Array::from_vec(seq(3000, 1.0));
    let before = a.to_vec::<f64>().unwrap();
    let reversed = a.index(&[Index::slice(None, None, -1)]).unwrap();
    (&reversed + 1.0).eval_into(&mut a).unwrap();
    let after = a.to_vec::<f64>().unwrap();
    for (i, v) in after.iter().enumerate() {
        assert_eq!(*v, before[before.len() - 1 - i] + 1.0);
    }
    // The reversed view still sees the values it was made from.
    assert_eq!(
        reversed.to_vec::<f64>().unwrap()[0],
        before[before.len() - 1]
    );
    // `out` larger than the result: the result broadcasts into it.
    let mut out = Array::zeros(&"2 * 3 * float64".parse().unwrap()).unwrap();
    (array![1.0, 2.0, 3.0] * 2.0).eval_into(&mut out).unwrap();
    assert_eq!(out.to_string(), "[[2, 4, 6], [2, 4, 6]]");
    let mut wrong = Array::zeros(&"2 * int32".parse().unwrap()).unwrap();
    assert!((array![1.0, 2.0] * 2.0).eval_into(&mut wrong).is_err());
}

#[test]
fn large_results_split_among_threads_agree() {
    let n = 1 << 19;
    let a = Array::from_vec(seq(n, 0.5));
    let b = Array::from_vec(seq(n, 0.25));
    fused(&((&a * &b + 1.0) / (&a - 7.5))).unwrap();
    let offsets: Vec<i64> = (0..=50_000i64).map(|i| i * 9 + (i % 5)).collect();
    let total = *offsets.last().unwrap() as usize;
    let x = Array::from_offsets(seq(total, 0.5), &offsets).unwrap();
    let y = Array::from_offsets(seq(total, 0.1), &offsets).unwrap();
    let m = Array::from_shape_vec(&[50_000, 1], seq(50_000, 0.2)).unwrap();
    fused(&((&x - &m) * &y)).unwrap();
}

/// A random expression over a fixed set of leaves.
#[derive(Clone, Debug)]
enum Tree {
    Leaf(usize),
    Add(Box<Tree>, Box<Tree>),
    Sub(Box<Tree>, Box<Tree>),
    Mul(Box<Tree>, Box<Tree>),
    Div(Box<Tree>, Box<Tree>),
    Neg(Box<Tree>),
    Max(Box<Tree>, Box<Tree>),
    CastF32(Box<Tree>),
    Select(Box<Tree>, Box<Tree>, Box<Tree>),
}

fn tree(leaves: usize) -> impl Strategy<Value = Tree> {
    let leaf = (0..leaves).prop_map(Tree::Leaf);
    leaf.prop_recursive(5, 32, 3, |inner| {
        let b = || (inner.clone(), inner.clone());
        prop_oneof![
            b().prop_map(|(x, y)| Tree::Add(Box::new(x), Box::new(y))),
            b().prop_map(|(x, y)| Tree::Sub(Box::new(x), Box::new(y))),
            b().prop_map(|(x, y)| Tree::Mul(Box::new(x), Box::new(y))),
            b().prop_map(|(x, y)| Tree::Div(Box::new(x), Box::new(y))),
            inner.clone().prop_map(|x| Tree::Neg(Box::new(x))),
            b().prop_map(|(x, y)| Tree::Max(Box::new(x), Box::new(y))),
            inner.clone().prop_map(|x| Tree::CastF32(Box::new(x))),
            (inner.clone(), inner.clone(), inner.clone()).prop_map(|(c, x, y)| Tree::Select(
                Box::new(c),
                Box::new(x),
                Box::new(y)
            )),
        ]
    })
}

fn build<'a>(t: &Tree, leaves: &'a [Array]) -> Expr<'a> {
    let f32t = "float32".parse().unwrap();
    match t {
        Tree::Leaf(k) => Expr::from(&leaves[*k]),
        Tree::Add(x, y) => build(x, leaves) + build(y, leaves),
        Tree::Sub(x, y) => build(x, leaves) - build(y, leaves),
        Tree::Mul(x, y) => build(x, leaves) * build(y, leaves),
        Tree::Div(x, y) => build(x, leaves) / build(y, leaves),
        Tree::Neg(x) => -build(x, leaves),
        Tree::Max(x, y) => builtins::get("maximum")
            .unwrap()
            .expr([build(x, leaves), build(y, leaves)]),
        Tree::CastF32(x) => build(x, leaves).cast(&f32t),
        Tree::Select(c, x, y) => select(
            build(c, leaves).greater(0.5),
            build(x, leaves),
            build(y, leaves),
        ),
    }
}

/// Dense leaves of shape (r, c) and broadcasting to it, several layouts
/// and data types; `mismatch` adds one that does not broadcast.
fn dense_leaves(r: usize, c: usize, salt: u64, mismatch: bool) -> Vec<Array> {
    let v = |n: usize, k: u64| -> Vec<f64> {
        (0..n)
            .map(|i| (((i as u64 + 1) * (k * 31 + salt * 7 + 3)) % 23) as f64 / 4.0 - 2.0)
            .collect()
    };
    let full = Array::from_shape_vec(&[r, c], v(r * c, 1)).unwrap();
    let rev = Array::from_shape_vec(&[r, c], v(r * c, 2))
        .unwrap()
        .index(&[Index::slice(None, None, -1), Index::slice(None, None, -1)])
        .unwrap();
    let t = Array::from_shape_vec(&[c, r], v(r * c, 3))
        .unwrap()
        .transpose()
        .unwrap();
    let col = Array::from_shape_vec(&[r, 1], v(r, 4)).unwrap();
    let row: Vec<i32> = v(c, 5).iter().map(|x| (*x * 4.0) as i32).collect();
    let row = Array::from_vec(row);
    let f32s: Vec<f32> = v(r * c, 6).iter().map(|x| *x as f32).collect();
    let f32s = Array::from_shape_vec(&[r, c], f32s).unwrap();
    let t_na = format!("{r} * {c} * ?float64").parse().unwrap();
    let na_json: Vec<String> = v(r * c, 7)
        .iter()
        .enumerate()
        .map(|(i, x)| {
            if i % 5 == 2 {
                "null".into()
            } else {
                x.to_string()
            }
        })
        .collect();
    let na = Array::from_json(&format!("[{}]", na_json.join(",")), None)
        .and_then(|a| a.reshape([r, c]))
        .and_then(|a| a.cast(&t_na, dynd::nd::ErrorMode::Fractional))
        .unwrap();
    let mut out = vec![
        full,
        rev,
        t,
        col,
        row,
        f32s,
        Array::from_scalar(1.5f64),
        Array::from_scalar(3i64),
        na,
    ];
    if mismatch {
        out.push(Array::from_vec(v(c + 1, 8)));
    }
    out
}

/// Ragged leaves with the same rows, a value per row, and scalars.
fn ragged_leaves(lens: &[usize], salt: u64) -> Vec<Array> {
    let mut offsets = vec![0i64];
    for l in lens {
        offsets.push(offsets.last().unwrap() + *l as i64);
    }
    let total = *offsets.last().unwrap() as usize;
    let v = |n: usize, k: u64| -> Vec<f64> {
        (0..n)
            .map(|i| (((i as u64 + 1) * (k * 17 + salt * 5 + 1)) % 19) as f64 / 3.0 - 2.5)
            .collect()
    };
    let rows = lens.len();
    vec![
        Array::from_offsets(v(total, 1), &offsets).unwrap(),
        Array::from_offsets(v(total, 2), &offsets).unwrap(),
        Array::from_shape_vec(&[rows, 1], v(rows, 3)).unwrap(),
        Array::from_scalar(0.75f64),
        Array::from_offsets(
            v(total, 4).iter().map(|x| *x as f32).collect::<Vec<f32>>(),
            &offsets,
        )
        .unwrap(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn random_dense_trees_agree(
        t in tree(10),
        (r, c) in (1usize..9, 1usize..9),
        salt in 0u64..50,
        mismatch in prop::bool::weighted(0.15),
    ) {
        let leaves = dense_leaves(r, c, salt, mismatch);
        let n = leaves.len();
        let t = remap(&t, n);
        let _ = agree(&build(&t, &leaves));
    }

    #[test]
    fn random_ragged_trees_agree(
        t in tree(5),
        lens in prop::collection::vec(0usize..7, 1..12),
        salt in 0u64..50,
    ) {
        let leaves = ragged_leaves(&lens, salt);
        let _ = agree(&build(&t, &leaves));
    }
}

/// `t` with leaf indices taken modulo `n`.
fn remap(t: &Tree, n: usize) -> Tree {
    let b = |x: &Tree| Box::new(remap(x, n));
    match t {
        Tree::Leaf(k) => Tree::Leaf(k % n),
        Tree::Add(x, y) => Tree::Add(b(x), b(y)),
        Tree::Sub(x, y) => Tree::Sub(b(x), b(y)),
        Tree::Mul(x, y) => Tree::Mul(b(x), b(y)),
        Tree::Div(x, y) => Tree::Div(b(x), b(y)),
        Tree::Neg(x) => Tree::Neg(b(x)),
        Tree::Max(x, y) => Tree::Max(b(x), b(y)),
        Tree::CastF32(x) => Tree::CastF32(b(x)),
        Tree::Select(c, x, y) => Tree::Select(b(c), b(x), b(y)),
    }
}

#[test]
fn a_fused_sum_has_the_bits_of_summing_the_result() {
    for (shape, k) in [
        (vec![5000usize], 1.0),
        (vec![70_001], 0.3),
        (vec![300, 1100], 0.7),
        (vec![1 << 18], 0.1),
        (vec![3, 40_000], 0.2),
        (vec![7, 6, 500], 0.9),
        // Rows shorter than fold8's lanes, and blocks ending short.
        (vec![100, 7], 0.4),
        (vec![50, 263], 0.6),
        (vec![9, 16], 1.1),
        (vec![3, 17], 1.3),
    ] {
        let n: usize = shape.iter().product();
        let a = Array::from_shape_vec(&shape, seq(n, k)).unwrap();
        let b = Array::from_shape_vec(&shape, seq(n, k * 1.7)).unwrap();
        let e = &a * &b - 0.1;
        let fused = e.sum().unwrap();
        let by_hand = builtins::get("sum")
            .unwrap()
            .call(&[&e.eval_stepwise().unwrap()])
            .unwrap();
        assert_eq!(fused.ty(), by_hand.ty());
        assert_eq!(
            fused.get::<f64>(&[]).unwrap().to_bits(),
            by_hand.get::<f64>(&[]).unwrap().to_bits(),
            "{shape:?}"
        );
    }
    // Negative zeros keep their sign; a reversed leaf and a scalar one.
    for n in [5, 300, 5000] {
        let z = Array::from_vec(vec![-0.0f64; n]);
        let s = (&z * 1.0).sum().unwrap().get::<f64>(&[]).unwrap();
        let want = builtins::get("sum").unwrap().call(&[&z]).unwrap();
        assert_eq!(
            s.to_bits(),
            want.get::<f64>(&[]).unwrap().to_bits(),
            "n = {n}"
        );
        let r = Array::from_vec(seq(n, 0.8))
            .index(&[Index::slice(None, None, -1)])
            .unwrap();
        let e = &r * 3.0 + &z;
        let by_hand = builtins::get("sum")
            .unwrap()
            .call(&[&e.eval_stepwise().unwrap()])
            .unwrap();
        assert_eq!(
            e.sum().unwrap().get::<f64>(&[]).unwrap().to_bits(),
            by_hand.get::<f64>(&[]).unwrap().to_bits(),
            "reversed, n = {n}"
        );
    }
    // A layout the one-run pass does not take (a transposed leaf) and an
    // integer result are summed from the evaluated result.
    let m = Array::from_shape_vec(&[100, 100], seq(10_000, 0.5)).unwrap();
    let t = m.transpose().unwrap();
    let s = (&m * &t).sum().unwrap();
    let want = builtins::get("sum")
        .unwrap()
        .call(&[&(&m * &t).eval_stepwise().unwrap()])
        .unwrap();
    assert_eq!(s.to_string(), want.to_string());
    let i = Array::from_vec((0..5000i64).collect::<Vec<_>>());
    assert_eq!((&i * 2i64).sum().unwrap().to_string(), "24995000");
}

/// A user's function, fused with the operators around it.
#[dynd::elemental]
fn smooth_step(x: f64, edge: f64) -> f64 {
    let t = (x / edge).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

#[test]
fn elemental_functions_take_part_in_fusion() {
    let x = Array::from_vec(seq(6000, 0.01));
    let e = smooth_step::expr(&x * 2.0, 1.5) * 10.0 + &x;
    let r = fused(&e).unwrap();
    let by_hand = (smooth_step::call((&x * 2.0).eval().unwrap(), 1.5).unwrap() * 10.0 + &x)
        .eval_stepwise()
        .unwrap();
    assert_eq!(bits(&r), bits(&by_hand));
    assert!(
        e.to_string()
            .starts_with("add(multiply(smooth_step(multiply(a0, 2), 1.5), 10), a1)"),
        "{e}"
    );
}

#[test]
fn an_expression_is_an_argument_evaluated_once() {
    let x = Array::from_vec(seq(5000, 0.01));
    // An #[elemental] fn takes an expression where it takes an array.
    let r = smooth_step::call(&x * 2.0, 1.5).unwrap();
    let by_hand = smooth_step::call((&x * 2.0).eval().unwrap(), 1.5).unwrap();
    assert_eq!(bits(&r), bits(&by_hand));
    // A leaf is passed as the array itself, shared.
    let r = smooth_step::call(Expr::from(&x), 1.5).unwrap();
    assert_eq!(
        r.to_string(),
        smooth_step::call(&x, 1.5).unwrap().to_string()
    );
    // An error in the expression names its node.
    let e = smooth_step::call(&x + &Array::from_vec(vec![1.0, 2.0]), 1.5).unwrap_err();
    assert!(e.to_string().starts_with("in 'add(a0, a1)': "), "{e}");
}

/// The typed options of keyword arrays, read here on their own: the fused
/// path takes these, the plain call the arrays, so the two readings are
/// checked against each other.
fn opts(kw: &[(&str, &Array)]) -> AxisOptions {
    kw.iter().fold(AxisOptions::new(), |o, (k, v)| match *k {
        "axis" if v.ndim() == 0 => o.axis(v.get::<i64>(&[]).unwrap()),
        "axis" => o.axis(v.to_vec::<i64>().unwrap()),
        "keepdims" => o.keepdims(v.get::<bool>(&[]).unwrap()),
        "skip_na" => o.skip_na(v.get::<bool>(&[]).unwrap()),
        "ddof" => o.ddof(usize::try_from(v.get::<i64>(&[]).unwrap()).unwrap()),
        "initial" => o.initial_array((*v).clone()),
        "where" => o.mask(v),
        other => panic!("not a reduction keyword: {other}"),
    })
}

/// `e` reduced by builtin `name` with `kw`, in parts (which must apply)
/// and as the plain call on the evaluated value: equal types and bits.
fn reduces_alike(e: &Expr<'_>, name: &str, kw: &[(&str, &Array)]) -> Array {
    let r = builtins::get(name).unwrap();
    reduced_alike(e, &r, kw)
}

/// As [`reduces_alike`], for the combinations that keep the accuracy
/// rules but not the one-call bits: equal types, values within 1e-12.
fn close_alike(e: &Expr<'_>, name: &str, kw: &[(&str, &Array)]) {
    let r = builtins::get(name).unwrap();
    let parts = e
        .reduce_fused(&r, &opts(kw))
        .unwrap_or_else(|| panic!("{name} of {e} {kw:?} is not computed in parts"));
    let plain = r.call_kw(&[&e.eval_stepwise().unwrap()], kw).unwrap();
    assert_eq!(parts.ty(), plain.ty(), "{name} {kw:?}");
    // The values (an empty group's NA is compared by the type above).
    let flat = |a: &Array| {
        let a = a.option_parts().map_or_else(|| a.clone(), |(v, _)| v);
        a.reshape([-1i64]).unwrap().to_vec::<f64>().unwrap()
    };
    for (x, y) in flat(&parts).iter().zip(flat(&plain)) {
        let same = x == &y || (x.is_nan() && y.is_nan());
        assert!(
            same || (x - y).abs() <= 1e-12 * y.abs().max(1.0),
            "{name} {kw:?}: {x} vs {y}"
        );
    }
    // Twice, on one thread and on the pool: the same bits.
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let again = one.install(|| e.reduce_fused(&r, &opts(kw))).unwrap();
    assert_eq!(bits(&again), bits(&parts), "{name} {kw:?} on one thread");
}

fn reduced_alike(e: &Expr<'_>, r: &dynd::func::Callable, kw: &[(&str, &Array)]) -> Array {
    let parts = e
        .reduce_fused(r, &opts(kw))
        .unwrap_or_else(|| panic!("{} of {e} {kw:?} is not computed in parts", r.name()));
    let plain = r.call_kw(&[&e.eval_stepwise().unwrap()], kw).unwrap();
    let what = format!("{} of {e} with {kw:?}", r.name());
    assert_eq!(parts.ty(), plain.ty(), "types of {what}");
    assert_eq!(parts.to_string(), plain.to_string(), "values of {what}");
    if let (Some(p), Some(q)) = (bits(&parts), bits(&plain)) {
        if let Some(i) = (0..p.len()).find(|&i| p[i] != q[i]) {
            panic!(
                "bits of {what} differ first at {i} of {}: {} vs {}",
                p.len(),
                f64::from_bits(p[i]),
                f64::from_bits(q[i])
            );
        }
    }
    assert_eq!(bits(&parts).is_some(), bits(&plain).is_some());
    assert_eq!(
        e.reduce(r, &opts(kw)).unwrap().to_string(),
        plain.to_string()
    );
    parts
}

#[test]
fn reductions_of_expressions_run_in_parts_and_agree() {
    let (n, m) = (700, 300);
    let a = Array::from_shape_vec(&[n, m], seq(n * m, 0.37)).unwrap();
    let b = Array::from_shape_vec(&[m, n], seq(n * m, -0.11))
        .unwrap()
        .transpose()
        .unwrap();
    let w = Array::from_vec(seq(m, 0.5));
    let e = (&a * &b + 1.0) / (&w + 2.0);
    let ax = |v: &[i64]| Array::from_vec(v.to_vec());
    let (one, minus, both, zero) = (Array::from_scalar(1i64), ax(&[-1]), ax(&[0, 1]), ax(&[0]));
    let keep = Array::from_scalar(true);
    let ddof = Array::from_scalar(1i64);
    for name in [
        "sum",
        "mean",
        "std",
        "var",
        "min",
        "max",
        "prod",
        "count",
        "kahan_sum",
    ] {
        reduces_alike(&e, name, &[("axis", &one)]);
        reduces_alike(&e, name, &[("axis", &minus), ("keepdims", &keep)]);
    }
    reduces_alike(&e, "std", &[("axis", &one), ("ddof", &ddof)]);
    // Over the outer axis: exact combinations only.
    for name in ["min", "max", "count", "all", "any"] {
        reduces_alike(&e, name, &[]);
        reduces_alike(&e, name, &[("axis", &zero)]);
        reduces_alike(&e, name, &[("axis", &both), ("keepdims", &keep)]);
    }
    // `sum` and `mean` of everything: the fused sum where the leaves walk
    // the result as one run, row sums in parts otherwise (the transposed
    // `b`, the broadcast `w`); as the `sum` reduction groups either way.
    let one_run = (&a * 2.0 + 1.0) / &a;
    for name in ["sum", "mean"] {
        for e in [&e, &one_run] {
            reduces_alike(e, name, &[]);
            reduces_alike(e, name, &[("keepdims", &keep)]);
            reduces_alike(e, name, &[("axis", &both)]);
        }
    }
    // `var` and `std` across the outer axis: the parts' moments combined
    // (the same accuracy rules, not the same last bits).
    for name in ["std", "var"] {
        close_alike(&e, name, &[]);
        close_alike(&e, name, &[("axis", &zero)]);
        close_alike(
            &e,
            name,
            &[("axis", &both), ("keepdims", &keep), ("ddof", &ddof)],
        );
    }
    // A `where` mask is cut with the leaves; `initial` where it folds in
    // once per group.
    let mask = (&a * 1.0).greater(0.5).eval().unwrap();
    let row_mask = Array::from_vec((0..m).map(|j| j % 3 != 0).collect::<Vec<bool>>());
    for mk in [&mask, &row_mask] {
        reduces_alike(&e, "sum", &[("axis", &one), ("where", mk)]);
        reduces_alike(&e, "count", &[("where", mk)]);
        reduces_alike(
            &e,
            "max",
            &[
                ("axis", &zero),
                ("where", mk),
                ("initial", &Array::from_scalar(-1e300)),
            ],
        );
    }
    let init = Array::from_scalar(0.5);
    reduces_alike(&e, "sum", &[("axis", &one), ("initial", &init)]);
    reduces_alike(&e, "min", &[("initial", &init)]);
    let sum = builtins::get("sum").unwrap();
    assert!(e.reduce_fused(&sum, &opts(&[("initial", &init)])).is_none());
    // The conveniences.
    let v = e.eval().unwrap();
    for (got, name) in [
        (e.sum(), "sum"),
        (e.mean(), "mean"),
        (e.min(), "min"),
        (e.max(), "max"),
        (e.std(), "std"),
    ] {
        let want = builtins::get(name).unwrap().call(&[&v]).unwrap();
        assert_eq!(bits(&got.unwrap()), bits(&want), "{name}");
    }
    // An associative user operation, over the outer axis too.
    let imax = dynd::func::Callable::map("imax", |x: i64, y: i64| x.max(y))
        .associative(None)
        .unwrap()
        .reduce()
        .unwrap();
    let i = Array::from_shape_vec(
        &[n, m],
        (0..(n * m) as i64).map(|k| (k * 7919) % 10007).collect(),
    )
    .unwrap();
    let ie = &i * 3i64 - 5i64;
    reduced_alike(&ie, &imax, &[]);
    reduced_alike(&ie, &imax, &[("axis", &zero)]);
    reduced_alike(&ie, &imax, &[("axis", &one)]);
}

#[test]
fn reductions_of_ragged_and_na_expressions_agree() {
    // Three parts of about 2^18 values.
    let rows = 70_000;
    let offsets: Vec<usize> = (0..=rows).map(|i| i * 9 + (i * 7) % 5).collect();
    let total = *offsets.last().unwrap();
    let x = Array::from_offsets(seq(total, 0.3), &offsets).unwrap();
    let y = Array::from_offsets(seq(total, -0.7), &offsets).unwrap();
    let mu = Array::from_shape_vec(&[rows, 1], seq(rows, 0.01)).unwrap();
    let e = (&x - &mu) * &y;
    let one = Array::from_scalar(1i64);
    for name in ["sum", "mean", "std", "min", "max", "count"] {
        reduces_alike(&e, name, &[("axis", &one)]);
    }
    for name in ["min", "max", "count"] {
        reduces_alike(&e, name, &[]);
    }
    for name in ["sum", "mean"] {
        close_alike(&e, name, &[]);
    }
    // NA: propagated per group, or skipped.
    let values = Array::from_shape_vec(&[1000, 300], seq(300_000, 0.5)).unwrap();
    let valid = (0..300_000).map(|i| i % 1001 != 7).collect::<Vec<bool>>();
    let valid = Array::from_shape_vec(&[1000, 300], valid).unwrap();
    let o = Array::from_option_parts(&values, &valid).unwrap();
    let e = &o * 2.0 - 1.0;
    let skip = Array::from_scalar(true);
    for name in ["sum", "mean", "min", "max"] {
        reduces_alike(&e, name, &[("axis", &one)]);
        reduces_alike(&e, name, &[("axis", &one), ("skip_na", &skip)]);
    }
    for name in ["min", "max"] {
        reduces_alike(&e, name, &[]);
        reduces_alike(&e, name, &[("skip_na", &skip)]);
    }
}

#[test]
fn a_failing_part_reports_the_plain_error() {
    let (n, m) = (2000, 200);
    let a =
        Array::from_shape_vec(&[n, m], (0..n * m).map(|k| (k / 2500) as f64).collect()).unwrap();
    // int8 overflows from element 320000 on (row 1600: not the first part).
    let e = (&a * 1.0).cast(&"int8".parse().unwrap());
    let sum = builtins::get("sum").unwrap();
    let axis = Array::from_scalar(1i64);
    let got = e.reduce(&sum, &opts(&[("axis", &axis)])).unwrap_err();
    let want = sum
        .call_kw(&[&a], &[])
        .and_then(|_| e.eval_stepwise())
        .unwrap_err();
    assert_eq!(got.to_string(), want.to_string());
}

/// `a`'s values as bits, every NaN as one (a NaN's payload is not a
/// promise of either path).
fn canonical_bits(a: &Array) -> Option<Vec<u64>> {
    let nan = f64::NAN.to_bits();
    bits(a).map(|b| {
        b.into_iter()
            .map(|x| if f64::from_bits(x).is_nan() { nan } else { x })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Random trees over large enough leaves that a reduction runs in
    /// several parts: in parts (where that applies) and as the plain call
    /// on the evaluated value, the same results and errors.
    #[test]
    fn random_reductions_agree(
        t in tree(10),
        (r, c) in (300usize..700, 100usize..300),
        salt in 0u64..50,
        mismatch in prop::bool::weighted(0.1),
        which in 0usize..9,
        axis in 0usize..5,
        keepdims in any::<bool>(),
        skip_na in any::<bool>(),
    ) {
        let leaves = dense_leaves(r, c, salt, mismatch);
        let t = remap(&t, leaves.len());
        let e = build(&t, &leaves);
        let name = ["sum", "mean", "min", "max", "std", "count", "all", "any", "prod"][which];
        let red = builtins::get(name).unwrap();
        let axes = [None, Some(vec![1i64]), Some(vec![-1]), Some(vec![0]), Some(vec![0, 1])];
        let axis = axes[axis].clone().map(Array::from_vec);
        let (keep, skip) = (Array::from_scalar(keepdims), Array::from_scalar(skip_na));
        let mut kw: Vec<(&str, &Array)> = vec![("keepdims", &keep)];
        if let Some(a) = &axis {
            kw.push(("axis", a));
        }
        if skip_na && name != "count" {
            kw.push(("skip_na", &skip));
        }
        let plain = e.eval_stepwise().and_then(|v| red.call_kw(&[&v], &kw));
        let got = e.reduce(&red, &opts(&kw));
        // `std` across the outer axis combines the parts' moments: close,
        // not the same last bits.
        let exact = !(name == "std" && axis.as_ref().is_none_or(|a| a.get::<i64>(&[0]) == Ok(0)));
        let same = |g: &Array, p: &Array| -> bool {
            if exact {
                return canonical_bits(g) == canonical_bits(p);
            }
            let flat = |a: &Array| a.reshape([-1i64]).unwrap().to_vec::<f64>().unwrap_or_default();
            flat(g).iter().zip(flat(p)).all(|(x, y)| {
                x == &y || (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-12 * y.abs().max(1.0)
            })
        };
        match (&got, &plain) {
            (Ok(g), Ok(p)) => {
                prop_assert_eq!(g.ty(), p.ty());
                prop_assert!(same(g, p), "{} of {}: {} vs {}", name, e, g, p);
                if exact {
                    prop_assert_eq!(g.to_string(), p.to_string());
                }
            }
            (Err(g), Err(p)) => prop_assert_eq!(g.to_string(), p.to_string()),
            _ => prop_assert!(false, "{name} of {e}: {got:?} vs {plain:?}"),
        }
        if let (Some(parts), Ok(p)) = (e.reduce_fused(&red, &opts(&kw)), &plain) {
            prop_assert!(same(&parts, p), "parts: {} of {}", name, e);
        }
    }
}

#[test]
fn small_float64_expressions_run_as_one_loop_with_the_calls_bits() {
    let sqrt = builtins::get("sqrt").unwrap();
    let abs = builtins::get("abs").unwrap();
    for shape in [
        vec![0usize],
        vec![1],
        vec![127],
        vec![129],
        vec![7, 300],
        vec![2, 3, 5],
    ] {
        let n: usize = shape.iter().product();
        let [a, b, c] = [1.0, -0.5, 0.0].map(|s| {
            let mut v = seq(n, s);
            if let Some(x) = v.get_mut(3) {
                *x = -0.0; // keeps its sign through the loop
            }
            Array::from_shape_vec(&shape, v).unwrap()
        });
        let ab = &a * &b;
        for e in [
            &a * &b + &c * 2.5 - &a,
            (&ab + 1.0) * (&ab + 2.0),
            -(&a / &c),
            sqrt.expr([abs.expr([&a - 10.0])]) / 3.0,
            1.0 / (Expr::from(&b) * &b),
        ] {
            let (x, y) = (e.eval().unwrap(), e.eval_stepwise().unwrap());
            assert_eq!(x.ty(), y.ty(), "{e}");
            assert_eq!(bits(&x), bits(&y), "{e}, shape {shape:?}");
        }
    }
    // 0-d operands only, and layouts the loop does not take (a reversed
    // view, an integer leaf, broadcasting dimensions): the same values.
    let (p, q) = (Array::from_scalar(1.5f64), Array::from_scalar(-2.0f64));
    let r = (&p * &q + 1.0).eval().unwrap();
    assert_eq!(
        (r.ty().to_string(), r.to_string()),
        ("float64".into(), "-2".into())
    );
    let v = Array::from_vec(seq(50, 0.3));
    let rev = v.index(&[Index::slice(None, None, -1)]).unwrap();
    let col = Array::from_shape_vec(&[50, 1], seq(50, 0.7)).unwrap();
    let ints = Array::from_vec((0..50i64).collect::<Vec<_>>());
    for e in [&v * &rev, &v * &col, &v * &ints] {
        let (x, y) = (e.eval().unwrap(), e.eval_stepwise().unwrap());
        assert_eq!((x.ty(), bits(&x)), (y.ty(), bits(&y)), "{e}");
    }
}

/// Small plain-float64 expressions keep their lowering per thread, by
/// shape: an expression of the same operators over arrays of other
/// types, other leaf sharing or other operators must not reuse another's
/// steps. Each is evaluated twice (lowered, then kept) and compared with
/// the stepwise values.
#[test]
fn kept_lowerings_are_reused_only_by_their_own_shape() {
    let a = Array::from_vec(seq(1000, 1.0));
    let b = Array::from_vec(seq(1000, 0.5));
    let c = Array::from_vec(seq(1000, -0.25));
    let short = Array::from_vec(seq(999, 2.0));
    let ints = Array::from_vec((0..1000).collect::<Vec<i64>>());
    let sqrt = builtins::get("sqrt").unwrap();
    let abs = builtins::get("abs").unwrap();
    let exprs: Vec<Expr<'_>> = vec![
        &a * &b + &c,
        &a * &a + &c, // a leaf shared where the first had two arrays
        &a * &b + &a,
        &a * &b - &c,  // another operator
        &a * &b + 2.0, // a scalar leaf
        &short * &short + 1.0,
        &a * &ints + &c, // another leaf type: promoted, not plain
        sqrt.expr([&a * &b]) + &c,
        abs.expr([&a * &b]) + &c, // another callable, same arity
        abs.expr([&c]) * &a - sqrt.expr([&b]),
    ];
    for _ in 0..2 {
        for e in &exprs {
            let r = e.eval().unwrap();
            let s = e.eval_stepwise().unwrap();
            assert_eq!(r.ty(), s.ty(), "types of {e}");
            assert_eq!(bits(&r), bits(&s), "bits of {e}");
            let n = r.to_vec::<f64>().unwrap().len();
            let mut out = Array::from_vec(vec![0.0f64; n]);
            if out.ty() == r.ty() {
                e.eval_into(&mut out).unwrap();
                assert_eq!(bits(&out), bits(&s), "bits into of {e}");
            }
        }
    }
    // A kept shape over arrays of the same types in other layouts (a
    // reversed leaf, an output that is every other element of a longer
    // array) reads and writes them through their own strides.
    let rev = a.index(&[Index::slice(None, None, -1)]).unwrap();
    let e = &rev * &b + &c;
    let s = e.eval_stepwise().unwrap();
    for _ in 0..2 {
        let r = e.eval().unwrap();
        assert_eq!(bits(&r), bits(&s), "bits of {e}");
        let wide = Array::from_vec(vec![0.0f64; 2000]);
        let mut out = wide.index(&[Index::slice(None, None, 2)]).unwrap();
        (&a * &b + &c).eval_into(&mut out).unwrap();
        let want = (&a * &b + &c).eval_stepwise().unwrap();
        assert_eq!(bits(&out), bits(&want), "bits into every other element");
    }
    // The same shape over arrays of another length is refused by the
    // broadcast as a call would refuse it, kept lowering or not.
    for _ in 0..2 {
        assert!((&a * &b + &short).eval().is_err());
    }
}

/// A kept lowering is looked up before an expression's weak scalars are
/// typed only where it has none: whether an integer scalar takes its
/// neighbours' type depends on its value, so an expression with weak
/// scalars is typed first, every time, and each of these keeps its own
/// type evaluated in turn (once lowered, then from the kept shapes).
#[test]
fn weak_scalars_are_typed_before_a_kept_lowering_is_reused() {
    let p = Array::from_vec((0..50).map(|i| i as i8).collect::<Vec<i8>>());
    let q = Array::from_vec((0..50).map(|i| (i % 7) as i8).collect::<Vec<i8>>());
    let f = Array::from_vec((0..50).map(|i| i as f32 * 0.5).collect::<Vec<f32>>());
    let two = Array::from_scalar(2.0f64);
    for _ in 0..3 {
        for (e, ty) in [
            (&p * &q + &p, "50 * int8"),
            (&p * &q + 1i64, "50 * int8"),
            (&p * &q + 1000i64, "50 * int64"),
            (&f * &f + &f, "50 * float32"),
            (&f * &f + 2.0, "50 * float32"),
            (&f * &f + &two, "50 * float64"),
        ] {
            let r = e.eval().unwrap();
            assert_eq!(r.ty().to_string(), ty, "{e}");
            assert_eq!(r.to_string(), e.eval_stepwise().unwrap().to_string(), "{e}");
            let mut out = Array::zeros(r.ty()).unwrap();
            e.eval_into(&mut out).unwrap();
            assert_eq!(out.to_string(), r.to_string(), "{e} into");
        }
    }
}

/// Small expressions of other data types than plain `float64` (integers,
/// `float32`, comparisons and `bool` logic, math functions) run as one
/// loop of the leaves' own loops, with the stepwise values: each is
/// evaluated three times (lowered, then kept), with `eval` and
/// `eval_into`, and again over a reversed leaf and a leaf that
/// broadcasts, which take the general path.
#[test]
fn small_expressions_of_any_builtin_type_match_the_stepwise_values() {
    let same = |x: &Array, y: &Array, what: &str| {
        assert_eq!(x.ty(), y.ty(), "type of {what}");
        match bits(y) {
            Some(b) => assert_eq!(bits(x), Some(b), "bits of {what}"),
            None => assert_eq!(x.to_string(), y.to_string(), "values of {what}"),
        }
    };
    let n = 700;
    let iv = |k: i64| Array::from_vec((0..n as i64).map(|i| (i * k) % 97 - 40).collect::<Vec<_>>());
    let (i, j, l) = (iv(1), iv(31), iv(-7));
    let narrow = |k: f64| Array::from_vec(seq(n, k).iter().map(|&x| x as f32).collect::<Vec<_>>());
    let (f, g) = (narrow(0.5), narrow(-1.25));
    let (x, y) = (Array::from_vec(seq(n, 0.01)), Array::from_vec(seq(n, 0.5)));
    let small = Array::from_vec((0..n as i32).map(|i| i % 13 - 6).collect::<Vec<_>>());
    let exp = builtins::get("exp").unwrap();
    let exprs: Vec<Expr<'_>> = vec![
        &i * &j + &l,
        &i * &j - &l * 3i64,
        (&i * &j).less(&l),
        Expr::from(&i).less(&j) & Expr::from(&l).greater_equal(&j),
        &f * &g + &f,
        -(&f / &g),
        exp.expr([&x]) * &y + 1.0,
        &small * &small - 7i32,
        select(Expr::from(&i).greater(0i64), &x, &y),
    ];
    for _ in 0..3 {
        for e in &exprs {
            let s = e.eval_stepwise().unwrap();
            same(&e.eval().unwrap(), &s, &e.to_string());
            let mut out = Array::zeros(s.ty()).unwrap();
            e.eval_into(&mut out).unwrap();
            same(&out, &s, &format!("{e} into"));
        }
    }
    // The same shapes over leaves the one loop does not take.
    let rev = i.index(&[Index::slice(None, None, -1)]).unwrap();
    let rows = Array::from_shape_vec(&[3, n], (0..3 * n as i64).collect::<Vec<_>>()).unwrap();
    for e in [&rev * &j + &l, &rows * &j + &l] {
        for _ in 0..2 {
            same(
                &e.eval().unwrap(),
                &e.eval_stepwise().unwrap(),
                &e.to_string(),
            );
        }
    }
}
