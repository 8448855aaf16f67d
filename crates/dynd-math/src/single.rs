//! Faster `float32` forms of `sin`, `cos` and `tanh`: computed in
//! `float64` like the others, but with the shorter polynomials and plain
//! (not double-double) reductions that `float32`'s 24 bits allow. Each
//! keeps its `float64` result within `2^-30` of the true value, so that
//! the one rounding to `float32` stays within one ULP. Arguments are
//! `float32` values held in `float64`.
//!
//! `exp` and `log` are computed in `float32` itself ([`native`]), twice
//! the lanes per vector.

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

/// `2/(2i+1)` for `i = 1..=6`: `log(1+f) = 2s + s z (...)`.
const LOG_SERIES: [f64; 6] = odd_reciprocals(1);

/// `ln2^n / n!` for `n = 1..=8`: `2^r = 1 + sum c[n-1] r^n`.
const EXP2_SERIES: [f64; 8] = {
    let f = inv_factorials::<8>(1);
    let mut c = [0.0; 8];
    let (mut p, mut i) = (1.0, 0);
    while i < 8 {
        p *= LN2;
        c[i] = p * f[i];
        i += 1;
    }
    c
};

/// Whether `x^y` leaves the main path of [`pow_t`]: a base that is not
/// positive and finite (zero, negative, infinite, NaN) or an exponent
/// that is not finite. Those take the `float64` `pow` (C's special
/// cases, the sign of a negative base), rounded once.
#[inline(always)]
pub(crate) fn pow_is_edge(x: f32, y: f32) -> bool {
    !(x > 0.0 && x <= f32::MAX && y.abs() <= f32::MAX)
}

/// `x^y` for a positive finite `x` and a finite `y`: `2^(y log2 x)` in
/// `float64`. `log x = 2 atanh(s)` past `k ln2`, with `s = f/(2+f)`
/// (`|s| <= 0.172`, the series to `s^13`: relative error below 2^-39);
/// `u = y (k + log(1+f)/ln2)` clamped to `[-174, 145]` (far past
/// float32's overflow and underflow); `2^u = 2^k 2^r` with `r = u - k`
/// exact and `|r| <= 1/2`, by the series of `e^(r ln2)` to `r^8` (below
/// 2^-32). So wherever the result is a float32 (`|u| < 150`) `u`'s error
/// stays below 2^-31, and the result's relative error below 2^-31, a
/// sixtieth of the distance to a rounding boundary that could move the
/// one rounding to float32 past the neighbour of the correctly rounded
/// result: within one ULP.
///
/// In two halves, `pow_exp(pow_t(x, y))`, so that a loop can run them as
/// two passes (each a chain short enough for the processor to overlap
/// many elements: 2.1 -> 1.3 ns on AVX-512, with Estrin's scheme for the
/// series): this is `u = y log2 x`, clamped.
#[inline(always)]
pub(crate) fn pow_t<const FMA: bool>(x: f64, y: f64) -> f64 {
    let bits = x.to_bits();
    let k = (bits.wrapping_sub(0x3fe6_a09e_667f_3bcd) as i64) >> 52;
    let m = f64::from_bits(bits.wrapping_sub((k as u64) << 52));
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    // The series by Estrin's scheme: a shorter chain than Horner's.
    let c = &LOG_SERIES;
    let z2 = z * z;
    let p = fma::<FMA>(
        z2 * z2,
        fma::<FMA>(c[5], z, c[4]),
        fma::<FMA>(z2, fma::<FMA>(c[3], z, c[2]), fma::<FMA>(c[1], z, c[0])),
    );
    let p = z * p;
    // log2 x = k + log(m) / ln 2, and u = y log2 x.
    let log2 = fma::<FMA>(fma::<FMA>(s, p, 2.0 * s), INV_LN2, k as f64);
    let u = y * log2;
    let u = if u > 145.0 { 145.0 } else { u };
    if u < -174.0 {
        -174.0
    } else {
        u
    }
}

