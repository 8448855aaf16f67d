//! Groups of equal keys: [`groupby`] (the values of each distinct key,
//! gathered into one ragged row per key), [`groupby_keys`] (each group's
//! key), [`value_counts`], [`run_lengths`], and the first and last value
//! of each row ([`first`], [`last`]).
//!
//! Every one of them starts from the keys' *codes*: each key's group, a
//! number from 0 to `K - 1` in ascending key order (the order [`unique`]
//! gives: numbers ascending with NaN last, `false` before `true`, strings
//! by their bytes, records field by field, times by their instants), NA
//! keys one group after every other. The codes come from a table indexed
//! by the key when the integer keys lie in a small range (as NumPy's
//! `bincount` knows it), else from a hash table of the distinct keys, whose
//! few entries are then sorted; records are ranked by one sort. Then
//! [`groupby`] is a counting sort of the values by code (each group keeps
//! its values in their original order), so its result is the values in
//! one new order plus the offsets of the groups — or a view of the values
//! themselves when they already lie grouped.
//!
//! Grouping produces ragged rows, and every function over ragged rows
//! runs on them: `sum(groupby(v, k), axis=1)`, `mean`, `sort`, `argmax`,
//! [`first`] and [`last`].
//!
//! ```
//! use dynd::func::{groupby, groupby_keys, run_lengths, value_counts};
//! use dynd::nd::array;
//!
//! let latency = array![12.0, 30.0, 7.0, 18.0, 25.0];
//! let user = array!["bo", "al", "bo", "cy", "al"];
//! assert_eq!(groupby_keys(&user)?.to_string(), r#"["al", "bo", "cy"]"#);
//! let g = groupby(&latency, &user)?;
//! assert_eq!(g.ty().to_string(), "3 * var * float64");
//! assert_eq!(g.to_string(), "[[30, 25], [12, 7], [18]]");
//! assert_eq!(value_counts(&user)?.to_string(),
//!     r#"[{"value": "al", "count": 2}, {"value": "bo", "count": 2}, {"value": "cy", "count": 1}]"#);
//! assert_eq!(run_lengths(&array![1, 1, 2, 1])?.to_string(), "[2, 1, 1]");
//! # Ok::<(), dynd::Error>(())
//! ```
//!
//! [`unique`]: crate::ordering::unique

use dynd_array::text::Strings;
use dynd_kernels::{Array, ArrayOps};
use dynd_types::{Dim, Scalar, Type, TypeKind};

use crate::builtin::builtins;
use crate::callable::Callable;
pub use crate::categories::{categories, codes, dictionary_encode};
use crate::error::Error;
use crate::hashed::{scan_text, scan_words, text_ids, word_ids, NA_ID, PART};
use crate::ordering::{is_record, is_text, ranked, take_flat, words_of};
use crate::rows::AxisRows;
use crate::ticks;

/// Each key's group among `k` groups, and each group's first key.
#[derive(Clone, Debug)]
pub(crate) struct Codes {
    /// Key `i`'s group, from 0 to `k - 1`: ascending key order, NA last.
    pub(crate) codes: Vec<u32>,
    /// For each group, the index of its first key.
    pub(crate) first: Vec<usize>,
}

impl Codes {
    /// The number of groups.
    pub(crate) fn k(&self) -> usize {
        self.first.len()
    }

    /// How many keys each group has.
    pub(crate) fn counts(&self) -> Vec<usize> {
        let mut n = vec![0usize; self.k()];
        for &c in &self.codes {
            n[c as usize] += 1;
        }
        n
    }
}

/// The most keys a grouping takes (codes are 32-bit).
const MAX_KEYS: usize = u32::MAX as usize;

fn too_many(op: &'static str, n: usize) -> Error {
    Error::Argument {
        op,
        what: "the number of keys",
        expected: "at most 2^32 - 1",
        found: n.to_string().into(),
    }
}

/// Codes of keys given as order-preserving words (a smaller word is an
/// earlier key, equal words equal keys), NA where `valid` is false.
fn codes_of_words(words: &[u64], valid: Option<&[bool]>) -> Codes {
    let n = words.len();
    let is_valid = |i: usize| valid.is_none_or(|v| v[i]);
    let range = word_range(words, valid);
    let mut codes = vec![0u32; n];
    let mut first = Vec::new();
    if let Some((lo, hi)) = range.filter(|&(lo, hi)| table_fits(hi - lo, n)) {
        // A table indexed by the key: which keys occur, then each one's
        // rank among them.
        let span = (hi - lo) as usize + 1;
        let mut at = vec![u32::MAX; span];
        match valid {
            None => {
                for (i, &w) in words.iter().enumerate() {
                    let slot = &mut at[(w - lo) as usize];
                    if *slot == u32::MAX {
                        *slot = i as u32;
                    }
                }
            }
            Some(v) => {
                for (i, &w) in words.iter().enumerate() {
                    if v[i] {
                        let slot = &mut at[(w - lo) as usize];
                        if *slot == u32::MAX {
                            *slot = i as u32;
                        }
                    }
                }
            }
        }
        // The first occurrences in key order; then each slot its rank.
        for slot in at.iter_mut() {
            if *slot != u32::MAX {
                first.push(*slot as usize);
                *slot = first.len() as u32 - 1;
            }
        }
        for (i, (&w, c)) in words.iter().zip(codes.iter_mut()).enumerate() {
            if is_valid(i) {
                *c = at[(w - lo) as usize];
            }
        }
    } else if range.is_some() {
        let r = word_ids(words, valid, &mut codes).rank(|a, b| a.cmp(b), first_na(valid));
        for c in codes.iter_mut() {
            *c = r.group(*c);
        }
        return Codes {
            codes,
            first: r.first,
        };
    }
    na_group(&mut codes, &mut first, valid);
    Codes { codes, first }
}

/// The index of the first NA key (where `valid` is false).
fn first_na(valid: Option<&[bool]>) -> Option<usize> {
    valid.and_then(|v| v.iter().position(|ok| !ok))
}

