//! Variance (and so standard deviation) over any set of axes, in two
//! passes: the mean of each group of elements first, then the sum of the
//! squared deviations from it, divided by `n - ddof`.
//!
//! Two passes keep the result accurate where the one-pass formula
//! `Σx² - (Σx)²/n` cancels catastrophically (data far from zero: a
//! variance of 1 around a mean of 1e9). Each pass folds a contiguous run
//! with eight accumulators per block and the blocks pairwise, as the sums
//! do, and long runs split into fixed chunks (run in parallel), so the
//! result is the same bit for bit on any number of threads. A ragged row
//! is read twice while it is still in cache; a reduction that keeps the
//! innermost axis works on whole lines of the result at a time.

use std::borrow::Cow;

use dynd_types::{Dim, Type};

use super::float::{Finish, Float};
use super::ragged::{
    each_unit, fold_tree, group_of_rows, mask_like, result_fixed_dims, tree_of, var_array, Rows,
    RowsIn, ACROSS_GROUPS, ACROSS_RUN, PARALLEL_ROWS,
};
use super::{
    check_dtype, element, fold_pairwise_exact, line, normalize_axes, BLOCK, CHUNK, PARALLEL_RUN,
};
use crate::array::Array;
use crate::error::Error;
use crate::loops::Elems;

/// `Σ f(x)` over `xs` with `N` accumulators (a power of two), element `i`
/// going to accumulator `i % N`, the accumulators then combined pairwise:
/// `((a0 + a1) + (a2 + a3)) + ...`. Eight for long runs; four for rows of
/// a few elements, which leave fewer to combine.
#[inline(always)]
fn sum_lanes<const N: usize, T: Float>(xs: &[T], f: impl Fn(T) -> T) -> T {
    let mut acc = [T::ZERO; N];
    let mut chunks = xs.chunks_exact(N);
    for c in &mut chunks {
        for k in 0..N {
            acc[k] = acc[k] + f(c[k]);
        }
    }
    for (k, &x) in chunks.remainder().iter().enumerate() {
        acc[k] = acc[k] + f(x);
    }
    let mut width = N;
    while width > 1 {
        width /= 2;
        for k in 0..width {
            acc[k] = acc[2 * k] + acc[2 * k + 1];
        }
    }
    acc[0]
}

/// `Σ f(x)` over blocks of [`BLOCK`] combined pairwise (the tree depends
/// on the length alone).
fn sum_pairwise<T: Float>(xs: &[T], f: &impl Fn(T) -> T) -> T {
    if xs.len() <= BLOCK {
        return sum_lanes::<8, _>(xs, f);
    }
    let half = (xs.len() / 2).div_ceil(BLOCK) * BLOCK;
    let (a, b) = xs.split_at(half.min(xs.len()));
    sum_pairwise(a, f) + sum_pairwise(b, f)
}

/// `Σ f(x)` over a run, in fixed chunks (in parallel when the run is
/// long) combined pairwise in order: the same bits on any threads.
fn sum_run<T: Float>(xs: &[T], f: impl Fn(T) -> T + Sync) -> T {
    if xs.len() <= CHUNK {
        return sum_pairwise(xs, &f);
    }
    let parts: Vec<T> = if xs.len() >= PARALLEL_RUN && crate::par::threads() > 1 {
        let chunk = |i: usize| sum_pairwise(&xs[i * CHUNK..((i + 1) * CHUNK).min(xs.len())], &f);
        crate::par::map(xs.len().div_ceil(CHUNK), &chunk)
    } else {
        xs.chunks(CHUNK).map(|c| sum_pairwise(c, &f)).collect()
    };
    fold_pairwise_exact(&parts, &|a: T, b: T| a + b).unwrap_or(T::ZERO)
}

/// What a variance folds, and how.
#[derive(Clone, Copy, Debug, Default)]
pub struct VarArgs<'a> {
    /// The axes to reduce (negative ones count from the end); `None` for
    /// all of them.
    pub axes: Option<&'a [i64]>,
    /// Whether the reduced axes stay, with size 1.
    pub keepdims: bool,
    /// The divisor is `n - ddof` (0: the population variance; 1: the
    /// unbiased sample variance).
    pub ddof: usize,
    /// A `bool` mask broadcast to the array (NumPy's `where=`): only
    /// elements where it is true take part.
    pub mask: Option<&'a Array>,
}

