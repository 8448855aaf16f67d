//! The string builtins: NumPy's `np.strings` vocabulary by NumPy's names
//! and keywords, elementwise over `string`, `?string` and
//! `fixed_string[N]` arrays of any dimensions, ragged ones included, with
//! broadcasting (a scalar needle against every string, a row of needles
//! against rows).
//!
//! | family | builtins |
//! |---|---|
//! | case | `upper`, `lower`, `swapcase`, `capitalize`, `title` |
//! | classes | `isalpha`, `isdigit`, `isalnum`, `isspace`, `islower`, `isupper`, `istitle`, `isdecimal`, `isnumeric` |
//! | search | `find`, `rfind`, `count_substring`, `startswith`, `endswith`, `contains` |
//! | change | `replace`, `strip`, `lstrip`, `rstrip`, `center`, `ljust`, `rjust`, `zfill`, `slice`, `expandtabs` |
//! | length | `str_len` (`string_length`) |
//! | pieces | `split`, `join` |
//! | regular expressions | `regex_match`, `regex_replace`, `regex_extract`, `regex_split` |
//!
//! (With the comparisons, `add` (joining), `multiply` (repeating) and the
//! ordering functions (`sort`, `unique`, `max`, `searchsorted`, ...),
//! which take strings among their other types.)
//!
//! Indexes and widths count code points, as Python's do; `start`/`end`
//! are Python's slice bounds (negative from the end). Unicode semantics
//! are Rust's tables with Python's definitions: full case mapping
//! (`upper("ß") == "SS"`), titlecase where it differs from uppercase
//! (`capitalize("ßa") == "Ssa"`). The deliberate differences from
//! Python's `str`:
//!
//! - `count` is `count_substring` here (`count` counts the elements
//!   that are not NA);
//! - `swapcase` and `title` lowercase a capital sigma to `σ` even at the
//!   end of a word (Python writes `ς` there; `lower` does too);
//! - `isdigit` knows the common non-decimal digits (superscripts,
//!   subscripts, circled and parenthesised digits), and `isnumeric` the
//!   common Han numerals, not every character Unicode gives a numeric
//!   value;
//! - bytes that are not UTF-8 (from Arrow or bytes) are an error naming
//!   the element, never replaced.
//!
//! `strip`, `lstrip`, `rstrip`, `slice` (with step 1) and `split` give
//! views: their strings point into the input's characters.
//!
//! ```
//! use dynd::func::{strip, upper};
//! use dynd::nd::{array, Array};
//!
//! let x = Array::from_json(r#"[["  naïve ", "ß"], [], ["日本\t"]]"#, None)?;
//! assert_eq!(upper(&x)?.to_string(), r#"[["  NAÏVE ", "SS"], [], ["日本\t"]]"#);
//! let s = strip(&array!["  a b  ", "\tc"], None)?;
//! assert_eq!(s.to_string(), r#"["a b", "c"]"#);
//! # Ok::<(), dynd::Error>(())
//! ```

mod pattern;
mod scalar;

pub use pattern::{regex_extract, regex_match, regex_replace, regex_split};

use std::borrow::Cow;

use dynd_kernels::elwise::{apply, Leaf};
use dynd_kernels::{Array, ArrayOps, ErrorMode, KernelError};
use dynd_macros::checked_signature;
use dynd_types::{Scalar, Type, TypeKind};

use crate::builtin::{builtins, entry, Fold};
use crate::callable::{over_categories, Callable, Keyword, Kwargs, Overload};
use crate::error::Error;
use crate::rows::AxisRows;
use scalar::{Align, Strip};

/// An elementwise builtin of one overload.
fn one(name: &'static str, leaf: Leaf) -> Result<Callable, Error> {
    entry(name, vec![Overload::new(leaf)], Fold::No, vec![])
}

