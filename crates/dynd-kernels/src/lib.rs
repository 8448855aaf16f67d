//! Arrays, memory blocks and the kernel builder for dynd-rs.
//!
//! This layer sits on [`dynd_types`]. It holds [`Array`] (a type, its
//! arrmeta and data in shared [memory blocks](memory), checked where it
//! is made), views, assignment with broadcasting and error modes, the
//! [kernel builder](kernel) (type-erased kernel records in one movable
//! buffer with inline storage), the loop engine under the elementwise
//! [leaves](elwise), the typed [reductions](reduce) and scans, sorting,
//! `take`, missing values ([`na`]), and the doors in and out: JSON,
//! offsets, Arrow, ndarray and serde (the last three behind features).
//! Its unsafe code lives here, in a few modules, each block with its
//! `SAFETY` comment.
//!
//! ```
//! // The type layer is the one this crate builds on.
//! let t: dynd::ndt::Type = "3 * int32".parse()?;
//! assert_eq!(t.data_layout()?.size, 12);
//! # Ok::<(), dynd::Error>(())
//! ```

#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

/// Runs `$body` with `$t` the Rust type of the numeric scalar `$s`, or
/// `$other` for `string` and `bytes`. `with_numeric!(ordered ...)` takes
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
            $crate::__Scalar::String | $crate::__Scalar::Bytes => $other,
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
pub mod arrow_interop;
pub mod assign;
mod element;
pub mod elwise;
mod error;
pub mod expr;
mod fixed_string;
pub mod fuse;
pub mod kernel;
mod loops;
pub mod memory;
pub mod na;
#[cfg(feature = "ndarray")]
pub mod ndarray_interop;
mod overlap;
pub mod parts;
pub mod reduce;
mod scalar_io;
#[cfg(feature = "serde")]
pub mod serde_impl;
mod sort;
mod strings;
pub mod take;
mod validate;
mod value;
mod view;
pub mod zip;

pub use array::{infer_type, Array};
pub use arrmeta::Arrmeta;
pub use assign::ErrorMode;
pub use element::{Complex, Element, F16};
pub use error::{Error, KernelError, KernelErrorKind};
pub use expr::Expr;
pub use parts::{Nested, Offset, RaggedRows};
pub use value::{IntoArray, IntoValue, Value};
pub use view::{Index, Shape, ShapeSize};

#[doc(hidden)]
pub use dynd_types::Scalar as __Scalar;

/// The type layer this crate builds on.
pub use dynd_types as types;
