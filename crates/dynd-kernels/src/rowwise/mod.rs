//! Per-row kernels over rows stored end to end (a run of values and the
//! offsets where each row starts), written to run without a branch per
//! element or per row, and compiled for the CPU they run on.
//!
//! A per-row loop over short rows of random lengths spends more time on
//! mispredicted loop exits (one per row) and on data-dependent branches
//! (a new maximum) than on the values. Here a row of up to [`WIDE`]
//! elements is read as one block of `WIDE` lanes, the lanes past its end
//! masked, and reduced with compares and selects: the row's length only
//! decides a mask.
//!
//! `argmax` and the soft functions of ragged rows run on these kernels:
//!
//! ```
//! use dynd::prelude::*;
//!
//! let x = nd::Array::from_offsets(vec![3.0, 9.0, 1.0, f64::NAN, 5.0, 7.0], &[0, 3, 3, 6])?;
//! let at = dynd::func::argmax(&x, Some(-1), false)?;
//! assert_eq!(at.to_string(), "[1, null, 0]"); // the first NaN wins its row
//! # Ok::<(), dynd::Error>(())
//! ```

use crate::isa::Isa;

#[cfg(target_arch = "x86_64")]
mod masks;

/// No mask kernels off x86-64: the portable blocks run.
#[cfg(not(target_arch = "x86_64"))]
mod masks {
    use super::Isa;
    pub(super) fn f64_rows(
        _: Isa,
        _: &[f64],
        _: &[i64],
        _: bool,
        _: Option<i64>,
        _: &mut [i64],
    ) -> bool {
        false
    }
    pub(super) fn f32_rows(
        _: Isa,
        _: &[f32],
        _: &[i64],
        _: bool,
        _: Option<i64>,
        _: &mut [i64],
    ) -> bool {
        false
    }
}

/// Rows up to this long are one block of lanes.
pub const WIDE: usize = 32;

/// An element type the extreme-finding kernels take: the 4- and 8-byte
/// numbers, whose lanes are masked as unsigned words.
pub trait Extreme: Copy + PartialOrd + Send + Sync + 'static {
    /// Below or equal to every value (the fill of `argmax`'s lanes).
    const LOW: Self;
    /// Above or equal to every value (the fill of `argmin`'s lanes).
    const HIGH: Self;
    /// Whether the value is a NaN (which wins over every number).
    fn nan(self) -> bool;
    /// `self` where `keep` is all ones, `fill` where it is zero, by bits.
    fn select(self, fill: Self, keep: u64) -> Self;
    /// [`arg_extremes`] (or [`arg_extremes_optional`] where `there` is
    /// given) through the registers' compare masks, where the type has
    /// such a kernel on the CPU (`f64` and `f32` on AVX-512 and AVX2):
    /// `false`, with nothing written, where it has not.
    #[doc(hidden)]
    fn masked_rows(
        xs: &[Self],
        offsets: &[i64],
        max: bool,
        there: Option<i64>,
        out: &mut [i64],
    ) -> bool {
        let _ = (xs, offsets, max, there, out);
        false
    }
}

macro_rules! extreme {
    ($($t:ty: $low:expr, $high:expr, $bits:ty, $nan:expr $(, $masked:path)?);*) => {$(
        impl Extreme for $t {
            $(
            fn masked_rows(
                xs: &[Self],
                offsets: &[i64],
                max: bool,
                there: Option<i64>,
                out: &mut [i64],
            ) -> bool {
                $masked(Isa::active(), xs, offsets, max, there, out)
            }
            )?
            const LOW: Self = $low;
            const HIGH: Self = $high;
            #[inline(always)]
            fn nan(self) -> bool {
                $nan(self)
            }
            #[inline(always)]
            fn select(self, fill: Self, keep: u64) -> Self {
                let keep = keep as $bits;
                <$t>::from_ne_bytes(
                    ((<$bits>::from_ne_bytes(self.to_ne_bytes()) & keep)
                        | (<$bits>::from_ne_bytes(fill.to_ne_bytes()) & !keep))
                        .to_ne_bytes(),
                )
            }
        }
    )*};
}
extreme!(
    i32: i32::MIN, i32::MAX, u32, |_| false;
    i64: i64::MIN, i64::MAX, u64, |_| false;
    u32: u32::MIN, u32::MAX, u32, |_| false;
    u64: u64::MIN, u64::MAX, u64, |_| false;
    f32: f32::NEG_INFINITY, f32::INFINITY, u32, f32::is_nan, masks::f32_rows;
    f64: f64::NEG_INFINITY, f64::INFINITY, u64, f64::is_nan, masks::f64_rows
);

