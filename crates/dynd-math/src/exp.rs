//! The exponential family: `exp`, `exp2`, `expm1`, and the hyperbolic
//! `sinh`, `cosh`, `tanh`, all from one reduction.
//!
//! `x = k ln 2 + r` with `k = round(x / ln 2)` and `|r| <= ln 2 / 2`
//! (Cody and Waite: `ln 2` in two parts, the first with trailing zeros so
//! that `k * LN2_HI` is exact), carried as `r + c` with `c` the rounding
//! error of `r`. Then `e^(r + c) - 1 = r + r^2 P(r) + c e^r`, with `P` the
//! Taylor polynomial to degree 13 (the first term left out is below
//! `2^-57` of the result), kept as an unevaluated sum `hi + lo` so that
//! `expm1` and the hyperbolic functions lose nothing to cancellation.
//! Scaling by `2^k` is done in two exact halves, so that results near
//! overflow and subnormal results are rounded once.

use crate::ops::*;

mod table;

/// Past this, `e^x` overflows; the argument is clamped here first.
const X_MAX: f64 = 710.0;
/// Below this, `e^x` is below half the smallest subnormal.
const X_MIN: f64 = -746.0;

/// `1/n!` for `n = 2..=13`: `P(r) = sum P[i] r^i`.
const P: [f64; 12] = inv_factorials(2);

/// `ln(2)^n / n!` for `n = 1..=13`: `2^r - 1 = sum Q[i] r^(i+1)` for
/// `|r| <= 1/2`.
const Q: [f64; 13] = {
    let mut c = [0.0; 13];
    let mut p = 1.0;
    let mut n = 1;
    while n <= 13 {
        p *= LN2;
        c[n - 1] = p * inv_factorial(n as u32);
        n += 1;
    }
    c[0] = LN2;
    c
};

/// `e^x = 2^k (1 + hi + lo)`, for `x` already clamped to
/// `[X_MIN, X_MAX]`, and `xlo` a small addition to `x` (the low part of
/// a double-double argument; 0 otherwise). `|hi| < 0.35`, `|lo| < 0.2 |hi|`
/// (not normalised: `hi` is `r` itself).
#[inline(always)]
pub(crate) fn parts<const FMA: bool>(x: f64, xlo: f64) -> (f64, f64, f64) {
    let k = round(x * INV_LN2);
    // Exact: `k * LN2_HI` has at most 43 bits and lies within a factor 2
    // of `x` (or `k` is 0).
    let a = fma::<FMA>(-k, LN2_HI, x);
    let (r, c) = if FMA {
        // `r = a - k LN2_LO` rounded once, and what the rounding lost:
        // `a - r` is near `k LN2_LO`, below `2^-23`, so computing it
        // errs by at most `2^-76`, and the second multiply-add rounds
        // only the small correction.
        let r = (-k).mul_add(LN2_LO, a);
        (r, (-k).mul_add(LN2_LO, a - r))
    } else {
        two_sum(a, -(k * LN2_LO))
    };
    let c = c + xlo;
    let q = r * r * estrin12::<FMA>(r, &P);
    // e^(r + c) - 1 = (e^r - 1) + c e^r, with e^r's own approximation
    // (the argument's low part can be as large as 2^-45).
    let lo = fma::<FMA>(c, 1.0 + (r + q), q);
    (k, r, lo)
}

/// `2^x = 2^k (1 + hi + lo)`, for `x` clamped to `[-1075, 1025]`.
#[inline(always)]
fn parts2<const FMA: bool>(x: f64) -> (f64, f64, f64) {
    let k = round(x);
    let r = x - k;
    // 2^r - 1 = r (ln 2 + r q(r)); the leading product carried exactly.
    let (h, e) = two_prod::<FMA>(r, LN2);
    let rest = r
        * r
        * horner::<FMA, 12>(
            r,
            &[
                Q[1], Q[2], Q[3], Q[4], Q[5], Q[6], Q[7], Q[8], Q[9], Q[10], Q[11], Q[12],
            ],
        );
    // `ln 2`'s own rounding error (`ln 2 - LN2`) times r.
    let lo = e + rest + r * LN2_ERR;
    (k, h, lo)
}

/// `2^k (1 + hi + lo)`, rounded once.
#[inline(always)]
fn finish(k: f64, hi: f64, lo: f64) -> f64 {
    let (s, e) = fast_two_sum(1.0, hi);
    scale(s + (e + lo), k)
}

/// `e^x`.
#[inline(always)]
pub(crate) fn exp<const FMA: bool>(x: f64) -> f64 {
    // Clamped by selects (a NaN passes both and stays NaN throughout).
    let xc = if x > X_MAX { X_MAX } else { x };
    let xc = if xc < X_MIN { X_MIN } else { xc };
    let (k, hi, lo) = parts::<FMA>(xc, 0.0);
    finish(k, hi, lo)
}

