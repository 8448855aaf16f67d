//! Unit tests of the expression evaluator.

use super::*;

/// Runs `f` on a stack as large as the tool's own.
fn on_big_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(f)
        .expect("a thread")
        .join()
        .expect("no panic")
}

#[test]
fn chains_up_to_the_operator_limit_evaluate_and_longer_ones_are_errors() {
    // One shell argument holds about 64,000 terms; the limit is for
    // callers that pass more (and for the stack the tool runs on).
    let at_limit = vec!["1"; MAX_OPERATORS + 1].join("+");
    let r = on_big_stack(move || eval(&at_limit, BroadcastMode::NumPy, &[]).map(|a| a.to_string()));
    assert_eq!(r.as_deref(), Ok("100001"));
    let past = vec!["1"; MAX_OPERATORS + 2].join("*");
    let e = on_big_stack(move || eval(&past, BroadcastMode::NumPy, &[]).unwrap_err());
    assert!(e.contains("more than 100000 operators and calls"), "{e}");
    // The caret's window stays short.
    assert!(e.len() < 400, "{e}");
}
