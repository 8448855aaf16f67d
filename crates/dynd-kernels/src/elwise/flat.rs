//! The fast paths: C-contiguous arguments run the leaf's loop once (on
//! several threads for long runs).

use smallvec::SmallVec;

use dynd_types::{Dim, Scalar, Type};

use super::*;
use crate::array::Array;
use crate::arrmeta::Arrmeta;
use crate::error::Error;

/// The number of elements of `a` if it is laid out in C order with the
/// fixed dimensions of `shape` (`Some(0)` for a 0-d `a`, which
/// broadcasts), and its data type if that is a builtin scalar.
pub(crate) fn contiguous_count(a: &Array, shape: &Type) -> Option<(usize, Scalar)> {
    // One walk over both types and `a`'s arrmeta together: the same fixed
    // dimensions as `shape`, a builtin scalar below, and C order: each
    // dimension longer than 1 steps over the next such one whole.
    let mut t = a.ty();
    let mut want = shape;
    let mut m = a.arrmeta();
    let mut count = 1usize;
    let mut is_dim = false;
    let mut last_stride: Option<isize> = None;
    while let TypeKind::Dim(d, element) = t.kind() {
        let (n, stride, inner) = m.as_fixed()?;
        match (d, want.kind()) {
            (Dim::Fixed(x), TypeKind::Dim(Dim::Fixed(y), want_element)) if x == y => {
                want = want_element;
            }
            _ => return None,
        }
        if n > 1 {
            if last_stride.is_some_and(|s| s != n as isize * stride) {
                return None;
            }
            last_stride = Some(stride);
        }
        count *= n;
        is_dim = true;
        t = element;
        m = inner;
    }
    let scalar = t.as_scalar()?;
    if !is_dim {
        return Some((0, scalar));
    }
    if want.is_dim() {
        return None;
    }
    if count > 0 && last_stride.is_some_and(|s| s != scalar.size() as isize) {
        return None;
    }
    Some((count, scalar))
}

/// The fast path for fixed shapes: every argument C-contiguous with the
/// result's shape, or 0-d. The leaf's loop runs once over all elements,
/// with no kernel to build.
pub(super) fn apply_flat(ty: &Type, srcs: &[&Array], leaf: &Leaf) -> Result<Option<Array>, Error> {
    let mut count = 1usize;
    let mut t = ty;
    while let TypeKind::Dim(d, element) = t.kind() {
        let Dim::Fixed(n) = d else {
            return Ok(None);
        };
        count *= n;
        t = element;
    }
    if t.as_scalar() != Some(leaf.output) {
        return Ok(None);
    }
    let (Some(flat), Some(sources)) = (leaf.flat.as_deref(), flat_sources(ty, count, srcs, leaf))
    else {
        return Ok(None);
    };
    // Every element is written below, by a leaf that cannot fail.
    let mut out = Array::for_overwrite(ty)?;
    let dst = out.fresh_data_ptr();
    // SAFETY: `dst` is a fresh, unique, C-contiguous array of `count`
    // elements of the leaf's output type; each source is C-contiguous with
    // `count` elements of the leaf's input type there (stride = its size)
    // or a single element (stride 0); the leaf reads and writes exactly
    // those types, and the sources do not overlap the fresh destination.
    unsafe {
        run_flat(
            flat,
            dst,
            leaf.output.size() as isize,
            sources.ptrs(),
            sources.strides(),
            count,
        )
    };
    Ok(Some(out))
}

/// Elements below which an elementwise loop runs on the calling thread:
/// waking a thread costs more than a cheap loop over fewer elements.
pub const PARALLEL_MIN: usize = 1 << 17;

/// Pointers handed to the threads of one flat run.
#[derive(Clone, Copy)]
pub(super) struct SendPtrs {
    dst: *mut u8,
    src: [*const u8; INLINE_ARGS],
}

// SAFETY: the threads of a run write disjoint chunks of the destination
// and only read the sources, which outlive the scope the threads run in.
unsafe impl Send for SendPtrs {}
// SAFETY: as above.
unsafe impl Sync for SendPtrs {}

