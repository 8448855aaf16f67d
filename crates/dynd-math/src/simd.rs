//! The loops over slices, compiled once per instruction set and chosen at
//! run time. This is the crate's only `unsafe` code: calling a function
//! compiled for AVX2 or AVX-512 is sound only on a CPU that has it, which
//! [`Isa::available`] checks before every such call.

use crate::{exp, inverse, log, single, trig, Binary, Isa, Unary};

/// Elements per chunk: the original arguments of a chunk are kept on the
/// stack for the lanes that need the slow path after the vector pass.
const CHUNK: usize = 1024;

/// `float32` values widened per pass: a smaller buffer, which every call
/// zeroes (a short call should not pay for 8 KB).
const WIDE: usize = 256;

// The loops below are macros and plain `for` loops, not iterator
// adaptors with closures: an adaptor that the compiler declines to
// inline is compiled without the caller's target features, and its
// `mul_add`s become library calls.

/// `$x = $lane($x)` over the slice.
macro_rules! each {
    ($xs:expr, $lane:expr) => {
        for x in $xs.iter_mut() {
            *x = $lane(*x);
        }
    };
}

/// The vector pass over a chunk, then `$slow` for the arguments past
/// the vector path (`$is_edge`).
macro_rules! with_edges {
    ($xs:expr, $lane:expr, $is_edge:expr, $slow:expr) => {{
        for chunk in $xs.chunks_mut(CHUNK) {
            // Most chunks have no such argument: checked in bulk first (a
            // fold, not `any`, whose early exit does not vectorise), so
            // that only the others keep a copy of their arguments.
            if chunk.iter().fold(false, |e, &x| e | $is_edge(x)) {
                let mut orig = [0.0; CHUNK];
                let orig = &mut orig[..chunk.len()];
                orig.copy_from_slice(chunk);
                each!(chunk, $lane);
                fix_edges(chunk, orig, $is_edge, $slow);
            } else {
                each!(chunk, $lane);
            }
        }
    }};
}

/// A function of two arguments: the vector pass, then `$edge` for the
/// pairs `$is_edge` picks out (zeros, infinities, NaNs).
macro_rules! binary_loop {
    ($xs:expr, $ys:expr, $main:expr, $is_edge:expr, $edge:expr) => {{
        for (chunk, ys) in $xs.chunks_mut(CHUNK).zip($ys.chunks(CHUNK)) {
            let n = chunk.len().min(ys.len());
            let (chunk, ys) = (&mut chunk[..n], &ys[..n]);
            if chunk
                .iter()
                .zip(ys)
                .fold(false, |e, (&x, &y)| e | $is_edge(x, y))
            {
                let mut orig = [0.0; CHUNK];
                let orig = &mut orig[..n];
                orig.copy_from_slice(chunk);
                for i in 0..n {
                    chunk[i] = $main(chunk[i], ys[i]);
                }
                fix_edges2(chunk, orig, ys, $is_edge, $edge);
            } else {
                for i in 0..n {
                    chunk[i] = $main(chunk[i], ys[i]);
                }
            }
        }
    }};
}

/// `out[i] = slow(orig[i])` where `is_edge(orig[i])`. The slow function
/// is called through an opaque pointer, so that the compiler cannot
/// vectorise this loop by calling it on every lane and blending (it is a
/// pure function, and it tried).
#[inline(always)]
fn fix_edges(out: &mut [f64], orig: &[f64], is_edge: fn(f64) -> bool, slow: fn(f64) -> f64) {
    let slow = std::hint::black_box(slow);
    for (o, &x) in out.iter_mut().zip(orig) {
        if is_edge(x) {
            *o = slow(x);
        }
    }
}

/// [`fix_edges`] for functions of two arguments.
#[inline(always)]
fn fix_edges2(
    out: &mut [f64],
    xs: &[f64],
    ys: &[f64],
    is_edge: fn(f64, f64) -> bool,
    edge: fn(f64, f64) -> f64,
) {
    let edge = std::hint::black_box(edge);
    for ((o, &x), &y) in out.iter_mut().zip(xs).zip(ys) {
        if is_edge(x, y) {
            *o = edge(x, y);
        }
    }
}

