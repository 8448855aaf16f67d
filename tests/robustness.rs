//! The robustness campaign, through the facade as a user reaches it:
//! mutated datashape strings, generated and mutated JSON, and calls of
//! every builtin (and `NAME.reduce`) with edge values — 0-d, empty, empty
//! rows, NA, each integer type's extremes, ±0, NaN, ±inf, huge and tiny
//! floats, non-ASCII strings — wrong arities, wrong and edge keywords, huge
//! and negative axes. Nothing may panic, abort, overflow the stack or
//! hang; an error is the expected answer to most of it, and every result
//! must print and survive a JSON round trip.
//!
//! `DYND_ROBUST_CASES=N` sets the cases per category (default 3000); the
//! ignored `long_run` runs 10^6 per category. Run it under a memory limit
//! (`ulimit -v 12000000; cargo test --release --test it robustness --
//! --ignored long_run`): some calls legitimately ask for many GiB
//! (`range(int32(-2147483648), 2)`), which the limit turns into
//! allocation errors instead of minutes of writing. The view chains are in
//! `crates/dynd-kernels/tests/robust_views.rs` (run under valgrind by
//! `scripts/valgrind.sh`).

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::harness;
use harness::{campaign, cases, Rng};

use dynd::func::builtins;
use dynd::nd::{Array, Value};
use dynd::ndt::{BroadcastMode, Type};

const TYPES: &[&str] = &[
    "int32",
    "3 * var * ?int32",
    "{x: int32, y: ?string}",
    "(int8, 2 * float64)",
    "(N * float64, N * float64) -> float64",
    "(float64, lo: ?float64, hi: float64) -> float64",
    "Dims... * T",
    "fixed_string[4, 'utf16']",
    "fixed_bytes[8, align=4]",
    "3**2 * complex[float32]",
    "?3 * int64",
    "var * var * string",
    "M * N * int128",
    "(...) -> Any",
    "FixedString",
    "option[float16]",
];

const TOKENS: &[&str] = &[
    "*",
    "var",
    "?",
    "(",
    ")",
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "->",
    "...",
    "**",
    "0",
    "1",
    "9223372036854775807",
    "18446744073709551616",
    "4611686018427387904",
    "int32",
    "string",
    "fixed_string[0]",
    "N",
    "T",
    "Dims...",
    "\"",
    "'",
    "é",
    " ",
    "\n",
    "option[",
    "=",
    "align=3",
];

/// A random edit of `text` on a char boundary.
fn mutate(rng: &mut Rng, text: &str, tokens: &[&str]) -> String {
    let chars: Vec<char> = text.chars().collect();
    let at = rng.below(chars.len() + 1);
    let head: String = chars[..at].iter().collect();
    let tail: String = chars[at..].iter().collect();
    match rng.below(5) {
        0 => format!("{head}{}{tail}", rng.pick(tokens)),
        1 => {
            let cut = rng.below(tail.chars().count() + 1);
            format!("{head}{}", tail.chars().skip(cut).collect::<String>())
        }
        2 => format!("{head}{head}{tail}"),
        3 => format!(
            "{}{text}{}",
            "(".repeat(rng.below(200)),
            ")".repeat(rng.below(200))
        ),
        _ => format!("{}{text}", "3 * ".repeat(rng.below(300))),
    }
}

fn datashape_case(rng: &mut Rng, log: &mut Vec<String>) {
    let mut text = rng.pick(TYPES).to_string();
    for _ in 0..1 + rng.below(4) {
        text = mutate(rng, &text, TOKENS);
    }
    log.push(format!("{text:?}"));
    let Ok(t) = text.parse::<Type>() else {
        return;
    };
    let printed = t.to_string();
    let again: Type = printed
        .parse()
        .unwrap_or_else(|e| panic!("{printed:?} does not parse again: {e}"));
    assert_eq!(again, t, "print then parse changes {printed:?}");
    let _ = t.data_layout();
    let _ = t.arrmeta_layout();
    let _ = dynd::ndt::broadcast(&[t.clone(), t.clone()], BroadcastMode::NumPy);
    let _ = t.match_args(std::slice::from_ref(&t), &[]);
    // Concrete and small: an array of it, printed.
    if t.data_layout().is_ok_and(|l| l.size < 1 << 16) {
        if let Ok(a) = Array::zeros(&t) {
            let _ = a.to_string();
        }
    }
}

