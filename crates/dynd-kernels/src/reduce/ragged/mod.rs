//! Reductions of arrays with a ragged dimension: fixed dimensions around an
//! innermost `var` one (`var * T`, `N * var * T`, `M * N * var * T`).
//!
//! Reducing the `var` axis folds each row. Reducing fixed axes *across*
//! the rows lines them up by position (left-aligned, as Awkward Array
//! does): element `j` of the result folds element `j` of every row that
//! has one, so a result row is as long as the longest row folded into it —
//! `[[1, 2, 3], [4, 5]]` summed over axis 0 is `[5, 7, 3]`, of type
//! `var * int64`. A `where` mask broadcasts to the array as an elementwise
//! operand would (a `var` row of the mask has the data row's length or 1).
//!
//! Other nestings (`var * var * T`, `N * var * var * T`, `var * 3 * T`)
//! reduce over any of their axes by the same left-aligned rule, through
//! their levels (see the `nested` module): one general pass, not the
//! vectorised row folds.

use std::borrow::Cow;
use std::sync::Arc;

use dynd_types::{Dim, Type};

use super::float::{Finish, Float, NaSlot};
use super::{fold8, fold_run, no_identity, note_failure, outside, ReduceArgs, Reduction, BLOCK};
use crate::array::Array;
use crate::arrmeta::{read_pair, write_pair, Arrmeta, PAIR_SIZE};
use crate::element::{bytes_of, read, Element};
use crate::error::Error;
use crate::memory::MemoryBlock;

mod wide;
use wide::*;
mod variance;
pub use variance::mean_of_rows;
use variance::*;
pub(crate) use variance::{variance_each_row, variance_of_rows};
mod across;
pub(crate) use across::accumulate_rows;
use across::*;
mod nested;
pub(super) use nested::{fold_tree, tree_of};

/// Rows at least this many are folded in parallel.
pub(super) const PARALLEL_ROWS: usize = 1 << 12;

/// Rows per run of a fold across rows that runs in parallel.
pub(super) const ACROSS_RUN: usize = 1 << 15;

/// The most result rows (groups) a fold across rows runs in parallel
/// for: each run keeps a partial line per group.
pub(super) const ACROSS_GROUPS: usize = 64;

/// The one row view (see [`dynd_array::rows`]): the rows of an array of
/// fixed dimensions around an innermost `var` one, and their fast case as
/// slices (`RowSlices`, the array crate's `RaggedRows`).
pub(super) use dynd_array::rows::{RaggedRows as RowSlices, Rows};

/// [`Rows`]' readers with the errors a reduction named `name` gives: a
/// row or pair outside its block (never, for a validated array).
pub(super) trait RowsIn<'a> {
    /// Row `r`'s elements (see [`Rows::row`]).
    fn row_of<T: Element>(&self, r: usize, name: &str) -> Result<Cow<'a, [T]>, Error>;
    /// Row `r`'s first element's byte offset and length (see
    /// [`Rows::pair`]).
    fn pair_of(&self, r: usize, name: &str) -> Result<(i128, usize), Error>;
}

impl<'a> RowsIn<'a> for Rows<'a> {
    fn row_of<T: Element>(&self, r: usize, name: &str) -> Result<Cow<'a, [T]>, Error> {
        self.row::<T>(r).ok_or_else(|| outside(name, "a var row"))
    }

    #[inline]
    fn pair_of(&self, r: usize, name: &str) -> Result<(i128, usize), Error> {
        self.pair(r)
            .ok_or_else(|| outside(name, "a var row's (start, length) pair"))
    }
}

/// Rows per unit of work of the per-row fold.
pub(super) const UNIT_ROWS: usize = 1 << 10;

/// The work of one unit of rows: `work(first, results)` computes the
/// results of rows `first..first + results.len()`, or fails with the
/// first failing row and its error (see [`each_unit`]).
pub(super) trait UnitWork<T>:
    Fn(usize, &mut [T]) -> Result<(), Box<(usize, Error)>> + Sync
{
}

impl<T, W: Fn(usize, &mut [T]) -> Result<(), Box<(usize, Error)>> + Sync> UnitWork<T> for W {}

