//! The kernel builder: type-erased kernel records in one movable buffer.
//!
//! A kernel is a tree of records. Each record is a `#[repr(C)]` [`Node`]: a
//! [`KernelPrefix`] of function pointers monomorphised for its data type
//! (single, strided, drop, describe) followed by the data. Records live one
//! after another in a single buffer with inline storage for
//! [`INLINE_BYTES`] bytes, spilling to the heap beyond that; a parent refers
//! to its children by [`Child`] offset, never by pointer, so the buffer may
//! move (it does, when it grows and when a builder becomes a [`Kernel`]).
//!
//! Children are pushed before their parent, so a parent's data is complete
//! (it holds its children's offsets) when it is pushed, and every record in
//! the buffer is always fully constructed: dropping a builder halfway through
//! (an error or a panic while building) drops exactly the records pushed so
//! far, once each. The root is the last record pushed.
//!
//! ```
//! use dynd_kernels::kernel::{KernelBuilder, KernelCtx, KernelData};
//! use dynd::nd::KernelError;
//!
//! /// Copies one f64.
//! struct CopyF64;
//!
//! impl KernelData for CopyF64 {
//!     unsafe fn single(&self, _: &KernelCtx<'_>, dst: *mut u8, src: &[*const u8]) -> Result<(), KernelError> {
//!         // SAFETY: the caller passes valid f64 locations (the kernel's contract).
//!         unsafe { (dst as *mut f64).write_unaligned((src[0] as *const f64).read_unaligned()) };
//!         Ok(())
//!     }
//!     fn describe(&self) -> String { "copy f64".into() }
//! }
//!
//! let mut b = KernelBuilder::new();
//! b.push(CopyF64);
//! let kernel = b.finish().unwrap();
//! let (src, mut dst) = (2.5f64, 0.0f64);
//! // SAFETY: both pointers are valid f64s.
//! unsafe { kernel.single((&mut dst as *mut f64).cast(), &[(&src as *const f64).cast()]) }.unwrap();
//! assert_eq!(dst, 2.5);
//! assert_eq!(kernel.describe(), "copy f64\n");
//! ```

use std::marker::PhantomData;
use std::mem::{align_of, size_of, MaybeUninit};
use std::ptr;

use smallvec::SmallVec;

use crate::error::KernelError;

/// Alignment of every record in a kernel buffer.
pub const ALIGN: usize = 16;

/// Bytes of inline storage in a builder before it spills to the heap.
/// Enough for an assignment over up to 8 fixed dimensions (one strided-loops
/// record and a scalar leaf) with room to spare.
pub const INLINE_BYTES: usize = 1024;

const INLINE_CHUNKS: usize = INLINE_BYTES / ALIGN;

#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Chunk([u8; ALIGN]);

/// The offset of a record in its kernel buffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Child(usize);

impl Child {
    /// The byte offset of the record.
    pub fn offset(self) -> usize {
        self.0
    }
}

/// The data of one kernel record and the code that runs on it.
///
/// Implementors are plain values; the builder stores them in its buffer and
/// calls them through monomorphised function pointers. Kernel data is
/// immutable while the kernel runs (methods take `&self`), and `Send + Sync`,
/// so one built kernel may run on several threads over disjoint data.
pub trait KernelData: Send + Sync + 'static {
    /// Runs the kernel on one element.
    ///
    /// # Safety
    ///
    /// `dst` and each `src[i]` must point to valid, properly initialised
    /// elements of the types and layouts the kernel was built for, `dst`
    /// must be writable and must not overlap a source unless the kernel was
    /// built for that, and the arrays the kernel was built from must still
    /// be alive.
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError>;

    /// Runs the kernel on `count` elements spaced by the given byte strides.
    /// The default calls [`KernelData::single`] in a loop.
    ///
    /// # Safety
    ///
    /// As for [`KernelData::single`], for every element `i < count` at
    /// `dst + i * dst_stride` and `src[j] + i * src_stride[j]`;
    /// `src_stride.len() == src.len()`.
    unsafe fn strided(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        let mut s: SmallVec<[*const u8; 4]> = src.iter().copied().collect();
        let mut d = dst;
        for i in 0..count {
            // SAFETY: element `i` is valid by this function's contract.
            unsafe { self.single(ctx, d, &s) }.map_err(|e| e.at(i))?;
            d = d.wrapping_offset(dst_stride);
            for (p, stride) in s.iter_mut().zip(src_stride) {
                *p = p.wrapping_offset(*stride);
            }
        }
        Ok(())
    }

    /// One line saying what the record does, for [`Kernel::describe`].
    fn describe(&self) -> String;

    /// The record's children, for [`Kernel::describe`].
    fn children(&self) -> SmallVec<[Child; 2]> {
        SmallVec::new()
    }
}

