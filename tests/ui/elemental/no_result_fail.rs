use dynd::elemental;

#[elemental]
fn log(x: f64) {
    let _ = x;
}

fn main() {}
