//! dynd callables as [Apache DataFusion](https://datafusion.apache.org)
//! functions: SQL and DataFrames over Arrow data calling dynd's builtins and
//! your `#[elemental]` fns, with dynd's broadcasting over list columns.
//!
//! - [`scalar_udf`]: an elementwise or core-dimension callable as a scalar
//!   UDF. Each row is one element of the call; rows broadcast against each
//!   other, so `subtract(durations, avg)` subtracts a `Float64` row from
//!   every value of a `List<Float64>` row, and a literal broadcasts against
//!   every row.
//! - [`row_reduction_udf`]: a reduction per row (`row_mean(durations)`).
//! - [`aggregate_udf`]: a reduction as an aggregate (`kahan_sum(x)` with
//!   `GROUP BY`), whose partial states merge across partitions and
//!   machines; [`accumulator_udaf`] makes one from a stateful reduction of
//!   your own (init, step, combine, finish).
//! - [`register`] adds one callable in all the forms it has;
//!   [`register_all`] every builtin.
//!
//! # Types
//!
//! A column's rows have the dynd type of its Arrow type
//! ([`dynd::nd::arrow_interop`]): primitives as themselves, `Boolean` as
//! `bool`, `Utf8`/`LargeUtf8`/`Utf8View` as `string`, `List`/`LargeList`
//! as `var * T`, `FixedSizeList(k)` as `k * T`, `Struct` as a struct; a
//! nullable field's values are `?T`, dynd's NA. Values are shared with the
//! Arrow buffers where the layouts agree. DataFusion casts decimals to
//! `Float64` and dictionaries to their values before the call; `Date32`,
//! `Time32`/`Time64`, `Timestamp` (with its zone) and `Duration` are
//! dynd's time types; other types (`Date64`, intervals, maps, unions) are
//! a planning error naming the function and the argument types. A null list, fixed-size list or struct
//! row (dynd has no optional dimensions) gives a null result row without
//! being passed to the function.
//!
//! # Names
//!
//! A UDF has the callable's name (`add.reduce` as `add_reduce`, a row
//! reduction as `row_NAME`). [`register`] and [`register_all`] never shadow
//! DataFusion's own functions: each is registered as `dynd_NAME`, and also
//! as plain `NAME` when DataFusion has no function of that name — so
//! `hypot(x, y)` and `kahan_sum(x)` are dynd's, `sum(x)` stays DataFusion's
//! and dynd's is `dynd_sum(x)`.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use datafusion::prelude::SessionContext;
//!
//! let ctx = SessionContext::new();
//! dynd_datafusion::register_all(&ctx)?;
//! let df = ctx
//!     .sql("SELECT subtract(d, row_mean(d)) AS centred FROM (VALUES ([1.0, 2.0, 6.0]), ([4.0])) AS t(d)")
//!     .await?;
//! let text = datafusion::arrow::util::pretty::pretty_format_batches(&df.collect().await?)?.to_string();
//! assert!(text.contains("[-2.0, -1.0, 3.0]") && text.contains("[0.0]"), "{text}");
//! # Ok(())
//! # }
//! ```
//!
//! ## Layering
//!
//! A module imports only from floors below its own (checked by the main
//! workspace's `tests/layering.rs`):
//!
//! | floor | modules |
//! |---|---|
//! | 4 | `files`, `ballista` |
//! | 3 | `aggregate` |
//! | 2 | `scalar`, `groups` |
//! | 1 | `types`, `state` |

// A dependency nobody uses cannot linger (CI denies warnings).
#![cfg_attr(not(test), warn(unused_crate_dependencies))]

// The `dynd-sql` binary's own dependencies (a package has no
// binary-only dependencies).
use clap as _;
use tokio as _;

mod aggregate;
#[cfg(feature = "ballista")]
pub mod ballista;
pub mod files;
mod groups;
mod scalar;
mod state;
mod types;

use std::collections::BTreeSet;
use std::sync::Arc;

use datafusion::common::Result;
use datafusion::execution::session_state::SessionState;
use datafusion::execution::FunctionRegistry;
use datafusion::logical_expr::{AggregateUDF, AggregateUDFImpl, ScalarUDF, ScalarUDFImpl};
use datafusion::prelude::SessionContext;
use dynd::func::{builtins, Callable, ReductionKind};

pub use aggregate::{accumulator_udaf, aggregate_udf, DyndAggregate};
pub use scalar::{function_udf, row_reduction_udf, scalar_udf, DyndScalarUdf};
pub use state::{State, StateValue};

/// The re-exported DataFusion, so a user's version matches this crate's.
pub use datafusion;

/// What [`register`] and [`register_all`] added: the SQL names, sorted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Registered {
    /// Scalar functions (elementwise, core-dimension and row reductions).
    pub scalar: BTreeSet<String>,
    /// Aggregate functions.
    pub aggregate: BTreeSet<String>,
}

