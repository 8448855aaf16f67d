//! The error type: one for every layer of dynd-rs, defined in
//! `dynd-types` and re-exported here.

pub use dynd_types::Error;

use dynd_types::{KernelErrorKind, Type};

/// What [`keepdims_hint`] suggests.
const KEEPDIMS: &str = "if one argument is a reduction of the other along its rows, \
                        reduce with keepdims=true so that its axes line up";

/// `e` with a hint to reduce with `keepdims` where a ragged row failed to
/// broadcast in a call whose arguments (of types `tys`) include one whose
/// dimensions are the leading dimensions of another's, ragged ones among
/// the rest: the shape of `x - x.mean_axis(1)` (`N * var * T` against
/// `N * T`), where `N` lines up with the rows instead of the outer axis.
pub(crate) fn keepdims_hint(e: Error, tys: &[&Type]) -> Error {
    let Error::Kernel(k) = e else { return e };
    if k.hint().is_some() || !matches!(k.kind(), KernelErrorKind::RaggedRow { .. }) {
        return Error::Kernel(k);
    }
    let reduced = tys.iter().any(|a| {
        let (da, _) = a.split_dims();
        tys.iter().any(|b| {
            let (db, _) = b.split_dims();
            !db.is_empty()
                && db.len() < da.len()
                && da[..db.len()] == db[..]
                && da[db.len()..]
                    .iter()
                    .any(|d| matches!(d, dynd_types::Dim::Var))
        })
    });
    if reduced {
        Error::Kernel(Box::new((*k).with_hint(KEEPDIMS)))
    } else {
        Error::Kernel(k)
    }
}
