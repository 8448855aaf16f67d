//! A callable resolved once for the types of its arguments.

use super::*;

/// A callable resolved for arguments of given types (see
/// [`Callable::prepare`]): the overload, the result type and the flat
/// loop are found once, so each call only checks that its arguments have
/// those types, allocates the result and runs. It is `Send + Sync`: one
/// prepared call serves many threads.
///
/// ```
/// use dynd::func::builtins;
/// use dynd::nd::Array;
///
/// let x = Array::from_vec(vec![1.0f64, 2.0]);
/// let add = builtins::get("add")?.prepare(&[x.ty(), x.ty()])?;
/// assert_eq!(add.ty().to_string(), "2 * float64");
/// for k in 0..3 {
///     let y = Array::from_vec(vec![k as f64; 2]);
///     assert_eq!(add.call(&[&x, &y])?.to_vec::<f64>()?, [1.0 + k as f64, 2.0 + k as f64]);
/// }
/// // Arguments of other types are refused, naming what was prepared.
/// let e = add.call(&[&x, &Array::from_vec(vec![1i32, 2])]).unwrap_err();
/// assert_eq!(
///     e.to_string(),
///     "argument 1 has data type 2 * int32, but add as prepared for (2 * float64, 2 * float64) takes 2 * float64"
/// );
/// # Ok::<(), dynd::Error>(())
/// ```
#[derive(Clone)]
pub struct Prepared {
    callable: Callable,
    types: Vec<Type>,
    resolution: Resolution,
}

impl std::fmt::Debug for Prepared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Prepared")
            .field("callable", &self.callable.name())
            .field("types", &self.types)
            .field("result", &self.resolution.ty)
            .finish()
    }
}

impl Callable {
    /// This callable resolved for arguments of types `types` (see
    /// [`Prepared`]).
    ///
    /// # Errors
    ///
    /// As [`Callable::resolve`] (no overload takes the types, shapes that
    /// do not broadcast); [`Error::Unsupported`] for a function callable
    /// (a reduction, `sort`, ...) or one with keywords, whose result
    /// depends on more than the types.
    pub fn prepare(&self, types: &[&Type]) -> Result<Prepared, Error> {
        if self.whole_array_fn().is_some() || !self.keywords.is_empty() {
            return Err(Error::Unsupported {
                operation: "preparing a function callable or one with keywords (only typed overloads are prepared)",
                ty: self.signatures().into_iter().next().unwrap_or_else(|| Type::from(Scalar::Bool)),
            });
        }
        let resolution = (*self.resolved_types(types)?).clone();
        Ok(Prepared {
            callable: self.clone(),
            types: types.iter().map(|t| (*t).clone()).collect(),
            resolution,
        })
    }
}

impl Prepared {
    /// The result type.
    pub fn ty(&self) -> &Type {
        &self.resolution.ty
    }

    /// The argument types it was prepared for.
    pub fn arg_types(&self) -> &[Type] {
        &self.types
    }

    /// Calls it on arrays of the prepared types, allocating the result.
    ///
    /// # Errors
    ///
    /// [`Error::Arity`] or [`Error::ArgumentType`] for arguments of other
    /// types; otherwise as [`Callable::call`].
    pub fn call(&self, args: &[&Array]) -> Result<Array, Error> {
        self.check(args)?;
        self.callable
            .call_resolved(&self.resolution, args)
            .map_err(|e| hinted(e, args))
    }

    /// Calls it writing into `out` (as [`Callable::call_into`]).
    ///
    /// # Errors
    ///
    /// As [`Prepared::call`], and [`Error::Out`] for an `out` of another
    /// type than the result's.
    pub fn call_into(&self, out: &mut Array, args: &[&Array]) -> Result<(), Error> {
        self.check(args)?;
        self.callable
            .call_resolved_into(&self.resolution, out, args)
            .map_err(|e| hinted(e, args))
    }

    /// The arguments have the prepared types.
    #[inline]
    fn check(&self, args: &[&Array]) -> Result<(), Error> {
        if args.len() == self.types.len() && args.iter().zip(&self.types).all(|(a, t)| a.ty() == t)
        {
            return Ok(());
        }
        Err(self.mismatch(args))
    }

    /// What is wrong with arguments that do not have the prepared types.
    #[cold]
    fn mismatch(&self, args: &[&Array]) -> Error {
        if args.len() != self.types.len() {
            return Error::Arity {
                name: self.callable.name().to_string(),
                expected: self.types.len(),
                found: args.len(),
            };
        }
        let k = (args.iter().zip(&self.types))
            .position(|(a, t)| a.ty() != t)
            .unwrap_or_default();
        let types: Vec<String> = self.types.iter().map(Type::to_string).collect();
        Error::ArgumentType {
            arg: k,
            found: args[k].ty().clone(),
            expected: self.types[k].clone(),
            what: format!(
                "{} as prepared for ({})",
                self.callable.name(),
                types.join(", ")
            ),
        }
    }
}
