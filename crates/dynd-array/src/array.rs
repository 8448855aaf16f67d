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

use dynd_types::{promote_scalars, Dim, Scalar, Type, TypeKind, ValueProblem};

use crate::arrmeta::{read_pair, write_pair, Arrmeta, PAIR_SIZE};
use crate::convert::{ErrorMode, Fail, Num};
use crate::element::{cast_slice, Element};
use crate::error::Error;
use crate::memory::MemoryBlock;
use crate::scalar_io::{read_num, write_num};
use crate::value::{non_finite, Value};

/// A dynamically typed n-dimensional array.
///
/// Cloning an array, and making views of it, shares its memory; an array
/// whose memory is shared is read-only until it is the only owner again
/// (writes then copy on write). Arrays over borrowed `'static` data stay
/// read-only.
#[derive(Clone)]
pub struct Array {
    ty: Type,
    meta: Arc<Arrmeta>,
    /// Dropped by hand, in [`Drop`]: a small block goes back to this
    /// thread's spares without a clone.
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
}

impl Drop for Array {
    #[inline]
    fn drop(&mut self) {
        // SAFETY: `data` is not used again: this is the array's drop.
        let data = unsafe { ManuallyDrop::take(&mut self.data) };
        MemoryBlock::recycle(data);
    }
}

/// Builds the data of one level of a type from values.
enum Builder {
    Scalar(Scalar),
    FixedString(usize, dynd_types::Encoding),
    Option(Box<Builder>, usize),
    Fixed(usize, usize, Box<Builder>),
    Var {
        values: Vec<u8>,
        count: usize,
        elem_size: usize,
        element: Box<Builder>,
    },
    Text {
        bytes: Vec<u8>,
        is_string: bool,
    },
    /// A tuple (no names) or struct.
    Fields {
        offsets: Vec<usize>,
        sizes: Vec<usize>,
        names: Option<Vec<dynd_types::Name>>,
        fields: Vec<Builder>,
    },
}

/// The field types of a tuple or struct type.
fn field_types(ty: &Type) -> Vec<&Type> {
    match ty.kind() {
        TypeKind::Tuple(t) => t.fields.iter().collect(),
        TypeKind::Struct(s) => s.fields.iter().map(|(_, t)| t).collect(),
        _ => Vec::new(),
    }
}

fn unsupported(operation: &'static str, ty: &Type) -> Error {
    Error::Unsupported {
        operation,
        ty: ty.clone(),
    }
}

fn value_error(problem: ValueProblem, path: &[usize]) -> Error {
    Error::FromValue {
        problem: Box::new(problem),
        path: path.to_vec(),
    }
}

/// [`ValueProblem::Length`]: a list of `len` items for a dimension of
/// `size` (in a place of type `ty`).
fn length_error(len: usize, size: usize, ty: &Type, path: &[usize]) -> Error {
    value_error(
        ValueProblem::Length {
            len,
            size,
            ty: ty.clone(),
        },
        path,
    )
}

/// [`ValueProblem::Kind`]: `v` is not `expected` (at a place of type `ty`).
fn kind_error(v: &Value, expected: &'static str, ty: &Type, path: &[usize]) -> Error {
    value_error(
        ValueProblem::Kind {
            value: crate::error::excerpt(&v.to_string()).into(),
            expected,
            ty: ty.clone(),
        },
        path,
    )
}

impl Builder {
    fn new(ty: &Type) -> Result<Builder, Error> {
        Ok(match ty.kind() {
            TypeKind::Scalar(s @ (Scalar::String | Scalar::Bytes)) => Builder::Text {
                bytes: Vec::new(),
                is_string: *s == Scalar::String,
            },
            TypeKind::Scalar(s) => Builder::Scalar(*s),
            TypeKind::FixedString { size, encoding } => Builder::FixedString(*size, *encoding),
            TypeKind::Option(inner) if !inner.is_dim() => {
                Builder::Option(Box::new(Builder::new(inner)?), inner.data_layout()?.size)
            }
            TypeKind::Dim(Dim::Fixed(n), element) => Builder::Fixed(
                *n,
                element.data_layout()?.size,
                Box::new(Builder::new(element)?),
            ),
            TypeKind::Dim(Dim::Var, element) => Builder::Var {
                values: Vec::new(),
                count: 0,
                elem_size: element.data_layout()?.size,
                element: Box::new(Builder::new(element)?),
            },
            TypeKind::Tuple(_) | TypeKind::Struct(_) if !ty.is_symbolic() => {
                let types = field_types(ty);
                Builder::Fields {
                    offsets: ty.field_offsets().unwrap_or_default(),
                    sizes: types
                        .iter()
                        .map(|t| t.data_layout().map(|l| l.size))
                        .collect::<Result<_, _>>()?,
                    names: match ty.kind() {
                        TypeKind::Struct(s) => {
                            Some(s.fields.iter().map(|(n, _)| n.clone()).collect())
                        }
                        _ => None,
                    },
                    fields: types
                        .iter()
                        .map(|t| Builder::new(t))
                        .collect::<Result<_, _>>()?,
                }
            }
            _ if ty.is_symbolic() => {
                return Err(dynd_types::Error::Symbolic {
                    operation: "an array",
                    ty: ty.clone(),
                    reason: "it is a pattern, not a type of data".into(),
                })
            }
            _ => return Err(unsupported("building an array", ty)),
        })
    }

