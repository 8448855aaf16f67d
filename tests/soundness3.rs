//! The third soundness pass (issue 57), through the facade as a user
//! reaches it: each library reproducer as a regression test, and every
//! builtin run on read-only input and on a strided view. CI runs this
//! module again on the AVX2 and baseline paths (`DYND_SIMD`).

use dynd::func::builtins;
use dynd::nd::{Index, Levels};
use dynd::prelude::*;

fn get(name: &str) -> Callable {
    builtins::get(name).expect("a builtin")
}

fn json(text: &str) -> Array {
    Array::from_json(text, None).expect("valid JSON")
}

fn typed(text: &str, ty: &str) -> Array {
    Array::from_json(text, Some(&ty.parse().unwrap())).expect("valid JSON")
}

fn f64s(a: &Array) -> Vec<f64> {
    a.to_vec::<f64>().expect("float64 values")
}

/// The same bits, NaN equal to NaN and the zeros' signs apart.
fn same_bits(got: &[f64], want: &[f64]) -> bool {
    got.len() == want.len()
        && got
            .iter()
            .zip(want)
            .all(|(g, w)| g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()))
}

#[test]
fn w1_power_of_a_negative_base_past_2_to_52() {
    let x = json("[-1.0, -2.0, -0.5, -1.0, -3.0]");
    let y = json("[4503599627370497.0, 9007199254740994.0, 1.4929381599246638e16, 9007199254740993.0, 4503599627370496.0]");
    let r = f64s(&get("power").call(&[&x, &y]).unwrap());
    // 2^52 + 1 is odd; 2^53 + 2 and everything from 2^53 up are even.
    assert!(
        same_bits(&r, &[-1.0, f64::INFINITY, 0.0, 1.0, f64::INFINITY]),
        "{r:?}"
    );
    // Every integer between 2^52 and 2^53 by parity, against the
    // positive base's value.
    for k in [1u64, 3, 5, 1 << 20, (1 << 52) - 1] {
        let y = (4_503_599_627_370_496u64 + k) as f64;
        let odd = k % 2 == 1;
        let r = f64s(
            &get("power")
                .call(&[&json("[-1.0]"), &Array::from_vec(vec![y])])
                .unwrap(),
        );
        assert_eq!(r, [if odd { -1.0 } else { 1.0 }], "(-1)^{y}");
        assert_eq!(dynd::math::pow(-1.0, y), r[0]);
    }
    let r = get("power")
        .call(&[
            &typed("[-1.0]", "1 * float32"),
            &typed("[16777217.0]", "1 * float32"),
        ])
        .unwrap();
    assert_eq!(r.to_string(), "[1]");
}

#[test]
fn w2_w3_w4_inverse_hyperbolic_and_float32_functions_within_one_ulp() {
    let r = f64s(
        &get("arccosh")
            .call(&[&json("[1.7976931348623157e308, 1.0000000000000002]")])
            .unwrap(),
    );
    assert_eq!(r[0], 710.475860073944);
    // acosh(1 + 2^-52) = 2.1073424255447017e-08 (correctly rounded).
    assert!(
        (r[1] - 2.1073424255447017e-08).abs() <= 2.0 * f64::EPSILON * r[1],
        "{}",
        r[1]
    );
    let r = f64s(
        &get("arctanh")
            .call(&[&json("[-0.9999999999999999]")])
            .unwrap(),
    );
    assert!(
        (r[0] + 18.714973875118524).abs() <= 18.8 * f64::EPSILON,
        "{}",
        r[0]
    );
    // float32: within one ULP of the correctly rounded values.
    let cases: [(&str, f32, f32); 4] = [
        ("sinh", -0.768_481_1, -0.846_385_7),
        ("arccosh", 1.000_000_4, 8.457_279e-4),
        ("arctanh", -0.999_984_2, -5.874_470_7),
        ("cosh", -0.768_481_1, 1.310_102_6),
    ];
    for (f, x, want) in cases {
        let a = Array::from_vec(vec![x]);
        let got = get(f).call(&[&a]).unwrap().to_vec::<f32>().unwrap()[0];
        let ulps = (got.to_bits() as i64 - want.to_bits() as i64).abs();
        assert!(ulps <= 1, "{f}({x}) = {got}, want {want} ({ulps} ULP)");
    }
}

#[test]
fn w5_sine_of_a_huge_argument_near_a_multiple_of_pi_over_2() {
    let r = f64s(
        &get("sin")
            .call(&[&json("[1.2853022199154463e174]")])
            .unwrap(),
    );
    let want = -4.970732575237069e-18;
    assert!((r[0] - want).abs() <= want.abs() * f64::EPSILON, "{}", r[0]);
    assert_eq!(dynd::math::sin(1.2853022199154463e174), r[0]);
}

