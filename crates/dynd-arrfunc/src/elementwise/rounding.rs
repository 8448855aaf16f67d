//! NumPy's rounding, sign and classification ufuncs, and `clip`.
//!
//! ```
//! use dynd::func::{self, builtins::{CLIP, ISNAN}};
//! use dynd::nd::array;
//!
//! assert_eq!(func::floor(&array![-1.5, 0.5, 2.0])?.to_string(), "[-2, 0, 2]");
//! let ints = dynd::nd::Array::from_vec(vec![7_i32, -3]);
//! assert_eq!(func::floor(&ints)?.ty().to_string(), "2 * int32");
//! assert_eq!(func::round(&array![2.5, 3.5, 0.125], 0)?.to_string(), "[2, 4, 0]");
//! assert_eq!(func::round(&array![1234_i64, 1250], -2)?.to_string(), "[1200, 1200]");
//! assert_eq!(ISNAN.call(&[&array![f64::NAN, 1.0]])?.to_string(), "[true, false]");
//! let lo = dynd::nd::Array::from_scalar(0.0);
//! let shorts = dynd::nd::Array::from_vec(vec![-5_i16, 3, 900]);
//! let r = CLIP.callable().call_kw(&[&shorts], &[("lo", &lo)])?;
//! assert_eq!(r.to_string(), "[0, 3, 900]");
//! # Ok::<(), dynd::Error>(())
//! ```

use dynd_kernels::elwise::{F64Op, Leaf, Predicate};
use dynd_kernels::{Array, Complex, F16};
use dynd_types::Scalar;

use super::cmath::*;
use super::math::Real;
use super::real::{self, signbit_f16, Flt, Int};
use super::{alias, ops, plain, tests, with, ABS};
use crate::builtin::{builtins, entry, Fold};
use crate::callable::{Keyword, Overload};
use crate::error::Error;

/// Overloads keeping integers as they are (the rounding functions of an
/// integer, as NumPy 2 gives them), then `floats`.
fn ints_kept(floats: Vec<Overload>) -> Vec<Overload> {
    with(ints!(each1, |x| x), floats)
}

/// The `decimals` keyword of `round`.
fn decimals() -> Vec<Keyword> {
    vec![Keyword::optional(
        "decimals",
        Scalar::Int64,
        Array::from_scalar(0i64),
    )]
}

/// Overloads of `round` for each integer type.
macro_rules! round_ints {
    ([$($t:ty),*],) => {
        vec![$(Overload::new(Leaf::map(|x: $t, d: i64| Int::round(x, d)))),*]
    };
}

/// Overloads of `clip` for each integer type.
macro_rules! clip_ints {
    ([$($t:ty),*],) => {
        vec![$(Overload::new(Leaf::map(|x: $t, lo: f64, hi: f64| Int::clip(x, lo, hi)))),*]
    };
}

/// `x` limited to `[lo, hi]`; NaN stays NaN.
fn clip_float<T: Flt>(x: T, lo: T, hi: T) -> T {
    if x.is_nan() {
        x
    } else {
        x.fmax(lo).fmin(hi)
    }
}

