//! What exactly was wrong, for the [`Error`](crate::Error) variants that
//! cover a family of failures: a value that does not fit its type, row
//! offsets that do not describe rows, parts of an array that do not fit
//! their memory, an Arrow array dynd cannot take. Each case carries the
//! values involved, so a caller can match on it as well as print it.

use crate::ty::Type;

/// Why a value (a value tree, JSON text, nested Rust data) does not fit the type asked for; see
/// [`Error::FromValue`](crate::Error::FromValue), which adds where.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ValueProblem {
    /// `null` where the type has no NA.
    #[error("null (NA) cannot be stored in {ty}, which is not an option type")]
    Null {
        /// The type at that place.
        ty: Type,
    },
    /// A value of the wrong kind (a string for a number, a scalar where a
    /// list is needed).
    #[error("{ty} needs {expected}, not {value}")]
    Kind {
        /// The value, printed.
        value: Box<str>,
        /// What the type takes there.
        expected: &'static str,
        /// The type at that place.
        ty: Type,
    },
    /// A number that the type cannot hold.
    #[error("{value} {why} {ty}")]
    Range {
        /// The value, printed.
        value: Box<str>,
        /// `is out of range for`, `has a fractional part for`, ….
        why: &'static str,
        /// The type at that place.
        ty: Type,
    },
    /// Text that does not fit a fixed-size string type.
    #[error("{value} does not fit {ty}: {reason}")]
    Text {
        /// The value, printed.
        value: Box<str>,
        /// The fixed string type.
        ty: Type,
        /// Why not (too long, not encodable).
        reason: Box<str>,
    },
    /// A value that is not one of a time type's (`"2023-02-29"` as a
    /// `date`).
    #[error("{value} is not a {ty}: {reason}")]
    Time {
        /// The value, printed.
        value: Box<str>,
        /// The time type.
        ty: Type,
        /// Why not.
        reason: Box<str>,
    },
    /// A list whose length is not the fixed dimension's size.
    #[error("a list of length {len} cannot be a dimension of size {size} (type {ty})")]
    Length {
        /// The list's length.
        len: usize,
        /// The dimension's size.
        size: usize,
        /// The type at that place.
        ty: Type,
    },
    /// An object with a field the struct type does not have.
    #[error("{ty} has no field \"{field}\"")]
    UnknownField {
        /// The field given.
        field: Box<str>,
        /// The struct type.
        ty: Type,
    },
    /// An object without one of the struct type's fields.
    #[error("field \"{field}\" of {ty} is missing")]
    MissingField {
        /// The missing field.
        field: Box<str>,
        /// The struct type.
        ty: Type,
    },
    /// A list whose items have no common type.
    #[error("a list mixes {first} and {second}, which have no common type")]
    Mixed {
        /// One kind of item (`int64 values`, `non-finite floats`, `lists`,
        /// `objects`).
        first: Box<str>,
        /// The other.
        second: Box<str>,
    },
    /// A value nested deeper than any type can be.
    #[error("the value nests {depth} levels deep; a type holds at most {max}")]
    TooDeep {
        /// Its depth.
        depth: usize,
        /// The deepest a type may be.
        max: usize,
    },
    /// Flat data whose length is not the shape's element count.
    #[error("shape {shape:?} holds {} elements, but {given} were given", count.map_or("too many".to_string(), |c| c.to_string()))]
    Count {
        /// The shape.
        shape: Vec<usize>,
        /// Its element count (`None` when that overflows).
        count: Option<usize>,
        /// The number of elements given.
        given: usize,
    },
    /// A row of nested data whose length is not the type's fixed
    /// dimension there.
    #[error("row {row} of dimension {dim} has {len} element(s) where {ty} has a fixed dimension of {size}")]
    RowLength {
        /// The dimension (0 = outermost).
        dim: usize,
        /// The row in it.
        row: usize,
        /// Its length.
        len: usize,
        /// The fixed dimension's size.
        size: usize,
        /// The type asked for.
        ty: Type,
    },
    /// Nested data with another number of dimensions than the type.
    #[error("the value has {found} dimension(s) ({value_type}) but {ty} has {expected}")]
    Rank {
        /// The value's dimensions.
        found: usize,
        /// The value's own type.
        value_type: Type,
        /// The type asked for.
        ty: Type,
        /// Its dimensions.
        expected: usize,
    },
}

