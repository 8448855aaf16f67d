//! The pass over the rows of a ragged elementwise call: each row's
//! lengths checked to broadcast, the result's elements counted (with a
//! mark at every unit of [`CHUNK_ROWS`] rows for the threads of the
//! per-row loop), each operand's layout noted (whether its rows lie end to
//! end with the result's lengths), and the result's fresh pairs written
//! when asked.

use super::{broadcast_len, linear_step, pair_at, Level, Operand, Walk, CHUNK_ROWS};
use crate::arrmeta::PAIR_SIZE;
use crate::error::Error;
use crate::loops::INLINE_ARGS;

/// What the pass over the rows found.
pub(super) struct Scan {
    /// The number of result elements.
    pub(super) total: usize,
    /// Per operand with rows: whether they lie end to end in row order,
    /// each of the result's length, of contiguous elements.
    pub(super) end_to_end: [bool; INLINE_ARGS],
    /// Per operand with rows: the byte offset (from its `base`) of its
    /// first non-empty row.
    pub(super) first: [isize; INLINE_ARGS],
    /// The result's position (element count) at the start of every
    /// [`CHUNK_ROWS`]-th row, for the threads of the per-row loop.
    pub(super) marks: Vec<usize>,
}

/// The pass over the rows: lengths checked, the result counted, each
/// operand's layout noted, and the result's fresh pairs written into
/// `pairs` (row after row from 0) when given.
pub(super) fn scan(
    shape: &[usize],
    ops: &[Operand],
    rows: usize,
    out_size: usize,
    mut pairs: Option<&mut [u8]>,
) -> Result<Scan, Error> {
    let linear = match ops.len() {
        1 => scan_linear::<1>(shape, ops, rows, out_size, pairs.as_deref_mut()),
        2 => scan_linear::<2>(shape, ops, rows, out_size, pairs.as_deref_mut()),
        3 => scan_linear::<3>(shape, ops, rows, out_size, pairs.as_deref_mut()),
        4 => scan_linear::<4>(shape, ops, rows, out_size, pairs.as_deref_mut()),
        _ => None,
    };
    if let Some(out) = linear {
        return Ok(out);
    }
    let n = ops.len();
    let mut out = Scan::new(ops, rows);
    let mut next: [Option<isize>; INLINE_ARGS] = [None; INLINE_ARGS];
    let mut walk = Walk::at(shape, ops, 0);
    let mut lens = [0usize; INLINE_ARGS];
    let mut starts = [0isize; INLINE_ARGS];
    for r in 0..rows {
        for (k, op) in ops.iter().enumerate() {
            let at = op.data.wrapping_offset(walk.off[k]);
            (starts[k], lens[k]) = match op.level {
                Level::Scalar => (0, 1),
                Level::Fixed { n, .. } => (0, n),
                // SAFETY: this row's pair, inside the operand's validated
                // data block (the walk stays in the outer shape).
                Level::Var { .. } => unsafe { pair_at(at) },
            };
        }
        let len = broadcast_len(&lens[..n]).map_err(|e| Error::from(walk.error_at(e)))?;
        let total = out.total;
        out.push_row(
            ops,
            r,
            (&starts, &lens, len),
            &mut next,
            (pairs.as_deref_mut(), out_size),
        )
        .ok_or_else(|| Error::Size {
            what: "the result's element count",
            values: vec![("elements so far", total as i128), ("row", len as i128)],
        })?;
        walk.advance();
    }
    Ok(out)
}

impl Scan {
    /// Nothing seen yet.
    fn new(ops: &[Operand], rows: usize) -> Scan {
        Scan {
            total: 0,
            end_to_end: std::array::from_fn(|k| {
                k < ops.len()
                    && matches!(ops[k].level, Level::Var { stride, .. } if stride == ops[k].size as isize)
            }),
            first: [0; INLINE_ARGS],
            marks: Vec::with_capacity(rows / CHUNK_ROWS + 1),
        }
    }

