//! `take`: the elements along an axis at integer positions (NumPy's
//! `take`), a view when the positions allow it.
//!
//! One position (a 0-d index) or evenly spaced positions (`[1, 3, 5]`,
//! `[4, 3, 2]`) select like an integer or a slice: the result is a view
//! sharing the array's memory. Other positions gather the elements into a
//! new array; elements that refer to other memory (strings, `var` rows)
//! keep referring to it, so their characters and values are shared too.
//!
//! ```
//! use dynd::nd::TakeMode;
//! use dynd::nd::{array, Array, ArrayOps};
//!
//! let a = array![[1, 2, 3], [4, 5, 6]];
//! let cols = a.take(&array![2, 0], Some(1), TakeMode::Raise)?;
//! assert_eq!(cols.to_string(), "[[3, 1], [6, 4]]");
//! let evens = Array::from_vec((0..10i64).collect()).take(&array![0, 2, 4], None, TakeMode::Raise)?;
//! assert_eq!(evens.to_string(), "[0, 2, 4]"); // a view: a slice with step 2
//! let err = a.take(&array![0, 7], Some(1), TakeMode::Raise).unwrap_err();
//! assert_eq!(err.to_string(), "take: index 7 is out of bounds for axis 1 of size 3, at position [1] of the indices");
//! assert_eq!(a.take(&array![-1, 7], Some(1), TakeMode::Wrap)?.to_string(), "[[3, 2], [6, 5]]");
//! # Ok::<(), dynd::Error>(())
//! ```

use std::sync::Arc;

use dynd_types::{Dim, LayoutProblem, Scalar, ScalarCategory, Type};

use crate::array::Array;
use crate::arrmeta::{Arrmeta, PAIR_SIZE};
use crate::assign::ErrorMode;
use crate::error::Error;
use crate::memory::MemoryBlock;
use crate::view::Index;

/// What an index outside the axis means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TakeMode {
    /// An error naming the index and its position (the default).
    #[default]
    Raise,
    /// Counted modulo the axis length (`-1` is the last, `n` the first).
    Wrap,
    /// Clamped into the axis (negative ones to the first).
    Clip,
}

impl std::str::FromStr for TakeMode {
    type Err = Error;

    /// `raise`, `wrap` or `clip`.
    fn from_str(s: &str) -> Result<TakeMode, Error> {
        match s {
            "raise" => Ok(TakeMode::Raise),
            "wrap" => Ok(TakeMode::Wrap),
            "clip" => Ok(TakeMode::Clip),
            _ => Err(Error::Argument {
                op: "take",
                what: "the mode",
                expected: "one of raise, wrap, clip",
                found: format!("'{s}'").into(),
            }),
        }
    }
}

/// The multi-index of C-order position `p` in `shape`.
fn position(mut p: usize, shape: &[usize]) -> Vec<usize> {
    let mut index = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        index[k] = p % shape[k].max(1);
        p /= shape[k].max(1);
    }
    index
}