/// The NA keys (where `valid` is false) as one group after every other.
fn na_group(codes: &mut [u32], first: &mut Vec<usize>, valid: Option<&[bool]>) {
    let Some(v) = valid else { return };
    let na = first.len() as u32;
    let mut seen = false;
    for (i, (c, &ok)) in codes.iter_mut().zip(v).enumerate() {
        if !ok {
            *c = na;
            if !seen {
                first.push(i);
                seen = true;
            }
        }
    }
}

/// The codes of strings (or bytes), NA where `valid` is false.
fn codes_of_text(op: &'static str, x: &Array, valid: Option<&[bool]>) -> Result<Codes, Error> {
    let s = Strings::of(x).ok_or_else(|| unorderable(op, x))?;
    let mut codes = vec![0u32; s.len()];
    let r = text_ids(&s, valid, &mut codes).rank(|a, b| a.0.cmp(b.0), first_na(valid));
    for c in codes.iter_mut() {
        *c = r.group(*c);
    }
    Ok(Codes {
        codes,
        first: r.first,
    })
}

fn unorderable(op: &'static str, x: &Array) -> Error {
    Error::Unsupported {
        operation: match op {
            "groupby" => "grouping by keys without an order (complex numbers have none)",
            "value_counts" => "counting values without an order (complex numbers have none)",
            _ => "runs of values without an order (complex numbers have none)",
        },
        ty: x.ty().clone(),
    }
}

/// The keys made ready for coding: codes already (records, by one sort),
/// or order-preserving words, or strings; with the valid flags of
/// optional keys.
enum Prepared {
    Codes(Codes),
    Words(Vec<u64>, Option<Vec<bool>>),
    Text(Array, Option<Vec<bool>>),
}

/// [`Prepared`] keys of `keys` (one dimension of any orderable type, NA
/// included).
fn prepare(op: &'static str, keys: &Array) -> Result<Prepared, Error> {
    let n = match keys.ty().kind() {
        TypeKind::Dim(Dim::Fixed(n), _) if keys.ndim() == 1 => *n,
        _ => {
            return Err(Error::NeedsArray {
                op: op.into(),
                expected: "keys of one fixed dimension (N * T)",
                found: keys.ty().clone(),
            })
        }
    };
    if n >= MAX_KEYS {
        return Err(too_many(op, n));
    }
    if keys.is_categorical() {
        // By code: each category's rank among the categories' values
        // (equal categories share one), NA last.
        let categories = keys.categories().unwrap_or_else(|| keys.clone());
        let ranks = key_codes(op, &categories)?.codes;
        let codes = keys.codes()?;
        let (codes, valid) = match codes.option_parts() {
            Some((v, ok)) => (v, Some(ok.to_vec::<bool>()?)),
            None => (codes, None),
        };
        let t = Type::dim(Dim::Fixed(n), Scalar::Int64.into())?;
        let codes = codes.cast(&t, dynd_kernels::ErrorMode::NoCheck)?;
        let words = codes
            .as_slice::<i64>()?
            .iter()
            .enumerate()
            .map(|(i, &c)| match &valid {
                Some(v) if !v[i] => 0,
                _ => u64::from(ranks[c as usize]),
            })
            .collect();
        return Ok(Prepared::Words(words, valid));
    }
    if is_record(keys) {
        // One sort ranks them: equal records share a rank, NA last.
        let r = ranked(keys)?;
        let ranks = r.ranks.to_vec::<i64>()?;
        return Ok(Prepared::Codes(Codes {
            codes: ranks.iter().map(|&q| q as u32).collect(),
            first: r.first.iter().map(|&i| i as usize).collect(),
        }));
    }
    if let Some(t) = ticks::as_ticks(keys)? {
        return prepare(op, &t);
    }
    if let TypeKind::FixedString { .. } = keys.dtype().kind() {
        let t = keys.cast(
            &Type::dim(Dim::Fixed(n), Scalar::String.into())?,
            dynd_kernels::ErrorMode::NoCheck,
        )?;
        return prepare(op, &t);
    }
    let (values, valid) = match keys.option_parts() {
        Some((v, ok)) => (v, Some(ok.to_vec::<bool>()?)),
        None => (keys.clone(), None),
    };
    if is_text(&values) {
        return Ok(Prepared::Text(values, valid));
    }
    let words = match values.dtype().as_scalar() {
        Some(
            sc @ (Scalar::Bool
            | Scalar::Int8
            | Scalar::Int16
            | Scalar::Int32
            | Scalar::Int64
            | Scalar::UInt8
            | Scalar::UInt16
            | Scalar::UInt32
            | Scalar::UInt64
            | Scalar::Float16
            | Scalar::Float32
            | Scalar::Float64),
        ) => words_of(&values, sc)?,
        _ => return Err(unorderable(op, keys)),
    };
    Ok(Prepared::Words(words, valid))
}

/// The codes of the keys `keys` (one dimension of any orderable type, NA
/// included): see the [module docs](self).
pub(crate) fn key_codes(op: &'static str, keys: &Array) -> Result<Codes, Error> {
    match prepare(op, keys)? {
        Prepared::Codes(c) => Ok(c),
        Prepared::Words(w, valid) => Ok(codes_of_words(&w, valid.as_deref())),
        Prepared::Text(t, valid) => codes_of_text(op, &t, valid.as_deref()),
    }
}

/// The keys' first dimension, checked against the values'.
fn check_lengths(op: &'static str, values: &Array, keys: &Array) -> Result<usize, Error> {
    let n = match keys.ty().kind() {
        TypeKind::Dim(Dim::Fixed(n), _) => *n,
        _ => 0,
    };
    let m = match values.ty().kind() {
        TypeKind::Dim(Dim::Fixed(m), _) => *m,
        _ => {
            return Err(Error::NeedsArray {
                op: op.into(),
                expected: "values with a fixed first dimension (N * T, N * M * T)",
                found: values.ty().clone(),
            })
        }
    };
    if m != n {
        return Err(Error::Argument {
            op,
            what: "the keys",
            expected: "one key per value (of the values' first dimension)",
            found: format!("{n} keys for {m} values").into(),
        });
    }
    Ok(n)
}

