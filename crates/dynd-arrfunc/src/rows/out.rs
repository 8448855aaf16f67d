//! Per-row results: flat runs of new values (plain, with NA flags, of
//! indexes) filled on the threads a run of rows at a time, and gathered
//! or selected from the rows' values, for [`AxisRows::wrap`] and
//! [`AxisRows::wrap_rows`] to put back under the dimensions above.

use super::*;

/// `values` (`K * T`) cast to element type `t` (themselves when they
/// have it).
pub(crate) fn cast_to(values: &Array, t: &Type) -> Result<Array, Error> {
    if &element_type(values) == t {
        return Ok(values.clone());
    }
    let ty = Type::with_dims([Dim::Fixed(first_len(values.ty()))], t.clone())?;
    values.cast(&ty, ErrorMode::NoCheck)
}

/// `values` (`K * T`) as a slice: its memory when contiguous, else a copy.
pub(crate) fn slice<T: Element>(values: &Array) -> Result<Cow<'_, [T]>, Error> {
    Ok(match values.as_slice::<T>() {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => Cow::Owned(values.to_vec::<T>()?),
    })
}

/// Values per parallel task of the per-row loops (rows are never split).
const CHUNK_VALUES: i64 = 1 << 15;

/// The rows in runs of about [`CHUNK_VALUES`] values (and at most as
/// many rows), for the threads.
pub(crate) fn chunks(offsets: &[i64]) -> Vec<Range<usize>> {
    let rows = offsets.len() - 1;
    let mut out = Vec::new();
    let mut start = 0;
    while start < rows {
        let goal = offsets[start] + CHUNK_VALUES;
        // The first row past the goal, at least one row further.
        let mut end = start + offsets[start..].partition_point(|&o| o < goal).max(1);
        end = end.min(rows).min(start + CHUNK_VALUES as usize);
        out.push(start..end);
        start = end;
    }
    out
}

/// Fills `out` by runs of rows in parallel: `f(rows, part)` writes the
/// part of `out` from `at(rows.start)` to `at(rows.end)` (`at` gives
/// where each row starts, and the end for one past the last).
#[inline]
pub(crate) fn par_fill<T: Send>(
    out: &mut [T],
    at: impl Fn(usize) -> usize,
    runs: &[Range<usize>],
    f: impl Fn(Range<usize>, &mut [T]) + Sync,
) {
    par_fill_dyn(out, &at, runs, &f)
}

/// [`par_fill`] with its functions behind references: compiled once per
/// element type, not once per caller.
#[inline(never)]
fn par_fill_dyn<T: Send>(
    out: &mut [T],
    at: &dyn Fn(usize) -> usize,
    runs: &[Range<usize>],
    f: &(dyn Fn(Range<usize>, &mut [T]) + Sync),
) {
    if runs.len() <= 1 || par::threads() == 1 {
        for r in runs {
            let part = &mut out[at(r.start)..at(r.end)];
            f(r.clone(), part);
        }
        return;
    }
    let mut parts = Vec::with_capacity(runs.len());
    let mut rest = out;
    let mut pos = 0;
    for r in runs {
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(at(r.end) - pos);
        pos = at(r.end);
        parts.push((r.clone(), head));
        rest = tail;
    }
    par::for_each_part(parts, &|_, (r, part)| f(r.clone(), part));
}

/// `f` of each run of rows in parallel, the results in order.
#[inline]
pub(crate) fn par_map<R: Send>(
    runs: &[Range<usize>],
    f: impl Fn(Range<usize>) -> R + Sync,
) -> Vec<R> {
    par_map_dyn(runs, &f)
}

/// [`par_map`] with its function behind a reference.
#[inline(never)]
fn par_map_dyn<R: Send>(runs: &[Range<usize>], f: &(dyn Fn(Range<usize>) -> R + Sync)) -> Vec<R> {
    if runs.len() <= 1 || par::threads() == 1 {
        return runs.iter().map(|r| f(r.clone())).collect();
    }
    par::map(runs.len(), &|i| f(runs[i].clone()))
}

/// One value per row: `f(row values range)` for each row, in parallel.
pub(crate) fn per_row<R: Send + Copy + Default>(
    offsets: &[i64],
    f: impl Fn(Range<usize>) -> R + Sync,
) -> Vec<R> {
    let rows = offsets.len() - 1;
    let mut out = vec![R::default(); rows];
    par_fill(
        &mut out,
        |i| i,
        &chunks(offsets),
        |r, part| {
            for (o, i) in part.iter_mut().zip(r) {
                *o = f(offsets[i] as usize..offsets[i + 1] as usize);
            }
        },
    );
    out
}

