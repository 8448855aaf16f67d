//! Elementwise calls over ragged rows: a leaf with a plain loop whose
//! result is fixed dimensions around one innermost `var` runs on the
//! operands' values buffers through the engine's
//! [`RowLayout`] passes (segmented, led,
//! flat or per row), never through a kernel call per row. This module
//! only checks that the call fits them.

use smallvec::SmallVec;

use dynd_types::Type;

use super::{Leaf, INLINE_ARGS};
use crate::array::Array;
use crate::error::Error;
use crate::loops::ragged::RowLayout;

/// Runs `leaf` over `srcs` into a new array of type `ty`, if `ty` is fixed
/// dimensions around one innermost `var` of the leaf's output type and the
/// leaf has a plain loop; `None` otherwise (the general path runs it).
///
/// # Errors
///
/// A ragged-row error naming the row whose lengths do not broadcast.
pub(super) fn apply_ragged(
    ty: &Type,
    srcs: &[&Array],
    leaf: &Leaf,
) -> Result<Option<Array>, Error> {
    let Some(flat) = leaf.flat.as_deref() else {
        return Ok(None);
    };
    if srcs.len() > INLINE_ARGS {
        return Ok(None);
    }
    if ty.dtype().as_scalar() != Some(leaf.output)
        || srcs.len() != leaf.inputs.len()
        || srcs
            .iter()
            .zip(&leaf.inputs)
            .any(|(a, t)| a.dtype().as_scalar() != Some(*t))
    {
        return Ok(None);
    }
    let sizes: SmallVec<[usize; INLINE_ARGS]> = leaf.inputs.iter().map(|t| t.size()).collect();
    let out_size = leaf.output.size();
    let Some(layout) = RowLayout::new(ty, srcs, &sizes, out_size) else {
        return Ok(None);
    };
    if let Some(out) = layout.fast(flat, leaf.as_f64_op())? {
        return Ok(Some(out));
    }
    layout.rows(flat, leaf.as_f64_op()).map(Some)
}
