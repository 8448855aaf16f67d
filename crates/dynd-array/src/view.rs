//! Views: indexing, slicing and axis permutation without copying.
//!
//! A view shares its array's memory blocks and differs only in its type,
//! arrmeta and offset. Python's rules apply: negative indexes count from the
//! end, a slice `start:stop:step` may step backwards, an integer index drops
//! its dimension.
//!
//! ```
//! use dynd::nd::{array, Index};
//!
//! let a = array![[1, 2, 3], [4, 5, 6]];
//! let v = a.index(&[Index::slice(None, None, -1), Index::At(1)])?;
//! assert_eq!(v.to_string(), "[5, 2]");
//! assert_eq!(v.data_block().as_ptr(), a.data_block().as_ptr()); // no copy
//! assert_eq!(a.transpose()?.to_string(), "[[1, 4], [2, 5], [3, 6]]");
//!
//! let r = array![[1, 2, 3], [4]];
//! assert_eq!(r.index(&[Index::At(0), Index::slice(Some(1), None, 1)])?.to_string(), "[2, 3]");
//! # Ok::<(), dynd::Error>(())
//! ```

use std::sync::Arc;

use dynd_types::{Dim, LayoutProblem, Scalar, Type, TypeKind};

use crate::array::Array;
use crate::arrmeta::{read_pair, write_pair, Arrmeta, PAIR_SIZE};
use crate::error::Error;
use crate::memory::MemoryBlock;

/// One entry of an index: an integer or a slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Index {
    /// One element; the dimension is dropped. Negative counts from the end.
    At(i64),
    /// `start:stop:step`, Python's slice; `None` is the default end.
    Slice {
        /// First index (default: the start in the step's direction).
        start: Option<i64>,
        /// One past the last index (default: the end in the step's direction).
        stop: Option<i64>,
        /// Step, not zero.
        step: i64,
    },
}

impl Index {
    /// `:`, the whole dimension.
    pub const ALL: Index = Index::Slice {
        start: None,
        stop: None,
        step: 1,
    };

    /// `start:stop:step`.
    pub fn slice(start: Option<i64>, stop: Option<i64>, step: i64) -> Index {
        Index::Slice { start, stop, step }
    }
}

/// The sizes of a shape for [`Array::reshape`]: a slice, array or `Vec`
/// of any integer type, `-1` (in a signed type) standing for the one size
/// inferred from the others.
pub trait Shape {
    /// The sizes as `i64`; a size past `i64::MAX` saturates to it, which
    /// no array holds.
    fn sizes(&self) -> Vec<i64>;
}

/// An integer a shape's size may be given in.
pub trait ShapeSize: Copy {
    /// The size as `i64` (saturating).
    fn to_i64(self) -> i64;
}

macro_rules! shape_size {
    ($($t:ty),*) => {$(
        impl ShapeSize for $t {
            fn to_i64(self) -> i64 {
                i64::try_from(self).unwrap_or(i64::MAX)
            }
        }
    )*};
}
shape_size!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

impl<T: ShapeSize> Shape for &[T] {
    fn sizes(&self) -> Vec<i64> {
        self.iter().map(|&n| n.to_i64()).collect()
    }
}

impl<T: ShapeSize, const N: usize> Shape for [T; N] {
    fn sizes(&self) -> Vec<i64> {
        self.as_slice().sizes()
    }
}

impl<T: ShapeSize, const N: usize> Shape for &[T; N] {
    fn sizes(&self) -> Vec<i64> {
        self.as_slice().sizes()
    }
}

impl<T: ShapeSize> Shape for Vec<T> {
    fn sizes(&self) -> Vec<i64> {
        self.as_slice().sizes()
    }
}

impl<T: ShapeSize> Shape for &Vec<T> {
    fn sizes(&self) -> Vec<i64> {
        self.as_slice().sizes()
    }
}

