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

use dynd_kernels::elwise::{apply, CalendarPart, Leaf};
use dynd_kernels::time::{civil_from_days, days_from_civil};

/// Seconds in a day.
const DAY_S: i64 = 86_400;
use dynd_kernels::{Array, ArrayOps};
use dynd_macros::checked_signature;
use dynd_types::{Scalar, Temporal, TimeUnit, Type, TypeKind};

use crate::builtin::builtins;
use crate::callable::{over_categories, Callable, Keyword, Overload};
use crate::error::Error;

/// The overloads of a calendar part: one leaf per time type that has it
/// ([`Leaf::calendar`]: loops vectorised per instruction set).
fn part_overloads(part: CalendarPart) -> Vec<Overload> {
    Scalar::ALL
        .into_iter()
        .filter_map(|s| Leaf::calendar(part, s))
        .map(Overload::new)
        .collect()
}

/// A part builtin: a whole-array function reading a zoned datetime as its
/// wall time, then the elementwise overloads.
fn part(name: &'static str, part: CalendarPart) -> Result<Callable, Error> {
    let inner = Callable::new(name, part_overloads(part))?;
    Callable::function(
        name,
        checked_signature!("(Any) -> Any"),
        vec![],
        move |args, _| {
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

/// The time type of `x`'s elements (optional or not), and its zone.
fn time_of(op: &'static str, x: &Array) -> Result<(Temporal, Option<dynd_types::Name>), Error> {
    let t = match x.dtype().kind() {
        TypeKind::Option(inner) => inner,
        _ => x.dtype(),
    };
    let zone = match t.kind() {
        TypeKind::DateTimeTz { tz, .. } => Some(tz.clone()),
        _ => None,
    };
    match t.element_scalar().and_then(Scalar::temporal) {
        Some(tt) => Ok((tt, zone)),
        None => Err(Error::Argument {
            op,
            what: "the argument",
            expected: "dates, times or datetimes",
            found: x.ty().to_string().into(),
        }),
    }
}

fn zone_named(tz: &str) -> Result<dynd_kernels::time::zone::Zone, Error> {
    dynd_kernels::time::zone::get(tz)
        .map_err(|why| Error::Invalid(Box::new(dynd_types::TypeRule::ZoneName(why))))
}

fn kernel_error(e: impl std::fmt::Display) -> dynd_kernels::KernelError {
    dynd_kernels::KernelError::message(e.to_string())
}

/// `x` (a data type's array) read as `dtype` with `x`'s option kept.
fn retype_value(x: Array, value: Type) -> Result<Array, Error> {
    let dtype = match x.dtype().kind() {
        TypeKind::Option(_) => Type::option(value)?,
        _ => value,
    };
    x.view_as(&dtype)
}

/// The unit named `name` (`"s"`, `"ms"`, `"us"`, `"ns"`).
fn unit_named(op: &'static str, name: &str) -> Result<TimeUnit, Error> {
    TimeUnit::from_name(name).ok_or_else(|| Error::Argument {
        op,
        what: "unit",
        expected: "one of \"s\", \"ms\", \"us\", \"ns\"",
        found: format!("{name:?}").into(),
    })
}

/// Each date or datetime of `x` as text in the `strftime` `format`
/// (pyarrow's; [`Format`](dynd_kernels::time::format::Format) lists the
/// directives): `%Y-%m-%dT%H:%M:%S` by default (`%Y-%m-%d` for dates);
/// `%S` has the fraction of a unit finer than a second. A zoned
/// datetime is written as its wall time, `%z` its offset and `%Z` its
/// zone's name; a naive one has neither.
///
/// ```
/// use dynd::func;
/// use dynd::nd::Array;
///
/// let t = Array::from_json(r#"["2024-02-29T13:45:10.250", null]"#, Some(&"2 * ?datetime[unit=\"ms\"]".parse()?))?;
/// assert_eq!(func::strftime(&t, Some("%d %b %Y, %H:%M"))?.to_string(), r#"["29 Feb 2024, 13:45", null]"#);
/// assert_eq!(func::strftime(&t, None)?.to_string(), r#"["2024-02-29T13:45:10.250", null]"#);
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// An unknown directive; `%z` or `%Z` for naive datetimes; `x` not dates
/// or datetimes.
pub fn strftime(x: &Array, format: Option<&str>) -> Result<Array, Error> {
    if let Some(r) = over_categories(&[x], &|a| strftime(a[0], format)) {
        return r;
    }
    use dynd_kernels::time::format::{Format, UnitDiv, ZoneText};
    let (t, tz) = time_of("strftime", x)?;
    let bad = |why: String| Error::Argument {
        op: "strftime",
        what: "format",
        expected: "a strftime format",
        found: why.into(),
    };
    let default = match t {
        Temporal::Date => "%Y-%m-%d",
        Temporal::Time(_) => "%H:%M:%S",
        _ => "%Y-%m-%dT%H:%M:%S",
    };
    let f = Format::parse(format.unwrap_or(default)).map_err(|e| bad(e.0))?;
    let text = format.unwrap_or(default);
    if tz.is_none() && (text.contains("%z") || text.contains("%Z")) {
        return Err(bad(format!(
            "{text:?}: %z and %Z need a zoned datetime (this one is naive: {})",
            x.dtype()
        )));
    }
    let write_err = |_| kernel_error("cannot write the text");
    // The unit's divisions, made once for the loop.
    let div = UnitDiv::new(match t {
        Temporal::Date => TimeUnit::Second,
        t => t.unit().unwrap_or(TimeUnit::Micro),
    });
    let leaf = match (t, tz) {
        (Temporal::Date, _) => Leaf::text_of(
            move |d: i32, out: &mut dynd_kernels::elwise::TextSink<'_>| {
                f.write_with(out, i64::from(d) * DAY_S, &div, None)
                    .map_err(write_err)
            },
        )
        .retyped(&[Scalar::Date], Scalar::String)?,
        (Temporal::Time(u), _) if u.per_second() < 1_000_000 => Leaf::text_of(
            move |d: i32, out: &mut dynd_kernels::elwise::TextSink<'_>| {
                f.write_with(out, i64::from(d), &div, None)
                    .map_err(write_err)
            },
        )
        .retyped(&[t.scalar()], Scalar::String)?,
        (Temporal::DateTime(_) | Temporal::Time(_) | Temporal::TimeDelta(_), None) => {
            Leaf::text_of(
                move |v: i64, out: &mut dynd_kernels::elwise::TextSink<'_>| {
                    f.write_with(out, v, &div, None).map_err(write_err)
                },
            )
            .retyped(&[t.scalar()], Scalar::String)?
        }
        (_, Some(tz)) => {
            let u = t.unit().unwrap_or(TimeUnit::Micro);
            let zone = zone_named(&tz)?;
            let per = u.per_second();
            Leaf::text_of(
                move |v: i64, out: &mut dynd_kernels::elwise::TextSink<'_>| {
                    let offset = zone.offset_at(v.div_euclid(per));
                    let zt = ZoneText { offset, name: &tz };
                    f.write_with(out, v + i64::from(offset) * per, &div, Some(zt))
                        .map_err(write_err)
                },
            )
            .retyped(&[t.scalar()], Scalar::String)?
        }
    };
    apply(&[x], &leaf)
}

