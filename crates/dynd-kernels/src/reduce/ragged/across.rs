//! Scans of each row, and folds across rows (rows lined up by position).

use super::*;

/// The scan of each row of an array whose innermost dimension is `var`,
/// along that axis (`axis` must be it).
pub(crate) fn accumulate_rows<T: Element, F: Fn(T, T) -> T>(
    a: &Array,
    axis: usize,
    f: F,
    name: &str,
) -> Result<Array, Error> {
    let unsupported = || Error::Unsupported {
        operation:
            "a scan of an array with a var dimension other than along its innermost var axis",
        ty: a.ty().clone(),
    };
    let rows = Rows::of(a).ok_or_else(unsupported)?;
    if axis != rows.shape().len() {
        return Err(unsupported());
    }
    // One values buffer and one pair per row, written as the rows are
    // read (plain slices where `RowSlices` can give them).
    let slices = rows.slices::<T>();
    let size = std::mem::size_of::<T>();
    let mut total = 0usize;
    for r in 0..rows.count() {
        total = total.saturating_add(rows.pair_of(r, name)?.1);
    }
    let mut values: Vec<T> = Vec::new();
    values
        .try_reserve_exact(total)
        .map_err(|_| Error::alloc(total as u128 * size as u128))?;
    let mut pairs = vec![0u8; rows.count() * PAIR_SIZE];
    for (r, pair) in pairs.chunks_exact_mut(PAIR_SIZE).enumerate() {
        let xs = match slices.as_ref().and_then(|s| s.get(r)) {
            Some(xs) => Cow::Borrowed(xs),
            None => rows.row_of::<T>(r, name)?,
        };
        write_pair(pair, (values.len() * size) as u64, xs.len() as u64);
        if let Some((&first, rest)) = xs.split_first() {
            // `extend` over a slice's `map` writes without a capacity
            // check per element, so `acc` stays in a register.
            let mut acc = first;
            values.push(acc);
            values.extend(rest.iter().map(|&x| {
                acc = f(acc, x);
                acc
            }));
        }
    }
    packed_rows(rows.shape(), values, &pairs)
}

/// A fold across rows (left-aligned, one line per group) with a neutral
/// element: each line is kept at least [`WIDE`] long with `neutral` past
/// its end, so a short row folds into it as one masked block (its lanes
/// past the row take `neutral`'s bits, which leave the line unchanged)
/// with no branch on its length. Every position is folded in row order
/// from its first value, as [`fold_into_line`] folds it: the same bits.
pub(super) struct Across<'a, T> {
    pub(super) walk: &'a RowSlices<'a, T>,
    pub(super) rows: &'a Rows<'a>,
    /// Each row's group; empty for one group.
    pub(super) groups: &'a [usize],
    pub(super) ngroups: usize,
    pub(super) neutral: T,
    pub(super) name: &'a str,
}

impl<T: Element> Across<'_, T> {
    /// [`Self::fold`] compiled for the CPU it runs on
    /// ([`crate::isa::best!`]); the same bits on every set.
    pub(super) fn fold_best<B: Lane, F: Fn(T, T) -> T + Copy>(
        &self,
        lanes: &[B],
        range: std::ops::Range<usize>,
        f: F,
    ) -> Result<Vec<Vec<T>>, Error> {
        crate::isa::best!(self.fold(lanes, range, f))
    }

    /// Rows `range` folded into one line per group. `lanes` are the values
    /// block as `T`-sized lanes ([`RowSlices::lanes`]).
    #[inline(always)]
    pub(super) fn fold<B: Lane, F: Fn(T, T) -> T + Copy>(
        &self,
        lanes: &[B],
        range: std::ops::Range<usize>,
        f: F,
    ) -> Result<Vec<Vec<T>>, Error> {
        let neutral = self.neutral;
        let fill: B = to_bits(neutral);
        let mut lines: Vec<Vec<T>> = vec![vec![neutral; WIDE]; self.ngroups];
        let mut used = vec![0usize; self.ngroups];
        for r in range {
            let g = if self.groups.is_empty() {
                0
            } else {
                self.groups[r]
            };
            let (line, used) = (&mut lines[g], &mut used[g]);
            if let Some((s, len)) = self.walk.span(r).filter(|&(_, len)| len <= WIDE) {
                if let Some(b) = masked::<T, B>(lanes, s, len, (fill, neutral)) {
                    let head = &mut line[..WIDE];
                    for k in 0..WIDE {
                        head[k] = f(head[k], b[k]);
                    }
                    *used = (*used).max(len);
                    continue;
                }
            }
            // A long row, or one whose block would reach past the values.
            let xs = match self.walk.get(r) {
                Some(xs) => Cow::Borrowed(xs),
                None => self.rows.row_of::<T>(r, self.name)?,
            };
            if line.len() < xs.len() {
                line.resize(xs.len(), neutral);
            }
            for (p, x) in line.iter_mut().zip(xs.iter()) {
                *p = f(*p, *x);
            }
            *used = (*used).max(xs.len());
        }
        for (line, n) in lines.iter_mut().zip(used) {
            line.truncate(n);
        }
        Ok(lines)
    }
}

/// Folds `xs` into `line` position by position (left-aligned), the
/// line growing to `xs`'s length.
pub(super) fn fold_into_line<T: Copy>(line: &mut Vec<T>, xs: &[T], f: impl Fn(T, T) -> T) {
    let shared = line.len().min(xs.len());
    for (p, x) in line.iter_mut().zip(&xs[..shared]) {
        *p = f(*p, *x);
    }
    line.extend_from_slice(&xs[shared..]);
}
