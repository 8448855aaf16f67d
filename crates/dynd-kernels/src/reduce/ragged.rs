//! Reductions of arrays with a ragged dimension: fixed dimensions around an
//! innermost `var` one (`var * T`, `N * var * T`, `M * N * var * T`).
//!
//! Reducing the `var` axis folds each row. Reducing fixed axes *across*
//! the rows lines them up by position (left-aligned, as Awkward Array
//! does): element `j` of the result folds element `j` of every row that
//! has one, so a result row is as long as the longest row folded into it —
//! `[[1, 2, 3], [4, 5]]` summed over axis 0 is `[5, 7, 3]`, of type
//! `var * int64`. A `where` mask broadcasts to the array as an elementwise
//! operand would (a `var` row of the mask has the data row's length or 1).

use std::borrow::Cow;
use std::sync::Arc;

use dynd_types::{Dim, Type};
use rayon::prelude::*;

use super::float::{Finish, Float};
use super::{fold8, fold_run, no_identity, note_failure, outside, ReduceArgs, Reduction, BLOCK};
use crate::array::Array;
use crate::arrmeta::{read_pair, write_pair, Arrmeta, PAIR_SIZE};
use crate::element::{bytes_of, cast_slice, read, Element};
use crate::error::Error;
use crate::memory::MemoryBlock;

/// Rows at least this many are folded in parallel.
pub(super) const PARALLEL_ROWS: usize = 1 << 12;

/// Rows per run of a fold across rows that runs in parallel.
pub(super) const ACROSS_RUN: usize = 1 << 15;

/// The most result rows (groups) a fold across rows runs in parallel
/// for: each run keeps a partial line per group.
pub(super) const ACROSS_GROUPS: usize = 64;

/// The rows of an array of fixed dimensions around an innermost `var` one,
/// in C order of the fixed dimensions (each row's (start, length) pair is
/// read when the row is asked for).
pub(super) struct Rows<'a> {
    /// The fixed dimensions' sizes.
    pub(super) shape: Vec<usize>,
    /// The fixed dimensions' sizes and byte strides.
    fixed: Vec<(usize, isize)>,
    /// The array's data block (the pairs) and the array's offset in it.
    data: &'a [u8],
    base: isize,
    /// The `var` dimension's values block, and the offset of its rows.
    vals: &'a [u8],
    offset: isize,
    /// The byte stride between a row's elements.
    stride: isize,
    /// The number of rows.
    pub(super) count: usize,
}

impl<'a> Rows<'a> {
    /// The rows of `a`, or `None` when its dimensions are not fixed ones
    /// around one innermost `var`.
    pub(super) fn of(a: &'a Array) -> Option<Rows<'a>> {
        let dims = a.shape();
        let (last, outer) = dims.split_last()?;
        if !matches!(last, Dim::Var) || !outer.iter().all(|d| matches!(d, Dim::Fixed(_))) {
            return None;
        }
        let (fixed, m) = a.arrmeta().fixed_dims();
        let Arrmeta::Var {
            values,
            offset,
            stride,
            ..
        } = m
        else {
            return None;
        };
        let shape: Vec<usize> = fixed.iter().map(|(n, _)| *n).collect();
        Some(Rows {
            count: shape.iter().product(),
            shape,
            fixed,
            data: a.data_block().bytes(),
            base: a.data_offset() as isize,
            vals: values.bytes(),
            offset: *offset as isize,
            stride: *stride,
        })
    }

    /// Row `r`'s first element's byte offset in the values block, and its
    /// length.
    pub(super) fn pair(&self, mut r: usize, name: &str) -> Result<(i128, usize), Error> {
        let mut at = self.base;
        if let [(_, s)] = self.fixed[..] {
            at += r as isize * s;
        } else {
            for &(n, s) in self.fixed.iter().rev() {
                at += (r % n) as isize * s;
                r /= n;
            }
        }
        let pair = usize::try_from(at)
            .ok()
            .and_then(|at| self.data.get(at..at.checked_add(PAIR_SIZE)?))
            .ok_or_else(|| outside(name, "a var row's (start, length) pair"))?;
        let (start, len) = read_pair(pair);
        Ok((self.offset as i128 + start as i64 as i128, len as usize))
    }

    /// Row `r`'s elements: borrowed when contiguous and aligned, gathered
    /// otherwise.
    pub(super) fn row<T: Element>(&self, r: usize, name: &str) -> Result<Cow<'a, [T]>, Error> {
        let (first, len) = self.pair(r, name)?;
        let size = std::mem::size_of::<T>();
        let outside = || outside(name, "a var row");
        let span = |i: usize| -> Option<&'a [u8]> {
            let at = first + i as i128 * self.stride as i128;
            let at = usize::try_from(at).ok()?;
            self.vals.get(at..at.checked_add(size)?)
        };
        if self.stride == size as isize && len > 0 {
            let start = usize::try_from(first).map_err(|_| outside())?;
            let bytes = len
                .checked_mul(size)
                .and_then(|n| self.vals.get(start..start.checked_add(n)?))
                .ok_or_else(outside)?;
            if let Some(xs) = cast_slice(bytes) {
                return Ok(Cow::Borrowed(xs));
            }
        }
        (0..len)
            .map(|i| span(i).and_then(read).ok_or_else(outside))
            .collect::<Result<Vec<T>, Error>>()
            .map(Cow::Owned)
    }
}

/// Rows per unit of work of the per-row fold.
pub(super) const UNIT_ROWS: usize = 1 << 10;

/// The rows of a `var` dimension of contiguous, aligned `T`s under one
/// fixed dimension (or none), read as slices with a pair read and a
/// bounds check each.
pub(super) struct RowSlices<'a, T> {
    /// The pairs' bytes, the first pair's offset and the step between them.
    data: &'a [u8],
    base: usize,
    step: isize,
    /// The values block's bytes and the offset of the rows' starts.
    vals: &'a [u8],
    offset: i128,
    _t: std::marker::PhantomData<T>,
}

impl<'a, T: Element> RowSlices<'a, T> {
    pub(super) fn of(rows: &Rows<'a>) -> Option<RowSlices<'a, T>> {
        let size = std::mem::size_of::<T>();
        let step = match rows.fixed[..] {
            [] => 0,
            [(_, s)] => s,
            _ => return None,
        };
        let aligned =
            (rows.vals.as_ptr() as usize + rows.offset as usize) % std::mem::align_of::<T>() == 0;
        (rows.stride == size as isize && aligned && rows.base >= 0).then_some(RowSlices {
            data: rows.data,
            base: rows.base as usize,
            step,
            vals: rows.vals,
            offset: rows.offset as i128,
            _t: std::marker::PhantomData,
        })
    }

    /// Row `r`'s elements, or `None` if its pair or elements lie outside
    /// their blocks (never, for a validated array) or are misaligned.
    #[inline]
    pub(super) fn row(&self, r: usize) -> Option<&'a [T]> {
        let at = (self.base as isize).checked_add((r as isize).checked_mul(self.step)?)?;
        let at = usize::try_from(at).ok()?;
        let (start, len) = read_pair(self.data.get(at..at.checked_add(PAIR_SIZE)?)?);
        if len == 0 {
            return Some(&[]);
        }
        let size = std::mem::size_of::<T>();
        let first = usize::try_from(self.offset + start as i64 as i128).ok()?;
        cast_slice(
            self.vals
                .get(first..first.checked_add((len as usize).checked_mul(size)?)?)?,
        )
    }
}

