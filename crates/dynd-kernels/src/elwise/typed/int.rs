//! Wrapping integer arithmetic and bitwise operations ([`IntOp`]) over
//! the integer types up to 64 bits.

use super::*;

pub use crate::op::IntOp;

/// The element types of [`IntOp`]'s loops: the table's integer family.
trait IntElem: crate::op::Int {}

impl<T: crate::op::Int> IntElem for T {}

/// An [`IntOp`] over elements of the width of `T`, as a [`Family`]
/// (the leaf's type is `scalar`; a sign-blind operation on a signed
/// type runs the unsigned type's loop).
#[derive(Clone, Copy)]
struct IntFn<T> {
    op: IntOp,
    scalar: dynd_types::Scalar,
    elem: std::marker::PhantomData<T>,
}

impl<T: IntElem> Family for IntFn<T> {
    #[inline(always)]
    unsafe fn body(
        self,
        dst: *mut u8,
        ds: isize,
        a: (*const u8, isize),
        b: (*const u8, isize),
        count: usize,
    ) {
        use crate::op::IntApply;
        // One loop per operation, each a plain vector loop.
        crate::op::with_int_op!(self.op, O => {
            // SAFETY: the caller's contract, forwarded.
            unsafe { zip_loop::<T, T>(O::apply, dst, ds, a, b, count) }
        })
    }

    fn describe(self, arity: usize) -> String {
        let t = self.scalar;
        if arity == 2 {
            format!("{:?} ({t}, {t}) -> {t}", self.op)
        } else {
            format!("{:?} ({t}) -> {t}", self.op)
        }
    }
}

