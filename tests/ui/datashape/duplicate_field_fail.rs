// Struct field names are unique; a multi-line literal reports line and column.
fn main() {
    let _t = dynd::datashape!("{
        x: int32,
        x: float64
    }");
}
