//! Vectorised elementary functions for `float64` and `float32`, within
//! one ULP of the correctly rounded result, compiled for several
//! instruction sets and chosen at run time.
//!
//! The scalar C library call stops a compiler from vectorising a loop.
//! The functions here are written lane by lane, without branches on the
//! main path, so that a loop over a slice becomes SIMD code; the loops
//! are compiled three times (the x86-64 baseline, AVX2 with FMA, and
//! AVX-512) and the best one the CPU has is picked once per process.
//! The few arguments the vector path does not cover (trigonometric
//! arguments past 1.6e6, reduced exactly by Payne and Hanek's method,
//! `exp` near overflow and underflow, `log` of
//! subnormals, zeros and negatives, `pow`, `arctan2` and `hypot` at
//! zeros, infinities and NaNs, `pow` near overflow and underflow) are
//! fixed up lane by lane after the vector pass. A function whose work
//! per element is one long serial chain (`pow`) runs as several passes
//! over a block of elements, each short enough for the processor to
//! overlap neighbouring elements; its table lookup is written with
//! AVX-512 permutes where that is available, since the compiler's vector
//! loop would gather from memory, which is several times slower. On
//! AVX-512, `log` takes the same table from registers too (no division,
//! a short series; more often correctly rounded than the other paths'
//! `log`, within one ULP as they are); `exp`, `pow`'s last pass and
//! `tanh` take a table of `2^(j/16)` from registers (a series for `e^r`
//! half as long as the other paths'; for `tanh` every argument in the
//! vector pass and one division corrected by its remainder).
//!
//! Without AVX-512, `arcsin`, `arccos` and `arctan` run the C library's
//! function lane by lane: their table lookups do not vectorise on AVX2,
//! glibc's are three times faster there, and within one ULP (which the
//! accuracy tests check on every path, as for the rest).
//!
//! Slices are transformed in place ([`Unary::map`], [`Binary::map`]) or
//! read into another slice ([`Unary::map_into`], [`Binary::map_into`],
//! [`sincos_slices`]), which for a result stored apart from its arguments
//! reads and writes each element once; scalar functions ([`sin`],
//! [`fn@exp`], …) take `f64` or `f32` and give the same bits as
//! [`Isa::active`]'s loop over a slice.
//!
//! ```
//! use dynd::math::{Binary, Unary};
//!
//! let mut v = vec![0.0, 1.0, std::f64::consts::FRAC_PI_2];
//! Unary::Sin.map(&mut v);
//! assert_eq!(v, [0.0, 0.8414709848078965, 1.0]);
//!
//! let mut x = vec![2.0, -2.0, 10.0];
//! Binary::Pow.map(&mut x, &[10.0, 3.0, -1.0]);
//! assert_eq!(x, [1024.0, -8.0, 0.1]);
//!
//! let mut logs = [0.0f32; 2];
//! Unary::Log.map_into(&[1.0, 8.0], &mut logs);
//! assert_eq!(logs, [0.0, 8.0f32.ln()]);
//!
//! assert_eq!(dynd::math::exp(1.0f32), std::f32::consts::E);
//! assert_eq!(dynd::math::log(1.0f64), 0.0);
//! ```
//!
//! # Accuracy
//!
//! Every function is within one ULP of the correctly rounded result on
//! every path (tested against CORE-MATH, a correctly rounded library, on
//! a million or more arguments per function and path, log-uniform over
//! the exponent range and dense near the reduction boundaries): the
//! measured maxima are in [`Unary`]'s documentation. Special values are
//! as C99's Annex F gives them: `exp(0) = 1`, `log(1) = 0`, `sin(±0) =
//! ±0`, `cos(0) = 1`, `log(0) = -inf`, `log(-1) = NaN`, overflow to
//! `inf`, gradual underflow, NaN in NaN out, and `pow`'s table of zeros
//! and infinities. The FMA builds can differ from the portable one in the
//! last bit (both within one ULP).
//!
//! `float32` is computed in `float64` and rounded once (so within one
//! ULP, and nearly always correctly rounded); `sin`, `cos` and `tanh`
//! take shorter polynomials for it. `exp` and `log` are computed in
//! `float32` itself, twice the lanes per vector, and checked within one
//! ULP over every one of the 2^32 `float32` arguments.
//!
//! # Choosing the path
//!
//! [`Isa::active`] is the best set the CPU has, unless the environment
//! variable `DYND_SIMD` is set to `portable`, `avx2` or `avx512`, which
//! caps it (read once per process). Each slice function also has a
//! `_with` form taking the [`Isa`] explicitly, which tests use to cover
//! every path on one machine.

