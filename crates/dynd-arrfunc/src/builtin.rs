//! [`Builtin`]: one builtin of the library, declared once.
//!
//! A builtin is one entry of a `builtins!` table: its handle (a
//! `static`), its name, its documentation row, what it is (elementwise of
//! some arity, an operator's builtin, a core-dimension function), and the
//! block that builds its callable. Everything else derives from the entry:
//! the registry that finds it by name for dynamic callers, the facade's
//! typed function, the `Expr` operator's evaluation, the CLI's infix
//! operator and the documentation. Library code calls a builtin through
//! its handle, never by its name.
//!
//! ```
//! use dynd::func::builtins::{self, ADD};
//! use dynd::nd::array;
//!
//! let r = ADD.call(&[&array![1, 2], &array![10]])?;
//! assert_eq!(r.to_string(), "[11, 12]");
//! assert_eq!(ADD.name(), "add");
//! assert_eq!(builtins::get("add")?.name(), ADD.callable().name());
//! # Ok::<(), dynd::Error>(())
//! ```

use std::sync::OnceLock;

use dynd_array::expr::{BinaryOp, UnaryOp};
use dynd_kernels::{Array, Value};

use crate::callable::{Callable, Keyword, Overload};
use crate::error::Error;

/// What a builtin is, as the typed API and the operators see it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Kind {
    /// An elementwise function of this many arrays (broadcast together),
    /// and the `Expr` operator that calls it, if any.
    Elementwise(usize, Option<Operator>),
    /// A function of this many arrays and no keywords (core dimensions,
    /// whole arrays): the facade's typed function passes them as they are.
    Function(usize),
    /// A function of an array over axes, with
    /// [`AxisOptions`](crate::AxisOptions) as its keywords.
    Reduction,
    /// A function with a hand-written typed function of its name, whose
    /// arguments are the keywords' Rust types (`func::argmax(&x,
    /// Some(1), false)`, `func::round(&x, 2)`).
    Typed,
    /// A reduction over axes with [`AxisOptions`](crate::AxisOptions) that
    /// the facade makes three methods of `ArrayExt` for (`x.sum()`,
    /// `x.sum_axis(1)`, `x.sum_with(&options)`) instead of a function.
    Method,
    /// A function whose keywords no typed function covers (a method may).
    Other,
}

/// The `Expr` operator (and CLI infix operator) that calls a builtin.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operator {
    /// A binary operator (`a + b`).
    Binary(BinaryOp),
    /// A unary operator (`-a`).
    Unary(UnaryOp),
}

/// One builtin: its name and documentation row, what it is, and its
/// callable, built on first use and then shared. Declared with
/// `builtins!`; see the [module docs](self).
pub struct Builtin {
    name: &'static str,
    doc: &'static str,
    kind: Kind,
    build: fn() -> Result<Callable, Error>,
    cell: OnceLock<Callable>,
}

impl Builtin {
    /// A builtin whose callable `build` makes (the `builtins!` table's
    /// entries).
    #[doc(hidden)]
    pub const fn new(
        name: &'static str,
        doc: &'static str,
        kind: Kind,
        build: fn() -> Result<Callable, Error>,
    ) -> Builtin {
        Builtin {
            name,
            doc,
            kind,
            build,
            cell: OnceLock::new(),
        }
    }

    /// The name (what dynamic callers, the CLI and SQL call it).
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The documentation row: signatures and notes.
    pub fn doc(&self) -> &'static str {
        self.doc
    }

    /// What it is.
    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The callable, built on first use.
    pub fn callable(&'static self) -> &'static Callable {
        self.get_or_build().unwrap_or_else(|e| {
            unreachable!(
                "builtin {} builds (a unit test builds each): {e}",
                self.name
            )
        })
    }

    /// Calls the builtin on `args`.
    ///
    /// # Errors
    ///
    /// As [`Callable::call`].
    pub fn call(&'static self, args: &[&Array]) -> Result<Array, Error> {
        self.callable().call(args)
    }

    /// The callable, built on first use, reporting a failure to build
    /// instead of panicking (the registry and its tests).
    pub(crate) fn get_or_build(&'static self) -> Result<&'static Callable, Error> {
        if let Some(c) = self.cell.get() {
            return Ok(c);
        }
        let built = (self.build)()?;
        Ok(self.cell.get_or_init(|| built))
    }
}

impl std::fmt::Debug for Builtin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Builtin")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .finish()
    }
}

/// Whether a builtin's binary operation may be regrouped.
pub(crate) enum Fold {
    /// Not declared associative.
    No,
    /// Associative, with this identity (or none).
    Associative(Option<Value>),
}

