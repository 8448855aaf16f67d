//! The float types variances and standard deviations are computed in
//! ([`Float`]: `f32`, `f64`), and how a group's sum of squared deviations
//! becomes its result ([`Finish`]). Shared by the fixed-dimension and the
//! ragged moments.

use crate::element::Element;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// The float types a variance is computed in (`f32` and `f64`).
pub trait Float:
    Element
    + PartialOrd
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + sealed::Sealed
{
    /// Zero.
    const ZERO: Self;
    /// Not a number: the variance of a group of `ddof` elements or fewer.
    const NAN: Self;
    /// `n`, rounded to the nearest value.
    fn of_count(n: usize) -> Self;
    /// The square root.
    fn sqrt(self) -> Self;
    /// The bytes of a `?Self` element after the value: the validity byte
    /// and zero bytes up to the element's size, as one word.
    #[doc(hidden)]
    type Tail: Copy + Send + Sync;
    /// That word for a present (`true`) or NA value.
    #[doc(hidden)]
    fn tail(valid: bool) -> Self::Tail;
}

impl Float for f32 {
    const ZERO: f32 = 0.0;
    const NAN: f32 = f32::NAN;
    fn of_count(n: usize) -> f32 {
        n as f32
    }
    fn sqrt(self) -> f32 {
        f32::sqrt(self)
    }
    type Tail = u32;
    #[inline(always)]
    fn tail(valid: bool) -> u32 {
        // The validity byte first in memory, on any byte order.
        u32::from(valid).to_le()
    }
}

impl Float for f64 {
    const ZERO: f64 = 0.0;
    const NAN: f64 = f64::NAN;
    fn of_count(n: usize) -> f64 {
        n as f64
    }
    fn sqrt(self) -> f64 {
        f64::sqrt(self)
    }
    type Tail = u64;
    #[inline(always)]
    fn tail(valid: bool) -> u64 {
        // The validity byte first in memory, on any byte order.
        u64::from(valid).to_le()
    }
}

/// A `?T` element as an option array's block holds it (see the `na`
/// module): the value, its validity byte (1 present, 0 NA, whose value
/// bytes are zero) and zero bytes up to the element's size — every byte
/// written, none padding, in two word stores.
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct NaSlot<T: Float> {
    value: T,
    tail: T::Tail,
}

impl<T: Float> NaSlot<T> {
    /// The element of `v` (`None` is NA).
    #[inline(always)]
    pub(crate) fn new(v: Option<T>) -> NaSlot<T> {
        NaSlot {
            value: v.unwrap_or(T::ZERO),
            tail: T::tail(v.is_some()),
        }
    }
}

/// How a group's sum of squared deviations becomes the result.
#[derive(Clone, Copy)]
pub(super) struct Finish {
    /// The divisor is `n - ddof`.
    pub(super) ddof: usize,
    /// The standard deviation (the square root) rather than the variance.
    pub(super) root: bool,
}

impl Finish {
    /// Each of `squares` (a group's sum of squared deviations, of
    /// `lens[i]` elements) made its variance or root in place, NaN for a
    /// group of `ddof` elements or fewer: in loops the compiler vectorises
    /// (the divisions and roots of several groups in flight, not one after
    /// the other).
    #[inline(always)]
    pub(super) fn of_each<T: Float>(self, squares: &mut [T], lens: &[usize]) {
        for (s, &n) in squares.iter_mut().zip(lens) {
            let v = *s / T::of_count(n.saturating_sub(self.ddof));
            *s = if n <= self.ddof { T::NAN } else { v };
        }
        if self.root {
            for s in squares.iter_mut() {
                *s = s.sqrt();
            }
        }
    }

    /// The variance (or its root) from the sum of squared deviations of
    /// `n` elements.
    #[inline]
    pub(super) fn of<T: Float>(self, squares: T, n: usize) -> T {
        let mut v = [squares];
        self.of_each(&mut v, &[n]);
        v[0]
    }
}
