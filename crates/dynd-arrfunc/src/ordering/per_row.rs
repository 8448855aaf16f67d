//! The ordering functions along the rows of arrays with `var`
//! dimensions: each row of the last dimension on its own, whatever
//! dimensions stand above it (read and rebuilt by [`AxisRows`]). `?T`
//! elements are skipped by `argmax`/`argmin` and sort last.

use dynd_kernels::Array;
use dynd_kernels::ArrayOps;

use super::key::{arg_extreme_row, ordered_scalar, sort_indexes, Key, Needs, NonZero};
use crate::error::Error;
use crate::rows::{self, chunks, new_values, slice, split_na, AxisRows, PackedRows};

/// `argmax` (`max`) or `argmin` of each row; `None` for `axis` gives the
/// flat index over every value.
pub(crate) fn arg_extreme_rows(
    x: &Array,
    flat: bool,
    keepdims: bool,
    max: bool,
) -> Result<Array, Error> {
    let op = if max { "argmax" } else { "argmin" };
    if !flat {
        if let Some(a) = packed_arg_extremes(x, keepdims, max)? {
            return Ok(a);
        }
    }
    let rows = AxisRows::of(x, op)?;
    let (vals, valid) = split_na(&rows.values)?;
    let none = || Error::Argument {
        op,
        what: "the array",
        expected: "at least one value (NumPy raises too)",
        found: x.ty().to_string().into(),
    };
    if super::text::is_text(&vals) {
        if flat {
            let i = super::text::arg_extreme_all(&vals, valid.as_deref(), max)?.ok_or_else(none)?;
            return Ok(Array::from_scalar(i as i64));
        }
        let at = super::text::arg_extremes(&rows, &vals, valid.as_deref(), max)?;
        return wrap_indexes(x, &rows, at, valid.is_some(), keepdims, op);
    }
    let s = ordered_scalar(&vals, Needs::Extreme)?;
    dynd_array::with_numeric!(ordered s, T => {
        let xs = slice::<T>(&vals)?;
        if flat {
            return match valid {
                None if max => arg_in::<T, true>(&xs, None),
                None => arg_in::<T, false>(&xs, None),
                Some(ref ok) if max => arg_in::<T, true>(&xs, Some(ok)),
                Some(ref ok) => arg_in::<T, false>(&xs, Some(ok)),
            }
            .map(|i| Array::from_scalar(i as i64))
            .ok_or_else(none);
        }
        let ok = valid.as_deref();
        if ok.is_none() && T::ARG_ROWS && rows.fixed.is_none() {
            // Ragged rows: the `?int64` words written by the kernel.
            if let Some(inner) = arg_words::<T>(&rows, &xs, max)? {
                let inner = if keepdims { inner.split_first(rows.count(), 1)? } else { inner };
                return rows.wrap(inner);
            }
        }
        let at = if max {
            per_row::<T, true>(&rows, &xs, ok)
        } else {
            per_row::<T, false>(&rows, &xs, ok)
        };
        wrap_indexes(x, &rows, at, valid.is_some(), keepdims, op)
    }, Err(Error::Unsupported { operation: "argmax/argmin of this data type", ty: x.ty().clone() }))
}

/// [`arg_extreme_rows`] of packed rows of numbers without NA
/// (`N * var * T`): the kernel over each unit of rows as its offsets are
/// read, into `?int64` words; `None` for other arrays.
fn packed_arg_extremes(x: &Array, keepdims: bool, max: bool) -> Result<Option<Array>, Error> {
    let Some(s) = x.dtype().as_scalar() else {
        return Ok(None);
    };
    let Some(rows) = PackedRows::of(x)? else {
        return Ok(None);
    };
    let n = rows.count();
    let inner = dynd_array::with_numeric!(ordered s, T => {
        if !T::ARG_ROWS {
            return Ok(None);
        }
        let xs = slice::<T>(&rows.values)?;
        rows::new_options_written::<i64>(n, |out, there| {
            rows.each_unit(out, 2, &|_, offsets, part| {
                T::arg_rows(&xs, offsets, max, Some(there), part);
            });
        })?
    }, None);
    let Some(inner) = inner else {
        return Ok(None);
    };
    Ok(Some(if keepdims {
        inner.split_first(n, 1)?
    } else {
        inner
    }))
}