    /// Writes `v` into `out` (the element's bytes). `path` names the element for errors.
    fn write(
        &mut self,
        ty: &Type,
        v: &Value,
        out: &mut [u8],
        path: &mut Vec<usize>,
    ) -> Result<(), Error> {
        match (self, v) {
            (Builder::Option(_, size), Value::Null) => {
                out[*size] = 0;
                Ok(())
            }
            // Text meaning NA ("NA", "null", "") in an option of a
            // non-text type, as a string assignment parses it.
            (Builder::Option(inner, size), Value::Str(text))
                if crate::convert::is_na_text(text.as_bytes())
                    && !matches!(**inner, Builder::Text { .. } | Builder::FixedString(..)) =>
            {
                out[*size] = 0;
                Ok(())
            }
            (Builder::Option(inner, size), v) => {
                let TypeKind::Option(inner_ty) = ty.kind() else {
                    unreachable!()
                };
                inner.write(inner_ty, v, out, path)?;
                out[*size] = 1;
                Ok(())
            }
            (_, Value::Null) => Err(value_error(ValueProblem::Null { ty: ty.clone() }, path)),
            (Builder::Scalar(s), v) => {
                let s = *s;
                let n = match (v, s) {
                    (Value::Bool(b), _) => Num::Bool(*b),
                    (Value::Int(i), _) => Num::Int(*i),
                    (Value::UInt(u), _) => Num::UInt(*u),
                    (Value::Float(x), _) => Num::Float(*x),
                    // `to_json`'s non-finite floats.
                    (Value::Str(t), Scalar::Float16 | Scalar::Float32 | Scalar::Float64)
                        if non_finite(t).is_some() =>
                    {
                        Num::Float(non_finite(t).unwrap_or(f64::NAN))
                    }
                    (Value::List(parts), Scalar::Complex64 | Scalar::Complex128)
                        if parts.len() == 2 =>
                    {
                        let part = |p: &Value| match p {
                            Value::Int(i) => Some(*i as f64),
                            Value::UInt(u) => Some(*u as f64),
                            Value::Float(x) => Some(*x),
                            Value::Str(t) => non_finite(t),
                            _ => None,
                        };
                        match (part(&parts[0]), part(&parts[1])) {
                            (Some(re), Some(im)) => Num::Complex(re, im),
                            _ => return Err(kind_error(v, "a complex number [re, im]", ty, path)),
                        }
                    }
                    _ => return Err(kind_error(v, "a number", ty, path)),
                };
                write_num(s, n, ErrorMode::Fractional, out).map_err(|fail| {
                    let why = match fail {
                        Fail::Overflow => "is out of range for",
                        Fail::Fractional => "has a fractional part, and cannot be stored in",
                        Fail::Inexact => "is not exactly representable in",
                    };
                    value_error(
                        ValueProblem::Range {
                            value: crate::error::excerpt(&v.to_string()).into(),
                            why,
                            ty: ty.clone(),
                        },
                        path,
                    )
                })
            }
            (Builder::FixedString(size, enc), Value::Str(text)) => {
                crate::fixed_string::encode(text, *enc, *size, out, false).map_err(|e| {
                    value_error(
                        ValueProblem::Text {
                            value: crate::error::excerpt(&v.to_string()).into(),
                            ty: ty.clone(),
                            reason: e.to_string().into(),
                        },
                        path,
                    )
                })
            }
            (Builder::FixedString(..), v) => Err(kind_error(v, "a string", ty, path)),
            (Builder::Text { bytes, is_string }, v) => {
                let from_list: Vec<u8>;
                let text: &[u8] = match v {
                    Value::Str(s) => s.as_bytes(),
                    Value::List(items) if !*is_string => {
                        from_list = items
                            .iter()
                            .map(|b| match b {
                                Value::Int(i) => u8::try_from(*i).ok(),
                                _ => None,
                            })
                            .collect::<Option<_>>()
                            .ok_or_else(|| {
                                kind_error(v, "a list of byte values 0..=255", ty, path)
                            })?;
                        &from_list
                    }
                    _ => {
                        let what = if *is_string {
                            "a string"
                        } else {
                            "bytes (given as a string)"
                        };
                        return Err(kind_error(v, what, ty, path));
                    }
                };
                let start = bytes.len() as u64;
                bytes.extend_from_slice(text);
                write_pair(out, start, text.len() as u64);
                Ok(())
            }
            (Builder::Fixed(n, size, element), Value::List(items)) => {
                if items.len() != *n {
                    return Err(length_error(items.len(), *n, ty, path));
                }
                let TypeKind::Dim(_, elem_ty) = ty.kind() else {
                    unreachable!()
                };
                for (i, item) in items.iter().enumerate() {
                    path.push(i);
                    element.write(elem_ty, item, &mut out[i * *size..(i + 1) * *size], path)?;
                    path.pop();
                }
                Ok(())
            }
            (
                Builder::Var {
                    values,
                    count,
                    elem_size,
                    element,
                },
                Value::List(items),
            ) => {
                let TypeKind::Dim(_, elem_ty) = ty.kind() else {
                    unreachable!()
                };
                let start = *count;
                values.resize(values.len() + items.len() * *elem_size, 0);
                for (i, item) in items.iter().enumerate() {
                    let at_byte = (start + i) * *elem_size;
                    path.push(i);
                    element.write(
                        elem_ty,
                        item,
                        &mut values[at_byte..at_byte + *elem_size],
                        path,
                    )?;
                    path.pop();
                }
                *count += items.len();
                write_pair(out, (start * *elem_size) as u64, items.len() as u64);
                Ok(())
            }
            (
                Builder::Fields {
                    offsets,
                    sizes,
                    names,
                    fields,
                },
                v,
            ) => {
                let types = field_types(ty);
                let values: Vec<&Value> = match (v, &*names) {
                    (Value::List(items), _) if items.len() == fields.len() => {
                        items.iter().collect()
                    }
                    (Value::Object(given), Some(names)) => {
                        if let Some((k, _)) =
                            given.iter().find(|(k, _)| !names.iter().any(|n| &**n == k))
                        {
                            return Err(value_error(
                                ValueProblem::UnknownField {
                                    field: k.as_str().into(),
                                    ty: ty.clone(),
                                },
                                path,
                            ));
                        }
                        names
                            .iter()
                            .map(|n| {
                                given
                                    .iter()
                                    .find(|(k, _)| k == &**n)
                                    .map(|(_, v)| v)
                                    .ok_or_else(|| {
                                        value_error(
                                            ValueProblem::MissingField {
                                                field: n.to_string().into(),
                                                ty: ty.clone(),
                                            },
                                            path,
                                        )
                                    })
                            })
                            .collect::<Result<_, _>>()?
                    }
                    _ => {
                        let expected = if names.is_some() {
                            "an object, or a list of its fields"
                        } else {
                            "a list of its fields"
                        };
                        return Err(kind_error(v, expected, ty, path));
                    }
                };
                for (i, ((b, v), t)) in fields.iter_mut().zip(values).zip(types).enumerate() {
                    b.write(t, v, &mut out[offsets[i]..offsets[i] + sizes[i]], path)?;
                }
                Ok(())
            }
            (Builder::Fixed(..) | Builder::Var { .. }, v) => Err(kind_error(v, "a list", ty, path)),
        }
    }

