//! Reductions of an expression without its value: the array folded in parts
//! that stay in cache, the expression evaluated one part at a time.

use super::*;
use crate::callable::Reducer;
use dynd_kernels::par;

/// Elements of the result evaluated at a time when reducing an expression
/// (a part of 512 KiB of `float64`: it stays in the second-level cache
/// between its evaluation and its reduction).
pub(super) const PART: usize = 1 << 16;

/// `r` over `e`'s value, evaluated a part of the outer axis at a time (see
/// [`Eval::reduce`]); `None` when that is not exact, not possible for the
/// layout, or anything fails (the caller then makes the value and the
/// plain call, which reports any error with its full index).
pub(super) fn reduce_in_parts(e: &Expr<'_>, r: &Callable, o: &AxisOptions) -> Option<Array> {
    if r.reduction != crate::callable::ReductionKind::None {
        let (_, _, ty) = plan(e)?;
        let masks = r
            .reducer
            .and_then(|op| crate::reductions::masks_empty_groups(op, &ty, o));
        if let Some(initial) = masks {
            // As the plain reduction: `?R`, NA for an empty group, from
            // the groups' counts (in parts too).
            let with_initial = AxisOptions {
                initial,
                ..o.clone()
            };
            let v = reduce_plain_parts(e, r, &with_initial)?;
            if matches!(v.dtype().kind(), dynd_types::TypeKind::Option(_)) {
                // The parts were reduced by the builtin, which masks.
                return Some(v);
            }
            let n = reduce_plain_parts(e, crate::reductions::COUNT.callable(), o)?;
            let any = crate::elementwise::GREATER
                .call(&[&n, &Array::from_scalar(0i64)])
                .ok()?;
            return Array::from_option_parts(&v, &any).ok();
        }
    }
    reduce_plain_parts(e, r, o)
}

