//! The list functions: what users of Awkward Array and Polars' list
//! namespace reach for on ragged rows, for any array whose last dimension
//! holds the rows (`N * var * T`, deeper `var` levels, fixed dimensions
//! above or in place of the rows).
//!
//! - structure: [`num`] (row lengths), [`flatten`] (one level),
//!   [`unflatten`] (its inverse), [`local_index`] (each element's place
//!   in its row);
//! - dense and back: [`pad`] (to a fixed length, NA or a fill value) and
//!   [`unpad`];
//! - per row, numerically stable: [`softmax`], [`log_softmax`],
//!   [`logsumexp`] (the row's maximum is subtracted first);
//! - selection: [`filter`] (by a boolean array of the same rows) and
//!   [`take_along_axis`] (by per-row indexes, such as `argmax` with
//!   `keepdims`).
//!
//! ```
//! use dynd::func::{argmax, filter, flatten, num, pad, softmax, take_along_axis};
//! use dynd::func::Eval;
//! use dynd::nd::Array;
//!
//! let x = Array::from_nested(vec![vec![1.0, 5.0, 2.0], vec![], vec![-3.0]])?;
//! assert_eq!(num(&x, 1)?.to_string(), "[3, 0, 1]");
//! assert_eq!(flatten(&x, Some(1))?.to_string(), "[1, 5, 2, -3]");
//! assert_eq!(pad(&x, 2, true, None)?.to_string(), "[[1, 5], [null, null], [-3, null]]");
//! let positive = x.greater(0.0).eval()?;
//! assert_eq!(filter(&x, &positive)?.to_string(), "[[1, 5, 2], [], []]");
//! let best = argmax(&x, Some(-1), true)?; // ?int64, NA for the empty row
//! assert_eq!(take_along_axis(&x, &best, -1)?.to_string(), "[[5], [null], [-3]]");
//! assert_eq!(softmax(&x, -1)?.to_nested::<f64>()?[2], [1.0]);
//! # Ok::<(), dynd::Error>(())
//! ```

use std::borrow::Cow;

use dynd_kernels::{Array, ArrayOps, Element, ErrorMode};
use dynd_types::ScalarCategory::{SignedInt, UnsignedInt};
use dynd_types::{Dim, Scalar, Type, TypeKind};

use crate::builtin::builtins;
use crate::callable::{Callable, Keyword};
use crate::error::Error;
use crate::options::AxisKeyword;
use crate::ordering::{axis_of, last_axis};
use crate::rows::split_na;
mod soft;

pub use soft::{log_softmax, logsumexp, softmax};

use crate::rows::{
    cast_to, chunks, element_type, gather, index_words, new_options, new_values,
    option_index_array, par_fill, per_row, positions, select, slice, AxisRows, Indexes, PackedRows,
    Piece,
};

/// `x`'s dimension `axis` (negative from the last), for a function that
/// takes any.
fn dim_of(x: &Array, axis: i64, op: &'static str) -> Result<usize, Error> {
    if x.ndim() == 0 {
        return Err(Error::Unsupported {
            operation: op,
            ty: x.ty().clone(),
        });
    }
    axis_of(axis, x.ndim(), op)
}

/// A one-dimensional array of integers as `i64`s.
fn int64s(a: &Array, op: &'static str, what: &'static str) -> Result<Vec<i64>, Error> {
    let int = a
        .dtype()
        .as_scalar()
        .is_some_and(|s| matches!(s.category(), SignedInt | UnsignedInt));
    match a.ty().fixed_shape().as_deref() {
        Some(&[n]) if int => {
            let ty = Type::with_dims([Dim::Fixed(n)], Scalar::Int64.into())?;
            Ok(a.cast(&ty, ErrorMode::Overflow)?.to_vec::<i64>()?)
        }
        _ => Err(Error::Argument {
            op,
            what,
            expected: "a one-dimensional array of integers",
            found: a.ty().to_string().into(),
        }),
    }
}

/// The length of each row along `axis` (Awkward's `num`; `axis=1` by
/// default in the builtin): `int64`, one per element of the dimensions
/// above; `axis=0` gives the length of the first dimension.
///
/// # Errors
///
/// A scalar, an axis out of range.
pub fn num(x: &Array, axis: i64) -> Result<Array, Error> {
    let axis = dim_of(x, axis, "num of a scalar")?;
    let rows = AxisRows::at(x, axis, "num of a scalar")?;
    let lengths: Vec<i64> = rows.offsets.windows(2).map(|w| w[1] - w[0]).collect();
    rows.wrap(Array::from_vec(lengths))
}

