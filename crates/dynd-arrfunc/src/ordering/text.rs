//! Ordering strings: `argsort` and `sort` of `string` (and `?string`)
//! along any axis of a dense array and within each ragged row.
//!
//! Strings order by their UTF-8 bytes, which is the order of their code
//! points (`"B" < "a" < "ä" < "日"`): no locale, no case folding. NA sorts
//! after every string, in either direction, as NaN does for numbers. A
//! sort is stable: equal strings keep their order. The sorted strings are
//! the input's (start, length) pairs moved, so the characters are not
//! copied.
//!
//! ```
//! use dynd::func::{argsort, builtins::SORT};
//! use dynd::nd::Array;
//!
//! let x = Array::from_json(r#"[["b", "日本", "B", "a"], ["naïve", "naive"]]"#, None)?;
//! assert_eq!(argsort(&x, -1, true)?.to_string(), "[[2, 3, 0, 1], [1, 0]]");
//! let sorted = SORT.call(&[&x])?;
//! assert_eq!(sorted.to_string(), r#"[["B", "a", "b", "日本"], ["naive", "naïve"]]"#);
//! # Ok::<(), dynd::Error>(())
//! ```

use std::cmp::Ordering;

use dynd_array::text::Strings;
use dynd_kernels::{Array, ArrayOps};
use dynd_types::{Scalar, TypeKind};

use crate::error::Error;
use crate::options::AxisOptions;
use crate::rows::{self, chunks, gather, positions, AxisRows, Piece};

/// Whether `x`'s elements are `string` or `?string`.
pub(crate) fn is_text(x: &Array) -> bool {
    let t = match x.dtype().kind() {
        TypeKind::Option(inner) => inner,
        _ => x.dtype(),
    };
    t.as_scalar() == Some(Scalar::String) || matches!(t.kind(), TypeKind::FixedString { .. })
}

/// The strings of `vals` (`K * string`, NA already split off) as bytes.
fn views(vals: &Array) -> Result<Vec<&[u8]>, Error> {
    let outside = || Error::Unsupported {
        operation: "ordering strings outside their text block",
        ty: vals.ty().clone(),
    };
    let s = Strings::of(vals).ok_or_else(outside)?;
    s.iter().map(|b| b.ok_or_else(outside)).collect()
}

/// The first eight bytes of `s`, big-endian, zero past its end: strings
/// whose prefixes differ order as the prefixes do, so most compares of a
/// sort are of two integers held in the keys, not of two strings read
/// from the text (the idea of Arrow's string views).
#[inline]
fn prefix(s: &[u8]) -> u64 {
    if let Some(w) = s.first_chunk::<8>() {
        return u64::from_be_bytes(*w);
    }
    // Shorter: its bytes from the top, zeros after (a loop of at most
    // seven, not a call to copy).
    s.iter()
        .enumerate()
        .fold(0, |w, (i, &b)| w | u64::from(b) << (56 - 8 * i))
}

/// The order of two strings with equal [`prefix`]es: word by word past
/// it, inline (most such pairs are equal strings, or differ within a few
/// words; no call to compare memory).
#[inline]
fn after_prefix(mut a: &[u8], mut b: &[u8]) -> Ordering {
    // Invariant: `a` and `b` agree in their first eight bytes, zeros past
    // the end of either. Where one has at most eight, it is a start of the
    // other (which has zeros there): the shorter is less.
    while a.len() > 8 && b.len() > 8 {
        (a, b) = (&a[8..], &b[8..]);
        let (x, y) = (prefix(a), prefix(b));
        if x != y {
            return x.cmp(&y);
        }
    }
    a.len().cmp(&b.len())
}

