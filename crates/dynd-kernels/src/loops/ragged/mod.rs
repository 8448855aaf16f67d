//! `var` levels of the engine: the rows of operands broadcast against a
//! result of fixed dimensions around one innermost `var` (`var * T`,
//! `N * var * T`, ...), walked on their values buffers with each row's
//! (start, length) pair.
//!
//! Each operand is a [`Level`] at the innermost level (0-d, `var` rows, or
//! a fixed last dimension) under byte strides along the result's outer
//! dimensions ([`Operand`]), its `var` rows read from the one row view
//! ([`dynd_array::rows::Rows`]: a [`RowLayout`] is that view's plan for
//! several operands broadcast together); a [`Walk`] visits the result's rows in C order
//! of those dimensions with a fixed-size add per row, giving each
//! operand's row there (first element, length, stride). The elementwise
//! passes over ragged rows live here too, as a [`RowLayout`]'s passes
//! ([`layout`]: the segmented pass in [`segments`], the [`scan`] of the
//! rows, the flat and per-row loops in [`per_row`]); elementwise calls and
//! the fused expressions over ragged rows run on them. [`Lead`] is the
//! check a per-row pass makes when it takes one operand's rows as the
//! result's without scanning them first.
//!
//! The effect shows through elementwise calls on ragged arrays:
//!
//! ```
//! use dynd::nd::Array;
//!
//! let x = Array::from_nested(vec![vec![1.0, 2.0], vec![], vec![3.0, 4.0, 5.0]])?;
//! // Rows of length 1 broadcast against the others' rows.
//! let y = Array::from_nested(vec![vec![10.0], vec![], vec![1.0, 2.0, 3.0]])?;
//! let sum = dynd::func::builtins::get("add")?.call(&[&x, &y])?;
//! assert_eq!(sum.to_string(), "[[11, 12], [], [4, 6, 8]]");
//! # Ok::<(), dynd::Error>(())
//! ```

mod layout;
mod per_row;
mod scan;
mod segments;

use smallvec::SmallVec;

pub(crate) use layout::RowLayout;

use crate::array::Array;
use crate::arrmeta::Arrmeta;
use crate::error::{KernelError, KernelErrorKind};
use crate::loops::{FlatRun, INLINE_ARGS};
use dynd_array::rows::Rows;

/// One operand's layout at the result's innermost (`var`) level.
#[derive(Clone, Copy)]
pub(crate) enum Level {
    /// 0-d: one element for every position.
    Scalar,
    /// `var` rows: element `j` of the row whose pair is (start, len) is at
    /// `base + start + j * stride`; the values block spans `begin..end`.
    Var {
        base: *const u8,
        stride: isize,
        begin: *const u8,
        end: *const u8,
    },
    /// A fixed last dimension of `n` elements `stride` bytes apart (`n ==
    /// 1`: one value per row).
    Fixed { n: usize, stride: isize },
}

/// One operand: its layout at the innermost level, its first element, its
/// byte stride along each of the result's outer dimensions (0 where it
/// broadcasts or has no such dimension), and its element size.
pub(crate) struct OperandParts {
    pub(crate) level: Level,
    pub(crate) data: *const u8,
    pub(crate) outer: SmallVec<[isize; 4]>,
    pub(crate) size: usize,
}

/// An operand, shareable with the threads of a call.
pub(crate) type Operand = crate::shared::Shared<OperandParts>;

/// `parts` as an operand.
fn shared_operand(parts: OperandParts) -> Operand {
    // SAFETY: an operand's pointers reach the blocks of an array the
    // caller holds for the whole call; the threads only read through them.
    unsafe { crate::shared::Shared::new(parts) }
}

/// The rows of the result, in C order of its outer (fixed) dimensions,
/// with each operand's byte offset from its first element.
pub(crate) struct Walk<'a> {
    shape: &'a [usize],
    ops: &'a [Operand],
    index: SmallVec<[usize; 4]>,
    pub(crate) off: [isize; INLINE_ARGS],
    /// Each operand's step along the innermost outer dimension (0 past
    /// the operands), and that dimension's size and current index.
    step: [isize; INLINE_ARGS],
    last: usize,
    at_last: usize,
}

