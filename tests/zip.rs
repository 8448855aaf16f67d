//! `nd::zip`: hand-written loops over several arrays, against naive
//! loops over the same elements.

use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use dynd::nd::{array, zip, Array, Index};

fn seq(n: usize, k: f64) -> Vec<f64> {
    (0..n).map(|i| (i as f64) * k - 3.0).collect()
}

#[test]
fn broadcasting_views_and_transposes_visit_the_right_elements() {
    let (r, c) = (37, 53);
    let a = Array::from_shape_vec(&[r, c], seq(r * c, 0.5)).unwrap();
    let rev = Array::from_shape_vec(&[r, c], seq(r * c, 0.25))
        .unwrap()
        .index(&[Index::slice(None, None, -1), Index::ALL])
        .unwrap();
    let t = Array::from_shape_vec(&[c, r], seq(r * c, 2.0))
        .unwrap()
        .transpose()
        .unwrap();
    let col = Array::from_shape_vec(&[r, 1], seq(r, 1.0)).unwrap();
    let mut out = Array::zeros(&format!("{r} * {c} * float64").parse().unwrap()).unwrap();
    zip((&a, &rev, &mut out, &col))
        .for_each(|(x, y, o, m): (&f64, &f64, &mut f64, &f64)| *o = x * y - m)
        .unwrap();
    let want = (&(&a * &rev) - &col).eval().unwrap();
    assert_eq!(out.to_string(), want.to_string());
    // A transposed source, into an F-order destination.
    let mut f = Array::zeros(&format!("{c} * {r} * float64").parse().unwrap())
        .unwrap()
        .transpose()
        .unwrap();
    zip((&mut f, &t))
        .for_each(|(o, x): (&mut f64, &f64)| *o = 2.0 * x)
        .unwrap();
    assert_eq!(f.to_string(), (&t * 2.0).eval().unwrap().to_string());
    // Parallel: the same values, every element once.
    let big = Array::from_shape_vec(&[1000, 600], seq(600_000, 0.001)).unwrap();
    let mut o1 = Array::zeros(&"1000 * 600 * float64".parse().unwrap()).unwrap();
    let visits = AtomicUsize::new(0);
    zip((&big, &mut o1))
        .par_for_each(|(x, o): (&f64, &mut f64)| {
            visits.fetch_add(1, Relaxed);
            *o = x.sqrt().max(0.0);
        })
        .unwrap();
    assert_eq!(visits.load(Relaxed), 600_000);
    let mut o2 = Array::zeros(&"1000 * 600 * float64".parse().unwrap()).unwrap();
    zip((&big, &mut o2))
        .for_each(|(x, o): (&f64, &mut f64)| *o = x.sqrt().max(0.0))
        .unwrap();
    assert_eq!(o1.to_string(), o2.to_string());
}

use dynd::func::Eval;

#[test]
fn ragged_rows_and_per_row_values() {
    let x = array![[1.0, 2.0, 3.0], [], [4.0], [5.0, 6.0]];
    let m = array![[10.0], [20.0], [30.0], [40.0]];
    let mut out = (&x * 0.0).eval().unwrap();
    zip((&x, &m, &mut out))
        .for_each(|(v, m, o): (&f64, &f64, &mut f64)| *o = v + m)
        .unwrap();
    assert_eq!(out.to_string(), "[[11, 12, 13], [], [34], [45, 46]]");
    // Reads only: the ragged array drives the walk.
    let mut seen = Vec::new();
    zip((&m, &x))
        .for_each(|(m, v): (&f64, &f64)| seen.push(m + v))
        .unwrap();
    assert_eq!(seen, vec![11.0, 12.0, 13.0, 34.0, 45.0, 46.0]);
    // Rows of other lengths do not broadcast.
    let y = array![[1.0, 2.0], [], [4.0], [5.0, 6.0]];
    let e = zip((&x, &y))
        .for_each(|(_, _): (&f64, &f64)| ())
        .unwrap_err();
    assert!(e.to_string().contains("length"), "{e}");
}

#[test]
fn a_written_array_that_shares_memory_reads_the_old_values() {
    let a = Array::from_vec(seq(10, 1.0));
    let mut b = a.clone();
    let rev = a.index(&[Index::slice(None, None, -1)]).unwrap();
    zip((&rev, &mut b))
        .for_each(|(r, o): (&f64, &mut f64)| *o += r)
        .unwrap();
    assert_eq!(b.to_string(), (&a + &rev).eval().unwrap().to_string());
    assert_eq!(a.to_string(), Array::from_vec(seq(10, 1.0)).to_string());
}

#[test]
fn indexed_walks_give_each_elements_position() {
    let a = Array::from_shape_vec(&[3, 4], seq(12, 1.0)).unwrap();
    let t = a.transpose().unwrap();
    let mut out = Array::zeros(&"4 * 3 * float64".parse().unwrap()).unwrap();
    let mut order = Vec::new();
    zip((&t, &mut out))
        .indexed()
        .for_each(|i, (x, o): (&f64, &mut f64)| {
            order.push((i[0], i[1]));
            *o = x + (10 * i[0] + i[1]) as f64;
        })
        .unwrap();
    assert_eq!(order.len(), 12);
    assert_eq!(order[..3], [(0, 0), (0, 1), (0, 2)]);
    for i in 0..4 {
        for j in 0..3 {
            let want = t.get::<f64>(&[i, j]).unwrap() + (10 * i + j) as f64;
            assert_eq!(out.get::<f64>(&[i, j]).unwrap(), want);
        }
    }
    let e = zip((&array![[1.0], [2.0, 3.0]],))
        .indexed()
        .for_each(|_, (_,): (&f64,)| ())
        .unwrap_err();
    assert!(e.to_string().contains("var"), "{e}");
}

#[test]
fn misuse_is_an_error_before_any_element_is_visited() {
    let a = Array::from_vec(seq(4, 1.0));
    let mut visited = 0;
    let e = zip((&a,))
        .for_each(|(_,): (&i64,)| visited += 1)
        .unwrap_err();
    assert_eq!(visited, 0);
    assert_eq!(
        e.to_string(),
        "argument 0 has data type float64, but the zip's closure takes int64"
    );
    let (mut b, mut c) = (a.clone(), a.clone());
    let e = zip((&mut b, &mut c))
        .for_each(|(_, _): (&mut f64, &mut f64)| ())
        .unwrap_err();
    assert!(e.to_string().contains("more than one"), "{e}");
    // A written array smaller than the walk.
    let big = Array::from_shape_vec(&[3, 4], seq(12, 1.0)).unwrap();
    let mut small = Array::from_vec(seq(4, 1.0));
    let e = zip((&big, &mut small))
        .for_each(|(_, _): (&f64, &mut f64)| ())
        .unwrap_err();
    assert!(e.to_string().contains("broadcast"), "{e}");
    // Reads only, and no array has the joint shape.
    let (col, row) = (
        Array::from_shape_vec(&[3, 1], seq(3, 1.0)).unwrap(),
        Array::from_vec(seq(4, 1.0)),
    );
    let e = zip((&col, &row))
        .for_each(|(_, _): (&f64, &f64)| ())
        .unwrap_err();
    assert!(e.to_string().contains("3 * 4"), "{e}");
}
