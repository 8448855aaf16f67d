use dynd::elemental;

/// A text parameter is `&str`, not `String`.
#[elemental]
fn owned(s: String) -> i64 {
    s.len() as i64
}

/// Text and numbers together are not supported yet.
#[elemental]
fn repeat(s: &str, n: i64) -> String {
    s.repeat(n as usize)
}

/// Nor a keyword with text.
#[elemental]
fn padded(s: &str, #[kw(default = 4)] width: i64) -> String {
    format!("{s:>width$}", width = width as usize)
}

/// Nor more than three strings.
#[elemental]
fn four(a: &str, b: &str, c: &str, d: &str) -> String {
    [a, b, c, d].concat()
}

fn main() {}
