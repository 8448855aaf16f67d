//! The scalar functions under the elementwise builtins: NumPy's integer
//! semantics (wrapping, floor division, integer powers), `float16`
//! through `f64`, and complex arithmetic and transcendentals after C99
//! Annex G.

use dynd_kernels::{Complex, F16};

/// Arithmetic on one numeric element type, with NumPy's integer semantics:
/// `add`, `mul`, `min` and `max` are the reductions' (wrapping integers,
/// NaN-propagating floats, `float16` through `f64`), the rest is here.
pub(super) trait Arith: dynd_kernels::reduce::Arith + PartialOrd {
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
pub(super) trait IntPow: Arith {
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

pub(super) fn int_pow<T: IntPow>(a: T, e: T) -> T {
    a.ipow(e)
}

pub(super) fn remainder<T: Arith>(a: T, b: T) -> T {
    a.rem(b)
}

macro_rules! arith_float {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            #[inline(always)] fn sub(self, o: Self) -> Self { self - o }
            #[inline(always)] fn floor_div(self, o: Self) -> Self { (self / o).floor() }
            #[inline(always)] fn rem(self, o: Self) -> Self {
                // The divisor's sign, a zero remainder included (NumPy's
                // and Python's `-4.0 % 2.0 == 0.0`, `0.0 % -1.0 == -0.0`).
                let r = self % o;
                if r == 0.0 { (0.0 as $t).copysign(o) }
                else if (r < 0.0) != (o < 0.0) { r + o } else { r }
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
pub(super) trait FloatMath: Arith {
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
pub(super) trait Real:
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
    /// Past this magnitude a square may overflow (`1e150` for `f64`,
    /// `1e18` for `f32`): `catanh` takes its asymptotic form.
    const SQUARE_BIG: Self;
    fn abs(self) -> Self;
    /// The value as `f64` (exact).
    fn as_f64(self) -> f64;
    /// `ln(hypot(self, o))`, accurate where the hypotenuse is near 1 (the
    /// real part of a complex logarithm near the unit circle).
    fn ln_hypot(self, o: Self) -> Self;
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
            const SQUARE_BIG: Self = if <$t>::MANTISSA_DIGITS > 24 { 1e150_f64 as $t } else { 1e18 };
            fn abs(self) -> Self { <$t>::abs(self) }
            fn as_f64(self) -> f64 { self as f64 }
            // `f32` in `f64`: its squares and their sum near 1 are exact.
            fn ln_hypot(self, o: Self) -> Self { ln_hypot(self as f64, o as f64) as $t }
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

/// `ln(hypot(x, y))`: where the hypotenuse is near 1, `log1p(x² + y² - 1)
/// / 2` with the squares split exactly (fused multiply-adds) and the sum
/// carried in two parts, so that `log(0.6 + 0.8i)` keeps its real part
/// (`2.2e-17`, not 0); elsewhere the logarithm of `hypot`.
fn ln_hypot(x: f64, y: f64) -> f64 {
    let h = x.hypot(y);
    if !(h > 0.7 && h < 1.42) {
        return h.ln();
    }
    let (p, q) = (x * x, y * y);
    let (pe, qe) = (x.mul_add(x, -p), y.mul_add(y, -q));
    // Knuth's two-sum, twice: p - 1 + q with each rounding error kept.
    let two_sum = |a: f64, b: f64| {
        let s = a + b;
        let bb = s - a;
        (s, (a - (s - bb)) + (b - bb))
    };
    let (s1, t1) = two_sum(p, -1.0);
    let (s2, t2) = two_sum(s1, q);
    (s2 + ((t1 + t2) + (pe + qe))).ln_1p() * 0.5
}

pub(super) fn c_add<T: Real>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    Complex::new(a.re + b.re, a.im + b.im)
}
pub(super) fn c_sub<T: Real>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    Complex::new(a.re - b.re, a.im - b.im)
}
pub(super) fn c_mul<T: Real>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    Complex::new(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re)
}
/// Smith's division: scales by the larger part of the divisor, so that
/// neither overflows where the quotient fits.
pub(super) fn c_div<T: Real + PartialOrd>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
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
pub(super) fn c_neg<T: Real>(a: Complex<T>) -> Complex<T> {
    Complex::new(-a.re, -a.im)
}
pub(super) fn c_abs<T: Real>(a: Complex<T>) -> T {
    a.re.hypot(a.im)
}
pub(super) fn c_eq<T: Real>(a: Complex<T>, b: Complex<T>) -> bool {
    a == b
}
pub(super) fn c_ne<T: Real>(a: Complex<T>, b: Complex<T>) -> bool {
    a != b
}

// NumPy's order of complex numbers: by the real parts, then the
// imaginary ones; a NaN part makes a comparison false (so `maximum` and
// `minimum` propagate it, `fmax` and `fmin` skip it).

fn has_nan<T: Real>(a: Complex<T>) -> bool {
    a.re.is_nan() || a.im.is_nan()
}
pub(super) fn c_lt<T: Real + PartialOrd>(a: Complex<T>, b: Complex<T>) -> bool {
    (a.re < b.re && !a.im.is_nan() && !b.im.is_nan()) || (a.re == b.re && a.im < b.im)
}
pub(super) fn c_le<T: Real + PartialOrd>(a: Complex<T>, b: Complex<T>) -> bool {
    (a.re < b.re && !a.im.is_nan() && !b.im.is_nan()) || (a.re == b.re && a.im <= b.im)
}
pub(super) fn c_gt<T: Real + PartialOrd>(a: Complex<T>, b: Complex<T>) -> bool {
    c_lt(b, a)
}
pub(super) fn c_ge<T: Real + PartialOrd>(a: Complex<T>, b: Complex<T>) -> bool {
    c_le(b, a)
}
pub(super) fn c_maximum<T: Real + PartialOrd>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    if c_ge(a, b) || has_nan(a) {
        a
    } else {
        b
    }
}
pub(super) fn c_minimum<T: Real + PartialOrd>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    if c_le(a, b) || has_nan(a) {
        a
    } else {
        b
    }
}
pub(super) fn c_fmax<T: Real + PartialOrd>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    if c_ge(a, b) || has_nan(b) {
        a
    } else {
        b
    }
}
pub(super) fn c_fmin<T: Real + PartialOrd>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    if c_le(a, b) || has_nan(b) {
        a
    } else {
        b
    }
}
/// The principal square root (the branch cut along the negative reals;
/// the sign of a zero imaginary part picks the side).
pub(super) fn c_sqrt<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
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
pub(super) fn scaled_cis<T: Real>(x: T, y: T, factor: T) -> Complex<T> {
    let m = x.exp();
    if m.is_finite() || !x.is_finite() {
        return Complex::new(m * factor * y.cos(), m * factor * y.sin());
    }
    let h = x.half().exp();
    Complex::new(h * factor * y.cos() * h, h * factor * y.sin() * h)
}

