//! The builtin callables: elementwise ones, and core-dimension ones
//! (generalised ufuncs) that consume trailing dimensions.
//!
//! | name | signatures | notes |
//! |---|---|---|
//! | `add`, `subtract`, `multiply` | `(T, T) -> T` for every integer (`int8`…`int128`, `uint8`…`uint128`), float (`float16`, `float32`, `float64`) and complex `T` | integers wrap on overflow (two's complement), as NumPy's do; `float16` is computed in `float64` and rounded once |
//! | `divide` | `(T, T) -> T` for floats and complex; `(I, I) -> float64` for integers | true division; division by zero gives ±inf or NaN (IEEE); complex by Smith's method |
//! | `floor_divide` | `(T, T) -> T` | integers: floor division, division by zero gives 0 and `MIN // -1` wraps to `MIN` (NumPy's results, without its warning); floats: `floor(a / b)` |
//! | `maximum`, `minimum` | `(T, T) -> T` | floats: NaN propagates |
//! | `remainder` | `(T, T) -> T` | the remainder of `floor_divide`, with the divisor's sign (NumPy's `remainder`); integers: `x % 0 == 0` and `MIN % -1 == 0` |
//! | `power` | `(T, T) -> T` | integers wrap on overflow, for any exponent (square and multiply); a negative integer exponent gives the truncated result (`2 ** -1 == 0`, `(-1) ** -3 == -1`, `0 ** -1 == 0`) instead of NumPy's error; floats: `powf`; complex: `exp(b log a)` |
//! | `arctan2` | `(T, T) -> T` for floats | |
//! | `equal`, `not_equal`, `less`, `less_equal`, `greater`, `greater_equal` | `(T, T) -> bool` | complex numbers have `equal` and `not_equal` only (no order) |
//! | `clip` | `(T, lo: ?float64, hi: ?float64) -> T` for floats | keywords default to -inf and +inf; NaN stays NaN |
//! | `logical_and`, `logical_or`, `logical_xor` | `(bool, bool) -> bool` | |
//! | `logical_not` | `(bool) -> bool` | |
//! | `where` | `(bool, T, T) -> T` for bool and every numeric `T` | NumPy's `where(condition, x, y)`: `x` where the condition holds, else `y`, all three broadcast |
//! | `negative`, `abs` | `(T) -> T`; `abs` of complex is real | integers wrap (`abs(int8(-128)) == -128`) |
//! | `sqrt`, `exp`, `log`, `sin`, `cos`, `tan` | `(T) -> T` for floats and complex | integers promote to the cheapest float that holds them (`int8` to `float16`, as in NumPy); complex `sqrt` and `log` are the principal branches |
//! | `dot` | `(N * T, N * T) -> T` for int32, int64, uint64, float32, float64 | the inner product of the last dimensions; leading ones broadcast |
//! | `matmul` | `(M * N * T, N * P * T) -> M * P * T`, same `T`s | stacks of matrices broadcast over their leading dimensions |
//! | `cross` | `(3 * T, 3 * T) -> 3 * T` for int32, int64, float32, float64 | a fixed-size core |
//! | `norm` | `(N * T) -> T` for floats | Euclidean, scaled by the largest magnitude (no overflow for huge components) |
//! | `cast` | `(Any, string, errmode: ?string) -> Any` | the argument converted to the type named by the string (a data type keeps its dimensions); `errmode` is `nocheck`, `overflow`, `fractional` (the default) or `inexact` |
//! | `zeros`, `ones` | `(string) -> Any` | an array of the named type filled with 0 (NA for options) or 1 |
//! | `full` | `(string, Any) -> Any` | an array of the named type filled with the value (checked) |
//! | `sum`, `prod`, `min`, `max` | `(Any, axis: ?Any, keepdims: ?bool, initial: ?Scalar, where: ?Any) -> Any` | reductions over any axes, ragged rows included; see [`crate::reductions`] |
//! | `mean`, `count`, `all`, `any` | `(Any, axis: ?Any, keepdims: ?bool, where: ?Any) -> Any` | `count` from the shape, row lengths or mask; `mean` is float64 for integers |
//! | `var`, `std` | `(Any, axis: ?Any, keepdims: ?bool, ddof: ?int64) -> Any` | two-pass, divided by `n - ddof` |
//! | `kahan_sum` | `(Any, axis: ?Any, keepdims: ?bool) -> Any` | compensated float64 sum (a stateful reduction) |
//! | `cumsum`, `cumprod` | `(Any, axis: ?int64) -> Any` | scans along one axis or each ragged row |
//! | `is_na` | `(Any) -> Any` | `bool`: true where an option array holds NA (false everywhere for other types) |
//! | `fill_na` | `(Any, Any) -> Any` | NA replaced by the value (broadcast); the result is no longer an option |
//! | `null_count` | `(Any, axis: ?Any, keepdims: ?bool) -> Any` | the number of NA elements over the axes |
//! | `range` | `(Scalar, ..., dtype: ?string) -> Any` | `range(stop)`, `range(start, stop)`, `range(start, stop, step)`, as Python's; int64 unless a float is given or `dtype` names a type |
//! | `reshape` | `(Any, Any) -> Any` | a view where the strides allow, else a copy; one `-1` takes the rest |
//! | `sorted` | `(Any, axis: ?int64, reverse: ?bool) -> Any` | a sorted copy (stable, NaN last; each ragged row along a `var` axis) |
//! | `take` | `(Any, Any, axis: ?int64, mode: ?string) -> Any` | elements at the indexes along an axis (flattened without one); `mode` is `raise`, `wrap` or `clip` |
//! | `index` | `(Any, ...) -> Any` | `x[i, j, ...]` with integers and slice strings such as `"1:3"` or `"::-1"`; a view |
//! | `split` | `(Any, sep: string) -> Any` | each string split at `sep`: a ragged array of views of its characters |
//! | `string_length` | `(Any) -> Any` | the length of each string in characters (Unicode scalar values), as int64 |
//!
//! `add` (identity 0), `multiply` (1), `maximum`, `minimum` (no identity),
//! `logical_and` (`true`), `logical_or` and `logical_xor` (`false`) are
//! declared [associative](Callable::associative): each has a reduction,
//! [`get`] as `NAME.reduce` (`add.reduce`), and a scan, as
//! `NAME.accumulate` (`maximum.accumulate`, a running maximum); see
//! [`crate::fold`].
//!
//! ```
//! use dynd::func::builtins;
//! use dynd::nd::array;
//!
//! let less = builtins::get("less").unwrap();
//! assert_eq!(less.call(&[&array![1, 5, 3], &array![2]])?.to_string(), "[true, false, false]");
//! let sqrt = builtins::get("sqrt").unwrap();
//! assert_eq!(sqrt.call(&[&array![4.0, 9.0]])?.to_string(), "[2, 3]");
//! let matmul = builtins::get("matmul").unwrap();
//! let r = matmul.call(&[&array![[1, 2], [3, 4]], &array![[0, 1], [1, 0]]])?;
//! assert_eq!(r.to_string(), "[[2, 1], [4, 3]]");
//! # Ok::<(), dynd::Error>(())
//! ```

