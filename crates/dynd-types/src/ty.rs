//! The type model: [`Type`], its [`TypeKind`]s and dimension kinds.

use std::fmt;
use std::sync::Arc;

use smallvec::SmallVec;

use crate::scalar::{Scalar, Temporal, TimeUnit};

#[allow(unsafe_code)]
mod repr;
use repr::{Node, Repr, View};

/// A name: a struct field, a keyword argument or a type variable.
///
/// Names are reference counted, so cloning a [`Type`] never copies them.
pub type Name = Arc<str>;

/// The largest number of dimensions one dimension list may have.
///
/// Powers such as `2**40 * int8` would otherwise expand without bound; the
/// parser and [`Type::dim`] reject a list that grows past this.
pub const MAX_DIMS: usize = 128;

/// A datashape type: cheap to clone (a builtin scalar is stored inline, any
/// other type is one reference count), comparable and hashable.
///
/// Build one by parsing (`"3 * var * int32".parse()`), from a [`Scalar`], with
/// the constructors [`Type::option`], [`Type::dim`] and [`Type::with_dims`], or
/// from a [`TypeKind`] with [`Type::new`], which checks the invariants the
/// parser checks.
///
/// ```
/// use dynd::ndt::{Type, Scalar};
///
/// let t: Type = "3 * var * ?int32".parse()?;
/// assert_eq!(t.ndim(), 2);
/// assert_eq!(t.dtype().to_string(), "?int32");
/// assert_eq!(Type::from(Scalar::Float64).to_string(), "float64");
/// # Ok::<(), dynd::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Type(Repr);

/// How many levels a type may nest (each dimension, option, field and
/// argument is a level): everything that walks a type — printing,
/// matching, dropping — recurses once per level, so this bounds the stack
/// it needs. The parser's own limits (64 brackets, 128 dimensions in a
/// list) can reach further; such a type is refused with this limit too.
pub const MAX_LEVELS: usize = 1024;

/// The levels of a kind: one more than its deepest child's.
fn levels(kind: &TypeKind) -> usize {
    let child = |t: &Type| t.levels();
    1 + match kind {
        TypeKind::Option(t) | TypeKind::Dim(_, t) => child(t),
        TypeKind::Tuple(t) => t.fields.iter().map(child).max().unwrap_or(0),
        TypeKind::Struct(s) => s.fields.iter().map(|(_, t)| child(t)).max().unwrap_or(0),
        TypeKind::Callable(c) => c
            .positional
            .iter()
            .chain(c.keywords.iter().map(|(_, t)| t))
            .chain([&c.ret])
            .map(child)
            .max()
            .unwrap_or(0),
        _ => 0,
    }
}

