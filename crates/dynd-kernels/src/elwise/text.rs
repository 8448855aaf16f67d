//! Leaves over strings: functions of `string` elements, run elementwise
//! with the same broadcasting as every other leaf.
//!
//! A `string` element is a (start, length) pair into its array's text
//! block, so a kernel over strings needs more than its elements: when it
//! is built, it is given each string argument's text block, and, for a
//! string result, the call's text arena, which its strings are appended
//! to and which becomes the result's text block afterwards. A result
//! string is written straight into the arena through a [`TextSink`]: no
//! `String` is made per element. Such a kernel runs on one thread (the
//! arena is one), and the flat paths and fused loops, which know no text
//! blocks, pass it by.
//!
//! ```
//! use dynd::func::{Callable, Leaf, Overload};
//! use dynd::nd::Array;
//!
//! let shout = Leaf::text_map1(|s: &str, out: &mut dynd::func::TextSink<'_>| {
//!     out.push_str(&s.to_uppercase());
//!     out.push_str("!");
//! });
//! let shout = Callable::new("shout", vec![Overload::new(shout)])?;
//! let x = Array::from_json(r#"[["ß", "naïve"], [], ["日本"]]"#, None)?;
//! assert_eq!(shout.call(&[&x])?.to_string(), r#"[["SS!", "NAÏVE!"], [], ["日本!"]]"#);
//! # Ok::<(), dynd::Error>(())
//! ```

use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use smallvec::SmallVec;

use dynd_types::{KernelErrorKind, Scalar, Type};

use super::{run_into, Leaf, LeafFit, Push, INLINE_ARGS};
use crate::array::Array;
use crate::arrmeta::Arrmeta;
use crate::assign::text::{read_text, ArenaPtr};
use crate::assign::{text_block, text_block_mut};
use crate::element::Element;
use crate::error::{Error, KernelError};
use crate::kernel::{Child, KernelBuilder, KernelCtx, KernelData};
use crate::loops::{BlockPtr, Builds, Serial};
use crate::memory::MemoryBlock;
use crate::shared::Shared;

/// What a kernel over strings is given when it is built: each argument's
/// text block (`None` for an argument that is not text), and the arena a
/// string result goes to.
pub(crate) struct TextEnv {
    srcs: SmallVec<[Option<TextBlock>; INLINE_ARGS]>,
    arena: Option<ArenaPtr>,
    /// For a view: where argument 0's text starts in the result's text
    /// block.
    view_base: u64,
    /// For a view: where the arena's text (results that are not parts
    /// of argument 0) starts in the result's text block.
    view_extra: u64,
}

/// A string argument's text block, as its kernel reads it: its start,
/// its length, and whether it is all UTF-8 (then a string in it is UTF-8
/// when its ends fall on character boundaries, two byte tests, instead
/// of a check of every byte).
#[derive(Clone, Copy)]
pub(crate) struct TextBlock {
    base: BlockPtr,
    len: usize,
    utf8: bool,
}

impl TextBlock {
    /// `block`'s text, for a kernel.
    fn of(block: &MemoryBlock) -> TextBlock {
        TextBlock {
            // SAFETY: the block's bytes, which the argument keeps alive
            // for the call and which are immutable while shared; the
            // kernel only reads them.
            base: unsafe { BlockPtr::new(block.as_ptr()) },
            len: block.len(),
            utf8: block.is_utf8(),
        }
    }

    /// Stands for an argument that is not text (never read).
    fn none() -> TextBlock {
        TextBlock {
            // SAFETY: a null pointer that no body dereferences.
            base: unsafe { BlockPtr::new(std::ptr::null()) },
            len: 0,
            utf8: false,
        }
    }
}

/// Pushes a kernel over strings, given the call's [`TextEnv`].
pub(super) type PushText =
    dyn for<'a> Fn(&mut KernelBuilder<'a>, &TextEnv) -> Result<Child, Error> + Send + Sync;

/// Where a string function writes its result: the call's text arena,
/// appended to in place. Only whole `&str`s and `char`s go in, so the
/// result is UTF-8 by construction.
pub struct TextSink<'a> {
    bytes: &'a mut Vec<u8>,
    start: usize,
}

impl<'a> TextSink<'a> {
    /// A sink appending to `bytes` (what a string function's kernel
    /// gives it; for testing such a function on its own).
    pub fn new(bytes: &'a mut Vec<u8>) -> TextSink<'a> {
        let start = bytes.len();
        TextSink { bytes, start }
    }

    /// Appends `s`.
    #[inline]
    pub fn push_str(&mut self, s: &str) {
        self.bytes.extend_from_slice(s.as_bytes());
    }

    /// Appends `c`.
    #[inline]
    pub fn push(&mut self, c: char) {
        let mut buf = [0u8; 4];
        let n = c.encode_utf8(&mut buf).len();
        // Copies of known lengths, inline (not a call to copy memory).
        match n {
            1 => self.bytes.push(buf[0]),
            2 => self.bytes.extend_from_slice(&buf[..2]),
            3 => self.bytes.extend_from_slice(&buf[..3]),
            _ => self.bytes.extend_from_slice(&buf),
        }
    }

    /// Appends `s` with its ASCII letters in uppercase (the other
    /// characters as they are).
    #[inline]
    pub fn push_ascii_uppercase(&mut self, s: &str) {
        // Only ASCII bytes change, to ASCII bytes: still UTF-8. Mapped
        // as copied, in one loop.
        self.bytes.extend(s.bytes().map(|b| b.to_ascii_uppercase()));
    }

    /// Appends `s` with its ASCII letters in lowercase.
    #[inline]
    pub fn push_ascii_lowercase(&mut self, s: &str) {
        self.bytes.extend(s.bytes().map(|b| b.to_ascii_lowercase()));
    }

    /// Makes room for `additional` more bytes, or fails (naming the
    /// size) where the memory cannot be had: for results whose size comes
    /// from the data (a repetition count, a width).
    pub fn try_reserve(&mut self, additional: usize) -> Result<(), KernelError> {
        self.bytes.try_reserve(additional).map_err(|_| {
            KernelError::message(format!(
                "a string of {additional} more bytes does not fit in memory"
            ))
        })
    }

    /// The bytes written so far for this element.
    #[inline]
    pub fn len(&self) -> usize {
        self.bytes.len() - self.start
    }

    /// Whether nothing has been written for this element.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl std::fmt::Write for TextSink<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.push_str(s);
        Ok(())
    }
}

/// `bytes` as text, or the error naming where they stop being UTF-8.
#[inline]
fn utf8(bytes: &[u8]) -> Result<&str, KernelError> {
    std::str::from_utf8(bytes).map_err(|e| {
        KernelError::new(KernelErrorKind::Utf8 {
            valid_up_to: e.valid_up_to(),
        })
    })
}

/// A string function's body: what it reads from one element of each
/// argument and what it writes.
trait Body: Send + Sync + 'static {
    /// Which arguments are strings (the others are read as elements).
    const TEXT: &'static [bool];

    /// Whether the strings it writes are UTF-8 by construction (written
    /// through a [`TextSink`]), rather than bytes copied as they are.
    const UTF8_OUT: bool = true;

    /// Runs on one element.
    ///
    /// # Safety
    ///
    /// `src[i]` is a valid element of argument `i`: for a string
    /// argument, a pair into the text block at `text[i]`; `dst` is a
    /// valid element of the result's type; `sink` is the arena for a
    /// string result.
    unsafe fn run(
        &self,
        text: &[TextBlock],
        src: &[*const u8],
        dst: *mut u8,
        sink: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError>;

    /// Runs on `count` elements spaced by the strides; an error names
    /// the element. The default calls [`Body::run`] on each.
    ///
    /// # Safety
    ///
    /// As [`Body::run`] for each element `i < count` at `src[j] + i *
    /// src_stride[j]` and `dst + i * dst_stride`.
    #[inline]
    unsafe fn strided(
        &self,
        text: &[TextBlock],
        (src, src_stride): (&[*const u8], &[isize]),
        (dst, dst_stride): (*mut u8, isize),
        count: usize,
        mut sink: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        let mut s: SmallVec<[*const u8; 2]> = src.iter().copied().collect();
        let mut d = dst;
        for i in 0..count {
            // SAFETY: element `i` of each operand is valid by the contract.
            unsafe { self.run(text, &s, d, sink.as_deref_mut()) }.map_err(|e| e.at(i))?;
            d = d.wrapping_offset(dst_stride);
            for (p, stride) in s.iter_mut().zip(src_stride) {
                *p = p.wrapping_offset(*stride);
            }
        }
        Ok(())
    }
}