/// The elements of `x` one level flatter: `axis = Some(1)` joins the
/// rows of the second dimension end to end (Awkward's `flatten(axis=1)`,
/// `N * var * T` to `M * T`, `N * var * var * T` to `M * var * T`);
/// `None` gives every value in order, as one `K * T` dimension. Rows
/// that lie end to end (any array made from offsets, JSON or a function;
/// not a view that dropped or reordered rows) are taken as they are, a
/// view in `O(1)`; others are copied once.
///
/// # Errors
///
/// A scalar; an axis other than 1 (or its negative form).
pub fn flatten(x: &Array, axis: Option<i64>) -> Result<Array, Error> {
    let Some(axis) = axis else {
        // Packed `var` levels one after another, each in O(1); what is
        // left (fixed dimensions, rows a view reordered) in one pass.
        let mut cur = Cow::Borrowed(x);
        while cur.ty().has_var_dim() {
            match cur.packed_values()? {
                Some(v) => cur = Cow::Owned(v),
                None => break,
            }
        }
        return Ok(AxisRows::of(&cur, "flatten of a scalar")?.values);
    };
    if x.ndim() < 2 || dim_of(x, axis, "flatten")? != 1 {
        return Err(Error::Argument {
            op: "flatten",
            what: "axis",
            expected: "1 (one level, into the first dimension) or none (every value)",
            found: format!("{axis} of {}", x.ty()).into(),
        });
    }
    // `N * var * ...` with packed rows: their values as they lie.
    if matches!(x.ty().kind(), TypeKind::Dim(Dim::Fixed(_), inner) if matches!(inner.kind(), TypeKind::Dim(Dim::Var, _)))
    {
        if let Some(v) = x.packed_values()? {
            return Ok(v);
        }
    }
    Ok(AxisRows::at(x, 1, "flatten")?.values)
}

/// The inverse of [`flatten`]: `values` (any `M * T`) grouped into rows
/// of `counts` (integers, one per row, summing to `M`): `N * var * T`,
/// sharing the values' memory.
///
/// # Errors
///
/// Counts that are not integers, are negative, or do not add up to the
/// values' length.
pub fn unflatten(values: &Array, counts: &Array) -> Result<Array, Error> {
    let counts = int64s(counts, "unflatten", "the counts")?;
    let m = match values.ty().kind() {
        TypeKind::Dim(Dim::Fixed(m), _) => *m,
        _ => {
            return Err(Error::Argument {
                op: "unflatten",
                what: "the values",
                expected: "an array with a fixed first dimension",
                found: values.ty().to_string().into(),
            })
        }
    };
    let mut offsets = Vec::with_capacity(counts.len() + 1);
    offsets.push(0i64);
    let mut total = 0i64;
    for (i, &c) in counts.iter().enumerate() {
        if c < 0 {
            return Err(Error::Argument {
                op: "unflatten",
                what: "the counts",
                expected: "at least 0",
                found: format!("{c} at index {i}").into(),
            });
        }
        total = total.saturating_add(c);
        offsets.push(total);
    }
    if total != m as i64 {
        return Err(Error::Argument {
            op: "unflatten",
            what: "the counts",
            expected: "adding up to the values' length",
            found: format!("a sum of {total} for {m} values").into(),
        });
    }
    Array::from_offsets(values.clone(), &offsets)
}

/// Each element's index within its row along the last axis (Awkward's
/// `local_index`): `int64`, `x`'s rows.
///
/// # Errors
///
/// A scalar.
pub fn local_index(x: &Array) -> Result<Array, Error> {
    let rows = AxisRows::of(x, "local_index of a scalar")?;
    let o = &rows.offsets;
    let mut out = vec![0i64; o[o.len() - 1] as usize];
    par_fill(
        &mut out,
        |i| o[i] as usize,
        &chunks(o),
        |run, part| {
            let base = o[run.start];
            for r in run {
                let row = &mut part[(o[r] - base) as usize..(o[r + 1] - base) as usize];
                row.iter_mut().zip(0..).for_each(|(x, i)| *x = i);
            }
        },
    );
    rows.wrap_rows(Array::from_vec(out), o)
}

