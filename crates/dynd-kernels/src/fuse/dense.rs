//! Dense evaluation: programs over arrays of fixed dimensions run as
//! flat loops over their blocks, and the fused `float64` sum.

use super::*;

impl Program {
    /// The result's axes (`shape`, destination strides `dst`) with each
    /// leaf's strides along them, and the leaves' element sizes; `None`
    /// when a leaf does not broadcast to `shape` by its fixed dimensions.
    #[allow(clippy::type_complexity)]
    pub(super) fn dense_axes(
        &self,
        shape: &[usize],
        dst: &[isize],
    ) -> Result<Option<(SmallVec<[Axis; 8]>, SmallVec<[usize; 4]>)>, Error> {
        let nd = shape.len();
        let mut axes: SmallVec<[Axis; 8]> = (0..nd)
            .map(|d| Axis {
                size: shape[d],
                dst: dst[d],
                src: Strides::new(),
            })
            .collect();
        let mut elem: SmallVec<[usize; 4]> = SmallVec::new();
        for a in &self.leaves {
            let Some(shift) = nd.checked_sub(a.ndim()) else {
                return Ok(None);
            };
            for axis in &mut axes[..shift] {
                axis.src.push(0);
            }
            let mut m = a.arrmeta();
            for axis in &mut axes[shift..] {
                let Some((n, stride, element)) = m.as_fixed() else {
                    return Ok(None);
                };
                axis.src.push(match n {
                    _ if n == axis.size && n != 1 => stride,
                    1 => 0,
                    _ => return Ok(None),
                });
                m = element;
            }
            if !plain(m) {
                return Ok(None);
            }
            elem.push(a.dtype().data_layout()?.size);
        }
        Ok(Some((axes, elem)))
    }

