//! The array functions that order or search values, dense arrays first
//! (ragged rows come with the ragged operations): [`argmax`],
//! [`argmin`], [`argsort`], [`sort`], [`unique`] (and its counts and
//! first indexes), [`searchsorted`], [`count_nonzero`] and [`nonzero`];
//! each also a builtin of the same name for dynamic callers.
//!
//! Their order is NumPy's: numbers ascending, every NaN after them
//! (`argmax` stops at the first NaN, as NumPy's does), `false` before
//! `true`. Strings order by their UTF-8 bytes, which is code point order;
//! `fixed_string[N]` as the text it holds (its padding not part of it),
//! the values it gives back `fixed_string[N]` again. Complex numbers have
//! no order: refused.
//!
//! ```
//! use dynd::func::{argmax, argsort, searchsorted, unique};
//! use dynd::nd::array;
//!
//! let x = array![[3.0, 9.0, 1.0], [7.0, 2.0, 7.0]];
//! assert_eq!(argmax(&x, None, false)?.to_string(), "1"); // flat, C order
//! assert_eq!(argmax(&x, Some(1), false)?.to_string(), "[1, 0]");
//! assert_eq!(argsort(&x, -1, true)?.to_string(), "[[2, 0, 1], [1, 0, 2]]");
//! assert_eq!(unique(&x)?.to_string(), "[1, 2, 3, 7, 9]");
//! assert_eq!(searchsorted(&array![1, 3, 5], &array![0, 3, 6], false)?.to_string(), "[0, 1, 3]");
//! # Ok::<(), dynd::Error>(())
//! ```

use std::cmp::Ordering;

use dynd_kernels::ArrayOps;
use dynd_kernels::{Array, ErrorMode};
use dynd_types::{Scalar, Type, TypeKind};

use crate::builtin::builtins;
use crate::callable::plain;
use crate::callable::{Callable, Keyword};
use crate::error::Error;
use crate::options::{AxisKeyword, AxisOptions};
use crate::ticks;

mod key;
mod per_row;
mod records;
mod text;

use key::{arg_extreme, ordered_scalar, sort_indexes, values, Key, Needs, NonZero};
pub(crate) use records::{is_record, ranked, take_flat, words_of};
pub(crate) use text::is_text;

/// The fixed shape of `x`, or the error that `operation` (`"argmax over
/// var (ragged) dimensions"`) is not supported for its type.
pub(crate) fn dense_shape(x: &Array, operation: &'static str) -> Result<Vec<usize>, Error> {
    x.ty().fixed_shape().ok_or(Error::Unsupported {
        operation,
        ty: x.ty().clone(),
    })
}

/// `x` with `axis` moved last, in C order (a copy unless it already was):
/// its lines along `axis` are consecutive runs of `n` elements.
fn axis_last(x: &Array, axis: usize, ndim: usize) -> Result<Array, Error> {
    if axis + 1 == ndim {
        return x.compact();
    }
    let perm: Vec<usize> = (0..ndim).filter(|&k| k != axis).chain([axis]).collect();
    x.permute_axes(&perm)?.compact()
}

/// The inverse of [`axis_last`] for a result of the same shape: the last
/// dimension back at `axis` (a view).
fn axis_back(r: Array, axis: usize, ndim: usize) -> Result<Array, Error> {
    if axis + 1 == ndim {
        return Ok(r);
    }
    // Dimension k of the view is dimension perm[k] of `r`.
    let perm: Vec<usize> = (0..ndim)
        .map(|k| match k.cmp(&axis) {
            Ordering::Less => k,
            Ordering::Equal => ndim - 1,
            Ordering::Greater => k - 1,
        })
        .collect();
    r.permute_axes(&perm)
}

pub(crate) fn axis_of(axis: i64, ndim: usize, op: &str) -> Result<usize, Error> {
    Ok(dynd_kernels::reduce::normalize_axes(Some(&[axis]), ndim, op)?[0])
}

/// `argmax`/`argmin` for element type `T`.
fn arg_extreme_typed<T: Key>(
    x: &Array,
    axis: Option<usize>,
    shape: &[usize],
    keepdims: bool,
    max: bool,
    op: &'static str,
) -> Result<Array, Error> {
    let empty = || Error::Argument {
        op,
        what: "the array",
        expected: "non-empty along the axis (NumPy raises too)",
        found: x.ty().to_string().into(),
    };
    match axis {
        None => {
            let xs = values::<T>(x)?;
            let i = arg_extreme(&xs, max).ok_or_else(empty)? as i64;
            if keepdims {
                Array::from_shape_vec(&vec![1; shape.len()], vec![i])
            } else {
                Ok(Array::from_scalar(i))
            }
        }
        Some(axis) => {
            let n = shape[axis];
            let rows: usize = shape
                .iter()
                .enumerate()
                .filter(|(k, _)| *k != axis)
                .map(|(_, d)| d)
                .product();
            if n == 0 {
                if rows == 0 {
                    let mut out_shape = shape.to_vec();
                    out_shape[axis] = 1;
                    if !keepdims {
                        out_shape.remove(axis);
                    }
                    return Array::from_shape_vec(&out_shape, Vec::<i64>::new());
                }
                return Err(empty());
            }
            let moved = axis_last(x, axis, shape.len())?;
            let xs = values::<T>(&moved)?;
            let out: Vec<i64> = xs
                .chunks_exact(n)
                .map(|row| arg_extreme(row, max).unwrap_or(0) as i64)
                .collect();
            let mut out_shape = shape.to_vec();
            if keepdims {
                out_shape[axis] = 1;
            } else {
                out_shape.remove(axis);
            }
            Array::from_shape_vec(&out_shape, out)
        }
    }
}