/// The offsets of rows that keep the elements `keep` marks.
fn counted(offsets: &[i64], keep: &[bool]) -> Vec<i64> {
    let counts = per_row(offsets, |r| keep[r].iter().filter(|&&k| k).count() as i64);
    let mut out = Vec::with_capacity(counts.len() + 1);
    out.push(0i64);
    let mut total = 0;
    for c in counts {
        total += c;
        out.push(total);
    }
    out
}

/// The option type of `t` (itself when it is one).
fn optional(t: &Type) -> Result<Type, Error> {
    Ok(match t.kind() {
        TypeKind::Option(_) => t.clone(),
        _ => Type::option(t.clone())?,
    })
}

/// The rows along the last axis padded to `n` (Awkward's `pad_none`):
/// with NA (the element type becomes `?T`) or with `fill` (a scalar;
/// the element type is the common one). With `clip`, longer rows are cut
/// to `n` and the rows become a fixed dimension `n`; without, longer rows
/// stay as they are and the rows stay `var`.
///
/// # Errors
///
/// A scalar; a `fill` that is not a scalar or has no common type with
/// the elements.
pub fn pad(x: &Array, n: usize, clip: bool, fill: Option<&Array>) -> Result<Array, Error> {
    let rows = AxisRows::of(x, "pad of a scalar")?;
    let ety = element_type(&rows.values);
    if let (None, Some(s)) = (fill, ety.as_scalar().filter(|s| s.is_numeric())) {
        // Numbers padded with NA: each value beside its flag, typed (the
        // complex numbers, whose options are laid out otherwise, go on).
        let typed = dynd_array::with_numeric!(s, T => pad_na::<T>(&rows, n, clip)?, None);
        if let Some(out) = typed {
            return Ok(out);
        }
    }
    let (values, fill) = match fill {
        None => {
            let t = optional(&ety)?;
            (cast_to(&rows.values, &t)?, None)
        }
        Some(f) => {
            if f.ndim() != 0 {
                return Err(Error::Argument {
                    op: "pad",
                    what: "fill",
                    expected: "a scalar",
                    found: f.ty().to_string().into(),
                });
            }
            let t = if ety.is_dim() {
                ety.clone()
            } else {
                dynd_types::promote(&ety, f.dtype())?
            };
            let one = Array::from_vec(vec![0u8]).cast(&t, ErrorMode::NoCheck)?;
            let mut one = one;
            one.assign(f, ErrorMode::NoCheck)?;
            (cast_to(&rows.values, &t)?, Some(one))
        }
    };
    let mut at = Vec::with_capacity(rows.count() + 1);
    at.push(0usize);
    let mut offsets = Vec::with_capacity(rows.count() + 1);
    offsets.push(0i64);
    for w in rows.offsets.windows(2) {
        let len = (w[1] - w[0]) as usize;
        let total = at[at.len() - 1] + if clip { n } else { len.max(n) };
        at.push(total);
        offsets.push(total as i64);
    }
    let o = &rows.offsets;
    let out = gather(&[&values], fill.as_ref(), (&at, o), |i| {
        let len = (o[i + 1] - o[i]) as usize;
        let take = if clip { len.min(n) } else { len };
        [
            Piece::Take {
                src: 0,
                start: o[i] as usize,
                len: take,
            },
            Piece::Fill(n.saturating_sub(take)),
        ]
        .into_iter()
    })?;
    padded(&rows, out, n, clip, &offsets)
}

/// Padded rows put back: fixed when clipped or when the rows were fixed,
/// else `var` with their `offsets`.
fn padded(
    rows: &AxisRows,
    out: Array,
    n: usize,
    clip: bool,
    offsets: &[i64],
) -> Result<Array, Error> {
    match (clip, rows.fixed) {
        (true, _) => rows.wrap_fixed(out, n),
        (false, Some(k)) => rows.wrap_fixed(out, k.max(n)),
        (false, None) => rows.wrap_rows(out, offsets),
    }
}

