//! dynd-rs: dynamically typed n-dimensional arrays and the functions that
//! run on them, described by datashape types.
//!
//! This is the facade: downstream crates depend on `dynd` alone. It carries
//! the type system ([`ndt`]), arrays with their assignment kernels ([`nd`]),
//! and elementwise callables with the builtin library ([`func`]).
//!
//! ```
//! use dynd::prelude::*;
//!
//! // Arrays: ragged rows give a var dimension; assignment broadcasts.
//! let a = nd::array![[1.0], [5.0, 8.0]];
//! assert_eq!(a.ty().to_string(), "2 * var * float64");
//! let mut m = Array::zeros(&"2 * 2 * int32".parse()?)?;
//! m.assign(&a, ErrorMode::Overflow)?;
//! assert_eq!(m.to_string(), "[[1, 1], [5, 8]]");
//!
//! // Callables: a Rust function lifted over broadcast (and ragged) dimensions.
//! let hypot = Callable::map("hypot", |x: f64, y: f64| (x * x + y * y).sqrt());
//! let r = hypot.call(&[&nd::array![[3.0], [5.0, 8.0]], &nd::array![[4.0, 4.0], [4.0, 4.0]]])?;
//! assert_eq!(r.to_string(), "[[5, 5], [6.4031242374328485, 8.94427190999916]]");
//! let add = builtins::get("add").unwrap();
//! assert_eq!(add.call(&[&nd::array![1, 2], &nd::array![0.5]])?.to_string(), "[1.5, 2.5]");
//!
//! // A datashape checked when the program is compiled:
//! let t: Type = datashape!("3 * var * {x: int32, y: ?float64}");
//! assert_eq!(t.ndim(), 2);
//!
//! // ... or parsed at run time, with an error that points at the problem:
//! let err = "3 * var * flaot64".parse::<Type>().unwrap_err();
//! assert_eq!(err.offset(), Some(10));
//!
//! // Broadcasting, ragged dimensions included:
//! let r = ndt::broadcast(&[t, "3 * 1 * {x: int32, y: ?float64}".parse()?], BroadcastMode::NumPy)?;
//! assert_eq!(r.to_string(), "3 * var * {x: int32, y: ?float64}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # Threads
//!
//! Large loops run on [rayon]'s global thread pool, whose size is the
//! number of cores unless `RAYON_NUM_THREADS` sets it (or the program
//! builds the global pool itself before the first call). What runs in
//! parallel, and from what size:
//!
//! - elementwise callables, assignment and casts over at least 2^17
//!   (131072) elements, the outermost loop split among the threads
//!   (ragged rows too, in units of whole rows);
//! - reductions (`sum`, `mean`, `var`, …) along runs of at least 2^17
//!   elements, split into chunks of a fixed 2^15, so the grouping of the
//!   additions — and the bits of a floating-point result — do not depend
//!   on the number of threads;
//! - reductions per ragged row over at least 4096 rows (scans run on the
//!   calling thread).
//!
//! Smaller work runs on the calling thread: waking a thread costs more
//! than such a loop. A panic in a user's function (an `#[elemental]` fn,
//! a `Callable::map*` closure) on any thread reaches the caller as a
//! panic, as rayon propagates it. `RAYON_NUM_THREADS=1` makes every loop
//! serial.
//!
//! [rayon]: https://docs.rs/rayon
//!
//! # Layering
//!
//! The facade's modules re-export the inner crates; the typed entry points
//! sit under them (checked by the workspace's `tests/layering.rs`):
//!
//! | floor | modules |
//! |---|---|
//! | 3 | `prelude`, `__private` |
//! | 2 | `ndt`, `nd`, `func` |
//! | 1 | `typed`, `text` |

// A dependency nobody uses cannot linger (CI denies warnings).
#![cfg_attr(not(test), warn(unused_crate_dependencies))]
// Doc examples are code users copy: no warnings in them either.
#![doc(test(attr(deny(warnings))))]
#![forbid(unsafe_code)]

mod text;
mod typed;

