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

use dynd_array::arrmeta::{read_pair, PAIR_SIZE};
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

/// Rows per unit of [`PackedRows::each_unit`]: a unit's offsets (8 KiB)
/// stay in the first-level cache while its rows are read.
pub(crate) const UNIT_ROWS: usize = 1 << 10;

/// What [`PackedRows::each_unit`] runs on a unit: its first row, its
/// offsets, its share of the output.
pub(crate) type UnitFn<'f, T> = dyn Fn(usize, &[i64], &mut [T]) + Sync + 'f;

/// The rows of an `N * var * T` array whose rows are packed (end to end
/// from the values' start, checked where the array was made) and whose
/// pairs lie side by side (every array made from offsets or by a
/// function): read a unit of rows at a time, each unit's offsets made
/// from its pairs in cache. Where [`AxisRows`] writes the offsets of
/// every row first (a pass over memory as large as the pairs), a loop
/// over these reads each pair once, beside the values it points at.
pub(crate) struct PackedRows<'a> {
    /// The rows' pairs, [`PAIR_SIZE`] bytes each.
    pairs: &'a [u8],
    /// The values, `K * T`, sharing the array's memory.
    pub(crate) values: Array,
    /// The values' element size (their stride), a power of two: bytes
    /// to elements by this shift.
    shift: u32,
}

impl<'a> PackedRows<'a> {
    /// `x`'s rows when `x` is `N * var * T` with packed rows, pairs side
    /// by side and values end to end; `None` otherwise (the general path
    /// reads those).
    pub(crate) fn of(x: &'a Array) -> Result<Option<PackedRows<'a>>, Error> {
        let Some(rows) = dynd_array::rows::Rows::of(x).filter(|r| r.shape().len() == 1) else {
            return Ok(None);
        };
        let Some(pairs) = rows.pairs().filter(|_| rows.is_packed()) else {
            return Ok(None);
        };
        let size = rows.element_type().data_layout()?.size;
        if !size.is_power_of_two() || rows.stride() != size as isize {
            return Ok(None);
        }
        Ok(x.packed_values()?.map(|values| PackedRows {
            pairs,
            values,
            shift: size.trailing_zeros(),
        }))
    }

    /// How many rows.
    pub(crate) fn count(&self) -> usize {
        self.pairs.len() / PAIR_SIZE
    }

    /// Runs `f(first row, offsets, out)` over the rows in units of
    /// [`UNIT_ROWS`] (on the threads when there are many): `offsets` are
    /// the unit's `n + 1` offsets into [`PackedRows::values`] (row
    /// `first + i` is `values[offsets[i]..offsets[i + 1]]`), read from the
    /// pairs as the unit starts. `out` has `width` elements per row; `f`
    /// gets the unit's share of it.
    pub(crate) fn each_unit<T: Send>(&self, out: &mut [T], width: usize, f: &UnitFn<'_, T>) {
        let unit = |start: usize, part: &mut [T]| {
            let first = start / width;
            let n = part.len() / width;
            let mut offsets = [0i64; UNIT_ROWS + 1];
            // `out` has `width` elements per row (the callers' contract).
            let Some(pairs) = self.pairs.get(first * PAIR_SIZE..(first + n) * PAIR_SIZE) else {
                debug_assert!(false, "an output of {width} per row");
                return;
            };
            let mut end = 0;
            for (o, pair) in offsets.iter_mut().zip(pairs.chunks_exact(PAIR_SIZE)) {
                let (start, len) = read_pair(pair);
                // Packed: each start is a whole number of elements from
                // the values' start, and the row ends where the next
                // begins.
                *o = (start >> self.shift) as i64;
                end = *o + len as i64;
            }
            offsets[n] = end;
            f(first, &offsets[..=n], part);
        };
        if width == 0 {
            return;
        }
        let step = UNIT_ROWS * width;
        if self.count() >= 4 * UNIT_ROWS && par::threads() > 1 {
            par::for_chunks_mut(out, step, &unit);
        } else {
            for (u, part) in out.chunks_mut(step).enumerate() {
                unit(u * step, part);
            }
        }
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
