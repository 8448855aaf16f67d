//! The logarithm family: `log`, `log2`, `log10`, `log1p`, and `pow`.
//!
//! `x = 2^k m` with `m` in `[sqrt(1/2), sqrt(2))`, found from the bits
//! (subnormal `x` scaled by `2^54` first), and `f = m - 1` (exact). With
//! `s = f / (2 + f)`, `log(1 + f) = 2 atanh(s) = 2s + 2s^3/3 + 2s^5/5 +
//! …`; `|s| <= 0.1716`, so ten terms after `2s` reach below `2^-60` of
//! the result. Written as `f - f^2/2 + s (f^2/2 + R)` the leading part is
//! exact and the rounding of `s` only touches the small correction.
//!
//! `pow` (and the inverse hyperbolic functions) carry `log x` as a
//! double-double accurate to about `2^-66`, so that `y log x` keeps its
//! last bits for `exp` even when it is near 700. That one is
//! table-driven ([`log_dd`]): 32 entries, from `scripts/log_table.py`,
//! make the reduced argument exact and small, so the series is short and
//! there is no division.

use crate::exp::{exp_dd, EXP_RANGE};
use crate::ops::*;

mod table;

/// `1/ln 2` in a 32-bit leading part and the rest.
const INV_LN2_HI: f64 = f64::from_bits(0x3ff7_1547_6520_0000);
const INV_LN2_LO: f64 = f64::from_bits(0x3de7_05fc_2eef_a200);
/// `1/ln 10` likewise.
const INV_LN10_HI: f64 = f64::from_bits(0x3fdb_cb7b_1520_0000);
const INV_LN10_LO: f64 = f64::from_bits(0x3dbb_9438_ca9a_add5);
/// `log10(2)` likewise.
const LOG10_2_HI: f64 = f64::from_bits(0x3fd3_4413_5080_0000);
const LOG10_2_LO: f64 = f64::from_bits(0x3ddf_79fe_f311_f12b);
/// The bits of `sqrt(1/2)`.
const SQRT_HALF_BITS: u64 = 0x3fe6_a09e_667f_3bcd;

/// `2/(2i+1)` for `i = 1..=10`: `R(z) = sum L[i-1] z^i`.
const L: [f64; 10] = odd_reciprocals(1);

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
/// negative, subnormal, NaN, or at or past [`LOG_TOP`] (the largest
/// floats and infinity).
#[inline(always)]
pub(crate) fn log_is_edge(x: f64) -> bool {
    !(f64::MIN_POSITIVE..LOG_TOP).contains(&x)
}

/// `2^1024 z` for the smallest reduced argument `z` ([`TABLE_OFF`]):
/// the floats from here up (about `1.27e308`) are the only normal ones
/// whose `k` is 1024, past what a float's exponent field holds biased,
/// so the AVX-512 loop leaves them to [`log`].
pub(crate) const LOG_TOP: f64 = f64::from_bits(TABLE_OFF + (1024 << 52));

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

/// `(-1)^(i+1) / i` for `i = 3..=12`: `log(1 + r) = r - r^2/2 + r^3
/// P(r)`. With `|r| < 0.0227` the first term left out, `r^13/13`, is
/// below `2^-69` of `r`.
pub(crate) const LOG1P_TAIL: [f64; 10] = [
    1.0 / 3.0,
    -0.25,
    0.2,
    -1.0 / 6.0,
    1.0 / 7.0,
    -0.125,
    1.0 / 9.0,
    -0.1,
    1.0 / 11.0,
    -1.0 / 12.0,
];

/// `log(x)` as a double-double, within about `2^-66` relative, for
/// finite positive `x`.
///
/// Table-driven: `x = 2^k z`, and `z`'s entry (of 32) gives `invc` (6
/// significant bits, near `1/z`) and `log c = -log(invc)` as a
/// double-double. Then `r = z invc - 1` is exact (one fused
/// multiply-add; without FMA, `z` split so that each product is exact and
/// `r` carried as `r + rl`), `|r| < 0.0227`, and `log x = k ln 2 + log c +
/// log(1 + r)`. The leading sums are exact: `k ln 2`'s high part plus
/// `log c`'s (a multiple of `2^-43`) is, and `|log c| > |r| > r^2/2`
/// wherever the larger is not zero (the smallest nonzero `|log c|` is
/// 0.031), so the others are [`fast_two_sum`]s; `r^2/2` is an exact
/// product, and the series' rest is below `2^-12` of `r`. The entry
/// holding 1 has `invc = 1` and `log c = 0`, so near `x = 1` the result
/// is the series in `r = x - 1` alone, accurate relative to itself.
#[inline(always)]
pub(crate) fn log_dd<const FMA: bool>(x: f64) -> (f64, f64) {
    log_dd_finish::<FMA>(log_dd_lookup(x))
}

