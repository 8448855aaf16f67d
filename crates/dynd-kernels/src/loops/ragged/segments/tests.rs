use super::*;

/// The strict chain check agrees with the row-by-row one wherever it
/// says yes, and says yes for every layout made from offsets, over
/// random pairs: chained, with gaps, with empty rows that start
/// anywhere, with one length changed, from a start past 0.
#[test]
fn the_chain_check_implies_the_row_check() {
    let mut seed = 0x1234_5678_9abc_def1u64;
    let mut next = move |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let (mut chained_yes, mut loose_only) = (0, 0);
    for case in 0..4000 {
        let rows = next(40) as usize;
        let base = next(3) as i64 * 8;
        let mut pairs: [Vec<u64>; 2] = [Vec::new(), Vec::new()];
        let mut at = [base, base + 8 * next(5) as i64];
        let first = at;
        let mut count = 0usize;
        for _ in 0..rows {
            let len = next(6);
            for (k, p) in pairs.iter_mut().enumerate() {
                let mut l = len;
                let mut start = at[k];
                match next(20) {
                    0 if k == 1 => l += 1,
                    1 => start += 8,
                    2 if len == 0 => start = next(1000) as i64 * 8,
                    _ => {}
                }
                p.push(start as u64);
                p.push(l);
                at[k] = start + 8 * l as i64;
            }
            count += len as usize;
        }
        let src = |k: usize| {
            (
                pairs[k].as_ptr().cast::<u8>(),
                PAIR_SIZE as isize,
                first[k] as isize,
                8isize,
            )
        };
        for v in [1usize, 2] {
            // SAFETY: `rows` pairs of each source, readable.
            let (strict, loose) = unsafe {
                if v == 1 {
                    let s = [src(0)];
                    (
                        chained::<1>(s, 0..rows, count),
                        loose_rows::<1>(s, 0..rows, count),
                    )
                } else {
                    let s = [src(0), src(1)];
                    (
                        chained::<2>(s, 0..rows, count),
                        loose_rows::<2>(s, 0..rows, count),
                    )
                }
            };
            assert!(!strict || loose, "case {case}, {v} sources: {pairs:?}");
            chained_yes += usize::from(strict);
            loose_only += usize::from(loose && !strict);
        }
    }
    // Both answers are exercised.
    assert!(
        chained_yes > 500 && loose_only > 20,
        "{chained_yes} chained, {loose_only} loose only"
    );
}
