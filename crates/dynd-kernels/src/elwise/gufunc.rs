//! Core-dimension leaves (NumPy's generalised ufuncs); see [`CoreLeaf`].

use std::marker::PhantomData;
use std::sync::Arc;

use smallvec::SmallVec;

use dynd_types::{Dim, Scalar, SignatureProblem, Type, TypeKind};

use super::*;
use crate::arrmeta::Arrmeta;
use crate::element::Element;
use crate::error::{Error, KernelError};
use crate::kernel::{Child, KernelBuilder, KernelCtx, KernelData};

/// One core argument: its elements in row-major order, and its shape.
#[derive(Clone, Copy, Debug)]
pub struct CoreSlice<'a, T> {
    data: &'a [T],
    shape: &'a [usize],
}

impl<'a, T: Copy> CoreSlice<'a, T> {
    /// The elements, row-major.
    pub fn as_slice(&self) -> &'a [T] {
        self.data
    }

    /// The core shape (empty for a scalar parameter).
    pub fn shape(&self) -> &'a [usize] {
        self.shape
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The elements, row-major.
    pub fn iter(&self) -> std::slice::Iter<'a, T> {
        self.data.iter()
    }

    /// The element at a multi-index, or `None` outside the shape.
    pub fn get(&self, index: &[usize]) -> Option<T> {
        flat_index(self.shape, index).map(|i| self.data[i])
    }

    /// The rows of the last dimension (one row for a 1-d core).
    pub fn rows(&self) -> std::slice::ChunksExact<'a, T> {
        self.data
            .chunks_exact(self.shape.last().copied().unwrap_or(1).max(1))
    }
}

/// The result's core, to be written: its elements in row-major order, and
/// its shape. A scalar result is one element: `out.as_mut_slice()[0] = v`.
#[derive(Debug)]
pub struct CoreSliceMut<'a, T> {
    data: &'a mut [T],
    shape: &'a [usize],
}

impl<T: Copy> CoreSliceMut<'_, T> {
    /// The elements, row-major.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.data
    }

    /// The core shape (empty for a scalar result).
    pub fn shape(&self) -> &[usize] {
        self.shape
    }

    /// Sets the element at a multi-index; `false` outside the shape.
    pub fn set(&mut self, index: &[usize], value: T) -> bool {
        match flat_index(self.shape, index) {
            Some(i) => {
                self.data[i] = value;
                true
            }
            None => false,
        }
    }
}

fn flat_index(shape: &[usize], index: &[usize]) -> Option<usize> {
    if index.len() != shape.len() {
        return None;
    }
    index
        .iter()
        .zip(shape)
        .try_fold(0usize, |acc, (&i, &n)| (i < n).then(|| acc * n + i))
}

/// Where one operand's core lies: its shape and byte strides.
#[derive(Clone, Debug, Default)]
pub(super) struct CoreLayout {
    shape: SmallVec<[usize; 4]>,
    strides: SmallVec<[isize; 4]>,
    len: usize,
}

impl CoreLayout {
    /// The layout of the last `core` dimensions of `ty` (which must be fixed).
    fn of(ty: &Type, meta: &Arrmeta, core: usize, signature: &Type) -> Result<CoreLayout, Error> {
        let lv = levels(ty, meta);
        if lv.len() < core {
            return Err(Error::CoreSignature {
                signature: signature.clone(),
                problem: Box::new(SignatureProblem::TooFewDims {
                    ty: ty.clone(),
                    ndim: lv.len(),
                    core,
                }),
            });
        }
        let mut out = CoreLayout {
            len: 1,
            ..CoreLayout::default()
        };
        for (_, m) in &lv[lv.len() - core..] {
            let Some((size, stride, _)) = m.as_fixed() else {
                return Err(Error::Unsupported {
                    operation: "a core dimension that is not fixed",
                    ty: ty.clone(),
                });
            };
            out.shape.push(size);
            out.strides.push(stride);
            out.len *= size;
        }
        Ok(out)
    }

