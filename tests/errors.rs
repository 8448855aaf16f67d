//! `dynd::Error`'s data-carrying variants: each triggered through the
//! facade as a user would, its fields and its message checked.

use dynd::prelude::*;
use dynd::Error;

fn m() -> Array {
    nd::array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
}

#[test]
fn axes_out_of_range_or_repeated() {
    match m().sum_axis(2).unwrap_err() {
        e @ Error::AxisOutOfBounds { .. } => {
            assert_eq!(
                e.to_string(),
                "sum: axis 2 is out of bounds for an array of 2 dimension(s)"
            );
            let Error::AxisOutOfBounds { axis, ndim, .. } = e else {
                unreachable!()
            };
            assert_eq!((axis, ndim), (2, 2));
        }
        e => panic!("{e:?}"),
    }
    match m().std_axis([1, -1]).unwrap_err() {
        Error::DuplicateAxis { name, axis } => assert_eq!((name.as_str(), axis), ("std", -1)),
        e => panic!("{e:?}"),
    }
    // A scan names its own axis the same way.
    let e = m().cumsum(-3).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cumsum: axis -3 is out of bounds for an array of 2 dimension(s)"
    );
}

#[test]
fn masks_of_the_wrong_type_or_shape() {
    let ints = nd::array![1, 0, 1];
    // The callable checks the keyword (the kernel layer's own check is
    // `Error::MaskType`).
    match m().sum_with(&AxisOptions::new().mask(&ints)).unwrap_err() {
        Error::KeywordValue {
            name,
            keyword,
            expected,
            ..
        } => assert_eq!(
            (name.as_str(), keyword.as_str(), expected.as_str()),
            ("sum", "where", "a bool array")
        ),
        e => panic!("{e:?}"),
    }
    let short = nd::array![true, false];
    match m().sum_with(&AxisOptions::new().mask(&short)).unwrap_err() {
        Error::MaskShape {
            mask, array, axis, ..
        } => {
            assert_eq!(mask.to_string(), "2 * bool");
            assert_eq!(array.to_string(), "2 * 3 * float64");
            assert_eq!(axis, Some(1));
        }
        e => panic!("{e:?}"),
    }
    // Over ragged rows too.
    let ragged = nd::array![[1.0], [2.0, 3.0]];
    let e = ragged
        .sum_with(
            &AxisOptions::new()
                .axis(1)
                .mask(&nd::array![[true, false, true]]),
        )
        .unwrap_err();
    assert!(matches!(e, Error::MaskShape { .. }), "{e:?}");
    assert!(e.to_string().starts_with(
        "sum: the `where` mask 1 * 3 * bool does not broadcast to the array 2 * var * float64"
    ));
}