/// Each string of `x` read as a datetime of `unit` by the `strptime`
/// `format` (pyarrow's `strptime`): `datetime[unit=…]`, or, where the
/// format has `%z`, the instants as `datetime[unit=…, tz="UTC"]`. Text
/// that does not match is an error naming the element, or NA with
/// `error_is_null`.
///
/// ```
/// use dynd::func;
/// use dynd::nd::array;
///
/// let t = func::strptime(&array!["29/02/2024 13:45", "01/03/2024 00:00"], "%d/%m/%Y %H:%M", Some("s"), false)?;
/// assert_eq!(t.ty().to_string(), "2 * datetime[unit=\"s\"]");
/// assert_eq!(t.to_string(), r#"["2024-02-29T13:45:00", "2024-03-01T00:00:00"]"#);
/// let z = func::strptime(&array!["2024-07-01 02:00 +0200", "bad"], "%Y-%m-%d %H:%M %z", None, true)?;
/// assert_eq!(z.to_string(), r#"["2024-07-01T00:00:00.000000Z", null]"#);
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// An unknown directive or unit; `x` not strings; text that does not
/// match (without `error_is_null`).
pub fn strptime(
    x: &Array,
    format: &str,
    unit: Option<&str>,
    error_is_null: bool,
) -> Result<Array, Error> {
    if let Some(r) = over_categories(&[x], &|a| strptime(a[0], format, unit, error_is_null)) {
        return r;
    }
    use dynd_kernels::time::format::Format;
    let u = unit_named("strptime", unit.unwrap_or("us"))?;
    let f = Format::parse(format).map_err(|e| Error::Argument {
        op: "strptime",
        what: "format",
        expected: "a strptime format",
        found: e.0.into(),
    })?;
    let zoned = f.has_offset();
    let per = u.per_second();
    let leaf = Leaf::text_try([false], error_is_null, move |[s]: [Option<&str>; 1]| {
        let s = s.unwrap_or_default();
        match f.read(s, u) {
            Ok((t, offset)) => match offset {
                Some(o) => t
                    .checked_sub(i64::from(o) * per)
                    .map(Some)
                    .ok_or_else(|| format!("{s:?} is out of the range of the unit")),
                None => Ok(Some(t)),
            },
            Err(_) if error_is_null => Ok(None),
            Err(e) => Err(e.0),
        }
    });
    let naive = Temporal::DateTime(u).scalar();
    let leaf = leaf.retyped(&[Scalar::String], naive)?;
    let strings = match x.dtype().kind() {
        TypeKind::Option(inner) if inner.as_scalar() == Some(Scalar::String) => true,
        _ => x.dtype().as_scalar() == Some(Scalar::String),
    };
    if !strings {
        return Err(Error::Argument {
            op: "strptime",
            what: "the argument",
            expected: "strings",
            found: x.ty().to_string().into(),
        });
    }
    let r = apply(&[x], &leaf)?;
    if zoned {
        return retype_value(
            r,
            Type::new(TypeKind::DateTimeTz {
                unit: u,
                tz: "UTC".into(),
            })?,
        );
    }
    Ok(r)
}

/// A unit of `floor_temporal` and friends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Span {
    /// A fixed length, in nanoseconds.
    Fixed(i128),
    /// Weeks (from a Monday or a Sunday).
    Week,
    /// Months (1, 3 for quarters, 12 for years).
    Months(i64),
}

fn span_named(op: &'static str, name: &str) -> Result<Span, Error> {
    const S: i128 = 1_000_000_000;
    Ok(match name {
        "nanosecond" => Span::Fixed(1),
        "microsecond" => Span::Fixed(1_000),
        "millisecond" => Span::Fixed(1_000_000),
        "second" => Span::Fixed(S),
        "minute" => Span::Fixed(60 * S),
        "hour" => Span::Fixed(3600 * S),
        "day" => Span::Fixed(86_400 * S),
        "week" => Span::Week,
        "month" => Span::Months(1),
        "quarter" => Span::Months(3),
        "year" => Span::Months(12),
        _ => {
            return Err(Error::Argument {
                op,
                what: "unit",
                expected: "one of \"nanosecond\", \"microsecond\", \"millisecond\", \"second\", \
                           \"minute\", \"hour\", \"day\", \"week\", \"month\", \"quarter\", \"year\"",
                found: format!("{name:?}").into(),
            })
        }
    })
}

