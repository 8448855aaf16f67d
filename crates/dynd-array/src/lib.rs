//! The data layer of dynd-rs: arrays, their memory and their views.
//!
//! [`Array`] is a type, its arrmeta and a reference to data in a shared
//! [memory block](memory). Every array is checked where it is made: its
//! extent (every byte any index reaches, through fixed strides and `var`
//! rows) lies inside its block, so the loops above can rely on it. Here
//! live the constructors ([`Value`] trees and JSON, Rust vectors and
//! slices, offsets and nested vectors), views (indexing, slicing,
//! transposes, reshapes that need no copy), the element types, the
//! conversion rules between scalars and their [error modes](ErrorMode),
//! and the zero-copy doors in from Arrow and ndarray and serde (behind
//! features). Nothing here runs a kernel: operations that convert or copy
//! values live in `dynd-kernels`, on top of this crate.
//!
//! ```
//! use dynd::nd::{array, Index};
//!
//! let a = array![[1.0, 2.0, 3.0], [4.0]];        // 2 * var * float64
//! let tail = a.index(&[Index::ALL, Index::slice(Some(1), None, 1)])?;
//! assert_eq!(tail.to_string(), "[[2, 3], []]");  // a view: no copy
//! # Ok::<(), dynd::Error>(())
//! ```
//!
//! ## Layering
//!
//! A module imports only from floors below its own (checked by the
//! workspace's `tests/layering.rs`):
//!
//! | floor | modules |
//! |---|---|
//! | 8 | `arrow`, `ndarray_interop`, `serde_impl`, `structs` |
//! | 7 | `parts`, `expr` |
//! | 6 | `view`, `overlap`, `into_array`, `rows`, `text`, `record` |
//! | 5 | `array` |
//! | 4 | `validate`, `value` |
//! | 3 | `arrmeta`, `scalar_io` |
//! | 2 | `memory`, `convert`, `fn_types`, `time` |
//! | 1 | `error`, `element`, `fixed_string`, `offsets` |

// A dependency nobody uses cannot linger (CI denies warnings).
#![cfg_attr(not(test), warn(unused_crate_dependencies))]
// Doc examples are code users copy: no warnings in them either.
#![doc(test(attr(deny(warnings))))]
#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

/// Runs `$body` with `$t` the Rust type of the numeric scalar `$s`, or
/// `$other` for `string`, `bytes` and the time types. `with_numeric!(ordered ...)` takes
/// only the types with an order (no complex), giving `$other` for the rest.
/// The one dispatch from a scalar type to its Rust type, for this crate and
/// the callables' (hence exported, hidden).
#[doc(hidden)]
#[macro_export]
macro_rules! with_numeric {
    (ordered $s:expr, $t:ident => $body:expr, $other:expr) => {
        $crate::with_numeric!(@arms $s, $t, $body, { _ => $other, })
    };
    ($s:expr, $t:ident => $body:expr, $other:expr) => {
        $crate::with_numeric!(@arms $s, $t, $body, {
            $crate::__Scalar::Complex64 => {
                type $t = $crate::Complex<f32>;
                $body
            }
            $crate::__Scalar::Complex128 => {
                type $t = $crate::Complex<f64>;
                $body
            }
            // The time types are refused as numbers (their functions
            // read them as their storage on purpose).
            _ => $other,
        })
    };
    (@arms $s:expr, $t:ident, $body:expr, { $($rest:tt)* }) => {
        match $s {
            $crate::__Scalar::Bool => {
                type $t = bool;
                $body
            }
            $crate::__Scalar::Int8 => {
                type $t = i8;
                $body
            }
            $crate::__Scalar::Int16 => {
                type $t = i16;
                $body
            }
            $crate::__Scalar::Int32 => {
                type $t = i32;
                $body
            }
            $crate::__Scalar::Int64 => {
                type $t = i64;
                $body
            }
            $crate::__Scalar::Int128 => {
                type $t = i128;
                $body
            }
            $crate::__Scalar::UInt8 => {
                type $t = u8;
                $body
            }
            $crate::__Scalar::UInt16 => {
                type $t = u16;
                $body
            }
            $crate::__Scalar::UInt32 => {
                type $t = u32;
                $body
            }
            $crate::__Scalar::UInt64 => {
                type $t = u64;
                $body
            }
            $crate::__Scalar::UInt128 => {
                type $t = u128;
                $body
            }
            $crate::__Scalar::Float16 => {
                type $t = $crate::F16;
                $body
            }
            $crate::__Scalar::Float32 => {
                type $t = f32;
                $body
            }
            $crate::__Scalar::Float64 => {
                type $t = f64;
                $body
            }
            $($rest)*
        }
    };
}

pub mod array;
pub mod arrmeta;
#[cfg(feature = "arrow")]
pub mod arrow;
pub mod convert;
#[doc(hidden)]
pub mod element;
pub mod error;
pub mod expr;
#[doc(hidden)]
pub mod fixed_string;
pub mod fn_types;
mod into_array;
pub mod memory;
#[cfg(feature = "ndarray")]
pub mod ndarray_interop;
#[doc(hidden)]
pub mod offsets;
#[doc(hidden)]
pub mod overlap;
pub mod parts;
pub mod record;
pub mod rows;
#[doc(hidden)]
pub mod scalar_io;
#[cfg(feature = "serde")]
pub mod serde_impl;
pub mod structs;
pub mod text;
pub mod time;
#[doc(hidden)]
pub mod validate;
#[doc(hidden)]
pub mod value;
#[doc(hidden)]
pub mod view;

pub use array::{infer_type, Array};
pub use arrmeta::Arrmeta;
pub use convert::ErrorMode;
pub use element::{Complex, Element, Item, F16};
pub use error::{Error, KernelError, KernelErrorKind};
pub use expr::Expr;
pub use fn_types::{LeafInput, LeafOutput, LeafReturn};
pub use into_array::IntoArray;
pub use parts::{FromLevels, Levels, Nested, Offset};
pub use rows::RaggedRows;
pub use structs::{Field, Record};
pub use time::{Date, DateTime, Ms, Ns, Time, TimeDelta, TimeTextError, Unit, Us, S};
pub use value::{IntoValue, Value};
pub use view::{Index, Shape, ShapeSize};

#[doc(hidden)]
pub use dynd_types::Scalar as __Scalar;

/// The type layer this crate builds on.
pub use dynd_types as types;
