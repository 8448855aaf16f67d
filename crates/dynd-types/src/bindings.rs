//! What a match binds ([`Binding`], [`Bindings`]) and why a match fails
//! ([`Mismatch`]): the data of pattern matching, below the errors that
//! carry it. The matching itself is [`pattern`](crate::pattern).

use std::collections::BTreeMap;
use std::fmt;

use crate::scalar::TimeUnit;
use crate::ty::{Dim, Name, Type};

/// What a type variable is bound to.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Binding {
    /// A data type variable's type.
    Dtype(Type),
    /// A dimension variable's dimension (a power's exponent binds `Fixed(k)`).
    Dim(Dim),
    /// A named ellipsis's dimensions.
    Dims(Vec<Dim>),
    /// A time unit variable's unit (`U` in `timedelta[unit=U]`).
    Unit(TimeUnit),
    /// A zone variable's zone name (`TZ` in `datetime[tz=TZ]`).
    Zone(Name),
}

impl fmt::Display for Binding {
    /// A data type or dimension prints as datashape text; an ellipsis
    /// binding prints its dimensions joined by ` * ` (empty for none); a
    /// unit or a zone prints its name (`ns`, `Europe/Paris`).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Binding::Dtype(t) => write!(f, "{t}"),
            Binding::Dim(d) => write!(f, "{d}"),
            Binding::Unit(u) => f.write_str(u.name()),
            Binding::Zone(z) => f.write_str(z),
            Binding::Dims(dims) => {
                for (i, d) in dims.iter().enumerate() {
                    if i > 0 {
                        f.write_str(" * ")?;
                    }
                    write!(f, "{d}")?;
                }
                Ok(())
            }
        }
    }
}

/// Type variable bindings from a match, ordered by name.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Bindings {
    pub(crate) map: BTreeMap<Name, Binding>,
}

impl Bindings {
    /// No bindings.
    pub fn new() -> Bindings {
        Bindings::default()
    }

    /// The binding of `name`, if any.
    pub fn get(&self, name: &str) -> Option<&Binding> {
        self.map.get(name)
    }

    /// All bindings, ordered by name.
    pub fn iter(&self) -> impl Iterator<Item = (&Name, &Binding)> {
        self.map.iter()
    }

    /// The number of bound variables.
    pub fn len(&self) -> usize {
        self.map.len()
    }

    /// Whether nothing is bound.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Binds `name`, replacing any earlier binding.
    pub fn insert(&mut self, name: Name, binding: Binding) {
        self.map.insert(name, binding);
    }

    pub(crate) fn bind_dim(&mut self, name: &Name, dim: &Dim) -> Result<(), Mismatch> {
        match self.map.get(name) {
            None => {
                self.map.insert(name.clone(), Binding::Dim(dim.clone()));
                Ok(())
            }
            Some(Binding::Dim(d)) if d == dim => Ok(()),
            Some(Binding::Dim(d)) => Err(Mismatch::Inconsistent {
                name: name.clone(),
                kind: "dimension",
                first: d.to_string(),
                second: dim.to_string(),
            }),
            Some(other) => Err(Mismatch::Inconsistent {
                name: name.clone(),
                kind: "dimension",
                first: other.to_string(),
                second: dim.to_string(),
            }),
        }
    }

    /// Binds a unit or zone variable (`kind` "unit" or "zone") to `value`,
    /// or checks it meets the value it has.
    pub(crate) fn bind_param(
        &mut self,
        name: &Name,
        kind: &'static str,
        value: Binding,
    ) -> Result<(), Mismatch> {
        match self.map.get(name) {
            None => {
                self.map.insert(name.clone(), value);
                Ok(())
            }
            Some(b) if *b == value => Ok(()),
            Some(other) => Err(Mismatch::Inconsistent {
                name: name.clone(),
                kind,
                first: other.to_string(),
                second: value.to_string(),
            }),
        }
    }

