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
    let e: ndt::Error = "3 *".parse::<Type>().unwrap_err().into();
    assert!(matches!(e, ndt::Error::Parse(_)));
}

#[test]
fn types_are_send_sync_and_cheap_to_clone() {
    fn assert_send_sync<T: Send + Sync + 'static>() {}
    assert_send_sync::<Type>();
    assert_send_sync::<ndt::Error>();
    assert_eq!(std::mem::size_of::<Type>(), 16);
    let t = datashape!("{a: 3 * int8, b: var * string}");
    let u = t.clone();
    assert_eq!(t, u);
    let mut set = std::collections::HashSet::new();
    set.insert(t);
    assert!(set.contains(&u));
}
