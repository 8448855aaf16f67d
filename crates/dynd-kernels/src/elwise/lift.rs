//! One lifting mechanism: a Rust function over elements, of any arity up
//! to [`MAX_LEAF_ARGS`], as a leaf loop.
//!
//! [`ElementFn`] is implemented (by a macro, once per arity) for every
//! `Fn(T0, …, Tn) -> R` whose parameters are [`LeafInput`]s (an element
//! `T`, or `Option<T>` for a `?T` element that sees NA) and whose result is
//! a [`LeafReturn`] (an element, `Option<T>` for a `?T` result, or a
//! `Result` of either for a function that can fail; see
//! [`fn_types`](crate::fn_types)). [`Leaf::map`](super::Leaf::map) takes
//! any of them; the arity, the element types, NA handling and fallibility
//! all come from the function's type, as axum's handlers take their
//! extractors from theirs.
//!
//! ```
//! use dynd::func::{Callable, Leaf};
//! use dynd::nd::array;
//!
//! let fma = Leaf::map(|x: f64, y: f64, z: f64| x.mul_add(y, z));
//! assert_eq!(fma.inputs().len(), 3);
//! // The same function as a callable (which holds such a leaf).
//! let fma = Callable::map("fma", |x: f64, y: f64, z: f64| x.mul_add(y, z));
//! let r = fma.call(&[&array![1.0, 2.0], &array![10.0], &array![0.5, 0.25]])?;
//! assert_eq!(r.to_string(), "[10.5, 20.25]");
//! # Ok::<(), dynd::Error>(())
//! ```

use std::marker::PhantomData;

use dynd_types::Scalar;

use super::maps::MapLoop;
use super::MAX_LEAF_ARGS;
use crate::error::KernelError;
use crate::fn_types::{LeafInput, LeafOutput, LeafReturn};

mod sealed {
    /// The argument only this module can make: it keeps
    /// [`super::ElementFn`]'s methods (whose answers the loops trust)
    /// out of other crates' reach, so the trait cannot be implemented
    /// there.
    #[derive(Clone, Copy)]
    pub struct Token;
}

/// The element types of a lifted function: its inputs (with whether each
/// takes `?T`) and its result.
#[doc(hidden)]
#[derive(Debug, Clone)]
pub struct ElementSignature {
    pub(super) inputs: Vec<(Scalar, bool)>,
    pub(super) output: (Scalar, bool),
    pub(super) fallible: bool,
}

/// A Rust function over elements that [`Leaf::map`](super::Leaf::map)
/// lifts: implemented for every `Fn(T0, …, Tn) -> R` (1 to
/// [`MAX_LEAF_ARGS`] parameters) with [`LeafInput`] parameters and a
/// [`LeafReturn`] result. `Args` is the tuple of parameter types, which
/// the compiler infers from the function. Sealed: it cannot be implemented
/// outside this crate.
pub trait ElementFn<Args>: Clone + Send + Sync + 'static {
    /// The number of inputs.
    const ARITY: usize;

    #[doc(hidden)]
    fn signature(_: sealed::Token) -> ElementSignature;

    /// # Safety
    ///
    /// As [`KernelData::strided`](crate::kernel::KernelData::strided): `count`
    /// elements of the function's parameter types at each `src` pointer
    /// (strided by `src_stride`), room for `count` results at `dst`.
    #[doc(hidden)]
    unsafe fn run(
        &self,
        _: sealed::Token,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError>;
}

/// The signature of `F`.
pub(super) fn signature_of<Args, F: ElementFn<Args>>() -> ElementSignature {
    F::signature(sealed::Token)
}

/// A lifted function as a leaf loop.
pub(super) struct Lifted<F, Args> {
    pub(super) f: F,
    pub(super) _args: PhantomData<fn() -> Args>,
}

impl<F: Clone, Args> Clone for Lifted<F, Args> {
    fn clone(&self) -> Self {
        Lifted {
            f: self.f.clone(),
            _args: PhantomData,
        }
    }
}

impl<Args: 'static, F: ElementFn<Args>> MapLoop for Lifted<F, Args> {
    const ARITY: usize = F::ARITY;

    #[inline]
    unsafe fn strided_loop(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        // SAFETY: forwarded contract.
        unsafe {
            self.f
                .run(sealed::Token, dst, dst_stride, src, src_stride, count)
        }
    }

    fn describe(&self) -> String {
        describe_signature(&F::signature(sealed::Token))
    }
}

