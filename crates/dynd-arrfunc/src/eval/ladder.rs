//! The one way an expression is evaluated ([`run`]): into a new array
//! ([`New`]) or into an existing one ([`Into`]), the same ladder of
//! strategies, cheapest first:
//!
//! 1. one call of arrays, small: the call itself (its flat plan);
//! 2. an expression of a shape evaluated before: its kept loop;
//! 3. (parts deeper than the walks' bound evaluated first, then again;)
//! 4. small, on one thread: one loop over the leaves ([`dense::small`]);
//! 5. large: the fused program, a block at a time;
//! 6. node by node, each call making its value (the reference, and the
//!    path that reports errors).

use super::*;
use dynd_kernels::fuse::Dense;

/// Where an evaluation's value goes: what differs between
/// [`Eval::eval`] and [`Eval::eval_into`] on each rung of [`run`].
pub(super) trait Dest {
    /// What an evaluation into this destination gives.
    type Out;

    /// `c` called on `args`.
    fn call(&mut self, c: &Callable, args: &[&Array]) -> Result<Self::Out, Error>;

    /// The dense loop `d` over `leaves`; `None` where it does not take
    /// them.
    fn dense(&mut self, d: &Dense, leaves: &[&Array]) -> Option<Result<Self::Out, Error>>;

    /// The fused program `p` for `e` (its result in `root`, of type
    /// `ty`); `None` where it does not take it.
    fn fused(
        &mut self,
        p: &Program,
        root: Slot,
        ty: Type,
        e: &Expr<'_>,
    ) -> Option<Result<Self::Out, Error>>;

    /// A value computed on the way.
    fn value(&mut self, v: Cow<'_, Array>) -> Result<Self::Out, Error>;

    /// `e` (a rewritten expression) evaluated from the top.
    fn again(&mut self, e: &Expr<'_>) -> Result<Self::Out, Error>;
}

/// A new array: [`Eval::eval`].
pub(super) struct New;

impl Dest for New {
    type Out = Array;

    fn call(&mut self, c: &Callable, args: &[&Array]) -> Result<Array, Error> {
        c.call(args)
    }

    fn dense(&mut self, d: &Dense, leaves: &[&Array]) -> Option<Result<Array, Error>> {
        d.eval(leaves).transpose()
    }

    fn fused(
        &mut self,
        p: &Program,
        root: Slot,
        ty: Type,
        _: &Expr<'_>,
    ) -> Option<Result<Array, Error>> {
        p.eval(root, &ty).ok().flatten().map(Ok)
    }

    fn value(&mut self, v: Cow<'_, Array>) -> Result<Array, Error> {
        Ok(v.into_owned())
    }

    fn again(&mut self, e: &Expr<'_>) -> Result<Array, Error> {
        e.eval()
    }
}

/// An existing array: [`Eval::eval_into`].
pub(super) struct Into<'o>(pub(super) &'o mut Array);

impl Dest for Into<'_> {
    type Out = ();

    fn call(&mut self, c: &Callable, args: &[&Array]) -> Result<(), Error> {
        c.call_into(self.0, args)
    }

    fn dense(&mut self, d: &Dense, leaves: &[&Array]) -> Option<Result<(), Error>> {
        match d.eval_into(leaves, self.0) {
            Ok(true) => Some(Ok(())),
            Ok(false) => None,
            Err(e) => Some(Err(e)),
        }
    }

    fn fused(
        &mut self,
        p: &Program,
        root: Slot,
        ty: Type,
        e: &Expr<'_>,
    ) -> Option<Result<(), Error>> {
        let out = &mut *self.0;
        // As `Callable::call_into`: the result's type, or dimensions it
        // broadcasts to over its data type.
        if !crate::callable::out_fits(out, &ty, &[&ty]) {
            return Some(Err(Error::Out {
                name: e.to_string(),
                out: out.ty().clone(),
                result: ty,
            }));
        }
        // A failure falls through to the node-by-node path, which names
        // the node.
        matches!(p.eval_into(root, out), Ok(true)).then_some(Ok(()))
    }

    fn value(&mut self, v: Cow<'_, Array>) -> Result<(), Error> {
        self.0.assign(&v, ErrorMode::Fractional)
    }

    fn again(&mut self, e: &Expr<'_>) -> Result<(), Error> {
        e.eval_into(self.0)
    }
}

