//! Evaluating expressions ([`Expr`]): fused into one pass over the result.
//!
//! An expression is built by the operators (`&a * &b + 1.0`), the
//! comparison methods (`x.greater(0.0)`), [`Expr::cast`], [`select`]
//! (NumPy's `where`) and any callable's [`Callable::expr`] (builtins,
//! `#[elemental]` functions, [`Callable::map2`], ...). Evaluating it:
//!
//! 1. resolves every node as calling it by hand would (the overload from
//!    the arguments' types, promotion by casts, the broadcast result
//!    type), once per distinct node;
//! 2. runs the whole tree in one fused pass ([`dynd_kernels::fuse`]):
//!    blocks of the result, each leaf read through its own strides, the
//!    intermediate values in small per-thread buffers, common
//!    subexpressions once, the result written once; ragged leaves whose
//!    rows have equal lengths fuse over their values.
//!
//! Nodes that are not elementwise (gufuncs such as `dot`, callables with
//! keywords or over whole arrays) are computed first and enter the pass
//! as leaves; layouts the pass does not take (rows that broadcast, `var`
//! above the last dimension, strings) are evaluated node by node
//! ([`Eval::eval_stepwise`]). Either way the result, its type and any
//! error are those of making the calls by hand, and an error names the
//! node that failed:
//!
//! ```
//! use dynd::func::{select, Callable, Eval};
//! use dynd::nd::{array, Array};
//!
//! let (a, b) = (array![[1.0, 2.0], [3.0]], array![10.0, 20.0]);
//! let r = (&a * 2.0 + &b.reshape([2, 1])?).eval()?;
//! assert_eq!(r.to_string(), "[[12, 14], [26]]");
//!
//! // Any elementwise callable takes part, and so do comparisons.
//! let hypot = Callable::map2("hypot", |x: f64, y: f64| x.hypot(y));
//! let x = array![3.0, -5.0];
//! let h = hypot.expr([Expr::from(&x), Expr::from(4.0)]);
//! let r = select(Expr::from(&x).greater(0.0), h, -&x).eval()?;
//! assert_eq!(r.to_string(), "[5, 5]");
//!
//! // Errors surface from `eval`, naming the node.
//! let e = (&a * 2.0 + &Array::from_vec(vec![1.0, 2.0, 3.0])).eval().unwrap_err();
//! assert!(e.to_string().starts_with("in 'add(multiply(a0, 2), a1)': "), "{e}");
//! # use dynd::nd::expr::Expr;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};

use smallvec::SmallVec;

use dynd_kernels::expr::{BinaryOp, Expr, ExprFunction, Function, UnaryOp};
use dynd_kernels::fuse::{Program, Slot};
use dynd_kernels::{Array, ErrorMode};
use dynd_types::{broadcast, BroadcastMode, Type, TypeKind};

use crate::callable::{Body, Callable};
use crate::error::Error;

impl ExprFunction for Callable {
    fn name(&self) -> &str {
        Callable::name(self)
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
}

impl Callable {
    /// The call of this callable on `args` as an expression node, to fuse
    /// with the rest of an expression (see [`Eval`]).
    ///
    /// ```
    /// use dynd::func::{Callable, Eval};
    /// use dynd::nd::{array, expr::Expr};
    ///
    /// let clamp01 = Callable::map1("clamp01", |x: f64| x.clamp(0.0, 1.0));
    /// let x = array![-0.5, 0.25, 2.0];
    /// let r = (clamp01.expr([Expr::from(&x)]) * 10.0).eval()?;
    /// assert_eq!(r.to_string(), "[0, 2.5, 10]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn expr<'a, E: Into<Expr<'a>>>(&self, args: impl IntoIterator<Item = E>) -> Expr<'a> {
        Expr::Call(
            Function(Arc::new(self.clone())),
            args.into_iter().map(Into::into).collect(),
        )
    }
}

/// NumPy's `where`: elementwise `x` where `cond` is true and `y`
/// elsewhere (the builtin `where`, as an expression node).
///
/// ```
/// use dynd::func::{select, Eval};
/// use dynd::nd::{array, expr::Expr};
///
/// let x = array![-1.0, 2.0, -3.0];
/// let r = select(Expr::from(&x).less(0.0), 0.0, &x).eval()?;
/// assert_eq!(r.to_string(), "[0, 2, 0]");
/// # Ok::<(), dynd::Error>(())
/// ```
pub fn select<'a>(
    cond: impl Into<Expr<'a>>,
    x: impl Into<Expr<'a>>,
    y: impl Into<Expr<'a>>,
) -> Expr<'a> {
    builtin("where").expr([cond.into(), x.into(), y.into()])
}

