//! Rounding, sign and classification (18 functions) and `clip`.

use dynd_arrfunc::builtins;
use dynd_kernels::{Array, Complex, F16};

use super::{arr, check, map1, show};

const INF: f64 = f64::INFINITY;
const NAN: f64 = f64::NAN;
const TINY: f64 = 5e-324;
/// 2^52 + 1: past it every float is an integer.
const BIG: f64 = 4503599627370497.0;

const EDGES: [f64; 13] = [
    -1.5, -0.5, -0.0, 0.0, 0.5, 1.5, INF, -INF, NAN, TINY, -TINY, BIG, 1e300,
];

#[test]
fn floor_ceil_trunc_rint_of_floats() {
    let floor = [
        -2.0, -1.0, -0.0, 0.0, 0.0, 1.0, INF, -INF, NAN, 0.0, -1.0, BIG, 1e300,
    ];
    let ceil = [
        -1.0, -0.0, -0.0, 0.0, 1.0, 2.0, INF, -INF, NAN, 1.0, -0.0, BIG, 1e300,
    ];
    let trunc = [
        -1.0, -0.0, -0.0, 0.0, 0.0, 1.0, INF, -INF, NAN, 0.0, -0.0, BIG, 1e300,
    ];
    let rint = [
        -2.0, -0.0, -0.0, 0.0, 0.0, 2.0, INF, -INF, NAN, 0.0, -0.0, BIG, 1e300,
    ];
    check("floor", &map1::<f64, f64>("floor", &EDGES), &floor);
    check("ceil", &map1::<f64, f64>("ceil", &EDGES), &ceil);
    check("trunc", &map1::<f64, f64>("trunc", &EDGES), &trunc);
    check("rint", &map1::<f64, f64>("rint", &EDGES), &rint);
    // float32 and float16 keep their type.
    check(
        "floor f32",
        &map1::<f32, f32>("floor", &[-1.5, 2.5, -0.0]),
        &[-2.0, 2.0, -0.0],
    );
    let halves = [F16::from_f64(-2.5), F16::from_f64(0.5)];
    let r: Vec<F16> = map1("rint", &halves);
    assert_eq!(
        r.iter().map(|h| h.to_f64()).collect::<Vec<_>>(),
        [-2.0, 0.0]
    );
}

#[test]
fn rounding_an_integer_keeps_it_and_its_type() {
    // `rint` promotes integers to a float (NumPy 2), the others keep them.
    assert_eq!(
        show("rint", &[&arr("[-128, 0, 127]", "3 * int8")]),
        "[-128, 0, 127] : 3 * float16"
    );
    assert_eq!(
        show("rint", &[&arr("[-5, 7]", "2 * int64")]),
        "[-5, 7] : 2 * float64"
    );
    for name in ["floor", "ceil", "trunc"] {
        assert_eq!(
            show(name, &[&arr("[-128, 0, 127]", "3 * int8")]),
            "[-128, 0, 127] : 3 * int8"
        );
        assert_eq!(
            show(name, &[&arr("[18446744073709551615]", "1 * uint64")]),
            "[18446744073709551615] : 1 * uint64"
        );
        assert_eq!(
            map1::<i128, i128>(name, &[i128::MIN, i128::MAX]),
            [i128::MIN, i128::MAX]
        );
    }
}

fn round(a: &Array, decimals: i64) -> Array {
    let d = Array::from_scalar(decimals);
    builtins::ROUND
        .callable()
        .call_kw(&[a], &[("decimals", &d)])
        .unwrap()
}

#[test]
fn round_is_half_to_even_at_any_place() {
    let halves = Array::from_vec(vec![0.5, 1.5, 2.5, -0.5, -2.5, INF, NAN]);
    check(
        "round",
        &round(&halves, 0).to_vec::<f64>().unwrap(),
        &[0.0, 2.0, 2.0, -0.0, -2.0, INF, NAN],
    );
    // NumPy's scaling, not a decimal rounding: 2.675 is
    // 2.67499999999999982236431605997495353221893310546875, but 2.675 * 100
    // rounds to 267.5, which rounds to even, 268 (NumPy's 2.68; Python's
    // `round` gives 2.67).
    let x = Array::from_vec(vec![2.675, 0.125, -0.0001, 1234.5678]);
    check(
        "round 2",
        &round(&x, 2).to_vec::<f64>().unwrap(),
        &[2.68, 0.12, -0.0, 1234.57],
    );
    let x16 = Array::from_vec(vec![16.055]);
    check(
        "round 16.055",
        &round(&x16, 2).to_vec::<f64>().unwrap(),
        &[16.06],
    );
    let x = Array::from_vec(vec![2.675, 0.125, -0.0001, 1234.5678]);
    check(
        "round -2",
        &round(&x, -2).to_vec::<f64>().unwrap(),
        &[0.0, 0.0, -0.0, 1200.0],
    );
    // Scalings past the range: the value stays (documented), or every
    // finite value rounds to a zero of its sign.
    check(
        "round 400",
        &round(&x, 400).to_vec::<f64>().unwrap(),
        &[2.675, 0.125, -0.0001, 1234.5678],
    );
    check(
        "round -400",
        &round(&x, -400).to_vec::<f64>().unwrap(),
        &[0.0, 0.0, -0.0, 0.0],
    );
}