/// Registers `f` in every form it has: an elementwise or core-dimension
/// callable as a scalar UDF; a reduction as an aggregate (where its partial
/// results combine) and as a `row_NAME` scalar UDF. Named as the
/// [module docs](crate#names) say: `dynd_NAME` always, `NAME` too unless
/// DataFusion has a function of that name.
///
/// ```
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use datafusion::prelude::SessionContext;
/// use dynd::func::builtins;
///
/// let ctx = SessionContext::new();
/// let added = dynd_datafusion::register(&ctx, &builtins::get("mean")?)?;
/// // DataFusion has `mean` (an alias of `avg`): dynd's is `dynd_mean`.
/// assert!(added.aggregate.contains("dynd_mean") && !added.aggregate.contains("mean"));
/// assert!(added.scalar.contains("row_mean"));
/// # Ok(())
/// # }
/// ```
///
/// # Errors
///
/// A planning error for a function callable that is neither (`take`,
/// `sort`, …).
pub fn register(ctx: &SessionContext, f: &Callable) -> Result<Registered> {
    register_in(&mut ctx.state_ref().write(), f)
}

/// Registers every dynd builtin (and `NAME_reduce` for the associative
/// ones) as [`register`] does, and the list functions, each over the
/// list of every row of a `List`/`LargeList` column: `argmax`, `argmin`,
/// `sort`, `sort_descending`, `argsort`, `unique`, `softmax`,
/// `log_softmax`, `logsumexp`, `num`, `local_index`, `count_nonzero`,
/// `diff`, `pad(list, n)` (NULL padding), `filter(list, mask)`,
/// `take_along_axis(list, indexes)` and `concatenate(list, list)`.
/// Other builtins with no DataFusion form (`take`, the scans,
/// `string_length`, `is_na`, `fill_na`: functions over whole arrays) are
/// left out.
///
/// # Errors
///
/// A planning error if a builtin's UDF cannot be made (none can fail; a
/// test checks).
pub fn register_all(ctx: &SessionContext) -> Result<Registered> {
    register_all_in(&mut ctx.state_ref().write())
}

/// [`register`] into a session state (a Ballista scheduler's, or one a
/// [`SessionContext`] is then made from).
///
/// # Errors
///
/// As [`register`].
pub fn register_in(state: &mut SessionState, f: &Callable) -> Result<Registered> {
    let mut added = Registered::default();
    add(state, f, &mut added)?;
    Ok(added)
}

/// [`register_all`] into a session state.
///
/// # Errors
///
/// As [`register_all`].
pub fn register_all_in(state: &mut SessionState) -> Result<Registered> {
    let mut added = Registered::default();
    for &l in scalar::LIST_FUNCTIONS
        .iter()
        .chain(scalar::TEXT_FUNCTIONS)
        .chain(scalar::TIME_FUNCTIONS)
    {
        let u = scalar::list_impl(l);
        let (name, aliases) = names(state, u.name());
        added.scalar.insert(name.clone());
        added.scalar.extend(aliases.iter().cloned());
        state.register_udf(Arc::new(ScalarUDF::new_from_impl(u.named(name, aliases))))?;
    }
    for f in builtins::all() {
        if f.is_overloaded() || f.reduction_kind() != ReductionKind::None {
            add(state, f, &mut added)?;
        }
        if f.is_associative() {
            if let Ok(r) = f.reduce() {
                add(state, &r, &mut added)?;
            }
        }
    }
    Ok(added)
}

/// The names a UDF called `name` is registered under: `dynd_NAME`, and
/// `NAME` when DataFusion has no function of that name (a dynd UDF
/// registered before under `NAME` is replaced).
fn names(state: &SessionState, name: &str) -> (String, Vec<String>) {
    let ours = |n: &str| {
        state
            .scalar_functions()
            .get(n)
            .is_some_and(|u| u.inner().downcast_ref::<DyndScalarUdf>().is_some())
            || state
                .aggregate_functions()
                .get(n)
                .is_some_and(|u| u.inner().downcast_ref::<DyndAggregate>().is_some())
    };
    let taken = (state.scalar_functions().contains_key(name)
        || state.aggregate_functions().contains_key(name)
        || state.window_functions().contains_key(name)
        || name.starts_with("dynd_"))
        && !ours(name);
    let prefixed = format!("dynd_{name}");
    if taken {
        (prefixed, Vec::new())
    } else {
        (name.to_string(), vec![prefixed])
    }
}

fn add(state: &mut SessionState, f: &Callable, added: &mut Registered) -> Result<()> {
    let scalar = |u: DyndScalarUdf, state: &mut SessionState, added: &mut Registered| {
        let (name, aliases) = names(state, u.name());
        added.scalar.insert(name.clone());
        added.scalar.extend(aliases.iter().cloned());
        state
            .register_udf(Arc::new(ScalarUDF::new_from_impl(u.named(name, aliases))))
            .map(|_| ())
    };
    if f.is_overloaded() {
        return scalar(scalar::scalar_impl(f)?, state, added);
    }
    if f.reduction_kind() == ReductionKind::None {
        return Err(datafusion::common::plan_datafusion_err!(
            "dynd function '{}' is neither elementwise nor a reduction, so it has no DataFusion form",
            f.name()
        ));
    }
    scalar(scalar::row_impl(f)?, state, added)?;
    // A reduction whose partials do not combine has only the row form.
    if let Ok(a) = aggregate::aggregate_impl(f) {
        let (name, aliases) = names(state, a.name());
        added.aggregate.insert(name.clone());
        added.aggregate.extend(aliases.iter().cloned());
        state.register_udaf(Arc::new(AggregateUDF::new_from_impl(
            a.named(name, aliases),
        )))?;
    }
    Ok(())
}
