//! Programs of plain `float64` operations ([`F64Op`]), run as one loop.
//!
//! The block-at-a-time evaluation runs each step over a block of 1024
//! elements before the next, so at any moment only one step's inputs
//! stream from memory. When every step is a marked `float64` operation,
//! this runs them over chunks of [`CHUNK`] elements instead, all steps per
//! chunk, with each operation's loop compiled here (no kernel call): every
//! input then streams at once, as in a hand-written loop. The operations
//! are the same IEEE ones, in the same order per element, so the bits are
//! those of the step-by-step evaluation.

use smallvec::SmallVec;

use crate::elwise::F64Op;

/// Elements per chunk: eight registers of this many `f64`s fit in 4 KiB.
pub(super) const CHUNK: usize = 64;

/// The most intermediate values a program may hold at once.
pub(super) const MAX_REGS: usize = 8;

/// Where an operand comes from.
#[derive(Clone, Copy, Debug)]
pub(super) enum VmArg {
    /// Leaf `k`.
    Leaf(usize),
    /// Register `r` (an earlier step's result).
    Reg(usize),
}

/// One operation: its arguments and the register it writes (`None`: the
/// result).
#[derive(Clone, Debug)]
pub(super) struct VmStep {
    pub(super) op: F64Op,
    pub(super) args: [VmArg; 2],
    pub(super) out: Option<usize>,
}

/// A program of `float64` operations.
#[derive(Clone, Debug)]
pub(super) struct Vm {
    pub(super) steps: SmallVec<[VmStep; 8]>,
}

/// An operand over one chunk.
#[derive(Clone, Copy)]
enum Opnd<'a> {
    Slice(&'a [f64]),
    Scalar(f64),
}

/// `out[i] = op(a[i], b[i])`, a loop per operand kind and operation (each
/// inlined and vectorised).
#[inline(always)]
fn apply(op: F64Op, out: &mut [f64], a: Opnd<'_>, b: Opnd<'_>) {
    #[inline(always)]
    fn each(out: &mut [f64], a: Opnd<'_>, b: Opnd<'_>, f: impl Fn(f64, f64) -> f64) {
        match (a, b) {
            (Opnd::Slice(x), Opnd::Slice(y)) => {
                for ((o, x), y) in out.iter_mut().zip(x).zip(y) {
                    *o = f(*x, *y);
                }
            }
            (Opnd::Slice(x), Opnd::Scalar(y)) => {
                for (o, x) in out.iter_mut().zip(x) {
                    *o = f(*x, y);
                }
            }
            (Opnd::Scalar(x), Opnd::Slice(y)) => {
                for (o, y) in out.iter_mut().zip(y) {
                    *o = f(x, *y);
                }
            }
            (Opnd::Scalar(x), Opnd::Scalar(y)) => out.fill(f(x, y)),
        }
    }
    match op {
        F64Op::Add => each(out, a, b, |x, y| x + y),
        F64Op::Sub => each(out, a, b, |x, y| x - y),
        F64Op::Mul => each(out, a, b, |x, y| x * y),
        F64Op::Div => each(out, a, b, |x, y| x / y),
        F64Op::Neg => each(out, a, a, |x, _| -x),
        F64Op::Abs => each(out, a, a, |x, _| x.abs()),
        F64Op::Sqrt => each(out, a, a, |x, _| x.sqrt()),
    }
}

/// How a leaf is read in a run.
#[derive(Clone, Copy)]
enum Input {
    /// Consecutive aligned `f64`s from this address.
    Dense(*const f64),
    /// One value for every element.
    Scalar(f64),
    /// `f64`s `stride` bytes apart from this address (any alignment).
    Strided(*const u8, isize),
}

