//! Array functions: `range` and `reshape`, whose result shape is an
//! argument's value; `sorted` (a sorted copy; `Array::sort` sorts in
//! place); `take(x, indices, axis=, mode=)` and
//! `index(x, i, ...)`, views where the positions allow.
//!
//! ```
//! use dynd::func::builtins;
//! use dynd::nd::{array, Array, Value};
//!
//! let range = builtins::get("range").unwrap();
//! let r = range.call(&[&Array::from_scalar(2i64), &Array::from_scalar(11i64), &Array::from_scalar(3i64)])?;
//! assert_eq!((r.to_string(), r.ty().to_string()), ("[2, 5, 8]".into(), "3 * int64".into()));
//! let reshape = builtins::get("reshape").unwrap();
//! let m = reshape.call(&[&array![1, 2, 3, 4, 5, 6], &array![3, -1]])?;
//! assert_eq!(m.to_string(), "[[1, 2], [3, 4], [5, 6]]");
//! let index = builtins::get("index").unwrap();
//! let all = Array::from_value(&Value::Str(":".into()), None)?;
//! let col = index.call(&[&m, &all, &Array::from_scalar(-1i64)])?;
//! assert_eq!(col.to_string(), "[2, 4, 6]"); // m[:, -1], a view
//! assert_eq!(col.data_block().as_ptr(), m.data_block().as_ptr());
//! # Ok::<(), dynd::Error>(())
//! ```

use dynd_kernels::take::TakeMode;
use dynd_kernels::ArrayOps;
use dynd_kernels::{Array, ErrorMode, Index, Value};
use dynd_macros::checked_signature;
use dynd_types::{Scalar, Type, TypeKind};

use crate::builtin::builtins;
use crate::callable::{Callable, Keyword, Kwargs};
use crate::error::Error;

