//! Payne and Hanek's reduction for the arguments past [`super::LIMIT`]:
//! `|x| = (q + f) pi/2` with `f` read off the exact product of `x`'s
//! integer significand and the bits of `2/pi`, so that even the doubles
//! nearest a multiple of `pi/2` (about `2^-61` from one, after Kahan and
//! McDonald) keep every significant bit of their small remainder.

use crate::ops::*;

/// The bits of `2/pi` after the binary point, most significant first:
/// `floor(2/pi * 2^1280)` in 64-bit words (from Machin's formula for
/// `pi`, computed with exact integers). A double's exponent is at most
/// 971 past its significand's last bit, so the product's bits that matter
/// (two above the binary point, 190 below) lie inside these 1280.
const TWO_OVER_PI: [u64; 20] = [
    0xa2f9_836e_4e44_1529,
    0xfc27_57d1_f534_ddc0,
    0xdb62_9599_3c43_9041,
    0xfe51_63ab_debb_c561,
    0xb724_6e3a_424d_d2e0,
    0x0649_2eea_09d1_921c,
    0xfe1d_eb1c_b129_a73e,
    0xe882_35f5_2ebb_4484,
    0xe99c_7026_b45f_7e41,
    0x3991_d639_8353_39f4,
    0x9c84_5f8b_bdf9_283b,
    0x1ff8_97ff_de05_980f,
    0xef2f_118b_5a0a_6d1f,
    0x6d36_7ecf_27cb_09b7,
    0x4f46_3f66_9e5f_ea2d,
    0x7527_bac7_ebe5_f17b,
    0x3d07_39f7_8a52_92ea,
    0x6bfb_5fb1_1f8d_5d08,
    0x5603_3046_fc7b_6bab,
    0xf0cf_bc20_9af4_361d,
];

/// `pi/2` as a double-double.
const PIO2_HI: f64 = f64::from_bits(0x3ff9_21fb_5444_2d18);
const PIO2_LO: f64 = f64::from_bits(0x3c91_a626_3314_5c07);

/// `x = q pi/2 + (r + rr)` with `|r + rr| <= pi/4`, `q` modulo 4, for a
/// finite normal `x` (the callers pass `|x| > LIMIT`). `r + rr` carries
/// about 120 significant bits of the remainder, whatever its size.
pub(crate) fn reduce(x: f64) -> (u64, f64, f64) {
    const N: usize = TWO_OVER_PI.len();
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i64;
    debug_assert!(biased > 0 && biased < 0x7ff, "a normal, finite argument");
    // |x| = m 2^e with an integer significand m < 2^53.
    let m = (bits & ((1 << 52) - 1)) | (1 << 52);
    let e = biased - 1075;
    // The exact product m * floor(2/pi 2^(64N)), little-endian words: its
    // binary point is at bit `64N - e` (what the table leaves out moves
    // the product by less than m, 2^53 units of its last bit, far below
    // the 190 fraction bits kept).
    let mut p = [0u64; N + 1];
    let mut carry = 0u128;
    for (k, word) in TWO_OVER_PI.iter().rev().enumerate() {
        let v = u128::from(m) * u128::from(*word) + carry;
        p[k] = v as u64;
        carry = v >> 64;
    }
    p[N] = carry as u64;
    let point = 64 * N as i64 - e;
    // The 64 bits of the product from bit `at` up (`at >= 0`: the point
    // is at least 1280 - 971 = 309).
    let word_at = |at: i64| -> u64 {
        let (k, shift) = ((at / 64) as usize, (at % 64) as u32);
        let lo = p.get(k).copied().unwrap_or(0);
        let hi = p.get(k + 1).copied().unwrap_or(0);
        if shift == 0 {
            lo
        } else {
            (lo >> shift) | (hi << (64 - shift))
        }
    };
    // Two integer bits (q mod 4), then 190 bits of the fraction f.
    let w0 = word_at(point - 62);
    let (w1, w2) = (word_at(point - 126), word_at(point - 190));
    let mut q = w0 >> 62;
    let mut frac = [w0 & ((1 << 62) - 1), w1, w2];
    // Rounded to the nearest multiple: past a half, 1 - f below the next.
    let negative = frac[0] >> 61 == 1;
    if negative {
        q += 1;
        // 1 - f, to the last of the 190 bits kept (the complement is
        // 2^-190 short: far below the remainder's own last bit).
        frac = [!frac[0] & ((1 << 62) - 1), !frac[1], !frac[2]];
    }
    let (r, rr) = to_radians(frac);
    let (r, rr) = if negative { (-r, -rr) } else { (r, rr) };
    // x = -|x| turns the other way.
    if x < 0.0 {
        (q.wrapping_neg() & 3, -r, -rr)
    } else {
        (q & 3, r, rr)
    }
}

/// `f pi/2` as a double-double, for `f = V 2^-190` with `V` the 192-bit
/// integer `v` (most significant word first).
fn to_radians(v: [u64; 3]) -> (f64, f64) {
    let lead = match v {
        [0, 0, 0] => return (0.0, 0.0),
        [0, 0, c] => 128 + c.leading_zeros(),
        [0, b, _] => 64 + b.leading_zeros(),
        [a, _, _] => a.leading_zeros(),
    };
    // The leading 128 bits of `V << lead`.
    let (hi, lo) = ((u128::from(v[0]) << 64) | u128::from(v[1]), v[2]);
    let top = match lead {
        0 => hi,
        1..=63 => (hi << lead) | u128::from(lo >> (64 - lead)),
        64..=127 => ((hi << 64) | u128::from(lo)) << (lead - 64),
        _ => u128::from(lo) << (lead - 64),
    };
    // f = top 2^(64 - lead - 190): its leading 53 bits, and the rest.
    let head = (top >> 75) as u64;
    let rest = top & ((1 << 75) - 1);
    let scale = pow2(-126 - lead as i32);
    let (fh, fl) = fast_two_sum(head as f64 * pow2(75) * scale, rest as f64 * scale);
    let (rh, rl) = two_prod::<false>(fh, PIO2_HI);
    fast_two_sum(rh, rl + (fh * PIO2_LO + fl * PIO2_HI))
}

/// `2^k` for `-1022 <= k <= 1023`.
fn pow2(k: i32) -> f64 {
    f64::from_bits(((1023 + k) as u64) << 52)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the Cody-Waite reduction still holds, both give the same
    /// quadrant and remainder (a check of the table's alignment and the
    /// bit extraction).
    #[test]
    fn agrees_with_the_short_reduction_where_both_hold() {
        for x in [1.6e6, -1_048_576.5, 1_234_567.0, 1e6, -33.0, 0.9, 100.0] {
            let (q, r, rr) = reduce(x);
            let k = (x * INV_PIO2).round();
            let a = x - k * PIO2_1;
            let (r1, e1) = two_sum(a, -(k * PIO2_2));
            let (r2, e2) = two_sum(r1, -(k * PIO2_3));
            let tail = (e1 + e2) - k * PIO2_4;
            let (want, want_l) = fast_two_sum(r2, tail);
            assert_eq!(q, (k as i64 & 3) as u64, "{x}");
            assert!(
                ((r - want) + (rr - want_l)).abs() <= 1e-30 * want.abs(),
                "{x}: {r} + {rr}, want {want} + {want_l}"
            );
        }
    }
}