/// The kernel of a string function: its body, its arguments' text
/// blocks, and the arena of a string result.
struct TextKernel<B> {
    body: Arc<B>,
    text: SmallVec<[TextBlock; 2]>,
    arena: Option<ArenaPtr>,
}

/// The kernel of a view (a string function whose result is a part of its
/// first argument): the body gives the part, and the result points into
/// argument 0's text, which starts at `base` in the result's text block.
/// A result that is not a part of the argument (a `&'static str` a
/// function returned) goes to the arena, whose text starts at `extra` in
/// the result's text block.
struct ViewKernel<F: ?Sized> {
    f: Arc<F>,
    text: TextBlock,
    base: u64,
    arena: Option<ArenaPtr>,
    extra: u64,
    /// Whether the result is `?string` (`f` may give no part: NA).
    option: bool,
}

/// What a view's function gives for one string.
enum Part<'a> {
    /// The bytes at this range of the string (checked: on character
    /// boundaries, inside it).
    Bytes(std::ops::Range<usize>),
    /// This text: a view where it lies inside the string, a copy where
    /// it does not.
    Str(&'a str),
}

/// A view's function: the part, or `None` for NA.
type ViewFn = dyn for<'a> Fn(&'a str) -> Option<Part<'a>> + Send + Sync;

impl<F: for<'a> Fn(&'a str) -> Option<Part<'a>> + Send + Sync + 'static + ?Sized> KernelData
    for ViewKernel<F>
{
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: by this function's contract, for one element.
        unsafe { self.strided(ctx, dst, 0, src, &[0], 1) }
    }

    unsafe fn strided(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        // SAFETY: the arena outlives the kernel (the call that built it
        // holds it), and the kernel runs on one thread.
        let mut arena = self.arena.map(|a| unsafe { a.lock() });
        let (mut s, mut d) = (src[0], dst);
        for i in 0..count {
            // SAFETY: element `i` of the argument is a valid string pair
            // into the text block at `self.text` (validated), and of the
            // result a string element, by this function's contract.
            unsafe {
                let start = (s as *const u64).read_unaligned();
                let text = arg_str(&[self.text], &[s], 0).map_err(|e| e.at(i))?;
                let part = (self.f)(text);
                let p = d as *mut u64;
                let valid = part.is_some();
                let (at, len) = match part {
                    // The range is checked: a part of the text, on
                    // character boundaries.
                    Some(Part::Bytes(r)) if text.get(r.clone()).is_none() => {
                        return Err(KernelError::message(format!(
                            "a view of bytes {r:?} of a string of {} bytes",
                            text.len()
                        ))
                        .at(i));
                    }
                    Some(Part::Bytes(r)) => (self.base + start + r.start as u64, r.len()),
                    Some(Part::Str(r)) => {
                        // Where `r` lies inside `text` (compared as
                        // addresses, never dereferenced), a view of it.
                        let off = (r.as_ptr() as usize).wrapping_sub(text.as_ptr() as usize);
                        if r.is_empty() {
                            (0, 0)
                        } else if off <= text.len() && r.len() <= text.len() - off {
                            (self.base + start + off as u64, r.len())
                        } else {
                            let Some(arena) = arena.as_deref_mut() else {
                                return Err(KernelError::message(
                                    "a string result without its text arena",
                                )
                                .at(i));
                            };
                            let at = self.extra + arena.len() as u64;
                            arena.extend_from_slice(r.as_bytes());
                            (at, r.len())
                        }
                    }
                    None => (0, 0),
                };
                p.write_unaligned(at);
                p.add(1).write_unaligned(len as u64);
                if self.option {
                    *d.add(Scalar::String.size()) = u8::from(valid);
                } else if !valid {
                    return Err(KernelError::message("a view without a part").at(i));
                }
            }
            d = d.wrapping_offset(dst_stride);
            s = s.wrapping_offset(src_stride[0]);
        }
        Ok(())
    }

    fn describe(&self) -> String {
        "string view".into()
    }
}

impl<B: Body> KernelData for TextKernel<B> {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        let zeros: SmallVec<[isize; 2]> = src.iter().map(|_| 0).collect();
        // SAFETY: by this function's contract, for one element.
        unsafe { self.strided(ctx, dst, 0, src, &zeros, 1) }
    }

    unsafe fn strided(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        // The arena is locked once per run of elements, not per element.
        // SAFETY: the arena outlives the kernel (the call that built it
        // holds it), and the kernel runs on one thread.
        let mut guard = self.arena.map(|a| unsafe { a.lock() });
        // SAFETY: by this function's contract; the text blocks are the
        // ones the kernel was built with, which the arrays keep alive.
        unsafe {
            self.body.strided(
                &self.text,
                (src, src_stride),
                (dst, dst_stride),
                count,
                guard.as_deref_mut(),
            )
        }
    }

    fn describe(&self) -> String {
        format!("string function ({} arguments)", B::TEXT.len())
    }
}

/// Reads a string argument's bytes.
///
/// # Safety
///
/// As [`Body::run`] for argument `i`.
#[inline(always)]
unsafe fn arg<'t>(text: &[TextBlock], src: &[*const u8], i: usize) -> &'t [u8] {
    // SAFETY: by the contract: a pair of a validated array lies inside
    // the text block its arrmeta names, whose start is `text[i]`.
    unsafe { read_text(text[i].base, src[i]) }
}

/// Whether `b` continues a UTF-8 character (`0b10xx_xxxx`).
#[inline(always)]
fn continues(b: u8) -> bool {
    (b as i8) < -64
}

/// Reads a string argument as text: in a block known to be UTF-8, a
/// string whose ends fall on character boundaries is UTF-8 itself, so
/// only its ends are tested; otherwise every byte is checked.
///
/// # Safety
///
/// As [`Body::run`] for argument `i`.
#[inline(always)]
unsafe fn arg_str<'t>(
    text: &[TextBlock],
    src: &[*const u8],
    i: usize,
) -> Result<&'t str, KernelError> {
    let t = text[i];
    // SAFETY: by the contract: the pair lies inside the text block of
    // `t.len` bytes at `t.base`, whose bytes stay as they are for the
    // call.
    unsafe {
        let p = src[i] as *const u64;
        let (start, len) = (
            p.read_unaligned() as usize,
            p.add(1).read_unaligned() as usize,
        );
        let bytes: &'t [u8] = std::slice::from_raw_parts(t.base.get().add(start), len);
        if t.utf8 {
            let end = start + len;
            let first_ok = len == 0 || !continues(bytes[0]);
            let end_ok = end >= t.len || !continues(*t.base.get().add(end));
            if first_ok && end_ok {
                // A part of UTF-8 text between two character boundaries
                // is UTF-8.
                return Ok(std::str::from_utf8_unchecked(bytes));
            }
        }
        utf8(bytes)
    }
}

