use dynd::nd::Record;

#[derive(Record)]
struct Pair(f64, f64);

#[derive(Record)]
struct Generic<T> {
    x: T,
}

#[derive(Record)]
enum Shape {
    Circle,
}

#[derive(Record)]
struct Empty {}

fn main() {}
