// Keyword arguments belong to callables: `->` is missing.
fn main() {
    let _t = dynd::datashape!("(float64, lo: float64)");
}
