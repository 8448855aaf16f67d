//! Vectorised elementary functions: the exponential, evaluated over whole
//! slices so that the compiler can run many lanes at once, and compiled
//! for the CPU it runs on (AVX-512 or AVX2 with FMA where the CPU has them,
//! chosen once per call; the baseline build elsewhere).
//!
//! The scalar libm call stops the compiler from vectorising a loop; the
//! functions here are written lane by lane without branches, so that a
//! loop over a slice becomes SIMD code.
//!
//! **Accuracy.** [`exp`] is within one ULP of the correctly rounded
//! result over the whole `f64` range (tested against the C library's `exp`
//! on random arguments and at the overflow and underflow edges); special
//! values are as C gives them: `exp(0) = 1`, `exp(-inf) = 0`, `exp(inf) =
//! inf`, NaN stays NaN, results past `f64::MAX` are `inf`, results below the
//! smallest subnormal are `0`. With FMA the last bit can differ from the
//! baseline build's (both within one ULP).
//!
//! **Method.** `x = k ln 2 + r` with `k = round(x / ln 2)` and `|r| <=
//! ln 2 / 2` (Cody and Waite's two-part `ln 2`, so `r` is exact to well
//! under an ULP), `exp(r)` by its Taylor polynomial to degree 13 (the
//! first term left out is below `2^-57` of the result), then `2^k` in two
//! exact halves so that results near overflow and subnormal results need
//! no branch.
//!
//! ```
//! use dynd::math;
//!
//! let mut v = [0.0, 1.0, -1.0, 709.0, f64::NEG_INFINITY];
//! math::exp_in_place(&mut v);
//! assert_eq!(v[0], 1.0);
//! assert!((v[1] - std::f64::consts::E).abs() <= f64::EPSILON * 2.0);
//! assert_eq!(v[4], 0.0);
//! assert_eq!(math::exp(2.0f64.ln()), 2.0);
//! ```

/// `1 / ln 2`.
const INV_LN2: f64 = std::f64::consts::LOG2_E;
/// `ln 2`'s leading bits (the last 21 of its 53 bits zero, so `k *
/// LN2_HI` is exact for every `k` this module makes).
const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
/// `ln 2 - LN2_HI`.
const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
/// `1.5 * 2^52`: added to a number of magnitude below `2^51`, it rounds
/// that number to an integer, which the low bits then hold.
const ROUND: f64 = 6_755_399_441_055_744.0;
/// Arguments are clamped to this range first: past it the result has
/// overflowed (above) or is below half the smallest subnormal (below),
/// and the clamped argument still overflows or underflows.
const X_MAX: f64 = 710.0;
const X_MIN: f64 = -746.0;

/// `1 / n!` for `n = 2..=13`, the Taylor coefficients after `1 + r`.
const C: [f64; 12] = {
    let mut c = [0.0; 12];
    let mut f = 1.0;
    let mut n = 2;
    while n <= 13 {
        f *= n as f64;
        c[n - 2] = 1.0 / f;
        n += 1;
    }
    c
};

/// `a * b + c`, fused where the build has FMA (one rounding), else two
/// operations (a library call for `mul_add` would be far slower).
#[inline(always)]
fn mul_add<const FMA: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FMA {
        a.mul_add(b, c)
    } else {
        a * b + c
    }
}

/// `2^n` for an integer `n` in `-1022..=1023` held in a float.
#[inline(always)]
fn pow2(n: f64) -> f64 {
    // `n + 1023` is an integer in 1..=2046: adding 2^52 puts it in the
    // low bits, and the shift moves it to the exponent field.
    f64::from_bits((n + 1023.0 + 4_503_599_627_370_496.0).to_bits() << 52)
}

/// `exp(x)`, lane by lane, without branches.
#[inline(always)]
fn exp_lane<const FMA: bool>(x: f64) -> f64 {
    // Clamped by selects (a NaN passes both and stays NaN throughout).
    let x = if x > X_MAX { X_MAX } else { x };
    let x = if x < X_MIN { X_MIN } else { x };
    let k = mul_add::<FMA>(x, INV_LN2, ROUND) - ROUND;
    let r = mul_add::<FMA>(-k, LN2_HI, x);
    let r = mul_add::<FMA>(-k, LN2_LO, r);
    let mut p = C[11];
    for &c in C[..11].iter().rev() {
        p = mul_add::<FMA>(p, r, c);
    }
    // 1 + r + r^2 p(r), summed small to large.
    let e = 1.0 + mul_add::<FMA>(r * r, p, r);
    // 2^k as two integer halves (`k / 2` rounded, by the same addition),
    // each a normal number's exponent for every `k` reached.
    let half = (k * 0.5 + ROUND) - ROUND;
    e * pow2(half) * pow2(k - half)
}

