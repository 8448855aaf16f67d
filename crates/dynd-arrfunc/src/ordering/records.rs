//! The order of records and tuples: lexicographic by field order, each
//! field in its own type's order (NumPy's structured arrays): numbers
//! ascending with NaN after them and `-0.0` equal to `0.0`, `false`
//! before `true`, strings by their UTF-8 bytes, NA after every value
//! (an NA record after every record). Nested records order by their
//! fields in turn, a fixed-size field (`3 * float64`) by its elements.
//!
//! One sort of every element ranks them ([`Ranked`]): equal records share
//! a rank, and a smaller rank is an earlier record. Every ordering
//! function then runs on the ranks (`int64`, the records' dimensions, so
//! dense axes and ragged rows alike) and maps ranks back to records where
//! it gives values. A 1-dimensional sort takes its order from that one
//! sort directly.

use std::cmp::Ordering;

use dynd_array::text::Strings;
use dynd_kernels::take::TakeMode;
use dynd_kernels::{Array, ArrayOps};
use dynd_types::{Dim, Scalar, Type, TypeKind};

use crate::error::Error;

/// Whether `x`'s elements are records or tuples (optional ones too).
pub(crate) fn is_record(x: &Array) -> bool {
    dynd_array::record::is_record(x.dtype())
}

/// One sort key of every element, in element order.
enum Column {
    /// Order-preserving words: a smaller word is an earlier element.
    Words(Vec<u64>),
    /// Strings by their bytes (reversed with `true`), NA (`None`) last:
    /// each a (text block, start, length) span into the blocks kept here,
    /// read in place.
    Text(Texts, bool),
}

/// A number's word: the same order as the number's (NaN after all
/// numbers, all NaNs one word, `-0.0` the word of `0.0`).
trait Word: Copy {
    fn word(self) -> u64;
}

macro_rules! signed {
    ($($t:ty),*) => {$(
        impl Word for $t {
            #[inline]
            fn word(self) -> u64 {
                (self as i64 as u64) ^ (1 << 63)
            }
        }
    )*};
}
macro_rules! unsigned {
    ($($t:ty),*) => {$(
        impl Word for $t {
            #[inline]
            fn word(self) -> u64 {
                self as u64
            }
        }
    )*};
}
signed!(i8, i16, i32, i64);
unsigned!(u8, u16, u32, u64);

impl Word for bool {
    #[inline]
    fn word(self) -> u64 {
        u64::from(self)
    }
}

impl Word for f64 {
    #[inline]
    fn word(self) -> u64 {
        if self.is_nan() {
            return u64::MAX;
        }
        // `-0.0 + 0.0` is `0.0`: one word for both zeros.
        let bits = (self + 0.0).to_bits();
        if bits >> 63 == 1 {
            !bits
        } else {
            bits | (1 << 63)
        }
    }
}

impl Word for f32 {
    #[inline]
    fn word(self) -> u64 {
        f64::from(self).word()
    }
}

impl Word for dynd_kernels::F16 {
    #[inline]
    fn word(self) -> u64 {
        self.to_f64().word()
    }
}

fn unordered(x: &Array) -> Error {
    Error::Unsupported {
        operation: "ordering records with a field of this type (numbers, bool, strings, records and fixed-size arrays of them are ordered)",
        ty: x.ty().clone(),
    }
}

/// The words of `flat` (`K * T`, `T` an ordered number or `bool`);
/// `descending`, in the reverse order but NaN still after every number
/// (as numbers sort descending).
fn words(flat: &Array, s: Scalar, descending: bool) -> Result<Vec<u64>, Error> {
    let float = matches!(s, Scalar::Float16 | Scalar::Float32 | Scalar::Float64);
    let mut w = words_of(flat, s)?;
    if descending {
        for x in &mut w {
            // A float's NaN is `u64::MAX`, above every number's word.
            *x = match float {
                true if *x == u64::MAX => u64::MAX,
                true => u64::MAX - 1 - *x,
                false => !*x,
            };
        }
    }
    Ok(w)
}

