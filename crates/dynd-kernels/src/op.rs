//! The operation table: each plain elementwise operation defined once.
//!
//! One table (the `op_table!` macro below) lists every operation the fast
//! paths run — its name, arity, flags, and its body for each family of
//! element types (IEEE floats, wrapping integers) — and everything else is
//! generated from it:
//!
//! - a zero-sized type per operation ([`Add`], [`Maximum`], [`Floor`], …)
//!   with an `#[inline(always)]` body per family ([`FloatApply`],
//!   [`IntApply`]), generic over the element type;
//! - the opcodes the leaves and programs carry ([`F64Op`] for the float
//!   family, [`IntOp`] for the integer one), with [`F64Op::ALL`],
//!   [`F64Op::arity`], [`F64Op::apply`] and the rest;
//! - dispatchers (`with_f64_op!`, `with_int_op!`) that turn an opcode into
//!   its type, so that a loop is written once, generic over the
//!   operation, and compiled per operation inside the dispatcher.
//!
//! Tests of one or two numbers giving `bool` ([`Predicate`]) have a table
//! of their own, built the same way.
//!
//! The float and integer leaves, the fused programs, the ragged per-row
//! loops and the reductions' arithmetic all read these bodies: an
//! operation added to the table runs on every path, and no match over
//! opcodes can miss it.
//!
//! ```
//! use dynd::func::raw::{F64Op, IntOp};
//!
//! assert!(F64Op::Maximum.apply(1.0, f64::NAN).is_nan());
//! assert_eq!(IntOp::Add.apply(i8::MAX, 1), i8::MIN);
//! assert!(F64Op::ALL.iter().all(|op| op.arity() == 1 || op.arity() == 2));
//! ```

use std::ops::{Add as OpsAdd, BitAnd as OpsAnd, BitOr as OpsOr, BitXor as OpsXor};
use std::ops::{Div as OpsDiv, Mul as OpsMul, Neg as OpsNeg, Not as OpsNot, Sub as OpsSub};

// ---------------------------------------------------------------------------
// The element families.

/// The IEEE float types the float family runs on (`f32`, `f64`): the
/// primitive operations its bodies are written with.
pub trait Float:
    Num
    + OpsAdd<Output = Self>
    + OpsSub<Output = Self>
    + OpsMul<Output = Self>
    + OpsDiv<Output = Self>
    + OpsNeg<Output = Self>
{
    /// The quiet NaN the operations return for a NaN they make.
    const NAN: Self;
    /// `|x|`.
    fn abs(self) -> Self;
    /// `√x`.
    fn sqrt(self) -> Self;
    /// The largest integer not above `x`.
    fn floor(self) -> Self;
    /// The smallest integer not below `x`.
    fn ceil(self) -> Self;
    /// `x` rounded toward zero.
    fn trunc(self) -> Self;
    /// `x` rounded to the nearest integer, ties to even.
    fn rint(self) -> Self;
    /// IEEE `maxNum`: the larger, the other one where one is NaN.
    fn max_num(self, y: Self) -> Self;
    /// IEEE `minNum`: the smaller, the other one where one is NaN.
    fn min_num(self, y: Self) -> Self;
}

macro_rules! float {
    ($($t:ty),*) => {$(
        impl Float for $t {
            const NAN: $t = <$t>::NAN;
            #[inline(always)]
            fn abs(self) -> $t { <$t>::abs(self) }
            #[inline(always)]
            fn sqrt(self) -> $t { <$t>::sqrt(self) }
            #[inline(always)]
            fn floor(self) -> $t { <$t>::floor(self) }
            #[inline(always)]
            fn ceil(self) -> $t { <$t>::ceil(self) }
            #[inline(always)]
            fn trunc(self) -> $t { <$t>::trunc(self) }
            #[inline(always)]
            fn rint(self) -> $t { <$t>::round_ties_even(self) }
            #[inline(always)]
            fn max_num(self, y: $t) -> $t { <$t>::max(self, y) }
            #[inline(always)]
            fn min_num(self, y: $t) -> $t { <$t>::min(self, y) }
        }
    )*};
}
float!(f32, f64);

