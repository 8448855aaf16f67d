//! Time zones: the IANA database (bundled with the library, so that every
//! machine reads the same rules), fixed offsets and UTC, through `jiff`.
//!
//! A zoned `datetime[tz="…"]` holds UTC instants; its calendar parts are
//! the wall time in the zone, [`Zone::offset_at`] the instant. A wall time
//! read in a zone ([`Zone::local`]) may be ambiguous (a fold: the hour the
//! clocks repeat) or not exist (a gap: the hour they skip).
//!
//! ```
//! use dynd::nd::time::zone;
//!
//! let paris = zone::get("Europe/Paris")?;
//! assert_eq!(paris.offset_at(1_719_792_000), 7200); // 2024-07-01T00:00Z, summer time
//! assert_eq!(paris.offset_at(1_704_067_200), 3600); // 2024-01-01T00:00Z
//! assert_eq!(zone::get("+05:30")?.offset_at(0), 19_800);
//! assert!(zone::get("Mars/Olympus").is_err());
//! # Ok::<(), String>(())
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use jiff::tz::{AmbiguousOffset, Offset, TimeZone};

/// A time zone, found by [`get`].
#[derive(Clone, Debug)]
pub struct Zone {
    tz: TimeZone,
    /// UTC or a fixed offset: one offset at every instant.
    fixed: Option<i32>,
}

/// A wall time read in a zone: one instant, or two (a fold), or none (a
/// gap), each as the offset that gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Local {
    /// The wall time happens once, at this offset (seconds east of UTC).
    Unique(i32),
    /// The clocks skipped the wall time: the offsets before and after the
    /// jump.
    Gap {
        /// The offset before the transition.
        before: i32,
        /// The offset after the transition.
        after: i32,
    },
    /// The wall time happens twice: first at `before`, then at `after`.
    Fold {
        /// The offset of the first occurrence.
        before: i32,
        /// The offset of the second occurrence.
        after: i32,
    },
}

/// What to do with a wall time that is ambiguous or does not exist
/// (pyarrow's `assume_timezone` options).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Fail, naming the element.
    Raise,
    /// The earlier instant: the first of a repeated wall time; for a
    /// skipped one, the last tick before the clocks jump.
    Earliest,
    /// The later instant: the second of a repeated wall time; for a
    /// skipped one, the instant the clocks jump.
    Latest,
}

impl Choice {
    /// The choice called `name` (`"raise"`, `"earliest"`, `"latest"`).
    pub fn from_name(name: &str) -> Option<Choice> {
        Some(match name {
            "raise" => Choice::Raise,
            "earliest" => Choice::Earliest,
            "latest" => Choice::Latest,
            _ => return None,
        })
    }
}

/// The first and last second jiff's timestamps reach (years -9999 to
/// 9999); instants past them read the offset at the bound.
const FIRST: i64 = -377_705_116_800;
const LAST: i64 = 253_402_207_199;

/// The zone called `name`: an IANA name (`"Europe/Paris"`, `"UTC"`), or a
/// fixed offset `±hh:mm`. Found once per name, then shared.
///
/// # Errors
///
/// A name the database does not have, saying so.
pub fn get(name: &str) -> Result<Zone, String> {
    static ZONES: Mutex<Option<HashMap<Arc<str>, Zone>>> = Mutex::new(None);
    let mut zones = ZONES.lock().unwrap_or_else(|p| p.into_inner());
    let zones = zones.get_or_insert_with(HashMap::new);
    if let Some(z) = zones.get(name) {
        return Ok(z.clone());
    }
    let z = find(name)?;
    zones.insert(name.into(), z.clone());
    Ok(z)
}

fn find(name: &str) -> Result<Zone, String> {
    let unknown = || {
        format!(
            "unknown time zone \"{name}\" (an IANA name such as \"Europe/Paris\" or \
             \"America/New_York\", \"UTC\", or an offset such as \"+05:30\")"
        )
    };
    if let Some(seconds) = fixed_offset(name) {
        let offset = Offset::from_seconds(seconds).map_err(|_| unknown())?;
        return Ok(Zone {
            tz: TimeZone::fixed(offset),
            fixed: Some(seconds),
        });
    }
    if name == "UTC" || name == "Z" {
        return Ok(Zone {
            tz: TimeZone::UTC,
            fixed: Some(0),
        });
    }
    let tz = TimeZone::get(name).map_err(|_| unknown())?;
    Ok(Zone { tz, fixed: None })
}

