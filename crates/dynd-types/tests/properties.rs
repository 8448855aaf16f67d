//! Property tests: parse ∘ print = id over generated types, no panic on any
//! input, broadcasting laws.

use dynd_types::{
    broadcast, BroadcastMode, Dim, Encoding, Name, Scalar, Signature, Struct, Tuple, Type, TypeKind,
};
use proptest::prelude::*;

fn name() -> impl Strategy<Value = Name> {
    prop_oneof![
        prop::sample::select(vec!["x", "y", "value", "var", "int32", "_a1", "Any"]),
        prop::sample::select(vec![
            "sepal length",
            "it's",
            "a\\b",
            "",
            "caf\u{e9}",
            "1st",
            "tab\there"
        ]),
    ]
    .prop_map(Name::from)
}

fn typevar() -> impl Strategy<Value = Name> {
    prop::sample::select(vec!["T", "S", "N", "M", "Dims", "R2"]).prop_map(Name::from)
}

fn leaf() -> impl Strategy<Value = Type> {
    prop_oneof![
        prop::sample::select(Scalar::ALL.to_vec()).prop_map(Type::from),
        (
            1usize..100,
            prop::sample::select(vec![
                Encoding::Ascii,
                Encoding::Utf8,
                Encoding::Utf16,
                Encoding::Utf32
            ])
        )
            .prop_map(|(size, encoding)| Type::new(TypeKind::FixedString {
                size,
                encoding
            })
            .unwrap()),
        (0usize..8, 0u32..5).prop_map(|(n, a)| {
            let align = 1usize << a;
            Type::new(TypeKind::FixedBytes {
                size: n * align,
                align,
            })
            .unwrap()
        }),
        Just(Type::new(TypeKind::Void).unwrap()),
        Just(Type::new(TypeKind::Type).unwrap()),
        Just(Type::new(TypeKind::Any).unwrap()),
        Just(Type::new(TypeKind::AnyScalar).unwrap()),
        typevar().prop_map(|n| Type::new(TypeKind::TypeVar(n)).unwrap()),
    ]
}

fn dim() -> impl Strategy<Value = Dim> {
    prop_oneof![
        (0usize..20).prop_map(Dim::Fixed),
        Just(Dim::Var),
        Just(Dim::AnyFixed),
        Just(Dim::AnyDim),
        typevar().prop_map(Dim::TypeVar),
        Just(Dim::Ellipsis(None)),
        typevar().prop_map(|n| Dim::Ellipsis(Some(n))),
        (
            prop_oneof![
                (1usize..5).prop_map(Dim::Fixed),
                Just(Dim::AnyFixed),
                Just(Dim::Var)
            ],
            typevar()
        )
            .prop_map(|(b, e)| Dim::Power(Box::new(b), e)),
    ]
}

/// Arbitrary types, valid by construction or filtered through `Type::new`.
fn any_type() -> impl Strategy<Value = Type> {
    leaf().prop_recursive(5, 48, 4, |inner| {
        prop_oneof![
            inner
                .clone()
                .prop_filter_map("option", |t| Type::option(t).ok()),
            (prop::collection::vec(inner.clone(), 0..4), any::<bool>()).prop_map(
                |(fields, variadic)| Type::new(TypeKind::Tuple(Tuple { fields, variadic }))
                    .unwrap()
            ),
            (
                prop::collection::vec((name(), inner.clone()), 0..4),
                any::<bool>()
            )
                .prop_filter_map("unique names", |(fields, variadic)| Type::new(
                    TypeKind::Struct(Struct { fields, variadic })
                )
                .ok()),
            (prop::collection::vec(dim(), 1..4), inner.clone())
                .prop_filter_map("one ellipsis", |(dims, t)| Type::with_dims(dims, t).ok()),
            (
                prop::collection::vec(inner.clone(), 0..3),
                any::<bool>(),
                prop::collection::vec((name(), inner.clone()), 0..3),
                any::<bool>(),
                inner,
            )
                .prop_filter_map(
                    "valid callable",
                    |(positional, vp, keywords, vk, ret)| {
                        Type::new(TypeKind::Callable(Signature {
                            positional,
                            variadic_positional: vp,
                            keywords,
                            variadic_keywords: vk,
                            ret,
                        }))
                        .ok()
                    }
                ),
        ]
    })
}

/// Strings made of datashape tokens, so that random inputs get deep into
/// the parser instead of failing on the first character.
fn token_soup() -> impl Strategy<Value = String> {
    let tokens = vec![
        "3",
        "0",
        "var",
        "Fixed",
        "fixed",
        "Dim",
        "N",
        "T",
        "Dims",
        "...",
        "*",
        "**",
        "int32",
        "?",
        "option",
        "[",
        "]",
        "(",
        ")",
        "{",
        "}",
        ",",
        ":",
        "->",
        "x",
        "'a b'",
        "complex",
        "float32",
        "fixed_string",
        "fixed_bytes",
        "align",
        "=",
        "'utf16'",
        "Any",
        "Scalar",
        " ",
        "\n",
        "99999999999999999999",
    ];
    prop::collection::vec(prop::sample::select(tokens), 0..40).prop_map(|v| v.concat())
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(2000)
}

