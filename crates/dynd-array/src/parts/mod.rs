//! Ragged arrays from their parts, and back.
//!
//! A `var` dimension is the layout every columnar tool uses for lists: one
//! flat run of values, and per row where its values start and how many
//! there are. [`Array::from_offsets`] takes that layout as Arrow's `List`
//! has it (values and `rows + 1` offsets), [`Array::from_starts_lengths`]
//! as Arrow's `ListView` has it (a start and a length per row, rows in any
//! order, overlapping or not). Neither copies the values: the array shares
//! their memory block, and only the per-row (start, length) pairs are
//! written, one pass over the rows. The values may themselves be ragged,
//! so levels compose: `N * var * var * T` is offsets over a `M * var * T`.
//!
//! Going back, [`Array::row_lengths`], [`Array::rows`] (rows as `&[T]`),
//! [`Array::to_offsets`] (values and offsets, sharing the values when the
//! rows lie end to end) and [`Array::to_nested`] (`Vec<Vec<T>>`).
//!
//! [`Array::from_nested`] builds from Rust `Vec`s and arrays (the
//! [`Nested`] types) without an intermediate value tree; its type follows
//! the Rust type, never the data: a `Vec` under the outermost level is a
//! `var` dimension even when its rows happen to have equal lengths, an
//! array `[T; N]` is a fixed dimension of `N`, and the element type is the
//! Rust scalar's (`f32` is `float32`).
//!
//! ```
//! use dynd::nd::Array;
//!
//! // Three rows over five values, Arrow List style: no copy of the values.
//! let a = Array::from_offsets(vec![1.0f64, 2.0, 3.0, 4.0, 5.0], &[0i32, 2, 2, 5])?;
//! assert_eq!(a.ty().to_string(), "3 * var * float64");
//! assert_eq!(a.to_string(), "[[1, 2], [], [3, 4, 5]]");
//! assert_eq!(a.row_lengths()?, [2, 0, 3]);
//! assert_eq!(a.rows::<f64>()?.get(2), Some(&[3.0, 4.0, 5.0][..]));
//!
//! // Back out: the values (shared, not copied) and the offsets.
//! let (values, offsets) = a.to_offsets()?;
//! assert_eq!(offsets, [0, 2, 2, 5]);
//! assert_eq!(values.as_slice::<f64>()?, [1.0, 2.0, 3.0, 4.0, 5.0]);
//!
//! // From Rust values: the type follows the Rust type.
//! let b = Array::from_nested(vec![vec![1.0f32, 2.0], vec![3.0, 4.0]])?;
//! assert_eq!(b.ty().to_string(), "2 * var * float32");
//! assert_eq!(b.to_nested::<f32>()?, vec![vec![1.0, 2.0], vec![3.0, 4.0]]);
//! # Ok::<(), dynd::Error>(())
//! ```

use std::sync::Arc;

use dynd_types::{Dim, LayoutProblem, OffsetsProblem, Type, TypeKind, ValueProblem};

use crate::array::Array;
use crate::arrmeta::{read_pair, write_pair, Arrmeta, PAIR_SIZE};
use crate::element::{Element, Item};
use crate::error::Error;
use crate::memory::MemoryBlock;
use crate::rows::{RaggedRows, Rows};

mod levels;
pub use levels::{FromLevels, Levels};
mod nested;
pub use nested::{Flat, Level, Nested};

fn offsets_error(op: &'static str, problem: OffsetsProblem) -> Error {
    Error::Offsets {
        op,
        problem: Box::new(problem),
    }
}

/// An integer type that row offsets, starts and lengths may be given in
/// (Arrow's `i32` and `i64`, and the unsigned and pointer-sized ones).
pub trait Offset: Copy + PartialOrd + Send + Sync {
    /// The value, widened without loss.
    fn widen(self) -> i128;
    /// The value as a `u64`, for a value already checked not negative.
    fn as_u64(self) -> u64;
}

