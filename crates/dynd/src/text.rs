//! Expressions as text: `a*b + c*d - e`, `mean(groupby(v, k), axis=1)`,
//! `x[x > 1]`, `p.x * 2.0`, over named input arrays, evaluated as one
//! fused pass where they can be ([`evaluate`]). The language is Python's
//! expression syntax for arrays, as NumPy and numexpr take it; `dynd eval`
//! and Python's `dynd.evaluate` are this module.
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
//! A bare `NAME` is an input. Operators are the builtins `add`,
//! `subtract`, `multiply`, `divide`, `floor_divide` (`//`), `remainder`,
//! `power`, the comparisons, and the bitwise `&`, `|`, `^`, `<<`, `>>`
//! and `~` (logical on `bool`), with Python's precedence (comparisons
//! loosest, then `|`, `^`, `&`, shifts, `+ -`, `* / %`, unary, `**`).
//! A number literal is a weak scalar, as a Python number is in NumPy 2
//! (`x * 2.0` keeps `float32` data `float32`).
//!
//! `where(x)` with one argument is `nonzero(x)`, as in NumPy. Subscripts
//! take integers, slices, `None`/`newaxis` (`x[:, None]`) and a boolean
//! mask alone (`x[x > 1]`, as `filter`: the kept elements of each row);
//! `NAME.outer(x, y)` is the callable's outer product (`equal.outer`),
//! `NAME.reduce(x, axis=1)` its reduction.
//!
//! Besides the builtins (among them `cast(x, "TYPE", errmode="...")`,
//! `zeros("TYPE")`, `ones("TYPE")` and `full("TYPE", VALUE)`),
//! `array(VALUE, "TYPE")` gives a literal an explicit type ([`SPECIALS`]).

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use dynd_array::expr::{BinaryOp, UnaryOp};
use dynd_array::{Array, Value};
use dynd_arrfunc::builtins::{self, Operator};
use dynd_arrfunc::{Callable, Eval};
use dynd_types::{BroadcastMode, Error, Type};

/// Functions expressions know besides the builtins, with their signatures.
pub const SPECIALS: &[(&str, &str)] = &[
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
pub const MAX_DEPTH: usize = 64;

/// How many operators and calls an expression may have in all, unless
/// [`Evaluator::max_operators`] says otherwise. A chain `1 + 1 + ... + 1`
/// is parsed in a loop but is a tree one level deeper per operator, which
/// lowering, evaluating and dropping walk recursively: a text longer than
/// a few hundred bytes is evaluated on a thread of its own whose stack
/// has room for that ([`STACK_PER_OPERATOR`] bytes per operator it can
/// hold, at most 1 GiB).
pub const MAX_OPERATORS: usize = 100_000;

/// The longest text evaluated on the caller's stack (at most half as many
/// operators: a few hundred KiB of stack in a debug build, so that a
/// thread's 2 MiB is enough).
const ON_CALLERS_STACK: usize = 256;

/// Stack reserved per operator a longer text can hold (a debug build
/// uses about 6 KiB per level).
pub const STACK_PER_OPERATOR: usize = 16 << 10;

/// The largest stack a long expression's thread asks for.
const MAX_STACK: usize = 1 << 30;

struct Parser<'a> {
    text: &'a str,
    pos: usize,
    depth: usize,
    /// Operators and calls so far.
    operators: usize,
    /// The most there may be.
    max_operators: usize,
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
        if self.operators > self.max_operators {
            return Err(error_at(
                self.text,
                self.pos,
                &format!(
                    "the expression has more than {} operators and calls; \
                     split it, or compute parts as inputs",
                    self.max_operators
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
            dynd_types::Error::Json { offset, message } => {
                error_at(self.text, self.pos + offset, &message)
            }
            e => e.to_string(),
        })?;
        self.pos += n;
        Ok(Expr::Literal(v))
    }
}

/// `text` evaluated over the named `inputs`, with the builtins and NumPy's
/// broadcasting ([`Evaluator`] adds functions of the caller's own, and
/// chooses the broadcasting and the size limit).
///
/// # Errors
///
/// [`Error::Expression`] for text that does not parse (the message says
/// what and where) or has more than [`MAX_OPERATORS`] operators and calls,
/// [`Error::UnknownInput`] for a name that is not bound,
/// [`Error::UnknownFunction`] for a call of no function, and the error of
/// a call that fails.
///
/// ```
/// use dynd::prelude::*;
///
/// let a = Array::from_vec(vec![1.0f32, 2.0, 3.0]);
/// let b = Array::from_json("[[1, 2], [3], []]", None)?;
/// let r = dynd::func::evaluate("a * 2.0 + 1", &[("a", &a)])?;
/// assert_eq!(r.to_string(), "[3, 5, 7]");
/// assert_eq!(r.ty().to_string(), "3 * float32");
/// let s = dynd::func::evaluate("sum(b, axis=1) + a", &[("a", &a), ("b", &b)])?;
/// assert_eq!(s.to_string(), "[4, 5, 3]");
/// let e = dynd::func::evaluate("a +", &[("a", &a)]).unwrap_err();
/// assert!(e.to_string().starts_with("expected"), "{e}");
/// # Ok::<(), dynd::Error>(())
/// ```
pub fn evaluate(text: &str, inputs: &[(&str, &Array)]) -> Result<Array, Error> {
    Evaluator::new().evaluate(text, inputs)
}

/// How [`evaluate`] runs: the functions it knows besides the builtins,
/// the broadcasting, and how many operators an expression may have.
///
/// ```
/// use dynd::func::Evaluator;
/// use dynd::ndt::BroadcastMode;
/// use dynd::prelude::*;
///
/// #[dynd::elemental]
/// fn clamp01(x: f64) -> f64 {
///     x.clamp(0.0, 1.0)
/// }
///
/// let x = Array::from_vec(vec![-0.5, 0.25, 2.0]);
/// let own = [clamp01::callable()];
/// let e = Evaluator::new().functions(&own).mode(BroadcastMode::Strict);
/// assert_eq!(e.evaluate("clamp01(x) * 2", &[("x", &x)])?.to_string(), "[0, 0.5, 2]");
/// # Ok::<(), dynd::Error>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Evaluator<'f> {
    functions: &'f [Callable],
    mode: BroadcastMode,
    max_operators: usize,
}

