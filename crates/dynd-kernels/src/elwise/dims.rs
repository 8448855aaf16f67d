//! Dimension kernels for several inputs: merged fixed loops (tiled for a
//! transposed operand) and `var` rows checked per row.

use smallvec::{smallvec, SmallVec};

use dynd_types::{Dim, Type, TypeKind};

use super::*;
use crate::arrmeta::Arrmeta;
use crate::assign::dims::{BlockPtr, VarRows};
use crate::error::{Error, KernelError, KernelErrorKind};
use crate::kernel::{Child, KernelBuilder, KernelCtx, KernelData};

/// Most loops one record holds.
pub(super) const MAX_LOOPS: usize = 8;

/// Tile edge, in elements, for blocked loops.
pub(super) const TILE: usize = 32;

/// One fixed dimension: its size, the destination's stride and each source's.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct NLoop {
    size: usize,
    dst: isize,
    src: [isize; MAX_ARGS],
}

/// Nested loops over fixed dimensions for `nsrc` sources.
pub(super) struct NaryLoops {
    loops: [NLoop; MAX_LOOPS],
    len: usize,
    nsrc: usize,
    /// Sizes of the original axes, outermost first (loops are merged in
    /// order, never reordered, so an index splits back exactly).
    shape: [usize; MAX_LOOPS],
    /// How many original axes each loop merges.
    merged: [u8; MAX_LOOPS],
    /// Whether the last two loops run in tiles.
    blocked: bool,
    child: Child,
}

impl NaryLoops {
    /// # Safety
    ///
    /// Every element the loops reach is valid.
    unsafe fn run(
        &self,
        ctx: &KernelCtx<'_>,
        level: usize,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        let l = &self.loops[level];
        let strides = &l.src[..self.nsrc];
        if level + 2 == self.len && self.blocked {
            // SAFETY: the same elements, visited tile by tile.
            return unsafe { self.run_blocked(ctx, level, dst, src) };
        }
        if level + 1 == self.len {
            // SAFETY: the innermost run is valid by the contract.
            return unsafe {
                ctx.child(self.child)
                    .strided(dst, l.dst, src, strides, l.size)
            }
            .map_err(|e| self.unmerge(e, level));
        }
        let mut s: SmallVec<[*const u8; MAX_ARGS]> = src.iter().copied().collect();
        let mut d = dst;
        for i in 0..l.size {
            // SAFETY: as above, one level in.
            unsafe { self.run(ctx, level + 1, d, &s) }.map_err(|e| self.unmerge(e.at(i), level))?;
            d = d.wrapping_offset(l.dst);
            for (p, st) in s.iter_mut().zip(strides) {
                *p = p.wrapping_offset(*st);
            }
        }
        Ok(())
    }

    /// Runs the last two loops in tiles, so that a source walked across
    /// its rows (a transposed operand) reuses the cache lines it loads.
    ///
    /// # Safety
    ///
    /// As [`Self::run`].
    unsafe fn run_blocked(
        &self,
        ctx: &KernelCtx<'_>,
        level: usize,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        let (outer, inner) = (&self.loops[level], &self.loops[level + 1]);
        let child = ctx.child(self.child);
        let mut ptrs: SmallVec<[*const u8; MAX_ARGS]> = src.iter().copied().collect();
        for jb in (0..inner.size).step_by(TILE) {
            let jn = TILE.min(inner.size - jb);
            for ib in (0..outer.size).step_by(TILE) {
                for i in ib..(ib + TILE).min(outer.size) {
                    let (io, jo) = (i as isize, jb as isize);
                    let d = dst.wrapping_offset(io * outer.dst + jo * inner.dst);
                    for (k, p) in ptrs.iter_mut().enumerate() {
                        *p = src[k].wrapping_offset(io * outer.src[k] + jo * inner.src[k]);
                    }
                    // SAFETY: part of row `i`'s innermost run, valid by the contract.
                    unsafe { child.strided(d, inner.dst, &ptrs, &inner.src[..self.nsrc], jn) }
                        .map_err(|e| {
                            let j = jb + e.path().first().copied().unwrap_or(0);
                            let mut fresh = KernelError::new(e.kind().clone());
                            for &x in e.path().iter().skip(1).rev() {
                                fresh = fresh.at(x);
                            }
                            self.unmerge(self.unmerge(fresh.at(j), level + 1).at(i), level)
                        })?;
                }
            }
        }
        Ok(())
    }

