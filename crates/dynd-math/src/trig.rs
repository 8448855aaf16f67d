//! `sin`, `cos`, `tan` and `sincos`.
//!
//! `x = k pi/2 + r` with `k = round(x 2/pi)` and `|r| <= pi/4`, `r`
//! carried as a double-double: `pi/2` in four parts, the first three of
//! 33 bits or fewer so that their products with `k < 2^20` are exact, and
//! the differences summed without error (Cody and Waite, extended to 152
//! bits of `pi/2`: enough for the doubles closest to a multiple of
//! `pi/2`). Arguments past [`LIMIT`] are reduced exactly by Payne and
//! Hanek's method ([`large`]), lane by lane after the vector pass, and go
//! through the same polynomials.
//! On `[-pi/4, pi/4]` both `sin` and `cos` are Taylor polynomials (the
//! first term left out below `2^-60`), their leading terms kept exact,
//! and `tan` is their quotient to double-double precision.

use crate::ops::*;

mod large;

/// Beyond this, `k` could reach `2^20` and the reduction here would not
/// be exact.
pub(crate) const LIMIT: f64 = 1.6e6;

/// `(-1)^n / (2n+1)!` for `n = 1..=8`: `sin r = r + r^3 S(r^2)`.
const S: [f64; 8] = alternating(1, 1);

/// `(-1)^n / (2n)!` for `n = 2..=9`: `cos r = 1 - r^2/2 + r^4 C(r^2)`.
const C: [f64; 8] = alternating(2, 0);

/// `x = k pi/2 + (r + rr)` for `|x| <= LIMIT`.
#[inline(always)]
fn reduce<const FMA: bool>(x: f64) -> (f64, f64, f64) {
    let k = round(x * INV_PIO2);
    // Exact: `k * PIO2_1` is within a factor 2 of `x` (or `k` is 0).
    let a = x - k * PIO2_1;
    let (r1, e1) = two_sum(a, -(k * PIO2_2));
    let (r2, e2) = two_sum(r1, -(k * PIO2_3));
    let tail = (e1 + e2) - k * PIO2_4;
    let (r, rr) = fast_two_sum(r2, tail);
    (k, r, rr)
}

/// `sin(r + rr)` as `hi + lo`.
#[inline(always)]
fn sin_k<const FMA: bool>(r: f64, rr: f64) -> (f64, f64) {
    let z = r * r;
    let s3 = r * z * horner::<FMA, 8>(z, &S);
    (r, s3 + rr * fma::<FMA>(-0.5, z, 1.0))
}

/// `cos(r + rr)` as `hi + lo`.
#[inline(always)]
fn cos_k<const FMA: bool>(r: f64, rr: f64) -> (f64, f64) {
    let (z, ze) = two_prod::<FMA>(r, r);
    let (hz, hze) = (0.5 * z, 0.5 * ze);
    let (w, we) = fast_two_sum(1.0, -hz);
    let c4 = z * z * horner::<FMA, 8>(z, &C);
    (w, ((we - hze) + c4) - r * rr)
}

/// `sin(x)` and `cos(x)` as double-doubles, for `|x| <= LIMIT`.
#[inline(always)]
fn both<const FMA: bool>(x: f64) -> ((f64, f64), (f64, f64)) {
    let (k, r, rr) = reduce::<FMA>(x);
    // The quadrant: k mod 4, from the low bits of `k + ROUND`.
    turn::<FMA>((k + ROUND).to_bits(), r, rr)
}

/// `sin` and `cos` of `q pi/2 + (r + rr)`, from the low two bits of `q`.
#[inline(always)]
fn turn<const FMA: bool>(q: u64, r: f64, rr: f64) -> ((f64, f64), (f64, f64)) {
    let (s, c) = (sin_k::<FMA>(r, rr), cos_k::<FMA>(r, rr));
    let (s, c) = if q & 1 == 0 {
        (s, c)
    } else {
        (c, (-s.0, -s.1))
    };
    if q & 2 == 0 {
        (s, c)
    } else {
        ((-s.0, -s.1), (-c.0, -c.1))
    }
}

/// Whether `x` is past the vector reduction (or infinite or NaN).
#[inline(always)]
pub(crate) fn is_edge(x: f64) -> bool {
    abs(x) > LIMIT || x.is_nan()
}

/// [`both`] for any `x`: past [`LIMIT`], reduced by [`large::reduce`];
/// NaN for infinities and NaN.
fn both_any(x: f64) -> ((f64, f64), (f64, f64)) {
    if !is_edge(x) {
        both::<false>(x)
    } else if x.is_finite() {
        let (q, r, rr) = large::reduce(x);
        turn::<false>(q, r, rr)
    } else {
        let nan = f64::NAN;
        ((nan, nan), (nan, nan))
    }
}

/// `sin(x)` for any `x` (the lanes the vector loop leaves out).
pub(crate) fn sin_slow(x: f64) -> f64 {
    let ((h, l), _) = both_any(x);
    h + l
}

/// `cos(x)` for any `x`.
pub(crate) fn cos_slow(x: f64) -> f64 {
    let (_, (h, l)) = both_any(x);
    h + l
}

/// `tan(x)` for any `x`.
pub(crate) fn tan_slow(x: f64) -> f64 {
    quotient::<false>(both_any(x))
}

/// `sin(x)` for `|x| <= LIMIT`.
#[inline(always)]
pub(crate) fn sin<const FMA: bool>(x: f64) -> f64 {
    let ((h, l), _) = both::<FMA>(x);
    // Below 2^-26, sin x rounds to x (and -0 stays -0).
    if abs(x) < 1.5e-8 {
        x
    } else {
        h + l
    }
}

/// `cos(x)` for `|x| <= LIMIT`.
#[inline(always)]
pub(crate) fn cos<const FMA: bool>(x: f64) -> f64 {
    let (_, (h, l)) = both::<FMA>(x);
    h + l
}

/// `tan(x)` for `|x| <= LIMIT`.
#[inline(always)]
pub(crate) fn tan<const FMA: bool>(x: f64) -> f64 {
    if abs(x) < 1.5e-8 {
        x
    } else {
        quotient::<FMA>(both::<FMA>(x))
    }
}

/// `s / c` for the double-doubles `(s, c)` of [`both`].
#[inline(always)]
fn quotient<const FMA: bool>(((s, sl), (c, cl)): ((f64, f64), (f64, f64))) -> f64 {
    // The sine's parts are `r` and the rest: normalised for the division.
    let (s, sl) = fast_two_sum(s, sl);
    let (c, cl) = fast_two_sum(c, cl);
    let (q, ql) = dd_div::<FMA>(s, sl, c, cl);
    q + ql
}

/// `(sin x, cos x)` for `|x| <= LIMIT`.
#[inline(always)]
pub(crate) fn sincos<const FMA: bool>(x: f64) -> (f64, f64) {
    let ((sh, sl), (ch, cl)) = both::<FMA>(x);
    (if abs(x) < 1.5e-8 { x } else { sh + sl }, ch + cl)
}