    /// Whether elements of `T` at `p` are row-major and aligned here, so
    /// the core can be used in place.
    fn in_place<T>(&self, p: *const u8) -> bool {
        let mut expected = std::mem::size_of::<T>() as isize;
        for (&n, &s) in self.shape.iter().zip(&self.strides).rev() {
            if n > 1 && s != expected {
                return false;
            }
            expected *= n as isize;
        }
        (p as usize).is_multiple_of(std::mem::align_of::<T>())
    }

    /// Calls `f` with each element's byte offset, row-major.
    fn for_each_offset(&self, f: impl FnMut(isize)) {
        let dims: SmallVec<[(usize, isize); 4]> = self
            .shape
            .iter()
            .copied()
            .zip(self.strides.iter().copied())
            .collect();
        dynd_array::offsets::for_each_offset(&dims, f);
    }

    /// The core at `p` as a slice: in place, or gathered into `scratch`.
    ///
    /// # Safety
    ///
    /// `p` is the first element of a core with this layout, every element
    /// a valid `T`, not written while the slice lives.
    unsafe fn load<'s, T: Element>(&self, p: *const u8, scratch: &'s mut Vec<T>) -> &'s [T] {
        if self.in_place::<T>(p) {
            // SAFETY: `len` aligned, row-major, valid elements from `p`, by
            // the contract and `in_place`.
            return unsafe { std::slice::from_raw_parts(p.cast::<T>(), self.len) };
        }
        scratch.clear();
        self.for_each_offset(|off| {
            // SAFETY: every offset of the layout is one of the core's elements.
            scratch.push(unsafe { p.wrapping_offset(off).cast::<T>().read_unaligned() });
        });
        scratch
    }

    /// The core at `p` as a mutable slice: in place, or gathered into
    /// `scratch` (then [`CoreLayout::store`] writes it back).
    ///
    /// # Safety
    ///
    /// As [`CoreLayout::load`], and the core is not otherwise accessed
    /// while the slice lives.
    unsafe fn load_mut<'s, T: Element>(
        &self,
        p: *mut u8,
        scratch: &'s mut Vec<T>,
    ) -> (&'s mut [T], bool) {
        if self.in_place::<T>(p) {
            // SAFETY: as in `load`, and exclusive by the contract.
            return (
                unsafe { std::slice::from_raw_parts_mut(p.cast::<T>(), self.len) },
                true,
            );
        }
        // SAFETY: forwarded contract.
        unsafe { self.load(p, scratch) };
        (scratch, false)
    }

    /// Writes `data` (row-major) back into the core at `p`.
    ///
    /// # Safety
    ///
    /// `p` is the first element of a writable core with this layout.
    unsafe fn store<T: Element>(&self, p: *mut u8, data: &[T]) {
        let mut it = data.iter();
        self.for_each_offset(|off| {
            if let Some(v) = it.next() {
                // SAFETY: every offset of the layout is one of the core's elements.
                unsafe { p.wrapping_offset(off).cast::<T>().write_unaligned(*v) };
            }
        });
    }
}

/// The layouts of the inputs' cores, then the output's.
pub(super) type Layouts = SmallVec<[CoreLayout; INLINE_ARGS + 1]>;

type PushCore = dyn for<'a> Fn(&mut KernelBuilder<'a>, Layouts) -> Child + Send + Sync;

