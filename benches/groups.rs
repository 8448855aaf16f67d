//! Groups over 1e7 `float64` values (`v[i] = (i * 40503 mod 65536) /
//! 65536`) by keys in random order (`h(i) = (i * 2654435761 + 12345) mod
//! 2^32`, then `h % K`; `scripts/peers.py groups` makes the same), beside
//! hand-written Rust in the same run:
//!
//! - `sum` per group by `int64` keys with 1e3 and 1e6 distinct values (a
//!   `sum(groupby(v, k), axis=1)` expression, one aggregation pass),
//!   against a hand loop indexing an array by the key and a hand loop over
//!   a std `HashMap`; by the 1e3 keys spread over all of `int64` (the hash
//!   path); by 1e3 string keys against a `HashMap<&str, f64>`;
//! - the groups as lists (`groupby` made), against a hand counting sort
//!   (counts, offsets, each value moved to its row);
//! - `dictionary_encode` of the 1e3 string keys, against a hand loop
//!   giving each string its id in a `HashMap<&str, i32>`;
//! - `value_counts` of the 1e3 integer and string keys.
//!
//! Each dynd row runs on a one-thread pool and on a two-thread one.
//!
//! `cargo bench --bench groups`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

mod common;

use std::collections::HashMap;
use std::hint::black_box;

use common::pools;
use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dynd::func::{self, builtins, AxisOptions, Eval};
use dynd::nd::expr::Expr;
use dynd::nd::Array;

const N: usize = 10_000_000;

fn hash(i: usize) -> u64 {
    ((i as u64).wrapping_mul(2_654_435_761).wrapping_add(12_345)) & 0xffff_ffff
}

fn values() -> Vec<f64> {
    (0..N)
        .map(|i| ((i as u64 * 40_503) % 65_536) as f64 / 65_536.0)
        .collect()
}

fn int_keys(k: u64) -> Vec<i64> {
    (0..N).map(|i| (hash(i) % k) as i64).collect()
}