/// The integer types the integer family runs on (8 to 128 bits, signed
/// and unsigned): the wrapping primitives its bodies are written with.
pub trait Int:
    Num
    + Ord
    + OpsAnd<Output = Self>
    + OpsOr<Output = Self>
    + OpsXor<Output = Self>
    + OpsNot<Output = Self>
{
    /// `x + y`, wrapping.
    fn wrapping_add(self, y: Self) -> Self;
    /// `x - y`, wrapping.
    fn wrapping_sub(self, y: Self) -> Self;
    /// `x * y`, wrapping.
    fn wrapping_mul(self, y: Self) -> Self;
    /// `-x`, wrapping (`0 - x` for unsigned types).
    fn wrapping_neg(self) -> Self;
    /// `|x|`, wrapping (`x` for unsigned types).
    fn wrapping_abs(self) -> Self;
    /// `x << by`; 0 for a negative `by` or one of the width or more.
    fn shift_left(self, by: Self) -> Self;
    /// `x >> by` (arithmetic for signed types); the sign fill (0 or -1)
    /// for a negative `by` or one of the width or more.
    fn shift_right(self, by: Self) -> Self;
}

macro_rules! int {
    ($($t:ty => $abs:expr),*) => {$(
        #[allow(unused_comparisons)]
        impl Int for $t {
            #[inline(always)]
            fn wrapping_add(self, y: $t) -> $t { <$t>::wrapping_add(self, y) }
            #[inline(always)]
            fn wrapping_sub(self, y: $t) -> $t { <$t>::wrapping_sub(self, y) }
            #[inline(always)]
            fn wrapping_mul(self, y: $t) -> $t { <$t>::wrapping_mul(self, y) }
            #[inline(always)]
            fn wrapping_neg(self) -> $t { <$t>::wrapping_neg(self) }
            #[inline(always)]
            fn wrapping_abs(self) -> $t {
                let abs: fn($t) -> $t = $abs;
                abs(self)
            }
            #[inline(always)]
            fn shift_left(self, by: $t) -> $t {
                if by >= 0 && by < <$t>::BITS as $t { self << by as u32 } else { 0 }
            }
            #[inline(always)]
            fn shift_right(self, by: $t) -> $t {
                if by >= 0 && by < <$t>::BITS as $t {
                    self >> by as u32
                } else if self < 0 {
                    !0
                } else {
                    0
                }
            }
        }
    )*};
}
int!(
    i8 => i8::wrapping_abs, i16 => i16::wrapping_abs, i32 => i32::wrapping_abs,
    i64 => i64::wrapping_abs, i128 => i128::wrapping_abs,
    u8 => |x| x, u16 => |x| x, u32 => |x| x, u64 => |x| x, u128 => |x| x
);

/// The number types tests run on: floats and integers, ordered by `<`
/// (IEEE for floats: NaN is unordered).
pub trait Num: Copy + PartialOrd + Send + Sync + 'static {
    /// Whether `x` is NaN (never for integers).
    fn is_nan(self) -> bool;
    /// Whether `x` is infinite (never for integers).
    fn is_infinite(self) -> bool;
    /// Whether `x` is neither infinite nor NaN (always for integers).
    fn is_finite(self) -> bool;
}

macro_rules! num {
    (float: $($f:ty),*; int: $($i:ty),*) => {
        $(impl Num for $f {
            #[inline(always)]
            fn is_nan(self) -> bool { <$f>::is_nan(self) }
            #[inline(always)]
            fn is_infinite(self) -> bool { <$f>::is_infinite(self) }
            #[inline(always)]
            fn is_finite(self) -> bool { <$f>::is_finite(self) }
        })*
        $(impl Num for $i {
            #[inline(always)]
            fn is_nan(self) -> bool { false }
            #[inline(always)]
            fn is_infinite(self) -> bool { false }
            #[inline(always)]
            fn is_finite(self) -> bool { true }
        })*
    };
}
num!(float: f32, f64; int: i8, i16, i32, i64, i128, u8, u16, u32, u64, u128);