    pub(crate) fn bind_dtype(&mut self, name: &Name, ty: &Type) -> Result<(), Mismatch> {
        match self.map.get(name) {
            None => {
                self.map.insert(name.clone(), Binding::Dtype(ty.clone()));
                Ok(())
            }
            Some(Binding::Dtype(t)) if t == ty => Ok(()),
            Some(other) => Err(Mismatch::Inconsistent {
                name: name.clone(),
                kind: "type",
                first: other.to_string(),
                second: ty.to_string(),
            }),
        }
    }
}

/// Why a pattern did not match.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Mismatch {
    /// The candidate is not of the pattern's kind.
    #[error("expected {pattern}, found {candidate}")]
    Type {
        /// The pattern.
        pattern: Type,
        /// The candidate.
        candidate: Type,
    },
    /// A dimension does not match.
    #[error("expected dimension '{pattern}', found '{candidate}'")]
    Dim {
        /// The pattern's dimension.
        pattern: Dim,
        /// The candidate's dimension.
        candidate: Dim,
    },
    /// The candidate has the wrong number of dimensions.
    #[error("expected {expected} dimension(s), found {found} in {candidate}")]
    DimCount {
        /// "2" or "at least 2".
        expected: String,
        /// How many the candidate has.
        found: usize,
        /// The candidate.
        candidate: Type,
    },
    /// A variable met two different things.
    #[error("{kind} variable '{name}' is bound to '{first}' but meets '{second}'")]
    Inconsistent {
        /// The variable.
        name: Name,
        /// "dimension", "type", "ellipsis", "unit" or "zone".
        kind: &'static str,
        /// What it was bound to first.
        first: String,
        /// What it met later.
        second: String,
    },
    /// A named ellipsis met dimensions that do not broadcast with its binding.
    #[error(
        "ellipsis '{name}...' is bound to '{first}', which does not broadcast with '{second}'"
    )]
    Ellipsis {
        /// The ellipsis name.
        name: Name,
        /// Its binding so far.
        first: String,
        /// The dimensions it met.
        second: String,
    },
    /// Tuple or struct fields, or callable arguments, differ in number.
    #[error("expected {expected} {what}, found {found}")]
    Count {
        /// "field(s)" or "positional argument(s)".
        what: &'static str,
        /// "2" or "at least 2".
        expected: String,
        /// How many the candidate has.
        found: usize,
    },
    /// A struct field name differs.
    #[error("expected field '{expected}', found '{found}'")]
    FieldName {
        /// The pattern's name.
        expected: Name,
        /// The candidate's name.
        found: Name,
    },
    /// A keyword argument the signature does not have.
    #[error("unknown keyword argument '{name}' (valid keywords: {})", list(valid))]
    UnknownKeyword {
        /// The keyword given.
        name: Name,
        /// The keywords the signature has.
        valid: Vec<Name>,
    },
    /// A required keyword argument was not given.
    #[error(
        "missing required keyword argument '{name}' (valid keywords: {})",
        list(valid)
    )]
    MissingKeyword {
        /// The missing keyword.
        name: Name,
        /// The keywords the signature has.
        valid: Vec<Name>,
    },
    /// A keyword argument given twice.
    #[error("keyword argument '{name}' given more than once")]
    DuplicateKeyword {
        /// The keyword.
        name: Name,
    },
    /// The pattern is not a callable signature.
    #[error("{ty} is not a callable signature")]
    NotCallable {
        /// The type.
        ty: Type,
    },
    /// A mismatch inside a positional argument.
    #[error("argument {index}: {inner}")]
    Argument {
        /// The argument's index.
        index: usize,
        /// The mismatch.
        inner: Box<Mismatch>,
    },
    /// A mismatch inside a keyword argument.
    #[error("keyword argument '{name}': {inner}")]
    Keyword {
        /// The keyword.
        name: Name,
        /// The mismatch.
        inner: Box<Mismatch>,
    },
}

fn list(names: &[Name]) -> String {
    if names.is_empty() {
        return "none".to_string();
    }
    names
        .iter()
        .map(|n| n.as_ref())
        .collect::<Vec<_>>()
        .join(", ")
}

pub(crate) fn count(n: usize, at_least: bool) -> String {
    if at_least {
        format!("at least {n}")
    } else {
        n.to_string()
    }
}
