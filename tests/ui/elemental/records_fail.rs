use dynd::prelude::*;

#[derive(Record, Clone, Copy)]
struct Point {
    x: f64,
    y: f64,
}

struct NotARecord {
    x: f64,
}

#[elemental]
fn norm(p: Point, #[kw] scale: f64) -> f64 {
    (p.x * p.x + p.y * p.y).sqrt() * scale
}

#[elemental]
fn first(p: &Point) -> f64 {
    p.x
}

#[elemental]
fn raw(p: NotARecord) -> f64 {
    p.x
}

fn main() {}