    /// The sum of `root`'s values over all the elements of a result of
    /// type `ty` (fixed dimensions over `float64`), without making the
    /// result: the values are computed a chunk at a time into a buffer and
    /// folded there. The grouping is the `sum` reduction's over a
    /// contiguous array (fixed chunks, eight accumulators, pairwise), so
    /// the bits are those of summing the evaluated result, on any number
    /// of threads. `None` when the dtype is not `float64`, the result is
    /// empty, or the leaves do not walk the result as one run.
    ///
    /// # Errors
    ///
    /// An error of a step, without an index.
    pub fn sum_f64(&self, root: Slot, ty: &Type) -> Result<Option<f64>, Error> {
        use crate::reduce::{
            fold8, fold_pairwise_blocks, fold_pairwise_exact, CHUNK, PAIRWISE_BLOCK, PARALLEL_RUN,
        };
        self.check(root)?;
        let (Ref::Step(r), Some(Scalar::Float64)) = (root.0, ty.dtype().as_scalar()) else {
            return Ok(None);
        };
        if self.dtype(root) != ty.dtype() || ty.has_var_dim() {
            return Ok(None);
        }
        let mut shape: SmallVec<[usize; 8]> = SmallVec::new();
        for d in ty.split_dims().0 {
            match d {
                Dim::Fixed(n) => shape.push(*n),
                _ => return Ok(None),
            }
        }
        // C-order strides of the result the sum stands for.
        let mut dst: SmallVec<[isize; 8]> = smallvec![0; shape.len()];
        let mut step = 8isize;
        for (d, &n) in dst.iter_mut().zip(&shape).rev() {
            *d = step;
            step = step.saturating_mul(n.max(1) as isize);
        }
        let Some((axes, _)) = self.dense_axes(&shape, &dst)? else {
            return Ok(None);
        };
        let plan = Plan::new(&axes, self.leaves.len(), Order::Index);
        let Some((total, strides)) = plan.single_run() else {
            return Ok(None);
        };
        if total == 0 {
            return Ok(None);
        }
        let mut b = KernelBuilder::new();
        let fused = self.fused(&mut b, r)?;
        let kernel = b.finish()?;
        // SAFETY: each pointer reaches a leaf array the program holds for
        // the whole sum; the threads only read through them.
        let base: SmallVec<[Shared<*const u8>; 4]> = self
            .leaves
            .iter()
            .map(|a| unsafe { Shared::new(a.data_ptr()) })
            .collect();
        let add = |x: f64, y: f64| x + y;
        // The sum reduction's grouping: each row of the last dimension
        // folded on its own (fixed chunks, pairwise), the rows then added
        // in order.
        let len = shape.last().copied().unwrap_or(1);
        let rows = total / len;
        let per_row = len.div_ceil(CHUNK);
        // Chunk `c` of row `i`.
        let chunk = |(i, c): (usize, usize)| -> Result<Option<f64>, KernelError> {
            let at = i * len + c * CHUNK;
            let m = CHUNK.min(len - c * CHUNK);
            let src: SmallVec<[*const u8; 4]> = base
                .iter()
                .zip(&strides)
                .map(|(p, &st)| p.get().wrapping_offset(at as isize * st))
                .collect();
            if let Some(vm) = &fused.vm {
                // The plain float64 loop folds each block of values as
                // they are made, none of them stored.
                let mut folds: SmallVec<[Option<f64>; 128]> = SmallVec::new();
                fused.with_buffers(|bufs| {
                    // SAFETY: elements `at..at + m` of the one run the plan
                    // found (each leaf through its stride, valid by the
                    // leaves' validated layouts), all float64 (the loop's
                    // condition); `bufs` holds this program's buffers,
                    // this thread's.
                    unsafe {
                        vm.fold_blocks(bufs, fused.buf_words * 16, &src, &strides, m, &mut folds)
                    }
                });
                return Ok(fold_pairwise_blocks(&folds, m, &add));
            }
            CHUNKS.with(|cell| {
                let mut own = Vec::new();
                let mut borrowed = cell.try_borrow_mut();
                let values: &mut Vec<f64> = match borrowed.as_deref_mut() {
                    Ok(v) => v,
                    Err(_) => &mut own,
                };
                if values.len() < BLOCK {
                    values.resize(BLOCK, 0.0);
                }
                const _: () = assert!(BLOCK.is_multiple_of(PAIRWISE_BLOCK));
                // A block of values at a time, each folded (as the sum's
                // blocks) while it is in the first-level cache; the
                // blocks' folds then combine in the sum's tree.
                let mut folds: SmallVec<[Option<f64>; 128]> = SmallVec::new();
                let mut done = 0;
                while done < m {
                    let k = BLOCK.min(m - done);
                    let src: SmallVec<[*const u8; 4]> = src
                        .iter()
                        .zip(&strides)
                        .map(|(p, &st)| p.wrapping_offset(done as isize * st))
                        .collect();
                    let dst = values.as_mut_ptr().cast::<u8>();
                    fused.with_buffers(|bufs| {
                        // SAFETY: elements `at + done..` (`k` of them) of
                        // the one run the plan found (each leaf through
                        // its stride, valid by the leaves' validated
                        // layouts); `dst` holds `BLOCK >= k` float64s, the
                        // root's data type.
                        unsafe { fused.run_blocks(&kernel, bufs, dst, 8, &src, &strides, k) }
                    })?;
                    folds.extend(values[..k].chunks(PAIRWISE_BLOCK).map(|b| fold8(b, &add)));
                    done += k;
                }
                Ok(fold_pairwise_blocks(&folds, m, &add))
            })
        };
        let parallel = total >= PARALLEL_RUN && crate::par::threads() > 1;
        // Rows a batch at a time, so the parts held stay few.
        let batch = (4096 / per_row).max(1);
        // The sum reduction starts from its identity, +0.0 (so negative
        // zeros sum to +0.0, as in `sum`).
        let mut acc: Option<f64> = Some(0.0);
        let mut parts: Vec<Option<f64>> = Vec::new();
        for first in (0..rows).step_by(batch) {
            let units =
                (first..(first + batch).min(rows)).flat_map(|i| (0..per_row).map(move |c| (i, c)));
            parts = if parallel {
                let units: Vec<(usize, usize)> = units.collect();
                crate::par::try_map(units.len(), &|i| chunk(units[i]))?
            } else {
                parts.clear();
                for u in units {
                    parts.push(chunk(u)?);
                }
                parts
            };
            for row in parts.chunks(per_row) {
                let row: SmallVec<[f64; 64]> = row.iter().flatten().copied().collect();
                if let Some(r) = fold_pairwise_exact(&row, &add) {
                    acc = Some(acc.map_or(r, |a| a + r));
                }
            }
        }
        Ok(acc)
    }

