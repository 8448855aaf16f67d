//! Errors of the callable layer.

use dynd_types::Type;

fn list(types: &[Type]) -> String {
    types
        .iter()
        .map(|t| t.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

fn names(valid: &[String]) -> String {
    if valid.is_empty() {
        "none".into()
    } else {
        valid.join(", ")
    }
}

fn did_you_mean(suggestions: &[String]) -> String {
    match suggestions {
        [] => String::new(),
        [one] => format!(" (did you mean '{one}'?)"),
        more => format!(
            " (did you mean one of {}?)",
            more.iter()
                .map(|s| format!("'{s}'"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn lines(types: &[Type]) -> String {
    types.iter().map(|t| format!("\n  {t}")).collect()
}

/// Any error of `dynd-arrfunc`.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An array or kernel error (a value that does not fit, a ragged row...).
    /// Boxed, as are the other large payloads, so that `Result<_, Error>`
    /// stays small (callers' closures return it).
    #[error(transparent)]
    Kernel(Box<dynd_kernels::Error>),
    /// A type error (broadcasting, promotion, parsing).
    #[error(transparent)]
    Type(Box<dynd_types::Error>),
    /// No overload accepts the arguments' data types.
    #[error(
        "{name}: no overload accepts ({}); the signatures are:{}",
        list(args),
        lines(candidates)
    )]
    NoMatch {
        /// The callable.
        name: String,
        /// The arguments' data types.
        args: Vec<Type>,
        /// Every signature of the callable.
        candidates: Vec<Type>,
    },
    /// Several overloads fit equally well.
    #[error(
        "{name}: the call with ({}) is ambiguous between:{}",
        list(args),
        lines(candidates)
    )]
    Ambiguous {
        /// The callable.
        name: String,
        /// The arguments' data types.
        args: Vec<Type>,
        /// The tied signatures.
        candidates: Vec<Type>,
    },
    /// Two overloads take the same argument types (found when the set is built).
    #[error("{name}: overloads {first} and {second} take the same argument types")]
    DuplicateOverload {
        /// The callable.
        name: String,
        /// One signature.
        first: Type,
        /// The other.
        second: Type,
    },
    /// The wrong number of arguments.
    #[error("{name} takes {expected} argument(s), {found} given")]
    Arity {
        /// The callable.
        name: String,
        /// How many it takes.
        expected: usize,
        /// How many were given.
        found: usize,
    },
    /// An argument's core dimensions do not match the signature.
    #[error("argument {arg} ({ty}) does not match parameter {param}: {mismatch}")]
    Mismatch {
        /// The argument's index.
        arg: usize,
        /// The argument's type.
        ty: Type,
        /// The parameter's type.
        param: Type,
        /// Why.
        mismatch: Box<dynd_types::Mismatch>,
    },
    /// An argument with fewer dimensions than its parameter's core dimensions.
    #[error("argument {arg} ({ty}) has {ndim} dimension(s), but parameter {param} needs at least {needed}")]
    TooFewDims {
        /// The argument's index.
        arg: usize,
        /// The argument's type.
        ty: Type,
        /// The parameter's type.
        param: Type,
        /// The argument's number of dimensions.
        ndim: usize,
        /// The parameter's core dimensions.
        needed: usize,
    },
    /// A builtin name that names no builtin.
    #[error("no builtin is called '{name}'{}", did_you_mean(suggestions))]
    UnknownFunction {
        /// The name asked for.
        name: String,
        /// Builtin names close to it, closest first.
        suggestions: Vec<String>,
    },
    /// A signature that is not a callable type.
    #[error("{ty} is not a callable signature")]
    NotASignature {
        /// The type.
        ty: Type,
    },
    /// A keyword argument the callable does not take.
    #[error(
        "{name}: unknown keyword argument '{keyword}' (valid keywords: {})",
        names(valid)
    )]
    UnknownKeyword {
        /// The callable.
        name: String,
        /// The keyword given.
        keyword: String,
        /// The keywords it takes.
        valid: Vec<String>,
    },
    /// A keyword argument given twice.
    #[error("{name}: keyword argument '{keyword}' given more than once")]
    DuplicateKeyword {
        /// The callable.
        name: String,
        /// The keyword.
        keyword: String,
    },
    /// A required keyword argument not given.
    #[error(
        "{name}: missing required keyword argument '{keyword}' (valid keywords: {})",
        names(valid)
    )]
    MissingKeyword {
        /// The callable.
        name: String,
        /// The missing keyword.
        keyword: String,
        /// The keywords it takes.
        valid: Vec<String>,
    },
    /// A keyword value that is not what the keyword takes.
    #[error("{name}: keyword argument '{keyword}' must be {expected}, not {found}")]
    KeywordValue {
        /// The callable.
        name: String,
        /// The keyword.
        keyword: String,
        /// What it takes.
        expected: String,
        /// What was given.
        found: String,
    },
    /// A function callable whose signature and declared keywords differ.
    #[error("{name}: the signature names keywords ({signature}), but ({declared}) are declared")]
    KeywordMismatch {
        /// The callable.
        name: String,
        /// The keywords the signature names.
        signature: String,
        /// The keywords declared.
        declared: String,
    },
    /// A question about result types that only running can answer.
    #[error("{name}: the result type depends on the argument values (call it to find out)")]
    ValueDependent {
        /// The callable.
        name: String,
    },
    /// An `out` array that does not fit the result.
    #[error("{name}: the out array has type {out}, but the result has type {result}")]
    Out {
        /// The callable.
        name: String,
        /// The out array's type.
        out: Type,
        /// The result's type.
        result: Type,
    },
}

impl From<dynd_kernels::Error> for Error {
    fn from(e: dynd_kernels::Error) -> Error {
        Error::Kernel(Box::new(e))
    }
}

impl From<dynd_types::Error> for Error {
    fn from(e: dynd_types::Error) -> Error {
        Error::Type(Box::new(e))
    }
}