/// Datashape types: the model, parser and printer, pattern matching,
/// broadcasting and promotion (the `dynd-types` crate).
pub mod ndt {
    #[doc(inline)]
    pub use dynd_types::{
        broadcast, broadcast_dim, broadcast_dim_lists, can_cast_safely, promote, promote_scalars,
        similar_names, ArrmetaLayout, Binding, Bindings, BroadcastMode, DataLayout, Dim, Encoding,
        Mismatch, Name, ParseError, ParseErrorKind, ResolveError, Scalar, ScalarCategory,
        Signature, Struct, Temporal, TimeUnit, Tuple, Type, TypeKind, MAX_DEPTH, MAX_DIMS,
        MAX_LEVELS,
    };
}

/// The one error type of dynd-rs: every layer (datashape parsing and
/// types, arrays and kernels, callables) returns it, so `?` works across
/// them in a fn that returns `Result<_, dynd::Error>` (or a boxed error).
///
/// ```
/// use dynd::prelude::*;
///
/// fn row_means(text: &str) -> Result<Array, dynd::Error> {
///     let ty: Type = "3 * var * float64".parse()?;     // a parse error
///     let a = Array::from_json(text, Some(&ty))?;      // a value that does not fit
///     a.mean_axis(1)                                  // a reduction's error
/// }
///
/// assert_eq!(row_means("[[1, 2], [3], []]")?.to_string(), "[1.5, 3, null]"); // NA: an empty row has no mean
///
/// // Each variant carries the values involved: here, where the value
/// // failed and why (a list of one row for a dimension of three).
/// let e = row_means("[[1, 2]]").unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "a list of length 1 cannot be a dimension of size 3 (type 3 * var * float64)"
/// );
/// match e {
///     dynd::Error::FromValue { problem, path } => {
///         assert!(path.is_empty());
///         assert!(matches!(*problem, dynd::ValueProblem::Length { len: 1, size: 3, .. }));
///     }
///     other => panic!("{other:?}"),
/// }
/// # Ok::<(), dynd::Error>(())
/// ```
#[doc(inline)]
pub use dynd_types::Error;

/// What exactly was wrong, for the [`Error`] variants that cover a family
/// of failures: [`Error::FromValue`], [`Error::Offsets`],
/// [`Error::Layout`], [`Error::Arrow`], [`Error::CoreSignature`] and
/// [`Error::Invalid`].
#[doc(inline)]
pub use dynd_types::{
    ArrowProblem, LayoutProblem, OffsetsProblem, SignatureProblem, TypeRule, ValueProblem,
};

/// Vectorised elementary functions (the `dynd-math` crate): slices in
/// place and scalars, `float64` and `float32`, within one ULP, on the
/// best of AVX-512, AVX2 or the baseline the CPU has. The builtins'
/// float loops run on them; `#[elemental]` bodies can call the scalar
/// forms (`dynd::math::sin(x)`).
#[doc(inline)]
pub use dynd_kernels::math;

