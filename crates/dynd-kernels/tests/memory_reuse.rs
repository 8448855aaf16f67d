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
