//! `dynd eval`: expressions over JSON literals and named inputs, fused.
//!
//! ```text
//! expr  := bor [('<' | '<=' | '>' | '>=' | '==' | '!=') bor]
//! bor   := bxor {'|' bxor}
//! bxor  := band {'^' band}
//! band  := shift {'&' shift}
//! shift := sum {('<<' | '>>') sum}
//! sum   := term {('+' | '-') term}
//! term  := unary {('*' | '/' | '//' | '%') unary}
//! unary := '-' unary | '~' unary | power
//! power := atom ['**' unary]
//! atom  := NAME '(' [arg {',' arg}] ')' | NAME | '(' expr ')' | JSON
//! arg   := NAME '=' expr | expr
//! ```
//!
//! A bare `NAME` is an input bound with `--let NAME=JSON` (or
//! `--let NAME=@file.json`). Operators are the builtins `add`, `subtract`,
//! `multiply`, `divide`, `floor_divide` (`//`), `remainder`, `power`, the comparisons, and the
//! bitwise `&`, `|`, `^`, `<<`, `>>` and `~` (logical on `bool`), with
//! Python's precedence (comparisons loosest, then `|`, `^`, `&`, shifts,
//! `+ -`, `* / %`, unary, `**`); the
//! whole expression is evaluated as one fused pass where it can be
//! (`dynd::func::Eval`).
//!
//! `where(x)` with one argument is `nonzero(x)`, as in NumPy. Subscripts
//! take integers, slices, `None`/`newaxis` (`x[:, None]`) and a boolean
//! mask alone (`x[x > 1]`, as `filter`: the kept elements of each row);
//! `NAME.outer(x, y)` is the callable's outer product (`equal.outer`).
//!
//! Besides the builtins (among them `cast(x, "TYPE", errmode="...")`,
//! `zeros("TYPE")`, `ones("TYPE")` and `full("TYPE", VALUE)`),
//! `array(VALUE, "TYPE")` gives a literal an explicit type.

use dynd::func::builtins::{self, Operator};
use dynd::func::Eval;
use dynd::nd::expr::{BinaryOp, UnaryOp};
use dynd::nd::{Array, Value};
use dynd::ndt::{BroadcastMode, Type};

/// Functions `eval` knows besides the builtins, with their signatures.
pub(crate) const SPECIALS: &[(&str, &str)] = &[
    ("array", "array(VALUE, \"TYPE\"): VALUE as an array of TYPE"),
    (
        "expand_dims",
        "expand_dims(x, AXIS): x with a new axis of length 1 at AXIS (x[:, None])",
    ),
    (
        "unique_counts",
        "unique_counts(x): (values, counts) of the distinct values, as unique(x, return_counts=true)",
    ),
];

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
    /// An input bound with `--let`.
    Var(String),
    Call {
        name: String,
        args: Vec<Expr>,
        kwargs: Vec<(String, Expr)>,
    },
}

/// The builtin an infix operator calls (the operators are `Expr`'s).
fn operator(text: &str) -> Option<&'static str> {
    let op = BinaryOp::ALL.into_iter().find(|op| op.symbol() == text)?;
    Some(builtins::for_operator(Operator::Binary(op)).name())
}

/// One entry of a subscript `x[...]`.
enum Subscript {
    /// An integer or a slice (as `index` takes them).
    Plain(Expr),
    /// `None` or `newaxis`.
    NewAxis,
    /// Any other expression: a boolean mask.
    Mask(Expr),
}

/// `base[subs]` as calls: `filter` for a mask (alone), else `index` of
/// the integers and slices, then `expand_dims` where each new axis lands
/// (after the slices and new axes before it; an integer drops its axis).
fn index_call(base: Expr, subs: Vec<Subscript>) -> Result<Expr, &'static str> {
    if subs.iter().any(|s| matches!(s, Subscript::Mask(_))) {
        let mut subs = subs;
        return match (subs.len(), subs.pop()) {
            (1, Some(Subscript::Mask(mask))) => Ok(call("filter", vec![base, mask])),
            _ => Err("a boolean mask indexes alone: x[mask]"),
        };
    }
    let mut new_axes = Vec::new();
    let mut kept = 0i64;
    let mut plain = vec![base];
    for s in subs {
        match s {
            Subscript::NewAxis => {
                new_axes.push(kept);
                kept += 1;
            }
            Subscript::Plain(e) => {
                kept += i64::from(matches!(e, Expr::Literal(Value::Str(_))));
                plain.push(e);
            }
            Subscript::Mask(_) => unreachable!("handled above"),
        }
    }
    let mut e = if plain.len() > 1 {
        call("index", plain)
    } else {
        plain.remove(0)
    };
    for axis in new_axes {
        e = call(
            "expand_dims",
            vec![e, Expr::Literal(Value::Int(axis.into()))],
        );
    }
    Ok(e)
}

