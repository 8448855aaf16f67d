//! Results larger than the cache are written with stores that go around
//! it (`dynd-kernels`' `loops::stream`): the values are the plain loops'
//! to the bit, dense and ragged, one thread or several, and views that
//! start mid-line take the same path.

use dynd::func::builtins;
use dynd::nd::{Array, Index};

/// More than the 16 MB from which results are streamed.
const N: usize = 2_200_007;

fn values(n: usize, k: f64) -> Vec<f64> {
    (0..n).map(|i| (i as f64 * k).sin() * 1e3 + 0.5).collect()
}

fn bits(xs: &[f64]) -> Vec<u64> {
    xs.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn large_dense_results_have_the_loops_bits() {
    let (xs, ys) = (values(N, 0.37), values(N, 1.91));
    let (x, y) = (Array::from_vec(xs.clone()), Array::from_vec(ys.clone()));
    for name in ["add", "subtract", "multiply", "divide"] {
        let f = builtins::get(name).unwrap();
        let op = |a: f64, b: f64| match name {
            "add" => a + b,
            "subtract" => a - b,
            "multiply" => a * b,
            _ => a / b,
        };
        let r = f.call(&[&x, &y]).unwrap().to_vec::<f64>().unwrap();
        let want: Vec<f64> = xs.iter().zip(&ys).map(|(&a, &b)| op(a, b)).collect();
        assert!(bits(&r) == bits(&want), "{name}");
        // A broadcast scalar on either side.
        let s = Array::from_scalar(3.25f64);
        let r = f.call(&[&s, &y]).unwrap().to_vec::<f64>().unwrap();
        let want: Vec<f64> = ys.iter().map(|&b| op(3.25, b)).collect();
        assert!(bits(&r) == bits(&want), "{name} scalar first");
    }
    // A view starting one element in (not on a line's start), and a
    // unary operation.
    let tail = x.index(&[Index::slice(Some(1), None, 1)]).unwrap();
    let r = builtins::get("sqrt").unwrap().call(&[&tail]).unwrap();
    let want: Vec<f64> = xs[1..].iter().map(|a| a.sqrt()).collect();
    assert!(bits(&r.to_vec::<f64>().unwrap()) == bits(&want));
}

#[test]
fn large_ragged_results_have_the_loops_bits() {
    // Rows of 0 to 20 elements, the same lengths in both arrays.
    let lens: Vec<usize> = (0..N / 10).map(|i| (i * 7919) % 21).collect();
    let rows = |k: f64| -> Vec<Vec<f64>> {
        let mut at = 0usize;
        lens.iter()
            .map(|&n| {
                let r = (at..at + n).map(|i| (i as f64 * k).cos() * 10.0).collect();
                at += n;
                r
            })
            .collect()
    };
    let (xr, yr) = (rows(0.5), rows(2.5));
    let total: usize = lens.iter().sum();
    assert!(total * 8 > 16 << 20, "the result must be streamed");
    let x = Array::from_nested(xr.clone()).unwrap();
    let y = Array::from_nested(yr.clone()).unwrap();
    let r = builtins::get("multiply").unwrap().call(&[&x, &y]).unwrap();
    let flat: Vec<f64> = xr
        .iter()
        .flatten()
        .zip(yr.iter().flatten())
        .map(|(a, b)| a * b)
        .collect();
    let got: Vec<f64> = r
        .to_nested::<f64>()
        .unwrap()
        .into_iter()
        .flatten()
        .collect();
    assert!(bits(&got) == bits(&flat));
    assert_eq!(r.ty().to_string(), x.ty().to_string());
}