/// `a` as strings: itself for `string` and `?string`, a `fixed_string[N]`
/// (or an option of one) cast to `string`; other data types are refused.
fn text<'a>(op: &'static str, a: &'a Array) -> Result<Cow<'a, Array>, Error> {
    let (inner, option) = match a.dtype().kind() {
        TypeKind::Option(inner) => (inner, true),
        _ => (a.dtype(), false),
    };
    match inner.kind() {
        TypeKind::Scalar(Scalar::String) => Ok(Cow::Borrowed(a)),
        TypeKind::FixedString { .. } => {
            let (dims, _) = a.ty().split_dims();
            let s: Type = Scalar::String.into();
            let s = if option { Type::option(s)? } else { s };
            let ty = Type::with_dims(dims.into_iter().cloned(), s)?;
            Ok(Cow::Owned(a.cast(&ty, ErrorMode::NoCheck)?))
        }
        _ => Err(Error::Argument {
            op,
            what: "the argument",
            expected: "strings (string, ?string or fixed_string[N])",
            found: a.ty().to_string().into(),
        }),
    }
}

/// `leaf` over `args` (each as strings), broadcast.
fn run(op: &'static str, args: &[&Array], leaf: &Leaf) -> Result<Array, Error> {
    if let Some(r) = over_categories(args, &|a| run(op, a, leaf)) {
        return r;
    }
    let cast: Vec<Cow<'_, Array>> = args.iter().map(|a| text(op, a)).collect::<Result<_, _>>()?;
    let refs: Vec<&Array> = cast.iter().map(|a| a.as_ref()).collect();
    apply(&refs, leaf)
}

/// One character of a keyword (`fillchar`), or the error saying so.
fn one_char(op: &'static str, what: &'static str, s: &str) -> Result<char, Error> {
    let mut chars = s.chars();
    match (chars.next(), chars.next()) {
        (Some(c), None) => Ok(c),
        _ => Err(Error::Argument {
            op,
            what,
            expected: "exactly one character",
            found: format!("{s:?}").into(),
        }),
    }
}

/// Each string of `x` with the characters of `chars` (whitespace without
/// it) stripped from its start and end: views of `x`'s characters.
///
/// # Errors
///
/// `x` not strings.
pub fn strip(x: &Array, chars: Option<&str>) -> Result<Array, Error> {
    strip_sides("strip", x, chars, true, true)
}

/// As [`strip`], from the start only.
///
/// # Errors
///
/// As [`strip`].
pub fn lstrip(x: &Array, chars: Option<&str>) -> Result<Array, Error> {
    strip_sides("lstrip", x, chars, true, false)
}

/// As [`strip`], from the end only.
///
/// # Errors
///
/// As [`strip`].
pub fn rstrip(x: &Array, chars: Option<&str>) -> Result<Array, Error> {
    strip_sides("rstrip", x, chars, false, true)
}

fn strip_sides(
    op: &'static str,
    x: &Array,
    chars: Option<&str>,
    left: bool,
    right: bool,
) -> Result<Array, Error> {
    let how = match chars {
        Some(c) => Strip::Chars(c.chars().collect()),
        None => Strip::Space,
    };
    run(
        op,
        &[x],
        &Leaf::text_view1(move |s| how.range(s, left, right)),
    )
}

/// Each string of `x` in the middle of `width` code points, padded with
/// `fillchar` (a space without it); a string as wide stays as it is.
///
/// # Errors
///
/// `x` not strings, a `fillchar` of other than one character, a width
/// past memory (naming the element).
pub fn center(x: &Array, width: i64, fillchar: Option<&str>) -> Result<Array, Error> {
    pad("center", x, width, fillchar, Align::Center)
}

/// As [`center`], the string first (`str.ljust`).
///
/// # Errors
///
/// As [`center`].
pub fn ljust(x: &Array, width: i64, fillchar: Option<&str>) -> Result<Array, Error> {
    pad("ljust", x, width, fillchar, Align::Left)
}

/// As [`center`], the string last (`str.rjust`).
///
/// # Errors
///
/// As [`center`].
pub fn rjust(x: &Array, width: i64, fillchar: Option<&str>) -> Result<Array, Error> {
    pad("rjust", x, width, fillchar, Align::Right)
}

fn pad(
    op: &'static str,
    x: &Array,
    width: i64,
    fillchar: Option<&str>,
    align: Align,
) -> Result<Array, Error> {
    let fill = fillchar.map_or(Ok(' '), |f| one_char(op, "fillchar", f))?;
    run(
        op,
        &[x],
        &Leaf::text_map1_fallible(move |s, out| scalar::pad(s, width, fill, align, out)),
    )
}