use dynd_macros::checked_signature;
use std::collections::BTreeMap;
use std::sync::OnceLock;

use dynd_kernels::elwise::{CoreLeaf, CoreSlice, CoreSliceMut, F64Op, Leaf};
use dynd_kernels::ArrayOps;
use dynd_kernels::{Complex, Element, Value, F16};

use dynd_kernels::Array;
use dynd_types::Scalar;

use crate::callable::{Callable, Keyword, Kwargs, Overload};
use crate::error::Error;
use dynd_kernels::ErrorMode;
use dynd_types::Type;

/// Arithmetic on one numeric element type, with NumPy's integer semantics:
/// `add`, `mul`, `min` and `max` are the reductions' (wrapping integers,
/// NaN-propagating floats, `float16` through `f64`), the rest is here.
trait Arith: dynd_kernels::reduce::Arith + PartialOrd {
    fn sub(self, o: Self) -> Self;
    fn floor_div(self, o: Self) -> Self;
    fn rem(self, o: Self) -> Self;
    fn neg(self) -> Self;
    fn abs(self) -> Self;
}

macro_rules! arith_int {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)] fn sub(self, o: Self) -> Self { self.wrapping_sub(o) }
            #[inline(always)] fn floor_div(self, o: Self) -> Self {
                // NumPy's results without its warnings: x // 0 == 0, and
                // MIN // -1 wraps to MIN; never a panic.
                if o == 0 { return 0; }
                let q = self.wrapping_div(o);
                #[allow(unused_comparisons)]
                let adjust = (self.wrapping_rem(o) != 0) && ((self < 0) != (o < 0));
                if adjust { q.wrapping_sub(1) } else { q }
            }
            #[inline(always)] fn rem(self, o: Self) -> Self {
                // The remainder of floor division (the sign of the divisor):
                // x % 0 == 0 and MIN % -1 == 0, as NumPy gives.
                if o == 0 { return 0; }
                let r = self.wrapping_rem(o);
                #[allow(unused_comparisons)]
                let adjust = r != 0 && ((r < 0) != (o < 0));
                if adjust { r.wrapping_add(o) } else { r }
            }
            #[inline(always)] fn neg(self) -> Self { self.wrapping_neg() }
            #[inline(always)] fn abs(self) -> Self {
                #[allow(unused_comparisons)]
                if self < 0 { self.wrapping_neg() } else { self }
            }
        }
    )*};
}
arith_int!(i8, i16, i32, i64, i128, u8, u16, u32, u64, u128);

/// Integer powers, wrapping on overflow (NumPy's integer `power` wraps
/// too); a negative exponent gives the result truncated toward zero
/// (`1` and `-1` to any power stay `±1`, anything else is 0, and `0` to a
/// negative power is 0, as `x // 0` is) rather than NumPy's error.
trait IntPow: Arith {
    fn ipow(self, e: Self) -> Self;
}

macro_rules! int_pow {
    ($($t:ty),*) => {$(
        impl IntPow for $t {
            #[inline]
            fn ipow(self, e: Self) -> Self {
                #[allow(unused_comparisons)]
                if e < 0 {
                    #[allow(unused_comparisons)]
                    return match self {
                        1 => 1,
                        x if x < 0 && x.wrapping_add(1) == 0 => {
                            if e.wrapping_rem(2) == 0 { 1 } else { self }
                        }
                        _ => 0,
                    };
                }
                // Square and multiply over the exponent's bits: at most
                // 128 steps for any exponent.
                let (mut base, mut e, mut acc): (Self, Self, Self) = (self, e, 1);
                while e != 0 {
                    if e & 1 == 1 {
                        acc = acc.wrapping_mul(base);
                    }
                    base = base.wrapping_mul(base);
                    e >>= 1;
                }
                acc
            }
        }
    )*};
}
int_pow!(i8, i16, i32, i64, i128, u8, u16, u32, u64, u128);

fn int_pow<T: IntPow>(a: T, e: T) -> T {
    a.ipow(e)
}

fn remainder<T: Arith>(a: T, b: T) -> T {
    a.rem(b)
}

macro_rules! arith_float {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)] fn sub(self, o: Self) -> Self { self - o }
            #[inline(always)] fn floor_div(self, o: Self) -> Self { (self / o).floor() }
            #[inline(always)] fn rem(self, o: Self) -> Self {
                let r = self % o;
                if r != 0.0 && ((r < 0.0) != (o < 0.0)) { r + o } else { r }
            }
            #[inline(always)] fn neg(self) -> Self { -self }
            #[inline(always)] fn abs(self) -> Self { <$t>::abs(self) }
        }
    )*};
}
arith_float!(f32, f64);

