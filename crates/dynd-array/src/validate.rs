//! The invariant every [`Array`](crate::Array) keeps, checked where an array
//! is made from parts.
//!
//! An array is a type, its arrmeta, a data block and an offset. The kernels
//! read and write elements through raw pointers computed from those parts,
//! so the parts must describe memory that exists: **every byte any index
//! can reach lies inside the block it points into**. Concretely, for an
//! array of type `ty` with arrmeta `meta` at byte `offset` of block `data`:
//!
//! - the arrmeta has the type's shape: a fixed record of size `n` under a
//!   dimension `n`, a var record under `var`, a text record under `string`
//!   and `bytes`, an option record under `?T`, field records at the type's
//!   own field offsets under a tuple or struct;
//! - the element positions `offset + Σ i_k · stride_k` (over every index of
//!   the fixed dimensions), each extended by the element's size, lie in
//!   `0..data.len()`, and each is aligned for the element;
//! - every (start, length) pair a `var` level reaches gives a row whose
//!   elements lie, the same way, inside the level's values block (and,
//!   recursively, what those elements reach);
//! - a `var` level marked `packed` has its rows end to end: counting the
//!   level's rows in C order of every dimension above it, row 0 starts at
//!   0 and each next row where the one before ends (what lets `flatten`
//!   and Arrow export take its values without a pass over the rows);
//! - every (start, length) pair a `string`/`bytes` element holds lies inside
//!   its text block.
//!
//! All the arithmetic is done in `i128` with checked sums, so no size,
//! stride or position a caller supplies can wrap. The check costs
//! `O(ndim)` for arrays of fixed-size elements and one step per reachable
//! row or string otherwise.
//!
//! Nothing here is `unsafe`: the bytes are read through slices. The array
//! constructors in [`array`](mod@crate::array) call [`validate`]; the unchecked
//! constructor asserts it in debug builds.

use dynd_types::{DataLayout, Dim, LayoutProblem, Scalar, Type, TypeKind};

use crate::arrmeta::{read_pair, Arrmeta, PAIR_SIZE};
use crate::error::Error;
use crate::memory::MemoryBlock;

/// Checks that an array of type `ty`, arrmeta `meta`, at byte `offset` of
/// `data`, reaches only bytes inside its blocks (see the module docs).
///
/// # Errors
///
/// [`Error::Layout`] saying which level reaches out of which block.
pub fn validate(ty: &Type, meta: &Arrmeta, data: &MemoryBlock, offset: usize) -> Result<(), Error> {
    let mut positions = Positions {
        base: offset as i128,
        dims: Vec::new(),
    };
    check(ty, meta, data, &mut positions)?;
    if meta.claims_packed() {
        check_packed(ty, meta, data, offset as i128, &mut Vec::new())?;
    }
    Ok(())
}

/// A `var` level marked packed, as [`check_packed`] walks it: the rows
/// seen so far and where they end (bytes from the level's offset).
struct PackedLevel<'a> {
    node: &'a Arrmeta,
    rows: usize,
    end: i128,
}