//!
//! # Layering
//!
//! A module imports only from floors below its own (checked by the
//! workspace's `tests/layering.rs`).
//!
//! | floor | modules |
//! |---|---|
//! | 4 | `simd` |
//! | 3 | `inverse` |
//! | 2 | `log`, `trig` |
//! | 1 | `exp`, `single` |
//! | 0 | `ops`, `sealed` |

#![cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]

mod exp;
mod inverse;
mod log;
mod ops;
mod simd;
mod single;
mod trig;

use std::sync::atomic::{AtomicU8, Ordering};

/// An instruction set the loops are compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Isa {
    /// The target's baseline (SSE2 on x86-64), without fused
    /// multiply-add: runs everywhere.
    Portable,
    /// AVX2 with FMA (x86-64).
    Avx2,
    /// AVX-512 F, DQ and VL (x86-64).
    Avx512,
}

impl Isa {
    /// Every set, from the most portable.
    pub const ALL: [Isa; 3] = [Isa::Portable, Isa::Avx2, Isa::Avx512];

    /// Whether this CPU can run the set's loops.
    pub fn available(self) -> bool {
        match self {
            Isa::Portable => true,
            #[cfg(target_arch = "x86_64")]
            Isa::Avx2 => {
                std::arch::is_x86_feature_detected!("avx2")
                    && std::arch::is_x86_feature_detected!("fma")
            }
            #[cfg(target_arch = "x86_64")]
            Isa::Avx512 => {
                Isa::Avx2.available()
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512dq")
                    && std::arch::is_x86_feature_detected!("avx512vl")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// The best set this CPU has.
    pub fn detected() -> Isa {
        Isa::ALL
            .into_iter()
            .rev()
            .find(|i| i.available())
            .unwrap_or(Isa::Portable)
    }

    /// The set the slice functions use: [`Isa::detected`], capped by the
    /// environment variable `DYND_SIMD` (`portable`, `avx2` or `avx512`;
    /// read once per process).
    pub fn active() -> Isa {
        static ACTIVE: AtomicU8 = AtomicU8::new(u8::MAX);
        match ACTIVE.load(Ordering::Relaxed) {
            0 => Isa::Portable,
            1 => Isa::Avx2,
            2 => Isa::Avx512,
            _ => {
                let cap = match std::env::var("DYND_SIMD").as_deref() {
                    Ok("portable") => Isa::Portable,
                    Ok("avx2") => Isa::Avx2,
                    _ => Isa::Avx512,
                };
                let isa = Isa::detected().min(cap);
                ACTIVE.store(isa as u8, Ordering::Relaxed);
                isa
            }
        }
    }

    /// The set's name, as `DYND_SIMD` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Isa::Portable => "portable",
            Isa::Avx2 => "avx2",
            Isa::Avx512 => "avx512",
        }
    }
}

/// A function of one argument.
///
/// # Accuracy
///
/// The largest distance from the correctly rounded result (CORE-MATH's),
/// in representable numbers, with the share of arguments correctly
/// rounded, per path; `float32` is computed in `float64` and rounded
/// once, except `exp` and `log` (computed in `float32`, and checked over
/// all 2^32 arguments: `exhaustive_native_f32`) and `pow` (its own
/// `float64` form for `float32` arguments, checked over a million pairs
/// in `float32`'s ranges). The `sin`, `cos` and `tan` rows include 1,004
/// doubles from 1.6e6 to 1e292 lying nearest to multiples of `pi/2`
/// (where the C library's reduction was off by up to 1e5 ULP), and were
/// measured again on an AVX2-only CPU; every row's bound is asserted on
/// each path the CPU running the tests has. The arguments are spread over each function's range (see
/// `tests/accuracy.rs`; `cargo test -p dynd-math --test accuracy --
/// --nocapture` prints the table on this CPU). The two-argument
/// functions ([`Binary`]) are in the first rows.
///
/// | function | portable | AVX2 + FMA | AVX-512 | `float32`, every path | arguments per path |
/// |---|---|---|---|---|---|
/// | `arctan2` | 1 (99.9406%) | 1 (99.9557%) | 1 (99.9557%) | ≤ 1 | 1048576 |
/// | `hypot` | 1 (99.9997%) | 1 (99.9997%) | 1 (99.9997%) | ≤ 1 | 1048576 |
/// | `exp` | 1 (95.3587%) | 1 (95.3431%) | 1 (99.6999%; table-driven, as `tanh`) | 1 (96.6331–96.7376%); ≤ 1 over all 2^32 | 1048658 |
/// | `exp2` | 1 (97.6135%) | 1 (97.3725%) | 1 (97.3725%) | 0 (100%) | 1048576 |
/// | `expm1` | 1 (98.2855%) | 1 (98.2933%) | 1 (98.2933%) | 0 (100%) | 1048576 |
/// | `log` | 1 (97.9832%) | 1 (97.9833%) | 1 (99.9895%; its own table-driven loop) | 1 (97.9701–97.9713%); ≤ 1 over all 2^32 | 1048532 |
/// | `log2` | 1 (99.4753%) | 1 (99.4750%) | 1 (99.4750%) | 0 (100%) | 1048422 |
/// | `log10` | 1 (99.4733%) | 1 (99.4730%) | 1 (99.4730%) | 0 (100%) | 1048455 |
/// | `log1p` | 1 (96.6889%) | 1 (96.6887%) | 1 (96.6887%) | 0 (100%) | 1048576 |
/// | `sin` | 1 (98.3650%) | 1 (98.3648%) | ≤ 1 (not re-measured) | 1 (99.9992%) | 1049580 |
/// | `cos` | 1 (98.4385%) | 1 (98.4387%) | ≤ 1 (not re-measured) | 1 (99.9990%) | 1049580 |
/// | `tan` | 1 (97.3176%) | 1 (97.3164%) | ≤ 1 (not re-measured) | 0 (100%) | 1049580 |
/// | `sinh` | 1 (98.6851%) | 1 (98.6937%) | 1 (98.6937%) | 0 (100%) | 1048576 |
/// | `cosh` | 1 (99.0296%) | 1 (99.0310%) | 1 (99.0310%) | 0 (100%) | 1048576 |
/// | `tanh` | 1 (99.3810%) | 1 (99.3876%) | 1 (99.9884%; its own table-driven loop) | 1 (99.9902%) | 1048658 |
/// | `arcsin` | 1 (99.9996%) | 1 (99.9996%) | 1 (99.9996%) | 0 (100%) | 1048576 |
/// | `arccos` | 1 (99.9998%) | 1 (99.9998%) | 1 (99.9998%) | 0 (100%) | 1048576 |
/// | `arctan` | 1 (99.9999%) | 1 (99.9999%) | 1 (99.9999%) | 0 (100%) | 1048576 |
/// | `arcsinh` | 0 (100.0000%) | 0 (100.0000%) | 0 (100.0000%) | 0 (100%) | 1048576 |
/// | `arccosh` | 1 (99.9878%) | 1 (99.9878%) | 1 (99.9878%) | 0 (100%) | 1048576 |
/// | `arctanh` | 1 (99.9998%) | 1 (99.9998%) | 1 (99.9998%) | 0 (100%) | 1048576 |
/// | `cbrt` | 0 (100.0000%) | 0 (100.0000%) | 0 (100.0000%) | 0 (100%) | 1048477 |
/// | `pow` | 1 (98.7642%) | 1 (98.7695%) | 1 (99.2253%; two passes of its own) | 1 (99.9928%), `float32` arguments | 1048730 |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Unary {
    /// `e^x`.
    Exp,
    /// `2^x`.
    Exp2,
    /// `e^x - 1`, accurate near 0.
    Expm1,
    /// The natural logarithm.
    Log,
    /// The base-2 logarithm.
    Log2,
    /// The base-10 logarithm.
    Log10,
    /// `log(1 + x)`, accurate near 0.
    Log1p,
    /// The sine (radians).
    Sin,
    /// The cosine.
    Cos,
    /// The tangent.
    Tan,
    /// The hyperbolic sine.
    Sinh,
    /// The hyperbolic cosine.
    Cosh,
    /// The hyperbolic tangent.
    Tanh,
    /// The inverse sine, in `[-pi/2, pi/2]`.
    Arcsin,
    /// The inverse cosine, in `[0, pi]`.
    Arccos,
    /// The inverse tangent, in `[-pi/2, pi/2]`.
    Arctan,
    /// The inverse hyperbolic sine.
    Arcsinh,
    /// The inverse hyperbolic cosine.
    Arccosh,
    /// The inverse hyperbolic tangent.
    Arctanh,
    /// The cube root.
    Cbrt,
}