/// Lane masks: `KEEP[WIDE - l..][..WIDE]` keeps the first `l` lanes.
const KEEP: [u64; 2 * WIDE] = {
    let mut k = [0u64; 2 * WIDE];
    let mut i = 0;
    while i < WIDE {
        k[i] = !0;
        i += 1;
    }
    k
};

/// Whether `a` is strictly better than `b` (larger for `MAX`).
#[inline(always)]
fn better<T: Extreme, const MAX: bool>(a: T, b: T) -> bool {
    if MAX {
        a > b
    } else {
        a < b
    }
}

/// The index of the first extreme among the first `len` (`1..=WIDE`)
/// lanes of `b`, the first NaN if there is one; no branch.
#[inline(always)]
fn block<T: Extreme, const MAX: bool>(b: &[T; WIDE], len: usize) -> usize {
    let fill = if MAX { T::LOW } else { T::HIGH };
    let mut m = [fill; WIDE];
    if let Some(keep) = KEEP.get(WIDE - len..2 * WIDE - len) {
        for ((v, &x), &k) in m.iter_mut().zip(b).zip(keep) {
            *v = x.select(fill, k);
        }
    }
    // A pairwise tree of selects (a NaN lane may spoil the result; the
    // NaN mask below decides then).
    let mut t = m;
    let mut w = WIDE / 2;
    while w > 0 {
        for l in 0..w {
            t[l] = if better::<T, MAX>(t[l + w], t[l]) {
                t[l + w]
            } else {
                t[l]
            };
        }
        w /= 2;
    }
    let best = t[0];
    let (mut eq, mut nan) = (0u32, 0u32);
    for (l, &v) in m.iter().enumerate() {
        eq |= ((v == best) as u32) << l;
        nan |= (v.nan() as u32) << l;
    }
    // The fill lanes follow the row's: the first equal lane is the row's.
    let bits = if nan != 0 { nan } else { eq };
    bits.trailing_zeros() as usize
}

/// The first extreme of `row` (the first NaN if any), element by element.
fn in_row<T: Extreme, const MAX: bool>(row: &[T]) -> Option<usize> {
    let (&first, _) = row.split_first()?;
    let (mut best, mut at) = (first, 0);
    for (i, &x) in row.iter().enumerate() {
        if best.nan() {
            break;
        }
        if x.nan() || better::<T, MAX>(x, best) {
            best = x;
            at = i;
        }
    }
    Some(at)
}

/// Each row as a block where `BLOCKS` (the wide registers pay for the
/// masking), else element by element; written as one `i64` per row (-1
/// for an empty row), or where `PAIRS` as two (the index and `there`, or
/// two zeros).
#[inline(always)]
fn each_row<T: Extreme, const MAX: bool, const BLOCKS: bool, const PAIRS: bool>(
    xs: &[T],
    offsets: &[i64],
    there: i64,
    out: &mut [i64],
) {
    let width = if PAIRS { 2 } else { 1 };
    for (dst, o) in out.chunks_exact_mut(width).zip(offsets.windows(2)) {
        let (s, e) = (o[0] as usize, o[1] as usize);
        let len = e.saturating_sub(s);
        let k = match lanes(xs, s).filter(|_| BLOCKS) {
            Some(b) if len <= WIDE => {
                let k = block::<T, MAX>(b, len) as i64;
                if len == 0 {
                    -1
                } else {
                    k
                }
            }
            _ => xs
                .get(s..e)
                .and_then(in_row::<T, MAX>)
                .map_or(-1, |k| k as i64),
        };
        put::<PAIRS>(dst, k, there);
    }
}

/// Row index `k` (-1 for none) into `dst`: as it is, or where `PAIRS` as
/// a `?int64` pair (`k` and `there`, or two zeros for none).
#[inline(always)]
fn put<const PAIRS: bool>(dst: &mut [i64], k: i64, there: i64) {
    if PAIRS {
        let found = k >= 0;
        dst[0] = k & -(found as i64);
        dst[1] = there & -(found as i64);
    } else {
        dst[0] = k;
    }
}

