// The macro takes a string literal.
fn main() {
    let _t = dynd::datashape!(3 * int32);
}
