//! Value conversions between builtin numeric scalars, under an error mode.
//!
//! Every numeric value converts exactly to a `Num` (bools, integers up to
//! 128 bits, floats as `f64`, complex as two `f64`s), and from a `Num` to the
//! destination with the mode's checks. Both steps inline, so a monomorphised
//! `convert::<f32, f64>` is a plain `as`.

use std::fmt;
use std::str::FromStr;

use dynd_types::{can_cast_safely, KernelError, KernelErrorKind, Scalar, ScalarCategory, Type};

use crate::element::{Complex, Element, F16};

/// How assignment treats values that do not fit, after DyND.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ErrorMode {
    /// No checks: integers wrap, floats saturate into integers (Rust's `as`),
    /// complex drops its imaginary part, bool is "not zero".
    NoCheck,
    /// Values out of the destination's range are errors; float to integer
    /// truncates toward zero.
    Overflow,
    /// As `Overflow`, and a fractional part (or a non-zero imaginary part)
    /// lost in the conversion is an error. The default.
    #[default]
    Fractional,
    /// As `Fractional`, and any value the destination cannot represent
    /// exactly (`16777217` as `float32`, `0.1` as `float32`) is an error.
    Inexact,
}

impl ErrorMode {
    /// The mode's name: `nocheck`, `overflow`, `fractional`, `inexact`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorMode::NoCheck => "nocheck",
            ErrorMode::Overflow => "overflow",
            ErrorMode::Fractional => "fractional",
            ErrorMode::Inexact => "inexact",
        }
    }
}

impl fmt::Display for ErrorMode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for ErrorMode {
    type Err = String;

    fn from_str(s: &str) -> Result<ErrorMode, String> {
        Ok(match s {
            "nocheck" | "none" => ErrorMode::NoCheck,
            "overflow" => ErrorMode::Overflow,
            "fractional" => ErrorMode::Fractional,
            "inexact" => ErrorMode::Inexact,
            _ => {
                return Err(format!(
                    "unknown error mode '{s}' (expected nocheck, overflow, fractional or inexact)"
                ))
            }
        })
    }
}

/// Any numeric value, exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    /// A `bool`.
    Bool(bool),
    /// A signed integer, or an unsigned one up to `i128::MAX`.
    Int(i128),
    /// An unsigned integer above `i128::MAX`.
    UInt(u128),
    /// A real float (`float16` and `float32` widen exactly).
    Float(f64),
    /// A complex value: real and imaginary parts.
    Complex(f64, f64),
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Num::Bool(b) => write!(f, "{b}"),
            Num::Int(v) => write!(f, "{v}"),
            Num::UInt(v) => write!(f, "{v}"),
            Num::Float(x) => write!(f, "{}", Short(*x)),
            Num::Complex(re, im) => {
                let sign = if im.is_sign_negative() { "" } else { "+" };
                write!(f, "{}{sign}{}i", Short(*re), Short(*im))
            }
        }
    }
}

/// A float in at most a line: plain notation for moderate magnitudes,
/// scientific beyond (`1e300`, not three hundred digits).
pub struct Short(pub f64);

impl fmt::Display for Short {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.0;
        if x == 0.0 || !x.is_finite() || (1e-5..1e16).contains(&x.abs()) {
            write!(f, "{x}")
        } else {
            write!(f, "{x:e}")
        }
    }
}

/// Why a conversion failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fail {
    /// The value is out of the destination's range.
    Overflow,
    /// A fractional (or imaginary) part would be lost.
    Fractional,
    /// The destination cannot hold the value exactly.
    Inexact,
}

/// A numeric element that converts through `Num`.
pub trait Convert: Element {
    /// The value, exactly.
    fn to_num(self) -> Num;
    /// The value as `Self`, with `mode`'s checks.
    ///
    /// # Errors
    ///
    /// The check that failed.
    fn from_num(n: Num, mode: ErrorMode) -> Result<Self, Fail>;
}

