use dynd::elemental;

#[elemental(signature = "(float64, flaot64) -> float64")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
