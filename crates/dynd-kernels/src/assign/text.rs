//! String assignment kernels: string to string, number to string
//! (formatting), string to number (parsing, then the error mode's checks).
//!
//! A string element is a (start, length) byte range of its array's text
//! block. Strings written by a kernel are appended to a per-call text arena
//! (a `Mutex<Vec<u8>>` owned by the caller, which seeds it with the
//! destination's existing text and installs it as the new text block
//! afterwards), so kernel data stays immutable while it runs.

use std::marker::PhantomData;
use std::sync::Mutex;

use dynd_types::{Encoding, Scalar, Type};

use crate::convert::{Convert, ErrorMode, Num};
use crate::error::{KernelError, KernelErrorKind};
use crate::kernel::{KernelCtx, KernelData};
use crate::loops::BlockPtr;
use crate::shared::Shared;
use crate::value::write_float;

/// A text arena pointer (the arena outlives the kernel, like the arrays).
#[derive(Clone, Copy)]
pub(crate) struct ArenaPtr(pub(crate) Shared<*const Mutex<Vec<u8>>>);

impl ArenaPtr {
    /// Appends `text` and points the string element `dst` at it.
    ///
    /// # Safety
    ///
    /// The arena is alive and `dst` is a valid string element.
    pub(crate) unsafe fn store(&self, dst: *mut u8, text: &[u8]) {
        // SAFETY: by the contract.
        unsafe {
            let start = self.append(text);
            write_text(dst, start, text.len() as u64);
        }
    }

    /// The arena, locked for a run of elements.
    ///
    /// # Safety
    ///
    /// The arena is alive for as long as the guard is held.
    pub(crate) unsafe fn lock<'g>(&self) -> std::sync::MutexGuard<'g, Vec<u8>> {
        // SAFETY: by the contract.
        let arena = unsafe { &*self.0.get() };
        arena
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Appends `bytes` and returns their start.
    ///
    /// # Safety
    ///
    /// The arena is alive.
    unsafe fn append(&self, bytes: &[u8]) -> u64 {
        // SAFETY: by the contract.
        let arena = unsafe { &*self.0.get() };
        let mut v = arena
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        let start = v.len() as u64;
        v.extend_from_slice(bytes);
        start
    }
}

/// # Safety
///
/// `elem` is a valid string element of a text block starting at `base`.
pub(crate) unsafe fn read_text<'t>(base: BlockPtr, elem: *const u8) -> &'t [u8] {
    // SAFETY: by the contract: the pair lies in the element, the range in the block.
    unsafe {
        let p = elem as *const u64;
        let (start, len) = (p.read_unaligned(), p.add(1).read_unaligned());
        std::slice::from_raw_parts(base.get().add(start as usize), len as usize)
    }
}

/// # Safety
///
/// `dst` is a valid string element.
unsafe fn write_text(dst: *mut u8, start: u64, len: u64) {
    // SAFETY: by the contract: a string element is two u64s.
    unsafe {
        let p = dst as *mut u64;
        p.write_unaligned(start);
        p.add(1).write_unaligned(len);
    }
}

/// `string <- string`.
pub(crate) struct StringToString {
    pub(crate) src_text: BlockPtr,
    pub(crate) arena: ArenaPtr,
}

impl KernelData for StringToString {
    unsafe fn single(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: string elements of the kernel's arrays; the arena lives as long.
        unsafe {
            let text = read_text(self.src_text, src[0]);
            self.arena.store(dst, text);
        }
        Ok(())
    }

    fn describe(&self) -> String {
        "assign string <- string".into()
    }
}

/// `string <- number`: the shortest text that reads back as the value.
pub(crate) struct NumberToString<S> {
    pub(crate) arena: ArenaPtr,
    pub(crate) _src: PhantomData<fn(S)>,
}

fn format_num(n: Num) -> String {
    let mut s = String::new();
    let _ = match n {
        Num::Float(x) => write_float(&mut s, x),
        Num::Complex(re, im) => {
            let _ = write_float(&mut s, re);
            s.push(if im.is_sign_negative() { '-' } else { '+' });
            let r = write_float(&mut s, im.abs());
            s.push('j');
            r
        }
        n => {
            s = n.to_string();
            Ok(())
        }
    };
    s
}

impl<S: Convert> KernelData for NumberToString<S> {
    unsafe fn single(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: `src[0]` holds an `S`, `dst` is a string element; the arena lives.
        unsafe {
            let text = format_num((src[0] as *const S).read_unaligned().to_num());
            self.arena.store(dst, text.as_bytes());
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!("assign string <- {} (format)", S::SCALAR)
    }
}

/// Parses text as a number: integers exactly, floats (with `nan`, `inf`,
/// `NaN`, `Infinity`), `true`/`false`, complex as `re+imj`.
fn parse_num(text: &str) -> Option<Num> {
    let t = text.trim();
    match t {
        "true" | "True" => return Some(Num::Bool(true)),
        "false" | "False" => return Some(Num::Bool(false)),
        _ => {}
    }
    if let Ok(i) = t.parse::<i128>() {
        return Some(Num::Int(i));
    }
    if let Ok(u) = t.parse::<u128>() {
        return Some(Num::UInt(u));
    }
    let float = |s: &str| -> Option<f64> {
        match s {
            "NaN" | "nan" => Some(f64::NAN),
            "Infinity" | "inf" | "+Infinity" | "+inf" => Some(f64::INFINITY),
            "-Infinity" | "-inf" => Some(f64::NEG_INFINITY),
            s => s.parse::<f64>().ok(),
        }
    };
    if let Some(x) = float(t) {
        return Some(Num::Float(x));
    }
    let body = t.strip_suffix(['j', 'i'])?;
    let split = body
        .char_indices()
        .skip(1)
        .filter(|(i, c)| (*c == '+' || *c == '-') && !body[..*i].ends_with(['e', 'E']))
        .map(|(i, _)| i)
        .last()?;
    Some(Num::Complex(float(&body[..split])?, float(&body[split..])?))
}

/// `number <- string`: parse, then convert under the error mode.
pub(crate) struct StringToNumber<D> {
    pub(crate) src_text: BlockPtr,
    pub(crate) mode: ErrorMode,
    pub(crate) _dst: PhantomData<fn() -> D>,
}

impl<D: Convert> KernelData for StringToNumber<D> {
    unsafe fn single(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: `src[0]` is a string element of the source text block; `dst` holds a `D`.
        let bytes = unsafe { read_text(self.src_text, src[0]) };
        let text = String::from_utf8_lossy(bytes);
        let parse_error = || {
            KernelError::new(KernelErrorKind::Parse {
                text: crate::error::excerpt(&text).into_owned(),
                dst: Type::from(D::SCALAR),
            })
        };
        let n = parse_num(&text).ok_or_else(parse_error)?;
        let v = D::from_num(n, self.mode).map_err(|fail| {
            crate::convert::fail_error(
                fail,
                crate::error::excerpt(text.trim()).into_owned(),
                Scalar::String,
                D::SCALAR,
                self.mode,
            )
        })?;
        // SAFETY: `dst` holds a `D` by the contract.
        unsafe { (dst as *mut D).write_unaligned(v) };
        Ok(())
    }