/// What a [`Type`] is. Returned by [`Type::kind`]; passed to [`Type::new`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TypeKind {
    /// A builtin scalar (`int32`, `complex[float64]`, `string`, ...).
    Scalar(Scalar),
    /// `fixed_string[size, 'encoding']`: `size` code units of `encoding`.
    FixedString {
        /// Number of code units.
        size: usize,
        /// The text encoding.
        encoding: Encoding,
    },
    /// `fixed_bytes[size, align=align]`.
    FixedBytes {
        /// Size in bytes.
        size: usize,
        /// Alignment in bytes: a power of two that divides `size`.
        align: usize,
    },
    /// `datetime[unit=…, tz="Zone"]`: instants, stored as a naive
    /// `datetime` of the unit holds them (ticks since the Unix epoch in
    /// UTC), whose calendar parts are read in the IANA time zone `tz`
    /// (Arrow's `Timestamp(unit, tz)`). A naive `datetime` (a wall time,
    /// no zone) is a [`Scalar`].
    DateTimeTz {
        /// The unit of a tick.
        unit: TimeUnit,
        /// The zone: an IANA name (`"Europe/Paris"`), `"UTC"`, or a fixed
        /// offset (`"+05:30"`).
        tz: Name,
    },
    /// A time type whose unit or zone is a variable, in a pattern:
    /// `timedelta[unit=U]`, `datetime[tz=TZ]`,
    /// `datetime[unit=U, tz="UTC"]`. The variable binds the unit (or the
    /// zone's name) of the type it meets, and used again must meet the same
    /// one; substitution puts it back. A parameter that is not given is the
    /// concrete type's: `datetime[tz=TZ]` has the unit `"us"` and
    /// `datetime[unit=U]` is naive.
    TimeVar {
        /// `time`, `datetime` or `timedelta`, with the unit it matches when
        /// `unit` is `None` (a fixed unit).
        of: Temporal,
        /// The variable the unit binds (`U`), or `None` for the fixed unit
        /// of `of`.
        unit: Option<Name>,
        /// The zone: `None` for a naive datetime (and for `time` and
        /// `timedelta`), else a fixed zone or a variable.
        tz: Option<ZoneParam>,
    },
    /// `categorical[T, index=I]`: dictionary-encoded values of the data
    /// type `T` (Arrow's `Dictionary(I, T)`): each element is an integer
    /// code of the scalar `I` (`int32` unless given: `int8` … `int64`,
    /// `uint8` … `uint64`) naming one of the categories, an array `K * T`
    /// the array holds once, beside its codes (in its arrmeta). `T` is a
    /// concrete data type without dimensions, NA or categories of its own.
    Categorical {
        /// The categories' data type.
        values: Type,
        /// The scalar of a code.
        index: Scalar,
    },
    /// `void`: no data.
    Void,
    /// `type`: a value that is itself a type.
    Type,
    /// `?T`: a value of `T` or NA. `T` is never itself an option; it may have
    /// dimensions (`?3 * int32`, an optional keyword `axis: ?var * int64`),
    /// and `3 * ?int32` is a different type (an array of optional values).
    Option(Type),
    /// `(T0, T1, ...)`: a tuple, possibly variadic (`(int32, ...)`).
    Tuple(Tuple),
    /// `{x: T0, y: T1, ...}`: a struct, possibly variadic.
    Struct(Struct),
    /// `D * T`: a dimension over an element type.
    Dim(Dim, Type),
    /// A data type variable `T`: binds one whole data type in a pattern.
    TypeVar(Name),
    /// `Any`: matches any type, dimensions included.
    Any,
    /// `Scalar`: matches any data type (any type that is not a dimension).
    AnyScalar,
    /// `(args, kw: T) -> R`: a callable signature.
    Callable(Signature),
}

/// The zone of a [`TypeKind::TimeVar`] pattern.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ZoneParam {
    /// A fixed zone: `tz="Europe/Paris"`.
    Zone(Name),
    /// A variable that binds the zone's name: `tz=TZ`.
    Var(Name),
}

/// The encoding of a `fixed_string`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Encoding {
    /// 7-bit ASCII, one byte a code unit (`'ascii'`, `'A'`).
    Ascii,
    /// UTF-8, one byte a code unit (`'utf8'`, `'U8'`); the default.
    Utf8,
    /// UTF-16, two bytes a code unit (`'utf16'`, `'U16'`).
    Utf16,
    /// UTF-32, four bytes a code unit (`'utf32'`, `'U32'`).
    Utf32,
}

impl Encoding {
    /// The canonical name, as printed inside `fixed_string[N, '...']`.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Ascii => "ascii",
            Encoding::Utf8 => "utf8",
            Encoding::Utf16 => "utf16",
            Encoding::Utf32 => "utf32",
        }
    }

    /// Bytes per code unit.
    pub fn unit_size(self) -> usize {
        match self {
            Encoding::Ascii | Encoding::Utf8 => 1,
            Encoding::Utf16 => 2,
            Encoding::Utf32 => 4,
        }
    }

    /// Looks up an encoding by its name or short code (`'A'`, `'U8'`, `'U16'`, `'U32'`).
    pub fn from_name(name: &str) -> Option<Encoding> {
        Some(match name {
            "ascii" | "A" => Encoding::Ascii,
            "utf8" | "U8" => Encoding::Utf8,
            "utf16" | "U16" => Encoding::Utf16,
            "utf32" | "U32" => Encoding::Utf32,
            _ => return None,
        })
    }
}

