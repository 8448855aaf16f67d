//! Evaluating expressions: [`Eval`], fused into one pass over the result.

use std::borrow::Cow;
use std::sync::Arc;

use smallvec::SmallVec;

use dynd_kernels::elwise::PARALLEL_MIN;
use dynd_kernels::expr::{BinaryOp, Expr, ExprFunction, Function, UnaryOp, MAX_EVAL_DEPTH};
use dynd_kernels::fuse::{Program, Slot};
use dynd_kernels::ArrayOps;
use dynd_kernels::{Array, Arrmeta, ErrorMode, Index};
use dynd_types::{Dim, Scalar, Type, TypeKind};

use crate::builtin::{Builtin, Operator};
use crate::callable::{Body, Callable};
use crate::elementwise::{for_operator, DIVIDE, SQRT, WHERE};
use crate::error::Error;
use crate::options::AxisOptions;

mod dense;
mod fused_reduce;
mod ladder;
mod lower;
mod weak;
use fused_reduce::*;
use lower::plan;

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
    /// let clamp01 = Callable::map("clamp01", |x: f64| x.clamp(0.0, 1.0));
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

impl Builtin {
    /// The call of this builtin on `args` as an expression node, to fuse
    /// with the rest of an expression (see [`Eval`]).
    ///
    /// ```
    /// use dynd::func::{builtins::{FLOOR, ISFINITE}, select, Eval};
    /// use dynd::nd::array;
    ///
    /// let x = array![1.5, f64::INFINITY, -0.5];
    /// let r = select(ISFINITE.expr([&x]), FLOOR.expr([&x]) * 2.0, 0.0).eval()?;
    /// assert_eq!(r.to_string(), "[2, 0, -2]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn expr<'a, E: Into<Expr<'a>>>(
        &'static self,
        args: impl IntoIterator<Item = E>,
    ) -> Expr<'a> {
        self.callable().expr(args)
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
    WHERE.callable().expr([cond.into(), x.into(), y.into()])
}

/// Installs [`Eval::eval`] as the evaluation of expressions passed where
/// an array is expected (`impl IntoArray for Expr`): the registry does on
/// a lookup, and the facade when it makes an `#[elemental]` fn's callable
/// (whose `call` takes expressions).
#[doc(hidden)]
pub fn install() {
    dynd_kernels::expr::set_evaluator(|e| e.eval());
}

fn binary(op: BinaryOp) -> &'static Callable {
    for_operator(Operator::Binary(op)).callable()
}

/// A reduction over the rows of `groupby(values, keys)` (axis 1, or -1
/// for values of one dimension, and no other keyword) as one aggregation
/// pass over the values, without making the groups (see
/// `groups::aggregate`); `None` for any other expression, reduction or
/// type.
fn reduce_groups(
    e: &Expr<'_>,
    reduction: &Callable,
    options: &AxisOptions,
) -> Result<Option<Array>, Error> {
    let Expr::Call(f, args) = e else {
        return Ok(None);
    };
    let Some(c) = f.0.as_any().downcast_ref::<Callable>() else {
        return Ok(None);
    };
    if c.name() != "groupby" || args.len() != 2 {
        return Ok(None);
    }
    let rows_axis = matches!(options.axes(), Some([1]) | Some([-1]));
    if !rows_axis || options.given().any(|k| k != "axis") {
        return Ok(None);
    }
    let (values, keys) = (args[0].eval()?, args[1].eval()?);
    if matches!(options.axes(), Some([-1])) && values.ndim() != 1 {
        return Ok(None);
    }
    crate::groups::aggregate(&values, &keys, reduction)
}

fn unary(op: UnaryOp) -> &'static Callable {
    for_operator(Operator::Unary(op)).callable()
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