/// Lets a running kernel reach its children.
pub struct KernelCtx<'k> {
    base: *const u8,
    _buffer: PhantomData<&'k [u8]>,
}

// SAFETY: a context reads a finished kernel's buffer, which nothing writes
// while the kernel runs, and whose records are `KernelData: Send + Sync`;
// sharing it between the threads of one run is sharing `&Kernel`.
unsafe impl Sync for KernelCtx<'_> {}
// SAFETY: as above.
unsafe impl Send for KernelCtx<'_> {}

impl<'k> KernelCtx<'k> {
    /// The child record at `child`.
    pub fn child(&self, child: Child) -> KernelRef<'k> {
        KernelRef {
            base: self.base,
            offset: child.0,
            _buffer: PhantomData,
        }
    }
}

/// A record of a built kernel, ready to run.
#[derive(Clone, Copy)]
pub struct KernelRef<'k> {
    base: *const u8,
    offset: usize,
    _buffer: PhantomData<&'k [u8]>,
}

impl KernelRef<'_> {
    fn prefix(&self) -> &KernelPrefix {
        // SAFETY: a KernelRef is only made for the offset of a record that
        // the builder wrote (a Child it handed out, or the root), and every
        // record starts with its prefix (`Node` is `repr(C)`).
        unsafe { &*(self.base.add(self.offset) as *const KernelPrefix) }
    }

    /// Runs the record on one element.
    ///
    /// # Safety
    ///
    /// As [`KernelData::single`].
    pub unsafe fn single(&self, dst: *mut u8, src: &[*const u8]) -> Result<(), KernelError> {
        // SAFETY: forwarded contract; the function pointer was made for this record's type.
        unsafe { (self.prefix().single)(self.base, self.offset, dst, src) }
    }

    /// Runs the record on `count` strided elements.
    ///
    /// # Safety
    ///
    /// As [`KernelData::strided`].
    pub unsafe fn strided(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        debug_assert_eq!(src.len(), src_stride.len());
        // SAFETY: forwarded contract; the function pointer was made for this record's type.
        unsafe {
            (self.prefix().strided)(
                self.base,
                self.offset,
                dst,
                dst_stride,
                src,
                src_stride,
                count,
            )
        }
    }
}

type SingleThunk = unsafe fn(*const u8, usize, *mut u8, &[*const u8]) -> Result<(), KernelError>;
type StridedThunk = unsafe fn(
    *const u8,
    usize,
    *mut u8,
    isize,
    &[*const u8],
    &[isize],
    usize,
) -> Result<(), KernelError>;

/// The function pointers at the start of every record.
#[repr(C)]
pub struct KernelPrefix {
    single: SingleThunk,
    strided: StridedThunk,
    drop: unsafe fn(*mut u8),
    describe: unsafe fn(*const u8) -> (String, SmallVec<[Child; 2]>),
    size: usize,
}

/// A record: its prefix, then its data.
#[repr(C)]
pub struct Node<K> {
    prefix: KernelPrefix,
    data: K,
}

/// # Safety
///
/// `base + offset` must hold a `Node<K>`.
unsafe fn data<'a, K>(base: *const u8, offset: usize) -> &'a K {
    // SAFETY: by the contract, a Node<K> lives there.
    unsafe { &(*(base.add(offset) as *const Node<K>)).data }
}

unsafe fn single_thunk<K: KernelData>(
    base: *const u8,
    offset: usize,
    dst: *mut u8,
    src: &[*const u8],
) -> Result<(), KernelError> {
    let ctx = KernelCtx {
        base,
        _buffer: PhantomData,
    };
    // SAFETY: this thunk is only stored in the prefix of a Node<K>; the
    // element pointers are the caller's contract.
    unsafe { data::<K>(base, offset).single(&ctx, dst, src) }
}

unsafe fn strided_thunk<K: KernelData>(
    base: *const u8,
    offset: usize,
    dst: *mut u8,
    dst_stride: isize,
    src: &[*const u8],
    src_stride: &[isize],
    count: usize,
) -> Result<(), KernelError> {
    let ctx = KernelCtx {
        base,
        _buffer: PhantomData,
    };
    // SAFETY: as in `single_thunk`.
    unsafe { data::<K>(base, offset).strided(&ctx, dst, dst_stride, src, src_stride, count) }
}

unsafe fn drop_thunk<K>(record: *mut u8) {
    // SAFETY: only stored in the prefix of a Node<K>; each record is dropped once.
    unsafe { ptr::drop_in_place(record as *mut Node<K>) }
}

