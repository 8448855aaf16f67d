//! The rows of any array along its last dimension, as one flat run of
//! values and `rows + 1` offsets, and back: the one layout every per-row
//! function here works on, whatever stands above the rows.
//!
//! An array of type `2 * var * var * 3 * ?float64` has rows of three
//! along its last axis; `2 * var * var * ?float64` has ragged rows. Either
//! way [`AxisRows::of`] reads the dimensions above the rows (fixed ones and
//! `var` ones, each with its own offsets) and leaves the elements as a
//! `K * T` array with the offsets of each row in it, sharing the memory
//! when the rows lie end to end. A function computes on that and hands
//! its result back to [`AxisRows::wrap`] (one value per row: the dimensions
//! above, then the value) or [`AxisRows::wrap_rows`] (a row per row), which
//! rebuild the dimensions above without copying what they hold.
//!
//! This is the per-row functions' layer over the one row view
//! ([`dynd_array::rows`]): the `var` levels it flattens are read through
//! that view ([`Array::to_offsets`]), and it adds what a function at any
//! axis needs besides (rows at an axis above the last, `var` dimensions
//! above the rows, fixed rows, and the way back). A new per-row function
//! starts here; a new ragged reduction or elementwise pass reads the view.

use std::borrow::Cow;
use std::ops::Range;
use std::sync::Arc;

use dynd_array::memory::MemoryBlock;
use dynd_kernels::par;

use dynd_kernels::{Array, ArrayOps, Arrmeta, Element, ErrorMode};
use dynd_types::{Dim, Scalar, Type, TypeKind};

use crate::error::Error;

mod out;
pub(crate) use out::*;

/// A dimension above the rows.
#[derive(Clone, Debug)]
enum Outer {
    /// A fixed dimension of `n` under `above` elements of the one above.
    Fixed { above: usize, n: usize },
    /// A `var` dimension with its offsets over the elements below.
    Var(Vec<i64>),
}

/// The rows of an array along its last dimension: see the module docs.
#[derive(Clone, Debug)]
pub(crate) struct AxisRows {
    /// The dimensions between the first and the rows, outermost first.
    outer: Vec<Outer>,
    /// The first dimension's length (rows or groups of rows).
    top: usize,
    /// The array was a lone row (`n * T` or `var * T`), seen as `1 * ...`.
    unit: bool,
    /// Row `i` is `values[offsets[i]..offsets[i + 1]]`.
    pub(crate) offsets: Vec<i64>,
    /// The length of every row when the row dimension is fixed.
    pub(crate) fixed: Option<usize>,
    /// The elements, `K * T` (any stride).
    pub(crate) values: Array,
}

fn unsupported(operation: &'static str, x: &Array) -> Error {
    Error::Unsupported {
        operation,
        ty: x.ty().clone(),
    }
}

/// `x` (`var * T` or `n * T`) as `1 * ...`, sharing its memory.
fn unit_view(x: &Array) -> Result<Array, Error> {
    let ty = Type::with_dims([Dim::Fixed(1)], x.ty().clone())?;
    let meta = Arrmeta::Fixed {
        size: 1,
        stride: 0,
        element: Box::new(x.arrmeta().clone()),
    };
    Array::try_from_parts(ty, Arc::new(meta), x.data_block().clone(), x.data_offset())
}

/// `x` of type `a * b * rest` (both fixed) as `(a·b) * rest`, copying the
/// elements' bytes only if the two dimensions are not in C order.
fn merge_first(x: &Array) -> Result<Array, Error> {
    let c = x.compact()?;
    let TypeKind::Dim(Dim::Fixed(a), inner) = c.ty().kind() else {
        unreachable!("merge_first is called on two fixed dimensions")
    };
    let TypeKind::Dim(Dim::Fixed(b), rest) = inner.kind() else {
        unreachable!("merge_first is called on two fixed dimensions")
    };
    let Some((
        _,
        _,
        Arrmeta::Fixed {
            stride, element, ..
        },
    )) = c.arrmeta().as_fixed()
    else {
        unreachable!("a fixed dimension's arrmeta is fixed")
    };
    let n = a * b;
    let ty = Type::with_dims([Dim::Fixed(n)], rest.clone())?;
    let meta = Arrmeta::Fixed {
        size: n,
        stride: *stride,
        element: element.clone(),
    };
    Array::try_from_parts(ty, Arc::new(meta), c.data_block().clone(), c.data_offset())
}

/// The length of a fixed first dimension (0 for another type).
fn first_len(t: &Type) -> usize {
    match t.kind() {
        TypeKind::Dim(Dim::Fixed(n), _) => *n,
        _ => 0,
    }
}

impl AxisRows {
    /// The rows of `x` along its last dimension; `operation` names what
    /// is refused for a scalar (`"argmax of a scalar"`).
    pub(crate) fn of(x: &Array, operation: &'static str) -> Result<AxisRows, Error> {
        match x.ndim() {
            0 => Err(unsupported(operation, x)),
            n => AxisRows::at(x, n - 1, operation),
        }
    }

