//! Assignment kernels: copy and convert values between arrays, with
//! broadcasting of the source to the destination (never the reverse).
//!
//! Fixed dimensions become one strided-loop record whose loops are
//! coalesced where memory allows and ordered by the destination's strides
//! (so a C-contiguous 3-d copy is a single loop, and F-order data is walked
//! in memory order); `var` dimensions check each row's length at run time
//! (it must match, or be 1 and broadcast); the leaf converts one scalar type
//! to another under an [`ErrorMode`].
//!
//! ```
//! use dynd::nd::{array, Array, ArrayOps, ErrorMode};
//!
//! let mut dst = Array::zeros(&"2 * 3 * float32".parse()?)?;
//! dst.assign(&array![[1], [2, 3, 4]], ErrorMode::Fractional)?; // var -> fixed, row 0 broadcasts
//! assert_eq!(dst.to_string(), "[[1, 1, 1], [2, 3, 4]]");
//!
//! let err = dst.assign(&array![[1, 2], [3]], ErrorMode::Fractional).unwrap_err();
//! assert_eq!(err.to_string(), "a ragged row of length 2 cannot broadcast to length 3, at index [0]");
//! # Ok::<(), dynd::Error>(())
//! ```

pub(crate) mod scalar;
pub(crate) mod text;
pub(crate) mod time;

use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use dynd_types::{Dim, Type, TypeKind};
use smallvec::SmallVec;

pub use dynd_array::convert::{self, is_lossless, ErrorMode};
use scalar::{push_scalar, OptionAssign};
use text::{
    ArenaPtr, FixedSrc, FixedToString, NumberToString, StringToNumber, StringToString, ToFixed,
};

use crate::array::Array;
use crate::arrmeta::levels;
use crate::arrmeta::Arrmeta;
use crate::error::Error;
use crate::kernel::{Child, Kernel, KernelBuilder};
use crate::loops::{push_dims, Aligned, BlockPtr, Builds, Operands};
use crate::memory::MemoryBlock;
use crate::shared::Shared;
use crate::value::Value;
use crate::with_numeric;

struct Plan<'a, 'b> {
    b: &'b mut KernelBuilder<'a>,
    dst_ty: &'b Type,
    src_ty: &'b Type,
    mode: ErrorMode,
    /// Where new destination strings go.
    arena: Option<ArenaPtr>,
    /// How many string leaves write into the arena (one text block only).
    text_leaves: usize,
}

impl<'a> Builds<'a> for Plan<'a, '_> {
    fn builder(&mut self) -> &mut KernelBuilder<'a> {
        self.b
    }

    /// String leaves append to one arena: they run on one thread.
    fn parallel(&self) -> bool {
        self.text_leaves == 0
    }
}

