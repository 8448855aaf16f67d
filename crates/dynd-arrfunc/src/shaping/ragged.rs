//! `concatenate` and `diff` over `var` dimensions: rows appended
//! (`axis=0`), rows joined (the last axis), each row's differences.

use dynd_kernels::Array;
use dynd_types::{Dim, Scalar, TypeKind};

use crate::elementwise::{NOT_EQUAL, SUBTRACT};
use crate::error::Error;
use crate::ordering::axis_of;
use crate::rows::{cast_to, element_type, gather, AxisRows, Piece};

/// The arrays (one of them at least with `var` dimensions) joined along
/// `axis`: 0 appends their rows, the last joins row `i` of each.
pub(super) fn concatenate(arrays: &[&Array], axis: i64) -> Result<Array, Error> {
    let ndim = arrays[0].ndim();
    if ndim == 0 || arrays.iter().any(|a| a.ndim() != ndim) {
        return Err(mismatch(arrays, "as many dimensions, at least one"));
    }
    match axis_of(axis, ndim, "concatenate")? {
        0 => append(arrays),
        a if a + 1 == ndim => join_rows(arrays),
        _ => Err(Error::Argument {
            op: "concatenate",
            what: "the axis of arrays with var dimensions",
            expected: "0 (rows appended) or the last (rows joined)",
            found: axis.to_string().into(),
        }),
    }
}

fn mismatch(arrays: &[&Array], expected: &'static str) -> Error {
    Error::Argument {
        op: "concatenate",
        what: "the arrays",
        expected,
        found: super::types_of(arrays).into(),
    }
}

/// Along the first dimension: the rows of each array in turn, their
/// elements in a common type.
fn append(arrays: &[&Array]) -> Result<Array, Error> {
    if arrays.iter().all(|a| !a.ty().has_var_dim()) {
        return super::concatenate(arrays, 0);
    }
    let var_second = |a: &&Array| {
        matches!(a.ty().kind(), TypeKind::Dim(Dim::Fixed(_), e)
            if matches!(e.kind(), TypeKind::Dim(Dim::Var, _)))
    };
    if !arrays.iter().all(var_second) {
        return Err(mismatch(
            arrays,
            "alike below the first dimension: `N * var * ...` each",
        ));
    }
    let mut values = Vec::with_capacity(arrays.len());
    let mut offsets = vec![0i64];
    for a in arrays {
        let (v, o) = a.to_offsets()?;
        let base = *offsets.last().unwrap_or(&0);
        offsets.extend(o[1..].iter().map(|x| x + base));
        values.push(v);
    }
    let refs: Vec<&Array> = values.iter().collect();
    Array::from_offsets(append(&refs)?, &offsets)
}

/// Along the last dimension: row `i` of each array, end to end.
fn join_rows(arrays: &[&Array]) -> Result<Array, Error> {
    let rows: Vec<AxisRows> = arrays
        .iter()
        .map(|a| AxisRows::of(a, "concatenate"))
        .collect::<Result<_, _>>()?;
    if rows.iter().any(|r| !r.same_outer(&rows[0])) {
        return Err(mismatch(
            arrays,
            "alike above the rows (the same dimensions and row counts)",
        ));
    }
    let mut t = element_type(&rows[0].values);
    for r in &rows[1..] {
        t = dynd_types::promote(&t, &element_type(&r.values))?;
    }
    let values: Vec<Array> = rows
        .iter()
        .map(|r| cast_to(&r.values, &t))
        .collect::<Result<_, Error>>()?;
    let count = rows[0].count();
    let mut at = Vec::with_capacity(count + 1);
    at.push(0usize);
    for i in 0..count {
        let len: i64 = rows.iter().map(|r| r.offsets[i + 1] - r.offsets[i]).sum();
        at.push(at[i] + len as usize);
    }
    let offsets: Vec<i64> = at.iter().map(|&a| a as i64).collect();
    let refs: Vec<&Array> = values.iter().collect();
    let out = gather(&refs, None, (&at, &offsets), |i| {
        rows.iter().enumerate().map(move |(k, r)| Piece::Take {
            src: k,
            start: r.offsets[i] as usize,
            len: (r.offsets[i + 1] - r.offsets[i]) as usize,
        })
    })?;
    match rows.iter().map(|r| r.fixed).sum::<Option<usize>>() {
        Some(n) => rows[0].wrap_fixed(out, n),
        None => rows[0].wrap_rows(out, &offsets),
    }
}

/// The `n`-th difference of each row along the last axis (`not_equal`
/// for `bool`); a row of length `k` gives `k - n` (at least 0).
pub(super) fn diff(x: &Array, n: usize) -> Result<Array, Error> {
    let mut r = x.clone();
    for _ in 0..n {
        let rows = AxisRows::of(&r, "diff of a scalar")?;
        let o = &rows.offsets;
        let shorter = |i: usize| (o[i + 1] - o[i] - 1).max(0) as usize;
        let mut at = Vec::with_capacity(rows.count() + 1);
        at.push(0usize);
        for i in 0..rows.count() {
            at.push(at[i] + shorter(i));
        }
        let offsets: Vec<i64> = at.iter().map(|&a| a as i64).collect();
        let part = |from: usize| {
            gather(&[&rows.values], None, (&at, o), |i| {
                let len = shorter(i);
                std::iter::once(Piece::Take {
                    src: 0,
                    start: o[i] as usize + if len > 0 { from } else { 0 },
                    len,
                })
            })
        };
        let (hi, lo) = (part(1)?, part(0)?);
        let values = if hi.dtype().as_scalar() == Some(Scalar::Bool) {
            NOT_EQUAL.call(&[&hi, &lo])?
        } else {
            SUBTRACT.call(&[&hi, &lo])?
        };
        r = match rows.fixed {
            Some(k) => rows.wrap_fixed(values, k.saturating_sub(1))?,
            None => rows.wrap_rows(values, &offsets)?,
        };
    }
    Ok(r)
}
