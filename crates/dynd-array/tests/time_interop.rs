//! The time elements to and from chrono's and jiff's values (features
//! `chrono` and `jiff`): round trips at the edges, and the errors.

#![cfg(all(feature = "chrono", feature = "jiff"))]

use dynd::nd::{Date, DateTime, Ms, Ns, Time, TimeDelta, S};

#[test]
fn chrono_round_trips() {
    for (y, m, d) in [(2024, 2, 29), (1969, 12, 31), (1, 1, 1), (1900, 3, 1)] {
        let c = chrono::NaiveDate::from_ymd_opt(y, m, d).unwrap();
        let ours = Date::try_from(c).unwrap();
        assert_eq!(ours, Date::from_ymd(i64::from(y), m, d).unwrap());
        assert_eq!(chrono::NaiveDate::try_from(ours).unwrap(), c);
    }
    let t = chrono::DateTime::from_timestamp(-1, 999_000_000)
        .unwrap()
        .naive_utc();
    let ours: DateTime<Ms> = DateTime::try_from(t).unwrap();
    assert_eq!(ours.ticks(), -1);
    assert_eq!(chrono::NaiveDateTime::try_from(ours).unwrap(), t);
    // A fraction finer than the unit does not fit.
    let fine = chrono::DateTime::from_timestamp(0, 1).unwrap().naive_utc();
    assert!(DateTime::<Ms>::try_from(fine)
        .unwrap_err()
        .to_string()
        .contains("finer"));
    let d: TimeDelta<Ns> = TimeDelta::try_from(chrono::TimeDelta::milliseconds(-1500)).unwrap();
    assert_eq!(d.ticks(), -1_500_000_000);
    assert_eq!(
        chrono::TimeDelta::from(d),
        chrono::TimeDelta::milliseconds(-1500)
    );
    let noon = chrono::NaiveTime::from_hms_opt(12, 0, 1).unwrap();
    let ours: Time<S> = Time::try_from(noon).unwrap();
    assert_eq!(ours.ticks(), 43_201);
    assert_eq!(chrono::NaiveTime::try_from(ours).unwrap(), noon);
}

#[test]
fn jiff_round_trips() {
    let d = jiff::civil::date(2024, 2, 29);
    let ours = Date::try_from(d).unwrap();
    assert_eq!(ours.to_string(), "2024-02-29");
    assert_eq!(jiff::civil::Date::try_from(ours).unwrap(), d);
    // Past jiff's years (-9999..=9999): an error, not a wrong value.
    assert!(jiff::civil::Date::try_from(Date::from_ymd(20_000, 1, 1).unwrap()).is_err());
    let ts = jiff::Timestamp::from_nanosecond(-1).unwrap();
    let ours: DateTime<Ns> = DateTime::try_from(ts).unwrap();
    assert_eq!(ours.to_string(), "1969-12-31T23:59:59.999999999");
    assert_eq!(jiff::Timestamp::try_from(ours).unwrap(), ts);
    let civil = jiff::civil::date(1969, 12, 31).at(23, 59, 59, 0);
    let ours: DateTime<S> = DateTime::try_from(civil).unwrap();
    assert_eq!(ours.ticks(), -1);
    assert_eq!(jiff::civil::DateTime::try_from(ours).unwrap(), civil);
    let d: TimeDelta<Ms> = TimeDelta::try_from(jiff::SignedDuration::from_millis(-1500)).unwrap();
    assert_eq!(
        jiff::SignedDuration::from(d),
        jiff::SignedDuration::from_millis(-1500)
    );
    let t = jiff::civil::time(23, 59, 59, 999_000_000);
    let ours: Time<Ms> = Time::try_from(t).unwrap();
    assert_eq!(ours.ticks(), 86_399_999);
    assert_eq!(jiff::civil::Time::try_from(ours).unwrap(), t);
}