    fn finish(self, ty: &Type) -> Result<Arrmeta, Error> {
        Ok(match self {
            Builder::Scalar(_) | Builder::FixedString(..) => Arrmeta::Scalar,
            Builder::Option(inner, _) => {
                let TypeKind::Option(t) = ty.kind() else {
                    unreachable!()
                };
                Arrmeta::Option(Box::new(inner.finish(t)?))
            }
            Builder::Text { bytes, .. } => Arrmeta::Text {
                block: MemoryBlock::from_bytes(&bytes),
            },
            Builder::Fields {
                offsets, fields, ..
            } => Arrmeta::Fields {
                offsets,
                fields: fields
                    .into_iter()
                    .zip(field_types(ty))
                    .map(|(b, t)| b.finish(t))
                    .collect::<Result<_, _>>()?,
            },
            Builder::Fixed(n, size, element) => {
                let TypeKind::Dim(_, t) = ty.kind() else {
                    unreachable!()
                };
                Arrmeta::Fixed {
                    size: n,
                    stride: size as isize,
                    element: Box::new(element.finish(t)?),
                }
            }
            Builder::Var {
                values,
                elem_size,
                element,
                ..
            } => {
                let TypeKind::Dim(_, t) = ty.kind() else {
                    unreachable!()
                };
                Arrmeta::Var {
                    values: MemoryBlock::from_bytes(&values),
                    offset: 0,
                    stride: elem_size as isize,
                    packed: true,
                    element: Box::new(element.finish(t)?),
                }
            }
        })
    }
}

/// Checks that the lists of `v` have the lengths of `ty`'s fixed
/// dimensions, wherever `ty` has one, without allocating.
fn check_dims(ty: &Type, v: &Value, path: &mut Vec<usize>) -> Result<(), Error> {
    match (ty.kind(), v) {
        (TypeKind::Dim(dim, element), Value::List(items)) => {
            if let Dim::Fixed(n) = dim {
                if items.len() != *n {
                    return Err(length_error(items.len(), *n, ty, path));
                }
            }
            for (i, item) in items.iter().enumerate() {
                path.push(i);
                check_dims(element, item, path)?;
                path.pop();
            }
            Ok(())
        }
        (TypeKind::Option(inner), v) if !matches!(v, Value::Null) => check_dims(inner, v, path),
        // Other mismatches are the builder's to report, element by element.
        _ => Ok(()),
    }
}

/// What a value tree looks like, for type inference.
#[derive(Clone, Debug, PartialEq)]
enum Shape {
    /// An empty list's element: anything.
    Unknown,
    Null,
    Leaf(Scalar, bool),
    /// Integers from `min` to `max` (each clamped to its own type's
    /// range, which keeps every comparison [`int_scalar`] makes), and
    /// whether NA is among them.
    Int {
        min: i128,
        max: u128,
        option: bool,
    },
    /// A string naming a non-finite float (`"NaN"`): a float among
    /// numbers or alone, a string among strings.
    NonFinite(bool),
    Dim(Option<usize>, Box<Shape>),
    Struct(Vec<(String, Shape)>),
}

fn shape_of(v: &Value) -> Result<Shape, Error> {
    Ok(match v {
        Value::Null => Shape::Null,
        Value::Bool(_) => Shape::Leaf(Scalar::Bool, false),
        Value::Int(i) => Shape::Int {
            min: *i,
            max: u128::try_from(*i).unwrap_or(0),
            option: false,
        },
        Value::UInt(u) => Shape::Int {
            min: i128::try_from(*u).unwrap_or(i128::MAX),
            max: *u,
            option: false,
        },
        Value::Float(_) => Shape::Leaf(Scalar::Float64, false),
        Value::Str(t) if non_finite(t).is_some() => Shape::NonFinite(false),
        Value::Str(_) => Shape::Leaf(Scalar::String, false),
        Value::List(items) => {
            let mut elem = Shape::Unknown;
            for item in items {
                elem = unify(elem, shape_of(item)?)?;
            }
            Shape::Dim(Some(items.len()), Box::new(elem))
        }
        Value::Object(fields) => Shape::Struct(
            fields
                .iter()
                .map(|(k, v)| Ok((k.clone(), shape_of(v)?)))
                .collect::<Result<_, Error>>()?,
        ),
    })
}

/// [`ValueProblem::Mixed`]: a list with `first` and `second` items.
fn mixed(first: &str, second: &str) -> Error {
    value_error(
        ValueProblem::Mixed {
            first: first.into(),
            second: second.into(),
        },
        &[],
    )
}