/// The variance of `a` over `args.axes` (all by default; negative ones count
/// from the end): per group of elements, `Σ(x - mean)² / (n - ddof)`, in
/// a new array shaped as a reduction's (`keepdims` keeps the reduced axes
/// with size 1). A group of `ddof` elements or fewer gives NaN, as in
/// NumPy. `a` has fixed dimensions, or fixed ones around one innermost
/// `var`: reducing the `var` axis takes each row's variance, and reducing
/// fixed axes across rows lines the rows up by position (see
/// [`super::reduce`]).
///
/// ```
/// use dynd_kernels::reduce::variance;
/// use dynd::nd::array;
///
/// let a = array![[1.0, 2.0, 3.0, 4.0], [2.0, 2.0, 2.0, 2.0]];
/// use dynd_kernels::reduce::VarArgs;
///
/// let rows = VarArgs { axes: Some(&[1]), ..VarArgs::default() };
/// assert_eq!(variance::<f64>(&a, &rows, "var")?.to_string(), "[1.25, 0]");
/// let sample = VarArgs { ddof: 1, ..rows };
/// assert_eq!(variance::<f64>(&a, &sample, "var")?.to_string(), "[1.6666666666666667, 0]");
/// let ragged = array![[1.0, 3.0], [], [5.0]];
/// assert_eq!(variance::<f64>(&ragged, &rows, "var")?.to_string(), "[1, NaN, 0]");
/// let keep = array![[true, false], [], [false]];
/// let masked = VarArgs { mask: Some(&keep), ..rows };
/// assert_eq!(variance::<f64>(&ragged, &masked, "var")?.to_string(), "[0, NaN, NaN]");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::ArgumentType`] for a data type other than `T`,
/// [`Error::AxisOutOfBounds`] or [`Error::DuplicateAxis`] for an axis out
/// of range or repeated; [`Error::Unsupported`] for `var` layouts other than
/// fixed dimensions around one innermost `var`.
pub fn variance<T: Float>(a: &Array, args: &VarArgs<'_>, name: &str) -> Result<Array, Error> {
    spread::<T>(a, args, false, name)
}

/// The standard deviation of `a` over `axes`: the square root of
/// [`variance`], with the same arguments and errors.
///
/// ```
/// use dynd_kernels::reduce::std_dev;
/// use dynd::nd::array;
///
/// let a = array![[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]];
/// assert_eq!(std_dev::<f64>(&a, &Default::default(), "std")?.to_string(), "2");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// As [`variance`].
pub fn std_dev<T: Float>(a: &Array, args: &VarArgs<'_>, name: &str) -> Result<Array, Error> {
    spread::<T>(a, args, true, name)
}

/// The variance of each row of `a` (its standard deviation with `root`),
/// dividing by `n - ddof`: `a` has fixed dimensions around an innermost
/// `var` of `T`, reduced over that axis alone without a mask. The result
/// is `?T`, NA for an empty row (the `var` and `std` builtins' result),
/// each row read twice while in cache and each result written with its
/// validity in the same pass; the same bits as [`variance`]'s per-row
/// values. `None` when the rows are not contiguous, aligned `T`s.
///
/// ```
/// use dynd::func::raw::spread_of_rows;
/// use dynd::nd::array;
///
/// let a = array![[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], [], [1.0]];
/// let s = spread_of_rows::<f64>(&a, false, 0, true, "std")?.expect("contiguous rows");
/// assert_eq!(s.to_string(), "[2, null, 0]");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::ArgumentType`] for a data type other than `T`.
pub fn spread_of_rows<T: Float>(
    a: &Array,
    keepdims: bool,
    ddof: usize,
    root: bool,
    name: &str,
) -> Result<Option<Array>, Error> {
    check_dtype::<T>(a, name, "variance")?;
    let fin = Finish { ddof, root };
    super::ragged::variance_of_rows(a, keepdims, fin, |xs: &[T]| long_var(xs, fin), name)
}

