//! NumPy's integer and bitwise ufuncs (`gcd`, `lcm`, `bitwise_and`, ...,
//! the shifts, `bitwise_count`) and the complex parts (`real`, `imag`,
//! `conj`, `angle`). The bitwise ones are Rust's operators `&`, `|`, `^`,
//! `!`, `<<` and `>>` on arrays and expressions, logical on `bool`:
//!
//! ```
//! use dynd::prelude::*;
//!
//! let x = nd::array![-0.5, 0.25, 0.75, 2.0];
//! let inside = (x.greater(0.0) & x.less(1.0)).eval()?;
//! assert_eq!(inside.to_string(), "[false, true, true, false]");
//! let bits = nd::Array::from_vec(vec![0b1100_u8, 0b1010]);
//! assert_eq!((&bits ^ 0b0110_u8).eval()?.to_string(), "[10, 12]");
//! assert_eq!((!&bits).eval()?.to_string(), "[243, 245]");
//! assert_eq!((&bits << 4_u8).eval()?.to_string(), "[192, 160]");
//! assert_eq!(dynd::func::gcd(&nd::array![12, -18], &nd::array![8])?.to_string(), "[4, 2]");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use dynd_array::expr::{BinaryOp, UnaryOp};
use dynd_kernels::elwise::{IntOp, Leaf};
use dynd_kernels::{Complex, F16};

use super::cmath::c_angle;
use super::real::Int;
use super::{alias, entry_assoc, ops, plain, with};
use crate::builtin::{builtins, Operator};
use crate::callable::Overload;

/// The overloads of the integer operation `$op` of the table that its
/// loops do not cover: `bool` (`body`), and the 128-bit integers (the
/// table's body).
macro_rules! bool_and_wide2 {
    ($op:expr, |$a:ident, $b:ident| $body:expr) => {
        vec![
            Overload::new(Leaf::map(|$a: bool, $b: bool| $body)),
            Overload::new(Leaf::map(|$a: i128, $b: i128| $op.apply($a, $b))),
            Overload::new(Leaf::map(|$a: u128, $b: u128| $op.apply($a, $b))),
        ]
    };
}

/// Overloads of `bitwise_count` for each integer type.
macro_rules! count {
    ([$($t:ty),*],) => {
        vec![$(Overload::new(Leaf::map(|x: $t| Int::count_ones_abs(x)))),*]
    };
}

