//! The integration tests, one module per file, in one binary: linking the
//! library once instead of once per file keeps `target/` and the build
//! small. Files that count allocations with a global allocator are test
//! targets of their own (see `Cargo.toml`).

mod array_fns;
mod arrays;
mod callables;
mod fold;
mod gufunc;
mod integer_rules;
mod lifted;
mod na;
mod panics_threads;
mod ragged_fns;
mod ragged_props;
mod reductions;
mod scan;
mod trivial;
mod ufuncs;