/// A tuple type's fields.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Tuple {
    /// The field types, in order.
    pub fields: Vec<Type>,
    /// `(T, ...)`: a pattern that also matches tuples with more fields.
    pub variadic: bool,
}

/// A struct type's fields.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Struct {
    /// The fields, in order; names are unique.
    pub fields: Vec<(Name, Type)>,
    /// `{x: T, ...}`: a pattern that also matches structs with more fields.
    pub variadic: bool,
}

/// A callable signature: positional and keyword arguments and a return type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Signature {
    /// Positional argument types, in order.
    pub positional: Vec<Type>,
    /// `(T, ...) -> R`: more positional arguments may follow.
    pub variadic_positional: bool,
    /// Keyword arguments; an option type `?T` marks an optional one.
    pub keywords: Vec<(Name, Type)>,
    /// `(kw: T, ...) -> R`: more keyword arguments may follow.
    pub variadic_keywords: bool,
    /// The return type.
    pub ret: Type,
}

/// One dimension of a [`TypeKind::Dim`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Dim {
    /// `5`: a fixed dimension of known size.
    Fixed(usize),
    /// `var`: a ragged dimension; each element has its own length.
    Var,
    /// `Fixed`: a fixed dimension of any size (a pattern).
    AnyFixed,
    /// `Dim`: any one dimension (a pattern).
    AnyDim,
    /// `N`: a dimension type variable; used twice it binds the same size.
    TypeVar(Name),
    /// `...` or `Dims...`: zero or more dimensions.
    Ellipsis(Option<Name>),
    /// `Fixed**N`, `D**N`, `3**N`: a dimension repeated a variable number of
    /// times. A power with a literal exponent is expanded when it is built.
    Power(Box<Dim>, Name),
}

impl Dim {
    /// Whether this dimension stands for exactly one concrete dimension.
    pub fn is_concrete(&self) -> bool {
        matches!(self, Dim::Fixed(_) | Dim::Var)
    }

    /// Whether this dimension may stand for a number of dimensions other than one.
    pub fn is_variadic(&self) -> bool {
        matches!(self, Dim::Ellipsis(_) | Dim::Power(..))
    }
}

/// One `TypeKind` per scalar, indexed by discriminant, so that an inline
/// scalar can hand out a `&TypeKind`.
static SCALAR_KINDS: [TypeKind; Scalar::ALL.len()] = [
    TypeKind::Scalar(Scalar::Bool),
    TypeKind::Scalar(Scalar::Int8),
    TypeKind::Scalar(Scalar::Int16),
    TypeKind::Scalar(Scalar::Int32),
    TypeKind::Scalar(Scalar::Int64),
    TypeKind::Scalar(Scalar::Int128),
    TypeKind::Scalar(Scalar::UInt8),
    TypeKind::Scalar(Scalar::UInt16),
    TypeKind::Scalar(Scalar::UInt32),
    TypeKind::Scalar(Scalar::UInt64),
    TypeKind::Scalar(Scalar::UInt128),
    TypeKind::Scalar(Scalar::Float16),
    TypeKind::Scalar(Scalar::Float32),
    TypeKind::Scalar(Scalar::Float64),
    TypeKind::Scalar(Scalar::Complex64),
    TypeKind::Scalar(Scalar::Complex128),
    TypeKind::Scalar(Scalar::String),
    TypeKind::Scalar(Scalar::Bytes),
    TypeKind::Scalar(Scalar::Date),
    TypeKind::Scalar(Scalar::TimeS),
    TypeKind::Scalar(Scalar::TimeMs),
    TypeKind::Scalar(Scalar::TimeUs),
    TypeKind::Scalar(Scalar::TimeNs),
    TypeKind::Scalar(Scalar::DateTimeS),
    TypeKind::Scalar(Scalar::DateTimeMs),
    TypeKind::Scalar(Scalar::DateTimeUs),
    TypeKind::Scalar(Scalar::DateTimeNs),
    TypeKind::Scalar(Scalar::TimeDeltaS),
    TypeKind::Scalar(Scalar::TimeDeltaMs),
    TypeKind::Scalar(Scalar::TimeDeltaUs),
    TypeKind::Scalar(Scalar::TimeDeltaNs),
];

