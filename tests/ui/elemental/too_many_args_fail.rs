use dynd::elemental;

// Seventeen parameters: one more than the macro takes.
#[elemental]
fn mix(
    a: f64, b: f64, c: f64, d: f64, e: f64, f: f64, g: f64, h: f64,
    i: f64, j: f64, k: f64, l: f64, m: f64, n: f64, o: f64, p: f64, q: f64,
) -> f64 {
    a + b + c + d + e + f + g + h + i + j + k + l + m + n + o + p + q
}

fn main() {}
