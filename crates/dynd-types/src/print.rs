//! The canonical datashape printer.
//!
//! One spelling for each type: ` * ` between dimensions, `?T`,
//! `complex[float32]`, `fixed_string[10]` for UTF-8 and
//! `fixed_string[10, 'utf16']` otherwise, `fixed_bytes[8, align=4]` (the
//! alignment only when it is not 1), `{x: int32, 'a b': float64}` with names
//! that are not identifiers single-quoted, `(int32, lo: float64) -> float64`.
//! Aliases print as what they stand for. Parsing the printed text gives back
//! an equal [`Type`].

use std::fmt::{self, Write};

use crate::parse::is_identifier;
use crate::scalar::Scalar;
use crate::ty::{Signature, Type, TypeKind};

/// Writes a field or keyword name, quoting it if it is not an identifier.
pub(crate) fn write_name(f: &mut impl Write, name: &str) -> fmt::Result {
    if is_identifier(name) {
        return f.write_str(name);
    }
    f.write_char('\'')?;
    for c in name.chars() {
        match c {
            '\'' => f.write_str("\\'")?,
            '\\' => f.write_str("\\\\")?,
            '\n' => f.write_str("\\n")?,
            '\t' => f.write_str("\\t")?,
            '\r' => f.write_str("\\r")?,
            c if c.is_control() => write!(f, "\\u{:04x}", c as u32)?,
            c => f.write_char(c)?,
        }
    }
    f.write_char('\'')
}

fn write_list<T>(
    f: &mut fmt::Formatter<'_>,
    items: &[T],
    variadic: bool,
    mut item: impl FnMut(&mut fmt::Formatter<'_>, &T) -> fmt::Result,
) -> fmt::Result {
    for (i, t) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        item(f, t)?;
    }
    if variadic {
        f.write_str(if items.is_empty() { "..." } else { ", ..." })?;
    }
    Ok(())
}

fn write_callable(f: &mut fmt::Formatter<'_>, c: &Signature) -> fmt::Result {
    f.write_char('(')?;
    write_list(f, &c.positional, c.variadic_positional, |f, t| {
        write!(f, "{t}")
    })?;
    let mut first = c.positional.is_empty() && !c.variadic_positional;
    for (name, t) in &c.keywords {
        if !first {
            f.write_str(", ")?;
        }
        first = false;
        write_name(f, name)?;
        write!(f, ": {t}")?;
    }
    if c.variadic_keywords {
        f.write_str(if first { "..." } else { ", ..." })?;
    }
    write!(f, ") -> {}", c.ret)
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind() {
            TypeKind::Scalar(s) => f.write_str(s.name()),
            TypeKind::FixedString { size, encoding } => match encoding {
                crate::Encoding::Utf8 => write!(f, "fixed_string[{size}]"),
                e => write!(f, "fixed_string[{size}, '{}']", e.name()),
            },
            TypeKind::FixedBytes { size, align: 1 } => write!(f, "fixed_bytes[{size}]"),
            TypeKind::FixedBytes { size, align } => write!(f, "fixed_bytes[{size}, align={align}]"),
            TypeKind::DateTimeTz { unit, tz } => {
                f.write_str("datetime[")?;
                if *unit != crate::TimeUnit::Micro {
                    write!(f, "unit=\"{}\", ", unit.name())?;
                }
                write!(f, "tz=\"{tz}\"]")
            }
            TypeKind::Categorical { values, index } => match index {
                Scalar::Int32 => write!(f, "categorical[{values}]"),
                i => write!(f, "categorical[{values}, index={}]", i.name()),
            },
            TypeKind::TimeVar { of, unit, tz } => {
                use crate::scalar::Temporal;
                f.write_str(match of {
                    Temporal::Time(_) => "time[",
                    Temporal::DateTime(_) => "datetime[",
                    Temporal::Date | Temporal::TimeDelta(_) => "timedelta[",
                })?;
                match (unit, of.unit()) {
                    (Some(var), _) => write!(f, "unit={var}")?,
                    (None, Some(u)) => write!(f, "unit=\"{}\"", u.name())?,
                    (None, None) => {}
                }
                match tz {
                    Some(crate::ZoneParam::Zone(z)) => write!(f, ", tz=\"{z}\"")?,
                    Some(crate::ZoneParam::Var(v)) => write!(f, ", tz={v}")?,
                    None => {}
                }
                f.write_char(']')
            }
            TypeKind::Void => f.write_str("void"),
            TypeKind::Type => f.write_str("type"),
            TypeKind::Option(t) => write!(f, "?{t}"),
            TypeKind::Tuple(t) => {
                f.write_char('(')?;
                write_list(f, &t.fields, t.variadic, |f, t| write!(f, "{t}"))?;
                f.write_char(')')
            }
            TypeKind::Struct(s) => {
                f.write_char('{')?;
                write_list(f, &s.fields, s.variadic, |f, (name, t)| {
                    write_name(f, name)?;
                    write!(f, ": {t}")
                })?;
                f.write_char('}')
            }
            TypeKind::Dim(d, t) => write!(f, "{d} * {t}"),
            TypeKind::TypeVar(name) => f.write_str(name),
            TypeKind::Any => f.write_str("Any"),
            TypeKind::AnyScalar => f.write_str("Scalar"),
            TypeKind::Callable(c) => write_callable(f, c),
        }
    }
}
