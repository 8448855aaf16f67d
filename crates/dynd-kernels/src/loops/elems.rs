//! Checked reads of an array's elements by byte offset: the engine's
//! reader for walks that fold what they visit instead of handing it to a
//! kernel (the reductions and scans over fixed dimensions).
//!
//! [`Elems`] borrows the array's data block; [`Elems::line`] checks that
//! the first and last element of a line (`len` elements `stride` bytes
//! apart) lie in the block, once, and then every element of the [`Line`]
//! does: the check is made where the line is made, not at each read. A
//! contiguous, aligned line is a slice, which the folds vectorise.
//!
//! ```
//! use dynd::prelude::*;
//!
//! // Down the columns: lines of stride 16 bytes, read element by element.
//! let a = nd::array![[1.0, 2.0], [3.0, 4.0]];
//! assert_eq!(a.cumsum(0)?.to_string(), "[[1, 2], [4, 6]]");
//! assert_eq!(a.sum_axis(0)?.to_string(), "[4, 6]");
//! // Along the rows: contiguous lines, folded as slices.
//! assert_eq!(a.sum_axis(1)?.to_string(), "[3, 7]");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::marker::PhantomData;

use crate::array::Array;
use crate::element::{cast_slice, read, Element};

/// An array's elements, by byte offset from its first element.
#[derive(Clone, Copy)]
pub(crate) struct Elems<'a> {
    /// The data block's bytes, and the first element's offset in them.
    bytes: &'a [u8],
    origin: usize,
}

impl<'a> Elems<'a> {
    /// The elements of `a`.
    pub(crate) fn of(a: &'a Array) -> Elems<'a> {
        Elems {
            bytes: a.data_block().bytes(),
            origin: a.data_offset(),
        }
    }

    /// The block index of the byte `off` bytes from the first element.
    #[inline(always)]
    fn at(&self, off: isize) -> Option<usize> {
        self.origin.checked_add_signed(off)
    }

    /// The `T` at byte offset `off`, or `None` outside the block.
    #[inline]
    pub(crate) fn get<T: Element>(&self, off: isize) -> Option<T> {
        read(self.bytes.get(self.at(off)?..)?)
    }

    /// The `len` `T`s from byte offset `off` on, `stride` bytes apart, or
    /// `None` if one lies outside the block.
    #[inline]
    pub(crate) fn line<T: Element>(
        &self,
        off: isize,
        len: usize,
        stride: isize,
    ) -> Option<Line<'a, T>> {
        let size = std::mem::size_of::<T>();
        let Some(last) = len.checked_sub(1) else {
            return Some(Line::EMPTY);
        };
        let first = self.at(off)?;
        let end = self.at(isize::try_from(last)
            .ok()?
            .checked_mul(stride)?
            .checked_add(off)?)?;
        let (lo, hi) = (first.min(end), first.max(end).checked_add(size)?);
        Some(Line {
            bytes: self.bytes.get(lo..hi)?,
            first: first - lo,
            stride,
            len,
            _t: PhantomData,
        })
    }
}

/// `len` `T`s `stride` bytes apart, all inside `bytes` (made only by
/// [`Elems::line`], which checks that the first and the last are).
#[derive(Clone, Copy)]
pub(crate) struct Line<'a, T> {
    bytes: &'a [u8],
    /// Element 0's index in `bytes`.
    first: usize,
    stride: isize,
    len: usize,
    _t: PhantomData<T>,
}

impl<'a, T: Element> Line<'a, T> {
    /// The line of no elements.
    const EMPTY: Line<'a, T> = Line {
        bytes: &[],
        first: 0,
        stride: 0,
        len: 0,
        _t: PhantomData,
    };

    /// The elements as a slice, when they lie end to end and aligned.
    #[inline]
    pub(crate) fn as_slice(&self) -> Option<&'a [T]> {
        match self.len {
            0 => Some(&[]),
            1 => cast_slice(self.bytes),
            _ if self.stride == std::mem::size_of::<T>() as isize => cast_slice(self.bytes),
            _ => None,
        }
    }

    /// Element `i` (`i < self.len()`).
    #[inline(always)]
    pub(crate) fn get(&self, i: usize) -> T {
        debug_assert!(i < self.len);
        let at = (self.first as isize).wrapping_add((i as isize).wrapping_mul(self.stride));
        debug_assert!(at >= 0 && at as usize + std::mem::size_of::<T>() <= self.bytes.len());
        // SAFETY: elements 0 and `len - 1` lie in `bytes` (checked where
        // the line was made) and element `i < len` lies between them on
        // the same stride, so `size_of::<T>()` bytes from `at` are in
        // `bytes`; they hold a `T` of the array (its data type checked by
        // the caller), read unaligned.
        unsafe { self.bytes.as_ptr().offset(at).cast::<T>().read_unaligned() }
    }

    /// The elements in order.
    #[inline]
    pub(crate) fn iter(&self) -> impl Iterator<Item = T> + '_ {
        (0..self.len).map(|i| self.get(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::array;

    #[test]
    fn lines_read_what_the_offsets_name_and_stop_at_the_block() {
        let a = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
        let e = Elems::of(&a);
        let row: Line<'_, f64> = e.line(24, 3, 8).unwrap();
        assert_eq!(row.as_slice(), Some(&[4.0, 5.0, 6.0][..]));
        let col: Line<'_, f64> = e.line(16, 2, 24).unwrap();
        assert_eq!(col.as_slice(), None);
        assert_eq!(col.iter().collect::<Vec<_>>(), [3.0, 6.0]);
        let back: Line<'_, f64> = e.line(40, 3, -16).unwrap();
        assert_eq!(back.iter().collect::<Vec<_>>(), [6.0, 4.0, 2.0]);
        let same: Line<'_, f64> = e.line(8, 4, 0).unwrap();
        assert_eq!(same.iter().collect::<Vec<_>>(), [2.0; 4]);
        assert_eq!(e.get::<f64>(40), Some(6.0));
        // One element past either end, or a stride that overflows.
        assert!(e.line::<f64>(24, 4, 8).is_none());
        assert!(e.line::<f64>(8, 3, -16).is_none());
        assert!(e.line::<f64>(0, 3, isize::MAX).is_none());
        assert!(e.get::<f64>(44).is_none());
        assert!(e.get::<f64>(-8).is_none());
        assert_eq!(e.line::<f64>(1000, 0, 8).map(|l| l.iter().count()), Some(0));
    }
}
