//! Blocks are reused after they are dropped: large ones through the
//! process's cache (one test in this process uses it, so no other takes
//! the cached block first), small and mid-size ones on their thread.

use dynd_kernels::memory::{release_cached, REUSE_MIN};
use dynd_kernels::{elwise, Array};

#[test]
fn dropped_large_blocks_are_reused_zeroed_or_overwritten() {
    let n = REUSE_MIN; // 8 MiB of f64s
    let ty: dynd_types::Type = format!("{n} * float64").parse().unwrap();
    let a = Array::from_vec(vec![1.5f64; n]);
    let b = Array::from_vec(vec![2.0f64; n]);

    // An elementwise result, dropped, then the next one reuses its block.
    let r = elwise::map2(&a, &b, |x: f64, y: f64| x + y).unwrap();
    let first = r.data_block().as_ptr();
    drop(r);
    let r = elwise::map2(&a, &b, |x: f64, y: f64| x * y).unwrap();
    assert_eq!(r.data_block().as_ptr(), first, "the freed block is reused");
    assert!(r.to_vec::<f64>().unwrap().iter().all(|&v| v == 3.0));

    // A broadcast result (the kernel's path, whose dense results are not
    // cleared first) over the reused block: every element the kernel's.
    drop(r);
    let m = Array::from_shape_vec(&[n / 1024, 1024], vec![1.5f64; n]).unwrap();
    let row = Array::from_vec((0..1024).map(f64::from).collect::<Vec<f64>>());
    let ty_m: dynd_types::Type = format!("{} * 1024 * float64", n / 1024).parse().unwrap();
    let leaf = elwise::Leaf::map(|x: f64, y: f64| x * y);
    let r = elwise::apply_typed(&ty_m, &[&m, &row], &leaf).unwrap();
    assert_eq!(r.data_block().as_ptr(), first, "the freed block is reused");
    let got = r.to_vec::<f64>().unwrap();
    assert!(got
        .iter()
        .enumerate()
        .all(|(i, &v)| v == 1.5 * (i % 1024) as f64));

    // `zeros` reusing a block that held values still gives zeros.
    drop(r);
    let z = Array::zeros(&ty).unwrap();
    assert_eq!(z.data_block().as_ptr(), first);
    assert!(z.to_vec::<f64>().unwrap().iter().all(|&v| v == 0.0));

    // Releasing frees what is kept (with this thread's mid-size blocks);
    // small blocks are never kept.
    let mid = elwise::map1(&Array::from_vec(vec![1.0f64; 1000]), |x: f64| x + 1.0).unwrap();
    drop(mid);
    drop(z);
    assert!(release_cached() >= n * 8 + 8000);
    assert_eq!(release_cached(), 0);
    drop(Array::from_vec(vec![0u8; 100]));
    assert_eq!(release_cached(), 0);
}

#[test]
fn small_blocks_are_recycled_on_their_thread_and_zeroed_for_zeros() {
    let ty: dynd_types::Type = "3 * int64".parse().unwrap();
    let a = Array::from_vec(vec![7i64, 8, 9]);
    let r = elwise::map1(&a, |x: i64| x * 2).unwrap();
    assert_eq!(r.to_vec::<i64>().unwrap(), [14, 16, 18]);
    let first = r.data_block().as_ptr();
    drop(r);
    // The same block comes back for the next small array, zeroed.
    let z = Array::zeros(&ty).unwrap();
    assert_eq!(z.data_block().as_ptr(), first);
    assert_eq!(z.to_vec::<i64>().unwrap(), [0, 0, 0]);
    // A block still shared with a view is not recycled when one side drops.
    let view = z
        .index(&[dynd_kernels::Index::slice(Some(1), None, 1)])
        .unwrap();
    drop(z);
    let other = Array::zeros(&ty).unwrap();
    assert_ne!(other.data_block().as_ptr(), first);
    assert_eq!(view.to_vec::<i64>().unwrap(), [0, 0]);
}

