//! The loops over slices, compiled once per instruction set and chosen at
//! run time. This is the crate's only `unsafe` code: calling a function
//! compiled for AVX2 or AVX-512 is sound only on a CPU that has it, which
//! [`Isa::available`] checks before every such call; and the loops
//! written with AVX-512 intrinsics (`log`, `exp`, `tanh` and two of
//! `pow`'s passes, from tables in registers where the compiler would
//! gather from memory) load and store through pointers to slices they
//! have bounds-checked.

use crate::{exp, inverse, log, single, trig, Binary, Isa, Unary};

/// Elements per chunk of the fix-up pass: a chunk's source is read again,
/// from cache, for the lanes that need the slow path.
const CHUNK: usize = 1024;

/// `float32` values widened per pass: small buffers, which every call
/// zeroes (a short call should not pay for kilobytes).
const WIDE: usize = 128;

/// Elements per pass of `pow`'s staged loop, as [`WIDE`].
const STAGE: usize = 128;

/// Elements staged on the stack per call of an out-of-place loop by an
/// in-place one (8 KB, within the first level cache): each call picks
/// its loop and loads its tables again (at 128 elements a call, an
/// in-place `exp` of 1e4 values took 10.5-10.8 us, at 1024 9.9-10.1;
/// `pow` 29.5 against 26.5-27).
const IN_PLACE: usize = 1024;

// The loops below are macros and plain `for` loops, not iterator
// adaptors with closures: an adaptor that the compiler declines to
// inline is compiled without the caller's target features, and its
// `mul_add`s become library calls.
//
// Every loop reads a source slice and writes a destination slice of the
// same length: a result computed where it is stored, with no copy of the
// arguments first (an out-of-place call on a large array would otherwise
// move its bytes twice). The in-place forms stage a chunk at a time on
// the stack (`in_place!`).

/// `$dst[i] = $lane($src[i])`.
macro_rules! each {
    ($src:expr, $dst:expr, $lane:expr) => {{
        let (src, dst): (&[f64], &mut [f64]) = ($src, $dst);
        let n = src.len().min(dst.len());
        let (src, dst) = (&src[..n], &mut dst[..n]);
        for i in 0..n {
            dst[i] = $lane(src[i]);
        }
    }};
}

/// [`each!`] a chunk at a time, then `$slow` for the arguments past the
/// vector path (`$is_edge`), read again from the source chunk while it
/// is in cache.
macro_rules! with_edges {
    ($src:expr, $dst:expr, $lane:expr, $is_edge:expr, $slow:expr) => {{
        let (src, dst): (&[f64], &mut [f64]) = ($src, $dst);
        for (src, dst) in src.chunks(CHUNK).zip(dst.chunks_mut(CHUNK)) {
            each!(src, &mut *dst, $lane);
            // Most chunks have no such argument: checked in bulk (a fold,
            // not `any`, whose early exit does not vectorise).
            if src.iter().fold(false, |e, &x| e | $is_edge(x)) {
                fix_edges(dst, src, $is_edge, $slow);
            }
        }
    }};
}

/// A function of two arguments: the vector pass, then `$edge` for the
/// pairs `$is_edge` picks out (zeros, infinities, NaNs).
macro_rules! binary_loop {
    ($xs:expr, $ys:expr, $dst:expr, $main:expr, $is_edge:expr, $edge:expr) => {{
        let (xs, ys, dst): (&[f64], &[f64], &mut [f64]) = ($xs, $ys, $dst);
        let chunks = xs.chunks(CHUNK).zip(ys.chunks(CHUNK));
        for ((xs, ys), dst) in chunks.zip(dst.chunks_mut(CHUNK)) {
            let n = xs.len().min(ys.len()).min(dst.len());
            let (xs, ys, dst) = (&xs[..n], &ys[..n], &mut dst[..n]);
            for i in 0..n {
                dst[i] = $main(xs[i], ys[i]);
            }
            if xs
                .iter()
                .zip(ys)
                .fold(false, |e, (&x, &y)| e | $is_edge(x, y))
            {
                fix_edges2(dst, xs, ys, $is_edge, $edge);
            }
        }
    }};
}

/// `pow` over slices, in passes over each block of [`STAGE`] elements:
/// the table lookup of `log|x|`, the rest of `y log|x|` and the sign,
/// then `exp`. Run as one loop, each element's work is one long serial
/// chain that the processor cannot overlap with the next element's; the
/// passes are each short enough that it does (about 15% faster on
/// AVX-512). On AVX-512 the first two are one pass with the table in
/// registers ([`pow_log_avx512`]), and `exp` is [`exp8`]
/// ([`pow_exp_avx512`]). The rare lanes `exp_dd_normal` does not cover,
/// among them every special argument (`log::pow_index` makes their
/// logarithm NaN), are then redone by the general path.
#[inline(always)]
fn pow_loop<const FMA: bool, const AVX512: bool>(xs: &[f64], ys: &[f64], dst: &mut [f64]) {
    let (mut t, mut tl, mut sign) = ([0.0; STAGE], [0.0; STAGE], [0.0; STAGE]);
    let (mut idx, mut edge) = ([0u64; STAGE], [0.0; STAGE]);
    let mut parts = [[0.0; STAGE]; 4];
    let chunks = xs.chunks(STAGE).zip(ys.chunks(STAGE));
    for ((xs, ys), dst) in chunks.zip(dst.chunks_mut(STAGE)) {
        let n = xs.len().min(ys.len()).min(dst.len());
        let (xs, ys, dst) = (&xs[..n], &ys[..n], &mut dst[..n]);
        let (t, tl, sign) = (&mut t[..n], &mut tl[..n], &mut sign[..n]);
        let mut any = false;
        #[cfg(target_arch = "x86_64")]
        if AVX512 {
            // SAFETY: `AVX512` is set only in the AVX-512 build of these
            // loops, which runs only where `Isa::available` found it.
            any = unsafe {
                pow_log_avx512(xs, ys, t, tl, sign);
                pow_exp_avx512(t, tl, sign, dst)
            };
        }
        if !AVX512 || cfg!(not(target_arch = "x86_64")) {
            let (idx, edge) = (&mut idx[..n], &mut edge[..n]);
            // The lookup's parts one array each: an array of `[f64; 4]`
            // would be read and written with shuffles.
            let [p0, p1, p2, p3] = &mut parts;
            let (p0, p1, p2, p3) = (&mut p0[..n], &mut p1[..n], &mut p2[..n], &mut p3[..n]);
            for i in 0..n {
                (idx[i], p0[i], p1[i], edge[i]) = log::pow_index(xs[i]);
            }
            for i in 0..n {
                (p2[i], p3[i]) = log::log_dd_entry(idx[i]);
            }
            for i in 0..n {
                let parts = [p0[i], p1[i], p2[i] + edge[i], p3[i]];
                (t[i], tl[i]) = log::pow_log_finish::<FMA>(parts, ys[i]);
                sign[i] = log::pow_sign(xs[i], ys[i]);
            }
            for i in 0..n {
                dst[i] = sign[i] * exp::exp_dd_normal::<FMA>(t[i], tl[i]);
                any |= !log::pow_exp_covers(t[i], tl[i]);
            }
        }
        if any {
            // Through an opaque pointer, as in `fix_edges`.
            let slow = std::hint::black_box(log::pow::<FMA> as fn(f64, f64) -> f64);
            for i in 0..n {
                if !log::pow_exp_covers(t[i], tl[i]) {
                    dst[i] = slow(xs[i], ys[i]);
                }
            }
        }
    }
}

