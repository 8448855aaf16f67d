//! The scalar functions under NumPy's float and integer ufuncs
//! (rounding, sign, classification, exponentials, logarithms, the
//! trigonometric and hyperbolic functions, the binary float functions,
//! the integer and bitwise ones), generic over the element types: floats
//! through [`Flt`] (`float16` is computed in `float64` and rounded once,
//! in the overload macros), integers through [`Int`].

use dynd_kernels::F16;

use super::math::Real;

/// A binary float (`f32`, `f64`): the operations NumPy's float ufuncs
/// need, by Rust's own methods (the libm of the platform for the
/// transcendental ones).
pub(super) trait Flt: Real + PartialOrd + std::ops::Rem<Output = Self> {
    const INFINITY: Self;
    const LN_2: Self;
    const LOG2_E: Self;
    const DEG_PER_RAD: Self;
    const RAD_PER_DEG: Self;
    fn from_f64(x: f64) -> Self;
    fn trunc(self) -> Self;
    fn rint(self) -> Self;
    fn exp2(self) -> Self;
    fn exp_m1(self) -> Self;
    fn log2(self) -> Self;
    fn log10(self) -> Self;
    fn ln_1p(self) -> Self;
    fn asin(self) -> Self;
    fn acos(self) -> Self;
    fn atan(self) -> Self;
    fn tanh(self) -> Self;
    fn asinh(self) -> Self;
    fn acosh(self) -> Self;
    fn atanh(self) -> Self;
    fn fmax(self, o: Self) -> Self;
    fn fmin(self, o: Self) -> Self;
    fn is_infinite(self) -> bool;
    fn is_sign_negative(self) -> bool;
    /// The next value after `self` toward `toward` (C's `nextafter`).
    fn next_after(self, toward: Self) -> Self;
    /// `(m, e)` with `self = m * 2^e`, `0.5 <= |m| < 1` (C's `frexp`);
    /// zeros, infinities and NaN give themselves and 0.
    fn frexp(self) -> (Self, i32);
    /// `self * 2^n`, rounded once (C's `ldexp`).
    fn ldexp(self, n: i64) -> Self;
}

/// `x * 2^n` in `f64` with one rounding: the scaling is split so that no
/// intermediate product is rounded twice (the result rounds once, in the
/// last multiplication, even when it is subnormal).
fn scalbn(mut y: f64, n: i64) -> f64 {
    // Past these the result is 0 or inf for every finite nonzero `y`.
    let mut n = n.clamp(-2200, 2200) as i32;
    let two_1023 = f64::from_bits(0x7fe << 52);
    // 2^-1022 * 2^53: keeps a subnormal result from rounding twice.
    let two_m969 = f64::from_bits(((1023 - 969) as u64) << 52);
    while n > 1023 {
        y *= two_1023;
        n -= 1023;
        if !y.is_finite() {
            return y;
        }
    }
    while n < -1022 {
        y *= two_m969;
        n += 969;
        if y == 0.0 {
            return y;
        }
    }
    y * f64::from_bits(((0x3ff + n) as u64) << 52)
}

