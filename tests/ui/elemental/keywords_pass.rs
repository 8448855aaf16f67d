use dynd::prelude::*;

#[elemental]
fn soft_clip(x: f64, #[kw] limit: f64, #[kw(default = 1.0)] sharpness: f64) -> f64 {
    limit * (x * sharpness / limit).tanh()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(soft_clip::SIGNATURE, "(float64, limit: float64, sharpness: float64) -> float64");
    let r = soft_clip::call(vec![0.0, 100.0], 2.0, 1.0)?;
    assert_eq!(r.to_string(), "[0, 2]");
    // Through the callable, the default applies and keywords are checked.
    let c = soft_clip::callable();
    let two = Array::from_scalar(2.0);
    let r = c.call_kw(&[&nd::array![0.0, 100.0]], &[("limit", &two)])?;
    assert_eq!(r.to_string(), "[0, 2]");
    let err = c.call_kw(&[&nd::array![1.0]], &[("limt", &two)]).unwrap_err();
    assert!(err.to_string().contains("limt"), "{err}");
    Ok(())
}
