use dynd::elemental;

#[elemental]
fn scale(x: &f64, k: f64) -> f64 {
    x * k
}

fn main() {}