impl Unary {
    /// Every function.
    pub const ALL: [Unary; 20] = [
        Unary::Exp,
        Unary::Exp2,
        Unary::Expm1,
        Unary::Log,
        Unary::Log2,
        Unary::Log10,
        Unary::Log1p,
        Unary::Sin,
        Unary::Cos,
        Unary::Tan,
        Unary::Sinh,
        Unary::Cosh,
        Unary::Tanh,
        Unary::Arcsin,
        Unary::Arccos,
        Unary::Arctan,
        Unary::Arcsinh,
        Unary::Arccosh,
        Unary::Arctanh,
        Unary::Cbrt,
    ];

    /// The function's name (as NumPy and dynd's builtins spell it).
    pub fn name(self) -> &'static str {
        match self {
            Unary::Exp => "exp",
            Unary::Exp2 => "exp2",
            Unary::Expm1 => "expm1",
            Unary::Log => "log",
            Unary::Log2 => "log2",
            Unary::Log10 => "log10",
            Unary::Log1p => "log1p",
            Unary::Sin => "sin",
            Unary::Cos => "cos",
            Unary::Tan => "tan",
            Unary::Sinh => "sinh",
            Unary::Cosh => "cosh",
            Unary::Tanh => "tanh",
            Unary::Arcsin => "arcsin",
            Unary::Arccos => "arccos",
            Unary::Arctan => "arctan",
            Unary::Arcsinh => "arcsinh",
            Unary::Arccosh => "arccosh",
            Unary::Arctanh => "arctanh",
            Unary::Cbrt => "cbrt",
        }
    }

    /// The function of `x`, as [`Isa::active`]'s loop computes it: the
    /// same bits as [`Unary::map`] over a slice holding `x`.
    pub fn eval(self, x: f64) -> f64 {
        let mut out = [0.0];
        simd::run_unary(Isa::active(), self, &[x], &mut out);
        out[0]
    }

    /// Replaces each element of `xs` with the function of it, on
    /// [`Isa::active`]'s loops.
    pub fn map(self, xs: &mut [f64]) {
        simd::run_unary_in_place(Isa::active(), self, xs)
    }

    /// [`Unary::map`] for `float32` (computed in `float64` and rounded
    /// once, or for `exp` and `log` in `float32`; see the accuracy table).
    pub fn map_f32(self, xs: &mut [f32]) {
        simd::run_unary_f32(Isa::active(), self, None, xs)
    }

    /// The function of each element of `xs` into `out`, on
    /// [`Isa::active`]'s loops: for a result stored apart from its
    /// arguments, cheaper than copying them into `out` and calling
    /// [`Unary::map`] (each element is read once and written once).
    ///
    /// ```
    /// use dynd::math::Unary;
    ///
    /// let xs = [0.0f32, 1.0];
    /// let mut out = [0.0f32; 2];
    /// Unary::Exp.map_into(&xs, &mut out);
    /// assert_eq!(out, [1.0, std::f32::consts::E]);
    /// ```
    ///
    /// # Panics
    ///
    /// If the slices' lengths differ.
    pub fn map_into<T: Float>(self, xs: &[T], out: &mut [T]) {
        self.map_into_with(Isa::active(), xs, out);
    }

    /// [`Unary::map_into`] on the loops of `isa`; `false` (and `out`
    /// untouched) if this CPU does not have it.
    ///
    /// # Panics
    ///
    /// If the slices' lengths differ.
    pub fn map_into_with<T: Float>(self, isa: Isa, xs: &[T], out: &mut [T]) -> bool {
        assert_eq!(
            xs.len(),
            out.len(),
            "{}: slices of different lengths",
            self.name()
        );
        isa.available() && {
            T::unary_into(isa, self, xs, out);
            true
        }
    }

    /// [`Unary::map`] on the loops of `isa`; `false` (and `xs` untouched)
    /// if this CPU does not have it.
    pub fn map_with(self, isa: Isa, xs: &mut [f64]) -> bool {
        isa.available() && {
            simd::run_unary_in_place(isa, self, xs);
            true
        }
    }

    /// [`Unary::map_f32`] on the loops of `isa`, as [`Unary::map_with`].
    pub fn map_f32_with(self, isa: Isa, xs: &mut [f32]) -> bool {
        isa.available() && {
            simd::run_unary_f32(isa, self, None, xs);
            true
        }
    }
}

