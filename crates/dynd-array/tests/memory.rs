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