/// [`reduce_in_parts`] without the NA of empty groups.
fn reduce_plain_parts(e: &Expr<'_>, r: &Callable, o: &AxisOptions) -> Option<Array> {
    use crate::callable::ReductionKind as K;
    let only = |allowed: &[&str]| o.given().all(|k| allowed.contains(&k));
    if r.reduction == K::None {
        return None;
    }
    let (p, root, ty) = plan(e)?;
    let (dims, dtype) = ty.split_dims();
    let nd = dims.len();
    let axes = match o.axes() {
        None => (0..nd).collect(),
        Some(a) => read_axes(a, nd)?,
    };
    let keepdims = o.keepdims;
    let every_axis = nd > 0 && (0..nd).all(|d| axes.contains(&d));
    // `sum` and `mean` of float64 over everything, as the `sum` reduction
    // groups it: each row of the last dimension folded on its own, the
    // rows' sums then added in order.
    let whole_sum = r.reduction == K::SumOrMean
        && every_axis
        && dtype.as_scalar() == Some(Scalar::Float64)
        && !ty.has_var_dim()
        && only(&["axis", "keepdims"]);
    let finish_sum = |s: f64| -> Option<Array> {
        let n: usize = dims.iter().map(|d| fixed(d).unwrap_or(0)).product();
        let mean = r.reducer == Some(Reducer::Mean);
        let v = Array::from_scalar(if mean { s / n as f64 } else { s });
        if keepdims {
            v.reshape(vec![1usize; nd]).ok()
        } else {
            Some(v)
        }
    };
    if whole_sum {
        // One run over the leaves: folded a chunk at a time.
        if let Ok(Some(s)) = p.sum_f64(root, &ty) {
            return finish_sum(s);
        }
    }
    let n = fixed(dims.first()?)?;
    // How the parts' results make the result.
    enum Mode {
        /// Parts of the result (the outer axis is kept).
        Concat,
        /// Stacked, then reduced again (an exact combination).
        Combine(Callable),
        /// Row sums, added in order.
        RowSums,
        /// Sums of ragged values over every axis, added pairwise.
        PartialSums,
        /// Means and squared deviations, combined in order (`var`, `std`).
        Moments,
    }
    let float64 = dtype.as_scalar() == Some(Scalar::Float64);
    let moments = r.reducer.is_some_and(Reducer::is_moment) && r.reduction == K::Axes;
    let mode = match (axes.contains(&0), r.reduction) {
        (false, _) => Mode::Concat,
        (true, _) if whole_sum && nd >= 2 && dims.last().and_then(|d| fixed(d)) > Some(0) => {
            Mode::RowSums
        }
        (true, K::SumOrMean) if every_axis && float64 && ty.has_var_dim() && only(&["axis"]) => {
            Mode::PartialSums
        }
        (true, _)
            if moments && float64 && !ty.has_var_dim() && only(&["axis", "keepdims", "ddof"]) =>
        {
            Mode::Moments
        }
        (true, K::Combines) => Mode::Combine(r.clone()),
        (true, K::Counts) => Mode::Combine(crate::reductions::SUM.callable().clone()),
        (true, _) => return None,
    };
    // `initial` folds in once per group: where a group lies in one part,
    // or where folding it again changes nothing (`min`, `max`).
    if o.initial.is_some()
        && !matches!(mode, Mode::Concat)
        && !(matches!(mode, Mode::Combine(_)) && r.reducer.is_some_and(Reducer::idempotent))
    {
        return None;
    }
    // Whole rows of the outer axis per part: elements per row from the
    // fixed dimensions, or for ragged rows from the leaves' values (and
    // larger parts: each costs a plan and a call, and short rows make
    // many).
    let (row, part_size) = if ty.has_var_dim() {
        let values = p.leaves().iter().map(value_count).max().unwrap_or(0);
        ((values / n).max(1), RAGGED_PART)
    } else {
        (
            dims[1..].iter().map(|d| fixed(d).unwrap_or(1)).product(),
            PART,
        )
    };
    let rows = (part_size / row.max(1)).max(1);
    let parts = n.div_ceil(rows);
    if parts < 2 {
        return None;
    }
    // The leaves along the outer axis are cut; the others broadcast.
    let along = |a: &Array| a.ndim() == nd && a.arrmeta().as_fixed().is_some_and(|f| f.0 == n);
    let var_outer = |a: &Array| a.ndim() == nd && a.arrmeta().as_fixed().is_none();
    if p.leaves().iter().any(var_outer) {
        return None;
    }
    // A `where` mask is cut as the leaves are.
    let mask = o.mask.as_ref();
    if mask.is_some_and(var_outer) {
        return None;
    }
    // The options without the mask (a part's `where` is added per part).
    let plain = o.masked(None);
    // What each part computes: reductions and their options.
    let part_calls: SmallVec<[(&Callable, AxisOptions); 2]> = match &mode {
        Mode::Concat => smallvec::smallvec![(r, plain.clone())],
        Mode::Combine(_) => smallvec::smallvec![(r, plain.clone().keepdims(true))],
        Mode::RowSums => {
            smallvec::smallvec![(
                crate::reductions::SUM.callable(),
                AxisOptions::new().axis(-1)
            )]
        }
        Mode::PartialSums => smallvec::smallvec![
            (crate::reductions::SUM.callable(), AxisOptions::new()),
            (crate::reductions::COUNT.callable(), AxisOptions::new())
        ],
        Mode::Moments => {
            let k = AxisOptions {
                axis: o.axis.clone(),
                ..AxisOptions::new()
            }
            .keepdims(true);
            smallvec::smallvec![
                (crate::reductions::MEAN.callable(), k.clone()),
                (crate::reductions::VAR.callable(), k)
            ]
        }
    };
    let part = |k: usize| -> Option<SmallVec<[Array; 2]>> {
        let (i0, i1) = (k * rows, ((k + 1) * rows).min(n));
        let cut = Index::slice(Some(i0 as i64), Some(i1 as i64), 1);
        let mask_k = match mask {
            Some(m) if along(m) => Some(m.index(std::slice::from_ref(&cut)).ok()?),
            Some(m) => Some(m.clone()),
            None => None,
        };
        let pk = p
            .map_leaves(|a| {
                if along(a) {
                    a.index(std::slice::from_ref(&cut))
                } else {
                    Ok(a.clone())
                }
            })
            .ok()?;
        let outer = std::iter::once(Dim::Fixed(i1 - i0));
        let tk = Type::with_dims(
            outer.chain(dims[1..].iter().map(|&d| d.clone())),
            dtype.clone(),
        )
        .ok()?;
        let v = pk.eval(root, &tk).ok()??;
        part_calls
            .iter()
            .map(|(c, ok)| match &mask_k {
                Some(m) => c.reduce_with(&v, &ok.masked(Some(m.clone()))).ok(),
                None => c.reduce_with(&v, ok).ok(),
            })
            .collect()
    };
    // The first part alone: its result's type says whether the parts'
    // results can be put together.
    let first = part(0)?;
    let stacked = matches!(mode, Mode::Concat | Mode::Combine(_));
    if stacked && (first[0].ty().has_var_dim() || first[0].ndim() == 0) {
        return None;
    }
    let rest: Vec<Option<SmallVec<[Array; 2]>>> =
        if n.saturating_mul(row) >= PARALLEL_MIN && par::threads() > 1 {
            par::map(parts - 1, &|i| part(i + 1))
        } else {
            (1..parts).map(part).collect()
        };
    let results = std::iter::once(Some(first))
        .chain(rest)
        .collect::<Option<Vec<SmallVec<[Array; 2]>>>>()?;
    match mode {
        Mode::RowSums => {
            let mut acc: Option<f64> = None;
            for v in &results {
                for s in v[0].reshape([-1i64]).ok()?.to_vec::<f64>().ok()? {
                    acc = Some(acc.map_or(s, |a| a + s));
                }
            }
            return finish_sum(acc?);
        }
        Mode::PartialSums => {
            let sums = results
                .iter()
                .map(|v| v[0].get::<f64>(&[]).ok())
                .collect::<Option<Vec<f64>>>()?;
            // The reductions' own tree: the same on any number of threads.
            let s = dynd_kernels::reduce::sum_of_parts(&sums);
            if r.reducer == Some(Reducer::Sum) {
                return Some(Array::from_scalar(s));
            }
            let count: i64 = results
                .iter()
                .map(|v| v[1].get::<i64>(&[]).ok())
                .sum::<Option<i64>>()?;
            let n = Array::from_scalar(count as f64);
            return DIVIDE.callable().call(&[&Array::from_scalar(s), &n]).ok();
        }
        Mode::Moments => {
            return moments_combined(
                &results,
                &axes,
                &dims,
                rows,
                n,
                keepdims,
                o.ddof_value(),
                r.reducer == Some(Reducer::Std),
            );
        }
        _ => {}
    }
    let results: Vec<Array> = results.into_iter().map(|mut v| v.swap_remove(0)).collect();
    let (rdims, rdtype) = results[0].ty().split_dims();
    let outer = Dim::Fixed(match mode {
        Mode::Combine(_) => parts,
        _ => n,
    });
    let whole = Type::with_dims(
        std::iter::once(outer).chain(rdims[1..].iter().map(|&d| d.clone())),
        rdtype.clone(),
    )
    .ok()?;
    let mut out = Array::zeros(&whole).ok()?;
    for (k, v) in results.iter().enumerate() {
        let (i0, i1) = match mode {
            Mode::Combine(_) => (k, k + 1),
            _ => (k * rows, ((k + 1) * rows).min(n)),
        };
        let at = Index::slice(Some(i0 as i64), Some(i1 as i64), 1);
        out.assign_at(&[at], v, ErrorMode::NoCheck).ok()?;
    }
    match mode {
        Mode::Combine(c) => c.reduce_with(&out, &plain).ok(),
        _ => Some(out),
    }
}

