//! Records: reading a field (`field`), building records from arrays
//! (`zip`, Awkward's `ak.zip`) and adding or replacing a field
//! (`with_field`, Awkward's `ak.with_field`).
//!
//! A field is a view of the record array ([`Array::field`]); `zip` and
//! `with_field` give records held as columns ([`Array::from_columns`])
//! whose fields are the arrays given, not copies, wherever those already
//! have the result's shape; an array that broadcasts (a scalar, one value
//! per row of a ragged array) is written out to the result's shape.
//!
//! Arrays zip as Awkward zips them: with ragged (`var`) dimensions, a
//! shallower array lines up with the outer dimensions of a deeper one
//! (each value of `[1, 2, 3]` goes with every element of the row beside
//! it); arrays of fixed dimensions alone broadcast as NumPy's do (from
//! the right).
//!
//! ```
//! use dynd::func;
//! use dynd::nd::{array, Array};
//!
//! let a = array![1, 2, 3];
//! let b = Array::from_json("[[1.5], [], [2.5, 3.5]]", Some(&"3 * var * float64".parse()?))?;
//! let r = func::zip(&[&a, &b], Some(&["a", "b"]))?;
//! assert_eq!(r.ty().to_string(), "3 * var * {a: int64, b: float64}");
//! assert_eq!(
//!     r.to_string(),
//!     r#"[[{"a": 1, "b": 1.5}], [], [{"a": 3, "b": 2.5}, {"a": 3, "b": 3.5}]]"#
//! );
//! assert_eq!(func::field(&r, "b")?.data_block().as_ptr(), b.data_block().as_ptr()); // b itself
//!
//! let r = func::with_field(&r, &array![10, 20, 30], "c")?;
//! assert_eq!(r.ty().to_string(), "3 * var * {a: int64, b: float64, c: int64}");
//! # Ok::<(), dynd::Error>(())
//! ```

use dynd_kernels::elwise::alloc_broadcast;
use dynd_kernels::{Array, ArrayOps, ErrorMode, Value};
use dynd_macros::checked_signature;
use dynd_types::{BroadcastMode, Dim, Scalar, Type, TypeKind};

use crate::builtin::builtins;
use crate::callable::{Callable, Keyword};
use crate::error::Error;

builtins! {
    $ TABLE, __records_builtins;

    /// `(Any, Scalar) -> Any`: field `name` (a string) of each record,
    /// or field `i` (an integer) of each tuple or record; a view.
    FIELD field "field" rs None => {
        Callable::function("field", checked_signature!("(Any, Scalar) -> Any"), vec![], |args, _| {
            match args[1].to_value() {
                Value::Str(name) => field(args[0], &name),
                Value::Int(i) => match usize::try_from(i) {
                    Ok(i) => args[0].field_at(i),
                    Err(_) => Err(bad_name("field", args[1])),
                },
                _ => Err(bad_name("field", args[1])),
            }
        })
    };

    /// `(Any, ..., fields: ?Any) -> Any`: records of the arrays' elements,
    /// broadcast together (Awkward's `ak.zip`); tuples without `fields`.
    ZIP zip "zip" rs None => {
        Callable::function(
            "zip",
            checked_signature!("(Any, ..., fields: ?Any) -> Any"),
            vec![Keyword::maybe("fields", None)],
            |args, kw| {
                let names = match kw.get("fields") {
                    Some(f) => Some(strings("zip", f)?),
                    None => None,
                };
                let refs: Option<Vec<&str>> = names.as_ref().map(|n| n.iter().map(String::as_str).collect());
                zip(args, refs.as_deref())
            },
        )
    };

    /// `(Any, Any, string) -> Any`: the records with field `name` set to
    /// the value (broadcast), added after the others or replacing one.
    WITH_FIELD with_field "with_field" rs None => {
        Callable::function("with_field", checked_signature!("(Any, Any, string) -> Any"), vec![], |args, _| {
            match args[2].to_value() {
                Value::Str(name) => with_field(args[0], args[1], &name),
                _ => Err(bad_name("with_field", args[2])),
            }
        })
    };
}

fn bad_name(op: &'static str, a: &Array) -> Error {
    Error::Argument {
        op,
        what: "the field",
        expected: "a name (string) or a position (integer at least 0)",
        found: format!("{a} ({})", a.ty()).into(),
    }
}

