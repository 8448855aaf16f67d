//! Evaluating the operators' expressions ([`Expr`]) through the builtins.
//!
//! Each node is one call of its builtin (`add`, `subtract`, `multiply`,
//! `divide`, `remainder`, `negative`), innermost first, so the result, its
//! type and any error are those of making the calls by hand.
//!
//! ```
//! use dynd::func::Eval;
//! use dynd::nd::{array, Array};
//!
//! let (a, b) = (array![[1.0, 2.0], [3.0]], array![10.0, 20.0]);
//! let r = (&a * 2.0 + &b.reshape([2, 1])?).eval()?;
//! assert_eq!(r.to_string(), "[[12, 14], [26]]");
//!
//! // Errors surface from `eval`, with the builtin's message.
//! let e = (&a + &Array::from_vec(vec![1.0, 2.0, 3.0])).eval().unwrap_err();
//! assert!(e.to_string().contains("broadcast"), "{e}");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Cow;
use std::sync::OnceLock;

use dynd_kernels::expr::{BinaryOp, Expr, UnaryOp};
use dynd_kernels::Array;

use crate::callable::Callable;
use crate::error::Error;

/// The builtins the operators call, looked up once.
struct Ops {
    add: Callable,
    subtract: Callable,
    multiply: Callable,
    divide: Callable,
    remainder: Callable,
    negative: Callable,
}

fn ops() -> &'static Ops {
    static OPS: OnceLock<Ops> = OnceLock::new();
    OPS.get_or_init(|| {
        let get = |name| {
            crate::builtins::get(name).unwrap_or_else(|e| unreachable!("{name} is a builtin: {e}"))
        };
        Ops {
            add: get("add"),
            subtract: get("subtract"),
            multiply: get("multiply"),
            divide: get("divide"),
            remainder: get("remainder"),
            negative: get("negative"),
        }
    })
}

fn binary(op: BinaryOp) -> &'static Callable {
    let ops = ops();
    match op {
        BinaryOp::Subtract => &ops.subtract,
        BinaryOp::Multiply => &ops.multiply,
        BinaryOp::Divide => &ops.divide,
        BinaryOp::Remainder => &ops.remainder,
        BinaryOp::Add => &ops.add,
        _ => unreachable!("an operator without its builtin here"),
    }
}

fn unary(op: UnaryOp) -> &'static Callable {
    match op {
        UnaryOp::Negative => &ops().negative,
        _ => unreachable!("an operator without its builtin here"),
    }
}

/// Evaluation of an [`Expr`] (in the prelude of the `dynd` facade).
pub trait Eval {
    /// The expression's value: a new array (a leaf alone is the array
    /// itself, shared).
    ///
    /// # Errors
    ///
    /// The first error a call of the expression makes (no matching
    /// overload, a broadcast mismatch, ...), as [`Callable::call`] reports
    /// it.
    fn eval(&self) -> Result<Array, Error>;

    /// Evaluates into `out`, whose type must be the result's (the outermost
    /// call writes there, as [`Callable::call_into`] does).
    ///
    /// # Errors
    ///
    /// As [`Eval::eval`], and [`Error::Out`] for an `out` of another type.
    fn eval_into(&self, out: &mut Array) -> Result<(), Error>;
}

/// The value of `e`: a leaf borrowed, a node computed.
fn value<'e>(e: &'e Expr<'_>) -> Result<Cow<'e, Array>, Error> {
    Ok(match e {
        Expr::Leaf(a) => Cow::Borrowed(&**a),
        Expr::Unary(op, x) => Cow::Owned(unary(*op).call(&[&*value(x)?])?),
        Expr::Binary(op, xy) => Cow::Owned(binary(*op).call(&[&*value(&xy.0)?, &*value(&xy.1)?])?),
        _ => unreachable!("every Expr kind is evaluated above"),
    })
}

impl Eval for Expr<'_> {
    fn eval(&self) -> Result<Array, Error> {
        value(self).map(Cow::into_owned)
    }

    fn eval_into(&self, out: &mut Array) -> Result<(), Error> {
        match self {
            Expr::Unary(op, x) => unary(*op).call_into(out, &[&*value(x)?]),
            Expr::Binary(op, xy) => binary(*op).call_into(out, &[&*value(&xy.0)?, &*value(&xy.1)?]),
            leaf => {
                let value = leaf.eval()?;
                Ok(out.assign(&value, dynd_kernels::ErrorMode::Fractional)?)
            }
        }
    }
}
