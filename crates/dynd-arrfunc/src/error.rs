//! The error type: one for every layer of dynd-rs, defined in
//! `dynd-types` and re-exported here.

pub use dynd_types::Error;
