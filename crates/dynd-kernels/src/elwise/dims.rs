//! Dimension kernels for several inputs: merged fixed loops (tiled for a
//! transposed operand) and `var` rows checked per row.

use smallvec::{smallvec, SmallVec};

use dynd_types::{Dim, Type, TypeKind};

use super::*;
use crate::arrmeta::Arrmeta;
use crate::assign::dims::{BlockPtr, VarRows};
use crate::error::{Error, KernelError, KernelErrorKind};
use crate::kernel::{Child, KernelBuilder, KernelCtx, KernelData};

/// Most loops one record holds.
pub(super) const MAX_LOOPS: usize = 8;

/// Tile edge, in elements, for blocked loops.
pub(super) const TILE: usize = 32;

/// One fixed dimension: its size, the destination's stride and each source's.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct NLoop {
    size: usize,
    dst: isize,
    src: [isize; MAX_ARGS],
}

/// Nested loops over fixed dimensions for `nsrc` sources.
pub(super) struct NaryLoops {
    loops: [NLoop; MAX_LOOPS],
    len: usize,
    nsrc: usize,
    /// Sizes of the original axes, outermost first (loops are merged in
    /// order, never reordered, so an index splits back exactly).
    shape: [usize; MAX_LOOPS],
    /// How many original axes each loop merges.
    merged: [u8; MAX_LOOPS],
    /// Whether the last two loops run in tiles.
    blocked: bool,
    /// Per source: the byte size of the element the leaf reads, when the
    /// leaf reads one scalar (0 for a core sub-array).
    elem: [usize; MAX_ARGS],
    child: Child,
}

/// Columns of a transposed source copied at once (with [`TILE`] rows).
const STRIP: usize = 2048;