macro_rules! offset {
    ($($t:ty),*) => {$(
        impl Offset for $t {
            #[inline]
            fn widen(self) -> i128 {
                self as i128
            }
            #[inline]
            fn as_u64(self) -> u64 {
                self as u64
            }
        }
    )*};
}
offset!(i32, i64, u32, u64, usize, isize);

/// The first dimension of `values`, which rows group: its length, its
/// stride, its element's type and arrmeta.
pub fn first_dim<'a>(
    values: &'a Array,
    op: &'static str,
) -> Result<(usize, isize, &'a Type, &'a Arrmeta), Error> {
    match (values.ty().kind(), values.arrmeta()) {
        (
            TypeKind::Dim(Dim::Fixed(_), element_ty),
            Arrmeta::Fixed {
                size,
                stride,
                element,
            },
        ) => Ok((*size, *stride, element_ty, element)),
        _ => Err(Error::NeedsArray {
            op: op.into(),
            expected: "values with a fixed first dimension (`M * T`)",
            found: values.ty().clone(),
        }),
    }
}

/// Rows from which [`group`] writes its pairs on more than one thread.
const GROUP_PARALLEL_ROWS: usize = 1 << 16;

/// Rows per parallel task of [`group`].
const GROUP_CHUNK_ROWS: usize = 1 << 14;

/// `rows` rows over the first dimension of `values`: row `i` is the
/// (element start, length) `pair(i)` gives with whether that row is fine:
/// in `0..M`, checked before or by `pair` itself. `None` if a row was not
/// fine. The values' memory is shared, not copied.
fn group(
    values: &Array,
    rows: usize,
    packed: bool,
    pair: impl Fn(usize) -> (u64, u64, bool) + Sync,
    op: &'static str,
) -> Result<Option<Array>, Error> {
    let (_, stride, element_ty, element_meta) = first_dim(values, op)?;
    let bytes = rows
        .checked_mul(PAIR_SIZE)
        .ok_or_else(|| offsets_error(op, OffsetsProblem::TooManyRows { rows }))?;
    // Every byte is written below; a block of this size freed earlier is
    // reused without faulting its pages in again.
    let mut block = MemoryBlock::for_overwrite(bytes)?;
    let Some(out) = Arc::get_mut(&mut block) else {
        unreachable!("a fresh block has one reference")
    };
    // Writes the pairs of the rows from `first`; false if a row was not
    // fine by `pair`'s own check.
    let write = |first: usize, out: &mut [u8]| {
        let mut fine = true;
        for (i, out) in out.chunks_exact_mut(PAIR_SIZE).enumerate() {
            let (start, len, ok) = pair(first + i);
            // A fine row lies in `0..M`, and M elements `stride` apart lie
            // in the values' block, so this does not overflow.
            let bytes = (start as i64).wrapping_mul(stride as i64);
            write_pair(out, bytes as u64, len);
            fine &= ok;
        }
        fine
    };
    let out = out.bytes_mut();
    let fine = if rows < GROUP_PARALLEL_ROWS || rayon::current_num_threads() < 2 {
        write(0, out)
    } else {
        // Writing the pairs is memory-bound: a share per thread.
        use rayon::prelude::*;
        out.par_chunks_mut(GROUP_CHUNK_ROWS * PAIR_SIZE)
            .enumerate()
            .map(|(c, out)| write(c * GROUP_CHUNK_ROWS, out))
            .reduce(|| true, |a, b| a & b)
    };
    if !fine {
        return Ok(None);
    }
    let ty = Type::with_dims([Dim::Fixed(rows), Dim::Var], element_ty.clone())?;
    let meta = Arrmeta::Fixed {
        size: rows,
        stride: PAIR_SIZE as isize,
        element: Box::new(Arrmeta::Var {
            values: values.data_block().clone(),
            offset: values.data_offset(),
            stride,
            packed,
            element: Box::new(element_meta.clone()),
        }),
    };
    debug_assert!(rows == 0 || values.ndim() > 0);
    // SAFETY: what validation would check holds by construction. The pairs
    // block holds exactly `rows` pairs, 16 bytes apart from byte 0. Row
    // `i`'s elements are elements `start .. start + len` of the first
    // dimension of `values`, a range the callers checked to lie in `0..M`
    // (offsets not negative, not decreasing, at most `M`; or each start
    // plus length at most `M`); those elements are at `offset + k *
    // stride`, positions of `values`, which was validated when it was made
    // (element records included), with the same arrmeta under the
    // dimension; a row that was not fine returned above. Debug builds
    // validate anyway.
    Ok(Some(unsafe {
        Array::from_parts_unchecked(ty, Arc::new(meta), block, 0)
    }))
}

