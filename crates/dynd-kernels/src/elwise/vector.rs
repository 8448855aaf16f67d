//! Leaves of the vectorised elementary functions ([`dynd_math`]): a
//! contiguous run is computed from its source straight into its
//! destination; otherwise the strided loop gathers a chunk of arguments
//! into a buffer on the stack, runs the function's SIMD loop from it into
//! a second one, and scatters the results, so that strided, broadcast and ragged
//! operands (which the engine hands to a leaf as strided runs) take the
//! same vector code as contiguous ones.

use dynd_math::{Binary, Unary};

use super::maps::{MapLeaf, MapLoop};
use super::*;
use crate::error::KernelError;

/// Elements per chunk (two or three buffers of this size live on the
/// stack).
const CHUNK: usize = 256;

/// A float type the math loops take.
trait MathFloat: dynd_math::Float + Default + Send + Sync + 'static {
    const SCALAR: dynd_types::Scalar;
    fn unary(f: Unary, xs: &mut [Self]);
    fn binary(f: Binary, xs: &mut [Self], ys: &[Self]);
}

impl MathFloat for f64 {
    const SCALAR: dynd_types::Scalar = dynd_types::Scalar::Float64;
    fn unary(f: Unary, xs: &mut [f64]) {
        f.map(xs)
    }
    fn binary(f: Binary, xs: &mut [f64], ys: &[f64]) {
        f.map(xs, ys)
    }
}

impl MathFloat for f32 {
    const SCALAR: dynd_types::Scalar = dynd_types::Scalar::Float32;
    fn unary(f: Unary, xs: &mut [f32]) {
        f.map_f32(xs)
    }
    fn binary(f: Binary, xs: &mut [f32], ys: &[f32]) {
        f.map_f32(xs, ys)
    }
}

/// Reads `buf.len()` elements from `src`, `stride` bytes apart.
///
/// # Safety
///
/// `src` points at `buf.len()` readable elements of `T`, `stride` bytes
/// apart (any alignment).
#[inline(always)]
unsafe fn gather<T: Copy>(buf: &mut [T], src: *const u8, stride: isize) {
    if stride == std::mem::size_of::<T>() as isize {
        // SAFETY: contiguous by the stride; `buf` is a distinct stack
        // buffer, so the ranges do not overlap.
        unsafe {
            std::ptr::copy_nonoverlapping(
                src,
                buf.as_mut_ptr().cast::<u8>(),
                std::mem::size_of_val(buf),
            )
        };
    } else {
        for (i, v) in buf.iter_mut().enumerate() {
            // SAFETY: element `i` is readable, by the contract.
            *v = unsafe { src.offset(i as isize * stride).cast::<T>().read_unaligned() };
        }
    }
}

/// Writes `buf` to `dst`, `stride` bytes apart.
///
/// # Safety
///
/// `dst` points at room for `buf.len()` elements of `T`, `stride` bytes
/// apart.
#[inline(always)]
unsafe fn scatter<T: Copy>(buf: &[T], dst: *mut u8, stride: isize) {
    if stride == std::mem::size_of::<T>() as isize {
        // SAFETY: contiguous room by the contract; `buf` is on the stack.
        unsafe {
            std::ptr::copy_nonoverlapping(
                buf.as_ptr().cast::<u8>(),
                dst,
                std::mem::size_of_val(buf),
            )
        };
    } else {
        for (i, &v) in buf.iter().enumerate() {
            // SAFETY: element `i` is writable, by the contract.
            unsafe {
                dst.offset(i as isize * stride)
                    .cast::<T>()
                    .write_unaligned(v)
            };
        }
    }
}

/// A contiguous run's destination, and its source where that lies apart.
enum Run<'a, T> {
    /// The destination, holding the arguments: computed in place.
    Same(&'a mut [T]),
    /// The source and the destination, apart: read from one, written to
    /// the other.
    Apart(&'a [T], &'a mut [T]),
}

