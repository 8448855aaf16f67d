//! Exponentials, logarithms, inverse trigonometric and hyperbolic
//! functions, angle conversions and `hypot` (22 functions), real and
//! complex.

use std::f64::consts::{FRAC_PI_2, LN_2, PI};

use dynd_arrfunc::builtins;
use dynd_kernels::{Array, Complex};

use super::{arr, check, close, map1, map2, show};

const INF: f64 = f64::INFINITY;
const NAN: f64 = f64::NAN;
const TINY: f64 = 5e-324;

#[test]
fn exponentials_and_logarithms_at_their_edges() {
    let f = |name: &str, x: &[f64]| map1::<f64, f64>(name, x);
    check(
        "exp2",
        &f(
            "exp2",
            &[-1.0, 0.0, 10.0, 1024.0, -1075.0, NAN, -INF, -1074.0],
        ),
        &[0.5, 1.0, 1024.0, INF, 0.0, NAN, 0.0, TINY],
    );
    check(
        "expm1",
        &f("expm1", &[0.0, -0.0, 1e-20, 710.0, -INF, INF]),
        &[0.0, -0.0, 1e-20, INF, -1.0, INF],
    );
    check(
        "log2",
        &f("log2", &[8.0, 0.0, -1.0, INF, 0.5, TINY, -0.0]),
        &[3.0, -INF, NAN, INF, -1.0, -1074.0, -INF],
    );
    check(
        "log10",
        &f("log10", &[1000.0, 1.0, 0.0, -0.0, -1.0, INF]),
        &[3.0, 0.0, -INF, -INF, NAN, INF],
    );
    check(
        "log1p",
        &f("log1p", &[0.0, -0.0, 1e-20, -1.0, -2.0, INF]),
        &[0.0, -0.0, 1e-20, -INF, NAN, INF],
    );
    // float32 keeps its type.
    check(
        "exp2 f32",
        &map1::<f32, f32>("exp2", &[3.0, -150.0]),
        &[8.0, 0.0],
    );
}

#[test]
fn logaddexp_does_not_overflow() {
    let x = [1000.0, 0.0, -INF, INF, 1.0, -INF];
    let y = [1000.0, 0.0, -INF, INF, NAN, 3.0];
    check(
        "logaddexp",
        &map2::<f64, f64, f64>("logaddexp", &x, &y),
        &[1000.0 + LN_2, LN_2, -INF, INF, NAN, 3.0],
    );
    // ln(e + e²) = 1 + ln(1 + e) = 2.31326168751822283404...
    close(
        "logaddexp(1, 2)",
        &map2::<f64, f64, f64>("logaddexp", &[1.0], &[2.0]),
        &[2.3132616875182228],
        1,
    );
    check(
        "logaddexp2",
        &map2::<f64, f64, f64>(
            "logaddexp2",
            &[1000.0, 0.0, 3.0, -INF],
            &[1000.0, 0.0, -INF, -INF],
        ),
        &[1001.0, 1.0, 3.0, -INF],
    );
}

#[test]
fn float_power_computes_in_double() {
    assert_eq!(
        show(
            "float_power",
            &[
                &arr("[2, 4]", "2 * int64"),
                &arr("[-1, 0.5]", "2 * float64")
            ]
        ),
        "[0.5, 2] : 2 * float64"
    );
    assert_eq!(
        show(
            "float_power",
            &[&arr("[2]", "1 * float32"), &arr("[0.5]", "1 * float32")]
        ),
        "[1.4142135623730951] : 1 * float64"
    );
}

