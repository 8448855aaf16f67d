//! The calendar in branch-free arithmetic for loops the compiler
//! vectorises: no division instruction (the divisions are by constants,
//! or estimated in `f64` and corrected).
//!
//! A tick count's day is the floor of the ticks over the ticks of a day
//! ([`floor_div`]); the date of a day is Neri and Schneider's Euclidean
//! affine civil-from-days ("Euclidean affine functions and their
//! application to calendar algorithms", 2022) in 32-bit arithmetic
//! ([`civil32`]), which holds for the days from [`FAST_MIN`] to
//! [`FAST_MAX`] (12.7 million days before 1970 to a billion after);
//! callers check the range and use [`civil_from_days`](super::civil_from_days)
//! outside it.

/// `floor(t / per)` for `per > 0` given `inv = 1 / per`: the `f64`
/// quotient floored, then corrected by one either way. Exact where the
/// estimate is within one of the quotient: for every `i64` when `per` is
/// the ticks of a day (86 400 or more), and for `|t| < 2^52` with any
/// `per`.
#[inline(always)]
pub fn floor_div(t: i64, per: i64, inv: f64) -> i64 {
    let x = t as f64 * inv;
    let q = to_int(x);
    let q = q - i64::from((q as f64) > x);
    let r = t.wrapping_sub(q.wrapping_mul(per));
    q + i64::from(r >= per) - i64::from(r < 0)
}

/// `x` toward zero as an integer, `x` a finite value clamped into ±2^62
/// first: the conversion the vector units have (`as` adds the saturation
/// and NaN checks that keep a loop scalar).
#[inline(always)]
pub fn to_int(x: f64) -> i64 {
    const LIMIT: f64 = (1u64 << 62) as f64;
    // `max` then `min` make a NaN (which no caller has) the lower bound;
    // `clamp` would keep it a NaN, which the conversion must not see.
    #[allow(clippy::manual_clamp)]
    let x = x.max(-LIMIT).min(LIMIT);
    // SAFETY: `x` is finite and within ±2^62 (clamped above), so its
    // integer part fits `i64`: the condition `to_int_unchecked` asks.
    unsafe { x.to_int_unchecked::<i64>() }
}

/// Neri–Schneider's shift: 82 cycles of 400 years, so that every day of
/// the fast range is positive.
const SHIFT: u32 = 82;
const K: u32 = 719_468 + 146_097 * SHIFT;
const L: u32 = 400 * SHIFT;
/// The days the 32-bit form holds (the `4 n + 3` below fits `u32`),
/// less a week each side (the ISO parts read the week's Thursday).
pub const FAST_MIN: i64 = -(K as i64) + 7;
pub const FAST_MAX: i64 = (1 << 30) - 1 - K as i64 - 7;

/// A day's date in 32-bit arithmetic: (year, month 1-12, day 1-31, day
/// of the year counted from March 1st), for `days` in the fast range.
#[inline(always)]
pub fn civil32(days: i64) -> (i32, u32, u32, u32) {
    // Wrapping: a day out of the range gives a wrong date, never a
    // panic (the caller computes it again then).
    let n = (days as u32).wrapping_add(K);
    let n1 = n.wrapping_mul(4).wrapping_add(3);
    let c = n1 / 146_097;
    let n2 = n1.wrapping_sub(c.wrapping_mul(146_097)) | 3;
    let p2 = 2_939_745u64 * u64::from(n2);
    let z = (p2 >> 32) as u32;
    let march_day = (p2 as u32) / 11_758_980;
    let jan_feb = march_day >= 306;
    let year = (c.wrapping_mul(100).wrapping_add(z) as i32)
        .wrapping_sub(L as i32)
        .wrapping_add(i32::from(jan_feb));
    let n4 = march_day.wrapping_mul(2141).wrapping_add(197_913);
    let month = (n4 >> 16).wrapping_sub(if jan_feb { 12 } else { 0 });
    let day = (n4 & 0xffff) / 2141 + 1;
    (year, month, day, march_day)
}

