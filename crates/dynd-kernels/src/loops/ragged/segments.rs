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

/// The most operands the fast pass over the values takes (at most
/// [`INLINE_ARGS`] of them with rows of their own).
pub(super) const OPERANDS: usize = MAX_LEAF_ARGS;

/// The operands of the fast path: each is 0-d, a value per row, or `var`
/// rows of contiguous elements, and every one with rows walks them as one
/// dimension (see [`linear_step`]). Operands with the same pairs (one array
/// twice, a result and its input) read them once.
pub(super) struct Segments {
    /// The distinct row sources: row 0's pair, the step to the next row's,
    /// and the element size.
    sources: SmallVec<[(*const u8, isize, isize); INLINE_ARGS]>,
    /// Per operand with rows: its source.
    of: [usize; OPERANDS],
    /// The operands with a value per row: (operand, row 0's value, step).
    per_row: SmallVec<[(usize, *const u8, isize); INLINE_ARGS]>,
}

// SAFETY: the pointers reach the blocks of arrays the caller holds for the
// whole call; the threads only read through them.
unsafe impl Send for Segments {}
// SAFETY: as above.
unsafe impl Sync for Segments {}

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
        let mut out = Segments {
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
        (!out.sources.is_empty()).then_some(out)
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
        let dst = Dst(block.as_mut_ptr());
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
                    out_size,
                )
            };
            if !ok {
                failed.store(true, Relaxed);
            }
        };
        let units = rows.div_ceil(CHUNK_ROWS);
        if total < PARALLEL_MIN || units < 2 || rayon::current_num_threads() < 2 {
            (0..units).for_each(unit);
        } else {
            use rayon::prelude::*;
            (0..units).into_par_iter().for_each(unit);
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
        out_size: usize,
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
            // spread values filling the first `len` of their buffers.
            unsafe {
                flat.run(
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

    /// A binary `float64` operation of one value per row and one source
    /// of rows whose rows chain exactly (see [`chained`]): each row is
    /// computed straight from its value, with no buffer and no call. A row
    /// with room after it in the unit computes [`SLACK`] elements without
    /// a branch on its length, the ones past its end being overwritten by
    /// the rows after it (a plain `float64` operation has no effect but
    /// its value, so computing it on other rows' elements is harmless);
    /// the unit's last rows compute their own elements only. `false` when
    /// the operands are not laid out so (the caller takes the general
    /// path, which also checks the rows).
    ///
    /// # Safety
    ///
    /// As [`Self::execute`], whose `first_src`, `range`, `begin..end` and
    /// `dst` these are.
    unsafe fn row_scalar_f64(
        &self,
        op: F64Op,
        ops: &[Operand],
        first_src: &[isize; INLINE_ARGS],
        range: std::ops::Range<usize>,
        (begin, end): (usize, usize),
        dst: *mut u8,
    ) -> bool {
        let [(per, v0, vstep)] = self.per_row[..] else {
            return false;
        };
        let [(p0, step0, 8)] = self.sources[..] else {
            return false;
        };
        if op.arity() != 2 || ops.len() != 2 || ops[per].size != 8 {
            return false;
        }
        let src = [(p0, step0, first_src[0] + begin as isize * 8, 8)];
        // SAFETY: the rows are the result's, so their pairs are readable.
        if !unsafe { chained::<1>(src, range.clone(), end - begin) } {
            return false;
        }
        let Level::Var { base, .. } = ops[1 - per].level else {
            return false;
        };
        let rows = RowScalar {
            lens: p0.wrapping_offset(range.start as isize * step0).cast(),
            values: v0.wrapping_offset(range.start as isize * vstep),
            step: vstep,
            rows: range.len(),
            xs: base.wrapping_offset(src[0].2).cast(),
            out: dst.wrapping_add(begin * 8).cast(),
            count: end - begin,
            scalar_first: per == 0,
        };
        // SAFETY: the rows chain exactly over the unit's `count` elements
        // of the source (checked above), inside its validated values
        // block; each row has its value `step` bytes after the last; `out`
        // holds the unit's `count` result elements, written by this unit
        // alone.
        unsafe { rows.run_best(op) };
        true
    }

    /// The rows `range`, from result element `at`: each per-row value (all
    /// `T`-sized) is spread over its row's length in the buffers (`pitch`
    /// bytes apart, one store per element, no call per row), and
    /// `flush(at, len)` runs each full block.
    ///
    /// # Safety
    ///
    /// Each buffer holds `BLOCK + 2 * SLACK` elements of `T`, aligned; the
    /// per-row operands' values are `T`-sized; the rows are the result's.
    #[inline]
    unsafe fn spread_rows<T: Copy, const MULTI: bool>(
        &self,
        range: std::ops::Range<usize>,
        (mut at, end, mut next): (usize, usize, [isize; INLINE_ARGS]),
        bufs: *mut u8,
        pitch: usize,
        flush: &dyn Fn(usize, usize),
    ) -> bool {
        let (p0, step0, size0) = self.sources[0];
        let mut pair = p0.wrapping_offset(range.start as isize * step0);
        let nper = self.per_row.len();
        let mut vals: [(*const u8, isize, *mut T); OPERANDS] =
            [(std::ptr::null(), 0, std::ptr::null_mut()); OPERANDS];
        for (j, &(_, v, step)) in self.per_row.iter().enumerate() {
            vals[j] = (
                v.wrapping_offset(range.start as isize * step),
                step,
                bufs.wrapping_add(j * pitch).cast::<T>(),
            );
        }
        let vals = &mut vals[..nper];
        let mut fill = 0usize;
        for r in range {
            // SAFETY: this row's pair of source 0, by the contract.
            let (start, len) = unsafe { pair_at(pair) };
            pair = pair.wrapping_offset(step0);
            let ok = if MULTI {
                // SAFETY: `r` is a row of the result.
                unsafe { self.check_row(r, (start, len), &mut next, at + fill, end) }
            } else {
                // One source: its row starts where the last ended (or is
                // empty), inside `..end`.
                let ok = len == 0 || (start == next[0] && len <= end - (at + fill));
                next[0] = start.wrapping_add((len as isize).wrapping_mul(size0));
                ok || len == 0
            };
            if !ok {
                return false;
            }
            if len <= SLACK {
                // `fill < BLOCK` here: SLACK unconditional stores stay
                // inside the buffer, and the row's `len` of them count.
                for (v, step, buf) in vals.iter_mut() {
                    // SAFETY: the row's value, and buffer elements `fill..
                    // fill + SLACK < BLOCK + SLACK`, by the contract.
                    unsafe {
                        let x = v.cast::<T>().read_unaligned();
                        let p = buf.add(fill);
                        for j in 0..SLACK {
                            p.add(j).write(x);
                        }
                    }
                    *v = v.wrapping_offset(*step);
                }
                fill += len;
            } else if fill + len <= BLOCK + 2 * SLACK {
                // A longer row that still fits: no flush of its own (a
                // flush is a call of the loop, dear for short blocks).
                for (v, step, buf) in vals.iter_mut() {
                    // SAFETY: the row's value, and buffer elements below
                    // `BLOCK + 2 * SLACK`, by the contract.
                    unsafe {
                        let x = v.cast::<T>().read_unaligned();
                        for j in fill..fill + len {
                            buf.add(j).write(x);
                        }
                    }
                    *v = v.wrapping_offset(*step);
                }
                fill += len;
            } else {
                // A long row: the block so far, then the row in blocks.
                if fill > 0 {
                    flush(at, fill);
                    at += fill;
                    fill = 0;
                }
                let mut left = len;
                while left > 0 {
                    let m = left.min(BLOCK);
                    for (v, _, buf) in vals.iter() {
                        // SAFETY: as above, `m <= BLOCK` elements.
                        unsafe {
                            let x = v.cast::<T>().read_unaligned();
                            for j in 0..m {
                                buf.add(j).write(x);
                            }
                        }
                    }
                    flush(at, m);
                    at += m;
                    left -= m;
                }
                for (v, step, _) in vals.iter_mut() {
                    *v = v.wrapping_offset(*step);
                }
            }
            if fill >= BLOCK {
                flush(at, fill);
                at += fill;
                fill = 0;
            }
        }
        if fill > 0 {
            flush(at, fill);
        }
        at + fill == end
    }

    /// [`Self::spread_rows`] for the common case of one source of rows
    /// and one value per row, with everything in registers.
    ///
    /// # Safety
    ///
    /// As [`Self::spread_rows`].
    #[inline]
    unsafe fn spread_one<T: Copy>(
        &self,
        range: std::ops::Range<usize>,
        (mut at, end, next): (usize, usize, [isize; INLINE_ARGS]),
        bufs: *mut u8,
        flush: &dyn Fn(usize, usize),
    ) -> bool {
        let (p0, step0, size0) = self.sources[0];
        let (_, v0, vstep) = self.per_row[0];
        let mut pair = p0.wrapping_offset(range.start as isize * step0);
        let mut v = v0.wrapping_offset(range.start as isize * vstep);
        let buf = bufs.cast::<T>();
        let mut next = next[0];
        let mut fill = 0usize;
        for _ in range {
            // SAFETY: this row's pair, and its value, by the contract.
            let ((start, len), x) = unsafe { (pair_at(pair), v.cast::<T>().read_unaligned()) };
            pair = pair.wrapping_offset(step0);
            v = v.wrapping_offset(vstep);
            if len == 0 {
                continue;
            }
            if start != next || len > end - (at + fill) {
                return false;
            }
            next = start.wrapping_add((len as isize).wrapping_mul(size0));
            if len <= SLACK {
                // SAFETY: buffer elements `fill..fill + SLACK`, with `fill
                // < BLOCK`, inside its `BLOCK + 2 * SLACK`.
                unsafe {
                    let p = buf.add(fill);
                    for j in 0..SLACK {
                        p.add(j).write(x);
                    }
                }
                fill += len;
                if fill >= BLOCK {
                    flush(at, fill);
                    at += fill;
                    fill = 0;
                }
            } else if fill + len <= BLOCK + 2 * SLACK {
                // A longer row that still fits: no flush of its own (a
                // flush is a call of the loop, dear for short blocks).
                for j in fill..fill + len {
                    // SAFETY: buffer elements below `BLOCK + 2 * SLACK`.
                    unsafe { buf.add(j).write(x) };
                }
                fill += len;
                if fill >= BLOCK {
                    flush(at, fill);
                    at += fill;
                    fill = 0;
                }
            } else {
                if fill > 0 {
                    flush(at, fill);
                    at += fill;
                    fill = 0;
                }
                let mut left = len;
                while left > 0 {
                    let m = left.min(BLOCK);
                    for j in 0..m {
                        // SAFETY: `m <= BLOCK` buffer elements.
                        unsafe { buf.add(j).write(x) };
                    }
                    flush(at, m);
                    at += m;
                    left -= m;
                }
            }
        }
        if fill > 0 {
            flush(at, fill);
        }
        at + fill == end
    }

    /// As [`Self::spread_rows`], for per-row values of other or mixed
    /// sizes (`sizes`), copied byte by byte.
    ///
    /// # Safety
    ///
    /// As [`Self::spread_rows`], with buffers of `BLOCK + 2 * SLACK`
    /// elements of each operand's size (at most 16 bytes).
    unsafe fn spread_rows_bytes(
        &self,
        range: std::ops::Range<usize>,
        (mut at, end, mut next): (usize, usize, [isize; INLINE_ARGS]),
        bufs: *mut u8,
        pitch: usize,
        sizes: &[usize],
        flush: &dyn Fn(usize, usize),
    ) -> bool {
        let mut fill = 0usize;
        for r in range {
            // SAFETY: row `r`'s pair of source 0, by the contract.
            let (start, mut len) = unsafe { self.pair(0, r) };
            // SAFETY: `r` is a row of the result.
            if !unsafe { self.check_row(r, (start, len), &mut next, at + fill, end) } {
                return false;
            }
            while len > 0 {
                let m = len.min(BLOCK - fill);
                for (j, &(_, v, step)) in self.per_row.iter().enumerate() {
                    let v = v.wrapping_offset(r as isize * step);
                    let buf = bufs.wrapping_add(j * pitch);
                    for i in fill..fill + m {
                        // SAFETY: the row's value, and element `i < BLOCK`
                        // of the buffer, by the contract.
                        unsafe {
                            std::ptr::copy_nonoverlapping(v, buf.add(i * sizes[j]), sizes[j])
                        };
                    }
                }
                fill += m;
                len -= m;
                if fill == BLOCK {
                    flush(at, fill);
                    at += fill;
                    fill = 0;
                }
            }
        }
        if fill > 0 {
            flush(at, fill);
        }
        at + fill == end
    }
}

/// Whether the rows `range` of `V` sources (row 0's pair, step, the
/// expected start of the first non-empty row, element size) have equal
/// lengths and lie end to end from the expected starts, `count` elements
/// in all.
///
/// # Safety
///
/// Each source's pairs for `range` are readable.
#[inline]
unsafe fn verify_rows<const V: usize>(
    src: [(*const u8, isize, isize, isize); V],
    range: std::ops::Range<usize>,
    count: usize,
) -> bool {
    // SAFETY: forwarded.
    unsafe { chained_best::<V>(src, range.clone(), count) || loose_rows(src, range, count) }
}

/// [`verify_rows`] row by row, for any layout: empty rows may start
/// anywhere.
///
/// # Safety
///
/// As [`verify_rows`].
unsafe fn loose_rows<const V: usize>(
    src: [(*const u8, isize, isize, isize); V],
    range: std::ops::Range<usize>,
    count: usize,
) -> bool {
    let mut next: [isize; V] = std::array::from_fn(|k| src[k].2);
    let mut ptr: [*const u8; V] =
        std::array::from_fn(|k| src[k].0.wrapping_offset(range.start as isize * src[k].1));
    let mut ok = true;
    let mut seen = 0usize;
    for _ in range {
        let mut pair = [(0isize, 0usize); V];
        for k in 0..V {
            // SAFETY: this row's pair, by the contract.
            pair[k] = unsafe { pair_at(ptr[k]) };
            ptr[k] = ptr[k].wrapping_offset(src[k].1);
        }
        let len = pair[0].1;
        for p in &pair[1..] {
            ok &= p.1 == len;
        }
        if len == 0 {
            continue;
        }
        for k in 0..V {
            ok &= pair[k].0 == next[k];
            next[k] = pair[k]
                .0
                .wrapping_add((len as isize).wrapping_mul(src[k].3));
        }
        seen = seen.wrapping_add(len);
        if !ok || seen > count {
            return false;
        }
    }
    ok && seen == count
}

/// The common layout checked without a branch per row, so that it
/// vectorises: pairs 16 bytes apart, elements of a power-of-two size, and
/// every row (empty ones too) starting exactly where the row before it
/// ends, the first at the expected start (as rows made from offsets, from
/// nested data or by an earlier result are). Each row is compared with the
/// row before it, not with a running position, so there is no dependency
/// from row to row. When this holds, the rows satisfy [`verify_rows`]
/// (which also takes empty rows that start anywhere); `false` says only
/// that this check does not apply or does not hold.
///
/// The sums cannot wrap: every row of a validated array lies inside its
/// values block (less than `isize::MAX` bytes), so a start equal to the
/// previous row's end modulo 2^64 equals it outright.
///
/// # Safety
///
/// As [`verify_rows`].
#[inline(always)]
unsafe fn chained<const V: usize>(
    src: [(*const u8, isize, isize, isize); V],
    range: std::ops::Range<usize>,
    count: usize,
) -> bool {
    if range.is_empty() {
        return count == 0;
    }
    let mut shift = [0u32; V];
    for k in 0..V {
        let size = src[k].3;
        if src[k].1 != PAIR_SIZE as isize || size <= 0 || !(size as usize).is_power_of_two() {
            return false;
        }
        shift[k] = size.trailing_zeros();
    }
    let pairs: [*const [u64; 2]; V] = std::array::from_fn(|k| {
        src[k]
            .0
            .wrapping_offset(range.start as isize * PAIR_SIZE as isize)
            .cast()
    });
    let rows = range.len();
    let at = |k: usize, r: usize| {
        // SAFETY: pairs `0..rows` of each source are this range's,
        // readable by the contract (`r < rows` at every use below); a pair
        // is two u64s, read unaligned.
        unsafe { pairs[k].add(r).read_unaligned() }
    };
    let mut ok = true;
    for (k, src) in src.iter().enumerate() {
        ok &= at(k, 0)[0] as i64 as isize == src.2;
    }
    for r in 1..rows {
        let len = at(0, r)[1];
        for (k, shift) in shift.iter().enumerate() {
            let [ps, pl] = at(k, r - 1);
            let [s, l] = at(k, r);
            ok &= s == ps.wrapping_add(pl << shift);
            ok &= l == len;
        }
    }
    let len0 = at(0, 0)[1];
    for k in 1..V {
        ok &= at(k, 0)[1] == len0;
    }
    let [ls, ll] = at(0, rows - 1);
    let end = ls.wrapping_add(ll << shift[0]);
    let expected = (src[0].2 as u64).wrapping_add((count as u64) << shift[0]);
    ok && end == expected && count as u64 <= (u64::MAX >> shift[0])
}

/// [`chained`] compiled for the CPU it runs on (AVX2 where the CPU has
/// it: four pairs a step); the same answer either way.
///
/// # Safety
///
/// As [`verify_rows`].
unsafe fn chained_best<const V: usize>(
    src: [(*const u8, isize, isize, isize); V],
    range: std::ops::Range<usize>,
    count: usize,
) -> bool {
    /// [`chained`] with AVX2 enabled.
    ///
    /// # Safety
    ///
    /// As [`verify_rows`]; the CPU has AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn avx2<const V: usize>(
        src: [(*const u8, isize, isize, isize); V],
        range: std::ops::Range<usize>,
        count: usize,
    ) -> bool {
        // SAFETY: forwarded.
        unsafe { chained::<V>(src, range, count) }
    }
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: forwarded; the CPU has AVX2, detected just above.
        return unsafe { avx2::<V>(src, range, count) };
    }
    // SAFETY: forwarded.
    unsafe { chained::<V>(src, range, count) }
}

