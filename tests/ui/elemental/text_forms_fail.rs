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

/// Nor `Option` around text.
#[elemental]
fn maybe(s: Option<&str>) -> i64 {
    s.map_or(0, |s| s.len() as i64)
}

fn main() {}