impl<'a, T: Element> RowSlices<'a, T> {
    /// The values block from the rows' offset on, as `B` lanes, for `B`
    /// of `T`'s size and alignment (`None` otherwise): the bits of the
    /// rows' elements and of whatever lies between and after them.
    fn lanes<B: Lane>(&self) -> Option<&'a [B]> {
        let size = std::mem::size_of::<B>();
        if std::mem::size_of::<T>() != size
            || std::mem::align_of::<T>() != std::mem::align_of::<B>()
        {
            return None;
        }
        let bytes = self.vals.get(usize::try_from(self.offset).ok()?..)?;
        cast_slice(&bytes[..bytes.len() / size * size])
    }

    /// Row `r`'s first element's index in [`Self::lanes`] and its length,
    /// or `None` if its pair lies outside its block or its start is not a
    /// whole element.
    #[inline]
    fn span(&self, r: usize) -> Option<(usize, usize)> {
        let at = (self.base as isize).checked_add((r as isize).checked_mul(self.step)?)?;
        let at = usize::try_from(at).ok()?;
        Self::span_of(self.data.get(at..at.checked_add(PAIR_SIZE)?)?)
    }

    /// The pairs of rows `first..first + n` as one slice, when they lie
    /// end to end (the rows of an `N * var * T` in C order, not a view
    /// that steps over or back along them): a batch's rows then read
    /// their pairs with one bounds check.
    #[inline]
    fn pairs(&self, first: usize, n: usize) -> Option<&'a [u8]> {
        if self.step != PAIR_SIZE as isize {
            return None;
        }
        let at = self.base.checked_add(first.checked_mul(PAIR_SIZE)?)?;
        self.data
            .get(at..at.checked_add(n.checked_mul(PAIR_SIZE)?)?)
    }

    /// A row's span (as [`Self::span`]) from its pair's bytes.
    #[inline(always)]
    fn span_of(pair: &[u8]) -> Option<(usize, usize)> {
        let (start, len) = read_pair(pair);
        let size = std::mem::size_of::<T>() as u64;
        (start % size == 0).then_some((usize::try_from(start / size).ok()?, len as usize))
    }
}

/// The values block as lanes of its elements' width.
#[derive(Clone, Copy)]
enum Wide<'a> {
    U32(&'a [u32]),
    U64(&'a [u64]),
}

/// Rows up to this long fold in one block of this many lanes.
const WIDE: usize = 16;

/// Lane masks: `KEEP[WIDE - l..][..WIDE]` keeps the first `l` lanes.
const KEEP: [u64; 2 * WIDE] = {
    let mut k = [0u64; 2 * WIDE];
    let mut i = 0;
    while i < WIDE {
        k[i] = !0;
        i += 1;
    }
    k
};

/// An element's bits, as the unsigned integer of its size: lanes are
/// selected with bit masks (no branch per lane).
trait Lane:
    Element
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::Not<Output = Self>
{
    /// `keep` (all ones or all zeros) at this width.
    fn mask(keep: u64) -> Self;
}

impl Lane for u32 {
    #[inline(always)]
    fn mask(keep: u64) -> u32 {
        keep as u32
    }
}

impl Lane for u64 {
    #[inline(always)]
    fn mask(keep: u64) -> u64 {
        keep
    }
}

/// The `T` whose bits `b` holds, or `neutral` where `B` is not `T`'s
/// size (never: lanes are only made at `T`'s size and alignment). The
/// element types of 4 and 8 bytes (integers, floats, `complex64`) take
/// every bit pattern, so any lane is a `T`; `bool`, whose bytes must be 0
/// or 1, is never read from a lane. Compiles to no instruction.
#[inline(always)]
fn from_bits<T: Element, B: Lane>(b: B, neutral: T) -> T {
    if std::mem::size_of::<T>() != std::mem::size_of::<B>() {
        return neutral;
    }
    read(bytes_of(&b)).unwrap_or(neutral)
}

/// `x`'s bits as a lane (zero where `B` is not `T`'s size: never).
#[inline(always)]
fn to_bits<T: Element, B: Lane>(x: T) -> B {
    if std::mem::size_of::<T>() != std::mem::size_of::<B>() {
        return B::mask(0);
    }
    read(bytes_of(&x)).unwrap_or(B::mask(0))
}

/// Block `at` of `lanes`, if it lies inside.
#[inline(always)]
fn block<B: Lane>(lanes: &[B], at: usize) -> Option<&[B; WIDE]> {
    lanes.get(at..at.checked_add(WIDE)?)?.try_into().ok()
}

/// Block `at`'s first `n` lanes as `T`s, the rest `fill`'s bits.
#[inline(always)]
fn masked<T: Element, B: Lane>(
    lanes: &[B],
    at: usize,
    n: usize,
    (fill, neutral): (B, T),
) -> Option<[T; WIDE]> {
    let b = block(lanes, at)?;
    let keep: &[u64; WIDE] = KEEP.get(WIDE - n..2 * WIDE - n)?.try_into().ok()?;
    let mut out = [neutral; WIDE];
    for k in 0..WIDE {
        let m = B::mask(keep[k]);
        out[k] = from_bits((b[k] & m) | (fill & !m), neutral);
    }
    Some(out)
}

/// Block `at` as `T`s.
#[inline(always)]
fn whole<T: Element, B: Lane>(lanes: &[B], at: usize, neutral: T) -> Option<[T; WIDE]> {
    let b = block(lanes, at)?;
    let mut out = [neutral; WIDE];
    for k in 0..WIDE {
        out[k] = from_bits(b[k], neutral);
    }
    Some(out)
}

/// Folds `g` of each element of the row `lanes[s..s + len]` (`1 <= len`)
/// in [`WIDE`] lanes: the last block is read whole and its lanes past the
/// row take `fill`'s bits (then `g` of it, which must leave `f`'s
/// results unchanged), so a short row takes no branch on its length; the
/// lanes then combine in a pairwise tree down to [`QUAD`] lanes, which
/// [`finish`] combines. `None` if a block would reach past `lanes`.
#[inline(always)]
fn fold_wide<T: Element, B: Lane, F: Fn(T, T) -> T, G: Fn(T) -> T>(
    lanes: &[B],
    (s, len): (usize, usize),
    fill: T,
    g: &G,
    f: &F,
) -> Option<[T; QUAD]> {
    let bits: B = to_bits(fill);
    let mut acc = if len <= WIDE {
        masked(lanes, s, len, (bits, fill))?.map(g)
    } else {
        let mut acc = whole(lanes, s, fill)?.map(g);
        let (mut at, end) = (s + WIDE, s.checked_add(len)?);
        while end - at >= WIDE {
            let b: [T; WIDE] = whole(lanes, at, fill)?;
            for k in 0..WIDE {
                acc[k] = f(acc[k], g(b[k]));
            }
            at += WIDE;
        }
        if at < end {
            // The first `end - at` lanes are the row's last ones.
            let b: [T; WIDE] = masked(lanes, at, end - at, (bits, fill))?;
            for k in 0..WIDE {
                acc[k] = f(acc[k], g(b[k]));
            }
        }
        acc
    };
    let mut w = WIDE;
    while w > QUAD {
        w /= 2;
        for k in 0..w {
            acc[k] = f(acc[k], acc[k + w]);
        }
    }
    Some([acc[0], acc[1], acc[2], acc[3]])
}

/// Each lane as it is: [`fold_wide`] of the elements themselves.
#[inline(always)]
fn itself<T>(x: T) -> T {
    x
}

/// The lanes a row's fold keeps until [`finish`] (one 256-bit register
/// of `f64`s). The folds of a batch of rows are stored at this width and
/// finished in a second loop; folding each row down to one value at once
/// has the compiler vectorise the whole fold in 128-bit halves (it builds
/// its vectors from the tree's root), with twice the instructions.
const QUAD: usize = 4;

/// The last levels of [`fold_wide`]'s pairwise tree.
#[inline(always)]
fn finish<T: Copy>(q: [T; QUAD], f: &impl Fn(T, T) -> T) -> T {
    f(f(q[0], q[2]), f(q[1], q[3]))
}

/// The row `xs` (`1..=BLOCK` elements) folded as [`fold_wide`] and
/// [`finish`] fold it (the same lanes, `fill` past the row's end, `g` of
/// each, the same pairwise tree: the same bits), from the slice itself:
/// for the rows whose last block would reach past the values.
#[inline(always)]
fn fold_wide_slice<T: Copy>(xs: &[T], fill: T, g: &impl Fn(T) -> T, f: &impl Fn(T, T) -> T) -> T {
    let lane = |i: usize| g(xs.get(i).copied().unwrap_or(fill));
    let mut acc: [T; WIDE] = std::array::from_fn(lane);
    let mut at = WIDE;
    while at < xs.len() {
        for (k, a) in acc.iter_mut().enumerate() {
            *a = f(*a, lane(at + k));
        }
        at += WIDE;
    }
    let mut w = WIDE;
    while w > 1 {
        w /= 2;
        for k in 0..w {
            acc[k] = f(acc[k], acc[k + w]);
        }
    }
    acc[0]
}

/// [`fold_unit_wide`] compiled for the CPU it runs on: with AVX2 where
/// the CPU has it (a 16-lane block of `f64` is then four registers, not
/// eight), as the baseline build otherwise. Both fold in the same order:
/// the same bits either way.
#[allow(clippy::too_many_arguments)]
fn fold_unit_wide_best<T, B, F, P>(
    rows: &RowSlices<'_, T>,
    lanes: &[B],
    first: usize,
    out: &mut [T],
    red: &Reduction<T, F>,
    start: (Option<T>, T),
    post: P,
    name: &str,
) -> Result<(), Box<(usize, Error)>>
where
    T: Element,
    B: Lane,
    F: Fn(T, T) -> T + Copy + Send + Sync,
    P: Fn(T, usize) -> T + Copy,
{
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, detected just above.
        return unsafe { fold_unit_wide_avx2(rows, lanes, first, out, red, start, post, name) };
    }
    fold_unit_wide(rows, lanes, first, out, red, start, post, name)
}