/// `f` over `xs` in place; `FMA` says whether the build has fused
/// multiply-add (the AVX2 and AVX-512 builds).
#[inline(always)]
fn unary<const FMA: bool>(f: Unary, xs: &mut [f64]) {
    match f {
        Unary::Exp => with_edges!(
            xs,
            exp::exp_fast::<FMA>,
            exp::exp_is_edge,
            exp::exp::<false>
        ),
        Unary::Exp2 => each!(xs, exp::exp2::<FMA>),
        Unary::Expm1 => each!(xs, exp::expm1::<FMA>),
        Unary::Log => with_edges!(
            xs,
            log::log_fast::<FMA>,
            log::log_is_edge,
            log::log::<false>
        ),
        Unary::Log2 => each!(xs, log::log2::<FMA>),
        Unary::Log10 => each!(xs, log::log10::<FMA>),
        Unary::Log1p => each!(xs, log::log1p::<FMA>),
        Unary::Sinh => each!(xs, exp::sinh::<FMA>),
        Unary::Cosh => each!(xs, exp::cosh::<FMA>),
        Unary::Tanh => each!(xs, exp::tanh::<FMA>),
        Unary::Arcsin => each!(xs, inverse::asin::<FMA>),
        Unary::Arccos => each!(xs, inverse::acos::<FMA>),
        Unary::Arctan => each!(xs, inverse::atan::<FMA>),
        Unary::Arcsinh => each!(xs, inverse::asinh::<FMA>),
        Unary::Arccosh => each!(xs, inverse::acosh::<FMA>),
        Unary::Arctanh => each!(xs, inverse::atanh::<FMA>),
        Unary::Cbrt => each!(xs, inverse::cbrt::<FMA>),
        Unary::Sin => with_edges!(xs, trig::sin::<FMA>, trig::is_edge, f64::sin),
        Unary::Cos => with_edges!(xs, trig::cos::<FMA>, trig::is_edge, f64::cos),
        Unary::Tan => with_edges!(xs, trig::tan::<FMA>, trig::is_edge, f64::tan),
    }
}

/// `f(xs, ys)` into `xs`.
#[inline(always)]
fn binary<const FMA: bool>(f: Binary, xs: &mut [f64], ys: &[f64]) {
    match f {
        Binary::Pow => binary_loop!(
            xs,
            ys,
            log::pow_main::<FMA>,
            log::pow_is_edge,
            log::pow_edge
        ),
        Binary::Arctan2 => {
            binary_loop!(
                xs,
                ys,
                inverse::atan2_main::<FMA>,
                inverse::atan2_is_edge,
                f64::atan2
            )
        }
        Binary::Hypot => {
            binary_loop!(
                xs,
                ys,
                inverse::hypot_main::<FMA>,
                inverse::hypot_is_edge,
                f64::hypot
            )
        }
    }
}

/// `sin` and `cos` of `xs` into `s` and `c` (of `xs`'s length).
#[inline(always)]
fn sincos<const FMA: bool>(xs: &[f64], s: &mut [f64], c: &mut [f64]) {
    let n = xs.len().min(s.len()).min(c.len());
    let (xs, s, c) = (&xs[..n], &mut s[..n], &mut c[..n]);
    for i in 0..n {
        (s[i], c[i]) = trig::sincos::<FMA>(xs[i]);
    }
    if xs.iter().fold(false, |e, &x| e | trig::is_edge(x)) {
        fix_edges(s, xs, trig::is_edge, f64::sin);
        fix_edges(c, xs, trig::is_edge, f64::cos);
    }
}

/// `f` over `float32` values, computed in `float64` a chunk at a time
/// and rounded once: `exp`, `log`, `sin`, `cos` and `tanh` by their
/// shorter `float32` forms, the others by the `float64` loops.
#[inline(always)]
fn unary_f32<const FMA: bool>(f: Unary, xs: &mut [f32]) {
    let mut wide = [0.0f64; WIDE];
    for chunk in xs.chunks_mut(WIDE) {
        let wide = &mut wide[..chunk.len()];
        for i in 0..wide.len() {
            wide[i] = chunk[i] as f64;
        }
        match f {
            Unary::Exp => each!(wide, single::exp::<FMA>),
            Unary::Log => each!(wide, single::log::<FMA>),
            Unary::Tanh => each!(wide, single::tanh::<FMA>),
            Unary::Sin => with_edges!(wide, single::sin::<FMA>, trig::is_edge, f64::sin),
            Unary::Cos => with_edges!(wide, single::cos::<FMA>, trig::is_edge, f64::cos),
            _ => unary::<FMA>(f, wide),
        }
        for i in 0..wide.len() {
            chunk[i] = wide[i] as f32;
        }
    }
}

/// [`binary`] over `float32` values, as [`unary_f32`].
#[inline(always)]
fn binary_f32<const FMA: bool>(f: Binary, xs: &mut [f32], ys: &[f32]) {
    let (mut wx, mut wy) = ([0.0f64; WIDE], [0.0f64; WIDE]);
    for (chunk, ys) in xs.chunks_mut(WIDE).zip(ys.chunks(WIDE)) {
        let n = chunk.len().min(ys.len());
        let (wx, wy) = (&mut wx[..n], &mut wy[..n]);
        for i in 0..n {
            wx[i] = chunk[i] as f64;
            wy[i] = ys[i] as f64;
        }
        binary::<FMA>(f, wx, wy);
        for i in 0..n {
            chunk[i] = wx[i] as f32;
        }
    }
}