/// The error for a `where` mask that does not broadcast to `a`.
fn mask_mismatch(mask: &Array, a: &Array, name: &str) -> Error {
    Error::MaskShape {
        name: name.into(),
        mask: mask.ty().clone(),
        array: a.ty().clone(),
        axis: None,
    }
}

/// `mask` broadcast to `a`'s shape, as a `bool` array of that shape.
pub(super) fn mask_like<T: Element>(mask: &Array, a: &Array, name: &str) -> Result<Array, Error> {
    if mask.dtype().as_scalar() != Some(dynd_types::Scalar::Bool) {
        return Err(Error::MaskType {
            name: name.into(),
            found: mask.dtype().clone(),
        });
    }
    let m = crate::elwise::map2(mask, a, |m: bool, _: T| m)
        .map_err(|_| mask_mismatch(mask, a, name))?;
    if m.shape() != a.shape() {
        return Err(mask_mismatch(mask, a, name));
    }
    // Broadcasting goes both ways, but a mask must not stretch the array:
    // each row of the broadcast mask has the array's row's length (a
    // longer mask row would otherwise fold a row of length 1 repeated).
    if let (Some(mr), Some(ar)) = (Rows::of(&m), Rows::of(a)) {
        for r in 0..ar.count() {
            let (mask_len, array_len) = (mr.pair_of(r, name)?.1, ar.pair_of(r, name)?.1);
            if mask_len != array_len {
                let mut index = vec![0; ar.shape().len()];
                let mut rest = r;
                for (i, n) in index.iter_mut().zip(ar.shape()).rev() {
                    *i = rest % n.max(&1);
                    rest /= n.max(&1);
                }
                return Err(Error::MaskRow {
                    name: name.into(),
                    index,
                    mask_len,
                    array_len,
                });
            }
        }
    }
    Ok(m)
}

/// The rows of `mask` (made by [`mask_like`] for `a`), which line up
/// with `a`'s.
pub(super) fn mask_rows<'m>(mask: &'m Array, a: &Array, name: &str) -> Result<Rows<'m>, Error> {
    Rows::of(mask).ok_or_else(|| mask_mismatch(mask, a, name))
}

/// Folds one row (only the elements its mask keeps).
fn fold_row<T, F>(xs: &[T], mask: Option<&[bool]>, red: &Reduction<T, F>) -> Option<T>
where
    T: Element,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    let f = red.combine;
    match mask {
        Some(m) => xs
            .iter()
            .zip(m)
            .filter(|(_, keep)| **keep)
            .map(|(x, _)| *x)
            .reduce(f),
        None if red.reorderable && xs.len() > BLOCK => fold_run(xs, f, red.run),
        None if red.reorderable => fold8(xs, &f),
        None => xs.iter().copied().reduce(f),
    }
}

