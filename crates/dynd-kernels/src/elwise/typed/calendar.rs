//! The calendar parts of dates, datetimes and times of day
//! ([`CalendarPart`]), as loops the compiler vectorises: no division
//! instruction anywhere.
//!
//! A datetime's day is the floor of its ticks over the ticks of a day,
//! estimated in `f64` (within a day of the quotient for every `i64`) and
//! corrected by one exact multiply; the date of a day is Neri and
//! Schneider's Euclidean affine civil-from-days ("Euclidean affine
//! functions and their application to calendar algorithms", 2022) in
//! 32-bit arithmetic, whose divisions are by constants (multiplies and
//! shifts). That form holds for days from 12.7 million before 1970 to a
//! billion after; a run holding a day outside it (a `datetime` in seconds
//! millions of years away) is computed again with 64-bit arithmetic.

use super::*;
use dynd_types::Scalar;

/// A part of a date, time of day or datetime (pyarrow's names).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CalendarPart {
    /// The year (astronomical: 0 is 1 BC).
    Year,
    /// The month, 1 to 12.
    Month,
    /// The day of the month, 1 to 31.
    Day,
    /// The quarter, 1 to 4.
    Quarter,
    /// The day of the year, 1 to 366.
    DayOfYear,
    /// The day of the week, Monday 0 to Sunday 6.
    DayOfWeek,
    /// The ISO 8601 week-numbering year.
    IsoYear,
    /// The ISO 8601 week, 1 to 53.
    IsoWeek,
    /// Whether the year is a leap year (a `bool`).
    IsLeapYear,
    /// The hour, 0 to 23.
    Hour,
    /// The minute, 0 to 59.
    Minute,
    /// The second, 0 to 59.
    Second,
    /// The milliseconds in the second.
    Millisecond,
    /// The microseconds in the millisecond.
    Microsecond,
    /// The nanoseconds in the microsecond.
    Nanosecond,
}

impl CalendarPart {
    /// Whether this is a part of the time of day (hour to nanosecond).
    pub fn of_time(self) -> bool {
        matches!(
            self,
            CalendarPart::Hour
                | CalendarPart::Minute
                | CalendarPart::Second
                | CalendarPart::Millisecond
                | CalendarPart::Microsecond
                | CalendarPart::Nanosecond
        )
    }
}

use dynd_array::time::fast::{civil32, leap32, weekday32, DayDiv, FAST_MAX, FAST_MIN};

/// The part `p` (a date part) of the day `days`, in the fast range.
#[inline(always)]
fn date_part_fast(p: CalendarPart, days: i64) -> i64 {
    if p == CalendarPart::Year {
        return i64::from(dynd_array::time::fast::year32(days));
    }
    let (y, m, d, march_day) = civil32(days);
    match p {
        CalendarPart::Year => i64::from(y),
        CalendarPart::Month => i64::from(m),
        CalendarPart::Day => i64::from(d),
        CalendarPart::Quarter => i64::from(m.wrapping_add(2) / 3),
        CalendarPart::DayOfYear => {
            let doy = if march_day >= 306 {
                march_day.wrapping_sub(305)
            } else {
                march_day.wrapping_add(60 + u32::from(leap32(y)))
            };
            i64::from(doy)
        }
        CalendarPart::DayOfWeek => i64::from(weekday32(days)),
        CalendarPart::IsLeapYear => i64::from(leap32(y)),
        CalendarPart::IsoYear | CalendarPart::IsoWeek => {
            let thursday = days
                .wrapping_sub(i64::from(weekday32(days)))
                .wrapping_add(3);
            let (ty, _, _, tm) = civil32(thursday);
            if p == CalendarPart::IsoYear {
                return i64::from(ty);
            }
            let doy = if tm >= 306 {
                tm.wrapping_sub(305)
            } else {
                tm.wrapping_add(60 + u32::from(leap32(ty)))
            };
            i64::from(doy.wrapping_sub(1) / 7 + 1)
        }
        _ => 0,
    }
}