/// `e^x` for `|x| < 708` (a normal result): one rounding less in the
/// reduction than [`parts`] (the low part of `ln 2` taken by a fused
/// multiply-add), and `2^k` added to the exponent field directly.
#[inline(always)]
pub(crate) fn exp_fast<const FMA: bool>(x: f64) -> f64 {
    let t = x * INV_LN2 + ROUND;
    let k = t - ROUND;
    let r = fma::<FMA>(-k, LN2_LO, fma::<FMA>(-k, LN2_HI, x));
    let q = r * r * estrin12::<FMA>(r, &P);
    let (s, e) = fast_two_sum(1.0, r);
    let m = s + (e + q);
    // `t`'s low bits hold k (two's complement): shifted into the
    // exponent field, they add k to m's exponent.
    f64::from_bits(m.to_bits().wrapping_add(t.to_bits() << 52))
}

/// Whether `exp(x)` needs [`exp`] rather than [`exp_fast`]: results near
/// overflow, subnormal or zero, and infinities and NaN.
#[inline(always)]
pub(crate) fn exp_is_edge(x: f64) -> bool {
    abs(x) >= 708.0 || x.is_nan()
}

/// `e^(x + xlo)` for a double-double argument (the caller clamps `x`
/// to `[X_MIN, X_MAX]` and zeroes `xlo` when it does).
#[inline(always)]
pub(crate) fn exp_dd<const FMA: bool>(x: f64, xlo: f64) -> f64 {
    let (k, hi, lo) = parts::<FMA>(x, xlo);
    finish(k, hi, lo)
}

/// `e^(x + xlo)` for `|x| < 708` (a normal result): [`exp_dd`] with
/// `2^k` added to the exponent field directly, as [`exp_fast`] does.
#[inline(always)]
pub(crate) fn exp_dd_normal<const FMA: bool>(x: f64, xlo: f64) -> f64 {
    let (k, hi, lo) = parts::<FMA>(x, xlo);
    let (s, e) = fast_two_sum(1.0, hi);
    let m = s + (e + lo);
    // `k + ROUND` holds k in its low bits (two's complement), which the
    // shift moves to the exponent field (no float-to-integer conversion,
    // which does not vectorise).
    f64::from_bits(m.to_bits().wrapping_add((k + ROUND).to_bits() << 52))
}

/// The range `exp_dd` takes.
pub(crate) const EXP_RANGE: (f64, f64) = (X_MIN, X_MAX);

/// `2^x`.
#[inline(always)]
pub(crate) fn exp2<const FMA: bool>(x: f64) -> f64 {
    let xc = if x > 1025.0 { 1025.0 } else { x };
    let xc = if xc < -1076.0 { -1076.0 } else { xc };
    let (k, hi, lo) = parts2::<FMA>(xc);
    finish(k, hi, lo)
}

/// `e^x - 1`.
#[inline(always)]
pub(crate) fn expm1<const FMA: bool>(x: f64) -> f64 {
    // Past 40, `e^x - 1` rounds to `e^x`; below -40, to -1.
    let big = x > 40.0;
    let xc = if x > 40.0 { 40.0 } else { x };
    let xc = if xc < -40.0 { -40.0 } else { xc };
    let (k, hi, lo) = parts::<FMA>(xc, 0.0);
    // 2^k (hi + lo) + (2^k - 1): `2^k - 1` and `2^k hi` are exact.
    let two = pow2(k);
    let (s, e) = two_sum(two - 1.0, two * hi);
    let small = s + (e + two * lo);
    let r = if big { exp::<FMA>(x) } else { small };
    // -0 stays -0.
    if x == 0.0 {
        x
    } else {
        r
    }
}

/// `e^|x| - 1 = (hi + lo)` as a double-double, for `|x| <= 22`.
#[inline(always)]
fn expm1_dd<const FMA: bool>(ax: f64) -> (f64, f64) {
    let (k, hi, lo) = parts::<FMA>(ax, 0.0);
    let two = pow2(k);
    let (s, e) = two_sum(two - 1.0, two * hi);
    fast_two_sum(s, e + two * lo)
}

/// `e^|x| / 2` for `|x|` up to past the overflow of `sinh` and `cosh`.
#[inline(always)]
fn half_exp<const FMA: bool>(ax: f64) -> f64 {
    let xc = if ax > X_MAX + 1.0 { X_MAX + 1.0 } else { ax };
    let (k, hi, lo) = parts::<FMA>(xc, 0.0);
    finish(k - 1.0, hi, lo)
}

/// `tanh(x)`.
#[inline(always)]
pub(crate) fn tanh<const FMA: bool>(x: f64) -> f64 {
    let ax = abs(x);
    // tanh(|x|) = n / (n + 2) with n = e^(2|x|) - 1; past 22 it rounds
    // to 1.
    let t = if ax > 22.0 { 44.0 } else { 2.0 * ax };
    let (n, nn) = expm1_dd::<FMA>(t);
    let (d, dd) = two_sum(n, 2.0);
    // n / (d + dd + nn) with one division: `q = n (1/d)` is within two
    // roundings, `n - q d` is exact (`q d` is within a few roundings of
    // `n`), and the remainder times `1/d` corrects `q` far below its last
    // bit. (A second division, as `dd_div` has, costs 10% here.)
    let inv = 1.0 / d;
    let q = n * inv;
    let (p, pe) = two_prod::<FMA>(q, d);
    let rem = (((n - p) - pe) + nn) - q * (dd + nn);
    let r = if ax > 22.0 { 1.0 } else { q + rem * inv };
    copysign(r, x)
}