// ---------------------------------------------------------------------------
// What the table generates.

/// An operation of the table, as a type: what it is, apart from its bodies.
pub trait Op: Copy + Default + Send + Sync + 'static {
    /// The operation's name in the table (`"Add"`).
    const NAME: &'static str;
    /// How many arguments it takes: 1 or 2.
    const ARITY: usize;
    /// Whether the integer result's bits do not depend on reading the
    /// arguments as signed or unsigned (so `int64` and `uint64` share a
    /// loop).
    const SIGN_BLIND: bool;
    /// Whether it is associative and commutative (a reduction may fold
    /// it in any order: floats up to rounding).
    const MONOID: bool;
}

/// An operation's body over IEEE floats: the same IEEE operations on
/// every path, so the same bits.
pub trait FloatApply: Op {
    /// The operation on `x` (and `y`; a unary operation ignores it).
    fn apply<T: Float>(x: T, y: T) -> T;
}

/// An operation's body over integers: two's complement, wrapping.
pub trait IntApply: Op {
    /// The operation on `x` (and `y`; a unary operation ignores it).
    fn apply<T: Int>(x: T, y: T) -> T;
}

/// A test of one or two numbers, as a type.
pub trait Test: Copy + Default + Send + Sync + 'static {
    /// How many arguments it takes: 1 or 2.
    const ARITY: usize;
    /// The test of `x` (and `y`; a one-argument test ignores it).
    fn test<T: Num>(x: T, y: T) -> bool;
}

/// The first argument; the rest only drive a repetition.
macro_rules! first {
    ($a:expr, $($ignored:tt)*) => {
        $a
    };
}

/// Whether `$want` is among the flags.
macro_rules! has_flag {
    ($want:ident;) => {
        false
    };
    (blind; blind $($rest:ident)*) => {
        true
    };
    (monoid; monoid $($rest:ident)*) => {
        true
    };
    ($want:ident; $other:ident $($rest:ident)*) => {
        has_flag!($want; $($rest)*)
    };
}

