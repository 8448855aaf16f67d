use dynd::elemental;

#[elemental]
fn total(a: &[f64]) -> Result<f64, String> {
    Ok(a.iter().sum())
}

fn main() {}