/// Arrays: [`nd::Array`] (a type, arrmeta and data in shared memory
/// blocks), views, JSON, and assignment with broadcasting and error modes
/// (the `dynd-kernels` crate).
pub mod nd {
    /// The operators' lazily evaluated expressions.
    #[doc(inline)]
    pub use dynd_array::expr;
    /// The shared, aligned byte blocks that hold an array's data.
    #[doc(inline)]
    pub use dynd_array::memory::MemoryBlock;
    /// `ndarray` arrays in and out without copying (feature `ndarray`).
    #[cfg(feature = "ndarray")]
    #[doc(inline)]
    pub use dynd_array::ndarray_interop;
    /// Fields of record and tuple arrays, read as views.
    #[doc(inline)]
    pub use dynd_array::record;
    /// The rows of a ragged array: the one row view.
    #[doc(inline)]
    pub use dynd_array::rows;
    /// serde for arrays and values (feature `serde`).
    #[cfg(feature = "serde")]
    #[doc(inline)]
    pub use dynd_array::serde_impl;
    /// Rust structs as elements (`#[derive(Record)]`).
    #[doc(inline)]
    pub use dynd_array::structs;
    /// The strings of an array: the one text view.
    #[doc(inline)]
    pub use dynd_array::text;
    /// Dates and times: the calendar, ISO 8601 text, the element types.
    #[doc(inline)]
    pub use dynd_array::time;
    #[doc(inline)]
    pub use dynd_array::{
        array, infer_type, Array, Arrmeta, Complex, Element, ErrorMode, Expr, FromLevels, Index,
        IntoArray, IntoValue, Item, KernelError, KernelErrorKind, Levels, Nested, Offset,
        RaggedRows, Shape, ShapeSize, Value, F16,
    };
    #[doc(inline)]
    pub use dynd_array::{Date, DateTime, Ms, Ns, Time, TimeDelta, TimeTextError, Unit, Us, S};
    #[doc(inline)]
    pub use dynd_array::{Field, Record};
    /// Arrays made from others (also in [`func`](crate::func)).
    #[doc(no_inline)]
    pub use dynd_arrfunc::{concatenate, linspace, stack};
    /// Arrow arrays and record batches in and out, sharing buffers
    /// (feature `arrow`).
    #[cfg(feature = "arrow")]
    #[doc(inline)]
    pub use dynd_kernels::arrow_interop;
    /// Parquet, CSV and Arrow IPC files as record arrays (features
    /// `parquet`, `csv`, `ipc`).
    #[cfg(any(feature = "parquet", feature = "csv", feature = "ipc"))]
    #[doc(inline)]
    pub use dynd_kernels::files;
    #[cfg(feature = "csv")]
    #[doc(inline)]
    pub use dynd_kernels::files::{read_csv, CsvOptions};
    #[cfg(feature = "ipc")]
    #[doc(inline)]
    pub use dynd_kernels::files::{read_ipc, write_ipc};
    #[cfg(feature = "parquet")]
    #[doc(inline)]
    pub use dynd_kernels::files::{read_parquet, write_parquet};
    /// Fused evaluation of elementwise programs (what evaluating an
    /// expression runs).
    #[doc(inline)]
    pub use dynd_kernels::fuse;
    #[doc(inline)]
    pub use dynd_kernels::take::TakeMode;
    /// Hand-written loops over several arrays on the loop engine.
    #[doc(inline)]
    pub use dynd_kernels::zip::{zip, Indexed, Operand, Zip};
    #[doc(inline)]
    pub use dynd_kernels::ArrayOps;
    /// Arrays out to Arrow ([`ToArrow::to_arrow`], feature `arrow`).
    #[cfg(feature = "arrow")]
    #[doc(inline)]
    pub use dynd_kernels::ToArrow;
    /// Makes a struct whose fields are element types a dynd record: see
    /// [`structs`].
    #[doc(inline)]
    pub use dynd_macros::Record;
}

/// Callables: typed scalar overloads lifted elementwise over broadcast
/// dimensions, core-dimension overloads (generalised ufuncs), overload
/// resolution, and the builtin library (the `dynd-arrfunc` crate).
pub mod func {
    /// Expressions as text, over named inputs (`dynd eval`,
    /// `dynd.evaluate` in Python).
    pub use crate::text::{
        evaluate, Evaluator, MAX_DEPTH, MAX_OPERATORS, SPECIALS, STACK_PER_OPERATOR,
    };
    pub use crate::typed::ArrayExt;

    // A typed function for each builtin its table marks (`add(&a, &b)`,
    // `sin(&a)`, `fill_na(&a, &v)`, `null_count(&a, &options)`), made
    // from the builtins' tables.
    dynd_arrfunc::__elementwise_builtins!(crate::typed::builtin_fns);
    dynd_arrfunc::__rounding_builtins!(crate::typed::builtin_fns);
    dynd_arrfunc::__transcendental_builtins!(crate::typed::builtin_fns);
    dynd_arrfunc::__floating_builtins!(crate::typed::builtin_fns);
    dynd_arrfunc::__bitwise_builtins!(crate::typed::builtin_fns);
    dynd_arrfunc::__reduction_builtins!(crate::typed::builtin_fns);
    dynd_arrfunc::__array_builtins!(crate::typed::builtin_fns);
    dynd_arrfunc::__ordering_builtins!(crate::typed::builtin_fns);
    dynd_arrfunc::__shaping_builtins!(crate::typed::builtin_fns);
    dynd_arrfunc::__lists_builtins!(crate::typed::builtin_fns);
    dynd_arrfunc::__groups_builtins!(crate::typed::builtin_fns);
    dynd_arrfunc::__strings_builtins!(crate::typed::builtin_fns);
    dynd_arrfunc::__records_builtins!(crate::typed::builtin_fns);
    dynd_arrfunc::__temporal_builtins!(crate::typed::builtin_fns);