/// Checks that `axis` is the last one of `x`, the one ragged arrays work
/// along (row by row).
pub(crate) fn last_axis(x: &Array, axis: i64, op: &'static str) -> Result<(), Error> {
    let ndim = x.ndim();
    if axis_of(axis, ndim.max(1), op)? + 1 == ndim.max(1) {
        return Ok(());
    }
    Err(Error::Argument {
        op,
        what: "the axis of an array with var dimensions",
        expected: "the last one (-1): each row on its own",
        found: format!("{axis} of {}", x.ty()).into(),
    })
}

/// `x` with `fixed_string[N]` elements (or options of them) as `string`,
/// the text each holds: the ordering functions order fixed strings as
/// strings. `None` for other element types.
fn fixed_as_text(x: &Array) -> Result<Option<Array>, Error> {
    let (inner, option) = match x.dtype().kind() {
        TypeKind::Option(inner) => (inner, true),
        _ => (x.dtype(), false),
    };
    if !matches!(inner.kind(), TypeKind::FixedString { .. }) {
        return Ok(None);
    }
    let s: Type = Scalar::String.into();
    let s = if option { Type::option(s)? } else { s };
    let (dims, _) = x.ty().split_dims();
    let ty = Type::with_dims(dims.into_iter().cloned(), s)?;
    Ok(Some(x.cast(&ty, ErrorMode::NoCheck)?))
}

/// A result of strings made from [`fixed_as_text`]'s, as the fixed
/// strings of `fixed` (the input's data type) again: each fits, being one
/// of them.
fn text_as_fixed(r: Array, fixed: &Type) -> Result<Array, Error> {
    let plain = match fixed.kind() {
        TypeKind::Option(inner) => inner.clone(),
        _ => fixed.clone(),
    };
    let (dims, dtype) = r.ty().split_dims();
    let dtype = if matches!(dtype.kind(), TypeKind::Option(_)) {
        Type::option(plain)?
    } else {
        plain
    };
    let ty = Type::with_dims(dims.into_iter().cloned(), dtype)?;
    r.cast(&ty, ErrorMode::NoCheck)
}

fn arg_extreme_of(x: &Array, axis: Option<i64>, keepdims: bool, max: bool) -> Result<Array, Error> {
    if is_record(x) {
        return arg_extreme_of(&ranked(x)?.ranks, axis, keepdims, max);
    }
    if let Some(t) = fixed_as_text(x)? {
        return arg_extreme_of(&t, axis, keepdims, max);
    }
    if let Some(t) = ticks::as_ticks(x)? {
        return arg_extreme_of(&t, axis, keepdims, max);
    }
    let op = if max { "argmax" } else { "argmin" };
    if x.ty().has_var_dim() {
        if let Some(a) = axis {
            last_axis(x, a, op)?;
        }
        return per_row::arg_extreme_rows(x, axis.is_none(), keepdims, max);
    }
    let shape = dense_shape(x, "argmax over var (ragged) dimensions")?;
    if text::is_text(x) {
        let nd = shape.len();
        if nd == 0 {
            return Ok(Array::from_scalar(0i64));
        }
        return match axis {
            None => {
                let i = per_row::arg_extreme_rows(x, true, false, max)?;
                if keepdims {
                    Ok(i.reshape(vec![1; nd])?)
                } else {
                    Ok(i)
                }
            }
            Some(a) => {
                let a = axis_of(a, nd, op)?;
                let r = per_row::arg_extreme_rows(&axis_last(x, a, nd)?, false, keepdims, max)?;
                if keepdims {
                    axis_back(r, a, nd)
                } else {
                    Ok(r)
                }
            }
        };
    }
    let s = ordered_scalar(x, Needs::Extreme)?;
    let axis = axis.map(|a| axis_of(a, shape.len(), op)).transpose()?;
    dynd_array::with_numeric!(ordered s, T => arg_extreme_typed::<T>(x, axis, &shape, keepdims, max, op),
        Err(Error::Unsupported { operation: "argmax/argmin of this data type", ty: x.ty().clone() }))
}