    /// The rows of `x` along dimension `axis` (0 is the whole array as
    /// one row): the values are the elements under that dimension, which
    /// may be arrays themselves.
    pub(crate) fn at(x: &Array, axis: usize, operation: &'static str) -> Result<AxisRows, Error> {
        if axis >= x.ndim() {
            return Err(unsupported(operation, x));
        }
        // `cur` is `count * D * rest`, D the dimension `depth` of `x`.
        let (mut cur, unit, mut depth) = if axis == 0 {
            (unit_view(x)?, true, 0)
        } else {
            match x.ty().kind() {
                TypeKind::Dim(Dim::Fixed(_), _) => (x.clone(), false, 1),
                // A `var` first dimension: one group of rows.
                _ => (unit_view(x)?, true, 0),
            }
        };
        let top = first_len(cur.ty());
        let mut outer = Vec::new();
        loop {
            let TypeKind::Dim(Dim::Fixed(count), inner) = cur.ty().kind() else {
                unreachable!("the loop keeps a fixed first dimension")
            };
            let count = *count;
            let here = depth == axis;
            match inner.kind() {
                TypeKind::Dim(Dim::Fixed(n), _) => {
                    let n = *n;
                    let merged = merge_first(&cur)?;
                    if !here {
                        outer.push(Outer::Fixed { above: count, n });
                        cur = merged;
                        depth += 1;
                        continue;
                    }
                    let offsets = (0..=count).map(|i| (i * n) as i64).collect();
                    return Ok(AxisRows {
                        outer,
                        top,
                        unit,
                        offsets,
                        fixed: Some(n),
                        values: merged,
                    });
                }
                TypeKind::Dim(Dim::Var, _) => {
                    let (values, offsets) = cur.to_offsets()?;
                    if !here {
                        outer.push(Outer::Var(offsets));
                        cur = values;
                        depth += 1;
                        continue;
                    }
                    return Ok(AxisRows {
                        outer,
                        top,
                        unit,
                        offsets,
                        fixed: None,
                        values,
                    });
                }
                _ => unreachable!("`axis` is below `ndim`"),
            }
        }
    }

    /// Whether `other` has the same dimensions above its rows and rows of
    /// the same lengths.
    pub(crate) fn same_shape(&self, other: &AxisRows) -> bool {
        self.offsets == other.offsets && self.same_outer(other)
    }

    /// Whether `other` has the same dimensions above its rows and as many
    /// rows (of any lengths).
    pub(crate) fn same_outer(&self, other: &AxisRows) -> bool {
        self.unit == other.unit
            && self.top == other.top
            && self.offsets.len() == other.offsets.len()
            && self.outer.len() == other.outer.len()
            && self
                .outer
                .iter()
                .zip(&other.outer)
                .all(|(a, b)| match (a, b) {
                    (Outer::Fixed { n: p, .. }, Outer::Fixed { n: q, .. }) => p == q,
                    (Outer::Var(p), Outer::Var(q)) => p == q,
                    _ => false,
                })
    }

    /// How many rows.
    pub(crate) fn count(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The dimensions above the rows put back over `inner`, whose first
    /// dimension has one element per row.
    pub(crate) fn wrap(&self, inner: Array) -> Result<Array, Error> {
        let mut cur = inner;
        for level in self.outer.iter().rev() {
            cur = match level {
                Outer::Fixed { above, n } => cur.split_first(*above, *n)?,
                Outer::Var(offsets) => Array::from_offsets(cur, offsets)?,
            };
        }
        debug_assert_eq!(first_len(cur.ty()), self.top);
        if self.unit {
            cur = cur.at(0)?;
        }
        Ok(cur)
    }

    /// Rows of a result (`values` and their `offsets`) put back under the
    /// dimensions above: a fixed row dimension stays fixed if every row
    /// keeps its length.
    pub(crate) fn wrap_rows(&self, values: Array, offsets: &[i64]) -> Result<Array, Error> {
        let rows = offsets.len() - 1;
        let inner = match self.fixed {
            Some(n) if offsets == self.offsets.as_slice() => values.split_first(rows, n)?,
            _ => Array::from_offsets(values, offsets)?,
        };
        self.wrap(inner)
    }

    /// Each row with its values in the order `idx` gives (indexes within
    /// the row, as `argsort` makes them), under the dimensions above: the
    /// elements moved as they are (a string's pair, its characters
    /// shared).
    pub(crate) fn reorder(&self, idx: &[i64]) -> Result<Array, Error> {
        let o = &self.offsets;
        let at = positions(o);
        let out = gather(&[&self.values], None, (&at, o), |r| {
            let base = at[r];
            idx[base..at[r + 1]].iter().map(move |&i| Piece::Take {
                src: 0,
                start: base + i as usize,
                len: 1,
            })
        })?;
        self.wrap_rows(out, o)
    }

    /// Rows of `n` each (`values` holds `rows × n`), as a fixed dimension.
    pub(crate) fn wrap_fixed(&self, values: Array, n: usize) -> Result<Array, Error> {
        let inner = values.split_first(self.count(), n)?;
        self.wrap(inner)
    }
}

/// An error unless `x` has a dimension (`op` works along one).
pub(crate) fn at_least_1d(op: &'static str, x: &Array) -> Result<(), Error> {
    if x.ndim() == 0 {
        return Err(Error::NeedsArray {
            op: op.into(),
            expected: "an array of at least one dimension",
            found: x.ty().clone(),
        });
    }
    Ok(())
}