builtins! {
    $ TABLE, __array_builtins;

    /// `(Scalar, ..., dtype: ?string) -> Any`: `range(stop)`,
    /// `range(start, stop)`, `range(start, stop, step)`, as Python's; int64
    /// unless a float is given or `dtype` names a type.
    RANGE range "range" _ None => {
        Callable::function(
            "range",
            checked_signature!("(Scalar, ..., dtype: ?string) -> Any"),
            vec![Keyword::maybe("dtype", Some(Scalar::String))],
            range,
        )
    };

    /// `(Any, Any) -> Any`: a view where the strides allow, else a copy;
    /// one `-1` takes the rest.
    RESHAPE reshape "reshape" _ None => {
        Callable::function("reshape", checked_signature!("(Any, Any) -> Any"), vec![], |args, _| {
            let shape = ints("reshape", 1, args[1])?;
            args[0].reshape(&shape)
        })
    };

    /// `(Any, axis: ?int64, reverse: ?bool) -> Any`: a sorted copy (stable,
    /// NaN last; each ragged row along a `var` axis).
    SORTED sorted "sorted" _ None => {
        Callable::function(
            "sorted",
            checked_signature!("(Any, axis: ?int64, reverse: ?bool) -> Any"),
            vec![
                Keyword::maybe("axis", Some(Scalar::Int64)),
                Keyword::maybe("reverse", Some(Scalar::Bool)),
            ],
            |args, kw| {
                let mut out = args[0].clone().into_writable()?;
                out.sort(kw.int("axis")?.unwrap_or(-1), kw.bool("reverse")?.unwrap_or(false))?;
                Ok(out)
            },
        )
    };

    /// `(Any, Any, axis: ?int64, mode: ?string) -> Any`: elements at the
    /// indexes along an axis (flattened without one); `mode` is `raise`,
    /// `wrap` or `clip`.
    TAKE take "take" _ None => {
        Callable::function(
            "take",
            checked_signature!("(Any, Any, axis: ?int64, mode: ?string) -> Any"),
            vec![
                Keyword::maybe("axis", Some(Scalar::Int64)),
                Keyword::maybe("mode", Some(Scalar::String)),
            ],
            |args, kw| {
                let mode = match kw.string("mode")? {
                    Some(m) => m.parse()?,
                    None => TakeMode::Raise,
                };
                args[0].take(args[1], kw.int("axis")?, mode)
            },
        )
    };

    /// `(Any, ...) -> Any`: `x[i, j, ...]` with integers and slice strings
    /// such as `"1:3"` or `"::-1"`; a view.
    INDEX index "index" _ None => {
        Callable::function("index", checked_signature!("(Any, ...) -> Any"), vec![], |args, _| {
            let entries = args[1..]
                .iter()
                .enumerate()
                .map(|(i, a)| index_entry(i + 1, a))
                .collect::<Result<Vec<Index>, Error>>()?;
            args[0].index(&entries)
        })
    };

    /// `(Any, string, errmode: ?string) -> Any`: the argument converted to
    /// the type named by the string (a data type keeps its dimensions);
    /// `errmode` is `nocheck`, `overflow`, `fractional` (the default) or
    /// `inexact`.
    CAST cast "cast" _ None => {
        Callable::function(
            "cast",
            checked_signature!("(Any, string, errmode: ?string) -> Any"),
            vec![Keyword::optional(
                "errmode",
                Scalar::String,
                Array::from_value(&Value::Str("fractional".into()), None)?,
            )],
            cast,
        )
        .map(Callable::taking_categories)
    };

    /// `(string) -> Any`: an array of the named type filled with 0 (NA for
    /// options).
    ZEROS zeros "zeros" _ None => {
        Callable::function("zeros", checked_signature!("(string) -> Any"), vec![], |args, _| {
            Array::zeros(&type_arg("zeros", 0, args[0])?)
        })
    };

    /// `(string) -> Any`: an array of the named type filled with 1.
    ONES ones "ones" rs None => {
        Callable::function("ones", checked_signature!("(string) -> Any"), vec![], |args, _| {
            let mut a = Array::zeros(&type_arg("ones", 0, args[0])?)?;
            a.assign(&Array::from_scalar(1u8), ErrorMode::NoCheck)?;
            Ok(a)
        })
    };

    /// `(string, Any) -> Any`: an array of the named type filled with the
    /// value (checked).
    FULL full "full" rs None => {
        Callable::function("full", checked_signature!("(string, Any) -> Any"), vec![], |args, _| {
            let mut a = Array::zeros(&type_arg("full", 0, args[0])?)?;
            a.assign(args[1], ErrorMode::Fractional)?;
            Ok(a)
        })
    };
}

/// An array of type `ty` filled with 1 (the builtin `ones`; `true` for
/// `bool`, `1 + 0i` for complex).
///
/// ```
/// use dynd::{func, ndt::Type};
///
/// let t: Type = "2 * 3 * int8".parse()?;
/// assert_eq!(func::ones(&t)?.to_string(), "[[1, 1, 1], [1, 1, 1]]");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// As [`Array::zeros`]: a type without a fixed size (`var`, symbolic).
pub fn ones(ty: &Type) -> Result<Array, Error> {
    ONES.call(&[&type_name(ty)?])
}

/// An array of type `ty` filled with `value` (broadcast to it, the
/// conversion checked as `cast`'s default mode does: the builtin `full`).
///
/// ```
/// use dynd::{func, ndt::Type, nd::array};
///
/// let t: Type = "2 * 2 * float32".parse()?;
/// assert_eq!(func::full(&t, &array![1.5, -1.0])?.to_string(), "[[1.5, -1], [1.5, -1]]");
/// assert!(func::full(&"3 * int8".parse()?, &array![1000]).is_err()); // does not fit
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// As [`Array::zeros`], and a value that does not broadcast to `ty` or
/// does not fit its data type.
pub fn full(ty: &Type, value: &Array) -> Result<Array, Error> {
    FULL.call(&[&type_name(ty)?, value])
}

/// `ty` written out, as the builtins that make arrays take their type.
fn type_name(ty: &Type) -> Result<Array, Error> {
    Array::from_value(&Value::Str(ty.to_string()), None)
}

