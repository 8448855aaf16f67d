//! Dimension kernels for assignment: strided fixed dimensions (coalesced
//! and reordered into memory order), and `var` dimensions with their
//! per-row broadcast checks.

use smallvec::{smallvec, SmallVec};

use crate::error::{KernelError, KernelErrorKind};
use crate::kernel::{Child, KernelCtx, KernelData};

/// Most loops a [`StridedLoops`] record holds inline; deeper fixed
/// dimension runs are split into several records.
pub(crate) const MAX_LOOPS: usize = 8;

/// One fixed dimension as the loops see it: size, byte strides, and where
/// it came from (for error indexes).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Loop {
    pub(crate) size: usize,
    pub(crate) dst_stride: isize,
    pub(crate) src_stride: isize,
    /// The original axes merged into this loop, outermost first.
    pub(crate) axes: [u8; MAX_LOOPS],
    pub(crate) naxes: u8,
}

impl Loop {
    /// A loop over one original axis.
    pub(crate) fn new(size: usize, dst_stride: isize, src_stride: isize, axis: usize) -> Loop {
        let mut axes = [0u8; MAX_LOOPS];
        axes[0] = axis as u8;
        Loop {
            size,
            dst_stride,
            src_stride,
            axes,
            naxes: 1,
        }
    }
}

/// Drops size-1 loops, orders the rest by decreasing destination stride (so
/// the innermost loop takes the smallest steps, whatever the axis order:
/// F-order and permuted arrays are walked in memory order), and merges
/// neighbouring loops that walk memory as one for both operands.
pub(crate) fn plan_loops(mut loops: SmallVec<[Loop; MAX_LOOPS]>) -> SmallVec<[Loop; MAX_LOOPS]> {
    loops.retain(|l| l.size != 1);
    // Memory order: outer loops have the larger destination strides. A
    // stable sort keeps C order among equals (e.g. broadcast dims).
    loops.sort_by_key(|l| std::cmp::Reverse(l.dst_stride.unsigned_abs()));
    let mut out: SmallVec<[Loop; MAX_LOOPS]> = SmallVec::new();
    for l in loops {
        if let Some(prev) = out.last_mut() {
            let n = l.size as isize;
            if prev.dst_stride == l.dst_stride * n && prev.src_stride == l.src_stride * n {
                prev.size *= l.size;
                prev.dst_stride = l.dst_stride;
                prev.src_stride = l.src_stride;
                for k in 0..l.naxes {
                    prev.axes[(prev.naxes + k) as usize] = l.axes[k as usize];
                }
                prev.naxes += l.naxes;
                continue;
            }
        }
        out.push(l);
    }
    out
}

/// Nested loops over fixed dimensions; the innermost calls the child's
/// strided kernel once per run.
pub(crate) struct StridedLoops {
    pub(crate) loops: [Loop; MAX_LOOPS],
    pub(crate) len: usize,
    /// Sizes of the original axes, outermost first, to turn a position in
    /// merged loops back into an index.
    pub(crate) shape: [usize; MAX_LOOPS],
    pub(crate) ndim: usize,
    /// Whether the last two loops run in tiles (see [`needs_blocking`]).
    pub(crate) blocked: bool,
    pub(crate) child: Child,
}

/// Tile edge, in elements, for blocked loops.
const TILE: usize = 32;

/// Whether the last two loops should run in tiles: the source steps
/// further in the innermost loop than in the one outside it, as in a
/// transpose, and both are long enough for tiles to pay.
pub(crate) fn needs_blocking(loops: &[Loop]) -> bool {
    let [.., outer, inner] = loops else {
        return false;
    };
    inner.src_stride.unsigned_abs() > outer.src_stride.unsigned_abs()
        && outer.src_stride != 0
        && outer.size >= 2 * TILE
        && inner.size >= 2 * TILE
}

impl StridedLoops {
    /// The original index of the element at `pos[l]` in each loop.
    fn index_of(&self, pos: &[usize]) -> SmallVec<[usize; MAX_LOOPS]> {
        let mut index: SmallVec<[usize; MAX_LOOPS]> = smallvec![0; self.ndim];
        for (l, &p) in self.loops[..self.len].iter().zip(pos) {
            let mut rem = p;
            for &axis in l.axes[..l.naxes as usize].iter().rev() {
                let axis = axis as usize;
                index[axis] = rem % self.shape[axis].max(1);
                rem /= self.shape[axis].max(1);
            }
        }
        index
    }

