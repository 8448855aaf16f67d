//! Building an array's bytes from a `Value` tree, checked against its type.

use super::*;

/// Builds the data of one level of a type from values.
pub(super) enum Builder {
    Scalar(Scalar),
    /// A time type: ISO 8601 text in (a `timedelta` takes integer counts
    /// of its unit); a zoned datetime reads wall times without an offset
    /// in its zone.
    Time(Temporal, Option<crate::time::zone::Zone>),
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

pub(super) use crate::validate::field_types;

pub(super) fn unsupported(operation: &'static str, ty: &Type) -> Error {
    Error::Unsupported {
        operation,
        ty: ty.clone(),
    }
}

pub(super) fn value_error(problem: ValueProblem, path: &[usize]) -> Error {
    Error::FromValue {
        problem: Box::new(problem),
        path: path.to_vec(),
    }
}

/// [`ValueProblem::Length`]: a list of `len` items for a dimension of
/// `size` (in a place of type `ty`).
pub(super) fn length_error(len: usize, size: usize, ty: &Type, path: &[usize]) -> Error {
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
pub(super) fn kind_error(v: &Value, expected: &'static str, ty: &Type, path: &[usize]) -> Error {
    value_error(
        ValueProblem::Kind {
            value: crate::error::excerpt(&v.to_string()).into(),
            expected,
            ty: ty.clone(),
        },
        path,
    )
}

/// The ticks of the time type `t` that the value `v` stands for (stored
/// in the type's size: a `date`'s days fit `int32`, checked).
fn time_ticks(
    t: Temporal,
    zone: Option<&crate::time::zone::Zone>,
    v: &Value,
) -> Result<i64, String> {
    let text = match (t, v) {
        (Temporal::TimeDelta(_), Value::Int(i)) => {
            return i64::try_from(*i).map_err(|_| "out of the range of int64 ticks".to_string())
        }
        (Temporal::TimeDelta(u), _) => {
            return Err(format!(
                "expected an integer count of \"{}\" (a timedelta's JSON)",
                u.name()
            ))
        }
        (_, Value::Str(text)) => text,
        (Temporal::Date, _) => return Err("expected a date as text (2024-02-29)".into()),
        (Temporal::Time(_), _) => return Err("expected a time of day as text (13:45:00)".into()),
        _ => return Err("expected a datetime as text (2024-02-29T13:45:00)".into()),
    };
    crate::time::parse_ticks(t, zone, text)
}

impl Builder {
    pub(super) fn new(ty: &Type) -> Result<Builder, Error> {
        Ok(match ty.kind() {
            TypeKind::Scalar(s @ (Scalar::String | Scalar::Bytes)) => Builder::Text {
                bytes: Vec::new(),
                is_string: *s == Scalar::String,
            },
            TypeKind::Scalar(s) if s.is_temporal() => {
                Builder::Time(s.temporal().unwrap_or(Temporal::Date), None)
            }
            TypeKind::Scalar(s) => Builder::Scalar(*s),
            TypeKind::DateTimeTz { unit, tz } => Builder::Time(
                Temporal::DateTime(*unit),
                Some(crate::time::zone::get(tz).map_err(|reason| {
                    Error::Invalid(Box::new(dynd_types::TypeRule::ZoneName(reason)))
                })?),
            ),
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
    pub(super) fn write(
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
            (Builder::Time(t, zone), v) => {
                let ticks = time_ticks(*t, zone.as_ref(), v).map_err(|reason| {
                    value_error(
                        ValueProblem::Time {
                            value: crate::error::excerpt(&v.to_string()).into(),
                            ty: ty.clone(),
                            reason: reason.into(),
                        },
                        path,
                    )
                })?;
                let size = t.scalar().size();
                out[..size].copy_from_slice(&ticks.to_ne_bytes()[..size]);
                Ok(())
            }
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

    pub(super) fn finish(self, ty: &Type) -> Result<Arrmeta, Error> {
        Ok(match self {
            Builder::Scalar(_) | Builder::Time(..) | Builder::FixedString(..) => Arrmeta::Scalar,
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
pub(super) fn check_dims(ty: &Type, v: &Value, path: &mut Vec<usize>) -> Result<(), Error> {
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
