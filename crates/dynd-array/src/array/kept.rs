//! The parts of small arrays dropped on this thread, kept whole for the
//! next fresh array of the same layout.
//!
//! A small call's result is an array of the same arrmeta and block size
//! every time. Dropping one used to release its arrmeta (an atomic
//! decrement) and hand its block to this thread's spares; making the next
//! took them again (an atomic increment and a compare-and-swap on the
//! block). Kept here, the two move out of the dropped array and into the
//! next one with no atomic operation. (The type is released and taken as
//! before: kept too, it made each move of the parts a copy through memory
//! that cost more than its two atomic operations.) A fresh array of
//! another layout still takes a kept block, as it would a spare one.

use std::cell::RefCell;
use std::sync::Arc;

use crate::arrmeta::Arrmeta;
use crate::memory::MemoryBlock;

/// How many dropped arrays' parts each thread keeps.
const KEPT_MAX: usize = 4;

/// A dropped array's parts: its arrmeta, and its block, which was its
/// memory's last reference and small ([`MemoryBlock::is_small_and_unique`]),
/// the array at its offset 0.
pub(super) struct Kept {
    pub(super) meta: Arc<Arrmeta>,
    pub(super) data: Arc<MemoryBlock>,
}

/// The kept parts, in a ring: a new one replaces the oldest.
struct Ring {
    slots: [Option<Kept>; KEPT_MAX],
    next: usize,
}

impl Ring {
    /// The first kept parts, newest first, that `want` takes, taken out.
    fn take(&mut self, want: impl Fn(&Kept) -> bool) -> Option<Kept> {
        let next = self.next;
        (1..=KEPT_MAX)
            .map(|back| (next + KEPT_MAX - back) % KEPT_MAX)
            .find(|&i| self.slots[i].as_ref().is_some_and(&want))
            .and_then(|i| self.slots[i].take())
    }
}

thread_local! {
    static KEPT: RefCell<Ring> = const {
        RefCell::new(Ring { slots: [None, None, None, None], next: 0 })
    };
}

/// Keeps a dropped array's arrmeta and block on this thread. The parts
/// they replace, if the ring is full, are released as any array's (the
/// block to this thread's spares).
#[inline(never)]
pub(super) fn keep(meta: Arc<Arrmeta>, data: Arc<MemoryBlock>) {
    let mut back = None;
    let _ = KEPT.try_with(|ring| {
        if let Ok(mut ring) = ring.try_borrow_mut() {
            let next = ring.next;
            back = ring.slots[next].replace(Kept { meta, data });
            ring.next = (next + 1) % KEPT_MAX;
        }
    });
    // Outside the borrow: the block's release reaches other thread-locals.
    // (Parts the ring did not take are dropped with the closure.)
    if let Some(Kept { data, .. }) = back {
        MemoryBlock::recycle(data);
    }
}

/// The newest kept parts whose arrmeta is `meta`, or else the newest
/// whose block serves `len` bytes, taken out.
#[inline]
pub(super) fn take(meta: &Arc<Arrmeta>, len: usize) -> Option<Kept> {
    KEPT.try_with(|ring| {
        let mut ring = ring.try_borrow_mut().ok()?;
        ring.take(|k| Arc::ptr_eq(&k.meta, meta))
            .or_else(|| ring.take(|k| MemoryBlock::serves_small(&k.data, len)))
    })
    .ok()
    .flatten()
}