/// The first element and count of a slice of a dimension of size `n`, as
/// Python computes them: any `i64` start, stop and step (but 0) clamps to
/// the dimension, in 128-bit arithmetic, so nothing wraps.
fn slice_range(
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
    n: usize,
) -> Result<(i64, usize), Error> {
    if step == 0 {
        return Err(Error::ZeroStep);
    }
    let n = n as i128;
    let step = step as i128;
    let norm = |i: i64| {
        let i = i as i128;
        if i < 0 {
            i + n
        } else {
            i
        }
    };
    let (first, count) = if step > 0 {
        let start = start.map_or(0, norm).clamp(0, n);
        let stop = stop.map_or(n, norm).clamp(0, n);
        let count = if stop > start {
            // A unit step, the common case (once per ragged row), needs no
            // 128-bit division.
            if step == 1 {
                stop - start
            } else {
                (stop - start + step - 1) / step
            }
        } else {
            0
        };
        (start, count)
    } else {
        let start = start.map_or(n - 1, norm).clamp(-1, n - 1);
        let stop = stop.map_or(-1, norm).clamp(-1, n - 1);
        let count = if start > stop {
            (start - stop - step - 1) / -step
        } else {
            0
        };
        (start, count)
    };
    // Both lie in -1..=n, and n came from a usize that indexes memory.
    match (i64::try_from(first), usize::try_from(count)) {
        (Ok(first), Ok(count)) => Ok((first, count)),
        _ => Err(Error::Size {
            what: "a slice's range",
            values: vec![("dimension size", n)],
        }),
    }
}

/// `i * stride` added to `offset`, or an error naming the overflow.
fn advance(offset: isize, i: i64, stride: isize) -> Result<isize, Error> {
    isize::try_from(i)
        .ok()
        .and_then(|i| i.checked_mul(stride))
        .and_then(|d| offset.checked_add(d))
        .ok_or_else(|| Error::Size {
            what: "an element's byte offset",
            values: vec![
                ("index", i.into()),
                ("stride", stride as i128),
                ("offset", offset as i128),
            ],
        })
}

/// The stride of sliced `var` rows: `stride * step`; when that overflows,
/// no row can hold two elements of the slice (a row's extent fits in
/// memory), so any stride of the step's sign serves (and the view is
/// validated like any other).
fn row_stride(stride: isize, step: i64) -> isize {
    step_stride(stride, step).unwrap_or(if step < 0 { -stride } else { stride })
}

/// The (start, length) pair at byte `at` of `bytes`.
fn pair(bytes: &[u8], at: isize) -> Result<(u64, u64), Error> {
    usize::try_from(at)
        .ok()
        .and_then(|at| bytes.get(at..at.checked_add(PAIR_SIZE)?))
        .map(read_pair)
        .ok_or_else(|| {
            Error::Layout(Box::new(LayoutProblem::Read {
                op: "a view".into(),
                part: "a row's (start, length) pair",
            }))
        })
}

/// A slice's stride: `stride * step`, or an error naming the overflow.
fn step_stride(stride: isize, step: i64) -> Result<isize, Error> {
    isize::try_from(step)
        .ok()
        .and_then(|s| s.checked_mul(stride))
        .ok_or_else(|| Error::Size {
            what: "a slice's stride",
            values: vec![("step", step.into()), ("stride", stride as i128)],
        })
}

fn check_at(i: i64, axis: usize, n: usize) -> Result<i64, Error> {
    let j = if i < 0 {
        i as i128 + n as i128
    } else {
        i as i128
    };
    if j < 0 || j >= n as i128 {
        return Err(Error::Index {
            index: i,
            axis,
            size: n,
        });
    }
    Ok(j as i64)
}

