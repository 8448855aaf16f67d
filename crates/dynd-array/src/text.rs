//! The strings of an array: one checked view that the text functions read.
//!
//! A `string` (or `bytes`) element is a (start, length) pair into the text
//! block its arrmeta names, so the characters of many elements share one
//! block and views of them (`split`) share it too. [`Strings`] reads an
//! array of fixed dimensions over `string` or `bytes` in C order of its
//! dimensions: each element's pair where the arrmeta puts it, and its
//! bytes in the text block.
//!
//! Every pair of a validated [`Array`] lies inside its block and every
//! string inside the text block; the view still checks each access and
//! returns `None` outside, so no reader can go out of bounds. The bytes of
//! a `string` are UTF-8 when the array was made from Rust strings, JSON
//! or a validated Arrow column; [`Strings::str`] checks.
//!
//! Why this layout and not Arrow's string views (a 16-byte element that
//! holds a string of up to 12 bytes inline, else its length, a 4-byte
//! prefix and where it lies): a pair can name any part of any string of
//! any length in one block, so `split`, `strip`, `slice` and
//! `regex_extract` give views without copying a byte, and an Arrow
//! `Utf8`/`LargeUtf8` column's characters are shared both ways (its
//! offsets become pairs in one pass). What it costs: a comparison reads
//! the characters wherever the lengths agree, where a view compares its
//! inline prefix first, so `x == "a"` is a little slower than over
//! views (the comparison kernels ask memory for the characters ahead of
//! use), and a `Utf8View` column is copied into one block on the way in
//! (its short strings live in the views themselves, which no pair can
//! name). Sorting builds (8-byte prefix, string) keys instead.
//!
//! ```
//! use dynd::nd::{array, text::Strings};
//!
//! let a = array![["a", "日本語"], ["", "naïve"]];
//! let s = Strings::of(&a).unwrap();
//! assert_eq!((s.shape(), s.len()), (&[2, 2][..], 4));
//! assert_eq!(s.bytes(1), Some("日本語".as_bytes()));
//! assert_eq!(s.str(3), Some("naïve"));
//! let lens: Vec<usize> = s.iter().map(|b| b.map_or(0, <[u8]>::len)).collect();
//! assert_eq!(lens, [1, 9, 0, 6]);
//! ```

use std::sync::Arc;

use smallvec::SmallVec;

use dynd_types::{Scalar, Type, TypeKind};

use crate::array::Array;
use crate::arrmeta::{c_order_offset, read_pair, Arrmeta, FixedDims, PAIR_SIZE};
use crate::memory::MemoryBlock;

/// The strings of an array of fixed dimensions over `string` or `bytes`,
/// in C order of its dimensions: see the module docs.
#[derive(Clone, Debug)]
pub struct Strings<'a> {
    /// The fixed dimensions' sizes.
    shape: SmallVec<[usize; 4]>,
    /// The fixed dimensions' sizes and byte strides.
    dims: FixedDims,
    /// The array's data block (the pairs) and the array's offset in it.
    data: &'a [u8],
    base: isize,
    /// The text block and its bytes.
    block: &'a Arc<MemoryBlock>,
    text: &'a [u8],
    /// The number of strings.
    len: usize,
    /// `string` or `bytes`.
    kind: Scalar,
}

impl<'a> Strings<'a> {
    /// The strings of `a`, or `None` when it is not fixed dimensions (or
    /// none) over `string` or `bytes`.
    pub fn of(a: &'a Array) -> Option<Strings<'a>> {
        let mut t = a.ty();
        let mut shape = SmallVec::new();
        while let TypeKind::Dim(dynd_types::Dim::Fixed(n), inner) = t.kind() {
            shape.push(*n);
            t = inner;
        }
        let kind = t
            .as_scalar()
            .filter(|s| matches!(s, Scalar::String | Scalar::Bytes))?;
        let (dims, m) = a.arrmeta().fixed_dims();
        let Arrmeta::Text { block } = m else {
            return None;
        };
        Some(Strings {
            len: shape.iter().product(),
            shape,
            dims,
            data: a.data_block().bytes(),
            base: isize::try_from(a.data_offset()).ok()?,
            block,
            text: block.bytes(),
            kind,
        })
    }

    /// The fixed dimensions' sizes (empty for one string).
    #[inline]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The number of strings (the product of [`Strings::shape`]).
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether there are no strings.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The element type: `string` or `bytes`.
    pub fn element_type(&self) -> Type {
        self.kind.into()
    }

    /// The text block the strings point into (a result that shares it is
    /// a view of the same characters).
    pub fn text_block(&self) -> &'a Arc<MemoryBlock> {
        self.block
    }

    /// Where string `i`'s pair lies in the array's data block.
    #[inline]
    fn pair_at(&self, i: usize) -> Option<usize> {
        c_order_offset(self.base, &self.dims, i)
    }