/// The year alone of [`civil32`]: its day of the year compared, not
/// divided out.
#[inline(always)]
pub fn year32(days: i64) -> i32 {
    let n = (days as u32).wrapping_add(K);
    let n1 = n.wrapping_mul(4).wrapping_add(3);
    let c = n1 / 146_097;
    let n2 = n1.wrapping_sub(c.wrapping_mul(146_097)) | 3;
    let p2 = 2_939_745u64 * u64::from(n2);
    let z = (p2 >> 32) as u32;
    // `(p2 as u32) / 11_758_980 >= 306`: January or February.
    let jan_feb = (p2 as u32) >= 306 * 11_758_980;
    (c.wrapping_mul(100).wrapping_add(z) as i32)
        .wrapping_sub(L as i32)
        .wrapping_add(i32::from(jan_feb))
}

#[inline(always)]
pub fn leap32(y: i32) -> bool {
    // y % 4 == 0 && (y % 100 != 0 || y % 400 == 0), on a shifted
    // non-negative year.
    let y = y.wrapping_add(400 * 1_000_000) as u32;
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

/// The weekday of `days` (Monday 0), in 32-bit arithmetic.
#[inline(always)]
pub fn weekday32(days: i64) -> u32 {
    // 1970-01-01 was a Thursday; the shift is a multiple of 7 past K.
    ((days as u32).wrapping_add(3 + 7 * 2_000_000)) % 7
}

/// Floor division of ticks by the ticks of a day in `f64` with no
/// rounding error: the ticks are shifted right by the day's power of two
/// (exact in `f64` below 2^53: every datetime in milli-, micro- and
/// nanoseconds, and in seconds within 285 million years of 1970), the
/// quotient by the day's odd factor estimated and corrected exactly (the
/// products stay below 2^53).
#[derive(Clone, Copy, Debug)]
pub struct DayDiv {
    shift: u32,
    odd: f64,
    inv: f64,
    per_day: i64,
}

impl DayDiv {
    /// The division by `per_day` (at least 1).
    pub fn new(per_day: i64) -> DayDiv {
        let shift = per_day.trailing_zeros();
        let odd = (per_day >> shift) as f64;
        DayDiv {
            shift,
            odd,
            inv: 1.0 / odd,
            per_day,
        }
    }

    /// The ticks of a day.
    pub fn per_day(self) -> i64 {
        self.per_day
    }

    /// `(floor(t / per_day), t - that * per_day)`, exact where `t >>
    /// shift` is below 2^53 in magnitude (else [`DayDiv::exact`]).
    #[inline(always)]
    pub fn split(self, t: i64) -> (i64, i64) {
        let s = (t >> self.shift) as f64;
        let q = (s * self.inv).floor();
        let r = s - q * self.odd;
        let q = q - f64::from(u8::from(r < 0.0)) + f64::from(u8::from(r >= self.odd));
        let r = s - q * self.odd;
        let low = t & ((1i64 << self.shift) - 1);
        (to_int(q), (to_int(r) << self.shift) | low)
    }

    /// Whether [`DayDiv::split`] is exact for `t`.
    #[inline(always)]
    pub fn fits(self, t: i64) -> bool {
        (t >> self.shift).unsigned_abs() < 1 << 53
    }

    /// [`DayDiv::split`] for any `t`, with integer division.
    #[inline]
    pub fn exact(self, t: i64) -> (i64, i64) {
        (t.div_euclid(self.per_day), t.rem_euclid(self.per_day))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn day_division_is_exact() {
        for per_sec in [1i64, 1_000, 1_000_000, 1_000_000_000] {
            let d = DayDiv::new(86_400 * per_sec);
            let mut s = 0x9e37_79b9_7f4a_7c15u64;
            let limit = if per_sec == 1 { 1i64 << 59 } else { i64::MAX };
            let check = |t: i64| {
                if t.unsigned_abs() < limit as u64 {
                    assert_eq!(d.split(t), d.exact(t), "{t} in ticks of 1/{per_sec} s");
                }
            };
            for t in [
                0,
                -1,
                1,
                i64::MAX,
                i64::MIN + 1,
                86_400 * per_sec,
                -86_400 * per_sec,
            ] {
                check(t);
            }
            for _ in 0..200_000 {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let t = s as i64;
                check(t);
                let near = t.div_euclid(d.per_day) * d.per_day;
                for t in [near, near.wrapping_sub(1), near.wrapping_add(1)] {
                    check(t);
                }
            }
        }
    }
}