/// The values of each distinct key, one row per key in ascending key
/// order (the order [`groupby_keys`] gives the keys in; NA keys one group,
/// last), each row holding its values in their original order: values
/// `N * T` give `K * var * T`, values `N * M * T` rows of `M * T`
/// (`K * var * M * T`). The result is the values in one new order and
/// the rows' offsets — a view of the values when they already lie
/// grouped.
///
/// Keys may be of any orderable type: numbers, `bool`, strings, dates and
/// times, records (several key columns, compared field by field),
/// optional ones.
///
/// ```
/// let v = dynd::nd::array![1.5, 2.0, 4.0, 0.5];
/// let k = dynd::nd::array![2, 1, 2, 2];
/// let g = dynd::func::groupby(&v, &k)?;
/// assert_eq!(g.to_string(), "[[2], [1.5, 4, 0.5]]");
/// use dynd::func::ArrayExt;
/// assert_eq!(g.sum_axis(1)?.to_string(), "[2, 6]");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// Keys that are not one fixed dimension, or not one per value (the
/// message gives both lengths); keys without an order (complex numbers).
pub fn groupby(values: &Array, keys: &Array) -> Result<Array, Error> {
    let op = "groupby";
    let n = check_lengths(op, values, keys)?;
    let counted = counted_in_guessed_range(keys).or_else(|| {
        let (ks, lo, span) = small_range(keys)?;
        // The keys' own range: no key falls outside it.
        count_slots(ks, lo, span + 1)
    });
    if let Some((ks, lo, count, sorted)) = counted {
        // `int64` keys in a small range: a slot per key, counted in one
        // pass (which sees whether they are already in order), no codes.
        let span = count.len() - 1;
        let slot = |i: usize| ks[i].wrapping_sub(lo) as usize;
        let mut offsets = vec![0i64];
        let mut next = vec![0i64; span + 1];
        for (s, &m) in count.iter().enumerate() {
            if m > 0 {
                next[s] = offsets[offsets.len() - 1];
                offsets.push(next[s] + m);
            }
        }
        if sorted {
            return Array::from_offsets(values.clone(), &offsets);
        }
        return scatter(values, n, &offsets, next, &slot);
    }
    let c = key_codes(op, keys)?;
    let counts = c.counts();
    let mut offsets = Vec::with_capacity(c.k() + 1);
    offsets.push(0i64);
    for &m in &counts {
        offsets.push(offsets[offsets.len() - 1] + m as i64);
    }
    // Already grouped: the codes never go down.
    if c.codes.windows(2).all(|w| w[0] <= w[1]) {
        return Array::from_offsets(values.clone(), &offsets);
    }
    let next: Vec<i64> = offsets[..c.k()].to_vec();
    scatter(values, n, &offsets, next, &|i| c.codes[i] as usize)
}

/// The keys (`ks`), the key of slot 0 (`lo`), each slot's count and
/// whether the slots never go down: `None` as soon as a key falls outside
/// the `slots` from `lo`.
type Counted<'a> = (&'a [i64], i64, Vec<i64>, bool);

/// The keys counted by slot from `lo`, in one pass; `None` at the first
/// key outside the slots.
fn count_slots(ks: &[i64], lo: i64, slots: usize) -> Option<Counted<'_>> {
    let mut count = vec![0i64; slots];
    let (mut sorted, mut prev) = (true, 0usize);
    for &k in ks {
        let s = k.wrapping_sub(lo) as u64;
        if s >= slots as u64 {
            return None;
        }
        let s = s as usize;
        count[s] += 1;
        sorted &= s >= prev;
        prev = s;
    }
    Some((ks, lo, count, sorted))
}

/// [`count_slots`] of `int64` keys over a range guessed from the first
/// 4096 keys (widened by half its width each way): the common case of
/// keys in a small range counted without a pass to find the range first.
/// `None` when the guess is wide or a key falls outside it (the caller
/// then reads the range).
fn counted_in_guessed_range(keys: &Array) -> Option<Counted<'_>> {
    if keys.dtype().as_scalar() != Some(Scalar::Int64) || keys.ndim() != 1 {
        return None;
    }
    let ks = keys.as_slice::<i64>().ok()?;
    let (lo, hi) = min_max(&ks[..ks.len().min(4096)])?;
    let width = hi.abs_diff(lo).checked_add(1)?;
    if width > 1 << 14 {
        return None;
    }
    let from = lo.checked_sub((width / 2) as i64)?;
    count_slots(ks, from, 2 * width as usize)
}

/// `int64` keys (one dimension, side by side, no NA) whose range fits a
/// table of a slot per key: the keys, the least, and the span.
fn small_range(keys: &Array) -> Option<(&[i64], i64, usize)> {
    if keys.dtype().as_scalar() != Some(Scalar::Int64) || keys.ndim() != 1 {
        return None;
    }
    let ks = keys.as_slice::<i64>().ok()?;
    let (lo, hi) = min_max(ks)?;
    let span = hi.abs_diff(lo);
    table_fits(span, ks.len()).then_some((ks, lo, span as usize))
}

/// The values moved to their groups (a stable counting sort): value `i`
/// to the next place of slot `slot(i)`, which starts at `next[slot]`;
/// the groups' `offsets` then make the rows. Generic over `slot` (two
/// uses: a key's offset from the least, a code): a call per value through
/// a `dyn` would cost more than the move.
fn scatter<S: Fn(usize) -> usize>(
    values: &Array,
    n: usize,
    offsets: &[i64],
    mut next: Vec<i64>,
    slot: &S,
) -> Result<Array, Error> {
    // Numbers side by side: each moved straight to its place.
    macro_rules! typed {
        ($($s:ident => $t:ty),*) => {
            match values.dtype().as_scalar() {
                $(Some(Scalar::$s) if values.ndim() == 1 => {
                    if let Ok(xs) = values.as_slice::<$t>() {
                        // Every place written: the offsets count each
                        // slot's values.
                        let out = Array::from_fill::<$t>(n, |out| {
                            for (i, &x) in xs.iter().enumerate() {
                                let at = &mut next[slot(i)];
                                out[*at as usize] = x;
                                *at += 1;
                            }
                        })?;
                        return Array::from_offsets(out, offsets);
                    }
                })*
                _ => {}
            }
        };
    }
    typed!(Float64 => f64, Float32 => f32, Int64 => i64, Int32 => i32, UInt64 => u64, UInt32 => u32);
    // Any other values: a stable counting sort of the positions.
    let mut perm = vec![0i64; n];
    for i in 0..n {
        let at = &mut next[slot(i)];
        perm[*at as usize] = i as i64;
        *at += 1;
    }
    let taken = take_flat(values, perm)?;
    Array::from_offsets(taken, offsets)
}

