use dynd::nd::{Complex, F16};
use dynd::prelude::*;

#[elemental]
fn rotate(z: Complex<f64>) -> Complex<f64> {
    Complex { re: -z.im, im: z.re }
}

#[elemental]
fn half(x: F16) -> F16 {
    F16::from_f64(x.to_f64() / 2.0)
}

#[elemental]
fn both(a: bool, b: bool) -> bool {
    a && b
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(rotate::SIGNATURE, "(complex[float64]) -> complex[float64]");
    let z = rotate::call(Complex { re: 1.0, im: 2.0 })?;
    assert_eq!(z.get::<Complex<f64>>(&[])?, Complex { re: -2.0, im: 1.0 });
    assert_eq!(half::SIGNATURE, "(float16) -> float16");
    assert_eq!(half::call(F16::from_f64(3.0))?.to_string(), "1.5");
    assert_eq!(both::call(vec![true, true], vec![false, true])?.to_string(), "[false, true]");
    Ok(())
}