/// For a contiguous run with an aligned destination: the run as slices.
/// A source that is the destination, or lies apart from it aligned, is
/// used where it is; any other (overlapping in part, or unaligned) is
/// copied into the destination first. `None` for other runs.
///
/// # Safety
///
/// As [`KernelData::strided`](crate::kernel::KernelData::strided):
/// `count` elements of `T` readable at `src` (at its stride) and room for
/// them at `dst`, with nothing else writing the source or reading or
/// writing the destination while the slices live.
#[inline]
unsafe fn contiguous<'a, T: Copy>(
    dst: *mut u8,
    dst_stride: isize,
    src: *const u8,
    src_stride: isize,
    count: usize,
) -> Option<Run<'a, T>> {
    let size = std::mem::size_of::<T>();
    let aligned = |p: usize| p % std::mem::align_of::<T>() == 0 && p != 0;
    let (d, s, bytes) = (dst as usize, src as usize, count * size);
    if dst_stride != size as isize || src_stride != size as isize || !aligned(d) {
        return None;
    }
    let same = s == d;
    let apart = (s + bytes <= d || d + bytes <= s) && aligned(s);
    if !same && !apart {
        // SAFETY: `count` elements at each pointer by the strided
        // contract; `copy` allows the two runs to overlap.
        unsafe { std::ptr::copy(src, dst, bytes) };
    }
    // SAFETY: `count` aligned (checked) elements of `T` at `dst` by the
    // strided contract, initialised (the caller's memory holds valid
    // values of `T`, or the copy just made), and no other reference to
    // them lives during the kernel call.
    let out = unsafe { std::slice::from_raw_parts_mut(dst.cast::<T>(), count) };
    if !apart {
        return Some(Run::Same(out));
    }
    // SAFETY: as above, for `count` elements at `src`, which lie apart
    // from the destination's and are only read.
    let xs = unsafe { std::slice::from_raw_parts(src.cast::<T>(), count) };
    Some(Run::Apart(xs, out))
}

/// The loop of a one-argument math leaf over `T`.
#[derive(Clone, Copy)]
struct UnaryLoop<T>(Unary, std::marker::PhantomData<T>);

impl<T: MathFloat> MapLoop for UnaryLoop<T> {
    const ARITY: usize = 1;

    unsafe fn strided_loop(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        // SAFETY: the strided contract, forwarded.
        if let Some(run) = unsafe { contiguous::<T>(dst, dst_stride, src[0], src_stride[0], count) }
        {
            match run {
                Run::Same(out) => T::unary(self.0, out),
                Run::Apart(xs, out) => self.0.map_into(xs, out),
            }
            return Ok(());
        }
        let (mut xs, mut outs) = ([T::default(); CHUNK], [T::default(); CHUNK]);
        let mut done = 0;
        while done < count {
            let n = (count - done).min(CHUNK);
            let (x, o) = (&mut xs[..n], &mut outs[..n]);
            // SAFETY: elements `done..done + n` of the run, by the
            // strided contract (`count` elements at each pointer).
            unsafe {
                gather(
                    x,
                    src[0].offset(done as isize * src_stride[0]),
                    src_stride[0],
                )
            };
            self.0.map_into(x, o);
            // SAFETY: as above, for the destination (read before written:
            // an in-place run is gathered before it is scattered).
            unsafe { scatter(o, dst.offset(done as isize * dst_stride), dst_stride) };
            done += n;
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!("vector {} ({}) -> {}", self.0.name(), T::SCALAR, T::SCALAR)
    }
}

/// The loop of a two-argument math leaf over `T`.
#[derive(Clone, Copy)]
struct BinaryLoop<T>(Binary, std::marker::PhantomData<T>);

impl<T: MathFloat> MapLoop for BinaryLoop<T> {
    const ARITY: usize = 2;