impl<'a> Plan<'a, '_> {
    fn leaf(
        &mut self,
        dst: &'a Type,
        dst_meta: &'a Arrmeta,
        src: &'a Type,
        src_meta: &'a Arrmeta,
    ) -> Result<Child, Error> {
        let unsupported = || Error::Unsupported {
            operation: "assignment",
            ty: if dst.as_scalar().is_some() {
                src.clone()
            } else {
                dst.clone()
            },
        };
        fn inner(m: &Arrmeta) -> &Arrmeta {
            match m {
                Arrmeta::Option(i) => i,
                m => m,
            }
        }
        let text_base = |m: &Arrmeta| match m {
            // SAFETY: the pointee is a memory block's bytes, which the arrays the kernel is built from keep alive for its lifetime and which are immutable while shared (writes go through the destination, which the kernel owns for the call).
            Arrmeta::Text { block } => Some(unsafe { BlockPtr::new(block.as_ptr()) }),
            _ => None,
        };
        use dynd_types::Scalar::String as Str;
        if let Some(c) = self.fixed_string_leaf(dst, src, src_meta)? {
            return Ok(c);
        }
        let arena = match time::writes_text(dst, src) {
            true => Some(self.text_arena()?),
            false => None,
        };
        if let Some(c) = time::time_leaf(self.b, dst, src, text_base(src_meta), arena, self.mode) {
            return c;
        }
        match (dst.kind(), src.kind()) {
            (
                TypeKind::Scalar(dynd_types::Scalar::Bytes),
                TypeKind::Scalar(dynd_types::Scalar::Bytes),
            ) => {
                let arena = self.text_arena()?;
                let src_text = text_base(src_meta).ok_or_else(unsupported)?;
                Ok(self.b.push(StringToString { src_text, arena }))
            }
            (TypeKind::Scalar(Str), TypeKind::Scalar(s)) => {
                let arena = self.text_arena()?;
                if *s == Str {
                    let src_text = text_base(src_meta).ok_or_else(unsupported)?;
                    return Ok(self.b.push(StringToString { src_text, arena }));
                }
                let b = &mut *self.b;
                with_numeric!(*s, S => Ok(b.push(NumberToString::<S> { arena, _src: PhantomData })), Err(unsupported()))
            }
            (TypeKind::Scalar(d), TypeKind::Scalar(Str)) => {
                let src_text = text_base(src_meta).ok_or_else(unsupported)?;
                let (b, mode) = (&mut *self.b, self.mode);
                with_numeric!(*d, D => Ok(b.push(StringToNumber::<D> { src_text, mode, _dst: PhantomData })), Err(unsupported()))
            }
            (TypeKind::Scalar(d), TypeKind::Scalar(s)) => {
                push_scalar(self.b, *d, *s, self.mode).ok_or_else(unsupported)
            }
            (TypeKind::Option(d), TypeKind::Option(s)) => {
                let child = self.leaf(d, inner(dst_meta), s, inner(src_meta))?;
                Ok(self.b.push(OptionAssign {
                    src_flag: Some(s.data_layout()?.size),
                    dst_flag: Some(d.data_layout()?.size),
                    dst_type: dst.clone(),
                    child,
                    na_text: None,
                }))
            }
            (TypeKind::Option(d), _) => {
                let child = self.leaf(d, inner(dst_meta), src, src_meta)?;
                // Text parsed into an option: "NA", "null" and "" are NA
                // (a string option keeps them as strings).
                let na_text = match (src.as_scalar(), d.as_scalar()) {
                    (Some(Str), inner) if inner != Some(Str) => text_base(src_meta),
                    _ => None,
                };
                Ok(self.b.push(OptionAssign {
                    src_flag: None,
                    dst_flag: Some(d.data_layout()?.size),
                    dst_type: dst.clone(),
                    child,
                    na_text,
                }))
            }
            (_, TypeKind::Option(s)) => {
                let child = self.leaf(dst, dst_meta, s, inner(src_meta))?;
                Ok(self.b.push(OptionAssign {
                    src_flag: Some(s.data_layout()?.size),
                    dst_flag: None,
                    dst_type: dst.clone(),
                    child,
                    na_text: None,
                }))
            }
            (
                TypeKind::Tuple(_) | TypeKind::Struct(_),
                TypeKind::Tuple(_) | TypeKind::Struct(_),
            ) => self.fields(dst, dst_meta, src, src_meta),
            _ => Err(unsupported()),
        }
    }

    /// The text arena, for one string leaf per assignment.
    fn text_arena(&mut self) -> Result<ArenaPtr, Error> {
        let arena = self.arena.ok_or_else(|| Error::Unsupported {
            operation: "assignment to strings outside Array::assign",
            ty: self.dst_ty.clone(),
        })?;
        self.text_leaves += 1;
        if self.text_leaves > 1 {
            return Err(Error::Unsupported {
                operation: "assigning several string fields at once",
                ty: self.dst_ty.clone(),
            });
        }
        Ok(arena)
    }

    /// Kernels to or from `fixed_string`, if either side is one.
    fn fixed_string_leaf(
        &mut self,
        dst: &'a Type,
        src: &'a Type,
        src_meta: &'a Arrmeta,
    ) -> Result<Option<Child>, Error> {
        let src_side = match (src.kind(), src_meta) {
            (TypeKind::FixedString { size, encoding }, _) => Some(FixedSrc::Fixed {
                size: *size,
                enc: *encoding,
            }),
            (TypeKind::Scalar(dynd_types::Scalar::String), Arrmeta::Text { block }) => {
                // SAFETY: the pointee is a memory block's bytes, which the arrays the kernel is built from keep alive for its lifetime and which are immutable while shared (writes go through the destination, which the kernel owns for the call).
                Some(FixedSrc::Text(unsafe { BlockPtr::new(block.as_ptr()) }))
            }
            _ => None,
        };
        let Some(src_side) = src_side else {
            return Ok(None);
        };
        match dst.kind() {
            TypeKind::FixedString { size, encoding } => Ok(Some(self.b.push(ToFixed {
                src: src_side,
                dst_size: *size,
                dst_enc: *encoding,
                dst_type: dst.clone(),
                truncate: self.mode == ErrorMode::NoCheck,
            }))),
            TypeKind::Scalar(dynd_types::Scalar::String)
                if matches!(src_side, FixedSrc::Fixed { .. }) =>
            {
                let arena = self.text_arena()?;
                Ok(Some(self.b.push(FixedToString {
                    src: src_side,
                    arena,
                })))
            }
            _ => Ok(None),
        }
    }

    /// Field-by-field assignment: structs by name, tuples by position.
    fn fields(
        &mut self,
        dst: &'a Type,
        dst_meta: &'a Arrmeta,
        src: &'a Type,
        src_meta: &'a Arrmeta,
    ) -> Result<Child, Error> {
        let (
            Arrmeta::Fields {
                offsets: dst_offsets,
                fields: dst_metas,
            },
            Arrmeta::Fields {
                offsets: src_offsets,
                fields: src_metas,
            },
        ) = (dst_meta, src_meta)
        else {
            unreachable!("tuple and struct arrmeta are Fields")
        };
        let fields_of = |t: &'a Type| -> Vec<(Option<&'a str>, &'a Type)> {
            match t.kind() {
                TypeKind::Struct(s) => s.fields.iter().map(|(n, t)| (Some(&**n), t)).collect(),
                TypeKind::Tuple(tu) => tu.fields.iter().map(|t| (None, t)).collect(),
                _ => Vec::new(),
            }
        };
        let (dst_fields, src_fields) = (fields_of(dst), fields_of(src));
        let mismatch = |missing: Option<(&'static str, &str)>| Error::FieldAssign {
            src: src.clone(),
            dst: dst.clone(),
            missing: missing.map(|(side, field)| (side, field.into())),
            counts: (dst_fields.len(), src_fields.len()),
        };
        let pairs: Vec<(usize, usize)> = match (dst.kind(), src.kind()) {
            (TypeKind::Struct(_), TypeKind::Struct(_)) => {
                if let Some((n, _)) = src_fields
                    .iter()
                    .find(|(n, _)| !dst_fields.iter().any(|(m, _)| m == n))
                {
                    return Err(mismatch(Some(("destination", n.unwrap_or("")))));
                }
                dst_fields
                    .iter()
                    .enumerate()
                    .map(|(di, (n, _))| {
                        src_fields
                            .iter()
                            .position(|(m, _)| m == n)
                            .map(|si| (di, si))
                            .ok_or_else(|| mismatch(Some(("source", n.unwrap_or("")))))
                    })
                    .collect::<Result<_, _>>()?
            }
            _ if dst_fields.len() == src_fields.len() => {
                (0..dst_fields.len()).map(|i| (i, i)).collect()
            }
            _ => return Err(mismatch(None)),
        };
        let mut parts = SmallVec::new();
        for (di, si) in pairs {
            let child = self.element(
                dst_fields[di].1,
                &dst_metas[di],
                src_fields[si].1,
                &src_metas[si],
            )?;
            let name = dst_fields[di]
                .0
                .map_or_else(|| di.to_string(), str::to_string);
            parts.push(scalar::FieldPart {
                dst_offset: dst_offsets[di],
                src_offset: src_offsets[si],
                name,
                child,
            });
        }
        Ok(self.b.push(scalar::FieldsAssign { parts }))
    }

    /// The kernel for one element of `dst` from one of `src`, each with
    /// its dimensions; the source's dimensions broadcast to the destination's.
    fn element(
        &mut self,
        dst_ty: &'a Type,
        dst_meta: &'a Arrmeta,
        src_ty: &'a Type,
        src_meta: &'a Arrmeta,
    ) -> Result<Child, Error> {
        let (dst_levels, dst_dtype, dst_leaf) = levels(dst_ty, dst_meta);
        let (src_levels, src_dtype, src_leaf) = levels(src_ty, src_meta);
        let (nd, ns) = (dst_levels.len(), src_levels.len());
        // Extra leading source dimensions may only be of size 1.
        let extra = ns.saturating_sub(nd);
        for l in &src_levels[..extra] {
            if l.1.as_fixed().map(|f| f.0) != Some(1) {
                return Err(Error::AssignBroadcast {
                    axis: 0,
                    dims: Box::new((l.0.clone(), None)),
                    src: src_ty.clone(),
                    dst: dst_ty.clone(),
                });
            }
        }
        let src_levels = &src_levels[extra..];
        let aligned: [Aligned<'a>; 1] = [(0..nd)
            .map(|i| {
                (i + src_levels.len())
                    .checked_sub(nd)
                    .map(|j| src_levels[j])
            })
            .collect()];
        let dst_levels: SmallVec<[(&'a Dim, &'a Arrmeta); 8]> =
            dst_levels.iter().copied().collect();
        // Errors name the whole types being assigned.
        let (whole_dst, whole_src) = (self.dst_ty, self.src_ty);
        let ops = Operands {
            dst_ty: whole_dst,
            dst: &dst_levels,
            src_ty: &[whole_src],
            src: &aligned,
            elem: &[src_dtype.data_layout().map_or(0, |l| l.size)],
        };
        push_dims(self, &ops, 0, &mut |p: &mut Plan<'a, '_>| {
            p.leaf(dst_dtype, dst_leaf, src_dtype, src_leaf)
        })
    }
}