/// Which way a value moves to a multiple of the unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Toward {
    Floor,
    Ceil,
    Round,
}

/// Rounds ticks (of one type) to multiples of a unit counted from the
/// epoch (weeks from the Monday or Sunday before it).
#[derive(Clone, Copy, Debug)]
struct Rounder {
    toward: Toward,
    /// A fixed step in ticks (0: every value is a multiple already).
    step: i64,
    /// The origin of the steps, in ticks.
    origin: i64,
    /// Months per step, for calendar units.
    months: i64,
    /// `1 / step`.
    inv: f64,
    /// Ticks a day.
    per_day: i64,
}

impl Rounder {
    fn new(
        op: &'static str,
        t: Temporal,
        span: Span,
        multiple: i64,
        monday: bool,
    ) -> Result<Rounder, Error> {
        if multiple < 1 {
            return Err(Error::Argument {
                op,
                what: "multiple",
                expected: "at least 1",
                found: multiple.to_string().into(),
            });
        }
        // Nanoseconds a tick.
        let tick: i128 = match t.unit() {
            Some(u) => 1_000_000_000 / i128::from(u.per_second()),
            None => 86_400 * 1_000_000_000,
        };
        let per_day = (86_400 * 1_000_000_000 / tick) as i64;
        let none = Rounder {
            toward: Toward::Floor,
            step: 0,
            origin: 0,
            months: 0,
            inv: 0.0,
            per_day,
        };
        let calendar = matches!(span, Span::Week | Span::Months(_));
        if calendar && matches!(t, Temporal::Time(_) | Temporal::TimeDelta(_)) {
            return Err(Error::Argument {
                op,
                what: "unit",
                expected: "a unit of a day or less for times of day",
                found: format!("{span:?}").to_lowercase().into(),
            });
        }
        let too_big = || Error::Argument {
            op,
            what: "multiple",
            expected: "a step that fits int64 ticks",
            found: multiple.to_string().into(),
        };
        Ok(match span {
            Span::Months(m) => Rounder {
                months: m.checked_mul(multiple).ok_or_else(too_big)?,
                ..none
            },
            Span::Week | Span::Fixed(_) => {
                let len = match span {
                    Span::Fixed(ns) => ns,
                    _ => 7 * 86_400 * 1_000_000_000,
                };
                let len = len.checked_mul(i128::from(multiple)).ok_or_else(too_big)?;
                let step = if len % tick == 0 {
                    i64::try_from(len / tick).map_err(|_| too_big())?
                } else if tick % len == 0 {
                    0
                } else {
                    return Err(Error::Argument {
                        op,
                        what: "multiple",
                        expected: "a whole number of the type's ticks, or a divisor of one",
                        found: format!("{multiple} × {span:?}").into(),
                    });
                };
                let origin = match span {
                    Span::Week if monday => -3 * per_day,
                    Span::Week => -4 * per_day,
                    _ => 0,
                };
                Rounder {
                    step,
                    origin,
                    inv: 1.0 / step as f64,
                    ..none
                }
            }
        })
    }

    fn overflow() -> dynd_kernels::KernelError {
        kernel_error("the rounded value is out of the range of its type")
    }

    /// The multiples at or below and above `t`.
    #[inline]
    fn bounds(&self, t: i64) -> Result<(i64, i64), dynd_kernels::KernelError> {
        if self.months > 0 {
            let days = t.div_euclid(self.per_day);
            let (y, m, _) = civil_from_days(days);
            let index = (y - 1970) * 12 + i64::from(m) - 1;
            let lo = index - index.rem_euclid(self.months);
            let at = |i: i64| {
                days_from_civil(1970 + i.div_euclid(12), i.rem_euclid(12) as u32 + 1, 1)
                    .checked_mul(self.per_day)
                    .ok_or_else(Self::overflow)
            };
            let floor = at(lo)?;
            if floor == t {
                return Ok((t, t));
            }
            return Ok((floor, at(lo + self.months)?));
        }
        if self.step == 0 {
            return Ok((t, t));
        }
        let from = t.checked_sub(self.origin).ok_or_else(Self::overflow)?;
        // A step of thousands of ticks or more divides in `f64` (no
        // division instruction; exact, see `floor_div`).
        let floor = if self.step >= 4096 {
            let q = dynd_kernels::time::fast::floor_div(from, self.step, self.inv);
            self.origin + q * self.step
        } else {
            t - from.rem_euclid(self.step)
        };
        if floor == t {
            return Ok((t, t));
        }
        Ok((
            floor,
            floor.checked_add(self.step).ok_or_else(Self::overflow)?,
        ))
    }

    #[inline]
    fn apply(&self, t: i64) -> Result<i64, dynd_kernels::KernelError> {
        let (lo, hi) = self.bounds(t)?;
        Ok(match self.toward {
            Toward::Floor => lo,
            Toward::Ceil => hi,
            // Halfway rounds up (pyarrow's).
            Toward::Round => {
                if (t as i128 - lo as i128) < (hi as i128 - t as i128) {
                    lo
                } else {
                    hi
                }
            }
        })
    }
}