/// For each row `i` of `xs` (`xs[offsets[i]..offsets[i + 1]]`), the index
/// within the row of its first maximum (`max`) or minimum, the first NaN
/// if it has one, or -1 for an empty row, into `out[i]` (`out` has one
/// element fewer than `offsets`; offsets outside `xs` give -1).
pub fn arg_extremes<T: Extreme>(xs: &[T], offsets: &[i64], max: bool, out: &mut [i64]) {
    dispatch(xs, offsets, max, None, out)
}

/// [`arg_extremes`] written as `?int64` words: two per row, the index
/// then `there` (the word that marks a value), or two zeros (NA) for an
/// empty row.
pub fn arg_extremes_optional<T: Extreme>(
    xs: &[T],
    offsets: &[i64],
    max: bool,
    there: i64,
    out: &mut [i64],
) {
    dispatch(xs, offsets, max, Some(there), out)
}

fn dispatch<T: Extreme>(xs: &[T], offsets: &[i64], max: bool, there: Option<i64>, out: &mut [i64]) {
    if T::masked_rows(xs, offsets, max, there, out) {
        return;
    }
    match Isa::active() {
        Isa::Portable => arg_extremes_any::<T, false>(xs, offsets, max, there, out),
        // SAFETY: `Isa::active` is a set this CPU has.
        isa => unsafe {
            crate::isa::on!(
                isa,
                arg_extremes_any::<T, true>(xs, offsets, max, there, out)
            )
        },
    }
}

#[inline(always)]
fn arg_extremes_any<T: Extreme, const BLOCKS: bool>(
    xs: &[T],
    offsets: &[i64],
    max: bool,
    there: Option<i64>,
    out: &mut [i64],
) {
    match (max, there) {
        (true, None) => each_row::<T, true, BLOCKS, false>(xs, offsets, 0, out),
        (false, None) => each_row::<T, false, BLOCKS, false>(xs, offsets, 0, out),
        (true, Some(t)) => each_row::<T, true, BLOCKS, true>(xs, offsets, t, out),
        (false, Some(t)) => each_row::<T, false, BLOCKS, true>(xs, offsets, t, out),
    }
}

/// A float type the per-row soft kernels take (`f32`, `f64`).
pub trait Float:
    Extreme + std::ops::Add<Output = Self> + std::ops::Sub<Output = Self> + std::ops::Mul<Output = Self>
{
    /// Zero.
    const ZERO: Self;
    /// Whether the value is neither infinite nor NaN.
    fn finite(self) -> bool;
}

impl Float for f32 {
    const ZERO: Self = 0.0;
    #[inline(always)]
    fn finite(self) -> bool {
        self.is_finite()
    }
}

impl Float for f64 {
    const ZERO: Self = 0.0;
    #[inline(always)]
    fn finite(self) -> bool {
        self.is_finite()
    }
}

/// The `WIDE` values from `at`, if they lie inside `xs`.
#[inline(always)]
fn lanes<T>(xs: &[T], at: usize) -> Option<&[T; WIDE]> {
    xs.get(at..at.checked_add(WIDE)?)?.try_into().ok()
}

/// [`lanes`], to write.
#[inline(always)]
fn lanes_mut<T>(xs: &mut [T], at: usize) -> Option<&mut [T; WIDE]> {
    xs.get_mut(at..at.checked_add(WIDE)?)?.try_into().ok()
}

/// `KEEP`'s masks for a row of `len` (`0..=WIDE`) lanes.
#[inline(always)]
fn keep(len: usize) -> Option<&'static [u64; WIDE]> {
    let from = WIDE.checked_sub(len)?;
    KEEP.get(from..from + WIDE)?.try_into().ok()
}

/// The pairwise sum (`ADD`) or maximum of a block's lanes.
#[inline(always)]
fn fold<T: Float, const ADD: bool>(mut t: [T; WIDE]) -> T {
    let mut w = WIDE / 2;
    while w > 0 {
        for l in 0..w {
            t[l] = if ADD {
                t[l] + t[l + w]
            } else if t[l + w] > t[l] {
                t[l + w]
            } else {
                t[l]
            };
        }
        w /= 2;
    }
    t[0]
}

/// Row `i`'s span `(start, len)` from `offsets` (`len` 0 for a bad pair).
#[inline(always)]
fn span(o: &[i64]) -> (usize, usize) {
    let (s, e) = (o[0] as usize, o[1] as usize);
    (s, e.saturating_sub(s))
}

/// The maximum a row's values are shifted by: 0 where it is not finite
/// (so that infinities give what `exp` says).
#[inline(always)]
fn finite_or_zero<T: Float>(m: T) -> T {
    if m.finite() {
        m
    } else {
        T::ZERO
    }
}

