//! Ragged arrays from their parts (offsets, starts and lengths, nested Rust
//! values) and back (row lengths, rows as slices, offsets, nested vectors).

use dynd_kernels::ArrayOps;
use dynd_kernels::{Array, Error, Index, Value};
use proptest::prelude::*;

fn err_text<T: std::fmt::Debug>(r: Result<T, Error>) -> String {
    r.expect_err("expected an error").to_string()
}

#[test]
fn offsets_make_rows_over_the_values_without_copying_them() {
    let values = vec![1.0f64, 2.0, 3.0, 4.0, 5.0];
    let at = values.as_ptr();
    for a in [
        Array::from_offsets(values.clone(), &[0i32, 2, 2, 5]).unwrap(),
        Array::from_offsets(values.clone(), &[0i64, 2, 2, 5]).unwrap(),
        Array::from_offsets(values.clone(), &[0u32, 2, 2, 5]).unwrap(),
        Array::from_offsets(values.clone(), &[0usize, 2, 2, 5]).unwrap(),
    ] {
        assert_eq!(a.ty().to_string(), "3 * var * float64");
        assert_eq!(a.to_string(), "[[1, 2], [], [3, 4, 5]]");
    }
    let a = Array::from_offsets(values, &[0i32, 2, 2, 5]).unwrap();
    let (back, offsets) = a.to_offsets().unwrap();
    assert_eq!(offsets, [0, 2, 2, 5]);
    // The same memory, neither copied in nor out.
    assert_eq!(back.as_slice::<f64>().unwrap().as_ptr(), at);
    assert_eq!(a.rows::<f64>().unwrap().get(0).unwrap().as_ptr(), at);
}

