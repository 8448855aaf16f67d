//! The operators on expressions and arrays (`&a * &b + 1.0`, `-x`,
//! `x.greater(0.0) & m`), each building an [`Expr`] node, and the Rust
//! numbers that enter an expression as scalar operands.

use std::borrow::Cow;
use std::ops::{Add, BitAnd, BitOr, BitXor, Div, Mul, Neg, Not, Rem, Shl, Shr, Sub};

use super::{BinaryOp, Expr, UnaryOp};
use crate::array::Array;
use crate::element::Element;

/// The comparisons as methods of an array, each an expression node (the
/// operators `<`, `==`, ... cannot return one): `x.greater(0.0)`, and a
/// mask of two with `&`.
macro_rules! array_comparisons {
    ($(($m:ident, $op:ident, $doc:literal)),*) => {
        impl Array {
            $(
                #[doc = concat!("`self ", $doc, " rhs`, elementwise, as an expression (a `bool` result when evaluated):")]
                /// `(x.greater(0.0) & x.less(1.0)).eval()` is a mask.
                pub fn $m<'a>(&'a self, rhs: impl Into<Expr<'a>>) -> Expr<'a> {
                    Expr::Binary(BinaryOp::$op, Box::new((Expr::from(self), rhs.into())))
                }
            )*
        }
    };
}
array_comparisons!(
    (equal, Equal, "=="),
    (not_equal, NotEqual, "!="),
    (less, Less, "<"),
    (less_equal, LessEqual, "<="),
    (greater, Greater, ">"),
    (greater_equal, GreaterEqual, ">=")
);

/// A Rust number usable as an operand (a 0-dimensional leaf of its own
/// type). Sealed: the numbers listed in the [module docs](crate::expr).
pub trait ScalarOperand: Element + sealed::Sealed {}

mod sealed {
    pub trait Sealed {}
}

macro_rules! scalar_operand {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl ScalarOperand for $t {}
    )*};
}
scalar_operand!(f64, f32, i64, i32, i16, i8, u64, u32, u16, u8);

impl From<Array> for Expr<'_> {
    fn from(a: Array) -> Self {
        Expr::Leaf(Cow::Owned(a))
    }
}

impl<'a> From<&'a Array> for Expr<'a> {
    /// A leaf borrowing the array.
    fn from(a: &'a Array) -> Self {
        Expr::Leaf(Cow::Borrowed(a))
    }
}

impl<'a> From<&Expr<'a>> for Expr<'a> {
    fn from(e: &Expr<'a>) -> Self {
        e.clone()
    }
}

impl<S: ScalarOperand> From<S> for Expr<'_> {
    /// A weak scalar ([`Expr::Scalar`]).
    fn from(v: S) -> Self {
        Expr::Scalar(Cow::Owned(Array::from_scalar(v)))
    }
}

impl From<&str> for Expr<'_> {
    /// A `string` leaf ([`Array::from_text`]): `x.equal("a")`.
    fn from(s: &str) -> Self {
        Expr::Leaf(Cow::Owned(Array::from_text(s)))
    }
}

impl From<String> for Expr<'_> {
    /// A `string` leaf, as from `&str`.
    fn from(s: String) -> Self {
        Expr::from(s.as_str())
    }
}

/// One operator impl: `generics; left; right; the result's lifetime`.
macro_rules! imp {
    ($tr:ident, $m:ident, $op:ident, [$($g:tt)*], $l:ty, $r:ty, $lt:lifetime) => {
        impl<$($g)*> $tr<$r> for $l {
            type Output = Expr<$lt>;
            /// Builds the expression; evaluating it computes.
            #[inline]
            fn $m(self, rhs: $r) -> Expr<$lt> {
                Expr::Binary(BinaryOp::$op, Box::new((self.into(), rhs.into())))
            }
        }
    };
}

