//! Leaves whose loops are compiled for each instruction set (AVX-512,
//! AVX2 and the baseline build) and chosen at run time by
//! [`dynd_math::Isa::active`]: one generic loop body per family, written
//! as a plain indexed loop the compiler vectorises, compiled per set by
//! [`crate::isa::on`]. The families: plain float operations ([`F64Op`] over
//! `float64` and `float32`), tests giving `bool`s ([`Predicate`]), and
//! wrapping integer and bitwise operations ([`IntOp`]). Each gives the
//! same bits on every path (the same operations), which the tests check
//! on every set the CPU has.

use super::maps::MapLoop;
use super::*;
use crate::error::KernelError;

mod float;
mod int;
mod predicate;

pub use int::IntOp;
pub use predicate::Predicate;

/// Runs shorter than this skip the instruction-set dispatch (a small
/// call's loop is a few scalar operations).
const SHORT_RUN: usize = 4;

/// `dst[i] = f(a[i], b[i])` over `count` strided arguments of `T` into
/// results of `R`: contiguous runs as plain indexed loops the compiler
/// vectorises (in whatever instruction set the caller is compiled for).
///
/// # Safety
///
/// As [`KernelData::strided`](crate::kernel::KernelData::strided) for
/// arguments of `T` and results of `R`.
#[inline(always)]
pub(super) unsafe fn zip_loop<T: Copy, R: Copy>(
    f: impl Fn(T, T) -> R,
    dst: *mut u8,
    ds: isize,
    a: (*const u8, isize),
    b: (*const u8, isize),
    count: usize,
) {
    let size = std::mem::size_of::<T>() as isize;
    if ds == std::mem::size_of::<R>() as isize && a.1 == size && b.1 == size {
        let (d, x, y) = (dst.cast::<R>(), a.0.cast::<T>(), b.0.cast::<T>());
        for i in 0..count {
            // SAFETY: element `i` of each run (the contract); the runs may
            // be the same memory (an in-place call), so raw pointers, read
            // before written.
            unsafe {
                d.add(i)
                    .write_unaligned(f(x.add(i).read_unaligned(), y.add(i).read_unaligned()))
            };
        }
    } else {
        for i in 0..count as isize {
            // SAFETY: as above, at the runs' strides.
            unsafe {
                let v = f(
                    a.0.offset(i * a.1).cast::<T>().read_unaligned(),
                    b.0.offset(i * b.1).cast::<T>().read_unaligned(),
                );
                dst.offset(i * ds).cast::<R>().write_unaligned(v)
            };
        }
    }
}

/// For a loop body `$body::<T: $bound>(op: $op, dst, ds, a, b, count)`
/// (`#[inline(always)]`), `$on::<T>(isa, ...)`: the body compiled for
/// `isa` ([`crate::isa::on!`]).
///
/// `$on`'s safety contract is `$body`'s, on a CPU that has `isa`.
macro_rules! isa_copies {
    ($on:ident, $body:ident, $bound:path, $op:ty) => {
        #[doc = concat!("[`", stringify!($body), "`] compiled for `isa`.")]
        ///
        /// # Safety
        ///
        #[doc = concat!("As [`", stringify!($body), "`], on a CPU that has `isa`.")]
        #[inline(always)]
        unsafe fn $on<T: $bound>(
            isa: crate::isa::Isa,
            op: $op,
            dst: *mut u8,
            ds: isize,
            a: (*const u8, isize),
            b: (*const u8, isize),
            count: usize,
        ) {
            // SAFETY: the CPU has `isa`, and the pointers are the body's
            // contract: both the caller's, forwarded.
            unsafe { crate::isa::on!(isa, $body::<T>(op, dst, ds, a, b, count)) }
        }
    };
}

pub(super) use isa_copies;
