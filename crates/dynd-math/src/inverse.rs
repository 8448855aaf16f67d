//! The inverse functions: `arctan`, `arctan2`, `arcsin`, `arccos`,
//! `arcsinh`, `arccosh`, `arctanh`, and `cbrt` and `hypot`.
//!
//! The inverse trigonometric functions share one kernel, the arctangent
//! of a double-double `t` in `[0, 1]`: `t` is split at the nearest
//! `c = i/16`, `atan t = atan c + atan((t - c) / (1 + t c))`, with
//! `atan(i/16)` from a table of double-doubles and the second argument
//! below `1/32`, where seven terms of the Taylor series reach `2^-70`.
//! The arguments that reach it are formed exactly or as double-doubles
//! (`1/x`, `y/x`, `sqrt(1 - x^2)` from `(1 - x)(1 + x)`), and the
//! constants `pi/2` and `pi` it is subtracted from are double-doubles
//! too. The inverse hyperbolic functions are logarithms of double-double
//! arguments (`x + sqrt(x^2 + 1)`, `(1 + x)/(1 - x)`) through the
//! double-double logarithm `pow` uses. `cbrt` refines a first guess by
//! Halley's iteration and one last Newton step in double-double; `hypot`
//! takes the square root of `x^2 + y^2` formed exactly after scaling.

use crate::log::log_dd;
use crate::ops::*;

/// `atan(i/16)` as double-doubles, `i = 0..=16`, padded to 32 entries
/// (the index is masked to 5 bits, so no bounds check is needed).
const ATAN: [(f64, f64); 32] = {
    let t = [
        (
            f64::from_bits(0x0000000000000000),
            f64::from_bits(0x0000000000000000),
        ),
        (
            f64::from_bits(0x3faff55bb72cfdea),
            f64::from_bits(0xbc3c934d86d23f1d),
        ),
        (
            f64::from_bits(0x3fbfd5ba9aac2f6e),
            f64::from_bits(0xbc4cd37686760c17),
        ),
        (
            f64::from_bits(0x3fc7b97b4bce5b02),
            f64::from_bits(0x3c5347b0b4f881ca),
        ),
        (
            f64::from_bits(0x3fcf5b75f92c80dd),
            f64::from_bits(0x3c68ab6e3cf7afbd),
        ),
        (
            f64::from_bits(0x3fd362773707ebcc),
            f64::from_bits(0xbc6963a544b672d8),
        ),
        (
            f64::from_bits(0x3fd6f61941e4def1),
            f64::from_bits(0xbc7c63aae6f6e918),
        ),
        (
            f64::from_bits(0x3fda64eec3cc23fd),
            f64::from_bits(0xbc724dec1b50b7ff),
        ),
        (
            f64::from_bits(0x3fddac670561bb4f),
            f64::from_bits(0x3c7a2b7f222f65e2),
        ),
        (
            f64::from_bits(0x3fe0657e94db30d0),
            f64::from_bits(0xbc7d5b495f6349e6),
        ),
        (
            f64::from_bits(0x3fe1e00babdefeb4),
            f64::from_bits(0xbc5928df287a668f),
        ),
        (
            f64::from_bits(0x3fe345f01cce37bb),
            f64::from_bits(0x3c81021137c71102),
        ),
        (
            f64::from_bits(0x3fe4978fa3269ee1),
            f64::from_bits(0x3c72419a87f2a458),
        ),
        (
            f64::from_bits(0x3fe5d58987169b18),
            f64::from_bits(0x3c60028e4bc5e7ca),
        ),
        (
            f64::from_bits(0x3fe700a7c5784634),
            f64::from_bits(0xbc78c34d25aadef6),
        ),
        (
            f64::from_bits(0x3fe819d0b7158a4d),
            f64::from_bits(0xbc7bf76229d3b917),
        ),
        (
            f64::from_bits(0x3fe921fb54442d18),
            f64::from_bits(0x3c81a62633145c07),
        ),
    ];
    let mut a = [(0.0, 0.0); 32];
    let mut i = 0;
    while i < 17 {
        a[i] = t[i];
        i += 1;
    }
    a
};

/// `pi/2` and `pi` as double-doubles.
const PIO2: (f64, f64) = (
    f64::from_bits(0x3ff9_21fb_5444_2d18),
    f64::from_bits(0x3c91_a626_3314_5c07),
);
const PI: (f64, f64) = (
    f64::from_bits(0x4009_21fb_5444_2d18),
    f64::from_bits(0x3ca1_a626_3314_5c07),
);