/// Builds the kernel that assigns an element of `src` (type and arrmeta) to
/// an element of `dst`, broadcasting the source.
///
/// # Errors
///
/// [`Error::Broadcast`] if a source dimension does not broadcast to the
/// destination's, [`Error::Unsupported`] for element types without an
/// assignment kernel yet (strings, tuples, structs).
pub fn assignment_kernel<'a>(
    dst_ty: &'a Type,
    dst_meta: &'a Arrmeta,
    src_ty: &'a Type,
    src_meta: &'a Arrmeta,
    mode: ErrorMode,
) -> Result<Kernel<'a>, Error> {
    kernel_with_arena(dst_ty, dst_meta, src_ty, src_meta, mode, None)
}

/// Pushes the kernel that converts one element of data type `src` to
/// data type `dst` (no dimensions, no arrmeta: numbers, `bool` and their
/// options) into `b`, for a fused expression's cast steps.
///
/// # Errors
///
/// [`Error::Unsupported`] for data types without such a kernel.
pub(crate) fn push_element_assign<'a>(
    b: &mut KernelBuilder<'a>,
    dst: &'a Type,
    src: &'a Type,
    mode: ErrorMode,
) -> Result<crate::kernel::Child, Error> {
    static SCALAR: Arrmeta = Arrmeta::Scalar;
    let mut plan = Plan {
        b,
        dst_ty: dst,
        src_ty: src,
        mode,
        arena: None,
        text_leaves: 0,
    };
    plan.element(dst, &SCALAR, src, &SCALAR)
}

