//! Fused evaluation of expressions agrees with evaluating them node by
//! node: the same values (bit for bit), the same types, the same errors,
//! over dense layouts (views with negative strides, transposes,
//! broadcasting), ragged rows, NA, casts and shared subexpressions.

use dynd::func::{builtins, select, Eval};
use dynd::nd::expr::Expr;
use dynd::nd::{array, Array, Index};
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
    assert_eq!(r.to_string(), smooth_step::call(&x, 1.5).unwrap().to_string());
    // An error in the expression names its node.
    let e = smooth_step::call(&x + &Array::from_vec(vec![1.0, 2.0]), 1.5).unwrap_err();
    assert!(e.to_string().starts_with("in 'add(a0, a1)': "), "{e}");
}
