//! Exact and near-exact building blocks: fused multiply-add where the
//! build has it, error-free sums and products, and `2^n` by bits.

/// `a * b + c`: fused (one rounding) when `FMA`, else two roundings (a
/// library call for `mul_add` would be far slower than the two).
#[inline(always)]
pub(crate) fn fma<const FMA: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// `(s, e)` with `s = fl(a + b)` and `s + e = a + b` exactly (Knuth).
#[inline(always)]
pub(crate) fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

/// [`two_sum`] for `|a| >= |b|` (or `a` zero) (Dekker).
#[inline(always)]
pub(crate) fn fast_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

/// Veltkamp's split of `a` into two halves of 26 bits each, for
/// [`two_prod`] without FMA (`|a|` well below `2^995`).
#[inline(always)]
fn split(a: f64) -> (f64, f64) {
    let c = 134_217_729.0 * a;
    let hi = c - (c - a);
    (hi, a - hi)
}

/// `(p, e)` with `p = fl(a * b)` and `p + e = a * b` exactly (no
/// overflow or underflow assumed).
#[inline(always)]
pub(crate) fn two_prod<const FMA: bool>(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    if FMA {
        (p, a.mul_add(b, -p))
    } else {
        let (ah, al) = split(a);
        let (bh, bl) = split(b);
        (p, ((ah * bh - p) + ah * bl + al * bh) + al * bl)
    }
}

/// `(a + aa) / (b + bb)` as a double-double, to about `2^-100` relative
/// beyond the rounding of the quotient's leading part.
#[inline(always)]
pub(crate) fn dd_div<const FMA: bool>(a: f64, aa: f64, b: f64, bb: f64) -> (f64, f64) {
    let q = a / b;
    let (p, pe) = two_prod::<FMA>(q, b);
    let r = (((a - p) - pe) + aa) - q * bb;
    fast_two_sum(q, r / b)
}

/// `(a + aa) * (b + bb)` as a double-double.
#[inline(always)]
pub(crate) fn dd_mul<const FMA: bool>(a: f64, aa: f64, b: f64, bb: f64) -> (f64, f64) {
    let (p, e) = two_prod::<FMA>(a, b);
    fast_two_sum(p, e + (a * bb + aa * b))
}

/// `1.5 * 2^52`: added to a float of magnitude below `2^51`, it rounds
/// that float to an integer, which the low bits of the sum then hold.
pub(crate) const ROUND: f64 = 6_755_399_441_055_744.0;

/// `x` rounded to the nearest integer (ties to even), for `|x| < 2^51`.
#[inline(always)]
pub(crate) fn round(x: f64) -> f64 {
    (x + ROUND) - ROUND
}

/// `2^n` for an integer `n` in `-1022..=1023` held in a float.
#[inline(always)]
pub(crate) fn pow2(n: f64) -> f64 {
    // `n + 1023` is an integer in 1..=2046: adding 2^52 puts it in the
    // low bits, and the shift moves it to the exponent field.
    f64::from_bits((n + 1023.0 + 4_503_599_627_370_496.0).to_bits() << 52)
}

/// `x * 2^k` for an integer `k` in `-2044..=2046` held in a float, in
/// two exact halves, so that results near overflow and subnormal results
/// are rounded once.
#[inline(always)]
pub(crate) fn scale(x: f64, k: f64) -> f64 {
    let half = round(k * 0.5);
    x * pow2(half) * pow2(k - half)
}

/// `x` with the sign of `s`.
#[inline(always)]
pub(crate) fn copysign(x: f64, s: f64) -> f64 {
    const SIGN: u64 = 1 << 63;
    f64::from_bits((x.to_bits() & !SIGN) | (s.to_bits() & SIGN))
}

/// `|x|`.
#[inline(always)]
pub(crate) fn abs(x: f64) -> f64 {
    f64::from_bits(x.to_bits() & !(1 << 63))
}

/// `ln 2`, rounded.
pub(crate) const LN2: f64 = std::f64::consts::LN_2;
/// `ln 2`'s leading 32 bits (`k * LN2_HI` is exact for every `k` the
/// reductions make).
pub(crate) const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
/// `ln 2 - LN2_HI`, rounded.
pub(crate) const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
/// `ln 2 - LN2`, rounded.
pub(crate) const LN2_ERR: f64 = f64::from_bits(0x3c7a_bc9e_3b39_803f);
/// `1 / ln 2`, rounded.
pub(crate) const INV_LN2: f64 = std::f64::consts::LOG2_E;
/// `2 / pi`, rounded.
pub(crate) const INV_PIO2: f64 = std::f64::consts::FRAC_2_PI;
/// `pi/2` in parts: the first two of 33 bits (their products with
/// `k < 2^20` are exact), then the next bits, then the rest.
pub(crate) const PIO2_1: f64 = f64::from_bits(0x3ff9_21fb_5440_0000);
pub(crate) const PIO2_2: f64 = f64::from_bits(0x3dd0_b461_1a60_0000);
pub(crate) const PIO2_3: f64 = f64::from_bits(0x3ba3_198a_2e00_0000);
pub(crate) const PIO2_4: f64 = f64::from_bits(0x397b_839a_2520_49c1);
/// `pi/2 - PIO2_1 - PIO2_2`, rounded (for `float32`'s reduction).
pub(crate) const PIO2_3_FULL: f64 = f64::from_bits(0x3ba3_198a_2e03_7073);

