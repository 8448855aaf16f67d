//! The elementwise builtins over the time types: comparisons, `maximum`
//! and `minimum` of one time type, and the arithmetic of instants and
//! durations (NumPy's and pyarrow's):
//!
//! | call | result |
//! |---|---|
//! | `datetime - datetime` | `timedelta` |
//! | `datetime ± timedelta`, `timedelta + datetime` | `datetime` |
//! | `date - date` | `timedelta[unit="s"]` (pyarrow's) |
//! | `timedelta ± timedelta`, `-timedelta`, `abs(timedelta)` | `timedelta` |
//! | `timedelta * int64`, `int64 * timedelta` | `timedelta` |
//! | `timedelta / timedelta` | `float64` |
//! | `timedelta / int64` | `timedelta` (floor division) |
//!
//! Each is an overload per unit whose loop is the integers' loop (one
//! compiled loop, [`Leaf::retyped`]); arguments of two units meet at the
//! finer one (the coarser cast, checked for overflow), a `date` with a
//! `datetime` at the datetime. Integer arithmetic wraps, as NumPy's does.

use dynd_kernels::elwise::{IntOp, Leaf, Predicate};
use dynd_kernels::KernelError;
use dynd_types::{Scalar, Temporal, TimeUnit};

use crate::callable::Overload;

/// Every time scalar.
fn times() -> impl Iterator<Item = Scalar> {
    Scalar::ALL.into_iter().filter(|s| s.is_temporal())
}

fn units() -> impl Iterator<Item = TimeUnit> {
    TimeUnit::ALL.into_iter()
}

/// The integer loop `leaf` (over the storage of every type in `inputs`)
/// as an overload of these types.
fn over(leaf: Option<Leaf>, inputs: &[Scalar], output: Scalar) -> Option<Overload> {
    leaf?.retyped(inputs, output).ok().map(Overload::new)
}

/// `(T, T) -> bool` of the test `p` for every time type `T`.
pub(super) fn compare(p: Predicate) -> Vec<Overload> {
    times()
        .filter_map(|t| over(Leaf::predicate(p, t.storage()), &[t, t], Scalar::Bool))
        .collect()
}

/// `(T, T) -> T` of the integer operation `op` for every time type `T`
/// (`maximum`, `minimum`).
pub(super) fn same(op: IntOp) -> Vec<Overload> {
    times()
        .filter_map(|t| over(Leaf::int_op(op, t.storage()), &[t, t], t))
        .collect()
}

fn dt(u: TimeUnit) -> Scalar {
    Temporal::DateTime(u).scalar()
}

fn td(u: TimeUnit) -> Scalar {
    Temporal::TimeDelta(u).scalar()
}

/// `add`: `datetime + timedelta`, `timedelta + datetime`, `timedelta +
/// timedelta`.
pub(super) fn add() -> Vec<Overload> {
    let int = || Leaf::int_op(IntOp::Add, Scalar::Int64);
    units()
        .flat_map(|u| {
            [
                over(int(), &[dt(u), td(u)], dt(u)),
                over(int(), &[td(u), dt(u)], dt(u)),
                over(int(), &[td(u), td(u)], td(u)),
            ]
        })
        .flatten()
        .collect()
}

/// `subtract`: `datetime - datetime`, `datetime - timedelta`, `timedelta -
/// timedelta`, `date - date`.
pub(super) fn subtract() -> Vec<Overload> {
    let int = || Leaf::int_op(IntOp::Sub, Scalar::Int64);
    let mut o: Vec<Overload> = units()
        .flat_map(|u| {
            [
                over(int(), &[dt(u), dt(u)], td(u)),
                over(int(), &[dt(u), td(u)], dt(u)),
                over(int(), &[td(u), td(u)], td(u)),
            ]
        })
        .flatten()
        .collect();
    let days = Leaf::map(|a: i32, b: i32| (i64::from(a) - i64::from(b)) * 86_400);
    o.extend(over(
        Some(days),
        &[Scalar::Date, Scalar::Date],
        td(TimeUnit::Second),
    ));
    o
}

/// `multiply`: `timedelta * int64` and `int64 * timedelta`.
pub(super) fn multiply() -> Vec<Overload> {
    let int = || Leaf::int_op(IntOp::Mul, Scalar::Int64);
    units()
        .flat_map(|u| {
            [
                over(int(), &[td(u), Scalar::Int64], td(u)),
                over(int(), &[Scalar::Int64, td(u)], td(u)),
            ]
        })
        .flatten()
        .collect()
}

/// `divide`: `timedelta / timedelta` (a ratio) and `timedelta / int64`
/// (a duration, floor division; by zero an error).
pub(super) fn divide() -> Vec<Overload> {
    let ratio = Leaf::map(|a: i64, b: i64| a as f64 / b as f64);
    let share = Leaf::map(|a: i64, b: i64| {
        if b == 0 {
            Err(KernelError::message("a timedelta divided by zero"))
        } else {
            Ok(a.wrapping_div_euclid(b) - i64::from(b < 0 && a.rem_euclid(b) != 0))
        }
    });
    units()
        .flat_map(|u| {
            [
                over(Some(ratio.clone()), &[td(u), td(u)], Scalar::Float64),
                over(Some(share.clone()), &[td(u), Scalar::Int64], td(u)),
            ]
        })
        .flatten()
        .collect()
}

/// `(timedelta) -> timedelta` of `op` (`negative`, `abs`).
pub(super) fn durations(op: IntOp) -> Vec<Overload> {
    units()
        .filter_map(|u| over(Leaf::int_op(op, Scalar::Int64), &[td(u)], td(u)))
        .collect()
}