/// `float16` arithmetic: computed in `f64` and rounded once to half (exact
/// for `+ - *`, and correctly rounded for `/` and `sqrt`, since `f64` has
/// more than twice half's precision).
impl Arith for F16 {
    #[inline(always)]
    fn sub(self, o: Self) -> Self {
        F16::from_f64(self.to_f64() - o.to_f64())
    }
    #[inline(always)]
    fn floor_div(self, o: Self) -> Self {
        F16::from_f64((self.to_f64() / o.to_f64()).floor())
    }
    #[inline(always)]
    fn rem(self, o: Self) -> Self {
        F16::from_f64(self.to_f64().rem(o.to_f64()))
    }
    #[inline(always)]
    fn neg(self) -> Self {
        F16(self.0 ^ 0x8000)
    }
    #[inline(always)]
    fn abs(self) -> Self {
        F16(self.0 & 0x7fff)
    }
}

/// Float math.
trait FloatMath: Arith {
    fn sqrt(self) -> Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn tan(self) -> Self;
    fn pow(self, o: Self) -> Self;
    fn atan2(self, o: Self) -> Self;
    fn div(self, o: Self) -> Self;
}

macro_rules! float_math {
    ($($t:ty),*) => {$(
        impl FloatMath for $t {
            #[inline(always)] fn sqrt(self) -> Self { <$t>::sqrt(self) }
            #[inline(always)] fn exp(self) -> Self { <$t>::exp(self) }
            #[inline(always)] fn ln(self) -> Self { <$t>::ln(self) }
            #[inline(always)] fn sin(self) -> Self { <$t>::sin(self) }
            #[inline(always)] fn cos(self) -> Self { <$t>::cos(self) }
            #[inline(always)] fn tan(self) -> Self { <$t>::tan(self) }
            #[inline(always)] fn pow(self, o: Self) -> Self { <$t>::powf(self, o) }
            #[inline(always)] fn atan2(self, o: Self) -> Self { <$t>::atan2(self, o) }
            #[inline(always)] fn div(self, o: Self) -> Self { self / o }
        }
    )*};
}
float_math!(f32, f64);

impl FloatMath for F16 {
    fn sqrt(self) -> Self {
        F16::from_f64(self.to_f64().sqrt())
    }
    fn exp(self) -> Self {
        F16::from_f64(self.to_f64().exp())
    }
    fn ln(self) -> Self {
        F16::from_f64(self.to_f64().ln())
    }
    fn sin(self) -> Self {
        F16::from_f64(self.to_f64().sin())
    }
    fn cos(self) -> Self {
        F16::from_f64(self.to_f64().cos())
    }
    fn tan(self) -> Self {
        F16::from_f64(self.to_f64().tan())
    }
    fn pow(self, o: Self) -> Self {
        F16::from_f64(self.to_f64().powf(o.to_f64()))
    }
    fn atan2(self, o: Self) -> Self {
        F16::from_f64(self.to_f64().atan2(o.to_f64()))
    }
    fn div(self, o: Self) -> Self {
        F16::from_f64(self.to_f64() / o.to_f64())
    }
}

/// The real parts of complex numbers: the float operations complex math
/// needs.
trait Real:
    Copy
    + PartialEq
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    const ZERO: Self;
    const ONE: Self;
    const NAN: Self;
    /// Past this `|x|`, `tanh(x)` is ±1 to the last bit, and `sinh(x)²`
    /// may overflow: `ctanh` takes its asymptotic form.
    const TANH_BIG: Self;
    fn abs(self) -> Self;
    fn hypot(self, o: Self) -> Self;
    fn sqrt(self) -> Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn sin(self) -> Self;
    fn cos(self) -> Self;
    fn sinh(self) -> Self;
    fn cosh(self) -> Self;
    fn atan2(self, o: Self) -> Self;
    fn copysign(self, sign: Self) -> Self;
    fn half(self) -> Self;
    fn tan(self) -> Self;
    fn is_finite(self) -> bool;
    fn is_nan(self) -> bool;
}

macro_rules! real {
    ($($t:ty),*) => {$(
        impl Real for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const NAN: Self = <$t>::NAN;
            const TANH_BIG: Self = if <$t>::MANTISSA_DIGITS > 24 { 22.0 } else { 9.0 };
            fn abs(self) -> Self { <$t>::abs(self) }
            fn tan(self) -> Self { <$t>::tan(self) }
            fn is_finite(self) -> bool { <$t>::is_finite(self) }
            fn is_nan(self) -> bool { <$t>::is_nan(self) }
            fn hypot(self, o: Self) -> Self { <$t>::hypot(self, o) }
            fn sqrt(self) -> Self { <$t>::sqrt(self) }
            fn exp(self) -> Self { <$t>::exp(self) }
            fn ln(self) -> Self { <$t>::ln(self) }
            fn sin(self) -> Self { <$t>::sin(self) }
            fn cos(self) -> Self { <$t>::cos(self) }
            fn sinh(self) -> Self { <$t>::sinh(self) }
            fn cosh(self) -> Self { <$t>::cosh(self) }
            fn atan2(self, o: Self) -> Self { <$t>::atan2(self, o) }
            fn copysign(self, sign: Self) -> Self { <$t>::copysign(self, sign) }
            fn half(self) -> Self { self * 0.5 }
        }
    )*};
}
real!(f32, f64);