/// `(-1)^n / (2n+1)` for `n = 1..=7`.
const T: [f64; 7] = {
    let mut c = [0.0; 7];
    let mut n = 1;
    while n <= 7 {
        let v = 1.0 / (2 * n + 1) as f64;
        c[n - 1] = if n % 2 == 1 { -v } else { v };
        n += 1;
    }
    c
};

/// `atan(t + tl)` as a double-double, for `0 <= t <= 1` (`tl` small).
#[inline(always)]
fn atan_unit<const FMA: bool>(t: f64, tl: f64) -> (f64, f64) {
    let i = ((16.0 * t + ROUND).to_bits() & 31) as usize;
    let c = i as f64 * 0.0625;
    // u = (t - c) / (1 + t c), numerator and denominator as double-doubles.
    let (n, nl) = two_sum(t, -c);
    let (p, pe) = two_prod::<FMA>(t, c);
    let (d, dl) = fast_two_sum(1.0, p);
    let (u, ul) = dd_div::<FMA>(n, nl + tl, d, dl + pe + tl * c);
    let z = u * u;
    let poly = u * z * horner::<FMA, 7>(z, &T);
    let (a, al) = ATAN[i];
    let (s, se) = fast_two_sum(a, u);
    fast_two_sum(s, se + al + ul + poly)
}

/// `(a + al) - (b + bl)` for `a >= b >= 0`, as a double-double.
#[inline(always)]
fn dd_sub(a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
    let (s, e) = fast_two_sum(a.0, -b.0);
    fast_two_sum(s, e + (a.1 - b.1))
}

/// `atan(n / d)` for `0 <= n, d` (not both zero, finite), as a
/// double-double in `[0, pi/2]`.
#[inline(always)]
fn atan_ratio<const FMA: bool>(n: (f64, f64), d: (f64, f64)) -> (f64, f64) {
    let swap = n.0 > d.0;
    let (num, den) = if swap { (d, n) } else { (n, d) };
    let (t, tl) = dd_div::<FMA>(num.0, num.1, den.0, den.1);
    let r = atan_unit::<FMA>(t, tl);
    if swap {
        dd_sub(PIO2, r)
    } else {
        r
    }
}

/// The exponent of a finite positive `x` (subnormals included): `x` is
/// in `[2^e, 2^(e+1))`.
#[inline(always)]
fn exponent(x: f64) -> f64 {
    let sub = x < f64::MIN_POSITIVE;
    let xs = if sub { x * 18_014_398_509_481_984.0 } else { x };
    ((xs.to_bits() >> 52) as i64 - 1023) as f64 - if sub { 54.0 } else { 0.0 }
}

/// Scales `a` and `b` by one power of two so that the larger is in
/// `[1, 2)`: the exact products in the double-double steps then neither
/// overflow nor underflow (a smaller one that underflows was below the
/// last bit of the result).
#[inline(always)]
fn normalise(a: f64, b: f64) -> (f64, f64) {
    let e = exponent(if a > b { a } else { b });
    (scale(a, -e), scale(b, -e))
}

/// `arctan(x)`.
#[inline(always)]
pub(crate) fn atan<const FMA: bool>(x: f64) -> f64 {
    let ax = abs(x);
    let big = ax > 1.0;
    let (n, d) = normalise(if big { 1.0 } else { ax }, if big { ax } else { 1.0 });
    let (h, l) = atan_ratio::<FMA>((n, 0.0), (d, 0.0));
    let (h, l) = if big { dd_sub(PIO2, (h, l)) } else { (h, l) };
    let r = h + l;
    // Past 2^60 the ratio is below the last bit of pi/2's; tiny
    // arguments (and -0) are their own arctangent.
    let r = if ax > 1.2e18 { PIO2.0 } else { r };
    let r = if ax < 1e-9 { ax } else { r };
    copysign(r, x)
}

/// Whether `atan2(y, x)` is left to the C library: a zero, infinite or
/// NaN argument (where C's results are exact constants).
#[inline(always)]
pub(crate) fn atan2_is_edge(y: f64, x: f64) -> bool {
    let ok = |v: f64| abs(v) < f64::INFINITY && abs(v) > 0.0;
    !(ok(y) && ok(x))
}