unsafe fn describe_thunk<K: KernelData>(record: *const u8) -> (String, SmallVec<[Child; 2]>) {
    // SAFETY: only stored in the prefix of a Node<K>.
    let k = unsafe { data::<K>(record, 0) };
    (k.describe(), k.children())
}

const fn record_size<K>() -> usize {
    size_of::<Node<K>>().div_ceil(ALIGN) * ALIGN
}

/// Inline storage that spills to the heap. The size difference between the
/// variants is the point: inline storage is what makes building small
/// kernels allocation-free.
#[allow(clippy::large_enum_variant)]
enum Storage {
    Inline([MaybeUninit<Chunk>; INLINE_CHUNKS]),
    Heap(Vec<MaybeUninit<Chunk>>),
}

impl Storage {
    fn capacity(&self) -> usize {
        match self {
            Storage::Inline(_) => INLINE_BYTES,
            Storage::Heap(v) => v.len() * ALIGN,
        }
    }

    fn as_ptr(&self) -> *const u8 {
        match self {
            Storage::Inline(a) => a.as_ptr() as *const u8,
            Storage::Heap(v) => v.as_ptr() as *const u8,
        }
    }

    fn as_mut_ptr(&mut self) -> *mut u8 {
        match self {
            Storage::Inline(a) => a.as_mut_ptr() as *mut u8,
            Storage::Heap(v) => v.as_mut_ptr() as *mut u8,
        }
    }
}

/// The records of a buffer, dropped in push order when it goes away.
struct Records {
    storage: Storage,
    len: usize,
    last: Option<usize>,
}

impl Records {
    fn new() -> Records {
        Records {
            storage: Storage::Inline([MaybeUninit::uninit(); INLINE_CHUNKS]),
            len: 0,
            last: None,
        }
    }

    fn grow(&mut self, needed: usize) {
        let new_cap = needed.max(self.storage.capacity() * 2);
        let mut heap = vec![MaybeUninit::<Chunk>::uninit(); new_cap.div_ceil(ALIGN)];
        // SAFETY: both buffers are at least `len` bytes; they do not overlap;
        // records are plain Rust values and so movable by a byte copy.
        unsafe {
            ptr::copy_nonoverlapping(
                self.storage.as_ptr(),
                heap.as_mut_ptr() as *mut u8,
                self.len,
            )
        };
        // The old storage holds only bytes now owned by the new one; replacing
        // it drops no record (Storage has no drop glue for its contents).
        self.storage = Storage::Heap(heap);
    }
}

impl Drop for Records {
    fn drop(&mut self) {
        let base = self.storage.as_mut_ptr();
        let mut offset = 0;
        while offset < self.len {
            // SAFETY: records are contiguous from 0 to len, each fully
            // written by `push` and starting with its prefix; each is dropped
            // exactly once, here, after its size has been read.
            unsafe {
                let prefix = &*(base.add(offset) as *const KernelPrefix);
                let (size, drop) = (prefix.size, prefix.drop);
                drop(base.add(offset));
                offset += size;
            }
        }
    }
}

/// Builds a kernel: push records (children first), then [`finish`](Self::finish).
///
/// Building a kernel whose records fit in [`INLINE_BYTES`] makes no heap
/// allocation.
pub struct KernelBuilder<'a> {
    records: Records,
    _arrays: PhantomData<&'a ()>,
}

impl Default for KernelBuilder<'_> {
    fn default() -> Self {
        Self::new()
    }
}

impl<'a> KernelBuilder<'a> {
    /// An empty builder with inline storage.
    pub fn new() -> KernelBuilder<'a> {
        KernelBuilder {
            records: Records::new(),
            _arrays: PhantomData,
        }
    }

    /// Appends a record and returns its offset, for its parent to hold.
    pub fn push<K: KernelData>(&mut self, data: K) -> Child {
        const {
            assert!(
                align_of::<Node<K>>() <= ALIGN,
                "kernel data must not need more than 16-byte alignment"
            );
        }
        let size = record_size::<K>();
        let offset = self.records.len;
        if offset + size > self.records.storage.capacity() {
            self.records.grow(offset + size);
        }
        let node = Node {
            prefix: KernelPrefix {
                single: single_thunk::<K>,
                strided: strided_thunk::<K>,
                drop: drop_thunk::<K>,
                describe: describe_thunk::<K>,
                size,
            },
            data,
        };
        // SAFETY: the storage has room for `size` bytes at `offset`; the
        // base is 16-aligned and `offset` a multiple of 16, enough for Node<K>
        // (checked above); nothing lives there yet.
        unsafe {
            ptr::write(
                self.records.storage.as_mut_ptr().add(offset) as *mut Node<K>,
                node,
            )
        };
        self.records.len += size;
        self.records.last = Some(offset);
        Child(offset)
    }

    /// Bytes used so far.
    pub fn len(&self) -> usize {
        self.records.len
    }

    /// Whether no record has been pushed.
    pub fn is_empty(&self) -> bool {
        self.records.len == 0
    }

    /// Whether the records have spilled to the heap.
    pub fn is_spilled(&self) -> bool {
        matches!(self.records.storage, Storage::Heap(_))
    }

    /// The finished kernel, whose root is the last record pushed.
    ///
    /// # Errors
    ///
    /// [`KernelError`] if nothing was pushed.
    pub fn finish(self) -> Result<Kernel<'a>, KernelError> {
        let root = self
            .records
            .last
            .ok_or_else(|| KernelError::message("a kernel needs at least one record"))?;
        Ok(Kernel {
            records: self.records,
            root,
            _arrays: PhantomData,
        })
    }
}