/// A builtin's callable: its overloads, its identity if it is an
/// associative operation (which gives it `NAME.reduce` and
/// `NAME.accumulate`), and its keywords.
pub(crate) fn entry(
    name: &'static str,
    overloads: Vec<Overload>,
    fold: Fold,
    keywords: Vec<Keyword>,
) -> Result<Callable, Error> {
    let mut c = Callable::new(name, overloads)?;
    if let Fold::Associative(identity) = fold {
        c = c.associative(identity)?;
    }
    if !keywords.is_empty() {
        c = c.with_keywords(keywords)?;
    }
    Ok(c)
}

/// Declares builtins, one entry each:
///
/// ```text
/// builtins! {
///     $ TABLE, __list_macro;
///     /// `(T, T) -> T` for every numeric `T`: ...
///     ADD add "add" 2 Some(Operator::Binary(BinaryOp::Add)) => {
///         entry("add", overloads, int(0), vec![])
///     };
///     /// `(N * T) -> T` for floats: ...
///     NORM norm "norm" _ None => { ... };
/// }
/// ```
///
/// The token after the name says which typed function the facade makes:
/// the arity of an elementwise builtin (a function of that many arrays),
/// `f1`/`f2` for another builtin of one or two arrays without keywords,
/// `axes` for one of an array and `AxisOptions`, `rs` for one whose typed
/// function is written by hand beside the table (a `pub fn` of the
/// entry's function name in the table's module, with its own arguments:
/// `argmax(x, axis, keepdims)`), `(method NAME_axis NAME_with "what")`
/// for a reduction the facade makes three methods of `ArrayExt` for
/// (`x.sum()`, `x.sum_axis(1)`, `x.sum_with(&options)`, documented as
/// "the what of every element"), `_` for one with no typed function (a
/// method covers it, or nothing does); then the operator that calls it,
/// if any.
///
/// Each entry gives a `pub static` handle with the doc comment, whose
/// callable the block builds on first use; `TABLE` lists the table's
/// handles (for the registry); the module `typed_fns` re-exports the `rs`
/// functions (the crate root re-exports every table's, so no list of
/// them is kept by hand); and the exported `__list_macro!(callback)`
/// calls `callback!` with `(fn_name, HANDLE, kind)` for each entry, from
/// which the facade makes its typed functions and re-exports the `rs`
/// ones. (The leading `$` lets this macro write that one.)
macro_rules! builtins {
    (
        $d:tt $all:ident, $list:ident;
        $(
            $(#[doc = $doc:literal])*
            $handle:ident $fname:ident $name:literal $arity:tt $op:expr => $build:block;
        )*
    ) => {
        $(
            $(#[doc = $doc])*
            #[doc = ""]
            #[doc = concat!("The builtin `", $name, "`.")]
            pub static $handle: $crate::builtin::Builtin = $crate::builtin::Builtin::new(
                $name,
                concat!($($doc, "\n"),*),
                $crate::builtin::kind!($arity, $op),
                {
                    fn build() -> Result<$crate::Callable, $crate::Error> $build
                    build
                },
            );
        )*

        /// Every builtin of this table.
        pub(crate) static $all: &[&$crate::builtin::Builtin] = &[$(&$handle),*];

        /// The hand-written typed functions of this table's builtins
        /// (kind `rs`), for the crate root to re-export.
        pub(crate) mod typed_fns {
            $($crate::builtin::typed_fn!($fname, $arity);)*
        }

        /// Calls `$callback!` with `(fn_name, HANDLE, arity)` for each builtin of
        /// this table (the facade's typed functions are made from it).
        #[doc(hidden)]
        #[macro_export]
        macro_rules! $list {
            ($d callback:path) => {
                $d callback! { $(($fname, $handle, $arity))* }
            };
        }
    };
}

/// A builtin's [`Kind`] from its table entry: `_` (no typed function),
/// `f1`/`f2` for [`Kind::Function`], `axes` for [`Kind::Reduction`],
/// `(method ...)` for [`Kind::Method`], else
/// the arity and operator of an elementwise one.
macro_rules! kind {
    (_, $op:expr) => {
        $crate::builtin::Kind::Other
    };
    (f1, $op:expr) => {
        $crate::builtin::Kind::Function(1)
    };
    (f2, $op:expr) => {
        $crate::builtin::Kind::Function(2)
    };
    (axes, $op:expr) => {
        $crate::builtin::Kind::Reduction
    };
    ((method $($names:tt)*), $op:expr) => {
        $crate::builtin::Kind::Method
    };
    (rs, $op:expr) => {
        $crate::builtin::Kind::Typed
    };
    ($n:literal, $op:expr) => {
        $crate::builtin::Kind::Elementwise($n, $op)
    };
}

/// The re-export of an `rs` entry's hand-written function (inside the
/// table's `typed_fns` module); nothing for any other kind.
macro_rules! typed_fn {
    ($fname:ident, rs) => {
        pub use super::$fname;
    };
    ($fname:ident, $other:tt) => {};
}

pub(crate) use {builtins, kind, typed_fn};