/// [`fold_unit_wide`] with AVX2 enabled.
///
/// # Safety
///
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(clippy::too_many_arguments)]
unsafe fn fold_unit_wide_avx2<T, B, F, P>(
    rows: &RowSlices<'_, T>,
    lanes: &[B],
    first: usize,
    out: &mut [T],
    red: &Reduction<T, F>,
    start: (Option<T>, T),
    post: P,
    name: &str,
) -> Result<(), Box<(usize, Error)>>
where
    T: Element,
    B: Lane,
    F: Fn(T, T) -> T + Copy + Send + Sync,
    P: Fn(T, usize) -> T + Copy,
{
    fold_unit_wide(rows, lanes, first, out, red, start, post, name)
}

/// Rows whose folds [`fold_unit_wide`] keeps at [`QUAD`] lanes before
/// finishing them.
const BATCH: usize = 16;

/// A batch entry that [`fold_unit_wide`] finishes by the slow path: a long
/// row, one of the last few, or one `span` cannot place.
const SLOW: usize = usize::MAX;

/// The spans (as [`RowSlices::span`] gives them) of rows `first..` into
/// `spans`, their pairs read with one bounds check when they lie end to
/// end.
#[inline(always)]
fn batch_spans<T: Element>(
    rows: &RowSlices<'_, T>,
    first: usize,
    spans: &mut [Option<(usize, usize)>],
) {
    match rows.pairs(first, spans.len()) {
        Some(pairs) => {
            for (s, pair) in spans.iter_mut().zip(pairs.chunks_exact(PAIR_SIZE)) {
                *s = RowSlices::<T>::span_of(pair);
            }
        }
        None => {
            for (i, s) in spans.iter_mut().enumerate() {
                *s = rows.span(first + i);
            }
        }
    }
}

/// Folds the row at `span` (from [`RowSlices::span`]) to [`QUAD`] lanes
/// in `q` with [`fold_wide`], and gives its length: `0` for an empty row
/// (`q` untouched), [`SLOW`] for one that [`fold_unit_wide`] folds by the
/// slow path.
#[inline(always)]
fn fold_quad<T: Element, B: Lane, F: Fn(T, T) -> T>(
    lanes: &[B],
    span: Option<(usize, usize)>,
    neutral: T,
    f: &F,
    q: &mut [T; QUAD],
) -> usize {
    match span {
        Some((_, 0)) => 0,
        Some((s, len)) if len <= BLOCK => match fold_wide(lanes, (s, len), neutral, &itself, f) {
            Some(v) => {
                *q = v;
                len
            }
            None => SLOW,
        },
        _ => SLOW,
    }
}

/// As [`fold_unit`], for a reorderable reduction with a neutral element:
/// each row, in order, folds with [`fold_wide`] (rows longer than
/// [`BLOCK`], and the last rows of the block, as [`fold_row`] does), in
/// batches of [`BATCH`] rows: the batch's rows fold to [`QUAD`] lanes
/// each, then each is finished. Each row's result is `post(result, row
/// length)` (a mean divides there, its division overlapping the next
/// rows' loads).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn fold_unit_wide<T, B, F, P>(
    rows: &RowSlices<'_, T>,
    lanes: &[B],
    first: usize,
    out: &mut [T],
    red: &Reduction<T, F>,
    (start, neutral): (Option<T>, T),
    post: P,
    name: &str,
) -> Result<(), Box<(usize, Error)>>
where
    T: Element,
    B: Lane,
    F: Fn(T, T) -> T + Copy + Send + Sync,
    P: Fn(T, usize) -> T + Copy,
{
    let f = red.combine;
    let outside = |r: usize| Box::new((r, outside(name, "a var row")));
    let mut quads = [[neutral; QUAD]; BATCH];
    let mut spans = [None; BATCH];
    let mut lens = [0usize; BATCH];
    for (b, batch) in out.chunks_mut(BATCH).enumerate() {
        let first = first + b * BATCH;
        // No closures in these loops: they would not inherit the caller's
        // target features (see `fold_unit_wide_best`).
        let n = batch.len().min(BATCH);
        batch_spans(rows, first, &mut spans[..n]);
        for i in 0..n {
            lens[i] = fold_quad(lanes, spans[i], neutral, &f, &mut quads[i]);
        }
        for (i, (o, (q, &l))) in batch.iter_mut().zip(quads.iter().zip(&lens)).enumerate() {
            let r = first + i;
            let (v, len) = match l {
                0 => (None, 0),
                SLOW => {
                    let xs = rows.row(r).ok_or_else(|| outside(r))?;
                    let v = if xs.is_empty() || xs.len() > BLOCK {
                        fold_row(xs, None, red)
                    } else {
                        // One of the last few: in `fold_wide`'s order, so
                        // a row's sum does not depend on where it lies.
                        Some(fold_wide_slice(xs, neutral, &itself, &f))
                    };
                    (v, xs.len())
                }
                len => (Some(finish(*q, &f)), len),
            };
            let v = match (start, v) {
                (Some(s), Some(v)) => f(s, v),
                (s, v) => v.or(s).ok_or_else(|| Box::new((r, no_identity(name))))?,
            };
            *o = post(v, len);
        }
    }
    Ok(())
}

/// Rows shorter than this fold by length, [`LANES`] rows side by side.
const SHORT: usize = 16;

/// Rows of one length folded side by side: several dependency chains in
/// flight, and a loop whose trip count repeats (no mispredicted exits).
const LANES: usize = 4;

