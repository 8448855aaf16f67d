//! The integration tests, one module per file, in one binary: linking the
//! library once instead of once per file keeps `target/` and the build
//! small. Files that count allocations with a global allocator are test
//! targets of their own (see `Cargo.toml`).

mod memory;
mod ndarray;
mod records;
mod serde;
mod text_pairs;
mod time_interop;
