//! Checked reads and writes of an array's elements by byte offset: the
//! engine's access for walks that fold what they visit instead of handing
//! it to a kernel (the reductions and scans over fixed dimensions), and
//! for those that rearrange lines in place (sort).
//!
//! [`Elems`] borrows the array's data block; [`Elems::line`] checks that
//! the first and last element of a line (`len` elements `stride` bytes
//! apart) lie in the block, once, and then every element of the [`Line`]
//! does: the check is made where the line is made, not at each read. A
//! contiguous, aligned line is a slice, which the folds vectorise.
//! [`ElemsMut`] borrows a block mutably and hands each line over as a
//! mutable slice: the line itself when contiguous and aligned, else a copy
//! written back after.
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
use crate::element::{cast_slice, cast_slice_mut, read, write, Element};

/// Where a line of `len` elements of `size` bytes, `stride` bytes apart
/// from byte `origin + off`, lies in a block of `block` bytes: the byte
/// range from its lowest to past its highest element, and element 0's
/// index in that range; `None` if an element lies outside the block.
/// Only the first and the last element are checked: the others lie
/// between them on the same stride.
#[inline]
fn span(
    block: usize,
    origin: usize,
    (off, len, stride): (isize, usize, isize),
    size: usize,
) -> Option<(std::ops::Range<usize>, usize)> {
    let last = len.checked_sub(1)?;
    let first = origin.checked_add_signed(off)?;
    let end = origin.checked_add_signed(
        isize::try_from(last)
            .ok()?
            .checked_mul(stride)?
            .checked_add(off)?,
    )?;
    let (lo, hi) = (first.min(end), first.max(end).checked_add(size)?);
    (hi <= block).then_some((lo..hi, first - lo))
}

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
        if len == 0 {
            return Some(Line::EMPTY);
        }
        let size = std::mem::size_of::<T>();
        let (range, first) = span(self.bytes.len(), self.origin, (off, len, stride), size)?;
        Some(Line {
            bytes: &self.bytes[range],
            first,
            stride,
            len,
            _t: PhantomData,
        })
    }
}

/// An array's block for writing, by byte offset from its first element.
pub(crate) struct ElemsMut<'a> {
    /// The block's bytes, and the first element's offset in them.
    bytes: &'a mut [u8],
    origin: usize,
}

impl<'a> ElemsMut<'a> {
    /// The elements of a block whose first element is at byte `origin`.
    pub(crate) fn new(bytes: &'a mut [u8], origin: usize) -> ElemsMut<'a> {
        ElemsMut { bytes, origin }
    }

    /// Calls `f` with the `len` `T`s from byte offset `off` on, `stride`
    /// bytes apart, as a mutable slice: the elements themselves when they
    /// lie end to end and aligned, else copies gathered into `scratch` and
    /// written back after `f`. `None` (and `f` not called) if one lies
    /// outside the block.
    pub(crate) fn with_line<T: Element, R>(
        &mut self,
        (off, len, stride): (isize, usize, isize),
        scratch: &mut Vec<T>,
        f: impl FnOnce(&mut [T]) -> R,
    ) -> Option<R> {
        if len == 0 {
            return Some(f(&mut []));
        }
        let size = std::mem::size_of::<T>();
        let (range, first) = span(self.bytes.len(), self.origin, (off, len, stride), size)?;
        let bytes = &mut self.bytes[range];
        if len == 1 || stride == size as isize {
            if let Some(xs) = cast_slice_mut::<T>(bytes) {
                return Some(f(xs));
            }
        }
        let at = |i: usize| first.wrapping_add_signed((i as isize).wrapping_mul(stride));
        scratch.clear();
        for i in 0..len {
            // Inside `bytes`: between the first and the last element.
            scratch.push(read(bytes.get(at(i)..)?)?);
        }
        let out = f(scratch);
        for (i, &x) in scratch.iter().enumerate() {
            // As above.
            let written = bytes.get_mut(at(i)..).is_some_and(|b| write(b, x));
            debug_assert!(written, "an element between the first and the last");
        }
        Some(out)
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

    /// Calls `f` with the elements as a slice: borrowed when they lie end
    /// to end and aligned, gathered into `scratch` otherwise.
    #[inline]
    pub(crate) fn with_slice<R>(&self, scratch: &mut Vec<T>, f: impl FnOnce(&[T]) -> R) -> R {
        match self.as_slice() {
            Some(xs) => f(xs),
            None => {
                scratch.clear();
                scratch.extend(self.iter());
                f(scratch)
            }
        }
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
        let mut scratch = Vec::new();
        assert_eq!(col.with_slice(&mut scratch, <[f64]>::to_vec), [3.0, 6.0]);
        assert_eq!(
            row.with_slice(&mut scratch, <[f64]>::to_vec),
            [4.0, 5.0, 6.0]
        );
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

    #[test]
    fn mutable_lines_write_back_what_the_offsets_name_and_stop_at_the_block() {
        // An aligned block, so that contiguous lines are slices.
        let mut block = crate::memory::MemoryBlock::from_vec(vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let base = block.as_ptr() as usize;
        let bytes = std::sync::Arc::get_mut(&mut block).unwrap().bytes_mut();
        let mut scratch = Vec::new();
        let mut e = ElemsMut::new(bytes, 8);
        // From element 1: the column of 2 and 5 (stride 24), reversed.
        let seen = e.with_line::<f64, _>((0, 2, 24), &mut scratch, |xs| {
            xs.reverse();
            xs.to_vec()
        });
        assert_eq!(seen, Some(vec![5.0, 2.0]));
        // Backwards (stride -8): elements 3, 2, 1, sorted into place.
        let sorted = e.with_line::<f64, _>((16, 3, -8), &mut scratch, |xs| {
            assert_eq!(xs, [4.0, 3.0, 5.0]);
            xs.sort_by(f64::total_cmp);
        });
        assert!(sorted.is_some());
        // Contiguous: the elements themselves (no copy), 3 and 4 swapped.
        let direct = e.with_line::<f64, _>((16, 2, 8), &mut scratch, |xs| {
            xs.swap(0, 1);
            xs.as_ptr() as usize
        });
        assert_eq!(direct, Some(base + 24));
        // Past either end, or a stride that overflows: `f` not called.
        for line in [(0, 6, 8), (0, 2, -16), (0, 3, isize::MAX)] {
            let called = e.with_line::<f64, _>(line, &mut scratch, |_| ()).is_some();
            assert!(!called, "{line:?}");
        }
        assert_eq!(
            crate::element::cast_slice::<f64>(block.bytes()),
            Some(&[1.0, 5.0, 4.0, 2.0, 3.0, 6.0][..])
        );
    }
}
