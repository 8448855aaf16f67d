//! The root package of the dynd-rs workspace: it owns the integration tests
//! (`tests/`), the trybuild UI tests and the benchmarks (`benches/`), and
//! reaches the library only through the `dynd` facade. (The README's
//! examples run as doctests of `tests/downstream`, a crate that depends on
//! `dynd` alone, as a newcomer's would.)

#![forbid(unsafe_code)]
