//! A downstream crate: it depends on `dynd` alone (no inner crate), as a
//! user's crate would, and defines twenty-one `#[elemental]` fns covering every
//! form. Its tests call each one on arrays; the root README's build-cost
//! figures were measured on this crate. The README's examples are its
//! doctests: they compile against `dynd` (and, with the `ndarray` feature,
//! `ndarray = "0.17"` as `cargo add` gives it) and nothing else.

/// The README's examples, compiled and run as this crate's doctests.
#[cfg(doctest)]
#[doc = include_str!("../../../README.md")]
pub struct ReadmeExamples;

use dynd::nd::{Complex, F16};
use dynd::prelude::*;

/// Scalars by value.
#[elemental]
pub fn hypot(x: f64, y: f64) -> f64 {
    (x * x + y * y).sqrt()
}

/// Integers.
#[elemental]
pub fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Three arguments.
#[elemental]
pub fn lerp(a: f32, b: f32, t: f32) -> f32 {
    a + (b - a) * t
}

/// Booleans.
#[elemental]
pub fn implies(a: bool, b: bool) -> bool {
    !a || b
}

/// A generic fn over listed types: one overload each.
#[elemental(T = [i32, i64, f32, f64])]
pub fn square<T: Copy + std::ops::Mul<Output = T>>(x: T) -> T {
    x * x
}

/// Two generic parameters: every pairing.
#[elemental(T = [f32, f64], U = [i32, i64])]
pub fn scale<T: Copy + std::ops::Mul<Output = T> + From<i16>, U: Copy + TryInto<i16>>(
    x: T,
    k: U,
) -> T {
    x * T::from(k.try_into().unwrap_or(0))
}

/// Slices: a core dimension shared by both arguments.
#[elemental]
pub fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// A slice with its own size, from an explicit signature.
#[elemental(signature = "(M * float64, N * float64) -> float64")]
pub fn overlap(a: &[f64], b: &[f64]) -> f64 {
    let hi = |v: &[f64]| v.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let lo = |v: &[f64]| v.iter().copied().fold(f64::INFINITY, f64::min);
    (hi(a).min(hi(b)) - lo(a).max(lo(b))).max(0.0)
}

/// Fixed-size cores in and out.
#[elemental]
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// A result core written in place.
#[elemental]
pub fn cumulative(x: &[i64], out: &mut [i64]) {
    let mut acc = 0;
    for (o, v) in out.iter_mut().zip(x) {
        acc += v;
        *o = acc;
    }
}

/// A norm over a slice.
#[elemental]
pub fn norm(x: &[f32]) -> f32 {
    x.iter().map(|v| v * v).sum::<f32>().sqrt()
}

/// Keyword arguments, one with a default.
#[elemental]
pub fn soft_clip(x: f64, #[kw] limit: f64, #[kw(default = 1.0)] sharpness: f64) -> f64 {
    limit * (x * sharpness / limit).tanh()
}

/// A keyword with a default only.
#[elemental]
pub fn round_to(x: f64, #[kw(default = 2)] digits: i32) -> f64 {
    let p = 10f64.powi(digits);
    (x * p).round() / p
}

/// A fallible fn: an error names the element.
#[elemental]
pub fn checked_div(a: i64, b: i64) -> Result<i64, String> {
    a.checked_div(b).ok_or_else(|| format!("{a} / {b}"))
}

/// Strict broadcasting.
#[elemental(strict)]
pub fn strict_add(a: f64, b: f64) -> f64 {
    a + b
}

/// An associative operation with an identity: it reduces.
#[elemental(reduce(identity = 0))]
pub fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

/// An associative operation without an identity.
#[elemental(reduce)]
pub fn larger(a: f64, b: f64) -> f64 {
    a.max(b)
}

/// Boolean reduction with identity `true`.
#[elemental(reduce(identity = true))]
pub fn both(a: bool, b: bool) -> bool {
    a && b
}

/// Complex numbers.
#[elemental]
pub fn rotate(z: Complex<f64>) -> Complex<f64> {
    Complex {
        re: -z.im,
        im: z.re,
    }
}

/// `Option` parameters see NA; an `Option` result makes it.
#[elemental]
pub fn or_else(x: Option<f64>, fallback: f64) -> Option<f64> {
    x.or((fallback >= 0.0).then_some(fallback))
}

