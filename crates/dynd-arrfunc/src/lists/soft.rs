//! The soft functions per row: [`softmax`], [`log_softmax`] and
//! [`logsumexp`], stable (the row's maximum is subtracted before `exp`).

use std::ops::Range;

use dynd_kernels::rowwise;
use dynd_kernels::{math, Array, ArrayOps, Element, ErrorMode};
use dynd_types::ScalarCategory::{Bool, Float, SignedInt, UnsignedInt};
use dynd_types::{Dim, Scalar, Type};

use crate::error::Error;
use crate::ordering::last_axis;
use crate::rows::split_na;
use crate::rows::{chunks, new_floats, new_values, par_fill, per_row, slice, AxisRows};

/// A float type the soft functions compute in.
trait Soft: Element + Copy + Default + PartialOrd + Send + Sync + rowwise::Float {
    fn exp(self) -> Self;
    /// Each element's exponential, over the slice at SIMD speed.
    fn exp_all(xs: &mut [Self]);
    fn ln(self) -> Self;
    fn recip(self) -> Self;
    fn max(self, o: Self) -> Self;
}

macro_rules! soft {
    ($($t:ty: $exp_all:path),*) => {$(
        impl Soft for $t {
            #[inline(always)]
            fn exp(self) -> Self { <$t>::exp(self) }
            #[inline(always)]
            fn exp_all(xs: &mut [Self]) { $exp_all(xs) }
            #[inline(always)]
            fn ln(self) -> Self { <$t>::ln(self) }
            #[inline(always)]
            fn recip(self) -> Self { 1.0 / self }
            #[inline(always)]
            fn max(self, o: Self) -> Self { <$t>::max(self, o) }
        }
    )*};
}
/// `exp` over a `float32` slice, vectorised.
fn exp_f32(xs: &mut [f32]) {
    math::Unary::Exp.map_f32(xs)
}

/// `exp` over a `float64` slice, vectorised.
fn exp_f64(xs: &mut [f64]) {
    math::Unary::Exp.map(xs)
}

soft!(f32: exp_f32, f64: exp_f64);

/// Which of the soft functions.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SoftOp {
    Softmax,
    LogSoftmax,
    LogSumExp,
}

/// The row's maximum to subtract (0 when it is not finite, so that
/// infinities give what `exp` and `ln` say) and the sum of the shifted
/// exponentials.
#[inline]
fn shift_sum<T: Soft>(row: &[T], ok: Option<&[bool]>, out: Option<&mut [T]>) -> (T, T) {
    let mut m = T::LOW;
    match ok {
        None => row.iter().for_each(|&x| m = m.max(x)),
        Some(ok) => row
            .iter()
            .zip(ok)
            .filter(|(_, &v)| v)
            .for_each(|(&x, _)| m = m.max(x)),
    }
    if !m.finite() {
        m = T::ZERO;
    }
    let mut sum = T::ZERO;
    match (ok, out) {
        (None, Some(out)) => {
            for (o, &x) in out.iter_mut().zip(row) {
                let e = (x - m).exp();
                *o = e;
                sum = sum + e;
            }
        }
        (None, None) => row.iter().for_each(|&x| sum = sum + (x - m).exp()),
        (Some(ok), out) => {
            let mut out = out;
            for (k, (&x, &v)) in row.iter().zip(ok).enumerate() {
                if v {
                    let e = (x - m).exp();
                    if let Some(o) = out.as_deref_mut() {
                        o[k] = e;
                    }
                    sum = sum + e;
                }
            }
        }
    }
    (m, sum)
}

/// Softmax (or log-softmax) of the rows `run` of `xs` (rows at offsets
/// `o`, no NA) into `part` (the run's values), in passes over the run,
/// which stays in cache: each row less its maximum, the exponentials of
/// the whole run at once (vectorised: rows are short), each row's sum,
/// then each row scaled by its inverse (or less its log). The per-row
/// passes are branch-free ([`rowwise`]).
fn soft_values<T: Soft>((xs, o): (&[T], &[i64]), run: Range<usize>, part: &mut [T], op: SoftOp) {
    let offsets = &o[run.start..=run.end];
    let mut by = vec![T::ZERO; run.len()];
    rowwise::shift_rows(xs, offsets, part, &mut by);
    if op == SoftOp::Softmax {
        T::exp_all(part);
        rowwise::row_sums(part, offsets, &mut by);
        by.iter_mut().for_each(|s| *s = s.recip());
        rowwise::scale_rows(part, offsets, &by);
    } else {
        let mut exps = part.to_vec();
        T::exp_all(&mut exps);
        rowwise::row_sums(&exps, offsets, &mut by);
        by.iter_mut().for_each(|s| *s = T::ZERO - s.ln());
        rowwise::offset_rows(part, offsets, &by);
    }
}

/// Each of the rows `run`'s `max + log(sum(exp(x - max)))` into `part`,
/// by the passes of [`soft_values`].
fn logsumexp_run<T: Soft>((xs, o): (&[T], &[i64]), run: Range<usize>, part: &mut [T]) {
    let offsets = &o[run.start..=run.end];
    let mut shifted = vec![T::ZERO; (o[run.end] - o[run.start]) as usize];
    let mut maxes = vec![T::ZERO; run.len()];
    rowwise::shift_rows(xs, offsets, &mut shifted, &mut maxes);
    T::exp_all(&mut shifted);
    rowwise::row_sums(&shifted, offsets, part);
    for (v, &m) in part.iter_mut().zip(&maxes) {
        *v = m + v.ln();
    }
}

