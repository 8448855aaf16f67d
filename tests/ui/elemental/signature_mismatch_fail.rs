use dynd::elemental;

#[elemental(signature = "(float32, N * float64) -> float64")]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

#[elemental(signature = "(N * float64) -> float64")]
fn total(a: [f64; 3]) -> f64 {
    a.iter().sum()
}

fn main() {}
