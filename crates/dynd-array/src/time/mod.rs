//! Dates and times: the proleptic Gregorian calendar, ISO 8601 text, time
//! zones, and the Rust element types [`Date`], [`Time`], [`DateTime`] and
//! [`TimeDelta`].
//!
//! The time types are integers laid out as Arrow lays them out: a `date`
//! counts days since 1970-01-01 (`int32`, Arrow's `Date32`); a `time`
//! counts its unit since midnight (`int32` in seconds or milliseconds,
//! `int64` in micro- or nanoseconds: `Time32`/`Time64`); a `datetime`
//! counts its unit since the Unix epoch (`int64`, `Timestamp`), naive (a
//! wall time) or, as `datetime[tz="…"]`, instants read in a zone; a
//! `timedelta` counts its unit (`int64`, `Duration`). Years are
//! astronomical (year 0 is 1 BC) and the calendar is Gregorian before
//! 1582 too, as in ISO 8601, NumPy and Arrow.
//!
//! Text is ISO 8601: `2024-02-29`, `2024-02-29T13:45:00.250` (a space
//! instead of the `T` is read too), `13:45:00`; a datetime prints with as
//! many fraction digits as its unit has (NumPy's `datetime_as_string`), a
//! zoned one as its UTC instant with `Z` (as Arrow prints one). Text for a
//! zoned type may end with `Z` or an offset (`+01:00`); without one it is
//! a wall time in the zone. A year outside 0000..=9999 has a sign
//! (`-0044-03-15`, `+10000-01-01`).
//!
//! ```
//! use dynd::nd::{Array, Date, DateTime};
//!
//! let d = Array::from_json(r#"["2024-02-29", "1969-12-31", null]"#, Some(&"3 * ?date".parse()?))?;
//! assert_eq!(d.to_string(), r#"["2024-02-29", "1969-12-31", null]"#);
//! let t = Array::from_vec(vec![DateTime::<dynd::nd::Ms>::from_ticks(1_700_000_000_123)]);
//! assert_eq!(t.ty().to_string(), r#"1 * datetime[unit="ms"]"#);
//! assert_eq!(t.to_string(), r#"["2023-11-14T22:13:20.123"]"#);
//! assert_eq!(Date::from_ymd(2023, 2, 29), None);
//! # Ok::<(), dynd::Error>(())
//! ```

#[doc(hidden)]
pub mod fast;
pub mod format;
pub mod interop;
pub mod zone;

use std::fmt;
use std::marker::PhantomData;

use dynd_types::{Scalar, Temporal, TimeUnit};

use crate::element::Element;

/// Seconds in a day.
pub const DAY_SECONDS: i64 = 86_400;