/// `var` or `std` (with `std`) from each part's means and (population)
/// variances over `axes` (kept as length 1), combined in the parts' order
/// by Chan, Golub and LeVeque's update: the two-pass accuracy within each
/// part, and the same result on any number of threads.
#[allow(clippy::too_many_arguments)]
pub(super) fn moments_combined(
    results: &[SmallVec<[Array; 2]>],
    axes: &[usize],
    dims: &[&Dim],
    rows: usize,
    n: usize,
    keepdims: bool,
    ddof: usize,
    std: bool,
) -> Option<Array> {
    // Elements per group in every part but the outer axis's share.
    let inner: usize = axes
        .iter()
        .filter(|&&d| d != 0)
        .map(|&d| fixed(dims[d]).unwrap_or(0))
        .product();
    let mut acc: Option<(usize, Array, Array)> = None;
    for (k, v) in results.iter().enumerate() {
        let nk = (((k + 1) * rows).min(n) - k * rows) * inner;
        let m2 = (&v[1] * nk as f64).eval().ok()?;
        acc = Some(match acc {
            None => (nk, v[0].clone(), m2),
            Some((na, ma, m2a)) => {
                let total = na + nk;
                let delta = (&v[0] - &ma).eval().ok()?;
                let mean = (&ma + &delta * (nk as f64 / total as f64)).eval().ok()?;
                let m2 = (&m2a + &m2 + &delta * &delta * (na as f64 * nk as f64 / total as f64))
                    .eval()
                    .ok()?;
                (total, mean, m2)
            }
        });
    }
    let (count, _, m2) = acc?;
    let var = if count > ddof {
        (&m2 / (count - ddof) as f64).eval().ok()?
    } else {
        (&m2 * f64::NAN).eval().ok()?
    };
    let out = if std {
        SQRT.callable().call(&[&var]).ok()?
    } else {
        var
    };
    if keepdims {
        return Some(out);
    }
    let index: Vec<Index> = (0..dims.len())
        .map(|d| {
            if axes.contains(&d) {
                Index::At(0)
            } else {
                Index::ALL
            }
        })
        .collect();
    out.index(&index).ok()
}

