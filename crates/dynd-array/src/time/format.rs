//! `strftime` and `strptime` formats: C's directives, as pyarrow's
//! `strftime`/`strptime` take them, parsed once per call.
//!
//! | directive | writes (reads) |
//! |---|---|
//! | `%Y` | the year, at least 4 digits (a sign before a negative one) |
//! | `%C`, `%y` | the century; the year in the century (2 digits; read as 1969..2068) |
//! | `%m`, `%d`, `%e` | month, day (2 digits; `%e` space-padded) |
//! | `%j` | day of the year (3 digits) |
//! | `%H`, `%I`, `%p` | hour (24h, 12h), `AM`/`PM` |
//! | `%M` | minute |
//! | `%S` | second, with the fraction of a unit finer than a second (`05.250` in ms: pyarrow's) |
//! | `%f` | the fraction of the second as the unit's digits (3, 6 or 9; read: 1 to 9 digits) |
//! | `%a`, `%A`, `%b`/`%h`, `%B` | weekday and month names (English, C locale) |
//! | `%u`, `%w` | weekday, Monday 1 to Sunday 7; Sunday 0 to Saturday 6 |
//! | `%G`, `%g`, `%V` | ISO 8601 week-numbering year (4, 2 digits) and week |
//! | `%U`, `%W` | week of the year, weeks starting Sunday, Monday (00 to 53) |
//! | `%z`, `%Z` | the UTC offset (`+0100`; read: `Z`, `±hh`, `±hhmm`, `±hh:mm`), the zone's name |
//! | `%F`, `%T`, `%D`, `%R` | `%Y-%m-%d`, `%H:%M:%S`, `%m/%d/%y`, `%H:%M` |
//! | `%%`, `%n`, `%t` | `%`, newline, tab |
//!
//! ```
//! use dynd::nd::time::format::Format;
//! use dynd::ndt::TimeUnit;
//!
//! let f = Format::parse("%a %d %b %Y %H:%M:%S")?;
//! let mut s = String::new();
//! f.write(&mut s, 1_709_214_310_250, TimeUnit::Milli, None).unwrap();
//! assert_eq!(s, "Thu 29 Feb 2024 13:45:10.250");
//! let p = Format::parse("%d/%m/%Y %H:%M")?;
//! assert_eq!(p.read("29/02/2024 13:45", TimeUnit::Second)?, (1_709_214_300, None));
//! # Ok::<(), dynd::nd::TimeTextError>(())
//! ```

use std::fmt::Write;

use dynd_types::TimeUnit;

use super::{civil_from_days, days_from_civil, days_in_month, weekday, TimeTextError, DAY_SECONDS};

const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];
/// The months' English names.
pub(super) const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];

/// One piece of a format.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Item {
    Literal(String),
    Directive(u8),
}

/// A parsed `strftime`/`strptime` format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Format {
    items: Vec<Item>,
    /// What its directives need of a value ([`NEEDS_CIVIL`], …): only
    /// those are computed, before the loop over the items. (Computed in
    /// the loop, the compiler hoists every directive's arithmetic out of
    /// it and runs all of it for every value.)
    needs: u8,
}

/// The date (year, month, day).
const NEEDS_CIVIL: u8 = 1;
/// The day of the week.
const NEEDS_WEEKDAY: u8 = 2;
/// The time of day.
const NEEDS_TIME: u8 = 4;

/// What directive `d` needs of a value.
fn needs(d: u8) -> u8 {
    match d {
        b'Y' | b'C' | b'y' | b'm' | b'd' | b'e' | b'j' | b'b' | b'h' | b'B' => NEEDS_CIVIL,
        b'U' | b'W' => NEEDS_CIVIL | NEEDS_WEEKDAY,
        b'a' | b'A' | b'u' | b'w' => NEEDS_WEEKDAY,
        b'H' | b'I' | b'p' | b'M' | b'S' | b'f' => NEEDS_TIME,
        _ => 0,
    }
}

/// `(floor(t / PER), t mod PER)`.
#[inline(always)]
fn split_day<const PER: i64>(t: i64) -> (i64, i64) {
    (t.div_euclid(PER), t.rem_euclid(PER))
}

