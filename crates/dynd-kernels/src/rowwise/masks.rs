//! `argmax` and `argmin` of short rows through the registers' own compare
//! masks, for `float64` and `float32` on AVX-512 and AVX2.
//!
//! The portable block kernel ([`super::arg_extremes`]) finds a row's
//! extreme with a tree of selects and then its first lane as a bit mask
//! built lane by lane, which the compiler lowers to a horizontal OR of
//! shifted lanes: more instructions than the rest of the row together.
//! Here the mask is what the hardware gives: a `k` register (AVX-512) or
//! `movemask` (AVX2) per register of lanes, and the row's maximum is
//! spread to every lane by swapping halves, so that one compare per
//! register finds it. A NaN (which wins its row) is looked for with one
//! unordered compare per pair of registers, and only a row that has one
//! compares again for its first NaN.
//!
//! The results are the portable kernel's, row by row: the first lane
//! equal to the extreme (so `-0.0` and `0.0` are one value, the first
//! wins), the first NaN if there is one, -1 for an empty row.
//!
//! This module's `unsafe` is the loads: each reads one register's lanes
//! from a block of [`WIDE`] values that [`super::lanes`] found inside
//! the slice. The kernels themselves are safe functions with target
//! features; [`super::dispatch`] calls them only where
//! `Isa::active` found the features.

use std::arch::x86_64::*;

use super::{in_row, lanes, put, span, WIDE};
use crate::isa::Isa;

/// The AVX-512 registers of `float64` lanes.
mod z64 {
    use super::*;

    pub(super) type V = __m512d;
    pub(super) const LANES: usize = 8;

    /// Register `r` of `b`, its lanes past the row's `len` values `fill`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
    pub(super) fn load(b: &[f64; WIDE], r: usize, len: usize, fill: V) -> V {
        let keep = (((1u64 << len) - 1) >> (r * LANES)) as u8;
        let at = &b[r * LANES..][..LANES];
        // SAFETY: `at` is `LANES` values in bounds; the load reads no more.
        unsafe { _mm512_mask_loadu_pd(fill, keep, at.as_ptr()) }
    }

    /// The larger (`MAX`) or smaller of each pair of lanes (where one is
    /// a NaN, either: the NaN compare decides those rows).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
    pub(super) fn pick<const MAX: bool>(a: V, b: V) -> V {
        if MAX {
            _mm512_max_pd(a, b)
        } else {
            _mm512_min_pd(a, b)
        }
    }

    /// [`pick`] of all lanes, in every lane.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
    pub(super) fn spread<const MAX: bool>(m: V) -> V {
        let m = pick::<MAX>(m, _mm512_shuffle_f64x2::<0x4E>(m, m));
        let m = pick::<MAX>(m, _mm512_shuffle_f64x2::<0xB1>(m, m));
        pick::<MAX>(m, _mm512_permute_pd::<0x55>(m))
    }

    /// Bit `l` set where lane `l` of `a` equals `b`'s.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
    pub(super) fn equal(a: V, b: V) -> u64 {
        u64::from(_mm512_cmp_pd_mask::<_CMP_EQ_OQ>(a, b))
    }

    /// Bit `l` set where lane `l` of `a` or of `b` is a NaN.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
    pub(super) fn unordered(a: V, b: V) -> u64 {
        u64::from(_mm512_cmp_pd_mask::<_CMP_UNORD_Q>(a, b))
    }

    /// Every lane `x`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
    pub(super) fn splat(x: f64) -> V {
        _mm512_set1_pd(x)
    }
}

/// The AVX-512 registers of `float32` lanes.
mod z32 {
    use super::*;

    pub(super) type V = __m512;
    pub(super) const LANES: usize = 16;

    /// Register `r` of `b`, its lanes past the row's `len` values `fill`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
    pub(super) fn load(b: &[f32; WIDE], r: usize, len: usize, fill: V) -> V {
        let keep = (((1u64 << len) - 1) >> (r * LANES)) as u16;
        let at = &b[r * LANES..][..LANES];
        // SAFETY: `at` is `LANES` values in bounds; the load reads no more.
        unsafe { _mm512_mask_loadu_ps(fill, keep, at.as_ptr()) }
    }

    /// As `z64::pick`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
    pub(super) fn pick<const MAX: bool>(a: V, b: V) -> V {
        if MAX {
            _mm512_max_ps(a, b)
        } else {
            _mm512_min_ps(a, b)
        }
    }

    /// As `z64::spread`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
    pub(super) fn spread<const MAX: bool>(m: V) -> V {
        let m = pick::<MAX>(m, _mm512_shuffle_f32x4::<0x4E>(m, m));
        let m = pick::<MAX>(m, _mm512_shuffle_f32x4::<0xB1>(m, m));
        let m = pick::<MAX>(m, _mm512_permute_ps::<0x4E>(m));
        pick::<MAX>(m, _mm512_permute_ps::<0xB1>(m))
    }