/// Each row of `rows` (strings `v`, no NA) sorted: the strings' pairs in
/// order, pointing into `vals`'s text block (no characters copied, and no
/// gather: equal strings are equal whichever pair goes first).
fn sorted_views(
    rows: &AxisRows,
    vals: &Array,
    v: &[&[u8]],
    ascending: bool,
) -> Result<Array, Error> {
    let outside = || Error::Unsupported {
        operation: "ordering strings outside their text block",
        ty: vals.ty().clone(),
    };
    let block = Strings::of(vals).ok_or_else(outside)?.text_block().clone();
    let base = block.as_ptr() as usize;
    let o = &rows.offsets;
    // The pairs as words, two a string: the values' data as it is.
    let mut pairs = vec![0u64; 2 * v.len()];
    rows::par_fill(
        &mut pairs,
        |i| 2 * o[i] as usize,
        &chunks(o),
        |run, part| {
            let first = o[run.start] as usize;
            let mut keyed: Vec<(u64, &[u8])> = Vec::new();
            for i in run {
                let r = o[i] as usize..o[i + 1] as usize;
                keyed.clear();
                keyed.extend(v[r.clone()].iter().map(|&s| (prefix(s), s)));
                if ascending {
                    keyed.sort_unstable_by(|a, b| {
                        a.0.cmp(&b.0).then_with(|| after_prefix(a.1, b.1))
                    });
                } else {
                    keyed.sort_unstable_by(|a, b| {
                        b.0.cmp(&a.0).then_with(|| after_prefix(b.1, a.1))
                    });
                }
                let out = &mut part[2 * (r.start - first)..2 * (r.end - first)];
                for (p, (_, s)) in out.chunks_exact_mut(2).zip(&keyed) {
                    // A part of the block's bytes: its offset in them.
                    p[0] = (s.as_ptr() as usize - base) as u64;
                    p[1] = s.len() as u64;
                }
            }
        },
    );
    let n = v.len();
    let meta = dynd_kernels::Arrmeta::Fixed {
        size: n,
        stride: 16,
        element: Box::new(dynd_kernels::Arrmeta::Text { block }),
    };
    let ty = dynd_types::Type::with_dims([dynd_types::Dim::Fixed(n)], Scalar::String.into())?;
    // Checked as made: every pair inside the text block.
    let values = Array::try_from_parts(
        ty,
        std::sync::Arc::new(meta),
        dynd_array::memory::MemoryBlock::from_vec(pairs),
        0,
    )?;
    rows.wrap_rows(values, o)
}

/// The indexes that sort each row of `rows` (strings `v`, NA where `ok`
/// is false), within the row: stable, NA last either way.
fn argsort_views(rows: &AxisRows, v: &[&[u8]], ok: Option<&[bool]>, ascending: bool) -> Vec<i64> {
    let o = &rows.offsets;
    let mut out = vec![0i64; v.len()];
    rows::par_fill(
        &mut out,
        |i| o[i] as usize,
        &chunks(o),
        |run, part| {
            let base = o[run.start];
            let mut keyed: Vec<(u64, &[u8], usize)> = Vec::new();
            for i in run {
                let r = o[i] as usize..o[i + 1] as usize;
                keyed.clear();
                let here = |k: &usize| ok.is_none_or(|ok| ok[r.start + k]);
                // Each string with its index within the row, sorted by
                // both: the strings in order, equal ones in the order
                // they came (stable), and no indirection in the compares.
                keyed.extend(
                    (0..r.len())
                        .filter(here)
                        .map(|k| (prefix(v[r.start + k]), v[r.start + k], k)),
                );
                keyed.sort_unstable_by(|a, b| {
                    let c = a.0.cmp(&b.0).then_with(|| after_prefix(a.1, b.1));
                    if ascending { c } else { c.reverse() }.then(a.2.cmp(&b.2))
                });
                let na = (0..r.len()).filter(|k| !here(k));
                let out = &mut part[(o[i] - base) as usize..(o[i + 1] - base) as usize];
                for (o, k) in out.iter_mut().zip(keyed.iter().map(|x| x.2).chain(na)) {
                    *o = k as i64;
                }
            }
        },
    );
    out
}

