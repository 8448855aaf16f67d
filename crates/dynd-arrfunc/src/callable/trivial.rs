//! The trivial call into an output: arguments of builtin data types,
//! dense and of the output's shape (or 0-d), run the overload's loop found
//! by their data types alone (a table indexed by their [`Scalar`]s, filled on first use), with
//! no resolution, no argument type list and no kernel (see
//! [`DenseLoop`]). What it runs is what resolution picks for those data
//! types: the table's entry is made by resolving them once, and holds a
//! loop only where the overload takes the arguments as they are.

use std::sync::OnceLock;

use dynd_kernels::elwise::DenseLoop;
use dynd_kernels::Array;
use dynd_types::{Scalar, Type};

use super::{Body, Callable};

/// The number of builtin scalar types.
const N: usize = Scalar::ALL.len();

/// A callable's dense loops by argument data types: one slot per data type
/// for one argument, then one per pair of data types for two (`None`
/// where the trivial call does not apply). Allocated on the first
/// trivial call.
#[derive(Default)]
pub(super) struct DenseLoops {
    table: OnceLock<Box<[OnceLock<Option<DenseLoop>>]>>,
}

/// The index of `a`'s data type, if it is a builtin scalar.
#[inline(always)]
fn scalar(a: &Array) -> Option<usize> {
    a.dtype().as_scalar().map(|s| s as usize)
}

impl Callable {
    /// The dense loop for arguments of `args`' data types, if one or two
    /// arguments of builtin data types resolve to an overload taking them
    /// as they are with a loop that cannot fail.
    #[inline]
    pub(super) fn dense_loop(&self, args: &[&Array]) -> Option<&DenseLoop> {
        let key = match args {
            [a] => scalar(a)?,
            [a, b] => N + scalar(a)? * N + scalar(b)?,
            _ => return None,
        };
        let table = self
            .dense
            .table
            .get_or_init(|| (0..N + N * N).map(|_| OnceLock::new()).collect());
        table[key].get_or_init(|| self.find_dense(args)).as_ref()
    }

    /// [`Callable::dense_loop`]'s entry for `args`' data types, resolved
    /// once.
    #[cold]
    #[inline(never)]
    fn find_dense(&self, args: &[&Array]) -> Option<DenseLoop> {
        // Callables over whole arrays or with keywords take their own
        // paths; so do records and categories (not builtin scalars).
        if !self.keywords.is_empty()
            || self.whole_array_fn().is_some()
            || args.len() != self.arity()
        {
            return None;
        }
        let dtypes: Vec<Type> = args.iter().map(|a| a.dtype().clone()).collect();
        let refs: Vec<&Type> = dtypes.iter().collect();
        let resolution = self.resolved_types(&refs).ok()?;
        let Body::Elementwise(leaf) = &self.overloads()[resolution.index].body else {
            return None;
        };
        let same = leaf
            .inputs()
            .iter()
            .zip(&dtypes)
            .all(|(s, t)| t.as_scalar() == Some(*s));
        if !resolution.as_is || !same || resolution.ty.as_scalar() != Some(leaf.output()) {
            return None;
        }
        DenseLoop::new(leaf)
    }
}
