//! The arithmetic the builtin reductions fold with, per element type:
//! the operation table's bodies ([`crate::op`]) for integers and floats.

use super::*;
use crate::op::{self, FloatApply, IntApply};

/// The operations the builtin reductions fold with, for each type they
/// accumulate in: wrapping integer arithmetic; IEEE floats, whose `min`
/// and `max` propagate NaN; and `bool` as the Boolean semiring (`add` is
/// or, `mul` is and), so that `any` and `all` are its sum and product.
pub trait Arith: Element {
    /// The identity of `add`.
    const ZERO: Self;
    /// A value `add` leaves every value unchanged with, bit for bit
    /// (`-0.0` for floats, as `-0.0 + 0.0` is `0.0`).
    const NEUTRAL_ZERO: Self;
    /// The identity of `mul`.
    const ONE: Self;
    /// The largest value (`+inf`): `min` leaves every value unchanged with it.
    const TOP: Self;
    /// The smallest value (`-inf`).
    const BOTTOM: Self;
    /// The sum (wrapping for integers; or for `bool`).
    fn add(self, b: Self) -> Self;
    /// The product (wrapping for integers; and for `bool`).
    fn mul(self, b: Self) -> Self;
    /// The smaller (NaN if either is NaN).
    fn min(self, b: Self) -> Self;
    /// The larger (NaN if either is NaN).
    fn max(self, b: Self) -> Self;
    /// The `max` of a contiguous run by a kernel of its own (see
    /// [`Reduction::run`]), for the types that have one.
    const MAX_RUN: Option<RunFold<Self>> = None;
    /// The `min` of a contiguous run, as [`Arith::MAX_RUN`].
    const MIN_RUN: Option<RunFold<Self>> = None;
}

/// The run kernels of a type that has them (see [`super::extreme`]).
macro_rules! run_kernels {
    (kernel) => {
        const MAX_RUN: Option<RunFold<Self>> = Some(super::extreme::max_run::<Self>);
        const MIN_RUN: Option<RunFold<Self>> = Some(super::extreme::min_run::<Self>);
    };
    (generic) => {};
}

macro_rules! arith_int {
    ($($t:ty: $runs:ident),*) => {$(
        impl Arith for $t {
            run_kernels!($runs);
            const ZERO: $t = 0;
            const NEUTRAL_ZERO: $t = 0;
            const ONE: $t = 1;
            const TOP: $t = <$t>::MAX;
            const BOTTOM: $t = <$t>::MIN;
            #[inline(always)]
            fn add(self, b: $t) -> $t {
                <op::Add as IntApply>::apply(self, b)
            }
            #[inline(always)]
            fn mul(self, b: $t) -> $t {
                <op::Mul as IntApply>::apply(self, b)
            }
            #[inline(always)]
            fn min(self, b: $t) -> $t {
                <op::Minimum as IntApply>::apply(self, b)
            }
            #[inline(always)]
            fn max(self, b: $t) -> $t {
                <op::Maximum as IntApply>::apply(self, b)
            }
        }
    )*};
}
arith_int!(
    i8: generic, i16: generic, i32: kernel, i64: kernel, i128: generic,
    u8: generic, u16: generic, u32: kernel, u64: kernel, u128: generic
);

macro_rules! arith_float {
    ($($t:ty),*) => {$(
        impl Arith for $t {
            run_kernels!(kernel);
            const ZERO: $t = 0.0;
            const NEUTRAL_ZERO: $t = -0.0;
            const ONE: $t = 1.0;
            const TOP: $t = <$t>::INFINITY;
            const BOTTOM: $t = <$t>::NEG_INFINITY;
            #[inline(always)]
            fn add(self, b: $t) -> $t {
                <op::Add as FloatApply>::apply(self, b)
            }
            #[inline(always)]
            fn mul(self, b: $t) -> $t {
                <op::Mul as FloatApply>::apply(self, b)
            }
            #[inline(always)]
            fn min(self, b: $t) -> $t {
                <op::Minimum as FloatApply>::apply(self, b)
            }
            #[inline(always)]
            fn max(self, b: $t) -> $t {
                <op::Maximum as FloatApply>::apply(self, b)
            }
        }
    )*};
}
arith_float!(f32, f64);

impl Arith for bool {
    const ZERO: bool = false;
    const NEUTRAL_ZERO: bool = false;
    const ONE: bool = true;
    const TOP: bool = true;
    const BOTTOM: bool = false;
    #[inline]
    fn add(self, b: bool) -> bool {
        self | b
    }
    #[inline]
    fn mul(self, b: bool) -> bool {
        self & b
    }
    #[inline]
    fn min(self, b: bool) -> bool {
        self & b
    }
    #[inline]
    fn max(self, b: bool) -> bool {
        self | b
    }
}

/// Computed in `f64` and rounded once to half (exact for `+` and `*`,
/// since `f64` has more than twice half's precision): the builtins'
/// elementwise `float16` arithmetic, and one dispatch covering every
/// ordered type (the builtin reductions accumulate `float16` in `float32`).
impl Arith for crate::F16 {
    const ZERO: crate::F16 = crate::F16(0);
    const NEUTRAL_ZERO: crate::F16 = crate::F16(0x8000);
    const ONE: crate::F16 = crate::F16(0x3c00);
    const TOP: crate::F16 = crate::F16(0x7c00);
    const BOTTOM: crate::F16 = crate::F16(0xfc00);
    #[inline]
    fn add(self, b: crate::F16) -> crate::F16 {
        crate::F16::from_f64(self.to_f64() + b.to_f64())
    }
    #[inline]
    fn mul(self, b: crate::F16) -> crate::F16 {
        crate::F16::from_f64(self.to_f64() * b.to_f64())
    }
    #[inline]
    fn min(self, b: crate::F16) -> crate::F16 {
        crate::F16::from_f64(Arith::min(self.to_f64(), b.to_f64()))
    }
    #[inline]
    fn max(self, b: crate::F16) -> crate::F16 {
        crate::F16::from_f64(Arith::max(self.to_f64(), b.to_f64()))
    }
}
