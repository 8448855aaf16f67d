//! Keyword arguments: the declarations a callable takes and the values a call passes.

use super::*;

/// The body of a [`Callable::function`]: the positional arguments and the
/// keyword arguments (checked, with defaults filled in) to the result.
pub(crate) type ArrayFn = dyn Fn(&[&Array], &Kwargs<'_>) -> Result<Array, Error> + Send + Sync;

/// A callable body written as a Rust function over whole arrays, for
/// operations that are not elementwise (constructors, casts, and the
/// reductions and array functions built on them): their result type may
/// depend on argument and keyword values, so they are resolved by running.
#[derive(Clone)]
pub(crate) struct Function {
    pub(super) signature: Type,
    pub(super) positional: usize,
    /// `(T, ...) -> R`: more positional arguments may follow.
    pub(super) variadic: bool,
    pub(super) run: Arc<ArrayFn>,
    /// The typed body of a callable over axes ([`Callable::over_axes`]),
    /// which `run` wraps for dynamic callers.
    pub(super) typed: Option<super::over_axes::TypedAxes>,
    /// Whether the function takes categorical arguments as they are
    /// (else they are decoded first; see `callable::categories`).
    pub(super) categories: bool,
}

/// The keyword arguments of one call of a [`Callable::function`], in
/// declared order, with defaults filled in.
pub struct Kwargs<'a> {
    pub(super) name: &'a str,
    pub(super) keywords: &'a [Keyword],
    pub(super) values: Vec<Option<Array>>,
}

impl Kwargs<'_> {
    /// The value of keyword `name`, if it was given or has a default.
    pub fn get(&self, name: &str) -> Option<&Array> {
        let i = self.keywords.iter().position(|k| &*k.name == name)?;
        self.values[i].as_ref()
    }

    /// The value of keyword `name` as one string.
    ///
    /// # Errors
    ///
    /// [`Error::KeywordValue`] if it is not a single string.
    pub fn string(&self, name: &str) -> Result<Option<String>, Error> {
        self.scalar(name, "a string", |v| match v {
            dynd_kernels::Value::Str(s) => Some(s.clone()),
            _ => None,
        })
    }

    /// The value of keyword `name` as one integer.
    ///
    /// # Errors
    ///
    /// [`Error::KeywordValue`] if it is not a single integer.
    pub fn int(&self, name: &str) -> Result<Option<i64>, Error> {
        self.scalar(name, "an integer", |v| match v {
            dynd_kernels::Value::Int(i) => i64::try_from(*i).ok(),
            _ => None,
        })
    }

    /// The value of keyword `name` as one boolean.
    ///
    /// # Errors
    ///
    /// [`Error::KeywordValue`] if it is not a single boolean.
    pub fn bool(&self, name: &str) -> Result<Option<bool>, Error> {
        self.scalar(name, "a boolean", |v| match v {
            dynd_kernels::Value::Bool(b) => Some(*b),
            _ => None,
        })
    }

    fn scalar<T>(
        &self,
        name: &str,
        what: &str,
        f: impl Fn(&dynd_kernels::Value) -> Option<T>,
    ) -> Result<Option<T>, Error> {
        let Some(a) = self.get(name) else {
            return Ok(None);
        };
        let v = a.to_value();
        f(&v).map(Some).ok_or_else(|| Error::KeywordValue {
            name: self.name.to_string(),
            keyword: name.to_string(),
            expected: what.to_string(),
            found: format!("{a} ({})", a.ty()),
        })
    }
}

/// A keyword argument: its name, its element type, and its default (a
/// keyword with a default is optional). Keyword values are elementwise
/// arguments like the positional ones, after them in declared order.
#[derive(Clone, Debug)]
pub struct Keyword {
    pub(super) name: Arc<str>,
    pub(super) ty: Scalar,
    pub(super) default: Option<Array>,
    /// Whether it may be left out.
    pub(super) optional: bool,
    /// Whether its value is converted to `ty` (otherwise passed as given).
    pub(super) convert: bool,
}

impl Keyword {
    /// A keyword that must be given.
    pub fn required(name: &str, ty: Scalar) -> Keyword {
        Keyword {
            name: name.into(),
            ty,
            default: None,
            optional: false,
            convert: true,
        }
    }

    /// An optional keyword and its default value.
    pub fn optional(name: &str, ty: Scalar, default: Array) -> Keyword {
        Keyword {
            name: name.into(),
            ty,
            default: Some(default),
            optional: true,
            convert: true,
        }
    }

    /// An optional keyword of a [`Callable::function`] with no default
    /// (the function sees `None`), its value converted to `ty`, or passed
    /// as given when `ty` is `None` (the function checks it).
    pub fn maybe(name: &str, ty: Option<Scalar>) -> Keyword {
        Keyword {
            name: name.into(),
            ty: ty.unwrap_or(Scalar::Float64),
            default: None,
            optional: true,
            convert: ty.is_some(),
        }
    }

    /// The keyword's name.
    pub fn name(&self) -> &str {
        &self.name
    }
}