/// `pow`'s first passes on AVX-512, as one: `(t, tl) = y log|x|` as a
/// double-double and the sign ([`pow_log8`]), eight lanes at a time;
/// `t` NaN for a zero, subnormal, infinite or NaN `x` or one from
/// [`log::LOG_TOP`] up, so that
/// [`pow_exp_avx512`] sends those to the general path.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn pow_log_avx512(xs: &[f64], ys: &[f64], t: &mut [f64], tl: &mut [f64], sign: &mut [f64]) {
    let n = xs
        .len()
        .min(ys.len())
        .min(t.len())
        .min(tl.len())
        .min(sign.len());
    let (xs, ys) = (&xs[..n], &ys[..n]);
    let (t, tl, sign) = (&mut t[..n], &mut tl[..n], &mut sign[..n]);
    let table = table_avx512();
    // One loop with the test for the last part in it (with the last part
    // apart, the compiler calls a closure per group), two groups an
    // iteration (the second may be the last part, or the last element
    // again where there is no second group): the two chains overlap
    // better than the processor overlaps one iteration's with the next
    // (2.50 -> 2.40 ns a value; `exp`'s pass gained nothing so, and
    // `log`'s loop lost 20 %).
    for i in (0..n).step_by(16) {
        let j = (i + 8).min(n - 1);
        let (a, b, s) = pow_log8(load8(xs, i, 1.0), load8(ys, i, 1.0), &table);
        let (a2, b2, s2) = pow_log8(load8(xs, j, 1.0), load8(ys, j, 1.0), &table);
        store8(t, i, a);
        store8(tl, i, b);
        store8(sign, i, s);
        store8(t, j, a2);
        store8(tl, j, b2);
        store8(sign, j, s2);
    }
}

/// `y log|x| = t + tl` and `x^y`'s sign (`log::pow_sign`) for eight
/// lanes: `log::pow_log_finish` after `log::log_dd_lookup`, with the
/// table from registers ([`log_reduce8`]) and the series as two Horner
/// chains; `t` NaN where `|x|` is not normal or is at or past
/// [`log::LOG_TOP`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
#[inline]
fn pow_log8(
    x: std::arch::x86_64::__m512d,
    y: std::arch::x86_64::__m512d,
    table: &[std::arch::x86_64::__m512d; 8],
) -> (
    std::arch::x86_64::__m512d,
    std::arch::x86_64::__m512d,
    std::arch::x86_64::__m512d,
) {
    use crate::ops::{LN2_HI, LN2_LO};
    use std::arch::x86_64::*;
    let f = _mm512_set1_pd;
    let ([k, r, logc, tail], edge) = log_reduce8(_mm512_abs_pd(x), table);
    // k ln 2 + log c + r - r^2/2, each sum carried exactly, as
    // `log_dd_finish` has it.
    let a = _mm512_fmadd_pd(k, f(LN2_HI), logc);
    let b = _mm512_add_pd(a, r);
    let be = _mm512_sub_pd(r, _mm512_sub_pd(b, a));
    let h = _mm512_mul_pd(f(-0.5), r);
    let q = _mm512_mul_pd(h, r);
    let qe = _mm512_fmsub_pd(h, r, q);
    let s = _mm512_add_pd(b, q);
    let se = _mm512_sub_pd(q, _mm512_sub_pd(s, b));
    // r^3 (1/3 - r/4 + … - r^9/12), as two Horner chains joined by r^5.
    let series = &log::LOG1P_TAIL;
    let r2 = _mm512_mul_pd(r, r);
    let r3 = _mm512_mul_pd(r2, r);
    let r5 = _mm512_mul_pd(r3, r2);
    let p = _mm512_fmadd_pd(horner8(r, &series[5..]), r5, horner8(r, &series[..5]));
    // The small parts that do not wait for the series summed beside it.
    let rest = _mm512_add_pd(qe, _mm512_fmadd_pd(k, f(LN2_LO), tail));
    let lo = _mm512_fmadd_pd(r3, p, _mm512_add_pd(_mm512_add_pd(be, se), rest));
    let l = _mm512_add_pd(s, lo);
    let ll = _mm512_sub_pd(lo, _mm512_sub_pd(l, s));
    // y (l + ll): the leading product exact.
    let t = _mm512_mul_pd(y, l);
    let tl = _mm512_fmadd_pd(y, ll, _mm512_fmsub_pd(y, l, t));
    let t = _mm512_mask_blend_pd(edge, t, f(f64::NAN));
    // The sign: -1 for a negative x and an odd integer y, NaN for a
    // negative x and a non-integer y (rounding to an integer changes
    // nothing for an integer; every float past 2^53 is even).
    const NEAREST: i32 = _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC;
    let ay = _mm512_abs_pd(y);
    let integer = _mm512_cmp_pd_mask::<_CMP_EQ_OQ>(_mm512_roundscale_pd::<NEAREST>(ay), ay);
    let half = _mm512_mul_pd(f(0.5), ay);
    let odd = _mm512_mask_cmp_pd_mask::<_CMP_NEQ_UQ>(
        integer,
        _mm512_roundscale_pd::<NEAREST>(half),
        half,
    );
    let neg = _mm512_cmp_pd_mask::<_CMP_LT_OQ>(x, _mm512_setzero_pd());
    let sign = _mm512_mask_blend_pd(neg & odd, f(1.0), f(-1.0));
    let sign = _mm512_mask_blend_pd(neg & !integer, sign, f(f64::NAN));
    (t, tl, sign)
}

/// `pow`'s last pass on AVX-512: `dst[i] = sign[i] e^(t[i] + tl[i])`
/// ([`exp8`]), eight lanes at a time (a last part of fewer staged in a
/// full vector), and whether any `t + tl` is outside what [`exp8`]
/// covers (`log::pow_exp_covers`), for the caller to redo.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn pow_exp_avx512(t: &[f64], tl: &[f64], sign: &[f64], dst: &mut [f64]) -> bool {
    use std::arch::x86_64::*;
    let n = t.len().min(tl.len()).min(sign.len()).min(dst.len());
    let (t, tl, sign, dst) = (&t[..n], &tl[..n], &sign[..n], &mut dst[..n]);
    let table = table16_avx512();
    let mut rare = 0;
    for i in (0..n).step_by(8) {
        let (t, tl) = (load8(t, i, 0.0), load8(tl, i, 0.0));
        // Not |t + tl| < 708, or NaN.
        let sum = _mm512_abs_pd(_mm512_add_pd(t, tl));
        rare |= _mm512_cmp_pd_mask::<_CMP_NLT_UQ>(sum, _mm512_set1_pd(708.0));
        let y = _mm512_mul_pd(load8(sign, i, 0.0), exp8(t, tl, &table));
        store8(dst, i, y);
    }
    rare != 0
}

