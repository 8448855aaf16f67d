//! The builtin library: every builtin by name ([`get`], [`all`]), for
//! the callers that name functions at run time (the CLI, SQL, user input).
//! Library code calls a builtin through its handle instead
//! ([`ADD`]`.call(...)`; see [`Builtin`]).
//!
//! Every builtin is a handle below, documented with its signatures: one
//! entry of a table in `elementwise/*.rs` (NumPy's ufuncs),
//! `reductions.rs`, `arrays.rs` (constructors, views, the cast),
//! `ordering.rs` (argmax, sort, unique, ...), `strings/` (NumPy's
//! `np.strings`: upper, find, strip, ...), `records.rs` (field, zip,
//! with_field), `shaping.rs`
//! (concatenate, stack, ...) or `lists.rs` (num, flatten, pad, softmax,
//! filter, ...: the per-row functions of ragged arrays).
//!
//! Associative builtins have a reduction, `NAME.reduce`, and a scan,
//! `NAME.accumulate` (see [`crate::fold`]).
//!
//! ```
//! use dynd::func::builtins;
//! use dynd::nd::array;
//!
//! let less = builtins::get("less").unwrap();
//! assert_eq!(less.call(&[&array![1, 5, 3], &array![2]])?.to_string(), "[true, false, false]");
//! let total = builtins::get("add.reduce")?;
//! assert_eq!(total.call(&[&array![1, 2, 3]])?.to_string(), "6");
//! # Ok::<(), dynd::Error>(())
//! ```

use std::collections::BTreeMap;
use std::sync::OnceLock;

use crate::callable::Callable;
use crate::error::Error;

pub use crate::arrays::{CAST, FULL, INDEX, ONES, RANGE, RESHAPE, SORTED, TAKE, ZEROS};
pub use crate::builtin::{Builtin, Kind, Operator};
pub use crate::elementwise::*;
#[doc(no_inline)]
pub use crate::elementwise::{divmod, frexp, modf};
pub use crate::groups::{
    CATEGORIES, CODES, DICTIONARY_ENCODE, FIRST, GROUPBY, GROUPBY_KEYS, LAST, RUN_LENGTHS,
    VALUE_COUNTS,
};
pub use crate::lists::{
    FILTER, FLATTEN, LOCAL_INDEX, LOGSUMEXP, LOG_SOFTMAX, NUM, PAD, SOFTMAX, TAKE_ALONG_AXIS,
    UNFLATTEN, UNPAD,
};
pub use crate::ordering::{
    ARGMAX, ARGMIN, ARGSORT, COUNT_NONZERO, NONZERO, SEARCHSORTED, SORT, UNIQUE,
};
pub use crate::records::{FIELD, WITH_FIELD, ZIP};
pub use crate::reductions::{
    ALL, ANY, COUNT, CUMPROD, CUMSUM, FILL_NA, IS_NA, KAHAN_SUM, MAX, MEAN, MIN, NULL_COUNT, PROD,
    STD, SUM, VAR,
};
pub use crate::shaping::{ARANGE, CONCATENATE, DIFF, FLIP, LINSPACE, REPEAT, STACK, TILE};
pub use crate::strings::*;
pub use crate::temporal::{
    ASSUME_TIMEZONE, CEIL_TEMPORAL, DAY, DAYS_BETWEEN, DAY_OF_WEEK, DAY_OF_YEAR, FLOOR_TEMPORAL,
    HOUR, HOURS_BETWEEN, ISO_WEEK, ISO_YEAR, IS_LEAP_YEAR, MICROSECOND, MICROSECONDS_BETWEEN,
    MILLISECOND, MILLISECONDS_BETWEEN, MINUTE, MINUTES_BETWEEN, MONTH, NANOSECOND,
    NANOSECONDS_BETWEEN, QUARTER, QUARTERS_BETWEEN, ROUND_TEMPORAL, SECOND, SECONDS_BETWEEN,
    STRFTIME, STRPTIME, WEEKS_BETWEEN, YEAR, YEARS_BETWEEN,
};

/// Every builtin by name, from each module's entries; a name given twice,
/// or an entry whose callable has another name, is refused.
fn build() -> Result<BTreeMap<&'static str, Callable>, Error> {
    let mut m = BTreeMap::new();
    let mut entries = Vec::new();
    for b in handles() {
        entries.push((b.name(), b.get_or_build()?.clone()));
    }
    for (name, c) in entries {
        if c.name() != name {
            return Err(Error::BuiltinName {
                entry: name.into(),
                callable: c.name().into(),
            });
        }
        if m.insert(name, c).is_some() {
            return Err(Error::DuplicateBuiltin { name: name.into() });
        }
    }
    Ok(m)
}

fn registry() -> &'static BTreeMap<&'static str, Callable> {
    static REGISTRY: OnceLock<BTreeMap<&'static str, Callable>> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        build().unwrap_or_else(|e| unreachable!("the builtins build (a unit test checks): {e}"))
    })
}

