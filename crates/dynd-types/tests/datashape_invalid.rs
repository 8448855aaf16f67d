//! Invalid datashapes: each error has the exact byte offset of the problem
//! and a message that says what was expected there.

use dynd_types::{ParseErrorKind, Type};

/// (input, byte offset, a fragment of the message)
const CASES: &[(&str, usize, &str)] = &[
    ("", 0, "expected a type, found end of input"),
    ("   ", 3, "expected a type, found end of input"),
    ("int3", 0, "unknown type 'int3' (did you mean 'int32'?)"),
    ("3 * var * int3", 10, "unknown type 'int3'"),
    ("flaot64", 0, "did you mean 'float64'?"),
    ("strin", 0, "did you mean 'string'?"),
    ("xyzzy", 0, "unknown type 'xyzzy'"),
    ("int32 int32", 6, "expected end of input"),
    (
        "3 int32",
        2,
        "expected '*' after a dimension size, found 'int32'",
    ),
    ("3 *", 3, "expected a type, found end of input"),
    ("3 * * int32", 4, "expected a type, found '*'"),
    ("var", 3, "expected '*' after 'var', found end of input"),
    ("var int32", 4, "expected '*' after 'var'"),
    ("Fixed", 5, "expected '*' after 'Fixed' (a dimension kind)"),
    ("Dim", 3, "expected '*' after 'Dim' (a dimension kind)"),
    ("fixed * int32", 6, "expected '[' after 'fixed'"),
    ("fixed[] * int32", 6, "expected a dimension size"),
    ("fixed[3 * int32", 8, "expected ']'"),
    ("99999999999999999999999 * int32", 0, "integer is too large"),
    ("... int32", 4, "expected '*' after '...'"),
    (
        "... * ... * int32",
        6,
        "one ellipsis or variable power at most",
    ),
    (
        "Dims... * 3 * More... * int32",
        14,
        "one ellipsis or variable power at most",
    ),
    (
        "Fixed**N * ... * int32",
        11,
        "one ellipsis or variable power at most",
    ),
    ("3** * int32", 4, "expected an exponent"),
    ("3**x * int32", 3, "expected an exponent"),
    ("3**2 int32", 5, "expected '*' after a power"),
    (
        "N**N * int32",
        3,
        "cannot be both a power's base and its exponent",
    ),
    ("2**200 * int8", 3, "more than 128 dimensions"),
    ("??int32", 1, "an option of an option"),
    ("?option[int32]", 1, "an option of an option"),
    ("option[?int32]", 7, "an option of an option"),
    ("?", 1, "expected a type, found end of input"),
    ("3 * ?", 5, "expected a type, found end of input"),
    ("? ?int8", 2, "an option of an option"),
    ("option int32", 7, "expected '[' after 'option'"),
    ("(int32", 6, "expected ',' or ')', found end of input"),
    ("(int32 float64)", 7, "expected ',' or ')'"),
    ("(int32,, float64)", 7, "expected a type, found ','"),
    ("(..., int32)", 6, "'...' must be the last field of a tuple"),
    (
        "(x: int32)",
        1,
        "keyword arguments are only allowed in a callable signature",
    ),
    ("{x: int32", 9, "expected ',' or '}', found end of input"),
    ("{x int32}", 3, "expected ':' after a field name"),
    ("{x: int32, x: int8}", 11, "duplicate field name 'x'"),
    (
        "{x: int32,, y: int8}",
        10,
        "expected a field name or '}', found ','",
    ),
    ("{3: int32}", 1, "expected a field name or '}'"),
    (
        "{..., x: int32}",
        6,
        "'...' must be the last field of a struct",
    ),
    ("{'x: int32}", 1, "unterminated quoted string"),
    ("{'x\\q': int32}", 3, "invalid escape"),
    ("(int32) ->", 10, "expected a type, found end of input"),
    (
        "(a: int32, float64) -> int32",
        11,
        "positional argument after a keyword argument",
    ),
    (
        "(..., int32) -> int32",
        6,
        "positional argument after '...'",
    ),
    (
        "(a: int32, ..., b: int8) -> int32",
        16,
        "nothing may follow the final '...'",
    ),
    (
        "(..., ..., ...) -> int32",
        11,
        "nothing may follow the final '...'",
    ),
    (
        "(a: int32, a: int8) -> int32",
        11,
        "duplicate keyword argument 'a'",
    ),
    ("int32 -> int32", 6, "expected end of input"),
    (
        "complex[int32]",
        8,
        "expected 'float32' or 'float64' inside complex[...]",
    ),
    ("complex[float32", 15, "expected ']'"),
    ("fixed_string", 12, "expected '[' after 'fixed_string'"),
    ("fixed_string[]", 13, "expected the string size"),
    // libdynd's rules: no empty fixed string, no zero power.
    (
        "fixed_string[0]",
        13,
        "a fixed_string holds at least 1 character",
    ),
    ("3**0 * int32", 3, "a power's exponent is at least 1"),
    (
        "4 * 2**0 * var * int32",
        7,
        "a power's exponent is at least 1",
    ),
    (
        "fixed_string[10, 'latin9']",
        17,
        "unknown encoding 'latin9'",
    ),
    (
        "fixed_string[10, 'utf8'",
        23,
        "expected ']' closing fixed_string[...]",
    ),
    (
        "fixed_bytes[8, align=3]",
        21,
        "alignment 3 is not a power of two",
    ),
    (
        "fixed_bytes[6, align=4]",
        21,
        "size 6 is not a multiple of the alignment 4",
    ),
    ("fixed_bytes[8, 4]", 15, "expected 'align='"),
    ("fixed_bytes[8, align 4]", 21, "expected '=' after 'align'"),
    ("int32 $", 6, "unexpected character '$'"),
    ("3 * var * int32\n  * float64", 18, "expected end of input"),
    (
        "{\n  x: int32,\n  y: flaot64\n}",
        19,
        "unknown type 'flaot64'",
    ),
    ("{x: 'int32'}", 4, "expected a type, found ''int32''"),
    ("3 * int32]", 9, "expected end of input"),
    ("-> int32", 0, "expected a type, found '->'"),
    ("- int32", 0, "unexpected character '-'"),
    (
        "3 * 4",
        5,
        "expected '*' after a dimension size, found end of input",
    ),
    ("{x: var}", 7, "expected '*' after 'var', found '}'"),
    // time types
    (
        "date[unit=\"s\"]",
        5,
        "unknown parameter 'unit' of date: a date has no parameters",
    ),
    (
        "datetime[unit=\"h\"]",
        14,
        "unknown time unit \"h\" (expected \"s\", \"ms\", \"us\" or \"ns\")",
    ),
    (
        "datetime[unit=\"s\", unit=\"ms\"]",
        19,
        "'unit' is given twice",
    ),
    (
        "timedelta[tz=\"UTC\"]",
        10,
        "unknown parameter 'tz' of timedelta: its one parameter is 'unit'",
    ),
    (
        "datetime[zone=\"UTC\"]",
        9,
        "the parameters of datetime are 'unit' and 'tz'",
    ),
    (
        "datetime[tz=\"Europe Paris\"]",
        12,
        "\"Europe Paris\" is not a time zone name",
    ),
    (
        "datetime[unit=ns]",
        14,
        "expected a quoted unit (unit=\"ns\", tz=\"UTC\") or a variable (unit=U)",
    ),
    ("datetime[]", 9, "expected a parameter of datetime"),
    (
        "datetime[unit=U tz=TZ]",
        16,
        "expected ',' or ']' closing datetime[...]",
    ),
];