macro_rules! flt {
    ($t:ty, $bits:ty, $width:expr, $mant:expr, $bias:expr) => {
        impl Flt for $t {
            const INFINITY: Self = <$t>::INFINITY;
            const LN_2: Self = std::f64::consts::LN_2 as $t;
            const LOG2_E: Self = std::f64::consts::LOG2_E as $t;
            const DEG_PER_RAD: Self = (180.0 / std::f64::consts::PI) as $t;
            const RAD_PER_DEG: Self = (std::f64::consts::PI / 180.0) as $t;
            #[inline(always)]
            fn from_f64(x: f64) -> Self {
                x as $t
            }
            #[inline(always)]
            fn trunc(self) -> Self {
                <$t>::trunc(self)
            }
            #[inline(always)]
            fn rint(self) -> Self {
                <$t>::round_ties_even(self)
            }
            #[inline(always)]
            fn exp2(self) -> Self {
                <$t>::exp2(self)
            }
            #[inline(always)]
            fn exp_m1(self) -> Self {
                <$t>::exp_m1(self)
            }
            #[inline(always)]
            fn log2(self) -> Self {
                <$t>::log2(self)
            }
            #[inline(always)]
            fn log10(self) -> Self {
                <$t>::log10(self)
            }
            #[inline(always)]
            fn ln_1p(self) -> Self {
                <$t>::ln_1p(self)
            }
            #[inline(always)]
            fn asin(self) -> Self {
                <$t>::asin(self)
            }
            #[inline(always)]
            fn acos(self) -> Self {
                <$t>::acos(self)
            }
            #[inline(always)]
            fn atan(self) -> Self {
                <$t>::atan(self)
            }
            #[inline(always)]
            fn tanh(self) -> Self {
                <$t>::tanh(self)
            }
            #[inline(always)]
            fn asinh(self) -> Self {
                <$t>::asinh(self)
            }
            #[inline(always)]
            fn acosh(self) -> Self {
                <$t>::acosh(self)
            }
            #[inline(always)]
            fn atanh(self) -> Self {
                <$t>::atanh(self)
            }
            #[inline(always)]
            fn fmax(self, o: Self) -> Self {
                <$t>::max(self, o)
            }
            #[inline(always)]
            fn fmin(self, o: Self) -> Self {
                <$t>::min(self, o)
            }
            #[inline(always)]
            fn is_infinite(self) -> bool {
                <$t>::is_infinite(self)
            }
            #[inline(always)]
            fn is_sign_negative(self) -> bool {
                <$t>::is_sign_negative(self)
            }
            fn next_after(self, toward: Self) -> Self {
                if self.is_nan() || toward.is_nan() {
                    return self + toward;
                }
                if self == toward {
                    return toward;
                }
                if self == 0.0 {
                    return <$t>::from_bits(1).copysign(toward);
                }
                let bits = self.to_bits();
                // Away from zero is one more in the magnitude's bits.
                let away = (toward > self) == (self > 0.0);
                <$t>::from_bits(if away { bits + 1 } else { bits - 1 })
            }
            fn frexp(self) -> (Self, i32) {
                if self == 0.0 || !self.is_finite() {
                    return (self, 0);
                }
                let bits = self.to_bits();
                let field = ((bits >> $mant) & ((1 << ($width - 1 - $mant)) - 1)) as i32;
                if field == 0 {
                    // Subnormal: scale into the normal range first.
                    let (m, e) = (self * <$t>::from_bits((($bias + 64) as $bits) << $mant)).frexp();
                    return (m, e - 64);
                }
                let cleared = bits & !((((1 as $bits) << ($width - 1 - $mant)) - 1) << $mant);
                let m = <$t>::from_bits(cleared | ((($bias - 1) as $bits) << $mant));
                (m, field - ($bias - 1))
            }
            fn ldexp(self, n: i64) -> Self {
                // Exact in f64 for f32 (and half), then rounded once.
                scalbn(self as f64, n) as $t
            }
        }
    };
}

flt!(f32, u32, 32, 23, 127);
flt!(f64, u64, 64, 52, 1023);

/// `float16`'s own `nextafter`, on its bits.
pub(super) fn next_after_f16(x: F16, toward: F16) -> F16 {
    let (a, b) = (x.to_f64(), toward.to_f64());
    if a.is_nan() || b.is_nan() {
        return F16::from_f64(a + b);
    }
    if a == b {
        return toward;
    }
    if a == 0.0 {
        return F16(1 | (toward.0 & 0x8000));
    }
    let away = (b > a) == (a > 0.0);
    F16(if away { x.0 + 1 } else { x.0 - 1 })
}

/// `float16`'s sign bit, NaN's included.
pub(super) fn signbit_f16(x: F16) -> bool {
    x.0 & 0x8000 != 0
}

/// Round half to even at `decimals` places (negative: to tens, hundreds,
/// ...), as NumPy's `round`: scaled by `10^decimals`, rounded, scaled
/// back. A scaling that overflows leaves `x` as it is (NumPy gives inf or
/// NaN there); infinities and NaN stay.
pub(super) fn round<T: Flt>(x: T, decimals: i64) -> T {
    if decimals == 0 || !x.is_finite() {
        return x.rint();
    }
    let f = T::from_f64(10f64.powi(decimals.unsigned_abs().min(400) as i32));
    if decimals > 0 {
        let y = x * f;
        if !y.is_finite() || !f.is_finite() {
            return x;
        }
        y.rint() / f
    } else if !f.is_finite() {
        // Every finite value rounds to zero at such a place.
        T::ZERO.copysign(x)
    } else {
        (x / f).rint() * f
    }
}

/// `-1`, `0` or `1` (NaN stays NaN; `-0.0` gives `0.0`, as NumPy).
pub(super) fn sign<T: Flt>(x: T) -> T {
    if x > T::ZERO {
        T::ONE
    } else if x < T::ZERO {
        -T::ONE
    } else if x.is_nan() {
        x
    } else {
        T::ZERO
    }
}

/// `log(exp(x) + exp(y))` without overflow.
pub(super) fn logaddexp<T: Flt>(x: T, y: T) -> T {
    if x == y {
        // Equal infinities too (inf - inf would be NaN).
        return x + T::LN_2;
    }
    let d = x - y;
    if d > T::ZERO {
        x + (-d).exp().ln_1p()
    } else if d <= T::ZERO {
        y + d.exp().ln_1p()
    } else {
        d // NaN
    }
}

/// `log2(2^x + 2^y)` without overflow.
pub(super) fn logaddexp2<T: Flt>(x: T, y: T) -> T {
    if x == y {
        return x + T::ONE;
    }
    let d = x - y;
    if d > T::ZERO {
        x + (-d).exp2().ln_1p() * T::LOG2_E
    } else if d <= T::ZERO {
        y + d.exp2().ln_1p() * T::LOG2_E
    } else {
        d
    }
}