/// As [`assignment_kernel`], with an arena for the strings it writes.
fn kernel_with_arena<'a>(
    dst_ty: &'a Type,
    dst_meta: &'a Arrmeta,
    src_ty: &'a Type,
    src_meta: &'a Arrmeta,
    mode: ErrorMode,
    arena: Option<&'a Mutex<Vec<u8>>>,
) -> Result<Kernel<'a>, Error> {
    let mut b = KernelBuilder::new();
    let mut plan = Plan {
        b: &mut b,
        dst_ty,
        src_ty,
        mode,
        // SAFETY: the arena is a `Mutex`, which threads may share, and the
        // caller keeps it alive for the kernel's lifetime.
        arena: arena.map(|a| ArenaPtr(unsafe { Shared::new(a as *const _) })),
        text_leaves: 0,
    };
    plan.element(dst_ty, dst_meta, src_ty, src_meta)?;
    Ok(b.finish()?)
}

/// Makes this array the only owner of its memory (copying what is
/// shared, and `var` values in read-only blocks), so it may be written,
/// with each element its own storage: an array whose elements share
/// memory (rows that overlap, a row repeated by `take`) is replaced by
/// a compact copy of its values first (see [`crate::overlap`]).
///
/// # Errors
///
/// [`Error::ReadOnly`] if the array's own data block is read-only; an
/// allocation error for a copy.
pub(crate) fn make_unique(this: &mut Array) -> Result<(), Error> {
    if this.is_readonly() {
        return Err(Error::ReadOnly);
    }
    make_owned(this)
}

