//! Leaf kernels from Rust functions over element types.

use super::*;
use crate::element::Element;
use crate::error::KernelError;
use crate::kernel::{KernelCtx, KernelData};

/// The loop of a map leaf (a Rust function over fixed element types).
pub(super) trait MapLoop: Send + Sync + 'static {
    /// The number of inputs.
    const ARITY: usize;

    /// # Safety
    ///
    /// As [`KernelData::strided`].
    unsafe fn strided_loop(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError>;

    /// One line for [`crate::kernel::Kernel::describe`].
    fn describe(&self) -> String;
}

/// A map leaf as a kernel record, and as a flat loop.
#[derive(Clone)]
pub(super) struct MapLeaf<M>(pub(super) M);

impl<M: MapLoop> KernelData for MapLeaf<M> {
    unsafe fn single(
        &self,
        _: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        let zeros = [0isize; MAX_LEAF_ARGS];
        // SAFETY: one element each, by the contract; no leaf takes more
        // than `MAX_LEAF_ARGS` inputs.
        unsafe { self.0.strided_loop(dst, 0, src, &zeros[..src.len()], 1) }
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
        // SAFETY: forwarded contract.
        unsafe { self.0.strided_loop(dst, dst_stride, src, src_stride, count) }
    }

    fn describe(&self) -> String {
        self.0.describe()
    }
}

impl<M: MapLoop> FlatRun for MapLeaf<M> {
    unsafe fn run(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) {
        // SAFETY: forwarded contract; maps never fail.
        let _ = unsafe { self.0.strided_loop(dst, dst_stride, src, src_stride, count) };
    }

    unsafe fn run_rows(
        &self,
        walk: &mut crate::loops::ragged::Walk<'_>,
        range: std::ops::Range<usize>,
        out: (*mut u8, *mut u8),
        out_size: usize,
        lead: Option<(usize, isize)>,
    ) -> bool {
        // The walk's operands are the leaf's inputs (the caller checks).
        debug_assert_eq!(walk.operands(), M::ARITY);
        // SAFETY: forwarded; the arity is the number of operands.
        unsafe { crate::loops::ragged::leaf_rows(self, walk, range, out, out_size, lead, M::ARITY) }
    }
}

/// A Rust function of one element, as a leaf kernel.
#[derive(Clone)]
pub(super) struct Map1<A, R, F> {
    pub(super) f: F,
    pub(super) _types: std::marker::PhantomData<fn(A) -> R>,
}

/// A Rust function of two elements, as a leaf kernel.
#[derive(Clone)]
pub(super) struct Map2<A, B, R, F> {
    pub(super) f: F,
    pub(super) _types: std::marker::PhantomData<fn(A, B) -> R>,
}

impl<A: Element, R: Element, F: Fn(A) -> R + Send + Sync + 'static> MapLoop for Map1<A, R, F> {
    const ARITY: usize = 1;

    /// # Safety
    ///
    /// As [`KernelData::strided`].
    unsafe fn strided_loop(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        let (d, a) = (dst as *mut R, src[0] as *const A);
        if dst_stride == size_of::<R>() as isize && src_stride[0] == size_of::<A>() as isize {
            for i in 0..count {
                // SAFETY: `count` contiguous elements on each side, by the contract.
                unsafe {
                    d.add(i)
                        .write_unaligned((self.f)(a.add(i).read_unaligned()))
                };
            }
        } else {
            for i in 0..count as isize {
                // SAFETY: `count` strided elements on each side, by the contract.
                unsafe {
                    let x = (src[0].offset(i * src_stride[0]) as *const A).read_unaligned();
                    (dst.offset(i * dst_stride) as *mut R).write_unaligned((self.f)(x));
                }
            }
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!("map {} -> {}", A::SCALAR, R::SCALAR)
    }
}