/// The reduction of an array whose innermost dimension is `var` (see the
/// module docs), over `axes` (normalised, sorted).
pub(super) fn reduce_var<T, F>(
    a: &Array,
    axes: &[usize],
    args: &ReduceArgs<'_, T>,
    red: &Reduction<T, F>,
    name: &str,
    start: Option<T>,
) -> Result<Array, Error>
where
    T: Element,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    let f = red.combine;
    let Some(rows) = Rows::of(a) else {
        let finish = |r: Option<T>| match (start, r) {
            (Some(s), Some(r)) => Ok(f(s, r)),
            (s, r) => r.or(s).ok_or_else(|| no_identity(name)),
        };
        let tree = tree_of(a, args.mask, |x: T| x, name)?;
        return fold_tree(tree, axes, args.keepdims, f, finish);
    };
    let mask = args.mask.map(|m| mask_like::<T>(m, a, name)).transpose()?;
    let mask_rows = mask.as_ref().map(|m| mask_rows(m, a, name)).transpose()?;
    let nfixed = rows.shape().len();
    let var_reduced = axes.contains(&nfixed);
    let reduced: Vec<bool> = (0..nfixed).map(|k| axes.contains(&k)).collect();
    let with_start = |r: Option<T>| match (start, r) {
        (Some(s), Some(r)) => Some(f(s, r)),
        (s, r) => r.or(s),
    };
    // One row, folded (`None` for no element kept).
    let fold = |r: usize| -> Result<Option<T>, Error> {
        let xs = rows.row_of::<T>(r, name)?;
        let m = match &mask_rows {
            Some(mr) => Some(mr.row_of::<bool>(r, name)?),
            None => None,
        };
        Ok(fold_row(&xs, m.as_deref(), red))
    };
    if var_reduced && axes.len() == 1 {
        // Each row is one result element: written in place, rows split
        // across threads.
        let mut dims: Vec<usize> = rows.shape().to_vec();
        if args.keepdims {
            dims.push(1);
        }
        // Every element is written below (or the call fails and the
        // array is dropped): no need to zero it first, except for `bool`,
        // whose slice must hold 0 or 1 from the start.
        let out_ty = Type::with_dims(dims.iter().map(|n| Dim::Fixed(*n)), T::SCALAR.into())?;
        let mut out = if T::SCALAR == dynd_types::Scalar::Bool {
            Array::zeros(&out_ty)?
        } else {
            Array::for_overwrite(&out_ty)?
        };
        let out_slice = crate::reduce::fresh_elements::<T>(&mut out);
        if mask_rows.is_none() {
            if let Some(done) = fold_each_row(
                &rows,
                out_slice,
                red,
                start,
                name,
                None::<fn(T, usize) -> T>,
            ) {
                return done.map(|()| out);
            }
        }
        let failed = std::sync::Mutex::new(None);
        let work = |(i, o): (usize, &mut T)| match fold(i).map(with_start) {
            Ok(Some(v)) => *o = v,
            Ok(None) => note_failure(&failed, i, no_identity(name)),
            Err(e) => note_failure(&failed, i, e),
        };
        if out_slice.len() >= PARALLEL_ROWS && crate::par::threads() > 1 {
            let chunk = out_slice.len().div_ceil(crate::par::threads() * 8);
            let part = |start: usize, part: &mut [T]| (start..).zip(part.iter_mut()).for_each(work);
            crate::par::for_chunks_mut(out_slice, chunk, &part);
        } else {
            out_slice.iter_mut().enumerate().for_each(work);
        }
        return match failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
            Some((_, e)) => Err(e),
            None => Ok(out),
        };
    }
    // Each row belongs to one group: the kept fixed dimensions' index.
    let kept_shape: Vec<usize> = (0..nfixed)
        .filter(|k| !reduced[*k])
        .map(|k| rows.shape()[k])
        .collect();
    let ngroups: usize = kept_shape.iter().product();
    // One group (the common case: every fixed axis reduced) needs no
    // index per row.
    let groups = if ngroups == 1 {
        Vec::new()
    } else {
        group_of_rows(rows.shape(), &reduced)
    };
    let group = |r: usize| if ngroups == 1 { 0 } else { groups[r] };
    let mut out_fixed = result_fixed_dims(rows.shape(), &reduced, args.keepdims);
    if var_reduced {
        // Fold each row, then the rows of each group, in row order.
        let per_row: Vec<Option<T>> = if rows.count() >= PARALLEL_ROWS {
            crate::par::try_map(rows.count(), &fold)?
        } else {
            (0..rows.count()).map(fold).collect::<Result<_, _>>()?
        };
        let mut acc: Vec<Option<T>> = vec![None; ngroups];
        for (r, v) in per_row.into_iter().enumerate() {
            if let Some(v) = v {
                let g = group(r);
                acc[g] = Some(acc[g].map_or(v, |p| f(p, v)));
            }
        }
        let values = acc
            .into_iter()
            .map(|v| with_start(v).ok_or_else(|| no_identity(name)))
            .collect::<Result<Vec<T>, Error>>()?;
        if args.keepdims {
            out_fixed.push(1);
        }
        return Array::from_shape_vec(&out_fixed, values);
    }
    // Across the rows: each group's rows folded position by position.
    if mask_rows.is_none() {
        let slices = rows.slices::<T>();
        // Rows `range` folded into one line per group.
        let fold_rows = |range: std::ops::Range<usize>| -> Result<Vec<Vec<T>>, Error> {
            if let (Some(walk), Some(neutral)) = (slices.as_ref(), red.neutral) {
                let across = Across {
                    walk,
                    rows: &rows,
                    groups: &groups,
                    ngroups,
                    neutral,
                    name,
                };
                if let Some(l) = walk.lanes::<u64>() {
                    return across.fold_best(l, range, f);
                }
                if let Some(l) = walk.lanes::<u32>() {
                    return across.fold_best(l, range, f);
                }
            }
            let mut acc: Vec<Vec<T>> = vec![Vec::new(); ngroups];
            for r in range {
                let xs = match slices.as_ref().and_then(|s| s.get(r)) {
                    Some(xs) => Cow::Borrowed(xs),
                    None => rows.row_of::<T>(r, name)?,
                };
                fold_into_line(&mut acc[group(r)], &xs, f);
            }
            Ok(acc)
        };
        let acc = if red.reorderable && rows.count() >= PARALLEL_ROWS && ngroups <= ACROSS_GROUPS {
            // Fixed runs of rows fold on their own (in parallel when
            // there are threads), then merge in run order: the grouping
            // depends on the row count alone, so the bits do not depend
            // on the threads.
            let runs: Vec<std::ops::Range<usize>> = (0..rows.count())
                .step_by(ACROSS_RUN)
                .map(|r| r..(r + ACROSS_RUN).min(rows.count()))
                .collect();
            let parts: Vec<Vec<Vec<T>>> = if crate::par::threads() > 1 {
                crate::par::try_map(runs.len(), &|i| fold_rows(runs[i].clone()))?
            } else {
                runs.into_iter().map(fold_rows).collect::<Result<_, _>>()?
            };
            let mut parts = parts.into_iter();
            let mut acc = parts.next().unwrap_or_else(|| vec![Vec::new(); ngroups]);
            for part in parts {
                for (line, p) in acc.iter_mut().zip(part) {
                    fold_into_line(line, &p, f);
                }
            }
            acc
        } else {
            fold_rows(0..rows.count())?
        };
        return var_array(&out_fixed, acc, |v| Ok(start.map_or(v, |s| f(s, v))));
    }
    let mut acc: Vec<Vec<Option<T>>> = vec![Vec::new(); ngroups];
    for r in 0..rows.count() {
        let g = &group(r);
        let xs = rows.row_of::<T>(r, name)?;
        let m = match &mask_rows {
            Some(mr) => Some(mr.row_of::<bool>(r, name)?),
            None => None,
        };
        let line = &mut acc[*g];
        if line.len() < xs.len() {
            line.resize(xs.len(), None);
        }
        for (j, x) in xs.iter().enumerate() {
            if m.as_ref()
                .is_none_or(|m| m.get(j).copied().unwrap_or(false))
            {
                line[j] = Some(line[j].map_or(*x, |p| f(p, *x)));
            }
        }
    }
    var_array(&out_fixed, acc, |v| {
        with_start(v).ok_or_else(|| no_identity(name))
    })
}