/// `floor_temporal`, `ceil_temporal` and `round_temporal`.
fn round_to(
    op: &'static str,
    toward: Toward,
    x: &Array,
    unit: &str,
    multiple: i64,
    week_starts_monday: bool,
) -> Result<Array, Error> {
    if let Some(r) = over_categories(&[x], &|a| {
        round_to(op, toward, a[0], unit, multiple, week_starts_monday)
    }) {
        return r;
    }
    let (t, tz) = time_of(op, x)?;
    let span = span_named(op, unit)?;
    let r = Rounder {
        toward,
        ..Rounder::new(op, t, span, multiple, week_starts_monday)?
    };
    let s = t.scalar();
    // Down to a fixed step: the vectorised loop, where no result can fall
    // below the type's range (its least value is far enough above it).
    if toward == Toward::Floor && tz.is_none() && r.months == 0 && r.step > 1 && s.size() == 8 {
        let low = i64::MIN
            .checked_add(r.step)
            .and_then(|l| l.checked_add(r.origin.abs()));
        // The least value of contiguous ticks (an empty array, options or
        // strided ones go to the general loop).
        let ticks = crate::ticks::as_ticks(x)?;
        let least = ticks
            .as_ref()
            .and_then(|t| t.as_slice::<i64>().ok())
            .and_then(|v| v.iter().copied().min());
        let safe = matches!((low, least), (Some(low), Some(least)) if least >= low);
        if safe {
            if let Some(leaf) = Leaf::floor_ticks(s, r.step, r.origin) {
                return apply(&[x], &leaf);
            }
        }
    }
    let leaf = match s.size() {
        4 => Leaf::map(move |v: i32| {
            let r = r.apply(i64::from(v))?;
            i32::try_from(r).map_err(|_| Rounder::overflow())
        }),
        _ => Leaf::map(move |v: i64| r.apply(v)),
    };
    let leaf = leaf.retyped(&[s], s)?;
    let Some(tz) = tz else {
        return apply(&[x], &leaf);
    };
    // A zoned datetime rounds its wall time, read back in the zone (a
    // repeated wall time as its first instant, a skipped one as the
    // instant the clocks jump).
    let wall = wall_time(x)?.ok_or_else(|| Error::Unsupported {
        operation: "rounding a zoned datetime",
        ty: x.ty().clone(),
    })?;
    let rounded = apply(&[&wall], &leaf)?;
    let zone = zone_named(&tz)?;
    let per = t.unit().unwrap_or(TimeUnit::Second).per_second();
    use dynd_kernels::time::zone::Choice;
    let back = Leaf::map(move |w: i64| {
        zone.to_utc(w, per, Choice::Earliest, Choice::Latest)
            .map_err(kernel_error)
    })
    .retyped(&[s], s)?;
    let utc = apply(&[&rounded], &back)?;
    let (dims, dtype) = x.ty().split_dims();
    let _ = dims;
    utc.view_as(dtype)
}

/// Each date, time or datetime of `x` rounded down to a multiple of
/// `multiple` `unit`s (pyarrow's `floor_temporal`): units `"nanosecond"`
/// to `"day"` count from the epoch, `"week"` from a Monday (or a
/// Sunday), `"month"`, `"quarter"` and `"year"` from January 1970. A
/// zoned datetime rounds its wall time.
///
/// ```
/// use dynd::func;
/// use dynd::nd::Array;
///
/// let t = Array::from_json(r#"["2024-02-29T13:45:10", "1969-12-31T23:59:59"]"#, Some(&"2 * datetime[unit=\"s\"]".parse()?))?;
/// assert_eq!(func::floor_temporal(&t, "day", 1, true)?.to_string(), r#"["2024-02-29T00:00:00", "1969-12-31T00:00:00"]"#);
/// assert_eq!(func::ceil_temporal(&t, "month", 1, true)?.to_string(), r#"["2024-03-01T00:00:00", "1970-01-01T00:00:00"]"#);
/// assert_eq!(func::round_temporal(&t, "minute", 15, true)?.to_string(), r#"["2024-02-29T13:45:00", "1970-01-01T00:00:00"]"#);
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// An unknown unit, a multiple below 1 or not a whole number of the
/// type's ticks, a calendar unit for times of day, a result out of range.
pub fn floor_temporal(
    x: &Array,
    unit: &str,
    multiple: i64,
    week_starts_monday: bool,
) -> Result<Array, Error> {
    round_to(
        "floor_temporal",
        Toward::Floor,
        x,
        unit,
        multiple,
        week_starts_monday,
    )
}

/// As [`floor_temporal`], rounding up (a multiple stays).
///
/// # Errors
///
/// As [`floor_temporal`].
pub fn ceil_temporal(
    x: &Array,
    unit: &str,
    multiple: i64,
    week_starts_monday: bool,
) -> Result<Array, Error> {
    round_to(
        "ceil_temporal",
        Toward::Ceil,
        x,
        unit,
        multiple,
        week_starts_monday,
    )
}

/// As [`floor_temporal`], to the nearer multiple (halfway up).
///
/// # Errors
///
/// As [`floor_temporal`].
pub fn round_temporal(
    x: &Array,
    unit: &str,
    multiple: i64,
    week_starts_monday: bool,
) -> Result<Array, Error> {
    round_to(
        "round_temporal",
        Toward::Round,
        x,
        unit,
        multiple,
        week_starts_monday,
    )
}

/// What `*_between` counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Between {
    Years,
    Quarters,
    Weeks,
    Days,
    /// Multiples of this many nanoseconds.
    Fixed(i64),
}

