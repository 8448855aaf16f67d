//! Dates and times over 1e7 `datetime[unit="ns"]` values (years 1970 to
//! 2100 from a seeded xorshift; `scripts/peers.py time` makes the same),
//! beside hand-written Rust in the same run:
//!
//! - the memory-bandwidth floor: a copy of the same 1e7 `int64` into a
//!   new buffer;
//! - `year`, `month`, `day`, `hour`, `day_of_week`, one thread (and
//!   `year` on two), against a hand loop over `&[i64]` with Hinnant's
//!   civil-from-days;
//! - `floor_temporal(unit="day")`;
//! - `strftime("%Y-%m-%d")` and `strptime` of the ISO text
//!   (`%Y-%m-%dT%H:%M:%S`);
//! - `max` per ragged row (rows of 0 to 20 values, 9.1e6 in all).
//!
//! `cargo bench --bench time`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

mod common;

use std::hint::black_box;

use common::{lengths, pools};
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dynd::func;
use dynd::nd::{Array, DateTime, Ns};
use dynd::prelude::*;

const N: usize = 10_000_000;
/// 1970-01-01 to 2100-01-01 in nanoseconds.
const SPAN: f64 = 4_102_444_800.0 * 1e9;

/// `n` values in [0, 1) from a seeded xorshift (`scripts/peers.py` makes
/// the same).
fn uniform(n: usize, seed: u64) -> Vec<f64> {
    let mut s = 0x9e37_79b9_7f4a_7c15u64 ^ seed.wrapping_mul(0x2545_f491_4f6c_dd1d);
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64
        })
        .collect()
}

fn ticks(n: usize) -> Vec<i64> {
    uniform(n, 1)
        .into_iter()
        .map(|u| (u * SPAN) as i64)
        .collect()
}

/// Hinnant's civil-from-days, the year alone (the hand loop).
#[inline]
fn hand_year(t: i64) -> i64 {
    let z = t.div_euclid(86_400_000_000_000) + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    yoe + era * 400 + i64::from(mp >= 10)
}

fn bench(c: &mut Criterion) {
    let raw = ticks(N);
    let t = Array::from_vec(
        raw.iter()
            .map(|&x| DateTime::<Ns>::from_ticks(x))
            .collect::<Vec<_>>(),
    );
    let [(_, one), (_, two)] = pools();

    let mut g = c.benchmark_group("time");
    g.sample_size(10);
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("copy int64 (bandwidth floor)", |b| {
        b.iter(|| black_box(black_box(&raw).to_vec()))
    });
    // The same copy into a block of dynd's allocator (huge pages, reused
    // spares): the floor the results' own blocks have.
    let ints = t.view_as(&"int64".parse().unwrap()).unwrap();
    let ints_ty = ints.ty().clone();
    g.bench_function("copy int64, dynd block", |b| {
        one.install(|| b.iter(|| black_box(&ints).cast(&ints_ty, ErrorMode::NoCheck).unwrap()))
    });
    g.bench_function("hand year (Hinnant)", |b| {
        b.iter(|| {
            let r: Vec<i64> = black_box(&raw).iter().map(|&x| hand_year(x)).collect();
            black_box(r)
        })
    });
    for (name, f) in [
        (
            "year",
            func::year as fn(&Array) -> Result<Array, dynd::Error>,
        ),
        ("month", func::month),
        ("day", func::day),
        ("hour", func::hour),
        ("day_of_week", func::day_of_week),
    ] {
        g.bench_function(name, |b| {
            one.install(|| b.iter(|| f(black_box(&t)).unwrap()))
        });
    }
    g.bench_function("year, 2 threads", |b| {
        two.install(|| b.iter(|| func::year(black_box(&t)).unwrap()))
    });
    g.bench_function("floor_temporal day", |b| {
        one.install(|| b.iter(|| func::floor_temporal(black_box(&t), "day", 1, true).unwrap()))
    });
    g.bench_function("strftime %Y-%m-%d", |b| {
        one.install(|| b.iter(|| func::strftime(black_box(&t), Some("%Y-%m-%d")).unwrap()))
    });
    // Whole seconds (`%S` writes a finer unit's fraction).
    let seconds = t
        .cast(
            &format!("{N} * datetime[unit=\"s\"]").parse().unwrap(),
            ErrorMode::NoCheck,
        )
        .unwrap();
    let text = func::strftime(&seconds, Some("%Y-%m-%dT%H:%M:%S")).unwrap();
    g.bench_function("strptime ISO", |b| {
        one.install(|| {
            b.iter(|| {
                func::strptime(black_box(&text), "%Y-%m-%dT%H:%M:%S", Some("s"), false).unwrap()
            })
        })
    });
    let datetime_s: dynd::ndt::Type = format!("{N} * datetime[unit=\"s\"]").parse().unwrap();
    g.bench_function("cast ISO text to datetime", |b| {
        one.install(|| {
            b.iter(|| {
                black_box(&text)
                    .cast(&datetime_s, ErrorMode::Overflow)
                    .unwrap()
            })
        })
    });
    // Ragged rows of the same values.
    let lens = lengths(N / 11);
    let mut offsets = vec![0usize];
    for l in &lens {
        offsets.push(offsets.last().unwrap() + l);
    }
    let total = *offsets.last().unwrap();
    let rows = Array::from_offsets(
        t.index(&[Index::slice(None, Some(total as i64), 1)])
            .unwrap(),
        &offsets,
    )
    .unwrap();
    g.throughput(Throughput::Elements(total as u64));
    g.bench_function("max per ragged row", |b| {
        one.install(|| b.iter(|| black_box(&rows).max_axis(1).unwrap()))
    });
    g.bench_function("hand max per row", |b| {
        b.iter(|| {
            let r: Vec<Option<i64>> = offsets
                .windows(2)
                .map(|w| black_box(&raw)[w[0]..w[1]].iter().copied().max())
                .collect();
            black_box(r)
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
