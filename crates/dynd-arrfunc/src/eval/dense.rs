//! Small expressions over dense arrays ([`small`]): lowered to a
//! list of steps, then one loop over the leaves, a chunk at a time
//! ([`Dense`]: plain `float64` arithmetic with each operation's loop
//! compiled in, pairs fused; any other expression of elementwise builtins
//! over builtin numbers and `bool` with the leaves' own loops).
//!
//! Lowering resolves every node as a call would, which costs more than
//! the loop itself for a thousand elements. So each thread keeps the
//! lowerings of the last few expression shapes it evaluated: the tree's
//! operators and callables, its leaves' types and which leaves are the
//! same array. An expression of a kept shape (the same expression
//! evaluated again in a loop, over new arrays of the same types) reuses
//! the steps, their loop already built, after one walk that compares it
//! to the shape.

use std::cell::RefCell;

use smallvec::SmallVec;

use dynd_kernels::elwise::Leaf;
use dynd_kernels::elwise::PARALLEL_MIN;
use dynd_kernels::expr::{BinaryOp, Expr, UnaryOp};
use dynd_kernels::fuse::{Dense, F64Arg};
use dynd_kernels::Array;
use dynd_types::{Scalar, Type};

use super::ladder::Dest;
use super::lower::{self, leaf_index, LeafSteps, Leaves};
use crate::callable::Callable;
use crate::error::Error;

/// The value of `e` into `d` when it is elementwise builtins over
/// C-contiguous arrays of one shape (or 0-d) whose nodes need no
/// conversion of their arguments: one loop over the leaves, no kernel
/// built and no intermediate array (what makes small expressions cheaper
/// than the calls). Each node is resolved as a call would be; any other
/// node, conversion, layout or shape gives `None`, and the general
/// evaluation (which reports errors) runs instead.
pub(super) fn small<D: Dest>(e: &Expr<'_>, d: &mut D) -> Option<Result<D::Out, Error>> {
    with_lowered(e, |dense, leaves| d.dense(dense, leaves)).flatten()
}

/// [`small`] for an expression of a kept shape whose result is small
/// enough to evaluate on one thread, and `None` for any other: tried
/// before any other walk of `e`. Matching walks no deeper than the kept
/// shape, which was lowered from a tree of bounded depth, and the leaves'
/// types it compares fix the result's size; so neither the depth bound
/// nor the size walk is needed first.
pub(super) fn kept<D: Dest>(e: &Expr<'_>, d: &mut D) -> Option<Result<D::Out, Error>> {
    with_kept::<true, _>(e, |dense, leaves| d.dense(dense, leaves)).flatten()
}

/// [`kept`] for `e` as written, before its weak scalars are typed
/// ([`super::weak::strong`]): only an expression without weak scalars
/// matches (`None` for any other), whose types are then its leaves' own,
/// so the walk that looks for weak scalars is this match. (One with weak
/// scalars cannot match before they are typed: whether an integer
/// scalar takes its neighbours' type depends on its value.)
pub(super) fn kept_as_written<D: Dest>(e: &Expr<'_>, d: &mut D) -> Option<Result<D::Out, Error>> {
    with_kept::<false, _>(e, |dense, leaves| d.dense(dense, leaves)).flatten()
}

/// One node of a [`Shape`], in preorder.
enum Token {
    /// A leaf of this type, the `k`th distinct array of the expression.
    Leaf(Type, usize),
    /// An operator node.
    Unary(UnaryOp),
    /// An operator node.
    Binary(BinaryOp),
    /// A call of this callable (kept, so its identity stays its own) on
    /// this many operands.
    Call(Callable, usize),
}

/// A lowered expression, its loop built, and what another must match to
/// share it.
struct Shape {
    tokens: SmallVec<[Token; 12]>,
    dense: Dense,
}

/// How many shapes a thread keeps: a loop body evaluating a few
/// expressions finds each of them.
const KEPT: usize = 4;

