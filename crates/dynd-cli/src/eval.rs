//! `dynd eval`: calls of builtins on JSON literals.
//!
//! ```text
//! expr  := NAME '(' [arg {',' arg}] ')' | JSON
//! arg   := NAME '=' expr | expr
//! ```
//!
//! Besides the builtins (among them `cast(x, "TYPE", errmode="...")`,
//! `zeros("TYPE")`, `ones("TYPE")` and `full("TYPE", VALUE)`),
//! `array(VALUE, "TYPE")` gives a literal an explicit type.

use dynd::func::builtins;
use dynd::nd::{Array, Value};
use dynd::ndt::{BroadcastMode, Type};

/// Functions `eval` knows besides the builtins, with their signatures.
pub(crate) const SPECIALS: &[(&str, &str)] =
    &[("array", "array(VALUE, \"TYPE\"): VALUE as an array of TYPE")];

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

/// A parsed expression.
#[derive(Debug)]
enum Expr {
    Literal(Value),
    Call {
        name: String,
        args: Vec<Expr>,
        kwargs: Vec<(String, Expr)>,
    },
}

/// How deeply calls may nest (`f(g(h(...)))`): the parser and the
/// evaluator recurse once per level, so a deeper expression is an error,
/// not a stack overflow. JSON literals have their own limit.
pub(crate) const MAX_DEPTH: usize = 64;

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
}

/// `msg` at byte `at` of `text`, with the line and a caret under `at`: at
/// most [`CONTEXT`] characters either side, so a huge expression gives a
/// short message.
fn error_at(text: &str, at: usize, msg: &str) -> String {
    let at = at.min(text.len());
    let before: Vec<char> = text[..at].chars().collect();
    let skip = before.len().saturating_sub(CONTEXT);
    let head: String = before[skip..].iter().collect();
    let tail: String = text[at..].chars().take(CONTEXT).collect();
    let (open, close) = (
        if skip > 0 { "..." } else { "" },
        if text[at..].chars().count() > CONTEXT {
            "..."
        } else {
            ""
        },
    );
    format!(
        "{msg} at byte {at}\n  {open}{head}{tail}{close}\n  {:width$}^",
        "",
        width = open.len() + head.chars().count()
    )
}

/// Characters of context an error shows on each side of its caret.
const CONTEXT: usize = 60;