/// Folds rows `first..` into `out` (one element per row), with `start`
/// folded in first (the identity or `initial`). The unit's short rows are
/// grouped by length (a counting sort of their indices) and each length's
/// rows fold [`LANES`] at a time, each row in order (as [`fold8`] folds a
/// row shorter than 16: the same bits); longer rows fold as [`fold_row`]
/// does. `Err` names the first row that fails.
fn fold_unit<T, F>(
    rows: &RowSlices<'_, T>,
    first: usize,
    out: &mut [T],
    red: &Reduction<T, F>,
    start: Option<T>,
    name: &str,
) -> Result<(), Box<(usize, Error)>>
where
    T: Element,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    let f = red.combine;
    let finish = |r: usize, v: Option<T>| -> Result<T, Box<(usize, Error)>> {
        match (start, v) {
            (Some(s), Some(v)) => Ok(f(s, v)),
            (s, v) => v.or(s).ok_or_else(|| Box::new((r, no_identity(name)))),
        }
    };
    let n = out.len();
    let mut xs: Vec<&[T]> = Vec::with_capacity(n);
    let mut count = [0usize; SHORT + 1];
    for i in 0..n {
        let r = first + i;
        let x = rows.row(r).ok_or_else(|| (r, outside(name, "a var row")))?;
        count[x.len().min(SHORT)] += 1;
        // Touch the row in order, so that the folds below, which visit
        // the rows by length, find them in cache.
        if let (Some(a), Some(b)) = (x.first(), x.last()) {
            std::hint::black_box((*a, *b));
        }
        xs.push(x);
    }
    // Row indices grouped by length (rows of SHORT or more in the last
    // group), in row order within each.
    let mut at = [0usize; SHORT + 2];
    for l in 0..=SHORT {
        at[l + 1] = at[l] + count[l];
    }
    let mut order = vec![0u32; n];
    let mut fill = at;
    for (i, x) in xs.iter().enumerate() {
        let l = x.len().min(SHORT);
        order[fill[l]] = i as u32;
        fill[l] += 1;
    }
    for &i in &order[at[0]..at[1]] {
        let i = i as usize;
        out[i] = finish(first + i, None)?;
    }
    for l in 1..SHORT {
        let group = &order[at[l]..at[l + 1]];
        let mut quads = group.chunks_exact(LANES);
        for q in &mut quads {
            let src: [&[T]; LANES] = std::array::from_fn(|k| &xs[q[k] as usize][..l]);
            let mut acc: [T; LANES] = std::array::from_fn(|k| src[k][0]);
            #[allow(clippy::needless_range_loop)] // lanes side by side
            for j in 1..l {
                for k in 0..LANES {
                    acc[k] = f(acc[k], src[k][j]);
                }
            }
            for k in 0..LANES {
                let i = q[k] as usize;
                out[i] = finish(first + i, Some(acc[k]))?;
            }
        }
        for &i in quads.remainder() {
            let i = i as usize;
            out[i] = finish(first + i, fold_row(xs[i], None, red))?;
        }
    }
    for &i in &order[at[SHORT]..at[SHORT + 1]] {
        let i = i as usize;
        out[i] = finish(first + i, fold_row(xs[i], None, red))?;
    }
    Ok(())
}

/// The error for a `where` mask that does not broadcast to `a`.
fn mask_mismatch(mask: &Array, a: &Array, name: &str) -> Error {
    Error::MaskShape {
        name: name.into(),
        mask: mask.ty().clone(),
        array: a.ty().clone(),
        axis: None,
    }
}

/// `mask` broadcast to `a`'s shape, as a `bool` array of that shape.
pub(super) fn mask_like<T: Element>(mask: &Array, a: &Array, name: &str) -> Result<Array, Error> {
    if mask.dtype().as_scalar() != Some(dynd_types::Scalar::Bool) {
        return Err(Error::MaskType {
            name: name.into(),
            found: mask.dtype().clone(),
        });
    }
    let m = crate::elwise::map2(mask, a, |m: bool, _: T| m)
        .map_err(|_| mask_mismatch(mask, a, name))?;
    if m.shape() != a.shape() {
        return Err(mask_mismatch(mask, a, name));
    }
    // Broadcasting goes both ways, but a mask must not stretch the array:
    // each row of the broadcast mask has the array's row's length (a
    // longer mask row would otherwise fold a row of length 1 repeated).
    if let (Some(mr), Some(ar)) = (Rows::of(&m), Rows::of(a)) {
        for r in 0..ar.count {
            let (mask_len, array_len) = (mr.pair(r, name)?.1, ar.pair(r, name)?.1);
            if mask_len != array_len {
                let mut index = vec![0; ar.shape.len()];
                let mut rest = r;
                for (i, n) in index.iter_mut().zip(&ar.shape).rev() {
                    *i = rest % n.max(&1);
                    rest /= n.max(&1);
                }
                return Err(Error::MaskRow {
                    name: name.into(),
                    index,
                    mask_len,
                    array_len,
                });
            }
        }
    }
    Ok(m)
}

/// The rows of `mask` (made by [`mask_like`] for `a`), which line up
/// with `a`'s.
pub(super) fn mask_rows<'m>(mask: &'m Array, a: &Array, name: &str) -> Result<Rows<'m>, Error> {
    Rows::of(mask).ok_or_else(|| mask_mismatch(mask, a, name))
}

/// Folds one row (only the elements its mask keeps).
fn fold_row<T, F>(xs: &[T], mask: Option<&[bool]>, red: &Reduction<T, F>) -> Option<T>
where
    T: Element,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    let f = red.combine;
    match mask {
        Some(m) => xs
            .iter()
            .zip(m)
            .filter(|(_, keep)| **keep)
            .map(|(x, _)| *x)
            .reduce(f),
        None if red.reorderable && xs.len() > BLOCK => fold_run(xs, f),
        None if red.reorderable => fold8(xs, &f),
        None => xs.iter().copied().reduce(f),
    }
}

