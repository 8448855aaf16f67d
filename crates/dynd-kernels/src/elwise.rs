//! Dimension kernels for elementwise operations with several inputs.
//!
//! [`push_elwise`] builds, for a destination and up to [`MAX_ARGS`]
//! sources, the kernels that walk their dimensions together (the sources
//! broadcast to the destination, right-aligned, size 1 and missing
//! dimensions stretching) and call a leaf kernel on each element. Fixed
//! dimensions become one loop record, coalesced and ordered by the
//! destination's strides, whose innermost loop calls the leaf's *strided*
//! kernel once per run; `var` dimensions in the sources check each row's
//! length at run time.
//!
//! The typed entry points run a Rust function elementwise, checking the
//! element types, broadcasting the inputs and allocating the output:
//!
//! ```
//! use dynd_kernels::{array, elwise};
//!
//! let (a, b) = (array![[1.0, 2.0], [3.0, 4.0]], array![10.0, 20.0]);
//! let r = elwise::map2(&a, &b, |x: f64, y: f64| x * y)?;
//! assert_eq!(r.to_string(), "[[10, 40], [30, 80]]");
//! assert_eq!(r.ty().to_string(), "2 * 2 * float64");
//!
//! // var rows broadcast into a fixed result.
//! let ragged = array![[1.0], [2.0, 3.0]];
//! let r = elwise::map2(&ragged, &array![[0.5, 0.25], [1.0, 2.0]], |x: f64, y: f64| x + y)?;
//! assert_eq!(r.to_string(), "[[1.5, 1.25], [3, 5]]");
//! # Ok::<(), dynd_kernels::Error>(())
//! ```

use smallvec::{smallvec, SmallVec};

use dynd_types::{Dim, Type, TypeKind};

use crate::array::Array;
use crate::arrmeta::Arrmeta;
use crate::assign::dims::{BlockPtr, VarRows};
use crate::element::Element;
use crate::error::{Error, KernelError, KernelErrorKind};
use crate::kernel::{Child, KernelBuilder, KernelCtx, KernelData};

/// The most inputs an elementwise kernel takes.
pub const MAX_ARGS: usize = 4;

/// Most loops one record holds.
const MAX_LOOPS: usize = 8;

/// Tile edge, in elements, for blocked loops.
const TILE: usize = 32;

/// One fixed dimension: its size, the destination's stride and each source's.
#[derive(Clone, Copy, Debug, Default)]
struct NLoop {
    size: usize,
    dst: isize,
    src: [isize; MAX_ARGS],
}

