//! A minute with dynd-rs: a scalar fn made a broadcasting callable with
//! `#[elemental]`, then the pieces under it — datashape types, signatures,
//! broadcasting, arrays with views and checked assignment, builtins.
//!
//! Run it with `cargo run -p dynd --example quickstart`.

use dynd::nd::Value;
use dynd::prelude::*;

/// A plain Rust fn; `#[elemental]` also makes it a ufunc.
#[elemental]
fn hypot(x: f64, y: f64) -> f64 {
    (x * x + y * y).sqrt()
}

/// An overload set over two types, associative with identity 0: it reduces.
#[elemental(T = [i64, f64], reduce(identity = 0))]
fn add<T: Copy + std::ops::Add<Output = T>>(a: T, b: T) -> T {
    a + b
}

/// Slices are core dimensions: `(N * float64, N * float64) -> float64`.
#[elemental]
fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("== #[elemental]: a scalar fn over arrays ==");
    println!("hypot(3, 4)              = {}", hypot(3.0, 4.0));
    println!("signature                  {}", hypot::SIGNATURE);
    let ragged = hypot::call(vec![vec![3.0], vec![5.0, 8.0]], 4.0)?;
    println!("hypot([[3], [5, 8]], 4)  = {ragged}  ({})", ragged.ty());
    println!("add signatures             {}", add::SIGNATURES.join(" | "));
    println!(
        "add([1, 2], 0.5)         = {}",
        add::call(vec![1i64, 2], 0.5)?
    );
    let m = vec![vec![1i64, 2, 3], vec![4, 5, 6]];
    println!(
        "add.reduce(m, axis=0)    = {}",
        add::reduce(m.clone(), Some(&[0]), false)?
    );
    println!(
        "add.accumulate(m, 1)     = {}",
        add::accumulate(m.clone(), 1)?
    );
    println!(
        "add.reduce(m)            = {}",
        add::reduce(m, None, false)?
    );
    println!("dot signature              {}", dot::SIGNATURE);
    let d = dot::call(vec![vec![1.0, 2.0], vec![3.0, 4.0]], vec![10.0, 1.0])?;
    println!("dot([[1, 2], [3, 4]], [10, 1]) = {d}");
    println!(
        "dot([1, 2, 3], [1, 2])   -> {}",
        dot::call(vec![1.0, 2.0, 3.0], vec![1.0, 2.0]).unwrap_err()
    );

    println!("\n== Datashape types ==");
    // Dimensions, outermost first, over a data type. `var` is a ragged dimension.
    let t: Type = "3 * var * {name: string, score: ?real}".parse()?;
    println!("parsed      {t}");
    let (dims, dtype) = t.split_dims();
    println!(
        "dimensions  {}",
        dims.iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!("data type   {dtype}");

    // A datashape literal checked by the compiler:
    let point = datashape!("{x: float64, y: float64}");
    let layout = point.data_layout()?;
    println!(
        "{point} takes {} bytes, aligned to {}",
        layout.size, layout.align
    );

    println!("\n== Errors point at the problem ==");
    let err = "3 * var * {name: string, score: flaot64}"
        .parse::<Type>()
        .unwrap_err();
    println!("{err}");

    println!("\n== Signatures: pattern matching binds sizes ==");
    let matmul: Type = "(M * N * T, N * R * T) -> M * R * T".parse()?;
    println!("signature   {matmul}");
    let a: Type = "2 * 3 * float64".parse()?;
    let b: Type = "3 * 5 * float64".parse()?;
    println!("({a}, {b}) -> {}", matmul.resolve(&[&a, &b], &[])?);
    let c: Type = "4 * 5 * float64".parse()?;
    println!(
        "({a}, {c}) -> error: {}",
        matmul.resolve(&[&a, &c], &[]).unwrap_err()
    );

    let clip: Type = "(Dims... * T, lo: T, hi: ?T) -> Dims... * T".parse()?;
    let x: Type = "10 * var * float32".parse()?;
    let lo = [(ndt::Name::from("lo"), Type::from(Scalar::Float32))];
    println!("clip({x}, lo=float32) -> {}", clip.resolve(&[&x], &lo)?);

    println!("\n== Broadcasting, ragged dimensions included ==");
    for args in [
        vec!["2 * var * int32", "2 * 1 * int32"],
        vec!["2 * var * int32", "2 * 2 * float32"],
        vec!["10 * 1 * int8", "3 * uint8"],
        vec!["3 * int32", "4 * int32"],
    ] {
        let types = args
            .iter()
            .map(|s| s.parse())
            .collect::<Result<Vec<Type>, _>>()?;
        match ndt::broadcast(&types, BroadcastMode::NumPy) {
            Ok(r) => println!("{} -> {r}", args.join(" with ")),
            Err(e) => println!("{} -> error: {e}", args.join(" with ")),
        }
    }
    let strict = ndt::broadcast(
        &["3 * int32".parse()?, "2 * 3 * int32".parse()?],
        BroadcastMode::Strict,
    );
    println!(
        "strict: 3 * int32 with 2 * 3 * int32 -> error: {}",
        strict.unwrap_err()
    );

    println!("\n== Arrays ==");
    let ragged = nd::array![[1.5, 2.0], [3.0], [4.5, 5.0, 6.0]];
    println!("{ragged:?}");
    let row = ragged.index(&[Index::At(2), Index::slice(None, None, -1)])?;
    println!("row 2 reversed (a view, no copy): {row}");
    let tail = ragged.index(&[Index::ALL, Index::slice(Some(1), None, 1)])?;
    println!("every row from 1 on (a view):     {tail}");

    let table = Array::from_json(
        r#"[{"name": "ada", "score": 9.5}, {"name": "bob", "score": null}]"#,
        Some(&"2 * {name: string, score: ?float32}".parse()?),
    )?;
    println!("{table:?}");

    println!("\n== Assignment broadcasts and checks ==");
    let mut grid = Array::zeros(&"3 * 3 * int16".parse()?)?;
    grid.assign(&nd::array![[1], [2, 3, 4], [5]], ErrorMode::Fractional)?; // rows of length 1 broadcast
    println!("var -> 3 * 3 * int16: {grid}");
    let ragged_rows = nd::array![[1, 2, 3], [4, 5], [6]];
    println!(
        "a row that does not fit: {}",
        grid.assign(&ragged_rows, ErrorMode::Fractional)
            .unwrap_err()
    );
    let big = nd::array![1.5, 70000.0];
    for mode in [
        ErrorMode::NoCheck,
        ErrorMode::Overflow,
        ErrorMode::Fractional,
    ] {
        match big.cast(&"2 * int16".parse()?, mode) {
            Ok(a) => println!("[1.5, 70000] as int16 ({mode}): {a}"),
            Err(e) => println!("[1.5, 70000] as int16 ({mode}): error: {e}"),
        }
    }
    let na = Array::from_value(
        &Value::parse_json("[1, null, NaN]")?,
        Some(&"3 * ?float64".parse()?),
    )?;
    println!("NA is not NaN: {na}");

    println!("\n== Callables: Rust functions and builtins over broadcast, ragged dimensions ==");
    let hypot = Callable::map("hypot", |x: f64, y: f64| (x * x + y * y).sqrt());
    let points = nd::array![[3.0], [5.0, 8.0]];
    println!(
        "hypot({points}, 4) = {}",
        hypot.call(&[&points, &Array::from_scalar(4.0)])?
    );
    let sum = (&nd::array![[1], [2, 3]] + &nd::array![[4], [5]]).eval()?;
    println!("[[1], [2, 3]] + [[4], [5]] = {sum:?}");
    let x = nd::array![[1.0, 2.0, 6.0], [4.0], [5.0, 7.0]];
    let keep = AxisOptions::new().axis(1).keepdims(true);
    println!(
        "per row of {x}: sum {}, max {}, x - mean {}",
        x.sum_axis(1)?,
        x.max_axis(1)?,
        (&x - &x.mean_with(&keep)?).eval()?
    );
    let add = builtins::get("add")?;
    let mul = builtins::get("multiply")?;
    println!(
        "multiply.outer([1, 2, 3], [10, 100]) = {}",
        mul.outer(&[&nd::array![1, 2, 3], &nd::array![10, 100]])?
    );
    match add.call(&[&nd::array!["a"], &nd::array![1]]) {
        Ok(a) => println!("{a}"),
        Err(e) => println!("add(string, int64): {e}"),
    }
    if let Err(e) = builtins::get("sqrtt") {
        println!("builtins::get(\"sqrtt\"): {e}");
    }
    Ok(())
}
