use dynd::prelude::*;

/// NA reaches the fn as `None`.
#[elemental]
fn or_default(x: Option<f64>, fallback: f64) -> f64 {
    x.unwrap_or(fallback)
}

/// The fn makes NA: the result is `?float64`.
#[elemental]
fn safe_log(x: f64) -> Option<f64> {
    (x > 0.0).then(|| x.ln())
}

/// Both, with an optional keyword (`None` when not given).
#[elemental]
fn clamp_above(x: Option<i64>, #[kw] cap: Option<i64>) -> Option<i64> {
    match (x, cap) {
        (Some(x), Some(c)) => Some(x.min(c)),
        (x, None) => x,
        (None, _) => None,
    }
}

/// Fallible and nullable at once: NA reaches the fn, and it may fail or
/// make NA.
#[elemental]
fn checked_ratio(x: Option<i64>, by: i64) -> Result<Option<i64>, String> {
    match x {
        Some(_) if by == 0 => Err("division by zero".to_string()),
        x => Ok(x.map(|x| x / by)),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(or_default::SIGNATURE, "(?float64, float64) -> float64");
    assert_eq!(safe_log::SIGNATURE, "(float64) -> ?float64");
    assert_eq!(clamp_above::SIGNATURE, "(?int64, cap: ?int64) -> ?int64");
    let xs = Array::from_json("[[1.5, null], [null]]", Some(&"2 * var * ?float64".parse()?))?;
    let r = or_default::call(&xs, 0.0)?;
    assert_eq!((r.to_string(), r.ty().to_string()), ("[[1.5, 0], [0]]".into(), "2 * var * float64".into()));
    // A plain array for an option parameter: every element is valid.
    assert_eq!(or_default::call(vec![2.0], 0.0)?.to_string(), "[2]");
    // NA in a plain parameter propagates without calling the fn.
    let fallbacks = Array::from_json("[1, null]", Some(&"2 * ?float64".parse()?))?;
    assert_eq!(or_default::call(&xs.index(&[Index::At(0)])?, &fallbacks)?.to_string(), "[1.5, null]");
    let l = safe_log::call(vec![1.0, -1.0])?;
    assert_eq!((l.to_string(), l.ty().to_string()), ("[0, null]".into(), "2 * ?float64".into()));
    let c = clamp_above::callable();
    let ys = Array::from_json("[5, null, 1]", Some(&"3 * ?int64".parse()?))?;
    assert_eq!(c.call(&[&ys])?.to_string(), "[5, null, 1]");
    let cap = Array::from_scalar(2i64);
    assert_eq!(c.call_kw(&[&ys], &[("cap", &cap)])?.to_string(), "[2, null, 1]");
    assert_eq!(clamp_above::call(&ys, 3i64)?.to_string(), "[3, null, 1]");
    assert_eq!(checked_ratio::SIGNATURE, "(?int64, int64) -> ?int64");
    assert_eq!(checked_ratio::call(&ys, 2i64)?.to_string(), "[2, null, 0]");
    let err = checked_ratio::call(&ys, 0i64).unwrap_err().to_string();
    assert!(err.contains("division by zero, at index [0]"), "{err}");
    Ok(())
}