impl Default for Evaluator<'_> {
    fn default() -> Self {
        Evaluator::new()
    }
}

impl<'f> Evaluator<'f> {
    /// The builtins, NumPy's broadcasting, at most [`MAX_OPERATORS`]
    /// operators and calls.
    pub fn new() -> Evaluator<'static> {
        Evaluator {
            functions: &[],
            mode: BroadcastMode::NumPy,
            max_operators: MAX_OPERATORS,
        }
    }

    /// `functions` callable by name too (an `#[elemental]` fn's
    /// `callable()`); a builtin of the same name wins.
    pub fn functions<'g>(self, functions: &'g [Callable]) -> Evaluator<'g> {
        Evaluator {
            functions,
            mode: self.mode,
            max_operators: self.max_operators,
        }
    }

    /// Broadcasting by `mode` (strict: equal dimensions only).
    pub fn mode(self, mode: BroadcastMode) -> Evaluator<'f> {
        Evaluator { mode, ..self }
    }

    /// At most `n` operators and calls (past [`MAX_OPERATORS`], the stack
    /// of a long expression's thread stays at 1 GiB: about 65,000
    /// operators per GiB fit).
    pub fn max_operators(self, n: usize) -> Evaluator<'f> {
        Evaluator {
            max_operators: n,
            ..self
        }
    }

    /// `text` over the named `inputs`.
    ///
    /// # Errors
    ///
    /// As [`evaluate`].
    pub fn evaluate(&self, text: &str, inputs: &[(&str, &Array)]) -> Result<Array, Error> {
        // Parsing, lowering, evaluating and dropping the expression
        // recurse once per operator of a chain. A short text fits on any
        // caller's stack; a longer one runs on a thread with the stack it
        // may need, so that no expression overflows the caller's.
        if text.len() <= ON_CALLERS_STACK {
            return self.evaluate_here(text, inputs);
        }
        let stack = (text.len() / 2 + 64)
            .saturating_mul(STACK_PER_OPERATOR)
            .min(MAX_STACK);
        std::thread::scope(|s| {
            std::thread::Builder::new()
                .name("dynd-evaluate".into())
                .stack_size(stack)
                .spawn_scoped(s, || self.evaluate_here(text, inputs))
                .map_err(|e| {
                    text_error(format!(
                        "cannot start a thread with a {stack}-byte stack for an expression of {} bytes: {e}",
                        text.len()
                    ))
                })?
                .join()
                .unwrap_or_else(|payload| std::panic::resume_unwind(payload))
        })
    }

    /// [`Evaluator::evaluate`] on the caller's stack.
    fn evaluate_here(&self, text: &str, inputs: &[(&str, &Array)]) -> Result<Array, Error> {
        // The same text again (a loop calling `evaluate`, numexpr's way):
        // its parse, kept per thread for the last few texts.
        let cached = PARSED.with(|p| p.borrow().get(text).cloned());
        let e = match cached {
            Some(e) if e.1 == self.max_operators => e.0,
            _ => {
                let e = Rc::new(self.parse(text)?);
                if text.len() <= ON_CALLERS_STACK {
                    PARSED.with(|p| {
                        let mut p = p.borrow_mut();
                        if p.len() >= PARSED_TEXTS {
                            p.clear();
                        }
                        p.insert(text.to_string(), (Rc::clone(&e), self.max_operators));
                    });
                }
                e
            }
        };
        let e = &*e;
        let cx = Context {
            mode: self.mode,
            inputs,
            functions: self.functions,
        };
        // Small inputs gain nothing from fusing (their intermediates stay
        // in cache) and the fused plan costs more than the calls: an
        // expression of calls over inputs alone runs call by call. Number
        // literals keep the fused path, which treats them as weak scalars.
        let small = inputs
            .iter()
            .all(|(_, a)| a.data_block().len() <= DIRECT_BYTES && !a.ty().has_var_dim());
        if small && matches!(e, Expr::Call { .. }) && only_inputs(e) {
            return run(e, &cx);
        }
        lower(e, &cx)?.eval()
    }
}