impl<A: Element, B: Element, R: Element, F: Fn(A, B) -> R + Send + Sync + 'static> MapLoop
    for Map2<A, B, R, F>
{
    const ARITY: usize = 2;

    /// # Safety
    ///
    /// As [`KernelData::strided`].
    unsafe fn strided_loop(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        let (d, a, b) = (dst as *mut R, src[0] as *const A, src[1] as *const B);
        if count == 0 {
            // Nothing to read: an empty operand's pointer may lie anywhere.
            return Ok(());
        }
        if count == 1 {
            // One element (a small call): no loop to set up.
            // SAFETY: one element on each side, by the contract.
            unsafe { d.write_unaligned((self.f)(a.read_unaligned(), b.read_unaligned())) };
            return Ok(());
        }
        let (sa, sb) = (src_stride[0], src_stride[1]);
        let unit = |s: isize, size: usize| s == size as isize;
        if unit(dst_stride, size_of::<R>()) && unit(sa, size_of::<A>()) && unit(sb, size_of::<B>())
        {
            for i in 0..count {
                // SAFETY: `count` contiguous elements on each side, by the contract.
                unsafe {
                    d.add(i).write_unaligned((self.f)(
                        a.add(i).read_unaligned(),
                        b.add(i).read_unaligned(),
                    ))
                };
            }
        } else if unit(dst_stride, size_of::<R>()) && unit(sa, size_of::<A>()) && sb == 0 {
            // SAFETY: the broadcast element is valid by the contract.
            let y = unsafe { b.read_unaligned() };
            for i in 0..count {
                // SAFETY: `count` contiguous elements, by the contract.
                unsafe {
                    d.add(i)
                        .write_unaligned((self.f)(a.add(i).read_unaligned(), y))
                };
            }
        } else if unit(dst_stride, size_of::<R>())
            && unit(sa, 2 * size_of::<A>())
            && unit(sb, 2 * size_of::<B>())
        {
            // Neighbours paired (the even and odd elements of one line, as
            // a fold's levels take them): constant strides, which the
            // compiler vectorises as interleaved loads.
            for i in 0..count {
                // SAFETY: `count` elements two apart on each side, by the
                // contract.
                unsafe {
                    d.add(i).write_unaligned((self.f)(
                        a.add(2 * i).read_unaligned(),
                        b.add(2 * i).read_unaligned(),
                    ))
                };
            }
        } else if unit(dst_stride, size_of::<R>()) && sa == 0 && unit(sb, size_of::<B>()) {
            // SAFETY: the broadcast element is valid by the contract.
            let x = unsafe { a.read_unaligned() };
            for i in 0..count {
                // SAFETY: `count` contiguous elements, by the contract.
                unsafe {
                    d.add(i)
                        .write_unaligned((self.f)(x, b.add(i).read_unaligned()))
                };
            }
        } else {
            for i in 0..count as isize {
                // SAFETY: `count` strided elements on each side, by the contract.
                unsafe {
                    let x = (src[0].offset(i * sa) as *const A).read_unaligned();
                    let y = (src[1].offset(i * sb) as *const B).read_unaligned();
                    (dst.offset(i * dst_stride) as *mut R).write_unaligned((self.f)(x, y));
                }
            }
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!("map ({}, {}) -> {}", A::SCALAR, B::SCALAR, R::SCALAR)
    }
}

/// Rust functions of three or more elements, as leaf kernels (one and two
/// have their own loops, with contiguous and broadcast fast paths).
macro_rules! map_n {
    ($name:ident, $ctor:ident, $($a:ident $i:tt),+) => {
        pub(super) struct $name<$($a,)+ R, F> {
            f: F,
            _types: std::marker::PhantomData<fn($($a),+) -> R>,
        }

        impl<$($a,)+ R, F: Clone> Clone for $name<$($a,)+ R, F> {
            fn clone(&self) -> Self {
                $name { f: self.f.clone(), _types: std::marker::PhantomData }
            }
        }

        impl<$($a: Element,)+ R: Element, F> MapLoop for $name<$($a,)+ R, F>
        where
            F: Fn($($a),+) -> R + Send + Sync + 'static,
        {
            const ARITY: usize = [$($i),+].len();

            /// # Safety
            ///
            /// As [`KernelData::strided`].
            unsafe fn strided_loop(
                &self,
                dst: *mut u8,
                dst_stride: isize,
                src: &[*const u8],
                src_stride: &[isize],
                count: usize,
            ) -> Result<(), KernelError> {
                for i in 0..count as isize {
                    // SAFETY: `count` strided elements on each side, by the contract.
                    let r = (self.f)($(unsafe {
                        (src[$i].offset(i * src_stride[$i]) as *const $a).read_unaligned()
                    }),+);
                    // SAFETY: as above, for the destination.
                    unsafe { (dst.offset(i * dst_stride) as *mut R).write_unaligned(r) };
                }
                Ok(())
            }

            fn describe(&self) -> String {
                let inputs: Vec<String> = vec![$($a::SCALAR.to_string()),+];
                format!("map ({}) -> {}", inputs.join(", "), R::SCALAR)
            }
        }

        impl Leaf {
            /// A leaf applying `f` to one element of each input; the number in
            /// the name counts the inputs (see [`Leaf::map2`]).
            pub fn $ctor<$($a: Element,)+ R: Element>(
                f: impl Fn($($a),+) -> R + Clone + Send + Sync + 'static,
            ) -> Leaf {
                Leaf::from_map(
                    &[$($a::SCALAR),+],
                    &[$({ let _ = $i; false }),+],
                    (R::SCALAR, false),
                    $name { f, _types: std::marker::PhantomData },
                    true,
                )
            }
        }
    };
}

/// Rust functions returning `Result`, as leaf kernels: an `Err` stops the
/// loop and becomes a [`KernelError`] naming the element (dimension
/// kernels prepend the outer indices).
macro_rules! try_map {
    ($name:ident, $($a:ident $i:tt),+) => {
        pub(super) struct $name<$($a,)+ R, E, F> {
            pub(super) f: F,
            pub(super) _types: std::marker::PhantomData<fn($($a),+) -> Result<R, E>>,
        }

        impl<$($a,)+ R, E, F: Clone> Clone for $name<$($a,)+ R, E, F> {
            fn clone(&self) -> Self {
                $name { f: self.f.clone(), _types: std::marker::PhantomData }
            }
        }

        impl<$($a: Element,)+ R: Element, E: std::fmt::Display + 'static, F> MapLoop
            for $name<$($a,)+ R, E, F>
        where
            F: Fn($($a),+) -> Result<R, E> + Send + Sync + 'static,
        {
            const ARITY: usize = [$($i),+].len();

            /// # Safety
            ///
            /// As [`KernelData::strided`].
            unsafe fn strided_loop(
                &self,
                dst: *mut u8,
                dst_stride: isize,
                src: &[*const u8],
                src_stride: &[isize],
                count: usize,
            ) -> Result<(), KernelError> {
                for i in 0..count as isize {
                    // SAFETY: `count` strided elements on each side, by the contract.
                    let r = (self.f)($(unsafe {
                        (src[$i].offset(i * src_stride[$i]) as *const $a).read_unaligned()
                    }),+);
                    match r {
                        // SAFETY: as above, for the destination.
                        Ok(v) => unsafe { (dst.offset(i * dst_stride) as *mut R).write_unaligned(v) },
                        Err(e) => return Err(KernelError::message(e.to_string()).at(i as usize)),
                    }
                }
                Ok(())
            }

            fn describe(&self) -> String {
                let inputs: Vec<String> = vec![$($a::SCALAR.to_string()),+];
                format!("fallible map ({}) -> {}", inputs.join(", "), R::SCALAR)
            }
        }
    };
    ($name:ident, $ctor:ident, $($a:ident $i:tt),+; ctor) => {
        try_map!($name, $($a $i),+);

        impl Leaf {
            /// A leaf applying the fallible `f` to one element of each input; the
            /// number in the name counts the inputs (see [`Leaf::try_map1`]).
            pub fn $ctor<$($a: Element,)+ R: Element, E: std::fmt::Display + 'static>(
                f: impl Fn($($a),+) -> Result<R, E> + Clone + Send + Sync + 'static,
            ) -> Leaf {
                Leaf::from_map(
                    &[$($a::SCALAR),+],
                    &[$({ let _ = $i; false }),+],
                    (R::SCALAR, false),
                    $name { f, _types: std::marker::PhantomData },
                    false,
                )
            }
        }
    };
}