#[test]
fn w6_complex_power_with_an_integer_exponent_multiplies_out() {
    let z = typed("[[1, 2]]", "1 * complex[float64]");
    let p = |n: f64| {
        get("power")
            .call(&[&z, &typed(&format!("[[{n}, 0]]"), "1 * complex[float64]")])
            .unwrap()
            .to_string()
    };
    assert_eq!(p(2.0), "[[-3, 4]]");
    assert_eq!(p(1.0), "[[1, 2]]");
    assert_eq!(p(0.0), "[[1, 0]]");
    assert_eq!(p(3.0), "[[-11, -2]]");
    assert_eq!(p(-1.0), "[[0.2, -0.4]]");
    // (100i)^89 = 100^89 i exactly up to the last rounding.
    let r = get("power")
        .call(&[
            &typed("[[0, 100]]", "1 * complex[float64]"),
            &typed("[[89, 0]]", "1 * complex[float64]"),
        ])
        .unwrap();
    let want = 1e178;
    let im = match r.to_value() {
        dynd::nd::Value::List(v) => match &v[0] {
            dynd::nd::Value::List(p) => match p[1] {
                dynd::nd::Value::Float(f) => f,
                _ => panic!(),
            },
            _ => panic!(),
        },
        _ => panic!(),
    };
    assert!((im - want).abs() <= 4.0 * f64::EPSILON * want, "{im:e}");
    let r = get("power")
        .call(&[
            &typed("[[0, -2.5]]", "1 * complex[float32]"),
            &typed("[[89, 0]]", "1 * complex[float32]"),
        ])
        .unwrap();
    assert!(r.to_string().starts_with("[[0, "), "{r}");
}

#[test]
fn w7_complex_log_near_the_unit_circle_keeps_its_real_part() {
    let r = get("log")
        .call(&[&typed("[[0.6, 0.8], [1, 1e-10]]", "2 * complex[float64]")])
        .unwrap();
    // Correctly rounded (NumPy's real part, 2.220446049250313e-17, is one
    // ULP below; 1e-10 is not exactly a double, hence the last digit).
    assert_eq!(
        r.to_string(),
        "[[2.2204460492503132e-17, 0.9272952180016123], [5.0000000000000005e-21, 1e-10]]"
    );
    let r = get("log")
        .call(&[&typed("[[0.6, 0.8]]", "1 * complex[float32]")])
        .unwrap();
    assert!(r.to_string().starts_with("[[2.3841858e-8, "), "{r}");
}

#[test]
fn w8_complex64_arctan_and_arctanh_of_huge_arguments() {
    let r = get("arctan")
        .call(&[&typed("[[[0, 0], [0, 1e20]]]", "1 * 2 * complex[float32]")])
        .unwrap();
    assert_eq!(r.to_string(), "[[[0, 0], [1.5707964, 1e-20]]]");
    let r = get("arctanh")
        .call(&[&typed("[[1e20, 0]]", "1 * complex[float32]")])
        .unwrap();
    assert_eq!(r.to_string(), "[[1e-20, 1.5707964]]");
}

#[test]
fn w9_a_zero_remainder_takes_the_divisors_sign() {
    for ty in ["3 * float64", "3 * float32", "3 * float16"] {
        let r = get("remainder")
            .call(&[
                &typed("[0.0, 4.0, -4.0]", ty),
                &typed("[-1.0, -2.0, 2.0]", ty),
            ])
            .unwrap();
        let signs = |a: &Array| -> Vec<bool> {
            f64s(
                &a.cast(&"3 * float64".parse().unwrap(), ErrorMode::NoCheck)
                    .unwrap(),
            )
            .iter()
            .map(|z| *z == 0.0 && z.is_sign_negative())
            .collect()
        };
        assert_eq!(signs(&r), [true, true, false], "{ty}: {r}");
        let (_, m) = dynd::func::divmod(
            &typed("[0.0, 4.0, -4.0]", ty),
            &typed("[-1.0, -2.0, 2.0]", ty),
        )
        .unwrap();
        assert_eq!(signs(&m), [true, true, false], "{ty}: {m}");
    }
}

