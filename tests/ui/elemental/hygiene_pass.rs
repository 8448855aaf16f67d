// Names a user crate might shadow: the generated code must not use them.
#![allow(dead_code, non_camel_case_types)]

struct Result;
struct Vec;
struct Option;
struct Box;
struct String;
struct LazyLock;
mod core {}
mod std {}
mod dynd_types {}
fn callable() {}

#[::dynd::elemental(reduce(identity = 0))]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[::dynd::elemental]
fn norm(x: &[f64]) -> f64 {
    x.iter().map(|v| v * v).sum::<f64>().sqrt()
}

fn main() {
    let r = add::call(::std::vec![1i64, 2], 3i64).unwrap();
    assert_eq!(r.to_string(), "[4, 5]");
    assert_eq!(add::reduce(::std::vec![1i64, 2], None, false).unwrap().to_string(), "3");
    assert_eq!(norm::call(::std::vec![3.0, 4.0]).unwrap().to_string(), "5");
}
