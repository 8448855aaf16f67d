use dynd::elemental;

#[elemental(signature = "(float64) -> float64")]
fn or_zero(x: Option<f64>) -> f64 {
    x.unwrap_or(0.0)
}

fn main() {}