/// The index of the largest element (NumPy's `argmax`): over everything
/// (`axis` `None`: the flat index in C order) or along `axis` (negative
/// from the last); `keepdims` keeps that axis with length 1, so the
/// result indexes `x` with `take`. The first of equal maxima; the first
/// NaN if there is one. `int64`.
///
/// # Errors
///
/// An empty array or axis (NumPy raises too), an axis out of range, a
/// data type without order (complex; `?T` of numbers: fill NA first).
/// Over `var` dimensions: flat without `axis`, each row along the
/// innermost one (NA for an empty row). Strings order by their UTF-8
/// bytes (code point order); NA strings are skipped.
pub fn argmax(x: &Array, axis: Option<i64>, keepdims: bool) -> Result<Array, Error> {
    let x = &*plain(x)?;
    arg_extreme_of(x, axis, keepdims, true)
}

/// The index of the smallest element (NumPy's `argmin`), as [`argmax`].
///
/// # Errors
///
/// As [`argmax`].
pub fn argmin(x: &Array, axis: Option<i64>, keepdims: bool) -> Result<Array, Error> {
    let x = &*plain(x)?;
    arg_extreme_of(x, axis, keepdims, false)
}

/// The indexes that sort `x` along `axis` (NumPy's `argsort`, stable:
/// equal elements keep their order), ascending or descending (then equal
/// elements still keep theirs); NaN last either way. `int64`, `x`'s shape.
/// Strings order by their UTF-8 bytes (code point order), NA last.
///
/// # Errors
///
/// As [`argmax`] (an empty axis gives an empty result).
pub fn argsort(x: &Array, axis: i64, ascending: bool) -> Result<Array, Error> {
    let x = &*plain(x)?;
    if is_record(x) {
        if x.ndim() == 1 && !x.ty().has_var_dim() {
            // One dimension: the sort's own order, no ranks.
            axis_of(axis, 1, "argsort")?;
            let (_, order, _) = records::ordered(x, !ascending)?;
            return Ok(Array::from_vec(
                order.into_iter().map(|i| i as i64).collect::<Vec<i64>>(),
            ));
        }
        let r = records::ranked_in(x, !ascending)?;
        return argsort(&r.ranks, axis, true);
    }
    if let Some(t) = fixed_as_text(x)? {
        return argsort(&t, axis, ascending);
    }
    if let Some(t) = ticks::as_ticks(x)? {
        return argsort(&t, axis, ascending);
    }
    if x.ty().has_var_dim() {
        last_axis(x, axis, "argsort")?;
        return per_row::argsort_rows(x, ascending);
    }
    let shape = dense_shape(x, "argsort over var (ragged) dimensions")?;
    if text::is_text(x) && !shape.is_empty() {
        // The lines along `axis` as rows, each sorted on its own.
        let axis = axis_of(axis, shape.len(), "argsort")?;
        let r = per_row::argsort_rows(&axis_last(x, axis, shape.len())?, ascending)?;
        return axis_back(r, axis, shape.len());
    }
    let s = ordered_scalar(x, Needs::Sort)?;
    let axis = axis_of(axis, shape.len().max(1), "argsort")?;
    if shape.is_empty() {
        return Ok(Array::from_scalar(0i64));
    }
    dynd_array::with_numeric!(ordered s, T => argsort_typed::<T>(x, axis, &shape, ascending),
        Err(Error::Unsupported { operation: "argsort of this data type", ty: x.ty().clone() }))
}

fn argsort_typed<T: Key>(
    x: &Array,
    axis: usize,
    shape: &[usize],
    ascending: bool,
) -> Result<Array, Error> {
    let n = shape[axis];
    let moved = axis_last(x, axis, shape.len())?;
    let xs = values::<T>(&moved)?;
    let mut out: Vec<i64> = Vec::with_capacity(xs.len());
    let mut idx: Vec<u32> = Vec::new();
    let mut idx64: Vec<usize> = Vec::new();
    // With `n == 0` there are no elements, so no rows.
    for row in xs.chunks_exact(n.max(1)) {
        if n <= u32::MAX as usize {
            idx.clear();
            idx.extend(0..n as u32);
            sort_indexes(&mut idx, row, ascending);
            out.extend(idx.iter().map(|&i| i64::from(i)));
        } else {
            idx64.clear();
            idx64.extend(0..n);
            sort_indexes(&mut idx64, row, ascending);
            out.extend(idx64.iter().map(|&i| i as i64));
        }
    }
    let mut moved_shape: Vec<usize> = shape.to_vec();
    let last = moved_shape.remove(axis);
    moved_shape.push(last);
    axis_back(Array::from_shape_vec(&moved_shape, out)?, axis, shape.len())
}

