//! Sorting along an axis: stable, ascending or descending, NaN last;
//! floats in IEEE total order among themselves (`-0` before `0`).
//!
//! ```
//! use dynd::nd::{array, ArrayOps};
//!
//! let mut a = array![[3.0, f64::NAN, 1.0], [2.0, 2.0, -1.0]];
//! a.sort(-1, false)?;
//! assert_eq!(a.to_string(), "[[1, 3, NaN], [-1, 2, 2]]");
//! let mut rows = array![[3, 1, 2], [], [9, 7]];
//! rows.sort(1, true)?;
//! assert_eq!(rows.to_string(), "[[3, 2, 1], [], [9, 7]]");
//! # Ok::<(), dynd::Error>(())
//! ```

use dynd_types::{Dim, Scalar};

use std::cmp::Ordering;
use std::sync::Arc;

use crate::array::Array;
use crate::arrmeta::{read_pair, Arrmeta, PAIR_SIZE};
use crate::element::{Complex, Element, F16};
use crate::error::Error;
use crate::loops::ElemsMut;
use crate::with_numeric;

/// Elements with a total order for sorting: NaN after every number, and
/// `-0` before `0`. Elements equal in that order have the same bits, so
/// an unstable sort (pattern-defeating quicksort, faster than a merge)
/// gives exactly the stable result.
trait SortKey: Element {
    /// Sorts a line, ascending or descending, stably.
    fn sort_line(xs: &mut [Self], reverse: bool);
}

macro_rules! int_key {
    ($($t:ty),*) => {$(
        impl SortKey for $t {
            fn sort_line(xs: &mut [Self], reverse: bool) {
                if reverse {
                    xs.sort_unstable_by(|a, b| b.cmp(a));
                } else {
                    xs.sort_unstable();
                }
            }
        }
    )*};
}
int_key!(bool, i8, i16, i32, i64, i128, u8, u16, u32, u64, u128);

macro_rules! float_key {
    ($($t:ty),*) => {$(
        impl SortKey for $t {
            fn sort_line(xs: &mut [Self], reverse: bool) {
                let body = nan_last(xs, |x| x.is_nan());
                // IEEE total order (-0 before 0), branch-free.
                if reverse {
                    body.sort_unstable_by(|a, b| b.total_cmp(a));
                } else {
                    body.sort_unstable_by(|a, b| a.total_cmp(b));
                }
            }
        }
    )*};
}
float_key!(f32, f64);

impl SortKey for F16 {
    fn sort_line(xs: &mut [Self], reverse: bool) {
        let body = nan_last(xs, |x| x.to_f32().is_nan());
        let key = |x: &F16| x.to_f32();
        if reverse {
            body.sort_unstable_by(|a, b| key(b).total_cmp(&key(a)));
        } else {
            body.sort_unstable_by(|a, b| key(a).total_cmp(&key(b)));
        }
    }
}

/// NumPy's order of complex numbers: by the real parts, then the
/// imaginary ones (each in IEEE total order, `-0` before `0`), and NaN
/// parts last in NumPy's classes: `R + Rj`, `R + NaN j`, `NaN + Rj`,
/// `NaN + NaN j` (descending reverses the order within a class only).
macro_rules! complex_key {
    ($($t:ty),*) => {$(
        impl SortKey for Complex<$t> {
            fn sort_line(xs: &mut [Self], reverse: bool) {
                let class = |z: &Complex<$t>| u8::from(z.re.is_nan()) * 2 + u8::from(z.im.is_nan());
                let part = |a: $t, b: $t| if a.is_nan() { Ordering::Equal } else { a.total_cmp(&b) };
                xs.sort_by(|a, b| {
                    class(a).cmp(&class(b)).then_with(|| {
                        let o = part(a.re, b.re).then_with(|| part(a.im, b.im));
                        if reverse { o.reverse() } else { o }
                    })
                });
            }
        }
    )*};
}
complex_key!(f32, f64);

/// Moves the NaNs of `xs` to its end, keeping the order of the rest and of
/// the NaNs; the numbers, to be sorted.
fn nan_last<T: Copy>(xs: &mut [T], is_nan: impl Fn(&T) -> bool) -> &mut [T] {
    let nans = xs.iter().filter(|x| is_nan(x)).count();
    let n = xs.len() - nans;
    if nans > 0 {
        let (numbers, nan): (Vec<T>, Vec<T>) = xs.iter().partition(|x| !is_nan(x));
        xs[..n].copy_from_slice(&numbers);
        xs[n..].copy_from_slice(&nan);
    }
    &mut xs[..n]
}

