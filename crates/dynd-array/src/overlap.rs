//! Whether two elements of an array share memory, so that writing one
//! would change another.
//!
//! Views are free to share: `take(x, [0, 0])` of a ragged `x` repeats a
//! row's (start, length) pair, and [`Array::from_starts_lengths`] accepts
//! rows that overlap. Reading such an array is fine; writing into it is
//! not, since a write meant for one row lands in another. Every writing
//! operation first makes the array the only owner of its memory
//! (`make_unique`), and that step asks [`overlaps`]: if any two
//! elements may share a byte, the array is first replaced by a compact
//! copy with disjoint rows, so the write is what writing into a copy of
//! the same values gives.
//!
//! The check is exact for `var` rows (every reachable row is compared with
//! the others, level by level: the rows of an inner level are collected
//! across all the outer rows) and conservative for fixed strides inside
//! them: a dimension of two or more elements with stride 0, or strides
//! that do not nest (sorted by size, each at least the extent of the ones
//! inside it), counts as overlapping. An array of fixed dimensions alone
//! is checked for stride 0 only, in one allocation-free walk: the views
//! this library makes of it (slices, steps, transposes, `expand_dims`)
//! always nest. Strings are not checked: a write
//! of strings goes to a new text block.
//!
//! The check is one pass over the row pairs, without allocating while the
//! rows come in memory order (as in every array this library allocates);
//! rows out of order are sorted once. Nothing here is `unsafe`.
//!
//! ```
//! use dynd::prelude::*;
//!
//! // Rows [3, 2] and [2, 1] share the value 2: sorting each row sorts a
//! // copy with separate rows, not the shared values twice.
//! let a = Array::from_starts_lengths(vec![3.0, 2.0, 1.0], &[0u32, 1], &[2u32, 2])?;
//! assert_eq!(a.sorted(-1)?.to_string(), "[[2, 3], [1, 2]]");
//! # Ok::<(), dynd::Error>(())
//! ```

use dynd_types::{Dim, Type, TypeKind};
use smallvec::SmallVec;

use crate::arrmeta::{read_pair, Arrmeta, PAIR_SIZE};
use crate::error::Error;
use crate::memory::MemoryBlock;
use crate::validate::{pair_at, Positions};
use crate::Array;

/// Whether two distinct elements of `a` may share a byte of memory (see
/// the module docs).
///
/// # Errors
///
/// [`Error::Layout`] if a row pair cannot be read (validation rules this
/// out for every array).
pub fn overlaps(a: &Array) -> Result<bool, Error> {
    if !a.arrmeta().has_var() {
        // Fixed dimensions over a fixed-size element (the common case, on
        // every small call that writes into an array): a walk over the
        // dimension records, without allocating. Every view this library
        // makes of such an array nests; only a repeated element (stride 0
        // over two or more) can overlap.
        let mut m = a.arrmeta();
        let mut repeats = false;
        while let Some((n, s, e)) = m.as_fixed() {
            if n == 0 {
                return Ok(false);
            }
            repeats |= n > 1 && s == 0;
            m = e;
        }
        return Ok(repeats && a.dtype().data_layout()?.size > 0);
    }
    let start = Positions {
        base: a.data_offset() as i128,
        dims: Vec::new(),
    };
    level(a.ty(), a.arrmeta(), a.data_block(), &[start])
}

/// The byte range `lo..hi`, relative to an element's first byte, that one
/// element of type `ty` (arrmeta `meta`) covers in its own block.
fn extent(ty: &Type, meta: &Arrmeta) -> Result<(i128, i128), Error> {
    match (ty.kind(), meta) {
        (
            TypeKind::Dim(Dim::Fixed(_), element_ty),
            Arrmeta::Fixed {
                size,
                stride,
                element,
            },
        ) => {
            let (lo, hi) = extent(element_ty, element)?;
            if *size == 0 || hi <= lo {
                return Ok((0, 0));
            }
            let reach = (*size as i128 - 1) * *stride as i128;
            Ok((lo + reach.min(0), hi + reach.max(0)))
        }
        (TypeKind::Dim(Dim::Var, _), _) => Ok((0, PAIR_SIZE as i128)),
        _ => Ok((0, ty.data_layout()?.size as i128)),
    }
}