    #[doc(inline)]
    #[doc(inline)]
    pub use dynd_arrfunc::broadcast_arrays;
    pub use dynd_arrfunc::{
        builtins, divmod, frexp, modf, resolve_lifted, select, unique_axis, unique_counts,
        unique_index, unique_rows, Axes, AxisKeyword, AxisOptions, Body, Callable, Eval, Keyword,
        Kwargs, Overload, Prepared, ReductionKind,
    };
    #[doc(inline)]
    pub use dynd_kernels::elwise::{
        CalendarPart, CoreFn, CoreLeaf, CoreSlice, CoreSliceMut, ElementFn, Leaf, LeafInput,
        LeafOutput, LeafReturn, TextSink,
    };

    /// The engine's fast-path handles, for code that builds leaves and
    /// programs by hand: the operation table's opcodes
    /// ([`F64Op`](raw::F64Op), [`IntOp`](raw::IntOp),
    /// [`Predicate`](raw::Predicate); see [`dynd_kernels::op`]), a leaf's
    /// flat loop held for repeated calls ([`FlatPlan`](raw::FlatPlan)), or
    /// for dense arguments of any one shape ([`DenseLoop`](raw::DenseLoop)),
    /// small programs over dense arrays with their loop built once
    /// ([`Dense`](raw::Dense)), and typed reductions with their fold
    /// ([`reduce`](raw::reduce), [`reduce_tiny`](raw::reduce_tiny),
    /// [`mean_of_rows`](raw::mean_of_rows)). Everything here is reached
    /// through the ordinary API too (builtins, `Leaf`, `Eval`); these give control
    /// over it. Hidden from the documented surface: the engine's handles
    /// change with the engine.
    #[doc(hidden)]
    pub mod raw {
        #[doc(inline)]
        pub use dynd_kernels::elwise::{DenseLoop, FlatPlan};
        #[doc(inline)]
        pub use dynd_kernels::fuse::{Dense, F64Arg};
        #[doc(inline)]
        pub use dynd_kernels::op::{F64Op, IntOp, Predicate};
        #[doc(inline)]
        pub use dynd_kernels::reduce::{
            mean_of_rows, reduce, reduce_tiny, spread_of_rows, ReduceArgs, Reduction,
        };
    }
    /// Stateful reductions from DyND's four pieces (init, step, combine,
    /// finish), and the compensated sum built from them.
    #[doc(inline)]
    pub use dynd_kernels::reduce::{reduce_with, Accumulator, KahanSum};
}

/// A datashape literal checked at compile time, evaluating to a
/// [`ndt::Type`].
///
/// The text is parsed when the program is compiled, so a typo is a compile
/// error that shows the position with a caret; at run time the type is built
/// once and cloned on each evaluation.
///
/// ```
/// let t: dynd::ndt::Type = dynd::datashape!("(N * float64, N * float64) -> float64");
/// assert_eq!(t.to_string(), "(N * float64, N * float64) -> float64");
/// ```
///
/// ```compile_fail
/// let t = dynd::datashape!("3 * var * flaot64"); // unknown type 'flaot64'
/// ```
#[doc(inline)]
pub use dynd_macros::datashape;

