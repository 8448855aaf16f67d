use dynd::elemental;

#[elemental]
fn first((a, _b): (f64, f64)) -> f64 {
    a
}

fn main() {}
