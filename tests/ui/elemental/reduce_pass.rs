use dynd::prelude::*;

#[elemental(reduce(identity = 0))]
fn add(a: i64, b: i64) -> i64 {
    a.wrapping_add(b)
}

#[elemental(reduce)]
fn larger(a: f64, b: f64) -> f64 {
    a.max(b)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let m = vec![vec![1i64, 2, 3], vec![4, 5, 6]];
    assert_eq!(add::reduce(m.clone(), None, false)?.to_string(), "21");
    assert_eq!(add::reduce(m.clone(), Some(&[0]), false)?.to_string(), "[5, 7, 9]");
    let k = add::reduce(m, Some(&[-1]), true)?;
    assert_eq!((k.to_string(), k.ty().to_string()), ("[[6], [15]]".into(), "2 * 1 * int64".into()));
    assert_eq!(add::reduce(Vec::<i64>::new(), None, false)?.to_string(), "0");
    assert_eq!(larger::reduce(vec![1.5, -2.0, 7.25], None, false)?.to_string(), "7.25");
    let err = larger::reduce(Vec::<f64>::new(), None, false).unwrap_err();
    assert!(err.to_string().contains("pass `initial`"), "{err}");
    // The scan beside the reduction, ragged rows included.
    assert_eq!(add::accumulate(vec![vec![1i64, 2], vec![3, 4, 5]], 1)?.to_string(), "[[1, 3], [3, 7, 12]]");
    assert_eq!(larger::accumulate(vec![1.5, -2.0, 7.25], -1)?.to_string(), "[1.5, 1.5, 7.25]");
    let err = larger::accumulate(vec![1.5], 1).unwrap_err();
    assert!(err.to_string().contains("axis 1 is out of bounds"), "{err}");
    // The callable reduces and scans too (`larger.reduce`, `larger.accumulate`).
    assert_eq!(larger::callable().reduce()?.name(), "larger.reduce");
    assert_eq!(larger::callable().accumulate()?.name(), "larger.accumulate");
    Ok(())
}