/// The rule of [`Type::new`](crate::Type::new) a type breaks; see
/// [`Error::Invalid`](crate::Error::Invalid). The parser makes the same
/// checks, with positions.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum TypeRule {
    /// Nested deeper than a type may be.
    #[error("a type may nest at most {max} levels")]
    TooDeep {
        /// The deepest a type may be.
        max: usize,
    },
    /// More dimensions than a type may have.
    #[error("more than {max} dimensions")]
    TooManyDims {
        /// The most a type may have.
        max: usize,
    },
    /// A field or keyword name given twice.
    #[error("duplicate {what} name '{name}'")]
    DuplicateName {
        /// `field` or `keyword`.
        what: &'static str,
        /// The name.
        name: crate::Name,
    },
    /// `??T`.
    #[error("an option of an option ('??T') is not a type")]
    OptionOfOption,
    /// Variadic keywords without a named one, in a callable that is not
    /// variadic in its positional arguments.
    #[error("a callable with variadic keywords and no named keyword must also be variadic in its positional arguments ('(..., ...) -> R')")]
    VariadicKeywords,
    /// `fixed_string[0]`.
    #[error("a fixed_string holds at least 1 character")]
    EmptyFixedString,
    /// A `datetime` zone that is not spelled as one.
    #[error("{0}")]
    ZoneName(String),
    /// A [`TypeKind::TimeVar`](crate::TypeKind::TimeVar) that is not a time
    /// pattern: says why.
    #[error("{0}")]
    TimeVar(&'static str),
    /// A `categorical` whose index or categories' type it cannot have:
    /// says which.
    #[error("{0}")]
    Categorical(&'static str),
    /// A `fixed_bytes` alignment that is not 1, 2, 4, 8 or 16.
    #[error("fixed_bytes alignment {align} is not a power of two from 1 to 16")]
    FixedBytesAlign {
        /// The alignment.
        align: usize,
    },
    /// A `fixed_bytes` size that is not a multiple of its alignment.
    #[error("fixed_bytes size {size} is not a multiple of its alignment {align}")]
    FixedBytesSize {
        /// The size.
        size: usize,
        /// The alignment.
        align: usize,
    },
    /// Two ellipses (or variable powers) in one dimension list.
    #[error("a dimension list may hold one ellipsis or variable power at most")]
    TwoEllipses,
    /// A name used as a type variable that cannot be one.
    #[error("'{name}' is not a type variable name (a capitalised identifier other than Fixed, Any, Scalar or Dim)")]
    NotATypeVar {
        /// The name.
        name: crate::Name,
    },
    /// `N**N`.
    #[error("'{name}' cannot be both a power's base and its exponent")]
    PowerBaseIsExponent {
        /// The name.
        name: crate::Name,
    },
    /// A power whose base is not a fixed size, `Fixed`, `var` or a
    /// variable.
    #[error("'{base}' cannot be the base of a power")]
    PowerBase {
        /// The base.
        base: crate::Dim,
    },
    /// A type variable bound to the wrong sort of thing (a dimension for a
    /// type, ...), found when substituting.
    #[error("'{name}' is used as {wanted} in {ty} but is bound to '{binding}'")]
    WrongSort {
        /// The variable.
        name: crate::Name,
        /// What it is used as.
        wanted: &'static str,
        /// The type substituted into.
        ty: Type,
        /// What it is bound to.
        binding: crate::Binding,
    },
    /// A type whose data size does not fit in `usize`.
    #[error("the data size of {ty} overflows usize")]
    DataSize {
        /// The type.
        ty: Type,
    },
}

/// Why a core signature does not fit the function over core dimensions it
/// is given for; see [`Error::CoreSignature`](crate::Error::CoreSignature).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SignatureProblem {
    /// Keywords or variadic parameters, which a core function does not take.
    #[error("only positional parameters are supported")]
    Keywords,
    /// Another number of parameters than the function takes.
    #[error("has {params} parameters, the function takes {takes}")]
    Arity {
        /// The signature's parameters.
        params: usize,
        /// The function's.
        takes: usize,
    },
    /// A parameter (or the result, `None`) of another data type than the
    /// function's.
    #[error("{} has data type {found}, the function's is {expected}", which(*param))]
    DataType {
        /// The parameter, or `None` for the result.
        param: Option<usize>,
        /// The signature's data type there.
        found: Type,
        /// The function's.
        expected: crate::Scalar,
    },
    /// A core dimension that is not a fixed size, `Fixed` or a size
    /// variable.
    #[error("{} has dimension {dim}; core dimensions are fixed sizes, `Fixed` or size variables", which(*param))]
    Dimension {
        /// The parameter, or `None` for the result.
        param: Option<usize>,
        /// The dimension.
        dim: crate::Dim,
    },
    /// An argument with fewer dimensions than its core.
    #[error("{ty} has {ndim} dimensions, the core needs {core}")]
    TooFewDims {
        /// The argument's type.
        ty: Type,
        /// Its dimensions.
        ndim: usize,
        /// The core's.
        core: usize,
    },
}

