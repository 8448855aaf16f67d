use dynd::prelude::*;

/// The checked integer square root.
#[elemental]
fn isqrt(x: i64) -> Result<i64, String> {
    if x < 0 {
        return Err(format!("no square root of {x}"));
    }
    Ok((x as f64).sqrt() as i64)
}

#[elemental]
fn checked_add(a: i32, b: i32) -> Result<i32, &'static str> {
    a.checked_add(b).ok_or("overflow")
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(isqrt::SIGNATURE, "(int64) -> int64");
    assert_eq!(isqrt(16), Ok(4));
    assert_eq!(isqrt::call(vec![vec![4i64, 9], vec![16]])?.to_string(), "[[2, 3], [4]]");
    let err = isqrt::call(vec![vec![4i64, 9], vec![16, -1]]).unwrap_err();
    assert_eq!(err.to_string(), "no square root of -1, at index [1, 1]");
    let err = checked_add::call(vec![1i32, i32::MAX], 1i32).unwrap_err();
    assert_eq!(err.to_string(), "overflow, at index [1]");
    Ok(())
}
