//! A panic inside a user function reaches the caller and leaves the library
//! usable; the same callables and arrays used from many threads give the
//! serial results.

use std::panic::{catch_unwind, AssertUnwindSafe};

use dynd_arrfunc::{builtins, Callable};
use dynd_kernels::{array, Array, Value};

/// `a + b`, but panics when `a` is exactly 13.
fn touchy() -> Callable {
    Callable::map("touchy", |a: f64, b: f64| {
        if a == 13.0 {
            panic!("thirteen");
        }
        a + b
    })
}

fn panics(f: impl FnOnce() -> Result<Array, dynd_arrfunc::Error>) -> String {
    match catch_unwind(AssertUnwindSafe(f)) {
        Err(payload) => payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_default(),
        Ok(r) => panic!("expected a panic, got {r:?}"),
    }
}

/// Runs calls that must work after a panic: small, large (parallel),
/// ragged, strings; each checked against its known result.
fn still_works(f: &Callable) {
    let add = builtins::get("add").unwrap();
    for _ in 0..3 {
        assert_eq!(
            f.call(&[&array![1.0, 2.0], &array![10.0]])
                .unwrap()
                .to_string(),
            "[11, 12]"
        );
        let n = 1 << 18;
        let big = Array::from_vec((0..n).map(|i| i as f64).collect());
        let r = add.call(&[&big, &big]).unwrap();
        assert_eq!(r.get::<f64>(&[n - 1]).unwrap(), 2.0 * (n - 1) as f64);
        let ragged = array![[1.0], [2.0, 3.0], []];
        assert_eq!(
            add.call(&[&ragged, &ragged]).unwrap().to_string(),
            "[[2], [4, 6], []]"
        );
        let small = array![1.5];
        assert_eq!(add.call(&[&small, &small]).unwrap().to_string(), "[3]");
    }
}

#[test]
fn a_panic_in_a_serial_loop_reaches_the_caller() {
    let f = touchy();
    let msg = panics(|| f.call(&[&array![1.0, 13.0, 3.0], &array![1.0]]));
    assert_eq!(msg, "thirteen");
    still_works(&f);
}

#[test]
fn a_panic_in_a_parallel_loop_reaches_the_caller() {
    let f = touchy();
    // Above the parallel threshold, with the bad element in the last chunk.
    let n = 1 << 19;
    let mut xs: Vec<f64> = vec![0.0; n];
    xs[n - 7] = 13.0;
    let a = Array::from_vec(xs);
    let msg = panics(|| f.call(&[&a, &a]));
    assert_eq!(msg, "thirteen");
    still_works(&f);
    // Into a given output as well.
    let mut out = Array::from_vec(vec![0.0f64; n]);
    let r = catch_unwind(AssertUnwindSafe(|| f.call_into(&mut out, &[&a, &a])));
    assert!(r.is_err());
    still_works(&f);
}

#[test]
fn a_panic_in_a_transposed_or_ragged_loop_reaches_the_caller() {
    let f = touchy();
    let n = 600;
    let xs: Vec<f64> = (0..n * n)
        .map(|i| if i == n * n - 3 { 13.0 } else { 1.0 })
        .collect();
    let m = Array::from_shape_vec(&[n, n], xs).unwrap();
    let t = m.transpose().unwrap();
    assert_eq!(panics(|| f.call(&[&m, &t])), "thirteen");
    assert_eq!(panics(|| f.call(&[&t, &m])), "thirteen");
    still_works(&f);
    let ragged = array![[1.0], [2.0, 13.0], []];
    assert_eq!(panics(|| f.call(&[&ragged, &ragged])), "thirteen");
    still_works(&f);
}

#[test]
fn a_panic_in_a_reduction_step_reaches_the_caller() {
    let sum = Callable::map("picky_add", |a: i64, b: i64| {
        if b == 13 {
            panic!("thirteen");
        }
        a.wrapping_add(b)
    })
    .associative(Some(Value::Int(0)))
    .unwrap();
    let r = sum.reduce().unwrap();
    let a = array![[1, 2, 13], [4, 5, 6]];
    let msg = panics(|| r.call_kw(&[&a], &[]));
    assert_eq!(msg, "thirteen");
    let fine = array![[1, 2, 3], [4, 5, 6]];
    assert_eq!(r.call_kw(&[&fine], &[]).unwrap().to_string(), "21");
    still_works(&touchy());
}

/// One call of a mixed workload, its result as text.
fn work(k: usize) -> String {
    let add = builtins::get("add").unwrap();
    let multiply = builtins::get("multiply").unwrap();
    let sum = builtins::get("sum").unwrap();
    let sqrt = builtins::get("sqrt").unwrap();
    match k % 6 {
        0 => add
            .call(&[&array![1, 2, 3], &Array::from_scalar(k as i64)])
            .unwrap()
            .to_string(),
        1 => multiply
            .call(&[&array![[1.5], [2.5, 3.5]], &array![2.0]])
            .unwrap()
            .to_string(),
        2 => sum
            .call(&[&Array::from_vec((0..(k % 97) as i32).collect())])
            .unwrap()
            .to_string(),
        3 => sqrt
            .call(&[&Array::from_vec(vec![(k % 50) as f32; 5])])
            .unwrap()
            .to_string(),
        4 => add
            .call(&[&array![[1], [2]], &array![10, 20, 30]])
            .unwrap()
            .to_string(),
        _ => add
            .call(&[&array!["a", "b"].index(&[]).unwrap(), &array![1]])
            .map(|a| a.to_string())
            .unwrap_or_else(|e| e.to_string()),
    }
}

#[test]
fn many_threads_give_the_serial_results() {
    const THREADS: usize = 8;
    const CALLS: usize = 100_000;
    let expected: Vec<String> = (0..600).map(work).collect();
    std::thread::scope(|s| {
        for t in 0..THREADS {
            let expected = &expected;
            s.spawn(move || {
                for i in 0..CALLS / THREADS {
                    let k = (i * 7 + t * 13) % 600;
                    assert_eq!(work(k), expected[k], "thread {t}, call {i}");
                }
            });
        }
    });
}

#[test]
fn threads_share_arrays_and_large_blocks() {
    // Large results recycle freed blocks through a global cache; small
    // ones through per-thread spares: both under contention.
    let add = builtins::get("add").unwrap();
    let big = Array::from_vec((0..200_000).map(|i| i as f64).collect());
    std::thread::scope(|s| {
        for _ in 0..8 {
            let (add, big) = (&add, &big);
            s.spawn(move || {
                for i in 0..40 {
                    let r = add.call(&[big, &Array::from_scalar(i as f64)]).unwrap();
                    assert_eq!(r.get::<f64>(&[199_999]).unwrap(), 199_999.0 + i as f64);
                    let small = add.call(&[&array![1.0], &array![2.0]]).unwrap();
                    assert_eq!(small.to_string(), "[3]");
                }
            });
        }
    });
}
