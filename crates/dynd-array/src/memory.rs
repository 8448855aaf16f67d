//! Memory blocks: reference-counted, aligned bytes that arrays point into.
//!
//! A block is shared by every array and view made from it (`Arc`). Its
//! bytes are only written while it is uniquely referenced: through
//! `&mut MemoryBlock` (`Arc::get_mut`), or through the address
//! `MemoryBlock::unique_ptr` gives the holder of its only reference (the
//! counts read with plain loads and an acquire fence: that holder has it
//! mutably, so no other reference can appear). So a shared block is
//! immutable and reading it from many threads is sound. Arrays whose
//! blocks are shared copy on write.
//!
//! Writing raw bytes is crate-private, or `unsafe` (`MemoryBlock::written_by`,
//! whose caller writes every byte of a fresh block before it exists, so
//! that a result need not be cleared first): only kernels write, and they
//! write valid values of the element types (a `bool` is 0 or 1), so typed
//! reads of a block are always sound.
//!
//! ```
//! use dynd::nd::MemoryBlock;
//!
//! let block = MemoryBlock::from_vec(vec![1.5f64, 2.5]);
//! assert_eq!(block.len(), 16);
//! let shared = block.clone(); // no copy: both see the same bytes
//! assert_eq!(shared.as_ptr(), block.as_ptr());
//! assert_eq!(shared.bytes()[..8], 1.5f64.to_ne_bytes());
//! ```

use std::alloc::{self, Layout};
use std::any::Any;
use std::cell::UnsafeCell;
use std::fmt;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;

use crate::element::Element;
use crate::error::Error;

/// Alignment of blocks this module allocates from [`SMALL_BLOCK`] bytes
/// up: a cache line, which also suits every SIMD width the compiler may use.
/// Smaller blocks are 16-byte aligned (every element type's alignment).
pub const BLOCK_ALIGN: usize = 64;

/// Blocks smaller than this are allocated with 16-byte alignment.
pub const SMALL_BLOCK: usize = 4096;

/// Blocks of at least this many bytes (the size from which the system
/// allocator maps fresh pages) are kept for reuse when dropped.
///
/// A fresh large allocation is memory the kernel maps page by page on
/// first write: for an 80 MB result that page-faulting costs several times
/// the arithmetic. Keeping recently freed large blocks (up to
/// [`REUSE_MAX_BYTES`] in all) lets the next result of a similar size
/// reuse pages that are already mapped, as a loop computing a new array
/// per iteration does. [`release_cached`] frees them.
pub const REUSE_MIN: usize = 128 << 10;

/// The most bytes kept in freed blocks for reuse.
pub const REUSE_MAX_BYTES: usize = 512 << 20;

/// Blocks of at least this many bytes are aligned to [`HUGE_PAGE`] and,
/// on Linux, advised to the kernel for transparent huge pages
/// (`madvise(MADV_HUGEPAGE)`, as NumPy does from the same size), before
/// any of their pages is touched.
///
/// A loop streaming through memory larger than the caches runs at the
/// speed the processor's prefetchers fetch it, and those stop at every
/// page boundary: on 4 KiB pages a `sum` of 80 MB runs about 1.35× slower
/// than on 2 MiB pages (and every page costs a TLB miss and a fault). On
/// systems whose setting is `madvise` (the common default) only advised
/// memory gets huge pages; where the kernel has none the advice is a
/// no-op. Arrays over memory made elsewhere ([`MemoryBlock::from_vec`])
/// keep the pages they have.
pub const HUGE_PAGE_MIN: usize = 4 << 20;

/// The size of a huge page on x86-64 and most aarch64 kernels, and the
/// alignment of blocks from [`HUGE_PAGE_MIN`] bytes up.
pub const HUGE_PAGE: usize = 2 << 20;

/// Freed large allocations kept for reuse, most recent last.
struct Cache {
    blocks: Vec<Freed>,
    bytes: usize,
}

/// A freed allocation: its address and layout.
struct Freed(NonNull<u8>, Layout);

// SAFETY: a freed allocation is owned by the cache alone; moving it to
// another thread moves that ownership.
unsafe impl Send for Freed {}