/// The builtin callable called `name`; `NAME.reduce` is the
/// [reduction](Callable::reduce) of an associative builtin, and
/// `NAME.accumulate` its [scan](Callable::accumulate).
///
/// ```
/// use dynd::func::builtins;
///
/// assert_eq!(builtins::get("add")?.name(), "add");
/// let e = builtins::get("mena").unwrap_err();
/// assert_eq!(e.to_string(), "no builtin is called 'mena' (did you mean 'mean'?)");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// [`Error::UnknownFunction`] with the close names, or the reduction's
/// error for `NAME.reduce` or `NAME.accumulate` of a builtin that is not
/// associative.
pub fn get(name: &str) -> Result<Callable, Error> {
    // A dynamic caller may pass expressions next: their evaluation is
    // this layer's.
    crate::eval::install();
    if let Some(op) = name.strip_suffix(".reduce") {
        if let Some(c) = registry().get(op) {
            return c.reduce();
        }
    }
    if let Some(op) = name.strip_suffix(".accumulate") {
        if let Some(c) = registry().get(op) {
            return c.accumulate();
        }
    }
    registry().get(name).cloned().ok_or_else(|| {
        // Reductions and scans by their `NAME.reduce` and
        // `NAME.accumulate` names too.
        let reductions: Vec<String> = registry()
            .values()
            .filter(|c| c.is_associative())
            .flat_map(|c| {
                [
                    format!("{}.reduce", c.name()),
                    format!("{}.accumulate", c.name()),
                ]
            })
            .collect();
        let names = registry()
            .keys()
            .copied()
            .chain(reductions.iter().map(String::as_str));
        Error::UnknownFunction {
            name: name.to_string(),
            suggestions: dynd_types::similar_names(name, names)
                .into_iter()
                .take(3)
                .map(str::to_string)
                .collect(),
        }
    })
}

/// Every builtin declared as a [`Builtin`] entry (the elementwise,
/// core-dimension and reduction ones), in table order.
pub fn handles() -> impl Iterator<Item = &'static Builtin> {
    use crate::elementwise as e;
    e::TABLE
        .iter()
        .chain(e::ROUNDING)
        .chain(e::TRANSCENDENTAL)
        .chain(e::FLOATING)
        .chain(e::BITWISE)
        .chain(crate::reductions::TABLE)
        .chain(crate::arrays::TABLE)
        .chain(crate::ordering::TABLE)
        .chain(crate::shaping::TABLE)
        .chain(crate::lists::TABLE)
        .chain(crate::groups::TABLE)
        .chain(crate::strings::TABLE)
        .chain(crate::records::TABLE)
        .chain(crate::temporal::TABLE)
        .copied()
}

/// Every builtin, by name.
pub fn all() -> impl Iterator<Item = &'static Callable> {
    registry().values()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::{for_operator, handles, Kind, Operator};
    use dynd_array::expr::{BinaryOp, UnaryOp};

    /// The names in the first column of the module docs' table, and the
    /// elementwise builtins' entries.
    fn documented() -> BTreeSet<String> {
        include_str!("builtins.rs")
            .lines()
            .filter_map(|l| l.strip_prefix("//! | `"))
            .flat_map(|row| {
                let first = row.split(" | ").next().unwrap_or_default();
                first
                    .split(", ")
                    .map(|n| n.trim_matches('`').to_string())
                    .collect::<Vec<_>>()
            })
            .chain(handles().map(|b| b.name().to_string()))
            .collect()
    }

    #[test]
    fn every_entry_builds_under_its_own_name_with_a_doc_row() {
        super::build().unwrap();
        for b in handles() {
            let c = b.get_or_build().unwrap();
            assert_eq!(c.name(), b.name());
            assert!(!b.doc().trim().is_empty(), "{} has no doc row", b.name());
            if let Kind::Elementwise(n, _) = b.kind() {
                assert!(
                    c.overloads().iter().all(|o| o.inputs().len() == n),
                    "{}",
                    b.name()
                );
            }
        }
    }

    #[test]
    fn every_operator_has_its_builtin() {
        use BinaryOp as B;
        let binary = [
            B::Add,
            B::Subtract,
            B::Multiply,
            B::Divide,
            B::Remainder,
            B::Power,
            B::Equal,
            B::NotEqual,
            B::Less,
            B::LessEqual,
            B::Greater,
            B::GreaterEqual,
            B::BitAnd,
            B::BitOr,
            B::BitXor,
            B::LeftShift,
            B::RightShift,
        ];
        for op in binary {
            assert_eq!(for_operator(Operator::Binary(op)).name(), op.name());
        }
        for op in [UnaryOp::Negative, UnaryOp::Invert] {
            assert_eq!(for_operator(Operator::Unary(op)).name(), op.name());
        }
    }

    #[test]
    fn the_documented_table_lists_every_builtin_and_no_other() {
        let all: BTreeSet<String> = super::all().map(|c| c.name().to_string()).collect();
        let documented = documented();
        let missing: Vec<&String> = all.difference(&documented).collect();
        let extra: Vec<&String> = documented.difference(&all).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "builtins missing from the table: {missing:?}; in the table but not builtins: {extra:?}"
        );
    }
}
