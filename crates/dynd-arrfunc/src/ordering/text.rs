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
use dynd_kernels::Array;
use dynd_types::{Scalar, TypeKind};

use crate::error::Error;
use crate::rows::{self, chunks, AxisRows};

/// Whether `x`'s elements are `string` or `?string`.
pub(super) fn is_text(x: &Array) -> bool {
    let t = match x.dtype().kind() {
        TypeKind::Option(inner) => inner,
        _ => x.dtype(),
    };
    t.as_scalar() == Some(Scalar::String)
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

/// The indexes that sort each row of `rows` (strings `v`, NA where `ok`
/// is false), within the row: stable, NA last either way.
fn argsort_views(rows: &AxisRows, v: &[&[u8]], ok: Option<&[bool]>, ascending: bool) -> Vec<i64> {
    let o = &rows.offsets;
    let mut out = vec![0i64; v.len()];
    let cmp = |a: &usize, b: &usize| -> Ordering {
        let c = v[*a].cmp(v[*b]);
        if ascending {
            c
        } else {
            c.reverse()
        }
    };
    rows::par_fill(
        &mut out,
        |i| o[i] as usize,
        &chunks(o),
        |run, part| {
            let base = o[run.start];
            let mut idx: Vec<usize> = Vec::new();
            for i in run {
                let r = o[i] as usize..o[i + 1] as usize;
                idx.clear();
                let here = |k: &usize| ok.is_none_or(|ok| ok[r.start + k]);
                idx.extend((0..r.len()).filter(here));
                // Indexes within the row, compared by the strings they name.
                idx.sort_by(|a, b| cmp(&(r.start + a), &(r.start + b)));
                let na = (0..r.len()).filter(|k| !here(k));
                let out = &mut part[(o[i] - base) as usize..(o[i + 1] - base) as usize];
                for (o, k) in out.iter_mut().zip(idx.iter().copied().chain(na)) {
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
    let idx = argsort_views(rows, &v, ok, ascending);
    if sort {
        rows.reorder(&idx)
    } else {
        rows.wrap_rows(Array::from_vec(idx), &rows.offsets)
    }
}