const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "-0.0",
    "1",
    "-1",
    "1e300",
    "1e400",
    "-1e400",
    "5e-324",
    "1e-400",
    "NaN",
    "Infinity",
    "-Infinity",
    "170141183460469231731687303715884105727",
    "170141183460469231731687303715884105728",
    "-170141183460469231731687303715884105729",
    "340282366920938463463374607431768211456",
    "18446744073709551615",
    "0.1",
    "2.5",
    "\"naïve\"",
    "\"\"",
    "\"日本\"",
    "true",
    "false",
    "null",
];

/// A random JSON text: nested lists and objects of edge numbers.
fn json_text(rng: &mut Rng, depth: usize) -> String {
    match rng.below(if depth > 6 { 1 } else { 4 }) {
        0 => rng.pick(NUMBERS).to_string(),
        1 | 2 => {
            let n = rng.pick(&[0, 1, 2, 3, 5]);
            let items: Vec<String> = (0..n).map(|_| json_text(rng, depth + 1)).collect();
            format!("[{}]", items.join(", "))
        }
        _ => {
            let n = rng.below(3);
            let items: Vec<String> = (0..n)
                .map(|i| format!("\"f{i}\": {}", json_text(rng, depth + 1)))
                .collect();
            format!("{{{}}}", items.join(", "))
        }
    }
}

const JSON_TOKENS: &[&str] = &[
    "[",
    "]",
    "{",
    "}",
    ",",
    ":",
    "\"",
    "-",
    "e",
    "1e999999999",
    "null",
    "\\u0000",
    "\\ud800",
    "é",
];

fn json_case(rng: &mut Rng, log: &mut Vec<String>) {
    let mut text = json_text(rng, 0);
    if rng.below(2) == 0 {
        text = mutate(rng, &text, JSON_TOKENS);
    }
    if rng.below(20) == 0 {
        let d = rng.pick(&[100, 127, 128, 129, 5000]);
        text = format!("{}{text}{}", "[".repeat(d), "]".repeat(d));
    }
    log.push(text.chars().take(300).collect());
    let Ok(v) = Value::parse_json(&text) else {
        return;
    };
    let ty: Option<Type> = (rng.below(2) == 0)
        .then(|| rng.pick(TYPES).parse().ok())
        .flatten();
    let Ok(a) = Array::from_value(&v, ty.as_ref()) else {
        return;
    };
    round_trip(&a, log);
}

/// A result prints, and reads back from its JSON as the same value.
fn round_trip(a: &Array, log: &mut Vec<String>) {
    let shown = a.to_string();
    log.push(format!(
        "result {} : {}",
        shown.chars().take(200).collect::<String>(),
        a.ty()
    ));
    let Ok(json) = a.try_to_json() else {
        return;
    };
    if let Ok(back) = Array::from_json(&json, Some(a.ty())) {
        assert_eq!(back.to_json(), json, "round trip of {}", a.ty());
    }
}

/// Arrays a user might pass: every integer type's extremes, float edges,
/// NA, empty and ragged shapes, strings.
fn edge_arrays() -> Vec<Array> {
    let j = |text: &str, ty: &str| Array::from_json(text, Some(&ty.parse().unwrap())).unwrap();
    let mut out = vec![
        j("0", "int8"),
        j("-128", "int8"),
        j("127", "int8"),
        j("-32768", "int16"),
        j("-2147483648", "int32"),
        j("-9223372036854775808", "int64"),
        j("9223372036854775807", "int64"),
        j("-170141183460469231731687303715884105728", "int128"),
        j("255", "uint8"),
        j("18446744073709551615", "uint64"),
        j(
            "[0, 170141183460469231731687303715884105727]",
            "2 * uint128",
        ),
        j(
            "[-0.0, 0.0, NaN, Infinity, -Infinity, 1e308, 5e-324]",
            "7 * float64",
        ),
        j("[65504, -0.0, NaN]", "3 * float16"),
        j("[3.4e38, 1e-45]", "2 * float32"),
        j("[[1, 2], [3, 4]]", "2 * 2 * complex[float64]"),
        j("[]", "0 * float64"),
        j("[[], []]", "2 * 0 * int64"),
        j("[[1.5], [], [2, 3]]", "3 * var * float64"),
        j("[[], []]", "2 * var * int32"),
        j("[1, null, 3]", "3 * ?int32"),
        j("null", "?float64"),
        j("[true, false, true]", "3 * bool"),
        j("[\"\", \"naïve\", \"a b\"]", "3 * string"),
        j("[[\"x y\"], []]", "2 * var * string"),
        j("[[1, 2, 3], [4, 5, 6]]", "2 * 3 * int64"),
        j("[[1, 2, 3]]", "1 * 3 * float32"),
        j("[1, 2, 3]", "3 * float64"),
        j("2", "int64"),
        j("-1", "int64"),
    ];
    let big = Array::from_vec((0..300_000).map(|i| i as f64).collect());
    out.push(big);
    let t = out[24].transpose().unwrap();
    out.push(t);
    out
}