/// A Rust function over core sub-arrays with known element types, ready to
/// be lifted over leading dimensions (NumPy's generalised ufuncs).
///
/// A [`CoreLeaf`] has a signature such as `(N * float64, N * float64) ->
/// float64` or `(M * N * float64, N * P * float64) -> M * P * float64`:
/// each parameter consumes the argument's trailing *core* dimensions, and
/// the function sees each core as a [`CoreSlice`] (its elements in
/// row-major order, and its shape) and writes the result's core through a
/// [`CoreSliceMut`]. Cores laid out row-major in memory are passed as they
/// are; others (a transposed or strided view) are gathered into a scratch
/// buffer first, and a strided output is scattered back, so the function
/// always sees plain slices.
///
/// ```
/// use dynd::func::{Callable, CoreLeaf, CoreSlice, CoreSliceMut, Overload};
/// use dynd::nd::array;
///
/// let dot = CoreLeaf::map(
///     "(N * float64, N * float64) -> float64",
///     |a: CoreSlice<'_, f64>, b: CoreSlice<'_, f64>, mut out: CoreSliceMut<'_, f64>| {
///         out.as_mut_slice()[0] = a.iter().zip(b.iter()).map(|(x, y)| x * y).sum();
///     },
/// )?;
/// // Leading dimensions broadcast: a 2 * 3 array of vectors against one vector.
/// let dot = Callable::new("dot", vec![Overload::core(dot)])?;
/// let r = dot.call(&[&array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], &array![1.0, 0.0, 1.0]])?;
/// assert_eq!(r.to_string(), "[4, 10]");
/// # Ok::<(), dynd::Error>(())
/// ```
#[derive(Clone)]
pub struct CoreLeaf {
    signature: Type,
    inputs: SmallVec<[Scalar; INLINE_ARGS]>,
    output: Scalar,
    in_core: SmallVec<[usize; INLINE_ARGS]>,
    out_core: usize,
    push: Arc<PushCore>,
}

impl std::fmt::Debug for CoreLeaf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "CoreLeaf({})", self.signature)
    }
}