/// Each row's index (`at`, -1 for none) under the dimensions above the
/// rows: dense rows without NA keep NumPy's `int64`; ragged ones (and NA,
/// `na`) say "no element" with NA, decided by the type alone.
fn wrap_indexes(
    x: &Array,
    rows: &AxisRows,
    at: Vec<i64>,
    na: bool,
    keepdims: bool,
    op: &'static str,
) -> Result<Array, Error> {
    let inner = if rows.fixed.is_some() && !na {
        if rows.fixed == Some(0) && rows.count() > 0 {
            return Err(Error::Argument {
                op,
                what: "the array",
                expected: "non-empty along the axis (NumPy raises too)",
                found: x.ty().to_string().into(),
            });
        }
        Array::from_vec(at)
    } else {
        rows::optional_indexes(&at)?
    };
    let inner = if keepdims {
        inner.split_first(rows.count(), 1)?
    } else {
        inner
    };
    rows.wrap(inner)
}

/// The first extreme of `xs` among the valid ones.
fn arg_in<T: Key, const MAX: bool>(xs: &[T], ok: Option<&[bool]>) -> Option<usize> {
    let Some(ok) = ok else {
        return arg_extreme_row::<T, MAX>(xs);
    };
    let mut best: Option<(T, usize)> = None;
    for (i, (&x, &v)) in xs.iter().zip(ok).enumerate() {
        if v && best.is_none_or(|(b, _)| x.beats::<MAX>(b)) {
            best = Some((x, i));
        }
    }
    best.map(|(_, i)| i)
}

/// Each row's extreme as a `?int64` (NA for an empty row), written by
/// the branch-free kernel over runs of rows on the threads (`None` where
/// `?int64` is not two words).
fn arg_words<T: Key + Send + Sync>(
    rows: &AxisRows,
    xs: &[T],
    max: bool,
) -> Result<Option<Array>, Error> {
    let o = &rows.offsets;
    rows::new_options_written::<i64>(rows.count(), |out, there| {
        rows::par_fill(
            out,
            |i| 2 * i,
            &rows::chunks(o),
            |run, part| {
                T::arg_rows(xs, &o[run.start..=run.end], max, Some(there), part);
            },
        );
    })
}

/// Each row's extreme: its index, or -1 for a row without one.
fn per_row<T: Key + Send + Sync, const MAX: bool>(
    rows: &AxisRows,
    xs: &[T],
    ok: Option<&[bool]>,
) -> Vec<i64> {
    let o = &rows.offsets;
    if ok.is_none() && T::ARG_ROWS {
        // The branch-free kernel, over runs of rows on the threads.
        let mut out = vec![0i64; rows.count()];
        rows::par_fill(
            &mut out,
            |i| i,
            &rows::chunks(o),
            |run, part| {
                T::arg_rows(xs, &o[run.start..=run.end], MAX, None, part);
            },
        );
        return out;
    }
    rows::per_row(o, |r| {
        let a = match ok {
            None => arg_extreme_row::<T, MAX>(&xs[r]),
            Some(ok) => arg_in::<T, MAX>(&xs[r.clone()], Some(&ok[r])),
        };
        a.map_or(-1, |a| a as i64)
    })
}

/// The indexes that sort each row, stably (NA last, after NaN).
pub(crate) fn argsort_rows(x: &Array, ascending: bool) -> Result<Array, Error> {
    let rows = AxisRows::of(x, "argsort")?;
    let (vals, valid) = split_na(&rows.values)?;
    if super::text::is_text(&vals) {
        return super::text::order_rows(&rows, &vals, valid.as_deref(), ascending, false);
    }
    let s = ordered_scalar(&vals, Needs::Sort)?;
    let out = dynd_array::with_numeric!(ordered s, T => {
        let xs = slice::<T>(&vals)?;
        argsort_typed::<T>(&rows, &xs, valid.as_deref(), ascending)
    }, return Err(Error::Unsupported { operation: "argsort of this data type", ty: x.ty().clone() }));
    rows.wrap_rows(Array::from_vec(out), &rows.offsets)
}