try_map!(TryMap1, A 0);
try_map!(TryMap2, try_map2, T0 0, T1 1; ctor);
try_map!(TryMap3, try_map3, T0 0, T1 1, T2 2; ctor);
try_map!(TryMap4, try_map4, T0 0, T1 1, T2 2, T3 3; ctor);
try_map!(TryMap5, try_map5, T0 0, T1 1, T2 2, T3 3, T4 4; ctor);
try_map!(TryMap6, try_map6, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5; ctor);
try_map!(TryMap7, try_map7, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6; ctor);
try_map!(TryMap8, try_map8, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7; ctor);
try_map!(TryMap9, try_map9, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8; ctor);
try_map!(TryMap10, try_map10, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9; ctor);
try_map!(TryMap11, try_map11, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10; ctor);
try_map!(TryMap12, try_map12, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11; ctor);
try_map!(TryMap13, try_map13, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12; ctor);
try_map!(TryMap14, try_map14, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13; ctor);
try_map!(TryMap15, try_map15, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14; ctor);
try_map!(TryMap16, try_map16, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14, T15 15; ctor);

map_n!(Map3, map3, T0 0, T1 1, T2 2);
map_n!(Map4, map4, T0 0, T1 1, T2 2, T3 3);
map_n!(Map5, map5, T0 0, T1 1, T2 2, T3 3, T4 4);
map_n!(Map6, map6, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5);
map_n!(Map7, map7, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6);
map_n!(Map8, map8, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7);
map_n!(Map9, map9, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8);
map_n!(Map10, map10, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9);
map_n!(Map11, map11, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10);
map_n!(Map12, map12, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11);
map_n!(Map13, map13, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12);
map_n!(Map14, map14, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13);
map_n!(Map15, map15, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14);
map_n!(Map16, map16, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14, T15 15);