macro_rules! core_record {
    ($name:ident, $($arg:ident $ty:ident $scratch:ident),+) => {
        struct $name<$($ty,)+ R, F> {
            f: F,
            layouts: Layouts,
            _types: PhantomData<fn($($ty),+) -> R>,
        }

        impl<$($ty: Element,)+ R: Element, F> KernelData for $name<$($ty,)+ R, F>
        where
            F: Fn($(CoreSlice<'_, $ty>,)+ CoreSliceMut<'_, R>) + Send + Sync + 'static,
        {
            unsafe fn single(
                &self,
                _: &KernelCtx<'_>,
                dst: *mut u8,
                src: &[*const u8],
            ) -> Result<(), KernelError> {
                let mut k = 0;
                $(
                    let mut $scratch: Vec<$ty> = Vec::new();
                    let layout = &self.layouts[k];
                    // SAFETY: `src[k]` is the first element of argument k's
                    // core, laid out as `layout` (both from its arrmeta) and
                    // holding `$ty`s (the leaf's checked input type); the
                    // destination does not overlap the sources.
                    let data = unsafe { layout.load::<$ty>(src[k], &mut $scratch) };
                    let $arg = CoreSlice { data, shape: &layout.shape };
                    k += 1;
                )+
                let out = &self.layouts[k];
                let mut scratch: Vec<R> = Vec::new();
                // SAFETY: `dst` is the first element of the result's core,
                // laid out as `out`, holding `R`s, written only here.
                let (data, in_place) = unsafe { out.load_mut::<R>(dst, &mut scratch) };
                (self.f)($($arg,)+ CoreSliceMut { data, shape: &out.shape });
                if !in_place {
                    // SAFETY: as above.
                    unsafe { out.store::<R>(dst, &scratch) };
                }
                Ok(())
            }

            fn describe(&self) -> String {
                let shapes: Vec<String> = self.layouts.iter().map(|l| format!("{:?}", l.shape)).collect();
                format!("core function over cores {}", shapes.join(", "))
            }
        }

        impl<Func, $($ty: Element,)+ R: Element> CoreFn<($($ty,)+ R)> for Func
        where
            Func: Fn($(CoreSlice<'_, $ty>,)+ CoreSliceMut<'_, R>) + Clone + Send + Sync + 'static,
        {
            fn elements(_: Token) -> (SmallVec<[Scalar; INLINE_ARGS]>, Scalar) {
                const { assert!([$(stringify!($ty)),+].len() <= MAX_LEAF_ARGS) };
                (smallvec::smallvec![$($ty::SCALAR),+], R::SCALAR)
            }

            fn push_record<'a>(&self, b: &mut KernelBuilder<'a>, cores: Cores) -> Child {
                b.push($name { f: self.clone(), layouts: cores.0, _types: PhantomData })
            }
        }
    };
}

core_record!(Core1, x0 T0 s0);
core_record!(Core2, x0 T0 s0, x1 T1 s1);
core_record!(Core3, x0 T0 s0, x1 T1 s1, x2 T2 s2);
core_record!(Core4, x0 T0 s0, x1 T1 s1, x2 T2 s2, x3 T3 s3);
core_record!(Core5, x0 T0 s0, x1 T1 s1, x2 T2 s2, x3 T3 s3, x4 T4 s4);
core_record!(Core6, x0 T0 s0, x1 T1 s1, x2 T2 s2, x3 T3 s3, x4 T4 s4, x5 T5 s5);
core_record!(Core7, x0 T0 s0, x1 T1 s1, x2 T2 s2, x3 T3 s3, x4 T4 s4, x5 T5 s5, x6 T6 s6);
core_record!(Core8, x0 T0 s0, x1 T1 s1, x2 T2 s2, x3 T3 s3, x4 T4 s4, x5 T5 s5, x6 T6 s6, x7 T7 s7);
core_record!(Core9, x0 T0 s0, x1 T1 s1, x2 T2 s2, x3 T3 s3, x4 T4 s4, x5 T5 s5, x6 T6 s6, x7 T7 s7, x8 T8 s8);
core_record!(Core10, x0 T0 s0, x1 T1 s1, x2 T2 s2, x3 T3 s3, x4 T4 s4, x5 T5 s5, x6 T6 s6, x7 T7 s7, x8 T8 s8, x9 T9 s9);
core_record!(Core11, x0 T0 s0, x1 T1 s1, x2 T2 s2, x3 T3 s3, x4 T4 s4, x5 T5 s5, x6 T6 s6, x7 T7 s7, x8 T8 s8, x9 T9 s9, x10 T10 s10);
core_record!(Core12, x0 T0 s0, x1 T1 s1, x2 T2 s2, x3 T3 s3, x4 T4 s4, x5 T5 s5, x6 T6 s6, x7 T7 s7, x8 T8 s8, x9 T9 s9, x10 T10 s10, x11 T11 s11);
core_record!(Core13, x0 T0 s0, x1 T1 s1, x2 T2 s2, x3 T3 s3, x4 T4 s4, x5 T5 s5, x6 T6 s6, x7 T7 s7, x8 T8 s8, x9 T9 s9, x10 T10 s10, x11 T11 s11, x12 T12 s12);
core_record!(Core14, x0 T0 s0, x1 T1 s1, x2 T2 s2, x3 T3 s3, x4 T4 s4, x5 T5 s5, x6 T6 s6, x7 T7 s7, x8 T8 s8, x9 T9 s9, x10 T10 s10, x11 T11 s11, x12 T12 s12, x13 T13 s13);
core_record!(Core15, x0 T0 s0, x1 T1 s1, x2 T2 s2, x3 T3 s3, x4 T4 s4, x5 T5 s5, x6 T6 s6, x7 T7 s7, x8 T8 s8, x9 T9 s9, x10 T10 s10, x11 T11 s11, x12 T12 s12, x13 T13 s13, x14 T14 s14);
core_record!(Core16, x0 T0 s0, x1 T1 s1, x2 T2 s2, x3 T3 s3, x4 T4 s4, x5 T5 s5, x6 T6 s6, x7 T7 s7, x8 T8 s8, x9 T9 s9, x10 T10 s10, x11 T11 s11, x12 T12 s12, x13 T13 s13, x14 T14 s14, x15 T15 s15);

/// Parses and checks a core signature against the function's element
/// types; the core dimension counts of the inputs and of the result.
fn check_signature(
    text: &str,
    inputs: &[Scalar],
    output: Scalar,
) -> Result<(Type, SmallVec<[usize; INLINE_ARGS]>, usize), Error> {
    let signature: Type = text.parse()?;
    let bad = |problem: SignatureProblem| Error::CoreSignature {
        signature: signature.clone(),
        problem: Box::new(problem),
    };
    let TypeKind::Callable(sig) = signature.kind() else {
        return Err(Error::NotASignature {
            ty: signature.clone(),
        });
    };
    if sig.variadic_positional || !sig.keywords.is_empty() || sig.variadic_keywords {
        return Err(bad(SignatureProblem::Keywords));
    }
    if sig.positional.len() != inputs.len() {
        return Err(bad(SignatureProblem::Arity {
            params: sig.positional.len(),
            takes: inputs.len(),
        }));
    }
    let core_of = |t: &Type, param: Option<usize>, want: Scalar| -> Result<usize, Error> {
        let (dims, dtype) = t.split_dims();
        if dtype.as_scalar() != Some(want) {
            return Err(bad(SignatureProblem::DataType {
                param,
                found: dtype.clone(),
                expected: want,
            }));
        }
        if let Some(d) = dims
            .iter()
            .find(|d| !matches!(d, Dim::Fixed(_) | Dim::AnyFixed | Dim::TypeVar(_)))
        {
            return Err(bad(SignatureProblem::Dimension {
                param,
                dim: (*d).clone(),
            }));
        }
        Ok(dims.len())
    };
    let in_core = sig
        .positional
        .iter()
        .zip(inputs)
        .enumerate()
        .map(|(i, (t, s))| core_of(t, Some(i), *s))
        .collect::<Result<_, _>>()?;
    let out_core = core_of(&sig.ret, None, output)?;
    Ok((signature, in_core, out_core))
}

mod sealed {
    /// The argument only this module can make: it keeps [`super::CoreFn`]'s
    /// methods (whose answers the kernels trust) out of other crates'
    /// reach, so the trait cannot be implemented there.
    #[derive(Clone, Copy)]
    pub struct Token;

    /// The layouts of a call's cores (the inputs', then the result's).
    pub struct Cores(pub(super) super::Layouts);
}
use sealed::{Cores, Token};

/// A Rust function over cores that [`CoreLeaf::map`] lifts: implemented
/// for every `Fn(CoreSlice<'_, T0>, …, CoreSlice<'_, Tn>, CoreSliceMut<'_,
/// R>)` with [`Element`] types (1 to [`MAX_LEAF_ARGS`] inputs). `Args` is
/// the tuple of the element types, inputs then result, which the compiler
/// infers from the function. Sealed: it cannot be implemented outside this
/// crate.
pub trait CoreFn<Args>: Clone + Send + Sync + 'static {
    /// The input element types, then the result's.
    #[doc(hidden)]
    fn elements(_: Token) -> (SmallVec<[Scalar; INLINE_ARGS]>, Scalar);

    /// Pushes the kernel record calling this function on cores laid out as
    /// `layouts` (the inputs', then the result's).
    #[doc(hidden)]
    fn push_record<'a>(&self, b: &mut KernelBuilder<'a>, cores: Cores) -> Child;
}