/// The table. Hands every entry to the callback macro `$cb`, after the
/// callback's own arguments in parentheses. An entry: the operation's
/// name, its one-line doc, its flags (`blind`: sign-blind; `monoid`:
/// associative and commutative) and its body for each family it has.
macro_rules! op_table {
    ($cb:ident!($($args:tt)*)) => {
        $crate::op::$cb! { ($($args)*)
        binary {
            Add "`x + y` (wrapping for integers)." [blind monoid] {
                float: |x, y| x + y;
                int: |x, y| x.wrapping_add(y);
            }
            Sub "`x - y` (wrapping for integers)." [blind] {
                float: |x, y| x - y;
                int: |x, y| x.wrapping_sub(y);
            }
            Mul "`x * y` (wrapping for integers)." [blind monoid] {
                float: |x, y| x * y;
                int: |x, y| x.wrapping_mul(y);
            }
            Div "`x / y` (IEEE: the float family only)." [] {
                float: |x, y| x / y;
            }
            // `|`, not `||`: a select, so the loops vectorise.
            // A compare and a select, not `maxNum` (whose lowering picks a
            // zero's sign differently in scalar and vector code, in more
            // instructions): `x` on a tie, as NumPy's loops.
            Maximum "The larger of `x` and `y`; NaN if either is NaN; `x` where they are equal (`0.0` and `-0.0`), as NumPy's `maximum`." [monoid] {
                float: |x, y| if x.is_nan() | y.is_nan() { T::NAN } else if y > x { y } else { x };
                int: |x, y| x.max(y);
            }
            Minimum "The smaller of `x` and `y`; NaN if either is NaN; `x` where they are equal, as NumPy's `minimum`." [monoid] {
                float: |x, y| if x.is_nan() | y.is_nan() { T::NAN } else if y < x { y } else { x };
                int: |x, y| x.min(y);
            }
            // NumPy's own select, not `maxNum` (see `Maximum`).
            Fmax "The larger of `x` and `y`; the other where one is NaN; `x` where they are equal (`0.0` and `-0.0`), as NumPy's `fmax`." [monoid] {
                float: |x, y| if y.is_nan() | (x >= y) { x } else { y };
                int: |x, y| x.max(y);
            }
            Fmin "The smaller of `x` and `y`; the other where one is NaN; `x` where they are equal, as NumPy's `fmin`." [monoid] {
                float: |x, y| if y.is_nan() | (x <= y) { x } else { y };
                int: |x, y| x.min(y);
            }
            BitAnd "`x & y`." [blind monoid] {
                int: |x, y| x & y;
            }
            BitOr "`x | y`." [blind monoid] {
                int: |x, y| x | y;
            }
            BitXor "`x ^ y`." [blind monoid] {
                int: |x, y| x ^ y;
            }
            ShiftLeft "`x << y`; 0 for a negative `y` or one of the width or more (NumPy's `left_shift`)." [] {
                int: |x, y| x.shift_left(y);
            }
            ShiftRight "`x >> y`, arithmetic for signed types; the sign fill for a negative `y` or one of the width or more (NumPy's `right_shift`)." [] {
                int: |x, y| x.shift_right(y);
            }
        }
        unary {
            Neg "`-x` (wrapping for integers: `-MIN == MIN`)." [blind] {
                float: |x| -x;
                int: |x| x.wrapping_neg();
            }
            Abs "`|x|` (wrapping for integers: `|MIN| == MIN`)." [] {
                float: |x| x.abs();
                int: |x| x.wrapping_abs();
            }
            Sqrt "`√x`." [] {
                float: |x| x.sqrt();
            }
            Floor "The largest integer not above `x`." [] {
                float: |x| x.floor();
            }
            Ceil "The smallest integer not below `x`." [] {
                float: |x| x.ceil();
            }
            Trunc "`x` rounded toward zero." [] {
                float: |x| x.trunc();
            }
            Rint "`x` rounded to the nearest integer, ties to even." [] {
                float: |x| x.rint();
            }
            Invert "`!x`: every bit flipped." [blind] {
                int: |x| !x;
            }
        }
        }
    };
}

