//! The loop engine: the one walker over the dimensions of a destination
//! and any number of sources.
//!
//! Every operation that visits elements — assignment, elementwise
//! functions and the outer loops of gufuncs, reductions, sort, take and
//! the string functions — walks them here. Fixed dimensions become a
//! [`Plan`], built once per kernel from each operand's strides:
//!
//! - axes of size 1 are dropped;
//! - the rest are ordered by the destination's strides, largest outside
//!   ([`Order::Memory`]: F-order and permuted arrays are walked in memory
//!   order), or kept in index order where the visiting order is the
//!   result's order ([`Order::Index`], for offset lists);
//! - neighbours that step through memory as one loop for every operand are
//!   merged, so a contiguous block of any rank is one run;
//! - when some source steps further along the innermost loop than along
//!   the next one out (a transposed operand), the last two loops run in
//!   tiles, copying strips of such a source into a buffer whose rows are
//!   contiguous;
//! - above [`PARALLEL_MIN`] elements the outermost loop is split among
//!   rayon's threads (the destination's elements being distinct);
//! - an error from an innermost run is mapped back to the caller's index
//!   (the original axes, in their order) from the loops' positions.
//!
//! `var` dimensions are one [`RowLoop`] record per level, which checks
//! each row's length against the destination's (equal, or 1 to
//! broadcast); [`push_dims`] builds the records for whole types. Fixed
//! dimensions around one innermost `var` are walked without a kernel, on
//! the operands' values buffers with their rows' (start, length) pairs
//! ([`ragged`]: the elementwise passes over ragged rows run on it).
//! Operands that walk as one run of one stride each (the elementwise fast
//! paths) need no plan: [`run_flat`] runs the leaf's loop once, or in
//! disjoint chunks on rayon's threads. Walks that fold what they visit
//! rather than hand it to a kernel (the reductions and scans over fixed
//! dimensions) read through [`Elems`]: each line of elements is checked
//! against the array's block once, where it is made, and is then a slice
//! or a strided line that reads without further checks; sort rearranges
//! lines in place through [`ElemsMut`], checked the same way.
//!
//! The engine owns the contract its clients meet: [`FlatRun`] for a
//! leaf's innermost loop, [`F64Op`] for plain `float64` steps, and the
//! limits it plans with ([`INLINE_ARGS`], [`MAX_LEAF_ARGS`],
//! [`PARALLEL_MIN`]).
//!
//! The engine is crate-internal; its effect shows through the public
//! operations, which all walk with it. An F-order destination is written
//! in memory order, a transposed source read in tiles, and the error
//! index is the caller's:
//!
//! ```
//! use dynd::nd::{array, Array, ArrayOps, ErrorMode};
//!
//! let a = array![[1.0, 2.0], [3.0, 4.0]];
//! let t = a.transpose()?; // strides (8, 16): read across its rows
//! let mut out = Array::zeros(&"2 * 2 * float64".parse()?)?;
//! out.assign(&t, ErrorMode::Overflow)?;
//! assert_eq!(out.to_string(), "[[1, 3], [2, 4]]");
//!
//! let mut small = Array::zeros(&"2 * 2 * int8".parse()?)?;
//! let err = small
//!     .assign(&array![[1, 2], [3, 300]], ErrorMode::Overflow)
//!     .unwrap_err();
//! assert!(err.to_string().contains("[1, 1]"), "{err}");
//! # Ok::<(), dynd::Error>(())
//! ```

mod elems;
mod flat;
mod push;
pub(crate) mod ragged;
mod rows;
pub(crate) mod stream;

use std::cmp::Reverse;

use smallvec::{smallvec, SmallVec};

use crate::error::KernelError;
use crate::kernel::{Child, KernelCtx, KernelData};
use crate::shared::Shared;

pub(crate) use elems::{Elems, ElemsMut, Line};
pub(crate) use flat::run_flat;
pub(crate) use push::{push_dims, Aligned, Builds, Operands, Serial};
pub(crate) use rows::{BlockPtr, RowDim, RowLoop, SrcRow, VarRows};

// ---------------------------------------------------------------------------
// The leaf contract: what the engine asks of the innermost loop it runs,
// and the limits it plans with. Its clients (elementwise leaves,
// assignment, reductions, fused programs) implement `FlatRun` or hand over
// `F64Op` steps; the engine never imports them.

