//! Ragged rows as runs: an elementwise operation whose result is fixed
//! dimensions around one innermost `var` (`var * T`, `N * var * T`, ...)
//! works on the operands' values buffers with their rows' (start, length)
//! pairs, never through a kernel call per row.
//!
//! One pass over the rows reads each operand's pairs, checks that the
//! lengths broadcast (equal, or 1), and notes whether each operand's rows
//! lie end to end in row order with the result's lengths. Then:
//!
//! - **flat**: every operand with rows has them end to end with the
//!   result's lengths (two columns of one table, a result and its input,
//!   anything read from Arrow), and the others are 0-d: the leaf's loop
//!   runs once over all the values, on several threads for long runs;
//! - **per row**: otherwise (a value per row, rows of length 1 that
//!   broadcast, a fixed last dimension against the rows, views with steps
//!   over the rows): one call of the leaf's loop per row with each
//!   operand's pointer and stride for that row, rows split across threads.
//!
//! The result shares the (start, length) pairs of an operand whose rows are
//! exactly the result's (end to end from the start of its values, of
//! elements the result's size); otherwise the pass writes fresh pairs.

use std::sync::Arc;

use smallvec::SmallVec;

use dynd_types::{Dim, Type};

use super::*;
use crate::array::Array;
use crate::arrmeta::{Arrmeta, PAIR_SIZE};
use crate::error::{Error, KernelError, KernelErrorKind};
use crate::memory::MemoryBlock;

/// One operand's layout at the result's innermost (`var`) level.
#[derive(Clone, Copy)]
enum Level {
    /// 0-d: one element for every position.
    Scalar,
    /// `var` rows: element `j` of the row whose pair is (start, len) is at
    /// `base + start + j * stride`.
    Var { base: *const u8, stride: isize },
    /// A fixed last dimension of `n` elements `stride` bytes apart (`n ==
    /// 1`: one value per row).
    Fixed { n: usize, stride: isize },
}

/// One operand: its layout at the innermost level, its first element, its
/// byte stride along each of the result's outer dimensions (0 where it
/// broadcasts or has no such dimension), and its element size.
struct Operand {
    level: Level,
    data: *const u8,
    outer: SmallVec<[isize; 4]>,
    size: usize,
}

// SAFETY: an operand's pointers reach the blocks of an array the caller
// holds for the whole call; the threads only read through them.
unsafe impl Send for Operand {}
// SAFETY: as above.
unsafe impl Sync for Operand {}

/// The rows of the result, in C order of its outer (fixed) dimensions,
/// with each operand's byte offset from its first element.
struct Walk<'a> {
    shape: &'a [usize],
    ops: &'a [Operand],
    index: SmallVec<[usize; 4]>,
    off: [isize; MAX_ARGS],
}

impl<'a> Walk<'a> {
    /// The walk positioned at row `r`.
    fn at(shape: &'a [usize], ops: &'a [Operand], r: usize) -> Walk<'a> {
        let mut index: SmallVec<[usize; 4]> = SmallVec::from_elem(0, shape.len());
        let mut rem = r;
        for (i, &n) in index.iter_mut().zip(shape).rev() {
            *i = rem % n.max(1);
            rem /= n.max(1);
        }
        let mut off = [0isize; MAX_ARGS];
        for (o, op) in off.iter_mut().zip(ops) {
            *o = index
                .iter()
                .zip(&op.outer)
                .map(|(&i, &s)| i as isize * s)
                .sum();
        }
        Walk {
            shape,
            ops,
            index,
            off,
        }
    }

    /// Moves to the next row.
    #[inline]
    fn advance(&mut self) {
        for d in (0..self.shape.len()).rev() {
            self.index[d] += 1;
            if self.index[d] < self.shape[d] {
                for (o, op) in self.off.iter_mut().zip(self.ops) {
                    *o += op.outer[d];
                }
                return;
            }
            self.index[d] = 0;
            for (o, op) in self.off.iter_mut().zip(self.ops) {
                *o -= (self.shape[d] as isize - 1) * op.outer[d];
            }
        }
    }

    /// Operand `k`'s row here: (first element, length, stride).
    ///
    /// # Safety
    ///
    /// The walk is at a row inside the outer shape of arrays that reach
    /// every element their arrmeta describes (validated arrays).
    #[inline]
    unsafe fn row(&self, k: usize) -> (*const u8, usize, isize) {
        let op = &self.ops[k];
        let at = op.data.wrapping_offset(self.off[k]);
        match op.level {
            Level::Scalar => (at, 1, 0),
            Level::Fixed { n, stride } => (at, n, stride),
            Level::Var { base, stride } => {
                // SAFETY: `at` is this row's (start, length) pair, inside
                // the operand's data block by the contract; a validated
                // array's rows lie inside its values block.
                let (start, len) = unsafe { pair_at(at) };
                (base.wrapping_offset(start), len, stride)
            }
        }
    }

    /// The result index of this row, for an error.
    fn error_at(&self, e: KernelError) -> KernelError {
        self.index.iter().rev().fold(e, |e, &i| e.at(i))
    }
}