/// A call of builtin `name` on `args`, as the operators make it.
fn call(name: &str, args: Vec<Expr>) -> Expr {
    Expr::Call {
        name: name.into(),
        args,
        kwargs: Vec::new(),
    }
}

/// How deeply calls may nest (`f(g(h(...)))`): the parser and the
/// evaluator recurse once per level, so a deeper expression is an error,
/// not a stack overflow. JSON literals have their own limit.
pub(crate) const MAX_DEPTH: usize = 64;

/// How many operators and calls an expression may have in all. A chain
/// `1 + 1 + ... + 1` is parsed in a loop but is a tree one level deeper
/// per operator, which lowering walks recursively (on the tool's large
/// stack, see `main`) and the library evaluates in parts: 100,000 terms
/// work, more are an error.
pub(crate) const MAX_OPERATORS: usize = 100_000;

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
    /// Operators and calls so far.
    operators: usize,
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
        if is_literal_word(word) {
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

    /// The operator at the cursor among `ops` (longest first), consumed.
    fn op(&mut self, ops: &[&'static str]) -> Option<&'static str> {
        self.ws();
        let rest = &self.text[self.pos..];
        let found = ops.iter().find(|o| rest.starts_with(**o))?;
        // `*` is not the start of `**`, nor `<` of `<=`.
        if ops
            .iter()
            .any(|o| o.len() > found.len() && rest.starts_with(o))
        {
            return None;
        }
        self.pos += found.len();
        Some(found)
    }

    /// An optionally signed integer literal at the cursor, consumed.
    fn int(&mut self) -> Result<Option<i64>, String> {
        self.ws();
        let rest = &self.text[self.pos..];
        let sign = usize::from(rest.starts_with('-'));
        let digits = rest[sign..]
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len() - sign);
        if digits == 0 {
            if sign == 1 {
                return Err(error_at(self.text, self.pos, "expected digits after '-'"));
            }
            return Ok(None);
        }
        let text = &rest[..sign + digits];
        let n = text
            .parse::<i64>()
            .map_err(|_| error_at(self.text, self.pos, &format!("index {text} is too large")))?;
        self.pos += text.len();
        Ok(Some(n))
    }

    /// One entry of `[...]`: an integer, a slice `start:stop:step` with
    /// any part left out (as the `index` builtin takes it, a string),
    /// `None` or `newaxis` (a new axis of length 1), or any other
    /// expression: a boolean mask.
    fn subscript(&mut self) -> Result<Subscript, String> {
        self.ws();
        let rest = &self.text[self.pos..];
        for word in ["None", "newaxis"] {
            let after = rest.strip_prefix(word);
            if after
                .is_some_and(|t| !t.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_'))
            {
                self.pos += word.len();
                return Ok(Subscript::NewAxis);
            }
        }
        let at = self.pos;
        let digits = rest.trim_start_matches('-');
        let number = digits.starts_with(|c: char| c.is_ascii_digit()) && {
            // An integer alone (not `1.5`, not `x > 1`): up to `,` `:` `]`.
            let end = digits
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(digits.len());
            digits[end..].trim_start().starts_with([',', ':', ']'])
        };
        if !number && !rest.starts_with(':') {
            self.pos = at;
            return Ok(Subscript::Mask(self.expr()?));
        }
        let mut parts = vec![self.int()?];
        while parts.len() < 3 && self.eat(':') {
            parts.push(self.int()?);
        }
        match parts[..] {
            [Some(i)] => Ok(Subscript::Plain(Expr::Literal(Value::Int(i.into())))),
            [None] => Err(error_at(
                self.text,
                at,
                "expected an integer index, a slice such as 1:, :3 or ::-1, None, or a mask",
            )),
            _ => {
                let text: Vec<String> = parts
                    .iter()
                    .map(|p| p.map_or(String::new(), |i| i.to_string()))
                    .collect();
                Ok(Subscript::Plain(Expr::Literal(Value::Str(text.join(":")))))
            }
        }
    }

    /// `.name` or `.0` right after an operand: the field it names, consumed.
    fn dot_field(&mut self) -> Result<Option<Expr>, String> {
        let Some(rest) = self.text[self.pos..].strip_prefix('.') else {
            return Ok(None);
        };
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if digits > 0 {
            let i: i64 = rest[..digits]
                .parse()
                .map_err(|_| error_at(self.text, self.pos + 1, "field position is too large"))?;
            self.pos += 1 + digits;
            return Ok(Some(Expr::Literal(Value::Int(i.into()))));
        }
        self.pos += 1;
        match self.ident() {
            Some(name) => Ok(Some(Expr::Literal(Value::Str(name)))),
            None => Err(error_at(
                self.text,
                self.pos,
                "expected a field name after '.'",
            )),
        }
    }

    /// One more operator or call, or the size error.
    fn count(&mut self) -> Result<(), String> {
        self.operators += 1;
        if self.operators > MAX_OPERATORS {
            return Err(error_at(
                self.text,
                self.pos,
                &format!(
                    "the expression has more than {MAX_OPERATORS} operators and calls; \
                     split it, or bind parts with --let"
                ),
            ));
        }
        Ok(())
    }

    /// One level deeper, or the nesting error.
    fn deeper(&mut self) -> Result<(), String> {
        self.count()?;
        if self.depth == MAX_DEPTH {
            return Err(error_at(
                self.text,
                self.pos,
                &format!("expressions nest more than {MAX_DEPTH} deep"),
            ));
        }
        self.depth += 1;
        Ok(())
    }

    fn expr(&mut self) -> Result<Expr, String> {
        let left = self.bitwise(0)?;
        Ok(match self.op(&["<=", ">=", "==", "!=", "<", ">"]) {
            Some(op) => {
                self.count()?;
                let right = self.bitwise(0)?;
                call(operator(op).unwrap_or("equal"), vec![left, right])
            }
            None => left,
        })
    }

    /// The bitwise levels, loosest first (`|`, `^`, `&`, the shifts),
    /// then `sum`.
    fn bitwise(&mut self, level: usize) -> Result<Expr, String> {
        const LEVELS: [&[&str]; 4] = [&["|"], &["^"], &["&"], &["<<", ">>"]];
        let Some(ops) = LEVELS.get(level) else {
            return self.sum();
        };
        let mut e = self.bitwise(level + 1)?;
        while let Some(op) = self.op(ops) {
            self.count()?;
            let right = self.bitwise(level + 1)?;
            e = call(operator(op).unwrap_or("bitwise_or"), vec![e, right]);
        }
        Ok(e)
    }

    fn sum(&mut self) -> Result<Expr, String> {
        let mut e = self.term()?;
        while let Some(op) = self.op(&["+", "-"]) {
            self.count()?;
            let right = self.term()?;
            e = call(operator(op).unwrap_or("add"), vec![e, right]);
        }
        Ok(e)
    }

    fn term(&mut self) -> Result<Expr, String> {
        let mut e = self.unary()?;
        while let Some(op) = self.op(&["//", "*", "/", "%"]) {
            self.count()?;
            let right = self.unary()?;
            let name = match op {
                "//" => "floor_divide",
                op => operator(op).unwrap_or("multiply"),
            };
            e = call(name, vec![e, right]);
        }
        Ok(e)
    }

    fn unary(&mut self) -> Result<Expr, String> {
        self.ws();
        // A minus before a digit or an infinity is part of a JSON number
        // (`array(-Infinity, "float32")` takes a literal).
        let number = self.text[self.pos..].strip_prefix('-').is_some_and(|r| {
            r.starts_with(|c: char| c.is_ascii_digit())
                || ["Infinity", "inf"].iter().any(|w| {
                    r.strip_prefix(w).is_some_and(|t| {
                        !t.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                    })
                })
        });
        if !number && self.op(&["-"]).is_some() {
            self.deeper()?;
            let e = self.unary()?;
            self.depth -= 1;
            return Ok(call("negative", vec![e]));
        }
        if self.op(&["~"]).is_some() {
            self.deeper()?;
            let e = self.unary()?;
            self.depth -= 1;
            return Ok(call(
                builtins::for_operator(Operator::Unary(UnaryOp::Invert)).name(),
                vec![e],
            ));
        }
        let mut base = self.atom()?;
        // NumPy's indexing: `a[1:]`, `a[:, 0]`, `a[::-1]`, `a[:, None]`,
        // any number of times (`a[0][1]`), as a call of `index` (then
        // `expand_dims` for each new axis); `a[a > 1]`, a boolean mask, as
        // a call of `filter`. Fields: `p.x`, `p["x"]`, a tuple's `t.0`, as
        // calls of `field`.
        loop {
            if let Some(f) = self.dot_field()? {
                self.count()?;
                base = call("field", vec![base, f]);
                continue;
            }
            if !self.eat('[') {
                break;
            }
            self.count()?;
            let at = self.pos;
            self.ws();
            if self.text[self.pos..].starts_with('"') {
                let (v, n) = Value::parse_json_prefix(&self.text[self.pos..])
                    .map_err(|e| error_at(self.text, self.pos, &e.to_string()))?;
                self.pos += n;
                if !self.eat(']') {
                    return Err(error_at(
                        self.text,
                        self.pos,
                        "expected ']' after a field name",
                    ));
                }
                base = call("field", vec![base, Expr::Literal(v)]);
                continue;
            }
            let mut subs = Vec::new();
            loop {
                subs.push(self.subscript()?);
                if self.eat(',') {
                    continue;
                }
                if self.eat(']') {
                    break;
                }
                return Err(error_at(self.text, self.pos, "expected ',' or ']'"));
            }
            base = index_call(base, subs).map_err(|m| error_at(self.text, at, m))?;
        }
        if self.op(&["**"]).is_some() {
            self.deeper()?;
            let exp = self.unary()?;
            self.depth -= 1;
            return Ok(call("power", vec![base, exp]));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Expr, String> {
        self.ws();
        if self.eat('(') {
            self.deeper()?;
            let e = self.expr()?;
            if !self.eat(')') {
                return Err(error_at(self.text, self.pos, "expected ')'"));
            }
            self.depth -= 1;
            return Ok(e);
        }
        if let Some(mut name) = self.ident() {
            // A method of a callable, `add.reduce(...)`; without a call
            // after it, `p.x` is a field of `p` (read by `unary`).
            let bare = self.pos;
            if self.text[self.pos..].starts_with('.') {
                self.pos += 1;
                match self.ident() {
                    Some(method) if self.eat('(') => {
                        name = format!("{name}.{method}");
                        self.pos -= 1;
                    }
                    _ => self.pos = bare,
                }
            }
            if !self.eat('(') {
                return Ok(Expr::Var(name));
            }
            self.deeper()?;
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
            // NumPy's `where(x)` with one argument is `nonzero(x)`.
            let name = if name == "where" && args.len() == 1 && kwargs.is_empty() {
                "nonzero".to_string()
            } else {
                name
            };
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
pub(crate) fn eval(
    text: &str,
    mode: BroadcastMode,
    inputs: &[(String, Array)],
) -> Result<Array, String> {
    let mut p = Parser {
        text,
        pos: 0,
        depth: 0,
        operators: 0,
    };
    let e = p.expr()?;
    p.ws();
    if p.pos != text.len() {
        return Err(error_at(text, p.pos, "expected the end of the expression"));
    }
    lower(&e, mode, inputs)?.eval().map_err(|e| e.to_string())
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

/// The expression as one to fuse: inputs and literals as leaves,
/// elementwise calls as nodes, other calls (keywords, `.reduce`, `array`)
/// computed first.
fn lower<'v>(
    e: &Expr,
    mode: BroadcastMode,
    inputs: &'v [(String, Array)],
) -> Result<dynd::nd::expr::Expr<'v>, String> {
    use dynd::nd::expr::Expr as E;
    match e {
        Expr::Literal(v) => {
            let a = Array::from_value(v, None).map_err(|e| e.to_string())?;
            // A number is a weak scalar, as a Python number is in NumPy 2:
            // `x * 2.0` keeps `float32` data `float32`.
            Ok(match v {
                Value::Int(_) | Value::UInt(_) | Value::Float(_) => E::scalar(a),
                _ => E::from(a),
            })
        }
        Expr::Var(name) => match inputs.iter().find(|(n, _)| n == name) {
            Some((_, a)) => Ok(E::from(a)),
            None => {
                let known: Vec<&str> = inputs.iter().map(|(n, _)| n.as_str()).collect();
                Err(format!(
                    "unknown name '{name}' ({}; bind one with --let {name}=JSON)",
                    if known.is_empty() {
                        "no inputs are bound".to_string()
                    } else {
                        format!("inputs: {}", known.join(", "))
                    }
                ))
            }
        },
        Expr::Call { name, args, kwargs }
            if kwargs.is_empty()
                && !name.contains('.')
                && !SPECIALS.iter().any(|(special, _)| special == name) =>
        {
            let f = callable(name, mode)?;
            if !f.fuses() {
                // Computed first (as the pass would), so that the literals
                // beside it see its type (`cast(x, "float32") * 2.0`).
                return run(e, mode, inputs).map(E::from);
            }
            let args = args
                .iter()
                .map(|a| lower(a, mode, inputs))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(f.expr(args))
        }
        Expr::Call { .. } => run(e, mode, inputs).map(E::from),
    }
}

/// The callable `name` (a builtin, one of this tool's own, or
/// `NAME.reduce` / `NAME.accumulate`), strict if asked.
fn callable(name: &str, mode: BroadcastMode) -> Result<dynd::func::Callable, String> {
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
        let close = dynd::ndt::similar_names(name, names.iter().copied());
        let hint = match close.as_slice() {
            [] => String::new(),
            [one] => format!("; did you mean '{one}'?"),
            more => format!("; did you mean one of '{}'?", more.join("', '")),
        };
        return Err(format!(
            "unknown function '{name}'{hint} (`dynd list` shows all {} functions)",
            names.len()
        ));
    };
    let f = f.map_err(|e| e.to_string())?;
    Ok(if mode == BroadcastMode::Strict {
        f.strict()
    } else {
        f
    })
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

/// `e` called as written: its arguments evaluated (fused), then the call.
fn run(e: &Expr, mode: BroadcastMode, inputs: &[(String, Array)]) -> Result<Array, String> {
    let (name, args, kwargs) = match e {
        Expr::Call { name, args, kwargs } => (name.as_str(), args, kwargs),
        _ => return lower(e, mode, inputs)?.eval().map_err(|e| e.to_string()),
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
        "expand_dims" => {
            arity(2)?;
            no_kwargs(&[])?;
            let x = run(&args[0], mode, inputs)?;
            let Expr::Literal(Value::Int(axis)) = &args[1] else {
                return Err("expand_dims's axis must be an integer literal".into());
            };
            let axis = usize::try_from(*axis)
                .map_err(|_| format!("expand_dims: axis {axis} must be at least 0"))?;
            x.expand_dims(axis).map_err(err)
        }
        "unique_counts" => {
            arity(1)?;
            no_kwargs(&[])?;
            let x = run(&args[0], mode, inputs)?;
            let yes = Array::from_scalar(true);
            callable("unique", mode)?
                .call_kw(&[&x], &[("return_counts", &yes)])
                .map_err(err)
        }
        _ if name.ends_with(".outer") => {
            no_kwargs(&[])?;
            let f = callable(&name[..name.len() - ".outer".len()], mode)?;
            let values = args
                .iter()
                .map(|a| run(a, mode, inputs))
                .collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<&Array> = values.iter().collect();
            f.outer(&refs).map_err(err)
        }
        _ => {
            let f = callable(name, mode)?;
            let values = args
                .iter()
                .map(|a| run(a, mode, inputs))
                .collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<&Array> = values.iter().collect();
            let kw_values = kwargs
                .iter()
                .map(|(_, e)| run(e, mode, inputs))
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

#[cfg(test)]
mod tests;

/// The campaigns' seeded generator, shared with the library's.
#[cfg(test)]
#[path = "../../dynd-kernels/tests/common/campaign.rs"]
#[allow(dead_code)]
mod harness;

#[cfg(test)]
mod campaign;
