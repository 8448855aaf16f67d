//! [`Value`]: a dynamically typed value tree, the common ground of JSON text,
//! array literals and array printing.
//!
//! [`Value::to_json`] writes valid JSON: a float always as a float
//! (`1.0`, not `1`, so it reads back as a float), and a non-finite float as
//! one of the strings `"NaN"`, `"Infinity"`, `"-Infinity"`, which arrays
//! read back as floats. NA is `null`; a complex number is `[re, im]`.
//! [`Value::to_text`] (and `Display`) is dynd's printed form: the
//! shortest digits (`1`) and the bare words `NaN`, `Infinity`. Input takes
//! both, and `nan`, `inf`, `-inf` too.
//!
//! ```
//! use dynd::nd::Value;
//!
//! let v = Value::parse_json("[[1, 2.5], [null], [NaN, -inf, 3.0]]")?;
//! assert_eq!(v.to_json(), r#"[[1, 2.5], [null], ["NaN", "-Infinity", 3.0]]"#);
//! assert_eq!(v.to_text(), "[[1, 2.5], [null], [NaN, -Infinity, 3]]");
//! # Ok::<(), dynd::Error>(())
//! ```

use std::fmt::{self, Write};

use crate::error::Error;

/// A dynamically typed value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// NA (`null`).
    Null,
    /// A boolean.
    Bool(bool),
    /// An integer (JSON numbers without a fraction or exponent).
    Int(i128),
    /// An integer above `i128::MAX` (up to `u128::MAX`): parsing and
    /// `uint128` elements give this variant only for those; any `u128`
    /// is accepted as input.
    UInt(u128),
    /// A float.
    Float(f64),
    /// A string.
    Str(String),
    /// A list: an array dimension, a tuple, or a complex number's `[re, im]`.
    List(Vec<Value>),
    /// An object: a struct's fields, in order.
    Object(Vec<(String, Value)>),
}

impl Value {
    /// How deeply lists and objects nest (0 for a scalar), found without
    /// recursion, so any value — however deep a caller built it — can be
    /// measured.
    pub fn depth(&self) -> usize {
        let mut deepest = 0;
        let mut stack: Vec<(&Value, usize)> = vec![(self, 0)];
        while let Some((v, d)) = stack.pop() {
            deepest = deepest.max(d);
            match v {
                Value::List(items) => stack.extend(items.iter().map(|i| (i, d + 1))),
                Value::Object(fields) => stack.extend(fields.iter().map(|(_, i)| (i, d + 1))),
                _ => {}
            }
        }
        deepest
    }
}

/// Writes a float the way dynd prints it: shortest round-trip digits
/// (with an exponent below 1e-5 and from 1e16 on), `NaN`, `Infinity`, `-Infinity`,
/// and `-0.0` for negative zero (`-0` would read back as the integer 0).
pub fn write_float(out: &mut impl Write, x: f64) -> fmt::Result {
    if x == 0.0 && x.is_sign_negative() {
        out.write_str("-0.0")
    } else if x.is_nan() {
        out.write_str("NaN")
    } else if x.is_infinite() {
        out.write_str(if x > 0.0 { "Infinity" } else { "-Infinity" })
    } else if x != 0.0 && !(1e-5..1e16).contains(&x.abs()) {
        // Exponent form where positional digits would run long: `5e200`.
        write!(out, "{x:e}")
    } else {
        write!(out, "{x}")
    }
}

/// The float a JSON string stands for when it is one of the words
/// [`Value::to_json`] writes non-finite floats as.
pub fn non_finite(text: &str) -> Option<f64> {
    match text {
        "NaN" => Some(f64::NAN),
        "Infinity" => Some(f64::INFINITY),
        "-Infinity" => Some(f64::NEG_INFINITY),
        _ => None,
    }
}

/// Writes a float as valid JSON that reads back as a float: `"NaN"`,
/// `"Infinity"`, `"-Infinity"` for non-finite ones, and a fraction or
/// exponent always (`1.0`).
fn write_json_float(out: &mut String, x: f64) -> fmt::Result {
    if x.is_nan() {
        return out.write_str("\"NaN\"");
    }
    if x.is_infinite() {
        return out.write_str(if x > 0.0 {
            "\"Infinity\""
        } else {
            "\"-Infinity\""
        });
    }
    let start = out.len();
    write_float(out, x)?;
    if !out[start..].contains(['.', 'e', 'E']) {
        out.push_str(".0");
    }
    Ok(())
}

