//! `#[derive(Record)]` on plain, nested, optional, text and array fields:
//! the datashape, zero-copy in and out for a plain `#[repr(C)]` struct,
//! records held as columns for the rest, and every value back.

use dynd::prelude::*;
use dynd::nd::Field;

#[derive(Record, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Point {
    x: f64,
    y: f64,
}

#[derive(Record, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Segment {
    from: Point,
    to: Point,
    weight: [f32; 2],
    id: u64,
}

#[derive(Record, Clone, Debug, PartialEq)]
pub struct Visit {
    name: String,
    at: Option<Point>,
    tags: [i8; 3],
    note: Option<String>,
    r#type: bool,
}

/// Padding after `a`: not plain, so a copy, and the values still right.
#[derive(Record, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Padded {
    a: u8,
    b: f64,
}

fn main() -> Result<(), dynd::Error> {
    assert_eq!(Point::DATASHAPE, "{x: float64, y: float64}");
    assert_eq!(
        Segment::DATASHAPE,
        "{from: {x: float64, y: float64}, to: {x: float64, y: float64}, weight: 2 * float32, id: uint64}"
    );
    assert_eq!(
        Visit::DATASHAPE,
        "{name: string, at: ?{x: float64, y: float64}, tags: 3 * int8, note: ?string, type: bool}"
    );
    // The constant is the canonical text of the data type.
    assert_eq!(Visit::dtype().to_string(), Visit::DATASHAPE);
    assert_eq!(Segment::dtype().to_string(), Segment::DATASHAPE);

    let segs = vec![
        Segment { from: Point { x: 0.0, y: 1.0 }, to: Point { x: 2.0, y: 3.0 }, weight: [0.5, 1.5], id: 7 },
        Segment { from: Point { x: -1.0, y: 0.0 }, to: Point { x: 9.0, y: 9.5 }, weight: [2.0, 0.0], id: 8 },
    ];
    let moved = segs.clone();
    let at = moved.as_ptr() as *const u8;
    let a = Array::from_records(moved)?;
    assert_eq!(a.data_ptr(), at); // the Vec's memory
    assert_eq!(a.field("to")?.field("y")?.to_string(), "[3, 9.5]");
    assert_eq!(a.as_records::<Segment>()?, &segs[..]);
    assert_eq!(a.to_records::<Segment>()?, segs);

    let visits = vec![
        Visit { name: "Lyon".into(), at: Some(Point { x: 4.8, y: 45.7 }), tags: [1, 2, 3], note: None, r#type: true },
        Visit { name: "".into(), at: None, tags: [0, 0, -1], note: Some("日本".into()), r#type: false },
    ];
    let v = Array::from_records(visits.clone())?;
    assert!(v.is_columnar());
    assert_eq!(v.field("at")?.to_string(), r#"[{"x": 4.8, "y": 45.7}, null]"#);
    assert_eq!(v.field("note")?.to_string(), r#"[null, "日本"]"#);
    assert_eq!(v.to_records::<Visit>()?, visits);
    assert!(v.as_records::<Visit>().is_err()); // not plain: no borrow
    // From JSON, interleaved: the same values out.
    let j = Array::from_json(&v.to_json(), Some(&v.ty().clone()))?;
    assert_eq!(j.to_records::<Visit>()?, visits);

    let o = Array::from_optional_records(vec![Some(Point { x: 1.0, y: 2.0 }), None])?;
    assert_eq!(o.ty().to_string(), "2 * ?{x: float64, y: float64}");
    assert_eq!(o.to_optional_records::<Point>()?, vec![Some(Point { x: 1.0, y: 2.0 }), None]);

    let p = vec![Padded { a: 1, b: 2.5 }, Padded { a: 3, b: -1.0 }];
    let moved = p.clone();
    let at = moved.as_ptr() as *const u8;
    let pa = Array::from_records(moved)?;
    assert_ne!(pa.data_ptr(), at);
    assert_eq!(pa.to_records::<Padded>()?, p);
    assert!(!<Padded as Field>::PLAIN);
    Ok(())
}