/// A sorted copy of `x` along `axis` (`ascending`, or descending), NaN
/// last: NumPy's and Awkward's `sort` (the builtin `sorted` is its older
/// name, with `reverse`). Each ragged row along an innermost `var` axis.
/// Strings order by their UTF-8 bytes (code point order), NA last; the
/// sorted strings share the input's characters.
///
/// # Errors
///
/// An axis out of range, a data type without order.
pub fn sort(x: &Array, axis: i64, ascending: bool) -> Result<Array, Error> {
    let x = &*plain(x)?;
    if is_record(x) {
        return sort_records(x, axis, ascending);
    }
    if let Some(t) = fixed_as_text(x)? {
        return text_as_fixed(sort(&t, axis, ascending)?, x.dtype());
    }
    if let Some(t) = ticks::as_ticks(x)? {
        return ticks::as_time(sort(&t, axis, ascending)?, x.dtype());
    }
    if x.ty().has_var_dim() {
        last_axis(x, axis, "sort")?;
        return per_row::sort_rows(x, ascending);
    }
    if text::is_text(x) && x.ndim() > 0 {
        let nd = x.ndim();
        let axis = axis_of(axis, nd, "sort")?;
        let r = per_row::sort_rows(&axis_last(x, axis, nd)?, ascending)?;
        return axis_back(r, axis, nd);
    }
    // A copy of what `x` may not write (an Arrow buffer) is sorted.
    let mut out = x.clone().into_writable()?;
    out.sort(axis, !ascending)?;
    Ok(out)
}

/// [`sort`] of records: each element's rank and position as one key
/// (`rank * K + position`, ranked descending for descending), sorted
/// along the axis as numbers are, then the records at those positions.
fn sort_records(x: &Array, axis: i64, ascending: bool) -> Result<Array, Error> {
    if x.ndim() == 0 {
        return Ok(x.clone());
    }
    if x.ndim() == 1 && !x.ty().has_var_dim() {
        axis_of(axis, 1, "sort")?;
        let (flat, order, _) = records::ordered(x, !ascending)?;
        return records::take_flat(&flat, order.into_iter().map(|i| i as i64).collect());
    }
    let r = records::ranked_in(x, !ascending)?;
    let k = r.flat.len() as i64;
    // `rank * K + position` fits an `int64` while K² does.
    if k > 3_037_000_499 {
        return Err(Error::Unsupported {
            operation: "sorting more than 3e9 records along an axis of several",
            ty: x.ty().clone(),
        });
    }
    let flat_ranks = r.ranks.flat_values()?;
    let keys: Vec<i64> = values::<i64>(&flat_ranks)?
        .iter()
        .enumerate()
        .map(|(i, &q)| q * k + i as i64)
        .collect();
    let keys = Array::regroup(&Array::from_vec(keys), &r.ranks)?;
    let sorted = sort(&keys, axis, true)?;
    let ids: Vec<i64> = values::<i64>(&sorted.flat_values()?)?
        .iter()
        .map(|&key| key % k.max(1))
        .collect();
    Array::regroup(&records::take_flat(&r.flat, ids)?, &sorted)
}

/// The distinct values of `x`, sorted (NumPy's `unique` over everything):
/// all NaNs are one value, placed last; `-0.0` and `0.0` are one value.
/// Strings sort by their UTF-8 bytes (code point order), NA once and
/// last; the result shares their characters.
///
/// # Errors
///
/// A data type without order. (`var` dimensions are flattened with the
/// rest; [`unique_rows`] keeps the rows.)
pub fn unique(x: &Array) -> Result<Array, Error> {
    let x = &*plain(x)?;
    Ok(unique_all(x, false, false)?.0)
}

/// The distinct values of each row along the last axis, sorted (as
/// [`unique`] does for all of them): Polars' `list.unique`, a `var` row
/// per row whatever the input's rows were.
///
/// ```
/// let x = dynd::nd::Array::from_nested(vec![vec![3, 1, 3], vec![], vec![2, 2]])?;
/// assert_eq!(dynd::func::unique_rows(&x)?.to_string(), "[[1, 3], [], [2]]");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// A scalar, a data type without order.
pub fn unique_rows(x: &Array) -> Result<Array, Error> {
    let x = &*plain(x)?;
    if is_record(x) {
        let r = ranked(x)?;
        return r.records_of(&per_row::unique_rows(&r.ranks)?);
    }
    if let Some(t) = fixed_as_text(x)? {
        return text_as_fixed(unique_rows(&t)?, x.dtype());
    }
    if let Some(t) = ticks::as_ticks(x)? {
        return ticks::as_time(unique_rows(&t)?, x.dtype());
    }
    per_row::unique_rows(x)
}

/// The distinct values of `x` (as [`unique`]) and how often each occurs
/// (`int64`): NumPy's `unique(x, return_counts=True)`.
///
/// # Errors
///
/// As [`unique`].
pub fn unique_counts(x: &Array) -> Result<(Array, Array), Error> {
    let x = &*plain(x)?;
    let (v, c, _) = unique_all(x, true, false)?;
    Ok((v, c.unwrap_or_else(|| Array::from_vec(Vec::<i64>::new()))))
}