/// Whether `year` is a leap year of the Gregorian calendar.
#[inline]
pub fn is_leap_year(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

/// The days of `month` (1 to 12) of `year`.
#[inline]
pub fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap_year(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of the date `year-month-day` (month 1 to 12, day
/// 1 to 31; not checked: see [`Date::from_ymd`]). Counted in eras of 400
/// years (146 097 days), each starting on a March 1st so that the leap
/// day ends its year.
#[inline]
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400; // 0..=399
    let m = i64::from(month);
    let day_of_year = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The date (year, month 1 to 12, day 1 to 31) `days` after 1970-01-01:
/// the inverse of [`days_from_civil`].
#[inline]
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    if (fast::FAST_MIN..=fast::FAST_MAX).contains(&days) {
        let (y, m, d, _) = fast::civil32(days);
        return (i64::from(y), m, d);
    }
    civil_wide(days)
}

/// [`civil_from_days`] for any day, in 64-bit arithmetic (Hinnant's
/// civil-from-days).
#[inline]
pub fn civil_wide(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468; // days since 0000-03-01
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097; // 0..=146_096
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let mp = (5 * day_of_year + 2) / 153; // 0 = March
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// The day of the week of `days` since 1970-01-01 (a Thursday): Monday 0
/// to Sunday 6, as pyarrow's `day_of_week`.
#[inline]
pub fn weekday(days: i64) -> u32 {
    (days + 3).rem_euclid(7) as u32
}

/// Why text is not a date or time: the reason, for the error that names
/// the element.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimeTextError(pub String);

impl fmt::Display for TimeTextError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

fn fail<T>(why: impl Into<String>) -> Result<T, TimeTextError> {
    Err(TimeTextError(why.into()))
}

/// A cursor over ISO 8601 text.
struct Cursor<'a> {
    s: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.at).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// Exactly `n` digits.
    fn digits(&mut self, n: usize, what: &str) -> Result<u32, TimeTextError> {
        let mut v = 0u32;
        for _ in 0..n {
            match self.peek() {
                Some(c @ b'0'..=b'9') => {
                    v = v * 10 + u32::from(c - b'0');
                    self.at += 1;
                }
                _ => return fail(format!("expected {n} digits of the {what}")),
            }
        }
        Ok(v)
    }

    fn done(&self) -> bool {
        self.at == self.s.len()
    }
}

/// The date at the cursor: `[±]YYYY-MM-DD` (four digits or more after a
/// sign), checked against the calendar; days since 1970-01-01.
fn date_at(c: &mut Cursor<'_>) -> Result<i64, TimeTextError> {
    let negative = c.eat(b'-');
    let signed = negative || c.eat(b'+');
    let start = c.at;
    let mut year: i64 = 0;
    while let Some(d @ b'0'..=b'9') = c.peek() {
        year = year * 10 + i64::from(d - b'0');
        c.at += 1;
        if c.at - start > 9 {
            return fail("the year has more than 9 digits");
        }
    }
    let n = c.at - start;
    if n < 4 || (signed && n == 0) {
        return fail("expected a year of 4 digits or more (-0044, 2024, +10000)");
    }
    if negative {
        year = -year;
    }
    if !c.eat(b'-') {
        return fail("expected '-' after the year");
    }
    let month = c.digits(2, "month")?;
    if !c.eat(b'-') {
        return fail("expected '-' after the month");
    }
    let day = c.digits(2, "day")?;
    if !(1..=12).contains(&month) {
        return fail(format!("month {month} is not 1 to 12"));
    }
    let last = days_in_month(year, month);
    if day == 0 || day > last {
        return fail(format!(
            "{} {year} has {last} days",
            format::MONTHS[month as usize - 1]
        ));
    }
    Ok(days_from_civil(year, month, day))
}

/// The time of day at the cursor, `HH:MM[:SS[.fff…]]`, in ticks of
/// `unit` since midnight; more fraction digits than the unit holds are
/// an error unless they are zeros.
fn time_at(c: &mut Cursor<'_>, unit: TimeUnit) -> Result<i64, TimeTextError> {
    let hour = c.digits(2, "hour")?;
    if !c.eat(b':') {
        return fail("expected ':' after the hour");
    }
    let minute = c.digits(2, "minute")?;
    let mut second = 0;
    let mut fraction: i64 = 0;
    if c.eat(b':') {
        second = c.digits(2, "second")?;
        if c.eat(b'.') || c.eat(b',') {
            let digits = unit.digits() as usize;
            let start = c.at;
            while let Some(d @ b'0'..=b'9') = c.peek() {
                let k = c.at - start;
                if k < digits {
                    fraction = fraction * 10 + i64::from(d - b'0');
                } else if d != b'0' {
                    return fail(format!(
                        "the fraction of a second has more digits than the unit \"{}\" holds ({digits})",
                        unit.name()
                    ));
                }
                c.at += 1;
            }
            let k = c.at - start;
            if k == 0 {
                return fail("expected digits after the decimal point");
            }
            for _ in k..digits {
                fraction *= 10;
            }
        }
    }
    if hour > 23 || minute > 59 || second > 59 {
        return fail(format!(
            "{hour:02}:{minute:02}:{second:02} is not a time of day (00:00:00 to 23:59:59)"
        ));
    }
    let seconds = i64::from(hour * 3600 + minute * 60 + second);
    Ok(seconds * unit.per_second() + fraction)
}

/// Reads a whole ISO 8601 date (`2024-02-29`): days since 1970-01-01.
///
/// # Errors
///
/// Text that is not a date, or a date that does not exist (`2023-02-29`).
pub fn parse_date(text: &str) -> Result<i64, TimeTextError> {
    let mut c = Cursor {
        s: text.trim().as_bytes(),
        at: 0,
    };
    let days = date_at(&mut c)?;
    if !c.done() {
        return fail("unexpected text after the date");
    }
    Ok(days)
}

/// Reads a whole time of day (`13:45`, `13:45:10.5`): ticks of `unit`
/// since midnight.
///
/// # Errors
///
/// Text that is not a time of day.
pub fn parse_time(text: &str, unit: TimeUnit) -> Result<i64, TimeTextError> {
    let mut c = Cursor {
        s: text.trim().as_bytes(),
        at: 0,
    };
    let t = time_at(&mut c, unit)?;
    if !c.done() {
        return fail("unexpected text after the time");
    }
    Ok(t)
}

/// A datetime read from text: its ticks as written (a wall time), and the
/// UTC offset in seconds it ended with (`Z` is 0), if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParsedDateTime {
    /// Ticks since 1970-01-01T00:00 of the wall time written.
    pub wall: i64,
    /// The offset written (`Z`, `+01:00`, `-0530`), in seconds east of UTC.
    pub offset: Option<i32>,
}

