//! The facade as a downstream crate sees it: everything through `dynd`.

use dynd::prelude::*;

#[test]
fn prelude_covers_the_type_system() {
    let t: Type = "10 * var * float32".parse().unwrap();
    assert_eq!(t.dtype(), &Type::from(Scalar::Float32));
    assert!(matches!(t.kind(), TypeKind::Dim(Dim::Fixed(10), _)));
    let r = ndt::broadcast(&[t, datashape!("10 * 1 * int64")], BroadcastMode::NumPy).unwrap();
    assert_eq!(r, datashape!("10 * var * float64"));
}

#[test]
fn errors_are_std_errors_with_sources_of_truth() {
    fn boxed() -> Result<Type, Box<dyn std::error::Error>> {
        Ok("3 * ??int8".parse::<Type>()?)
    }
    let err = boxed().unwrap_err();
    assert!(err.to_string().starts_with("an option of an option"));
    // `str::parse` gives the library's error; `Type::parse` the parse
    // error itself.
    let e: dynd::Error = "3 *".parse::<Type>().unwrap_err();
    assert!(matches!(e, dynd::Error::Parse(_)));
    assert_eq!(e.offset(), Some(3));
    assert_eq!(Type::parse("3 *").unwrap_err().offset(), 3);
}

#[test]
fn types_are_send_sync_and_cheap_to_clone() {
    fn assert_send_sync<T: Send + Sync + 'static>() {}
    assert_send_sync::<Type>();
    assert_send_sync::<dynd::Error>();
    // One word: a builtin scalar's id, or a node's address.
    assert_eq!(std::mem::size_of::<Type>(), 8);
    assert_eq!(std::mem::size_of::<Option<Type>>(), 8);
    let t = datashape!("{a: 3 * int8, b: var * string}");
    let u = t.clone();
    assert_eq!(t, u);
    let mut set = std::collections::HashSet::new();
    set.insert(t);
    assert!(set.contains(&u));
}

#[test]
fn the_error_is_small_enough_to_return_everywhere() {
    // Large payloads are boxed: a `Result<Array, Error>` stays a few words.
    let size = std::mem::size_of::<dynd::Error>();
    assert!(size <= 96, "dynd::Error is {size} bytes");
}

#[test]
fn one_error_type_from_every_layer() {
    // Each layer's failure through `?` in one fn, matched by its data.
    fn parse() -> Result<Type, dynd::Error> {
        "3 * flaot64".parse::<Type>()
    }
    fn assign() -> Result<Array, dynd::Error> {
        let mut a = Array::zeros(&"2 * int8".parse()?)?;
        a.assign(&nd::array![1, 300], ErrorMode::Overflow)?;
        Ok(a)
    }
    fn call() -> Result<Array, dynd::Error> {
        builtins::get("add")?.call(&[&nd::array!["a"], &nd::array![1]])
    }
    fn broadcast() -> Result<Type, dynd::Error> {
        ndt::broadcast(
            &["3 * int32".parse()?, "4 * int32".parse()?],
            BroadcastMode::NumPy,
        )
    }
    match parse().unwrap_err() {
        dynd::Error::Parse(e) => assert_eq!(e.offset(), 4),
        e => panic!("{e}"),
    }
    match assign().unwrap_err() {
        dynd::Error::Kernel(e) => assert_eq!(e.path(), &[1]),
        e => panic!("{e}"),
    }
    match call().unwrap_err() {
        dynd::Error::NoMatch {
            name, candidates, ..
        } => {
            assert_eq!(name, "add");
            assert!(candidates.len() > 10);
        }
        e => panic!("{e}"),
    }
    match broadcast().unwrap_err() {
        dynd::Error::Broadcast { axis, dims, .. } => {
            assert_eq!(axis, 0);
            assert_eq!(*dims, (Dim::Fixed(3), Dim::Fixed(4)));
        }
        e => panic!("{e}"),
    }
    let e = builtins::get("sume").unwrap_err();
    assert!(
        matches!(&e, dynd::Error::UnknownFunction { suggestions, .. } if suggestions[0] == "sum"),
        "{e}"
    );
}

#[test]
fn a_prepared_call_serves_many_threads() {
    fn assert_send_sync<T: Send + Sync + 'static>() {}
    assert_send_sync::<dynd::func::Prepared>();
    let add = dynd::func::builtins::get("add").unwrap();
    let x = dynd::nd::Array::from_vec(vec![1.0f64, 2.0, 3.0]);
    let p = add.prepare(&[x.ty(), x.ty()]).unwrap();
    std::thread::scope(|s| {
        for k in 0..4 {
            let (p, x) = (&p, &x);
            s.spawn(move || {
                let y = dynd::nd::Array::from_vec(vec![k as f64; 3]);
                let r = p.call(&[x, &y]).unwrap();
                assert_eq!(
                    r.to_vec::<f64>().unwrap(),
                    [1.0 + k as f64, 2.0 + k as f64, 3.0 + k as f64]
                );
                let mut out = dynd::nd::Array::from_vec(vec![0.0f64; 3]);
                p.call_into(&mut out, &[x, &y]).unwrap();
                assert_eq!(out.to_vec::<f64>().unwrap(), r.to_vec::<f64>().unwrap());
            });
        }
    });
    // A strided view of the prepared type takes the general path.
    let wide = dynd::nd::Array::from_vec(vec![1.0f64, 0.0, 2.0, 0.0, 3.0, 0.0]);
    let every_other = wide
        .index(&[dynd::nd::Index::slice(None, None, 2)])
        .unwrap();
    assert_eq!(every_other.ty(), x.ty());
    assert_eq!(
        p.call(&[&every_other, &x])
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        [2.0, 4.0, 6.0]
    );
    // Function callables are not prepared.
    let sum = dynd::func::builtins::get("sum").unwrap();
    assert!(sum.prepare(&[x.ty()]).is_err());
}
