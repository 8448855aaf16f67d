use dynd::prelude::*;

#[elemental]
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[elemental]
fn centre(x: &[f64], out: &mut [f64]) {
    let mean = x.iter().sum::<f64>() / x.len().max(1) as f64;
    for (o, v) in out.iter_mut().zip(x) {
        *o = v - mean;
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(cross::SIGNATURE, "(3 * float64, 3 * float64) -> 3 * float64");
    let r = cross::call(vec![vec![1.0, 0.0, 0.0], vec![0.0, 1.0, 0.0]], vec![0.0, 0.0, 1.0])?;
    assert_eq!((r.to_string(), r.ty().to_string()), ("[[0, -1, 0], [1, 0, 0]]".into(), "2 * 3 * float64".into()));
    assert!(cross::call(vec![1.0, 2.0], vec![1.0, 2.0]).is_err());
    assert_eq!(centre::SIGNATURE, "(N * float64) -> N * float64");
    let c = centre::call(vec![vec![1.0, 2.0, 3.0], vec![4.0, 4.0, 7.0]])?;
    assert_eq!(c.to_string(), "[[-1, 0, 1], [-1, -1, 2]]");
    Ok(())
}