impl ParsedDateTime {
    /// The UTC instant, when an offset was written.
    ///
    /// # Errors
    ///
    /// An instant out of the unit's range.
    pub fn utc(&self, unit: TimeUnit) -> Result<Option<i64>, TimeTextError> {
        self.offset
            .map(|o| {
                self.wall
                    .checked_sub(i64::from(o) * unit.per_second())
                    .ok_or_else(|| out_of_range(unit))
            })
            .transpose()
    }
}

fn out_of_range(unit: TimeUnit) -> TimeTextError {
    let (lo, hi) = datetime_range(unit);
    TimeTextError(format!(
        "out of the range of a datetime in \"{}\" ({lo} to {hi})",
        unit.name()
    ))
}

/// The first and last datetime a unit can count, as text.
fn datetime_range(unit: TimeUnit) -> (String, String) {
    let mut lo = String::new();
    let mut hi = String::new();
    write_datetime(&mut lo, i64::MIN, unit);
    write_datetime(&mut hi, i64::MAX, unit);
    (lo, hi)
}

/// Reads an ISO 8601 datetime: a date, then optionally `T` (or a space)
/// and a time of day, then optionally `Z` or an offset `±hh:mm`
/// (`±hhmm`, `±hh`).
///
/// # Errors
///
/// Text that is not a datetime, a date that does not exist, a fraction
/// finer than `unit`, a value out of `unit`'s range.
pub fn parse_datetime(text: &str, unit: TimeUnit) -> Result<ParsedDateTime, TimeTextError> {
    let mut c = Cursor {
        s: text.trim().as_bytes(),
        at: 0,
    };
    let days = date_at(&mut c)?;
    let mut in_day = 0;
    if c.eat(b'T') || c.eat(b't') || c.eat(b' ') {
        in_day = time_at(&mut c, unit)?;
    }
    let offset = match c.peek() {
        None => None,
        Some(b'Z' | b'z') => {
            c.at += 1;
            Some(0)
        }
        Some(sign @ (b'+' | b'-')) => {
            c.at += 1;
            let h = c.digits(2, "offset's hours")?;
            let m = if c.eat(b':') || c.peek().is_some() {
                c.digits(2, "offset's minutes")?
            } else {
                0
            };
            if h > 23 || m > 59 {
                return fail(format!("{h:02}:{m:02} is not an offset"));
            }
            let o = (h * 3600 + m * 60) as i32;
            Some(if sign == b'-' { -o } else { o })
        }
        Some(_) => {
            return fail("unexpected text after the datetime (expected 'T', 'Z' or an offset)")
        }
    };
    if !c.done() {
        return fail("unexpected text after the offset");
    }
    let wall = days
        .checked_mul(DAY_SECONDS * unit.per_second())
        .and_then(|t| t.checked_add(in_day))
        .ok_or_else(|| out_of_range(unit))?;
    Ok(ParsedDateTime { wall, offset })
}

