//! The one error type of dynd-rs, from every layer: types, arrays and
//! kernels, callables; and the errors it carries (a datashape that did not
//! parse, a kernel's failure on an element).

use std::fmt;

use crate::ty::{Dim, Name, Type, TypeKind};

mod kernel;
pub use kernel::{KernelError, KernelErrorKind};
mod parse_error;
pub use parse_error::{ParseError, ParseErrorKind};

/// Any error of dynd-rs: every layer (types, arrays and kernels,
/// callables) returns this one type, so `?` needs no conversion between
/// them. Each variant carries the values involved (types, shapes, axes,
/// indexes, names), and its message says what was wrong, where, and what
/// was expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The datashape text did not parse.
    #[error(transparent)]
    Parse(Box<ParseError>),
    /// A [`crate::TypeKind`] broke an invariant of [`Type::new`].
    #[error("invalid type: {0}")]
    Invalid(Box<crate::TypeRule>),
    /// Two dimensions could not be broadcast together.
    #[error(
        "cannot broadcast dimension {axis} of the result: argument {} has {} \
         ({}) and argument {} has {} ({})",
        args.0, DimSize(&dims.0), types.0, args.1, DimSize(&dims.1), types.1
    )]
    Broadcast {
        /// The dimension position in the broadcast result, 0 = outermost.
        axis: usize,
        /// The indexes of the two arguments.
        args: (usize, usize),
        /// The two dimensions that disagree.
        dims: Box<(Dim, Dim)>,
        /// The two argument types.
        types: (Type, Type),
    },
    /// Strict broadcasting: an argument with dimensions has fewer than another.
    #[error(
        "strict broadcasting: argument {arg} ({ty}) has {ndim} dimension(s) but \
         {expected} are needed; only a 0-d value extends to more dimensions"
    )]
    StrictRank {
        /// The index of the argument.
        arg: usize,
        /// Its type.
        ty: Type,
        /// Its number of dimensions.
        ndim: usize,
        /// The number of dimensions of the result.
        expected: usize,
    },
    /// An operation that needs a concrete type was given a pattern.
    #[error("{operation} needs a concrete type, but {ty} is symbolic ({reason})")]
    Symbolic {
        /// What was attempted.
        operation: &'static str,
        /// The symbolic type.
        ty: Type,
        /// Which part of it is symbolic.
        reason: String,
    },
    /// No common type exists for two types.
    #[error("no common type for {lhs} and {rhs}")]
    Promote {
        /// The first type.
        lhs: Type,
        /// The second type.
        rhs: Type,
    },
    /// A type variable had no binding during substitution.
    #[error("type variable '{name}' is not bound (substituting into {ty})")]
    Unbound {
        /// The variable.
        name: Name,
        /// The type being substituted into.
        ty: Type,
    },
    /// Broadcasting was asked for no arguments.
    #[error("broadcasting needs at least one type")]
    NoArguments,

    // ---- arrays and kernels ----
    /// A kernel failed on an element.
    #[error(transparent)]
    Kernel(Box<KernelError>),
    /// JSON text did not parse, or does not fit the type.
    #[error("invalid JSON value at byte {offset}: {message}")]
    Json {
        /// Byte offset in the JSON text.
        offset: usize,
        /// What was wrong.
        message: String,
    },
    /// A value (a value tree, JSON, nested Rust data) that does not fit
    /// the type asked for.
    #[error("{problem}{}", at_index(path))]
    FromValue {
        /// What was wrong.
        problem: Box<crate::ValueProblem>,
        /// Where: the list positions (and field positions) down to it.
        path: Vec<usize>,
    },
    /// Row offsets, or row starts and lengths, that do not describe rows
    /// of the values.
    #[error("{op}: {problem}")]
    Offsets {
        /// The operation.
        op: &'static str,
        /// What was wrong.
        problem: Box<crate::OffsetsProblem>,
    },
    /// An Arrow array or type dynd cannot take, or a dynd array Arrow
    /// cannot.
    #[error("{op}: {problem}{}", at_field(path))]
    Arrow {
        /// The conversion.
        op: &'static str,
        /// What was wrong.
        problem: Box<crate::ArrowProblem>,
        /// Where, in a nested type: `column 'x'.item`.
        path: Box<str>,
    },
    /// A field a record or tuple type does not have.
    #[error("{ty} has no field {field}; {}", list_fields(fields))]
    NoField {
        /// The record or tuple type.
        ty: Type,
        /// The field asked for: a quoted name or a position.
        field: Box<str>,
        /// The fields it has: names, or positions for a tuple.
        fields: Vec<Box<str>>,
    },
    /// Fields of a record array held as columns whose dimensions differ:
    /// each field's array must have the record array's dimensions.
    #[error(
        "the fields of a record array need the same dimensions: field {field} is {ty} \
         where field {first} is {first_ty}{}",
        row.as_deref().map(|(at, n, m)| format!(
            " (row {at:?} has {n} element(s) in field {field} and {m} in field {first})"
        )).unwrap_or_default()
    )]
    ColumnShape {
        /// The field that differs (quoted name or position).
        field: Box<str>,
        /// Its array's type.
        ty: Type,
        /// The first field.
        first: Box<str>,
        /// The first field's array's type.
        first_ty: Type,
        /// Where `var` rows differ: the row's index and the two lengths.
        row: Option<Box<(Vec<usize>, usize, usize)>>,
    },
    /// An operation given an array of a kind it does not take.
    #[error("{op} needs {expected}, not {found}")]
    NeedsArray {
        /// The operation.
        op: Box<str>,
        /// What it takes.
        expected: &'static str,
        /// The array's type.
        found: Type,
    },
    /// Datetimes that do not meet: a naive one with a zoned one, or two
    /// zones, in one call.
    #[error("{name}: {why} ({found}); cast them to one zone, or read naive wall times in a zone with assume_timezone")]
    TimeZones {
        /// The function.
        name: String,
        /// What does not meet.
        why: &'static str,
        /// The arguments' data types, printed.
        found: Box<str>,
    },
    /// A function's argument value that is not one it takes (a mode
    /// name, an empty separator).
    #[error("{op}: {what} must be {expected}, not {found}")]
    Argument {
        /// The function.
        op: &'static str,
        /// Which argument.
        what: &'static str,
        /// What it takes.
        expected: &'static str,
        /// The value given, printed.
        found: Box<str>,
    },
    /// A core signature that does not fit its function.
    #[error("core signature {signature}: {problem}")]
    CoreSignature {
        /// The signature.
        signature: Type,
        /// What does not fit.
        problem: Box<crate::SignatureProblem>,
    },
    /// Another number of indices than an operation needs (more than the
    /// array's dimensions, or fewer than reach an element).
    #[error("{given} indices given for {ty}, which has {ndim} dimension(s)")]
    IndexCount {
        /// The number of indices.
        given: usize,
        /// The array's type.
        ty: Type,
        /// Its number of dimensions.
        ndim: usize,
    },
    /// A slice with a step of zero.
    #[error("a slice step cannot be zero")]
    ZeroStep,
    /// Axes that are not a permutation of the leading fixed dimensions.
    #[error("{perm:?} is not a permutation of the {ndim} leading fixed dimensions of {ty}")]
    Permutation {
        /// The axes given.
        perm: Vec<usize>,
        /// The number of leading fixed dimensions.
        ndim: usize,
        /// The array's type.
        ty: Type,
    },
    /// A shape the elements cannot be reshaped into.
    #[error("cannot reshape {count} elements ({ty}) into the shape {shape:?}: {reason}")]
    Reshape {
        /// The number of elements.
        count: usize,
        /// The array's type.
        ty: Type,
        /// The shape asked for.
        shape: Vec<i64>,
        /// Why not.
        reason: &'static str,
    },
    /// An index (of `take`) out of range, with where it is among the
    /// indices.
    #[error("{name}: index {index} is out of bounds for axis {axis} of size {size}, at position {position:?} of the indices")]
    TakeIndex {
        /// The operation.
        name: &'static str,
        /// The index.
        index: i64,
        /// The axis taken along.
        axis: usize,
        /// Its size.
        size: usize,
        /// The index's position among the indices.
        position: Vec<usize>,
    },
    /// A reduction asked of something it cannot do with this operation.
    #[error("{name} {problem}")]
    Reduction {
        /// The reduction.
        name: String,
        /// What it cannot do (`is not reorderable, so it reduces one axis
        /// at a time`).
        problem: &'static str,
    },
    /// An operation this layer does not support for these types (yet).
    #[error("{operation} is not supported for {ty}")]
    Unsupported {
        /// What was attempted.
        operation: &'static str,
        /// The type.
        ty: Type,
    },
    /// An assignment whose source dimension does not broadcast to the
    /// destination's.
    #[error(
        "cannot assign {src} to {dst}: source dimension {axis} ({}) does not \
         broadcast to the destination's ({}); the source broadcasts to the \
         destination, never the reverse",
        dims.0,
        dims.1.as_ref().map_or_else(|| "none".to_string(), Dim::to_string)
    )]
    AssignBroadcast {
        /// The destination dimension position, 0 = outermost.
        axis: usize,
        /// The source's dimension there, and the destination's (`None`:
        /// the source has more dimensions than the destination).
        dims: Box<(Dim, Option<Dim>)>,
        /// The source type.
        src: Type,
        /// The destination type.
        dst: Type,
    },
    /// An assignment between struct or tuple types whose fields do not
    /// pair up.
    #[error(
        "cannot assign {src} to {dst}: {}",
        match missing {
            Some((side, field)) => format!("the {side} has no field '{field}'"),
            None => format!("{} fields cannot take {} fields", counts.0, counts.1),
        }
    )]
    FieldAssign {
        /// The source type.
        src: Type,
        /// The destination type.
        dst: Type,
        /// The side (`source` or `destination`) missing a field, and the
        /// field, when the names do not pair up.
        missing: Option<(&'static str, Box<str>)>,
        /// The destination's and the source's number of fields.
        counts: (usize, usize),
    },
    /// A cast to a type with a `var` dimension where the source has no
    /// dimension to take the row lengths from.
    #[error("cannot cast {src} to {dst}: {dst} has a var dimension where the source has none")]
    CastVar {
        /// The source type.
        src: Type,
        /// The type cast to.
        dst: Type,
    },
    /// A write to a read-only array.
    #[error("the array is read-only")]
    ReadOnly,
    /// A typed view of the wrong element type.
    #[error(
        "the array's data type is {actual}, not {requested}{}",
        option_hint(actual, requested)
    )]
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
    #[error("invalid array: {0}")]
    Layout(Box<crate::LayoutProblem>),
    /// Memory the allocator could not give, or a size no allocation can
    /// have. Never an abort: the caller gets this error.
    #[error("cannot allocate {bytes} bytes")]
    Alloc {
        /// The bytes asked for (may exceed the address space; `u64::MAX`
        /// stands for more).
        bytes: u64,
    },
    /// A size or position that overflows, computed from sizes a caller gave.
    #[error("{what} overflows{}", sizes(values))]
    Size {
        /// What overflows (`a slice's stride`, `the shape's element count`).
        what: &'static str,
        /// The sizes it was computed from, by name (`("step", 3)`).
        values: Vec<(&'static str, i128)>,
    },

    /// An axis outside the array's dimensions.
    #[error("{name}: axis {axis} is out of bounds for an array of {ndim} dimension(s)")]
    AxisOutOfBounds {
        /// The operation.
        name: String,
        /// The axis given (negative ones count from the end).
        axis: i64,
        /// The array's number of dimensions.
        ndim: usize,
    },
    /// An axis given more than once.
    #[error("{name}: axis {axis} is given more than once")]
    DuplicateAxis {
        /// The operation.
        name: String,
        /// The axis, as given.
        axis: i64,
    },
    /// A `where` mask whose data type is not `bool`.
    #[error("{name}: the `where` mask must be bool, not {found}")]
    MaskType {
        /// The operation.
        name: String,
        /// The mask's data type.
        found: Type,
    },
    /// A `where` mask that does not broadcast to the array.
    #[error(
        "{name}: the `where` mask {mask} does not broadcast to the array {array}{}",
        axis.map(|k| format!(" (dimension {k})")).unwrap_or_default()
    )]
    MaskShape {
        /// The operation.
        name: String,
        /// The mask's type.
        mask: Type,
        /// The array's type.
        array: Type,
        /// The array's dimension where they disagree, when known.
        axis: Option<usize>,
    },
    /// A `where` mask whose ragged row does not match the array's row.
    #[error(
        "{name}: row {index:?} of the `where` mask has {mask_len} element(s), but the \
         array's row there has {array_len}; a mask's row has its row's length (or 1)"
    )]
    MaskRow {
        /// The operation.
        name: String,
        /// The row's index in the fixed dimensions around it.
        index: Vec<usize>,
        /// The mask row's length.
        mask_len: usize,
        /// The array row's length.
        array_len: usize,
    },

    /// An argument whose data type is not the one a kernel takes.
    #[error("argument {arg} has data type {found}, but {what} takes {expected}")]
    ArgumentType {
        /// The argument's index.
        arg: usize,
        /// Its data type.
        found: Type,
        /// The data type taken.
        expected: Type,
        /// What takes it (`the function`, or the leaf).
        what: String,
    },

    // ---- callables ----
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
    /// A call inside an expression failed: the node's text (arrays named
    /// `a0`, `a1`, ... in the whole expression's order) and its error.
    #[error("in '{node}': {source}")]
    InExpr {
        /// The failing call, as the expression writes it.
        node: Box<str>,
        /// What went wrong there.
        source: Box<Error>,
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
        mismatch: Box<crate::Mismatch>,
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
    /// An expression's text (`dynd::func::evaluate`) that does not parse,
    /// or asks for what the language does not have: the message says what
    /// and where (the byte, with the text around it and a caret).
    #[error("{message}")]
    Expression {
        /// What was wrong, and where.
        message: Box<str>,
    },
    /// A name in an expression's text that is neither an input nor a
    /// function.
    #[error("unknown name '{name}' ({})", if inputs.is_empty() { "no inputs are bound".to_string() } else { format!("inputs: {}", inputs.join(", ")) })]
    UnknownInput {
        /// The name.
        name: String,
        /// The inputs' names.
        inputs: Vec<String>,
    },
    /// A builtin name that names no builtin.
    #[error("no builtin is called '{name}'{}", did_you_mean(suggestions))]
    UnknownFunction {
        /// The name asked for.
        name: String,
        /// Builtin names close to it, closest first.
        suggestions: Vec<String>,
    },
    /// An argument of a function over whole arrays that is not the kind of
    /// value it takes (a number, a datashape string, a list of integers).
    #[error("{name}: argument {arg} must be {expected}, not {value} ({ty}){}", note.as_deref().map(|n| format!(": {n}")).unwrap_or_default())]
    ArgumentValue {
        /// The function.
        name: Box<str>,
        /// The argument's index.
        arg: usize,
        /// What it takes.
        expected: &'static str,
        /// The value given, printed.
        value: Box<str>,
        /// Its type.
        ty: Type,
        /// Why it was refused, when more can be said.
        note: Option<Box<str>>,
    },
    /// A reduction over no elements, of an operation without identity and
    /// with no `initial` value.
    #[error(
        "{name}: a reduction over no elements needs an identity, and {op} has none; pass `initial`"
    )]
    EmptyReduction {
        /// The reduction.
        name: String,
        /// The operation reduced with.
        op: String,
    },
    /// A reduction or scan asked of a callable not declared associative.
    #[error("{name} has no {what}: it is not declared associative")]
    NotAssociative {
        /// The callable.
        name: String,
        /// `reduction` or `scan`.
        what: &'static str,
    },
    /// A fold or scan whose operation, given two values of its result
    /// type, does not give that type again.
    #[error(
        "{name}: {op} of ({}) gives {gives}, so it cannot fold an array of {dtype}",
        list(takes)
    )]
    FoldType {
        /// The reduction or scan.
        name: Box<str>,
        /// The operation.
        op: Box<str>,
        /// The types the operation's overload takes.
        takes: Box<[Type]>,
        /// The type it gives.
        gives: Type,
        /// The array's data type.
        dtype: Type,
    },
    /// A builtin entry whose callable has another name (found when the
    /// registry is built).
    #[error("the builtin entry '{entry}' holds a callable named '{callable}'")]
    BuiltinName {
        /// The entry's name.
        entry: String,
        /// The callable's.
        callable: String,
    },
    /// A builtin name given to two builtins (found when the registry is
    /// built).
    #[error("two builtins are called '{name}'")]
    DuplicateBuiltin {
        /// The name.
        name: String,
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
    /// A keyword declared in a way the callable cannot take.
    #[error("{name}: keyword '{keyword}' {problem}")]
    KeywordDeclaration {
        /// The callable.
        name: String,
        /// The keyword.
        keyword: String,
        /// What is wrong with it.
        problem: &'static str,
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
    /// An expression passed where an array is expected before the layer
    /// that evaluates expressions (the callables) was loaded.
    #[error(
        "the expression '{expr}' cannot be evaluated here: expressions are \
         evaluated by the callable layer, which no callable has loaded yet \
         (evaluate it with `Eval::eval` first)"
    )]
    NoEvaluator {
        /// The expression's text.
        expr: String,
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

impl From<ParseError> for Error {
    fn from(e: ParseError) -> Error {
        Error::Parse(Box::new(e))
    }
}

impl From<KernelError> for Error {
    fn from(e: KernelError) -> Error {
        Error::Kernel(Box::new(e))
    }
}

impl Error {
    /// The byte offset in the input text of a parse error
    /// ([`Error::Parse`]); `None` for the other errors.
    pub fn offset(&self) -> Option<usize> {
        match self {
            Error::Parse(e) => Some(e.offset()),
            _ => None,
        }
    }

    /// [`Error::Alloc`] for `bytes`, saturating at `u64::MAX`.
    pub fn alloc(bytes: u128) -> Error {
        Error::Alloc {
            bytes: u64::try_from(bytes).unwrap_or(u64::MAX),
        }
    }
}

fn at_index(path: &[usize]) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!(" (at index {path:?})")
    }
}

