//! Assignment kernels: copy and convert values between arrays, with
//! broadcasting of the source to the destination.

pub mod convert;

pub use convert::{is_lossless, ErrorMode};