/// A built kernel: run it through a shared reference, from any thread.
///
/// The lifetime ties it to the arrays whose arrmeta it was built from.
pub struct Kernel<'a> {
    records: Records,
    root: usize,
    _arrays: PhantomData<&'a ()>,
}

// SAFETY: every record's data is `KernelData: Send + Sync`; the buffer is
// only read while the kernel runs.
unsafe impl Send for Kernel<'_> {}
// SAFETY: as above.
unsafe impl Sync for Kernel<'_> {}
// SAFETY: as above; a builder only holds fully constructed Send + Sync records.
unsafe impl Send for KernelBuilder<'_> {}

impl Kernel<'_> {
    /// The root record.
    pub fn root(&self) -> KernelRef<'_> {
        KernelRef {
            base: self.records.storage.as_ptr(),
            offset: self.root,
            _buffer: PhantomData,
        }
    }

    /// Runs the kernel on one element.
    ///
    /// # Safety
    ///
    /// As [`KernelData::single`] for the root record.
    pub unsafe fn single(&self, dst: *mut u8, src: &[*const u8]) -> Result<(), KernelError> {
        // SAFETY: forwarded contract.
        unsafe { self.root().single(dst, src) }
    }

    /// Runs the kernel on `count` strided elements.
    ///
    /// # Safety
    ///
    /// As [`KernelData::strided`] for the root record.
    pub unsafe fn strided(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        // SAFETY: forwarded contract.
        unsafe { self.root().strided(dst, dst_stride, src, src_stride, count) }
    }

    /// The record `child`, one this kernel's builder handed out, to run
    /// on its own (a fused program runs its steps' records so).
    pub(crate) fn record(&self, child: Child) -> KernelRef<'_> {
        KernelRef {
            base: self.records.storage.as_ptr(),
            offset: child.0,
            _buffer: PhantomData,
        }
    }

    /// Whether the records spilled to the heap while building.
    pub fn is_spilled(&self) -> bool {
        matches!(self.records.storage, Storage::Heap(_))
    }

    /// The kernel tree, one record a line, children indented under their parent.
    pub fn describe(&self) -> String {
        let mut out = String::new();
        let starts = self.record_starts();
        self.describe_into(self.root, 0, &starts, &mut out);
        out
    }

    /// The offsets where records start, in push order.
    fn record_starts(&self) -> Vec<usize> {
        let base = self.records.storage.as_ptr();
        let mut starts = Vec::new();
        let mut offset = 0;
        while offset < self.records.len {
            starts.push(offset);
            // SAFETY: records are contiguous from 0 to len, each starting
            // with its prefix, whose `size` leads to the next one.
            offset += unsafe { (*(base.add(offset) as *const KernelPrefix)).size };
        }
        starts
    }

    fn describe_into(&self, offset: usize, depth: usize, starts: &[usize], out: &mut String) {
        let base = self.records.storage.as_ptr();
        // SAFETY: `offset` is the root or a Child of a record, so a record
        // starts there, with its prefix.
        let (line, children) = unsafe {
            let prefix = &*(base.add(offset) as *const KernelPrefix);
            (prefix.describe)(base.add(offset))
        };
        out.push_str(&"  ".repeat(depth));
        out.push_str(&line);
        out.push('\n');
        for c in children {
            // A child handed out by another builder is not followed.
            if starts.binary_search(&c.0).is_ok() && depth < 64 {
                self.describe_into(c.0, depth + 1, starts, out);
            } else {
                out.push_str(&format!(
                    "{}(child at offset {} is not a record of this kernel)\n",
                    "  ".repeat(depth + 1),
                    c.0
                ));
            }
        }
    }
}
