//! `dynd eval`: expressions over JSON literals and named inputs, fused.
//!
//! The language is the library's ([`dynd::func::evaluate`]); this module
//! binds the inputs (`--let NAME=JSON`, `--let NAME=@file.json`), adds the
//! tool's own `#[elemental]` functions, and allows longer chains on the
//! tool's large stack (see `main`).

use dynd::func::Evaluator;
use dynd::nd::Array;
use dynd::ndt::BroadcastMode;

/// Functions `eval` knows besides the builtins, with their signatures.
pub(crate) use dynd::func::SPECIALS;

/// How many operators and calls an expression may have (the library's
/// limit).
#[cfg(test)]
pub(crate) use dynd::func::MAX_OPERATORS;

/// The great-circle distance in kilometres between two points given as
/// latitude and longitude in degrees (the haversine formula) — a function
/// the tool defines with `#[elemental]`, as a user's crate would.
#[dynd::elemental]
fn haversine(a: [f64; 2], b: [f64; 2]) -> f64 {
    const EARTH_RADIUS_KM: f64 = 6371.0;
    let (lat1, lat2) = (a[0].to_radians(), b[0].to_radians());
    let dlat = lat2 - lat1;
    let dlon = (b[1] - a[1]).to_radians();
    let h = (dlat / 2.0).sin().powi(2) + lat1.cos() * lat2.cos() * (dlon / 2.0).sin().powi(2);
    2.0 * EARTH_RADIUS_KM * h.sqrt().asin()
}

/// The callables this tool defines itself with `#[elemental]`, beside the
/// builtins.
pub(crate) fn own() -> Vec<dynd::func::Callable> {
    vec![haversine::callable()]
}

/// Parses and evaluates `text`.
///
/// # Errors
///
/// A message saying what was wrong and where.
pub(crate) fn eval(
    text: &str,
    mode: BroadcastMode,
    inputs: &[(String, Array)],
) -> Result<Array, String> {
    let own = own();
    let refs: Vec<(&str, &Array)> = inputs.iter().map(|(n, a)| (n.as_str(), a)).collect();
    Evaluator::new()
        .functions(&own)
        .mode(mode)
        .evaluate(text, &refs)
        .map_err(|e| match e {
            // The library's message, with the tool's way to bind a name.
            dynd::Error::UnknownInput { name, inputs } => format!(
                "unknown name '{name}' ({}; bind one with --let {name}=JSON)",
                if inputs.is_empty() {
                    "no inputs are bound".to_string()
                } else {
                    format!("inputs: {}", inputs.join(", "))
                }
            ),
            // The tool's wording, pointing at `dynd list`.
            dynd::Error::UnknownFunction { name, suggestions } => {
                let hint = match suggestions.as_slice() {
                    [] => String::new(),
                    [one] => format!("; did you mean '{one}'?"),
                    more => format!("; did you mean one of '{}'?", more.join("', '")),
                };
                let count = dynd::func::builtins::all().count() + own.len() + SPECIALS.len();
                format!("unknown function '{name}'{hint} (`dynd list` shows all {count} functions)")
            }
            e => e.to_string(),
        })
}

/// An input binding, `NAME=JSON` or `NAME=@FILE` (a JSON file).
///
/// # Errors
///
/// A message naming the binding for a missing `=`, a name that is not one,
/// an unreadable file or JSON that is not an array's value.
pub(crate) fn binding(text: &str) -> Result<(String, Array), String> {
    let Some((name, value)) = text.split_once('=') else {
        return Err(format!("--let {text}: expected NAME=JSON or NAME=@FILE"));
    };
    let name = name.trim();
    let is_name = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !is_name {
        return Err(format!("--let {text}: '{name}' is not a name"));
    }
    if is_literal_word(name) {
        return Err(format!(
            "--let {text}: '{name}' is a literal in expressions, not a name; choose another name"
        ));
    }
    let json = match value.strip_prefix('@') {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|e| format!("--let {name}: cannot read {path}: {e}"))?,
        None => value.to_string(),
    };
    let a = Array::from_json(&json, None).map_err(|e| format!("--let {name}: {e}"))?;
    Ok((name.to_string(), a))
}

/// Whether `word` is a JSON literal word in an expression (so never the
/// name of an input).
fn is_literal_word(word: &str) -> bool {
    matches!(
        word,
        "null" | "true" | "false" | "NaN" | "nan" | "inf" | "Infinity"
    )
}

/// The bindings, checked to name each input once.
///
/// # Errors
///
/// A message naming the first name bound twice.
pub(crate) fn distinct(inputs: Vec<(String, Array)>) -> Result<Vec<(String, Array)>, String> {
    for (i, (name, _)) in inputs.iter().enumerate() {
        if inputs[..i].iter().any(|(n, _)| n == name) {
            return Err(format!("--let {name} is given twice; bind each name once"));
        }
    }
    Ok(inputs)
}

#[cfg(test)]
mod tests;

/// The campaigns' seeded generator, shared with the library's.
#[cfg(test)]
#[path = "../../dynd-kernels/tests/common/campaign.rs"]
#[allow(dead_code)]
mod harness;

#[cfg(test)]
mod campaign;