/// The date of `days` since 1970-01-01: in 32-bit arithmetic in the fast
/// range, else in 64-bit.
#[inline(always)]
fn civil_of(days: i64) -> (i64, u32, u32) {
    if (super::fast::FAST_MIN..=super::fast::FAST_MAX).contains(&days) {
        let (y, m, d, _) = super::fast::civil32(days);
        (i64::from(y), m, d)
    } else {
        civil_wide(days)
    }
}

#[cold]
#[inline(never)]
fn civil_wide(days: i64) -> (i64, u32, u32) {
    civil_from_days(days)
}

/// The ISO 8601 week-numbering year and week of `days` (a call: computed
/// only where `%G`, `%g` or `%V` asks).
#[inline(never)]
fn iso_week(days: i64) -> (i64, i64) {
    let thursday = days - i64::from(weekday(days)) + 3;
    let iso_year = civil_from_days(thursday).0;
    (
        iso_year,
        (thursday - days_from_civil(iso_year, 1, 1)) / 7 + 1,
    )
}

/// The days of `days` since January 1st of its year `year` (a call, as
/// [`iso_week`]).
#[inline(never)]
fn days_into_year(days: i64, year: i64) -> i64 {
    days - days_from_civil(year, 1, 1)
}

/// A unit's divisions, made once for many values: the ticks of a day and
/// of a second and their inverses.
#[derive(Clone, Copy, Debug)]
pub struct UnitDiv {
    unit: TimeUnit,
    per: i64,
    inv: f64,
}

impl UnitDiv {
    /// The divisions of `unit`.
    pub fn new(unit: TimeUnit) -> UnitDiv {
        let per = unit.per_second();
        UnitDiv {
            unit,
            per,
            inv: 1.0 / per as f64,
        }
    }
}

/// The zone a value is written in: its offset (seconds east of UTC) and
/// name, for `%z` and `%Z`.
#[derive(Clone, Copy, Debug)]
pub struct ZoneText<'a> {
    /// Seconds east of UTC.
    pub offset: i32,
    /// The zone's name (`Europe/Paris`, `UTC`).
    pub name: &'a str,
}

/// Text gathered on the stack and handed to the writer in one piece (or
/// a few, past 64 bytes): whole strings go in, so each piece is UTF-8.
struct Buf<'w, W: Write> {
    bytes: [u8; 64],
    len: usize,
    out: &'w mut W,
}

impl<W: Write> Buf<'_, W> {
    fn flush(&mut self) -> std::fmt::Result {
        if self.len > 0 {
            let s = std::str::from_utf8(&self.bytes[..self.len]).map_err(|_| std::fmt::Error)?;
            self.out.write_str(s)?;
            self.len = 0;
        }
        Ok(())
    }

    #[inline]
    fn str(&mut self, s: &str) -> std::fmt::Result {
        if self.len + s.len() > self.bytes.len() {
            self.flush()?;
            if s.len() > self.bytes.len() {
                return self.out.write_str(s);
            }
        }
        // Byte by byte: the pieces are short (a separator, a name), and
        // a copy of unknown length is a call.
        for (d, b) in self.bytes[self.len..].iter_mut().zip(s.bytes()) {
            *d = b;
        }
        self.len += s.len();
        Ok(())
    }

    /// `v` in decimal, zero-padded to `width` digits (more if it needs),
    /// written in place from its last digit.
    #[inline]
    fn digits(&mut self, v: u64, width: usize) -> std::fmt::Result {
        let mut n = width.max(1);
        let mut rest = v;
        for _ in 0..n {
            rest /= 10;
        }
        while rest > 0 {
            rest /= 10;
            n += 1;
        }
        if self.len + n > self.bytes.len() {
            self.flush()?;
        }
        let mut v = v;
        for d in self.bytes[self.len..self.len + n].iter_mut().rev() {
            *d = b'0' + (v % 10) as u8;
            v /= 10;
        }
        self.len += n;
        Ok(())
    }
}

fn fail<T>(why: impl Into<String>) -> Result<T, TimeTextError> {
    Err(TimeTextError(why.into()))
}