/// The (start, length) pair at `p`.
///
/// # Safety
///
/// `p` points to [`PAIR_SIZE`] readable bytes.
#[inline]
unsafe fn pair_at(p: *const u8) -> (isize, usize) {
    let p = p.cast::<u64>();
    // SAFETY: by the contract; a pair is two native-endian u64s.
    unsafe {
        (
            p.read_unaligned() as i64 as isize,
            p.add(1).read_unaligned() as usize,
        )
    }
}

/// What the pass over the rows found.
struct Scan {
    /// The number of result elements.
    total: usize,
    /// Per operand with rows: whether they lie end to end in row order,
    /// each of the result's length, of contiguous elements.
    end_to_end: [bool; MAX_ARGS],
    /// Per operand with rows: the byte offset (from its `base`) of its
    /// first non-empty row.
    first: [isize; MAX_ARGS],
    /// The result's position (element count) at the start of every
    /// [`CHUNK_ROWS`]-th row, for the threads of the per-row loop.
    marks: Vec<usize>,
}

/// Rows per unit of work for the threads of the per-row loop.
const CHUNK_ROWS: usize = 1 << 12;

/// Runs `leaf` over `srcs` into a new array of type `ty`, if `ty` is fixed
/// dimensions around one innermost `var` of the leaf's output type and the
/// leaf has a plain loop; `None` otherwise (the general path runs it).
///
/// # Errors
///
/// A ragged-row error naming the row whose lengths do not broadcast.
pub(super) fn apply_ragged(
    ty: &Type,
    srcs: &[&Array],
    leaf: &Leaf,
) -> Result<Option<Array>, Error> {
    let Some(flat) = leaf.flat.as_deref() else {
        return Ok(None);
    };
    let (dims, dtype) = ty.split_dims();
    let Some((Dim::Var, outer)) = dims.split_last() else {
        return Ok(None);
    };
    let mut shape: SmallVec<[usize; 4]> = SmallVec::new();
    for d in outer {
        match d {
            Dim::Fixed(n) => shape.push(*n),
            _ => return Ok(None),
        }
    }
    if dtype.as_scalar() != Some(leaf.output) || srcs.len() != leaf.inputs.len() {
        return Ok(None);
    }
    let nd = dims.len();
    let mut ops: SmallVec<[Operand; MAX_ARGS]> = SmallVec::new();
    for (a, t) in srcs.iter().zip(&leaf.inputs) {
        if a.dtype().as_scalar() != Some(*t) {
            return Ok(None);
        }
        match operand(a, &shape, nd, t.size()) {
            Some(op) => ops.push(op),
            None => return Ok(None),
        }
    }
    let out_size = leaf.output.size();
    let rows: usize = shape.iter().product();
    // An operand whose pairs the result can share: rows of the result's
    // outer shape (none broadcast), starting at its values' first byte,
    // of elements the result's size.
    let share = srcs.iter().zip(&ops).position(|(a, op)| {
        matches!(op.level, Level::Var { stride, .. } if stride == out_size as isize)
            && a.ndim() == nd
            && op.outer.iter().zip(&shape).all(|(&s, &n)| s != 0 || n <= 1)
            && matches!(
                crate::elwise::flat::innermost_var(a.arrmeta()),
                Some((_, 0, _, _))
            )
    });
    let (scan, pairs) = match end_to_end(&shape, &ops, rows) {
        Some(scan) => (scan, None),
        None => {
            let mut pairs = crate::memory::try_zeroed(rows, PAIR_SIZE)?;
            let scan = self::scan(&shape, &ops, rows, out_size, &mut pairs)?;
            (scan, Some(pairs))
        }
    };
    // The result's rows lie end to end from 0 either way (fresh pairs
    // count them so); shared pairs must be exactly that.
    let shared = share.filter(|&k| scan.end_to_end[k] && (scan.total == 0 || scan.first[k] == 0));
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
        let mut ptrs = [std::ptr::null::<u8>(); MAX_ARGS];
        let mut strides = [0isize; MAX_ARGS];
        for (k, op) in ops.iter().enumerate() {
            (ptrs[k], strides[k]) = match op.level {
                Level::Var { base, .. } => (base.wrapping_offset(scan.first[k]), op.size as isize),
                _ => (op.data, 0),
            };
        }
        let n = ops.len();
        // SAFETY: `dst` holds `total` elements of the output type; each
        // operand with rows has `total` contiguous elements of its type
        // from its first non-empty row on (its rows lie end to end, each
        // inside its validated values block), and the others one element;
        // the leaf reads and writes exactly these types (checked above),
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
        unsafe {
            run_rows(
                flat,
                &shape,
                &ops,
                rows,
                (&scan.marks, scan.total),
                dst,
                out_size,
            )
        };
    }
    let element = Arrmeta::Var {
        values,
        offset: 0,
        stride: out_size as isize,
        packed: true,
        element: Box::new(Arrmeta::Scalar),
    };
    let (meta, data, offset) = match (shared, pairs) {
        (Some(k), _) => (
            with_var(srcs[k].arrmeta(), element),
            srcs[k].data_block().clone(),
            srcs[k].data_offset(),
        ),
        (None, Some(pairs)) => (
            crate::array::c_order_meta(&shape, PAIR_SIZE, element)?,
            MemoryBlock::from_vec(pairs),
            0,
        ),
        (None, None) => (
            crate::array::c_order_meta(&shape, PAIR_SIZE, element)?,
            fresh_pairs(&shape, &ops, rows, out_size)?,
            0,
        ),
    };
    // SAFETY: the outer levels are C order over a block of `rows` pairs
    // (fresh), or a validated operand's own (shared); either way every
    // row's pair says `len` elements from byte `start`, and the rows lie
    // end to end from byte 0 in row order (fresh pairs are counted so; an
    // operand's pairs are shared only when the scan saw exactly that), so
    // they cover `total * out_size` bytes: the values block, of elements
    // `out_size` apart, aligned (a fresh block is 16-byte aligned).
    let out = unsafe { Array::from_parts_unchecked(ty.clone(), Arc::new(meta), data, offset) };
    Ok(Some(out))
}

