//! The time elements to and from `chrono` (feature `chrono`) and `jiff`
//! (feature `jiff`) values. A conversion that can fail (a value past the
//! other side's range, a fraction finer than the unit) is a `TryFrom`
//! whose error says so.
//!
//! ```
//! # #[cfg(all(feature = "chrono", feature = "jiff"))] {
//! use dynd::nd::{Date, DateTime, Ms};
//!
//! let d = Date::try_from(chrono::NaiveDate::from_ymd_opt(2024, 2, 29).unwrap()).unwrap();
//! assert_eq!(d.to_string(), "2024-02-29");
//! let t: DateTime<Ms> = DateTime::try_from(jiff::Timestamp::from_millisecond(1_700_000_000_123).unwrap()).unwrap();
//! assert_eq!(jiff::Timestamp::try_from(t).unwrap().as_millisecond(), 1_700_000_000_123);
//! # }
//! ```

#[cfg(any(feature = "chrono", feature = "jiff"))]
use super::*;

/// Why a time value does not convert.
#[cfg(any(feature = "chrono", feature = "jiff"))]
fn range(what: &str) -> TimeTextError {
    TimeTextError(format!("{what} is out of the range of the other side"))
}

/// Nanoseconds of a tick of `U`.
#[cfg(any(feature = "chrono", feature = "jiff"))]
fn tick_ns<U: Unit>() -> i64 {
    1_000_000_000 / U::UNIT.per_second()
}

/// `(seconds, nanoseconds)` since the epoch as ticks of `U`: the
/// nanoseconds a whole number of ticks.
#[cfg(any(feature = "chrono", feature = "jiff"))]
fn ticks_of<U: Unit>(secs: i64, nanos: i64, what: &str) -> Result<i64, TimeTextError> {
    let tick = tick_ns::<U>();
    if nanos % tick != 0 {
        return Err(TimeTextError(format!(
            "{what} has a fraction finer than the unit \"{}\"",
            U::UNIT.name()
        )));
    }
    secs.checked_mul(U::UNIT.per_second())
        .and_then(|t| t.checked_add(nanos / tick))
        .ok_or_else(|| range(what))
}

/// Ticks of `U` as `(seconds, nanoseconds 0..1e9)`.
#[cfg(any(feature = "chrono", feature = "jiff"))]
fn split<U: Unit>(ticks: i64) -> (i64, i64) {
    let per = U::UNIT.per_second();
    (
        ticks.div_euclid(per),
        ticks.rem_euclid(per) * tick_ns::<U>(),
    )
}

#[cfg(feature = "chrono")]
mod with_chrono {
    use super::*;

    impl TryFrom<chrono::NaiveDate> for Date {
        type Error = TimeTextError;
        fn try_from(d: chrono::NaiveDate) -> Result<Date, TimeTextError> {
            let epoch =
                chrono::NaiveDate::from_ymd_opt(1970, 1, 1).ok_or_else(|| range("1970-01-01"))?;
            let days = d.signed_duration_since(epoch).num_days();
            i32::try_from(days).map(Date).map_err(|_| range("the date"))
        }
    }

    impl TryFrom<Date> for chrono::NaiveDate {
        type Error = TimeTextError;
        fn try_from(d: Date) -> Result<chrono::NaiveDate, TimeTextError> {
            // Days from 0001-01-01 (chrono's day 1) to 1970-01-01: 719 163.
            chrono::NaiveDate::from_num_days_from_ce_opt(d.0 + 719_163)
                .ok_or_else(|| range("the date"))
        }
    }

    impl<U: Unit> TryFrom<chrono::NaiveDateTime> for DateTime<U> {
        type Error = TimeTextError;
        fn try_from(t: chrono::NaiveDateTime) -> Result<Self, TimeTextError> {
            let u = t.and_utc();
            ticks_of::<U>(
                u.timestamp(),
                i64::from(u.timestamp_subsec_nanos()),
                "the datetime",
            )
            .map(DateTime::from_ticks)
        }
    }