/// Writes a JSON string literal.
pub fn write_json_string(out: &mut impl Write, s: &str) -> fmt::Result {
    out.write_char('"')?;
    for c in s.chars() {
        match c {
            '"' => out.write_str("\\\"")?,
            '\\' => out.write_str("\\\\")?,
            '\n' => out.write_str("\\n")?,
            '\r' => out.write_str("\\r")?,
            '\t' => out.write_str("\\t")?,
            c if (c as u32) < 0x20 => write!(out, "\\u{:04x}", c as u32)?,
            c => out.write_char(c)?,
        }
    }
    out.write_char('"')
}

impl Value {
    /// Parses JSON text (with the non-finite float extensions).
    ///
    /// # Errors
    ///
    /// [`Error::Json`] with the byte offset and what was expected there.
    pub fn parse_json(text: &str) -> Result<Value, Error> {
        let mut p = JsonParser {
            text,
            pos: 0,
            depth: 0,
        };
        p.ws();
        let v = p.value()?;
        p.ws();
        if p.pos != text.len() {
            return Err(p.err("expected the end of the input after a JSON value"));
        }
        Ok(v)
    }

    /// Parses one JSON value at the start of `text`, returning it and the
    /// byte offset just after it (for embedding JSON in a larger syntax).
    ///
    /// # Errors
    ///
    /// [`Error::Json`] with the byte offset.
    pub fn parse_json_prefix(text: &str) -> Result<(Value, usize), Error> {
        let mut p = JsonParser {
            text,
            pos: 0,
            depth: 0,
        };
        p.ws();
        let v = p.value()?;
        Ok((v, p.pos))
    }

    /// The value as valid JSON text, `, ` between list items: a float
    /// always with a fraction or exponent (`1.0`), a non-finite one as the
    /// string `"NaN"`, `"Infinity"` or `"-Infinity"`.
    pub fn to_json(&self) -> String {
        let mut s = String::new();
        let _ = self.write_json(&mut s, true, Style::default());
        s
    }

    /// The value as dynd prints it: JSON's shape, with the shortest digits
    /// for floats (`1`) and the bare words `NaN`, `Infinity`, `-Infinity`.
    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let _ = self.write_json(&mut s, false, Style::default());
        s
    }

    /// [`Value::to_text`] with each element formatted as `format!` would
    /// with `precision` digits after the point (floats) and padded to
    /// `width` (every element, right-aligned): what `{:8.3}` on an array
    /// gives.
    pub(crate) fn to_text_styled(&self, precision: Option<usize>, width: Option<usize>) -> String {
        let mut s = String::new();
        let _ = self.write_json(&mut s, false, Style { precision, width });
        s
    }

    fn write_json(&self, out: &mut String, strict: bool, style: Style) -> fmt::Result {
        if style.width.is_some() && !matches!(self, Value::List(_) | Value::Object(_)) {
            // One element, then padded on its left to the width.
            let mut one = String::new();
            self.write_json(
                &mut one,
                strict,
                Style {
                    width: None,
                    ..style
                },
            )?;
            let width = style.width.unwrap_or(0);
            return write!(out, "{one:>width$}");
        }
        match self {
            Value::Null => out.write_str("null"),
            Value::Bool(b) => write!(out, "{b}"),
            Value::Int(i) => write!(out, "{i}"),
            Value::UInt(u) => write!(out, "{u}"),
            Value::Float(x) if strict => write_json_float(out, *x),
            Value::Float(x) if x.is_finite() && style.precision.is_some() => {
                let p = style.precision.unwrap_or(0);
                write!(out, "{x:.p$}")
            }
            Value::Float(x) => write_float(out, *x),
            Value::Str(s) => write_json_string(out, s),
            Value::List(items) => {
                out.write_char('[')?;
                for (i, v) in items.iter().enumerate() {
                    if i > 0 {
                        out.write_str(", ")?;
                    }
                    v.write_json(out, strict, style)?;
                }
                out.write_char(']')
            }
            Value::Object(fields) => {
                out.write_char('{')?;
                for (i, (k, v)) in fields.iter().enumerate() {
                    if i > 0 {
                        out.write_str(", ")?;
                    }
                    write_json_string(out, k)?;
                    out.write_str(": ")?;
                    v.write_json(out, strict, style)?;
                }
                out.write_char('}')
            }
        }
    }
}

/// How `Display` formats each element: `{:width.precision}`.
#[derive(Clone, Copy, Default)]
struct Style {
    precision: Option<usize>,
    width: Option<usize>,
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_text())
    }
}

const MAX_JSON_DEPTH: usize = 128;

