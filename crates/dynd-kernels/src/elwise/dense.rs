//! The trivial call into an output: a leaf's loop over arguments that
//! are dense (fixed dimensions in C order, or 0-d) and of the leaf's own
//! element types, of the output's shape. Nothing is resolved, no type is
//! built and no kernel is made: the layouts are read once and the leaf's
//! flat loop runs. A callable keeps one [`DenseLoop`] per tuple of
//! argument data types and tries it first in `call_into` (see
//! `dynd-arrfunc`'s `Callable::call_into`).
//!
//! An allocating form (its result sharing an argument's type and
//! arrmeta, or taking a layout from a per-thread cache) measured slower
//! than the resolved call's kept flat plan, which holds its result's
//! layout already (87 and 80–110 ns against 61 for a 1-element `add`),
//! and is not kept.
//!
//! ```
//! use dynd::func::raw::DenseLoop;
//! use dynd::func::Leaf;
//! use dynd::nd::Array;
//!
//! let add = DenseLoop::new(&Leaf::map(|a: f64, b: f64| a + b)).expect("a plain loop");
//! let (x, y) = (Array::from_vec(vec![1.0, 2.0]), Array::from_vec(vec![10.0, 20.0]));
//! let mut out = Array::from_vec(vec![0.0; 2]);
//! assert!(add.call_into(&mut out, &[&x, &y])?);
//! assert_eq!(out.to_vec::<f64>()?, [11.0, 22.0]);
//! // A 0-d argument broadcasts.
//! assert!(add.call_into(&mut out, &[&x, &Array::from_scalar(0.5)])?);
//! assert_eq!(out.to_vec::<f64>()?, [1.5, 2.5]);
//! // Other shapes (here: a row meeting a matrix) are not trivial:
//! // `false`, nothing written, and the caller takes the general path.
//! let mut m = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0])?;
//! let rows = m.clone();
//! assert!(!add.call_into(&mut m, &[&rows, &x])?);
//! # Ok::<(), dynd::Error>(())
//! ```

use std::sync::Arc;

use dynd_types::{Dim, Scalar, TypeKind};

use super::flat::{CDims, FlatSources};
use super::{FlatRun, Leaf, INLINE_ARGS};
use crate::array::Array;
use crate::error::Error;
use crate::loops::run_flat;

/// A leaf's flat loop for dense arguments of its exact element types, of
/// one shape or 0-d, run without resolving anything: a callable keeps one
/// per tuple of argument data types for its trivial calls.
#[derive(Clone)]
pub struct DenseLoop {
    flat: Arc<dyn FlatRun>,
    inputs: smallvec::SmallVec<[Scalar; INLINE_ARGS]>,
    output: Scalar,
}

impl std::fmt::Debug for DenseLoop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DenseLoop")
            .field("inputs", &self.inputs)
            .field("output", &self.output)
            .finish_non_exhaustive()
    }
}

impl DenseLoop {
    /// The loop of `leaf`, if it has one that cannot fail, takes and
    /// makes plain elements (no option), at most [`INLINE_ARGS`] of them,
    /// and makes a builtin number or `bool` (as [`FlatPlan`](super::FlatPlan)).
    pub fn new(leaf: &Leaf) -> Option<DenseLoop> {
        let flat = leaf.flat.clone()?;
        let plain = !leaf.output_option && leaf.options.iter().all(|o| !o);
        if !plain
            || !leaf.output.storage().is_numeric()
            || leaf.inputs.is_empty()
            || leaf.inputs.len() > INLINE_ARGS
        {
            return None;
        }
        Some(DenseLoop {
            flat,
            inputs: leaf.inputs.clone(),
            output: leaf.output,
        })
    }

    /// The input element types.
    pub fn inputs(&self) -> &[Scalar] {
        &self.inputs
    }

    /// The output element type.
    pub fn output(&self) -> Scalar {
        self.output
    }