/// Checks each `var` level marked packed under `meta` at `at` of `block`:
/// a walk in C order (fields in order), one step per row of the levels
/// down to the deepest marked one. Called after [`check`], so every pair
/// it reads lies in its block.
fn check_packed<'a>(
    ty: &Type,
    meta: &'a Arrmeta,
    block: &MemoryBlock,
    at: i128,
    levels: &mut Vec<PackedLevel<'a>>,
) -> Result<(), Error> {
    match (ty.kind(), meta) {
        (
            TypeKind::Dim(_, element_ty),
            Arrmeta::Fixed {
                size,
                stride,
                element,
            },
        ) if element.claims_packed() => (0..*size).try_for_each(|i| {
            check_packed(
                element_ty,
                element,
                block,
                at + i as i128 * *stride as i128,
                levels,
            )
        }),
        (
            TypeKind::Dim(_, element_ty),
            Arrmeta::Var {
                values,
                offset,
                stride,
                packed,
                element,
            },
        ) => {
            let (start, len) = pair_at(block, at)?;
            // `start` is a signed byte offset from `offset`.
            let start = start as i64;
            if *packed {
                let k = match levels.iter().position(|l| std::ptr::eq(l.node, meta)) {
                    Some(k) => k,
                    None => {
                        levels.push(PackedLevel {
                            node: meta,
                            rows: 0,
                            end: 0,
                        });
                        levels.len() - 1
                    }
                };
                let level = &mut levels[k];
                if i128::from(start) != level.end {
                    return Err(layout(LayoutProblem::NotPacked {
                        ty: ty.clone(),
                        row: level.rows,
                        start,
                        expected: level.end,
                    }));
                }
                level.rows += 1;
                level.end += len as i128 * *stride as i128;
            }
            if !element.claims_packed() {
                return Ok(());
            }
            let first = *offset as i128 + i128::from(start);
            (0..len).try_for_each(|k| {
                check_packed(
                    element_ty,
                    element,
                    values,
                    first + k as i128 * *stride as i128,
                    levels,
                )
            })
        }
        (TypeKind::Option(inner), Arrmeta::Option(inner_meta)) => {
            check_packed(inner, inner_meta, block, at, levels)
        }
        (TypeKind::Tuple(_) | TypeKind::Struct(_), Arrmeta::Fields { offsets, fields }) => {
            let types = field_types(ty);
            types
                .into_iter()
                .zip(fields)
                .zip(offsets)
                .try_for_each(|((t, m), off)| check_packed(t, m, block, at + *off as i128, levels))
        }
        _ => Ok(()),
    }
}

/// A set of element positions in a block: `base + Σ i_k · stride_k` for
/// every `i_k < size_k`.
#[derive(Clone, Debug)]
pub struct Positions {
    pub base: i128,
    /// (size, stride) of each dimension, outermost first.
    pub dims: Vec<(usize, isize)>,
}

impl Positions {
    /// The lowest and highest position, `None` if the set is empty.
    fn span(&self) -> Result<Option<(i128, i128)>, Error> {
        let (mut lo, mut hi) = (self.base, self.base);
        for &(n, stride) in &self.dims {
            if n == 0 {
                return Ok(None);
            }
            let reach = (n as i128 - 1)
                .checked_mul(stride as i128)
                .ok_or_else(overflow)?;
            if reach < 0 {
                lo = lo.checked_add(reach).ok_or_else(overflow)?;
            } else {
                hi = hi.checked_add(reach).ok_or_else(overflow)?;
            }
        }
        Ok(Some((lo, hi)))
    }

    /// Calls `f` with each distinct position, in C order of the dimensions
    /// whose stride is not 0 (a stride-0 dimension repeats positions), by
    /// the loop engine's offset walk. Called after `check_span` has put
    /// every position inside a block, so each fits in `isize`.
    pub fn for_each(&self, f: &mut dyn FnMut(i128) -> Result<(), Error>) -> Result<(), Error> {
        let dims: Vec<(usize, isize)> = self
            .dims
            .iter()
            .copied()
            .filter(|&(n, s)| s != 0 || n == 0)
            .collect();
        crate::offsets::try_for_each_offset(&dims, |o| f(self.base + o as i128))
    }
}

/// The field types of a tuple or struct type (none for another type).
pub(crate) fn field_types(ty: &Type) -> Vec<&Type> {
    match ty.kind() {
        TypeKind::Tuple(t) => t.fields.iter().collect(),
        TypeKind::Struct(s) => s.fields.iter().map(|(_, t)| t).collect(),
        _ => Vec::new(),
    }
}

fn layout(problem: LayoutProblem) -> Error {
    Error::Layout(Box::new(problem))
}

fn overflow() -> Error {
    layout(LayoutProblem::Overflow)
}