/// The part `p` of the day `days`, in 64-bit arithmetic (any day).
fn date_part_wide(p: CalendarPart, days: i64) -> i64 {
    use dynd_array::time::{civil_wide, days_from_civil, is_leap_year, weekday};
    let (y, m, d) = civil_wide(days);
    match p {
        CalendarPart::Year => y,
        CalendarPart::Month => i64::from(m),
        CalendarPart::Day => i64::from(d),
        CalendarPart::Quarter => (i64::from(m) + 2) / 3,
        CalendarPart::DayOfYear => days - days_from_civil(y, 1, 1) + 1,
        CalendarPart::DayOfWeek => i64::from(weekday(days)),
        CalendarPart::IsLeapYear => i64::from(is_leap_year(y)),
        CalendarPart::IsoYear | CalendarPart::IsoWeek => {
            let thursday = days - i64::from(weekday(days)) + 3;
            let ty = civil_wide(thursday).0;
            if p == CalendarPart::IsoYear {
                ty
            } else {
                (thursday - days_from_civil(ty, 1, 1)) / 7 + 1
            }
        }
        _ => 0,
    }
}

/// The part `p` of a time of day of `in_day` ticks (below a day's, so
/// below 2^47: exact in `f64`), `per` a second (`inv` its inverse,
/// `scale` the nanoseconds of a tick): the second and its fraction split
/// in `f64` without error, then 32-bit arithmetic.
#[inline(always)]
fn time_part(p: CalendarPart, in_day: i64, per: f64, inv: f64, scale: u32) -> i64 {
    let x = in_day as f64;
    let q = (x * inv).floor();
    let r = x - q * per;
    let q = q - f64::from(u8::from(r < 0.0)) + f64::from(u8::from(r >= per));
    let r = x - q * per;
    let secs = to_u32(q);
    // The fraction of the second in nanoseconds (below 10^9).
    let nanos = to_u32(r).wrapping_mul(scale);
    i64::from(match p {
        CalendarPart::Hour => secs / 3600,
        CalendarPart::Minute => secs / 60 % 60,
        CalendarPart::Second => secs % 60,
        CalendarPart::Millisecond => nanos / 1_000_000,
        CalendarPart::Microsecond => nanos / 1000 % 1000,
        _ => nanos % 1000,
    })
}

/// A non-negative `f64` below 2^32 (a second of the day, its fraction)
/// as `u32`, through the conversion the vector units have.
#[inline(always)]
fn to_u32(x: f64) -> u32 {
    dynd_array::time::fast::to_int(x) as u32
}

/// What a [`CalendarFn`] reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Input {
    /// `date`: days.
    Days,
    /// `datetime` in ticks, this many a second.
    DateTime(i64),
    /// `time` in ticks (32 or 64 bits), this many a second.
    Time { per: i64, wide: bool },
}

/// A calendar part over one input type, as a [`Family`].
#[derive(Clone, Copy)]
struct CalendarFn {
    part: CalendarPart,
    input: Input,
    scalar: Scalar,
}

/// `dst[i] = fast(a[i])` over `count` strided `T`s into `R`s in one
/// branch-free pass that also checks `in_range` of every argument; a run
/// with one out of range is written again by `slow`, reading the
/// arguments again.
///
/// # Safety
///
/// As [`Family::body`], and the destination does not overlap the
/// argument (the engine writes into a destination it made unique: no
/// argument shares its block).
#[inline(always)]
unsafe fn checked_loop<T: Copy, R: Copy>(
    fast: impl Fn(T) -> R,
    in_range: impl Fn(T) -> bool,
    slow: impl Fn(T) -> R,
    dst: *mut u8,
    ds: isize,
    a: (*const u8, isize),
    count: usize,
) {
    let size = std::mem::size_of::<T>() as isize;
    let mut all = true;
    // SAFETY: the caller's contract, forwarded (the pointers and counts);
    // each argument is read before its result is written (a call in
    // place is the same memory).
    unsafe {
        if ds == std::mem::size_of::<R>() as isize && a.1 == size {
            let (x, d) = (a.0.cast::<T>(), dst.cast::<R>());
            for i in 0..count {
                let v = x.add(i).read_unaligned();
                all &= in_range(v);
                d.add(i).write_unaligned(fast(v));
            }
        } else {
            for i in 0..count as isize {
                let v = a.0.offset(i * a.1).cast::<T>().read_unaligned();
                all &= in_range(v);
                dst.offset(i * ds).cast::<R>().write_unaligned(fast(v));
            }
        }
        if !all {
            zip_loop::<T, R>(|x, _| slow(x), dst, ds, a, a, count)
        }
    }
}

