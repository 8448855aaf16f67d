//! The string functions over 1e6 strings of 4 to 30 characters (about 21
//! bytes on average; one character in nine is not ASCII: `é`, `ß`, `日`,
//! `😀`, ...), drawn from 100,000 distinct ones: `equal` to one string,
//! `contains(",")`, `upper`, `str_len`, `split(",")`, `regex_match`,
//! `sort`, `unique`, and an `#[elemental]` `&str -> String` fn. Each beside
//! hand-written Rust in the same run: over a `Vec<String>`, and over one
//! buffer with offsets (Arrow's `StringArray` layout; a result string
//! goes into one buffer with offsets, as Arrow's `StringBuilder` writes
//! it). One thread. `scripts/peers.py text` times the same cases in NumPy
//! 2 (`np.strings`), pyarrow and Polars.
//!
//! `cargo bench --bench text`

#![allow(missing_docs)] // criterion_group! generates undocumented fns

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use dynd::func::{contains, equal, regex_match, sort, split, str_len, unique, upper};
use dynd::nd::Array;
use dynd::prelude::*;

/// The characters strings are made of: 62 ASCII letters and digits, a
/// comma, a space, and eight that are not ASCII.
const ALPHABET: &[&str] = &[
    "a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m", "n", "o", "p", "q", "r", "s",
    "t", "u", "v", "w", "x", "y", "z", "A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L",
    "M", "N", "O", "P", "Q", "R", "S", "T", "U", "V", "W", "X", "Y", "Z", "0", "1", "2", "3", "4",
    "5", "6", "7", "8", "9", ",", " ", "é", "ß", "ü", "ñ", "日", "本", "語", "😀",
];

/// `n` strings drawn from `vocab` distinct ones, from a seeded xorshift
/// (`scripts/peers.py` makes the same).
fn strings(n: usize, vocab: usize) -> Vec<String> {
    let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let words: Vec<String> = (0..vocab)
        .map(|_| {
            let len = 4 + (next() % 27) as usize;
            (0..len)
                .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
                .collect()
        })
        .collect();
    (0..n)
        .map(|_| words[(next() % vocab as u64) as usize].clone())
        .collect()
}

/// One buffer and offsets (Arrow's layout).
struct Buffer {
    data: String,
    offsets: Vec<usize>,
}

impl Buffer {
    fn of(v: &[String]) -> Buffer {
        let mut data = String::new();
        let mut offsets = vec![0];
        for s in v {
            data.push_str(s);
            offsets.push(data.len());
        }
        Buffer { data, offsets }
    }

    fn get(&self, i: usize) -> &str {
        &self.data[self.offsets[i]..self.offsets[i + 1]]
    }

    fn iter(&self) -> impl Iterator<Item = &str> + '_ {
        self.offsets.windows(2).map(|w| &self.data[w[0]..w[1]])
    }

    /// A new buffer of `f` of each string (a `StringBuilder`).
    fn map(&self, f: impl Fn(&str, &mut String)) -> Buffer {
        let mut data = String::with_capacity(self.data.len());
        let mut offsets = Vec::with_capacity(self.offsets.len());
        offsets.push(0);
        for s in self.iter() {
            f(s, &mut data);
            offsets.push(data.len());
        }
        Buffer { data, offsets }
    }
}

/// An `#[elemental]` fn of text: the string upper-cased with a mark.
#[elemental]
fn shout(s: &str) -> String {
    let mut out = s.to_uppercase();
    out.push('!');
    out
}

/// A group of 1e6 strings, ten samples.
fn group<'a>(
    c: &'a mut Criterion,
    name: &str,
) -> criterion::BenchmarkGroup<'a, criterion::measurement::WallTime> {
    let mut g = c.benchmark_group(format!("text/{name}_1e6"));
    g.throughput(Throughput::Elements(1_000_000))
        .sample_size(10);
    g
}