struct JsonParser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

impl JsonParser<'_> {
    fn err(&self, message: &str) -> Error {
        Error::Json {
            offset: self.pos,
            message: message.to_string(),
        }
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn ws(&mut self) {
        let trimmed = self.rest().trim_start_matches([' ', '\t', '\n', '\r']);
        self.pos = self.text.len() - trimmed.len();
    }

    fn eat(&mut self, word: &str) -> bool {
        if self.rest().starts_with(word) {
            self.pos += word.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self) -> Result<Value, Error> {
        let c = self.rest().chars().next();
        match c {
            Some('[') => {
                self.depth += 1;
                if self.depth > MAX_JSON_DEPTH {
                    return Err(self.err("lists are nested too deeply"));
                }
                self.pos += 1;
                let mut items = Vec::new();
                self.ws();
                if self.eat("]") {
                    self.depth -= 1;
                    return Ok(Value::List(items));
                }
                loop {
                    self.ws();
                    items.push(self.value()?);
                    self.ws();
                    if self.eat(",") {
                        continue;
                    }
                    if self.eat("]") {
                        break;
                    }
                    return Err(self.err("expected ',' or ']'"));
                }
                self.depth -= 1;
                Ok(Value::List(items))
            }
            Some('"') => self.string().map(Value::Str),
            Some('{') => {
                self.depth += 1;
                if self.depth > MAX_JSON_DEPTH {
                    return Err(self.err("values are nested too deeply"));
                }
                self.pos += 1;
                let mut fields: Vec<(String, Value)> = Vec::new();
                self.ws();
                if !self.eat("}") {
                    loop {
                        self.ws();
                        if !self.rest().starts_with('"') {
                            return Err(self.err("expected a field name (a JSON string)"));
                        }
                        let key_at = self.pos;
                        let key = self.string()?;
                        if fields.iter().any(|(k, _)| *k == key) {
                            self.pos = key_at;
                            return Err(self.err(&format!("duplicate field name \"{key}\"")));
                        }
                        self.ws();
                        if !self.eat(":") {
                            return Err(self.err("expected ':' after a field name"));
                        }
                        self.ws();
                        let v = self.value()?;
                        fields.push((key, v));
                        self.ws();
                        if self.eat(",") {
                            continue;
                        }
                        if self.eat("}") {
                            break;
                        }
                        return Err(self.err("expected ',' or '}'"));
                    }
                }
                self.depth -= 1;
                Ok(Value::Object(fields))
            }
            Some(_) => {
                for (word, v) in [
                    ("null", Value::Null),
                    ("true", Value::Bool(true)),
                    ("false", Value::Bool(false)),
                    ("NaN", Value::Float(f64::NAN)),
                    ("nan", Value::Float(f64::NAN)),
                    ("Infinity", Value::Float(f64::INFINITY)),
                    ("inf", Value::Float(f64::INFINITY)),
                    ("-Infinity", Value::Float(f64::NEG_INFINITY)),
                    ("-inf", Value::Float(f64::NEG_INFINITY)),
                    ("+Infinity", Value::Float(f64::INFINITY)),
                    ("+inf", Value::Float(f64::INFINITY)),
                    ("+NaN", Value::Float(f64::NAN)),
                    ("+nan", Value::Float(f64::NAN)),
                ] {
                    if self.eat(word) {
                        return Ok(v);
                    }
                }
                self.number()
            }
            None => Err(self.err("expected a JSON value, found the end of the input")),
        }
    }

    fn number(&mut self) -> Result<Value, Error> {
        let start = self.pos;
        let bytes = self.text.as_bytes();
        let mut end = start;
        let mut is_float = false;
        // A sign: `-`, or `+` as Python and the shell's users write it
        // (not JSON, which the output never uses).
        if matches!(bytes.get(end), Some(b'-' | b'+')) {
            end += 1;
        }
        let digits_start = end;
        while end < bytes.len() {
            match bytes[end] {
                b'0'..=b'9' => {}
                b'.' | b'e' | b'E' => is_float = true,
                b'+' | b'-' if end > digits_start && matches!(bytes[end - 1], b'e' | b'E') => {}
                _ => break,
            }
            end += 1;
        }
        if end == digits_start || !bytes[digits_start].is_ascii_digit() {
            return Err(
                self.err("expected a JSON value (a number, string, list, true, false or null)")
            );
        }
        let text = &self.text[start..end];
        // An integer is exact: an `i128`, or a `u128` above that; one
        // beyond both is an error, not a float that silently rounds.
        let v = if is_float {
            text.parse::<f64>().ok().map(Value::Float)
        } else {
            match text.parse::<i128>() {
                Ok(i) => Some(Value::Int(i)),
                Err(_) => match text.parse::<u128>() {
                    Ok(u) => Some(Value::UInt(u)),
                    Err(_)
                        if text[digits_start - start..]
                            .bytes()
                            .all(|b| b.is_ascii_digit()) =>
                    {
                        return Err(self.err(&format!(
                            "the integer {} is too large for any integer type (int128 and uint128 \
                             hold at most 39 digits); write it with an exponent (1e40) for a float",
                            crate::error::excerpt(text)
                        )));
                    }
                    Err(_) => None,
                },
            }
        };
        match v {
            Some(v) => {
                self.pos = end;
                Ok(v)
            }
            None => Err(self.err(&format!("invalid number '{}'", crate::error::excerpt(text)))),
        }
    }

    fn string(&mut self) -> Result<String, Error> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        let mut chars = self.rest().char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos += i + 1;
                    return Ok(out);
                }
                '\\' => {
                    let esc = chars.next().map(|(_, e)| e);
                    match esc {
                        Some('"') => out.push('"'),
                        Some('\\') => out.push('\\'),
                        Some('/') => out.push('/'),
                        Some('n') => out.push('\n'),
                        Some('t') => out.push('\t'),
                        Some('r') => out.push('\r'),
                        Some('b') => out.push('\u{8}'),
                        Some('f') => out.push('\u{c}'),
                        Some('u') => {
                            let hex: String = (0..4)
                                .filter_map(|_| chars.next().map(|(_, h)| h))
                                .collect();
                            let code = u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32);
                            match code {
                                Some(c) if hex.len() == 4 => out.push(c),
                                _ => {
                                    self.pos += i;
                                    return Err(self.err("invalid \\u escape"));
                                }
                            }
                        }
                        _ => {
                            self.pos += i;
                            return Err(self.err("invalid escape in a string"));
                        }
                    }
                }
                c => out.push(c),
            }
        }
        self.pos = start;
        Err(self.err("unterminated string"))
    }
}

