//! Assignment benchmarks: dynd against a hand-written loop and ndarray, in
//! the same run.
//!
//! `cargo bench --bench assign`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

use dynd::nd::ArrayOps;
use std::hint::black_box;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use dynd::nd::{Array, ErrorMode};
use dynd::ndt::Type;
use ndarray::{Array1, Array2, Zip};

fn ty(s: &str) -> Type {
    s.parse().unwrap()
}

const N: usize = 10_000_000;

fn copy_f64(c: &mut Criterion) {
    let mut g = c.benchmark_group("assign/copy_f64");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(20);
    let src_vec: Vec<f64> = (0..N).map(|i| i as f64).collect();
    let src = Array::from_vec(src_vec.clone());
    let mut dst = Array::zeros(&ty(&format!("{N} * float64"))).unwrap();
    g.bench_function("dynd", |b| {
        b.iter(|| dst.assign(black_box(&src), ErrorMode::Fractional).unwrap())
    });
    let mut out = vec![0.0f64; N];
    g.bench_function("hand_loop", |b| {
        b.iter(|| {
            for (d, s) in out.iter_mut().zip(black_box(&src_vec)) {
                *d = *s;
            }
        })
    });
    // For reference: std's memcpy, slower than a vector loop on this machine.
    g.bench_function("copy_from_slice", |b| {
        b.iter(|| out.copy_from_slice(black_box(&src_vec)))
    });
    let nd_src = Array1::from_vec(src_vec.clone());
    let mut nd_dst = Array1::<f64>::zeros(N);
    g.bench_function("ndarray", |b| b.iter(|| nd_dst.assign(black_box(&nd_src))));
    g.finish();
}

fn convert_f32_f64(c: &mut Criterion) {
    let mut g = c.benchmark_group("assign/f32_to_f64");
    g.throughput(Throughput::Elements(N as u64));
    g.sample_size(20);
    let src_vec: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let src = Array::from_vec(src_vec.clone());
    let mut dst = Array::zeros(&ty(&format!("{N} * float64"))).unwrap();
    g.bench_function("dynd", |b| {
        b.iter(|| dst.assign(black_box(&src), ErrorMode::Fractional).unwrap())
    });
    let mut out = vec![0.0f64; N];
    g.bench_function("hand_loop", |b| {
        b.iter(|| {
            for (d, s) in out.iter_mut().zip(black_box(&src_vec)) {
                *d = f64::from(*s);
            }
        })
    });
    let nd_src = Array1::from_vec(src_vec.clone());
    let mut nd_dst = Array1::<f64>::zeros(N);
    g.bench_function("ndarray", |b| {
        b.iter(|| {
            Zip::from(&mut nd_dst)
                .and(black_box(&nd_src))
                .for_each(|d, s| *d = f64::from(*s))
        })
    });
    g.finish();
}

fn transpose_2000(c: &mut Criterion) {
    const M: usize = 2000;
    let mut g = c.benchmark_group("assign/transpose_2000x2000");
    g.throughput(Throughput::Elements((M * M) as u64));
    g.sample_size(20);
    let data: Vec<f64> = (0..M * M).map(|i| i as f64).collect();
    let src = Array::from_shape_vec(&[M, M], data.clone()).unwrap();
    let src_t = src.transpose().unwrap();
    let mut dst = Array::zeros(&ty(&format!("{M} * {M} * float64"))).unwrap();
    g.bench_function("dynd", |b| {
        b.iter(|| {
            dst.assign(black_box(&src_t), ErrorMode::Fractional)
                .unwrap()
        })
    });
    let mut out = vec![0.0f64; M * M];
    g.bench_function("naive_loop", |b| {
        b.iter(|| {
            let s = black_box(&data);
            for i in 0..M {
                for j in 0..M {
                    out[i * M + j] = s[j * M + i];
                }
            }
        })
    });
    let nd_src = Array2::from_shape_vec((M, M), data.clone()).unwrap();
    let mut nd_dst = Array2::<f64>::zeros((M, M));
    g.bench_function("ndarray", |b| {
        b.iter(|| nd_dst.assign(&black_box(&nd_src).t()))
    });
    g.finish();
}

fn layouts_c_and_f(c: &mut Criterion) {
    const M: usize = 2000;
    let mut g = c.benchmark_group("assign/layout_2000x2000");
    g.throughput(Throughput::Elements((M * M) as u64));
    g.sample_size(20);
    let data: Vec<f64> = (0..M * M).map(|i| i as f64).collect();
    let c_src = Array::from_shape_vec(&[M, M], data.clone()).unwrap();
    let mut c_dst = Array::zeros(&ty(&format!("{M} * {M} * float64"))).unwrap();
    g.bench_function("c_order", |b| {
        b.iter(|| {
            c_dst
                .assign(black_box(&c_src), ErrorMode::Fractional)
                .unwrap()
        })
    });
    let f_src = c_src.transpose().unwrap();
    let mut f_dst = Array::zeros(&ty(&format!("{M} * {M} * float64")))
        .unwrap()
        .transpose()
        .unwrap();
    g.bench_function("f_order", |b| {
        b.iter(|| {
            f_dst
                .assign(black_box(&f_src), ErrorMode::Fractional)
                .unwrap()
        })
    });
    g.finish();
}

fn var_to_fixed(c: &mut Criterion) {
    const ROWS: usize = 1000;
    const COLS: usize = 1000;
    let mut g = c.benchmark_group("assign/var_to_fixed_1000x1000");
    g.throughput(Throughput::Elements((ROWS * COLS) as u64));
    g.sample_size(20);
    // Every third row has length 1 and broadcasts; the others are full.
    let rows: Vec<Vec<f64>> = (0..ROWS)
        .map(|r| {
            if r % 3 == 0 {
                vec![r as f64]
            } else {
                (0..COLS).map(|c| (r * COLS + c) as f64).collect()
            }
        })
        .collect();
    let json = format!(
        "[{}]",
        rows.iter()
            .map(|r| format!(
                "[{}]",
                r.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            ))
            .collect::<Vec<_>>()
            .join(",")
    );
    let src = Array::from_json(&json, Some(&ty(&format!("{ROWS} * var * float64")))).unwrap();
    let mut dst = Array::zeros(&ty(&format!("{ROWS} * {COLS} * float64"))).unwrap();
    g.bench_function(BenchmarkId::new("dynd", "1/3 rows broadcast"), |b| {
        b.iter(|| dst.assign(black_box(&src), ErrorMode::Fractional).unwrap())
    });
    let mut out = vec![0.0f64; ROWS * COLS];
    g.bench_function(BenchmarkId::new("hand_loop", "1/3 rows broadcast"), |b| {
        b.iter(|| {
            for (r, row) in black_box(&rows).iter().enumerate() {
                let o = &mut out[r * COLS..(r + 1) * COLS];
                if row.len() == 1 {
                    o.fill(row[0]);
                } else {
                    o.copy_from_slice(row);
                }
            }
        })
    });
    g.finish();
}

criterion_group!(
    benches,
    copy_f64,
    convert_f32_f64,
    transpose_2000,
    layouts_c_and_f,
    var_to_fixed
);
criterion_main!(benches);