/// [`super::per_row::argsort_rows`] (`sort: false`) or
/// [`super::per_row::sort_rows`] (`sort: true`) for strings: `rows` of
/// `vals` (NA where `ok` is false), the indexes within each row or the
/// rows' strings in order (their pairs moved, the characters shared).
pub(super) fn order_rows(
    rows: &AxisRows,
    vals: &Array,
    ok: Option<&[bool]>,
    ascending: bool,
    sort: bool,
) -> Result<Array, Error> {
    let v = views(vals)?;
    if sort && ok.is_none() {
        return sorted_views(rows, vals, &v, ascending);
    }
    let idx = argsort_views(rows, &v, ok, ascending);
    if sort {
        rows.reorder(&idx)
    } else {
        rows.wrap_rows(Array::from_vec(idx), &rows.offsets)
    }
}

/// The first greatest (`max`) or least string of `v[r]` among the valid
/// ones: its index in `v`.
fn extreme_in(
    v: &[&[u8]],
    r: std::ops::Range<usize>,
    ok: Option<&[bool]>,
    max: bool,
) -> Option<usize> {
    let mut best: Option<usize> = None;
    for k in r {
        if ok.is_some_and(|ok| !ok[k]) {
            continue;
        }
        let better = best.is_none_or(|b| if max { v[k] > v[b] } else { v[k] < v[b] });
        if better {
            best = Some(k);
        }
    }
    best
}

/// Each row's first greatest (`max`) or least string among the valid
/// ones (`argmax`/`argmin` per row): its index within the row, or -1 for a
/// row without one.
pub(super) fn arg_extremes(
    rows: &AxisRows,
    vals: &Array,
    ok: Option<&[bool]>,
    max: bool,
) -> Result<Vec<i64>, Error> {
    let v = views(vals)?;
    Ok(rows::per_row(&rows.offsets, |r| {
        let start = r.start;
        extreme_in(&v, r, ok, max).map_or(-1, |k| (k - start) as i64)
    }))
}

/// The first greatest (`max`) or least of all the strings `vals` (NA
/// where `ok` is false skipped): its index, `None` without one.
pub(super) fn arg_extreme_all(
    vals: &Array,
    ok: Option<&[bool]>,
    max: bool,
) -> Result<Option<usize>, Error> {
    let v = views(vals)?;
    Ok(extreme_in(&v, 0..v.len(), ok, max))
}

