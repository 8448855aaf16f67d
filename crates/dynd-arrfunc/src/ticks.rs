//! The time types as the integers they are stored as: the ordering
//! functions, reductions and shapes of a `date`, `time`, `datetime` or
//! `timedelta` array run on a view of its integers ([`as_ticks`]), and
//! their values are read as the time type again ([`as_time`]). The order
//! of the integers is the order of the times (a zoned datetime's, of its
//! instants).

use dynd_kernels::Array;
use dynd_types::{Type, TypeKind};

use crate::error::Error;

/// The data type `t` with its value type replaced (an option stays one).
fn with_value(t: &Type, value: Type) -> Result<Type, Error> {
    match t.kind() {
        TypeKind::Option(_) => Ok(Type::option(value)?),
        _ => Ok(value),
    }
}

/// The value type of `t` (an option's inner type).
fn value(t: &Type) -> &Type {
    match t.kind() {
        TypeKind::Option(inner) => inner,
        _ => t,
    }
}

/// Whether `t` (a data type, optional or not) is a time type.
pub(crate) fn is_time(t: &Type) -> bool {
    value(t).element_scalar().is_some_and(|s| s.is_temporal())
}

/// `x` viewed as the integers of its time type (`?date` as `?int32`),
/// or `None` when `x` does not hold a time type.
pub(crate) fn as_ticks(x: &Array) -> Result<Option<Array>, Error> {
    let Some(s) = value(x.dtype())
        .element_scalar()
        .filter(|s| s.is_temporal())
    else {
        return Ok(None);
    };
    let dtype = with_value(x.dtype(), s.storage().into())?;
    Ok(Some(x.view_as(&dtype)?))
}

/// `r`, a result of a function of [`as_ticks`]'s view whose values are
/// the input's, as values of the time type `of` (the input's data type)
/// again; a result of other values (counts, positions) as it is.
pub(crate) fn as_time(r: Array, of: &Type) -> Result<Array, Error> {
    let (time, rv) = (value(of), value(r.dtype()));
    match (time.element_scalar(), rv.as_scalar()) {
        (Some(t), Some(s)) if t.is_temporal() && t.storage() == s => {
            let dtype = with_value(r.dtype(), time.clone())?;
            r.view_as(&dtype)
        }
        _ => Ok(r),
    }
}