/// Each group's key, in the order [`groupby`] gives the groups: the
/// distinct keys ascending, NA last (`K * T`, as the keys' type).
///
/// ```
/// let k = dynd::nd::Array::from_json("[3, null, 1, 3]", Some(&"4 * ?int32".parse()?))?;
/// assert_eq!(dynd::func::groupby_keys(&k)?.to_string(), "[1, 3, null]");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
///
/// As [`groupby`]'s keys.
pub fn groupby_keys(keys: &Array) -> Result<Array, Error> {
    let c = key_codes("groupby", keys)?;
    take_flat(keys, c.first.iter().map(|&i| i as i64).collect())
}

/// Each distinct value and how often it occurs, as records `K * {value:
/// T, count: int64}`, the most frequent first (equal counts in ascending
/// value order, NA after the values): pandas' and Polars' `value_counts`.
/// NA is counted as one value.
///
/// ```
/// let x = dynd::nd::array!["b", "a", "b", "c", "a", "b"];
/// let v = dynd::func::value_counts(&x)?;
/// assert_eq!(v.field("value")?.to_string(), r#"["b", "a", "c"]"#);
/// assert_eq!(v.field("count")?.to_string(), "[3, 2, 1]");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// Not one fixed dimension (a ragged or n-d `x` is flattened first with
/// `flatten(x, all=true)`); values without an order.
pub fn value_counts(x: &Array) -> Result<Array, Error> {
    if let Some((ks, lo, span)) = small_range(x) {
        // `int64` values in a small range: counted by slot, no codes.
        let mut count = vec![0u64; span + 1];
        for &k in ks {
            count[k.wrapping_sub(lo) as usize] += 1;
        }
        let mut slots: Vec<usize> = (0..=span).filter(|&s| count[s] > 0).collect();
        slots.sort_by(|&a, &b| count[b].cmp(&count[a]));
        let values: Vec<i64> = slots.iter().map(|&s| lo.wrapping_add(s as i64)).collect();
        let counts: Vec<i64> = slots.iter().map(|&s| count[s] as i64).collect();
        return Array::from_columns([
            ("value", Array::from_vec(values)),
            ("count", Array::from_vec(counts)),
        ]);
    }
    let c = key_codes("value_counts", x)?;
    let counts = c.counts();
    // Groups by count descending; a stable sort keeps the key order of
    // equal counts.
    let mut order: Vec<usize> = (0..c.k()).collect();
    order.sort_by(|&a, &b| counts[b].cmp(&counts[a]));
    let values = take_flat(x, order.iter().map(|&g| c.first[g] as i64).collect())?;
    let counts = Array::from_vec(order.iter().map(|&g| counts[g] as i64).collect::<Vec<_>>());
    Array::from_columns([("value", values), ("count", counts)])
}

/// The lengths of the runs of equal consecutive values (Awkward's
/// `run_lengths`), over the whole of a 1-d `x`, or within each row of the
/// last dimension (`N * var * T` gives `N * var * int64`; a run never
/// crosses a row). Values are equal as [`unique`](crate::ordering::unique)
/// has them: NaNs equal, `-0.0` equal to `0.0`, NA equal to NA.
///
/// ```
/// let x = dynd::nd::Array::from_json("[[1, 1, 2], [], [2, 2]]", None)?;
/// assert_eq!(dynd::func::run_lengths(&x)?.to_string(), "[[2, 1], [], [2]]");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// A scalar; values without an order.
pub fn run_lengths(x: &Array) -> Result<Array, Error> {
    let op = "run_lengths";
    crate::rows::at_least_1d(op, x)?;
    let rows = AxisRows::of(x, op)?;
    let flat = rows.values.compact()?;
    let c = key_codes(op, &flat)?;
    let mut out: Vec<i64> = Vec::new();
    let mut offsets = Vec::with_capacity(rows.offsets.len());
    offsets.push(0i64);
    for r in rows.offsets.windows(2) {
        let (start, end) = (r[0] as usize, r[1] as usize);
        let mut i = start;
        while i < end {
            let code = c.codes[i];
            let run = c.codes[i..end].iter().take_while(|&&d| d == code).count();
            out.push(run as i64);
            i += run;
        }
        offsets.push(out.len() as i64);
    }
    // Runs of a fixed row are ragged whatever the row was.
    let inner = Array::from_offsets(Array::from_vec(out), &offsets)?;
    rows.wrap(inner)
}

/// The first (`last = false`) or last value of each row of the last
/// dimension; NA for an empty row (`?T`, unless every row is a fixed row
/// of at least one value).
fn end_of_rows(op: &'static str, x: &Array, last: bool) -> Result<Array, Error> {
    crate::rows::at_least_1d(op, x)?;
    let rows = AxisRows::of(x, op)?;
    let o = &rows.offsets;
    let mut ids = Vec::with_capacity(rows.count());
    let mut valid = Vec::with_capacity(rows.count());
    for r in o.windows(2) {
        let empty = r[1] == r[0];
        ids.push(match (empty, last) {
            (true, _) => 0,
            (false, false) => r[0],
            (false, true) => r[1] - 1,
        });
        valid.push(!empty);
    }
    let all = matches!(rows.fixed, Some(m) if m > 0);
    if rows.values.ty().fixed_shape().is_some_and(|s| s[0] == 0) {
        // No values at all: every row NA (or no rows).
        let t = Type::option(rows.values.dtype().clone())?;
        let na = Array::from_json(
            &format!("[{}]", vec!["null"; rows.count()].join(", ")),
            Some(&Type::dim(Dim::Fixed(rows.count()), t)?),
        )?;
        return rows.wrap(na);
    }
    let taken = take_flat(&rows.values, ids)?;
    let inner = if all {
        taken
    } else {
        Array::optional(&taken, &Array::from_vec(valid))?
    };
    rows.wrap(inner)
}