    /// Runs loops `level..` at the given pointers.
    ///
    /// # Safety
    ///
    /// The pointers and every element the loops reach are valid.
    unsafe fn run(
        &self,
        ctx: &KernelCtx<'_>,
        level: usize,
        dst: *mut u8,
        src: *const u8,
        pos: &mut [usize; MAX_LOOPS],
    ) -> Result<(), KernelError> {
        let l = &self.loops[level];
        if level + 2 == self.len && self.blocked {
            // SAFETY: the same elements, visited tile by tile.
            return unsafe { self.run_blocked(ctx, level, dst, src, pos) };
        }
        if level + 1 == self.len {
            // SAFETY: the innermost run is valid by this function's contract.
            return unsafe {
                ctx.child(self.child)
                    .strided(dst, l.dst_stride, &[src], &[l.src_stride], l.size)
            }
            .map_err(|e| {
                let mut at = *pos;
                at[level] = e.path().first().copied().unwrap_or(0);
                self.reindex(e, &at[..self.len])
            });
        }
        let (mut d, mut s) = (dst, src);
        for i in 0..l.size {
            pos[level] = i;
            // SAFETY: as above, one level in.
            unsafe { self.run(ctx, level + 1, d, s, pos)? };
            d = d.wrapping_offset(l.dst_stride);
            s = s.wrapping_offset(l.src_stride);
        }
        Ok(())
    }

    /// Runs the last two loops tile by tile, so that a source read across
    /// its rows (a transpose) reuses each cache line it loads.
    ///
    /// # Safety
    ///
    /// As [`Self::run`].
    unsafe fn run_blocked(
        &self,
        ctx: &KernelCtx<'_>,
        level: usize,
        dst: *mut u8,
        src: *const u8,
        pos: &mut [usize; MAX_LOOPS],
    ) -> Result<(), KernelError> {
        let (outer, inner) = (&self.loops[level], &self.loops[level + 1]);
        let child = ctx.child(self.child);
        for jb in (0..inner.size).step_by(TILE) {
            let jn = TILE.min(inner.size - jb);
            for ib in (0..outer.size).step_by(TILE) {
                for i in ib..(ib + TILE).min(outer.size) {
                    let d = dst.wrapping_offset(
                        i as isize * outer.dst_stride + jb as isize * inner.dst_stride,
                    );
                    let s = src.wrapping_offset(
                        i as isize * outer.src_stride + jb as isize * inner.src_stride,
                    );
                    // SAFETY: a part of the innermost run of row `i`, valid
                    // by the contract.
                    unsafe { child.strided(d, inner.dst_stride, &[s], &[inner.src_stride], jn) }
                        .map_err(|e| {
                            let mut at = *pos;
                            at[level] = i;
                            at[level + 1] = jb + e.path().first().copied().unwrap_or(0);
                            self.reindex(e, &at[..self.len])
                        })?;
                }
            }
        }
        Ok(())
    }

    /// Replaces the error's innermost-run index with the full original index.
    fn reindex(&self, e: KernelError, pos: &[usize]) -> KernelError {
        let inner: SmallVec<[usize; 4]> = e.path().iter().skip(1).copied().collect();
        let mut fresh = KernelError::new(e.kind().clone());
        for &i in inner.iter().rev() {
            fresh = fresh.at(i);
        }
        for &i in self.index_of(pos).iter().rev() {
            fresh = fresh.at(i);
        }
        fresh
    }
}

impl KernelData for StridedLoops {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        if self.len == 0 {
            // Every dimension has size 1: one element, at index [0, 0, ...].
            // SAFETY: one element, valid by the contract.
            return unsafe { ctx.child(self.child).single(dst, src) }
                .map_err(|e| (0..self.ndim).fold(e, |e, _| e.at(0)));
        }
        if self.loops[..self.len].iter().any(|l| l.size == 0) {
            return Ok(());
        }
        let mut pos = [0usize; MAX_LOOPS];
        // SAFETY: every element of the dimensions is valid by the contract.
        unsafe { self.run(ctx, 0, dst, src[0], &mut pos) }
    }

    fn describe(&self) -> String {
        let loops: Vec<String> = self.loops[..self.len]
            .iter()
            .map(|l| format!("{}:({}, {})", l.size, l.dst_stride, l.src_stride))
            .collect();
        let blocked = if self.blocked {
            ", last two in tiles"
        } else {
            ""
        };
        format!(
            "strided loops [{}] (size:(dst stride, src stride){blocked})",
            loops.join(", ")
        )
    }

    fn children(&self) -> SmallVec<[Child; 2]> {
        smallvec![self.child]
    }
}

