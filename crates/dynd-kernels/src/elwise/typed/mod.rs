//! Leaves whose loops are compiled for each instruction set (AVX-512,
//! AVX2 and the baseline build) and chosen at run time by
//! [`dynd_math::Isa::active`]: one generic loop body per family, written
//! as a plain indexed loop the compiler vectorises, compiled per set by
//! [`crate::isa::on!`]. The families: plain float operations ([`F64Op`] over
//! `float64` and `float32`), tests giving `bool`s ([`Predicate`]), and
//! wrapping integer and bitwise operations ([`IntOp`]). Each gives the
//! same bits on every path (the same operations), which the tests check
//! on every set the CPU has.

use super::maps::MapLoop;
use super::*;
use crate::error::KernelError;
use crate::isa::Isa;

mod calendar;
mod float;
mod int;
mod predicate;

pub use calendar::CalendarPart;
pub use int::IntOp;
pub use predicate::Predicate;

/// Runs shorter than this skip the instruction-set dispatch (a small
/// call's loop is a few scalar operations).
const SHORT_RUN: usize = 4;

/// `dst[i] = f(a[i], b[i])` over `count` strided arguments of `T` into
/// results of `R`: contiguous runs as plain indexed loops the compiler
/// vectorises (in whatever instruction set the caller is compiled for).
///
/// # Safety
///
/// As [`KernelData::strided`] for
/// arguments of `T` and results of `R`.
#[inline(always)]
pub(super) unsafe fn zip_loop<T: Copy, R: Copy>(
    f: impl Fn(T, T) -> R,
    dst: *mut u8,
    ds: isize,
    a: (*const u8, isize),
    b: (*const u8, isize),
    count: usize,
) {
    let size = std::mem::size_of::<T>() as isize;
    if ds == std::mem::size_of::<R>() as isize && a.1 == size && b.1 == size {
        let (d, x, y) = (dst.cast::<R>(), a.0.cast::<T>(), b.0.cast::<T>());
        for i in 0..count {
            // SAFETY: element `i` of each run (the contract); the runs may
            // be the same memory (an in-place call), so raw pointers, read
            // before written.
            unsafe {
                d.add(i)
                    .write_unaligned(f(x.add(i).read_unaligned(), y.add(i).read_unaligned()))
            };
        }
    } else {
        for i in 0..count as isize {
            // SAFETY: as above, at the runs' strides.
            unsafe {
                let v = f(
                    a.0.offset(i * a.1).cast::<T>().read_unaligned(),
                    b.0.offset(i * b.1).cast::<T>().read_unaligned(),
                );
                dst.offset(i * ds).cast::<R>().write_unaligned(v)
            };
        }
    }
}

/// A family of loops: each member's body, compiled for an instruction
/// set, and how its leaf describes itself.
trait Family: Copy + Send + Sync + 'static {
    /// `dst[i] = self(a[i], b[i])` over `count` strided elements (`b` is
    /// `a` for one argument), contiguous runs as plain indexed loops the
    /// compiler vectorises: `#[inline(always)]` in each family, so that
    /// [`Family::run_on`] compiles it for its set.
    ///
    /// # Safety
    ///
    /// As [`KernelData::strided`]
    /// for the family's argument and result types.
    unsafe fn body(
        self,
        dst: *mut u8,
        ds: isize,
        a: (*const u8, isize),
        b: (*const u8, isize),
        count: usize,
    );

    /// [`Family::body`] compiled for `isa` ([`crate::isa::on!`]).
    ///
    /// # Safety
    ///
    /// As [`Family::body`], on a CPU that has `isa`.
    #[inline(always)]
    unsafe fn run_on(
        self,
        isa: Isa,
        dst: *mut u8,
        ds: isize,
        a: (*const u8, isize),
        b: (*const u8, isize),
        count: usize,
    ) {
        // SAFETY: the caller's contract (the CPU has `isa`; the
        // pointers), forwarded.
        unsafe { crate::isa::on!(isa, self.body(dst, ds, a, b, count)) }
    }

    /// The leaf's description, for `arity` arguments.
    fn describe(self, arity: usize) -> String;

    /// As [`FlatRun::f64_op`].
    fn f64_op(self) -> Option<F64Op> {
        None
    }
}

/// The leaf loop of a family member of `N` arguments: runs shorter than
/// [`SHORT_RUN`] on the baseline copy, others on [`Isa::active`]'s.
#[derive(Clone, Copy)]
struct Dispatched<F, const N: usize>(F);

impl<F: Family, const N: usize> MapLoop for Dispatched<F, N> {
    const ARITY: usize = N;