/// The offsets as `usize` positions.
pub(crate) fn positions(offsets: &[i64]) -> Vec<usize> {
    offsets.iter().map(|&o| o as usize).collect()
}

/// A piece of a gathered result.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Piece {
    /// `len` elements of source `src` from `start`.
    Take {
        src: usize,
        start: usize,
        len: usize,
    },
    /// `count` copies of the fill element (NA, all zero bytes, without
    /// one).
    Fill(usize),
}

/// The element type under the first dimension of `a`.
pub(crate) fn element_type(a: &Array) -> Type {
    match a.ty().kind() {
        TypeKind::Dim(_, e) => e.clone(),
        _ => a.ty().clone(),
    }
}

/// The compact `K * T` sources and their element record, checked to be
/// joinable.
fn sources_of(sources: &[&Array]) -> Result<(Vec<Array>, Arrmeta, Type, usize), Error> {
    let ty = element_type(sources[0]);
    let size = ty.data_layout()?.size;
    let compact: Vec<Array> = sources
        .iter()
        .map(|v| v.compact())
        .collect::<Result<_, _>>()?;
    let Some((_, _, element)) = compact[0].arrmeta().as_fixed() else {
        unreachable!("gather takes `K * T` arrays")
    };
    let element = element.clone();
    if compact.len() > 1 && (element.has_var() || element.has_text()) {
        // Their rows or text live in each source's own block.
        return Err(Error::Unsupported {
            operation: "joining elements that hold rows or text from different arrays",
            ty: sources[1].ty().clone(),
        });
    }
    Ok((compact, element, ty, size))
}

/// An array's first `n` elements' bytes.
fn bytes_of(a: &Array, n: usize, size: usize) -> &[u8] {
    let start = a.data_offset();
    &a.data_block().bytes()[start..start + n * size]
}

/// An unsigned integer that elements are moved in.
trait Word: Element + Copy + Default + Send + Sync {
    /// From its native-endian bytes.
    fn from_bytes(b: &[u8]) -> Self;
}

macro_rules! word {
    ($($t:ty),*) => {$(
        impl Word for $t {
            fn from_bytes(b: &[u8]) -> Self {
                <$t>::from_ne_bytes(b.try_into().unwrap_or_default())
            }
        }
    )*};
}
word!(u8, u16, u32, u64);

/// Bytes as words (borrowed when aligned, else copied).
fn words_of<W: Word>(b: &[u8]) -> Cow<'_, [W]> {
    match dynd_array::element::cast_slice::<W>(b) {
        Some(s) => Cow::Borrowed(s),
        None => Cow::Owned(
            b.chunks_exact(std::mem::size_of::<W>())
                .map(W::from_bytes)
                .collect(),
        ),
    }
}

/// A fresh `total * T` array over `block`.
fn result(
    ty: Type,
    element: Arrmeta,
    size: usize,
    total: usize,
    block: Arc<MemoryBlock>,
) -> Result<Array, Error> {
    let out_ty = Type::with_dims([Dim::Fixed(total)], ty)?;
    let meta = Arrmeta::Fixed {
        size: total,
        stride: size as isize,
        element: Box::new(element),
    };
    Array::try_from_parts(out_ty, Arc::new(meta), block, 0)
}

/// The widest word that divides `size` (for an element size above 0).
fn word_for(size: usize) -> usize {
    [8, 4, 2, 1]
        .into_iter()
        .find(|w| size % w == 0)
        .unwrap_or(1)
}

/// A zeroed block of `count` words `W` (untouched pages stay unmapped
/// until written), or the allocation error.
fn zeroed_words<W: Word>(count: usize) -> Result<Arc<MemoryBlock>, Error> {
    let bytes = count
        .checked_mul(std::mem::size_of::<W>())
        .ok_or(Error::Alloc { bytes: u64::MAX })?;
    MemoryBlock::zeroed(bytes)
}