/// Whether the fixed dimensions `dims` of elements covering `lo..hi`
/// nest: sorted by stride size, each dimension of two or more elements
/// steps at least over everything inside it (a sufficient condition for
/// distinct indices to reach disjoint bytes).
fn nested(dims: &[(usize, isize)], (lo, hi): (i128, i128)) -> bool {
    if hi <= lo || dims.iter().any(|&(n, _)| n == 0) {
        return true;
    }
    let mut steps: SmallVec<[(u128, usize); 8]> = dims
        .iter()
        .filter(|&&(n, _)| n > 1)
        .map(|&(n, s)| ((s as i128).unsigned_abs(), n))
        .collect();
    steps.sort_unstable();
    let mut span = (hi - lo) as u128;
    for (step, n) in steps {
        if step < span {
            return false;
        }
        span = span.saturating_add(step.saturating_mul(n as u128 - 1));
    }
    true
}

/// Whether the rows whose pairs lie at `p` — one run of pairs, the common
/// `N * var * T` layout — come in memory order without overlapping, for
/// plain elements `stride` bytes apart (`stride` positive, elements no
/// wider): a tight pass over the pairs' bytes. `None` when `p` is not one
/// run of pairs or a sum leaves `i64` (the general walk decides then).
fn in_order(p: &Positions, block: &MemoryBlock, stride: isize) -> Option<bool> {
    let n = match p.dims[..] {
        [] => 1,
        [(n, s)] if s == PAIR_SIZE as isize || n < 2 => n,
        _ => return None,
    };
    let first = usize::try_from(p.base).ok()?;
    let pairs = block
        .bytes()
        .get(first..first.checked_add(n.checked_mul(PAIR_SIZE)?)?)?;
    let mut previous_end = i64::MIN;
    for pair in pairs.chunks_exact(PAIR_SIZE) {
        let (start, len) = read_pair(pair);
        if len == 0 {
            continue;
        }
        let lo = start as i64;
        if lo < previous_end {
            return Some(false);
        }
        previous_end = i64::try_from(len)
            .ok()?
            .checked_mul(stride as i64)?
            .checked_add(lo)?;
    }
    Some(true)
}