/// New (start, length) pairs, in a new C-order block, for a slice of every
/// row of a `var` dimension under the kept fixed dimensions `kept` (whose
/// strides address the pairs in `data` from `offset`). `None` if a kept
/// dimension is `var`.
#[allow(clippy::type_complexity)]
fn reslice_rows(
    data: &Arc<MemoryBlock>,
    offset: isize,
    kept: &[(Dim, Arrmeta)],
    (start, stop, step): (Option<i64>, Option<i64>, i64),
    stride: isize,
) -> Result<Option<(Arc<MemoryBlock>, Vec<(Dim, Arrmeta)>)>, Error> {
    let Some(dims) = kept
        .iter()
        .map(|(_, m)| m.as_fixed().map(|(n, s, _)| (n, s)))
        .collect::<Option<Vec<(usize, isize)>>>()
    else {
        return Ok(None);
    };
    let count = crate::memory::checked_count(dims.iter().map(|d| d.0))?;
    let mut out = crate::memory::try_zeroed(count, PAIR_SIZE)?;
    let bytes = data.bytes();
    for (k, chunk) in out.chunks_exact_mut(PAIR_SIZE).enumerate() {
        // The old pair of row k (C order over the kept dims).
        let mut rem = k;
        let mut at = offset;
        for &(n, s) in dims.iter().rev() {
            at += (rem % n) as isize * s;
            rem /= n;
        }
        let (row_start, len) = pair(bytes, at)?;
        let (first, n) = slice_range(start, stop, step, len as usize)?;
        let new_start = if n > 0 {
            advance(row_start as i64 as isize, first, stride)?
        } else {
            row_start as i64 as isize
        };
        write_pair(chunk, new_start as u64, n as u64);
    }
    // C-order strides over the new pairs.
    let mut new_kept = Vec::with_capacity(dims.len());
    let mut s = PAIR_SIZE as isize;
    for &(n, _) in dims.iter().rev() {
        new_kept.push((
            Dim::Fixed(n),
            Arrmeta::Fixed {
                size: n,
                stride: s,
                element: Box::new(Arrmeta::Scalar),
            },
        ));
        s *= n as isize;
    }
    new_kept.reverse();
    Ok(Some((MemoryBlock::try_from_bytes(&out)?, new_kept)))
}

