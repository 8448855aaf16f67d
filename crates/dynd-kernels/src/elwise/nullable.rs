//! Leaves over option (`?T`) elements: Rust functions taking `Option<T>`
//! parameters or returning `Option<R>` see and make NA themselves, instead
//! of NA propagating around them.
//!
//! An option element is its value followed by a validity byte (1 valid,
//! 0 NA), as [`dynd_types::Type::data_layout`] lays `?T` out.

use std::marker::PhantomData;

use dynd_types::Scalar;

use super::maps::MapLoop;
use super::Leaf;
use crate::element::Element;
use crate::error::KernelError;

/// Runs `$m!(T)` for every element type (each gets its own impls: a
/// blanket impl over the foreign trait `Element` would overlap the ones
/// for `Option<T>`, as coherence sees it).
macro_rules! for_each_element {
    ($m:ident) => {
        $m!(bool);
        $m!(i8);
        $m!(i16);
        $m!(i32);
        $m!(i64);
        $m!(i128);
        $m!(u8);
        $m!(u16);
        $m!(u32);
        $m!(u64);
        $m!(u128);
        $m!(crate::element::F16);
        $m!(f32);
        $m!(f64);
        $m!(crate::element::Complex<f32>);
        $m!(crate::element::Complex<f64>);
    };
}

mod sealed {
    pub trait Sealed {}
    macro_rules! sealed {
        ($t:ty) => {
            impl Sealed for $t {}
        };
    }
    for_each_element!(sealed);
    impl<T: crate::element::Element> Sealed for Option<T> {}
}

/// A parameter type of a nullable leaf: an [`Element`] (`T`) or
/// `Option<T>` (a `?T` element, NA as `None`). Sealed: the loops read
/// memory through it.
pub trait LeafInput: sealed::Sealed + Copy + Send + Sync + 'static {
    /// The element type.
    const SCALAR: Scalar;
    /// Whether the parameter takes `?T`.
    const OPTION: bool;
    /// Reads one element.
    ///
    /// # Safety
    ///
    /// `p` points at a valid element of this parameter's type (`T`, or a
    /// `?T` element: the value and then its validity byte).
    #[doc(hidden)]
    unsafe fn read(p: *const u8) -> Self;
}

macro_rules! plain_input {
    ($t:ty) => {
        impl LeafInput for $t {
            const SCALAR: Scalar = <$t as Element>::SCALAR;
            const OPTION: bool = false;

            unsafe fn read(p: *const u8) -> $t {
                // SAFETY: a valid element, by the contract.
                unsafe { p.cast::<$t>().read_unaligned() }
            }
        }
    };
}
for_each_element!(plain_input);

impl<T: Element> LeafInput for Option<T> {
    const SCALAR: Scalar = T::SCALAR;
    const OPTION: bool = true;

    unsafe fn read(p: *const u8) -> Option<T> {
        // SAFETY: a `?T` element: its validity byte follows the value, and
        // the value is read only when valid.
        unsafe { (*p.add(size_of::<T>()) != 0).then(|| p.cast::<T>().read_unaligned()) }
    }
}

/// A result type of a nullable leaf: an [`Element`] or `Option<T>` (the
/// result is `?T`, `None` is NA). Sealed, as [`LeafInput`].
pub trait LeafOutput: sealed::Sealed + Copy + Send + Sync + 'static {
    /// The element type.
    const SCALAR: Scalar;
    /// Whether the result is `?T`.
    const OPTION: bool;
    /// Writes one element.
    ///
    /// # Safety
    ///
    /// `p` points at writable room for one element of this result type.
    #[doc(hidden)]
    unsafe fn write(self, p: *mut u8);
}

macro_rules! plain_output {
    ($t:ty) => {
        impl LeafOutput for $t {
            const SCALAR: Scalar = <$t as Element>::SCALAR;
            const OPTION: bool = false;

            unsafe fn write(self, p: *mut u8) {
                // SAFETY: room for one element, by the contract.
                unsafe { p.cast::<$t>().write_unaligned(self) }
            }
        }
    };
}
for_each_element!(plain_output);

impl<T: Element> LeafOutput for Option<T> {
    const SCALAR: Scalar = T::SCALAR;
    const OPTION: bool = true;

    unsafe fn write(self, p: *mut u8) {
        // SAFETY: room for a `?T` element: the value, then its validity
        // byte; an NA element's value bytes are zeroed (a valid `T`).
        unsafe {
            match self {
                Some(v) => {
                    p.cast::<T>().write_unaligned(v);
                    *p.add(size_of::<T>()) = 1;
                }
                None => {
                    std::ptr::write_bytes(p, 0, size_of::<T>());
                    *p.add(size_of::<T>()) = 0;
                }
            }
        }
    }
}