/// The ticks `text` stands for as a value of the time type `t` (a
/// `timedelta`'s text is its count): ISO 8601 for the others; a zoned
/// datetime (`zone` given) takes the instant of an offset written in the
/// text, or reads a wall time in the zone, which must happen exactly once.
///
/// # Errors
///
/// Text that is not a value of `t`, saying why.
pub fn parse_ticks(t: Temporal, zone: Option<&zone::Zone>, text: &str) -> Result<i64, String> {
    match t {
        Temporal::Date => {
            let days = parse_date(text).map_err(|e| e.0)?;
            i32::try_from(days)
                .map(i64::from)
                .map_err(|_| "out of the range of a date".into())
        }
        Temporal::Time(u) => parse_time(text, u).map_err(|e| e.0),
        Temporal::TimeDelta(_) => text
            .trim()
            .parse::<i64>()
            .map_err(|_| "expected an integer count of the unit".into()),
        Temporal::DateTime(u) => {
            let p = parse_datetime(text, u).map_err(|e| e.0)?;
            match (zone, p.utc(u).map_err(|e| e.0)?) {
                (Some(_), Some(utc)) => Ok(utc),
                (None, Some(_)) => {
                    Err("a naive datetime has no offset (its type has no tz)".into())
                }
                (None, None) => Ok(p.wall),
                (Some(z), None) => {
                    use zone::Choice::Raise;
                    z.to_utc(p.wall, u.per_second(), Raise, Raise)
                        .map_err(|why| {
                            format!(
                                "{why}; write an offset, or read wall times with assume_timezone"
                            )
                        })
                }
            }
        }
    }
}

/// Writes a year as ISO 8601 does: four digits, with a sign outside
/// 0000..=9999.
fn write_year(out: &mut String, year: i64) {
    use std::fmt::Write;
    if (0..=9999).contains(&year) {
        let _ = write!(out, "{year:04}");
    } else if year < 0 {
        let _ = write!(out, "-{:04}", year.unsigned_abs());
    } else {
        let _ = write!(out, "+{year}");
    }
}

/// Writes the date `days` after 1970-01-01 (`2024-02-29`).
pub fn write_date(out: &mut String, days: i64) {
    use std::fmt::Write;
    let (y, m, d) = civil_from_days(days);
    write_year(out, y);
    let _ = write!(out, "-{m:02}-{d:02}");
}

/// Writes a time of day of `ticks` of `unit` since midnight
/// (`13:45:00.250` in milliseconds: as many fraction digits as the unit
/// has).
pub fn write_time(out: &mut String, ticks: i64, unit: TimeUnit) {
    use std::fmt::Write;
    let per = unit.per_second();
    let secs = ticks.div_euclid(per);
    let frac = ticks.rem_euclid(per);
    let _ = write!(
        out,
        "{:02}:{:02}:{:02}",
        secs / 3600,
        secs / 60 % 60,
        secs % 60
    );
    if unit.digits() > 0 {
        let _ = write!(out, ".{frac:0width$}", width = unit.digits() as usize);
    }
}

/// Writes the datetime `ticks` of `unit` after 1970-01-01T00:00
/// (`2024-02-29T13:45:00.250000` in microseconds).
pub fn write_datetime(out: &mut String, ticks: i64, unit: TimeUnit) {
    let per_day = DAY_SECONDS * unit.per_second();
    write_date(out, ticks.div_euclid(per_day));
    out.push('T');
    write_time(out, ticks.rem_euclid(per_day), unit);
}