/// `arctan2(y, x)` for finite nonzero arguments.
#[inline(always)]
pub(crate) fn atan2_main<const FMA: bool>(y: f64, x: f64) -> f64 {
    let (ay, ax) = normalise(abs(y), abs(x));
    let r = atan_ratio::<FMA>((ay, 0.0), (ax, 0.0));
    let (h, l) = if x < 0.0 { dd_sub(PI, r) } else { r };
    copysign(h + l, y)
}

/// `sqrt(1 - x^2)` as a double-double, for `0 <= x <= 1`.
#[inline(always)]
fn sqrt_one_minus_sq<const FMA: bool>(x: f64) -> (f64, f64) {
    // 1 - x^2 = (1 - x)(1 + x): both factors exact as double-doubles.
    let (a, al) = two_sum(1.0, -x);
    let (b, bl) = two_sum(1.0, x);
    let (w, wl) = dd_mul::<FMA>(a, al, b, bl);
    dd_sqrt::<FMA>(w, wl)
}

/// `sqrt(w + wl)` as a double-double (0 for 0).
#[inline(always)]
fn dd_sqrt<const FMA: bool>(w: f64, wl: f64) -> (f64, f64) {
    let s = w.sqrt();
    let (ss, se) = two_prod::<FMA>(s, s);
    let c = (((w - ss) - se) + wl) / (2.0 * s);
    if s > 0.0 {
        fast_two_sum(s, c)
    } else {
        (s, 0.0)
    }
}

/// `arcsin(x)`.
#[inline(always)]
pub(crate) fn asin<const FMA: bool>(x: f64) -> f64 {
    let ax = abs(x);
    let s = sqrt_one_minus_sq::<FMA>(if ax > 1.0 { 0.0 } else { ax });
    let (h, l) = atan_ratio::<FMA>((ax, 0.0), s);
    let r = if ax < 1e-9 { ax } else { h + l };
    let r = if ax > 1.0 { f64::NAN } else { r };
    copysign(r, x)
}

/// `arccos(x)`.
#[inline(always)]
pub(crate) fn acos<const FMA: bool>(x: f64) -> f64 {
    let ax = abs(x);
    let s = sqrt_one_minus_sq::<FMA>(if ax > 1.0 { 0.0 } else { ax });
    let r = atan_ratio::<FMA>(s, (ax, 0.0));
    let (h, l) = if x < 0.0 { dd_sub(PI, r) } else { r };
    if ax > 1.0 {
        f64::NAN
    } else {
        h + l
    }
}

/// `log(a + al)` for a positive double-double, rounded once.
#[inline(always)]
fn log_of_dd<const FMA: bool>(a: f64, al: f64) -> (f64, f64) {
    let (h, l) = log_dd::<FMA>(a);
    fast_two_sum(h, l + al / a)
}

/// `h + l`, plus `ln 2` where `add`, rounded once.
#[inline(always)]
fn plus_ln2_if(add: bool, (h, l): (f64, f64)) -> f64 {
    let (bh, be) = two_sum(h, LN2);
    let bl = be + l + LN2_ERR;
    if add {
        bh + bl
    } else {
        h + l
    }
}

/// `arcsinh(x)`.
#[inline(always)]
pub(crate) fn asinh<const FMA: bool>(x: f64) -> f64 {
    let ax = abs(x);
    let big = ax > 1e150;
    let a = if big { 1.0 } else { ax };
    // log(|x| + sqrt(x^2 + 1)), the argument as a double-double.
    let (p, pe) = two_prod::<FMA>(a, a);
    let (w, we) = two_sum(p, 1.0);
    let (s, sl) = dd_sqrt::<FMA>(w, we + pe);
    let (g, gl) = two_sum(a, s);
    // Past 1e150, sqrt(x^2 + 1) is |x| to far below the last bit:
    // log(2|x|) = log|x| + ln 2. One logarithm either way (a loop with
    // two table lookups per element is not vectorised on AVX2).
    let (g, gl) = if big { (ax, 0.0) } else { (g, gl + sl) };
    let r = plus_ln2_if(big, log_of_dd::<FMA>(g, gl));
    let r = if ax < 1e-9 { ax } else { r };
    let r = if ax == f64::INFINITY { ax } else { r };
    copysign(r, x)
}