/// The day of a `date`: itself.
#[derive(Clone, Copy)]
struct Days;

impl Days {
    #[inline(always)]
    fn of(self, d: i32) -> i64 {
        i64::from(d)
    }
}

/// The day of a `datetime` ([`DayDiv`]).
#[derive(Clone, Copy)]
struct DayOf(DayDiv);

impl DayOf {
    #[inline(always)]
    fn of(self, t: i64) -> i64 {
        self.0.split(t).0
    }

    fn exact(self, t: i64) -> i64 {
        self.0.exact(t).0
    }
}

impl Days {
    fn exact(self, d: i32) -> i64 {
        i64::from(d)
    }
}

/// `$body` with `$P` the constant of the part `$p` (one arm per part,
/// so the loops in `$body` are compiled for that part alone).
macro_rules! each_part {
    ($p:expr, $P:ident => $body:expr) => {
        match $p {
            CalendarPart::Year => {
                const $P: CalendarPart = CalendarPart::Year;
                $body
            }
            CalendarPart::Month => {
                const $P: CalendarPart = CalendarPart::Month;
                $body
            }
            CalendarPart::Day => {
                const $P: CalendarPart = CalendarPart::Day;
                $body
            }
            CalendarPart::Quarter => {
                const $P: CalendarPart = CalendarPart::Quarter;
                $body
            }
            CalendarPart::DayOfYear => {
                const $P: CalendarPart = CalendarPart::DayOfYear;
                $body
            }
            CalendarPart::DayOfWeek => {
                const $P: CalendarPart = CalendarPart::DayOfWeek;
                $body
            }
            CalendarPart::IsoYear => {
                const $P: CalendarPart = CalendarPart::IsoYear;
                $body
            }
            CalendarPart::IsoWeek => {
                const $P: CalendarPart = CalendarPart::IsoWeek;
                $body
            }
            CalendarPart::IsLeapYear => {
                const $P: CalendarPart = CalendarPart::IsLeapYear;
                $body
            }
            CalendarPart::Hour => {
                const $P: CalendarPart = CalendarPart::Hour;
                $body
            }
            CalendarPart::Minute => {
                const $P: CalendarPart = CalendarPart::Minute;
                $body
            }
            CalendarPart::Second => {
                const $P: CalendarPart = CalendarPart::Second;
                $body
            }
            CalendarPart::Millisecond => {
                const $P: CalendarPart = CalendarPart::Millisecond;
                $body
            }
            CalendarPart::Microsecond => {
                const $P: CalendarPart = CalendarPart::Microsecond;
                $body
            }
            CalendarPart::Nanosecond => {
                const $P: CalendarPart = CalendarPart::Nanosecond;
                $body
            }
        }
    };
}