#[test]
fn offsets_that_start_past_zero_are_a_slice_of_the_values() {
    // An Arrow list array sliced from row 1: its offsets start at 2.
    let values: Vec<i32> = (0..10).collect();
    let at = values.as_ptr();
    let a = Array::from_offsets(values, &[2i32, 5, 5, 9]).unwrap();
    assert_eq!(a.to_string(), "[[2, 3, 4], [], [5, 6, 7, 8]]");
    let (back, offsets) = a.to_offsets().unwrap();
    assert_eq!(offsets, [0, 3, 3, 7]);
    assert_eq!(back.as_slice::<i32>().unwrap(), [2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(back.as_slice::<i32>().unwrap().as_ptr(), at.wrapping_add(2));
    // No rows at all: a single offset.
    let empty = Array::from_offsets(vec![1u8, 2], &[1i64]).unwrap();
    assert_eq!(empty.ty().to_string(), "0 * var * uint8");
    assert_eq!(empty.to_offsets().unwrap().1, [0]);
}

#[test]
fn bad_offsets_say_which_offset_and_why() {
    let v = || vec![1.0f64, 2.0, 3.0];
    let e = err_text(Array::from_offsets(v(), &[] as &[i32]));
    assert!(e.contains("offsets are empty"), "{e}");
    let e = err_text(Array::from_offsets(v(), &[-1i32, 2]));
    assert!(e.contains("offsets[0] is -1"), "{e}");
    let e = err_text(Array::from_offsets(v(), &[0i64, 2, 1, 3]));
    assert!(
        e.contains("offsets[2] = 1 is less than offsets[1] = 2"),
        "{e}"
    );
    let e = err_text(Array::from_offsets(v(), &[0u64, 2, 4]));
    assert!(
        e.contains("offsets[2] = 4 is past the end of the 3 values"),
        "{e}"
    );
    let e = err_text(Array::from_offsets(Array::from_scalar(1.0f64), &[0i32]));
    assert!(e.contains("fixed first dimension"), "{e}");
    // A dip in the middle, between ends that are fine, of enough rows to
    // be written on several threads: found and named all the same.
    let mut offsets: Vec<i64> = (0..=100_000).collect();
    offsets[70_000] = 5;
    let e = err_text(Array::from_offsets(vec![0u8; 100_000], &offsets));
    assert!(
        e.contains("offsets[70000] = 5 is less than offsets[69999] = 69999"),
        "{e}"
    );
    // Huge offsets that wrap as u64 are refused too.
    let e = err_text(Array::from_offsets(v(), &[0u64, u64::MAX, 3]));
    assert!(e.contains("offsets[2] = 3 is less than offsets[1]"), "{e}");
}

#[test]
fn starts_and_lengths_take_rows_in_any_order() {
    let a = Array::from_starts_lengths(vec![10i64, 11, 12, 13], &[2i32, 0, 1, 4], &[2i32, 3, 3, 0])
        .unwrap();
    assert_eq!(a.to_string(), "[[12, 13], [10, 11, 12], [11, 12, 13], []]");
    assert_eq!(a.row_lengths().unwrap(), [2, 3, 3, 0]);
    // Out of order and overlapping: back out by one copy, end to end.
    let (values, offsets) = a.to_offsets().unwrap();
    assert_eq!(offsets, [0, 2, 5, 8, 8]);
    assert_eq!(
        values.as_slice::<i64>().unwrap(),
        [12, 13, 10, 11, 12, 11, 12, 13]
    );
    assert_eq!(
        a.to_nested::<i64>().unwrap(),
        vec![vec![12, 13], vec![10, 11, 12], vec![11, 12, 13], vec![]]
    );

    let v = || vec![1.0f32, 2.0];
    let e = err_text(Array::from_starts_lengths(v(), &[0i32, 1], &[1i32]));
    assert!(e.contains("2 starts but 1 lengths"), "{e}");
    let e = err_text(Array::from_starts_lengths(v(), &[0i32, 1], &[1i32, 2]));
    assert!(
        e.contains("row 1 (start 1, length 2) is not inside the 2 values"),
        "{e}"
    );
    let e = err_text(Array::from_starts_lengths(v(), &[-1i64], &[1i64]));
    assert!(e.contains("row 0 (start -1, length 1)"), "{e}");
}

#[test]
fn levels_compose_and_values_may_be_views() {
    // Inner rows over the values, outer rows over the inner rows.
    let inner = Array::from_offsets(vec![1u16, 2, 3, 4, 5, 6], &[0i32, 1, 3, 3, 6]).unwrap();
    let outer = Array::from_offsets(inner, &[0i32, 2, 4]).unwrap();
    assert_eq!(outer.ty().to_string(), "2 * var * var * uint16");
    assert_eq!(outer.to_string(), "[[[1], [2, 3]], [[], [4, 5, 6]]]");
    let (inner_back, offsets) = outer.to_offsets().unwrap();
    assert_eq!(offsets, [0, 2, 4]);
    assert_eq!(inner_back.ty().to_string(), "4 * var * uint16");
    assert_eq!(inner_back.to_string(), "[[1], [2, 3], [], [4, 5, 6]]");

    // Rows over a reversed view of the values: a negative stride.
    let v = Array::from_vec(vec![1i32, 2, 3, 4, 5]);
    let reversed = v.index(&[Index::slice(None, None, -1)]).unwrap();
    let a = Array::from_offsets(reversed, &[0i32, 2, 5]).unwrap();
    assert_eq!(a.to_string(), "[[5, 4], [3, 2, 1]]");
    assert_eq!(
        a.to_nested::<i32>().unwrap(),
        vec![vec![5, 4], vec![3, 2, 1]]
    );
    let (values, offsets) = a.to_offsets().unwrap();
    assert_eq!(offsets, [0, 2, 5]);
    assert_eq!(values.to_vec::<i32>().unwrap(), [5, 4, 3, 2, 1]);
    // Not slices in memory order: `rows` says so.
    let e = err_text(a.rows::<i32>());
    assert!(
        e.contains("not contiguous") && e.contains("to_nested"),
        "{e}"
    );
    // Every second row of a ragged array: still end to end? No: a copy.
    let b = Array::from_nested(vec![vec![1i32], vec![2, 3], vec![4]]).unwrap();
    let every_other = b.index(&[Index::slice(None, None, 2)]).unwrap();
    assert_eq!(every_other.to_offsets().unwrap().1, [0, 1, 2]);
    assert_eq!(
        every_other.to_nested::<i32>().unwrap(),
        vec![vec![1], vec![4]]
    );
    // A step within the rows: elements 8 bytes apart.
    let within = b
        .index(&[Index::ALL, Index::slice(None, None, -1)])
        .unwrap();
    assert_eq!(within.to_string(), "[[1], [3, 2], [4]]");
    assert_eq!(
        within.to_nested::<i32>().unwrap(),
        vec![vec![1], vec![3, 2], vec![4]]
    );
}

#[test]
fn typed_access_checks_the_type() {
    let a = Array::from_nested(vec![vec![1.0f64], vec![2.0, 3.0]]).unwrap();
    assert!(matches!(a.rows::<f32>(), Err(Error::DtypeMismatch { .. })));
    assert!(matches!(
        a.to_nested::<i64>(),
        Err(Error::DtypeMismatch { .. })
    ));
    let rows = a.rows::<f64>().unwrap();
    assert_eq!((rows.len(), rows.is_empty()), (2, false));
    assert_eq!(rows.get(2), None);
    assert_eq!(format!("{rows:?}"), "[[1.0], [2.0, 3.0]]");
    let dense = Array::from_nested(vec![[1i32, 2], [3, 4]]).unwrap();
    for e in [
        err_text(dense.row_lengths()),
        err_text(dense.rows::<i32>()),
        err_text(dense.to_offsets()),
    ] {
        assert!(
            e.contains("`N * var * T`") && e.contains("2 * 2 * int32"),
            "{e}"
        );
    }
}

#[test]
fn nested_rust_values_are_typed_by_their_rust_types() {
    let cases: Vec<(Array, &str, &str)> = vec![
        // Equal row lengths stay var: the Rust type says rows.
        (
            Array::from_nested(vec![vec![1.0f32, 2.0], vec![3.0, 4.0]]).unwrap(),
            "2 * var * float32",
            "[[1, 2], [3, 4]]",
        ),
        (
            Array::from_nested(vec![[1i32, 2], [3, 4], [5, 6]]).unwrap(),
            "3 * 2 * int32",
            "[[1, 2], [3, 4], [5, 6]]",
        ),
        (
            Array::from_nested(vec![[vec![1u8], vec![]], [vec![2, 3], vec![4]]]).unwrap(),
            "2 * 2 * var * uint8",
            "[[[1], []], [[2, 3], [4]]]",
        ),
        (
            Array::from_nested(vec![vec![[1i64, 2]], vec![], vec![[3, 4], [5, 6]]]).unwrap(),
            "3 * var * 2 * int64",
            "[[[1, 2]], [], [[3, 4], [5, 6]]]",
        ),
        (
            Array::from_nested([[0.5f64; 0]; 3]).unwrap(),
            "3 * 0 * float64",
            "[[], [], []]",
        ),
        (
            Array::from_nested(Vec::<Vec<f64>>::new()).unwrap(),
            "0 * var * float64",
            "[]",
        ),
        (
            Array::from_nested(&[&[true, false][..], &[true][..]][..]).unwrap(),
            "2 * var * bool",
            "[[true, false], [true]]",
        ),
        (
            Array::from_nested(vec![vec![vec![1i16], vec![]], vec![vec![2, 3]]]).unwrap(),
            "2 * var * var * int16",
            "[[[1], []], [[2, 3]]]",
        ),
        (Array::from_nested(7u64).unwrap(), "uint64", "7"),
    ];
    for (a, ty, text) in cases {
        assert_eq!(a.ty().to_string(), ty);
        assert_eq!(a.to_string(), text);
    }
}

#[test]
fn nested_values_convert_to_an_explicit_type() {
    let t = "2 * 2 * float32".parse().unwrap();
    let a = Array::from_nested_as(vec![vec![1.0f64, 2.0], vec![3.0, 4.0]], &t).unwrap();
    assert_eq!(a.ty(), &t);
    assert_eq!(a.to_string(), "[[1, 2], [3, 4]]");
    // Rows of other lengths do not fit a fixed dimension.
    // Rows of other lengths do not fit a fixed dimension: no broadcasting.
    let e = err_text(Array::from_nested_as(
        vec![vec![2.0f64, 3.0], vec![1.0]],
        &t,
    ));
    assert!(
        e.contains("row 1 of dimension 1 has 1 element(s) where 2 * 2 * float32 has a fixed dimension of 2"),
        "{e}"
    );
    let e = err_text(Array::from_nested_as(vec![[1.0f64, 2.0]], &t));
    assert!(e.contains("row 0 of dimension 0 has 1 element(s)"), "{e}");
    let e = err_text(Array::from_nested_as(vec![1.0f64, 2.0], &t));
    assert!(
        e.contains("the value has 1 dimension(s) (2 * float64) but 2 * 2 * float32 has 2"),
        "{e}"
    );
    // var to var with another element type; fixed to var.
    let tv = "2 * var * int64".parse().unwrap();
    let b = Array::from_nested_as(vec![[1i32, 2], [3, 4]], &tv).unwrap();
    assert_eq!((b.ty(), b.to_string().as_str()), (&tv, "[[1, 2], [3, 4]]"));
    // Values out of range under the checked mode.
    let t8 = "1 * var * int8".parse().unwrap();
    let e = err_text(Array::from_nested_as(vec![vec![300i32]], &t8));
    assert!(e.contains("300"), "{e}");
}

/// Random ragged rows: lengths 0..8, some rows empty.
fn ragged() -> impl Strategy<Value = Vec<Vec<i32>>> {
    prop::collection::vec(prop::collection::vec(-1000i32..1000, 0..8), 0..40)
}

proptest! {
    #[test]
    fn round_trips_agree_with_a_naive_build(rows in ragged(), skip in 0usize..3) {
        // The reference: the same rows through a value tree.
        let value = Value::List(rows.iter().map(|r| {
            Value::List(r.iter().map(|&x| Value::Int(x as i128)).collect())
        }).collect());
        let reference = Array::from_value(&value, Some(&format!("{} * var * int32", rows.len()).parse().unwrap())).unwrap();
        let a = Array::from_nested(rows.clone()).unwrap();
        prop_assert_eq!(a.to_string(), reference.to_string());
        prop_assert_eq!(a.to_nested::<i32>().unwrap(), rows.clone());
        prop_assert_eq!(a.row_lengths().unwrap(), rows.iter().map(Vec::len).collect::<Vec<_>>());

        // Offsets, shifted by `skip` leading values (a sliced Arrow array).
        let mut values = vec![-7i32; skip];
        let mut offsets = vec![skip as i64];
        for r in &rows {
            values.extend_from_slice(r);
            offsets.push(values.len() as i64);
        }
        let b = Array::from_offsets(values, &offsets).unwrap();
        prop_assert_eq!(b.to_string(), reference.to_string());
        let (vals, offs) = b.to_offsets().unwrap();
        prop_assert_eq!(offs.iter().map(|o| o + skip as i64).collect::<Vec<_>>(), offsets.clone());
        let concat = rows.concat();
        prop_assert_eq!(vals.as_slice::<i32>().unwrap(), concat.as_slice());

        // The rows in reverse order, as starts and lengths.
        let starts: Vec<i64> = offsets[..offsets.len() - 1].iter().rev().copied().collect();
        let lengths: Vec<i64> = rows.iter().rev().map(|r| r.len() as i64).collect();
        let c = Array::from_starts_lengths(b.to_offsets().unwrap().0.clone(), &starts.iter().map(|s| s - skip as i64).collect::<Vec<_>>(), &lengths).unwrap();
        let mut reversed = rows.clone();
        reversed.reverse();
        prop_assert_eq!(c.to_nested::<i32>().unwrap(), reversed.clone());
        prop_assert_eq!(c.to_offsets().unwrap().0.to_vec::<i32>().unwrap(), reversed.concat());
    }
}
