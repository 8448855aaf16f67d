//! The reduction builtins: `sum`, `prod`, `min`, `max`, `mean`, `all`,
//! `any`, `count`, each `(Any, axis: ?Any, keepdims: ?bool, initial:
//! ?Scalar, where: ?Any) -> Any` (`mean`, `all`, `any` and `count` without
//! `initial`; `count` gives the number of elements each reduction folds, as
//! `int64`, from the shape and row lengths — or the mask — alone, and
//! `mean` divides the sum by it);
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
//! use dynd_arrfunc::builtins;
//! use dynd_kernels::{array, Array};
//!
//! let sum = builtins::get("sum").unwrap();
//! let a = array![[1, 2, 3], [4, 5, 6]];
//! assert_eq!(sum.call(&[&a])?.to_string(), "21");
//! let axis = Array::from_scalar(1i64);
//! let keep = Array::from_scalar(true);
//! let r = sum.call_kw(&[&a], &[("axis", &axis), ("keepdims", &keep)])?;
//! assert_eq!((r.to_string(), r.ty().to_string()), ("[[6], [15]]".into(), "2 * 1 * int64".into()));
//! let max = builtins::get("max").unwrap();
//! let err = max.call(&[&Array::zeros(&"0 * float64".parse()?)?]).unwrap_err();
//! assert!(err.to_string().contains("pass `initial`"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use dynd_kernels::reduce::{accumulate, reduce, reduce_with, KahanSum, ReduceArgs, Reduction};
use dynd_kernels::{Array, Complex, Element, ErrorMode, Value};
use dynd_types::{Scalar, ScalarCategory, Type};

use crate::callable::{Callable, Keyword, Kwargs};
use crate::error::Error;

/// What a reduction builtin computes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Op {
    Sum,
    Prod,
    Min,
    Max,
    All,
    Any,
}

/// The reduction builtins, by name.
pub(crate) fn builtins() -> Vec<(&'static str, Callable)> {
    let full = "(Any, axis: ?Any, keepdims: ?bool, initial: ?Scalar, where: ?Any) -> Any";
    let short = "(Any, axis: ?Any, keepdims: ?bool, where: ?Any) -> Any";
    let kw = |initial: bool| {
        let mut k = vec![
            Keyword::maybe("axis", None),
            Keyword::maybe("keepdims", Some(Scalar::Bool)),
        ];
        if initial {
            k.push(Keyword::maybe("initial", None));
        }
        k.push(Keyword::maybe("where", None));
        k
    };
    let make = |name: &'static str, op: Op| {
        let c = Callable::function(name, full, kw(true), move |args, kw| {
            run(name, op, args[0], kw)
        })
        .unwrap_or_else(|e| unreachable!("builtin {name}: {e}"));
        (name, c)
    };
    let boolean = |name: &'static str, op: Op| {
        let c = Callable::function(name, short, kw(false), move |args, kw| {
            run(name, op, args[0], kw)
        })
        .unwrap_or_else(|e| unreachable!("builtin {name}: {e}"));
        (name, c)
    };
    let mean = Callable::function("mean", short, kw(false), |args, kw| mean(args[0], kw))
        .unwrap_or_else(|e| unreachable!("builtin mean: {e}"));
    let count = Callable::function("count", short, kw(false), |args, kw| {
        count("count", args[0], kw)
    })
    .unwrap_or_else(|e| unreachable!("builtin count: {e}"));
    let kahan = Callable::function(
        "kahan_sum",
        "(Any, axis: ?Any, keepdims: ?bool) -> Any",
        vec![
            Keyword::maybe("axis", None),
            Keyword::maybe("keepdims", Some(Scalar::Bool)),
        ],
        |args, kw| {
            let a = args[0];
            let x = if a.dtype().as_scalar() == Some(Scalar::Float64) {
                a.clone()
            } else {
                a.cast(&with_dtype(a, Scalar::Float64)?, ErrorMode::Fractional)?
            };
            let axes = axes("kahan_sum", kw)?;
            let keepdims = kw.bool("keepdims")?.unwrap_or(false);
            Ok(reduce_with(
                &x,
                axes.as_deref(),
                keepdims,
                &KahanSum,
                "kahan_sum",
            )?)
        },
    )
    .unwrap_or_else(|e| unreachable!("builtin kahan_sum: {e}"));
    let scan = |name: &'static str, op: Op| {
        let c = Callable::function(
            name,
            "(Any, axis: ?int64) -> Any",
            vec![Keyword::maybe("axis", Some(Scalar::Int64))],
            move |args, kw| scan(name, op, args[0], kw),
        )
        .unwrap_or_else(|e| unreachable!("builtin {name}: {e}"));
        (name, c)
    };
    vec![
        ("kahan_sum", kahan),
        scan("cumsum", Op::Sum),
        scan("cumprod", Op::Prod),
        make("sum", Op::Sum),
        make("prod", Op::Prod),
        make("min", Op::Min),
        make("max", Op::Max),
        boolean("all", Op::All),
        boolean("any", Op::Any),
        ("mean", mean),
        ("count", count),
    ]
}