impl Parser<'_> {
    fn ws(&mut self) {
        let rest = &self.text[self.pos..];
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn ident(&mut self) -> Option<String> {
        let rest = &self.text[self.pos..];
        let n = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if n == 0 || !rest.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
            return None;
        }
        let word = &rest[..n];
        // JSON words are literals, not names.
        if matches!(
            word,
            "null" | "true" | "false" | "NaN" | "nan" | "inf" | "Infinity"
        ) {
            return None;
        }
        self.pos += n;
        Some(word.to_string())
    }

    fn eat(&mut self, c: char) -> bool {
        self.ws();
        if self.text[self.pos..].starts_with(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn expr(&mut self) -> Result<Expr, String> {
        self.ws();
        if let Some(mut name) = self.ident() {
            // A method of a callable: `add.reduce`.
            if self.text[self.pos..].starts_with('.') {
                self.pos += 1;
                match self.ident() {
                    Some(method) => name = format!("{name}.{method}"),
                    None => return Err(error_at(self.text, self.pos, "expected a name after '.'")),
                }
            }
            if !self.eat('(') {
                return Err(error_at(
                    self.text,
                    self.pos,
                    &format!("expected '(' after '{name}'"),
                ));
            }
            if self.depth == MAX_DEPTH {
                return Err(error_at(
                    self.text,
                    self.pos,
                    &format!("calls nest more than {MAX_DEPTH} deep"),
                ));
            }
            self.depth += 1;
            let (mut args, mut kwargs) = (Vec::new(), Vec::new());
            if !self.eat(')') {
                loop {
                    self.ws();
                    let save = self.pos;
                    let kw = self.ident().filter(|_| {
                        self.ws();
                        self.text[self.pos..].starts_with('=')
                    });
                    match kw {
                        Some(k) => {
                            self.pos += 1;
                            kwargs.push((k, self.expr()?));
                        }
                        None => {
                            self.pos = save;
                            if !kwargs.is_empty() {
                                return Err(error_at(
                                    self.text,
                                    self.pos,
                                    "positional argument after a keyword argument",
                                ));
                            }
                            args.push(self.expr()?);
                        }
                    }
                    if self.eat(',') {
                        continue;
                    }
                    if self.eat(')') {
                        break;
                    }
                    return Err(error_at(self.text, self.pos, "expected ',' or ')'"));
                }
            }
            self.depth -= 1;
            return Ok(Expr::Call { name, args, kwargs });
        }
        let (v, n) = Value::parse_json_prefix(&self.text[self.pos..]).map_err(|e| match e {
            dynd::Error::Json { offset, message } => {
                error_at(self.text, self.pos + offset, &message)
            }
            e => e.to_string(),
        })?;
        self.pos += n;
        Ok(Expr::Literal(v))
    }
}

/// Parses and evaluates `text`.
///
/// # Errors
///
/// A message saying what was wrong and where.
pub(crate) fn eval(text: &str, mode: BroadcastMode) -> Result<Array, String> {
    let mut p = Parser {
        text,
        pos: 0,
        depth: 0,
    };
    let e = p.expr()?;
    p.ws();
    if p.pos != text.len() {
        return Err(error_at(text, p.pos, "expected the end of the expression"));
    }
    run(&e, mode)
}

fn string_arg(e: &Expr, what: &str) -> Result<String, String> {
    match e {
        Expr::Literal(Value::Str(s)) => Ok(s.clone()),
        _ => Err(format!("{what} must be a string literal")),
    }
}

fn type_arg(e: &Expr, what: &str) -> Result<Type, String> {
    let s = string_arg(e, what)?;
    s.parse::<Type>().map_err(|err| format!("{what}: {err}"))
}

fn run(e: &Expr, mode: BroadcastMode) -> Result<Array, String> {
    let (name, args, kwargs) = match e {
        Expr::Literal(v) => return Array::from_value(v, None).map_err(|e| e.to_string()),
        Expr::Call { name, args, kwargs } => (name.as_str(), args, kwargs),
    };
    let arity = |n: usize| {
        if args.len() == n {
            Ok(())
        } else {
            Err(format!(
                "{name} takes {n} argument(s), {} given",
                args.len()
            ))
        }
    };
    let no_kwargs =
        |allowed: &[&str]| match kwargs.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            Some((k, _)) => Err(format!(
                "{name}: unknown keyword argument '{k}' (valid keywords: {})",
                if allowed.is_empty() {
                    "none".to_string()
                } else {
                    allowed.join(", ")
                }
            )),
            None => Ok(()),
        };
    let err = |e: dynd::Error| e.to_string();
    match name {
        "array" => {
            arity(2)?;
            no_kwargs(&[])?;
            let Expr::Literal(v) = &args[0] else {
                return Err("array's first argument must be a JSON literal".into());
            };
            Array::from_value(v, Some(&type_arg(&args[1], "array's type")?)).map_err(err)
        }
        _ => {
            let lookup = |name: &str| {
                builtins::get(name)
                    .ok()
                    .or_else(|| own().into_iter().find(|c| c.name() == name))
            };
            let found = match name.split_once('.') {
                Some((base, "reduce")) => lookup(base).map(|c| c.reduce()),
                Some((base, "accumulate")) => lookup(base).map(|c| c.accumulate()),
                _ => lookup(name).map(Ok),
            };
            let Some(f) = found else {
                let own = own();
                let mut names: Vec<&str> = builtins::all().map(|c| c.name()).collect();
                names.extend(own.iter().map(|c| c.name()));
                names.extend(SPECIALS.iter().map(|(n, _)| *n));
                names.sort_unstable();
                return Err(format!(
                    "unknown function '{name}' (known: {})",
                    names.join(", ")
                ));
            };
            let mut f = f.map_err(|e| e.to_string())?;
            if mode == BroadcastMode::Strict {
                f = f.strict();
            }
            let values = args
                .iter()
                .map(|a| run(a, mode))
                .collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<&Array> = values.iter().collect();
            let kw_values = kwargs
                .iter()
                .map(|(_, e)| run(e, mode))
                .collect::<Result<Vec<_>, _>>()?;
            let kw_refs: Vec<(&str, &Array)> = kwargs
                .iter()
                .map(|(k, _)| k.as_str())
                .zip(kw_values.iter())
                .collect();
            f.call_kw(&refs, &kw_refs).map_err(|e| e.to_string())
        }
    }
}