/// The reduction of an array whose innermost dimension is `var` (see the
/// module docs), over `axes` (normalised, sorted).
pub(super) fn reduce_var<T, F>(
    a: &Array,
    axes: &[usize],
    args: &ReduceArgs<'_, T>,
    red: &Reduction<T, F>,
    name: &str,
    start: Option<T>,
) -> Result<Array, Error>
where
    T: Element,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    let rows = Rows::of(a).ok_or_else(|| Error::Unsupported {
        operation: "a reduction of var dimensions other than one innermost var under fixed ones (`N * var * T`)",
        ty: a.ty().clone(),
    })?;
    let mask = args.mask.map(|m| mask_like::<T>(m, a, name)).transpose()?;
    let mask_rows = mask.as_ref().map(|m| mask_rows(m, a, name)).transpose()?;
    let nfixed = rows.shape.len();
    let var_reduced = axes.contains(&nfixed);
    let reduced: Vec<bool> = (0..nfixed).map(|k| axes.contains(&k)).collect();
    let f = red.combine;
    let with_start = |r: Option<T>| match (start, r) {
        (Some(s), Some(r)) => Some(f(s, r)),
        (s, r) => r.or(s),
    };
    // One row, folded (`None` for no element kept).
    let fold = |r: usize| -> Result<Option<T>, Error> {
        let xs = rows.row::<T>(r, name)?;
        let m = match &mask_rows {
            Some(mr) => Some(mr.row::<bool>(r, name)?),
            None => None,
        };
        Ok(fold_row(&xs, m.as_deref(), red))
    };
    if var_reduced && axes.len() == 1 {
        // Each row is one result element: written in place, rows split
        // across threads.
        let mut dims: Vec<usize> = rows.shape.clone();
        if args.keepdims {
            dims.push(1);
        }
        // Every element is written below (or the call fails and the
        // array is dropped): no need to zero it first, except for `bool`,
        // whose slice must hold 0 or 1 from the start.
        let out_ty = Type::with_dims(dims.iter().map(|n| Dim::Fixed(*n)), T::SCALAR.into())?;
        let mut out = if T::SCALAR == dynd_types::Scalar::Bool {
            Array::zeros(&out_ty)?
        } else {
            Array::for_overwrite(&out_ty)?
        };
        let out_slice = crate::reduce::fresh_elements::<T>(&mut out);
        if mask_rows.is_none() {
            if let Some(done) = fold_each_row(
                &rows,
                out_slice,
                red,
                start,
                name,
                None::<fn(T, usize) -> T>,
            ) {
                return done.map(|()| out);
            }
        }
        let failed = std::sync::Mutex::new(None);
        let work = |(i, o): (usize, &mut T)| match fold(i).map(with_start) {
            Ok(Some(v)) => *o = v,
            Ok(None) => note_failure(&failed, i, no_identity(name)),
            Err(e) => note_failure(&failed, i, e),
        };
        if out_slice.len() >= PARALLEL_ROWS && rayon::current_num_threads() > 1 {
            out_slice.par_iter_mut().enumerate().for_each(work);
        } else {
            out_slice.iter_mut().enumerate().for_each(work);
        }
        return match failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some((_, e)) => Err(e),
            None => Ok(out),
        };
    }
    // Each row belongs to one group: the kept fixed dimensions' index.
    let kept_shape: Vec<usize> = (0..nfixed)
        .filter(|k| !reduced[*k])
        .map(|k| rows.shape[k])
        .collect();
    let ngroups: usize = kept_shape.iter().product();
    // One group (the common case: every fixed axis reduced) needs no
    // index per row.
    let groups = if ngroups == 1 {
        Vec::new()
    } else {
        group_of_rows(&rows.shape, &reduced)
    };
    let group = |r: usize| if ngroups == 1 { 0 } else { groups[r] };
    let mut out_fixed = result_fixed_dims(&rows.shape, &reduced, args.keepdims);
    if var_reduced {
        // Fold each row, then the rows of each group, in row order.
        let per_row: Vec<Option<T>> = if rows.count >= PARALLEL_ROWS {
            (0..rows.count)
                .into_par_iter()
                .map(fold)
                .collect::<Result<_, _>>()?
        } else {
            (0..rows.count).map(fold).collect::<Result<_, _>>()?
        };
        let mut acc: Vec<Option<T>> = vec![None; ngroups];
        for (r, v) in per_row.into_iter().enumerate() {
            if let Some(v) = v {
                let g = group(r);
                acc[g] = Some(acc[g].map_or(v, |p| f(p, v)));
            }
        }
        let values = acc
            .into_iter()
            .map(|v| with_start(v).ok_or_else(|| no_identity(name)))
            .collect::<Result<Vec<T>, Error>>()?;
        if args.keepdims {
            out_fixed.push(1);
        }
        return Array::from_shape_vec(&out_fixed, values);
    }
    // Across the rows: each group's rows folded position by position.
    if mask_rows.is_none() {
        let slices = RowSlices::<T>::of(&rows);
        // Rows `range` folded into one line per group.
        let fold_rows = |range: std::ops::Range<usize>| -> Result<Vec<Vec<T>>, Error> {
            if let (Some(walk), Some(neutral)) = (slices.as_ref(), red.neutral) {
                let across = Across {
                    walk,
                    rows: &rows,
                    groups: &groups,
                    ngroups,
                    neutral,
                    name,
                };
                if let Some(l) = walk.lanes::<u64>() {
                    return across.fold_best(l, range, f);
                }
                if let Some(l) = walk.lanes::<u32>() {
                    return across.fold_best(l, range, f);
                }
            }
            let mut acc: Vec<Vec<T>> = vec![Vec::new(); ngroups];
            for r in range {
                let xs = match slices.as_ref().and_then(|s| s.row(r)) {
                    Some(xs) => Cow::Borrowed(xs),
                    None => rows.row::<T>(r, name)?,
                };
                fold_into_line(&mut acc[group(r)], &xs, f);
            }
            Ok(acc)
        };
        let acc = if red.reorderable && rows.count >= PARALLEL_ROWS && ngroups <= ACROSS_GROUPS {
            // Fixed runs of rows fold on their own (in parallel when
            // there are threads), then merge in run order: the grouping
            // depends on the row count alone, so the bits do not depend
            // on the threads.
            let runs: Vec<std::ops::Range<usize>> = (0..rows.count)
                .step_by(ACROSS_RUN)
                .map(|r| r..(r + ACROSS_RUN).min(rows.count))
                .collect();
            let parts: Vec<Vec<Vec<T>>> = if rayon::current_num_threads() > 1 {
                runs.into_par_iter()
                    .map(fold_rows)
                    .collect::<Result<_, _>>()?
            } else {
                runs.into_iter().map(fold_rows).collect::<Result<_, _>>()?
            };
            let mut parts = parts.into_iter();
            let mut acc = parts.next().unwrap_or_else(|| vec![Vec::new(); ngroups]);
            for part in parts {
                for (line, p) in acc.iter_mut().zip(part) {
                    fold_into_line(line, &p, f);
                }
            }
            acc
        } else {
            fold_rows(0..rows.count)?
        };
        return var_array(&out_fixed, acc, |v| Ok(start.map_or(v, |s| f(s, v))));
    }
    let mut acc: Vec<Vec<Option<T>>> = vec![Vec::new(); ngroups];
    for r in 0..rows.count {
        let g = &group(r);
        let xs = rows.row::<T>(r, name)?;
        let m = match &mask_rows {
            Some(mr) => Some(mr.row::<bool>(r, name)?),
            None => None,
        };
        let line = &mut acc[*g];
        if line.len() < xs.len() {
            line.resize(xs.len(), None);
        }
        for (j, x) in xs.iter().enumerate() {
            if m.as_ref()
                .is_none_or(|m| m.get(j).copied().unwrap_or(false))
            {
                line[j] = Some(line[j].map_or(*x, |p| f(p, *x)));
            }
        }
    }
    var_array(&out_fixed, acc, |v| {
        with_start(v).ok_or_else(|| no_identity(name))
    })
}

/// Folds each row of `rows` into `out` (one element per row) on the
/// unit fast paths (masked blocks for a reorderable reduction with a
/// neutral element, else by length), units of rows split across threads;
/// `finish` then runs over each unit's results while they are in cache,
/// given the rows and the unit's first row. `None` when the rows are not
/// contiguous, aligned `T`s (the caller folds them row by row).
fn fold_each_row<T, F, P>(
    rows: &Rows<'_>,
    out: &mut [T],
    red: &Reduction<T, F>,
    start: Option<T>,
    name: &str,
    post: Option<P>,
) -> Option<Result<(), Error>>
where
    T: Element,
    F: Fn(T, T) -> T + Copy + Send + Sync,
    P: Fn(T, usize) -> T + Copy + Sync,
{
    let walk = RowSlices::<T>::of(rows)?;
    // Branch-free blocks pay off where a lane is one register lane: the
    // 4- and 8-byte types.
    let wide = if !red.reorderable {
        None
    } else if let Some(l) = walk.lanes::<u64>() {
        Some(Wide::U64(l))
    } else {
        walk.lanes::<u32>().map(Wide::U32)
    };
    Some(each_unit(out, |first, chunk| match (red.neutral, wide) {
        (Some(n), Some(Wide::U64(l))) => match post {
            Some(p) => fold_unit_wide_best(&walk, l, first, chunk, red, (start, n), p, name),
            None => fold_unit_wide_best(&walk, l, first, chunk, red, (start, n), same, name),
        },
        (Some(n), Some(Wide::U32(l))) => match post {
            Some(p) => fold_unit_wide_best(&walk, l, first, chunk, red, (start, n), p, name),
            None => fold_unit_wide_best(&walk, l, first, chunk, red, (start, n), same, name),
        },
        _ => fold_unit(&walk, first, chunk, red, start, name).inspect(|()| {
            if let Some(p) = post {
                for (i, v) in chunk.iter_mut().enumerate() {
                    // Every row was read by the fold just now.
                    let r = first + i;
                    let len = match walk.span(r) {
                        Some((_, len)) => len,
                        None => rows.pair(r, name).map_or(0, |p| p.1),
                    };
                    *v = p(*v, len);
                }
            }
        }),
    }))
}

