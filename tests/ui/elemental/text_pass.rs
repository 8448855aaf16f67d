use dynd::prelude::*;

/// `&str` in, a number out: `(string) -> int64`.
#[elemental]
fn domain_len(url: &str) -> i64 {
    url.split('/').nth(2).map_or(0, |d| d.chars().count() as i64)
}

/// `&str` in, a new `String` out, written into the result's text.
#[elemental]
fn shout(s: &str) -> String {
    s.to_uppercase() + "!"
}

/// A part of the argument (`&str` borrowed from it).
#[elemental]
fn domain(url: &str) -> &str {
    url.split('/').nth(2).unwrap_or("")
}

/// Two strings in: a test, and a new string.
#[elemental]
fn same_initial(a: &str, b: &str) -> bool {
    a.chars().next() == b.chars().next()
}

#[elemental]
fn joined(a: &str, b: &str, c: &str) -> String {
    format!("{a}/{b}/{c}")
}

fn main() {
    assert_eq!(domain_len::SIGNATURE, "(string) -> int64");
    assert_eq!(shout::SIGNATURE, "(string) -> string");
    assert_eq!(domain::SIGNATURE, "(string) -> string");
    assert_eq!(same_initial::SIGNATURE, "(string, string) -> bool");
    let urls = nd::Array::from_json(
        r#"[["https://dynd.org/x", "http://日本.jp"], [], ["nope"]]"#,
        None,
    )
    .unwrap();
    assert_eq!(domain_len::call(&urls).unwrap().to_string(), "[[8, 5], [], [0]]");
    assert_eq!(
        domain::call(&urls).unwrap().to_string(),
        r#"[["dynd.org", "日本.jp"], [], [""]]"#
    );
    let r = shout::call(nd::array!["naïve", "ß"]).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        (r#"["NAÏVE!", "SS!"]"#.into(), "2 * string".into())
    );
    // A scalar string broadcast against ragged rows; NA propagates.
    let x = nd::Array::from_json(r#"[["apple", null], [], ["avocado"]]"#, Some(&"3 * var * ?string".parse().unwrap())).unwrap();
    assert_eq!(
        same_initial::call(&x, "a").unwrap().to_string(),
        "[[true, null], [], [true]]"
    );
    assert_eq!(
        joined::call(nd::array!["a", "b"], "x", nd::array!["1", "2"]).unwrap().to_string(),
        r#"["a/x/1", "b/x/2"]"#
    );
}