/// The `axis` keyword as a list of axes (`None` for all).
pub(crate) fn axes(name: &str, kw: &Kwargs<'_>) -> Result<Option<Vec<i64>>, Error> {
    let Some(a) = kw.get("axis") else {
        return Ok(None);
    };
    let bad = || Error::KeywordValue {
        name: name.to_string(),
        keyword: "axis".into(),
        expected: "an integer or a list of integers".into(),
        found: format!("{a} ({})", a.ty()),
    };
    match a.to_value() {
        Value::Int(i) => Ok(Some(vec![i64::try_from(i).map_err(|_| bad())?])),
        Value::List(items) => items
            .iter()
            .map(|v| match v {
                Value::Int(i) => i64::try_from(*i).map_err(|_| bad()),
                _ => Err(bad()),
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        _ => Err(bad()),
    }
}

/// The `where` keyword as a `bool` array.
pub(crate) fn mask(name: &str, kw: &Kwargs<'_>) -> Result<Option<Array>, Error> {
    match kw.get("where") {
        None => Ok(None),
        Some(m) if m.dtype().as_scalar() == Some(Scalar::Bool) => Ok(Some(m.clone())),
        Some(m) => Err(Error::KeywordValue {
            name: name.to_string(),
            keyword: "where".into(),
            expected: "a bool array".into(),
            found: format!("{m} ({})", m.ty()),
        }),
    }
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
        }
        .into());
    };
    let acc = accumulator(op, s);
    let x = if acc == s {
        a.clone()
    } else if matches!(op, Op::All | Op::Any) {
        crate::builtins::get("not_equal")
            .unwrap_or_else(|e| unreachable!("not_equal is a builtin: {e}"))
            .call(&[a, &Array::from_scalar(0u8)])?
    } else {
        a.cast(&with_dtype(a, acc)?, ErrorMode::NoCheck)?
    };
    Ok((s, acc, x))
}

/// The result of a `float16` input, accumulated in `float32`, back as
/// `float16`.
fn restore(s: Scalar, r: Array) -> Result<Array, Error> {
    if s == Scalar::Float16 {
        return Ok(r.cast(&with_dtype(&r, Scalar::Float16)?, ErrorMode::NoCheck)?);
    }
    Ok(r)
}

fn with_dtype(a: &Array, s: Scalar) -> Result<Type, Error> {
    let (dims, _) = a.ty().split_dims();
    Ok(Type::with_dims(dims.into_iter().cloned(), s.into())?)
}

