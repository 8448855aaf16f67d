//! The segmented pass of a ragged elementwise call: operands that are
//! 0-d, a value per row, or rows of contiguous elements lying end to end
//! with the result's lengths run as flat loops over their values, in units
//! of [`CHUNK_ROWS`] rows (on several threads for long results). Each unit
//! checks its rows first: equal lengths in every source and each row
//! starting where the last ended, compared pair with pair without a
//! branch per row where the layout allows ([`chained`]). Values per row
//! are spread over blocks of the result's length, so the leaf's loop runs
//! once per block, never once per row.

use std::sync::Arc;

use smallvec::SmallVec;

use super::{linear_step, pair_at, write_row, Dst, Level, Operand, CHUNK_ROWS, SLACK};
use crate::arrmeta::PAIR_SIZE;
use crate::error::Error;
use crate::loops::{F64Op, FlatRun, INLINE_ARGS, MAX_LEAF_ARGS, PARALLEL_MIN};
use crate::memory::MemoryBlock;

mod check;
mod per_row_values;
use check::*;
use per_row_values::*;

/// The most operands the fast pass over the values takes (at most
/// [`INLINE_ARGS`] of them with rows of their own).
pub(super) const OPERANDS: usize = MAX_LEAF_ARGS;

/// The operands of the fast path: each is 0-d, a value per row, or `var`
/// rows of contiguous elements, and every one with rows walks them as one
/// dimension (see [`linear_step`]). Operands with the same pairs (one array
/// twice, a result and its input) read them once.
pub(super) struct SegmentParts {
    /// The distinct row sources: row 0's pair, the step to the next row's,
    /// and the element size.
    sources: SmallVec<[(*const u8, isize, isize); INLINE_ARGS]>,
    /// Per operand with rows: its source.
    of: [usize; OPERANDS],
    /// The operands with a value per row: (operand, row 0's value, step).
    per_row: SmallVec<[(usize, *const u8, isize); INLINE_ARGS]>,
}

/// The segments, shareable with the threads of a call.
pub(super) type Segments = crate::shared::Shared<SegmentParts>;

/// What the fast path made: the values, their count, and per operand with
/// rows the byte offset (from its `base`) of its first non-empty row.
pub(super) struct Fast {
    pub(super) values: Arc<MemoryBlock>,
    pub(super) total: usize,
    pub(super) first: [isize; OPERANDS],
}

impl Segments {
    /// The fast path's view of `ops`, or `None` when some operand does
    /// not fit it.
    pub(super) fn plan(shape: &[usize], ops: &[Operand]) -> Option<Segments> {
        let mut out = SegmentParts {
            sources: SmallVec::new(),
            of: [0; OPERANDS],
            per_row: SmallVec::new(),
        };
        for (k, op) in ops.iter().enumerate() {
            match op.level {
                Level::Scalar => {}
                Level::Var { stride, .. } if stride == op.size as isize => {
                    let src = (op.data, linear_step(op, shape)?, op.size as isize);
                    out.of[k] = match out.sources.iter().position(|s| *s == src) {
                        Some(i) => i,
                        // The rows are checked for up to four sources.
                        None if out.sources.len() == INLINE_ARGS => return None,
                        None => {
                            out.sources.push(src);
                            out.sources.len() - 1
                        }
                    };
                }
                Level::Fixed { n: 1, .. } => {
                    out.per_row.push((k, op.data, linear_step(op, shape)?));
                }
                _ => return None,
            }
        }
        // SAFETY: the pointers reach the blocks of arrays the caller holds
        // for the whole call; the threads only read through them.
        (!out.sources.is_empty()).then_some(unsafe { crate::shared::Shared::new(out) })
    }

    /// Row `r`'s pair of source `k`.
    ///
    /// # Safety
    ///
    /// `r` is a row of the result (inside the validated operands' outer
    /// shapes).
    #[inline]
    unsafe fn pair(&self, k: usize, r: usize) -> (isize, usize) {
        let (p, step, _) = self.sources[k];
        // SAFETY: by the contract.
        unsafe { pair_at(p.wrapping_offset(r as isize * step)) }
    }

