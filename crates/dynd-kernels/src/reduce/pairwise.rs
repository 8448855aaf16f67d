//! Pairwise folds of contiguous runs (the accuracy of a tree, the speed of a loop).

use super::*;
use crate::isa::{self, Isa};

/// The fold of `xs` with `f`: eight accumulators over blocks of
/// [`BLOCK`], blocks combined pairwise. `None` for no elements. The
/// reference the folds below give the bits of (they split the work
/// differently, not the tree).
#[cfg(test)]
pub(crate) fn fold_pairwise<T: Copy, F: Fn(T, T) -> T>(xs: &[T], f: &F) -> Option<T> {
    if xs.len() <= BLOCK {
        return fold8(xs, f);
    }
    // Split on a block boundary, so the tree depends only on the length.
    let half = (xs.len() / 2).div_ceil(BLOCK) * BLOCK;
    let (a, b) = xs.split_at(half.min(xs.len()));
    match (fold_pairwise(a, f), fold_pairwise(b, f)) {
        (Some(x), Some(y)) => Some(f(x, y)),
        (x, y) => x.or(y),
    }
}

/// `fold_pairwise` (the tests' reference) of `len` elements from the
/// folds of its blocks: `blocks[i]` is [`fold8`] of elements
/// `i * BLOCK..` (up to `BLOCK` of them), so the blocks can be folded as
/// their values are made, while they are in cache. The same tree, so the
/// same result.
pub(crate) fn fold_pairwise_blocks<T: Copy, F: Fn(T, T) -> T>(
    blocks: &[Option<T>],
    len: usize,
    f: &F,
) -> Option<T> {
    if len <= BLOCK {
        return blocks.first().copied().flatten();
    }
    let half = ((len / 2).div_ceil(BLOCK) * BLOCK).min(len);
    let (a, b) = blocks.split_at((half / BLOCK).min(blocks.len()));
    match (
        fold_pairwise_blocks(a, half, f),
        fold_pairwise_blocks(b, len - half, f),
    ) {
        (Some(x), Some(y)) => Some(f(x, y)),
        (x, y) => x.or(y),
    }
}

/// The elements folded per block by `fold_pairwise` (see
/// [`fold_pairwise_blocks`]).
pub(crate) const PAIRWISE_BLOCK: usize = BLOCK;

/// Eight interleaved accumulators, then combined pairwise.
#[inline(always)]
pub(crate) fn fold8<T: Copy, F: Fn(T, T) -> T>(xs: &[T], f: &F) -> Option<T> {
    if xs.len() < 16 {
        let (first, rest) = xs.split_first()?;
        return Some(rest.iter().fold(*first, |a, &x| f(a, x)));
    }
    let (head, tail) = xs.split_at(8);
    let mut acc: [T; 8] = [
        head[0], head[1], head[2], head[3], head[4], head[5], head[6], head[7],
    ];
    let mut chunks = tail.chunks_exact(8);
    for c in &mut chunks {
        for k in 0..8 {
            acc[k] = f(acc[k], c[k]);
        }
    }
    for (k, &x) in chunks.remainder().iter().enumerate() {
        acc[k] = f(acc[k], x);
    }
    let a = f(f(acc[0], acc[1]), f(acc[2], acc[3]));
    let b = f(f(acc[4], acc[5]), f(acc[6], acc[7]));
    Some(f(a, b))
}

/// The fold of a contiguous run, in fixed chunks combined pairwise in
/// order; the chunks run in parallel when the run is long. The grouping
/// depends only on the length, so the result does not depend on threads.
/// A chunk folds by `run` when given (a reduction's own kernel, with the
/// same bits: see [`Reduction::run`]).
pub(super) fn fold_run<T: Element, F: Fn(T, T) -> T + Copy + Send + Sync>(
    xs: &[T],
    f: F,
    run: Option<RunFold<T>>,
) -> Option<T> {
    let fold = |c: &[T]| match run {
        Some(run) => run(c),
        None => fold_chunk(c, &f),
    };
    if xs.len() <= CHUNK {
        return fold(xs);
    }
    let parts: Vec<Option<T>> = if xs.len() >= PARALLEL_RUN && crate::par::threads() > 1 {
        let chunk = |i: usize| fold(&xs[i * CHUNK..((i + 1) * CHUNK).min(xs.len())]);
        crate::par::map(xs.len().div_ceil(CHUNK), &chunk)
    } else {
        xs.chunks(CHUNK).map(fold).collect()
    };
    let parts: Vec<T> = parts.into_iter().flatten().collect();
    fold_pairwise_exact(&parts, &f)
}

