//! Integer and bitwise functions and the complex parts (16 functions),
//! and the operators `& | ^ ! << >>` on arrays and expressions.

use dynd_arrfunc::Eval;
use dynd_kernels::expr::Expr;
use dynd_kernels::{Array, Complex};

use super::{arr, check, map1, map2, show};

#[test]
fn gcd_and_lcm_never_negative_but_wrap_like_numpy() {
    assert_eq!(
        map2::<i32, i32, i32>("gcd", &[12, -18, 0, 0, 7], &[8, 8, 0, -5, 13]),
        [4, 2, 0, 5, 1]
    );
    assert_eq!(map2::<i8, i8, i8>("gcd", &[-128, -128], &[0, 6]), [-128, 2]);
    assert_eq!(
        map2::<u64, u64, u64>("gcd", &[u64::MAX, 1 << 63], &[3, 1 << 40]),
        [3, 1 << 40]
    );
    assert_eq!(
        map2::<i64, i64, i64>("lcm", &[4, -4, 0, 21], &[6, 6, 5, -6]),
        [12, 12, 0, 42]
    );
    // 300 does not fit int8: it wraps to 44, as NumPy's.
    assert_eq!(map2::<i8, i8, i8>("lcm", &[16, 100], &[24, 3]), [48, 44]);
    assert!(show(
        "gcd",
        &[&arr("[1.5]", "1 * float64"), &arr("[1]", "1 * float64")]
    )
    .starts_with("error: gcd: no overload"));
}

#[test]
fn bitwise_operations_on_bool_and_every_integer() {
    assert_eq!(
        map2::<bool, bool, bool>("bitwise_and", &[true, true, false], &[true, false, false]),
        [true, false, false]
    );
    assert_eq!(
        map2::<bool, bool, bool>("bitwise_or", &[true, false], &[false, false]),
        [true, false]
    );
    assert_eq!(
        map2::<bool, bool, bool>("bitwise_xor", &[true, true], &[true, false]),
        [false, true]
    );
    assert_eq!(
        map2::<i8, i8, i8>("bitwise_and", &[-1, 12], &[5, 10]),
        [5, 8]
    );
    assert_eq!(map2::<u8, u8, u8>("bitwise_or", &[0xF0], &[0x0F]), [0xFF]);
    assert_eq!(
        map2::<i128, i128, i128>("bitwise_xor", &[-1], &[i128::MAX]),
        [i128::MIN]
    );
    assert_eq!(map1::<bool, bool>("invert", &[true, false]), [false, true]);
    assert_eq!(
        map1::<i8, i8>("invert", &[0, 5, -1, 127]),
        [-1, -6, 0, -128]
    );
    assert_eq!(map1::<u8, u8>("bitwise_not", &[0, 0x0F]), [255, 0xF0]);
    assert_eq!(map1::<u64, u64>("invert", &[0]), [u64::MAX]);
    // Mixed integer types promote as for `add`.
    assert_eq!(
        show(
            "bitwise_or",
            &[&arr("[1]", "1 * uint8"), &arr("[-2]", "1 * int8")]
        ),
        "[-1] : 1 * int16"
    );
    assert!(show(
        "bitwise_and",
        &[&arr("[1.0]", "1 * float64"), &arr("[1]", "1 * int8")]
    )
    .starts_with("error: bitwise_and: no overload"));
}

#[test]
fn shifts_past_the_width_give_numpys_fill_never_a_panic() {
    assert_eq!(
        map2::<i8, i8, i8>("left_shift", &[1, 1, 1, -1, 3], &[7, 8, -1, 127, 2]),
        [-128, 0, 0, 0, 12]
    );
    assert_eq!(
        map2::<u8, u8, u8>("left_shift", &[255, 1], &[1, 255]),
        [254, 0]
    );
    assert_eq!(map2::<i64, i64, i64>("left_shift", &[1], &[63]), [i64::MIN]);
    assert_eq!(
        map2::<i8, i8, i8>(
            "right_shift",
            &[-128, -128, 100, -1, 100, -7],
            &[7, 8, 8, -1, 2, 1]
        ),
        [-1, -1, 0, -1, 25, -4]
    );
    assert_eq!(
        map2::<u8, u8, u8>("right_shift", &[128, 128], &[7, 200]),
        [1, 0]
    );
    assert_eq!(
        map2::<u128, u128, u128>("right_shift", &[u128::MAX], &[u128::MAX]),
        [0]
    );
    assert_eq!(
        map2::<u128, u128, u128>("left_shift", &[1], &[127]),
        [1 << 127]
    );
}

