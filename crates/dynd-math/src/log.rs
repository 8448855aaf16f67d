//! The logarithm family: `log`, `log2`, `log10`, `log1p`, and `pow`.
//!
//! `x = 2^k m` with `m` in `[sqrt(1/2), sqrt(2))`, found from the bits
//! (subnormal `x` scaled by `2^54` first), and `f = m - 1` (exact). With
//! `s = f / (2 + f)`, `log(1 + f) = 2 atanh(s) = 2s + 2s^3/3 + 2s^5/5 +
//! …`; `|s| <= 0.1716`, so ten terms after `2s` reach below `2^-60` of
//! the result. Written as `f - f^2/2 + s (f^2/2 + R)` the leading part is
//! exact and the rounding of `s` only touches the small correction. `pow`
//! carries `log x` as a double-double accurate to about `2^-66`, so that
//! `y log x` keeps its last bits for `exp` even when it is near 700.

use crate::exp::{exp_dd, EXP_RANGE};
use crate::ops::*;

/// `1/ln 2` in a 32-bit leading part and the rest.
const INV_LN2_HI: f64 = f64::from_bits(0x3ff7_1547_6520_0000);
const INV_LN2_LO: f64 = f64::from_bits(0x3de7_05fc_2eef_a200);
/// `1/ln 10` likewise.
const INV_LN10_HI: f64 = f64::from_bits(0x3fdb_cb7b_1520_0000);
const INV_LN10_LO: f64 = f64::from_bits(0x3dbb_9438_ca9a_add5);
/// `log10(2)` likewise.
const LOG10_2_HI: f64 = f64::from_bits(0x3fd3_4413_5080_0000);
const LOG10_2_LO: f64 = f64::from_bits(0x3ddf_79fe_f311_f12b);
/// `2/3` as a double-double.
const TWO_THIRDS: (f64, f64) = (2.0 / 3.0, f64::from_bits(0x3c85_5555_5555_5555));
/// The bits of `sqrt(1/2)`.
const SQRT_HALF_BITS: u64 = 0x3fe6_a09e_667f_3bcd;

/// `2/(2i+1)` for `i = 1..=10`: `R(z) = sum L[i-1] z^i`.
const L: [f64; 10] = odd_reciprocals(1);

/// `2/(2i+1)` for `i = 2..=14`: the series after its cubic term to
/// `s^29`, below `2^-76` (`pow` needs `log x` to about `2^-66`).
const L_POW: [f64; 13] = odd_reciprocals(2);

/// `x = 2^k (1 + f)` with `1 + f` in `[sqrt(1/2), sqrt(2))`, for finite
/// positive `x` (other inputs give garbage that the callers replace).
#[inline(always)]
fn reduce(x: f64) -> (f64, f64) {
    // Subnormals scaled into the normal range first.
    let sub = x < f64::MIN_POSITIVE;
    let xs = if sub { x * 18_014_398_509_481_984.0 } else { x };
    let bits = xs.to_bits();
    // The exponent of x / sqrt(1/2), rounded down: subtracting the bits
    // of sqrt(1/2) carries into the exponent field exactly when the
    // mantissa is below sqrt(2)'s.
    let k = (bits.wrapping_sub(SQRT_HALF_BITS) as i64) >> 52;
    let m = f64::from_bits(bits.wrapping_sub((k as u64) << 52));
    let k = k as f64 - if sub { 54.0 } else { 0.0 };
    (k, m - 1.0)
}

/// `log(1 + f) - f` parts: `(hfsq, s (hfsq + R))`, so that `log(1 + f) =
/// f - hfsq + t`.
#[inline(always)]
fn kernel<const FMA: bool>(f: f64) -> (f64, f64) {
    let s = f / (2.0 + f);
    let z = s * s;
    let r = z * estrin10::<FMA>(z, &L);
    let hfsq = 0.5 * f * f;
    (hfsq, s * (hfsq + r))
}

/// Replaces the result of the main path for the inputs it does not
/// cover: NaN and negative give NaN, zero `-inf`, `+inf` itself.
#[inline(always)]
fn edges(x: f64, r: f64) -> f64 {
    let r = if x == f64::INFINITY { x } else { r };
    let r = if x == 0.0 { f64::NEG_INFINITY } else { r };
    if x >= 0.0 {
        r
    } else {
        f64::NAN
    }
}