/// A lifted function whose loop is compiled for each instruction set the
/// library dispatches on and run on the CPU's best ([`crate::isa::best!`]):
/// a user's `#[elemental]` fn, whose body the baseline (SSE2) leaves
/// scalar where AVX2 and AVX-512 vectorise it (masked selects for its
/// `if`s). The builtins keep one copy ([`Lifted`]): their hot loops are
/// the operation table's, already compiled per set.
pub(super) struct LiftedBest<F, Args>(pub(super) Lifted<F, Args>);

impl<F: Clone, Args> Clone for LiftedBest<F, Args> {
    fn clone(&self) -> Self {
        LiftedBest(self.0.clone())
    }
}

impl<Args: 'static, F: ElementFn<Args>> MapLoop for LiftedBest<F, Args> {
    const ARITY: usize = F::ARITY;

    #[inline]
    unsafe fn strided_loop(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        // SAFETY: forwarded contract; `best!` runs the copy for a set this
        // CPU has.
        crate::isa::best!(unsafe {
            self.0
                .f
                .run(sealed::Token, dst, dst_stride, src, src_stride, count)
        })
    }

    fn describe(&self) -> String {
        self.0.describe()
    }
}

/// A lifted function's description from its signature: out of line, so
/// that the formatting is compiled once rather than for every function.
#[inline(never)]
fn describe_signature(sig: &ElementSignature) -> String {
    let name = |(s, o): (Scalar, bool)| if o { format!("?{s}") } else { s.to_string() };
    let inputs: Vec<String> = sig.inputs.iter().map(|&t| name(t)).collect();
    let kind = if sig.fallible { "fallible map" } else { "map" };
    format!("{kind} ({}) -> {}", inputs.join(", "), name(sig.output))
}

/// Writes `r` at `p`, or returns its failure at index `i`.
///
/// # Safety
///
/// `p` has room for one element of the result type.
#[inline(always)]
unsafe fn put<R: LeafReturn>(r: R, p: *mut u8, i: usize) -> Result<(), KernelError> {
    match r.into_result() {
        // SAFETY: forwarded contract.
        Ok(v) => unsafe { v.write(p) },
        Err(e) => return Err(KernelError::message(e.to_string()).at(i)),
    }
    Ok(())
}

/// Whether a parameter or result type is a plain element (not `?T`) whose
/// contiguous elements lie `size_of` apart.
const fn unit<T>(stride: isize, option: bool) -> bool {
    !option && stride == size_of::<T>() as isize
}

/// The loop of a function of one element: contiguous, else strided.
///
/// # Safety
///
/// As [`ElementFn::run`].
#[inline(always)]
unsafe fn unary<A: LeafInput, R: LeafReturn>(
    f: impl Fn(A) -> R,
    dst: *mut u8,
    ds: isize,
    src: &[*const u8],
    ss: &[isize],
    count: usize,
) -> Result<(), KernelError> {
    let (a, sa) = (src[0], ss[0]);
    let out = size_of::<R::Output>();
    if unit::<R::Output>(ds, R::Output::OPTION) && unit::<A>(sa, A::OPTION) {
        for i in 0..count {
            // SAFETY: `count` contiguous elements on each side, by the contract.
            unsafe { put(f(A::read(a.add(i * size_of::<A>()))), dst.add(i * out), i)? };
        }
    } else {
        for i in 0..count {
            let k = i as isize;
            // SAFETY: `count` strided elements on each side, by the contract.
            unsafe { put(f(A::read(a.offset(k * sa))), dst.offset(k * ds), i)? };
        }
    }
    Ok(())
}