impl CoreLeaf {
    /// A core leaf calling `f` on each argument's core and the result's
    /// core (see [`CoreFn`]); `signature` gives the core dimensions and
    /// must name the element types of `f`.
    ///
    /// # Errors
    ///
    /// [`Error::Parse`] for a signature that does not parse, and
    /// [`Error::NotASignature`] for one that is not a callable type,
    /// and [`Error::CoreSignature`] for one not of the function's
    /// arity and element types, or with dimensions other than fixed
    /// sizes, `Fixed` and size variables.
    pub fn map<Args, F: CoreFn<Args>>(signature: &str, f: F) -> Result<CoreLeaf, Error> {
        let (inputs, output) = F::elements(Token);
        let (signature, in_core, out_core) = check_signature(signature, &inputs, output)?;
        Ok(CoreLeaf {
            signature,
            inputs,
            output,
            in_core,
            out_core,
            push: Arc::new(move |b: &mut KernelBuilder<'_>, layouts: Layouts| {
                f.push_record(b, Cores(layouts))
            }),
        })
    }

    /// The signature, e.g. `(N * float64, N * float64) -> float64`.
    pub fn signature(&self) -> &Type {
        &self.signature
    }

    /// The input element types, in order.
    pub fn inputs(&self) -> &[Scalar] {
        &self.inputs
    }

    /// The output element type.
    pub fn output(&self) -> Scalar {
        self.output
    }

    /// How many trailing dimensions each input's core has.
    pub fn input_core_ndims(&self) -> &[usize] {
        &self.in_core
    }

    /// How many trailing dimensions the result's core has.
    pub fn output_core_ndim(&self) -> usize {
        self.out_core
    }
}

