use dynd::elemental;

// Three problems, reported together; `main` still finds `area`.
#[elemental(sparkle)]
fn area(w: &f64, h: Vec<f64>) -> String {
    format!("{}", w * h[0])
}

fn main() {
    let _ = area(&1.0, vec![2.0]);
}