/// Installs [`Eval::eval`] as the evaluation of expressions passed where
/// an array is expected (`impl IntoArray for Expr`).
pub(crate) fn install() {
    dynd_kernels::expr::set_evaluator(|e| e.eval());
}

/// A builtin the operators call, looked up once.
fn builtin(name: &'static str) -> &'static Callable {
    static OPS: OnceLock<Vec<(&'static str, Callable)>> = OnceLock::new();
    let ops = OPS.get_or_init(|| {
        [
            "add",
            "subtract",
            "multiply",
            "divide",
            "remainder",
            "power",
            "equal",
            "not_equal",
            "less",
            "less_equal",
            "greater",
            "greater_equal",
            "negative",
            "where",
        ]
        .into_iter()
        .map(|n| {
            let c =
                crate::builtins::get(n).unwrap_or_else(|e| unreachable!("{n} is a builtin: {e}"));
            (n, c)
        })
        .collect()
    });
    match ops.iter().find(|(n, _)| *n == name) {
        Some((_, c)) => c,
        None => unreachable!("{name} is one of the operators' builtins"),
    }
}

fn binary(op: BinaryOp) -> &'static Callable {
    builtin(op.name())
}

fn unary(op: UnaryOp) -> &'static Callable {
    builtin(op.name())
}