/// `e` (with no weak scalars left: see [`weak::strong`]) evaluated into
/// `d`: the module's ladder.
pub(super) fn run<D: Dest>(e: &Expr<'_>, d: &mut D) -> Result<D::Out, Error> {
    // One call over arrays (`&a + &b`, two levels: never deep), small:
    // the call itself, with nothing to plan or fuse.
    if let Some(r) = one_call(e, d) {
        return r;
    }
    // A small expression evaluated before (in a loop, say): its kept
    // loop, with no other walk.
    if let Some(r) = dense::kept(e, d) {
        return r;
    }
    if let Cow::Owned(e) = shallow(e)? {
        return d.again(&e);
    }
    let n = size_hint(e);
    if n < PARALLEL_MIN && !matches!(e, Expr::Leaf(_) | Expr::Scalar(_)) {
        // Serial either way: one loop over the leaves where it applies.
        if let Some(r) = dense::small(e, d) {
            return r;
        }
    }
    if n >= FUSE_MIN {
        if let Some(r) = fused(e, d) {
            return r;
        }
    }
    by_node(e, d)
}

/// The rung before [`run`], for `e` as written (its weak scalars not yet
/// typed): a small expression of a kept shape, without weak scalars,
/// runs its loop after one walk (the match), which is also the walk that
/// finds it has no weak scalars to type. One call over arrays is left to
/// [`run`]'s first rung, which is cheaper.
#[inline]
pub(super) fn kept_as_written<D: Dest>(e: &Expr<'_>, d: &mut D) -> Option<Result<D::Out, Error>> {
    match e {
        Expr::Leaf(_) | Expr::Scalar(_) => None,
        Expr::Binary(_, xy) if xy.0.is_leaf() && xy.1.is_leaf() => None,
        Expr::Unary(_, x) if x.is_leaf() => None,
        _ => dense::kept_as_written(e, d),
    }
}

/// The fused rung of [`run`] (kept out of line, so the small cases stay
/// plain calls).
#[inline(never)]
fn fused<D: Dest>(e: &Expr<'_>, d: &mut D) -> Option<Result<D::Out, Error>> {
    let (p, root, ty) = plan(e)?;
    d.fused(&p, root, ty, e)
}

/// The last rung of [`run`]: `e`'s arguments node by node, then its own
/// call into `d`.
fn by_node<D: Dest>(e: &Expr<'_>, d: &mut D) -> Result<D::Out, Error> {
    if let Expr::Leaf(_) | Expr::Scalar(_) | Expr::Cast(..) = e {
        return d.value(stepwise(e, &mut 0)?);
    }
    let Some((c, args)) = call_of(e)? else {
        unreachable!("leaves and casts are handled above")
    };
    let mut next = 0;
    let values = args
        .iter()
        .map(|a| stepwise(a, &mut next))
        .collect::<Result<SmallVec<[Cow<'_, Array>; 4]>, Error>>()?;
    let refs: SmallVec<[&Array; 4]> = values.iter().map(|v| &**v).collect();
    d.call(c, &refs).map_err(|err| named(e, 0, err))
}

/// `e` evaluated into `d` as one call, when it is one node whose operands
/// are all arrays, of fewer than [`FUSE_MIN`] elements (`None`
/// otherwise). No collection is made: this is every small operator call's
/// path.
#[inline]
fn one_call<D: Dest>(e: &Expr<'_>, d: &mut D) -> Option<Result<D::Out, Error>> {
    fn leaf<'e>(x: &'e Expr<'_>) -> Option<&'e Array> {
        match x {
            Expr::Leaf(a) | Expr::Scalar(a) => Some(&**a),
            _ => None,
        }
    }
    let small = |a: &Array| size_hint_of(a) < FUSE_MIN;
    let r = match e {
        Expr::Binary(op, xy) => {
            let (a, b) = (leaf(&xy.0)?, leaf(&xy.1)?);
            if !small(a) || !small(b) {
                return None;
            }
            d.call(binary(*op), &[a, b])
        }
        Expr::Unary(op, x) => {
            let a = leaf(x).filter(|a| small(a))?;
            d.call(unary(*op), &[a])
        }
        Expr::Call(f, args) => {
            let c = f.0.as_any().downcast_ref::<Callable>()?;
            let (first, rest) = args.split_first()?;
            let mut arrays = [leaf(first)?; 4];
            if rest.len() >= arrays.len() || !small(arrays[0]) {
                return None;
            }
            for (slot, x) in arrays[1..].iter_mut().zip(rest) {
                *slot = leaf(x).filter(|a| small(a))?;
            }
            d.call(c, &arrays[..args.len()])
        }
        _ => return None,
    };
    Some(r.map_err(|err| named(e, 0, err)))
}