/// [`pow_t`]'s second half: `2^u`.
#[inline(always)]
pub(crate) fn pow_exp<const FMA: bool>(u: f64) -> f64 {
    let k = round(u);
    let r = u - k;
    let c = &EXP2_SERIES;
    let r2 = r * r;
    let q = fma::<FMA>(
        r2 * r2,
        fma::<FMA>(r2, fma::<FMA>(c[7], r, c[6]), fma::<FMA>(c[5], r, c[4])),
        fma::<FMA>(r2, fma::<FMA>(c[3], r, c[2]), fma::<FMA>(c[1], r, c[0])),
    );
    fma::<FMA>(r, q, 1.0) * pow2(k)
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

/// Native `float32` forms: computed in `float32` itself, so that a
/// vector holds twice the lanes of the `float64` forms above (AVX-512:
/// sixteen). Each argues its error below one ULP in its comments, and
/// the accuracy test checks it over every path.
pub(crate) mod native {
    /// `a * b + c`: fused where the build has FMA, else two roundings (the
    /// callers' error bounds allow for either).
    #[inline(always)]
    fn fma<const FMA: bool>(a: f32, b: f32, c: f32) -> f32 {
        if FMA {
            a.mul_add(b, c)
        } else {
            a * b + c
        }
    }

    /// `1.5 * 2^23`: adding and subtracting it rounds a float32 below
    /// `2^22` in magnitude to an integer (ties to even).
    const ROUND: f32 = 12_582_912.0;

    /// `2^n` for an integer `n` in `-126..=127` held in a float.
    #[inline(always)]
    fn pow2(n: f32) -> f32 {
        // `n + 127` is an integer in 1..=254: adding 2^23 puts it in the
        // low bits, and the shift moves it to the exponent field.
        f32::from_bits((n + 127.0 + 8_388_608.0).to_bits() << 23)
    }

    /// `1/n!` for `n = 2..=8`, rounded to float32.
    const E: [f32; 7] = {
        let c = crate::ops::inv_factorials::<7>(2);
        let mut r = [0.0f32; 7];
        let mut i = 0;
        while i < 7 {
            r[i] = c[i] as f32;
            i += 1;
        }
        r
    };

    /// `ln 2` in two parts: the first of 15 significant bits, so that its
    /// product with any `|k| <= 512` is exact.
    const LN2_HI: f32 = 22_713.0 / 32_768.0;
    const LN2_LO: f32 = 1.428_606_8e-6;

    /// `e^x`.
    ///
    /// `x = k ln 2 + r` with `|r| <= 0.347` (`k ln2_hi` exact, `r`'s
    /// error below 2^-32); `e^r = 1 + (r + r^2 q(r))` by Taylor's series
    /// to `r^8` (truncation below 2^-31 relative). `r^2 q` is below 0.07
    /// and carries about one rounding of its own, so `1 + ...` is off by
    /// at most 0.5 ULP (its rounding) plus about 0.1; the scaling by
    /// `2^k`, in two exact halves, rounds once more only where the result
    /// is subnormal (as the true value's rounding does).
    #[inline(always)]
    pub(crate) fn exp<const FMA: bool>(x: f32) -> f32 {
        // e^89 overflows and e^-104 is below half the least subnormal;
        // comparisons keep a NaN.
        let x = if x > 89.0 { 89.0 } else { x };
        let x = if x < -104.0 { -104.0 } else { x };
        let k = (x * std::f32::consts::LOG2_E + ROUND) - ROUND;
        let r = fma::<FMA>(-k, LN2_HI, x);
        let r = fma::<FMA>(-k, LN2_LO, r);
        let mut q = E[6];
        let mut i = 6;
        while i > 0 {
            i -= 1;
            q = fma::<FMA>(q, r, E[i]);
        }
        let y = 1.0 + fma::<FMA>(r * r, q, r);
        // k in -150..=129: two halves, each a normal power of two.
        let half = (k * 0.5 + ROUND) - ROUND;
        y * pow2(half) * pow2(k - half)
    }

    /// `2/(2i+1)` for `i = 1..=4`, rounded to float32.
    const L: [f32; 4] = {
        let c = crate::ops::odd_reciprocals::<4>(1);
        [c[0] as f32, c[1] as f32, c[2] as f32, c[3] as f32]
    };

    /// `log(x)`.
    ///
    /// `x = 2^k (1 + f)` with `1 + f` in `[sqrt(1/2), sqrt(2))` (`f`
    /// exact). `log(1 + f) = f - (h - s (h + R))` with `h = f^2/2`,
    /// `s = f/(2 + f)` and `R` the series of `2 atanh s - 2s` past its
    /// first term, as fdlibm arranges it: `s` and `R`'s relative errors of
    /// a few ULP reach the result scaled by `s (h + R) < 0.02`, `h`'s by
    /// `h/log(1+f) < 0.25`; then `k ln2_hi` (exact) is added last.
    #[inline(always)]
    pub(crate) fn log<const FMA: bool>(x: f32) -> f32 {
        // Subnormal arguments are scaled into the normal range first.
        let tiny = x < f32::MIN_POSITIVE;
        let xs = if tiny { x * 8_388_608.0 } else { x };
        let bits = xs.to_bits();
        // The exponent relative to sqrt(1/2)'s bits, so that the mantissa
        // lands in [sqrt(1/2), sqrt(2)).
        let k = (bits.wrapping_sub(0x3f35_04f3) as i32) >> 23;
        let m = f32::from_bits(bits.wrapping_sub((k as u32) << 23));
        let k = k as f32 - if tiny { 23.0 } else { 0.0 };
        let f = m - 1.0;
        let s = f / (2.0 + f);
        let z = s * s;
        let h = 0.5 * f * f;
        let mut p = L[3];
        let mut i = 3;
        while i > 1 {
            i -= 1;
            p = fma::<FMA>(p, z, L[i]);
        }
        // R = z (2/3 + z (2/5 + ...)): the series of 2 atanh(s) / s - 2,
        // which with s (h + R) makes log(1 + f) - f + h.
        let r = z * fma::<FMA>(p, z, L[0]);
        let r = fma::<FMA>(s, h + r, k * LN2_LO);
        let r = fma::<FMA>(k, LN2_HI, f - (h - r));
        let r = if xs == f32::INFINITY { xs } else { r };
        let r = if x == 0.0 { f32::NEG_INFINITY } else { r };
        if x >= 0.0 {
            r
        } else {
            f32::NAN
        }
    }
}
