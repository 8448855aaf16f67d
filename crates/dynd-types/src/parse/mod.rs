//! The datashape lexer and recursive-descent parser.
//!
//! The input is tokenised once, then parsed with one token of lookahead (two
//! where a name may be followed by `:`), so parsing is linear in the input.
//! Nesting is limited to [`MAX_DEPTH`] levels so that no input can exhaust
//! the stack, and dimension lists to [`crate::MAX_DIMS`] entries so that no
//! power can expand without bound.

use std::collections::HashSet;
use std::str::FromStr;

use crate::error::{ParseError, ParseErrorKind};
use crate::scalar::{Scalar, Temporal, TimeUnit};
use crate::ty::{Dim, Encoding, Name, Signature, Struct, Tuple, Type, TypeKind, MAX_DIMS};

mod lex;
use lex::*;
mod names;
pub(crate) use names::is_identifier;
use names::*;
pub use names::{is_typevar_name, similar_names};

/// How deeply brackets, options and callables may nest.
pub const MAX_DEPTH: usize = 64;

/// Parses a whole datashape; anything after the type is an error.
pub(crate) fn parse(input: &str) -> Result<Type, ParseError> {
    let tokens = lex(input)?;
    let mut p = Parser {
        input,
        tokens,
        pos: 0,
        depth: 0,
    };
    let t = p.parse_type()?;
    if p.peek() != &Tok::Eof {
        return Err(p.expected("end of input ('*' joins a dimension to its element type)"));
    }
    Ok(t)
}

struct Parser<'a> {
    input: &'a str,
    tokens: Vec<Token>,
    pos: usize,
    depth: usize,
}

/// One item of a parenthesised list: `T`, `name: T` or `...`.
enum Item {
    Positional(Type),
    Keyword(Name, Type, usize),
    Variadic,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &Tok {
        &self.tokens[self.pos].tok
    }

    fn peek_at(&self, ahead: usize) -> &Tok {
        let i = (self.pos + ahead).min(self.tokens.len() - 1);
        &self.tokens[i].tok
    }

    fn start(&self) -> usize {
        self.tokens[self.pos].start
    }