    /// Where each unit of [`CHUNK_ROWS`] rows starts in the result, if the
    /// rows lie end to end: read from each unit's first non-empty row of
    /// source 0 (and the last row's end), so the units can run at once.
    /// The units themselves check that they hold exactly these elements.
    /// Also gives each source's first non-empty row's start.
    fn positions(&self, rows: usize) -> Option<(Vec<usize>, [isize; INLINE_ARGS])> {
        let units = rows.div_ceil(CHUNK_ROWS);
        let size = self.sources[0].2;
        let mut first: Option<[isize; INLINE_ARGS]> = None;
        let mut begins: Vec<Option<isize>> = Vec::with_capacity(units);
        for u in 0..units {
            let mut begin = None;
            for r in u * CHUNK_ROWS..((u + 1) * CHUNK_ROWS).min(rows) {
                // SAFETY: `r` is a row of the result.
                let (start, len) = unsafe { self.pair(0, r) };
                if len > 0 {
                    begin = Some(start);
                    if first.is_none() {
                        let mut f = [0isize; INLINE_ARGS];
                        for (k, f) in f.iter_mut().enumerate().take(self.sources.len()) {
                            // SAFETY: as above.
                            *f = unsafe { self.pair(k, r) }.0;
                        }
                        first = Some(f);
                    }
                    break;
                }
            }
            begins.push(begin);
        }
        let first = first.unwrap_or([0; INLINE_ARGS]);
        // The end: the last non-empty row's.
        let mut end = first[0];
        for r in (0..rows).rev() {
            // SAFETY: as above.
            let (start, len) = unsafe { self.pair(0, r) };
            if len > 0 {
                end = start.checked_add(isize::try_from(len).ok()?.checked_mul(size)?)?;
                break;
            }
        }
        let index = |at: isize| -> Option<usize> {
            let bytes = at.checked_sub(first[0])?;
            (bytes >= 0 && bytes % size == 0).then(|| (bytes / size) as usize)
        };
        let total = index(end)?;
        let mut pos = vec![total; units + 1];
        for u in (0..units).rev() {
            pos[u] = match begins[u] {
                Some(b) => index(b)?,
                None => pos[u + 1],
            };
            if pos[u] > pos[u + 1] {
                return None;
            }
        }
        Some((pos, first))
    }

    /// Runs the leaf over the operands' values, unit of rows by unit (on
    /// several threads for long results): each unit checks that its rows
    /// have the same lengths in every source and lie end to end exactly
    /// where [`Self::positions`] said, then runs one flat loop over its
    /// elements, or spreads the values per row over blocks and runs the
    /// loop per block. `None` when the rows are not laid out so.
    pub(super) fn run(
        &self,
        flat: (&dyn FlatRun, Option<F64Op>),
        ops: &[Operand],
        rows: usize,
        out_size: usize,
    ) -> Result<Option<Fast>, Error> {
        let Some((pos, first_src)) = self.positions(rows) else {
            return Ok(None);
        };
        let total = pos[pos.len() - 1];
        let bytes = total
            .checked_mul(out_size)
            .filter(|&b| isize::try_from(b).is_ok())
            .ok_or_else(|| Error::alloc(total as u128 * out_size as u128))?;
        let mut values = MemoryBlock::for_overwrite(bytes)?;
        let Some(block) = Arc::get_mut(&mut values) else {
            unreachable!("a fresh block has one owner")
        };
        // SAFETY: the threads write disjoint rows of the fresh destination.
        let dst = unsafe { Dst::new(block.as_mut_ptr()) };
        let mut first = [0isize; OPERANDS];
        for (k, op) in ops.iter().enumerate() {
            if matches!(op.level, Level::Var { .. }) {
                first[k] = first_src[self.of[k]];
            }
        }
        let failed = std::sync::atomic::AtomicBool::new(false);
        let unit = |u: usize| {
            use std::sync::atomic::Ordering::Relaxed;
            if failed.load(Relaxed) {
                return;
            }
            let range = u * CHUNK_ROWS..((u + 1) * CHUNK_ROWS).min(rows);
            // SAFETY: the unit's rows are rows of the result; `dst` holds
            // `total` elements, and no other unit writes `pos[u]..pos[u +
            // 1]` (the positions never decrease).
            let ok = unsafe {
                self.execute(
                    flat,
                    ops,
                    (&first_src, &first),
                    range,
                    (pos[u], pos[u + 1]),
                    dst,
                    (out_size, bytes),
                )
            };
            if !ok {
                failed.store(true, Relaxed);
            }
        };
        let units = rows.div_ceil(CHUNK_ROWS);
        if total < PARALLEL_MIN || units < 2 || crate::par::threads() < 2 {
            (0..units).for_each(unit);
        } else {
            crate::par::run(units, &unit);
        }
        if failed.into_inner() {
            return Ok(None);
        }
        Ok(Some(Fast {
            values,
            total,
            first,
        }))
    }