/// The loop of a function of two elements: one element (a small call),
/// contiguous, one side broadcast, neighbours paired (a fold's levels),
/// else strided.
///
/// # Safety
///
/// As [`ElementFn::run`].
#[inline(always)]
unsafe fn binary<A: LeafInput, B: LeafInput, R: LeafReturn>(
    f: impl Fn(A, B) -> R,
    dst: *mut u8,
    ds: isize,
    src: &[*const u8],
    ss: &[isize],
    count: usize,
) -> Result<(), KernelError> {
    let (a, b, sa, sb) = (src[0], src[1], ss[0], ss[1]);
    if count == 0 {
        // Nothing to read: an empty operand's pointer may lie anywhere.
        return Ok(());
    }
    if count == 1 {
        // SAFETY: one element on each side, by the contract.
        return unsafe { put(f(A::read(a), B::read(b)), dst, 0) };
    }
    let (za, zb, zr) = (size_of::<A>(), size_of::<B>(), size_of::<R::Output>());
    let plain = !A::OPTION && !B::OPTION && !R::Output::OPTION;
    let d_unit = plain && ds == zr as isize;
    if d_unit && sa == za as isize && sb == zb as isize {
        for i in 0..count {
            // SAFETY: `count` contiguous elements on each side, by the contract.
            unsafe {
                put(
                    f(A::read(a.add(i * za)), B::read(b.add(i * zb))),
                    dst.add(i * zr),
                    i,
                )?
            };
        }
    } else if d_unit && sa == za as isize && sb == 0 {
        // SAFETY: the broadcast element is valid by the contract.
        let y = unsafe { B::read(b) };
        for i in 0..count {
            // SAFETY: `count` contiguous elements, by the contract.
            unsafe { put(f(A::read(a.add(i * za)), y), dst.add(i * zr), i)? };
        }
    } else if d_unit && sa == 0 && sb == zb as isize {
        // SAFETY: the broadcast element is valid by the contract.
        let x = unsafe { A::read(a) };
        for i in 0..count {
            // SAFETY: `count` contiguous elements, by the contract.
            unsafe { put(f(x, B::read(b.add(i * zb))), dst.add(i * zr), i)? };
        }
    } else if d_unit && sa == 2 * za as isize && sb == 2 * zb as isize {
        // Neighbours paired (the even and odd elements of one line, as a
        // fold's levels take them): constant strides, which the compiler
        // vectorises as interleaved loads.
        for i in 0..count {
            // SAFETY: `count` elements two apart on each side, by the contract.
            unsafe {
                put(
                    f(A::read(a.add(2 * i * za)), B::read(b.add(2 * i * zb))),
                    dst.add(i * zr),
                    i,
                )?
            };
        }
    } else {
        for i in 0..count {
            let k = i as isize;
            // SAFETY: `count` strided elements on each side, by the contract.
            unsafe {
                put(
                    f(A::read(a.offset(k * sa)), B::read(b.offset(k * sb))),
                    dst.offset(k * ds),
                    i,
                )?
            };
        }
    }
    Ok(())
}

/// Implements [`ElementFn`] for functions of the given parameters; `$run`
/// names the loop (`unary`, `binary`, or `many` for three or more).
macro_rules! element_fn {
    (many; $($t:ident $v:ident $i:tt),+) => {
        element_fn!(@impl $($t $v $i),+; |this, dst, ds, src, ss, count| {
            let plain = $(!$t::OPTION &&)+ !<R::Output as LeafOutput>::OPTION;
            let zr = size_of::<R::Output>();
            if plain && ds == zr as isize $(&& ss[$i] == size_of::<$t>() as isize)+ {
                for i in 0..count {
                    // SAFETY: `count` contiguous elements on each side, by the contract.
                    unsafe {
                        put(this($($t::read(src[$i].add(i * size_of::<$t>()))),+), dst.add(i * zr), i)?
                    };
                }
            } else {
                for i in 0..count {
                    let k = i as isize;
                    // SAFETY: `count` strided elements on each side, by the contract.
                    unsafe {
                        put(this($($t::read(src[$i].offset(k * ss[$i]))),+), dst.offset(k * ds), i)?
                    };
                }
            }
            Ok(())
        });
    };
    ($run:ident; $($t:ident $v:ident $i:tt),+) => {
        element_fn!(@impl $($t $v $i),+; |this, dst, ds, src, ss, count| {
            // SAFETY: forwarded contract.
            unsafe { $run(this, dst, ds, src, ss, count) }
        });
    };
    (@impl $($t:ident $v:ident $i:tt),+; |$this:ident, $dst:ident, $ds:ident, $src:ident, $ss:ident, $count:ident| $body:block) => {
        impl<Func, $($t,)+ R> ElementFn<($($t,)+)> for Func
        where
            Func: Fn($($t),+) -> R + Clone + Send + Sync + 'static,
            $($t: LeafInput,)+
            R: LeafReturn,
        {
            const ARITY: usize = [$($i),+].len();

            fn signature(_: sealed::Token) -> ElementSignature {
                const { assert!(<Self as ElementFn<($($t,)+)>>::ARITY <= MAX_LEAF_ARGS) };
                ElementSignature {
                    inputs: vec![$(($t::SCALAR, $t::OPTION)),+],
                    output: (R::Output::SCALAR, R::Output::OPTION),
                    fallible: R::FALLIBLE,
                }
            }

            // Always inlined: into the one loop of `Lifted`, and into each
            // instruction set's copy of `LiftedBest`'s.
            #[inline(always)]
            unsafe fn run(
                &self,
                _: sealed::Token,
                $dst: *mut u8,
                $ds: isize,
                $src: &[*const u8],
                $ss: &[isize],
                $count: usize,
            ) -> Result<(), KernelError> {
                let $this = |$($v: $t),+| self($($v),+);
                $body
            }
        }
    };
}