builtins! {
    $ BITWISE, __bitwise_builtins;

    /// `(T, T) -> T` for integers: the greatest common divisor, never
    /// negative (but `gcd(MIN, 0)` wraps to `MIN`, as NumPy's).
    GCD gcd "gcd" 2 None => {
        plain("gcd", ints!(each2, |a, b| Int::gcd(a, b)))
    };

    /// `(T, T) -> T` for integers: the least common multiple, never
    /// negative; `lcm(0, x) == 0`; wraps on overflow, as NumPy's.
    LCM lcm "lcm" 2 None => {
        plain("lcm", ints!(each2, |a, b| Int::lcm(a, b)))
    };

    /// `(T, T) -> T` for `bool` (logical) and integers: `a & b`, the
    /// operator `&`. Associative, no identity.
    BITWISE_AND bitwise_and "bitwise_and" 2 Some(Operator::Binary(BinaryOp::BitAnd)) => {
        entry_assoc("bitwise_and", ops(None, Some(IntOp::BitAnd), bool_and_wide2!(IntOp::BitAnd, |a, b| a & b)))
    };

    /// `(T, T) -> T` for `bool` and integers: `a | b`, the operator `|`.
    /// Associative, no identity.
    BITWISE_OR bitwise_or "bitwise_or" 2 Some(Operator::Binary(BinaryOp::BitOr)) => {
        entry_assoc("bitwise_or", ops(None, Some(IntOp::BitOr), bool_and_wide2!(IntOp::BitOr, |a, b| a | b)))
    };

    /// `(T, T) -> T` for `bool` and integers: `a ^ b`, the operator `^`.
    /// Associative, no identity.
    BITWISE_XOR bitwise_xor "bitwise_xor" 2 Some(Operator::Binary(BinaryOp::BitXor)) => {
        entry_assoc("bitwise_xor", ops(None, Some(IntOp::BitXor), bool_and_wide2!(IntOp::BitXor, |a, b| a ^ b)))
    };

    /// `(T) -> T` for `bool` (logical not) and integers (every bit
    /// flipped: `invert(0_u8) == 255`, `invert(5) == -6`): the operator `!`
    /// (`~` in `dynd eval`).
    INVERT invert "invert" 1 Some(Operator::Unary(UnaryOp::Invert)) => {
        let ints = ops(None, Some(IntOp::Invert), each1!([i128, u128], |a| IntOp::Invert.apply(a, a)));
        plain("invert", with(vec![Overload::new(Leaf::map(|a: bool| !a))], ints))
    };

    /// `bitwise_not`: the same function as `invert`.
    BITWISE_NOT bitwise_not "bitwise_not" 1 None => {
        alias(&INVERT, "bitwise_not")
    };

    /// `(T, T) -> T` for integers: `a << b`, the operator `<<`; a negative
    /// shift or one of the type's width or more gives 0 (NumPy's; Rust's
    /// `<<` would panic or wrap the amount).
    LEFT_SHIFT left_shift "left_shift" 2 Some(Operator::Binary(BinaryOp::LeftShift)) => {
        let ints = ops(None, Some(IntOp::ShiftLeft), each2!([i128, u128], |a, b| IntOp::ShiftLeft.apply(a, b)));
        plain("left_shift", ints)
    };

    /// `(T, T) -> T` for integers: `a >> b` (arithmetic for signed
    /// types), the operator `>>`; a negative shift or one of the width or
    /// more gives the sign fill, 0 or -1 (NumPy's).
    RIGHT_SHIFT right_shift "right_shift" 2 Some(Operator::Binary(BinaryOp::RightShift)) => {
        let ints = ops(None, Some(IntOp::ShiftRight), each2!([i128, u128], |a, b| IntOp::ShiftRight.apply(a, b)));
        plain("right_shift", ints)
    };

    /// `(T) -> uint8` for integers: the number of 1 bits of `|x|` (NumPy 2's
    /// `bitwise_count`: `bitwise_count(-1) == 1`).
    BITWISE_COUNT bitwise_count "bitwise_count" 1 None => {
        plain("bitwise_count", ints!(count,))
    };

    /// `(complex[T]) -> T`: the real part; `(T) -> T` for integers and
    /// floats: `x` itself.
    REAL real "real" 1 None => {
        let overloads = with(ints!(each1, |x| x), floats_kept());
        plain("real", with(overloads, complexes!(each1, |z| z.re)))
    };

    /// `(complex[T]) -> T`: the imaginary part; `(T) -> T` for integers and
    /// floats: 0 of the type.
    IMAG imag "imag" 1 None => {
        // The zero of `x`'s own type (a literal 0 would be `i32`).
        let mut overloads = ints!(each1, |x| x.wrapping_sub(x));
        overloads.push(Overload::new(Leaf::map(|_: F16| F16(0))));
        overloads.push(Overload::new(Leaf::map(|_: f32| 0.0_f32)));
        overloads.push(Overload::new(Leaf::map(|_: f64| 0.0_f64)));
        plain("imag", with(overloads, complexes!(each1, |z| z.im)))
    };

    /// `(complex[T]) -> complex[T]`: the complex conjugate; `(T) -> T` for
    /// integers and floats: `x` itself.
    CONJ conj "conj" 1 None => {
        let overloads = with(ints!(each1, |x| x), floats_kept());
        plain("conj", with(overloads, complexes!(each1, |z| Complex::new(z.re, -z.im))))
    };

    /// `conjugate`: the same function as `conj`.
    CONJUGATE conjugate "conjugate" 1 None => {
        alias(&CONJ, "conjugate")
    };

    /// `(complex[T]) -> T`: the argument `atan2(im, re)` in radians;
    /// `(T) -> T` for floats: 0, or π for negative `x` (and `-0.0`), as
    /// NumPy's `angle`; integers promote to a float (`int8` to
    /// `float16`), `bool` to `float64` (as NumPy 2's `angle`, whose
    /// Python 0 makes a `bool` argument a default integer).
    ANGLE angle "angle" 1 None => {
        let mut overloads = floats1!(|x| super::math::Real::atan2(0.0, x));
        overloads.push(Overload::new(Leaf::map(|_: bool| 0.0_f64)));
        plain("angle", with(overloads, complexes!(each1, |z| c_angle(z))))
    };
}

/// The identity on each float type.
fn floats_kept() -> Vec<Overload> {
    vec![
        Overload::new(Leaf::map(|x: F16| x)),
        Overload::new(Leaf::map(|x: f32| x)),
        Overload::new(Leaf::map(|x: f64| x)),
    ]
}