/// A fresh block of `n` `T`s, cleared (`zero`) or as the allocator or
/// the reuse cache gives it, after `f` wrote into them.
fn filled<T: Element>(
    n: usize,
    zero: bool,
    f: impl FnOnce(&mut [T]),
) -> Result<Arc<MemoryBlock>, Error> {
    let bytes = n
        .checked_mul(std::mem::size_of::<T>())
        .ok_or(Error::Alloc { bytes: u64::MAX })?;
    let mut block = if zero {
        MemoryBlock::zeroed(bytes)?
    } else {
        MemoryBlock::for_overwrite(bytes)?
    };
    let Some(b) = Arc::get_mut(&mut block) else {
        unreachable!("a fresh block has one owner")
    };
    let Some(out) = dynd_array::element::cast_slice_mut::<T>(b.bytes_mut()) else {
        unreachable!("blocks are aligned for every scalar")
    };
    f(out);
    Ok(block)
}

/// A new `n * T` array whose elements `f` writes (they start as zero
/// bytes, a valid value of every number type).
pub(crate) fn new_values<T: Element>(n: usize, f: impl FnOnce(&mut [T])) -> Result<Array, Error> {
    scalars(n, true, f)
}

/// A new `n * T` array of [`filled`]'s block.
fn scalars<T: Element>(n: usize, zero: bool, f: impl FnOnce(&mut [T])) -> Result<Array, Error> {
    let block = filled(n, zero, f)?;
    result(
        T::SCALAR.into(),
        Arrmeta::Scalar,
        std::mem::size_of::<T>(),
        n,
        block,
    )
}

/// A new `n * ?T` array whose elements `f` writes, for the element types
/// whose option is the value, then its flag byte, padded to twice the
/// value's size (every number but the complex ones): `f` gets the `2n`
/// words as `T`s, all zero (NA), and the word that marks a value there;
/// element `i` is `[value, there]` at `2i`. `None` for another layout.
pub(crate) fn new_options<T: Element>(
    n: usize,
    f: impl FnOnce(&mut [T], T),
) -> Result<Option<Array>, Error> {
    options(n, true, f)
}

/// As [`new_options`], for an `f` that writes both words of every
/// element: the block is not cleared first (its bytes are initialised
/// but unspecified until `f` writes them).
pub(crate) fn new_options_written<T: Element>(
    n: usize,
    f: impl FnOnce(&mut [T], T),
) -> Result<Option<Array>, Error> {
    options(n, false, f)
}

/// [`new_options`] over a block cleared (`zero`) or not.
fn options<T: Element>(
    n: usize,
    zero: bool,
    f: impl FnOnce(&mut [T], T),
) -> Result<Option<Array>, Error> {
    let size = std::mem::size_of::<T>();
    let ty = Type::option(T::SCALAR.into())?;
    if ty.data_layout()?.size != 2 * size {
        return Ok(None);
    }
    // The flag byte first, the padding after it: as one `T`'s bytes.
    let mut flag = [0u8; 16];
    flag[0] = 1;
    let Some(there) = dynd_array::element::read::<T>(&flag[..size]) else {
        return Ok(None);
    };
    let words = n.checked_mul(2).ok_or(Error::Alloc { bytes: u64::MAX })?;
    let block = filled(words, zero, |out| f(out, there))?;
    let meta = dynd_array::array::dtype_meta(&ty)?;
    result(ty, meta, 2 * size, n, block).map(Some)
}

/// As [`new_values`], for floats and an `f` that writes every element:
/// the block is not cleared first (a reused block keeps the bytes it had;
/// every bit pattern is a float, so an element `f` left alone would be an
/// unspecified number, never an invalid value).
pub(crate) fn new_floats<T: Element + dynd_kernels::rowwise::Float>(
    n: usize,
    f: impl FnOnce(&mut [T]),
) -> Result<Array, Error> {
    scalars(n, false, f)
}

/// A `n * ?int64` array of indexes, NA where an index is negative: the
/// value and its flag written side by side in one pass.
pub(crate) fn optional_indexes(v: &[i64]) -> Result<Array, Error> {
    let out = new_options::<i64>(v.len(), |out, there| {
        for (w, &i) in out.chunks_exact_mut(2).zip(v) {
            if i >= 0 {
                w[0] = i;
                w[1] = there;
            }
        }
    })?;
    // `?int64` is a value and a flag in 16 bytes on every target.
    out.ok_or(Error::Unsupported {
        operation: "indexes of this layout",
        ty: Type::option(Scalar::Int64.into())?,
    })
}