proptest! {
    // 2000 cases by default; PROPTEST_CASES=200000 for a long fuzzing run.
    #![proptest_config(ProptestConfig { cases: cases(), ..ProptestConfig::default() })]

    #[test]
    fn parse_of_print_is_identity(t in any_type()) {
        let text = t.to_string();
        let back = text.parse::<Type>();
        prop_assert_eq!(back.as_ref(), Ok(&t), "printed as {}", text);
        prop_assert_eq!(back.unwrap().to_string(), text);
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Err(e) = Type::parse(&text) {
            prop_assert!(e.offset() <= text.len());
            let _ = e.to_string();
        }
    }

    #[test]
    fn token_soup_never_panics_and_round_trips_when_valid(text in token_soup()) {
        match Type::parse(&text) {
            Ok(t) => prop_assert_eq!(t.to_string().parse::<Type>(), Ok(t)),
            Err(e) => {
                prop_assert!(e.offset() <= text.len());
                prop_assert!(text.is_char_boundary(e.offset()));
            }
        }
    }

    #[test]
    fn mutated_types_never_panic(t in any_type(), at in any::<usize>(), byte in any::<u8>(), delete in any::<bool>()) {
        let mut text = t.to_string().into_bytes();
        let at = at % (text.len() + 1);
        if delete && at < text.len() { text.remove(at); } else { text.insert(at, byte); }
        let text = String::from_utf8_lossy(&text).into_owned();
        if let Ok(t) = text.parse::<Type>() {
            prop_assert_eq!(t.to_string().parse::<Type>(), Ok(t));
        }
    }

    #[test]
    fn matching_a_concrete_type_against_itself_succeeds(t in any_type()) {
        if !t.is_symbolic() {
            prop_assert!(t.match_type(&t).is_ok());
            prop_assert!(t.data_layout().is_ok());
        }
    }

    #[test]
    fn every_type_matches_any_and_its_dtype_matches_a_typevar(t in any_type()) {
        prop_assert!("Any".parse::<Type>().unwrap().match_type(&t).is_ok());
        let (dims, dtype) = t.split_dims();
        if matches!(dtype.kind(), TypeKind::Any) {
            // `T` is a data type; `Any` may hold dimensions (libdynd's rule).
            prop_assert!("T".parse::<Type>().unwrap().match_type(dtype).is_err());
        } else if dims.iter().all(|d| d.is_concrete()) {
            let pattern = format!("{}T", "Dim * ".repeat(dims.len()));
            let b = pattern.parse::<Type>().unwrap().match_type(&t).unwrap();
            prop_assert_eq!(b.get("T").map(|b| b.to_string()), Some(dtype.to_string()));
        }
    }

    #[test]
    fn broadcasting_commutes_and_matches_pairwise(
        a in prop::collection::vec(prop_oneof![Just(1usize), Just(2), Just(3), Just(0)], 0..4),
        b in prop::collection::vec(prop_oneof![Just(1usize), Just(2), Just(3), Just(0)], 0..4),
        avar in any::<bool>(),
    ) {
        let make = |dims: &[usize], var: bool| {
            let mut ds: Vec<Dim> = dims.iter().map(|&n| Dim::Fixed(n)).collect();
            if var && !ds.is_empty() { ds[0] = Dim::Var; }
            Type::with_dims(ds, Scalar::Int32.into()).unwrap()
        };
        let ta = make(&a, avar);
        let tb = make(&b, false);
        let ab = broadcast(&[ta.clone(), tb.clone()], BroadcastMode::NumPy);
        let ba = broadcast(&[tb.clone(), ta.clone()], BroadcastMode::NumPy);
        prop_assert_eq!(ab.is_ok(), ba.is_ok());
        if let (Ok(x), Ok(y)) = (&ab, &ba) {
            prop_assert_eq!(x, y);
            prop_assert_eq!(x.ndim(), a.len().max(b.len()));
            // Each fixed result size is one of the argument sizes at that place.
            let shape = x.split_dims().0.iter().map(|d| d.to_string()).collect::<Vec<_>>();
            for (i, s) in shape.iter().rev().enumerate() {
                let from_a = a.iter().rev().nth(i).map(|n| n.to_string());
                let from_b = b.iter().rev().nth(i).map(|n| n.to_string());
                prop_assert!(s == "var" || Some(s) == from_a.as_ref() || Some(s) == from_b.as_ref());
            }
        }
        // NumPy's rule, written out: sizes agree, or one is 1.
        let fixed_ok = a.iter().rev().zip(b.iter().rev()).enumerate().all(|(i, (x, y))| {
            x == y || *x == 1 || *y == 1 || (avar && i == a.len() - 1)
        });
        prop_assert_eq!(ab.is_ok(), fixed_ok);
    }
}

/// Types through serde as their datashape text (feature `serde`).
#[cfg(feature = "serde")]
#[test]
fn types_round_trip_through_serde_as_text() {
    for text in [
        "int32",
        "3 * var * ?float64",
        "{x: int8, y: 2 * string}",
        "Dims... * T",
    ] {
        let t: dynd_types::Type = text.parse().unwrap();
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(json, format!("{:?}", t.to_string()));
        assert_eq!(serde_json::from_str::<dynd_types::Type>(&json).unwrap(), t);
    }
    let e = serde_json::from_str::<dynd_types::Type>(r#""3 * flaot64""#).unwrap_err();
    assert!(e.to_string().contains("did you mean 'float64'"), "{e}");
    assert!(serde_json::from_str::<dynd_types::Type>("3").is_err());
}