impl Evaluator<'_> {
    /// `text` parsed, or the parser's error.
    fn parse(&self, text: &str) -> Result<Expr, Error> {
        let mut p = Parser {
            text,
            pos: 0,
            depth: 0,
            operators: 0,
            max_operators: self.max_operators,
        };
        let e = p.expr().map_err(text_error)?;
        p.ws();
        if p.pos != text.len() {
            return Err(text_error(error_at(
                text,
                p.pos,
                "expected the end of the expression",
            )));
        }
        Ok(e)
    }
}

/// How many parsed texts a thread keeps.
const PARSED_TEXTS: usize = 64;

thread_local! {
    /// The last texts evaluated on this thread, parsed (with the operator
    /// limit they were parsed under).
    static PARSED: RefCell<HashMap<String, (Rc<Expr>, usize)>> = RefCell::new(HashMap::new());
}

/// The largest input (in bytes) of an expression evaluated call by call.
const DIRECT_BYTES: usize = 64 << 10;

/// Whether `e`'s leaves are all inputs (no literals).
fn only_inputs(e: &Expr) -> bool {
    match e {
        Expr::Literal(_) => false,
        Expr::Var(_) => true,
        Expr::Call { args, kwargs, .. } => {
            args.iter().all(only_inputs) && kwargs.iter().all(|(_, v)| only_inputs(v))
        }
    }
}

/// An [`Error::Expression`] of `message`.
fn text_error(message: impl Into<Box<str>>) -> Error {
    Error::Expression {
        message: message.into(),
    }
}

/// What an evaluation sees besides the expression.
struct Context<'c, 'v> {
    mode: BroadcastMode,
    inputs: &'c [(&'c str, &'v Array)],
    functions: &'c [Callable],
}

/// Whether `word` is a JSON literal word in an expression (so never the
/// name of an input).
fn is_literal_word(word: &str) -> bool {
    matches!(
        word,
        "null" | "true" | "false" | "NaN" | "nan" | "inf" | "Infinity"
    )
}

/// The expression as one to fuse: inputs and literals as leaves,
/// elementwise calls as nodes, other calls (keywords, `.reduce`, `array`)
/// computed first.
fn lower<'v>(e: &Expr, cx: &Context<'_, 'v>) -> Result<dynd_array::expr::Expr<'v>, Error> {
    use dynd_array::expr::Expr as E;
    match e {
        Expr::Literal(v) => {
            let a = Array::from_value(v, None)?;
            // A number is a weak scalar, as a Python number is in NumPy 2:
            // `x * 2.0` keeps `float32` data `float32`.
            Ok(match v {
                Value::Int(_) | Value::UInt(_) | Value::Float(_) => E::scalar(a),
                _ => E::from(a),
            })
        }
        Expr::Var(name) => match cx.inputs.iter().find(|(n, _)| n == name) {
            Some((_, a)) => Ok(E::from(*a)),
            None => Err(Error::UnknownInput {
                name: name.clone(),
                inputs: cx.inputs.iter().map(|(n, _)| n.to_string()).collect(),
            }),
        },
        Expr::Call { name, args, kwargs }
            if kwargs.is_empty()
                && !name.contains('.')
                && !SPECIALS.iter().any(|(special, _)| special == name) =>
        {
            let f = callable(name, cx)?;
            if !f.fuses() {
                // Computed first (as the pass would), so that the literals
                // beside it see its type (`cast(x, "float32") * 2.0`).
                return run(e, cx).map(E::from);
            }
            let args = args
                .iter()
                .map(|a| lower(a, cx))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(f.expr(args))
        }
        Expr::Call { .. } => run(e, cx).map(E::from),
    }
}

