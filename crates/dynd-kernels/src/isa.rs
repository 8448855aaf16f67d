//! Loops compiled for each instruction set and chosen at run time.
//!
//! The library is built for the target's baseline (SSE2 on x86-64). Its
//! hot loops are written once, as plain loops the compiler vectorises,
//! and run through [`on!`] or [`best!`], which compile the closure they
//! are given three times: for AVX-512 (F, DQ and VL), for AVX2 with FMA, and
//! for the baseline. [`Isa::active`] chooses, once per process: the best
//! set the CPU has, capped by the environment variable `DYND_SIMD`
//! (`portable`, `avx2` or `avx512`), which is how the tests and the
//! benchmarks force a path.
//!
//! The body must be inlined into the copy for its set, and so must what
//! it calls: [`on!`] and [`best!`] mark their closure `#[inline(always)]`
//! (an unmarked closure with a large body stays out of line, compiled
//! for the baseline in all three copies), and the functions the body
//! calls are `#[inline(always)]` too; one called out of line runs in the
//! baseline build. The same operations give the same bits on every
//! set (Rust never fuses a multiply and an add on its own), so the
//! choice changes speed, not results.

pub(crate) use dynd_math::Isa;

/// `$body` compiled for the set `$isa` (an [`Isa`]): `unsafe`, as
/// [`run_on`], whose closure it marks `#[inline(always)]`.
macro_rules! on {
    ($isa:expr, $body:expr) => {
        $crate::isa::run_on(
            $isa,
            #[inline(always)]
            || $body,
        )
    };
}
pub(crate) use on;

/// `$body` compiled for the set [`Isa::active`] chooses: [`run_best`]
/// with its closure marked `#[inline(always)]`.
macro_rules! best {
    ($body:expr) => {
        $crate::isa::run_best(
            #[inline(always)]
            || $body,
        )
    };
}
pub(crate) use best;

/// `$body` compiled for the set `$isa` capped at AVX2 (twice: for AVX2
/// with FMA and for the baseline), for loops that AVX-512 does not make
/// faster: `unsafe`, as [`run_upto_avx2`].
macro_rules! upto_avx2 {
    ($isa:expr, $body:expr) => {
        $crate::isa::run_upto_avx2(
            $isa,
            #[inline(always)]
            || $body,
        )
    };
}
pub(crate) use upto_avx2;

/// `body()` with AVX-512 F, DQ and VL (and AVX2 and FMA) enabled.
///
/// # Safety
///
/// The CPU has them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2,fma")]
unsafe fn avx512<R>(body: impl FnOnce() -> R) -> R {
    body()
}

/// `body()` with AVX2 and FMA enabled.
///
/// # Safety
///
/// The CPU has them.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
unsafe fn avx2<R>(body: impl FnOnce() -> R) -> R {
    body()
}

/// `body()`, compiled for `isa`'s instructions (through [`on!`]).
///
/// # Safety
///
/// The CPU has `isa` ([`Isa::available`]; [`Isa::active`] always is).
#[inline(always)]
pub(crate) unsafe fn run_on<R>(isa: Isa, body: impl FnOnce() -> R) -> R {
    match isa {
        // SAFETY: the CPU has the set (the caller's contract):
        // `Isa::Avx512` stands for exactly these features.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 => unsafe { avx512(body) },
        // SAFETY: as above; `Isa::Avx2` is AVX2 with FMA.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx2 => unsafe { avx2(body) },
        _ => body(),
    }
}

/// `body()`, compiled for `isa` capped at AVX2 (through [`upto_avx2!`]).
///
/// # Safety
///
/// The CPU has `isa`.
#[inline(always)]
pub(crate) unsafe fn run_upto_avx2<R>(isa: Isa, body: impl FnOnce() -> R) -> R {
    match isa {
        // SAFETY: the CPU has `isa` (the caller's contract), and both
        // sets include AVX2 with FMA.
        #[cfg(target_arch = "x86_64")]
        Isa::Avx512 | Isa::Avx2 => unsafe { avx2(body) },
        _ => body(),
    }
}

/// `body()`, compiled for the set [`Isa::active`] chooses (through
/// [`best!`]).
#[inline(always)]
pub(crate) fn run_best<R>(body: impl FnOnce() -> R) -> R {
    // SAFETY: `Isa::active` is a set this CPU has.
    unsafe { run_on(Isa::active(), body) }
}

/// The sets this CPU has, from the most portable: what the tests run
/// each loop on.
#[cfg(test)]
pub(crate) fn available() -> impl Iterator<Item = Isa> {
    Isa::ALL.into_iter().filter(|i| i.available())
}
