//! The integration tests, one module per file, in one binary: linking the
//! library once instead of once per file keeps `target/` and the build
//! small. Files that count allocations with a global allocator are test
//! targets of their own (see `Cargo.toml`).

/// The robustness campaigns' harness, shared by several modules.
#[path = "../crates/dynd-kernels/tests/common/campaign.rs"]
#[allow(dead_code)]
mod harness;

mod api_surface;
mod categories;
mod errors;
mod facade;
mod fused;
mod groups;
mod layering;
mod ops_table;
mod options;
mod records;
mod robustness;
mod soundness;
mod soundness3;
mod streamed;
mod text_compare;
mod text_order;
mod text_strings;
mod time;
mod typed_api;
mod zip;