macro_rules! binary_ops {
    ($(($tr:ident, $m:ident, $op:ident)),*) => {$(
        // An array by reference.
        imp!($tr, $m, $op, ['a], &'a Array, &'a Array, 'a);
        imp!($tr, $m, $op, ['a], &'a Array, Array, 'a);
        imp!($tr, $m, $op, ['a], &'a Array, Expr<'a>, 'a);
        imp!($tr, $m, $op, ['a, 'b], &'a Array, &'b Expr<'a>, 'a);
        imp!($tr, $m, $op, ['a, S: ScalarOperand], &'a Array, S, 'a);
        // An array by value.
        imp!($tr, $m, $op, ['a], Array, &'a Array, 'a);
        imp!($tr, $m, $op, [], Array, Array, 'static);
        imp!($tr, $m, $op, ['a], Array, Expr<'a>, 'a);
        imp!($tr, $m, $op, ['a, 'b], Array, &'b Expr<'a>, 'a);
        imp!($tr, $m, $op, [S: ScalarOperand], Array, S, 'static);
        // An expression.
        imp!($tr, $m, $op, ['a], Expr<'a>, &'a Array, 'a);
        imp!($tr, $m, $op, ['a], Expr<'a>, Array, 'a);
        imp!($tr, $m, $op, ['a], Expr<'a>, Expr<'a>, 'a);
        imp!($tr, $m, $op, ['a, 'b], Expr<'a>, &'b Expr<'a>, 'a);
        imp!($tr, $m, $op, ['a, S: ScalarOperand], Expr<'a>, S, 'a);
        // An expression by reference (cloned: its leaves stay borrowed).
        imp!($tr, $m, $op, ['a, 'b], &'b Expr<'a>, &'a Array, 'a);
        imp!($tr, $m, $op, ['a, 'b], &'b Expr<'a>, Array, 'a);
        imp!($tr, $m, $op, ['a, 'b], &'b Expr<'a>, Expr<'a>, 'a);
        imp!($tr, $m, $op, ['a, 'b, 'c], &'b Expr<'a>, &'c Expr<'a>, 'a);
        imp!($tr, $m, $op, ['a, 'b, S: ScalarOperand], &'b Expr<'a>, S, 'a);
        binary_ops!(@scalars $tr, $m, $op, f64, f32, i64, i32, i16, i8, u64, u32, u16, u8);
    )*};
    (@scalars $tr:ident, $m:ident, $op:ident, $($s:ty),*) => {$(
        imp!($tr, $m, $op, ['a], $s, &'a Array, 'a);
        imp!($tr, $m, $op, [], $s, Array, 'static);
        imp!($tr, $m, $op, ['a], $s, Expr<'a>, 'a);
        imp!($tr, $m, $op, ['a, 'b], $s, &'b Expr<'a>, 'a);
    )*};
}

binary_ops!(
    (Add, add, Add),
    (Sub, sub, Subtract),
    (Mul, mul, Multiply),
    (Div, div, Divide),
    (Rem, rem, Remainder),
    (BitAnd, bitand, BitAnd),
    (BitOr, bitor, BitOr),
    (BitXor, bitxor, BitXor),
    (Shl, shl, LeftShift),
    (Shr, shr, RightShift)
);

// `+` with a Rust string on the right joins strings: `&names + "!"`.
imp!(Add, add, Add, ['a, 's], &'a Array, &'s str, 'a);
imp!(Add, add, Add, ['s], Array, &'s str, 'static);
imp!(Add, add, Add, ['a, 's], Expr<'a>, &'s str, 'a);
imp!(Add, add, Add, ['a, 'b, 's], &'b Expr<'a>, &'s str, 'a);

macro_rules! unary_ops {
    ($([$($g:tt)*], $t:ty, $lt:lifetime);*) => {$(
        impl<$($g)*> Neg for $t {
            type Output = Expr<$lt>;
            /// Builds the expression; evaluating it computes.
            fn neg(self) -> Expr<$lt> {
                Expr::Unary(UnaryOp::Negative, Box::new(self.into()))
            }
        }

        impl<$($g)*> Not for $t {
            type Output = Expr<$lt>;
            /// Builds the expression (the builtin `invert`: bitwise on
            /// integers, logical on `bool`); evaluating it computes.
            fn not(self) -> Expr<$lt> {
                Expr::Unary(UnaryOp::Invert, Box::new(self.into()))
            }
        }
    )*};
}
unary_ops!(
    ['a], &'a Array, 'a;
    [], Array, 'static;
    ['a], Expr<'a>, 'a;
    ['a, 'b], &'b Expr<'a>, 'a
);
