//! Datashape benchmarks: parse, print, match and broadcast costs, and how
//! parsing scales with input size (it should be linear).
//!
//! `cargo bench --bench datashape`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dynd::ndt::{broadcast, BroadcastMode, Type};

const TYPICAL: &[(&str, &str)] = &[
    ("scalar", "float64"),
    ("ragged", "3 * var * ?int32"),
    (
        "struct",
        "var * {name: string, 'sepal length': float64, tags: var * string}",
    ),
    ("matmul", "(M * N * T, N * R * T) -> M * R * T"),
    (
        "keywords",
        "(Dims... * T, lo: T, hi: ?T, axis: ?var * int64, ...) -> Dims... * T",
    ),
];

fn parse_print(c: &mut Criterion) {
    let mut g = c.benchmark_group("datashape/parse");
    for (name, text) in TYPICAL {
        g.throughput(Throughput::Bytes(text.len() as u64));
        g.bench_with_input(BenchmarkId::from_parameter(name), text, |b, text| {
            b.iter(|| black_box(text).parse::<Type>().unwrap())
        });
    }
    g.finish();
    let mut g = c.benchmark_group("datashape/print");
    for (name, text) in TYPICAL {
        let t: Type = text.parse().unwrap();
        g.bench_with_input(BenchmarkId::from_parameter(name), &t, |b, t| {
            b.iter(|| black_box(t).to_string())
        });
    }
    g.finish();
}

fn match_broadcast(c: &mut Criterion) {
    let t = |s: &str| s.parse::<Type>().unwrap();
    let sig = t("(M * N * T, N * R * T) -> M * R * T");
    let args = [t("20 * 30 * float64"), t("30 * 40 * float64")];
    c.bench_function("datashape/resolve/matmul", |b| {
        b.iter(|| black_box(&sig).resolve(black_box(&args), &[]).unwrap())
    });
    let ragged = [t("100 * var * int32"), t("100 * 1 * float32"), t("float64")];
    c.bench_function("datashape/broadcast/ragged3", |b| {
        b.iter(|| broadcast(black_box(&ragged), BroadcastMode::NumPy).unwrap())
    });
}

/// Inputs of growing size that stress different parts of the parser.
fn scaling_inputs(n: usize) -> Vec<(&'static str, String)> {
    let fields: Vec<String> = (0..n).map(|i| format!("f{i}: ?int32")).collect();
    let struct_text = format!("{{{}}}", fields.join(", "));
    let kws: Vec<String> = (0..n).map(|i| format!("k{i}: var * float64")).collect();
    let callable = format!("(N * T, {}) -> T", kws.join(", "));
    let tuple = format!("({})", vec!["3 * (int8, ?string)"; n].join(", "));
    // Invalid input: a long valid prefix, then an error at the very end.
    let invalid = format!("{{{}, x: flaot64}}", fields.join(", "));
    vec![
        ("struct", struct_text),
        ("callable", callable),
        ("tuple", tuple),
        ("error_at_end", invalid),
    ]
}

fn scaling(c: &mut Criterion) {
    let mut g = c.benchmark_group("datashape/scaling");
    for n in [100usize, 1_000, 10_000] {
        for (name, text) in scaling_inputs(n) {
            g.throughput(Throughput::Bytes(text.len() as u64));
            g.bench_with_input(BenchmarkId::new(name, text.len()), &text, |b, text| {
                b.iter(|| black_box(text).parse::<Type>().map(|_| ()).unwrap_or(()))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, parse_print, match_broadcast, scaling);
criterion_main!(benches);