/// A function of two arguments.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Binary {
    /// `x^y`, with C's `pow` special cases.
    Pow,
    /// `arctan(y/x)` in the quadrant of `(x, y)`, as C's `atan2(y, x)`
    /// (the first argument is `y`).
    Arctan2,
    /// `sqrt(x^2 + y^2)` without overflow or underflow on the way.
    Hypot,
}

impl Binary {
    /// Every function.
    pub const ALL: [Binary; 3] = [Binary::Pow, Binary::Arctan2, Binary::Hypot];

    /// The function's name.
    pub fn name(self) -> &'static str {
        match self {
            Binary::Pow => "pow",
            Binary::Arctan2 => "arctan2",
            Binary::Hypot => "hypot",
        }
    }

    /// The function of `(x, y)`, as [`Isa::active`]'s loop computes it
    /// (the same bits as [`Binary::map`]).
    pub fn eval(self, x: f64, y: f64) -> f64 {
        let mut out = [0.0];
        simd::run_binary(Isa::active(), self, &[x], &[y], &mut out);
        out[0]
    }

    /// Replaces each `xs[i]` with the function of `(xs[i], ys[i])`.
    ///
    /// # Panics
    ///
    /// If the slices' lengths differ.
    pub fn map(self, xs: &mut [f64], ys: &[f64]) {
        self.map_with(Isa::active(), xs, ys);
    }

    /// [`Binary::map`] for `float32`.
    ///
    /// # Panics
    ///
    /// If the slices' lengths differ.
    pub fn map_f32(self, xs: &mut [f32], ys: &[f32]) {
        self.map_f32_with(Isa::active(), xs, ys);
    }

    /// [`Binary::map`] on the loops of `isa`; `false` (and `xs`
    /// untouched) if this CPU does not have it.
    ///
    /// # Panics
    ///
    /// If the slices' lengths differ.
    pub fn map_with(self, isa: Isa, xs: &mut [f64], ys: &[f64]) -> bool {
        assert_eq!(
            xs.len(),
            ys.len(),
            "{}: slices of different lengths",
            self.name()
        );
        isa.available() && {
            simd::run_binary_in_place(isa, self, xs, ys);
            true
        }
    }

    /// [`Binary::map_f32`] on the loops of `isa`.
    ///
    /// # Panics
    ///
    /// If the slices' lengths differ.
    pub fn map_f32_with(self, isa: Isa, xs: &mut [f32], ys: &[f32]) -> bool {
        assert_eq!(
            xs.len(),
            ys.len(),
            "{}: slices of different lengths",
            self.name()
        );
        isa.available() && {
            simd::run_binary_f32(isa, self, None, ys, xs);
            true
        }
    }

    /// The function of each pair `(xs[i], ys[i])` into `out[i]`, as
    /// [`Unary::map_into`].
    ///
    /// # Panics
    ///
    /// If the slices' lengths differ.
    pub fn map_into<T: Float>(self, xs: &[T], ys: &[T], out: &mut [T]) {
        self.map_into_with(Isa::active(), xs, ys, out);
    }

    /// [`Binary::map_into`] on the loops of `isa`; `false` (and `out`
    /// untouched) if this CPU does not have it.
    ///
    /// # Panics
    ///
    /// If the slices' lengths differ.
    pub fn map_into_with<T: Float>(self, isa: Isa, xs: &[T], ys: &[T], out: &mut [T]) -> bool {
        assert!(
            xs.len() == ys.len() && xs.len() == out.len(),
            "{}: slices of different lengths",
            self.name()
        );
        isa.available() && {
            T::binary_into(isa, self, xs, ys, out);
            true
        }
    }
}

