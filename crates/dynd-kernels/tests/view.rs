//! Views: indexing, slicing (negative steps), var dimensions, permutation,
//! read-only propagation, writes through `assign_at`, and memory-order loops.

use dynd_kernels::assign::assignment_kernel;
use dynd_kernels::ArrayOps;
use dynd_kernels::{array, Array, Error, ErrorMode, Index};

fn s(start: Option<i64>, stop: Option<i64>, step: i64) -> Index {
    Index::slice(start, stop, step)
}

#[test]
fn fixed_dimension_indexing_and_slicing() {
    let a = Array::from_shape_vec(&[3, 4], (0..12).collect::<Vec<i32>>()).unwrap();
    let cases: &[(&[Index], &str, &str)] = &[
        (&[Index::At(0)], "[0, 1, 2, 3]", "4 * int32"),
        (&[Index::At(-1)], "[8, 9, 10, 11]", "4 * int32"),
        (&[Index::At(1), Index::At(2)], "6", "int32"),
        (&[Index::ALL, Index::At(1)], "[1, 5, 9]", "3 * int32"),
        (
            &[s(Some(1), None, 1)],
            "[[4, 5, 6, 7], [8, 9, 10, 11]]",
            "2 * 4 * int32",
        ),
        (
            &[Index::ALL, s(None, None, 2)],
            "[[0, 2], [4, 6], [8, 10]]",
            "3 * 2 * int32",
        ),
        (
            &[Index::ALL, s(None, None, -1)],
            "[[3, 2, 1, 0], [7, 6, 5, 4], [11, 10, 9, 8]]",
            "3 * 4 * int32",
        ),
        (
            &[s(None, None, -2), s(Some(-1), Some(0), -2)],
            "[[11, 9], [3, 1]]",
            "2 * 2 * int32",
        ),
        (&[s(Some(5), Some(10), 1)], "[]", "0 * 4 * int32"),
        (&[s(Some(2), Some(1), 1)], "[]", "0 * 4 * int32"),
        (
            &[s(Some(-100), Some(100), 1), Index::At(0)],
            "[0, 4, 8]",
            "3 * int32",
        ),
    ];
    for (idx, value, ty) in cases {
        let v = a.index(idx).unwrap_or_else(|e| panic!("{idx:?}: {e}"));
        assert_eq!(
            (v.to_string().as_str(), v.ty().to_string().as_str()),
            (*value, *ty),
            "{idx:?}"
        );
        assert_eq!(
            v.data_block().as_ptr(),
            a.data_block().as_ptr(),
            "{idx:?} copied"
        );
    }
    assert_eq!(
        a.index(&[Index::At(3)]).unwrap_err().to_string(),
        "index 3 is out of bounds for dimension 0 of size 3"
    );
    assert_eq!(
        a.index(&[Index::ALL, Index::At(-5)])
            .unwrap_err()
            .to_string(),
        "index -5 is out of bounds for dimension 1 of size 4"
    );
    assert!(a
        .index(&[Index::ALL, Index::ALL, Index::ALL])
        .unwrap_err()
        .to_string()
        .contains("3 indices given"));
    assert!(a
        .index(&[s(None, None, 0)])
        .unwrap_err()
        .to_string()
        .contains("step cannot be zero"));
}

