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
    match m().sum_with(&ReduceOptions::new().mask(&ints)).unwrap_err() {
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
    match m()
        .sum_with(&ReduceOptions::new().mask(&short))
        .unwrap_err()
    {
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
            &ReduceOptions::new()
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
