//! Elementwise results over ragged rows, as runs: a result of fixed
//! dimensions around one innermost `var` (`var * T`, `N * var * T`, ...)
//! is computed on the operands' values buffers with their rows' (start,
//! length) pairs, never through a kernel call per row.
//!
//! A [`RowLayout`] is the operands as these passes read them, made once
//! per call from the validated arrays; its passes are tried in turn:
//!
//! - **segmented** ([`RowLayout::fast`], in [`segments`](super::segments)):
//!   every operand is 0-d, a value per row, or rows of contiguous elements
//!   with the result's lengths lying end to end (two columns of one table,
//!   a result and its input, anything read from Arrow). Units of rows are
//!   checked against each other (lengths, not pairs) and run as one flat
//!   loop over the values, values per row spread over blocks;
//! - **led** (per row, no scan): an operand whose pairs the result may
//!   share leads, and each row is checked against it as it is computed;
//! - **scanned**: one pass over the rows ([`scan`](mod@super::scan)) checks
//!   that the lengths broadcast (equal, or 1) and notes whether each
//!   operand's rows lie end to end with the result's lengths. Then the
//!   leaf's loop runs once over all the values (**flat**), or once per row
//!   with each operand's pointer and stride there (**per row**: rows of
//!   length 1 that broadcast, a fixed last dimension, views with steps
//!   over the rows), rows split across threads.
//!
//! The result shares the (start, length) pairs of an operand whose rows are
//! exactly the result's (end to end from the start of its values, of
//! elements the result's size); otherwise the pass writes fresh pairs.
//!
//! Two arrays with equal rows run as one loop over their values; a row of
//! length 1 broadcasts; rows whose lengths do not broadcast are an error
//! naming the row:
//!
//! ```
//! use dynd::nd::Array;
//!
//! let add = dynd::func::builtins::get("add")?;
//! let x = Array::from_nested(vec![vec![1.0, 2.0], vec![3.0, 4.0]])?;
//! let y = Array::from_nested(vec![vec![10.0, 20.0], vec![30.0, 40.0]])?;
//! assert_eq!(add.call(&[&x, &y])?.to_string(), "[[11, 22], [33, 44]]");
//!
//! let one = Array::from_nested(vec![vec![10.0, 20.0], vec![100.0]])?;
//! assert_eq!(add.call(&[&x, &one])?.to_string(), "[[11, 22], [103, 104]]");
//!
//! let z = Array::from_nested(vec![vec![10.0, 20.0], vec![30.0, 40.0, 50.0]])?;
//! let err = add.call(&[&x, &z]).unwrap_err();
//! assert!(err.to_string().contains("[1]"), "{err}");
//! # Ok::<(), dynd::Error>(())
//! ```

use std::sync::Arc;

use smallvec::SmallVec;

use dynd_types::{Dim, Type};

use super::per_row::run_rows;
use super::scan::{self, Scan};
use super::segments::{fresh_pairs, Segments, OPERANDS};
use super::{operand, Lead, Level, Operand, Walk, CHUNK_ROWS};
use crate::array::Array;
use crate::arrmeta::{Arrmeta, PAIR_SIZE};
use crate::error::Error;
use crate::loops::run_flat;
use crate::loops::{F64Op, FlatRun, INLINE_ARGS};
use crate::memory::MemoryBlock;

/// The operands of a result of fixed dimensions around one innermost
/// `var`, as the passes over its rows read them: made from the validated
/// arrays it borrows, so that the pointers it holds stay inside their
/// blocks for as long as it lives.
pub(crate) struct RowLayout<'a> {
    /// The result's type.
    ty: &'a Type,
    /// The operands.
    srcs: &'a [&'a Array],
    /// The result's outer (fixed) shape.
    shape: SmallVec<[usize; 4]>,
    ops: SmallVec<[Operand; INLINE_ARGS]>,
    /// The number of rows.
    rows: usize,
    /// The result's element size.
    out_size: usize,
    /// The operands whose pairs the result can share, in order: rows of
    /// the result's outer shape (none broadcast), starting at their
    /// values' first byte, of elements the result's size.
    sharers: SmallVec<[usize; INLINE_ARGS]>,
}