#[test]
fn var_dimension_views_share_values() {
    let r = array![[1, 2, 3], [4], [5, 6]];
    let row = r.at(0).unwrap();
    assert_eq!(
        (row.to_string().as_str(), row.ty().to_string().as_str()),
        ("[1, 2, 3]", "var * int64")
    );
    assert_eq!(
        r.index(&[Index::At(0), Index::At(-1)]).unwrap().to_string(),
        "3"
    );
    assert_eq!(
        r.index(&[Index::At(2), s(None, None, -1)])
            .unwrap()
            .to_string(),
        "[6, 5]"
    );
    assert_eq!(
        r.index(&[Index::At(0), s(Some(1), None, 1)])
            .unwrap()
            .to_string(),
        "[2, 3]"
    );
    assert_eq!(
        r.index(&[Index::At(1), s(Some(1), None, 1)])
            .unwrap()
            .to_string(),
        "[]"
    );
    assert_eq!(
        r.index(&[s(Some(1), None, 1)]).unwrap().to_string(),
        "[[4], [5, 6]]"
    );
    assert_eq!(
        r.index(&[Index::At(1), Index::At(1)])
            .unwrap_err()
            .to_string(),
        "index 1 is out of bounds for dimension 1 of size 1"
    );
    assert!(matches!(
        r.index(&[Index::ALL, Index::At(0)]),
        Err(Error::Unsupported { .. })
    ));
    // Slices of every row: new pairs, the same values.
    assert_eq!(
        r.index(&[Index::ALL, s(Some(1), None, 1)])
            .unwrap()
            .to_string(),
        "[[2, 3], [], [6]]"
    );
    assert_eq!(
        r.index(&[s(None, None, -1), s(None, None, -1)])
            .unwrap()
            .to_string(),
        "[[6, 5], [4], [3, 2, 1]]"
    );
    let rev = r.index(&[Index::ALL, s(None, None, -1)]).unwrap();
    assert_eq!(
        rev.index(&[Index::ALL, s(None, None, -2)])
            .unwrap()
            .to_string(),
        "[[1, 3], [4], [5]]"
    );
    assert_eq!(
        rev.index(&[Index::At(0), Index::At(0)])
            .unwrap()
            .to_string(),
        "3"
    );
    let mut w = r.clone();
    w.assign_at(
        &[Index::ALL, s(Some(1), None, 1)],
        &array![0],
        ErrorMode::Fractional,
    )
    .unwrap();
    assert_eq!(w.to_string(), "[[1, 0, 0], [4], [5, 0]]");
    assert_eq!(r.to_string(), "[[1, 2, 3], [4], [5, 6]]");
    let nested = array![[[1, 2], [3]], [[4, 5, 6]]];
    assert!(matches!(
        nested.index(&[Index::ALL, Index::ALL, s(Some(1), None, 1)]),
        Err(Error::Unsupported { .. })
    ));
    // Element views point into the values block: no copy.
    let Some(values) = (match r.arrmeta() {
        dynd_kernels::Arrmeta::Fixed { element, .. } => match &**element {
            dynd_kernels::Arrmeta::Var { values, .. } => Some(values.clone()),
            _ => None,
        },
        _ => None,
    }) else {
        panic!("expected fixed over var arrmeta")
    };
    let x = r.index(&[Index::At(2), Index::At(1)]).unwrap();
    assert_eq!(x.data_block().as_ptr(), values.as_ptr());
    // A sliced row still assigns (var -> fixed).
    let mut dst = Array::zeros(&"2 * int32".parse().unwrap()).unwrap();
    dst.assign(
        &r.index(&[Index::At(0), s(Some(1), None, 1)]).unwrap(),
        ErrorMode::Fractional,
    )
    .unwrap();
    assert_eq!(dst.to_string(), "[2, 3]");
}

#[test]
fn permutations_and_transposes() {
    let a = Array::from_shape_vec(&[2, 3, 4], (0..24).collect::<Vec<i16>>()).unwrap();
    let t = a.transpose().unwrap();
    assert_eq!(t.ty().to_string(), "4 * 3 * 2 * int16");
    assert_eq!(t.strides(), vec![2, 8, 24]);
    assert_eq!(
        t.get::<i16>(&[3, 2, 1]).unwrap(),
        a.get::<i16>(&[1, 2, 3]).unwrap()
    );
    assert!(!t.is_c_contiguous());
    let p = a.permute_axes(&[1, 0]).unwrap();
    assert_eq!(p.ty().to_string(), "3 * 2 * 4 * int16");
    assert_eq!(p.get::<i16>(&[2, 1, 3]).unwrap(), 23);
    assert!(a.permute_axes(&[0, 0]).is_err());
    assert!(a.permute_axes(&[0, 3, 1]).is_err());
    // Copying a transpose gives C order.
    let mut c = Array::zeros(&"4 * 3 * 2 * int16".parse().unwrap()).unwrap();
    c.assign(&t, ErrorMode::Fractional).unwrap();
    assert!(c.is_c_contiguous());
    assert_eq!(c.to_string(), t.to_string());
    assert_eq!(c.to_vec::<i16>().unwrap()[..4], [0, 12, 4, 16]);
}

