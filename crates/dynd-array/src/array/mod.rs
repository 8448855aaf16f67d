//! [`Array`]: a type, its arrmeta and a reference to data in a memory block.
//!
//! ```
//! use dynd::nd::{array, Array};
//!
//! let a = array![[1.0, 2.0], [3.0]];            // ragged rows: a var dimension
//! assert_eq!(a.ty().to_string(), "2 * var * float64");
//! assert_eq!(a.to_string(), "[[1, 2], [3]]");
//!
//! let b = Array::from_json("[[1, null], [3, 4]]", Some(&"2 * 2 * ?int8".parse()?))?;
//! assert_eq!(format!("{b:?}"), "Array([[1, null], [3, 4]], type=\"2 * 2 * ?int8\")");
//!
//! let c = Array::from_vec(vec![1.5f64, 2.5, 3.5]);  // no copy
//! assert_eq!(c.as_slice::<f64>()?, &[1.5, 2.5, 3.5]);
//! # Ok::<(), dynd::Error>(())
//! ```

use std::fmt;
use std::mem::ManuallyDrop;
use std::sync::Arc;

use dynd_types::{promote_scalars, Dim, Scalar, Temporal, Type, TypeKind, ValueProblem};

use crate::arrmeta::{read_pair, write_pair, Arrmeta, PAIR_SIZE};
use crate::convert::{ErrorMode, Fail, Num};
use crate::element::{cast_slice, read, Element, Item};
use crate::error::Error;
use crate::memory::MemoryBlock;
use crate::scalar_io::{read_num, write_num};
use crate::value::{non_finite, Value};

mod builder;
use builder::*;
pub mod categorical;
pub mod columns;
use columns::column;
mod infer;
pub use infer::infer_type;
mod display;
use display::*;
mod kept;
mod read;
pub use display::{SUMMARY_EDGE, SUMMARY_THRESHOLD};

/// A dynamically typed n-dimensional array.
///
/// Cloning an array, and making views of it, shares its memory; an array
/// whose memory is shared is read-only until it is the only owner again
/// (writes then copy on write). Arrays over borrowed `'static` data stay
/// read-only.
#[derive(Clone)]
pub struct Array {
    ty: Type,
    /// Dropped by hand, in [`Drop`], as `data` is.
    meta: ManuallyDrop<Arc<Arrmeta>>,
    /// Dropped by hand, in [`Drop`]: a small block is kept on this thread
    /// with the arrmeta (see [`kept`]), or goes back to this thread's
    /// spares, without a clone.
    data: ManuallyDrop<Arc<MemoryBlock>>,
    offset: usize,
}

/// What a fresh C-order array of one fixed-shape type is made of, worked
/// out once from the type: its arrmeta and its size in bytes. Arrays of
/// the type are then allocated without looking at the type again (a
/// callable's result, on every call).
#[derive(Clone)]
pub struct FreshLayout {
    ty: Type,
    meta: Arc<Arrmeta>,
    size: usize,
    /// Whether the arrmeta has text, whose pairs must start zeroed.
    text: bool,
}

