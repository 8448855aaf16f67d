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
                const _: () = assert!(BLOCK % PAIRWISE_BLOCK == 0);
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

/// An argument of a step of [`eval_dense_f64`]: a leaf or an earlier
/// step's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum F64Arg {
    /// Leaf `k`.
    Leaf(usize),
    /// The value of step `j` (an earlier one).
    Step(usize),
}

/// Evaluates a program of plain `float64` operations (each step an
/// [`F64Op`](crate::elwise::F64Op) over two arguments, a unary one
/// reading its first) whose leaves are C-contiguous `float64` arrays of
/// type `ty` or 0-d `float64` values, into a new array of type `ty`: the
/// last step is the result. One serial loop over small chunks with every
/// leaf read in place; no kernel is built and no intermediate array made,
/// so this is the cheap way for small expressions. The values are those
/// of evaluating step by step, bit for bit (the same IEEE operations in
/// the same order per element). [`DenseF64`] keeps the loop for another
/// evaluation.
///
/// `Ok(None)` when a leaf or `ty` is not so laid out, a step refers to a
/// later one, or there is no step.
///
/// # Errors
///
/// An allocation failure for the result.
pub fn eval_dense_f64(
    steps: &[(crate::elwise::F64Op, [F64Arg; 2])],
    leaves: &[&Array],
    ty: &Type,
) -> Result<Option<Array>, Error> {
    match DenseF64::new(steps, leaves.len(), ty) {
        Some(d) => d.eval(leaves),
        None => Ok(None),
    }
}

/// [`eval_dense_f64`] into `out`, which must have type `ty` exactly
/// (`Ok(false)`, nothing written, otherwise or where `eval_dense_f64`
/// gives `None`). `out` may be one of the leaves: it is made the only
/// owner of its memory first, so the leaves read what it held before.
///
/// # Errors
///
/// An allocation failure where `out`'s memory is shared and must be
/// copied first.
pub fn eval_dense_f64_into(
    steps: &[(crate::elwise::F64Op, [F64Arg; 2])],
    leaves: &[&Array],
    ty: &Type,
    out: &mut Array,
) -> Result<bool, Error> {
    match DenseF64::new(steps, leaves.len(), ty) {
        Some(d) => d.eval_into(leaves, out),
        None => Ok(false),
    }
}

/// A program of [`eval_dense_f64`] made ready once: its steps checked and
/// its loop built for results of one type, so that evaluating it again
/// over new leaves only checks their layouts and runs.
///
/// ```
/// use dynd::func::raw::{DenseF64, F64Arg, F64Op};
/// use dynd::nd::Array;
///
/// // a * b + a over three elements.
/// let steps = [
///     (F64Op::Mul, [F64Arg::Leaf(0), F64Arg::Leaf(1)]),
///     (F64Op::Add, [F64Arg::Step(0), F64Arg::Leaf(0)]),
/// ];
/// let ty = "3 * float64".parse()?;
/// let d = DenseF64::new(&steps, 2, &ty).expect("the steps are in order");
/// for k in 0..3 {
///     let a = Array::from_vec(vec![1.0, 2.0, 3.0]);
///     let b = Array::from_scalar(k as f64);
///     let r = d.eval(&[&a, &b])?.expect("dense float64 leaves");
///     assert_eq!(r.to_vec::<f64>()?, [1.0 + k as f64, 2.0 + 2.0 * k as f64, 3.0 + 3.0 * k as f64]);
/// }
/// # Ok::<(), dynd::Error>(())
/// ```
pub struct DenseF64 {
    vm: vm::Vm,
    ty: Type,
    /// The result's dimensions and their C-order steps in elements (a
    /// leaf's layout is checked against these).
    dims: crate::elwise::CDims,
    count: usize,
    leaves: usize,
}

impl std::fmt::Debug for DenseF64 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseF64")
            .field("ty", &self.ty)
            .field("steps", &self.vm.steps.len())
            .field("leaves", &self.leaves)
            .finish()
    }
}

