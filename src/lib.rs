//! Integration tests and benchmarks for dynd-rs live in `tests/` and `benches/`.