/// [`ArrayOps::take`](crate::ops::ArrayOps::take).
pub(crate) fn take(
    this: &Array,
    indices: &Array,
    axis: Option<i64>,
    mode: TakeMode,
) -> Result<Array, Error> {
    let src = match axis {
        Some(_) => this.clone(),
        None if this.ty().has_var_dim() => {
            return Err(Error::Unsupported {
                operation: "take without an axis (flattening) of an array with var dimensions",
                ty: this.ty().clone(),
            })
        }
        None => this.reshape([-1])?,
    };
    let axis = crate::reduce::normalize_axes(Some(&[axis.unwrap_or(0)]), src.ndim(), "take")?[0];
    let dims = src.shape();
    let nfixed = dims
        .iter()
        .position(|d| !matches!(d, Dim::Fixed(_)))
        .unwrap_or(dims.len());
    if axis >= nfixed {
        return Err(Error::Unsupported {
            operation: "take along a var dimension or below one",
            ty: src.ty().clone(),
        });
    }
    let is_int = matches!(
        indices.dtype().as_scalar().map(Scalar::category),
        Some(ScalarCategory::SignedInt | ScalarCategory::UnsignedInt)
    );
    if !is_int {
        return Err(Error::NeedsArray {
            op: "take".into(),
            expected: "indices of an integer type",
            found: indices.ty().clone(),
        });
    }
    let ishape = indices
        .ty()
        .fixed_shape()
        .ok_or_else(|| Error::Unsupported {
            operation: "take with var indices",
            ty: indices.ty().clone(),
        })?;
    let as_i64 = Type::with_dims(ishape.iter().map(|n| Dim::Fixed(*n)), Scalar::Int64.into())?;
    let raw: std::borrow::Cow<'_, [i64]> = match indices.as_slice::<i64>() {
        Ok(xs) => xs.into(),
        Err(_) => crate::assign::cast(indices, &as_i64, ErrorMode::Overflow)?
            .to_vec()?
            .into(),
    };
    let (fixed, m) = src.arrmeta().fixed_dims();
    if fixed.len() != nfixed {
        unreachable!("a validated array's arrmeta matches its type");
    }
    let n = fixed[axis].0;
    let pick = Picker { n: n as i64, mode };
    if let Some(p) = raw.iter().position(|&i| pick.at(i).is_none()) {
        return Err(Error::TakeIndex {
            name: "take",
            index: raw[p],
            axis,
            size: n,
            position: position(p, &ishape),
        });
    }
    let at = |p: usize| pick.at(raw[p]).unwrap_or_default() as i64;
    let lead = vec![Index::ALL; axis];
    // One position: an integer index, a view.
    if ishape.is_empty() {
        let mut index = lead;
        index.push(Index::At(at(0)));
        return src.index(&index);
    }
    // Evenly spaced positions: a slice, a view.
    if ishape.len() == 1 && !raw.is_empty() {
        let step = if raw.len() == 1 { 1 } else { at(1) - at(0) };
        if step != 0 && (2..raw.len()).all(|p| at(p) - at(p - 1) == step) {
            let start = at(0);
            let stop = start + step * raw.len() as i64;
            let mut index = lead;
            index.push(Index::slice(Some(start), (stop >= 0).then_some(stop), step));
            return src.index(&index);
        }
    }
    gather(&src, &fixed, nfixed, axis, &ishape, (&raw, pick), m)
}

/// An index's position in an axis of length `n` under `mode`.
#[derive(Clone, Copy)]
struct Picker {
    n: i64,
    mode: TakeMode,
}

impl Picker {
    /// The position of index `i`, or `None` when it is outside the axis
    /// (under [`TakeMode::Raise`], or for an empty axis).
    #[inline]
    fn at(self, i: i64) -> Option<usize> {
        let n = self.n;
        let r = match self.mode {
            _ if n == 0 => return None,
            TakeMode::Raise => {
                Some(if i < 0 { i + n } else { i }).filter(|r| (0..n).contains(r))?
            }
            TakeMode::Wrap => i.rem_euclid(n),
            TakeMode::Clip => i.clamp(0, n - 1),
        };
        Some(r as usize)
    }
}

fn broken() -> Error {
    Error::Layout(Box::new(LayoutProblem::Read {
        op: "take".into(),
        part: "an element",
    }))
}

/// Where the gathered runs come from: for each offset in `outer`, each
/// picked index (`stride` apart), each offset in `inner`.
struct Sources<'a> {
    data: &'a [u8],
    base: isize,
    outer: &'a [isize],
    picked: &'a [i64],
    pick: Picker,
    stride: isize,
    inner: &'a [isize],
}

impl Sources<'_> {
    /// The runs of one index each, at `offset` plus the position `place`
    /// gives each index (checked against the block, so a position outside
    /// the axis is caught there at worst).
    fn copy_runs<const N: usize>(
        &self,
        dst: &mut [u8],
        run: usize,
        offset: isize,
        place: impl Fn(i64) -> i64,
    ) -> Result<(), Error> {
        let run = if N == 0 { run } else { N };
        let first = self.base + offset;
        for (to, &i) in dst.chunks_exact_mut(run).zip(self.picked) {
            let at = first + place(i) as isize * self.stride;
            let from = usize::try_from(at)
                .ok()
                .and_then(|at| self.data.get(at..at.checked_add(run)?))
                .ok_or_else(broken)?;
            to.copy_from_slice(from);
        }
        Ok(())
    }

    /// Copies the runs of `run` bytes (`N` when it is not 0) into `dst`,
    /// in order.
    fn copy<const N: usize>(&self, dst: &mut [u8], run: usize) -> Result<(), Error> {
        let run = if N == 0 { run } else { N };
        if let ([o], [io]) = (self.outer, self.inner) {
            // One run per index: a tight loop, per mode.
            let n = self.pick.n;
            return match self.pick.mode {
                TakeMode::Raise => {
                    self.copy_runs::<N>(dst, run, o + io, |i| i + if i < 0 { n } else { 0 })
                }
                TakeMode::Wrap => self.copy_runs::<N>(dst, run, o + io, |i| i.rem_euclid(n)),
                TakeMode::Clip => self.copy_runs::<N>(dst, run, o + io, |i| i.clamp(0, n - 1)),
            };
        }
        let mut chunks = dst.chunks_exact_mut(run);
        for &o in self.outer {
            for &i in self.picked {
                let r = self.pick.at(i).ok_or_else(broken)?;
                let at = self.base + o + r as isize * self.stride;
                for &io in self.inner {
                    let from = usize::try_from(at + io)
                        .ok()
                        .and_then(|at| self.data.get(at..at.checked_add(run)?))
                        .ok_or_else(broken)?;
                    let to = chunks.next().ok_or_else(broken)?;
                    if N == 0 {
                        to.copy_from_slice(from);
                    } else {
                        // A fixed-size copy: one move for small `N`.
                        let from: &[u8; N] = from.try_into().map_err(|_| broken())?;
                        let to: &mut [u8; N] = to.try_into().map_err(|_| broken())?;
                        *to = *from;
                    }
                }
            }
        }
        Ok(())
    }
}

