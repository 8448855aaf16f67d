//! The typed API through the facade alone: operators building expressions,
//! their evaluation against the builtins called by hand, typed reductions,
//! free functions, and builtin lookup errors.

use dynd::func;
use dynd::nd::Expr;
use dynd::prelude::*;

fn call(name: &str, args: &[&Array]) -> Array {
    builtins::get(name).unwrap().call(args).unwrap()
}

fn same(a: &Array, b: &Array) {
    assert_eq!(a.ty(), b.ty());
    assert_eq!(a.to_json(), b.to_json());
}

#[test]
fn operators_chain_and_evaluate_as_the_calls_would() {
    let a = nd::array![[1.0, 2.0], [3.0]];
    let b = nd::array![[0.5, 4.0], [2.0]];
    let c = nd::array![10.0, 20.0].reshape([2, 1]).unwrap();
    let d = nd::array![[1.0, 1.0], [2.0]];
    let e = nd::array![0.25];
    let expr = &a * &b + &c * &d - &e;
    let by_hand = call(
        "subtract",
        &[
            &call(
                "add",
                &[&call("multiply", &[&a, &b]), &call("multiply", &[&c, &d])],
            ),
            &e,
        ],
    );
    same(&expr.eval().unwrap(), &by_hand);
    assert_eq!(
        expr.to_string(),
        "subtract(add(multiply(a0, a1), multiply(a2, a3)), a4)"
    );
    // The leaves share the arrays' memory.
    assert_eq!(
        expr.leaves()[0].data_block().as_ptr(),
        a.data_block().as_ptr()
    );
}

#[test]
fn every_operand_kind_on_either_side() {
    let a = nd::array![1, 2, 3];
    let two = || Array::from_scalar(2i32);
    let cases: Vec<(Expr, &str, Array)> = vec![
        (&a + 2, "add", call("add", &[&a, &two()])),
        (2 + &a, "add", call("add", &[&two(), &a])),
        (a.clone() - 2, "subtract", call("subtract", &[&a, &two()])),
        (2 - a.clone(), "subtract", call("subtract", &[&two(), &a])),
        (&a * &a, "multiply", call("multiply", &[&a, &a])),
        (&a / 2, "divide", call("divide", &[&a, &two()])),
        (&a % 2, "remainder", call("remainder", &[&a, &two()])),
        (-&a, "negative", call("negative", &[&a])),
        (-(&a + 1) * 2, "multiply", {
            let inner = call("add", &[&a, &Array::from_scalar(1i32)]);
            call("multiply", &[&call("negative", &[&inner]), &two()])
        }),
    ];
    for (expr, op, expected) in cases {
        assert!(expr.to_string().starts_with(op), "{expr}");
        same(&expr.eval().unwrap(), &expected);
    }
    // Expressions combine with expressions, by value or by reference.
    let x = &a + 1;
    let y = &x * &x;
    let z = y.clone() - x;
    assert_eq!(z.eval().unwrap().to_string(), "[2, 6, 12]");
    // Rust scalars keep their types: f32 stays float32 with a float32 array.
    let f = Array::from_vec(vec![1.5f32, 2.5]);
    assert_eq!(
        (&f * 2.0f32).eval().unwrap().ty().to_string(),
        "2 * float32"
    );
}

#[test]
fn ragged_rows_and_na_follow_the_callables() {
    let x = Array::from_json(
        "[[1, null], [], [3]]",
        Some(&"3 * var * ?int32".parse().unwrap()),
    )
    .unwrap();
    let per_row = nd::array![10, 20, 30].reshape([3, 1]).unwrap();
    let r = (&x + &per_row).eval().unwrap();
    assert_eq!(r.ty().to_string(), "3 * var * ?int64");
    assert_eq!(r.to_json(), "[[11, null], [], [33]]");
}

#[test]
fn errors_surface_from_eval_never_from_the_operator() {
    let a = nd::array![1.0, 2.0];
    let b = nd::array![1.0, 2.0, 3.0];
    let expr = &a + &b; // builds fine
    let e = expr.eval().unwrap_err().to_string();
    assert!(e.contains("broadcast"), "{e}");
    let s = Array::from_json("[\"x\"]", None).unwrap();
    let e = (&s * 2.0).eval().unwrap_err().to_string();
    assert!(e.contains("multiply: no overload accepts"), "{e}");
}