    fn describe(&self) -> String {
        format!("assign {} <- string (parse, {})", D::SCALAR, self.mode)
    }
}

/// `fixed_string <- string` and `fixed_string <- fixed_string`.
pub(crate) struct ToFixed {
    /// The source: a string's text block, or a fixed string's encoding and size.
    pub(crate) src: FixedSrc,
    pub(crate) dst_size: usize,
    pub(crate) dst_enc: Encoding,
    pub(crate) dst_type: Type,
    /// `nocheck`: truncate and replace instead of failing.
    pub(crate) truncate: bool,
}

/// Where a [`ToFixed`] or [`FixedToString`] reads text.
pub(crate) enum FixedSrc {
    Text(BlockPtr),
    Fixed { size: usize, enc: Encoding },
}

impl FixedSrc {
    /// # Safety
    ///
    /// `elem` is a valid element of the source.
    unsafe fn read(&self, elem: *const u8) -> String {
        match self {
            FixedSrc::Text(base) => {
                // SAFETY: a string element of this text block, by the contract.
                let bytes = unsafe { read_text(*base, elem) };
                String::from_utf8_lossy(bytes).into_owned()
            }
            FixedSrc::Fixed { size, enc } => {
                // SAFETY: `size` code units of `enc`, by the contract.
                let bytes = unsafe { std::slice::from_raw_parts(elem, size * enc.unit_size()) };
                crate::fixed_string::decode(bytes, *enc)
            }
        }
    }
}

impl KernelData for ToFixed {
    unsafe fn single(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: a valid source element, by the contract.
        let text = unsafe { self.src.read(src[0]) };
        let len = self.dst_size * self.dst_enc.unit_size();
        let mut buf: smallvec::SmallVec<[u8; 64]> = smallvec::smallvec![0; len];
        crate::fixed_string::encode(&text, self.dst_enc, self.dst_size, &mut buf, self.truncate)
            .map_err(|e| {
                KernelError::new(KernelErrorKind::DoesNotFit {
                    text: text.clone(),
                    dst: self.dst_type.clone(),
                    reason: e.to_string(),
                })
            })?;
        // SAFETY: the destination element is `len` bytes, by the contract.
        unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), dst, len) };
        Ok(())
    }

    fn describe(&self) -> String {
        format!("assign {} <- text", self.dst_type)
    }
}

/// `string <- fixed_string`.
pub(crate) struct FixedToString {
    pub(crate) src: FixedSrc,
    pub(crate) arena: ArenaPtr,
}

impl KernelData for FixedToString {
    unsafe fn single(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: a valid source element and string destination; the arena lives.
        unsafe {
            let text = self.src.read(src[0]);
            self.arena.store(dst, text.as_bytes());
        }
        Ok(())
    }

    fn describe(&self) -> String {
        "assign string <- fixed_string".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_parse_and_format() {
        assert_eq!(parse_num(" 42 "), Some(Num::Int(42)));
        assert_eq!(parse_num("-1.5e3"), Some(Num::Float(-1500.0)));
        assert_eq!(parse_num("true"), Some(Num::Bool(true)));
        assert_eq!(parse_num("1+2j"), Some(Num::Complex(1.0, 2.0)));
        assert_eq!(parse_num("1e-3-2.5j"), Some(Num::Complex(0.001, -2.5)));
        assert!(matches!(parse_num("nan"), Some(Num::Float(x)) if x.is_nan()));
        assert_eq!(parse_num("-inf"), Some(Num::Float(f64::NEG_INFINITY)));
        assert_eq!(parse_num("abc"), None);
        assert_eq!(parse_num(""), None);
        assert_eq!(format_num(Num::Complex(1.0, -2.0)), "1-2j");
        assert_eq!(format_num(Num::Float(f64::INFINITY)), "Infinity");
        assert_eq!(format_num(Num::Int(-3)), "-3");
    }
}
