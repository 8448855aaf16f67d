//! Validated construction of types: [`Type::new`] and the constructors
//! built on it check the invariants the parser checks, and say which rule
//! a kind breaks.

use crate::error::Error;
use crate::problems::TypeRule;
use crate::ty::{Dim, Name, Type, TypeKind, MAX_DIMS, MAX_LEVELS};

impl Type {
    /// Builds a type from its kind, checking what the parser checks: no
    /// option of an option, unique struct field and keyword
    /// names, one ellipsis per dimension list, at most [`MAX_DIMS`]
    /// dimensions, a `fixed_bytes` alignment that is a power of two dividing
    /// its size, and a variadic-keywords callable that names a keyword or is
    /// also variadic-positional (otherwise it could not be printed).
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] saying which rule the kind breaks.
    pub fn new(kind: TypeKind) -> Result<Type, Error> {
        validate(&kind)?;
        let t = Type::from_kind_unchecked(kind);
        if t.levels() > MAX_LEVELS {
            // Dropping `t` recurses at most one level further than its
            // children, which were themselves within the limit.
            return invalid(TypeRule::TooDeep { max: MAX_LEVELS });
        }
        Ok(t)
    }

    /// `?T`.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] if `inner` is an option.
    pub fn option(inner: Type) -> Result<Type, Error> {
        Type::new(TypeKind::Option(inner))
    }

    /// `dim * element`.
    ///
    /// # Errors
    ///
    /// [`Error::Invalid`] for a second ellipsis or more than [`MAX_DIMS`] dimensions.
    pub fn dim(dim: Dim, element: Type) -> Result<Type, Error> {
        Type::new(TypeKind::Dim(dim, element))
    }

    /// `dims[0] * dims[1] * ... * dtype`.
    ///
    /// # Errors
    ///
    /// As [`Type::dim`].
    pub fn with_dims<I>(dims: I, dtype: Type) -> Result<Type, Error>
    where
        I: IntoIterator<Item = Dim>,
        I::IntoIter: DoubleEndedIterator,
    {
        dims.into_iter()
            .rev()
            .try_fold(dtype, |element, dim| Type::dim(dim, element))
    }
}

fn invalid<T>(rule: TypeRule) -> Result<T, Error> {
    Err(Error::Invalid(Box::new(rule)))
}

fn check_unique<'a>(
    names: impl Iterator<Item = &'a Name>,
    what: &'static str,
) -> Result<(), Error> {
    let mut seen = std::collections::HashSet::new();
    for name in names {
        if !seen.insert(name) {
            return invalid(TypeRule::DuplicateName {
                what,
                name: name.clone(),
            });
        }
    }
    Ok(())
}

/// The checks behind [`Type::new`]; the parser makes the same ones with
/// positions, so its errors point at the offending text.
fn validate(kind: &TypeKind) -> Result<(), Error> {
    match kind {
        TypeKind::Option(inner) => match inner.kind() {
            TypeKind::Option(_) => invalid(TypeRule::OptionOfOption),
            _ => Ok(()),
        },
        TypeKind::TypeVar(name) => check_typevar(name),
        TypeKind::Categorical { values, index } => {
            match crate::problems::categorical_problem(values, *index) {
                Some(why) => invalid(TypeRule::Categorical(why)),
                None => Ok(()),
            }
        }
        TypeKind::TimeVar { of, unit, tz } => {
            use crate::{Temporal, ZoneParam};
            if let Some(var) = unit {
                check_typevar(var)?;
            }
            match tz {
                Some(ZoneParam::Var(var)) => check_typevar(var)?,
                Some(ZoneParam::Zone(z)) => crate::parse::check_zone_name(z)
                    .or_else(|why| invalid(TypeRule::ZoneName(why)))?,
                None => {}
            }
            let why = match (of, tz) {
                (Temporal::Date, _) => "a date has no parameters to be variables",
                (Temporal::Time(_) | Temporal::TimeDelta(_), Some(_)) => {
                    "only a datetime has a zone"
                }
                (_, Some(ZoneParam::Var(_))) => return Ok(()),
                _ if unit.is_some() => return Ok(()),
                _ => "a time pattern has a variable unit or zone (else it is a concrete type)",
            };
            invalid(TypeRule::TimeVar(why))
        }
        TypeKind::Struct(s) => check_unique(s.fields.iter().map(|(n, _)| n), "field"),
        TypeKind::Callable(c) => {
            check_unique(c.keywords.iter().map(|(n, _)| n), "keyword")?;
            if c.variadic_keywords && c.keywords.is_empty() && !c.variadic_positional {
                return invalid(TypeRule::VariadicKeywords);
            }
            Ok(())
        }
        TypeKind::FixedString { size: 0, .. } => invalid(TypeRule::EmptyFixedString),
        TypeKind::DateTimeTz { tz, .. } => {
            crate::parse::check_zone_name(tz).or_else(|why| invalid(TypeRule::ZoneName(why)))
        }
        TypeKind::FixedBytes { size, align } => {
            if !align.is_power_of_two() || *align > 16 {
                invalid(TypeRule::FixedBytesAlign { align: *align })
            } else if size % align != 0 {
                invalid(TypeRule::FixedBytesSize {
                    size: *size,
                    align: *align,
                })
            } else {
                Ok(())
            }
        }
        TypeKind::Dim(d, element) => {
            let (dims, _) = element.split_dims();
            if dims.len() + 1 > MAX_DIMS {
                return invalid(TypeRule::TooManyDims { max: MAX_DIMS });
            }
            if d.is_variadic() && dims.iter().any(|d| d.is_variadic()) {
                return invalid(TypeRule::TwoEllipses);
            }
            match d {
                Dim::TypeVar(name) | Dim::Ellipsis(Some(name)) => check_typevar(name),
                Dim::Power(base, exponent) => {
                    check_typevar(exponent)?;
                    if let Dim::TypeVar(b) = &**base {
                        check_typevar(b)?;
                    }
                    check_power(base, exponent)
                }
                _ => Ok(()),
            }
        }
        _ => Ok(()),
    }
}

fn check_typevar(name: &str) -> Result<(), Error> {
    if crate::is_typevar_name(name) {
        Ok(())
    } else {
        invalid(TypeRule::NotATypeVar { name: name.into() })
    }
}

fn check_power(base: &Dim, exponent: &Name) -> Result<(), Error> {
    match base {
        Dim::Fixed(_) | Dim::AnyFixed | Dim::Var => Ok(()),
        Dim::TypeVar(b) if b == exponent => invalid(TypeRule::PowerBaseIsExponent {
            name: exponent.clone(),
        }),
        Dim::TypeVar(_) => Ok(()),
        other => invalid(TypeRule::PowerBase {
            base: other.clone(),
        }),
    }
}