    /// Row `r` of `len` result elements, where operand `k`'s row starts at
    /// `starts[k]` with `lens[k]` elements: its unit's mark, each
    /// operand's layout noted, its fresh pair written into `pairs` (of
    /// elements `out_size` bytes) when given, and the count. `None` when
    /// the count overflows.
    #[inline(always)]
    fn push_row(
        &mut self,
        ops: &[Operand],
        r: usize,
        (starts, lens, len): (&[isize; INLINE_ARGS], &[usize; INLINE_ARGS], usize),
        next: &mut [Option<isize>; INLINE_ARGS],
        (pairs, out_size): (Option<&mut [u8]>, usize),
    ) -> Option<()> {
        if r.is_multiple_of(CHUNK_ROWS) {
            self.marks.push(self.total);
        }
        for k in 0..ops.len() {
            if !self.end_to_end[k] {
                continue;
            }
            if lens[k] != len {
                self.end_to_end[k] = false;
            } else if len > 0 {
                match next[k] {
                    Some(at) if at != starts[k] => self.end_to_end[k] = false,
                    Some(_) => {}
                    None => self.first[k] = starts[k],
                }
                next[k] = Some(starts[k] + (len * ops[k].size) as isize);
            }
        }
        if let Some(pairs) = pairs {
            let at = r * PAIR_SIZE;
            let start = self.total.wrapping_mul(out_size) as u64;
            crate::arrmeta::write_pair(&mut pairs[at..at + PAIR_SIZE], start, len as u64);
        }
        self.total = self.total.checked_add(len)?;
        Some(())
    }
}

/// [`scan`] for operands that each walk their rows as one dimension (see
/// [`linear_step`]): a fixed step from one row's pair or value to the
/// next, with no walk over the outer shape and no call per row. `None`
/// when an operand does not, or when a row's lengths do not broadcast or
/// the count overflows (the general scan then says where).
fn scan_linear<const N: usize>(
    shape: &[usize],
    ops: &[Operand],
    rows: usize,
    out_size: usize,
    mut pairs: Option<&mut [u8]>,
) -> Option<Scan> {
    let n = N;
    let ops: &[Operand; N] = ops.try_into().ok()?;
    let mut at = [std::ptr::null::<u8>(); INLINE_ARGS];
    let mut step = [0isize; INLINE_ARGS];
    // Each operand's length per row: `None` for rows of its own.
    let mut fixed = [Some(1usize); INLINE_ARGS];
    for (k, op) in ops.iter().enumerate() {
        step[k] = linear_step(op, shape)?;
        at[k] = op.data;
        fixed[k] = match op.level {
            Level::Scalar => Some(1),
            Level::Fixed { n, .. } => Some(n),
            Level::Var { .. } => None,
        };
    }
    let mut out = Scan::new(ops, rows);
    let mut next: [Option<isize>; INLINE_ARGS] = [None; INLINE_ARGS];
    let (mut lens, mut starts) = ([0usize; INLINE_ARGS], [0isize; INLINE_ARGS]);
    let mut bad = false;
    for r in 0..rows {
        for k in 0..n {
            match fixed[k] {
                Some(m) => lens[k] = m,
                // SAFETY: row `r`'s pair of this operand: the steps walk
                // its rows in the result's row order, inside its
                // validated data block.
                None => (starts[k], lens[k]) = unsafe { pair_at(at[k]) },
            }
            at[k] = at[k].wrapping_offset(step[k]);
        }
        // The lengths broadcast: each is 1 or the row's length.
        let mut len = 1;
        for &m in &lens[..n] {
            if m != 1 {
                len = m;
            }
        }
        for &m in &lens[..n] {
            bad |= m != 1 && m != len;
        }
        out.push_row(
            ops,
            r,
            (&starts, &lens, len),
            &mut next,
            (pairs.as_deref_mut(), out_size),
        )?;
    }
    (!bad).then_some(out)
}
