//! The segmented `float64` loop of a value per row against ragged rows
//! (`(N * 1) op (N * var)`, both orders, every binary `F64Op`), the strict
//! row-chain check in front of the flat pass, and the mean per row that
//! divides each unit as it is summed: each against a plain per-row
//! reference computed here, bit for bit.
//!
//! The rows are long enough to take the branch-free blocks and the loop
//! past them (0 to 40 values), many enough to split across units and
//! threads, and laid out every way the checks must tell apart: made from
//! offsets (empty rows starting where the last ended), rows sliced from
//! the middle of their values, empty rows that start elsewhere (the
//! lenient check's case), operands whose rows differ in exactly one row,
//! and reversed rows (never the flat pass).

use dynd_kernels::elwise::{apply, F64Op, Leaf};
use dynd_kernels::{Array, Index};

use crate::harness;

use harness::Rng;

/// Values for the tests' rows.
trait Values {
    /// A value with varied bits: signs, zeros of both signs, NaNs with
    /// payloads, infinities and ordinary numbers.
    fn value(&mut self) -> f64;
}

impl Values for Rng {
    fn value(&mut self) -> f64 {
        match self.below(40) {
            0 => -0.0,
            1 => 0.0,
            2 => f64::from_bits(0x7ff8_0000_0000_0000 | (self.next() & 0xffff)),
            3 => f64::INFINITY,
            _ => (self.below(2001) as f64 - 1000.0) * 0.37,
        }
    }
}

fn rows(rng: &mut Rng, n: usize, max: usize) -> Vec<Vec<f64>> {
    (0..n)
        .map(|_| {
            let len = rng.below(max + 1);
            (0..len).map(|_| rng.value()).collect()
        })
        .collect()
}

/// The rows of a result, as bits.
fn bits(a: &Array) -> Vec<Vec<u64>> {
    let (values, offsets) = a.to_offsets().unwrap();
    let values = values.to_value();
    let flat: Vec<u64> = match values {
        dynd_kernels::Value::List(xs) => xs
            .into_iter()
            .map(|v| match v {
                dynd_kernels::Value::Float(x) => canonical(x),
                other => panic!("not a float: {other:?}"),
            })
            .collect(),
        other => panic!("not a list: {other:?}"),
    };
    offsets
        .windows(2)
        .map(|w| flat[w[0] as usize..w[1] as usize].to_vec())
        .collect()
}

/// A value's bits, every NaN as one: which operand's payload a NaN result
/// carries is not specified (the compiler may commute `+` and `*`).
fn canonical(x: f64) -> u64 {
    if x.is_nan() {
        f64::NAN.to_bits()
    } else {
        x.to_bits()
    }
}

fn want_bits(rows: &[Vec<f64>], f: impl Fn(usize, f64) -> f64) -> Vec<Vec<u64>> {
    rows.iter()
        .enumerate()
        .map(|(r, row)| row.iter().map(|&x| canonical(f(r, x))).collect())
        .collect()
}

const OPS: [F64Op; 6] = [
    F64Op::Add,
    F64Op::Sub,
    F64Op::Mul,
    F64Op::Div,
    F64Op::Maximum,
    F64Op::Minimum,
];

#[test]
fn a_value_per_row_runs_with_the_per_row_bits() {
    let mut rng = Rng(0x5eed_0001);
    for case in 0..24 {
        // Enough rows for several units (and both threads) in some cases.
        let n = if case % 4 == 0 {
            9000 + rng.below(3000)
        } else {
            rng.below(300)
        };
        let xs = rows(&mut rng, n, 40);
        let per: Vec<f64> = (0..n).map(|_| rng.value()).collect();
        let x = Array::from_nested(xs.clone()).unwrap();
        let s = Array::from_shape_vec(&[n, 1], per.clone()).unwrap();
        for op in OPS {
            let leaf = Leaf::f64_op(op);
            let got = apply(&[&s, &x], &leaf).unwrap();
            let want = want_bits(&xs, |r, v| op.apply(per[r], v));
            assert_eq!(bits(&got), want, "case {case}: {op:?}, scalar first");
            let got = apply(&[&x, &s], &leaf).unwrap();
            let want = want_bits(&xs, |r, v| op.apply(v, per[r]));
            assert_eq!(bits(&got), want, "case {case}: {op:?}, scalar second");
        }
    }
}

