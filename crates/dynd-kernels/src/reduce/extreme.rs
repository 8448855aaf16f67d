//! `max` and `min` of contiguous runs of the common number types, as
//! NumPy's loops do them: one compare-and-select per element into many
//! independent lanes, with NaN kept aside.
//!
//! The generic fold ([`fold8`](super::fold8) over
//! [`Arith::max`](super::Arith::max)) is a
//! chain of NaN-propagating selects per accumulator (a NaN compare, the
//! compare-and-select, a blend with NaN): latency-bound at eight lanes.
//! Here each lane keeps `x > m ? x : m` (one `vmaxpd`, which ignores a
//! NaN `x`), and a second lane set keeps any NaN seen (a compare and a
//! masked move), with four vectors of each in flight. Since `max` and
//! `min` are exact, any grouping gives the fold's value: NaN if any
//! element is NaN (the canonical NaN, as `Arith::max` returns), else
//! the largest (smallest) element. The one case where groupings differ
//! is the sign of a zero result when both zeros occur (a tie keeps the
//! left operand, so which zero survives depends on the grouping): a
//! float run whose result is a zero is folded again by the generic tree,
//! so the result is that tree's, bit for bit, always.
//!
//! ```
//! use dynd::func::builtins;
//! use dynd::nd::Array;
//!
//! let xs: Vec<f64> = (0..10_000).map(|i| ((i * 7919) % 10_007) as f64).collect();
//! let max = builtins::get("max")?.call(&[&Array::from_vec(xs)])?;
//! assert_eq!(max.get::<f64>(&[])?, 10_006.0);
//! # Ok::<(), dynd::Error>(())
//! ```

use super::pairwise::fold_chunk_on;
use crate::isa::{self, Isa};
use crate::op::{self, FloatApply, IntApply};

/// Runs shorter than this take the generic fold (its short loop).
const SHORT: usize = 256;

/// Whether `x` replaces `m` as the largest (`MAX`) or smallest so far:
/// never for a NaN `x`, and never on a tie.
#[inline(always)]
fn beats<T: PartialOrd, const MAX: bool>(x: &T, m: &T) -> bool {
    if MAX {
        x > m
    } else {
        x < m
    }
}

/// One element into a lane: `acc` keeps the largest (smallest) non-NaN
/// element, `probe` any NaN (`x != x` only for a NaN: always false for
/// integers, so the compiler drops the probe).
#[inline(always)]
fn step<T: Copy + PartialOrd, const MAX: bool>(acc: &mut T, probe: &mut T, x: T) {
    // Selects, as the vector instructions are (`vmaxpd`, a masked move).
    *acc = if beats::<T, MAX>(&x, acc) { x } else { *acc };
    #[allow(clippy::eq_op)]
    let nan = x != x;
    *probe = if nan { x } else { *probe };
}

/// The lanes of a run: the largest (`MAX`) or smallest element of each
/// lane, ignoring NaN, and whether a lane saw a NaN (`probe` holds it).
/// `xs` has at least `L` elements.
#[inline(always)]
fn lanes<T: Copy + PartialOrd, const MAX: bool, const L: usize>(xs: &[T]) -> ([T; L], [T; L]) {
    let (head, rest) = xs.split_at(L);
    let mut acc: [T; L] = std::array::from_fn(|k| head[k]);
    // A NaN head element stays in `acc` (no compare with it is true) and
    // is seen here.
    let mut probe = acc;
    let mut blocks = rest.chunks_exact(L);
    for c in &mut blocks {
        for k in 0..L {
            step::<T, MAX>(&mut acc[k], &mut probe[k], c[k]);
        }
    }
    for (k, &x) in blocks.remainder().iter().enumerate() {
        step::<T, MAX>(&mut acc[k], &mut probe[k], x);
    }
    (acc, probe)
}

/// What [`lanes`] found, folded: the largest (smallest) element, or
/// `Err` with a NaN element when there is one.
#[inline(always)]
fn lanes_result<T: Copy + PartialOrd, const MAX: bool, const L: usize>(xs: &[T]) -> Result<T, T> {
    let (acc, probe) = lanes::<T, MAX, L>(xs);
    #[allow(clippy::eq_op)]
    if let Some(&nan) = probe.iter().find(|p| p != p) {
        return Err(nan);
    }
    Ok(acc
        .into_iter()
        .fold(acc[0], |m, x| if beats::<T, MAX>(&x, &m) { x } else { m }))
}