/// The first value of each row of the last dimension (Polars'
/// `list.first`): `N * var * T` gives `N * ?T`, NA for an empty row.
///
/// ```
/// let x = dynd::nd::Array::from_json("[[4, 5], [], [6]]", None)?;
/// assert_eq!(dynd::func::first(&x)?.to_string(), "[4, null, 6]");
/// assert_eq!(dynd::func::last(&x)?.to_string(), "[5, null, 6]");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// A scalar.
pub fn first(x: &Array) -> Result<Array, Error> {
    end_of_rows("first", x, false)
}

/// The last value of each row of the last dimension: as [`first`].
///
/// # Errors
///
/// A scalar.
pub fn last(x: &Array) -> Result<Array, Error> {
    end_of_rows("last", x, true)
}

/// A function callable of one array (`(Any) -> Any`) running `f`.
fn of_one(name: &str, f: fn(&Array) -> Result<Array, Error>) -> Result<Callable, Error> {
    Callable::function(
        name,
        dynd_macros::checked_signature!("(Any) -> Any"),
        vec![],
        move |args, _| f(args[0]),
    )
}

builtins! {
    $ TABLE, __groups_builtins;

    /// `(Any, Any) -> Any`: the values of each distinct key, one ragged
    /// row per key in ascending key order (NA keys last).
    GROUPBY groupby "groupby" rs None => {
        Callable::function("groupby", dynd_macros::checked_signature!("(Any, Any) -> Any"), vec![],
            |args, _| groupby(args[0], args[1])).map(Callable::taking_categories)
    };

    /// `(Any) -> Any`: the values dictionary-encoded (`categorical[T]`,
    /// categories in order of first appearance).
    DICTIONARY_ENCODE dictionary_encode "dictionary_encode" rs None => {
        of_one("dictionary_encode", dictionary_encode).map(Callable::taking_categories)
    };

    /// `(Any) -> Any`: the codes of a categorical array (a view).
    CODES codes "codes" rs None => {
        of_one("codes", codes).map(Callable::taking_categories)
    };

    /// `(Any) -> Any`: the categories of a categorical array.
    CATEGORIES categories "categories" rs None => {
        of_one("categories", categories).map(Callable::taking_categories)
    };

    /// `(Any) -> Any`: each group's key, as `groupby` orders the groups.
    GROUPBY_KEYS groupby_keys "groupby_keys" rs None => {
        of_one("groupby_keys", groupby_keys).map(Callable::taking_categories)
    };

    /// `(Any) -> Any`: each distinct value with its count, most frequent
    /// first.
    VALUE_COUNTS value_counts "value_counts" rs None => {
        of_one("value_counts", value_counts)
    };

    /// `(Any) -> Any`: the lengths of the runs of equal values (per row).
    RUN_LENGTHS run_lengths "run_lengths" rs None => {
        of_one("run_lengths", run_lengths)
    };

    /// `(Any) -> Any`: the first value of each row, NA for an empty one.
    FIRST first "first" rs None => {
        of_one("first", first)
    };

    /// `(Any) -> Any`: the last value of each row, NA for an empty one.
    LAST last "last" rs None => {
        of_one("last", last)
    };
}

/// A reduction [`aggregate`] computes per group in one pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Agg {
    Sum,
    Mean,
    Count,
    Min,
    Max,
}

impl Agg {
    fn named(name: &str) -> Option<Agg> {
        Some(match name {
            "sum" => Agg::Sum,
            "mean" => Agg::Mean,
            "count" => Agg::Count,
            "min" => Agg::Min,
            "max" => Agg::Max,
            _ => return None,
        })
    }
}

/// A number the one-pass aggregation adds up and compares.
trait AggValue: dynd_kernels::Element + Copy + PartialOrd + Send + Sync {
    const ZERO: Self;
    /// The least value (every other is greater or equal).
    const LOWEST: Self;
    /// The greatest value.
    const HIGHEST: Self;
    fn add(self, o: Self) -> Self;
    fn to_f64(self) -> f64;
    fn nan(self) -> bool;
}

impl AggValue for f64 {
    const ZERO: f64 = 0.0;
    const LOWEST: f64 = f64::NEG_INFINITY;
    const HIGHEST: f64 = f64::INFINITY;
    #[inline(always)]
    fn add(self, o: f64) -> f64 {
        self + o
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self
    }
    #[inline(always)]
    fn nan(self) -> bool {
        self.is_nan()
    }
}

impl AggValue for i64 {
    const ZERO: i64 = 0;
    const LOWEST: i64 = i64::MIN;
    const HIGHEST: i64 = i64::MAX;
    #[inline(always)]
    fn add(self, o: i64) -> i64 {
        self.wrapping_add(o)
    }
    #[inline(always)]
    fn to_f64(self) -> f64 {
        self as f64
    }
    #[inline(always)]
    fn nan(self) -> bool {
        false
    }
}

/// Per-slot accumulators of one reduction: the values (sums, least or
/// greatest so far) where the reduction has them, the counts where it
/// needs them (`count`, `mean`), else one byte a slot saying it was met —
/// the fewest bytes a value touches, for tables that outgrow the cache.
struct Acc<T> {
    agg: Agg,
    /// The number of slots.
    slots: usize,
    vals: Vec<T>,
    counts: Vec<u32>,
    /// A bit per slot: whether a value reached it (sum, least, greatest).
    seen: Vec<u64>,
}

impl<T: AggValue> Acc<T> {
    fn new(agg: Agg, slots: usize) -> Acc<T> {
        let mut a = Acc {
            agg,
            slots: 0,
            vals: Vec::new(),
            counts: Vec::new(),
            seen: Vec::new(),
        };
        a.grow_exact(slots);
        a
    }

    /// The value a slot starts from: 0 for sums, the far end for the
    /// least or greatest (which every value but NaN passes).
    fn start(agg: Agg) -> T {
        match agg {
            Agg::Min => T::HIGHEST,
            Agg::Max => T::LOWEST,
            _ => T::ZERO,
        }
    }