fn argsort_typed<T: Key + Send + Sync>(
    rows: &AxisRows,
    xs: &[T],
    ok: Option<&[bool]>,
    ascending: bool,
) -> Vec<i64> {
    let o = &rows.offsets;
    let mut out = vec![0i64; xs.len()];
    rows::par_fill(
        &mut out,
        |i| o[i] as usize,
        &chunks(o),
        |run, part| {
            let base = o[run.start];
            let mut idx: Vec<u32> = Vec::new();
            let mut idx64: Vec<usize> = Vec::new();
            for i in run {
                let r = o[i] as usize..o[i + 1] as usize;
                let row = &xs[r.clone()];
                let out = &mut part[(o[i] - base) as usize..(o[i + 1] - base) as usize];
                match ok {
                    Some(ok) => {
                        // NA after every value, in their order; the values sorted.
                        let ok = &ok[r];
                        idx64.clear();
                        idx64.extend((0..row.len()).filter(|&i| ok[i]));
                        sort_indexes(&mut idx64, row, ascending);
                        let na = (0..row.len()).filter(|&i| !ok[i]);
                        for (o, i) in out.iter_mut().zip(idx64.iter().copied().chain(na)) {
                            *o = i as i64;
                        }
                    }
                    None if row.len() <= u32::MAX as usize => {
                        idx.clear();
                        idx.extend(0..row.len() as u32);
                        sort_indexes(&mut idx, row, ascending);
                        out.iter_mut()
                            .zip(&idx)
                            .for_each(|(o, &i)| *o = i64::from(i));
                    }
                    None => {
                        idx64.clear();
                        idx64.extend(0..row.len());
                        sort_indexes(&mut idx64, row, ascending);
                        out.iter_mut().zip(&idx64).for_each(|(o, &i)| *o = i as i64);
                    }
                }
            }
        },
    );
    out
}

/// Each row sorted (NaN last, then NA), ascending or descending.
pub(crate) fn sort_rows(x: &Array, ascending: bool) -> Result<Array, Error> {
    let rows = AxisRows::of(x, "sort")?;
    let (vals, valid) = split_na(&rows.values)?;
    if super::text::is_text(&vals) {
        return super::text::order_rows(&rows, &vals, valid.as_deref(), ascending, true);
    }
    let s = ordered_scalar(&vals, Needs::Sort)?;
    let o = &rows.offsets;
    let sorted = dynd_array::with_numeric!(ordered s, T => {
        let xs = slice::<T>(&vals)?;
        if let Some(ok) = valid.as_deref() {
            // NA: by the indexes that sort, NA after the values.
            let idx = argsort_typed::<T>(&rows, &xs, Some(ok), ascending);
            return rows.reorder(&idx);
        }
        new_values::<T>(xs.len(), |out| {
            rows::par_fill(out, |i| o[i] as usize, &chunks(o), |run, part| {
                let base = o[run.start];
                part.copy_from_slice(&xs[base as usize..o[run.end] as usize]);
                for i in run {
                    let row = &mut part[(o[i] - base) as usize..(o[i + 1] - base) as usize];
                    T::sort_values(row);
                    if !ascending {
                        // The numbers reversed; NaN stays last.
                        let numbers = row.iter().rposition(|x| !x.nan()).map_or(0, |p| p + 1);
                        row[..numbers].reverse();
                    }
                }
            })
        })?
    }, return Err(Error::Unsupported { operation: "sort of this data type", ty: x.ty().clone() }));
    rows.wrap_rows(sorted, o)
}