/// [`variance`], or its root.
fn spread<T: Float>(a: &Array, args: &VarArgs<'_>, root: bool, name: &str) -> Result<Array, Error> {
    check_dtype::<T>(a, name, "variance")?;
    let fin = Finish {
        ddof: args.ddof,
        root,
    };
    let keepdims = args.keepdims;
    let axes = normalize_axes(args.axes, a.ndim(), name)?;
    if a.ty().has_var_dim() {
        return variance_var::<T>(a, &axes, keepdims, fin, args.mask, name);
    }
    let ndim = a.ndim();
    let shape: Vec<usize> = a.ty().fixed_shape().unwrap_or_default();
    let dims: Vec<(usize, isize)> = shape.iter().copied().zip(a.strides()).collect();
    let reduced: Vec<bool> = (0..ndim).map(|k| axes.contains(&k)).collect();
    let kept: Vec<(usize, isize)> = (0..ndim)
        .filter(|k| !reduced[*k])
        .map(|k| dims[k])
        .collect();
    let red_dims: Vec<(usize, isize)> =
        (0..ndim).filter(|k| reduced[*k]).map(|k| dims[k]).collect();
    let out_dims = (0..ndim).filter_map(|k| match (reduced[k], keepdims) {
        (false, _) => Some(Dim::Fixed(shape[k])),
        (true, true) => Some(Dim::Fixed(1)),
        (true, false) => None,
    });
    let mut out = Array::for_overwrite(&Type::with_dims(out_dims, T::SCALAR.into())?)?;
    let out_slice = crate::reduce::fresh_elements::<T>(&mut out);
    let src = Elems::of(a);
    let n: usize = red_dims.iter().map(|d| d.0).product();
    if let Some(mask) = args.mask {
        let (mp, mstrides) = super::mask_offsets(mask, a, name)?;
        let mdims: Vec<(usize, isize)> = shape.iter().copied().zip(mstrides).collect();
        let mkept: Vec<(usize, isize)> = (0..ndim)
            .filter(|k| !reduced[*k])
            .map(|k| mdims[k])
            .collect();
        let mred: Vec<(usize, isize)> = (0..ndim)
            .filter(|k| reduced[*k])
            .map(|k| mdims[k])
            .collect();
        variance_masked(
            src,
            (&kept, &red_dims),
            mp,
            (&mkept, &mred),
            out_slice,
            fin,
            name,
        )?;
    } else if reduced.last() == Some(&false) && !red_dims.is_empty() {
        variance_lines(src, &kept, &red_dims, out_slice, (n, fin), name)?;
    } else {
        variance_runs(src, &kept, &red_dims, out_slice, (n, fin), name)?;
    }
    Ok(out)
}

/// Each result element's elements are runs along the innermost reduced
/// axis (`a`'s innermost): two passes over them, a contiguous run read as
/// it is, a strided one gathered first.
fn variance_runs<T: Float>(
    src: Elems<'_>,
    kept: &[(usize, isize)],
    red_dims: &[(usize, isize)],
    out: &mut [T],
    (n, fin): (usize, Finish),
    name: &str,
) -> Result<(), Error> {
    let (outer, run) = match red_dims.split_last() {
        Some((last, rest)) => (rest, *last),
        None => (&[][..], (1, 0)),
    };
    let group = |off: isize| -> Result<T, Error> {
        let mut scratch: Vec<T> = Vec::new();
        // Run `o` of this group as a slice: borrowed when contiguous and
        // aligned, gathered otherwise.
        let mut with_run = |o: isize, f: &mut dyn FnMut(&[T])| -> Result<(), Error> {
            line::<T>(&src, off + o, run, name)?.with_slice(&mut scratch, f);
            Ok(())
        };
        let mut total = T::ZERO;
        dynd_array::offsets::try_for_each_offset(outer, |o| {
            with_run(o, &mut |xs| total = total + sum_run(xs, |x| x))
        })?;
        let mean = total / T::of_count(n);
        let mut squares = T::ZERO;
        dynd_array::offsets::try_for_each_offset(outer, |o| {
            with_run(o, &mut |xs| {
                squares = squares
                    + sum_run(xs, |x| {
                        let d = x - mean;
                        d * d
                    })
            })
        })?;
        Ok(fin.of(squares, n))
    };
    let mut offsets = Vec::with_capacity(out.len());
    dynd_array::offsets::for_each_offset(kept, |o| offsets.push(o));
    let fill = |(o, &off): (&mut T, &isize)| -> Result<(), Error> {
        *o = group(off)?;
        Ok(())
    };
    if out.len() > 1 && out.len() * n >= PARALLEL_RUN && crate::par::threads() > 1 {
        let chunk = out.len().div_ceil(crate::par::threads() * 8);
        crate::par::try_chunks_mut(out, chunk, &|start, part| {
            let offs = &offsets[start..start + part.len()];
            part.iter_mut().zip(offs).try_for_each(fill)
        })
    } else {
        out.iter_mut().zip(offsets.iter()).try_for_each(fill)
    }
}