/// Checks that `count` bytes from each position lie inside `block`, and
/// that the positions are aligned to `align`.
fn check_span(
    ty: &Type,
    positions: &Positions,
    size: usize,
    align: usize,
    block: &MemoryBlock,
    what: &'static str,
) -> Result<(), Error> {
    let Some((lo, hi)) = positions.span()? else {
        return Ok(());
    };
    let end = hi.checked_add(size as i128).ok_or_else(overflow)?;
    if lo < 0 || end > block.len() as i128 {
        return Err(layout(LayoutProblem::Outside {
            part: what,
            ty: ty.clone(),
            start: lo,
            end,
            block: block.len(),
        }));
    }
    if align > 1 && size > 0 {
        // Alignments are powers of two: the low bits decide, and they
        // survive truncating the (in-range, non-negative) position.
        debug_assert!(align.is_power_of_two());
        let mask = align - 1;
        let address = (block.as_ptr() as usize).wrapping_add(positions.base as usize);
        let misaligned = address & mask != 0
            || positions
                .dims
                .iter()
                .any(|&(n, s)| n > 1 && (s as usize) & mask != 0);
        if misaligned {
            return Err(layout(LayoutProblem::Misaligned {
                part: what,
                ty: ty.clone(),
                align,
            }));
        }
    }
    Ok(())
}

fn mismatch(ty: &Type, meta: &Arrmeta) -> Error {
    let record = match meta {
        Arrmeta::Scalar => "a scalar",
        Arrmeta::Fixed { .. } => "a fixed dimension",
        Arrmeta::Var { .. } => "a var dimension",
        Arrmeta::Text { .. } => "a text",
        Arrmeta::Option(_) => "an option",
        Arrmeta::Fields { .. } => "a fields",
        // Made by `Array::from_columns` alone, never from parts.
        Arrmeta::Columns(_) => "a columns",
        Arrmeta::Categories { .. } => "a categories",
    };
    layout(LayoutProblem::Arrmeta {
        record,
        ty: ty.clone(),
    })
}

/// Reads the (start, length) pair at `at` of `block` (in range: checked by
/// the caller's span check).
pub fn pair_at(block: &MemoryBlock, at: i128) -> Result<(u64, u64), Error> {
    let at = usize::try_from(at).map_err(|_| overflow())?;
    let bytes = block.bytes().get(at..at + PAIR_SIZE).ok_or_else(|| {
        layout(LayoutProblem::Read {
            op: "validation".into(),
            part: "a (start, length) pair",
        })
    })?;
    Ok(read_pair(bytes))
}

/// The bytes of the (start, length) pairs at `positions` when they are
/// one contiguous run inside `block`, else `None`.
fn pair_run<'b>(positions: &Positions, block: &'b MemoryBlock) -> Option<&'b [u8]> {
    let [(n, step)] = positions.dims[..] else {
        return None;
    };
    if step != PAIR_SIZE as isize && n > 1 {
        return None;
    }
    let first = usize::try_from(positions.base).ok()?;
    let len = n.checked_mul(PAIR_SIZE)?;
    block.bytes().get(first..first.checked_add(len)?)
}

/// Whether every (start, length) pair of a contiguous run of strings at
/// `positions` lies inside a text block of `text` bytes: one tight pass,
/// with no error to build (the general walk finds the offending string
/// when this says no, or when the pairs are not one run).
fn text_pairs_fit(positions: &Positions, block: &MemoryBlock, text: usize) -> bool {
    let Some(pairs) = pair_run(positions, block) else {
        return false;
    };
    let text = text as u64;
    pairs.chunks_exact(PAIR_SIZE).fold(true, |fits, pair| {
        let (start, len) = read_pair(pair);
        // `start <= text` first, so `text - start` does not wrap.
        fits & (start <= text) & (len <= text.wrapping_sub(start))
    })
}