    unsafe fn strided_loop(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        let size = std::mem::size_of::<T>();
        let (y, bytes) = (src[1] as usize, count * size);
        let apart = y + bytes <= dst as usize || dst as usize + bytes <= y;
        let aligned = y % std::mem::align_of::<T>() == 0 && y != 0;
        if src_stride[1] == size as isize && aligned && apart {
            // SAFETY: the strided contract, forwarded.
            let run = unsafe { contiguous::<T>(dst, dst_stride, src[0], src_stride[0], count) };
            // SAFETY: `count` contiguous, aligned elements of `T` at
            // `src[1]` (checked just above), readable by the strided
            // contract, and apart from the destination.
            let ys = || unsafe { std::slice::from_raw_parts(src[1].cast::<T>(), count) };
            if let Some(run) = run {
                match run {
                    Run::Same(out) => T::binary(self.0, out, ys()),
                    Run::Apart(xs, out) => self.0.map_into(xs, ys(), out),
                }
                return Ok(());
            }
        }
        let (mut xs, mut ys) = ([T::default(); CHUNK], [T::default(); CHUNK]);
        let mut outs = [T::default(); CHUNK];
        let mut done = 0;
        while done < count {
            let n = (count - done).min(CHUNK);
            let (x, y, o) = (&mut xs[..n], &mut ys[..n], &mut outs[..n]);
            // SAFETY: elements `done..done + n` of both inputs, by the
            // strided contract.
            unsafe {
                gather(
                    x,
                    src[0].offset(done as isize * src_stride[0]),
                    src_stride[0],
                );
                gather(
                    y,
                    src[1].offset(done as isize * src_stride[1]),
                    src_stride[1],
                );
            }
            self.0.map_into(x, y, o);
            // SAFETY: as above, for the destination.
            unsafe { scatter(o, dst.offset(done as isize * dst_stride), dst_stride) };
            done += n;
        }
        Ok(())
    }

    fn describe(&self) -> String {
        format!("vector {} ({t}, {t}) -> {t}", self.0.name(), t = T::SCALAR)
    }
}

impl Leaf {
    /// The leaf of `f` over `float64` or `float32` (`scalar`), running
    /// [`dynd_math`]'s vector loops: within one ULP, SIMD on strided and
    /// ragged operands too. `None` for other types.
    ///
    /// ```
    /// use dynd_kernels::elwise::{apply, Leaf};
    /// use dynd::math::Unary;
    /// use dynd::nd::array;
    /// use dynd::ndt::Scalar;
    ///
    /// let sin = Leaf::unary_math(Unary::Sin, Scalar::Float64).unwrap();
    /// let r = apply(&[&array![[0.0, 1.0], [2.0, 3.0]]], &sin)?;
    /// assert_eq!(r.to_string(), "[[0, 0.8414709848078965], [0.9092974268256817, 0.1411200080598672]]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn unary_math(f: Unary, scalar: dynd_types::Scalar) -> Option<Leaf> {
        match scalar {
            dynd_types::Scalar::Float64 => Some(Leaf::from_map_loop(
                UnaryLoop::<f64>(f, Default::default()),
                &[scalar],
                scalar,
            )),
            dynd_types::Scalar::Float32 => Some(Leaf::from_map_loop(
                UnaryLoop::<f32>(f, Default::default()),
                &[scalar],
                scalar,
            )),
            _ => None,
        }
    }

    /// The leaf of the two-argument `f` over `float64` or `float32`, as
    /// [`Leaf::unary_math`].
    pub fn binary_math(f: Binary, scalar: dynd_types::Scalar) -> Option<Leaf> {
        match scalar {
            dynd_types::Scalar::Float64 => Some(Leaf::from_map_loop(
                BinaryLoop::<f64>(f, Default::default()),
                &[scalar, scalar],
                scalar,
            )),
            dynd_types::Scalar::Float32 => Some(Leaf::from_map_loop(
                BinaryLoop::<f32>(f, Default::default()),
                &[scalar, scalar],
                scalar,
            )),
            _ => None,
        }
    }

