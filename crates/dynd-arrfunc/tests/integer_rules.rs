//! Integer arithmetic never panics: each type's edge cases give the
//! documented values (NumPy's, where NumPy has one).

use dynd_arrfunc::builtins;
use dynd_kernels::{Array, Value};

/// `name(a, b)` on 0-d arrays of type `ty`, the result as text.
fn call2(name: &str, ty: &str, a: i128, b: i128) -> String {
    let t = ty.parse().unwrap();
    let x = Array::from_value(&Value::Int(a), Some(&t)).unwrap();
    let y = Array::from_value(&Value::Int(b), Some(&t)).unwrap();
    let r = builtins::get(name).unwrap().call(&[&x, &y]).unwrap();
    assert_eq!(r.ty().to_string(), ty, "{name}({a}, {b}) keeps the type");
    r.to_string()
}

fn call1(name: &str, ty: &str, a: i128) -> String {
    let t = ty.parse().unwrap();
    let x = Array::from_value(&Value::Int(a), Some(&t)).unwrap();
    builtins::get(name)
        .unwrap()
        .call(&[&x])
        .unwrap()
        .to_string()
}

const SIGNED: &[(&str, i128, i128)] = &[
    ("int8", i8::MIN as i128, i8::MAX as i128),
    ("int16", i16::MIN as i128, i16::MAX as i128),
    ("int32", i32::MIN as i128, i32::MAX as i128),
    ("int64", i64::MIN as i128, i64::MAX as i128),
    ("int128", i128::MIN, i128::MAX),
];

const UNSIGNED: &[(&str, u128)] = &[
    ("uint8", u8::MAX as u128),
    ("uint16", u16::MAX as u128),
    ("uint32", u32::MAX as u128),
    ("uint64", u64::MAX as u128),
];

#[test]
fn signed_division_remainder_and_sign_at_the_edges() {
    for &(ty, min, max) in SIGNED {
        let s = |x: i128| x.to_string();
        // Division and remainder by zero give 0.
        assert_eq!(call2("floor_divide", ty, 7, 0), "0", "{ty}");
        assert_eq!(call2("floor_divide", ty, min, 0), "0", "{ty}");
        assert_eq!(call2("remainder", ty, 7, 0), "0", "{ty}");
        assert_eq!(call2("remainder", ty, min, 0), "0", "{ty}");
        // MIN // -1 wraps to MIN; MIN % -1 is 0.
        assert_eq!(call2("floor_divide", ty, min, -1), s(min), "{ty}");
        assert_eq!(call2("remainder", ty, min, -1), "0", "{ty}");
        // Floor semantics and the divisor's sign.
        assert_eq!(call2("floor_divide", ty, -7, 2), "-4", "{ty}");
        assert_eq!(call2("remainder", ty, -7, 2), "1", "{ty}");
        assert_eq!(call2("remainder", ty, 7, -2), "-1", "{ty}");
        assert_eq!(call2("floor_divide", ty, max, -1), s(-max), "{ty}");
        // abs and negative of MIN wrap to MIN.
        assert_eq!(call1("abs", ty, min), s(min), "{ty}");
        assert_eq!(call1("negative", ty, min), s(min), "{ty}");
        assert_eq!(call1("abs", ty, -max), s(max), "{ty}");
        // Overflow wraps.
        assert_eq!(call2("add", ty, max, 1), s(min), "{ty}");
        assert_eq!(call2("multiply", ty, min, -1), s(min), "{ty}");
        assert_eq!(call2("subtract", ty, min, 1), s(max), "{ty}");
        // Integer powers: wrap, any exponent, negative exponents truncate.
        assert_eq!(call2("power", ty, 2, 3), "8", "{ty}");
        assert_eq!(call2("power", ty, 2, max), "0", "{ty}");
        assert_eq!(call2("power", ty, -1, max), "-1", "{ty}");
        // 3 to any power is odd, and stays odd modulo 2^bits.
        let odd = call2("power", ty, 3, max).parse::<i128>().unwrap();
        assert_eq!(odd.rem_euclid(2), 1, "{ty}");
        assert_eq!(call2("power", ty, 2, -1), "0", "{ty}");
        assert_eq!(call2("power", ty, 0, -1), "0", "{ty}");
        assert_eq!(call2("power", ty, 1, min), "1", "{ty}");
        assert_eq!(call2("power", ty, -1, -3), "-1", "{ty}");
        assert_eq!(call2("power", ty, -1, min), "1", "{ty}");
        assert_eq!(call2("power", ty, 0, 0), "1", "{ty}");
        assert_eq!(call2("power", ty, min, 2), "0", "{ty}");
    }
}

#[test]
fn unsigned_division_remainder_and_powers_at_the_edges() {
    for &(ty, max) in UNSIGNED {
        let max = max as i128;
        assert_eq!(call2("floor_divide", ty, max, 0), "0", "{ty}");
        assert_eq!(call2("remainder", ty, max, 0), "0", "{ty}");
        assert_eq!(call2("floor_divide", ty, max, 1), max.to_string(), "{ty}");
        assert_eq!(call2("remainder", ty, max, 2), "1", "{ty}");
        assert_eq!(call2("add", ty, max, 1), "0", "{ty}");
        assert_eq!(call2("subtract", ty, 0, 1), max.to_string(), "{ty}");
        assert_eq!(call1("abs", ty, max), max.to_string(), "{ty}");
        assert_eq!(call1("negative", ty, 1), max.to_string(), "{ty}");
        assert_eq!(call2("power", ty, 2, max), "0", "{ty}");
        assert_eq!(call2("power", ty, max, 2), "1", "{ty}");
        assert_eq!(call2("power", ty, 3, 0), "1", "{ty}");
    }
    // uint128 through its own values (JSON integers stop at i128).
    let t = "uint128".parse().unwrap();
    let max = Array::from_value(&Value::Int(-1), Some(&t));
    assert!(max.is_err(), "-1 is out of range for uint128");
    let two = Array::from_value(&Value::Int(2), Some(&t)).unwrap();
    let zero = Array::from_value(&Value::Int(0), Some(&t)).unwrap();
    for name in ["floor_divide", "remainder"] {
        let r = builtins::get(name).unwrap().call(&[&two, &zero]).unwrap();
        assert_eq!(r.to_string(), "0", "{name}");
    }
}

#[test]
fn float_remainder_follows_the_divisor() {
    let rem = builtins::get("remainder").unwrap();
    let r = rem
        .call(&[
            &dynd_kernels::array![5.5, -5.5, 5.5, 1.0],
            &dynd_kernels::array![2.0, 2.0, -2.0, 0.0],
        ])
        .unwrap();
    assert_eq!(r.to_string(), "[1.5, 0.5, -0.5, NaN]");
}
