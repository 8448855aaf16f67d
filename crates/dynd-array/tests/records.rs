//! The unsafe paths of records, for valgrind (`scripts/valgrind.sh
//! records`): a `Vec` of plain structs as an array's memory and back as
//! a slice, the interleaved copy of records held as columns, fields as
//! views, and optional records.

use dynd::nd::{Array, Record};

#[derive(Record, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct P {
    x: f64,
    k: i32,
    on: [bool; 4],
}

#[derive(Record, Clone, Debug, PartialEq)]
struct Named {
    name: String,
    p: Option<P>,
}

fn points(n: usize) -> Vec<P> {
    (0..n)
        .map(|i| P {
            x: i as f64 * 0.5,
            k: -(i as i32),
            on: [i % 2 == 0, true, false, i % 3 == 0],
        })
        .collect()
}

#[test]
fn plain_structs_in_and_out_without_copies() {
    let v = points(1000);
    let moved = v.clone();
    let at = moved.as_ptr() as *const u8;
    let a = Array::from_records(moved).unwrap();
    assert_eq!(a.data_ptr(), at);
    assert_eq!(a.as_records::<P>().unwrap(), &v[..]);
    assert_eq!(a.to_records::<P>().unwrap(), v);
    // A strided view is not a slice of structs: copied out instead.
    let odd = a
        .index(&[dynd::nd::Index::slice(Some(1), None, 2)])
        .unwrap();
    assert!(odd.as_records::<P>().is_err());
    let want: Vec<P> = v.iter().skip(1).step_by(2).copied().collect();
    assert_eq!(odd.to_records::<P>().unwrap(), want);
    drop(a);
    // The Vec's memory outlives the array's views.
    let a = Array::from_records(v.clone()).unwrap();
    let k = a.field("k").unwrap();
    drop(a);
    assert_eq!(k.to_vec::<i32>().unwrap()[999], -999);
}

#[test]
fn columns_interleave_once_and_read_back() {
    let names = vec![
        Named {
            name: "a".into(),
            p: Some(points(1)[0]),
        },
        Named {
            name: "日本".into(),
            p: None,
        },
    ];
    let a = Array::from_records(names.clone()).unwrap();
    assert!(a.is_columnar());
    // Raw parts: the interleaved copy, made once, valid.
    let s1 = a.to_string();
    let b = a.interleaved().unwrap();
    assert_eq!(b.to_string(), s1);
    assert_eq!(b.to_records::<Named>().unwrap(), names);
    assert_eq!(a.to_records::<Named>().unwrap(), names);
    let o = Array::from_optional_records(vec![None, Some(points(2)[1])]).unwrap();
    assert_eq!(
        o.to_optional_records::<P>().unwrap(),
        vec![None, Some(points(2)[1])]
    );
    assert_eq!(o.field("x").unwrap().to_string(), "[null, 0.5]");
}