/// Converts Rust values into a [`Value`], for the `array!` literal.
pub trait IntoValue {
    /// The value.
    fn into_value(self) -> Value;
}

macro_rules! into_value_int {
    ($($t:ty),*) => {$(
        impl IntoValue for $t {
            fn into_value(self) -> Value { Value::Int(self as i128) }
        }
    )*};
}
into_value_int!(i8, i16, i32, i64, i128, u8, u16, u32, u64, isize, usize);

impl IntoValue for u128 {
    fn into_value(self) -> Value {
        i128::try_from(self).map_or(Value::UInt(self), Value::Int)
    }
}

impl IntoValue for f64 {
    fn into_value(self) -> Value {
        Value::Float(self)
    }
}

impl IntoValue for f32 {
    fn into_value(self) -> Value {
        Value::Float(f64::from(self))
    }
}

impl IntoValue for bool {
    fn into_value(self) -> Value {
        Value::Bool(self)
    }
}

impl IntoValue for &str {
    fn into_value(self) -> Value {
        Value::Str(self.to_string())
    }
}

impl IntoValue for String {
    fn into_value(self) -> Value {
        Value::Str(self)
    }
}

impl IntoValue for Value {
    fn into_value(self) -> Value {
        self
    }
}

impl<T: IntoValue> IntoValue for Option<T> {
    fn into_value(self) -> Value {
        self.map_or(Value::Null, IntoValue::into_value)
    }
}

impl<T: IntoValue> IntoValue for Vec<T> {
    fn into_value(self) -> Value {
        Value::List(self.into_iter().map(IntoValue::into_value).collect())
    }
}

impl<T: IntoValue, const N: usize> IntoValue for [T; N] {
    fn into_value(self) -> Value {
        Value::List(self.into_iter().map(IntoValue::into_value).collect())
    }
}