/// Appends a string result with `f` and points `dst` at it.
///
/// # Safety
///
/// `dst` is a valid string element; `sink` is the result's arena.
#[inline(always)]
unsafe fn write_string(
    dst: *mut u8,
    sink: Option<&mut Vec<u8>>,
    f: impl FnOnce(&mut TextSink<'_>),
) -> Result<(), KernelError> {
    let Some(bytes) = sink else {
        return Err(KernelError::message(
            "a string result without its text arena",
        ));
    };
    let start = bytes.len();
    let mut out = TextSink { bytes, start };
    f(&mut out);
    let len = out.len();
    // SAFETY: a string element is two `u64`s, by the contract.
    unsafe {
        let p = dst as *mut u64;
        p.write_unaligned(start as u64);
        p.add(1).write_unaligned(len as u64);
    }
    Ok(())
}

/// Appends `bytes` as they are to the result's text and points the
/// string element `dst` at them.
///
/// # Safety
///
/// `dst` is a valid string element; `sink` is the result's arena.
#[inline(always)]
unsafe fn copy_string(
    dst: *mut u8,
    sink: Option<&mut Vec<u8>>,
    bytes: &[u8],
) -> Result<(), KernelError> {
    let Some(sink) = sink else {
        return Err(KernelError::message(
            "a string result without its text arena",
        ));
    };
    let start = sink.len();
    sink.extend_from_slice(bytes);
    // SAFETY: a string element is two `u64`s, by the contract.
    unsafe {
        let p = dst as *mut u64;
        p.write_unaligned(start as u64);
        p.add(1).write_unaligned(bytes.len() as u64);
    }
    Ok(())
}

/// How many elements ahead a comparison with one string asks for the
/// characters it will read.
const LOOKAHEAD: usize = 128;

/// Asks for the cache line at `p` (a hint: no effect on what the program
/// computes).
#[inline(always)]
fn prefetch(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing the program sees and faults on no
    // address; `p` is an address inside a text block besides.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// `(string, string) -> R` over the bytes.
struct Bytes2<F, R>(F, PhantomData<fn() -> R>);

impl<F: Fn(&[u8], &[u8]) -> R + Send + Sync + 'static, R: Element> Body for Bytes2<F, R> {
    const TEXT: &'static [bool] = &[true, true];

    #[inline]
    unsafe fn run(
        &self,
        text: &[TextBlock],
        src: &[*const u8],
        dst: *mut u8,
        _: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        // SAFETY: by the contract of `run`.
        unsafe {
            let r = (self.0)(arg(text, src, 0), arg(text, src, 1));
            (dst as *mut R).write_unaligned(r);
        }
        Ok(())
    }

    /// One loop per case: a string broadcast against the others (the
    /// common `x == "a"`) is read once, not per element.
    #[inline]
    unsafe fn strided(
        &self,
        text: &[TextBlock],
        (src, src_stride): (&[*const u8], &[isize]),
        (dst, dst_stride): (*mut u8, isize),
        count: usize,
        _: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        let (mut a, mut b, mut d) = (src[0], src[1], dst);
        // SAFETY: by the contract of `strided`: element `i` of each
        // argument is a valid pair into its text block, of the result a
        // valid `R`, for every `i < count` (so the one `LOOKAHEAD` ahead
        // is read only below `count`, and its start is inside the block).
        unsafe {
            match (src_stride[0], src_stride[1]) {
                (sa, 0) => {
                    let y = read_text(text[1].base, b);
                    for i in 0..count {
                        // The characters of a string as long as `y`, some
                        // elements ahead, asked of memory now: `x == "a"`
                        // reads few strings' characters, scattered, each
                        // otherwise a wait for memory.
                        if i + LOOKAHEAD < count {
                            let ahead = a.wrapping_offset(sa * LOOKAHEAD as isize) as *const u64;
                            if ahead.add(1).read_unaligned() == y.len() as u64 {
                                prefetch(text[0].base.get().add(ahead.read_unaligned() as usize));
                            }
                        }
                        let r = (self.0)(read_text(text[0].base, a), y);
                        (d as *mut R).write_unaligned(r);
                        a = a.wrapping_offset(sa);
                        d = d.wrapping_offset(dst_stride);
                    }
                }
                (0, sb) => {
                    let x = read_text(text[0].base, a);
                    for _ in 0..count {
                        let r = (self.0)(x, read_text(text[1].base, b));
                        (d as *mut R).write_unaligned(r);
                        b = b.wrapping_offset(sb);
                        d = d.wrapping_offset(dst_stride);
                    }
                }
                (sa, sb) => {
                    for _ in 0..count {
                        let r = (self.0)(read_text(text[0].base, a), read_text(text[1].base, b));
                        (d as *mut R).write_unaligned(r);
                        a = a.wrapping_offset(sa);
                        b = b.wrapping_offset(sb);
                        d = d.wrapping_offset(dst_stride);
                    }
                }
            }
        }
        Ok(())
    }
}

/// `(string) -> R` over the text.
struct Str1<F, R>(F, PhantomData<fn() -> R>);

impl<F: Fn(&str) -> R + Send + Sync + 'static, R: Element> Body for Str1<F, R> {
    const TEXT: &'static [bool] = &[true];

    #[inline]
    unsafe fn run(
        &self,
        text: &[TextBlock],
        src: &[*const u8],
        dst: *mut u8,
        _: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        // SAFETY: by the contract of `run`.
        unsafe {
            let r = (self.0)(arg_str(text, src, 0)?);
            (dst as *mut R).write_unaligned(r);
        }
        Ok(())
    }

    /// One pointer per operand, stepped in place.
    #[inline]
    unsafe fn strided(
        &self,
        text: &[TextBlock],
        (src, src_stride): (&[*const u8], &[isize]),
        (dst, dst_stride): (*mut u8, isize),
        count: usize,
        _: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        let (mut a, mut d) = (src[0], dst);
        for i in 0..count {
            // SAFETY: by the contract of `strided`: element `i` of the
            // argument is a valid pair into its text block, of the result
            // a valid `R`.
            unsafe {
                let x = arg_str(text, &[a], 0).map_err(|e| e.at(i))?;
                (d as *mut R).write_unaligned((self.0)(x));
            }
            a = a.wrapping_offset(src_stride[0]);
            d = d.wrapping_offset(dst_stride);
        }
        Ok(())
    }
}

/// `(string, string) -> R` over the text.
struct Str2<F, R>(F, PhantomData<fn() -> R>);

impl<F: Fn(&str, &str) -> R + Send + Sync + 'static, R: Element> Body for Str2<F, R> {
    const TEXT: &'static [bool] = &[true, true];

    #[inline]
    unsafe fn run(
        &self,
        text: &[TextBlock],
        src: &[*const u8],
        dst: *mut u8,
        _: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        // SAFETY: by the contract of `run`.
        unsafe {
            let r = (self.0)(arg_str(text, src, 0)?, arg_str(text, src, 1)?);
            (dst as *mut R).write_unaligned(r);
        }
        Ok(())
    }

    /// A needle broadcast against the strings (`contains(x, ",")`) is
    /// read and checked once.
    #[inline]
    unsafe fn strided(
        &self,
        text: &[TextBlock],
        (src, src_stride): (&[*const u8], &[isize]),
        (dst, dst_stride): (*mut u8, isize),
        count: usize,
        _: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        let (mut a, mut d) = (src[0], dst);
        if src_stride[1] != 0 || src_stride[0] == 0 {
            let mut s: SmallVec<[*const u8; 2]> = src.iter().copied().collect();
            for i in 0..count {
                // SAFETY: element `i` of each operand is valid by the
                // contract.
                unsafe { self.run(text, &s, d, None) }.map_err(|e| e.at(i))?;
                d = d.wrapping_offset(dst_stride);
                for (p, stride) in s.iter_mut().zip(src_stride) {
                    *p = p.wrapping_offset(*stride);
                }
            }
            return Ok(());
        }
        // SAFETY: by the contract of `strided`: element `i` of the first
        // argument, the one of the second, and element `i` of the result
        // are valid.
        unsafe {
            let y = arg_str(text, src, 1)?;
            for i in 0..count {
                let x = arg_str(text, &[a], 0).map_err(|e| e.at(i))?;
                (d as *mut R).write_unaligned((self.0)(x, y));
                a = a.wrapping_offset(src_stride[0]);
                d = d.wrapping_offset(dst_stride);
            }
        }
        Ok(())
    }
}