/// The distinct slices of a dense `x` along `axis`, in lexicographic
/// order (NumPy's `unique(x, axis=...)`: `[[1, 2], [0, 5], [1, 2]]` along
/// axis 0 gives `[[0, 5], [1, 2]]`); NaNs equal among themselves and
/// last, as [`unique`] orders them. (With `var` dimensions the `unique`
/// builtin's `axis` is the last one, each row on its own:
/// [`unique_rows`].)
///
/// ```
/// let x = dynd::nd::Array::from_json("[[1, 2], [0, 5], [1, 2]]", None)?;
/// assert_eq!(dynd::func::unique_axis(&x, 0)?.to_string(), "[[0, 5], [1, 2]]");
/// assert_eq!(dynd::func::unique_axis(&x, 1)?.to_string(), "[[1, 2], [0, 5], [1, 2]]");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// An axis out of range, a data type without order, `var` dimensions.
pub fn unique_axis(x: &Array, axis: i64) -> Result<Array, Error> {
    let x = &*plain(x)?;
    let shape = dense_shape(x, "unique along an axis of var (ragged) dimensions")?;
    if is_record(x) {
        let r = ranked(x)?;
        return r.records_of(&unique_axis(&r.ranks, axis)?);
    }
    if let Some(t) = ticks::as_ticks(x)? {
        return ticks::as_time(unique_axis(&t, axis)?, x.dtype());
    }
    let axis = axis_of(axis, shape.len(), "unique")?;
    if text::is_text(x) {
        return Err(Error::Unsupported {
            operation: "unique sub-arrays of strings along an axis (unique of every string, or per row with axis=-1, are)",
            ty: x.ty().clone(),
        });
    }
    let s = ordered_scalar(x, Needs::Sort)?;
    dynd_array::with_numeric!(ordered s, T => unique_axis_typed::<T>(x, axis, &shape),
        Err(Error::Unsupported { operation: "unique of this data type", ty: x.ty().clone() }))
}

fn unique_axis_typed<T: Key>(x: &Array, axis: usize, shape: &[usize]) -> Result<Array, Error> {
    let ndim = shape.len();
    // `axis` first, in C order: each slice is a run of `width` elements.
    let perm: Vec<usize> = [axis]
        .into_iter()
        .chain((0..ndim).filter(|&k| k != axis))
        .collect();
    let moved = x.permute_axes(&perm)?.compact()?;
    let xs = values::<T>(&moved)?;
    let n = shape[axis];
    let width: usize = perm[1..].iter().map(|&k| shape[k]).product();
    let slice = |i: usize| &xs[i * width..(i + 1) * width];
    let order_of = |a: usize, b: usize| {
        slice(a)
            .iter()
            .zip(slice(b))
            .map(|(p, q)| p.order(q))
            .find(|o| o.is_ne())
            .unwrap_or(Ordering::Equal)
    };
    let mut kept: Vec<usize> = (0..n).collect();
    kept.sort_by(|&a, &b| order_of(a, b));
    kept.dedup_by(|a, b| order_of(*a, *b).is_eq());
    let mut out = Vec::with_capacity(kept.len() * width);
    for &i in &kept {
        out.extend_from_slice(slice(i));
    }
    let mut out_shape: Vec<usize> = perm.iter().map(|&k| shape[k]).collect();
    out_shape[0] = kept.len();
    // Back to the input's order: dimension k of the view is dimension
    // `position of k in perm` of the result.
    let back: Vec<usize> = (0..ndim)
        .map(|k| perm.iter().position(|&p| p == k).unwrap_or(k))
        .collect();
    Array::from_shape_vec(&out_shape, out)?.permute_axes(&back)
}

/// `(values, counts)` as one 0-d tuple (`(N * T, N * int64)`): the
/// `unique` builtin's result with `return_counts`, NumPy's pair.
fn pair(v: &Array, c: &Array) -> Result<Array, Error> {
    let ty: Type = format!("({}, {})", v.ty(), c.ty()).parse()?;
    Array::from_value(
        &dynd_kernels::Value::List(vec![v.to_value(), c.to_value()]),
        Some(&ty),
    )
}

/// The distinct values of `x` (as [`unique`]) and the flat index (C
/// order) of each one's first occurrence: NumPy's
/// `unique(x, return_index=True)`.
///
/// # Errors
///
/// As [`unique`].
pub fn unique_index(x: &Array) -> Result<(Array, Array), Error> {
    let x = &*plain(x)?;
    let (v, _, i) = unique_all(x, false, true)?;
    Ok((v, i.unwrap_or_else(|| Array::from_vec(Vec::<i64>::new()))))
}

pub(super) type Uniques = (Array, Option<Array>, Option<Array>);

fn unique_all(x: &Array, counts: bool, index: bool) -> Result<Uniques, Error> {
    if is_record(x) {
        let r = ranked(x)?;
        let flat = r.ranks.flat_values()?;
        let (v, c, i) = unique_all(&flat, counts, index)?;
        return Ok((r.records_of(&v)?, c, i));
    }
    if let Some(t) = fixed_as_text(x)? {
        let (v, c, i) = unique_all(&t, counts, index)?;
        return Ok((text_as_fixed(v, x.dtype())?, c, i));
    }
    if let Some(t) = ticks::as_ticks(x)? {
        let (v, c, i) = unique_all(&t, counts, index)?;
        return Ok((ticks::as_time(v, x.dtype())?, c, i));
    }
    if text::is_text(x) {
        return text::unique(x, counts, index);
    }
    if x.ty().has_var_dim() {
        return unique_all(
            &crate::rows::AxisRows::of(x, "unique")?.values,
            counts,
            index,
        );
    }
    let s = ordered_scalar(x, Needs::Sort)?;
    dynd_array::with_numeric!(ordered s, T => unique_typed::<T>(x, counts, index),
        Err(Error::Unsupported { operation: "unique of this data type", ty: x.ty().clone() }))
}

