// `??T` is not a type.
fn main() {
    let _t = dynd::datashape!("var * ??int32");
}