impl Between {
    /// The count of boundaries from `a` to `b` (ticks of `tick_ns`
    /// nanoseconds, `per_day` a day).
    #[inline]
    fn count(self, a: i64, b: i64, tick_ns: i64, per_day: i64) -> i64 {
        let days = |v: i64| v.div_euclid(per_day);
        match self {
            Between::Years => civil_from_days(days(b)).0 - civil_from_days(days(a)).0,
            Between::Quarters => {
                let q = |v: i64| {
                    let (y, m, _) = civil_from_days(days(v));
                    y * 4 + (i64::from(m) - 1) / 3
                };
                q(b) - q(a)
            }
            // Weeks from Monday: 1969-12-29 was one.
            Between::Weeks => (days(b) + 3).div_euclid(7) - (days(a) + 3).div_euclid(7),
            Between::Days => days(b) - days(a),
            Between::Fixed(ns) if ns >= tick_ns => {
                let step = ns / tick_ns;
                b.div_euclid(step) - a.div_euclid(step)
            }
            Between::Fixed(ns) => b.wrapping_sub(a).wrapping_mul(tick_ns / ns),
        }
    }
}

/// `*_between`: pyarrow's counts of unit boundaries from `a` to `b`.
fn between(op: &'static str, kind: Between, a: &Array, b: &Array) -> Result<Array, Error> {
    let (ta, za) = time_of(op, a)?;
    let (tb, zb) = time_of(op, b)?;
    if za != zb {
        return Err(Error::TimeZones {
            name: op.into(),
            why: "datetimes of two time zones, or a naive one with a zoned one",
            found: format!("{}, {}", a.dtype(), b.dtype()).into(),
        });
    }
    let common = dynd_types::promote(&ta.scalar().into(), &tb.scalar().into()).map_err(|_| {
        Error::Argument {
            op,
            what: "the arguments",
            expected: "two dates, two datetimes or two times of day",
            found: format!("{}, {}", a.dtype(), b.dtype()).into(),
        }
    })?;
    let t = common
        .as_scalar()
        .and_then(Scalar::temporal)
        .ok_or_else(|| Error::Argument {
            op,
            what: "the arguments",
            expected: "two dates, two datetimes or two times of day",
            found: format!("{}, {}", a.dtype(), b.dtype()).into(),
        })?;
    if matches!(t, Temporal::TimeDelta(_))
        || (matches!(t, Temporal::Time(_)) && !matches!(kind, Between::Fixed(_)))
    {
        return Err(Error::Argument {
            op,
            what: "the arguments",
            expected: "dates or datetimes (times of day count units of a day or less)",
            found: format!("{}, {}", a.dtype(), b.dtype()).into(),
        });
    }
    // Each in its wall time, then in the common type.
    let local = |x: &Array| -> Result<Array, Error> {
        let x = wall_time(x)?.unwrap_or_else(|| x.clone());
        let ty = {
            let (dims, dtype) = x.ty().split_dims();
            let target = match dtype.kind() {
                TypeKind::Option(_) => Type::option(common.clone())?,
                _ => common.clone(),
            };
            if *dtype == target {
                None
            } else {
                Some(Type::with_dims(dims.into_iter().cloned(), target)?)
            }
        };
        match ty {
            None => Ok(x),
            Some(ty) => Ok(x.cast(&ty, dynd_kernels::ErrorMode::Overflow)?),
        }
    };
    let (a, b) = (local(a)?, local(b)?);
    let tick_ns = t
        .unit()
        .map_or(86_400 * 1_000_000_000, |u| 1_000_000_000 / u.per_second());
    let per_day = 86_400 * 1_000_000_000 / tick_ns;
    let s = t.scalar();
    let leaf = match s.size() {
        4 => Leaf::map(move |x: i32, y: i32| {
            kind.count(i64::from(x), i64::from(y), tick_ns, per_day)
        }),
        _ => Leaf::map(move |x: i64, y: i64| kind.count(x, y, tick_ns, per_day)),
    };
    apply(&[&a, &b], &leaf.retyped(&[s, s], Scalar::Int64)?)
}

/// The naive datetimes of `x` read as wall times in the zone `timezone`
/// (pyarrow's `assume_timezone`): `datetime[unit=…, tz=timezone]`. A
/// wall time the clocks repeat (`ambiguous`) or skip (`nonexistent`) is
/// an error naming the element (`"raise"`), or its `"earliest"` or
/// `"latest"` instant (of a skipped one: the last tick before the jump,
/// or the jump).
///
/// ```
/// use dynd::func;
/// use dynd::nd::Array;
///
/// let t = Array::from_json(r#"["2024-07-01T02:00:00", "2024-10-27T02:30:00"]"#, Some(&"2 * datetime[unit=\"s\"]".parse()?))?;
/// let e = func::assume_timezone(&t, "Europe/Paris", None, None).unwrap_err();
/// assert!(e.to_string().contains("ambiguous"));
/// let p = func::assume_timezone(&t, "Europe/Paris", Some("earliest"), None)?;
/// assert_eq!(p.ty().to_string(), r#"2 * datetime[unit="s", tz="Europe/Paris"]"#);
/// assert_eq!(p.to_string(), r#"["2024-07-01T00:00:00Z", "2024-10-27T00:30:00Z"]"#);
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// `x` not naive datetimes, an unknown zone or choice, a wall time the
/// choices refuse.
pub fn assume_timezone(
    x: &Array,
    timezone: &str,
    ambiguous: Option<&str>,
    nonexistent: Option<&str>,
) -> Result<Array, Error> {
    if let Some(r) = over_categories(&[x], &|a| {
        assume_timezone(a[0], timezone, ambiguous, nonexistent)
    }) {
        return r;
    }
    use dynd_kernels::time::zone::Choice;
    let op = "assume_timezone";
    let (t, tz) = time_of(op, x)?;
    let unit = match (t, tz) {
        (Temporal::DateTime(u), None) => u,
        _ => {
            return Err(Error::Argument {
                op,
                what: "the argument",
                expected: "naive datetimes (no tz)",
                found: x.ty().to_string().into(),
            })
        }
    };
    let choice = |what: &'static str, name: Option<&str>| {
        Choice::from_name(name.unwrap_or("raise")).ok_or_else(|| Error::Argument {
            op,
            what,
            expected: "\"raise\", \"earliest\" or \"latest\"",
            found: format!("{name:?}").into(),
        })
    };
    let (amb, non) = (
        choice("ambiguous", ambiguous)?,
        choice("nonexistent", nonexistent)?,
    );
    let zoned = Type::new(TypeKind::DateTimeTz {
        unit,
        tz: timezone.into(),
    })?;
    let zone = zone_named(timezone)?;
    let per = unit.per_second();
    let s = t.scalar();
    let leaf = Leaf::map(move |w: i64| zone.to_utc(w, per, amb, non).map_err(kernel_error))
        .retyped(&[s], s)?;
    retype_value(apply(&[x], &leaf)?, zoned)
}

