//! Calling a callable: the overload resolved (and cached) for the
//! arguments' types, then its flat plan when the arguments walk the result
//! as one loop, else the general path (casts, broadcasting, kernels, ragged
//! rows), into a new array or into `out`.

use dynd_kernels::elwise::{apply_core, apply_general, apply_general_into, apply_typed};
use dynd_kernels::{Array, ArrayOps, ErrorMode};
use dynd_types::{broadcast, BroadcastMode, Type};

use super::{hinted, Body, Callable, Overload, Resolution};
use crate::error::Error;

impl Callable {
    /// Calls the callable on arrays, allocating the result. A callable with
    /// keywords takes either every argument in order, or the positional
    /// ones alone (the keywords then take their defaults, as in
    /// [`Callable::call_kw`] with none given).
    ///
    /// # Errors
    ///
    /// As [`Callable::resolve`], and kernel errors (a ragged row that does
    /// not fit names the row and both lengths).
    pub fn call(&self, args: &[&Array]) -> Result<Array, Error> {
        self.call_args(args).map_err(|e| hinted(e, args))
    }

    fn call_args(&self, args: &[&Array]) -> Result<Array, Error> {
        if let Some(r) = self.compare_records(args) {
            return r;
        }
        if self.whole_array_fn().is_none() {
            if let Some(r) = self.over_categories(args) {
                return r;
            }
        }
        // Function callables take keywords by name; overloads with keywords
        // given only the positional arguments take the keywords' defaults.
        if self.whole_array_fn().is_some()
            || (!self.keywords.is_empty() && args.len() + self.keywords.len() == self.arity())
        {
            return self.call_kw(args, &[]);
        }
        let resolution = self.resolved(args)?;
        self.call_resolved(&resolution, args)
    }

    /// The call of overload arguments already resolved to `resolution`:
    /// its flat plan inline (a small call's result is then made in the
    /// caller's frame, not moved out through each layer), anything else
    /// out of line.
    #[inline]
    pub(super) fn call_resolved(
        &self,
        resolution: &Resolution,
        args: &[&Array],
    ) -> Result<Array, Error> {
        if let Some(plan) = &resolution.plan {
            if let Some(out) = plan.call(args)? {
                return Ok(out);
            }
        }
        self.call_general(resolution, args)
    }

    /// [`Callable::call_resolved`] where the flat plan does not apply.
    #[inline(never)]
    fn call_general(&self, resolution: &Resolution, args: &[&Array]) -> Result<Array, Error> {
        let (index, ty, as_is) = (resolution.index, &resolution.ty, resolution.as_is);
        let o = &self.overloads()[index];
        self.with_args(args, o, as_is, |args| {
            Ok(match &o.body {
                // The plan asked the flat question already: not again.
                Body::Elementwise(leaf) if resolution.plan.is_some() => {
                    apply_general(ty, args, leaf)?
                }
                Body::Elementwise(leaf) => apply_typed(ty, args, leaf)?,
                Body::Core(leaf) => apply_core(ty, args, leaf)?,
            })
        })
    }

    /// Calls the callable writing into `out`, whose type must be the
    /// result's (`out` takes part in broadcasting as NumPy's `out=` does:
    /// the arguments broadcast to it).
    ///
    /// # Errors
    ///
    /// [`Error::Out`] if `out`'s type differs from the result's; otherwise as
    /// [`Callable::call`].
    pub fn call_into(&self, out: &mut Array, args: &[&Array]) -> Result<(), Error> {
        if let Some(dense) = self.dense_loop(args) {
            match dense.call_into(out, args) {
                Ok(true) => return Ok(()),
                Ok(false) => {}
                Err(e) => return Err(hinted(e, args)),
            }
        }
        self.call_args_into(out, args).map_err(|e| hinted(e, args))
    }

    /// [`Callable::call_into`] past the trivial call, out of line.
    #[inline(never)]
    fn call_args_into(&self, out: &mut Array, args: &[&Array]) -> Result<(), Error> {
        if self.whole_array_fn().is_some() {
            let r = self.call(args)?;
            if r.ty() != out.ty() {
                return Err(Error::Out {
                    name: self.name.to_string(),
                    out: out.ty().clone(),
                    result: r.ty().clone(),
                });
            }
            return out.assign(&r, ErrorMode::NoCheck);
        }
        let resolution = self.resolved(args)?;
        self.call_resolved_into(&resolution, out, args)
    }

    /// The call into `out` of overload arguments already resolved to
    /// `resolution`.
    #[inline]
    pub(super) fn call_resolved_into(
        &self,
        resolution: &Resolution,
        out: &mut Array,
        args: &[&Array],
    ) -> Result<(), Error> {
        if let Some(plan) = &resolution.plan {
            // The plan checks `out` itself: exactly the result's fixed
            // dimensions, in C order, over its data type (so `out` has the
            // result's type, compared here without a walk over types).
            if plan.call_into(out, args)? {
                return Ok(());
            }
        }
        self.call_general_into(resolution, out, args)
    }

    /// [`Callable::call_resolved_into`] where the flat plan does not apply.
    #[inline(never)]
    fn call_general_into(
        &self,
        resolution: &Resolution,
        out: &mut Array,
        args: &[&Array],
    ) -> Result<(), Error> {
        let (index, result, as_is) = (resolution.index, &resolution.ty, resolution.as_is);
        let o = &self.overloads()[index];
        let core = matches!(o.body, Body::Core(_));
        if out.ty() != result && core {
            return Err(Error::Out {
                name: self.name.to_string(),
                out: out.ty().clone(),
                result: result.clone(),
            });
        }
        // `out` may be larger than the result: the arguments broadcast to it.
        let operands: Vec<&Type> = args.iter().map(|a| a.ty()).collect();
        if !out_fits(out, result, &operands) {
            return Err(Error::Out {
                name: self.name.to_string(),
                out: out.ty().clone(),
                result: result.clone(),
            });
        }
        let planned = resolution.plan.is_some() && out.ty() == result;
        self.with_args(args, o, as_is, |args| {
            match &o.body {
                // The plan asked the flat question for an `out` of the
                // result's type already: not again.
                Body::Elementwise(leaf) if planned => apply_general_into(out, args, leaf)?,
                Body::Elementwise(leaf) => out.apply_into(args, leaf)?,
                Body::Core(leaf) => out.apply_core_into(args, leaf)?,
            }
            Ok(())
        })
    }

    /// `f` of `args` as overload `o` takes them: as they are when `as_is`,
    /// else cast to its input types.
    fn with_args<R>(
        &self,
        args: &[&Array],
        o: &Overload,
        as_is: bool,
        f: impl FnOnce(&[&Array]) -> Result<R, Error>,
    ) -> Result<R, Error> {
        if as_is {
            return f(args);
        }
        let cast = self.cast_args(args, o)?;
        let refs: Vec<&Array> = cast.iter().collect();
        f(&refs)
    }
}

/// Whether `out` can take a result of type `result` computed from operands
/// of types `operands`, as NumPy's `out=` does: `out` has the result's
/// type, or dimensions the operands broadcast to (they take part in the
/// broadcast) over the result's data type.
pub(crate) fn out_fits(out: &Array, result: &Type, operands: &[&Type]) -> bool {
    if out.ty() == result {
        return true;
    }
    let with_out: Vec<Type> = operands
        .iter()
        .map(|&t| t.clone())
        .chain([out.ty().clone()])
        .collect();
    let joint = broadcast(&with_out, BroadcastMode::NumPy).ok();
    joint.is_some_and(|j| j.split_dims().0 == out.ty().split_dims().0)
        && out.dtype() == result.dtype()
}
