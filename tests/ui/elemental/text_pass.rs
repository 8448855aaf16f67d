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

/// NA seen as `None`: `(?string) -> int64`.
#[elemental]
fn len_or_zero(s: Option<&str>) -> i64 {
    s.map_or(0, |s| s.chars().count() as i64)
}

/// A part of the argument or NA: `(string) -> ?string`, a view.
#[elemental]
fn host(url: &str) -> Option<&str> {
    url.split("//").nth(1)?.split('/').next()
}

/// An `Option` argument and result among plain ones.
#[elemental]
fn first_of(a: Option<&str>, b: &str) -> Option<String> {
    match a {
        Some(a) if !a.is_empty() => Some(format!("{a}:{b}")),
        Some(_) => None,
        None => Some(b.to_uppercase()),
    }
}

/// A part of the argument, or other text (copied).
#[elemental]
fn extension(name: &str) -> &str {
    name.rsplit_once('.').map_or("none", |(_, e)| e)
}

/// A fn that can fail: an `Err` fails the call, naming the element.
#[elemental]
fn port(url: &str) -> Result<i64, std::num::ParseIntError> {
    url.rsplit(':').next().unwrap_or("").parse()
}

/// A fallible fn with text out and NA.
#[elemental]
fn checked_upper(s: Option<&str>) -> Result<Option<String>, String> {
    match s {
        Some(s) if s.contains('!') => Err(format!("{s:?} shouts already")),
        Some(s) => Ok(Some(s.to_uppercase())),
        None => Ok(None),
    }
}

/// Three strings to a number.
#[elemental]
fn total_len(a: &str, b: &str, c: &str) -> i64 {
    (a.len() + b.len() + c.len()) as i64
}

fn main() {
    assert_eq!(len_or_zero::SIGNATURE, "(?string) -> int64");
    assert_eq!(host::SIGNATURE, "(string) -> ?string");
    assert_eq!(first_of::SIGNATURE, "(?string, string) -> ?string");
    let maybe = nd::Array::from_json(r#"["naïve", null, ""]"#, Some(&"3 * ?string".parse().unwrap())).unwrap();
    assert_eq!(len_or_zero::call(&maybe).unwrap().to_string(), "[5, 0, 0]");
    // A plain `string` argument to an `Option<&str>` parameter.
    assert_eq!(len_or_zero::call(nd::array!["ab"]).unwrap().to_string(), "[2]");
    let r = host::call(nd::array!["https://dynd.org/x", "nope", "ftp://日本.jp"]).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        (r#"["dynd.org", null, "日本.jp"]"#.into(), "3 * ?string".into())
    );
    assert_eq!(
        first_of::call(&maybe, "ß").unwrap().to_string(),
        r#"["naïve:ß", "SS", null]"#
    );
    assert_eq!(port::SIGNATURE, "(string) -> int64");
    assert_eq!(port::call(nd::array!["a:80", "b:443"]).unwrap().to_string(), "[80, 443]");
    let e = port::call(nd::array!["a:80", "b:x"]).unwrap_err().to_string();
    assert_eq!(e, "invalid digit found in string, at index [1]");
    assert_eq!(checked_upper::SIGNATURE, "(?string) -> ?string");
    assert_eq!(checked_upper::call(&maybe).unwrap().to_string(), r#"["NAÏVE", null, ""]"#);
    let e = checked_upper::call(nd::array!["a", "b!"]).unwrap_err().to_string();
    assert_eq!(e, r#""b!" shouts already, at index [1]"#);
    let files = nd::Array::from_json(r#"[["a.rs", "b"], [], ["c.日本"]]"#, None).unwrap();
    assert_eq!(
        extension::call(&files).unwrap().to_string(),
        r#"[["rs", "none"], [], ["日本"]]"#
    );
    assert_eq!(total_len::call("ab", nd::array!["c", ""], "日").unwrap().to_string(), "[6, 5]");

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