/// The distinct values of each row, sorted (NaN last, once).
pub(crate) fn unique_rows(x: &Array) -> Result<Array, Error> {
    let rows = AxisRows::of(x, "unique")?;
    let (vals, valid) = split_na(&rows.values)?;
    if super::text::is_text(&vals) {
        return super::text::unique_rows(&rows, &vals, valid.as_deref());
    }
    let s = ordered_scalar(&vals, Needs::Sort)?;
    dynd_array::with_numeric!(ordered s, T => {
        let xs = slice::<T>(&vals)?;
        let ok = valid.as_deref();
        let o = &rows.offsets;
        // Each run of rows on its own: its distinct values (then one NA
        // if the row has any) and their counts per row; then end to end.
        let parts = rows::par_map(&chunks(o), |run| {
            let mut out: Vec<T> = Vec::with_capacity((o[run.end] - o[run.start]) as usize);
            let mut na_at = Vec::new();
            let mut lens = Vec::with_capacity(run.len());
            for i in run {
                let start = out.len();
                let r = o[i] as usize..o[i + 1] as usize;
                let mut na = false;
                match ok {
                    None => out.extend_from_slice(&xs[r]),
                    Some(ok) => {
                        for (&x, &v) in xs[r.clone()].iter().zip(&ok[r]) {
                            if v {
                                out.push(x);
                            }
                            na |= !v;
                        }
                    }
                }
                let row = &mut out[start..];
                T::sort_values(row);
                // Keep the first of each run of equal values.
                let mut kept = 0;
                for k in 0..row.len() {
                    if kept == 0 || !row[k].same(&row[kept - 1]) {
                        row[kept] = row[k];
                        kept += 1;
                    }
                }
                out.truncate(start + kept);
                if na {
                    na_at.push(out.len());
                    out.push(xs[o[i] as usize]);
                }
                lens.push((kept + usize::from(na)) as i64);
            }
            (out, lens, na_at)
        });
        let mut out: Vec<T> = Vec::with_capacity(parts.iter().map(|p| p.0.len()).sum());
        let mut na_at = Vec::new();
        let mut offsets = Vec::with_capacity(rows.count() + 1);
        offsets.push(0i64);
        for (values, lens, nas) in parts {
            na_at.extend(nas.iter().map(|k| k + out.len()));
            out.extend_from_slice(&values);
            for l in lens {
                offsets.push(offsets[offsets.len() - 1] + l);
            }
        }
        let mut values = Array::from_vec(out);
        if ok.is_some() {
            let mut there = vec![true; values.ty().fixed_shape().map_or(0, |s| s[0])];
            na_at.iter().for_each(|&k| there[k] = false);
            values = Array::from_option_parts(&values, &Array::from_vec(there))?;
        }
        // Rows of one length are a coincidence of the data: always `var`.
        let inner = Array::from_offsets(values, &offsets)?;
        rows.wrap(inner)
    }, Err(Error::Unsupported { operation: "unique of this data type", ty: x.ty().clone() }))
}

/// How many values are not zero in each row (`int64`; NA is not
/// counted), or over all of them (`flat`).
pub(crate) fn count_nonzero_rows(x: &Array, flat: bool) -> Result<Array, Error> {
    let rows = AxisRows::of(x, "count_nonzero")?;
    let (vals, valid) = split_na(&rows.values)?;
    let s = vals.dtype().as_scalar().ok_or_else(|| Error::Unsupported {
        operation: "count_nonzero of this data type",
        ty: x.ty().clone(),
    })?;
    let counts: Vec<i64> = dynd_array::with_numeric!(s, T => {
        let xs = slice::<T>(&vals)?;
        let count = |r: std::ops::Range<usize>| -> i64 {
            match valid.as_deref() {
                None => xs[r].iter().filter(|x| x.nonzero()).count() as i64,
                Some(ok) => xs[r.clone()].iter().zip(&ok[r]).filter(|(x, &v)| v && x.nonzero()).count() as i64,
            }
        };
        if flat {
            return Ok(Array::from_scalar(count(0..xs.len())));
        }
        rows::per_row(&rows.offsets, count)
    }, return Err(Error::Unsupported { operation: "count_nonzero of this data type", ty: x.ty().clone() }));
    rows.wrap(Array::from_vec(counts))
}