/// The number of years boundaries from each `a` to `b` (pyarrow's
/// `years_between`): `int64`, negative where `b` is before `a`;
/// of wall times for zoned datetimes.
///
/// # Errors
///
/// Arguments that are not two dates, datetimes (of one zone) or times.
pub fn years_between(a: &Array, b: &Array) -> Result<Array, Error> {
    if let Some(r) = over_categories(&[a, b], &|x| years_between(x[0], x[1])) {
        return r;
    }
    between("years_between", Between::Years, a, b)
}

/// The number of quarters boundaries from each `a` to `b` (pyarrow's
/// `quarters_between`): `int64`, negative where `b` is before `a`;
/// of wall times for zoned datetimes.
///
/// # Errors
///
/// Arguments that are not two dates, datetimes (of one zone) or times.
pub fn quarters_between(a: &Array, b: &Array) -> Result<Array, Error> {
    if let Some(r) = over_categories(&[a, b], &|x| quarters_between(x[0], x[1])) {
        return r;
    }
    between("quarters_between", Between::Quarters, a, b)
}

/// The number of weeks (starting on Mondays) boundaries from each `a` to `b` (pyarrow's
/// `weeks_between`): `int64`, negative where `b` is before `a`;
/// of wall times for zoned datetimes.
///
/// # Errors
///
/// Arguments that are not two dates, datetimes (of one zone) or times.
pub fn weeks_between(a: &Array, b: &Array) -> Result<Array, Error> {
    if let Some(r) = over_categories(&[a, b], &|x| weeks_between(x[0], x[1])) {
        return r;
    }
    between("weeks_between", Between::Weeks, a, b)
}

/// The number of days boundaries from each `a` to `b` (pyarrow's
/// `days_between`): `int64`, negative where `b` is before `a`;
/// of wall times for zoned datetimes.
///
/// # Errors
///
/// Arguments that are not two dates, datetimes (of one zone) or times.
pub fn days_between(a: &Array, b: &Array) -> Result<Array, Error> {
    if let Some(r) = over_categories(&[a, b], &|x| days_between(x[0], x[1])) {
        return r;
    }
    between("days_between", Between::Days, a, b)
}

/// The number of hours boundaries from each `a` to `b` (pyarrow's
/// `hours_between`): `int64`, negative where `b` is before `a`;
/// of wall times for zoned datetimes.
///
/// # Errors
///
/// Arguments that are not two dates, datetimes (of one zone) or times.
pub fn hours_between(a: &Array, b: &Array) -> Result<Array, Error> {
    if let Some(r) = over_categories(&[a, b], &|x| hours_between(x[0], x[1])) {
        return r;
    }
    between("hours_between", Between::Fixed(3_600_000_000_000), a, b)
}

/// The number of minutes boundaries from each `a` to `b` (pyarrow's
/// `minutes_between`): `int64`, negative where `b` is before `a`;
/// of wall times for zoned datetimes.
///
/// # Errors
///
/// Arguments that are not two dates, datetimes (of one zone) or times.
pub fn minutes_between(a: &Array, b: &Array) -> Result<Array, Error> {
    if let Some(r) = over_categories(&[a, b], &|x| minutes_between(x[0], x[1])) {
        return r;
    }
    between("minutes_between", Between::Fixed(60_000_000_000), a, b)
}

/// The number of seconds boundaries from each `a` to `b` (pyarrow's
/// `seconds_between`): `int64`, negative where `b` is before `a`;
/// of wall times for zoned datetimes.
///
/// # Errors
///
/// Arguments that are not two dates, datetimes (of one zone) or times.
pub fn seconds_between(a: &Array, b: &Array) -> Result<Array, Error> {
    if let Some(r) = over_categories(&[a, b], &|x| seconds_between(x[0], x[1])) {
        return r;
    }
    between("seconds_between", Between::Fixed(1_000_000_000), a, b)
}

/// The number of milliseconds boundaries from each `a` to `b` (pyarrow's
/// `milliseconds_between`): `int64`, negative where `b` is before `a`;
/// of wall times for zoned datetimes.
///
/// # Errors
///
/// Arguments that are not two dates, datetimes (of one zone) or times.
pub fn milliseconds_between(a: &Array, b: &Array) -> Result<Array, Error> {
    if let Some(r) = over_categories(&[a, b], &|x| milliseconds_between(x[0], x[1])) {
        return r;
    }
    between("milliseconds_between", Between::Fixed(1_000_000), a, b)
}

