//! NumPy's binary float ufuncs (`copysign`, `nextafter`, `fmod`, `fmax`,
//! `fmin`, `heaviside`, `ldexp`), `spacing`, the aliases `mod` and
//! `true_divide`, and the two-output functions [`divmod`], [`modf`] and
//! [`frexp`], which return a pair of arrays.
//!
//! ```
//! use dynd::func;
//! use dynd::nd::array;
//!
//! let (q, r) = func::divmod(&array![7, -7], &array![2])?;
//! assert_eq!((q.to_string(), r.to_string()), ("[3, -4]".into(), "[1, 1]".into()));
//! let (m, e) = func::frexp(&array![8.0, 0.75])?;
//! assert_eq!((m.to_string(), e.to_string()), ("[0.5, 0.75]".into(), "[4, 0]".into()));
//! assert_eq!(func::fmax(&array![f64::NAN, 1.0], &array![2.0, f64::NAN])?.to_string(), "[2, 1]");
//! # Ok::<(), dynd::Error>(())
//! ```

use dynd_kernels::elwise::{F64Op, IntOp, Leaf};
use dynd_kernels::{Array, F16};

use super::math::Real;
use super::real::{self, next_after_f16, Flt, Int};
use super::{alias, entry_assoc, ops, plain, with, DIVIDE, FLOOR_DIVIDE, REMAINDER};
use crate::builtin::{builtins, Builtin, Kind};
use crate::callable::Overload;
use crate::error::Error;

/// Overloads of `ldexp` for each float type, the exponent as `int64`.
fn ldexp_overloads() -> Vec<Overload> {
    vec![
        Overload::new(Leaf::map(|x: F16, n: i64| {
            F16::from_f64(x.to_f64().ldexp(n))
        })),
        Overload::new(Leaf::map(|x: f32, n: i64| x.ldexp(n))),
        Overload::new(Leaf::map(|x: f64, n: i64| x.ldexp(n))),
    ]
}

builtins! {
    $ FLOATING, __floating_builtins;

    /// `(T, T) -> T` for floats: `x`'s magnitude with `y`'s sign.
    COPYSIGN copysign "copysign" 2 None => {
        plain("copysign", floats2!(|x, y| Real::copysign(x, y)))
    };

    /// `(T, T) -> T` for floats: the next representable value after `x`
    /// toward `y` (C's `nextafter`; `float16` on its own bits).
    NEXTAFTER nextafter "nextafter" 2 None => {
        plain("nextafter", vec![
            Overload::new(Leaf::map(next_after_f16)),
            Overload::new(Leaf::map(|x: f32, y: f32| x.next_after(y))),
            Overload::new(Leaf::map(|x: f64, y: f64| x.next_after(y))),
        ])
    };

    /// `(T) -> T` for floats: the distance from `x` to the next value away
    /// from zero, with `x`'s sign (`spacing(1.0) == 2^-52`); NaN for
    /// infinities and NaN.
    SPACING spacing "spacing" 1 None => {
        plain("spacing", vec![
            Overload::new(Leaf::map(|x: F16| {
                // As `real::spacing`: both zeros give the smallest positive.
                let ax = F16(x.0 & 0x7fff);
                let next = next_after_f16(ax, F16::from_f64(f64::INFINITY));
                let s = next.to_f64() - ax.to_f64();
                if !x.to_f64().is_finite() { F16::from_f64(f64::NAN) } else if x.to_f64() < 0.0 { F16::from_f64(-s) } else { F16::from_f64(s) }
            })),
            Overload::new(Leaf::map(real::spacing::<f32>)),
            Overload::new(Leaf::map(real::spacing::<f64>)),
        ])
    };

    /// `(T, T) -> T` for integers and floats: C's remainder, with the
    /// dividend's sign (`fmod(-7, 2) == -1`); integers: `fmod(x, 0) == 0`.
    FMOD fmod "fmod" 2 None => {
        plain("fmod", with(ints!(each2, |x, y| Int::fmod(x, y)), floats2!(|x, y| x % y)))
    };

    /// `(T, T) -> T` for integers, floats and complex (NumPy's order):
    /// the larger, a NaN ignored (NaN only when both are). Associative,
    /// no identity.
    FMAX fmax "fmax" 2 None => {
        let complex = vec![
            Overload::new(Leaf::map(super::math::c_fmax::<f32>)),
            Overload::new(Leaf::map(super::math::c_fmax::<f64>)),
        ];
        let real = with(each2!([i128, u128], |x, y| IntOp::Fmax.apply(x, y)), half2!(|x, y| F64Op::Fmax.apply(x, y)));
        entry_assoc("fmax", with(ops(Some(F64Op::Fmax), Some(IntOp::Fmax), real), complex))
    };

    /// `(T, T) -> T` for integers, floats and complex: the smaller, a NaN
    /// ignored. Associative, no identity.
    FMIN fmin "fmin" 2 None => {
        let complex = vec![
            Overload::new(Leaf::map(super::math::c_fmin::<f32>)),
            Overload::new(Leaf::map(super::math::c_fmin::<f64>)),
        ];
        let real = with(each2!([i128, u128], |x, y| IntOp::Fmin.apply(x, y)), half2!(|x, y| F64Op::Fmin.apply(x, y)));
        entry_assoc("fmin", with(ops(Some(F64Op::Fmin), Some(IntOp::Fmin), real), complex))
    };

    /// `(T, T) -> T` for floats: 0 for `x < 0`, `h0` for `x == 0`, 1 for
    /// `x > 0`; NaN stays NaN.
    HEAVISIDE heaviside "heaviside" 2 None => {
        plain("heaviside", floats2!(|x, h0| real::heaviside(x, h0)))
    };

    /// `(T, int64) -> T` for floats: `x * 2^n`, rounded once (overflow to
    /// ±inf, underflow through the subnormals to ±0).
    LDEXP ldexp "ldexp" 2 None => {
        plain("ldexp", ldexp_overloads())
    };

    /// `mod`: the same function as `remainder` (NumPy's alias).
    MOD r#mod "mod" 2 None => {
        alias(&REMAINDER, "mod")
    };

    /// `true_divide`: the same function as `divide` (NumPy's alias).
    TRUE_DIVIDE true_divide "true_divide" 2 None => {
        alias(&DIVIDE, "true_divide")
    };
}