/// `±hh:mm` (or `±hhmm`, `±hh`) as seconds east of UTC.
fn fixed_offset(name: &str) -> Option<i32> {
    let b = name.as_bytes();
    let sign = match b.first()? {
        b'+' => 1,
        b'-' => -1,
        _ => return None,
    };
    let digits: Vec<u8> = b[1..].iter().copied().filter(|c| *c != b':').collect();
    if !(digits.len() == 2 || digits.len() == 4) || !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    let n = |i: usize| i32::from(digits[i] - b'0') * 10 + i32::from(digits[i + 1] - b'0');
    let (h, m) = (n(0), if digits.len() == 4 { n(2) } else { 0 });
    (h <= 23 && m <= 59).then_some(sign * (h * 3600 + m * 60))
}

impl Zone {
    /// The UTC offset (seconds east) or `None`: whether the zone has one
    /// offset at every instant (UTC, `+05:30`).
    pub fn fixed(&self) -> Option<i32> {
        self.fixed
    }

    /// The offset from UTC (seconds east) at the instant `utc_seconds`
    /// after the Unix epoch.
    pub fn offset_at(&self, utc_seconds: i64) -> i32 {
        if let Some(o) = self.fixed {
            return o;
        }
        let s = utc_seconds.clamp(FIRST, LAST);
        match jiff::Timestamp::from_second(s) {
            Ok(t) => self.tz.to_offset(t).seconds(),
            Err(_) => 0,
        }
    }

    /// The instants of the wall time `local_seconds` after 1970-01-01T00:00
    /// in this zone.
    pub fn local(&self, local_seconds: i64) -> Local {
        if let Some(o) = self.fixed {
            return Local::Unique(o);
        }
        let s = local_seconds.clamp(FIRST + 86_400, LAST - 86_400);
        let days = s.div_euclid(86_400);
        let in_day = s.rem_euclid(86_400);
        let (y, m, d) = super::civil_from_days(days);
        let dt = jiff::civil::DateTime::new(
            y as i16,
            m as i8,
            d as i8,
            (in_day / 3600) as i8,
            (in_day / 60 % 60) as i8,
            (in_day % 60) as i8,
            0,
        );
        let Ok(dt) = dt else {
            return Local::Unique(self.offset_at(local_seconds));
        };
        match self.tz.to_ambiguous_timestamp(dt).offset() {
            AmbiguousOffset::Unambiguous { offset } => Local::Unique(offset.seconds()),
            AmbiguousOffset::Gap { before, after } => Local::Gap {
                before: before.seconds(),
                after: after.seconds(),
            },
            AmbiguousOffset::Fold { before, after } => Local::Fold {
                before: before.seconds(),
                after: after.seconds(),
            },
        }
    }

    /// The UTC instant (ticks, `per` ticks a second) of the wall time
    /// `wall` (ticks since 1970-01-01T00:00) in this zone, choosing for
    /// an ambiguous or skipped one as told.
    ///
    /// # Errors
    ///
    /// A wall time the clocks repeat or skip under [`Choice::Raise`],
    /// saying which; an instant past `i64`.
    pub fn to_utc(
        &self,
        wall: i64,
        per: i64,
        ambiguous: Choice,
        nonexistent: Choice,
    ) -> Result<i64, &'static str> {
        let shift = |o: i32| {
            wall.checked_sub(i64::from(o) * per)
                .ok_or("out of the range of the unit")
        };
        match self.local(wall.div_euclid(per)) {
            Local::Unique(o) => shift(o),
            Local::Fold { before, after } => match ambiguous {
                Choice::Raise => {
                    Err("the wall time is ambiguous in the zone (the clocks repeat it)")
                }
                Choice::Earliest => shift(before),
                Choice::Latest => shift(after),
            },
            Local::Gap { before, after } => {
                if nonexistent == Choice::Raise {
                    return Err("the wall time does not exist in the zone (the clocks skip it)");
                }
                // The jump is between the instants the two offsets give:
                // the first second at the later offset.
                let local = wall.div_euclid(per);
                let (mut lo, mut hi) = (local - i64::from(after), local - i64::from(before));
                while lo < hi {
                    let mid = lo + (hi - lo) / 2;
                    if self.offset_at(mid) == after {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                let jump = lo.checked_mul(per).ok_or("out of the range of the unit")?;
                Ok(match nonexistent {
                    Choice::Earliest => jump - 1,
                    _ => jump,
                })
            }
        }
    }
}
