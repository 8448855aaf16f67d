//! The reduction builtins: `sum`, `prod`, `min`, `max`, `mean`, `all`,
//! `any`, `count`, each `(Any, axis: ?Any, keepdims: ?bool, initial:
//! ?Scalar, where: ?Any) -> Any` (`mean`, `all`, `any` and `count` without
//! `initial`; `count` gives the number of elements each reduction folds, as
//! `int64`, from the shape and row lengths — or the mask — alone, and
//! `mean` divides the sum by it);
//! `var` and `std`, `(Any, axis: ?Any, keepdims: ?bool, ddof: ?int64) ->
//! Any`, the variance `Σ(x - mean)² / (n - ddof)` and its square root in
//! two passes (accurate far from zero; NaN for `n <= ddof`; float32 stays
//! float32, other numbers give float64; ragged rows as the sums take them);
//! `kahan_sum(x, axis=, keepdims=)`, a compensated float64 sum from the
//! four pieces of a stateful reduction (init, step, combine, finish); and
//! the scans `cumsum(x, axis=)`, `cumprod(x, axis=)` along one axis
//! (the flattened array without one; each row of a ragged `var` axis).
//!
//! `axis` is one axis or a list (negative ones count from the end; all
//! axes by default); the result type depends on it and on `keepdims`,
//! which is why these are function callables, resolved by running. Sums
//! and products accumulate integers in 64 bits (`int64`, or `uint64` for
//! unsigned), as NumPy does; a float sum is pairwise over blocks summed
//! with eight accumulators (see [`dynd_kernels::reduce`]); `mean` of
//! integers is `float64`.
//!
//! ```
//! use dynd::func::{builtins, AxisOptions};
//! use dynd::nd::{array, Array};
//!
//! let sum = builtins::SUM.callable();
//! let a = array![[1, 2, 3], [4, 5, 6]];
//! assert_eq!(sum.call(&[&a])?.to_string(), "21");
//! // Keywords as Rust values...
//! let r = sum.reduce_with(&a, &AxisOptions::new().axis(1).keepdims(true))?;
//! assert_eq!((r.to_string(), r.ty().to_string()), ("[[6], [15]]".into(), "2 * 1 * int64".into()));
//! // ... or, for dynamic callers, as arrays (converted to the same options).
//! let (axis, keep) = (Array::from_scalar(1i64), Array::from_scalar(true));
//! let r2 = sum.call_kw(&[&a], &[("axis", &axis), ("keepdims", &keep)])?;
//! assert_eq!(r2.to_string(), r.to_string());
//! let max = builtins::get("max").unwrap();
//! let err = max.call(&[&Array::zeros(&"0 * float64".parse()?)?]).unwrap_err();
//! assert!(err.to_string().contains("pass `initial`"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use dynd_kernels::reduce::{
    accumulate, reduce, reduce_with, std_dev, variance as variance_of, Arith, KahanSum, ReduceArgs,
    Reduction, VarArgs,
};
use dynd_kernels::ArrayOps;
use dynd_kernels::{Array, Complex, Element, ErrorMode};
use dynd_macros::checked_signature;
use dynd_types::{Dim, Scalar, ScalarCategory, Type};

use crate::builtin::builtins;
use crate::callable::{Callable, EmptyGroup, ReductionKind};
use crate::elementwise::{DIVIDE, GREATER, LOGICAL_AND, NOT_EQUAL, WHERE};
use crate::error::Error;
use crate::options::{AxisKeyword, AxisOptions};

/// What a reduction builtin computes.
use crate::callable::Reducer as Op;

