//! The calendar builtins, by pyarrow.compute's names: the parts of dates,
//! times and datetimes, elementwise over arrays of any dimensions (ragged
//! ones included), NA in NA out.
//!
//! | builtin | of | gives |
//! |---|---|---|
//! | `year`, `month`, `day` | `date`, `datetime` | `int64` (astronomical years: 0 is 1 BC) |
//! | `quarter`, `day_of_year` | `date`, `datetime` | `int64` from 1 |
//! | `day_of_week` | `date`, `datetime` | `int64`, Monday 0 to Sunday 6 |
//! | `iso_year`, `iso_week` | `date`, `datetime` | `int64`: the ISO 8601 week-numbering year and week (1 to 53) |
//! | `is_leap_year` | `date`, `datetime` | `bool` |
//! | `hour`, `minute`, `second` | `datetime`, `time` | `int64` |
//! | `millisecond`, `microsecond`, `nanosecond` | `datetime`, `time` | `int64`, 0 to 999: the milliseconds in the second, the microseconds in the millisecond, the nanoseconds in the microsecond (pyarrow's) |
//!
//! A zoned `datetime[tz=…]`'s parts are those of its wall time in the
//! zone.
//!
//! ```
//! use dynd::func;
//! use dynd::nd::{Array, ArrayOps, ErrorMode};
//!
//! let t = Array::from_json(
//!     r#"["2024-02-29T23:30:00", "1969-12-31T23:59:59.999", null]"#,
//!     Some(&"3 * ?datetime[unit=\"ms\"]".parse()?),
//! )?;
//! assert_eq!(func::year(&t)?.to_string(), "[2024, 1969, null]");
//! assert_eq!(func::day_of_week(&t)?.to_string(), "[3, 2, null]"); // Thursday, Wednesday
//! assert_eq!(func::millisecond(&t)?.to_string(), "[0, 999, null]");
//!
//! let paris = t.cast(&"3 * ?datetime[unit=\"ms\", tz=\"Europe/Paris\"]".parse()?, ErrorMode::Overflow)?;
//! assert_eq!(func::day(&paris)?.to_string(), "[1, 1, null]"); // 00:30 on March 1st in Paris
//! # Ok::<(), dynd::Error>(())
//! ```

use std::sync::OnceLock;

use dynd_kernels::elwise::{apply, Leaf};
use dynd_kernels::time::{civil_from_days, days_from_civil, is_leap_year, weekday};
use dynd_kernels::Array;
use dynd_macros::checked_signature;
use dynd_types::{Scalar, Temporal, TimeUnit, TypeKind};

use crate::builtin::builtins;
use crate::callable::{Callable, Overload};
use crate::error::Error;

/// The part of a date (from days since 1970-01-01).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum DatePart {
    Year,
    Month,
    Day,
    Quarter,
    DayOfYear,
    DayOfWeek,
    IsoYear,
    IsoWeek,
}

/// The part of a time of day.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum TimePart {
    Hour,
    Minute,
    Second,
    Millisecond,
    Microsecond,
    Nanosecond,
}

/// The ISO 8601 week-numbering year and week of `days`: those of the
/// Thursday of its week (weeks start on Monday).
#[inline]
fn iso(days: i64) -> (i64, i64) {
    let thursday = days - i64::from(weekday(days)) + 3;
    let year = civil_from_days(thursday).0;
    (year, (thursday - days_from_civil(year, 1, 1)) / 7 + 1)
}