/// Runs shorter than this fold without the instruction-set dispatch.
pub(super) const SHORT_FOLD: usize = 64;

/// The pairwise fold of up to [`CHUNK`] elements: the blocks'
/// [`fold8`]s in a loop compiled for the CPU's instruction set
/// ([`Isa::active`]), then the tree over them
/// ([`fold_pairwise_blocks`]): the same tree on every path, so the same
/// result.
fn fold_chunk<T: Copy, F: Fn(T, T) -> T>(xs: &[T], f: &F) -> Option<T> {
    // SAFETY: `Isa::active` is a set this CPU has.
    unsafe { fold_chunk_on(Isa::active(), xs, f) }
}

/// [`fold_chunk`] on `isa`'s loop.
///
/// # Safety
///
/// The CPU has `isa`.
pub(super) unsafe fn fold_chunk_on<T: Copy, F: Fn(T, T) -> T>(
    isa: Isa,
    xs: &[T],
    f: &F,
) -> Option<T> {
    debug_assert!(xs.len() <= CHUNK);
    if xs.len() < SHORT_FOLD {
        return fold8(xs, f);
    }
    let mut blocks = [None; CHUNK / BLOCK];
    let blocks = &mut blocks[..xs.len().div_ceil(BLOCK)];
    // At most AVX2: eight accumulators fill two AVX2 registers of
    // `int64` or `float64` (one of `int32` or `float32`), so wider ones
    // gain nothing, and with AVX-512 on LLVM vectorises [`fold8`] across
    // its chunks with gathers instead (an `int64` sum of 1e5 ran 3x slower
    // than on AVX2, a `float64` max 1.2x). One call per block.
    for (b, x) in blocks.iter_mut().zip(xs.chunks(BLOCK)) {
        // SAFETY: the CPU has `isa` (the caller's contract).
        *b = unsafe { isa::upto_avx2!(isa, fold8(x, f)) };
    }
    fold_pairwise_blocks(blocks, xs.len(), f)
}

/// `acc[i] = f(acc[i], xs[i])`: a reduction's rows combined elementwise
/// (over leading axes), in a loop compiled for the CPU's instruction set.
pub(super) fn combine_into<T: Copy, F: Fn(T, T) -> T>(acc: &mut [T], xs: &[T], f: &F) {
    // SAFETY: `Isa::active` is a set this CPU has.
    unsafe { combine_into_on(Isa::active(), acc, xs, f) }
}

/// [`combine_into`] on `isa`'s loop.
///
/// # Safety
///
/// The CPU has `isa`.
pub(super) unsafe fn combine_into_on<T: Copy, F: Fn(T, T) -> T>(
    isa: Isa,
    acc: &mut [T],
    xs: &[T],
    f: &F,
) {
    if acc.len() < SHORT_FOLD {
        return combine_each(acc, xs, f);
    }
    // SAFETY: the CPU has `isa` (the caller's contract).
    unsafe { isa::on!(isa, combine_each(acc, xs, f)) }
}

/// `acc[i] = f(acc[i], xs[i])`, inlined into [`combine_into_on`]'s copies.
#[inline(always)]
fn combine_each<T: Copy, F: Fn(T, T) -> T>(acc: &mut [T], xs: &[T], f: &F) {
    for (o, &x) in acc.iter_mut().zip(xs) {
        *o = f(*o, x);
    }
}

/// The sum of a few partial sums (one per part of a reduction done in
/// parts), in the pairwise tree the reductions fold blocks in: fixed by
/// their number, so the same on any number of threads; `0` for none.
pub fn sum_of_parts(xs: &[f64]) -> f64 {
    fold_pairwise_exact(xs, &|a, b| a + b).unwrap_or(0.0)
}

/// A pairwise tree over a few values, split in halves.
pub(crate) fn fold_pairwise_exact<T: Copy, F: Fn(T, T) -> T>(xs: &[T], f: &F) -> Option<T> {
    match xs.len() {
        0 => None,
        1 => Some(xs[0]),
        n => {
            let (a, b) = xs.split_at(n / 2);
            Some(f(fold_pairwise_exact(a, f)?, fold_pairwise_exact(b, f)?))
        }
    }
}