/// The order-preserving words of the numbers (or `bool`s) `flat` of
/// scalar `s`: a smaller word is an earlier number, equal words equal
/// numbers (all NaNs one word, after every number; `-0.0` that of `0.0`).
pub(crate) fn words_of(flat: &Array, s: Scalar) -> Result<Vec<u64>, Error> {
    fn of<T: dynd_kernels::Element + Word>(flat: &Array) -> Result<Vec<u64>, Error> {
        let xs = super::values::<T>(flat)?;
        Ok(xs.iter().map(|x| x.word()).collect())
    }
    match s {
        Scalar::Bool => of::<bool>(flat),
        Scalar::Int8 => of::<i8>(flat),
        Scalar::Int16 => of::<i16>(flat),
        Scalar::Int32 => of::<i32>(flat),
        Scalar::Int64 => of::<i64>(flat),
        Scalar::UInt8 => of::<u8>(flat),
        Scalar::UInt16 => of::<u16>(flat),
        Scalar::UInt32 => of::<u32>(flat),
        Scalar::UInt64 => of::<u64>(flat),
        Scalar::Float16 => of::<dynd_kernels::F16>(flat),
        Scalar::Float32 => of::<f32>(flat),
        Scalar::Float64 => of::<f64>(flat),
        _ => Err(unordered(flat)),
    }
}

/// Strings as spans of the text blocks they lie in (no copy of them).
struct Texts {
    blocks: Vec<std::sync::Arc<dynd_array::memory::MemoryBlock>>,
    /// Each string's block (index into `blocks`), start and length;
    /// `None` for NA.
    spans: Vec<Option<(u32, usize, usize)>>,
}

impl Texts {
    #[inline]
    fn get(&self, i: usize) -> Option<&[u8]> {
        let (b, start, len) = self.spans[i]?;
        self.blocks[b as usize].bytes().get(start..start + len)
    }

    fn extend(&mut self, other: Texts) {
        let shift = self.blocks.len() as u32;
        self.blocks.extend(other.blocks);
        self.spans.extend(
            other
                .spans
                .into_iter()
                .map(|s| s.map(|(b, st, l)| (b + shift, st, l))),
        );
    }
}

/// The strings of `flat` (`K * string`), `None` where `valid` is false.
fn texts(flat: &Array, valid: Option<&[bool]>) -> Result<Texts, Error> {
    let s = Strings::of(flat).ok_or_else(|| unordered(flat))?;
    let spans = (0..s.len())
        .map(|i| match valid {
            Some(v) if !v[i] => Ok(None),
            _ => s
                .span(i)
                .map(|(st, l)| Some((0, st, l)))
                .ok_or_else(|| unordered(flat)),
        })
        .collect::<Result<_, Error>>()?;
    Ok(Texts {
        blocks: vec![s.text_block().clone()],
        spans,
    })
}