/// The real part of a value, failing on a lost imaginary part where the
/// mode checks fractions.
#[inline(always)]
fn real(n: Num, mode: ErrorMode) -> Result<Num, Fail> {
    match n {
        Num::Complex(re, im) => {
            if im != 0.0 && matches!(mode, ErrorMode::Fractional | ErrorMode::Inexact) {
                Err(Fail::Fractional)
            } else {
                Ok(Num::Float(re))
            }
        }
        n => Ok(n),
    }
}

macro_rules! convert_int {
    ($($t:ty),*) => {$(
        impl Convert for $t {
            #[inline(always)]
            fn to_num(self) -> Num {
                #[allow(unused_comparisons)]
                if <$t>::MIN < 0 { Num::Int(self as i128) } else { Num::UInt(self as u128) }
            }

            #[inline(always)]
            fn from_num(n: Num, mode: ErrorMode) -> Result<Self, Fail> {
                let n = real(n, mode)?;
                if mode == ErrorMode::NoCheck {
                    return Ok(match n {
                        Num::Bool(b) => b as $t,
                        Num::Int(v) => v as $t,
                        Num::UInt(v) => v as $t,
                        Num::Float(x) | Num::Complex(x, _) => x as $t,
                    });
                }
                match n {
                    Num::Bool(b) => Ok(b as $t),
                    Num::Int(v) => <$t>::try_from(v).map_err(|_| Fail::Overflow),
                    Num::UInt(v) => <$t>::try_from(v).map_err(|_| Fail::Overflow),
                    Num::Float(x) | Num::Complex(x, _) => {
                        if x.is_nan() {
                            return Err(Fail::Overflow);
                        }
                        let t = x.trunc();
                        if t != x && mode != ErrorMode::Overflow {
                            return Err(Fail::Fractional);
                        }
                        // Both bounds are exact in f64 (zero or powers of
                        // two); the upper one is exclusive.
                        let lo = <$t>::MIN as f64;
                        let hi = if <$t>::MIN == 0 {
                            2f64.powi(<$t>::BITS as i32)
                        } else {
                            2f64.powi(<$t>::BITS as i32 - 1)
                        };
                        if t < lo || t >= hi {
                            return Err(Fail::Overflow);
                        }
                        Ok(t as $t)
                    }
                }
            }
        }
    )*};
}

convert_int!(i8, i16, i32, i64, i128, u8, u16, u32, u64, u128);

impl Convert for bool {
    #[inline(always)]
    fn to_num(self) -> Num {
        Num::Bool(self)
    }

    #[inline(always)]
    fn from_num(n: Num, mode: ErrorMode) -> Result<Self, Fail> {
        let n = real(n, mode)?;
        let (zero, one) = match n {
            Num::Bool(b) => return Ok(b),
            Num::Int(v) => (v == 0, v == 1),
            Num::UInt(v) => (v == 0, v == 1),
            Num::Float(x) | Num::Complex(x, _) => (x == 0.0, x == 1.0),
        };
        if mode == ErrorMode::NoCheck || zero || one {
            Ok(!zero)
        } else {
            Err(Fail::Overflow)
        }
    }
}

/// Checks a float conversion: finite values must stay finite (overflow),
/// and in inexact mode must convert back to the same value.
#[inline(always)]
fn check_float(x: f64, back: f64, mode: ErrorMode) -> Result<(), Fail> {
    if mode == ErrorMode::NoCheck {
        return Ok(());
    }
    if x.is_finite() && back.is_infinite() {
        return Err(Fail::Overflow);
    }
    if mode == ErrorMode::Inexact && back != x && !(x.is_nan() && back.is_nan()) {
        return Err(Fail::Inexact);
    }
    Ok(())
}

/// An integer as f64, and whether that is exact.
#[inline(always)]
fn int_to_f64(n: Num) -> (f64, bool) {
    match n {
        Num::Int(v) => {
            let x = v as f64;
            (x, x as i128 == v && x < 2f64.powi(127))
        }
        Num::UInt(v) => {
            let x = v as f64;
            (x, x as u128 == v && x < 2f64.powi(128))
        }
        Num::Bool(b) => (f64::from(u8::from(b)), true),
        Num::Float(x) | Num::Complex(x, _) => (x, true),
    }
}