#[test]
fn f_order_to_f_order_runs_as_one_loop() {
    let src = Array::from_shape_vec(&[30, 20], (0..600).map(f64::from).collect())
        .unwrap()
        .transpose()
        .unwrap();
    let dst = Array::zeros(&"30 * 20 * float64".parse().unwrap())
        .unwrap()
        .transpose()
        .unwrap();
    let k = assignment_kernel(
        dst.ty(),
        dst.arrmeta(),
        src.ty(),
        src.arrmeta(),
        ErrorMode::Fractional,
    )
    .unwrap();
    assert_eq!(
        k.describe(),
        "loops [600:(8; [8])] (size:(dst stride; src strides))\n  assign float64 <- float64 (nocheck)\n"
    );
    // A permuted 3-d array likewise.
    let a = Array::from_shape_vec(&[4, 5, 6], vec![1u8; 120])
        .unwrap()
        .permute_axes(&[2, 0, 1])
        .unwrap();
    let b = Array::zeros(&"4 * 5 * 6 * uint8".parse().unwrap())
        .unwrap()
        .permute_axes(&[2, 0, 1])
        .unwrap();
    let k = assignment_kernel(
        b.ty(),
        b.arrmeta(),
        a.ty(),
        a.arrmeta(),
        ErrorMode::Fractional,
    )
    .unwrap();
    assert_eq!(
        k.describe().lines().next().unwrap(),
        "loops [120:(1; [1])] (size:(dst stride; src strides))"
    );
    // Mismatched layouts stay in the destination's memory order.
    let c = Array::zeros(&"20 * 30 * float64".parse().unwrap()).unwrap();
    let k = assignment_kernel(
        c.ty(),
        c.arrmeta(),
        src.ty(),
        src.arrmeta(),
        ErrorMode::Fractional,
    )
    .unwrap();
    assert_eq!(
        k.describe().lines().next().unwrap(),
        "loops [20:(240; [8]), 30:(8; [160])] (size:(dst stride; src strides))"
    );
}

#[test]
fn errors_in_reordered_loops_name_the_original_index() {
    let src = Array::from_json(
        "[[1, 2, 3], [4, 500, 6]]",
        Some(&"2 * 3 * int32".parse().unwrap()),
    )
    .unwrap();
    let mut dst = Array::zeros(&"3 * 2 * int8".parse().unwrap())
        .unwrap()
        .transpose()
        .unwrap();
    let err = dst.assign(&src, ErrorMode::Overflow).unwrap_err();
    assert_eq!(
        err.to_string(),
        "500 is out of range for int8 (assigning int32 to int8), at index [1, 1]"
    );
    let mut flat = Array::zeros(&"2 * 3 * int8".parse().unwrap()).unwrap();
    let err = flat.assign(&src, ErrorMode::Overflow).unwrap_err();
    assert_eq!(
        err.to_string(),
        "500 is out of range for int8 (assigning int32 to int8), at index [1, 1]"
    );
}

#[test]
fn views_keep_read_only_and_writes_go_through_assign_at() {
    static DATA: [f32; 4] = [1.0, 2.0, 3.0, 4.0];
    let a = Array::from_static(&DATA);
    let mut v = a.index(&[s(Some(1), None, 1)]).unwrap();
    assert!(v.is_readonly());
    assert_eq!(
        v.assign(&array![0.0], ErrorMode::Fractional),
        Err(Error::ReadOnly)
    );

    let mut m = Array::from_shape_vec(&[2, 3], vec![0i64; 6]).unwrap();
    m.assign_at(
        &[Index::ALL, Index::At(1)],
        &array![7, 8],
        ErrorMode::Fractional,
    )
    .unwrap();
    assert_eq!(m.to_string(), "[[0, 7, 0], [0, 8, 0]]");
    // A source that is a view of the destination reads the old values.
    let shifted = m.index(&[Index::ALL, s(None, Some(2), 1)]).unwrap();
    m.assign_at(
        &[Index::ALL, s(Some(1), None, 1)],
        &shifted,
        ErrorMode::Fractional,
    )
    .unwrap();
    assert_eq!(m.to_string(), "[[0, 0, 7], [0, 0, 8]]");
    assert_eq!(shifted.to_string(), "[[0, 7], [0, 8]]");
    // Writing into a ragged row through a view.
    let mut r = array![[1, 2, 3], [4]];
    r.assign_at(
        &[Index::At(0), s(None, None, 2)],
        &array![0],
        ErrorMode::Fractional,
    )
    .unwrap();
    assert_eq!(r.to_string(), "[[0, 2, 0], [4]]");
}

