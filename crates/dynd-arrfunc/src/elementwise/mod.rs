//! The elementwise builtins, and the core-dimension ones (generalised
//! ufuncs) that consume trailing dimensions: one [`builtins!`] entry each,
//! which is the builtin's whole definition (its handle, name, doc row,
//! kind and overloads). The scalar functions under them are in `math`.
//!
//! `add` (identity 0), `multiply` (1), `maximum`, `minimum` (no identity),
//! `logical_and` (`true`), `logical_or` and `logical_xor` (`false`) are
//! declared [associative](Callable::associative): each has a reduction,
//! `NAME.reduce`, and a scan, `NAME.accumulate` (see [`crate::fold`]).
//!
//! ```
//! use dynd::func::builtins::{LESS, MATMUL, SQRT};
//! use dynd::nd::array;
//!
//! assert_eq!(LESS.call(&[&array![1, 5, 3], &array![2]])?.to_string(), "[true, false, false]");
//! assert_eq!(SQRT.call(&[&array![4.0, 9.0]])?.to_string(), "[2, 3]");
//! let r = MATMUL.call(&[&array![[1, 2], [3, 4]], &array![[0, 1], [1, 0]]])?;
//! assert_eq!(r.to_string(), "[[2, 1], [4, 3]]");
//! # Ok::<(), dynd::Error>(())
//! ```

use dynd_array::expr::{BinaryOp, UnaryOp};
use dynd_kernels::elwise::{CoreLeaf, CoreSlice, CoreSliceMut, F64Op, IntOp, Leaf, Predicate};
use dynd_kernels::math::{Binary, Unary};
use dynd_kernels::{Complex, Element, Value, F16};
use dynd_macros::checked_signature;
use dynd_types::Scalar;

use crate::builtin::{builtins, entry, Fold, Kind, Operator};
use crate::callable::{Callable, Overload, RecordRule};
use crate::error::Error;
use math::*;

/// Overloads of `|x| body` for each listed element type.
macro_rules! each1 {
    ([$($t:ty),*], |$x:ident| $body:expr) => {
        vec![$(Overload::new(Leaf::map(|$x: $t| $body))),*]
    };
}

/// Overloads of `|x, y| body` for each listed element type (both
/// arguments of it).
macro_rules! each2 {
    ([$($t:ty),*], |$x:ident, $y:ident| $body:expr) => {
        vec![$(Overload::new(Leaf::map(|$x: $t, $y: $t| $body))),*]
    };
}

/// `$m!([every integer type], rest)`.
macro_rules! ints {
    ($m:ident, $($rest:tt)*) => {
        $m!([i8, i16, i32, i64, i128, u8, u16, u32, u64, u128], $($rest)*)
    };
}

/// `logical_*` overloads: `bool`, then every number as its truth (not
/// zero; NaN is true), each `(T, T) -> bool`.
macro_rules! logical2 {
    (|$a:ident, $b:ident| $body:expr) => {{
        let mut v = vec![Overload::new(Leaf::map(|$a: bool, $b: bool| $body))];
        logical2!(@ v, |$a, $b| $body, [i8, i16, i32, i64, i128, u8, u16, u32, u64, u128, f32, f64]);
        v.push(Overload::new(Leaf::map(|$a: F16, $b: F16| {
            let ($a, $b) = ($a.to_f64() != 0.0, $b.to_f64() != 0.0);
            $body
        })));
        v.push(Overload::new(Leaf::map(|$a: Complex<f32>, $b: Complex<f32>| {
            let ($a, $b) = ($a.re != 0.0 || $a.im != 0.0, $b.re != 0.0 || $b.im != 0.0);
            $body
        })));
        v.push(Overload::new(Leaf::map(|$a: Complex<f64>, $b: Complex<f64>| {
            let ($a, $b) = ($a.re != 0.0 || $a.im != 0.0, $b.re != 0.0 || $b.im != 0.0);
            $body
        })));
        v
    }};
    (@ $v:ident, |$a:ident, $b:ident| $body:expr, [$($t:ty),*]) => {
        $($v.push(Overload::new(Leaf::map(|$a: $t, $b: $t| {
            #[allow(clippy::float_cmp)]
            let ($a, $b) = ($a != (0 as $t), $b != (0 as $t));
            $body
        })));)*
    };
}

