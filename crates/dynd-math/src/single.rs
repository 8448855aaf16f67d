//! Faster `float32` forms of `exp`, `log`, `sin`, `cos` and `tanh`:
//! computed in `float64` like the others, but with the shorter
//! polynomials and plain (not double-double) reductions that `float32`'s
//! 24 bits allow. Each keeps its `float64` result within `2^-30` of the
//! true value, so that the one rounding to `float32` stays within one ULP.
//! Arguments are `float32` values held in `float64`.

use crate::ops::*;

/// `1/n!` for `n = 2..=8`.
const E: [f64; 7] = inv_factorials(2);

/// `e^x - 1 = 2^k (1 + p) - 1`: `(k, p)` for `x` clamped to
/// `[-110, 90]` (`|p| < 0.42`, relative error below `2^-32`).
#[inline(always)]
fn exp_parts<const FMA: bool>(x: f64) -> (f64, f64) {
    let k = round(x * INV_LN2);
    // `k * LN2`'s rounding (below 2^-45 for |k| <= 160) is far under
    // float32's last bit.
    let r = fma::<FMA>(-k, LN2, x);
    (k, fma::<FMA>(r * r, horner::<FMA, 7>(r, &E), r))
}

/// `e^x`.
#[inline(always)]
pub(crate) fn exp<const FMA: bool>(x: f64) -> f64 {
    let x = if x > 90.0 { 90.0 } else { x };
    let x = if x < -110.0 { -110.0 } else { x };
    let (k, p) = exp_parts::<FMA>(x);
    (1.0 + p) * pow2(k)
}

/// `tanh(x) = n / (n + 2)` with `n = e^(2|x|) - 1`.
#[inline(always)]
pub(crate) fn tanh<const FMA: bool>(x: f64) -> f64 {
    let ax = abs(x);
    let t = if ax > 10.0 { 20.0 } else { 2.0 * ax };
    let (k, p) = exp_parts::<FMA>(t);
    let two = pow2(k);
    // 2^k p + (2^k - 1): no cancellation for small |x| (k = 0).
    let n = fma::<FMA>(two, p, two - 1.0);
    let r = n / (n + 2.0);
    let r = if ax > 10.0 { 1.0 } else { r };
    copysign(r, x)
}

/// `2/(2i+1)` for `i = 1..=5`.
const L: [f64; 5] = odd_reciprocals(1);

/// `log(x)`.
#[inline(always)]
pub(crate) fn log<const FMA: bool>(x: f64) -> f64 {
    // A float32 argument is a normal float64: no subnormal scaling.
    let bits = x.to_bits();
    let k = (bits.wrapping_sub(0x3fe6_a09e_667f_3bcd) as i64) >> 52;
    let m = f64::from_bits(bits.wrapping_sub((k as u64) << 52));
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let r = fma::<FMA>(
        k as f64,
        LN2,
        fma::<FMA>(s * z, horner::<FMA, 5>(z, &L), 2.0 * s),
    );
    let r = if x == f64::INFINITY { x } else { r };
    let r = if x == 0.0 { f64::NEG_INFINITY } else { r };
    if x >= 0.0 {
        r
    } else {
        f64::NAN
    }
}

/// `(-1)^n / (2n+1)!` for `n = 1..=5` and `(-1)^n / (2n)!` for `n = 1..=6`.
const S: [f64; 5] = alternating(1, 1);
const C: [f64; 6] = alternating(1, 0);

/// `(sin x, cos x)` for `|x| <= trig::LIMIT`.
#[inline(always)]
pub(crate) fn sincos<const FMA: bool>(x: f64) -> (f64, f64) {
    let k = round(x * INV_PIO2);
    // `k * PIO2_1` and `k * PIO2_2` are exact; the rest is far below
    // float32's reach (its doubles come no closer than 2^-30 to a
    // multiple of pi/2).
    let r = (x - k * PIO2_1) - k * PIO2_2;
    let r = fma::<FMA>(-k, PIO2_3_FULL, r);
    let z = r * r;
    let s = fma::<FMA>(r * z, horner::<FMA, 5>(z, &S), r);
    let c = fma::<FMA>(z, horner::<FMA, 6>(z, &C), 1.0);
    let q = (k + ROUND).to_bits();
    let (s, c) = if q & 1 == 0 { (s, c) } else { (c, -s) };
    if q & 2 == 0 {
        (s, c)
    } else {
        (-s, -c)
    }
}

/// `sin(x)` for `|x| <= trig::LIMIT`.
#[inline(always)]
pub(crate) fn sin<const FMA: bool>(x: f64) -> f64 {
    // -0 stays -0 (and tiny arguments are their own sine).
    if abs(x) < 1e-5 {
        x
    } else {
        sincos::<FMA>(x).0
    }
}

/// `cos(x)` for `|x| <= trig::LIMIT`.
#[inline(always)]
pub(crate) fn cos<const FMA: bool>(x: f64) -> f64 {
    sincos::<FMA>(x).1
}
