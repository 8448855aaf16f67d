//! A kernel's failure on one element: what went wrong, and the index path
//! to the element.

use super::*;

/// A kernel failed on some element: what went wrong and where.
///
/// Kernels report failure by returning this, never by panicking. Dimension
/// kernels prepend the index they were at, so the error names the element:
///
/// ```
/// use dynd::nd::{KernelError, KernelErrorKind};
///
/// let e = KernelError::new(KernelErrorKind::RaggedRow { len: 3, expected: 4 }).at(2).at(0);
/// assert_eq!(e.path(), &[0, 2]);
/// assert_eq!(e.to_string(), "a ragged row of length 3 cannot broadcast to length 4, at index [0, 2]");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct KernelError {
    kind: KernelErrorKind,
    path: Vec<usize>,
    hint: Option<&'static str>,
}

/// What went wrong in a [`KernelError`].
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum KernelErrorKind {
    /// A value does not fit in the destination type.
    #[error("{value} is out of range for {dst} (assigning {src} to {dst})")]
    Overflow {
        /// The value, as text.
        value: String,
        /// The source type.
        src: Type,
        /// The destination type.
        dst: Type,
    },
    /// A value with a fractional part assigned to an integer type.
    #[error("{value} has a fractional part (assigning {src} to {dst}; error mode '{mode}' forbids truncation)")]
    Fractional {
        /// The value, as text.
        value: String,
        /// The source type.
        src: Type,
        /// The destination type.
        dst: Type,
        /// The error mode in force.
        mode: &'static str,
    },
    /// A value that the destination type cannot represent exactly.
    #[error(
        "{value} cannot be represented exactly (assigning {src} to {dst}; error mode 'inexact')"
    )]
    Inexact {
        /// The value, as text.
        value: String,
        /// The source type.
        src: Type,
        /// The destination type.
        dst: Type,
    },
    /// A ragged row whose length neither matches nor broadcasts.
    #[error("a ragged row of length {len} cannot broadcast to length {expected}")]
    RaggedRow {
        /// The row's length.
        len: usize,
        /// The length it had to have (or broadcast to).
        expected: usize,
    },
    /// A fixed dimension whose size neither matches nor broadcasts.
    #[error("a dimension of size {len} cannot broadcast to size {expected}")]
    DimSize {
        /// The dimension's size.
        len: usize,
        /// The size it had to have (or broadcast to).
        expected: usize,
    },
    /// NA assigned to a type without NA.
    #[error("NA cannot be assigned to {dst}, which is not an option type")]
    NotAvailable {
        /// The destination type.
        dst: Type,
    },
    /// Text that does not parse as the destination type.
    #[error("cannot parse {text:?} as {dst}")]
    Parse {
        /// The text.
        text: String,
        /// The destination type.
        dst: Type,
    },
    /// Text that does not fit a fixed string.
    #[error("{text:?} does not fit {dst}: {reason}")]
    DoesNotFit {
        /// The text.
        text: String,
        /// The destination type.
        dst: Type,
        /// Why not.
        reason: String,
    },
    /// Bytes that are not valid UTF-8 where text is needed.
    #[error("the bytes are not valid UTF-8 after byte {valid_up_to}")]
    Utf8 {
        /// The length of the valid prefix.
        valid_up_to: usize,
    },
    /// A failure inside a tuple or struct field.
    #[error("in field '{field}': {error}")]
    InField {
        /// The field's name (or position, for a tuple).
        field: String,
        /// The failure.
        error: Box<KernelError>,
    },
    /// Any other failure, in words.
    #[error("{0}")]
    Message(String),
}

impl KernelError {
    /// An error of the given kind at no particular index.
    pub fn new(kind: KernelErrorKind) -> KernelError {
        KernelError {
            kind,
            path: Vec::new(),
            hint: None,
        }
    }

    /// A [`KernelErrorKind::Message`] error.
    pub fn message(text: impl Into<String>) -> KernelError {
        KernelError::new(KernelErrorKind::Message(text.into()))
    }

    /// The same error, one dimension further out, at index `i`.
    #[must_use]
    pub fn at(mut self, i: usize) -> KernelError {
        self.path.insert(0, i);
        self
    }

    /// What went wrong.
    pub fn kind(&self) -> &KernelErrorKind {
        &self.kind
    }

    /// The index of the element, outermost dimension first (empty for a scalar).
    pub fn path(&self) -> &[usize] {
        &self.path
    }

    /// The same error with a suggestion of what to do, which the message
    /// ends with (the caller that knows the arguments adds it):
    ///
    /// ```
    /// use dynd::nd::{KernelError, KernelErrorKind};
    ///
    /// let e = KernelError::new(KernelErrorKind::RaggedRow { len: 3, expected: 4 })
    ///     .at(0)
    ///     .with_hint("reduce with keepdims=true");
    /// assert_eq!(e.hint(), Some("reduce with keepdims=true"));
    /// assert_eq!(
    ///     e.to_string(),
    ///     "a ragged row of length 3 cannot broadcast to length 4, at index [0]; \
    ///      hint: reduce with keepdims=true"
    /// );
    /// ```
    #[must_use]
    pub fn with_hint(mut self, hint: &'static str) -> KernelError {
        self.hint = Some(hint);
        self
    }

    /// The suggestion given with [`KernelError::with_hint`], if any.
    pub fn hint(&self) -> Option<&'static str> {
        self.hint
    }
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if !self.path.is_empty() {
            let idx: Vec<String> = self.path.iter().map(usize::to_string).collect();
            write!(f, ", at index [{}]", idx.join(", "))?;
        }
        if let Some(hint) = self.hint {
            write!(f, "; hint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for KernelError {}
