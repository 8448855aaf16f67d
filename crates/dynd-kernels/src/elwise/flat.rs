//! The fast paths: C-contiguous arguments run the leaf's loop once (on
//! several threads for long runs), and ragged arguments with the same rows
//! run flat over their values.

use smallvec::SmallVec;

use dynd_types::{Dim, Type};

use super::*;
use crate::array::Array;
use crate::arrmeta::Arrmeta;
use crate::error::Error;

/// The number of elements of `a` if it is laid out in C order with the
/// fixed dimensions `dims` (none for a 0-d array, which broadcasts).
pub(super) fn contiguous_count(a: &Array, dims: &[&Dim]) -> Option<usize> {
    if a.ndim() == 0 {
        return Some(0);
    }
    let (a_dims, _) = a.ty().split_dims();
    if a_dims.len() != dims.len() || a_dims.iter().zip(dims).any(|(x, y)| x != y) {
        return None;
    }
    let esz = a.dtype().as_scalar()?.size() as isize;
    // Walk the arrmeta outermost first, checking C-order strides.
    let mut sizes: SmallVec<[(usize, isize); 8]> = SmallVec::new();
    let mut m = a.arrmeta();
    while let Some((n, stride, element)) = m.as_fixed() {
        sizes.push((n, stride));
        m = element;
    }
    let mut expected = esz;
    for &(n, stride) in sizes.iter().rev() {
        if n > 1 && stride != expected {
            return None;
        }
        expected *= n as isize;
    }
    Some(sizes.iter().map(|s| s.0).product())
}