/// The smallest integer type that holds every integer from `min` to
/// `max`: `int64`, else `uint64`, `int128`, `uint128` (a literal is exact
/// or an error, never a float that rounds).
fn int_scalar(min: i128, max: u128) -> Result<Scalar, Error> {
    if min >= i128::from(i64::MIN) && max <= i64::MAX as u128 {
        Ok(Scalar::Int64)
    } else if min >= 0 && max <= u128::from(u64::MAX) {
        Ok(Scalar::UInt64)
    } else if max <= i128::MAX as u128 {
        Ok(Scalar::Int128)
    } else if min >= 0 {
        Ok(Scalar::UInt128)
    } else {
        Err(mixed(
            &format!("integers down to {min}"),
            &format!("integers up to {max} (no integer type holds both)"),
        ))
    }
}

fn unify(a: Shape, b: Shape) -> Result<Shape, Error> {
    let a = match (a, &b) {
        // Integers among other kinds of leaves: their integer type first.
        (Shape::Int { min, max, option }, Shape::Leaf(..) | Shape::NonFinite(_)) => {
            Shape::Leaf(int_scalar(min, max)?, option)
        }
        (a, _) => a,
    };
    let b = match (&a, b) {
        (Shape::Leaf(..) | Shape::NonFinite(_), Shape::Int { min, max, option }) => {
            Shape::Leaf(int_scalar(min, max)?, option)
        }
        (_, b) => b,
    };
    Ok(match (a, b) {
        (Shape::Unknown, x) | (x, Shape::Unknown) => x,
        (
            Shape::Int { min, max, option },
            Shape::Int {
                min: min2,
                max: max2,
                option: option2,
            },
        ) => Shape::Int {
            min: min.min(min2),
            max: max.max(max2),
            option: option || option2,
        },
        (Shape::Null, Shape::Int { min, max, .. }) | (Shape::Int { min, max, .. }, Shape::Null) => {
            Shape::Int {
                min,
                max,
                option: true,
            }
        }
        (Shape::Null, Shape::Null) => Shape::Null,
        (Shape::Null, Shape::Leaf(s, _)) | (Shape::Leaf(s, _), Shape::Null) => Shape::Leaf(s, true),
        (Shape::NonFinite(o1), Shape::NonFinite(o2)) => Shape::NonFinite(o1 || o2),
        (Shape::Null, Shape::NonFinite(_)) | (Shape::NonFinite(_), Shape::Null) => {
            Shape::NonFinite(true)
        }
        (Shape::NonFinite(o1), Shape::Leaf(s, o2)) | (Shape::Leaf(s, o2), Shape::NonFinite(o1)) => {
            let p = if s == Scalar::String {
                s
            } else {
                promote_scalars(s, Scalar::Float64)
                    .ok_or_else(|| mixed(&format!("{s} values"), "non-finite floats"))?
            };
            Shape::Leaf(p, o1 || o2)
        }
        (Shape::Leaf(s, o1), Shape::Leaf(t, o2)) => {
            let p = promote_scalars(s, t)
                .ok_or_else(|| mixed(&format!("{s} values"), &format!("{t} values")))?;
            Shape::Leaf(p, o1 || o2)
        }
        (Shape::Dim(n, a), Shape::Dim(m, b)) => {
            Shape::Dim(if n == m { n } else { None }, Box::new(unify(*a, *b)?))
        }
        (Shape::Struct(a), Shape::Struct(b)) => {
            if a.len() != b.len() || a.iter().zip(&b).any(|(x, y)| x.0 != y.0) {
                return Err(mixed("objects", "objects with other fields"));
            }
            Shape::Struct(
                a.into_iter()
                    .zip(b)
                    .map(|((k, x), (_, y))| Ok((k, unify(x, y)?)))
                    .collect::<Result<_, Error>>()?,
            )
        }
        (Shape::Null, Shape::Dim(..)) | (Shape::Dim(..), Shape::Null) => {
            return Err(mixed("null", "lists (an NA list is not supported)"))
        }
        _ => return Err(mixed("lists", "scalars")),
    })
}

fn shape_type(shape: Shape) -> Result<Type, Error> {
    Ok(match shape {
        Shape::Unknown => Scalar::Float64.into(),
        Shape::Null => Type::option(Scalar::Float64.into())?,
        Shape::Int { min, max, option } => {
            let s: Type = int_scalar(min, max)?.into();
            if option {
                Type::option(s)?
            } else {
                s
            }
        }
        Shape::Leaf(s, false) => s.into(),
        Shape::Leaf(s, true) => Type::option(s.into())?,
        Shape::NonFinite(false) => Scalar::Float64.into(),
        Shape::NonFinite(true) => Type::option(Scalar::Float64.into())?,
        Shape::Dim(n, elem) => Type::dim(n.map_or(Dim::Var, Dim::Fixed), shape_type(*elem)?)?,
        Shape::Struct(fields) => Type::new(TypeKind::Struct(dynd_types::Struct {
            fields: fields
                .into_iter()
                .map(|(k, s)| Ok((dynd_types::Name::from(k.as_str()), shape_type(s)?)))
                .collect::<Result<_, Error>>()?,
            variadic: false,
        }))?,
    })
}

/// The type an array made from `v` gets: lists of equal length give a
/// fixed dimension, ragged ones `var`; integers give the smallest of
/// `int64`, `uint64`, `int128`, `uint128` that holds them all (an error
/// if none does), mixed with floats `float64`; the strings `"NaN"`, `"Infinity"` and `"-Infinity"`
/// (how [`Array::to_json`] writes non-finite floats) are floats, except
/// among other strings; `null` makes the data type an option; an empty
/// list's element type is `float64`.
///
/// # Errors
///
/// [`Error::FromValue`] for values with no common type (`[1, "a"]`, `[1, [2]]`).
pub fn infer_type(v: &Value) -> Result<Type, Error> {
    shape_type(shape_of(v)?)
}