/// Half precision.
#[elemental]
pub fn halve(x: F16) -> F16 {
    F16::from_f64(x.to_f64() / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    type R = Result<(), Box<dyn std::error::Error>>;

    fn s(a: Result<Array, dynd::Error>) -> String {
        match a {
            Ok(a) => format!("{a} : {}", a.ty()),
            Err(e) => format!("error: {e}"),
        }
    }

    #[test]
    fn scalar_forms() {
        assert_eq!(
            s(hypot::call(vec![vec![3.0], vec![5.0, 8.0]], 4.0)),
            "[[5], [6.4031242374328485, 8.94427190999916]] : 2 * var * float64"
        );
        assert_eq!(s(gcd::call(vec![12u64, 18], 8u64)), "[4, 2] : 2 * uint64");
        assert_eq!(
            s(lerp::call(0.0f32, 10.0f32, vec![0.25f32, 0.5])),
            "[2.5, 5] : 2 * float32"
        );
        assert_eq!(
            s(implies::call(vec![true, false], true)),
            "[true, true] : 2 * bool"
        );
        assert_eq!(
            s(rotate::call(Complex { re: 1.0, im: 0.0 })),
            "[-0.0, 1] : complex[float64]"
        );
        assert_eq!(
            s(halve::call(vec![F16::from_f64(3.0)])),
            "[1.5] : 1 * float16"
        );
    }

    #[test]
    fn generic_forms() {
        assert_eq!(square::SIGNATURES.len(), 4);
        assert_eq!(s(square::call(vec![3i32])), "[9] : 1 * int32");
        assert_eq!(s(square::call(vec![1.5f32])), "[2.25] : 1 * float32");
        assert_eq!(scale::SIGNATURES.len(), 4);
        assert_eq!(s(scale::call(2.5f64, 2i32)), "5 : float64");
    }

    #[test]
    fn core_forms() {
        assert_eq!(
            s(dot::call(
                vec![vec![1.0, 2.0], vec![3.0, 4.0]],
                vec![1.0, 1.0]
            )),
            "[3, 7] : 2 * float64"
        );
        assert!(s(dot::call(vec![1.0, 2.0, 3.0], vec![1.0])).starts_with("error"));
        assert_eq!(
            s(overlap::call(vec![0.0, 5.0], vec![3.0, 4.0, 9.0])),
            "2 : float64"
        );
        assert_eq!(
            s(cross::call(vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0])),
            "[0, 0, 1] : 3 * float64"
        );
        assert_eq!(
            s(cumulative::call(vec![vec![1i64, 2, 3], vec![4, 5, 6]])),
            "[[1, 3, 6], [4, 9, 15]] : 2 * 3 * int64"
        );
        assert_eq!(s(norm::call(vec![3.0f32, 4.0])), "5 : float32");
    }

    #[test]
    fn keyword_fallible_and_strict_forms() -> R {
        assert_eq!(
            s(soft_clip::call(vec![0.0, 100.0], 2.0, 1.0)),
            "[0, 2] : 2 * float64"
        );
        let two = Array::from_scalar(2.0);
        let r = soft_clip::callable().call_kw(&[&nd::array![100.0]], &[("limit", &two)])?;
        assert_eq!(r.to_string(), "[2]");
        let r = round_to::callable().call(&[&nd::array![1.23456]])?;
        assert_eq!(r.to_string(), "[1.23]");
        assert_eq!(s(round_to::call(1.23456, 3)), "1.235 : float64");
        assert_eq!(
            s(checked_div::call(vec![6i64, 7], vec![3i64, 0])),
            "error: 7 / 0, at index [1]"
        );
        assert_eq!(s(strict_add::call(vec![1.0], 1.0)), "[2] : 1 * float64");
        assert!(s(strict_add::call(vec![vec![1.0, 2.0]], vec![1.0, 2.0])).starts_with("error"));
        Ok(())
    }

    #[test]
    fn option_forms() -> R {
        assert_eq!(or_else::SIGNATURE, "(?float64, float64) -> ?float64");
        let xs = Array::from_json("[1.5, null, null]", Some(&"3 * ?float64".parse()?))?;
        assert_eq!(
            s(or_else::call(&xs, vec![0.0, 2.0, -1.0])),
            "[1.5, 2, null] : 3 * ?float64"
        );
        Ok(())
    }

    #[test]
    fn reductions() {
        let m = vec![vec![1i64, 2, 3], vec![4, 5, 6]];
        assert_eq!(s(add::reduce(m.clone(), None, false)), "21 : int64");
        assert_eq!(
            s(add::reduce(m, Some(&[0]), true)),
            "[[5, 7, 9]] : 1 * 3 * int64"
        );
        assert_eq!(
            s(larger::reduce(vec![1.5, 7.25, -2.0], None, false)),
            "7.25 : float64"
        );
        assert_eq!(
            s(both::reduce(vec![true, false], None, false)),
            "false : bool"
        );
        assert_eq!(
            s(both::reduce(Vec::<bool>::new(), None, false)),
            "true : bool"
        );
    }
}