fn unique_typed<T: Key>(x: &Array, counts: bool, index: bool) -> Result<Uniques, Error> {
    let xs = values::<T>(x)?;
    if index {
        // A stable sort of the positions: each run's first is the first
        // occurrence.
        let mut idx: Vec<usize> = (0..xs.len()).collect();
        sort_indexes(&mut idx, &xs, true);
        let (mut vals, mut firsts, mut ns) = (Vec::new(), Vec::new(), Vec::new());
        for &i in &idx {
            match (vals.last(), ns.last_mut()) {
                (Some(v), Some(n)) if xs[i].same(v) => *n += 1,
                _ => {
                    vals.push(xs[i]);
                    firsts.push(i as i64);
                    ns.push(1i64);
                }
            }
        }
        return Ok((
            Array::from_vec(vals),
            counts.then(|| Array::from_vec(ns)),
            Some(Array::from_vec(firsts)),
        ));
    }
    let mut v = xs.into_owned();
    T::sort_values(&mut v);
    let mut ns: Vec<i64> = Vec::new();
    if counts {
        let mut k = 0;
        while k < v.len() {
            let run = v[k..].iter().take_while(|y| y.same(&v[k])).count();
            ns.push(run as i64);
            k += run;
        }
    }
    v.dedup_by(|a, b| a.same(b));
    Ok((
        Array::from_vec(v),
        counts.then(|| Array::from_vec(ns)),
        None,
    ))
}

/// Where each of `values` would go in the 1-dimensional ascending
/// `sorted` to keep it sorted (NumPy's `searchsorted`): the first such
/// place, or the last with `right`. Both are converted to their common
/// type first (NumPy's promotion); NaN sorts last. `int64`, `values`'
/// shape. Strings (`string` on both sides) compare by their UTF-8 bytes.
///
/// # Errors
///
/// `sorted` not 1-dimensional, types without a common ordered type.
pub fn searchsorted(sorted: &Array, values: &Array, right: bool) -> Result<Array, Error> {
    let (sorted, values) = (&*plain(sorted)?, &*plain(values)?);
    if is_record(sorted) || is_record(values) {
        return search_records(sorted, values, right);
    }
    if let Some(t) = fixed_as_text(sorted)? {
        return searchsorted(&t, values, right);
    }
    if let Some(t) = fixed_as_text(values)? {
        return searchsorted(sorted, &t, right);
    }
    if ticks::is_time(sorted.dtype()) || ticks::is_time(values.dtype()) {
        // Both in their common time type (the finer unit), then as its
        // integers.
        let common: Type = dynd_types::promote(sorted.dtype(), values.dtype())?;
        let (a, v) = (with_dtype(sorted, &common)?, with_dtype(values, &common)?);
        if let (Some(a), Some(v)) = (ticks::as_ticks(&a)?, ticks::as_ticks(&v)?) {
            return searchsorted(&a, &v, right);
        }
    }
    let shape = dense_shape(values, "searchsorted over var (ragged) dimensions")?;
    if sorted.ndim() != 1
        || dense_shape(sorted, "searchsorted over var (ragged) dimensions").is_err()
    {
        return Err(Error::Argument {
            op: "searchsorted",
            what: "the sorted array",
            expected: "1-dimensional",
            found: sorted.ty().to_string().into(),
        });
    }
    if text::is_text(sorted) || text::is_text(values) {
        return text::searchsorted(sorted, values, right, &shape);
    }
    let common: Type = dynd_types::promote(sorted.dtype(), values.dtype())?;
    let (a, v) = (with_dtype(sorted, &common)?, with_dtype(values, &common)?);
    let s = ordered_scalar(&a, Needs::Search)?;
    dynd_array::with_numeric!(ordered s, T => {
        let (hay, needles) = (self::values::<T>(&a)?, self::values::<T>(&v)?);
        let out: Vec<i64> = needles
            .iter()
            .map(|x| {
                hay.partition_point(|y| match y.order(x) {
                    Ordering::Less => true,
                    Ordering::Equal => right,
                    Ordering::Greater => false,
                }) as i64
            })
            .collect();
        Array::from_shape_vec(&shape, out)
    }, Err(Error::Unsupported { operation: "searchsorted of this data type", ty: a.ty().clone() }))
}

