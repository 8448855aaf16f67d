//! The binary float functions, `spacing`, the aliases `mod` and
//! `true_divide`, and the two-output `divmod`, `modf` and `frexp`
//! (13 functions).

use dynd_arrfunc::{divmod, frexp, modf};
use dynd_kernels::{Array, F16};

use super::{arr, check, map1, map2, show};

const INF: f64 = f64::INFINITY;
const NAN: f64 = f64::NAN;
const TINY: f64 = 5e-324;
const MAX: f64 = f64::MAX;

fn f2(name: &str, x: &[f64], y: &[f64]) -> Vec<f64> {
    map2::<f64, f64, f64>(name, x, y)
}

#[test]
fn copysign_nextafter_spacing() {
    check(
        "copysign",
        &f2("copysign", &[1.0, -0.0, NAN, INF], &[-0.0, 1.0, -1.0, -2.0]),
        &[-1.0, 0.0, -NAN, -INF],
    );
    assert!(f2("copysign", &[NAN], &[-1.0])[0].is_sign_negative());
    check(
        "nextafter",
        &f2(
            "nextafter",
            &[1.0, 0.0, -0.0, 1.0, MAX, INF, NAN, 0.0],
            &[2.0, -1.0, 1.0, 1.0, INF, 0.0, 1.0, -0.0],
        ),
        &[1.0000000000000002, -TINY, TINY, 1.0, INF, MAX, NAN, -0.0],
    );
    check(
        "nextafter f32",
        &map2::<f32, f32, f32>("nextafter", &[1.0, 0.0], &[2.0, 1.0]),
        &[1.0000001, 1e-45],
    );
    let h: Vec<F16> = map2(
        "nextafter",
        &[F16::from_f64(1.0), F16::from_f64(0.0)],
        &[F16::from_f64(2.0), F16::from_f64(-1.0)],
    );
    assert_eq!(
        h.iter().map(|x| x.to_f64()).collect::<Vec<_>>(),
        [1.0009765625, -5.960464477539063e-8]
    );
    check(
        "spacing",
        &map1::<f64, f64>("spacing", &[1.0, -1.0, 0.0, -0.0, INF, NAN, MAX, TINY]),
        &[
            f64::EPSILON,
            -f64::EPSILON,
            TINY,
            // Both zeros give the smallest positive value (NumPy 2.4.6).
            TINY,
            NAN,
            NAN,
            INF,
            TINY,
        ],
    );
    let h: Vec<F16> = map1("spacing", &[F16::from_f64(1.0)]);
    assert_eq!(h[0].to_f64(), 0.0009765625);
}

#[test]
fn fmod_fmax_fmin_heaviside() {
    check(
        "fmod",
        &f2(
            "fmod",
            &[-7.0, 7.0, 5.5, INF, 1.0, -0.0],
            &[2.0, -2.0, INF, 2.0, 0.0, 3.0],
        ),
        &[-1.0, 1.0, 5.5, NAN, NAN, -0.0],
    );
    assert_eq!(
        map2::<i32, i32, i32>("fmod", &[-7, 7, 7], &[2, -2, 0]),
        [-1, 1, 0]
    );
    assert_eq!(map2::<i8, i8, i8>("fmod", &[-128], &[-1]), [0]);
    check(
        "fmax",
        &f2("fmax", &[NAN, NAN, 1.0, -INF], &[1.0, NAN, NAN, 3.0]),
        &[1.0, NAN, 1.0, 3.0],
    );
    check(
        "fmin",
        &f2("fmin", &[NAN, NAN, 1.0, -INF], &[1.0, NAN, NAN, 3.0]),
        &[1.0, NAN, 1.0, -INF],
    );
    assert_eq!(
        map2::<u64, u64, u64>("fmax", &[3, u64::MAX], &[5, 0]),
        [5, u64::MAX]
    );
    assert_eq!(map2::<i16, i16, i16>("fmin", &[3, -5], &[-4, 0]), [-4, -5]);
    check(
        "heaviside",
        &f2("heaviside", &[-1.0, 0.0, -0.0, 2.0, NAN, -INF], &[0.5; 6]),
        &[0.0, 0.5, 0.5, 1.0, NAN, 0.0],
    );
    // fmax and fmin reduce, ignoring NaN.
    let r = dynd_arrfunc::builtins::get("fmax.reduce")
        .unwrap()
        .call(&[&Array::from_vec(vec![1.0, NAN, 3.0])])
        .unwrap();
    assert_eq!(r.to_string(), "3");
}

