//! Results larger than the cache, written with stores that go around it.
//!
//! A plain store needs its cache line first: writing a result that does
//! not fit in the last-level cache reads every line of it from memory,
//! only to overwrite it, so `x + y` over arrays of 76 MB moves 304 MB
//! where 228 MB would do. Non-temporal stores (`movntpd`) gather a whole
//! line and write it to memory without reading it; the line is then not
//! in the cache, which for a result of this size it would not have stayed
//! in anyway. So the loop engine writes a result of at least
//! [`STREAM_MIN`] bytes this way when its leaf is a plain `float64`
//! operation ([`F64Op`], the builtins' arithmetic) over contiguous or
//! broadcast operands into a contiguous result ([`run`]): the same
//! operation per element as the leaf's own loop, so the same bits.
//!
//! On a Zen 4, one thread, `x + y` over 9.5 million `float64`s went from
//! 11.6–12.7 ms to 7.2–7.7 ms (a plain loop into an existing buffer takes
//! 10.3–11.4), and over the same values in a million ragged rows from
//! 13.4–13.7 ms to 9.0–10.7 (`cargo bench --bench ragged`). Every x86-64
//! has these stores (SSE2); other targets run the leaf's own loop.
//!
//! ```
//! use dynd::nd::Array;
//!
//! // Three million float64s: a 24 MB result, written around the cache.
//! let x = Array::from_vec((0..3_000_000).map(f64::from).collect::<Vec<_>>());
//! let y = &x * 0.5;
//! let r = (&x + &y).eval()?;
//! assert_eq!(r.get::<f64>(&[2_999_999])?, 2_999_999.0 * 1.5);
//! # use dynd::func::Eval;
//! # Ok::<(), dynd::Error>(())
//! ```

use crate::elwise::F64Op;
use crate::loops::FlatRun;

/// Results of at least this many bytes are written around the cache: half
/// of a 32 MB last-level cache, the share of one of two threads. Below
/// it, the next call may still find the result in the cache.
pub(crate) const STREAM_MIN: usize = 16 << 20;

/// Runs `f` over `count` elements, as [`FlatRun::run`] does, for a pass
/// writing `total` bytes in all (this run, or a part of it): around the
/// cache when `total` is at least [`STREAM_MIN`] and the leaf and layout
/// allow it (see the module docs), else by the leaf's own loop.
///
/// # Safety
///
/// As [`FlatRun::run`].
#[inline]
pub(crate) unsafe fn run(
    f: &dyn FlatRun,
    total: usize,
    dst: *mut u8,
    dst_stride: isize,
    src: &[*const u8],
    src_stride: &[isize],
    count: usize,
) {
    if total >= STREAM_MIN && dst_stride == 8 {
        if let Some(op) = f.f64_op() {
            // SAFETY: forwarded; a `float64` leaf reads and writes `f64`s.
            if unsafe { streamed(op, dst, src, src_stride, count) } {
                return;
            }
        }
    }
    // SAFETY: forwarded.
    unsafe { f.run(dst, dst_stride, src, src_stride, count) }
}

/// An operand of [`streamed`]: a contiguous run, or one value for every
/// element.
#[derive(Clone, Copy)]
enum Operand {
    Run(*const f64),
    One(f64),
}

/// `op` over `count` elements into the contiguous `f64`s at `dst`, with
/// stores that go around the cache; `false` (nothing written) where an
/// operand is neither contiguous nor broadcast, or on a target without
/// such stores.
///
/// # Safety
///
/// As [`FlatRun::run`] for a leaf of `op` over `float64` with a result
/// stride of 8 bytes.
unsafe fn streamed(
    op: F64Op,
    dst: *mut u8,
    src: &[*const u8],
    src_stride: &[isize],
    count: usize,
) -> bool {
    if !cfg!(target_arch = "x86_64") || src.len() != op.arity() || count == 0 {
        return false;
    }
    let operand = |k: usize| match src_stride[k] {
        8 => Some(Operand::Run(src[k].cast::<f64>())),
        // SAFETY: a broadcast operand's one element (the contract).
        0 => Some(Operand::One(unsafe {
            src[k].cast::<f64>().read_unaligned()
        })),
        _ => None,
    };
    let dst = dst.cast::<f64>();
    let at = |p: *const f64, i: usize| {
        // SAFETY: element `i < count` of a contiguous operand (the
        // contract); any alignment.
        unsafe { p.add(i).read_unaligned() }
    };
    crate::op::with_f64_op!(op, O => {
        use crate::op::{FloatApply, Op};
        let f = O::apply::<f64>;
        // SAFETY: in each arm, `count` results at `dst` from `count`
        // elements of each contiguous operand (the contract).
        unsafe {
            match (operand(0), if O::ARITY == 2 { operand(1) } else { Some(Operand::One(0.0)) }) {
                (Some(Operand::Run(x)), Some(Operand::Run(y))) => {
                    stream_loop(dst, count, |i| f(at(x, i), at(y, i)))
                }
                (Some(Operand::Run(x)), Some(Operand::One(y))) => {
                    stream_loop(dst, count, |i| f(at(x, i), y))
                }
                (Some(Operand::One(x)), Some(Operand::Run(y))) => {
                    stream_loop(dst, count, |i| f(x, at(y, i)))
                }
                _ => false,
            }
        }
    })
}