/// `log(x)`.
#[inline(always)]
pub(crate) fn log<const FMA: bool>(x: f64) -> f64 {
    let (k, f) = reduce(x);
    let (hfsq, t) = kernel::<FMA>(f);
    let r = k * LN2_HI - ((hfsq - (t + k * LN2_LO)) - f);
    edges(x, r)
}

/// `log(x)` for a normal, finite, positive `x`: no subnormal scaling and
/// no special values.
#[inline(always)]
pub(crate) fn log_fast<const FMA: bool>(x: f64) -> f64 {
    let bits = x.to_bits();
    let k = (bits.wrapping_sub(SQRT_HALF_BITS) as i64) >> 52;
    let m = f64::from_bits(bits.wrapping_sub((k as u64) << 52));
    let (k, f) = (k as f64, m - 1.0);
    let (hfsq, t) = kernel::<FMA>(f);
    k * LN2_HI - ((hfsq - (t + k * LN2_LO)) - f)
}

/// Whether `log(x)` needs [`log`] rather than [`log_fast`]: zero,
/// negative, subnormal, infinite or NaN.
#[inline(always)]
pub(crate) fn log_is_edge(x: f64) -> bool {
    x < f64::MIN_POSITIVE || x == f64::INFINITY || x.is_nan()
}

/// `log(1 + f)` as `hi + lo`, with `hi` holding at most 21 bits (so that
/// its products with 32-bit constants are exact).
#[inline(always)]
fn split_log1p<const FMA: bool>(f: f64) -> (f64, f64) {
    let (hfsq, t) = kernel::<FMA>(f);
    let hi = f - hfsq;
    let hi = f64::from_bits(hi.to_bits() & 0xffff_ffff_0000_0000);
    (hi, ((f - hi) - hfsq) + t)
}

/// `log2(x)`.
#[inline(always)]
pub(crate) fn log2<const FMA: bool>(x: f64) -> f64 {
    let (k, f) = reduce(x);
    let (hi, lo) = split_log1p::<FMA>(f);
    let vhi = hi * INV_LN2_HI;
    let vlo = (lo + hi) * INV_LN2_LO + lo * INV_LN2_HI;
    // k + vhi exactly as a sum, then the rest.
    let (w, e) = two_sum(k, vhi);
    edges(x, w + (e + vlo))
}

/// `log10(x)`.
#[inline(always)]
pub(crate) fn log10<const FMA: bool>(x: f64) -> f64 {
    let (k, f) = reduce(x);
    let (hi, lo) = split_log1p::<FMA>(f);
    let vhi = hi * INV_LN10_HI;
    let vlo = (lo + hi) * INV_LN10_LO + lo * INV_LN10_HI;
    let khi = k * LOG10_2_HI;
    let (w, e) = two_sum(khi, vhi);
    edges(x, w + (e + (vlo + k * LOG10_2_LO)))
}

/// `log(1 + x)`.
#[inline(always)]
pub(crate) fn log1p<const FMA: bool>(x: f64) -> f64 {
    // `1 + x = u + c` exactly.
    let (u, c) = two_sum(1.0, x);
    let (k, f) = reduce(u);
    // Where `1 + x` needed no scaling, `f = x` exactly; elsewhere the
    // rounding of `1 + x` is put back as `c / u`.
    let c = if k < 1000.0 { c / u } else { 0.0 };
    let (f, c) = if k == 0.0 { (x, 0.0) } else { (f, c) };
    let (hfsq, t) = kernel::<FMA>(f);
    let r = k * LN2_HI - ((hfsq - (t + (k * LN2_LO + c))) - f);
    let r = edges(u, r);
    // -0 stays -0; below -1 is NaN even where `1 + x` rounds to 0.
    let r = if x == 0.0 { x } else { r };
    if x < -1.0 {
        f64::NAN
    } else {
        r
    }
}