impl<'a> RowLayout<'a> {
    /// The layout of `srcs` (elements of `sizes[k]` bytes, no arrmeta of
    /// their own) for a result of type `ty` (elements of `out_size`
    /// bytes), or `None` when `ty` is not fixed dimensions around one
    /// innermost `var` or an operand's layout is not one the passes take.
    pub(crate) fn new(
        ty: &'a Type,
        srcs: &'a [&'a Array],
        sizes: &[usize],
        out_size: usize,
    ) -> Option<RowLayout<'a>> {
        let dims = ty.split_dims().0;
        let Some((Dim::Var, outer)) = dims.split_last() else {
            return None;
        };
        let shape = outer
            .iter()
            .map(|d| match d {
                Dim::Fixed(n) => Some(*n),
                _ => None,
            })
            .collect::<Option<SmallVec<[usize; 4]>>>()?;
        let nd = dims.len();
        let ops = srcs
            .iter()
            .zip(sizes)
            .map(|(a, &size)| operand(a, &shape, nd, size))
            .collect::<Option<SmallVec<[Operand; INLINE_ARGS]>>>()?;
        let sharers: SmallVec<[usize; INLINE_ARGS]> = (0..ops.len())
            .filter(|&k| {
                let (a, op) = (srcs[k], &ops[k]);
                matches!(op.level, Level::Var { stride, .. } if stride == out_size as isize)
                    && a.ndim() == nd
                    && op.outer.iter().zip(&shape).all(|(&s, &n)| s != 0 || n <= 1)
                    && matches!(a.arrmeta().innermost_var(), Some((_, 0, _, _)))
            })
            .collect();
        Some(RowLayout {
            ty,
            srcs,
            rows: shape.iter().product(),
            shape,
            ops,
            out_size,
            sharers,
        })
    }

    /// The segmented pass: when every operand is 0-d, a value per row, or
    /// rows of contiguous elements with the result's lengths lying end to
    /// end (at most [`OPERANDS`] operands, [`INLINE_ARGS`] with distinct
    /// rows), `flat` runs over runs of the values (values per row spread
    /// over blocks) into a new result; `None` otherwise.
    ///
    /// `flat` must read and write elements of the layout's sizes.
    pub(crate) fn fast(
        &self,
        flat: &dyn FlatRun,
        f64_op: Option<F64Op>,
    ) -> Result<Option<Array>, Error> {
        let (shape, ops, rows, out_size) = (&self.shape, &self.ops, self.rows, self.out_size);
        if ops.len() > OPERANDS {
            return Ok(None);
        }
        let Some(seg) = Segments::plan(shape, ops) else {
            return Ok(None);
        };
        let Some(fast) = seg.run((flat, f64_op), ops, rows, out_size)? else {
            return Ok(None);
        };
        let shared = self
            .sharers
            .first()
            .copied()
            .filter(|&k| fast.total == 0 || fast.first[k] == 0);
        let pairs = match shared {
            Some(_) => None,
            None => Some(fresh_pairs(shape, ops, rows, out_size)?),
        };
        // SAFETY: the segmented pass wrote the result's elements row after
        // row from byte 0 (its units checked that the rows lie end to end
        // with equal lengths in every source); the fresh pairs count them
        // so, and operand `shared`'s rows start at its values' first byte.
        unsafe { self.finish(fast.values, shared, pairs) }.map(Some)
    }

    /// Every other layout (after [`Self::fast`] said `None`): a pass led
    /// by an operand whose pairs the result may share, else a scan of the
    /// rows and a flat or per-row pass.
    ///
    /// `flat` must read and write elements of the layout's sizes.
    ///
    /// # Errors
    ///
    /// A ragged-row error naming the row whose lengths do not broadcast;
    /// an allocation error.
    pub(crate) fn rows(&self, flat: &dyn FlatRun, f64_op: Option<F64Op>) -> Result<Array, Error> {
        let (shape, ops, rows, out_size) =
            (&self.shape[..], &self.ops[..], self.rows, self.out_size);
        let share = self.sharers.first().copied();
        // The result's rows lie end to end from 0 either way (fresh pairs
        // count them so); shared pairs must be exactly that. Where an operand
        // may lend its pairs, the scan writes none, and runs again to write
        // them only if it turns out not to.
        let shares =
            |scan: &Scan, k: usize| scan.end_to_end[k] && (scan.total == 0 || scan.first[k] == 0);
        // Each operand that may lend its pairs leads a pass without a scan in
        // turn (one whose rows of length 1 broadcast stops at the first).
        for &k in &self.sharers {
            if let Some(out) = self.led(k, (flat, f64_op))? {
                return Ok(out);
            }
        }
        let (scan, shared, pairs) = match share {
            Some(k) => {
                let scan = scan::scan(shape, ops, rows, out_size, None)?;
                if shares(&scan, k) {
                    (scan, Some(k), Vec::new())
                } else {
                    let mut pairs = crate::memory::try_zeroed(rows, PAIR_SIZE)?;
                    let scan = scan::scan(shape, ops, rows, out_size, Some(&mut pairs))?;
                    (scan, None, pairs)
                }
            }
            None => {
                let mut pairs = crate::memory::try_zeroed(rows, PAIR_SIZE)?;
                let scan = scan::scan(shape, ops, rows, out_size, Some(&mut pairs))?;
                (scan, None, pairs)
            }
        };
        let bytes = scan
            .total
            .checked_mul(out_size)
            .filter(|&b| isize::try_from(b).is_ok())
            .ok_or_else(|| Error::alloc(scan.total as u128 * out_size as u128))?;
        let mut values = MemoryBlock::for_overwrite(bytes)?;
        let Some(block) = Arc::get_mut(&mut values) else {
            unreachable!("a fresh block has one owner")
        };
        let dst = block.as_mut_ptr();
        let is_flat = ops.iter().enumerate().all(|(k, op)| match op.level {
            Level::Scalar => true,
            Level::Var { .. } => scan.end_to_end[k],
            Level::Fixed { .. } => false,
        });
        if is_flat {
            let mut ptrs = [std::ptr::null::<u8>(); INLINE_ARGS];
            let mut strides = [0isize; INLINE_ARGS];
            for (k, op) in ops.iter().enumerate() {
                (ptrs[k], strides[k]) = match op.level {
                    Level::Var { base, .. } => {
                        (base.wrapping_offset(scan.first[k]), op.size as isize)
                    }
                    _ => (op.data, 0),
                };
            }
            let n = ops.len();
            // SAFETY: `dst` holds `total` elements of the output type; each
            // operand with rows has `total` contiguous elements of its type
            // from its first non-empty row on (its rows lie end to end, each
            // inside its validated values block), and the others one element;
            // the leaf reads and writes exactly these types (by the contract),
            // and the fresh `dst` overlaps nothing.
            unsafe {
                run_flat(
                    flat,
                    dst,
                    out_size as isize,
                    &ptrs[..n],
                    &strides[..n],
                    scan.total,
                )
            };
        } else {
            // SAFETY: `dst` holds the result's `total` elements, row after row
            // in row order (as the marks count them); the operands are
            // validated arrays of the leaf's types whose rows broadcast to the
            // result's (checked by the scan).
            let done = unsafe {
                run_rows(
                    (flat, f64_op),
                    shape,
                    ops,
                    rows,
                    (&scan.marks, scan.total),
                    (dst, out_size),
                    None,
                )
            };
            debug_assert!(done, "without a lead every row is computed");
        }
        let pairs = MemoryBlock::from_vec(pairs);
        // SAFETY: the flat or per-row pass wrote the result's elements row
        // after row from byte 0, as the scan counted them (fresh pairs count
        // them so); operand `shared`'s rows were seen to lie end to end from
        // its values' first byte with the result's lengths.
        unsafe { self.finish(values, shared, Some(pairs)) }
    }

    /// The per-row pass without a scan, led by operand `k` (one whose pairs
    /// the result may share): when its rows lie end to end in row order from
    /// its values' first byte and every other operand's rows have their
    /// lengths or broadcast (length 1), the result is its rows, and the loop
    /// checks each row as it computes it. `None` when a row breaks that (rows
    /// of length 1 in the lead that broadcast, lengths that do not match, rows
    /// that start elsewhere): the scan then finds the result's rows, or the
    /// error.
    fn led(&self, k: usize, leaf: (&dyn FlatRun, Option<F64Op>)) -> Result<Option<Array>, Error> {
        let (shape, ops, rows, out_size) =
            (&self.shape[..], &self.ops[..], self.rows, self.out_size);
        let Level::Var { base, .. } = ops[k].level else {
            return Ok(None);
        };
        if rows == 0 || ops[k].size != out_size {
            return Ok(None);
        }
        // Where each chunk's results begin: its first row's start in the lead
        // (in elements); the rows end where the last one does.
        let start = |r: usize| {
            // SAFETY: row `r < rows` is inside the outer shape.
            let (p, len, _) = unsafe { Walk::at(shape, ops, r).row(k) };
            let at = (p as usize).wrapping_sub(base as usize);
            (at.is_multiple_of(out_size) && at <= isize::MAX as usize)
                .then_some((at / out_size, len))
        };
        let chunks = rows.div_ceil(CHUNK_ROWS);
        let mut marks = Vec::with_capacity(chunks);
        for c in 0..chunks {
            let Some((at, _)) = start(c * CHUNK_ROWS) else {
                return Ok(None);
            };
            if marks.last().map_or(at != 0, |&m| at < m) {
                return Ok(None);
            }
            marks.push(at);
        }
        let Some((last, len)) = start(rows - 1) else {
            return Ok(None);
        };
        // A validated row lies inside its values block: no overflow here.
        let total = last + len;
        if marks.last().is_some_and(|&m| total < m) {
            return Ok(None);
        }
        let mut values = MemoryBlock::for_overwrite(total * out_size)?;
        let Some(block) = Arc::get_mut(&mut values) else {
            unreachable!("a fresh block has one owner")
        };
        let dst = block.as_mut_ptr();
        // SAFETY: `dst` holds `total` elements of the output type, and the
        // marks start at 0 and do not decrease, ending at or before `total`;
        // the operands are validated arrays of the leaf's types (by the
        // contract), and the fresh `dst` overlaps none of them. The loop
        // checks each row against the lead before writing it.
        let done = unsafe {
            run_rows(
                leaf,
                shape,
                ops,
                rows,
                (&marks, total),
                (dst, out_size),
                Some(Lead {
                    k,
                    base: base as usize,
                }),
            )
        };
        if !done {
            return Ok(None);
        }
        // SAFETY: every row checked: the lead's rows lie end to end from its
        // values' first byte, exactly the result's, which the loop wrote row
        // after row from byte 0.
        unsafe { self.finish(values, Some(k), None) }.map(Some)
    }

    /// The result: its values, and the pairs of operand `shared` or fresh
    /// ones (C order over `shape`).
    ///
    /// # Safety
    ///
    /// The values are the result's elements with its rows end to end from
    /// byte 0 in row order; fresh pairs count them so, and an operand's pairs
    /// are shared only when its rows were seen to lie exactly so.
    unsafe fn finish(
        &self,
        values: Arc<MemoryBlock>,
        shared: Option<usize>,
        pairs: Option<Arc<MemoryBlock>>,
    ) -> Result<Array, Error> {
        let out_size = self.out_size;
        // Fresh pairs count the rows end to end; shared ones put the rows
        // where the operand's are, end to end when the operand's are.
        let packed = match shared {
            Some(k) => matches!(
                self.srcs[k].arrmeta().fixed_dims().1,
                Arrmeta::Var { packed: true, .. }
            ),
            None => true,
        };
        let element = Arrmeta::Var {
            values,
            offset: 0,
            stride: out_size as isize,
            packed,
            element: Box::new(Arrmeta::Scalar),
        };
        let (meta, data, offset) = match (shared, pairs) {
            (Some(k), _) => (
                with_var(self.srcs[k].arrmeta(), element),
                self.srcs[k].data_block().clone(),
                self.srcs[k].data_offset(),
            ),
            (None, Some(pairs)) => (
                crate::array::c_order_meta(&self.shape, PAIR_SIZE, element)?,
                pairs,
                0,
            ),
            (None, None) => unreachable!("the result has shared or fresh pairs"),
        };
        // SAFETY: the outer levels are C order over a block of `rows` pairs
        // (fresh), or a validated operand's own (shared); either way every
        // row's pair says `len` elements from byte `start`, and the rows lie
        // end to end from byte 0 in row order (by the contract),
        // so they cover the values block, of elements `out_size` apart,
        // aligned (a fresh block is 16-byte aligned).
        Ok(unsafe { Array::from_parts_unchecked(self.ty.clone(), Arc::new(meta), data, offset) })
    }
}

/// `meta` (fixed levels around a `var` one) with the `var` level replaced.
fn with_var(meta: &Arrmeta, var: Arrmeta) -> Arrmeta {
    match meta {
        Arrmeta::Fixed {
            size,
            stride,
            element,
        } => Arrmeta::Fixed {
            size: *size,
            stride: *stride,
            element: Box::new(with_var(element, var)),
        },
        _ => var,
    }
}
