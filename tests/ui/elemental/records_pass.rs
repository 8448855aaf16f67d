//! `#[elemental]` over `#[derive(Record)]` structs: records in and out,
//! over dense and ragged arrays, interleaved and held as columns, with
//! broadcasting and optional records.

use dynd::prelude::*;

#[derive(Record, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Point {
    x: f64,
    y: f64,
}

#[elemental]
fn dist(p: Point, q: Point) -> f64 {
    ((p.x - q.x).powi(2) + (p.y - q.y).powi(2)).sqrt()
}

#[elemental]
fn mid(p: Point, q: Point) -> Point {
    Point { x: (p.x + q.x) / 2.0, y: (p.y + q.y) / 2.0 }
}

#[elemental]
fn shift(p: Option<Point>, dx: f64) -> Option<Point> {
    p.map(|p| Point { x: p.x + dx, ..p })
}

#[derive(Record, Clone, Debug)]
struct City {
    name: String,
    at: Point,
}

#[elemental]
fn label(c: City, km: f64) -> String {
    format!("{} ({km} km)", c.name)
}

fn main() -> Result<(), dynd::Error> {
    assert_eq!(dist::SIGNATURE, "({x: float64, y: float64}, {x: float64, y: float64}) -> float64");
    assert_eq!(mid::SIGNATURE, "({x: float64, y: float64}, {x: float64, y: float64}) -> {x: float64, y: float64}");
    assert_eq!(shift::SIGNATURE, "(?{x: float64, y: float64}, float64) -> ?{x: float64, y: float64}");

    let ps = Array::from_records(vec![Point { x: 0.0, y: 0.0 }, Point { x: 3.0, y: 4.0 }])?;
    let origin = Array::from_records(vec![Point { x: 0.0, y: 0.0 }])?.at(0)?;
    // Interleaved records against one broadcast record.
    assert_eq!(dist::call(&ps, &origin)?.to_string(), "[0, 5]");
    // Held as columns, ragged.
    let cols = Array::from_columns([
        ("x", Array::from_json("[[3], [], [6, 0]]", None)?.cast(&"3 * var * float64".parse()?, ErrorMode::NoCheck)?),
        ("y", Array::from_json("[[4.0], [], [8.0, 1.0]]", None)?),
    ])?;
    assert_eq!(dist::call(&cols, &origin)?.to_string(), "[[5], [], [10, 1]]");
    let m = mid::call(&cols, &origin)?;
    assert_eq!(m.ty().to_string(), "3 * var * {x: float64, y: float64}");
    assert_eq!(m.field("y")?.to_string(), "[[2], [], [4, 0.5]]");
    // Optional records: NA stays NA.
    let o = Array::from_optional_records(vec![Some(Point { x: 1.0, y: 1.0 }), None])?;
    let s = shift::call(&o, 0.5)?;
    assert_eq!(s.to_optional_records::<Point>()?, vec![Some(Point { x: 1.5, y: 1.0 }), None]);
    // An integer argument is cast to the float64 parameter safely.
    assert_eq!(shift::call(&o, 2i32)?.field("x")?.to_string(), "[3, null]");
    // Records with text.
    let c = Array::from_records(vec![City { name: "Lyon".into(), at: Point { x: 1.0, y: 2.0 } }])?;
    assert_eq!(label::call(&c, vec![12.5])?.to_string(), r#"["Lyon (12.5 km)"]"#);
    // The callable's errors name the argument.
    let err = dist::call(&ps, 1.0).unwrap_err();
    assert!(err.to_string().contains("argument 1"), "{err}");
    Ok(())
}
