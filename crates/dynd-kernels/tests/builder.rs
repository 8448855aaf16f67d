//! The kernel builder: nesting, spilling, threads, and failure safety
//! (nothing leaks, nothing is dropped twice), checked with a counting
//! allocator and drop counters.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use dynd_kernels::kernel::{Child, KernelBuilder, KernelCtx, KernelData};
use dynd_kernels::KernelError;
use smallvec::{smallvec, SmallVec};

/// Counts this thread's allocations and live bytes.
struct Counting;

thread_local! {
    static ALLOCS: Cell<usize> = const { Cell::new(0) };
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

// SAFETY: forwards to the system allocator; the counters are const-initialised
// thread-locals, which do not allocate.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let _ = ALLOCS.try_with(|c| c.set(c.get() + 1));
        let _ = LIVE.try_with(|c| c.set(c.get() + layout.size() as isize));
        // SAFETY: forwarded.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        let _ = LIVE.try_with(|c| c.set(c.get() - layout.size() as isize));
        // SAFETY: forwarded.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocs() -> usize {
    ALLOCS.with(Cell::get)
}

fn live() -> isize {
    LIVE.with(Cell::get)
}

/// Adds a constant to an i64.
struct AddConst(i64);

impl KernelData for AddConst {
    unsafe fn single(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: the test passes valid i64 pointers.
        unsafe {
            let v = (src[0] as *const i64).read_unaligned();
            (dst as *mut i64).write_unaligned(v + self.0)
        };
        Ok(())
    }
    fn describe(&self) -> String {
        format!("add {}", self.0)
    }
}

/// Runs its child over `size` strided elements.
struct Dim {
    size: usize,
    dst_stride: isize,
    src_stride: isize,
    child: Child,
}

impl KernelData for Dim {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: the caller's contract covers `size` strided elements.
        unsafe {
            ctx.child(self.child)
                .strided(dst, self.dst_stride, src, &[self.src_stride], self.size)
        }
    }
    fn describe(&self) -> String {
        format!(
            "dim size={} strides=({}, {})",
            self.size, self.dst_stride, self.src_stride
        )
    }
    fn children(&self) -> SmallVec<[Child; 2]> {
        smallvec![self.child]
    }
}

#[test]
fn a_nested_kernel_runs_and_describes_itself() {
    let mut b = KernelBuilder::new();
    let leaf = b.push(AddConst(10));
    let inner = b.push(Dim {
        size: 3,
        dst_stride: 8,
        src_stride: 8,
        child: leaf,
    });
    b.push(Dim {
        size: 2,
        dst_stride: 24,
        src_stride: 24,
        child: inner,
    });
    assert!(!b.is_spilled());
    let k = b.finish().unwrap();
    let src: Vec<i64> = (0..6).collect();
    let mut dst = vec![0i64; 6];
    // SAFETY: 2 x 3 contiguous i64 arrays.
    unsafe { k.single(dst.as_mut_ptr().cast(), &[src.as_ptr().cast()]) }.unwrap();
    assert_eq!(dst, [10, 11, 12, 13, 14, 15]);
    assert_eq!(
        k.describe(),
        "dim size=2 strides=(24, 24)\n  dim size=3 strides=(8, 8)\n    add 10\n"
    );
}

#[test]
fn building_and_running_a_nested_kernel_allocates_nothing() {
    let src: Vec<i64> = (0..24).collect();
    let mut dst = vec![0i64; 24];
    let before = allocs();
    {
        let mut b = KernelBuilder::new();
        let leaf = b.push(AddConst(1));
        let d2 = b.push(Dim {
            size: 4,
            dst_stride: 8,
            src_stride: 8,
            child: leaf,
        });
        let d1 = b.push(Dim {
            size: 3,
            dst_stride: 32,
            src_stride: 32,
            child: d2,
        });
        b.push(Dim {
            size: 2,
            dst_stride: 96,
            src_stride: 96,
            child: d1,
        });
        let k = b.finish().unwrap();
        // SAFETY: 2 x 3 x 4 contiguous i64 arrays.
        unsafe { k.single(dst.as_mut_ptr().cast(), &[src.as_ptr().cast()]) }.unwrap();
    }
    assert_eq!(allocs() - before, 0);
    assert_eq!(dst[23], 24);
}

/// Counts its own drops.
struct Tracked {
    drops: Arc<AtomicUsize>,
    _payload: Vec<u8>,
    child: Option<Child>,
}

impl Drop for Tracked {
    fn drop(&mut self) {
        self.drops.fetch_add(1, Ordering::SeqCst);
    }
}

impl KernelData for Tracked {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        match self.child {
            // SAFETY: forwarded.
            Some(c) => unsafe { ctx.child(c).single(dst, src) },
            None => Ok(()),
        }
    }
    fn describe(&self) -> String {
        "tracked".into()
    }
}

enum Fail {
    Error,
    Panic,
}

/// Builds a chain of `depth` records (each owning heap memory), failing
/// before step `fail_at` if given.
fn build_chain(
    depth: usize,
    fail_at: Option<(usize, Fail)>,
    drops: &Arc<AtomicUsize>,
) -> Result<(), KernelError> {
    let mut b = KernelBuilder::new();
    let mut child = None;
    for step in 0..depth {
        match &fail_at {
            Some((at, Fail::Error)) if *at == step => return Err(KernelError::message("injected")),
            Some((at, Fail::Panic)) if *at == step => panic!("injected panic"),
            _ => {}
        }
        // A big payload forces the buffer to spill part-way through.
        child = Some(b.push(Tracked {
            drops: drops.clone(),
            _payload: vec![step as u8; 100],
            child,
        }));
    }
    let k = b.finish()?;
    // SAFETY: Tracked kernels touch no memory.
    unsafe { k.single(std::ptr::null_mut(), &[]) }
}