    fn text(&self, i: usize) -> &'a str {
        let t = &self.tokens[i];
        &self.input[t.start..t.end]
    }

    fn bump(&mut self) -> usize {
        let i = self.pos;
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        i
    }

    fn error(&self, offset: usize, kind: ParseErrorKind) -> ParseError {
        ParseError::new(self.input, offset, kind)
    }

    fn invalid(&self, offset: usize, what: impl Into<String>) -> ParseError {
        self.error(offset, ParseErrorKind::Invalid { what: what.into() })
    }

    fn found(&self) -> String {
        match self.peek() {
            Tok::Eof => "end of input".to_string(),
            _ => format!("'{}'", self.text(self.pos)),
        }
    }

    fn expected(&self, expected: &str) -> ParseError {
        self.error(
            self.start(),
            ParseErrorKind::Expected {
                expected: expected.to_string(),
                found: self.found(),
            },
        )
    }

    fn expect(&mut self, tok: Tok, expected: &str) -> Result<usize, ParseError> {
        if *self.peek() == tok {
            Ok(self.bump())
        } else {
            Err(self.expected(expected))
        }
    }

    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(self.start(), ParseErrorKind::TooDeep { limit: MAX_DEPTH }));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn int(&mut self, expected: &str) -> Result<usize, ParseError> {
        match *self.peek() {
            Tok::Int(Some(n)) => {
                self.bump();
                Ok(n)
            }
            Tok::Int(None) => Err(self.error(self.start(), ParseErrorKind::IntegerTooLarge)),
            _ => Err(self.expected(expected)),
        }
    }

    /// `dim * dim * ... * dtype`
    fn parse_type(&mut self) -> Result<Type, ParseError> {
        self.enter()?;
        let mut dims: Vec<(Dim, usize)> = Vec::new();
        while let Some(parsed) = self.parse_dim()? {
            for dim in parsed.0 {
                dims.push((dim, parsed.1));
            }
            if dims.len() > MAX_DIMS {
                return Err(self.invalid(parsed.1, format!("more than {MAX_DIMS} dimensions")));
            }
        }
        let dtype = self.parse_dtype("a type")?;
        let mut variadic: Option<usize> = None;
        for (dim, at) in &dims {
            if dim.is_variadic() {
                if variadic.is_some() {
                    return Err(self.invalid(
                        *at,
                        "a dimension list may hold one ellipsis or variable power at most",
                    ));
                }
                variadic = Some(*at);
            }
        }
        self.leave();
        let start = dims.first().map(|(_, at)| *at);
        let t = dims.into_iter().rev().fold(dtype, |t, (d, _)| {
            Type::from_kind_unchecked(TypeKind::Dim(d, t))
        });
        if t.levels() > crate::MAX_LEVELS {
            let at = start.unwrap_or_else(|| self.start());
            return Err(self.invalid(
                at,
                format!("a type may nest at most {} levels", crate::MAX_LEVELS),
            ));
        }
        Ok(t)
    }

    /// Parses one dimension and its `*` if the next tokens start one.
    /// Returns the dimensions it stands for (a literal power expands to
    /// several, or none) and its offset.
    fn parse_dim(&mut self) -> Result<Option<(Vec<Dim>, usize)>, ParseError> {
        let start = self.start();
        let next = self.peek_at(1).clone();
        let base = match self.peek().clone() {
            Tok::Int(_) if matches!(next, Tok::Star | Tok::Pow) => {
                Dim::Fixed(self.int("a dimension size")?)
            }
            Tok::Int(_) => {
                self.bump();
                return Err(self.expected("'*' after a dimension size"));
            }
            Tok::Ellipsis => {
                self.bump();
                self.expect(Tok::Star, "'*' after '...'")?;
                return Ok(Some((vec![Dim::Ellipsis(None)], start)));
            }
            Tok::Ident => {
                let name = self.text(self.pos);
                match name {
                    "var" => {
                        if !matches!(next, Tok::Star | Tok::Pow) {
                            self.bump();
                            return Err(self.expected("'*' after 'var'"));
                        }
                        self.bump();
                        Dim::Var
                    }
                    "fixed" => {
                        self.bump();
                        self.expect(Tok::LBracket, "'[' after 'fixed' (as in 'fixed[5]')")?;
                        let n = self.int("a dimension size")?;
                        self.expect(Tok::RBracket, "']'")?;
                        if !matches!(self.peek(), Tok::Star | Tok::Pow) {
                            return Err(self.expected("'*' after a dimension"));
                        }
                        Dim::Fixed(n)
                    }
                    "Fixed" => {
                        self.bump();
                        if !matches!(self.peek(), Tok::Star | Tok::Pow) {
                            return Err(self.expected("'*' after 'Fixed' (a dimension kind)"));
                        }
                        Dim::AnyFixed
                    }
                    "Dim" => {
                        self.bump();
                        self.expect(Tok::Star, "'*' after 'Dim' (a dimension kind)")?;
                        return Ok(Some((vec![Dim::AnyDim], start)));
                    }
                    _ if is_typevar_name(name) => match next {
                        Tok::Ellipsis => {
                            self.bump();
                            self.bump();
                            self.expect(Tok::Star, "'*' after an ellipsis")?;
                            return Ok(Some((vec![Dim::Ellipsis(Some(name.into()))], start)));
                        }
                        Tok::Star | Tok::Pow => {
                            self.bump();
                            Dim::TypeVar(name.into())
                        }
                        _ => return Ok(None),
                    },
                    _ => return Ok(None),
                }
            }
            _ => return Ok(None),
        };
        if *self.peek() == Tok::Star {
            self.bump();
            return Ok(Some((vec![base], start)));
        }
        // A power: `base ** exponent *`.
        self.expect(Tok::Pow, "'*' or '**' after a dimension")?;
        let exp_start = self.start();
        let dims = match self.peek().clone() {
            Tok::Int(_) => {
                let n = self.int("an exponent")?;
                if n == 0 {
                    return Err(self.invalid(
                        exp_start,
                        "a power's exponent is at least 1 (or a type variable like 'N')",
                    ));
                }
                if n > MAX_DIMS {
                    return Err(self.invalid(exp_start, format!("more than {MAX_DIMS} dimensions")));
                }
                vec![base; n]
            }
            Tok::Ident if is_typevar_name(self.text(self.pos)) => {
                let exp: Name = self.text(self.pos).into();
                if matches!(&base, Dim::TypeVar(b) if *b == exp) {
                    return Err(self.invalid(
                        exp_start,
                        format!("'{exp}' cannot be both a power's base and its exponent"),
                    ));
                }
                self.bump();
                vec![Dim::Power(Box::new(base), exp)]
            }
            _ => return Err(self.expected("an exponent (an integer or a type variable like 'N')")),
        };
        self.expect(Tok::Star, "'*' after a power")?;
        Ok(Some((dims, start)))
    }

    /// A data type: anything that is not a dimension.
    fn parse_dtype(&mut self, expected: &str) -> Result<Type, ParseError> {
        let start = self.start();
        match self.peek().clone() {
            Tok::Question => {
                self.bump();
                if *self.peek() == Tok::Question {
                    return Err(self.invalid(
                        self.start(),
                        "an option of an option ('??T') is not a type; use a single '?'",
                    ));
                }
                let inner_start = self.start();
                let inner = self.parse_type()?;
                self.make_option(inner, inner_start)
            }
            Tok::LParen => self.parse_paren(),
            Tok::LBrace => self.parse_struct(),
            Tok::Ident => self.parse_named(start),
            _ => Err(self.expected(expected)),
        }
    }

    fn make_option(&self, inner: Type, at: usize) -> Result<Type, ParseError> {
        match inner.kind() {
            TypeKind::Option(_) => Err(self.invalid(
                at,
                "an option of an option ('??T') is not a type; use a single '?'",
            )),
            _ => Ok(Type::from_kind_unchecked(TypeKind::Option(inner))),
        }
    }

    fn parse_named(&mut self, start: usize) -> Result<Type, ParseError> {
        let name = self.text(self.pos);
        self.bump();
        if let Some(s) = Scalar::from_name(name) {
            if name == "complex" && *self.peek() == Tok::LBracket {
                self.bump();
                let at = self.start();
                let inner = if *self.peek() == Tok::Ident {
                    let i = self.bump();
                    self.text(i)
                } else {
                    ""
                };
                let s = match inner {
                    "float32" => Scalar::Complex64,
                    "float64" | "real" => Scalar::Complex128,
                    _ => {
                        return Err(
                            self.invalid(at, "expected 'float32' or 'float64' inside complex[...]")
                        )
                    }
                };
                self.expect(Tok::RBracket, "']'")?;
                return Ok(s.into());
            }
            if let (Some(t), Tok::LBracket) = (s.temporal(), self.peek()) {
                return self.parse_temporal(name, t);
            }
            return Ok(s.into());
        }
        let kind = match name {
            "void" => TypeKind::Void,
            "type" => TypeKind::Type,
            "Any" => TypeKind::Any,
            "Scalar" => TypeKind::AnyScalar,
            "option" => {
                self.expect(Tok::LBracket, "'[' after 'option'")?;
                self.enter()?;
                let at = self.start();
                let inner = self.parse_type()?;
                self.leave();
                self.expect(Tok::RBracket, "']' closing option[...]")?;
                return self.make_option(inner, at);
            }
            "fixed_string" => {
                self.expect(Tok::LBracket, "'[' after 'fixed_string'")?;
                let size_at = self.start();
                let size = self.int("the string size")?;
                if size == 0 {
                    return Err(self.invalid(size_at, "a fixed_string holds at least 1 character"));
                }
                let mut encoding = Encoding::Utf8;
                if *self.peek() == Tok::Comma {
                    self.bump();
                    let at = self.start();
                    let enc = match self.peek().clone() {
                        Tok::Str(s) => s,
                        Tok::Ident => self.text(self.pos).to_string(),
                        _ => {
                            return Err(
                                self.expected("an encoding ('utf8', 'ascii', 'utf16' or 'utf32')")
                            )
                        }
                    };
                    self.bump();
                    encoding = Encoding::from_name(&enc).ok_or_else(|| {
                        self.invalid(
                            at,
                            format!(
                                "unknown encoding '{enc}' (expected 'utf8', 'ascii', 'utf16', \
                                 'utf32' or 'A', 'U8', 'U16', 'U32')"
                            ),
                        )
                    })?;
                }
                self.expect(Tok::RBracket, "']' closing fixed_string[...]")?;
                TypeKind::FixedString { size, encoding }
            }
            "categorical" => {
                self.expect(Tok::LBracket, "'[' after 'categorical'")?;
                self.enter()?;
                let at = self.start();
                let values = self.parse_type()?;
                self.leave();
                let mut index = Scalar::Int32;
                let mut index_at = at;
                if *self.peek() == Tok::Comma {
                    self.bump();
                    if !(*self.peek() == Tok::Ident && self.text(self.pos) == "index") {
                        return Err(self.expected("'index=' (the integer type of the codes)"));
                    }
                    self.bump();
                    self.expect(Tok::Equals, "'=' after 'index'")?;
                    index_at = self.start();
                    let name = match self.peek() {
                        Tok::Ident => self.text(self.pos),
                        _ => {
                            return Err(
                                self.expected("an integer type (int8 … int64, uint8 … uint64)")
                            )
                        }
                    };
                    index = Scalar::from_name(name).ok_or_else(|| {
                        self.invalid(index_at, format!("unknown index type '{name}'"))
                    })?;
                    self.bump();
                }
                self.expect(Tok::RBracket, "']' closing categorical[...]")?;
                if let Some(why) = crate::problems::categorical_problem(&values, index) {
                    let at = if why.contains("index") { index_at } else { at };
                    return Err(self.invalid(at, why));
                }
                TypeKind::Categorical { values, index }
            }
            "fixed_bytes" => {
                self.expect(Tok::LBracket, "'[' after 'fixed_bytes'")?;
                let size = self.int("the size in bytes")?;
                let mut align = 1;
                let mut align_at = start;
                if *self.peek() == Tok::Comma {
                    self.bump();
                    if !(*self.peek() == Tok::Ident && self.text(self.pos) == "align") {
                        return Err(self.expected("'align='"));
                    }
                    self.bump();
                    self.expect(Tok::Equals, "'=' after 'align'")?;
                    align_at = self.start();
                    align = self.int("an alignment")?;
                }
                self.expect(Tok::RBracket, "']' closing fixed_bytes[...]")?;
                if !align.is_power_of_two() || align > 16 {
                    return Err(self.invalid(
                        align_at,
                        format!("alignment {align} is not a power of two from 1 to 16"),
                    ));
                }
                if size % align != 0 {
                    return Err(self.invalid(
                        align_at,
                        format!("size {size} is not a multiple of the alignment {align}"),
                    ));
                }
                TypeKind::FixedBytes { size, align }
            }
            "Dim" | "Fixed" | "var" => {
                return Err(self.invalid(
                    start,
                    format!("'{name}' is a dimension; expected '*' and an element type after it"),
                ))
            }
            _ if is_typevar_name(name) => TypeKind::TypeVar(name.into()),
            _ => {
                return Err(self.error(
                    start,
                    ParseErrorKind::UnknownName {
                        name: name.to_string(),
                        suggestion: suggest(name),
                    },
                ))
            }
        };
        Ok(Type::from_kind_unchecked(kind))
    }

    /// The parameters of a time type after its name: `[unit="ns"]`, and
    /// for `datetime` `tz="Europe/Paris"` too, in either order.
    fn parse_temporal(&mut self, name: &str, default: Temporal) -> Result<Type, ParseError> {
        self.bump();
        let mut unit = None;
        let mut tz: Option<(Name, usize)> = None;
        let mut unit_var: Option<Name> = None;
        let mut tz_var = false;
        loop {
            let at = self.start();
            let key = match self.peek() {
                Tok::Ident => self.text(self.pos),
                _ => return Err(self.expected(&format!("a parameter of {name} ('unit=')"))),
            };
            let zoned = name == "datetime";
            match key {
                "unit" if unit.is_none() && name != "date" => {}
                "tz" if tz.is_none() && zoned => {}
                "unit" | "tz"
                    if (key == "unit" && unit.is_some()) || (key == "tz" && tz.is_some()) =>
                {
                    return Err(self.invalid(at, format!("'{key}' is given twice")))
                }
                _ => {
                    let known = match name {
                        "date" => "a date has no parameters (its unit is the day)",
                        "datetime" => "the parameters of datetime are 'unit' and 'tz'",
                        _ => "its one parameter is 'unit'",
                    };
                    return Err(
                        self.invalid(at, format!("unknown parameter '{key}' of {name}: {known}"))
                    );
                }
            }
            self.bump();
            self.expect(Tok::Equals, &format!("'=' after '{key}'"))?;
            let value_at = self.start();
            let value = match self.peek().clone() {
                Tok::Str(v) => v,
                // A variable, in a pattern: `unit=U`, `tz=TZ`.
                Tok::Ident if is_typevar_name(self.text(self.pos)) => {
                    let var: Name = self.text(self.pos).into();
                    self.bump();
                    if key == "unit" {
                        unit_var = Some(var);
                        unit = Some(TimeUnit::Micro);
                    } else {
                        tz = Some((var, value_at));
                        tz_var = true;
                    }
                    match self.peek() {
                        Tok::Comma => {
                            self.bump();
                            continue;
                        }
                        Tok::RBracket => {
                            self.bump();
                            break;
                        }
                        _ => return Err(self.expected(&format!("',' or ']' closing {name}[...]"))),
                    }
                }
                _ => {
                    return Err(self.expected(&format!(
                        "a quoted {key} (unit=\"ns\", tz=\"UTC\") or a variable (unit=U)"
                    )))
                }
            };
            self.bump();
            if key == "unit" {
                unit = Some(TimeUnit::from_name(&value).ok_or_else(|| {
                    self.invalid(
                        value_at,
                        format!("unknown time unit \"{value}\" (expected \"s\", \"ms\", \"us\" or \"ns\")"),
                    )
                })?);
            } else {
                check_zone_name(&value).map_err(|why| self.invalid(value_at, why))?;
                tz = Some((value.as_str().into(), value_at));
            }
            match self.peek() {
                Tok::Comma => {
                    self.bump();
                }
                Tok::RBracket => {
                    self.bump();
                    break;
                }
                _ => return Err(self.expected(&format!("',' or ']' closing {name}[...]"))),
            }
        }
        let t = default.with_unit(unit.unwrap_or(TimeUnit::Micro));
        if unit_var.is_some() || tz_var {
            use crate::ZoneParam;
            let tz = tz.map(|(z, _)| {
                if tz_var {
                    ZoneParam::Var(z)
                } else {
                    ZoneParam::Zone(z)
                }
            });
            return Ok(Type::from_kind_unchecked(TypeKind::TimeVar {
                of: t,
                unit: unit_var,
                tz,
            }));
        }
        Ok(match (t, tz) {
            (Temporal::DateTime(unit), Some((tz, _))) => {
                Type::from_kind_unchecked(TypeKind::DateTimeTz { unit, tz })
            }
            (t, _) => t.scalar().into(),
        })
    }

    /// A name for a field or keyword, if the next tokens are `name :`.
    fn peek_name(&self) -> Option<Name> {
        if *self.peek_at(1) != Tok::Colon {
            return None;
        }
        match self.peek() {
            Tok::Ident => Some(self.text(self.pos).into()),
            Tok::Str(s) => Some(s.as_str().into()),
            _ => None,
        }
    }

    fn parse_item(&mut self) -> Result<Item, ParseError> {
        let start = self.start();
        if *self.peek() == Tok::Ellipsis && *self.peek_at(1) != Tok::Star {
            self.bump();
            return Ok(Item::Variadic);
        }
        if let Some(name) = self.peek_name() {
            self.bump();
            self.bump();
            return Ok(Item::Keyword(name, self.parse_type()?, start));
        }
        Ok(Item::Positional(self.parse_type()?))
    }

    /// `( items ) [-> type]`: a tuple or a callable.
    fn parse_paren(&mut self) -> Result<Type, ParseError> {
        self.enter()?;
        self.bump();
        let mut items: Vec<(Item, usize)> = Vec::new();
        while *self.peek() != Tok::RParen {
            let at = self.start();
            items.push((self.parse_item()?, at));
            if *self.peek() == Tok::Comma {
                self.bump();
            } else if *self.peek() != Tok::RParen {
                return Err(self.expected("',' or ')'"));
            }
        }
        self.bump();
        let result = if *self.peek() == Tok::Arrow {
            self.bump();
            self.build_callable(items)
        } else {
            self.build_tuple(items)
        };
        self.leave();
        result
    }

    fn build_tuple(&mut self, items: Vec<(Item, usize)>) -> Result<Type, ParseError> {
        let mut tuple = Tuple::default();
        for (item, at) in items {
            if tuple.variadic {
                return Err(self.invalid(at, "'...' must be the last field of a tuple"));
            }
            match item {
                Item::Positional(t) => tuple.fields.push(t),
                Item::Variadic => tuple.variadic = true,
                Item::Keyword(..) => {
                    return Err(self.invalid(
                        at,
                        "keyword arguments are only allowed in a callable signature \
                         (expected '->' after ')'); a struct is written {name: type}",
                    ))
                }
            }
        }
        Ok(Type::from_kind_unchecked(TypeKind::Tuple(tuple)))
    }

    fn build_callable(&mut self, items: Vec<(Item, usize)>) -> Result<Type, ParseError> {
        let mut positional = Vec::new();
        let mut keywords: Vec<(Name, Type)> = Vec::new();
        let mut seen: HashSet<Name> = HashSet::new();
        let mut variadic_positional = false;
        let mut variadic_keywords = false;
        for (item, at) in items {
            if variadic_keywords {
                return Err(self.invalid(
                    at,
                    "nothing may follow the final '...' of the keyword arguments",
                ));
            }
            match item {
                Item::Positional(t) => {
                    if !keywords.is_empty() {
                        return Err(
                            self.invalid(at, "positional argument after a keyword argument")
                        );
                    }
                    if variadic_positional {
                        return Err(self.invalid(
                            at,
                            "positional argument after '...'; only keyword arguments may follow it",
                        ));
                    }
                    positional.push(t);
                }
                Item::Variadic => {
                    if keywords.is_empty() && !variadic_positional {
                        variadic_positional = true;
                    } else {
                        variadic_keywords = true;
                    }
                }
                Item::Keyword(name, t, name_at) => {
                    if !seen.insert(name.clone()) {
                        return Err(
                            self.invalid(name_at, format!("duplicate keyword argument '{name}'"))
                        );
                    }
                    keywords.push((name, t));
                }
            }
        }
        let ret = self.parse_type()?;
        Ok(Type::from_kind_unchecked(TypeKind::Callable(Signature {
            positional,
            variadic_positional,
            keywords,
            variadic_keywords,
            ret,
        })))
    }

    /// `{ name: type, ... }`
    fn parse_struct(&mut self) -> Result<Type, ParseError> {
        self.enter()?;
        self.bump();
        let mut s = Struct::default();
        let mut seen: HashSet<Name> = HashSet::new();
        while *self.peek() != Tok::RBrace {
            let at = self.start();
            if s.variadic {
                return Err(self.invalid(at, "'...' must be the last field of a struct"));
            }
            if *self.peek() == Tok::Ellipsis {
                self.bump();
                s.variadic = true;
            } else {
                let name: Name = match self.peek().clone() {
                    Tok::Ident => self.text(self.pos).into(),
                    Tok::Str(text) => text.as_str().into(),
                    _ => return Err(self.expected("a field name or '}'")),
                };
                self.bump();
                self.expect(Tok::Colon, "':' after a field name")?;
                if !seen.insert(name.clone()) {
                    return Err(self.invalid(at, format!("duplicate field name '{name}'")));
                }
                let t = self.parse_type()?;
                s.fields.push((name, t));
            }
            if *self.peek() == Tok::Comma {
                self.bump();
            } else if *self.peek() != Tok::RBrace {
                return Err(self.expected("',' or '}'"));
            }
        }
        self.bump();
        self.leave();
        Ok(Type::from_kind_unchecked(TypeKind::Struct(s)))
    }
}