fn bench(c: &mut Criterion) {
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap();
    let n = 1_000_000;
    let v = strings(n, 100_000);
    let buf = Buffer::of(&v);
    let spans: Vec<(usize, usize)> = buf
        .offsets
        .windows(2)
        .map(|w| (w[0], w[1] - w[0]))
        .collect();
    let x = Array::from_text_spans(buf.data.clone(), &spans).unwrap();
    let needle = v[12_345].clone();
    let needle_a = Array::from_text(&needle);
    let comma = Array::from_text(",");

    let mut g = group(c, "equal");
    g.bench_function("dynd", |b| {
        b.iter(|| one.install(|| equal(black_box(&x), &needle_a).unwrap()))
    });
    g.bench_function("hand_vec_string", |b| {
        b.iter(|| {
            black_box(&v)
                .iter()
                .map(|s| *s == needle)
                .collect::<Vec<bool>>()
        })
    });
    g.bench_function("hand_buffer_offsets", |b| {
        b.iter(|| {
            black_box(&buf)
                .iter()
                .map(|s| s == needle)
                .collect::<Vec<bool>>()
        })
    });
    g.finish();

    let mut g = group(c, "contains");
    g.bench_function("dynd", |b| {
        b.iter(|| one.install(|| contains(black_box(&x), &comma).unwrap()))
    });
    g.bench_function("hand_buffer_offsets", |b| {
        b.iter(|| {
            black_box(&buf)
                .iter()
                .map(|s| s.contains(','))
                .collect::<Vec<bool>>()
        })
    });
    g.finish();

    let mut g = group(c, "upper");
    g.bench_function("dynd", |b| {
        b.iter(|| one.install(|| upper(black_box(&x)).unwrap()))
    });
    g.bench_function("hand_buffer_offsets", |b| {
        b.iter(|| black_box(&buf).map(|s, out| out.push_str(&s.to_uppercase())))
    });
    g.bench_function("hand_vec_string", |b| {
        b.iter(|| {
            black_box(&v)
                .iter()
                .map(|s| s.to_uppercase())
                .collect::<Vec<String>>()
        })
    });
    g.finish();

    let mut g = group(c, "str_len");
    g.bench_function("dynd", |b| {
        b.iter(|| one.install(|| str_len(black_box(&x)).unwrap()))
    });
    g.bench_function("hand_buffer_offsets", |b| {
        b.iter(|| {
            black_box(&buf)
                .iter()
                .map(|s| s.chars().count() as i64)
                .collect::<Vec<i64>>()
        })
    });
    g.finish();

    let mut g = group(c, "split");
    g.bench_function("dynd", |b| {
        b.iter(|| one.install(|| split(black_box(&x), Some(",")).unwrap()))
    });
    g.bench_function("hand_buffer_offsets", |b| {
        // The pieces as (start, length) views, and each string's count.
        b.iter(|| {
            let buf = black_box(&buf);
            let mut pieces: Vec<(usize, usize)> = Vec::with_capacity(n * 2);
            let mut counts: Vec<usize> = Vec::with_capacity(n);
            for i in 0..n {
                let (s, base) = (buf.get(i), buf.offsets[i]);
                let before = pieces.len();
                let mut at = 0;
                for p in s.split(',') {
                    pieces.push((base + at, p.len()));
                    at += p.len() + 1;
                }
                counts.push(pieces.len() - before);
            }
            (pieces, counts)
        })
    });
    g.finish();

    let pattern = r"[0-9][a-z]";
    let re = regex::Regex::new(pattern).unwrap();
    let mut g = group(c, "regex_match");
    g.bench_function("dynd", |b| {
        b.iter(|| one.install(|| regex_match(black_box(&x), pattern).unwrap()))
    });
    g.bench_function("hand_buffer_offsets", |b| {
        b.iter(|| {
            black_box(&buf)
                .iter()
                .map(|s| re.is_match(s))
                .collect::<Vec<bool>>()
        })
    });
    g.finish();

    let mut g = group(c, "sort");
    g.bench_function("dynd", |b| {
        b.iter(|| one.install(|| sort(black_box(&x), -1, true).unwrap()))
    });
    g.bench_function("hand_sort_unstable_str", |b| {
        b.iter(|| {
            let mut s: Vec<&str> = black_box(&buf).iter().collect();
            s.sort_unstable();
            s
        })
    });
    g.finish();

    let mut g = group(c, "unique");
    g.bench_function("dynd", |b| {
        b.iter(|| one.install(|| unique(black_box(&x)).unwrap()))
    });
    g.bench_function("hand_sort_unstable_dedup", |b| {
        b.iter(|| {
            let mut s: Vec<&str> = black_box(&buf).iter().collect();
            s.sort_unstable();
            s.dedup();
            s
        })
    });
    g.finish();

    let mut g = group(c, "elemental_str_to_string");
    g.bench_function("dynd", |b| {
        b.iter(|| one.install(|| shout::call(black_box(&x)).unwrap()))
    });
    g.bench_function("hand_string_builder", |b| {
        b.iter(|| {
            black_box(&buf).map(|s, out| {
                let mut t = s.to_uppercase();
                t.push('!');
                out.push_str(&t);
            })
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