/// `log_dd`'s table in eight registers: the `logc` column in four, then
/// the `packed` one ([`log::TABLE_COLUMNS`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn table_avx512() -> [std::arch::x86_64::__m512d; 8] {
    registers(&log::TABLE_COLUMNS)
}

/// Two columns of a table as `R` registers of eight floats, the first
/// column's then the second's.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn registers<const N: usize, const R: usize>(
    columns: &[[f64; N]; 2],
) -> [std::arch::x86_64::__m512d; R] {
    let per = N / 8;
    std::array::from_fn(|i| load8(&columns[i / per], i % per * 8, 0.0))
}

/// Entries `j % 32` of the table in registers ([`table_avx512`]), eight
/// lanes: `(logc, packed)`. Bits 0-3 of an index pick one of 16 entries
/// (two permutes), bit 4 the half of the table (a blend).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn lookup_avx512(
    table: &[std::arch::x86_64::__m512d; 8],
    j: std::arch::x86_64::__m512i,
) -> (std::arch::x86_64::__m512d, std::arch::x86_64::__m512d) {
    use std::arch::x86_64::*;
    let high = _mm512_test_epi64_mask(j, _mm512_set1_epi64(16));
    let pick = |a: __m512d, b: __m512d, c: __m512d, d: __m512d| {
        _mm512_mask_blend_pd(
            high,
            _mm512_permutex2var_pd(a, j, b),
            _mm512_permutex2var_pd(c, j, d),
        )
    };
    let [l0, l1, l2, l3, q0, q1, q2, q3] = *table;
    (pick(l0, l1, l2, l3), pick(q0, q1, q2, q3))
}

/// `log` of `src` into `dst` (of `src`'s length) on AVX-512 ([`log8`]),
/// then [`log::log`] for the arguments [`log::log_is_edge`] picks out
/// (zero, negative, subnormal, NaN, and from [`log::LOG_TOP`] up).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn log_loop_avx512(src: &[f64], dst: &mut [f64]) {
    let table = table_avx512();
    let lanes = |x| log8(x, &table);
    with_edges_avx512(src, dst, 1.0, lanes, log::log_is_edge, log::log::<false>);
}

/// `e^x` of `src` into `dst` (of `src`'s length) on AVX-512 ([`exp8`]),
/// then [`exp::exp`] for the arguments [`exp::exp_is_edge`] picks out
/// (results near overflow, subnormal or zero; NaN).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn exp_loop_avx512(src: &[f64], dst: &mut [f64]) {
    use std::arch::x86_64::*;
    let table = table16_avx512();
    let lanes = |x| {
        let y = exp8(x, _mm512_setzero_pd(), &table);
        // |x| >= 708 or NaN.
        let edge = _mm512_cmp_pd_mask::<_CMP_NLT_UQ>(_mm512_abs_pd(x), _mm512_set1_pd(708.0));
        (y, edge)
    };
    with_edges_avx512(src, dst, 0.0, lanes, exp::exp_is_edge, exp::exp::<false>);
}

/// [`with_edges!`] for a loop of eight lanes on AVX-512: `f` of each
/// chunk of `src` into `dst` ([`lanes8_avx512`]), then `slow` for the
/// arguments `is_edge` picks out where `f`'s masks found any.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn with_edges_avx512(
    src: &[f64],
    dst: &mut [f64],
    fill: f64,
    mut f: impl FnMut(
        std::arch::x86_64::__m512d,
    ) -> (std::arch::x86_64::__m512d, std::arch::x86_64::__mmask8),
    is_edge: fn(f64) -> bool,
    slow: fn(f64) -> f64,
) {
    for (src, dst) in src.chunks(CHUNK).zip(dst.chunks_mut(CHUNK)) {
        if lanes8_avx512(src, dst, fill, &mut f) != 0 {
            fix_edges(dst, src, is_edge, slow);
        }
    }
}

/// `f` of `src` into `dst` (of `src`'s length), eight lanes at a time,
/// and the union of the masks `f` returns with its lanes. A last part
/// of fewer than eight is staged in a full vector of `fill` (an argument
/// `f` takes without edges), so every element takes the same
/// instructions whatever its place (a one-element call gives the bits
/// of a long one).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn lanes8_avx512(
    src: &[f64],
    dst: &mut [f64],
    fill: f64,
    mut f: impl FnMut(
        std::arch::x86_64::__m512d,
    ) -> (std::arch::x86_64::__m512d, std::arch::x86_64::__mmask8),
) -> std::arch::x86_64::__mmask8 {
    use std::arch::x86_64::*;
    let n = src.len().min(dst.len());
    let mut edges = 0;
    let mut i = 0;
    // The whole groups, then the last part: one loop with a test for the
    // last part in it measured 5-8 % slower.
    while i + 8 <= n {
        // SAFETY: `src[i..i + 8]` and `dst[i..i + 8]` are 8 in-bounds
        // floats each.
        unsafe {
            let (y, e) = f(_mm512_loadu_pd(src[i..i + 8].as_ptr()));
            edges |= e;
            _mm512_storeu_pd(dst[i..i + 8].as_mut_ptr(), y);
        }
        i += 8;
    }
    if i < n {
        let (y, e) = f(load8(&src[..n], i, fill));
        edges |= e;
        store8(&mut dst[..n], i, y);
    }
    edges
}

/// Eight floats of `src` from `i` (below its length), or the rest of it
/// and `fill` past its end: a last part staged in a full vector.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn load8(src: &[f64], i: usize, fill: f64) -> std::arch::x86_64::__m512d {
    use std::arch::x86_64::*;
    match src.get(i..i + 8) {
        // SAFETY: `s` is 8 floats.
        Some(s) => unsafe { _mm512_loadu_pd(s.as_ptr()) },
        None => {
            let rest = &src[i..];
            let mut part = [fill; 8];
            part[..rest.len()].copy_from_slice(rest);
            // SAFETY: `part` is 8 floats.
            unsafe { _mm512_loadu_pd(part.as_ptr()) }
        }
    }
}

/// Stores `y` into `dst` from `i` (below its length): eight floats, or
/// as many as are left.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn store8(dst: &mut [f64], i: usize, y: std::arch::x86_64::__m512d) {
    use std::arch::x86_64::*;
    match dst.get_mut(i..i + 8) {
        // SAFETY: `d` is 8 floats.
        Some(d) => unsafe { _mm512_storeu_pd(d.as_mut_ptr(), y) },
        None => {
            let rest = &mut dst[i..];
            let mut part = [0.0; 8];
            // SAFETY: `part` is 8 floats.
            unsafe { _mm512_storeu_pd(part.as_mut_ptr(), y) };
            let m = rest.len();
            rest.copy_from_slice(&part[..m]);
        }
    }
}