/// Makes a plain scalar fn a broadcasting callable (a ufunc).
///
/// The fn stays as written, callable on scalars; a module of the same name
/// holds `call` (run it on arrays, broadcast NumPy's way, ragged `var`
/// dimensions included), `callable()` (the [`func::Callable`], for
/// composition: `outer`, reductions, registries) and `SIGNATURE` /
/// `SIGNATURES` (the datashape signatures, checked at compile time).
///
/// ```
/// use dynd::prelude::*;
///
/// #[elemental]
/// fn hypot(x: f64, y: f64) -> f64 {
///     (x * x + y * y).sqrt()
/// }
///
/// assert_eq!(hypot(3.0, 4.0), 5.0);
/// assert_eq!(hypot::SIGNATURE, "(float64, float64) -> float64");
/// let r = hypot::call(vec![vec![3.0], vec![5.0, 8.0]], 4.0)?;
/// assert_eq!(r.to_string(), "[[5], [6.4031242374328485, 8.94427190999916]]");
/// assert_eq!(r.ty().to_string(), "2 * var * float64");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// Forms (options go in `#[elemental(...)]`):
///
/// | form | example | datashape |
/// |---|---|---|
/// | scalars by value | `fn f(x: f64, n: i32) -> f64` | `(float64, int32) -> float64` |
/// | a generic fn over listed types (an overload set) | `#[elemental(T = [f32, f64])] fn f<T: Float>(x: T) -> T` | one overload per type |
/// | slices: a core dimension, shared size | `fn dot(a: &[f64], b: &[f64]) -> f64` | `(N * float64, N * float64) -> float64` |
/// | a fixed-size core | `fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3]` | `(3 * float64, 3 * float64) -> 3 * float64` |
/// | a result core written in place | `fn scale(x: &[f64], out: &mut [f64])` | `(N * float64) -> N * float64` |
/// | an explicit signature, checked against the Rust types | `signature = "(M * float64, N * float64) -> float64"` | as written |
/// | keywords (trailing) | `#[kw] eps: f64`, `#[kw(default = 0.5)] p: f64` | `(float64, eps: float64) -> float64` |
/// | text: 1 to 3 `&str` read in place; a `String` result written into the result's text block (no `String` kept per element); a `&str` result of one `&str` a view of it (a `&'static str` it returns is copied) | `fn domain(url: &str) -> &str`, `fn same(a: &str, b: &str) -> bool` | `(string) -> string`, `(string, string) -> bool` |
/// | text with NA or errors: `Option<&str>` parameters see NA as `None`; `Option` results are `?string` or `?R`; an `Err` of a `Result` fails the call, naming the element | `fn host(url: Option<&str>) -> Option<String>`, `fn port(url: &str) -> Result<i64, ParseIntError>` | `(?string) -> ?string`, `(string) -> int64` |
/// | strict broadcasting (only 0-d arguments extend) | `strict` | |
/// | an associative operation with its reduction and scan | `reduce(identity = 0)` | `name::reduce(array, axis, keepdims)`, `name::accumulate(array, axis)` |
/// | the facade's path (inside this workspace) | `crate = "crate"` | |
///
/// A fn takes up to 16 parameters, keywords included. The textbook
/// great-circle distance takes four arrays, here a point per row against
/// one fixed point:
///
/// ```
/// use dynd::prelude::*;
///
/// /// Great-circle distance in km between two points given in degrees.
/// #[elemental]
/// fn haversine(lat1: f64, lon1: f64, lat2: f64, lon2: f64) -> f64 {
///     let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
///     let (dp, dl) = (p2 - p1, (lon2 - lon1).to_radians());
///     let a = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
///     2.0 * 6371.0 * a.sqrt().asin()
/// }
///
/// assert_eq!(haversine::SIGNATURE, "(float64, float64, float64, float64) -> float64");
/// // Paris and Berlin against London.
/// let d = haversine::call(vec![48.8566, 52.52], vec![2.3522, 13.405], 51.5074, -0.1278)?;
/// let km: Vec<f64> = d.to_vec()?;
/// assert_eq!(km.iter().map(|x| x.round()).collect::<Vec<_>>(), [344.0, 932.0]);
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// Limits, each a compile error that says so: at most 16 parameters;
/// parameters and results are scalars by value of the supported types
/// (`bool`, the integers up to 128 bits, `f32`, `f64`, `F16` and the
/// complex types), `Option`s of them, slices, fixed-size arrays or one
/// trailing `&mut [T]` result; no `self`, references to scalars,
/// lifetimes, const generics or `async`. `#[kw]` parameters, `Option`s and
/// `Result` results go with scalar fns only, not with core dimensions.
///
/// Every unsupported form is a compile error pointing at the offending
/// tokens, all reported at once; the fn is still emitted, so no cascade of
/// secondary errors follows.
///
/// What `#[elemental] fn hypot(x: f64, y: f64) -> f64` generates, beside
/// the fn itself (the items take the fn's visibility; an uninhabited enum
/// lives in the type namespace only, so it shares the fn's name, and unlike
/// a module it sees the fn wherever it is declared, inside a function body
/// too):
///
/// ```text
/// enum hypot {}
/// impl hypot {
///     const SIGNATURE: &str = "(float64, float64) -> float64"; // one overload only
///     const SIGNATURES: &[&str];                               // one per overload
///     fn signatures() -> Vec<ndt::Type>;
///     fn callable() -> func::Callable;  // built once: Overload::new(Leaf::map(hypot))
///     fn call(x: impl nd::IntoArray, y: impl nd::IntoArray) -> Result<nd::Array, dynd::Error>;
///     fn reduce(array: impl nd::IntoArray, axis: Option<&[i64]>, keepdims: bool)
///         -> Result<nd::Array, dynd::Error>;  // with `reduce(...)`
///     fn accumulate(array: impl nd::IntoArray, axis: i64)
///         -> Result<nd::Array, dynd::Error>;  // with `reduce(...)`: the scan
/// }
/// ```
///
/// The leaf is the same kernel the builtins use (a strided loop with a
/// contiguous fast path the compiler vectorises), so a macro-made `add`
/// runs at the builtin's speed; core dimensions become a
/// [`func::CoreLeaf`], `Result` a fallible leaf. Generated code names only
/// `::dynd::...` paths (`crate = "..."` changes the root, for use inside
/// this workspace).
#[doc(inline)]
pub use dynd_macros::elemental;

