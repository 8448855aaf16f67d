use super::*;

/// The masked-block fold gives the baseline build's bits on every
/// instruction set the CPU has (the order of the additions is the same;
/// only the registers differ).
#[test]
fn every_set_folds_to_the_baseline_bits() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let rows: Vec<Vec<f64>> = (0..3000)
        .map(|_| {
            let len = (next() % 40) as usize;
            (0..len)
                .map(|_| (next() % 2001) as f64 * 1e-3 - 1.0)
                .collect()
        })
        .collect();
    let a = Array::from_nested(rows).unwrap();
    let rows = Rows::of(&a).unwrap();
    let walk = rows.slices::<f64>().unwrap();
    let lanes = walk.lanes::<u64>().unwrap();
    let red = Reduction {
        identity: Some(0.0),
        combine: |x: f64, y: f64| x + y,
        reorderable: true,
        neutral: Some(-0.0),
        run: None,
    };
    let mut base = vec![0.0f64; rows.count()];
    let start = (Some(0.0), -0.0);
    fold_unit_wide(&walk, lanes, 0, &mut base, &red, start, same, "sum").unwrap();
    let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for isa in crate::isa::available() {
        let mut got = vec![1.0f64; rows.count()];
        // SAFETY: the CPU has `isa`.
        unsafe { fold_unit_wide_on(isa, &walk, lanes, 0, &mut got, &red, start, same, "sum") }
            .unwrap();
        assert_eq!(bits(&base), bits(&got), "{}", isa.name());
    }
}

/// The per-row variance gives the baseline build's bits on every
/// instruction set the CPU has, for rows of every length up to past the
/// blocked path.
#[test]
fn every_set_gives_the_baseline_variances() {
    let rows: Vec<Vec<f64>> = (0..600)
        .map(|n| {
            (0..n % 300)
                .map(|i| ((i * 7 + n) as f64 * 0.7316).sin() * 1e3 + 1e5)
                .collect()
        })
        .collect();
    let a = Array::from_nested(rows).unwrap();
    let rows = Rows::of(&a).unwrap();
    let walk = rows.slices::<f64>().unwrap();
    let lanes = walk.lanes::<u64>().unwrap();
    let long = |xs: &[f64]| xs.len() as f64;
    for (ddof, root) in [(0, false), (1, true)] {
        let fin = Finish { ddof, root };
        let mut base = vec![0.0f64; rows.count()];
        let unit = VarUnit {
            rows: &walk,
            fin,
            long: &long,
            name: "var",
        };
        unit.run(lanes, 0, &mut base, same).unwrap();
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        for isa in crate::isa::available() {
            let mut got = vec![1.0f64; rows.count()];
            // SAFETY: the CPU has `isa`.
            unsafe { unit.run_on(isa, lanes, 0, &mut got, same) }.unwrap();
            assert_eq!(bits(&base), bits(&got), "ddof {ddof} on {}", isa.name());
        }
    }
}

/// A row folds to the same bits wherever it lies: the last rows of the
/// values (whose last block would reach past them) as the others.
#[test]
fn a_rows_fold_does_not_depend_on_where_it_lies() {
    // Values whose sums round differently in another grouping.
    let row = |n: usize, k: f64| {
        (0..n)
            .map(|i| ((i as f64 + k) * 0.7316).sin() * 1e3)
            .collect::<Vec<f64>>()
    };
    let rows: Vec<Vec<f64>> = (0..40).map(|n| row(n, n as f64 * 0.37)).collect();
    let mut padded = rows.clone();
    padded.extend((0..4).map(|_| row(64, 0.5)));
    let red = Reduction {
        identity: Some(0.0),
        combine: |x: f64, y: f64| x + y,
        reorderable: true,
        neutral: Some(-0.0),
        run: None,
    };
    let fold = |rows: Vec<Vec<f64>>| {
        // The values exactly as long as the rows (no spare capacity).
        let mut offsets = vec![0usize];
        for r in &rows {
            offsets.push(offsets.last().unwrap() + r.len());
        }
        let values: Vec<f64> = rows.concat();
        let a = Array::from_offsets(values, &offsets).unwrap();
        let rows = Rows::of(&a).unwrap();
        let walk = rows.slices::<f64>().unwrap();
        let lanes = walk.lanes::<u64>().unwrap();
        let mut out = vec![0.0f64; rows.count()];
        fold_unit_wide(
            &walk,
            lanes,
            0,
            &mut out,
            &red,
            (Some(0.0), -0.0),
            same,
            "sum",
        )
        .unwrap();
        out.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    };
    assert_eq!(fold(rows.clone())[..], fold(padded)[..rows.len()]);
}

/// Each row's length, counted from the pairs: in one run where they lie
/// side by side, one by one for a view that steps back over the rows,
/// with and without the kept dimension; and under two fixed dimensions.
#[test]
fn counts_per_row_read_the_lengths() {
    let a = Array::from_json(
        "[[1, 2], [], [3, 4, 5]]",
        Some(&"3 * var * float64".parse().unwrap()),
    )
    .unwrap();
    let count = |x: &Array, keep| crate::reduce::count(x, Some(&[-1]), keep, None, "count");
    assert_eq!(count(&a, false).unwrap().to_string(), "[2, 0, 3]");
    assert_eq!(count(&a, true).unwrap().to_string(), "[[2], [0], [3]]");
    let back = a
        .index(&[crate::view::Index::slice(None, None, -1)])
        .unwrap();
    assert!(Rows::of(&back).unwrap().pairs().is_none());
    assert_eq!(count(&back, false).unwrap().to_string(), "[3, 0, 2]");
    let two = Array::from_json(
        "[[[1], []], [[2, 3], [4]]]",
        Some(&"2 * 2 * var * int32".parse().unwrap()),
    )
    .unwrap();
    assert_eq!(count(&two, false).unwrap().to_string(), "[[1, 0], [2, 1]]");
    let all = crate::reduce::count(&two, None, false, None, "count").unwrap();
    assert_eq!(all.to_string(), "4");
}
