//! A Rust author's own Python extension: plain scalar fns, `#[elemental]`
//! on each, and one `dynd_python::ufunc!` line per fn in the module.
//!
//! ```text
//! pip install ./crates/dynd-python/examples/python-ufunc
//! python -c "import numpy as np, dynd_ufunc_example as g; print(g.haversine([0, 0], [0, 90]))"
//! ```

use pyo3::prelude::*;

/// The great-circle distance in kilometres between two points given as
/// latitude and longitude in degrees (the haversine formula): a
/// generalized ufunc `(2),(2)->()`.
#[dynd::elemental]
fn haversine(a: [f64; 2], b: [f64; 2]) -> f64 {
    const EARTH_RADIUS_KM: f64 = 6371.0;
    let (lat1, lat2) = (a[0].to_radians(), b[0].to_radians());
    let dlat = lat2 - lat1;
    let dlon = (b[1] - a[1]).to_radians();
    let h = (dlat / 2.0).sin().powi(2) + lat1.cos() * lat2.cos() * (dlon / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_KM * h.sqrt().asin()
}

/// `|x - y| / max(|x|, |y|)`, 0 where both are 0: an elementwise ufunc
/// with a `float64` and a `float32` loop.
#[dynd::elemental(T = [f32, f64])]
fn rel_diff<T>(x: T, y: T) -> T
where
    T: Copy + Default + PartialOrd + std::ops::Sub<Output = T> + std::ops::Div<Output = T>,
{
    let zero = T::default();
    let abs = |v: T| if v < zero { zero - v } else { v };
    let scale = if abs(x) > abs(y) { abs(x) } else { abs(y) };
    if scale == zero {
        zero
    } else {
        abs(x - y) / scale
    }
}

/// The dot product of two rows: a generalized ufunc `(n),(n)->()`.
#[dynd::elemental]
fn row_dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// The larger of two integers: a binary ufunc whose inputs and output
/// share a type, so NumPy's `reduce` and `accumulate` take it.
#[dynd::elemental]
fn bigger(x: i64, y: i64) -> i64 {
    x.max(y)
}

/// The module: each fn as a NumPy ufunc that dynd arrays run through too.
#[pymodule]
fn dynd_ufunc_example(m: &Bound<'_, PyModule>) -> PyResult<()> {
    dynd_python::ufunc!(m, haversine)?;
    dynd_python::ufunc!(m, rel_diff)?;
    dynd_python::ufunc!(m, row_dot)?;
    dynd_python::ufunc!(m, bigger)?;
    Ok(())
}