fn which(param: Option<usize>) -> String {
    match param {
        Some(i) => format!("parameter {i}"),
        None => "the result".into(),
    }
}

/// Why row offsets (or starts and lengths) do not describe rows of the
/// values; see [`Error::Offsets`](crate::Error::Offsets).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum OffsetsProblem {
    /// No offsets at all (rows + 1 are needed).
    #[error("the offsets are empty; rows + 1 of them are needed (a single 0 for no rows)")]
    Empty,
    /// A first offset below zero.
    #[error("offsets[0] is {first}; offsets must not be negative")]
    Negative {
        /// The first offset.
        first: i128,
    },
    /// An offset smaller than the one before it.
    #[error("offsets[{index}] = {value} is less than offsets[{}] = {previous}; offsets must not decrease", index - 1)]
    Decreasing {
        /// Its position.
        index: usize,
        /// Its value.
        value: i128,
        /// The offset before it.
        previous: i128,
    },
    /// The last offset past the end of the values.
    #[error("offsets[{index}] = {value} is past the end of the {values} values")]
    PastEnd {
        /// Its position.
        index: usize,
        /// Its value.
        value: i128,
        /// The number of values.
        values: usize,
    },
    /// Different numbers of starts and lengths.
    #[error("{starts} starts but {lengths} lengths; there must be one of each per row")]
    Counts {
        /// The number of starts.
        starts: usize,
        /// The number of lengths.
        lengths: usize,
    },
    /// A row (start, length) not inside the values.
    #[error("row {row} (start {start}, length {length}) is not inside the {values} values")]
    Row {
        /// The row.
        row: usize,
        /// Its start.
        start: i128,
        /// Its length.
        length: i128,
        /// The number of values.
        values: usize,
    },
    /// Levels (list lengths per dimension, and values) that disagree:
    /// `dim` is the dimension, or the number of dimensions for the values.
    #[error("at dimension {dim}: {problem}")]
    Levels {
        /// The dimension.
        dim: usize,
        /// What disagrees.
        problem: String,
    },
    /// More rows than an array can describe.
    #[error("{rows} rows are too many")]
    TooManyRows {
        /// The number of rows.
        rows: usize,
    },
    /// Rows that do not sit next to each other in their values (a view
    /// with a step over them).
    #[error("the rows of {ty} are not contiguous (elements {stride} bytes apart); use to_nested or to_offsets to copy them")]
    NotContiguous {
        /// The array's type.
        ty: Type,
        /// The distance between elements.
        stride: isize,
    },
}