/// `logical_not`'s overloads for every number: true where zero.
macro_rules! logical1 {
    () => {{
        let mut v = vec![
            Overload::new(Leaf::map(|a: F16| a.to_f64() == 0.0)),
            Overload::new(Leaf::map(|a: Complex<f32>| a.re == 0.0 && a.im == 0.0)),
            Overload::new(Leaf::map(|a: Complex<f64>| a.re == 0.0 && a.im == 0.0)),
        ];
        logical1!(@ v, [i8, i16, i32, i64, i128, u8, u16, u32, u64, u128, f32, f64]);
        v
    }};
    (@ $v:ident, [$($t:ty),*]) => {
        $($v.push(Overload::new(Leaf::map(|a: $t| a == (0 as $t))));)*
    };
}

/// `$m!([both complex types], rest)`.
macro_rules! complexes {
    ($m:ident, $($rest:tt)*) => {
        $m!([Complex<f32>, Complex<f64>], $($rest)*)
    };
}

/// Overloads of `|x| body` for `float16`, `float32` and `float64`:
/// `float16` computed in `float64` and rounded once (a `bool` body is
/// returned as it is).
macro_rules! floats1 {
    (|$x:ident| $body:expr) => {
        vec![
            Overload::new(Leaf::map(|$x: F16| {
                let $x = $x.to_f64();
                $crate::elementwise::ToHalf::to_half($body)
            })),
            Overload::new(Leaf::map(|$x: f32| $body)),
            Overload::new(Leaf::map(|$x: f64| $body)),
        ]
    };
}

/// The `float16` overload of `|x| body`, computed in `float64` and
/// rounded once, as [`floats1`]'s: the float type no table or vector
/// loop covers.
macro_rules! half1 {
    (|$x:ident| $body:expr) => {
        vec![Overload::new(Leaf::map(|$x: F16| {
            let $x = $x.to_f64();
            $crate::elementwise::ToHalf::to_half($body)
        }))]
    };
}

/// [`half1`] for a function of two arguments.
macro_rules! half2 {
    (|$x:ident, $y:ident| $body:expr) => {
        vec![Overload::new(Leaf::map(|$x: F16, $y: F16| {
            let ($x, $y) = ($x.to_f64(), $y.to_f64());
            $crate::elementwise::ToHalf::to_half($body)
        }))]
    };
}

/// Overloads of `|x, y| body` for the three float types, as [`floats1`].
macro_rules! floats2 {
    (|$x:ident, $y:ident| $body:expr) => {
        vec![
            Overload::new(Leaf::map(|$x: F16, $y: F16| {
                let ($x, $y) = ($x.to_f64(), $y.to_f64());
                $crate::elementwise::ToHalf::to_half($body)
            })),
            Overload::new(Leaf::map(|$x: f32, $y: f32| $body)),
            Overload::new(Leaf::map(|$x: f64, $y: f64| $body)),
        ]
    };
}

/// A `float16` body's result: a float64 rounded once to half, anything
/// else (`bool`, integers) as it is.
pub(crate) trait ToHalf {
    type Out;
    fn to_half(self) -> Self::Out;
}
impl ToHalf for f64 {
    type Out = F16;
    #[inline(always)]
    fn to_half(self) -> F16 {
        F16::from_f64(self)
    }
}
impl ToHalf for bool {
    type Out = bool;
    #[inline(always)]
    fn to_half(self) -> bool {
        self
    }
}

/// The same callable as `of` under another name (NumPy's aliases).
fn alias(of: &'static crate::builtin::Builtin, name: &'static str) -> Result<Callable, Error> {
    Ok(of.get_or_build()?.renamed(name))
}

mod bitwise;
mod cmath;
mod floating;
mod math;
mod real;
pub(crate) mod rounding;
mod time;
mod transcendental;

pub use bitwise::*;
pub use floating::*;
pub use rounding::*;
pub use transcendental::*;

/// Overloads of a binary function for each listed type.
macro_rules! over2 {
    ($f:ident, [$($t:ty),*]) => { vec![$(Overload::new(Leaf::map($f::<$t>))),*] };
}

