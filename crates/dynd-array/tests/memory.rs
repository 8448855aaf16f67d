//! Large blocks sit on huge pages where the system has them.

use dynd_array::memory::{MemoryBlock, HUGE_PAGE, HUGE_PAGE_MIN};
use dynd_array::Array;

/// The `/proc/self/smaps` fields of the mapping holding `addr`.
fn smaps_entry(addr: usize) -> Option<String> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").ok()?;
    let mut lines = smaps.lines().peekable();
    while let Some(header) = lines.next() {
        let (lo, hi) = header.split_whitespace().next()?.split_once('-')?;
        let (lo, hi) = (
            usize::from_str_radix(lo, 16).ok()?,
            usize::from_str_radix(hi, 16).ok()?,
        );
        let mut fields = String::new();
        // Field lines ("Size:   8 kB") up to the next mapping's header.
        while let Some(line) = lines.next_if(|l| {
            l.split_whitespace()
                .next()
                .is_some_and(|t| t.ends_with(':'))
        }) {
            fields.push_str(line);
            fields.push('\n');
        }
        if lo <= addr && addr < hi {
            return Some(fields);
        }
    }
    None
}

#[test]
fn large_blocks_are_aligned_to_huge_pages_and_advised_for_them() {
    let len = HUGE_PAGE_MIN + 24;
    let block = MemoryBlock::zeroed(len).unwrap();
    let addr = block.as_ptr() as usize;
    assert_eq!(addr % HUGE_PAGE, 0, "a large block starts on a huge page");
    assert!(block.bytes().iter().all(|&b| b == 0), "and is zeroed");

    // A copied slice is in such a block too, holding the values.
    let xs: Vec<f64> = (0..HUGE_PAGE_MIN / 8).map(|i| i as f64).collect();
    let a = Array::from_slice(&xs);
    assert_eq!(a.data_block().as_ptr() as usize % HUGE_PAGE, 0);
    assert_eq!(a.to_vec::<f64>().unwrap(), xs);

    // Where the kernel offers huge pages on advice, the block's mapping
    // is eligible for them (not checked under valgrind, whose allocator
    // places blocks in mappings of its own).
    let thp = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled");
    let valgrind = std::env::var("LD_PRELOAD").is_ok_and(|p| p.contains("vgpreload"));
    if cfg!(target_os = "linux") && !valgrind && thp.is_ok_and(|t| !t.contains("[never]")) {
        let entry = smaps_entry(addr).expect("the block's mapping is listed");
        let eligible = entry
            .lines()
            .any(|l| l.split_whitespace().eq(["THPeligible:", "1"]));
        assert!(
            eligible,
            "the block's mapping is not eligible for huge pages:\n{entry}"
        );
    }
    // Small blocks keep their usual alignment.
    let small = MemoryBlock::zeroed(HUGE_PAGE_MIN / 2).unwrap();
    assert_eq!(small.as_ptr() as usize % 64, 0);
}

/// Sizes of every kind of block: empty, inline, small (16-byte aligned),
/// mid-size (kept on the thread), large (kept for the process) and huge
/// (huge-page aligned).
const SIZES: [usize; 7] = [0, 100, 1000, 10_000, 60_000, 200_000, HUGE_PAGE_MIN + 8];

/// Fills `len` bytes from `p` with a pattern of `seed`.
fn fill(p: *mut u8, len: usize, seed: u8) {
    for i in 0..len {
        // SAFETY: the caller hands over `len` writable bytes from `p`.
        unsafe { p.add(i).write(seed.wrapping_add((i % 251) as u8)) };
    }
}

fn holds_pattern(block: &MemoryBlock, len: usize, seed: u8) -> bool {
    block.len() == len
        && (block.bytes().iter().enumerate()).all(|(i, &b)| b == seed.wrapping_add((i % 251) as u8))
}

#[test]
fn written_blocks_hold_what_was_written_fresh_or_kept() {
    // Twice over each size: the second round may take back the first's
    // blocks (kept on the thread or for the process), dropped in between.
    // Under valgrind, a byte left unwritten in a fresh allocation would be
    // reported where the check reads it.
    for round in 0..2u8 {
        for (k, &len) in SIZES.iter().enumerate() {
            let seed = round * 16 + k as u8;
            // SAFETY: `fill` writes each of the `len` bytes.
            let block = unsafe { MemoryBlock::written_by(len, |p| fill(p, len, seed)) }.unwrap();
            assert!(
                holds_pattern(&block, len, seed),
                "{len} bytes, round {round}"
            );
            if len >= 1000 {
                let align = if len >= HUGE_PAGE_MIN { HUGE_PAGE } else { 16 };
                assert_eq!(block.as_ptr() as usize % align, 0, "{len} bytes aligned");
            }
            // Back as an array's block goes (kept on the thread while
            // there is room, or for the process if large).
            MemoryBlock::recycle(block);
        }
    }
}

#[test]
fn a_writer_that_panics_leaves_no_block_behind() {
    for &len in &SIZES[1..] {
        let half = len / 2;
        let outcome = std::panic::catch_unwind(|| {
            // SAFETY: the closure writes half the bytes and then panics,
            // which the contract allows: nothing reads the memory.
            unsafe {
                MemoryBlock::written_by(len, |p| {
                    fill(p, half, 7);
                    panic!("a writer's failure");
                })
            }
        });
        assert!(
            outcome.is_err(),
            "{len} bytes: the panic reaches the caller"
        );
        // The memory went back (valgrind reports it otherwise), and the
        // next block of the size is whole.
        // SAFETY: `fill` writes each of the `len` bytes.
        let block = unsafe { MemoryBlock::written_by(len, |p| fill(p, len, 3)) }.unwrap();
        assert!(holds_pattern(&block, len, 3), "{len} bytes after a panic");
    }
}