/// `a`'s innermost axis is kept: each line of the result (along it) sums
/// the reduced lines of `a` element by element, twice — the means, then
/// the squared deviations — split by columns across threads when large.
fn variance_lines<T: Float>(
    src: Elems<'_>,
    kept: &[(usize, isize)],
    red_dims: &[(usize, isize)],
    out: &mut [T],
    (n, fin): (usize, Finish),
    name: &str,
) -> Result<(), Error> {
    let (outer_kept, step) = kept
        .split_last()
        .map_or((&[][..], (1, 0)), |(l, r)| (r, *l));
    let width = step.0.max(1);
    let mut line_offsets = Vec::new();
    dynd_array::offsets::for_each_offset(outer_kept, |o| line_offsets.push(o));
    let mut red_offsets = Vec::new();
    dynd_array::offsets::for_each_offset(red_dims, |o| red_offsets.push(o));
    let count = T::of_count(n);
    // Columns `col0..col0 + part.len()` of the result line at `off`.
    let columns = |part: &mut [T], off: isize, col0: usize| -> Result<(), Error> {
        let width = part.len();
        let mut scratch: Vec<T> = Vec::new();
        // Reduced line `ro`'s columns as a slice: borrowed when
        // contiguous and aligned, gathered otherwise.
        let mut with_line = |ro: isize, f: &mut dyn FnMut(&[T])| -> Result<(), Error> {
            let at = off + ro + col0 as isize * step.1;
            line::<T>(&src, at, (width, step.1), name)?.with_slice(&mut scratch, f);
            Ok(())
        };
        let mut means = vec![T::ZERO; part.len()];
        for &ro in &red_offsets {
            with_line(ro, &mut |xs| {
                for (m, &x) in means.iter_mut().zip(xs) {
                    *m = *m + x;
                }
            })?;
        }
        for m in &mut means {
            *m = *m / count;
        }
        part.fill(T::ZERO);
        for &ro in &red_offsets {
            with_line(ro, &mut |xs| {
                for ((s, &m), &x) in part.iter_mut().zip(&means).zip(xs) {
                    let d = x - m;
                    *s = *s + d * d;
                }
            })?;
        }
        for s in part.iter_mut() {
            *s = fin.of(*s, n);
        }
        Ok(())
    };
    let parallel = out.len() * n >= PARALLEL_RUN && crate::par::threads() > 1;
    for (out_line, &off) in out.chunks_mut(width).zip(&line_offsets) {
        // Columns in strips that stay in cache across the reduced lines.
        let cols = if parallel {
            width.div_ceil(crate::par::threads() * 2).clamp(64, 4096)
        } else {
            4096
        };
        if parallel && width > cols {
            crate::par::try_chunks_mut(out_line, cols, &|start, part| columns(part, off, start))?;
        } else {
            for (c, part) in out_line.chunks_mut(cols).enumerate() {
                columns(part, off, c * cols)?;
            }
        }
    }
    Ok(())
}

/// Dimensions as (size, byte stride) pairs.
type Dims<'a> = &'a [(usize, isize)];

/// The masked variance of fixed dimensions: element by element, each
/// group's kept elements read twice.
fn variance_masked<T: Float>(
    src: Elems<'_>,
    (kept, red_dims): (Dims<'_>, Dims<'_>),
    mask: Elems<'_>,
    (mkept, mred): (Dims<'_>, Dims<'_>),
    out: &mut [T],
    fin: Finish,
    name: &str,
) -> Result<(), Error> {
    let offsets = |dims: &[(usize, isize)]| {
        let mut v = Vec::new();
        dynd_array::offsets::for_each_offset(dims, |o| v.push(o));
        v
    };
    let (ko, ro, mko, mro) = (
        offsets(kept),
        offsets(red_dims),
        offsets(mkept),
        offsets(mred),
    );
    let mut xs: Vec<T> = Vec::new();
    for ((o, &k), &mk) in out.iter_mut().zip(&ko).zip(&mko) {
        // The group's kept elements (a `bool` mask's bytes are 0 or 1).
        xs.clear();
        for (&r, &mr) in ro.iter().zip(&mro) {
            if element::<u8>(&mask, mk + mr, name)? != 0 {
                xs.push(element::<T>(&src, k + r, name)?);
            }
        }
        let mean = xs.iter().fold(T::ZERO, |s, &x| s + x) / T::of_count(xs.len());
        let squares = xs.iter().fold(T::ZERO, |s, &x| {
            let d = x - mean;
            s + d * d
        });
        *o = fin.of(squares, xs.len());
    }
    Ok(())
}

