//! Leaf assignment kernels: one numeric scalar to another, and options.

use std::marker::PhantomData;

use dynd_types::{Scalar, Type};

use crate::convert::is_na_text;
use crate::convert::{is_lossless, Convert, ErrorMode};
use crate::error::{KernelError, KernelErrorKind};
use crate::kernel::{Child, KernelBuilder, KernelCtx, KernelData};
use crate::with_numeric;

/// Converts `S` elements to `D` elements.
pub(crate) struct ScalarAssign<S, D> {
    /// The error mode; `NoCheck` also when the conversion is lossless.
    mode: ErrorMode,
    _types: PhantomData<fn(S) -> D>,
}

impl<S: Convert, D: Convert> ScalarAssign<S, D> {
    #[inline(always)]
    fn one(&self, s: S) -> Result<D, KernelError> {
        D::from_num(s.to_num(), self.mode).map_err(|fail| {
            crate::convert::fail_error(
                fail,
                s.to_num().to_string(),
                S::SCALAR,
                D::SCALAR,
                self.mode,
            )
        })
    }

    /// The unchecked conversion, for loops the compiler can vectorise.
    #[inline(always)]
    fn nocheck(s: S) -> D {
        match D::from_num(s.to_num(), ErrorMode::NoCheck) {
            Ok(d) => d,
            Err(_) => unreachable!("nocheck conversions cannot fail"),
        }
    }
}

/// Copies `src` to `dst` (same length) in 64-byte pieces.
#[inline]
fn copy_bytes(dst: &mut [u8], src: &[u8]) {
    let mut d = dst.chunks_exact_mut(64);
    let mut s = src.chunks_exact(64);
    for (d, s) in (&mut d).zip(&mut s) {
        d.copy_from_slice(s);
    }
    d.into_remainder().copy_from_slice(s.remainder());
}

