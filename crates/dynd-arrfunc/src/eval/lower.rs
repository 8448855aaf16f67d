//! The one lowering of an [`Expr`]: each node resolved as a call would
//! resolve it (the overload from the arguments' types, the casts to its
//! parameters, the result type), handed to a [`Target`] that builds what
//! runs it:
//!
//! - [`Fused`]: the fused program over blocks of the result
//!   ([`Program`]), which takes casts and computes the nodes it cannot
//!   fuse (gufuncs, keywords, whole-array functions) first, as leaves;
//! - [`Steps`]: the steps of one dense loop over the leaves
//!   ([`Dense`](dynd_kernels::fuse::Dense)), which takes only elementwise
//!   nodes over builtin scalars whose arguments need no conversion, and
//!   refuses anything else (the ladder's next rung then runs).

use super::*;
use dynd_kernels::elwise::Leaf;
use dynd_kernels::fuse::F64Arg;

/// What a lowering builds, one resolved node at a time.
pub(super) trait Target<'e> {
    /// A value the built thing computes: a leaf or a step's result.
    type Slot: Copy;

    /// Leaf array `a`.
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] for a leaf this target does not take.
    fn leaf(&mut self, a: &'e Array) -> Result<Self::Slot, Error>;

    /// `leaf` applied to `args`, which are of the overload's types
    /// (`as_is`: the node's arguments needed no conversion).
    ///
    /// # Errors
    ///
    /// An error of building the step, or a refusal.
    fn call(&mut self, leaf: &Leaf, args: &[Self::Slot], as_is: bool) -> Result<Self::Slot, Error>;

    /// `x` converted to data type `to`.
    ///
    /// # Errors
    ///
    /// An element conversion the target has no step for, or a refusal.
    fn cast(&mut self, x: Self::Slot, to: &Type) -> Result<Self::Slot, Error>;

    /// `e` computed apart (its value, not its nodes), with its type.
    ///
    /// # Errors
    ///
    /// An error computing it, or a refusal.
    fn apart(&mut self, e: &Expr<'_>) -> Result<(Self::Slot, Type), Error>;
}

/// The error a target refuses a node with (the ladder's next rung runs).
fn refused() -> Error {
    Error::Unsupported {
        operation: "this node in a dense loop",
        ty: Type::from(Scalar::Bool),
    }
}

/// `e` lowered into `t`: the slot of its value and its full type.
///
/// # Errors
///
/// An error resolving a node (no overload, a broadcast mismatch), or one
/// of `t`.
pub(super) fn lower<'e, T: Target<'e>>(
    t: &mut T,
    e: &'e Expr<'_>,
) -> Result<(T::Slot, Type), Error> {
    match e {
        Expr::Leaf(a) | Expr::Scalar(a) => Ok((t.leaf(a)?, a.ty().clone())),
        // A cast to a whole type is computed apart (its dimensions are the
        // cast's, not the operand's).
        Expr::Cast(ty, _) if ty.is_dim() => t.apart(e),
        Expr::Cast(ty, x) => {
            let (s, xt) = lower(t, x)?;
            let full = Type::with_dims(xt.split_dims().0.into_iter().cloned(), ty.clone())?;
            match t.cast(s, ty) {
                Ok(slot) => Ok((slot, full)),
                Err(_) => t.apart(e),
            }
        }
        _ => {
            let Some((c, args)) = call_of(e)? else {
                unreachable!("leaves and casts are handled above")
            };
            if c.whole_array_fn().is_some() || !c.keywords().is_empty() {
                return t.apart(e);
            }
            let lowered = args
                .iter()
                .map(|a| lower(t, a))
                .collect::<Result<SmallVec<[(T::Slot, Type); 4]>, Error>>()?;
            let types: SmallVec<[&Type; 4]> = lowered.iter().map(|(_, t)| t).collect();
            let resolution = c.resolved_types(&types)?;
            let o = &c.overloads()[resolution.index];
            let Body::Elementwise(leaf) = o.body() else {
                return t.apart(e);
            };
            // A string function reads its arguments' text blocks, which
            // only whole arrays have.
            if leaf.reads_text() {
                return t.apart(e);
            }
            let mut slots: SmallVec<[T::Slot; 4]> = SmallVec::new();
            for ((&(s, ref ty), target), &option) in lowered.iter().zip(o.inputs()).zip(o.options())
            {
                // The casts `Callable::call` makes: to the overload's
                // element type, an option staying one (NA propagates).
                let is_option = matches!(ty.dtype().kind(), TypeKind::Option(_));
                let value = match ty.dtype().kind() {
                    TypeKind::Option(inner) => inner.as_scalar(),
                    _ => ty.dtype().as_scalar(),
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
                slots.push(t.cast(s, &to)?);
            }
            let slot = t.call(leaf, &slots, resolution.as_is)?;
            Ok((slot, resolution.ty.clone()))
        }
    }
}

/// The fused program's [`Target`].
pub(super) struct Fused(pub(super) Program);

impl<'e> Target<'e> for Fused {
    type Slot = Slot;

    fn leaf(&mut self, a: &'e Array) -> Result<Slot, Error> {
        Ok(self.0.leaf(a))
    }

    fn call(&mut self, leaf: &Leaf, args: &[Slot], _: bool) -> Result<Slot, Error> {
        self.0.call(leaf, args)
    }

    fn cast(&mut self, x: Slot, to: &Type) -> Result<Slot, Error> {
        self.0.cast(x, to, ErrorMode::Fractional)
    }

    fn apart(&mut self, e: &Expr<'_>) -> Result<(Slot, Type), Error> {
        let v = eval_node(e)?;
        let ty = v.ty().clone();
        Ok((self.0.leaf(&v), ty))
    }
}

/// An expression's distinct leaves, in the order of their first use.
pub(super) type Leaves<'e> = SmallVec<[&'e Array; 8]>;

/// A dense loop's steps: each leaf and its arguments.
pub(super) type LeafSteps = SmallVec<[(Leaf, SmallVec<[F64Arg; 4]>); 8]>;

/// The index of array `a` among `leaves` (by address), added if new.
pub(super) fn leaf_index<'e>(leaves: &mut Leaves<'e>, a: &'e Array) -> usize {
    match leaves.iter().position(|l| std::ptr::eq(*l, a)) {
        Some(k) => k,
        None => {
            leaves.push(a);
            leaves.len() - 1
        }
    }
}