/// [`make_unique`] for an array that may be read-only: a block this
/// handle may not write is copied as a shared one is (for a function
/// that returns a changed copy of its input; [`make_unique`] refuses
/// read-only arrays, whose writes would be lost on the caller's view).
pub(crate) fn make_owned(this: &mut Array) -> Result<(), Error> {
    if plain_fixed(this.arrmeta()) {
        // Fixed dimensions, none repeating an element, over a plain
        // element (the common case, on every small call into an array):
        // nothing overlaps and there is no `var` block, so only the data
        // block may need its own copy. The general steps below decide
        // the same, with more walks. Whether the block is the array's own
        // is read with plain loads (`&mut` to the array: no reference can
        // appear meanwhile), not `Arc::get_mut`'s compare-and-swap.
        if this.owned_data_ptr().is_none() {
            // SAFETY: the block is replaced by a copy of its own bytes.
            let (_, data, _) = unsafe { this.parts_mut() };
            *data = MemoryBlock::try_from_bytes(data.bytes())?;
        }
        return Ok(());
    }
    if crate::overlap::overlaps(this)? {
        // A fresh array of the same type has disjoint rows, and an
        // assignment between equal types is exact in any mode.
        *this = cast(this, &this.ty().clone(), ErrorMode::NoCheck)?;
        return Ok(());
    }
    // SAFETY: blocks are only replaced by copies of their own bytes
    // (the data block, each `var` level's values).
    let (_, data, meta) = unsafe { this.parts_mut() };
    if Arc::get_mut(data).is_none() || !data.is_writable() {
        *data = MemoryBlock::try_from_bytes(data.bytes())?;
    }
    fn unique_values(m: &mut Arrmeta) -> Result<(), Error> {
        match m {
            Arrmeta::Var {
                values, element, ..
            } => {
                // A read-only block (an Arrow buffer, a static slice)
                // is copied like a shared one: its bytes belong to
                // others, whoever holds this handle.
                if Arc::get_mut(values).is_none() || !values.is_writable() {
                    *values = MemoryBlock::try_from_bytes(values.bytes())?;
                }
                unique_values(element)
            }
            Arrmeta::Fixed { element, .. } | Arrmeta::Option(element) => unique_values(element),
            Arrmeta::Fields { fields, .. } => fields.iter_mut().try_for_each(unique_values),
            _ => Ok(()),
        }
    }
    if meta.has_var() {
        unique_values(Arc::make_mut(meta))?;
    }
    Ok(())
}

