//! The kernels of dynd-rs: everything that runs a loop over arrays.
//!
//! This layer sits on the data layer (`dynd-array`: [`Array`], memory
//! blocks, views, values) and the types. It holds the [kernel
//! builder](kernel) (type-erased kernel records in one movable buffer
//! with inline storage), the loop engine (one planner for every walker,
//! and the leaf contract its clients meet), [assignment](assign) with
//! broadcasting and error modes, the elementwise [leaves](elwise), the
//! typed [reductions](reduce) and scans, sorting, [`take`], missing
//! values ([`na`]), [fused expressions](fuse), [zipped loops](zip) and
//! Arrow export. [`ArrayOps`] gives the operations that run kernels as
//! methods of [`Array`]. Its unsafe code lives in a few modules, each
//! block with its `SAFETY` comment.
//!
//! ```
//! use dynd::prelude::*;
//!
//! let mut a = nd::array![[3, 1], [2, 5]];
//! a.sort(-1, false)?;
//! assert_eq!(a.to_string(), "[[1, 3], [2, 5]]");
//! # Ok::<(), dynd::Error>(())
//! ```
//!
//! ## Layering
//!
//! A module imports only from floors below its own (checked by the
//! workspace's `tests/layering.rs`); the data layer's modules, re-exported
//! here, are below them all. The engine (`loops`) owns the leaf contract,
//! and every walker is its client.
//!
//! | floor | modules |
//! |---|---|
//! | 8 | `ops`, `files` |
//! | 7 | `sort`, `take`, `na`, `fuse`, `arrow_interop` |
//! | 6 | `reduce`, `strings`, `zip` |
//! | 5 | `elwise` |
//! | 4 | `assign` |
//! | 3 | `alloc` |
//! | 2 | `loops` |
//! | 1 | `kernel`, `shared`, `rowwise` |
//! | 0 | `isa`, `op`, `par` |

// A dependency nobody uses cannot linger (CI denies warnings).
#![cfg_attr(not(test), warn(unused_crate_dependencies))]
// Doc examples are code users copy: no warnings in them either.
#![doc(test(attr(deny(warnings))))]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

mod alloc;
#[cfg(feature = "arrow")]
pub mod arrow_interop;
pub mod assign;
pub mod elwise;
#[cfg(any(feature = "parquet", feature = "csv", feature = "ipc"))]
pub mod files;
pub mod fuse;
mod isa;
pub mod kernel;
mod loops;
/// The vectorised elementary functions (the `dynd-math` crate), which
/// the elementwise math leaves run ([`elwise::Leaf::unary_math`]).
pub use dynd_math as math;
pub mod na;
pub mod op;
pub mod ops;
pub mod par;
pub mod reduce;
pub mod rowwise;
mod shared;
mod sort;
pub mod strings;
pub mod take;
pub mod zip;

#[cfg(feature = "arrow")]
pub use arrow_interop::ToArrow;
pub use dynd_array::{
    array, arrmeta, convert, element, error, expr, fixed_string, fn_types, infer_type, memory,
    offsets, overlap, parts, rows, scalar_io, time, validate, value, view, with_numeric, Array,
    Arrmeta, Complex, Element, Error, ErrorMode, Expr, FromLevels, Index, IntoArray, IntoValue,
    KernelError, KernelErrorKind, Levels, Nested, Offset, RaggedRows, Shape, ShapeSize, Value, F16,
};
pub use ops::ArrayOps;

#[doc(hidden)]
pub use dynd_types::Scalar as __Scalar;

/// The type layer this crate builds on.
pub use dynd_types as types;