/// One unit of [`Segments::row_scalar_f64`]: rows whose pairs are 16
/// bytes apart from `lens` (the first of each pair is skipped: the rows
/// chain), one `f64` value per row `step` bytes apart from `values`, the
/// rows' `count` elements from `xs` and the result's to `out`.
struct RowScalar {
    lens: *const [u64; 2],
    values: *const u8,
    step: isize,
    rows: usize,
    xs: *const f64,
    out: *mut f64,
    count: usize,
    scalar_first: bool,
}

impl RowScalar {
    /// Runs `op`, compiled for the CPU (AVX2 where it has it).
    ///
    /// # Safety
    ///
    /// The pairs, values and elements described by the fields are
    /// readable, `out` is writable for `count` elements and nothing else
    /// reaches them meanwhile, and the rows' lengths add up to `count`.
    unsafe fn run_best(&self, op: F64Op) {
        /// [`RowScalar::run`] with AVX2 enabled.
        ///
        /// # Safety
        ///
        /// As [`RowScalar::run_best`]; the CPU has AVX2.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "avx2")]
        unsafe fn avx2(rows: &RowScalar, op: F64Op) {
            // SAFETY: forwarded.
            unsafe { rows.run(op) }
        }
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: forwarded; the CPU has AVX2, detected just above.
            return unsafe { avx2(self, op) };
        }
        // SAFETY: forwarded.
        unsafe { self.run(op) }
    }

    /// `op` per row, as [`Segments::row_scalar_f64`] describes.
    ///
    /// # Safety
    ///
    /// As [`Self::run_best`].
    #[inline(always)]
    unsafe fn run(&self, op: F64Op) {
        // SAFETY: forwarded, in each arm.
        unsafe {
            match (op, self.scalar_first) {
                // Each order as the leaf writes it.
                (F64Op::Add, true) => self.each(|s, x| s + x),
                (F64Op::Add, false) => self.each(|s, x| x + s),
                (F64Op::Mul, true) => self.each(|s, x| s * x),
                (F64Op::Mul, false) => self.each(|s, x| x * s),
                (F64Op::Sub, true) => self.each(|s, x| s - x),
                (F64Op::Sub, false) => self.each(|s, x| x - s),
                (F64Op::Div, true) => self.each(|s, x| s / x),
                (F64Op::Div, false) => self.each(|s, x| x / s),
                // Unary: never with a value per row (the caller checks).
                _ => unreachable!("a binary operation"),
            }
        }
    }

    /// `out[i] = f(value of i's row, xs[i])` for every element.
    ///
    /// # Safety
    ///
    /// As [`Self::run_best`].
    #[inline(always)]
    unsafe fn each(&self, f: impl Fn(f64, f64) -> f64) {
        let mut at = 0usize;
        for r in 0..self.rows {
            // SAFETY: row `r`'s pair and value, readable by the contract.
            let (len, s) = unsafe {
                (
                    self.lens.add(r).read_unaligned()[1] as usize,
                    self.values
                        .wrapping_offset(r as isize * self.step)
                        .cast::<f64>()
                        .read_unaligned(),
                )
            };
            // `at + len <= count`: the rows' lengths add up to `count`.
            let x = self.xs.wrapping_add(at);
            // SAFETY: elements `at..at + len` are the unit's, and with
            // `at + SLACK <= count` so are `at..at + SLACK`; `j` stays
            // below the row's elements or those.
            unsafe {
                write_row(
                    self.out.wrapping_add(at),
                    len,
                    at + SLACK <= self.count,
                    |j| f(s, x.add(j).read_unaligned()),
                )
            };
            at += len;
        }
    }
}