/// `modf`'s fractional part: `(T) -> T` for floats.
static MODF_FRACTION: Builtin = Builtin::new("modf", "the fractional part", Kind::Other, || {
    plain("modf", floats1!(|x| real::modf_fraction(x)))
});

/// `modf`'s integral part: `(T) -> T` for floats (`trunc`, which keeps
/// infinities).
static MODF_INTEGRAL: Builtin = Builtin::new("modf", "the integral part", Kind::Other, || {
    plain("modf", floats1!(|x| x.trunc()))
});

/// `frexp`'s mantissa: `(T) -> T` for floats.
static FREXP_MANTISSA: Builtin = Builtin::new("frexp", "the mantissa", Kind::Other, || {
    plain("frexp", floats1!(|x| x.frexp().0))
});

/// `frexp`'s exponent: `(T) -> int32` for floats.
static FREXP_EXPONENT: Builtin = Builtin::new("frexp", "the exponent", Kind::Other, || {
    plain(
        "frexp",
        vec![
            Overload::new(Leaf::map(|x: F16| x.to_f64().frexp().1)),
            Overload::new(Leaf::map(|x: f32| x.frexp().1)),
            Overload::new(Leaf::map(|x: f64| x.frexp().1)),
        ],
    )
});

/// NumPy's `divmod`: `(floor_divide(a, b), remainder(a, b))`, each as
/// those builtins give it (same types, broadcasting, NA).
///
/// # Errors
///
/// As the builtins: no overload for the types, shapes that do not
/// broadcast.
pub fn divmod(a: &Array, b: &Array) -> Result<(Array, Array), Error> {
    Ok((FLOOR_DIVIDE.call(&[a, b])?, REMAINDER.call(&[a, b])?))
}

/// NumPy's `modf`: the fractional and integral parts, each with `x`'s sign
/// (`modf(-2.5) == (-0.5, -2.0)`, `modf(inf) == (0.0, inf)`), for floats
/// (integers promote to a float).
///
/// # Errors
///
/// A type that is not a number.
pub fn modf(a: &Array) -> Result<(Array, Array), Error> {
    Ok((MODF_FRACTION.call(&[a])?, MODF_INTEGRAL.call(&[a])?))
}

/// NumPy's `frexp`: the mantissa (`0.5 <= |m| < 1`, of `x`'s type) and
/// the exponent (`int32`) with `x == m * 2^e`; zeros, infinities and NaN
/// give themselves and 0.
///
/// # Errors
///
/// A type that is not a number.
pub fn frexp(a: &Array) -> Result<(Array, Array), Error> {
    Ok((FREXP_MANTISSA.call(&[a])?, FREXP_EXPONENT.call(&[a])?))
}