#[inline(always)]
fn date_part<const P: u8>(days: i64) -> i64 {
    const YEAR: u8 = DatePart::Year as u8;
    const MONTH: u8 = DatePart::Month as u8;
    const DAY: u8 = DatePart::Day as u8;
    const QUARTER: u8 = DatePart::Quarter as u8;
    const DAY_OF_YEAR: u8 = DatePart::DayOfYear as u8;
    const DAY_OF_WEEK: u8 = DatePart::DayOfWeek as u8;
    const ISO_YEAR: u8 = DatePart::IsoYear as u8;
    match P {
        YEAR => civil_from_days(days).0,
        MONTH => i64::from(civil_from_days(days).1),
        DAY => i64::from(civil_from_days(days).2),
        QUARTER => (i64::from(civil_from_days(days).1) - 1) / 3 + 1,
        DAY_OF_YEAR => days - days_from_civil(civil_from_days(days).0, 1, 1) + 1,
        DAY_OF_WEEK => i64::from(weekday(days)),
        ISO_YEAR => iso(days).0,
        _ => iso(days).1,
    }
}

#[inline(always)]
fn time_part<const P: u8, const PER_SECOND: i64>(in_day: i64) -> i64 {
    const HOUR: u8 = TimePart::Hour as u8;
    const MINUTE: u8 = TimePart::Minute as u8;
    const SECOND: u8 = TimePart::Second as u8;
    const MILLI: u8 = TimePart::Millisecond as u8;
    const MICRO: u8 = TimePart::Microsecond as u8;
    let seconds = in_day / PER_SECOND;
    // The fraction of the second in nanoseconds.
    let nanos = in_day % PER_SECOND * (1_000_000_000 / PER_SECOND);
    match P {
        HOUR => seconds / 3600,
        MINUTE => seconds / 60 % 60,
        SECOND => seconds % 60,
        MILLI => nanos / 1_000_000,
        MICRO => nanos / 1000 % 1000,
        _ => nanos % 1000,
    }
}

const DAY_S: i64 = 86_400;

/// The overloads of a date part: over `date` and `datetime` in each unit,
/// each loop with its unit's constants.
fn date_overloads<const P: u8>() -> Result<Vec<Overload>, Error> {
    let dt = |u: TimeUnit| Temporal::DateTime(u).scalar();
    let leaves = [
        (
            Leaf::map(|d: i32| date_part::<P>(i64::from(d))),
            Scalar::Date,
        ),
        (
            Leaf::map(|t: i64| date_part::<P>(t.div_euclid(DAY_S))),
            dt(TimeUnit::Second),
        ),
        (
            Leaf::map(|t: i64| date_part::<P>(t.div_euclid(DAY_S * 1_000))),
            dt(TimeUnit::Milli),
        ),
        (
            Leaf::map(|t: i64| date_part::<P>(t.div_euclid(DAY_S * 1_000_000))),
            dt(TimeUnit::Micro),
        ),
        (
            Leaf::map(|t: i64| date_part::<P>(t.div_euclid(DAY_S * 1_000_000_000))),
            dt(TimeUnit::Nano),
        ),
    ];
    leaves
        .into_iter()
        .map(|(leaf, s)| Ok(Overload::new(leaf.retyped(&[s], Scalar::Int64)?)))
        .collect()
}

/// The overloads of a time part: over `datetime` and `time` in each unit.
fn time_overloads<const P: u8>() -> Result<Vec<Overload>, Error> {
    fn unit<const P: u8, const PER: i64>(u: TimeUnit) -> Result<[Overload; 2], Error> {
        let of_datetime = Leaf::map(|t: i64| time_part::<P, PER>(t.rem_euclid(DAY_S * PER)));
        let of_time = if PER < 1_000_000 {
            Leaf::map(|t: i32| time_part::<P, PER>(i64::from(t)))
        } else {
            Leaf::map(|t: i64| time_part::<P, PER>(t))
        };
        Ok([
            Overload::new(of_datetime.retyped(&[Temporal::DateTime(u).scalar()], Scalar::Int64)?),
            Overload::new(of_time.retyped(&[Temporal::Time(u).scalar()], Scalar::Int64)?),
        ])
    }
    let mut o = Vec::new();
    o.extend(unit::<P, 1>(TimeUnit::Second)?);
    o.extend(unit::<P, 1_000>(TimeUnit::Milli)?);
    o.extend(unit::<P, 1_000_000>(TimeUnit::Micro)?);
    o.extend(unit::<P, 1_000_000_000>(TimeUnit::Nano)?);
    Ok(o)
}