#[test]
fn round_of_integers_is_exact_and_wraps_like_numpy() {
    let x = Array::from_vec(vec![15_i64, 25, -15, -25, 14, i64::MAX]);
    assert_eq!(
        round(&x, 0).to_vec::<i64>().unwrap(),
        [15, 25, -15, -25, 14, i64::MAX]
    );
    assert_eq!(
        round(&x, -1).to_vec::<i64>().unwrap(),
        [20, 20, -20, -20, 10, 9223372036854775810_i128 as i64]
    );
    let r = round(&arr("[127, -128, 44]", "3 * int8"), -1);
    assert_eq!(format!("{r} : {}", r.ty()), "[-126, 126, 40] : 3 * int8");
    // 10^3 does not fit int8: every value rounds to 0 there.
    assert_eq!(
        round(&arr("[127, -128]", "2 * int8"), -3).to_string(),
        "[0, 0]"
    );
    let c = Array::from_vec(vec![Complex::new(2.5, -3.5)]);
    assert_eq!(
        round(&c, 0).to_vec::<Complex<f64>>().unwrap(),
        [Complex::new(2.0, -4.0)]
    );
}

#[test]
fn sign_of_every_kind() {
    check(
        "sign",
        &map1::<f64, f64>("sign", &[-2.5, -0.0, 0.0, 3.0, INF, -INF, NAN, -TINY]),
        &[-1.0, 0.0, 0.0, 1.0, 1.0, -1.0, NAN, -1.0],
    );
    assert_eq!(map1::<i8, i8>("sign", &[-128, 0, 5]), [-1, 0, 1]);
    assert_eq!(map1::<u8, u8>("sign", &[0, 200]), [0, 1]);
    let z = [
        Complex::new(3.0, 4.0),
        Complex::new(0.0, 0.0),
        Complex::new(0.0, -2.0),
        Complex::new(INF, 1.0),
    ];
    let r: Vec<Complex<f64>> = map1("sign", &z);
    assert_eq!(
        r,
        [
            Complex::new(0.6, 0.8),
            Complex::new(0.0, 0.0),
            Complex::new(0.0, -1.0),
            Complex::new(1.0, 0.0)
        ]
    );
    let r: Vec<Complex<f64>> = map1("sign", &[Complex::new(NAN, 0.0), Complex::new(INF, -INF)]);
    assert!(r.iter().all(|z| z.re.is_nan() && z.im.is_nan()), "{r:?}");
}

#[test]
fn fabs_absolute_positive_square_reciprocal_cbrt() {
    check(
        "fabs",
        &map1::<f64, f64>("fabs", &[-0.0, -INF, -2.0, NAN]),
        &[0.0, INF, 2.0, NAN],
    );
    // An integer promotes to a float, int8 to float16 as in NumPy.
    assert_eq!(
        show("fabs", &[&arr("[-3]", "1 * int8")]),
        "[3] : 1 * float16"
    );
    assert_eq!(
        show("absolute", &[&arr("[-128, -5]", "2 * int8")]),
        "[-128, 5] : 2 * int8"
    );
    assert_eq!(
        show("positive", &[&arr("[-5, 7]", "2 * int16")]),
        "[-5, 7] : 2 * int16"
    );
    assert_eq!(map1::<i8, i8>("square", &[16, -12, 11]), [0, -112, 121]);
    check(
        "square",
        &map1::<f64, f64>("square", &[1e200, -3.0, -0.0]),
        &[INF, 9.0, 0.0],
    );
    let sq: Vec<Complex<f64>> = map1("square", &[Complex::new(1.0, 2.0)]);
    assert_eq!(sq, [Complex::new(-3.0, 4.0)]);
    assert_eq!(
        map1::<i32, i32>("reciprocal", &[1, -1, 2, 0, i32::MIN]),
        [1, -1, 0, 0, 0]
    );
    check(
        "reciprocal",
        &map1::<f64, f64>("reciprocal", &[0.0, -0.0, 4.0, INF]),
        &[INF, -INF, 0.25, 0.0],
    );
    let r: Vec<Complex<f64>> = map1("reciprocal", &[Complex::new(0.0, 2.0)]);
    assert_eq!(r, [Complex::new(0.0, -0.5)]);
    check(
        "cbrt",
        &map1::<f64, f64>("cbrt", &[-8.0, 27.0, -0.0, INF, NAN]),
        &[-2.0, 3.0, -0.0, INF, NAN],
    );
}