/// Folds each row of `rows` into `out` (one element per row) on the
/// unit fast paths (masked blocks for a reorderable reduction with a
/// neutral element, else by length), units of rows split across threads;
/// `post` then runs over each unit's results while they are in cache,
/// given each row's length. `None` when the rows are not contiguous,
/// aligned `T`s (the caller folds them row by row).
fn fold_each_row<T, F, P>(
    rows: &Rows<'_>,
    out: &mut [T],
    red: &Reduction<T, F>,
    start: Option<T>,
    name: &str,
    post: Option<P>,
) -> Option<Result<(), Error>>
where
    T: Element,
    F: Fn(T, T) -> T + Copy + Send + Sync,
    P: Fn(T, usize) -> T + Copy + Sync,
{
    let walk = rows.slices::<T>()?;
    Some(each_unit(
        out,
        unit_folder(rows, &walk, red, start, name, post),
    ))
}

/// The work of one unit of [`fold_each_row`]: `work(first, results)` folds
/// rows `first..` into `results`, for [`each_unit`] to run (or, wrapped
/// by [`na_unit`], into `?T` slots).
pub(super) fn unit_folder<'r, 'a, T, F, P>(
    rows: &'r Rows<'a>,
    walk: &'r RowSlices<'a, T>,
    red: &'r Reduction<T, F>,
    start: Option<T>,
    name: &'r str,
    post: Option<P>,
) -> impl UnitWork<T> + use<'r, 'a, T, F, P>
where
    T: Element,
    F: Fn(T, T) -> T + Copy + Send + Sync,
    P: Fn(T, usize) -> T + Copy + Sync,
{
    // At most one of the two: the wide fold with `post`, or without.
    let posted = post.and_then(|p| wide_folder(walk, red, start, name, p));
    let plain = post
        .is_none()
        .then(|| wide_folder(walk, red, start, name, same))
        .flatten();
    move |first, chunk| match (&posted, &plain) {
        (Some(work), _) => work(first, chunk),
        (_, Some(work)) => work(first, chunk),
        _ => fold_unit(walk, first, chunk, red, start, name).inspect(|()| {
            if let Some(p) = post {
                for (i, v) in chunk.iter_mut().enumerate() {
                    // Every row was read by the fold just now.
                    *v = p(*v, row_len(rows, walk, first + i, name));
                }
            }
        }),
    }
}

