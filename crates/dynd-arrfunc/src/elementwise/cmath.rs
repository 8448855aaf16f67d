//! Complex versions of NumPy's float ufuncs beyond `math`'s: the inverse
//! trigonometric and hyperbolic functions (Kahan's formulas from "Branch
//! Cuts for Complex Elementary Functions", which keep the branch cuts'
//! signed zeros and do not cancel near the cuts), `expm1`, `log1p`, the
//! base-2 and base-10 logarithms, `sign` and rounding.

use dynd_kernels::Complex;

use super::math::{c_div, c_exp, c_log, c_sqrt, times_i, times_minus_i};
use super::real::Flt;

type C<T> = Complex<T>;

fn c<T>(re: T, im: T) -> C<T> {
    Complex::new(re, im)
}

/// `1 - z` and `1 + z` as Kahan writes them (the imaginary part's signed
/// zero carried through).
fn one_minus<T: Flt>(z: C<T>) -> C<T> {
    c(T::ONE - z.re, -z.im)
}
fn one_plus<T: Flt>(z: C<T>) -> C<T> {
    c(T::ONE + z.re, z.im)
}

/// `asin z`: `atan(Re z / Re(√(1-z) √(1+z))) + i asinh(Im(conj(√(1-z)) √(1+z)))`.
pub(super) fn c_asin<T: Flt>(z: C<T>) -> C<T> {
    let (s1, s2) = (c_sqrt(one_minus(z)), c_sqrt(one_plus(z)));
    let re = z.re.atan2(s1.re * s2.re - s1.im * s2.im);
    let im = (s1.re * s2.im - s1.im * s2.re).asinh();
    c(re, im)
}

/// `acos z`: `2 atan(Re √(1-z) / Re √(1+z)) + i asinh(Im(conj(√(1+z)) √(1-z)))`.
pub(super) fn c_acos<T: Flt>(z: C<T>) -> C<T> {
    let (s1, s2) = (c_sqrt(one_minus(z)), c_sqrt(one_plus(z)));
    let re = (T::ONE + T::ONE) * s1.re.atan2(s2.re);
    let im = (s2.re * s1.im - s2.im * s1.re).asinh();
    c(re, im)
}

/// `acosh z`: `asinh(Re(conj(√(z-1)) √(z+1))) + 2i atan(Im √(z-1) / Re √(z+1))`.
pub(super) fn c_acosh<T: Flt>(z: C<T>) -> C<T> {
    let (s1, s2) = (
        c_sqrt(c(z.re - T::ONE, z.im)),
        c_sqrt(c(z.re + T::ONE, z.im)),
    );
    let re = (s1.re * s2.re + s1.im * s2.im).asinh();
    let im = (T::ONE + T::ONE) * s1.im.atan2(s2.re);
    c(re, im)
}

/// `asinh z = -i asin(iz)`.
pub(super) fn c_asinh<T: Flt>(z: C<T>) -> C<T> {
    times_minus_i(c_asin(times_i(z)))
}

/// `atanh z`: `¼ log1p(4x / ((1-x)² + y²)) + ½ i atan2(2y, (1-x)(1+x) - y²)`
/// for `x >= 0` (odd symmetry for the rest, so that `log1p` never
/// cancels); past `Real::SQUARE_BIG` in magnitude, `Re(1/z) ± iπ/2`
/// (where the squares would overflow).
pub(super) fn c_atanh<T: Flt>(z: C<T>) -> C<T> {
    let (x, y) = (z.re, z.im);
    if x.is_sign_negative() {
        let r = c_atanh(c(-x, -y));
        return c(-r.re, -r.im);
    }
    let big = T::SQUARE_BIG;
    let two = T::ONE + T::ONE;
    let half_pi = T::from_f64(std::f64::consts::FRAC_PI_2);
    if x.is_nan() || y.is_nan() {
        // C99 Annex G: +0 + i NaN for an infinite real part, 0 ± iπ/2 for
        // an infinite imaginary part.
        if x.is_infinite() {
            return c(T::ZERO, T::NAN);
        }
        if y.is_infinite() {
            return c(T::ZERO, half_pi.copysign(y));
        }
        return c(T::NAN, T::NAN);
    }
    if x > big || y.abs() > big {
        let r = c_div(c(T::ONE, T::ZERO), z);
        return c(r.re, half_pi.copysign(y));
    }
    let one_x = T::ONE - x;
    let re = (two * two * x / (one_x * one_x + y * y)).ln_1p() / (two * two);
    let im = (two * y).atan2(one_x * (T::ONE + x) - y * y) / two;
    c(re, im)
}

