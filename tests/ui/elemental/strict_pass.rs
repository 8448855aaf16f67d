use dynd::prelude::*;

#[elemental(strict)]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A 0-d argument extends; other size mismatches are errors.
    assert_eq!(add::call(vec![1.0, 2.0], 1.0)?.to_string(), "[2, 3]");
    assert!(add::call(vec![vec![1.0, 2.0]], vec![1.0, 2.0]).is_err());
    Ok(())
}