/// `(string) -> string`.
struct Map1<F>(F);

impl<F: Fn(&str, &mut TextSink<'_>) + Send + Sync + 'static> Body for Map1<F> {
    const TEXT: &'static [bool] = &[true];

    #[inline]
    unsafe fn run(
        &self,
        text: &[TextBlock],
        src: &[*const u8],
        dst: *mut u8,
        sink: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        // SAFETY: by the contract of `run`.
        unsafe {
            let a = arg_str(text, src, 0)?;
            write_string(dst, sink, |out| (self.0)(a, out))
        }
    }
}

/// `(string) -> string`, failing on some elements.
struct MapFallible<F>(F);

impl<F: Fn(&str, &mut TextSink<'_>) -> Result<(), KernelError> + Send + Sync + 'static> Body
    for MapFallible<F>
{
    const TEXT: &'static [bool] = &[true];

    #[inline]
    unsafe fn run(
        &self,
        text: &[TextBlock],
        src: &[*const u8],
        dst: *mut u8,
        sink: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        // SAFETY: by the contract of `run`.
        unsafe {
            let a = arg_str(text, src, 0)?;
            let mut result = Ok(());
            write_string(dst, sink, |out| result = (self.0)(a, out))?;
            result
        }
    }
}

/// `(string, string) -> string`.
struct Map2<F>(F);

impl<F: Fn(&str, &str, &mut TextSink<'_>) + Send + Sync + 'static> Body for Map2<F> {
    const TEXT: &'static [bool] = &[true, true];

    #[inline]
    unsafe fn run(
        &self,
        text: &[TextBlock],
        src: &[*const u8],
        dst: *mut u8,
        sink: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        // SAFETY: by the contract of `run`.
        unsafe {
            let (a, b) = (arg_str(text, src, 0)?, arg_str(text, src, 1)?);
            write_string(dst, sink, |out| (self.0)(a, b, out))
        }
    }
}

/// `(string, int64) -> string`.
struct MapInt<F>(F);

impl<F: Fn(&str, i64, &mut TextSink<'_>) -> Result<(), KernelError> + Send + Sync + 'static> Body
    for MapInt<F>
{
    const TEXT: &'static [bool] = &[true, false];

    #[inline]
    unsafe fn run(
        &self,
        text: &[TextBlock],
        src: &[*const u8],
        dst: *mut u8,
        sink: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        // SAFETY: by the contract of `run`: argument 1 is an `int64`.
        unsafe {
            let a = arg_str(text, src, 0)?;
            let n = (src[1] as *const i64).read_unaligned();
            let mut result = Ok(());
            write_string(dst, sink, |out| result = (self.0)(a, n, out))?;
            result
        }
    }
}

/// `(T) -> string` of an element that is not text.
struct OfElement<T, F>(F, PhantomData<fn(T)>);

impl<
        T: Element,
        F: Fn(T, &mut TextSink<'_>) -> Result<(), KernelError> + Send + Sync + 'static,
    > Body for OfElement<T, F>
{
    const TEXT: &'static [bool] = &[false];

    #[inline]
    unsafe fn run(
        &self,
        _: &[TextBlock],
        src: &[*const u8],
        dst: *mut u8,
        sink: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        // SAFETY: by the contract of `run`: argument 0 is a `T`.
        unsafe {
            let x = (src[0] as *const T).read_unaligned();
            let mut result = Ok(());
            write_string(dst, sink, |out| result = (self.0)(x, out))?;
            result
        }
    }
}

/// Reads `N` string arguments as options: those `options` marks are
/// `?string` elements, `None` where NA; the others are always `Some`.
///
/// # Safety
///
/// As [`Body::run`] for arguments `0..N`, a `?string` element (a pair,
/// then its flag) where `options` says.
#[inline(always)]
unsafe fn opt_args<'t, const N: usize>(
    options: &[bool; N],
    text: &[TextBlock],
    src: &[*const u8],
) -> Result<[Option<&'t str>; N], KernelError> {
    let mut args = [None; N];
    for (i, (arg, &option)) in args.iter_mut().zip(options).enumerate() {
        // SAFETY: by the contract: the flag follows the pair of an option.
        let valid = !option || unsafe { *src[i].add(Scalar::String.size()) } != 0;
        if valid {
            // SAFETY: by the contract.
            *arg = Some(unsafe { arg_str(text, src, i)? });
        }
    }
    Ok(args)
}

/// `N` options of strings to an `R` (`?R` where the flag says).
struct OptScalar<F, R, const N: usize>(F, [bool; N], bool, PhantomData<fn() -> R>);

impl<F, R, const N: usize> Body for OptScalar<F, R, N>
where
    F: Fn([Option<&str>; N]) -> Result<Option<R>, String> + Send + Sync + 'static,
    R: Element,
{
    const TEXT: &'static [bool] = &[true; N];

    #[inline]
    unsafe fn run(
        &self,
        text: &[TextBlock],
        src: &[*const u8],
        dst: *mut u8,
        _: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        // SAFETY: by the contract of `run`; the result is an `R`, then
        // its flag where it is an option.
        unsafe {
            let r = (self.0)(opt_args(&self.1, text, src)?).map_err(KernelError::message)?;
            let valid = r.is_some();
            if let Some(r) = r {
                (dst as *mut R).write_unaligned(r);
            } else if !self.2 {
                return Err(KernelError::message("the function gave no result (`None`)"));
            }
            if self.2 {
                *dst.add(R::SCALAR.size()) = u8::from(valid);
            }
        }
        Ok(())
    }
}

/// `N` options of strings to a string (`?string` where the flag says).
struct OptText<F, const N: usize>(F, [bool; N], bool);

impl<F, const N: usize> Body for OptText<F, N>
where
    F: Fn([Option<&str>; N], &mut TextSink<'_>) -> Result<bool, String> + Send + Sync + 'static,
{
    const TEXT: &'static [bool] = &[true; N];

    #[inline]
    unsafe fn run(
        &self,
        text: &[TextBlock],
        src: &[*const u8],
        dst: *mut u8,
        sink: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        // SAFETY: by the contract of `run`; the result is a string, then
        // its flag where it is an option.
        unsafe {
            let args = opt_args(&self.1, text, src)?;
            let mut valid = Ok(false);
            write_string(dst, sink, |out| valid = (self.0)(args, out))?;
            let valid = valid.map_err(KernelError::message)?;
            if self.2 {
                *dst.add(Scalar::String.size()) = u8::from(valid);
            } else if !valid {
                return Err(KernelError::message("the function gave no result (`None`)"));
            }
        }
        Ok(())
    }
}

/// `(string, bool) -> ?string`: the string where the flag is true, NA
/// elsewhere (the bytes copied as they are).
struct OptionOf;

impl Body for OptionOf {
    const TEXT: &'static [bool] = &[true, false];
    const UTF8_OUT: bool = false;

    #[inline]
    unsafe fn run(
        &self,
        text: &[TextBlock],
        src: &[*const u8],
        dst: *mut u8,
        sink: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        // SAFETY: by the contract of `run`: argument 1 is a `bool`, and
        // `dst` a `?string` element (a pair, then its flag).
        unsafe {
            let ok = *src[1] != 0;
            copy_string(dst, sink, if ok { arg(text, src, 0) } else { &[] })?;
            *dst.add(Scalar::String.size()) = u8::from(ok);
        }
        Ok(())
    }
}

/// `(bool, string, string) -> string`: the first string where the flag
/// is true, else the second (the bytes copied as they are).
struct Select;

impl Body for Select {
    const TEXT: &'static [bool] = &[false, true, true];
    const UTF8_OUT: bool = false;

    #[inline]
    unsafe fn run(
        &self,
        text: &[TextBlock],
        src: &[*const u8],
        dst: *mut u8,
        sink: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        // SAFETY: by the contract of `run`: argument 0 is a `bool`.
        unsafe { copy_string(dst, sink, arg(text, src, if *src[0] != 0 { 1 } else { 2 })) }
    }
}

/// `(string, string, string) -> string`.
struct Map3<F>(F);

impl<F: Fn(&str, &str, &str, &mut TextSink<'_>) + Send + Sync + 'static> Body for Map3<F> {
    const TEXT: &'static [bool] = &[true, true, true];

    #[inline]
    unsafe fn run(
        &self,
        text: &[TextBlock],
        src: &[*const u8],
        dst: *mut u8,
        sink: Option<&mut Vec<u8>>,
    ) -> Result<(), KernelError> {
        // SAFETY: by the contract of `run`.
        unsafe {
            let a = arg_str(text, src, 0)?;
            let (b, c) = (arg_str(text, src, 1)?, arg_str(text, src, 2)?);
            write_string(dst, sink, |out| (self.0)(a, b, c, out))
        }
    }
}

impl Leaf {
    /// `(bool, string, string) -> string`: NumPy's `where` of strings, the
    /// second argument where the first is true, else the third.
    pub fn text_where() -> Leaf {
        Leaf::of_text(
            Select,
            &[Scalar::Bool, Scalar::String, Scalar::String],
            Scalar::String,
        )
    }

    /// `(string, bool) -> ?string`: the string where the flag is true, NA
    /// elsewhere ([`ArrayOps::from_option_parts`](crate::ops::ArrayOps::from_option_parts)
    /// of strings).
    pub(crate) fn text_option() -> Leaf {
        let mut leaf = Leaf::of_text(OptionOf, &[Scalar::String, Scalar::Bool], Scalar::String);
        leaf.output_option = true;
        leaf
    }

    /// The leaf of a string function's `body`: arguments of `inputs`
    /// (strings where `B::TEXT` says), a result of `output`.
    fn of_text<B: Body>(body: B, inputs: &[Scalar], output: Scalar) -> Leaf {
        let body = Arc::new(body);
        let push = move |b: &mut KernelBuilder<'_>, env: &TextEnv| {
            let mut text = SmallVec::new();
            for (i, &is_text) in B::TEXT.iter().enumerate() {
                if is_text {
                    text.push(env.srcs.get(i).copied().flatten().ok_or_else(|| {
                        Error::Unsupported {
                            operation: "a string function without its argument's text",
                            ty: Type::from(Scalar::String),
                        }
                    })?);
                } else {
                    // Never read: an argument that is not text.
                    text.push(TextBlock::none());
                }
            }
            if output == Scalar::String && env.arena.is_none() {
                return Err(Error::Unsupported {
                    operation: "a string result without its text arena",
                    ty: Type::from(Scalar::String),
                });
            }
            Ok(b.push(TextKernel {
                body: body.clone(),
                text,
                arena: env.arena,
            }))
        };
        Leaf {
            inputs: inputs.iter().copied().collect(),
            options: inputs.iter().map(|_| false).collect(),
            output,
            output_option: false,
            push: Push::Text {
                push: Arc::new(push),
                view: false,
                utf8_out: B::UTF8_OUT,
            },
            flat: None,
            f64_op: None,
        }
    }

    /// `(string, string) -> R`: `f` of the two strings' bytes, which it
    /// sees as they are (no UTF-8 check): for comparisons.
    ///
    /// ```
    /// use dynd::func::{Callable, Leaf, Overload};
    /// use dynd::nd::array;
    ///
    /// let same_len = Leaf::text_bytes2(|a: &[u8], b: &[u8]| a.len() == b.len());
    /// let same_len = Callable::new("same_len", vec![Overload::new(same_len)])?;
    /// let r = same_len.call(&[&array!["ab", "c", "日"], &array!["xy"]])?;
    /// assert_eq!(r.to_string(), "[true, false, false]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn text_bytes2<R: Element>(f: impl Fn(&[u8], &[u8]) -> R + Send + Sync + 'static) -> Leaf {
        Leaf::of_text(
            Bytes2(f, PhantomData),
            &[Scalar::String, Scalar::String],
            R::SCALAR,
        )
    }

    /// `(string) -> R`: `f` of the text. Bytes that are not UTF-8 fail
    /// the call, naming the element.
    pub fn text1<R: Element>(f: impl Fn(&str) -> R + Send + Sync + 'static) -> Leaf {
        Leaf::of_text(Str1(f, PhantomData), &[Scalar::String], R::SCALAR)
    }

    /// `(string, string) -> R`: `f` of the two texts.
    pub fn text2<R: Element>(f: impl Fn(&str, &str) -> R + Send + Sync + 'static) -> Leaf {
        Leaf::of_text(
            Str2(f, PhantomData),
            &[Scalar::String, Scalar::String],
            R::SCALAR,
        )
    }

    /// `(string) -> string`: `f` writes the result's text into the sink,
    /// which appends it to the result's text block in place.
    pub fn text_map1(f: impl Fn(&str, &mut TextSink<'_>) + Send + Sync + 'static) -> Leaf {
        Leaf::of_text(Map1(f), &[Scalar::String], Scalar::String)
    }

    /// `(string) -> string`, as [`Leaf::text_map1`]; an `Err` fails the
    /// call, naming the element (a width past memory, say).
    pub fn text_map1_fallible(
        f: impl Fn(&str, &mut TextSink<'_>) -> Result<(), KernelError> + Send + Sync + 'static,
    ) -> Leaf {
        Leaf::of_text(MapFallible(f), &[Scalar::String], Scalar::String)
    }

    /// `(string, string) -> string`, as [`Leaf::text_map1`].
    pub fn text_map2(f: impl Fn(&str, &str, &mut TextSink<'_>) + Send + Sync + 'static) -> Leaf {
        Leaf::of_text(Map2(f), &[Scalar::String, Scalar::String], Scalar::String)
    }

    /// `(string, string, string) -> string`, as [`Leaf::text_map1`].
    pub fn text_map3(
        f: impl Fn(&str, &str, &str, &mut TextSink<'_>) + Send + Sync + 'static,
    ) -> Leaf {
        Leaf::of_text(Map3(f), &[Scalar::String; 3], Scalar::String)
    }

    /// `(string) -> string`, a part of each string: `f` gives the byte
    /// range of the part (on character boundaries; another range fails
    /// the call, naming the element), and the result points into the
    /// argument's characters instead of copying them (a result with text
    /// of its own already gets a copy of them).
    ///
    /// ```
    /// use dynd::func::{Callable, Leaf, Overload};
    /// use dynd::nd::{array, text::Strings};
    ///
    /// let first_word = Leaf::text_view1(|s: &str| 0..s.find(' ').unwrap_or(s.len()));
    /// let first_word = Callable::new("first_word", vec![Overload::new(first_word)])?;
    /// let x = array!["hello world", "日本 語", ""];
    /// let r = first_word.call(&[&x])?;
    /// assert_eq!(r.to_string(), r#"["hello", "日本", ""]"#);
    /// // The same characters: the result shares the input's text block.
    /// let block = |a| Strings::of(a).unwrap().text_block().as_ptr();
    /// assert_eq!(block(&r), block(&x));
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn text_view1(f: impl Fn(&str) -> std::ops::Range<usize> + Send + Sync + 'static) -> Leaf {
        Leaf::view(Arc::new(move |s: &str| Some(Part::Bytes(f(s)))), false)
    }

    /// `(string) -> ?string`, a part of each string or NA: as
    /// [`Leaf::text_view1`], `None` from `f` giving NA.
    pub fn text_view1_or_na(
        f: impl Fn(&str) -> Option<std::ops::Range<usize>> + Send + Sync + 'static,
    ) -> Leaf {
        Leaf::view(Arc::new(move |s: &str| f(s).map(Part::Bytes)), true)
    }

    /// `(string) -> string`, `f`'s result borrowed from its argument:
    /// where it is a part of the argument (as the lifetimes make it,
    /// unless it is a `&'static str`), the result points into the
    /// argument's characters; other text `f` returns is copied. What
    /// `#[elemental]` makes of a `fn(&str) -> &str`.
    ///
    /// ```
    /// use dynd::func::{Callable, Leaf, Overload};
    /// use dynd::nd::{array, text::Strings};
    ///
    /// let block = |a| Strings::of(a).unwrap().text_block().as_ptr();
    /// let host = Leaf::text_borrow1(|url: &str| url.split('/').nth(2).unwrap_or("?"));
    /// let host = Callable::new("host", vec![Overload::new(host)])?;
    /// let x = array!["https://a.org/x", "ftp://b.net", "none"];
    /// let r = host.call(&[&x])?;
    /// assert_eq!(r.to_string(), r#"["a.org", "b.net", "?"]"#);
    /// // The hosts point into the URLs' characters; "?" is copied after
    /// // them, so the result has a text block of its own.
    /// assert_ne!(block(&r), block(&x));
    /// let first = Leaf::text_borrow1(|s: &str| s.split('/').next().unwrap_or(""));
    /// let first = Callable::new("first", vec![Overload::new(first)])?;
    /// assert_eq!(block(&first.call(&[&x])?), block(&x));
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn text_borrow1(f: impl for<'a> Fn(&'a str) -> &'a str + Send + Sync + 'static) -> Leaf {
        Leaf::view(Arc::new(move |s: &str| Some(Part::Str(f(s)))), false)
    }

    /// `(string) -> ?string`, as [`Leaf::text_borrow1`], `None` from `f`
    /// giving NA.
    pub fn text_borrow1_or_na(
        f: impl for<'a> Fn(&'a str) -> Option<&'a str> + Send + Sync + 'static,
    ) -> Leaf {
        Leaf::view(Arc::new(move |s: &str| f(s).map(Part::Str)), true)
    }

    /// `N` strings (1 to 3) to an `R`, each taken as `Option<&str>`: the
    /// ones `options` marks are `?string` parameters, which see NA as
    /// `None` (the others are `string` and always `Some`; NA in them
    /// makes the result NA without calling `f`). `None` from `f` is NA
    /// where `output_option` makes the result `?R`, else an error. What
    /// `#[elemental]` makes of a fn over text with `Option`s.
    ///
    /// ```
    /// use dynd::func::{Callable, Leaf, Overload};
    /// use dynd::nd::Array;
    ///
    /// let len_or_zero = Leaf::text_opt([true], false, |[s]: [Option<&str>; 1]| {
    ///     Some(s.map_or(0, |s| s.len() as i64))
    /// });
    /// let f = Callable::new("len_or_zero", vec![Overload::new(len_or_zero)])?;
    /// let x = Array::from_json(r#"["ab", null]"#, Some(&"2 * ?string".parse()?))?;
    /// assert_eq!(f.call(&[&x])?.to_string(), "[2, 0]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn text_opt<R: Element, const N: usize>(
        options: [bool; N],
        output_option: bool,
        f: impl Fn([Option<&str>; N]) -> Option<R> + Send + Sync + 'static,
    ) -> Leaf {
        Leaf::text_try(options, output_option, move |a| Ok(f(a)))
    }

    /// As [`Leaf::text_opt`], for a function that can fail: an `Err`
    /// fails the call with its message and the element's index.
    ///
    /// ```
    /// use dynd::func::{Callable, Leaf, Overload};
    /// use dynd::nd::array;
    ///
    /// let parse = Leaf::text_try([false], false, |[s]: [Option<&str>; 1]| {
    ///     let s = s.unwrap_or_default();
    ///     s.parse::<i64>().map(Some).map_err(|e| format!("{s:?}: {e}"))
    /// });
    /// let parse = Callable::new("parse", vec![Overload::new(parse)])?;
    /// assert_eq!(parse.call(&[&array!["12", "-3"]])?.to_string(), "[12, -3]");
    /// let e = parse.call(&[&array!["1", "x"]]).unwrap_err().to_string();
    /// assert_eq!(e, r#""x": invalid digit found in string, at index [1]"#);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn text_try<R: Element, const N: usize>(
        options: [bool; N],
        output_option: bool,
        f: impl Fn([Option<&str>; N]) -> Result<Option<R>, String> + Send + Sync + 'static,
    ) -> Leaf {
        let mut leaf = Leaf::of_text(
            OptScalar(f, options, output_option, PhantomData),
            &[Scalar::String; N],
            R::SCALAR,
        );
        leaf.options = options.into_iter().collect();
        leaf.output_option = output_option;
        leaf
    }

    /// `N` strings (1 to 3) to a string, each taken as `Option<&str>` as
    /// in [`Leaf::text_opt`]: `f` writes the result into the sink and
    /// returns whether there is one (`false` is NA where `output_option`
    /// makes the result `?string`, else an error).
    pub fn text_opt_map<const N: usize>(
        options: [bool; N],
        output_option: bool,
        f: impl Fn([Option<&str>; N], &mut TextSink<'_>) -> bool + Send + Sync + 'static,
    ) -> Leaf {
        Leaf::text_try_map(options, output_option, move |a, out| Ok(f(a, out)))
    }

    /// As [`Leaf::text_opt_map`], for a function that can fail: an `Err`
    /// fails the call with its message and the element's index.
    pub fn text_try_map<const N: usize>(
        options: [bool; N],
        output_option: bool,
        f: impl Fn([Option<&str>; N], &mut TextSink<'_>) -> Result<bool, String> + Send + Sync + 'static,
    ) -> Leaf {
        let mut leaf = Leaf::of_text(
            OptText(f, options, output_option),
            &[Scalar::String; N],
            Scalar::String,
        );
        leaf.options = options.into_iter().collect();
        leaf.output_option = output_option;
        leaf
    }

    /// The leaf of a view (see [`Leaf::text_view1`]).
    fn view(f: Arc<ViewFn>, option: bool) -> Leaf {
        let push = move |b: &mut KernelBuilder<'_>, env: &TextEnv| {
            let text = env
                .srcs
                .first()
                .copied()
                .flatten()
                .ok_or_else(|| Error::Unsupported {
                    operation: "a string view without its argument's text",
                    ty: Type::from(Scalar::String),
                })?;
            Ok(b.push(ViewKernel {
                f: f.clone(),
                text,
                base: env.view_base,
                arena: env.arena,
                extra: env.view_extra,
                option,
            }))
        };
        Leaf {
            inputs: [Scalar::String].into_iter().collect(),
            options: [false].into_iter().collect(),
            output: Scalar::String,
            output_option: option,
            push: Push::Text {
                push: Arc::new(push),
                view: true,
                utf8_out: false,
            },
            flat: None,
            f64_op: None,
        }
    }

    /// `(T) -> string` for an element type `T` that is not text (a
    /// number, a time type): `f` writes the element's text into the sink;
    /// an `Err` fails the call, naming the element.
    ///
    /// ```
    /// use dynd::func::{Callable, Leaf, Overload};
    /// use dynd::nd::array;
    ///
    /// let hex = Leaf::text_of(|x: i64, out: &mut dynd::func::TextSink<'_>| {
    ///     use std::fmt::Write;
    ///     write!(out, "{x:#x}").map_err(|_| dynd::nd::KernelError::message("cannot write"))
    /// });
    /// let hex = Callable::new("hex", vec![Overload::new(hex)])?;
    /// assert_eq!(hex.call(&[&array![255, 16]])?.to_string(), r#"["0xff", "0x10"]"#);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn text_of<T: Element>(
        f: impl Fn(T, &mut TextSink<'_>) -> Result<(), KernelError> + Send + Sync + 'static,
    ) -> Leaf {
        Leaf::of_text(OfElement(f, PhantomData), &[T::SCALAR], Scalar::String)
    }

    /// `(string, int64) -> string`, as [`Leaf::text_map1`]; an `Err` fails
    /// the call, naming the element.
    pub fn text_map_int(
        f: impl Fn(&str, i64, &mut TextSink<'_>) -> Result<(), KernelError> + Send + Sync + 'static,
    ) -> Leaf {
        Leaf::of_text(MapInt(f), &[Scalar::String, Scalar::Int64], Scalar::String)
    }
}

/// Runs a string function's `leaf` over `srcs` into `this` (made unique
/// by the caller): its kernel is given the arguments' text blocks, and a
/// string result's arena, seeded with `this`'s text, becomes `this`'s
/// text block (also when the call fails halfway: the strings written
/// point into it).
pub(super) fn apply_text_into(
    this: &mut Array,
    srcs: &[&Array],
    leaf: &Leaf,
    fit: &LeafFit,
) -> Result<(), Error> {
    let view = matches!(leaf.push, Push::Text { view: true, .. });
    // The arena's text is UTF-8 when its seed is and the leaf writes
    // only through a sink.
    let arena_utf8 = matches!(leaf.push, Push::Text { utf8_out: true, .. })
        && text_block(this.arrmeta()).is_none_or(|b| b.is_utf8());
    // A view's result text is its argument's: that block itself when the
    // result has no text yet (no copy), else the two end to end.
    let mut view_text: Option<Arc<MemoryBlock>> = None;
    let mut view_base = 0;
    if view {
        let old = text_block(this.arrmeta()).filter(|b| !b.is_empty());
        let src = srcs.first().and_then(|a| text_block(a.arrmeta()));
        view_text = match (old, src) {
            (None, Some(src)) => Some(src.clone()),
            (Some(old), Some(src)) => {
                view_base = old.len() as u64;
                let mut both = Vec::new();
                both.try_reserve_exact(old.len() + src.len())
                    .map_err(|_| Error::Alloc {
                        bytes: (old.len() + src.len()) as u64,
                    })?;
                both.extend_from_slice(old.bytes());
                both.extend_from_slice(src.bytes());
                Some(MemoryBlock::from_vec(both))
            }
            (old, None) => old.cloned(),
        };
    }
    // A view's arena holds the results that are not parts of its
    // argument, to go after the argument's text.
    let view_extra = view_text.as_ref().map_or(0, |t| t.len() as u64);
    let arena = (leaf.output == Scalar::String).then(|| {
        Mutex::new(if view {
            Vec::new()
        } else {
            text_block(this.arrmeta()).map_or_else(Vec::new, |b| b.bytes().to_vec())
        })
    });
    let env = TextEnv {
        srcs: srcs
            .iter()
            .map(|a| text_block(a.arrmeta()).map(|b| TextBlock::of(b)))
            .collect(),
        // SAFETY: the arena is a `Mutex`, alive until after the kernel
        // is dropped below.
        arena: arena
            .as_ref()
            .map(|a| ArenaPtr(unsafe { Shared::new(a as *const _) })),
        view_base,
        view_extra,
    };
    let result = (|| {
        let (ty, meta) = (this.ty().clone(), this.arrmeta_arc());
        let pairs: SmallVec<[(&Type, &Arrmeta); INLINE_ARGS]> =
            srcs.iter().map(|a| (a.ty(), a.arrmeta())).collect();
        let mut builder = KernelBuilder::new();
        super::push_lifted(
            &mut Serial(&mut builder),
            (&ty, &meta),
            0,
            &pairs,
            &[],
            &mut |s| leaf.push_fitted(s.builder(), fit, Some(&env)),
        )?;
        let kernel = builder.finish()?;
        // SAFETY: built just above for this array and `srcs`, whose data
        // types `fit` checked against the leaf's; the text blocks and
        // the arena it was given outlive it.
        unsafe { run_into(this, &kernel, srcs) }
    })();
    let arena = arena.map(|a| {
        a.into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    });
    let new_text = match arena {
        // Nothing past the argument's text: the view's text is it.
        Some(extra) if view && extra.is_empty() => view_text,
        Some(extra) if view => {
            // The elements written point past the argument's text, so
            // the block is made whatever happens (as the arena grows:
            // out of memory aborts, it does not return halfway).
            let head = view_text.as_ref().map_or(&[][..], |t| t.bytes());
            let mut both = Vec::with_capacity(head.len() + extra.len());
            both.extend_from_slice(head);
            both.extend_from_slice(&extra);
            Some(MemoryBlock::from_vec(both))
        }
        Some(bytes) => {
            Some(if arena_utf8 {
                // SAFETY: the seed is UTF-8 and the kernel appended only
                // `&str`s and `char`s (through `TextSink`), whole.
                unsafe { MemoryBlock::from_utf8_vec_unchecked(bytes) }
            } else {
                MemoryBlock::from_vec(bytes)
            })
        }
        None => view_text,
    };
    if let Some(text) = new_text {
        // SAFETY: `text` is the block the strings were written for: the
        // argument's text (which views point into) followed by what the
        // kernel appended, or what it appended alone; each pair it wrote
        // counts bytes in that block as it appended them.
        let (_, _, meta) = unsafe { this.parts_mut() };
        if let Some(block) = text_block_mut(Arc::make_mut(meta)) {
            *block = text;
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arrmeta::{write_pair, PAIR_SIZE};
    use crate::elwise::apply;

    /// A `2 * string` of "a" and the bytes `ff 62`, which are not UTF-8.
    fn not_utf8() -> Array {
        let mut pairs = vec![0u8; 2 * PAIR_SIZE];
        write_pair(&mut pairs[..PAIR_SIZE], 0, 1);
        write_pair(&mut pairs[PAIR_SIZE..], 1, 2);
        let meta = Arrmeta::Fixed {
            size: 2,
            stride: PAIR_SIZE as isize,
            element: Box::new(Arrmeta::Text {
                block: MemoryBlock::from_bytes(&[b'a', 0xff, b'b']),
            }),
        };
        let ty = "2 * string".parse().unwrap();
        Array::try_from_parts(ty, Arc::new(meta), MemoryBlock::from_bytes(&pairs), 0).unwrap()
    }

    #[test]
    fn text_that_is_not_utf8_fails_naming_the_element() {
        let x = not_utf8();
        let len = Leaf::text1(|s: &str| s.len() as i64);
        let err = apply(&[&x], &len).unwrap_err().to_string();
        assert_eq!(
            err,
            "the bytes are not valid UTF-8 after byte 0, at index [1]"
        );
        let upper = Leaf::text_map1(|s, out| out.push_str(&s.to_uppercase()));
        assert!(apply(&[&x], &upper).is_err());
        // Comparisons see the bytes as they are.
        let eq = Leaf::text_bytes2(|a: &[u8], b: &[u8]| a == b);
        assert_eq!(apply(&[&x, &x], &eq).unwrap().to_string(), "[true, true]");
    }

    #[test]
    fn results_go_into_one_new_text_block() {
        let x = Array::from_json(r#"[["ab", "c"], [], ["日本"]]"#, None).unwrap();
        let twice = Leaf::text_map1(|s, out| {
            out.push_str(s);
            out.push_str(s);
        });
        let r = apply(&[&x], &twice).unwrap();
        assert_eq!(r.to_string(), r#"[["abab", "cc"], [], ["日本日本"]]"#);
        // Every result string in one block, written end to end.
        let text = text_block(r.arrmeta()).unwrap();
        assert_eq!(text.bytes(), "ababcc日本日本".as_bytes());
        // The input's text is untouched and not shared.
        let input = text_block(x.arrmeta()).unwrap();
        assert!(!Arc::ptr_eq(text, input));
        assert_eq!(x.to_string(), r#"[["ab", "c"], [], ["日本"]]"#);
    }

    #[test]
    fn borrowed_results_are_views_and_other_text_is_copied_after_them() {
        let x = Array::from_json(r#"[["a.rs", "b"], [], ["c.日本"]]"#, None).unwrap();
        let input = text_block(x.arrmeta()).unwrap().clone();
        // Every result a part of its argument: the input's block itself.
        let stem = Leaf::text_borrow1(|s: &str| s.split('.').next().unwrap_or(""));
        let r = apply(&[&x], &stem).unwrap();
        assert_eq!(r.to_string(), r#"[["a", "b"], [], ["c"]]"#);
        assert!(Arc::ptr_eq(text_block(r.arrmeta()).unwrap(), &input));
        // A `&'static str` result is copied after the input's text.
        let ext = Leaf::text_borrow1(|s: &str| s.rsplit_once('.').map_or("none", |(_, e)| e));
        let r = apply(&[&x], &ext).unwrap();
        assert_eq!(r.to_string(), r#"[["rs", "none"], [], ["日本"]]"#);
        let text = text_block(r.arrmeta()).unwrap();
        assert_eq!(&text.bytes()[..input.len()], input.bytes());
        assert_eq!(&text.bytes()[input.len()..], b"none");
        // `None` is NA.
        let ext = Leaf::text_borrow1_or_na(|s: &str| s.rsplit_once('.').map(|(_, e)| e));
        let r = apply(&[&x], &ext).unwrap();
        assert_eq!(r.to_string(), r#"[["rs", null], [], ["日本"]]"#);
        assert!(Arc::ptr_eq(text_block(r.arrmeta()).unwrap(), &input));
    }

    #[test]
    fn option_leaves_see_na_as_none() {
        let x = Array::from_json(
            r#"["ab", null, "日"]"#,
            Some(&"3 * ?string".parse().unwrap()),
        )
        .unwrap();
        let y =
            Array::from_json(r#"["x", "y", null]"#, Some(&"3 * ?string".parse().unwrap())).unwrap();
        // `a` as an option, `b` plain: NA in `b` makes the result NA.
        let f = Leaf::text_opt_map([true, false], true, |[a, b], out| {
            let Some(b) = b else { return false };
            match a {
                Some("ab") => false,
                Some(a) => {
                    out.push_str(a);
                    out.push_str(b);
                    true
                }
                None => {
                    out.push_str("-");
                    true
                }
            }
        });
        let r = apply(&[&x, &y], &f).unwrap();
        assert_eq!(r.to_string(), r#"[null, "-", null]"#);
        let n = Leaf::text_opt([true], false, |[a]| Some(a.map_or(-1, |a| a.len() as i64)));
        assert_eq!(apply(&[&x], &n).unwrap().to_string(), "[2, -1, 3]");
        // `None` where the result is not an option fails, naming the element.
        let bad = Leaf::text_opt([true], false, |[a]: [Option<&str>; 1]| {
            a.map(|a| a.len() as i64)
        });
        let err = apply(&[&x], &bad).unwrap_err().to_string();
        assert!(err.contains("no result") && err.contains("[1]"), "{err}");
    }

    #[test]
    fn comparisons_with_one_string_past_the_lookahead() {
        // More elements than `LOOKAHEAD`, strided (every other one), the
        // needle's length common: every result as a direct comparison.
        let words: Vec<String> = (0..3 * LOOKAHEAD + 7)
            .map(|i| ["ab", "ac", "日", "abc", ""][i * 7 % 5].repeat(1 + (i / 2) % 2))
            .collect();
        let json = json_array(&words);
        let x = Array::from_json(&json, None).unwrap();
        let every_other = x.index(&[crate::Index::slice(None, None, 2)]).unwrap();
        let needle = Array::from_json("\"abab\"", None).unwrap();
        let eq = Leaf::text_bytes2(|a: &[u8], b: &[u8]| a == b);
        let r = apply(&[&every_other, &needle], &eq).unwrap();
        let want: Vec<bool> = words.iter().step_by(2).map(|w| w == "abab").collect();
        assert!(want.iter().any(|&w| w));
        assert_eq!(r.to_string(), format!("{want:?}"));
    }

    /// `words` as a JSON array (they need no escapes).
    fn json_array(words: &[String]) -> String {
        let quoted: Vec<String> = words.iter().map(|w| format!("\"{w}\"")).collect();
        format!("[{}]", quoted.join(", "))
    }

    #[test]
    fn a_fused_program_refuses_a_string_function() {
        let eq = Leaf::text_bytes2(|a: &[u8], b: &[u8]| a == b);
        let x = Array::from_json(r#"["a"]"#, None).unwrap();
        let mut p = crate::fuse::Program::new();
        let s = p.leaf(&x);
        let err = p.call(&eq, &[s, s]).unwrap_err().to_string();
        assert!(err.contains("fused"), "{err}");
    }
}

#[cfg(test)]
mod utf8_tests {
    use super::*;
    use crate::arrmeta::{write_pair, PAIR_SIZE};
    use crate::elwise::apply;

    #[test]
    fn a_string_cut_inside_a_character_of_utf8_text_is_refused() {
        // The block is UTF-8 ("日本"), but the pair names bytes 1..4,
        // which start inside "日": the ends are tested, not trusted.
        let block = MemoryBlock::from_string("日本".into());
        assert!(block.is_utf8());
        let mut pairs = vec![0u8; PAIR_SIZE];
        write_pair(&mut pairs, 1, 3);
        let meta = Arrmeta::Text { block };
        let x = Array::try_from_parts(
            "string".parse().unwrap(),
            Arc::new(meta),
            MemoryBlock::from_bytes(&pairs),
            0,
        )
        .unwrap();
        let len = Leaf::text1(|s: &str| s.len() as i64);
        let err = apply(&[&x], &len).unwrap_err().to_string();
        assert!(err.contains("not valid UTF-8"), "{err}");
    }

    #[test]
    fn the_mark_is_checked_once_and_reset_by_writes() {
        let mut block = MemoryBlock::from_vec(vec![b'a', 0xff]);
        assert!(!block.is_utf8());
        let b = Arc::get_mut(&mut block).unwrap();
        b.bytes_mut()[1] = b'b';
        assert!(block.is_utf8());
        // A result written through a sink is marked at once.
        let x = Array::from_json(r#"["a", "日"]"#, None).unwrap();
        let r = apply(&[&x], &Leaf::text_map1(|s, out| out.push_str(s))).unwrap();
        assert!(text_block(r.arrmeta()).unwrap().is_utf8());
    }
}