element_fn!(unary; T0 x0 0);
element_fn!(binary; T0 x0 0, T1 x1 1);
element_fn!(many; T0 x0 0, T1 x1 1, T2 x2 2);
element_fn!(many; T0 x0 0, T1 x1 1, T2 x2 2, T3 x3 3);
element_fn!(many; T0 x0 0, T1 x1 1, T2 x2 2, T3 x3 3, T4 x4 4);
element_fn!(many; T0 x0 0, T1 x1 1, T2 x2 2, T3 x3 3, T4 x4 4, T5 x5 5);
element_fn!(many; T0 x0 0, T1 x1 1, T2 x2 2, T3 x3 3, T4 x4 4, T5 x5 5, T6 x6 6);
element_fn!(many; T0 x0 0, T1 x1 1, T2 x2 2, T3 x3 3, T4 x4 4, T5 x5 5, T6 x6 6, T7 x7 7);
element_fn!(many; T0 x0 0, T1 x1 1, T2 x2 2, T3 x3 3, T4 x4 4, T5 x5 5, T6 x6 6, T7 x7 7, T8 x8 8);
element_fn!(many; T0 x0 0, T1 x1 1, T2 x2 2, T3 x3 3, T4 x4 4, T5 x5 5, T6 x6 6, T7 x7 7, T8 x8 8, T9 x9 9);
element_fn!(many; T0 x0 0, T1 x1 1, T2 x2 2, T3 x3 3, T4 x4 4, T5 x5 5, T6 x6 6, T7 x7 7, T8 x8 8, T9 x9 9, T10 x10 10);
element_fn!(many; T0 x0 0, T1 x1 1, T2 x2 2, T3 x3 3, T4 x4 4, T5 x5 5, T6 x6 6, T7 x7 7, T8 x8 8, T9 x9 9, T10 x10 10, T11 x11 11);
element_fn!(many; T0 x0 0, T1 x1 1, T2 x2 2, T3 x3 3, T4 x4 4, T5 x5 5, T6 x6 6, T7 x7 7, T8 x8 8, T9 x9 9, T10 x10 10, T11 x11 11, T12 x12 12);
element_fn!(many; T0 x0 0, T1 x1 1, T2 x2 2, T3 x3 3, T4 x4 4, T5 x5 5, T6 x6 6, T7 x7 7, T8 x8 8, T9 x9 9, T10 x10 10, T11 x11 11, T12 x12 12, T13 x13 13);
element_fn!(many; T0 x0 0, T1 x1 1, T2 x2 2, T3 x3 3, T4 x4 4, T5 x5 5, T6 x6 6, T7 x7 7, T8 x8 8, T9 x9 9, T10 x10 10, T11 x11 11, T12 x12 12, T13 x13 13, T14 x14 14);
element_fn!(many; T0 x0 0, T1 x1 1, T2 x2 2, T3 x3 3, T4 x4 4, T5 x5 5, T6 x6 6, T7 x7 7, T8 x8 8, T9 x9 9, T10 x10 10, T11 x11 11, T12 x12 12, T13 x13 13, T14 x14 14, T15 x15 15);