    /// A plain (no NA, infallible) leaf running `kernel`'s loop.
    pub(super) fn from_map_loop<M: MapLoop + Clone>(
        kernel: M,
        inputs: &[dynd_types::Scalar],
        output: dynd_types::Scalar,
    ) -> Leaf {
        let kernel = MapLeaf(kernel);
        Leaf {
            inputs: inputs.iter().copied().collect(),
            options: inputs.iter().map(|_| false).collect(),
            output,
            output_option: false,
            flat: Some(std::sync::Arc::new(kernel.clone()) as std::sync::Arc<dyn FlatRun>),
            push: std::sync::Arc::new(move |b: &mut KernelBuilder<'_>| b.push(kernel.clone())),
            f64_op: None,
        }
    }
}

/// The loop of a plain floating-point operation ([`F64Op`]) of `N`
/// arguments over `T` (`f64` or `f32`), compiled for each instruction
/// set and chosen at run time (AVX-512, AVX2 or the baseline build): the
/// same IEEE operation on each, so the same bits.
#[derive(Clone, Copy)]
struct FloatLoop<T, const N: usize>(F64Op, std::marker::PhantomData<T>);

/// Runs shorter than this skip the instruction-set dispatch of
/// [`FloatLoop`] (a small call's loop is a few scalar operations).
const SHORT_RUN: usize = 4;

/// The element types of [`FloatLoop`]: their operations as methods the
/// loop calls generically (each one instruction where the CPU has it).
trait OpFloat:
    Copy
    + Send
    + Sync
    + 'static
    + std::ops::Add<Output = Self>
    + std::ops::Sub<Output = Self>
    + std::ops::Mul<Output = Self>
    + std::ops::Div<Output = Self>
    + std::ops::Neg<Output = Self>
{
    const SCALAR: dynd_types::Scalar;
    fn abs(self) -> Self;
    fn sqrt(self) -> Self;
    fn floor(self) -> Self;
    fn ceil(self) -> Self;
    fn trunc(self) -> Self;
    fn rint(self) -> Self;
}

macro_rules! op_float {
    ($t:ty, $scalar:ident) => {
        impl OpFloat for $t {
            const SCALAR: dynd_types::Scalar = dynd_types::Scalar::$scalar;
            #[inline(always)]
            fn abs(self) -> Self {
                <$t>::abs(self)
            }
            #[inline(always)]
            fn sqrt(self) -> Self {
                <$t>::sqrt(self)
            }
            #[inline(always)]
            fn floor(self) -> Self {
                <$t>::floor(self)
            }
            #[inline(always)]
            fn ceil(self) -> Self {
                <$t>::ceil(self)
            }
            #[inline(always)]
            fn trunc(self) -> Self {
                <$t>::trunc(self)
            }
            #[inline(always)]
            fn rint(self) -> Self {
                <$t>::round_ties_even(self)
            }
        }
    };
}

op_float!(f64, Float64);
op_float!(f32, Float32);

/// `dst[i] = f(a[i], b[i])` over `count` strided arguments of `T` into
/// results of `R`: contiguous runs as plain indexed loops the compiler
/// vectorises (in whatever instruction set the caller is compiled for).
///
/// # Safety
///
/// As [`KernelData::strided`](crate::kernel::KernelData::strided) for
/// arguments of `T` and results of `R`.
#[inline(always)]
unsafe fn zip_loop<T: Copy, R: Copy>(
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

/// `dst[i] = op(a[i], b[i])` over `count` strided elements of `T` (`b`
/// is `a` for a unary operation), contiguous runs as plain indexed loops
/// the compiler vectorises.
///
/// # Safety
///
/// As [`KernelData::strided`](crate::kernel::KernelData::strided) for
/// elements of `T`.
#[inline(always)]
unsafe fn float_loop<T: OpFloat>(
    op: F64Op,
    dst: *mut u8,
    ds: isize,
    a: (*const u8, isize),
    b: (*const u8, isize),
    count: usize,
) {
    macro_rules! each {
        ($f:expr) => {
            // SAFETY: the caller's contract, forwarded.
            unsafe { zip_loop::<T, T>($f, dst, ds, a, b, count) }
        };
    }
    match op {
        F64Op::Add => each!(|x: T, y: T| x + y),
        F64Op::Sub => each!(|x: T, y: T| x - y),
        F64Op::Mul => each!(|x: T, y: T| x * y),
        F64Op::Div => each!(|x: T, y: T| x / y),
        F64Op::Neg => each!(|x: T, _: T| -x),
        F64Op::Abs => each!(|x: T, _: T| x.abs()),
        F64Op::Sqrt => each!(|x: T, _: T| x.sqrt()),
        F64Op::Floor => each!(|x: T, _: T| x.floor()),
        F64Op::Ceil => each!(|x: T, _: T| x.ceil()),
        F64Op::Trunc => each!(|x: T, _: T| x.trunc()),
        F64Op::Rint => each!(|x: T, _: T| x.rint()),
    }
}

/// For a loop body `$body::<T: $bound>(op: $op, dst, ds, a, b, count)`
/// (`#[inline(always)]`), `$on::<T>(isa, ...)`: the body compiled for
/// AVX-512 (F, DQ and VL: what [`dynd_math::Isa::Avx512`] stands for) and
/// for AVX2 as well as for the baseline, run on `isa`'s copy.
///
/// `$on`'s safety contract is `$body`'s, on a CPU that has `isa`.
macro_rules! isa_copies {
    ($on:ident, $body:ident, $bound:path, $op:ty) => {
        #[doc = concat!("[`", stringify!($body), "`] on the loops of `isa`.")]
        ///
        /// # Safety
        ///
        #[doc = concat!("As [`", stringify!($body), "`], on a CPU that has `isa`.")]
        #[inline(always)]
        unsafe fn $on<T: $bound>(
            isa: dynd_math::Isa,
            op: $op,
            dst: *mut u8,
            ds: isize,
            a: (*const u8, isize),
            b: (*const u8, isize),
            count: usize,
        ) {
            /// The body compiled for AVX-512.
            ///
            /// # Safety
            ///
            /// As the body's, on a CPU with AVX-512 F, DQ and VL.
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx512f,avx512dq,avx512vl,avx2")]
            unsafe fn avx512<T: $bound>(
                op: $op,
                dst: *mut u8,
                ds: isize,
                a: (*const u8, isize),
                b: (*const u8, isize),
                count: usize,
            ) {
                // SAFETY: forwarded.
                unsafe { $body::<T>(op, dst, ds, a, b, count) }
            }
            /// The body compiled for AVX2.
            ///
            /// # Safety
            ///
            /// As the body's, on a CPU with AVX2.
            #[cfg(target_arch = "x86_64")]
            #[target_feature(enable = "avx2")]
            unsafe fn avx2<T: $bound>(
                op: $op,
                dst: *mut u8,
                ds: isize,
                a: (*const u8, isize),
                b: (*const u8, isize),
                count: usize,
            ) {
                // SAFETY: forwarded.
                unsafe { $body::<T>(op, dst, ds, a, b, count) }
            }
            match isa {
                // SAFETY: the CPU has the set (`Isa::Avx512` is AVX-512 F,
                // DQ and VL with AVX2); the pointers are the caller's
                // contract, forwarded.
                #[cfg(target_arch = "x86_64")]
                dynd_math::Isa::Avx512 => unsafe { avx512::<T>(op, dst, ds, a, b, count) },
                // SAFETY: as above.
                #[cfg(target_arch = "x86_64")]
                dynd_math::Isa::Avx2 => unsafe { avx2::<T>(op, dst, ds, a, b, count) },
                // SAFETY: the caller's contract, forwarded.
                _ => unsafe { $body::<T>(op, dst, ds, a, b, count) },
            }
        }
    };
}

isa_copies!(float_loop_on, float_loop, OpFloat, F64Op);

impl<T: OpFloat, const N: usize> MapLoop for FloatLoop<T, N> {
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
        if count < SHORT_RUN {
            // SAFETY: the caller's contract, forwarded. A few elements
            // gain nothing from wider vectors, and the same operations
            // give the same bits on every path.
            unsafe { float_loop::<T>(self.0, dst, dst_stride, a, b, count) };
            return Ok(());
        }
        let isa = dynd_math::Isa::active();
        // SAFETY: `Isa::active` is a set this CPU has; the pointers are
        // the caller's contract, forwarded.
        unsafe { float_loop_on::<T>(isa, self.0, dst, dst_stride, a, b, count) };
        Ok(())
    }

    fn describe(&self) -> String {
        let t = T::SCALAR;
        if N == 2 {
            format!("map ({t}, {t}) -> {t}")
        } else {
            format!("map ({t}) -> {t}")
        }
    }
}

impl Leaf {
    /// The leaf of a plain `float64` operation, its loops dispatched by
    /// instruction set ([`Leaf::f64_op`]'s kernel).
    pub(super) fn f64_op_loop(op: F64Op) -> Leaf {
        Leaf::float_op_loop::<f64>(op)
    }