/// The key columns of `a` (`K * T`, one element per record), field after
/// field, into `out`: each column has `K` keys.
fn columns(a: &Array, k: usize, desc: bool, out: &mut Vec<Column>) -> Result<(), Error> {
    if is_record(a) {
        if matches!(a.dtype().kind(), TypeKind::Option(_)) {
            // An NA record after every record.
            let na = a.is_na()?;
            out.push(Column::Words(
                super::values::<bool>(&na)?
                    .iter()
                    .map(|&b| u64::from(b))
                    .collect(),
            ));
        }
        for f in a.fields()? {
            columns(&f, k, desc, out)?;
        }
        return Ok(());
    }
    // A field with dimensions of its own: each of its elements in turn.
    let inner = a.ndim().saturating_sub(1);
    if inner > 0 {
        if a.ty().split_dims().0[1..]
            .iter()
            .any(|d| !matches!(d, Dim::Fixed(_)))
        {
            return Err(unordered(a));
        }
        let flat = a.flat_values()?;
        let n = flat.len();
        let per = n.checked_div(k).unwrap_or(0);
        let shape = [k, per];
        let m = flat.reshape(&shape[..])?;
        for j in 0..per {
            let piece = m.index(&[dynd_kernels::Index::ALL, dynd_kernels::Index::At(j as i64)])?;
            columns(&piece, k, desc, out)?;
        }
        return Ok(());
    }
    let flat = a.compact()?;
    let (inner_ty, option) = match flat.dtype().kind() {
        TypeKind::Option(t) => (t.clone(), true),
        _ => (flat.dtype().clone(), false),
    };
    let text = |x: &Array, valid: Option<&[bool]>| -> Result<Column, Error> {
        Ok(Column::Text(texts(x, valid)?, desc))
    };
    if matches!(inner_ty.kind(), TypeKind::FixedString { .. }) {
        let s: Type = if option {
            Type::option(Scalar::String.into())?
        } else {
            Scalar::String.into()
        };
        let t = flat.cast(
            &Type::dim(Dim::Fixed(k), s)?,
            dynd_kernels::ErrorMode::NoCheck,
        )?;
        return columns(&t, k, desc, out);
    }
    let s = inner_ty.as_scalar().ok_or_else(|| unordered(a))?;
    if !option {
        out.push(match s {
            Scalar::String | Scalar::Bytes => text(&flat, None)?,
            _ => Column::Words(words(&flat, s, desc)?),
        });
        return Ok(());
    }
    let (values, valid) = flat.option_parts().ok_or_else(|| unordered(a))?;
    let valid = super::values::<bool>(&valid)?;
    match s {
        Scalar::String | Scalar::Bytes => out.push(text(&values, Some(&valid))?),
        _ => {
            // NA after every value: the flag first, then the value.
            out.push(Column::Words(
                valid.iter().map(|&v| u64::from(!v)).collect(),
            ));
            let mut w = words(&values, s, desc)?;
            for (w, &v) in w.iter_mut().zip(valid.iter()) {
                if !v {
                    *w = 0;
                }
            }
            out.push(Column::Words(w));
        }
    }
    Ok(())
}

/// The elements of a record array ranked: equal records one rank, a
/// smaller rank an earlier record.
pub(crate) struct Ranked {
    /// Each element's rank (`int64`), with the records' dimensions.
    pub ranks: Array,
    /// The records in C order (`K * R`).
    pub flat: Array,
    /// For each rank, the first element (flat index) of that rank.
    pub first: Vec<i64>,
}

/// The sorted positions of `n` elements keyed by `cols`: by the columns
/// in turn, then by position (so equal records keep their order); and
/// for each sorted position, whether it starts a run of equal records.
fn sorted(cols: &[Column], n: usize) -> (Vec<usize>, Vec<bool>) {
    let words: Option<Vec<&[u64]>> = cols
        .iter()
        .map(|c| match c {
            Column::Words(w) => Some(&w[..]),
            Column::Text(..) => None,
        })
        .collect();
    if let Some(w) = words {
        if let Some(sorted) = packed_bits(&w, n) {
            return sorted;
        }
        if n <= u32::MAX as usize {
            match w.len() {
                // One word always fits `packed_bits`.
                2 => return packed2(w[0], w[1], n),
                3 => return packed::<3>(&w, n),
                4 => return packed::<4>(&w, n),
                _ => {}
            }
        }
    }
    let mut idx: Vec<usize> = (0..n).collect();
    idx.sort_unstable_by(|&a, &b| compare(cols, a, b).then(a.cmp(&b)));
    let starts = (0..n)
        .map(|k| k == 0 || compare(cols, idx[k - 1], idx[k]).is_ne())
        .collect();
    (idx, starts)
}

/// [`sorted`] for `W` word columns: each element's words and position in
/// one array, sorted (the position breaks ties, so the unstable sort is
/// stable); runs of equal records found from the sorted words, in order.
fn packed<const W: usize>(cols: &[&[u64]], n: usize) -> (Vec<usize>, Vec<bool>) {
    let mut keys: Vec<([u64; W], u32)> = (0..n)
        .map(|i| (std::array::from_fn(|c| cols[c][i]), i as u32))
        .collect();
    keys.sort_unstable();
    let starts = (0..n)
        .map(|k| k == 0 || keys[k - 1].0 != keys[k].0)
        .collect();
    (keys.into_iter().map(|(_, i)| i as usize).collect(), starts)
}

/// Bits to hold `0..=x`.
fn bits(x: u64) -> u32 {
    64 - x.leading_zeros()
}

