use dynd::elemental;

#[elemental]
fn total<const N: usize>(a: [f64; N]) -> f64 {
    a.iter().sum()
}

fn main() {}