/// The number of microseconds boundaries from each `a` to `b` (pyarrow's
/// `microseconds_between`): `int64`, negative where `b` is before `a`;
/// of wall times for zoned datetimes.
///
/// # Errors
///
/// Arguments that are not two dates, datetimes (of one zone) or times.
pub fn microseconds_between(a: &Array, b: &Array) -> Result<Array, Error> {
    if let Some(r) = over_categories(&[a, b], &|x| microseconds_between(x[0], x[1])) {
        return r;
    }
    between("microseconds_between", Between::Fixed(1_000), a, b)
}

/// The number of nanoseconds boundaries from each `a` to `b` (pyarrow's
/// `nanoseconds_between`): `int64`, negative where `b` is before `a`;
/// of wall times for zoned datetimes.
///
/// # Errors
///
/// Arguments that are not two dates, datetimes (of one zone) or times.
pub fn nanoseconds_between(a: &Array, b: &Array) -> Result<Array, Error> {
    if let Some(r) = over_categories(&[a, b], &|x| nanoseconds_between(x[0], x[1])) {
        return r;
    }
    between("nanoseconds_between", Between::Fixed(1), a, b)
}

builtins! {
    $ TABLE, __temporal_builtins;

    /// `(date | datetime) -> int64`: the year (astronomical: 0 is 1 BC).
    YEAR year "year" f1 None => { part("year", CalendarPart::Year) };

    /// `(date | datetime) -> int64`: the month, 1 to 12.
    MONTH month "month" f1 None => { part("month", CalendarPart::Month) };

    /// `(date | datetime) -> int64`: the day of the month, 1 to 31.
    DAY day "day" f1 None => { part("day", CalendarPart::Day) };

    /// `(date | datetime) -> int64`: the quarter, 1 to 4.
    QUARTER quarter "quarter" f1 None => { part("quarter", CalendarPart::Quarter) };

    /// `(date | datetime) -> int64`: the day of the year, 1 to 366.
    DAY_OF_YEAR day_of_year "day_of_year" f1 None => { part("day_of_year", CalendarPart::DayOfYear) };

    /// `(date | datetime) -> int64`: the day of the week, Monday 0 to
    /// Sunday 6 (pyarrow's default).
    DAY_OF_WEEK day_of_week "day_of_week" f1 None => { part("day_of_week", CalendarPart::DayOfWeek) };

    /// `(date | datetime) -> int64`: the ISO 8601 week-numbering year
    /// (that of the week's Thursday).
    ISO_YEAR iso_year "iso_year" f1 None => { part("iso_year", CalendarPart::IsoYear) };

    /// `(date | datetime) -> int64`: the ISO 8601 week, 1 to 53.
    ISO_WEEK iso_week "iso_week" f1 None => { part("iso_week", CalendarPart::IsoWeek) };

    /// `(date | datetime) -> bool`: whether the year is a leap year.
    IS_LEAP_YEAR is_leap_year "is_leap_year" f1 None => { part("is_leap_year", CalendarPart::IsLeapYear) };

    /// `(datetime | time) -> int64`: the hour, 0 to 23.
    HOUR hour "hour" f1 None => { part("hour", CalendarPart::Hour) };

    /// `(datetime | time) -> int64`: the minute, 0 to 59.
    MINUTE minute "minute" f1 None => { part("minute", CalendarPart::Minute) };

    /// `(datetime | time) -> int64`: the second, 0 to 59.
    SECOND second "second" f1 None => { part("second", CalendarPart::Second) };

    /// `(datetime | time) -> int64`: the milliseconds in the second, 0 to 999.
    MILLISECOND millisecond "millisecond" f1 None => { part("millisecond", CalendarPart::Millisecond) };

    /// `(datetime | time) -> int64`: the microseconds in the millisecond,
    /// 0 to 999.
    MICROSECOND microsecond "microsecond" f1 None => { part("microsecond", CalendarPart::Microsecond) };

    /// `(datetime | time) -> int64`: the nanoseconds in the microsecond,
    /// 0 to 999.
    NANOSECOND nanosecond "nanosecond" f1 None => { part("nanosecond", CalendarPart::Nanosecond) };

    /// `(Any, format: ?string) -> Any`: the text of each date or datetime
    /// in a strftime format (pyarrow's `strftime`).
    STRFTIME strftime "strftime" rs None => {
        Callable::function("strftime", checked_signature!("(Any, format: ?string) -> Any"),
            vec![Keyword::maybe("format", Some(Scalar::String))],
            |args, kw| strftime(args[0], kw.string("format")?.as_deref()))
    };

    /// `(Any, format: string, unit: ?string, error_is_null: ?bool) -> Any`:
    /// strings read as datetimes by a strptime format (pyarrow's).
    STRPTIME strptime "strptime" rs None => {
        Callable::function("strptime", checked_signature!("(Any, format: string, unit: ?string, error_is_null: ?bool) -> Any"),
            vec![
                Keyword::required("format", Scalar::String),
                Keyword::maybe("unit", Some(Scalar::String)),
                Keyword::maybe("error_is_null", Some(Scalar::Bool)),
            ],
            |args, kw| {
                let format = kw.string("format")?.unwrap_or_default();
                strptime(args[0], &format, kw.string("unit")?.as_deref(), kw.bool("error_is_null")?.unwrap_or(false))
            })
    };

    /// `(Any, multiple: ?int64, unit: ?string, week_starts_monday: ?bool)
    /// -> Any`: down to a multiple of the unit (pyarrow's; `unit="day"`).
    FLOOR_TEMPORAL floor_temporal "floor_temporal" rs None => {
        rounding("floor_temporal", floor_temporal)
    };

    /// As `floor_temporal`, up.
    CEIL_TEMPORAL ceil_temporal "ceil_temporal" rs None => {
        rounding("ceil_temporal", ceil_temporal)
    };

    /// As `floor_temporal`, to the nearer multiple.
    ROUND_TEMPORAL round_temporal "round_temporal" rs None => {
        rounding("round_temporal", round_temporal)
    };

    /// `(Any, timezone: string, ambiguous: ?string, nonexistent: ?string)
    /// -> Any`: naive datetimes as wall times in a zone (pyarrow's).
    ASSUME_TIMEZONE assume_timezone "assume_timezone" rs None => {
        Callable::function("assume_timezone", checked_signature!("(Any, timezone: string, ambiguous: ?string, nonexistent: ?string) -> Any"),
            vec![
                Keyword::required("timezone", Scalar::String),
                Keyword::maybe("ambiguous", Some(Scalar::String)),
                Keyword::maybe("nonexistent", Some(Scalar::String)),
            ],
            |args, kw| {
                let tz = kw.string("timezone")?.unwrap_or_default();
                assume_timezone(args[0], &tz, kw.string("ambiguous")?.as_deref(), kw.string("nonexistent")?.as_deref())
            })
    };

    /// `(Any, Any) -> Any`: the years boundaries from `a` to `b`
    /// (pyarrow's); `int64`.
    YEARS_BETWEEN years_between "years_between" rs None => {
        Callable::function("years_between", checked_signature!("(Any, Any) -> Any"), vec![], |args, _| {
            years_between(args[0], args[1])
        })
    };

    /// `(Any, Any) -> Any`: the quarters boundaries from `a` to `b`
    /// (pyarrow's); `int64`.
    QUARTERS_BETWEEN quarters_between "quarters_between" rs None => {
        Callable::function("quarters_between", checked_signature!("(Any, Any) -> Any"), vec![], |args, _| {
            quarters_between(args[0], args[1])
        })
    };

    /// `(Any, Any) -> Any`: the weeks (starting on Mondays) boundaries from `a` to `b`
    /// (pyarrow's); `int64`.
    WEEKS_BETWEEN weeks_between "weeks_between" rs None => {
        Callable::function("weeks_between", checked_signature!("(Any, Any) -> Any"), vec![], |args, _| {
            weeks_between(args[0], args[1])
        })
    };

    /// `(Any, Any) -> Any`: the days boundaries from `a` to `b`
    /// (pyarrow's); `int64`.
    DAYS_BETWEEN days_between "days_between" rs None => {
        Callable::function("days_between", checked_signature!("(Any, Any) -> Any"), vec![], |args, _| {
            days_between(args[0], args[1])
        })
    };

    /// `(Any, Any) -> Any`: the hours boundaries from `a` to `b`
    /// (pyarrow's); `int64`.
    HOURS_BETWEEN hours_between "hours_between" rs None => {
        Callable::function("hours_between", checked_signature!("(Any, Any) -> Any"), vec![], |args, _| {
            hours_between(args[0], args[1])
        })
    };

    /// `(Any, Any) -> Any`: the minutes boundaries from `a` to `b`
    /// (pyarrow's); `int64`.
    MINUTES_BETWEEN minutes_between "minutes_between" rs None => {
        Callable::function("minutes_between", checked_signature!("(Any, Any) -> Any"), vec![], |args, _| {
            minutes_between(args[0], args[1])
        })
    };

    /// `(Any, Any) -> Any`: the seconds boundaries from `a` to `b`
    /// (pyarrow's); `int64`.
    SECONDS_BETWEEN seconds_between "seconds_between" rs None => {
        Callable::function("seconds_between", checked_signature!("(Any, Any) -> Any"), vec![], |args, _| {
            seconds_between(args[0], args[1])
        })
    };

    /// `(Any, Any) -> Any`: the milliseconds boundaries from `a` to `b`
    /// (pyarrow's); `int64`.
    MILLISECONDS_BETWEEN milliseconds_between "milliseconds_between" rs None => {
        Callable::function("milliseconds_between", checked_signature!("(Any, Any) -> Any"), vec![], |args, _| {
            milliseconds_between(args[0], args[1])
        })
    };

    /// `(Any, Any) -> Any`: the microseconds boundaries from `a` to `b`
    /// (pyarrow's); `int64`.
    MICROSECONDS_BETWEEN microseconds_between "microseconds_between" rs None => {
        Callable::function("microseconds_between", checked_signature!("(Any, Any) -> Any"), vec![], |args, _| {
            microseconds_between(args[0], args[1])
        })
    };

    /// `(Any, Any) -> Any`: the nanoseconds boundaries from `a` to `b`
    /// (pyarrow's); `int64`.
    NANOSECONDS_BETWEEN nanoseconds_between "nanoseconds_between" rs None => {
        Callable::function("nanoseconds_between", checked_signature!("(Any, Any) -> Any"), vec![], |args, _| {
            nanoseconds_between(args[0], args[1])
        })
    };
}

/// The callable of a rounding builtin.
fn rounding(
    name: &'static str,
    f: fn(&Array, &str, i64, bool) -> Result<Array, Error>,
) -> Result<Callable, Error> {
    Callable::function(
        name,
        checked_signature!(
            "(Any, multiple: ?int64, unit: ?string, week_starts_monday: ?bool) -> Any"
        ),
        vec![
            Keyword::maybe("multiple", Some(Scalar::Int64)),
            Keyword::maybe("unit", Some(Scalar::String)),
            Keyword::maybe("week_starts_monday", Some(Scalar::Bool)),
        ],
        move |args, kw| {
            let unit = kw.string("unit")?.unwrap_or_else(|| "day".into());
            f(
                args[0],
                &unit,
                kw.int("multiple")?.unwrap_or(1),
                kw.bool("week_starts_monday")?.unwrap_or(true),
            )
        },
    )
}