/// Generates the operation types, their bodies and the opcodes.
macro_rules! define_ops {
    (()
     binary { $($bname:ident $bdoc:literal [$($bflag:ident)*] {
        $(float: |$bfx:ident, $bfy:ident| $bf:expr;)?
        $(int: |$bix:ident, $biy:ident| $bi:expr;)? })* }
     unary { $($uname:ident $udoc:literal [$($uflag:ident)*] {
        $(float: |$ufx:ident| $uf:expr;)?
        $(int: |$uix:ident| $ui:expr;)? })* }
    ) => {
        $(
            #[doc = $bdoc]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct $bname;
            impl Op for $bname {
                const NAME: &'static str = stringify!($bname);
                const ARITY: usize = 2;
                const SIGN_BLIND: bool = has_flag!(blind; $($bflag)*);
                const MONOID: bool = has_flag!(monoid; $($bflag)*);
            }
            $(impl FloatApply for $bname {
                #[inline(always)]
                fn apply<T: Float>($bfx: T, $bfy: T) -> T {
                    $bf
                }
            })?
            $(impl IntApply for $bname {
                #[inline(always)]
                fn apply<T: Int>($bix: T, $biy: T) -> T {
                    $bi
                }
            })?
        )*
        $(
            #[doc = $udoc]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct $uname;
            impl Op for $uname {
                const NAME: &'static str = stringify!($uname);
                const ARITY: usize = 1;
                const SIGN_BLIND: bool = has_flag!(blind; $($uflag)*);
                const MONOID: bool = false;
            }
            $(impl FloatApply for $uname {
                #[inline(always)]
                fn apply<T: Float>($ufx: T, _: T) -> T {
                    $uf
                }
            })?
            $(impl IntApply for $uname {
                #[inline(always)]
                fn apply<T: Int>($uix: T, _: T) -> T {
                    $ui
                }
            })?
        )*

        /// A plain IEEE float operation: the opcode of a table operation
        /// with a float body. A leaf made from one (`Leaf::f64_op`)
        /// computes exactly it, so fused evaluation may run a whole
        /// expression of them in one loop over small chunks, with the
        /// same bits.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum F64Op {
            $($(
                #[doc = $bdoc]
                #[doc = concat!("\n\nFloats: `", stringify!($bf), "`.")]
                $bname,
            )?)*
            $($(
                #[doc = $udoc]
                #[doc = concat!("\n\nFloats: `", stringify!($uf), "`.")]
                $uname,
            )?)*
        }

        /// A two's-complement integer operation: the opcode of a table
        /// operation with an integer body. Arithmetic wraps on overflow
        /// (NumPy's integer ufuncs, without their warnings).
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum IntOp {
            $($(
                #[doc = $bdoc]
                #[doc = concat!("\n\nIntegers: `", stringify!($bi), "`.")]
                $bname,
            )?)*
            $($(
                #[doc = $udoc]
                #[doc = concat!("\n\nIntegers: `", stringify!($ui), "`.")]
                $uname,
            )?)*
        }

        impl F64Op {
            /// Every operation, binary ones first.
            pub const ALL: &'static [F64Op] = &[
                $($(first!(F64Op::$bname, $bf),)?)*
                $($(first!(F64Op::$uname, $uf),)?)*
            ];
        }

        impl IntOp {
            /// Every operation, binary ones first.
            pub const ALL: &'static [IntOp] = &[
                $($(first!(IntOp::$bname, $bi),)?)*
                $($(first!(IntOp::$uname, $ui),)?)*
            ];
        }
    };
}

op_table!(define_ops!());

/// The match behind `with_f64_op!` and `with_int_op!`: one arm per
/// operation of the family (`float` or `int`); with `binary`, the unary
/// ones take the `else` arm.
macro_rules! dispatch {
    (($family:ident, $which:ident, $op:expr, $O:ident, $body:expr, $else:expr)
     binary { $($bname:ident $bdoc:literal [$($bflag:ident)*] {
        $(float: |$bfx:ident, $bfy:ident| $bf:expr;)?
        $(int: |$bix:ident, $biy:ident| $bi:expr;)? })* }
     unary { $($uname:ident $udoc:literal [$($uflag:ident)*] {
        $(float: |$ufx:ident| $uf:expr;)?
        $(int: |$uix:ident| $ui:expr;)? })* }
    ) => {
        $crate::op::dispatch!(@arms $family $which ($op) $O ($body) ($else)
            [$($(first!($bname, $bf))?)*] [$($(first!($uname, $uf))?)*]
            [$($(first!($bname, $bi))?)*] [$($(first!($uname, $ui))?)*])
    };
    (@arms float all ($op:expr) $O:ident ($body:expr) ($else:expr)
        [$(first!($b:ident, $($x:tt)*))*] [$(first!($u:ident, $($y:tt)*))*] $ib:tt $iu:tt) => {
        match $op {
            $($crate::op::F64Op::$b => { type $O = $crate::op::$b; $body })*
            $($crate::op::F64Op::$u => { type $O = $crate::op::$u; $body })*
        }
    };
    (@arms float binary ($op:expr) $O:ident ($body:expr) ($else:expr)
        [$(first!($b:ident, $($x:tt)*))*] [$(first!($u:ident, $($y:tt)*))*] $ib:tt $iu:tt) => {
        match $op {
            $($crate::op::F64Op::$b => { type $O = $crate::op::$b; $body })*
            $($crate::op::F64Op::$u)|* => $else,
        }
    };
    (@arms int all ($op:expr) $O:ident ($body:expr) ($else:expr) $fb:tt $fu:tt
        [$(first!($b:ident, $($x:tt)*))*] [$(first!($u:ident, $($y:tt)*))*]) => {
        match $op {
            $($crate::op::IntOp::$b => { type $O = $crate::op::$b; $body })*
            $($crate::op::IntOp::$u => { type $O = $crate::op::$u; $body })*
        }
    };
}