#[test]
fn w10_spacing_of_either_zero_is_positive() {
    let r = f64s(&get("spacing").call(&[&json("[-0.0, 0.0, -1.0]")]).unwrap());
    assert!(same_bits(&r, &[5e-324, 5e-324, -f64::EPSILON]), "{r:?}");
    let r = get("spacing")
        .call(&[&typed("[-0.0]", "1 * float32")])
        .unwrap();
    assert_eq!(r.to_vec::<f32>().unwrap(), [f32::from_bits(1)]);
    let r = get("spacing")
        .call(&[&typed("[-0.0]", "1 * float16")])
        .unwrap();
    assert_eq!(r.to_string(), "[6e-8]");
}

#[test]
fn nonzero_of_a_0d_value_is_an_error() {
    let e = dynd::func::nonzero(&typed("5", "int64"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("nonzero") && e.contains("atleast_1d"), "{e}");
    assert_eq!(
        dynd::func::nonzero(&json("[0, 5]")).unwrap()[0].to_string(),
        "[1]"
    );
}

/// The scalar `dynd::math` function called `name`, for `f64` or `f32`.
macro_rules! scalar_fn {
    ($name:expr, $t:ty) => {{
        let f: fn($t) -> $t = match $name {
            "sin" => dynd::math::sin,
            "cos" => dynd::math::cos,
            "tan" => dynd::math::tan,
            "exp" => dynd::math::exp,
            "log" => dynd::math::log,
            "arcsinh" => dynd::math::arcsinh,
            "arccosh" => dynd::math::arccosh,
            "tanh" => dynd::math::tanh,
            _ => dynd::math::cbrt,
        };
        f
    }};
}

#[test]
fn scalar_math_functions_give_the_loops_bits() {
    let xs: Vec<f64> = (0..3000).map(|i| i as f64 * 0.81 + 2415.0).collect();
    for f in [
        "sin", "cos", "tan", "exp", "log", "arcsinh", "arccosh", "tanh", "cbrt",
    ] {
        let loop_bits = f64s(&get(f).call(&[&Array::from_vec(xs.clone())]).unwrap());
        let scalar = scalar_fn!(f, f64);
        for (&x, &l) in xs.iter().zip(&loop_bits) {
            assert_eq!(scalar(x).to_bits(), l.to_bits(), "{f}({x})");
        }
        let xs32: Vec<f32> = xs.iter().map(|&x| (x * 1e-3) as f32).collect();
        let l32 = get(f)
            .call(&[&Array::from_vec(xs32.clone())])
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        let scalar = scalar_fn!(f, f32);
        for (&x, &l) in xs32.iter().zip(&l32) {
            assert_eq!(scalar(x).to_bits(), l.to_bits(), "{f}({x}) as float32");
        }
    }
}

#[test]
fn levels_whose_lengths_overflow_are_an_error() {
    let e = Array::from_levels(Levels::<f64> {
        dims: vec![Dim::Var, Dim::Var],
        lengths: vec![vec![2], vec![usize::MAX, 1]],
        values: vec![],
    })
    .unwrap_err();
    assert!(e.to_string().contains("sum past"), "{e}");
}

#[test]
fn sorting_read_only_input_returns_a_sorted_copy() {
    static VALUES: [f64; 4] = [3.0, f64::NAN, 1.0, 2.0];
    let x = Array::from_static(&VALUES);
    assert!(x.is_readonly());
    assert_eq!(
        dynd::func::sort(&x, 0, true).unwrap().to_string(),
        "[1, 2, 3, NaN]"
    );
    assert_eq!(x.sorted(0).unwrap().to_string(), "[1, 2, 3, NaN]");
    assert_eq!(
        get("sorted").call(&[&x]).unwrap().to_string(),
        "[1, 2, 3, NaN]"
    );
    // The input is as it was, and still read-only; sorting it in place
    // is refused.
    assert_eq!(x.to_string(), "[3, NaN, 1, 2]");
    let mut y = x.clone();
    assert!(y.sort(0, false).is_err());
}

/// Every builtin, called with one to three arguments, gives the same
/// result (or the same error) on `plain`, a writable array, as on each of
/// `others` (the same values in another memory or layout); the number of
/// calls that succeeded and the differences.
fn same_as_plain(plain: &Array, others: &[(&str, &Array)]) -> (usize, Vec<String>) {
    let show = |r: &Result<Array, dynd::Error>| {
        r.as_ref().map(|w| w.to_string()).map_err(|e| e.to_string())
    };
    let mut checked = 0;
    let mut failures = Vec::new();
    for c in builtins::all() {
        for arity in 1..=3 {
            let want = c.call(&vec![plain; arity]);
            for (what, a) in others {
                let got = c.call(&vec![*a; arity]);
                if show(&want) != show(&got) {
                    failures.push(format!(
                        "{}({arity} x {} {what}): {:?} vs {:?}",
                        c.name(),
                        a.ty(),
                        show(&want),
                        show(&got)
                    ));
                }
            }
            checked += want.is_ok() as usize;
        }
    }
    (checked, failures)
}

#[test]
fn every_builtin_takes_read_only_input_and_views() {
    static FLOATS: [f64; 6] = [2.5, -1.0, 0.5, 4.0, 3.0, 1.5];
    static INTS: [i64; 6] = [3, -1, 0, 4, 2, 7];
    fn variants<T: dynd::nd::Element + Copy>(values: &'static [T]) -> [Array; 3] {
        let plain = Array::from_vec(values.to_vec());
        let read_only = Array::from_static(values);
        let mut doubled = Vec::with_capacity(2 * values.len());
        for &v in values {
            doubled.extend([v, v]);
        }
        let view = Array::from_vec(doubled)
            .index(&[Index::slice(None, None, 2)])
            .unwrap();
        [plain, read_only, view]
    }
    let shaped = |a: &Array| a.reshape([2i64, 3]).unwrap();
    let (mut checked, mut failures) = (0, Vec::new());
    for inputs in [variants(&FLOATS), variants(&INTS)] {
        for two_d in [false, true] {
            let [plain, read_only, view] =
                inputs.clone().map(|a| if two_d { shaped(&a) } else { a });
            assert!(read_only.is_readonly());
            let (n, f) = same_as_plain(&plain, &[("read-only", &read_only), ("view", &view)]);
            checked += n;
            failures.extend(f);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 300, "only {checked} calls succeeded");
}

/// The same over arrays from Arrow, whose buffers are read-only (the first
/// `sort` a Parquet user runs).
#[cfg(feature = "arrow")]
#[test]
fn every_builtin_takes_arrow_input() {
    use dynd::nd::arrow_interop::arrow_array::{Float64Array, Int64Array};
    let floats =
        Array::from_arrow(&Float64Array::from(vec![2.5, -1.0, 0.5, 4.0, 3.0, 1.5])).unwrap();
    let ints = Array::from_arrow(&Int64Array::from(vec![3i64, -1, 0, 4, 2, 7])).unwrap();
    let (mut checked, mut failures) = (0, Vec::new());
    for arrow in [floats, ints] {
        assert!(arrow.is_readonly(), "{}", arrow.ty());
        let plain = arrow.clone().into_writable().unwrap();
        let (n, f) = same_as_plain(&plain, &[("from Arrow", &arrow)]);
        checked += n;
        failures.extend(f);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(checked > 150, "only {checked} calls succeeded");
    let sorted = dynd::func::sort(
        &Array::from_arrow(&Float64Array::from(vec![3.0, 1.0])).unwrap(),
        0,
        true,
    );
    assert_eq!(sorted.unwrap().to_string(), "[1, 3]");
}

#[test]
fn result_types_follow_numpy_2() {
    let i8s = typed("[1, -2, 3]", "3 * int8");
    let ty = |f: &str, a: &Array| get(f).call(&[a]).unwrap().ty().to_string();
    assert_eq!(ty("rint", &i8s), "3 * float16");
    assert_eq!(ty("rint", &json("[1, 2]")), "2 * float64");
    assert_eq!(ty("floor", &i8s), "3 * int8");
    assert_eq!(ty("imag", &i8s), "3 * int8");
    assert_eq!(ty("angle", &json("[true, false]")), "2 * float64");
    assert_eq!(ty("angle", &i8s), "3 * float16");
}

#[test]
fn logical_functions_take_numbers_and_complex_numbers_order() {
    let r = get("logical_and")
        .call(&[&json("[1.5, 0.0, NaN]"), &json("[2, 3, 1]")])
        .unwrap();
    assert_eq!(r.to_string(), "[true, false, true]");
    assert_eq!(
        get("logical_not")
            .call(&[&json("[0, 7]")])
            .unwrap()
            .to_string(),
        "[true, false]"
    );
    let a = typed("[[1, 2], [1, 1], [NaN, 0]]", "3 * complex[float64]");
    let b = typed("[[1, 1], [2, 0], [2, 0]]", "3 * complex[float64]");
    let f = |name: &str| get(name).call(&[&a, &b]).unwrap().to_string();
    assert_eq!(f("maximum"), "[[1, 2], [2, 0], [NaN, 0]]");
    assert_eq!(f("fmax"), "[[1, 2], [2, 0], [2, 0]]");
    assert_eq!(f("minimum"), "[[1, 1], [1, 1], [NaN, 0]]");
    assert_eq!(f("less"), "[false, true, false]");
    assert_eq!(f("greater_equal"), "[true, false, false]");
}

#[test]
fn len_and_dims() {
    let a = json("[[1, 2, 3], [4, 5, 6]]");
    assert_eq!((a.len(), a.dims().unwrap()), (2, vec![2, 3]));
    let r = typed("[[1], [2, 3], []]", "var * var * int64");
    assert_eq!(r.len(), 3);
    assert!(r.dims().unwrap_err().to_string().contains("var"));
    assert_eq!(typed("5", "int64").len(), 0);
    assert!(Array::from_vec(Vec::<f64>::new()).is_empty());
}

#[test]
fn unique_along_an_axis_with_counts_and_complex_sort() {
    let x = json("[[1, 2], [0, 5], [1, 2]]");
    let unique = get("unique");
    let axis = |a: i64| Array::from_scalar(a);
    let r = unique.call_kw(&[&x], &[("axis", &axis(0))]).unwrap();
    assert_eq!(r.to_string(), "[[0, 5], [1, 2]]");
    let cols = json("[[1, 2, 1], [0, 5, 0]]");
    let r = unique.call_kw(&[&cols], &[("axis", &axis(1))]).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        ("[[1, 2], [0, 5]]".into(), "2 * 2 * int64".into())
    );
    // Ragged rows: each row on its own, as before.
    let ragged = typed("[[3, 1, 3], []]", "2 * var * int64");
    let r = unique.call_kw(&[&ragged], &[("axis", &axis(-1))]).unwrap();
    assert_eq!(r.to_string(), "[[1, 3], []]");
    let yes = Array::from_scalar(true);
    let r = unique
        .call_kw(&[&json("[3, 1, 3, NaN, NaN]")], &[("return_counts", &yes)])
        .unwrap();
    assert_eq!(r.ty().to_string(), "(3 * float64, 3 * int64)");
    assert_eq!(r.to_string(), "[[1, 3, NaN], [1, 2, 2]]");
    let z = typed(
        "[[2, 1], [1, 5], [1, 2], [NaN, 0], [1, NaN], [-1, 0]]",
        "6 * complex[float64]",
    );
    assert_eq!(
        dynd::func::sort(&z, 0, true).unwrap().to_string(),
        "[[-1, 0], [1, 2], [1, 5], [2, 1], [1, NaN], [NaN, 0]]"
    );
}

/// NEP 50: a Rust number in an expression is a weak scalar; an explicit
/// 0-d array is strong.
#[test]
fn rust_scalars_in_expressions_are_weak() {
    use dynd::func::Eval;
    let f32s = typed("[1.5, 2]", "2 * float32");
    let ty = |e: dynd::nd::expr::Expr<'_>| e.eval().unwrap().ty().to_string();
    assert_eq!(ty(&f32s * 1.0), "2 * float32");
    assert_eq!(ty(2.0 * &f32s + 1), "2 * float32");
    assert_eq!(ty((&f32s * 2.0).greater(1.0)), "2 * bool");
    let i8s = typed("[1, -2]", "2 * int8");
    assert_eq!(ty(&i8s + 1), "2 * int8");
    assert_eq!(ty(&i8s * 2i64), "2 * int8");
    // A value that does not fit widens, as before; a float takes float64.
    assert_eq!(ty(&i8s + 300), "2 * int32");
    assert_eq!((&i8s + 300).eval().unwrap().to_string(), "[301, 298]");
    assert_eq!(ty(&i8s * 1.5), "2 * float64");
    let u8s = typed("[0, 255]", "2 * uint8");
    assert_eq!((&u8s + 1).eval().unwrap().to_string(), "[1, 0]");
    // Strong: an explicit 0-d array, and scalars among themselves.
    let one = Array::from_scalar(1.0f64);
    assert_eq!(ty(&f32s * &one), "2 * float64");
    assert_eq!(ty(dynd::nd::expr::Expr::from(2.0f32) * 3i32), "float64");
    // The same values as the calls with the converted scalar.
    let want = get("multiply")
        .call(&[&f32s, &typed("2", "float32")])
        .unwrap();
    assert_eq!((&f32s * 2.0).eval().unwrap().to_string(), want.to_string());
    // Reductions and eval_into see the same types.
    assert_eq!((&f32s * 2.0).max().unwrap().ty().to_string(), "float32");
    let mut out = Array::from_vec(vec![0.0f32; 2]);
    (&f32s * 2.0).eval_into(&mut out).unwrap();
    assert_eq!(out.to_string(), "[3, 4]");
}