/// `e^z`, with C99 Annex G's special values (NumPy's): `exp(1000 + 0i)`
/// is `inf + 0i`, not `inf + NaN i`.
pub(super) fn c_exp<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
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
pub(super) fn c_sinh<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
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
pub(super) fn c_cosh<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
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
pub(super) fn c_tanh<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
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
pub(super) fn times_i<T: Real>(a: Complex<T>) -> Complex<T> {
    Complex::new(-a.im, a.re)
}
pub(super) fn times_minus_i<T: Real>(a: Complex<T>) -> Complex<T> {
    Complex::new(a.im, -a.re)
}

/// The principal logarithm.
pub(super) fn c_log<T: Real>(a: Complex<T>) -> Complex<T> {
    Complex::new(a.re.ln_hypot(a.im), a.im.atan2(a.re))
}
/// `sin z = -i sinh(iz)`: `sin(1000i)` is `0 + inf i`.
pub(super) fn c_sin<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
    times_minus_i(c_sinh(times_i(a)))
}
/// `cos z = cosh(iz)`.
pub(super) fn c_cos<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
    c_cosh(times_i(a))
}
/// `tan z = -i tanh(iz)`: `tan(1000i)` is `i`.
pub(super) fn c_tan<T: Real + PartialOrd>(a: Complex<T>) -> Complex<T> {
    times_minus_i(c_tanh(times_i(a)))
}
/// `a ** b` as `exp(b log a)`; `0 ** b` is 1 for `b == 0`, 0 for `b` with a
/// positive real part, NaN otherwise. An integer exponent below 100 in
/// magnitude is multiplied out by squaring (as NumPy does), so that
/// `(1+2i)**2` is exactly `-3+4i` and `a**1` is `a`.
pub(super) fn c_pow<T: Real + PartialOrd>(a: Complex<T>, b: Complex<T>) -> Complex<T> {
    let n = b.re.as_f64();
    if b.im == T::ZERO && n == n.trunc() && n.abs() < 100.0 {
        let mut k = n.abs() as u32;
        let (mut acc, mut p) = (None, a);
        loop {
            if k & 1 == 1 {
                acc = Some(acc.map_or(p, |r| c_mul(r, p)));
            }
            k >>= 1;
            if k == 0 {
                break;
            }
            p = c_mul(p, p);
        }
        let one = Complex::new(T::ONE, T::ZERO);
        let r = acc.unwrap_or(one);
        return if n < 0.0 { c_div(one, r) } else { r };
    }
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
pub(super) trait ToF64: Arith {
    fn to_f64(self) -> f64;
}

macro_rules! to_f64 {
    ($($t:ty),*) => {$( impl ToF64 for $t { #[inline(always)] fn to_f64(self) -> f64 { self as f64 } } )*};
}
to_f64!(i8, i16, i32, i64, i128, u8, u16, u32, u64, u128);

pub(super) fn add<T: Arith>(a: T, b: T) -> T {
    a.add(b)
}
pub(super) fn sub<T: Arith>(a: T, b: T) -> T {
    a.sub(b)
}
pub(super) fn mul<T: Arith>(a: T, b: T) -> T {
    a.mul(b)
}
pub(super) fn floor_div<T: Arith>(a: T, b: T) -> T {
    a.floor_div(b)
}
pub(super) fn maximum<T: Arith>(a: T, b: T) -> T {
    a.max(b)
}
pub(super) fn minimum<T: Arith>(a: T, b: T) -> T {
    a.min(b)
}
pub(super) fn negative<T: Arith>(a: T) -> T {
    a.neg()
}
pub(super) fn abs<T: Arith>(a: T) -> T {
    a.abs()
}
pub(super) fn eq<T: Arith>(a: T, b: T) -> bool {
    a == b
}
pub(super) fn ne<T: Arith>(a: T, b: T) -> bool {
    a != b
}
pub(super) fn lt<T: Arith>(a: T, b: T) -> bool {
    a < b
}
pub(super) fn le<T: Arith>(a: T, b: T) -> bool {
    a <= b
}
pub(super) fn gt<T: Arith>(a: T, b: T) -> bool {
    a > b
}
pub(super) fn ge<T: Arith>(a: T, b: T) -> bool {
    a >= b
}
pub(super) fn div<T: FloatMath>(a: T, b: T) -> T {
    a.div(b)
}
pub(super) fn int_div<T: ToF64>(a: T, b: T) -> f64 {
    a.to_f64() / b.to_f64()
}
pub(super) fn pow<T: FloatMath>(a: T, b: T) -> T {
    a.pow(b)
}
pub(super) fn atan2<T: FloatMath>(a: T, b: T) -> T {
    a.atan2(b)
}
pub(super) fn sqrt<T: FloatMath>(a: T) -> T {
    a.sqrt()
}
pub(super) fn exp<T: FloatMath>(a: T) -> T {
    a.exp()
}
pub(super) fn log<T: FloatMath>(a: T) -> T {
    a.ln()
}
pub(super) fn sin<T: FloatMath>(a: T) -> T {
    a.sin()
}
pub(super) fn cos<T: FloatMath>(a: T) -> T {
    a.cos()
}
pub(super) fn tan<T: FloatMath>(a: T) -> T {
    a.tan()
}
