//! The rows of a ragged array: one view that every row-wise reader in the
//! workspace reads (ragged reductions, per-row functions, [`Array::rows`],
//! [`Array::to_offsets`]).
//!
//! An array of fixed dimensions around one innermost `var` dimension
//! (`var * T`, `N * var * T`, `M * N * var * T`) is a run of rows in C
//! order of its fixed dimensions, each row a (start, length) pair into
//! the `var` dimension's values block. [`Rows`] reads those pairs where
//! the array's arrmeta puts them, and a row's elements with the `var`
//! dimension's stride; [`RaggedRows`] is the fast case, rows of
//! contiguous, aligned `T`s under at most one fixed dimension, each row a
//! `&[T]` after one pair read and one bounds check ([`Array::rows`] gives
//! it for `N * var * T`).
//!
//! Every pair of an array lies inside its block, and every row inside the
//! values block: [`Array`]s are validated where they are made. The
//! readers here still check each access, returning `None` outside (never,
//! for a validated array), so no reader can go out of bounds.
//!
//! ```
//! use dynd::nd::{array, rows::Rows};
//!
//! let x = array![[1.0, 2.0], [], [3.0]];
//! let rows = Rows::of(&x).unwrap();
//! assert_eq!((rows.shape(), rows.count()), (&[3][..], 3));
//! let slices = rows.slices::<f64>().unwrap();
//! assert_eq!(slices.get(0), Some(&[1.0, 2.0][..]));
//! assert_eq!(rows.row::<f64>(2).as_deref(), Some(&[3.0][..]));
//! ```

use std::borrow::Cow;
use std::sync::Arc;

use smallvec::SmallVec;

use dynd_types::{Dim, Scalar, Type, TypeKind};

use crate::array::Array;
use crate::arrmeta::{c_order_offset, read_pair, Arrmeta, FixedDims, PAIR_SIZE};
use crate::element::{cast_slice, read, Element};
use crate::memory::MemoryBlock;

/// The rows of an array of fixed dimensions around one innermost `var`
/// dimension, in C order of the fixed dimensions: see the module docs.
#[derive(Clone, Debug)]
pub struct Rows<'a> {
    /// The fixed dimensions' sizes.
    shape: SmallVec<[usize; 4]>,
    /// The fixed dimensions' sizes and byte strides.
    fixed: FixedDims,
    /// The array's data block (the pairs) and the array's offset in it.
    data: &'a [u8],
    base: isize,
    /// The `var` dimension's values block, its bytes, and the offset its
    /// rows' starts count from.
    block: &'a Arc<MemoryBlock>,
    vals: &'a [u8],
    offset: isize,
    /// The byte stride between a row's elements.
    stride: isize,
    /// The number of rows.
    count: usize,
    /// The `var` level's `packed` flag (checked where the array was made).
    packed: bool,
    /// The type and arrmeta of a row's elements.
    element_ty: &'a Type,
    element: &'a Arrmeta,
}

impl<'a> Rows<'a> {
    /// The rows of `a`, or `None` when its dimensions are not fixed ones
    /// around one innermost `var`.
    pub fn of(a: &'a Array) -> Option<Rows<'a>> {
        Rows::of_level(a).filter(|r| !r.element_ty.is_dim())
    }

    /// The rows of `a`'s first `var` dimension under fixed ones, whatever
    /// its elements are (`2 * var * var * T` is two rows of `var * T`
    /// elements), or `None` when its dimensions do not start with fixed
    /// ones and a `var`.
    pub fn of_level(a: &'a Array) -> Option<Rows<'a>> {
        let mut t = a.ty();
        let mut shape = SmallVec::new();
        let element_ty = loop {
            match t.kind() {
                TypeKind::Dim(Dim::Fixed(n), inner) => {
                    shape.push(*n);
                    t = inner;
                }
                TypeKind::Dim(Dim::Var, inner) => break inner,
                _ => return None,
            }
        };
        let (fixed, m) = a.arrmeta().fixed_dims();
        let Arrmeta::Var {
            values,
            offset,
            stride,
            element,
            packed,
        } = m
        else {
            return None;
        };
        Some(Rows {
            packed: *packed,
            count: shape.iter().product(),
            shape,
            fixed,
            data: a.data_block().bytes(),
            base: isize::try_from(a.data_offset()).ok()?,
            block: values,
            vals: values.bytes(),
            offset: isize::try_from(*offset).ok()?,
            stride: *stride,
            element_ty,
            element,
        })
    }

    /// The fixed dimensions' sizes.
    #[inline]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The fixed dimensions above the rows: each one's size and byte
    /// stride (between the pairs of its consecutive rows or groups of
    /// rows), outermost first.
    #[inline]
    pub fn dims(&self) -> &[(usize, isize)] {
        &self.fixed
    }

    /// The number of rows (the product of [`Rows::shape`]).
    #[inline]
    pub fn count(&self) -> usize {
        self.count
    }

    /// The byte stride between a row's elements.
    #[inline]
    pub fn stride(&self) -> isize {
        self.stride
    }

    /// The values block the rows point into.
    pub fn values_block(&self) -> &'a Arc<MemoryBlock> {
        self.block
    }

    /// The byte offset in [`Rows::values_block`] that the rows' starts
    /// count from.
    #[inline]
    pub fn values_offset(&self) -> isize {
        self.offset
    }

    /// The type of a row's elements.
    pub fn element_type(&self) -> &'a Type {
        self.element_ty
    }