/// The variance (or its root) of one unmasked row longer than [`BLOCK`]:
/// two pairwise passes, as a fixed run's (shorter rows fold in masked
/// blocks: [`variance_each_row`](super::ragged::variance_each_row)).
fn long_var<T: Float>(xs: &[T], fin: Finish) -> T {
    let n = xs.len();
    let mean = sum_pairwise(xs, &|x| x) / T::of_count(n);
    let squares = sum_pairwise(xs, &|x| {
        let d = x - mean;
        d * d
    });
    fin.of(squares, n)
}

/// `Σ f(x)` over the elements of a row its mask keeps, and their number.
fn row_sum<T: Float>(xs: &[T], mask: Option<&[bool]>, f: impl Fn(T) -> T) -> (T, usize) {
    match mask {
        None => (sum_pairwise(xs, &f), xs.len()),
        Some(m) => xs
            .iter()
            .zip(m)
            .filter(|(_, on)| **on)
            .fold((T::ZERO, 0), |(s, n), (&x, _)| (s + f(x), n + 1)),
    }
}

/// A row's elements and its `where` mask's, if any.
type Row<'r, T> = (Cow<'r, [T]>, Option<Cow<'r, [bool]>>);

/// Each group's line of the kept elements of its rows summed position by
/// position (left-aligned), or of their squared deviations from
/// `centres` (each group's line of means) when given, with the count at
/// each position: each run of rows folded on its own (in parallel where
/// there are threads), the runs' lines then added in run order. The
/// counts of unmasked rows come from their lengths (a tally per length),
/// not from a count per element.
fn across_lines<'r, T: Float>(
    runs: &[std::ops::Range<usize>],
    ngroups: usize,
    group: &(impl Fn(usize) -> usize + Sync),
    row: &(impl Fn(usize) -> Result<Row<'r, T>, Error> + Sync),
    centres: Option<&[Vec<T>]>,
) -> Result<Vec<Vec<(T, usize)>>, Error> {
    let run = |range: std::ops::Range<usize>| -> Result<Vec<Vec<(T, usize)>>, Error> {
        let mut sums: Vec<Vec<T>> = vec![Vec::new(); ngroups];
        // Per group: rows by length (unmasked), and kept elements by
        // position (masked).
        let mut by_len: Vec<Vec<usize>> = vec![Vec::new(); ngroups];
        let mut kept: Vec<Vec<usize>> = vec![Vec::new(); ngroups];
        for r in range {
            let g = group(r);
            let (xs, m) = row(r)?;
            let line = &mut sums[g];
            if line.len() < xs.len() {
                line.resize(xs.len(), T::ZERO);
            }
            let line = &mut line[..xs.len()];
            match (m, centres) {
                (None, None) => {
                    for (p, &x) in line.iter_mut().zip(xs.iter()) {
                        *p = *p + x;
                    }
                }
                (None, Some(c)) => {
                    let c = &c[g][..xs.len()];
                    for ((p, &x), &c) in line.iter_mut().zip(xs.iter()).zip(c) {
                        let d = x - c;
                        *p = *p + d * d;
                    }
                }
                (Some(m), c) => {
                    let k = &mut kept[g];
                    if k.len() < xs.len() {
                        k.resize(xs.len(), 0);
                    }
                    for (j, (p, &x)) in line.iter_mut().zip(xs.iter()).enumerate() {
                        if m[j] {
                            let v = match c {
                                Some(c) => {
                                    let d = x - c[g][j];
                                    d * d
                                }
                                None => x,
                            };
                            *p = *p + v;
                            k[j] += 1;
                        }
                    }
                    continue;
                }
            }
            let tally = &mut by_len[g];
            if tally.len() <= xs.len() {
                tally.resize(xs.len() + 1, 0);
            }
            tally[xs.len()] += 1;
        }
        Ok(sums
            .into_iter()
            .zip(by_len)
            .zip(kept)
            .map(|((line, tally), kept)| {
                // Rows at least `j + 1` long: a running total from the
                // longest down.
                let mut longer = 0;
                let mut counts = vec![0usize; line.len()];
                for j in (0..line.len()).rev() {
                    longer += tally.get(j + 1).copied().unwrap_or(0);
                    counts[j] = longer + kept.get(j).copied().unwrap_or(0);
                }
                line.into_iter().zip(counts).collect()
            })
            .collect())
    };
    let parts: Vec<Vec<Vec<(T, usize)>>> = if runs.len() > 1 && crate::par::threads() > 1 {
        crate::par::try_map(runs.len(), &|i| run(runs[i].clone()))?
    } else {
        runs.iter().cloned().map(run).collect::<Result<_, _>>()?
    };
    let mut parts = parts.into_iter();
    let mut acc = parts.next().unwrap_or_else(|| vec![Vec::new(); ngroups]);
    for part in parts {
        for (line, p) in acc.iter_mut().zip(part) {
            if line.len() < p.len() {
                line.resize(p.len(), (T::ZERO, 0));
            }
            for (a, (s, n)) in line.iter_mut().zip(p) {
                *a = (a.0 + s, a.1 + n);
            }
        }
    }
    Ok(acc)
}