    impl<U: Unit> TryFrom<DateTime<U>> for chrono::NaiveDateTime {
        type Error = TimeTextError;
        fn try_from(t: DateTime<U>) -> Result<chrono::NaiveDateTime, TimeTextError> {
            let (s, ns) = split::<U>(t.0);
            chrono::DateTime::from_timestamp(s, ns as u32)
                .map(|d| d.naive_utc())
                .ok_or_else(|| range("the datetime"))
        }
    }

    impl<U: Unit> TryFrom<chrono::DateTime<chrono::Utc>> for DateTime<U> {
        type Error = TimeTextError;
        fn try_from(t: chrono::DateTime<chrono::Utc>) -> Result<Self, TimeTextError> {
            DateTime::try_from(t.naive_utc())
        }
    }

    impl<U: Unit> TryFrom<DateTime<U>> for chrono::DateTime<chrono::Utc> {
        type Error = TimeTextError;
        fn try_from(t: DateTime<U>) -> Result<chrono::DateTime<chrono::Utc>, TimeTextError> {
            chrono::NaiveDateTime::try_from(t).map(|n| n.and_utc())
        }
    }

    impl<U: Unit> TryFrom<chrono::TimeDelta> for TimeDelta<U> {
        type Error = TimeTextError;
        fn try_from(d: chrono::TimeDelta) -> Result<Self, TimeTextError> {
            ticks_of::<U>(d.num_seconds(), i64::from(d.subsec_nanos()), "the duration")
                .map(TimeDelta::from_ticks)
        }
    }

    impl<U: Unit> From<TimeDelta<U>> for chrono::TimeDelta {
        fn from(d: TimeDelta<U>) -> chrono::TimeDelta {
            let (s, ns) = split::<U>(d.0);
            chrono::TimeDelta::seconds(s) + chrono::TimeDelta::nanoseconds(ns)
        }
    }

    impl<U: Unit> TryFrom<chrono::NaiveTime> for Time<U> {
        type Error = TimeTextError;
        fn try_from(t: chrono::NaiveTime) -> Result<Self, TimeTextError> {
            use chrono::Timelike;
            let ticks = ticks_of::<U>(
                i64::from(t.num_seconds_from_midnight()),
                i64::from(t.nanosecond().min(999_999_999)),
                "the time",
            )?;
            ticks_to_time(ticks)
        }
    }

    impl<U: Unit> TryFrom<Time<U>> for chrono::NaiveTime {
        type Error = TimeTextError;
        fn try_from(t: Time<U>) -> Result<chrono::NaiveTime, TimeTextError> {
            let (s, ns) = split::<U>(t.0.into());
            chrono::NaiveTime::from_num_seconds_from_midnight_opt(s as u32, ns as u32)
                .ok_or_else(|| range("the time"))
        }
    }
}

/// A time of day in ticks, stored as the unit stores it.
#[cfg(any(feature = "chrono", feature = "jiff"))]
fn ticks_to_time<U: Unit>(ticks: i64) -> Result<Time<U>, TimeTextError> {
    // `TimeTicks` is `i32` or `i64`.
    let stored = U::TimeTicks::try_from(ticks).map_err(|_| range("the time"))?;
    Ok(Time::from_ticks(stored))
}

#[cfg(feature = "jiff")]
mod with_jiff {
    use super::*;

    impl TryFrom<jiff::civil::Date> for Date {
        type Error = TimeTextError;
        fn try_from(d: jiff::civil::Date) -> Result<Date, TimeTextError> {
            let days = days_from_civil(i64::from(d.year()), d.month() as u32, d.day() as u32);
            i32::try_from(days).map(Date).map_err(|_| range("the date"))
        }
    }