/// A reduction builtin: `f` over the first argument and the keywords,
/// whose parts combine as `kind` says.
fn reduction(
    name: &'static str,
    keywords: &[AxisKeyword],
    kind: ReductionKind,
    f: fn(&'static str, &Array, &AxisOptions) -> Result<Array, Error>,
) -> Result<Callable, Error> {
    let mut c = Callable::over_axes(name, keywords, move |a, o| f(name, a, o))?;
    c.reduction = kind;
    Ok(c)
}

/// A reduction of times, on their integers: `min` and `max` of any time
/// type, `sum` and `mean` of durations (the mean truncated toward zero
/// to the unit, as NumPy's); `None` when `a` holds no time type.
fn over_time(
    name: &'static str,
    op: Op,
    a: &Array,
    o: &AxisOptions,
) -> Option<Result<Array, Error>> {
    let ticks = crate::ticks::as_ticks(a).transpose()?;
    let durations = matches!(
        a.dtype()
            .element_scalar()
            .or_else(|| match a.dtype().kind() {
                dynd_types::TypeKind::Option(t) => t.element_scalar(),
                _ => None,
            })
            .and_then(Scalar::temporal),
        Some(dynd_types::Temporal::TimeDelta(_))
    );
    Some(ticks.and_then(|t| match op {
        Op::Min | Op::Max => crate::ticks::as_time(over_na(name, op, &t, o)?, a.dtype()),
        Op::Sum if durations => crate::ticks::as_time(over_na(name, op, &t, o)?, a.dtype()),
        Op::Mean if durations => {
            let m = over_na(name, op, &t, o)?;
            let (dims, dtype) = m.ty().split_dims();
            let int = match dtype.kind() {
                dynd_types::TypeKind::Option(_) => Type::option(Scalar::Int64.into())?,
                _ => Scalar::Int64.into(),
            };
            let m = m.cast(
                &Type::with_dims(dims.into_iter().cloned(), int)?,
                ErrorMode::NoCheck,
            )?;
            crate::ticks::as_time(m, a.dtype())
        }
        _ => Err(dynd_kernels::Error::Unsupported {
            operation: match op {
                Op::Sum | Op::Mean => {
                    "a sum or mean of dates or datetimes (of timedeltas it is one)"
                }
                _ => "this reduction of a time type (min, max, and sum and mean of timedeltas are)",
            },
            ty: a.ty().clone(),
        }),
    }))
}

/// The builtin reduction `op`, whose parts combine as `kind` says: the
/// callable carries `op`, which evaluation reads its properties from.
fn reducer(op: Op, keywords: &[AxisKeyword], kind: ReductionKind) -> Result<Callable, Error> {
    let name = op.name();
    let mut c = Callable::over_axes(name, keywords, move |a, o| over_na(name, op, a, o))?;
    c.reduction = kind;
    c.reducer = Some(op);
    c.small = Some(tiny);
    Ok(c)
}

/// A scan builtin along one axis.
fn scan_builtin(name: &'static str, op: Op) -> Result<Callable, Error> {
    Callable::over_axes(name, &[AxisKeyword::Axis], move |a, o| scan(name, op, a, o))
}

use AxisKeyword::{Axes, Ddof, Initial, Keepdims, SkipNa, Where};

/// The keywords of `sum`, `prod`, `min` and `max`.
const FULL: &[AxisKeyword] = &[Axes, Keepdims, Initial, Where, SkipNa];
/// The keywords of `all`, `any` and `mean`.
const SHORT: &[AxisKeyword] = &[Axes, Keepdims, Where, SkipNa];
/// The keywords of `var` and `std`.
const MOMENT: &[AxisKeyword] = &[Axes, Keepdims, Ddof, Where, SkipNa];

builtins! {
    $ TABLE, __reduction_builtins;

    /// `(Any, axis: ?Any, keepdims: ?bool, initial: ?Scalar, where: ?Any,
    /// skip_na: ?bool) -> Any`: the sum over any axes, ragged rows
    /// included; integers accumulate in 64 bits.
    SUM sum "sum" (method sum_axis sum_with "sum") None => {
        reducer(Op::Sum, FULL, ReductionKind::SumOrMean)
    };

    /// As `sum`: the product.
    PROD prod "prod" (method prod_axis prod_with "product") None => {
        reducer(Op::Prod, FULL, ReductionKind::Axes)
    };

    /// As `sum`: the minimum (an empty reduction needs `initial`). Of
    /// strings: the least in UTF-8 byte order, over every element or one
    /// axis (NA for an empty ragged row; `initial` and `where` take
    /// numbers only).
    MIN min "min" (method min_axis min_with "minimum") None => {
        reducer(Op::Min, FULL, ReductionKind::Combines)
    };

    /// As `sum`: the maximum (an empty reduction needs `initial`); of
    /// strings as `min`.
    MAX max "max" (method max_axis max_with "maximum") None => {
        reducer(Op::Max, FULL, ReductionKind::Combines)
    };

    /// `(Any, axis: ?Any, keepdims: ?bool, where: ?Any, skip_na: ?bool) ->
    /// Any`: whether every element is true.
    ALL all "all" (method all_axis all_with "logical and") None => {
        reducer(Op::All, SHORT, ReductionKind::Combines)
    };

    /// As `all`: whether any element is true.
    ANY any "any" (method any_axis any_with "logical or") None => {
        reducer(Op::Any, SHORT, ReductionKind::Combines)
    };

    /// As `all`: the mean, `float64` for integers (the sum divided by the
    /// count).
    MEAN mean "mean" (method mean_axis mean_with "mean") None => {
        reducer(Op::Mean, SHORT, ReductionKind::SumOrMean)
    };

    /// `(Any, axis: ?Any, keepdims: ?bool, ddof: ?int64, where: ?Any,
    /// skip_na: ?bool) -> Any`: the variance `Σ(x - mean)² / (n - ddof)`, in
    /// two passes (NaN for `n <= ddof`; float32 stays float32).
    VAR var "var" (method var_axis var_with "variance (two-pass; divided by `n - ddof`, `ddof` 0 unless set in the options)") None => {
        reducer(Op::Var, MOMENT, ReductionKind::Axes)
    };

    /// As `var`: the standard deviation.
    STD std "std" (method std_axis std_with "standard deviation (the square root of the variance)") None => {
        reducer(Op::Std, MOMENT, ReductionKind::Axes)
    };

    /// `(Any, axis: ?Any, keepdims: ?bool, where: ?Any) -> Any`: the number
    /// of elements each reduction folds, as `int64`, from the shape and row
    /// lengths (or the mask) alone.
    COUNT count "count" (method count_axis count_with "number of elements") None => {
        reduction(
            "count",
            &[Axes, Keepdims, Where],
            ReductionKind::Counts,
            count,
        )
    };

    /// `(Any, axis: ?Any, keepdims: ?bool) -> Any`: the number of NA
    /// elements over the axes.
    NULL_COUNT null_count "null_count" axes None => {
        reduction(
            "null_count",
            &[Axes, Keepdims],
            ReductionKind::Counts,
            null_count,
        )
    };

    /// `(Any) -> Any`: `bool`, true where an option array holds NA (false
    /// everywhere for other types).
    IS_NA is_na "is_na" f1 None => {
        Callable::function("is_na", checked_signature!("(Any) -> Any"), vec![], |args, _| is_na(args[0]))
    };

    /// `(Any, Any) -> Any`: NA replaced by the value (broadcast); the result
    /// is no longer an option.
    FILL_NA fill_na "fill_na" f2 None => {
        Callable::function("fill_na", checked_signature!("(Any, Any) -> Any"), vec![], |args, _| {
            fill_na(args[0], args[1])
        })
    };

    /// `(Any, axis: ?Any, keepdims: ?bool) -> Any`: a compensated float64
    /// sum (a stateful reduction from its four pieces: init, step, combine,
    /// finish).
    KAHAN_SUM kahan_sum "kahan_sum" axes None => {
        let mut c = Callable::over_axes("kahan_sum", &[Axes, Keepdims], |a, o| {
            let x = if a.dtype().as_scalar() == Some(Scalar::Float64) {
                a.clone()
            } else {
                a.cast(&with_dtype(a, Scalar::Float64)?, ErrorMode::Fractional)?
            };
            reduce_with(&x, o.axes(), o.keepdims, &KahanSum, "kahan_sum")
        })?;
        c.reduction = ReductionKind::Axes;
        Ok(c)
    };

    /// `(Any, axis: ?int64) -> Any`: the running sum along one axis (the
    /// flattened array without one; each row of a ragged `var` axis).
    CUMSUM cumsum "cumsum" _ None => { scan_builtin("cumsum", Op::Sum) };

    /// As `cumsum`: the running product.
    CUMPROD cumprod "cumprod" _ None => { scan_builtin("cumprod", Op::Prod) };
}

/// Reduction `op` of `a`; for an option array (`?T`), as `skip_na` says.
///
/// Propagating (the default, as arithmetic does: `1 + NA` is NA, and NumPy
/// propagates NaN the same way), a group holding an NA element gives NA,
/// and the result is `?R`. Skipping, the NA elements are left out, as if
/// masked by `where`: `sum`, `prod`, `all` and `any` of a group with no
/// value give their identity, as a plain `R`; `min` and `max` (without
/// `initial`), `mean`, `var` and `std` give NA there, as `?R`. NA never
/// turns into NaN, nor NaN into NA.
///
/// The same holds without NA over a `var` axis, where a row may be empty:
/// `min`, `max` (without `initial`), `mean`, `var` and `std` give `?R`,
/// NA for an empty row (Awkward's `mask_identity=True`).
fn over_na(name: &'static str, op: Op, a: &Array, o: &AxisOptions) -> Result<Array, Error> {
    if let Some(r) = tiny(name, op, a, o) {
        return r;
    }
    if let Some(r) = over_time(name, op, a, o) {
        return r;
    }
    if matches!(op, Op::Min | Op::Max) && crate::ordering::is_text(a) {
        return crate::ordering::text_extreme(a, o, op == Op::Max);
    }
    if matches!(op, Op::Min | Op::Max) && crate::ordering::is_record(a) {
        // Records in their lexicographic order: the extreme rank, then
        // its record (NA where a row had none).
        let r = crate::ordering::ranked(a)?;
        let m = over_na(name, op, &r.ranks, o)?;
        return match m.option_parts() {
            Some((ranks, valid)) => Array::optional(&r.records_of(&ranks)?, &valid),
            None => r.records_of(&m),
        };
    }
    if let Some((small, mask, result_dims)) = shrink_empty(name, a, o)? {
        let r = over_na(name, op, &small, &o.masked(mask))?;
        return match result_dims {
            // No result elements: the stand-in gave the data type.
            Some(dims) => Ok(Array::zeros(&Type::with_dims(dims, r.dtype().clone())?)?),
            None => Ok(r),
        };
    }
    let Some((values, valid)) = a.option_parts() else {
        if matches!(a.dtype().kind(), dynd_types::TypeKind::Option(_)) {
            return Err(dynd_kernels::Error::Unsupported {
                operation: "a reduction of an option of a non-scalar type",
                ty: a.ty().clone(),
            });
        }
        return match op {
            _ if op.empty_group() == EmptyGroup::Na && o.initial.is_none() && reduces_var(a, o) => {
                if let Some(r) = moment_of_rows(op, a, o)? {
                    return Ok(r);
                }
                // Awkward's `mask_identity`: over a `var` axis a group may
                // be empty, so the result is `?R` (from the type alone),
                // NA where a group has no element.
                let n =
                    dynd_kernels::reduce::count(a, o.axes(), o.keepdims, o.mask.as_ref(), name)?;
                let any = GREATER.call(&[&n, &Array::from_scalar(0i64)])?;
                let o = match op {
                    Op::Min | Op::Max => AxisOptions {
                        initial: Some(extreme(a.dtype(), op == Op::Min)?),
                        ..o.clone()
                    },
                    _ => o.clone(),
                };
                Ok(Array::from_option_parts(&plain(name, op, a, &o)?, &any)?)
            }
            _ => plain(name, op, a, o),
        };
    };
    if !o.skip_na {
        // The values (NA slots hold zeros), then NA where a group (of the
        // elements `where` keeps) holds an NA element, or (over a `var`
        // axis, for a reduction without an identity) no element at all.
        // (Of `min` and `max`; a mean of no element stays NaN.)
        let empty_na = matches!(op, Op::Min | Op::Max) && o.initial.is_none() && reduces_var(a, o);
        let r = match op {
            _ if empty_na => {
                let extreme = AxisOptions {
                    initial: Some(extreme(values.dtype(), op == Op::Min)?),
                    ..o.clone()
                };
                plain(name, op, &values, &extreme)?
            }
            _ => plain(name, op, &values, o)?,
        };
        let all = AxisOptions {
            initial: None,
            ..o.clone()
        };
        let mut complete = plain("all", Op::All, &valid, &all)?;
        if empty_na {
            let n =
                dynd_kernels::reduce::count(&values, o.axes(), o.keepdims, o.mask.as_ref(), name)?;
            let any = GREATER.call(&[&n, &Array::from_scalar(0i64)])?;
            complete = LOGICAL_AND.call(&[&complete, &any])?;
        }
        return Array::from_option_parts(&r, &complete);
    }
    let keep = match &o.mask {
        Some(m) => LOGICAL_AND.call(&[&valid, m])?,
        None => valid,
    };
    let skipping = o.masked(Some(keep.clone()));
    match op {
        _ if op.empty_group() == EmptyGroup::Identity => plain(name, op, &values, &skipping),
        Op::Min | Op::Max if o.initial.is_some() => plain(name, op, &values, &skipping),
        _ => {
            // NA where a group keeps no value.
            let n = dynd_kernels::reduce::count(&values, o.axes(), o.keepdims, Some(&keep), name)?;
            let any = GREATER.call(&[&n, &Array::from_scalar(0i64)])?;
            let skipping = match op {
                Op::Min | Op::Max => AxisOptions {
                    initial: Some(extreme(values.dtype(), op == Op::Min)?),
                    ..skipping
                },
                _ => skipping,
            };
            let r = plain(name, op, &values, &skipping)?;
            Ok(Array::from_option_parts(&r, &any)?)
        }
    }
}

/// Whether the reduction folds a `var` dimension of `a` (every one without
/// axes).
fn reduces_var(a: &Array, o: &AxisOptions) -> bool {
    reduces_var_of(a.ty(), o)
}

fn reduces_var_of(ty: &Type, o: &AxisOptions) -> bool {
    let dims: Vec<&Dim> = ty.dims().collect();
    match o.axes() {
        None => dims.iter().any(|d| matches!(d, Dim::Var)),
        Some(axes) => axes.iter().any(|&ax| {
            let k = if ax < 0 { ax + dims.len() as i64 } else { ax };
            usize::try_from(k)
                .ok()
                .and_then(|k| dims.get(k))
                .is_some_and(|d| matches!(d, Dim::Var))
        }),
    }
}

/// Whether the reduction `op` over an array of type `ty` (no NA) gives
/// `?R`, NA for the empty groups of a `var` axis (its empty groups are NA
/// and no `initial` stands in); and for an idempotent one (`min`, `max`)
/// the `initial` that stands in for the empty groups before they are
/// masked.
pub(crate) fn masks_empty_groups(op: Op, ty: &Type, o: &AxisOptions) -> Option<Option<Array>> {
    if o.initial.is_some() || !reduces_var_of(ty, o) {
        return None;
    }
    if matches!(ty.dtype().kind(), dynd_types::TypeKind::Option(_)) {
        return None;
    }
    match (op.empty_group(), op) {
        (crate::callable::EmptyGroup::Identity, _) => None,
        (_, Op::Min | Op::Max) => Some(Some(extreme(ty.dtype(), op == Op::Min).ok()?)),
        _ => Some(None),
    }
}

/// For an array with no elements (fixed dimensions, one of size 0), a
/// small stand-in that reduces to the same result: each reduced dimension
/// becomes 1 (0 if it was 0), kept ones stay, and the `where` mask shrinks
/// alike. Every group of the original is empty (or there are no groups),
/// so no value matters, and the reduction costs O(1) in the number of
/// empty rows instead of a walk over 2^40 of them. When a kept dimension
/// is 0 the result has no elements either: every dimension becomes 0 or 1,
/// and the result's dimensions come back (third) to make it from the
/// stand-in's data type. `None` when `a` has elements, `var` dimensions,
/// or nothing to shrink.
#[allow(clippy::type_complexity)]
fn shrink_empty(
    name: &str,
    a: &Array,
    o: &AxisOptions,
) -> Result<Option<(Array, Option<Array>, Option<Vec<Dim>>)>, Error> {
    let fixed = |x: &Array| -> Option<Vec<usize>> {
        x.shape()
            .iter()
            .map(|d| match d {
                Dim::Fixed(n) => Some(*n),
                _ => None,
            })
            .collect()
    };
    // The common case first, without collecting the shape: no fixed
    // dimension of 0.
    if !a.ty().dims().any(|d| matches!(d, Dim::Fixed(0))) {
        return Ok(None);
    }
    let Some(shape) = fixed(a) else {
        return Ok(None);
    };
    let reduced = dynd_kernels::reduce::normalize_axes(o.axes(), shape.len(), name)?;
    let no_result = (0..shape.len()).any(|k| shape[k] == 0 && !reduced.contains(&k));
    let small: Vec<usize> = shape
        .iter()
        .enumerate()
        .map(|(k, &n)| {
            if no_result || reduced.contains(&k) {
                n.min(1)
            } else {
                n
            }
        })
        .collect();
    if small == shape {
        return Ok(None);
    }
    let result_dims = no_result.then(|| {
        (0..shape.len())
            .filter_map(|k| match (reduced.contains(&k), o.keepdims) {
                (false, _) => Some(Dim::Fixed(shape[k])),
                (true, true) => Some(Dim::Fixed(1)),
                (true, false) => None,
            })
            .collect()
    });
    let mask = match &o.mask {
        None => None,
        Some(m) => {
            let Some(ms) = fixed(m) else {
                return Ok(None);
            };
            let Some(shift) = shape.len().checked_sub(ms.len()) else {
                return Ok(None);
            };
            let mut new = Vec::with_capacity(ms.len());
            for (k, &n) in ms.iter().enumerate() {
                match n {
                    1 => new.push(1),
                    n if n == shape[k + shift] => new.push(small[k + shift]),
                    // Does not broadcast: the reduction says so.
                    _ => return Ok(None),
                }
            }
            let ty = Type::with_dims(new.into_iter().map(Dim::Fixed), m.dtype().clone())?;
            Some(Array::zeros(&ty)?)
        }
    };
    let ty = Type::with_dims(small.into_iter().map(Dim::Fixed), a.dtype().clone())?;
    Ok(Some((Array::zeros(&ty)?, mask, result_dims)))
}

/// The value `min` (`high`) or `max` starts from for `a`'s data type: the
/// largest (or smallest) value, infinities for floats.
fn extreme(dtype: &Type, high: bool) -> Result<Array, Error> {
    let unsupported = || dynd_kernels::Error::Unsupported {
        operation: "min and max of this data type",
        ty: dtype.clone(),
    };
    let s = dtype.as_scalar().ok_or_else(unsupported)?;
    dynd_kernels::with_numeric!(ordered s, T => {
        Ok(Array::from_scalar::<T>(if high { T::TOP } else { T::BOTTOM }))
    }, Err(unsupported()))
}

/// A reduction of an array without NA.
fn plain(name: &str, op: Op, a: &Array, o: &AxisOptions) -> Result<Array, Error> {
    match op {
        Op::Mean => mean(a, o),
        Op::Var => variance(name, false, a, o),
        Op::Std => variance(name, true, a, o),
        _ => run(name, op, a, o),
    }
}

/// `is_na(x)`: `bool`, true where `x` is NA (all false for a data type
/// that is not an option).
fn is_na(a: &Array) -> Result<Array, Error> {
    a.is_na()
}

/// `fill_na(x, value)`: `x`'s values, `value` (converted to `x`'s value
/// type, checked) where `x` is NA; the result is not an option. An array
/// without NA comes back as it is.
fn fill_na(a: &Array, value: &Array) -> Result<Array, Error> {
    let Some((values, valid)) = a.option_parts() else {
        return Ok(a.clone());
    };
    let fill = value
        .cast(
            &with_dtype(value, values.dtype().as_scalar().unwrap_or(Scalar::Float64))?,
            ErrorMode::Fractional,
        )
        .map_err(|e| Error::KeywordValue {
            name: "fill_na".into(),
            keyword: "value".into(),
            expected: format!("values convertible to {}", values.dtype()),
            found: format!("{value} ({}): {e}", value.ty()),
        })?;
    WHERE.call(&[&valid, &values, &fill])
}

/// `null_count(x, axis=, keepdims=)`: the NA elements of each group, as
/// `int64` (0 for a data type that is not an option).
fn null_count(name: &'static str, a: &Array, o: &AxisOptions) -> Result<Array, Error> {
    let missing = is_na(a)?;
    let values = a.option_parts().map_or_else(|| a.clone(), |(v, _)| v);
    dynd_kernels::reduce::count(&values, o.axes(), o.keepdims, Some(&missing), name)
}

/// The type a reduction accumulates `s` in (NumPy's: 64-bit integers for
/// sums and products of narrower ones; float16 in float32).
fn accumulator(op: Op, s: Scalar) -> Scalar {
    match (op, s.category()) {
        (Op::All | Op::Any, _) => Scalar::Bool,
        (Op::Sum | Op::Prod, ScalarCategory::Bool | ScalarCategory::SignedInt)
            if s != Scalar::Int128 =>
        {
            Scalar::Int64
        }
        (Op::Sum | Op::Prod, ScalarCategory::UnsignedInt) if s != Scalar::UInt128 => Scalar::UInt64,
        (_, _) if s == Scalar::Float16 => Scalar::Float32,
        _ => s,
    }
}

/// `a`'s data type, the type `op` accumulates it in, and `a` as that
/// type (for `all`/`any`, its truth: nonzero and NaN are true); data types
/// without arithmetic are refused as `what`.
fn prepare(op: Op, a: &Array, what: &'static str) -> Result<(Scalar, Scalar, Array), Error> {
    let Some(s) = a
        .dtype()
        .as_scalar()
        .filter(|s| s.is_numeric() || *s == Scalar::Bool)
    else {
        return Err(dynd_kernels::Error::Unsupported {
            operation: what,
            ty: a.ty().clone(),
        });
    };
    let acc = accumulator(op, s);
    let x = if acc == s {
        a.clone()
    } else if matches!(op, Op::All | Op::Any) {
        NOT_EQUAL.call(&[a, &Array::from_scalar(0u8)])?
    } else {
        a.cast(&with_dtype(a, acc)?, ErrorMode::NoCheck)?
    };
    Ok((s, acc, x))
}

/// The result of a `float16` input, accumulated in `float32`, back as
/// `float16`.
fn restore(s: Scalar, r: Array) -> Result<Array, Error> {
    if s == Scalar::Float16 {
        return r.cast(&with_dtype(&r, Scalar::Float16)?, ErrorMode::NoCheck);
    }
    Ok(r)
}

fn with_dtype(a: &Array, s: Scalar) -> Result<Type, Error> {
    let (dims, _) = a.ty().split_dims();
    Type::with_dims(dims.into_iter().cloned(), s.into())
}

/// `$body` with `$red` bound to the [`Reduction`] of `$op` (sum or
/// `any`, product or `all`, min, max) over the ordered number type `$t`:
/// the one definition [`run`] and [`tiny`] fold with. Mean, var and std
/// reduce by their own fns.
macro_rules! ordered_reduction {
    ($op:expr, $t:ty, $red:ident => $body:expr) => {
        match $op {
            // `any` and `all` are bool's sum and product (see `Arith`).
            Op::Sum | Op::Any => {
                let $red = Reduction {
                    identity: Some(<$t>::ZERO),
                    combine: <$t as Arith>::add,
                    reorderable: true,
                    neutral: Some(<$t>::NEUTRAL_ZERO),
                    run: None,
                };
                $body
            }
            Op::Prod | Op::All => {
                let $red = Reduction {
                    identity: Some(<$t>::ONE),
                    combine: <$t as Arith>::mul,
                    reorderable: true,
                    neutral: Some(<$t>::ONE),
                    run: None,
                };
                $body
            }
            Op::Min => {
                let $red = Reduction {
                    identity: None,
                    combine: <$t as Arith>::min,
                    reorderable: true,
                    neutral: Some(<$t>::TOP),
                    run: <$t as Arith>::MIN_RUN,
                };
                $body
            }
            Op::Max => {
                let $red = Reduction {
                    identity: None,
                    combine: <$t as Arith>::max,
                    reorderable: true,
                    neutral: Some(<$t>::BOTTOM),
                    run: <$t as Arith>::MAX_RUN,
                };
                $body
            }
            _ => unreachable!("mean, var and std reduce by their own fns"),
        }
    };
}

/// A small dense reduction without the general path's detours: `a` of
/// `float64`, `float32`, `int64` or `uint64` (accumulated as itself),
/// C-contiguous with fixed dimensions, none of them 0, at most 1,024
/// elements, and no `initial` or `where` (what else the keywords say does
/// not apply to such an array). The same fold as [`run`]'s, so the same
/// bits; `None` for anything else, which takes the general path.
#[inline]
fn tiny(name: &str, op: Op, a: &Array, o: &AxisOptions) -> Option<Result<Array, Error>> {
    if o.initial.is_some()
        || o.mask.is_some()
        || !matches!(op, Op::Sum | Op::Prod | Op::Min | Op::Max)
    {
        return None;
    }
    // (An empty array reduces as `shrink_empty` says, no result elements
    // needing no identity: `reduce_tiny` leaves it to the general path.)
    let (axes, keepdims) = (o.axes(), o.keepdims);
    macro_rules! go {
        ($t:ty) => {
            ordered_reduction!(op, $t, red => dynd_kernels::reduce::reduce_tiny(a, axes, keepdims, &red, name))
        };
    }
    // Each arm returns the fold's answer as it is (not unwrapped and
    // wrapped again): the result is written once, in the caller's slot,
    // not copied through this frame.
    match a.dtype().as_scalar() {
        Some(Scalar::Float64) => go!(f64),
        Some(Scalar::Float32) => go!(f32),
        Some(Scalar::Int64) => go!(i64),
        Some(Scalar::UInt64) => go!(u64),
        _ => None,
    }
}

/// Runs reduction `op` of `a` as the keywords ask.
fn run(name: &str, op: Op, a: &Array, o: &AxisOptions) -> Result<Array, Error> {
    if matches!(op, Op::Min | Op::Max)
        && a.dtype().as_scalar().map(Scalar::category) == Some(ScalarCategory::Complex)
    {
        return Err(dynd_kernels::Error::Unsupported {
            operation: "min and max of complex numbers (they have no order)",
            ty: a.ty().clone(),
        });
    }
    let (s, acc, input) = prepare(op, a, "a reduction of this data type")?;
    let (axes, keepdims, mask, initial) = (o.axes(), o.keepdims, &o.mask, o.initial.as_ref());
    macro_rules! go {
        ($t:ty, $red:expr) => {{
            let initial: Option<$t> = match initial {
                Some(v) => Some(scalar_of::<$t>(name, v, acc)?),
                None => None,
            };
            let args = ReduceArgs {
                axes,
                keepdims,
                initial,
                mask: mask.as_ref(),
            };
            reduce(&input, &args, &$red, name)?
        }};
    }
    macro_rules! complex {
        ($t:ty) => {
            match op {
                Op::Sum => go!(
                    Complex<$t>,
                    Reduction {
                        identity: Some(Complex::new(0.0, 0.0)),
                        combine: |a: Complex<$t>, b: Complex<$t>| Complex::new(
                            a.re + b.re,
                            a.im + b.im
                        ),
                        reorderable: true,
                        neutral: Some(Complex::new(-0.0, -0.0)),
                        run: None,
                    }
                ),
                _ => go!(
                    Complex<$t>,
                    Reduction {
                        identity: Some(Complex::new(1.0, 0.0)),
                        combine: |a: Complex<$t>, b: Complex<$t>| Complex::new(
                            a.re * b.re - a.im * b.im,
                            a.re * b.im + a.im * b.re
                        ),
                        reorderable: true,
                        // (1, 0) is not neutral bit for bit: -0.0 - -0.0 is 0.0.
                        neutral: None,
                        run: None,
                    }
                ),
            }
        };
    }
    let r = dynd_kernels::with_numeric!(ordered acc, T => {
        ordered_reduction!(op, T, red => go!(T, red))
    }, match acc {
        Scalar::Complex64 => complex!(f32),
        Scalar::Complex128 => complex!(f64),
        _ => unreachable!("accumulators are bool, integers, float32/64 or complex"),
    });
    // float16 accumulated in float32 comes back as float16.
    restore(s, r)
}

/// A 0-d keyword value as a `T` (checked conversion).
fn scalar_of<T: Element>(name: &str, v: &Array, acc: Scalar) -> Result<T, Error> {
    let bad = |why: String| Error::KeywordValue {
        name: name.to_string(),
        keyword: "initial".into(),
        expected: format!("one value convertible to {acc}"),
        found: why,
    };
    if v.ndim() != 0 {
        return Err(bad(format!("{v} ({})", v.ty())));
    }
    let c = v
        .cast(&acc.into(), ErrorMode::Fractional)
        .map_err(|e| bad(format!("{v} ({}): {e}", v.ty())))?;
    c.get::<T>(&[])
}

/// `sum / count` over the reduced axes (float64 for integers).
fn mean(a: &Array, o: &AxisOptions) -> Result<Array, Error> {
    let s = a.dtype().as_scalar();
    let float = match s {
        Some(Scalar::Float32) => Scalar::Float32,
        Some(Scalar::Complex64) => Scalar::Complex64,
        Some(Scalar::Complex128) => Scalar::Complex128,
        _ => Scalar::Float64,
    };
    let x = if s == Some(float) {
        a.clone()
    } else {
        a.cast(&with_dtype(a, float)?, ErrorMode::NoCheck)?
    };
    // (Per row of a ragged array, `moment_of_rows` took the contiguous
    // rows; other rows are summed, then divided by their lengths.)
    let sum = run("mean", Op::Sum, &x, o)?;
    if per_row(a, o) {
        let by_rows = match float {
            Scalar::Float64 => {
                dynd_kernels::reduce::divide_by_row_lengths(&sum, &x, |n| n as f64, "mean")?
            }
            Scalar::Float32 => {
                dynd_kernels::reduce::divide_by_row_lengths(&sum, &x, |n| n as f32, "mean")?
            }
            _ => None,
        };
        if let Some(m) = by_rows {
            return Ok(m);
        }
    }
    // The count from the shape (row lengths for ragged axes), or one pass
    // over the mask: never another pass over the values.
    let count = count("mean", &x, o)?;
    let count = count.cast(&with_dtype(&count, float)?, ErrorMode::NoCheck)?;
    DIVIDE.call(&[&sum, &count])
}

/// Whether `o` reduces the innermost axis of `a`, a ragged array, alone
/// and without a mask: one result per row.
fn per_row(a: &Array, o: &AxisOptions) -> bool {
    let last = a.ndim() as i64 - 1;
    o.mask.is_none()
        && a.ty().has_var_dim()
        && matches!(o.axes(), Some([ax]) if *ax == last || *ax == -1)
}

/// `mean`, `var` or `std` of each row of a ragged array of `float64` or
/// `float32` (other numbers converted first, as `mean` and `variance` do)
/// straight to its `?T` result, NA for an empty row: the fold writes
/// each value with its validity, where the general path makes the
/// values, counts the rows, compares the counts and combines the two
/// (three more passes). `None` when this is not such a call or the rows
/// are not contiguous.
fn moment_of_rows(op: Op, a: &Array, o: &AxisOptions) -> Result<Option<Array>, Error> {
    if !matches!(op, Op::Mean | Op::Var | Op::Std) || !per_row(a, o) {
        return Ok(None);
    }
    let s = match a.dtype().as_scalar() {
        Some(s)
            if (s.is_numeric() || s == Scalar::Bool) && s.category() != ScalarCategory::Complex =>
        {
            s
        }
        _ => return Ok(None),
    };
    // float16 is computed in float32 and rounded back by the general path.
    let float = match s {
        Scalar::Float32 => Scalar::Float32,
        Scalar::Float16 => return Ok(None),
        _ => Scalar::Float64,
    };
    let x = if s == float {
        a.clone()
    } else {
        a.cast(&with_dtype(a, float)?, ErrorMode::NoCheck)?
    };
    macro_rules! go {
        ($t:ty) => {
            match op {
                Op::Mean => {
                    let sum = Reduction {
                        identity: Some(<$t>::ZERO),
                        combine: <$t as Arith>::add,
                        reorderable: true,
                        neutral: Some(<$t>::NEUTRAL_ZERO),
                        run: None,
                    };
                    dynd_kernels::reduce::mean_of_rows(&x, o.keepdims, &sum, |n| n as $t, "mean")?
                }
                _ => dynd_kernels::reduce::spread_of_rows::<$t>(
                    &x,
                    o.keepdims,
                    o.ddof_value(),
                    op == Op::Std,
                    op.name(),
                )?,
            }
        };
    }
    Ok(match float {
        Scalar::Float32 => go!(f32),
        _ => go!(f64),
    })
}

/// The number of elements each reduction folds (those `where` keeps;
/// for an option array, those that are not NA), as `int64` (see
/// [`dynd_kernels::reduce::count`]).
fn count(name: &str, a: &Array, o: &AxisOptions) -> Result<Array, Error> {
    let (a, mask) = match a.option_parts() {
        Some((values, valid)) => {
            let keep = match &o.mask {
                Some(m) => LOGICAL_AND.call(&[&valid, m])?,
                None => valid,
            };
            (values, Some(keep))
        }
        None => (a.clone(), o.mask.clone()),
    };
    dynd_kernels::reduce::count(&a, o.axes(), o.keepdims, mask.as_ref(), name)
}

/// `cumsum` / `cumprod` along one `axis`; without one, along the only
/// axis of a 1-d array, or of the flattened array (NumPy's rule; ragged
/// arrays need the axis named).
fn scan(name: &str, op: Op, a: &Array, o: &AxisOptions) -> Result<Array, Error> {
    let (a, axis) = match o.one_axis(name)? {
        Some(ax) => (a.clone(), ax),
        None if a.ndim() <= 1 => (a.clone(), 0),
        None if a.ty().has_var_dim() => {
            return Err(Error::NeedsArray {
                op: name.into(),
                expected: "an array without var dimensions when no `axis` is given (ragged rows are not flattened)",
                found: a.ty().clone(),
            })
        }
        None => (a.reshape([-1])?, 0),
    };
    let a = &a;
    let (s, acc, x) = prepare(op, a, "a scan of this data type")?;
    let unsupported = || dynd_kernels::Error::Unsupported {
        operation: "a scan of this data type",
        ty: a.ty().clone(),
    };
    let r = dynd_kernels::with_numeric!(ordered acc, T => match op {
        Op::Sum => accumulate(&x, axis, <T as Arith>::add, name)?,
        _ => accumulate(&x, axis, <T as Arith>::mul, name)?,
    }, return Err(unsupported()));
    restore(s, r)
}

/// `var` (or `std`, its square root, when `root`) over the `axis`
/// keyword's axes, dividing by `n - ddof` (see
/// [`dynd_kernels::reduce::variance`]): float32 stays float32, float16 is
/// computed in float32 and rounded once, everything else numeric in
/// float64.
fn variance(name: &str, root: bool, a: &Array, o: &AxisOptions) -> Result<Array, Error> {
    let s = match a.dtype().as_scalar() {
        Some(s) if s.is_numeric() || s == Scalar::Bool => s,
        _ => {
            return Err(dynd_kernels::Error::Unsupported {
                operation: "a variance of this data type",
                ty: a.ty().clone(),
            })
        }
    };
    if s.category() == ScalarCategory::Complex {
        return Err(dynd_kernels::Error::Unsupported {
            operation: "a variance of complex numbers",
            ty: a.ty().clone(),
        });
    }
    let float = match s {
        Scalar::Float32 | Scalar::Float16 => Scalar::Float32,
        _ => Scalar::Float64,
    };
    let x = if s == float {
        a.clone()
    } else {
        a.cast(&with_dtype(a, float)?, ErrorMode::NoCheck)?
    };
    let args = VarArgs {
        axes: o.axes(),
        keepdims: o.keepdims,
        ddof: o.ddof_value(),
        mask: o.mask.as_ref(),
    };
    let r = match (float, root) {
        (Scalar::Float32, false) => variance_of::<f32>(&x, &args, name)?,
        (Scalar::Float32, true) => std_dev::<f32>(&x, &args, name)?,
        (_, false) => variance_of::<f64>(&x, &args, name)?,
        (_, true) => std_dev::<f64>(&x, &args, name)?,
    };
    restore(s, r)
}