/// [`pad`] of numbers with NA: each value copied beside its flag in one
/// pass (NA slots left zero); `None` where `?T` is not laid out so.
fn pad_na<T: Element + Default>(
    rows: &AxisRows,
    n: usize,
    clip: bool,
) -> Result<Option<Array>, Error> {
    let xs = slice::<T>(&rows.values)?;
    let o = &rows.offsets;
    let width = |i: usize| {
        let len = (o[i + 1] - o[i]) as usize;
        if clip {
            n
        } else {
            len.max(n)
        }
    };
    let mut at = Vec::with_capacity(rows.count() + 1);
    at.push(0usize);
    for i in 0..rows.count() {
        at.push(at[i] + width(i));
    }
    let total = at[at.len() - 1];
    let runs = chunks(o);
    // Each value beside its flag, in one pass (the padding stays zero: NA).
    let fill = |out: &mut [T], there: T| {
        par_fill(
            out,
            |i| 2 * at[i],
            &runs,
            |run, part| {
                let base = 2 * at[run.start];
                for i in run {
                    let row = &xs[o[i] as usize..o[i + 1] as usize];
                    let k = row.len().min(width(i));
                    let dst = &mut part[2 * at[i] - base..2 * (at[i] + k) - base];
                    for (d, &x) in dst.chunks_exact_mut(2).zip(&row[..k]) {
                        d[0] = x;
                        d[1] = there;
                    }
                }
            },
        )
    };
    let Some(out) = new_options::<T>(total, fill)? else {
        return Ok(None);
    };
    let offsets: Vec<i64> = at.iter().map(|&a| a as i64).collect();
    padded(rows, out, n, clip, &offsets).map(Some)
}

/// The inverse of [`pad`]: the rows along the last axis cut to
/// `lengths` (integers, one per row), or, without lengths, the valid
/// elements of each row of a `?T` array (NA dropped, the element type
/// `T`). Rows are `var`.
///
/// # Errors
///
/// A scalar; lengths of another count than the rows, negative or longer
/// than their row; no lengths for elements that are not `?T`.
pub fn unpad(x: &Array, lengths: Option<&Array>) -> Result<Array, Error> {
    let rows = AxisRows::of(x, "unpad of a scalar")?;
    let Some(lengths) = lengths else {
        let (values, valid) = split_na(&rows.values)?;
        let Some(valid) = valid else {
            return Err(Error::Argument {
                op: "unpad",
                what: "the array without lengths",
                expected: "elements of an option type (`?T`), NA marking the padding",
                found: x.ty().to_string().into(),
            });
        };
        let offsets = counted(&rows.offsets, &valid);
        let kept = select(&values, &valid, &rows.offsets, &offsets)?;
        return rows.wrap_rows(kept, &offsets);
    };
    let lengths = int64s(lengths, "unpad", "the lengths")?;
    if lengths.len() != rows.count() {
        return Err(Error::Argument {
            op: "unpad",
            what: "the lengths",
            expected: "one per row",
            found: format!("{} lengths for {} rows", lengths.len(), rows.count()).into(),
        });
    }
    let mut offsets = Vec::with_capacity(rows.count() + 1);
    offsets.push(0i64);
    let mut total = 0usize;
    for (i, (&l, w)) in lengths.iter().zip(rows.offsets.windows(2)).enumerate() {
        if l < 0 || l > w[1] - w[0] {
            return Err(Error::Argument {
                op: "unpad",
                what: "the lengths",
                expected: "from 0 to the row's length",
                found: format!("{l} for row {i} of length {}", w[1] - w[0]).into(),
            });
        }
        total += l as usize;
        offsets.push(total as i64);
    }
    let o = &rows.offsets;
    let at = positions(&offsets);
    let out = gather(&[&rows.values], None, (&at, o), |i| {
        std::iter::once(Piece::Take {
            src: 0,
            start: o[i] as usize,
            len: lengths[i] as usize,
        })
    })?;
    rows.wrap_rows(out, &offsets)
}

/// The elements of `x` where `mask` (booleans with the same rows: the
/// same dimensions and row lengths, such as `x > 0`) is true (Awkward's
/// `x[mask]`): rows of the kept elements, `var`. NA in the mask drops.
///
/// # Errors
///
/// A mask that is not boolean or has other rows.
pub fn filter(x: &Array, mask: &Array) -> Result<Array, Error> {
    let rows = AxisRows::of(x, "filter of a scalar")?;
    let keep = AxisRows::of(mask, "filter by a scalar")?;
    if !rows.same_shape(&keep) {
        return Err(Error::Argument {
            op: "filter",
            what: "the mask",
            expected: "the array's dimensions and row lengths",
            found: format!("{} for an array of {}", mask.ty(), x.ty()).into(),
        });
    }
    let (m, valid) = split_na(&keep.values)?;
    if m.dtype().as_scalar() != Some(Scalar::Bool) {
        return Err(Error::Argument {
            op: "filter",
            what: "the mask",
            expected: "bool or ?bool elements",
            found: mask.ty().to_string().into(),
        });
    }
    let mut m = slice::<bool>(&m)?.into_owned();
    if let Some(valid) = valid {
        m.iter_mut().zip(valid).for_each(|(k, v)| *k &= v);
    }
    let offsets = counted(&rows.offsets, &m);
    let kept = select(&rows.values, &m, &rows.offsets, &offsets)?;
    rows.wrap_rows(kept, &offsets)
}