/// `log x`'s reduction on eight lanes, from `log_dd`'s table held in
/// registers ([`table_avx512`]): `x = 2^k z`, `z`'s entry `(log c, invc)`
/// and `r = z invc - 1` (exact by one fused multiply-add), as
/// `(k, r, log c, log c's tail)`, and the mask of the lanes that are not
/// normal and positive or are at or past [`log::LOG_TOP`] (whose parts
/// are garbage).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
#[inline]
fn log_reduce8(
    x: std::arch::x86_64::__m512d,
    table: &[std::arch::x86_64::__m512d; 8],
) -> ([std::arch::x86_64::__m512d; 4], std::arch::x86_64::__mmask8) {
    use std::arch::x86_64::*;
    let bits = _mm512_castpd_si512(x);
    // Outside `[MIN_POSITIVE, LOG_TOP)`: the bits less the smallest
    // normal's, as unsigned, at or past those of the top less it.
    let min = f64::MIN_POSITIVE.to_bits() as i64;
    let past = (log::LOG_TOP.to_bits() - f64::MIN_POSITIVE.to_bits()) as i64;
    let edge = _mm512_cmpge_epu64_mask(
        _mm512_sub_epi64(bits, _mm512_set1_epi64(min)),
        _mm512_set1_epi64(past),
    );
    // `bits(x) - TABLE_OFF` with 1.0's exponent field added: its low 52
    // bits are `z`'s less `TABLE_OFF`, and its exponent field, between 1
    // and 2046 below `LOG_TOP`, is `k` biased as a float's, so that
    // `vgetexppd` reads `k` out as a float in one instruction.
    let one = 1f64.to_bits();
    let tmp = _mm512_add_epi64(
        bits,
        _mm512_set1_epi64(one.wrapping_sub(log::TABLE_OFF) as i64),
    );
    let k = _mm512_getexp_pd(_mm512_castsi512_pd(tmp));
    let low = _mm512_and_si512(tmp, _mm512_set1_epi64((1 << 52) - 1));
    let z = _mm512_castsi512_pd(_mm512_add_epi64(
        low,
        _mm512_set1_epi64(log::TABLE_OFF as i64),
    ));
    let j = _mm512_srli_epi64::<{ log::TABLE_SHIFT }>(tmp);
    let (logc, packed) = lookup_avx512(table, j);
    let packed = _mm512_castpd_si512(packed);
    let low19 = _mm512_set1_epi64(0x7_ffff);
    let invc = _mm512_castsi512_pd(_mm512_slli_epi64::<45>(_mm512_and_si512(packed, low19)));
    let tail = _mm512_castsi512_pd(_mm512_andnot_si512(low19, packed));
    let r = _mm512_fmadd_pd(z, invc, _mm512_set1_pd(-1.0));
    ([k, r, logc, tail], edge)
}

/// `log` of eight lanes, and the mask of those that are not normal and
/// positive or are at or past [`log::LOG_TOP`] (whose results are
/// garbage, for the caller to replace: [`log::log_is_edge`]), from
/// `log_dd`'s table held in registers ([`table_avx512`]), without a
/// division.
///
/// `x = 2^k z` and `z`'s entry give `invc` (6 significant bits) and
/// `log c = -log(invc)` in two parts; `r = z invc - 1` is exact (one
/// fused multiply-add), `|r| < 0.0227`. Then
/// `log x = (k ln2_hi + log c) + r + lo`:
/// the first sum is exact (multiples of `2^-43` below `2^10`),
/// its sum with `r` is carried exactly (the larger is never `r`, see
/// `log_dd`), and `lo` gathers `r^2 (-1/2 + r/3 - … - r^8/10)` (the
/// first term left out, `r^11/11`, is below `2^-57` of `r`), `k` times
/// the rest of `ln 2` and the rest of `log c`: each below `0.012` of the
/// result, so their roundings stay far below the last one. The result is
/// within about 0.52 ULP of `log x`. The series is two Horner chains:
/// fewer instructions than Estrin's scheme, half the latency of one
/// chain (one chain, an instruction less, measured no faster; a
/// polynomial of degree 7 close to the best, within `2^-59` of the
/// result, rounded 0.16 % of arguments wrongly against 0.01 %).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
#[inline]
fn log8(
    x: std::arch::x86_64::__m512d,
    table: &[std::arch::x86_64::__m512d; 8],
) -> (std::arch::x86_64::__m512d, std::arch::x86_64::__mmask8) {
    use crate::ops::{LN2_HI, LN2_LO};
    use std::arch::x86_64::*;
    let f = _mm512_set1_pd;
    let ([k, r, logc, tail], edge) = log_reduce8(x, table);
    let a = _mm512_fmadd_pd(k, f(LN2_HI), logc);
    let hi = _mm512_add_pd(a, r);
    let e = _mm512_add_pd(_mm512_sub_pd(a, hi), r);
    // -1/2 + r/3 - r^2/4 + … - r^8/10, as two Horner chains (the
    // terms from r^4 on, and the others) joined with r^4.
    let q_hi = horner8(r, &[-1.0 / 6.0, 1.0 / 7.0, -0.125, 1.0 / 9.0, -0.1]);
    let q_lo = horner8(r, &[-0.5, 1.0 / 3.0, -0.25, 0.2]);
    let r2 = _mm512_mul_pd(r, r);
    let q = _mm512_fmadd_pd(q_hi, _mm512_mul_pd(r2, r2), q_lo);
    let rest = _mm512_fmadd_pd(k, f(LN2_LO), tail);
    let lo = _mm512_add_pd(e, _mm512_fmadd_pd(r2, q, rest));
    (_mm512_add_pd(hi, lo), edge)
}

/// `tanh` of `src` into `dst` (of `src`'s length) on AVX-512, every
/// argument in the vector pass ([`tanh8`]).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn tanh_avx512(src: &[f64], dst: &mut [f64]) {
    let table = table16_avx512();
    lanes8_avx512(src, dst, 0.0, |x| (tanh8(x, &table), 0));
}

/// `2^(j/16)`'s table ([`exp::TABLE16_COLUMNS`]) in four registers: the
/// leading parts in two, the rests in two.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn table16_avx512() -> [std::arch::x86_64::__m512d; 4] {
    registers(&exp::TABLE16_COLUMNS)
}