/// Evaluation of an [`Expr`] (in the prelude of the `dynd` facade): fused
/// into one pass over the result.
///
/// An expression is built by the operators (`&a * &b + 1.0`), the
/// comparison methods (`x.greater(0.0)`), [`Expr::cast`], [`select`]
/// (NumPy's `where`) and any callable's [`Callable::expr`] (builtins,
/// `#[elemental]` functions, [`Callable::map`], ...). Evaluating it:
///
/// 1. resolves every node as calling it by hand would (the overload from
///    the arguments' types, promotion by casts, the broadcast result
///    type), once per distinct node;
/// 2. runs the whole tree in one fused pass ([`dynd_kernels::fuse`]):
///    blocks of the result, each leaf read through its own strides, the
///    intermediate values in small per-thread buffers, common
///    subexpressions once, the result written once; ragged leaves whose
///    rows have equal lengths fuse over their values.
///
/// Plain `float64` arithmetic (the builtins' `+ - * /`, negation, `abs`,
/// `sqrt`) over C-contiguous arrays of one shape and scalars runs as one
/// loop over small chunks with every leaf streaming at once, and, below
/// the parallel threshold, without planning the pass or building kernels:
/// so `a*b + c*d - e` over a thousand elements costs less than the four
/// calls. Below that threshold, other elementwise builtins over such
/// arrays of builtin numbers and `bool` (integers, `float32`,
/// comparisons, the math functions) whose arguments need no conversion
/// run the same way, each node's own loop over a chunk before the next
/// chunk ([`Dense`](dynd_kernels::fuse::Dense)). A thread keeps
/// the last few such expressions' loops, so evaluating one again over
/// arrays of the same types only checks their layouts and runs.
///
/// Nodes that are not elementwise (gufuncs such as `dot`, callables with
/// keywords or over whole arrays) are computed first and enter the pass
/// as leaves; layouts the pass does not take (rows that broadcast, `var`
/// above the last dimension, strings) are evaluated node by node
/// ([`Eval::eval_stepwise`]). Either way the result, its type and any
/// error are those of making the calls by hand, and an error names the
/// node that failed:
///
/// ```
/// use dynd::func::{select, Callable, Eval};
/// use dynd::nd::{array, Array};
///
/// let (a, b) = (array![[1.0, 2.0], [3.0]], array![10.0, 20.0]);
/// let r = (&a * 2.0 + &b.reshape([2, 1])?).eval()?;
/// assert_eq!(r.to_string(), "[[12, 14], [26]]");
///
/// // Any elementwise callable takes part, and so do comparisons.
/// let hypot = Callable::map("hypot", |x: f64, y: f64| x.hypot(y));
/// let x = array![3.0, -5.0];
/// let h = hypot.expr([Expr::from(&x), Expr::from(4.0)]);
/// let r = select(Expr::from(&x).greater(0.0), h, -&x).eval()?;
/// assert_eq!(r.to_string(), "[5, 5]");
///
/// // Reductions take the expression a part at a time (no temporary of
/// // the whole value): `sum`, `mean`, `min`, `max`, `std`, `reduce`.
/// assert_eq!((&a * 2.0).max()?.to_string(), "6");
///
/// // Errors surface from `eval`, naming the node.
/// let e = (&a * 2.0 + &Array::from_vec(vec![1.0, 2.0, 3.0])).eval().unwrap_err();
/// assert!(e.to_string().starts_with("in 'add(multiply(a0, 2), a1)': "), "{e}");
/// # use dynd::nd::expr::Expr;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait Eval {
    /// The expression's value, fused (see [`Eval`]): a new
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

    /// A reduction of the expression's value: `reduction.reduce_with(&value,
    /// options)` (`sum`, `mean`, `min`, `max`, `std`, `count`, ... with
    /// `axis`, `keepdims`, `ddof`, `skip_na`; an associative `NAME.reduce`), with
    /// that call's result, type and errors, without making the value: the
    /// expression is evaluated (fused) a part of the result's outer axis at
    /// a time, on the threads above the parallel threshold, and each part
    /// reduced while it is in cache.
    ///
    /// Parts along an axis the reduction keeps are parts of the result, so
    /// the result is bit for bit the one-call result (a `where` mask is cut
    /// with the leaves). Along a reduced outer axis the parts' results are
    /// combined: exactly for `min`, `max`, `all`, `any`, `count` and
    /// `NAME.reduce` (as its associativity declares); `sum`/`mean` of
    /// dense `float64` values over every axis fold with the `sum`
    /// reduction's own grouping (bit for bit); of ragged values, the
    /// parts' sums add pairwise; `var`/`std` of `float64` combine the
    /// parts' means and squared deviations in order (Chan, Golub and
    /// LeVeque). Those last two keep the plain reductions' accuracy rules
    /// (two passes, pairwise sums) and give the same bits on any number of
    /// threads, but not always the one call's last bits. Anything else
    /// (a `prod` across the outer axis, `initial` that would fold in more
    /// than once, `skip_na` with `var`) evaluates the expression first.
    ///
    /// ```
    /// use dynd::func::{builtins, Eval, AxisOptions};
    /// use dynd::nd::array;
    ///
    /// let x = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
    /// let std = builtins::STD.callable();
    /// let by_row = AxisOptions::new().axis(1);
    /// let r = (&x * 2.0).reduce(std, &by_row)?;
    /// let r2 = std.reduce_with(&(&x * 2.0).eval()?, &by_row)?;
    /// assert_eq!(r.to_string(), r2.to_string());
    /// assert_eq!((&x - 3.5).max()?.to_string(), "2.5");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Eval::eval`], then as the reduction's call.
    fn reduce(&self, reduction: &Callable, options: &AxisOptions) -> Result<Array, Error>;

    /// The mean of every element (the builtin `mean`; see [`Eval::reduce`]).
    ///
    /// # Errors
    ///
    /// As [`Eval::reduce`].
    fn mean(&self) -> Result<Array, Error> {
        self.reduce(crate::reductions::MEAN.callable(), &AxisOptions::new())
    }

    /// The least element (the builtin `min`; see [`Eval::reduce`]).
    ///
    /// # Errors
    ///
    /// As [`Eval::reduce`] (an empty value has no least element).
    fn min(&self) -> Result<Array, Error> {
        self.reduce(crate::reductions::MIN.callable(), &AxisOptions::new())
    }

    /// The greatest element (the builtin `max`; see [`Eval::reduce`]).
    ///
    /// # Errors
    ///
    /// As [`Eval::reduce`] (an empty value has no greatest element).
    fn max(&self) -> Result<Array, Error> {
        self.reduce(crate::reductions::MAX.callable(), &AxisOptions::new())
    }

    /// The standard deviation of every element (the builtin `std`, `ddof`
    /// 0; see [`Eval::reduce`]).
    ///
    /// # Errors
    ///
    /// As [`Eval::reduce`].
    fn std(&self) -> Result<Array, Error> {
        self.reduce(crate::reductions::STD.callable(), &AxisOptions::new())
    }

    /// [`Eval::reduce`] without its fallback: `None` when the reduction is
    /// not computed in parts (the expression is small, the reduction or
    /// its keywords do not allow it, the layout is not one the fused pass
    /// takes, or something failed). For tests and benchmarks that need to
    /// know which path ran.
    fn reduce_fused(&self, reduction: &Callable, options: &AxisOptions) -> Option<Array>;

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
    if let Expr::Leaf(a) | Expr::Scalar(a) = e {
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
/// `v` cast as the `cast` builtin does: a data type keeps `v`'s
/// dimensions; a type with dimensions is the result's whole type (`v`
/// broadcasts to it, as assignment does, or the cast is an error).
fn cast(v: &Array, ty: &Type) -> Result<Array, Error> {
    if ty.is_dim() {
        return v.cast(ty, ErrorMode::Fractional);
    }
    let full = Type::with_dims(v.ty().split_dims().0.into_iter().cloned(), ty.clone())?;
    v.cast(&full, ErrorMode::Fractional)
}

/// `e`'s value with only its arguments fused: the node itself called as
/// by hand.
fn eval_node(e: &Expr<'_>) -> Result<Array, Error> {
    match e {
        Expr::Leaf(a) | Expr::Scalar(a) => Ok((**a).clone()),
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

/// Below this many elements (of the largest leaf) an expression that the
/// one-loop paths ([`dense::small`]) do not take is evaluated node by node:
/// the fused pass's fixed cost (planning every
/// node, building the steps' kernels) is then more than the memory traffic
/// it saves. Measured on `a*b + c*d - e`: equal at about 3000 elements.
const FUSE_MIN: usize = 4096;

/// The element count of `e`'s largest leaf (`usize::MAX` for a ragged
/// one, whose count is not in its type).
fn size_hint(e: &Expr<'_>) -> usize {
    match e {
        Expr::Leaf(a) | Expr::Scalar(a) => size_hint_of(a),
        Expr::Unary(_, x) | Expr::Cast(_, x) => size_hint(x),
        Expr::Binary(_, xy) => size_hint(&xy.0).max(size_hint(&xy.1)),
        Expr::Call(_, args) => args.iter().map(size_hint).max().unwrap_or(0),
        _ => usize::MAX,
    }
}

/// [`size_hint`] of one array: its element count, `usize::MAX` with `var`
/// dimensions.
fn size_hint_of(a: &Array) -> usize {
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

/// `e` with its parts deeper than [`MAX_EVAL_DEPTH`] evaluated first
/// (owned), or `e` itself (borrowed) when no walk of it goes that deep:
/// the walks below recurse once per level.
fn shallow<'e, 'a>(e: &'e Expr<'a>) -> Result<Cow<'e, Expr<'a>>, Error> {
    e.evaluate_deep_parts(MAX_EVAL_DEPTH, &mut |part| part.eval())
}

/// `err` with the keepdims hint for the arrays `e` computes on.
fn hinted(err: Error, e: &Expr<'_>) -> Error {
    match err {
        Error::Kernel(_) => {
            let leaves = e.leaves();
            let tys: SmallVec<[&Type; 4]> = leaves.iter().map(|a| a.ty()).collect();
            crate::error::keepdims_hint(err, &tys)
        }
        other => other,
    }
}

impl Eval for Expr<'_> {
    #[inline]
    fn eval(&self) -> Result<Array, Error> {
        if let Expr::Leaf(a) | Expr::Scalar(a) = self {
            return Ok((**a).clone());
        }
        if let Some(r) = ladder::kept_as_written(self, &mut ladder::New) {
            return r.map_err(|e| hinted(e, self));
        }
        if let Cow::Owned(e) = weak::strong(self) {
            return e.eval();
        }
        ladder::run(self, &mut ladder::New).map_err(|e| hinted(e, self))
    }

    fn sum(&self) -> Result<Array, Error> {
        self.reduce(crate::reductions::SUM.callable(), &AxisOptions::new())
    }

    fn reduce(&self, reduction: &Callable, options: &AxisOptions) -> Result<Array, Error> {
        if let Some(r) = reduce_groups(self, reduction, options)? {
            return Ok(r);
        }
        if let Cow::Owned(e) = weak::strong(self) {
            return e.reduce(reduction, options);
        }
        if let Cow::Owned(e) = shallow(self)? {
            return e.reduce(reduction, options);
        }
        if !matches!(self, Expr::Leaf(_) | Expr::Scalar(_)) && size_hint(self) >= FUSE_MIN {
            if let Some(r) = reduce_in_parts(self, reduction, options) {
                return Ok(r);
            }
        }
        let v = self.eval()?;
        reduction.reduce_with(&v, options)
    }

    fn reduce_fused(&self, reduction: &Callable, options: &AxisOptions) -> Option<Array> {
        if matches!(self, Expr::Leaf(_) | Expr::Scalar(_)) {
            return None;
        }
        if let Cow::Owned(e) = weak::strong(self) {
            return e.reduce_fused(reduction, options);
        }
        if let Cow::Owned(e) = shallow(self).ok()? {
            return e.reduce_fused(reduction, options);
        }
        reduce_in_parts(self, reduction, options)
    }

    fn eval_fused(&self) -> Option<Array> {
        if let Cow::Owned(e) = weak::strong(self) {
            return e.eval_fused();
        }
        if let Cow::Owned(e) = shallow(self).ok()? {
            return e.eval_fused();
        }
        let (p, root, ty) = plan(self)?;
        p.eval(root, &ty).ok().flatten()
    }

    fn eval_into(&self, out: &mut Array) -> Result<(), Error> {
        if let Some(r) = ladder::kept_as_written(self, &mut ladder::Into(out)) {
            return r.map_err(|e| hinted(e, self));
        }
        if let Cow::Owned(e) = weak::strong(self) {
            return e.eval_into(out);
        }
        ladder::run(self, &mut ladder::Into(out)).map_err(|e| hinted(e, self))
    }

    fn eval_stepwise(&self) -> Result<Array, Error> {
        if let Cow::Owned(e) = weak::strong(self) {
            return e.eval_stepwise();
        }
        if let Cow::Owned(e) = shallow(self)? {
            return e.eval_stepwise();
        }
        stepwise(self, &mut 0).map(Cow::into_owned)
    }
}
