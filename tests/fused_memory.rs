//! A fused evaluation allocates its result and small block buffers, never
//! an intermediate as large as the result; a small call allocates its
//! result alone: counted by a global allocator that records every
//! allocation made while the expression is evaluated or the call made.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering::Relaxed};

use dynd::func::{AxisOptions, Eval};
use dynd::nd::Array;

/// The system allocator, counting while `ON` is set.
struct Counting;

static ON: AtomicBool = AtomicBool::new(false);
static LARGEST: AtomicUsize = AtomicUsize::new(0);
static TOTAL: AtomicUsize = AtomicUsize::new(0);
static COUNT: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Set while this thread's allocations are counted one by one: the
    /// test harness's own thread reports a finished test (and allocates)
    /// while the next test counts, so counts are per thread.
    static COUNTING_HERE: Cell<bool> = const { Cell::new(false) };
}

fn note(size: usize) {
    if ON.load(Relaxed) {
        LARGEST.fetch_max(size, Relaxed);
        TOTAL.fetch_add(size, Relaxed);
    }
    // `try_with`: a thread being torn down has no thread-locals left.
    if COUNTING_HERE.try_with(Cell::get).unwrap_or(false) {
        COUNT.fetch_add(1, Relaxed);
    }
}

// SAFETY: every method forwards to the system allocator with the caller's
// arguments; the counting touches only atomics.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: forwarded contract.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note(layout.size());
        // SAFETY: forwarded contract.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded contract.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note(new_size);
        // SAFETY: forwarded contract.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The tests count one at a time (the counter is global).
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn one_at_a_time() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(|p| p.into_inner())
}

/// The largest allocation and the bytes allocated in all while `f` runs.
fn measure(f: impl Fn() -> Array) -> (usize, usize, Array) {
    LARGEST.store(0, Relaxed);
    TOTAL.store(0, Relaxed);
    ON.store(true, Relaxed);
    let r = f();
    ON.store(false, Relaxed);
    (LARGEST.load(Relaxed), TOTAL.load(Relaxed), r)
}

/// One test, so that no other test allocates while this one counts.
#[test]
fn fused_evaluation_allocates_the_result_and_block_buffers_only() {
    let _one = one_at_a_time();
    let n = 1 << 20;
    let v = |k: f64| Array::from_vec((0..n).map(|i| i as f64 * k).collect::<Vec<f64>>());
    let (a, b, c, d, e) = (v(1.0), v(0.5), v(0.25), v(2.0), v(3.0));
    let result = n * 8;
    // One-time set-up (the thread pool, the builtins' registry) is not
    // the evaluation's.
    rayon::join(|| (), || ());
    let small = Array::from_vec(vec![1.0f64; 8]);
    (&small * &small + &small * &small - &small)
        .eval_fused()
        .unwrap();
    let (largest, total, r) = measure(|| (&a * &b + &c * &d - &e).eval().unwrap());
    assert_eq!(r.get::<f64>(&[3]).unwrap(), 3.0 * 1.5 + 0.75 * 6.0 - 9.0);
    assert!(
        largest <= result,
        "largest allocation {largest} > the result's {result}"
    );
    // Beyond the result: the plan, the steps' kernels, the threads' block
    // buffers; nothing that grows with the arrays.
    assert!(total <= result + (128 << 10), "{total} bytes allocated");
    // Evaluated call by call, the intermediates are results of their own
    // (freed blocks are reused, so three, not four).
    let (_, stepwise, _) = measure(|| (&a * &b + &c * &d - &e).eval_stepwise().unwrap());
    assert!(stepwise >= 3 * result, "{stepwise}");
    drop(r);

    // Ragged rows with the same structure and a value per row.
    let rows = 100_000;
    let offsets: Vec<usize> = (0..=rows).map(|i| i * 10 + i % 3).collect();
    let total = *offsets.last().unwrap();
    let vals = |k: f64| (0..total).map(|i| i as f64 * k).collect::<Vec<f64>>();
    let x = Array::from_offsets(vals(1.0), &offsets).unwrap();
    let y = Array::from_offsets(vals(0.5), &offsets).unwrap();
    let m = Array::from_shape_vec(&[rows, 1], (0..rows).map(|i| i as f64).collect()).unwrap();
    let (largest, all, _) = measure(|| ((&x - &m) * &y + 1.0).eval().unwrap());
    assert!(largest <= total * 8, "{largest}");
    assert!(all <= total * 8 + (128 << 10), "{all} bytes allocated");
}