#[test]
fn classification_of_floats_integers_bool_and_complex() {
    let x = [NAN, -NAN, INF, -INF, 0.0, -0.0, TINY, 1.0];
    assert_eq!(
        map1::<f64, bool>("isnan", &x),
        [true, true, false, false, false, false, false, false]
    );
    assert_eq!(
        map1::<f64, bool>("isinf", &x),
        [false, false, true, true, false, false, false, false]
    );
    assert_eq!(
        map1::<f64, bool>("isfinite", &x),
        [false, false, false, false, true, true, true, true]
    );
    assert_eq!(
        map1::<f64, bool>("signbit", &x),
        [false, true, false, true, false, true, false, false]
    );
    assert_eq!(
        map1::<f64, bool>("isneginf", &x),
        [false, false, false, true, false, false, false, false]
    );
    assert_eq!(
        map1::<f64, bool>("isposinf", &x),
        [false, false, true, false, false, false, false, false]
    );
    assert_eq!(map1::<f32, bool>("signbit", &[-0.0, 1.0]), [true, false]);
    let h = [F16::from_f64(-0.0), F16::from_f64(INF), F16::from_f64(NAN)];
    assert_eq!(map1::<F16, bool>("signbit", &h), [true, false, false]);
    assert_eq!(map1::<F16, bool>("isinf", &h), [false, true, false]);
    assert_eq!(map1::<F16, bool>("isnan", &h), [false, false, true]);
    // Integers and bool are never NaN or infinite.
    assert_eq!(map1::<i64, bool>("isnan", &[i64::MIN, 0]), [false, false]);
    assert_eq!(map1::<u128, bool>("isinf", &[u128::MAX]), [false]);
    assert_eq!(map1::<i8, bool>("isfinite", &[-128]), [true]);
    assert_eq!(map1::<bool, bool>("isnan", &[true]), [false]);
    let z = [
        Complex::new(NAN, 0.0),
        Complex::new(1.0, INF),
        Complex::new(1.0, 2.0),
    ];
    assert_eq!(
        map1::<Complex<f64>, bool>("isnan", &z),
        [true, false, false]
    );
    assert_eq!(
        map1::<Complex<f64>, bool>("isinf", &z),
        [false, true, false]
    );
    assert_eq!(
        map1::<Complex<f64>, bool>("isfinite", &z),
        [false, false, true]
    );
    assert!(show("isposinf", &[&Array::from_vec(z.to_vec())])
        .starts_with("error: isposinf: no overload"));
}

#[test]
fn clip_keeps_integers_and_rounds_bounds_inward() {
    let call = |a: &Array, lo: f64, hi: f64| {
        let (lo, hi) = (Array::from_scalar(lo), Array::from_scalar(hi));
        let r = builtins::CLIP
            .callable()
            .call_kw(&[a], &[("lo", &lo), ("hi", &hi)])
            .unwrap();
        format!("{r} : {}", r.ty())
    };
    assert_eq!(
        call(&arr("[-5, 3, 900]", "3 * int16"), 0.0, 100.0),
        "[0, 3, 100] : 3 * int16"
    );
    assert_eq!(
        call(&arr("[5, 250]", "2 * uint8"), -10.5, 300.0),
        "[5, 250] : 2 * uint8"
    );
    assert_eq!(
        call(&arr("[1, 2, 3, 4]", "4 * int64"), 2.5, 3.5),
        "[3, 3, 3, 3] : 4 * int64"
    );
    assert_eq!(
        call(&Array::from_vec(vec![i64::MAX, i64::MIN]), -1e300, 1e300),
        "[9223372036854775807, -9223372036854775808] : 2 * int64"
    );
    // lo > hi gives hi, as NumPy; NaN bounds are no bounds for integers.
    assert_eq!(
        call(&arr("[1, 5, 9]", "3 * int32"), 6.0, 4.0),
        "[4, 4, 4] : 3 * int32"
    );
    assert_eq!(
        call(&arr("[1, 5]", "2 * int32"), NAN, NAN),
        "[1, 5] : 2 * int32"
    );
    assert_eq!(
        call(&Array::from_vec(vec![-0.5, NAN, 7.0]), 0.0, 1.0),
        "[0, NaN, 1] : 3 * float64"
    );
}

#[test]
fn na_ragged_rows_and_empty_arrays() {
    assert_eq!(
        show("floor", &[&arr("[1.5, null, -0.5]", "3 * ?float64")]),
        "[1, null, -1] : 3 * ?float64"
    );
    assert_eq!(
        show("sign", &[&arr("[null, -7]", "2 * ?int32")]),
        "[null, -1] : 2 * ?int32"
    );
    assert_eq!(
        show("isnan", &[&arr("[null, NaN]", "2 * ?float64")]),
        "[null, true] : 2 * ?bool"
    );
    assert_eq!(
        show(
            "ceil",
            &[&arr("[[1.5], [], [-0.5, 2.5]]", "3 * var * float64")]
        ),
        "[[2], [], [-0.0, 3]] : 3 * var * float64"
    );
    assert_eq!(
        show("isfinite", &[&arr("[]", "0 * float32")]),
        "[] : 0 * bool"
    );
    assert_eq!(
        show("rint", &[&arr("[[], []]", "2 * var * int8")]),
        "[[], []] : 2 * var * float16"
    );
}
