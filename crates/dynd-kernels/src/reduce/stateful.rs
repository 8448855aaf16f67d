//! Stateful reductions from DyND's four pieces: init, step, combine, finish.

use super::*;

/// A reduction carried by a state, from DyND's four pieces: `init` a
/// state, `step` it with each element, `combine` two states (so chunks can
/// run apart and join), `finish` the state into the result.
pub trait Accumulator<T>: Send + Sync {
    /// The running state.
    type State: Copy + Send + Sync;
    /// The result element type.
    type Output: Element;
    /// The state of no elements.
    fn init(&self) -> Self::State;
    /// The state after one more element.
    fn step(&self, s: Self::State, x: T) -> Self::State;
    /// The state of two runs one after the other.
    fn combine(&self, a: Self::State, b: Self::State) -> Self::State;
    /// The result.
    fn finish(&self, s: Self::State) -> Self::Output;
}

/// Compensated summation (Neumaier's variant of Kahan's): a running sum
/// and the rounding error it lost, so the result is as if summed in twice
/// the precision, even when large terms cancel.
#[derive(Clone, Copy, Debug, Default)]
pub struct KahanSum;

impl Accumulator<f64> for KahanSum {
    type State = (f64, f64);
    type Output = f64;

    fn init(&self) -> (f64, f64) {
        (0.0, 0.0)
    }

    fn step(&self, (s, c): (f64, f64), x: f64) -> (f64, f64) {
        let t = s + x;
        // Past an overflow or an infinite (or NaN) term the sum is what
        // plain addition gives: no rounding error to recover, and
        // `inf - inf` would make one up (NaN).
        if !t.is_finite() {
            return (t, c);
        }
        let lost = if s.abs() >= x.abs() {
            (s - t) + x
        } else {
            (x - t) + s
        };
        (t, c + lost)
    }

    fn combine(&self, a: (f64, f64), b: (f64, f64)) -> (f64, f64) {
        let (t, c) = self.step(a, b.0);
        (t, c + b.1)
    }

    fn finish(&self, (s, c): (f64, f64)) -> f64 {
        if s.is_finite() {
            s + c
        } else {
            s
        }
    }
}

/// Reduces `a` over `axes` (all by default) with the stateful `acc`: each
/// result element steps through its elements in order; a long contiguous
/// run is split into fixed chunks, stepped apart (in parallel) and
/// combined in order, so the result does not depend on threads.
///
/// ```
/// use dynd::func::{reduce_with, KahanSum};
/// use dynd::nd::array;
///
/// // A running sum loses both 1s to the 1e100 terms; compensation keeps them.
/// let a = array![1.0, 1e100, 1.0, -1e100];
/// assert_eq!(a.to_vec::<f64>()?.iter().sum::<f64>(), 0.0);
/// assert_eq!(reduce_with(&a, None, false, &KahanSum, "kahan_sum")?.to_string(), "2");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// As [`reduce`] for the data type and axes; [`Error::Unsupported`] for
/// `var` dimensions.
pub fn reduce_with<T: Element, A: Accumulator<T>>(
    a: &Array,
    axes: Option<&[i64]>,
    keepdims: bool,
    acc: &A,
    name: &str,
) -> Result<Array, Error> {
    check_dtype::<T>(a, name, "reduction")?;
    if a.ty().has_var_dim() {
        return Err(Error::Unsupported {
            operation: "a stateful reduction of a var dimension",
            ty: a.ty().clone(),
        });
    }
    let ndim = a.ndim();
    let axes = normalize_axes(axes, ndim, name)?;
    let shape: Vec<usize> = a.ty().fixed_shape().unwrap_or_default();
    let dims: Vec<(usize, isize)> = shape.iter().copied().zip(a.strides()).collect();
    let kept: Vec<(usize, isize)> = (0..ndim)
        .filter(|k| !axes.contains(k))
        .map(|k| dims[k])
        .collect();
    let red_dims: Vec<(usize, isize)> = axes.iter().map(|&k| dims[k]).collect();
    let out_dims: Vec<Dim> = (0..ndim)
        .filter_map(|k| match (axes.contains(&k), keepdims) {
            (false, _) => Some(Dim::Fixed(shape[k])),
            (true, true) => Some(Dim::Fixed(1)),
            (true, false) => None,
        })
        .collect();
    let mut out = Array::zeros(&Type::with_dims(out_dims, A::Output::SCALAR.into())?)?;
    let out_slice = fresh_elements::<A::Output>(&mut out);
    let elems = Elems::of(a);
    let size = std::mem::size_of::<T>() as isize;
    let n: usize = shape.iter().product();
    let whole = (kept.is_empty() && a.is_c_contiguous())
        .then(|| elems.line::<T>(0, n, size)?.as_slice())
        .flatten();
    if let Some(xs) = whole {
        let run = |c: &[T]| c.iter().fold(acc.init(), |s, &x| acc.step(s, x));
        let parts: Vec<A::State> = if n >= PARALLEL_RUN && crate::par::threads() > 1 {
            let chunk = |i: usize| run(&xs[i * CHUNK..((i + 1) * CHUNK).min(xs.len())]);
            crate::par::map(xs.len().div_ceil(CHUNK), &chunk)
        } else {
            xs.chunks(CHUNK).map(run).collect()
        };
        let s = parts.into_iter().fold(acc.init(), |a, b| acc.combine(a, b));
        if let Some(o) = out_slice.first_mut() {
            *o = acc.finish(s);
        }
        return Ok(out);
    }
    let mut red_offsets = Vec::new();
    dynd_array::offsets::for_each_offset(&red_dims, |o| red_offsets.push(o));
    let mut kept_offsets = Vec::new();
    dynd_array::offsets::for_each_offset(&kept, |o| kept_offsets.push(o));
    for (o, &ko) in out_slice.iter_mut().zip(&kept_offsets) {
        let mut s = acc.init();
        for &ro in &red_offsets {
            let x = element::<T>(&elems, ko + ro, name)?;
            s = acc.step(s, x);
        }
        *o = acc.finish(s);
    }
    Ok(out)
}