    /// The leaf of the operation `op` over `float32` (`(float32,
    /// float32) -> float32`, or `(float32) -> float32`), its loops
    /// dispatched by instruction set as [`Leaf::f64_op`]'s are. Unlike
    /// those, it is not marked for the fused `float64` loop.
    ///
    /// ```
    /// use dynd_kernels::elwise::{apply, F64Op, Leaf};
    /// use dynd::nd::Array;
    ///
    /// let floor = Leaf::f32_op(F64Op::Floor);
    /// let r = apply(&[&Array::from_vec(vec![-1.5f32, 2.5])], &floor)?;
    /// assert_eq!(r.to_vec::<f32>()?, [-2.0, 2.0]);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn f32_op(op: F64Op) -> Leaf {
        Leaf::float_op_loop::<f32>(op)
    }

    fn float_op_loop<T: OpFloat>(op: F64Op) -> Leaf {
        let types = [T::SCALAR; 2];
        match op.arity() {
            1 => Leaf::from_map_loop(
                FloatLoop::<T, 1>(op, Default::default()),
                &types[..1],
                types[0],
            ),
            _ => Leaf::from_map_loop(FloatLoop::<T, 2>(op, Default::default()), &types, types[0]),
        }
    }
}

/// A test of one or two numbers giving a `bool`: the classification
/// and comparison leaves whose loops [`Leaf::predicate`] compiles for
/// each instruction set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Predicate {
    /// `x` is NaN.
    IsNan,
    /// `x` is infinite.
    IsInf,
    /// `x` is neither infinite nor NaN.
    IsFinite,
    /// `x == y` (IEEE: NaN equals nothing).
    Equal,
    /// `x != y`.
    NotEqual,
    /// `x < y`.
    Less,
    /// `x <= y`.
    LessEqual,
    /// `x > y`.
    Greater,
    /// `x >= y`.
    GreaterEqual,
}