#[test]
fn inverse_trigonometric_and_hyperbolic_of_reals() {
    let f = |name: &str, x: &[f64]| map1::<f64, f64>(name, x);
    check(
        "arcsin",
        &f("arcsin", &[1.0, -1.0, 2.0, -0.0, NAN]),
        &[FRAC_PI_2, -FRAC_PI_2, NAN, -0.0, NAN],
    );
    check(
        "arccos",
        &f("arccos", &[1.0, -1.0, 0.0, 1.5]),
        &[0.0, PI, FRAC_PI_2, NAN],
    );
    check(
        "arctan",
        &f("arctan", &[INF, -INF, -0.0, 1e-300]),
        &[FRAC_PI_2, -FRAC_PI_2, -0.0, 1e-300],
    );
    check(
        "sinh",
        &f("sinh", &[0.0, -0.0, 711.0, -INF, 1e-300]),
        &[0.0, -0.0, INF, -INF, 1e-300],
    );
    check(
        "cosh",
        &f("cosh", &[0.0, -711.0, NAN, -INF]),
        &[1.0, INF, NAN, INF],
    );
    check(
        "tanh",
        &f("tanh", &[0.0, -0.0, 20.0, -INF, 1e-300]),
        &[0.0, -0.0, 1.0, -1.0, 1e-300],
    );
    check(
        "arcsinh",
        &f("arcsinh", &[0.0, -0.0, -INF, 1e-300]),
        &[0.0, -0.0, -INF, 1e-300],
    );
    close(
        "arcsinh big",
        &f("arcsinh", &[1e300]),
        &[(2e300f64).ln()],
        2,
    );
    check("arccosh", &f("arccosh", &[1.0, 0.5, INF]), &[0.0, NAN, INF]);
    check(
        "arctanh",
        &f("arctanh", &[0.0, -0.0, 1.0, -1.0, 2.0]),
        &[0.0, -0.0, INF, -INF, NAN],
    );
    check("deg2rad", &f("deg2rad", &[180.0, -0.0]), &[PI, -0.0]);
    check("radians", &f("radians", &[90.0]), &[FRAC_PI_2]);
    check("rad2deg", &f("rad2deg", &[PI, INF]), &[180.0, INF]);
    check("degrees", &f("degrees", &[FRAC_PI_2]), &[90.0]);
    check(
        "hypot",
        &map2::<f64, f64, f64>(
            "hypot",
            &[3.0, INF, NAN, 1e300, 1e-320],
            &[4.0, NAN, INF, 1e300, 0.0],
        ),
        &[5.0, INF, INF, 1.4142135623730952e300, 1e-320],
    );
    // Integers promote to a float (int16 to float32, as in NumPy).
    assert_eq!(
        show("arctanh", &[&arr("[0]", "1 * int16")]),
        "[0] : 1 * float32"
    );
}

type C = Complex<f64>;

fn cz(re: f64, im: f64) -> C {
    Complex::new(re, im)
}

/// Within a few ulps of the larger part of `b` (each part).
fn near(a: C, b: C) -> bool {
    let tol = 4.0 * f64::EPSILON * b.re.abs().max(b.im.abs());
    (a.re - b.re).abs() <= tol && (a.im - b.im).abs() <= tol
}