impl FreshLayout {
    /// The layout of `ty`, whose dimensions must all be fixed.
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] for `var` dimensions and types arrays do not
    /// hold yet.
    pub fn new(ty: &Type) -> Result<FreshLayout, Error> {
        let meta = Arc::new(Array::fixed_meta(ty)?);
        let size = ty.data_layout()?.size;
        let text = meta.has_text();
        Ok(FreshLayout {
            ty: ty.clone(),
            meta,
            size,
            text,
        })
    }

    /// The type.
    #[inline]
    pub fn ty(&self) -> &Type {
        &self.ty
    }

    /// A fresh array of the type: zeroed if `zero`, otherwise with
    /// unspecified element values (text pairs are zeroed either way).
    #[inline]
    pub fn allocate(&self, zero: bool) -> Result<Array, Error> {
        if self.size <= crate::memory::INLINE_BYTES {
            if let Some(array) = self.take_kept(zero || self.text) {
                return Ok(array);
            }
        }
        // Text (start, length) pairs must point into their (empty) blocks
        // even before a kernel writes them: those blocks are zeroed.
        let data = if zero || self.text {
            MemoryBlock::zeroed(self.size)?
        } else {
            MemoryBlock::for_overwrite(self.size)?
        };
        // SAFETY: `meta` is the C-order arrmeta of `ty` (fixed dimensions
        // only, from `fixed_meta` in `new`), the block holds
        // `ty.data_layout().size` bytes, which is that layout's whole
        // extent, and it is aligned to 16 bytes (every element type's
        // alignment). Its text pairs are zero, empty ranges of their empty
        // blocks.
        Ok(unsafe { Array::from_parts_unchecked(self.ty.clone(), self.meta.clone(), data, 0) })
    }

    /// A fresh array of the type whose bytes `write` writes, given the
    /// address of the first element: fresh memory is not cleared first
    /// (see [`MemoryBlock::written_by`]).
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`] if the memory cannot be had.
    ///
    /// # Safety
    ///
    /// `write` writes a valid value of the type's element type to every
    /// element of the C-order array (every byte of its
    /// `ty.data_layout().size`), and reads none before writing it.
    #[inline]
    pub unsafe fn written(&self, write: impl FnOnce(*mut u8)) -> Result<Array, Error> {
        if self.text || self.size <= crate::memory::INLINE_BYTES {
            let mut array = self.allocate(false)?;
            write(array.fresh_data_ptr());
            return Ok(array);
        }
        // SAFETY: `write` writes each of the layout's `size` bytes (the
        // caller's contract).
        let data = unsafe { MemoryBlock::written_by(self.size, write)? };
        // SAFETY: as in `allocate`: the C-order arrmeta of `ty` over a
        // fresh block of its size, aligned as every block, at offset 0,
        // holding valid values written by `write`.
        Ok(unsafe { Array::from_parts_unchecked(self.ty.clone(), self.meta.clone(), data, 0) })
    }

    /// A fresh array of this layout from the parts of a small array
    /// dropped on this thread (see [`kept`]): its arrmeta too if it had
    /// this layout, otherwise its block alone. Zeroed with `zero`,
    /// otherwise with unspecified element values.
    #[inline]
    fn take_kept(&self, zero: bool) -> Option<Array> {
        let k = kept::take(&self.meta, self.size)?;
        let meta = if Arc::ptr_eq(&k.meta, &self.meta) {
            k.meta
        } else {
            self.meta.clone()
        };
        let data = MemoryBlock::reuse_small(k.data, self.size, zero)?;
        // SAFETY: as in `allocate`: `meta` is this layout's own arrmeta
        // (the same allocation), the C-order arrmeta of `ty`, over a fresh
        // block of exactly `ty`'s size, aligned as every block, at offset
        // 0; text pairs (a layout with text asks for `zero`) are zero.
        Some(unsafe { Array::from_parts_unchecked(self.ty.clone(), meta, data, 0) })
    }
}

impl Drop for Array {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: `data` and `meta` are not used again: this is the
        // array's drop.
        let (data, meta) = unsafe {
            (
                ManuallyDrop::take(&mut self.data),
                ManuallyDrop::take(&mut self.meta),
            )
        };
        if self.offset == 0 && MemoryBlock::is_small_and_unique(&data) {
            kept::keep(meta, data);
        } else {
            drop(meta);
            MemoryBlock::recycle(data);
        }
    }
}

impl Array {
    /// An array of type `ty` (or the [inferred](infer_type) one) holding `v`.
    ///
    /// # Errors
    ///
    /// [`Error::FromValue`] naming the element that does not fit the type
    /// (tuples, structs and fixed strings included: `[1, 2.5]` as
    /// `(int64, float64)`, `{"x": 1}` as `{x: int64}`).
    pub fn from_value(v: &Value, ty: Option<&Type>) -> Result<Array, Error> {
        // Every walk below recurses once per level: a value deeper than
        // any type can be is refused before one starts.
        let depth = v.depth();
        if depth > dynd_types::MAX_LEVELS {
            return Err(value_error(
                ValueProblem::TooDeep {
                    depth,
                    max: dynd_types::MAX_LEVELS,
                },
                &[],
            ));
        }
        let ty = match ty {
            Some(t) => t.clone(),
            None => infer_type(v)?,
        };
        if let Some(r) = categorical::from_value(v, &ty) {
            return r;
        }
        let mut builder = Builder::new(&ty)?;
        // The value's list lengths must match the type's fixed dimensions
        // before the type's size is allocated: `[1, 2]` against a type of
        // 10^11 elements is a mismatch, not an allocation.
        check_dims(&ty, v, &mut Vec::new())?;
        let mut block = MemoryBlock::zeroed(ty.data_layout()?.size)?;
        let Some(bytes) = Arc::get_mut(&mut block) else {
            unreachable!("a new block is unique")
        };
        builder.write(&ty, v, bytes.bytes_mut(), &mut Vec::new())?;
        let meta = builder.finish(&ty)?;
        Array::try_from_parts(ty, Arc::new(meta), block, 0)
    }

    /// An array from JSON text, of type `ty` or the inferred one.
    ///
    /// # Errors
    ///
    /// [`Error::Json`] for bad JSON, then as [`Array::from_value`].
    pub fn from_json(text: &str, ty: Option<&Type>) -> Result<Array, Error> {
        Array::from_value(&Value::parse_json(text)?, ty)
    }

    /// A 0-d array holding one value.
    pub fn from_scalar<T: Element>(v: T) -> Array {
        thread_local! {
            /// A scalar's arrmeta, shared by every scalar made here.
            static SCALAR: Arc<Arrmeta> = Arc::new(Arrmeta::Scalar);
        }
        let meta = SCALAR
            .try_with(Arc::clone)
            .unwrap_or_else(|_| Arc::new(Arrmeta::Scalar));
        // A small block: this thread's spare, or one allocation.
        let data = MemoryBlock::from_bytes(crate::element::bytes_of(&v));
        // SAFETY: a scalar's arrmeta over a block of exactly its bytes,
        // written as a `T`, at offset 0 (blocks are 16-byte aligned).
        unsafe { Array::from_parts_unchecked(T::SCALAR.into(), meta, data, 0) }
    }

    /// A 0-d `string` array holding `s` (its bytes copied into a text
    /// block of their own).
    ///
    /// ```
    /// use dynd::nd::Array;
    ///
    /// let s = Array::from_text("naïve");
    /// assert_eq!((s.to_string(), s.ty().to_string()), ("\"naïve\"".into(), "string".into()));
    /// ```
    pub fn from_text(s: &str) -> Array {
        let meta = Arc::new(Arrmeta::Text {
            block: MemoryBlock::from_string(s.to_string()),
        });
        let mut pair = [0u8; crate::arrmeta::PAIR_SIZE];
        crate::arrmeta::write_pair(&mut pair, 0, s.len() as u64);
        let data = MemoryBlock::from_bytes(&pair);
        // SAFETY: a string's arrmeta (its text block holds exactly `s`)
        // over a block of one (start, length) pair, (0, `s.len()`),
        // inside that text, at offset 0 (blocks are 16-byte aligned).
        unsafe { Array::from_parts_unchecked(Scalar::String.into(), meta, data, 0) }
    }

    /// A 1-d `string` array of `spans.len()` strings, each a (start,
    /// length) byte range of `text`, which becomes their one text block
    /// (strings may share characters).
    ///
    /// ```
    /// use dynd::nd::Array;
    ///
    /// let a = Array::from_text_spans("naïve-日本".into(), &[(0, 6), (7, 6), (6, 0)])?;
    /// assert_eq!(a.to_string(), r#"["naïve", "日本", ""]"#);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Argument`] naming the first range that is not a part of
    /// `text` on character boundaries (so every string is UTF-8).
    pub fn from_text_spans(text: String, spans: &[(usize, usize)]) -> Result<Array, Error> {
        let mut pairs = crate::memory::try_zeroed(spans.len(), crate::arrmeta::PAIR_SIZE)?;
        for (i, &(start, len)) in spans.iter().enumerate() {
            let inside = start
                .checked_add(len)
                .is_some_and(|end| text.get(start..end).is_some());
            if !inside {
                return Err(Error::Argument {
                    op: "from_text_spans",
                    what: "a string's byte range",
                    expected: "a part of the text, on character boundaries",
                    found: format!(
                        "{start}..{} at index {i}, of {} bytes",
                        start.saturating_add(len),
                        text.len()
                    )
                    .into(),
                });
            }
            let at = i * crate::arrmeta::PAIR_SIZE;
            crate::arrmeta::write_pair(
                &mut pairs[at..at + crate::arrmeta::PAIR_SIZE],
                start as u64,
                len as u64,
            );
        }
        let element = Arrmeta::Text {
            block: MemoryBlock::from_string(text),
        };
        let meta = c_order_meta(&[spans.len()], crate::arrmeta::PAIR_SIZE, element)?;
        let ty = Type::with_dims([Dim::Fixed(spans.len())], Scalar::String.into())?;
        Array::try_from_parts(ty, Arc::new(meta), MemoryBlock::from_vec(pairs), 0)
    }

    /// A 1-d array over the elements of `v`, without copying them.
    pub fn from_vec<T: Element>(v: Vec<T>) -> Array {
        let n = v.len();
        Array::vector::<T>(n, MemoryBlock::from_vec(v))
    }

    /// A 1-d array of `n` elements of `T` over a block of exactly their
    /// bytes, which hold values of `T`, at offset 0.
    fn vector<T: Element>(n: usize, data: Arc<MemoryBlock>) -> Array {
        debug_assert_eq!(data.len(), n * std::mem::size_of::<T>());
        Array {
            ty: Type::with_dims([Dim::Fixed(n)], T::SCALAR.into())
                .unwrap_or_else(|_| unreachable!()),
            meta: ManuallyDrop::new(Arc::new(Arrmeta::Fixed {
                size: n,
                stride: std::mem::size_of::<T>() as isize,
                element: Box::new(Arrmeta::Scalar),
            })),
            data: ManuallyDrop::new(data),
            offset: 0,
        }
    }

    /// A 1-d array holding a copy of `s` (see [`Array::from_static`] and
    /// [`Array::from_vec`] for the zero-copy constructors), in a block of
    /// this library's (so a large one is on huge pages where the system
    /// has them, see [`HUGE_PAGE_MIN`](crate::memory::HUGE_PAGE_MIN)).
    pub fn from_slice<T: Element>(s: &[T]) -> Array {
        let copied = MemoryBlock::for_overwrite(std::mem::size_of_val(s))
            .ok()
            .and_then(|mut data| {
                let dst =
                    crate::element::cast_slice_mut::<T>(Arc::get_mut(&mut data)?.bytes_mut())?;
                dst.copy_from_slice(s);
                Some(data)
            });
        match copied {
            Some(data) => Array::vector::<T>(s.len(), data),
            // Out of memory: as a `Vec` does.
            None => Array::from_vec(s.to_vec()),
        }
    }

    /// A 1-d array of `n` elements, element `i` being `f(i)`, written into
    /// a block of this library's (a large one reuses pages a freed result
    /// left mapped, where a fresh `Vec` would fault each one in).
    ///
    /// ```
    /// let a = dynd::nd::Array::from_fn(4, |i| i as f64 * 0.5)?;
    /// assert_eq!(a.to_string(), "[0, 0.5, 1, 1.5]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// An allocation error.
    pub fn from_fn<T: Element>(n: usize, mut f: impl FnMut(usize) -> T) -> Result<Array, Error> {
        Array::from_fill(n, |dst: &mut [T]| {
            for (i, x) in dst.iter_mut().enumerate() {
                *x = f(i);
            }
            // Zero-sized elements: no slice to write, `f` still called.
            (dst.len()..n).for_each(|i| {
                let _ = f(i);
            });
        })
    }

    /// A 1-d array of `n` elements written by `fill` in any order, in a
    /// block of this library's (as [`Array::from_fn`]: a large one reuses
    /// pages a freed result left mapped): for a scatter, where element `i`
    /// is not made at step `i`. `fill` sees the elements holding
    /// unspecified values (zero for `bool`, whose every byte must be 0 or
    /// 1) and is meant to write each of them.
    ///
    /// ```
    /// // Each value moved to the place `to` gives it.
    /// let (xs, to) = ([1.5, 2.5, 3.5], [2, 0, 1]);
    /// let a = dynd::nd::Array::from_fill(3, |out: &mut [f64]| {
    ///     for (&x, &j) in xs.iter().zip(&to) {
    ///         out[j] = x;
    ///     }
    /// })?;
    /// assert_eq!(a.to_string(), "[2.5, 3.5, 1.5]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// An allocation error.
    pub fn from_fill<T: Element>(n: usize, fill: impl FnOnce(&mut [T])) -> Result<Array, Error> {
        let bytes = n
            .checked_mul(std::mem::size_of::<T>())
            .ok_or_else(|| Error::alloc(n as u128 * std::mem::size_of::<T>() as u128))?;
        // Any bytes are a valid number; a `bool` must start as one.
        let mut data = if T::SCALAR == Scalar::Bool {
            MemoryBlock::zeroed(bytes)?
        } else {
            MemoryBlock::for_overwrite(bytes)?
        };
        let Some(block) = Arc::get_mut(&mut data) else {
            unreachable!("a fresh block is unique")
        };
        match crate::element::cast_slice_mut::<T>(block.bytes_mut()) {
            Some(dst) => fill(dst),
            // No elements, or zero-sized ones.
            None => fill(&mut []),
        }
        Ok(Array::vector::<T>(n, data))
    }

    /// A read-only 1-d array over a `'static` slice, without copying it.
    pub fn from_static<T: Element>(s: &'static [T]) -> Array {
        Array {
            ty: Type::with_dims([Dim::Fixed(s.len())], T::SCALAR.into())
                .unwrap_or_else(|_| unreachable!()),
            meta: ManuallyDrop::new(Arc::new(Arrmeta::Fixed {
                size: s.len(),
                stride: std::mem::size_of::<T>() as isize,
                element: Box::new(Arrmeta::Scalar),
            })),
            data: ManuallyDrop::new(MemoryBlock::from_static(s)),
            offset: 0,
        }
    }

    /// A C-order array of the given shape over the elements of `v`, without
    /// copying them.
    ///
    /// # Errors
    ///
    /// [`Error::FromValue`] if the shape's element count is not `v.len()`.
    pub fn from_shape_vec<T: Element>(shape: &[usize], v: Vec<T>) -> Result<Array, Error> {
        let count = shape.iter().try_fold(1usize, |acc, &n| acc.checked_mul(n));
        if count != Some(v.len()) {
            return Err(value_error(
                ValueProblem::Count {
                    shape: shape.to_vec(),
                    count,
                    given: v.len(),
                },
                &[],
            ));
        }
        let ty = Type::with_dims(shape.iter().map(|&n| Dim::Fixed(n)), T::SCALAR.into())?;
        let meta = c_order_meta(shape, std::mem::size_of::<T>(), Arrmeta::Scalar)?;
        Array::try_from_parts(ty, Arc::new(meta), MemoryBlock::from_vec(v), 0)
    }

    /// An array of type `ty` with every element zero (NA for options, empty
    /// for strings). `ty` may not have `var` dimensions (their rows would
    /// need lengths).
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] for `var` dimensions and types arrays do not hold yet.
    pub fn zeros(ty: &Type) -> Result<Array, Error> {
        Array::allocate(ty, true)
    }

    /// An array of type `ty` whose element values are unspecified, for a
    /// kernel that writes every element before the array is seen (see
    /// [`MemoryBlock::for_overwrite`]).
    pub fn for_overwrite(ty: &Type) -> Result<Array, Error> {
        Array::allocate(ty, false)
    }

    fn allocate(ty: &Type, zero: bool) -> Result<Array, Error> {
        thread_local! {
            /// The layout of the last fixed-shape array of a builtin number
            /// type allocated on this thread: arrays of one type are
            /// usually made again and again (a callable's results), and
            /// such arrmeta holds no memory block, so it can be shared.
            static LAST: std::cell::RefCell<Option<FreshLayout>> =
                const { std::cell::RefCell::new(None) };
        }
        let hit = LAST.with(|last| {
            let last = last.borrow();
            let layout = last.as_ref().filter(|l| l.ty == *ty)?;
            Some(layout.allocate(zero))
        });
        if let Some(array) = hit {
            return array;
        }
        let layout = FreshLayout::new(ty)?;
        let array = layout.allocate(zero);
        if matches!(ty.dtype().as_scalar(), Some(s) if s.is_numeric() || s == Scalar::Bool) {
            LAST.with(|last| *last.borrow_mut() = Some(layout));
        }
        array
    }

    /// The C-order arrmeta of `ty`, whose dimensions must all be fixed.
    fn fixed_meta(ty: &Type) -> Result<Arrmeta, Error> {
        if ty.has_var_dim() {
            return Err(unsupported("zeros (var rows need lengths)", ty));
        }
        let (dims, dtype) = ty.split_dims();
        let shape: Vec<usize> = dims
            .iter()
            .map(|d| match d {
                Dim::Fixed(n) => Ok(*n),
                _ => Err(unsupported("zeros", ty)),
            })
            .collect::<Result<_, _>>()?;
        let elem_meta = dtype_meta(dtype)?;
        c_order_meta(&shape, dtype.data_layout()?.size, elem_meta)
    }

    /// The array's type.
    #[inline]
    pub fn ty(&self) -> &Type {
        &self.ty
    }

    /// The arrmeta.
    #[inline]
    pub fn arrmeta(&self) -> &Arrmeta {
        self.raw().0
    }

    /// The data type under the dimensions.
    #[inline]
    pub fn dtype(&self) -> &Type {
        self.ty.dtype()
    }

    /// The number of dimensions.
    #[inline]
    pub fn ndim(&self) -> usize {
        self.ty.ndim()
    }

    /// The dimensions: `Dim::Fixed(n)` or `Dim::Var`, outermost first.
    /// [`Array::dims`] gives the sizes of an array whose dimensions are
    /// all fixed.
    pub fn shape(&self) -> Vec<Dim> {
        self.ty.split_dims().0.into_iter().cloned().collect()
    }

    /// The size of the first dimension, as NumPy's `len(x)`: a fixed
    /// dimension's size, or the length of the one row an outermost `var`
    /// dimension holds; 0 for a 0-d array, which has no dimension.
    ///
    /// ```
    /// use dynd::nd::Array;
    ///
    /// assert_eq!(Array::from_vec(vec![1.0, 2.0, 3.0]).len(), 3);
    /// let ragged = Array::from_json("[[1], [2, 3]]", Some(&"var * var * int64".parse()?))?;
    /// assert_eq!(ragged.len(), 2);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn len(&self) -> usize {
        match self.ty.split_dims().0.first() {
            Some(Dim::Fixed(n)) => *n,
            // Validated: the row's pair lies inside the data block.
            Some(Dim::Var) => {
                if let Some(first) = self.columns().and_then(|c| c.into_iter().next()) {
                    return first.len();
                }
                self.data
                    .bytes()
                    .get(self.offset..self.offset.saturating_add(PAIR_SIZE))
                    .map_or(0, |pair| read_pair(pair).1 as usize)
            }
            _ => 0,
        }
    }

    /// Whether the first dimension is empty (or there is none: a 0-d
    /// array), as [`Array::len`] is 0.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The sizes of the dimensions, outermost first, for an array whose
    /// dimensions are all fixed (`[2, 3]` for `2 * 3 * float64`; `[]` for
    /// a 0-d array).
    ///
    /// ```
    /// let a = dynd::nd::Array::from_json("[[1, 2, 3], [4, 5, 6]]", None)?;
    /// assert_eq!(a.dims()?, [2, 3]);
    /// let n: i64 = a.dims()?[0] as i64;
    /// assert_eq!(n, 2);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::NeedsArray`] for an array with a `var` dimension, which
    /// has no one size ([`Array::shape`] describes it).
    pub fn dims(&self) -> Result<Vec<usize>, Error> {
        self.ty
            .split_dims()
            .0
            .into_iter()
            .map(|d| match d {
                Dim::Fixed(n) => Ok(*n),
                _ => Err(Error::NeedsArray {
                    op: "dims".into(),
                    expected: "fixed dimensions only (a var dimension has no one size: see shape)",
                    found: self.ty.clone(),
                }),
            })
            .collect()
    }

    /// The byte strides of the leading fixed dimensions (up to the first `var`).
    pub fn strides(&self) -> Vec<isize> {
        let mut out = Vec::new();
        let mut m: &Arrmeta = self.arrmeta();
        while let Some((_, stride, element)) = m.as_fixed() {
            out.push(stride);
            m = element;
        }
        out
    }

    /// Whether all dimensions are fixed and laid out in C order without gaps.
    pub fn is_c_contiguous(&self) -> bool {
        self.c_contiguous_count().is_some()
    }

    /// The element count, if all dimensions are fixed and laid out in C
    /// order without gaps (one walk over the arrmeta, no allocation).
    fn c_contiguous_count(&self) -> Option<usize> {
        // Outermost first: each dimension longer than 1 must step over
        // the whole of what is inside it.
        // The first eight levels in a plain array (its length kept in a
        // register), deeper ones, which no small array has, in a vector.
        let mut near = [(0usize, 0isize); 8];
        let mut deep: Vec<(usize, isize)> = Vec::new();
        let mut k = 0;
        let mut m: &Arrmeta = self.arrmeta();
        while let Some((n, stride, element)) = m.as_fixed() {
            match near.get_mut(k) {
                Some(slot) => *slot = (n, stride),
                None => deep.push((n, stride)),
            }
            k += 1;
            m = element;
        }
        // A builtin scalar under fixed dimensions alone (the arrmeta
        // mirrors the type: a `var` level would have ended the walk on
        // its record) needs no walk of the type.
        let size = match (m, self.dtype().as_scalar()) {
            (Arrmeta::Scalar, Some(s)) => s.size() as isize,
            _ if self.ty.has_var_dim() => return None,
            _ => self.dtype().data_layout().ok()?.size as isize,
        };
        let mut expected = size;
        let mut count = 1usize;
        let dims = near[..k.min(near.len())].iter().chain(&deep);
        for &(n, stride) in dims.rev() {
            if n > 1 && stride != expected {
                return None;
            }
            expected *= n as isize;
            count *= n;
        }
        Some(count)
    }

    /// Whether writes are refused (the data is borrowed `'static` memory).
    #[inline]
    pub fn is_readonly(&self) -> bool {
        !self.raw().1.is_writable()
    }

    /// An array from its parts, checked: every element, row and string
    /// the parts can reach lies inside its block (the invariant the kernels'
    /// raw-pointer loops rely on; see the `validate` module). Views,
    /// reshapes, takes and results are made through this.
    ///
    /// # Errors
    ///
    /// [`Error::Layout`] saying what reaches outside which block.
    pub fn try_from_parts(
        ty: Type,
        meta: Arc<Arrmeta>,
        data: Arc<MemoryBlock>,
        offset: usize,
    ) -> Result<Array, Error> {
        crate::validate::validate(&ty, &meta, &data, offset)?;
        Ok(Array {
            ty,
            meta: ManuallyDrop::new(meta),
            data: ManuallyDrop::new(data),
            offset,
        })
    }

    /// An array from its parts, unchecked, for hot paths that built the
    /// parts themselves (a fresh C-order block sized from the type).
    ///
    /// # Safety
    ///
    /// The parts satisfy what [`Array::try_from_parts`] checks: every
    /// element, row and string they reach lies inside its block and the
    /// arrmeta fits the type. Debug builds assert it.
    #[inline]
    pub unsafe fn from_parts_unchecked(
        ty: Type,
        meta: Arc<Arrmeta>,
        data: Arc<MemoryBlock>,
        offset: usize,
    ) -> Array {
        debug_assert!(
            crate::validate::validate(&ty, &meta, &data, offset).is_ok(),
            "{:?}",
            crate::validate::validate(&ty, &meta, &data, offset)
        );
        Array {
            ty,
            meta: ManuallyDrop::new(meta),
            data: ManuallyDrop::new(data),
            offset,
        }
    }

    /// The type, data block and arrmeta, for writing.
    ///
    /// # Safety
    ///
    /// When the borrow ends, the parts still satisfy what
    /// [`Array::try_from_parts`] checks (every element, row and string
    /// they reach lies inside its block, `packed` rows end to end): a
    /// block replaced by a copy of its bytes or by one the arrmeta's
    /// pairs were written for, elements rewritten where they are plain
    /// values or with pairs that stay inside their blocks. Kernels
    /// reading the array later rely on it without checking again.
    #[inline]
    pub unsafe fn parts_mut(&mut self) -> (&Type, &mut Arc<MemoryBlock>, &mut Arc<Arrmeta>) {
        self.make_raw();
        (&self.ty, &mut self.data, &mut *self.meta)
    }

    /// The arrmeta, shared.
    #[inline]
    pub fn arrmeta_arc(&self) -> Arc<Arrmeta> {
        Arc::clone(self.raw().0)
    }

    /// The address of the first element of an array just allocated (the
    /// only owner of its memory, with no `var` dimensions), for writing.
    #[inline]
    pub fn fresh_data_ptr(&mut self) -> *mut u8 {
        match self.owned_data_ptr() {
            Some(p) => p,
            None => unreachable!("a fresh array owns its memory"),
        }
    }

    /// The address of the first element, for writing, when this handle is
    /// the only owner of its data block and the block is writable (`None`
    /// otherwise), found with plain loads of the counts: [`Array::unique_data_ptr`]
    /// without its compare-and-swap (holding `&mut self`, no other
    /// reference to the block can appear).
    #[inline]
    pub fn owned_data_ptr(&mut self) -> Option<*mut u8> {
        self.make_raw();
        MemoryBlock::unique_ptr(&self.data).map(|base| base.wrapping_add(self.offset))
    }

    /// The address of the first element, for writing, when this handle is
    /// the only owner of its data block (`None` when the block is shared).
    /// Writers make the array unique first (the kernels' `make_unique`).
    #[inline]
    pub fn unique_data_ptr(&mut self) -> Option<*mut u8> {
        self.make_raw();
        let offset = self.offset;
        Arc::get_mut(&mut self.data).map(|block| block.as_mut_ptr().wrapping_add(offset))
    }

    /// The address of the first element.
    #[inline]
    pub fn data_ptr(&self) -> *const u8 {
        let (_, data, offset) = self.raw();
        data.as_ptr().wrapping_add(offset)
    }

    /// The memory block holding the array's data.
    #[inline]
    pub fn data_block(&self) -> &Arc<MemoryBlock> {
        self.raw().1
    }

    /// The byte offset of the first element in the data block.
    #[inline]
    pub fn data_offset(&self) -> usize {
        self.raw().2
    }
}