/// `max` (or `min`) of strings, `x` of `string` or `?string`: over every
/// element, or along one axis (any axis of a dense array, the last of a
/// ragged one). NA is skipped with `skip_na`, else a group holding NA
/// gives NA; a group without a string gives NA (over a ragged axis) or
/// is an error (dense, as NumPy's). The strings are the input's (their
/// characters shared).
pub(crate) fn extreme(x: &Array, o: &AxisOptions, max: bool) -> Result<Array, Error> {
    let op = if max { "max" } else { "min" };
    if o.initial.is_some() || o.mask.is_some() {
        return Err(Error::Argument {
            op,
            what: "the keywords of a reduction of strings",
            expected: "axis, keepdims and skip_na (initial and where take numbers)",
            found: "initial or where".into(),
        });
    }
    let nd = x.ndim();
    let axis = match o.axes() {
        None => None,
        Some(axes) => {
            let mut axes = dynd_kernels::reduce::normalize_axes(Some(axes), nd.max(1), op)?;
            axes.sort_unstable();
            axes.dedup();
            match axes[..] {
                _ if axes.len() == nd || nd == 0 => None,
                [a] => Some(a),
                _ => {
                    return Err(Error::Argument {
                        op,
                        what: "the axes of a reduction of strings",
                        expected: "one axis, or all of them",
                        found: format!("{axes:?} of {}", x.ty()).into(),
                    })
                }
            }
        }
    };
    let r = match axis {
        None => {
            let x1 = if nd == 0 { x.reshape([1])? } else { x.clone() };
            let values = AxisRows::of(&x1, op)?.values;
            let (vals, valid) = rows::split_na(&values)?;
            let any_na = valid.as_ref().is_some_and(|ok| ok.iter().any(|v| !v));
            if any_na && !o.skip_na {
                na_string()?
            } else {
                let i = arg_extreme_all(&vals, valid.as_deref(), max)?.ok_or_else(|| {
                    Error::Argument {
                        op,
                        what: "the array",
                        expected: "at least one string (NumPy raises too)",
                        found: x.ty().to_string().into(),
                    }
                })?;
                let one = vals.index(&[dynd_kernels::Index::At(i as i64)])?;
                if valid.is_some() {
                    Array::from_option_parts(&one, &Array::from_scalar(true))?
                } else {
                    one
                }
            }
        }
        Some(a) => {
            let moved = if x.ty().has_var_dim() {
                super::last_axis(x, a as i64, op)?;
                x.clone()
            } else {
                super::axis_last(x, a, nd)?
            };
            let rows = AxisRows::of(&moved, op)?;
            let (vals, valid) = rows::split_na(&rows.values)?;
            let ok = valid.as_deref();
            let mut at = arg_extremes(&rows, &vals, ok, max)?;
            if let (Some(ok), false) = (ok, o.skip_na) {
                // A row holding NA gives NA.
                for (r, a) in at.iter_mut().enumerate() {
                    let span = rows.offsets[r] as usize..rows.offsets[r + 1] as usize;
                    if ok[span].iter().any(|v| !v) {
                        *a = -1;
                    }
                }
            }
            if rows.fixed.is_some() && valid.is_none() && at.iter().any(|&a| a < 0) {
                return Err(Error::Argument {
                    op,
                    what: "the array",
                    expected: "non-empty along the axis (NumPy raises too)",
                    found: x.ty().to_string().into(),
                });
            }
            let inner = pick(&rows, &vals, &at, valid.is_some() || rows.fixed.is_none())?;
            let inner = if o.keepdims {
                inner.split_first(rows.count(), 1)?
            } else {
                inner
            };
            let r = rows.wrap(inner)?;
            if o.keepdims && !x.ty().has_var_dim() {
                super::axis_back(r, a, nd)?
            } else {
                r
            }
        }
    };
    if o.keepdims && axis.is_none() && nd > 0 && !x.ty().has_var_dim() {
        return r.reshape(vec![1; nd]);
    }
    Ok(r)
}

/// One NA of `?string`.
fn na_string() -> Result<Array, Error> {
    Array::from_option_parts(&Array::from_text(""), &Array::from_scalar(false))
}

/// The string at `at[r]` of each row `r` of `rows` (`vals` its strings;
/// -1: none), as `count * string`, or `count * ?string` with NA for the
/// rows without one when `optional`.
fn pick(rows: &AxisRows, vals: &Array, at: &[i64], optional: bool) -> Result<Array, Error> {
    let pos = positions(&rows.offsets);
    let one: Vec<usize> = (0..=at.len()).collect();
    let values = gather(&[vals], None, (&one, &rows.offsets), |r| {
        std::iter::once(match at[r] {
            a if a >= 0 => Piece::Take {
                src: 0,
                start: pos[r] + a as usize,
                len: 1,
            },
            _ => Piece::Fill(1),
        })
    })?;
    if !optional {
        return Ok(values);
    }
    let valid: Vec<bool> = at.iter().map(|&a| a >= 0).collect();
    Array::from_option_parts(&values, &Array::from_vec(valid))
}

/// One distinct value of a row: the index in the values of its first
/// occurrence, whether it is NA, and how often it occurs.
#[derive(Clone, Copy)]
struct Distinct {
    first: usize,
    na: bool,
    count: i64,
}

