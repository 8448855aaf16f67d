//! The per-row loop of a ragged elementwise call: for each row, the
//! leaf's loop over the result's length with each operand's pointer and
//! stride there, rows split across threads; a binary `float64` operation
//! runs each row in a loop of its own, with no call per row.

use super::{write_row, Dst, Lead, Operand, Walk, CHUNK_ROWS, SLACK};
use crate::loops::{F64Op, FlatRun, PARALLEL_MIN};
use crate::op::{with_f64_op, FloatApply};

/// The per-row loop: for each row, the leaf's loop over the result's
/// length with each operand's pointer and stride there (0 for an operand
/// that broadcasts along the row). Rows are split across threads in runs
/// of [`CHUNK_ROWS`] when the result is long enough.
///
/// With a `lead`, the rows were not scanned first: the result is to have
/// the lead operand's rows, and the loop checks each row before computing
/// it (see [`Lead`]). It returns `false`, leaving the result partly
/// written, at the first row that breaks that; otherwise `true` (and
/// always `true` without a lead).
///
/// # Safety
///
/// `dst` holds the result's `total` elements, with row `r * CHUNK_ROWS`
/// starting at element `marks[r]` (marks that do not decrease, from 0);
/// the operands are validated arrays of the leaf's element types, and
/// none overlaps `dst`. Without a lead, their rows broadcast to the
/// result's, the rows lie end to end from each mark, and the marks are
/// where they are (as the scan found); with one, the loop checks that.
pub(super) unsafe fn run_rows(
    (flat, f64_op): (&dyn FlatRun, Option<F64Op>),
    shape: &[usize],
    ops: &[Operand],
    rows: usize,
    (marks, total): (&[usize], usize),
    (dst, out_size): (*mut u8, usize),
    lead: Option<Lead>,
) -> bool {
    // SAFETY: the threads write disjoint rows of the fresh destination.
    let dst = unsafe { Dst::new(dst) };
    // A binary `float64` operation runs each row in a loop of its own
    // (no call per row).
    let f64_op = f64_op.filter(|op| {
        op.arity() == 2 && ops.len() == 2 && out_size == 8 && ops.iter().all(|o| o.size == 8)
    });
    let run = |chunk: usize| -> bool {
        let dst = dst.get();
        let first = chunk * CHUNK_ROWS;
        let end = (first + CHUNK_ROWS).min(rows);
        let mut walk = Walk::at(shape, ops, first);
        let d = dst.wrapping_add(marks[chunk] * out_size);
        let stop = dst.wrapping_add(marks.get(chunk + 1).copied().unwrap_or(total) * out_size);
        let lead = lead.map(|l| (l.k, l.base as isize - dst as isize));
        if let Some(op) = f64_op {
            // SAFETY: as below, for two `float64` operands; the chunk's
            // result elements end at `stop`.
            return unsafe {
                rows_f64_best(op, &mut walk, first..end, (d.cast(), stop.cast()), lead)
            };
        }
        // SAFETY: as `run_rows`'s contract says, for this chunk's rows.
        unsafe { flat.run_rows(&mut walk, first..end, (d, stop), out_size, lead) }
    };
    let chunks = rows.div_ceil(CHUNK_ROWS);
    if total < PARALLEL_MIN || chunks < 2 || crate::par::threads() < 2 {
        (0..chunks).all(run)
    } else {
        crate::par::all(chunks, &run)
    }
}

/// [`rows_f64`] compiled for the CPU it runs on ([`crate::isa::best!`]).
///
/// # Safety
///
/// As [`rows_f64`].
unsafe fn rows_f64_best(
    op: F64Op,
    walk: &mut Walk<'_>,
    range: std::ops::Range<usize>,
    out: (*mut f64, *mut f64),
    lead: Option<(usize, isize)>,
) -> bool {
    // SAFETY: forwarded (`isa::best` runs on a set the CPU has).
    crate::isa::best!(unsafe { rows_f64(op, walk, range, out, lead) })
}