impl<S: Convert, D: Convert> KernelData for ScalarAssign<S, D> {
    unsafe fn single(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: by the kernel contract `src[0]` holds an `S` and `dst` has
        // room for a `D`; unaligned access because array data need not be aligned.
        unsafe {
            let s = (src[0] as *const S).read_unaligned();
            (dst as *mut D).write_unaligned(self.one(s)?);
        }
        Ok(())
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
        let (s, ss) = (src[0], src_stride[0]);
        let (dsize, ssize) = (size_of::<D>() as isize, size_of::<S>() as isize);
        if self.mode == ErrorMode::NoCheck {
            if dst_stride == dsize && ss == ssize && S::SCALAR == D::SCALAR {
                // Contiguous copy of the same type: bytes, in 64-byte pieces
                // that compile to vector moves (a memcpy call is slower here
                // for large copies).
                let len = count * dsize as usize;
                // SAFETY: `count` contiguous elements on each side, valid by
                // the contract (u8 needs no alignment); the destination and
                // the source do not overlap, and nothing else refers to the
                // destination while the kernel runs.
                let (d, s) = unsafe {
                    (
                        std::slice::from_raw_parts_mut(dst, len),
                        std::slice::from_raw_parts(s, len),
                    )
                };
                copy_bytes(d, s);
            } else if dst_stride == dsize && ss == ssize {
                // Contiguous: a loop over unit strides that the compiler vectorises.
                let (d, s) = (dst as *mut D, s as *const S);
                for i in 0..count {
                    // SAFETY: elements `0..count` are valid by the contract.
                    unsafe {
                        d.add(i)
                            .write_unaligned(Self::nocheck(s.add(i).read_unaligned()))
                    };
                }
            } else if ss == 0 {
                // A broadcast source: convert once, store many times.
                // SAFETY: the source element is valid by the contract.
                let v = Self::nocheck(unsafe { (s as *const S).read_unaligned() });
                if dst_stride == dsize {
                    let d = dst as *mut D;
                    for i in 0..count {
                        // SAFETY: destination elements `0..count` are valid and contiguous.
                        unsafe { d.add(i).write_unaligned(v) };
                    }
                    return Ok(());
                }
                for i in 0..count as isize {
                    // SAFETY: destination elements `0..count` are valid.
                    unsafe { (dst.offset(i * dst_stride) as *mut D).write_unaligned(v) };
                }
            } else {
                for i in 0..count as isize {
                    // SAFETY: elements `0..count` are valid by the contract.
                    unsafe {
                        let v = Self::nocheck((s.offset(i * ss) as *const S).read_unaligned());
                        (dst.offset(i * dst_stride) as *mut D).write_unaligned(v);
                    }
                }
            }
            return Ok(());
        }
        for i in 0..count as isize {
            // SAFETY: elements `0..count` are valid by the contract.
            unsafe {
                let v = (s.offset(i * ss) as *const S).read_unaligned();
                let d = self.one(v).map_err(|e| e.at(i as usize))?;
                (dst.offset(i * dst_stride) as *mut D).write_unaligned(d);
            }
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!("assign {} <- {} ({})", D::SCALAR, S::SCALAR, self.mode)
    }
}

/// Pushes the kernel assigning numeric `src` to numeric `dst`. Returns
/// `None` if either is not numeric.
pub(crate) fn push_scalar(
    b: &mut KernelBuilder<'_>,
    dst: Scalar,
    src: Scalar,
    mode: ErrorMode,
) -> Option<Child> {
    let mode = if is_lossless(src, dst) {
        ErrorMode::NoCheck
    } else {
        mode
    };
    with_numeric!(src, S => with_numeric!(dst, D => Some(b.push(ScalarAssign::<S, D> {
        mode,
        _types: PhantomData,
    })), None), None)
}

/// `?T <- ?S`, `?T <- S` and `T <- ?S`: the validity flag sits right after
/// the value.
pub(crate) struct OptionAssign {
    /// Offset of the flag in the source element, if the source is an option.
    pub(crate) src_flag: Option<usize>,
    /// Offset of the flag in the destination element, if it is an option.
    pub(crate) dst_flag: Option<usize>,
    pub(crate) dst_type: Type,
    pub(crate) child: Child,
    /// For a `string` source into an option of a non-string type: the
    /// source's text block, so that `"NA"`, `"null"` and `""` give NA.
    pub(crate) na_text: Option<crate::loops::BlockPtr>,
}

impl KernelData for OptionAssign {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        // SAFETY: flags are bytes inside the elements (the type layouts put
        // them at these offsets); with `na_text`, `src[0]` is a string
        // element of that text block; the child gets the same valid pointers.
        unsafe {
            let valid = self.src_flag.is_none_or(|f| *src[0].add(f) != 0)
                && self
                    .na_text
                    .is_none_or(|base| !is_na_text(super::text::read_text(base, src[0])));
            match (valid, self.dst_flag) {
                (false, Some(f)) => *dst.add(f) = 0,
                (false, None) => {
                    return Err(KernelError::new(KernelErrorKind::NotAvailable {
                        dst: self.dst_type.clone(),
                    }))
                }
                (true, flag) => {
                    ctx.child(self.child).single(dst, src)?;
                    if let Some(f) = flag {
                        *dst.add(f) = 1;
                    }
                }
            }
        }
        Ok(())
    }

    fn describe(&self) -> String {
        match (self.src_flag, self.dst_flag) {
            (Some(_), Some(_)) => "option <- option".into(),
            (None, _) => "option <- value".into(),
            (Some(_), None) => format!("{} <- option (NA is an error)", self.dst_type),
        }
    }

    fn children(&self) -> smallvec::SmallVec<[Child; 2]> {
        smallvec::smallvec![self.child]
    }
}

/// One field of a [`FieldsAssign`].
pub(crate) struct FieldPart {
    pub(crate) dst_offset: usize,
    pub(crate) src_offset: usize,
    pub(crate) name: String,
    pub(crate) child: Child,
}

/// Tuple and struct assignment, field by field.
pub(crate) struct FieldsAssign {
    pub(crate) parts: smallvec::SmallVec<[FieldPart; 4]>,
}

impl KernelData for FieldsAssign {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        for p in &self.parts {
            // SAFETY: the fields lie inside the elements at these offsets (the
            // types' layouts), so their pointers are valid by the contract.
            unsafe {
                ctx.child(p.child)
                    .single(dst.add(p.dst_offset), &[src[0].add(p.src_offset)])
            }
            .map_err(|e| {
                KernelError::new(KernelErrorKind::InField {
                    field: p.name.clone(),
                    error: Box::new(e),
                })
            })?;
        }
        Ok(())
    }

    fn describe(&self) -> String {
        let names: Vec<&str> = self.parts.iter().map(|p| p.name.as_str()).collect();
        format!("fields [{}]", names.join(", "))
    }

    fn children(&self) -> smallvec::SmallVec<[Child; 2]> {
        self.parts.iter().map(|p| p.child).collect()
    }
}