/// Each string of `x` padded on the left with zeros to `width` code
/// points, after a leading `+` or `-` (`str.zfill`).
///
/// # Errors
///
/// As [`center`].
pub fn zfill(x: &Array, width: i64) -> Result<Array, Error> {
    run(
        "zfill",
        &[x],
        &Leaf::text_map1_fallible(move |s, out| scalar::zfill(s, width, out)),
    )
}

/// Each string of `x` with its tabs expanded to the next multiple of
/// `tabsize` columns (8 without it; `str.expandtabs`).
///
/// # Errors
///
/// `x` not strings, a result past memory.
pub fn expandtabs(x: &Array, tabsize: Option<i64>) -> Result<Array, Error> {
    let tabsize = tabsize.unwrap_or(8);
    run(
        "expandtabs",
        &[x],
        &Leaf::text_map1_fallible(move |s, out| scalar::expandtabs(s, tabsize, out)),
    )
}

/// `s[start:stop:step]` of each string of `x`, by code points (Python's
/// slice: negative bounds from the end, a negative step backwards); with
/// a step of 1 the parts are views of `x`'s characters.
///
/// # Errors
///
/// `x` not strings, a step of 0.
pub fn slice(
    x: &Array,
    start: Option<i64>,
    stop: Option<i64>,
    step: Option<i64>,
) -> Result<Array, Error> {
    match step.unwrap_or(1) {
        0 => Err(Error::Argument {
            op: "slice",
            what: "step",
            expected: "not zero",
            found: "0".into(),
        }),
        1 => run(
            "slice",
            &[x],
            &Leaf::text_view1(move |s| scalar::slice_range(s, start, stop)),
        ),
        step => run(
            "slice",
            &[x],
            &Leaf::text_map1(move |s, out| scalar::slice(s, start, stop, step, out)),
        ),
    }
}

/// The lowest index (code points) where `sub` (broadcast against `x`) is
/// found in each `s[start:end]`, or -1 (`str.find`).
///
/// # Errors
///
/// Arguments not strings, shapes that do not broadcast.
pub fn find(x: &Array, sub: &Array, start: Option<i64>, end: Option<i64>) -> Result<Array, Error> {
    let start = start.unwrap_or(0);
    run(
        "find",
        &[x, sub],
        &Leaf::text2(move |s, t| scalar::find(s, t, start, end)),
    )
}

/// The highest such index, or -1 (`str.rfind`).
///
/// # Errors
///
/// As [`find`].
pub fn rfind(x: &Array, sub: &Array, start: Option<i64>, end: Option<i64>) -> Result<Array, Error> {
    let start = start.unwrap_or(0);
    run(
        "rfind",
        &[x, sub],
        &Leaf::text2(move |s, t| scalar::rfind(s, t, start, end)),
    )
}

/// How many times `sub` occurs in each `s[start:end]`, not overlapping
/// (NumPy's `strings.count`).
///
/// # Errors
///
/// As [`find`].
pub fn count_substring(
    x: &Array,
    sub: &Array,
    start: Option<i64>,
    end: Option<i64>,
) -> Result<Array, Error> {
    let start = start.unwrap_or(0);
    run(
        "count_substring",
        &[x, sub],
        &Leaf::text2(move |s, t| scalar::count(s, t, start, end)),
    )
}

/// Whether each `s[start:end]` starts with `prefix` (`str.startswith`).
///
/// # Errors
///
/// As [`find`].
pub fn startswith(
    x: &Array,
    prefix: &Array,
    start: Option<i64>,
    end: Option<i64>,
) -> Result<Array, Error> {
    let start = start.unwrap_or(0);
    run(
        "startswith",
        &[x, prefix],
        &Leaf::text2(move |s, t| scalar::startswith(s, t, start, end)),
    )
}

/// Whether each `s[start:end]` ends with `suffix` (`str.endswith`).
///
/// # Errors
///
/// As [`find`].
pub fn endswith(
    x: &Array,
    suffix: &Array,
    start: Option<i64>,
    end: Option<i64>,
) -> Result<Array, Error> {
    let start = start.unwrap_or(0);
    run(
        "endswith",
        &[x, suffix],
        &Leaf::text2(move |s, t| scalar::endswith(s, t, start, end)),
    )
}