/// Elements per part of a ragged result (see [`PART`]).
pub(super) const RAGGED_PART: usize = 1 << 18;

/// The number of elements in `a`'s innermost `var` values (an estimate
/// for a view: the values from its rows' start on); 0 without one.
pub(super) fn value_count(a: &Array) -> usize {
    let mut m = a.arrmeta();
    loop {
        match m {
            Arrmeta::Fixed { element, .. } => m = element,
            Arrmeta::Var {
                values,
                offset,
                stride,
                element,
                ..
            } if !element.has_var() => {
                let step = stride.unsigned_abs().max(1);
                return values.len().saturating_sub(*offset) / step;
            }
            Arrmeta::Var { element, .. } => m = element,
            _ => return 0,
        }
    }
}

/// A fixed dimension's size.
pub(super) fn fixed(d: &Dim) -> Option<usize> {
    match d {
        Dim::Fixed(n) => Some(*n),
        _ => None,
    }
}

/// The axes (negative from the end) of an `nd`-dimensional value; `None`
/// for one out of range or repeated (the plain call then reports it).
pub(super) fn read_axes(list: &[i64], nd: usize) -> Option<SmallVec<[usize; 4]>> {
    let mut axes = SmallVec::new();
    for &x in list {
        let d = if x < 0 { x + nd as i64 } else { x };
        let d = usize::try_from(d).ok().filter(|&d| d < nd)?;
        if axes.contains(&d) {
            return None;
        }
        axes.push(d);
    }
    Some(axes)
}