/// The names most programs need: `use dynd::prelude::*;`.
pub mod prelude {
    #[doc(no_inline)]
    pub use crate::func::{builtins, ArrayExt, AxisOptions, Callable, Eval};
    #[doc(no_inline)]
    pub use crate::nd;
    #[cfg(feature = "arrow")]
    #[doc(no_inline)]
    pub use crate::nd::ToArrow;
    #[doc(no_inline)]
    pub use crate::nd::{Array, ArrayOps, ErrorMode, Index, Record};
    #[doc(no_inline)]
    pub use crate::ndt;
    #[doc(no_inline)]
    pub use crate::ndt::{BroadcastMode, Dim, Scalar, Type, TypeKind};
    #[doc(no_inline)]
    pub use crate::{datashape, elemental};
}

/// Support for code generated by `dynd-macros`. Not a public API: names here
/// may change in any release.
#[doc(hidden)]
pub mod __private {
    pub use dynd_types::Type;
    pub use std::sync::LazyLock;

    /// Parses a datashape that the `datashape!` macro already parsed at
    /// compile time with this same parser.
    ///
    /// # Panics
    ///
    /// Only if the text does not parse, which the macro rules out: it emits
    /// the canonical form of a type it parsed.
    pub fn parse_checked(text: &str) -> Type {
        match Type::parse(text) {
            Ok(t) => t,
            Err(e) => panic!("datashape! emitted text that does not parse: {e}"),
        }
    }

    use crate::func::{Callable, Overload};
    use crate::nd::{Array, IntoArray};
    use crate::Error;

    /// The callable of an `#[elemental]` fn, from its overloads.
    ///
    /// # Panics
    ///
    /// Only for overloads that take the same types or different numbers
    /// of arguments, which the macro rules out at compile time.
    pub fn callable(name: &str, overloads: Vec<Overload>) -> Callable {
        // Its `call` takes expressions: their evaluation is installed.
        dynd_arrfunc::install_evaluator();
        match Callable::new(name, overloads) {
            Ok(c) => c,
            Err(e) => panic!("#[elemental] emitted conflicting overloads: {e}"),
        }
    }

    /// A 0-d NA of type `?s`: the default of an `Option<T>` keyword.
    pub fn na(s: crate::ndt::Scalar) -> Array {
        let ty = match Type::option(s.into()) {
            Ok(t) => t,
            Err(e) => unreachable!("?scalar is a valid type: {e}"),
        };
        match Array::from_value(&crate::nd::Value::Null, Some(&ty)) {
            Ok(a) => a,
            Err(e) => unreachable!("NA is a value of every option type: {e}"),
        }
    }

    /// Calls the reduction `r` of an associative `#[elemental]` fn.
    ///
    /// # Errors
    ///
    /// As the reduction's call.
    pub fn reduce(
        r: &Callable,
        array: impl IntoArray,
        axis: Option<&[i64]>,
        keepdims: bool,
    ) -> Result<Array, Error> {
        let array = array.into_array()?;
        let mut options = crate::func::AxisOptions::new().keepdims(keepdims);
        if let Some(a) = axis {
            options = options.axis(a);
        }
        r.reduce_with(&array, &options)
    }

    /// The arguments of an `#[elemental]` fn over records, ready for its
    /// loop: each converted to its parameter's data type where a safe
    /// cast does so, all broadcast together, and each one's elements in
    /// C order.
    pub struct RecordArgs {
        /// Each argument's elements, `K * T`.
        pub flat: Vec<Array>,
        /// The number of elements.
        pub count: usize,
        /// The broadcast shape (the first argument, broadcast).
        pub like: Array,
    }