/// The overloads of `is_leap_year`.
fn leap_overloads() -> Result<Vec<Overload>, Error> {
    let leap = |days: i64| is_leap_year(civil_from_days(days).0);
    let dt = |u: TimeUnit| Temporal::DateTime(u).scalar();
    let mut o = vec![Overload::new(
        Leaf::map(move |d: i32| leap(i64::from(d))).retyped(&[Scalar::Date], Scalar::Bool)?,
    )];
    for u in TimeUnit::ALL {
        let per_day = DAY_S * u.per_second();
        let leaf = Leaf::map(move |t: i64| leap(t.div_euclid(per_day)));
        o.push(Overload::new(leaf.retyped(&[dt(u)], Scalar::Bool)?));
    }
    Ok(o)
}

/// A part builtin: a whole-array function reading a zoned datetime as its
/// wall time, then the elementwise overloads.
fn part(
    name: &'static str,
    overloads: fn() -> Result<Vec<Overload>, Error>,
    cell: &'static OnceLock<Callable>,
) -> Result<Callable, Error> {
    let inner = Callable::new(name, overloads()?)?;
    let _ = cell.set(inner);
    Callable::function(
        name,
        checked_signature!("(Any) -> Any"),
        vec![],
        move |args, _| {
            let inner = cell.get().ok_or_else(|| Error::BuiltinName {
                entry: name.into(),
                callable: "(unbuilt)".into(),
            })?;
            let x = args[0];
            match wall_time(x)? {
                Some(local) => inner.call(&[&local]),
                None => inner.call(&[x]),
            }
        },
    )
}

/// The zone of a zoned datetime array (or of its options), and its unit.
fn zone_of(x: &Array) -> Option<(TimeUnit, dynd_types::Name)> {
    let t = match x.dtype().kind() {
        TypeKind::Option(inner) => inner,
        _ => x.dtype(),
    };
    match t.kind() {
        TypeKind::DateTimeTz { unit, tz } => Some((*unit, tz.clone())),
        _ => None,
    }
}

/// A zoned datetime array as the naive datetimes of its wall times (one
/// pass); `None` for any other array.
pub(crate) fn wall_time(x: &Array) -> Result<Option<Array>, Error> {
    let Some((unit, tz)) = zone_of(x) else {
        return Ok(None);
    };
    let zone = dynd_kernels::time::zone::get(&tz)
        .map_err(|why| Error::Invalid(Box::new(dynd_types::TypeRule::ZoneName(why))))?;
    let per = unit.per_second();
    let naive = Temporal::DateTime(unit).scalar();
    let leaf = match zone.fixed() {
        Some(o) => {
            let shift = i64::from(o) * per;
            Leaf::map(move |t: i64| t.wrapping_add(shift))
        }
        None => Leaf::map(move |t: i64| {
            t.wrapping_add(i64::from(zone.offset_at(t.div_euclid(per))) * per)
        }),
    };
    Ok(Some(apply(&[x], &leaf.retyped(&[naive], naive)?)?))
}