/// The byte step from one row's position to the next for an operand whose
/// outer strides walk the rows as one dimension (C order over the outer
/// shape, or broadcast along all of it: step 0); `None` otherwise.
fn linear_step(op: &Operand, shape: &[usize]) -> Option<isize> {
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

/// The fast pass for operands that share a row structure: when every
/// operand is 0-d or has `var` rows of contiguous elements, walked as one
/// dimension, all of the same lengths and each lying end to end, this is
/// one loop over the pairs comparing lengths and starts (no pairs written,
/// no per-row bookkeeping); `None` as soon as that does not hold.
fn end_to_end(shape: &[usize], ops: &[Operand], rows: usize) -> Option<Scan> {
    let mut ptrs: SmallVec<[(*const u8, isize, isize, usize); MAX_ARGS]> = SmallVec::new();
    for (k, op) in ops.iter().enumerate() {
        match op.level {
            Level::Scalar => {}
            Level::Var { stride, .. } if stride == op.size as isize => {
                ptrs.push((op.data, linear_step(op, shape)?, op.size as isize, k));
            }
            _ => return None,
        }
    }
    let (&(p0, step0, size0, k0), rest) = ptrs.split_first()?;
    let mut total = 0usize;
    let mut ok = true;
    let mut first = [0isize; MAX_ARGS];
    let mut next = [0isize; MAX_ARGS];
    let mut started = false;
    for r in 0..rows as isize {
        // SAFETY: row `r`'s pair of operand 0 (a validated array walked
        // inside its outer shape).
        let (s0, len) = unsafe { pair_at(p0.wrapping_offset(r * step0)) };
        let mut starts = [0isize; MAX_ARGS];
        for (j, &(p, step, _, _)) in rest.iter().enumerate() {
            // SAFETY: as above, for operand `j + 1`.
            let (s, l) = unsafe { pair_at(p.wrapping_offset(r * step)) };
            if l != len {
                return None;
            }
            starts[j] = s;
        }
        if len == 0 {
            continue;
        }
        if !started {
            started = true;
            first[k0] = s0;
            next[k0] = s0;
            for (j, &(.., k)) in rest.iter().enumerate() {
                first[k] = starts[j];
                next[k] = starts[j];
            }
        }
        ok &= s0 == next[k0];
        next[k0] = s0 + len as isize * size0;
        for (j, &(_, _, size, k)) in rest.iter().enumerate() {
            ok &= starts[j] == next[k];
            next[k] = starts[j] + len as isize * size;
        }
        total = total.checked_add(len)?;
    }
    if !ok {
        return None;
    }
    Some(Scan {
        total,
        end_to_end: std::array::from_fn(|k| {
            k < ops.len() && !matches!(ops[k].level, Level::Scalar)
        }),
        first,
        marks: Vec::new(),
    })
}

/// Fresh pairs for the result of the fast pass: row after row from 0, with
/// the lengths of the first operand that has rows.
fn fresh_pairs(
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

/// Argument `a` as an operand of a result with outer shape `shape` and
/// `nd` dimensions in all, or `None` when its layout is not one this path
/// takes (a `var` above its last dimension, data types with arrmeta).
fn operand(a: &Array, shape: &[usize], nd: usize, size: usize) -> Option<Operand> {
    let and = a.ndim();
    if and > nd {
        return None;
    }
    let mut outer: SmallVec<[isize; 4]> = SmallVec::from_elem(0, shape.len());
    if and == 0 {
        return matches!(a.arrmeta(), Arrmeta::Scalar).then(|| Operand {
            level: Level::Scalar,
            data: a.data_ptr(),
            outer,
            size,
        });
    }
    // Its dimensions above the last meet the result's last `and - 1` outer ones.
    let shift = nd - and;
    let mut m = a.arrmeta();
    for d in shift..nd - 1 {
        let (n, stride, element) = m.as_fixed()?;
        outer[d] = if n == shape[d] && n != 1 {
            stride
        } else if n == 1 {
            0
        } else {
            return None;
        };
        m = element;
    }
    let level = match m {
        Arrmeta::Var {
            values,
            offset,
            stride,
            element,
            ..
        } if matches!(**element, Arrmeta::Scalar) => Level::Var {
            base: values.as_ptr().wrapping_add(*offset),
            stride: *stride,
        },
        Arrmeta::Fixed {
            size: n,
            stride,
            element,
        } if matches!(**element, Arrmeta::Scalar) => Level::Fixed {
            n: *n,
            stride: *stride,
        },
        _ => return None,
    };
    Some(Operand {
        level,
        data: a.data_ptr(),
        outer,
        size,
    })
}

/// The result's length for a row whose operands have lengths `lens`: the
/// first that is not 1 (or 1); a row of another length is an error.
#[inline]
fn broadcast_len(lens: &[usize]) -> Result<usize, KernelError> {
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

/// The pass over the rows: lengths checked, the result counted, each
/// operand's layout noted, and the result's fresh pairs written into
/// `pairs` (row after row from 0).
fn scan(
    shape: &[usize],
    ops: &[Operand],
    rows: usize,
    out_size: usize,
    pairs: &mut [u8],
) -> Result<Scan, Error> {
    let n = ops.len();
    let mut out = Scan {
        total: 0,
        end_to_end: std::array::from_fn(|k| {
            k < n
                && matches!(ops[k].level, Level::Var { stride, .. } if stride == ops[k].size as isize)
        }),
        first: [0; MAX_ARGS],
        marks: Vec::with_capacity(rows / CHUNK_ROWS + 1),
    };
    let mut next: [Option<isize>; MAX_ARGS] = [None; MAX_ARGS];
    let mut walk = Walk::at(shape, ops, 0);
    let mut lens = [0usize; MAX_ARGS];
    let mut starts = [0isize; MAX_ARGS];
    for r in 0..rows {
        if r % CHUNK_ROWS == 0 {
            out.marks.push(out.total);
        }
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
        for k in 0..n {
            if !out.end_to_end[k] {
                continue;
            }
            if lens[k] != len {
                out.end_to_end[k] = false;
            } else if len > 0 {
                match next[k] {
                    Some(at) if at != starts[k] => out.end_to_end[k] = false,
                    Some(_) => {}
                    None => out.first[k] = starts[k],
                }
                next[k] = Some(starts[k] + (len * ops[k].size) as isize);
            }
        }
        let at = r * PAIR_SIZE;
        let start = out.total.wrapping_mul(out_size) as u64;
        crate::arrmeta::write_pair(&mut pairs[at..at + PAIR_SIZE], start, len as u64);
        out.total = out.total.checked_add(len).ok_or_else(|| Error::Size {
            what: "the result's rows hold more elements than the address space".into(),
        })?;
        walk.advance();
    }
    Ok(out)
}

/// Pointers handed to the threads of the per-row loop.
#[derive(Clone, Copy)]
struct Dst(*mut u8);

impl Dst {
    /// The pointer (a method, so that closures capture the whole `Dst`).
    fn get(self) -> *mut u8 {
        self.0
    }
}

// SAFETY: the threads write disjoint rows of the fresh destination.
unsafe impl Send for Dst {}
// SAFETY: as above.
unsafe impl Sync for Dst {}

/// The per-row loop: for each row, the leaf's loop over the result's
/// length with each operand's pointer and stride there (0 for an operand
/// that broadcasts along the row). Rows are split across threads in runs
/// of [`CHUNK_ROWS`] when the result is long enough.
///
/// # Safety
///
/// `dst` holds the result's elements row after row, with row `r *
/// CHUNK_ROWS` starting at element `marks[r]`; the operands are validated
/// arrays of the leaf's element types whose rows broadcast to the result's
/// (as the scan checked), and none overlaps `dst`.
unsafe fn run_rows(
    flat: &dyn FlatRun,
    shape: &[usize],
    ops: &[Operand],
    rows: usize,
    (marks, total): (&[usize], usize),
    dst: *mut u8,
    out_size: usize,
) {
    let dst = Dst(dst);
    let run = |chunk: usize| {
        let dst = dst.get();
        let first = chunk * CHUNK_ROWS;
        let end = (first + CHUNK_ROWS).min(rows);
        let mut walk = Walk::at(shape, ops, first);
        let mut d = dst.wrapping_add(marks[chunk] * out_size);
        let mut ptrs = [std::ptr::null::<u8>(); MAX_ARGS];
        let mut strides = [0isize; MAX_ARGS];
        let mut lens = [0usize; MAX_ARGS];
        let n = ops.len();
        for _ in first..end {
            for k in 0..n {
                // SAFETY: the walk is inside the outer shape.
                (ptrs[k], lens[k], strides[k]) = unsafe { walk.row(k) };
            }
            // Checked by the scan: the lengths broadcast.
            let len = broadcast_len(&lens[..n]).unwrap_or(0);
            if len > 0 {
                for k in 0..n {
                    if lens[k] != len {
                        strides[k] = 0;
                    }
                }
                // SAFETY: this row's `len` result elements at `d` (rows
                // follow each other from the chunk's mark), and each
                // operand's row of `len` elements or one that broadcasts,
                // inside its validated blocks.
                unsafe { flat.run(d, out_size as isize, &ptrs[..n], &strides[..n], len) };
                d = d.wrapping_add(len * out_size);
            }
            walk.advance();
        }
    };
    let chunks = rows.div_ceil(CHUNK_ROWS);
    if total < PARALLEL_MIN || chunks < 2 || rayon::current_num_threads() < 2 {
        (0..chunks).for_each(run);
    } else {
        use rayon::prelude::*;
        (0..chunks).into_par_iter().for_each(run);
    }
}