    /// Whether rows `range` have the same lengths in every source and hold
    /// result elements `begin..end` exactly: each non-empty row of source
    /// `k` starts at `first[k] + i * size` for its first element's index
    /// `i`, counted from `begin`.
    ///
    /// # Safety
    ///
    /// The rows are rows of the result.
    unsafe fn verify(
        &self,
        range: std::ops::Range<usize>,
        first: &[isize; INLINE_ARGS],
        begin: usize,
        end: usize,
    ) -> bool {
        let s = &self.sources;
        let at = |k: usize| {
            let (p, step, size) = s[k];
            (p, step, first[k] + begin as isize * size, size)
        };
        // SAFETY: forwarded, in each arm.
        unsafe {
            match s.len() {
                1 => verify_rows::<1>([at(0)], range, end - begin),
                2 => verify_rows::<2>([at(0), at(1)], range, end - begin),
                3 => verify_rows::<3>([at(0), at(1), at(2)], range, end - begin),
                _ => verify_rows::<4>([at(0), at(1), at(2), at(3)], range, end - begin),
            }
        }
    }

    /// Runs the leaf over result elements `begin..end`, which rows `range`
    /// must hold exactly (each row is checked before its elements are
    /// read, and nothing is written outside `begin..end`); `false` when
    /// they do not.
    ///
    /// # Safety
    ///
    /// The rows are rows of the result; `dst` holds the result's elements
    /// and nothing else writes `begin..end` meanwhile.
    #[allow(clippy::too_many_arguments)]
    unsafe fn execute(
        &self,
        (flat, f64_op): (&dyn FlatRun, Option<F64Op>),
        ops: &[Operand],
        (first_src, first): (&[isize; INLINE_ARGS], &[isize; OPERANDS]),
        range: std::ops::Range<usize>,
        (begin, end): (usize, usize),
        dst: Dst,
        (out_size, bytes): (usize, usize),
    ) -> bool {
        let dst = dst.get();
        let n = ops.len();
        // Runs result elements `at..at + len`, with the per-row operands
        // read from `spread` (their buffers) when given.
        let block = |at: usize, len: usize, spread: Option<(*const u8, usize)>| {
            let mut ptrs = [std::ptr::null::<u8>(); OPERANDS];
            let mut strides = [0isize; OPERANDS];
            for (k, op) in ops.iter().enumerate() {
                (ptrs[k], strides[k]) = match op.level {
                    Level::Var { base, .. } => (
                        base.wrapping_offset(first[k] + (at * op.size) as isize),
                        op.size as isize,
                    ),
                    _ => (op.data, 0),
                };
            }
            if let Some((bufs, pitch)) = spread {
                for (j, &(k, ..)) in self.per_row.iter().enumerate() {
                    ptrs[k] = bufs.wrapping_add(j * pitch);
                    strides[k] = ops[k].size as isize;
                }
            }
            // SAFETY: result elements `at..at + len` and each operand's
            // (verified rows end to end, inside validated blocks), or the
            // spread values filling the first `len` of their buffers. The
            // result's `bytes` in all decide whether its stores go around
            // the cache.
            unsafe {
                crate::loops::stream::run(
                    flat,
                    bytes,
                    dst.wrapping_add(at * out_size),
                    out_size as isize,
                    &ptrs[..n],
                    &strides[..n],
                    len,
                )
            };
        };
        if let Some(op) = f64_op {
            // SAFETY: forwarded.
            if unsafe { self.row_scalar_f64(op, ops, first_src, range.clone(), (begin, end), dst) }
            {
                return true;
            }
        }
        if self.per_row.is_empty() {
            // SAFETY: the rows are the result's.
            if !unsafe { self.verify(range, first_src, begin, end) } {
                return false;
            }
            if end > begin {
                block(begin, end - begin, None);
            }
            return true;
        }
        // Where each source's next non-empty row must start.
        let mut next = [0isize; INLINE_ARGS];
        for (k, n) in next.iter_mut().enumerate().take(self.sources.len()) {
            *n = first_src[k] + begin as isize * self.sources[k].2;
        }
        let sizes: SmallVec<[usize; INLINE_ARGS]> =
            self.per_row.iter().map(|&(k, ..)| ops[k].size).collect();
        let pitch = (BLOCK + 2 * SLACK) * 16;
        SPREAD.with(|cell| {
            let mut own = Vec::new();
            let mut borrowed = cell.try_borrow_mut();
            let words: &mut Vec<u128> = match borrowed.as_deref_mut() {
                Ok(w) => w,
                // Re-entered on this thread: a buffer of its own.
                Err(_) => &mut own,
            };
            if words.len() * 16 < sizes.len() * pitch {
                words.resize(sizes.len() * pitch / 16, 0);
            }
            let bufs = words.as_mut_ptr().cast::<u8>();
            let flush = |at: usize, len: usize| block(at, len, Some((bufs.cast_const(), pitch)));
            let same = sizes.iter().all(|&z| z == sizes[0]);
            let at = (begin, end, next);
            // SAFETY: in each arm, the buffers hold `BLOCK + 2 * SLACK`
            // elements of up to 16 bytes each, `pitch` apart, aligned; the
            // per-row values are of the arm's size; the rows are the
            // result's.
            unsafe {
                let one = self.sources.len() == 1;
                match sizes[0] {
                    8 if one && sizes.len() == 1 => self.spread_one::<u64>(range, at, bufs, &flush),
                    4 if one && sizes.len() == 1 => self.spread_one::<u32>(range, at, bufs, &flush),
                    8 if same && one => {
                        self.spread_rows::<u64, false>(range, at, bufs, pitch, &flush)
                    }
                    8 if same => self.spread_rows::<u64, true>(range, at, bufs, pitch, &flush),
                    4 if same => self.spread_rows::<u32, true>(range, at, bufs, pitch, &flush),
                    2 if same => self.spread_rows::<u16, true>(range, at, bufs, pitch, &flush),
                    1 if same => self.spread_rows::<u8, true>(range, at, bufs, pitch, &flush),
                    _ => self.spread_rows_bytes(range, at, bufs, pitch, &sizes, &flush),
                }
            }
        })
    }

