//! The array functions that build arrays from others: [`concatenate`],
//! [`stack`], [`flip`] (a view), [`repeat`], [`tile`], [`diff`],
//! [`linspace`], and `arange` (the builtin `range` under NumPy's name);
//! each also a builtin for dynamic callers, arrays as positional
//! arguments (`concatenate(a, b, c, axis=0)` in `dynd eval`).
//!
//! ```
//! use dynd::func::{concatenate, diff, linspace, stack};
//! use dynd::nd::array;
//!
//! let (a, b) = (array![[1, 2]], array![[3.5, 4.0]]);
//! let c = concatenate(&[&a, &b], 0)?; // NumPy's promotion: float64
//! assert_eq!((c.to_string(), c.ty().to_string()), ("[[1, 2], [3.5, 4]]".into(), "2 * 2 * float64".into()));
//! assert_eq!(stack(&[&array![1, 2], &array![3, 4]], 1)?.to_string(), "[[1, 3], [2, 4]]");
//! assert_eq!(diff(&array![1, 4, 9, 16], 2, -1)?.to_string(), "[2, 2]");
//! assert_eq!(linspace(0.0, 1.0, 5, true)?.to_string(), "[0, 0.25, 0.5, 0.75, 1]");
//! # Ok::<(), dynd::Error>(())
//! ```

use dynd_kernels::take::TakeMode;
use dynd_kernels::ArrayOps;
use dynd_kernels::{Array, ErrorMode, Index};
use dynd_types::{Dim, Scalar, Type};

use crate::arrays::{ints, RANGE};
use crate::builtin::builtins;
use crate::callable::{decode, Callable, Keyword};
use crate::elementwise::{NOT_EQUAL, SUBTRACT};
use crate::error::Error;
use crate::options::AxisKeyword;
use crate::ordering::{axis_of, dense_shape, last_axis};

mod ragged;

/// `len` elements from `start` along `axis` of an `ndim`-dimensional
/// array, every other dimension whole.
fn along(axis: usize, start: i64, stop: Option<i64>, step: i64) -> Vec<Index> {
    let mut ix = vec![Index::slice(None, None, 1); axis];
    ix.push(Index::slice(Some(start), stop, step));
    ix
}

