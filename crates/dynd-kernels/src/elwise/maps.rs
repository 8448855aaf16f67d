//! Leaf kernels from Rust functions over element types.

use super::*;
use crate::error::KernelError;
use crate::kernel::{KernelCtx, KernelData};

/// The loop of a map leaf (a Rust function over fixed element types).
pub(super) trait MapLoop: Send + Sync + 'static {
    /// The number of inputs.
    const ARITY: usize;

    /// # Safety
    ///
    /// As [`KernelData::strided`].
    unsafe fn strided_loop(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError>;

    /// One line for [`crate::kernel::Kernel::describe`].
    fn describe(&self) -> String;

    /// As [`FlatRun::f64_op`].
    fn f64_op(&self) -> Option<F64Op> {
        None
    }
}

/// A map leaf as a kernel record, and as a flat loop.
#[derive(Clone)]
pub(super) struct MapLeaf<M>(pub(super) M);

impl<M: MapLoop> KernelData for MapLeaf<M> {
    unsafe fn single(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        let zeros = [0isize; MAX_LEAF_ARGS];
        // SAFETY: one element each, by the contract; no leaf takes more
        // than `MAX_LEAF_ARGS` inputs.
        unsafe { self.0.strided_loop(dst, 0, src, &zeros[..src.len()], 1) }
    }

    unsafe fn strided(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        // SAFETY: forwarded contract.
        unsafe { self.0.strided_loop(dst, dst_stride, src, src_stride, count) }
    }

    fn describe(&self) -> String {
        self.0.describe()
    }
}

impl<M: MapLoop> FlatRun for MapLeaf<M> {
    unsafe fn run(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) {
        // SAFETY: forwarded contract; maps never fail.
        let _ = unsafe { self.0.strided_loop(dst, dst_stride, src, src_stride, count) };
    }

    fn f64_op(&self) -> Option<F64Op> {
        self.0.f64_op()
    }

    unsafe fn run_rows(
        &self,
        walk: &mut crate::loops::ragged::Walk<'_>,
        range: std::ops::Range<usize>,
        out: (*mut u8, *mut u8),
        out_size: usize,
        lead: Option<(usize, isize)>,
    ) -> bool {
        // The walk's operands are the leaf's inputs (the caller checks).
        debug_assert_eq!(walk.operands(), M::ARITY);
        // SAFETY: forwarded; the arity is the number of operands.
        unsafe { crate::loops::ragged::leaf_rows(self, walk, range, out, out_size, lead, M::ARITY) }
    }
}