/// The work of one unit of rows folded in wide blocks
/// ([`fold_unit_wide`]: a reorderable reduction with a neutral element,
/// over 4- or 8-byte elements), each row's result `post(fold, row
/// length)` of any type, written in the fold's own pass; `None` where the
/// rows do not fold so.
pub(super) fn wide_folder<'r, 'a, T, F, P, O>(
    walk: &'r RowSlices<'a, T>,
    red: &'r Reduction<T, F>,
    start: Option<T>,
    name: &'r str,
    post: P,
) -> Option<impl UnitWork<O> + use<'r, 'a, T, F, P, O>>
where
    T: Element,
    F: Fn(T, T) -> T + Copy + Send + Sync,
    P: Fn(T, usize) -> O + Copy + Sync,
{
    let neutral = red.neutral.filter(|_| red.reorderable)?;
    // Branch-free blocks pay off where a lane is one register lane: the
    // 4- and 8-byte types.
    let wide = match walk.lanes::<u64>() {
        Some(l) => Wide::U64(l),
        None => Wide::U32(walk.lanes::<u32>()?),
    };
    Some(move |first, chunk: &mut [O]| match wide {
        Wide::U64(l) => {
            fold_unit_wide_best(walk, l, first, chunk, red, (start, neutral), post, name)
        }
        Wide::U32(l) => {
            fold_unit_wide_best(walk, l, first, chunk, red, (start, neutral), post, name)
        }
    })
}

/// Row `r`'s length, from its span in `walk` or else its pair (0 for a
/// pair outside its block: never, for a validated array).
#[inline]
fn row_len<T: Element>(rows: &Rows<'_>, walk: &RowSlices<'_, T>, r: usize, name: &str) -> usize {
    match walk.span(r) {
        Some((_, len)) => len,
        None => rows.pair_of(r, name).map_or(0, |p| p.1),
    }
}

/// `work` (of `T` results) as the work of a unit of `?T` slots: `work`
/// fills the unit's values in a buffer in cache, then each goes to its
/// slot with its validity — NA where the row is empty (an empty group's
/// result, as Awkward's `mask_identity` has it), in the same pass over
/// the output.
pub(super) fn na_unit<'r, 'a, T: Float, W: UnitWork<T>>(
    rows: &'r Rows<'a>,
    walk: &'r RowSlices<'a, T>,
    name: &'r str,
    work: W,
) -> impl UnitWork<NaSlot<T>> + use<'r, 'a, T, W> {
    move |first, chunk: &mut [NaSlot<T>]| {
        let mut buffer = [T::ZERO; UNIT_ROWS];
        let values = &mut buffer[..chunk.len()];
        work(first, values)?;
        match walk.pairs(first, chunk.len()) {
            // The unit's pairs side by side (every array a function made):
            // the lengths in one pass, with the writes.
            Some(pairs) => {
                for ((slot, &v), pair) in chunk
                    .iter_mut()
                    .zip(values.iter())
                    .zip(pairs.chunks_exact(PAIR_SIZE))
                {
                    *slot = NaSlot::new((read_pair(pair).1 > 0).then_some(v));
                }
            }
            None => {
                for (i, (slot, &v)) in chunk.iter_mut().zip(values.iter()).enumerate() {
                    *slot = NaSlot::new((row_len(rows, walk, first + i, name) > 0).then_some(v));
                }
            }
        }
        Ok(())
    }
}