/// `log(x)` as a double-double, within about `2^-66` relative, for
/// finite positive `x`.
#[inline(always)]
pub(crate) fn log_dd<const FMA: bool>(x: f64) -> (f64, f64) {
    let (k, f) = reduce(x);
    // s = f / (2 + f) to twice the precision: 2 + f exactly as d + dl,
    // the quotient's remainder exactly through `two_prod`.
    let (d, dl) = fast_two_sum(2.0, f);
    let s = f / d;
    let (p, pe) = two_prod::<FMA>(s, d);
    let sl = (((f - p) - pe) - s * dl) / d;
    // log(1 + f) = 2s + (2/3) s^3 + s^5 Q(s^2): the cubic term as a
    // double-double, the rest (below 2^-12 of the result) plainly.
    let (z, ze) = two_prod::<FMA>(s, s);
    let (c, ce) = two_prod::<FMA>(s, z);
    let ce = ce + s * ze + 3.0 * z * sl;
    let (t, te) = two_prod::<FMA>(TWO_THIRDS.0, c);
    let te = te + TWO_THIRDS.0 * ce + TWO_THIRDS.1 * c;
    let q = horner::<FMA, 13>(z, &L_POW);
    let rest = c * z * q;
    let (h, hl) = fast_two_sum(2.0 * s, t);
    let hl = hl + (2.0 * sl + te + rest);
    // Plus k ln 2 (`k * LN2_HI` exact).
    let (a, ae) = two_sum(k * LN2_HI, h);
    fast_two_sum(a, ae + hl + k * LN2_LO_FULL.0 + k * LN2_LO_FULL.1)
}

/// `ln 2 - LN2_HI` as a double-double.
const LN2_LO_FULL: (f64, f64) = (LN2_LO, f64::from_bits(0x3a8c_c01f_97b5_7a08));

/// `x^y` for finite positive `x` and finite `y`, and for negative `x`
/// (the sign from `y`'s parity, NaN for a non-integer `y`); the other
/// inputs are [`pow_edge`]'s.
#[inline(always)]
pub(crate) fn pow_main<const FMA: bool>(x: f64, y: f64) -> f64 {
    let ax = abs(x);
    let (l, ll) = log_dd::<FMA>(ax);
    // Past 1e300, y log x saturates `exp` as y itself would (log x is 0
    // or at least 2^-53 in magnitude), and the exact product below needs
    // no overflow.
    let yc = if abs(y) > 1e300 {
        copysign(1e300, y)
    } else {
        y
    };
    let (t, tl) = two_prod::<FMA>(yc, l);
    let tl = tl + yc * ll;
    let (lo, hi) = EXP_RANGE;
    let out = !(t >= lo && t <= hi);
    let t = if t > hi { hi } else { t };
    let t = if t < lo { lo } else { t };
    let tl = if out { 0.0 } else { tl };
    let r = exp_dd::<FMA>(t, tl);
    // y's parity: below 2^52, `ay + 2^52` has the integer in its low
    // bits; from 2^52 to 2^53 `ay` itself does; above, integers are even.
    let ay = abs(y);
    const TWO52: f64 = 4_503_599_627_370_496.0;
    let yr = if ay < TWO52 { round(ay) } else { ay };
    let integer = yr == ay;
    let low = if ay < TWO52 { ay + TWO52 } else { ay };
    let odd = integer && ay < 2.0 * TWO52 && (low.to_bits() & 1) == 1;
    let neg = x < 0.0;
    let r = if neg && odd { -r } else { r };
    if neg && !integer {
        f64::NAN
    } else {
        r
    }
}

/// Whether `pow(x, y)` needs [`pow_edge`]: a zero, infinite or NaN `x`,
/// or an infinite or NaN `y`.
#[inline(always)]
pub(crate) fn pow_is_edge(x: f64, y: f64) -> bool {
    !(abs(x) < f64::INFINITY && abs(x) > 0.0 && abs(y) < f64::INFINITY)
}

/// `x^y` for the inputs [`pow_main`] leaves out, as C99's Annex F has it.
pub(crate) fn pow_edge(x: f64, y: f64) -> f64 {
    if y == 0.0 || x == 1.0 {
        return 1.0;
    }
    if x.is_nan() || y.is_nan() {
        return f64::NAN;
    }
    let odd_int = y.abs() < 9_007_199_254_740_992.0 && y % 2.0 != 0.0 && y.fract() == 0.0;
    if y.is_infinite() {
        let ax = x.abs();
        return if ax == 1.0 {
            1.0
        } else if (ax < 1.0) == (y < 0.0) {
            f64::INFINITY
        } else {
            0.0
        };
    }
    if x == 0.0 {
        let mag = if y < 0.0 { f64::INFINITY } else { 0.0 };
        return if odd_int { copysign(mag, x) } else { mag };
    }
    // x is infinite.
    let mag = if y < 0.0 { 0.0 } else { f64::INFINITY };
    if x < 0.0 && odd_int {
        -mag
    } else {
        mag
    }
}
