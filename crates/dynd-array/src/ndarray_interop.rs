//! `ndarray` arrays in and out, without copying where the memory can be
//! shared (feature `ndarray`, built against ndarray 0.17, re-exported
//! here as [`ndarray`] so a crate can use the very version
//! dynd's impls are for).
//!
//! - An owned `ndarray::Array` becomes a dynd [`Array`] over the same
//!   memory, in whatever memory order and with whatever strides it has
//!   ([`From`] for 0 to 6 dimensions, [`TryFrom`] for `ArrayD`); a view
//!   (`ArrayView`, `ArrayViewMut`) is copied once, since a dynd array owns
//!   (shares) its memory and a view borrows another's.
//! - [`Array::as_ndarray`] borrows any array of fixed dimensions as an
//!   `ArrayViewD`, negative and zero strides included;
//!   [`Array::as_ndarray_dim`] as an `ArrayView` of a fixed number of
//!   dimensions (`Ix2`), and [`Array::to_ndarray`] copies into an owned
//!   `ndarray::Array` of one.
//! - [`Array::from_ndarray`] takes any of these and, given an array of
//!   another ndarray version, fails to compile with a message that names
//!   the version dynd needs.
//!
//! Ragged (`var`) dimensions, options, strings and strides that are not
//! whole elements have no ndarray form: those are errors that say so.
//!
//! ```
//! use dynd::nd::Array;
//! use ndarray::{array, Axis, Ix2}; // or dynd::nd::ndarray_interop::ndarray
//!
//! let m = array![[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]];
//! let at = m.as_ptr();
//! let a = Array::from(m.reversed_axes()); // F order: no copy
//! assert_eq!(a.ty().to_string(), "3 * 2 * float64");
//! assert_eq!(a.as_ndarray::<f64>()?.as_ptr(), at);
//!
//! // A dynd result viewed by ndarray, with its number of dimensions.
//! let v = a.as_ndarray_dim::<f64, Ix2>()?;
//! assert_eq!(v.sum_axis(Axis(1)).to_vec(), [5.0, 7.0, 9.0]);
//! let owned: ndarray::Array2<f64> = a.to_ndarray()?;
//! assert_eq!(owned, v);
//!
//! // A borrowed view goes in as a copy.
//! let b = Array::from(owned.slice(ndarray::s![.., 1]));
//! assert_eq!(b.to_string(), "[4, 5, 6]");
//! # Ok::<(), dynd::Error>(())
//! ```

/// The ndarray crate, at the version these conversions are for (0.17).
pub use ndarray;

use std::sync::Arc;

use dynd_types::{Dim, Type, TypeKind};
use ndarray::{ArrayView, ArrayViewD, ArrayViewMut, Axis, Dimension, IxDyn, ShapeBuilder};

use crate::array::Array;
use crate::arrmeta::Arrmeta;
use crate::element::Element;
use crate::error::Error;
use crate::memory::MemoryBlock;

fn no_view(a: &Array, expected: &'static str) -> Error {
    Error::NeedsArray {
        op: "as_ndarray".into(),
        expected,
        found: a.ty().clone(),
    }
}

/// A dynd array over an ndarray array's memory: `vec` holds the
/// elements, the first logical one at index `first`, `strides` apart (in
/// elements).
fn from_parts<T: Element>(
    shape: &[usize],
    strides: &[isize],
    vec: Vec<T>,
    first: Option<usize>,
) -> Result<Array, Error> {
    let size = std::mem::size_of::<T>();
    let ty = Type::with_dims(shape.iter().map(|&n| Dim::Fixed(n)), T::SCALAR.into())?;
    let mut meta = Arrmeta::Scalar;
    for (&n, &s) in shape.iter().zip(strides).rev() {
        meta = Arrmeta::Fixed {
            size: n,
            stride: s * size as isize,
            element: Box::new(meta),
        };
    }
    let offset = first.unwrap_or(0) * size;
    Array::try_from_parts(ty, Arc::new(meta), MemoryBlock::from_vec(vec), offset)
}

macro_rules! from_ndarray {
    ($($d:ty),*) => {$(
        impl<T: Element> From<ndarray::Array<T, $d>> for Array {
            /// The ndarray array's elements, not copied, in its memory
            /// order and strides.
            fn from(a: ndarray::Array<T, $d>) -> Array {
                // At most 6 dimensions, each element inside the vector:
                // the type and layout are always valid.
                match a.into_dynd() {
                    Ok(a) => a,
                    Err(e) => unreachable!("an ndarray array's layout is valid: {e}"),
                }
            }
        }
    )*};
}
from_ndarray!(
    ndarray::Ix0,
    ndarray::Ix1,
    ndarray::Ix2,
    ndarray::Ix3,
    ndarray::Ix4,
    ndarray::Ix5,
    ndarray::Ix6
);