/// Integer indexes as a per-row function reads them, in place where they
/// are `?int64` (each a value word and a flag word), else as `int64` with
/// their validity.
pub(crate) enum Indexes<'a> {
    /// The words of a compact `K * ?int64` array.
    Words(&'a [u64]),
    /// The indexes, and which are there (all when `None`).
    Plain(Cow<'a, [i64]>, Option<Vec<bool>>),
}

impl Indexes<'_> {
    /// Index `q`, or `None` where it is NA.
    #[inline(always)]
    pub(crate) fn get(&self, q: usize) -> Option<i64> {
        match self {
            Indexes::Words(w) => (w[2 * q + 1].to_ne_bytes()[0] != 0).then_some(w[2 * q] as i64),
            Indexes::Plain(ix, ok) => ok.as_ref().is_none_or(|ok| ok[q]).then_some(ix[q]),
        }
    }

    /// How many indexes there are.
    pub(crate) fn len(&self) -> usize {
        match self {
            Indexes::Words(w) => w.len() / 2,
            Indexes::Plain(ix, _) => ix.len(),
        }
    }

    /// Whether any index may be NA (decided by the type).
    pub(crate) fn optional(&self) -> bool {
        !matches!(self, Indexes::Plain(_, None))
    }
}

/// A `K * ?int64` array compacted, for [`index_words`] (`None` for another
/// element type).
pub(crate) fn option_index_array(values: &Array) -> Option<Array> {
    if element_type(values) != Type::option(Scalar::Int64.into()).ok()? {
        return None;
    }
    values.compact().ok()
}

/// The words of an array made by [`option_index_array`].
pub(crate) fn index_words(c: &Array) -> Option<Indexes<'_>> {
    let k = first_len(c.ty());
    dynd_array::element::cast_slice::<u64>(bytes_of(c, k, 16)).map(Indexes::Words)
}

/// The words of a fresh block (its only owner).
fn words_mut<W: Word>(block: &mut Arc<MemoryBlock>) -> &mut [W] {
    let Some(b) = Arc::get_mut(block) else {
        unreachable!("a fresh block has one owner")
    };
    let Some(w) = dynd_array::element::cast_slice_mut::<W>(b.bytes_mut()) else {
        unreachable!("blocks are aligned for every scalar")
    };
    w
}

/// A result of `rows` rows built from pieces of `sources` (each `K * T`,
/// one element type, any `T`): row `i` holds the pieces `pieces(i)`
/// yields, `at[i + 1] - at[i]` elements in all; `fill` (a `1 * T` array)
/// for [`Piece::Fill`], all-zero bytes (NA) without one; `weight` (value
/// offsets) spreads the rows over the threads. The bytes are copied in
/// words of the widest unsigned integer that divides the element size,
/// so text, options, rows and structs move as numbers do; what elements
/// point into is shared.
pub(crate) fn gather<I: Iterator<Item = Piece>>(
    sources: &[&Array],
    fill: Option<&Array>,
    (at, weight): (&[usize], &[i64]),
    pieces: impl Fn(usize) -> I + Sync,
) -> Result<Array, Error> {
    let (compact, element, ty, size) = sources_of(sources)?;
    let total = at[at.len() - 1];
    let fill = fill.map(|f| f.compact()).transpose()?;
    let runs = chunks(weight);
    fn run<W: Word, I: Iterator<Item = Piece>>(
        compact: &[Array],
        fill: Option<&Array>,
        (size, total): (usize, usize),
        (at, runs): (&[usize], &[Range<usize>]),
        pieces: &(impl Fn(usize) -> I + Sync),
    ) -> Result<Arc<MemoryBlock>, Error> {
        let w = size / std::mem::size_of::<W>();
        let src: Vec<Cow<'_, [W]>> = compact
            .iter()
            .map(|v| words_of::<W>(bytes_of(v, first_len(v.ty()), size)))
            .collect();
        let fill: Vec<W> = match fill {
            Some(f) => words_of::<W>(bytes_of(f, 1, size)).into_owned(),
            None => vec![W::default(); w],
        };
        let zero = fill.iter().all(|&x| x == W::default());
        let mut block = zeroed_words::<W>(
            total
                .checked_mul(w)
                .ok_or(Error::Alloc { bytes: u64::MAX })?,
        )?;
        let out = words_mut::<W>(&mut block);
        par_fill(
            out,
            |i| at[i] * w,
            runs,
            |rows, part| {
                let mut k = 0;
                for i in rows {
                    for p in pieces(i) {
                        match p {
                            Piece::Take {
                                src: s,
                                start,
                                len: 1,
                            } if w == 1 => {
                                part[k] = src[s][start];
                                k += 1;
                            }
                            Piece::Take { src: s, start, len } => {
                                let n = len * w;
                                part[k..k + n].copy_from_slice(&src[s][start * w..start * w + n]);
                                k += n;
                            }
                            // The block is zeroed already.
                            Piece::Fill(count) if zero => k += count * w,
                            Piece::Fill(count) if w == 1 => {
                                part[k..k + count].fill(fill[0]);
                                k += count;
                            }
                            Piece::Fill(count) => {
                                for _ in 0..count {
                                    part[k..k + w].copy_from_slice(&fill);
                                    k += w;
                                }
                            }
                        }
                    }
                }
                debug_assert_eq!(k, part.len());
            },
        );
        Ok(block)
    }
    let args = (&compact[..], fill.as_ref());
    let block = match (size, word_for(size)) {
        (0, _) => MemoryBlock::zeroed(0)?,
        (_, 8) => run::<u64, I>(args.0, args.1, (size, total), (at, &runs), &pieces)?,
        (_, 4) => run::<u32, I>(args.0, args.1, (size, total), (at, &runs), &pieces)?,
        (_, 2) => run::<u16, I>(args.0, args.1, (size, total), (at, &runs), &pieces)?,
        _ => run::<u8, I>(args.0, args.1, (size, total), (at, &runs), &pieces)?,
    };
    result(ty, element, size, total, block)
}