impl Predicate {
    /// How many arguments it takes: 1 or 2.
    pub fn arity(self) -> usize {
        match self {
            Predicate::IsNan | Predicate::IsInf | Predicate::IsFinite => 1,
            _ => 2,
        }
    }

    /// The test of `x` (and `y`; a one-argument test ignores it).
    #[inline(always)]
    fn test<T: PredElem>(self, x: T, y: T) -> bool {
        match self {
            Predicate::IsNan => x.is_nan(),
            Predicate::IsInf => x.is_infinite(),
            Predicate::IsFinite => x.is_finite(),
            Predicate::Equal => x == y,
            Predicate::NotEqual => x != y,
            Predicate::Less => x < y,
            Predicate::LessEqual => x <= y,
            Predicate::Greater => x > y,
            Predicate::GreaterEqual => x >= y,
        }
    }
}

/// The element types of [`Predicate`]'s loops.
trait PredElem: Copy + PartialOrd + Send + Sync + 'static {
    const SCALAR: dynd_types::Scalar;
    fn is_nan(self) -> bool;
    fn is_infinite(self) -> bool;
    fn is_finite(self) -> bool;
}

macro_rules! pred_float {
    ($t:ty, $scalar:ident) => {
        impl PredElem for $t {
            const SCALAR: dynd_types::Scalar = dynd_types::Scalar::$scalar;
            #[inline(always)]
            fn is_nan(self) -> bool {
                <$t>::is_nan(self)
            }
            #[inline(always)]
            fn is_infinite(self) -> bool {
                <$t>::is_infinite(self)
            }
            #[inline(always)]
            fn is_finite(self) -> bool {
                <$t>::is_finite(self)
            }
        }
    };
}

