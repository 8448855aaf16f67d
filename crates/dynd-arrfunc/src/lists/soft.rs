//! The soft functions per row: [`softmax`], [`log_softmax`] and
//! [`logsumexp`], stable (the row's maximum is subtracted before `exp`).

use dynd_kernels::{Array, ArrayOps, Element, ErrorMode};
use dynd_types::ScalarCategory::{Bool, Float, SignedInt, UnsignedInt};
use dynd_types::{Dim, Scalar, Type};

use crate::error::Error;
use crate::ordering::{last_axis, split_na};
use crate::rows::{chunks, par_fill, per_row, slice, Rows};

/// A float type the soft functions compute in.
trait Soft: Element + Copy + Default + PartialOrd + Send + Sync {
    const NEG_INF: Self;
    const ZERO: Self;
    fn exp(self) -> Self;
    fn ln(self) -> Self;
    fn sub(self, o: Self) -> Self;
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    fn recip(self) -> Self;
    fn max(self, o: Self) -> Self;
    fn finite(self) -> bool;
}

macro_rules! soft {
    ($($t:ty),*) => {$(
        impl Soft for $t {
            const NEG_INF: Self = <$t>::NEG_INFINITY;
            const ZERO: Self = 0.0;
            #[inline(always)]
            fn exp(self) -> Self { <$t>::exp(self) }
            #[inline(always)]
            fn ln(self) -> Self { <$t>::ln(self) }
            #[inline(always)]
            fn sub(self, o: Self) -> Self { self - o }
            #[inline(always)]
            fn add(self, o: Self) -> Self { self + o }
            #[inline(always)]
            fn mul(self, o: Self) -> Self { self * o }
            #[inline(always)]
            fn recip(self) -> Self { 1.0 / self }
            #[inline(always)]
            fn max(self, o: Self) -> Self { <$t>::max(self, o) }
            #[inline(always)]
            fn finite(self) -> bool { self.is_finite() }
        }
    )*};
}
soft!(f32, f64);

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
    let mut m = T::NEG_INF;
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
                let e = x.sub(m).exp();
                *o = e;
                sum = sum.add(e);
            }
        }
        (None, None) => row.iter().for_each(|&x| sum = sum.add(x.sub(m).exp())),
        (Some(ok), out) => {
            let mut out = out;
            for (k, (&x, &v)) in row.iter().zip(ok).enumerate() {
                if v {
                    let e = x.sub(m).exp();
                    if let Some(o) = out.as_deref_mut() {
                        o[k] = e;
                    }
                    sum = sum.add(e);
                }
            }
        }
    }
    (m, sum)
}

fn soft_typed<T: Soft>(
    rows: &Rows,
    values: &Array,
    ok: Option<&[bool]>,
    op: SoftOp,
) -> Result<Array, Error> {
    let xs = slice::<T>(values)?;
    let o = &rows.offsets;
    if op == SoftOp::LogSumExp {
        let out = per_row(o, |r| {
            let (m, sum) = shift_sum(&xs[r.clone()], ok.map(|v| &v[r]), None);
            m.add(sum.ln())
        });
        return rows.wrap(Array::from_vec(out));
    }
    let mut out: Vec<T> = vec![T::ZERO; xs.len()];
    par_fill(
        &mut out,
        |i| o[i] as usize,
        &chunks(o),
        |run, part| {
            let base = o[run.start];
            for i in run {
                let r = o[i] as usize..o[i + 1] as usize;
                let row = &xs[r.clone()];
                let ok = ok.map(|v| &v[r]);
                let out = &mut part[(o[i] - base) as usize..(o[i + 1] - base) as usize];
                if op == SoftOp::Softmax {
                    let (_, sum) = shift_sum(row, ok, Some(&mut *out));
                    let inv = sum.recip();
                    out.iter_mut().for_each(|e| *e = e.mul(inv));
                } else {
                    let (m, sum) = shift_sum(row, ok, None);
                    let log_sum = sum.ln();
                    out.iter_mut()
                        .zip(row)
                        .for_each(|(e, &x)| *e = x.sub(m).sub(log_sum));
                }
            }
        },
    );
    let mut values = Array::from_vec(out);
    if let Some(ok) = ok {
        values = Array::from_option_parts(&values, &Array::from_vec(ok.to_vec()))?;
    }
    rows.wrap_rows(values, &rows.offsets)
}

fn soft(x: &Array, axis: i64, op: SoftOp, name: &'static str) -> Result<Array, Error> {
    last_axis(x, axis, name)?;
    let rows = Rows::of(x, name)?;
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
