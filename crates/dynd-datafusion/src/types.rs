//! Arrow types to dynd types and back, as the functions see them.
//!
//! A DataFusion column of Arrow type `A` holds rows of dynd type `T`
//! ([`dynd::nd::arrow_interop::dynd_type`]); a batch of `n` rows is the dynd
//! array `n * T`, shared with the Arrow buffers. Types with no dynd
//! equivalent that still have an obvious meaning to a number-crunching
//! function are cast by DataFusion before the call ([`coerce`]): decimals to
//! `Float64`, dictionaries to their values, and a bare `NULL` to the type of
//! the other arguments.

use std::sync::Arc;

use datafusion::arrow::datatypes::{DataType, Field, FieldRef};
use datafusion::common::{plan_datafusion_err, DataFusionError, Result};
use dynd::nd::arrow_interop::{arrow_type, dynd_type};
use dynd::nd::Array;
use dynd::ndt::{Dim, Scalar, Type, TypeKind};

/// The dynd type of one row of an Arrow field (`?T` when it is nullable).
pub(crate) fn row_type(field: &Field, function: &str) -> Result<Type> {
    dynd_type(field.data_type(), field.is_nullable()).map_err(|e| {
        plan_datafusion_err!(
            "dynd function '{function}': argument '{}' of type {}: {e}",
            field.name(),
            field.data_type()
        )
    })
}

/// The Arrow type of a dynd row type (nullable or not).
pub(crate) fn data_type(t: &Type, function: &str) -> Result<(DataType, bool)> {
    arrow_type(t).map_err(|e| plan_datafusion_err!("dynd function '{function}' returns {t}: {e}"))
}

/// `t` as an Arrow field named `name`, nullable.
pub(crate) fn field(name: &str, t: &Type, function: &str) -> Result<FieldRef> {
    let (dt, _) = data_type(t, function)?;
    Ok(Arc::new(Field::new(name, dt, true)))
}

/// The argument types DataFusion casts to before calling a dynd function:
/// decimals become `Float64`, dictionaries their values, `Null` the first
/// other argument's primitive type (`Float64` if there is none); every
/// other type stays (dynd's own overload resolution does the rest).
pub(crate) fn coerce(arg_types: &[DataType]) -> Vec<DataType> {
    let base = |t: &DataType| -> DataType {
        match t {
            DataType::Decimal32(..)
            | DataType::Decimal64(..)
            | DataType::Decimal128(..)
            | DataType::Decimal256(..) => DataType::Float64,
            DataType::Dictionary(_, v) => v.as_ref().clone(),
            other => other.clone(),
        }
    };
    let others: Vec<DataType> = arg_types.iter().map(base).collect();
    let fill = others
        .iter()
        .find(|t| t.is_primitive())
        .cloned()
        .unwrap_or(DataType::Float64);
    others
        .into_iter()
        .map(|t| if t == DataType::Null { fill.clone() } else { t })
        .collect()
}

/// A one-row array of row type `t` whose `var` rows have one element: a
/// reduction run over it tells its result type.
pub(crate) fn sample(t: &Type) -> std::result::Result<Array, dynd::Error> {
    fn json(t: &Type, out: &mut String) -> bool {
        match t.kind() {
            TypeKind::Option(inner) => json(inner, out),
            TypeKind::Scalar(Scalar::Bool) => {
                out.push_str("false");
                true
            }
            TypeKind::Scalar(Scalar::String) => {
                out.push_str("\"\"");
                true
            }
            TypeKind::Scalar(s) if s.is_numeric() => {
                out.push('1');
                true
            }
            TypeKind::Dim(dim, element) => {
                let n = match dim {
                    Dim::Fixed(k) => *k,
                    _ => 1,
                };
                out.push('[');
                for i in 0..n {
                    if i > 0 {
                        out.push(',');
                    }
                    if !json(element, out) {
                        return false;
                    }
                }
                out.push(']');
                true
            }
            TypeKind::Struct(s) => {
                out.push('{');
                for (i, (name, ft)) in s.fields.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&format!("{name:?}:"));
                    if !json(ft, out) {
                        return false;
                    }
                }
                out.push('}');
                true
            }
            _ => false,
        }
    }
    let ty = Type::dim(Dim::Fixed(1), t.clone())?;
    let mut text = String::from("[");
    if !json(t, &mut text) {
        return Array::zeros(&ty);
    }
    text.push(']');
    Array::from_json(&text, Some(&ty))
}

/// A dynd error as DataFusion's execution error, naming the function.
pub(crate) fn exec(function: &str, e: dynd::Error) -> DataFusionError {
    DataFusionError::Execution(format!("dynd function '{function}': {e}"))
}

/// A dynd error as DataFusion's planning error, naming the function and
/// the argument types.
pub(crate) fn plan(
    function: &str,
    args: &[DataType],
    e: impl std::fmt::Display,
) -> DataFusionError {
    let args: Vec<String> = args.iter().map(|t| t.to_string()).collect();
    DataFusionError::Plan(format!(
        "dynd function '{function}' cannot take ({}): {e}",
        args.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coerce_fills_null_and_decimals() {
        let got = coerce(&[DataType::Null, DataType::Int32, DataType::Decimal128(10, 2)]);
        assert_eq!(got, [DataType::Int32, DataType::Int32, DataType::Float64]);
        assert_eq!(coerce(&[DataType::Null]), [DataType::Float64]);
    }

    #[test]
    fn samples_have_one_element_per_row() -> std::result::Result<(), dynd::Error> {
        let t: Type = "var * ?float64".parse()?;
        assert_eq!(sample(&t)?.to_string(), "[[1]]");
        let t: Type = "{a: 2 * int32, b: bool}".parse()?;
        assert_eq!(sample(&t)?.to_string(), r#"[{"a": [1, 1], "b": false}]"#);
        Ok(())
    }
}
