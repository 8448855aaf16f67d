use dynd::elemental;

#[elemental]
fn clamp(#[kw] lo: f64, x: f64) -> f64 {
    x.max(lo)
}

fn main() {}