fn soft_typed<T: Soft>(
    rows: &AxisRows,
    values: &Array,
    ok: Option<&[bool]>,
    op: SoftOp,
) -> Result<Array, Error> {
    let xs = slice::<T>(values)?;
    let o = &rows.offsets;
    let runs = chunks(o);
    if op == SoftOp::LogSumExp {
        let out = match ok {
            Some(ok) => per_row(o, |r| {
                let (m, sum) = shift_sum(&xs[r.clone()], Some(&ok[r]), None);
                m + sum.ln()
            }),
            None => {
                let mut out = vec![T::ZERO; rows.count()];
                par_fill(
                    &mut out,
                    |i| i,
                    &runs,
                    |run, part| logsumexp_run((&xs, o), run, part),
                );
                out
            }
        };
        return rows.wrap(Array::from_vec(out));
    }
    let fill = |out: &mut [T]| {
        par_fill(
            out,
            |i| o[i] as usize,
            &runs,
            |run, part| match ok {
                None => soft_values((&xs, o), run, part, op),
                Some(ok) => {
                    let base = o[run.start];
                    for i in run {
                        let r = o[i] as usize..o[i + 1] as usize;
                        let row = &xs[r.clone()];
                        let ok = &ok[r];
                        let out = &mut part[(o[i] - base) as usize..(o[i + 1] - base) as usize];
                        if op == SoftOp::Softmax {
                            let (_, sum) = shift_sum(row, Some(ok), Some(&mut *out));
                            let inv = sum.recip();
                            out.iter_mut().for_each(|e| *e = *e * inv);
                        } else {
                            let (m, sum) = shift_sum(row, Some(ok), None);
                            let log_sum = sum.ln();
                            out.iter_mut()
                                .zip(row)
                                .for_each(|(e, &x)| *e = x - m - log_sum);
                        }
                    }
                }
            },
        )
    };
    // A block of the library's (reused when a like-sized result was
    // dropped, so a loop of calls does not fault in fresh pages each time),
    // not cleared where every element is written (no NA: NA slots are
    // left as zero bytes).
    let mut values = match ok {
        None => new_floats::<T>(xs.len(), fill)?,
        Some(_) => new_values::<T>(xs.len(), fill)?,
    };
    if let Some(ok) = ok {
        values = Array::from_option_parts(&values, &Array::from_vec(ok.to_vec()))?;
    }
    rows.wrap_rows(values, &rows.offsets)
}

fn soft(x: &Array, axis: i64, op: SoftOp, name: &'static str) -> Result<Array, Error> {
    last_axis(x, axis, name)?;
    let rows = AxisRows::of(x, name)?;
    let (values, valid) = split_na(&rows.values)?;
    let ok = valid.as_deref();
    match values.dtype().as_scalar() {
        Some(Scalar::Float32) => soft_typed::<f32>(&rows, &values, ok, op),
        Some(Scalar::Float64) => soft_typed::<f64>(&rows, &values, ok, op),
        Some(s) if matches!(s.category(), Bool | SignedInt | UnsignedInt | Float) => {
            let t = Type::with_dims(
                [Dim::Fixed(values.ty().fixed_shape().map_or(0, |s| s[0]))],
                Scalar::Float64.into(),
            )?;
            let f = values.cast(&t, ErrorMode::NoCheck)?;
            soft_typed::<f64>(&rows, &f, ok, op)
        }
        _ => Err(Error::Unsupported {
            operation: name,
            ty: x.ty().clone(),
        }),
    }
}

/// Each row's softmax along the last axis, `exp(x - max) / sum(exp(x -
/// max))`: stable for large values; an empty row stays empty, a row of
/// one is `[1]`; NA elements stay NA and are left out of the sum.
/// `float32` stays `float32`; other real numbers compute in `float64`.
///
/// # Errors
///
/// An axis other than the last, a data type that is not a real number.
pub fn softmax(x: &Array, axis: i64) -> Result<Array, Error> {
    soft(x, axis, SoftOp::Softmax, "softmax")
}

/// Each row's `log(softmax(x))`, computed as `x - max - log(sum(exp(x -
/// max)))` (no `log` of a rounded-to-zero softmax), as [`softmax`].
///
/// # Errors
///
/// As [`softmax`].
pub fn log_softmax(x: &Array, axis: i64) -> Result<Array, Error> {
    soft(x, axis, SoftOp::LogSoftmax, "log_softmax")
}

/// Each row's `log(sum(exp(x)))`, computed as `max + log(sum(exp(x -
/// max)))`: one value per row; `-inf` for an empty row (the log of an
/// empty sum), the value itself for a row of one.
///
/// # Errors
///
/// As [`softmax`].
pub fn logsumexp(x: &Array, axis: i64) -> Result<Array, Error> {
    soft(x, axis, SoftOp::LogSumExp, "logsumexp")
}