    /// Checks row `r` (of length `len` in source 0, starting at `start`):
    /// every source's row has that length and starts where the last one
    /// ended, and the row's elements end by `end`; moves `next` on.
    ///
    /// # Safety
    ///
    /// `r` is a row of the result.
    #[inline]
    unsafe fn check_row(
        &self,
        r: usize,
        (start, len): (isize, usize),
        next: &mut [isize; INLINE_ARGS],
        at: usize,
        end: usize,
    ) -> bool {
        if len == 0 {
            // An empty row: the other sources' must be empty too.
            return (1..self.sources.len()).all(|k| {
                // SAFETY: by the contract.
                unsafe { self.pair(k, r) }.1 == 0
            });
        }
        let mut ok = start == next[0] && len <= end - at;
        next[0] = start.wrapping_add((len as isize).wrapping_mul(self.sources[0].2));
        for (k, n) in next.iter_mut().enumerate().take(self.sources.len()).skip(1) {
            // SAFETY: by the contract.
            let (s, l) = unsafe { self.pair(k, r) };
            ok &= s == *n && l == len;
            *n = s.wrapping_add((len as isize).wrapping_mul(self.sources[k].2));
        }
        ok
    }
}

/// Fresh pairs for the result of the fast pass: row after row from 0, with
/// the lengths of the first operand that has rows.
pub(super) fn fresh_pairs(
    shape: &[usize],
    ops: &[Operand],
    rows: usize,
    out_size: usize,
) -> Result<Arc<MemoryBlock>, Error> {
    let mut pairs = crate::memory::try_zeroed(rows, PAIR_SIZE)?;
    let Some(op) = ops.iter().find(|op| matches!(op.level, Level::Var { .. })) else {
        unreachable!("the fast pass needs an operand with rows")
    };
    let step = linear_step(op, shape).unwrap_or_else(|| unreachable!("checked by the fast pass"));
    let mut at = 0u64;
    for (r, out) in pairs.chunks_exact_mut(PAIR_SIZE).enumerate() {
        // SAFETY: row `r`'s pair, as in the fast pass.
        let (_, len) = unsafe { pair_at(op.data.wrapping_offset(r as isize * step)) };
        crate::arrmeta::write_pair(out, at, len as u64);
        at += (len * out_size) as u64;
    }
    Ok(MemoryBlock::from_vec(pairs))
}

#[cfg(test)]
mod tests;