#[inline(always)]
fn shift_each<T: Float, const BLOCKS: bool>(
    xs: &[T],
    offsets: &[i64],
    shifted: &mut [T],
    maxes: &mut [T],
) {
    let base = offsets.first().map_or(0, |&b| b as usize);
    for (m_out, o) in maxes.iter_mut().zip(offsets.windows(2)) {
        let (s, len) = span(o);
        let d = s.wrapping_sub(base);
        match (lanes(xs, s), lanes_mut(shifted, d), keep(len)) {
            (Some(src), Some(dst), Some(k)) if BLOCKS => {
                let mut lanes = [T::LOW; WIDE];
                for l in 0..WIDE {
                    lanes[l] = src[l].select(T::LOW, k[l]);
                }
                let m = finite_or_zero(fold::<T, false>(lanes));
                // The whole block is written: the lanes past the row are
                // the next rows', which are written after this one.
                for l in 0..WIDE {
                    dst[l] = src[l] - m;
                }
                *m_out = m;
            }
            _ => {
                let row = xs.get(s..s + len).unwrap_or(&[]);
                let m = row.iter().fold(T::LOW, |m, &x| if x > m { x } else { m });
                let m = finite_or_zero(m);
                if let Some(dst) = shifted.get_mut(d..d + row.len()) {
                    for (y, &x) in dst.iter_mut().zip(row) {
                        *y = x - m;
                    }
                }
                *m_out = m;
            }
        }
    }
}

#[inline(always)]
fn sum_each<T: Float, const BLOCKS: bool>(es: &[T], offsets: &[i64], sums: &mut [T]) {
    let base = offsets.first().map_or(0, |&b| b as usize);
    for (sum, o) in sums.iter_mut().zip(offsets.windows(2)) {
        let (s, len) = span(o);
        let d = s.wrapping_sub(base);
        match (lanes(es, d), keep(len)) {
            (Some(src), Some(k)) if BLOCKS => {
                let mut lanes = [T::ZERO; WIDE];
                for l in 0..WIDE {
                    lanes[l] = src[l].select(T::ZERO, k[l]);
                }
                *sum = fold::<T, true>(lanes);
            }
            _ => {
                let row = es.get(d..d + len).unwrap_or(&[]);
                *sum = row.iter().fold(T::ZERO, |a, &e| a + e);
            }
        }
    }
}

#[inline(always)]
fn scale_each<T: Float, const MUL: bool, const BLOCKS: bool>(
    vals: &mut [T],
    offsets: &[i64],
    by: &[T],
) {
    let base = offsets.first().map_or(0, |&b| b as usize);
    for (&f, o) in by.iter().zip(offsets.windows(2)) {
        let (s, len) = span(o);
        let d = s.wrapping_sub(base);
        let op = |v: T| if MUL { v * f } else { v + f };
        match (lanes_mut(vals, d), keep(len)) {
            (Some(dst), Some(k)) if BLOCKS => {
                // Read, changed in the row's lanes only, written whole.
                for l in 0..WIDE {
                    dst[l] = op(dst[l]).select(dst[l], k[l]);
                }
            }
            _ => {
                if let Some(row) = vals.get_mut(d..d + len) {
                    row.iter_mut().for_each(|v| *v = op(*v));
                }
            }
        }
    }
}

