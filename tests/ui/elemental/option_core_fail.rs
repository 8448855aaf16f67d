use dynd::elemental;

#[elemental]
fn first(a: &[f64]) -> Option<f64> {
    a.first().copied()
}

fn main() {}