#[test]
fn ldexp_rounds_once_through_the_subnormals() {
    let x = Array::from_vec(vec![1.0, 1.0, 1.0, 1.0, 1.5, 3.0, -0.0, INF, NAN, 0.75]);
    let n = Array::from_vec(vec![
        1024_i64, 1023, -1074, -1075, -1074, -1075, 5, -5, 1, -1073,
    ]);
    let r = dynd_arrfunc::builtins::LDEXP
        .call(&[&x, &n])
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    check(
        "ldexp",
        &r,
        &[
            INF,
            8.98846567431158e307,
            TINY,
            0.0,
            1e-323,
            1e-323,
            -0.0,
            INF,
            NAN,
            1e-323,
        ],
    );
    let big = Array::from_vec(vec![i64::MAX, i64::MIN]);
    let r = dynd_arrfunc::builtins::LDEXP
        .call(&[&Array::from_vec(vec![1.0, 1.0]), &big])
        .unwrap();
    check("ldexp huge n", &r.to_vec::<f64>().unwrap(), &[INF, 0.0]);
    let f: Vec<f32> = map2("ldexp", &[1.0_f32, 1.0], &[-149_i64, 128]);
    check("ldexp f32", &f, &[1e-45, f32::INFINITY]);
    // An int32 exponent promotes to int64.
    assert_eq!(
        show(
            "ldexp",
            &[&arr("[3]", "1 * float32"), &arr("[2]", "1 * int32")]
        ),
        "[12] : 1 * float32"
    );
}

#[test]
fn aliases_are_the_same_functions_under_numpys_names() {
    assert_eq!(
        show(
            "mod",
            &[&arr("[-7, 7]", "2 * int32"), &arr("[2, -2]", "2 * int32")]
        ),
        "[1, -1] : 2 * int32"
    );
    assert_eq!(
        show(
            "true_divide",
            &[&arr("[1]", "1 * int64"), &arr("[2]", "1 * int64")]
        ),
        "[0.5] : 1 * float64"
    );
    let e = show(
        "mod",
        &[&arr("[\"a\"]", "1 * string"), &arr("[1]", "1 * int32")],
    );
    assert!(e.starts_with("error: mod: "), "{e}");
}

#[test]
fn divmod_modf_frexp_give_two_arrays() {
    let (q, r) = divmod(
        &arr("[7, -7, 7, -128]", "4 * int8"),
        &arr("[-2, 2, 0, -1]", "4 * int8"),
    )
    .unwrap();
    assert_eq!(
        (q.to_string(), r.to_string()),
        ("[-4, -4, 0, -128]".into(), "[-1, 1, 0, 0]".into())
    );
    let (q, r) = divmod(
        &Array::from_vec(vec![7.5, -7.5]),
        &Array::from_vec(vec![2.0, 2.0]),
    )
    .unwrap();
    check("divmod q", &q.to_vec::<f64>().unwrap(), &[3.0, -4.0]);
    check("divmod r", &r.to_vec::<f64>().unwrap(), &[1.5, 0.5]);

    let (frac, int) = modf(&Array::from_vec(vec![
        -2.5, 3.0, INF, -INF, NAN, -0.0, -2.0,
    ]))
    .unwrap();
    check(
        "modf frac",
        &frac.to_vec::<f64>().unwrap(),
        &[-0.5, 0.0, 0.0, -0.0, NAN, -0.0, -0.0],
    );
    check(
        "modf int",
        &int.to_vec::<f64>().unwrap(),
        &[-2.0, 3.0, INF, -INF, NAN, -0.0, -2.0],
    );

    let (m, e) = frexp(&Array::from_vec(vec![
        8.0, 0.75, 0.0, -0.0, INF, NAN, TINY, -3.0, MAX,
    ]))
    .unwrap();
    check(
        "frexp m",
        &m.to_vec::<f64>().unwrap(),
        &[
            0.5,
            0.75,
            0.0,
            -0.0,
            INF,
            NAN,
            0.5,
            -0.75,
            1.0 - f64::EPSILON / 2.0,
        ],
    );
    assert_eq!(
        e.to_vec::<i32>().unwrap(),
        [4, 0, 0, 0, 0, 0, -1073, 2, 1024]
    );
    let (m, e) = frexp(&Array::from_vec(vec![1e-45_f32, 3.0])).unwrap();
    check("frexp f32", &m.to_vec::<f32>().unwrap(), &[0.5, 0.75]);
    assert_eq!(e.to_vec::<i32>().unwrap(), [-148, 2]);
    assert_eq!(e.ty().to_string(), "2 * int32");
    // Ragged rows and NA pass through both parts.
    let (m, e) = frexp(&arr("[[8], [], [null, 1]]", "3 * var * ?float64")).unwrap();
    assert_eq!(
        (m.to_string(), e.to_string()),
        (
            "[[0.5], [], [null, 0.5]]".into(),
            "[[4], [], [null, 1]]".into()
        )
    );
}