/// The sines and cosines of `xs` into `s` and `c`, in one pass.
///
/// # Panics
///
/// If the three lengths differ.
pub fn sincos_slices(xs: &[f64], s: &mut [f64], c: &mut [f64]) {
    sincos_slices_with(Isa::active(), xs, s, c);
}

/// [`sincos_slices`] on the loops of `isa`; `false` if this CPU does not
/// have it.
///
/// # Panics
///
/// If the three lengths differ.
pub fn sincos_slices_with(isa: Isa, xs: &[f64], s: &mut [f64], c: &mut [f64]) -> bool {
    assert!(
        xs.len() == s.len() && xs.len() == c.len(),
        "sincos: slices of different lengths"
    );
    isa.available() && {
        simd::run_sincos(isa, xs, s, c);
        true
    }
}

/// `f32` or `f64`: the element types the scalar functions take.
pub trait Float: Copy + sealed::Sealed {
    #[doc(hidden)]
    fn to_f64(self) -> f64;
    #[doc(hidden)]
    fn from_f64(x: f64) -> Self;
    #[doc(hidden)]
    fn unary_into(isa: Isa, f: Unary, xs: &[Self], out: &mut [Self]);
    #[doc(hidden)]
    fn binary_into(isa: Isa, f: Binary, xs: &[Self], ys: &[Self], out: &mut [Self]);
}

