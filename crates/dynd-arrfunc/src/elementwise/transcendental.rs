//! NumPy's exponentials and logarithms, the inverse trigonometric and
//! the hyperbolic functions, angle conversions and `hypot`: `float16`,
//! `float32`, `float64` (integers promote to the cheapest float that
//! holds them, as in NumPy) and complex where NumPy has it. The
//! exponentials, logarithms, the hyperbolic and inverse functions and
//! `hypot` of `float32` and `float64` run
//! [`dynd_math`](dynd_kernels::math)'s vector loops (within one ULP)
//! where they beat the platform's libm on this CPU; `float16`, the
//! complex functions and the rest use libm through Rust's float methods.
//!
//! ```
//! use dynd::func;
//! use dynd::nd::array;
//!
//! assert_eq!(func::log2(&array![1.0, 8.0, 0.5])?.to_string(), "[0, 3, -1]");
//! assert_eq!(func::expm1(&array![1e-20])?.to_string(), "[1e-20]");
//! assert_eq!(func::logaddexp(&array![1000.0], &array![1000.0])?.to_string(), "[1000.6931471805599]");
//! assert_eq!(func::hypot(&array![3.0_f32], &array![4.0_f32])?.to_string(), "[5]");
//! # Ok::<(), dynd::Error>(())
//! ```

use dynd_kernels::elwise::Leaf;
use dynd_kernels::{Complex, F16};
use dynd_types::Scalar;

use super::cmath::*;
use super::math::{c_cosh, c_pow, c_sinh, c_tanh, Real};
use super::real::{self, Flt};
use super::{alias, plain, vector, vector2, with};
use crate::builtin::builtins;
use crate::callable::Overload;
use dynd_kernels::math::{Binary, Unary};

/// Float overloads of the method `$m` (`Flt::exp2`), then the complex
/// ones of `$c`.
macro_rules! float_and_complex {
    ($m:path, $c:ident) => {
        with(floats1!(|x| $m(x)), complexes!(each1, |z| $c(z)))
    };
    // With `float32` and `float64` on the vector loops of `Unary::$u`.
    ($m:path, $c:ident, $u:ident) => {
        with(
            vector(half1!(|x| $m(x)), Unary::$u),
            complexes!(each1, |z| $c(z)),
        )
    };
}

