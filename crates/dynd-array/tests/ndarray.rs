//! ndarray arrays in and out without copying (feature `ndarray`).
#![cfg(feature = "ndarray")]

use dynd_array::{Array, Error, Index};
use ndarray::{array, s, Array2, ArrayD, Axis, IxDyn};
use proptest::prelude::*;

#[test]
fn owned_arrays_come_in_without_a_copy_in_any_memory_order() {
    // C order.
    let m = array![[1i64, 2, 3], [4, 5, 6]];
    let c = m.clone();
    let at = c.as_ptr();
    let a = Array::from(c);
    assert_eq!(a.ty().to_string(), "2 * 3 * int64");
    assert_eq!(a.to_string(), "[[1, 2, 3], [4, 5, 6]]");
    assert_eq!(a.as_ndarray::<i64>().unwrap().as_ptr(), at);
    assert!(a.is_c_contiguous());

    // F order: the transposed array, same memory.
    let f = m.clone().reversed_axes();
    let at = f.as_ptr();
    let a = Array::from(f);
    assert_eq!(a.to_string(), "[[1, 4], [2, 5], [3, 6]]");
    assert_eq!(a.strides(), [8, 24]);
    assert_eq!(a.as_ndarray::<i64>().unwrap().as_ptr(), at);

    // Sliced: every other column, reversed rows (a negative stride).
    let sliced = m.clone().slice_move(s![..;-1, ..;2]);
    let expect = sliced.clone();
    let first = sliced.as_ptr();
    let a = Array::from(sliced);
    assert_eq!(a.to_string(), "[[4, 6], [1, 3]]");
    assert_eq!(a.strides(), [-24, 16]);
    let back = a.as_ndarray::<i64>().unwrap();
    assert_eq!(back, expect.view().into_dyn());
    assert_eq!(back.as_ptr(), first);

    // 0-d, 1-d, empty, and dynamic dimensions.
    assert_eq!(Array::from(ndarray::arr0(2.5f32)).to_string(), "2.5");
    assert_eq!(
        Array::from(array![true, false]).to_string(),
        "[true, false]"
    );
    let empty = Array::from(Array2::<f64>::zeros((0, 3)));
    assert_eq!(empty.ty().to_string(), "0 * 3 * float64");
    assert_eq!(empty.as_ndarray::<f64>().unwrap().shape(), [0, 3]);
    let d = ArrayD::from_shape_vec(IxDyn(&[2, 2]), vec![1u8, 2, 3, 4]).unwrap();
    assert_eq!(Array::try_from(d).unwrap().to_string(), "[[1, 2], [3, 4]]");
}

#[test]
fn dynd_arrays_are_viewed_by_ndarray_with_any_strides() {
    let a = Array::from_shape_vec(&[3, 4], (0..12).map(f64::from).collect()).unwrap();
    // A view with negative steps on both axes.
    let v = a
        .index(&[Index::slice(None, None, -1), Index::slice(None, None, -2)])
        .unwrap();
    assert_eq!(v.to_string(), "[[11, 9], [7, 5], [3, 1]]");
    let nd = v.as_ndarray::<f64>().unwrap();
    assert_eq!(nd, array![[11.0, 9.0], [7.0, 5.0], [3.0, 1.0]].into_dyn());
    assert_eq!(nd.sum_axis(Axis(0)), array![21.0, 15.0].into_dyn());
    // A single element, 0-d.
    let x = a.index(&[Index::At(2), Index::At(-1)]).unwrap();
    let x = x.as_ndarray::<f64>().unwrap();
    assert_eq!((x.ndim(), x.first()), (0, Some(&11.0)));
}