/// Runs `work(first row, results)` over `out` in units of [`UNIT_ROWS`]
/// rows, split across threads when there are many; the error of the
/// first row that fails, as a serial run reports it.
pub(super) fn each_unit<T: Send>(out: &mut [T], work: impl UnitWork<T>) -> Result<(), Error> {
    let failed = std::sync::Mutex::new(None);
    let unit = |(u, chunk): (usize, &mut [T])| {
        if let Err(e) = work(u * UNIT_ROWS, chunk) {
            let (i, e) = *e;
            note_failure(&failed, i, e);
        }
    };
    if out.len() >= PARALLEL_ROWS && crate::par::threads() > 1 {
        let part = |start: usize, chunk: &mut [T]| unit((start / UNIT_ROWS, chunk));
        crate::par::for_chunks_mut(out, UNIT_ROWS, &part);
    } else {
        out.chunks_mut(UNIT_ROWS).enumerate().for_each(unit);
    }
    match failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some((_, e)) => Err(e),
        None => Ok(()),
    }
}

/// [`super::count`] of an array whose innermost dimension is `var` (see
/// the module docs), over `axes` (normalised, sorted): from the rows'
/// lengths alone.
pub(super) fn count_var(
    a: &Array,
    axes: &[usize],
    keepdims: bool,
    name: &str,
) -> Result<Array, Error> {
    let Some(rows) = Rows::of(a) else {
        let count = |n: Option<i64>| Ok(n.unwrap_or(0));
        return fold_tree(nested::ones_of(a)?, axes, keepdims, |x, y| x + y, count);
    };
    let nfixed = rows.shape().len();
    let reduced: Vec<bool> = (0..nfixed).map(|k| axes.contains(&k)).collect();
    let mut out_fixed = result_fixed_dims(rows.shape(), &reduced, keepdims);
    let lengths = rows
        .lengths()
        .ok_or_else(|| outside(name, "a var row's (start, length) pair"))?;
    if axes == [nfixed] {
        // Each row its own group (what `mean` and `var` per row count):
        // the lengths as they are, with no group index.
        if keepdims {
            out_fixed.push(1);
        }
        let lengths: Vec<i64> = lengths.into_iter().map(|n| n as i64).collect();
        return Array::from_shape_vec(&out_fixed, lengths);
    }
    let groups = group_of_rows(rows.shape(), &reduced);
    let ngroups: usize = (0..nfixed)
        .filter(|k| !reduced[*k])
        .map(|k| rows.shape()[k])
        .product();
    if axes.contains(&nfixed) {
        let mut acc = vec![0i64; ngroups];
        for (g, len) in groups.iter().zip(&lengths) {
            acc[*g] += *len as i64;
        }
        if keepdims {
            out_fixed.push(1);
        }
        return Array::from_shape_vec(&out_fixed, acc);
    }
    // Across the rows: at position `j`, the rows longer than `j` (a
    // histogram of the lengths, summed from the longest down).
    let mut lines: Vec<Vec<i64>> = vec![Vec::new(); ngroups];
    for (g, &len) in groups.iter().zip(&lengths) {
        let line = &mut lines[*g];
        if line.len() < len + 1 {
            line.resize(len + 1, 0);
        }
        line[len] += 1;
    }
    for line in &mut lines {
        let mut longer = 0;
        for c in line.iter_mut().rev() {
            longer += *c;
            *c = longer;
        }
        // Position `j` counts the rows of length `j + 1` or more.
        if !line.is_empty() {
            line.remove(0);
        }
    }
    var_array(&out_fixed, lines, Ok)
}

/// The result's fixed dimensions: `shape` without the `reduced` ones, or
/// with them as 1 when `keepdims`.
pub(super) fn result_fixed_dims(shape: &[usize], reduced: &[bool], keepdims: bool) -> Vec<usize> {
    let mut out = Vec::with_capacity(shape.len() + 1);
    for (&r, &n) in reduced.iter().zip(shape) {
        match (r, keepdims) {
            (false, _) => out.push(n),
            (true, true) => out.push(1),
            (true, false) => {}
        }
    }
    out
}

