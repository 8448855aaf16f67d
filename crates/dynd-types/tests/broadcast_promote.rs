//! Type-level broadcasting (NumPy and strict) and promotion.

use dynd_types::{broadcast, can_cast_safely, promote, BroadcastMode, Error, Scalar, Type};

fn t(s: &str) -> Type {
    s.parse().unwrap_or_else(|e| panic!("{s:?}: {e}"))
}

fn bcast(args: &[&str], mode: BroadcastMode) -> Result<String, String> {
    let types: Vec<Type> = args.iter().map(|a| t(a)).collect();
    broadcast(&types, mode)
        .map(|r| r.to_string())
        .map_err(|e| e.to_string())
}

const NUMPY: &[(&[&str], Result<&str, &str>)] = &[
    (&["int32"], Ok("int32")),
    (&["int32", "int32"], Ok("int32")),
    (&["3 * int32", "int32"], Ok("3 * int32")),
    (&["int32", "3 * int32"], Ok("3 * int32")),
    (&["3 * int32", "3 * float64"], Ok("3 * float64")),
    (&["3 * 1 * int32", "4 * int32"], Ok("3 * 4 * int32")),
    (&["5 * 1 * 3 * int8", "2 * 1 * int8"], Ok("5 * 2 * 3 * int8")),
    (&["1 * int8", "0 * int8"], Ok("0 * int8")),
    (&["3 * int32", "4 * int32"], Err("cannot broadcast dimension 0 of the result: argument 0 has size 3 (3 * int32) and argument 1 has size 4 (4 * int32)")),
    (&["2 * 3 * int32", "2 * 4 * int32"], Err("cannot broadcast dimension 1 of the result: argument 0 has size 3")),
    (&["5 * 3 * int32", "4 * int32"], Err("cannot broadcast dimension 1 of the result: argument 0 has size 3 (5 * 3 * int32) and argument 1 has size 4 (4 * int32)")),
    (&["3 * int32", "3 * int32", "2 * 3 * int32", "4 * 3 * int32"], Err("dimension 0 of the result: argument 2 has size 2 (2 * 3 * int32) and argument 3 has size 4")),
    // ragged, from the multidim-kernels seed
    (&["2 * var * int32", "2 * 1 * int32"], Ok("2 * var * int32")),
    (&["2 * var * int32", "2 * 2 * int32"], Ok("2 * 2 * int32")),
    (&["var * int32", "var * int32"], Ok("var * int32")),
    (&["var * int32", "int32"], Ok("var * int32")),
    (&["var * 3 * int32", "3 * int32"], Ok("var * 3 * int32")),
    (&["var * int32", "2 * 3 * int32"], Ok("2 * 3 * int32")),
    (&["var * var * int32", "3 * 1 * float32"], Ok("3 * var * float64")),
    (&["var * 2 * int32", "var * 3 * int32"], Err("cannot broadcast dimension 1 of the result: argument 0 has size 2")),
    (&["var * int8", "1 * var * int8"], Ok("1 * var * int8")),
    // dtypes promote
    (&["3 * ?int8", "uint8"], Ok("3 * ?int16")),
    (&["string", "3 * string"], Ok("3 * string")),
    (&["3 * string", "3 * int32"], Err("no common type for string and int32")),
    (&["Fixed * int32", "3 * int32"], Err("broadcasting needs a concrete type, but Fixed * int32 is symbolic (dimension 'Fixed' is not a fixed size or var)")),
    (&["... * int32", "3 * int32"], Err("is symbolic")),
    (&["T", "int32"], Err("no common type for T and int32")),
];