/// Whether `meta` is fixed dimensions over a scalar record, with no
/// dimension of two or more elements repeating one (stride 0).
fn plain_fixed(meta: &Arrmeta) -> bool {
    let mut m = meta;
    while let Some((n, stride, element)) = m.as_fixed() {
        if n > 1 && stride == 0 {
            return false;
        }
        m = element;
    }
    matches!(m, Arrmeta::Scalar)
}

/// The address of `a`'s first element, for writing: `a` is made the
/// only owner of its memory first ([`make_unique`]).
///
/// # Errors
///
/// As [`make_unique`].
pub(crate) fn data_mut_ptr(a: &mut Array) -> Result<*mut u8, Error> {
    make_unique(a)?;
    match a.owned_data_ptr() {
        Some(p) => Ok(p),
        None => unreachable!("make_unique made the data unique"),
    }
}

/// [`ArrayOps::assign`](crate::ops::ArrayOps::assign).
pub(crate) fn assign(this: &mut Array, src: &Array, mode: ErrorMode) -> Result<(), Error> {
    assign_at(this, &[], src, mode)
}

/// [`ArrayOps::assign_at`](crate::ops::ArrayOps::assign_at).
pub(crate) fn assign_at(
    this: &mut Array,
    index: &[crate::Index],
    src: &Array,
    mode: ErrorMode,
) -> Result<(), Error> {
    make_unique(this)?;
    let view = this.index(index)?;
    // New strings go to an arena seeded with the existing text, which
    // then becomes the destination's text block.
    let arena = text_block(view.arrmeta()).map(|block| Mutex::new(block.bytes().to_vec()));
    let result = {
        let kernel = kernel_with_arena(
            view.ty(),
            view.arrmeta(),
            src.ty(),
            src.arrmeta(),
            mode,
            arena.as_ref(),
        )?;
        let dst_ptr = view.data_ptr() as *mut u8;
        // SAFETY: the view describes valid elements of this array's
        // memory, which `make_unique` made this array's alone (the view's
        // clones of the blocks are local and only read for pairs, never
        // as slices while the kernel runs); `&mut this` keeps everyone
        // else out, and the source, not sharing those blocks, does not
        // overlap them. The kernel writes only elements, never a view's
        // (start, length) pairs; the arena outlives the kernel.
        unsafe { kernel.single(dst_ptr, &[src.data_ptr()]) }
    };
    drop(view);
    // The arena becomes the text block even when the kernel failed
    // halfway: the strings it did write point into the arena.
    if let Some(arena) = arena {
        let bytes = arena
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        // SAFETY: the arena starts with the old text block's bytes (the
        // strings not written point there still) and holds every string
        // the kernel wrote, each pair counting bytes in it.
        let (_, _, meta) = unsafe { this.parts_mut() };
        if let Some(block) = text_block_mut(Arc::make_mut(meta)) {
            *block = MemoryBlock::from_vec(bytes);
        }
    }
    result?;
    Ok(())
}

/// [`ArrayOps::cast`](crate::ops::ArrayOps::cast).
pub(crate) fn cast(this: &Array, ty: &Type, mode: ErrorMode) -> Result<Array, Error> {
    let mut out = if ty.dtype().has_var_dim() {
        // var dims inside fields: lengths from the values themselves.
        let skeleton = skeleton(&this.to_value(), ty, this.ty(), ty)?;
        Array::from_value(&skeleton, Some(ty))?
    } else {
        // The result's var rows take this array's row lengths (a pass
        // over rows), as an elementwise result's do.
        let (dims, _) = ty.split_dims();
        let shift = dims.len().saturating_sub(this.ndim());
        if dims[..shift].iter().any(|d| matches!(d, Dim::Var)) {
            return Err(Error::CastVar {
                src: this.ty().clone(),
                dst: ty.clone(),
            });
        }
        crate::alloc::alloc_broadcast(ty, &[this])?
    };
    assign(&mut out, this, mode)?;
    Ok(out)
}