#[test]
fn eval_into_writes_the_result_into_an_array() {
    let a = nd::array![1.0, 2.0];
    let mut out = Array::zeros(&"2 * float64".parse().unwrap()).unwrap();
    (&a * 3.0 + 1.0).eval_into(&mut out).unwrap();
    assert_eq!(out.to_string(), "[4, 7]");
    let mut wrong = Array::zeros(&"3 * float64".parse().unwrap()).unwrap();
    let e = (&a * 3.0).eval_into(&mut wrong).unwrap_err().to_string();
    assert!(e.contains("out array"), "{e}");
    // A leaf alone assigns.
    Expr::from(&a).eval_into(&mut out).unwrap();
    assert_eq!(out.to_string(), "[1, 2]");
}

#[test]
fn typed_reductions_are_the_builtins() {
    let x = nd::array![[1.0, 5.0, 3.0], [4.0], []];
    let axis1 = Array::from_scalar(1i64);
    for (name, typed) in [
        ("sum", x.sum_axis(1).unwrap()),
        ("prod", x.prod_axis(1).unwrap()),
        ("mean", x.mean_axis(1).unwrap()),
        ("count", x.count_axis(1).unwrap()),
        ("any", x.any_axis(1).unwrap()),
        ("all", x.all_axis(1).unwrap()),
    ] {
        let by_name = builtins::get(name)
            .unwrap()
            .call_kw(&[&x], &[("axis", &axis1)])
            .unwrap();
        same(&typed, &by_name);
    }
    assert_eq!(x.sum().unwrap().to_string(), "13");
    assert_eq!(x.max().unwrap().to_string(), "5");
    assert_eq!(x.min().unwrap().to_string(), "1");
    assert_eq!(x.count().unwrap().to_string(), "4");
    // Axes as usize, isize, i32, slices, arrays and vectors.
    let m = nd::array![[1, 2], [3, 4]];
    for r in [
        m.sum_axis(0usize),
        m.sum_axis(-2isize),
        m.sum_axis(0i32),
        m.sum_axis(&[0usize][..]),
    ] {
        assert_eq!(r.unwrap().to_string(), "[4, 6]");
    }
    for r in [m.sum_axis([0, 1]), m.sum_axis(vec![1usize, 0])] {
        assert_eq!(r.unwrap().to_string(), "10");
    }
    let e = m.sum_axis(2usize).unwrap_err().to_string();
    assert!(e.contains("axis"), "{e}");
}

#[test]
fn reduce_options_carry_every_keyword() {
    let x = nd::array![[1.0, 5.0], [], [3.0]];
    let opts = AxisOptions::new().axis(1).keepdims(true).initial(0.0);
    assert_eq!(x.max_with(&opts).unwrap().to_string(), "[[5], [0], [3]]");
    let m = nd::array![[true, false], [true, true]];
    let y = nd::array![[1, 2], [3, 4]];
    let masked = AxisOptions::new().axis(1).mask(&m);
    assert_eq!(y.sum_with(&masked).unwrap().to_string(), "[1, 7]");
    // A keyword the builtin does not take is named.
    let e = x
        .mean_with(&AxisOptions::new().initial(1.0))
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown keyword argument 'initial'"), "{e}");
}

#[test]
fn z_scores_per_row_with_operators_and_methods() {
    let x = nd::array![[1.0, 2.0, 3.0], [10.0, 30.0]];
    let keep = AxisOptions::new().axis(1).keepdims(true);
    let centred = (&x - &x.mean_with(&keep).unwrap()).eval().unwrap();
    assert_eq!(centred.to_string(), "[[-1, 0, 1], [-10, 10]]");
    let scale = (&centred * &centred)
        .eval()
        .unwrap()
        .mean_with(&keep)
        .unwrap();
    let z = (&centred / &func::sqrt(&scale).unwrap()).eval().unwrap();
    assert_eq!(
        z.to_json(),
        "[[-1.224744871391589, 0.0, 1.224744871391589], [-1.0, 1.0]]"
    );
}

#[test]
fn free_functions_are_the_builtins() {
    let a = nd::array![[0.5, 2.0], [4.0]];
    same(&func::sqrt(&a).unwrap(), &call("sqrt", &[&a]));
    same(&func::floor(&a).unwrap(), &call("floor", &[&a]));
    same(&func::add(&a, &a).unwrap(), &call("add", &[&a, &a]));
    // Numbers are truth values (NumPy's `logical_and`); strings are not.
    same(
        &func::logical_and(&a, &a).unwrap(),
        &call("logical_and", &[&a, &a]),
    );
    let s = nd::array!["a"];
    let e = func::logical_and(&s, &s).unwrap_err().to_string();
    assert!(e.contains("logical_and: no overload"), "{e}");
}

