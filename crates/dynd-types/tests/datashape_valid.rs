//! Valid datashapes: each parses, prints in canonical form, and the
//! canonical form parses back to an equal type.

use dynd_types::Type;

/// (input, canonical form)
const CASES: &[(&str, &str)] = &[
    // scalars and aliases
    ("bool", "bool"),
    ("int8", "int8"),
    ("int16", "int16"),
    ("int32", "int32"),
    ("int64", "int64"),
    ("int128", "int128"),
    ("uint8", "uint8"),
    ("uint16", "uint16"),
    ("uint32", "uint32"),
    ("uint64", "uint64"),
    ("uint128", "uint128"),
    ("float16", "float16"),
    ("float32", "float32"),
    ("float64", "float64"),
    ("complex[float32]", "complex[float32]"),
    ("complex[float64]", "complex[float64]"),
    ("complex[ float64 ]", "complex[float64]"),
    ("string", "string"),
    ("bytes", "bytes"),
    ("void", "void"),
    ("type", "type"),
    ("int", "int32"),
    ("real", "float64"),
    ("complex", "complex[float64]"),
    ("complex64", "complex[float32]"),
    ("complex128", "complex[float64]"),
    ("intptr", "int64"),
    ("uintptr", "uint64"),
    ("size", "uint64"),
    // fixed strings and bytes
    ("fixed_string[10]", "fixed_string[10]"),
    ("fixed_string[10, 'utf8']", "fixed_string[10]"),
    ("fixed_string[10, 'U8']", "fixed_string[10]"),
    ("fixed_string[4, 'ascii']", "fixed_string[4, 'ascii']"),
    ("fixed_string[4, 'A']", "fixed_string[4, 'ascii']"),
    ("fixed_string[3, 'utf16']", "fixed_string[3, 'utf16']"),
    ("fixed_string[3, 'U16']", "fixed_string[3, 'utf16']"),
    ("fixed_string[2, \"U32\"]", "fixed_string[2, 'utf32']"),
    ("fixed_bytes[8]", "fixed_bytes[8]"),
    ("fixed_bytes[8, align=1]", "fixed_bytes[8]"),
    ("fixed_bytes[16, align=8]", "fixed_bytes[16, align=8]"),
    // options
    ("?int32", "?int32"),
    ("option[int32]", "?int32"),
    ("option[ {x: int8} ]", "?{x: int8}"),
    ("?string", "?string"),
    ("? float64", "?float64"),
    ("?T", "?T"),
    ("?(int32, float64)", "?(int32, float64)"),
    // an option of an array (an optional keyword's type), not an array of options
    ("?3 * int32", "?3 * int32"),
    ("option[var * int64]", "?var * int64"),
    ("3 * ?4 * int32", "3 * ?4 * int32"),
    ("?Dims... * T", "?Dims... * T"),
    ("?Any", "?Any"),
    // tuples
    ("()", "()"),
    ("(int32)", "(int32)"),
    ("(int32,)", "(int32)"),
    ("(int32, string)", "(int32, string)"),
    ("(int32, (float64, ?bool))", "(int32, (float64, ?bool))"),
    ("(3 * int32, var * string)", "(3 * int32, var * string)"),
    ("(int32, ...)", "(int32, ...)"),
    ("(...)", "(...)"),
    // structs
    ("{}", "{}"),
    ("{x: int32}", "{x: int32}"),
    ("{x: int32, y: ?float64}", "{x: int32, y: ?float64}"),
    (
        "{x: int32, 'sepal length': float64}",
        "{x: int32, 'sepal length': float64}",
    ),
    ("{\"x\": int32}", "{x: int32}"),
    ("{x: int32, y: float64,}", "{x: int32, y: float64}"),
    ("{\n  x: int32,\n  y: float64\n}", "{x: int32, y: float64}"),
    ("{'it\\'s': int8}", "{'it\\'s': int8}"),
    ("{'a\\\\b': int8}", "{'a\\\\b': int8}"),
    ("{'caf\u{e9}': int8}", "{'caf\u{e9}': int8}"),
    ("{'': int8}", "{'': int8}"),
    ("{'1st': int8}", "{'1st': int8}"),
    (
        "{var: int32, int32: var * int8}",
        "{var: int32, int32: var * int8}",
    ),
    ("{x: T, ...}", "{x: T, ...}"),
    ("{...}", "{...}"),
    (
        "{pos: 3 * float32, tags: var * string}",
        "{pos: 3 * float32, tags: var * string}",
    ),
    // dimensions
    ("5 * int32", "5 * int32"),
    ("0 * int32", "0 * int32"),
    ("fixed[5] * int32", "5 * int32"),
    ("3*4*float64", "3 * 4 * float64"),
    ("var * int32", "var * int32"),
    ("3 * var * int32", "3 * var * int32"),
    ("var * var * ?string", "var * var * ?string"),
    ("Fixed * int32", "Fixed * int32"),
    ("N * T", "N * T"),
    ("M * N * float64", "M * N * float64"),
    ("... * int32", "... * int32"),
    ("Dims... * T", "Dims... * T"),
    ("3 * ... * int32", "3 * ... * int32"),
    ("... * 3 * int32", "... * 3 * int32"),
    ("Dim * int32", "Dim * int32"),
    ("3 * {x: 2 * int8}", "3 * {x: 2 * int8}"),
    // powers
    ("3**2 * int32", "3 * 3 * int32"),
    ("2**3 * int8", "2 * 2 * 2 * int8"),
    ("3**1 * int32", "3 * int32"),
    ("var**2 * int32", "var * var * int32"),
    ("Fixed**2 * T", "Fixed * Fixed * T"),
    ("Fixed**N * T", "Fixed**N * T"),
    ("D**N * T", "D**N * T"),
    ("D**2 * T", "D * D * T"),
    ("3**N * int32", "3**N * int32"),
    ("4**N * N * int32", "4**N * N * int32"),
    ("fixed[2]**2 * int32", "2 * 2 * int32"),
    // kinds and typevars
    ("Any", "Any"),
    ("Scalar", "Scalar"),
    ("T", "T"),
    ("MyType_2", "MyType_2"),
    ("3 * Any", "3 * Any"),
    // callables
    ("() -> int32", "() -> int32"),
    ("(int32) -> int32", "(int32) -> int32"),
    ("(int32, float64) -> float64", "(int32, float64) -> float64"),
    (
        "(float64, lo: float64, hi: ?float64) -> float64",
        "(float64, lo: float64, hi: ?float64) -> float64",
    ),
    (
        "(int32, ..., shape: 3 * int64) -> float32",
        "(int32, ..., shape: 3 * int64) -> float32",
    ),
    (
        "(..., scale: float64, ...) -> int32",
        "(..., scale: float64, ...) -> int32",
    ),
    ("(...) -> int32", "(...) -> int32"),
    ("(..., ...) -> int32", "(..., ...) -> int32"),
    ("(x: int32, ...) -> int32", "(x: int32, ...) -> int32"),
    (
        "(N * S, func: (M * S) -> T) -> N * T",
        "(N * S, func: (M * S) -> T) -> N * T",
    ),
    ("(N * T, N * T) -> T", "(N * T, N * T) -> T"),
    (
        "(M * N * T, N * R * T) -> M * R * T",
        "(M * N * T, N * R * T) -> M * R * T",
    ),
    (
        "(Dims... * T) -> Dims... * T",
        "(Dims... * T) -> Dims... * T",
    ),
    ("(... * int32) -> int32", "(... * int32) -> int32"),
    ("(int32) -> (int32) -> int32", "(int32) -> (int32) -> int32"),
    ("((int32) -> int32, float64)", "((int32) -> int32, float64)"),
    ("3 * (int32) -> 4 * int32", "3 * (int32) -> 4 * int32"),
    ("?(int32) -> int32", "?(int32) -> int32"),
    ("('the x': int32) -> int32", "('the x': int32) -> int32"),
    ("(int32,) -> int32", "(int32) -> int32"),
    (
        "(a: int32, b: float64,) -> bool",
        "(a: int32, b: float64) -> bool",
    ),
    // time types: the default unit is "us" and prints bare
    ("date", "date"),
    ("time", "time"),
    ("time[unit=\"ns\"]", "time[unit=\"ns\"]"),
    ("datetime[unit=\"us\"]", "datetime"),
    ("datetime[unit='ms']", "datetime[unit=\"ms\"]"),
    ("timedelta[unit=\"s\"]", "timedelta[unit=\"s\"]"),
    ("datetime[tz=\"UTC\"]", "datetime[tz=\"UTC\"]"),
    (
        "datetime[tz=\"Europe/Paris\", unit=\"ms\"]",
        "datetime[unit=\"ms\", tz=\"Europe/Paris\"]",
    ),
    ("datetime[tz=\"+05:30\"]", "datetime[tz=\"+05:30\"]"),
    ("?datetime[unit=\"ns\"]", "?datetime[unit=\"ns\"]"),
    // time patterns: a variable binds the unit or the zone
    ("timedelta[unit=U]", "timedelta[unit=U]"),
    ("datetime[tz=TZ]", "datetime[unit=\"us\", tz=TZ]"),
    ("datetime[unit=U, tz=TZ]", "datetime[unit=U, tz=TZ]"),
    (
        "datetime[tz=\"UTC\", unit=U]",
        "datetime[unit=U, tz=\"UTC\"]",
    ),
    ("time[unit=U]", "time[unit=U]"),
    (
        "(datetime[tz=TZ], datetime[tz=TZ]) -> timedelta",
        "(datetime[unit=\"us\", tz=TZ], datetime[unit=\"us\", tz=TZ]) -> timedelta",
    ),
    // whitespace is insignificant
    ("  3\t*\nvar*int32  ", "3 * var * int32"),
    ("(int32,float64)->float64", "(int32, float64) -> float64"),
];

#[test]
fn valid_datashapes_print_canonically_and_round_trip() {
    let mut failures = Vec::new();
    for (input, canonical) in CASES {
        match input.parse::<Type>() {
            Ok(t) => {
                let printed = t.to_string();
                if printed != *canonical {
                    failures.push(format!(
                        "{input:?}: printed {printed:?}, expected {canonical:?}"
                    ));
                }
                match printed.parse::<Type>() {
                    Ok(back) if back == t => {}
                    other => failures.push(format!("{input:?}: reparse gave {other:?}")),
                }
            }
            Err(e) => failures.push(format!("{input:?}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(CASES.len() >= 100, "{}", CASES.len());
}

#[test]
fn aliases_are_equal_to_what_they_stand_for() {
    let t = |s: &str| s.parse::<Type>().unwrap();
    assert_eq!(t("int"), t("int32"));
    assert_eq!(t("real"), t("float64"));
    assert_eq!(t("complex"), t("complex128"));
    assert_eq!(t("fixed[3] * int"), t("3 * int32"));
    assert_eq!(t("option[int]"), t("?int32"));
}