impl Family for CalendarFn {
    #[inline(always)]
    unsafe fn body(
        self,
        dst: *mut u8,
        ds: isize,
        a: (*const u8, isize),
        _: (*const u8, isize),
        count: usize,
    ) {
        // Each (part, input) pair its own loop, the part a constant in it.
        macro_rules! dates {
            ($t:ty, $days:expr) => {{
                let d = $days;
                let days = |x: $t| d.of(x);
                let exact = |x: $t| d.exact(x);
                each_part!(self.part, P => {
                    // SAFETY: the caller's contract, forwarded.
                    unsafe {
                        if P == CalendarPart::IsLeapYear {
                            checked_loop::<$t, bool>(
                                #[inline(always)]
                                |x| date_part_fast(P, days(x)) != 0,
                                #[inline(always)]
                                |x| (FAST_MIN..=FAST_MAX).contains(&days(x)),
                                |x| date_part_wide(P, exact(x)) != 0,
                                dst,
                                ds,
                                a,
                                count,
                            )
                        } else {
                            checked_loop::<$t, i64>(
                                #[inline(always)]
                                |x| date_part_fast(P, days(x)),
                                #[inline(always)]
                                |x| (FAST_MIN..=FAST_MAX).contains(&days(x)),
                                |x| date_part_wide(P, exact(x)),
                                dst,
                                ds,
                                a,
                                count,
                            )
                        }
                    }
                })
            }};
        }
        macro_rules! times {
            ($t:ty, $per:expr) => {{
                let per: i64 = $per;
                let day = DayDiv::new(per * 86_400);
                let (per_f, inv) = (per as f64, 1.0 / per as f64);
                let scale = (1_000_000_000 / per) as u32;
                each_part!(self.part, P => {
                    // SAFETY: the caller's contract, forwarded.
                    unsafe {
                        checked_loop::<$t, i64>(
                            #[inline(always)]
                            |x| time_part(P, day.split(i64::from(x)).1, per_f, inv, scale),
                            // The day's split is exact for every tick
                            // count but seconds past 285 million years.
                            #[inline(always)]
                            |x| day.fits(i64::from(x)),
                            |x| time_part(P, day.exact(i64::from(x)).1, per_f, inv, scale),
                            dst,
                            ds,
                            a,
                            count,
                        )
                    }
                })
            }};
        }
        match self.input {
            Input::Days => dates!(i32, Days),
            Input::DateTime(per) if !self.part.of_time() => {
                dates!(i64, DayOf(DayDiv::new(per * 86_400)))
            }
            Input::DateTime(per) => times!(i64, per),
            Input::Time { per, wide: true } => times!(i64, per),
            Input::Time { per, wide: false } => times!(i32, per),
        }
    }

    fn describe(self, _: usize) -> String {
        format!("{:?} ({})", self.part, self.scalar)
    }
}

/// Ticks rounded down to a multiple of `step` counted from `origin`
/// (`floor_temporal` over a fixed unit), as a [`Family`].
#[derive(Clone, Copy)]
struct FloorFn {
    step: DayDiv,
    origin: i64,
    scalar: Scalar,
}

impl Family for FloorFn {
    #[inline(always)]
    unsafe fn body(
        self,
        dst: *mut u8,
        ds: isize,
        a: (*const u8, isize),
        _: (*const u8, isize),
        count: usize,
    ) {
        let (step, origin) = (self.step, self.origin);
        // SAFETY: the caller's contract, forwarded.
        unsafe {
            checked_loop::<i64, i64>(
                #[inline(always)]
                |t| t - step.split(t.wrapping_sub(origin)).1,
                #[inline(always)]
                |t| step.fits(t.wrapping_sub(origin)),
                |t| t - step.exact(t.wrapping_sub(origin)).1,
                dst,
                ds,
                a,
                count,
            )
        }
    }

    fn describe(self, _: usize) -> String {
        format!("floor to {} ticks ({})", self.step.per_day(), self.scalar)
    }
}