fn sizes(values: &[(&'static str, i128)]) -> String {
    if values.is_empty() {
        return String::new();
    }
    let parts: Vec<String> = values.iter().map(|(k, v)| format!("{k} {v}")).collect();
    format!(" ({})", parts.join(", "))
}

fn at_field(path: &str) -> String {
    if path.is_empty() {
        String::new()
    } else {
        format!(" (at {path})")
    }
}

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

fn list_fields(fields: &[Box<str>]) -> String {
    match fields {
        [] => "it has no fields".to_string(),
        _ => format!("its fields are {}", fields.join(", ")),
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

/// The most characters of a user's input an error message quotes.
const EXCERPT_CHARS: usize = 80;

/// `text` as an error message quotes it: whole when short, else its first
/// characters and how long it was, so a message stays one readable line
/// however large the input (a 40,000-element list, a 1 MB literal): at
/// most 80 characters, then `… (N bytes in all)`.
pub fn excerpt(text: &str) -> std::borrow::Cow<'_, str> {
    match text.char_indices().nth(EXCERPT_CHARS) {
        None => std::borrow::Cow::Borrowed(text),
        Some((cut, _)) => {
            std::borrow::Cow::Owned(format!("{}… ({} bytes in all)", &text[..cut], text.len()))
        }
    }
}

/// Prints a dimension as "size 3", "a var dimension", ...
struct DimSize<'a>(&'a Dim);

impl fmt::Display for DimSize<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Dim::Fixed(n) => write!(f, "size {n}"),
            Dim::Var => f.write_str("a var dimension"),
            other => write!(f, "dimension '{other}'"),
        }
    }
}

/// How to read `?T` data as `T`, for a [`Error::DtypeMismatch`] between
/// the two.
fn option_hint(actual: &Type, requested: &Type) -> &'static str {
    match actual.kind() {
        TypeKind::Option(inner) if inner == requested => {
            " (it may hold NA: read it as `Option<T>`, or replace NA first with `fill_na`)"
        }
        _ => "",
    }
}

#[cfg(test)]
mod excerpt_tests {
    use super::excerpt;

    #[test]
    fn short_text_whole_long_text_cut_with_its_length() {
        assert_eq!(excerpt("[1, 2]"), "[1, 2]");
        let long = format!("[{}1]", "1, ".repeat(40_000));
        let e = excerpt(&long);
        assert!(e.starts_with("[1, 1, 1"), "{e}");
        assert!(e.ends_with("… (120003 bytes in all)"), "{e}");
        assert!(e.chars().count() < 110, "{e}");
        // Cut at a character, not inside one.
        let wide = "é".repeat(200);
        assert!(excerpt(&wide).starts_with(&"é".repeat(80)));
    }
}
