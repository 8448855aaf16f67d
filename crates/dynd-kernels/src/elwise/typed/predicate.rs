//! Tests of one or two numbers giving `bool`s ([`Predicate`]).

use super::*;

pub use crate::op::Predicate;

/// The element types of [`Predicate`]'s loops: the table's numbers, and
/// the leaf's scalar type.
trait PredElem: crate::op::Num {
    const SCALAR: dynd_types::Scalar;
}

macro_rules! pred_elem {
    ($($t:ty => $scalar:ident),*) => {$(
        impl PredElem for $t {
            const SCALAR: dynd_types::Scalar = dynd_types::Scalar::$scalar;
        }
    )*};
}

pred_elem!(
    f64 => Float64, f32 => Float32, i64 => Int64, i32 => Int32, i16 => Int16, i8 => Int8,
    u64 => UInt64, u32 => UInt32, u16 => UInt16, u8 => UInt8
);

/// A [`Predicate`] over `T`, as a [`Family`].
#[derive(Clone, Copy)]
struct PredFn<T>(Predicate, std::marker::PhantomData<T>);

impl<T: PredElem> Family for PredFn<T> {
    #[inline(always)]
    unsafe fn body(
        self,
        dst: *mut u8,
        ds: isize,
        a: (*const u8, isize),
        b: (*const u8, isize),
        count: usize,
    ) {
        use crate::op::Test;
        // One loop per test, each a plain vector loop.
        crate::op::with_predicate!(self.0, O => {
            // SAFETY: the caller's contract, forwarded (a `bool` result
            // is written as 0 or 1).
            unsafe { zip_loop::<T, bool>(O::test, dst, ds, a, b, count) }
        })
    }

    fn describe(self, arity: usize) -> String {
        let t = T::SCALAR;
        if arity == 2 {
            format!("{:?} ({t}, {t}) -> bool", self.0)
        } else {
            format!("{:?} ({t}) -> bool", self.0)
        }
    }
}