/// `arccosh(x)`.
#[inline(always)]
pub(crate) fn acosh<const FMA: bool>(x: f64) -> f64 {
    let big = x > 1e150;
    let a = if big || x.is_nan() || x < 1.0 { 1.0 } else { x };
    // log(x + sqrt(x^2 - 1)).
    let (p, pe) = two_prod::<FMA>(a, a);
    let (w, we) = two_sum(p, -1.0);
    let (s, sl) = dd_sqrt::<FMA>(w, we + pe);
    let (g, gl) = two_sum(a, s);
    // Past 1e150, log(2x) = log x + ln 2, as in `asinh`.
    let (g, gl) = if big { (x, 0.0) } else { (g, gl + sl) };
    let r = plus_ln2_if(big, log_of_dd::<FMA>(g, gl));
    let r = if x == f64::INFINITY { x } else { r };
    if x >= 1.0 {
        r
    } else {
        f64::NAN
    }
}

/// `arctanh(x)`.
#[inline(always)]
pub(crate) fn atanh<const FMA: bool>(x: f64) -> f64 {
    let ax = abs(x);
    let a = if ax >= 1.0 { 0.5 } else { ax };
    // log((1 + x) / (1 - x)) / 2.
    let (n, nl) = two_sum(1.0, a);
    let (d, dl) = two_sum(1.0, -a);
    let (q, ql) = dd_div::<FMA>(n, nl, d, dl);
    let (h, l) = log_of_dd::<FMA>(q, ql);
    let r = 0.5 * (h + l);
    let r = if ax < 1e-9 { ax } else { r };
    let r = if ax == 1.0 { f64::INFINITY } else { r };
    let r = if ax > 1.0 { f64::NAN } else { r };
    copysign(r, x)
}

/// `cbrt(x)`.
#[inline(always)]
pub(crate) fn cbrt<const FMA: bool>(x: f64) -> f64 {
    let ax = abs(x);
    // Subnormals scaled by 2^54 (whose cube root is 2^18).
    let sub = ax < f64::MIN_POSITIVE;
    let a = if sub {
        ax * 18_014_398_509_481_984.0
    } else {
        ax
    };
    let a = if a > 0.0 && a < f64::INFINITY { a } else { 1.0 };
    let bits = a.to_bits();
    let e = ((bits >> 52) as i64 - 1023) as f64;
    let m = f64::from_bits((bits & 0x000f_ffff_ffff_ffff) | 0x3ff0_0000_0000_0000);
    // e = 3q + r with r in {0, 1, 2}: cbrt(x) = 2^q cbrt(m 2^r).
    let q = round((e - 1.0) * (1.0 / 3.0));
    let r = e - 3.0 * q;
    let m = m * pow2(r);
    // A first guess on [1, 8), then Halley's iteration (cubic: 2^-3,
    // 2^-9, 2^-27, below 2^-80), then a Newton step with y^3 exact.
    let mut y = fma::<FMA>(m, 1.0 / 7.0, 6.0 / 7.0);
    for _ in 0..4 {
        let y3 = y * y * y;
        y *= fma::<FMA>(2.0, m, y3) / fma::<FMA>(2.0, y3, m);
    }
    let (y2, y2e) = two_prod::<FMA>(y, y);
    let (y3, y3e) = two_prod::<FMA>(y2, y);
    let y3e = y3e + y2e * y;
    let y = y - ((y3 - m) + y3e) / (3.0 * y2);
    let r = scale(y, q - if sub { 18.0 } else { 0.0 });
    let r = if ax > 0.0 && ax < f64::INFINITY {
        r
    } else {
        ax
    };
    copysign(r, x)
}

/// Whether `hypot(x, y)` is left to the C library: an infinite or NaN
/// argument, or both zero.
#[inline(always)]
pub(crate) fn hypot_is_edge(x: f64, y: f64) -> bool {
    !(abs(x) < f64::INFINITY && abs(y) < f64::INFINITY && (abs(x) > 0.0 || abs(y) > 0.0))
}

/// `hypot(x, y)` for finite arguments, not both zero.
#[inline(always)]
pub(crate) fn hypot_main<const FMA: bool>(x: f64, y: f64) -> f64 {
    let (ax, ay) = (abs(x), abs(y));
    let (b, s) = if ax > ay { (ax, ay) } else { (ay, ax) };
    // The larger scaled into [1, 2).
    let e = exponent(b);
    let (b, s) = (scale(b, -e), scale(s, -e));
    let (p, pe) = two_prod::<FMA>(b, b);
    let (q, qe) = two_prod::<FMA>(s, s);
    let (w, we) = fast_two_sum(p, q);
    let (r, rl) = dd_sqrt::<FMA>(w, we + pe + qe);
    scale(r + rl, e)
}