    /// Splits the index of a merged loop back into its original axes.
    fn unmerge(&self, e: KernelError, level: usize) -> KernelError {
        let m = self.merged[level] as usize;
        if m <= 1 || e.path().is_empty() {
            return e;
        }
        let mut rest: SmallVec<[usize; 8]> = e.path().iter().copied().collect();
        let mut flat = rest.remove(0);
        let start: usize = self.merged[..level].iter().map(|&x| x as usize).sum();
        let mut parts: SmallVec<[usize; 8]> = SmallVec::new();
        for axis in (start..start + m).rev() {
            let n = self.shape[axis].max(1);
            parts.push(flat % n);
            flat /= n;
        }
        let mut fresh = KernelError::new(e.kind().clone());
        for &i in rest.iter().rev() {
            fresh = fresh.at(i);
        }
        for &i in parts.iter() {
            fresh = fresh.at(i);
        }
        fresh
    }
}

impl KernelData for NaryLoops {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        if self.len == 0 {
            // SAFETY: one element.
            return unsafe { ctx.child(self.child).single(dst, src) };
        }
        if self.loops[..self.len].iter().any(|l| l.size == 0) {
            return Ok(());
        }
        // SAFETY: by the contract.
        unsafe { self.run(ctx, 0, dst, src) }
    }

    fn describe(&self) -> String {
        let loops: Vec<String> = self.loops[..self.len]
            .iter()
            .map(|l| format!("{}:({}; {:?})", l.size, l.dst, &l.src[..self.nsrc]))
            .collect();
        let blocked = if self.blocked {
            ", last two in tiles"
        } else {
            ""
        };
        format!(
            "elementwise loops [{}] (size:(dst stride; src strides){blocked})",
            loops.join(", ")
        )
    }

    fn children(&self) -> SmallVec<[Child; 2]> {
        smallvec![self.child]
    }
}

/// A `var` (or fixed) dimension in the sources under a fixed destination
/// dimension: each source row must have the destination's length or 1.
pub(super) struct NaryVar {
    /// The destination's var rows, or `None` for a fixed dimension of
    /// `size` elements `dst_stride` apart.
    dst_rows: Option<VarRows>,
    size: usize,
    dst_stride: isize,
    nsrc: usize,
    src: [SrcLevel; MAX_ARGS],
    child: Child,
}

#[derive(Clone, Copy)]
pub(super) enum SrcLevel {
    Var(VarRows),
    Fixed { size: usize, stride: isize },
    Broadcast,
}

impl KernelData for NaryVar {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        let (dst, size, dst_stride) = match &self.dst_rows {
            Some(rows) => {
                // SAFETY: `dst` is a valid (start, length) pair of the destination's var dimension.
                let (row, len) = unsafe { rows.row(dst) };
                (row as *mut u8, len, rows.stride)
            }
            None => (dst, self.size, self.dst_stride),
        };
        let mut ptrs: SmallVec<[*const u8; MAX_ARGS]> = SmallVec::new();
        let mut strides: SmallVec<[isize; MAX_ARGS]> = SmallVec::new();
        for (level, &p) in self.src[..self.nsrc].iter().zip(src) {
            let (row, len, stride) = match level {
                SrcLevel::Var(rows) => {
                    // SAFETY: `p` is a valid (start, length) pair of this dimension.
                    let (r, n) = unsafe { rows.row(p) };
                    (r, n, rows.stride)
                }
                SrcLevel::Fixed { size, stride } => (p, *size, *stride),
                SrcLevel::Broadcast => (p, 1, 0),
            };
            let stride = if len == size {
                stride
            } else if len == 1 {
                0
            } else {
                return Err(KernelError::new(KernelErrorKind::RaggedRow {
                    len,
                    expected: size,
                }));
            };
            ptrs.push(row);
            strides.push(stride);
        }
        // SAFETY: `size` destination elements and matching source rows.
        unsafe {
            ctx.child(self.child)
                .strided(dst, dst_stride, &ptrs, &strides, size)
        }
    }

    fn describe(&self) -> String {
        let kinds: Vec<&str> = self.src[..self.nsrc]
            .iter()
            .map(|s| match s {
                SrcLevel::Var(_) => "var",
                SrcLevel::Fixed { .. } => "fixed",
                SrcLevel::Broadcast => "broadcast",
            })
            .collect();
        let dst = if self.dst_rows.is_some() {
            "var".to_string()
        } else {
            self.size.to_string()
        };
        format!("{dst} <- [{}] (row lengths checked)", kinds.join(", "))
    }

    fn children(&self) -> SmallVec<[Child; 2]> {
        smallvec![self.child]
    }
}

