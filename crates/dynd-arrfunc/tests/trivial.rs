//! The trivial call (dense arguments of builtin data types, one shape or
//! 0-d, run by the loop a table of data types holds) gives what the
//! resolved call gives, into fresh arrays and into outputs, and leaves
//! everything else to the general path: checked against `Prepared`
//! calls, which always resolve.

use dynd_arrfunc::{builtins, Callable, Error};
use dynd_kernels::{Array, ArrayOps, Index};
use dynd_types::Type;

/// Arrays of `dtype` in several layouts: 0-d, 1-d, 2-d, a view with a
/// step, a transposed matrix, a row to broadcast, and an empty one.
fn layouts(dtype: &str) -> Vec<(String, Array)> {
    let v = |json: &str, ty: &str| {
        let t: Type = ty.replace('T', dtype).parse().unwrap();
        // The values are single digits: odd ones true for `bool`.
        let json: String = match dtype {
            "bool" => json
                .chars()
                .map(|c| match c.to_digit(10) {
                    Some(d) if d % 2 == 1 => "true".to_string(),
                    Some(_) => "false".to_string(),
                    None => c.to_string(),
                })
                .collect(),
            _ => json.to_string(),
        };
        Array::from_json(&json, Some(&t)).unwrap()
    };
    let wide = v("[1, 9, 2, 9, 3, 9, 4, 9, 5, 9, 6, 9]", "12 * T");
    let m = v("[[1, 2, 3], [4, 5, 6]]", "2 * 3 * T");
    vec![
        ("0-d".into(), v("3", "T")),
        ("6".into(), v("[6, 5, 4, 3, 2, 1]", "6 * T")),
        ("2x3".into(), m.clone()),
        (
            "3x2 transposed".into(),
            v("[[1, 2], [3, 4], [5, 6]]", "3 * 2 * T")
                .transpose()
                .unwrap(),
        ),
        (
            "6 stepped".into(),
            wide.index(&[Index::slice(None, None, 2)]).unwrap(),
        ),
        ("3 row".into(), v("[7, 8, 9]", "3 * T")),
        ("0".into(), v("[]", "0 * T")),
        ("1x1".into(), v("[[2]]", "1 * 1 * T")),
    ]
}

/// `c` called directly and prepared (which resolves), compared: both
/// succeed with the same result, or both fail with the same message;
/// into an output of the result's type too.
fn agree(c: &Callable, args: &[&Array], what: &str) {
    let types: Vec<&Type> = args.iter().map(|a| a.ty()).collect();
    let direct = c.call(args);
    let prepared = c.prepare(&types).and_then(|p| p.call(args));
    match (&direct, &prepared) {
        (Ok(x), Ok(y)) => {
            assert_eq!(x.ty(), y.ty(), "{what}");
            assert_eq!(x.to_string(), y.to_string(), "{what}");
            // Into an output of that type, holding other values.
            let mut out = y.clone();
            out.assign(
                &Array::zeros(y.ty()).unwrap(),
                dynd_kernels::ErrorMode::NoCheck,
            )
            .unwrap();
            c.call_into(&mut out, args).unwrap();
            assert_eq!(out.to_string(), y.to_string(), "{what} into");
        }
        (Err(x), Err(y)) => assert_eq!(x.to_string(), y.to_string(), "{what}"),
        _ => panic!("{what}: {direct:?} against {prepared:?}"),
    }
}

#[test]
fn trivial_calls_give_what_resolved_calls_give() {
    let names = [
        "add", "subtract", "multiply", "less", "maximum", "negative", "sqrt", "abs",
    ];
    let user = Callable::map("axpy", |a: f64, b: f64| 2.0 * a + b);
    for dtypes in [
        ["float64", "float64"],
        ["int64", "int64"],
        ["int32", "float64"],
        ["float32", "float32"],
        ["uint8", "uint8"],
        ["bool", "bool"],
    ] {
        let (xs, ys) = (layouts(dtypes[0]), layouts(dtypes[1]));
        for name in names {
            let c = builtins::get(name).unwrap();
            for (xn, x) in &xs {
                if c.arity() == 1 {
                    agree(&c, &[x], &format!("{name}({xn} {})", dtypes[0]));
                    continue;
                }
                for (yn, y) in &ys {
                    let what = format!("{name}({xn} {}, {yn} {})", dtypes[0], dtypes[1]);
                    agree(&c, &[x, y], &what);
                }
            }
        }
        for (xn, x) in &xs {
            for (yn, y) in &ys {
                agree(&user, &[x, y], &format!("axpy({xn}, {yn}) {dtypes:?}"));
            }
        }
    }
}