/// How many operands the elementwise paths hold inline, without
/// allocating: kernels built by elementwise `push_elwise` take any number of
/// sources, and the fast flat and ragged paths of a `Leaf` keep theirs
/// in arrays this long (a leaf with more inputs takes the general path).
pub const INLINE_ARGS: usize = 4;

/// The most inputs a `Leaf` or `CoreLeaf` function takes: their
/// lifting traits (`ElementFn`, `CoreFn`) are implemented up to this arity.
/// Kernels built by `push_elwise` take any number of sources.
pub const MAX_LEAF_ARGS: usize = 16;

/// Elements below which an elementwise loop runs on the calling thread:
/// waking a thread costs more than a cheap loop over fewer elements.
///
/// Not lower, as measured on an AVX2 Zen 3 (a 2-core VM): with flat runs
/// split from `1 << 16`, `add` of 1e5 `float64` into an output took what
/// it takes on one thread (medians 38 and 37 µs), as does rayon's own
/// two-thread loop (36 µs; a single-thread hand loop 41); and calls 1 ms
/// apart, whose helper thread has gone to sleep by the next call, ran
/// slower split than on one thread even above this bound (`add` into an
/// output, medians of 400 calls: 2e5 elements 305 µs against 204, 4e5
/// 620 against 464; back to back, 91 against 113 and 124 against 169).
pub const PARALLEL_MIN: usize = 1 << 17;

pub use crate::op::F64Op;

/// A leaf's strided loop, callable without a kernel around it (the fast
/// path for contiguous arguments).
pub(crate) trait FlatRun: Send + Sync {
    /// # Safety
    ///
    /// As [`KernelData::strided`] for the leaf's element types.
    unsafe fn run(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    );

    /// The plain `float64` operation this loop runs, if it is one: the
    /// loop engine may then write a large result around the cache (see
    /// [`stream`]), with the operation's own bits.
    fn f64_op(&self) -> Option<crate::elwise::F64Op> {
        None
    }

    /// The per-row loop over ragged rows ([`leaf_rows`](crate::loops::ragged::leaf_rows)),
    /// compiled for each leaf: one call through the vtable per run of
    /// rows, not per row.
    ///
    /// # Safety
    ///
    /// As [`leaf_rows`](crate::loops::ragged::leaf_rows).
    unsafe fn run_rows(
        &self,
        walk: &mut crate::loops::ragged::Walk<'_>,
        range: std::ops::Range<usize>,
        out: (*mut u8, *mut u8),
        out_size: usize,
        lead: Option<(usize, isize)>,
    ) -> bool {
        let n = walk.operands();
        // SAFETY: forwarded.
        unsafe { crate::loops::ragged::leaf_rows(self, walk, range, out, out_size, lead, n) }
    }
}

// ---------------------------------------------------------------------------

/// Tile edge, in elements, for blocked loops.
pub(crate) const TILE: usize = 32;

/// Columns of a transposed source copied at once (with [`TILE`] rows).
const STRIP: usize = 2048;

/// Byte strides of the sources, one per source.
pub(crate) type Strides = SmallVec<[isize; 4]>;

/// Pointers to the sources, one per source.
type Ptrs = SmallVec<[*const u8; 4]>;

/// One fixed dimension as the caller sees it: its size and each
/// operand's byte stride along it (0 for an operand that broadcasts).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Axis {
    pub(crate) size: usize,
    pub(crate) dst: isize,
    pub(crate) src: Strides,
}

/// The order a [`Plan`] walks its loops in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Order {
    /// By decreasing destination stride: memory order for the destination.
    Memory,
    /// The caller's axis order (the visiting order is C order).
    Index,
}

/// One loop of a plan: possibly several original axes merged.
#[derive(Clone, Debug)]
struct Loop {
    size: usize,
    dst: isize,
    src: Strides,
    /// The original axes merged into this loop, outermost first.
    axes: SmallVec<[usize; 4]>,
}

