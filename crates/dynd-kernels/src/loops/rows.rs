//! `var` levels: each destination row meets a row (or a fixed dimension,
//! or a broadcast value) of every source, whose length is checked there.

use smallvec::{smallvec, SmallVec};

use crate::error::{KernelError, KernelErrorKind};
use crate::kernel::{Child, KernelCtx, KernelData};

/// Raw pointers into memory blocks that the arrays a kernel was built from
/// keep alive (the kernel's lifetime is tied to theirs).
pub(crate) type BlockPtr = crate::shared::Shared<*const u8>;

/// Where a `var` dimension's row elements live.
#[derive(Clone, Copy)]
pub(crate) struct VarRows {
    /// `values + offset`: element 0 of the values block.
    pub(crate) base: BlockPtr,
    pub(crate) stride: isize,
}

impl VarRows {
    /// The row's first element and its length.
    ///
    /// # Safety
    ///
    /// `elem` points to a valid (start, length) pair of this dimension.
    pub(crate) unsafe fn row(&self, elem: *const u8) -> (*const u8, usize) {
        // SAFETY: by the contract.
        let (start, len) = unsafe { super::ragged::pair_at(elem) };
        (self.base.get().wrapping_offset(start), len)
    }
}

/// The destination side of a row level: a fixed dimension or `var` rows.
#[derive(Clone, Copy)]
pub(crate) enum RowDim {
    Fixed { size: usize, stride: isize },
    Var(VarRows),
}

/// A source's side of a row level: `var` rows, a fixed dimension, or
/// nothing (the source broadcasts along it).
#[derive(Clone, Copy)]
pub(crate) enum SrcRow {
    Var(VarRows),
    Fixed { size: usize, stride: isize },
    Broadcast,
}

/// One dimension where the destination or a source is `var`: each
/// source's row must have the destination row's length, or 1 (it
/// broadcasts); the child runs once per row, strided.
pub(crate) struct RowLoop {
    pub(crate) dst: RowDim,
    pub(crate) src: SmallVec<[SrcRow; 4]>,
    pub(crate) child: Child,
}

impl KernelData for RowLoop {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        let (d, size, dst_stride) = match &self.dst {
            RowDim::Fixed { size, stride } => (dst, *size, *stride),
            RowDim::Var(rows) => {
                // SAFETY: `dst` is a valid (start, length) pair of the
                // destination's var dimension, by the contract.
                let (row, len) = unsafe { rows.row(dst) };
                (row as *mut u8, len, rows.stride)
            }
        };
        let mut ptrs: SmallVec<[*const u8; 4]> = smallvec![std::ptr::null(); src.len()];
        let mut strides: SmallVec<[isize; 4]> = smallvec![0; src.len()];
        for (k, (level, &p)) in self.src.iter().zip(src).enumerate() {
            let (row, len, stride) = match level {
                SrcRow::Var(rows) => {
                    // SAFETY: `p` is a valid (start, length) pair of this
                    // source's var dimension, by the contract.
                    let (r, n) = unsafe { rows.row(p) };
                    (r, n, rows.stride)
                }
                SrcRow::Fixed { size, stride } => (p, *size, *stride),
                SrcRow::Broadcast => (p, 1, 0),
            };
            strides[k] = if len == size {
                stride
            } else if len == 1 {
                0
            } else {
                return Err(KernelError::new(KernelErrorKind::RaggedRow {
                    len,
                    expected: size,
                }));
            };
            ptrs[k] = row;
        }
        // SAFETY: `size` destination elements and source rows of that
        // length (or one element, not stepped over), all valid.
        unsafe {
            ctx.child(self.child)
                .strided(d, dst_stride, &ptrs, &strides, size)
        }
    }

    fn describe(&self) -> String {
        let kinds: Vec<String> = self
            .src
            .iter()
            .map(|s| match s {
                SrcRow::Var(_) => "var".to_string(),
                SrcRow::Fixed { size, .. } => size.to_string(),
                SrcRow::Broadcast => "broadcast".to_string(),
            })
            .collect();
        let dst = match &self.dst {
            RowDim::Fixed { size, .. } => size.to_string(),
            RowDim::Var(_) => "var".to_string(),
        };
        format!("{dst} <- [{}] (row lengths checked)", kinds.join(", "))
    }

    fn children(&self) -> SmallVec<[Child; 2]> {
        smallvec![self.child]
    }
}