/// The fast path for fixed shapes: every argument C-contiguous with the
/// result's shape, or 0-d. The leaf's loop runs once over all elements,
/// with no kernel to build.
pub(super) fn apply_flat(ty: &Type, srcs: &[&Array], leaf: &Leaf) -> Result<Option<Array>, Error> {
    let (dims, dtype) = ty.split_dims();
    if dims.iter().any(|d| !matches!(d, Dim::Fixed(_))) || dtype.as_scalar() != Some(leaf.output) {
        return Ok(None);
    }
    if srcs.len() != leaf.inputs.len()
        || srcs
            .iter()
            .zip(&leaf.inputs)
            .any(|(a, t)| a.dtype().as_scalar() != Some(*t))
    {
        return Ok(None);
    }
    let count: usize = dims
        .iter()
        .map(|d| if let Dim::Fixed(n) = d { *n } else { 0 })
        .product();
    let mut ptrs: SmallVec<[*const u8; MAX_ARGS]> = SmallVec::new();
    let mut strides: SmallVec<[isize; MAX_ARGS]> = SmallVec::new();
    for (a, t) in srcs.iter().zip(&leaf.inputs) {
        match contiguous_count(a, &dims) {
            Some(0) if a.ndim() == 0 => strides.push(0),
            Some(n) if n == count => strides.push(t.size() as isize),
            _ => return Ok(None),
        }
        ptrs.push(a.data_ptr());
    }
    // Every element is written below, by a leaf that cannot fail.
    let mut out = Array::for_overwrite(ty)?;
    let dst = out.data_mut_ptr()?;
    // SAFETY: `dst` is a fresh, unique, C-contiguous array of `count`
    // elements of the leaf's output type; each source is C-contiguous with
    // `count` elements of the leaf's input type there (stride = its size)
    // or a single element (stride 0); the leaf reads and writes exactly
    // those types, and the sources do not overlap the fresh destination.
    unsafe {
        run_flat(
            &*leaf.flat,
            dst,
            leaf.output.size() as isize,
            &ptrs,
            &strides,
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
    src: [*const u8; MAX_ARGS],
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
    let threads = rayon::current_num_threads();
    if count < PARALLEL_MIN || threads < 2 || dst_stride <= 0 {
        // SAFETY: forwarded.
        unsafe { f.run(dst, dst_stride, src, src_stride, count) };
        return;
    }
    let chunk = count.div_ceil(threads * 2).max(PARALLEL_MIN / 2);
    let mut ptrs = SendPtrs {
        dst,
        src: [std::ptr::null(); MAX_ARGS],
    };
    ptrs.src[..src.len()].copy_from_slice(src);
    let n = src.len();
    rayon::scope(|scope| {
        for start in (0..count).step_by(chunk) {
            let len = chunk.min(count - start);
            scope.spawn(move |_| {
                let p = ptrs;
                let at = start as isize;
                let srcs: SmallVec<[*const u8; MAX_ARGS]> = (0..n)
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

/// The sources' pointers and strides for a flat run over `dims`, if every
/// source is C-contiguous with those dimensions (or 0-d) and of the leaf's
/// input types.
#[allow(clippy::type_complexity)]
pub(super) fn flat_sources(
    dims: &[&Dim],
    count: usize,
    srcs: &[&Array],
    leaf: &Leaf,
) -> Option<(SmallVec<[*const u8; MAX_ARGS]>, SmallVec<[isize; MAX_ARGS]>)> {
    if srcs.len() != leaf.inputs.len() {
        return None;
    }
    let mut ptrs = SmallVec::new();
    let mut strides = SmallVec::new();
    for (a, t) in srcs.iter().zip(&leaf.inputs) {
        if a.dtype().as_scalar() != Some(*t) {
            return None;
        }
        match contiguous_count(a, dims) {
            Some(0) if a.ndim() == 0 => strides.push(0),
            Some(n) if n == count => strides.push(t.size() as isize),
            _ => return None,
        }
        ptrs.push(a.data_ptr());
    }
    Some((ptrs, strides))
}

impl Array {
    /// As [`Array::apply_into`], taking the flat path when this array and
    /// every source are C-contiguous with this array's shape (or 0-d).
    pub(super) fn apply_flat_into(&mut self, srcs: &[&Array], leaf: &Leaf) -> Result<bool, Error> {
        if self.dtype().as_scalar() != Some(leaf.output) || self.ty().has_var_dim() {
            return Ok(false);
        }
        let ty = self.ty().clone();
        let (dims, _) = ty.split_dims();
        let Some(count) = contiguous_count(self, &dims) else {
            return Ok(false);
        };
        let count = if self.ndim() == 0 { 1 } else { count };
        let Some((ptrs, strides)) = flat_sources(&dims, count, srcs, leaf) else {
            return Ok(false);
        };
        let dst = self.data_mut_ptr()?;
        // SAFETY: this array, now the only owner of its memory, holds
        // `count` contiguous elements of the leaf's output type; the
        // sources were checked as in `apply_flat`, and do not overlap the
        // destination's (unique) memory.
        unsafe {
            run_flat(
                &*leaf.flat,
                dst,
                leaf.output.size() as isize,
                &ptrs,
                &strides,
                count,
            )
        };
        Ok(true)
    }
}

/// The innermost `var` level of `a`'s arrmeta, under fixed levels only:
/// (values block, offset, stride).
pub(super) fn innermost_var(
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

/// Ragged data that runs like flat data: when the result's only `var`
/// dimension is its innermost one and every argument with dimensions has
/// the *same* rows (the same (start, length) pairs, shared or equal, over
/// values of one layout), the leaf runs as one flat loop over the values,
/// and the result shares the arguments' rows when its elements are the
/// same size. `None` when the arguments do not qualify.
pub(super) fn apply_same_structure(
    ty: &Type,
    srcs: &[&Array],
    leaf: &Leaf,
) -> Result<Option<Array>, Error> {
    if ty.dtype().as_scalar().is_none() || srcs.iter().any(|a| a.dtype().as_scalar().is_none()) {
        return Ok(None);
    }
    let (dims, _) = ty.split_dims();
    let Some((Dim::Var, outer)) = dims.split_last() else {
        return Ok(None);
    };
    if outer.iter().any(|d| !matches!(d, Dim::Fixed(_))) {
        return Ok(None);
    }
    let mut pattern: Option<&Array> = None;
    for a in srcs {
        if a.ndim() == 0 {
            continue;
        }
        if a.shape() != dims.iter().map(|d| (*d).clone()).collect::<Vec<_>>() {
            return Ok(None);
        }
        let Some((_, offset, _, _)) = innermost_var(a.arrmeta()) else {
            return Ok(None);
        };
        if offset != 0 {
            return Ok(None);
        }
        match pattern {
            None => pattern = Some(a),
            Some(p) => {
                let (pv, _, ps, _) = innermost_var(p.arrmeta()).unwrap_or_else(|| unreachable!());
                let (av, _, as_, _) = innermost_var(a.arrmeta()).unwrap_or_else(|| unreachable!());
                let same_rows = std::sync::Arc::ptr_eq(p.data_block(), a.data_block())
                    && p.data_offset() == a.data_offset()
                    && p.strides() == a.strides();
                if !same_rows || ps != as_ || pv.len() != av.len() {
                    return Ok(None);
                }
            }
        }
    }
    let Some(p) = pattern else { return Ok(None) };
    let (values, _, stride, _) = innermost_var(p.arrmeta()).unwrap_or_else(|| unreachable!());
    if stride <= 0 {
        return Ok(None);
    }
    if leaf.output.size() as isize != stride {
        // Row starts are byte offsets for the arguments' element size; a
        // result of another size needs its own rows: the general path.
        return Ok(None);
    }
    let total = values.len() / stride as usize;
    // Flat views over each argument's values.
    let flat: Vec<Array> = srcs
        .iter()
        .map(|a| {
            if a.ndim() == 0 {
                return Ok((*a).clone());
            }
            let (v, _, st, elem) = innermost_var(a.arrmeta()).unwrap_or_else(|| unreachable!());
            Ok(Array::from_parts(
                Type::dim(Dim::Fixed(total), a.dtype().clone())?,
                std::sync::Arc::new(Arrmeta::Fixed {
                    size: total,
                    stride: st,
                    element: Box::new(elem.clone()),
                }),
                v.clone(),
                0,
            ))
        })
        .collect::<Result<_, Error>>()?;
    let refs: Vec<&Array> = flat.iter().collect();
    let out_flat = apply(&refs, leaf)?;
    // The result: the pattern's rows (shared), the new values.
    fn replace_values(
        m: &Arrmeta,
        values: &std::sync::Arc<crate::memory::MemoryBlock>,
        elem: Arrmeta,
    ) -> Arrmeta {
        match m {
            Arrmeta::Fixed {
                size,
                stride,
                element,
            } => Arrmeta::Fixed {
                size: *size,
                stride: *stride,
                element: Box::new(replace_values(element, values, elem)),
            },
            Arrmeta::Var { stride, packed, .. } => Arrmeta::Var {
                values: values.clone(),
                offset: 0,
                stride: *stride,
                packed: *packed,
                element: Box::new(elem),
            },
            other => other.clone(),
        }
    }
    let elem = crate::array::dtype_meta(ty.dtype())?;
    let meta = replace_values(p.arrmeta(), out_flat.data_block(), elem);
    Ok(Some(Array::from_parts(
        ty.clone(),
        std::sync::Arc::new(meta),
        p.data_block().clone(),
        p.data_offset(),
    )))
}