impl Format {
    /// Parses a format; `%F`, `%T`, `%D` and `%R` expand to their
    /// directives.
    ///
    /// # Errors
    ///
    /// An unknown directive, or a `%` at the end.
    pub fn parse(format: &str) -> Result<Format, TimeTextError> {
        let mut items = Vec::new();
        let mut lit = String::new();
        let mut chars = format.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                lit.push(c);
                continue;
            }
            let Some(d) = chars.next() else {
                return fail("the format ends with a lone '%'");
            };
            let expand: &str = match d {
                '%' => {
                    lit.push('%');
                    continue;
                }
                'n' => {
                    lit.push('\n');
                    continue;
                }
                't' => {
                    lit.push('\t');
                    continue;
                }
                'F' => "Y-m-d",
                'T' => "H:M:S",
                'D' => "m/d/y",
                'R' => "H:M",
                'Y' | 'C' | 'y' | 'm' | 'd' | 'e' | 'j' | 'H' | 'I' | 'p' | 'M' | 'S' | 'f'
                | 'a' | 'A' | 'b' | 'h' | 'B' | 'u' | 'w' | 'G' | 'g' | 'V' | 'U' | 'W' | 'z'
                | 'Z' => {
                    if !lit.is_empty() {
                        items.push(Item::Literal(std::mem::take(&mut lit)));
                    }
                    items.push(Item::Directive(d as u8));
                    continue;
                }
                other => {
                    return fail(format!(
                        "unknown directive '%{other}' in the format \"{format}\""
                    ))
                }
            };
            for (i, part) in expand.split(['-', ':', '/']).enumerate() {
                if i > 0 {
                    lit.push(expand.as_bytes()[2 * i - 1] as char);
                }
                if !lit.is_empty() {
                    items.push(Item::Literal(std::mem::take(&mut lit)));
                }
                items.push(Item::Directive(part.as_bytes()[0]));
            }
        }
        if !lit.is_empty() {
            items.push(Item::Literal(lit));
        }
        let needs = items
            .iter()
            .map(|i| match i {
                Item::Directive(d) => needs(*d),
                Item::Literal(_) => 0,
            })
            .fold(0, |a, b| a | b);
        Ok(Format { items, needs })
    }

    /// Whether the format has `%z` (so what it reads is an instant).
    pub fn has_offset(&self) -> bool {
        self.items.contains(&Item::Directive(b'z'))
    }

    /// Writes the datetime `ticks` of `unit` since the epoch (a wall
    /// time) as this format says; `zone` gives `%z` and `%Z` (UTC
    /// without one).
    ///
    /// # Errors
    ///
    /// Only the writer's.
    pub fn write(
        &self,
        out: &mut impl Write,
        ticks: i64,
        unit: TimeUnit,
        zone: Option<ZoneText<'_>>,
    ) -> std::fmt::Result {
        self.write_with(out, ticks, &UnitDiv::new(unit), zone)
    }

    /// [`Format::write`] with the unit's divisions made once
    /// ([`UnitDiv`]), for a loop over many values.
    ///
    /// # Errors
    ///
    /// Only the writer's.
    #[inline]
    pub fn write_with(
        &self,
        out: &mut impl Write,
        ticks: i64,
        div: &UnitDiv,
        zone: Option<ZoneText<'_>>,
    ) -> std::fmt::Result {
        let mut b = Buf {
            bytes: [0; 64],
            len: 0,
            out,
        };
        let (unit, per) = (div.unit, div.per);
        // The day and the ticks into it: a division by a constant of each
        // unit (a multiplication), the unit's branch the same every time.
        let (days, in_day) = match unit {
            TimeUnit::Second => split_day::<DAY_SECONDS>(ticks),
            TimeUnit::Milli => split_day::<{ DAY_SECONDS * 1_000 }>(ticks),
            TimeUnit::Micro => split_day::<{ DAY_SECONDS * 1_000_000 }>(ticks),
            TimeUnit::Nano => split_day::<{ DAY_SECONDS * 1_000_000_000 }>(ticks),
        };
        // What the directives need, and only that, computed once.
        let (secs, frac) = if self.needs & NEEDS_TIME != 0 {
            // Below a day's ticks: exact in `f64`.
            let secs = super::fast::floor_div(in_day, per, div.inv);
            (secs, in_day - secs * per)
        } else {
            (0, 0)
        };
        let ymd = if self.needs & NEEDS_CIVIL != 0 {
            civil_of(days)
        } else {
            (1970, 1, 1)
        };
        let wd = if self.needs & NEEDS_WEEKDAY != 0 {
            weekday(days)
        } else {
            0
        };
        let civil = || ymd;
        let weekday = |_| wd;
        let digits = unit.digits() as usize;
        for item in &self.items {
            match item {
                Item::Literal(s) => b.str(s)?,
                Item::Directive(d) => match d {
                    b'Y' => {
                        let y = civil().0;
                        if (0..=9999).contains(&y) {
                            b.digits(y as u64, 4)?;
                        } else {
                            if y < 0 {
                                b.str("-")?;
                            }
                            b.digits(y.unsigned_abs(), 4)?;
                        }
                    }
                    b'C' => {
                        let c = civil().0.div_euclid(100);
                        if c < 0 {
                            b.str("-")?;
                        }
                        b.digits(c.unsigned_abs(), 2)?;
                    }
                    b'y' => b.digits(civil().0.rem_euclid(100) as u64, 2)?,
                    b'm' => b.digits(u64::from(civil().1), 2)?,
                    b'd' => b.digits(u64::from(civil().2), 2)?,
                    b'e' => {
                        let d = civil().2;
                        if d < 10 {
                            b.str(" ")?;
                        }
                        b.digits(u64::from(d), 1)?;
                    }
                    b'j' => b.digits(days_into_year(days, civil().0) as u64 + 1, 3)?,
                    b'H' => b.digits((secs / 3600) as u64, 2)?,
                    b'I' => {
                        let h = (secs / 3600) as u64 % 12;
                        b.digits(if h == 0 { 12 } else { h }, 2)?;
                    }
                    b'p' => b.str(if secs < 43_200 { "AM" } else { "PM" })?,
                    b'M' => b.digits((secs / 60 % 60) as u64, 2)?,
                    b'S' => {
                        b.digits((secs % 60) as u64, 2)?;
                        if digits > 0 {
                            b.str(".")?;
                            b.digits(frac as u64, digits)?;
                        }
                    }
                    b'f' if digits > 0 => b.digits(frac as u64, digits)?,
                    b'a' => b.str(&DAYS[weekday(days) as usize][..3])?,
                    b'A' => b.str(DAYS[weekday(days) as usize])?,
                    b'b' | b'h' => b.str(&MONTHS[civil().1 as usize - 1][..3])?,
                    b'B' => b.str(MONTHS[civil().1 as usize - 1])?,
                    b'u' => b.digits(u64::from(weekday(days) + 1), 1)?,
                    b'w' => b.digits(u64::from((weekday(days) + 1) % 7), 1)?,
                    b'G' | b'g' | b'V' => {
                        let (iso_year, week) = iso_week(days);
                        match d {
                            b'G' => {
                                if iso_year < 0 {
                                    b.str("-")?;
                                }
                                b.digits(iso_year.unsigned_abs(), 4)?;
                            }
                            b'g' => b.digits(iso_year.rem_euclid(100) as u64, 2)?,
                            _ => b.digits(week as u64, 2)?,
                        }
                    }
                    b'U' | b'W' => {
                        let doy = days_into_year(days, civil().0);
                        // Days since the week's first day (Sunday or Monday).
                        let since = if *d == b'U' {
                            (weekday(days) + 1) % 7
                        } else {
                            weekday(days)
                        };
                        let week = (doy + 7 - i64::from(since)) / 7;
                        b.digits(week as u64, 2)?;
                    }
                    b'z' => {
                        let o = zone.map_or(0, |z| z.offset);
                        b.str(if o < 0 { "-" } else { "+" })?;
                        let o = u64::from(o.unsigned_abs());
                        b.digits(o / 3600, 2)?;
                        b.digits(o / 60 % 60, 2)?;
                    }
                    b'Z' => b.str(zone.map_or("UTC", |z| z.name))?,
                    _ => {}
                },
            }
        }
        b.flush()
    }

    /// Reads `text` as this format says: the ticks of `unit` since the
    /// epoch of the wall time written, and the offset (`%z`) if one was
    /// read. Fields not in the format take 1970-01-01T00:00:00's.
    ///
    /// # Errors
    ///
    /// Text that does not match, naming where and what was expected; a
    /// date that does not exist; a value out of the unit's range.
    pub fn read(&self, text: &str, unit: TimeUnit) -> Result<(i64, Option<i32>), TimeTextError> {
        let s = text.as_bytes();
        let mut at = 0;
        let (mut year, mut month, mut day) = (1970i64, 1u32, 1u32);
        let mut day_of_year: Option<i64> = None;
        let (mut hour, mut minute, mut second) = (0i64, 0i64, 0i64);
        let mut pm: Option<bool> = None;
        let mut frac: i64 = 0;
        let mut offset: Option<i32> = None;
        let digits = unit.digits() as usize;
        // Up to `max` digits (at least one), as a number.
        let number = |at: &mut usize, max: usize, what: &str| -> Result<i64, TimeTextError> {
            let start = *at;
            let mut v: i64 = 0;
            while *at < s.len() && *at - start < max && s[*at].is_ascii_digit() {
                v = v * 10 + i64::from(s[*at] - b'0');
                *at += 1;
            }
            if *at == start {
                return fail(format!("expected the {what} at byte {start} of {text:?}"));
            }
            Ok(v)
        };
        let name = |at: &mut usize, names: &[&str], what: &str| -> Result<usize, TimeTextError> {
            for (i, n) in names.iter().enumerate() {
                for len in [n.len(), 3] {
                    let end = *at + len;
                    if end <= s.len() && s[*at..end].eq_ignore_ascii_case(&n.as_bytes()[..len]) {
                        *at = end;
                        return Ok(i);
                    }
                }
            }
            fail(format!("expected a {what} name at byte {at} of {text:?}"))
        };
        for item in &self.items {
            match item {
                Item::Literal(l) => {
                    for c in l.bytes() {
                        if c.is_ascii_whitespace() {
                            while at < s.len() && s[at].is_ascii_whitespace() {
                                at += 1;
                            }
                        } else if s.get(at) == Some(&c) {
                            at += 1;
                        } else {
                            return fail(format!(
                                "expected {:?} at byte {at} of {text:?}",
                                c as char
                            ));
                        }
                    }
                }
                Item::Directive(d) => match d {
                    b'Y' | b'G' => {
                        let negative = s.get(at) == Some(&b'-');
                        if negative || s.get(at) == Some(&b'+') {
                            at += 1;
                        }
                        let y = number(&mut at, 9, "year")?;
                        year = if negative { -y } else { y };
                    }
                    b'y' | b'g' => {
                        let y = number(&mut at, 2, "year")?;
                        // POSIX: 69..99 are 1969..1999, 00..68 2000..2068.
                        year = if y >= 69 { 1900 + y } else { 2000 + y };
                    }
                    b'C' => {
                        let c = number(&mut at, 2, "century")?;
                        year = c * 100 + year.rem_euclid(100);
                    }
                    b'm' => month = number(&mut at, 2, "month")? as u32,
                    b'd' | b'e' => {
                        while s.get(at) == Some(&b' ') {
                            at += 1;
                        }
                        day = number(&mut at, 2, "day")? as u32;
                    }
                    b'j' => day_of_year = Some(number(&mut at, 3, "day of the year")?),
                    b'H' => hour = number(&mut at, 2, "hour")?,
                    b'I' => hour = number(&mut at, 2, "hour")?,
                    b'p' => {
                        let i = name(&mut at, &["AM", "PM"], "AM/PM")?;
                        pm = Some(i == 1);
                    }
                    b'M' => minute = number(&mut at, 2, "minute")?,
                    b'S' => {
                        second = number(&mut at, 2, "second")?;
                        if s.get(at) == Some(&b'.') && s.get(at + 1).is_some_and(u8::is_ascii_digit)
                        {
                            at += 1;
                            frac = fraction(s, &mut at, digits, text)?;
                        }
                    }
                    b'f' => frac = fraction(s, &mut at, digits, text)?,
                    b'a' | b'A' => {
                        name(&mut at, &DAYS, "weekday")?;
                    }
                    b'b' | b'h' | b'B' => month = name(&mut at, &MONTHS, "month")? as u32 + 1,
                    b'u' | b'w' => {
                        number(&mut at, 1, "weekday")?;
                    }
                    b'V' | b'U' | b'W' => {
                        number(&mut at, 2, "week")?;
                    }
                    b'z' => {
                        let (o, end) = read_offset(s, at).ok_or_else(|| {
                            TimeTextError(format!(
                                "expected an offset (Z, +hh:mm) at byte {at} of {text:?}"
                            ))
                        })?;
                        offset = Some(o);
                        at = end;
                    }
                    b'Z' => {
                        while at < s.len()
                            && (s[at].is_ascii_alphanumeric() || b"/_+-".contains(&s[at]))
                        {
                            at += 1;
                        }
                    }
                    _ => {}
                },
            }
        }
        if at != s.len() {
            return fail(format!("unexpected text at byte {at} of {text:?}"));
        }
        if let Some(p) = pm {
            if !(1..=12).contains(&hour) {
                return fail(format!(
                    "hour {hour} is not 1 to 12 beside AM/PM in {text:?}"
                ));
            }
            hour = hour % 12 + if p { 12 } else { 0 };
        }
        if hour > 23 || minute > 59 || second > 60 {
            return fail(format!(
                "{hour:02}:{minute:02}:{second:02} is not a time of day in {text:?}"
            ));
        }
        let days = match day_of_year {
            Some(n) => {
                let last = if super::is_leap_year(year) { 366 } else { 365 };
                if !(1..=last).contains(&n) {
                    return fail(format!("day {n} is not a day of {year} in {text:?}"));
                }
                days_from_civil(year, 1, 1) + n - 1
            }
            None => {
                if !(1..=12).contains(&month) {
                    return fail(format!("month {month} is not 1 to 12 in {text:?}"));
                }
                if day == 0 || day > days_in_month(year, month) {
                    return fail(format!("{year:04}-{month:02} has no day {day} in {text:?}"));
                }
                days_from_civil(year, month, day)
            }
        };
        let per = unit.per_second();
        let seconds = days * DAY_SECONDS + hour * 3600 + minute * 60 + second;
        let ticks = seconds
            .checked_mul(per)
            .and_then(|t| t.checked_add(frac))
            .ok_or_else(|| {
                TimeTextError(format!(
                    "{text:?} is out of the range of the unit \"{}\"",
                    unit.name()
                ))
            })?;
        Ok((ticks, offset))
    }
}

