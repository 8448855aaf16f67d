//! Pattern matching, typevar binding, signature resolution and substitution.

use dynd_types::{Bindings, Mismatch, Name, Type};

fn t(s: &str) -> Type {
    s.parse().unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

fn show(b: &Bindings) -> String {
    b.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join("; ")
}

/// (pattern, candidate, Ok(bindings as "K=V; ...") or Err(message fragment))
const CASES: &[(&str, &str, Result<&str, &str>)] = &[
    // data types
    ("int32", "int32", Ok("")),
    ("int32", "int64", Err("expected int32, found int64")),
    ("T", "int32", Ok("T=int32")),
    ("T", "?int32", Ok("T=?int32")),
    ("T", "{x: int32, y: string}", Ok("T={x: int32, y: string}")),
    ("T", "3 * int32", Err("expected T, found 3 * int32")),
    ("?T", "?float64", Ok("T=float64")),
    ("?T", "float64", Err("expected ?T, found float64")),
    // libdynd's rules: `T` is a data type, never `Any` (which may hold
    // dimensions); the kind patterns take only the fixed-size kinds.
    ("T", "Any", Err("expected T, found Any")),
    (
        "FixedString",
        "fixed_string[3]",
        Ok("FixedString=fixed_string[3]"),
    ),
    (
        "FixedString",
        "fixed_string[2, 'utf16']",
        Ok("FixedString=fixed_string[2, 'utf16']"),
    ),
    (
        "FixedString",
        "string",
        Err("expected FixedString, found string"),
    ),
    (
        "FixedBytes",
        "fixed_bytes[4]",
        Ok("FixedBytes=fixed_bytes[4]"),
    ),
    (
        "FixedBytes",
        "bytes",
        Err("expected FixedBytes, found bytes"),
    ),
    (
        "FixedBytes",
        "fixed_string[4]",
        Err("expected FixedBytes, found fixed_string[4]"),
    ),
    // time patterns: a variable binds the unit or the zone's name
    ("timedelta[unit=U]", "timedelta[unit=\"ns\"]", Ok("U=ns")),
    ("timedelta[unit=U]", "timedelta", Ok("U=us")),
    (
        "timedelta[unit=U]",
        "datetime[unit=\"ns\"]",
        Err("expected timedelta[unit=U], found datetime[unit=\"ns\"]"),
    ),
    (
        "timedelta[unit=U]",
        "int64",
        Err("expected timedelta[unit=U], found int64"),
    ),
    ("datetime[unit=U]", "datetime[unit=\"s\"]", Ok("U=s")),
    // a naive pattern does not take a zoned datetime, nor a zoned one a naive
    (
        "datetime[unit=U]",
        "datetime[tz=\"UTC\"]",
        Err("found datetime[tz=\"UTC\"]"),
    ),
    (
        "datetime[tz=TZ]",
        "datetime",
        Err("expected datetime[unit=\"us\", tz=TZ], found datetime"),
    ),
    (
        "datetime[tz=TZ]",
        "datetime[tz=\"Europe/Paris\"]",
        Ok("TZ=Europe/Paris"),
    ),
    // `datetime[tz=TZ]` has the concrete type's unit, "us"
    (
        "datetime[tz=TZ]",
        "datetime[unit=\"ns\", tz=\"UTC\"]",
        Err("found datetime[unit=\"ns\", tz=\"UTC\"]"),
    ),
    (
        "datetime[unit=U, tz=TZ]",
        "datetime[unit=\"ns\", tz=\"UTC\"]",
        Ok("TZ=UTC; U=ns"),
    ),
    (
        "datetime[unit=U, tz=\"UTC\"]",
        "datetime[unit=\"ms\", tz=\"UTC\"]",
        Ok("U=ms"),
    ),
    (
        "datetime[unit=U, tz=\"UTC\"]",
        "datetime[unit=\"ms\", tz=\"+01:00\"]",
        Err("found datetime[unit=\"ms\", tz=\"+01:00\"]"),
    ),
    ("time[unit=U]", "time[unit=\"ms\"]", Ok("U=ms")),
    (
        "time[unit=U]",
        "date",
        Err("expected time[unit=U], found date"),
    ),
    (
        "3 * ?timedelta[unit=U]",
        "3 * ?timedelta[unit=\"s\"]",
        Ok("U=s"),
    ),
    (
        "{at: datetime[unit=U, tz=TZ], d: timedelta[unit=U]}",
        "{at: datetime[unit=\"ms\", tz=\"UTC\"], d: timedelta[unit=\"s\"]}",
        Err("unit variable 'U' is bound to 'ms' but meets 's'"),
    ),
    // `(...)` takes any arguments, keywords included.
    ("(...) -> int32", "(int32, x: float64) -> int32", Ok("")),
    ("(...) -> int32", "(x: float64, y: ?int8) -> int32", Ok("")),
    (
        "(int32, ...) -> int32",
        "(int32, x: float64) -> int32",
        Err("unknown keyword argument 'x'"),
    ),
    ("Scalar", "string", Ok("")),
    (
        "Scalar",
        "3 * string",
        Err("expected Scalar, found 3 * string"),
    ),
    ("Any", "3 * var * int32", Ok("")),
    ("Any", "int32", Ok("")),
    ("3 * Any", "3 * 4 * int32", Ok("")),
    (
        "3 * Any",
        "4 * int32",
        Err("expected dimension '3', found '4'"),
    ),
    ("(T, T)", "(int32, int32)", Ok("T=int32")),
    (
        "(T, T)",
        "(int32, int64)",
        Err("type variable 'T' is bound to 'int32' but meets 'int64'"),
    ),
    ("(int32, ...)", "(int32, string, bool)", Ok("")),
    (
        "(int32, ...)",
        "(int64, string)",
        Err("expected int32, found int64"),
    ),
    (
        "(int32, string)",
        "(int32)",
        Err("expected 2 field(s), found 1"),
    ),
    ("{x: T, ...}", "{x: int8, y: string}", Ok("T=int8")),
    ("{x: T}", "{y: int8}", Err("expected field 'x', found 'y'")),
    ("{x: T, y: T}", "{x: int8, y: int8}", Ok("T=int8")),
    ("{x: N * T}", "{x: 3 * int8}", Ok("N=3; T=int8")),
    // dimensions
    ("3 * int32", "3 * int32", Ok("")),
    (
        "3 * int32",
        "4 * int32",
        Err("expected dimension '3', found '4'"),
    ),
    ("N * T", "5 * float64", Ok("N=5; T=float64")),
    ("N * T", "var * float64", Ok("N=var; T=float64")),
    (
        "N * T",
        "float64",
        Err("expected 1 dimension(s), found 0 in float64"),
    ),
    ("N * N * T", "3 * 3 * int8", Ok("N=3; T=int8")),
    (
        "N * N * T",
        "3 * 4 * int8",
        Err("dimension variable 'N' is bound to '3' but meets '4'"),
    ),
    ("N * N * T", "var * var * int8", Ok("N=var; T=int8")),
    (
        "N * N * T",
        "var * 3 * int8",
        Err("dimension variable 'N' is bound to 'var' but meets '3'"),
    ),
    ("var * T", "var * int8", Ok("T=int8")),
    (
        "var * T",
        "3 * int8",
        Err("expected dimension 'var', found '3'"),
    ),
    ("Fixed * T", "3 * int8", Ok("T=int8")),
    (
        "Fixed * T",
        "var * int8",
        Err("expected dimension 'Fixed', found 'var'"),
    ),
    ("Fixed * T", "Fixed * int8", Ok("T=int8")),
    ("Dim * T", "var * int8", Ok("T=int8")),
    ("Dim * Dim * T", "3 * var * int8", Ok("T=int8")),
    ("N * T", "M * int8", Ok("N=M; T=int8")),
    ("T", "S", Ok("T=S")),
    (
        "3 * int32",
        "N * int32",
        Err("expected dimension '3', found 'N'"),
    ),
    // ellipses
    ("... * T", "int32", Ok("T=int32")),
    ("... * T", "3 * var * 4 * int32", Ok("T=int32")),
    (
        "Dims... * T",
        "3 * var * int32",
        Ok("Dims=3 * var; T=int32"),
    ),
    ("Dims... * T", "int32", Ok("Dims=; T=int32")),
    ("Dims... * 3 * T", "2 * 3 * int32", Ok("Dims=2; T=int32")),
    (
        "Dims... * 3 * T",
        "2 * 4 * int32",
        Err("expected dimension '3', found '4'"),
    ),
    (
        "Dims... * 3 * T",
        "int32",
        Err("expected at least 1 dimension(s), found 0 in int32"),
    ),
    ("3 * ... * 2 * T", "3 * 2 * int8", Ok("T=int8")),
    ("3 * ... * 2 * T", "3 * 5 * 6 * 2 * int8", Ok("T=int8")),
    ("... * T", "... * int32", Ok("T=int32")),
    (
        "Dims... * T",
        "3 * ... * int32",
        Ok("Dims=3 * ...; T=int32"),
    ),
    (
        "3 * int32",
        "... * int32",
        Err("expected dimension '3', found '...'"),
    ),
    (
        "(Dims... * int32, Dims... * float32)",
        "(3 * 1 * int32, 1 * 2 * float32)",
        Ok("Dims=3 * 2"),
    ),
    (
        "(Dims... * int32, Dims... * float32)",
        "(3 * int32, 2 * 3 * float32)",
        Ok("Dims=2 * 3"),
    ),
    (
        "(Dims... * int32, Dims... * float32)",
        "(var * int32, 5 * float32)",
        Ok("Dims=5"),
    ),
    (
        "(Dims... * int32, Dims... * float32)",
        "(3 * int32, 4 * float32)",
        Err("ellipsis 'Dims...' is bound to '3', which does not broadcast with '4'"),
    ),
    (
        "(Dims... * T, Dims... * T)",
        "(int32, 2 * int32)",
        Ok("Dims=2; T=int32"),
    ),
    // powers
    ("Fixed**N * T", "3 * 4 * int8", Ok("N=2; T=int8")),
    ("Fixed**N * T", "int8", Ok("N=0; T=int8")),
    (
        "Fixed**N * T",
        "3 * var * int8",
        Err("expected dimension 'Fixed', found 'var'"),
    ),
    ("3**N * T", "3 * 3 * 3 * int8", Ok("N=3; T=int8")),
    (
        "3**N * T",
        "3 * 4 * int8",
        Err("expected dimension '3', found '4'"),
    ),
    ("4**N * N * int32", "4 * 4 * 2 * int32", Ok("N=2")),
    (
        "4**N * N * int32",
        "4 * 4 * 3 * int32",
        Err("dimension variable 'N' is bound to '2' but meets '3'"),
    ),
    ("D**N * T", "5 * 5 * int8", Ok("D=5; N=2; T=int8")),
    (
        "D**N * T",
        "5 * 6 * int8",
        Err("dimension variable 'D' is bound to '5' but meets '6'"),
    ),
    (
        "(N * int8, Fixed**N * T)",
        "(2 * int8, 7 * 8 * int8)",
        Ok("N=2; T=int8"),
    ),
    (
        "(N * int8, Fixed**N * T)",
        "(3 * int8, 7 * 8 * int8)",
        Err("dimension variable 'N' is bound to '3' but meets '2'"),
    ),
    // callables as types
    ("(T) -> T", "(int32) -> int32", Ok("T=int32")),
    (
        "(T) -> T",
        "(int32) -> int64",
        Err("type variable 'T' is bound to 'int32' but meets 'int64'"),
    ),
    (
        "(N * T, k: ?S) -> T",
        "(3 * int8, k: ?float32) -> int8",
        Ok("N=3; S=float32; T=int8"),
    ),
];

#[test]
fn patterns_match_and_bind_consistently() {
    let mut failures = Vec::new();
    for (pattern, candidate, expected) in CASES {
        let got = t(pattern).match_type(&t(candidate));
        let ok = match (&got, expected) {
            (Ok(b), Ok(want)) => show(b) == *want,
            (Err(e), Err(want)) => e.to_string().contains(want),
            _ => false,
        };
        if !ok {
            let got = got.map(|b| show(&b)).map_err(|e| e.to_string());
            failures.push(format!(
                "{pattern} vs {candidate}: got {got:?}, expected {expected:?}"
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn kw(pairs: &[(&str, &str)]) -> Vec<(Name, Type)> {
    pairs.iter().map(|(k, v)| (Name::from(*k), t(v))).collect()
}

fn resolve(sig: &str, args: &[&str], kws: &[(&str, &str)]) -> Result<String, String> {
    let args: Vec<Type> = args.iter().map(|a| t(a)).collect();
    t(sig)
        .resolve(&args, &kw(kws))
        .map(|r| r.to_string())
        .map_err(|e| e.to_string())
}

#[test]
fn time_signatures_bind_the_unit_and_the_zone() {
    // The callables seed's example: two instants of one zone.
    let diff = "(datetime[tz=TZ], datetime[tz=TZ]) -> timedelta";
    let paris = "datetime[tz=\"Europe/Paris\"]";
    assert_eq!(resolve(diff, &[paris, paris], &[]), Ok("timedelta".into()));
    assert_eq!(
        resolve(diff, &[paris, "datetime[tz=\"UTC\"]"], &[]),
        Err("argument 1: zone variable 'TZ' is bound to 'Europe/Paris' but meets 'UTC'".into())
    );
    assert_eq!(
        resolve(diff, &[paris, "datetime"], &[]),
        Err("argument 1: expected datetime[unit=\"us\", tz=TZ], found datetime".into())
    );
    // Substitution puts the bound unit and zone back, over dimensions too.
    let shift = "(N * datetime[unit=U, tz=TZ], timedelta[unit=U]) -> N * datetime[unit=U, tz=TZ]";
    assert_eq!(
        resolve(
            shift,
            &[
                "5 * datetime[unit=\"ns\", tz=\"America/New_York\"]",
                "timedelta[unit=\"ns\"]"
            ],
            &[]
        ),
        Ok("5 * datetime[unit=\"ns\", tz=\"America/New_York\"]".into())
    );
    assert_eq!(
        resolve(
            shift,
            &[
                "5 * datetime[unit=\"ns\", tz=\"UTC\"]",
                "timedelta[unit=\"s\"]"
            ],
            &[]
        ),
        Err("argument 1: unit variable 'U' is bound to 'ns' but meets 's'".into())
    );
    let naive = "(datetime[unit=U]) -> ?time[unit=U]";
    assert_eq!(
        resolve(naive, &["datetime[unit=\"ms\"]"], &[]),
        Ok("?time[unit=\"ms\"]".into())
    );
    // A return variable no argument binds, or one bound to the wrong sort.
    assert!(resolve("(int32) -> timedelta[unit=U]", &["int32"], &[])
        .unwrap_err()
        .contains("'U'"));
    let err = resolve("(N * int32) -> timedelta[unit=N]", &["3 * int32"], &[]).unwrap_err();
    assert!(err.contains("a time unit"), "{err}");
    // A time pattern is a pattern: it describes no data.
    assert!(t("datetime[tz=TZ]").is_symbolic());
    assert!(t("datetime[tz=TZ]").data_layout().is_err());
}

#[test]
fn matrix_multiply_binds_sizes_not_just_dimensions() {
    let mm = "(M * N * T, N * R * T) -> M * R * T";
    assert_eq!(
        resolve(mm, &["2 * 3 * float64", "3 * 5 * float64"], &[]),
        Ok("2 * 5 * float64".into())
    );
    assert_eq!(
        resolve(mm, &["2 * 3 * int32", "4 * 5 * int32"], &[]),
        Err("argument 1: dimension variable 'N' is bound to '3' but meets '4'".into())
    );
    // The seed's quirk 2: a var dim and a fixed dim are not "the same N".
    assert!(resolve(mm, &["3 * var * float64", "var * 3 * float64"], &[]).is_ok());
    assert!(resolve(mm, &["3 * var * float64", "4 * 3 * float64"], &[]).is_err());
}

#[test]
fn signatures_match_positional_keyword_and_variadic_arguments() {
    let clip = "(float64, lo: float64, hi: ?float64) -> float64";
    assert_eq!(
        resolve(clip, &["float64"], &[("lo", "float64")]),
        Ok("float64".into())
    );
    assert_eq!(
        resolve(clip, &["float64"], &[("lo", "float64"), ("hi", "float64")]),
        Ok("float64".into())
    );
    assert_eq!(
        resolve(clip, &["float64"], &[("hi", "?float64"), ("lo", "float64")]),
        Ok("float64".into())
    );
    assert_eq!(
        resolve(clip, &["float64"], &[]),
        Err("missing required keyword argument 'lo' (valid keywords: lo, hi)".into())
    );
    assert_eq!(
        resolve(clip, &["float64"], &[("lo", "float64"), ("mid", "float64")]),
        Err("unknown keyword argument 'mid' (valid keywords: lo, hi)".into())
    );
    assert_eq!(
        resolve(clip, &["float64"], &[("lo", "float64"), ("lo", "float64")]),
        Err("keyword argument 'lo' given more than once".into())
    );
    assert_eq!(
        resolve(clip, &["float64"], &[("lo", "int32")]),
        Err("keyword argument 'lo': expected float64, found int32".into())
    );
    assert_eq!(
        resolve(clip, &["float64", "float64"], &[("lo", "float64")]),
        Err("expected 1 positional argument(s), found 2".into())
    );
    assert_eq!(
        resolve(clip, &["int32"], &[("lo", "float64")]),
        Err("argument 0: expected float64, found int32".into())
    );

    let var_pos = "(int32, ..., shape: 3 * int64) -> float32";
    assert_eq!(
        resolve(
            var_pos,
            &["int32", "string", "bool"],
            &[("shape", "3 * int64")]
        ),
        Ok("float32".into())
    );
    assert_eq!(
        resolve(var_pos, &[], &[("shape", "3 * int64")]),
        Err("expected at least 1 positional argument(s), found 0".into())
    );
    let var_kw = "(..., scale: float64, ...) -> int32";
    assert_eq!(
        resolve(
            var_kw,
            &["int8"],
            &[("scale", "float64"), ("extra", "string")]
        ),
        Ok("int32".into())
    );
    let reduce = "(Dims... * T, axis: ?Fixed * int64, keepdims: ?bool) -> T";
    assert_eq!(
        resolve(reduce, &["3 * var * float32"], &[]),
        Ok("float32".into())
    );
    assert_eq!(
        resolve(
            reduce,
            &["3 * var * float32"],
            &[("axis", "2 * int64"), ("keepdims", "bool")]
        ),
        Ok("float32".into())
    );
    assert_eq!(
        resolve(reduce, &["3 * float32"], &[("axis", "var * int64")]),
        Err("keyword argument 'axis': expected dimension 'Fixed', found 'var'".into())
    );
    let higher = "(N * S, func: (M * S) -> T) -> N * T";
    assert_eq!(
        resolve(
            higher,
            &["4 * float32"],
            &[("func", "(2 * float32) -> bool")]
        ),
        Ok("4 * bool".into())
    );
}

#[test]
fn substitution_expands_ellipses_powers_and_options() {
    assert_eq!(
        resolve("(Dims... * T) -> Dims... * 2 * T", &["3 * var * int8"], &[]),
        Ok("3 * var * 2 * int8".into())
    );
    assert_eq!(
        resolve("(N * T) -> Fixed**N * T", &["3 * int8"], &[]).unwrap(),
        "Fixed * Fixed * Fixed * int8"
    );
    assert_eq!(
        resolve("(N * T) -> 2**N * T", &["2 * int8"], &[]).unwrap(),
        "2 * 2 * int8"
    );
    assert_eq!(resolve("(T) -> ?T", &["?int8"], &[]).unwrap(), "?int8");
    assert_eq!(resolve("(T) -> ?T", &["int8"], &[]).unwrap(), "?int8");
    assert_eq!(
        resolve("(T) -> {a: T, b: (T, N * T)}", &["int8"], &[]),
        Err("type variable 'N' is not bound (substituting into {a: T, b: (T, N * T)})".into())
    );
    assert_eq!(
        resolve("(T) -> R", &["int8"], &[]),
        Err("type variable 'R' is not bound (substituting into R)".into())
    );
    assert_eq!(
        resolve("(... * T) -> ... * T", &["3 * int8"], &[]),
        Err("type variable '...' is not bound (substituting into ... * T)".into())
    );
    assert!(resolve("(N * T) -> T * int8", &["3 * int8"], &[]).is_err());
}

#[test]
fn match_args_on_a_non_callable_is_a_mismatch() {
    let err = t("int32").match_args::<Type>(&[], &[]).unwrap_err();
    assert!(matches!(err, Mismatch::NotCallable { .. }));
    assert_eq!(err.to_string(), "int32 is not a callable signature");
}

#[test]
fn bindings_accumulate_across_matches() {
    let mut b = Bindings::new();
    t("N * T").match_into(&t("3 * int8"), &mut b).unwrap();
    let err = t("N * T").match_into(&t("4 * int8"), &mut b).unwrap_err();
    assert_eq!(
        err.to_string(),
        "dimension variable 'N' is bound to '3' but meets '4'"
    );
}