/// How to walk fixed dimensions: the loops, outermost first, and what is
/// needed to run them (tiles, threads) and to name an element in errors.
#[derive(Clone, Debug)]
pub(crate) struct Plan {
    loops: SmallVec<[Loop; 4]>,
    nsrc: usize,
    /// Sizes of the original axes, to turn loop positions into an index.
    shape: SmallVec<[usize; 8]>,
    /// Whether some axis has no elements (nothing to do).
    empty: bool,
    /// Whether the last two loops run in tiles.
    blocked: bool,
    /// Per source: the byte size of the element the innermost run reads,
    /// when that is one scalar (0 otherwise; only 1, 2, 4 and 8 are
    /// copied through strips).
    elem: SmallVec<[usize; 4]>,
    /// Whether the outermost loop may be split among threads.
    parallel: bool,
}

impl Plan {
    /// Plans the walk over `axes` (the caller's order) for a destination
    /// and `nsrc` sources.
    pub(crate) fn new(axes: &[Axis], nsrc: usize, order: Order) -> Plan {
        debug_assert!(axes.iter().all(|a| a.src.len() == nsrc));
        let mut loops: SmallVec<[Loop; 4]> = axes
            .iter()
            .enumerate()
            .filter(|(_, a)| a.size != 1)
            .map(|(i, a)| Loop {
                size: a.size,
                dst: a.dst,
                src: a.src.clone(),
                axes: smallvec![i],
            })
            .collect();
        if order == Order::Memory {
            // Stable: equal strides keep the caller's order.
            loops.sort_by_key(|l| Reverse(l.dst.unsigned_abs()));
        }
        let mut merged: SmallVec<[Loop; 4]> = SmallVec::new();
        for l in loops {
            if let Some(prev) = merged.last_mut() {
                let n = l.size as isize;
                if prev.dst == l.dst.wrapping_mul(n)
                    && prev
                        .src
                        .iter()
                        .zip(&l.src)
                        .all(|(p, s)| *p == s.wrapping_mul(n))
                {
                    prev.size *= l.size;
                    prev.dst = l.dst;
                    prev.src = l.src;
                    prev.axes.extend(l.axes);
                    continue;
                }
            }
            merged.push(l);
        }
        let blocked = match merged.as_slice() {
            [.., outer, inner] => {
                outer.size >= 2 * TILE
                    && inner.size >= 2 * TILE
                    && outer
                        .src
                        .iter()
                        .zip(&inner.src)
                        .any(|(&o, &i)| o != 0 && i.unsigned_abs() > o.unsigned_abs())
            }
            _ => false,
        };
        Plan {
            loops: merged,
            nsrc,
            shape: axes.iter().map(|a| a.size).collect(),
            empty: axes.iter().any(|a| a.size == 0),
            blocked,
            elem: smallvec![0; nsrc],
            parallel: false,
        }
    }

    /// Says that source `k`'s innermost runs read one scalar of `elem[k]`
    /// bytes per element (so a transposed one may be copied in strips).
    pub(crate) fn with_elem(mut self, elem: &[usize]) -> Plan {
        for (e, &n) in self.elem.iter_mut().zip(elem) {
            *e = n;
        }
        self
    }

    /// Lets the outermost loop run on several threads (the innermost runs
    /// must then be safe to call at once on distinct elements).
    pub(crate) fn with_threads(mut self, parallel: bool) -> Plan {
        self.parallel = parallel;
        self
    }

    /// When the plan is one run (at most one loop, not in tiles): its
    /// length and each source's stride along it.
    pub(crate) fn single_run(&self) -> Option<(usize, Strides)> {
        match self.loops.as_slice() {
            _ if self.empty => Some((0, smallvec![0; self.nsrc])),
            [] => Some((1, smallvec![0; self.nsrc])),
            [l] => Some((l.size, l.src.clone())),
            _ => None,
        }
    }