/// Whether every row of plain elements (`layout`) whose (start, length)
/// pairs are one contiguous run at `positions` lies inside `values` and is
/// aligned: one tight pass over the pairs, with no error to build (the
/// general walk finds the offending row when this says no, or when the
/// pairs are not one run).
fn plain_rows_fit(
    positions: &Positions,
    block: &MemoryBlock,
    offset: usize,
    stride: isize,
    layout: DataLayout,
    values: &MemoryBlock,
) -> bool {
    let Some(pairs) = pair_run(positions, block) else {
        return false;
    };
    let limit = values.len() as i64;
    if limit > 1 << 61 {
        // Sums below could overflow: the walk checks such a block.
        return false;
    }
    let mask = layout.align.max(1) as u64 - 1;
    if stride as u64 & mask != 0 {
        // Rows of two or more elements would be misaligned: the walk
        // checks row by row.
        return false;
    }
    let (offset, stride, size) = (offset as i64, stride as i64, layout.size as i64);
    // A row of at most `max_len` elements reaches at most `limit` bytes
    // from its first, so `reach` below does not overflow.
    let max_len = match stride.unsigned_abs() {
        0 => u64::MAX,
        s => limit as u64 / s + 1,
    };
    let address = values.as_ptr() as u64;
    let mut fits = true;
    for pair in pairs.chunks_exact(PAIR_SIZE) {
        let (start, len) = read_pair(pair);
        // Wrapping sums: a start past `limit` is refused by `base <= limit`
        // before `lo` and `hi` are trusted.
        let base = offset.wrapping_add(start as i64);
        let reach = (len.min(max_len) as i64)
            .wrapping_sub(1)
            .wrapping_mul(stride);
        let (lo, hi) = (base + reach.min(0), base + reach.max(0));
        let row = len <= max_len
            && (0..=limit).contains(&base)
            && lo >= 0
            && hi + size <= limit
            && address.wrapping_add(base as u64) & mask == 0;
        // An empty row reaches nothing.
        fits &= len == 0 || row;
    }
    fits
}

fn check(
    ty: &Type,
    meta: &Arrmeta,
    block: &MemoryBlock,
    positions: &mut Positions,
) -> Result<(), Error> {
    match (ty.kind(), meta) {
        (
            TypeKind::Dim(Dim::Fixed(n), element_ty),
            Arrmeta::Fixed {
                size,
                stride,
                element,
            },
        ) if n == size => {
            positions.dims.push((*size, *stride));
            let result = check(element_ty, element, block, positions);
            positions.dims.pop();
            result
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
            check_span(ty, positions, PAIR_SIZE, 8, block, "row pairs")?;
            // One row record, reused: a row is `len` elements from
            // `offset + start`, `stride` apart.
            let mut row = Positions {
                base: 0,
                dims: vec![(0, *stride)],
            };
            // Rows of plain elements (the common case): the element's
            // layout once, not once per row.
            let plain = match (&**element, element_ty.kind()) {
                (Arrmeta::Scalar, TypeKind::Scalar(s))
                    if !matches!(s, Scalar::String | Scalar::Bytes) =>
                {
                    Some(element_ty.data_layout()?)
                }
                _ => None,
            };
            if let Some(l) = plain {
                if plain_rows_fit(positions, block, *offset, *stride, l, values) {
                    return Ok(());
                }
                // Otherwise the walk below says which row is wrong.
            }
            positions.for_each(&mut |at| {
                let (start, len) = pair_at(block, at)?;
                // `start` is a signed byte offset from `offset`.
                row.base = (*offset as i128)
                    .checked_add(start as i64 as i128)
                    .ok_or_else(overflow)?;
                row.dims[0].0 = usize::try_from(len).map_err(|_| overflow())?;
                match plain {
                    Some(l) if len > 0 => {
                        // The row's lowest and highest element, inside the
                        // block and aligned; `check_span` says what is
                        // wrong otherwise.
                        let reach = (len as i128 - 1) * *stride as i128;
                        let (lo, hi) = (row.base + reach.min(0), row.base + reach.max(0));
                        let mask = l.align.max(1) - 1;
                        let address = (values.as_ptr() as usize).wrapping_add(row.base as usize);
                        let stride_ok = len == 1 || (*stride as usize) & mask == 0;
                        if lo >= 0
                            && hi + l.size as i128 <= values.len() as i128
                            && address & mask == 0
                            && stride_ok
                        {
                            Ok(())
                        } else {
                            check_span(element_ty, &row, l.size, l.align, values, "elements")
                        }
                    }
                    Some(_) => Ok(()),
                    None => check(element_ty, element, values, &mut row),
                }
            })
        }
        (TypeKind::Scalar(Scalar::String | Scalar::Bytes), Arrmeta::Text { block: text }) => {
            check_span(ty, positions, PAIR_SIZE, 8, block, "(start, length) pairs")?;
            if text_pairs_fit(positions, block, text.len()) {
                return Ok(());
            }
            // Otherwise the walk below says which string is wrong.
            positions.for_each(&mut |at| {
                let (start, len) = pair_at(block, at)?;
                let end = start.checked_add(len);
                if end.is_none_or(|end| end > text.len() as u64) {
                    return Err(layout(LayoutProblem::Outside {
                        part: "text",
                        ty: ty.clone(),
                        start: i128::from(start),
                        end: i128::from(start) + i128::from(len),
                        block: text.len(),
                    }));
                }
                Ok(())
            })
        }
        (TypeKind::Option(inner), Arrmeta::Option(inner_meta)) if !inner.is_dim() => {
            let layout = ty.data_layout()?;
            check_span(ty, positions, layout.size, layout.align, block, "elements")?;
            if let Some(codes) = codes_of(inner, inner_meta) {
                // The codes of NA elements name nothing: not checked.
                let flag = inner.data_layout()?.size as i128;
                return codes.check(inner, block, positions, Some(flag));
            }
            check(inner, inner_meta, block, positions)
        }
        (TypeKind::Categorical { .. }, Arrmeta::Categories { .. }) => {
            let Some(codes) = codes_of(ty, meta) else {
                return Err(mismatch(ty, meta));
            };
            let layout = ty.data_layout()?;
            check_span(ty, positions, layout.size, layout.align, block, "codes")?;
            codes.check(ty, block, positions, None)
        }
        (TypeKind::Tuple(_) | TypeKind::Struct(_), Arrmeta::Fields { offsets, fields }) => {
            let types = field_types(ty);
            if types.len() != fields.len()
                || ty.field_offsets().as_deref() != Some(offsets.as_slice())
            {
                return Err(mismatch(ty, meta));
            }
            let layout = ty.data_layout()?;
            check_span(ty, positions, layout.size, layout.align, block, "elements")?;
            for ((t, m), off) in types.into_iter().zip(fields).zip(offsets) {
                let mut field = positions.clone();
                field.base += *off as i128;
                check(t, m, block, &mut field)?;
            }
            Ok(())
        }
        (
            TypeKind::Scalar(_)
            | TypeKind::FixedString { .. }
            | TypeKind::FixedBytes { .. }
            | TypeKind::DateTimeTz { .. }
            | TypeKind::Void,
            Arrmeta::Scalar,
        ) if !matches!(ty.as_scalar(), Some(Scalar::String | Scalar::Bytes)) => {
            let layout = ty.data_layout()?;
            check_span(ty, positions, layout.size, layout.align, block, "elements")
        }
        _ => Err(mismatch(ty, meta)),
    }
}