/// Argument `i` of `index`: an integer, or a slice written as Python's
/// `start:stop:step` (any part may be empty: `:`, `1:`, `::-1`).
fn index_entry(i: usize, a: &Array) -> Result<Index, Error> {
    let bad = |why: &str| -> Error {
        Error::ArgumentValue {
            name: "index".into(),
            arg: i,
            expected: "an integer or a slice such as \"1:5:2\"",
            value: a.to_string().into(),
            ty: a.ty().clone(),
            note: why.strip_prefix(": ").map(Box::from),
        }
    };
    match a.to_value() {
        Value::Int(n) => Ok(Index::At(i64::try_from(n).map_err(|_| bad(""))?)),
        Value::Str(s) => {
            let parts: Vec<&str> = s.split(':').map(str::trim).collect();
            if parts.len() < 2 || parts.len() > 3 {
                return Err(bad(": a slice has one or two ':'"));
            }
            let num = |p: &str| -> Result<Option<i64>, Error> {
                if p.is_empty() {
                    Ok(None)
                } else {
                    p.parse()
                        .map(Some)
                        .map_err(|_| bad(&format!(": '{p}' is not an integer")))
                }
            };
            let step = match parts.get(2) {
                Some(p) => num(p)?.unwrap_or(1),
                None => 1,
            };
            Ok(Index::slice(num(parts[0])?, num(parts[1])?, step))
        }
        _ => Err(bad("")),
    }
}

/// Argument `i` as a list of integers (one integer is a list of one).
pub(crate) fn ints(name: &str, i: usize, a: &Array) -> Result<Vec<i64>, Error> {
    let bad = || Error::ArgumentValue {
        name: name.into(),
        arg: i,
        expected: "an integer or a list of integers",
        value: a.to_string().into(),
        ty: a.ty().clone(),
        note: None,
    };
    let one = |v: &Value| match v {
        Value::Int(n) => i64::try_from(*n).ok(),
        _ => None,
    };
    match a.to_value() {
        Value::List(items) => items
            .iter()
            .map(|v| one(v).ok_or_else(bad))
            .collect::<Result<_, _>>(),
        v => Ok(vec![one(&v).ok_or_else(bad)?]),
    }
}

/// A number argument: an integer, or a float.
enum Num {
    Int(i128),
    Float(f64),
}