fn c_add<T: Real>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    Complex::new(a.re + b.re, a.im + b.im)
}
fn c_sub<T: Real>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    Complex::new(a.re - b.re, a.im - b.im)
}
fn c_mul<T: Real>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    Complex::new(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
}
/// Smith's division: scales by the larger part of the divisor, so that
/// neither overflows where the quotient fits.
fn c_div<T: Real + PartialOrd>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    if b.re.abs() >= b.im.abs() {
        if b.re == T::ZERO && b.im == T::ZERO {
            return Complex::new(a.re / b.re, a.im / b.re);
        }
        let r = b.im / b.re;
        let den = b.re + b.im * r;
        Complex::new((a.re + a.im * r) / den, (a.im - a.re * r) / den)
    } else {
        let r = b.re / b.im;
        let den = b.re * r + b.im;
        Complex::new((a.re * r + a.im) / den, (a.im * r - a.re) / den)
    }
}
fn c_neg<T: Real>(a: Complex<T>) -> Complex<T> {
    Complex::new(-a.re, -a.im)
}
fn c_abs<T: Real>(a: Complex<T>) -> T {
    a.re.hypot(a.im)
}
fn c_eq<T: Real>(a: Complex<T>, b: Complex<T>) -> bool {
    a == b
}
fn c_ne<T: Real>(a: Complex<T>, b: Complex<T>) -> bool {
    a != b
}
/// The principal square root (the branch cut along the negative reals;
/// the sign of a zero imaginary part picks the side).
fn c_sqrt<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
    if a.re == T::ZERO && a.im == T::ZERO {
        return Complex::new(T::ZERO, a.im);
    }
    let t = ((a.re.abs() + a.re.hypot(a.im)).half()).sqrt();
    if a.re >= T::ZERO {
        Complex::new(t, (a.im / t).half())
    } else {
        Complex::new((a.im.abs() / t).half(), t.copysign(a.im))
    }
}
/// `m * (cos y, sin y)` for `m = e^x`, finite wherever the result is:
/// where `e^x` alone overflows, it is applied as `e^(x/2)` twice.
fn scaled_cis<T: Real>(x: T, y: T, factor: T) -> Complex<T> {
    let m = x.exp();
    if m.is_finite() || !x.is_finite() {
        return Complex::new(m * factor * y.cos(), m * factor * y.sin());
    }
    let h = x.half().exp();
    Complex::new(h * factor * y.cos() * h, h * factor * y.sin() * h)
}

/// `e^z`, with C99 Annex G's special values (NumPy's): `exp(1000 + 0i)`
/// is `inf + 0i`, not `inf + NaN i`.
fn c_exp<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
    let (x, y) = (a.re, a.im);
    if y == T::ZERO {
        // A real argument: the imaginary part keeps its (signed) zero.
        return Complex::new(x.exp(), y);
    }
    if !x.is_nan() && !x.is_finite() {
        if y.is_finite() {
            return scaled_cis(x, y, T::ONE);
        }
        // e^(±inf + i inf or NaN): ±inf + NaN i, or 0 + 0i.
        return if x > T::ZERO {
            Complex::new(x, T::NAN)
        } else {
            Complex::new(T::ZERO, T::ZERO)
        };
    }
    scaled_cis(x, y, T::ONE)
}

/// `sinh(z)` (Annex G): `sinh x cos y + i cosh x sin y`, each part
/// finite wherever it is, with the zeros and infinities of the real axis.
fn c_sinh<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
    let (x, y) = (a.re, a.im);
    if y == T::ZERO {
        return Complex::new(x.sinh(), y);
    }
    if x == T::ZERO {
        // sinh(±0 + iy) = ±0 + i sin y (NaN for an infinite y).
        return Complex::new(x, y.sin());
    }
    if x.is_finite() && !x.cosh().is_finite() {
        // |x| large: sinh x and cosh x are e^|x| / 2, applied in halves.
        let sign = T::ONE.copysign(x);
        let c = scaled_cis(x.abs(), y, T::ONE.half());
        return Complex::new(sign * c.re, c.im);
    }
    Complex::new(x.sinh() * y.cos(), x.cosh() * y.sin())
}

/// `cosh(z)` (Annex G): `cosh x cos y + i sinh x sin y`.
fn c_cosh<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
    let (x, y) = (a.re, a.im);
    if y == T::ZERO {
        let im = if x.is_nan() {
            y
        } else {
            y * T::ONE.copysign(x)
        };
        return Complex::new(x.cosh(), im);
    }
    if x == T::ZERO {
        // cosh(±0 + iy) = cos y ± 0 i (NaN ± 0 i for an infinite y).
        let im = if y.is_finite() { x * y.sin() } else { x };
        return Complex::new(y.cos(), im);
    }
    if x.is_finite() && !x.cosh().is_finite() {
        let sign = T::ONE.copysign(x);
        let c = scaled_cis(x.abs(), y, T::ONE.half());
        return Complex::new(c.re, sign * c.im);
    }
    Complex::new(x.cosh() * y.cos(), x.sinh() * y.sin())
}

/// `tanh(z)` by Kahan's formula (as FreeBSD's `ctanh`), with its
/// asymptote `±1 + i 4 sin y cos y e^(-2|x|)` for large `|x|`, where the
/// formula's `sinh(x)²` would overflow.
fn c_tanh<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
    let (x, y) = (a.re, a.im);
    if x.is_nan() {
        return Complex::new(x, if y == T::ZERO { y } else { x });
    }
    if !x.is_finite() {
        // tanh(±inf + iy) = ±1 ± 0i.
        let s = if y.is_finite() { (y + y).sin() } else { T::ONE };
        return Complex::new(T::ONE.copysign(x), T::ZERO.copysign(s));
    }
    if !y.is_finite() {
        return Complex::new(if x == T::ZERO { x } else { T::NAN }, T::NAN);
    }
    if x.abs() >= T::TANH_BIG {
        let e = (-x.abs()).exp();
        let four = T::ONE + T::ONE + T::ONE + T::ONE;
        return Complex::new(T::ONE.copysign(x), four * y.sin() * y.cos() * e * e);
    }
    let t = y.tan();
    let beta = T::ONE + t * t;
    let s = x.sinh();
    let rho = (T::ONE + s * s).sqrt();
    let denom = T::ONE + beta * s * s;
    Complex::new(beta * rho * s / denom, t / denom)
}

/// `i z` and `-i z`.
fn times_i<T: Real>(a: Complex<T>) -> Complex<T> {
    Complex::new(-a.im, a.re)
}
fn times_minus_i<T: Real>(a: Complex<T>) -> Complex<T> {
    Complex::new(a.im, -a.re)
}