/// [`ArrayOps::apply_core_into`](crate::ops::ArrayOps::apply_core_into).
pub(crate) fn apply_core_into(
    this: &mut Array,
    srcs: &[&Array],
    leaf: &CoreLeaf,
) -> Result<(), Error> {
    if srcs.len() != leaf.inputs.len() {
        return Err(Error::Arity {
            name: format!("{leaf:?}"),
            expected: leaf.inputs.len(),
            found: srcs.len(),
        });
    }
    let dtype_of = |a: &Array| a.dtype().as_scalar();
    for (i, (a, t)) in srcs.iter().zip(&leaf.inputs).enumerate() {
        if dtype_of(a) != Some(*t) {
            return Err(Error::ArgumentType {
                arg: i,
                found: a.dtype().clone(),
                expected: (*t).into(),
                what: format!("{leaf:?}"),
            });
        }
    }
    if dtype_of(this) != Some(leaf.output) {
        return Err(Error::DtypeMismatch {
            actual: this.dtype().clone(),
            requested: leaf.output.into(),
        });
    }
    crate::assign::make_unique(this)?;
    let (ty, meta) = (this.ty().clone(), this.arrmeta_arc());
    let mut layouts: Layouts = srcs
        .iter()
        .zip(&leaf.in_core)
        .map(|(a, &core)| CoreLayout::of(a.ty(), a.arrmeta(), core, &leaf.signature))
        .collect::<Result<_, _>>()?;
    layouts.push(CoreLayout::of(&ty, &meta, leaf.out_core, &leaf.signature)?);
    let pairs: SmallVec<[(&Type, &Arrmeta); INLINE_ARGS]> =
        srcs.iter().map(|a| (a.ty(), a.arrmeta())).collect();
    let mut layouts = Some(layouts);
    let mut builder = KernelBuilder::new();
    push_lifted(
        &mut builder,
        (&ty, &meta),
        leaf.out_core,
        &pairs,
        &leaf.in_core,
        &mut |b| {
            let layouts = layouts
                .take()
                .unwrap_or_else(|| unreachable!("push_elwise builds the leaf once"));
            Ok((leaf.push)(b, layouts))
        },
    )?;
    let kernel = builder.finish()?;
    // SAFETY: built just above for this array and `srcs`, whose data
    // types were checked against the leaf's, with core layouts read
    // from their arrmeta; a `CoreLeaf` is only made from functions over
    // exactly those element types.
    unsafe { run_into(this, &kernel, srcs) }
}

/// Runs `leaf` over `srcs`, into a new array of type `ty`: the broadcast
/// of the arguments' leading dimensions over the result's core type, as
/// `dynd_arrfunc::resolve_lifted` gives it.
///
/// # Errors
///
/// As [`ArrayOps::apply_core_into`](crate::ops::ArrayOps::apply_core_into).
pub fn apply_core(ty: &Type, srcs: &[&Array], leaf: &CoreLeaf) -> Result<Array, Error> {
    let mut out = alloc_lifted(ty, leaf.out_core, srcs, &leaf.in_core)?;
    apply_core_into(&mut out, srcs, leaf)?;
    Ok(out)
}