/// The gathered copy: for each position before `axis`, each picked index,
/// and each position after it, the element's bytes (elements referring to
/// other memory keep referring to it through `element`, the record under
/// the fixed dimensions).
fn gather(
    src: &Array,
    fixed: &[(usize, isize)],
    nfixed: usize,
    axis: usize,
    ishape: &[usize],
    (picked, pick): (&[i64], Picker),
    element: &Arrmeta,
) -> Result<Array, Error> {
    let dims = src.shape();
    let esize = if nfixed < dims.len() {
        PAIR_SIZE
    } else {
        src.dtype().data_layout()?.size
    };
    let mut element = element.clone();
    if let Arrmeta::Var { packed, .. } = &mut element {
        *packed = false;
    }
    let out_shape: Vec<usize> = fixed[..axis]
        .iter()
        .map(|(n, _)| *n)
        .chain(ishape.iter().copied())
        .chain(fixed[axis + 1..].iter().map(|(n, _)| *n))
        .collect();
    let elem_ty = Type::with_dims(dims[nfixed..].iter().cloned(), src.dtype().clone())?;
    let ty = Type::with_dims(out_shape.iter().map(|n| Dim::Fixed(*n)), elem_ty)?;
    let meta = crate::array::c_order_meta(&out_shape, esize, element)?;
    let total = crate::memory::checked_count(out_shape.iter().copied())?
        .checked_mul(esize)
        .ok_or_else(|| {
            Error::alloc(out_shape.iter().map(|&n| n as u128).product::<u128>() * esize as u128)
        })?;
    if total == 0 {
        // Nothing to gather (however many positions the other axes have).
        return Array::try_from_parts(ty, Arc::new(meta), MemoryBlock::zeroed(0)?, 0);
    }
    // Every byte is written below before the block is seen; the sizes'
    // products below are at most `total`, so none overflows.
    let mut block = MemoryBlock::for_overwrite(total)?;
    let dst = Arc::get_mut(&mut block)
        .unwrap_or_else(|| unreachable!("a new block has one owner"))
        .bytes_mut();
    // The part after `axis`: one contiguous run when it is C-ordered.
    let inner = &fixed[axis + 1..];
    let inner_count: usize = inner.iter().map(|(n, _)| *n).product();
    let mut c_stride = esize as isize;
    let mut contiguous = true;
    for &(n, s) in inner.iter().rev() {
        contiguous &= n <= 1 || s == c_stride;
        c_stride *= n as isize;
    }
    let (run, inner_offsets) = if contiguous {
        (inner_count * esize, vec![0isize])
    } else {
        let mut offs = Vec::with_capacity(inner_count);
        dynd_array::offsets::for_each_offset(inner, |o| offs.push(o));
        (esize, offs)
    };
    let mut outer = Vec::new();
    dynd_array::offsets::for_each_offset(&fixed[..axis], |o| outer.push(o));
    let stride = fixed[axis].1;
    let sources = Sources {
        data: src.data_block().bytes(),
        base: src.data_offset() as isize,
        outer: &outer,
        picked,
        pick,
        stride,
        inner: &inner_offsets,
    };
    match run {
        0 => Ok(()),
        1 => sources.copy::<1>(dst, run),
        2 => sources.copy::<2>(dst, run),
        4 => sources.copy::<4>(dst, run),
        8 => sources.copy::<8>(dst, run),
        16 => sources.copy::<16>(dst, run),
        _ => sources.copy::<0>(dst, run),
    }?;
    Array::try_from_parts(ty, Arc::new(meta), block, 0)
}