#[test]
fn complex_inverse_functions_take_the_principal_branch_and_its_signed_zeros() {
    let acosh2 = 1.3169578969248166;
    let one = |name: &str, z: C| map1::<C, C>(name, &[z])[0];
    let cases = [
        ("arcsin", cz(0.0, 0.0), cz(0.0, 0.0)),
        // On the cuts, the sign of the zero imaginary part picks the side.
        ("arcsin", cz(2.0, 0.0), cz(FRAC_PI_2, acosh2)),
        ("arcsin", cz(2.0, -0.0), cz(FRAC_PI_2, -acosh2)),
        ("arccos", cz(2.0, 0.0), cz(0.0, -acosh2)),
        ("arccos", cz(2.0, -0.0), cz(0.0, acosh2)),
        ("arccos", cz(0.0, 0.0), cz(FRAC_PI_2, -0.0)),
        ("arctanh", cz(2.0, 0.0), cz(0.5493061443340549, FRAC_PI_2)),
        ("arctanh", cz(2.0, -0.0), cz(0.5493061443340549, -FRAC_PI_2)),
        ("arcsinh", cz(0.0, 2.0), cz(acosh2, FRAC_PI_2)),
        ("arccosh", cz(2.0, 0.0), cz(acosh2, 0.0)),
        ("arccosh", cz(-2.0, 0.0), cz(acosh2, PI)),
        ("arccosh", cz(-2.0, -0.0), cz(acosh2, -PI)),
        ("arctan", cz(0.0, 2.0), cz(FRAC_PI_2, 0.5493061443340549)),
        ("arctanh", cz(1e200, 1e200), cz(5e-201, FRAC_PI_2)),
        ("exp2", cz(1.0, 0.0), cz(2.0, 0.0)),
        ("log2", cz(8.0, 0.0), cz(3.0, 0.0)),
        (
            "log10",
            cz(-100.0, 0.0),
            cz(2.0, PI / std::f64::consts::LN_10),
        ),
        ("expm1", cz(1e-20, 1e-20), cz(1e-20, 1e-20)),
        ("log1p", cz(1e-20, 1e-20), cz(1e-20, 1e-20)),
        ("log1p", cz(-2.0, 0.0), cz(0.0, PI)),
        ("tanh", cz(1000.0, 1.0), cz(1.0, 0.0)),
        ("sinh", cz(0.0, FRAC_PI_2), cz(0.0, 1.0)),
        ("cosh", cz(0.0, PI), cz(-1.0, 0.0)),
    ];
    for (name, z, want) in cases {
        let got = one(name, z);
        assert!(near(got, want), "{name}({z:?}) = {got:?}, want {want:?}");
        let signs = |c: C| (c.re.is_sign_negative(), c.im.is_sign_negative());
        if want.re == 0.0 || want.im == 0.0 {
            assert_eq!(
                signs(got),
                signs(want),
                "{name}({z:?}) = {got:?}: signed zeros"
            );
        }
    }
}

#[test]
fn complex_inverses_invert_over_a_grid() {
    // f(finv(z)) == z across the plane, the cuts' neighbourhoods included.
    let values = [-3.0, -1.0, -0.5, -1e-8, 0.0, 1e-8, 0.5, 1.0, 3.0];
    let pairs = [
        ("sin", "arcsin"),
        ("cos", "arccos"),
        ("tan", "arctan"),
        ("sinh", "arcsinh"),
        ("cosh", "arccosh"),
        ("tanh", "arctanh"),
        ("exp", "log"),
        ("exp2", "log2"),
        ("expm1", "log1p"),
    ];
    for (f, inv) in pairs {
        for &re in &values {
            for &im in &values {
                let z = cz(re, im);
                let w = map1::<C, C>(inv, &[z])[0];
                let back = map1::<C, C>(f, &[w])[0];
                let tol = 1e-9 * (1.0 + re.abs().max(im.abs()));
                assert!(
                    (back.re - re).abs() <= tol && (back.im - im).abs() <= tol,
                    "{f}({inv}({z:?})) = {back:?} (via {w:?})"
                );
            }
        }
    }
}

#[test]
fn na_ragged_and_empty() {
    assert_eq!(
        show("log2", &[&arr("[null, 4]", "2 * ?float64")]),
        "[null, 2] : 2 * ?float64"
    );
    assert_eq!(
        show(
            "hypot",
            &[
                &arr("[[3], [], [5, 8]]", "3 * var * float64"),
                &arr("4", "float64")
            ]
        ),
        "[[5], [], [6.4031242374328485, 8.94427190999916]] : 3 * var * float64"
    );
    assert_eq!(
        show("tanh", &[&arr("[]", "0 * float64")]),
        "[] : 0 * float64"
    );
}

