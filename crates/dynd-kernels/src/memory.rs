//! Memory blocks: reference-counted, aligned bytes that arrays point into.
//!
//! A block is shared by every array and view made from it (`Arc`). Its
//! bytes are only written through `&mut MemoryBlock`, which a shared block
//! hands out only while it is uniquely referenced (`Arc::get_mut`), so a
//! shared block is immutable and reading it from many threads is sound.
//! Arrays whose blocks are shared copy on write.
//!
//! Writing raw bytes is crate-private: only kernels write, and they write
//! valid values of the element types (a `bool` is 0 or 1), so typed reads
//! of a block are always sound.
//!
//! ```
//! use dynd_kernels::memory::MemoryBlock;
//!
//! let block = MemoryBlock::from_vec(vec![1.5f64, 2.5]);
//! assert_eq!(block.len(), 16);
//! let shared = block.clone(); // no copy: both see the same bytes
//! assert_eq!(shared.as_ptr(), block.as_ptr());
//! assert_eq!(shared.bytes()[..8], 1.5f64.to_ne_bytes());
//! ```

use std::alloc::{self, Layout};
use std::any::Any;
use std::fmt;
use std::ptr::NonNull;
use std::sync::Arc;

use crate::element::Element;
use crate::error::Error;

/// Alignment of blocks this module allocates from [`SMALL_BLOCK`] bytes
/// up: a cache line, which also suits every SIMD width the compiler may use.
/// Smaller blocks are 16-byte aligned (every element type's alignment).
pub const BLOCK_ALIGN: usize = 64;

/// Blocks smaller than this are allocated with 16-byte alignment.
pub const SMALL_BLOCK: usize = 4096;

enum Owner {
    /// Allocated here with this layout (size > 0).
    Allocated(Layout),
    /// No allocation (length 0).
    Empty,
    /// Memory owned by another value (a `Vec`, a `'static` slice, ...),
    /// kept alive by the block.
    External(#[allow(dead_code)] Box<dyn Any + Send + Sync>),
}

/// Aligned bytes, owned or borrowed from a value the block keeps alive.
pub struct MemoryBlock {
    ptr: NonNull<u8>,
    len: usize,
    owner: Owner,
    writable: bool,
}

// SAFETY: the block owns its bytes (or a Send + Sync owner of them); shared
// access only reads, and writes need `&mut MemoryBlock` (see the module docs).
unsafe impl Send for MemoryBlock {}
// SAFETY: as above.
unsafe impl Sync for MemoryBlock {}

impl MemoryBlock {
    /// A block of `len` zero bytes, aligned to [`BLOCK_ALIGN`] (16 bytes
    /// below [`SMALL_BLOCK`]).
    ///
    /// # Errors
    ///
    /// [`Error::Value`] if `len` is too large to allocate.
    pub fn zeroed(len: usize) -> Result<Arc<MemoryBlock>, Error> {
        if len == 0 {
            return Ok(Arc::new(MemoryBlock {
                ptr: NonNull::<u128>::dangling().cast(),
                len: 0,
                owner: Owner::Empty,
                writable: true,
            }));
        }
        // Small blocks take the allocator's fast path; 16 bytes is every
        // element type's alignment.
        let align = if len < SMALL_BLOCK { 16 } else { BLOCK_ALIGN };
        let layout = Layout::from_size_align(len, align).map_err(|_| Error::Value {
            what: format!("cannot allocate {len} bytes"),
        })?;
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc::alloc_zeroed(layout) };
        let Some(ptr) = NonNull::new(raw) else {
            alloc::handle_alloc_error(layout)
        };
        Ok(Arc::new(MemoryBlock {
            ptr,
            len,
            owner: Owner::Allocated(layout),
            writable: true,
        }))
    }

    /// A block holding a copy of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Arc<MemoryBlock> {
        let mut block = match MemoryBlock::zeroed(bytes.len()) {
            Ok(b) => b,
            Err(_) => unreachable!("a slice's length always fits a layout"),
        };
        if let Some(b) = Arc::get_mut(&mut block) {
            b.bytes_mut().copy_from_slice(bytes);
        }
        block
    }

    /// A block over the elements of `vec`, without copying them. The block
    /// is aligned as `T` is.
    pub fn from_vec<T: Element>(mut vec: Vec<T>) -> Arc<MemoryBlock> {
        let len = std::mem::size_of_val(vec.as_slice());
        let ptr = NonNull::new(vec.as_mut_ptr() as *mut u8).unwrap_or(NonNull::dangling());
        Arc::new(MemoryBlock {
            ptr,
            len,
            owner: Owner::External(Box::new(vec)),
            writable: true,
        })
    }

    /// A read-only block over a `'static` slice, without copying it.
    pub fn from_static<T: Element>(slice: &'static [T]) -> Arc<MemoryBlock> {
        let len = std::mem::size_of_val(slice);
        let ptr = NonNull::new(slice.as_ptr() as *mut u8).unwrap_or(NonNull::dangling());
        Arc::new(MemoryBlock {
            ptr,
            len,
            owner: Owner::External(Box::new(())),
            writable: false,
        })
    }

    /// The number of bytes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the block has no bytes.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the bytes may be written (false for borrowed `'static` data).
    pub fn is_writable(&self) -> bool {
        self.writable
    }

    /// The address of the first byte.
    pub fn as_ptr(&self) -> *const u8 {
        self.ptr.as_ptr()
    }

    /// The address of the first byte, for writing.
    ///
    /// # Panics
    ///
    /// If the block is not writable (callers check [`Self::is_writable`]).
    pub(crate) fn as_mut_ptr(&mut self) -> *mut u8 {
        assert!(self.writable, "write to a read-only memory block");
        self.ptr.as_ptr()
    }

    /// The bytes.
    pub fn bytes(&self) -> &[u8] {
        // SAFETY: `ptr` is valid for `len` initialised bytes (zeroed, copied,
        // or the owner's initialised elements) for as long as `self` lives,
        // and nothing writes them while `&self` is held.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }

    /// The bytes, for writing.
    ///
    /// # Panics
    ///
    /// If the block is not writable.
    pub(crate) fn bytes_mut(&mut self) -> &mut [u8] {
        let len = self.len;
        // SAFETY: as in `bytes`, and `&mut self` is exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.as_mut_ptr(), len) }
    }
}

impl Drop for MemoryBlock {
    fn drop(&mut self) {
        if let Owner::Allocated(layout) = self.owner {
            // SAFETY: allocated in `zeroed` with this layout, freed once.
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