/// [`sorted`] where every column's range (its largest word less its
/// smallest) and the positions fit in 128 bits together: each element
/// one integer, its columns' offsets from their smallest side by side
/// above its position (most columns in real keys span far less than 64
/// bits: a code, a year, a small count), so a sort moves 8 or 16 bytes an
/// element and compares once.
fn packed_bits(cols: &[&[u64]], n: usize) -> Option<(Vec<usize>, Vec<bool>)> {
    let pos_bits = bits(n.saturating_sub(1) as u64);
    let mut spans = Vec::with_capacity(cols.len());
    let mut total = pos_bits;
    for c in cols {
        let (lo, hi) = c
            .iter()
            .fold((u64::MAX, 0), |(lo, hi), &w| (lo.min(w), hi.max(w)));
        let b = if n == 0 { 0 } else { bits(hi - lo) };
        spans.push((lo, b));
        total += b;
    }
    if total > 128 {
        return None;
    }
    let key = |i: usize| -> u128 {
        let mut k = 0u128;
        for (c, &(lo, b)) in cols.iter().zip(&spans) {
            k = (k << b) | u128::from(c[i] - lo);
        }
        (k << pos_bits) | i as u128
    };
    let mask = (1u128 << pos_bits) - 1;
    if total <= 64 {
        let mut keys: Vec<u64> = (0..n).map(|i| key(i) as u64).collect();
        keys.sort_unstable();
        let m = mask as u64;
        let starts = (0..n)
            .map(|k| k == 0 || keys[k - 1] >> pos_bits != keys[k] >> pos_bits)
            .collect();
        return Some((keys.into_iter().map(|k| (k & m) as usize).collect(), starts));
    }
    let mut keys: Vec<u128> = (0..n).map(key).collect();
    keys.sort_unstable();
    let starts = (0..n)
        .map(|k| k == 0 || keys[k - 1] >> pos_bits != keys[k] >> pos_bits)
        .collect();
    Some((
        keys.into_iter().map(|k| (k & mask) as usize).collect(),
        starts,
    ))
}

/// [`packed`] for two words, as a tuple (its order inlines to two
/// compares, where an array's goes through a slice compare).
fn packed2(a: &[u64], b: &[u64], n: usize) -> (Vec<usize>, Vec<bool>) {
    let mut keys: Vec<(u64, u64, u32)> = (0..n).map(|i| (a[i], b[i], i as u32)).collect();
    keys.sort_unstable();
    let starts = (0..n)
        .map(|k| k == 0 || (keys[k - 1].0, keys[k - 1].1) != (keys[k].0, keys[k].1))
        .collect();
    (
        keys.into_iter().map(|(_, _, i)| i as usize).collect(),
        starts,
    )
}

/// Elements `a` and `b` by the columns in turn.
fn compare(cols: &[Column], a: usize, b: usize) -> Ordering {
    for c in cols {
        let o = match c {
            Column::Words(w) => w[a].cmp(&w[b]),
            Column::Text(t, desc) => match (t.get(a), t.get(b)) {
                (Some(x), Some(y)) if *desc => y.cmp(x),
                (Some(x), Some(y)) => x.cmp(y),
                (None, None) => Ordering::Equal,
                (None, Some(_)) => Ordering::Greater,
                (Some(_), None) => Ordering::Less,
            },
        };
        if o.is_ne() {
            return o;
        }
    }
    Ordering::Equal
}

/// The ranks of `x`'s records (see [`Ranked`]).
pub(crate) fn ranked(x: &Array) -> Result<Ranked, Error> {
    ranked_in(x, false)
}

/// The ranks of `x`'s records in ascending order, or in descending order
/// with NaN and NA still last (as numbers and strings sort descending).
pub(crate) fn ranked_in(x: &Array, descending: bool) -> Result<Ranked, Error> {
    let (flat, order, starts) = ordered(x, descending)?;
    let n = order.len();
    let mut rank = vec![0i64; n];
    let mut first = Vec::new();
    for (&i, &start) in order.iter().zip(&starts) {
        if start {
            first.push(i as i64);
        }
        rank[i] = first.len() as i64 - 1;
    }
    let ranks = Array::regroup(&Array::from_vec(rank), x)?;
    Ok(Ranked { ranks, flat, first })
}