/// What checking a categorical's codes needs: the code's scalar and the
/// number of categories.
pub(crate) struct CodeCheck {
    index: Scalar,
    k: usize,
}

/// The [`CodeCheck`] of a categorical type `ty` with arrmeta `meta`, when
/// the arrmeta is the type's: categories `K * T` of the type's `T`.
pub(crate) fn codes_of(ty: &Type, meta: &Arrmeta) -> Option<CodeCheck> {
    let (TypeKind::Categorical { values, index }, Arrmeta::Categories { categories }) =
        (ty.kind(), meta)
    else {
        return None;
    };
    match categories.ty().kind() {
        TypeKind::Dim(dynd_types::Dim::Fixed(k), t) if t == values => Some(CodeCheck {
            index: *index,
            k: *k,
        }),
        _ => None,
    }
}

/// `$e` with `$t` the integer type of index scalar `$index` (`$none` for
/// a scalar no index has).
macro_rules! by_index {
    ($index:expr, $t:ident => $e:expr, $none:expr) => {
        match $index {
            Scalar::Int8 => {
                type $t = i8;
                $e
            }
            Scalar::Int16 => {
                type $t = i16;
                $e
            }
            Scalar::Int32 => {
                type $t = i32;
                $e
            }
            Scalar::Int64 => {
                type $t = i64;
                $e
            }
            Scalar::UInt8 => {
                type $t = u8;
                $e
            }
            Scalar::UInt16 => {
                type $t = u16;
                $e
            }
            Scalar::UInt32 => {
                type $t = u32;
                $e
            }
            Scalar::UInt64 => {
                type $t = u64;
                $e
            }
            _ => $none,
        }
    };
}

