use dynd::elemental;

#[elemental]
fn first(a: &[f64]) -> Option<f64> {
    a.first().copied()
}

#[elemental]
fn checked(a: Option<i64>) -> Result<i64, String> {
    a.ok_or_else(|| "NA".to_string())
}

fn main() {}
