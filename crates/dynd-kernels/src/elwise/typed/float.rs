//! Plain float operations ([`F64Op`]) over `float64` and `float32`.

use super::*;

/// A plain floating-point operation ([`F64Op`]) over `T` (`f64` or
/// `f32`), as a [`Family`]: the same IEEE operation on every set, so the
/// same bits.
#[derive(Clone, Copy)]
struct FloatFn<T>(F64Op, std::marker::PhantomData<T>);

/// The element types of [`FloatFn`]: the table's float family, and
/// the leaf's scalar type.
trait OpFloat: crate::op::Float {
    const SCALAR: dynd_types::Scalar;
}

impl OpFloat for f64 {
    const SCALAR: dynd_types::Scalar = dynd_types::Scalar::Float64;
}

impl OpFloat for f32 {
    const SCALAR: dynd_types::Scalar = dynd_types::Scalar::Float32;
}

impl<T: OpFloat> Family for FloatFn<T> {
    #[inline(always)]
    unsafe fn body(
        self,
        dst: *mut u8,
        ds: isize,
        a: (*const u8, isize),
        b: (*const u8, isize),
        count: usize,
    ) {
        use crate::op::FloatApply;
        // One loop per operation, each a plain vector loop.
        crate::op::with_f64_op!(self.0, O => {
            // SAFETY: the caller's contract, forwarded.
            unsafe { zip_loop::<T, T>(O::apply, dst, ds, a, b, count) }
        })
    }

    fn f64_op(self) -> Option<F64Op> {
        (T::SCALAR == dynd_types::Scalar::Float64).then_some(self.0)
    }

    fn describe(self, arity: usize) -> String {
        let t = T::SCALAR;
        if arity == 2 {
            format!("map ({t}, {t}) -> {t}")
        } else {
            format!("map ({t}) -> {t}")
        }
    }
}

impl Leaf {
    /// The leaf of a plain `float64` operation, its loops dispatched by
    /// instruction set ([`Leaf::f64_op`]'s kernel).
    pub(in crate::elwise) fn f64_op_loop(op: F64Op) -> Leaf {
        Leaf::float_op_loop::<f64>(op)
    }

    /// The leaf of the operation `op` over `float32` (`(float32,
    /// float32) -> float32`, or `(float32) -> float32`), its loops
    /// dispatched by instruction set as [`Leaf::f64_op`]'s are. Unlike
    /// those, it is not marked for the fused `float64` loop.
    ///
    /// ```
    /// use dynd::func::raw::F64Op;
    /// use dynd::func::{Callable, Leaf, Overload};
    /// use dynd::nd::Array;
    ///
    /// let floor = Leaf::f32_op(F64Op::Floor);
    /// let floor = Callable::new("floor", vec![Overload::new(floor)])?;
    /// let r = floor.call(&[&Array::from_vec(vec![-1.5f32, 2.5])])?;
    /// assert_eq!(r.to_vec::<f32>()?, [-2.0, 2.0]);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn f32_op(op: F64Op) -> Leaf {
        Leaf::float_op_loop::<f32>(op)
    }

    fn float_op_loop<T: OpFloat>(op: F64Op) -> Leaf {
        let f = FloatFn::<T>(op, std::marker::PhantomData);
        Leaf::dispatched(f, op.arity(), T::SCALAR, T::SCALAR)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dynd_math::Isa;

    fn run<T: OpFloat + Into<f64>>(
        isa: Isa,
        op: F64Op,
        xs: &[f64],
        ys: &[f64],
        step: usize,
        narrow: fn(f64) -> T,
    ) -> Vec<u64> {
        let n = xs.len();
        let spread = |v: &[f64]| -> Vec<T> {
            v.iter()
                .flat_map(|&x| std::iter::once(x).chain(std::iter::repeat_n(7.0, step - 1)))
                .map(narrow)
                .collect()
        };
        let (x, y) = (spread(xs), spread(ys));
        let mut out = vec![narrow(0.0); n * step];
        let stride = (std::mem::size_of::<T>() * step) as isize;
        let a = (x.as_ptr().cast::<u8>(), stride);
        let b = if op.arity() == 2 {
            (y.as_ptr().cast::<u8>(), stride)
        } else {
            a
        };
        // SAFETY: `n` elements of `T`, `stride` bytes apart, in each
        // vector; the CPU has the set (the caller's filter).
        unsafe {
            FloatFn::<T>(op, Default::default()).run_on(
                isa,
                out.as_mut_ptr().cast(),
                stride,
                a,
                b,
                n,
            )
        };
        out.into_iter()
            .step_by(step)
            .map(|v| v.into().to_bits())
            .collect()
    }

    /// Every operation on every instruction set this CPU has, contiguous
    /// and strided, in `float64` and `float32`, gives the bits of
    /// [`F64Op::apply`] (rounded to `float32`, which for these operations
    /// is the `float32` operation). The rounding ones are single
    /// instructions on AVX2 and AVX-512, a library call on the baseline.
    #[test]
    fn every_path_gives_the_bits_of_apply() {
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            -2.5,
            0.49999999999999994,
            4503599627370495.5,
            -4503599627370495.5,
            9007199254740993.0,
            8388607.5,
            1e300,
            -1e-310,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            -f64::NAN,
        ];
        xs.extend((0..200).map(|i| (i as f64 - 100.0) * 0.37));
        let ys: Vec<f64> = xs.iter().rev().copied().collect();
        let (xs32, ys32): (Vec<f64>, Vec<f64>) = xs
            .iter()
            .zip(&ys)
            .map(|(&x, &y)| ((x as f32) as f64, (y as f32) as f64))
            .unzip();
        let ops = F64Op::ALL.iter().copied();
        let want = |xs: &[f64], ys: &[f64], op: F64Op, narrow: fn(f64) -> f64| -> Vec<u64> {
            let pairs = xs.iter().zip(ys);
            pairs
                .map(|(&x, &y)| narrow(op.apply(x, y)).to_bits())
                .collect()
        };
        for isa in crate::isa::available() {
            for op in ops.clone() {
                let want64 = want(&xs, &ys, op, |v| v);
                let want32 = want(&xs32, &ys32, op, |v| (v as f32) as f64);
                for step in [1, 2] {
                    let got = run::<f64>(isa, op, &xs, &ys, step, |v| v);
                    assert_eq!(got, want64, "{op:?} on {} at step {step}", isa.name());
                    let got = run::<f32>(isa, op, &xs32, &ys32, step, |v| v as f32);
                    assert_eq!(got, want32, "{op:?} f32 on {} at step {step}", isa.name());
                }
            }
        }
    }
}