/// `a`'s rows when it is `N * var * T` (one fixed dimension, then `var`,
/// over any elements), for the call `op`.
fn var_level<'a>(a: &'a Array, op: &'static str) -> Result<Rows<'a>, Error> {
    Rows::of_level(a)
        .filter(|r| r.shape().len() == 1)
        .ok_or_else(|| Error::NeedsArray {
            op: op.into(),
            expected: "an array of type `N * var * T` (one fixed dimension, then var)",
            found: a.ty().clone(),
        })
}

/// Checks that `offsets` are `rows + 1` non-negative, non-decreasing
/// offsets into `m` values, saying which one is wrong. (`from_offsets`
/// checks the order while it writes the rows, and calls this for the
/// message when the order is wrong.)
fn check_offsets<O: Offset>(offsets: &[O], m: usize) -> Result<(), Error> {
    let op = "from_offsets";
    let Some(first) = offsets.first() else {
        return Err(offsets_error(op, OffsetsProblem::Empty));
    };
    if first.widen() < 0 {
        return Err(offsets_error(
            op,
            OffsetsProblem::Negative {
                first: first.widen(),
            },
        ));
    }
    if let Some(i) = offsets.windows(2).position(|w| w[1] < w[0]) {
        return Err(offsets_error(
            op,
            OffsetsProblem::Decreasing {
                index: i + 1,
                value: offsets[i + 1].widen(),
                previous: offsets[i].widen(),
            },
        ));
    }
    let last = offsets[offsets.len() - 1].widen();
    if last > m as i128 {
        return Err(offsets_error(
            op,
            OffsetsProblem::PastEnd {
                index: offsets.len() - 1,
                value: last,
                values: m,
            },
        ));
    }
    Ok(())
}

impl<T: Element> From<Vec<T>> for Array {
    /// A 1-d array over the vector's elements, without copying them (as
    /// [`Array::from_vec`]).
    fn from(v: Vec<T>) -> Array {
        Array::from_vec(v)
    }
}

impl Array {
    /// A ragged array (`N * var * T`) over `values` (a `Vec<T>`, or an
    /// array of type `M * T` for any `T`, ragged ones included) with
    /// Arrow `List` offsets: row `i` is `values[offsets[i]..offsets[i + 1]]`,
    /// so `N + 1` offsets make `N` rows. The values are not copied.
    ///
    /// # Errors
    ///
    /// [`Error::Offsets`] naming the offending offset if the offsets are
    /// empty, negative, decreasing, or past the end of the values;
    /// [`Error::NeedsArray`] if `values` has no fixed first dimension.
    pub fn from_offsets<O: Offset>(
        values: impl Into<Array>,
        offsets: &[O],
    ) -> Result<Array, Error> {
        let values = values.into();
        if let Some(r) = values.map_columns(|c| Array::from_offsets(c.clone(), offsets)) {
            return r;
        }
        let (m, ..) = first_dim(&values, "from_offsets")?;
        // The ends here; the order as the rows are written.
        // `check_offsets` says what is wrong (it always finds something
        // when called here).
        let refuse = || match check_offsets(offsets, m) {
            Err(e) => Err(e),
            Ok(()) => unreachable!("check_offsets finds what the rows' checks refused"),
        };
        let (Some(first), Some(last)) = (offsets.first(), offsets.last()) else {
            return refuse();
        };
        if first.widen() < 0 || last.widen() > m as i128 || last < first {
            return refuse();
        }
        let rows = offsets.len() - 1;
        // Relative to offsets[0]: the rows lie end to end from its start.
        let base = offsets[0].widen() as u64;
        let values = if base == 0 {
            values
        } else {
            values.index(&[crate::Index::slice(Some(base as i64), None, 1)])?
        };
        group(
            &values,
            rows,
            true,
            |i| {
                let (a, b) = (offsets[i], offsets[i + 1]);
                // Rising from `first` to `last`, every offset is in `0..=M`.
                let (a64, b64) = (a.as_u64(), b.as_u64());
                (a64.wrapping_sub(base), b64.wrapping_sub(a64), a <= b)
            },
            "from_offsets",
        )?
        .map_or_else(refuse, Ok)
    }