impl Leaf {
    /// The leaf of `op` over `scalar` (an integer type of up to 64 bits;
    /// `None` for others), its loops compiled for AVX2 and AVX-512 and
    /// chosen at run time as [`Leaf::predicate`]'s are.
    ///
    /// ```
    /// use dynd::func::raw::IntOp;
    /// use dynd::func::{Callable, Leaf, Overload};
    /// use dynd::nd::Array;
    /// use dynd::ndt::Scalar;
    ///
    /// let add = Leaf::int_op(IntOp::Add, Scalar::Int8).unwrap();
    /// let add = Callable::new("add", vec![Overload::new(add)])?;
    /// let (a, b) = (Array::from_vec(vec![100i8, -3]), Array::from_vec(vec![100i8, 2]));
    /// assert_eq!(add.call(&[&a, &b])?.to_vec::<i8>()?, [-56, -1]);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn int_op(op: IntOp, scalar: dynd_types::Scalar) -> Option<Leaf> {
        use dynd_types::Scalar as S;
        let blind = op.sign_blind();
        Some(match scalar {
            S::UInt8 => Leaf::int_loop::<u8>(op, scalar),
            S::UInt16 => Leaf::int_loop::<u16>(op, scalar),
            S::UInt32 => Leaf::int_loop::<u32>(op, scalar),
            S::UInt64 => Leaf::int_loop::<u64>(op, scalar),
            S::Int8 if blind => Leaf::int_loop::<u8>(op, scalar),
            S::Int16 if blind => Leaf::int_loop::<u16>(op, scalar),
            S::Int32 if blind => Leaf::int_loop::<u32>(op, scalar),
            S::Int64 if blind => Leaf::int_loop::<u64>(op, scalar),
            S::Int8 => Leaf::int_loop::<i8>(op, scalar),
            S::Int16 => Leaf::int_loop::<i16>(op, scalar),
            S::Int32 => Leaf::int_loop::<i32>(op, scalar),
            S::Int64 => Leaf::int_loop::<i64>(op, scalar),
            _ => return None,
        })
    }

    fn int_loop<T: IntElem>(op: IntOp, scalar: dynd_types::Scalar) -> Leaf {
        let elem = std::marker::PhantomData::<T>;
        Leaf::dispatched(IntFn { op, scalar, elem }, op.arity(), scalar, scalar)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dynd_math::Isa;

    const OPS: &[IntOp] = IntOp::ALL;

    /// What the leaf of `op` over `scalar` writes for `xs` and `ys`
    /// (every `step`-th element of runs `step` times as long, into a
    /// destination of the same step), with `DYND_SIMD`'s choice replaced
    /// by `isa`: the leaf's own loop, run through its strided entry.
    fn run<T: IntElem + Default + std::fmt::Debug>(
        isa: Isa,
        op: IntOp,
        xs: &[T],
        ys: &[T],
        step: usize,
    ) -> Vec<T> {
        let spread = |v: &[T]| -> Vec<T> {
            v.iter()
                .flat_map(|&x| std::iter::repeat_n(x, step))
                .collect()
        };
        let (x, y) = (spread(xs), spread(ys));
        let n = xs.len();
        let sentinel = !T::default();
        let mut out = vec![sentinel; n * step];
        let stride = (std::mem::size_of::<T>() * step) as isize;
        let a = (x.as_ptr().cast::<u8>(), stride);
        let b = if op.arity() == 2 {
            (y.as_ptr().cast::<u8>(), stride)
        } else {
            a
        };
        // The leaf's type only names it; the loop is `T`'s.
        let f = IntFn::<T> {
            op,
            scalar: dynd_types::Scalar::Int64,
            elem: std::marker::PhantomData,
        };
        // SAFETY: `n` elements of `T`, `stride` bytes apart, in each
        // argument and in `out`; the CPU has the set (the caller's
        // filter).
        unsafe { f.run_on(isa, out.as_mut_ptr().cast(), stride, a, b, n) };
        for (i, v) in out.iter().enumerate() {
            assert!(
                i % step == 0 || *v == sentinel,
                "written between elements at {i}"
            );
        }
        out.into_iter().step_by(step).collect()
    }

    /// The exact result of `op` on `x` and `y`, in `i128`: the wrapping
    /// operations' result is this, truncated to the type's width.
    fn exact(op: IntOp, x: i128, y: i128, bits: u32) -> i128 {
        match op {
            IntOp::Add => x + y,
            IntOp::Sub => x - y,
            IntOp::Mul => x.wrapping_mul(y),
            IntOp::BitAnd => x & y,
            IntOp::BitOr => x | y,
            IntOp::BitXor => x ^ y,
            IntOp::Maximum | IntOp::Fmax => x.max(y),
            IntOp::Minimum | IntOp::Fmin => x.min(y),
            IntOp::ShiftLeft if (0..bits as i128).contains(&y) => x << y,
            IntOp::ShiftRight if (0..bits as i128).contains(&y) => x >> y,
            IntOp::ShiftLeft => 0,
            IntOp::ShiftRight => -((x < 0) as i128),
            IntOp::Neg => -x,
            IntOp::Invert => !x & ((1i128 << bits) - 1),
            IntOp::Abs => x.abs(),
        }
    }

    /// Every operation over `xs` and `ys` (as `T`) on every instruction
    /// set this CPU has, contiguous and strided, gives the exact result
    /// truncated to `T` (`wide` and `narrow` convert).
    fn check<T: IntElem + Default + std::fmt::Debug>(
        name: &str,
        xs: &[T],
        ys: &[T],
        wide: fn(T) -> i128,
        narrow: fn(i128) -> T,
    ) {
        let bits = 8 * std::mem::size_of::<T>() as u32;
        // Shift counts from -2 to past the width.
        let counts: Vec<T> = (0..xs.len())
            .map(|i| narrow((i as u32 % (bits + 4)) as i128 - 2))
            .collect();
        for &op in OPS {
            let shift = matches!(op, IntOp::ShiftLeft | IntOp::ShiftRight);
            let ys = if shift { &counts[..] } else { ys };
            let want: Vec<T> = xs
                .iter()
                .zip(ys)
                .map(|(&x, &y)| narrow(exact(op, wide(x), wide(y), bits)))
                .collect();
            for isa in crate::isa::available() {
                for step in [1, 3] {
                    let got = run(isa, op, xs, ys, step);
                    assert_eq!(
                        got,
                        want,
                        "{op:?} over {name} on {} at step {step}",
                        isa.name()
                    );
                }
            }
        }
    }

    /// Every operation, every width, signed and unsigned, on every path:
    /// the extremes (where the wrapping and the signed order show) and a
    /// spread of values, against the exact results truncated.
    #[test]
    fn every_int_op_on_every_path_matches_the_scalar_operation() {
        let mut xs: Vec<i64> = vec![0, 1, -1, 2, -2, i64::MAX, i64::MIN, i64::MIN + 1, 1 << 32];
        xs.extend((0..120).map(|i: i64| {
            i.wrapping_mul(0x9e37_79b9_7f4a_7c15_u64 as i64)
                .rotate_left(i as u32)
        }));
        let ys: Vec<i64> = xs.iter().rev().copied().collect();
        macro_rules! each_type {
            ($($t:ty),*) => {$(
                let x: Vec<$t> = xs.iter().map(|&v| v as $t).collect();
                let y: Vec<$t> = ys.iter().map(|&v| v as $t).collect();
                check(stringify!($t), &x, &y, |v| v as i128, |v| v as $t);
            )*};
        }
        each_type!(i8, i16, i32, i64, u8, u16, u32, u64);
        // The extremes wrap as documented.
        assert_eq!(IntOp::Abs.apply(i8::MIN, 0), i8::MIN);
        assert_eq!(IntOp::Neg.apply(1u8, 0), 255);
    }

    /// The leaves of the signed types run the unsigned loop only where
    /// that gives the same bits: `maximum` and `abs` keep the sign.
    #[test]
    fn signed_leaves_keep_the_signed_order() -> Result<(), crate::Error> {
        use crate::array::Array;
        use dynd_types::Scalar;
        let (a, b) = (
            Array::from_vec(vec![-5i32; 7]),
            Array::from_vec(vec![3i32; 7]),
        );
        let max = Leaf::int_op(IntOp::Maximum, Scalar::Int32).unwrap_or_else(|| unreachable!());
        assert_eq!(apply(&[&a, &b], &max)?.to_vec::<i32>()?, [3; 7]);
        let abs = Leaf::int_op(IntOp::Abs, Scalar::Int32).unwrap_or_else(|| unreachable!());
        assert_eq!(apply(&[&a], &abs)?.to_vec::<i32>()?, [5; 7]);
        let add = Leaf::int_op(IntOp::Add, Scalar::Int32).unwrap_or_else(|| unreachable!());
        assert_eq!(apply(&[&a, &b], &add)?.to_vec::<i32>()?, [-2; 7]);
        assert!(Leaf::int_op(IntOp::Add, Scalar::Int128).is_none());
        assert!(Leaf::int_op(IntOp::Add, Scalar::Float64).is_none());
        Ok(())
    }
}
