//! Operands with a value per row: spread over blocks of the result's
//! length, or (one `float64` value per row against rows that chain)
//! computed straight from the value.

use super::*;
use crate::op::{with_f64_op, FloatApply};

impl Segments {
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
    pub(super) unsafe fn row_scalar_f64(
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
        unsafe { rows.run_best(op) }
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
    pub(super) unsafe fn spread_rows<T: Copy, const MULTI: bool>(
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
    pub(super) unsafe fn spread_one<T: Copy>(
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
    pub(super) unsafe fn spread_rows_bytes(
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

/// Values per block of the segmented loop.
pub(super) const BLOCK: usize = 1024;

thread_local! {
    /// Each thread's buffers for the values per row, spread over a block.
    pub(super) static SPREAD: std::cell::RefCell<Vec<u128>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// One unit of [`Segments::row_scalar_f64`]: rows whose pairs are 16
/// bytes apart from `lens` (the first of each pair is skipped: the rows
/// chain), one `f64` value per row `step` bytes apart from `values`, the
/// rows' `count` elements from `xs` and the result's to `out`.
pub(super) struct RowScalar {
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
    /// Runs `op`, compiled for the CPU ([`crate::isa::best!`]).
    ///
    /// # Safety
    ///
    /// The pairs, values and elements described by the fields are
    /// readable, `out` is writable for `count` elements and nothing else
    /// reaches them meanwhile, and the rows' lengths add up to `count`.
    pub(super) unsafe fn run_best(&self, op: F64Op) -> bool {
        // SAFETY: forwarded.
        crate::isa::best!(unsafe { self.run(op) })
    }

    /// `op` per row, as [`Segments::row_scalar_f64`] describes; `false`
    /// (nothing written) for a unary operation.
    ///
    /// # Safety
    ///
    /// As [`Self::run_best`].
    #[inline(always)]
    pub(super) unsafe fn run(&self, op: F64Op) -> bool {
        // Each order as the leaf writes it. A unary operation has no
        // value per row: `false`, for the general path (the caller
        // checks the arity first).
        // SAFETY: forwarded.
        unsafe {
            with_f64_op!(binary op, O => {
                if self.scalar_first {
                    self.each(O::apply);
                } else {
                    self.each(|s, x| O::apply(x, s));
                }
                true
            }, else false)
        }
    }

    /// `out[i] = f(value of i's row, xs[i])` for every element.
    ///
    /// # Safety
    ///
    /// As [`Self::run_best`].
    #[inline(always)]
    pub(super) unsafe fn each(&self, f: impl Fn(f64, f64) -> f64) {
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
