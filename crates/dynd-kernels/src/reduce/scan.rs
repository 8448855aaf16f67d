//! Scans: the running fold along one axis.

use super::*;

/// Scans `a` along one axis with `f` (NumPy's `ufunc.accumulate`): the
/// result has `a`'s shape, and element `i` along the axis combines
/// elements `0..=i` in order.
///
/// ```
/// use dynd_kernels::reduce::accumulate;
/// use dynd::nd::array;
///
/// let a = array![[1, 2, 3], [4, 5, 6]];
/// assert_eq!(accumulate(&a, 1, |x: i64, y: i64| x + y, "cumsum")?.to_string(), "[[1, 3, 6], [4, 9, 15]]");
/// assert_eq!(accumulate(&a, -2, |x: i64, y: i64| x * y, "cumprod")?.to_string(), "[[1, 2, 3], [4, 10, 18]]");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// On fixed dimensions around an innermost `var` one, the scan runs along
/// each ragged row (the `var` axis), giving rows of the same lengths.
///
/// # Errors
///
/// As [`reduce`] for the data type and the axis; [`Error::Unsupported`]
/// for a scan along a fixed axis of an array with a `var` dimension, and
/// for other `var` layouts.
pub fn accumulate<T: Element, F: Fn(T, T) -> T>(
    a: &Array,
    axis: i64,
    f: F,
    name: &str,
) -> Result<Array, Error> {
    check_dtype::<T>(a, name, "scan")?;
    let ndim = a.ndim();
    let axis = normalize_axes(Some(&[axis]), ndim, name)?[0];
    if a.ty().has_var_dim() {
        return ragged::accumulate_rows(a, axis, f, name);
    }
    let shape: Vec<usize> = a.ty().fixed_shape().unwrap_or_default();
    let dims: Vec<(usize, isize)> = shape.iter().copied().zip(a.strides()).collect();
    let mut out = Array::zeros(&Type::with_dims(
        shape.iter().map(|n| Dim::Fixed(*n)),
        T::SCALAR.into(),
    )?)?;
    let out_slice = fresh_elements::<T>(&mut out);
    // The result's C-order strides, in elements.
    let mut out_strides = vec![1usize; ndim];
    for k in (0..ndim.saturating_sub(1)).rev() {
        out_strides[k] = out_strides[k + 1] * shape[k + 1];
    }
    let others: Vec<(usize, isize)> = (0..ndim).filter(|k| *k != axis).map(|k| dims[k]).collect();
    let others_out: Vec<(usize, isize)> = (0..ndim)
        .filter(|k| *k != axis)
        .map(|k| (shape[k], out_strides[k] as isize))
        .collect();
    let mut src_lines = Vec::new();
    dynd_array::offsets::for_each_offset(&others, |o| src_lines.push(o));
    let mut out_lines = Vec::new();
    dynd_array::offsets::for_each_offset(&others_out, |o| out_lines.push(o));
    let (len, stride) = dims[axis];
    let ostep = out_strides[axis];
    let elems = Elems::of(a);
    for (&so, &oo) in src_lines.iter().zip(&out_lines) {
        let line = line::<T>(&elems, so, (len, stride), name)?;
        let mut acc: Option<T> = None;
        for (i, x) in line.iter().enumerate() {
            let v = acc.map_or(x, |p| f(p, x));
            out_slice[oo as usize + i * ostep] = v;
            acc = Some(v);
        }
    }
    Ok(out)
}