    /// Runs `inner` over every innermost run of the plan: `inner(dst,
    /// dst_stride, src, src_strides, count)`. An error's path starts with
    /// the index in its run; it comes back with the caller's full index
    /// instead (the rest of its path kept). Several threads run disjoint
    /// parts when the plan allows it and is large enough; the error is
    /// then the first part's that failed.
    ///
    /// # Safety
    ///
    /// `dst` and each `src[k]` point at the operands' element at index 0,
    /// and every element the axes reach from there is valid for `inner`.
    pub(crate) unsafe fn run<F>(
        &self,
        dst: *mut u8,
        src: &[*const u8],
        inner: &F,
    ) -> Result<(), KernelError>
    where
        F: Fn(*mut u8, isize, &[*const u8], &[isize], usize) -> Result<(), KernelError> + Sync,
    {
        if self.empty {
            return Ok(());
        }
        let mut pos: SmallVec<[usize; 8]> = smallvec![0; self.loops.len()];
        if self.loops.is_empty() {
            let zeros: Strides = smallvec![0; src.len()];
            return inner(dst, 0, src, &zeros, 1).map_err(|e| self.reindex(e, &pos));
        }
        let outer = self.loops[0].size;
        // The count first: asking rayon for its threads is not free.
        if !self.parallel
            || outer < 2
            || self.loops.iter().map(|l| l.size).product::<usize>() < PARALLEL_MIN
            || self.loops.iter().any(|l| l.dst == 0)
            || crate::par::threads() < 2
        {
            // SAFETY: by the contract.
            return unsafe { self.walk(0, 0, outer, dst, src, &mut pos, inner) };
        }
        let threads = crate::par::threads();
        let step = if self.blocked && self.loops.len() == 2 {
            TILE
        } else {
            1
        };
        let chunk = outer.div_ceil(threads * 2).div_ceil(step) * step;
        // SAFETY: the threads of the walk write disjoint parts of the
        // destination (distinct outer indices of a loop whose destination
        // stride is not 0) and only read the sources, which outlive the
        // scope the threads run in.
        let ptrs = unsafe {
            Shared::new(WalkPtrs {
                dst,
                src: src.iter().copied().collect(),
            })
        };
        let parts: Vec<(usize, usize)> = (0..outer)
            .step_by(chunk)
            .map(|s| (s, (s + chunk).min(outer)))
            .collect();
        let errors: Vec<std::sync::Mutex<Option<KernelError>>> =
            parts.iter().map(|_| std::sync::Mutex::new(None)).collect();
        let part = |i: usize| {
            let (lo, hi) = parts[i];
            let mut pos: SmallVec<[usize; 8]> = smallvec![0; self.loops.len()];
            let p: &WalkPtrs = &ptrs;
            // SAFETY: outer indices `lo..hi` only, valid by the
            // contract; no other part writes them (the outermost
            // loop's destination stride is not 0).
            let r = unsafe { self.walk(0, lo, hi, p.dst, &p.src, &mut pos, inner) };
            if let Err(e) = r {
                *errors[i].lock().unwrap_or_else(|p| p.into_inner()) = Some(e);
            }
        };
        crate::par::run(parts.len(), &part);
        match errors
            .into_iter()
            .find_map(|m| m.into_inner().unwrap_or_else(|p| p.into_inner()))
        {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Runs loop `level`'s indices `lo..hi` (pointers at its index 0) and
    /// the loops inside it.
    ///
    /// # Safety
    ///
    /// As [`Plan::run`], for the elements under those indices.
    #[allow(clippy::too_many_arguments)]
    unsafe fn walk<F>(
        &self,
        level: usize,
        lo: usize,
        hi: usize,
        dst: *mut u8,
        src: &[*const u8],
        pos: &mut [usize],
        inner: &F,
    ) -> Result<(), KernelError>
    where
        F: Fn(*mut u8, isize, &[*const u8], &[isize], usize) -> Result<(), KernelError> + Sync,
    {
        let l = &self.loops[level];
        if self.blocked && level + 2 == self.loops.len() {
            // SAFETY: the same elements, visited tile by tile.
            return unsafe { self.run_blocked(level, lo, hi, dst, src, pos, inner) };
        }
        let at = lo as isize;
        let mut d = dst.wrapping_offset(at * l.dst);
        let mut s: Ptrs = src
            .iter()
            .zip(&l.src)
            .map(|(p, st)| p.wrapping_offset(at * st))
            .collect();
        if level + 1 == self.loops.len() {
            return inner(d, l.dst, &s, &l.src, hi - lo).map_err(|e| {
                pos[level] = lo + first(&e);
                self.reindex(e, pos)
            });
        }
        let next = self.loops[level + 1].size;
        for i in lo..hi {
            pos[level] = i;
            // SAFETY: index `i` of this loop, one level in.
            unsafe { self.walk(level + 1, 0, next, d, &s, pos, inner)? };
            d = d.wrapping_offset(l.dst);
            for (p, st) in s.iter_mut().zip(&l.src) {
                *p = p.wrapping_offset(*st);
            }
        }
        Ok(())
    }

    /// Runs the last two loops (outer indices `lo..hi`) in blocks of
    /// [`TILE`] outer indices, so that a source walked across its rows
    /// reuses the cache lines it loads. Such a source, when it is
    /// contiguous along the outer loop and its innermost runs read one
    /// scalar, is copied a strip of `TILE x STRIP` at a time into a buffer
    /// whose rows are contiguous, so the run is a contiguous loop over
    /// long rows; other layouts run in `TILE x TILE` tiles.
    ///
    /// # Safety
    ///
    /// As [`Plan::walk`] for the last two loops.
    #[allow(clippy::too_many_arguments)]
    unsafe fn run_blocked<F>(
        &self,
        level: usize,
        lo: usize,
        hi: usize,
        dst: *mut u8,
        src: &[*const u8],
        pos: &mut [usize],
        inner: &F,
    ) -> Result<(), KernelError>
    where
        F: Fn(*mut u8, isize, &[*const u8], &[isize], usize) -> Result<(), KernelError> + Sync,
    {
        let (outer, in_loop) = (&self.loops[level], &self.loops[level + 1]);
        let buffered: SmallVec<[bool; 4]> = (0..self.nsrc)
            .map(|k| {
                let e = self.elem[k] as isize;
                matches!(self.elem[k], 1 | 2 | 4 | 8)
                    && outer.src[k] == e
                    && in_loop.src[k] != e
                    && in_loop.src[k] != 0
            })
            .collect();
        let nbuf = buffered.iter().filter(|b| **b).count();
        let tiles = Tiles {
            level,
            lo,
            hi,
            dst,
            src,
            buffered: &buffered,
        };
        if nbuf == 0 {
            let strips: SmallVec<[Option<*mut u8>; 4]> = smallvec![None; self.nsrc];
            // SAFETY: forwarded.
            return unsafe { self.run_tiles(&tiles, &strips, TILE, TILE, pos, inner) };
        }
        let cols = in_loop.size.min(STRIP);
        // Rows of a strip are a cache line more than `cols` apart, so that
        // the rows written together do not all map to one cache set.
        let pitch = cols + 8;
        let per = TILE * pitch; // u64 words per buffered source
        let mut run = |words: &mut Vec<u64>| {
            if words.len() < nbuf * per {
                words.resize(nbuf * per, 0);
            }
            let mut next = 0;
            let strips: SmallVec<[Option<*mut u8>; 4]> = buffered
                .iter()
                .map(|&b| {
                    b.then(|| {
                        next += 1;
                        words[(next - 1) * per..].as_mut_ptr().cast::<u8>()
                    })
                })
                .collect();
            // SAFETY: forwarded; each strip holds TILE rows of `pitch`
            // elements of up to 8 bytes.
            unsafe { self.run_tiles(&tiles, &strips, cols, pitch, pos, inner) }
        };
        STRIPS.with(|cell| match cell.try_borrow_mut() {
            Ok(mut words) => run(&mut words),
            // Re-entered on this thread: a buffer of its own.
            Err(_) => run(&mut Vec::new()),
        })
    }

    /// The blocked loop: `TILE` outer indices by `cols` inner ones at a
    /// time; sources with a strip are copied into it first (rows `pitch`
    /// elements apart).
    ///
    /// # Safety
    ///
    /// As [`Plan::run_blocked`]; each strip holds `TILE` rows of `pitch >=
    /// cols` elements of its source's size.
    unsafe fn run_tiles<F>(
        &self,
        t: &Tiles<'_>,
        strips: &[Option<*mut u8>],
        cols: usize,
        pitch: usize,
        pos: &mut [usize],
        inner: &F,
    ) -> Result<(), KernelError>
    where
        F: Fn(*mut u8, isize, &[*const u8], &[isize], usize) -> Result<(), KernelError> + Sync,
    {
        let level = t.level;
        let (outer, in_loop) = (&self.loops[level], &self.loops[level + 1]);
        let strides: Strides = (0..self.nsrc)
            .map(|k| {
                if t.buffered[k] {
                    self.elem[k] as isize
                } else {
                    in_loop.src[k]
                }
            })
            .collect();
        let mut ptrs: Ptrs = t.src.iter().copied().collect();
        for ib in (t.lo..t.hi).step_by(TILE) {
            let rows = TILE.min(t.hi - ib);
            for jb in (0..in_loop.size).step_by(cols) {
                let jn = cols.min(in_loop.size - jb);
                let (io, jo) = (ib as isize, jb as isize);
                for (k, strip) in strips.iter().enumerate() {
                    let Some(buf) = *strip else { continue };
                    let at = t.src[k].wrapping_offset(io * outer.src[k] + jo * in_loop.src[k]);
                    let (o, i) = (outer.src[k], in_loop.src[k]);
                    // SAFETY: the block's elements are valid by the contract;
                    // the strip holds `rows * jn` of them.
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
                    let d = t.dst.wrapping_offset(io * outer.dst + jo * in_loop.dst);
                    for (k, p) in ptrs.iter_mut().enumerate() {
                        *p = match strips[k] {
                            Some(buf) => buf.wrapping_add(r * pitch * self.elem[k]).cast_const(),
                            None => {
                                t.src[k].wrapping_offset(io * outer.src[k] + jo * in_loop.src[k])
                            }
                        };
                    }
                    inner(d, in_loop.dst, &ptrs, &strides, jn).map_err(|e| {
                        pos[level] = i;
                        pos[level + 1] = jb + first(&e);
                        self.reindex(e, pos)
                    })?;
                }
            }
        }
        Ok(())
    }

    /// The caller's index of the element at loop positions `pos`.
    fn index_of(&self, pos: &[usize]) -> SmallVec<[usize; 8]> {
        let mut index: SmallVec<[usize; 8]> = smallvec![0; self.shape.len()];
        for (l, &p) in self.loops.iter().zip(pos) {
            let mut rem = p;
            for &axis in l.axes.iter().rev() {
                let n = self.shape[axis].max(1);
                index[axis] = rem % n;
                rem /= n;
            }
        }
        index
    }

    /// The error with its first index (the one in its innermost run)
    /// replaced by the caller's full index of the element at `pos`.
    fn reindex(&self, e: KernelError, pos: &[usize]) -> KernelError {
        let deeper: SmallVec<[usize; 4]> = e.path().iter().skip(1).copied().collect();
        let mut fresh = KernelError::new(e.kind().clone());
        for &i in deeper.iter().rev() {
            fresh = fresh.at(i);
        }
        for &i in self.index_of(pos).iter().rev() {
            fresh = fresh.at(i);
        }
        fresh
    }

    /// One line for [`KernelData::describe`].
    fn describe(&self) -> String {
        let loops: Vec<String> = self
            .loops
            .iter()
            .map(|l| format!("{}:({}; {:?})", l.size, l.dst, &l.src[..]))
            .collect();
        let blocked = if self.blocked {
            ", last two in tiles"
        } else {
            ""
        };
        format!(
            "loops [{}] (size:(dst stride; src strides){blocked})",
            loops.join(", ")
        )
    }
}

/// The index of an error in its innermost run.
fn first(e: &KernelError) -> usize {
    e.path().first().copied().unwrap_or(0)
}

/// The operands of one blocked walk.
struct Tiles<'t> {
    level: usize,
    lo: usize,
    hi: usize,
    dst: *mut u8,
    src: &'t [*const u8],
    buffered: &'t [bool],
}

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

/// The operands' pointers, handed to the threads of a parallel walk.
struct WalkPtrs {
    dst: *mut u8,
    src: Ptrs,
}

/// Fixed dimensions of a destination and its sources, walked by a
/// [`Plan`]; each innermost run is one strided call of the child.
pub(crate) struct FixedLoops {
    pub(crate) plan: Plan,
    pub(crate) child: Child,
}

impl KernelData for FixedLoops {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        let run = |d: *mut u8, ds: isize, s: &[*const u8], ss: &[isize], n: usize| {
            // SAFETY: the plan hands over runs of the operands' elements
            // only, which are valid by this function's contract.
            unsafe { ctx.child(self.child).strided(d, ds, s, ss, n) }
        };
        // SAFETY: `dst` and `src` are the operands' first elements, and
        // every element of their dimensions is valid, by the contract.
        unsafe { self.plan.run(dst, src, &run) }
    }

    fn describe(&self) -> String {
        self.plan.describe()
    }

    fn children(&self) -> SmallVec<[Child; 2]> {
        smallvec![self.child]
    }
}

#[cfg(test)]
mod tests;