impl Array {
    /// An array of type `ty` (or the [inferred](infer_type) one) holding `v`.
    ///
    /// # Errors
    ///
    /// [`Error::FromValue`] naming the element that does not fit the type;
    /// [`Error::Unsupported`] for types arrays do not hold yet (tuples,
    /// structs, fixed strings).
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

    /// A 1-d array over the elements of `v`, without copying them.
    pub fn from_vec<T: Element>(v: Vec<T>) -> Array {
        let n = v.len();
        Array {
            ty: Type::with_dims([Dim::Fixed(n)], T::SCALAR.into())
                .unwrap_or_else(|_| unreachable!()),
            meta: Arc::new(Arrmeta::Fixed {
                size: n,
                stride: std::mem::size_of::<T>() as isize,
                element: Box::new(Arrmeta::Scalar),
            }),
            data: ManuallyDrop::new(MemoryBlock::from_vec(v)),
            offset: 0,
        }
    }

    /// A 1-d array holding a copy of `s` (see [`Array::from_static`] and
    /// [`Array::from_vec`] for the zero-copy constructors).
    pub fn from_slice<T: Element>(s: &[T]) -> Array {
        Array::from_vec(s.to_vec())
    }

    /// A read-only 1-d array over a `'static` slice, without copying it.
    pub fn from_static<T: Element>(s: &'static [T]) -> Array {
        Array {
            ty: Type::with_dims([Dim::Fixed(s.len())], T::SCALAR.into())
                .unwrap_or_else(|_| unreachable!()),
            meta: Arc::new(Arrmeta::Fixed {
                size: s.len(),
                stride: std::mem::size_of::<T>() as isize,
                element: Box::new(Arrmeta::Scalar),
            }),
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
        &self.meta
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
    pub fn shape(&self) -> Vec<Dim> {
        self.ty.split_dims().0.into_iter().cloned().collect()
    }

    /// The byte strides of the leading fixed dimensions (up to the first `var`).
    pub fn strides(&self) -> Vec<isize> {
        let mut out = Vec::new();
        let mut m = &*self.meta;
        while let Some((_, stride, element)) = m.as_fixed() {
            out.push(stride);
            m = element;
        }
        out
    }

    /// Whether all dimensions are fixed and laid out in C order without gaps.
    pub fn is_c_contiguous(&self) -> bool {
        let Ok(layout) = self.dtype().data_layout() else {
            return false;
        };
        let Some(shape) = self.ty.fixed_shape() else {
            return false;
        };
        let mut expected = layout.size as isize;
        for (n, stride) in shape.iter().zip(self.strides()).rev() {
            if *n > 1 && stride != expected {
                return false;
            }
            expected *= *n as isize;
        }
        true
    }

    /// Whether writes are refused (the data is borrowed `'static` memory).
    #[inline]
    pub fn is_readonly(&self) -> bool {
        !self.data.is_writable()
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
            meta,
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
            meta,
            data: ManuallyDrop::new(data),
            offset,
        }
    }

    /// The type, data block and arrmeta, for writing.
    #[inline]
    pub fn parts_mut(&mut self) -> (&Type, &mut Arc<MemoryBlock>, &mut Arc<Arrmeta>) {
        (&self.ty, &mut self.data, &mut self.meta)
    }

    /// The arrmeta, shared.
    #[inline]
    pub fn arrmeta_arc(&self) -> Arc<Arrmeta> {
        self.meta.clone()
    }

    /// The address of the first element of an array just allocated (the
    /// only owner of its memory, with no `var` dimensions), for writing.
    #[inline]
    pub fn fresh_data_ptr(&mut self) -> *mut u8 {
        match MemoryBlock::unique_ptr(&self.data) {
            Some(base) => base.wrapping_add(self.offset),
            None => unreachable!("a fresh array owns its memory"),
        }
    }

    /// The address of the first element, for writing, when this handle is
    /// the only owner of its data block (`None` when the block is shared).
    /// Writers make the array unique first (the kernels' `make_unique`).
    #[inline]
    pub fn unique_data_ptr(&mut self) -> Option<*mut u8> {
        let offset = self.offset;
        Arc::get_mut(&mut self.data).map(|block| block.as_mut_ptr().wrapping_add(offset))
    }

    /// The address of the first element.
    #[inline]
    pub fn data_ptr(&self) -> *const u8 {
        self.data.as_ptr().wrapping_add(self.offset)
    }

    /// The memory block holding the array's data.
    #[inline]
    pub fn data_block(&self) -> &Arc<MemoryBlock> {
        &self.data
    }

    /// The byte offset of the first element in the data block.
    #[inline]
    pub fn data_offset(&self) -> usize {
        self.offset
    }

    /// The elements as a slice: the array must be C-contiguous with data
    /// type `T`.
    ///
    /// # Errors
    ///
    /// [`Error::DtypeMismatch`] for another data type, [`Error::NeedsArray`] for
    /// a layout that is not one contiguous run.
    pub fn as_slice<T: Element>(&self) -> Result<&[T], Error> {
        self.check_dtype::<T>()?;
        if !self.is_c_contiguous() {
            return Err(Error::NeedsArray {
                op: "as_slice".into(),
                expected: "a C-contiguous array (to_vec copies any layout)",
                found: self.ty.clone(),
            });
        }
        let count: usize = self.ty.fixed_shape().map_or(0, |s| s.iter().product());
        if count == 0 {
            // An empty view's offset is not checked against its block
            // (it reaches no element), so it is not read.
            return Ok(&[]);
        }
        let len = count * std::mem::size_of::<T>();
        let bytes = self
            .data
            .bytes()
            .get(self.offset..self.offset + len)
            .unwrap_or_else(|| unreachable!("a validated array's elements lie in its block"));
        Ok(cast_slice(bytes)
            .unwrap_or_else(|| unreachable!("a validated array's elements are aligned")))
    }

    fn check_dtype<T: Element>(&self) -> Result<(), Error> {
        if self.dtype().as_scalar() == Some(T::SCALAR) {
            Ok(())
        } else {
            Err(Error::DtypeMismatch {
                actual: self.dtype().clone(),
                requested: T::SCALAR.into(),
            })
        }
    }

    /// The elements as the `Vec<T>` they live in, without copying: the
    /// array must be the only owner of memory made from a `Vec<T>`
    /// ([`Array::from_vec`], `From<Vec<T>>`, an ndarray array), and cover
    /// all of it in C order. Otherwise the array comes back unchanged (use
    /// [`Array::to_vec`] to copy).
    ///
    /// ```
    /// let v = vec![1.0f64, 2.0, 3.0];
    /// let at = v.as_ptr();
    /// let back = dynd::nd::Array::from_vec(v).try_into_vec::<f64>().unwrap();
    /// assert_eq!((back.as_ptr(), back), (at, vec![1.0, 2.0, 3.0]));
    /// ```
    ///
    /// # Errors
    ///
    /// The array itself, when its memory is shared, not a `Vec<T>`, or not
    /// all of it in C order.
    pub fn try_into_vec<T: Element>(self) -> Result<Vec<T>, Array> {
        let count: usize = self.ty.fixed_shape().map_or(0, |s| s.iter().product());
        let whole = self.dtype().as_scalar() == Some(T::SCALAR)
            && !self.ty.has_var_dim()
            && self.is_c_contiguous()
            && self.offset == 0
            && Arc::strong_count(&self.data) == 1
            && Arc::weak_count(&self.data) == 0
            && count.checked_mul(std::mem::size_of::<T>()) == Some(self.data.len());
        if !whole {
            return Err(self);
        }
        let (ty, meta, block) = (self.ty.clone(), self.meta.clone(), Arc::clone(&self.data));
        drop(self);
        MemoryBlock::into_vec::<T>(block).map_err(|block| {
            // SAFETY: the parts of the valid array just taken apart.
            unsafe { Array::from_parts_unchecked(ty, meta, block, 0) }
        })
    }

    /// The elements in C order (any strides), copied.
    ///
    /// # Errors
    ///
    /// [`Error::DtypeMismatch`] for another data type;
    /// [`Error::NeedsArray`] for `var` dimensions.
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>, Error> {
        self.check_dtype::<T>()?;
        if self.ty.has_var_dim() {
            return Err(Error::NeedsArray {
                op: "to_vec".into(),
                expected: "an array without var dimensions (to_value and to_nested take any)",
                found: self.ty.clone(),
            });
        }
        if let Ok(xs) = self.as_slice::<T>() {
            return Ok(xs.to_vec());
        }
        let size = std::mem::size_of::<T>();
        let data = self.data.bytes();
        let mut out = Vec::new();
        let (dims, _) = self.meta.fixed_dims();
        let base = self.offset as isize;
        crate::offsets::for_each_offset(&dims, |at| {
            let x = usize::try_from(base + at)
                .ok()
                .and_then(|at| data.get(at..at.checked_add(size)?))
                .and_then(cast_slice::<T>);
            match x {
                Some(x) => out.push(x[0]),
                None => unreachable!("a validated array's elements are aligned and in its block"),
            }
        });
        Ok(out)
    }

    /// One element of a numeric array, by index.
    ///
    /// # Errors
    ///
    /// [`Error::DtypeMismatch`], or [`Error::Index`] for an index out of
    /// bounds or of the wrong length.
    pub fn get<T: Element>(&self, index: &[usize]) -> Result<T, Error> {
        self.check_dtype::<T>()?;
        let mut m = &*self.meta;
        let mut offset = self.offset as isize;
        let mut data: &[u8] = self.data.bytes();
        for (axis, &i) in index.iter().enumerate() {
            let out_of_bounds = |size: usize| Error::Index {
                index: i as i64,
                axis,
                size,
            };
            let Some((n, element, entries, first, stride)) = dim_entries(m, data, offset) else {
                return Err(out_of_bounds(0));
            };
            if i >= n {
                return Err(out_of_bounds(n));
            }
            data = entries;
            offset = first + i as isize * stride;
            m = element;
        }
        if !matches!(m, Arrmeta::Scalar) {
            return Err(Error::IndexCount {
                given: index.len(),
                ty: self.ty.clone(),
                ndim: self.ty.ndim(),
            });
        }
        let bytes = &data[offset as usize..offset as usize + T::SCALAR.size()];
        Ok(cast_slice::<T>(bytes)
            .map(|s| s[0])
            .unwrap_or_else(|| unreachable!("a validated array's elements are aligned")))
    }

    /// The array as a [`Value`] tree. The tree takes memory in proportion
    /// to the array's elements and lists; like any `Vec`, building it
    /// aborts if memory runs out: [`Array::try_to_value`] checks first.
    pub fn to_value(&self) -> Value {
        read_value(
            &self.ty,
            &self.meta,
            self.data.bytes(),
            self.offset as isize,
        )
    }

    /// The array as valid JSON text, every element: `null` for NA,
    /// `[re, im]` for complex, floats always with a fraction or exponent
    /// (`1.0`) and non-finite ones as the strings `"NaN"`, `"Infinity"`,
    /// `"-Infinity"`, so [`Array::from_json`] reads the same values back:
    /// with the array's type given, exactly; with none, as the inferred
    /// type (floats stay floats). As [`Array::to_value`];
    /// [`Array::try_to_json`] checks the memory first.
    ///
    /// ```
    /// let a = dynd::nd::Array::from_vec(vec![1.0f64, f64::NAN, -0.0]);
    /// assert_eq!(a.to_json(), r#"[1.0, "NaN", -0.0]"#);
    /// let back = dynd::nd::Array::from_json(&a.to_json(), None)?;
    /// assert_eq!((back.ty(), back.to_string()), (a.ty(), a.to_string()));
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn to_json(&self) -> String {
        self.to_value().to_json()
    }
}

/// The arrmeta of a data type's zero value (no dimensions): empty text
/// blocks for strings.
pub fn dtype_meta(dtype: &Type) -> Result<Arrmeta, Error> {
    match Builder::new(dtype)? {
        b @ (Builder::Scalar(_)
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

fn read_value(ty: &Type, meta: &Arrmeta, data: &[u8], offset: isize) -> Value {
    let at = offset as usize;
    match (ty.kind(), meta) {
        (TypeKind::Dim(_, elem), Arrmeta::Fixed { .. } | Arrmeta::Var { .. }) => {
            let Some((n, element, entries, first, stride)) = dim_entries(meta, data, offset) else {
                unreachable!("a fixed or var record is a dimension")
            };
            Value::List(
                (0..n)
                    .map(|i| read_value(elem, element, entries, first + i as isize * stride))
                    .collect(),
            )
        }
        (TypeKind::Tuple(_) | TypeKind::Struct(_), Arrmeta::Fields { offsets, fields }) => {
            let items = field_types(ty)
                .into_iter()
                .zip(fields)
                .zip(offsets)
                .map(|((t, m), off)| read_value(t, m, data, offset + *off as isize));
            match ty.kind() {
                TypeKind::Struct(s) => Value::Object(
                    s.fields
                        .iter()
                        .map(|(n, _)| n.to_string())
                        .zip(items)
                        .collect(),
                ),
                _ => Value::List(items.collect()),
            }
        }
        (TypeKind::FixedString { size, encoding }, _) => Value::Str(crate::fixed_string::decode(
            &data[at..at + size * encoding.unit_size()],
            *encoding,
        )),
        (TypeKind::Option(inner), Arrmeta::Option(m)) => {
            let size = inner.data_layout().map_or(0, |l| l.size);
            if data[at + size] == 0 {
                Value::Null
            } else {
                read_value(inner, m, data, offset)
            }
        }
        (TypeKind::Scalar(s), Arrmeta::Text { block }) => {
            let (start, len) = read_pair(&data[at..at + PAIR_SIZE]);
            let bytes = &block.bytes()[start as usize..(start + len) as usize];
            match s {
                Scalar::String => Value::Str(String::from_utf8_lossy(bytes).into_owned()),
                _ => Value::List(bytes.iter().map(|b| Value::Int(i128::from(*b))).collect()),
            }
        }
        (TypeKind::Scalar(s), _) => {
            // A float of less than double precision reads as the shortest
            // decimal that is the same float at its own precision, so it
            // prints as written (`1.1`, not `1.100000023841858`).
            let short = |x: f64| match s {
                Scalar::Float32 | Scalar::Complex64 => shortest_f32(x),
                Scalar::Float16 => shortest_f16(x),
                _ => x,
            };
            match read_num(*s, &data[at..]) {
                Num::Bool(b) => Value::Bool(b),
                Num::Int(i) => Value::Int(i),
                Num::UInt(u) => i128::try_from(u).map_or(Value::UInt(u), Value::Int),
                Num::Float(x) => Value::Float(short(x)),
                Num::Complex(re, im) => {
                    Value::List(vec![Value::Float(short(re)), Value::Float(short(im))])
                }
            }
        }
        _ => Value::Null,
    }
}

/// The shortest decimal (as an `f64`) that rounds to the same `f32` as `x`.
fn shortest_f32(x: f64) -> f64 {
    let f = x as f32;
    if !f.is_finite() {
        return x;
    }
    f.to_string().parse().unwrap_or(x)
}

/// The shortest decimal (as an `f64`) that rounds to the same half as `x`.
fn shortest_f16(x: f64) -> f64 {
    let h = crate::element::F16::from_f64(x);
    if !x.is_finite() {
        return x;
    }
    (1..=5)
        .filter_map(|digits| format!("{:.*e}", digits - 1, x).parse::<f64>().ok())
        .find(|y| crate::element::F16::from_f64(*y).0 == h.0)
        .unwrap_or(x)
}

/// Arrays of more elements than this print as a summary (NumPy's
/// threshold): each dimension longer than `2 * SUMMARY_EDGE` shows its
/// first and last [`SUMMARY_EDGE`] entries around `...`.
pub const SUMMARY_THRESHOLD: usize = 1000;

/// Entries shown at each end of a summarised dimension.
pub const SUMMARY_EDGE: usize = 3;

impl Array {
    /// The number of elements and of lists (dimension entries above the
    /// innermost level) the value holds, each counted up to `cap` (a
    /// ragged array's rows are walked only that far).
    fn census(&self, cap: usize) -> (usize, usize) {
        fn walk(meta: &Arrmeta, data: &[u8], offset: isize, cap: usize) -> (usize, usize) {
            if let Some((size, _, element)) = meta.as_fixed() {
                if !element.has_var() {
                    // Every entry holds the same: multiply, saturating.
                    let (leaves, lists) = walk(element, data, offset, cap);
                    let is_list = usize::from(element.as_fixed().is_some());
                    return (
                        size.saturating_mul(leaves).min(cap),
                        size.saturating_mul(lists.saturating_add(is_list)).min(cap),
                    );
                }
            }
            let Some((n, element, data, first, stride)) = dim_entries(meta, data, offset) else {
                return (1, 0);
            };
            let is_list = usize::from(matches!(
                element,
                Arrmeta::Fixed { .. } | Arrmeta::Var { .. }
            ));
            let (mut leaves, mut lists) = (0usize, 0usize);
            for i in 0..n {
                let (l, d) = walk(element, data, first + i as isize * stride, cap);
                leaves = leaves.saturating_add(l);
                lists = lists.saturating_add(d).saturating_add(is_list);
                if leaves >= cap || lists >= cap {
                    break;
                }
            }
            (leaves.min(cap), lists.min(cap))
        }
        walk(&self.meta, self.data.bytes(), self.offset as isize, cap)
    }

    /// The array as a [`Value`] tree, or [`Error::Alloc`] if the tree would
    /// not fit in memory (a `2147483648 * 0 * int8` array holds no element
    /// but 2^31 empty lists). [`Array::to_value`] is this without the check.
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`] with the bytes the tree needs.
    pub fn try_to_value(&self) -> Result<Value, Error> {
        let (leaves, lists) = self.census(usize::MAX);
        let bytes = (leaves as u128 + lists as u128 + 1) * std::mem::size_of::<Value>() as u128;
        let mut probe: Vec<u8> = Vec::new();
        usize::try_from(bytes)
            .ok()
            .and_then(|b| probe.try_reserve_exact(b).ok())
            .ok_or_else(|| Error::alloc(bytes))?;
        drop(probe);
        Ok(self.to_value())
    }

    /// The array as JSON text, or [`Error::Alloc`] as
    /// [`Array::try_to_value`] gives it.
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`] with the bytes the value tree needs.
    pub fn try_to_json(&self) -> Result<String, Error> {
        Ok(self.try_to_value()?.to_json())
    }

    /// Writes the value as [`Display`](fmt::Display) does: in full up to
    /// [`SUMMARY_THRESHOLD`] elements, summarised beyond.
    fn write_text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (leaves, lists) = self.census(SUMMARY_THRESHOLD + 1);
        if leaves <= SUMMARY_THRESHOLD && lists <= SUMMARY_THRESHOLD {
            return f.write_str(&self.to_value().to_text());
        }
        let mut budget = SUMMARY_THRESHOLD;
        write_summary(
            f,
            &self.ty,
            &self.meta,
            self.data.bytes(),
            self.offset as isize,
            &mut budget,
        )
    }
}

/// The entries of the dimension level `meta` at byte `offset` of `data`:
/// their count, their record, the bytes they lie in, the first one's
/// offset there and the stride; `None` if `meta` is not a dimension.
fn dim_entries<'a>(
    meta: &'a Arrmeta,
    data: &'a [u8],
    offset: isize,
) -> Option<(usize, &'a Arrmeta, &'a [u8], isize, isize)> {
    match meta {
        Arrmeta::Fixed {
            size,
            stride,
            element,
        } => Some((*size, element, data, offset, *stride)),
        Arrmeta::Var {
            values,
            offset: voff,
            stride,
            element,
            ..
        } => {
            let (start, len) = read_pair(&data[offset as usize..]);
            Some((
                len as usize,
                element,
                values.bytes(),
                *voff as isize + start as i64 as isize,
                *stride,
            ))
        }
        _ => None,
    }
}

/// Writes a dimension level with at most `2 * SUMMARY_EDGE` entries (and
/// `...` between them), and whatever is under the dimensions in full. At
/// most `budget` entries are written in all (so that many small dimensions
/// cannot multiply into a huge text); past it, a list ends with `...`.
fn write_summary(
    f: &mut fmt::Formatter<'_>,
    ty: &Type,
    meta: &Arrmeta,
    data: &[u8],
    offset: isize,
    budget: &mut usize,
) -> fmt::Result {
    let TypeKind::Dim(_, elem) = ty.kind() else {
        return f.write_str(&read_value(ty, meta, data, offset).to_text());
    };
    let Some((n, element, data, first, stride)) = dim_entries(meta, data, offset) else {
        return f.write_str(&read_value(ty, meta, data, offset).to_text());
    };
    f.write_str("[")?;
    let shown: Vec<Option<usize>> = if n > 2 * SUMMARY_EDGE {
        (0..SUMMARY_EDGE)
            .map(Some)
            .chain([None])
            .chain((n - SUMMARY_EDGE..n).map(Some))
            .collect()
    } else {
        (0..n).map(Some).collect()
    };
    for (k, i) in shown.into_iter().enumerate() {
        if k > 0 {
            f.write_str(", ")?;
        }
        if *budget == 0 {
            f.write_str("...")?;
            break;
        }
        *budget -= 1;
        match i {
            Some(i) => write_summary(f, elem, element, data, first + i as isize * stride, budget)?,
            None => f.write_str("...")?,
        }
    }
    f.write_str("]")
}

impl fmt::Display for Array {
    /// The value, as JSON-like text: `[[1, 2], [3]]`; an array of more than
    /// [`SUMMARY_THRESHOLD`] elements prints a summary
    /// (`[0, 1, 2, ..., 997, 998, 999]`), as NumPy does. [`Array::to_json`]
    /// always writes every element.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_text(f)
    }
}

impl fmt::Debug for Array {
    /// The value and the type: `Array([1, 2], type="2 * int64")`,
    /// summarised as [`Display`](fmt::Display) does.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Array(")?;
        self.write_text(f)?;
        write!(f, ", type=\"{}\")", self.ty)
    }
}

/// An array literal: nested lists (ragged rows give a `var` dimension),
/// Rust expressions, and `null` for NA. The type is
/// [inferred](crate::array::infer_type).
///
/// ```
/// let a = dynd::nd::array![[1, 2, 3], [4, 5, 6]];
/// assert_eq!(a.ty().to_string(), "2 * 3 * int64");
/// let b = dynd::nd::array![1.5, null];
/// assert_eq!(b.ty().to_string(), "2 * ?float64");
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
