// The expansion names only `::dynd::__private` and `::core` paths, so user
// names that shadow std's do not break it.
#![allow(dead_code, non_camel_case_types)]

struct Type;
struct LazyLock;
struct Clone;
type Result = ();
mod core {}
mod std {}

fn main() {
    let t = dynd::datashape!("2 * int8");
    assert_eq!(t.ndim(), 1);
}