    unsafe fn strided_loop(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        let a = (src[0], src_stride[0]);
        let b = if N == 2 { (src[1], src_stride[1]) } else { a };
        if count == 1 {
            // One element (a small call's): the body inlined for it, one
            // scalar operation with no loop set-up and no dispatch on the
            // instruction set (113 instructions a call, through them).
            // SAFETY: the pointers are the caller's contract, forwarded;
            // the baseline body needs no feature.
            unsafe { self.0.body(dst, dst_stride, a, b, 1) };
            return Ok(());
        }
        let isa = if count < SHORT_RUN {
            Isa::Portable
        } else {
            Isa::active()
        };
        // SAFETY: `Isa::active` is a set this CPU has (the portable loop
        // needs none); the pointers are the caller's contract, forwarded.
        unsafe { self.0.run_on(isa, dst, dst_stride, a, b, count) };
        Ok(())
    }

    fn describe(&self) -> String {
        self.0.describe(N)
    }

    fn f64_op(&self) -> Option<F64Op> {
        self.0.f64_op()
    }
}

impl Leaf {
    /// The leaf of the family member `f` of `arity` arguments of type
    /// `input`, giving `output`.
    fn dispatched<F: Family>(
        f: F,
        arity: usize,
        input: dynd_types::Scalar,
        output: dynd_types::Scalar,
    ) -> Leaf {
        let types = [input; 2];
        match arity {
            1 => Leaf::from_map_loop(Dispatched::<F, 1>(f), &types[..1], output),
            _ => Leaf::from_map_loop(Dispatched::<F, 2>(f), &types, output),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dynd_types::Scalar;

    /// `n` elements of `s` in its bytes, from small integers (as floats
    /// for the float types): values every family takes.
    fn elements(s: Scalar, n: usize, seed: i64) -> Vec<u8> {
        let mut out = Vec::new();
        for i in 0..n as i64 {
            let v = (i * 7919 + seed * 104_729) % 20_011 - 10_005;
            match s {
                Scalar::Float64 => out.extend((v as f64 * 0.37).to_le_bytes()),
                Scalar::Float32 => out.extend((v as f32 * 0.37).to_le_bytes()),
                _ => out.extend(&v.to_le_bytes()[..s.size()]),
            }
        }
        out
    }

    /// Every family's leaf run over one element at a time (a small call's
    /// path, which skips the dispatch on the instruction set) writes the
    /// bytes its loop over many elements writes, contiguous and with a
    /// 0-d (stride 0) second argument.
    #[test]
    fn one_element_runs_write_what_longer_runs_write() {
        let mut leaves: Vec<(String, Leaf)> = Vec::new();
        for &op in crate::op::F64Op::ALL {
            leaves.push((format!("{op:?} float64"), Leaf::f64_op(op)));
            leaves.push((format!("{op:?} float32"), Leaf::f32_op(op)));
        }
        for &op in IntOp::ALL {
            for s in [Scalar::Int8, Scalar::Int32, Scalar::Int64, Scalar::UInt16] {
                leaves.extend(Leaf::int_op(op, s).map(|l| (format!("{op:?} {s}"), l)));
            }
        }
        for &p in crate::op::Predicate::ALL {
            for s in [
                Scalar::Float64,
                Scalar::Float32,
                Scalar::Int64,
                Scalar::UInt8,
            ] {
                leaves.extend(Leaf::predicate(p, s).map(|l| (format!("{p:?} {s}"), l)));
            }
        }
        for part in [
            CalendarPart::Year,
            CalendarPart::DayOfWeek,
            CalendarPart::Hour,
        ] {
            for s in [Scalar::Date, Scalar::DateTimeS, Scalar::TimeS] {
                leaves.extend(Leaf::calendar(part, s).map(|l| (format!("{part:?} {s}"), l)));
            }
        }
        assert!(leaves.len() > 100, "{} leaves", leaves.len());
        const N: usize = 9;
        for (name, leaf) in &leaves {
            let flat = leaf.flat_run().expect("a dispatched leaf has a flat loop");
            let (input, out_size) = (leaf.inputs()[0], leaf.output().size());
            let size = input.size() as isize;
            let srcs: Vec<Vec<u8>> = (0..leaf.inputs().len())
                .map(|k| elements(input, N, k as i64 + 1))
                .collect();
            for broadcast in [false, true] {
                let strides: Vec<isize> = (0..srcs.len())
                    .map(|k| if broadcast && k == 1 { 0 } else { size })
                    .collect();
                let mut want = vec![0u8; N * out_size];
                let ptrs: Vec<*const u8> = srcs.iter().map(|s| s.as_ptr()).collect();
                // SAFETY: `N` elements of the leaf's input type in each
                // source (or one read N times, at stride 0), `N` of its
                // output type in `want`.
                unsafe {
                    flat.run(want.as_mut_ptr(), out_size as isize, &ptrs, &strides, N);
                }
                let mut got = vec![0xA5u8; N * out_size];
                for i in 0..N {
                    let at: Vec<*const u8> = srcs
                        .iter()
                        .zip(&strides)
                        .map(|(s, &st)| s[(i as isize * st) as usize..].as_ptr())
                        .collect();
                    // SAFETY: element `i` of each source, one output slot.
                    unsafe {
                        flat.run(got[i * out_size..].as_mut_ptr(), 0, &at, &strides, 1);
                    }
                }
                assert_eq!(got, want, "{name}, broadcast: {broadcast}");
            }
        }
    }
}
