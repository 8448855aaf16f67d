//! Type promotion: the common type of two data types.
//!
//! `bool` < integers < floats < complex, with NumPy's rules where signed and
//! unsigned integers meet: the result is the smallest type that holds every
//! value of both (`int8 + uint8 -> int16`), and where none exists among the
//! integers, `float64` (`int64 + uint64 -> float64`). An integer meeting a
//! float gives the smallest float that holds the integer's values in NumPy's
//! sense (`int16 + float16 -> float32`, `int32 + float32 -> float64`);
//! complex follows from its component float. An option promotes its value
//! type and stays an option; tuples and structs of the same shape promote
//! field by field. `string` and `bytes` only promote with themselves.
//!
//! ```
//! use dynd::ndt::{promote, Type};
//!
//! let t = |s: &str| s.parse::<Type>().unwrap();
//! assert_eq!(promote(&t("int8"), &t("uint8"))?, t("int16"));
//! assert_eq!(promote(&t("int32"), &t("float32"))?, t("float64"));
//! assert_eq!(promote(&t("?int64"), &t("float32"))?, t("?float64"));
//! # Ok::<(), dynd::Error>(())
//! ```

use crate::error::Error;
use crate::scalar::{Scalar, ScalarCategory};
use crate::ty::{Struct, Tuple, Type, TypeKind};

/// The smallest float that holds an integer type's values (NumPy's choice).
fn float_for_int(bits: u32) -> Scalar {
    match bits {
        8 => Scalar::Float16,
        16 => Scalar::Float32,
        _ => Scalar::Float64,
    }
}

fn complex_for_float(f: Scalar) -> Scalar {
    if f == Scalar::Float64 {
        Scalar::Complex128
    } else {
        Scalar::Complex64
    }
}

/// The position of a float or complex scalar in its ladder.
fn float_rank(s: Scalar) -> u8 {
    match s {
        Scalar::Float16 => 0,
        Scalar::Float32 | Scalar::Complex64 => 1,
        _ => 2,
    }
}

/// The common type of two builtin scalars, if there is one.
pub fn promote_scalars(a: Scalar, b: Scalar) -> Option<Scalar> {
    use ScalarCategory as C;
    if a == b {
        return Some(a);
    }
    let (lo, hi) = if a.category() <= b.category() {
        (a, b)
    } else {
        (b, a)
    };
    Some(match (lo.category(), hi.category()) {
        (C::Temporal, C::Temporal) => return promote_temporal(a, b),
        (C::String | C::Bytes | C::Temporal, _) | (_, C::String | C::Bytes | C::Temporal) => {
            return None
        }
        (C::Bool, _) => hi,
        (C::UnsignedInt, C::UnsignedInt) | (C::SignedInt, C::SignedInt) => {
            let bits = |s: Scalar| s.int_bits().map_or(0, |(_, b)| b);
            if bits(lo) >= bits(hi) {
                lo
            } else {
                hi
            }
        }
        (C::UnsignedInt, C::SignedInt) => {
            let (_, ubits) = lo.int_bits()?;
            let (_, sbits) = hi.int_bits()?;
            if sbits > ubits {
                hi
            } else {
                // NumPy widens to a signed type up to 64 bits, then gives up
                // to float64; int128 is only chosen when it is an operand.
                Some(ubits * 2)
                    .filter(|b| *b <= 64)
                    .and_then(Scalar::signed_of_bits)
                    .unwrap_or(Scalar::Float64)
            }
        }
        (C::UnsignedInt | C::SignedInt, C::Float | C::Complex) => {
            let (_, bits) = lo.int_bits()?;
            return promote_scalars(float_for_int(bits), hi);
        }
        (C::Float, C::Float) | (C::Complex, C::Complex) => {
            if float_rank(lo) >= float_rank(hi) {
                lo
            } else {
                hi
            }
        }
        (C::Float, C::Complex) => {
            let c = complex_for_float(lo);
            if float_rank(c) >= float_rank(hi) {
                c
            } else {
                hi
            }
        }
        _ => return None,
    })
}