/// [`variance`] of an array of any nesting of fixed and `var` dimensions
/// (see [`super::ragged::fold_tree`]), in one pass: each group's count,
/// mean and sum of squared deviations, merged as Chan, Golub and LeVeque
/// merge them (`M2 = M2a + M2b + d² na nb / n` for the means' difference
/// `d`), which stays accurate far from zero as the two passes do.
fn variance_nested<T: Float>(
    a: &Array,
    axes: &[usize],
    keepdims: bool,
    fin: Finish,
    mask: Option<&Array>,
    name: &str,
) -> Result<Array, Error> {
    let tree = tree_of(a, mask, |x: T| (1usize, x, T::ZERO), name)?;
    let merge = |(na, ma, sa): (usize, T, T), (nb, mb, sb): (usize, T, T)| {
        let n = na + nb;
        let d = mb - ma;
        let (fa, fb, fn_) = (T::of_count(na), T::of_count(nb), T::of_count(n));
        (n, ma + d * fb / fn_, sa + sb + d * d * fa * fb / fn_)
    };
    let finish = |acc: Option<(usize, T, T)>| {
        Ok(match acc {
            Some((n, _, squares)) => fin.of(squares, n),
            None => T::NAN,
        })
    };
    fold_tree(tree, axes, keepdims, merge, finish)
}