    /// Evaluates `root` into `out`, a result of fixed dimensions; `false`
    /// when a leaf's layout is not one this pass takes.
    pub(super) fn eval_dense(&self, root: Slot, out: &mut Array) -> Result<bool, Error> {
        let Ref::Step(root) = root.0 else {
            return Ok(false);
        };
        // The result's dimensions, and each leaf's strides along them.
        let mut shape: SmallVec<[usize; 8]> = SmallVec::new();
        let mut dst: SmallVec<[isize; 8]> = SmallVec::new();
        let mut m = out.arrmeta();
        while let Some((n, stride, element)) = m.as_fixed() {
            shape.push(n);
            dst.push(stride);
            m = element;
        }
        if !plain(m) {
            return Ok(false);
        }
        let Some((axes, elem)) = self.dense_axes(&shape, &dst)? else {
            return Ok(false);
        };
        let total: usize = shape.iter().product();
        let plan = Plan::new(&axes, self.leaves.len(), Order::Memory)
            .with_elem(&elem)
            .with_threads(total >= PARALLEL_MIN);
        let mut b = KernelBuilder::new();
        let fused = self.fused(&mut b, root)?;
        let kernel = b.finish()?;
        crate::assign::make_unique(out)?;
        let ptrs: SmallVec<[*const u8; 4]> = self.leaves.iter().map(|a| a.data_ptr()).collect();
        let dst = out.data_ptr() as *mut u8;
        let run = |d: *mut u8, ds: isize, s: &[*const u8], ss: &[isize], n: usize| {
            fused.with_buffers(|bufs| {
                // SAFETY: the plan hands over runs of the result's elements
                // and the leaves' matching ones (see below); the buffers
                // are this thread's.
                unsafe { fused.run_blocks(&kernel, bufs, d, ds, s, ss, n) }
            })
        };
        // SAFETY: `out` is this program's result: fixed dimensions over
        // `root`'s data type (checked by the callers), unique, so no leaf
        // reads its memory; the plan's axes are `out`'s dimensions with
        // each leaf's strides along them (broadcast ones 0), read from the
        // leaves' own arrmeta, which a validated array's elements all
        // satisfy; every step's kernel was built for its arguments' and
        // result's data types.
        unsafe { plan.run(dst, &ptrs, &run) }?;
        Ok(true)
    }
}

/// An argument of a step of a [`Dense`] program: a leaf or
/// an earlier step's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum F64Arg {
    /// Leaf `k`.
    Leaf(usize),
    /// The value of step `j` (an earlier one).
    Step(usize),
}

/// Where a dense loop writes its result: called once, after every check
/// passed, it gives the first element of C-contiguous memory of the
/// result's type that the loop writes whole and no leaf reads.
pub(super) type Destination<'a> = &'a mut dyn FnMut() -> Result<*mut u8, Error>;

/// A fresh array of type `ty`, written by `run` through its
/// [`Destination`]: `None` where `run` says its checks failed (`false`).
pub(super) fn fresh_result(
    ty: &Type,
    run: impl FnOnce(Destination<'_>) -> Result<bool, Error>,
) -> Result<Option<Array>, Error> {
    let mut out = None;
    let done = run(&mut || {
        let mut a = Array::for_overwrite(ty)?;
        let dst = a.fresh_data_ptr();
        out = Some(a);
        Ok(dst)
    })?;
    Ok(out.filter(|_| done))
}

/// `run` writing into `out`, where it `fits` (C-contiguous, of the
/// result's type): made the only owner of its memory first, so a leaf
/// sharing it reads what it held before; `false` where it does not fit or
/// `run`'s checks failed.
pub(super) fn into_result(
    out: &mut Array,
    fits: bool,
    run: impl FnOnce(Destination<'_>) -> Result<bool, Error>,
) -> Result<bool, Error> {
    if !fits {
        return Ok(false);
    }
    run(&mut || crate::assign::data_mut_ptr(out))
}

/// Whether `a` has data type `t` and exactly the fixed dimensions `dims`
/// (as [`c_order_dims`](crate::elwise::c_order_dims) gives them), in C
/// order.
#[inline]
pub(super) fn fits_dense(a: &Array, t: Scalar, dims: &[(usize, isize)]) -> bool {
    a.dtype().as_scalar() == Some(t) && crate::elwise::fits_c_order(a.arrmeta(), dims, t.size())
}

/// Each leaf's first element and stride for a dense loop over `dims`,
/// the leaves of the data types `types` in order, pushed to `src` and
/// `strides` (filled in place: returned, the two would be copied on
/// every evaluation): its element size where it fits `dims` in C order,
/// 0 where it is 0-d; `false` where a leaf is neither.
pub(super) fn dense_sources(
    leaves: &[&Array],
    types: impl IntoIterator<Item = Scalar>,
    dims: &[(usize, isize)],
    src: &mut SmallVec<[*const u8; 8]>,
    strides: &mut SmallVec<[isize; 8]>,
) -> bool {
    for (a, t) in leaves.iter().zip(types) {
        strides.push(match a.ty().as_scalar() {
            Some(s) if s == t => 0,
            None if fits_dense(a, t, dims) => t.size() as isize,
            _ => return false,
        });
        src.push(a.data_ptr());
    }
    true
}