    /// The arrmeta of a row's elements.
    pub fn element_arrmeta(&self) -> &'a Arrmeta {
        self.element
    }

    /// Where row `r`'s pair lies in the array's data block.
    #[inline]
    fn pair_at(&self, r: usize) -> Option<usize> {
        c_order_offset(self.base, &self.fixed, r)
    }

    /// Row `r`'s first element's byte offset in the values block, and its
    /// length; `None` past the last row (or for a pair outside the block,
    /// which a validated array does not have).
    #[inline]
    pub fn pair(&self, r: usize) -> Option<(i128, usize)> {
        if r >= self.count {
            return None;
        }
        let at = self.pair_at(r)?;
        let (start, len) = read_pair(self.data.get(at..at.checked_add(PAIR_SIZE)?)?);
        Some((self.offset as i128 + start as i64 as i128, len as usize))
    }

    /// Whether the rows lie end to end in row order from the values'
    /// offset (the `var` level's `packed` flag, checked where the array
    /// was made; views that drop or reorder rows clear it).
    #[inline]
    pub fn is_packed(&self) -> bool {
        self.packed
    }

    /// How many elements packed rows hold together, read from the last
    /// row's pair alone; `None` when the rows are not packed, or step
    /// through their values by 0 bytes (every start is then 0, and only
    /// the lengths tell).
    pub fn packed_len(&self) -> Option<usize> {
        if !self.packed || self.stride == 0 {
            return None;
        }
        if self.count == 0 {
            return Some(0);
        }
        let (start, len) = self.pair(self.count - 1)?;
        // Packed: the last row starts `stride` bytes times the elements
        // before it from the offset.
        let before = (start - self.offset as i128) / self.stride as i128;
        usize::try_from(before).ok()?.checked_add(len)
    }

    /// Every row's length, in row order: read in one run where the pairs
    /// lie side by side ([`Rows::pairs`]), one pair at a time otherwise;
    /// `None` for a pair outside the block (which a validated array does
    /// not have).
    pub fn lengths(&self) -> Option<Vec<usize>> {
        match self.pairs() {
            Some(pairs) => Some(
                pairs
                    .chunks_exact(PAIR_SIZE)
                    .map(|p| read_pair(p).1 as usize)
                    .collect(),
            ),
            None => (0..self.count).map(|r| self.pair(r).map(|p| p.1)).collect(),
        }
    }

    /// Every row's pair as one slice of bytes, [`PAIR_SIZE`] each, when
    /// they lie side by side (one fixed dimension stepped by a pair, as
    /// every array a function made has them); `None` otherwise.
    pub fn pairs(&self) -> Option<&'a [u8]> {
        match self.fixed[..] {
            [(n, s)] if s == PAIR_SIZE as isize => {
                let at = usize::try_from(self.base).ok()?;
                self.data
                    .get(at..at.checked_add(n.checked_mul(PAIR_SIZE)?)?)
            }
            _ => None,
        }
    }

    /// Row `r`'s elements as `T`s: borrowed when contiguous and aligned,
    /// gathered otherwise; `None` past the last row or when the elements
    /// are not `T`s.
    pub fn row<T: Element>(&self, r: usize) -> Option<Cow<'a, [T]>> {
        if self.element_ty.as_scalar() != Some(T::SCALAR) {
            return None;
        }
        let (first, len) = self.pair(r)?;
        let size = std::mem::size_of::<T>();
        if self.stride == size as isize && len > 0 {
            let start = usize::try_from(first).ok()?;
            let bytes = self
                .vals
                .get(start..start.checked_add(len.checked_mul(size)?)?)?;
            if let Some(xs) = cast_slice(bytes) {
                return Some(Cow::Borrowed(xs));
            }
        }
        let span = |i: usize| -> Option<T> {
            let at = first.checked_add((i as i128).checked_mul(self.stride as i128)?)?;
            let at = usize::try_from(at).ok()?;
            read(self.vals.get(at..at.checked_add(size)?)?)
        };
        (0..len)
            .map(span)
            .collect::<Option<Vec<T>>>()
            .map(Cow::Owned)
    }

    /// The rows as slices of `T`, when the elements are contiguous,
    /// aligned `T`s and there is at most one fixed dimension (the fast
    /// case every per-row loop takes); `None` otherwise.
    pub fn slices<T: Element>(&self) -> Option<RaggedRows<'a, T>> {
        if self.element_ty.as_scalar() != Some(T::SCALAR) {
            return None;
        }
        let size = std::mem::size_of::<T>();
        let step = match self.fixed[..] {
            [] => 0,
            [(_, s)] => s,
            _ => return None,
        };
        let first = (self.vals.as_ptr() as usize).wrapping_add(self.offset as usize);
        let aligned = first % std::mem::align_of::<T>() == 0;
        (self.stride == size as isize && aligned && self.base >= 0).then_some(RaggedRows {
            data: self.data,
            base: self.base as usize,
            step,
            rows: self.count,
            vals: self.vals,
            offset: self.offset as i128,
            _t: std::marker::PhantomData,
        })
    }
}