macro_rules! pred_int {
    ($t:ty, $scalar:ident) => {
        impl PredElem for $t {
            const SCALAR: dynd_types::Scalar = dynd_types::Scalar::$scalar;
            #[inline(always)]
            fn is_nan(self) -> bool {
                false
            }
            #[inline(always)]
            fn is_infinite(self) -> bool {
                false
            }
            #[inline(always)]
            fn is_finite(self) -> bool {
                true
            }
        }
    };
}

pred_float!(f64, Float64);
pred_float!(f32, Float32);
pred_int!(i64, Int64);
pred_int!(i32, Int32);

/// `dst[i] = p(a[i], b[i])` over `count` strided elements of `T` into
/// `bool`s (`b` is `a` for a one-argument test), contiguous runs as plain
/// indexed loops the compiler vectorises.
///
/// # Safety
///
/// As [`KernelData::strided`](crate::kernel::KernelData::strided) for
/// arguments of `T` and a `bool` destination.
#[inline(always)]
unsafe fn pred_loop<T: PredElem>(
    p: Predicate,
    dst: *mut u8,
    ds: isize,
    a: (*const u8, isize),
    b: (*const u8, isize),
    count: usize,
) {
    macro_rules! each {
        ($f:expr) => {
            // SAFETY: the caller's contract, forwarded (a `bool` result is
            // written as 0 or 1).
            unsafe { zip_loop::<T, bool>($f, dst, ds, a, b, count) }
        };
    }
    // One loop per test, so that each is a plain vector loop.
    match p {
        Predicate::IsNan => each!(|x: T, y: T| Predicate::IsNan.test(x, y)),
        Predicate::IsInf => each!(|x: T, y: T| Predicate::IsInf.test(x, y)),
        Predicate::IsFinite => each!(|x: T, y: T| Predicate::IsFinite.test(x, y)),
        Predicate::Equal => each!(|x: T, y: T| Predicate::Equal.test(x, y)),
        Predicate::NotEqual => each!(|x: T, y: T| Predicate::NotEqual.test(x, y)),
        Predicate::Less => each!(|x: T, y: T| Predicate::Less.test(x, y)),
        Predicate::LessEqual => each!(|x: T, y: T| Predicate::LessEqual.test(x, y)),
        Predicate::Greater => each!(|x: T, y: T| Predicate::Greater.test(x, y)),
        Predicate::GreaterEqual => each!(|x: T, y: T| Predicate::GreaterEqual.test(x, y)),
    }
}

isa_copies!(pred_loop_on, pred_loop, PredElem, Predicate);

/// The loop of a [`Predicate`] of `N` arguments over `T`.
#[derive(Clone, Copy)]
struct PredLoop<T, const N: usize>(Predicate, std::marker::PhantomData<T>);

impl<T: PredElem, const N: usize> MapLoop for PredLoop<T, N> {
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
        let isa = if count < SHORT_RUN {
            dynd_math::Isa::Portable
        } else {
            dynd_math::Isa::active()
        };
        // SAFETY: `Isa::active` is a set this CPU has (the portable loop
        // needs none); the pointers are the caller's contract, forwarded.
        unsafe { pred_loop_on::<T>(isa, self.0, dst, dst_stride, a, b, count) };
        Ok(())
    }

    fn describe(&self) -> String {
        let t = T::SCALAR;
        if N == 2 {
            format!("{:?} ({t}, {t}) -> bool", self.0)
        } else {
            format!("{:?} ({t}) -> bool", self.0)
        }
    }
}

