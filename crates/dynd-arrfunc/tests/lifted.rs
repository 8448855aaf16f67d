//! Lifted (gufunc) signature resolution: core dims bind, leading dims broadcast.

use dynd_arrfunc::resolve_lifted;
use dynd_types::{BroadcastMode, Type};

fn t(s: &str) -> Type {
    s.parse().unwrap()
}

fn resolve(sig: &str, args: &[&str], mode: BroadcastMode) -> Result<String, String> {
    let args: Vec<Type> = args.iter().map(|a| t(a)).collect();
    resolve_lifted(&t(sig), &args, mode)
        .map(|r| r.to_string())
        .map_err(|e| e.to_string())
}

#[test]
fn core_dimensions_bind_and_leading_dimensions_broadcast() {
    let np = BroadcastMode::NumPy;
    let dot = "(N * float64, N * float64) -> float64";
    assert_eq!(
        resolve(dot, &["5 * float64", "5 * float64"], np),
        Ok("float64".into())
    );
    assert_eq!(
        resolve(dot, &["7 * 5 * float64", "5 * float64"], np),
        Ok("7 * float64".into())
    );
    assert_eq!(
        resolve(dot, &["7 * 1 * 5 * float64", "3 * 5 * float64"], np),
        Ok("7 * 3 * float64".into())
    );
    assert_eq!(
        resolve(dot, &["5 * float64", "4 * float64"], np),
        Err("argument 1 (4 * float64) does not match parameter N * float64: dimension variable 'N' is bound to '5' but meets '4'".into())
    );
    assert_eq!(
        resolve(dot, &["float64", "4 * float64"], np),
        Err(
            "argument 0 (float64) has 0 dimension(s), but parameter N * float64 needs at least 1"
                .into()
        )
    );
    let cross = "(3 * float64, 3 * float64) -> 3 * float64";
    assert_eq!(
        resolve(cross, &["10 * 3 * float64", "3 * float64"], np),
        Ok("10 * 3 * float64".into())
    );
    assert!(resolve(cross, &["10 * 4 * float64", "3 * float64"], np)
        .unwrap_err()
        .contains("expected dimension '3', found '4'"));
    let mm = "(M * N * T, N * P * T) -> M * P * T";
    assert_eq!(
        resolve(mm, &["10 * 2 * 3 * float64", "3 * 4 * float64"], np),
        Ok("10 * 2 * 4 * float64".into())
    );
    assert!(resolve(mm, &["2 * 3 * int32", "3 * 4 * float64"], np)
        .unwrap_err()
        .contains("type variable 'T' is bound to 'int32' but meets 'float64'"));
    // Leading dims may be ragged; core dims bind var too.
    assert_eq!(
        resolve(dot, &["var * 5 * float64", "5 * float64"], np),
        Ok("var * float64".into())
    );
    assert_eq!(
        resolve("(N * T) -> T", &["3 * var * int8"], np),
        Ok("3 * int8".into())
    );
    // Strict mode applies to leading dims only.
    let strict = BroadcastMode::Strict;
    assert!(
        resolve(dot, &["7 * 3 * 5 * float64", "3 * 5 * float64"], strict)
            .unwrap_err()
            .starts_with("strict broadcasting")
    );
    assert_eq!(
        resolve(dot, &["7 * 5 * float64", "5 * float64"], strict),
        Ok("7 * float64".into())
    );
    // Signature errors.
    assert_eq!(
        resolve("int32", &["int32"], np),
        Err("int32 is not a callable signature".into())
    );
    assert_eq!(
        resolve(dot, &["5 * float64"], np),
        Err("(N * float64, N * float64) -> float64 takes 2 argument(s), 1 given".into())
    );
    assert!(resolve("(T) -> R", &["int8"], np)
        .unwrap_err()
        .contains("type variable 'R' is not bound"));
}