/// Runs `work(first row, results)` over `out` in units of [`UNIT_ROWS`]
/// rows, split across threads when there are many; the error of the
/// first row that fails, as a serial run reports it.
pub(super) fn each_unit<T: Send>(
    out: &mut [T],
    work: impl Fn(usize, &mut [T]) -> Result<(), Box<(usize, Error)>> + Sync,
) -> Result<(), Error> {
    let failed = std::sync::Mutex::new(None);
    let unit = |(u, chunk): (usize, &mut [T])| {
        if let Err(e) = work(u * UNIT_ROWS, chunk) {
            let (i, e) = *e;
            note_failure(&failed, i, e);
        }
    };
    if out.len() >= PARALLEL_ROWS && rayon::current_num_threads() > 1 {
        out.par_chunks_mut(UNIT_ROWS).enumerate().for_each(unit);
    } else {
        out.chunks_mut(UNIT_ROWS).enumerate().for_each(unit);
    }
    match failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// The variance (as `fin` finishes it) of each row of `rows` into `out`,
/// in two passes over each row while it is in cache: the row's sum folds
/// as [`fold_unit_wide`] folds it, in masked blocks of [`WIDE`] lanes and
/// batches of [`BATCH`] rows, and its mean is that over its length; the
/// squared deviations from the mean then fold the same way, the lanes
/// past the row's end holding the mean (a deviation of zero). An empty
/// row's variance is NaN; rows longer than [`BLOCK`] fold as `long`
/// folds them. `None` when the rows are not contiguous, aligned `T`s.
pub(super) fn variance_each_row<T: Float>(
    rows: &Rows<'_>,
    out: &mut [T],
    fin: Finish,
    long: impl Fn(&[T]) -> T + Sync,
    name: &str,
) -> Option<Result<(), Error>> {
    let walk = RowSlices::<T>::of(rows)?;
    let wide = match walk.lanes::<u64>() {
        Some(l) => Wide::U64(l),
        None => Wide::U32(walk.lanes::<u32>()?),
    };
    let unit = VarUnit {
        rows: &walk,
        fin,
        long: &long,
        name,
    };
    Some(each_unit(out, |first, chunk| match wide {
        Wide::U64(lanes) => unit.run_best(lanes, first, chunk),
        Wide::U32(lanes) => unit.run_best(lanes, first, chunk),
    }))
}

/// What [`VarUnit::run`] folds: the rows, how each variance finishes, how
/// a row longer than [`BLOCK`] folds, and the operation's name.
struct VarUnit<'r, 'a, T, L> {
    rows: &'r RowSlices<'a, T>,
    fin: Finish,
    long: &'r L,
    name: &'r str,
}

/// `a + b`, as a function the folds inline.
#[inline(always)]
fn add<T: Float>(a: T, b: T) -> T {
    a + b
}

impl<T: Float, L: Fn(&[T]) -> T> VarUnit<'_, '_, T, L> {
    /// [`Self::run`] compiled for the CPU it runs on, as
    /// [`fold_unit_wide_best`] is.
    fn run_best<B: Lane>(
        &self,
        lanes: &[B],
        first: usize,
        out: &mut [T],
    ) -> Result<(), Box<(usize, Error)>> {
        /// [`VarUnit::run`] with AVX2 enabled.
        ///
        /// # Safety
        ///
        /// The CPU has AVX2.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn avx2<T: Float, B: Lane, L: Fn(&[T]) -> T>(
            unit: &VarUnit<'_, '_, T, L>,
            lanes: &[B],
            first: usize,
            out: &mut [T],
        ) -> Result<(), Box<(usize, Error)>> {
            unit.run(lanes, first, out)
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, detected just above.
            return unsafe { avx2(self, lanes, first, out) };
        }
        self.run(lanes, first, out)
    }

    /// The variance of rows `first..` into `out`, as [`variance_each_row`]
    /// describes, one batch of rows at a time: each pass folds the batch's
    /// rows to [`QUAD`] lanes before finishing them (see [`QUAD`]).
    #[inline(always)]
    fn run<B: Lane>(
        &self,
        lanes: &[B],
        first: usize,
        out: &mut [T],
    ) -> Result<(), Box<(usize, Error)>> {
        let VarUnit {
            rows,
            fin,
            long,
            name,
        } = *self;
        let outside = |r: usize| Box::new((r, outside(name, "a var row")));
        let mut quads = [[T::ZERO; QUAD]; BATCH];
        let mut spans = [None; BATCH];
        let mut lens = [0usize; BATCH];
        let mut means = [T::ZERO; BATCH];
        for (b, batch) in out.chunks_mut(BATCH).enumerate() {
            let first = first + b * BATCH;
            let n = batch.len().min(BATCH);
            batch_spans(rows, first, &mut spans[..n]);
            for i in 0..n {
                lens[i] = fold_quad(lanes, spans[i], T::ZERO, &add, &mut quads[i]);
            }
            // The divisions and roots of the batch run side by side (those
            // of empty and slow rows too, unused): one row's alone would
            // wait on the divider.
            for i in 0..n {
                means[i] = finish(quads[i], &add);
            }
            for i in 0..n {
                means[i] = means[i] / T::of_count(lens[i]);
            }
            for i in 0..n {
                if lens[i] != 0 && lens[i] != SLOW {
                    let mean = means[i];
                    let dev = |x: T| (x - mean) * (x - mean);
                    let span = spans[i].unwrap_or_default();
                    match fold_wide(lanes, span, mean, &dev, &add) {
                        Some(q) => quads[i] = q,
                        None => lens[i] = SLOW,
                    }
                }
            }
            for i in 0..n {
                batch[i] = finish(quads[i], &add);
            }
            fin.of_each(&mut batch[..n], &lens[..n]);
            for (i, o) in batch.iter_mut().enumerate() {
                *o = match lens[i] {
                    0 => T::NAN,
                    SLOW => {
                        let xs = rows.row(first + i).ok_or_else(|| outside(first + i))?;
                        match xs.len() {
                            0 => T::NAN,
                            len if len > BLOCK => long(xs),
                            len => {
                                // One of the last few: in the blocks' order, so
                                // a row's variance does not depend on where it
                                // lies.
                                let sum = fold_wide_slice(xs, T::ZERO, &itself, &add);
                                let mean = sum / T::of_count(len);
                                let dev = |x: T| (x - mean) * (x - mean);
                                fin.of(fold_wide_slice(xs, mean, &dev, &add), len)
                            }
                        }
                    }
                    _ => *o,
                };
            }
        }
        Ok(())
    }
}

/// The fold's result as it is (no `post` step).
#[inline(always)]
fn same<T>(v: T, _: usize) -> T {
    v
}

/// The mean of each row of `a` (fixed dimensions around an innermost
/// `var` of `T`: `axis=-1`, no mask), `keepdims` as
/// [`ReduceArgs`] has it: each unit of rows summed by
/// `sum` (the bits [`reduce`](super::reduce) gives) and divided by its
/// rows' lengths (`of_len`, read from the row metadata) while in cache,
/// with no count array and no pass of its own. An empty row's mean is
/// `0 / 0`. `None` when the rows are not contiguous, aligned `T`s (the
/// caller divides the sum:
/// [`divide_by_row_lengths`](super::divide_by_row_lengths)).
///
/// # Errors
///
/// An error from the fold (a row outside its block: never, for a
/// validated array).
pub fn mean_of_rows<T, F>(
    a: &Array,
    keepdims: bool,
    sum: &Reduction<T, F>,
    of_len: impl Fn(usize) -> T + Sync,
    name: &str,
) -> Result<Option<Array>, Error>
where
    T: Element + std::ops::Div<Output = T>,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    let Some(rows) = Rows::of(a) else {
        return Ok(None);
    };
    if RowSlices::<T>::of(&rows).is_none() {
        return Ok(None);
    }
    let mut dims: Vec<usize> = rows.shape.clone();
    if keepdims {
        dims.push(1);
    }
    let out_ty = Type::with_dims(dims.iter().map(|n| Dim::Fixed(*n)), T::SCALAR.into())?;
    let mut out = Array::for_overwrite(&out_ty)?;
    let out_slice = crate::reduce::fresh_elements::<T>(&mut out);
    let divide = |s: T, len: usize| s / of_len(len);
    match fold_each_row(&rows, out_slice, sum, sum.identity, name, Some(divide)) {
        Some(done) => done.map(|()| Some(out)),
        None => Ok(None),
    }
}