impl Array {
    /// A view selecting `index` along the outermost dimensions (missing
    /// trailing entries mean `:`).
    ///
    /// On `var` dimensions: at a single element (every outer dimension
    /// indexed by an integer), integers and slices both work as views; under
    /// kept fixed dimensions a slice gives every row a new (start, length)
    /// pair over the same values (`a[:, 1:3]`), while an integer would need
    /// one offset per row and is refused.
    ///
    /// # Errors
    ///
    /// [`Error::Index`] naming the index, axis and size;
    /// [`Error::IndexCount`] for more entries than dimensions,
    /// [`Error::ZeroStep`] for a zero step;
    /// [`Error::Unsupported`] for an index on a `var` dimension under a kept one.
    pub fn index(&self, index: &[Index]) -> Result<Array, Error> {
        if let Some(r) = self.map_columns(|c| c.index(index)) {
            return r;
        }
        let (dims, _) = self.ty().split_dims();
        if index.len() > dims.len() {
            return Err(Error::IndexCount {
                given: index.len(),
                ty: self.ty().clone(),
                ndim: dims.len(),
            });
        }
        let mut data = self.data_block().clone();
        let mut offset = self.data_offset() as isize;
        let mut kept: Vec<(Dim, Arrmeta)> = Vec::new();
        let mut ty = self.ty();
        let mut meta = self.arrmeta();
        for (axis, idx) in index.iter().enumerate() {
            let TypeKind::Dim(_, elem_ty) = ty.kind() else {
                unreachable!()
            };
            match meta {
                Arrmeta::Fixed {
                    size,
                    stride,
                    element,
                } => {
                    match *idx {
                        Index::At(i) => {
                            offset = advance(offset, check_at(i, axis, *size)?, *stride)?
                        }
                        Index::Slice { start, stop, step } => {
                            let (first, count) = slice_range(start, stop, step, *size)?;
                            if count > 0 {
                                offset = advance(offset, first, *stride)?;
                            }
                            kept.push((
                                Dim::Fixed(count),
                                Arrmeta::Fixed {
                                    size: count,
                                    stride: if count > 1 {
                                        step_stride(*stride, step)?
                                    } else {
                                        *stride
                                    },
                                    element: Box::new(Arrmeta::Scalar),
                                },
                            ));
                        }
                    }
                    meta = element;
                }
                Arrmeta::Var {
                    values,
                    offset: voff,
                    stride,
                    element,
                    packed,
                } => {
                    if !kept.is_empty() {
                        if let Index::Slice {
                            start: s0,
                            stop,
                            step,
                        } = *idx
                        {
                            if *idx != Index::ALL {
                                // Every row gets a new (start, length) pair over the same values.
                                let (new_data, new_kept) =
                                    reslice_rows(&data, offset, &kept, (s0, stop, step), *stride)?
                                        .ok_or_else(|| {
                                            Error::Unsupported {
                                    operation:
                                        "a slice of a var dimension under a kept var dimension",
                                    ty: self.ty().clone(),
                                }
                                        })?;
                                data = new_data;
                                offset = 0;
                                kept = new_kept;
                                kept.push((
                                    Dim::Var,
                                    Arrmeta::Var {
                                        values: values.clone(),
                                        offset: *voff,
                                        stride: row_stride(*stride, step),
                                        packed: false,
                                        element: Box::new(Arrmeta::Scalar),
                                    },
                                ));
                                meta = element;
                                ty = elem_ty;
                                continue;
                            }
                        } else {
                            return Err(Error::Unsupported {
                                operation: "an integer index on a var dimension under a kept dimension \
                                            (each row would need its own offset; take a slice, or index each row)",
                                ty: self.ty().clone(),
                            });
                        }
                        kept.push((
                            Dim::Var,
                            Arrmeta::Var {
                                values: values.clone(),
                                offset: *voff,
                                stride: *stride,
                                packed: *packed,
                                element: Box::new(Arrmeta::Scalar),
                            },
                        ));
                        meta = element;
                        ty = elem_ty;
                        continue;
                    }
                    let (start, len) = pair(data.bytes(), offset)?;
                    let row0 = advance(*voff as isize, 1, start as i64 as isize)?;
                    match *idx {
                        Index::At(i) => {
                            let j = check_at(i, axis, len as usize)?;
                            data = values.clone();
                            offset = advance(row0, j, *stride)?;
                        }
                        Index::Slice {
                            start: s0,
                            stop,
                            step,
                        } => {
                            let (first, count) = slice_range(s0, stop, step, len as usize)?;
                            // A new (start, length) pair over the same values:
                            // element 0 of the view's row is the slice's first.
                            let new_offset = if count > 0 {
                                advance(row0, first, *stride)?
                            } else {
                                row0
                            };
                            let mut pair = [0u8; PAIR_SIZE];
                            write_pair(&mut pair, 0, count as u64);
                            data = MemoryBlock::from_bytes(&pair);
                            offset = 0;
                            kept.push((
                                Dim::Var,
                                Arrmeta::Var {
                                    values: values.clone(),
                                    offset: usize::try_from(new_offset).map_err(|_| {
                                        Error::Layout(Box::new(LayoutProblem::BeforeBlock {
                                            part: "a row",
                                            ty: self.ty().clone(),
                                        }))
                                    })?,
                                    stride: row_stride(*stride, step),
                                    packed: false,
                                    element: Box::new(Arrmeta::Scalar),
                                },
                            ));
                        }
                    }
                    meta = element;
                }
                _ => unreachable!("a dimension level has fixed or var arrmeta"),
            }
            ty = elem_ty;
        }
        // Rebuild the type and arrmeta: kept dims, then the rest unchanged.
        let mut out_meta = meta.clone();
        let mut out_ty = ty.clone();
        // An integer or a slice other than `:` drops rows (or starts them
        // elsewhere): no `var` level of the view is packed any more.
        let whole = index.iter().all(|i| *i == Index::ALL);
        for (dim, mut m) in kept.into_iter().rev() {
            match &mut m {
                Arrmeta::Fixed { element, .. } | Arrmeta::Var { element, .. } => {
                    **element = out_meta
                }
                _ => unreachable!(),
            }
            out_meta = m;
            out_ty = Type::dim(dim, out_ty)?;
        }
        if !whole {
            out_meta = out_meta.unpacked();
        }
        Array::try_from_parts(
            out_ty,
            Arc::new(out_meta),
            data,
            usize::try_from(offset).map_err(|_| {
                Error::Layout(Box::new(LayoutProblem::BeforeBlock {
                    part: "a view",
                    ty: self.ty().clone(),
                }))
            })?,
        )
    }