/// Why an array's parts do not fit its memory or its type; see
/// [`Error::Layout`](crate::Error::Layout). Every constructor checks
/// these, so they reach a caller only from parts it assembled itself.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutProblem {
    /// Elements (or rows, or strings) that reach outside their block.
    #[error("the {part} of {ty} reach bytes {start}..{end}, outside their block of {block} bytes")]
    Outside {
        /// Which part (`elements`, `rows`, …).
        part: &'static str,
        /// The type.
        ty: Type,
        /// The first byte reached.
        start: i128,
        /// One past the last byte reached.
        end: i128,
        /// The block's size.
        block: usize,
    },
    /// Elements not aligned for their type.
    #[error("the {part} of {ty} are not aligned to {align} bytes")]
    Misaligned {
        /// Which part.
        part: &'static str,
        /// The type.
        ty: Type,
        /// The alignment needed.
        align: usize,
    },
    /// Arrmeta of another shape than the type.
    #[error("{record} arrmeta record does not describe {ty}")]
    Arrmeta {
        /// The kind of record found.
        record: &'static str,
        /// The type.
        ty: Type,
    },
    /// An element position that overflows.
    #[error("an element position overflows")]
    Overflow,
    /// A view or its rows starting before their block.
    #[error("{part} of {ty} starts before its block")]
    BeforeBlock {
        /// Which part (`a view`, `a row`).
        part: &'static str,
        /// The type.
        ty: Type,
    },
    /// A `var` level marked packed whose rows do not run end to end.
    #[error("the rows of {ty} are marked packed, but row {row} (in C order of the dimensions above) starts at byte {start} of its values, not at {expected} where the rows before it end")]
    NotPacked {
        /// The `var` level's type (`var * T`).
        ty: Type,
        /// The first row out of place, counted over the level's rows in C order.
        row: usize,
        /// Its start, in bytes from the level's offset.
        start: i64,
        /// Where the rows before it end.
        expected: i128,
    },
    /// A `categorical` code that names no category.
    #[error("code {code} of {ty} names no category: there are {categories} (codes 0 to {categories} - 1)")]
    Code {
        /// The categorical type.
        ty: Type,
        /// The code found.
        code: i128,
        /// How many categories there are.
        categories: usize,
    },
    /// Data an operation read that lies outside its block.
    #[error("{op}: {part} lies outside its block")]
    Read {
        /// The operation.
        op: Box<str>,
        /// What was read (`a var row's pair`, `an element`).
        part: &'static str,
    },
}

/// Why an Arrow array or type has no dynd counterpart (or the reverse); see
/// [`Error::Arrow`](crate::Error::Arrow).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ArrowProblem {
    /// An Arrow type with no dynd equivalent.
    #[error("the Arrow type {arrow} has no dynd equivalent")]
    NoDyndType {
        /// The Arrow type, printed.
        arrow: Box<str>,
    },
    /// A dynd type with no Arrow equivalent.
    #[error("{ty} has no Arrow equivalent")]
    NoArrowType {
        /// The dynd type.
        ty: Type,
    },
    /// A fixed-size list array with fewer values than its lists need.
    #[error("a fixed-size list array of {lists} lists of {size} has {values} values")]
    FixedSizeValues {
        /// The number of lists.
        lists: usize,
        /// Their size.
        size: usize,
        /// The number of values.
        values: usize,
    },
    /// A buffer shorter than its array's values.
    #[error("a {arrow} array of {len} values has a buffer of {bytes} bytes")]
    Buffer {
        /// The Arrow type, printed.
        arrow: Box<str>,
        /// The number of values.
        len: usize,
        /// The buffer's length.
        bytes: usize,
    },
    /// Null lists, which dynd cannot hold (it has no `?var`).
    #[error("the {arrow} array has {count} null list(s), the first at row {first}; dynd has no optional dimensions (`?var`): replace them (by empty lists, say) first")]
    NullLists {
        /// The Arrow type, printed.
        arrow: Box<str>,
        /// How many.
        count: usize,
        /// The first one's row.
        first: usize,
    },
    /// Columns of different lengths.
    #[error("column '{column}' has {len} rows where column '{other}' has {expected}")]
    ColumnLength {
        /// The column.
        column: Box<str>,
        /// Its length.
        len: usize,
        /// The column it was compared with.
        other: Box<str>,
        /// That column's length.
        expected: usize,
    },
    /// An error arrow-rs returned, in its words.
    #[error("{0}")]
    Arrow(Box<str>),
}

/// Why `categorical[values, index=index]` is not a type, if it is not:
/// the index is an integer scalar, the categories a data type without
/// dimensions, NA or categories of its own.
pub(crate) fn categorical_problem(
    values: &crate::ty::Type,
    index: crate::scalar::Scalar,
) -> Option<&'static str> {
    use crate::ScalarCategory::{SignedInt, UnsignedInt};
    if !matches!(index.category(), SignedInt | UnsignedInt) {
        return Some("a categorical's index is an integer type (int8 … int64, uint8 … uint64)");
    }
    use crate::ty::TypeKind;
    match values.kind() {
        TypeKind::Dim(..) => Some("a categorical's categories are a data type, without dimensions"),
        TypeKind::Option(_) => Some("a categorical's categories are not NA (make the categorical optional: ?categorical[T])"),
        TypeKind::Categorical { .. } => Some("a categorical's categories are not categorical themselves"),
        TypeKind::Callable(_) | TypeKind::Void | TypeKind::Type | TypeKind::Any => {
            Some("a categorical's categories are values of a data type")
        }
        _ => None,
    }
}