#[test]
fn failure_at_any_step_leaks_nothing_and_drops_each_record_once() {
    let depth = 40;
    // A silent hook, and one panic up front, so that the panic machinery's
    // own lazily allocated state is not counted as a leak.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let _ = catch_unwind(|| panic!("warm-up"));
    let mut failures = Vec::new();
    for at in 0..=depth {
        for fail in [Fail::Error, Fail::Panic] {
            let drops = Arc::new(AtomicUsize::new(0));
            let live_before = live();
            let injected = (at < depth).then_some((at, fail));
            let expected_records = injected.as_ref().map_or(depth, |(at, _)| *at);
            let result = catch_unwind(AssertUnwindSafe(|| build_chain(depth, injected, &drops)));
            let outcome = match &result {
                Ok(Ok(())) => "ok",
                Ok(Err(e)) if e.to_string() == "injected" => "error",
                Ok(Err(_)) => "wrong error",
                Err(_) => "panic",
            };
            drop(result);
            let dropped = drops.load(Ordering::SeqCst);
            let leaked = live() - live_before;
            if dropped != expected_records || leaked != 0 {
                failures.push(format!("fail at {at}: {outcome}, dropped {dropped} of {expected_records}, leaked {leaked} bytes"));
            }
        }
    }
    std::panic::set_hook(hook);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_spilled_buffer_keeps_working() {
    let mut b = KernelBuilder::new();
    let mut child = b.push(AddConst(0));
    for i in 0..100 {
        child = b.push(Dim {
            size: 1,
            dst_stride: 0,
            src_stride: 0,
            child,
        });
        if i == 99 {
            assert!(b.is_spilled());
        }
    }
    let k = b.finish().unwrap();
    assert!(k.is_spilled());
    let (src, mut dst) = (7i64, 0i64);
    // SAFETY: scalars, broadcast with stride 0 at every level.
    unsafe {
        k.single(
            (&mut dst as *mut i64).cast(),
            &[(&src as *const i64).cast()],
        )
    }
    .unwrap();
    assert_eq!(dst, 7);
}

#[test]
fn one_kernel_runs_on_several_threads() {
    let mut b = KernelBuilder::new();
    let leaf = b.push(AddConst(1));
    b.push(Dim {
        size: 1000,
        dst_stride: 8,
        src_stride: 8,
        child: leaf,
    });
    let k = b.finish().unwrap();
    let src: Vec<i64> = (0..2000).collect();
    let mut dst = vec![0i64; 2000];
    let (lo, hi) = dst.split_at_mut(1000);
    let (k, src) = (&k, &src);
    std::thread::scope(|s| {
        for (half, start) in [(lo, 0usize), (hi, 1000)] {
            s.spawn(move || {
                // SAFETY: each thread writes its own 1000-element half.
                unsafe { k.single(half.as_mut_ptr().cast(), &[src[start..].as_ptr().cast()]) }
                    .unwrap();
            });
        }
    });
    assert!(dst.iter().enumerate().all(|(i, v)| *v == i as i64 + 1));
}

#[test]
fn an_empty_builder_does_not_finish() {
    assert!(KernelBuilder::new().finish().is_err());
}

#[test]
fn errors_carry_the_index_path() {
    struct FailOn(i64);
    impl KernelData for FailOn {
        unsafe fn single(
            &self,
            _: &KernelCtx<'_>,
            _: *mut u8,
            src: &[*const u8],
        ) -> Result<(), KernelError> {
            // SAFETY: the test passes i64s.
            let v = unsafe { (src[0] as *const i64).read_unaligned() };
            if v == self.0 {
                Err(KernelError::message(format!("bad value {v}")))
            } else {
                Ok(())
            }
        }
        fn describe(&self) -> String {
            "fail".into()
        }
    }
    let mut b = KernelBuilder::new();
    let leaf = b.push(FailOn(5));
    let inner = b.push(Dim {
        size: 3,
        dst_stride: 8,
        src_stride: 8,
        child: leaf,
    });
    b.push(Dim {
        size: 2,
        dst_stride: 24,
        src_stride: 24,
        child: inner,
    });
    let k = b.finish().unwrap();
    let src: Vec<i64> = (0..6).collect();
    let mut dst = vec![0i64; 6];
    // SAFETY: 2 x 3 i64 arrays.
    let err = unsafe { k.single(dst.as_mut_ptr().cast(), &[src.as_ptr().cast()]) }.unwrap_err();
    assert_eq!(err.to_string(), "bad value 5, at index [1, 2]");
}

#[test]
fn describe_does_not_follow_a_child_from_another_builder() {
    // `foreign` is a record start in `a` but falls inside the first record of `c`.
    let mut a = KernelBuilder::new();
    a.push(AddConst(1));
    let foreign = a.push(Tracked {
        drops: Arc::new(AtomicUsize::new(0)),
        _payload: Vec::new(),
        child: None,
    });
    let mut b = KernelBuilder::new();
    let leaf = b.push(AddConst(2));
    b.push(Dim {
        size: 1,
        dst_stride: 0,
        src_stride: 0,
        child: leaf,
    });
    let k = b.finish().unwrap();
    assert_eq!(k.describe(), "dim size=1 strides=(0, 0)\n  add 2\n");
    let mut c = KernelBuilder::new();
    c.push(Tracked {
        drops: Arc::new(AtomicUsize::new(0)),
        _payload: vec![0; 4],
        child: None,
    });
    c.push(Dim {
        size: 1,
        dst_stride: 0,
        src_stride: 0,
        child: foreign,
    });
    let k = c.finish().unwrap();
    assert!(
        k.describe().contains("is not a record of this kernel"),
        "{}",
        k.describe()
    );
}