/// A node's callable and its arguments.
type CallNode<'e, 'a> = (&'e Callable, SmallVec<[&'e Expr<'a>; 4]>);

/// A node's callable and arguments; `None` for a leaf or a cast.
fn call_of<'e, 'a>(e: &'e Expr<'a>) -> Result<Option<CallNode<'e, 'a>>, Error> {
    Ok(match e {
        Expr::Unary(op, x) => Some((unary(*op), smallvec::smallvec![&**x])),
        Expr::Binary(op, xy) => Some((binary(*op), smallvec::smallvec![&xy.0, &xy.1])),
        Expr::Call(f, args) => {
            let Some(c) = f.0.as_any().downcast_ref::<Callable>() else {
                return Err(Error::Unsupported {
                    operation: "calling a function that is not a dynd callable",
                    ty: Type::from(dynd_types::Scalar::Bool),
                });
            };
            Some((c, args.iter().collect()))
        }
        _ => None,
    })
}

/// Evaluation of an [`Expr`] (in the prelude of the `dynd` facade).
pub trait Eval {
    /// The expression's value, fused (see the [module docs](self)): a new
    /// array (a leaf alone is the array itself, shared).
    ///
    /// # Errors
    ///
    /// The error the calls would make by hand (no matching overload, a
    /// broadcast mismatch, a failed conversion, ...), as
    /// [`Error::InExpr`] naming the node.
    fn eval(&self) -> Result<Array, Error>;

    /// Evaluates into `out`, as [`Callable::call_into`] does for the
    /// outermost call: its type must be the result's, or dimensions the
    /// result broadcasts to with the result's data type. An `out` whose
    /// memory a leaf also reads (`a = a[::-1] + 1`) ends up as if the
    /// result were computed into a temporary first.
    ///
    /// # Errors
    ///
    /// As [`Eval::eval`], and [`Error::Out`] for an `out` of another type.
    fn eval_into(&self, out: &mut Array) -> Result<(), Error>;

    /// The sum of the expression's values over all its elements, as the
    /// builtin `sum` of the evaluated result gives it (same type, same
    /// bits), without making the result when the fused pass takes it: a
    /// `float64` result whose leaves walk it as one run is computed and
    /// folded a chunk at a time.
    ///
    /// ```
    /// use dynd::func::Eval;
    /// use dynd::nd::Array;
    ///
    /// let a = Array::from_vec((0..10_000).map(f64::from).collect::<Vec<_>>());
    /// let s = (&a * &a).sum()?;
    /// assert_eq!(s.get::<f64>(&[])?, 333_283_335_000.0);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Eval::eval`], then as `sum`.
    fn sum(&self) -> Result<Array, Error>;

    /// The fused pass alone: `None` when the expression's layout is not one
    /// it takes, or when planning or running it fails (then
    /// [`Eval::eval`] evaluates node by node, which reports the error).
    /// For tests and benchmarks that need to know which path ran.
    fn eval_fused(&self) -> Option<Array>;

    /// The expression's value computed node by node, each call
    /// materialising its result: the reference [`Eval::eval`] agrees with,
    /// and the way it takes layouts the fused pass does not.
    ///
    /// # Errors
    ///
    /// As [`Eval::eval`].
    fn eval_stepwise(&self) -> Result<Array, Error>;
}

/// `err` as the error of node `e` (its arrays numbered from `first`).
fn named(e: &Expr<'_>, first: usize, err: Error) -> Error {
    match err {
        Error::InExpr { .. } => err,
        err => Error::InExpr {
            node: e.text_from(first).into(),
            source: Box::new(err),
        },
    }
}

/// The value of `e` node by node; `next` numbers the arrays for errors.
fn stepwise<'e>(e: &'e Expr<'_>, next: &mut usize) -> Result<Cow<'e, Array>, Error> {
    let first = *next;
    if let Expr::Leaf(a) = e {
        *next += usize::from(a.ndim() > 0);
        return Ok(Cow::Borrowed(&**a));
    }
    if let Expr::Cast(ty, x) = e {
        let v = stepwise(x, next)?;
        return cast(&v, ty)
            .map(Cow::Owned)
            .map_err(|err| named(e, first, err));
    }
    let Some((c, args)) = call_of(e)? else {
        unreachable!("leaves and casts are handled above")
    };
    let values = args
        .iter()
        .map(|a| stepwise(a, next))
        .collect::<Result<SmallVec<[Cow<'_, Array>; 4]>, Error>>()?;
    let refs: SmallVec<[&Array; 4]> = values.iter().map(|v| &**v).collect();
    c.call(&refs)
        .map(Cow::Owned)
        .map_err(|err| named(e, first, err))
}

/// `v` with its elements converted to data type `ty`.
fn cast(v: &Array, ty: &Type) -> Result<Array, Error> {
    let full = Type::with_dims(v.ty().split_dims().0.into_iter().cloned(), ty.clone())?;
    v.cast(&full, ErrorMode::Fractional)
}

/// Builds the fused program for an expression.
struct Lower {
    p: Program,
}

impl Lower {
    /// The slot and full type of `e`'s value.
    fn lower(&mut self, e: &Expr<'_>) -> Result<(Slot, Type), Error> {
        match e {
            Expr::Leaf(a) => Ok((self.p.leaf(a), a.ty().clone())),
            Expr::Cast(ty, x) => {
                let (s, xt) = self.lower(x)?;
                let full = Type::with_dims(xt.split_dims().0.into_iter().cloned(), ty.clone())?;
                match self.p.cast(s, ty, ErrorMode::Fractional) {
                    Ok(slot) => Ok((slot, full)),
                    Err(_) => self.materialise(e),
                }
            }
            _ => {
                let Some((c, args)) = call_of(e)? else {
                    unreachable!("leaves and casts are handled above")
                };
                if c.whole_array_fn().is_some() || !c.keywords().is_empty() {
                    return self.materialise(e);
                }
                let lowered = args
                    .iter()
                    .map(|a| self.lower(a))
                    .collect::<Result<SmallVec<[(Slot, Type); 4]>, Error>>()?;
                let types: SmallVec<[&Type; 4]> = lowered.iter().map(|(_, t)| t).collect();
                let resolution = c.resolved_types(&types)?;
                let o = &c.overloads()[resolution.0];
                let Body::Elementwise(leaf) = o.body() else {
                    return self.materialise(e);
                };
                let mut slots: SmallVec<[Slot; 4]> = SmallVec::new();
                for ((&(s, ref t), target), &option) in
                    lowered.iter().zip(o.inputs()).zip(o.options())
                {
                    // The casts `Callable::call` makes: to the overload's
                    // element type, an option staying one (NA propagates).
                    let is_option = matches!(t.dtype().kind(), TypeKind::Option(_));
                    let value = match t.dtype().kind() {
                        TypeKind::Option(inner) => inner.as_scalar(),
                        _ => t.dtype().as_scalar(),
                    };
                    if value == Some(*target) && (is_option || !option) {
                        slots.push(s);
                        continue;
                    }
                    let to = if is_option || option {
                        Type::option(Type::from(*target))?
                    } else {
                        Type::from(*target)
                    };
                    slots.push(self.p.cast(s, &to, ErrorMode::Fractional)?);
                }
                let slot = self.p.call(leaf, &slots)?;
                Ok((slot, resolution.1.clone()))
            }
        }
    }

    /// `e` computed on its own (its arguments fused), entering the program
    /// as a leaf.
    fn materialise(&mut self, e: &Expr<'_>) -> Result<(Slot, Type), Error> {
        let v = eval_node(e)?;
        let ty = v.ty().clone();
        Ok((self.p.leaf(&v), ty))
    }
}

/// `e`'s value with only its arguments fused: the node itself called as
/// by hand.
fn eval_node(e: &Expr<'_>) -> Result<Array, Error> {
    match e {
        Expr::Leaf(a) => Ok((**a).clone()),
        Expr::Cast(ty, x) => cast(&x.eval()?, ty),
        _ => {
            let Some((c, args)) = call_of(e)? else {
                unreachable!("leaves and casts are handled above")
            };
            let values = args
                .iter()
                .map(|a| a.eval())
                .collect::<Result<SmallVec<[Array; 4]>, Error>>()?;
            let refs: SmallVec<[&Array; 4]> = values.iter().collect();
            c.call(&refs)
        }
    }
}

/// Below this many elements (of the largest leaf) an expression is
/// evaluated node by node: the fused pass's fixed cost (planning every
/// node, building the steps' kernels) is then more than the memory traffic
/// it saves. Measured on `a*b + c*d - e`: equal at about 3000 elements.
const FUSE_MIN: usize = 4096;

/// The element count of `e`'s largest leaf (`usize::MAX` for a ragged
/// one, whose count is not in its type).
fn size_hint(e: &Expr<'_>) -> usize {
    match e {
        Expr::Leaf(a) => {
            let (mut n, mut m) = (1usize, a.arrmeta());
            while let Some((k, _, element)) = m.as_fixed() {
                n = n.saturating_mul(k);
                m = element;
            }
            if m.has_var() {
                usize::MAX
            } else {
                n
            }
        }
        Expr::Unary(_, x) | Expr::Cast(_, x) => size_hint(x),
        Expr::Binary(_, xy) => size_hint(&xy.0).max(size_hint(&xy.1)),
        Expr::Call(_, args) => args.iter().map(size_hint).max().unwrap_or(0),
        _ => usize::MAX,
    }
}

/// The fused program for `e`, its root and the result type; `None` when
/// some part could not be planned (the step-by-step evaluation then
/// reports it).
fn plan(e: &Expr<'_>) -> Option<(Program, Slot, Type)> {
    let mut l = Lower { p: Program::new() };
    let (root, ty) = l.lower(e).ok()?;
    Some((l.p, root, ty))
}

impl Eval for Expr<'_> {
    fn eval(&self) -> Result<Array, Error> {
        if let Expr::Leaf(a) = self {
            return Ok((**a).clone());
        }
        if size_hint(self) < FUSE_MIN {
            return self.eval_stepwise();
        }
        match self.eval_fused() {
            Some(r) => Ok(r),
            None => self.eval_stepwise(),
        }
    }

    fn sum(&self) -> Result<Array, Error> {
        if size_hint(self) >= FUSE_MIN {
            if let Some((p, root, ty)) = plan(self) {
                if let Ok(Some(v)) = p.sum_f64(root, &ty) {
                    return Ok(Array::from_scalar(v));
                }
            }
        }
        let v = self.eval()?;
        crate::builtins::get("sum")?.call(&[&v])
    }

    fn eval_fused(&self) -> Option<Array> {
        let (p, root, ty) = plan(self)?;
        p.eval(root, &ty).ok().flatten()
    }

    fn eval_into(&self, out: &mut Array) -> Result<(), Error> {
        let fuse = size_hint(self) >= FUSE_MIN;
        if let Some((p, root, ty)) = fuse.then(|| plan(self)).flatten() {
            let fits = out.ty() == &ty || {
                let joint = broadcast(&[ty.clone(), out.ty().clone()], BroadcastMode::NumPy).ok();
                joint.is_some_and(|j| j.split_dims().0 == out.ty().split_dims().0)
                    && out.dtype() == ty.dtype()
            };
            if !fits {
                return Err(Error::Out {
                    name: self.to_string(),
                    out: out.ty().clone(),
                    result: ty,
                });
            }
            if let Ok(true) = p.eval_into(root, out) {
                return Ok(());
            }
        }
        let mut next = 0;
        match self {
            Expr::Leaf(_) | Expr::Cast(..) => {
                let value = self.eval()?;
                Ok(out.assign(&value, ErrorMode::Fractional)?)
            }
            _ => {
                let Some((c, args)) = call_of(self)? else {
                    unreachable!("leaves and casts are handled above")
                };
                let values = args
                    .iter()
                    .map(|a| stepwise(a, &mut next))
                    .collect::<Result<SmallVec<[Cow<'_, Array>; 4]>, Error>>()?;
                let refs: SmallVec<[&Array; 4]> = values.iter().map(|v| &**v).collect();
                c.call_into(out, &refs).map_err(|err| named(self, 0, err))
            }
        }
    }

    fn eval_stepwise(&self) -> Result<Array, Error> {
        stepwise(self, &mut 0).map(Cow::into_owned)
    }
}