/// The first part of [`log_dd`]: `x = 2^k z` and `z`'s table entry, as
/// `[k, z, logc, packed]` (`packed` as the bits of a float), which a loop
/// over slices keeps for a block before [`log_dd_finish`].
#[inline(always)]
pub(crate) fn log_dd_lookup(x: f64) -> [f64; 4] {
    let (i, k, z) = log_dd_index(x);
    let (logc, packed) = log_dd_entry(i);
    [k, z, logc, packed]
}

/// `x = 2^k z` as `(i, k, z)`, `i` the index of `z`'s table entry.
#[inline(always)]
pub(crate) fn log_dd_index(x: f64) -> (u64, f64, f64) {
    let sub = x < f64::MIN_POSITIVE;
    let xs = if sub { x * 18_014_398_509_481_984.0 } else { x };
    let bits = xs.to_bits();
    let tmp = bits.wrapping_sub(table::OFF);
    let k = (tmp as i64) >> 52;
    let z = f64::from_bits(bits.wrapping_sub((k as u64) << 52));
    let k = k as f64 - if sub { 54.0 } else { 0.0 };
    (tmp >> table::BITS, k, z)
}

/// Table entry `i % 32`, as `(logc, packed)` (`packed` as the bits of a
/// float; [`log_dd_finish`] unpacks it).
#[inline(always)]
pub(crate) fn log_dd_entry(i: u64) -> (f64, f64) {
    let (logc, packed) = table::TABLE[i as usize % table::TABLE.len()];
    (logc, f64::from_bits(packed))
}

/// Where the bits of [`log_dd_index`]'s reduced argument start (`x =
/// 2^k z`, `z`'s bits in `[TABLE_OFF, TABLE_OFF + 2^52)`), and the shift
/// of `bits(x) - TABLE_OFF` that gives the entry's index, for a loop
/// that reduces with vector instructions.
pub(crate) const TABLE_OFF: u64 = table::OFF;
/// See [`TABLE_OFF`].
pub(crate) const TABLE_SHIFT: u32 = table::BITS;

/// The table as two columns, `logc` and `packed` (as the bits of
/// floats), for a loop that keeps it in vector registers.
pub(crate) const TABLE_COLUMNS: [[f64; 32]; 2] = {
    let mut c = [[0.0; 32]; 2];
    let mut i = 0;
    while i < 32 {
        c[0][i] = table::TABLE[i].0;
        c[1][i] = f64::from_bits(table::TABLE[i].1);
        i += 1;
    }
    c
};

/// The rest of [`log_dd`], from [`log_dd_lookup`]'s parts.
#[inline(always)]
pub(crate) fn log_dd_finish<const FMA: bool>([k, z, logc, packed]: [f64; 4]) -> (f64, f64) {
    let packed = packed.to_bits();
    let invc = f64::from_bits((packed & 0x7_ffff) << 45);
    let logc_tail = f64::from_bits(packed & !0x7_ffff);
    let (r, rl) = if FMA {
        (z.mul_add(invc, -1.0), 0.0)
    } else {
        // `zh` keeps 45 significant bits, so `zh * invc` (51 bits) and
        // `(z - zh) * invc` (14) are exact, and `zh * invc` is within
        // a factor 2 of 1.
        let zh = f64::from_bits(z.to_bits() & !0xff);
        two_sum(zh * invc - 1.0, (z - zh) * invc)
    };
    // k ln 2 + log c + r - r^2/2, each sum carried exactly (the first is
    // exact: both terms are multiples of 2^-43 below 2^10).
    let a = k * LN2_HI + logc;
    let (b, be) = fast_two_sum(a, r);
    let (q, qe) = two_prod::<FMA>(-0.5 * r, r);
    let (s, se) = fast_two_sum(b, q);
    // r^3 (1/3 - r/4 + r^2/5 - ... - r^9/12).
    let p = r * r * r * estrin10::<FMA>(r, &LOG1P_TAIL);
    // `k` times the rest of ln 2 (`LN2_LO` leaves out below `2^-85`, so
    // at most `2^-74`, next to a result of at least 0.34 where k is not
    // 0).
    let lo = (be + se) + (qe + (p + (k * LN2_LO + logc_tail)));
    // log(1 + r + rl) = log(1 + r) + rl / (1 + r); `rl` is 0 with FMA
    // (left out: the compiler cannot drop `-0 * r + 0` by itself).
    let lo = if FMA { lo } else { lo + fma::<FMA>(-rl, r, rl) };
    fast_two_sum(s, lo)
}