impl Leaf {
    /// The leaf rounding each `int64`-stored time of type `input` down to
    /// a multiple of `step` ticks counted from `origin`, its loops
    /// compiled per instruction set. The caller makes sure no result is
    /// below `i64::MIN` (an input at least `step + |origin|` above it).
    ///
    /// ```
    /// use dynd::func::{Callable, Leaf, Overload};
    /// use dynd::nd::Array;
    /// use dynd::ndt::Scalar;
    ///
    /// let day = Leaf::floor_ticks(Scalar::DateTimeS, 86_400, 0).unwrap();
    /// let day = Callable::new("day_start", vec![Overload::new(day)])?;
    /// let t = Array::from_json(r#"["2024-02-29T23:59:59", "1969-12-31T00:00:01"]"#, Some(&"2 * datetime[unit=\"s\"]".parse()?))?;
    /// assert_eq!(day.call(&[&t])?.to_string(), r#"["2024-02-29T00:00:00", "1969-12-31T00:00:00"]"#);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn floor_ticks(input: Scalar, step: i64, origin: i64) -> Option<Leaf> {
        if input.storage() != Scalar::Int64 || step < 1 {
            return None;
        }
        let f = FloorFn {
            step: DayDiv::new(step),
            origin,
            scalar: input,
        };
        Some(Leaf::dispatched(f, 1, input, input))
    }

    /// The leaf of the calendar part `part` of the time type `input`
    /// (`date` or `datetime` for the date parts, `datetime` or `time` for
    /// the parts of the day; `None` for other pairs): `int64` results
    /// (`bool` for [`CalendarPart::IsLeapYear`]), its loops compiled for
    /// AVX2 and AVX-512 and chosen at run time.
    ///
    /// ```
    /// use dynd::func::{CalendarPart, Callable, Leaf, Overload};
    /// use dynd::nd::Array;
    /// use dynd::ndt::Scalar;
    ///
    /// let year = Leaf::calendar(CalendarPart::Year, Scalar::DateTimeS).unwrap();
    /// let year = Callable::new("year", vec![Overload::new(year)])?;
    /// let t = Array::from_json(r#"["2024-02-29T23:59:59", "1969-12-31T00:00:00"]"#, Some(&"2 * datetime[unit=\"s\"]".parse()?))?;
    /// assert_eq!(year.call(&[&t])?.to_string(), "[2024, 1969]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn calendar(part: CalendarPart, input: Scalar) -> Option<Leaf> {
        use dynd_types::Temporal;
        let how = match (input.temporal()?, part.of_time()) {
            (Temporal::Date, false) => Input::Days,
            (Temporal::DateTime(u), _) => Input::DateTime(u.per_second()),
            (Temporal::Time(u), true) => Input::Time {
                per: u.per_second(),
                wide: input.size() == 8,
            },
            _ => return None,
        };
        let output = if part == CalendarPart::IsLeapYear {
            Scalar::Bool
        } else {
            Scalar::Int64
        };
        let f = CalendarFn {
            part,
            input: how,
            scalar: input,
        };
        Some(Leaf::dispatched(f, 1, input, output))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dynd_array::time::fast::floor_div;

    /// The 32-bit form agrees with the 64-bit one over its whole range
    /// (sampled) and at its ends, and the `f64` floor division is exact
    /// at every unit's extremes.
    #[test]
    fn fast_and_wide_agree() {
        let parts = [
            CalendarPart::Year,
            CalendarPart::Month,
            CalendarPart::Day,
            CalendarPart::Quarter,
            CalendarPart::DayOfYear,
            CalendarPart::DayOfWeek,
            CalendarPart::IsoYear,
            CalendarPart::IsoWeek,
            CalendarPart::IsLeapYear,
        ];
        let mut days: Vec<i64> = (-1_000_000..1_000_000).step_by(7).collect();
        days.extend([
            FAST_MIN,
            FAST_MIN + 1,
            FAST_MAX,
            FAST_MAX - 1,
            0,
            -1,
            59,
            60,
            -719_528,
        ]);
        days.extend((FAST_MIN..FAST_MAX).step_by(104_729));
        for &d in &days {
            for &p in &parts {
                assert_eq!(
                    date_part_fast(p, d),
                    date_part_wide(p, d),
                    "{p:?} of day {d}"
                );
            }
        }
        for per in [86_400i64, 86_400_000, 86_400_000_000, 86_400_000_000_000] {
            let inv = 1.0 / per as f64;
            for t in [
                i64::MIN,
                i64::MIN + 1,
                i64::MAX,
                i64::MAX - 1,
                0,
                -1,
                1,
                per,
                per - 1,
                -per,
                -per - 1,
                -per + 1,
            ] {
                assert_eq!(floor_div(t, per, inv), t.div_euclid(per), "{t} / {per}");
            }
            let mut s = 0x9e37_79b9_7f4a_7c15u64;
            for _ in 0..100_000 {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let t = s as i64;
                assert_eq!(floor_div(t, per, inv), t.div_euclid(per), "{t} / {per}");
                let near = t.div_euclid(per) * per;
                for t in [near, near - 1, near + 1] {
                    assert_eq!(floor_div(t, per, inv), t.div_euclid(per), "{t} / {per}");
                }
            }
        }
    }
}