    /// The element (or sub-array) at `i` of the outermost dimension.
    ///
    /// # Errors
    ///
    /// As [`Array::index`].
    pub fn at(&self, i: i64) -> Result<Array, Error> {
        self.index(&[Index::At(i)])
    }

    /// A view with the leading fixed dimensions permuted: dimension `k` of
    /// the view is dimension `perm[k]` of this array.
    ///
    /// # Errors
    ///
    /// [`Error::Permutation`] if `perm` is not a permutation of `0..perm.len()`,
    /// or reaches past the leading fixed dimensions.
    pub fn permute_axes(&self, perm: &[usize]) -> Result<Array, Error> {
        if let Some(r) = self.map_columns(|c| c.permute_axes(perm)) {
            return r;
        }
        let mut levels: Vec<(usize, isize)> = Vec::new();
        let mut m = self.arrmeta();
        while let Some((size, stride, element)) = m.as_fixed() {
            if levels.len() == perm.len() {
                break;
            }
            levels.push((size, stride));
            m = element;
        }
        let mut seen = vec![false; perm.len()];
        for &p in perm {
            if p >= levels.len() || std::mem::replace(&mut seen[p], true) {
                return Err(Error::Permutation {
                    perm: perm.to_vec(),
                    ndim: levels.len(),
                    ty: self.ty().clone(),
                });
            }
        }
        let mut ty = self.ty();
        for _ in 0..perm.len() {
            let TypeKind::Dim(_, e) = ty.kind() else {
                unreachable!()
            };
            ty = e;
        }
        // Permuted dimensions read the rows under them in another order.
        let mut out_meta = if perm.iter().enumerate().all(|(k, &p)| k == p) {
            m.clone()
        } else {
            m.unpacked()
        };
        let mut out_ty = ty.clone();
        for &p in perm.iter().rev() {
            let (size, stride) = levels[p];
            out_meta = Arrmeta::Fixed {
                size,
                stride,
                element: Box::new(out_meta),
            };
            out_ty = Type::dim(Dim::Fixed(size), out_ty)?;
        }
        Array::try_from_parts(
            out_ty,
            Arc::new(out_meta),
            self.data_block().clone(),
            self.data_offset(),
        )
    }

    /// A view with a new dimension of size 1 (stride 0) before dimension
    /// `axis` (`axis == ndim` appends it innermost), as NumPy's `newaxis`.
    ///
    /// ```
    /// let a = dynd::nd::array![1, 2, 3];
    /// assert_eq!(a.expand_dims(1)?.ty().to_string(), "3 * 1 * int64");
    /// assert_eq!(a.expand_dims(0)?.to_string(), "[[1, 2, 3]]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::AxisOutOfBounds`] if `axis` is past the number of dimensions.
    pub fn expand_dims(&self, axis: usize) -> Result<Array, Error> {
        if let Some(r) = self.map_columns(|c| c.expand_dims(axis)) {
            return r;
        }
        fn insert(ty: &Type, meta: &Arrmeta, axis: usize) -> Result<(Type, Arrmeta), Error> {
            if axis == 0 {
                let m = Arrmeta::Fixed {
                    size: 1,
                    stride: 0,
                    element: Box::new(meta.clone()),
                };
                return Ok((Type::dim(Dim::Fixed(1), ty.clone())?, m));
            }
            let TypeKind::Dim(d, elem_ty) = ty.kind() else {
                unreachable!("expand_dims checked the axis against the dimensions")
            };
            let mut m = meta.clone();
            let (Arrmeta::Fixed { element, .. } | Arrmeta::Var { element, .. }) = &mut m else {
                unreachable!("a dimension level has fixed or var arrmeta")
            };
            let (t, inner) = insert(elem_ty, element, axis - 1)?;
            **element = inner;
            Ok((Type::dim(d.clone(), t)?, m))
        }
        if axis > self.ndim() {
            return Err(Error::AxisOutOfBounds {
                name: "expand_dims".into(),
                axis: i64::try_from(axis).unwrap_or(i64::MAX),
                ndim: self.ndim(),
            });
        }
        let (ty, meta) = insert(self.ty(), self.arrmeta(), axis)?;
        Array::try_from_parts(
            ty,
            Arc::new(meta),
            self.data_block().clone(),
            self.data_offset(),
        )
    }