/// `atan z = -i atanh(iz)`.
pub(super) fn c_atan<T: Flt>(z: C<T>) -> C<T> {
    times_minus_i(c_atanh(times_i(z)))
}

/// `e^z - 1`, accurate near 0: `expm1(x) cos y - 2 sin²(y/2) + i e^x sin y`.
pub(super) fn c_expm1<T: Flt>(z: C<T>) -> C<T> {
    let (x, y) = (z.re, z.im);
    if !x.is_finite() || !y.is_finite() {
        let e = c_exp(z);
        return c(e.re - T::ONE, e.im);
    }
    let s = y.half().sin();
    let two = T::ONE + T::ONE;
    c(x.exp_m1() * y.cos() - two * s * s, x.exp() * y.sin())
}

/// `log(1 + z)`, accurate near 0: the real part from `log1p(2x + x² + y²) / 2`
/// while that argument is small.
pub(super) fn c_log1p<T: Flt>(z: C<T>) -> C<T> {
    let (x, y) = (z.re, z.im);
    let t = x * (T::ONE + T::ONE + x) + y * y;
    let im = y.atan2(T::ONE + x);
    if t.abs() < T::ONE.half() {
        c(t.ln_1p().half(), im)
    } else {
        c((T::ONE + x).hypot(y).ln(), im)
    }
}

/// `2^z = e^(z ln 2)`.
pub(super) fn c_exp2<T: Flt>(z: C<T>) -> C<T> {
    c_exp(c(z.re * T::LN_2, z.im * T::LN_2))
}

/// `log2 z = log z / ln 2`.
pub(super) fn c_log2<T: Flt>(z: C<T>) -> C<T> {
    let l = c_log(z);
    c(l.re * T::LOG2_E, l.im * T::LOG2_E)
}

/// `log10 z = log z / ln 10`.
pub(super) fn c_log10<T: Flt>(z: C<T>) -> C<T> {
    let l = c_log(z);
    let k = T::from_f64(std::f64::consts::LOG10_E);
    c(l.re * k, l.im * k)
}

/// `z / |z|` (NumPy 2's complex `sign`): 0 for 0; an infinite part gives
/// its unit direction; NaN, or both parts infinite, gives NaN.
pub(super) fn c_sign<T: Flt>(z: C<T>) -> C<T> {
    let (x, y) = (z.re, z.im);
    if x.is_nan() || y.is_nan() || (x.is_infinite() && y.is_infinite()) {
        return c(T::NAN, T::NAN);
    }
    if x == T::ZERO && y == T::ZERO {
        return c(T::ZERO, T::ZERO);
    }
    if x.is_infinite() || y.is_infinite() {
        let unit = |v: T| {
            if v.is_infinite() {
                T::ONE.copysign(v)
            } else {
                T::ZERO
            }
        };
        return c(unit(x), unit(y));
    }
    let m = x.hypot(y);
    c(x / m, y / m)
}

/// `z * z`.
pub(super) fn c_square<T: Flt>(z: C<T>) -> C<T> {
    c(z.re * z.re - z.im * z.im, (z.re + z.re) * z.im)
}

/// `1 / z` (Smith's division).
pub(super) fn c_reciprocal<T: Flt>(z: C<T>) -> C<T> {
    c_div(c(T::ONE, T::ZERO), z)
}

/// Each part rounded to `decimals` places.
pub(super) fn c_round<T: Flt>(z: C<T>, decimals: i64) -> C<T> {
    c(
        super::real::round(z.re, decimals),
        super::real::round(z.im, decimals),
    )
}

/// The angle `atan2(im, re)`.
pub(super) fn c_angle<T: Flt>(z: C<T>) -> T {
    z.im.atan2(z.re)
}

pub(super) fn c_isnan<T: Flt>(z: C<T>) -> bool {
    z.re.is_nan() || z.im.is_nan()
}
pub(super) fn c_isinf<T: Flt>(z: C<T>) -> bool {
    z.re.is_infinite() || z.im.is_infinite()
}
pub(super) fn c_isfinite<T: Flt>(z: C<T>) -> bool {
    z.re.is_finite() && z.im.is_finite()
}
