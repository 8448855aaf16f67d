use dynd::prelude::*;

/// Eight positional parameters and two keywords: ten inputs to one leaf.
#[elemental]
fn poly7(
    x: f64, c1: f64, c2: f64, c3: f64, c4: f64, c5: f64, c6: f64, c7: f64,
    #[kw] scale: f64,
    #[kw(default = 0.0)] shift: f64,
) -> f64 {
    scale * (((((((c7 * x + c6) * x + c5) * x + c4) * x + c3) * x + c2) * x + c1) * x) + shift
}

/// Sixteen parameters, the most the macro takes.
#[elemental]
fn sum16(
    a: i32, b: i32, c: i32, d: i32, e: i32, f: i32, g: i32, h: i32,
    i: i32, j: i32, k: i32, l: i32, m: i32, n: i32, o: i32, p: i32,
) -> i64 {
    [a, b, c, d, e, f, g, h, i, j, k, l, m, n, o, p].iter().map(|&v| i64::from(v)).sum()
}

/// Five parameters over listed types, fallible.
#[elemental(T = [f32, f64])]
fn checked_lerp5<T: Copy + PartialOrd + std::ops::Add<Output = T> + std::ops::Mul<Output = T> + std::ops::Sub<Output = T>>(
    a: T, b: T, t: T, lo: T, hi: T,
) -> Result<T, String> {
    if t < lo || t > hi {
        return Err("t is out of range".into());
    }
    Ok(a + (b - a) * t)
}

/// Five parameters with options: NA reaches the fn.
#[elemental]
fn first_present(a: Option<f64>, b: Option<f64>, c: Option<f64>, d: Option<f64>, e: Option<f64>) -> Option<f64> {
    a.or(b).or(c).or(d).or(e)
}

/// Four slices (core dimensions) and a result core.
#[elemental]
fn weighted4(a: &[f64], b: &[f64], c: &[f64], w: &[f64], out: &mut [f64]) {
    for (k, o) in out.iter_mut().enumerate() {
        *o = w[k] * (a[k] + b[k] + c[k]);
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(
        poly7::SIGNATURE,
        "(float64, float64, float64, float64, float64, float64, float64, float64, scale: float64, shift: float64) -> float64"
    );
    let r = poly7::call(vec![vec![1.0, 2.0], vec![0.5]], 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.5)?;
    assert_eq!(r.to_string(), "[[2.5, 4.5], [1.5]]");
    let c = poly7::callable();
    let one = Array::from_scalar(1.0);
    let args = [&nd::array![1.0, 2.0], &one, &one, &one, &one, &one, &one, &one];
    let r = c.call_kw(&args, &[("scale", &one)])?;
    assert_eq!(r.to_string(), "[7, 254]");

    let r = sum16::call(
        vec![1, 2], 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, vec![100, 200],
    )?;
    assert_eq!(r.to_string(), "[115, 216]");
    assert_eq!(r.ty().to_string(), "2 * int64");

    let r = checked_lerp5::call(vec![0.0f32, 10.0], 20.0f32, 0.5f32, 0.0f32, 1.0f32)?;
    assert_eq!(r.to_string(), "[10, 15]");
    let err = checked_lerp5::call(vec![0.0, 0.0], 1.0, vec![0.5, 2.0], 0.0, 1.0).unwrap_err();
    assert!(err.to_string().contains("t is out of range, at index [1]"), "{err}");

    let t = "3 * ?float64".parse()?;
    let na = Array::from_json("[null, null, 3]", Some(&t))?;
    let r = first_present::callable().call(&[&na, &na, &na, &Array::from_json("[null, 4, 5]", Some(&t))?, &na])?;
    assert_eq!(r.to_string(), "[null, 4, 3]");

    let r = weighted4::call(
        vec![vec![1.0, 2.0], vec![3.0, 4.0]], vec![1.0, 1.0], vec![0.0, 1.0], vec![2.0, 0.5],
    )?;
    assert_eq!(r.to_string(), "[[4, 2], [8, 3]]");
    Ok(())
}