impl<'a> Walk<'a> {
    /// The walk positioned at row `r`.
    pub(crate) fn at(shape: &'a [usize], ops: &'a [Operand], r: usize) -> Walk<'a> {
        let mut index: SmallVec<[usize; 4]> = SmallVec::from_elem(0, shape.len());
        let mut rem = r;
        for (i, &n) in index.iter_mut().zip(shape).rev() {
            *i = rem % n.max(1);
            rem /= n.max(1);
        }
        let mut off = [0isize; INLINE_ARGS];
        let mut step = [0isize; INLINE_ARGS];
        for (k, op) in ops.iter().enumerate() {
            off[k] = index
                .iter()
                .zip(&op.outer)
                .map(|(&i, &s)| i as isize * s)
                .sum();
            step[k] = op.outer.last().copied().unwrap_or(0);
        }
        Walk {
            shape,
            ops,
            at_last: index.last().copied().unwrap_or(0),
            index,
            off,
            step,
            last: shape.last().copied().unwrap_or(1),
        }
    }

    /// The number of operands.
    pub(crate) fn operands(&self) -> usize {
        self.ops.len()
    }

    /// Moves to the next row: along the innermost outer dimension with a
    /// fixed-size add, carrying outwards at its end.
    #[inline(always)]
    pub(crate) fn advance(&mut self) {
        self.at_last += 1;
        if self.at_last < self.last {
            for (o, s) in self.off.iter_mut().zip(&self.step) {
                *o += s;
            }
            return;
        }
        self.carry();
    }

    /// [`Self::advance`] at the end of the innermost outer dimension.
    #[cold]
    fn carry(&mut self) {
        if let Some(i) = self.index.last_mut() {
            *i = self.at_last - 1;
        }
        for d in (0..self.shape.len()).rev() {
            self.index[d] += 1;
            if self.index[d] < self.shape[d] {
                for (o, op) in self.off.iter_mut().zip(self.ops) {
                    *o += op.outer[d];
                }
                self.at_last = self.index[self.shape.len() - 1];
                return;
            }
            self.index[d] = 0;
            for (o, op) in self.off.iter_mut().zip(self.ops) {
                *o -= (self.shape[d] as isize - 1) * op.outer[d];
            }
        }
        self.at_last = 0;
    }

    /// Operand `k`'s row here: (first element, length, stride).
    ///
    /// # Safety
    ///
    /// The walk is at a row inside the outer shape of arrays that reach
    /// every element their arrmeta describes (validated arrays).
    #[inline]
    pub(crate) unsafe fn row(&self, k: usize) -> (*const u8, usize, isize) {
        let op = &self.ops[k];
        let at = op.data.wrapping_offset(self.off[k]);
        match op.level {
            Level::Scalar => (at, 1, 0),
            Level::Fixed { n, stride } => (at, n, stride),
            Level::Var { base, stride, .. } => {
                // SAFETY: `at` is this row's (start, length) pair, inside
                // the operand's data block by the contract; a validated
                // array's rows lie inside its values block.
                let (start, len) = unsafe { pair_at(at) };
                (base.wrapping_offset(start), len, stride)
            }
        }
    }

    /// Whether operand `k`'s non-empty row starting at `p` (from
    /// [`Self::row`], so inside its values block) can be read [`SLACK`]
    /// contiguous elements of `size` bytes far, past its end if need be,
    /// without leaving the block.
    #[inline(always)]
    pub(crate) fn room(&self, k: usize, p: *const u8, size: usize) -> bool {
        match self.ops[k].level {
            Level::Var { end, .. } => (end as usize).checked_sub(p as usize) >= Some(SLACK * size),
            _ => false,
        }
    }

    /// Whether operand `k`'s non-empty row starting at `p` (from
    /// [`Self::row`]) can be read [`SLACK`] elements of `size` bytes
    /// backwards (a reversed row) without leaving the block.
    #[inline(always)]
    pub(crate) fn room_back(&self, k: usize, p: *const u8, size: usize) -> bool {
        match self.ops[k].level {
            Level::Var { begin, .. } => {
                (p as usize).checked_sub(begin as usize) >= Some((SLACK - 1) * size)
            }
            _ => false,
        }
    }

    /// The result index of this row, for an error.
    pub(crate) fn error_at(&self, e: KernelError) -> KernelError {
        let mut index = self.index.clone();
        if let Some(i) = index.last_mut() {
            *i = self.at_last;
        }
        index.iter().rev().fold(e, |e, &i| e.at(i))
    }
}

/// The (start, length) pair at `p`.
///
/// # Safety
///
/// `p` points to [`PAIR_SIZE`](crate::arrmeta::PAIR_SIZE) readable bytes.
#[inline]
pub(crate) unsafe fn pair_at(p: *const u8) -> (isize, usize) {
    let p = p.cast::<u64>();
    // SAFETY: by the contract; a pair is two native-endian u64s.
    unsafe {
        (
            p.read_unaligned() as i64 as isize,
            p.add(1).read_unaligned() as usize,
        )
    }
}