    /// A ragged array (`N * var * T`) over `values` with Arrow `ListView`
    /// rows: row `i` is the `lengths[i]` values from `starts[i]`. Rows may
    /// come in any order, overlap, or leave values out. The values are not
    /// copied.
    ///
    /// ```
    /// let a = dynd::nd::Array::from_starts_lengths(vec![1i64, 2, 3], &[2u32, 0], &[1u32, 3])?;
    /// assert_eq!(a.to_string(), "[[3], [1, 2, 3]]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Offsets`] naming the row if `starts` and `lengths` differ
    /// in length, or a row is negative or reaches past the values.
    pub fn from_starts_lengths<O: Offset>(
        values: impl Into<Array>,
        starts: &[O],
        lengths: &[O],
    ) -> Result<Array, Error> {
        let op = "from_starts_lengths";
        let values = values.into();
        if let Some(r) =
            values.map_columns(|c| Array::from_starts_lengths(c.clone(), starts, lengths))
        {
            return r;
        }
        let (m, ..) = first_dim(&values, op)?;
        if starts.len() != lengths.len() {
            return Err(offsets_error(
                op,
                OffsetsProblem::Counts {
                    starts: starts.len(),
                    lengths: lengths.len(),
                },
            ));
        }
        for (i, (s, l)) in starts.iter().zip(lengths).enumerate() {
            let (s, l) = (s.widen(), l.widen());
            if s < 0 || l < 0 || s + l > m as i128 {
                return Err(offsets_error(
                    op,
                    OffsetsProblem::Row {
                        row: i,
                        start: s,
                        length: l,
                        values: m,
                    },
                ));
            }
        }
        group(
            &values,
            starts.len(),
            false,
            |i| (starts[i].as_u64(), lengths[i].as_u64(), true),
            op,
        )?
        .map_or_else(
            || unreachable!("every row was checked to lie inside the values"),
            Ok,
        )
    }

    /// The length of each row of a ragged array (`N * var * T`).
    ///
    /// # Errors
    ///
    /// [`Error::NeedsArray`] for another type.
    pub fn row_lengths(&self) -> Result<Vec<usize>, Error> {
        let rows = var_level(self, "row_lengths")?;
        // Every pair of a validated array is inside its block.
        Ok(rows.lengths().unwrap_or_default())
    }

