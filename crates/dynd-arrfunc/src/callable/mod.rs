//! [`Callable`]: a named set of typed scalar overloads, lifted elementwise
//! over broadcast dimensions.
//!
//! Calling one resolves the overload from the arguments' data types (exact
//! match first, then the overload taking the arguments' common type as
//! [`dynd_types::promote`] gives it, then the cheapest safe promotion; an
//! error naming the tied candidates if two are equally cheap, an error
//! listing the signatures if none fits), casts arguments to the overload's types where needed,
//! broadcasts the dimensions (NumPy's rules by default, SlangPy's strict
//! rule on request, ragged rows checked per row), and runs one kernel.
//!
//! ```
//! use dynd::func::{builtins, Callable};
//! use dynd::nd::array;
//!
//! let add = builtins::get("add").unwrap();
//! let r = add.call(&[&array![[1, 2], [3, 4]], &array![0.5, 1.5]])?;
//! assert_eq!(r.to_string(), "[[1.5, 3.5], [3.5, 5.5]]");
//! assert_eq!(r.ty().to_string(), "2 * 2 * float64"); // int64 + float64 -> float64
//!
//! let hypot = Callable::map("hypot", |x: f64, y: f64| x.hypot(y));
//! assert_eq!(hypot.call(&[&array![3.0, 5.0], &array![4.0, 12.0]])?.to_string(), "[5, 13]");
//! # Ok::<(), dynd::Error>(())
//! ```

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use dynd_kernels::elwise::{CoreLeaf, ElementFn, FlatPlan, Leaf};
use dynd_kernels::ArrayOps;
use dynd_kernels::{Array, ErrorMode};
use dynd_types::{
    broadcast, can_cast_safely, BroadcastMode, Scalar, ScalarCategory, Signature, Type, TypeKind,
};

use crate::error::Error;

mod overload;
mod records;
mod reducer;
pub use overload::{Body, Overload};
pub(crate) use reducer::{EmptyGroup, Reducer};
mod call;
mod categories;
pub(crate) use call::out_fits;
pub(crate) use categories::{decode, over_categories, plain};
mod keywords;
pub(crate) use keywords::Function;
pub use keywords::{Keyword, Kwargs};
mod over_axes;
mod prepared;
pub use prepared::Prepared;
mod resolve;
use resolve::*;
mod trivial;
use trivial::DenseLoops;

/// A named elementwise function with overloads.
#[derive(Clone)]
pub struct Callable {
    name: Arc<str>,
    /// Overloads, or a function over whole arrays.
    implementation: Implementation,
    keywords: Arc<[Keyword]>,
    mode: BroadcastMode,
    /// Resolutions by argument types: the overload's index and the result
    /// type, so repeated calls with the same types skip the matching.
    cache: Arc<Mutex<Resolutions>>,
    /// The trivial call's loops by argument data types (see [`trivial`]),
    /// made anew with `cache`.
    dense: Arc<DenseLoops>,
    /// Declared by [`Callable::associative`]: the binary operation may be
    /// regrouped, with this identity (if it has one), so it reduces and
    /// scans (see [`Callable::reduce`]).
    pub(crate) folding: Option<Folding>,
    /// What kind of reduction this callable is, for evaluating it over an
    /// expression a part at a time (see [`crate::eval`]).
    pub(crate) reduction: ReductionKind,
    /// The builtin reduction this callable is, if it is one: what
    /// evaluation reads about it (never its name).
    pub(crate) reducer: Option<Reducer>,
    /// The builtin reduction's path for small dense arrays, tried before
    /// its keywords are checked when only axes are given (see
    /// [`Callable::reduce_with`]): set where the builtin is made, so this
    /// module does not reach up to the reductions.
    pub(crate) small: Option<SmallReduction>,
    /// How the callable compares records, field by field (`equal`,
    /// `not_equal`; see [`Callable::comparing_records`]).
    records: Option<RecordRule>,
}

