//! Defects the robustness campaign and the soundness review found, each a
//! named case. Before the fixes each of these panicked, aborted, read out
//! of bounds or gave a wrong answer; now each gives its result or a typed
//! error.

use dynd_kernels::take::TakeMode;
use dynd_kernels::ArrayOps;
use dynd_kernels::{array, Array, Error, Index, Value};

#[test]
fn reshape_whose_sizes_product_wraps_is_an_error() {
    let a = Array::from_vec((0..12i64).collect());
    let e = a.reshape([4, 4611686018427387907i64]).unwrap_err();
    assert!(
        e.to_string().contains("the sizes' product overflows"),
        "{e}"
    );
    let empty =
        Array::from_value(&Value::List(vec![]), Some(&"0 * string".parse().unwrap())).unwrap();
    assert!(empty.reshape([4611686018427387904i64, 4]).is_err());
}

#[test]
fn reshape_of_an_empty_array_with_strides_past_the_address_space_is_an_error() {
    // Found by the campaign: [0, 2^31, i64::MAX] has no element, but its
    // C-order strides overflow.
    let a = Array::from_shape_vec(&[0, 1, 1], Vec::<i64>::new()).unwrap();
    let e = a.reshape([0, 2147483648, i64::MAX]).unwrap_err();
    assert!(matches!(e, Error::Size { .. }), "{e:?}");
    let b = Array::from_shape_vec(&[4, 4, 0], Vec::<i8>::new()).unwrap();
    assert!(b.reshape([-1, 2, i64::MAX]).is_err());
}

#[test]
fn slices_with_extreme_bounds_and_steps_clamp_as_python_does() {
    let a = Array::from_vec(vec![1u8, 1]);
    let v = a.index(&[Index::slice(None, None, i64::MAX)]).unwrap();
    assert_eq!(
        (v.to_string(), v.ty().to_string()),
        ("[1]".into(), "1 * uint8".into())
    );
    let r = Array::from_vec((0..5i64).collect());
    for (start, stop, step, want) in [
        (Some(i64::MIN), Some(i64::MAX), i64::MIN, "[]"),
        (Some(i64::MAX), Some(i64::MIN), i64::MIN, "[4]"),
        (Some(i64::MAX), Some(i64::MIN), -2, "[4, 2, 0]"),
        (Some(i64::MIN), None, 3, "[0, 3]"),
        (None, Some(i64::MIN + 1), -1, "[4, 3, 2, 1, 0]"),
    ] {
        let v = r.index(&[Index::slice(start, stop, step)]).unwrap();
        assert_eq!(v.to_string(), want, "{start:?}:{stop:?}:{step}");
    }
    assert!(r.index(&[Index::slice(None, None, 0)]).is_err());
    assert!(r.index(&[Index::At(i64::MIN)]).is_err());
    assert!(r.index(&[Index::At(i64::MAX)]).is_err());
}

#[test]
fn ragged_rows_sliced_with_extreme_steps() {
    let a = array![[1, 2, 3], [], [4, 5]];
    for step in [i64::MIN, i64::MAX, -1, 2] {
        let v = a
            .index(&[Index::ALL, Index::slice(None, None, step)])
            .unwrap();
        let _ = v.to_string();
    }
    let v = a
        .index(&[
            Index::At(0),
            Index::slice(Some(i64::MAX), Some(i64::MIN), -1),
        ])
        .unwrap();
    assert_eq!(v.to_string(), "[3, 2, 1]");
}

#[test]
fn huge_allocations_are_errors_not_aborts() {
    let t = "1125899906842624 * int8".parse().unwrap(); // 2^50 bytes
    assert!(matches!(Array::zeros(&t), Err(Error::Alloc { .. })));
    let t = "100000000000 * 100000000000 * float64".parse();
    if let Ok(t) = t {
        assert!(Array::zeros(&t).is_err());
    }
    // A small value against a huge declared type: a mismatch, found before
    // anything is allocated.
    let t = "100000000000 * float64".parse().unwrap();
    let e = Array::from_json("[1, 2]", Some(&t)).unwrap_err();
    assert!(
        e.to_string()
            .contains("cannot be a dimension of size 100000000000"),
        "{e}"
    );
}

#[test]
fn take_with_no_positions_over_billions_of_outer_positions() {
    // Found by the campaign: the gather listed every outer position of a
    // result with no element.
    let a = Array::from_shape_vec(&[0, 1], Vec::<f64>::new()).unwrap();
    let wide = a.reshape([0, 1]).unwrap();
    let r = wide
        .take(
            &Array::from_vec(Vec::<i64>::new()),
            Some(1),
            TakeMode::Raise,
        )
        .unwrap();
    assert_eq!(r.ty().to_string(), "0 * 0 * float64");
}

#[test]
fn arrays_of_billions_of_empty_lists_print_as_a_summary() {
    let a = Array::from_shape_vec(&[0], Vec::<i8>::new()).unwrap();
    let many = a.reshape([2147483648i64, 0]).unwrap();
    assert_eq!(many.to_string(), "[[], [], [], ..., [], [], []]");
    let big = Array::from_vec((0..100_000i32).collect());
    assert_eq!(big.to_string(), "[0, 1, 2, ..., 99997, 99998, 99999]");
    assert_eq!(
        format!("{big:?}"),
        "Array([0, 1, 2, ..., 99997, 99998, 99999], type=\"100000 * int32\")"
    );
    assert_eq!(big.to_json().matches(',').count(), 99_999);
}

#[test]
fn values_and_types_nested_past_the_limits_are_errors() {
    let mut v = Value::Int(1);
    for _ in 0..100_000 {
        v = Value::List(vec![v]);
    }
    assert_eq!(v.depth(), 100_000);
    let e = Array::from_value(&v, None).unwrap_err();
    assert!(e.to_string().contains("nests 100000 levels"), "{e}");
    // Dropping it recurses 100_000 deep: do that on a thread with room.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || drop(v))
        .unwrap()
        .join()
        .unwrap();
    let mut t: dynd_kernels::types::Type = "int32".parse().unwrap();
    let mut refused = false;
    for _ in 0..5000 {
        match dynd_kernels::types::Type::option(t.clone())
            .or_else(|_| dynd_kernels::types::Type::dim(dynd_kernels::types::Dim::Var, t.clone()))
        {
            Ok(next) => t = next,
            Err(e) => {
                assert!(e.to_string().contains("at most 1024 levels"), "{e}");
                refused = true;
                break;
            }
        }
    }
    assert!(refused);
    assert_eq!(t.levels(), dynd_kernels::types::MAX_LEVELS);
    let _ = t.to_string();
}

#[test]
fn summaries_of_many_small_dimensions_stay_short() {
    // Found by the long campaign: 40 dimensions of 3 (and one of 0) print
    // every entry of each small dimension, 3^40 of them, unless the
    // summary has a budget.
    let t: dynd_kernels::types::Type = format!("{}0 * int32", "3 * ".repeat(40)).parse().unwrap();
    let a = Array::zeros(&t).unwrap();
    let text = a.to_string();
    assert!(text.len() < 20_000, "{} bytes", text.len());
    assert!(text.contains("..."));
}