/// `x^y` for finite positive `x` and finite `y`, and for negative `x`
/// (the sign from `y`'s parity, NaN for a non-integer `y`); the other
/// inputs are [`pow_edge`]'s.
#[inline(always)]
pub(crate) fn pow_main<const FMA: bool>(x: f64, y: f64) -> f64 {
    // Past 1e300, y log x saturates `exp` as y itself would (log x is 0
    // or at least 2^-53 in magnitude), and the exact product below needs
    // no overflow.
    let yc = if abs(y) > 1e300 {
        copysign(1e300, y)
    } else {
        y
    };
    let (t, tl) = pow_log::<FMA>(x, yc);
    let (lo, hi) = EXP_RANGE;
    let out = !(t >= lo && t <= hi);
    let t = if t > hi { hi } else { t };
    let t = if t < lo { lo } else { t };
    let tl = if out { 0.0 } else { tl };
    pow_sign(x, y) * exp_dd::<FMA>(t, tl)
}

/// `y log|x|` as a double-double: the first part of `pow`, with
/// [`pow_sign`]; then `exp_dd_normal` where [`pow_exp_covers`] the
/// result, else [`pow_main`]. A loop over slices runs the parts as passes
/// of their own ([`log_dd_lookup`], [`pow_log_finish`], `exp_dd_normal`).
#[inline(always)]
pub(crate) fn pow_log<const FMA: bool>(x: f64, y: f64) -> (f64, f64) {
    pow_log_finish::<FMA>(log_dd_lookup(abs(x)), y)
}

/// [`pow_log`] from the table lookup of `|x|` ([`log_dd_lookup`]),
/// which a loop runs in a pass of its own.
#[inline(always)]
pub(crate) fn pow_log_finish<const FMA: bool>(parts: [f64; 4], y: f64) -> (f64, f64) {
    let (l, ll) = log_dd_finish::<FMA>(parts);
    let (t, tl) = two_prod::<FMA>(y, l);
    (t, fma::<FMA>(y, ll, tl))
}

/// Whether `exp_dd_normal` covers `y log|x| = t + tl`: a normal result, and
/// a product that did not overflow (for `|y|` past about `2^995`, the
/// split of `two_prod` without FMA does, and `tl` is NaN).
#[inline(always)]
pub(crate) fn pow_exp_covers(t: f64, tl: f64) -> bool {
    abs(t + tl) < 708.0
}

/// The first part of `pow` over slices: [`log_dd_index`] of `|x|`, and
/// 0, or NaN for a zero, infinite or NaN `x`, to add to `logc` so that
/// `y log|x|` is NaN and [`pow_exp_covers`] sends those lanes to the
/// general path, which has C99's table (an infinite or NaN `y` makes the
/// product infinite or NaN too).
#[inline(always)]
pub(crate) fn pow_index(x: f64) -> (u64, f64, f64, f64) {
    let ax = abs(x);
    let (i, k, z) = log_dd_index(ax);
    let ordinary = ax < f64::INFINITY && ax > 0.0;
    (i, k, z, if ordinary { 0.0 } else { f64::NAN })
}

/// `x^y`'s sign as a factor of `|x|^y`: 1, -1 for a negative `x` and
/// an odd integer `y`, NaN for a negative `x` and a non-integer `y`.
#[inline(always)]
pub(crate) fn pow_sign(x: f64, y: f64) -> f64 {
    // Every float of magnitude 2^52 or more is an integer, and every one
    // of 2^53 or more is even. Below 2^52, `(v + 2^52) - 2^52` rounds a
    // non-negative `v` to an integer, so `|y|` is an integer where that
    // changes nothing. Below 2^53, `|y| / 2` (exact) is below 2^52 and
    // is a half-integer for an odd `|y|`, which the same rounding then
    // changes. (Past those bounds the rounding itself is inexact: the
    // test alone called 2^52 + 1 a fraction and 2^53 + 2 odd.)
    const TWO52: f64 = 4_503_599_627_370_496.0;
    const TWO53: f64 = 9_007_199_254_740_992.0;
    let ay = abs(y);
    let integer = ay >= TWO52 || (ay + TWO52) - TWO52 == ay;
    let h = 0.5 * ay;
    let odd = ay < TWO53 && integer && (h + TWO52) - TWO52 != h;
    let neg = x < 0.0;
    let s = if neg && odd { -1.0 } else { 1.0 };
    if neg && !integer {
        f64::NAN
    } else {
        s
    }
}