    /// String `i`'s (start, length) in the text block; `None` past the
    /// last string (or for a pair outside the block, which a validated
    /// array does not have).
    #[inline]
    pub fn span(&self, i: usize) -> Option<(usize, usize)> {
        if i >= self.len {
            return None;
        }
        let at = self.pair_at(i)?;
        let (start, len) = read_pair(self.data.get(at..at.checked_add(PAIR_SIZE)?)?);
        Some((usize::try_from(start).ok()?, usize::try_from(len).ok()?))
    }

    /// String `i`'s bytes; `None` past the last string (or outside the
    /// text block, which a validated array never is).
    #[inline]
    pub fn bytes(&self, i: usize) -> Option<&'a [u8]> {
        let (start, len) = self.span(i)?;
        self.text.get(start..start.checked_add(len)?)
    }

    /// String `i` as `&str`; `None` past the last string, or for bytes
    /// that are not UTF-8 (a `bytes` element, or text that came in
    /// unchecked).
    #[inline]
    pub fn str(&self, i: usize) -> Option<&'a str> {
        std::str::from_utf8(self.bytes(i)?).ok()
    }

    /// Every string's bytes in C order; an item is `None` only for a pair
    /// outside its block (never, for a validated array). Where the pairs
    /// lie side by side (one fixed dimension stepped by a pair, as every
    /// array a function made has them, or one string) they are read in
    /// one run.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = Option<&'a [u8]>> + '_ {
        self.iter_range(0..self.len)
    }

    /// As [`Strings::iter`], the strings of `range` only (clipped to the
    /// strings there are): for a part of the work on one thread.
    pub fn iter_range(
        &self,
        range: std::ops::Range<usize>,
    ) -> impl ExactSizeIterator<Item = Option<&'a [u8]>> + '_ {
        let range = range.start.min(self.len)..range.end.min(self.len);
        let run = match self.dims[..] {
            [] => Some(1),
            [(n, s)] if s == PAIR_SIZE as isize => Some(n),
            _ => None,
        }
        .and_then(|n| {
            let at = usize::try_from(self.base).ok()?;
            self.data
                .get(at..at.checked_add(n.checked_mul(PAIR_SIZE)?)?)
        });
        let text = self.text;
        range.map(move |i| match run {
            Some(pairs) => {
                let (start, len) = read_pair(pairs.get(i * PAIR_SIZE..(i + 1) * PAIR_SIZE)?);
                let start = usize::try_from(start).ok()?;
                text.get(start..start.checked_add(usize::try_from(len).ok()?)?)
            }
            None => self.bytes(i),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Index;

    fn strings(v: &[&str]) -> Array {
        Array::from_value(
            &crate::Value::List(v.iter().map(|s| crate::Value::Str((*s).into())).collect()),
            None,
        )
        .unwrap()
    }

    #[test]
    fn reads_every_layout_in_c_order() {
        let a = strings(&["x", "yy", "", "日本"]);
        let s = Strings::of(&a).unwrap();
        let all: Vec<&[u8]> = s.iter().map(Option::unwrap).collect();
        assert_eq!(all, [&b"x"[..], b"yy", b"", "日本".as_bytes()]);
        assert_eq!((s.bytes(4), s.span(4)), (None, None));

        // A reversed view (no run of pairs) and a step inside it.
        let r = a.index(&[Index::slice(None, None, -2)]).unwrap();
        let s = Strings::of(&r).unwrap();
        let all: Vec<&str> = (0..s.len()).map(|i| s.str(i).unwrap()).collect();
        assert_eq!(all, ["日本", "yy"]);
        assert_eq!(
            s.iter().map(Option::unwrap).collect::<Vec<_>>(),
            ["日本".as_bytes(), b"yy"]
        );

        // Two dimensions, transposed: C order of the view's own dimensions.
        let m = strings(&["a", "b", "c", "d"]).reshape([2, 2]).unwrap();
        let t = m.transpose().unwrap();
        let s = Strings::of(&t).unwrap();
        let all: Vec<&str> = s
            .iter()
            .map(|b| std::str::from_utf8(b.unwrap()).unwrap())
            .collect();
        assert_eq!((s.shape(), all), (&[2, 2][..], vec!["a", "c", "b", "d"]));

        // One string, and arrays that are not strings.
        let one = a.index(&[Index::At(3)]).unwrap();
        assert_eq!(Strings::of(&one).unwrap().str(0), Some("日本"));
        assert!(Strings::of(&Array::from_vec(vec![1.0])).is_none());
        let ragged = Array::from_json(r#"[["a"], ["b", "c"]]"#, None).unwrap();
        assert_eq!(ragged.ty().to_string(), "2 * var * string");
        assert!(Strings::of(&ragged).is_none());
    }
}