    fn grow_exact(&mut self, len: usize) {
        let agg = self.agg;
        self.slots = len;
        if agg != Agg::Count {
            self.vals.resize(len, Self::start(agg));
        }
        match agg {
            Agg::Count | Agg::Mean => self.counts.resize(len, 0),
            _ => self.seen.resize(len.div_ceil(64), 0),
        }
    }

    /// Value `x` folded into slot `s` (the reduction `A`).
    #[inline(always)]
    fn step<const A: u8>(&mut self, s: usize, x: T) {
        match A {
            COUNT => self.counts[s] += 1,
            MEAN => {
                self.vals[s] = self.vals[s].add(x);
                self.counts[s] += 1;
            }
            SUM => {
                self.vals[s] = self.vals[s].add(x);
                self.mark(s);
            }
            _ => {
                if takes(A == MAX, self.vals[s], x) {
                    self.vals[s] = x;
                }
                self.mark(s);
            }
        }
    }

    /// Every `(slot, value)` pair folded in, in order.
    #[inline(always)]
    fn fold(&mut self, slots: impl Iterator<Item = usize>, xs: &[T]) {
        // One loop per reduction, the reduction a constant in it.
        macro_rules! each {
            ($($a:ident => $c:ident),*) => {
                match self.agg {
                    $(Agg::$a => {
                        for (s, &x) in slots.zip(xs) {
                            self.step::<$c>(s, x);
                        }
                    })*
                }
            };
        }
        each!(Sum => SUM, Mean => MEAN, Count => COUNT, Min => MIN, Max => MAX)
    }

    /// Value `x` folded into slot `s` (made if it is new).
    #[inline(always)]
    fn push(&mut self, s: usize, x: T) {
        if s >= self.len() {
            self.grow_exact((s + 1).max(self.len() * 2));
        }
        match self.agg {
            Agg::Sum => self.step::<SUM>(s, x),
            Agg::Mean => self.step::<MEAN>(s, x),
            Agg::Count => self.step::<COUNT>(s, x),
            Agg::Min => self.step::<MIN>(s, x),
            Agg::Max => self.step::<MAX>(s, x),
        }
    }

    fn len(&self) -> usize {
        self.slots
    }

    /// Whether every slot of a sum, least or greatest has a value (its
    /// result is then the slots' values as they are).
    fn all_marked(&self) -> bool {
        let full = self.slots / 64;
        matches!(self.agg, Agg::Sum | Agg::Min | Agg::Max)
            && self.seen[..full].iter().all(|&w| w == u64::MAX)
            && (full..self.slots).all(|s| self.filled(s))
    }

    /// Slot `s` has a value.
    #[inline(always)]
    fn mark(&mut self, s: usize) {
        self.seen[s >> 6] |= 1 << (s & 63);
    }

    /// Whether slot `s` has values.
    fn filled(&self, s: usize) -> bool {
        match self.agg {
            Agg::Count | Agg::Mean => self.counts[s] > 0,
            _ => (self.seen[s >> 6] >> (s & 63)) & 1 != 0,
        }
    }

    /// Slot `from` of `o` put in slot `to` of these (empty before).
    fn take_slot(&mut self, to: usize, o: &Acc<T>, from: usize) {
        if self.agg != Agg::Count {
            self.vals[to] = o.vals[from];
        }
        match self.agg {
            Agg::Count | Agg::Mean => self.counts[to] = o.counts[from],
            _ if o.filled(from) => self.mark(to),
            _ => {}
        }
    }

    /// `o`'s values folded into these (the same slots, `o` folded from
    /// values after these).
    fn merge(&mut self, o: &Acc<T>) {
        for s in 0..self.len() {
            if !o.filled(s) {
                continue;
            }
            match self.agg {
                Agg::Count => self.counts[s] += o.counts[s],
                Agg::Mean => {
                    self.vals[s] = self.vals[s].add(o.vals[s]);
                    self.counts[s] += o.counts[s];
                }
                Agg::Sum => {
                    self.vals[s] = self.vals[s].add(o.vals[s]);
                    self.mark(s);
                }
                Agg::Min | Agg::Max => {
                    if takes(self.agg == Agg::Max, self.vals[s], o.vals[s]) {
                        self.vals[s] = o.vals[s];
                    }
                    self.mark(s);
                }
            }
        }
    }

    /// Every value folded into `slots` slots, `slot(i)` value `i`'s: in
    /// parts on rayon's threads when there are many values for few
    /// slots (each part its own accumulators, merged in order).
    fn fold_all<S: Fn(usize) -> usize + Sync>(
        agg: Agg,
        slots: usize,
        xs: &[T],
        slot: &S,
    ) -> Acc<T> {
        let parts = dynd_kernels::par::threads()
            .min(xs.len() / (1 << 18))
            .max(1);
        if parts == 1 || slots > xs.len() / 8 {
            let mut acc = Acc::new(agg, slots);
            acc.fold((0..xs.len()).map(slot), xs);
            return acc;
        }
        let per = xs.len().div_ceil(parts);
        let accs = dynd_kernels::par::map(parts, &|p| {
            let range = p * per..((p + 1) * per).min(xs.len());
            let mut acc = Acc::new(agg, slots);
            acc.fold(range.clone().map(slot), &xs[range]);
            acc
        });
        let mut accs = accs.into_iter();
        let mut acc = accs.next().unwrap_or_else(|| Acc::new(agg, slots));
        for o in accs {
            acc.merge(&o);
        }
        acc
    }

    /// The results of the slots `keep`, in that order.
    fn finish(&self, keep: &[usize]) -> Array {
        match self.agg {
            Agg::Count => Array::from_vec(
                keep.iter()
                    .map(|&s| i64::from(self.counts[s]))
                    .collect::<Vec<_>>(),
            ),
            Agg::Mean => Array::from_vec(
                keep.iter()
                    .map(|&s| self.vals[s].to_f64() / f64::from(self.counts[s]))
                    .collect::<Vec<_>>(),
            ),
            _ => Array::from_vec(keep.iter().map(|&s| self.vals[s]).collect::<Vec<_>>()),
        }
    }
}

/// Whether `x` takes the place of `v` as the greatest (`max`) or least
/// value so far: a better number, or a NaN (which then stays).
#[inline(always)]
fn takes<T: AggValue>(max: bool, v: T, x: T) -> bool {
    !v.nan() && (x.nan() || if max { x > v } else { x < v })
}