#[test]
fn unknown_builtins_suggest_close_names() {
    let e = builtins::get("sqrtt").unwrap_err().to_string();
    assert_eq!(e, "no builtin is called 'sqrtt' (did you mean 'sqrt'?)");
    let e = builtins::get("ad.reduce").unwrap_err().to_string();
    assert!(
        e.contains("did you mean") && e.contains("'add.reduce'"),
        "{e}"
    );
    let e = builtins::get("qqqqqqq").unwrap_err().to_string();
    assert_eq!(e, "no builtin is called 'qqqqqqq'");
    assert!(builtins::get("subtract.reduce").is_err());
    assert_eq!(builtins::get("add.reduce").unwrap().name(), "add.reduce");
}

#[test]
fn typed_scans_and_sorts_are_the_builtins() {
    let x = nd::array![[3, 1, 2], [4], [6, 5]];
    let axis1 = Array::from_scalar(1i64);
    for (name, typed) in [
        ("cumsum", x.cumsum(1).unwrap()),
        ("cumprod", x.cumprod(1usize).unwrap()),
        ("sorted", x.sorted(-1isize).unwrap()),
        (
            "maximum.accumulate",
            x.accumulate(&builtins::get("maximum").unwrap(), 1i64)
                .unwrap(),
        ),
    ] {
        let by_name = builtins::get(name)
            .unwrap()
            .call_kw(&[&x], &[("axis", &axis1)])
            .unwrap();
        same(&typed, &by_name);
    }
    assert_eq!(
        x.cumsum(1).unwrap().to_string(),
        "[[3, 4, 6], [4], [6, 11]]"
    );
    assert_eq!(x.sorted(1).unwrap().to_string(), "[[1, 2, 3], [4], [5, 6]]");
    // An axis past i64 saturates, and is out of range like any other.
    let e = x.cumsum(u64::MAX).unwrap_err().to_string();
    assert!(e.contains("out of bounds"), "{e}");
    let e = x
        .accumulate(&builtins::get("subtract").unwrap(), 1)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "subtract has no scan: it is not declared associative");
}

