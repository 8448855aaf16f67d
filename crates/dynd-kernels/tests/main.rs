//! The integration tests, one module per file, in one binary: linking the
//! library once instead of once per file keeps `target/` and the build
//! small. Files that count allocations with a global allocator are test
//! targets of their own (see `Cargo.toml`).

/// The robustness campaigns' harness, shared by several modules.
#[path = "common/campaign.rs"]
#[allow(dead_code)]
mod harness;

mod array;
mod arrow;
mod elwise;
mod fields;
mod json;
mod memory_reuse;
mod moments;
mod parts;
mod properties;
mod ragged_elwise;
mod ragged_segments;
mod reduce;
mod regressions;
mod robust_views;
mod take;
mod view;