/// The callable `name` (a builtin, one of the caller's own, or
/// `NAME.reduce` / `NAME.accumulate`), strict if asked.
fn callable(name: &str, cx: &Context<'_, '_>) -> Result<Callable, Error> {
    let lookup = |name: &str| {
        builtins::get(name)
            .ok()
            .or_else(|| cx.functions.iter().find(|c| c.name() == name).cloned())
    };
    let found = match name.split_once('.') {
        Some((base, "reduce")) => lookup(base).map(|c| c.reduce()),
        Some((base, "accumulate")) => lookup(base).map(|c| c.accumulate()),
        _ => lookup(name).map(Ok),
    };
    let Some(f) = found else {
        let mut names: Vec<&str> = builtins::all().map(|c| c.name()).collect();
        names.extend(cx.functions.iter().map(|c| c.name()));
        names.extend(SPECIALS.iter().map(|(n, _)| *n));
        names.sort_unstable();
        let suggestions = dynd_types::similar_names(name, names.iter().copied())
            .into_iter()
            .take(3)
            .map(str::to_string)
            .collect();
        return Err(Error::UnknownFunction {
            name: name.to_string(),
            suggestions,
        });
    };
    let f = f?;
    Ok(if cx.mode == BroadcastMode::Strict {
        f.strict()
    } else {
        f
    })
}

fn string_arg(e: &Expr, what: &str) -> Result<String, Error> {
    match e {
        Expr::Literal(Value::Str(s)) => Ok(s.clone()),
        _ => Err(text_error(format!("{what} must be a string literal"))),
    }
}

fn type_arg(e: &Expr, what: &str) -> Result<Type, Error> {
    let s = string_arg(e, what)?;
    s.parse::<Type>()
        .map_err(|err| text_error(format!("{what}: {err}")))
}

/// `e` called as written: its arguments evaluated (fused), then the call.
fn run(e: &Expr, cx: &Context<'_, '_>) -> Result<Array, Error> {
    let (name, args, kwargs) = match e {
        Expr::Call { name, args, kwargs } => (name.as_str(), args, kwargs),
        _ => return lower(e, cx)?.eval(),
    };
    let arity = |n: usize| {
        if args.len() == n {
            Ok(())
        } else {
            Err(Error::Arity {
                name: name.to_string(),
                expected: n,
                found: args.len(),
            })
        }
    };
    let no_kwargs =
        |allowed: &[&str]| match kwargs.iter().find(|(k, _)| !allowed.contains(&k.as_str())) {
            Some((k, _)) => Err(text_error(format!(
                "{name}: unknown keyword argument '{k}' (valid keywords: {})",
                if allowed.is_empty() {
                    "none".to_string()
                } else {
                    allowed.join(", ")
                }
            ))),
            None => Ok(()),
        };
    match name {
        "array" => {
            arity(2)?;
            no_kwargs(&[])?;
            let Expr::Literal(v) = &args[0] else {
                return Err(text_error("array's first argument must be a JSON literal"));
            };
            Array::from_value(v, Some(&type_arg(&args[1], "array's type")?))
        }
        "expand_dims" => {
            arity(2)?;
            no_kwargs(&[])?;
            let x = run(&args[0], cx)?;
            let Expr::Literal(Value::Int(axis)) = &args[1] else {
                return Err(text_error("expand_dims's axis must be an integer literal"));
            };
            let axis = usize::try_from(*axis)
                .map_err(|_| text_error(format!("expand_dims: axis {axis} must be at least 0")))?;
            x.expand_dims(axis)
        }
        "unique_counts" => {
            arity(1)?;
            no_kwargs(&[])?;
            let x = run(&args[0], cx)?;
            let yes = Array::from_scalar(true);
            callable("unique", cx)?.call_kw(&[&x], &[("return_counts", &yes)])
        }
        _ if name.ends_with(".outer") => {
            no_kwargs(&[])?;
            let f = callable(&name[..name.len() - ".outer".len()], cx)?;
            let values = args
                .iter()
                .map(|a| run(a, cx))
                .collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<&Array> = values.iter().collect();
            f.outer(&refs)
        }
        _ => {
            let f = callable(name, cx)?;
            let values = args
                .iter()
                .map(|a| run(a, cx))
                .collect::<Result<Vec<_>, _>>()?;
            let refs: Vec<&Array> = values.iter().collect();
            let kw_values = kwargs
                .iter()
                .map(|(_, e)| run(e, cx))
                .collect::<Result<Vec<_>, _>>()?;
            let kw_refs: Vec<(&str, &Array)> = kwargs
                .iter()
                .map(|(k, _)| k.as_str())
                .zip(kw_values.iter())
                .collect();
            f.call_kw(&refs, &kw_refs)
        }
    }
}