/// The elements of `values` (`K * T`, any `T`) where `keep` is true, row
/// by row (`offsets` in, `kept` the result's offsets), as an `M * T`
/// array; elements of one word are stored branch-free.
pub(crate) fn select(
    values: &Array,
    keep: &[bool],
    offsets: &[i64],
    kept: &[i64],
) -> Result<Array, Error> {
    let (compact, element, ty, size) = sources_of(&[values])?;
    let total = kept[kept.len() - 1] as usize;
    if size == 0 || size > 8 || word_for(size) != size {
        let at = positions(kept);
        return gather(&[values], None, (&at, offsets), |i| {
            let (mut k, end) = (offsets[i] as usize, offsets[i + 1] as usize);
            std::iter::from_fn(move || {
                while k < end && !keep[k] {
                    k += 1;
                }
                let start = k;
                while k < end && keep[k] {
                    k += 1;
                }
                (k > start).then_some(Piece::Take {
                    src: 0,
                    start,
                    len: k - start,
                })
            })
        });
    }
    fn run<W: Word>(
        src: &[u8],
        keep: &[bool],
        (offsets, kept): (&[i64], &[i64]),
        total: usize,
    ) -> Result<Arc<MemoryBlock>, Error> {
        let src = words_of::<W>(src);
        // One slot past the end: every element is stored, the end moves
        // on past the kept ones only.
        let mut block = zeroed_words::<W>(total + 1)?;
        let out = words_mut::<W>(&mut block);
        // The last run also owns the spare slot.
        let last = kept.len() - 1;
        let at = |i: usize| kept[i] as usize + usize::from(i == last);
        par_fill(out, at, &chunks(offsets), |rows, part| {
            let from = offsets[rows.start] as usize..offsets[rows.end] as usize;
            let mut k = 0;
            let (xs, ks) = (&src[from.clone()], &keep[from]);
            let n = part.len();
            for (&x, &keep) in xs.iter().zip(ks) {
                // The slot past a run's end belongs to the next run (or is
                // the spare one), so a dropped last element is stored at
                // `k < n` only.
                if k < n {
                    part[k] = x;
                }
                k += usize::from(keep);
            }
        });
        Ok(block)
    }
    let k = first_len(compact[0].ty());
    let bytes = bytes_of(&compact[0], k, size);
    let block = match size {
        1 => run::<u8>(bytes, keep, (offsets, kept), total)?,
        2 => run::<u16>(bytes, keep, (offsets, kept), total)?,
        4 => run::<u32>(bytes, keep, (offsets, kept), total)?,
        _ => run::<u64>(bytes, keep, (offsets, kept), total)?,
    };
    result(ty, element, size, total, block)
}

/// The values without NA (the `T` values of `?T`) and, for `?T`, which
/// are valid.
pub(crate) fn split_na(values: &Array) -> Result<(Array, Option<Vec<bool>>), Error> {
    if !matches!(values.dtype().kind(), TypeKind::Option(_)) {
        return Ok((values.clone(), None));
    }
    match values.option_parts() {
        Some((v, ok)) => {
            let ok = slice::<bool>(&ok)?.into_owned();
            Ok((v, Some(ok)))
        }
        None => Ok((values.clone(), None)),
    }
}
