//! Flat runs: a leaf's loop over `count` elements of one stride per
//! operand, on the calling thread or split into disjoint chunks on
//! rayon's threads. The fast paths of elementwise calls (C-contiguous and
//! one-stride operands) and the flat pass over ragged rows end here.

use smallvec::SmallVec;

use crate::loops::{stream, FlatRun, INLINE_ARGS, PARALLEL_MIN};
use crate::shared::Shared;

/// Pointers handed to the threads of one flat run.
#[derive(Clone, Copy)]
struct RunPtrs {
    dst: *mut u8,
    src: [*const u8; INLINE_ARGS],
}

/// Runs a leaf's loop over `count` elements, in chunks on rayon's threads
/// when there are at least [`PARALLEL_MIN`] elements and more than one
/// thread; the chunks are disjoint, so the result is the same either way.
///
/// # Safety
///
/// As [`FlatRun::run`]; `dst_stride` is positive (distinct elements).
#[inline]
pub(crate) unsafe fn run_flat(
    f: &dyn FlatRun,
    dst: *mut u8,
    dst_stride: isize,
    src: &[*const u8],
    src_stride: &[isize],
    count: usize,
) {
    if count == 0 {
        // Nothing to read: an empty source's pointer may lie anywhere
        // (and a leaf may read a broadcast element before its loop).
        return;
    }
    // The count first: asking rayon for its threads is not free.
    if count < PARALLEL_MIN || dst_stride <= 0 || crate::par::threads() < 2 {
        // SAFETY: forwarded.
        unsafe {
            stream::run(
                f,
                total(count, dst_stride),
                dst,
                dst_stride,
                src,
                src_stride,
                count,
            )
        };
        return;
    }
    // SAFETY: forwarded.
    unsafe { run_parallel(f, dst, dst_stride, src, src_stride, count) }
}

/// [`run_flat`] on rayon's threads, out of line: a short run (a small
/// call) does not pay for setting up its frame.
///
/// # Safety
///
/// As [`run_flat`].
#[inline(never)]
unsafe fn run_parallel(
    f: &dyn FlatRun,
    dst: *mut u8,
    dst_stride: isize,
    src: &[*const u8],
    src_stride: &[isize],
    count: usize,
) {
    let threads = crate::par::threads();
    let chunk = count.div_ceil(threads * 2).max(PARALLEL_MIN / 2);
    let mut run = RunPtrs {
        dst,
        src: [std::ptr::null(); INLINE_ARGS],
    };
    run.src[..src.len()].copy_from_slice(src);
    // SAFETY: the threads of the run write disjoint chunks of the
    // destination and only read the sources, which outlive the scope the
    // threads run in.
    let ptrs = unsafe { Shared::new(run) };
    let n = src.len();
    let part = |i: usize| {
        let start = i * chunk;
        let len = chunk.min(count - start);
        let p = ptrs.get();
        let at = start as isize;
        let srcs: SmallVec<[*const u8; INLINE_ARGS]> = (0..n)
            .map(|k| p.src[k].wrapping_offset(at * src_stride[k]))
            .collect();
        // SAFETY: elements `start..start + len` of the run, valid by the
        // contract; no other chunk writes them.
        unsafe {
            stream::run(
                f,
                total(count, dst_stride),
                p.dst.wrapping_offset(at * dst_stride),
                dst_stride,
                &srcs,
                src_stride,
                len,
            )
        };
    };
    crate::par::run(count.div_ceil(chunk), &part);
}

/// The bytes a run of `count` elements `dst_stride` apart writes (the
/// span, for [`stream::run`]'s choice); saturating.
fn total(count: usize, dst_stride: isize) -> usize {
    count.saturating_mul(dst_stride.unsigned_abs())
}