/// [`super::count`] of an array whose innermost dimension is `var` (see
/// the module docs), over `axes` (normalised, sorted): from the rows'
/// lengths alone.
pub(super) fn count_var(
    a: &Array,
    axes: &[usize],
    keepdims: bool,
    name: &str,
) -> Result<Array, Error> {
    let rows = Rows::of(a).ok_or_else(|| Error::Unsupported {
        operation:
            "counting var dimensions other than one innermost var under fixed ones (`N * var * T`)",
        ty: a.ty().clone(),
    })?;
    let nfixed = rows.shape.len();
    let reduced: Vec<bool> = (0..nfixed).map(|k| axes.contains(&k)).collect();
    let groups = group_of_rows(&rows.shape, &reduced);
    let ngroups: usize = (0..nfixed)
        .filter(|k| !reduced[*k])
        .map(|k| rows.shape[k])
        .product();
    let mut out_fixed = result_fixed_dims(&rows.shape, &reduced, keepdims);
    if axes.contains(&nfixed) {
        let mut acc = vec![0i64; ngroups];
        for (r, g) in groups.iter().enumerate() {
            acc[*g] += rows.pair(r, name)?.1 as i64;
        }
        if keepdims {
            out_fixed.push(1);
        }
        return Array::from_shape_vec(&out_fixed, acc);
    }
    // Across the rows: at position `j`, the rows longer than `j` (a
    // histogram of the lengths, summed from the longest down).
    let mut lines: Vec<Vec<i64>> = vec![Vec::new(); ngroups];
    for (r, g) in groups.iter().enumerate() {
        let len = rows.pair(r, name)?.1;
        let line = &mut lines[*g];
        if line.len() < len + 1 {
            line.resize(len + 1, 0);
        }
        line[len] += 1;
    }
    for line in &mut lines {
        let mut longer = 0;
        for c in line.iter_mut().rev() {
            longer += *c;
            *c = longer;
        }
        // Position `j` counts the rows of length `j + 1` or more.
        if !line.is_empty() {
            line.remove(0);
        }
    }
    var_array(&out_fixed, lines, Ok)
}

/// The result's fixed dimensions: `shape` without the `reduced` ones, or
/// with them as 1 when `keepdims`.
pub(super) fn result_fixed_dims(shape: &[usize], reduced: &[bool], keepdims: bool) -> Vec<usize> {
    let mut out = Vec::with_capacity(shape.len() + 1);
    for (&r, &n) in reduced.iter().zip(shape) {
        match (r, keepdims) {
            (false, _) => out.push(n),
            (true, true) => out.push(1),
            (true, false) => {}
        }
    }
    out
}

/// For each row (in C order of the fixed `shape`), the C-order index of its
/// group: its position in the dimensions not `reduced`.
pub(super) fn group_of_rows(shape: &[usize], reduced: &[bool]) -> Vec<usize> {
    // The group is an offset with C-order strides over the kept
    // dimensions and 0 along the reduced ones.
    let mut step = 1isize;
    let mut dims = vec![(0usize, 0isize); shape.len()];
    for k in (0..shape.len()).rev() {
        dims[k] = (shape[k], if reduced[k] { 0 } else { step });
        if !reduced[k] {
            step *= shape[k] as isize;
        }
    }
    let mut out = Vec::with_capacity(shape.iter().product());
    dynd_array::offsets::for_each_offset(&dims, |g| out.push(g as usize));
    out
}

/// A new `fixed... * var * T` array of the given fixed shape, from one row
/// of values per element, each value finished by `finish`.
pub(super) fn var_array<T: Element, V>(
    shape: &[usize],
    lines: Vec<Vec<V>>,
    finish: impl Fn(V) -> Result<T, Error>,
) -> Result<Array, Error> {
    let size = std::mem::size_of::<T>();
    let mut values: Vec<T> = Vec::with_capacity(lines.iter().map(Vec::len).sum());
    let mut pairs = vec![0u8; lines.len() * PAIR_SIZE];
    for (line, pair) in lines.into_iter().zip(pairs.chunks_exact_mut(PAIR_SIZE)) {
        write_pair(pair, (values.len() * size) as u64, line.len() as u64);
        for v in line {
            values.push(finish(v)?);
        }
    }
    packed_rows(shape, values, &pairs)
}

/// The `shape * var * T` array over packed `values`, row `i`'s (byte
/// start, length) pair at `pairs[i * PAIR_SIZE..]` (checked, as every
/// array's parts are).
fn packed_rows<T: Element>(shape: &[usize], values: Vec<T>, pairs: &[u8]) -> Result<Array, Error> {
    let element = Arrmeta::Var {
        values: MemoryBlock::from_vec(values),
        offset: 0,
        stride: std::mem::size_of::<T>() as isize,
        packed: true,
        element: Box::new(Arrmeta::Scalar),
    };
    let meta = crate::array::c_order_meta(shape, PAIR_SIZE, element)?;
    let ty = Type::with_dims(
        shape.iter().map(|n| Dim::Fixed(*n)).chain([Dim::Var]),
        T::SCALAR.into(),
    )?;
    Array::try_from_parts(ty, Arc::new(meta), MemoryBlock::from_bytes(pairs), 0)
}

/// The scan of each row of an array whose innermost dimension is `var`,
/// along that axis (`axis` must be it).
pub(super) fn accumulate_rows<T: Element, F: Fn(T, T) -> T>(
    a: &Array,
    axis: usize,
    f: F,
    name: &str,
) -> Result<Array, Error> {
    let unsupported = || Error::Unsupported {
        operation:
            "a scan of an array with a var dimension other than along its innermost var axis",
        ty: a.ty().clone(),
    };
    let rows = Rows::of(a).ok_or_else(unsupported)?;
    if axis != rows.shape.len() {
        return Err(unsupported());
    }
    // One values buffer and one pair per row, written as the rows are
    // read (plain slices where `RowSlices` can give them).
    let slices = RowSlices::<T>::of(&rows);
    let size = std::mem::size_of::<T>();
    let mut total = 0usize;
    for r in 0..rows.count {
        total = total.saturating_add(rows.pair(r, name)?.1);
    }
    let mut values: Vec<T> = Vec::new();
    values
        .try_reserve_exact(total)
        .map_err(|_| Error::alloc(total as u128 * size as u128))?;
    let mut pairs = vec![0u8; rows.count * PAIR_SIZE];
    for (r, pair) in pairs.chunks_exact_mut(PAIR_SIZE).enumerate() {
        let xs = match slices.as_ref().and_then(|s| s.row(r)) {
            Some(xs) => Cow::Borrowed(xs),
            None => rows.row::<T>(r, name)?,
        };
        write_pair(pair, (values.len() * size) as u64, xs.len() as u64);
        if let Some((&first, rest)) = xs.split_first() {
            // `extend` over a slice's `map` writes without a capacity
            // check per element, so `acc` stays in a register.
            let mut acc = first;
            values.push(acc);
            values.extend(rest.iter().map(|&x| {
                acc = f(acc, x);
                acc
            }));
        }
    }
    packed_rows(&rows.shape, values, &pairs)
}

/// A fold across rows (left-aligned, one line per group) with a neutral
/// element: each line is kept at least [`WIDE`] long with `neutral` past
/// its end, so a short row folds into it as one masked block (its lanes
/// past the row take `neutral`'s bits, which leave the line unchanged)
/// with no branch on its length. Every position is folded in row order
/// from its first value, as [`fold_into_line`] folds it: the same bits.
struct Across<'a, T> {
    walk: &'a RowSlices<'a, T>,
    rows: &'a Rows<'a>,
    /// Each row's group; empty for one group.
    groups: &'a [usize],
    ngroups: usize,
    neutral: T,
    name: &'a str,
}