/// Operand `a` over elements `start..start + m`: a register, or a leaf
/// read in place (dense), gathered into `g` (strided) or broadcast.
///
/// # Safety
///
/// Each leaf input describes `start + m` readable `f64`s, not written
/// while the operand lives.
unsafe fn operand<'a>(
    a: VmArg,
    regs: &'a [[f64; CHUNK]; MAX_REGS],
    inputs: &[Input],
    start: usize,
    m: usize,
    g: &'a mut [f64; CHUNK],
) -> Opnd<'a> {
    match a {
        VmArg::Reg(i) => Opnd::Slice(&regs[i][..m]),
        VmArg::Leaf(k) => match inputs[k] {
            Input::Scalar(x) => Opnd::Scalar(x),
            // SAFETY: `m` consecutive aligned f64s of the leaf from element
            // `start` (the contract), not written while the slice lives.
            Input::Dense(p) => Opnd::Slice(unsafe { std::slice::from_raw_parts(p.add(start), m) }),
            Input::Strided(p, s) => {
                for (i, v) in g[..m].iter_mut().enumerate() {
                    // SAFETY: element `start + i` of the leaf (the
                    // contract); any alignment.
                    *v = unsafe {
                        p.offset((start + i) as isize * s)
                            .cast::<f64>()
                            .read_unaligned()
                    };
                }
                Opnd::Slice(&g[..m])
            }
        },
    }
}

impl Vm {
    /// Runs the program over `count` elements: leaf `k`'s first at
    /// `src[k]`, `strides[k]` bytes apart, the result's at `dst`,
    /// `dst_stride` apart.
    ///
    /// # Safety
    ///
    /// Each leaf holds `count` `float64`s so described and the result
    /// `count` writable ones; the result's memory is no leaf's (a shared
    /// result is copied before evaluation), and nothing else writes any of
    /// it meanwhile.
    pub(super) unsafe fn run(
        &self,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        strides: &[isize],
        count: usize,
    ) {
        let inputs: SmallVec<[Input; 8]> = src
            .iter()
            .zip(strides)
            .map(|(&p, &s)| {
                if s == 0 {
                    // SAFETY: the leaf's one element (by the contract); any
                    // alignment.
                    Input::Scalar(unsafe { p.cast::<f64>().read_unaligned() })
                } else if s == 8 && p.align_offset(std::mem::align_of::<f64>()) == 0 {
                    Input::Dense(p.cast::<f64>())
                } else {
                    Input::Strided(p, s)
                }
            })
            .collect();
        let dense_out = dst_stride == 8;
        let mut regs = [[0.0f64; CHUNK]; MAX_REGS];
        let (mut g0, mut g1) = ([0.0f64; CHUNK], [0.0f64; CHUNK]);
        let mut result = [0.0f64; CHUNK];
        let mut start = 0;
        while start < count {
            let m = CHUNK.min(count - start);
            for step in &self.steps {
                {
                    // SAFETY: the leaves' elements `start..start + m` (the
                    // contract).
                    let a = unsafe { operand(step.args[0], &regs, &inputs, start, m, &mut g0) };
                    // SAFETY: as above.
                    let b = unsafe { operand(step.args[1], &regs, &inputs, start, m, &mut g1) };
                    apply(step.op, &mut result[..m], a, b);
                }
                if let Some(r) = step.out {
                    regs[r][..m].copy_from_slice(&result[..m]);
                }
            }
            // The result chunk, written once.
            if dense_out {
                // SAFETY: `m` writable f64s of the result from element
                // `start` (the contract), not overlapping `result` (a local).
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        result.as_ptr().cast::<u8>(),
                        dst.offset(start as isize * 8),
                        m * 8,
                    )
                };
            } else {
                for (i, v) in result[..m].iter().enumerate() {
                    // SAFETY: element `start + i` of the result (the
                    // contract); any alignment.
                    unsafe {
                        dst.offset((start + i) as isize * dst_stride)
                            .cast::<f64>()
                            .write_unaligned(*v)
                    };
                }
            }
            start += m;
        }
    }
}