/// `dst[i] = value(i)` for `i < count`, whole cache lines written around
/// the cache (the first elements, up to a line's start, and the last,
/// short of a line, with plain stores), then a store fence, so that
/// whatever the thread does next (a store that tells another thread the
/// result is ready) comes after the result. Always `true`.
///
/// # Safety
///
/// `dst` holds `count` writable `f64`s (any alignment) that nothing else
/// reads or writes meanwhile; `value(i)` reads nothing `dst[..i]` holds.
#[inline(always)]
unsafe fn stream_loop(dst: *mut f64, count: usize, value: impl Fn(usize) -> f64) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_loadu_pd, _mm_sfence, _mm_stream_pd};
        // Elements before the first line's start: `align_offset` counts
        // them (`usize::MAX` for a misaligned `dst`, which then takes plain
        // stores throughout).
        let head = dst.align_offset(64).min(count);
        let write = |i: usize| {
            // SAFETY: `i < count` (the contract); any alignment.
            unsafe { dst.add(i).write_unaligned(value(i)) }
        };
        (0..head).for_each(write);
        let mut i = head;
        while i + 8 <= count {
            // A line's eight values, computed in registers (the compiler
            // vectorises this), then stored as its four 16-byte quarters.
            let mut line = [0.0f64; 8];
            for (k, v) in line.iter_mut().enumerate() {
                *v = value(i + k);
            }
            for q in 0..4 {
                // SAFETY: elements `i + 2q` and `i + 2q + 1`, inside
                // `count` and 16-byte aligned (`dst + i` starts a line);
                // SSE2 is part of every x86-64.
                unsafe {
                    _mm_stream_pd(dst.add(i + 2 * q), _mm_loadu_pd(line.as_ptr().add(2 * q)))
                };
            }
            i += 8;
        }
        (i..count).for_each(write);
        // SAFETY: SSE2; orders the stores above before any later store.
        unsafe { _mm_sfence() };
        true
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (dst, count, value);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `op` over runs of `xs` and `ys` (or, where `x_run`/`y_run` is
    /// false, a broadcast `2.5`/`-0.5`) at each offset into a line and
    /// each length around it, streamed, against the
    /// operation element by element: the same bits, and nothing written
    /// past the end.
    fn check(op: F64Op, x_run: bool, y_run: bool) {
        let n = 70;
        let xs: Vec<f64> = (0..n).map(|i| i as f64 * 1.25 - 20.0).collect();
        let ys: Vec<f64> = (0..n).map(|i| 3.0 - i as f64 * 0.75).collect();
        let (bx, by) = (2.5f64, -0.5f64);
        for start in 0..8 {
            for count in [1, 7, 8, 9, 16, 23, 40, n - start - 1] {
                let mut out = vec![f64::NAN; n + 1];
                let xp = if x_run {
                    xs[start..].as_ptr()
                } else {
                    &bx as *const f64
                };
                let yp = if y_run {
                    ys[start..].as_ptr()
                } else {
                    &by as *const f64
                };
                let src = [xp.cast::<u8>(), yp.cast::<u8>()];
                let strides = [if x_run { 8 } else { 0 }, if y_run { 8 } else { 0 }];
                let arity = op.arity();
                let dst = out[start..].as_mut_ptr().cast::<u8>();
                // SAFETY: `count` elements from `start` fit in each run and
                // in `out` (one spare at the end).
                let ran = unsafe { streamed(op, dst, &src[..arity], &strides[..arity], count) };
                let takes = if arity == 1 { x_run } else { x_run || y_run };
                let expect_ran = cfg!(target_arch = "x86_64") && takes;
                assert_eq!(ran, expect_ran, "{op:?} {start} {count}");
                if !ran {
                    continue;
                }
                for i in 0..count {
                    let x = if x_run { xs[start + i] } else { bx };
                    let y = if y_run { ys[start + i] } else { by };
                    let want = op.apply(x, y);
                    assert_eq!(
                        out[start + i].to_bits(),
                        want.to_bits(),
                        "{op:?} {start} {count} {i}"
                    );
                }
                assert!(out[start + count].is_nan(), "{op:?}: written past the end");
            }
        }
    }

    #[test]
    fn streamed_stores_give_the_loops_bits_at_every_offset() {
        for op in [F64Op::Add, F64Op::Sub, F64Op::Mul, F64Op::Div] {
            check(op, true, true);
            check(op, true, false);
            check(op, false, true);
        }
        check(F64Op::Sqrt, true, true);
        check(F64Op::Neg, true, true);
    }

    #[test]
    fn a_misaligned_result_takes_plain_stores() {
        let xs: Vec<f64> = (0..40).map(|i| i as f64 + 0.5).collect();
        let mut bytes = vec![0u8; 41 * 8];
        // Four bytes past an 8-byte boundary: no `f64` there is aligned.
        let at = bytes.as_ptr().align_offset(8) + 4;
        let dst = bytes[at..].as_mut_ptr();
        let src = [xs.as_ptr().cast::<u8>()];
        // SAFETY: 40 `f64`s from `at` lie in `bytes`, 40 in `xs`.
        let ran = unsafe { streamed(F64Op::Sqrt, dst, &src, &[8], 40) };
        assert_eq!(ran, cfg!(target_arch = "x86_64"));
        for (i, x) in xs.iter().enumerate() {
            // SAFETY: element `i` of the 40 written; any alignment.
            let got = unsafe { dst.cast::<f64>().add(i).read_unaligned() };
            if cfg!(target_arch = "x86_64") {
                assert_eq!(got.to_bits(), x.sqrt().to_bits());
            }
        }
    }

    #[test]
    fn other_strides_are_left_to_the_leaf() {
        let xs = [1.0f64; 4];
        let mut out = [0.0f64; 2];
        let src = [xs.as_ptr().cast::<u8>(), xs.as_ptr().cast::<u8>()];
        // SAFETY: two elements 16 bytes apart lie in `xs`.
        let ran = unsafe { streamed(F64Op::Add, out.as_mut_ptr().cast(), &src, &[16, 8], 2) };
        assert!(!ran);
        assert_eq!(out, [0.0, 0.0]);
    }
}
