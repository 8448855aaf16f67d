//! Missing values: an array of `?T` seen as its values and its validity.
//!
//! A `?T` element is the value's bytes followed by one validity byte (1
//! present, 0 NA; an NA element's value bytes are zero). So an option
//! array is two strided arrays over the same memory — the values (type
//! `T`) and the validity (`bool`) — and [`ArrayOps::option_parts`](crate::ops::ArrayOps::option_parts) gives both
//! as views, without copying. Reductions work on those: the values folded
//! where the validity says, the NA count from the validity alone. The way
//! back, [`ArrayOps::from_option_parts`](crate::ops::ArrayOps::from_option_parts), builds a `?T` array from values and
//! validity of one shape. NA and NaN stay apart: a NaN value is present
//! (it is data), and an NA slot reads as zero, never NaN.
//!
//! ```
//! use dynd::nd::{Array, ArrayOps};
//!
//! let a = Array::from_json("[[1.5, null], [null, 4]]", Some(&"2 * 2 * ?float64".parse()?))?;
//! let (values, valid) = a.option_parts().expect("an option array");
//! assert_eq!(values.to_string(), "[[1.5, 0], [0, 4]]");
//! assert_eq!(valid.to_string(), "[[true, false], [false, true]]");
//! assert_eq!(a.null_count()?, 2);
//! let back = Array::from_option_parts(&values, &valid)?;
//! assert_eq!(back.to_string(), a.to_string());
//! # Ok::<(), dynd::Error>(())
//! ```

use std::sync::Arc;

use dynd_types::{Scalar, Type, TypeKind};

use crate::array::Array;
use crate::arrmeta::Arrmeta;
use crate::elwise::{apply, Leaf};
use crate::error::Error;
use crate::with_numeric;

/// [`ArrayOps::option_parts`](crate::ops::ArrayOps::option_parts).
pub(crate) fn option_parts(this: &Array) -> Option<(Array, Array)> {
    let TypeKind::Option(inner) = this.dtype().kind() else {
        return None;
    };
    let s = inner.as_scalar()?;
    let size = inner.data_layout().ok()?.size;
    let values = element_view(this, s, 0)?;
    let valid = element_view(this, Scalar::Bool, size)?;
    Some((values, valid))
}

/// The validity flags of a `?T` array of any `T` (records too), a view.
fn validity(this: &Array) -> Option<Array> {
    let TypeKind::Option(inner) = this.dtype().kind() else {
        return None;
    };
    element_view(this, Scalar::Bool, inner.data_layout().ok()?.size)
}

/// A view of this array whose elements are the `s` at byte `at` of
/// each of its `?S` elements: the same dimensions over the same
/// memory. Built through the checked constructor, so the view's
/// extent is proven inside its blocks.
fn element_view(this: &Array, s: Scalar, at: usize) -> Option<Array> {
    let ty = Type::with_dims(this.shape(), s.into()).ok()?;
    let (meta, offset) = shift_leaf(this.arrmeta(), at)?;
    let offset = match offset {
        Shift::Data => this.data_offset().checked_add(at)?,
        Shift::Values => this.data_offset(),
    };
    Array::try_from_parts(ty, Arc::new(meta), this.data_block().clone(), offset).ok()
}

/// [`ArrayOps::from_option_parts`](crate::ops::ArrayOps::from_option_parts).
pub(crate) fn from_option_parts(values: &Array, valid: &Array) -> Result<Array, Error> {
    if valid.dtype().as_scalar() != Some(Scalar::Bool) {
        return Err(Error::ArgumentType {
            arg: 1,
            found: valid.dtype().clone(),
            expected: Scalar::Bool.into(),
            what: "from_option_parts".into(),
        });
    }
    let unsupported = || Error::Unsupported {
        operation: "an option of this data type from values and validity",
        ty: values.ty().clone(),
    };
    let Some(s) = values.dtype().as_scalar() else {
        // Records and other compound values: each value's bytes and flag.
        return Array::optional(values, valid);
    };
    if s == Scalar::String {
        return apply(&[values, valid], &Leaf::text_option());
    }
    with_numeric!(s, T => apply(
        &[values, valid],
        &Leaf::map(|v: T, ok: bool| ok.then_some(v)),
    ), Err(unsupported()))
}

/// [`ArrayOps::is_na`](crate::ops::ArrayOps::is_na).
pub(crate) fn is_na(this: &Array) -> Result<Array, Error> {
    if let Some(valid) = validity(this) {
        return crate::elwise::map1(&valid, |ok: bool| !ok);
    }
    if !this.ty().has_var_dim() {
        return Array::zeros(&Type::with_dims(this.shape(), Scalar::Bool.into())?);
    }
    let unsupported = || Error::Unsupported {
        operation: "telling NA in var dimensions of this data type",
        ty: this.ty().clone(),
    };
    let s = this.dtype().as_scalar().ok_or_else(unsupported)?;
    with_numeric!(s, T => crate::elwise::map1(this, |_: T| false), Err(unsupported()))
}

/// [`ArrayOps::null_count`](crate::ops::ArrayOps::null_count).
pub(crate) fn null_count(this: &Array) -> Result<usize, Error> {
    let Some(valid) = validity(this) else {
        return Ok(0);
    };
    let all = crate::reduce::count(&valid, None, false, None, "null_count")?;
    let present = crate::reduce::count(&valid, None, false, Some(&valid), "null_count")?;
    let n = all.get::<i64>(&[])? - present.get::<i64>(&[])?;
    Ok(n as usize)
}

/// Where a view's byte shift goes.
enum Shift {
    /// Into the array's offset in its data block (no `var` dimension).
    Data,
    /// Into the innermost `var` dimension's offset in its values block.
    Values,
}

/// `m` with the `?S` element record replaced by the view's (the value's
/// own record at byte 0, a string's text block included; a flag's past
/// it), and the shift by `by` bytes placed where the elements are: the
/// innermost `var` dimension's values offset, or the array's own offset.
fn shift_leaf(m: &Arrmeta, by: usize) -> Option<(Arrmeta, Shift)> {
    match m {
        // The value (at 0) of a scalar or string, or the flag after any value.
        Arrmeta::Option(inner)
            if by > 0 || matches!(**inner, Arrmeta::Scalar | Arrmeta::Text { .. }) =>
        {
            let leaf = if by == 0 {
                (**inner).clone()
            } else {
                Arrmeta::Scalar
            };
            Some((leaf, Shift::Data))
        }
        Arrmeta::Fixed {
            size,
            stride,
            element,
        } => {
            let (e, shift) = shift_leaf(element, by)?;
            Some((
                Arrmeta::Fixed {
                    size: *size,
                    stride: *stride,
                    element: Box::new(e),
                },
                shift,
            ))
        }
        Arrmeta::Var {
            values,
            offset,
            stride,
            element,
            ..
        } => {
            let (e, shift) = shift_leaf(element, by)?;
            let offset = match shift {
                Shift::Data => offset.checked_add(by)?,
                Shift::Values => *offset,
            };
            Some((
                Arrmeta::Var {
                    values: values.clone(),
                    offset,
                    stride: *stride,
                    // The view's elements are narrower than their stride:
                    // not one flat run of them.
                    packed: false,
                    element: Box::new(e),
                },
                Shift::Values,
            ))
        }
        _ => None,
    }
}
