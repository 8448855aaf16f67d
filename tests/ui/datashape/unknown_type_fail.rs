// A misspelt type name: the error names it, suggests the right one, and
// points at the literal with the parser's caret.
fn main() {
    let _t = dynd::datashape!("3 * var * flaot64");
}
