// Valid literals build the parsed type, in canonical form.
use dynd::prelude::*;

fn main() {
    let t: Type = datashape!("3 *  var * {x: int, 'a b': ?real}");
    assert_eq!(t.to_string(), "3 * var * {x: int32, 'a b': ?float64}");
    let sig = datashape!("(N * T, N * T, scale: ?float64) -> T");
    let arg: Type = "4 * float32".parse().unwrap();
    assert_eq!(sig.resolve(&[arg.clone(), arg], &[]).unwrap().to_string(), "float32");
    // Evaluating the same literal twice gives equal types.
    let make = || datashape!("var * int8");
    assert_eq!(make(), make());
}