#[test]
fn rows_laid_out_other_ways_take_the_checked_paths() {
    let mut rng = Rng(0x5eed_0002);
    let add = Leaf::f64_op(F64Op::Add);
    for case in 0..20 {
        let n = 50 + rng.below(5000);
        let xs = rows(&mut rng, n, 24);
        let per: Vec<f64> = (0..n).map(|_| rng.value()).collect();
        let x = Array::from_nested(xs.clone()).unwrap();
        let s = Array::from_shape_vec(&[n, 1], per.clone()).unwrap();
        // Rows from the middle of the values: the chain starts past 0.
        let from = rng.below(n / 2);
        let tail = x
            .index(&[Index::slice(Some(from as i64), None, 1)])
            .unwrap();
        let st = s
            .index(&[Index::slice(Some(from as i64), None, 1)])
            .unwrap();
        let got = apply(&[&st, &tail], &add).unwrap();
        let want = want_bits(&xs[from..], |r, v| per[from + r] + v);
        let got = bits(&got);
        if let Some(r) = (0..want.len()).find(|&r| got[r] != want[r]) {
            panic!(
                "case {case}: rows from {from} of {n}, row {r}: {:?} vs {:?} (x {:?}, s {})",
                got[r],
                want[r],
                xs[from + r],
                per[from + r]
            );
        }
        // Each row cut to at most 3 values: gaps between the rows, so the
        // rows do not chain and the flat pass must not run.
        let cut = x
            .index(&[Index::slice(None, None, 1), Index::slice(None, Some(3), 1)])
            .unwrap();
        let short: Vec<Vec<f64>> = xs.iter().map(|r| r[..r.len().min(3)].to_vec()).collect();
        let got = apply(&[&s, &cut], &add).unwrap();
        let want = want_bits(&short, |r, v| per[r] + v);
        assert_eq!(bits(&got), want, "case {case}: cut rows");
        let y = Array::from_nested(short.clone()).unwrap();
        let got = apply(&[&cut, &y], &add).unwrap();
        let want = want_bits(&short, |_, v| v + v);
        assert_eq!(bits(&got), want, "case {case}: cut rows + packed rows");
        // Reversed rows: a negative step, never the flat pass.
        let rev = x
            .index(&[Index::slice(None, None, 1), Index::slice(None, None, -1)])
            .unwrap();
        let got = apply(&[&s, &rev], &add).unwrap();
        let reversed: Vec<Vec<f64>> = xs
            .iter()
            .map(|r| r.iter().rev().copied().collect())
            .collect();
        let want = want_bits(&reversed, |r, v| per[r] + v);
        assert_eq!(bits(&got), want, "case {case}: reversed rows");
    }
}

#[test]
fn operands_whose_rows_differ_in_one_row_are_refused_or_broadcast() {
    let mut rng = Rng(0x5eed_0003);
    let add = Leaf::f64_op(F64Op::Add);
    for case in 0..30 {
        let n = 1 + rng.below(9000);
        let xs = rows(&mut rng, n, 20);
        let x = Array::from_nested(xs.clone()).unwrap();
        let mut ys = xs.clone();
        let r = rng.below(n);
        ys[r].push(1.5);
        let y = Array::from_nested(ys.clone()).unwrap();
        let e = apply(&[&x, &y], &add);
        if xs[r].is_empty() {
            // A row of length 1 against an empty one: empty.
            let got = e.unwrap();
            assert_eq!(bits(&got), want_bits(&xs, |_, v| v + v), "case {case}");
        } else if xs[r].len() == 1 {
            // A row of length 1 broadcasts against the longer one.
            let got = e.unwrap();
            let mut want = want_bits(&xs, |_, v| v + v);
            want[r] = ys[r].iter().map(|v| canonical(xs[r][0] + v)).collect();
            assert_eq!(bits(&got), want, "case {case}");
        } else {
            let msg = e.unwrap_err().to_string();
            assert!(msg.contains(&format!("[{r}]")), "case {case}: {msg}");
        }
    }
}