#[test]
fn mid_size_blocks_are_recycled_on_their_thread_for_results_of_about_their_size() {
    let n = 1000; // 8000 bytes: allocated, below the shared cache's size
    let ty: dynd_types::Type = format!("{n} * float64").parse().unwrap();
    let a = Array::from_vec((0..n).map(|i| i as f64).collect());
    let b = Array::from_vec(vec![2.0f64; n]);
    let r = elwise::map2(&a, &b, |x: f64, y: f64| x + y).unwrap();
    let first = r.data_block().as_ptr();
    drop(r);
    // The next result of this size takes the block, every value its own.
    let r = elwise::map2(&a, &b, |x: f64, y: f64| x * y).unwrap();
    assert_eq!(
        r.data_block().as_ptr(),
        first,
        "the dropped block is reused"
    );
    let want: Vec<f64> = (0..n).map(|i| i as f64 * 2.0).collect();
    assert_eq!(r.to_vec::<f64>().unwrap(), want);
    // `zeros` on a block that held values gives zeros; a slightly smaller
    // array fits it too.
    drop(r);
    let z = Array::zeros(&format!("{} * float64", n - 10).parse().unwrap()).unwrap();
    assert_eq!(z.data_block().as_ptr(), first);
    assert!(z.to_vec::<f64>().unwrap().iter().all(|&v| v == 0.0));
    // One much smaller or larger does not take it.
    drop(z);
    let small = Array::zeros(&"500 * float64".parse().unwrap()).unwrap();
    let large = Array::zeros(&"2000 * float64".parse().unwrap()).unwrap();
    assert_ne!(small.data_block().as_ptr(), first);
    assert_ne!(large.data_block().as_ptr(), first);
    // A block still shared with a view is not recycled when one side drops.
    let full = Array::zeros(&ty).unwrap();
    assert_eq!(full.data_block().as_ptr(), first);
    let view = full
        .index(&[dynd_kernels::Index::slice(Some(1), None, 1)])
        .unwrap();
    drop(full);
    let other = Array::zeros(&ty).unwrap();
    assert_ne!(other.data_block().as_ptr(), first);
    assert_eq!(view.to_vec::<f64>().unwrap().len(), n - 1);
}

#[test]
fn small_arrays_dropped_pass_their_parts_to_the_next_fresh_array() {
    let a = Array::from_vec(vec![1.0f64, 2.0]);
    let b = Array::from_vec(vec![10.0f64, 20.0]);
    let add = |x: f64, y: f64| x + y;
    let mul = |x: f64, y: f64| x * y;

    // A result dropped: the next result of its type takes its block (its
    // type and arrmeta with it), every value its own.
    let r = elwise::map2(&a, &b, add).unwrap();
    let (first, meta) = (r.data_block().as_ptr(), r.arrmeta_arc());
    drop(r);
    let r = elwise::map2(&a, &b, mul).unwrap();
    assert_eq!(
        r.data_block().as_ptr(),
        first,
        "the dropped parts are reused"
    );
    assert!(std::sync::Arc::ptr_eq(&r.arrmeta_arc(), &meta));
    assert_eq!(r.to_vec::<f64>().unwrap(), [10.0, 40.0]);
    drop(meta);

    // `zeros` of the type takes them zeroed.
    drop(r);
    let z = Array::zeros(&"2 * float64".parse().unwrap()).unwrap();
    assert_eq!(z.data_block().as_ptr(), first);
    assert_eq!(z.to_vec::<f64>().unwrap(), [0.0, 0.0]);

    // Parts still shared (a clone, a view at an offset) are not kept:
    // later results never write what the survivor reads.
    let clone = z.clone();
    drop(z);
    let r = elwise::map2(&a, &b, add).unwrap();
    assert_ne!(r.data_block().as_ptr(), first);
    let view = r
        .index(&[dynd_kernels::Index::slice(Some(1), None, 1)])
        .unwrap();
    drop(r);
    for _ in 0..8 {
        let again = elwise::map2(&a, &b, mul).unwrap();
        assert_eq!(again.to_vec::<f64>().unwrap(), [10.0, 40.0]);
    }
    assert_eq!(clone.to_vec::<f64>().unwrap(), [0.0, 0.0]);
    assert_eq!(view.to_vec::<f64>().unwrap(), [22.0]);
    drop(view);

    // Arrays of many small layouts made and dropped in turn (more than a
    // thread keeps): each has its own type, shape and values; a kept block
    // of another layout serves a new one, resized.
    for round in 0..3 {
        let mut made = Vec::new();
        for n in 1..=6usize {
            let x = Array::from_vec((0..n).map(|i| (i + round) as i32).collect());
            let y = elwise::map1(&x, |v: i32| i64::from(v) * 3).unwrap();
            let z = elwise::map1(&x, |v: i32| f64::from(v) / 2.0).unwrap();
            assert_eq!(y.ty().to_string(), format!("{n} * int64"));
            assert_eq!(z.ty().to_string(), format!("{n} * float64"));
            made.push((n, y, z));
            if n % 2 == 0 {
                drop(made.remove(0));
            }
        }
        for (n, y, z) in made {
            let want: Vec<i64> = (0..n).map(|i| (i + round) as i64 * 3).collect();
            assert_eq!(y.to_vec::<i64>().unwrap(), want);
            let want: Vec<f64> = (0..n).map(|i| (i + round) as f64 / 2.0).collect();
            assert_eq!(z.to_vec::<f64>().unwrap(), want);
        }
        let s = Array::zeros(&"3 * 2 * int16".parse().unwrap()).unwrap();
        assert_eq!(s.to_vec::<i16>().unwrap(), [0; 6]);
    }
}

#[test]
fn parts_kept_on_a_thread_that_ends_are_released() {
    // Under valgrind (scripts/valgrind.sh), a leak here is a failure.
    std::thread::spawn(|| {
        for n in 1..=8usize {
            let x = Array::from_vec(vec![1.5f64; n]);
            drop(elwise::map1(&x, |v: f64| v * 2.0).unwrap());
        }
    })
    .join()
    .unwrap();
}