/// The text block of a string data type under the dimensions, if any.
pub(crate) fn text_block(meta: &Arrmeta) -> Option<&Arc<MemoryBlock>> {
    match meta {
        Arrmeta::Fixed { element, .. }
        | Arrmeta::Var { element, .. }
        | Arrmeta::Option(element) => text_block(element),
        Arrmeta::Text { block } => Some(block),
        Arrmeta::Fields { fields, .. } => fields.iter().find_map(text_block),
        _ => None,
    }
}

pub(crate) fn text_block_mut(meta: &mut Arrmeta) -> Option<&mut Arc<MemoryBlock>> {
    match meta {
        Arrmeta::Fixed { element, .. }
        | Arrmeta::Var { element, .. }
        | Arrmeta::Option(element) => text_block_mut(element),
        Arrmeta::Text { block } => Some(block),
        Arrmeta::Fields { fields, .. } => fields.iter_mut().find_map(text_block_mut),
        _ => None,
    }
}

/// A value with the list structure of `v` whose leaves are placeholders of
/// `ty`'s data type, so that an array of `ty` can be allocated with `v`'s
/// row lengths.
fn skeleton(v: &Value, ty: &Type, src: &Type, dst: &Type) -> Result<Value, Error> {
    match (v, ty.kind()) {
        (Value::List(items), TypeKind::Dim(_, element)) => Ok(Value::List(
            items
                .iter()
                .map(|item| skeleton(item, element, src, dst))
                .collect::<Result<_, _>>()?,
        )),
        (_, TypeKind::Dim(Dim::Var, _)) => Err(Error::CastVar {
            src: src.clone(),
            dst: dst.clone(),
        }),
        (_, TypeKind::Dim(Dim::Fixed(n), element)) => {
            let item = skeleton(v, element, src, dst)?;
            Ok(Value::List(vec![item; *n]))
        }
        (_, TypeKind::Option(_)) => Ok(Value::Null),
        (_, TypeKind::FixedString { .. }) => Ok(Value::Str(String::new())),
        (_, TypeKind::Struct(st)) => Ok(Value::Object(
            st.fields
                .iter()
                .enumerate()
                .map(|(i, (n, t))| {
                    let field = match v {
                        Value::Object(fs) => fs.iter().find(|(k, _)| k == &**n).map(|(_, v)| v),
                        Value::List(items) => items.get(i),
                        _ => None,
                    };
                    Ok((
                        n.to_string(),
                        skeleton(field.unwrap_or(&Value::Null), t, src, dst)?,
                    ))
                })
                .collect::<Result<_, Error>>()?,
        )),
        (_, TypeKind::Tuple(tu)) => Ok(Value::List(
            tu.fields
                .iter()
                .enumerate()
                .map(|(i, t)| {
                    let field = match v {
                        Value::List(items) => items.get(i),
                        Value::Object(fs) => fs.get(i).map(|(_, v)| v),
                        _ => None,
                    };
                    skeleton(field.unwrap_or(&Value::Null), t, src, dst)
                })
                .collect::<Result<_, _>>()?,
        )),
        (_, TypeKind::Scalar(s)) => Ok(match s {
            dynd_types::Scalar::Bool => Value::Bool(false),
            dynd_types::Scalar::String | dynd_types::Scalar::Bytes => Value::Str(String::new()),
            dynd_types::Scalar::Complex64 | dynd_types::Scalar::Complex128 => {
                Value::List(vec![Value::Int(0), Value::Int(0)])
            }
            _ => Value::Int(0),
        }),
        _ => Err(Error::Unsupported {
            operation: "cast",
            ty: ty.clone(),
        }),
    }
}

/// [`ArrayOps::from_nested_as`](crate::ops::ArrayOps::from_nested_as).
pub(crate) fn from_nested_as<V: crate::Nested>(v: V, ty: &Type) -> Result<Array, Error> {
    let a = Array::from_nested_checked(v, ty)?;
    if a.ty() == ty {
        return Ok(a);
    }
    cast(&a, ty, ErrorMode::Fractional)
}
