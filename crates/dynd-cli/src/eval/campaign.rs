//! The robustness campaign over infix expressions with bound inputs:
//! random token soups, long chains, deep nesting, bare signs and huge
//! literals. Nothing may panic or overflow the stack; every error is a
//! message of bounded length. `DYND_ROBUST_CASES=N` sets the cases (default
//! 2000).

use super::*;

use super::harness::{cases, Rng};

const TOKENS: &[&str] = &[
    "+",
    "-",
    "*",
    "/",
    "%",
    "**",
    "(",
    ")",
    "(",
    ")",
    ",",
    "x",
    "y",
    "z",
    "1",
    "+1",
    "-1",
    "2.5",
    "0",
    "NaN",
    "+inf",
    "-inf",
    "1e400",
    "-1e-400",
    "340282366920938463463374607431768211455",
    "340282366920938463463374607431768211456",
    "-170141183460469231731687303715884105729",
    "[1, 2]",
    "[[1], [2, 3]]",
    "[]",
    "[true, false]",
    "\"a\"",
    "sum(",
    "add(",
    "sqrt(",
    "where(",
    "cast(",
    "\"int8\"",
    "axis=",
    "keepdims=",
    "where=",
    "add.reduce(",
    "==",
    "<",
    ">=",
    "!=",
    " ",
    "array(",
    "\"uint128\"",
    "null",
    "unknown(",
];

fn expression(rng: &mut Rng) -> String {
    match rng.below(8) {
        // A long chain of one operator or mixed ones.
        0 => {
            let n = 1 + rng.below(3_000);
            let ops = ["+", "-", "*", "/", "%"];
            let mut s = String::from("x");
            for _ in 1..n {
                s.push_str(ops[rng.below(ops.len())]);
                s.push_str(["x", "1", "y", "+1", "-2"][rng.below(5)]);
            }
            s
        }
        // Deep nesting of parentheses, negations, powers or calls.
        1 => {
            let d = rng.below(100);
            let (open, close) =
                [("(", ")"), ("-(", ")"), ("sqrt(", ")"), ("2**(", ")")][rng.below(4)];
            format!("{}x{}", open.repeat(d), close.repeat(d))
        }
        // Signs before anything.
        2 => {
            let signs: String = (0..rng.below(200))
                .map(|_| ['+', '-', ' '][rng.below(3)])
                .collect();
            format!("{signs}{}", ["x", "1", "[1]", "inf", ""][rng.below(5)])
        }
        _ => (0..rng.below(30))
            .map(|_| TOKENS[rng.below(TOKENS.len())])
            .collect(),
    }
}

fn run(n: usize) {
    let inputs = vec![
        binding("x=[[1, 2], [3]]").expect("x"),
        binding("y=[1.5, -2]").expect("y"),
        binding("z=340282366920938463463374607431768211455").expect("z"),
    ];
    let inputs = std::sync::Arc::new(inputs);
    let mut failures = Vec::new();
    for k in 0..n {
        let mut rng = Rng(0x5eed_0334 + k as u64 * 0x1000_0000_01b3);
        let text = expression(&mut rng);
        let inputs = inputs.clone();
        let t = text.clone();
        // The tool's stack, and a panic caught per case.
        let outcome = std::thread::Builder::new()
            .stack_size(1 << 30)
            .spawn(move || {
                let mode = if t.len() % 2 == 0 {
                    BroadcastMode::NumPy
                } else {
                    BroadcastMode::Strict
                };
                eval(&t, mode, &inputs).map(|a| a.to_string())
            })
            .expect("a thread")
            .join();
        match outcome {
            Err(_) => failures.push(format!(
                "case {k} panicked: {}",
                &text[..text.len().min(200)]
            )),
            Ok(Err(message)) if message.len() > 2000 => {
                failures.push(format!("case {k}: a {}-byte error", message.len()))
            }
            Ok(_) => {}
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn infix_expressions_never_panic() {
    run(cases(2000));
}