fn bench(c: &mut Criterion) {
    let v = values();
    let va = Array::from_vec(v.clone());
    let k3 = int_keys(1000);
    let k6 = int_keys(1_000_000);
    // The 1e3 keys spread over int64: no small range, so hashed.
    let spread: Vec<i64> = k3
        .iter()
        .map(|&k| (k as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) as i64)
        .collect();
    let names: Vec<String> = (0..1000).map(|j| format!("key{j:04}")).collect();
    let skeys: Vec<&str> = k3.iter().map(|&k| names[k as usize].as_str()).collect();
    let k3a = Array::from_vec(k3.clone());
    let k6a = Array::from_vec(k6.clone());
    let spread_a = Array::from_vec(spread);
    let sa = Array::from_json(&serde_json::to_string(&skeys).unwrap(), None).unwrap();
    let sum = builtins::get("sum").unwrap();
    let axis1 = AxisOptions::new().axis(1);
    let group_sum = |keys: &Array| {
        builtins::GROUPBY
            .callable()
            .expr([Expr::from(&va), Expr::from(keys)])
            .reduce(&sum, &axis1)
            .unwrap()
    };

    let mut g = c.benchmark_group("groups");
    g.sample_size(10);
    g.throughput(Throughput::Elements(N as u64));
    g.bench_function("hand sum, 1e3 keys, direct index", |b| {
        b.iter(|| {
            let mut acc = vec![0.0f64; 1000];
            for (&x, &k) in black_box(&v).iter().zip(black_box(&k3)) {
                acc[k as usize] += x;
            }
            black_box(acc)
        })
    });
    g.bench_function("hand sum, 1e3 keys, HashMap", |b| {
        b.iter(|| {
            let mut acc: HashMap<i64, f64> = HashMap::new();
            for (&x, &k) in black_box(&v).iter().zip(black_box(&k3)) {
                *acc.entry(k).or_insert(0.0) += x;
            }
            black_box(acc)
        })
    });
    g.bench_function("hand sum, 1e6 keys, direct index", |b| {
        b.iter(|| {
            let mut acc = vec![0.0f64; 1_000_000];
            for (&x, &k) in black_box(&v).iter().zip(black_box(&k6)) {
                acc[k as usize] += x;
            }
            black_box(acc)
        })
    });
    g.bench_function("hand sum, 1e6 keys, HashMap", |b| {
        b.iter(|| {
            let mut acc: HashMap<i64, f64> = HashMap::new();
            for (&x, &k) in black_box(&v).iter().zip(black_box(&k6)) {
                *acc.entry(k).or_insert(0.0) += x;
            }
            black_box(acc)
        })
    });
    g.bench_function("hand groups as lists, 1e3 keys, counting sort", |b| {
        b.iter(|| {
            // Counts, their running sum (the offsets), each value moved
            // to the next place of its key's row.
            let (v, k3) = (black_box(&v), black_box(&k3));
            let mut offsets = vec![0usize; 1001];
            for &k in k3 {
                offsets[k as usize + 1] += 1;
            }
            for j in 0..1000 {
                offsets[j + 1] += offsets[j];
            }
            let mut next = offsets[..1000].to_vec();
            let mut out = vec![0.0f64; v.len()];
            for (&x, &k) in v.iter().zip(k3) {
                let at = &mut next[k as usize];
                out[*at] = x;
                *at += 1;
            }
            black_box((offsets, out))
        })
    });
    g.bench_function("hand sum, 1e3 string keys, HashMap", |b| {
        b.iter(|| {
            let mut acc: HashMap<&str, f64> = HashMap::new();
            for (&x, &k) in black_box(&v).iter().zip(black_box(&skeys)) {
                *acc.entry(k).or_insert(0.0) += x;
            }
            black_box(acc)
        })
    });
    g.bench_function("hand dictionary encode, 1e3 string keys, HashMap", |b| {
        b.iter(|| {
            let mut ids: HashMap<&str, i32> = HashMap::new();
            let mut categories: Vec<&str> = Vec::new();
            let codes: Vec<i32> = black_box(&skeys)
                .iter()
                .map(|&s| {
                    *ids.entry(s).or_insert_with(|| {
                        categories.push(s);
                        categories.len() as i32 - 1
                    })
                })
                .collect();
            black_box((codes, categories))
        })
    });
    for (t, pool) in pools().iter() {
        let on = |name: &str| format!("{name}, {t}");
        g.bench_function(on("sum by 1e3 int keys"), |b| {
            pool.install(|| b.iter(|| group_sum(black_box(&k3a))))
        });
        g.bench_function(on("sum by 1e6 int keys"), |b| {
            pool.install(|| b.iter(|| group_sum(black_box(&k6a))))
        });
        g.bench_function(on("sum by 1e3 spread int keys (hashed)"), |b| {
            pool.install(|| b.iter(|| group_sum(black_box(&spread_a))))
        });
        g.bench_function(on("sum by 1e3 string keys"), |b| {
            pool.install(|| b.iter(|| group_sum(black_box(&sa))))
        });
        g.bench_function(on("groups as lists, 1e3 int keys"), |b| {
            pool.install(|| b.iter(|| func::groupby(black_box(&va), black_box(&k3a)).unwrap()))
        });
        g.bench_function(on("dictionary_encode, 1e3 string keys"), |b| {
            pool.install(|| b.iter(|| func::dictionary_encode(black_box(&sa)).unwrap()))
        });
        g.bench_function(on("value_counts, 1e3 int keys"), |b| {
            pool.install(|| b.iter(|| func::value_counts(black_box(&k3a)).unwrap()))
        });
        g.bench_function(on("value_counts, 1e3 string keys"), |b| {
            pool.install(|| b.iter(|| func::value_counts(black_box(&sa)).unwrap()))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