/// Overloads of a unary function for each listed type.
macro_rules! over1 {
    ($f:ident, [$($t:ty),*]) => { vec![$(Overload::new(Leaf::map($f::<$t>))),*] };
}

/// `$m!($f, [the number types the table's loops do not cover])`:
/// the 128-bit integers and `float16`.
macro_rules! wide {
    ($m:ident, $f:ident) => {
        $m!($f, [i128, u128, F16])
    };
}

/// `$m!($f, [every number type])`.
macro_rules! numeric {
    ($m:ident, $f:ident) => {
        $m!(
            $f,
            [i8, i16, i32, i64, i128, u8, u16, u32, u64, u128, F16, f32, f64]
        )
    };
}

/// Overloads for both complex types.
macro_rules! complex {
    (2, $f:ident) => {
        vec![
            Overload::new(Leaf::map($f::<f32>)),
            Overload::new(Leaf::map($f::<f64>)),
        ]
    };
    (1, $f:ident) => {
        vec![
            Overload::new(Leaf::map($f::<f32>)),
            Overload::new(Leaf::map($f::<f64>)),
        ]
    };
}

/// `base` with `extra` appended.
fn with(mut base: Vec<Overload>, extra: Vec<Overload>) -> Vec<Overload> {
    base.extend(extra);
    base
}

/// `sum(a[i] * b[i])`.
fn dot<T: Arith + Default>(a: CoreSlice<'_, T>, b: CoreSlice<'_, T>, mut out: CoreSliceMut<'_, T>) {
    let mut acc = T::default();
    for (x, y) in a.iter().zip(b.iter()) {
        acc = acc.add(x.mul(*y));
    }
    out.as_mut_slice()[0] = acc;
}

/// The matrix product of an `M x N` and an `N x P` core, row by row (the
/// inner loop runs along rows of `b` and of the result).
fn matmul<T: Arith + Default>(
    a: CoreSlice<'_, T>,
    b: CoreSlice<'_, T>,
    mut out: CoreSliceMut<'_, T>,
) {
    let n = a.shape()[1];
    let p = b.shape()[1];
    let out = out.as_mut_slice();
    out.fill(T::default());
    for (a_row, out_row) in a.rows().zip(out.chunks_exact_mut(p.max(1))) {
        for (x, b_row) in a_row.iter().zip(b.rows()).take(n) {
            for (o, y) in out_row.iter_mut().zip(b_row) {
                *o = o.add(x.mul(*y));
            }
        }
    }
}

/// The cross product of two 3-vectors.
fn cross<T: Arith>(a: CoreSlice<'_, T>, b: CoreSlice<'_, T>, mut out: CoreSliceMut<'_, T>) {
    let (a, b) = (a.as_slice(), b.as_slice());
    let out = out.as_mut_slice();
    out[0] = a[1].mul(b[2]).sub(a[2].mul(b[1]));
    out[1] = a[2].mul(b[0]).sub(a[0].mul(b[2]));
    out[2] = a[0].mul(b[1]).sub(a[1].mul(b[0]));
}

/// The Euclidean norm, scaled by the largest magnitude so that it neither
/// overflows nor underflows where the result itself fits.
fn norm<T: FloatMath + Arith + Default + Into<f64> + FromF64>(
    a: CoreSlice<'_, T>,
    mut out: CoreSliceMut<'_, T>,
) {
    let scale = a.iter().fold(0.0f64, |m, x| m.max((*x).into().abs()));
    let r = if scale == 0.0 || !scale.is_finite() {
        // All zero, or an infinity/NaN that the plain sum reports as such.
        // A fold from +0.0: `Iterator::sum` of no terms is -0.0, whose
        // root would make the norm of an empty vector -0.
        a.iter()
            .map(|x| (*x).into() * (*x).into())
            .fold(0.0, |s, v| s + v)
            .sqrt()
    } else {
        scale
            * a.iter()
                .map(|x| ((*x).into() / scale).powi(2))
                .fold(0.0, |s: f64, v| s + v)
                .sqrt()
    };
    out.as_mut_slice()[0] = T::from_f64(r);
}

/// Conversion back from `f64` for the float element types.
trait FromF64 {
    fn from_f64(x: f64) -> Self;
}
impl FromF64 for f32 {
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
}
impl FromF64 for f64 {
    fn from_f64(x: f64) -> f64 {
        x
    }
}