    /// The rows of a ragged array (`N * var * T`) as slices, without
    /// copying.
    ///
    /// ```
    /// let a = dynd::nd::Array::from_nested(vec![vec![1i32], vec![2, 3]])?;
    /// let rows = a.rows::<i32>()?;
    /// assert_eq!(rows.len(), 2);
    /// assert_eq!(rows.iter().map(|r| r.iter().sum::<i32>()).collect::<Vec<_>>(), [1, 5]);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::DtypeMismatch`] if the elements are not `T`s;
    /// [`Error::NeedsArray`] for another type; [`Error::Offsets`] for rows
    /// whose elements are not
    /// next to each other (a view with a step over the rows: use
    /// [`Array::to_nested`] or [`Array::to_offsets`], which copy).
    pub fn rows<T: Element>(&self) -> Result<RaggedRows<'_, T>, Error> {
        let rows = var_level(self, "rows")?;
        if rows.element_type().as_scalar() != Some(T::SCALAR) {
            return Err(Error::DtypeMismatch {
                actual: rows.element_type().clone(),
                requested: T::SCALAR.into(),
            });
        }
        rows.slices::<T>().ok_or_else(|| {
            offsets_error(
                "rows",
                OffsetsProblem::NotContiguous {
                    ty: self.ty().clone(),
                    stride: rows.stride(),
                },
            )
        })
    }

    /// A ragged array's values and `rows + 1` offsets (Arrow `List`
    /// layout): the values of type `M * T` share this array's memory when
    /// its rows lie end to end in row order (any array made by
    /// [`Array::from_offsets`], or as a function's result); otherwise they
    /// are copied once, end to end.
    ///
    /// # Errors
    ///
    /// [`Error::NeedsArray`] for a type other than `N * var * T`.
    pub fn to_offsets(&self) -> Result<(Array, Vec<i64>), Error> {
        self.offsets_for("to_offsets")
    }

    /// The elements of the rows of this array's first `var` dimension
    /// (under fixed ones only: `var * T`, `N * var * T`, `M * N * var * T`),
    /// end to end as one `K * T` array sharing its memory, when the rows
    /// are packed (as every array made from offsets, builders or
    /// functions has them): `None` otherwise (a view that dropped or
    /// reordered rows; [`Array::to_offsets`] copies those). No pass over
    /// the rows: the last row's pair says where they end.
    ///
    /// ```
    /// use dynd::nd::{Array, Index};
    ///
    /// let x = Array::from_offsets(vec![1.0, 2.0, 3.0, 4.0], &[0, 2, 2, 3])?;
    /// let flat = x.packed_values()?.expect("rows made from offsets are packed");
    /// assert_eq!(flat.to_string(), "[1, 2, 3]");
    /// // The rows' memory, not a copy.
    /// assert_eq!(flat.data_ptr(), x.rows::<f64>()?.get(0).unwrap().as_ptr().cast());
    /// // A slice starts the rows elsewhere: not packed any more.
    /// assert!(x.index(&[Index::slice(Some(1), None, 1)])?.packed_values()?.is_none());
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// None for a validated array; the view's parts are checked (in `O(1)`
    /// for elements of a fixed size) as every array's are.
    pub fn packed_values(&self) -> Result<Option<Array>, Error> {
        let Some(rows) = Rows::of_level(self) else {
            return Ok(None);
        };
        let (Some(k), Ok(offset)) = (rows.packed_len(), usize::try_from(rows.values_offset()))
        else {
            return Ok(None);
        };
        let ty = Type::with_dims([Dim::Fixed(k)], rows.element_type().clone())?;
        let meta = Arrmeta::Fixed {
            size: k,
            stride: rows.stride(),
            element: Box::new(rows.element_arrmeta().clone()),
        };
        Array::try_from_parts(ty, Arc::new(meta), rows.values_block().clone(), offset).map(Some)
    }

    /// [`Array::to_offsets`] for the call `op` (which errors name).
    pub(crate) fn offsets_for(&self, op: &'static str) -> Result<(Array, Vec<i64>), Error> {
        let rows = var_level(self, op)?;
        let n = rows.count();
        // Every pair of a validated array is inside its block: `pair`
        // finds each one.
        let pair = |i: usize| rows.pair(i).unwrap_or((0, 0));
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0i64);
        // Whether each non-empty row starts where the one before ended:
        // `total` elements past the first non-empty row's start (byte
        // offsets in the values block).
        let origin = (0..n).map(pair).find(|p| p.1 > 0).map(|p| p.0);
        let (base, stride) = (origin.unwrap_or(0), rows.stride() as i128);
        let mut total = 0i64;
        let mut end_to_end = true;
        let mut scan = |(start, len): (i128, usize)| {
            end_to_end &= (len == 0) | (start == base + total as i128 * stride);
            total += len as i64;
            total
        };
        match rows.pairs() {
            // The pairs side by side (every array a function made).
            Some(pairs) => offsets.extend(pairs.chunks_exact(PAIR_SIZE).map(|p| {
                let (start, len) = read_pair(p);
                scan((
                    rows.values_offset() as i128 + start as i64 as i128,
                    len as usize,
                ))
            })),
            None => offsets.extend((0..n).map(|i| scan(pair(i)))),
        }
        let element_ty = rows.element_type();
        let element = Box::new(rows.element_arrmeta().clone());
        if !end_to_end {
            // One copy of the rows' elements, end to end (rows may step
            // through their values with any stride); what the elements
            // point into (text, inner rows) is shared.
            let size = element_ty.data_layout()?.size;
            let mut block = MemoryBlock::zeroed(total as usize * size)?;
            let Some(out) = Arc::get_mut(&mut block) else {
                unreachable!("a fresh block has one owner")
            };
            let out = out.bytes_mut();
            let data = rows.values_block().bytes();
            let mut at = 0;
            let contiguous = rows.stride() == size as isize;
            for i in 0..n {
                let (first, len) = pair(i);
                // Every element of every row lies in the values' block
                // (checked where the array was made).
                let first = first as usize;
                if contiguous {
                    let bytes = len * size;
                    out[at..at + bytes].copy_from_slice(&data[first..first + bytes]);
                    at += bytes;
                    continue;
                }
                for k in 0..len as i128 {
                    let from = (first as i128 + k * stride) as usize;
                    out[at..at + size].copy_from_slice(&data[from..from + size]);
                    at += size;
                }
            }
            let ty = Type::with_dims([Dim::Fixed(total as usize)], element_ty.clone())?;
            let meta = Arrmeta::Fixed {
                size: total as usize,
                stride: size as isize,
                element,
            };
            let values = Array::try_from_parts(ty, Arc::new(meta), block, 0)?;
            return Ok((values, offsets));
        }
        let offset = origin.unwrap_or(rows.values_offset() as i128);
        let offset = usize::try_from(offset).map_err(|_| {
            Error::Layout(Box::new(LayoutProblem::BeforeBlock {
                part: "a row",
                ty: self.ty().clone(),
            }))
        })?;
        let ty = Type::with_dims([Dim::Fixed(total as usize)], element_ty.clone())?;
        let meta = Arrmeta::Fixed {
            size: total as usize,
            stride: rows.stride(),
            element,
        };
        let values =
            Array::try_from_parts(ty, Arc::new(meta), rows.values_block().clone(), offset)?;
        Ok((values, offsets))
    }

    /// The first (fixed) dimension of `outer * n` elements as `outer`
    /// blocks of `n`, sharing the memory.
    pub fn split_first(&self, outer: usize, n: usize) -> Result<Array, Error> {
        if let Some(r) = self.map_columns(|c| c.split_first(outer, n)) {
            return r;
        }
        let (m, stride, element_ty, element) = first_dim(self, "from_nested")?;
        if outer.checked_mul(n) != Some(m) {
            return Err(Error::FromValue {
                problem: Box::new(ValueProblem::Count {
                    shape: vec![outer, n],
                    count: outer.checked_mul(n),
                    given: m,
                }),
                path: Vec::new(),
            });
        }
        let ty = Type::with_dims([Dim::Fixed(outer), Dim::Fixed(n)], element_ty.clone())?;
        let meta = Arrmeta::Fixed {
            size: outer,
            stride: stride * n as isize,
            element: Box::new(Arrmeta::Fixed {
                size: n,
                stride,
                element: Box::new(element.clone()),
            }),
        };
        Array::try_from_parts(
            ty,
            Arc::new(meta),
            self.data_block().clone(),
            self.data_offset(),
        )
    }
}