/// The elements of `x` at per-row indexes along the last axis (NumPy's
/// and Awkward's `take_along_axis`, `x[idx]` for ragged `idx`): `idx`
/// has `x`'s dimensions above the rows and rows of any length, such as
/// `argmax(x, keepdims=true)`; negative indexes count from the row's
/// end; an NA index gives NA (the element type becomes `?T`).
///
/// # Errors
///
/// Indexes that are not integers, other dimensions above the rows, an
/// index outside its row (saying which).
pub fn take_along_axis(x: &Array, idx: &Array, axis: i64) -> Result<Array, Error> {
    last_axis(x, axis, "take_along_axis")?;
    if let Some(picked) = take_packed(x, idx)? {
        return Ok(picked);
    }
    let rows = AxisRows::of(x, "take_along_axis of a scalar")?;
    let at = AxisRows::of(idx, "take_along_axis by a scalar")?;
    if !rows.same_outer(&at) {
        return Err(Error::Argument {
            op: "take_along_axis",
            what: "the indexes",
            expected: "the array's dimensions above the rows (rows of any length)",
            found: format!("{} for an array of {}", idx.ty(), x.ty()).into(),
        });
    }
    // `?int64` indexes (`argmax` with `keepdims`) are read in place.
    let held = option_index_array(&at.values);
    let ix = match held.as_ref().and_then(index_words) {
        Some(words) => words,
        None => plain_indexes(&at.values, idx)?,
    };
    let (o, p) = (&rows.offsets, &at.offsets);
    // Numbers: the values picked in one pass, with their flags beside them
    // where an index may be NA.
    if let Some(s) = rows.values.dtype().as_scalar().filter(|s| s.is_numeric()) {
        let picked = dynd_array::with_numeric!(s, T => {
            let xs = slice::<T>(&rows.values)?;
            take_numbers(&xs, TakeRows::Offsets(o, p), &ix)?
        }, None);
        if let Some(picked) = picked {
            return at.wrap_rows(picked, &at.offsets);
        }
    }
    // Each index as a position in the values: -1 for NA, -2 outside
    // its row (the first such is reported).
    let mut src = vec![0i64; ix.len()];
    par_fill(
        &mut src,
        |i| p[i] as usize,
        &chunks(p),
        |run, part| {
            let mut k = 0;
            for r in run {
                let len = o[r + 1] - o[r];
                for q in p[r] as usize..p[r + 1] as usize {
                    part[k] = match ix.get(q) {
                        None => -1,
                        Some(i) => {
                            let j = if i < 0 { i + len } else { i };
                            if (0..len).contains(&j) {
                                o[r] + j
                            } else {
                                -2
                            }
                        }
                    };
                    k += 1;
                }
            }
        },
    );
    if let Some(q) = src.iter().position(|&s| s == -2) {
        let r = p.partition_point(|&v| v <= q as i64) - 1;
        return Err(Error::Argument {
            op: "take_along_axis",
            what: "an index",
            expected: "inside its row (negative from its end)",
            found: format!(
                "{} for row {r} of length {}",
                ix.get(q).unwrap_or(0),
                o[r + 1] - o[r]
            )
            .into(),
        });
    }
    let out = gather(&[&rows.values], None, (&positions(p), p), |r| {
        src[p[r] as usize..p[r + 1] as usize].iter().map(|&s| {
            if s < 0 {
                Piece::Fill(1)
            } else {
                Piece::Take {
                    src: 0,
                    start: s as usize,
                    len: 1,
                }
            }
        })
    })?;
    // NA where the index was: the values' own NA, or NA made here.
    let valid = ix.optional().then(|| {
        (0..ix.len())
            .map(|q| ix.get(q).is_some())
            .collect::<Vec<bool>>()
    });
    let out = match (valid, element_type(&rows.values).kind()) {
        (Some(ok), TypeKind::Option(_)) => {
            let (v, there) = split_na(&out)?;
            let there: Vec<bool> = there.map_or(ok.clone(), |t| {
                t.iter().zip(&ok).map(|(a, b)| *a && *b).collect()
            });
            Array::from_option_parts(&v, &Array::from_vec(there))?
        }
        (Some(ok), _) => Array::from_option_parts(&out, &Array::from_vec(ok))?,
        (None, _) => out,
    };
    at.wrap_rows(out, &at.offsets)
}