/// `with_f64_op!(op, O => body)`: `body` with `O` the type of the
/// [`F64Op`] `op` (one arm per operation, each compiled for its type).
/// `with_f64_op!(binary op, O => body, else unary)` takes `unary` for the
/// one-argument operations.
macro_rules! with_f64_op {
    (binary $op:expr, $O:ident => $body:expr, else $else:expr) => {
        $crate::op::op_table!(dispatch!(float, binary, $op, $O, $body, $else))
    };
    ($op:expr, $O:ident => $body:expr) => {
        $crate::op::op_table!(dispatch!(float, all, $op, $O, $body, ()))
    };
}

/// `with_int_op!(op, O => body)`: `body` with `O` the type of the
/// [`IntOp`] `op`.
macro_rules! with_int_op {
    ($op:expr, $O:ident => $body:expr) => {
        $crate::op::op_table!(dispatch!(int, all, $op, $O, $body, ()))
    };
}

pub(crate) use {define_ops, dispatch, op_table, with_f64_op, with_int_op};

impl F64Op {
    /// How many arguments it takes: 1 or 2.
    pub fn arity(self) -> usize {
        with_f64_op!(self, O => O::ARITY)
    }

    /// Whether it is associative and commutative.
    pub fn is_monoid(self) -> bool {
        with_f64_op!(self, O => O::MONOID)
    }

    /// The operation on `x` (and `y`; a unary one ignores it): its table
    /// body, as every loop runs it.
    #[inline(always)]
    pub fn apply(self, x: f64, y: f64) -> f64 {
        with_f64_op!(self, O => <O as FloatApply>::apply(x, y))
    }

    /// As [`F64Op::apply`], over `float32`.
    #[inline(always)]
    pub fn apply_f32(self, x: f32, y: f32) -> f32 {
        with_f64_op!(self, O => <O as FloatApply>::apply(x, y))
    }
}

impl IntOp {
    /// How many arguments it takes: 1 or 2.
    pub fn arity(self) -> usize {
        with_int_op!(self, O => O::ARITY)
    }

    /// The operation's name in the table (`"Add"`).
    pub fn name(self) -> &'static str {
        with_int_op!(self, O => O::NAME)
    }

    /// Whether the result's bits do not depend on reading the arguments
    /// as signed or unsigned (so `int64` and `uint64` share a loop).
    pub fn sign_blind(self) -> bool {
        with_int_op!(self, O => O::SIGN_BLIND)
    }

    /// Whether it is associative and commutative.
    pub fn is_monoid(self) -> bool {
        with_int_op!(self, O => O::MONOID)
    }

    /// The operation on `x` (and `y`; a unary one ignores it): its table
    /// body, as every loop runs it.
    #[inline(always)]
    pub fn apply<T: Int>(self, x: T, y: T) -> T {
        with_int_op!(self, O => <O as IntApply>::apply(x, y))
    }
}

// ---------------------------------------------------------------------------
// Tests giving `bool`.