thread_local! {
    /// Each thread's buffer for strips of transposed sources.
    static STRIPS: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Copies the `rows x cols` block at `src` (rows `outer` bytes apart,
/// columns `inner`) into `buf`, row-major with rows `pitch` elements apart.
/// The block goes through 8 x 8 sub-blocks held in registers, so that both
/// the reads (down the source's contiguous direction) and the writes
/// (along the buffer's rows) touch eight elements of one line in a row.
///
/// # Safety
///
/// Every element of the block is valid to read; `buf` holds `rows *
/// pitch` elements of `T`.
unsafe fn copy_block<T: Copy + Default>(
    src: *const u8,
    outer: isize,
    inner: isize,
    rows: usize,
    cols: usize,
    buf: *mut u8,
    pitch: usize,
) {
    let out = buf.cast::<T>();
    let at = |i: usize, j: usize| {
        src.wrapping_offset(i as isize * outer + j as isize * inner)
            .cast::<T>()
    };
    let (rows8, cols8) = (rows / 8 * 8, cols / 8 * 8);
    for j0 in (0..cols8).step_by(8) {
        for i0 in (0..rows8).step_by(8) {
            let mut t = [[T::default(); 8]; 8];
            for (jj, column) in t.iter_mut().enumerate() {
                for (ii, v) in column.iter_mut().enumerate() {
                    // SAFETY: element (i0 + ii, j0 + jj) of the block.
                    *v = unsafe { at(i0 + ii, j0 + jj).read_unaligned() };
                }
            }
            for ii in 0..8 {
                for (jj, column) in t.iter().enumerate() {
                    // SAFETY: inside the buffer's rows x pitch elements.
                    unsafe {
                        out.add((i0 + ii) * pitch + j0 + jj)
                            .write_unaligned(column[ii])
                    };
                }
            }
        }
    }
    // The edges: columns past the last full eight, then rows past it.
    let edge = |i: usize, j: usize| {
        // SAFETY: element (i, j) of the block, and its place in the buffer.
        unsafe {
            out.add(i * pitch + j)
                .write_unaligned(at(i, j).read_unaligned())
        };
    };
    for j in cols8..cols {
        for i in 0..rows {
            edge(i, j);
        }
    }
    for j in 0..cols8 {
        for i in rows8..rows {
            edge(i, j);
        }
    }
}

/// Pointers handed to the threads of a parallel loop.
#[derive(Clone, Copy)]
struct LoopPtrs {
    dst: *mut u8,
    src: [*const u8; MAX_ARGS],
}

// SAFETY: the threads of a loop write disjoint parts of the destination
// (distinct outer indices of a destination whose elements are distinct)
// and only read the sources, which outlive the scope the threads run in.
unsafe impl Send for LoopPtrs {}
// SAFETY: as above.
unsafe impl Sync for LoopPtrs {}

impl NaryLoops {
    /// Runs the outermost loop's indices `range`, on rayon's threads when
    /// the loops reach at least [`PARALLEL_MIN`] elements.
    ///
    /// # Safety
    ///
    /// Every element the loops reach is valid.
    unsafe fn run_top(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        let outer = self.loops[0].size;
        let total: usize = self.loops[..self.len].iter().map(|l| l.size).product();
        let threads = rayon::current_num_threads();
        // Distinct outer indices must write distinct elements.
        let disjoint = self.loops[..self.len]
            .iter()
            .all(|l| l.dst != 0 || l.size == 1);
        if total < PARALLEL_MIN || threads < 2 || outer < 2 || !disjoint {
            // SAFETY: by the contract.
            return unsafe { self.run_range(ctx, 0, outer, dst, src) };
        }
        let step = if self.blocked && self.len == 2 {
            TILE
        } else {
            1
        };
        let chunk = outer.div_ceil(threads * 2).div_ceil(step) * step;
        let mut ptrs = LoopPtrs {
            dst,
            src: [std::ptr::null(); MAX_ARGS],
        };
        ptrs.src[..src.len()].copy_from_slice(src);
        let n = src.len();
        let chunks: Vec<(usize, usize)> = (0..outer)
            .step_by(chunk)
            .map(|s| (s, (s + chunk).min(outer)))
            .collect();
        let errors: Vec<std::sync::Mutex<Option<KernelError>>> =
            chunks.iter().map(|_| std::sync::Mutex::new(None)).collect();
        rayon::scope(|scope| {
            for (&(start, end), slot) in chunks.iter().zip(&errors) {
                scope.spawn(move |_| {
                    let p = ptrs;
                    // SAFETY: outer indices `start..end` only, valid by the
                    // contract; no other chunk writes them.
                    let r = unsafe { self.run_range(ctx, start, end, p.dst, &p.src[..n]) };
                    if let Err(e) = r {
                        *slot.lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
                    }
                });
            }
        });
        // The first failing chunk's error, as a serial run would give it.
        match errors
            .into_iter()
            .find_map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
        {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Runs the outermost loop's indices `start..end`.
    ///
    /// # Safety
    ///
    /// As [`Self::run_top`].
    unsafe fn run_range(
        &self,
        ctx: &KernelCtx<'_>,
        start: usize,
        end: usize,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        let l = &self.loops[0];
        let at = start as isize;
        let d = dst.wrapping_offset(at * l.dst);
        let s: SmallVec<[*const u8; MAX_ARGS]> = src
            .iter()
            .zip(&l.src)
            .map(|(p, st)| p.wrapping_offset(at * st))
            .collect();
        let count = end - start;
        let shift = |e: KernelError| shift_first(e, start);
        if self.len == 2 && self.blocked {
            // SAFETY: the same elements, visited tile by tile.
            return unsafe { self.run_blocked(ctx, count, d, &s) }
                .map_err(|e| self.unmerge_pair(shift(e), 0));
        }
        if self.len == 1 {
            // SAFETY: the innermost run is valid by the contract.
            return unsafe {
                ctx.child(self.child)
                    .strided(d, l.dst, &s, &l.src[..self.nsrc], count)
            }
            .map_err(|e| self.unmerge(shift(e), 0));
        }
        let mut s = s;
        let mut d = d;
        for i in 0..count {
            // SAFETY: as above, one level in.
            unsafe { self.run(ctx, 1, d, &s) }.map_err(|e| self.unmerge(e.at(start + i), 0))?;
            d = d.wrapping_offset(l.dst);
            for (p, st) in s.iter_mut().zip(&l.src) {
                *p = p.wrapping_offset(*st);
            }
        }
        Ok(())
    }

    /// # Safety
    ///
    /// Every element the loops reach is valid.
    unsafe fn run(
        &self,
        ctx: &KernelCtx<'_>,
        level: usize,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        let l = &self.loops[level];
        let strides = &l.src[..self.nsrc];
        if level + 2 == self.len && self.blocked {
            // SAFETY: the same elements, visited tile by tile.
            return unsafe { self.run_blocked(ctx, l.size, dst, src) }
                .map_err(|e| self.unmerge_pair(e, level));
        }
        if level + 1 == self.len {
            // SAFETY: the innermost run is valid by the contract.
            return unsafe {
                ctx.child(self.child)
                    .strided(dst, l.dst, src, strides, l.size)
            }
            .map_err(|e| self.unmerge(e, level));
        }
        let mut s = [std::ptr::null::<u8>(); MAX_ARGS];
        s[..src.len()].copy_from_slice(src);
        let s = &mut s[..src.len()];
        let mut d = dst;
        for i in 0..l.size {
            // SAFETY: as above, one level in.
            unsafe { self.run(ctx, level + 1, d, s) }.map_err(|e| self.unmerge(e.at(i), level))?;
            d = d.wrapping_offset(l.dst);
            for (p, st) in s.iter_mut().zip(strides) {
                *p = p.wrapping_offset(*st);
            }
        }
        Ok(())
    }

    /// Splits merged indices of an error from the last two (tiled) loops.
    fn unmerge_pair(&self, e: KernelError, level: usize) -> KernelError {
        // The path is (i, j, ...): unmerge j at level + 1 under i, then i.
        let mut rest: SmallVec<[usize; 8]> = e.path().iter().copied().collect();
        if rest.is_empty() {
            return e;
        }
        let i = rest.remove(0);
        let mut inner = KernelError::new(e.kind().clone());
        for &x in rest.iter().rev() {
            inner = inner.at(x);
        }
        self.unmerge(self.unmerge(inner, level + 1).at(i), level)
    }

    /// Runs the last two loops (`outer` indices of the first) in blocks of
    /// [`TILE`] outer indices, so that a source walked across its rows (a
    /// transposed operand) reuses the cache lines it loads. Such a source,
    /// when it is contiguous along the outer loop, is copied a strip of
    /// `TILE x STRIP` at a time into a buffer whose rows are contiguous, so
    /// the leaf runs its contiguous loop over long rows; other layouts run
    /// in `TILE x TILE` tiles. An error's path is (outer index, inner
    /// index, ...), not unmerged.
    ///
    /// # Safety
    ///
    /// As [`Self::run`], for the last two loops with `outer` outer indices.
    unsafe fn run_blocked(
        &self,
        ctx: &KernelCtx<'_>,
        outer_size: usize,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        let (outer, inner) = (&self.loops[self.len - 2], &self.loops[self.len - 1]);
        // Sources copied through the strip buffer.
        let buffered: [bool; MAX_ARGS] = std::array::from_fn(|k| {
            let e = self.elem[k] as isize;
            k < self.nsrc
                && matches!(self.elem[k], 1 | 2 | 4 | 8)
                && outer.src[k] == e
                && inner.src[k] != e
                && inner.src[k] != 0
        });
        if !buffered.contains(&true) {
            // SAFETY: forwarded.
            return unsafe {
                self.run_tiles(ctx, outer_size, dst, src, &[None; MAX_ARGS], TILE, TILE)
            };
        }
        let cols = inner.size.min(STRIP);
        // Rows of a strip are a cache line more than `cols` apart, so that
        // the rows written together do not all map to one cache set.
        let pitch = cols + 8;
        let per = TILE * pitch; // u64 words per buffered source
        let nbuf = buffered.iter().filter(|b| **b).count();
        let run = |words: &mut Vec<u64>| {
            if words.len() < nbuf * per {
                words.resize(nbuf * per, 0);
            }
            let mut strips = [None; MAX_ARGS];
            let mut next = 0;
            for k in 0..self.nsrc {
                if buffered[k] {
                    strips[k] = Some(words[next * per..].as_mut_ptr().cast::<u8>());
                    next += 1;
                }
            }
            // SAFETY: forwarded; each strip holds TILE rows of `pitch`
            // elements of up to 8 bytes.
            unsafe { self.run_tiles(ctx, outer_size, dst, src, &strips, cols, pitch) }
        };
        STRIPS.with(|cell| match cell.try_borrow_mut() {
            Ok(mut words) => run(&mut words),
            // Re-entered on this thread: a buffer of its own.
            Err(_) => run(&mut Vec::new()),
        })
    }

    /// The blocked loop: `TILE` outer indices by `cols` inner ones at a
    /// time; sources with a strip buffer are copied into it first (rows
    /// `pitch` elements apart).
    ///
    /// # Safety
    ///
    /// As [`Self::run_blocked`]; each strip holds `TILE` rows of `pitch >=
    /// cols` elements of its source's size.
    #[allow(clippy::too_many_arguments)]
    unsafe fn run_tiles(
        &self,
        ctx: &KernelCtx<'_>,
        outer_size: usize,
        dst: *mut u8,
        src: &[*const u8],
        strips: &[Option<*mut u8>; MAX_ARGS],
        cols: usize,
        pitch: usize,
    ) -> Result<(), KernelError> {
        let (outer, inner) = (&self.loops[self.len - 2], &self.loops[self.len - 1]);
        let child = ctx.child(self.child);
        let mut strides: SmallVec<[isize; MAX_ARGS]> = inner.src[..self.nsrc].into();
        for k in 0..self.nsrc {
            if strips[k].is_some() {
                strides[k] = self.elem[k] as isize;
            }
        }
        let mut ptrs: SmallVec<[*const u8; MAX_ARGS]> = src.iter().copied().collect();
        for ib in (0..outer_size).step_by(TILE) {
            let rows = TILE.min(outer_size - ib);
            for jb in (0..inner.size).step_by(cols) {
                let jn = cols.min(inner.size - jb);
                let (io, jo) = (ib as isize, jb as isize);
                for k in 0..self.nsrc {
                    let Some(buf) = strips[k] else { continue };
                    let at = src[k].wrapping_offset(io * outer.src[k] + jo * inner.src[k]);
                    let (o, i) = (outer.src[k], inner.src[k]);
                    // SAFETY: the block's elements are valid by the contract;
                    // the strip holds `rows * cols` of them.
                    unsafe {
                        match self.elem[k] {
                            1 => copy_block::<u8>(at, o, i, rows, jn, buf, pitch),
                            2 => copy_block::<u16>(at, o, i, rows, jn, buf, pitch),
                            4 => copy_block::<u32>(at, o, i, rows, jn, buf, pitch),
                            _ => copy_block::<u64>(at, o, i, rows, jn, buf, pitch),
                        }
                    }
                }
                for r in 0..rows {
                    let i = ib + r;
                    let io = i as isize;
                    let d = dst.wrapping_offset(io * outer.dst + jo * inner.dst);
                    for (k, p) in ptrs.iter_mut().enumerate() {
                        *p = match strips[k] {
                            Some(buf) => buf.wrapping_add(r * pitch * self.elem[k]).cast_const(),
                            None => src[k].wrapping_offset(io * outer.src[k] + jo * inner.src[k]),
                        };
                    }
                    // SAFETY: part of row `i`'s innermost run (or its copy in
                    // a strip), valid by the contract.
                    unsafe { child.strided(d, inner.dst, &ptrs, &strides, jn) }
                        .map_err(|e| shift_first(e, jb).at(i))?;
                }
            }
        }
        Ok(())
    }

    /// Splits the index of a merged loop back into its original axes.
    fn unmerge(&self, e: KernelError, level: usize) -> KernelError {
        let m = self.merged[level] as usize;
        if m <= 1 || e.path().is_empty() {
            return e;
        }
        let mut rest: SmallVec<[usize; 8]> = e.path().iter().copied().collect();
        let mut flat = rest.remove(0);
        let start: usize = self.merged[..level].iter().map(|&x| x as usize).sum();
        let mut parts: SmallVec<[usize; 8]> = SmallVec::new();
        for axis in (start..start + m).rev() {
            let n = self.shape[axis].max(1);
            parts.push(flat % n);
            flat /= n;
        }
        let mut fresh = KernelError::new(e.kind().clone());
        for &i in rest.iter().rev() {
            fresh = fresh.at(i);
        }
        for &i in parts.iter() {
            fresh = fresh.at(i);
        }
        fresh
    }
}

/// The error with its first path index (the innermost loop's, for a
/// strided run) moved on by `by`.
fn shift_first(e: KernelError, by: usize) -> KernelError {
    if by == 0 || e.path().is_empty() {
        return e;
    }
    let mut fresh = KernelError::new(e.kind().clone());
    for (n, &x) in e.path().iter().enumerate().rev() {
        fresh = fresh.at(if n == 0 { x + by } else { x });
    }
    fresh
}

impl KernelData for NaryLoops {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        if self.len == 0 {
            // SAFETY: one element.
            return unsafe { ctx.child(self.child).single(dst, src) };
        }
        if self.loops[..self.len].iter().any(|l| l.size == 0) {
            return Ok(());
        }
        // SAFETY: by the contract.
        unsafe { self.run_top(ctx, dst, src) }
    }

    fn describe(&self) -> String {
        let loops: Vec<String> = self.loops[..self.len]
            .iter()
            .map(|l| format!("{}:({}; {:?})", l.size, l.dst, &l.src[..self.nsrc]))
            .collect();
        let blocked = if self.blocked {
            ", last two in tiles"
        } else {
            ""
        };
        format!(
            "elementwise loops [{}] (size:(dst stride; src strides){blocked})",
            loops.join(", ")
        )
    }

    fn children(&self) -> SmallVec<[Child; 2]> {
        smallvec![self.child]
    }
}

/// A `var` (or fixed) dimension in the sources under a fixed destination
/// dimension: each source row must have the destination's length or 1.
pub(super) struct NaryVar {
    /// The destination's var rows, or `None` for a fixed dimension of
    /// `size` elements `dst_stride` apart.
    dst_rows: Option<VarRows>,
    size: usize,
    dst_stride: isize,
    nsrc: usize,
    src: [SrcLevel; MAX_ARGS],
    child: Child,
}

#[derive(Clone, Copy)]
pub(super) enum SrcLevel {
    Var(VarRows),
    Fixed { size: usize, stride: isize },
    Broadcast,
}

impl KernelData for NaryVar {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        let (dst, size, dst_stride) = match &self.dst_rows {
            Some(rows) => {
                // SAFETY: `dst` is a valid (start, length) pair of the destination's var dimension.
                let (row, len) = unsafe { rows.row(dst) };
                (row as *mut u8, len, rows.stride)
            }
            None => (dst, self.size, self.dst_stride),
        };
        let mut ptrs = [std::ptr::null::<u8>(); MAX_ARGS];
        let mut strides = [0isize; MAX_ARGS];
        for (k, (level, &p)) in self.src[..self.nsrc].iter().zip(src).enumerate() {
            let (row, len, stride) = match level {
                SrcLevel::Var(rows) => {
                    // SAFETY: `p` is a valid (start, length) pair of this dimension.
                    let (r, n) = unsafe { rows.row(p) };
                    (r, n, rows.stride)
                }
                SrcLevel::Fixed { size, stride } => (p, *size, *stride),
                SrcLevel::Broadcast => (p, 1, 0),
            };
            let stride = if len == size {
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
            strides[k] = stride;
        }
        let n = self.nsrc;
        // SAFETY: `size` destination elements and matching source rows.
        unsafe {
            ctx.child(self.child)
                .strided(dst, dst_stride, &ptrs[..n], &strides[..n], size)
        }
    }

    fn describe(&self) -> String {
        let kinds: Vec<&str> = self.src[..self.nsrc]
            .iter()
            .map(|s| match s {
                SrcLevel::Var(_) => "var",
                SrcLevel::Fixed { .. } => "fixed",
                SrcLevel::Broadcast => "broadcast",
            })
            .collect();
        let dst = if self.dst_rows.is_some() {
            "var".to_string()
        } else {
            self.size.to_string()
        };
        format!("{dst} <- [{}] (row lengths checked)", kinds.join(", "))
    }

    fn children(&self) -> SmallVec<[Child; 2]> {
        smallvec![self.child]
    }
}

/// The dimension levels of a type with their arrmeta records.
pub(super) type Levels<'a> = SmallVec<[(&'a Dim, &'a Arrmeta); 8]>;

/// One level of a type with its arrmeta.
pub(super) fn levels<'a>(ty: &'a Type, meta: &'a Arrmeta) -> Levels<'a> {
    let mut out = SmallVec::new();
    let (mut t, mut m) = (ty, meta);
    while let TypeKind::Dim(dim, element) = t.kind() {
        let next = match m {
            Arrmeta::Fixed { element, .. } | Arrmeta::Var { element, .. } => element,
            _ => break,
        };
        out.push((dim, m));
        t = element;
        m = next;
    }
    out
}

/// Pushes the dimension kernels of an elementwise operation and, under
/// them, the leaf that `leaf` pushes. The destination is an output
/// allocated for the broadcast result ([`alloc_broadcast`] gives its `var`
/// rows their lengths); sources broadcast to it, with `var` rows checked
/// against the destination's at run time.
///
/// # Errors
///
/// [`Error::Broadcast`] for a source dimension that does not broadcast,
/// [`Error::Unsupported`] for more than [`MAX_ARGS`] sources or a `var`
/// destination dimension, and whatever `leaf` returns.
pub fn push_elwise<'a>(
    b: &mut KernelBuilder<'a>,
    dst: (&'a Type, &'a Arrmeta),
    srcs: &[(&'a Type, &'a Arrmeta)],
    leaf: &mut dyn FnMut(&mut KernelBuilder<'a>) -> Result<Child, Error>,
) -> Result<Child, Error> {
    push_lifted(b, dst, 0, srcs, &[0; MAX_ARGS], leaf)
}

/// As [`push_elwise`], over all but the last `dst_core` dimensions of the
/// destination and the last `src_core[i]` of source `i`: the leaf is
/// called with pointers to the first element of each operand's *core*
/// (the sub-array those trailing dimensions span).
pub(super) fn push_lifted<'a>(
    b: &mut KernelBuilder<'a>,
    dst: (&'a Type, &'a Arrmeta),
    dst_core: usize,
    srcs: &[(&'a Type, &'a Arrmeta)],
    src_core: &[usize],
    leaf: &mut dyn FnMut(&mut KernelBuilder<'a>) -> Result<Child, Error>,
) -> Result<Child, Error> {
    if srcs.len() > MAX_ARGS {
        return Err(Error::Value {
            what: format!(
                "an elementwise kernel takes at most {MAX_ARGS} inputs, not {}",
                srcs.len()
            ),
        });
    }
    let mut dst_levels = levels(dst.0, dst.1);
    dst_levels.truncate(dst_levels.len().saturating_sub(dst_core));
    let nd = dst_levels.len();
    let src_levels: SmallVec<[Levels<'_>; MAX_ARGS]> = srcs
        .iter()
        .enumerate()
        .map(|(i, (t, m))| {
            let core = src_core.get(i).copied().unwrap_or(0);
            let mut l = levels(t, m);
            l.truncate(l.len().saturating_sub(core));
            l
        })
        .collect();
    for (i, l) in src_levels.iter().enumerate() {
        if l.len() > nd {
            return Err(Error::Broadcast {
                axis: 0,
                src_dim: l[0].0.to_string(),
                dst_dim: "none".into(),
                src: srcs[i].0.clone(),
                dst: dst.0.clone(),
            });
        }
    }
    // Source level `k` of argument `i` meets destination level `k + shift_i`.
    let at = |i: usize, level: usize| -> Option<(&Dim, &Arrmeta)> {
        let shift = nd - src_levels[i].len();
        level.checked_sub(shift).map(|k| src_levels[i][k])
    };
    // The byte size of each source's scalar element, where the leaf reads one.
    let mut elem = [0usize; MAX_ARGS];
    for (i, (t, _)) in srcs.iter().enumerate() {
        if src_core.get(i).copied().unwrap_or(0) == 0 {
            elem[i] = t.dtype().data_layout().map_or(0, |l| l.size);
        }
    }
    push_levels(b, dst, srcs, &elem, &dst_levels, &at, 0, leaf)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn push_levels<'a>(
    b: &mut KernelBuilder<'a>,
    dst: (&'a Type, &'a Arrmeta),
    srcs: &[(&'a Type, &'a Arrmeta)],
    elem: &[usize; MAX_ARGS],
    dst_levels: &[(&'a Dim, &'a Arrmeta)],
    at: &dyn Fn(usize, usize) -> Option<(&'a Dim, &'a Arrmeta)>,
    level: usize,
    leaf: &mut dyn FnMut(&mut KernelBuilder<'a>) -> Result<Child, Error>,
) -> Result<Child, Error> {
    let nd = dst_levels.len();
    if level == nd {
        return leaf(b);
    }
    let n = srcs.len();
    let var_rows = |m: &Arrmeta| match m {
        Arrmeta::Var {
            values,
            offset,
            stride,
            ..
        } => Some(VarRows {
            base: BlockPtr(values.as_ptr().wrapping_add(*offset)),
            stride: *stride,
        }),
        _ => None,
    };
    let dst_rows = var_rows(dst_levels[level].1);
    let (size, dst_stride) = dst_levels[level]
        .1
        .as_fixed()
        .map_or((0, 0), |(n, s, _)| (n, s));
    let is_fixed_level = |l: usize| {
        dst_levels[l].1.as_fixed().is_some()
            && (0..n).all(|i| !matches!(at(i, l).map(|x| x.1), Some(Arrmeta::Var { .. })))
    };
    if is_fixed_level(level) {
        let mut end = level;
        while end < nd && end - level < MAX_LOOPS && is_fixed_level(end) {
            end += 1;
        }
        let mut loops: SmallVec<[NLoop; MAX_LOOPS]> = SmallVec::new();
        for (l, (_, dst_meta)) in dst_levels.iter().enumerate().take(end).skip(level) {
            let Some((size, dst_stride, _)) = dst_meta.as_fixed() else {
                unreachable!()
            };
            let mut src = [0isize; MAX_ARGS];
            for (i, s) in src.iter_mut().enumerate().take(n) {
                *s = match at(i, l).and_then(|x| x.1.as_fixed()) {
                    None => 0,
                    Some((m, stride, _)) if m == size => stride,
                    Some((1, _, _)) => 0,
                    Some((m, _, _)) => {
                        return Err(Error::Broadcast {
                            axis: l,
                            src_dim: m.to_string(),
                            dst_dim: size.to_string(),
                            src: srcs[i].0.clone(),
                            dst: dst.0.clone(),
                        })
                    }
                };
            }
            loops.push(NLoop {
                size,
                dst: dst_stride,
                src,
            });
        }
        let child = push_levels(b, dst, srcs, elem, dst_levels, at, end, leaf)?;
        // Merge neighbours that walk memory as one for every operand.
        let mut record = NaryLoops {
            loops: [NLoop::default(); MAX_LOOPS],
            len: 0,
            nsrc: n,
            shape: [0; MAX_LOOPS],
            merged: [0; MAX_LOOPS],
            blocked: false,
            elem: *elem,
            child,
        };
        for (k, l) in loops.iter().enumerate() {
            record.shape[k] = l.size;
            if record.len > 0 {
                let prev = &mut record.loops[record.len - 1];
                let m = l.size as isize;
                if prev.dst == l.dst * m && (0..n).all(|i| prev.src[i] == l.src[i] * m) {
                    prev.size *= l.size;
                    prev.dst = l.dst;
                    prev.src = l.src;
                    record.merged[record.len - 1] += 1;
                    continue;
                }
            }
            record.loops[record.len] = *l;
            record.merged[record.len] = 1;
            record.len += 1;
        }
        if record.len >= 2 {
            let (outer, inner) = (&record.loops[record.len - 2], &record.loops[record.len - 1]);
            // Tile when some source steps further in the inner loop than in
            // the outer one (a transposed operand) and both loops are long.
            record.blocked = outer.size >= 2 * TILE
                && inner.size >= 2 * TILE
                && (0..n).any(|k| {
                    inner.src[k].unsigned_abs() > outer.src[k].unsigned_abs() && outer.src[k] != 0
                });
        }
        return Ok(b.push(record));
    }
    let child = push_levels(b, dst, srcs, elem, dst_levels, at, level + 1, leaf)?;
    let mut src = [SrcLevel::Broadcast; MAX_ARGS];
    for (i, s) in src.iter_mut().enumerate().take(n) {
        *s = match at(i, level) {
            None => SrcLevel::Broadcast,
            Some((_, m @ Arrmeta::Var { .. })) => match var_rows(m) {
                Some(rows) => SrcLevel::Var(rows),
                None => unreachable!("var arrmeta has rows"),
            },
            Some((_, m)) => match m.as_fixed() {
                Some((size, stride, _)) => SrcLevel::Fixed { size, stride },
                None => unreachable!("a dimension level has fixed or var arrmeta"),
            },
        };
    }
    Ok(b.push(NaryVar {
        dst_rows,
        size,
        dst_stride,
        nsrc: n,
        src,
        child,
    }))
}