    /// The same elements read as the data type `dtype`, stored as this
    /// array's is (a time type as its integers, integers as a time type,
    /// a zoned datetime as the naive one of its unit: its UTC instants;
    /// an option of one as an option of the other): a view.
    ///
    /// ```
    /// use dynd::nd::Array;
    ///
    /// let d = Array::from_json(r#"["1970-01-02", null]"#, Some(&"2 * ?date".parse()?))?;
    /// let days = d.view_as(&"?int32".parse()?)?;
    /// assert_eq!((days.to_string(), days.data_ptr()), ("[1, null]".into(), d.data_ptr()));
    /// assert!(d.view_as(&"?int64".parse()?).is_err());
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] for a data type stored otherwise.
    pub fn view_as(&self, dtype: &Type) -> Result<Array, Error> {
        let (dims, old) = self.ty().split_dims();
        let plain = |t: &Type| match t.kind() {
            TypeKind::Option(inner) => (inner.element_scalar(), true),
            _ => (t.element_scalar(), false),
        };
        let ((a, ao), (b, bo)) = (plain(old), plain(dtype));
        let same = matches!((a, b), (Some(a), Some(b)) if a.storage() == b.storage()
            && !matches!(a.storage(), Scalar::String | Scalar::Bytes));
        if old != dtype && !(same && ao == bo) {
            return Err(Error::Unsupported {
                operation: "a view as a data type stored otherwise",
                ty: dtype.clone(),
            });
        }
        let ty = Type::with_dims(dims.into_iter().cloned(), dtype.clone())?;
        Array::try_from_parts(
            ty,
            self.arrmeta_arc(),
            self.data_block().clone(),
            self.data_offset(),
        )
    }

    /// The view with the leading fixed dimensions in reverse order.
    ///
    /// # Errors
    ///
    /// As [`Array::permute_axes`].
    pub fn transpose(&self) -> Result<Array, Error> {
        let n = self.strides().len();
        let perm: Vec<usize> = (0..n).rev().collect();
        self.permute_axes(&perm)
    }
}