/// Indexes that are not `?int64` words: any integers, cast to `int64`,
/// and which are there; an error naming `idx`'s type for other elements.
fn plain_indexes(values: &Array, idx: &Array) -> Result<Indexes<'static>, Error> {
    let (ix, valid) = split_na(values)?;
    let int = ix
        .dtype()
        .as_scalar()
        .is_some_and(|s| matches!(s.category(), SignedInt | UnsignedInt));
    if !int {
        return Err(Error::Argument {
            op: "take_along_axis",
            what: "the indexes",
            expected: "integers",
            found: idx.ty().to_string().into(),
        });
    }
    let ix = cast_to(&ix, &Scalar::Int64.into())?;
    Ok(Indexes::Plain(
        Cow::Owned(slice::<i64>(&ix)?.into_owned()),
        valid,
    ))
}

/// [`take_along_axis`] of packed rows of numbers (`N * var * T`, no NA)
/// by `k` indexes per row (`N * k * I`, as `argmax` with `keepdims` gives):
/// each unit of rows picked as its offsets are read, with no offsets
/// written for either array. `None` for other arrays, and when an index
/// lies outside its row (the general path says which).
fn take_packed(x: &Array, idx: &Array) -> Result<Option<Array>, Error> {
    let Some(s) = x.dtype().as_scalar().filter(|s| s.is_numeric()) else {
        return Ok(None);
    };
    let Some(&[n, k]) = idx
        .ty()
        .fixed_shape()
        .as_deref()
        .filter(|s| s.len() == 2 && s[1] > 0)
    else {
        return Ok(None);
    };
    let Some(rows) = PackedRows::of(x)?.filter(|r| r.count() == n) else {
        return Ok(None);
    };
    let Some(count) = n.checked_mul(k) else {
        return Ok(None);
    };
    let flat = idx.reshape([count])?;
    let held = option_index_array(&flat);
    let ix = match held.as_ref().and_then(index_words) {
        Some(words) => words,
        None => plain_indexes(&flat, idx)?,
    };
    let picked = dynd_array::with_numeric!(s, T => {
        let xs = slice::<T>(&rows.values)?;
        take_numbers(&xs, TakeRows::Packed(&rows, k), &ix)?
    }, None);
    picked.map(|p| p.split_first(n, k)).transpose()
}

/// Where [`take_by`]'s rows are: the offsets of `x`'s rows and of the
/// indexes' rows, or packed rows of `x` read a unit at a time with `k`
/// indexes for each.
#[derive(Clone, Copy)]
enum TakeRows<'r> {
    Offsets(&'r [i64], &'r [i64]),
    Packed(&'r PackedRows<'r>, usize),
}

/// [`take_along_axis`] of numbers: row `r` of the result holds, for each
/// of its indexes, the element of row `r` of `xs` it points at, in one
/// pass; `?T` with NA where an index is NA when any may be. `None` if an
/// index lies outside its row (the general path reports which) or `?T`
/// is laid out otherwise.
fn take_numbers<T: Element>(
    xs: &[T],
    rows: TakeRows<'_>,
    ix: &Indexes<'_>,
) -> Result<Option<Array>, Error> {
    // One loop per way of reading the indexes (no match per element).
    let n = ix.len();
    match ix {
        Indexes::Words(w) => take_by(xs, rows, n, true, |q| {
            (w[2 * q + 1].to_ne_bytes()[0] != 0).then_some(w[2 * q] as i64)
        }),
        Indexes::Plain(v, None) => take_by(xs, rows, n, false, |q| Some(v[q])),
        Indexes::Plain(v, Some(ok)) => take_by(xs, rows, n, true, |q| ok[q].then_some(v[q])),
    }
}