/// A type whose `max` and `min` runs have the kernel of this module.
pub(crate) trait Extreme: Copy + PartialOrd {
    /// Whether the type has a signed zero (the floats).
    const SIGNED_ZERO: bool;
    /// Zero.
    const ZERO: Self;
    /// The operation table's `maximum` (`MAX`) or `minimum`: what the
    /// builtin reductions fold with ([`Arith`](super::Arith)'s `max` and `min`).
    fn pick<const MAX: bool>(a: Self, b: Self) -> Self;
    /// [`lanes_result`] on `isa`'s loop (`xs` holds at least as many
    /// elements as the set's lanes).
    ///
    /// # Safety
    ///
    /// The CPU has `isa`.
    unsafe fn lanes_on<const MAX: bool>(isa: Isa, xs: &[Self]) -> Result<Self, Self>;
}

macro_rules! extreme {
    ($($t:ty: $apply:ident, $signed_zero:expr, $zero:expr, [$l512:literal, $l256:literal, $l128:literal]);* $(;)?) => {$(
        impl Extreme for $t {
            const SIGNED_ZERO: bool = $signed_zero;
            const ZERO: $t = $zero;
            #[inline(always)]
            fn pick<const MAX: bool>(a: $t, b: $t) -> $t {
                if MAX {
                    <op::Maximum as $apply>::apply(a, b)
                } else {
                    <op::Minimum as $apply>::apply(a, b)
                }
            }
            #[inline]
            unsafe fn lanes_on<const MAX: bool>(isa: Isa, xs: &[$t]) -> Result<$t, $t> {
                // Four registers of accumulators per set (eight of the
                // 64-bit integers on AVX-512: with four, LLVM vectorises
                // across the blocks with shuffles instead).
                // SAFETY: the CPU has `isa` (the caller's contract).
                unsafe {
                    match isa {
                        Isa::Avx512 => isa::on!(isa, lanes_result::<$t, MAX, $l512>(xs)),
                        Isa::Avx2 => isa::on!(isa, lanes_result::<$t, MAX, $l256>(xs)),
                        _ => isa::on!(isa, lanes_result::<$t, MAX, $l128>(xs)),
                    }
                }
            }
        }
    )*};
}
extreme! {
    f64: FloatApply, true, 0.0, [32, 16, 8];
    f32: FloatApply, true, 0.0, [64, 32, 16];
    i64: IntApply, false, 0, [64, 16, 8];
    u64: IntApply, false, 0, [64, 16, 8];
    i32: IntApply, false, 0, [64, 32, 16];
    u32: IntApply, false, 0, [64, 32, 16];
}

/// The `max` of a contiguous run (at most a chunk) as
/// [`fold_chunk_on`] with [`Arith::max`](super::Arith::max) gives it,
/// bit for bit; `None` for no elements.
pub(crate) fn max_run<T: Extreme>(xs: &[T]) -> Option<T> {
    // SAFETY: `Isa::active` is a set this CPU has.
    unsafe { run_on::<T, true>(Isa::active(), xs) }
}

/// The `min` of a contiguous run, as [`max_run`].
pub(crate) fn min_run<T: Extreme>(xs: &[T]) -> Option<T> {
    // SAFETY: `Isa::active` is a set this CPU has.
    unsafe { run_on::<T, false>(Isa::active(), xs) }
}

/// [`max_run`] (`MAX`) or [`min_run`] on `isa`'s loop.
///
/// # Safety
///
/// The CPU has `isa`.
pub(super) unsafe fn run_on<T: Extreme, const MAX: bool>(isa: Isa, xs: &[T]) -> Option<T> {
    let f = T::pick::<MAX>;
    if xs.len() < SHORT {
        // SAFETY: forwarded.
        return unsafe { fold_chunk_on(isa, xs, &f) };
    }
    // SAFETY: forwarded; `xs` has at least `SHORT` elements, more than
    // any set's lanes.
    match unsafe { T::lanes_on::<MAX>(isa, xs) } {
        // A NaN: every step of the tree with one gives the canonical NaN.
        Err(nan) => Some(f(nan, nan)),
        // A zero that may be either: the tree's own sign.
        Ok(m) if T::SIGNED_ZERO && m == T::ZERO => {
            // SAFETY: forwarded.
            unsafe { fold_chunk_on(isa, xs, &f) }
        }
        Ok(m) => Some(m),
    }
}
