use dynd::nd::{Date, DateTime, Ns, TimeDelta, S};
use dynd::prelude::*;

/// Saturday or Sunday.
#[elemental]
fn is_weekend(d: Date) -> bool {
    d.weekday() >= 5
}

/// Whole years from `born` to `now`.
#[elemental]
fn age(born: Date, now: Date) -> i64 {
    let years = now.year() - born.year();
    if (now.month(), now.day()) < (born.month(), born.day()) {
        years - 1
    } else {
        years
    }
}

/// The duration from midnight, in seconds.
#[elemental]
fn since_midnight(t: DateTime<Ns>) -> TimeDelta<S> {
    TimeDelta::from_ticks(t.ticks().rem_euclid(86_400_000_000_000) / 1_000_000_000)
}

/// A stay: when it began, how long it took, and the day it was booked.
#[derive(Record, Clone, Copy, Debug, PartialEq)]
#[repr(C)]
struct Stay {
    start: DateTime<Ns>,
    took: TimeDelta<Ns>,
    booked: Date,
    nights: i32,
}

/// When a stay ended.
#[elemental]
fn end(s: Stay) -> DateTime<Ns> {
    DateTime::from_ticks(s.start.ticks() + s.took.ticks())
}

/// A stay moved by a duration (a record out).
#[elemental]
fn moved(s: Stay, by: TimeDelta<Ns>) -> Stay {
    Stay { start: DateTime::from_ticks(s.start.ticks() + by.ticks()), ..s }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    assert_eq!(
        Stay::DATASHAPE,
        "{start: datetime[unit=\"ns\"], took: timedelta[unit=\"ns\"], booked: date, nights: int32}"
    );
    let hour = 3_600_000_000_000;
    let stays = vec![
        Stay { start: DateTime::from_ticks(0), took: TimeDelta::from_ticks(hour), booked: Date::from_days(-3), nights: 1 },
        Stay { start: DateTime::from_ticks(-hour), took: TimeDelta::from_ticks(2 * hour), booked: Date::from_days(0), nights: 2 },
    ];
    let a = Array::from_records(stays.clone())?;
    assert_eq!(end::call(&a)?.to_string(), r#"["1970-01-01T01:00:00.000000000", "1970-01-01T01:00:00.000000000"]"#);
    let by = Array::from_vec(vec![TimeDelta::<Ns>::from_ticks(hour)]).at(0)?;
    let m = moved::call(&a, &by)?;
    assert_eq!(m.field("start")?.to_string(), r#"["1970-01-01T01:00:00.000000000", "1970-01-01T00:00:00.000000000"]"#);
    assert_eq!(m.to_records::<Stay>()?[1].booked, Date::from_days(0));
    assert_eq!(is_weekend::SIGNATURE, "(date) -> bool");
    assert_eq!(since_midnight::SIGNATURE, "(datetime[unit=\"ns\"]) -> timedelta[unit=\"s\"]");
    let days = Array::from_json(
        r#"[["2024-03-02", "2024-03-04"], [], ["2024-03-10"]]"#,
        Some(&"3 * var * date".parse()?),
    )?;
    assert_eq!(is_weekend::call(&days)?.to_string(), "[[true, false], [], [true]]");
    let born = Array::from_json(r#"["1990-06-15", "2000-02-29"]"#, Some(&"2 * date".parse()?))?;
    let now = Array::from_json(r#"["2024-06-14"]"#, Some(&"1 * date".parse()?))?;
    assert_eq!(age::call(&born, &now)?.to_string(), "[33, 24]");
    let t = Array::from_json(r#"["2024-03-02T01:00:30"]"#, Some(&"1 * datetime[unit=\"ns\"]".parse()?))?;
    let r = since_midnight::call(&t)?;
    assert_eq!((r.to_string(), r.ty().to_string()), ("[3630]".into(), "1 * timedelta[unit=\"s\"]".into()));
    Ok(())
}