/// [`take_numbers`] with index `q` read by `get` (`None` for NA), `?T`
/// out when `optional`.
fn take_by<T: Element>(
    xs: &[T],
    rows: TakeRows<'_>,
    n: usize,
    optional: bool,
    get: impl Fn(usize) -> Option<i64> + Sync,
) -> Result<Option<Array>, Error> {
    use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
    let bad = AtomicBool::new(false);
    // The element `i` points at in the row of `len` from `start`, if
    // inside the row.
    let pick = |start: i64, len: i64, i: i64| {
        let j = if i < 0 { i + len } else { i };
        if (0..len).contains(&j) {
            xs.get((start + j) as usize).copied()
        } else {
            bad.store(true, Relaxed);
            None
        }
    };
    let (o, p) = match rows {
        TakeRows::Offsets(o, p) => (o, p),
        TakeRows::Packed(rows, k) => {
            // Row `first + r` of the unit has indexes `(first + r) * k ..`.
            // `?T` slots (value, flag word) where `there` is the flag:
            // both words of every slot written, NA as two zero words.
            let zero = dynd_array::element::read::<T>(&[0u8; 16][..std::mem::size_of::<T>()]);
            let each = |first: usize, offs: &[i64], part: &mut [T], there: Option<(T, T)>| {
                let width = 1 + there.is_some() as usize;
                if k == 1 {
                    const AHEAD: usize = 32;
                    // One index per row (`argmax` kept as a dimension): a
                    // loop of few instructions per row, so that many
                    // rows' loads (each from its own place) are in flight.
                    let slots = part.chunks_exact_mut(width);
                    for ((r, w), slot) in offs.windows(2).enumerate().zip(slots) {
                        if let Some(&[ahead, _]) = offs.get(r + AHEAD..r + AHEAD + 2) {
                            if let Some(i) = get(first + r + AHEAD) {
                                dynd_kernels::rowwise::prefetch(xs, ahead.wrapping_add(i) as usize);
                            }
                        }
                        let x = get(first + r).and_then(|i| pick(w[0], w[1] - w[0], i));
                        match (x, there) {
                            (Some(x), None) => slot[0] = x,
                            (Some(x), Some((t, _))) => {
                                slot[0] = x;
                                slot[1] = t;
                            }
                            (None, Some((_, z))) => {
                                slot[0] = z;
                                slot[1] = z;
                            }
                            (None, None) => {}
                        }
                    }
                    return;
                }
                for (r, w) in offs.windows(2).enumerate() {
                    for j in 0..k {
                        let q = (first + r) * k + j;
                        let x = get(q).and_then(|i| pick(w[0], w[1] - w[0], i));
                        let at = (r * k + j) * width;
                        match (x, there) {
                            (Some(x), None) => part[at] = x,
                            (Some(x), Some((t, _))) => {
                                part[at] = x;
                                part[at + 1] = t;
                            }
                            (None, Some((_, z))) => {
                                part[at] = z;
                                part[at + 1] = z;
                            }
                            (None, None) => {}
                        }
                    }
                }
            };
            let out = match zero {
                Some(z) if optional => crate::rows::new_options_written::<T>(n, |out, there| {
                    rows.each_unit(out, 2 * k, &|first, offs, part| {
                        each(first, offs, part, Some((there, z)))
                    })
                })?,
                _ if optional => return Ok(None),
                _ => Some(new_values::<T>(n, |out| {
                    rows.each_unit(out, k, &|first, offs, part| each(first, offs, part, None))
                })?),
            };
            return Ok(out.filter(|_| !bad.into_inner()));
        }
    };
    let pick = |r: usize, i: i64| pick(o[r], o[r + 1] - o[r], i);
    let runs = chunks(p);
    let out = if optional {
        new_options::<T>(n, |out, there| {
            par_fill(
                out,
                |i| 2 * p[i] as usize,
                &runs,
                |run, part| {
                    let base = 2 * p[run.start] as usize;
                    for r in run {
                        for q in p[r] as usize..p[r + 1] as usize {
                            if let Some(x) = get(q).and_then(|i| pick(r, i)) {
                                part[2 * q - base] = x;
                                part[2 * q + 1 - base] = there;
                            }
                        }
                    }
                },
            )
        })?
    } else {
        Some(new_values::<T>(n, |out| {
            par_fill(
                out,
                |i| p[i] as usize,
                &runs,
                |run, part| {
                    let base = p[run.start] as usize;
                    for r in run {
                        for q in p[r] as usize..p[r + 1] as usize {
                            if let Some(x) = get(q).and_then(|i| pick(r, i)) {
                                part[q - base] = x;
                            }
                        }
                    }
                },
            )
        })?)
    };
    Ok(out.filter(|_| !bad.into_inner()))
}

