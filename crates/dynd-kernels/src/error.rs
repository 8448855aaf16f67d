//! Errors of the kernel layer.

use std::fmt;

use dynd_types::Type;

/// A kernel failed on some element: what went wrong and where.
///
/// Kernels report failure by returning this, never by panicking. Dimension
/// kernels prepend the index they were at, so the error names the element:
///
/// ```
/// use dynd_kernels::{KernelError, KernelErrorKind};
///
/// let e = KernelError::new(KernelErrorKind::RaggedRow { len: 3, expected: 4 }).at(2).at(0);
/// assert_eq!(e.path(), &[0, 2]);
/// assert_eq!(e.to_string(), "a ragged row of length 3 cannot broadcast to length 4, at index [0, 2]");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct KernelError {
    kind: KernelErrorKind,
    path: Vec<usize>,
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
}

impl fmt::Display for KernelError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.kind)?;
        if !self.path.is_empty() {
            let idx: Vec<String> = self.path.iter().map(usize::to_string).collect();
            write!(f, ", at index [{}]", idx.join(", "))?;
        }
        Ok(())
    }
}

impl std::error::Error for KernelError {}

impl Error {
    /// [`Error::Alloc`] for `bytes`, saturating at `u64::MAX`.
    pub(crate) fn alloc(bytes: u128) -> Error {
        Error::Alloc {
            bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
        }
    }
}

/// Any error of `dynd-kernels`.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A kernel failed on an element.
    #[error(transparent)]
    Kernel(#[from] KernelError),
    /// A type error (parse, broadcast, layout).
    #[error(transparent)]
    Type(#[from] dynd_types::Error),
    /// A datashape did not parse.
    #[error(transparent)]
    Parse(#[from] dynd_types::ParseError),
    /// JSON text did not parse, or does not fit the type.
    #[error("invalid JSON value at byte {offset}: {message}")]
    Json {
        /// Byte offset in the JSON text.
        offset: usize,
        /// What was wrong.
        message: String,
    },
    /// A value does not fit the requested type or shape.
    #[error("{what}")]
    Value {
        /// What was wrong.
        what: String,
    },
    /// An operation this layer does not support for these types (yet).
    #[error("{operation} is not supported for {ty}")]
    Unsupported {
        /// What was attempted.
        operation: &'static str,
        /// The type.
        ty: Type,
    },
    /// A source dimension that does not broadcast to the destination's.
    #[error(
        "cannot assign {src} to {dst}: source dimension {axis} ({src_dim}) does not \
         broadcast to the destination's ({dst_dim}); the source broadcasts to the \
         destination, never the reverse"
    )]
    Broadcast {
        /// The destination dimension position, 0 = outermost.
        axis: usize,
        /// The source's dimension there (or `none`).
        src_dim: String,
        /// The destination's dimension there.
        dst_dim: String,
        /// The source type.
        src: Type,
        /// The destination type.
        dst: Type,
    },
    /// A write to a read-only array.
    #[error("the array is read-only")]
    ReadOnly,
    /// A typed view of the wrong element type.
    #[error("the array's data type is {actual}, not {requested}")]
    DtypeMismatch {
        /// The array's data type.
        actual: Type,
        /// The requested one.
        requested: Type,
    },
    /// An index out of range.
    #[error("index {index} is out of bounds for dimension {axis} of size {size}")]
    Index {
        /// The index given.
        index: i64,
        /// The dimension.
        axis: usize,
        /// Its size.
        size: usize,
    },
    /// Parts that do not describe an array: an element, row or string
    /// reaches outside its memory block, or the arrmeta does not fit the
    /// type. Every constructor checks this (see the `validate` module).
    #[error("invalid array: {what}")]
    Layout {
        /// Which level reaches out of which block.
        what: String,
    },
    /// Memory the allocator could not give, or a size no allocation can
    /// have. Never an abort: the caller gets this error.
    #[error("cannot allocate {bytes} bytes")]
    Alloc {
        /// The bytes asked for (may exceed the address space; `u64::MAX`
        /// stands for more).
        bytes: u64,
    },
    /// A size or position that overflows, computed from sizes a caller gave.
    #[error("{what}")]
    Size {
        /// Which sizes, and what they overflow.
        what: String,
    },
}