/// Core overloads of `$f` for each listed type, with the signature `$sig`
/// (where `T` stands for the element type).
macro_rules! over_core {
    ($f:ident, $sig:expr, [$($t:ty),*]) => {
        vec![$(
            Overload::core(
                CoreLeaf::map(&$sig.replace('T', &<$t as Element>::SCALAR.to_string()), $f::<$t>)
                    .unwrap_or_else(|e| unreachable!("builtin {}: {e}", stringify!($f))),
            )
        ),*]
    };
}

/// `where(m, x, y)` overloads for each listed type.
macro_rules! select {
    ($($t:ty),*) => {
        vec![$(Overload::new(Leaf::map(|m: bool, x: $t, y: $t| if m { x } else { y }))),*]
    };
}

/// The real number types in the order their overloads are listed
/// (NumPy's, as [`Scalar::ALL`] has them: integers, then floats).
fn numbers() -> impl Iterator<Item = Scalar> {
    use Scalar::*;
    Scalar::ALL
        .into_iter()
        .filter(|s| !matches!(s, Bool | Complex64 | Complex128 | String | Bytes))
}

/// The overloads of one function: `fast(t)`'s leaf for each number type
/// `t` it has one for (a loop compiled for each instruction set), and
/// `others` for the types it does not cover. Listed as the others are,
/// with the number types in [`numbers`]' order where the first number
/// type is (`bool` before them, complex after them stay so); an other
/// of a type `fast` covers is dropped.
///
/// Only the others are closures, instantiated for their own types: a
/// type the fast loops cover is never compiled twice.
fn table(fast: impl Fn(Scalar) -> Option<Leaf>, others: Vec<Overload>) -> Vec<Overload> {
    let is_number = |o: &Overload| {
        o.inputs()
            .first()
            .is_some_and(|s| numbers().any(|t| t == *s))
    };
    let split = others.iter().position(is_number).unwrap_or(others.len());
    let mut others: Vec<Option<Overload>> = others.into_iter().map(Some).collect();
    let mut out: Vec<Overload> = others[..split]
        .iter_mut()
        .filter_map(Option::take)
        .collect();
    for t in numbers() {
        let of_t = others
            .iter_mut()
            .filter_map(|o| o.take_if(|o| o.inputs().first() == Some(&t)));
        match fast(t) {
            // An other of a covered type is dropped.
            Some(leaf) => {
                of_t.for_each(drop);
                out.push(Overload::new(leaf));
            }
            None => out.extend(of_t),
        }
    }
    out.extend(others.into_iter().flatten());
    out
}

/// [`table`] of a table operation ([`dynd_kernels::op`]): its loops over
/// `float32` and `float64` (`float`, which fused evaluation also reads)
/// and over the integers of up to 64 bits (`int`), then `others`.
pub(super) fn ops(
    float: Option<F64Op>,
    int: Option<IntOp>,
    others: Vec<Overload>,
) -> Vec<Overload> {
    table(
        |s| match s {
            Scalar::Float64 => float.map(Leaf::f64_op),
            Scalar::Float32 => float.map(Leaf::f32_op),
            _ => int.and_then(|op| Leaf::int_op(op, s)),
        },
        others,
    )
}

/// [`table`] of a test: its loops over `float64`, `float32` and the
/// integers of up to 64 bits ([`Leaf::predicate`]), then `others`.
pub(super) fn tests(p: Predicate, others: Vec<Overload>) -> Vec<Overload> {
    table(|s| Leaf::predicate(p, s), others)
}

/// [`table`] of a vector math function: [`dynd_math`](dynd_kernels::math)'s
/// loops for `f` over `float32` and `float64`, on every path (within one
/// ULP of the correctly rounded result, the same bits as the scalar
/// `dynd::math` functions, and at SIMD speed where the CPU has it), then
/// `others`. (The C library's functions, which some paths once took
/// where they ran faster, are not within one ULP everywhere: Rust's
/// `acosh` overflows past 1e154, glibc's `sinhf` is 2 ULP off.
/// `dynd_math` itself calls glibc's inverse trigonometric functions
/// where those are faster and within one ULP.)
pub(super) fn vector(others: Vec<Overload>, f: Unary) -> Vec<Overload> {
    table(|s| Leaf::unary_math(f, s), others)
}