/// The byte step from one row's position to the next for an operand whose
/// outer strides walk the rows as one dimension (C order over the outer
/// shape, or broadcast along all of it: step 0); `None` otherwise.
pub(crate) fn linear_step(op: &Operand, shape: &[usize]) -> Option<isize> {
    let mut step: Option<isize> = None;
    let mut inner = 1isize;
    for (d, &n) in shape.iter().enumerate().rev() {
        if n > 1 {
            let s = op.outer[d];
            match step {
                None => step = Some(s),
                Some(st) if st.checked_mul(inner) == Some(s) => {}
                Some(_) => return None,
            }
            inner = inner.checked_mul(n as isize)?;
        }
    }
    Some(step.unwrap_or(0))
}

/// Room past a block's end, so that short rows are filled with a fixed
/// number of unconditional stores.
pub(crate) const SLACK: usize = 16;

/// Argument `a` as an operand of a result with outer shape `shape` and
/// `nd` dimensions in all, or `None` when its layout is not one this path
/// takes (a `var` above its last dimension, data types with arrmeta).
pub(crate) fn operand(a: &Array, shape: &[usize], nd: usize, size: usize) -> Option<Operand> {
    let and = a.ndim();
    if and > nd {
        return None;
    }
    let mut outer: SmallVec<[isize; 4]> = SmallVec::from_elem(0, shape.len());
    if and == 0 {
        return matches!(a.arrmeta(), Arrmeta::Scalar).then(|| {
            shared_operand(OperandParts {
                level: Level::Scalar,
                data: a.data_ptr(),
                outer,
                size,
            })
        });
    }
    // Var rows are read through the one row view; a fixed last dimension
    // from the arrmeta. Either way, the fixed dimensions above the last
    // (sizes and byte strides) and the innermost level.
    let (dims, level): (SmallVec<[(usize, isize); 4]>, Level) = match Rows::of(a) {
        Some(rows) if matches!(rows.element_arrmeta(), Arrmeta::Scalar) => {
            let block = rows.values_block();
            let level = Level::Var {
                base: block.as_ptr().wrapping_offset(rows.values_offset()),
                stride: rows.stride(),
                begin: block.as_ptr(),
                end: block.as_ptr().wrapping_add(block.len()),
            };
            (SmallVec::from(rows.dims()), level)
        }
        Some(_) => return None,
        None => {
            let (mut dims, m) = a.arrmeta().fixed_dims();
            let (n, stride) = dims.pop()?;
            if !matches!(m, Arrmeta::Scalar) {
                return None;
            }
            (dims, Level::Fixed { n, stride })
        }
    };
    // Its dimensions above the last meet the result's last `and - 1` outer ones.
    let shift = nd - and;
    if dims.len() != and - 1 {
        return None;
    }
    for (d, &(n, stride)) in (shift..).zip(&dims) {
        outer[d] = if n == shape[d] && n != 1 {
            stride
        } else if n == 1 {
            0
        } else {
            return None;
        };
    }
    Some(shared_operand(OperandParts {
        level,
        data: a.data_ptr(),
        outer,
        size,
    }))
}

/// The result's length for a row whose operands have lengths `lens`: the
/// first that is not 1 (or 1); a row of another length is an error.
#[inline]
pub(crate) fn broadcast_len(lens: &[usize]) -> Result<usize, KernelError> {
    let mut n = 1;
    for &m in lens {
        if m != 1 {
            if n == 1 {
                n = m;
            } else if m != n {
                return Err(KernelError::new(KernelErrorKind::RaggedRow {
                    len: m,
                    expected: n,
                }));
            }
        }
    }
    // A row of length 1 after the first other length also broadcasts; one
    // before it is checked here (1 then 3 then 2 fails at 2 above).
    Ok(n)
}

/// The operand whose rows the result of an unscanned per-row pass takes
/// (it shares their pairs), as the per-row loop checks each row: the lead's
/// row starts where the result's row does (its values' first byte
/// matching the result's), every result row ends before its chunk's end,
/// and every other operand's row has the lead's length or 1.
#[derive(Clone, Copy)]
pub(crate) struct Lead {
    /// The operand.
    pub(crate) k: usize,
    /// The address of its row 0's first byte (its values' first byte):
    /// only compared, never read through, so kept as a number.
    pub(crate) base: usize,
}