    /// The callable of an `#[elemental]` fn over records.
    ///
    /// # Panics
    ///
    /// Only for a signature that does not parse, which the macro builds
    /// from checked pieces.
    pub fn record_callable(
        name: &str,
        signature: &str,
        arity: usize,
        run: fn(&[&Array]) -> Result<Array, Error>,
    ) -> Callable {
        dynd_arrfunc::install_evaluator();
        let sig = format!("({}) -> Any", vec!["Any"; arity].join(", "));
        let owned = name.to_string();
        match Callable::function(name, &sig, Vec::new(), move |args, _| {
            if args.len() != arity {
                return Err(Error::Arity {
                    name: owned.clone(),
                    expected: arity,
                    found: args.len(),
                });
            }
            run(args)
        }) {
            Ok(c) => c,
            Err(e) => panic!("#[elemental] over records: {signature}: {e}"),
        }
    }

    /// See [`RecordArgs`].
    ///
    /// # Errors
    ///
    /// [`Error::ArgumentType`] naming an argument whose data type is
    /// neither its parameter's nor safely cast to it; a broadcasting error.
    pub fn record_args(args: &[&Array], dtypes: &[Type]) -> Result<RecordArgs, Error> {
        use crate::nd::ArrayOps;
        let mut converted = Vec::with_capacity(args.len());
        for (i, (a, want)) in args.iter().zip(dtypes).enumerate() {
            if a.dtype() == want {
                converted.push((*a).clone());
                continue;
            }
            let scalar = |t: &Type| match t.kind() {
                crate::ndt::TypeKind::Option(i) => i.as_scalar().map(|s| (s, true)),
                _ => t.as_scalar().map(|s| (s, false)),
            };
            let safe = match (scalar(a.dtype()), scalar(want)) {
                (Some((s, from_opt)), Some((w, to_opt))) => {
                    crate::ndt::can_cast_safely(s, w) && (!from_opt || to_opt)
                }
                _ => false,
            };
            if !safe {
                return Err(Error::ArgumentType {
                    arg: i,
                    found: a.dtype().clone(),
                    expected: want.clone(),
                    what: "an #[elemental] fn over records".into(),
                });
            }
            let ty = Type::with_dims(a.shape(), want.clone())?;
            converted.push(a.cast(&ty, crate::nd::ErrorMode::NoCheck)?);
        }
        let refs: Vec<&Array> = converted.iter().collect();
        let b = crate::func::broadcast_arrays(&refs)?;
        let flat = b
            .iter()
            .map(Array::flat_values)
            .collect::<Result<Vec<_>, _>>()?;
        let count = flat.first().map_or(0, Array::len);
        let like = b
            .into_iter()
            .next()
            .unwrap_or_else(|| Array::from_scalar(0i64));
        Ok(RecordArgs { flat, count, like })
    }

    /// The results of an `#[elemental]` fn over records (`K * R`) under
    /// the arguments' broadcast dimensions.
    ///
    /// # Errors
    ///
    /// As [`Array::regroup`].
    pub fn record_result(values: Array, args: &RecordArgs) -> Result<Array, Error> {
        Array::regroup(&values, &args.like)
    }

    /// Calls the scan `s` of an associative `#[elemental]` fn.
    ///
    /// # Errors
    ///
    /// As the scan's call.
    pub fn accumulate(s: &Callable, array: impl IntoArray, axis: i64) -> Result<Array, Error> {
        let array = array.into_array()?;
        s.reduce_with(&array, &crate::func::AxisOptions::new().axis(axis))
    }
}

#[cfg(test)]
mod tests {
    /// Inside the facade itself, `crate = "crate"` points the generated
    /// code at this crate.
    #[crate::elemental(crate = "crate", reduce(identity = 0))]
    fn add(a: i64, b: i64) -> i64 {
        a + b
    }

    #[test]
    fn the_crate_option_reaches_the_facade_from_inside() {
        assert_eq!(
            add::call(vec![1i64, 2], 3i64).unwrap().to_string(),
            "[4, 5]"
        );
        assert_eq!(
            add::reduce(vec![1i64, 2], None, false).unwrap().to_string(),
            "3"
        );
        assert_eq!(
            add::accumulate(vec![1i64, 2], 0).unwrap().to_string(),
            "[1, 3]"
        );
        let types = add::signatures();
        assert_eq!(types[0].to_string(), "(int64, int64) -> int64");
    }
}