/// 0 below zero, `h0` at zero, 1 above; NaN stays NaN.
pub(super) fn heaviside<T: Flt>(x: T, h0: T) -> T {
    if x < T::ZERO {
        T::ZERO
    } else if x > T::ZERO {
        T::ONE
    } else if x == T::ZERO {
        h0
    } else {
        x
    }
}

/// The distance to the next value away from zero, signed as `x`
/// (NumPy's `spacing`); NaN for infinities and NaN. Both zeros give the
/// smallest positive value, as NumPy's does (a negative zero is not below
/// zero).
pub(super) fn spacing<T: Flt>(x: T) -> T {
    if !x.is_finite() {
        return T::NAN;
    }
    let ax = x.abs();
    let s = ax.next_after(T::INFINITY) - ax;
    if x < T::ZERO {
        -s
    } else {
        s
    }
}

/// The fractional part, signed as `x` (C's `modf`): `modf(inf)` is 0.
pub(super) fn modf_fraction<T: Flt>(x: T) -> T {
    if x.is_infinite() {
        return T::ZERO.copysign(x);
    }
    (x - x.trunc()).copysign(x)
}

/// Integer operations NumPy's integer ufuncs need, without panics: the
/// results wrap where NumPy's do.
pub(super) trait Int: Copy + Ord {
    fn sign(self) -> Self;
    fn round(self, decimals: i64) -> Self;
    fn gcd(self, o: Self) -> Self;
    fn lcm(self, o: Self) -> Self;
    fn count_ones_abs(self) -> u8;
    fn fmod(self, o: Self) -> Self;
    fn reciprocal(self) -> Self;
    /// `self` clipped to `[lo, hi]` given as floats: the bounds are
    /// rounded inward (`ceil(lo)`, `floor(hi)`) and saturated to the
    /// type, which is exact for any float bound; a NaN bound is no bound.
    fn clip(self, lo: f64, hi: f64) -> Self;
}

macro_rules! int {
    ($($t:ty),*) => {$(
        #[allow(unused_comparisons)]
        impl Int for $t {
            #[inline(always)]
            fn sign(self) -> Self {
                (self > 0) as $t - (self < 0) as $t
            }
            fn round(self, decimals: i64) -> Self {
                if decimals >= 0 {
                    return self;
                }
                let Some(f) = u32::try_from(decimals.unsigned_abs())
                    .ok()
                    .and_then(|e| (10 as $t).checked_pow(e))
                else {
                    // A place past the type's range: every value is 0 there
                    // but the top of an unsigned range, which wraps anyway.
                    return 0;
                };
                let q = self.div_euclid(f);
                let r = self.rem_euclid(f);
                // Half to even: up past half, or at half with an odd q.
                let up = r > f - r || (r == f - r && q % 2 != 0);
                (if up { q.wrapping_add(1) } else { q }).wrapping_mul(f)
            }
            fn gcd(self, o: Self) -> Self {
                let (mut a, mut b) = (self.unsigned_abs(), o.unsigned_abs());
                while b != 0 {
                    (a, b) = (b, a % b);
                }
                a as $t
            }
            fn lcm(self, o: Self) -> Self {
                let g = self.gcd(o).unsigned_abs();
                if g == 0 {
                    return 0;
                }
                (self.unsigned_abs() / g).wrapping_mul(o.unsigned_abs()) as $t
            }
            #[inline(always)]
            fn count_ones_abs(self) -> u8 {
                self.unsigned_abs().count_ones() as u8
            }
            #[inline(always)]
            fn fmod(self, o: Self) -> Self {
                // C's remainder (the dividend's sign); x % 0 == 0 and
                // MIN % -1 == 0, as NumPy gives.
                if o == 0 { 0 } else { self.wrapping_rem(o) }
            }
            #[inline(always)]
            fn reciprocal(self) -> Self {
                // Truncated 1 / x; 1 / 0 is 0 (NumPy's is undefined).
                if self == 0 { 0 } else { (1 as $t).wrapping_div(self) }
            }
            fn clip(self, lo: f64, hi: f64) -> Self {
                let mut x = self;
                if !lo.is_nan() {
                    // `as` saturates: exact for the rounded bound.
                    x = x.max(lo.ceil() as $t);
                }
                if !hi.is_nan() {
                    x = x.min(hi.floor() as $t);
                }
                x
            }
        }
    )*};
}

/// `unsigned_abs` for the unsigned types: themselves.
trait UnsignedAbs {
    fn unsigned_abs(self) -> Self;
}
macro_rules! unsigned_abs {
    ($($t:ty),*) => {$(
        impl UnsignedAbs for $t {
            #[inline(always)]
            fn unsigned_abs(self) -> Self { self }
        }
    )*};
}
unsigned_abs!(u8, u16, u32, u64, u128);

int!(i8, i16, i32, i64, i128, u8, u16, u32, u64, u128);
