//! Leaves whose loops are compiled for each instruction set (AVX-512,
//! AVX2 and the baseline build) and chosen at run time by
//! [`dynd_math::Isa::active`]: one generic loop body per family, written
//! as a plain indexed loop the compiler vectorises, copied per set by
//! [`isa_copies!`]. The families: plain float operations ([`F64Op`] over
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
/// AVX-512 (F, DQ and VL: what [`dynd_math::Isa::Avx512`] stands for) and
/// for AVX2 as well as for the baseline, run on `isa`'s copy.
///
/// `$on`'s safety contract is `$body`'s, on a CPU that has `isa`.
macro_rules! isa_copies {
    ($on:ident, $body:ident, $bound:path, $op:ty) => {
        #[doc = concat!("[`", stringify!($body), "`] on the loops of `isa`.")]
        ///
        /// # Safety
        ///
        #[doc = concat!("As [`", stringify!($body), "`], on a CPU that has `isa`.")]
        #[inline(always)]
        unsafe fn $on<T: $bound>(
            isa: dynd_math::Isa,
            op: $op,
            dst: *mut u8,
            ds: isize,
            a: (*const u8, isize),
            b: (*const u8, isize),
            count: usize,
        ) {
            /// The body compiled for AVX-512.
            ///
            /// # Safety
            ///
            /// As the body's, on a CPU with AVX-512 F, DQ and VL.
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2")]
            unsafe fn avx512<T: $bound>(
                op: $op,
                dst: *mut u8,
                ds: isize,
                a: (*const u8, isize),
                b: (*const u8, isize),
                count: usize,
            ) {
                // SAFETY: forwarded.
                unsafe { $body::<T>(op, dst, ds, a, b, count) }
            }
            /// The body compiled for AVX2.
            ///
            /// # Safety
            ///
            /// As the body's, on a CPU with AVX2.
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2")]
            unsafe fn avx2<T: $bound>(
                op: $op,
                dst: *mut u8,
                ds: isize,
                a: (*const u8, isize),
                b: (*const u8, isize),
                count: usize,
            ) {
                // SAFETY: forwarded.
                unsafe { $body::<T>(op, dst, ds, a, b, count) }
            }
            match isa {
                // SAFETY: the CPU has the set (`Isa::Avx512` is AVX-512 F,
                // DQ and VL with AVX2); the pointers are the caller's
                // contract, forwarded.
                #[cfg(target_arch = "x86_64")]
                dynd_math::Isa::Avx512 => unsafe { avx512::<T>(op, dst, ds, a, b, count) },
                // SAFETY: as above.
                #[cfg(target_arch = "x86_64")]
                dynd_math::Isa::Avx2 => unsafe { avx2::<T>(op, dst, ds, a, b, count) },
                // SAFETY: the caller's contract, forwarded.
                _ => unsafe { $body::<T>(op, dst, ds, a, b, count) },
            }
        }
    };
}

pub(super) use isa_copies;