impl Lead {
    /// Whether the lead's row at `p`, of `bytes` bytes, is where the
    /// result's row at `d` goes (`delta` = lead base - result base), and
    /// the result's row ends before `stop`.
    #[inline(always)]
    pub(crate) fn fits(
        p: *const u8,
        delta: isize,
        (d, stop): (*mut u8, *mut u8),
        bytes: usize,
    ) -> bool {
        (p as isize).wrapping_sub(d as isize) == delta
            && (stop as usize).checked_sub(d as usize) >= Some(bytes)
    }
}

/// The per-row loop of the elementwise ragged passes for any leaf: the leaf's loop over
/// each row, with each operand's pointer and stride there (0 for one that
/// broadcasts). [`FlatRun::run_rows`] runs it, so that each leaf has its
/// own copy, calling its loop directly (inlined) rather than through the
/// leaf's vtable once per row.
///
/// With a lead `(operand, lead base - result base)`, each row is checked
/// first as [`Lead`] says: `false` at the first that fails, or when the
/// rows do not end exactly at `stop`; otherwise `true`.
///
/// `n` is the number of the walk's operands: a leaf of a fixed arity
/// passes it as a constant, so that the loops over the operands unroll
/// and their pointers, lengths and strides stay in registers.
///
/// # Safety
///
/// As [`per_row::run_rows`], for the rows `range` of the walk (positioned at the
/// first), whose `out_size`-byte elements start at `d` and end at `stop`;
/// `flat` reads and writes the operands' and result's element types.
#[inline(always)]
pub(crate) unsafe fn leaf_rows<F: FlatRun + ?Sized>(
    flat: &F,
    walk: &mut Walk<'_>,
    range: std::ops::Range<usize>,
    (mut d, stop): (*mut u8, *mut u8),
    out_size: usize,
    lead: Option<(usize, isize)>,
    n: usize,
) -> bool {
    let mut ptrs = [std::ptr::null::<u8>(); INLINE_ARGS];
    let mut strides = [0isize; INLINE_ARGS];
    let mut lens = [0usize; INLINE_ARGS];
    for _ in range {
        for k in 0..n {
            // SAFETY: the walk is inside the outer shape.
            (ptrs[k], lens[k], strides[k]) = unsafe { walk.row(k) };
        }
        walk.advance();
        let len = match lead {
            // Checked by the scan: the lengths broadcast.
            None => broadcast_len(&lens[..n]).unwrap_or(0),
            Some((k, delta)) => {
                let len = lens[k];
                if !Lead::fits(ptrs[k], delta, (d, stop), len * out_size)
                    || lens[..n].iter().any(|&m| m != len && m != 1)
                {
                    return false;
                }
                len
            }
        };
        if len > 0 {
            for k in 0..n {
                if lens[k] != len {
                    strides[k] = 0;
                }
            }
            // SAFETY: this row's `len` result elements at `d` (rows follow
            // each other from the chunk's mark, before `stop`: by the scan,
            // or checked just above), and each operand's row of `len`
            // elements or one that broadcasts, inside its validated blocks.
            unsafe { flat.run(d, out_size as isize, &ptrs[..n], &strides[..n], len) };
            d = d.wrapping_add(len * out_size);
        }
    }
    lead.is_none() || d == stop
}

/// Rows per unit of work for the threads of the per-row and segmented loops.
pub(super) const CHUNK_ROWS: usize = 1 << 10;

/// `out[j] = value(j)` for a row of `len` elements; with `wide`, the
/// first [`SLACK`] elements are written whatever the row's length (no
/// branch on it: the ones past its end are for the rows after it to
/// overwrite), then the rest of a longer row.
///
/// # Safety
///
/// `out` is writable for `len` elements (for `SLACK` with `wide`), and
/// `value` may be called for each of those `j`.
#[inline(always)]
pub(super) unsafe fn write_row(
    out: *mut f64,
    len: usize,
    wide: bool,
    value: impl Fn(usize) -> f64,
) {
    let head = if wide { SLACK } else { 0 };
    for j in 0..head {
        // SAFETY: by the contract (`wide`: `SLACK` elements).
        unsafe { *out.add(j) = value(j) };
    }
    for j in head.min(len)..len {
        // SAFETY: by the contract.
        unsafe { *out.add(j) = value(j) };
    }
}

/// A fresh result's pointer, handed to the threads of the per-row and
/// segmented loops.
pub(super) type Dst = crate::shared::Shared<*mut u8>;