macro_rules! nullable_map {
    ($name:ident, $ctor:ident, $($a:ident $i:tt),+) => {
        pub(super) struct $name<$($a,)+ R, F> {
            f: F,
            _types: PhantomData<fn($($a),+) -> R>,
        }

        impl<$($a,)+ R, F: Clone> Clone for $name<$($a,)+ R, F> {
            fn clone(&self) -> Self {
                $name { f: self.f.clone(), _types: PhantomData }
            }
        }

        impl<$($a: LeafInput,)+ R: LeafOutput, F> MapLoop for $name<$($a,)+ R, F>
        where
            F: Fn($($a),+) -> R + Send + Sync + 'static,
        {
            const ARITY: usize = [$($i),+].len();

            /// # Safety
            ///
            /// As [`KernelData::strided`](crate::kernel::KernelData::strided), with `?T` elements for the
            /// option parameters and result.
            unsafe fn strided_loop(
                &self,
                dst: *mut u8,
                dst_stride: isize,
                src: &[*const u8],
                src_stride: &[isize],
                count: usize,
            ) -> Result<(), KernelError> {
                for i in 0..count as isize {
                    // SAFETY: `count` strided elements on each side, of the
                    // leaf's parameter types, by the contract.
                    let r = (self.f)($(unsafe { $a::read(src[$i].offset(i * src_stride[$i])) }),+);
                    // SAFETY: as above, for the destination.
                    unsafe { r.write(dst.offset(i * dst_stride)) };
                }
                Ok(())
            }

            fn describe(&self) -> String {
                let name = |s: Scalar, o: bool| if o { format!("?{s}") } else { s.to_string() };
                let inputs: Vec<String> = vec![$(name($a::SCALAR, $a::OPTION)),+];
                format!("nullable map ({}) -> {}", inputs.join(", "), name(R::SCALAR, R::OPTION))
            }
        }

        impl Leaf {
            #[doc = concat!("A leaf applying `f`, whose parameters and result may be `Option`s (`?T` elements: `None` is NA), to one element of each input (the number in the name counts them). NA in an `Option` parameter reaches `f`; in a plain one it makes the result NA without calling `f`.")]
            ///
            /// ```
            /// use dynd_kernels::elwise::{apply, Leaf};
            /// use dynd::nd::{Array, Value};
            ///
            /// let or_zero = Leaf::nullable1(|x: Option<f64>| x.unwrap_or(0.0));
            /// let a = Array::from_json("[1.5, null]", Some(&"2 * ?float64".parse()?))?;
            /// let r = apply(&[&a], &or_zero)?;
            /// assert_eq!((r.to_string(), r.ty().to_string()), ("[1.5, 0]".into(), "2 * float64".into()));
            /// let positive = Leaf::nullable1(|x: f64| (x > 0.0).then_some(x));
            /// let r = apply(&[&Array::from_vec(vec![2.0, -1.0])], &positive)?;
            /// assert_eq!((r.to_string(), r.ty().to_string()), ("[2, null]".into(), "2 * ?float64".into()));
            /// # Ok::<(), dynd::Error>(())
            /// ```
            pub fn $ctor<$($a: LeafInput,)+ R: LeafOutput>(
                f: impl Fn($($a),+) -> R + Clone + Send + Sync + 'static,
            ) -> Leaf {
                Leaf::from_map(
                    &[$($a::SCALAR),+],
                    &[$($a::OPTION),+],
                    (R::SCALAR, R::OPTION),
                    $name { f, _types: PhantomData },
                    false,
                )
            }
        }
    };
}

nullable_map!(Nullable1, nullable1, T0 0);
nullable_map!(Nullable2, nullable2, T0 0, T1 1);
nullable_map!(Nullable3, nullable3, T0 0, T1 1, T2 2);
nullable_map!(Nullable4, nullable4, T0 0, T1 1, T2 2, T3 3);
nullable_map!(Nullable5, nullable5, T0 0, T1 1, T2 2, T3 3, T4 4);
nullable_map!(Nullable6, nullable6, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5);
nullable_map!(Nullable7, nullable7, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6);
nullable_map!(Nullable8, nullable8, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7);
nullable_map!(Nullable9, nullable9, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8);
nullable_map!(Nullable10, nullable10, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9);
nullable_map!(Nullable11, nullable11, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10);
nullable_map!(Nullable12, nullable12, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11);
nullable_map!(Nullable13, nullable13, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12);
nullable_map!(Nullable14, nullable14, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13);
nullable_map!(Nullable15, nullable15, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14);
nullable_map!(Nullable16, nullable16, T0 0, T1 1, T2 2, T3 3, T4 4, T5 5, T6 6, T7 7, T8 8, T9 9, T10 10, T11 11, T12 12, T13 13, T14 14, T15 15);