thread_local! {
    /// This thread's last [`KEPT`] shapes, newest first.
    static SHAPES: RefCell<Vec<Shape>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` on `e`'s loop and distinct leaves: those of a kept shape `e`
/// matches, or lowered now (and kept); `None` when `e` does not lower.
fn with_lowered<R>(e: &Expr<'_>, f: impl FnOnce(&Dense, &[&Array]) -> R) -> Option<R> {
    let mut leaves = Leaves::new();
    SHAPES.with(|cell| {
        // A thread already inside this function (an evaluator called
        // back) lowers without the kept shapes.
        let Ok(mut shapes) = cell.try_borrow_mut() else {
            let dense = lower_loop(e, &mut leaves)?;
            return Some(f(&dense, &leaves));
        };
        let hit = shapes.iter().position(|s| {
            leaves.clear();
            let mut at = 0;
            matches::<true>(e, &s.tokens, &mut at, &mut leaves) && at == s.tokens.len()
        });
        let at = match hit {
            Some(k) => k,
            None => {
                leaves.clear();
                let dense = lower_loop(e, &mut leaves)?;
                let mut tokens = SmallVec::new();
                tokenize(e, &leaves, &mut tokens);
                shapes.truncate(KEPT - 1);
                shapes.insert(0, Shape { tokens, dense });
                0
            }
        };
        Some(f(&shapes[at].dense, &leaves))
    })
}

/// `e`'s loop, its distinct leaves added to `leaves` (empty at first):
/// the `float64` one where it is plain `float64` arithmetic, the leaves'
/// own loops otherwise; `None` when it lowers to neither.
fn lower_loop<'e>(e: &'e Expr<'_>, leaves: &mut Leaves<'e>) -> Option<Dense> {
    let (steps, ty) = lower::steps(e, leaves)?;
    let steps = shared_steps(steps);
    let args: SmallVec<[(&Leaf, &[F64Arg]); 8]> = steps.iter().map(|(l, a)| (l, &a[..])).collect();
    let dtypes: SmallVec<[Type; 8]> = leaves.iter().map(|a| a.dtype().clone()).collect();
    Dense::new(&args, &dtypes, &ty)
}

/// Runs `f` on the loop of a kept shape `e` matches, of a result below
/// [`PARALLEL_MIN`] elements, and `e`'s distinct leaves; `None` when there
/// is none (nothing lowered or kept). `TYPED` says `e`'s weak scalars are
/// typed already; where it is not, a weak scalar matches nothing.
fn with_kept<const TYPED: bool, R>(
    e: &Expr<'_>,
    f: impl FnOnce(&Dense, &[&Array]) -> R,
) -> Option<R> {
    let mut leaves = Leaves::new();
    SHAPES.with(|cell| {
        let shapes = cell.try_borrow().ok()?;
        let s = shapes.iter().find(|s| {
            leaves.clear();
            let mut at = 0;
            s.dense.len() < PARALLEL_MIN
                && matches::<TYPED>(e, &s.tokens, &mut at, &mut leaves)
                && at == s.tokens.len()
        })?;
        Some(f(&s.dense, &leaves))
    })
}

/// Whether `e` matches `tokens` from `*at` on (advanced past its nodes),
/// collecting its distinct leaves; a weak scalar matches only where
/// `TYPED` (see [`with_kept`]). Recurses once per level, as lowering does
/// (the evaluator bounds the depth first, or the kept shape bounds the
/// walk).
fn matches<'e, const TYPED: bool>(
    e: &'e Expr<'_>,
    tokens: &[Token],
    at: &mut usize,
    leaves: &mut Leaves<'e>,
) -> bool {
    let Some(token) = next_token(tokens, at) else {
        return false;
    };
    // A leaf operand is matched here, without a call (most operands of
    // a small expression are leaves).
    let mut next = |x: &'e Expr<'_>| match x {
        Expr::Leaf(_) | Expr::Scalar(_) => {
            next_token(tokens, at).is_some_and(|t| leaf_matches::<TYPED>(x, t, leaves))
        }
        _ => matches::<TYPED>(x, tokens, at, leaves),
    };
    match (e, token) {
        (Expr::Leaf(_) | Expr::Scalar(_), _) => leaf_matches::<TYPED>(e, token, leaves),
        (Expr::Unary(op, x), Token::Unary(want)) => op == want && next(x),
        (Expr::Binary(op, xy), Token::Binary(want)) => op == want && next(&xy.0) && next(&xy.1),
        (Expr::Call(g, args), Token::Call(c, n)) => {
            args.len() == *n
                && g.0
                    .as_any()
                    .downcast_ref::<Callable>()
                    .is_some_and(|g| g.resolves_as(c))
                && args.iter().all(next)
        }
        _ => false,
    }
}

/// The token at `*at`, if any, with `*at` advanced past it.
#[inline(always)]
fn next_token<'t>(tokens: &'t [Token], at: &mut usize) -> Option<&'t Token> {
    let token = tokens.get(*at)?;
    *at += 1;
    Some(token)
}

/// Whether the leaf `e` matches `token` (a weak scalar only where
/// `TYPED`, as in [`fn@matches`]), collecting it into `leaves`.
#[inline(always)]
fn leaf_matches<'e, const TYPED: bool>(
    e: &'e Expr<'_>,
    token: &Token,
    leaves: &mut Leaves<'e>,
) -> bool {
    let a = match e {
        Expr::Leaf(a) => a,
        Expr::Scalar(a) if TYPED => a,
        _ => return false,
    };
    matches!(token, Token::Leaf(ty, k) if a.ty() == ty && leaf_index(leaves, a) == *k)
}

/// `e`'s nodes in preorder as [`Token`]s (`e` lowered, with `leaves` its
/// distinct leaves).
fn tokenize(e: &Expr<'_>, leaves: &[&Array], out: &mut SmallVec<[Token; 12]>) {
    match e {
        Expr::Leaf(a) | Expr::Scalar(a) => {
            let k = leaves.iter().position(|l| std::ptr::eq(*l, &**a));
            out.push(Token::Leaf(a.ty().clone(), k.unwrap_or(usize::MAX)));
        }
        Expr::Unary(op, x) => {
            out.push(Token::Unary(*op));
            tokenize(x, leaves, out);
        }
        Expr::Binary(op, xy) => {
            out.push(Token::Binary(*op));
            tokenize(&xy.0, leaves, out);
            tokenize(&xy.1, leaves, out);
        }
        Expr::Call(g, args) => {
            let c = g.0.as_any().downcast_ref::<Callable>();
            // Lowering took only dynd callables.
            out.push(match c {
                Some(c) => Token::Call(c.clone(), args.len()),
                None => Token::Leaf(Type::from(Scalar::Bool), usize::MAX),
            });
            for x in args {
                tokenize(x, leaves, out);
            }
        }
        // Lowering takes no other node; one that never matches.
        _ => out.push(Token::Leaf(Type::from(Scalar::Bool), usize::MAX)),
    }
}

/// `steps` with a step equal to an earlier one (the same plain `float64`
/// operation on the same arguments) dropped for that one, computed once;
/// `steps` as they are where the last step would go (it is the result).
fn shared_steps(steps: LeafSteps) -> LeafSteps {
    let mut out = LeafSteps::new();
    // Where each of `steps` went in `out`.
    let mut at: SmallVec<[usize; 8]> = SmallVec::new();
    for (leaf, args) in &steps {
        let args: SmallVec<[F64Arg; 4]> = args
            .iter()
            .map(|&a| match a {
                F64Arg::Step(i) => F64Arg::Step(at[i]),
                leaf => leaf,
            })
            .collect();
        let op = leaf.as_f64_op();
        let same = out
            .iter()
            .position(|(l, a)| op.is_some() && l.as_f64_op() == op && *a == args);
        at.push(match same {
            Some(j) => j,
            None => {
                out.push((leaf.clone(), args));
                out.len() - 1
            }
        });
    }
    if at.last() == Some(&(out.len() - 1)) {
        out
    } else {
        steps
    }
}
