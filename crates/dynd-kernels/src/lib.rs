//! Arrays, memory blocks and the kernel builder for dynd-rs.
//!
//! This layer sits on [`dynd_types`]: `Array` (a type, its arrmeta and a
//! reference to data in a memory block), the kernel builder and the
//! assignment and dimension kernels. It is being built in the arrays and
//! kernels issue; until then it only fixes the crate's place in the
//! workspace's layering (`dynd-types` → `dynd-kernels` → `dynd-arrfunc` →
//! `dynd`).
//!
//! ```
//! // The type layer is the one this crate builds on.
//! let t: dynd_kernels::types::Type = "3 * int32".parse()?;
//! assert_eq!(t.data_layout()?.size, 12);
//! # Ok::<(), dynd_kernels::types::Error>(())
//! ```

#![deny(unsafe_op_in_unsafe_fn, clippy::undocumented_unsafe_blocks)]

/// The type layer this crate builds on.
pub use dynd_types as types;