impl<T: Element> TryFrom<ndarray::ArrayD<T>> for Array {
    type Error = Error;

    /// The ndarray array's elements, not copied, in its memory order and
    /// strides.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] for more dimensions than a type holds.
    fn try_from(a: ndarray::ArrayD<T>) -> Result<Array, Error> {
        a.into_dynd()
    }
}

impl<T: Element, D: Dimension> From<ArrayView<'_, T, D>> for Array {
    /// The view's elements, copied once in its logical (C) order: a dynd
    /// array shares memory it owns, and a view borrows another's.
    fn from(v: ArrayView<'_, T, D>) -> Array {
        let shape = v.shape().to_vec();
        let strides = c_strides(&shape);
        let vec: Vec<T> = v.iter().copied().collect();
        match from_parts(&shape, &strides, vec, None) {
            Ok(a) => a,
            Err(e) => unreachable!("a C-order copy's layout is valid: {e}"),
        }
    }
}

impl<T: Element, D: Dimension> From<ArrayViewMut<'_, T, D>> for Array {
    /// As the `ArrayView` conversion: the elements copied once.
    fn from(v: ArrayViewMut<'_, T, D>) -> Array {
        Array::from(v.view())
    }
}

/// The strides, in elements, of C order over `shape`.
fn c_strides(shape: &[usize]) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut step = 1isize;
    for (s, &n) in strides.iter_mut().zip(shape).rev() {
        *s = step;
        step *= n.max(1) as isize;
    }
    strides
}

/// An ndarray 0.17 array or view that [`Array::from_ndarray`] takes.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an ndarray 0.17 array or view of dynd element type",
    note = "dynd's `ndarray` feature is built against ndarray 0.17: depend on `ndarray = \"0.17\"`, \
            or use the version dynd re-exports as `dynd::nd::ndarray_interop::ndarray`"
)]
pub trait FromNdarray: sealed::Sealed {
    /// The dynd array.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] for more dimensions than a type holds.
    fn into_dynd(self) -> Result<Array, Error>;
}

mod sealed {
    /// The ndarray types [`FromNdarray`](super::FromNdarray) is for.
    pub trait Sealed {}
}

impl<T: Element, D: Dimension> sealed::Sealed for ndarray::Array<T, D> {}
impl<T: Element, D: Dimension> FromNdarray for ndarray::Array<T, D> {
    fn into_dynd(self) -> Result<Array, Error> {
        let shape = self.shape().to_vec();
        let strides = self.strides().to_vec();
        let (vec, first) = self.into_raw_vec_and_offset();
        from_parts(&shape, &strides, vec, first)
    }
}

impl<T: Element, D: Dimension> sealed::Sealed for ArrayView<'_, T, D> {}
impl<T: Element, D: Dimension> FromNdarray for ArrayView<'_, T, D> {
    fn into_dynd(self) -> Result<Array, Error> {
        Ok(Array::from(self))
    }
}

impl<T: Element, D: Dimension> sealed::Sealed for ArrayViewMut<'_, T, D> {}
impl<T: Element, D: Dimension> FromNdarray for ArrayViewMut<'_, T, D> {
    fn into_dynd(self) -> Result<Array, Error> {
        Ok(Array::from(self))
    }
}

impl Array {
    /// An array from an ndarray 0.17 array (its memory shared, not
    /// copied) or view (copied once): any number of dimensions. An array
    /// of another ndarray version is a compile error that names 0.17.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] for more dimensions than a type holds.
    pub fn from_ndarray<A: FromNdarray>(a: A) -> Result<Array, Error> {
        a.into_dynd()
    }