/// Values per block of the segmented loop.
const BLOCK: usize = 1024;

thread_local! {
    /// Each thread's buffers for the values per row, spread over a block.
    static SPREAD: std::cell::RefCell<Vec<u128>> = const { std::cell::RefCell::new(Vec::new()) };
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
mod tests {
    use super::*;

    /// The strict chain check agrees with the row-by-row one wherever it
    /// says yes, and says yes for every layout made from offsets, over
    /// random pairs: chained, with gaps, with empty rows that start
    /// anywhere, with one length changed, from a start past 0.
    #[test]
    fn the_chain_check_implies_the_row_check() {
        let mut seed = 0x1234_5678_9abc_def1u64;
        let mut next = move |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let (mut chained_yes, mut loose_only) = (0, 0);
        for case in 0..4000 {
            let rows = next(40) as usize;
            let base = next(3) as i64 * 8;
            let mut pairs: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
            let mut at = [base, base + 8 * next(5) as i64];
            let first = at;
            let mut count = 0usize;
            for _ in 0..rows {
                let len = next(6);
                for (k, p) in pairs.iter_mut().enumerate() {
                    let mut l = len;
                    let mut start = at[k];
                    match next(20) {
                        0 if k == 1 => l += 1,
                        1 => start += 8,
                        2 if len == 0 => start = next(1000) as i64 * 8,
                        _ => {}
                    }
                    p.push(start as u64);
                    p.push(l);
                    at[k] = start + 8 * l as i64;
                }
                count += len as usize;
            }
            let src = |k: usize| {
                (
                    pairs[k].as_ptr().cast::<u8>(),
                    PAIR_SIZE as isize,
                    first[k] as isize,
                    8isize,
                )
            };
            for v in [1usize, 2] {
                // SAFETY: `rows` pairs of each source, readable.
                let (strict, loose) = unsafe {
                    if v == 1 {
                        let s = [src(0)];
                        (
                            chained::<1>(s, 0..rows, count),
                            loose_rows::<1>(s, 0..rows, count),
                        )
                    } else {
                        let s = [src(0), src(1)];
                        (
                            chained::<2>(s, 0..rows, count),
                            loose_rows::<2>(s, 0..rows, count),
                        )
                    }
                };
                assert!(!strict || loose, "case {case}, {v} sources: {pairs:?}");
                chained_yes += usize::from(strict);
                loose_only += usize::from(loose && !strict);
            }
        }
        // Both answers are exercised.
        assert!(
            chained_yes > 500 && loose_only > 20,
            "{chained_yes} chained, {loose_only} loose only"
        );
    }
}