/// [`ArrayOps::sort`](crate::ops::ArrayOps::sort).
pub(crate) fn sort(this: &mut Array, axis: i64, reverse: bool) -> Result<(), Error> {
    let ndim = this.ndim();
    let axis = crate::reduce::normalize_axes(Some(&[axis]), ndim, "sort")?[0];
    let ty = this.ty().clone();
    let unsupported = |what: &'static str| Error::Unsupported {
        operation: what,
        ty: ty.clone(),
    };
    let s = this
        .dtype()
        .as_scalar()
        .filter(|s| !matches!(s, Scalar::String | Scalar::Bytes))
        .ok_or_else(|| unsupported("sorting this data type (it has no order)"))?;
    let shape = this.shape();
    let var_at = shape.iter().position(|d| matches!(d, Dim::Var));
    match var_at {
        Some(v)
            if v + 1 == ndim
                && axis == v
                && shape[..v].iter().all(|d| matches!(d, Dim::Fixed(_))) => {}
        Some(_) => {
            return Err(unsupported(
                "sorting with var dimensions other than an innermost one sorted along",
            ))
        }
        None => {}
    }
    crate::assign::make_unique(this)?;
    let ragged = var_at.is_some();
    match s {
        Scalar::Complex64 => sort_typed::<Complex<f32>>(this, axis, reverse, ragged),
        Scalar::Complex128 => sort_typed::<Complex<f64>>(this, axis, reverse, ragged),
        _ => with_numeric!(ordered s, T => sort_typed::<T>(this, axis, reverse, ragged),
            Err(unsupported("sorting this data type (it has no order)"))),
    }
}

/// The sort, for element type `T`, of an array that owns its memory
/// (made so by the caller). Each line is handed to the sort as a
/// mutable slice through the engine's checked [`ElemsMut`]: the
/// elements themselves when contiguous and aligned, else a copy
/// written back.
fn sort_typed<T: SortKey>(
    this: &mut Array,
    axis: usize,
    reverse: bool,
    ragged: bool,
) -> Result<(), Error> {
    let at0 = this.data_offset();
    // SAFETY: the sort below only moves whole elements within their
    // lines (values between positions of the same line, of the same
    // type), through the blocks' own bytes: every part keeps its layout.
    let (_, data, meta) = unsafe { this.parts_mut() };
    let (fixed, inner) = meta.fixed_dims();
    let outside = || {
        // Validation rules this out: every row and element of an
        // array lies inside its block.
        Error::Layout(Box::new(dynd_types::LayoutProblem::Read {
            op: "sort".into(),
            part: "a line",
        }))
    };
    // The lines: (first element's byte offset, length, byte stride)
    // from the first element of the block they lie in (the values'
    // for rows, the data's otherwise), and that element's position.
    let mut lines: Vec<(isize, usize, isize)> = Vec::new();
    let origin = match (ragged, inner) {
        (true, Arrmeta::Var { offset, stride, .. }) => {
            let (offset, stride) = (*offset, *stride);
            let pairs = data.bytes();
            dynd_array::offsets::try_for_each_offset(&fixed, |o| {
                let pair = at0
                    .checked_add_signed(o)
                    .and_then(|at| pairs.get(at..at.checked_add(PAIR_SIZE)?))
                    .ok_or_else(outside)?;
                let (start, len) = read_pair(pair);
                let start = isize::try_from(start as i64).map_err(|_| outside())?;
                let len = usize::try_from(len).map_err(|_| outside())?;
                lines.push((start, len, stride));
                Ok::<(), Error>(())
            })?;
            offset
        }
        (true, _) => unreachable!("checked: an innermost var dimension"),
        (false, _) => {
            let (len, stride) = fixed[axis];
            let others: Vec<(usize, isize)> = (0..fixed.len())
                .filter(|k| *k != axis)
                .map(|k| fixed[k])
                .collect();
            dynd_array::offsets::for_each_offset(&others, |o| lines.push((o, len, stride)));
            at0
        }
    };
    let block = if ragged {
        match Arc::get_mut(meta).map(innermost) {
            Some(Arrmeta::Var { values, .. }) => Arc::get_mut(values),
            _ => None,
        }
    } else {
        Arc::get_mut(data)
    };
    let block = block.filter(|b| b.is_writable()).ok_or(Error::ReadOnly)?;
    let mut elems = ElemsMut::new(block.bytes_mut(), origin);
    let mut scratch: Vec<T> = Vec::new();
    for line in lines {
        elems
            .with_line(line, &mut scratch, |xs| T::sort_line(xs, reverse))
            .ok_or_else(outside)?;
    }
    Ok(())
}

/// The record under `m`'s fixed dimensions.
fn innermost(m: &mut Arrmeta) -> &mut Arrmeta {
    match m {
        Arrmeta::Fixed { element, .. } => innermost(element),
        other => other,
    }
}