    /// Runs the loop writing into `out`, if `out` is dense (fixed
    /// dimensions in C order) over the output element type and every
    /// source is 0-d or dense of `out`'s shape, each of the leaf's input
    /// type; `Ok(false)` otherwise (nothing was written). `out`'s memory
    /// is made its own first if it shares it.
    ///
    /// # Errors
    ///
    /// [`Error::ReadOnly`](crate::Error) for a read-only `out`;
    /// [`Error::Alloc`](crate::Error) if `out`'s shared memory cannot be
    /// copied.
    #[inline]
    pub fn call_into(&self, out: &mut Array, srcs: &[&Array]) -> Result<bool, Error> {
        if srcs.len() != self.inputs.len() {
            return Ok(false);
        }
        let mut dims = CDims::new();
        let size = self.output.size();
        let count = match layout(out, &mut dims).and_then(|s| c_steps(&mut dims, s, size)) {
            Some((s, count)) if s == self.output => count,
            _ => return Ok(false),
        };
        let mut sources = FlatSources::new(srcs.len());
        if !fit(srcs, &self.inputs, &dims, &mut sources) {
            return Ok(false);
        }
        // Plain loads first; a shared or read-only block the long way.
        let dst = match out.owned_data_ptr() {
            Some(p) => p,
            None => crate::assign::data_mut_ptr(out)?,
        };
        // SAFETY: `out`, now the only owner of its memory, holds `count`
        // C-contiguous elements of the leaf's output type (`layout` and
        // `c_steps` above); the sources are as `fit` checked them, and
        // cannot overlap memory only `out` holds.
        unsafe {
            run_flat(
                &*self.flat,
                dst,
                size as isize,
                sources.ptrs(),
                sources.strides(),
                count,
            )
        };
        Ok(true)
    }
}

// `layout`, `c_steps` and `fit` check what `c_order_dims`, `fits_c_order`
// and the expression loop's `fits_dense` check, walking each argument's
// type and arrmeta together once: built from those (a type walk, then an
// arrmeta walk, then a data-type walk) the 1-element `call_into`
// measured 39 ns against 29.

/// `a`'s fixed dimensions (length and byte stride) into `dims`, and its
/// data type, if every dimension is fixed over a builtin scalar.
#[inline(always)]
fn layout(a: &Array, dims: &mut CDims) -> Option<Scalar> {
    let (mut t, mut m) = (a.ty(), a.arrmeta());
    while let TypeKind::Dim(Dim::Fixed(_), element) = t.kind() {
        let (n, stride, inner) = m.as_fixed()?;
        dims.push((n, stride));
        (t, m) = (element, inner);
    }
    t.as_scalar()
}

/// `dims` (lengths and byte strides) in C order over elements of `size`
/// bytes, turned into C-order steps in elements as [`CDims`] holds them,
/// with the element count; `None` if they are not in C order (a dimension
/// of one element may have any stride) or the count overflows.
#[inline(always)]
fn c_steps(dims: &mut CDims, scalar: Scalar, size: usize) -> Option<(Scalar, usize)> {
    let mut count = 1usize;
    for (n, step) in dims.iter_mut().rev() {
        let elements = isize::try_from(count).ok()?;
        if *n > 1 && *step != elements.checked_mul(size as isize)? {
            return None;
        }
        *step = elements;
        count = count.checked_mul(*n)?;
    }
    Some((scalar, count))
}

/// Sets each source's first element and stride in `out`: 0 for a 0-d
/// source of its input type, the element size for one with exactly the
/// dimensions `dims` in C order over its input type; `false` if a source
/// is neither.
#[inline(always)]
fn fit(srcs: &[&Array], inputs: &[Scalar], dims: &CDims, out: &mut FlatSources) -> bool {
    for (k, (a, &want)) in srcs.iter().zip(inputs).enumerate() {
        let (mut t, mut m) = (a.ty(), a.arrmeta());
        let stride = if t.as_scalar() == Some(want) {
            0
        } else {
            let size = want.size() as isize;
            for &(n, step) in dims {
                let (TypeKind::Dim(Dim::Fixed(_), element), Some((len, stride, inner))) =
                    (t.kind(), m.as_fixed())
                else {
                    return false;
                };
                if len != n || (n > 1 && stride != step * size) {
                    return false;
                }
                (t, m) = (element, inner);
            }
            if t.as_scalar() != Some(want) {
                return false;
            }
            size
        };
        out.set(k, a.data_ptr(), stride);
    }
    true
}