/// Nested loops over fixed dimensions for `nsrc` sources.
struct NaryLoops {
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
struct NaryVar {
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
enum SrcLevel {
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
type Levels<'a> = SmallVec<[(&'a Dim, &'a Arrmeta); 8]>;

/// One level of a type with its arrmeta.
fn levels<'a>(ty: &'a Type, meta: &'a Arrmeta) -> Levels<'a> {
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
    if srcs.len() > MAX_ARGS {
        return Err(Error::Value {
            what: format!(
                "an elementwise kernel takes at most {MAX_ARGS} inputs, not {}",
                srcs.len()
            ),
        });
    }
    let dst_levels = levels(dst.0, dst.1);
    let nd = dst_levels.len();
    let src_levels: SmallVec<[Levels<'_>; MAX_ARGS]> =
        srcs.iter().map(|(t, m)| levels(t, m)).collect();
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
fn push_levels<'a>(
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

/// The loop of a map leaf (a Rust function over fixed element types).
trait MapLoop: Send + Sync + 'static {
    /// # Safety
    ///
    /// As [`KernelData::strided`].
    unsafe fn strided_loop(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError>;

    /// One line for [`crate::kernel::Kernel::describe`].
    fn describe(&self) -> String;
}

/// A map leaf as a kernel record, and as a flat loop.
#[derive(Clone)]
struct MapLeaf<M>(M);

impl<M: MapLoop> KernelData for MapLeaf<M> {
    unsafe fn single(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        let zeros = [0isize; MAX_ARGS];
        // SAFETY: one element each, by the contract.
        unsafe { self.0.strided_loop(dst, 0, src, &zeros[..src.len()], 1) }
    }

    unsafe fn strided(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        // SAFETY: forwarded contract.
        unsafe { self.0.strided_loop(dst, dst_stride, src, src_stride, count) }
    }

    fn describe(&self) -> String {
        self.0.describe()
    }
}

impl<M: MapLoop> FlatRun for MapLeaf<M> {
    unsafe fn run(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) {
        // SAFETY: forwarded contract; maps never fail.
        let _ = unsafe { self.0.strided_loop(dst, dst_stride, src, src_stride, count) };
    }
}

/// A Rust function of one element, as a leaf kernel.
#[derive(Clone)]
struct Map1<A, R, F> {
    f: F,
    _types: std::marker::PhantomData<fn(A) -> R>,
}

/// A Rust function of two elements, as a leaf kernel.
#[derive(Clone)]
struct Map2<A, B, R, F> {
    f: F,
    _types: std::marker::PhantomData<fn(A, B) -> R>,
}

impl<A: Element, R: Element, F: Fn(A) -> R + Send + Sync + 'static> MapLoop for Map1<A, R, F> {
    /// # Safety
    ///
    /// As [`KernelData::strided`].
    unsafe fn strided_loop(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        let (d, a) = (dst as *mut R, src[0] as *const A);
        if dst_stride == size_of::<R>() as isize && src_stride[0] == size_of::<A>() as isize {
            for i in 0..count {
                // SAFETY: `count` contiguous elements on each side, by the contract.
                unsafe {
                    d.add(i)
                        .write_unaligned((self.f)(a.add(i).read_unaligned()))
                };
            }
        } else {
            for i in 0..count as isize {
                // SAFETY: `count` strided elements on each side, by the contract.
                unsafe {
                    let x = (src[0].offset(i * src_stride[0]) as *const A).read_unaligned();
                    (dst.offset(i * dst_stride) as *mut R).write_unaligned((self.f)(x));
                }
            }
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!("map {} -> {}", A::SCALAR, R::SCALAR)
    }
}

impl<A: Element, B: Element, R: Element, F: Fn(A, B) -> R + Send + Sync + 'static> MapLoop
    for Map2<A, B, R, F>
{
    /// # Safety
    ///
    /// As [`KernelData::strided`].
    unsafe fn strided_loop(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        let (d, a, b) = (dst as *mut R, src[0] as *const A, src[1] as *const B);
        let (sa, sb) = (src_stride[0], src_stride[1]);
        let unit = |s: isize, size: usize| s == size as isize;
        if unit(dst_stride, size_of::<R>()) && unit(sa, size_of::<A>()) && unit(sb, size_of::<B>())
        {
            for i in 0..count {
                // SAFETY: `count` contiguous elements on each side, by the contract.
                unsafe {
                    d.add(i).write_unaligned((self.f)(
                        a.add(i).read_unaligned(),
                        b.add(i).read_unaligned(),
                    ))
                };
            }
        } else if unit(dst_stride, size_of::<R>()) && unit(sa, size_of::<A>()) && sb == 0 {
            // SAFETY: the broadcast element is valid by the contract.
            let y = unsafe { b.read_unaligned() };
            for i in 0..count {
                // SAFETY: `count` contiguous elements, by the contract.
                unsafe {
                    d.add(i)
                        .write_unaligned((self.f)(a.add(i).read_unaligned(), y))
                };
            }
        } else {
            for i in 0..count as isize {
                // SAFETY: `count` strided elements on each side, by the contract.
                unsafe {
                    let x = (src[0].offset(i * sa) as *const A).read_unaligned();
                    let y = (src[1].offset(i * sb) as *const B).read_unaligned();
                    (dst.offset(i * dst_stride) as *mut R).write_unaligned((self.f)(x, y));
                }
            }
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!("map ({}, {}) -> {}", A::SCALAR, B::SCALAR, R::SCALAR)
    }
}

fn check_dtype<T: Element>(a: &Array, arg: usize) -> Result<(), Error> {
    if a.dtype().as_scalar() == Some(T::SCALAR) {
        Ok(())
    } else {
        Err(Error::Value {
            what: format!(
                "argument {arg} has data type {}, but the function takes {}",
                a.dtype(),
                T::SCALAR
            ),
        })
    }
}

/// The broadcast result type of `args` with data type `R`.
fn result_type<R: Element>(args: &[&Array]) -> Result<Type, Error> {
    let types = args
        .iter()
        .map(|a| Type::with_dims(a.shape(), R::SCALAR.into()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(dynd_types::broadcast(
        &types,
        dynd_types::BroadcastMode::NumPy,
    )?)
}

impl Array {
    /// Runs `kernel`'s dimension and leaf records into this array.
    ///
    /// # Safety
    ///
    /// `kernel` was built by [`push_elwise`] for this array's type and
    /// arrmeta as the destination and `srcs`' as the sources, with a leaf
    /// whose kernels read and write elements of exactly those data types.
    unsafe fn run_into(
        &mut self,
        kernel: &crate::kernel::Kernel<'_>,
        srcs: &[&Array],
    ) -> Result<(), Error> {
        let ptrs: SmallVec<[*const u8; MAX_ARGS]> = srcs.iter().map(|a| a.data_ptr()).collect();
        let dst = self.data_ptr() as *mut u8;
        // SAFETY: by the contract; the destination was made unique by the
        // caller, so it does not overlap the sources.
        unsafe { kernel.single(dst, &ptrs) }?;
        Ok(())
    }

    /// Applies `f` to each element of `a` (broadcast to this array's shape),
    /// writing into this array.
    ///
    /// # Errors
    ///
    /// [`Error::Value`] if the data types are not `A` and `R`,
    /// [`Error::Broadcast`] if `a` does not broadcast, [`Error::ReadOnly`],
    /// or a ragged-row error naming the row.
    pub fn map1_into<A: Element, R: Element>(
        &mut self,
        a: &Array,
        f: impl Fn(A) -> R + Send + Sync + 'static,
    ) -> Result<(), Error> {
        check_dtype::<A>(a, 0)?;
        if self.dtype().as_scalar() != Some(R::SCALAR) {
            return Err(Error::DtypeMismatch {
                actual: self.dtype().clone(),
                requested: R::SCALAR.into(),
            });
        }
        self.make_unique()?;
        let (ty, meta) = (self.ty().clone(), self.arrmeta_arc());
        let mut b = KernelBuilder::new();
        let mut f = Some(f);
        push_elwise(&mut b, (&ty, &meta), &[(a.ty(), a.arrmeta())], &mut |b| {
            let f = f.take().ok_or_else(|| Error::Value {
                what: "leaf built twice".into(),
            })?;
            Ok(b.push(MapLeaf(Map1 {
                f,
                _types: std::marker::PhantomData,
            })))
        })?;
        let kernel = b.finish()?;
        // SAFETY: built just above for this array and `a`, with a leaf typed
        // by the checked data types.
        unsafe { self.run_into(&kernel, &[a]) }
    }

    /// Applies `f` to each pair of elements of `a` and `b` (broadcast to
    /// this array's shape), writing into this array.
    ///
    /// # Errors
    ///
    /// As [`Array::map1_into`].
    pub fn map2_into<A: Element, B: Element, R: Element>(
        &mut self,
        a: &Array,
        b: &Array,
        f: impl Fn(A, B) -> R + Send + Sync + 'static,
    ) -> Result<(), Error> {
        check_dtype::<A>(a, 0)?;
        check_dtype::<B>(b, 1)?;
        if self.dtype().as_scalar() != Some(R::SCALAR) {
            return Err(Error::DtypeMismatch {
                actual: self.dtype().clone(),
                requested: R::SCALAR.into(),
            });
        }
        self.make_unique()?;
        let (ty, meta) = (self.ty().clone(), self.arrmeta_arc());
        let mut builder = KernelBuilder::new();
        let mut f = Some(f);
        push_elwise(
            &mut builder,
            (&ty, &meta),
            &[(a.ty(), a.arrmeta()), (b.ty(), b.arrmeta())],
            &mut |bb| {
                let f = f.take().ok_or_else(|| Error::Value {
                    what: "leaf built twice".into(),
                })?;
                Ok(bb.push(MapLeaf(Map2 {
                    f,
                    _types: std::marker::PhantomData,
                })))
            },
        )?;
        let kernel = builder.finish()?;
        // SAFETY: built just above for this array, `a` and `b`, with a leaf
        // typed by the checked data types.
        unsafe { self.run_into(&kernel, &[a, b]) }
    }
}

/// `f` applied to each element of `a`, in a new array.
///
/// # Errors
///
/// As [`Array::map1_into`].
pub fn map1<A: Element, R: Element>(
    a: &Array,
    f: impl Fn(A) -> R + Send + Sync + 'static,
) -> Result<Array, Error> {
    let mut out = alloc_broadcast(&result_type::<R>(&[a])?, &[a])?;
    out.map1_into(a, f)?;
    Ok(out)
}

/// `f` applied to each pair of elements of `a` and `b`, broadcast
/// together (NumPy's rules; a `var` row meeting a fixed dimension must
/// have its length or 1), in a new array.
///
/// # Errors
///
/// As [`map1`], and [`dynd_types::Error::Broadcast`] naming the dimension.
pub fn map2<A: Element, B: Element, R: Element>(
    a: &Array,
    b: &Array,
    f: impl Fn(A, B) -> R + Send + Sync + 'static,
) -> Result<Array, Error> {
    let mut out = alloc_broadcast(&result_type::<R>(&[a, b])?, &[a, b])?;
    out.map2_into(a, b, f)?;
    Ok(out)
}

/// A Rust function of three elements, as a leaf kernel.
#[derive(Clone)]
struct Map3<A, B, C, R, F> {
    f: F,
    _types: std::marker::PhantomData<fn(A, B, C) -> R>,
}

impl<
        A: Element,
        B: Element,
        C: Element,
        R: Element,
        F: Fn(A, B, C) -> R + Send + Sync + 'static,
    > MapLoop for Map3<A, B, C, R, F>
{
    /// # Safety
    ///
    /// As [`KernelData::strided`].
    unsafe fn strided_loop(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        for i in 0..count as isize {
            // SAFETY: `count` strided elements on each side, by the contract.
            unsafe {
                let x = (src[0].offset(i * src_stride[0]) as *const A).read_unaligned();
                let y = (src[1].offset(i * src_stride[1]) as *const B).read_unaligned();
                let z = (src[2].offset(i * src_stride[2]) as *const C).read_unaligned();
                (dst.offset(i * dst_stride) as *mut R).write_unaligned((self.f)(x, y, z));
            }
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!(
            "map ({}, {}, {}) -> {}",
            A::SCALAR,
            B::SCALAR,
            C::SCALAR,
            R::SCALAR
        )
    }
}

type PushLeaf = dyn for<'a> Fn(&mut KernelBuilder<'a>) -> Child + Send + Sync;

/// A leaf's strided loop, callable without a kernel around it (the fast
/// path for contiguous arguments).
trait FlatRun: Send + Sync {
    /// # Safety
    ///
    /// As [`KernelData::strided`] for the leaf's element types.
    unsafe fn run(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    );
}

/// A scalar kernel with known element types, ready to be lifted over
/// dimensions: the safe way to give an elementwise operation its leaf.
///
/// A `Leaf` can only be made from Rust functions over [`Element`] types, so
/// its kernels read and write exactly its [`inputs`](Leaf::inputs) and
/// [`output`](Leaf::output) types; [`apply`] and [`Array::apply_into`] check
/// the arrays' data types against them.
///
/// ```
/// use dynd_kernels::elwise::{apply, Leaf};
/// use dynd_kernels::array;
///
/// let hypot = Leaf::map2(|x: f64, y: f64| (x * x + y * y).sqrt());
/// let r = apply(&[&array![[3.0], [5.0]], &array![4.0, 12.0]], &hypot)?;
/// assert_eq!(r.to_string(), "[[5, 12.36931687685298], [6.4031242374328485, 13]]");
/// # Ok::<(), dynd_kernels::Error>(())
/// ```
#[derive(Clone)]
pub struct Leaf {
    inputs: SmallVec<[dynd_types::Scalar; MAX_ARGS]>,
    output: dynd_types::Scalar,
    push: std::sync::Arc<PushLeaf>,
    flat: std::sync::Arc<dyn FlatRun>,
}

impl std::fmt::Debug for Leaf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inputs: Vec<String> = self.inputs.iter().map(|s| s.to_string()).collect();
        write!(f, "Leaf(({}) -> {})", inputs.join(", "), self.output)
    }
}

impl Leaf {
    /// A leaf applying `f` to one element.
    pub fn map1<A: Element, R: Element>(
        f: impl Fn(A) -> R + Clone + Send + Sync + 'static,
    ) -> Leaf {
        let kernel = MapLeaf(Map1 {
            f,
            _types: std::marker::PhantomData,
        });
        let flat = std::sync::Arc::new(kernel.clone());
        Leaf {
            inputs: smallvec![A::SCALAR],
            output: R::SCALAR,
            push: std::sync::Arc::new(move |b: &mut KernelBuilder<'_>| b.push(kernel.clone())),
            flat,
        }
    }

    /// A leaf applying `f` to two elements.
    pub fn map2<A: Element, B: Element, R: Element>(
        f: impl Fn(A, B) -> R + Clone + Send + Sync + 'static,
    ) -> Leaf {
        let kernel = MapLeaf(Map2 {
            f,
            _types: std::marker::PhantomData,
        });
        let flat = std::sync::Arc::new(kernel.clone());
        Leaf {
            inputs: smallvec![A::SCALAR, B::SCALAR],
            output: R::SCALAR,
            push: std::sync::Arc::new(move |b: &mut KernelBuilder<'_>| b.push(kernel.clone())),
            flat,
        }
    }

    /// A leaf applying `f` to three elements.
    pub fn map3<A: Element, B: Element, C: Element, R: Element>(
        f: impl Fn(A, B, C) -> R + Clone + Send + Sync + 'static,
    ) -> Leaf {
        let kernel = MapLeaf(Map3 {
            f,
            _types: std::marker::PhantomData,
        });
        let flat = std::sync::Arc::new(kernel.clone());
        Leaf {
            inputs: smallvec![A::SCALAR, B::SCALAR, C::SCALAR],
            output: R::SCALAR,
            push: std::sync::Arc::new(move |b: &mut KernelBuilder<'_>| b.push(kernel.clone())),
            flat,
        }
    }

    /// The input element types, in order.
    pub fn inputs(&self) -> &[dynd_types::Scalar] {
        &self.inputs
    }

    /// The output element type.
    pub fn output(&self) -> dynd_types::Scalar {
        self.output
    }
}

impl Array {
    /// Runs `leaf` elementwise over `srcs` (broadcast to this array's
    /// shape), writing into this array.
    ///
    /// # Errors
    ///
    /// [`Error::Value`] if the number or data types of the inputs, or this
    /// array's data type, differ from the leaf's; [`Error::Broadcast`];
    /// [`Error::ReadOnly`]; a ragged-row error naming the row.
    pub fn apply_into(&mut self, srcs: &[&Array], leaf: &Leaf) -> Result<(), Error> {
        if srcs.len() != leaf.inputs.len() {
            return Err(Error::Value {
                what: format!(
                    "{leaf:?} takes {} inputs, {} were given",
                    leaf.inputs.len(),
                    srcs.len()
                ),
            });
        }
        // An option argument `?T` feeds a leaf taking `T`; NA in any
        // argument makes the result NA (so the result must be an option).
        let mut flags = [None; MAX_ARGS];
        for (i, (a, t)) in srcs.iter().zip(&leaf.inputs).enumerate() {
            let (value, is_option) = match a.dtype().kind() {
                TypeKind::Option(inner) => (inner.as_scalar(), true),
                _ => (a.dtype().as_scalar(), false),
            };
            if value != Some(*t) {
                return Err(Error::Value {
                    what: format!(
                        "argument {i} has data type {}, but the function takes {t}",
                        a.dtype()
                    ),
                });
            }
            if is_option {
                flags[i] = Some(t.size());
            }
        }
        let any_option = flags.iter().any(Option::is_some);
        let out_option = match self.dtype().kind() {
            TypeKind::Option(inner) if inner.as_scalar() == Some(leaf.output) => true,
            _ if self.dtype().as_scalar() == Some(leaf.output) && !any_option => false,
            _ => {
                let wanted: Type = if any_option {
                    Type::option(leaf.output.into())?
                } else {
                    leaf.output.into()
                };
                return Err(Error::DtypeMismatch {
                    actual: self.dtype().clone(),
                    requested: wanted,
                });
            }
        };
        if !out_option && self.apply_flat_into(srcs, leaf)? {
            return Ok(());
        }
        self.make_unique()?;
        let (ty, meta) = (self.ty().clone(), self.arrmeta_arc());
        let pairs: SmallVec<[(&Type, &Arrmeta); MAX_ARGS]> =
            srcs.iter().map(|a| (a.ty(), a.arrmeta())).collect();
        let mut builder = KernelBuilder::new();
        push_elwise(&mut builder, (&ty, &meta), &pairs, &mut |b| {
            let child = (leaf.push)(b);
            if !out_option {
                return Ok(child);
            }
            Ok(b.push(NaLeaf {
                flags,
                nsrc: srcs.len(),
                out_flag: leaf.output.size(),
                child,
            }))
        })?;
        let kernel = builder.finish()?;
        // SAFETY: built just above for this array and `srcs`, whose data
        // types were checked against the leaf's (options around them are
        // handled by `NaLeaf`, whose flag offsets follow the option
        // layout), and a `Leaf` is only made from functions over exactly
        // those element types.
        unsafe { self.run_into(&kernel, srcs) }
    }
}

/// NA propagation around a leaf: if any option argument is NA, the result
/// is NA; otherwise the leaf runs on the values and the result is valid.
/// An option's validity flag is the byte after its value.
struct NaLeaf {
    /// Per argument: the offset of its flag, if it is an option.
    flags: [Option<usize>; MAX_ARGS],
    nsrc: usize,
    /// The offset of the result's flag.
    out_flag: usize,
    child: Child,
}

impl KernelData for NaLeaf {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: each flag lies inside its (valid) element, by the
        // option layout the offsets were computed from.
        let any_na = self.flags[..self.nsrc].iter().zip(src).any(|(f, p)| {
            // SAFETY: as above.
            f.is_some_and(|off| unsafe { *p.add(off) } == 0)
        });
        // SAFETY: the result's flag lies inside its element.
        unsafe {
            if any_na {
                *dst.add(self.out_flag) = 0;
            } else {
                ctx.child(self.child).single(dst, src)?;
                *dst.add(self.out_flag) = 1;
            }
        }
        Ok(())
    }

    fn describe(&self) -> String {
        "NA propagation".into()
    }

    fn children(&self) -> SmallVec<[Child; 2]> {
        smallvec![self.child]
    }
}

/// Runs `leaf` elementwise over `srcs` broadcast together, into a new array.
///
/// # Errors
///
/// As [`Array::apply_into`]; [`dynd_types::Error::Broadcast`] naming the
/// dimension; a ragged-row error naming the row whose lengths do not
/// broadcast.
pub fn apply(srcs: &[&Array], leaf: &Leaf) -> Result<Array, Error> {
    let any_option = srcs
        .iter()
        .any(|a| matches!(a.dtype().kind(), TypeKind::Option(_)));
    let out: Type = if any_option {
        Type::option(leaf.output.into())?
    } else {
        leaf.output.into()
    };
    let types = srcs
        .iter()
        .map(|a| Type::with_dims(a.shape(), out.clone()))
        .collect::<Result<Vec<_>, _>>()?;
    let ty = dynd_types::broadcast(&types, dynd_types::BroadcastMode::NumPy)?;
    apply_typed(&ty, srcs, leaf)
}

/// As [`apply`], when the result type `ty` (the broadcast of the
/// arguments' dimensions over the leaf's output type) is already known,
/// as a callable's cached resolution gives it.
///
/// # Errors
///
/// As [`Array::apply_into`]; a ragged-row error naming the row.
pub fn apply_typed(ty: &Type, srcs: &[&Array], leaf: &Leaf) -> Result<Array, Error> {
    if let Some(out) = apply_flat(ty, srcs, leaf)? {
        return Ok(out);
    }
    if ty.has_var_dim() {
        if let Some(out) = apply_same_structure(ty, srcs, leaf)? {
            return Ok(out);
        }
    }
    let mut out = alloc_broadcast(ty, srcs)?;
    out.apply_into(srcs, leaf)?;
    Ok(out)
}

/// The number of elements of `a` if it is laid out in C order with the
/// fixed dimensions `dims` (none for a 0-d array, which broadcasts).
fn contiguous_count(a: &Array, dims: &[&Dim]) -> Option<usize> {
    if a.ndim() == 0 {
        return Some(0);
    }
    let (a_dims, _) = a.ty().split_dims();
    if a_dims.len() != dims.len() || a_dims.iter().zip(dims).any(|(x, y)| x != y) {
        return None;
    }
    let esz = a.dtype().as_scalar()?.size() as isize;
    // Walk the arrmeta outermost first, checking C-order strides.
    let mut sizes: SmallVec<[(usize, isize); 8]> = SmallVec::new();
    let mut m = a.arrmeta();
    while let Some((n, stride, element)) = m.as_fixed() {
        sizes.push((n, stride));
        m = element;
    }
    let mut expected = esz;
    for &(n, stride) in sizes.iter().rev() {
        if n > 1 && stride != expected {
            return None;
        }
        expected *= n as isize;
    }
    Some(sizes.iter().map(|s| s.0).product())
}

/// The fast path for fixed shapes: every argument C-contiguous with the
/// result's shape, or 0-d. The leaf's loop runs once over all elements,
/// with no kernel to build.
fn apply_flat(ty: &Type, srcs: &[&Array], leaf: &Leaf) -> Result<Option<Array>, Error> {
    let (dims, dtype) = ty.split_dims();
    if dims.iter().any(|d| !matches!(d, Dim::Fixed(_))) || dtype.as_scalar() != Some(leaf.output) {
        return Ok(None);
    }
    if srcs.len() != leaf.inputs.len()
        || srcs
            .iter()
            .zip(&leaf.inputs)
            .any(|(a, t)| a.dtype().as_scalar() != Some(*t))
    {
        return Ok(None);
    }
    let count: usize = dims
        .iter()
        .map(|d| if let Dim::Fixed(n) = d { *n } else { 0 })
        .product();
    let mut ptrs: SmallVec<[*const u8; MAX_ARGS]> = SmallVec::new();
    let mut strides: SmallVec<[isize; MAX_ARGS]> = SmallVec::new();
    for (a, t) in srcs.iter().zip(&leaf.inputs) {
        match contiguous_count(a, &dims) {
            Some(0) if a.ndim() == 0 => strides.push(0),
            Some(n) if n == count => strides.push(t.size() as isize),
            _ => return Ok(None),
        }
        ptrs.push(a.data_ptr());
    }
    let mut out = Array::zeros(ty)?;
    let dst = out.data_mut_ptr()?;
    // SAFETY: `dst` is a fresh, unique, C-contiguous array of `count`
    // elements of the leaf's output type; each source is C-contiguous with
    // `count` elements of the leaf's input type there (stride = its size)
    // or a single element (stride 0); the leaf reads and writes exactly
    // those types, and the sources do not overlap the fresh destination.
    unsafe {
        run_flat(
            &*leaf.flat,
            dst,
            leaf.output.size() as isize,
            &ptrs,
            &strides,
            count,
        )
    };
    Ok(Some(out))
}

/// Elements below which an elementwise loop runs on the calling thread:
/// waking a thread costs more than a cheap loop over fewer elements.
pub const PARALLEL_MIN: usize = 1 << 17;

/// Pointers handed to the threads of one flat run.
#[derive(Clone, Copy)]
struct SendPtrs {
    dst: *mut u8,
    src: [*const u8; MAX_ARGS],
}

// SAFETY: the threads of a run write disjoint chunks of the destination
// and only read the sources, which outlive the scope the threads run in.
unsafe impl Send for SendPtrs {}
// SAFETY: as above.
unsafe impl Sync for SendPtrs {}

/// Runs a leaf's loop over `count` elements, in chunks on rayon's threads
/// when there are at least [`PARALLEL_MIN`] elements and more than one
/// thread; the chunks are disjoint, so the result is the same either way.
///
/// # Safety
///
/// As [`FlatRun::run`]; `dst_stride` is positive (distinct elements).
unsafe fn run_flat(
    f: &dyn FlatRun,
    dst: *mut u8,
    dst_stride: isize,
    src: &[*const u8],
    src_stride: &[isize],
    count: usize,
) {
    let threads = rayon::current_num_threads();
    if count < PARALLEL_MIN || threads < 2 || dst_stride <= 0 {
        // SAFETY: forwarded.
        unsafe { f.run(dst, dst_stride, src, src_stride, count) };
        return;
    }
    let chunk = count.div_ceil(threads * 2).max(PARALLEL_MIN / 2);
    let mut ptrs = SendPtrs {
        dst,
        src: [std::ptr::null(); MAX_ARGS],
    };
    ptrs.src[..src.len()].copy_from_slice(src);
    let n = src.len();
    rayon::scope(|scope| {
        for start in (0..count).step_by(chunk) {
            let len = chunk.min(count - start);
            scope.spawn(move |_| {
                let p = ptrs;
                let at = start as isize;
                let srcs: SmallVec<[*const u8; MAX_ARGS]> = (0..n)
                    .map(|k| p.src[k].wrapping_offset(at * src_stride[k]))
                    .collect();
                // SAFETY: elements `start..start + len` of the run, valid by
                // the contract; no other chunk writes them.
                unsafe {
                    f.run(
                        p.dst.wrapping_offset(at * dst_stride),
                        dst_stride,
                        &srcs,
                        src_stride,
                        len,
                    )
                };
            });
        }
    });
}

/// The sources' pointers and strides for a flat run over `dims`, if every
/// source is C-contiguous with those dimensions (or 0-d) and of the leaf's
/// input types.
#[allow(clippy::type_complexity)]
fn flat_sources(
    dims: &[&Dim],
    count: usize,
    srcs: &[&Array],
    leaf: &Leaf,
) -> Option<(SmallVec<[*const u8; MAX_ARGS]>, SmallVec<[isize; MAX_ARGS]>)> {
    if srcs.len() != leaf.inputs.len() {
        return None;
    }
    let mut ptrs = SmallVec::new();
    let mut strides = SmallVec::new();
    for (a, t) in srcs.iter().zip(&leaf.inputs) {
        if a.dtype().as_scalar() != Some(*t) {
            return None;
        }
        match contiguous_count(a, dims) {
            Some(0) if a.ndim() == 0 => strides.push(0),
            Some(n) if n == count => strides.push(t.size() as isize),
            _ => return None,
        }
        ptrs.push(a.data_ptr());
    }
    Some((ptrs, strides))
}

impl Array {
    /// As [`Array::apply_into`], taking the flat path when this array and
    /// every source are C-contiguous with this array's shape (or 0-d).
    fn apply_flat_into(&mut self, srcs: &[&Array], leaf: &Leaf) -> Result<bool, Error> {
        if self.dtype().as_scalar() != Some(leaf.output) || self.ty().has_var_dim() {
            return Ok(false);
        }
        let ty = self.ty().clone();
        let (dims, _) = ty.split_dims();
        let Some(count) = contiguous_count(self, &dims) else {
            return Ok(false);
        };
        let count = if self.ndim() == 0 { 1 } else { count };
        let Some((ptrs, strides)) = flat_sources(&dims, count, srcs, leaf) else {
            return Ok(false);
        };
        let dst = self.data_mut_ptr()?;
        // SAFETY: this array, now the only owner of its memory, holds
        // `count` contiguous elements of the leaf's output type; the
        // sources were checked as in `apply_flat`, and do not overlap the
        // destination's (unique) memory.
        unsafe {
            run_flat(
                &*leaf.flat,
                dst,
                leaf.output.size() as isize,
                &ptrs,
                &strides,
                count,
            )
        };
        Ok(true)
    }
}

/// The innermost `var` level of `a`'s arrmeta, under fixed levels only:
/// (values block, offset, stride).
fn innermost_var(
    meta: &Arrmeta,
) -> Option<(
    &std::sync::Arc<crate::memory::MemoryBlock>,
    usize,
    isize,
    &Arrmeta,
)> {
    match meta {
        Arrmeta::Fixed { element, .. } => innermost_var(element),
        Arrmeta::Var {
            values,
            offset,
            stride,
            element,
            ..
        } => Some((values, *offset, *stride, element)),
        _ => None,
    }
}

/// Ragged data that runs like flat data: when the result's only `var`
/// dimension is its innermost one and every argument with dimensions has
/// the *same* rows (the same (start, length) pairs, shared or equal, over
/// values of one layout), the leaf runs as one flat loop over the values,
/// and the result shares the arguments' rows when its elements are the
/// same size. `None` when the arguments do not qualify.
fn apply_same_structure(ty: &Type, srcs: &[&Array], leaf: &Leaf) -> Result<Option<Array>, Error> {
    if ty.dtype().as_scalar().is_none() || srcs.iter().any(|a| a.dtype().as_scalar().is_none()) {
        return Ok(None);
    }
    let (dims, _) = ty.split_dims();
    let Some((Dim::Var, outer)) = dims.split_last() else {
        return Ok(None);
    };
    if outer.iter().any(|d| !matches!(d, Dim::Fixed(_))) {
        return Ok(None);
    }
    let mut pattern: Option<&Array> = None;
    for a in srcs {
        if a.ndim() == 0 {
            continue;
        }
        if a.shape() != dims.iter().map(|d| (*d).clone()).collect::<Vec<_>>() {
            return Ok(None);
        }
        let Some((_, offset, _, _)) = innermost_var(a.arrmeta()) else {
            return Ok(None);
        };
        if offset != 0 {
            return Ok(None);
        }
        match pattern {
            None => pattern = Some(a),
            Some(p) => {
                let (pv, _, ps, _) = innermost_var(p.arrmeta()).unwrap_or_else(|| unreachable!());
                let (av, _, as_, _) = innermost_var(a.arrmeta()).unwrap_or_else(|| unreachable!());
                let same_rows = std::sync::Arc::ptr_eq(p.data_block(), a.data_block())
                    && p.data_offset() == a.data_offset()
                    && p.strides() == a.strides();
                if !same_rows || ps != as_ || pv.len() != av.len() {
                    return Ok(None);
                }
            }
        }
    }
    let Some(p) = pattern else { return Ok(None) };
    let (values, _, stride, _) = innermost_var(p.arrmeta()).unwrap_or_else(|| unreachable!());
    if stride <= 0 {
        return Ok(None);
    }
    if leaf.output.size() as isize != stride {
        // Row starts are byte offsets for the arguments' element size; a
        // result of another size needs its own rows: the general path.
        return Ok(None);
    }
    let total = values.len() / stride as usize;
    // Flat views over each argument's values.
    let flat: Vec<Array> = srcs
        .iter()
        .map(|a| {
            if a.ndim() == 0 {
                return Ok((*a).clone());
            }
            let (v, _, st, elem) = innermost_var(a.arrmeta()).unwrap_or_else(|| unreachable!());
            Ok(Array::from_parts(
                Type::dim(Dim::Fixed(total), a.dtype().clone())?,
                std::sync::Arc::new(Arrmeta::Fixed {
                    size: total,
                    stride: st,
                    element: Box::new(elem.clone()),
                }),
                v.clone(),
                0,
            ))
        })
        .collect::<Result<_, Error>>()?;
    let refs: Vec<&Array> = flat.iter().collect();
    let out_flat = apply(&refs, leaf)?;
    // The result: the pattern's rows (shared), the new values.
    fn replace_values(
        m: &Arrmeta,
        values: &std::sync::Arc<crate::memory::MemoryBlock>,
        elem: Arrmeta,
    ) -> Arrmeta {
        match m {
            Arrmeta::Fixed {
                size,
                stride,
                element,
            } => Arrmeta::Fixed {
                size: *size,
                stride: *stride,
                element: Box::new(replace_values(element, values, elem)),
            },
            Arrmeta::Var { stride, packed, .. } => Arrmeta::Var {
                values: values.clone(),
                offset: 0,
                stride: *stride,
                packed: *packed,
                element: Box::new(elem),
            },
            other => other.clone(),
        }
    }
    let elem = crate::array::dtype_meta(ty.dtype())?;
    let meta = replace_values(p.arrmeta(), out_flat.data_block(), elem);
    Ok(Some(Array::from_parts(
        ty.clone(),
        std::sync::Arc::new(meta),
        p.data_block().clone(),
        p.data_offset(),
    )))
}

/// One argument's row at a level: its length, and element `j` at byte
/// `base + j * stride` of `data`.
type Row<'a> = (usize, &'a [u8], isize, isize);

/// Where one argument is while the result's structure is walked: its
/// remaining levels, and the bytes and offset of its current element.
#[derive(Clone, Copy)]
struct ArgAt<'a> {
    levels: &'a [(&'a Dim, &'a Arrmeta)],
    data: &'a [u8],
    offset: isize,
}

impl<'a> ArgAt<'a> {
    /// This argument's row at the current level, or `None` if it has no
    /// dimension here.
    fn row(&self) -> Option<Row<'a>> {
        let (_, meta) = self.levels.first()?;
        match meta {
            Arrmeta::Fixed { size, stride, .. } => Some((*size, self.data, self.offset, *stride)),
            Arrmeta::Var {
                values,
                offset,
                stride,
                ..
            } => {
                let at = self.offset as usize;
                let (start, len) =
                    crate::arrmeta::read_pair(&self.data[at..at + crate::arrmeta::PAIR_SIZE]);
                Some((
                    len as usize,
                    values.bytes(),
                    *offset as isize + start as i64 as isize,
                    *stride,
                ))
            }
            _ => None,
        }
    }
}

/// The output levels' element sizes and the values being built for var levels.
struct Alloc {
    /// Per result level: `Some(element size)` for var levels.
    var_elem: Vec<Option<usize>>,
    /// Per result level: `Some(element size)` for fixed levels.
    fixed: Vec<Option<(usize, usize)>>,
    values: Vec<Vec<u8>>,
    last_var: usize,
}

/// A zeroed array of the broadcast result type `ty` of `args`, whose `var`
/// rows have the broadcast lengths of the arguments' rows (a pass over
/// rows, not elements, when `var` is innermost).
///
/// # Errors
///
/// A ragged-row error naming the row where the arguments' lengths do not
/// broadcast; [`Error::Unsupported`] for data types arrays do not hold.
pub fn alloc_broadcast(ty: &Type, args: &[&Array]) -> Result<Array, Error> {
    if !ty.has_var_dim() {
        return Array::zeros(ty);
    }
    let (dims, dtype) = ty.split_dims();
    let nd = dims.len();
    // Element sizes below each level.
    let mut sizes = vec![0usize; nd + 1];
    sizes[nd] = dtype.data_layout()?.size;
    for k in (0..nd).rev() {
        sizes[k] = match dims[k] {
            Dim::Fixed(n) => n * sizes[k + 1],
            _ => crate::arrmeta::PAIR_SIZE,
        };
    }
    let last_var = dims
        .iter()
        .rposition(|d| matches!(d, Dim::Var))
        .unwrap_or(0);
    let mut alloc = Alloc {
        var_elem: dims
            .iter()
            .enumerate()
            .map(|(k, d)| matches!(d, Dim::Var).then_some(sizes[k + 1]))
            .collect(),
        fixed: dims
            .iter()
            .enumerate()
            .map(|(k, d)| match d {
                Dim::Fixed(n) => Some((*n, sizes[k + 1])),
                _ => None,
            })
            .collect(),
        values: vec![Vec::new(); nd],
        last_var,
    };
    let arg_levels: Vec<Levels<'_>> = args.iter().map(|a| levels(a.ty(), a.arrmeta())).collect();
    let arg_levels = arg_levels.as_slice();
    let start: SmallVec<[Option<ArgAt<'_>>; MAX_ARGS]> = args
        .iter()
        .zip(arg_levels)
        .map(|(a, l)| {
            let shift = nd.saturating_sub(l.len());
            (shift == 0).then(|| ArgAt {
                levels: l,
                data: a.data_block().bytes(),
                offset: a.data_offset() as isize,
            })
        })
        .collect();
    let mut data = vec![0u8; sizes[0]];
    // Arguments with fewer dimensions join at their first level.
    alloc.fill_shifted(0, &mut data, &start, args, arg_levels, nd, &mut Vec::new())?;
    // Arrmeta, innermost first.
    let mut meta = crate::array::dtype_meta(dtype)?;
    for k in (0..nd).rev() {
        meta = match dims[k] {
            Dim::Fixed(n) => Arrmeta::Fixed {
                size: *n,
                stride: sizes[k + 1] as isize,
                element: Box::new(meta),
            },
            _ => Arrmeta::Var {
                values: crate::memory::MemoryBlock::from_bytes(&alloc.values[k]),
                offset: 0,
                stride: sizes[k + 1] as isize,
                packed: true,
                element: Box::new(meta),
            },
        };
    }
    Ok(Array::from_parts(
        ty.clone(),
        std::sync::Arc::new(meta),
        crate::memory::MemoryBlock::from_bytes(&data),
        0,
    ))
}

impl Alloc {
    /// Fills the result element `out` at `level` from the arguments'
    /// current elements (arguments with fewer dimensions than the result
    /// enter at their own first level): a `var` level's row length is the
    /// broadcast of the arguments' row lengths (equal, or 1).
    #[allow(clippy::too_many_arguments)]
    fn fill_shifted<'a: 'l, 'l>(
        &mut self,
        level: usize,
        out: &mut [u8],
        args: &[Option<ArgAt<'l>>],
        arrays: &[&'a Array],
        arg_levels: &'l [Levels<'a>],
        nd: usize,
        path: &mut Vec<usize>,
    ) -> Result<(), Error> {
        // Enter arguments whose first level is this one.
        let entered: SmallVec<[Option<ArgAt<'l>>; MAX_ARGS]> = args
            .iter()
            .zip(arrays.iter().zip(arg_levels))
            .map(|(a, (arr, l))| {
                a.or_else(|| {
                    (nd - l.len() == level).then(|| ArgAt {
                        levels: l,
                        data: arr.data_block().bytes(),
                        offset: arr.data_offset() as isize,
                    })
                })
            })
            .collect();
        if level > self.last_var {
            return Ok(());
        }
        let rows: SmallVec<[Option<Row<'_>>; MAX_ARGS]> = entered
            .iter()
            .map(|a| a.as_ref().and_then(ArgAt::row))
            .collect();
        let (n, esz, is_var) = match (self.fixed[level], self.var_elem[level]) {
            (Some((n, esz)), _) => (n, esz, false),
            (None, Some(esz)) => {
                let len = rows
                    .iter()
                    .flatten()
                    .map(|r| r.0)
                    .find(|&l| l != 1)
                    .unwrap_or(1);
                (len, esz, true)
            }
            _ => unreachable!("a result level is fixed or var"),
        };
        if is_var {
            for (m, ..) in rows.iter().flatten() {
                if *m != 1 && *m != n {
                    let mut e = KernelError::new(KernelErrorKind::RaggedRow {
                        len: *m,
                        expected: n,
                    });
                    for &i in path.iter().rev() {
                        e = e.at(i);
                    }
                    return Err(e.into());
                }
            }
        }
        let row_start = self.values[level].len();
        if is_var {
            crate::arrmeta::write_pair(out, row_start as u64, n as u64);
            self.values[level].resize(row_start + n * esz, 0);
        }
        if level + 1 > self.last_var {
            // Nothing below this level needs lengths: the zeroed elements
            // are the result's until the kernel writes them.
            return Ok(());
        }
        for j in 0..n {
            let next: SmallVec<[Option<ArgAt<'l>>; MAX_ARGS]> = entered
                .iter()
                .zip(&rows)
                .map(|(a, row)| {
                    let a = (*a)?;
                    Some(match row {
                        Some((m, data, base, stride)) => {
                            let j = if *m == 1 { 0 } else { j };
                            ArgAt {
                                levels: &a.levels[1..],
                                data,
                                offset: base + j as isize * stride,
                            }
                        }
                        None => a,
                    })
                })
                .collect();
            path.push(j);
            if is_var {
                let mut elem = vec![0u8; esz];
                self.fill_shifted(level + 1, &mut elem, &next, arrays, arg_levels, nd, path)?;
                let at = row_start + j * esz;
                self.values[level][at..at + esz].copy_from_slice(&elem);
            } else {
                self.fill_shifted(
                    level + 1,
                    &mut out[j * esz..(j + 1) * esz],
                    &next,
                    arrays,
                    arg_levels,
                    nd,
                    path,
                )?;
            }
            path.pop();
        }
        Ok(())
    }
}