#[test]
fn a_large_transpose_runs_in_tiles_and_is_exact() {
    let (r, c) = (100usize, 70usize);
    let data: Vec<i32> = (0..(r * c) as i32).collect();
    let src = Array::from_shape_vec(&[r, c], data.clone())
        .unwrap()
        .transpose()
        .unwrap();
    let mut dst = Array::zeros(&format!("{c} * {r} * int64").parse().unwrap()).unwrap();
    let k = assignment_kernel(
        dst.ty(),
        dst.arrmeta(),
        src.ty(),
        src.arrmeta(),
        ErrorMode::Fractional,
    )
    .unwrap();
    assert!(
        k.describe().contains("last two in tiles"),
        "{}",
        k.describe()
    );
    dst.assign(&src, ErrorMode::Fractional).unwrap();
    let out = dst.to_vec::<i64>().unwrap();
    for i in 0..c {
        for j in 0..r {
            assert_eq!(out[i * r + j], i64::from(data[j * c + i]));
        }
    }
    // An error inside a tile names the original index.
    let mut big = data.clone();
    big[77 * c + 65] = 1_000;
    let src = Array::from_shape_vec(&[r, c], big)
        .unwrap()
        .transpose()
        .unwrap();
    let mut small = Array::zeros(&format!("{c} * {r} * int8").parse().unwrap()).unwrap();
    let err = small.assign(&src, ErrorMode::Overflow).unwrap_err();
    assert!(
        err.to_string().contains("is out of range for int8"),
        "{err}"
    );
    let mut clipped: Vec<i32> = data.iter().map(|v| v % 100).collect();
    clipped[77 * c + 65] = 1_000;
    let src = Array::from_shape_vec(&[r, c], clipped)
        .unwrap()
        .transpose()
        .unwrap();
    let err = small.assign(&src, ErrorMode::Overflow).unwrap_err();
    assert_eq!(
        err.to_string(),
        "1000 is out of range for int8 (assigning int32 to int8), at index [65, 77]"
    );
}

/// Contiguity is read from the arrmeta at every depth: the first eight
/// levels and deeper ones are checked alike.
#[test]
fn contiguity_is_checked_at_every_depth() {
    for ndim in [1usize, 7, 8, 9, 12] {
        // Dimensions of 2, the second 1 and the last 4.
        let shape: Vec<usize> = (0..ndim)
            .map(|i| match i {
                _ if i + 1 == ndim => 4,
                1 => 1,
                _ => 2,
            })
            .collect();
        let n: usize = shape.iter().product();
        let a = Array::from_shape_vec(&shape, (0..n as i64).collect()).unwrap();
        assert!(a.is_c_contiguous(), "{ndim}");
        assert_eq!(a.as_slice::<i64>().unwrap().len(), n, "{ndim}");
        // Every other element of the innermost dimension, then of the
        // outermost: neither is contiguous.
        let mut inner = vec![Index::slice(None, None, 1); ndim];
        inner[ndim - 1] = Index::slice(None, None, 2);
        let strided = a.index(&inner).unwrap();
        assert!(!strided.is_c_contiguous(), "{ndim}");
        assert!(strided.as_slice::<i64>().is_err(), "{ndim}");
        if ndim > 1 {
            let mut outer = vec![Index::slice(None, None, 1); ndim];
            outer[0] = Index::slice(Some(1), None, 1);
            // One outer element: contiguous, starting half way.
            let half = a.index(&outer).unwrap();
            assert_eq!(half.as_slice::<i64>().unwrap()[0], (n / 2) as i64, "{ndim}");
            // A reversed innermost dimension is not C order.
            let mut rev = vec![Index::slice(None, None, 1); ndim];
            rev[ndim - 1] = Index::slice(None, None, -1);
            assert!(!a.index(&rev).unwrap().is_c_contiguous(), "{ndim}");
        }
    }
}
