use dynd::elemental;

#[elemental]
fn apply(x: f64, f: &dyn Fn(f64) -> f64) -> f64 {
    f(x)
}

#[elemental]
fn convert(x: impl Into<f64>) -> f64 {
    x.into()
}

fn main() {}