impl Array {
    /// The same elements, in C order, with the fixed shape `shape` (one
    /// entry may be `-1`, inferred from the others): a view sharing memory
    /// when this array is C-contiguous, a C-order copy otherwise.
    ///
    /// ```
    /// use dynd::nd::array;
    ///
    /// let a = array![1, 2, 3, 4, 5, 6];
    /// let m = a.reshape([2, -1])?;
    /// // Sizes may be any integer type (`usize` from a `len()`, say).
    /// assert_eq!(a.reshape([3usize, 2])?.ty().to_string(), "3 * 2 * int64");
    /// assert_eq!((m.to_string(), m.ty().to_string()), ("[[1, 2, 3], [4, 5, 6]]".into(), "2 * 3 * int64".into()));
    /// assert_eq!(m.data_block().as_ptr(), a.data_block().as_ptr()); // a view
    /// assert_eq!(
    ///     a.reshape([4, 2]).unwrap_err().to_string(),
    ///     "cannot reshape 6 elements (6 * int64) into the shape [4, 2]: the shape holds another number of elements"
    /// );
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Reshape`] if the sizes differ, more than one entry is `-1` or
    /// an entry is below `-1`; [`Error::Unsupported`] for `var` dimensions.
    pub fn reshape(&self, shape: impl Shape) -> Result<Array, Error> {
        self.reshape_to(&shape.sizes())
    }

    fn reshape_to(&self, shape: &[i64]) -> Result<Array, Error> {
        if let Some(r) = self.map_columns(|c| c.reshape_to(shape)) {
            return r;
        }
        if self.ty().has_var_dim() {
            return Err(Error::Unsupported {
                operation: "reshaping an array with var dimensions",
                ty: self.ty().clone(),
            });
        }
        let count = crate::memory::checked_count(self.ty().fixed_shape().unwrap_or_default())?;
        let bad = |reason: &'static str| Error::Reshape {
            count,
            ty: self.ty().clone(),
            shape: shape.to_vec(),
            reason,
        };
        if shape.iter().filter(|&&n| n == -1).count() > 1 {
            return Err(bad("only one size may be -1"));
        }
        if shape.iter().any(|&n| n < -1) {
            return Err(bad("sizes are at least 0 (or -1 to infer one)"));
        }
        let known =
            crate::memory::checked_count(shape.iter().filter(|&&n| n >= 0).map(|&n| n as usize))
                .map_err(|_| bad("the sizes' product overflows"))?;
        let infer = if shape.contains(&-1) {
            if known == 0 || count % known != 0 {
                return Err(bad("no size for -1 gives that many elements"));
            }
            count / known
        } else {
            0
        };
        let dims: Vec<usize> = shape
            .iter()
            .map(|&n| if n == -1 { infer } else { n as usize })
            .collect();
        let total = crate::memory::checked_count(dims.iter().copied())
            .map_err(|_| bad("the sizes' product overflows"))?;
        if total != count {
            return Err(bad("the shape holds another number of elements"));
        }
        let src = self.compact()?;
        // The element's record (a string's text block, a struct's fields).
        let mut m = src.arrmeta();
        while let Some((_, _, element)) = m.as_fixed() {
            m = element;
        }
        let dtype = src.dtype().clone();
        let size = dtype.data_layout()?.size;
        let meta = crate::array::c_order_meta(&dims, size, m.clone())?;
        let ty = Type::with_dims(dims.iter().map(|n| Dim::Fixed(*n)), dtype)?;
        Array::try_from_parts(
            ty,
            Arc::new(meta),
            src.data_block().clone(),
            src.data_offset(),
        )
    }
}

impl Array {
    /// The array with its fixed dimensions in C order: itself when they
    /// are already, else a copy of its elements' bytes in C order. What
    /// the elements point into (text, `var` rows) is shared, not copied.
    ///
    /// # Errors
    ///
    /// An allocation error for the copy.
    #[doc(hidden)]
    pub fn compact(&self) -> Result<Array, Error> {
        if self.is_c_contiguous() {
            return Ok(self.clone());
        }
        let mut dims = Vec::new();
        let mut ty = self.ty();
        let mut meta = self.arrmeta();
        while let (TypeKind::Dim(Dim::Fixed(_), inner), Some((size, stride, element))) =
            (ty.kind(), meta.as_fixed())
        {
            dims.push((size, stride));
            ty = inner;
            meta = element;
        }
        let size = ty.data_layout()?.size;
        let shape: Vec<usize> = dims.iter().map(|d| d.0).collect();
        let len = crate::memory::checked_count(shape.iter().copied())?
            .checked_mul(size)
            .ok_or_else(|| Error::Size {
                what: "a copy's size in bytes",
                values: vec![("element size", size as i128)],
            })?;
        let mut block = MemoryBlock::zeroed(len)?;
        let Some(out) = Arc::get_mut(&mut block) else {
            unreachable!("a fresh block has one owner")
        };
        let out = out.bytes_mut();
        let data = self.data_block().bytes();
        let base = self.data_offset() as isize;
        let mut at = 0;
        crate::offsets::for_each_offset(&dims, |o| {
            // The array's extent lies in its block (checked where it was
            // made), so every element's bytes are in `data`.
            let from = (base + o) as usize;
            out[at..at + size].copy_from_slice(&data[from..from + size]);
            at += size;
        });
        let meta = crate::array::c_order_meta(&shape, size, meta.clone())?;
        Array::try_from_parts(self.ty().clone(), Arc::new(meta), block, 0)
    }
}
