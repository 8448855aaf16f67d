//! Callables (array functions) for dynd-rs: typed scalar overloads lifted
//! elementwise over broadcast dimensions, with overload resolution by exact
//! match then cheapest safe promotion, and a library of builtins.
//!
//! ```
//! use dynd::func::builtins;
//! use dynd::nd::array;
//!
//! let multiply = builtins::get("multiply").unwrap();
//! let ragged = array![[1.0], [2.0, 3.0]];
//! let r = multiply.call(&[&ragged, &array![[10.0, 100.0], [10.0, 100.0]]])?;
//! assert_eq!(r.to_string(), "[[10, 100], [20, 300]]"); // row 0 broadcast
//! # Ok::<(), dynd::Error>(())
//! ```
//!
//! Signature matching, promotion and broadcasting of types live in the type
//! layer ([`dynd_types`]); kernels and arrays in [`dynd_kernels`].
//!
//! ## Layering
//!
//! A module imports only from floors below its own (checked by the
//! workspace's `tests/layering.rs`). The callable type knows nothing of
//! the library; each builtin is one entry of a table ([`builtin`]); the
//! registry that finds them by name is the top floor.
//!
//! | floor | modules |
//! |---|---|
//! | 8 | `builtins` |
//! | 7 | `fold`, `eval` |
//! | 6 | `reductions`, `shaping`, `lists`, `groups` |
//! | 5 | `elementwise`, `arrays`, `ordering`, `strings`, `records`, `temporal` |
//! | 4 | `builtin`, `categories` |
//! | 3 | `callable` |
//! | 2 | `lifted`, `options`, `rows`, `ticks`, `hashed` |
//! | 1 | `error` |

// A dependency nobody uses cannot linger (CI denies warnings).
#![cfg_attr(not(test), warn(unused_crate_dependencies))]
// Doc examples are code users copy: no warnings in them either.
#![doc(test(attr(deny(warnings))))]
#![forbid(unsafe_code)]

pub mod arrays;
pub mod builtin;
pub mod builtins;
mod callable;
mod categories;
mod elementwise;
mod error;
mod eval;
pub mod fold;
mod groups;
mod hashed;
mod lifted;
mod lists;
mod options;
mod ordering;
mod records;
pub mod reductions;
mod rows;
mod shaping;
mod strings;
mod temporal;
mod ticks;

pub use callable::{
    Body, Callable, Keyword, Kwargs, Overload, Prepared, RecordRule, ReductionKind,
};
pub use elementwise::{divmod, frexp, modf};
pub use error::Error;
pub use eval::{install as install_evaluator, select, Eval};
pub use lifted::resolve_lifted;
pub use options::{Axes, AxisKeyword, AxisOptions};
pub use ordering::{unique_axis, unique_counts, unique_index, unique_rows};
pub use records::broadcast_arrays;

// The typed functions of the builtins whose tables mark them `rs` (see
// `builtins!`): each table's, whatever it holds.
pub use arrays::typed_fns::*;
pub use elementwise::rounding::typed_fns::*;
pub use groups::typed_fns::*;
pub use lists::typed_fns::*;
pub use ordering::typed_fns::*;
pub use records::typed_fns::*;
pub use shaping::typed_fns::*;
pub use strings::typed_fns::*;
pub use temporal::typed_fns::*;