    /// [`Array::as_ndarray`] with `D` dimensions (`Ix1`, `Ix2`, ...): an
    /// `ArrayView<T, D>` of this array's memory.
    ///
    /// # Errors
    ///
    /// As [`Array::as_ndarray`], and [`Error::NeedsArray`] for another
    /// number of dimensions.
    pub fn as_ndarray_dim<T: Element, D: Dimension>(&self) -> Result<ArrayView<'_, T, D>, Error> {
        self.as_ndarray::<T>()?
            .into_dimensionality::<D>()
            .map_err(|_| Error::NeedsArray {
                op: "as_ndarray_dim".into(),
                expected: dims_text(D::NDIM),
                found: self.ty().clone(),
            })
    }

    /// The elements copied into an owned `ndarray::Array<T, D>` (C
    /// order): `let m: Array2<f64> = a.to_ndarray()?`.
    ///
    /// # Errors
    ///
    /// As [`Array::as_ndarray_dim`].
    pub fn to_ndarray<T: Element, D: Dimension>(&self) -> Result<ndarray::Array<T, D>, Error> {
        Ok(self.as_ndarray_dim::<T, D>()?.to_owned())
    }

    /// The array as an ndarray view of its memory, without copying: any
    /// fixed dimensions and strides (negative, zero), elements of type
    /// `T`.
    ///
    /// # Errors
    ///
    /// [`Error::DtypeMismatch`] if the elements are not `T`s;
    /// [`Error::NeedsArray`] saying what it takes, for `var` dimensions or strides
    /// that are not a whole number of elements (a field of a struct).
    pub fn as_ndarray<T: Element>(&self) -> Result<ArrayViewD<'_, T>, Error> {
        if self.dtype().as_scalar() != Some(T::SCALAR) {
            return Err(Error::DtypeMismatch {
                actual: self.dtype().clone(),
                requested: T::SCALAR.into(),
            });
        }
        let mut ty = self.ty();
        let mut meta = self.arrmeta();
        let (mut shape, mut strides) = (Vec::new(), Vec::new());
        let size = std::mem::size_of::<T>() as isize;
        while let TypeKind::Dim(dim, element) = ty.kind() {
            let (
                Dim::Fixed(_),
                Arrmeta::Fixed {
                    size: n,
                    stride,
                    element: inner,
                },
            ) = (dim, meta)
            else {
                return Err(no_view(
                    self,
                    "fixed dimensions (var dimensions are not strided; to_nested copies them)",
                ));
            };
            if stride % size != 0 {
                return Err(no_view(
                    self,
                    "strides that are whole numbers of elements (cast to copy it)",
                ));
            }
            shape.push(*n);
            strides.push(stride / size);
            ty = element;
            meta = inner;
        }
        // ndarray takes non-negative strides from the lowest address:
        // start there, and invert the axes that run backwards.
        let empty = shape.contains(&0);
        let mut first = self.data_ptr();
        let mut backwards = Vec::new();
        for (k, (n, s)) in shape.iter().zip(strides.iter_mut()).enumerate() {
            if *s < 0 {
                if !empty {
                    first = first.wrapping_offset((*n as isize - 1) * *s * size);
                }
                *s = -*s;
                backwards.push(k);
            }
        }
        let strides: Vec<usize> = strides.iter().map(|&s| s as usize).collect();
        let dims = IxDyn(&shape).strides(IxDyn(&strides));
        // SAFETY: the array was validated where it was made: every element
        // its fixed dimensions reach lies inside its block, aligned for `T`
        // (the data type is `T`, checked first), and `first` is the lowest
        // of them, so moving from it along the now non-negative strides
        // stays inside the one allocation. The view borrows `self`, which
        // holds the block: while it lives the memory is shared, so no array
        // writes it (writes need the only owner), and the block outlives
        // the borrow.
        let mut view = unsafe { ArrayViewD::from_shape_ptr(dims, first.cast::<T>()) };
        for k in backwards {
            view.invert_axis(Axis(k));
        }
        debug_assert_eq!(view.ndim(), shape.len());
        Ok(view)
    }
}

/// What [`Array::as_ndarray_dim`] takes, for its error.
fn dims_text(n: Option<usize>) -> &'static str {
    const TEXT: [&str; 7] = [
        "an array of 0 dimensions (a scalar)",
        "an array of 1 fixed dimension",
        "an array of 2 fixed dimensions",
        "an array of 3 fixed dimensions",
        "an array of 4 fixed dimensions",
        "an array of 5 fixed dimensions",
        "an array of 6 fixed dimensions",
    ];
    n.and_then(|n| TEXT.get(n).copied())
        .unwrap_or("an array of fixed dimensions")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ix_dyn_shapes_build() {
        let a = ndarray::ArrayD::from_shape_vec(IxDyn(&[2, 1, 3]), (0..6).collect::<Vec<i32>>())
            .unwrap();
        let d = Array::try_from(a).unwrap();
        assert_eq!(d.ty().to_string(), "2 * 1 * 3 * int32");
        assert_eq!(d.as_ndarray::<i32>().unwrap().raw_dim(), IxDyn(&[2, 1, 3]));
    }
}
