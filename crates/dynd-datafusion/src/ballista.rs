//! Ballista clusters whose scheduler and executors know dynd's functions
//! (feature `ballista`).
//!
//! Ballista ships no code to executors: a function in a plan is found by
//! name in the executor's own registry, so the scheduler (which plans) and
//! every executor (which decode and run plans) must be built with the same
//! functions. This module makes both from the dynd builtins and your
//! callables (your `#[elemental]` fns):
//!
//! - a scheduler: `SchedulerConfig { override_session_builder:
//!   Some(session_builder(vec![hypot::callable()])), .. }`;
//! - an executor: `ExecutorProcessConfig { override_function_registry:
//!   Some(function_registry(&[hypot::callable()])?), .. }`;
//! - a client: [`remote`]`(url, &[hypot::callable()])`, or a scheduler and
//!   an executor in this process: [`standalone`]`(&[hypot::callable()])`.
//!
//! (Ballista's own `SessionContext::remote_with_state` and
//! `standalone_with_state` rebuild the client's function lists from
//! DataFusion's defaults, dropping the state's UDFs; [`remote`] and
//! [`standalone`] register dynd's functions again on the context they
//! give.)
//!
//! `examples/ballista.rs` starts a scheduler and two executors on 127.0.0.1
//! this way and runs a query.

use std::sync::Arc;

pub use ballista;
pub use ballista_core;
pub use ballista_executor;
pub use ballista_scheduler;

use ballista::prelude::SessionContextExt;
use ballista_core::extension::SessionConfigExt;
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::utils::default_session_builder;
use ballista_scheduler::scheduler_server::SessionBuilder;
use datafusion::common::Result;
use datafusion::execution::session_state::SessionState;
use datafusion::prelude::{SessionConfig, SessionContext};
use dynd::func::Callable;

use crate::{register_all_in, register_in};

/// Ballista's session state for `config` with every dynd builtin and the
/// callables `extra` registered (as [`crate::register`] names them): what a
/// scheduler plans with and a client submits from.
///
/// # Errors
///
/// As [`crate::register`] for a callable with no DataFusion form.
pub fn session_state(config: SessionConfig, extra: &[Callable]) -> Result<SessionState> {
    let mut state = default_session_builder(config)?;
    register_all_in(&mut state)?;
    for f in extra {
        register_in(&mut state, f)?;
    }
    Ok(state)
}

/// A scheduler's session builder ([`ballista_scheduler::config::SchedulerConfig`]'s
/// `override_session_builder`) making [`session_state`]s.
pub fn session_builder(extra: Vec<Callable>) -> SessionBuilder {
    Arc::new(move |config| session_state(config, &extra))
}

/// An executor's function registry
/// ([`ballista_executor::executor_process::ExecutorProcessConfig`]'s
/// `override_function_registry`): DataFusion's and Ballista's functions,
/// every dynd builtin and `extra`, under the names [`session_state`] gives
/// them.
///
/// # Errors
///
/// As [`session_state`].
pub fn function_registry(extra: &[Callable]) -> Result<Arc<BallistaFunctionRegistry>> {
    let state = session_state(SessionConfig::new_with_ballista(), extra)?;
    Ok(Arc::new(BallistaFunctionRegistry::from(&state)))
}

/// Registers the dynd builtins and `extra` on a client context.
fn client(ctx: SessionContext, extra: &[Callable]) -> Result<SessionContext> {
    crate::register_all(&ctx)?;
    for f in extra {
        crate::register(&ctx, f)?;
    }
    Ok(ctx)
}

/// A client of the Ballista scheduler at `url` (`df://host:port`) whose
/// SQL can call dynd's builtins and `extra` (the scheduler and executors
/// must have them too: [`session_builder`], [`function_registry`]).
///
/// # Errors
///
/// Ballista's connection errors, and as [`session_state`].
pub async fn remote(url: &str, extra: &[Callable]) -> Result<SessionContext> {
    let state = session_state(SessionConfig::new_with_ballista(), extra)?;
    client(SessionContext::remote_with_state(url, state).await?, extra)
}

/// A Ballista scheduler and executor started in this process (on
/// localhost, plans crossing gRPC as on a cluster), both with dynd's
/// builtins and `extra`, and a client of them.
///
/// # Errors
///
/// Ballista's start-up errors, and as [`session_state`].
pub async fn standalone(extra: &[Callable]) -> Result<SessionContext> {
    let state = session_state(SessionConfig::new_with_ballista(), extra)?;
    client(SessionContext::standalone_with_state(state).await?, extra)
}