/// The principal logarithm.
fn c_log<T: Real>(a: Complex<T>) -> Complex<T> {
    Complex::new(a.re.hypot(a.im).ln(), a.im.atan2(a.re))
}
/// `sin z = -i sinh(iz)`: `sin(1000i)` is `0 + inf i`.
fn c_sin<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
    times_minus_i(c_sinh(times_i(a)))
}
/// `cos z = cosh(iz)`.
fn c_cos<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
    c_cosh(times_i(a))
}
/// `tan z = -i tanh(iz)`: `tan(1000i)` is `i`.
fn c_tan<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
    times_minus_i(c_tanh(times_i(a)))
}
/// `a ** b` as `exp(b log a)`; `0 ** b` is 1 for `b == 0`, 0 for `b` with a
/// positive real part, NaN otherwise.
fn c_pow<T: Real + PartialOrd>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    if a.re == T::ZERO && a.im == T::ZERO {
        return if b.re == T::ZERO && b.im == T::ZERO {
            Complex::new(T::ONE, T::ZERO)
        } else if b.re > T::ZERO {
            Complex::new(T::ZERO, T::ZERO)
        } else {
            Complex::new(T::NAN, T::NAN)
        };
    }
    c_exp(c_mul(b, c_log(a)))
}

/// Integers as f64, for true division.
trait ToF64: Arith {
    fn to_f64(self) -> f64;
}

