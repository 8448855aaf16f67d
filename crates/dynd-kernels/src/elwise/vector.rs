//! Leaves of the vectorised elementary functions ([`dynd_math`]): the
//! strided loop gathers a chunk of arguments into a buffer on the stack,
//! runs the function's SIMD loop over it in place, and scatters the
//! results, so that strided, broadcast and ragged operands (which the
//! engine hands to a leaf as strided runs) take the same vector code as
//! contiguous ones.

use dynd_math::{Binary, Unary};

use super::maps::{MapLeaf, MapLoop};
use super::*;
use crate::error::KernelError;

/// Elements per chunk (two `f64` buffers of this size live on the stack).
const CHUNK: usize = 256;

/// A float type the math loops take.
trait MathFloat: Copy + Default + Send + Sync + 'static {
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

/// For a contiguous run with an aligned destination: the source copied
/// into the destination (they may overlap), and the destination as a
/// slice for the math loop to work on in place. `None` for other runs.
///
/// # Safety
///
/// As [`KernelData::strided`](crate::kernel::KernelData::strided):
/// `count` elements of `T` readable at `src` (at its stride) and room for
/// them at `dst`, with nothing else reading or writing the destination
/// while the slice lives.
#[inline]
unsafe fn contiguous<'a, T: Copy>(
    dst: *mut u8,
    dst_stride: isize,
    src: *const u8,
    src_stride: isize,
    count: usize,
) -> Option<&'a mut [T]> {
    let size = std::mem::size_of::<T>() as isize;
    if dst_stride != size || src_stride != size || (dst as usize) % std::mem::align_of::<T>() != 0 {
        return None;
    }
    // SAFETY: `count` elements at each pointer by the strided contract;
    // `copy` allows the two runs to overlap (an in-place call).
    unsafe { std::ptr::copy(src, dst, count * size as usize) };
    // SAFETY: the destination run is `count` aligned, initialised (just
    // written) elements of `T`, and no other reference to it lives during
    // the kernel call.
    Some(unsafe { std::slice::from_raw_parts_mut(dst.cast::<T>(), count) })
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
        if let Some(out) = unsafe { contiguous::<T>(dst, dst_stride, src[0], src_stride[0], count) }
        {
            T::unary(self.0, out);
            return Ok(());
        }
        let mut buf = [T::default(); CHUNK];
        let mut done = 0;
        while done < count {
            let n = (count - done).min(CHUNK);
            let b = &mut buf[..n];
            // SAFETY: elements `done..done + n` of the run, by the
            // strided contract (`count` elements at each pointer).
            unsafe {
                gather(
                    b,
                    src[0].offset(done as isize * src_stride[0]),
                    src_stride[0],
                )
            };
            T::unary(self.0, b);
            // SAFETY: as above, for the destination (read before written:
            // an in-place run is gathered before it is scattered).
            unsafe { scatter(b, dst.offset(done as isize * dst_stride), dst_stride) };
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
        if src_stride[1] == size as isize && y % std::mem::align_of::<T>() == 0 && apart {
            // SAFETY: the strided contract, forwarded.
            let out = unsafe { contiguous::<T>(dst, dst_stride, src[0], src_stride[0], count) };
            if let Some(out) = out {
                // SAFETY: `count` contiguous, aligned elements of `T` at
                // `src[1]` (checked just above), readable by the strided
                // contract, and apart from `out`.
                let ys = unsafe { std::slice::from_raw_parts(src[1].cast::<T>(), count) };
                T::binary(self.0, out, ys);
                return Ok(());
            }
        }
        let (mut xs, mut ys) = ([T::default(); CHUNK], [T::default(); CHUNK]);
        let mut done = 0;
        while done < count {
            let n = (count - done).min(CHUNK);
            let (x, y) = (&mut xs[..n], &mut ys[..n]);
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
            T::binary(self.0, x, y);
            // SAFETY: as above, for the destination.
            unsafe { scatter(x, dst.offset(done as isize * dst_stride), dst_stride) };
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
    fn from_map_loop<M: MapLoop + Clone>(
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