/// Two time types of one kind meet at the finer unit; a `date` meets a
/// `datetime` at the datetime (NumPy's `M8[D]` and `M8[us]`); no other
/// pair of time types has a common type.
fn promote_temporal(a: Scalar, b: Scalar) -> Option<Scalar> {
    use crate::scalar::Temporal as T;
    Some(match (a.temporal()?, b.temporal()?) {
        (T::Date, T::DateTime(_)) => b,
        (T::DateTime(_), T::Date) => a,
        (T::Time(x), T::Time(y)) => T::Time(x.max(y)).scalar(),
        (T::DateTime(x), T::DateTime(y)) => T::DateTime(x.max(y)).scalar(),
        (T::TimeDelta(x), T::TimeDelta(y)) => T::TimeDelta(x.max(y)).scalar(),
        _ => return None,
    })
}

/// Whether every value of `from` is a value of `to` in NumPy's "safe" sense
/// (`int64 -> float64` counts as safe, as in NumPy).
pub fn can_cast_safely(from: Scalar, to: Scalar) -> bool {
    promote_scalars(from, to) == Some(to)
}

fn no_common(a: &Type, b: &Type) -> Error {
    Error::Promote {
        lhs: a.clone(),
        rhs: b.clone(),
    }
}

/// The common type of two data types.
///
/// # Errors
///
/// [`Error::Promote`] naming both types when they have none (e.g. `string`
/// and `int32`, a dimension type, or two different type variables; a
/// naive and a zoned `datetime`, or two zones).
pub fn promote(a: &Type, b: &Type) -> Result<Type, Error> {
    if a == b && !a.is_dim() {
        return Ok(a.clone());
    }
    match (a.kind(), b.kind()) {
        (TypeKind::Scalar(x), TypeKind::Scalar(y)) => promote_scalars(*x, *y)
            .map(Type::from)
            .ok_or_else(|| no_common(a, b)),
        // Zoned instants meet in one zone at the finer unit; a zoned and a
        // naive datetime, or two zones, have no common type.
        (TypeKind::DateTimeTz { unit: u, tz: z }, TypeKind::DateTimeTz { unit: v, tz: w })
            if z == w =>
        {
            Type::new(TypeKind::DateTimeTz {
                unit: *u.max(v),
                tz: z.clone(),
            })
        }
        (TypeKind::Option(x), TypeKind::Option(y)) => {
            Type::option(promote(x, y).map_err(|_| no_common(a, b))?)
        }
        (TypeKind::Option(x), _) if !b.is_dim() => {
            Type::option(promote(x, b).map_err(|_| no_common(a, b))?)
        }
        (_, TypeKind::Option(y)) if !a.is_dim() => {
            Type::option(promote(a, y).map_err(|_| no_common(a, b))?)
        }
        (TypeKind::Tuple(x), TypeKind::Tuple(y))
            if !x.variadic && !y.variadic && x.fields.len() == y.fields.len() =>
        {
            let fields = x
                .fields
                .iter()
                .zip(&y.fields)
                .map(|(p, q)| promote(p, q))
                .collect::<Result<_, _>>()
                .map_err(|_| no_common(a, b))?;
            Type::new(TypeKind::Tuple(Tuple {
                fields,
                variadic: false,
            }))
        }
        (TypeKind::Struct(x), TypeKind::Struct(y))
            if !x.variadic
                && !y.variadic
                && x.fields.len() == y.fields.len()
                && x.fields.iter().zip(&y.fields).all(|(p, q)| p.0 == q.0) =>
        {
            let fields = x
                .fields
                .iter()
                .zip(&y.fields)
                .map(|((n, p), (_, q))| Ok((n.clone(), promote(p, q)?)))
                .collect::<Result<_, Error>>()
                .map_err(|_| no_common(a, b))?;
            Type::new(TypeKind::Struct(Struct {
                fields,
                variadic: false,
            }))
        }
        _ => Err(no_common(a, b)),
    }
}
