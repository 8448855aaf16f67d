use dynd::elemental;

#[elemental]
fn pick<'a>(x: f64, y: f64) -> f64 {
    x.max(y)
}

fn main() {}