builtins! {
    $ TRANSCENDENTAL, __transcendental_builtins;

    /// `(T) -> T` for floats and complex: `2^x`.
    EXP2 exp2 "exp2" 1 None => {
        plain("exp2", float_and_complex!(Flt::exp2, c_exp2, Exp2))
    };

    /// `(T) -> T` for floats and complex: `e^x - 1`, accurate near 0.
    EXPM1 expm1 "expm1" 1 None => {
        plain("expm1", float_and_complex!(Flt::exp_m1, c_expm1, Expm1))
    };

    /// `(T) -> T` for floats and complex: the base-2 logarithm.
    LOG2 log2 "log2" 1 None => {
        plain("log2", float_and_complex!(Flt::log2, c_log2, Log2))
    };

    /// `(T) -> T` for floats and complex: the base-10 logarithm.
    LOG10 log10 "log10" 1 None => {
        plain("log10", float_and_complex!(Flt::log10, c_log10, Log10))
    };

    /// `(T) -> T` for floats and complex: `log(1 + x)`, accurate near 0.
    LOG1P log1p "log1p" 1 None => {
        plain("log1p", float_and_complex!(Flt::ln_1p, c_log1p, Log1p))
    };

    /// `(T, T) -> T` for floats: `log(e^x + e^y)` without overflow
    /// (`logaddexp(1000, 1000) == 1000 + ln 2`).
    LOGADDEXP logaddexp "logaddexp" 2 None => {
        plain("logaddexp", floats2!(|x, y| real::logaddexp(x, y)))
    };

    /// `(T, T) -> T` for floats: `log2(2^x + 2^y)` without overflow.
    LOGADDEXP2 logaddexp2 "logaddexp2" 2 None => {
        plain("logaddexp2", floats2!(|x, y| real::logaddexp2(x, y)))
    };

    /// `(float64, float64) -> float64` and `(complex[float64],
    /// complex[float64]) -> complex[float64]`: `power` computed in double
    /// precision (every integer and smaller float promotes, as in NumPy).
    FLOAT_POWER float_power "float_power" 2 None => {
        let pow = Leaf::binary_math(Binary::Pow, Scalar::Float64).map(Overload::new);
        plain("float_power", pow.into_iter().chain([Overload::new(Leaf::map(c_pow::<f64>))]).collect())
    };

    /// `(T) -> T` for floats and complex: the inverse sine (complex: the
    /// principal branch, cuts along the real axis outside `[-1, 1]`).
    ARCSIN arcsin "arcsin" 1 None => {
        plain("arcsin", float_and_complex!(Flt::asin, c_asin, Arcsin))
    };

    /// `(T) -> T` for floats and complex: the inverse cosine.
    ARCCOS arccos "arccos" 1 None => {
        plain("arccos", float_and_complex!(Flt::acos, c_acos, Arccos))
    };

    /// `(T) -> T` for floats and complex: the inverse tangent (complex:
    /// cuts along the imaginary axis outside `[-i, i]`).
    ARCTAN arctan "arctan" 1 None => {
        plain("arctan", float_and_complex!(Flt::atan, c_atan, Arctan))
    };

    /// `(T) -> T` for floats and complex (complex after C99 Annex G).
    SINH sinh "sinh" 1 None => {
        plain("sinh", float_and_complex!(Real::sinh, c_sinh, Sinh))
    };

    /// `(T) -> T` for floats and complex.
    COSH cosh "cosh" 1 None => {
        plain("cosh", float_and_complex!(Real::cosh, c_cosh, Cosh))
    };

    /// `(T) -> T` for floats and complex (complex by Kahan's formula).
    TANH tanh "tanh" 1 None => {
        plain("tanh", float_and_complex!(Flt::tanh, c_tanh, Tanh))
    };

    /// `(T) -> T` for floats and complex: the inverse hyperbolic sine.
    ARCSINH arcsinh "arcsinh" 1 None => {
        plain("arcsinh", float_and_complex!(Flt::asinh, c_asinh, Arcsinh))
    };

    /// `(T) -> T` for floats and complex: the inverse hyperbolic cosine
    /// (NaN below 1 for floats).
    ARCCOSH arccosh "arccosh" 1 None => {
        plain("arccosh", float_and_complex!(Flt::acosh, c_acosh, Arccosh))
    };

    /// `(T) -> T` for floats and complex: the inverse hyperbolic tangent
    /// (`±inf` at `±1`).
    ARCTANH arctanh "arctanh" 1 None => {
        plain("arctanh", float_and_complex!(Flt::atanh, c_atanh, Arctanh))
    };

    /// `(T) -> T` for floats: degrees to radians, `x * (π / 180)`.
    DEG2RAD deg2rad "deg2rad" 1 None => {
        plain("deg2rad", floats1!(|x| deg2rad_(x)))
    };

    /// `(T) -> T` for floats: radians to degrees, `x * (180 / π)`.
    RAD2DEG rad2deg "rad2deg" 1 None => {
        plain("rad2deg", floats1!(|x| rad2deg_(x)))
    };

    /// `radians`: the same function as `deg2rad`.
    RADIANS radians "radians" 1 None => {
        alias(&DEG2RAD, "radians")
    };

    /// `degrees`: the same function as `rad2deg`.
    DEGREES degrees "degrees" 1 None => {
        alias(&RAD2DEG, "degrees")
    };

    /// `(T, T) -> T` for floats: `sqrt(x² + y²)` without overflow or
    /// underflow in between.
    HYPOT hypot "hypot" 2 None => {
        plain("hypot", vector2(half2!(|x, y| Real::hypot(x, y)), Binary::Hypot))
    };
}

fn deg2rad_<T: Flt>(x: T) -> T {
    x * T::RAD_PER_DEG
}

fn rad2deg_<T: Flt>(x: T) -> T {
    x * T::DEG_PER_RAD
}
