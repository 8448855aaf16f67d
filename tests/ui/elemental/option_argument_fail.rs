use dynd::elemental;

#[elemental]
fn or_zero(x: Option<f64>) -> f64 {
    x.unwrap_or(0.0)
}

fn main() {}