/// The dense loop's [`Target`]: its steps, over its distinct leaves.
pub(super) struct Steps<'e, 'l> {
    pub(super) steps: LeafSteps,
    pub(super) leaves: &'l mut Leaves<'e>,
}

impl<'e> Target<'e> for Steps<'e, '_> {
    type Slot = F64Arg;

    fn leaf(&mut self, a: &'e Array) -> Result<F64Arg, Error> {
        a.dtype().as_scalar().ok_or_else(refused)?;
        Ok(F64Arg::Leaf(leaf_index(self.leaves, a)))
    }

    fn call(&mut self, leaf: &Leaf, args: &[F64Arg], as_is: bool) -> Result<F64Arg, Error> {
        if !as_is || args.len() > 4 || leaf.inputs().len() != args.len() {
            return Err(refused());
        }
        self.steps.push((leaf.clone(), args.into()));
        Ok(F64Arg::Step(self.steps.len() - 1))
    }

    fn cast(&mut self, _: F64Arg, _: &Type) -> Result<F64Arg, Error> {
        Err(refused())
    }

    fn apart(&mut self, _: &Expr<'_>) -> Result<(F64Arg, Type), Error> {
        Err(refused())
    }
}

/// The fused program for `e`, its root and the result type; `None` when
/// some part could not be planned (the step-by-step evaluation then
/// reports it).
pub(super) fn plan(e: &Expr<'_>) -> Option<(Program, Slot, Type)> {
    let mut t = Fused(Program::new());
    let (root, ty) = lower(&mut t, e).ok()?;
    Some((t.0, root, ty))
}

/// `e` lowered to a dense loop's steps, its distinct leaves added to
/// `leaves` (empty at first), and the result type; `None` when a node is
/// not one the loop takes, or the last step is not the result.
pub(super) fn steps<'e>(e: &'e Expr<'_>, leaves: &mut Leaves<'e>) -> Option<(LeafSteps, Type)> {
    let mut t = Steps {
        steps: LeafSteps::new(),
        leaves,
    };
    let (root, ty) = lower(&mut t, e).ok()?;
    let last = t.steps.len().checked_sub(1)?;
    (root == F64Arg::Step(last)).then_some((t.steps, ty))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(n: usize) -> Array {
        Array::from_vec((0..n).map(|i| i as f64).collect::<Vec<_>>())
    }

    #[test]
    fn one_walk_feeds_both_targets() {
        let (a, b, c) = (v(8), v(8), v(8));
        // `a*b + c*a - b`: three distinct leaves, four steps, for both.
        let e = (&a * &b) + (&c * &a) - &b;
        let mut leaves = Leaves::new();
        let (s, ty) = steps(&e, &mut leaves).expect("plain arithmetic lowers to steps");
        assert_eq!((s.len(), leaves.len()), (4, 3));
        assert_eq!(ty.to_string(), "8 * float64");
        let (p, _, ty2) = plan(&e).expect("and to the fused program");
        assert_eq!((p.steps(), p.leaves().len(), ty2), (4, 3, ty));

        // An argument of another type: the program casts it, the dense
        // loop refuses (its arguments need no conversion).
        let i = Array::from_vec((0..8i32).collect::<Vec<_>>());
        let e = &a + &i;
        assert!(steps(&e, &mut Leaves::new()).is_none());
        let (p, _, ty) = plan(&e).expect("a cast is a step of the program");
        assert_eq!((p.steps(), ty.to_string()), (2, "8 * float64".into()));

        // A node of no elementwise body: computed apart for the program,
        // refused by the dense loop; an unresolvable node fails both.
        let m = Array::from_vec(vec![1.0, 2.0, 3.0, 4.0])
            .reshape([2, 2])
            .unwrap();
        let dot = crate::builtins::get("matmul").unwrap();
        let e = dot.expr([&m, &m]) + 1.0;
        assert!(steps(&e, &mut Leaves::new()).is_none());
        assert!(plan(&e).is_some());
        assert!(plan(&(&a + &v(3))).is_none());
    }
}