/// A reduction's path for small dense arrays: `None` when it does not
/// apply (the general path then runs, and reports any error).
pub(crate) type SmallReduction =
    fn(&str, Reducer, &Array, &crate::options::AxisOptions) -> Option<Result<Array, Error>>;

/// How a comparison of records combines its fields' comparisons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RecordRule {
    /// True where every field compares true (`equal`).
    Every,
    /// True where some field compares true (`not_equal`).
    Some,
}

impl Callable {
    /// Whether `other` is this callable, or a clone of it that resolves
    /// every argument type as it does (its overloads unchanged since).
    pub(crate) fn resolves_as(&self, other: &Callable) -> bool {
        Arc::ptr_eq(&self.cache, &other.cache)
    }
}

/// How a reduction callable (`sum`, `min`, `NAME.reduce`, ...) may be
/// computed over parts of its argument: every reduction treats the groups
/// it folds independently, so parts along an axis it keeps give parts of
/// the result; along a reduced axis, only an exact combination of the
/// parts' results is allowed. [`Callable::reduction_kind`] tells it.
///
/// ```
/// use dynd::func::{builtins, ReductionKind};
///
/// assert_eq!(builtins::get("add")?.reduction_kind(), ReductionKind::None);
/// assert_eq!(builtins::get("max")?.reduction_kind(), ReductionKind::Combines);
/// assert_eq!(builtins::get("add.reduce")?.reduction_kind(), ReductionKind::Combines);
/// assert_eq!(builtins::get("std")?.reduction_kind(), ReductionKind::Axes);
/// # Ok::<(), dynd::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ReductionKind {
    /// Not a reduction over an `axis` keyword.
    None,
    /// A reduction of the listed axes; parts along a reduced axis do not
    /// combine bit for bit (`sum`, `prod`, `var`, `std`, `kahan_sum`).
    Axes,
    /// `sum` and `mean`: over every axis of `float64` values, the fused
    /// sum (`Program::sum_f64`) gives the same bits.
    SumOrMean,
    /// Parts' results combine with the reduction itself, exactly (`min`,
    /// `max`, `all`, `any`, an associative `NAME.reduce`).
    Combines,
    /// Parts' results combine by summing them (`count`).
    Counts,
}

/// An empty resolution cache for a new callable.
fn new_cache() -> Arc<Mutex<Resolutions>> {
    Arc::default()
}

/// What a callable runs: typed overloads chosen by the arguments' data
/// types, or one function over whole arrays (see [`Callable::function`]).
#[derive(Clone)]
enum Implementation {
    Overloads(Arc<[Overload]>),
    Function(Function),
}

/// What an associative binary callable declares about itself.
#[derive(Clone, Debug)]
pub(crate) struct Folding {
    /// The identity element (`0` for `add`), if the operation has one.
    pub(crate) identity: Option<dynd_kernels::Value>,
}

/// What a callable found for arguments of some types, kept for the next
/// call on the same types.
#[derive(Clone)]
pub(crate) struct Resolution {
    /// The overload's index.
    pub(crate) index: usize,
    /// The result type.
    pub(crate) ty: Type,
    /// Whether the arguments have the overload's element types already
    /// (no cast).
    pub(crate) as_is: bool,
    /// The flat call for arguments of an elementwise overload taking them
    /// as they are, if its results can be made flat: where there is one,
    /// it alone asks whether a call runs flat.
    plan: Option<FlatPlan>,
}

/// Cached resolutions by argument types.
#[derive(Default)]
struct Resolutions {
    by_types: HashMap<Vec<Type>, Resolution>,
}

/// A recent resolution on this thread: the callable's cache it came from,
/// the argument types, and the result (counted without atomics: a hit
/// hands out a reference to it, not a copy of the result type).
type RecentResolution = (Arc<Mutex<Resolutions>>, Vec<Type>, Rc<Resolution>);

/// How many recent resolutions a thread keeps: enough for the calls of a
/// compound expression in a loop (`a * b + c * d - e` makes four) to all
/// find theirs.
const RECENT: usize = 8;