/// [`vector`] for a function of two arguments.
pub(super) fn vector2(others: Vec<Overload>, f: Binary) -> Vec<Overload> {
    table(|s| Leaf::binary_math(f, s), others)
}

/// The `(string, string) -> bool` overload of a comparison: `f` of the
/// two strings' bytes, whose order is UTF-8's byte order (code point
/// order).
fn text_compare(f: impl Fn(&[u8], &[u8]) -> bool + Send + Sync + 'static) -> Vec<Overload> {
    vec![Overload::new(Leaf::text_bytes2(f))]
}

/// `add`'s `(string, string) -> string`: the two strings joined.
fn text_concat() -> Overload {
    Overload::new(Leaf::text_map2(|a, b, out| {
        out.push_str(a);
        out.push_str(b);
    }))
}

/// `multiply`'s `(string, int64) -> string`: the string `n` times; a
/// result past the memory a string may take is an error.
fn text_repeat() -> Overload {
    Overload::new(Leaf::text_map_int(|s, n, out| {
        let n = usize::try_from(n).unwrap_or(0);
        let len = s.len().checked_mul(n).ok_or_else(|| {
            dynd_kernels::KernelError::message(format!(
                "repeating a string of {} bytes {n} times does not fit in memory",
                s.len()
            ))
        })?;
        out.try_reserve(len)?;
        for _ in 0..n {
            out.push_str(s);
        }
        Ok(())
    }))
}

/// An associative builtin without an identity, taking no keywords.
fn entry_assoc(name: &'static str, overloads: Vec<Overload>) -> Result<Callable, Error> {
    entry(name, overloads, Fold::Associative(None), vec![])
}

/// A builtin that is not associative and takes no keywords.
fn plain(name: &'static str, overloads: Vec<Overload>) -> Result<Callable, Error> {
    entry(name, overloads, Fold::No, vec![])
}

/// An associative builtin with an integer identity.
fn int(n: i128) -> Fold {
    Fold::Associative(Some(Value::Int(n)))
}

/// An associative builtin with a boolean identity.
fn boolean(b: bool) -> Fold {
    Fold::Associative(Some(Value::Bool(b)))
}

/// Every integer type.
macro_rules! integers {
    ($m:ident, $f:ident) => {
        $m!($f, [i8, i16, i32, i64, i128, u8, u16, u32, u64, u128])
    };
}

