//! Type-level broadcasting: the result type of an elementwise operation.
//!
//! Dimensions are aligned on the right. In [`BroadcastMode::NumPy`] an
//! argument with fewer dimensions gains leading ones; in
//! [`BroadcastMode::Strict`] (SlangPy's rule) only a 0-d argument extends to
//! more dimensions, so that a `3 * 4 * T` meeting a `4 * T` is an error
//! rather than a silent repeat. Then, position by position:
//!
//! | one       | other     | result                                   |
//! |-----------|-----------|------------------------------------------|
//! | `n`       | `n`       | `n`                                      |
//! | `1`       | anything  | the other                                |
//! | `var`     | `var`     | `var`                                    |
//! | `var`     | `n`       | `n` (row lengths are checked at run time) |
//! | `n`       | `m`       | error naming the position and both sizes |
//!
//! The result's data type is the [promotion](fn@crate::promote) of the
//! arguments' data types.
//!
//! ```
//! use dynd::ndt::{broadcast, BroadcastMode, Type};
//!
//! let a: Type = "3 * var * int32".parse()?;
//! let b: Type = "1 * 5 * float32".parse()?;
//! assert_eq!(broadcast(&[a, b], BroadcastMode::NumPy)?.to_string(), "3 * 5 * float64");
//! # Ok::<(), dynd::Error>(())
//! ```

use crate::error::Error;
use crate::promote::promote;
use crate::ty::{Dim, Type, TypeKind};

/// How arguments with different numbers of dimensions broadcast.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BroadcastMode {
    /// NumPy's rule: missing leading dimensions are added to any argument.
    #[default]
    NumPy,
    /// SlangPy's rule: only a 0-d argument extends to more dimensions.
    Strict,
}

/// Broadcasts two concrete dimensions, or says they conflict.
pub fn broadcast_dim(a: &Dim, b: &Dim) -> Option<Dim> {
    match (a, b) {
        _ if a == b => Some(a.clone()),
        (Dim::Fixed(1), other) | (other, Dim::Fixed(1)) => Some(other.clone()),
        (Dim::Var, Dim::Fixed(n)) | (Dim::Fixed(n), Dim::Var) => Some(Dim::Fixed(*n)),
        _ => None,
    }
}

/// Broadcasts two dimension lists (NumPy mode). On a conflict returns the
/// position in the result and the two dimensions.
pub fn broadcast_dim_lists(a: &[Dim], b: &[Dim]) -> Result<Vec<Dim>, (usize, Dim, Dim)> {
    let n = a.len().max(b.len());
    let (short, long) = if a.len() < b.len() { (a, b) } else { (b, a) };
    let offset = n - short.len();
    let mut out = long.to_vec();
    for (i, d) in short.iter().enumerate() {
        let axis = offset + i;
        out[axis] = broadcast_dim(&out[axis], d).ok_or_else(|| {
            let (x, y) = if a.len() < b.len() {
                (d.clone(), long[axis].clone())
            } else {
                (long[axis].clone(), d.clone())
            };
            (axis, x, y)
        })?;
    }
    Ok(out)
}

fn check_concrete_dims(ty: &Type) -> Result<Vec<Dim>, Error> {
    let (dims, _) = ty.split_dims();
    dims.iter()
        .map(|d| {
            if d.is_concrete() {
                Ok((*d).clone())
            } else {
                Err(Error::Symbolic {
                    operation: "broadcasting",
                    ty: ty.clone(),
                    reason: format!("dimension '{d}' is not a fixed size or var"),
                })
            }
        })
        .collect()
}

/// Broadcasts argument types to the result type of an elementwise operation.
///
/// # Errors
///
/// [`Error::Broadcast`] naming the result position, the two arguments and
/// their sizes; [`Error::StrictRank`] in strict mode; [`Error::Symbolic`]
/// for a symbolic dimension; [`Error::Promote`] if the data types have no
/// common type; [`Error::NoArguments`] for an empty list.
pub fn broadcast(types: &[Type], mode: BroadcastMode) -> Result<Type, Error> {
    let first = types.first().ok_or(Error::NoArguments)?;
    let dims: Vec<Vec<Dim>> = types
        .iter()
        .map(check_concrete_dims)
        .collect::<Result<_, _>>()?;
    let ndim = dims.iter().map(Vec::len).max().unwrap_or(0);
    if mode == BroadcastMode::Strict {
        if let Some((arg, d)) = dims
            .iter()
            .enumerate()
            .find(|(_, d)| !d.is_empty() && d.len() < ndim)
        {
            return Err(Error::StrictRank {
                arg,
                ty: types[arg].clone(),
                ndim: d.len(),
                expected: ndim,
            });
        }
    }
    // Each result position remembers which argument decided it, for errors.
    let mut result: Vec<Option<(Dim, usize)>> = vec![None; ndim];
    for (arg, arg_dims) in dims.iter().enumerate() {
        let offset = ndim - arg_dims.len();
        for (i, d) in arg_dims.iter().enumerate() {
            let slot = &mut result[offset + i];
            *slot = Some(match slot.take() {
                None => (d.clone(), arg),
                Some((prev, prev_arg)) => match broadcast_dim(&prev, d) {
                    Some(merged) if merged == prev => (merged, prev_arg),
                    Some(merged) => (merged, arg),
                    None => {
                        return Err(Error::Broadcast {
                            axis: offset + i,
                            args: (prev_arg, arg),
                            dims: Box::new((prev, d.clone())),
                            types: (types[prev_arg].clone(), types[arg].clone()),
                        })
                    }
                },
            });
        }
    }
    let mut dtype = first.dtype().clone();
    for t in &types[1..] {
        dtype = promote(&dtype, t.dtype())?;
    }
    if matches!(dtype.kind(), TypeKind::Any) {
        return Err(Error::Symbolic {
            operation: "broadcasting",
            ty: dtype,
            reason: "Any may have dimensions".to_string(),
        });
    }
    Type::with_dims(result.into_iter().flatten().map(|(d, _)| d), dtype)
}