/// The arrays' types, for an error that they do not fit together.
fn types_of(arrays: &[&Array]) -> String {
    arrays
        .iter()
        .map(|a| a.ty().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The arrays joined along an existing `axis` (NumPy's `concatenate`):
/// the same number of dimensions and the same sizes but along `axis`;
/// the data type is their common one (NumPy's promotion).
///
/// # Errors
///
/// No arrays, shapes that differ off the axis, an axis out of range,
/// data types without a common one.
///
/// With `var` dimensions, `axis=0` appends the rows of each array (the
/// dimensions below the first alike but for row lengths) and the last
/// axis joins row `i` of each array into row `i` (Polars'
/// `concat_list`; the arrays' dimensions above the rows alike).
///
/// ```
/// use dynd::nd::Array;
/// let a = Array::from_nested(vec![vec![1, 2], vec![]])?;
/// let b = Array::from_nested(vec![vec![3.5], vec![4.5, 5.5]])?;
/// assert_eq!(dynd::func::concatenate(&[&a, &b], 0)?.to_string(), "[[1, 2], [], [3.5], [4.5, 5.5]]");
/// assert_eq!(dynd::func::concatenate(&[&a, &b], 1)?.to_string(), "[[1, 2, 3.5], [4.5, 5.5]]");
/// # Ok::<(), dynd::Error>(())
/// ```
pub fn concatenate(arrays: &[&Array], axis: i64) -> Result<Array, Error> {
    if arrays.iter().any(|a| a.is_categorical()) {
        // Each one's values: two categoricals may hold different categories.
        let plain = arrays
            .iter()
            .map(|a| decode(a))
            .collect::<Result<Vec<_>, _>>()?;
        return concatenate(&plain.iter().collect::<Vec<_>>(), axis);
    }
    let Some(first) = arrays.first() else {
        return Err(Error::Argument {
            op: "concatenate",
            what: "the arrays",
            expected: "at least one",
            found: "none".into(),
        });
    };
    if arrays.iter().any(|a| a.ty().has_var_dim()) {
        return ragged::concatenate(arrays, axis);
    }
    let shape0 = dense_shape(first, "concatenate over var (ragged) dimensions")?;
    if shape0.is_empty() {
        return Err(Error::Argument {
            op: "concatenate",
            what: "each array",
            expected: "at least 1-dimensional (stack joins scalars)",
            found: first.ty().to_string().into(),
        });
    }
    let axis = axis_of(axis, shape0.len(), "concatenate")?;
    let mut dtype = first.dtype().clone();
    let mut total = 0usize;
    for a in arrays {
        let s = dense_shape(a, "concatenate over var (ragged) dimensions")?;
        let same = s.len() == shape0.len()
            && s.iter()
                .zip(&shape0)
                .enumerate()
                .all(|(k, (x, y))| k == axis || x == y);
        if !same {
            return Err(Error::Argument {
                op: "concatenate",
                what: "the arrays' shapes",
                expected: "equal except along the axis",
                found: types_of(arrays).into(),
            });
        }
        total = total.checked_add(s[axis]).ok_or(Error::Size {
            what: "the concatenation's length",
            values: vec![("axis", axis as i128)],
        })?;
        dtype = dynd_types::promote(&dtype, a.dtype())?;
    }
    let mut shape = shape0.clone();
    shape[axis] = total;
    if axis == 0 {
        if let Some(fast) = concat_contiguous(arrays, &dtype, &shape) {
            return fast;
        }
    }
    let ty = Type::with_dims(shape.iter().map(|&n| Dim::Fixed(n)), dtype)?;
    let mut out = Array::zeros(&ty)?;
    let mut at = 0i64;
    for a in arrays {
        let n = a.ty().fixed_shape().map_or(0, |s| s[axis]) as i64;
        out.assign_at(&along(axis, at, Some(at + n), 1), a, ErrorMode::NoCheck)?;
        at += n;
    }
    Ok(out)
}

/// Axis-0 concatenation of C-contiguous arrays of one numeric data type:
/// one copy of each, end to end.
fn concat_contiguous(
    arrays: &[&Array],
    dtype: &Type,
    shape: &[usize],
) -> Option<Result<Array, Error>> {
    let s = dtype.as_scalar()?;
    if arrays
        .iter()
        .any(|a| a.dtype() != dtype || !a.is_c_contiguous())
    {
        return None;
    }
    dynd_array::with_numeric!(s, T => {
        let mut v: Vec<T> = Vec::new();
        if v.try_reserve_exact(shape.iter().product()).is_err() {
            return None;
        }
        for a in arrays {
            v.extend_from_slice(a.as_slice::<T>().ok()?);
        }
        Some(Array::from_shape_vec(shape, v))
    }, None)
}

/// The arrays, all of one shape, joined along a new `axis` (NumPy's
/// `stack`): `axis` 0 stacks them as rows, `-1` as the last dimension.
///
/// # Errors
///
/// As [`concatenate`], and shapes that differ.
pub fn stack(arrays: &[&Array], axis: i64) -> Result<Array, Error> {
    if arrays.iter().any(|a| a.is_categorical()) {
        // Each one's values: two categoricals may hold different categories.
        let plain = arrays
            .iter()
            .map(|a| decode(a))
            .collect::<Result<Vec<_>, _>>()?;
        return stack(&plain.iter().collect::<Vec<_>>(), axis);
    }
    let Some(first) = arrays.first() else {
        return concatenate(&[], 0);
    };
    let shape0 = dense_shape(first, "stack over var (ragged) dimensions")?;
    let ndim = shape0.len() + 1;
    let axis = axis_of(axis, ndim, "stack")?;
    let mut expanded = Vec::with_capacity(arrays.len());
    for a in arrays {
        if dense_shape(a, "stack over var (ragged) dimensions")? != shape0 {
            return Err(Error::Argument {
                op: "stack",
                what: "the arrays' shapes",
                expected: "all equal",
                found: arrays
                    .iter()
                    .map(|a| a.ty().to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
                    .into(),
            });
        }
        expanded.push(a.expand_dims(axis)?);
    }
    let refs: Vec<&Array> = expanded.iter().collect();
    concatenate(&refs, axis as i64)
}

/// `x` reversed along `axis`, or along every axis for `None` (NumPy's
/// `flip`): a view, no copy.
///
/// # Errors
///
/// An axis out of range.
pub fn flip(x: &Array, axis: Option<i64>) -> Result<Array, Error> {
    let ndim = x.ndim();
    match axis {
        Some(a) => {
            let a = axis_of(a, ndim, "flip")?;
            let mut ix = vec![Index::slice(None, None, 1); a];
            ix.push(Index::slice(None, None, -1));
            x.index(&ix)
        }
        None => x.index(&vec![Index::slice(None, None, -1); ndim]),
    }
}

/// Each element repeated (NumPy's `repeat`): `repeats` is one count for
/// all or one per element along `axis`; without an axis, over the
/// flattened array.
///
/// # Errors
///
/// A negative count, a count list of the wrong length, an axis out of
/// range, a result too large to allocate, `var` dimensions (not yet).
pub fn repeat(x: &Array, repeats: &[i64], axis: Option<i64>) -> Result<Array, Error> {
    let (x, axis) = match axis {
        Some(a) => (x.clone(), axis_of(a, x.ndim(), "repeat")?),
        None => (x.reshape([-1i64])?, 0),
    };
    let shape = dense_shape(&x, "repeat over var (ragged) dimensions")?;
    let n = shape[axis];
    if repeats.len() != 1 && repeats.len() != n {
        return Err(Error::Argument {
            op: "repeat",
            what: "repeats",
            expected: "one count, or one per element along the axis",
            found: format!("{} counts for {n} elements", repeats.len()).into(),
        });
    }
    if let Some(r) = repeats.iter().find(|r| **r < 0) {
        return Err(Error::Argument {
            op: "repeat",
            what: "each count",
            expected: "at least 0",
            found: r.to_string().into(),
        });
    }
    let count = |i: usize| repeats[if repeats.len() == 1 { 0 } else { i }] as usize;
    let total = (0..n).try_fold(0usize, |t, i| t.checked_add(count(i)));
    let mut idx: Vec<i64> = Vec::new();
    reserve(&mut idx, total)?;
    for i in 0..n {
        idx.extend(std::iter::repeat_n(i as i64, count(i)));
    }
    x.take(&Array::from_vec(idx), Some(axis as i64), TakeMode::Raise)
}

/// `x` repeated `reps[k]` times along each axis (NumPy's `tile`): with
/// more `reps` than dimensions, `x` gains leading ones; with fewer, the
/// leading axes repeat once.
///
/// # Errors
///
/// A negative count, a result too large to allocate, `var` dimensions
/// (not yet).
pub fn tile(x: &Array, reps: &[i64]) -> Result<Array, Error> {
    if let Some(r) = reps.iter().find(|r| **r < 0) {
        return Err(Error::Argument {
            op: "tile",
            what: "each count",
            expected: "at least 0",
            found: r.to_string().into(),
        });
    }
    let mut x = x.clone();
    while x.ndim() < reps.len() {
        x = x.expand_dims(0)?;
    }
    let shape = dense_shape(&x, "tile over var (ragged) dimensions")?;
    let reps: Vec<usize> = std::iter::repeat_n(1, shape.len() - reps.len())
        .chain(reps.iter().map(|&r| r as usize))
        .collect();
    for (axis, (&n, &r)) in shape.iter().zip(&reps).enumerate() {
        if r == 1 {
            continue;
        }
        let mut idx: Vec<i64> = Vec::new();
        reserve(&mut idx, n.checked_mul(r))?;
        idx.extend((0..n * r).map(|i| (i % n.max(1)) as i64));
        x = x.take(&Array::from_vec(idx), Some(axis as i64), TakeMode::Raise)?;
    }
    Ok(x)
}

/// The `n`-th discrete difference along `axis` (NumPy's `diff`):
/// `x[1:] - x[:-1]`, `n` times (`not_equal` for `bool`, as NumPy);
/// integers wrap as `subtract` does. `n = 0` gives `x`.
///
/// # Errors
///
/// An axis out of range, a type `subtract` does not take; with `var`
/// dimensions, an axis other than the last (each row's differences).
pub fn diff(x: &Array, n: usize, axis: i64) -> Result<Array, Error> {
    if x.ty().has_var_dim() {
        last_axis(x, axis, "diff")?;
        return ragged::diff(x, n);
    }
    let shape = dense_shape(x, "diff over var (ragged) dimensions")?;
    let axis = axis_of(axis, shape.len(), "diff")?;
    let mut r = x.clone();
    // Past the axis' length every further difference is empty.
    for _ in 0..n.min(shape[axis]) {
        let (hi, lo) = (
            r.index(&along(axis, 1, None, 1))?,
            r.index(&along(axis, 0, Some(-1), 1))?,
        );
        r = if r.dtype().as_scalar() == Some(Scalar::Bool) {
            NOT_EQUAL.call(&[&hi, &lo])?
        } else {
            SUBTRACT.call(&[&hi, &lo])?
        };
    }
    Ok(r)
}

/// `num` evenly spaced `float64` values from `start` to `stop`, `stop`
/// included when `endpoint` (NumPy's `linspace`: `start + i * step`, the
/// last set to `stop` exactly).
///
/// # Errors
///
/// [`Error::Alloc`] when `num` values do not fit in memory.
pub fn linspace(start: f64, stop: f64, num: usize, endpoint: bool) -> Result<Array, Error> {
    let div = if endpoint { num.saturating_sub(1) } else { num };
    let delta = stop - start;
    let mut v: Vec<f64> = Vec::new();
    v.try_reserve_exact(num).map_err(|_| Error::Alloc {
        bytes: (num as u64).saturating_mul(8),
    })?;
    v.extend((0..num).map(|i| {
        if div == 0 {
            start
        } else {
            let step = delta / div as f64;
            if step == 0.0 {
                i as f64 * delta / div as f64 + start
            } else {
                i as f64 * step + start
            }
        }
    }));
    if endpoint && num > 1 {
        v[num - 1] = stop;
    }
    Ok(Array::from_vec(v))
}

/// Room for `count` indexes (`None`: more than `usize` counts), or the
/// allocation error a huge count deserves (not an abort).
fn reserve(v: &mut Vec<i64>, count: Option<usize>) -> Result<(), Error> {
    let bytes = count.map_or(u64::MAX, |c| (c as u64).saturating_mul(8));
    match count {
        Some(c) if v.try_reserve_exact(c).is_ok() => Ok(()),
        _ => Err(Error::Alloc { bytes }),
    }
}

/// A keyword's integer value, or `default`.
fn int_or(kw: &crate::Kwargs, name: &str, default: i64) -> Result<i64, Error> {
    Ok(kw.int(name)?.unwrap_or(default))
}

/// A count argument that must not be negative.
fn count_arg(op: &'static str, what: &'static str, n: i64) -> Result<usize, Error> {
    usize::try_from(n).map_err(|_| Error::Argument {
        op,
        what,
        expected: "at least 0",
        found: n.to_string().into(),
    })
}

/// A number argument as `f64`.
fn number(op: &str, i: usize, a: &Array) -> Result<f64, Error> {
    a.cast(&Type::from(Scalar::Float64), ErrorMode::NoCheck)
        .ok()
        .filter(|c| c.ndim() == 0)
        .and_then(|c| c.get::<f64>(&[]).ok())
        .ok_or_else(|| Error::ArgumentValue {
            name: op.into(),
            arg: i,
            expected: "a number",
            value: a.to_string().into(),
            ty: a.ty().clone(),
            note: None,
        })
}

builtins! {
    $ TABLE, __shaping_builtins;

    /// `(Any, ..., axis: ?int64) -> Any`: the arrays joined along an
    /// existing axis (default 0), their common data type.
    CONCATENATE concatenate "concatenate" rs None => {
        Callable::function(
            "concatenate",
            dynd_macros::checked_signature!("(Any, ..., axis: ?int64) -> Any"),
            vec![Keyword::maybe("axis", Some(Scalar::Int64))],
            |args, kw| concatenate(args, int_or(kw, "axis", 0)?),
        )
    };

    /// `(Any, ..., axis: ?int64) -> Any`: arrays of one shape joined along a
    /// new axis (default 0).
    STACK stack "stack" rs None => {
        Callable::function(
            "stack",
            dynd_macros::checked_signature!("(Any, ..., axis: ?int64) -> Any"),
            vec![Keyword::maybe("axis", Some(Scalar::Int64))],
            |args, kw| stack(args, int_or(kw, "axis", 0)?),
        )
    };

    /// `(Any, axis: ?int64) -> Any`: reversed along `axis`, or every axis;
    /// a view.
    FLIP flip "flip" rs None => {
        Callable::over_axes("flip", &[AxisKeyword::Axis], |a, o| flip(a, o.one_axis("flip")?))
    };

    /// `(Any, Any, axis: ?int64) -> Any`: each element repeated (a count,
    /// or one per element along `axis`); flattened without an axis.
    REPEAT repeat "repeat" rs None => {
        Callable::function(
            "repeat",
            dynd_macros::checked_signature!("(Any, Any, axis: ?int64) -> Any"),
            vec![Keyword::maybe("axis", Some(Scalar::Int64))],
            |args, kw| repeat(args[0], &ints("repeat", 1, args[1])?, kw.int("axis")?),
        )
    };

    /// `(Any, Any) -> Any`: the array repeated along each axis (a count or
    /// a list of counts).
    TILE tile "tile" rs None => {
        Callable::function("tile", dynd_macros::checked_signature!("(Any, Any) -> Any"), vec![], |args, _| {
            tile(args[0], &ints("tile", 1, args[1])?)
        })
    };

    /// `(Any, n: ?int64, axis: ?int64) -> Any`: the `n`-th difference (default
    /// 1) along `axis` (default -1).
    DIFF diff "diff" rs None => {
        Callable::over_axes("diff", &[AxisKeyword::N, AxisKeyword::Axis], |a, o| {
            diff(a, o.n_value(), o.one_axis("diff")?.unwrap_or(-1))
        })
    };

    /// `(Scalar, Scalar, num: ?int64, endpoint: ?bool) -> Any`: `num`
    /// (default 50) evenly spaced `float64` values, `stop` included unless
    /// `endpoint=false`.
    LINSPACE linspace "linspace" rs None => {
        Callable::function(
            "linspace",
            dynd_macros::checked_signature!("(Scalar, Scalar, num: ?int64, endpoint: ?bool) -> Any"),
            vec![Keyword::maybe("num", Some(Scalar::Int64)), Keyword::maybe("endpoint", Some(Scalar::Bool))],
            |args, kw| {
                let num = count_arg("linspace", "num", int_or(kw, "num", 50)?)?;
                linspace(number("linspace", 0, args[0])?, number("linspace", 1, args[1])?, num, kw.bool("endpoint")?.unwrap_or(true))
            },
        )
    };

    /// `arange`: the same function as `range` (NumPy's name).
    ARANGE arange "arange" rs None => {
        Ok(RANGE.get_or_build()?.renamed("arange"))
    };
}

/// Evenly spaced values from `start` up to (not including) `stop` by
/// `step`, as NumPy's `arange` (the builtin `range`): `int64` for
/// integers, `float64` for floats.
///
/// ```
/// use dynd::func;
///
/// assert_eq!(func::arange(0, 10, 3)?.to_string(), "[0, 3, 6, 9]");
/// assert_eq!(func::arange(1.0, 0.0, -0.25)?.to_string(), "[1, 0.75, 0.5, 0.25]");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// A zero step, or more values than memory holds.
pub fn arange<T: dynd_kernels::Element>(start: T, stop: T, step: T) -> Result<Array, Error> {
    let (a, b, c) = (
        Array::from_scalar(start),
        Array::from_scalar(stop),
        Array::from_scalar(step),
    );
    RANGE.call(&[&a, &b, &c])
}
