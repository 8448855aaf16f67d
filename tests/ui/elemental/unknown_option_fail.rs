use dynd::elemental;

#[elemental(fast, inline = true)]
fn add(a: f64, b: f64) -> f64 {
    a + b
}

fn main() {}