impl Type {
    pub(crate) fn from_kind_unchecked(kind: TypeKind) -> Type {
        match kind {
            TypeKind::Scalar(s) => Type(Repr::scalar(s)),
            kind => Type(Repr::node(Node {
                levels: levels(&kind),
                kind,
            })),
        }
    }

    /// How many levels this type nests: 1 for a scalar, one more per
    /// dimension, option, field or argument around it (at most
    /// [`MAX_LEVELS`]).
    pub fn levels(&self) -> usize {
        match self.0.view() {
            View::Scalar(_) => 1,
            View::Node(node) => node.levels,
        }
    }

    /// What this type is.
    #[inline]
    pub fn kind(&self) -> &TypeKind {
        // A scalar's id indexes its kind directly (the table is in the
        // order of `Scalar::ALL`).
        match self.0.scalar_id() {
            Some(id) => &SCALAR_KINDS[id],
            None => match self.0.view() {
                View::Node(node) => &node.kind,
                View::Scalar(s) => &SCALAR_KINDS[s as usize],
            },
        }
    }

    /// The builtin scalar this type is, if it is one.
    #[inline]
    pub fn as_scalar(&self) -> Option<Scalar> {
        self.0.as_scalar()
    }

    /// Whether the outermost part of this type is a dimension.
    #[inline]
    pub fn is_dim(&self) -> bool {
        matches!(self.kind(), TypeKind::Dim(..))
    }

