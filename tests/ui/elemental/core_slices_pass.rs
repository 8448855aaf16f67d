use dynd::prelude::*;

#[elemental]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

// Different sizes, from an explicit signature.
#[elemental(signature = "(M * float64, N * float64) -> float64")]
fn spread(a: &[f64], b: &[f64]) -> f64 {
    a.iter().chain(b).fold(f64::NEG_INFINITY, |m, x| m.max(*x))
        - a.iter().chain(b).fold(f64::INFINITY, |m, x| m.min(*x))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(dot::SIGNATURE, "(N * float64, N * float64) -> float64");
    assert_eq!(dot(&[1.0, 2.0], &[3.0, 4.0]), 11.0);
    // Leading dimensions broadcast; the last one is the core.
    let r = dot::call(vec![vec![1.0, 2.0], vec![3.0, 4.0]], vec![1.0, 1.0])?;
    assert_eq!((r.to_string(), r.ty().to_string()), ("[3, 7]".into(), "2 * float64".into()));
    let err = dot::call(vec![1.0, 2.0, 3.0], vec![1.0, 2.0]).unwrap_err();
    assert!(err.to_string().contains('N'), "{err}");
    assert_eq!(spread::call(vec![1.0, 5.0, 2.0], vec![0.5])?.to_string(), "4.5");
    Ok(())
}