impl DenseF64 {
    /// The program `steps` over `leaves` leaves for results of type `ty`
    /// (fixed dimensions over `float64`); `None` when `ty` is not so, a
    /// step reads a later one or a leaf past `leaves`, or there is no
    /// step.
    pub fn new(
        steps: &[(crate::elwise::F64Op, [F64Arg; 2])],
        leaves: usize,
        ty: &Type,
    ) -> Option<DenseF64> {
        let last = steps.len().checked_sub(1)?;
        let (dims, count, dtype) = crate::elwise::c_order_dims(ty)?;
        if dtype.as_scalar() != Some(Scalar::Float64) {
            return None;
        }
        let mut vm_steps: SmallVec<[vm::VmStep; 8]> = SmallVec::new();
        for (j, &(op, args)) in steps.iter().enumerate() {
            let arg = |a: F64Arg| match a {
                F64Arg::Leaf(k) if k < leaves => Some(vm::VmArg::Leaf(k)),
                F64Arg::Step(i) if i < j => Some(vm::VmArg::Reg(i)),
                _ => None,
            };
            vm_steps.push(vm::VmStep {
                op,
                args: [arg(args[0])?, arg(args[1])?],
                out: (j != last).then_some(j),
                inner: None,
            });
        }
        // Step `j` writes register `j`, the last the result: a register is
        // never written by a step that reads it.
        Some(DenseF64 {
            vm: vm::Vm::new(vm_steps, last),
            ty: ty.clone(),
            dims,
            count,
            leaves,
        })
    }

    /// The result type.
    pub fn ty(&self) -> &Type {
        &self.ty
    }

    /// The number of elements of a result.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether a result has no element.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Evaluates the program over `leaves` into a new array (as
    /// [`eval_dense_f64`]): `Ok(None)` when the leaves are not as many as
    /// planned, each C-contiguous `float64` of the result's type or 0-d
    /// `float64`.
    ///
    /// # Errors
    ///
    /// An allocation failure for the result.
    pub fn eval(&self, leaves: &[&Array]) -> Result<Option<Array>, Error> {
        fresh_result(&self.ty, |dst| self.run(leaves, dst))
    }

    /// [`DenseF64::eval`] into `out`, which must have the result type
    /// exactly (as [`eval_dense_f64_into`]; `Ok(false)` where nothing was
    /// written).
    ///
    /// # Errors
    ///
    /// An allocation failure where `out`'s memory is shared and must be
    /// copied first.
    pub fn eval_into(&self, leaves: &[&Array], out: &mut Array) -> Result<bool, Error> {
        let fits = fits_dense(out, Scalar::Float64, &self.dims);
        into_result(out, fits, |dst| self.run(leaves, dst))
    }

    /// The leaves' checks and the loop, writing where `dst()` says
    /// (called once, after every check passed): `Ok(false)` where a check
    /// fails.
    fn run(&self, leaves: &[&Array], dst: Destination<'_>) -> Result<bool, Error> {
        if leaves.len() != self.leaves {
            return Ok(false);
        }
        let types = std::iter::repeat(Scalar::Float64);
        let Some((src, strides)) = dense_sources(leaves, types, &self.dims) else {
            return Ok(false);
        };
        let dst = dst()?;
        let vm = &self.vm;
        with_buffers(vm.buffers() * vm::BUF_WORDS, |bufs| {
            // SAFETY: every leaf is a float64 array read in place: `count`
            // C-contiguous elements (stride 8) or one (stride 0), checked
            // above, as many as the steps read; `dst` is `count`
            // C-contiguous float64s of a fresh array or of an `out` made
            // the only owner of its memory (no leaf's memory, by the
            // callers' contract), every one of which the loop writes;
            // `bufs` holds the VM's buffers of CHUNK float64s, this
            // thread's; step `j` writes only register `j` and reads
            // registers of earlier steps (checked in `new`).
            unsafe { vm.run(bufs, vm::BUF_WORDS * 16, dst, 8, &src, &strides, self.count) }
        });
        Ok(true)
    }
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
pub(super) fn fits_dense(a: &Array, t: Scalar, dims: &[(usize, isize)]) -> bool {
    a.dtype().as_scalar() == Some(t) && crate::elwise::fits_c_order(a.arrmeta(), dims, t.size())
}

/// Each leaf's first element and stride for a dense loop over `dims`,
/// the leaves of the data types `types` in order: its element size where
/// it fits `dims` in C order, 0 where it is 0-d; `None` where a leaf is
/// neither.
#[allow(clippy::type_complexity)]
pub(super) fn dense_sources(
    leaves: &[&Array],
    types: impl IntoIterator<Item = Scalar>,
    dims: &[(usize, isize)],
) -> Option<(SmallVec<[*const u8; 8]>, SmallVec<[isize; 8]>)> {
    let mut src = SmallVec::new();
    let mut strides = SmallVec::new();
    for (a, t) in leaves.iter().zip(types) {
        strides.push(match a.ty().as_scalar() {
            Some(s) if s == t => 0,
            None if fits_dense(a, t, dims) => t.size() as isize,
            _ => return None,
        });
        src.push(a.data_ptr());
    }
    Some((src, strides))
}