/// Builds a [`Value`] from an array literal: nested `[...]` lists (ragged
/// allowed), Rust expressions convertible with [`IntoValue`], and `null`.
#[doc(hidden)]
#[macro_export]
macro_rules! __value {
    ([ $($inner:tt)* ]) => { $crate::Value::List($crate::__value_list!([] $($inner)*)) };
    (null) => { $crate::Value::Null };
    (None) => { $crate::Value::Null };
    ($e:expr) => { $crate::IntoValue::into_value($e) };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __value_list {
    ([$($done:expr),*]) => { ::std::vec![$($done),*] };
    ([$($done:expr),*] [ $($inner:tt)* ] $(, $($rest:tt)*)?) => {
        $crate::__value_list!([$($done,)* $crate::__value!([ $($inner)* ])] $($($rest)*)?)
    };
    ([$($done:expr),*] null $(, $($rest:tt)*)?) => {
        $crate::__value_list!([$($done,)* $crate::Value::Null] $($($rest)*)?)
    };
    ([$($done:expr),*] None $(, $($rest:tt)*)?) => {
        $crate::__value_list!([$($done,)* $crate::Value::Null] $($($rest)*)?)
    };
    ([$($done:expr),*] $e:expr $(, $($rest:tt)*)?) => {
        $crate::__value_list!([$($done,)* $crate::__value!($e)] $($($rest)*)?)
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trips() {
        for text in [
            "null",
            "true",
            "false",
            "0",
            "-12",
            "1.5",
            "-0.25",
            "1e300",
            "[]",
            "[1, [2, 3], []]",
            "\"a\\\"b\\\\c\\n\"",
            "[NaN, Infinity, -Infinity]",
            "170141183460469231731687303715884105727",
        ] {
            let v = Value::parse_json(text).unwrap();
            assert_eq!(
                Value::parse_json(&v.to_json()).unwrap().to_json(),
                v.to_json(),
                "{text}"
            );
        }
        assert_eq!(Value::parse_json(" [ 1 ,2 ] ").unwrap().to_json(), "[1, 2]");
        assert_eq!(
            Value::parse_json("{\"x\": 1, \"y\": [2, {}]}")
                .unwrap()
                .to_json(),
            "{\"x\": 1, \"y\": [2, {}]}"
        );
        assert_eq!(
            Value::parse_json("[nan, inf, -inf]").unwrap().to_json(),
            r#"["NaN", "Infinity", "-Infinity"]"#
        );
        assert_eq!(
            Value::parse_json("[nan, inf, -inf, 1.0, 2]")
                .unwrap()
                .to_text(),
            "[NaN, Infinity, -Infinity, 1, 2]"
        );
        // Floats stay floats: a fraction or an exponent always.
        assert_eq!(
            Value::List(vec![
                Value::Float(1.0),
                Value::Float(-0.0),
                Value::Float(5e200),
                Value::Float(1e-7),
                Value::Float(123456.0),
                Value::Int(3),
            ])
            .to_json(),
            "[1.0, -0.0, 5e200, 1e-7, 123456.0, 3]"
        );
        assert_eq!(
            Value::parse_json("\"\\u00e9\"").unwrap(),
            Value::Str("é".into())
        );
    }

    #[test]
    fn json_errors_have_offsets() {
        for (text, offset, msg) in [
            ("", 0, "expected a JSON value"),
            ("[1, 2", 5, "expected ',' or ']'"),
            ("[1 2]", 3, "expected ',' or ']'"),
            ("[1,]", 3, "expected a JSON value"),
            ("tru", 0, "expected a JSON value"),
            ("\"abc", 0, "unterminated string"),
            ("1 2", 2, "expected the end of the input"),
            ("{\"a\": 1", 7, "expected ',' or '}'"),
            ("{a: 1}", 1, "expected a field name"),
            ("{\"a\": 1, \"a\": 2}", 9, "duplicate field name"),
            ("-", 0, "expected a JSON value"),
            ("1e", 0, "invalid number '1e'"),
        ] {
            match Value::parse_json(text) {
                Err(Error::Json { offset: o, message }) => {
                    assert_eq!(o, offset, "{text}: {message}");
                    assert!(message.contains(msg), "{text}: {message}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        let deep = "[".repeat(10_000);
        assert!(Value::parse_json(&deep).is_err());
    }

    #[test]
    fn the_literal_macro_builds_ragged_values() {
        let v = crate::__value!([[1.0], [2.0, -3.5], [], [null]]);
        assert_eq!(v.to_json(), "[[1.0], [2.0, -3.5], [], [null]]");
        assert_eq!(v.to_text(), "[[1], [2, -3.5], [], [null]]");
        let x = 4;
        let v = crate::__value!([x, x + 1, -2]);
        assert_eq!(v.to_json(), "[4, 5, -2]");
        assert_eq!(crate::__value!(["a", "b"]).to_json(), "[\"a\", \"b\"]");
        assert_eq!(
            crate::__value!([[[1], [2, 3]], [[4]]]).to_json(),
            "[[[1], [2, 3]], [[4]]]"
        );
    }
}