/// The reductions as constants of [`Acc::step`].
const SUM: u8 = 0;
const MEAN: u8 = 1;
const COUNT: u8 = 2;
const MIN: u8 = 3;
const MAX: u8 = 4;

/// `reduction` over the rows of `groupby(values, keys)` (axis 1), in one
/// pass over the values without making the groups: the sum, mean, count,
/// least or greatest value of each group, for values `N * float64` or
/// `N * int64` (or `int32`, summed as `int64`); `None` for any other
/// reduction or type (the caller makes the groups and reduces them). The
/// result is of the type the reduction of the groups has.
///
/// Integer keys in a small range are their own slots (no codes: the pass
/// adds at `key - least`); other keys are coded first.
pub(crate) fn aggregate(
    values: &Array,
    keys: &Array,
    reduction: &Callable,
) -> Result<Option<Array>, Error> {
    let Some(agg) = Agg::named(reduction.name()) else {
        return Ok(None);
    };
    let n = check_lengths("groupby", values, keys)?;
    if values.ndim() != 1 {
        return Ok(None);
    }
    let r = match values.dtype().as_scalar() {
        Some(Scalar::Float64) if agg == Agg::Sum => match small_range(keys) {
            // The keys' range read once (a pass over them all).
            Some((ks, lo, span)) => {
                let values = values.compact()?;
                Some(sum_in_range(values.as_slice::<f64>()?, ks, lo, span + 1))
            }
            None => aggregate_typed::<f64>(&values.compact()?, keys, agg, n)?,
        },
        Some(Scalar::Float64) => aggregate_typed::<f64>(&values.compact()?, keys, agg, n)?,
        Some(Scalar::Int64) => aggregate_typed::<i64>(&values.compact()?, keys, agg, n)?,
        _ => return Ok(None),
    };
    // The type the reduction of the groups has (`?T` where an empty row
    // would be NA): from the reduction of one group of one value.
    let r = match r {
        Some(r) => r,
        None => return Ok(None),
    };
    let one = groupby(
        &values.index(&[dynd_kernels::Index::slice(Some(0), Some(1), 1)])?,
        &Array::from_vec(vec![0i64]),
    )?;
    let want = reduction
        .reduce_with(&one, &crate::options::AxisOptions::new().axis(1))
        .ok()
        .map(|t| t.dtype().clone());
    match want {
        Some(t) if &t == r.dtype() => Ok(Some(r)),
        Some(t) => match t.kind() {
            TypeKind::Option(inner) if inner == r.dtype() => {
                let valid = Array::from_vec(vec![true; r.ty().fixed_shape().map_or(0, |s| s[0])]);
                Ok(Some(Array::optional(&r, &valid)?))
            }
            _ => Ok(Some(r.cast(
                &Type::dim(Dim::Fixed(r.ty().fixed_shape().map_or(0, |s| s[0])), t)?,
                dynd_kernels::ErrorMode::NoCheck,
            )?)),
        },
        None => Ok(Some(r)),
    }
}

fn aggregate_typed<T: AggValue>(
    values: &Array,
    keys: &Array,
    agg: Agg,
    n: usize,
) -> Result<Option<Array>, Error> {
    let xs = values.as_slice::<T>()?;
    // Integer keys in a small range: a slot per key.
    if let Some((ks, lo, span)) = small_range(keys) {
        let acc = Acc::<T>::fold_all(agg, span + 1, xs, &|i| ks[i].wrapping_sub(lo) as usize);
        if acc.all_marked() {
            // Every key in the range occurs: the slots are the result.
            return Ok(Some(Array::from_vec(acc.vals)));
        }
        let keep: Vec<usize> = (0..acc.len()).filter(|&s| acc.filled(s)).collect();
        return Ok(Some(acc.finish(&keep)));
    }
    let coded = |c: Codes| {
        let codes = &c.codes;
        let acc = Acc::<T>::fold_all(agg, c.k(), xs, &|i| codes[i] as usize);
        let keep: Vec<usize> = (0..c.k()).collect();
        acc.finish(&keep)
    };
    let prepared = prepare("groupby", keys)?;
    if let Prepared::Codes(c) = prepared {
        return Ok(Some(coded(c)));
    }
    if let Prepared::Words(w, valid) = &prepared {
        let v = valid.as_deref();
        if word_range(w, v).is_none_or(|(lo, hi)| table_fits(hi - lo, w.len())) {
            return Ok(Some(coded(codes_of_words(w, v))));
        }
    }
    if dynd_kernels::par::threads() > 1 && n >= 2 * PART {
        // On several threads: the ids first (each part of the keys on its
        // own thread, the tables then merged), then the values folded by
        // them in parts.
        let text = match &prepared {
            Prepared::Text(t, _) => {
                Some(Strings::of(t).ok_or_else(|| unorderable("groupby", keys))?)
            }
            _ => None,
        };
        // The ids in a block of the library's (its pages mapped already
        // where a result of the size was freed), every one written by the
        // scan.
        let mut kr = None;
        let ids = Array::from_fill::<u32>(n, |ids| {
            kr = match (&prepared, &text) {
                (Prepared::Words(w, valid), _) => {
                    let v = valid.as_deref();
                    let t = word_ids(w, v, ids);
                    Some((t.len(), t.rank(|a, b| a.cmp(b), first_na(v))))
                }
                (Prepared::Text(_, valid), Some(s)) => {
                    let v = valid.as_deref();
                    let t = text_ids(s, v, ids);
                    Some((t.len(), t.rank(|a, b| a.0.cmp(b.0), first_na(v))))
                }
                _ => None,
            };
        })?;
        let Some((k, r)) = kr else {
            return Ok(None);
        };
        let ids = ids.as_slice::<u32>()?;
        let acc = Acc::<T>::fold_all(agg, k + 1, xs, &|i| match ids[i] {
            NA_ID => k,
            id => id as usize,
        });
        let mut keep = vec![0usize; k];
        for (id, &rank) in r.rank_of.iter().enumerate() {
            keep[rank as usize] = id;
        }
        if acc.filled(k) {
            keep.push(k);
        }
        return Ok(Some(acc.finish(&keep)));
    }
    // Hashed keys: folded by their ids as they are met, in one pass, no
    // codes kept; the groups put in key order at the end.
    let mut acc = Acc::<T>::new(agg, 0);
    let mut na = Acc::<T>::new(agg, 1);
    let mut fold = |i: usize, id: u32| {
        if id == NA_ID {
            na.push(0, xs[i]);
        } else {
            acc.push(id as usize, xs[i]);
        }
    };
    let r = match prepared {
        Prepared::Codes(c) => return Ok(Some(coded(c))),
        Prepared::Words(w, valid) => scan_words(&w, valid.as_deref(), &mut fold),
        Prepared::Text(t, valid) => {
            let s = Strings::of(&t).ok_or_else(|| unorderable("groupby", keys))?;
            scan_text(&s, valid.as_deref(), &mut fold)
        }
    };
    let ids = r.rank_of.len();
    if acc.len() < ids + 1 {
        acc.grow_exact(ids + 1);
    }
    let mut keep = vec![0usize; ids];
    for (id, &rank) in r.rank_of.iter().enumerate() {
        keep[rank as usize] = id;
    }
    if na.filled(0) {
        acc.take_slot(ids, &na, 0);
        keep.push(ids);
    }
    Ok(Some(acc.finish(&keep)))
}