/// The tests' table, handed to `$cb` as [`op_table!`] hands its entries.
macro_rules! test_table {
    ($cb:ident!($($args:tt)*)) => {
        $crate::op::$cb! { ($($args)*)
            IsNan 1 "`x` is NaN." |x, _y| x.is_nan();
            IsInf 1 "`x` is infinite." |x, _y| x.is_infinite();
            IsFinite 1 "`x` is neither infinite nor NaN." |x, _y| x.is_finite();
            Equal 2 "`x == y` (IEEE: NaN equals nothing)." |x, y| x == y;
            NotEqual 2 "`x != y`." |x, y| x != y;
            Less 2 "`x < y`." |x, y| x < y;
            LessEqual 2 "`x <= y`." |x, y| x <= y;
            Greater 2 "`x > y`." |x, y| x > y;
            GreaterEqual 2 "`x >= y`." |x, y| x >= y;
        }
    };
}

macro_rules! define_tests {
    (() $($name:ident $arity:literal $doc:literal |$x:ident, $y:ident| $body:expr;)*) => {
        $(
            #[doc = $doc]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
            pub struct $name;
            impl Test for $name {
                const ARITY: usize = $arity;
                #[inline(always)]
                fn test<T: Num>($x: T, $y: T) -> bool {
                    $body
                }
            }
        )*

        /// A test of one or two numbers giving a `bool`: the
        /// classification and comparison leaves.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum Predicate {
            $(
                #[doc = $doc]
                $name,
            )*
        }

        impl Predicate {
            /// Every test.
            pub const ALL: &'static [Predicate] = &[$(Predicate::$name),*];
        }
    };
}

test_table!(define_tests!());

macro_rules! dispatch_test {
    (($op:expr, $O:ident, $body:expr) $($name:ident $arity:literal $doc:literal |$x:ident, $y:ident| $e:expr;)*) => {
        match $op {
            $($crate::op::Predicate::$name => { type $O = $crate::op::$name; $body })*
        }
    };
}

/// `with_predicate!(p, O => body)`: `body` with `O` the type of the
/// [`Predicate`] `p`.
macro_rules! with_predicate {
    ($op:expr, $O:ident => $body:expr) => {
        $crate::op::test_table!(dispatch_test!($op, $O, $body))
    };
}

pub(crate) use {define_tests, dispatch_test, test_table, with_predicate};

impl Predicate {
    /// How many arguments it takes: 1 or 2.
    pub fn arity(self) -> usize {
        with_predicate!(self, O => O::ARITY)
    }

    /// The test of `x` (and `y`; a one-argument test ignores it).
    #[inline(always)]
    pub fn test<T: Num>(self, x: T, y: T) -> bool {
        with_predicate!(self, O => O::test(x, y))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_generates_consistent_opcodes() {
        // Binary operations first, each name once.
        let arities: Vec<usize> = F64Op::ALL.iter().map(|o| o.arity()).collect();
        assert!(arities.windows(2).all(|w| w[0] >= w[1]), "{arities:?}");
        let arities: Vec<usize> = IntOp::ALL.iter().map(|o| o.arity()).collect();
        assert!(arities.windows(2).all(|w| w[0] >= w[1]), "{arities:?}");
        let mut names: Vec<&str> = IntOp::ALL.iter().map(|o| o.name()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), IntOp::ALL.len());
        assert!(IntOp::Add.sign_blind() && !IntOp::Maximum.sign_blind());
        assert!(F64Op::Maximum.is_monoid() && !F64Op::Sub.is_monoid());
        assert_eq!(Predicate::IsNan.arity(), 1);
        assert_eq!(Predicate::Less.arity(), 2);
        assert!(Predicate::Less.test(1u8, 2));
        assert!(!Predicate::Equal.test(f64::NAN, f64::NAN));
        assert_eq!(IntOp::ShiftLeft.apply(1i8, 8), 0);
        assert_eq!(IntOp::ShiftRight.apply(-8i8, 9), -1);
        assert_eq!(IntOp::Abs.apply(i8::MIN, 0), i8::MIN);
        assert!(F64Op::Minimum.apply(f64::NAN, 1.0).is_nan());
        assert_eq!(F64Op::Rint.apply_f32(2.5, 0.0), 2.0);
    }
}