/// Generates `$name`, which runs `$body::<.., true>` compiled for the
/// wide registers [`Isa::active`] chooses (blocks of lanes pay off
/// there), or on the baseline `$body::<.., false>` (element by element).
macro_rules! dispatched {
    ($(#[$doc:meta])* $name:ident, $body:ident, [$($c:tt)*], ($($arg:ident: $ty:ty),*)) => {
        $(#[$doc])*
        pub fn $name<T: Float>($($arg: $ty),*) {
            match Isa::active() {
                Isa::Portable => $body::<T, $($c)* false>($($arg),*),
                // SAFETY: `Isa::active` is a set this CPU has.
                isa => unsafe { crate::isa::on!(isa, $body::<T, $($c)* true>($($arg),*)) },
            }
        }
    };
}

dispatched!(
    /// For each row (`xs[offsets[i]..offsets[i + 1]]`): its maximum `m`
    /// (0 where that is not finite) into `maxes[i]`, and `x - m` for each
    /// of its `x` into `shifted`, whose element 0 is `xs[offsets[0]]`'s
    /// place (the rows lie end to end). The first step of a stable
    /// softmax.
    shift_rows, shift_each, [], (xs: &[T], offsets: &[i64], shifted: &mut [T], maxes: &mut [T])
);

dispatched!(
    /// Each row's sum into `sums[i]`, the rows in `es` as [`shift_rows`]
    /// lays them out (element 0 at `offsets[0]`'s place), summed pairwise.
    row_sums, sum_each, [], (es: &[T], offsets: &[i64], sums: &mut [T])
);

dispatched!(
    /// Each row's values (laid out as in [`shift_rows`]) multiplied by
    /// `by[i]`.
    scale_rows, scale_each, [true,], (vals: &mut [T], offsets: &[i64], by: &[T])
);

dispatched!(
    /// `by[i]` added to each of row `i`'s values (laid out as in
    /// [`shift_rows`]).
    offset_rows, scale_each, [false,], (vals: &mut [T], offsets: &[i64], by: &[T])
);
/// Asks the processor for the cache line of `xs[i]` (a hint: no effect on
/// what the program computes, nothing for an `i` past the end). A loop
/// that reads one value per row from places its rows decide (`take` of
/// one index per row) asks for the value some rows ahead, so that the
/// reads overlap instead of waiting on memory one after another.
#[inline(always)]
pub fn prefetch<T>(xs: &[T], i: usize) {
    if let Some(x) = xs.get(i) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: a prefetch reads nothing the program sees and faults on
        // no address; `x` is an element of `xs` besides.
        unsafe {
            std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
                (x as *const T).cast::<i8>(),
            )
        };
        #[cfg(not(target_arch = "x86_64"))]
        let _ = x;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The next state of a 64-bit xorshift.
    fn xorshift(s: &mut u64) -> u64 {
        *s ^= *s << 13;
        *s ^= *s >> 7;
        *s ^= *s << 17;
        *s
    }

    /// Every path (the block, the element-by-element tail) against a
    /// plain reference, rows of every length to past `WIDE`, with NaN,
    /// infinities and ties.
    #[test]
    fn agrees_with_a_plain_loop() {
        let mut s = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || xorshift(&mut s);
        let mut xs = Vec::new();
        let mut offsets = vec![0i64];
        for r in 0..3000 {
            let len = (next() % 40) as usize;
            for _ in 0..len {
                let v = match next() % 50 {
                    0 => f64::NAN,
                    1 => f64::INFINITY,
                    2 => f64::NEG_INFINITY,
                    k => (k % 7) as f64 - 3.0,
                };
                xs.push(v);
            }
            if r % 500 == 0 {
                xs.extend([f64::NEG_INFINITY; 3]);
            }
            offsets.push(xs.len() as i64);
        }
        for max in [true, false] {
            let mut got = vec![0i64; offsets.len() - 1];
            arg_extremes(&xs, &offsets, max, &mut got);
            let mut plain = vec![0i64; offsets.len() - 1];
            arg_extremes_any::<f64, false>(&xs, &offsets, max, None, &mut plain);
            let mut blocks = vec![0i64; offsets.len() - 1];
            arg_extremes_any::<f64, true>(&xs, &offsets, max, None, &mut blocks);
            // As `?int64` words, over a buffer of garbage.
            let mut pairs = vec![-9i64; 2 * (offsets.len() - 1)];
            arg_extremes_optional(&xs, &offsets, max, 7, &mut pairs);
            for (i, o) in offsets.windows(2).enumerate() {
                let row = &xs[o[0] as usize..o[1] as usize];
                let want = row.iter().position(|x| x.is_nan()).or_else(|| {
                    let m = row
                        .iter()
                        .copied()
                        .fold(None, |b: Option<f64>, x| match b {
                            Some(b) if !(if max { x > b } else { x < b }) => Some(b),
                            _ => Some(x),
                        })?;
                    row.iter().position(|&x| x == m)
                });
                let want = want.map_or(-1, |k| k as i64);
                assert_eq!(got[i], want, "row {i} {row:?} max {max}");
                assert_eq!(plain[i], want, "row {i} {row:?} max {max}");
                assert_eq!(blocks[i], want, "row {i} {row:?} max {max}");
                let pair = if want < 0 { [0, 0] } else { [want, 7] };
                assert_eq!(pairs[2 * i..2 * i + 2], pair, "row {i} {row:?} max {max}");
            }
            // The mask kernels of every set this CPU has, `f64` and
            // `f32` (the values are exact in both), plain and as pairs.
            let narrow: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
            for isa in Isa::ALL
                .into_iter()
                .filter(|i| *i != Isa::Portable && i.available())
            {
                for there in [None, Some(7)] {
                    let width = 1 + there.is_some() as usize;
                    let mut wide = vec![-9i64; width * (offsets.len() - 1)];
                    let mut thin = wide.clone();
                    assert!(masks::f64_rows(isa, &xs, &offsets, max, there, &mut wide));
                    assert!(masks::f32_rows(
                        isa, &narrow, &offsets, max, there, &mut thin
                    ));
                    let want = if there.is_some() { &pairs } else { &got };
                    assert_eq!(&wide, want, "{isa:?} f64 max {max} there {there:?}");
                    assert_eq!(&thin, want, "{isa:?} f32 max {max} there {there:?}");
                }
            }
        }
        let ints = [5i32, 1, 5, -7, 0];
        let mut out = [0i64; 2];
        arg_extremes(&ints, &[0, 3, 5], false, &mut out);
        assert_eq!(out, [1, 0]);
    }

    /// The soft passes: blocks and element by element give the same
    /// shifts and scalings, and sums within rounding, on rows of every
    /// length to past `WIDE`, with the rows of a run not starting at 0.
    #[test]
    fn soft_passes_agree() {
        let mut s = 0x2545_f491_4f6c_dd1du64;
        let mut next = || xorshift(&mut s);
        let mut xs = vec![7.0f64; 5];
        let mut offsets = vec![5i64];
        for _ in 0..2000 {
            for _ in 0..next() % 45 {
                xs.push((next() >> 11) as f64 / (1u64 << 53) as f64 * 20.0 - 10.0);
            }
            offsets.push(xs.len() as i64);
        }
        let n = offsets.len() - 1;
        let values = xs.len() - 5;
        let run = |blocks: bool| {
            let (mut shifted, mut maxes) = (vec![0.0; values], vec![0.0; n]);
            let (mut sums, mut scaled) = (vec![0.0; n], vec![0.0; values]);
            let by: Vec<f64> = (0..n).map(|i| i as f64 * 0.5 - 3.0).collect();
            let mut added = vec![0.0; values];
            if blocks {
                shift_each::<f64, true>(&xs, &offsets, &mut shifted, &mut maxes);
                sum_each::<f64, true>(&shifted, &offsets, &mut sums);
                scaled.copy_from_slice(&shifted);
                scale_each::<f64, true, true>(&mut scaled, &offsets, &by);
                added.copy_from_slice(&shifted);
                scale_each::<f64, false, true>(&mut added, &offsets, &by);
            } else {
                shift_each::<f64, false>(&xs, &offsets, &mut shifted, &mut maxes);
                sum_each::<f64, false>(&shifted, &offsets, &mut sums);
                scaled.copy_from_slice(&shifted);
                scale_each::<f64, true, false>(&mut scaled, &offsets, &by);
                added.copy_from_slice(&shifted);
                scale_each::<f64, false, false>(&mut added, &offsets, &by);
            }
            (shifted, maxes, sums, scaled, added)
        };
        let (a, b) = (run(true), run(false));
        assert_eq!(a.0, b.0);
        assert_eq!(a.1, b.1);
        assert_eq!(a.3, b.3);
        assert_eq!(a.4, b.4);
        for (i, (x, y)) in a.2.iter().zip(&b.2).enumerate() {
            assert!((x - y).abs() <= 1e-12 * (1.0 + y.abs()), "row {i}: {x} {y}");
        }
        // Each row less its maximum: the row's largest is 0.
        for (i, o) in offsets.windows(2).enumerate() {
            let row = &a.0[o[0] as usize - 5..o[1] as usize - 5];
            let want = xs[o[0] as usize..o[1] as usize]
                .iter()
                .copied()
                .fold(f64::NEG_INFINITY, f64::max);
            if !row.is_empty() {
                assert_eq!(a.1[i], want, "row {i}");
                assert_eq!(row.iter().copied().fold(f64::NEG_INFINITY, f64::max), 0.0);
            }
        }
        // The public, dispatched passes agree with the blocks.
        let (mut shifted, mut maxes) = (vec![0.0; values], vec![0.0; n]);
        shift_rows(&xs, &offsets, &mut shifted, &mut maxes);
        assert_eq!(shifted, a.0);
    }
}