/// The reduction of [`exp8`] and [`tanh8`]: `t = W h = n ln2/16 + r + c`
/// for `|t| < 2^16`, as `(z, r, c)` with `z`'s low bits holding the
/// integer `n = 16k + j` (two's complement), `|r| <= ln2/32`, and `c` what
/// rounding `r` lost (as in `exp::parts`: `n`, below `2^21`, times
/// `ln 2/16`'s 32-bit leading part is exact and so is its difference
/// with `t`). `n` is found from
/// `h` directly, so that it does not wait for `t` (`W` a power of two).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn reduce16<const W: u32>(
    h: std::arch::x86_64::__m512d,
) -> (
    std::arch::x86_64::__m512i,
    std::arch::x86_64::__m512d,
    std::arch::x86_64::__m512d,
) {
    use crate::ops::{LN2, LN2_HI, LN2_LO, ROUND};
    use std::arch::x86_64::*;
    let f = _mm512_set1_pd;
    let w = W as f64;
    let z = _mm512_fmadd_pd(h, f(w * 16.0 / LN2), f(ROUND));
    let n = _mm512_sub_pd(z, f(ROUND));
    let t = if W == 1 { h } else { _mm512_mul_pd(h, f(w)) };
    let a = _mm512_fnmadd_pd(n, f(LN2_HI / 16.0), t);
    let r = _mm512_fnmadd_pd(n, f(LN2_LO / 16.0), a);
    let c = _mm512_fnmadd_pd(n, f(LN2_LO / 16.0), _mm512_sub_pd(a, r));
    (_mm512_castpd_si512(z), r, c)
}

/// `e^(r + c) - 1 - r = r^2 P(r) + c` to within `2^-61` of `r` for
/// `|r| <= ln2/32` and `c` below `2^-40` of it (the caller folds `e^r`'s
/// factor into `c` where `c` is large enough to need it), `P` the Taylor
/// series as two Horner chains joined by `r^4`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn series16(
    r: std::arch::x86_64::__m512d,
    c: std::arch::x86_64::__m512d,
) -> std::arch::x86_64::__m512d {
    use exp::P8;
    use std::arch::x86_64::*;
    let r2 = _mm512_mul_pd(r, r);
    let p = _mm512_fmadd_pd(
        horner8(r, &P8[4..]),
        _mm512_mul_pd(r2, r2),
        horner8(r, &P8[..4]),
    );
    _mm512_fmadd_pd(r2, p, c)
}

/// `sum cs[i] r^i` (the lowest coefficient first), by Horner's rule.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn horner8(r: std::arch::x86_64::__m512d, cs: &[f64]) -> std::arch::x86_64::__m512d {
    use std::arch::x86_64::*;
    let (&last, rest) = cs.split_last().expect("a coefficient");
    let mut q = _mm512_set1_pd(last);
    for &c in rest.iter().rev() {
        q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(c));
    }
    q
}

/// Entries `j = z % 16` of `2^(j/16)`'s table in registers
/// ([`table16_avx512`]), eight lanes: `(hi, lo)`. Bits 0-3 of `z` pick the
/// entry (one permute a column).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn entries16(
    table: &[std::arch::x86_64::__m512d; 4],
    z: std::arch::x86_64::__m512i,
) -> (std::arch::x86_64::__m512d, std::arch::x86_64::__m512d) {
    use std::arch::x86_64::*;
    (
        _mm512_permutex2var_pd(table[0], z, table[1]),
        _mm512_permutex2var_pd(table[2], z, table[3]),
    )
}

/// `2^k` times `x` for [`reduce16`]'s `z`, by an integer add to `x`'s
/// exponent field (the result normal).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn scale16(
    x: std::arch::x86_64::__m512d,
    z: std::arch::x86_64::__m512i,
) -> std::arch::x86_64::__m512d {
    use std::arch::x86_64::*;
    let k = _mm512_slli_epi64::<52>(_mm512_srli_epi64::<4>(z));
    _mm512_castsi512_pd(_mm512_add_epi64(_mm512_castpd_si512(x), k))
}

/// `e^(t + tl)` of eight lanes for `|t + tl| < 708` (a normal result; the
/// others are garbage, for the caller to replace), `tl` below `2^-40` of
/// `t` or zero: `e^t = 2^k 2^(j/16) e^(r + c)`, with `2^(j/16) = T + T'`
/// from registers, `e^(r + c) - 1 = r + p` ([`series16`]), and
/// `T + (T p + (T r + T'(1 + r)))` rounded in three steps, the inner two
/// at most `0.0217 T` in size, then scaled by `2^k`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn exp8(
    t: std::arch::x86_64::__m512d,
    tl: std::arch::x86_64::__m512d,
    table: &[std::arch::x86_64::__m512d; 4],
) -> std::arch::x86_64::__m512d {
    use std::arch::x86_64::*;
    let (z, r, c) = reduce16::<1>(t);
    let c = _mm512_add_pd(c, tl);
    let p = series16(r, _mm512_fmadd_pd(c, r, c));
    let (th, tlo) = entries16(table, z);
    // T r + T'(1 + r) beside the series, then T p.
    let v = _mm512_fmadd_pd(th, r, _mm512_fmadd_pd(tlo, r, tlo));
    let y = _mm512_add_pd(th, _mm512_fmadd_pd(th, p, v));
    scale16(y, z)
}

/// `tanh` of eight lanes, every argument (NaN passes through), from
/// `2^(j/16)` held in registers ([`exp::TABLE16_COLUMNS`]: one permute a
/// column); within one ULP and correctly rounded for 99.99 % of the
/// accuracy test's arguments (the other paths: 99.39 %).
///
/// `tanh |x| = n / (n + 2)` with `n = e^t - 1`, `t = 2 min(|x|, 20)`
/// (past 19.1 the result rounds to 1). `t = (16k + j) ln2/16 + r + c`
/// with `|r| <= ln2/32` and `c` what rounding `r` lost, so
/// `n = (2^k T_j - 1) + 2^k T_j r + 2^k (T_j (r^2 P(r) + c) + T'_j (1 + r))`
/// with `T_j + T'_j = 2^(j/16)` and `P` the Taylor series to `r^8` (the
/// first term left out is below `2^-61` of `r`): the first term is
/// exact (for `k <= 52`; past that the result is 1 either way), the
/// second carried exactly and summed with it exactly (the first is the
/// larger or zero), and the rest, below a fiftieth of the total, added
/// with its rounding error kept. Then `q = n/d` with `d = n + 2` carried
/// exactly, and the remainder `n - q d` (its leading part exact by one
/// fused multiply-add) over `d` (a 14-bit reciprocal is enough for it)
/// corrects `q` far below its last bit. No branch, no gather, one
/// division; the parts that do not wait for the series are computed
/// beside it, which shortens the chain each element's work is.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[inline]
fn tanh8(
    x: std::arch::x86_64::__m512d,
    table: &[std::arch::x86_64::__m512d; 4],
) -> std::arch::x86_64::__m512d {
    use std::arch::x86_64::*;
    let f = _mm512_set1_pd;
    // `vminpd` gives its second operand when either is NaN: NaN stays.
    let h = _mm512_min_pd(f(20.0), _mm512_abs_pd(x));
    let (z, r, c) = reduce16::<2>(h);
    let s = scale16(f(1.0), z);
    let (th, tl) = entries16(table, z);
    let p = series16(r, c);
    // n = e + m + rest, with the entry scaled by 2^k (exactly): the
    // parts that do not wait for the series first.
    let sth = _mm512_mul_pd(s, th);
    let stl = _mm512_mul_pd(s, tl);
    let e = _mm512_fmadd_pd(s, th, f(-1.0));
    let m = _mm512_mul_pd(sth, r);
    let me = _mm512_fmsub_pd(sth, r, m);
    let nh = _mm512_add_pd(e, m);
    let ne = _mm512_sub_pd(m, _mm512_sub_pd(nh, e));
    let small = _mm512_add_pd(_mm512_add_pd(_mm512_fmadd_pd(stl, r, stl), me), ne);
    let nl = _mm512_fmadd_pd(sth, p, small);
    // n = nh + nl with nl below half nh's last bit (it was up to a
    // fiftieth of it), so that the remainder below is of that size too.
    let (nh, nl) = {
        let h = _mm512_add_pd(nh, nl);
        (h, _mm512_sub_pd(nl, _mm512_sub_pd(h, nh)))
    };
    // d = nh + 2 + dl exactly; the division does not wait for dl.
    let d = _mm512_add_pd(nh, f(2.0));
    let bb = _mm512_sub_pd(d, nh);
    let dl = _mm512_add_pd(
        _mm512_sub_pd(nh, _mm512_sub_pd(d, bb)),
        _mm512_sub_pd(f(2.0), bb),
    );
    let q = _mm512_div_pd(nh, d);
    // n - q (d + dl + nl): the first part exact.
    let rem = _mm512_fnmadd_pd(q, d, nh);
    let rest = _mm512_fnmadd_pd(q, _mm512_add_pd(dl, nl), nl);
    let y = _mm512_fmadd_pd(_mm512_add_pd(rem, rest), _mm512_rcp14_pd(d), q);
    // The sign of x.
    _mm512_castsi512_pd(_mm512_ternarylogic_epi64::<0xf8>(
        _mm512_castpd_si512(y),
        _mm512_castpd_si512(x),
        _mm512_set1_epi64(i64::MIN),
    ))
}