/// The last [`RECENT`] resolutions made on a thread, replaced oldest first.
struct Recent {
    entries: [Option<RecentResolution>; RECENT],
    next: usize,
}

thread_local! {
    /// The recent resolutions made on this thread. A loop calling a few
    /// callables on arrays of a few types finds them here without
    /// allocating, hashing or taking a callable's lock. An entry holds the
    /// cache it belongs to, so that address cannot be reused by another
    /// callable while it is here.
    static LAST: std::cell::RefCell<Recent> = const {
        std::cell::RefCell::new(Recent {
            entries: [const { None }; RECENT],
            next: 0,
        })
    };
}

/// The most resolutions a callable keeps (a call with new shapes each
/// time would otherwise grow the cache without bound).
const CACHE_LIMIT: usize = 256;

impl std::fmt::Debug for Callable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Callable")
            .field("name", &self.name)
            .field(
                "signatures",
                &self
                    .signatures()
                    .iter()
                    .map(|s| s.to_string())
                    .collect::<Vec<_>>(),
            )
            .field("mode", &self.mode)
            .finish()
    }
}

impl Callable {
    /// A callable from overloads.
    ///
    /// # Errors
    ///
    /// [`Error::DuplicateOverload`] if two overloads take the same argument
    /// types (the ambiguity is found here, not at call time), or
    /// [`Error::Arity`] if they take different numbers of arguments.
    pub fn new(name: &str, overloads: Vec<Overload>) -> Result<Callable, Error> {
        for (i, a) in overloads.iter().enumerate() {
            if a.inputs().len() != overloads[0].inputs().len() {
                return Err(Error::Arity {
                    name: name.to_string(),
                    expected: overloads[0].inputs().len(),
                    found: a.inputs().len(),
                });
            }
            if let Some(b) = overloads[..i].iter().find(|b| b.inputs() == a.inputs()) {
                return Err(Error::DuplicateOverload {
                    name: name.to_string(),
                    first: b.signature.clone(),
                    second: a.signature.clone(),
                });
            }
        }
        Ok(Callable {
            name: name.into(),
            implementation: Implementation::Overloads(overloads.into()),
            mode: BroadcastMode::NumPy,
            keywords: Arc::from(Vec::new()),
            cache: new_cache(),
            dense: Arc::default(),
            folding: None,
            reduction: ReductionKind::None,
            reducer: None,
            small: None,
            records: None,
        })
    }