const TYPE_STRINGS: &[&str] = &[
    "float64",
    "3 * int8",
    "?int32",
    "string",
    "2 * var * float64",
    "1125899906842624 * int8",
    "9223372036854775807 * 9223372036854775807 * int8",
    "int128",
    "{x: int32}",
    "bogus",
    "",
    "0 * float64",
];

const KEYWORDS: &[&str] = &[
    "axis", "keepdims", "initial", "where", "errmode", "sep", "mode", "dtype", "lo", "hi",
    "reverse", "fill", "bogus",
];

fn keyword_value(rng: &mut Rng, arrays: &[Array]) -> Array {
    let j = |text: &str| Array::from_json(text, None).unwrap();
    match rng.below(6) {
        0 => j(rng.pick(&[
            "0",
            "1",
            "-1",
            "2",
            "-3",
            "9223372036854775807",
            "-9223372036854775808",
            "[0, 0]",
            "[]",
            "[0, -1]",
            "[5]",
        ])),
        1 => j(rng.pick(&["true", "false"])),
        2 => j(&format!(
            "{:?}",
            rng.pick(&["nocheck", "overflow", "inexact", "wrap", "clip", "raise", "", " ", "x"])
        )),
        3 => j(&format!("{:?}", rng.pick(TYPE_STRINGS))),
        _ => rng.pick(arrays),
    }
}

fn call_case(rng: &mut Rng, log: &mut Vec<String>, arrays: &[Array], names: &[String]) {
    let name = rng.pick(names);
    let Ok(f) = builtins::get(&name) else {
        return;
    };
    // Mostly the right number of arguments, so that calls reach the
    // kernels; sometimes any number.
    let arity = if rng.below(5) > 0 {
        f.arity()
    } else {
        rng.pick(&[0, 1, 2, 3, 4])
    };
    let args: Vec<Array> = (0..arity)
        .map(|_| {
            if rng.below(10) == 0 {
                Array::from_json(&format!("{:?}", rng.pick(TYPE_STRINGS)), None).unwrap()
            } else {
                rng.pick(arrays)
            }
        })
        .collect();
    let kwargs: Vec<(&str, Array)> = (0..rng.pick(&[0, 0, 0, 0, 0, 1, 1, 2]))
        .map(|_| (rng.pick(KEYWORDS), keyword_value(rng, arrays)))
        .collect();
    log.push(format!(
        "{name}({}; {})",
        args.iter()
            .map(|a| format!(
                "{}: {}",
                a.to_string().chars().take(80).collect::<String>(),
                a.ty()
            ))
            .collect::<Vec<_>>()
            .join(", "),
        kwargs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(", ")
    ));
    let refs: Vec<&Array> = args.iter().collect();
    let kw: Vec<(&str, &Array)> = kwargs.iter().map(|(k, v)| (*k, v)).collect();
    if let Ok(r) = f.call_kw(&refs, &kw) {
        SUCCEEDED.fetch_add(1, Ordering::Relaxed);
        round_trip(&r, log);
    }
}

/// Builtin calls that returned a result (the rest returned errors): the
/// campaign must reach the kernels, not only the argument checks.
static SUCCEEDED: AtomicUsize = AtomicUsize::new(0);

