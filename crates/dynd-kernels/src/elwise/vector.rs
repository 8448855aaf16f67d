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
/// As [`KernelData::strided`]:
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
    let aligned = |p: usize| p.is_multiple_of(std::mem::align_of::<T>()) && p != 0;
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
    /// use dynd::func::{Callable, Leaf, Overload};
    /// use dynd::math::Unary;
    /// use dynd::nd::array;
    /// use dynd::ndt::Scalar;
    ///
    /// let sin = Leaf::unary_math(Unary::Sin, Scalar::Float64).unwrap();
    /// let sin = Callable::new("sin", vec![Overload::new(sin)])?;
    /// let r = sin.call(&[&array![[0.0, 1.0], [2.0, 3.0]]])?;
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
            push: super::Push::Elements(std::sync::Arc::new(move |b: &mut KernelBuilder<'_>| {
                b.push(kernel.clone())
            })),
            f64_op: None,
        }
    }
}