impl<T: Element> Across<'_, T> {
    /// [`Self::fold`] compiled for the CPU it runs on (AVX2 where it has
    /// it); the same bits either way.
    fn fold_best<B: Lane, F: Fn(T, T) -> T + Copy>(
        &self,
        lanes: &[B],
        range: std::ops::Range<usize>,
        f: F,
    ) -> Result<Vec<Vec<T>>, Error> {
        /// [`Across::fold`] with AVX2 enabled.
        ///
        /// # Safety
        ///
        /// The CPU has AVX2.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn avx2<T: Element, B: Lane, F: Fn(T, T) -> T + Copy>(
            across: &Across<'_, T>,
            lanes: &[B],
            range: std::ops::Range<usize>,
            f: F,
        ) -> Result<Vec<Vec<T>>, Error> {
            across.fold(lanes, range, f)
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, detected just above.
            return unsafe { avx2(self, lanes, range, f) };
        }
        self.fold(lanes, range, f)
    }

    /// Rows `range` folded into one line per group. `lanes` are the values
    /// block as `T`-sized lanes ([`RowSlices::lanes`]).
    #[inline(always)]
    fn fold<B: Lane, F: Fn(T, T) -> T + Copy>(
        &self,
        lanes: &[B],
        range: std::ops::Range<usize>,
        f: F,
    ) -> Result<Vec<Vec<T>>, Error> {
        let neutral = self.neutral;
        let fill: B = to_bits(neutral);
        let mut lines: Vec<Vec<T>> = vec![vec![neutral; WIDE]; self.ngroups];
        let mut used = vec![0usize; self.ngroups];
        for r in range {
            let g = if self.groups.is_empty() {
                0
            } else {
                self.groups[r]
            };
            let (line, used) = (&mut lines[g], &mut used[g]);
            if let Some((s, len)) = self.walk.span(r).filter(|&(_, len)| len <= WIDE) {
                if let Some(b) = masked::<T, B>(lanes, s, len, (fill, neutral)) {
                    let head = &mut line[..WIDE];
                    for k in 0..WIDE {
                        head[k] = f(head[k], b[k]);
                    }
                    *used = (*used).max(len);
                    continue;
                }
            }
            // A long row, or one whose block would reach past the values.
            let xs = match self.walk.row(r) {
                Some(xs) => Cow::Borrowed(xs),
                None => self.rows.row::<T>(r, self.name)?,
            };
            if line.len() < xs.len() {
                line.resize(xs.len(), neutral);
            }
            for (p, x) in line.iter_mut().zip(xs.iter()) {
                *p = f(*p, *x);
            }
            *used = (*used).max(xs.len());
        }
        for (line, n) in lines.iter_mut().zip(used) {
            line.truncate(n);
        }
        Ok(lines)
    }
}

/// Folds `xs` into `line` position by position (left-aligned), the
/// line growing to `xs`'s length.
fn fold_into_line<T: Copy>(line: &mut Vec<T>, xs: &[T], f: impl Fn(T, T) -> T) {
    let shared = line.len().min(xs.len());
    for (p, x) in line.iter_mut().zip(&xs[..shared]) {
        *p = f(*p, *x);
    }
    line.extend_from_slice(&xs[shared..]);
}

/// `sum`, the reduction of `a` (`N * var * T`, or one var dimension
/// alone) over its `var` axis alone, divided element by element by the
/// length of its row: a per-row mean without a count array. `None` when
/// `a` or `sum` is not of that form.
///
/// # Errors
///
/// A value error if a row's pair lies outside its block (never, for a
/// validated array).
pub(super) fn divide_by_row_lengths<T: Element + std::ops::Div<Output = T>>(
    sum: &Array,
    a: &Array,
    of_len: impl Fn(usize) -> T,
    name: &str,
) -> Result<Option<Array>, Error> {
    let Some(rows) = Rows::of(a) else {
        return Ok(None);
    };
    let Some(shape) = sum.ty().fixed_shape() else {
        return Ok(None);
    };
    let Ok(xs) = sum.as_slice::<T>() else {
        return Ok(None);
    };
    if xs.len() != rows.count {
        return Ok(None);
    }
    // The pairs read as `RowSlices` reads them where it can (a load and a
    // bounds check per row), as `Rows::pair` does otherwise.
    let slices = RowSlices::<T>::of(&rows);
    let mut means = Vec::with_capacity(xs.len());
    for (r, &x) in xs.iter().enumerate() {
        let len = match slices.as_ref().and_then(|s| s.span(r)) {
            Some((_, len)) => len,
            None => rows.pair(r, name)?.1,
        };
        means.push(x / of_len(len));
    }
    Array::from_shape_vec(&shape, means).map(Some)
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::*;

    /// The AVX2 build of the masked-block fold gives the baseline build's
    /// bits (the order of the additions is the same; only the registers
    /// differ).
    #[test]
    fn avx2_and_baseline_folds_give_the_same_bits() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let rows: Vec<Vec<f64>> = (0..3000)
            .map(|_| {
                let len = (next() % 40) as usize;
                (0..len)
                    .map(|_| (next() % 2001) as f64 * 1e-3 - 1.0)
                    .collect()
            })
            .collect();
        let a = Array::from_nested(rows).unwrap();
        let rows = Rows::of(&a).unwrap();
        let walk = RowSlices::<f64>::of(&rows).unwrap();
        let lanes = walk.lanes::<u64>().unwrap();
        let red = Reduction {
            identity: Some(0.0),
            combine: |x: f64, y: f64| x + y,
            reorderable: true,
            neutral: Some(-0.0),
        };
        let mut base = vec![0.0f64; rows.count];
        let mut avx2 = vec![1.0f64; rows.count];
        fold_unit_wide(
            &walk,
            lanes,
            0,
            &mut base,
            &red,
            (Some(0.0), -0.0),
            same,
            "sum",
        )
        .unwrap();
        // SAFETY: the CPU has AVX2 (checked above).
        unsafe {
            fold_unit_wide_avx2(
                &walk,
                lanes,
                0,
                &mut avx2,
                &red,
                (Some(0.0), -0.0),
                same,
                "sum",
            )
        }
        .unwrap();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&base), bits(&avx2));
    }

    /// The AVX2 build of the per-row variance gives the baseline build's
    /// bits, for rows of every length up to past the blocked path.
    #[test]
    fn avx2_and_baseline_variances_give_the_same_bits() {
        if !std::arch::is_x86_feature_detected!("avx2") {
            return;
        }
        let rows: Vec<Vec<f64>> = (0..600)
            .map(|n| {
                (0..n % 300)
                    .map(|i| ((i * 7 + n) as f64 * 0.7316).sin() * 1e3 + 1e5)
                    .collect()
            })
            .collect();
        let a = Array::from_nested(rows).unwrap();
        let rows = Rows::of(&a).unwrap();
        let walk = RowSlices::<f64>::of(&rows).unwrap();
        let lanes = walk.lanes::<u64>().unwrap();
        let long = |xs: &[f64]| xs.len() as f64;
        for (ddof, root) in [(0, false), (1, true)] {
            let fin = Finish { ddof, root };
            let mut base = vec![0.0f64; rows.count];
            let mut best = vec![1.0f64; rows.count];
            let unit = VarUnit {
                rows: &walk,
                fin,
                long: &long,
                name: "var",
            };
            unit.run(lanes, 0, &mut base).unwrap();
            unit.run_best(lanes, 0, &mut best).unwrap();
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&base), bits(&best), "ddof {ddof}");
        }
    }

    /// A row folds to the same bits wherever it lies: the last rows of the
    /// values (whose last block would reach past them) as the others.
    #[test]
    fn a_rows_fold_does_not_depend_on_where_it_lies() {
        // Values whose sums round differently in another grouping.
        let row = |n: usize, k: f64| {
            (0..n)
                .map(|i| ((i as f64 + k) * 0.7316).sin() * 1e3)
                .collect::<Vec<f64>>()
        };
        let rows: Vec<Vec<f64>> = (0..40).map(|n| row(n, n as f64 * 0.37)).collect();
        let mut padded = rows.clone();
        padded.extend((0..4).map(|_| row(64, 0.5)));
        let red = Reduction {
            identity: Some(0.0),
            combine: |x: f64, y: f64| x + y,
            reorderable: true,
            neutral: Some(-0.0),
        };
        let fold = |rows: Vec<Vec<f64>>| {
            // The values exactly as long as the rows (no spare capacity).
            let mut offsets = vec![0usize];
            for r in &rows {
                offsets.push(offsets.last().unwrap() + r.len());
            }
            let values: Vec<f64> = rows.concat();
            let a = Array::from_offsets(values, &offsets).unwrap();
            let rows = Rows::of(&a).unwrap();
            let walk = RowSlices::<f64>::of(&rows).unwrap();
            let lanes = walk.lanes::<u64>().unwrap();
            let mut out = vec![0.0f64; rows.count];
            fold_unit_wide(
                &walk,
                lanes,
                0,
                &mut out,
                &red,
                (Some(0.0), -0.0),
                same,
                "sum",
            )
            .unwrap();
            out.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
        };
        assert_eq!(fold(rows.clone())[..], fold(padded)[..rows.len()]);
    }
}