/// One set of loops per instruction set: `$name::unary` and the others,
/// compiled with `$features` (none for the portable build).
macro_rules! isa_loops {
    ($name:ident, $fma:expr, $($features:literal)?) => {
        mod $name {
            use super::*;

            $(#[target_feature(enable = $features)])?
            pub(super) unsafe fn unary(f: Unary, xs: &mut [f64]) {
                super::unary::<{ $fma }>(f, xs)
            }

            $(#[target_feature(enable = $features)])?
            pub(super) unsafe fn unary_f32(f: Unary, xs: &mut [f32]) {
                super::unary_f32::<{ $fma }>(f, xs)
            }

            $(#[target_feature(enable = $features)])?
            pub(super) unsafe fn binary(f: Binary, xs: &mut [f64], ys: &[f64]) {
                super::binary::<{ $fma }>(f, xs, ys)
            }

            $(#[target_feature(enable = $features)])?
            pub(super) unsafe fn binary_f32(f: Binary, xs: &mut [f32], ys: &[f32]) {
                super::binary_f32::<{ $fma }>(f, xs, ys)
            }

            $(#[target_feature(enable = $features)])?
            pub(super) unsafe fn sincos(xs: &[f64], s: &mut [f64], c: &mut [f64]) {
                super::sincos::<{ $fma }>(xs, s, c)
            }
        }
    };
}

isa_loops!(portable, false,);
#[cfg(target_arch = "x86_64")]
isa_loops!(avx2, true, "avx2,fma");
#[cfg(target_arch = "x86_64")]
isa_loops!(avx512, true, "avx512f,avx512dq,avx512vl,avx2,fma");

/// Calls `$f` of the loops for `$isa`, which the caller has checked is
/// available.
macro_rules! dispatch {
    ($isa:expr, $f:ident($($arg:expr),*)) => {{
        match $isa {
            // SAFETY: the portable loops need nothing of the CPU.
            Isa::Portable => unsafe { portable::$f($($arg),*) },
            // SAFETY: the caller checked `Isa::available` for this set.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => unsafe { avx2::$f($($arg),*) },
            // SAFETY: as above.
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => unsafe { avx512::$f($($arg),*) },
            #[cfg(not(target_arch = "x86_64"))]
            _ => unsafe { portable::$f($($arg),*) },
        }
    }};
}

/// The ISA's loops for `f` over `xs` (`isa` available).
pub(crate) fn run_unary(isa: Isa, f: Unary, xs: &mut [f64]) {
    debug_assert!(isa.available());
    dispatch!(isa, unary(f, xs))
}

/// As [`run_unary`] for `float32`.
pub(crate) fn run_unary_f32(isa: Isa, f: Unary, xs: &mut [f32]) {
    debug_assert!(isa.available());
    dispatch!(isa, unary_f32(f, xs))
}

/// The ISA's loops for `f(xs, ys)` into `xs` (equal lengths).
pub(crate) fn run_binary(isa: Isa, f: Binary, xs: &mut [f64], ys: &[f64]) {
    debug_assert!(isa.available() && xs.len() == ys.len());
    dispatch!(isa, binary(f, xs, ys))
}

/// As [`run_binary`] for `float32`.
pub(crate) fn run_binary_f32(isa: Isa, f: Binary, xs: &mut [f32], ys: &[f32]) {
    debug_assert!(isa.available() && xs.len() == ys.len());
    dispatch!(isa, binary_f32(f, xs, ys))
}

/// The ISA's `sincos` loop (equal lengths).
pub(crate) fn run_sincos(isa: Isa, xs: &[f64], s: &mut [f64], c: &mut [f64]) {
    debug_assert!(isa.available() && xs.len() == s.len() && xs.len() == c.len());
    dispatch!(isa, sincos(xs, s, c))
}

/// The portable build's scalar functions.
pub(crate) mod scalar {
    use super::*;

    /// `f(x)` as the portable loop computes it.
    pub(crate) fn unary(f: Unary, x: f64) -> f64 {
        let trig = |fast: fn(f64) -> f64, slow: fn(f64) -> f64| {
            if trig::is_edge(x) {
                slow(x)
            } else {
                fast(x)
            }
        };
        match f {
            Unary::Sin => trig(trig::sin::<false>, f64::sin),
            Unary::Cos => trig(trig::cos::<false>, f64::cos),
            Unary::Tan => trig(trig::tan::<false>, f64::tan),
            _ => {
                let mut v = [x];
                super::unary::<false>(f, &mut v);
                v[0]
            }
        }
    }

    /// `f(x, y)` as the portable loop computes it.
    pub(crate) fn binary(f: Binary, x: f64, y: f64) -> f64 {
        match f {
            Binary::Pow if log::pow_is_edge(x, y) => log::pow_edge(x, y),
            Binary::Pow => log::pow_main::<false>(x, y),
            Binary::Arctan2 if inverse::atan2_is_edge(x, y) => x.atan2(y),
            Binary::Arctan2 => inverse::atan2_main::<false>(x, y),
            Binary::Hypot if inverse::hypot_is_edge(x, y) => x.hypot(y),
            Binary::Hypot => inverse::hypot_main::<false>(x, y),
        }
    }

    /// `(sin x, cos x)` as the portable loop computes them.
    pub(crate) fn sincos(x: f64) -> (f64, f64) {
        if trig::is_edge(x) {
            (x.sin(), x.cos())
        } else {
            trig::sincos::<false>(x)
        }
    }
}
