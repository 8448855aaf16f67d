//! The error type: one for every layer of dynd-rs, defined in
//! `dynd-types` and re-exported here, with a kernel's failure on an
//! element ([`KernelError`]).

pub use dynd_types::{Error, KernelError, KernelErrorKind};

#[doc(hidden)]
pub use dynd_types::excerpt;
