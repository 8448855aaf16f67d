//! NumPy's `np.strings` vocabulary, one test per family. Every expectation
//! is Python's (`str` methods, computed once and written in as literals),
//! over empty strings, multi-byte characters, `ß` and other case maps that
//! change the length, NA, ragged rows with empty rows, and a scalar
//! needle broadcast against ragged rows.

use dynd::func::{
    builtins, center, count_substring, endswith, expandtabs, find, join, ljust, lower, lstrip,
    replace, rfind, rjust, rstrip, slice, split, startswith, strip, upper, zfill,
};
use dynd::nd::{rows::Rows, text::Strings, Array};

fn json(text: &str) -> Array {
    Array::from_json(text, None).unwrap()
}

fn typed(text: &str, ty: &str) -> Array {
    Array::from_json(text, Some(&ty.parse().unwrap())).unwrap()
}

/// A builtin by name on one array, as `"value : type"`.
fn call1(name: &str, x: &Array) -> String {
    let r = builtins::get(name).unwrap().call(&[x]).unwrap();
    format!("{r} : {}", r.ty())
}

fn s(x: &str) -> Array {
    Array::from_text(x)
}

#[test]
fn case_maps_change_lengths_and_keep_rows() {
    let x = json(r#"[["naïve", "ß", ""], [], ["日本", "ǆemal"]]"#);
    assert_eq!(
        upper(&x).unwrap().to_string(),
        r#"[["NAÏVE", "SS", ""], [], ["日本", "ǄEMAL"]]"#
    );
    // Python: "ΣΑΣ".lower(), "İ".lower() (i and a combining dot)
    assert_eq!(
        lower(&json(r#"["ΣΑΣ", "İ", "ABC"]"#)).unwrap().to_string(),
        "[\"σας\", \"i\u{307}\", \"abc\"]"
    );
    assert_eq!(
        call1("swapcase", &json(r#"["Hello", "ß", "日"]"#)),
        r#"["hELLO", "SS", "日"] : 3 * string"#
    );
    // Python 3.8+: the first character in titlecase.
    assert_eq!(
        call1("capitalize", &json(r#"["ßa", "hELLO", "", "ǆx"]"#)),
        r#"["Ssa", "Hello", "", "ǅx"] : 4 * string"#
    );
    assert_eq!(
        call1(
            "title",
            &json(r#"["they're bill's", "ǆemal", "hello world", "ﬁre"]"#)
        ),
        r#"["They'Re Bill'S", "ǅemal", "Hello World", "Fire"] : 4 * string"#
    );
    // NA stays NA.
    let n = typed(r#"["a", null]"#, "2 * ?string");
    assert_eq!(upper(&n).unwrap().to_string(), r#"["A", null]"#);
}

#[test]
fn classes_follow_python() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "isalpha",
            r#"["abc", "ab1", "", "日本"]"#,
            "[true, false, false, true]",
        ),
        (
            "isdecimal",
            r#"["12", "٣", "²", ""]"#,
            "[true, true, false, false]",
        ),
        (
            "isdigit",
            r#"["12", "²", "½", ""]"#,
            "[true, true, false, false]",
        ),
        (
            "isnumeric",
            r#"["三", "½", "a", "Ⅻ"]"#,
            "[true, true, false, true]",
        ),
        (
            "isalnum",
            r#"["a1", "a 1", "½", ""]"#,
            "[true, false, true, false]",
        ),
        (
            "isspace",
            "[\" \\t\", \"\", \"\\u001f\", \" a\"]",
            "[true, false, true, false]",
        ),
        (
            "islower",
            r#"["abc", "aBc", "123", "ß"]"#,
            "[true, false, false, true]",
        ),
        (
            "isupper",
            r#"["ABC", "AbC", "123", "Ǆ"]"#,
            "[true, false, false, true]",
        ),
        (
            "istitle",
            r#"["Hello World", "Hello world", "ǅemal", ""]"#,
            "[true, false, true, false]",
        ),
    ];
    for (name, input, expected) in cases {
        assert_eq!(
            call1(name, &json(input)),
            format!("{expected} : 4 * bool"),
            "{name}"
        );
    }
    assert_eq!(
        call1("str_len", &json(r#"[["日本語", ""], [], ["😀a"]]"#)),
        "[[3, 0], [], [2]] : 3 * var * int64"
    );
    assert_eq!(call1("string_length", &s("naïve")), "5 : int64");
}

#[test]
fn search_with_python_bounds_and_broadcast_needles() {
    let x = json(r#"["日本語日本", "abc", ""]"#);
    // Python: [s.find("本") for s in x], [s.find("本", 2) ...], [s.rfind("本") ...]
    assert_eq!(
        find(&x, &s("本"), None, None).unwrap().to_string(),
        "[1, -1, -1]"
    );
    assert_eq!(
        find(&x, &s("本"), Some(2), None).unwrap().to_string(),
        "[4, -1, -1]"
    );
    assert_eq!(
        rfind(&x, &s("本"), None, None).unwrap().to_string(),
        "[4, -1, -1]"
    );
    // "".find("") == 0, "abc".find("", 4) == -1
    assert_eq!(
        find(&x, &s(""), Some(4), None).unwrap().to_string(),
        "[4, -1, -1]"
    );
    // A needle per string.
    let r = count_substring(
        &json(r#"["aaaa", "abc", "日日日"]"#),
        &json(r#"["aa", "", "日"]"#),
        None,
        None,
    )
    .unwrap();
    assert_eq!(r.to_string(), "[2, 4, 3]");
    // A scalar prefix against ragged rows with an empty row.
    let rows = json(r#"[["ab", "b"], [], ["abc", ""]]"#);
    assert_eq!(
        startswith(&rows, &s("a"), None, None).unwrap().to_string(),
        "[[true, false], [], [true, false]]"
    );
    // "abc"[0:-1].endswith("bc") is False; "日本".endswith("本")
    let e = endswith(
        &json(r#"["abc", "日本"]"#),
        &json(r#"["bc", "本"]"#),
        None,
        Some(-1),
    );
    assert_eq!(e.unwrap().to_string(), "[false, false]");
    assert_eq!(
        endswith(
            &json(r#"["abc", "日本"]"#),
            &json(r#"["bc", "本"]"#),
            None,
            None
        )
        .unwrap()
        .to_string(),
        "[true, true]"
    );
    assert_eq!(
        call_kw2("contains", &json(r#"[["abc"], [], ["xyz", "b"]]"#), &s("b")),
        "[[true], [], [false, true]] : 3 * var * bool"
    );
    // NA needles give NA.
    let n = typed(r#"["a", null]"#, "2 * ?string");
    assert_eq!(
        find(&json(r#"["ba", "a"]"#), &n, None, None)
            .unwrap()
            .to_string(),
        "[1, null]"
    );
}

fn call_kw2(name: &str, a: &Array, b: &Array) -> String {
    let r = builtins::get(name).unwrap().call(&[a, b]).unwrap();
    format!("{r} : {}", r.ty())
}

#[test]
fn changes_pad_replace_slice_expand() {
    // Python: [s.replace("-", "+") ...], count=1, "abc".replace("", "-")
    let x = json(r#"["a-b-c", "日-本", ""]"#);
    assert_eq!(
        replace(&x, &s("-"), &s("+"), None).unwrap().to_string(),
        r#"["a+b+c", "日+本", ""]"#
    );
    assert_eq!(
        replace(&x, &s("-"), &s("+"), Some(1)).unwrap().to_string(),
        r#"["a+b-c", "日+本", ""]"#
    );
    assert_eq!(
        replace(&s("abc"), &s(""), &s("-"), None)
            .unwrap()
            .to_string(),
        r#""-a-b-c-""#
    );
    assert_eq!(
        replace(&s("abc"), &s(""), &s("-"), Some(2))
            .unwrap()
            .to_string(),
        r#""-a-bc""#
    );
    // "ab".center(6, "*"), "abc".center(6, "*"), "ab".ljust(4, "日"), "日".rjust(3)
    let w = json(r#"["ab", "abc"]"#);
    assert_eq!(
        center(&w, 6, Some("*")).unwrap().to_string(),
        r#"["**ab**", "*abc**"]"#
    );
    assert_eq!(
        ljust(&s("ab"), 4, Some("日")).unwrap().to_string(),
        r#""ab日日""#
    );
    assert_eq!(rjust(&s("日"), 3, None).unwrap().to_string(), r#""  日""#);
    assert_eq!(rjust(&s("long"), 2, None).unwrap().to_string(), r#""long""#);
    // "-42".zfill(5), "7".zfill(5), "+1".zfill(5), "abc".zfill(5)
    assert_eq!(
        zfill(&json(r#"["-42", "7", "+1", "abc"]"#), 5)
            .unwrap()
            .to_string(),
        r#"["-0042", "00007", "+0001", "00abc"]"#
    );
    // "naïve"[1:4], [::-1], [-2:], [4:1:-2]
    let n = s("naïve");
    assert_eq!(
        slice(&n, Some(1), Some(4), None).unwrap().to_string(),
        r#""aïv""#
    );
    assert_eq!(
        slice(&n, None, None, Some(-1)).unwrap().to_string(),
        r#""evïan""#
    );
    assert_eq!(
        slice(&n, Some(-2), None, None).unwrap().to_string(),
        r#""ve""#
    );
    assert_eq!(
        slice(&n, Some(4), Some(1), Some(-2)).unwrap().to_string(),
        r#""eï""#
    );
    // "a\tbc\td".expandtabs(4), "x\n\ty".expandtabs(), "a\tb".expandtabs(0)
    assert_eq!(
        expandtabs(&json(r#"["a\tbc\td", "x\n\ty", "a\tb"]"#), Some(4))
            .unwrap()
            .to_string(),
        r#"["a   bc  d", "x\n    y", "a   b"]"#
    );
    assert_eq!(
        expandtabs(&s("a\tb"), Some(0)).unwrap().to_string(),
        r#""ab""#
    );
    assert_eq!(
        expandtabs(&s("x\n\ty"), None).unwrap().to_string(),
        "\"x\\n        y\""
    );
}

#[test]
fn strip_slice_and_split_are_views() {
    let x = json(r#"["  x  ", "\tab\n", "", " 日本 "]"#);
    assert_eq!(
        strip(&x, None).unwrap().to_string(),
        r#"["x", "ab", "", "日本"]"#
    );
    assert_eq!(
        lstrip(&x, None).unwrap().to_string(),
        r#"["x  ", "ab\n", "", "日本 "]"#
    );
    assert_eq!(
        rstrip(&x, None).unwrap().to_string(),
        r#"["  x", "\tab", "", " 日本"]"#
    );
    assert_eq!(
        strip(&json(r#"["xyaxy", "日a日"]"#), Some("xy日"))
            .unwrap()
            .to_string(),
        r#"["a", "a"]"#
    );
    let block = |a: &Array| Strings::of(a).unwrap().text_block().as_ptr();
    // Views: the same text block, not a copy.
    let stripped = strip(&x, None).unwrap();
    assert_eq!(block(&stripped), block(&x));
    let sliced = slice(&x, Some(1), Some(3), None).unwrap();
    assert_eq!(block(&sliced), block(&x));
    assert_eq!(sliced.to_string(), r#"[" x", "ab", "", "日本"]"#);
    // Ragged and NA views keep their rows and NA.
    let r = typed(r#"[[" a ", null], [], ["b "]]"#, "3 * var * ?string");
    assert_eq!(
        strip(&r, None).unwrap().to_string(),
        r#"[["a", null], [], ["b"]]"#
    );
    // Python: "a,b".split(","), "".split(","), "  a  b ".split(), "".split()
    let parts = split(&json(r#"["a,b", ""]"#), Some(",")).unwrap();
    assert_eq!(parts.to_string(), r#"[["a", "b"], [""]]"#);
    let input = json(r#"["  a  b ", "", "x"]"#);
    let words = split(&input, None).unwrap();
    assert_eq!(words.to_string(), r#"[["a", "b"], [], ["x"]]"#);
    let text = match Rows::of(&words).unwrap().element_arrmeta() {
        dynd::nd::Arrmeta::Text { block } => block.as_ptr(),
        other => panic!("not text: {other:?}"),
    };
    assert_eq!(text, block(&input));
    // The builtin takes the separator positionally or by keyword.
    let sp = builtins::get("split").unwrap();
    let a = json(r#"["a,b"]"#);
    assert_eq!(
        sp.call(&[&a, &s(",")]).unwrap().to_string(),
        r#"[["a", "b"]]"#
    );
    assert_eq!(
        sp.call_kw(&[&a], &[("sep", &s(","))]).unwrap().to_string(),
        r#"[["a", "b"]]"#
    );
}

#[test]
fn join_rows() {
    // Python: ["-".join(r) for r in [["a", "b"], ["c"], []]]
    let x = json(r#"[["a", "b"], ["c"], []]"#);
    let r = join(&x, Some("-")).unwrap();
    assert_eq!(
        (r.to_string(), r.ty().to_string()),
        (r#"["a-b", "c", ""]"#.into(), "3 * string".into())
    );
    // Rows under fixed dimensions, and a dense last axis.
    let d = json(r#"[[["日", "本"]], [["x", ""]]]"#);
    assert_eq!(join(&d, None).unwrap().to_string(), r#"[["日本"], ["x"]]"#);
    let err = join(&typed(r#"[["a", null]]"#, "1 * var * ?string"), None).unwrap_err();
    assert!(err.to_string().contains("fill_na"), "{err}");
}

#[test]
fn bad_arguments_are_errors_that_say_what_was_wrong() {
    let x = json(r#"["a"]"#);
    let e = center(&x, 3, Some("ab")).unwrap_err().to_string();
    assert!(
        e.contains("exactly one character") && e.contains("\"ab\""),
        "{e}"
    );
    let e = slice(&x, None, None, Some(0)).unwrap_err().to_string();
    assert!(e.contains("step"), "{e}");
    let e = find(&x, &Array::from_scalar(1i64), None, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("strings") && e.contains("int64"), "{e}");
    let e = upper(&Array::from_vec(vec![1.0])).unwrap_err().to_string();
    assert!(e.contains("(string) -> string"), "{e}");
    // A width past memory is an error naming the element, not an abort.
    let e = center(&json(r#"["", "a"]"#), i64::MAX, None)
        .unwrap_err()
        .to_string();
    assert!(e.contains("memory") && e.contains("[0]"), "{e}");
    let e = split(&x, Some("")).unwrap_err().to_string();
    assert!(e.contains("separator"), "{e}");
}

#[test]
fn regular_expressions() {
    use dynd::func::{regex_extract, regex_match, regex_replace, regex_split};
    // Python: [bool(re.search(r"\d$", s)) for s in ["a1", "b", "日本2", ""]]
    let x = json(r#"[["a1", "b"], [], ["日本2", ""]]"#);
    assert_eq!(
        regex_match(&x, r"\d$").unwrap().to_string(),
        "[[true, false], [], [true, false]]"
    );
    // re.sub(r"(\d+)-(\d+)", r"\2.\1", s)
    assert_eq!(
        regex_replace(
            &json(r#"["1-2 and 30-4", "none", ""]"#),
            r"(\d+)-(\d+)",
            "$2.$1"
        )
        .unwrap()
        .to_string(),
        r#"["2.1 and 4.30", "none", ""]"#
    );
    // [m.group(1) if (m := re.search(r"user=(\w*)", s)) else None ...]
    let e = regex_extract(
        &json(r#"["user=ada x", "none", "user="]"#),
        r"user=(\w*)",
        Some(1),
    )
    .unwrap();
    assert_eq!(
        (e.to_string(), e.ty().to_string()),
        (r#"["ada", null, ""]"#.into(), "3 * ?string".into())
    );
    // A view of the input's characters.
    let input = json(r#"["key: 日本"]"#);
    let v = regex_extract(&input, r"\S+$", None).unwrap();
    assert_eq!(v.to_string(), r#"["日本"]"#);
    let (vals, _) = dynd::nd::ArrayOps::option_parts(&v).unwrap();
    assert_eq!(
        Strings::of(&vals).unwrap().text_block().as_ptr(),
        Strings::of(&input).unwrap().text_block().as_ptr()
    );
    // re.split(r"\d+", "a1b22c"), re.split(r"\d+", "")
    assert_eq!(
        regex_split(&json(r#"["a1b22c", "", "日1本"]"#), r"\d+")
            .unwrap()
            .to_string(),
        r#"[["a", "b", "c"], [""], ["日", "本"]]"#
    );
    // A bad pattern is quoted, with where it went wrong.
    let err = regex_match(&x, "a(b").unwrap_err().to_string();
    assert!(
        err.contains("\"a(b\"") && err.contains("unclosed group"),
        "{err}"
    );
    let err = regex_extract(&x, "a", Some(1)).unwrap_err().to_string();
    assert!(err.contains("group"), "{err}");
    // Through the builtin, the pattern is one string.
    let m = builtins::get("regex_match").unwrap();
    let err = m
        .call(&[&x, &json(r#"["a", "b"]"#)])
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("pattern") && err.contains("one string"),
        "{err}"
    );
}