/// The vectorised float loops (`dynd::math`) give the same bits whatever
/// the operands' layout: contiguous, reversed (a negative stride), ragged
/// rows, a broadcast second argument, a result written over an input,
/// and `float32`; and they stay within 2 ULPs of the platform's libm
/// (each within one of the correctly rounded result).
#[test]
fn math_loops_give_the_same_bits_on_every_layout() {
    let n = 1003;
    let x: Vec<f64> = (0..n).map(|i| (i as f64 - 500.0) * 0.0137).collect();
    let pos: Vec<f64> = x.iter().map(|v| v.abs() + 0.25).collect();
    type Case<'a> = (&'a str, &'a [f64], fn(f64) -> f64);
    let unary: [Case; 8] = [
        ("sin", &x, f64::sin),
        ("cos", &x, f64::cos),
        ("tan", &x, f64::tan),
        ("exp", &x, f64::exp),
        ("expm1", &x, f64::exp_m1),
        ("log", &pos, f64::ln),
        ("log1p", &pos, f64::ln_1p),
        ("tanh", &x, f64::tanh),
    ];
    for (name, v, libm) in unary {
        let f = builtins::get(name).unwrap();
        let a = Array::from_vec(v.to_vec());
        let flat = f.call(&[&a]).unwrap().to_vec::<f64>().unwrap();
        close(
            name,
            &flat,
            &v.iter().map(|&t| libm(t)).collect::<Vec<_>>(),
            2,
        );
        // Reversed: a view with a negative stride.
        let rev = dynd_arrfunc::flip(&a, None).unwrap();
        let mut back = f.call(&[&rev]).unwrap().to_vec::<f64>().unwrap();
        back.reverse();
        check(&format!("{name} reversed"), &back, &flat);
        // Ragged rows of 0..=6 values over the same data.
        let (mut rows, mut at, mut len) = (Vec::new(), 0, 0);
        while at < v.len() {
            let end = (at + len).min(v.len());
            let row: Vec<String> = v[at..end].iter().map(|t| format!("{t:?}")).collect();
            rows.push(format!("[{}]", row.join(", ")));
            at = end;
            len = (len + 1) % 7;
        }
        let json = format!("[{}]", rows.join(", "));
        let ragged =
            Array::from_json(&json, Some(&"var * var * float64".parse().unwrap())).unwrap();
        let r = f.call(&[&ragged]).unwrap();
        let values = r.to_levels::<f64>().unwrap().values;
        check(&format!("{name} ragged"), &values, &flat);
        // Written over its own input.
        let mut out = Array::from_vec(v.to_vec());
        let input = out.clone();
        f.call_into(&mut out, &[&input]).unwrap();
        check(
            &format!("{name} in place"),
            &out.to_vec::<f64>().unwrap(),
            &flat,
        );
        // float32: within one ULP of the float64 result rounded.
        let v32: Vec<f32> = v.iter().map(|&t| t as f32).collect();
        let r32 = f
            .call(&[&Array::from_vec(v32.clone())])
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        for (i, (&g, &t)) in r32.iter().zip(&v32).enumerate() {
            let want = libm(t as f64) as f32;
            let steps = (g.to_bits() as i64 - want.to_bits() as i64).unsigned_abs();
            assert!(
                steps <= 1 || (g.is_nan() && want.is_nan()),
                "{name}f[{i}]({t}): {g} vs {want}"
            );
        }
    }
    // Two arguments: a broadcast exponent, and one argument overwritten.
    for name in ["power", "arctan2", "hypot"] {
        let f = builtins::get(name).unwrap();
        let (a, b) = (Array::from_vec(pos.clone()), Array::from_vec(x.clone()));
        let full = f.call(&[&a, &b]).unwrap().to_vec::<f64>().unwrap();
        let libm: fn(f64, f64) -> f64 = match name {
            "power" => f64::powf,
            "arctan2" => f64::atan2,
            _ => f64::hypot,
        };
        close(
            name,
            &full,
            &pos.iter()
                .zip(&x)
                .map(|(&p, &q)| libm(p, q))
                .collect::<Vec<_>>(),
            2,
        );
        let half = Array::from_scalar(0.5f64);
        let bcast = f.call(&[&a, &half]).unwrap().to_vec::<f64>().unwrap();
        let each: Vec<f64> = pos
            .iter()
            .map(|&p| {
                f.call(&[&Array::from_vec(vec![p]), &half])
                    .unwrap()
                    .to_vec::<f64>()
                    .unwrap()[0]
            })
            .collect();
        check(&format!("{name} broadcast"), &bcast, &each);
        let mut out = Array::from_vec(x.clone());
        let second = out.clone();
        f.call_into(&mut out, &[&a, &second]).unwrap();
        check(
            &format!("{name} over its second argument"),
            &out.to_vec::<f64>().unwrap(),
            &full,
        );
    }
}
