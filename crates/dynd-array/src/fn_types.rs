//! The parameter and result types of Rust functions lifted over arrays:
//! what a function of elements may take ([`LeafInput`]) and return
//! ([`LeafReturn`]).
//!
//! - An [`Element`] `T` takes (or makes) `T` elements.
//! - `Option<T>` takes (or makes) `?T` elements, NA as `None`: a function
//!   taking `Option<T>` sees NA itself instead of NA propagating around it.
//! - A `Result` of either makes a fallible function.
//!
//! An option element is its value followed by a validity byte (1 valid, 0
//! NA), as [`dynd_types::Type::data_layout`] lays `?T` out. The traits are
//! sealed: the loops read and write memory through them.
//!
//! ```
//! use dynd::func::{LeafInput, LeafOutput, LeafReturn};
//!
//! fn describe<A: LeafInput, R: LeafReturn>(_: impl Fn(A) -> R) -> (bool, bool, bool) {
//!     (A::OPTION, <R::Output as LeafOutput>::OPTION, R::FALLIBLE)
//! }
//! assert_eq!(describe(|x: f64| x + 1.0), (false, false, false));
//! assert_eq!(describe(|x: Option<f64>| x.is_some()), (true, false, false));
//! assert_eq!(describe(|x: f64| if x > 0.0 { Ok(x) } else { Err("negative") }), (false, false, true));
//! ```

use std::fmt::Display;

use dynd_types::Scalar;

use crate::element::Element;

mod sealed {
    /// Seals the traits of this module.
    pub trait Sealed {}
    impl<T: crate::element::Element> Sealed for T {}
    impl<T: crate::element::Element> Sealed for Option<T> {}
    impl<O: super::LeafOutput, E> Sealed for Result<O, E> {}
}

/// A parameter type of a lifted function: an [`Element`] (`T`) or
/// `Option<T>` (a `?T` element, NA as `None`). Sealed.
pub trait LeafInput: sealed::Sealed + Copy + Send + Sync + 'static {
    /// The element type.
    const SCALAR: Scalar;
    /// Whether the parameter takes `?T`.
    const OPTION: bool;
    /// Reads one element.
    ///
    /// # Safety
    ///
    /// `p` points at a valid element of this parameter's type (`T`, or a
    /// `?T` element: the value and then its validity byte).
    #[doc(hidden)]
    unsafe fn read(p: *const u8) -> Self;
}

impl<T: Element> LeafInput for T {
    const SCALAR: Scalar = T::SCALAR;
    const OPTION: bool = false;

    #[inline(always)]
    unsafe fn read(p: *const u8) -> T {
        // SAFETY: a valid element, by the contract.
        unsafe { p.cast::<T>().read_unaligned() }
    }
}

impl<T: Element> LeafInput for Option<T> {
    const SCALAR: Scalar = T::SCALAR;
    const OPTION: bool = true;

    #[inline(always)]
    unsafe fn read(p: *const u8) -> Option<T> {
        // SAFETY: a `?T` element: its validity byte follows the value, and
        // the value is read only when valid.
        unsafe { (*p.add(size_of::<T>()) != 0).then(|| p.cast::<T>().read_unaligned()) }
    }
}

/// A result element of a lifted function: an [`Element`] or `Option<T>`
/// (the result is `?T`, `None` is NA). Sealed.
pub trait LeafOutput: sealed::Sealed + Copy + Send + Sync + 'static {
    /// The element type.
    const SCALAR: Scalar;
    /// Whether the result is `?T`.
    const OPTION: bool;
    /// Writes one element.
    ///
    /// # Safety
    ///
    /// `p` points at writable room for one element of this result type.
    #[doc(hidden)]
    unsafe fn write(self, p: *mut u8);
}

impl<T: Element> LeafOutput for T {
    const SCALAR: Scalar = T::SCALAR;
    const OPTION: bool = false;

    #[inline(always)]
    unsafe fn write(self, p: *mut u8) {
        // SAFETY: room for one element, by the contract.
        unsafe { p.cast::<T>().write_unaligned(self) }
    }
}

impl<T: Element> LeafOutput for Option<T> {
    const SCALAR: Scalar = T::SCALAR;
    const OPTION: bool = true;

    #[inline(always)]
    unsafe fn write(self, p: *mut u8) {
        // SAFETY: room for a `?T` element: the value, then its validity
        // byte; an NA element's value bytes are zeroed (a valid `T`).
        unsafe {
            match self {
                Some(v) => {
                    p.cast::<T>().write_unaligned(v);
                    *p.add(size_of::<T>()) = 1;
                }
                None => {
                    std::ptr::write_bytes(p, 0, size_of::<T>());
                    *p.add(size_of::<T>()) = 0;
                }
            }
        }
    }
}

/// What a lifted function returns: a [`LeafOutput`], or a `Result` of one
/// (an `Err` fails the call with its message and the element's index).
/// Sealed.
pub trait LeafReturn: sealed::Sealed + Send + Sync + 'static {
    /// The element written for an `Ok` (or plain) result.
    type Output: LeafOutput;
    /// The failure (`Infallible` for a plain result).
    type Failure: Display;
    /// Whether the function can fail.
    const FALLIBLE: bool;
    /// The value to write, or the failure.
    #[doc(hidden)]
    fn into_result(self) -> Result<Self::Output, Self::Failure>;
}

impl<T: Element> LeafReturn for T {
    type Output = T;
    type Failure = std::convert::Infallible;
    const FALLIBLE: bool = false;

    #[inline(always)]
    fn into_result(self) -> Result<T, std::convert::Infallible> {
        Ok(self)
    }
}

impl<T: Element> LeafReturn for Option<T> {
    type Output = Option<T>;
    type Failure = std::convert::Infallible;
    const FALLIBLE: bool = false;

    #[inline(always)]
    fn into_result(self) -> Result<Option<T>, std::convert::Infallible> {
        Ok(self)
    }
}

impl<O: LeafOutput, E: Display + Send + Sync + 'static> LeafReturn for Result<O, E> {
    type Output = O;
    type Failure = E;
    const FALLIBLE: bool = true;

    #[inline(always)]
    fn into_result(self) -> Result<O, E> {
        self
    }
}