/// The sum of the `float64` values of each key in a small range (slot
/// `k - lo` of `slots`), the empty slots left out: each slot starts at
/// `-0.0`, which every sum of values moves off (`-0.0 + x` is `x`, `+0.0`
/// included) but a sum of `-0.0`s alone; so no slot needs a flag, and only
/// when some slot ends at `-0.0` are the keys read again to see which
/// occur (such a sum is then `0.0`, as from `0.0`). In parts on rayon's threads, each with its own slots, added up
/// in order.
fn sum_in_range(xs: &[f64], ks: &[i64], lo: i64, slots: usize) -> Array {
    const EMPTY: u64 = 0x8000_0000_0000_0000;
    let fold = |range: std::ops::Range<usize>| {
        let mut v = vec![-0.0f64; slots];
        for (&x, &k) in xs[range.clone()].iter().zip(&ks[range]) {
            v[k.wrapping_sub(lo) as usize] += x;
        }
        v
    };
    let n = xs.len();
    let parts = dynd_kernels::par::threads().min(n / (1 << 18)).max(1);
    let v = if parts == 1 || slots > n / 8 {
        fold(0..n)
    } else {
        let per = n.div_ceil(parts);
        let mut vs =
            dynd_kernels::par::map(parts, &|p| fold(p * per..((p + 1) * per).min(n))).into_iter();
        let mut v = vs.next().unwrap_or_default();
        for o in vs {
            for (a, b) in v.iter_mut().zip(&o) {
                *a += b;
            }
        }
        v
    };
    if !v.iter().any(|x| x.to_bits() == EMPTY) {
        return Array::from_vec(v);
    }
    let mut present = vec![false; slots];
    for &k in ks {
        present[k.wrapping_sub(lo) as usize] = true;
    }
    Array::from_vec(
        v.iter()
            .zip(&present)
            // A sum of `-0.0`s alone is `0.0`, as the sum from `0.0` has it.
            .filter_map(|(&x, &p)| p.then_some(if x.to_bits() == EMPTY { 0.0 } else { x }))
            .collect::<Vec<_>>(),
    )
}

/// The least and greatest of `ks` in one pass (eight lanes at a time);
/// `None` for none.
fn min_max(ks: &[i64]) -> Option<(i64, i64)> {
    let (mut lo, mut hi) = ([i64::MAX; 8], [i64::MIN; 8]);
    let chunks = ks.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for j in 0..8 {
            lo[j] = lo[j].min(c[j]);
            hi[j] = hi[j].max(c[j]);
        }
    }
    for &k in rest {
        lo[0] = lo[0].min(k);
        hi[0] = hi[0].max(k);
    }
    (!ks.is_empty()).then(|| {
        (
            lo.into_iter().min().unwrap_or(0),
            hi.into_iter().max().unwrap_or(0),
        )
    })
}

/// The least and greatest valid word; `None` when none is valid.
fn word_range(words: &[u64], valid: Option<&[bool]>) -> Option<(u64, u64)> {
    let (mut lo, mut hi) = (u64::MAX, 0u64);
    let mut any = false;
    for (i, &w) in words.iter().enumerate() {
        if valid.is_none_or(|v| v[i]) {
            lo = lo.min(w);
            hi = hi.max(w);
            any = true;
        }
    }
    any.then_some((lo, hi))
}

/// Whether keys `span` apart (greatest minus least) among `n` take a table
/// indexed by the key: a range at most twice the keys (or 65,536).
fn table_fits(span: u64, n: usize) -> bool {
    span <= (2 * n as u64).max(1 << 16)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-pass path is taken (not the fallback) for the types and
    /// reductions it names, and matches the reduction of the groups.
    #[test]
    fn aggregate_takes_the_one_pass_path() {
        let axis1 = crate::options::AxisOptions::new().axis(1);
        let v = Array::from_vec(vec![1.5, -2.0, 4.0, 0.25]);
        for keys in [
            Array::from_vec(vec![3i64, 1, 3, 1]),
            Array::from_vec(vec![i64::MAX, 1, i64::MAX, 1]),
        ] {
            for r in [
                &crate::reductions::SUM,
                &crate::reductions::MAX,
                &crate::reductions::MEAN,
            ] {
                let fused = aggregate(&v, &keys, r.callable())
                    .unwrap()
                    .expect("one pass");
                let plain = r
                    .callable()
                    .reduce_with(&groupby(&v, &keys).unwrap(), &axis1)
                    .unwrap();
                assert_eq!(fused.to_string(), plain.to_string());
            }
        }
        let strings = Array::from_vec(vec![1u8, 2, 3, 4]);
        assert!(aggregate(
            &strings,
            &Array::from_vec(vec![1i64, 1, 2, 2]),
            crate::reductions::SUM.callable()
        )
        .unwrap()
        .is_none());
    }
}