#[test]
fn invalid_datashapes_report_offset_and_expectation() {
    let mut failures = Vec::new();
    for (input, offset, fragment) in CASES {
        match Type::parse(input) {
            Ok(t) => failures.push(format!("{input:?}: parsed as {t}")),
            Err(e) => {
                let msg = e.to_string();
                if e.offset() != *offset || !msg.contains(fragment) {
                    failures.push(format!(
                        "{input:?}: offset {} (expected {offset}), message:\n{msg}\n(expected to contain {fragment:?})",
                        e.offset()
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(CASES.len() >= 60);
}

#[test]
fn errors_render_the_line_with_a_caret() {
    let err = Type::parse("{\n  x: int32,\n  y: flaot64\n}").unwrap_err();
    assert_eq!((err.line(), err.column(), err.offset()), (3, 6, 19));
    assert_eq!(
        err.to_string(),
        "unknown type 'flaot64' (did you mean 'float64'?) at line 3, column 6 (byte 19)\n    \
         y: flaot64\n       ^"
    );
    assert_eq!(
        err.message(),
        "unknown type 'flaot64' (did you mean 'float64'?)"
    );
}

#[test]
fn caret_counts_characters_not_bytes() {
    let err = Type::parse("{'café': int32, 'ñ': flo}").unwrap_err();
    assert_eq!(err.offset(), 23);
    assert_eq!(err.column(), 22);
    assert!(err
        .to_string()
        .ends_with(&format!("\n  {}^", " ".repeat(21))));
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    let deep = format!("{}int32{}", "(".repeat(10_000), ")".repeat(10_000));
    let err = Type::parse(&deep).unwrap_err();
    assert!(
        matches!(err.kind(), ParseErrorKind::TooDeep { limit: 64 }),
        "{err}"
    );
    let deep_options = format!("{}int32{}", "option[".repeat(1000), "]".repeat(1000));
    assert!(Type::parse(&deep_options).is_err());
    let deep_structs = format!("{}int32{}", "{a: ".repeat(1000), "}".repeat(1000));
    assert!(matches!(
        Type::parse(&deep_structs).unwrap_err().kind(),
        ParseErrorKind::TooDeep { .. }
    ));
    // Nesting within the limit parses.
    let ok = format!("{}int32{}", "(".repeat(30), ")".repeat(30));
    assert!(Type::parse(&ok).is_ok());
}

#[test]
fn too_many_dimensions_is_an_error() {
    let many = format!("{}int32", "2 * ".repeat(129));
    let err = Type::parse(&many).unwrap_err();
    assert!(err.message().contains("more than 128 dimensions"), "{err}");
    let ok = format!("{}int32", "2 * ".repeat(128));
    assert_eq!(Type::parse(&ok).unwrap().ndim(), 128);
    let err = Type::parse("2**64 * 2**65 * int8").unwrap_err();
    assert!(err.message().contains("more than 128 dimensions"), "{err}");
}
