//! The type of a `Value` tree: shapes unified level by level, scalars promoted.

use super::*;

/// What a value tree looks like, for type inference.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Shape {
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

pub(super) fn shape_of(v: &Value) -> Result<Shape, Error> {
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
pub(super) fn mixed(first: &str, second: &str) -> Error {
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
pub(super) fn int_scalar(min: i128, max: u128) -> Result<Scalar, Error> {
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

pub(super) fn unify(a: Shape, b: Shape) -> Result<Shape, Error> {
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

pub(super) fn shape_type(shape: Shape) -> Result<Type, Error> {
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