builtins! {
    $ TABLE, __temporal_builtins;

    /// `(date | datetime) -> int64`: the year (astronomical: 0 is 1 BC).
    YEAR year "year" f1 None => {
        static CELL: OnceLock<Callable> = OnceLock::new();
        part("year", date_overloads::<{ DatePart::Year as u8 }>, &CELL)
    };

    /// `(date | datetime) -> int64`: the month, 1 to 12.
    MONTH month "month" f1 None => {
        static CELL: OnceLock<Callable> = OnceLock::new();
        part("month", date_overloads::<{ DatePart::Month as u8 }>, &CELL)
    };

    /// `(date | datetime) -> int64`: the day of the month, 1 to 31.
    DAY day "day" f1 None => {
        static CELL: OnceLock<Callable> = OnceLock::new();
        part("day", date_overloads::<{ DatePart::Day as u8 }>, &CELL)
    };

    /// `(date | datetime) -> int64`: the quarter, 1 to 4.
    QUARTER quarter "quarter" f1 None => {
        static CELL: OnceLock<Callable> = OnceLock::new();
        part("quarter", date_overloads::<{ DatePart::Quarter as u8 }>, &CELL)
    };

    /// `(date | datetime) -> int64`: the day of the year, 1 to 366.
    DAY_OF_YEAR day_of_year "day_of_year" f1 None => {
        static CELL: OnceLock<Callable> = OnceLock::new();
        part("day_of_year", date_overloads::<{ DatePart::DayOfYear as u8 }>, &CELL)
    };

    /// `(date | datetime) -> int64`: the day of the week, Monday 0 to
    /// Sunday 6 (pyarrow's default).
    DAY_OF_WEEK day_of_week "day_of_week" f1 None => {
        static CELL: OnceLock<Callable> = OnceLock::new();
        part("day_of_week", date_overloads::<{ DatePart::DayOfWeek as u8 }>, &CELL)
    };

    /// `(date | datetime) -> int64`: the ISO 8601 week-numbering year
    /// (that of the week's Thursday).
    ISO_YEAR iso_year "iso_year" f1 None => {
        static CELL: OnceLock<Callable> = OnceLock::new();
        part("iso_year", date_overloads::<{ DatePart::IsoYear as u8 }>, &CELL)
    };

    /// `(date | datetime) -> int64`: the ISO 8601 week, 1 to 53.
    ISO_WEEK iso_week "iso_week" f1 None => {
        static CELL: OnceLock<Callable> = OnceLock::new();
        part("iso_week", date_overloads::<{ DatePart::IsoWeek as u8 }>, &CELL)
    };

    /// `(date | datetime) -> bool`: whether the year is a leap year.
    IS_LEAP_YEAR is_leap_year "is_leap_year" f1 None => {
        static CELL: OnceLock<Callable> = OnceLock::new();
        part("is_leap_year", leap_overloads, &CELL)
    };

    /// `(datetime | time) -> int64`: the hour, 0 to 23.
    HOUR hour "hour" f1 None => {
        static CELL: OnceLock<Callable> = OnceLock::new();
        part("hour", time_overloads::<{ TimePart::Hour as u8 }>, &CELL)
    };

    /// `(datetime | time) -> int64`: the minute, 0 to 59.
    MINUTE minute "minute" f1 None => {
        static CELL: OnceLock<Callable> = OnceLock::new();
        part("minute", time_overloads::<{ TimePart::Minute as u8 }>, &CELL)
    };

    /// `(datetime | time) -> int64`: the second, 0 to 59.
    SECOND second "second" f1 None => {
        static CELL: OnceLock<Callable> = OnceLock::new();
        part("second", time_overloads::<{ TimePart::Second as u8 }>, &CELL)
    };

    /// `(datetime | time) -> int64`: the milliseconds in the second, 0 to 999.
    MILLISECOND millisecond "millisecond" f1 None => {
        static CELL: OnceLock<Callable> = OnceLock::new();
        part("millisecond", time_overloads::<{ TimePart::Millisecond as u8 }>, &CELL)
    };

    /// `(datetime | time) -> int64`: the microseconds in the millisecond,
    /// 0 to 999.
    MICROSECOND microsecond "microsecond" f1 None => {
        static CELL: OnceLock<Callable> = OnceLock::new();
        part("microsecond", time_overloads::<{ TimePart::Microsecond as u8 }>, &CELL)
    };

    /// `(datetime | time) -> int64`: the nanoseconds in the microsecond,
    /// 0 to 999.
    NANOSECOND nanosecond "nanosecond" f1 None => {
        static CELL: OnceLock<Callable> = OnceLock::new();
        part("nanosecond", time_overloads::<{ TimePart::Nanosecond as u8 }>, &CELL)
    };
}