/// The arrmeta of a data type's zero value (no dimensions): empty text
/// blocks for strings.
pub fn dtype_meta(dtype: &Type) -> Result<Arrmeta, Error> {
    match Builder::new(dtype)? {
        b @ (Builder::Scalar(_)
        | Builder::Time(..)
        | Builder::FixedString(..)
        | Builder::Option(..)
        | Builder::Text { .. }
        | Builder::Fields { .. }) => b.finish(dtype),
        _ => Err(unsupported("a data type with dimensions here", dtype)),
    }
}

/// C-order arrmeta for fixed dimensions over an element record.
///
/// # Errors
///
/// [`Error::Size`] if a stride overflows `isize` (possible even for an
/// empty array: `0 * 4611686018427387904 * 4 * int64`).
pub fn c_order_meta(shape: &[usize], elem_size: usize, element: Arrmeta) -> Result<Arrmeta, Error> {
    let mut meta = element;
    let mut stride = isize::try_from(elem_size).ok();
    for &n in shape.iter().rev() {
        let Some(s) = stride else {
            let mut values = vec![("element size", elem_size as i128)];
            values.extend(shape.iter().map(|&n| ("dimension", n as i128)));
            return Err(Error::Size {
                what: "a C-order stride",
                values,
            });
        };
        meta = Arrmeta::Fixed {
            size: n,
            stride: s,
            element: Box::new(meta),
        };
        stride = isize::try_from(n).ok().and_then(|n| s.checked_mul(n));
    }
    Ok(meta)
}

/// An array literal: nested lists (ragged rows give a `var` dimension),
/// Rust expressions (`Option`s among them), and `null` or `None` for NA.
/// The type is [inferred](crate::array::infer_type).
///
/// ```
/// let a = dynd::nd::array![[1, 2, 3], [4, 5, 6]];
/// assert_eq!(a.ty().to_string(), "2 * 3 * int64");
/// let b = dynd::nd::array![1.5, null];
/// assert_eq!(b.ty().to_string(), "2 * ?float64");
/// let c = dynd::nd::array![Some(1.5), None];
/// assert_eq!(c.to_string(), b.to_string());
/// ```
///
/// # Panics
///
/// If the literal mixes values with no common type (`[1, "a"]`), which is
/// a mistake in the source, like a type error.
#[macro_export]
macro_rules! array {
    ($($t:tt)*) => {
        match $crate::Array::from_value(&$crate::__value!([$($t)*]), ::core::option::Option::None) {
            ::core::result::Result::Ok(a) => a,
            ::core::result::Result::Err(e) => ::core::panic!("array! literal: {}", e),
        }
    };
}
