//! Per-row folds of contiguous rows, wide: blocks of lanes masked at each row's end, in batches of rows.

use super::*;
use crate::isa::Isa;

/// The values block as lanes of its elements' width.
#[derive(Clone, Copy)]
pub(super) enum Wide<'a> {
    U32(&'a [u32]),
    U64(&'a [u64]),
}

/// Rows up to this long fold in one block of this many lanes.
pub(super) const WIDE: usize = 16;

/// Lane masks: `KEEP[WIDE - l..][..WIDE]` keeps the first `l` lanes.
pub(super) const KEEP: [u64; 2 * WIDE] = {
    let mut k = [0u64; 2 * WIDE];
    let mut i = 0;
    while i < WIDE {
        k[i] = !0;
        i += 1;
    }
    k
};

/// An element's bits, as the unsigned integer of its size: lanes are
/// selected with bit masks (no branch per lane).
pub(super) trait Lane:
    Element
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::Not<Output = Self>
{
    /// `keep` (all ones or all zeros) at this width.
    fn mask(keep: u64) -> Self;
}

impl Lane for u32 {
    #[inline(always)]
    fn mask(keep: u64) -> u32 {
        keep as u32
    }
}

impl Lane for u64 {
    #[inline(always)]
    fn mask(keep: u64) -> u64 {
        keep
    }
}

/// The `T` whose bits `b` holds, or `neutral` where `B` is not `T`'s
/// size (never: lanes are only made at `T`'s size and alignment). The
/// element types of 4 and 8 bytes (integers, floats, `complex64`) take
/// every bit pattern, so any lane is a `T`; `bool`, whose bytes must be 0
/// or 1, is never read from a lane. Compiles to no instruction.
#[inline(always)]
pub(super) fn from_bits<T: Element, B: Lane>(b: B, neutral: T) -> T {
    if std::mem::size_of::<T>() != std::mem::size_of::<B>() {
        return neutral;
    }
    read(bytes_of(&b)).unwrap_or(neutral)
}

/// `x`'s bits as a lane (zero where `B` is not `T`'s size: never).
#[inline(always)]
pub(super) fn to_bits<T: Element, B: Lane>(x: T) -> B {
    if std::mem::size_of::<T>() != std::mem::size_of::<B>() {
        return B::mask(0);
    }
    read(bytes_of(&x)).unwrap_or(B::mask(0))
}

/// Block `at` of `lanes`, if it lies inside.
#[inline(always)]
pub(super) fn block<B: Lane>(lanes: &[B], at: usize) -> Option<&[B; WIDE]> {
    lanes.get(at..at.checked_add(WIDE)?)?.try_into().ok()
}

/// Block `at`'s first `n` lanes as `T`s, the rest `fill`'s bits.
#[inline(always)]
pub(super) fn masked<T: Element, B: Lane>(
    lanes: &[B],
    at: usize,
    n: usize,
    (fill, neutral): (B, T),
) -> Option<[T; WIDE]> {
    let b = block(lanes, at)?;
    let keep: &[u64; WIDE] = KEEP.get(WIDE - n..2 * WIDE - n)?.try_into().ok()?;
    let mut out = [neutral; WIDE];
    for k in 0..WIDE {
        let m = B::mask(keep[k]);
        out[k] = from_bits((b[k] & m) | (fill & !m), neutral);
    }
    Some(out)
}

/// Block `at` as `T`s.
#[inline(always)]
pub(super) fn whole<T: Element, B: Lane>(lanes: &[B], at: usize, neutral: T) -> Option<[T; WIDE]> {
    let b = block(lanes, at)?;
    let mut out = [neutral; WIDE];
    for k in 0..WIDE {
        out[k] = from_bits(b[k], neutral);
    }
    Some(out)
}

/// Folds `g` of each element of the row `lanes[s..s + len]` (`1 <= len`)
/// in [`WIDE`] lanes: the last block is read whole and its lanes past the
/// row take `fill`'s bits (then `g` of it, which must leave `f`'s
/// results unchanged), so a short row takes no branch on its length; the
/// lanes then combine in a pairwise tree down to [`QUAD`] lanes, which
/// [`finish`] combines. `None` if a block would reach past `lanes`.
#[inline(always)]
pub(super) fn fold_wide<T: Element, B: Lane, F: Fn(T, T) -> T, G: Fn(T) -> T>(
    lanes: &[B],
    (s, len): (usize, usize),
    fill: T,
    g: &G,
    f: &F,
) -> Option<[T; QUAD]> {
    let bits: B = to_bits(fill);
    let mut acc = if len <= WIDE {
        masked(lanes, s, len, (bits, fill))?.map(g)
    } else {
        let mut acc = whole(lanes, s, fill)?.map(g);
        let (mut at, end) = (s + WIDE, s.checked_add(len)?);
        while end - at >= WIDE {
            let b: [T; WIDE] = whole(lanes, at, fill)?;
            for k in 0..WIDE {
                acc[k] = f(acc[k], g(b[k]));
            }
            at += WIDE;
        }
        if at < end {
            // The first `end - at` lanes are the row's last ones.
            let b: [T; WIDE] = masked(lanes, at, end - at, (bits, fill))?;
            for k in 0..WIDE {
                acc[k] = f(acc[k], g(b[k]));
            }
        }
        acc
    };
    let mut w = WIDE;
    while w > QUAD {
        w /= 2;
        for k in 0..w {
            acc[k] = f(acc[k], acc[k + w]);
        }
    }
    Some([acc[0], acc[1], acc[2], acc[3]])
}

/// Each lane as it is: [`fold_wide`] of the elements themselves.
#[inline(always)]
pub(super) fn itself<T>(x: T) -> T {
    x
}

/// The lanes a row's fold keeps until [`finish`] (one 256-bit register
/// of `f64`s). The variance keeps a batch's folds at this width and
/// finishes them in a second loop; [`fold_unit_wide`] finishes each row
/// at once, passing its four lanes through memory
/// ([`std::hint::black_box`]) first: the compiler builds its vectors back
/// from where the values go, and from [`finish`]'s pairs (the tree's
/// root) it built the whole fold in 128-bit halves, where a store of four
/// lanes has it build 256-bit registers — on an AVX2 Zen 3 the per-row
/// `sum` of 1e6 rows of 0 to 20 `float64` went from 91 to 74
/// instructions a row (`mean` 99 to 82, `max` 98 to 89); its time moved
/// less than that VM's noise (medians of ten alternating rounds, three
/// runs: 13.1 to 11.5 ms, 15.0 to 14.4, 13.3 to 13.7 — the pass is
/// bound by its reads). The values and their order are the same: only
/// where they wait between the tree's levels changes.
pub(super) const QUAD: usize = 4;

/// The last levels of [`fold_wide`]'s pairwise tree.
#[inline(always)]
pub(super) fn finish<T: Copy>(q: [T; QUAD], f: &impl Fn(T, T) -> T) -> T {
    f(f(q[0], q[2]), f(q[1], q[3]))
}

/// The row `xs` (`1..=BLOCK` elements) folded as [`fold_wide`] and
/// [`finish`] fold it (the same lanes, `fill` past the row's end, `g` of
/// each, the same pairwise tree: the same bits), from the slice itself:
/// for the rows whose last block would reach past the values.
#[inline(always)]
pub(super) fn fold_wide_slice<T: Copy>(
    xs: &[T],
    fill: T,
    g: &impl Fn(T) -> T,
    f: &impl Fn(T, T) -> T,
) -> T {
    let lane = |i: usize| g(xs.get(i).copied().unwrap_or(fill));
    let mut acc: [T; WIDE] = std::array::from_fn(lane);
    let mut at = WIDE;
    while at < xs.len() {
        for (k, a) in acc.iter_mut().enumerate() {
            *a = f(*a, lane(at + k));
        }
        at += WIDE;
    }
    let mut w = WIDE;
    while w > 1 {
        w /= 2;
        for k in 0..w {
            acc[k] = f(acc[k], acc[k + w]);
        }
    }
    acc[0]
}

/// [`fold_unit_wide`] compiled for the CPU it runs on
/// ([`Isa::active`]: with AVX2 a 16-lane block of `f64` is four
/// registers, not eight; with AVX-512 two). Every set folds in the same
/// order: the same bits.
#[allow(clippy::too_many_arguments)]
pub(super) fn fold_unit_wide_best<T, B, F, P, O>(
    rows: &RowSlices<'_, T>,
    lanes: &[B],
    first: usize,
    out: &mut [O],
    red: &Reduction<T, F>,
    start: (Option<T>, T),
    post: P,
    name: &str,
) -> Result<(), Box<(usize, Error)>>
where
    T: Element,
    B: Lane,
    F: Fn(T, T) -> T + Copy + Send + Sync,
    P: Fn(T, usize) -> O + Copy,
{
    // SAFETY: `Isa::active` is a set this CPU has.
    unsafe {
        fold_unit_wide_on(
            Isa::active(),
            rows,
            lanes,
            first,
            out,
            red,
            start,
            post,
            name,
        )
    }
}

/// [`fold_unit_wide`] compiled for `isa`.
///
/// # Safety
///
/// The CPU has `isa`.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn fold_unit_wide_on<T, B, F, P, O>(
    isa: Isa,
    rows: &RowSlices<'_, T>,
    lanes: &[B],
    first: usize,
    out: &mut [O],
    red: &Reduction<T, F>,
    start: (Option<T>, T),
    post: P,
    name: &str,
) -> Result<(), Box<(usize, Error)>>
where
    T: Element,
    B: Lane,
    F: Fn(T, T) -> T + Copy + Send + Sync,
    P: Fn(T, usize) -> O + Copy,
{
    // SAFETY: the CPU has `isa` (the caller's contract).
    unsafe {
        crate::isa::on!(
            isa,
            fold_unit_wide(rows, lanes, first, out, red, start, post, name)
        )
    }
}