/// The text of one value of the time type `t` stored as `ticks` (a date's
/// days), as [`Value`](crate::Value)s and printing give it: ISO 8601 for
/// dates, times and datetimes (`Z` after a zoned one's UTC instant).
pub fn to_text(t: Temporal, ticks: i64, zoned: bool) -> String {
    let mut s = String::new();
    match t {
        Temporal::Date => write_date(&mut s, ticks),
        Temporal::Time(u) => write_time(&mut s, ticks, u),
        Temporal::DateTime(u) => {
            write_datetime(&mut s, ticks, u);
            if zoned {
                s.push('Z');
            }
        }
        Temporal::TimeDelta(_) => s = ticks.to_string(),
    }
    s
}

/// A unit of time as a Rust type, for the element types' unit parameter:
/// [`S`], [`Ms`], [`Us`] (the default) and [`Ns`]. Sealed.
pub trait Unit:
    Copy
    + Default
    + PartialEq
    + Eq
    + PartialOrd
    + Ord
    + std::hash::Hash
    + fmt::Debug
    + Send
    + Sync
    + 'static
    + sealed::Sealed
{
    /// The unit.
    const UNIT: TimeUnit;
    /// The integer a `time` of this unit is stored as (`i32` in seconds
    /// and milliseconds, `i64` finer, as Arrow's `Time32`/`Time64`).
    type TimeTicks: Copy
        + PartialEq
        + Eq
        + PartialOrd
        + Ord
        + std::hash::Hash
        + fmt::Debug
        + Default
        + Send
        + Sync
        + Into<i64>
        + TryFrom<i64>
        + 'static;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::S {}
    impl Sealed for super::Ms {}
    impl Sealed for super::Us {}
    impl Sealed for super::Ns {}
}

macro_rules! unit {
    ($($name:ident $unit:ident $ticks:ty, $doc:literal;)*) => {
        $(
            #[doc = $doc]
            #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
            pub struct $name;
            impl Unit for $name {
                const UNIT: TimeUnit = TimeUnit::$unit;
                type TimeTicks = $ticks;
            }
        )*
    };
}

unit! {
    S Second i32, "Seconds (`unit=\"s\"`).";
    Ms Milli i32, "Milliseconds (`unit=\"ms\"`).";
    Us Micro i64, "Microseconds (`unit=\"us\"`), the default unit.";
    Ns Nano i64, "Nanoseconds (`unit=\"ns\"`).";
}

/// A `date` element: days since 1970-01-01 (Arrow's `Date32`).
///
/// ```
/// use dynd::nd::Date;
///
/// let d = Date::from_ymd(2024, 2, 29).unwrap();
/// assert_eq!((d.days(), d.to_string()), (19782, "2024-02-29".to_string()));
/// assert_eq!((d.year(), d.month(), d.day(), d.weekday()), (2024, 2, 29, 3)); // a Thursday
/// assert_eq!("1969-12-31".parse::<Date>()?.days(), -1);
/// # Ok::<(), dynd::nd::TimeTextError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(transparent)]
pub struct Date(pub i32);

impl Date {
    /// The date `days` after 1970-01-01.
    pub const fn from_days(days: i32) -> Date {
        Date(days)
    }

    /// The date `year-month-day`, if it exists and a `date` holds it.
    pub fn from_ymd(year: i64, month: u32, day: u32) -> Option<Date> {
        if !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
            return None;
        }
        if year.unsigned_abs() > 6_000_000 {
            return None;
        }
        i32::try_from(days_from_civil(year, month, day))
            .ok()
            .map(Date)
    }

    /// Days since 1970-01-01.
    pub const fn days(self) -> i32 {
        self.0
    }

    /// The year (astronomical: 0 is 1 BC).
    pub fn year(self) -> i64 {
        civil_from_days(i64::from(self.0)).0
    }

    /// The month, 1 to 12.
    pub fn month(self) -> u32 {
        civil_from_days(i64::from(self.0)).1
    }

    /// The day of the month, 1 to 31.
    pub fn day(self) -> u32 {
        civil_from_days(i64::from(self.0)).2
    }

    /// The day of the week, Monday 0 to Sunday 6.
    pub fn weekday(self) -> u32 {
        weekday(i64::from(self.0))
    }
}