/// Runs a leaf's loop over `count` elements, in chunks on rayon's threads
/// when there are at least [`PARALLEL_MIN`] elements and more than one
/// thread; the chunks are disjoint, so the result is the same either way.
///
/// # Safety
///
/// As [`FlatRun::run`]; `dst_stride` is positive (distinct elements).
pub(super) unsafe fn run_flat(
    f: &dyn FlatRun,
    dst: *mut u8,
    dst_stride: isize,
    src: &[*const u8],
    src_stride: &[isize],
    count: usize,
) {
    // The count first: asking rayon for its threads is not free.
    if count < PARALLEL_MIN || dst_stride <= 0 || rayon::current_num_threads() < 2 {
        // SAFETY: forwarded.
        unsafe { f.run(dst, dst_stride, src, src_stride, count) };
        return;
    }
    let threads = rayon::current_num_threads();
    let chunk = count.div_ceil(threads * 2).max(PARALLEL_MIN / 2);
    let mut ptrs = SendPtrs {
        dst,
        src: [std::ptr::null(); INLINE_ARGS],
    };
    ptrs.src[..src.len()].copy_from_slice(src);
    let n = src.len();
    rayon::scope(|scope| {
        for start in (0..count).step_by(chunk) {
            let len = chunk.min(count - start);
            scope.spawn(move |_| {
                let p = ptrs;
                let at = start as isize;
                let srcs: SmallVec<[*const u8; INLINE_ARGS]> = (0..n)
                    .map(|k| p.src[k].wrapping_offset(at * src_stride[k]))
                    .collect();
                // SAFETY: elements `start..start + len` of the run, valid by
                // the contract; no other chunk writes them.
                unsafe {
                    f.run(
                        p.dst.wrapping_offset(at * dst_stride),
                        dst_stride,
                        &srcs,
                        src_stride,
                        len,
                    )
                };
            });
        }
    });
}

/// The sources of a flat run: each one's first element and its stride
/// (its element size, or 0 for a 0-d source that broadcasts).
pub(super) struct FlatSources {
    ptrs: [*const u8; INLINE_ARGS],
    strides: [isize; INLINE_ARGS],
    n: usize,
}

impl FlatSources {
    pub(super) fn ptrs(&self) -> &[*const u8] {
        &self.ptrs[..self.n]
    }

    pub(super) fn strides(&self) -> &[isize] {
        &self.strides[..self.n]
    }
}

/// The sources for a flat run over `shape`'s dimensions, if every source
/// is C-contiguous with them (or 0-d) and of the leaf's input types.
pub(super) fn flat_sources(
    shape: &Type,
    count: usize,
    srcs: &[&Array],
    leaf: &Leaf,
) -> Option<FlatSources> {
    if srcs.len() != leaf.inputs.len() || srcs.len() > INLINE_ARGS {
        return None;
    }
    let mut out = FlatSources {
        ptrs: [std::ptr::null(); INLINE_ARGS],
        strides: [0; INLINE_ARGS],
        n: srcs.len(),
    };
    for (k, (a, t)) in srcs.iter().zip(&leaf.inputs).enumerate() {
        out.strides[k] = match contiguous_count(a, shape) {
            Some((_, s)) if s != *t => return None,
            Some((0, _)) if !a.ty().is_dim() => 0,
            Some((n, _)) if n == count => t.size() as isize,
            _ => return None,
        };
        out.ptrs[k] = a.data_ptr();
    }
    Some(out)
}

impl Array {
    /// As [`Array::apply_into`], taking the flat path when this array and
    /// every source are C-contiguous with this array's shape (or 0-d).
    pub(super) fn apply_flat_into(&mut self, srcs: &[&Array], leaf: &Leaf) -> Result<bool, Error> {
        if self.dtype().as_scalar() != Some(leaf.output) || self.ty().has_var_dim() {
            return Ok(false);
        }
        let ty = self.ty().clone();
        let Some((count, _)) = contiguous_count(self, &ty) else {
            return Ok(false);
        };
        let count = if self.ndim() == 0 { 1 } else { count };
        let (Some(flat), Some(sources)) =
            (leaf.flat.as_deref(), flat_sources(&ty, count, srcs, leaf))
        else {
            return Ok(false);
        };
        let dst = self.data_mut_ptr()?;
        // SAFETY: this array, now the only owner of its memory, holds
        // `count` contiguous elements of the leaf's output type; the
        // sources were checked as in `apply_flat`, and do not overlap the
        // destination's (unique) memory.
        unsafe {
            run_flat(
                flat,
                dst,
                leaf.output.size() as isize,
                sources.ptrs(),
                sources.strides(),
                count,
            )
        };
        Ok(true)
    }
}

/// The innermost `var` level of `a`'s arrmeta, under fixed levels only:
/// (values block, offset, stride).
pub(crate) fn innermost_var(
    meta: &Arrmeta,
) -> Option<(
    &std::sync::Arc<crate::memory::MemoryBlock>,
    usize,
    isize,
    &Arrmeta,
)> {
    match meta {
        Arrmeta::Fixed { element, .. } => innermost_var(element),
        Arrmeta::Var {
            values,
            offset,
            stride,
            element,
            ..
        } => Some((values, *offset, *stride, element)),
        _ => None,
    }
}
