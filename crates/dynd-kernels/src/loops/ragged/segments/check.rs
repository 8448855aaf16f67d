//! The row checks of a unit: equal lengths in every source, each row
//! starting where the last ended.

use super::*;

/// Whether the rows `range` of `V` sources (row 0's pair, step, the
/// expected start of the first non-empty row, element size) have equal
/// lengths and lie end to end from the expected starts, `count` elements
/// in all.
///
/// # Safety
///
/// Each source's pairs for `range` are readable.
#[inline]
pub(super) unsafe fn verify_rows<const V: usize>(
    src: [(*const u8, isize, isize, isize); V],
    range: std::ops::Range<usize>,
    count: usize,
) -> bool {
    // SAFETY: forwarded.
    unsafe { chained_best::<V>(src, range.clone(), count) || loose_rows(src, range, count) }
}

/// [`verify_rows`] row by row, for any layout: empty rows may start
/// anywhere.
///
/// # Safety
///
/// As [`verify_rows`].
pub(super) unsafe fn loose_rows<const V: usize>(
    src: [(*const u8, isize, isize, isize); V],
    range: std::ops::Range<usize>,
    count: usize,
) -> bool {
    let mut next: [isize; V] = std::array::from_fn(|k| src[k].2);
    let mut ptr: [*const u8; V] =
        std::array::from_fn(|k| src[k].0.wrapping_offset(range.start as isize * src[k].1));
    let mut ok = true;
    let mut seen = 0usize;
    for _ in range {
        let mut pair = [(0isize, 0usize); V];
        for k in 0..V {
            // SAFETY: this row's pair, by the contract.
            pair[k] = unsafe { pair_at(ptr[k]) };
            ptr[k] = ptr[k].wrapping_offset(src[k].1);
        }
        let len = pair[0].1;
        for p in &pair[1..] {
            ok &= p.1 == len;
        }
        if len == 0 {
            continue;
        }
        for k in 0..V {
            ok &= pair[k].0 == next[k];
            next[k] = pair[k]
                .0
                .wrapping_add((len as isize).wrapping_mul(src[k].3));
        }
        seen = seen.wrapping_add(len);
        if !ok || seen > count {
            return false;
        }
    }
    ok && seen == count
}

/// The common layout checked without a branch per row, so that it
/// vectorises: pairs 16 bytes apart, elements of a power-of-two size, and
/// every row (empty ones too) starting exactly where the row before it
/// ends, the first at the expected start (as rows made from offsets, from
/// nested data or by an earlier result are). Each row is compared with the
/// row before it, not with a running position, so there is no dependency
/// from row to row. When this holds, the rows satisfy [`verify_rows`]
/// (which also takes empty rows that start anywhere); `false` says only
/// that this check does not apply or does not hold.
///
/// The sums cannot wrap: every row of a validated array lies inside its
/// values block (less than `isize::MAX` bytes), so a start equal to the
/// previous row's end modulo 2^64 equals it outright.
///
/// # Safety
///
/// As [`verify_rows`].
#[inline(always)]
pub(super) unsafe fn chained<const V: usize>(
    src: [(*const u8, isize, isize, isize); V],
    range: std::ops::Range<usize>,
    count: usize,
) -> bool {
    if range.is_empty() {
        return count == 0;
    }
    let mut shift = [0u32; V];
    for k in 0..V {
        let size = src[k].3;
        if src[k].1 != PAIR_SIZE as isize || size <= 0 || !(size as usize).is_power_of_two() {
            return false;
        }
        shift[k] = size.trailing_zeros();
    }
    let pairs: [*const [u64; 2]; V] = std::array::from_fn(|k| {
        src[k]
            .0
            .wrapping_offset(range.start as isize * PAIR_SIZE as isize)
            .cast()
    });
    let rows = range.len();
    let at = |k: usize, r: usize| {
        // SAFETY: pairs `0..rows` of each source are this range's,
        // readable by the contract (`r < rows` at every use below); a pair
        // is two u64s, read unaligned.
        unsafe { pairs[k].add(r).read_unaligned() }
    };
    let mut ok = true;
    for (k, src) in src.iter().enumerate() {
        ok &= at(k, 0)[0] as i64 as isize == src.2;
    }
    for r in 1..rows {
        let len = at(0, r)[1];
        for (k, shift) in shift.iter().enumerate() {
            let [ps, pl] = at(k, r - 1);
            let [s, l] = at(k, r);
            ok &= s == ps.wrapping_add(pl << shift);
            ok &= l == len;
        }
    }
    let len0 = at(0, 0)[1];
    for k in 1..V {
        ok &= at(k, 0)[1] == len0;
    }
    let [ls, ll] = at(0, rows - 1);
    let end = ls.wrapping_add(ll << shift[0]);
    let expected = (src[0].2 as u64).wrapping_add((count as u64) << shift[0]);
    ok && end == expected && count as u64 <= (u64::MAX >> shift[0])
}

/// [`chained`] compiled for the CPU it runs on ([`crate::isa::best!`]:
/// four pairs a step on AVX2); the same answer on every set.
///
/// # Safety
///
/// As [`verify_rows`].
pub(super) unsafe fn chained_best<const V: usize>(
    src: [(*const u8, isize, isize, isize); V],
    range: std::ops::Range<usize>,
    count: usize,
) -> bool {
    // SAFETY: `Isa::active`'s set, which the CPU has; the rest forwarded.
    crate::isa::best!(unsafe { chained::<V>(src, range, count) })
}