/// Runs reduction `op` of `a` as the keywords ask.
fn run(name: &str, op: Op, a: &Array, kw: &Kwargs<'_>) -> Result<Array, Error> {
    if matches!(op, Op::Min | Op::Max)
        && a.dtype().as_scalar().map(Scalar::category) == Some(ScalarCategory::Complex)
    {
        return Err(dynd_kernels::Error::Unsupported {
            operation: "min and max of complex numbers (they have no order)",
            ty: a.ty().clone(),
        }
        .into());
    }
    let (s, acc, input) = prepare(op, a, "a reduction of this data type")?;
    let axes = axes(name, kw)?;
    let keepdims = kw.bool("keepdims")?.unwrap_or(false);
    let mask = mask(name, kw)?;
    let initial = kw.get("initial");
    macro_rules! go {
        ($t:ty, $identity:expr, $f:expr, $reorder:expr, $neutral:expr) => {{
            let initial: Option<$t> = match initial {
                Some(v) => Some(scalar_of::<$t>(name, v, acc)?),
                None => None,
            };
            let args = ReduceArgs {
                axes: axes.as_deref(),
                keepdims,
                initial,
                mask: mask.as_ref(),
            };
            let red = Reduction {
                identity: $identity,
                combine: $f,
                reorderable: $reorder,
                neutral: $neutral,
            };
            reduce(&input, &args, &red, name)?
        }};
    }
    macro_rules! numeric {
        // `$neutral_zero` leaves every value unchanged under `$add`
        // (`-0.0` for floats); `$top`/`$bottom` under `$min`/`$max`.
        ($t:ty, $zero:expr, $neutral_zero:expr, $one:expr, $top:expr, $bottom:expr,
         $add:expr, $mul:expr, $min:expr, $max:expr) => {
            match op {
                Op::Sum => go!($t, Some($zero), $add, true, Some($neutral_zero)),
                Op::Prod => go!($t, Some($one), $mul, true, Some($one)),
                Op::Min => go!($t, None, $min, true, Some($top)),
                Op::Max => go!($t, None, $max, true, Some($bottom)),
                Op::All | Op::Any => unreachable!("booleans are reduced as bool"),
            }
        };
    }
    macro_rules! int {
        ($t:ty) => {
            numeric!(
                $t,
                0,
                0,
                1,
                <$t>::MAX,
                <$t>::MIN,
                |a: $t, b: $t| a.wrapping_add(b),
                |a: $t, b: $t| a.wrapping_mul(b),
                |a: $t, b: $t| a.min(b),
                |a: $t, b: $t| a.max(b)
            )
        };
    }
    macro_rules! float {
        ($t:ty) => {
            numeric!(
                $t,
                0.0,
                -0.0,
                1.0,
                <$t>::INFINITY,
                <$t>::NEG_INFINITY,
                |a: $t, b: $t| a + b,
                |a: $t, b: $t| a * b,
                // NaN-propagating; `|` rather than `||` keeps it a select
                // (no branch), so folds of many lanes vectorise.
                |a: $t, b: $t| if a.is_nan() | b.is_nan() {
                    <$t>::NAN
                } else {
                    a.min(b)
                },
                |a: $t, b: $t| if a.is_nan() | b.is_nan() {
                    <$t>::NAN
                } else {
                    a.max(b)
                }
            )
        };
    }
    macro_rules! complex {
        ($t:ty) => {
            match op {
                Op::Sum => go!(
                    Complex<$t>,
                    Some(Complex::new(0.0, 0.0)),
                    |a: Complex<$t>, b: Complex<$t>| Complex::new(a.re + b.re, a.im + b.im),
                    true,
                    Some(Complex::new(-0.0, -0.0))
                ),
                _ => go!(
                    Complex<$t>,
                    Some(Complex::new(1.0, 0.0)),
                    |a: Complex<$t>, b: Complex<$t>| Complex::new(
                        a.re * b.re - a.im * b.im,
                        a.re * b.im + a.im * b.re
                    ),
                    true,
                    // (1, 0) is not neutral bit for bit: -0.0 - -0.0 is 0.0.
                    None
                ),
            }
        };
    }
    let r = match acc {
        Scalar::Bool => match op {
            Op::Any => go!(
                bool,
                Some(false),
                |a: bool, b: bool| a | b,
                true,
                Some(false)
            ),
            Op::All => go!(bool, Some(true), |a: bool, b: bool| a & b, true, Some(true)),
            Op::Min => go!(bool, None, |a: bool, b: bool| a & b, true, Some(true)),
            Op::Max => go!(bool, None, |a: bool, b: bool| a | b, true, Some(false)),
            Op::Sum | Op::Prod => unreachable!("bool sums accumulate in int64"),
        },
        Scalar::Int8 => int!(i8),
        Scalar::Int16 => int!(i16),
        Scalar::Int32 => int!(i32),
        Scalar::Int64 => int!(i64),
        Scalar::Int128 => int!(i128),
        Scalar::UInt8 => int!(u8),
        Scalar::UInt16 => int!(u16),
        Scalar::UInt32 => int!(u32),
        Scalar::UInt64 => int!(u64),
        Scalar::UInt128 => int!(u128),
        Scalar::Float32 => float!(f32),
        Scalar::Float64 => float!(f64),
        Scalar::Complex64 => complex!(f32),
        Scalar::Complex128 => complex!(f64),
        _ => unreachable!("accumulators are bool, integers, float32/64 or complex"),
    };
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
    Ok(c.get::<T>(&[])?)
}

