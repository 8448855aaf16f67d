//! Type resolution for a signature lifted over leading dimensions
//! (NumPy's generalised ufuncs): each parameter consumes the argument's
//! trailing *core* dimensions, which bind its dimension variables
//! consistently and never broadcast; the remaining leading dimensions
//! broadcast across arguments.
//!
//! ```
//! use dynd::func::resolve_lifted;
//! use dynd::ndt::{BroadcastMode, Type};
//!
//! let t = |s: &str| s.parse::<Type>().unwrap();
//! let matmul = t("(M * N * T, N * P * T) -> M * P * T");
//! let r = resolve_lifted(&matmul, &[t("10 * 2 * 3 * float64"), t("3 * 4 * float64")], BroadcastMode::NumPy)?;
//! assert_eq!(r.to_string(), "10 * 2 * 4 * float64");
//! let err = resolve_lifted(&matmul, &[t("2 * 3 * float64"), t("4 * 4 * float64")], BroadcastMode::NumPy).unwrap_err();
//! assert_eq!(
//!     err.to_string(),
//!     "argument 1 (4 * 4 * float64) does not match parameter N * P * T: dimension variable 'N' is bound to '3' but meets '4'"
//! );
//! # Ok::<(), dynd::Error>(())
//! ```

use dynd_types::{broadcast, Bindings, BroadcastMode, Dim, Scalar, Type, TypeKind};

use crate::error::Error;

/// The result type of `signature` lifted elementwise over `args`' leading
/// dimensions, in `mode`.
///
/// # Errors
///
/// [`Error::NotASignature`], [`Error::Arity`], [`Error::TooFewDims`] naming
/// the argument, [`Error::Mismatch`] for core dimensions or data types that
/// do not match (sizes bind consistently), a broadcasting error for the
/// leading dimensions, or an unbound variable in the return type.
pub fn resolve_lifted(signature: &Type, args: &[Type], mode: BroadcastMode) -> Result<Type, Error> {
    let TypeKind::Callable(sig) = signature.kind() else {
        return Err(Error::NotASignature {
            ty: signature.clone(),
        });
    };
    if sig.positional.len() != args.len() && !sig.variadic_positional {
        return Err(Error::Arity {
            name: signature.to_string(),
            expected: sig.positional.len(),
            found: args.len(),
        });
    }
    let mut bindings = Bindings::new();
    let mut leading: Vec<Type> = Vec::with_capacity(args.len());
    for (i, (param, arg)) in sig.positional.iter().zip(args).enumerate() {
        let (arg_dims, arg_dtype) = arg.split_dims();
        let (param_dims, _) = param.split_dims();
        let variadic = param_dims.iter().any(|d| d.is_variadic());
        let core = if variadic {
            arg_dims.len()
        } else {
            param_dims.len()
        };
        if arg_dims.len() < core || (variadic && arg_dims.len() < param.ndim()) {
            return Err(Error::TooFewDims {
                arg: i,
                ty: arg.clone(),
                param: param.clone(),
                ndim: arg_dims.len(),
                needed: if variadic { param.ndim() } else { core },
            });
        }
        let split = arg_dims.len() - core;
        let core_ty = Type::with_dims(
            arg_dims[split..].iter().map(|d| (*d).clone()),
            arg_dtype.clone(),
        )?;
        param
            .match_into(&core_ty, &mut bindings)
            .map_err(|mismatch| Error::Mismatch {
                arg: i,
                ty: arg.clone(),
                param: param.clone(),
                mismatch: Box::new(mismatch),
            })?;
        leading.push(Type::with_dims(
            arg_dims[..split].iter().map(|d| (*d).clone()),
            Scalar::Bool.into(),
        )?);
    }
    let outer = broadcast(&leading, mode)?;
    let ret = sig.ret.substitute(&bindings)?;
    let (outer_dims, _) = outer.split_dims();
    let (ret_dims, ret_dtype) = ret.split_dims();
    let dims: Vec<Dim> = outer_dims
        .iter()
        .chain(ret_dims.iter())
        .map(|d| (*d).clone())
        .collect();
    Type::with_dims(dims, ret_dtype.clone())
}