builtins! {
    $ ROUNDING, __rounding_builtins;

    /// `(T) -> T`: floats: the largest integer not above `x` (`-0.0`,
    /// infinities and NaN stay); integers are kept, type and value (NumPy
    /// 2's integer loops).
    FLOOR floor "floor" 1 None => {
        plain("floor", ints_kept(ops(Some(F64Op::Floor), None, half1!(|x| F64Op::Floor.apply(x, 0.0)))))
    };

    /// `(T) -> T`: floats: the smallest integer not below `x`; integers
    /// kept.
    CEIL ceil "ceil" 1 None => {
        plain("ceil", ints_kept(ops(Some(F64Op::Ceil), None, half1!(|x| F64Op::Ceil.apply(x, 0.0)))))
    };

    /// `(T) -> T`: floats: rounded toward zero; integers kept.
    TRUNC trunc "trunc" 1 None => {
        plain("trunc", ints_kept(ops(Some(F64Op::Trunc), None, half1!(|x| F64Op::Trunc.apply(x, 0.0)))))
    };

    /// `(T) -> T` for floats: to the nearest integer, halves to even
    /// (`rint(2.5) == 2`). Integers promote to a float, as NumPy 2's
    /// `rint` does (`int8` to `float16`, `int64` to `float64`; `floor`,
    /// `ceil` and `trunc` keep them).
    RINT rint "rint" 1 None => {
        plain("rint", ops(Some(F64Op::Rint), None, half1!(|x| F64Op::Rint.apply(x, 0.0))))
    };

    /// `(T, decimals: int64) -> T` for every integer, float and complex
    /// `T` (`decimals` defaults to 0): halves to even at that many decimal
    /// places, as NumPy (scaled by `10^decimals`, rounded, scaled back;
    /// complex: each part). Integers with `decimals < 0` round to tens,
    /// hundreds, ... exactly (NumPy goes through `float64`); a place past
    /// the integer type's range gives 0. Deliberate difference: where the
    /// scaled float overflows (`round(1e300, 10)`), `x` is returned
    /// unchanged (NumPy gives `inf`).
    ROUND round "round" rs None => {
        let mut overloads = ints!(round_ints,);
        overloads.push(Overload::new(Leaf::map(|x: F16, d: i64| F16::from_f64(real::round(x.to_f64(), d)))));
        overloads.push(Overload::new(Leaf::map(real::round::<f32>)));
        overloads.push(Overload::new(Leaf::map(real::round::<f64>)));
        overloads.push(Overload::new(Leaf::map(c_round::<f32>)));
        overloads.push(Overload::new(Leaf::map(c_round::<f64>)));
        entry("round", overloads, Fold::No, decimals())
    };

    /// `(T) -> T`: -1, 0 or 1 for integers and floats (NaN stays NaN,
    /// `sign(-0.0) == 0.0`); complex: `z / |z|` (NumPy 2), 0 for 0, the
    /// unit direction of an infinite part, NaN when both parts are
    /// infinite.
    SIGN sign "sign" 1 None => {
        let overloads = with(ints!(each1, |x| Int::sign(x)), floats1!(|x| real::sign(x)));
        plain("sign", with(overloads, complexes!(each1, |z| c_sign(z))))
    };

    /// `(T) -> T` for floats: `|x|` (integers promote to a float, as in
    /// NumPy).
    FABS fabs "fabs" 1 None => {
        plain("fabs", floats1!(|x| Real::abs(x)))
    };

    /// `absolute`: the same function as `abs` (NumPy's name).
    ABSOLUTE absolute "absolute" 1 None => {
        alias(&ABS, "absolute")
    };

    /// `(T) -> T` for every numeric `T`: `+x`, a copy.
    POSITIVE positive "positive" 1 None => {
        let overloads = with(ints!(each1, |x| x), floats1!(|x| x));
        plain("positive", with(overloads, complexes!(each1, |z| z)))
    };

    /// `(T) -> T` for every numeric `T`: `x * x` (integers wrap).
    SQUARE square "square" 1 None => {
        let overloads = with(ints!(each1, |x| x.wrapping_mul(x)), floats1!(|x| x * x));
        plain("square", with(overloads, complexes!(each1, |z| c_square(z))))
    };

    /// `(T) -> T` for every numeric `T`: `1 / x`; integers: truncated
    /// (`0` for `|x| > 1`). Deliberate difference: an integer `1 / 0` is 0
    /// (NumPy's is undefined, usually the type's minimum).
    RECIPROCAL reciprocal "reciprocal" 1 None => {
        let overloads = with(ints!(each1, |x| Int::reciprocal(x)), floats1!(|x| 1.0 / x));
        plain("reciprocal", with(overloads, complexes!(each1, |z| c_reciprocal(z))))
    };

    /// `(T) -> T` for floats: the real cube root (`cbrt(-8) == -2`).
    CBRT cbrt "cbrt" 1 None => {
        plain("cbrt", super::vector(half1!(|x| x.cbrt()), dynd_kernels::math::Unary::Cbrt))
    };

    /// `(T) -> bool` for `bool`, integers (always false), floats and complex
    /// (either part NaN).
    ISNAN isnan "isnan" 1 None => {
        let mut overloads = vec![Overload::new(Leaf::map(|_: bool| false))];
        overloads.extend(each1!([i128, u128], |_x| false));
        overloads.extend(half1!(|x| x.is_nan()));
        plain("isnan", with(tests(Predicate::IsNan, overloads), complexes!(each1, |z| c_isnan(z))))
    };

    /// `(T) -> bool` for `bool`, integers (always false), floats and complex
    /// (either part infinite).
    ISINF isinf "isinf" 1 None => {
        let mut overloads = vec![Overload::new(Leaf::map(|_: bool| false))];
        overloads.extend(each1!([i128, u128], |_x| false));
        overloads.extend(half1!(|x| x.is_infinite()));
        plain("isinf", with(tests(Predicate::IsInf, overloads), complexes!(each1, |z| c_isinf(z))))
    };

    /// `(T) -> bool` for `bool`, integers (always true), floats and complex
    /// (both parts finite).
    ISFINITE isfinite "isfinite" 1 None => {
        let mut overloads = vec![Overload::new(Leaf::map(|_: bool| true))];
        overloads.extend(each1!([i128, u128], |_x| true));
        overloads.extend(half1!(|x| x.is_finite()));
        plain("isfinite", with(tests(Predicate::IsFinite, overloads), complexes!(each1, |z| c_isfinite(z))))
    };

    /// `(T) -> bool` for floats: the sign bit (`signbit(-0.0)`, and of a
    /// negative NaN); integers promote to a float.
    SIGNBIT signbit "signbit" 1 None => {
        plain("signbit", vec![
            Overload::new(Leaf::map(signbit_f16)),
            Overload::new(Leaf::map(|x: f32| x.is_sign_negative())),
            Overload::new(Leaf::map(|x: f64| x.is_sign_negative())),
        ])
    };

    /// `(T) -> bool` for floats: `x == -inf`.
    ISNEGINF isneginf "isneginf" 1 None => {
        plain("isneginf", floats1!(|x| x.is_infinite() && x < 0.0))
    };

    /// `(T) -> bool` for floats: `x == +inf`.
    ISPOSINF isposinf "isposinf" 1 None => {
        plain("isposinf", floats1!(|x| x.is_infinite() && x > 0.0))
    };

    /// `(T, lo: float64, hi: float64) -> T` for integers and floats: the
    /// keywords default to -inf and +inf; NaN stays NaN. Integers keep
    /// their type (the bounds rounded inward, `ceil(lo)` and `floor(hi)`,
    /// and saturated to the type); `float16` and `float32` compare with the
    /// bounds rounded to their type. With `lo > hi` the result is `hi`, as
    /// NumPy. A deliberate difference from NumPy 2: integers with a bound
    /// that has a fraction (`clip(int8, lo=1.5)`) stay integers, where
    /// NumPy promotes to `float64` (the bounds are `float64` keywords, and
    /// a result type that depends on their values would not be known
    /// before the call); cast to a float first for NumPy's result.
    CLIP clip "clip" rs None => {
        let mut overloads = ints!(clip_ints,);
        overloads.push(Overload::new(Leaf::map(|x: F16, lo: f64, hi: f64| {
            F16::from_f64(clip_float(x.to_f64(), F16::from_f64(lo).to_f64(), F16::from_f64(hi).to_f64()))
        })));
        overloads.push(Overload::new(Leaf::map(|x: f32, lo: f64, hi: f64| clip_float(x, lo as f32, hi as f32))));
        overloads.push(Overload::new(Leaf::map(clip_float::<f64>)));
        let keywords = vec![
            Keyword::optional("lo", Scalar::Float64, Array::from_scalar(f64::NEG_INFINITY)),
            Keyword::optional("hi", Scalar::Float64, Array::from_scalar(f64::INFINITY)),
        ];
        entry("clip", overloads, Fold::No, keywords)
    };
}

