use dynd::elemental;

#[elemental]
fn mix(a: f64, b: f64, c: f64, d: f64) -> f64 {
    a + b + c + d
}

fn main() {}
