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

/// Nor a fallible fn over text.
#[elemental]
fn parsed(s: &str) -> Result<i64, String> {
    s.parse::<i64>().map_err(|e| e.to_string())
}

/// Nor more than three strings.
#[elemental]
fn four(a: &str, b: &str, c: &str, d: &str) -> String {
    [a, b, c, d].concat()
}

fn main() {}