macro_rules! convert_float {
    ($t:ty, $to_f64:expr, $from_f64:expr) => {
        impl Convert for $t {
            #[inline(always)]
            fn to_num(self) -> Num {
                #[allow(clippy::redundant_closure_call)]
                Num::Float(($to_f64)(self))
            }

            #[inline(always)]
            #[allow(clippy::redundant_closure_call)]
            fn from_num(n: Num, mode: ErrorMode) -> Result<Self, Fail> {
                let n = real(n, mode)?;
                let (x, exact) = int_to_f64(n);
                let y: $t = ($from_f64)(x);
                if mode != ErrorMode::NoCheck {
                    let back = ($to_f64)(y);
                    check_float(x, back, mode)?;
                    if mode == ErrorMode::Inexact && !exact {
                        return Err(Fail::Inexact);
                    }
                }
                Ok(y)
            }
        }
    };
}

convert_float!(f64, |x: f64| x, |x: f64| x);
convert_float!(f32, |x: f32| f64::from(x), |x: f64| x as f32);
convert_float!(F16, |x: F16| x.to_f64(), F16::from_f64);

macro_rules! convert_complex {
    ($t:ty, $f:ty) => {
        impl Convert for Complex<$t> {
            #[inline(always)]
            fn to_num(self) -> Num {
                Num::Complex(f64::from(self.re), f64::from(self.im))
            }

            #[inline(always)]
            fn from_num(n: Num, mode: ErrorMode) -> Result<Self, Fail> {
                let (re, im) = match n {
                    Num::Complex(re, im) => (Num::Float(re), Num::Float(im)),
                    n => (n, Num::Float(0.0)),
                };
                Ok(Complex::new(
                    <$f>::from_num(re, mode)?,
                    <$f>::from_num(im, mode)?,
                ))
            }
        }
    };
}

convert_complex!(f32, f32);
convert_complex!(f64, f64);

/// Whether every value of `src` converts to `dst` exactly, so that no
/// check can fail and the unchecked loop may run in any mode.
pub fn is_lossless(src: Scalar, dst: Scalar) -> bool {
    use ScalarCategory as C;
    if src == dst {
        return true;
    }
    let mantissa = |s: Scalar| match s {
        Scalar::Float16 => 11,
        Scalar::Float32 | Scalar::Complex64 => 24,
        _ => 53,
    };
    match (src.category(), dst.category()) {
        (C::Bool, C::UnsignedInt | C::SignedInt | C::Float | C::Complex) => true,
        (C::UnsignedInt | C::SignedInt, C::UnsignedInt | C::SignedInt) => can_cast_safely(src, dst),
        (C::UnsignedInt | C::SignedInt, C::Float | C::Complex) => {
            let bits = src.size() as u32 * 8 - u32::from(src.category() == C::SignedInt);
            bits <= mantissa(dst)
        }
        (C::Float, C::Float | C::Complex) | (C::Complex, C::Complex) => {
            mantissa(src) <= mantissa(dst)
        }
        _ => false,
    }
}

/// The strings that mean NA when parsed into an option type.
pub fn is_na_text(text: &[u8]) -> bool {
    matches!(text, b"NA" | b"null" | b"")
}

/// The kernel error for a value that failed to convert from `src` to
/// `dst` under `mode` (`value` is its text).
pub fn fail_error(
    fail: Fail,
    value: String,
    src: Scalar,
    dst: Scalar,
    mode: ErrorMode,
) -> KernelError {
    let (src, dst) = (Type::from(src), Type::from(dst));
    KernelError::new(match fail {
        Fail::Overflow => KernelErrorKind::Overflow { value, src, dst },
        Fail::Fractional => KernelErrorKind::Fractional {
            value,
            src,
            dst,
            mode: mode.name(),
        },
        Fail::Inexact => KernelErrorKind::Inexact { value, src, dst },
    })
}