impl Leaf {
    /// The leaf of `p` over `scalar` (`float64`, `float32`, `int64` or
    /// `int32`; `None` for others), its loops compiled for AVX2 and
    /// AVX-512 and chosen at run time as [`Leaf::f32_op`]'s are.
    ///
    /// ```
    /// use dynd_kernels::elwise::{apply, Leaf, Predicate};
    /// use dynd::nd::Array;
    /// use dynd::ndt::Scalar;
    ///
    /// let less = Leaf::predicate(Predicate::Less, Scalar::Float64).unwrap();
    /// let (a, b) = (Array::from_vec(vec![1.0, f64::NAN, 3.0]), Array::from_vec(vec![2.0, 0.0, 3.0]));
    /// assert_eq!(apply(&[&a, &b], &less)?.to_vec::<bool>()?, [true, false, false]);
    /// # Ok::<(), dynd::Error>(())
    /// ```
    pub fn predicate(p: Predicate, scalar: dynd_types::Scalar) -> Option<Leaf> {
        use dynd_types::Scalar as S;
        Some(match scalar {
            S::Float64 => Leaf::predicate_loop::<f64>(p),
            S::Float32 => Leaf::predicate_loop::<f32>(p),
            S::Int64 => Leaf::predicate_loop::<i64>(p),
            S::Int32 => Leaf::predicate_loop::<i32>(p),
            _ => return None,
        })
    }

    fn predicate_loop<T: PredElem>(p: Predicate) -> Leaf {
        let types = [T::SCALAR; 2];
        let out = dynd_types::Scalar::Bool;
        match p.arity() {
            1 => Leaf::from_map_loop(PredLoop::<T, 1>(p, Default::default()), &types[..1], out),
            _ => Leaf::from_map_loop(PredLoop::<T, 2>(p, Default::default()), &types, out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dynd_math::Isa;

    /// The loop of `op` over `xs` and `ys` (as `T`, every `step`-th
    /// element of runs `step` times as long) on `isa`, as `f64` bits.
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
        unsafe { float_loop_on::<T>(isa, op, out.as_mut_ptr().cast(), stride, a, b, n) };
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
        let ops = [
            F64Op::Add,
            F64Op::Sub,
            F64Op::Mul,
            F64Op::Div,
            F64Op::Neg,
            F64Op::Abs,
            F64Op::Sqrt,
            F64Op::Floor,
            F64Op::Ceil,
            F64Op::Trunc,
            F64Op::Rint,
        ];
        let want = |xs: &[f64], ys: &[f64], op: F64Op, narrow: fn(f64) -> f64| -> Vec<u64> {
            let pairs = xs.iter().zip(ys);
            pairs
                .map(|(&x, &y)| narrow(op.apply(x, y)).to_bits())
                .collect()
        };
        for isa in Isa::ALL.into_iter().filter(|i| i.available()) {
            for op in ops {
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
        unsafe { pred_loop_on::<T>(isa, p, out.as_mut_ptr(), step as isize, a, b, n) };
        for (i, &v) in out.iter().enumerate() {
            assert!(i % step != 0 || v <= 1, "not a bool at {i}");
            assert!(i % step == 0 || v == 2, "written between elements at {i}");
        }
        out.into_iter().step_by(step).map(|v| v == 1).collect()
    }

    /// Every predicate on every instruction set this CPU has, contiguous
    /// and strided, over `float64`, `float32`, `int64` and `int32`
    /// (NaNs, infinities, signed zeros, extremes), gives what the scalar
    /// operators give.
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
        let preds = [
            Predicate::IsNan,
            Predicate::IsInf,
            Predicate::IsFinite,
            Predicate::Equal,
            Predicate::NotEqual,
            Predicate::Less,
            Predicate::LessEqual,
            Predicate::Greater,
            Predicate::GreaterEqual,
        ];
        fn check<T: PredElem + std::fmt::Debug>(p: Predicate, xs: &[T], ys: &[T]) {
            let want: Vec<bool> = xs.iter().zip(ys).map(|(&x, &y)| p.test(x, y)).collect();
            for isa in Isa::ALL.into_iter().filter(|i| i.available()) {
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
        }
        // The classification tests match the float methods.
        assert!(
            Predicate::IsNan.test(f64::NAN, 0.0) && !Predicate::IsFinite.test(f64::INFINITY, 0.0)
        );
    }
}
