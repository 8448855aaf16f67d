//! Datashape types for dynd-rs.
//!
//! Every array, signature and broadcast in dynd-rs is described by a
//! *datashape*: dimensions, outermost first, over a data type.
//!
//! ```
//! use dynd::ndt::{broadcast, BroadcastMode, Type};
//!
//! // Parse and print: one canonical spelling, aliases normalised.
//! let t: Type = "3 *  var * {x: int, 'sepal length': real}".parse()?;
//! assert_eq!(t.to_string(), "3 * var * {x: int32, 'sepal length': float64}");
//!
//! // Match a signature and substitute its return type.
//! let sig: Type = "(N * T, N * T, scale: ?float64) -> T".parse()?;
//! let a: Type = "5 * float32".parse()?;
//! assert_eq!(sig.resolve(&[a.clone(), a], &[])?.to_string(), "float32");
//!
//! // Broadcast argument types (ragged `var` against a fixed size).
//! let r = broadcast(&["2 * var * int32".parse()?, "2 * 3 * float64".parse()?], BroadcastMode::NumPy)?;
//! assert_eq!(r.to_string(), "2 * 3 * float64");
//!
//! // Errors say where, with a caret.
//! let err = "3 * {x: int32,, y: int8}".parse::<Type>().unwrap_err();
//! assert_eq!(err.offset(), Some(14));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The pieces: [`Type`] and [`TypeKind`] (the model), the parser and
//! printer ([`Type::parse`], `Display`), [`pattern`] matching and
//! substitution, [`fn@broadcast`]ing, [`fn@promote`]ion, and the [data and
//! arrmeta layouts](layout) of concrete types.
//!
//! ## Layering
//!
//! A module imports only from floors below its own (checked by the
//! workspace's `tests/layering.rs`). The type model (`ty`) knows nothing
//! of errors; what a match binds and the problems errors carry sit
//! between it and [`Error`]; everything that can fail sits above.
//!
//! | floor | modules |
//! |---|---|
//! | 11 | `serde_impl` |
//! | 10 | `pattern` |
//! | 9 | `broadcast`, `print` |
//! | 8 | `promote` |
//! | 7 | `make` |
//! | 6 | `parse`, `layout` |
//! | 5 | `error` |
//! | 4 | `problems` |
//! | 3 | `bindings` |
//! | 2 | `ty` |
//! | 1 | `scalar` |

// A dependency nobody uses cannot linger (CI denies warnings).
#![cfg_attr(not(test), warn(unused_crate_dependencies))]
// Doc examples are code users copy: no warnings in them either.
#![doc(test(attr(deny(warnings))))]
// One small module holds unsafe code: a type in one word (`ty::repr`).
#![deny(unsafe_code)]

mod bindings;
mod broadcast;
mod error;
pub mod layout;
mod make;
mod parse;
pub mod pattern;
mod print;
mod problems;
mod promote;
mod scalar;
#[cfg(feature = "serde")]
pub mod serde_impl;
mod ty;

pub use bindings::{Binding, Bindings, Mismatch};
pub use broadcast::{broadcast, broadcast_dim, broadcast_dim_lists, BroadcastMode};
pub use error::{excerpt, Error, KernelError, KernelErrorKind, ParseError, ParseErrorKind};
pub use layout::{ArrmetaLayout, DataLayout};
pub use parse::{is_typevar_name, similar_names, MAX_DEPTH};
pub use pattern::ResolveError;
pub use problems::{
    ArrowProblem, LayoutProblem, OffsetsProblem, SignatureProblem, TypeRule, ValueProblem,
};
pub use promote::{can_cast_safely, promote, promote_scalars};
pub use scalar::{Scalar, ScalarCategory, Temporal, TimeUnit};
pub use ty::{
    Dim, Encoding, Name, Signature, Struct, Tuple, Type, TypeKind, ZoneParam, MAX_DIMS, MAX_LEVELS,
};