/// Rows whose folds [`fold_unit_wide`] keeps at [`QUAD`] lanes before
/// finishing them.
pub(super) const BATCH: usize = 16;

/// A batch entry that [`fold_unit_wide`] finishes by the slow path: a long
/// row, one of the last few, or one `span` cannot place.
pub(super) const SLOW: usize = usize::MAX;

/// The spans (as [`RowSlices::span`] gives them) of rows `first..` into
/// `spans`, their pairs read with one bounds check when they lie end to
/// end.
#[inline(always)]
pub(super) fn batch_spans<T: Element>(
    rows: &RowSlices<'_, T>,
    first: usize,
    spans: &mut [Option<(usize, usize)>],
) {
    match rows.pairs(first, spans.len()) {
        Some(pairs) => {
            for (s, pair) in spans.iter_mut().zip(pairs.chunks_exact(PAIR_SIZE)) {
                *s = RowSlices::<T>::span_of(pair);
            }
        }
        None => {
            for (i, s) in spans.iter_mut().enumerate() {
                *s = rows.span(first + i);
            }
        }
    }
}

/// Folds the row at `span` (from [`RowSlices::span`]) to [`QUAD`] lanes
/// in `q` with [`fold_wide`], and gives its length: `0` for an empty row
/// (`q` untouched), [`SLOW`] for one that [`fold_unit_wide`] folds by the
/// slow path.
#[inline(always)]
pub(super) fn fold_quad<T: Element, B: Lane, F: Fn(T, T) -> T>(
    lanes: &[B],
    span: Option<(usize, usize)>,
    neutral: T,
    f: &F,
    q: &mut [T; QUAD],
) -> usize {
    match span {
        Some((_, 0)) => 0,
        Some((s, len)) if len <= BLOCK => match fold_wide(lanes, (s, len), neutral, &itself, f) {
            Some(v) => {
                *q = v;
                len
            }
            None => SLOW,
        },
        _ => SLOW,
    }
}