macro_rules! to_f64 {
    ($($t:ty),*) => {$( impl ToF64 for $t { #[inline(always)] fn to_f64(self) -> f64 { self as f64 } } )*};
}
to_f64!(i8, i16, i32, i64, i128, u8, u16, u32, u64, u128);

fn add<T: Arith>(a: T, b: T) -> T {
    a.add(b)
}
fn sub<T: Arith>(a: T, b: T) -> T {
    a.sub(b)
}
fn mul<T: Arith>(a: T, b: T) -> T {
    a.mul(b)
}
fn floor_div<T: Arith>(a: T, b: T) -> T {
    a.floor_div(b)
}
fn maximum<T: Arith>(a: T, b: T) -> T {
    a.max(b)
}
fn minimum<T: Arith>(a: T, b: T) -> T {
    a.min(b)
}
fn negative<T: Arith>(a: T) -> T {
    a.neg()
}
fn abs<T: Arith>(a: T) -> T {
    a.abs()
}
fn eq<T: Arith>(a: T, b: T) -> bool {
    a == b
}
fn ne<T: Arith>(a: T, b: T) -> bool {
    a != b
}
fn lt<T: Arith>(a: T, b: T) -> bool {
    a < b
}
fn le<T: Arith>(a: T, b: T) -> bool {
    a <= b
}
fn gt<T: Arith>(a: T, b: T) -> bool {
    a > b
}
fn ge<T: Arith>(a: T, b: T) -> bool {
    a >= b
}
fn div<T: FloatMath>(a: T, b: T) -> T {
    a.div(b)
}
fn int_div<T: ToF64>(a: T, b: T) -> f64 {
    a.to_f64() / b.to_f64()
}
fn pow<T: FloatMath>(a: T, b: T) -> T {
    a.pow(b)
}
fn atan2<T: FloatMath>(a: T, b: T) -> T {
    a.atan2(b)
}
fn sqrt<T: FloatMath>(a: T) -> T {
    a.sqrt()
}
fn exp<T: FloatMath>(a: T) -> T {
    a.exp()
}
fn log<T: FloatMath>(a: T) -> T {
    a.ln()
}
fn sin<T: FloatMath>(a: T) -> T {
    a.sin()
}
fn cos<T: FloatMath>(a: T) -> T {
    a.cos()
}
fn tan<T: FloatMath>(a: T) -> T {
    a.tan()
}

/// Overloads of a binary function for each listed type.
macro_rules! over2 {
    ($f:ident, [$($t:ty),*]) => { vec![$(Overload::new(Leaf::map2($f::<$t>))),*] };
}

/// Overloads of a unary function for each listed type.
macro_rules! over1 {
    ($f:ident, [$($t:ty),*]) => { vec![$(Overload::new(Leaf::map1($f::<$t>))),*] };
}

macro_rules! numeric {
    ($m:ident, $f:ident) => {
        $m!(
            $f,
            [i8, i16, i32, i64, i128, u8, u16, u32, u64, u128, F16, f32, f64]
        )
    };
}

/// Overloads for both complex types.
macro_rules! complex {
    (2, $f:ident) => {
        vec![
            Overload::new(Leaf::map2($f::<f32>)),
            Overload::new(Leaf::map2($f::<f64>)),
        ]
    };
    (1, $f:ident) => {
        vec![
            Overload::new(Leaf::map1($f::<f32>)),
            Overload::new(Leaf::map1($f::<f64>)),
        ]
    };
}

/// `base` with `extra` appended.
fn with(mut base: Vec<Overload>, extra: Vec<Overload>) -> Vec<Overload> {
    base.extend(extra);
    base
}

/// `x` limited to `[lo, hi]`; NaN stays NaN.
fn clip(x: f64, lo: f64, hi: f64) -> f64 {
    if x.is_nan() {
        x
    } else {
        x.max(lo).min(hi)
    }
}

/// `sum(a[i] * b[i])`.
fn dot<T: Arith + Default>(a: CoreSlice<'_, T>, b: CoreSlice<'_, T>, mut out: CoreSliceMut<'_, T>) {
    let mut acc = T::default();
    for (x, y) in a.iter().zip(b.iter()) {
        acc = acc.add(x.mul(*y));
    }
    out.as_mut_slice()[0] = acc;
}

/// The matrix product of an `M x N` and an `N x P` core, row by row (the
/// inner loop runs along rows of `b` and of the result).
fn matmul<T: Arith + Default>(
    a: CoreSlice<'_, T>,
    b: CoreSlice<'_, T>,
    mut out: CoreSliceMut<'_, T>,
) {
    let n = a.shape()[1];
    let p = b.shape()[1];
    let out = out.as_mut_slice();
    out.fill(T::default());
    for (a_row, out_row) in a.rows().zip(out.chunks_exact_mut(p.max(1))) {
        for (x, b_row) in a_row.iter().zip(b.rows()).take(n) {
            for (o, y) in out_row.iter_mut().zip(b_row) {
                *o = o.add(x.mul(*y));
            }
        }
    }
}

/// The cross product of two 3-vectors.
fn cross<T: Arith>(a: CoreSlice<'_, T>, b: CoreSlice<'_, T>, mut out: CoreSliceMut<'_, T>) {
    let (a, b) = (a.as_slice(), b.as_slice());
    let out = out.as_mut_slice();
    out[0] = a[1].mul(b[2]).sub(a[2].mul(b[1]));
    out[1] = a[2].mul(b[0]).sub(a[0].mul(b[2]));
    out[2] = a[0].mul(b[1]).sub(a[1].mul(b[0]));
}

/// The Euclidean norm, scaled by the largest magnitude so that it neither
/// overflows nor underflows where the result itself fits.
fn norm<T: FloatMath + Arith + Default + Into<f64> + FromF64>(
    a: CoreSlice<'_, T>,
    mut out: CoreSliceMut<'_, T>,
) {
    let scale = a.iter().fold(0.0f64, |m, x| m.max((*x).into().abs()));
    let r = if scale == 0.0 || !scale.is_finite() {
        // All zero, or an infinity/NaN that the plain sum reports as such.
        // A fold from +0.0: `Iterator::sum` of no terms is -0.0, whose
        // root would make the norm of an empty vector -0.
        a.iter()
            .map(|x| (*x).into() * (*x).into())
            .fold(0.0, |s, v| s + v)
            .sqrt()
    } else {
        scale
            * a.iter()
                .map(|x| ((*x).into() / scale).powi(2))
                .fold(0.0, |s: f64, v| s + v)
                .sqrt()
    };
    out.as_mut_slice()[0] = T::from_f64(r);
}

/// Conversion back from `f64` for the float element types.
trait FromF64 {
    fn from_f64(x: f64) -> Self;
}
impl FromF64 for f32 {
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
}
impl FromF64 for f64 {
    fn from_f64(x: f64) -> f64 {
        x
    }
}

/// Core overloads of `$f` for each listed type, with the signature `$sig`
/// (where `T` stands for the element type).
macro_rules! over_core {
    ($ctor:ident, $f:ident, $sig:expr, [$($t:ty),*]) => {
        vec![$(
            Overload::core(
                CoreLeaf::$ctor(&$sig.replace('T', &<$t as Element>::SCALAR.to_string()), $f::<$t>)
                    .unwrap_or_else(|e| unreachable!("builtin {}: {e}", stringify!($f))),
            )
        ),*]
    };
}

/// A datashape given as a string argument.
fn type_arg(name: &str, i: usize, a: &Array) -> Result<Type, Error> {
    match a.to_value() {
        dynd_kernels::Value::Str(text) => {
            Ok(text.parse::<Type>().map_err(dynd_types::Error::from)?)
        }
        _ => Err(Error::ArgumentValue {
            name: name.into(),
            arg: i,
            expected: "a datashape string",
            value: a.to_string().into(),
            ty: a.ty().clone(),
            note: None,
        }),
    }
}

/// The constructors and the cast: callables over whole arrays whose result
/// type is an argument's value.
fn constructors() -> Vec<(&'static str, Callable)> {
    let build = |name: &'static str,
                 sig: &str,
                 kw: Vec<Keyword>,
                 f: fn(&[&Array], &Kwargs<'_>) -> Result<Array, Error>| {
        let c = Callable::function(name, sig, kw, f)
            .unwrap_or_else(|e| unreachable!("builtin {name}: {e}"));
        (name, c)
    };
    vec![
        build(
            "cast",
            checked_signature!("(Any, string, errmode: ?string) -> Any"),
            vec![Keyword::optional(
                "errmode",
                Scalar::String,
                Array::from_value(&dynd_kernels::Value::Str("fractional".into()), None)
                    .unwrap_or_else(|e| unreachable!("a string array: {e}")),
            )],
            |args, kw| {
                let target = type_arg("cast", 1, args[1])?;
                let mode: ErrorMode = match kw.string("errmode")? {
                    Some(m) => m.parse().map_err(|_| Error::KeywordValue {
                        name: "cast".into(),
                        keyword: "errmode".into(),
                        expected: "an error mode (nocheck, overflow, fractional or inexact)".into(),
                        found: format!("'{m}'"),
                    })?,
                    None => ErrorMode::Fractional,
                };
                // A data type keeps the argument's dimensions.
                let target = if target.is_dim() {
                    target
                } else {
                    let (dims, _) = args[0].ty().split_dims();
                    Type::with_dims(dims.into_iter().cloned(), target)?
                };
                args[0].cast(&target, mode)
            },
        ),
        build(
            "zeros",
            checked_signature!("(string) -> Any"),
            vec![],
            |args, _| Array::zeros(&type_arg("zeros", 0, args[0])?),
        ),
        build(
            "ones",
            checked_signature!("(string) -> Any"),
            vec![],
            |args, _| {
                let mut a = Array::zeros(&type_arg("ones", 0, args[0])?)?;
                a.assign(&Array::from_scalar(1u8), ErrorMode::NoCheck)?;
                Ok(a)
            },
        ),
        build(
            "full",
            checked_signature!("(string, Any) -> Any"),
            vec![],
            |args, _| {
                let mut a = Array::zeros(&type_arg("full", 0, args[0])?)?;
                a.assign(args[1], ErrorMode::Fractional)?;
                Ok(a)
            },
        ),
    ]
}

/// One builtin: its overloads, its identity if it is an associative
/// operation (which gives it `NAME.reduce` and `NAME.accumulate`), and its
/// keywords.
fn entry(
    name: &'static str,
    overloads: Vec<Overload>,
    fold: Fold,
    keywords: Vec<Keyword>,
) -> Result<(&'static str, Callable), Error> {
    let mut c = Callable::new(name, overloads)?;
    if let Fold::Associative(identity) = fold {
        c = c.associative(identity)?;
    }
    if !keywords.is_empty() {
        c = c.with_keywords(keywords)?;
    }
    Ok((name, c))
}

/// Whether a builtin's binary operation may be regrouped.
enum Fold {
    /// Not declared associative.
    No,
    /// Associative, with this identity (or none).
    Associative(Option<Value>),
}

/// The elementwise and core-dimension builtins, one entry each.
fn elementwise() -> Result<Vec<(&'static str, Callable)>, Error> {
    use Fold::{Associative, No};
    let plain = |name, overloads| entry(name, overloads, No, vec![]);
    let int = |n: i128| Associative(Some(Value::Int(n)));
    let boolean = |b: bool| Associative(Some(Value::Bool(b)));
    macro_rules! select {
        ($($t:ty),*) => {
            vec![$(Overload::new(Leaf::map3(|m: bool, x: $t, y: $t| if m { x } else { y }))),*]
        };
    }
    // The float64 arithmetic as marked plain operations: the same
    // functions, which fused evaluation runs in one loop per expression.
    let f64_op = |overloads: Vec<Overload>, op: F64Op| -> Vec<Overload> {
        overloads
            .into_iter()
            .map(|o| {
                let float64 = o.inputs().len() == op.arity()
                    && o.inputs().iter().all(|s| *s == Scalar::Float64)
                    && o.output() == Scalar::Float64
                    && o.options().iter().all(|opt| !opt);
                if float64 {
                    Overload::new(Leaf::f64_op(op))
                } else {
                    o
                }
            })
            .collect()
    };
    let mut divide = f64_op(over2!(div, [F16, f32, f64]), F64Op::Div);
    divide.extend(over2!(
        int_div,
        [i8, i16, i32, i64, i128, u8, u16, u32, u64, u128]
    ));
    divide.extend(complex!(2, c_div));
    let floats_and_complex =
        |name, real: Vec<Overload>, complex: Vec<Overload>| plain(name, with(real, complex));
    Ok(vec![
        entry(
            "add",
            with(f64_op(numeric!(over2, add), F64Op::Add), complex!(2, c_add)),
            int(0),
            vec![],
        )?,
        plain(
            "subtract",
            with(f64_op(numeric!(over2, sub), F64Op::Sub), complex!(2, c_sub)),
        )?,
        entry(
            "multiply",
            with(f64_op(numeric!(over2, mul), F64Op::Mul), complex!(2, c_mul)),
            int(1),
            vec![],
        )?,
        plain("floor_divide", numeric!(over2, floor_div))?,
        plain("remainder", numeric!(over2, remainder))?,
        entry(
            "maximum",
            numeric!(over2, maximum),
            Associative(None),
            vec![],
        )?,
        entry(
            "minimum",
            numeric!(over2, minimum),
            Associative(None),
            vec![],
        )?,
        plain(
            "negative",
            with(
                f64_op(numeric!(over1, negative), F64Op::Neg),
                complex!(1, c_neg),
            ),
        )?,
        plain(
            "abs",
            with(f64_op(numeric!(over1, abs), F64Op::Abs), complex!(1, c_abs)),
        )?,
        plain("equal", with(numeric!(over2, eq), complex!(2, c_eq)))?,
        plain("not_equal", with(numeric!(over2, ne), complex!(2, c_ne)))?,
        plain("less", numeric!(over2, lt))?,
        plain("less_equal", numeric!(over2, le))?,
        plain("greater", numeric!(over2, gt))?,
        plain("greater_equal", numeric!(over2, ge))?,
        plain("divide", divide)?,
        plain(
            "power",
            with(
                with(
                    over2!(int_pow, [i8, i16, i32, i64, i128, u8, u16, u32, u64, u128]),
                    over2!(pow, [F16, f32, f64]),
                ),
                complex!(2, c_pow),
            ),
        )?,
        plain("arctan2", over2!(atan2, [F16, f32, f64]))?,
        floats_and_complex(
            "sqrt",
            f64_op(over1!(sqrt, [F16, f32, f64]), F64Op::Sqrt),
            complex!(1, c_sqrt),
        )?,
        floats_and_complex("exp", over1!(exp, [F16, f32, f64]), complex!(1, c_exp))?,
        floats_and_complex("log", over1!(log, [F16, f32, f64]), complex!(1, c_log))?,
        floats_and_complex("sin", over1!(sin, [F16, f32, f64]), complex!(1, c_sin))?,
        floats_and_complex("cos", over1!(cos, [F16, f32, f64]), complex!(1, c_cos))?,
        floats_and_complex("tan", over1!(tan, [F16, f32, f64]), complex!(1, c_tan))?,
        entry(
            "clip",
            vec![
                Overload::new(Leaf::map3(|x: f32, lo: f64, hi: f64| {
                    clip(f64::from(x), lo, hi) as f32
                })),
                Overload::new(Leaf::map3(clip)),
            ],
            No,
            vec![
                Keyword::optional("lo", Scalar::Float64, Array::from_scalar(f64::NEG_INFINITY)),
                Keyword::optional("hi", Scalar::Float64, Array::from_scalar(f64::INFINITY)),
            ],
        )?,
        entry(
            "logical_and",
            vec![Overload::new(Leaf::map2(|a: bool, b: bool| a && b))],
            boolean(true),
            vec![],
        )?,
        entry(
            "logical_or",
            vec![Overload::new(Leaf::map2(|a: bool, b: bool| a || b))],
            boolean(false),
            vec![],
        )?,
        entry(
            "logical_xor",
            vec![Overload::new(Leaf::map2(|a: bool, b: bool| a != b))],
            boolean(false),
            vec![],
        )?,
        plain("logical_not", vec![Overload::new(Leaf::map1(|a: bool| !a))])?,
        plain(
            "where",
            select!(
                bool,
                i8,
                i16,
                i32,
                i64,
                i128,
                u8,
                u16,
                u32,
                u64,
                u128,
                F16,
                f32,
                f64,
                Complex<f32>,
                Complex<f64>
            ),
        )?,
        plain(
            "dot",
            over_core!(
                map2,
                dot,
                checked_signature!("(N * T, N * T) -> T"),
                [i32, i64, u64, f32, f64]
            ),
        )?,
        plain(
            "matmul",
            over_core!(
                map2,
                matmul,
                checked_signature!("(M * N * T, N * P * T) -> M * P * T"),
                [i32, i64, u64, f32, f64]
            ),
        )?,
        plain(
            "cross",
            over_core!(
                map2,
                cross,
                checked_signature!("(3 * T, 3 * T) -> 3 * T"),
                [i32, i64, f32, f64]
            ),
        )?,
        plain(
            "norm",
            over_core!(map1, norm, checked_signature!("(N * T) -> T"), [f32, f64]),
        )?,
    ])
}

/// Every builtin by name, from each module's entries; a name given twice,
/// or an entry whose callable has another name, is refused.
fn build() -> Result<BTreeMap<&'static str, Callable>, Error> {
    let mut m = BTreeMap::new();
    let entries = elementwise()?
        .into_iter()
        .chain(constructors())
        .chain(crate::reductions::builtins())
        .chain(crate::arrays::builtins());
    for (name, c) in entries {
        if c.name() != name {
            return Err(Error::BuiltinName {
                entry: name.into(),
                callable: c.name().into(),
            });
        }
        if m.insert(name, c).is_some() {
            return Err(Error::DuplicateBuiltin { name: name.into() });
        }
    }
    Ok(m)
}

/// A builtin that library code calls: a name checked against the registry
/// by the tests (every handle is called there), held in one place rather
/// than spelled at each call.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Handle(&'static str);

impl Handle {
    /// The builtin's callable.
    pub(crate) fn callable(self) -> &'static Callable {
        registry()
            .get(self.0)
            .unwrap_or_else(|| unreachable!("the handle {} names a builtin", self.0))
    }

    /// Calls the builtin.
    pub(crate) fn call(self, args: &[&Array]) -> Result<Array, Error> {
        self.callable().call(args)
    }
}

/// `where(condition, x, y)`.
pub(crate) const WHERE: Handle = Handle("where");
/// `logical_and(a, b)`.
pub(crate) const LOGICAL_AND: Handle = Handle("logical_and");
/// `not_equal(a, b)`.
pub(crate) const NOT_EQUAL: Handle = Handle("not_equal");
/// `greater(a, b)`.
pub(crate) const GREATER: Handle = Handle("greater");
/// `divide(a, b)`.
pub(crate) const DIVIDE: Handle = Handle("divide");

fn registry() -> &'static BTreeMap<&'static str, Callable> {
    static REGISTRY: OnceLock<BTreeMap<&'static str, Callable>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        build().unwrap_or_else(|e| unreachable!("the builtins build (a unit test checks): {e}"))
    })
}