/// The strings of a string or list-of-strings argument.
fn strings(op: &'static str, a: &Array) -> Result<Vec<String>, Error> {
    let bad = || Error::Argument {
        op,
        what: "fields",
        expected: "a list of field names",
        found: format!("{a} ({})", a.ty()).into(),
    };
    match a.to_value() {
        Value::Str(s) => Ok(vec![s]),
        Value::List(items) => items
            .into_iter()
            .map(|v| match v {
                Value::Str(s) => Ok(s),
                _ => Err(bad()),
            })
            .collect(),
        _ => Err(bad()),
    }
}

/// Field `name` of each record of `x` (a position, `"0"`, for tuples): a
/// view ([`Array::field`]).
///
/// # Errors
///
/// [`Error::NoField`] listing the fields; [`Error::NeedsArray`] for an
/// array that does not hold records.
pub fn field(x: &Array, name: &str) -> Result<Array, Error> {
    x.field(name)
}

/// Records of the arrays' elements, broadcast together (as
/// [`broadcast_arrays`] lines them up): `{name: T, ...}` with `fields`,
/// tuples `(T, ...)` without. The result holds its fields as columns: the arrays
/// themselves where they already have its shape.
///
/// # Errors
///
/// [`Error::Broadcast`] or a ragged-row error for arrays that do not
/// broadcast together; [`Error::Argument`] for no arrays or a `fields`
/// list of another length; [`Error::Invalid`] for a name given twice.
pub fn zip(arrays: &[&Array], fields: Option<&[&str]>) -> Result<Array, Error> {
    if arrays.is_empty() {
        return Err(Error::Argument {
            op: "zip",
            what: "the arrays",
            expected: "at least one array",
            found: "none".into(),
        });
    }
    if let Some(names) = fields {
        if names.len() != arrays.len() {
            return Err(Error::Argument {
                op: "zip",
                what: "fields",
                expected: "one name per array",
                found: format!("{} name(s) for {} array(s)", names.len(), arrays.len()).into(),
            });
        }
    }
    let columns = broadcast_together(arrays)?;
    let nd = columns.first().map_or(0, Array::ndim);
    match fields {
        Some(names) => Array::from_columns_at(nd, names.iter().copied().zip(columns)),
        None => Array::tuple_from_columns_at(nd, columns),
    }
}

/// The records of `x` with field `name` set to `value`, broadcast against
/// them (as [`zip`] broadcasts): added after the other fields, or in the
/// place of the field of that name. The result holds its fields as
/// columns: `x`'s fields are views of `x`, not copies. Each field of
/// optional records (`?{...}`) is optional in the result: an NA record
/// becomes a record of NA fields.
///
/// ```
/// use dynd::func;
/// use dynd::nd::Array;
///
/// let p = Array::from_json(r#"[{"x": 1, "y": 2}, {"x": 3, "y": 4}]"#, Some(&"2 * {x: int32, y: int32}".parse()?))?;
/// let q = func::with_field(&p, &Array::from_scalar(0.5f64), "x")?;
/// assert_eq!(q.ty().to_string(), "2 * {x: float64, y: int32}");
/// assert_eq!(q.to_string(), r#"[{"x": 0.5, "y": 2}, {"x": 0.5, "y": 4}]"#);
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// As [`zip`]; [`Error::NeedsArray`] if `x` does not hold records.
pub fn with_field(x: &Array, value: &Array, name: &str) -> Result<Array, Error> {
    let rec = match x.dtype().kind() {
        TypeKind::Option(t) => t,
        _ => x.dtype(),
    };
    let TypeKind::Struct(s) = rec.kind() else {
        return Err(Error::NeedsArray {
            op: "with_field".into(),
            expected: "an array of records",
            found: x.ty().clone(),
        });
    };
    let nd = x.ndim();
    let dims = x.shape();
    // The value over the records' dimensions: itself when its first
    // dimensions are theirs (rows and all), else broadcast to them (a
    // shallower ragged value lines up on the left, as in `zip`).
    let mut v = value.clone();
    if x.ty().has_var_dim() && v.ndim() > 0 {
        while v.ndim() < nd {
            v = v.expand_dims(v.ndim())?;
        }
    }
    let fits = v.ndim() >= nd
        && v.shape()[..nd] == dims[..]
        && Array::tuple_from_columns_at(nd, [x.clone(), v.clone()]).is_ok();
    if !fits {
        if v.ndim() > nd {
            return Err(Error::NeedsArray {
                op: "with_field".into(),
                expected:
                    "a value whose leading dimensions are the records' (or broadcast to them)",
                found: value.ty().clone(),
            });
        }
        let ty = Type::with_dims(dims.iter().cloned(), v.dtype().clone())?;
        let mut out = alloc_broadcast(&ty, &[x, &v])?;
        out.assign(&v, ErrorMode::NoCheck)?;
        v = out;
    }
    let mut names: Vec<&str> = s.fields.iter().map(|(n, _)| &**n).collect();
    let mut arrays = x.fields()?;
    match names.iter().position(|n| *n == name) {
        Some(i) => arrays[i] = v,
        None => {
            names.push(name);
            arrays.push(v);
        }
    }
    Array::from_columns_at(nd, names.into_iter().zip(arrays))
}