builtins! {
    $ TABLE, __lists_builtins;

    /// `(Any, axis: ?int64) -> Any`: the length of each row along `axis`
    /// (default 1), `int64`.
    NUM num "num" rs None => {
        Callable::function("num", dynd_macros::checked_signature!("(Any, axis: ?int64) -> Any"),
            vec![Keyword::maybe("axis", Some(Scalar::Int64))],
            |args, kw| num(args[0], kw.int("axis")?.unwrap_or(1)))
    };

    /// `(Any, axis: ?int64, all: ?bool) -> Any`: one level flatter (`axis=1`,
    /// the default), or every value in order with `all=true`.
    FLATTEN flatten "flatten" rs None => {
        Callable::function("flatten", dynd_macros::checked_signature!("(Any, axis: ?int64, all: ?bool) -> Any"),
            vec![Keyword::maybe("axis", Some(Scalar::Int64)), Keyword::maybe("all", Some(Scalar::Bool))],
            |args, kw| {
                if kw.bool("all")?.unwrap_or(false) {
                    return flatten(args[0], None);
                }
                flatten(args[0], Some(kw.int("axis")?.unwrap_or(1)))
            })
    };

    /// `(Any, Any) -> Any`: values grouped into rows of the given counts.
    UNFLATTEN unflatten "unflatten" rs None => {
        Callable::function("unflatten", dynd_macros::checked_signature!("(Any, Any) -> Any"), vec![],
            |args, _| unflatten(args[0], args[1]))
    };

    /// `(Any) -> Any`: each element's index in its row, `int64`.
    LOCAL_INDEX local_index "local_index" rs None => {
        Callable::function("local_index", dynd_macros::checked_signature!("(Any) -> Any"), vec![],
            |args, _| local_index(args[0]))
    };

    /// `(Any, Any, clip: ?bool, fill: ?Any) -> Any`: rows padded to a
    /// length with NA (or `fill`); cut and fixed with `clip=true`.
    PAD pad "pad" rs None => {
        Callable::over_axes_of("pad", 2, &[AxisKeyword::Clip, AxisKeyword::Fill], |args, o| {
            let n = crate::arrays::ints("pad", 1, args[1])?;
            let n = match n.as_slice() {
                [n] if *n >= 0 => *n as usize,
                _ => return Err(Error::Argument { op: "pad", what: "the length", expected: "one integer, at least 0", found: args[1].to_string().into() }),
            };
            pad(args[0], n, o.clips(), o.fill_value())
        })
    };

    /// `(Any, ...) -> Any`: rows cut to the given lengths, or the valid
    /// elements of each row of a `?T` array.
    UNPAD unpad "unpad" rs None => {
        Callable::function("unpad", dynd_macros::checked_signature!("(Any, ...) -> Any"), vec![],
            |args, _| unpad(args[0], args.get(1).copied()))
    };

    /// `(Any, axis: ?int64) -> Any`: each row's softmax, stable.
    SOFTMAX softmax "softmax" rs None => {
        Callable::over_axes("softmax", &[AxisKeyword::Axis], |a, o| softmax(a, o.one_axis("softmax")?.unwrap_or(-1)))
    };

    /// `(Any, axis: ?int64) -> Any`: each row's log-softmax, stable.
    LOG_SOFTMAX log_softmax "log_softmax" rs None => {
        Callable::over_axes("log_softmax", &[AxisKeyword::Axis], |a, o| log_softmax(a, o.one_axis("log_softmax")?.unwrap_or(-1)))
    };

    /// `(Any, axis: ?int64) -> Any`: each row's log-sum-exp, stable.
    LOGSUMEXP logsumexp "logsumexp" rs None => {
        Callable::over_axes("logsumexp", &[AxisKeyword::Axis], |a, o| logsumexp(a, o.one_axis("logsumexp")?.unwrap_or(-1)))
    };

    /// `(Any, Any) -> Any`: the elements where a boolean array of the same
    /// rows is true.
    FILTER filter "filter" rs None => {
        Callable::function("filter", dynd_macros::checked_signature!("(Any, Any) -> Any"), vec![],
            |args, _| filter(args[0], args[1]))
    };

    /// `(Any, Any, axis: ?int64) -> Any`: the elements at per-row indexes.
    TAKE_ALONG_AXIS take_along_axis "take_along_axis" rs None => {
        Callable::over_axes_of("take_along_axis", 2, &[AxisKeyword::Axis], |args, o| {
            take_along_axis(args[0], args[1], o.one_axis("take_along_axis")?.unwrap_or(-1))
        })
    };
}