impl Leaf {
    /// The leaf of `p` over `scalar` (`float64`, `float32`, or an integer
    /// type of up to 64 bits; `None` for others), its loops compiled for AVX2 and
    /// AVX-512 and chosen at run time as [`Leaf::f32_op`]'s are.
    ///
    /// ```
    /// use dynd::func::raw::Predicate;
    /// use dynd::func::{Callable, Leaf, Overload};
    /// use dynd::nd::Array;
    /// use dynd::ndt::Scalar;
    ///
    /// let less = Leaf::predicate(Predicate::Less, Scalar::Float64).unwrap();
    /// let less = Callable::new("less", vec![Overload::new(less)])?;
    /// let (a, b) = (Array::from_vec(vec![1.0, f64::NAN, 3.0]), Array::from_vec(vec![2.0, 0.0, 3.0]));
    /// assert_eq!(less.call(&[&a, &b])?.to_vec::<bool>()?, [true, false, false]);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn predicate(p: Predicate, scalar: dynd_types::Scalar) -> Option<Leaf> {
        use dynd_types::Scalar as S;
        Some(match scalar {
            S::Float64 => Leaf::predicate_loop::<f64>(p),
            S::Float32 => Leaf::predicate_loop::<f32>(p),
            S::Int64 => Leaf::predicate_loop::<i64>(p),
            S::Int32 => Leaf::predicate_loop::<i32>(p),
            S::Int16 => Leaf::predicate_loop::<i16>(p),
            S::Int8 => Leaf::predicate_loop::<i8>(p),
            S::UInt64 => Leaf::predicate_loop::<u64>(p),
            S::UInt32 => Leaf::predicate_loop::<u32>(p),
            S::UInt16 => Leaf::predicate_loop::<u16>(p),
            S::UInt8 => Leaf::predicate_loop::<u8>(p),
            _ => return None,
        })
    }

    fn predicate_loop<T: PredElem>(p: Predicate) -> Leaf {
        let f = PredFn::<T>(p, std::marker::PhantomData);
        Leaf::dispatched(f, p.arity(), T::SCALAR, dynd_types::Scalar::Bool)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dynd_math::Isa;

    /// `p` over `xs` and `ys` (every `step`-th element of runs `step`
    /// times as long, into a destination of the same step) on `isa`.
    fn run_pred<T: PredElem>(isa: Isa, p: Predicate, xs: &[T], ys: &[T], step: usize) -> Vec<bool> {
        let spread = |v: &[T]| -> Vec<T> {
            v.iter()
                .flat_map(|&x| std::iter::repeat_n(x, step))
                .collect()
        };
        let (x, y) = (spread(xs), spread(ys));
        let n = xs.len();
        // Bytes other than the written ones keep 2 (not a `bool`), so a
        // loop writing where it should not is seen.
        let mut out = vec![2u8; n * step];
        let stride = (std::mem::size_of::<T>() * step) as isize;
        let a = (x.as_ptr().cast::<u8>(), stride);
        let b = if p.arity() == 2 {
            (y.as_ptr().cast::<u8>(), stride)
        } else {
            a
        };
        // SAFETY: `n` elements of `T`, `stride` bytes apart, in each
        // argument, and `n` bytes `step` apart in `out`; the CPU has the
        // set (the caller's filter).
        unsafe {
            PredFn::<T>(p, Default::default()).run_on(isa, out.as_mut_ptr(), step as isize, a, b, n)
        };
        for (i, &v) in out.iter().enumerate() {
            assert!(i % step != 0 || v <= 1, "not a bool at {i}");
            assert!(i % step == 0 || v == 2, "written between elements at {i}");
        }
        out.into_iter().step_by(step).map(|v| v == 1).collect()
    }

    /// Every predicate on every instruction set this CPU has, contiguous
    /// and strided, over `float64`, `float32` and every integer type up
    /// to 64 bits (NaNs, infinities, signed zeros, extremes, values that
    /// wrap when narrowed), gives what the scalar operators give.
    #[test]
    fn every_predicate_on_every_path_matches_the_operators() {
        let mut xs = vec![
            0.0,
            -0.0,
            1.0,
            -1.0,
            1.5,
            f64::MIN_POSITIVE,
            -1e-310,
            1e300,
            f64::MAX,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        xs.extend((0..100).map(|i| ((i * 37) % 23) as f64 - 11.0));
        let ys: Vec<f64> = xs.iter().rev().copied().collect();
        let preds = Predicate::ALL.iter().copied();
        fn check<T: PredElem + std::fmt::Debug>(p: Predicate, xs: &[T], ys: &[T]) {
            let want: Vec<bool> = xs.iter().zip(ys).map(|(&x, &y)| p.test(x, y)).collect();
            for isa in crate::isa::available() {
                for step in [1, 3] {
                    let got = run_pred(isa, p, xs, ys, step);
                    assert_eq!(
                        got,
                        want,
                        "{p:?} over {:?} on {} at step {step}",
                        T::SCALAR,
                        isa.name()
                    );
                }
            }
        }
        let (xs32, ys32): (Vec<f32>, Vec<f32>) = xs
            .iter()
            .zip(&ys)
            .map(|(&x, &y)| (x as f32, y as f32))
            .unzip();
        let ints = |v: &[f64]| -> Vec<i64> {
            v.iter()
                .map(|&x| {
                    if x.is_finite() {
                        (x * 1e6) as i64
                    } else {
                        i64::MIN
                    }
                })
                .chain([i64::MAX, -1, 0])
                .collect()
        };
        let (xi, yi) = (ints(&xs), ints(&ys));
        let (xi32, yi32): (Vec<i32>, Vec<i32>) = xi
            .iter()
            .zip(&yi)
            .map(|(&x, &y)| (x as i32, y as i32))
            .unzip();
        for p in preds {
            check(p, &xs, &ys);
            check(p, &xs32, &ys32);
            check(p, &xi, &yi);
            check(p, &xi32, &yi32);
            macro_rules! narrower {
                ($($t:ty),*) => {$(
                    let x: Vec<$t> = xi.iter().map(|&v| v as $t).collect();
                    let y: Vec<$t> = yi.iter().map(|&v| v as $t).collect();
                    check(p, &x, &y);
                )*};
            }
            narrower!(i16, i8, u64, u32, u16, u8);
        }
        // The classification tests match the float methods.
        assert!(
            Predicate::IsNan.test(f64::NAN, 0.0) && !Predicate::IsFinite.test(f64::INFINITY, 0.0)
        );
    }
}
