//! Fused programs over ragged rows: the elementwise fast pass over the
//! rows' values ([`RowLayout::fast`]: rows checked to have the result's
//! lengths and lie end to end, values per row spread over blocks), with
//! the program's blocks as its loop.

use std::sync::Mutex;

use smallvec::SmallVec;

use dynd_types::Type;

use super::{Fused, Program, Ref, Slot};
use crate::array::Array;
use crate::elwise::FlatRun;
use crate::error::{Error, KernelError};
use crate::kernel::{Kernel, KernelBuilder};
use crate::loops::ragged::RowLayout;

/// Evaluates `root` into a new array of type `ty`, fixed dimensions around
/// one innermost `var`; `None` when a leaf's layout or rows are not ones
/// the fast pass takes. A step's error comes without an index (the
/// step-by-step evaluation names the element).
pub(super) fn eval(p: &Program, root: Slot, ty: &Type) -> Result<Option<Array>, Error> {
    let Ref::Step(root) = root.0 else {
        return Ok(None);
    };
    // The result's values are plain elements (no NA flags to lay out).
    if p.steps[root].dtype.as_scalar().is_none() {
        return Ok(None);
    }
    let srcs: SmallVec<[&Array; 8]> = p.leaves.iter().collect();
    let sizes = p
        .leaves
        .iter()
        .map(|a| Ok(a.dtype().data_layout()?.size))
        .collect::<Result<SmallVec<[usize; 8]>, Error>>()?;
    let Some(layout) = RowLayout::new(ty, &srcs, &sizes, p.steps[root].size) else {
        return Ok(None);
    };
    let mut b = KernelBuilder::new();
    let fused = p.fused(&mut b, root)?;
    let kernel = b.finish()?;
    let runner = Runner {
        fused: &fused,
        kernel: &kernel,
        error: Mutex::new(None),
    };
    let out = layout.fast(&runner, None)?;
    match runner.error.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e.into()),
        None => Ok(out),
    }
}

/// The fused steps as the fast pass's loop; the first error a run meets
/// is kept (and the later runs skipped).
struct Runner<'a> {
    fused: &'a Fused,
    kernel: &'a Kernel<'a>,
    error: Mutex<Option<KernelError>>,
}

impl FlatRun for Runner<'_> {
    unsafe fn run(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) {
        let failed = || {
            self.error
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .is_some()
        };
        if failed() {
            return;
        }
        let r = self.fused.with_buffers(|bufs| {
            // SAFETY: the fast pass hands over runs of the result's values
            // and each leaf's (in leaf order, of the sizes the layout was
            // made with: the leaves' data types), as `FlatRun::run`
            // promises; the buffers are this thread's.
            unsafe {
                self.fused
                    .run_blocks(self.kernel, bufs, dst, dst_stride, src, src_stride, count)
            }
        });
        if let Err(e) = r {
            let mut slot = self.error.lock().unwrap_or_else(|p| p.into_inner());
            slot.get_or_insert(e);
        }
    }
}