/// Every builtin is reachable from Rust by name: a function of
/// `dynd::func`, a method of `ArrayExt`, or (listed here) a method of
/// `Array`/`ArrayOps` or another function; checked against the pinned
/// facade surface, so a new builtin without a Rust way in fails here.
#[test]
fn every_builtin_has_a_rust_function_or_method() {
    let surface = include_str!("api/facade.txt");
    let elsewhere = [
        ("cast", "ArrayOps::cast"),
        ("index", "Array::index"),
        ("reshape", "Array::reshape"),
        ("take", "ArrayOps::take"),
        ("zeros", "Array::zeros"),
        ("split", "ArrayOps::split_strings"),
        ("range", "func::arange"),
    ];
    let mut missing = Vec::new();
    for c in dynd::func::builtins::all() {
        let name = c.name();
        let reached = surface.contains(&format!("fn dynd::func::{name} "))
            || surface.contains(&format!("fn dynd::func::{name}_ "))
            || surface.contains(&format!("use dynd::func::{name} = "))
            || surface.contains(&format!("method dynd::func::ArrayExt::{name}\n"))
            || elsewhere.iter().any(|(n, _)| *n == name);
        if !reached {
            missing.push(name.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "builtins without a Rust function: {missing:?}"
    );
}

/// The functions the builtins' tables generate beyond the elementwise
/// ones, and the hand-written constructors, each against the builtin
/// called by name.
#[test]
fn table_generated_functions_match_the_builtins() -> Result<(), dynd::Error> {
    use dynd::func::AxisOptions;
    let x = nd::array![[1.5, null], [null, null, 4.0]];
    let by_name = |name: &str, args: &[&nd::Array]| builtins::get(name)?.call(args);
    let fill = nd::Array::from_scalar(0.0);
    assert_eq!(
        func::fill_na(&x, &fill)?.to_string(),
        "[[1.5, 0], [0, 0, 4]]"
    );
    assert_eq!(
        func::is_na(&x)?.to_string(),
        by_name("is_na", &[&x])?.to_string()
    );
    let per_row = AxisOptions::new().axis(1);
    assert_eq!(func::null_count(&x, &per_row)?.to_string(), "[1, 2]");
    assert_eq!(func::null_count(&x, &AxisOptions::new())?.to_string(), "3");
    let tiny = nd::array![1e16, 1.0, -1e16];
    assert_eq!(
        func::kahan_sum(&tiny, &AxisOptions::new())?.to_string(),
        "1"
    );
    let (a, b) = (
        nd::array![[1.0, 2.0], [3.0, 4.0]],
        nd::array![[0.0, 1.0], [1.0, 0.0]],
    );
    assert_eq!(func::matmul(&a, &b)?.to_string(), "[[2, 1], [4, 3]]");
    assert_eq!(func::dot(&a, &b)?.to_string(), "[2, 3]");
    assert_eq!(
        func::cross(&nd::array![1, 0, 0], &nd::array![0, 1, 0])?.to_string(),
        "[0, 0, 1]"
    );
    assert_eq!(func::norm(&nd::array![3.0, 4.0])?.to_string(), "5");
    let cond = nd::array![true, false];
    assert_eq!(
        func::where_(&cond, &nd::array![1, 2], &nd::array![10, 20])?.to_string(),
        "[1, 20]"
    );
    let words = nd::array!["añb", ""];
    assert_eq!(func::string_length(&words)?.to_string(), "[3, 0]");
    let ints = [0i64, 5, 2].map(nd::Array::from_scalar);
    let by_hand = by_name("range", &[&ints[0], &ints[1], &ints[2]])?;
    assert_eq!(func::arange(0, 5, 2)?.to_string(), by_hand.to_string());
    assert_eq!(
        func::ones(&"2 * bool".parse()?)?.to_string(),
        "[true, true]"
    );
    assert_eq!(
        func::full(&"2 * int16".parse()?, &nd::array![7])?.to_string(),
        "[7, 7]"
    );
    Ok(())
}

#[test]
fn functions_over_axes_take_typed_options() {
    let x = nd::array![[3.0, 1.0, 2.0], [0.5, 9.0, -1.0]];
    let opts = AxisOptions::new().axis(-1).ascending(false);
    let by_options = builtins::SORT.callable().reduce_with(&x, &opts).unwrap();
    let no = Array::from_scalar(false);
    let by_keyword = builtins::SORT
        .callable()
        .call_kw(&[&x], &[("ascending", &no)])
        .unwrap();
    same(&by_options, &by_keyword);
    assert_eq!(by_options.to_string(), "[[3, 2, 1], [9, 0.5, -1]]");
    let keep = AxisOptions::new().axis(1).keepdims(true);
    let am = builtins::ARGMAX.callable().reduce_with(&x, &keep).unwrap();
    assert_eq!(am.to_string(), "[[0], [1]]");
    let sm = builtins::SOFTMAX
        .callable()
        .reduce_with(&x, &AxisOptions::new())
        .unwrap();
    assert_eq!(sm.ty().to_string(), "2 * 3 * float64");
    // A keyword the function does not take is refused, naming it.
    let err = builtins::FLIP
        .callable()
        .reduce_with(&x, &AxisOptions::new().keepdims(true))
        .unwrap_err();
    assert!(err.to_string().contains("keepdims"), "{err}");
    // `diff`'s `n`, `unique`'s `return_counts`: typed, and the same as by
    // keyword.
    let d2 = builtins::DIFF
        .callable()
        .reduce_with(&x, &AxisOptions::new().n(2))
        .unwrap();
    let two = Array::from_scalar(2i64);
    let by_keyword = builtins::DIFF
        .callable()
        .call_kw(&[&x], &[("n", &two)])
        .unwrap();
    same(&d2, &by_keyword);
    assert_eq!(d2.to_string(), "[[3], [-18.5]]");
    let ints = nd::array![3, 1, 3, 3];
    let counted = builtins::UNIQUE
        .callable()
        .reduce_with(&ints, &AxisOptions::new().return_counts(true))
        .unwrap();
    assert_eq!(counted.to_string(), "[[1, 3], [1, 3]]");
    // Two arrays and options: `take_along_axis` and `pad` through
    // `call_with`; the wrong number of arrays is refused, naming both.
    let order = builtins::ARGSORT.callable().reduce_with(&x, &opts).unwrap();
    let taken = builtins::TAKE_ALONG_AXIS
        .callable()
        .call_with(&[&x, &order], &AxisOptions::new().axis(1))
        .unwrap();
    same(&taken, &by_options);
    let rows = nd::array![[1, 2, 3], [4]];
    let padded = builtins::PAD
        .callable()
        .call_with(
            &[&rows, &Array::from_scalar(2i64)],
            &AxisOptions::new()
                .clip(true)
                .fill(&Array::from_scalar(0i64)),
        )
        .unwrap();
    assert_eq!(padded.to_string(), "[[1, 2], [4, 0]]");
    let err = builtins::PAD
        .callable()
        .call_with(&[&rows], &AxisOptions::new())
        .unwrap_err();
    assert!(
        err.to_string().contains("takes 2 argument(s), 1 given"),
        "{err}"
    );
    let err = builtins::DIFF
        .callable()
        .call_kw(&[&x], &[("n", &Array::from_scalar(-1i64))])
        .unwrap_err();
    assert!(err.to_string().contains("at least 0"), "{err}");
}