/// [`searchsorted`] of records: both ranked together (the one order of
/// their records), then the ranks searched.
fn search_records(sorted: &Array, values: &Array, right: bool) -> Result<Array, Error> {
    if sorted.dtype() != values.dtype() || sorted.ndim() != 1 {
        return Err(Error::Argument {
            op: "searchsorted",
            what: "the records",
            expected: "a 1-dimensional sorted array of records of the values' type",
            found: format!("{} and {}", sorted.ty(), values.ty()).into(),
        });
    }
    let (hay, needles) = records::joint_ranks(sorted, values)?;
    let needles = Array::regroup(&Array::from_vec(needles), values)?;
    let hay = Array::from_vec(hay);
    searchsorted(&hay, &needles, right)
}

/// `x` (dense) with data type `dtype` (itself when it has it).
fn with_dtype(x: &Array, dtype: &Type) -> Result<Array, Error> {
    if x.dtype() == dtype {
        return Ok(x.clone());
    }
    let dims = x.ty().fixed_shape().unwrap_or_default();
    let ty = Type::with_dims(dims.into_iter().map(dynd_types::Dim::Fixed), dtype.clone())?;
    x.cast(&ty, ErrorMode::NoCheck)
}

/// How many elements of `x` are not zero (NumPy's `count_nonzero`): over
/// everything (`axis` `None`) or along `axis`. `int64`.
///
/// # Errors
///
/// An axis out of range; strings. (Over `var` dimensions: everything, or
/// each row along the innermost axis.)
pub fn count_nonzero(x: &Array, axis: Option<i64>) -> Result<Array, Error> {
    if x.ty().has_var_dim() {
        if let Some(a) = axis {
            last_axis(x, a, "count_nonzero")?;
        }
        return per_row::count_nonzero_rows(x, axis.is_none());
    }
    let shape = dense_shape(x, "count_nonzero over var (ragged) dimensions")?;
    let s = x.dtype().as_scalar().ok_or_else(|| Error::Unsupported {
        operation: if key::na_data(x) {
            "count_nonzero of NA data (fill_na first)"
        } else {
            "count_nonzero of this data type"
        },
        ty: x.ty().clone(),
    })?;
    let axis = axis
        .map(|a| axis_of(a, shape.len(), "count_nonzero"))
        .transpose()?;
    dynd_array::with_numeric!(s, T => count_nonzero_typed::<T>(x, axis, &shape),
        Err(Error::Unsupported { operation: "count_nonzero of this data type", ty: x.ty().clone() }))
}

fn count_nonzero_typed<T: NonZero>(
    x: &Array,
    axis: Option<usize>,
    shape: &[usize],
) -> Result<Array, Error> {
    let count = |xs: &[T]| xs.iter().filter(|x| x.nonzero()).count() as i64;
    match axis {
        None => Ok(Array::from_scalar(count(&values::<T>(x)?))),
        Some(axis) => {
            let n = shape[axis];
            let moved = axis_last(x, axis, shape.len())?;
            let xs = values::<T>(&moved)?;
            let mut out_shape = shape.to_vec();
            out_shape.remove(axis);
            let out: Vec<i64> = if n == 0 {
                vec![0; out_shape.iter().product()]
            } else {
                xs.chunks_exact(n).map(count).collect()
            };
            Array::from_shape_vec(&out_shape, out)
        }
    }
}

/// The indexes of the elements that are not zero, one `int64` array per
/// dimension of `x` (NumPy's `nonzero`, and `where` with one argument),
/// in C order.
///
/// # Errors
///
/// A 0-d array (as NumPy 2: it has no dimension to index; `atleast_1d`
/// first), strings, `?T` and `var` dimensions (not yet).
pub fn nonzero(x: &Array) -> Result<Vec<Array>, Error> {
    let shape = dense_shape(x, "nonzero over var (ragged) dimensions")?;
    if shape.is_empty() {
        return Err(Error::NeedsArray {
            op: "nonzero".into(),
            expected:
                "at least one dimension (a 0-d value has no index to report: atleast_1d first)",
            found: x.ty().clone(),
        });
    }
    let s = x.dtype().as_scalar().ok_or_else(|| Error::Unsupported {
        operation: if key::na_data(x) {
            "nonzero of NA data (fill_na first)"
        } else {
            "nonzero of this data type"
        },
        ty: x.ty().clone(),
    })?;
    let flat: Vec<usize> = dynd_array::with_numeric!(s, T => {
        values::<T>(x)?.iter().enumerate().filter(|(_, v)| v.nonzero()).map(|(i, _)| i).collect()
    }, return Err(Error::Unsupported { operation: "nonzero of this data type", ty: x.ty().clone() }));
    let mut per_dim = vec![Vec::with_capacity(flat.len()); shape.len()];
    for mut i in flat {
        for (d, &n) in shape.iter().enumerate().rev() {
            per_dim[d].push((i % n) as i64);
            i /= n;
        }
    }
    Ok(per_dim.into_iter().map(Array::from_vec).collect())
}