/// The distinct strings of each row of `offsets` over `v` (NA where `ok`
/// is false), sorted, then one NA if the row has any; and the rows' new
/// offsets.
fn distinct(offsets: &[i64], v: &[&[u8]], ok: Option<&[bool]>) -> (Vec<Distinct>, Vec<i64>) {
    let mut out: Vec<Distinct> = Vec::new();
    let mut new_offsets = Vec::with_capacity(offsets.len());
    new_offsets.push(0i64);
    let mut idx: Vec<(&[u8], usize)> = Vec::new();
    for w in offsets.windows(2) {
        let r = w[0] as usize..w[1] as usize;
        idx.clear();
        idx.extend(
            r.clone()
                .filter(|&k| ok.is_none_or(|ok| ok[k]))
                .map(|k| (v[k], k)),
        );
        // By string, then index: the first of equal strings is the first
        // occurrence.
        idx.sort_unstable();
        let row_start = out.len();
        for &(s, k) in &idx {
            match out[row_start..].last_mut() {
                Some(last) if v[last.first] == s => last.count += 1,
                _ => out.push(Distinct {
                    first: k,
                    na: false,
                    count: 1,
                }),
            }
        }
        let mut nas = r.filter(|&k| ok.is_some_and(|ok| !ok[k]));
        if let Some(first) = nas.next() {
            out.push(Distinct {
                first,
                na: true,
                count: 1 + nas.count() as i64,
            });
        }
        new_offsets.push(out.len() as i64);
    }
    (out, new_offsets)
}

/// The distinct strings of `v` (NA where `ok` is false), sorted, then
/// one NA if there is any: each string found once by hashing (its first
/// occurrence and count kept), then only the distinct ones sorted, so
/// many repeats cost a hash each instead of a place in a sort.
fn distinct_hashed(v: &[&[u8]], ok: Option<&[bool]>) -> Vec<Distinct> {
    let mut seen: std::collections::HashMap<&[u8], usize, Fx> =
        std::collections::HashMap::with_hasher(Fx);
    let mut out: Vec<Distinct> = Vec::new();
    let mut na: Option<Distinct> = None;
    for (k, &s) in v.iter().enumerate() {
        if ok.is_some_and(|ok| !ok[k]) {
            na.get_or_insert(Distinct {
                first: k,
                na: true,
                count: 0,
            })
            .count += 1;
            continue;
        }
        match seen.entry(s) {
            std::collections::hash_map::Entry::Occupied(e) => out[*e.get()].count += 1,
            std::collections::hash_map::Entry::Vacant(e) => {
                e.insert(out.len());
                out.push(Distinct {
                    first: k,
                    na: false,
                    count: 1,
                });
            }
        }
    }
    out.sort_unstable_by(|a, b| v[a.first].cmp(v[b.first]));
    out.extend(na);
    out
}

/// A fast hash for short byte strings (FxHash's multiply-rotate over
/// eight bytes at a time): no protection against crafted collisions,
/// which only cost time here, never a wrong result.
#[derive(Clone, Copy, Default)]
struct Fx;

impl std::hash::BuildHasher for Fx {
    type Hasher = FxHasher;

    fn build_hasher(&self) -> FxHasher {
        FxHasher(0)
    }
}

/// The state of [`Fx`].
struct FxHasher(u64);

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
}

impl std::hash::Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let word = |c: &[u8]| u64::from_le_bytes([c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7]]);
        if bytes.len() < 8 {
            // A loop of at most seven, not a call to copy.
            let w = bytes
                .iter()
                .enumerate()
                .fold(0, |w, (i, &b)| w | u64::from(b) << (8 * i));
            self.add(w);
            return;
        }
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            self.add(word(c));
        }
        // The last eight bytes again, overlapping the chunks: the same
        // for equal strings, which is all a hash needs (the length is
        // hashed before the bytes).
        if !chunks.remainder().is_empty() {
            self.add(word(&bytes[bytes.len() - 8..]));
        }
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

/// The strings `d` names in `vals` (`K * string`) as `M * string`, or
/// `M * ?string` when `optional` (NA where `d` says).
fn strings_of(
    vals: &Array,
    d: &[Distinct],
    weight: &[i64],
    optional: bool,
) -> Result<Array, Error> {
    let at = [0, d.len()];
    let weight = [0, weight[weight.len() - 1]];
    let values = gather(&[vals], None, (&at, &weight), |_| {
        d.iter().map(|x| {
            if x.na {
                Piece::Fill(1)
            } else {
                Piece::Take {
                    src: 0,
                    start: x.first,
                    len: 1,
                }
            }
        })
    })?;
    if !optional {
        return Ok(values);
    }
    let valid: Vec<bool> = d.iter().map(|x| !x.na).collect();
    Array::from_option_parts(&values, &Array::from_vec(valid))
}

