//! `take` against a naive reference over random shapes, axes, index shapes
//! and layouts; when it is a view; what gathered elements share; errors.

use dynd_kernels::take::TakeMode;
use dynd_kernels::ArrayOps;
use dynd_kernels::{array, Array, Arrmeta, Index, Value};
use proptest::prelude::*;

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(128)
}

/// `v` (nested lists) with axis `axis` replaced by the picks in `idx`.
fn naive(v: &Value, axis: usize, idx: &Value) -> Value {
    let Value::List(items) = v else {
        unreachable!("an array value")
    };
    if axis > 0 {
        return Value::List(items.iter().map(|x| naive(x, axis - 1, idx)).collect());
    }
    match idx {
        Value::List(is) => Value::List(is.iter().map(|i| naive(v, 0, i)).collect()),
        Value::Int(i) => {
            let n = items.len() as i128;
            items[(if *i < 0 { i + n } else { *i }) as usize].clone()
        }
        _ => unreachable!("integer indices"),
    }
}

fn case() -> impl Strategy<Value = (Vec<usize>, usize, Vec<usize>, Vec<i64>)> {
    prop::collection::vec(1usize..5, 1..4).prop_flat_map(|shape| {
        let nd = shape.len();
        (Just(shape), 0..nd, prop::collection::vec(0usize..4, 0..3)).prop_flat_map(
            |(shape, axis, ishape)| {
                let n = shape[axis] as i64;
                let count: usize = ishape.iter().product();
                (
                    Just(shape),
                    Just(axis),
                    Just(ishape),
                    prop::collection::vec(-n..n, count),
                )
            },
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]
    #[test]
    fn take_matches_a_naive_reference((shape, axis, ishape, idx) in case(), layout in 0u8..3) {
        let n: usize = shape.iter().product();
        let base = Array::from_shape_vec(&shape, (0..n as i64).collect()).unwrap();
        // A C-order array, a reversed view, or a transposed view.
        let a = match layout {
            0 => base,
            1 => base.index(&[Index::slice(None, None, -1)]).unwrap(),
            _ => base.transpose().unwrap(),
        };
        // Indices in range for this layout's axis (a transpose reverses the sizes).
        let len = a.ty().fixed_shape().unwrap()[axis] as i64;
        let idx: Vec<i64> = idx.iter().map(|&i| if i < 0 { -1 - (-1 - i) % len } else { i % len }).collect();
        let indices = Array::from_shape_vec(&ishape, idx).unwrap();
        let got = a.take(&indices, Some(axis as i64), TakeMode::Raise).unwrap();
        prop_assert_eq!(got.to_value(), naive(&a.to_value(), axis, &indices.to_value()));
        let mut want_shape: Vec<usize> = a.ty().fixed_shape().unwrap();
        want_shape.splice(axis..=axis, ishape.iter().copied());
        prop_assert_eq!(got.ty().fixed_shape().unwrap(), want_shape);
    }
}

#[test]
fn evenly_spaced_indices_give_views_others_copies() {
    let a = Array::from_vec((0..10i64).collect());
    let shares = |r: &Array| r.data_block().as_ptr() == a.data_block().as_ptr();
    for (idx, want, view) in [
        (array![1, 3, 5], "[1, 3, 5]", true),
        (array![9, 6, 3, 0], "[9, 6, 3, 0]", true),
        (array![-1, -2], "[9, 8]", true),
        (array![4], "[4]", true),
        (array![2, 2, 2], "[2, 2, 2]", false),
        (array![0, 1, 3], "[0, 1, 3]", false),
    ] {
        let r = a.take(&idx, None, TakeMode::Raise).unwrap();
        assert_eq!(
            (r.to_string(), shares(&r)),
            (want.to_string(), view),
            "{idx}"
        );
    }
    let one = a
        .take(&Array::from_scalar(7u8), Some(0), TakeMode::Raise)
        .unwrap();
    assert_eq!(
        (one.to_string(), one.ndim(), shares(&one)),
        ("7".into(), 0, true)
    );
    // Without an axis, from the flattened array.
    let m = array![[1, 2], [3, 4]];
    assert_eq!(
        m.take(&array![3, 0], None, TakeMode::Raise)
            .unwrap()
            .to_string(),
        "[4, 1]"
    );
}

#[test]
fn gathered_strings_and_ragged_rows_share_their_memory() {
    let s = Array::from_json(r#"["alpha", "beta", "gamma"]"#, None).unwrap();
    let t = s.take(&array![2, 0, 2], Some(0), TakeMode::Raise).unwrap();
    assert_eq!(t.to_string(), r#"["gamma", "alpha", "gamma"]"#);
    let text = |a: &Array| match a.arrmeta() {
        Arrmeta::Fixed { element, .. } => match &**element {
            Arrmeta::Text { block } => block.as_ptr(),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    };
    assert_eq!(text(&t), text(&s));
    let r = array![[1, 2, 3], [], [4]];
    let g = r.take(&array![2, 0, 0], Some(0), TakeMode::Raise).unwrap();
    assert_eq!(
        (g.to_string(), g.ty().to_string()),
        (
            "[[4], [1, 2, 3], [1, 2, 3]]".into(),
            "3 * var * int64".into()
        )
    );
    let values = |a: &Array| match a.arrmeta() {
        Arrmeta::Fixed { element, .. } => match &**element {
            Arrmeta::Var { values, .. } => values.as_ptr(),
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    };
    assert_eq!(values(&g), values(&r));
}

#[test]
fn modes_and_errors() {
    let a = array![[1, 2, 3], [4, 5, 6]];
    let take = |idx: Array, axis: Option<i64>, mode: TakeMode| {
        a.take(&idx, axis, mode)
            .map(|r| r.to_string())
            .map_err(|e| e.to_string())
    };
    assert_eq!(
        take(array![4, -4], Some(1), TakeMode::Wrap),
        Ok("[[2, 3], [5, 6]]".into())
    );
    assert_eq!(
        take(array![9, -9], Some(1), TakeMode::Clip),
        Ok("[[3, 1], [6, 4]]".into())
    );
    assert_eq!(
        take(array![[0, 1], [1, 3]], Some(1), TakeMode::Raise),
        Err("take: index 3 is out of bounds for axis 1 of size 3, at position [1, 1] of the indices".into())
    );
    assert_eq!(
        take(array![-3], Some(0), TakeMode::Raise),
        Err(
            "take: index -3 is out of bounds for axis 0 of size 2, at position [0] of the indices"
                .into()
        )
    );
    assert_eq!(
        take(array![0], Some(2), TakeMode::Raise),
        Err("take: axis 2 is out of bounds for an array of 2 dimension(s)".into())
    );
    assert_eq!(
        take(array![0.5], Some(0), TakeMode::Raise),
        Err("take needs indices of an integer type, not 1 * float64".into())
    );
    let huge = Array::from_scalar(u64::MAX);
    assert!(take(huge, Some(0), TakeMode::Raise)
        .unwrap_err()
        .contains("18446744073709551615 is out of range for int64"));
    let empty = Array::zeros(&"0 * int32".parse().unwrap()).unwrap();
    assert_eq!(
        empty
            .take(&array![0], None, TakeMode::Wrap)
            .unwrap_err()
            .to_string(),
        "take: index 0 is out of bounds for axis 0 of size 0, at position [0] of the indices"
    );
    assert_eq!(
        empty
            .take(
                &Array::zeros(&"0 * int64".parse().unwrap()).unwrap(),
                None,
                TakeMode::Raise
            )
            .unwrap()
            .to_string(),
        "[]"
    );
    let ragged = array![[1, 2], [3]];
    assert!(ragged
        .take(&array![0], Some(1), TakeMode::Raise)
        .unwrap_err()
        .to_string()
        .contains("take along a var dimension"));
    assert_eq!(
        "fold".parse::<TakeMode>().unwrap_err().to_string(),
        "take: the mode must be one of raise, wrap, clip, not 'fold'"
    );
}