/// Every builtin, and `NAME.reduce` for those that have one.
fn builtin_names() -> Vec<String> {
    let mut names: Vec<String> = builtins::all().map(|c| c.name().to_string()).collect();
    let reducible: Vec<String> = names
        .iter()
        .filter(|n| builtins::get(&format!("{n}.reduce")).is_ok())
        .map(|n| format!("{n}.reduce"))
        .collect();
    assert!(reducible.len() >= 5, "{reducible:?}");
    names.extend(reducible);
    names
}

fn run_all(seed: u64, n: usize) {
    campaign("datashape", seed, n, datashape_case);
    campaign("json", seed + 1, n, json_case);
    let arrays = edge_arrays();
    let names = builtin_names();
    let before = SUCCEEDED.load(Ordering::Relaxed);
    campaign("builtin call", seed + 2, n, |rng, log| {
        call_case(rng, log, &arrays, &names)
    });
    let ok = SUCCEEDED.load(Ordering::Relaxed) - before;
    println!("builtin calls: {n} cases, {ok} returned a result");
    assert!(
        ok * 10 >= n,
        "only {ok} of {n} builtin calls returned a result"
    );
}

#[test]
fn datashapes_json_and_builtin_calls_never_panic() {
    run_all(0x0bad_5eed, cases(3000));
}

#[test]
#[ignore = "long: 10^6 cases per category, for a long session"]
fn long_run() {
    run_all(0x1000_0bad, cases(1_000_000));
}

/// An expression's text recurses once per operator when it is lowered,
/// evaluated and dropped: a long one runs on a thread of its own, so a
/// caller on a small stack gets the answer, not a stack overflow.
#[test]
fn long_expressions_evaluate_on_a_small_stack() {
    let text = vec!["x"; 20_000].join("+");
    let r = std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(move || {
            let x = Array::from_vec(vec![1.0, 2.0]);
            dynd::func::evaluate(&text, &[("x", &x)]).map(|a| a.to_string())
        })
        .expect("a thread")
        .join()
        .expect("no panic");
    assert_eq!(r.expect("evaluates"), "[20000, 40000]");
    let x = Array::from_vec(vec![1.0]);
    let past = vec!["x"; dynd::func::MAX_OPERATORS + 2].join("*");
    let e = dynd::func::evaluate(&past, &[("x", &x)]).unwrap_err();
    assert!(e.to_string().contains("more than 100000 operators"), "{e}");
}

/// Small inputs run call by call, large ones fused: the two give the same
/// types and values, whatever the inputs' types.
#[test]
fn text_expressions_on_small_and_large_inputs_agree() {
    let types = ["int8", "int32", "uint16", "float32", "float64", "bool"];
    for (i, ta) in types.iter().enumerate() {
        for tb in &types[i..] {
            let small = |t: &str, n: usize| {
                let v: Vec<String> = (0..n).map(|k| ((k % 5) + 1).to_string()).collect();
                let v = if t == "bool" {
                    (0..n).map(|k| (k % 2 == 0).to_string()).collect()
                } else {
                    v
                };
                Array::from_json(
                    &format!("[{}]", v.join(",")),
                    Some(&format!("{n} * {t}").parse().unwrap()),
                )
                .unwrap()
            };
            for text in ["a * b + a - b", "maximum(a, b) * a", "a < b"] {
                let (a, b) = (small(ta, 8), small(tb, 8));
                let r_small = dynd::func::evaluate(text, &[("a", &a), ("b", &b)]);
                let (a, b) = (small(ta, 80_000), small(tb, 80_000));
                let r_large = dynd::func::evaluate(text, &[("a", &a), ("b", &b)]);
                match (r_small, r_large) {
                    (Ok(s), Ok(l)) => {
                        assert_eq!(s.dtype(), l.dtype(), "{text} over {ta}, {tb}");
                        let head = l
                            .index(&[dynd::nd::Index::slice(None, Some(8), 1)])
                            .unwrap();
                        assert_eq!(s.to_string(), head.to_string(), "{text} over {ta}, {tb}");
                    }
                    (Err(s), Err(l)) => {
                        assert_eq!(s.to_string(), l.to_string(), "{text} over {ta}, {tb}")
                    }
                    (s, l) => panic!("{text} over {ta}, {tb}: {s:?} but {l:?}"),
                }
            }
        }
    }
}