/// Whether elements at `positions` (of `block`), of type `ty`, overlap.
fn level(
    ty: &Type,
    meta: &Arrmeta,
    block: &MemoryBlock,
    positions: &[Positions],
) -> Result<bool, Error> {
    match (ty.kind(), meta) {
        (
            TypeKind::Dim(Dim::Fixed(_), element_ty),
            Arrmeta::Fixed {
                size,
                stride,
                element,
            },
        ) => {
            if *size == 0 {
                return Ok(false);
            }
            // A repeated element overlaps itself, unless it has no bytes
            // (a `3 * 0 * int8` array has stride 0 and no elements).
            if *size > 1 && *stride == 0 {
                let (lo, hi) = extent(element_ty, element)?;
                if hi > lo {
                    return Ok(true);
                }
            }
            let inner: Vec<Positions> = positions
                .iter()
                .map(|p| {
                    let mut p = p.clone();
                    p.dims.push((*size, *stride));
                    p
                })
                .collect();
            level(element_ty, element, block, &inner)
        }
        (
            TypeKind::Dim(Dim::Var, element_ty),
            Arrmeta::Var {
                values,
                offset,
                stride,
                element,
                ..
            },
        ) => {
            // The pairs' positions, as validation walks them (a stride-0
            // dimension, which repeats a pair, was refused above): a pair
            // reached twice gives its row twice, which the row check below
            // finds (unless the row is empty, which no write reaches).
            let (elo, ehi) = extent(element_ty, element)?;
            let descend = element.has_var() || element_ty.is_dim();
            // Each reachable non-empty row: its first element's byte offset,
            // length, and the bytes `lo..hi` its elements cover.
            let each_row = |f: &mut dyn FnMut(i128, usize, i128, i128)| -> Result<(), Error> {
                for p in positions {
                    p.for_each(&mut |at| {
                        let (start, len) = pair_at(block, at)?;
                        if len == 0 {
                            return Ok(());
                        }
                        let len = usize::try_from(len).map_err(|_| {
                            Error::Layout(Box::new(dynd_types::LayoutProblem::Overflow))
                        })?;
                        let base = *offset as i128 + start as i64 as i128;
                        let reach = (len as i128 - 1) * *stride as i128;
                        f(
                            base,
                            len,
                            base + reach.min(0) + elo,
                            base + reach.max(0) + ehi,
                        );
                        Ok(())
                    })?;
                }
                Ok(())
            };
            if !descend && elo == 0 && ehi <= *stride as i128 {
                if let [p] = positions {
                    if in_order(p, block, *stride) == Some(true) {
                        return Ok(false);
                    }
                }
            }
            // One pass without allocating: rows in memory order, each
            // element stepping past the one before.
            let step_covers = (*stride as i128).abs() >= ehi - elo;
            let (mut ordered, mut within, mut previous_end) = (true, true, i128::MIN);
            let mut inner: Vec<Positions> = Vec::new();
            each_row(&mut |base, len, lo, hi| {
                within &= len == 1 || step_covers;
                if hi > lo {
                    ordered &= lo >= previous_end;
                    previous_end = previous_end.max(hi);
                }
                if descend {
                    inner.push(Positions {
                        base,
                        dims: vec![(len, *stride)],
                    });
                }
            })?;
            if !within {
                return Ok(true);
            }
            if !ordered {
                // Rows out of order: collected and sorted, once.
                let mut rows: Vec<(i128, i128)> = Vec::new();
                each_row(&mut |_, _, lo, hi| {
                    if hi > lo {
                        rows.push((lo, hi));
                    }
                })?;
                rows.sort_unstable();
                if rows.windows(2).any(|w| w[1].0 < w[0].1) {
                    return Ok(true);
                }
            }
            if descend {
                level(element_ty, element, values, &inner)
            } else {
                Ok(false)
            }
        }
        (TypeKind::Option(inner_ty), Arrmeta::Option(inner_meta)) => {
            level(inner_ty, inner_meta, block, positions)
        }
        (TypeKind::Tuple(_) | TypeKind::Struct(_), Arrmeta::Fields { offsets, fields }) => {
            let extent = (0, ty.data_layout()?.size as i128);
            if positions.iter().any(|p| !nested(&p.dims, extent)) {
                return Ok(true);
            }
            let types: Vec<&Type> = match ty.kind() {
                TypeKind::Tuple(t) => t.fields.iter().collect(),
                TypeKind::Struct(s) => s.fields.iter().map(|(_, t)| t).collect(),
                _ => Vec::new(),
            };
            for ((t, m), off) in types.into_iter().zip(fields).zip(offsets) {
                if !m.has_var() {
                    continue;
                }
                let shifted: Vec<Positions> = positions
                    .iter()
                    .map(|p| Positions {
                        base: p.base + *off as i128,
                        dims: p.dims.clone(),
                    })
                    .collect();
                if level(t, m, block, &shifted)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        _ => {
            let extent = (0, ty.data_layout()?.size as i128);
            Ok(positions.iter().any(|p| !nested(&p.dims, extent)))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::overlaps;
    use crate::{Array, Index};

    #[test]
    fn disjoint_layouts_do_not_overlap() {
        let a = crate::array::Array::from_json("[[1, 2], [3], [], [4, 5, 6]]", None).unwrap();
        assert!(!overlaps(&a).unwrap());
        let m = Array::from_shape_vec(&[3, 4], (0..12).collect::<Vec<i64>>()).unwrap();
        assert!(!overlaps(&m).unwrap());
        assert!(!overlaps(&m.transpose().unwrap()).unwrap());
        let stepped = m
            .index(&[Index::slice(None, None, -2), Index::slice(Some(1), None, 2)])
            .unwrap();
        assert!(!overlaps(&stepped).unwrap());
        assert!(!overlaps(&m.expand_dims(1).unwrap()).unwrap());
        let nested = Array::from_json("[[[1], [2, 3]], [[4, 5, 6]]]", None).unwrap();
        assert!(!overlaps(&nested).unwrap());
        let fields = Array::from_json(r#"[{"x": 1, "y": [1, 2]}, {"x": 2, "y": []}]"#, None);
        assert!(!overlaps(&fields.unwrap()).unwrap());
    }
}