/// `unique` of strings (`x` of `string` or `?string`, any dimensions):
/// the distinct strings sorted (one NA last if there is any), with each
/// one's count and the flat index of its first occurrence if asked.
pub(super) fn unique(x: &Array, counts: bool, index: bool) -> Result<super::Uniques, Error> {
    let x1 = if x.ndim() == 0 {
        x.reshape([1])?
    } else {
        x.clone()
    };
    let values = AxisRows::of(&x1, "unique")?.values;
    let (vals, valid) = rows::split_na(&values)?;
    let v = views(&vals)?;
    let offsets = [0, v.len() as i64];
    let d = distinct_hashed(&v, valid.as_deref());
    let out = strings_of(&vals, &d, &offsets, valid.is_some())?;
    Ok((
        out,
        counts.then(|| Array::from_vec(d.iter().map(|x| x.count).collect())),
        index.then(|| Array::from_vec(d.iter().map(|x| x.first as i64).collect())),
    ))
}

/// `unique_rows` of strings: each row's distinct strings, sorted (one NA
/// last if the row has any), as `var` rows under the dimensions above.
pub(super) fn unique_rows(
    rows: &AxisRows,
    vals: &Array,
    ok: Option<&[bool]>,
) -> Result<Array, Error> {
    let v = views(vals)?;
    let (d, offsets) = distinct(&rows.offsets, &v, ok);
    let out = strings_of(vals, &d, &rows.offsets, ok.is_some())?;
    rows.wrap(Array::from_offsets(out, &offsets)?)
}

/// `searchsorted` of strings: where each of `values` (`string`, any
/// fixed dimensions) goes in `sorted` (1-dimensional `string`, ascending
/// in byte order), the first such place or the last with `right`.
pub(super) fn searchsorted(
    sorted: &Array,
    values: &Array,
    right: bool,
    shape: &[usize],
) -> Result<Array, Error> {
    let plain = |a: &Array| a.dtype().as_scalar() == Some(Scalar::String);
    if !plain(sorted) || !plain(values) {
        return Err(Error::Argument {
            op: "searchsorted",
            what: "strings",
            expected: "`string` on both sides (fill NA first)",
            found: format!("{} and {}", sorted.ty(), values.ty()).into(),
        });
    }
    let hay = views(sorted)?;
    let needles = views(values)?;
    let out: Vec<i64> = needles
        .iter()
        .map(|x| {
            hay.partition_point(|y| match (*y).cmp(x) {
                Ordering::Less => true,
                Ordering::Equal => right,
                Ordering::Greater => false,
            }) as i64
        })
        .collect();
    Array::from_shape_vec(shape, out)
}

#[cfg(test)]
mod prefix_tests {
    use super::*;

    #[test]
    fn prefix_keys_order_as_the_bytes_do() {
        // Lengths around the eight- and sixteen-byte words, zero bytes
        // (which the prefix pads with), equal prefixes, non-ASCII.
        let words: Vec<Vec<u8>> = [
            "",
            "\0",
            "a",
            "a\0",
            "a\0\0",
            "abcdefg",
            "abcdefgh",
            "abcdefgh\0",
            "abcdefghi",
            "abcdefgh\0\0\0\0\0\0\0\0x",
            "abcdefghabcdefgh",
            "abcdefghabcdefgh",
            "abcdefghabcdefgi",
            "abcdefghabcdefghz",
            "日本語日本語",
            "日本語日本",
            "b",
            "\u{7f}",
            "é",
        ]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
        for a in &words {
            for b in &words {
                let keyed = prefix(a).cmp(&prefix(b)).then_with(|| after_prefix(a, b));
                assert_eq!(keyed, a.cmp(b), "{a:?} vs {b:?}");
            }
        }
    }
}