/// NumPy's `round`: each element rounded half to even at `decimals`
/// places (negative: to tens, hundreds, ...), the builtin `round` (see
/// [`ROUND`]).
///
/// ```
/// use dynd::{func, nd::array};
///
/// // NumPy's scaling: 2.675 * 100 rounds to 267.5, then to even.
/// assert_eq!(func::round(&array![0.125, 2.675, -1.5], 2)?.to_string(), "[0.12, 2.68, -1.5]");
/// assert_eq!(func::round(&array![125_i32, 135], -1)?.to_string(), "[120, 140]");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// As [`Callable::call`](crate::Callable::call): no overload for the type.
pub fn round(a: &Array, decimals: i64) -> Result<Array, Error> {
    let d = Array::from_scalar(decimals);
    ROUND.callable().call_kw(&[a], &[("decimals", &d)])
}

/// NumPy's `clip`: each element limited to `[lo, hi]` (`None` for no
/// bound), the builtin `clip` (see
/// [`CLIP`]): integers keep their
/// type, NaN stays NaN.
///
/// ```
/// use dynd::{func, nd::array};
///
/// assert_eq!(func::clip(&array![-3_i8, 5, 120], Some(0.0), Some(100.0))?.to_string(), "[0, 5, 100]");
/// assert_eq!(func::clip(&array![-0.5, f64::NAN], Some(0.0), None)?.to_string(), "[0, NaN]");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// As [`Callable::call`](crate::Callable::call): no overload for the type.
pub fn clip(a: &Array, lo: Option<f64>, hi: Option<f64>) -> Result<Array, Error> {
    let lo = Array::from_scalar(lo.unwrap_or(f64::NEG_INFINITY));
    let hi = Array::from_scalar(hi.unwrap_or(f64::INFINITY));
    CLIP.callable().call_kw(&[a], &[("lo", &lo), ("hi", &hi)])
}