/// The code of scalar `index` at the start of `bytes` (its size at least);
/// -1 for a scalar no index has (`Type::new` refuses one).
pub(crate) fn code_at(bytes: &[u8], index: Scalar) -> i128 {
    by_index!(index, T => {
        const N: usize = std::mem::size_of::<T>();
        i128::from(T::from_ne_bytes(bytes[..N].try_into().unwrap_or([0; N])))
    }, -1)
}

impl CodeCheck {
    /// Whether the codes at `positions` lie side by side (one run, as
    /// every array a function makes has them) and all in `0..K`: a
    /// branch-free pass over the run, the least and greatest code at once.
    fn all_in_range(&self, bytes: &[u8], positions: &Positions) -> bool {
        let size = self.index.size();
        let (start, n) = match positions.dims[..] {
            [] => (positions.base, 1),
            [(n, s)] if s == size as isize => (positions.base, n),
            _ => return false,
        };
        let Some(run) = usize::try_from(start)
            .ok()
            .and_then(|a| bytes.get(a..a.checked_add(n.checked_mul(size)?)?))
        else {
            return false;
        };
        let k = self.k as i128;
        by_index!(self.index, T => {
            const N: usize = std::mem::size_of::<T>();
            let (lo, hi) = run.chunks_exact(N).fold((T::MAX, T::MIN), |(lo, hi), c| {
                let x = T::from_ne_bytes(c.try_into().unwrap_or([0; N]));
                (lo.min(x), hi.max(x))
            });
            n == 0 || (i128::from(lo) >= 0 && i128::from(hi) < k)
        }, false)
    }