/// [`variance`] of an array of fixed dimensions around one innermost `var`.
fn variance_var<T: Float>(
    a: &Array,
    axes: &[usize],
    keepdims: bool,
    fin: Finish,
    mask: Option<&Array>,
    name: &str,
) -> Result<Array, Error> {
    let Some(rows) = Rows::of(a) else {
        return variance_nested::<T>(a, axes, keepdims, fin, mask, name);
    };
    let nfixed = rows.shape().len();
    let var_reduced = axes.contains(&nfixed);
    let reduced: Vec<bool> = (0..nfixed).map(|k| axes.contains(&k)).collect();
    let mask = mask.map(|m| mask_like::<T>(m, a, name)).transpose()?;
    let mask_rows = mask
        .as_ref()
        .map(|m| super::ragged::mask_rows(m, a, name))
        .transpose()?;
    let slices = rows.slices::<T>();
    let row = |r: usize| -> Result<Row<'_, T>, Error> {
        let xs = match slices.as_ref().and_then(|s| s.get(r)) {
            Some(xs) => Cow::Borrowed(xs),
            None => rows.row_of::<T>(r, name)?,
        };
        let m = mask_rows
            .as_ref()
            .map(|m| m.row_of::<bool>(r, name))
            .transpose()?;
        Ok((xs, m))
    };
    let mut out_fixed = result_fixed_dims(rows.shape(), &reduced, keepdims);
    if var_reduced && axes.len() == 1 {
        // Each row on its own: read twice while it is in cache.
        let one = |(xs, m): Row<'_, T>| -> T {
            let (sum, n) = row_sum(&xs, m.as_deref(), |x| x);
            if n == 0 {
                return T::NAN;
            }
            let mean = sum / T::of_count(n);
            let (squares, _) = row_sum(&xs, m.as_deref(), |x| {
                let d = x - mean;
                d * d
            });
            fin.of(squares, n)
        };
        let mut values = vec![T::ZERO; rows.count()];
        let fast = if mask_rows.is_none() {
            let long = |xs: &[T]| long_var(xs, fin);
            super::ragged::variance_each_row(&rows, &mut values, fin, long, name)
        } else {
            None
        };
        if let Some(done) = fast {
            done?;
            if keepdims {
                out_fixed.push(1);
            }
            return Array::from_shape_vec(&out_fixed, values);
        }
        each_unit(&mut values, |first, chunk| {
            for (i, o) in chunk.iter_mut().enumerate() {
                let r = first + i;
                *o = one(row(r).map_err(|e| Box::new((r, e)))?);
            }
            Ok(())
        })?;
        if keepdims {
            out_fixed.push(1);
        }
        return Array::from_shape_vec(&out_fixed, values);
    }
    let ngroups: usize = (0..nfixed)
        .filter(|k| !reduced[*k])
        .map(|k| rows.shape()[k])
        .product();
    // One group (every fixed axis reduced) needs no index per row.
    let groups = if ngroups == 1 {
        Vec::new()
    } else {
        group_of_rows(rows.shape(), &reduced)
    };
    let group = |r: usize| if ngroups == 1 { 0 } else { groups[r] };
    if var_reduced {
        // Whole rows fold into their group: means first, then squares.
        let mut sums = vec![(T::ZERO, 0usize); ngroups];
        for r in 0..rows.count() {
            let g = group(r);
            let (xs, m) = row(r)?;
            let (s, n) = row_sum(&xs, m.as_deref(), |x| x);
            sums[g] = (sums[g].0 + s, sums[g].1 + n);
        }
        let means: Vec<T> = sums.iter().map(|&(s, n)| s / T::of_count(n)).collect();
        let mut squares = vec![T::ZERO; ngroups];
        for r in 0..rows.count() {
            let g = group(r);
            let mean = means[g];
            let (xs, m) = row(r)?;
            let (s, _) = row_sum(&xs, m.as_deref(), |x| {
                let d = x - mean;
                d * d
            });
            squares[g] = squares[g] + s;
        }
        let values: Vec<T> = squares
            .iter()
            .zip(&sums)
            .map(|(&s, &(_, n))| fin.of(s, n))
            .collect();
        if keepdims {
            out_fixed.push(1);
        }
        return Array::from_shape_vec(&out_fixed, values);
    }
    // Across rows: position `j` of each group's line takes element `j` of
    // every row that has one. Many rows fold in fixed runs (in parallel
    // where there are threads) whose lines then add up in run order: the
    // grouping depends on the row count alone, so the bits do not depend
    // on the threads.
    let runs: Vec<std::ops::Range<usize>> =
        if rows.count() >= PARALLEL_ROWS && ngroups <= ACROSS_GROUPS {
            (0..rows.count())
                .step_by(ACROSS_RUN)
                .map(|r| r..(r + ACROSS_RUN).min(rows.count()))
                .collect()
        } else {
            std::iter::once(0..rows.count()).collect()
        };
    let sums = across_lines(&runs, ngroups, &group, &row, None)?;
    let means: Vec<Vec<T>> = sums
        .iter()
        .map(|line| line.iter().map(|&(s, n)| s / T::of_count(n)).collect())
        .collect();
    let squares: Vec<Vec<T>> = across_lines(&runs, ngroups, &group, &row, Some(&means))?
        .into_iter()
        .map(|line| line.into_iter().map(|(s, _)| s).collect())
        .collect();
    let lines: Vec<Vec<T>> = squares
        .into_iter()
        .zip(&sums)
        .map(|(sq, line)| {
            sq.into_iter()
                .zip(line)
                .map(|(s, &(_, n))| fin.of(s, n))
                .collect()
        })
        .collect();
    var_array(&out_fixed, lines, Ok)
}