/// As [`fold_unit`], for a reorderable reduction with a neutral element:
/// each row, in order, folds with [`fold_wide`] to [`QUAD`] lanes and is
/// finished at once (rows longer than [`BLOCK`], and the last rows of the
/// block, as [`fold_row`] does); a batch of [`BATCH`] rows reads its pairs
/// with one bounds check when they lie end to end. Each row's result is
/// `post(result, row length)`, of any type (a mean divides there, its
/// division overlapping the next rows' loads, and writes its `?T` slot
/// with its validity).
///
/// Each row is finished as it is folded, not kept at four lanes with its
/// batch's and finished in a second loop: the batch's arrays of spans,
/// lanes and lengths cost a store and a load each a row (per-row `sum` of
/// 1e6 rows of 0 to 20 `float64` on an AVX2 Zen 3, eight alternating
/// rounds: median 13.4 ms batched, 12.3 finished at once).
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn fold_unit_wide<T, B, F, P, O>(
    rows: &RowSlices<'_, T>,
    lanes: &[B],
    first: usize,
    out: &mut [O],
    red: &Reduction<T, F>,
    (start, neutral): (Option<T>, T),
    post: P,
    name: &str,
) -> Result<(), Box<(usize, Error)>>
where
    T: Element,
    B: Lane,
    F: Fn(T, T) -> T + Copy + Send + Sync,
    P: Fn(T, usize) -> O + Copy,
{
    let f = red.combine;
    let outside = |r: usize| Box::new((r, outside(name, "a var row")));
    for (b, batch) in out.chunks_mut(BATCH).enumerate() {
        let first = first + b * BATCH;
        // No closures in these loops: they would not inherit the caller's
        // target features (see `fold_unit_wide_best`).
        let pairs = rows.pairs(first, batch.len());
        for (i, o) in batch.iter_mut().enumerate() {
            let r = first + i;
            let span = match pairs.and_then(|p| p.get(i * PAIR_SIZE..(i + 1) * PAIR_SIZE)) {
                Some(pair) => RowSlices::<T>::span_of(pair),
                None => rows.span(r),
            };
            let mut q = [neutral; QUAD];
            let (v, len) = match fold_quad(lanes, span, neutral, &f, &mut q) {
                0 => (None, 0),
                SLOW => {
                    let xs = rows.get(r).ok_or_else(|| outside(r))?;
                    let v = if xs.is_empty() || xs.len() > BLOCK {
                        fold_row(xs, None, red)
                    } else {
                        // One of the last few: in `fold_wide`'s order, so
                        // a row's sum does not depend on where it lies.
                        Some(fold_wide_slice(xs, neutral, &itself, &f))
                    };
                    (v, xs.len())
                }
                // `q` through memory: see [`QUAD`].
                len => (Some(finish(std::hint::black_box(q), &f)), len),
            };
            let v = match (start, v) {
                (Some(s), Some(v)) => f(s, v),
                (s, v) => v.or(s).ok_or_else(|| Box::new((r, no_identity(name))))?,
            };
            *o = post(v, len);
        }
    }
    Ok(())
}