/// `x^y` for any arguments, one at a time: [`pow_edge`]'s table for the
/// special ones, [`pow_main`] for the others.
pub(crate) fn pow<const FMA: bool>(x: f64, y: f64) -> f64 {
    if pow_is_edge(x, y) {
        pow_edge(x, y)
    } else {
        pow_main::<FMA>(x, y)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Every bit pattern range of the table: its `invc` keeps `r` under
    /// 0.0227 at both ends (so the series is long enough and `r` is
    /// exact), the entry holding 1 is exactly `(1, 0, 0)`, and `logc` plus
    /// its tail is `-ln(invc)` (to the library `ln`'s last bit; the
    /// generator's 60 digits give the rest).
    #[test]
    fn the_table_covers_its_ranges() {
        use table::{BITS, OFF, TABLE};
        for i in 0..TABLE.len() as u64 {
            let lo = f64::from_bits(OFF + (i << BITS));
            let hi = f64::from_bits(OFF + ((i + 1) << BITS));
            let (k, z, logc, packed) = {
                let [k, z, logc, packed] = log_dd_lookup(lo);
                (k, z, logc, packed.to_bits())
            };
            assert_eq!((k, z), (0.0, lo), "entry {i}");
            let invc = f64::from_bits((packed & 0x7_ffff) << 45);
            let tail = f64::from_bits(packed & !0x7_ffff);
            // Six significant bits.
            assert_eq!(invc.to_bits() & ((1 << 47) - 1), 0);
            for end in [lo, hi] {
                assert!(
                    (end * invc - 1.0).abs() < 0.0227,
                    "entry {i}: {end} * {invc}"
                );
            }
            if lo <= 1.0 && 1.0 < hi {
                assert_eq!((invc, logc, tail), (1.0, 0.0, 0.0));
            } else {
                // The head a multiple of 2^-43; with the tail, -ln(invc).
                assert_eq!(logc, (logc * 2f64.powi(43)).round() / 2f64.powi(43));
                assert!(tail.abs() <= 2f64.powi(-44));
                assert!((logc + tail + invc.ln()).abs() <= f64::EPSILON * logc.abs());
            }
        }
    }

    /// `r = z invc - 1` is the same exact number both ways: one fused
    /// multiply-add, and the split products without one.
    #[test]
    fn the_reduction_is_exact_with_and_without_fma() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..100_000 {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let x = f64::from_bits(table::OFF + (s >> 12) % (1 << 52));
            let [_, z, _, packed] = log_dd_lookup(x);
            let invc = f64::from_bits((packed.to_bits() & 0x7_ffff) << 45);
            let fused = z.mul_add(invc, -1.0);
            let zh = f64::from_bits(z.to_bits() & !0xff);
            let (r, rl) = two_sum(zh * invc - 1.0, (z - zh) * invc);
            // The split's parts are exact and `two_sum` is, so a zero
            // low part says the exact `r` is one double: the fused one.
            assert_eq!((fused, 0.0), (r, rl), "z = {z}, invc = {invc}");
        }
    }

    #[test]
    fn log_dd_is_exact_at_one_and_at_powers_of_two() {
        assert_eq!(log_dd::<true>(1.0), (0.0, 0.0));
        assert_eq!(log_dd::<false>(1.0), (0.0, 0.0));
        for k in [-1074, -1060, -1022, -1, 1, 10, 1023] {
            let x = if k < -1022 {
                f64::from_bits(1 << (k + 1074))
            } else {
                f64::from_bits(((k + 1023) as u64) << 52)
            };
            for (h, l) in [log_dd::<true>(x), log_dd::<false>(x)] {
                // k ln 2, correctly rounded in the leading part.
                assert_eq!(h, core_math::log(x), "2^{k}");
                assert!(l.abs() <= f64::EPSILON * h.abs());
            }
        }
    }
}