/// `1/n!` for `n = first, first + 1, …`: Taylor coefficients of `exp`.
pub(crate) const fn inv_factorials<const N: usize>(first: u32) -> [f64; N] {
    let mut c = [0.0; N];
    let mut i = 0;
    while i < N {
        c[i] = inv_factorial(first + i as u32);
        i += 1;
    }
    c
}

/// `(-1)^n / (2n + odd)!` for `n = first, first + 1, …`: Taylor
/// coefficients of `sin` (`odd = 1`) and `cos` (`odd = 0`).
pub(crate) const fn alternating<const N: usize>(first: u32, odd: u32) -> [f64; N] {
    let mut c = [0.0; N];
    let mut i = 0;
    while i < N {
        let n = first + i as u32;
        let v = inv_factorial(2 * n + odd);
        c[i] = if n % 2 == 1 { -v } else { v };
        i += 1;
    }
    c
}

/// `2/(2i+1)` for `i = first, first + 1, …`: the series of `2 atanh(s)`
/// that the logarithms use.
pub(crate) const fn odd_reciprocals<const N: usize>(first: u32) -> [f64; N] {
    let mut c = [0.0; N];
    let mut i = 0;
    while i < N {
        c[i] = 2.0 / (2 * (first + i as u32) + 1) as f64;
        i += 1;
    }
    c
}

/// `1 / n!` as a constant (`n!` is exact in `f64` up to `22!`).
pub(crate) const fn inv_factorial(n: u32) -> f64 {
    let mut f = 1.0;
    let mut i = 2;
    while i <= n {
        f *= i as f64;
        i += 1;
    }
    1.0 / f
}

/// Horner's rule over `c` (highest degree last).
#[inline(always)]
pub(crate) fn horner<const FMA: bool, const N: usize>(x: f64, c: &[f64; N]) -> f64 {
    let mut p = c[N - 1];
    let mut i = N - 1;
    while i > 0 {
        i -= 1;
        p = fma::<FMA>(p, x, c[i]);
    }
    p
}

/// The polynomial `sum c[i] x^i` of 12 coefficients by Estrin's scheme:
/// the same number of multiply-adds as Horner's rule, in a tree of depth
/// 4 instead of a chain of 11, so that a loop over many arguments is not
/// held up by the latency of each step. (Its rounding differs from
/// Horner's in the last bits of the polynomial, far below the result's.)
#[inline(always)]
pub(crate) fn estrin12<const FMA: bool>(x: f64, c: &[f64; 12]) -> f64 {
    let x2 = x * x;
    let x4 = x2 * x2;
    let x8 = x4 * x4;
    let p01 = fma::<FMA>(c[1], x, c[0]);
    let p23 = fma::<FMA>(c[3], x, c[2]);
    let p45 = fma::<FMA>(c[5], x, c[4]);
    let p67 = fma::<FMA>(c[7], x, c[6]);
    let p89 = fma::<FMA>(c[9], x, c[8]);
    let pab = fma::<FMA>(c[11], x, c[10]);
    let p03 = fma::<FMA>(p23, x2, p01);
    let p47 = fma::<FMA>(p67, x2, p45);
    let p8b = fma::<FMA>(pab, x2, p89);
    fma::<FMA>(p8b, x8, fma::<FMA>(p47, x4, p03))
}

/// [`estrin12`] for 10 coefficients.
#[inline(always)]
pub(crate) fn estrin10<const FMA: bool>(x: f64, c: &[f64; 10]) -> f64 {
    let x2 = x * x;
    let x4 = x2 * x2;
    let x8 = x4 * x4;
    let p01 = fma::<FMA>(c[1], x, c[0]);
    let p23 = fma::<FMA>(c[3], x, c[2]);
    let p45 = fma::<FMA>(c[5], x, c[4]);
    let p67 = fma::<FMA>(c[7], x, c[6]);
    let p89 = fma::<FMA>(c[9], x, c[8]);
    let p03 = fma::<FMA>(p23, x2, p01);
    let p47 = fma::<FMA>(p67, x2, p45);
    fma::<FMA>(p89, x8, fma::<FMA>(p47, x4, p03))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_free_transformations_are_exact() {
        let (a, b) = (1.0 + f64::EPSILON, 1.0 - f64::EPSILON / 2.0);
        for (p, e) in [two_prod::<false>(a, b), two_prod::<true>(a, b)] {
            // a*b = 1 + eps/2 - eps^2/2: the product rounds down to 1,
            // the error holds the rest.
            assert_eq!(p, 1.0);
            assert_eq!(e, f64::EPSILON / 2.0 - f64::EPSILON * f64::EPSILON / 2.0);
        }
        assert_eq!(two_sum(1.0, 1e-20), (1.0, 1e-20));
        assert_eq!(fast_two_sum(1e20, -1.0), (1e20, -1.0));
        assert_eq!(round(2.5), 2.0);
        assert_eq!(round(-3.7), -4.0);
        assert_eq!(pow2(-1022.0), f64::MIN_POSITIVE);
        assert_eq!(scale(1.5, -1074.0), 5e-324 * 2.0);
        assert_eq!(scale(1.0, 1023.0), 2f64.powi(1023));
        assert_eq!(inv_factorial(3), 1.0 / 6.0);
        // Small integers: both schemes are exact.
        let c = [
            1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0,
        ];
        let c10 = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0];
        for x in [0.5, -1.5, 2.0] {
            assert_eq!(estrin12::<false>(x, &c), horner::<false, 12>(x, &c));
            assert_eq!(estrin12::<true>(x, &c), horner::<true, 12>(x, &c));
            assert_eq!(estrin10::<true>(x, &c10), horner::<true, 10>(x, &c10));
        }
    }
}
