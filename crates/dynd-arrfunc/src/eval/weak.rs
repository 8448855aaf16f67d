//! NumPy 2's weak scalars (NEP 50) in expressions: before an expression
//! is evaluated, each [`Expr::Scalar`] (a Rust number or a `dynd eval`
//! literal) beside other operands takes the type those operands give it.
//!
//! The rule, from the operands' promoted data type `T` (`?T` counts as
//! `T`) and the scalar's kind:
//! - an integer next to integers takes `T` where its value fits
//!   (`int8` data `+ 1` is `int8`); one that does not fit stays as it is,
//!   so the result widens as before (NumPy raises for arithmetic, and
//!   compares exactly);
//! - an integer next to floats or complex numbers takes `T`;
//! - a float next to floats or complex numbers takes `T` (`float32` data
//!   `* 1.0` is `float32`); next to integers or `bool` it stays `float64`;
//! - next to `bool` an integer stays as it is;
//! - scalars only among themselves keep their own types, and so does
//!   every scalar of a node whose other operands' types are not known
//!   before evaluation (a function over whole arrays, one with keywords).

use std::borrow::Cow;
use std::collections::HashMap;

use dynd_kernels::expr::Expr;
use dynd_kernels::{Array, ArrayOps, ErrorMode};
use dynd_types::{promote_scalars, Scalar, ScalarCategory, Type, TypeKind};

use super::call_of;

/// `e` with its weak scalars converted as the module docs say, each
/// settled into an array leaf (so evaluating the result does not type the
/// tree again); `e` itself when it holds none or none changes type.
pub(super) fn strong<'e, 'a>(e: &'e Expr<'a>) -> Cow<'e, Expr<'a>> {
    if !e.has_scalars() {
        return Cow::Borrowed(e);
    }
    let mut converted = conversions(e);
    if converted.is_empty() {
        return Cow::Borrowed(e);
    }
    Cow::Owned(e.settle_scalars(|a| converted.remove(&address(a))))
}

/// A leaf's identity while the tree is borrowed.
fn address(a: &Array) -> usize {
    a as *const Array as usize
}

/// What a node's value is known to be before evaluation.
enum Kind {
    /// An array of this type.
    Strong(Type),
    /// A weak scalar of this number type (the leaf's own).
    Weak(Scalar),
    /// Not known (a function over whole arrays, an error to come).
    Unknown,
}

/// The converted value of each weak scalar that changes type, by address.
fn conversions(root: &Expr<'_>) -> HashMap<usize, Array> {
    let mut out = HashMap::new();
    // Post-order without recursion: a node is visited again once its
    // operands' kinds are on `kinds`.
    let mut todo: Vec<(&Expr<'_>, bool)> = vec![(root, false)];
    let mut kinds: Vec<Kind> = Vec::new();
    while let Some((e, ready)) = todo.pop() {
        let operands = e.operands();
        if !ready && !operands.is_empty() {
            todo.push((e, true));
            todo.extend(operands.iter().rev().map(|x| (*x, false)));
            continue;
        }
        let kind = match e {
            Expr::Scalar(a) => {
                weak_kind(a).map_or_else(|| Kind::Strong(a.ty().clone()), Kind::Weak)
            }
            Expr::Leaf(a) => Kind::Strong(a.ty().clone()),
            _ => {
                let mut args = kinds.split_off(kinds.len() - operands.len());
                node_kind(e, &operands, &mut args, &mut out)
            }
        };
        kinds.push(kind);
    }
    out
}

/// The number type a scalar leaf is weak as: integers and floats (not
/// `bool` or complex, which NumPy's Python scalars of those kinds do not
/// cover here).
fn weak_kind(a: &Array) -> Option<Scalar> {
    let s = a.ty().as_scalar()?;
    matches!(
        s.category(),
        ScalarCategory::SignedInt | ScalarCategory::UnsignedInt | ScalarCategory::Float
    )
    .then_some(s)
}

/// A node's kind from its operands' (`args`, in order), converting its
/// weak scalar operands into `out` where the rule says.
fn node_kind(
    e: &Expr<'_>,
    operands: &[&Expr<'_>],
    args: &mut [Kind],
    out: &mut HashMap<usize, Array>,
) -> Kind {
    if let Expr::Cast(ty, _) = e {
        return match &args[0] {
            _ if ty.is_dim() => Kind::Strong(ty.clone()),
            Kind::Strong(t) => Type::with_dims(t.split_dims().0.into_iter().cloned(), ty.clone())
                .map_or(Kind::Unknown, Kind::Strong),
            Kind::Weak(_) => Kind::Strong(ty.clone()),
            Kind::Unknown => Kind::Unknown,
        };
    }
    // NEP 50 is the ufuncs' rule: functions over whole arrays and calls
    // with keywords take their arguments as they are.
    let Ok(Some((c, _))) = call_of(e) else {
        return Kind::Unknown;
    };
    if !c.fuses() || args.iter().any(|k| matches!(k, Kind::Unknown)) {
        return Kind::Unknown;
    }
    // The strong operands' promoted number type.
    let strong = args.iter().filter_map(|k| match k {
        Kind::Strong(t) => Some(t),
        _ => None,
    });
    let mut target = None;
    let mut plain = true;
    for t in strong {
        let dtype = match t.dtype().kind() {
            TypeKind::Option(inner) => inner.as_scalar(),
            _ => t.dtype().as_scalar(),
        };
        match (dtype, target) {
            (Some(s), None) if s.is_numeric() => target = Some(s),
            (Some(s), Some(t)) if s.is_numeric() => target = promote_scalars(s, t),
            _ => plain = false,
        }
    }
    if let (Some(target), true) = (target, plain) {
        for (k, x) in args.iter_mut().zip(operands) {
            let (Kind::Weak(s), Expr::Scalar(a)) = (&*k, x) else {
                continue;
            };
            let Some(to) = weak_type(*s, target).filter(|to| to != s) else {
                continue;
            };
            let int_to_int = is_int(*s) && is_int(to);
            let mode = if int_to_int {
                ErrorMode::Overflow
            } else {
                ErrorMode::NoCheck
            };
            if let Ok(v) = a.cast(&Type::from(to), mode) {
                *k = Kind::Strong(v.ty().clone());
                out.insert(address(a), v);
            }
        }
    }
    let types: Option<Vec<Type>> = args
        .iter()
        .map(|k| match k {
            Kind::Strong(t) => Some(t.clone()),
            Kind::Weak(s) => Some(Type::from(*s)),
            Kind::Unknown => None,
        })
        .collect();
    let Some(types) = types else {
        return Kind::Unknown;
    };
    let refs: Vec<&Type> = types.iter().collect();
    c.resolved_types(&refs)
        .map_or(Kind::Unknown, |r| Kind::Strong(r.ty.clone()))
}

fn is_int(s: Scalar) -> bool {
    matches!(
        s.category(),
        ScalarCategory::SignedInt | ScalarCategory::UnsignedInt
    )
}

/// The type a weak scalar of type `s` takes beside operands of `target`.
fn weak_type(s: Scalar, target: Scalar) -> Option<Scalar> {
    use ScalarCategory::*;
    match (s.category(), target.category()) {
        (SignedInt | UnsignedInt, SignedInt | UnsignedInt | Float | Complex) => Some(target),
        (Float, Float | Complex) => Some(target),
        (Float, Bool | SignedInt | UnsignedInt) => Some(Scalar::Float64),
        _ => None,
    }
}