/// [`run_rows`]'s loop for a binary `float64` operation: each row of the
/// result computed by a loop compiled for its operands' steps (both
/// contiguous, one reversed, one broadcast, or any), with no call per
/// row. With a lead (operand, lead base - result base), each row is
/// checked first as [`Lead`] says; `false` at the first that fails, or
/// when the rows do not end exactly at `out.1`.
///
/// # Safety
///
/// As [`run_rows`], for the rows `range` of the walk (positioned at the
/// first), whose elements start at `out.0` and end at `out.1`; both
/// operands are `float64`.
#[inline(always)]
unsafe fn rows_f64(
    op: F64Op,
    walk: &mut Walk<'_>,
    range: std::ops::Range<usize>,
    out: (*mut f64, *mut f64),
    lead: Option<(usize, isize)>,
) -> bool {
    macro_rules! each {
        ($f:expr) => {
            match lead {
                None => rows_f64_each::<false>($f, walk, range, out, (0, 0)),
                Some(lead) => rows_f64_each::<true>($f, walk, range, out, lead),
            }
        };
    }
    // Unary operations never come here (the caller checks the arity):
    // `false` sends them to the general path.
    // SAFETY: forwarded.
    unsafe { with_f64_op!(binary op, O => each!(O::apply::<f64>), else false) }
}

/// [`rows_f64`] for one operation, checking each row against the lead
/// `(operand, lead base - result base)` when `LED`. A row of contiguous
/// (or reversed) or broadcast operands with room after it (in the
/// chunk's result, and in each operand's values block, before a reversed
/// row's first element) is computed as [`SLACK`]
/// elements with no branch on its length, the ones past its end being
/// overwritten by the rows after it (a plain `float64` operation has no
/// effect but its value).
///
/// # Safety
///
/// As [`rows_f64`].
#[inline(always)]
unsafe fn rows_f64_each<const LED: bool>(
    f: impl Fn(f64, f64) -> f64,
    walk: &mut Walk<'_>,
    range: std::ops::Range<usize>,
    (mut out, stop): (*mut f64, *mut f64),
    (lead, delta): (usize, isize),
) -> bool {
    /// Element `j` of a row at `p`, `step` bytes apart.
    ///
    /// # Safety
    ///
    /// The element is readable.
    #[inline(always)]
    unsafe fn at(p: *const u8, step: isize, j: usize) -> f64 {
        // SAFETY: by the contract.
        unsafe {
            p.wrapping_offset(j as isize * step)
                .cast::<f64>()
                .read_unaligned()
        }
    }
    for _ in range {
        // SAFETY: the walk is inside the outer shape.
        let ((a, la, sa), (b, lb, sb)) = unsafe { (walk.row(0), walk.row(1)) };
        walk.advance();
        let len = if LED {
            let (p, len, other) = if lead == 0 { (a, la, lb) } else { (b, lb, la) };
            if !Lead::fits(p, delta, (out.cast(), stop.cast()), len * 8)
                || (other != len && other != 1)
            {
                return false;
            }
            len
        } else if la == 1 {
            // Checked by the scan: the lengths broadcast.
            lb
        } else {
            la
        };
        // A non-empty row: each operand's row is too (or broadcasts one
        // element), so its start lies inside its values block.
        let room = |k: usize, p: *const u8, s: isize| match s {
            8 => walk.room(k, p, 8),
            -8 => walk.room_back(k, p, 8),
            _ => true,
        };
        let wide = len > 0
            && (stop as usize).checked_sub(out as usize) >= Some(SLACK * 8)
            && room(0, a, sa)
            && room(1, b, sb);
        let (sa, sb) = (
            if la == len { sa } else { 0 },
            if lb == len { sb } else { 0 },
        );
        // SAFETY: in each arm, the row's `len` result elements at `out`
        // (`SLACK` with `wide`), and each operand's row of `len` elements
        // `s` bytes apart, or one element (`s == 0`), inside its
        // validated block (with `wide`, `SLACK` elements 8 or -8 bytes
        // apart, as `room` and `room_back` checked).
        unsafe {
            match (sa, sb) {
                (8, 8) => write_row(out, len, wide, |j| f(at(a, 8, j), at(b, 8, j))),
                (8, 0) => {
                    let y = at(b, 0, 0);
                    write_row(out, len, wide, |j| f(at(a, 8, j), y))
                }
                (0, 8) => {
                    let x = at(a, 0, 0);
                    write_row(out, len, wide, |j| f(x, at(b, 8, j)))
                }
                (8, -8) => write_row(out, len, wide, |j| f(at(a, 8, j), at(b, -8, j))),
                (-8, 8) => write_row(out, len, wide, |j| f(at(a, -8, j), at(b, 8, j))),
                _ => write_row(out, len, false, |j| f(at(a, sa, j), at(b, sb, j))),
            }
        }
        out = out.wrapping_add(len);
    }
    !LED || out == stop
}