static CACHE: std::sync::Mutex<Cache> = std::sync::Mutex::new(Cache {
    blocks: Vec::new(),
    bytes: 0,
});

fn cache() -> std::sync::MutexGuard<'static, Cache> {
    CACHE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Asks the kernel to back the `len` bytes from `ptr` (one of this
/// module's allocations, aligned to [`HUGE_PAGE`]) with transparent huge
/// pages. Only a hint: a kernel without them, or an error, leaves small
/// pages, which are as correct.
#[cfg(target_os = "linux")]
fn advise_huge_pages(ptr: *mut u8, len: usize) {
    // SAFETY: `madvise` reads no memory; the range is one allocation this
    // module owns, page-aligned (`HUGE_PAGE` alignment). `MADV_HUGEPAGE`
    // changes how pages are backed, never what they hold, so it cannot
    // affect any value even where the kernel rounds the length up into
    // the allocator's own memory.
    let _ = unsafe { libc::madvise(ptr.cast(), len, libc::MADV_HUGEPAGE) };
}

/// Huge pages are only advised on Linux.
#[cfg(not(target_os = "linux"))]
fn advise_huge_pages(_: *mut u8, _: usize) {}

/// A cached allocation with `layout`'s alignment and a size from
/// `layout.size()` to a quarter more, if one is kept.
fn take_cached(layout: Layout) -> Option<Freed> {
    let mut c = cache();
    let i = c.blocks.iter().rposition(|Freed(_, l)| fits(*l, layout))?;
    let freed = c.blocks.swap_remove(i);
    c.bytes -= freed.1.size();
    Some(freed)
}

/// Small blocks kept on each thread for the next small array.
const SPARE_MAX: usize = 16;

/// Mid-size blocks (allocated, below [`REUSE_MIN`]) kept on each thread.
const SPARE_MID_MAX: usize = 4;

thread_local! {
    /// Small (inline) blocks whose last array was dropped on this thread,
    /// each referenced only from here: a small result reuses one instead
    /// of allocating.
    static SPARE: std::cell::RefCell<Vec<Arc<MemoryBlock>>> = const { std::cell::RefCell::new(Vec::new()) };

    /// Mid-size allocated blocks whose last array was dropped on this
    /// thread: a result of about the same size reuses one instead of
    /// allocating afresh, which for these sizes means clearing every byte
    /// (the allocator's zeroed memory), the larger part of a call on a
    /// thousand elements.
    static SPARE_MID: std::cell::RefCell<Vec<Arc<MemoryBlock>>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether an allocation of `kept` bytes serves a request for `want`
/// (with the same alignment): as large, and at most a quarter larger.
fn fits(kept: Layout, want: Layout) -> bool {
    kept.align() == want.align()
        && kept.size() >= want.size()
        && kept.size() - want.size() <= want.size() / 4
}

impl MemoryBlock {
    /// Called with an array's block as the array is dropped: if it is the
    /// block's last reference and the block is a small (inline) or
    /// mid-size (allocated, writable, below [`REUSE_MIN`]) one of this
    /// module's, the block is kept on this thread for reuse while there is
    /// room; otherwise it is dropped here (a large block's drop keeps it in
    /// the process's cache).
    #[inline]
    pub fn recycle(block: Arc<MemoryBlock>) {
        let (spares, max) = match block.owner {
            Owner::Inline => (&SPARE, SPARE_MAX),
            Owner::Allocated(layout) if layout.size() < REUSE_MIN && block.writable => {
                (&SPARE_MID, SPARE_MID_MAX)
            }
            _ => return,
        };
        if MemoryBlock::is_unique(&block) {
            let _ = spares.try_with(move |spare| {
                if let Ok(mut spare) = spare.try_borrow_mut() {
                    if spare.len() < max {
                        spare.push(block);
                    }
                }
            });
        }
    }

    /// Whether `block` is a small (inline) block and its memory's last
    /// reference: the kind [`MemoryBlock::reuse_small`] takes back.
    #[inline]
    pub(crate) fn is_small_and_unique(block: &Arc<MemoryBlock>) -> bool {
        matches!(block.owner, Owner::Inline) && MemoryBlock::is_unique(block)
    }

    /// Whether `block` could serve as a small block of `len` bytes.
    #[inline]
    pub(crate) fn serves_small(block: &Arc<MemoryBlock>, len: usize) -> bool {
        matches!(block.owner, Owner::Inline) && len > 0 && len <= INLINE_BYTES
    }

    /// `block`, a small block kept since it was its memory's last
    /// reference (see [`MemoryBlock::is_small_and_unique`]), made a fresh
    /// block of `len` bytes (zeroed with `zero`, otherwise with
    /// unspecified values), if it [serves](MemoryBlock::serves_small) that
    /// length; otherwise it is released as [`MemoryBlock::recycle`] does.
    #[inline]
    pub(crate) fn reuse_small(
        mut block: Arc<MemoryBlock>,
        len: usize,
        zero: bool,
    ) -> Option<Arc<MemoryBlock>> {
        if !MemoryBlock::serves_small(&block, len) {
            MemoryBlock::recycle(block);
            return None;
        }
        if !zero && block.len == len {
            // Nothing to write: no compare-and-swap for `&mut` (a writer
            // checks uniqueness again before it writes).
            return Some(block);
        }
        match Arc::get_mut(&mut block) {
            Some(b) => {
                b.len = len;
                b.utf8 = AtomicU8::new(UTF8_UNKNOWN);
                if zero {
                    *b.inline.get_mut() = [0; INLINE_BYTES / 16];
                }
                Some(block)
            }
            None => None,
        }
    }

    /// Whether `block` is its memory's only reference, with plain loads
    /// (no compare-and-swap): the caller holds that reference, so no other
    /// can appear.
    #[inline]
    fn is_unique(block: &Arc<MemoryBlock>) -> bool {
        let unique = Arc::strong_count(block) == 1 && Arc::weak_count(block) == 0;
        // The counts were read with relaxed loads: this fence orders
        // every access made through a clone dropped on another thread
        // (its release decrement) before the block's reuse here.
        std::sync::atomic::fence(std::sync::atomic::Ordering::Acquire);
        unique
    }

    /// A mid-size block kept on this thread whose allocation [`fits`]
    /// `layout`, now `len` bytes long (zeroed with `zero`).
    fn reuse_mid(layout: Layout, len: usize, zero: bool) -> Option<Arc<MemoryBlock>> {
        let mut block = SPARE_MID
            .try_with(|spare| {
                let mut spare = spare.try_borrow_mut().ok()?;
                let i = spare.iter().rposition(|b| match b.owner {
                    Owner::Allocated(kept) => fits(kept, layout),
                    _ => false,
                })?;
                Some(spare.swap_remove(i))
            })
            .ok()??;
        let b = Arc::get_mut(&mut block)?;
        b.len = len;
        b.utf8 = AtomicU8::new(UTF8_UNKNOWN);
        if zero {
            b.bytes_mut().fill(0);
        }
        Some(block)
    }

    /// The address of the first byte for writing, if `block` is its
    /// memory's only reference and writable (for a fresh array's writes).
    #[inline]
    pub fn unique_ptr(block: &Arc<MemoryBlock>) -> Option<*mut u8> {
        // The caller holds the only reference mutably (through its
        // array), so no reference can appear while the address is used.
        let unique = MemoryBlock::is_unique(block);
        // Writing through `base()` is allowed from a shared reference: the
        // inline bytes are in an `UnsafeCell`, other bytes are behind a raw
        // pointer the block owns.
        (unique && block.writable).then(|| {
            block.utf8.store(UTF8_UNKNOWN, Ordering::Release);
            block.base()
        })
    }
}

/// The number of elements of a shape, or [`Error::Size`] if the product
/// overflows.
pub fn checked_count(shape: impl IntoIterator<Item = usize>) -> Result<usize, Error> {
    let shape: Vec<usize> = shape.into_iter().collect();
    shape
        .iter()
        .try_fold(1usize, |acc, &n| acc.checked_mul(n))
        .ok_or_else(|| Error::Size {
            what: "a shape's element count",
            values: shape.iter().map(|&n| ("dimension", n as i128)).collect(),
        })
}

/// `count` zeroed items of `size` bytes in a `Vec<u8>`, or [`Error::Alloc`]
/// (never an abort).
pub fn try_zeroed(count: usize, size: usize) -> Result<Vec<u8>, Error> {
    let bytes = count
        .checked_mul(size)
        .ok_or_else(|| Error::alloc(count as u128 * size as u128))?;
    let mut v = Vec::new();
    v.try_reserve_exact(bytes)
        .map_err(|_| Error::alloc(bytes as u128))?;
    v.resize(bytes, 0);
    Ok(v)
}

/// Frees every allocation kept for reuse (the large ones kept for the
/// process, the mid-size ones kept on this thread); returns the bytes
/// released.
pub fn release_cached() -> usize {
    let spares = SPARE_MID
        .try_with(|spare| spare.try_borrow_mut().map(|mut s| std::mem::take(&mut *s)))
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    // The spares are their blocks' only references: dropping them frees.
    let mid: usize = spares
        .iter()
        .map(|b| match b.owner {
            Owner::Allocated(layout) => layout.size(),
            _ => 0,
        })
        .sum();
    drop(spares);
    let blocks = std::mem::take(&mut cache().blocks);
    let mut large = 0;
    for Freed(ptr, layout) in blocks {
        large += layout.size();
        // SAFETY: allocated with this layout and owned by the cache alone.
        unsafe { alloc::dealloc(ptr.as_ptr(), layout) };
    }
    cache().bytes -= large;
    mid + large
}

/// Bytes a block holds inside itself, with no allocation of their own.
pub(crate) const INLINE_BYTES: usize = 128;

enum Owner {
    /// Allocated here with this layout (size > 0).
    Allocated(Layout),
    /// Held in the block's `inline` field (at most [`INLINE_BYTES`]).
    Inline,
    /// No allocation (length 0).
    Empty,
    /// Memory owned by another value (a `Vec`, a `'static` slice, ...),
    /// kept alive by the block.
    External(#[allow(dead_code)] Box<dyn Any + Send + Sync>),
}

/// Aligned bytes, owned or borrowed from a value the block keeps alive.
pub struct MemoryBlock {
    /// The first byte, except for `Owner::Inline` (where it is `inline`).
    ptr: NonNull<u8>,
    len: usize,
    owner: Owner,
    writable: bool,
    /// The bytes of a small block, 16-byte aligned: a small array costs one
    /// allocation (the block's), not two. In a cell because kernels write
    /// through the block's address as they do into allocated bytes.
    inline: UnsafeCell<[u128; INLINE_BYTES / 16]>,
    /// Whether the bytes are UTF-8, once checked ([`MemoryBlock::is_utf8`]):
    /// `UTF8_UNKNOWN`, `UTF8_YES` or `UTF8_NO`; every way to write the
    /// bytes resets it.
    utf8: AtomicU8,
}

const UTF8_UNKNOWN: u8 = 0;
const UTF8_YES: u8 = 1;
const UTF8_NO: u8 = 2;

/// Memory for a block about to be written: a block (initialised bytes,
/// its only reference), or a fresh allocation whose bytes are not.
enum Unwritten {
    Ready(Arc<MemoryBlock>),
    Fresh(FreshAlloc),
}

/// A fresh allocation (of `layout.size()` bytes) whose bytes are not yet
/// written: freed if dropped (a writer's panic), a block once written.
struct FreshAlloc {
    ptr: NonNull<u8>,
    layout: Layout,
}

impl FreshAlloc {
    /// The block over the allocation.
    ///
    /// # Safety
    ///
    /// Every one of the allocation's bytes has been written.
    unsafe fn into_block(self) -> Arc<MemoryBlock> {
        let this = std::mem::ManuallyDrop::new(self);
        MemoryBlock::with_owner(
            this.ptr,
            this.layout.size(),
            Owner::Allocated(this.layout),
            true,
        )
    }
}

impl Drop for FreshAlloc {
    fn drop(&mut self) {
        // SAFETY: allocated in `MemoryBlock::unwritten` with this layout,
        // never made a block (`into_block` does not drop it).
        unsafe { alloc::dealloc(self.ptr.as_ptr(), self.layout) };
    }
}

// SAFETY: the block owns its bytes (or a Send + Sync owner of them); shared
// access only reads, and writes need `&mut MemoryBlock` (see the module docs).
unsafe impl Send for MemoryBlock {}
// SAFETY: as above.
unsafe impl Sync for MemoryBlock {}

impl MemoryBlock {
    /// A new block of `len` bytes at `ptr` held as `owner` says.
    fn with_owner(ptr: NonNull<u8>, len: usize, owner: Owner, writable: bool) -> Arc<MemoryBlock> {
        Arc::new(MemoryBlock {
            ptr,
            len,
            owner,
            writable,
            inline: UnsafeCell::new([0; INLINE_BYTES / 16]),
            utf8: AtomicU8::new(UTF8_UNKNOWN),
        })
    }

    /// A block of `len` zero bytes, aligned to [`BLOCK_ALIGN`] (16 bytes
    /// below [`SMALL_BLOCK`]).
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`] if the memory cannot be had (never an abort).
    pub fn zeroed(len: usize) -> Result<Arc<MemoryBlock>, Error> {
        MemoryBlock::allocate(len, true)
    }

    /// A block of `len` bytes whose values are unspecified (zero, or left
    /// by an earlier block), for a caller that writes every byte before
    /// the block is read: the bytes are initialised, so this is safe, but
    /// what a byte holds until then is not meaningful.
    pub fn for_overwrite(len: usize) -> Result<Arc<MemoryBlock>, Error> {
        MemoryBlock::allocate(len, false)
    }

    /// A block of `len` bytes, each written by `write` before the block
    /// exists: fresh memory from the allocator is not cleared first (a
    /// result as large as its inputs then costs one pass over memory, not
    /// two). `write` is given the address of the first byte, aligned as
    /// [`MemoryBlock::for_overwrite`]'s blocks; memory kept for reuse may
    /// be handed to it too.
    ///
    /// ```
    /// use dynd::nd::MemoryBlock;
    ///
    /// // SAFETY: the closure writes each of the 80,000 bytes it is given.
    /// let block = unsafe {
    ///     MemoryBlock::written_by(80_000, |p| {
    ///         for i in 0..10_000 {
    ///             p.cast::<f64>().add(i).write_unaligned(i as f64);
    ///         }
    ///     })
    /// }?;
    /// assert_eq!(block.bytes()[8..16], 1.0f64.to_ne_bytes());
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`] if the memory cannot be had (never an abort).
    ///
    /// # Safety
    ///
    /// `write` writes every one of the `len` bytes from the address it is
    /// given (a fresh allocation holds uninitialised memory, which no
    /// block may hold) and nothing past them, and reads none of them
    /// before writing it. If it panics, the memory is freed (or, if it was
    /// a kept block, dropped as a block) without being read.
    pub unsafe fn written_by(
        len: usize,
        write: impl FnOnce(*mut u8),
    ) -> Result<Arc<MemoryBlock>, Error> {
        match MemoryBlock::unwritten(len, false)? {
            Unwritten::Ready(block) => {
                // A block just made or taken back: its only reference.
                match MemoryBlock::unique_ptr(&block) {
                    Some(p) => write(p),
                    None => unreachable!("a fresh block is unique and writable"),
                }
                Ok(block)
            }
            Unwritten::Fresh(fresh) => {
                write(fresh.ptr.as_ptr());
                // SAFETY: `write` wrote all `len` bytes (the caller's
                // contract).
                Ok(unsafe { fresh.into_block() })
            }
        }
    }

    fn allocate(len: usize, zero: bool) -> Result<Arc<MemoryBlock>, Error> {
        match MemoryBlock::unwritten(len, zero)? {
            Unwritten::Ready(block) => Ok(block),
            Unwritten::Fresh(fresh) => {
                // SAFETY: the allocation holds `len` writable bytes. For a
                // huge block, zeroed after the advice, so that the first
                // touch of each page already takes a huge one.
                unsafe { std::ptr::write_bytes(fresh.ptr.as_ptr(), 0, len) };
                // SAFETY: every byte was just written.
                Ok(unsafe { fresh.into_block() })
            }
        }
    }

    /// Memory for a block of `len` bytes: a block made or kept for reuse
    /// (zeroed with `zero`, otherwise holding earlier values), or a fresh
    /// allocation not yet written.
    fn unwritten(len: usize, zero: bool) -> Result<Unwritten, Error> {
        if len == 0 {
            return Ok(Unwritten::Ready(MemoryBlock::with_owner(
                NonNull::<u128>::dangling().cast(),
                0,
                Owner::Empty,
                true,
            )));
        }
        if len <= INLINE_BYTES {
            if let Some(mut block) = SPARE.with(|spare| spare.borrow_mut().pop()) {
                if let Some(b) = Arc::get_mut(&mut block) {
                    b.len = len;
                    b.utf8 = AtomicU8::new(UTF8_UNKNOWN);
                    if zero {
                        *b.inline.get_mut() = [0; INLINE_BYTES / 16];
                    }
                    return Ok(Unwritten::Ready(block));
                }
            }
            return Ok(Unwritten::Ready(MemoryBlock::with_owner(
                NonNull::dangling(),
                len,
                Owner::Inline,
                true,
            )));
        }
        // Small blocks take the allocator's fast path; 16 bytes is every
        // element type's alignment.
        let align = match len {
            ..SMALL_BLOCK => 16,
            HUGE_PAGE_MIN.. => HUGE_PAGE,
            _ => BLOCK_ALIGN,
        };
        let layout = Layout::from_size_align(len, align).map_err(|_| Error::alloc(len as u128))?;
        if len < REUSE_MIN {
            if let Some(block) = MemoryBlock::reuse_mid(layout, len, zero) {
                return Ok(Unwritten::Ready(block));
            }
        } else if let Some(Freed(ptr, kept)) = take_cached(layout) {
            if zero {
                // SAFETY: the allocation holds `kept.size() >= len` bytes.
                unsafe { std::ptr::write_bytes(ptr.as_ptr(), 0, len) };
            }
            return Ok(Unwritten::Ready(MemoryBlock::with_owner(
                ptr,
                len,
                Owner::Allocated(kept),
                true,
            )));
        }
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc::alloc(layout) };
        let Some(ptr) = NonNull::new(raw) else {
            // Freed blocks kept for reuse may be what is missing: give them
            // back and try once more before reporting the failure.
            if release_cached() > 0 {
                return MemoryBlock::unwritten(len, zero);
            }
            return Err(Error::alloc(len as u128));
        };
        if len >= HUGE_PAGE_MIN {
            // Before any page is touched.
            advise_huge_pages(raw, len);
        }
        Ok(Unwritten::Fresh(FreshAlloc { ptr, layout }))
    }

    /// A block holding a copy of `bytes`, or [`Error::Alloc`].
    pub fn try_from_bytes(bytes: &[u8]) -> Result<Arc<MemoryBlock>, Error> {
        let mut block = MemoryBlock::for_overwrite(bytes.len())?;
        if let Some(b) = Arc::get_mut(&mut block) {
            b.bytes_mut().copy_from_slice(bytes);
        }
        Ok(block)
    }

    /// A block holding a copy of `bytes`. Like a `Vec`, this aborts if the
    /// memory cannot be had; the library's own paths use the fallible form.
    pub fn from_bytes(bytes: &[u8]) -> Arc<MemoryBlock> {
        match MemoryBlock::try_from_bytes(bytes) {
            Ok(block) => block,
            Err(_) => alloc::handle_alloc_error(
                Layout::from_size_align(bytes.len(), BLOCK_ALIGN)
                    .unwrap_or_else(|_| Layout::new::<u8>()),
            ),
        }
    }

    /// A block over the elements of `vec`, without copying them. The block
    /// is aligned as `T` is.
    pub fn from_vec<T: Element>(mut vec: Vec<T>) -> Arc<MemoryBlock> {
        let len = std::mem::size_of_val(vec.as_slice());
        let ptr = vec.as_mut_ptr() as *mut u8;
        MemoryBlock::external(ptr, len, Box::new(vec), true)
    }

    /// A block over `len` bytes at `ptr` that `owner` keeps alive (and
    /// does not move when the block moves it).
    fn external(
        ptr: *mut u8,
        len: usize,
        owner: Box<dyn Any + Send + Sync>,
        writable: bool,
    ) -> Arc<MemoryBlock> {
        MemoryBlock::with_owner(
            NonNull::new(ptr).unwrap_or(NonNull::dangling()),
            len,
            Owner::External(owner),
            writable,
        )
    }

    /// A block over `len` bytes at `ptr` that belong to another value
    /// (a NumPy array, a foreign Arrow buffer, a memory map): `owner` is
    /// kept by the block and dropped with it, and the bytes are never
    /// freed by the block itself.
    ///
    /// # Safety
    ///
    /// The `len` bytes at `ptr` (any `ptr` if `len` is 0) are readable —
    /// and writable if `writable` — for as long as `owner` lives, they do
    /// not move when `owner` does, and nothing writes them while the block
    /// may be read except through the block. (Arrays over the block are
    /// still made by [`Array::try_from_parts`](crate::Array::try_from_parts),
    /// which checks every extent and alignment against `len`.)
    pub unsafe fn from_external(
        ptr: *const u8,
        len: usize,
        owner: Box<dyn Any + Send + Sync>,
        writable: bool,
    ) -> Arc<MemoryBlock> {
        MemoryBlock::external(ptr as *mut u8, len, owner, writable)
    }

    /// A block over the values of `vec`, without copying them, for a
    /// `#[derive(Record)]` struct laid out as its dynd data type.
    ///
    /// # Safety
    ///
    /// `T` is plain data: no padding bytes (every byte of the values is
    /// initialised), no pointers or drop glue, and every byte pattern an
    /// array of its dynd data type may hold is a valid `T`.
    pub(crate) unsafe fn from_plain_vec<T: Send + Sync + 'static>(
        mut vec: Vec<T>,
    ) -> Arc<MemoryBlock> {
        let len = std::mem::size_of_val(vec.as_slice());
        let ptr = vec.as_mut_ptr() as *mut u8;
        MemoryBlock::external(ptr, len, Box::new(vec), true)
    }

    /// The `Vec<T>` a block made by [`MemoryBlock::from_vec`] holds, if
    /// `block` is its only reference; the block back otherwise.
    pub fn into_vec<T: Element>(block: Arc<MemoryBlock>) -> Result<Vec<T>, Arc<MemoryBlock>> {
        let mut b = Arc::try_unwrap(block)?;
        match std::mem::replace(&mut b.owner, Owner::Empty) {
            Owner::External(owner) => match owner.downcast::<Vec<T>>() {
                // The block, now owning nothing, drops without freeing.
                Ok(v) => Ok(*v),
                Err(owner) => {
                    b.owner = Owner::External(owner);
                    Err(Arc::new(b))
                }
            },
            other => {
                b.owner = other;
                Err(Arc::new(b))
            }
        }
    }

    /// A read-only block over an Arrow buffer's bytes, without copying
    /// them; the block keeps the buffer (one reference to its memory).
    #[cfg(feature = "arrow")]
    pub fn from_arrow_buffer(buffer: arrow_buffer::Buffer) -> Arc<MemoryBlock> {
        let (ptr, len) = (buffer.as_ptr() as *mut u8, buffer.len());
        // The bytes live on the heap behind the buffer's own reference
        // count: moving the buffer into the block does not move them.
        MemoryBlock::external(ptr, len, Box::new(buffer), false)
    }

    /// A read-only block over a `'static` slice, without copying it.
    pub fn from_static<T: Element>(slice: &'static [T]) -> Arc<MemoryBlock> {
        let len = std::mem::size_of_val(slice);
        MemoryBlock::external(slice.as_ptr() as *mut u8, len, Box::new(()), false)
    }

    /// The number of bytes.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the block has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the bytes may be written (false for borrowed `'static` data).
    #[inline]
    pub fn is_writable(&self) -> bool {
        self.writable
    }

    /// The address of the first byte.
    #[inline]
    pub fn as_ptr(&self) -> *const u8 {
        self.base()
    }

    fn base(&self) -> *mut u8 {
        match self.owner {
            Owner::Inline => self.inline.get().cast(),
            _ => self.ptr.as_ptr(),
        }
    }

    /// The address of the first byte, for writing.
    ///
    /// # Panics
    ///
    /// If the block is not writable (callers check [`Self::is_writable`]).
    #[inline]
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        assert!(self.writable, "write to a read-only memory block");
        *self.utf8.get_mut() = UTF8_UNKNOWN;
        self.base()
    }

    /// Whether the bytes are UTF-8: checked on the first call and kept
    /// (until the bytes are written again); known at once for a block
    /// made from Rust text ([`MemoryBlock::from_string`]). Text kernels
    /// ask once per call, then check only each string's ends.
    pub fn is_utf8(&self) -> bool {
        match self.utf8.load(Ordering::Acquire) {
            UTF8_YES => true,
            UTF8_NO => false,
            _ => {
                let yes = std::str::from_utf8(self.bytes()).is_ok();
                self.utf8
                    .store(if yes { UTF8_YES } else { UTF8_NO }, Ordering::Release);
                yes
            }
        }
    }

    /// A block holding `s`'s bytes (without copying them), known to be
    /// UTF-8.
    pub fn from_string(s: String) -> Arc<MemoryBlock> {
        let block = MemoryBlock::from_vec(s.into_bytes());
        block.utf8.store(UTF8_YES, Ordering::Release);
        block
    }

    /// A block holding `bytes` (without copying them), marked UTF-8
    /// without a check: for text written from `&str`s.
    ///
    /// # Safety
    ///
    /// `bytes` are UTF-8: the text kernels rely on the mark to read the
    /// block's strings as `&str` after checking only their ends.
    pub unsafe fn from_utf8_vec_unchecked(bytes: Vec<u8>) -> Arc<MemoryBlock> {
        let block = MemoryBlock::from_vec(bytes);
        block.utf8.store(UTF8_YES, Ordering::Release);
        block
    }

    /// The bytes.
    #[inline]
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `base()` is valid for `len` initialised bytes (zeroed,
        // inline, copied, written by an earlier block that reused the
        // allocation, or the owner's initialised elements) for as long as
        // `self` lives, and nothing writes them while `&self` is held.
        unsafe { std::slice::from_raw_parts(self.base(), self.len) }
    }

    /// The bytes, for writing.
    ///
    /// # Panics
    ///
    /// If the block is not writable.
    #[inline]
    pub fn bytes_mut(&mut self) -> &mut [u8] {
        let len = self.len;
        // SAFETY: as in `bytes`, and `&mut self` is exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.as_mut_ptr(), len) }
    }
}

impl Drop for MemoryBlock {
    fn drop(&mut self) {
        if let Owner::Allocated(layout) = self.owner {
            if layout.size() >= REUSE_MIN {
                let mut c = cache();
                while c.bytes + layout.size() > REUSE_MAX_BYTES && !c.blocks.is_empty() {
                    // Make room by freeing the oldest.
                    let Freed(ptr, old) = c.blocks.remove(0);
                    c.bytes -= old.size();
                    // SAFETY: allocated with this layout, owned by the cache alone.
                    unsafe { alloc::dealloc(ptr.as_ptr(), old) };
                }
                if c.bytes + layout.size() <= REUSE_MAX_BYTES {
                    c.bytes += layout.size();
                    c.blocks.push(Freed(self.ptr, layout));
                    return;
                }
            }
            // SAFETY: allocated in `allocate` with this layout, freed once
            // (a block kept for reuse returned above and is freed later).
            unsafe { alloc::dealloc(self.ptr.as_ptr(), layout) };
        }
    }
}

impl fmt::Debug for MemoryBlock {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MemoryBlock")
            .field("len", &self.len)
            .field("writable", &self.writable)
            .finish()
    }
}