/// Raw pointers into memory blocks that the arrays a kernel was built from
/// keep alive (the kernel's lifetime is tied to theirs).
#[derive(Clone, Copy)]
pub(crate) struct BlockPtr(pub(crate) *const u8);

// SAFETY: the pointee is a memory block's bytes, which are immutable while
// shared (writes go through the destination, which the kernel owns for the
// call); the pointer itself is plain data.
unsafe impl Send for BlockPtr {}
// SAFETY: as above.
unsafe impl Sync for BlockPtr {}

/// Where a `var` dimension's row elements live.
#[derive(Clone, Copy)]
pub(crate) struct VarRows {
    /// `values + offset`: element 0 of the values block.
    pub(crate) base: BlockPtr,
    pub(crate) stride: isize,
}

impl VarRows {
    /// # Safety
    ///
    /// `elem` points to a valid (start, length) pair of this dimension.
    pub(crate) unsafe fn row(&self, elem: *const u8) -> (*const u8, usize) {
        // SAFETY: by the contract; the pair is two native-endian u64s.
        let (start, len) = unsafe {
            let p = elem as *const u64;
            (p.read_unaligned(), p.add(1).read_unaligned())
        };
        (
            self.base.0.wrapping_offset(start as i64 as isize),
            len as usize,
        )
    }
}

/// Source rows and the destination dimension: fixed (`dst_size`) or `var`.
pub(crate) enum DstDim {
    Fixed { size: usize, stride: isize },
    Var(VarRows),
}

/// The source side of a dimension: a `var` row, a fixed dimension, or
/// nothing (a broadcast scalar).
pub(crate) enum SrcDim {
    Var(VarRows),
    Fixed { size: usize, stride: isize },
    Broadcast,
}

/// Assigns one dimension where either side is `var`: checks each row's
/// length at run time (it must match, or be 1 and broadcast).
pub(crate) struct VarAssign {
    pub(crate) dst: DstDim,
    pub(crate) src: SrcDim,
    pub(crate) child: Child,
}

impl KernelData for VarAssign {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: `dst` and `src[0]` are valid elements of this dimension
        // (pairs for var, the first element for fixed), by the contract;
        // row pointers come from their (start, length) pairs.
        unsafe {
            let (d, d_len, d_stride) = match &self.dst {
                DstDim::Fixed { size, stride } => (dst, *size, *stride),
                DstDim::Var(rows) => {
                    let (p, len) = rows.row(dst);
                    (p as *mut u8, len, rows.stride)
                }
            };
            let (s, s_len, s_stride) = match &self.src {
                SrcDim::Var(rows) => {
                    let (p, len) = rows.row(src[0]);
                    (p, len, rows.stride)
                }
                SrcDim::Fixed { size, stride } => (src[0], *size, *stride),
                SrcDim::Broadcast => (src[0], 1, 0),
            };
            let s_stride = if s_len == d_len {
                s_stride
            } else if s_len == 1 {
                0
            } else {
                return Err(KernelError::new(KernelErrorKind::RaggedRow {
                    len: s_len,
                    expected: d_len,
                }));
            };
            ctx.child(self.child)
                .strided(d, d_stride, &[s], &[s_stride], d_len)
        }
    }

    fn describe(&self) -> String {
        let dst = match &self.dst {
            DstDim::Fixed { size, .. } => format!("{size}"),
            DstDim::Var(_) => "var".into(),
        };
        let src = match &self.src {
            SrcDim::Var(_) => "var".to_string(),
            SrcDim::Fixed { size, .. } => size.to_string(),
            SrcDim::Broadcast => "broadcast".into(),
        };
        format!("{dst} <- {src} (row lengths checked)")
    }

    fn children(&self) -> SmallVec<[Child; 2]> {
        smallvec![self.child]
    }
}