/// The dimension levels of a type with their arrmeta records.
pub(super) type Levels<'a> = SmallVec<[(&'a Dim, &'a Arrmeta); 8]>;

/// One level of a type with its arrmeta.
pub(super) fn levels<'a>(ty: &'a Type, meta: &'a Arrmeta) -> Levels<'a> {
    let mut out = SmallVec::new();
    let (mut t, mut m) = (ty, meta);
    while let TypeKind::Dim(dim, element) = t.kind() {
        let next = match m {
            Arrmeta::Fixed { element, .. } | Arrmeta::Var { element, .. } => element,
            _ => break,
        };
        out.push((dim, m));
        t = element;
        m = next;
    }
    out
}

/// Pushes the dimension kernels of an elementwise operation and, under
/// them, the leaf that `leaf` pushes. The destination is an output
/// allocated for the broadcast result ([`alloc_broadcast`] gives its `var`
/// rows their lengths); sources broadcast to it, with `var` rows checked
/// against the destination's at run time.
///
/// # Errors
///
/// [`Error::Broadcast`] for a source dimension that does not broadcast,
/// [`Error::Unsupported`] for more than [`MAX_ARGS`] sources or a `var`
/// destination dimension, and whatever `leaf` returns.
pub fn push_elwise<'a>(
    b: &mut KernelBuilder<'a>,
    dst: (&'a Type, &'a Arrmeta),
    srcs: &[(&'a Type, &'a Arrmeta)],
    leaf: &mut dyn FnMut(&mut KernelBuilder<'a>) -> Result<Child, Error>,
) -> Result<Child, Error> {
    push_lifted(b, dst, 0, srcs, &[0; MAX_ARGS], leaf)
}