/// `range(stop)`, `range(start, stop)`, `range(start, stop, step)`: the
/// numbers from `start` (0) up to but not including `stop`, `step` (1)
/// apart, as `int64` when all are integers and `float64` otherwise, or as
/// `dtype`.
fn range(args: &[&Array], kw: &Kwargs<'_>) -> Result<Array, Error> {
    if args.iter().any(|a| crate::ticks::is_time(a.dtype())) {
        return time_range(args);
    }
    if args.len() > 3 {
        return Err(Error::Arity {
            name: "range".into(),
            expected: 3,
            found: args.len(),
        });
    }
    let nums = args
        .iter()
        .enumerate()
        .map(|(i, a)| match a.to_value() {
            Value::Int(n) => Ok(Num::Int(n)),
            Value::Float(x) => Ok(Num::Float(x)),
            v => Err(Error::ArgumentValue {
                name: "range".into(),
                arg: i,
                expected: if matches!(v, Value::UInt(_)) {
                    "a number up to int128's largest, 2^127 - 1"
                } else {
                    "a number"
                },
                value: a.to_string().into(),
                ty: a.ty().clone(),
                note: None,
            }),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (start, stop, step) = match nums.as_slice() {
        [stop] => (&Num::Int(0), stop, &Num::Int(1)),
        [start, stop] => (start, stop, &Num::Int(1)),
        [start, stop, step] => (start, stop, step),
        _ => unreachable!("one to three arguments"),
    };
    let out = match (start, stop, step) {
        (Num::Int(a), Num::Int(b), Num::Int(s)) => {
            if *s == 0 {
                return Err(step_zero());
            }
            let too_big = || Error::Size {
                what: "a range of int64 values",
                values: vec![("start", *a), ("stop", *b), ("step", *s)],
            };
            let n = if (*s > 0 && b > a) || (*s < 0 && b < a) {
                let span = b.checked_sub(*a).ok_or_else(too_big)?;
                span.unsigned_abs().div_ceil(s.unsigned_abs()) as usize
            } else {
                0
            };
            check_len(n)?;
            let mut v: Vec<i64> = try_with_capacity(n)?;
            for k in 0..n as i128 {
                let x = k
                    .checked_mul(*s)
                    .and_then(|d| a.checked_add(d))
                    .and_then(|x| i64::try_from(x).ok())
                    .ok_or_else(too_big)?;
                v.push(x);
            }
            Array::from_vec(v)
        }
        _ => {
            let f = |n: &Num| match n {
                Num::Int(i) => *i as f64,
                Num::Float(x) => *x,
            };
            let (a, b, s) = (f(start), f(stop), f(step));
            if s == 0.0 {
                return Err(step_zero());
            }
            let n = ((b - a) / s).ceil();
            if !n.is_finite() {
                return Err(Error::Argument {
                    op: "range",
                    what: "start, stop and step",
                    expected: "values giving a finite length",
                    found: format!("{a}, {b} and {s}").into(),
                });
            }
            let n = n.max(0.0) as usize;
            check_len(n)?;
            let mut v: Vec<f64> = try_with_capacity(n)?;
            v.extend((0..n).map(|k| a + k as f64 * s));
            Array::from_vec(v)
        }
    };
    match kw.string("dtype")? {
        None => Ok(out),
        Some(d) => {
            let dtype: Type = d.parse()?;
            let (dims, _) = out.ty().split_dims();
            let ty = Type::with_dims(dims.into_iter().cloned(), dtype)?;
            Ok(out.cast(&ty, ErrorMode::Fractional)?)
        }
    }
}

/// `range(start, stop, step)` of dates, datetimes or times of day by a
/// `timedelta` step (of dates: a whole number of days), in the common
/// type of `start` and `stop` (the finer unit).
fn time_range(args: &[&Array]) -> Result<Array, Error> {
    use dynd_types::{Temporal, TimeUnit};
    let bad = |found: String| Error::Argument {
        op: "range",
        what: "the arguments",
        expected: "start and stop of one time type and a timedelta step",
        found: found.into(),
    };
    let [start, stop, step] = args else {
        return Err(bad(format!("{} arguments", args.len())));
    };
    let found = || format!("{}, {}, {}", start.ty(), stop.ty(), step.ty());
    let common = dynd_types::promote(start.ty(), stop.ty()).map_err(|_| bad(found()))?;
    let t = common
        .as_scalar()
        .and_then(Scalar::temporal)
        .ok_or_else(|| bad(found()))?;
    let Some(Temporal::TimeDelta(su)) = step.ty().as_scalar().and_then(Scalar::temporal) else {
        return Err(bad(found()));
    };
    let ticks = |x: &Array, ty: &Type| -> Result<i128, Error> {
        let x = if x.ty() == ty {
            x.clone()
        } else {
            x.cast(ty, ErrorMode::Overflow)?
        };
        match crate::ticks::as_ticks(&x)?.map(|v| v.to_value()) {
            Some(Value::Int(i)) => Ok(i),
            _ => Err(bad(found())),
        }
    };
    let (a, b) = (ticks(start, &common)?, ticks(stop, &common)?);
    let s = ticks(step, step.ty())?;
    // The step in the common type's ticks.
    let ns = |u: TimeUnit| 1_000_000_000 / i128::from(u.per_second());
    let tick = match t {
        Temporal::Date => 86_400 * 1_000_000_000,
        Temporal::TimeDelta(_) => return Err(bad(found())),
        _ => ns(t.unit().unwrap_or(TimeUnit::Micro)),
    };
    let step_ns = s * ns(su);
    if step_ns % tick != 0 {
        return Err(Error::Argument {
            op: "range",
            what: "the step",
            expected: "a whole number of the start's unit (of dates: whole days)",
            found: step.to_string().into(),
        });
    }
    let int = |v: i128| -> Result<Array, Error> {
        i64::try_from(v)
            .map(Array::from_scalar)
            .map_err(|_| bad(found()))
    };
    let r = RANGE.call(&[&int(a)?, &int(b)?, &int(step_ns / tick)?])?;
    let storage = Type::with_dims(r.shape(), t.scalar().storage().into())?;
    let r = r.cast(&storage, ErrorMode::Overflow)?;
    r.view_as(&common)
}

fn step_zero() -> Error {
    Error::Argument {
        op: "range",
        what: "the step",
        expected: "non-zero",
        found: "0".into(),
    }
}

/// Refuses lengths no array could hold.
fn check_len(n: usize) -> Result<(), Error> {
    if n > 1 << 40 {
        return Err(Error::Size {
            what: "range's length",
            values: vec![("elements", n as i128), ("most", 1 << 40)],
        });
    }
    Ok(())
}

/// An empty `Vec` with room for `n` elements, or [`dynd_kernels::Error::Alloc`]
/// (never an abort).
fn try_with_capacity<T>(n: usize) -> Result<Vec<T>, Error> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| dynd_kernels::Error::Alloc {
            bytes: (n as u64).saturating_mul(std::mem::size_of::<T>() as u64),
        })?;
    Ok(v)
}