    /// The dimensions, outermost first, and the data type under them.
    ///
    /// ```
    /// let t: dynd::ndt::Type = "3 * var * int32".parse()?;
    /// let (dims, dtype) = t.split_dims();
    /// assert_eq!(dims.len(), 2);
    /// assert_eq!(dtype.to_string(), "int32");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn split_dims(&self) -> (SmallVec<[&Dim; 4]>, &Type) {
        let mut dims = SmallVec::new();
        let mut t = self;
        while let TypeKind::Dim(d, element) = t.kind() {
            dims.push(d);
            t = element;
        }
        (dims, t)
    }

    /// The dimensions, outermost first (none for a type that is not a
    /// dimension).
    pub fn dims(&self) -> impl Iterator<Item = &Dim> + '_ {
        let mut t = self;
        std::iter::from_fn(move || match t.kind() {
            TypeKind::Dim(d, element) => {
                t = element;
                Some(d)
            }
            _ => None,
        })
    }

    /// The data type under all dimensions (the type itself if it has none).
    #[inline]
    pub fn dtype(&self) -> &Type {
        let mut t = self;
        while let TypeKind::Dim(_, element) = t.kind() {
            t = element;
        }
        t
    }

    /// The number of dimensions written in the type. An ellipsis or a power
    /// with a variable exponent counts as zero: for a pattern this is the
    /// least number of dimensions it matches.
    pub fn ndim(&self) -> usize {
        self.dims().filter(|d| !d.is_variadic()).count()
    }

    /// The shape of a type whose dimensions are all fixed (`None` if any is
    /// `var` or symbolic).
    pub fn fixed_shape(&self) -> Option<Vec<usize>> {
        self.dims()
            .map(|d| match d {
                Dim::Fixed(n) => Some(*n),
                _ => None,
            })
            .collect()
    }

    /// The scalar whose values this type's elements are, bit for bit:
    /// the scalar itself, or for a zoned `datetime[tz=…]` the naive
    /// `datetime` of its unit (the UTC instants, as kernels read them).
    #[inline]
    pub fn element_scalar(&self) -> Option<Scalar> {
        match self.kind() {
            TypeKind::Scalar(s) => Some(*s),
            TypeKind::DateTimeTz { unit, .. } => {
                Some(crate::scalar::Temporal::DateTime(*unit).scalar())
            }
            _ => None,
        }
    }

    /// Whether this type is a pattern: it contains a type variable, a kind
    /// (`Any`, `Scalar`, `Dim`, `Fixed`), an ellipsis, a power or a variadic
    /// tuple, struct or callable. Only a type that is not symbolic describes
    /// data.
    pub fn is_symbolic(&self) -> bool {
        match self.kind() {
            TypeKind::Scalar(_)
            | TypeKind::FixedString { .. }
            | TypeKind::FixedBytes { .. }
            | TypeKind::DateTimeTz { .. }
            | TypeKind::Void
            | TypeKind::Type => false,
            TypeKind::Categorical { values, .. } => values.is_symbolic(),
            TypeKind::Option(t) => t.is_symbolic(),
            TypeKind::Tuple(t) => t.variadic || t.fields.iter().any(Type::is_symbolic),
            TypeKind::Struct(s) => s.variadic || s.fields.iter().any(|(_, t)| t.is_symbolic()),
            TypeKind::Dim(d, t) => !d.is_concrete() || t.is_symbolic(),
            TypeKind::TypeVar(_)
            | TypeKind::TimeVar { .. }
            | TypeKind::Any
            | TypeKind::AnyScalar => true,
            TypeKind::Callable(c) => {
                c.variadic_positional
                    || c.variadic_keywords
                    || c.positional.iter().any(Type::is_symbolic)
                    || c.keywords.iter().any(|(_, t)| t.is_symbolic())
                    || c.ret.is_symbolic()
            }
        }
    }

    /// Whether any dimension of this type (or of a field or argument) is `var`.
    pub fn has_var_dim(&self) -> bool {
        match self.kind() {
            TypeKind::Dim(d, t) => matches!(d, Dim::Var) || t.has_var_dim(),
            TypeKind::Option(t) => t.has_var_dim(),
            TypeKind::Tuple(t) => t.fields.iter().any(Type::has_var_dim),
            TypeKind::Struct(s) => s.fields.iter().any(|(_, t)| t.has_var_dim()),
            _ => false,
        }
    }
}

impl From<Scalar> for Type {
    fn from(s: Scalar) -> Type {
        Type(Repr::scalar(s))
    }
}

impl fmt::Debug for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Type(\"{self}\")")
    }
}

/// Displays a single [`Dim`] as datashape text.
pub(crate) struct DimDisplay<'a>(pub(crate) &'a Dim);

impl fmt::Display for DimDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Dim::Fixed(n) => write!(f, "{n}"),
            Dim::Var => f.write_str("var"),
            Dim::AnyFixed => f.write_str("Fixed"),
            Dim::AnyDim => f.write_str("Dim"),
            Dim::TypeVar(n) => f.write_str(n),
            Dim::Ellipsis(None) => f.write_str("..."),
            Dim::Ellipsis(Some(n)) => write!(f, "{n}..."),
            Dim::Power(base, exp) => write!(f, "{}**{exp}", DimDisplay(base)),
        }
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        DimDisplay(self).fmt(f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalar_kinds_are_indexed_by_discriminant() {
        for s in Scalar::ALL {
            assert_eq!(Type::from(s).kind(), &TypeKind::Scalar(s));
        }
    }
}