#[test]
fn trivial_calls_into_outputs_follow_the_general_rules() {
    let add = builtins::get("add").unwrap();
    let (x, y) = (
        Array::from_vec(vec![1.0f64, 2.0]),
        Array::from_vec(vec![10.0f64, 20.0]),
    );
    // An output sharing its memory with an argument is copied first: the
    // argument keeps its values.
    let mut out = x.clone();
    add.call_into(&mut out, &[&x, &y]).unwrap();
    assert_eq!(out.to_vec::<f64>().unwrap(), [11.0, 22.0]);
    assert_eq!(x.to_vec::<f64>().unwrap(), [1.0, 2.0]);
    // 0-d arguments broadcast to the output.
    let mut out = Array::from_vec(vec![0.0f64; 3]);
    add.call_into(
        &mut out,
        &[&Array::from_scalar(1.5), &Array::from_scalar(2.0)],
    )
    .unwrap();
    assert_eq!(out.to_vec::<f64>().unwrap(), [3.5; 3]);
    // A read-only output is refused, and keeps its values.
    static DATA: [f64; 2] = [5.0, 6.0];
    let mut fixed = Array::from_static(&DATA);
    let e = add.call_into(&mut fixed, &[&x, &y]).unwrap_err();
    assert!(matches!(e, Error::ReadOnly), "{e:?}");
    assert_eq!(fixed.to_vec::<f64>().unwrap(), [5.0, 6.0]);
    // An output of another element type or shape: the general path's
    // errors.
    let mut narrow = Array::from_vec(vec![0.0f32; 2]);
    assert!(matches!(
        add.call_into(&mut narrow, &[&x, &y]),
        Err(Error::Out { .. })
    ));
    let mut long = Array::from_vec(vec![0.0f64; 3]);
    let e = add.call_into(&mut long, &[&x, &y]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "add: the out array has type 3 * float64, but the result has type 2 * float64"
    );
    // Arguments of other shapes than each other: the general path's error.
    let e = add
        .call(&[&x, &Array::from_vec(vec![1.0f64; 3])])
        .unwrap_err();
    assert!(e.to_string().contains("broadcast"), "{e}");
}

#[test]
fn a_strict_callable_takes_the_trivial_call_as_its_rule_allows() {
    let add = builtins::get("add").unwrap().strict();
    let x = Array::from_vec(vec![1i64, 2, 3]);
    let r = add.call(&[&x, &Array::from_scalar(1i64)]).unwrap();
    assert_eq!(r.to_vec::<i64>().unwrap(), [2, 3, 4]);
    let m = Array::from_shape_vec(&[2, 3], vec![1i64; 6]).unwrap();
    // A row meeting a matrix is refused in strict mode, trivially or not.
    assert!(add.call(&[&m, &x]).is_err());
    assert_eq!(
        add.call(&[&m, &m]).unwrap().to_string(),
        "[[2, 2, 2], [2, 2, 2]]"
    );
}

#[test]
fn results_in_a_loop_are_fresh_arrays_of_the_arguments_type() {
    let add = builtins::get("add").unwrap();
    let x = Array::from_shape_vec(&[2, 2], vec![1.0f64, 2.0, 3.0, 4.0]).unwrap();
    let y = Array::from_shape_vec(&[2, 2], vec![10.0f64, 20.0, 30.0, 40.0]).unwrap();
    // Results dropped and made again reuse their blocks on this thread:
    // each is still its own, and the arguments keep their values.
    for k in 0..10 {
        let r = add.call(&[&x, &Array::from_scalar(k as f64)]).unwrap();
        assert_eq!(r.ty(), x.ty());
        assert_eq!(
            r.to_vec::<f64>().unwrap(),
            [1.0, 2.0, 3.0, 4.0].map(|v| v + k as f64)
        );
        let s = add.call(&[&r, &y]).unwrap();
        assert!(!std::sync::Arc::ptr_eq(s.data_block(), r.data_block()));
        assert!(!std::sync::Arc::ptr_eq(s.data_block(), y.data_block()));
        assert_eq!(s.get::<f64>(&[1, 1]).unwrap(), 4.0 + k as f64 + 40.0);
    }
    assert_eq!(x.to_vec::<f64>().unwrap(), [1.0, 2.0, 3.0, 4.0]);
    // A result of another element type (a comparison) is resolved.
    let less = builtins::get("less").unwrap();
    assert_eq!(
        less.call(&[&x, &y]).unwrap().ty().to_string(),
        "2 * 2 * bool"
    );
}