/// `x`'s records in C order, their sorted order (ascending, or
/// descending with NaN and NA last), and where each run of equal
/// records starts in it: what a 1-dimensional sort needs, without ranks.
pub(crate) fn ordered(
    x: &Array,
    descending: bool,
) -> Result<(Array, Vec<usize>, Vec<bool>), Error> {
    let flat = x.flat_values()?;
    let n = flat.len();
    let mut cols = Vec::new();
    columns(&flat, n, descending, &mut cols)?;
    let (order, starts) = sorted(&cols, n);
    Ok((flat, order, starts))
}

/// The ranks of `a`'s and `b`'s records in their one joint order, each
/// in C order (for `searchsorted`: equal records of the two equal
/// ranks).
pub(crate) fn joint_ranks(a: &Array, b: &Array) -> Result<(Vec<i64>, Vec<i64>), Error> {
    let (fa, fb) = (a.flat_values()?, b.flat_values()?);
    let (na, nb) = (fa.len(), fb.len());
    let (mut ca, mut cb) = (Vec::new(), Vec::new());
    columns(&fa, na, false, &mut ca)?;
    columns(&fb, nb, false, &mut cb)?;
    let cols: Vec<Column> = ca
        .into_iter()
        .zip(cb)
        .map(|pair| match pair {
            (Column::Words(mut x), Column::Words(y)) => {
                x.extend(y);
                Ok(Column::Words(x))
            }
            (Column::Text(mut x, d), Column::Text(y, _)) => {
                x.extend(y);
                Ok(Column::Text(x, d))
            }
            _ => Err(unordered(b)),
        })
        .collect::<Result<_, Error>>()?;
    let (order, starts) = sorted(&cols, na + nb);
    let mut rank = vec![0i64; na + nb];
    let mut r = -1i64;
    for (&i, &start) in order.iter().zip(&starts) {
        if start {
            r += 1;
        }
        rank[i] = r;
    }
    let b_ranks = rank.split_off(na);
    Ok((rank, b_ranks))
}

impl Ranked {
    /// The records of `ranks` (an `int64` array of ranks, any dimensions,
    /// fixed or `var`): each rank's first record, under `ranks`'
    /// dimensions.
    pub(crate) fn records_of(&self, ranks: &Array) -> Result<Array, Error> {
        let r = ranks.flat_values()?;
        let ids: Vec<i64> = super::values::<i64>(&r)?
            .iter()
            .map(|&k| self.first.get(k as usize).copied().unwrap_or(0))
            .collect();
        let picked = take_flat(&self.flat, ids)?;
        Array::regroup(&picked, ranks)
    }
}

/// Elements `ids` of `flat` (`K * R`), in that order: each field's
/// array taken on its own when the records are held as columns.
pub(crate) fn take_flat(flat: &Array, ids: Vec<i64>) -> Result<Array, Error> {
    let idx = Array::from_vec(ids);
    let ids = idx.as_slice::<i64>()?;
    if let Some(columns) = flat.columns() {
        let taken = columns
            .iter()
            .map(|c| gather(c, ids).unwrap_or_else(|| c.take(&idx, Some(0), TakeMode::Raise)))
            .collect::<Result<Vec<_>, Error>>()?;
        return match flat.dtype().kind() {
            TypeKind::Struct(s) => {
                Array::from_columns_at(1, s.fields.iter().map(|(n, _)| &**n).zip(taken))
            }
            _ => Array::tuple_from_columns_at(1, taken),
        };
    }
    flat.take(&idx, Some(0), TakeMode::Raise)
}

/// Elements `ids` (each in range) of a column of numbers side by side,
/// read straight from its slice; `None` for any other column.
fn gather(c: &Array, ids: &[i64]) -> Option<Result<Array, Error>> {
    let s = c
        .dtype()
        .as_scalar()
        .filter(|s| s.is_numeric() || *s == Scalar::Bool)?;
    if c.ndim() != 1 {
        return None;
    }
    let n = c.len();
    if ids.iter().any(|&i| i < 0 || i as usize >= n) {
        return None;
    }
    dynd_array::with_numeric!(s, T => {
        let xs = c.as_slice::<T>().ok()?;
        Some(Array::from_fn(ids.len(), |j| xs[ids[j] as usize]))
    }, None)
}