/// For each row (in C order of the fixed `shape`), the C-order index of its
/// group: its position in the dimensions not `reduced`.
pub(super) fn group_of_rows(shape: &[usize], reduced: &[bool]) -> Vec<usize> {
    // The group is an offset with C-order strides over the kept
    // dimensions and 0 along the reduced ones.
    let mut step = 1isize;
    let mut dims = vec![(0usize, 0isize); shape.len()];
    for k in (0..shape.len()).rev() {
        dims[k] = (shape[k], if reduced[k] { 0 } else { step });
        if !reduced[k] {
            step *= shape[k] as isize;
        }
    }
    let mut out = Vec::with_capacity(shape.iter().product());
    dynd_array::offsets::for_each_offset(&dims, |g| out.push(g as usize));
    out
}

/// A new `fixed... * var * T` array of the given fixed shape, from one row
/// of values per element, each value finished by `finish`.
pub(super) fn var_array<T: Element, V>(
    shape: &[usize],
    lines: Vec<Vec<V>>,
    finish: impl Fn(V) -> Result<T, Error>,
) -> Result<Array, Error> {
    let size = std::mem::size_of::<T>();
    let mut values: Vec<T> = Vec::with_capacity(lines.iter().map(Vec::len).sum());
    let mut pairs = vec![0u8; lines.len() * PAIR_SIZE];
    for (line, pair) in lines.into_iter().zip(pairs.chunks_exact_mut(PAIR_SIZE)) {
        write_pair(pair, (values.len() * size) as u64, line.len() as u64);
        for v in line {
            values.push(finish(v)?);
        }
    }
    packed_rows(shape, values, &pairs)
}

/// The `shape * var * T` array over packed `values`, row `i`'s (byte
/// start, length) pair at `pairs[i * PAIR_SIZE..]` (checked, as every
/// array's parts are).
fn packed_rows<T: Element>(shape: &[usize], values: Vec<T>, pairs: &[u8]) -> Result<Array, Error> {
    let element = Arrmeta::Var {
        values: MemoryBlock::from_vec(values),
        offset: 0,
        stride: std::mem::size_of::<T>() as isize,
        packed: true,
        element: Box::new(Arrmeta::Scalar),
    };
    let meta = crate::array::c_order_meta(shape, PAIR_SIZE, element)?;
    let ty = Type::with_dims(
        shape.iter().map(|n| Dim::Fixed(*n)).chain([Dim::Var]),
        T::SCALAR.into(),
    )?;
    Array::try_from_parts(ty, Arc::new(meta), MemoryBlock::from_bytes(pairs), 0)
}

/// `sum`, the reduction of `a` (`N * var * T`, or one var dimension
/// alone) over its `var` axis alone, divided element by element by the
/// length of its row: a per-row mean without a count array. `None` when
/// `a` or `sum` is not of that form.
///
/// # Errors
///
/// A value error if a row's pair lies outside its block (never, for a
/// validated array).
pub(super) fn divide_by_row_lengths<T: Element + std::ops::Div<Output = T>>(
    sum: &Array,
    a: &Array,
    of_len: impl Fn(usize) -> T,
    name: &str,
) -> Result<Option<Array>, Error> {
    let Some(rows) = Rows::of(a) else {
        return Ok(None);
    };
    let Some(shape) = sum.ty().fixed_shape() else {
        return Ok(None);
    };
    let Ok(xs) = sum.as_slice::<T>() else {
        return Ok(None);
    };
    if xs.len() != rows.count() {
        return Ok(None);
    }
    // The pairs read as `RowSlices` reads them where it can (a load and a
    // bounds check per row), as `Rows::pair` does otherwise.
    let slices = rows.slices::<T>();
    let mut means = Vec::with_capacity(xs.len());
    for (r, &x) in xs.iter().enumerate() {
        let len = match slices.as_ref().and_then(|s| s.span(r)) {
            Some((_, len)) => len,
            None => rows.pair_of(r, name)?.1,
        };
        means.push(x / of_len(len));
    }
    Array::from_shape_vec(&shape, means).map(Some)
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests;