    impl TryFrom<Date> for jiff::civil::Date {
        type Error = TimeTextError;
        fn try_from(d: Date) -> Result<jiff::civil::Date, TimeTextError> {
            let (y, m, day) = civil_from_days(i64::from(d.0));
            let y = i16::try_from(y).map_err(|_| range("the date"))?;
            jiff::civil::Date::new(y, m as i8, day as i8).map_err(|_| range("the date"))
        }
    }

    impl<U: Unit> TryFrom<jiff::Timestamp> for DateTime<U> {
        type Error = TimeTextError;
        fn try_from(t: jiff::Timestamp) -> Result<Self, TimeTextError> {
            let ns = t.as_nanosecond();
            let (s, sub) = (ns.div_euclid(1_000_000_000), ns.rem_euclid(1_000_000_000));
            let s = i64::try_from(s).map_err(|_| range("the timestamp"))?;
            ticks_of::<U>(s, sub as i64, "the timestamp").map(DateTime::from_ticks)
        }
    }

    impl<U: Unit> TryFrom<DateTime<U>> for jiff::Timestamp {
        type Error = TimeTextError;
        fn try_from(t: DateTime<U>) -> Result<jiff::Timestamp, TimeTextError> {
            let (s, ns) = split::<U>(t.0);
            jiff::Timestamp::new(s, ns as i32).map_err(|_| range("the datetime"))
        }
    }

    impl<U: Unit> TryFrom<jiff::civil::DateTime> for DateTime<U> {
        type Error = TimeTextError;
        fn try_from(t: jiff::civil::DateTime) -> Result<Self, TimeTextError> {
            let ts = t
                .to_zoned(jiff::tz::TimeZone::UTC)
                .map_err(|_| range("the datetime"))?;
            DateTime::try_from(ts.timestamp())
        }
    }

    impl<U: Unit> TryFrom<DateTime<U>> for jiff::civil::DateTime {
        type Error = TimeTextError;
        fn try_from(t: DateTime<U>) -> Result<jiff::civil::DateTime, TimeTextError> {
            let ts = jiff::Timestamp::try_from(t)?;
            Ok(ts.to_zoned(jiff::tz::TimeZone::UTC).datetime())
        }
    }

    impl<U: Unit> TryFrom<jiff::SignedDuration> for TimeDelta<U> {
        type Error = TimeTextError;
        fn try_from(d: jiff::SignedDuration) -> Result<Self, TimeTextError> {
            let ns = d.as_nanos();
            let (s, sub) = (ns.div_euclid(1_000_000_000), ns.rem_euclid(1_000_000_000));
            let s = i64::try_from(s).map_err(|_| range("the duration"))?;
            ticks_of::<U>(s, sub as i64, "the duration").map(TimeDelta::from_ticks)
        }
    }

    impl<U: Unit> From<TimeDelta<U>> for jiff::SignedDuration {
        fn from(d: TimeDelta<U>) -> jiff::SignedDuration {
            let (s, ns) = split::<U>(d.0);
            jiff::SignedDuration::new(s, ns as i32)
        }
    }

    impl<U: Unit> TryFrom<jiff::civil::Time> for Time<U> {
        type Error = TimeTextError;
        fn try_from(t: jiff::civil::Time) -> Result<Self, TimeTextError> {
            let secs =
                i64::from(t.hour()) * 3600 + i64::from(t.minute()) * 60 + i64::from(t.second());
            ticks_to_time(ticks_of::<U>(
                secs,
                i64::from(t.subsec_nanosecond()),
                "the time",
            )?)
        }
    }

    impl<U: Unit> TryFrom<Time<U>> for jiff::civil::Time {
        type Error = TimeTextError;
        fn try_from(t: Time<U>) -> Result<jiff::civil::Time, TimeTextError> {
            let (s, ns) = split::<U>(t.0.into());
            jiff::civil::Time::new(
                (s / 3600) as i8,
                (s / 60 % 60) as i8,
                (s % 60) as i8,
                ns as i32,
            )
            .map_err(|_| range("the time"))
        }
    }
}