/// `sum / count` over the reduced axes (float64 for integers).
fn mean(a: &Array, kw: &Kwargs<'_>) -> Result<Array, Error> {
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
    let sum = run("mean", Op::Sum, &x, kw)?;
    // Per row of a ragged array: divided by the row lengths directly.
    let last = a.ndim() as i64 - 1;
    let per_row = mask("mean", kw)?.is_none()
        && a.ty().has_var_dim()
        && matches!(axes("mean", kw)?.as_deref(), Some([ax]) if *ax == last || *ax == -1);
    if per_row {
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
    let count = count("mean", &x, kw)?;
    let count = count.cast(&with_dtype(&count, float)?, ErrorMode::NoCheck)?;
    crate::builtins::get("divide")
        .unwrap_or_else(|e| unreachable!("divide is a builtin: {e}"))
        .call(&[&sum, &count])
}

/// The number of elements each reduction folds (those `where` keeps), as
/// `int64` (see [`dynd_kernels::reduce::count`]).
fn count(name: &str, a: &Array, kw: &Kwargs<'_>) -> Result<Array, Error> {
    let axes = axes(name, kw)?;
    let keepdims = kw.bool("keepdims")?.unwrap_or(false);
    let mask = mask(name, kw)?;
    Ok(dynd_kernels::reduce::count(
        a,
        axes.as_deref(),
        keepdims,
        mask.as_ref(),
        name,
    )?)
}

/// `cumsum` / `cumprod` along one `axis`; without one, along the only
/// axis of a 1-d array, or of the flattened array (NumPy's rule; ragged
/// arrays need the axis named).
fn scan(name: &str, op: Op, a: &Array, kw: &Kwargs<'_>) -> Result<Array, Error> {
    let (a, axis) = match kw.int("axis")? {
        Some(ax) => (a.clone(), ax),
        None if a.ndim() <= 1 => (a.clone(), 0),
        None if a.ty().has_var_dim() => {
            return Err(dynd_kernels::Error::Value {
                what: format!(
                    "{name}: an array with var dimensions ({}) needs `axis` (ragged rows are not flattened)",
                    a.ty()
                ),
            }
            .into())
        }
        None => (a.reshape(&[-1])?, 0),
    };
    let a = &a;
    let (s, acc, x) = prepare(op, a, "a scan of this data type")?;
    macro_rules! int {
        ($t:ty) => {
            match op {
                Op::Sum => accumulate(&x, axis, |p: $t, q: $t| p.wrapping_add(q), name)?,
                _ => accumulate(&x, axis, |p: $t, q: $t| p.wrapping_mul(q), name)?,
            }
        };
    }
    macro_rules! float {
        ($t:ty) => {
            match op {
                Op::Sum => accumulate(&x, axis, |p: $t, q: $t| p + q, name)?,
                _ => accumulate(&x, axis, |p: $t, q: $t| p * q, name)?,
            }
        };
    }
    let r = match acc {
        Scalar::Int64 => int!(i64),
        Scalar::UInt64 => int!(u64),
        Scalar::Int128 => int!(i128),
        Scalar::UInt128 => int!(u128),
        Scalar::Float32 => float!(f32),
        Scalar::Float64 => float!(f64),
        _ => {
            return Err(dynd_kernels::Error::Unsupported {
                operation: "a scan of this data type",
                ty: a.ty().clone(),
            }
            .into())
        }
    };
    restore(s, r)
}