builtins! {
    $ TABLE, __ordering_builtins;

    /// `(Any, axis: ?int64, keepdims: ?bool) -> Any`: the index of the
    /// largest element, flat in C order without `axis`; the first NaN if
    /// any (NumPy's). `int64`.
    ARGMAX argmax "argmax" rs None => {
        Callable::over_axes("argmax", &[AxisKeyword::Axis, AxisKeyword::Keepdims], |a, o| {
            argmax(a, o.one_axis("argmax")?, o.keepdims)
        })
    };

    /// `(Any, axis: ?int64, keepdims: ?bool) -> Any`: the index of the
    /// smallest element, as `argmax`.
    ARGMIN argmin "argmin" rs None => {
        Callable::over_axes("argmin", &[AxisKeyword::Axis, AxisKeyword::Keepdims], |a, o| {
            argmin(a, o.one_axis("argmin")?, o.keepdims)
        })
    };

    /// `(Any, axis: ?int64, ascending: ?bool) -> Any`: the indexes that sort
    /// along `axis` (default -1), stable, NaN last. `int64`.
    ARGSORT argsort "argsort" rs None => {
        Callable::over_axes("argsort", &[AxisKeyword::Axis, AxisKeyword::Ascending], |a, o| {
            argsort(a, o.one_axis("argsort")?.unwrap_or(-1), o.is_ascending())
        })
    };

    /// `(Any, axis: ?int64, ascending: ?bool) -> Any`: a sorted copy along
    /// `axis` (default -1), NaN last; each ragged row along an innermost
    /// `var` axis. `sorted` is its older name (with `reverse`).
    SORT sort "sort" rs None => {
        Callable::over_axes("sort", &[AxisKeyword::Axis, AxisKeyword::Ascending], |a, o| {
            sort(a, o.one_axis("sort")?.unwrap_or(-1), o.is_ascending())
        })
    };

    /// `(Any, axis: ?int64) -> Any`: the distinct values, sorted, over
    /// every element (one NaN, last), or of each row with `axis=-1`. The Rust functions `unique_counts` and `unique_index` also
    /// give the counts and first indexes.
    UNIQUE unique "unique" rs None => {
        Callable::over_axes(
            "unique",
            &[AxisKeyword::Axis, AxisKeyword::ReturnCounts],
            |x, o| {
                match (o.one_axis("unique")?, o.returns_counts()) {
                    (None, false) => unique(x),
                    (None, true) => {
                        let (v, c) = unique_counts(x)?;
                        pair(&v, &c)
                    }
                    (Some(_), true) => Err(Error::Argument {
                        op: "unique",
                        what: "return_counts",
                        expected: "used without axis",
                        found: "true with an axis".into(),
                    }),
                    (Some(a), false) if x.ty().has_var_dim() => {
                        last_axis(x, a, "unique")?;
                        unique_rows(x)
                    }
                    (Some(a), false) => unique_axis(x, a),
                }
            },
        )
    };

    /// `(Any, Any, side: ?string) -> Any`: where each value would go in the
    /// 1-dimensional ascending array to keep it sorted; `side` is `left`
    /// (the first such place, the default) or `right`. `int64`.
    SEARCHSORTED searchsorted "searchsorted" rs None => {
        Callable::function(
            "searchsorted",
            dynd_macros::checked_signature!("(Any, Any, side: ?string) -> Any"),
            vec![Keyword::maybe("side", Some(Scalar::String))],
            |args, kw| {
                let right = match kw.string("side")?.as_deref() {
                    None | Some("left") => false,
                    Some("right") => true,
                    Some(other) => {
                        return Err(Error::Argument {
                            op: "searchsorted",
                            what: "side",
                            expected: "'left' or 'right'",
                            found: other.into(),
                        })
                    }
                };
                searchsorted(args[0], args[1], right)
            },
        )
    };

    /// `(Any, axis: ?int64) -> Any`: how many elements are not zero, over
    /// everything or along `axis`. `int64`.
    COUNT_NONZERO count_nonzero "count_nonzero" rs None => {
        Callable::over_axes("count_nonzero", &[AxisKeyword::Axis], |a, o| {
            count_nonzero(a, o.one_axis("count_nonzero")?)
        })
    };

    /// `(Any) -> Any`: the indexes of the nonzero elements as a `ndim *
    /// count * int64` array, one row per dimension (NumPy's `nonzero`
    /// stacked; `where(x)` with one argument in `dynd eval`).
    NONZERO nonzero "nonzero" rs None => {
        Callable::function("nonzero", dynd_macros::checked_signature!("(Any) -> Any"), vec![], |args, _| {
            let parts = nonzero(args[0])?;
            let count = parts.first().map_or(0, |p| p.ty().fixed_shape().map_or(0, |s| s[0]));
            let mut flat = Vec::with_capacity(parts.len() * count);
            for p in &parts {
                flat.extend(p.to_vec::<i64>()?);
            }
            Array::from_shape_vec(&[parts.len(), count], flat)
        })
    };
}

/// `min` or `max` of strings along `o`'s axes: fixed strings as the text
/// they hold, given back as fixed strings.
pub(crate) fn text_extreme(x: &Array, o: &AxisOptions, max: bool) -> Result<Array, Error> {
    match fixed_as_text(x)? {
        Some(t) => text_as_fixed(text::extreme(&t, o, max)?, x.dtype()),
        None => text::extreme(x, o, max),
    }
}