#[test]
fn bitwise_count_counts_the_magnitudes_bits() {
    assert_eq!(
        map1::<i8, u8>("bitwise_count", &[-1, 0, 127, -128]),
        [1, 0, 7, 1]
    );
    assert_eq!(
        map1::<u64, u8>("bitwise_count", &[u64::MAX, 1023]),
        [64, 10]
    );
    assert_eq!(map1::<i128, u8>("bitwise_count", &[i128::MIN]), [1]);
    assert_eq!(
        show("bitwise_count", &[&arr("[3, null]", "2 * ?int32")]),
        "[2, null] : 2 * ?uint8"
    );
}

#[test]
fn complex_parts() {
    let z = [Complex::new(1.0, 2.0), Complex::new(-0.0, -3.5)];
    check("real", &map1::<Complex<f64>, f64>("real", &z), &[1.0, -0.0]);
    check("imag", &map1::<Complex<f64>, f64>("imag", &z), &[2.0, -3.5]);
    let conj: Vec<Complex<f64>> = map1("conj", &z);
    assert_eq!(conj, [Complex::new(1.0, -2.0), Complex::new(-0.0, 3.5)]);
    let conj: Vec<Complex<f32>> = map1("conjugate", &[Complex::new(1.0_f32, 2.0)]);
    assert_eq!(conj, [Complex::new(1.0, -2.0)]);
    check(
        "angle",
        &map1::<Complex<f64>, f64>("angle", &z),
        &[1.1071487177940904, -std::f64::consts::FRAC_PI_2],
    );
    // Real numbers: themselves, zero, their own conjugate; the angle of a
    // negative number (and of -0.0) is π.
    assert_eq!(
        show("real", &[&arr("[-3, 4]", "2 * int16")]),
        "[-3, 4] : 2 * int16"
    );
    assert_eq!(
        show("imag", &[&arr("[-3.5]", "1 * float32")]),
        "[0] : 1 * float32"
    );
    assert_eq!(show("conj", &[&arr("[7]", "1 * uint8")]), "[7] : 1 * uint8");
    let pi = std::f64::consts::PI;
    check(
        "angle real",
        &map1::<f64, f64>(
            "angle",
            &[-1.0, 0.0, -0.0, 2.0, f64::NAN, f64::NEG_INFINITY],
        ),
        &[pi, 0.0, pi, 0.0, f64::NAN, pi],
    );
}

#[test]
fn rust_operators_on_arrays_and_expressions() {
    let x = Array::from_vec(vec![-0.5, 0.25, 0.75, 2.0, f64::NAN]);
    let inside = (Expr::from(&x).greater(0.0) & Expr::from(&x).less(1.0))
        .eval()
        .unwrap();
    assert_eq!(inside.to_string(), "[false, true, true, false, false]");
    let outside = (Expr::from(&x).less(0.0) | Expr::from(&x).greater(1.0))
        .eval()
        .unwrap();
    assert_eq!(outside.to_string(), "[true, false, false, true, false]");
    assert_eq!(
        (!&inside).eval().unwrap().to_string(),
        "[true, false, false, true, true]"
    );
    assert_eq!(
        (&inside ^ &outside).eval().unwrap().to_string(),
        "[true, true, true, true, false]"
    );

    let a = Array::from_vec(vec![0b1100_i32, -8, 1]);
    let b = Array::from_vec(vec![0b1010_i32, 1, 31]);
    assert_eq!((&a & &b).eval().unwrap().to_string(), "[8, 0, 1]");
    assert_eq!((&a | 1).eval().unwrap().to_string(), "[13, -7, 1]");
    assert_eq!(
        (&a << &b).eval().unwrap().to_string(),
        "[12288, -16, -2147483648]"
    );
    assert_eq!((&a >> 2).eval().unwrap().to_string(), "[3, -2, 0]");
    // A whole expression fuses and equals the calls made one by one.
    let e = ((&a & 0xFF) ^ (!&b << 1)).eval().unwrap();
    let by_hand = {
        let and = dynd_arrfunc::builtins::BITWISE_AND
            .call(&[&a, &Array::from_scalar(0xFF)])
            .unwrap();
        let not = dynd_arrfunc::builtins::INVERT.call(&[&b]).unwrap();
        let shl = dynd_arrfunc::builtins::LEFT_SHIFT
            .call(&[&not, &Array::from_scalar(1)])
            .unwrap();
        dynd_arrfunc::builtins::BITWISE_XOR
            .call(&[&and, &shl])
            .unwrap()
    };
    assert_eq!(e.to_string(), by_hand.to_string());
    assert_eq!(e.ty(), by_hand.ty());

    // Ragged rows broadcast; a float operand is an error naming the node.
    let r = arr("[[1, 2], [], [3]]", "3 * var * int64");
    assert_eq!((&r & 1).eval().unwrap().to_string(), "[[1, 0], [], [1]]");
    let err = (&x & 1).eval().unwrap_err().to_string();
    assert!(err.contains("bitwise_and"), "{err}");
}