/// Each string of `x` with `old` replaced by `new` (all three broadcast),
/// the first `count` times (every time without it, or for a negative
/// count; `str.replace`).
///
/// # Errors
///
/// As [`find`].
pub fn replace(x: &Array, old: &Array, new: &Array, count: Option<i64>) -> Result<Array, Error> {
    let count = count.unwrap_or(-1);
    run(
        "replace",
        &[x, old, new],
        &Leaf::text_map3(move |s, o, n, out| scalar::replace(s, o, n, count, out)),
    )
}

/// Each string of `x` split at every `sep`, or at runs of whitespace
/// without one (Python's `str.split`): a `var` row of views per string.
///
/// # Errors
///
/// `x` not strings of fixed dimensions, an empty `sep`.
pub fn split(x: &Array, sep: Option<&str>) -> Result<Array, Error> {
    text("split", x)?.split_strings(sep)
}

/// The strings of each row of `x`'s last dimension (any dimensions above
/// it) joined with `sep` between them (`""` without it): `join([["a",
/// "b"], ["c"]], sep="-")` is `["a-b", "c"]`, and an empty row gives
/// `""`.
///
/// # Errors
///
/// `x` 0-dimensional or not strings; NA strings (fill them first).
pub fn join(x: &Array, sep: Option<&str>) -> Result<Array, Error> {
    let x = text("join", x)?;
    if matches!(x.dtype().kind(), TypeKind::Option(_)) {
        return Err(Error::Argument {
            op: "join",
            what: "the strings",
            expected: "no NA (fill_na first)",
            found: x.ty().to_string().into(),
        });
    }
    let rows = AxisRows::of(&x, "join of a scalar")?;
    let strings = dynd_array::text::Strings::of(&rows.values).ok_or_else(|| Error::Argument {
        op: "join",
        what: "the strings",
        expected: "string",
        found: x.ty().to_string().into(),
    })?;
    let sep = sep.unwrap_or("");
    let mut out = String::new();
    let mut spans = Vec::with_capacity(rows.count());
    for w in rows.offsets.windows(2) {
        let start = out.len();
        for k in w[0] as usize..w[1] as usize {
            if k > w[0] as usize {
                out.push_str(sep);
            }
            let bytes = strings.bytes(k).unwrap_or_default();
            let s = std::str::from_utf8(bytes).map_err(|e| {
                Error::Kernel(Box::new(
                    KernelError::new(dynd_types::KernelErrorKind::Utf8 {
                        valid_up_to: e.valid_up_to(),
                    })
                    .at(k),
                ))
            })?;
            out.push_str(s);
        }
        spans.push((start, out.len() - start));
    }
    rows.wrap(Array::from_text_spans(out, &spans)?)
}

/// A keyword's string, as `Option<&str>`.
fn kw_str(kw: &Kwargs<'_>, name: &str) -> Result<Option<String>, Error> {
    kw.string(name)
}

/// A required integer keyword.
fn kw_required_int(op: &'static str, kw: &Kwargs<'_>, name: &'static str) -> Result<i64, Error> {
    kw.int(name)?.ok_or(Error::Argument {
        op,
        what: name,
        expected: "an integer",
        found: "nothing".into(),
    })
}