/// A datashape given as a string argument.
fn type_arg(name: &str, i: usize, a: &Array) -> Result<Type, Error> {
    match a.to_value() {
        dynd_kernels::Value::Str(text) => Ok(text.parse::<Type>()?),
        _ => Err(Error::ArgumentValue {
            name: name.into(),
            arg: i,
            expected: "a datashape string",
            value: a.to_string().into(),
            ty: a.ty().clone(),
            note: None,
        }),
    }
}

/// `cast(x, type, errmode=)`.
fn cast(args: &[&Array], kw: &Kwargs<'_>) -> Result<Array, Error> {
    let target = type_arg("cast", 1, args[1])?;
    let mode: ErrorMode = match kw.string("errmode")? {
        Some(m) => m.parse().map_err(|_| Error::KeywordValue {
            name: "cast".into(),
            keyword: "errmode".into(),
            expected: "an error mode (nocheck, overflow, fractional or inexact)".into(),
            found: format!("'{m}'"),
        })?,
        None => ErrorMode::Fractional,
    };
    // A data type keeps the argument's dimensions.
    let target = if target.is_dim() {
        target
    } else {
        let (dims, _) = args[0].ty().split_dims();
        Type::with_dims(dims.into_iter().cloned(), target)?
    };
    cast_categorical(args[0], &target, mode)
}

/// `x` cast to `target`, through the values of a categorical `x`, and
/// dictionary-encoded for a categorical `target` (the codes of its index
/// type, its categories in order of first appearance).
fn cast_categorical(x: &Array, target: &Type, mode: ErrorMode) -> Result<Array, Error> {
    let (dims, dtype) = target.split_dims();
    let (option, inner) = match dtype.kind() {
        TypeKind::Option(t) => (true, t),
        _ => (false, dtype),
    };
    if x.ty() == target {
        return Ok(x.clone());
    }
    let x = match x.is_categorical() {
        true => crate::callable::decode(x)?,
        false => x.clone(),
    };
    let TypeKind::Categorical { values, index } = inner.kind() else {
        return x.cast(target, mode);
    };
    let values = match option {
        true => Type::option(values.clone())?,
        false => values.clone(),
    };
    let plain = Type::with_dims(dims.into_iter().cloned(), values)?;
    let encoded = crate::categories::encode_as(&x.cast(&plain, mode)?, *index)?;
    if encoded.ty() == target {
        return Ok(encoded);
    }
    // NA values encoded as an optional categorical: the option's type.
    Err(Error::NeedsArray {
        op: "cast".into(),
        expected:
            "values without NA for a categorical that is not optional (cast to ?categorical[T])",
        found: x.ty().clone(),
    })
}
