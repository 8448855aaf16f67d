//! [`IntoArray`]: what a call takes as an array argument (arrays, Rust
//! scalars, vectors, nested vectors, strings).

use crate::value::{IntoValue, Value};

/// Anything that can be an array argument: arrays (by value or borrowed,
/// shared without copying), scalars, `Vec`s and slices of scalars
/// (a `Vec` is taken over without copying), nested `Vec`s (ragged ones
/// give `var` dimensions; the data type is the element type's, not
/// inferred), `Option`s of scalars in them (`?T`, `None` as NA), strings.
///
/// ```
/// use dynd::nd::IntoArray;
///
/// let a = vec![vec![1.5f32], vec![2.0, 3.0]].into_array()?;
/// assert_eq!(a.ty().to_string(), "2 * var * float32");
/// assert_eq!(7u8.into_array()?.ty().to_string(), "uint8");
/// let o = vec![vec![Some(1.0), None], vec![]].into_array()?;
/// assert_eq!(o.ty().to_string(), "2 * var * ?float64");
/// # Ok::<(), dynd::Error>(())
/// ```
pub trait IntoArray {
    /// The array.
    ///
    /// # Errors
    ///
    /// [`crate::Error`] when nested values do not make an array.
    fn into_array(self) -> Result<crate::Array, crate::Error>;

    /// The array as an argument: borrowed when it is one already (no
    /// reference counts touched), made otherwise.
    ///
    /// # Errors
    ///
    /// As [`IntoArray::into_array`].
    fn into_arg<'a>(self) -> Result<std::borrow::Cow<'a, crate::Array>, crate::Error>
    where
        Self: Sized + 'a,
    {
        self.into_array().map(std::borrow::Cow::Owned)
    }
}

impl IntoArray for crate::Array {
    fn into_array(self) -> Result<crate::Array, crate::Error> {
        Ok(self)
    }
}

impl IntoArray for &crate::Array {
    fn into_array(self) -> Result<crate::Array, crate::Error> {
        Ok(self.clone())
    }

    fn into_arg<'a>(self) -> Result<std::borrow::Cow<'a, crate::Array>, crate::Error>
    where
        Self: 'a,
    {
        Ok(std::borrow::Cow::Borrowed(self))
    }
}

impl<T: crate::Element> IntoArray for T {
    fn into_array(self) -> Result<crate::Array, crate::Error> {
        Ok(crate::Array::from_scalar(self))
    }
}

impl<T: crate::Element> IntoArray for Vec<T> {
    fn into_array(self) -> Result<crate::Array, crate::Error> {
        Ok(crate::Array::from_vec(self))
    }
}

impl<T: crate::Element> IntoArray for &[T] {
    fn into_array(self) -> Result<crate::Array, crate::Error> {
        Ok(crate::Array::from_slice(self))
    }
}

/// Nested values as an array whose data type is `T`'s.
fn nested<T: crate::Element>(v: Value) -> Result<crate::Array, crate::Error> {
    let inferred = crate::infer_type(&v)?;
    let (dims, _) = inferred.split_dims();
    let ty = dynd_types::Type::with_dims(dims.into_iter().cloned(), T::SCALAR.into())?;
    crate::Array::from_value(&v, Some(&ty))
}

impl<T: crate::Element + IntoValue> IntoArray for Vec<Vec<T>> {
    fn into_array(self) -> Result<crate::Array, crate::Error> {
        nested::<T>(self.into_value())
    }
}

impl<T: crate::Element + IntoValue> IntoArray for Vec<Vec<Vec<T>>> {
    fn into_array(self) -> Result<crate::Array, crate::Error> {
        nested::<T>(self.into_value())
    }
}

impl IntoArray for &str {
    fn into_array(self) -> Result<crate::Array, crate::Error> {
        crate::Array::from_value(&Value::Str(self.to_string()), None)
    }
}

impl IntoArray for String {
    fn into_array(self) -> Result<crate::Array, crate::Error> {
        crate::Array::from_value(&Value::Str(self), None)
    }
}