#[test]
fn empty_reductions_without_identity() {
    let empty = Array::zeros(&"0 * float64".parse().unwrap()).unwrap();
    match empty.max().unwrap_err() {
        e @ Error::EmptyReduction { .. } => assert_eq!(
            e.to_string(),
            "max: a reduction over no elements needs an identity, and max has none; pass `initial`"
        ),
        e => panic!("{e:?}"),
    }
    let e = builtins::get("maximum.reduce")
        .unwrap()
        .call(&[&empty])
        .unwrap_err();
    match e {
        Error::EmptyReduction { name, op } => {
            assert_eq!((name.as_str(), op.as_str()), ("maximum.reduce", "maximum"))
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn reductions_and_scans_of_operations_not_associative() {
    for (asked, what) in [
        ("subtract.reduce", "reduction"),
        ("subtract.accumulate", "scan"),
    ] {
        match builtins::get(asked).unwrap_err() {
            e @ Error::NotAssociative { .. } => {
                assert_eq!(
                    e.to_string(),
                    format!("subtract has no {what}: it is not declared associative")
                );
            }
            e => panic!("{e:?}"),
        }
    }
}

#[test]
fn a_builtin_name_given_twice() {
    // The registry refuses it when it is built; the message names it.
    let e = Error::DuplicateBuiltin { name: "add".into() };
    assert_eq!(e.to_string(), "two builtins are called 'add'");
}

#[test]
fn arguments_of_the_wrong_kind() {
    let zeros = builtins::get("zeros").unwrap();
    match zeros.call(&[&Array::from_scalar(3i64)]).unwrap_err() {
        e @ Error::ArgumentValue { .. } => assert_eq!(
            e.to_string(),
            "zeros: argument 0 must be a datashape string, not 3 (int64)"
        ),
        e => panic!("{e:?}"),
    }
    let index = builtins::get("index").unwrap();
    let bad = Array::from_value(&nd::Value::Str("1:2:3:4".into()), None).unwrap();
    match index.call(&[&nd::array![1, 2, 3], &bad]).unwrap_err() {
        Error::ArgumentValue {
            name, arg, note, ..
        } => {
            assert_eq!((&*name, arg), ("index", 1));
            assert_eq!(note.as_deref(), Some("a slice has one or two ':'"));
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn values_that_do_not_fit_their_type() {
    let ty: Type = "2 * {x: int8, y: int8}".parse().unwrap();
    let e = Array::from_json(r#"[{"x": 1, "y": 2}, {"x": 3}]"#, Some(&ty)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "field \"y\" of {x: int8, y: int8} is missing (at index [1])"
    );
    match e {
        Error::FromValue { problem, path } => {
            assert_eq!(path, [1]);
            match *problem {
                dynd::ValueProblem::MissingField { field, ty } => {
                    assert_eq!(
                        (&*field, ty.to_string().as_str()),
                        ("y", "{x: int8, y: int8}")
                    )
                }
                p => panic!("{p:?}"),
            }
        }
        e => panic!("{e:?}"),
    }
    // Values with no common type name the two kinds.
    match Array::from_json(r#"[1, "a"]"#, None).unwrap_err() {
        Error::FromValue { problem, .. } => assert_eq!(
            *problem,
            dynd::ValueProblem::Mixed {
                first: "int64 values".into(),
                second: "string values".into()
            }
        ),
        e => panic!("{e:?}"),
    }
    // Flat data for a shape, and nested data for a type.
    match Array::from_shape_vec(&[2, 2], vec![1.0f64; 3]).unwrap_err() {
        e @ Error::FromValue { .. } => {
            assert_eq!(
                e.to_string(),
                "shape [2, 2] holds 4 elements, but 3 were given"
            )
        }
        e => panic!("{e:?}"),
    }
    let e = Array::from_nested_as(
        vec![vec![1i64, 2], vec![3]],
        &"2 * 2 * int64".parse().unwrap(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "row 1 of dimension 1 has 1 element(s) where 2 * 2 * int64 has a fixed dimension of 2"
    );
}

#[test]
fn offsets_that_do_not_describe_rows() {
    let values = vec![1.0f64, 2.0, 3.0];
    let cases: [(&[i64], dynd::OffsetsProblem, &str); 4] = [
        (
            &[],
            dynd::OffsetsProblem::Empty,
            "from_offsets: the offsets are empty; rows + 1 of them are needed (a single 0 for no rows)",
        ),
        (
            &[-1, 2],
            dynd::OffsetsProblem::Negative { first: -1 },
            "from_offsets: offsets[0] is -1; offsets must not be negative",
        ),
        (
            &[0, 2, 1],
            dynd::OffsetsProblem::Decreasing {
                index: 2,
                value: 1,
                previous: 2,
            },
            "from_offsets: offsets[2] = 1 is less than offsets[1] = 2; offsets must not decrease",
        ),
        (
            &[0, 4],
            dynd::OffsetsProblem::PastEnd {
                index: 1,
                value: 4,
                values: 3,
            },
            "from_offsets: offsets[1] = 4 is past the end of the 3 values",
        ),
    ];
    for (offsets, problem, message) in cases {
        let e = Array::from_offsets(values.clone(), offsets).unwrap_err();
        assert_eq!(e.to_string(), message);
        match e {
            Error::Offsets { op, problem: p } => {
                assert_eq!((op, *p), ("from_offsets", problem));
            }
            e => panic!("{e:?}"),
        }
    }
    let e = Array::from_starts_lengths(values.clone(), &[0u32, 2], &[1u32, 2]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "from_starts_lengths: row 1 (start 2, length 2) is not inside the 3 values"
    );
    let e = Array::from_starts_lengths(values, &[0u32], &[1u32, 2]).unwrap_err();
    assert!(matches!(
        e,
        Error::Offsets { ref problem, .. }
            if **problem == dynd::OffsetsProblem::Counts { starts: 1, lengths: 2 }
    ));
    // Not an array of rows at all.
    match m().row_lengths().unwrap_err() {
        e @ Error::NeedsArray { .. } => assert_eq!(
            e.to_string(),
            "row_lengths needs an array of type `N * var * T` (one fixed dimension, then var), not 2 * 3 * float64"
        ),
        e => panic!("{e:?}"),
    }
}

#[test]
fn views_indices_and_shapes() {
    let a = m();
    match a
        .index(&[nd::Index::ALL, nd::Index::ALL, nd::Index::ALL])
        .unwrap_err()
    {
        Error::IndexCount { given, ndim, .. } => assert_eq!((given, ndim), (3, 2)),
        e => panic!("{e:?}"),
    }
    let e = a.index(&[nd::Index::slice(None, None, 0)]).unwrap_err();
    assert_eq!(
        (e.to_string(), e),
        ("a slice step cannot be zero".into(), Error::ZeroStep)
    );
    match a.permute_axes(&[0, 0]).unwrap_err() {
        e @ Error::Permutation { .. } => assert_eq!(
            e.to_string(),
            "[0, 0] is not a permutation of the 2 leading fixed dimensions of 2 * 3 * float64"
        ),
        e => panic!("{e:?}"),
    }
    match a.reshape([4, -1]).unwrap_err() {
        Error::Reshape {
            count,
            shape,
            reason,
            ..
        } => {
            assert_eq!((count, shape.as_slice()), (6, &[4, -1][..]));
            assert_eq!(reason, "no size for -1 gives that many elements");
        }
        e => panic!("{e:?}"),
    }
    match a.expand_dims(3).unwrap_err() {
        Error::AxisOutOfBounds { name, axis, ndim } => {
            assert_eq!((name.as_str(), axis, ndim), ("expand_dims", 3, 2))
        }
        e => panic!("{e:?}"),
    }
    match a
        .take(&nd::array![[0, 7]], Some(1), nd::TakeMode::Raise)
        .unwrap_err()
    {
        e @ Error::TakeIndex { .. } => assert_eq!(
            e.to_string(),
            "take: index 7 is out of bounds for axis 1 of size 3, at position [0, 1] of the indices"
        ),
        e => panic!("{e:?}"),
    }
    match a
        .take(
            &nd::array![0],
            Some(0),
            "nearest".parse().unwrap_or(nd::TakeMode::Raise),
        )
        .map(|_| ())
    {
        Ok(()) => {}
        Err(e) => panic!("{e:?}"),
    }
    match "nearest".parse::<nd::TakeMode>().unwrap_err() {
        e @ Error::Argument { .. } => assert_eq!(
            e.to_string(),
            "take: the mode must be one of raise, wrap, clip, not 'nearest'"
        ),
        e => panic!("{e:?}"),
    }
}

#[test]
fn assignments_casts_and_sizes() {
    let src: Type = "{a: int32, b: int32}".parse().unwrap();
    let dst: Type = "{a: int32, c: int32}".parse().unwrap();
    let x = Array::zeros(&src).unwrap();
    match x.cast(&dst, ErrorMode::Fractional).unwrap_err() {
        e @ Error::FieldAssign { .. } => {
            assert_eq!(
                e.to_string(),
                "cannot assign {a: int32, b: int32} to {a: int32, c: int32}: the destination has no field 'b'"
            );
            let Error::FieldAssign {
                missing, counts, ..
            } = e
            else {
                unreachable!()
            };
            assert_eq!(missing, Some(("destination", "b".into())));
            assert_eq!(counts, (2, 2));
        }
        e => panic!("{e:?}"),
    }
    match Array::from_scalar(1.0f64)
        .cast(&"var * float64".parse().unwrap(), ErrorMode::Fractional)
        .unwrap_err()
    {
        e @ Error::CastVar { .. } => assert_eq!(
            e.to_string(),
            "cannot cast float64 to var * float64: var * float64 has a var dimension where the source has none"
        ),
        e => panic!("{e:?}"),
    }
    let mut out = Array::zeros(&"3 * float64".parse().unwrap()).unwrap();
    match out
        .assign(&nd::array![1.0, 2.0], ErrorMode::Fractional)
        .unwrap_err()
    {
        Error::AssignBroadcast { axis, dims, .. } => {
            assert_eq!(
                (axis, *dims),
                (0, (ndt::Dim::Fixed(2), Some(ndt::Dim::Fixed(3))))
            )
        }
        e => panic!("{e:?}"),
    }
    match Array::zeros(&"4611686018427387904 * 4 * int64".parse().unwrap()).unwrap_err() {
        Error::Invalid(rule) => assert!(matches!(*rule, dynd::TypeRule::DataSize { .. })),
        e => panic!("{e:?}"),
    }
    // No data at all, but strides past the address space.
    match Array::zeros(&"0 * 4611686018427387904 * 4 * int64".parse().unwrap()).unwrap_err() {
        e @ Error::Size { .. } => {
            assert_eq!(
                e.to_string(),
                "a C-order stride overflows (element size 8, dimension 0, dimension 4611686018427387904, dimension 4)"
            );
        }
        e => panic!("{e:?}"),
    }
}

#[test]
fn folds_signatures_and_keywords() {
    // A fold whose operation changes its operands' type.
    match builtins::get("less")
        .unwrap()
        .clone()
        .associative(None)
        .unwrap()
        .reduce()
        .unwrap()
        .call(&[&nd::array![1, 2]])
        .unwrap_err()
    {
        e @ Error::FoldType { .. } => assert_eq!(
            e.to_string(),
            "less.reduce: less of (int64, int64) gives bool, so it cannot fold an array of int64"
        ),
        e => panic!("{e:?}"),
    }
    match builtins::get("negative")
        .unwrap()
        .clone()
        .associative(None)
        .unwrap_err()
    {
        e @ Error::Reduction { .. } => assert_eq!(
            e.to_string(),
            "negative is not a binary operation (two arguments), so it cannot be associative"
        ),
        e => panic!("{e:?}"),
    }
    // A core signature that does not fit its function.
    let sum = |x: dynd::func::CoreSlice<'_, f64>, mut out: dynd::func::CoreSliceMut<'_, f64>| {
        out.set(&[], x.iter().sum());
    };
    match dynd::func::CoreLeaf::map("(N * int32) -> float64", sum).unwrap_err() {
        Error::CoreSignature { signature, problem } => {
            assert_eq!(signature.to_string(), "(N * int32) -> float64");
            assert_eq!(
                *problem,
                dynd::SignatureProblem::DataType {
                    param: Some(0),
                    found: "int32".parse().unwrap(),
                    expected: ndt::Scalar::Float64
                }
            );
        }
        e => panic!("{e:?}"),
    }
    // A type that breaks one of `Type::new`'s rules.
    let e = ndt::Type::new(ndt::TypeKind::Option(
        ndt::Type::new(ndt::TypeKind::Option(ndt::Scalar::Int32.into())).unwrap(),
    ))
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid type: an option of an option ('??T') is not a type"
    );
    assert!(matches!(e, Error::Invalid(ref r) if **r == dynd::TypeRule::OptionOfOption));
    let e = Error::KeywordDeclaration {
        name: "f".into(),
        keyword: "k".into(),
        problem: "of an elementwise callable needs a type and, if optional, a default",
    };
    assert_eq!(
        e.to_string(),
        "f: keyword 'k' of an elementwise callable needs a type and, if optional, a default"
    );
}

#[test]
fn an_expression_error_names_its_node() {
    use dynd::func::Eval;
    let (a, b) = (dynd::nd::array![1.0, 2.0], dynd::nd::array![1.0, 2.0, 3.0]);
    let e = (&a * 2.0 + (&b - 1.0)).eval().unwrap_err();
    let dynd::Error::InExpr { node, source } = &e else {
        panic!("{e:?}")
    };
    assert_eq!(&**node, "add(multiply(a0, 2), subtract(a1, 1))");
    assert!(
        matches!(**source, dynd::Error::Broadcast { .. }),
        "{source:?}"
    );
    assert!(e
        .to_string()
        .starts_with("in 'add(multiply(a0, 2), subtract(a1, 1))': "));
}

/// A ragged array against its own reduction without `keepdims`: the
/// reduction's outer axis lines up with the rows, and the message says
/// to keep the axes; another ragged mismatch gets no such hint.
#[test]
fn ragged_mismatch_with_a_reduction_suggests_keepdims() {
    let trips =
        nd::Array::from_nested(vec![vec![1.0, 2.0, 3.0], vec![4.0], vec![5.0, 6.0]]).unwrap();
    let means = trips.mean_axis(1).unwrap();
    let hint = "; hint: if one argument is a reduction of the other along its rows, \
                reduce with keepdims=true so that its axes line up";
    let by_expr = (&trips - &means).eval().unwrap_err().to_string();
    assert_eq!(
        by_expr,
        format!(
            "in 'subtract(a0, a1)': a ragged row of length 2 cannot broadcast to length 3, \
             at index [2]{hint}"
        )
    );
    let by_call = dynd::func::subtract(&trips, &means)
        .unwrap_err()
        .to_string();
    assert!(by_call.ends_with(hint), "{by_call}");
    // With keepdims the two line up.
    let kept = trips
        .mean_with(&dynd::func::AxisOptions::new().axis(1).keepdims(true))
        .unwrap();
    let centred = (&trips - &kept).eval().unwrap();
    assert_eq!(centred.to_string(), "[[-1, 0, 1], [0], [-0.5, 0.5]]");
    // Two ragged arrays of different rows: no reduction, no hint.
    let other = nd::Array::from_nested(vec![vec![1.0, 2.0], vec![4.0], vec![5.0, 6.0]]).unwrap();
    let plain = (&trips - &other).eval().unwrap_err().to_string();
    assert!(
        plain.ends_with("a ragged row of length 2 cannot broadcast to length 3, at index [0]"),
        "{plain}"
    );
}