#[test]
fn arrays_ndarray_cannot_view_say_why() {
    let ragged = Array::from_nested(vec![vec![1.0f64], vec![2.0, 3.0]]).unwrap();
    let e = ragged.as_ndarray::<f64>().unwrap_err().to_string();
    assert!(
        e.contains("as_ndarray needs fixed dimensions (var dimensions are not strided; to_nested copies them), not 2 * var * float64"),
        "{e}"
    );
    let ints = Array::from_vec(vec![1i32, 2]);
    assert!(matches!(
        ints.as_ndarray::<i64>(),
        Err(Error::DtypeMismatch { .. })
    ));
    let na = Array::from_json("[1, null]", Some(&"2 * ?float64".parse().unwrap())).unwrap();
    assert!(matches!(
        na.as_ndarray::<f64>(),
        Err(Error::DtypeMismatch { .. })
    ));
    let text = Array::from_json(r#"["a"]"#, None).unwrap();
    assert!(matches!(
        text.as_ndarray::<u8>(),
        Err(Error::DtypeMismatch { .. })
    ));
}

#[test]
fn vectors_come_back_out_when_nothing_else_holds_them() {
    let v = vec![1u32, 2, 3, 4];
    let at = v.as_ptr();
    let a = Array::from(v);
    let back = a.try_into_vec::<u32>().unwrap();
    assert_eq!((back.as_ptr(), back.as_slice()), (at, &[1, 2, 3, 4][..]));

    // Shared: the array comes back whole.
    let a = Array::from(vec![1u32, 2]);
    let other = a.clone();
    let a = a.try_into_vec::<u32>().unwrap_err();
    assert_eq!(a.to_string(), "[1, 2]");
    drop(other);
    assert_eq!(a.try_into_vec::<u32>().unwrap(), [1, 2]);
    // Another element type, a view, F order, a computed result.
    let a = Array::from(vec![1u32, 2]);
    let a = a.try_into_vec::<i32>().unwrap_err();
    let tail = a.index(&[Index::slice(Some(1), None, 1)]).unwrap();
    drop(a);
    assert_eq!(tail.try_into_vec::<u32>().unwrap_err().to_string(), "[2]");
    let f = Array::from(array![[1.0f64, 2.0], [3.0, 4.0]].reversed_axes());
    assert!(f.try_into_vec::<f64>().is_err());
    // An ndarray in C order is a Vec underneath.
    let c = Array::from(array![[1.0f64, 2.0], [3.0, 4.0]]);
    assert_eq!(c.try_into_vec::<f64>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
}

/// A random owned ndarray array: a shape of up to 3 axes, then a random
/// transpose, axis inversions and a step slice.
fn strided() -> impl Strategy<Value = ndarray::ArrayD<i32>> {
    (prop::collection::vec(0usize..5, 0..4), any::<u64>()).prop_map(|(shape, bits)| {
        let n: usize = shape.iter().product();
        let mut a = ArrayD::from_shape_vec(IxDyn(&shape), (0..n as i32).collect()).unwrap();
        for k in 0..shape.len() {
            if bits >> k & 1 == 1 {
                a.invert_axis(Axis(k));
            }
            if bits >> (k + 8) & 1 == 1 {
                a.slice_axis_inplace(Axis(k), ndarray::Slice::new(0, None, 2));
            }
        }
        if bits >> 16 & 1 == 1 {
            a = a.reversed_axes();
        }
        a
    })
}

proptest! {
    #[test]
    fn conversions_keep_every_element_and_the_memory(a in strided()) {
        let first = a.as_ptr();
        let expect = a.clone();
        let d = Array::try_from(a).unwrap();
        prop_assert_eq!(d.shape().len(), expect.ndim());
        let v = d.as_ndarray::<i32>().unwrap();
        prop_assert_eq!(&v, &expect);
        if !expect.is_empty() {
            prop_assert_eq!(v.as_ptr(), first);
        }
        // dynd's own reading of the elements agrees, in C order.
        let flat: Vec<i32> = expect.iter().copied().collect();
        prop_assert_eq!(d.to_vec::<i32>().unwrap(), flat);
    }
}

/// ndarray views go in as copies (any strides, C order out); typed views
/// and owned arrays of a fixed number of dimensions come out; the wrong
/// number of dimensions is an error naming the one expected.
#[test]
fn views_in_and_typed_views_out() {
    use ndarray::{Ix1, Ix2, Ix3};
    let m = array![[1.0f64, 2.0, 3.0], [4.0, 5.0, 6.0]];
    // A strided, reversed view: copied in its logical order.
    let v = m.slice(s![..;-1, 1..]);
    let a = Array::from(v);
    assert_eq!(a.ty().to_string(), "2 * 2 * float64");
    assert_eq!(a.to_string(), "[[5, 6], [2, 3]]");
    assert!(a.is_c_contiguous());
    // A mutable view, and from_ndarray for every kind.
    let mut w = m.clone();
    let b = Array::from(w.column_mut(2));
    assert_eq!(b.to_string(), "[3, 6]");
    assert_eq!(
        Array::from_ndarray(m.row(1)).unwrap().to_string(),
        "[4, 5, 6]"
    );
    assert_eq!(
        Array::from_ndarray(m.clone()).unwrap().to_string(),
        "[[1, 2, 3], [4, 5, 6]]"
    );
    let empty = ndarray::Array2::<i32>::zeros((0, 3));
    assert_eq!(Array::from(empty.view()).ty().to_string(), "0 * 3 * int32");

    // Out: a typed view of the same memory, and an owned copy.
    let d = Array::from(m.clone());
    let view = d.as_ndarray_dim::<f64, Ix2>().unwrap();
    assert_eq!(view, m);
    assert_eq!(view.as_ptr(), d.as_ndarray::<f64>().unwrap().as_ptr());
    let owned: Array2<f64> = d.to_ndarray().unwrap();
    assert_eq!(owned, m);
    let row = d.index(&[Index::At(1)]).unwrap();
    assert_eq!(
        row.as_ndarray_dim::<f64, Ix1>().unwrap().to_vec(),
        [4.0, 5.0, 6.0]
    );
    // The wrong number of dimensions, the wrong element type.
    let e = d.as_ndarray_dim::<f64, Ix3>().unwrap_err();
    assert!(matches!(e, Error::NeedsArray { .. }));
    assert!(
        e.to_string().contains("an array of 3 fixed dimensions"),
        "{e}"
    );
    assert!(matches!(
        d.to_ndarray::<f32, Ix2>(),
        Err(Error::DtypeMismatch { .. })
    ));
}