builtins! {
    $ TABLE, __strings_builtins;

    /// `(string) -> string`: `str.upper`, full case mapping (`"ß"` →
    /// `"SS"`).
    UPPER upper "upper" 1 None => { one("upper", Leaf::text_map1(scalar::upper)) };

    /// `(string) -> string`: `str.lower`, full case mapping (a final `Σ`
    /// as `ς`).
    LOWER lower "lower" 1 None => { one("lower", Leaf::text_map1(scalar::lower)) };

    /// `(string) -> string`: `str.swapcase`.
    SWAPCASE swapcase "swapcase" 1 None => { one("swapcase", Leaf::text_map1(scalar::swapcase)) };

    /// `(string) -> string`: `str.capitalize`, the first character in
    /// titlecase, the rest in lowercase.
    CAPITALIZE capitalize "capitalize" 1 None => {
        one("capitalize", Leaf::text_map1(scalar::capitalize))
    };

    /// `(string) -> string`: `str.title`.
    TITLE title "title" 1 None => { one("title", Leaf::text_map1(scalar::title)) };

    /// `(string) -> bool`: `str.isalpha` (every character a letter, `L*`).
    ISALPHA isalpha "isalpha" 1 None => { one("isalpha", Leaf::text1(scalar::isalpha)) };

    /// `(string) -> bool`: `str.isdigit`.
    ISDIGIT isdigit "isdigit" 1 None => { one("isdigit", Leaf::text1(scalar::isdigit)) };

    /// `(string) -> bool`: `str.isalnum`.
    ISALNUM isalnum "isalnum" 1 None => { one("isalnum", Leaf::text1(scalar::isalnum)) };

    /// `(string) -> bool`: `str.isspace`.
    ISSPACE isspace "isspace" 1 None => { one("isspace", Leaf::text1(scalar::isspace)) };

    /// `(string) -> bool`: `str.islower`.
    ISLOWER islower "islower" 1 None => { one("islower", Leaf::text1(scalar::islower)) };

    /// `(string) -> bool`: `str.isupper`.
    ISUPPER isupper "isupper" 1 None => { one("isupper", Leaf::text1(scalar::isupper)) };

    /// `(string) -> bool`: `str.istitle`.
    ISTITLE istitle "istitle" 1 None => { one("istitle", Leaf::text1(scalar::istitle)) };

    /// `(string) -> bool`: `str.isdecimal` (`Nd`, any script).
    ISDECIMAL isdecimal "isdecimal" 1 None => { one("isdecimal", Leaf::text1(scalar::isdecimal)) };

    /// `(string) -> bool`: `str.isnumeric`.
    ISNUMERIC isnumeric "isnumeric" 1 None => { one("isnumeric", Leaf::text1(scalar::isnumeric)) };

    /// `(string) -> int64`: the length in code points (`len(s)`).
    STR_LEN str_len "str_len" 1 None => { one("str_len", Leaf::text1(scalar::str_len)) };

    /// `(string) -> int64`: `str_len`'s older name.
    STRING_LENGTH string_length "string_length" 1 None => {
        one("string_length", Leaf::text1(scalar::str_len))
    };

    /// `(string, string) -> bool`: whether the second string occurs in the
    /// first (`sub in s`).
    CONTAINS contains "contains" 2 None => {
        // One byte (an ASCII character) is found with `memchr`.
        one("contains", Leaf::text2(|s: &str, sub: &str| match sub.as_bytes() {
            [b] => s.as_bytes().contains(b),
            _ => s.contains(sub),
        }))
    };

    /// `(Any, chars: ?string) -> Any`: `str.strip`; views.
    STRIP strip "strip" rs None => {
        Callable::function("strip", checked_signature!("(Any, chars: ?string) -> Any"),
            vec![Keyword::maybe("chars", Some(Scalar::String))],
            |args, kw| strip(args[0], kw_str(kw, "chars")?.as_deref()))
    };

    /// `(Any, chars: ?string) -> Any`: `str.lstrip`; views.
    LSTRIP lstrip "lstrip" rs None => {
        Callable::function("lstrip", checked_signature!("(Any, chars: ?string) -> Any"),
            vec![Keyword::maybe("chars", Some(Scalar::String))],
            |args, kw| lstrip(args[0], kw_str(kw, "chars")?.as_deref()))
    };

    /// `(Any, chars: ?string) -> Any`: `str.rstrip`; views.
    RSTRIP rstrip "rstrip" rs None => {
        Callable::function("rstrip", checked_signature!("(Any, chars: ?string) -> Any"),
            vec![Keyword::maybe("chars", Some(Scalar::String))],
            |args, kw| rstrip(args[0], kw_str(kw, "chars")?.as_deref()))
    };

    /// `(Any, width: int64, fillchar: ?string) -> Any`: `str.center`.
    CENTER center "center" rs None => {
        Callable::function("center", checked_signature!("(Any, width: int64, fillchar: ?string) -> Any"),
            vec![Keyword::required("width", Scalar::Int64), Keyword::maybe("fillchar", Some(Scalar::String))],
            |args, kw| center(args[0], kw_required_int("center", kw, "width")?, kw_str(kw, "fillchar")?.as_deref()))
    };

    /// `(Any, width: int64, fillchar: ?string) -> Any`: `str.ljust`.
    LJUST ljust "ljust" rs None => {
        Callable::function("ljust", checked_signature!("(Any, width: int64, fillchar: ?string) -> Any"),
            vec![Keyword::required("width", Scalar::Int64), Keyword::maybe("fillchar", Some(Scalar::String))],
            |args, kw| ljust(args[0], kw_required_int("ljust", kw, "width")?, kw_str(kw, "fillchar")?.as_deref()))
    };

    /// `(Any, width: int64, fillchar: ?string) -> Any`: `str.rjust`.
    RJUST rjust "rjust" rs None => {
        Callable::function("rjust", checked_signature!("(Any, width: int64, fillchar: ?string) -> Any"),
            vec![Keyword::required("width", Scalar::Int64), Keyword::maybe("fillchar", Some(Scalar::String))],
            |args, kw| rjust(args[0], kw_required_int("rjust", kw, "width")?, kw_str(kw, "fillchar")?.as_deref()))
    };

    /// `(Any, width: int64) -> Any`: `str.zfill`.
    ZFILL zfill "zfill" rs None => {
        Callable::function("zfill", checked_signature!("(Any, width: int64) -> Any"),
            vec![Keyword::required("width", Scalar::Int64)],
            |args, kw| zfill(args[0], kw_required_int("zfill", kw, "width")?))
    };

    /// `(Any, tabsize: ?int64) -> Any`: `str.expandtabs` (8 columns
    /// without `tabsize`).
    EXPANDTABS expandtabs "expandtabs" rs None => {
        Callable::function("expandtabs", checked_signature!("(Any, tabsize: ?int64) -> Any"),
            vec![Keyword::maybe("tabsize", Some(Scalar::Int64))],
            |args, kw| expandtabs(args[0], kw.int("tabsize")?))
    };

    /// `(Any, start: ?int64, stop: ?int64, step: ?int64) -> Any`:
    /// `s[start:stop:step]` by code points; views with step 1.
    SLICE slice "slice" rs None => {
        Callable::function("slice", checked_signature!("(Any, start: ?int64, stop: ?int64, step: ?int64) -> Any"),
            vec![Keyword::maybe("start", Some(Scalar::Int64)), Keyword::maybe("stop", Some(Scalar::Int64)), Keyword::maybe("step", Some(Scalar::Int64))],
            |args, kw| slice(args[0], kw.int("start")?, kw.int("stop")?, kw.int("step")?))
    };

    /// `(Any, Any, start: ?int64, end: ?int64) -> Any`: `str.find`, the
    /// needle broadcast (-1 where not found).
    FIND find "find" rs None => {
        Callable::function("find", checked_signature!("(Any, Any, start: ?int64, end: ?int64) -> Any"),
            vec![Keyword::maybe("start", Some(Scalar::Int64)), Keyword::maybe("end", Some(Scalar::Int64))],
            |args, kw| find(args[0], args[1], kw.int("start")?, kw.int("end")?))
    };

    /// `(Any, Any, start: ?int64, end: ?int64) -> Any`: `str.rfind`.
    RFIND rfind "rfind" rs None => {
        Callable::function("rfind", checked_signature!("(Any, Any, start: ?int64, end: ?int64) -> Any"),
            vec![Keyword::maybe("start", Some(Scalar::Int64)), Keyword::maybe("end", Some(Scalar::Int64))],
            |args, kw| rfind(args[0], args[1], kw.int("start")?, kw.int("end")?))
    };

    /// `(Any, Any, start: ?int64, end: ?int64) -> Any`: NumPy's
    /// `strings.count` (`str.count`): occurrences, not overlapping.
    COUNT_SUBSTRING count_substring "count_substring" rs None => {
        Callable::function("count_substring", checked_signature!("(Any, Any, start: ?int64, end: ?int64) -> Any"),
            vec![Keyword::maybe("start", Some(Scalar::Int64)), Keyword::maybe("end", Some(Scalar::Int64))],
            |args, kw| count_substring(args[0], args[1], kw.int("start")?, kw.int("end")?))
    };

    /// `(Any, Any, start: ?int64, end: ?int64) -> Any`: `str.startswith`.
    STARTSWITH startswith "startswith" rs None => {
        Callable::function("startswith", checked_signature!("(Any, Any, start: ?int64, end: ?int64) -> Any"),
            vec![Keyword::maybe("start", Some(Scalar::Int64)), Keyword::maybe("end", Some(Scalar::Int64))],
            |args, kw| startswith(args[0], args[1], kw.int("start")?, kw.int("end")?))
    };

    /// `(Any, Any, start: ?int64, end: ?int64) -> Any`: `str.endswith`.
    ENDSWITH endswith "endswith" rs None => {
        Callable::function("endswith", checked_signature!("(Any, Any, start: ?int64, end: ?int64) -> Any"),
            vec![Keyword::maybe("start", Some(Scalar::Int64)), Keyword::maybe("end", Some(Scalar::Int64))],
            |args, kw| endswith(args[0], args[1], kw.int("start")?, kw.int("end")?))
    };

    /// `(Any, Any, Any, count: ?int64) -> Any`: `str.replace`, all three
    /// broadcast.
    REPLACE replace "replace" rs None => {
        Callable::function("replace", checked_signature!("(Any, Any, Any, count: ?int64) -> Any"),
            vec![Keyword::maybe("count", Some(Scalar::Int64))],
            |args, kw| replace(args[0], args[1], args[2], kw.int("count")?))
    };

    /// `(Any, ..., sep: ?string) -> Any`: each string split at `sep`
    /// (given as a keyword or second argument), or at runs of whitespace
    /// without one: a ragged array of views of its characters.
    SPLIT split "split" rs None => {
        Callable::function("split", checked_signature!("(Any, ..., sep: ?string) -> Any"),
            vec![Keyword::maybe("sep", Some(Scalar::String))],
            |args, kw| {
                let sep = match (args, kw_str(kw, "sep")?) {
                    ([_], sep) => sep,
                    ([_, s], None) => Some(positional_string("split", "the separator", s)?),
                    _ => return Err(Error::Argument {
                        op: "split",
                        what: "the arguments",
                        expected: "the strings, and the separator as the second argument or `sep=`",
                        found: format!("{} arguments", args.len()).into(),
                    }),
                };
                split(args[0], sep.as_deref())
            })
    };

    /// `(Any, Any) -> Any`: whether the pattern (one string, the `regex`
    /// crate's syntax) matches anywhere in each string.
    REGEX_MATCH regex_match "regex_match" rs None => {
        Callable::function("regex_match", checked_signature!("(Any, Any) -> Any"), vec![],
            |args, _| regex_match(args[0], &positional_string("regex_match", "the pattern", args[1])?))
    };

    /// `(Any, Any, Any) -> Any`: every match of the pattern replaced (`$1`
    /// for a group).
    REGEX_REPLACE regex_replace "regex_replace" rs None => {
        Callable::function("regex_replace", checked_signature!("(Any, Any, Any) -> Any"), vec![],
            |args, _| regex_replace(
                args[0],
                &positional_string("regex_replace", "the pattern", args[1])?,
                &positional_string("regex_replace", "the replacement", args[2])?,
            ))
    };

    /// `(Any, Any, group: ?int64) -> Any`: the group of the first match,
    /// a view; NA where nothing matches.
    REGEX_EXTRACT regex_extract "regex_extract" rs None => {
        Callable::function("regex_extract", checked_signature!("(Any, Any, group: ?int64) -> Any"),
            vec![Keyword::maybe("group", Some(Scalar::Int64))],
            |args, kw| regex_extract(args[0], &positional_string("regex_extract", "the pattern", args[1])?, kw.int("group")?))
    };

    /// `(Any, Any) -> Any`: each string split at the pattern's matches:
    /// ragged rows of views.
    REGEX_SPLIT regex_split "regex_split" rs None => {
        Callable::function("regex_split", checked_signature!("(Any, Any) -> Any"), vec![],
            |args, _| regex_split(args[0], &positional_string("regex_split", "the pattern", args[1])?))
    };

    /// `(Any, sep: ?string) -> Any`: the strings of each row of the last
    /// dimension joined with `sep`.
    JOIN join "join" rs None => {
        Callable::function("join", checked_signature!("(Any, sep: ?string) -> Any"),
            vec![Keyword::maybe("sep", Some(Scalar::String))],
            |args, kw| join(args[0], kw_str(kw, "sep")?.as_deref()))
    };
}

/// A positional argument that must be one string.
fn positional_string(op: &'static str, what: &'static str, a: &Array) -> Result<String, Error> {
    match a.to_value() {
        dynd_kernels::Value::Str(s) if a.ndim() == 0 => Ok(s),
        _ => Err(Error::Argument {
            op,
            what,
            expected: "one string",
            found: a.ty().to_string().into(),
        }),
    }
}
