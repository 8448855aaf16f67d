use dynd::prelude::*;

#[elemental(T = [i32, i64, f32, f64])]
fn add<T: Copy + std::ops::Add<Output = T>>(a: T, b: T) -> T {
    a + b
}

#[elemental(T = [f32, f64], U = [i32, i64])]
fn scale<T: Copy + std::ops::Mul<Output = T> + From<i8>, U: Copy + TryInto<i8>>(x: T, k: U) -> T {
    x * T::from(k.try_into().unwrap_or(0))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(add(2, 3), 5);
    assert_eq!(
        add::SIGNATURES,
        &[
            "(int32, int32) -> int32",
            "(int64, int64) -> int64",
            "(float32, float32) -> float32",
            "(float64, float64) -> float64",
        ]
    );
    let i = add::call(vec![1i32, 2], 10i32)?;
    assert_eq!((i.to_string(), i.ty().to_string()), ("[11, 12]".into(), "2 * int32".into()));
    // Promotion picks the overload, as for builtins: int32 + float32 -> float64.
    let f = add::call(vec![1i32, 2], 0.5f32)?;
    assert_eq!((f.to_string(), f.ty().to_string()), ("[1.5, 2.5]".into(), "2 * float64".into()));
    let s = scale::call(vec![1.5f32], 2i64)?;
    assert_eq!((s.to_string(), s.ty().to_string()), ("[3]".into(), "1 * float32".into()));
    assert_eq!(scale::SIGNATURES.len(), 4);
    Ok(())
}