    /// A callable from a Rust function of elements, of any arity (the
    /// `apply` combinator; see [`Leaf::map`] for the parameter and result
    /// types it takes).
    pub fn map<Args: 'static, F: ElementFn<Args>>(name: &str, f: F) -> Callable {
        Callable {
            name: name.into(),
            implementation: Implementation::Overloads(vec![Overload::new(Leaf::map(f))].into()),
            mode: BroadcastMode::NumPy,
            keywords: Arc::from(Vec::new()),
            cache: new_cache(),
            dense: Arc::default(),
            folding: None,
            reduction: ReductionKind::None,
            reducer: None,
            small: None,
            records: None,
        }
    }

    /// A callable running `f` on whole arrays: `signature` (e.g. `(Any,
    /// type: string, errmode: ?string) -> Any`) gives the positional
    /// arguments and names the keywords, which `keywords` declare with
    /// their defaults, in the same order. Keyword arguments are checked as
    /// for every callable (unknown, repeated, missing) before `f` runs.
    ///
    /// ```
    /// use dynd::func::{Callable, Keyword};
    /// use dynd::nd::{array, Array};
    /// use dynd::ndt::Scalar;
    ///
    /// let scale = Callable::function(
    ///     "scale",
    ///     "(Any, by: ?int64) -> Any",
    ///     vec![Keyword::optional("by", Scalar::Int64, Array::from_scalar(2i64))],
    ///     |args, kw| {
    ///         let by = kw.int("by")?.unwrap_or(1) as f64;
    ///         Callable::map("times", move |x: f64| x * by).call(&[args[0]])
    ///     },
    /// )?;
    /// assert_eq!(scale.call(&[&array![1.0, 2.0]])?.to_string(), "[2, 4]");
    /// let three = Array::from_scalar(3i64);
    /// assert_eq!(scale.call_kw(&[&array![1.0]], &[("by", &three)])?.to_string(), "[3]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::NotASignature`] if `signature` is not a callable type, and
    /// [`Error::KeywordMismatch`] if its keywords are not `keywords`' names
    /// in order.
    pub fn function(
        name: &str,
        signature: &str,
        keywords: Vec<Keyword>,
        f: impl Fn(&[&Array], &Kwargs<'_>) -> Result<Array, Error> + Send + Sync + 'static,
    ) -> Result<Callable, Error> {
        let signature: Type = signature.parse()?;
        let TypeKind::Callable(sig) = signature.kind() else {
            return Err(Error::NotASignature { ty: signature });
        };
        let declared: Vec<&str> = keywords.iter().map(|k| &*k.name).collect();
        let named: Vec<&str> = sig.keywords.iter().map(|(n, _)| &**n).collect();
        if declared != named {
            return Err(Error::KeywordMismatch {
                name: name.to_string(),
                signature: named.join(", "),
                declared: declared.join(", "),
            });
        }
        let positional = sig.positional.len();
        let variadic = sig.variadic_positional;
        Ok(Callable {
            name: name.into(),
            implementation: Implementation::Function(Function {
                signature,
                positional,
                variadic,
                run: Arc::new(f),
                typed: None,
                categories: false,
            }),
            mode: BroadcastMode::NumPy,
            keywords: keywords.into(),
            cache: new_cache(),
            dense: Arc::default(),
            folding: None,
            reduction: ReductionKind::None,
            reducer: None,
            small: None,
            records: None,
        })
    }

    /// The same callable with SlangPy's strict broadcasting: only 0-d
    /// arguments extend to more dimensions.
    #[must_use]
    pub fn strict(mut self) -> Callable {
        self.mode = BroadcastMode::Strict;
        self.cache = Arc::default();
        self.dense = Arc::default();
        self
    }

    /// The same callable under another name (an alias: NumPy's `mod` of
    /// `remainder`), sharing its overloads; its errors name the alias.
    pub(crate) fn renamed(&self, name: &str) -> Callable {
        Callable {
            name: name.into(),
            ..self.clone()
        }
    }

    /// The same callable whose last `keywords.len()` leaf inputs are
    /// keyword arguments, in this order.
    ///
    /// # Errors
    ///
    /// [`Error::Arity`] if the overloads take fewer inputs than there are
    /// keywords, [`Error::DuplicateKeyword`] for a name given twice.
    pub fn with_keywords(mut self, keywords: Vec<Keyword>) -> Result<Callable, Error> {
        if let Some(f) = self.whole_array_fn() {
            return Err(dynd_kernels::Error::Unsupported {
                operation: "adding keywords to a function callable (its signature names them)",
                ty: f.signature.clone(),
            });
        }
        if let Some(o) = self
            .overloads()
            .iter()
            .find(|o| matches!(o.body, Body::Core(_)))
        {
            return Err(dynd_kernels::Error::Unsupported {
                operation: "keyword arguments on a core-dimension overload",
                ty: o.signature.clone(),
            });
        }
        if keywords.len() > self.arity() {
            return Err(Error::Arity {
                name: self.name.to_string(),
                expected: self.arity(),
                found: keywords.len(),
            });
        }
        for (i, k) in keywords.iter().enumerate() {
            if !k.convert || (k.optional && k.default.is_none()) {
                return Err(Error::KeywordDeclaration {
                    name: self.name.to_string(),
                    keyword: k.name.to_string(),
                    problem: "of an elementwise callable needs a type and, if optional, a default",
                });
            }
            if keywords[..i].iter().any(|o| o.name == k.name) {
                return Err(Error::DuplicateKeyword {
                    name: self.name.to_string(),
                    keyword: k.name.to_string(),
                });
            }
        }
        self.keywords = keywords.into();
        self.cache = Arc::default();
        self.dense = Arc::default();
        Ok(self)
    }

    /// The keyword arguments.
    pub fn keywords(&self) -> &[Keyword] {
        &self.keywords
    }

    /// Calls the callable with keyword arguments: each is checked (an
    /// unknown, repeated or missing one is an error naming it and listing
    /// the valid ones), cast to its declared type, and passed after the
    /// positional arguments; optional ones not given take their defaults.
    ///
    /// ```
    /// use dynd::func::builtins;
    /// use dynd::nd::{array, Array};
    ///
    /// let clip = builtins::get("clip").unwrap();
    /// let r = clip.call_kw(&[&array![-2.0, 0.5, 3.0]], &[("lo", &Array::from_scalar(0.0f64))])?;
    /// assert_eq!(r.to_string(), "[0, 0.5, 3]");
    /// let err = clip.call_kw(&[&array![1.0]], &[("low", &Array::from_scalar(0.0f64))]).unwrap_err();
    /// assert_eq!(err.to_string(), "clip: unknown keyword argument 'low' (valid keywords: lo, hi)");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::UnknownKeyword`], [`Error::DuplicateKeyword`],
    /// [`Error::MissingKeyword`], then as [`Callable::call`].
    pub fn call_kw(&self, args: &[&Array], kwargs: &[(&str, &Array)]) -> Result<Array, Error> {
        let valid = || {
            self.keywords
                .iter()
                .map(|k| k.name.to_string())
                .collect::<Vec<_>>()
        };
        for (i, (k, _)) in kwargs.iter().enumerate() {
            if kwargs[..i].iter().any(|(o, _)| o == k) {
                return Err(Error::DuplicateKeyword {
                    name: self.name.to_string(),
                    keyword: k.to_string(),
                });
            }
            if !self.keywords.iter().any(|kw| &*kw.name == *k) {
                return Err(Error::UnknownKeyword {
                    name: self.name.to_string(),
                    keyword: k.to_string(),
                    valid: valid(),
                });
            }
        }
        let positional = self.arity() - self.keywords.len();
        let variadic = self.whole_array_fn().is_some_and(|f| f.variadic);
        if args.len() != positional && !(variadic && args.len() > positional) {
            return Err(Error::Arity {
                name: self.name.to_string(),
                expected: positional,
                found: args.len(),
            });
        }
        if let Some(f) = self.whole_array_fn() {
            if !f.categories && args.iter().any(|a| a.is_categorical()) {
                let decoded = categories::decoded(args)?;
                let refs: Vec<&Array> = decoded.iter().collect();
                return self.call_kw(&refs, kwargs);
            }
            let values = self
                .keywords
                .iter()
                .map(|kw| {
                    let given = kwargs.iter().find(|(k, _)| *k == &*kw.name);
                    match given {
                        Some((_, a)) => self.keyword_value(kw, a).map(Some),
                        None => Ok(kw.default.clone()),
                    }
                })
                .collect::<Result<Vec<_>, Error>>()?;
            if let Some(kw) = self
                .keywords
                .iter()
                .zip(&values)
                .find_map(|(kw, v)| (v.is_none() && !kw.optional).then_some(kw))
            {
                return Err(Error::MissingKeyword {
                    name: self.name.to_string(),
                    keyword: kw.name.to_string(),
                    valid: valid(),
                });
            }
            let kw = Kwargs {
                name: &self.name,
                keywords: &self.keywords,
                values,
            };
            return (f.run)(args, &kw);
        }
        let mut values: Vec<Array> = Vec::with_capacity(self.keywords.len());
        for kw in self.keywords.iter() {
            let given = kwargs
                .iter()
                .find(|(k, _)| *k == &*kw.name)
                .map(|(_, a)| (*a).clone());
            let value =
                given
                    .or_else(|| kw.default.clone())
                    .ok_or_else(|| Error::MissingKeyword {
                        name: self.name.to_string(),
                        keyword: kw.name.to_string(),
                        valid: valid(),
                    })?;
            values.push(self.keyword_value(kw, &value)?);
        }
        let mut all: Vec<&Array> = args.to_vec();
        all.extend(values.iter());
        self.call(&all)
    }

    /// A keyword's value cast to its declared element type.
    fn keyword_value(&self, kw: &Keyword, value: &Array) -> Result<Array, Error> {
        let from = value_scalar(value.dtype());
        if from == Some(kw.ty) || !kw.convert {
            return Ok(value.clone());
        }
        // Numbers convert among themselves (checked); text is not parsed
        // into numbers nor numbers formatted into text.
        let text = |s: Option<Scalar>| matches!(s, Some(Scalar::String | Scalar::Bytes));
        if text(from) || text(Some(kw.ty)) {
            return Err(Error::KeywordValue {
                name: self.name.to_string(),
                keyword: kw.name.to_string(),
                expected: if text(Some(kw.ty)) {
                    "a string".into()
                } else {
                    kw.ty.to_string()
                },
                found: format!("{value} ({})", value.ty()),
            });
        }
        let (dims, _) = value.ty().split_dims();
        let ty = Type::with_dims(dims.into_iter().cloned(), Type::from(kw.ty))?;
        value
            .cast(&ty, ErrorMode::Fractional)
            .map_err(|e| Error::KeywordValue {
                name: self.name.to_string(),
                keyword: kw.name.to_string(),
                expected: kw.ty.to_string(),
                found: format!("{value} ({}): {e}", value.ty()),
            })
    }

    /// The overloads (none for a function callable).
    pub(crate) fn overloads(&self) -> &[Overload] {
        match &self.implementation {
            Implementation::Overloads(o) => o,
            Implementation::Function(_) => &[],
        }
    }

    /// Whether its calls in an expression take part in the fused pass
    /// (overloads without keywords); the others (functions over whole
    /// arrays such as `cast` or `sort`, calls with keywords) are computed
    /// first and enter the pass as leaves, so their result types are known
    /// only then.
    pub fn fuses(&self) -> bool {
        self.whole_array_fn().is_none() && self.keywords().is_empty()
    }

    /// The function over whole arrays, for a function callable.
    pub(crate) fn whole_array_fn(&self) -> Option<&Function> {
        match &self.implementation {
            Implementation::Function(f) => Some(f),
            Implementation::Overloads(_) => None,
        }
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the callable is typed overloads (elementwise, or over core
    /// dimensions), whose result type follows from the argument types alone
    /// ([`Callable::resolve`]); a function callable (the reductions,
    /// `take`, `sort`, …) is resolved by running it.
    ///
    /// ```
    /// use dynd::func::builtins;
    ///
    /// assert!(builtins::get("arctan2")?.is_overloaded());
    /// assert!(!builtins::get("sum")?.is_overloaded());
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn is_overloaded(&self) -> bool {
        self.whole_array_fn().is_none()
    }

    /// What kind of reduction the callable is ([`ReductionKind::None`] for
    /// one that is not a reduction over an `axis` keyword): how results of
    /// parts of its argument combine.
    pub fn reduction_kind(&self) -> ReductionKind {
        self.reduction
    }

    /// The number of arguments.
    pub fn arity(&self) -> usize {
        match self.whole_array_fn() {
            Some(f) => f.positional + self.keywords.len(),
            None => self.overloads().first().map_or(0, |o| o.inputs().len()),
        }
    }

    /// The overloads' signatures, keyword arguments by name (`?T` for
    /// optional ones).
    pub fn signatures(&self) -> Vec<Type> {
        if let Some(f) = self.whole_array_fn() {
            return vec![f.signature.clone()];
        }
        if self.keywords.is_empty() {
            return self
                .overloads()
                .iter()
                .map(|o| o.signature.clone())
                .collect();
        }
        self.overloads()
            .iter()
            .map(|o| {
                let TypeKind::Callable(all) = o.signature.kind() else {
                    return o.signature.clone();
                };
                let positional = all.positional.len().saturating_sub(self.keywords.len());
                let sig = dynd_types::Signature {
                    positional: all.positional[..positional].to_vec(),
                    variadic_positional: false,
                    keywords: self
                        .keywords
                        .iter()
                        .map(|k| {
                            let t = Type::from(k.ty);
                            let t = if k.default.is_some() {
                                Type::option(t.clone()).unwrap_or(t)
                            } else {
                                t
                            };
                            (k.name.clone(), t)
                        })
                        .collect(),
                    variadic_keywords: false,
                    ret: all.ret.clone(),
                };
                Type::new(TypeKind::Callable(sig)).unwrap_or_else(|_| o.signature.clone())
            })
            .collect()
    }

    /// The outer product: `f` applied to every combination of elements, so
    /// the result has the first argument's dimensions, then the second's,
    /// and so on (each argument gets its own dimensions).
    ///
    /// ```
    /// use dynd::func::builtins;
    /// use dynd::nd::array;
    ///
    /// let mul = builtins::get("multiply").unwrap();
    /// let table = mul.outer(&[&array![1, 2, 3], &array![10, 100]])?;
    /// assert_eq!(table.to_string(), "[[10, 100], [20, 200], [30, 300]]");
    /// assert_eq!(table.ty().to_string(), "3 * 2 * int64");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Callable::call`].
    pub fn outer(&self, args: &[&Array]) -> Result<Array, Error> {
        // Each argument's own (leading) dimensions; core dimensions stay last.
        let dtypes: Vec<Type> = args.iter().map(|a| a.dtype().clone()).collect();
        let o = self.dispatch(&dtypes)?;
        let core: Vec<usize> = (0..args.len()).map(|i| o.input_core(i)).collect();
        let ndims: Vec<usize> = args
            .iter()
            .zip(&core)
            .map(|(a, c)| a.ndim().saturating_sub(*c))
            .collect();
        let expanded = args
            .iter()
            .enumerate()
            .map(|(i, a)| {
                let later: usize = ndims[i + 1..].iter().sum();
                (0..later).try_fold((*a).clone(), |acc, _| {
                    let at = acc.ndim().saturating_sub(core[i]);
                    acc.expand_dims(at)
                })
            })
            .collect::<Result<Vec<Array>, _>>()?;
        let refs: Vec<&Array> = expanded.iter().collect();
        self.call(&refs)
    }

    /// The arguments, cast to the overload's input types where they differ.
    fn cast_args(&self, args: &[&Array], o: &Overload) -> Result<Vec<Array>, Error> {
        args.iter()
            .zip(o.inputs())
            .zip(o.options())
            .map(|((a, t), option)| {
                let is_option = matches!(a.dtype().kind(), TypeKind::Option(_));
                if value_scalar(a.dtype()) == Some(*t) && (is_option || !option) {
                    Ok((*a).clone())
                } else {
                    let (dims, _) = a.ty().split_dims();
                    // An option parameter takes `?T`; elsewhere an option
                    // argument stays one (NA propagates).
                    let target = if is_option || *option {
                        Type::option(Type::from(*t))?
                    } else {
                        Type::from(*t)
                    };
                    let ty = Type::with_dims(dims.into_iter().cloned(), target)?;
                    Ok(a.cast(&ty, ErrorMode::Fractional)?)
                }
            })
            .collect()
    }
}

/// `e` with [`keepdims_hint`](crate::error::keepdims_hint)'s suggestion
/// for the arguments `args`.
pub(crate) fn hinted(e: Error, args: &[&Array]) -> Error {
    let tys: smallvec::SmallVec<[&Type; 4]> = args.iter().map(|a| a.ty()).collect();
    crate::error::keepdims_hint(e, &tys)
}