/// As [`push_elwise`], over all but the last `dst_core` dimensions of the
/// destination and the last `src_core[i]` of source `i`: the leaf is
/// called with pointers to the first element of each operand's *core*
/// (the sub-array those trailing dimensions span).
pub(super) fn push_lifted<'a>(
    b: &mut KernelBuilder<'a>,
    dst: (&'a Type, &'a Arrmeta),
    dst_core: usize,
    srcs: &[(&'a Type, &'a Arrmeta)],
    src_core: &[usize],
    leaf: &mut dyn FnMut(&mut KernelBuilder<'a>) -> Result<Child, Error>,
) -> Result<Child, Error> {
    if srcs.len() > MAX_ARGS {
        return Err(Error::Value {
            what: format!(
                "an elementwise kernel takes at most {MAX_ARGS} inputs, not {}",
                srcs.len()
            ),
        });
    }
    let mut dst_levels = levels(dst.0, dst.1);
    dst_levels.truncate(dst_levels.len().saturating_sub(dst_core));
    let nd = dst_levels.len();
    let src_levels: SmallVec<[Levels<'_>; MAX_ARGS]> = srcs
        .iter()
        .enumerate()
        .map(|(i, (t, m))| {
            let core = src_core.get(i).copied().unwrap_or(0);
            let mut l = levels(t, m);
            l.truncate(l.len().saturating_sub(core));
            l
        })
        .collect();
    for (i, l) in src_levels.iter().enumerate() {
        if l.len() > nd {
            return Err(Error::Broadcast {
                axis: 0,
                src_dim: l[0].0.to_string(),
                dst_dim: "none".into(),
                src: srcs[i].0.clone(),
                dst: dst.0.clone(),
            });
        }
    }
    // Source level `k` of argument `i` meets destination level `k + shift_i`.
    let at = |i: usize, level: usize| -> Option<(&Dim, &Arrmeta)> {
        let shift = nd - src_levels[i].len();
        level.checked_sub(shift).map(|k| src_levels[i][k])
    };
    push_levels(b, dst, srcs, &dst_levels, &at, 0, leaf)
}

#[allow(clippy::too_many_arguments)]
pub(super) fn push_levels<'a>(
    b: &mut KernelBuilder<'a>,
    dst: (&'a Type, &'a Arrmeta),
    srcs: &[(&'a Type, &'a Arrmeta)],
    dst_levels: &[(&'a Dim, &'a Arrmeta)],
    at: &dyn Fn(usize, usize) -> Option<(&'a Dim, &'a Arrmeta)>,
    level: usize,
    leaf: &mut dyn FnMut(&mut KernelBuilder<'a>) -> Result<Child, Error>,
) -> Result<Child, Error> {
    let nd = dst_levels.len();
    if level == nd {
        return leaf(b);
    }
    let n = srcs.len();
    let var_rows = |m: &Arrmeta| match m {
        Arrmeta::Var {
            values,
            offset,
            stride,
            ..
        } => Some(VarRows {
            base: BlockPtr(values.as_ptr().wrapping_add(*offset)),
            stride: *stride,
        }),
        _ => None,
    };
    let dst_rows = var_rows(dst_levels[level].1);
    let (size, dst_stride) = dst_levels[level]
        .1
        .as_fixed()
        .map_or((0, 0), |(n, s, _)| (n, s));
    let is_fixed_level = |l: usize| {
        dst_levels[l].1.as_fixed().is_some()
            && (0..n).all(|i| !matches!(at(i, l).map(|x| x.1), Some(Arrmeta::Var { .. })))
    };
    if is_fixed_level(level) {
        let mut end = level;
        while end < nd && end - level < MAX_LOOPS && is_fixed_level(end) {
            end += 1;
        }
        let mut loops: SmallVec<[NLoop; MAX_LOOPS]> = SmallVec::new();
        for (l, (_, dst_meta)) in dst_levels.iter().enumerate().take(end).skip(level) {
            let Some((size, dst_stride, _)) = dst_meta.as_fixed() else {
                unreachable!()
            };
            let mut src = [0isize; MAX_ARGS];
            for (i, s) in src.iter_mut().enumerate().take(n) {
                *s = match at(i, l).and_then(|x| x.1.as_fixed()) {
                    None => 0,
                    Some((m, stride, _)) if m == size => stride,
                    Some((1, _, _)) => 0,
                    Some((m, _, _)) => {
                        return Err(Error::Broadcast {
                            axis: l,
                            src_dim: m.to_string(),
                            dst_dim: size.to_string(),
                            src: srcs[i].0.clone(),
                            dst: dst.0.clone(),
                        })
                    }
                };
            }
            loops.push(NLoop {
                size,
                dst: dst_stride,
                src,
            });
        }
        let child = push_levels(b, dst, srcs, dst_levels, at, end, leaf)?;
        // Merge neighbours that walk memory as one for every operand.
        let mut record = NaryLoops {
            loops: [NLoop::default(); MAX_LOOPS],
            len: 0,
            nsrc: n,
            shape: [0; MAX_LOOPS],
            merged: [0; MAX_LOOPS],
            blocked: false,
            child,
        };
        for (k, l) in loops.iter().enumerate() {
            record.shape[k] = l.size;
            if record.len > 0 {
                let prev = &mut record.loops[record.len - 1];
                let m = l.size as isize;
                if prev.dst == l.dst * m && (0..n).all(|i| prev.src[i] == l.src[i] * m) {
                    prev.size *= l.size;
                    prev.dst = l.dst;
                    prev.src = l.src;
                    record.merged[record.len - 1] += 1;
                    continue;
                }
            }
            record.loops[record.len] = *l;
            record.merged[record.len] = 1;
            record.len += 1;
        }
        if record.len >= 2 {
            let (outer, inner) = (&record.loops[record.len - 2], &record.loops[record.len - 1]);
            // Tile when some source steps further in the inner loop than in
            // the outer one (a transposed operand) and both loops are long.
            record.blocked = outer.size >= 2 * TILE
                && inner.size >= 2 * TILE
                && (0..n).any(|k| {
                    inner.src[k].unsigned_abs() > outer.src[k].unsigned_abs() && outer.src[k] != 0
                });
        }
        return Ok(b.push(record));
    }
    let child = push_levels(b, dst, srcs, dst_levels, at, level + 1, leaf)?;
    let mut src = [SrcLevel::Broadcast; MAX_ARGS];
    for (i, s) in src.iter_mut().enumerate().take(n) {
        *s = match at(i, level) {
            None => SrcLevel::Broadcast,
            Some((_, m @ Arrmeta::Var { .. })) => match var_rows(m) {
                Some(rows) => SrcLevel::Var(rows),
                None => unreachable!("var arrmeta has rows"),
            },
            Some((_, m)) => match m.as_fixed() {
                Some((size, stride, _)) => SrcLevel::Fixed { size, stride },
                None => unreachable!("a dimension level has fixed or var arrmeta"),
            },
        };
    }
    Ok(b.push(NaryVar {
        dst_rows,
        size,
        dst_stride,
        nsrc: n,
        src,
        child,
    }))
}