/// `out[i] = slow(orig[i])` where `is_edge(orig[i])`. The slow function
/// is called through an opaque pointer, so that the compiler cannot
/// vectorise this loop by calling it on every lane and blending (it is a
/// pure function, and it tried).
#[inline(always)]
fn fix_edges(out: &mut [f64], orig: &[f64], is_edge: fn(f64) -> bool, slow: fn(f64) -> f64) {
    let slow = std::hint::black_box(slow);
    for (o, &x) in out.iter_mut().zip(orig) {
        if is_edge(x) {
            *o = slow(x);
        }
    }
}

/// [`fix_edges`] for functions of two arguments.
#[inline(always)]
fn fix_edges2(
    out: &mut [f64],
    xs: &[f64],
    ys: &[f64],
    is_edge: fn(f64, f64) -> bool,
    edge: fn(f64, f64) -> f64,
) {
    let edge = std::hint::black_box(edge);
    for ((o, &x), &y) in out.iter_mut().zip(xs).zip(ys) {
        if is_edge(x, y) {
            *o = edge(x, y);
        }
    }
}

/// `f` of `src` into `dst` (of `src`'s length); `FMA` says whether the
/// build has fused multiply-add (the AVX2 and AVX-512 builds).
#[inline(always)]
fn unary<const FMA: bool, const AVX512: bool>(f: Unary, src: &[f64], dst: &mut [f64]) {
    match f {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `AVX512` is set only in the AVX-512 build of these
        // loops, which runs only where `Isa::available` found it.
        Unary::Log if AVX512 => unsafe { log_loop_avx512(src, dst) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Unary::Tanh if AVX512 => unsafe { tanh_avx512(src, dst) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as above.
        Unary::Exp if AVX512 => unsafe { exp_loop_avx512(src, dst) },
        Unary::Exp => with_edges!(
            src,
            dst,
            exp::exp_fast::<FMA>,
            exp::exp_is_edge,
            exp::exp::<false>
        ),
        Unary::Exp2 => each!(src, dst, exp::exp2::<FMA>),
        Unary::Expm1 => each!(src, dst, exp::expm1::<FMA>),
        Unary::Log => with_edges!(
            src,
            dst,
            log::log_fast::<FMA>,
            log::log_is_edge,
            log::log::<false>
        ),
        Unary::Log2 => each!(src, dst, log::log2::<FMA>),
        Unary::Log10 => each!(src, dst, log::log10::<FMA>),
        Unary::Log1p => each!(src, dst, log::log1p::<FMA>),
        Unary::Sinh => each!(src, dst, exp::sinh::<FMA>),
        Unary::Cosh => each!(src, dst, exp::cosh::<FMA>),
        Unary::Tanh => each!(src, dst, exp::tanh::<FMA>),
        Unary::Arcsin => each!(src, dst, inverse::asin::<FMA>),
        Unary::Arccos => each!(src, dst, inverse::acos::<FMA>),
        Unary::Arctan => each!(src, dst, inverse::atan::<FMA>),
        Unary::Arcsinh => each!(src, dst, inverse::asinh::<FMA>),
        Unary::Arccosh => each!(src, dst, inverse::acosh::<FMA>),
        Unary::Arctanh => each!(src, dst, inverse::atanh::<FMA>),
        Unary::Cbrt => each!(src, dst, inverse::cbrt::<FMA>),
        Unary::Sin => with_edges!(src, dst, trig::sin::<FMA>, trig::is_edge, trig::sin_slow),
        Unary::Cos => with_edges!(src, dst, trig::cos::<FMA>, trig::is_edge, trig::cos_slow),
        Unary::Tan => with_edges!(src, dst, trig::tan::<FMA>, trig::is_edge, trig::tan_slow),
    }
}

/// `f(xs, ys)` into `dst` (all of one length).
#[inline(always)]
fn binary<const FMA: bool, const AVX512: bool>(f: Binary, xs: &[f64], ys: &[f64], dst: &mut [f64]) {
    match f {
        Binary::Pow => pow_loop::<FMA, AVX512>(xs, ys, dst),
        Binary::Arctan2 => binary_loop!(
            xs,
            ys,
            dst,
            inverse::atan2_main::<FMA>,
            inverse::atan2_is_edge,
            f64::atan2
        ),
        Binary::Hypot => binary_loop!(
            xs,
            ys,
            dst,
            inverse::hypot_main::<FMA>,
            inverse::hypot_is_edge,
            f64::hypot
        ),
    }
}

/// `sin` and `cos` of `xs` into `s` and `c` (of `xs`'s length).
#[inline(always)]
fn sincos<const FMA: bool>(xs: &[f64], s: &mut [f64], c: &mut [f64]) {
    let n = xs.len().min(s.len()).min(c.len());
    let (xs, s, c) = (&xs[..n], &mut s[..n], &mut c[..n]);
    for i in 0..n {
        (s[i], c[i]) = trig::sincos::<FMA>(xs[i]);
    }
    if xs.iter().fold(false, |e, &x| e | trig::is_edge(x)) {
        fix_edges(s, xs, trig::is_edge, trig::sin_slow);
        fix_edges(c, xs, trig::is_edge, trig::cos_slow);
    }
}

/// `$dst[i] = $lane($src[i])` for a `float32` lane (`f32 -> f32`), from
/// `$src`, or in place where it is `None`: one pass, nothing staged.
macro_rules! each_native_f32 {
    ($src:expr, $dst:expr, $lane:expr) => {{
        let (src, dst): (Option<&[f32]>, &mut [f32]) = ($src, $dst);
        match src {
            Some(src) => {
                let n = src.len().min(dst.len());
                let (src, dst) = (&src[..n], &mut dst[..n]);
                for i in 0..n {
                    dst[i] = $lane(src[i]);
                }
            }
            None => {
                for x in dst.iter_mut() {
                    *x = $lane(*x);
                }
            }
        }
    }};
}

/// [`each_native_f32!`] of a lane computed in `float64`: `$lane(x as
/// f64) as f32`.
macro_rules! each_f32 {
    ($src:expr, $dst:expr, $lane:expr) => {
        each_native_f32!($src, $dst, |x: f32| $lane(x as f64) as f32)
    };
}

/// [`each_f32!`] a chunk at a time, then `$slow` for the arguments past
/// the vector path (`$is_edge`); in place, a chunk that has one keeps a
/// copy of its arguments first.
macro_rules! with_edges_f32 {
    ($src:expr, $dst:expr, $lane:expr, $is_edge:expr, $slow:expr) => {{
        let (src, dst): (Option<&[f32]>, &mut [f32]) = ($src, $dst);
        let mut kept = [0.0f32; WIDE];
        for (k, dst) in dst.chunks_mut(WIDE).enumerate() {
            let n = dst.len();
            let src = src.map(|s| &s[k * WIDE..][..n]);
            let args = src.unwrap_or(&*dst);
            // A fold, not `any`: see `with_edges!`.
            let edge = args.iter().fold(false, |e, &x| e | $is_edge(x as f64));
            if edge {
                kept[..n].copy_from_slice(args);
            }
            each_f32!(src, &mut *dst, $lane);
            if edge {
                let slow = std::hint::black_box($slow as fn(f64) -> f64);
                for (o, &x) in dst.iter_mut().zip(&kept[..n]) {
                    if $is_edge(x as f64) {
                        *o = slow(x as f64) as f32;
                    }
                }
            }
        }
    }};
}

/// `f` of `float32` values (`src`, or `dst` itself where `src` is
/// `None`) into `dst`: `exp` and `log` computed in `float32`
/// ([`single::native`]); the others computed in `float64` and rounded
/// once, `sin`, `cos` and `tanh` by their shorter `float32` forms in one
/// pass, the rest by the `float64` loops a chunk at a time.
#[inline(always)]
fn unary_f32<const FMA: bool>(f: Unary, src: Option<&[f32]>, dst: &mut [f32]) {
    match f {
        Unary::Exp => each_native_f32!(src, dst, single::native::exp::<FMA>),
        Unary::Log => each_native_f32!(src, dst, single::native::log::<FMA>),
        Unary::Tanh => each_f32!(src, dst, single::tanh::<FMA>),
        Unary::Sin => with_edges_f32!(src, dst, single::sin::<FMA>, trig::is_edge, trig::sin_slow),
        Unary::Cos => with_edges_f32!(src, dst, single::cos::<FMA>, trig::is_edge, trig::cos_slow),
        _ => {
            let (mut wide, mut out) = ([0.0f64; WIDE], [0.0f64; WIDE]);
            for (k, dst) in dst.chunks_mut(WIDE).enumerate() {
                let n = dst.len();
                let (wide, out) = (&mut wide[..n], &mut out[..n]);
                let src = src.map_or(&*dst, |s| &s[k * WIDE..][..n]);
                for i in 0..n {
                    wide[i] = src[i] as f64;
                }
                unary::<FMA, false>(f, wide, out);
                for i in 0..n {
                    dst[i] = out[i] as f32;
                }
            }
        }
    }
}

/// [`binary`] over `float32` values (`xs`, or `dst` itself where `xs` is
/// `None`), as [`unary_f32`].
#[inline(always)]
fn binary_f32<const FMA: bool, const AVX512: bool>(
    f: Binary,
    xs: Option<&[f32]>,
    ys: &[f32],
    dst: &mut [f32],
) {
    if f == Binary::Pow {
        return pow_f32::<FMA>(xs, ys, dst);
    }
    let (mut wx, mut wy, mut out) = ([0.0f64; WIDE], [0.0f64; WIDE], [0.0f64; WIDE]);
    for (k, dst) in dst.chunks_mut(WIDE).enumerate() {
        let n = dst.len();
        let (wx, wy, out) = (&mut wx[..n], &mut wy[..n], &mut out[..n]);
        let (xs, ys) = (
            xs.map_or(&*dst, |s| &s[k * WIDE..][..n]),
            &ys[k * WIDE..][..n],
        );
        for i in 0..n {
            wx[i] = xs[i] as f64;
            wy[i] = ys[i] as f64;
        }
        binary::<FMA, AVX512>(f, wx, wy, out);
        for i in 0..n {
            dst[i] = out[i] as f32;
        }
    }
}

/// `pow` over `float32` values (`xs`, or `dst` itself where `xs` is
/// `None`): [`single::pow_t`] then [`single::pow_exp`] on every lane, in
/// two passes, then the lanes they do not cover
/// ([`single::pow_is_edge`]) by the `float64` `pow`, each rounded once.
#[inline(always)]
fn pow_f32<const FMA: bool>(xs: Option<&[f32]>, ys: &[f32], dst: &mut [f32]) {
    let (mut kept, mut stage) = ([0.0f32; WIDE], [0.0f64; WIDE]);
    for (k, dst) in dst.chunks_mut(WIDE).enumerate() {
        let n = dst.len();
        let ys = &ys[k * WIDE..][..n];
        let t = &mut stage[..n];
        let kept = &mut kept[..n];
        // Two passes, each a short enough chain for the processor to
        // overlap many elements; the first reads every argument before the
        // second writes (so in place is sound), and a chunk with an edge
        // keeps a copy of its bases for the fix-up.
        let xs = xs.map_or(&*dst, |s| &s[k * WIDE..][..n]);
        for i in 0..n {
            t[i] = single::pow_t::<FMA>(xs[i] as f64, ys[i] as f64);
        }
        let edge = xs
            .iter()
            .zip(ys)
            .fold(false, |e, (&x, &y)| e | single::pow_is_edge(x, y));
        if edge {
            kept.copy_from_slice(xs);
        }
        for i in 0..n {
            dst[i] = single::pow_exp::<FMA>(t[i]) as f32;
        }
        if edge {
            let slow = std::hint::black_box(log::pow::<FMA> as fn(f64, f64) -> f64);
            for ((o, &x), &y) in dst.iter_mut().zip(&*kept).zip(ys) {
                if single::pow_is_edge(x, y) {
                    *o = slow(x as f64, y as f64) as f32;
                }
            }
        }
    }
}

/// One set of loops per instruction set: `$name::unary` and the others,
/// compiled with `$features` (none for the portable build); `$avx512`
/// says the build has AVX-512, for the loops that call its intrinsics.
macro_rules! isa_loops {
    ($name:ident, $fma:expr, $avx512:expr, $($features:literal)?) => {
        mod $name {
            use super::*;

            $(#[target_feature(enable = $features)])?
            pub(super) unsafe fn unary(f: Unary, src: &[f64], dst: &mut [f64]) {
                super::unary::<{ $fma }, { $avx512 }>(f, src, dst)
            }

            $(#[target_feature(enable = $features)])?
            pub(super) unsafe fn unary_f32(f: Unary, src: Option<&[f32]>, dst: &mut [f32]) {
                super::unary_f32::<{ $fma }>(f, src, dst)
            }

            $(#[target_feature(enable = $features)])?
            pub(super) unsafe fn binary(f: Binary, xs: &[f64], ys: &[f64], dst: &mut [f64]) {
                super::binary::<{ $fma }, { $avx512 }>(f, xs, ys, dst)
            }

            $(#[target_feature(enable = $features)])?
            pub(super) unsafe fn binary_f32(
                f: Binary,
                xs: Option<&[f32]>,
                ys: &[f32],
                dst: &mut [f32],
            ) {
                super::binary_f32::<{ $fma }, { $avx512 }>(f, xs, ys, dst)
            }

            $(#[target_feature(enable = $features)])?
            pub(super) unsafe fn sincos(xs: &[f64], s: &mut [f64], c: &mut [f64]) {
                super::sincos::<{ $fma }>(xs, s, c)
            }
        }
    };
}

isa_loops!(portable, false, false,);
#[cfg(target_arch = "x86_64")]
isa_loops!(avx2, true, false, "avx2,fma");
#[cfg(target_arch = "x86_64")]
isa_loops!(avx512, true, true, "avx512f,avx512dq,avx512vl,avx2,fma");

/// Calls `$f` of the loops for `$isa`, which the caller has checked is
/// available.
macro_rules! dispatch {
    ($isa:expr, $f:ident($($arg:expr),*)) => {{
        match $isa {
            // SAFETY: the portable loops need nothing of the CPU.
            Isa::Portable => unsafe { portable::$f($($arg),*) },
            // SAFETY: the caller checked `Isa::available` for this set.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { avx2::$f($($arg),*) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe { avx512::$f($($arg),*) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => unsafe { portable::$f($($arg),*) },
        }
    }};
}

/// `f` over `xs` in place, a chunk at a time staged on the stack (the
/// loops read one slice and write another).
macro_rules! in_place {
    ($xs:expr, |$buf:ident, $chunk:ident| $run:expr) => {{
        let mut staged = [0.0; IN_PLACE];
        for $chunk in $xs.chunks_mut(IN_PLACE) {
            let $buf = &mut staged[..$chunk.len()];
            $buf.copy_from_slice($chunk);
            let $buf = &*$buf;
            $run;
        }
    }};
}

/// The ISA's loops for `f` of `src` into `dst` (`isa` available, equal
/// lengths).
pub(crate) fn run_unary(isa: Isa, f: Unary, src: &[f64], dst: &mut [f64]) {
    debug_assert!(isa.available() && src.len() == dst.len());
    if let Some(g) = libm_lanes(isa, f) {
        for (d, &x) in dst.iter_mut().zip(src) {
            *d = g(x);
        }
        return;
    }
    dispatch!(isa, unary(f, src, dst))
}

/// The C library's function for `f` on `isa`, where a loop over it runs
/// faster than ours and is as accurate: the inverse trigonometric
/// functions without AVX-512, whose table lookups do not vectorise there
/// (AMD EPYC, AVX2, 1e6 values: `arcsin` 74 ns a value against glibc's
/// 24.5, `arccos` 95 against 26.5, `arctan` 64 against 21). glibc's are
/// within one ULP, which the accuracy tests check on every path as for
/// ours; `float32` rounds their `float64` value once.
fn libm_lanes(isa: Isa, f: Unary) -> Option<fn(f64) -> f64> {
    match (isa, f) {
        (Isa::Avx512, _) => None,
        (_, Unary::Arcsin) => Some(f64::asin),
        (_, Unary::Arccos) => Some(f64::acos),
        (_, Unary::Arctan) => Some(f64::atan),
        _ => None,
    }
}

/// [`run_unary`] in place.
pub(crate) fn run_unary_in_place(isa: Isa, f: Unary, xs: &mut [f64]) {
    in_place!(xs, |buf, chunk| run_unary(isa, f, buf, chunk))
}

/// As [`run_unary`] for `float32`: from `src`, or in place where it is
/// `None`.
pub(crate) fn run_unary_f32(isa: Isa, f: Unary, src: Option<&[f32]>, dst: &mut [f32]) {
    debug_assert!(isa.available() && src.is_none_or(|s| s.len() == dst.len()));
    if let Some(g) = libm_lanes(isa, f) {
        for i in 0..dst.len() {
            let x = src.map_or(dst[i], |s| s[i]);
            dst[i] = g(f64::from(x)) as f32;
        }
        return;
    }
    dispatch!(isa, unary_f32(f, src, dst))
}

/// The ISA's loops for `f(xs, ys)` into `dst` (equal lengths).
pub(crate) fn run_binary(isa: Isa, f: Binary, xs: &[f64], ys: &[f64], dst: &mut [f64]) {
    debug_assert!(isa.available() && xs.len() == ys.len() && xs.len() == dst.len());
    dispatch!(isa, binary(f, xs, ys, dst))
}

/// [`run_binary`] into `xs`.
pub(crate) fn run_binary_in_place(isa: Isa, f: Binary, xs: &mut [f64], ys: &[f64]) {
    let mut ys = ys.chunks(IN_PLACE);
    in_place!(xs, |buf, chunk| run_binary(
        isa,
        f,
        buf,
        ys.next().unwrap_or_default(),
        chunk
    ))
}

/// As [`run_binary`] for `float32`: from `xs`, or from `dst` itself
/// where it is `None`.
pub(crate) fn run_binary_f32(isa: Isa, f: Binary, xs: Option<&[f32]>, ys: &[f32], dst: &mut [f32]) {
    debug_assert!(isa.available() && ys.len() == dst.len());
    debug_assert!(xs.is_none_or(|s| s.len() == dst.len()));
    dispatch!(isa, binary_f32(f, xs, ys, dst))
}

/// The ISA's `sincos` loop (equal lengths).
pub(crate) fn run_sincos(isa: Isa, xs: &[f64], s: &mut [f64], c: &mut [f64]) {
    debug_assert!(isa.available() && xs.len() == s.len() && xs.len() == c.len());
    dispatch!(isa, sincos(xs, s, c))
}