    /// As `z64::equal`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
    pub(super) fn equal(a: V, b: V) -> u64 {
        u64::from(_mm512_cmp_ps_mask::<_CMP_EQ_OQ>(a, b))
    }

    /// As `z64::unordered`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
    pub(super) fn unordered(a: V, b: V) -> u64 {
        u64::from(_mm512_cmp_ps_mask::<_CMP_UNORD_Q>(a, b))
    }

    /// Every lane `x`.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
    pub(super) fn splat(x: f32) -> V {
        _mm512_set1_ps(x)
    }
}

/// The AVX2 registers of `float64` lanes.
mod y64 {
    use super::*;

    pub(super) type V = __m256d;
    pub(super) const LANES: usize = 4;

    /// Register `r` of `b`, its lanes past the row's `len` values `fill`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn load(b: &[f64; WIDE], r: usize, len: usize, fill: V) -> V {
        let at = &b[r * LANES..][..LANES];
        // SAFETY: `at` is `LANES` values in bounds; the load reads no more.
        let x = unsafe { _mm256_loadu_pd(at.as_ptr()) };
        let first = (r * LANES) as i64;
        let lane = _mm256_setr_epi64x(first, first + 1, first + 2, first + 3);
        let keep = _mm256_cmpgt_epi64(_mm256_set1_epi64x(len as i64), lane);
        _mm256_blendv_pd(fill, x, _mm256_castsi256_pd(keep))
    }

    /// As `z64::pick`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn pick<const MAX: bool>(a: V, b: V) -> V {
        if MAX {
            _mm256_max_pd(a, b)
        } else {
            _mm256_min_pd(a, b)
        }
    }

    /// As `z64::spread`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn spread<const MAX: bool>(m: V) -> V {
        let m = pick::<MAX>(m, _mm256_permute2f128_pd::<0x01>(m, m));
        pick::<MAX>(m, _mm256_permute_pd::<0b0101>(m))
    }

    /// As `z64::equal`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn equal(a: V, b: V) -> u64 {
        _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_EQ_OQ>(a, b)) as u64
    }

    /// As `z64::unordered`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn unordered(a: V, b: V) -> u64 {
        _mm256_movemask_pd(_mm256_cmp_pd::<_CMP_UNORD_Q>(a, b)) as u64
    }

    /// Every lane `x`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn splat(x: f64) -> V {
        _mm256_set1_pd(x)
    }
}

/// The AVX2 registers of `float32` lanes.
mod y32 {
    use super::*;

    pub(super) type V = __m256;
    pub(super) const LANES: usize = 8;

    /// Register `r` of `b`, its lanes past the row's `len` values `fill`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn load(b: &[f32; WIDE], r: usize, len: usize, fill: V) -> V {
        let at = &b[r * LANES..][..LANES];
        // SAFETY: `at` is `LANES` values in bounds; the load reads no more.
        let x = unsafe { _mm256_loadu_ps(at.as_ptr()) };
        let f = (r * LANES) as i32;
        let lane = _mm256_setr_epi32(f, f + 1, f + 2, f + 3, f + 4, f + 5, f + 6, f + 7);
        let keep = _mm256_cmpgt_epi32(_mm256_set1_epi32(len as i32), lane);
        _mm256_blendv_ps(fill, x, _mm256_castsi256_ps(keep))
    }

    /// As `z64::pick`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn pick<const MAX: bool>(a: V, b: V) -> V {
        if MAX {
            _mm256_max_ps(a, b)
        } else {
            _mm256_min_ps(a, b)
        }
    }

    /// As `z64::spread`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn spread<const MAX: bool>(m: V) -> V {
        let m = pick::<MAX>(m, _mm256_permute2f128_ps::<0x01>(m, m));
        let m = pick::<MAX>(m, _mm256_permute_ps::<0x4E>(m));
        pick::<MAX>(m, _mm256_permute_ps::<0xB1>(m))
    }

    /// As `z64::equal`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn equal(a: V, b: V) -> u64 {
        _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_EQ_OQ>(a, b)) as u64
    }

    /// As `z64::unordered`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn unordered(a: V, b: V) -> u64 {
        _mm256_movemask_ps(_mm256_cmp_ps::<_CMP_UNORD_Q>(a, b)) as u64
    }

    /// Every lane `x`.
    #[inline]
    #[target_feature(enable = "avx2,fma")]
    pub(super) fn splat(x: f32) -> V {
        _mm256_set1_ps(x)
    }
}