/// The per-row pass that takes the first operand's rows as the result's
/// without a scan must check every row: here that operand's rows overlap,
/// come out of order or leave gaps, some laid out so that their lengths
/// still add up to where its last row ends (two neighbouring rows
/// swapped), against rows of the same lengths or of length 1 that
/// broadcast. A `float64` operation (its own loop) and a plain leaf (the
/// leaf's loop per row), both orders, against a per-row reference.
#[test]
fn rows_that_do_not_chain_are_checked_one_by_one() {
    let mut rng = Rng(0x5eed_0005);
    let leaves = [
        Leaf::f64_op(F64Op::Sub),
        Leaf::map(|a: f64, b: f64| a - 2.0 * b),
    ];
    let reference = [|a: f64, b: f64| a - b, |a: f64, b: f64| a - 2.0 * b];
    for case in 0..40 {
        let n = 2 + rng.below(if case % 4 == 0 { 5000 } else { 200 });
        let lens: Vec<usize> = (0..n).map(|_| rng.below(12)).collect();
        let total: usize = lens.iter().sum();
        let values: Vec<f64> = (0..total + 3).map(|_| rng.value()).collect();
        let mut starts: Vec<usize> = lens
            .iter()
            .scan(0, |at, &l| {
                *at += l;
                Some(*at - l)
            })
            .collect();
        let mut lengths = lens.clone();
        match case % 3 {
            // Two neighbouring rows swapped, away from the ends.
            0 => {
                let i = 1 + rng.below(n - 2).min(n - 3);
                starts.swap(i, i + 1);
                lengths.swap(i, i + 1);
            }
            // One row moved somewhere else inside the values.
            1 => {
                let i = rng.below(n);
                starts[i] = rng.below(total + 3 - lengths[i]);
            }
            // One row longer, running into the next.
            _ => {
                let i = rng.below(n);
                lengths[i] = (lengths[i] + 1 + rng.below(3)).min(total + 3 - starts[i]);
            }
        }
        let xs: Vec<Vec<f64>> = starts
            .iter()
            .zip(&lengths)
            .map(|(&s, &l)| values[s..s + l].to_vec())
            .collect();
        let x = Array::from_starts_lengths(
            values.clone(),
            &starts.iter().map(|&s| s as i64).collect::<Vec<_>>(),
            &lengths.iter().map(|&l| l as i64).collect::<Vec<_>>(),
        )
        .unwrap();
        // The other operand: the same lengths, or 1 in some rows.
        let ys: Vec<Vec<f64>> = xs
            .iter()
            .map(|r| {
                let len = if rng.below(3) == 0 { 1 } else { r.len() };
                (0..len).map(|_| rng.value()).collect()
            })
            .collect();
        let y = Array::from_nested(ys.clone()).unwrap();
        let at = |r: &Vec<f64>, j: usize| if r.len() == 1 { r[0] } else { r[j] };
        for (leaf, f) in leaves.iter().zip(reference) {
            // Row by row, with `p`'s rows first (the lengths broadcast).
            let want = |p: &[Vec<f64>], q: &[Vec<f64>]| -> Vec<Vec<u64>> {
                p.iter()
                    .zip(q)
                    .map(|(a, b)| {
                        let len = if a.len() == 1 { b.len() } else { a.len() };
                        (0..len).map(|j| canonical(f(at(a, j), at(b, j)))).collect()
                    })
                    .collect()
            };
            let got = apply(&[&x, &y], leaf).unwrap();
            assert_eq!(bits(&got), want(&xs, &ys), "case {case}: x first");
            let got = apply(&[&y, &x], leaf).unwrap();
            assert_eq!(bits(&got), want(&ys, &xs), "case {case}: y first");
        }
    }
}

#[test]
fn the_mean_per_row_divides_the_per_row_sum_and_is_na_for_an_empty_row() {
    let mut rng = Rng(0x5eed_0004);
    for case in 0..20 {
        let n = if case % 3 == 0 {
            5000 + rng.below(9000)
        } else {
            rng.below(500)
        };
        let xs = rows(&mut rng, n, 40);
        let x = Array::from_nested(xs.clone()).unwrap();
        // With a neutral element the rows fold in wide blocks and each
        // mean is written in the fold's pass; without one, by length
        // through a buffer.
        let neutral = [Some(-0.0), None][case % 2];
        let sum = dynd_kernels::reduce::Reduction {
            identity: Some(0.0),
            combine: |a: f64, b: f64| a + b,
            reorderable: true,
            neutral,
            run: None,
        };
        let args = dynd_kernels::reduce::ReduceArgs {
            axes: Some(&[-1]),
            ..Default::default()
        };
        let sums = dynd_kernels::reduce::reduce(&x, &args, &sum, "sum").unwrap();
        let sums: Vec<f64> = (0..n).map(|r| sums.get::<f64>(&[r]).unwrap()).collect();
        for keepdims in [false, true] {
            let m = dynd_kernels::reduce::mean_of_rows(&x, keepdims, &sum, |n| n as f64, "mean")
                .unwrap()
                .expect("contiguous rows take the fused path");
            let want = if keepdims {
                format!("{n} * 1 * ?float64")
            } else {
                format!("{n} * ?float64")
            };
            assert_eq!(m.ty().to_string(), want, "case {case}");
            let got_all = m.to_vec::<Option<f64>>().unwrap();
            for (r, s) in sums.iter().enumerate() {
                let got = got_all[r];
                // NA for an empty row, else the sum over the length.
                let want = (!xs[r].is_empty()).then(|| s / xs[r].len() as f64);
                assert_eq!(
                    got.map(canonical),
                    want.map(canonical),
                    "case {case}, row {r}"
                );
            }
        }
    }
}
