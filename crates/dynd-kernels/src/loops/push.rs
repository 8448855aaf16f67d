//! Building the dimension records of a kernel from the operands' types:
//! runs of fixed dimensions become one [`FixedLoops`], each level where
//! an operand is `var` one [`RowLoop`].

use smallvec::SmallVec;

use dynd_types::{Dim, Type};

use super::{Axis, FixedLoops, Order, Plan, RowDim, RowLoop, SrcRow, Strides, VarRows};
use crate::arrmeta::Arrmeta;
use crate::error::Error;
use crate::kernel::{Child, KernelBuilder};
use crate::loops::BlockPtr;

/// What builds kernels: the builder itself, or a planner around it whose
/// leaves need its state.
pub(crate) trait Builds<'a> {
    /// The builder records go to.
    fn builder(&mut self) -> &mut KernelBuilder<'a>;

    /// Whether the leaves built so far may run on several threads at once
    /// (on distinct destination elements).
    fn parallel(&self) -> bool {
        true
    }
}

impl<'a> Builds<'a> for KernelBuilder<'a> {
    fn builder(&mut self) -> &mut KernelBuilder<'a> {
        self
    }
}

/// A builder that keeps the walk on this thread (for `FnMut` closures,
/// and leaves that append to one text arena).
pub(crate) struct Serial<'a, 'b>(pub(crate) &'b mut KernelBuilder<'a>);

impl<'a> Builds<'a> for Serial<'a, '_> {
    fn builder(&mut self) -> &mut KernelBuilder<'a> {
        self.0
    }

    fn parallel(&self) -> bool {
        false
    }
}

/// One dimension level of an operand: its type's dimension and arrmeta.
pub(crate) type Level<'a> = (&'a Dim, &'a Arrmeta);

/// A source's levels aligned to the destination's: `None` where the
/// source has fewer dimensions (it broadcasts).
pub(crate) type Aligned<'a> = SmallVec<[Option<Level<'a>>; 8]>;

/// The operands of a kernel, their levels aligned: source `k`'s level
/// for destination level `i` is `src[k][i]` (`None` where it has fewer
/// dimensions and broadcasts).
pub(crate) struct Operands<'a, 't> {
    /// The destination's type, for errors.
    pub(crate) dst_ty: &'t Type,
    pub(crate) dst: &'t [Level<'a>],
    /// The sources' types, for errors.
    pub(crate) src_ty: &'t [&'t Type],
    pub(crate) src: &'t [Aligned<'a>],
    /// Per source: the byte size of the scalar the leaf reads (0 when it
    /// reads a sub-array).
    pub(crate) elem: &'t [usize],
}

impl Operands<'_, '_> {
    fn src_at(&self, k: usize, level: usize) -> Option<&Arrmeta> {
        self.src[k].get(level).copied().flatten().map(|l| l.1)
    }

    /// Whether destination level `i` and every source's are fixed (or
    /// missing).
    fn fixed_level(&self, i: usize) -> bool {
        self.dst[i].1.as_fixed().is_some()
            && (0..self.src.len()).all(|k| !matches!(self.src_at(k, i), Some(Arrmeta::Var { .. })))
    }
}

fn var_rows(m: &Arrmeta) -> Option<VarRows> {
    match m {
        Arrmeta::Var {
            values,
            offset,
            stride,
            ..
        } => Some(VarRows {
            // SAFETY: the pointee is a memory block's bytes, which the arrays the kernel is built from keep alive for its lifetime and which are immutable while shared (writes go through the destination, which the kernel owns for the call).
            base: unsafe { BlockPtr::new(values.as_ptr().wrapping_add(*offset)) },
            stride: *stride,
        }),
        _ => None,
    }
}

/// Pushes the records for destination levels `level..` of `ops` and,
/// under them, the leaf that `leaf` pushes; returns the outermost.
///
/// # Errors
///
/// [`Error::Broadcast`] for a fixed source dimension that is neither the
/// destination's size nor 1, and whatever `leaf` returns.
pub(crate) fn push_dims<'a, C: Builds<'a>>(
    cx: &mut C,
    ops: &Operands<'a, '_>,
    level: usize,
    leaf: &mut dyn FnMut(&mut C) -> Result<Child, Error>,
) -> Result<Child, Error> {
    let nd = ops.dst.len();
    if level == nd {
        return leaf(cx);
    }
    let nsrc = ops.src.len();
    if ops.fixed_level(level) {
        let mut end = level;
        while end < nd && ops.fixed_level(end) {
            end += 1;
        }
        let mut axes: SmallVec<[Axis; 8]> = SmallVec::new();
        for l in level..end {
            let Some((size, dst, _)) = ops.dst[l].1.as_fixed() else {
                unreachable!("a fixed level has fixed arrmeta")
            };
            let mut src = Strides::new();
            for k in 0..nsrc {
                src.push(match ops.src_at(k, l).and_then(|m| m.as_fixed()) {
                    None => 0,
                    Some((m, stride, _)) if m == size => stride,
                    Some((1, _, _)) => 0,
                    Some((m, _, _)) => {
                        return Err(Error::AssignBroadcast {
                            axis: l,
                            dims: Box::new((Dim::Fixed(m), Some(Dim::Fixed(size)))),
                            src: ops.src_ty[k].clone(),
                            dst: ops.dst_ty.clone(),
                        })
                    }
                });
            }
            axes.push(Axis { size, dst, src });
        }
        let child = push_dims(cx, ops, end, leaf)?;
        // Strips of a transposed source only where the leaf reads scalars
        // right under these loops.
        let elem: SmallVec<[usize; 4]> = if end == nd {
            ops.elem.iter().copied().collect()
        } else {
            SmallVec::from_elem(0, nsrc)
        };
        let plan = Plan::new(&axes, nsrc, Order::Memory)
            .with_elem(&elem)
            .with_threads(cx.parallel());
        return Ok(cx.builder().push(FixedLoops { plan, child }));
    }
    let child = push_dims(cx, ops, level + 1, leaf)?;
    let dst = match (ops.dst[level].1.as_fixed(), var_rows(ops.dst[level].1)) {
        (Some((size, stride, _)), _) => RowDim::Fixed { size, stride },
        (None, Some(rows)) => RowDim::Var(rows),
        _ => unreachable!("a dimension level has fixed or var arrmeta"),
    };
    let src = (0..nsrc)
        .map(|k| match ops.src_at(k, level) {
            None => SrcRow::Broadcast,
            Some(m) => match (m.as_fixed(), var_rows(m)) {
                (Some((size, stride, _)), _) => SrcRow::Fixed { size, stride },
                (None, Some(rows)) => SrcRow::Var(rows),
                _ => unreachable!("a dimension level has fixed or var arrmeta"),
            },
        })
        .collect();
    Ok(cx.builder().push(RowLoop { dst, src, child }))
}