impl fmt::Display for Date {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut s = String::new();
        write_date(&mut s, i64::from(self.0));
        f.write_str(&s)
    }
}

impl std::str::FromStr for Date {
    type Err = TimeTextError;

    fn from_str(s: &str) -> Result<Date, TimeTextError> {
        let days = parse_date(s)?;
        i32::try_from(days)
            .map(Date)
            .or_else(|_| fail("out of the range of a date"))
    }
}

// SAFETY: repr(transparent) over i32, the storage of `date`; every i32 is
// a date.
unsafe impl Element for Date {
    const SCALAR: Scalar = Scalar::Date;
}

macro_rules! ticks_type {
    ($name:ident, $kind:ident, $ticks:ty, $what:literal, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[repr(transparent)]
        pub struct $name<U: Unit = Us>(pub $ticks, PhantomData<U>);

        impl<U: Unit> $name<U> {
            #[doc = concat!("The ", $what, " of `ticks` of the unit `U`.")]
            pub const fn from_ticks(ticks: $ticks) -> Self {
                $name(ticks, PhantomData)
            }

            /// Its ticks.
            pub fn ticks(self) -> $ticks {
                self.0
            }

            /// Its unit.
            pub const fn unit() -> TimeUnit {
                U::UNIT
            }
        }

        impl<U: Unit> fmt::Display for $name<U> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&to_text(Temporal::$kind(U::UNIT), self.0.into(), false))
            }
        }

        // SAFETY: repr(transparent) over the unit's ticks (PhantomData is
        // zero-sized), the storage of the scalar; every value is valid.
        unsafe impl<U: Unit> Element for $name<U> {
            const SCALAR: Scalar = Temporal::$kind(U::UNIT).scalar();
        }
    };
}

ticks_type!(
    DateTime,
    DateTime,
    i64,
    "datetime",
    "A `datetime[unit=…]` element: ticks of the unit `U` (microseconds by \
     default) since 1970-01-01T00:00 (Arrow's `Timestamp`). From a zoned \
     array it is the UTC instant.\n\n```\nuse dynd::nd::{DateTime, Ns};\n\n\
     let t = DateTime::<Ns>::from_ticks(-1);\nassert_eq!(t.to_string(), \
     \"1969-12-31T23:59:59.999999999\");\nassert_eq!(t.date().to_string(), \
     \"1969-12-31\");\n```"
);
ticks_type!(
    TimeDelta,
    TimeDelta,
    i64,
    "duration",
    "A `timedelta[unit=…]` element: a duration in ticks of the unit `U` \
     (microseconds by default; Arrow's `Duration`)."
);
ticks_type!(
    Time,
    Time,
    U::TimeTicks,
    "time of day",
    "A `time[unit=…]` element: ticks of the unit `U` (microseconds by \
     default) since midnight, stored as Arrow's `Time32` (seconds, \
     milliseconds) or `Time64` (micro-, nanoseconds) store them."
);

impl<U: Unit> DateTime<U> {
    /// The date of this datetime (a wall time, or the UTC instant's date).
    pub fn date(self) -> Date {
        let per_day = DAY_SECONDS * U::UNIT.per_second();
        Date(self.0.div_euclid(per_day) as i32)
    }

    /// The datetime at midnight of `date`, if the unit reaches it.
    pub fn from_date(date: Date) -> Option<Self> {
        i64::from(date.0)
            .checked_mul(DAY_SECONDS * U::UNIT.per_second())
            .map(Self::from_ticks)
    }
}

impl<U: Unit> std::str::FromStr for DateTime<U> {
    type Err = TimeTextError;

    /// An ISO 8601 datetime; one that ends with an offset is that instant
    /// in UTC.
    fn from_str(s: &str) -> Result<Self, TimeTextError> {
        let p = parse_datetime(s, U::UNIT)?;
        Ok(Self::from_ticks(p.utc(U::UNIT)?.unwrap_or(p.wall)))
    }
}