/// `exp(x)` as the functions over slices compute it (the baseline
/// build's rounding): within one ULP of the correctly rounded result.
pub fn exp(x: f64) -> f64 {
    exp_lane::<false>(x)
}

/// Replaces each element of `xs` with its exponential.
pub fn exp_in_place(xs: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, detected just above.
            return unsafe { exp_avx512(xs) };
        }
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            // SAFETY: the CPU has AVX2 and FMA, detected just above.
            return unsafe { exp_avx2(xs) };
        }
    }
    xs.iter_mut().for_each(|x| *x = exp_lane::<false>(*x));
}

/// Replaces each element of `xs` with its exponential, computed in `f64`
/// and rounded once (within one ULP of `f32`'s correctly rounded result).
pub fn exp_in_place_f32(xs: &mut [f32]) {
    let mut buf = [0.0f64; 256];
    for chunk in xs.chunks_mut(buf.len()) {
        let wide = &mut buf[..chunk.len()];
        wide.iter_mut()
            .zip(&*chunk)
            .for_each(|(w, &x)| *w = x as f64);
        exp_in_place(wide);
        chunk
            .iter_mut()
            .zip(&*wide)
            .for_each(|(x, &w)| *x = w as f32);
    }
}

/// [`exp_in_place`] for CPUs with AVX2 and FMA.
///
/// # Safety
///
/// The CPU has AVX2 and FMA.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn exp_avx2(xs: &mut [f64]) {
    xs.iter_mut().for_each(|x| *x = exp_lane::<true>(*x));
}

/// [`exp_in_place`] for CPUs with AVX-512F (which implies FMA).
///
/// # Safety
///
/// The CPU has AVX-512F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx2,fma")]
unsafe fn exp_avx512(xs: &mut [f64]) {
    xs.iter_mut().for_each(|x| *x = exp_lane::<true>(*x));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many representable doubles lie between `a` and `b`.
    fn ulps(a: f64, b: f64) -> u64 {
        if a == b || (a.is_nan() && b.is_nan()) {
            return 0;
        }
        let key = |x: f64| {
            let b = x.to_bits() as i64;
            if b < 0 {
                i64::MIN - b
            } else {
                b
            }
        };
        key(a).abs_diff(key(b))
    }

    fn xorshift(s: &mut u64) -> u64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    /// Both builds (the dispatched slice loop and the scalar baseline)
    /// within one ULP of the C library on random arguments over the
    /// whole range and near the edges.
    #[test]
    fn within_one_ulp_of_libm() {
        let mut s = 0x2545_f491_4f6c_dd1d;
        let mut xs: Vec<f64> = (0..200_000)
            .map(|i| {
                let u = (xorshift(&mut s) >> 11) as f64 / (1u64 << 53) as f64;
                match i % 4 {
                    0 => -745.2 + u * (709.8 + 745.2),
                    1 => -1.0 + 2.0 * u,
                    2 => 709.0 + u * 0.8,
                    _ => -745.2 + u * 37.0,
                }
            })
            .collect();
        xs.extend([
            709.782712893384,
            709.7827128933841,
            -745.1332191019411,
            -745.14,
            -708.4,
        ]);
        let mut got = xs.clone();
        exp_in_place(&mut got);
        for (&x, &g) in xs.iter().zip(&got) {
            let want = x.exp();
            assert!(ulps(g, want) <= 1, "exp({x:e}) = {g:e}, libm {want:e}");
            assert!(ulps(exp(x), want) <= 1, "scalar exp({x:e})");
        }
    }

    #[test]
    fn special_values() {
        let mut v = [
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            1e300,
            -1e300,
        ];
        exp_in_place(&mut v);
        assert_eq!(v[..4], [1.0, 1.0, f64::INFINITY, 0.0]);
        assert!(v[4].is_nan());
        assert_eq!(v[5..], [f64::INFINITY, 0.0]);
        let mut f = [0.0f32, 1.0, -104.0, 89.0, f32::NAN];
        exp_in_place_f32(&mut f);
        assert_eq!(f[0], 1.0);
        assert_eq!(f[1], std::f32::consts::E);
        assert_eq!(f[2], (-104.0f32).exp());
        assert_eq!(f[3], f32::INFINITY);
        assert!(f[4].is_nan());
    }
}