builtins! {
    $ TABLE, __elementwise_builtins;

    /// `(T, T) -> T` for every integer (`int8`…`int128`, `uint8`…`uint128`),
    /// float (`float16`, `float32`, `float64`) and complex `T`: integers wrap
    /// on overflow (two's complement), as NumPy's do; `float16` is computed in
    /// `float64` and rounded once; `(string, string) -> string` joins the
    /// two strings. Associative, identity 0.
    ADD add "add" 2 Some(Operator::Binary(BinaryOp::Add)) => {
        let overloads = ops(Some(F64Op::Add), Some(IntOp::Add), wide!(over2, add));
        let overloads = with(with(overloads, complex!(2, c_add)), vec![text_concat()]);
        entry("add", with(overloads, time::add()), int(0), vec![])
    };

    /// `(T, T) -> T` for every integer, float and complex `T`; integers wrap.
    SUBTRACT subtract "subtract" 2 Some(Operator::Binary(BinaryOp::Subtract)) => {
        let overloads = ops(Some(F64Op::Sub), Some(IntOp::Sub), wide!(over2, sub));
        plain("subtract", with(with(overloads, complex!(2, c_sub)), time::subtract()))
    };

    /// `(T, T) -> T` for every integer, float and complex `T`; integers wrap;
    /// `(string, int64) -> string` repeats the string (a count of 0 or less
    /// gives `""`, as NumPy's `strings.multiply`). Associative, identity 1.
    MULTIPLY multiply "multiply" 2 Some(Operator::Binary(BinaryOp::Multiply)) => {
        let overloads = ops(Some(F64Op::Mul), Some(IntOp::Mul), wide!(over2, mul));
        let overloads = with(with(overloads, complex!(2, c_mul)), vec![text_repeat()]);
        entry("multiply", with(overloads, time::multiply()), int(1), vec![])
    };

    /// `(T, T) -> T` for floats and complex; `(I, I) -> float64` for
    /// integers: true division; division by zero gives ±inf or NaN (IEEE);
    /// complex by Smith's method.
    DIVIDE divide "divide" 2 Some(Operator::Binary(BinaryOp::Divide)) => {
        let mut overloads = ops(Some(F64Op::Div), None, over2!(div, [F16]));
        overloads.extend(integers!(over2, int_div));
        overloads.extend(complex!(2, c_div));
        overloads.extend(time::divide());
        plain("divide", overloads)
    };

    /// `(T, T) -> T`: integers: floor division, division by zero gives 0 and
    /// `MIN // -1` wraps to `MIN` (NumPy's results, without its warning);
    /// floats: `floor(a / b)`.
    FLOOR_DIVIDE floor_divide "floor_divide" 2 None => {
        plain("floor_divide", numeric!(over2, floor_div))
    };

    /// `(T, T) -> T`: the remainder of `floor_divide`, with the divisor's
    /// sign (NumPy's `remainder`); integers: `x % 0 == 0` and
    /// `MIN % -1 == 0`.
    REMAINDER remainder "remainder" 2 Some(Operator::Binary(BinaryOp::Remainder)) => {
        plain("remainder", numeric!(over2, remainder))
    };

    /// `(T, T) -> T`: integers wrap on overflow, for any exponent (square
    /// and multiply); a negative integer exponent gives the truncated result
    /// (`2 ** -1 == 0`, `(-1) ** -3 == -1`, `0 ** -1 == 0`) instead of
    /// NumPy's error; floats: C's `pow` (vectorised, within one ULP);
    /// complex: `exp(b log a)`.
    POWER power "power" 2 Some(Operator::Binary(BinaryOp::Power)) => {
        let floats = vector2(over2!(pow, [F16]), Binary::Pow);
        let overloads = with(with(integers!(over2, int_pow), floats), complex!(2, c_pow));
        plain("power", overloads)
    };

    /// `(T, T) -> T` for every numeric `T`: floats: NaN propagates;
    /// complex: NumPy's order (real parts, then imaginary). Associative,
    /// no identity.
    MAXIMUM maximum "maximum" 2 None => {
        let overloads = ops(Some(F64Op::Maximum), Some(IntOp::Maximum), wide!(over2, maximum));
        let overloads = with(with(overloads, complex!(2, c_maximum)), time::same(IntOp::Maximum));
        entry("maximum", overloads, Fold::Associative(None), vec![])
    };

    /// `(T, T) -> T` for every numeric `T`: floats: NaN propagates;
    /// complex: NumPy's order. Associative, no identity.
    MINIMUM minimum "minimum" 2 None => {
        let overloads = ops(Some(F64Op::Minimum), Some(IntOp::Minimum), wide!(over2, minimum));
        let overloads = with(with(overloads, complex!(2, c_minimum)), time::same(IntOp::Minimum));
        entry("minimum", overloads, Fold::Associative(None), vec![])
    };

    /// `(T, T) -> T` for floats: the angle of the point `(b, a)`.
    ARCTAN2 arctan2 "arctan2" 2 None => {
        plain("arctan2", vector2(over2!(atan2, [F16]), Binary::Arctan2))
    };

    /// `(T, T) -> bool` for every numeric `T`, complex included, and for
    /// `string` (byte for byte).
    EQUAL equal "equal" 2 Some(Operator::Binary(BinaryOp::Equal)) => {
        let overloads = with(tests(Predicate::Equal, wide!(over2, eq)), complex!(2, c_eq));
        let overloads = with(overloads, time::compare(Predicate::Equal));
        Ok(plain("equal", with(overloads, text_compare(|a, b| a == b)))?.comparing_records(RecordRule::Every))
    };

    /// `(T, T) -> bool` for every numeric `T`, complex included, and for
    /// `string` (byte for byte).
    NOT_EQUAL not_equal "not_equal" 2 Some(Operator::Binary(BinaryOp::NotEqual)) => {
        let overloads = with(tests(Predicate::NotEqual, wide!(over2, ne)), complex!(2, c_ne));
        let overloads = with(overloads, time::compare(Predicate::NotEqual));
        Ok(plain("not_equal", with(overloads, text_compare(|a, b| a != b)))?.comparing_records(RecordRule::Some))
    };

    /// `(T, T) -> bool` for every numeric `T`; complex numbers in NumPy's
    /// order (by real parts, then imaginary; a NaN part compares false);
    /// strings in the byte order of UTF-8, which is code point order (as
    /// `sort` orders them).
    LESS less "less" 2 Some(Operator::Binary(BinaryOp::Less)) => {
        let overloads = with(tests(Predicate::Less, wide!(over2, lt)), complex!(2, c_lt));
        let overloads = with(overloads, time::compare(Predicate::Less));
        plain("less", with(overloads, text_compare(|a, b| a < b)))
    };

    /// `(T, T) -> bool` for every numeric `T`, complex and strings as
    /// `less`.
    LESS_EQUAL less_equal "less_equal" 2 Some(Operator::Binary(BinaryOp::LessEqual)) => {
        let overloads = with(tests(Predicate::LessEqual, wide!(over2, le)), complex!(2, c_le));
        let overloads = with(overloads, time::compare(Predicate::LessEqual));
        plain("less_equal", with(overloads, text_compare(|a, b| a <= b)))
    };

    /// `(T, T) -> bool` for every numeric `T`, complex and strings as
    /// `less`.
    GREATER greater "greater" 2 Some(Operator::Binary(BinaryOp::Greater)) => {
        let overloads = with(tests(Predicate::Greater, wide!(over2, gt)), complex!(2, c_gt));
        let overloads = with(overloads, time::compare(Predicate::Greater));
        plain("greater", with(overloads, text_compare(|a, b| a > b)))
    };

    /// `(T, T) -> bool` for every numeric `T`, complex and strings as
    /// `less`.
    GREATER_EQUAL greater_equal "greater_equal" 2 Some(Operator::Binary(BinaryOp::GreaterEqual)) => {
        let overloads = with(tests(Predicate::GreaterEqual, wide!(over2, ge)), complex!(2, c_ge));
        let overloads = with(overloads, time::compare(Predicate::GreaterEqual));
        plain("greater_equal", with(overloads, text_compare(|a, b| a >= b)))
    };

    /// `(T) -> T` for every numeric `T`; integers wrap (`-int8(-128) == -128`).
    NEGATIVE negative "negative" 1 Some(Operator::Unary(UnaryOp::Negative)) => {
        let overloads = ops(Some(F64Op::Neg), Some(IntOp::Neg), wide!(over1, negative));
        plain("negative", with(with(overloads, complex!(1, c_neg)), time::durations(IntOp::Neg)))
    };

    /// `(T) -> T` for every numeric `T`; `abs` of complex is real; integers
    /// wrap (`abs(int8(-128)) == -128`).
    ABS abs "abs" 1 None => {
        let overloads = ops(Some(F64Op::Abs), Some(IntOp::Abs), wide!(over1, abs));
        plain("abs", with(with(overloads, complex!(1, c_abs)), time::durations(IntOp::Abs)))
    };

    /// `(T) -> T` for floats and complex: the principal square root;
    /// integers promote to the cheapest float that holds them (`int8` to
    /// `float16`, as in NumPy).
    SQRT sqrt "sqrt" 1 None => {
        plain("sqrt", with(ops(Some(F64Op::Sqrt), None, over1!(sqrt, [F16])), complex!(1, c_sqrt)))
    };

    /// `(T) -> T` for floats and complex (complex after C99 Annex G).
    EXP exp "exp" 1 None => {
        plain("exp", with(vector(over1!(exp, [F16]), Unary::Exp), complex!(1, c_exp)))
    };

    /// `(T) -> T` for floats and complex: the principal branch.
    LOG log "log" 1 None => {
        plain("log", with(vector(over1!(log, [F16]), Unary::Log), complex!(1, c_log)))
    };

    /// `(T) -> T` for floats and complex.
    SIN sin "sin" 1 None => {
        plain("sin", with(vector(over1!(sin, [F16]), Unary::Sin), complex!(1, c_sin)))
    };

    /// `(T) -> T` for floats and complex.
    COS cos "cos" 1 None => {
        plain("cos", with(vector(over1!(cos, [F16]), Unary::Cos), complex!(1, c_cos)))
    };

    /// `(T) -> T` for floats and complex.
    TAN tan "tan" 1 None => {
        plain("tan", with(vector(over1!(tan, [F16]), Unary::Tan), complex!(1, c_tan)))
    };

    /// `(bool, bool) -> bool`, and `(T, T) -> bool` for numbers (each
    /// true where not zero; NaN is true), as NumPy. Associative, identity
    /// `true`.
    LOGICAL_AND logical_and "logical_and" 2 None => {
        entry("logical_and", logical2!(|a, b| a && b), boolean(true), vec![])
    };

    /// `(bool, bool) -> bool`, and `(T, T) -> bool` for numbers, as
    /// `logical_and`. Associative, identity `false`.
    LOGICAL_OR logical_or "logical_or" 2 None => {
        entry("logical_or", logical2!(|a, b| a || b), boolean(false), vec![])
    };

    /// `(bool, bool) -> bool`, and `(T, T) -> bool` for numbers, as
    /// `logical_and`. Associative, identity `false`.
    LOGICAL_XOR logical_xor "logical_xor" 2 None => {
        entry("logical_xor", logical2!(|a, b| a != b), boolean(false), vec![])
    };

    /// `(bool) -> bool`, and `(T) -> bool` for numbers (true where zero).
    LOGICAL_NOT logical_not "logical_not" 1 None => {
        let mut overloads = vec![Overload::new(Leaf::map(|a: bool| !a))];
        overloads.extend(logical1!());
        plain("logical_not", overloads)
    };

    /// `(bool, T, T) -> T` for bool, every numeric `T` and `string`:
    /// NumPy's `where(condition, x, y)`: `x` where the condition holds,
    /// else `y`, all three broadcast.
    WHERE where_ "where" 3 None => {
        let overloads = select!(bool, i8, i16, i32, i64, i128, u8, u16, u32, u64, u128, F16, f32, f64, Complex<f32>, Complex<f64>);
        plain("where", with(overloads, vec![Overload::new(Leaf::text_where())]))
    };

    /// `(N * T, N * T) -> T` for int32, int64, uint64, float32, float64: the
    /// inner product of the last dimensions; leading ones broadcast.
    DOT dot "dot" f2 None => {
        plain("dot", over_core!(dot, checked_signature!("(N * T, N * T) -> T"), [i32, i64, u64, f32, f64]))
    };

    /// `(M * N * T, N * P * T) -> M * P * T` for int32, int64, uint64,
    /// float32, float64: stacks of matrices broadcast over their leading
    /// dimensions.
    MATMUL matmul "matmul" f2 None => {
        plain(
            "matmul",
            over_core!(matmul, checked_signature!("(M * N * T, N * P * T) -> M * P * T"), [i32, i64, u64, f32, f64]),
        )
    };

    /// `(3 * T, 3 * T) -> 3 * T` for int32, int64, float32, float64: a
    /// fixed-size core.
    CROSS cross "cross" f2 None => {
        plain("cross", over_core!(cross, checked_signature!("(3 * T, 3 * T) -> 3 * T"), [i32, i64, f32, f64]))
    };

    /// `(N * T) -> T` for floats: Euclidean, scaled by the largest magnitude
    /// (no overflow for huge components).
    NORM norm "norm" f1 None => {
        plain("norm", over_core!(norm, checked_signature!("(N * T) -> T"), [f32, f64]))
    };
}

/// The builtin an `Expr` operator calls.
pub fn for_operator(op: Operator) -> &'static crate::builtin::Builtin {
    // The operators' builtins are in these two tables.
    match TABLE
        .iter()
        .chain(BITWISE)
        .find(|b| b.kind() == Kind::Elementwise(arity(op), Some(op)))
    {
        Some(b) => b,
        None => unreachable!("every operator has a builtin (a unit test checks)"),
    }
}

fn arity(op: Operator) -> usize {
    match op {
        Operator::Binary(_) => 2,
        Operator::Unary(_) => 1,
    }
}