/// `sinh(x)`.
#[inline(always)]
pub(crate) fn sinh<const FMA: bool>(x: f64) -> f64 {
    let ax = abs(x);
    // sinh = (e - 1/e) / 2 = n (n + 2) / (2 (n + 1)) with n = e^|x| - 1,
    // free of cancellation; past 22 the `1/e` is below the last bit.
    let t = if ax > 22.0 { 22.0 } else { ax };
    let (n, nn) = expm1_dd::<FMA>(t);
    let (a, aa) = two_sum(n, 2.0);
    let (num, numl) = dd_mul::<FMA>(n, nn, a, aa + nn);
    let (b, bb) = two_sum(n, 1.0);
    let (q, qq) = dd_div::<FMA>(num, numl, b, bb + nn);
    let r = if ax > 22.0 {
        half_exp::<FMA>(ax)
    } else {
        0.5 * (q + qq)
    };
    // Tiny arguments (and -0) are their own sinh.
    let r = if ax < 1e-8 { ax } else { r };
    copysign(r, x)
}

/// `cosh(x)`.
#[inline(always)]
pub(crate) fn cosh<const FMA: bool>(x: f64) -> f64 {
    let ax = abs(x);
    let t = if ax > 22.0 { 22.0 } else { ax };
    // cosh = (e + 1/e) / 2 with e = 2^k (1 + hi + lo) as a double-double.
    let (k, hi, lo) = parts::<FMA>(t, 0.0);
    let two = pow2(k);
    let (e, ee) = fast_two_sum(two, two * hi);
    let (e, ee) = fast_two_sum(e, ee + two * lo);
    let (i, ii) = dd_div::<FMA>(1.0, 0.0, e, ee);
    let (s, ss) = fast_two_sum(e, i);
    let small = 0.5 * (s + (ss + ee + ii));
    if ax > 22.0 {
        half_exp::<FMA>(ax)
    } else {
        small
    }
}

/// `2^(j/16)` for `j` in `0..16` as two columns, the leading parts and
/// the rests (from `scripts/exp_table.py`), for the AVX-512 loops of
/// `exp`, `pow` and `tanh`, which keep them in four vector registers.
pub(crate) const TABLE16_COLUMNS: [[f64; 16]; 2] = {
    let mut c = [[0.0; 16]; 2];
    let mut i = 0;
    while i < 16 {
        c[0][i] = f64::from_bits(table::TABLE[i].0);
        c[1][i] = f64::from_bits(table::TABLE[i].1);
        i += 1;
    }
    c
};

/// `1/n!` for `n = 2..=8`: `e^r - 1 = r + r^2 sum P8[i] r^i`, to within
/// `2^-61` of `r` for `|r| <= ln 2 / 32` (the first term left out is
/// `r^9/9!`).
pub(crate) const P8: [f64; 7] = inv_factorials(2);

#[cfg(test)]
mod tests {
    use super::*;

    /// Each entry of the table is `2^(j/16)` as a double-double: the
    /// leading part the nearest double, and entry `j` times entry
    /// `16 - j` is 2, entry `j` squared entry `2j` (or twice `2j - 16`),
    /// to within `2^-100`.
    #[test]
    fn the_table_is_powers_of_two() {
        let t = table::TABLE.map(|(hi, lo)| (f64::from_bits(hi), f64::from_bits(lo)));
        assert_eq!(t[0], (1.0, 0.0));
        for (j, &(hi, lo)) in t.iter().enumerate() {
            let want = 2f64.powf(j as f64 / 16.0);
            assert!((hi - want).abs() <= f64::EPSILON * want, "entry {j}");
            assert!(lo.abs() <= f64::EPSILON / 2.0 * hi, "entry {j}");
            let check = |(a, aa): (f64, f64), (b, bb): (f64, f64), want: f64| {
                let (p, pp) = dd_mul::<true>(a, aa, b, bb);
                let err = ((p - want) + pp).abs();
                assert!(err <= 2f64.powi(-100) * want, "entry {j}: {err:e}");
            };
            if j > 0 {
                check((hi, lo), t[16 - j], 2.0);
            }
            let (sq, twice) = if 2 * j < 16 {
                (t[2 * j], 1.0)
            } else {
                (t[2 * j - 16], 2.0)
            };
            let (p, pp) = dd_mul::<true>(hi, lo, hi, lo);
            let err = ((p - twice * sq.0) + (pp - twice * sq.1)).abs();
            assert!(err <= 2f64.powi(-100) * p, "entry {j} squared: {err:e}");
        }
    }
}