/// The rows of a `var` dimension of contiguous, aligned `T`s under one
/// fixed dimension (or none), read as slices with a pair read and a
/// bounds check each ([`Rows::slices`]).
#[derive(Clone, Copy)]
pub struct RaggedRows<'a, T> {
    /// The pairs' bytes, the first pair's offset and the step between them.
    data: &'a [u8],
    base: usize,
    step: isize,
    /// The number of rows.
    rows: usize,
    /// The values block's bytes and the offset of the rows' starts.
    vals: &'a [u8],
    offset: i128,
    _t: std::marker::PhantomData<&'a [T]>,
}

impl<'a, T: Element> RaggedRows<'a, T> {
    /// The number of rows.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// Whether there are no rows.
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Row `r`'s elements, or `None` past the last row (or if its pair or
    /// elements lie outside their blocks, which a validated array's do
    /// not).
    #[inline]
    pub fn get(&self, r: usize) -> Option<&'a [T]> {
        if r >= self.rows {
            return None;
        }
        let (start, len) = read_pair(self.data.get(self.pair_at(r)?..)?.get(..PAIR_SIZE)?);
        if len == 0 {
            return Some(&[]);
        }
        let size = std::mem::size_of::<T>();
        let first = usize::try_from(self.offset + start as i64 as i128).ok()?;
        cast_slice(
            self.vals
                .get(first..first.checked_add((len as usize).checked_mul(size)?)?)?,
        )
    }

    /// The rows in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = &'a [T]> + '_ {
        // Every row of a validated array lies inside its values block,
        // aligned for its elements (checked where the array was made), so
        // `get` finds each one.
        (0..self.rows).map(|r| self.get(r).unwrap_or(&[]))
    }

    /// Where row `r`'s pair lies in the data block.
    #[inline]
    fn pair_at(&self, r: usize) -> Option<usize> {
        let at = (self.base as isize).checked_add((r as isize).checked_mul(self.step)?)?;
        usize::try_from(at).ok()
    }

    /// The values block from the rows' offset on, as `B`s, for an
    /// unsigned integer `B` of `T`'s size and alignment (`None`
    /// otherwise): the bits of the rows'
    /// elements and of whatever lies between and after them (what a loop
    /// over the rows' spans reads as lanes).
    pub fn lanes<B: Element>(&self) -> Option<&'a [B]> {
        let size = std::mem::size_of::<B>();
        // Unsigned integers only: any bits are one of them.
        let any_bits = matches!(
            B::SCALAR,
            Scalar::UInt8 | Scalar::UInt16 | Scalar::UInt32 | Scalar::UInt64
        );
        if !any_bits
            || std::mem::size_of::<T>() != size
            || std::mem::align_of::<T>() != std::mem::align_of::<B>()
        {
            return None;
        }
        let bytes = self.vals.get(usize::try_from(self.offset).ok()?..)?;
        cast_slice(&bytes[..bytes.len() / size * size])
    }

    /// Row `r`'s first element's index in [`RaggedRows::lanes`] and its
    /// length, or `None` if its pair lies outside its block or its start
    /// is not a whole element.
    #[inline]
    pub fn span(&self, r: usize) -> Option<(usize, usize)> {
        let at = self.pair_at(r)?;
        Self::span_of(self.data.get(at..at.checked_add(PAIR_SIZE)?)?)
    }

    /// The pairs of rows `first..first + n` as one slice, when they lie
    /// end to end (the rows of an `N * var * T` in C order, not a view
    /// that steps over or back along them): a batch's rows then read
    /// their pairs with one bounds check.
    #[inline]
    pub fn pairs(&self, first: usize, n: usize) -> Option<&'a [u8]> {
        if self.step != PAIR_SIZE as isize {
            return None;
        }
        let at = self.base.checked_add(first.checked_mul(PAIR_SIZE)?)?;
        self.data
            .get(at..at.checked_add(n.checked_mul(PAIR_SIZE)?)?)
    }

    /// A row's span (as [`RaggedRows::span`]) from its pair's bytes.
    #[inline(always)]
    pub fn span_of(pair: &[u8]) -> Option<(usize, usize)> {
        let (start, len) = read_pair(pair);
        let size = std::mem::size_of::<T>() as u64;
        (start % size == 0).then_some((usize::try_from(start / size).ok()?, len as usize))
    }
}

