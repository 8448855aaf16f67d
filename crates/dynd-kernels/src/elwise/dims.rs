//! Building the dimension records of an elementwise kernel: the sources
//! aligned to the destination (right-aligned, as NumPy broadcasts), then
//! handed to the loop engine ([`crate::loops`]).

use smallvec::SmallVec;

use dynd_types::{Dim, Type, TypeKind};

use super::*;
use crate::arrmeta::Arrmeta;
use crate::error::Error;
use crate::kernel::{Child, KernelBuilder};
use crate::loops::{push_dims, Aligned, Operands};

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
    let aligned: SmallVec<[Aligned<'_>; MAX_ARGS]> = src_levels
        .iter()
        .map(|l| {
            let shift = nd - l.len();
            (0..nd)
                .map(|i| i.checked_sub(shift).map(|k| l[k]))
                .collect()
        })
        .collect();
    // The byte size of each source's scalar element, where the leaf reads one.
    let elem: SmallVec<[usize; MAX_ARGS]> = srcs
        .iter()
        .enumerate()
        .map(|(i, (t, _))| {
            if src_core.get(i).copied().unwrap_or(0) == 0 {
                t.dtype().data_layout().map_or(0, |l| l.size)
            } else {
                0
            }
        })
        .collect();
    let src_ty: SmallVec<[&Type; MAX_ARGS]> = srcs.iter().map(|(t, _)| *t).collect();
    let ops = Operands {
        dst_ty: dst.0,
        dst: &dst_levels,
        src_ty: &src_ty,
        src: &aligned,
        elem: &elem,
    };
    push_dims(b, &ops, 0, leaf)
}