impl Type {
    /// Parses a datashape: `text.parse::<Type>()` with the parse error
    /// itself (its offset, line, column and kind) rather than the
    /// library's [`Error`](crate::Error).
    ///
    /// # Errors
    ///
    /// A [`ParseError`] with the byte offset, line and column of the problem.
    pub fn parse(text: &str) -> Result<Type, ParseError> {
        parse(text)
    }
}

/// `"…".parse::<Type>()`, failing with the library's one error type
/// ([`Error::Parse`](crate::Error::Parse), whose
/// [`offset`](crate::Error::offset) gives where):
///
/// ```
/// use dynd::ndt::Type;
///
/// let e = "3 * var * int3".parse::<Type>().unwrap_err();
/// assert!(matches!(e, dynd::Error::Parse(_)));
/// assert_eq!(e.offset(), Some(10));
/// ```
impl FromStr for Type {
    type Err = crate::Error;

    fn from_str(text: &str) -> Result<Type, crate::Error> {
        Ok(Type::parse(text)?)
    }
}

impl TryFrom<&str> for Type {
    type Error = crate::Error;

    fn try_from(text: &str) -> Result<Type, crate::Error> {
        text.parse()
    }
}

/// Whether `tz` is spelled as a time zone: an IANA name (letters, digits,
/// `_`, `-`, `+` and `/`), or a fixed offset `±hh:mm`. Whether the zone
/// exists is asked of the time zone database where it is used.
pub(crate) fn check_zone_name(tz: &str) -> Result<(), String> {
    let ok = !tz.is_empty()
        && tz.len() <= 64
        && tz
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'+' | b'/' | b':'));
    if ok {
        Ok(())
    } else {
        Err(format!(
            "\"{}\" is not a time zone name (an IANA name such as \"Europe/Paris\", \"UTC\", or an offset \"+05:30\")",
            tz.escape_default()
        ))
    }
}