/// The arrays broadcast to one shape, as [`zip`] lines them up (with
/// `var` dimensions, a shallower array lines up with the outer dimensions
/// of a deeper one; fixed dimensions alone broadcast as NumPy's do, from
/// the right): each itself where it has that shape already
/// (rows and all), else written out to it. NumPy's `broadcast_arrays`,
/// with Awkward's left alignment for ragged arrays.
///
/// ```
/// use dynd::func::broadcast_arrays;
/// use dynd::nd::{array, Array};
///
/// let rows = Array::from_json("[[1.5], [], [2.5, 3.5]]", None)?;
/// let b = broadcast_arrays(&[&array![10, 20, 30], &rows])?;
/// assert_eq!(b[0].to_string(), "[[10], [], [30, 30]]");
/// assert_eq!(b[1].data_block().as_ptr(), rows.data_block().as_ptr()); // itself
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::Broadcast`] or a ragged-row error for arrays that do not
/// broadcast together.
pub fn broadcast_arrays(arrays: &[&Array]) -> Result<Vec<Array>, Error> {
    broadcast_together(arrays)
}

fn broadcast_together(arrays: &[&Array]) -> Result<Vec<Array>, Error> {
    let ragged = arrays.iter().any(|a| a.ty().has_var_dim());
    let ndim = arrays.iter().map(|a| a.ndim()).max().unwrap_or(0);
    // Awkward's left alignment for ragged data: a shallower array gains
    // length-1 dimensions on the right.
    let lined: Vec<Array> = arrays
        .iter()
        .map(|a| {
            let mut a = (*a).clone();
            if ragged && a.ndim() > 0 {
                while a.ndim() < ndim {
                    a = a.expand_dims(a.ndim())?;
                }
            }
            Ok(a)
        })
        .collect::<Result<_, Error>>()?;
    let shapes: Vec<Type> = lined
        .iter()
        .map(|a| Type::with_dims(a.shape(), Scalar::Bool.into()))
        .collect::<Result<_, _>>()?;
    let shape = dynd_types::broadcast(&shapes, BroadcastMode::NumPy)?;
    let dims: Vec<Dim> = shape.split_dims().0.into_iter().cloned().collect();
    let refs: Vec<&Array> = lined.iter().collect();
    // Equal shapes and rows: the arrays themselves (the check is one pass
    // over the rows, none for fixed dimensions).
    if lined.iter().all(|a| a.shape() == dims)
        && Array::tuple_from_columns_at(dims.len(), lined.iter().cloned()).is_ok()
    {
        return Ok(lined);
    }
    // The broadcast rows, to tell which arrays have them already.
    let rows = if shape.has_var_dim() {
        Some(alloc_broadcast(&shape, &refs)?)
    } else {
        None
    };
    lined
        .iter()
        .map(|a| {
            let same = a.shape() == dims
                && rows.as_ref().is_none_or(|r| {
                    Array::tuple_from_columns_at(dims.len(), [r.clone(), a.clone()]).is_ok()
                });
            if same {
                return Ok(a.clone());
            }
            let ty = Type::with_dims(dims.iter().cloned(), a.dtype().clone())?;
            let mut out = alloc_broadcast(&ty, &refs)?;
            out.assign(a, ErrorMode::NoCheck)?;
            Ok(out)
        })
        .collect()
}
