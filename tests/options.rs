//! `Option<T>` data in and out through the facade: `?T` arrays made from
//! `Vec`s of options at any depth, read back with `to_vec`/`to_nested`,
//! and errors that say how to read NA.

use dynd::nd::{array, Array, Complex, Index, IntoArray};

#[test]
fn options_make_option_arrays_at_every_depth() -> Result<(), dynd::Error> {
    let flat = Array::from_nested(vec![Some(1.5), None, Some(-0.0)])?;
    assert_eq!(flat.ty().to_string(), "3 * ?float64");
    assert_eq!(flat.to_string(), "[1.5, null, -0.0]");
    assert_eq!(flat.to_vec::<Option<f64>>()?, [Some(1.5), None, Some(-0.0)]);

    let ragged = vec![vec![Some(1i32), None], vec![], vec![None], vec![Some(4)]];
    let a = Array::from_nested(ragged.clone())?;
    assert_eq!(a.ty().to_string(), "4 * var * ?int32");
    assert_eq!(a.to_string(), "[[1, null], [], [null], [4]]");
    assert_eq!(a.to_nested::<Option<i32>>()?, ragged);

    let deep = vec![
        vec![vec![Some(true)], vec![]],
        vec![vec![None, Some(false)]],
    ];
    let d = deep.clone().into_array()?;
    assert_eq!(d.ty().to_string(), "2 * var * var * ?bool");
    assert_eq!(d.to_string(), "[[[true], []], [[null, false]]]");

    let fixed = Array::from_nested(vec![[Some(1u8), None], [None, Some(2)]])?;
    assert_eq!(fixed.ty().to_string(), "2 * 2 * ?uint8");
    assert_eq!(
        fixed.to_vec::<Option<u8>>()?,
        [Some(1), None, None, Some(2)]
    );

    // Complex options are laid out differently from the others (the flag
    // after 16 bytes, padded to 24): through the same path.
    let z = vec![Some(Complex::new(1.0, -2.0)), None];
    let c = z.clone().into_array()?;
    assert_eq!(c.ty().to_string(), "2 * ?complex[float64]");
    assert_eq!(c.to_vec::<Option<Complex<f64>>>()?, z);

    let one = Some(2.5f32).into_array()?;
    assert_eq!(one.ty().to_string(), "?float32");
    assert_eq!(None::<f32>.into_array()?.to_string(), "null");

    let empty = Array::from_nested(Vec::<Option<i64>>::new())?;
    assert_eq!(empty.ty().to_string(), "0 * ?int64");
    assert!(empty.to_vec::<Option<i64>>()?.is_empty());
    Ok(())
}

#[test]
fn literals_and_values_agree() -> Result<(), dynd::Error> {
    let lit = array![Some(1.0), None, Some(3.0)];
    let null = array![1.0, null, 3.0];
    assert_eq!(lit.ty(), null.ty());
    assert_eq!(lit.to_vec::<Option<f64>>()?, null.to_vec::<Option<f64>>()?);
    let nested = array![[Some(1), None], [None]];
    assert_eq!(nested.ty().to_string(), "2 * var * ?int64");
    Ok(())
}

#[test]
fn views_and_results_read_back_as_options() -> Result<(), dynd::Error> {
    let a = Array::from_nested(vec![Some(1.0), None, Some(3.0), None, Some(5.0)])?;
    // Every other element: a strided view of `?float64`.
    let every_other = a.index(&[Index::slice(Some(0), None, 2)])?;
    assert_eq!(
        every_other.to_vec::<Option<f64>>()?,
        [Some(1.0), Some(3.0), Some(5.0)]
    );
    let reversed = a.index(&[Index::slice(None, None, -1)])?;
    assert_eq!(
        reversed.to_vec::<Option<f64>>()?,
        [Some(5.0), None, Some(3.0), None, Some(1.0)]
    );
    // A function's `?T` result.
    let x = Array::from_nested(vec![vec![3.0, 1.0], vec![]])?;
    let best = dynd::func::argmax(&x, Some(-1), false)?;
    assert_eq!(best.to_vec::<Option<i64>>()?, [Some(0), None]);
    // A plain `T` array reads as options too, all there.
    let plain = Array::from_vec(vec![1i16, 2]);
    assert_eq!(plain.to_vec::<Option<i16>>()?, [Some(1), Some(2)]);
    assert_eq!(
        Array::from_nested(vec![vec![1i16], vec![2, 3]])?.to_nested::<Option<i16>>()?,
        [vec![Some(1)], vec![Some(2), Some(3)]]
    );
    Ok(())
}

#[test]
fn reading_na_as_plain_numbers_says_how() {
    let a = array![1.5, null];
    let e = a.to_vec::<f64>().unwrap_err().to_string();
    assert_eq!(
        e,
        "the array's data type is ?float64, not float64 (it may hold NA: read it as \
         `Option<T>`, or replace NA first with `fill_na`)"
    );
    let r = Array::from_nested(vec![vec![Some(1.0)], vec![None]]).unwrap();
    let e = r.to_nested::<f64>().unwrap_err().to_string();
    assert!(e.contains("Option<T>") && e.contains("fill_na"), "{e}");
    // Another type: no hint, the types named.
    let e = a.to_vec::<Option<i32>>().unwrap_err().to_string();
    assert_eq!(e, "the array's data type is ?float64, not ?int32");
    // A call on an array of other dimensions names the call made.
    let vv = Array::from_nested(vec![vec![vec![1.0], vec![]], vec![vec![2.0]]]).unwrap();
    let e = vv.to_nested::<f64>().unwrap_err().to_string();
    assert!(e.contains("to_nested"), "{e}");
}