/// Generates `$name`: each row's first extreme (`MAX`: largest) of `$t`
/// into `out`, one `i64` per row (-1 for an empty row), or where `PAIRS`
/// two (the index and `there`, or two zeros), with the registers of `$r`.
macro_rules! kernel {
    ($name:ident, $t:ty, $r:ident, $features:literal) => {
        #[target_feature(enable = $features)]
        pub(super) fn $name<const MAX: bool, const PAIRS: bool>(
            xs: &[$t],
            offsets: &[i64],
            there: i64,
            out: &mut [i64],
        ) {
            const REGS: usize = WIDE / $r::LANES;
            let fill = $r::splat(if MAX {
                <$t>::NEG_INFINITY
            } else {
                <$t>::INFINITY
            });
            let width = if PAIRS { 2 } else { 1 };
            for (dst, o) in out.chunks_exact_mut(width).zip(offsets.windows(2)) {
                let (s, len) = span(o);
                let k = match lanes(xs, s) {
                    Some(b) if len <= WIDE => {
                        let mut v = [fill; REGS];
                        for (r, v) in v.iter_mut().enumerate() {
                            *v = $r::load(b, r, len, fill);
                        }
                        let mut m = v[0];
                        for &v in &v[1..] {
                            m = $r::pick::<MAX>(m, v);
                        }
                        let m = $r::spread::<MAX>(m);
                        let mut nan = 0;
                        for p in v.chunks_exact(2) {
                            nan |= $r::unordered(p[0], p[1]);
                        }
                        // The first lane equal to the extreme (fill lanes
                        // come after the row's), or where the row has a
                        // NaN, the first NaN.
                        let mut bits = 0u64;
                        for (r, &v) in v.iter().enumerate() {
                            bits |= $r::equal(v, m) << (r * $r::LANES);
                        }
                        if nan != 0 {
                            bits = 0;
                            for (r, &v) in v.iter().enumerate() {
                                bits |= $r::unordered(v, v) << (r * $r::LANES);
                            }
                        }
                        if len == 0 {
                            -1
                        } else {
                            bits.trailing_zeros() as i64
                        }
                    }
                    _ => xs
                        .get(s..s + len)
                        .and_then(in_row::<$t, MAX>)
                        .map_or(-1, |k| k as i64),
                };
                put::<PAIRS>(dst, k, there);
            }
        }
    };
}

kernel!(
    rows_f64_avx512,
    f64,
    z64,
    "avx512f,avx512dq,avx512vl,avx2,fma"
);
kernel!(
    rows_f32_avx512,
    f32,
    z32,
    "avx512f,avx512dq,avx512vl,avx2,fma"
);
kernel!(rows_f64_avx2, f64, y64, "avx2,fma");
kernel!(rows_f32_avx2, f32, y32, "avx2,fma");

/// Generates `$name`: [`super::arg_extremes`] of `$t` (or
/// [`super::arg_extremes_optional`] where `there` is given) on the mask
/// kernels of `isa`; `false`, with nothing written, for the portable set
/// or a set this CPU does not have.
macro_rules! chosen {
    ($name:ident, $t:ty, $z:ident, $y:ident) => {
        pub(super) fn $name(
            isa: Isa,
            xs: &[$t],
            offsets: &[i64],
            max: bool,
            there: Option<i64>,
            out: &mut [i64],
        ) -> bool {
            if !isa.available() {
                return false;
            }
            let t = there.unwrap_or(0);
            // SAFETY: the CPU has `isa`, and `Isa::Avx512` stands for the
            // features `$z` enables, `Isa::Avx2` for `$y`'s.
            unsafe {
                match (isa, max, there.is_some()) {
                    (Isa::Portable, ..) => return false,
                    (Isa::Avx512, true, false) => $z::<true, false>(xs, offsets, t, out),
                    (Isa::Avx512, false, false) => $z::<false, false>(xs, offsets, t, out),
                    (Isa::Avx512, true, true) => $z::<true, true>(xs, offsets, t, out),
                    (Isa::Avx512, false, true) => $z::<false, true>(xs, offsets, t, out),
                    (Isa::Avx2, true, false) => $y::<true, false>(xs, offsets, t, out),
                    (Isa::Avx2, false, false) => $y::<false, false>(xs, offsets, t, out),
                    (Isa::Avx2, true, true) => $y::<true, true>(xs, offsets, t, out),
                    (Isa::Avx2, false, true) => $y::<false, true>(xs, offsets, t, out),
                }
            }
            true
        }
    };
}

chosen!(f64_rows, f64, rows_f64_avx512, rows_f64_avx2);
chosen!(f32_rows, f32, rows_f32_avx512, rows_f32_avx2);