    /// Checks the code at each of `positions` of `block` (their span
    /// checked already) lies in `0..K`; with `flag` (an option's flag
    /// byte's offset from the code), only where the flag says valid.
    pub(crate) fn check(
        &self,
        ty: &Type,
        block: &MemoryBlock,
        positions: &Positions,
        flag: Option<i128>,
    ) -> Result<(), Error> {
        let bytes = block.bytes();
        let size = self.index.size();
        if flag.is_none() && self.all_in_range(bytes, positions) {
            return Ok(());
        }
        // Otherwise the walk below says which code is wrong.
        positions.for_each(&mut |at| {
            let at = at as usize;
            if let Some(f) = flag {
                if bytes[(at as i128 + f) as usize] == 0 {
                    return Ok(());
                }
            }
            let code = code_at(&bytes[at..at + size], self.index);
            if code < 0 || code >= self.k as i128 {
                return Err(layout(LayoutProblem::Code {
                    ty: ty.clone(),
                    code,
                    categories: self.k,
                }));
            }
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use dynd_types::Type;

    use crate::arrmeta::{write_pair, Arrmeta, PAIR_SIZE};
    use crate::memory::MemoryBlock;
    use crate::{array, Array, Error};

    fn t(s: &str) -> Type {
        s.parse().unwrap()
    }

    fn fixed(size: usize, stride: isize, element: Arrmeta) -> Arrmeta {
        Arrmeta::Fixed {
            size,
            stride,
            element: Box::new(element),
        }
    }

    fn parts(
        ty: &str,
        meta: Arrmeta,
        block: Arc<MemoryBlock>,
        offset: usize,
    ) -> Result<Array, Error> {
        Array::try_from_parts(t(ty), Arc::new(meta), block, offset)
    }

    fn layout_error(r: Result<Array, Error>) -> String {
        match r {
            Err(Error::Layout(problem)) => problem.to_string(),
            other => panic!("expected a layout error, got {other:?}"),
        }
    }

    #[test]
    fn fixed_extents_must_lie_in_the_block() {
        let block = || MemoryBlock::from_vec(vec![0f64; 12]); // 96 bytes
                                                              // Exactly the block, forwards and backwards.
        assert!(parts("12 * float64", fixed(12, 8, Arrmeta::Scalar), block(), 0).is_ok());
        assert!(parts("12 * float64", fixed(12, -8, Arrmeta::Scalar), block(), 88).is_ok());
        assert!(parts("0 * float64", fixed(0, 8, Arrmeta::Scalar), block(), 96).is_ok());
        // One element too many, one byte too far, before the start.
        let e = layout_error(parts(
            "13 * float64",
            fixed(13, 8, Arrmeta::Scalar),
            block(),
            0,
        ));
        assert!(
            e.contains("bytes 0..104, outside their block of 96 bytes"),
            "{e}"
        );
        assert!(parts("12 * float64", fixed(12, 8, Arrmeta::Scalar), block(), 8).is_err());
        assert!(parts("12 * float64", fixed(12, -8, Arrmeta::Scalar), block(), 80).is_err());
        // The reshape overflow of the issue: sizes whose product wraps.
        let huge = fixed(
            4,
            8_isize.wrapping_mul(4611686018427387907),
            fixed(4611686018427387907, 8, Arrmeta::Scalar),
        );
        assert!(parts("4 * 4611686018427387907 * float64", huge, block(), 0).is_err());
        // Misaligned elements.
        let e = layout_error(parts(
            "2 * float64",
            fixed(2, 8, Arrmeta::Scalar),
            block(),
            4,
        ));
        assert!(e.contains("not aligned"), "{e}");
        assert!(parts("2 * float64", fixed(2, 12, Arrmeta::Scalar), block(), 0).is_err());
        // A stride of 0 repeats one element: fine however long.
        assert!(parts(
            "1000000 * float64",
            fixed(1_000_000, 0, Arrmeta::Scalar),
            block(),
            0
        )
        .is_ok());
    }

    #[test]
    fn arrmeta_must_fit_the_type() {
        let block = MemoryBlock::from_vec(vec![0f64; 12]);
        let e = layout_error(parts(
            "3 * float64",
            fixed(4, 8, Arrmeta::Scalar),
            block.clone(),
            0,
        ));
        assert!(e.contains("does not describe"), "{e}");
        assert!(parts("float64", fixed(1, 8, Arrmeta::Scalar), block.clone(), 0).is_err());
        assert!(parts("3 * string", fixed(3, 16, Arrmeta::Scalar), block, 0).is_err());
    }

    #[test]
    fn var_rows_must_lie_in_their_values() {
        let values = MemoryBlock::from_vec(vec![1i32, 2, 3, 4, 5]); // 20 bytes
        let rows = |pairs: &[(i64, u64)]| {
            let mut bytes = vec![0u8; pairs.len() * PAIR_SIZE];
            for (p, chunk) in pairs.iter().zip(bytes.chunks_exact_mut(PAIR_SIZE)) {
                write_pair(chunk, p.0 as u64, p.1);
            }
            MemoryBlock::from_bytes(&bytes)
        };
        let meta = |n: usize, offset: usize, stride: isize| {
            fixed(
                n,
                PAIR_SIZE as isize,
                Arrmeta::Var {
                    values: values.clone(),
                    offset,
                    stride,
                    packed: false,
                    element: Box::new(Arrmeta::Scalar),
                },
            )
        };
        let ok = parts("2 * var * int32", meta(2, 0, 4), rows(&[(0, 2), (8, 3)]), 0).unwrap();
        assert_eq!(ok.to_string(), "[[1, 2], [3, 4, 5]]");
        // A row one element too long; a negative start; a start that wraps.
        for bad in [(8, 4), (-4, 1), (i64::MAX, 1), (0, u64::MAX)] {
            let r = parts("2 * var * int32", meta(2, 0, 4), rows(&[(0, 1), bad]), 0);
            assert!(r.is_err(), "{bad:?}");
        }
        // Backwards rows from an offset are fine while they stay inside.
        assert!(parts("1 * var * int32", meta(1, 16, -4), rows(&[(0, 5)]), 0).is_ok());
        assert!(parts("1 * var * int32", meta(1, 16, -4), rows(&[(0, 6)]), 0).is_err());
        // Row pairs themselves outside the data block.
        assert!(parts("3 * var * int32", meta(3, 0, 4), rows(&[(0, 1), (0, 1)]), 0).is_err());
    }

    #[test]
    fn a_packed_flag_must_hold() {
        let values = MemoryBlock::from_vec(vec![1i32, 2, 3, 4, 5, 6]);
        let pairs = |pairs: &[(i64, u64)]| {
            let mut bytes = vec![0u8; pairs.len() * PAIR_SIZE];
            for (p, chunk) in pairs.iter().zip(bytes.chunks_exact_mut(PAIR_SIZE)) {
                write_pair(chunk, p.0 as u64, p.1);
            }
            MemoryBlock::from_bytes(&bytes)
        };
        let var = |values: &Arc<MemoryBlock>, packed: bool, element: Arrmeta| Arrmeta::Var {
            values: values.clone(),
            offset: 0,
            stride: if matches!(element, Arrmeta::Scalar) {
                4
            } else {
                16
            },
            packed,
            element: Box::new(element),
        };
        let flat = |rows: &[(i64, u64)], packed: bool| {
            let n = rows.len();
            parts(
                &format!("{n} * var * int32"),
                fixed(n, 16, var(&values, packed, Arrmeta::Scalar)),
                pairs(rows),
                0,
            )
        };
        assert!(flat(&[(0, 2), (8, 0), (8, 3)], true).is_ok());
        // Not from 0; a gap; the rows in another order; overlapping rows.
        for bad in [
            &[(4, 2), (12, 3)][..],
            &[(0, 2), (12, 3)],
            &[(8, 3), (0, 2)],
            &[(0, 2), (4, 3)],
        ] {
            assert!(flat(bad, false).is_ok(), "{bad:?}");
            let e = layout_error(flat(bad, true));
            assert!(e.contains("marked packed"), "{e}");
        }
        let e = layout_error(flat(&[(0, 2), (12, 3)], true));
        assert!(e.contains("row 1 (in C order of the dimensions above) starts at byte 12 of its values, not at 8"), "{e}");
        // The pairs read in C order of a transposed dimension above.
        let four = pairs(&[(0, 1), (4, 1), (8, 1), (12, 1)]);
        let grid =
            |s0: isize, s1: isize| fixed(2, s0, fixed(2, s1, var(&values, true, Arrmeta::Scalar)));
        assert!(parts("2 * 2 * var * int32", grid(32, 16), four.clone(), 0).is_ok());
        assert!(parts("2 * 2 * var * int32", grid(16, 32), four, 0).is_err());
        // An inner level counts its rows across the outer ones: rows 0..2
        // of the inner pairs under outer row 0, row 2 under outer row 1.
        let inner = pairs(&[(0, 1), (4, 2), (12, 3)]);
        let outer = |second: (i64, u64)| pairs(&[(0, 2), second]);
        let nested = |o: Arc<MemoryBlock>| {
            parts(
                "2 * var * var * int32",
                fixed(
                    2,
                    16,
                    var(&inner, false, var(&values, true, Arrmeta::Scalar)),
                ),
                o,
                0,
            )
        };
        assert!(nested(outer((32, 1))).is_ok());
        // Outer row 1 skips inner row 2 for row 1: inner row 1 read twice.
        let e = layout_error(nested(outer((16, 1))));
        assert!(
            e.contains("row 2") && e.contains("byte 4 of its values, not at 12"),
            "{e}"
        );
    }

    #[test]
    fn strings_must_lie_in_their_text() {
        let a = array!["ab", "cde"];
        let Arrmeta::Fixed { element, .. } = a.arrmeta() else {
            unreachable!()
        };
        let text = match &**element {
            Arrmeta::Text { block } => block.clone(),
            _ => unreachable!(),
        };
        let pairs = |p: (u64, u64)| {
            let mut bytes = vec![0u8; PAIR_SIZE];
            write_pair(&mut bytes, p.0, p.1);
            MemoryBlock::from_bytes(&bytes)
        };
        let meta = || {
            fixed(
                1,
                16,
                Arrmeta::Text {
                    block: text.clone(),
                },
            )
        };
        assert_eq!(
            parts("1 * string", meta(), pairs((2, 3)), 0)
                .unwrap()
                .to_string(),
            "[\"cde\"]"
        );
        for bad in [(2, 4), (6, 0), (u64::MAX, 2)] {
            let e = layout_error(parts("1 * string", meta(), pairs(bad), 0));
            assert!(e.contains("outside their block of 5 bytes"), "{e}");
        }
    }
}
