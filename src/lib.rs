//! The root package of the dynd-rs workspace: it owns the integration tests
//! (`tests/`), the trybuild UI tests and the benchmarks (`benches/`), and
//! reaches the library only through the `dynd` facade. Its library target
//! exists so that the README's examples run as doctests.

#![forbid(unsafe_code)]
#![doc = include_str!("../README.md")]