/// Rows shorter than this fold by length, [`LANES`] rows side by side.
pub(super) const SHORT: usize = 16;

/// Rows of one length folded side by side: several dependency chains in
/// flight, and a loop whose trip count repeats (no mispredicted exits).
pub(super) const LANES: usize = 4;

/// Folds rows `first..` into `out` (one element per row), with `start`
/// folded in first (the identity or `initial`). The unit's short rows are
/// grouped by length (a counting sort of their indices) and each length's
/// rows fold [`LANES`] at a time, each row in order (as [`fold8`] folds a
/// row shorter than 16: the same bits); longer rows fold as [`fold_row`]
/// does. `Err` names the first row that fails.
pub(super) fn fold_unit<T, F>(
    rows: &RowSlices<'_, T>,
    first: usize,
    out: &mut [T],
    red: &Reduction<T, F>,
    start: Option<T>,
    name: &str,
) -> Result<(), Box<(usize, Error)>>
where
    T: Element,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    let f = red.combine;
    let finish = |r: usize, v: Option<T>| -> Result<T, Box<(usize, Error)>> {
        match (start, v) {
            (Some(s), Some(v)) => Ok(f(s, v)),
            (s, v) => v.or(s).ok_or_else(|| Box::new((r, no_identity(name)))),
        }
    };
    let n = out.len();
    let mut xs: Vec<&[T]> = Vec::with_capacity(n);
    let mut count = [0usize; SHORT + 1];
    for i in 0..n {
        let r = first + i;
        let x = rows.get(r).ok_or_else(|| (r, outside(name, "a var row")))?;
        count[x.len().min(SHORT)] += 1;
        // Touch the row in order, so that the folds below, which visit
        // the rows by length, find them in cache.
        if let (Some(a), Some(b)) = (x.first(), x.last()) {
            std::hint::black_box((*a, *b));
        }
        xs.push(x);
    }
    // Row indices grouped by length (rows of SHORT or more in the last
    // group), in row order within each.
    let mut at = [0usize; SHORT + 2];
    for l in 0..=SHORT {
        at[l + 1] = at[l] + count[l];
    }
    let mut order = vec![0u32; n];
    let mut fill = at;
    for (i, x) in xs.iter().enumerate() {
        let l = x.len().min(SHORT);
        order[fill[l]] = i as u32;
        fill[l] += 1;
    }
    for &i in &order[at[0]..at[1]] {
        let i = i as usize;
        out[i] = finish(first + i, None)?;
    }
    for l in 1..SHORT {
        let group = &order[at[l]..at[l + 1]];
        let mut quads = group.chunks_exact(LANES);
        for q in &mut quads {
            let src: [&[T]; LANES] = std::array::from_fn(|k| &xs[q[k] as usize][..l]);
            let mut acc: [T; LANES] = std::array::from_fn(|k| src[k][0]);
            #[allow(clippy::needless_range_loop)] // lanes side by side
            for j in 1..l {
                for k in 0..LANES {
                    acc[k] = f(acc[k], src[k][j]);
                }
            }
            for k in 0..LANES {
                let i = q[k] as usize;
                out[i] = finish(first + i, Some(acc[k]))?;
            }
        }
        for &i in quads.remainder() {
            let i = i as usize;
            out[i] = finish(first + i, fold_row(xs[i], None, red))?;
        }
    }
    for &i in &order[at[SHORT]..at[SHORT + 1]] {
        let i = i as usize;
        out[i] = finish(first + i, fold_row(xs[i], None, red))?;
    }
    Ok(())
}
