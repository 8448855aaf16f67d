//! NumPy's elementwise ufuncs, family by family, against the values NumPy
//! 2.x gives (its documented semantics, which for the float functions are
//! C99's Annex F and G): signed zeros, infinities, NaN, subnormals,
//! integer limits, empty arrays, ragged rows with empty rows, and NA.
//! Every expectation is literal data here; no Python runs.

mod bitwise;
mod floating;
mod rounding;
mod transcendental;

use dynd_arrfunc::builtins;
use dynd_kernels::{Array, Element};
use dynd_types::Type;

/// `json` as an array of type `ty`.
pub(crate) fn arr(json: &str, ty: &str) -> Array {
    Array::from_json(json, Some(&ty.parse::<Type>().unwrap())).unwrap()
}

/// The builtin `name` on `args`, printed with its type.
pub(crate) fn show(name: &str, args: &[&Array]) -> String {
    match builtins::get(name).unwrap().call(args) {
        Ok(a) => format!("{a} : {}", a.ty()),
        Err(e) => format!("error: {e}"),
    }
}

/// The builtin `name` of one array of `T`, as a `Vec<R>`.
pub(crate) fn map1<T: Element, R: Element>(name: &str, x: &[T]) -> Vec<R> {
    let a = Array::from_vec(x.to_vec());
    let r = builtins::get(name).unwrap().call(&[&a]).unwrap();
    r.to_vec::<R>()
        .unwrap_or_else(|e| panic!("{name}: {e} ({})", r.ty()))
}

/// The builtin `name` of two arrays of `T`, as a `Vec<R>`.
pub(crate) fn map2<T: Element, U: Element, R: Element>(name: &str, x: &[T], y: &[U]) -> Vec<R> {
    let (a, b) = (Array::from_vec(x.to_vec()), Array::from_vec(y.to_vec()));
    let r = builtins::get(name).unwrap().call(&[&a, &b]).unwrap();
    r.to_vec::<R>()
        .unwrap_or_else(|e| panic!("{name}: {e} ({})", r.ty()))
}

/// Floats equal to the bit, but any NaN equals any NaN.
pub(crate) trait Same: Copy + std::fmt::Debug {
    /// Whether `self` and `o` are the same value.
    fn same(self, o: Self) -> bool;
}
impl Same for f64 {
    fn same(self, o: f64) -> bool {
        (self.is_nan() && o.is_nan()) || self.to_bits() == o.to_bits()
    }
}
impl Same for f32 {
    fn same(self, o: f32) -> bool {
        (self.is_nan() && o.is_nan()) || self.to_bits() == o.to_bits()
    }
}

/// `got` equals `want` element by element ([`Same`]), or a message naming
/// the first difference.
#[track_caller]
pub(crate) fn check<T: Same>(what: &str, got: &[T], want: &[T]) {
    assert_eq!(got.len(), want.len(), "{what}: {got:?} vs {want:?}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.same(*w),
            "{what}[{i}]: got {g:?}, want {w:?} (all: {got:?})"
        );
    }
}

/// `got` within `ulps` units in the last place of `want` (the same NaN,
/// infinities and signed zeros exactly).
#[track_caller]
pub(crate) fn close(what: &str, got: &[f64], want: &[f64], ulps: u64) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        let ok = if w.is_finite() && *w != 0.0 {
            g.is_finite() && g.signum() == w.signum() && g.to_bits().abs_diff(w.to_bits()) <= ulps
        } else {
            g.same(*w)
        };
        assert!(ok, "{what}[{i}]: got {g:?}, want {w:?} within {ulps} ulp");
    }
}
