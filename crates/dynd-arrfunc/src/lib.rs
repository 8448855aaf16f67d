//! Callables (array functions) for dynd-rs: signatures with keyword and
//! optional arguments, overload sets and dispatch, elementwise lifting,
//! reductions and the builtin library.
//!
//! This layer sits on `dynd-types` and `dynd-kernels`. It is being built in
//! the callables issue; until then it only fixes the crate's place in the
//! workspace's layering. Signature matching itself already lives in the type
//! layer:
//!
//! ```
//! use dynd_arrfunc::types::Type;
//!
//! let sig: Type = "(N * float64, N * float64) -> float64".parse()?;
//! let arg: Type = "3 * float64".parse()?;
//! assert_eq!(sig.resolve(&[arg.clone(), arg], &[])?.to_string(), "float64");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![forbid(unsafe_code)]

/// The type layer this crate builds on.
pub use dynd_types as types;

/// The kernel layer this crate builds on.
pub use dynd_kernels as kernels;