#[test]
fn a_reduced_expression_is_never_made_whole() {
    let _one = one_at_a_time();
    let (n, m) = (2000, 1000);
    let a = Array::from_shape_vec(&[n, m], (0..n * m).map(|i| i as f64).collect()).unwrap();
    let b = Array::from_vec((0..m).map(|i| i as f64 * 0.5).collect::<Vec<f64>>());
    let std = dynd::func::builtins::get("std").unwrap();
    let by_row = AxisOptions::new().axis(1);
    rayon::join(|| (), || ());
    let whole = n * m * 8;
    for (what, f) in [
        (
            "std over rows",
            &(|| (&a * &b - 1.0).reduce(&std, &by_row).unwrap()) as &dyn Fn() -> Array,
        ),
        ("max", &|| (&a * &b - 1.0).max().unwrap()),
        ("sum", &|| {
            (&a.transpose().unwrap().transpose().unwrap() * &b)
                .sum()
                .unwrap()
        }),
    ] {
        let (largest, total, _) = measure(f);
        // Parts of 64 Ki elements (512 KiB), a few at a time per thread.
        assert!(largest <= 1 << 20, "{what}: largest allocation {largest}");
        assert!(
            total < whole / 2,
            "{what}: {total} bytes allocated of {whole}"
        );
    }
}

/// The number of allocations `f` makes on this thread (after two calls to
/// warm up: the resolution caches, the thread's spare blocks); small calls
/// stay on the calling thread.
fn allocations<R>(mut f: impl FnMut() -> R) -> usize {
    drop(f());
    drop(f());
    COUNT.store(0, Relaxed);
    COUNTING_HERE.set(true);
    let r = f();
    COUNTING_HERE.set(false);
    drop(r);
    COUNT.load(Relaxed)
}

/// Small calls allocate their result and nothing else (issue: small calls
/// at the floor): the overload, the plan and the result's layout come
/// from caches after the first call.
#[test]
fn small_calls_allocate_their_result_only() {
    use dynd::func::builtins;
    use dynd::prelude::*;
    let _one = one_at_a_time();
    let add = builtins::get("add").unwrap();
    let (a, b) = (Array::from_vec(vec![1.5f64]), Array::from_vec(vec![2.5f64]));
    let m = Array::from_shape_vec(&[4, 4], (0..16).map(|i| i as f64).collect()).unwrap();
    let v = |k: f64| Array::from_vec((0..1000).map(|i| i as f64 * k).collect::<Vec<f64>>());
    let (x, y, z, w, u) = (v(1.0), v(0.5), v(0.25), v(2.0), v(3.0));
    let mut out = Array::from_vec(vec![0.0f64]);
    let mut out_1000 = Array::from_vec(vec![0.0f64; 1000]);
    // Other data types: the leaves' own loops, one pass.
    let iv = |k: i64| Array::from_vec((0..1000).map(|i| i * k).collect::<Vec<i64>>());
    let (i, j, l) = (iv(1), iv(3), iv(-2));
    let mut out_bool = Array::from_vec(vec![false; 1000]);
    // The expressions are built once: building one allocates its nodes.
    let sum = &a + &b;
    let e = &x * &y + &z * &w - &u;
    let ints = (&i * &j + &l).less(&j);
    let prepared = add.prepare(&[a.ty(), b.ty()]).unwrap();
    let counts = [
        ("add", allocations(|| add.call(&[&a, &b]).unwrap())),
        (
            "prepared add",
            allocations(|| prepared.call(&[&a, &b]).unwrap()),
        ),
        ("a + b", allocations(|| sum.eval().unwrap())),
        (
            "add into",
            allocations(|| add.call_into(&mut out, &[&a, &b]).unwrap()),
        ),
        ("sum_axis", allocations(|| m.sum_axis(1).unwrap())),
        ("expr", allocations(|| e.eval().unwrap())),
        (
            "expr into",
            allocations(|| e.eval_into(&mut out_1000).unwrap()),
        ),
        ("int64 expr", allocations(|| ints.eval().unwrap())),
        (
            "int64 expr into",
            allocations(|| ints.eval_into(&mut out_bool).unwrap()),
        ),
    ];
    // The result (its block, or its arrmeta: small blocks are reused
    // from the thread's spares), and nothing else; none into an output.
    for (what, n) in counts {
        let most = if what.ends_with("into") { 0 } else { 1 };
        assert!(n <= most, "{what}: {n} allocations ({counts:?})");
    }
}