/// The builtin callable called `name`; `NAME.reduce` is the
/// [reduction](Callable::reduce) of an associative builtin, and
/// `NAME.accumulate` its [scan](Callable::accumulate).
///
/// ```
/// use dynd::func::builtins;
///
/// assert_eq!(builtins::get("add")?.name(), "add");
/// let e = builtins::get("mena").unwrap_err();
/// assert_eq!(e.to_string(), "no builtin is called 'mena' (did you mean 'mean'?)");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::UnknownFunction`] with the close names, or the reduction's
/// error for `NAME.reduce` or `NAME.accumulate` of a builtin that is not
/// associative.
pub fn get(name: &str) -> Result<Callable, Error> {
    if let Some(op) = name.strip_suffix(".reduce") {
        if let Some(c) = registry().get(op) {
            return c.reduce();
        }
    }
    if let Some(op) = name.strip_suffix(".accumulate") {
        if let Some(c) = registry().get(op) {
            return c.accumulate();
        }
    }
    registry().get(name).cloned().ok_or_else(|| {
        // Reductions and scans by their `NAME.reduce` and
        // `NAME.accumulate` names too.
        let reductions: Vec<String> = registry()
            .values()
            .filter(|c| c.is_associative())
            .flat_map(|c| {
                [
                    format!("{}.reduce", c.name()),
                    format!("{}.accumulate", c.name()),
                ]
            })
            .collect();
        let names = registry()
            .keys()
            .copied()
            .chain(reductions.iter().map(String::as_str));
        Error::UnknownFunction {
            name: name.to_string(),
            suggestions: dynd_types::similar_names(name, names)
                .into_iter()
                .take(3)
                .map(str::to_string)
                .collect(),
        }
    })
}

/// Every builtin, by name.
pub fn all() -> impl Iterator<Item = &'static Callable> {
    registry().values()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    /// The names in the first column of the module docs' table.
    fn documented() -> BTreeSet<String> {
        include_str!("builtins.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("//! | `"))
            .flat_map(|row| {
                let first = row.split(" | ").next().unwrap_or_default();
                first
                    .split(", ")
                    .map(|n| n.trim_matches('`').to_string())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn the_registry_builds_and_every_handle_names_a_builtin() {
        let m = super::build().unwrap();
        for h in [
            super::WHERE,
            super::LOGICAL_AND,
            super::NOT_EQUAL,
            super::GREATER,
            super::DIVIDE,
        ] {
            assert!(m.contains_key(h.0), "{h:?}");
        }
    }

    #[test]
    fn the_documented_table_lists_every_builtin_and_no_other() {
        let all: BTreeSet<String> = super::all().map(|c| c.name().to_string()).collect();
        let documented = documented();
        let missing: Vec<&String> = all.difference(&documented).collect();
        let extra: Vec<&String> = documented.difference(&all).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "builtins missing from the table: {missing:?}; in the table but not builtins: {extra:?}"
        );
    }
}