#[test]
fn numpy_broadcasting() {
    let mut failures = Vec::new();
    for (args, expected) in NUMPY {
        let got = bcast(args, BroadcastMode::NumPy);
        let ok = match (&got, expected) {
            (Ok(g), Ok(w)) => g == w,
            (Err(g), Err(w)) => g.contains(w),
            _ => false,
        };
        if !ok {
            failures.push(format!("{args:?}: got {got:?}, expected {expected:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn strict_broadcasting_extends_only_zero_d_values() {
    let s = BroadcastMode::Strict;
    assert_eq!(
        bcast(&["int32", "10 * 3 * 4 * float32"], s),
        Ok("10 * 3 * 4 * float64".into())
    );
    assert_eq!(
        bcast(&["10 * 1 * 4 * int32", "10 * 3 * 1 * int32"], s),
        Ok("10 * 3 * 4 * int32".into())
    );
    assert_eq!(
        bcast(&["3 * 4 * int32", "10 * 3 * 4 * int32"], s),
        Err("strict broadcasting: argument 0 (3 * 4 * int32) has 2 dimension(s) but 3 are needed; only a 0-d value extends to more dimensions".into())
    );
    assert_eq!(
        bcast(&["var * int32", "int32"], s),
        Ok("var * int32".into())
    );
    assert!(bcast(&["var * int32", "2 * 3 * int32"], s).is_err());
    assert!(bcast(&["3 * int32", "4 * int32"], s)
        .unwrap_err()
        .contains("dimension 0"));
}

#[test]
fn broadcast_errors_carry_their_data() {
    let err = broadcast(
        &[t("2 * 3 * int32"), t("2 * 4 * int32")],
        BroadcastMode::NumPy,
    )
    .unwrap_err();
    match err {
        Error::Broadcast {
            axis, args, dims, ..
        } => {
            assert_eq!(axis, 1);
            assert_eq!(args, (0, 1));
            assert_eq!(dims.0.to_string(), "3");
            assert_eq!(dims.1.to_string(), "4");
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        broadcast(&[], BroadcastMode::NumPy),
        Err(Error::NoArguments)
    );
}

#[test]
fn broadcasting_commutes_for_two_arguments() {
    let types = [
        "int8",
        "3 * int8",
        "1 * int8",
        "var * int8",
        "2 * 1 * float32",
        "2 * var * int8",
        "4 * 3 * uint16",
        "1 * 1 * ?int8",
    ];
    for a in types {
        for b in types {
            let ab = bcast(&[a, b], BroadcastMode::NumPy);
            let ba = bcast(&[b, a], BroadcastMode::NumPy);
            assert_eq!(ab.is_ok(), ba.is_ok(), "{a} with {b}");
            if let (Ok(x), Ok(y)) = (ab, ba) {
                assert_eq!(x, y, "{a} with {b}");
            }
        }
    }
}

const PROMOTIONS: &[(&str, &str, &str)] = &[
    ("bool", "bool", "bool"),
    ("bool", "int8", "int8"),
    ("bool", "float32", "float32"),
    ("int8", "int8", "int8"),
    ("int8", "int16", "int16"),
    ("int64", "int32", "int64"),
    ("uint8", "uint32", "uint32"),
    ("int8", "uint8", "int16"),
    ("int16", "uint8", "int16"),
    ("int8", "uint16", "int32"),
    ("int32", "uint32", "int64"),
    ("int64", "uint32", "int64"),
    ("int64", "uint64", "float64"),
    ("int128", "uint64", "int128"),
    ("int128", "uint128", "float64"),
    ("int8", "float16", "float16"),
    ("uint8", "float16", "float16"),
    ("int16", "float16", "float32"),
    ("int16", "float32", "float32"),
    ("int32", "float32", "float64"),
    ("int64", "float32", "float64"),
    ("int32", "float64", "float64"),
    ("float16", "float32", "float32"),
    ("float32", "float64", "float64"),
    ("float32", "complex[float32]", "complex[float32]"),
    ("float64", "complex[float32]", "complex[float64]"),
    ("int8", "complex[float32]", "complex[float32]"),
    ("int32", "complex[float32]", "complex[float64]"),
    ("complex[float32]", "complex[float64]", "complex[float64]"),
    ("?int8", "int16", "?int16"),
    ("int16", "?int8", "?int16"),
    ("?int8", "?float32", "?float32"),
    ("(int8, float32)", "(int16, float64)", "(int16, float64)"),
    ("{x: int8}", "{x: uint8}", "{x: int16}"),
    ("string", "string", "string"),
];

#[test]
fn promotion_follows_numpy() {
    for (a, b, want) in PROMOTIONS {
        assert_eq!(promote(&t(a), &t(b)).unwrap(), t(want), "{a} + {b}");
        assert_eq!(promote(&t(b), &t(a)).unwrap(), t(want), "{b} + {a}");
    }
}

#[test]
fn promotion_errors_name_both_types() {
    for (a, b) in [
        ("string", "int32"),
        ("bytes", "string"),
        ("{x: int8}", "{y: int8}"),
        ("(int8)", "(int8, int8)"),
        ("3 * int8", "int8"),
        ("T", "S"),
    ] {
        let err = promote(&t(a), &t(b)).unwrap_err();
        assert_eq!(err.to_string(), format!("no common type for {a} and {b}"));
    }
}

#[test]
fn promotion_is_commutative_and_safe_casts_are_consistent() {
    for a in Scalar::ALL {
        for b in Scalar::ALL {
            let ab = dynd_types::promote_scalars(a, b);
            assert_eq!(ab, dynd_types::promote_scalars(b, a), "{a} {b}");
            if let Some(r) = ab {
                assert!(
                    can_cast_safely(a, r) && can_cast_safely(b, r),
                    "{a} {b} -> {r}"
                );
            }
        }
    }
    assert!(can_cast_safely(Scalar::Int8, Scalar::Int64));
    assert!(!can_cast_safely(Scalar::Int64, Scalar::Int8));
    assert!(!can_cast_safely(Scalar::Float64, Scalar::Int64));
    assert!(!can_cast_safely(Scalar::UInt64, Scalar::Int64));
}