impl Float for f64 {
    fn to_f64(self) -> f64 {
        self
    }
    fn from_f64(x: f64) -> Self {
        x
    }
    fn unary_into(isa: Isa, f: Unary, xs: &[f64], out: &mut [f64]) {
        simd::run_unary(isa, f, xs, out)
    }
    fn binary_into(isa: Isa, f: Binary, xs: &[f64], ys: &[f64], out: &mut [f64]) {
        simd::run_binary(isa, f, xs, ys, out)
    }
}

impl Float for f32 {
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn from_f64(x: f64) -> Self {
        x as f32
    }
    fn unary_into(isa: Isa, f: Unary, xs: &[f32], out: &mut [f32]) {
        simd::run_unary_f32(isa, f, Some(xs), out)
    }
    fn binary_into(isa: Isa, f: Binary, xs: &[f32], ys: &[f32], out: &mut [f32]) {
        simd::run_binary_f32(isa, f, Some(xs), ys, out)
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

macro_rules! scalar_fns {
    ($($(#[$doc:meta])* $name:ident => $f:ident;)*) => {$(
        $(#[$doc])*
        ///
        /// As [`Isa::active`]'s loop computes it: the same bits as the
        /// function over an array of `T` (`float32` on its own loop).
        pub fn $name<T: Float>(x: T) -> T {
            let mut out = [x];
            T::unary_into(Isa::active(), Unary::$f, &[x], &mut out);
            out[0]
        }
    )*};
}

scalar_fns! {
    /// `e^x`.
    exp => Exp;
    /// `2^x`.
    exp2 => Exp2;
    /// `e^x - 1`.
    expm1 => Expm1;
    /// The natural logarithm.
    log => Log;
    /// The base-2 logarithm.
    log2 => Log2;
    /// The base-10 logarithm.
    log10 => Log10;
    /// `log(1 + x)`.
    log1p => Log1p;
    /// The sine.
    sin => Sin;
    /// The cosine.
    cos => Cos;
    /// The tangent.
    tan => Tan;
    /// The hyperbolic sine.
    sinh => Sinh;
    /// The hyperbolic cosine.
    cosh => Cosh;
    /// The hyperbolic tangent.
    tanh => Tanh;
    /// The inverse sine.
    arcsin => Arcsin;
    /// The inverse cosine.
    arccos => Arccos;
    /// The inverse tangent.
    arctan => Arctan;
    /// The inverse hyperbolic sine.
    arcsinh => Arcsinh;
    /// The inverse hyperbolic cosine.
    arccosh => Arccosh;
    /// The inverse hyperbolic tangent.
    arctanh => Arctanh;
    /// The cube root.
    cbrt => Cbrt;
}

/// `x^y`.
pub fn pow<T: Float>(x: T, y: T) -> T {
    let mut out = [x];
    T::binary_into(Isa::active(), Binary::Pow, &[x], &[y], &mut out);
    out[0]
}

/// `arctan(y/x)` in the quadrant of `(x, y)` (C's `atan2(y, x)`).
pub fn arctan2<T: Float>(y: T, x: T) -> T {
    let mut out = [y];
    T::binary_into(Isa::active(), Binary::Arctan2, &[y], &[x], &mut out);
    out[0]
}

/// `sqrt(x^2 + y^2)`.
pub fn hypot<T: Float>(x: T, y: T) -> T {
    let mut out = [x];
    T::binary_into(Isa::active(), Binary::Hypot, &[x], &[y], &mut out);
    out[0]
}

/// `(sin x, cos x)`.
pub fn sincos<T: Float>(x: T) -> (T, T) {
    let (mut s, mut c) = ([0.0], [0.0]);
    simd::run_sincos(Isa::active(), &[x.to_f64()], &mut s, &mut c);
    (T::from_f64(s[0]), T::from_f64(c[0]))
}
