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
//! use dynd_kernels::take::TakeMode;
//! use dynd_kernels::{array, Array};
//!
//! let a = array![[1, 2, 3], [4, 5, 6]];
//! let cols = a.take(&array![2, 0], Some(1), TakeMode::Raise)?;
//! assert_eq!(cols.to_string(), "[[3, 1], [6, 4]]");
//! let evens = Array::from_vec((0..10i64).collect()).take(&array![0, 2, 4], None, TakeMode::Raise)?;
//! assert_eq!(evens.to_string(), "[0, 2, 4]"); // a view: a slice with step 2
//! let err = a.take(&array![0, 7], Some(1), TakeMode::Raise).unwrap_err();
//! assert_eq!(err.to_string(), "take: index 7 is out of bounds for axis 1 of size 3, at position [1] of the indices");
//! assert_eq!(a.take(&array![-1, 7], Some(1), TakeMode::Wrap)?.to_string(), "[[3, 2], [6, 5]]");
//! # Ok::<(), dynd_kernels::Error>(())
//! ```

use std::sync::Arc;

use dynd_types::{Dim, Scalar, ScalarCategory, Type};

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
            _ => Err(Error::Value {
                what: format!("take: mode '{s}' is not one of raise, wrap, clip"),
            }),
        }
    }
}

fn value_error(what: String) -> Error {
    Error::Value { what }
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

impl Array {
    /// The elements along `axis` at `indices` (any integer type, any fixed
    /// shape): the result has this array's dimensions with `axis` replaced
    /// by the indices' dimensions. `axis: None` takes from the flattened
    /// array. Negative indices count from the end; `mode` says what an
    /// index outside the axis means. See the [module docs](crate::take)
    /// for when the result is a view.
    ///
    /// # Errors
    ///
    /// [`Error::Value`] for an index out of bounds under
    /// [`TakeMode::Raise`] (naming it, its position and the axis size), an
    /// axis out of range, indices that are not integers, or taking from an
    /// empty axis; [`Error::Unsupported`] for an axis that is `var` or
    /// below a `var` dimension, and for `var` indices.
    pub fn take(&self, indices: &Array, axis: Option<i64>, mode: TakeMode) -> Result<Array, Error> {
        let src = match axis {
            Some(_) => self.clone(),
            None if self.ty().has_var_dim() => {
                return Err(Error::Unsupported {
                    operation: "take without an axis (flattening) of an array with var dimensions",
                    ty: self.ty().clone(),
                })
            }
            None => self.reshape(&[-1])?,
        };
        let axis =
            crate::reduce::normalize_axes(Some(&[axis.unwrap_or(0)]), src.ndim(), "take")?[0];
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
            return Err(value_error(format!(
                "take: the indices must be integers, not {}",
                indices.dtype()
            )));
        }
        let ishape = indices
            .ty()
            .fixed_shape()
            .ok_or_else(|| Error::Unsupported {
                operation: "take with var indices",
                ty: indices.ty().clone(),
            })?;
        let as_i64 = Type::with_dims(ishape.iter().map(|n| Dim::Fixed(*n)), Scalar::Int64.into())?;
        let raw: Vec<i64> = indices
            .cast(&as_i64, ErrorMode::Overflow)
            .map_err(|e| value_error(format!("take: an index does not fit int64: {e}")))?
            .to_vec()?;
        let mut m = src.arrmeta();
        let mut fixed: Vec<(usize, isize)> = Vec::with_capacity(nfixed);
        for _ in 0..nfixed {
            let (n, s, e) = m.as_fixed().ok_or_else(|| {
                value_error("take: the array's dimensions do not match its type".into())
            })?;
            fixed.push((n, s));
            m = e;
        }
        let n = fixed[axis].0;
        let picked = raw
            .iter()
            .enumerate()
            .map(|(p, &i)| {
                let ni = n as i64;
                let r = match mode {
                    _ if n == 0 => None,
                    TakeMode::Raise => Some(if i < 0 { i + ni } else { i }).filter(|r| (0..ni).contains(r)),
                    TakeMode::Wrap => Some(i.rem_euclid(ni)),
                    TakeMode::Clip => Some(i.clamp(0, ni - 1)),
                };
                r.map(|r| r as usize).ok_or_else(|| {
                    value_error(format!(
                        "take: index {i} is out of bounds for axis {axis} of size {n}, at position {:?} of the indices",
                        position(p, &ishape)
                    ))
                })
            })
            .collect::<Result<Vec<usize>, Error>>()?;
        let lead = vec![Index::ALL; axis];
        // One position: an integer index, a view.
        if ishape.is_empty() {
            let mut index = lead;
            index.push(Index::At(picked[0] as i64));
            return src.index(&index);
        }
        // Evenly spaced positions: a slice, a view.
        if ishape.len() == 1 {
            let step = match picked[..] {
                [_] => 1,
                [a, b, ..] => b as i64 - a as i64,
                [] => 0,
            };
            let even = step != 0 && picked.windows(2).all(|w| w[1] as i64 - w[0] as i64 == step);
            if even {
                let start = picked[0] as i64;
                let stop = start + step * picked.len() as i64;
                let mut index = lead;
                index.push(Index::slice(Some(start), (stop >= 0).then_some(stop), step));
                return src.index(&index);
            }
        }
        gather(&src, &fixed, nfixed, axis, &ishape, &picked, m)
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
    picked: &[usize],
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
    let meta = crate::array::c_order_meta(&out_shape, esize, element);
    let total = out_shape.iter().product::<usize>() * esize;
    let mut block = MemoryBlock::zeroed(total)?;
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
        crate::reduce::for_each_offset_pub(inner, |o| offs.push(o));
        (esize, offs)
    };
    let mut outer = Vec::new();
    crate::reduce::for_each_offset_pub(&fixed[..axis], |o| outer.push(o));
    let data = src.data_block().bytes();
    let base = src.data_offset() as isize;
    let stride = fixed[axis].1;
    let broken = || value_error("take: an element lies outside the array's memory".into());
    let mut w = 0;
    if run > 0 {
        for &o in &outer {
            for &r in picked {
                for &io in &inner_offsets {
                    let at = usize::try_from(base + o + r as isize * stride + io)
                        .map_err(|_| broken())?;
                    let from = data.get(at..at + run).ok_or_else(broken)?;
                    dst[w..w + run].copy_from_slice(from);
                    w += run;
                }
            }
        }
    }
    Ok(Array::from_parts(ty, Arc::new(meta), block, 0))
}