/// A fraction of a second: 1 to 9 digits, as ticks of a unit of
/// `digits` digits (more digits than the unit holds must be zeros).
fn fraction(s: &[u8], at: &mut usize, digits: usize, text: &str) -> Result<i64, TimeTextError> {
    let start = *at;
    let mut v: i64 = 0;
    while *at < s.len() && s[*at].is_ascii_digit() && *at - start < 9 {
        let k = *at - start;
        if k < digits {
            v = v * 10 + i64::from(s[*at] - b'0');
        } else if s[*at] != b'0' {
            return fail(format!(
                "the fraction at byte {start} of {text:?} has more digits than the unit holds ({digits})"
            ));
        }
        *at += 1;
    }
    let n = *at - start;
    if n == 0 {
        return fail(format!(
            "expected the fraction of a second at byte {start} of {text:?}"
        ));
    }
    for _ in n..digits {
        v *= 10;
    }
    Ok(v)
}

/// An offset at `at`: `Z`, `±hh`, `±hhmm` or `±hh:mm`; seconds east of
/// UTC and the end.
fn read_offset(s: &[u8], at: usize) -> Option<(i32, usize)> {
    match s.get(at)? {
        b'Z' | b'z' => return Some((0, at + 1)),
        b'+' | b'-' => {}
        _ => return None,
    }
    let sign = if s[at] == b'-' { -1 } else { 1 };
    let d = |i: usize| {
        s.get(i)
            .filter(|c| c.is_ascii_digit())
            .map(|c| i32::from(c - b'0'))
    };
    let h = d(at + 1)? * 10 + d(at + 2)?;
    let mut end = at + 3;
    let mut m = 0;
    if s.get(end) == Some(&b':') {
        end += 1;
    }
    if let (Some(a), Some(b)) = (d(end), d(end + 1)) {
        m = a * 10 + b;
        end += 2;
    } else if s.get(end - 1) == Some(&b':') {
        return None;
    }
    (h <= 23 && m <= 59).then_some((sign * (h * 3600 + m * 60), end))
}