impl<T: Element + std::fmt::Debug> std::fmt::Debug for RaggedRows<'_, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::Index;

    fn ragged(json: &str, ty: &str) -> Array {
        Array::from_json(json, Some(&ty.parse().unwrap())).unwrap()
    }

    #[test]
    fn rows_under_several_fixed_dimensions_read_in_c_order() {
        let a = ragged("[[[1], [2, 3]], [[], [4, 5, 6]]]", "2 * 2 * var * int32");
        let rows = Rows::of(&a).unwrap();
        assert_eq!((rows.shape(), rows.count()), (&[2, 2][..], 4));
        let got: Vec<Vec<i32>> = (0..4)
            .map(|r| rows.row::<i32>(r).unwrap().into_owned())
            .collect();
        assert_eq!(got, [vec![1], vec![2, 3], vec![], vec![4, 5, 6]]);
        assert_eq!(rows.pair(3).map(|p| p.1), Some(3));
        assert_eq!(rows.lengths(), Some(vec![1, 2, 0, 3]));
        // Past the last row, or read as another type: nothing.
        assert!(rows.pair(4).is_none() && rows.row::<i32>(4).is_none());
        assert!(rows.row::<f32>(0).is_none() && rows.slices::<i64>().is_none());
        // Two fixed dimensions are not the slices' fast case.
        assert!(rows.slices::<i32>().is_none());
    }

    #[test]
    fn slices_read_each_row_and_refuse_what_is_not_one() {
        let a = ragged("[[1.5, 2.5], [], [3.5]]", "3 * var * float64");
        let rows = Rows::of(&a).unwrap();
        let s = rows.slices::<f64>().unwrap();
        assert_eq!(s.len(), 3);
        assert_eq!(s.iter().collect::<Vec<_>>(), [&[1.5, 2.5][..], &[], &[3.5]]);
        assert!(s.get(3).is_none());
        assert!(rows.pairs().is_some_and(|p| p.len() == 3 * PAIR_SIZE));
        // Lanes: unsigned integers of the element's size only.
        assert_eq!(s.lanes::<u64>().map(|l| l[0]), Some(1.5f64.to_bits()));
        assert!(s.lanes::<i64>().is_none() && s.lanes::<u32>().is_none());
        // Rows stepping backwards: the rows are still read, by the pairs.
        let back = a.index(&[Index::slice(None, None, -1)]).unwrap();
        let rows = Rows::of(&back).unwrap();
        assert!(rows.pairs().is_none());
        assert_eq!(rows.lengths(), Some(vec![1, 0, 2]));
        assert_eq!(rows.row::<f64>(0).unwrap().as_ref(), [3.5]);
        // A view with a step inside each row: gathered, not sliced.
        let every_other = a
            .index(&[Index::slice(None, None, 1), Index::slice(None, None, 2)])
            .unwrap();
        let rows = Rows::of(&every_other).unwrap();
        assert!(rows.slices::<f64>().is_none());
        assert_eq!(rows.row::<f64>(0).unwrap().as_ref(), [1.5]);
    }

    #[test]
    fn only_fixed_dimensions_around_a_var_are_rows() {
        assert!(Rows::of(&Array::from_vec(vec![1.0f64, 2.0])).is_none());
        let nested = ragged("[[[1], [2, 3]], [[]]]", "2 * var * var * int64");
        assert!(Rows::of(&nested).is_none());
        // ... though its outer level is rows of `var * int64`.
        let level = Rows::of_level(&nested).unwrap();
        assert_eq!(level.element_type().to_string(), "var * int64");
        assert_eq!(level.pair(0).map(|p| p.1), Some(2));
        let var_first = ragged("[[1, 2], [3]]", "var * var * int64");
        assert!(Rows::of(&var_first).is_none());
    }
}
