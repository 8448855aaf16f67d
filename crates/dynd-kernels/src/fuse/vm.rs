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

/// Elements per chunk: every step runs over this many before the next
/// step, all of them before the next chunk.
pub(super) const CHUNK: usize = 128;

/// Buffers the loop needs besides one per register: the result chunk (for
/// a result not written in place) and two for gathered strided leaves.
pub(super) const EXTRA_BUFFERS: usize = 3;

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
    /// How many registers the steps use (the fused program's buffers).
    pub(super) regs: usize,
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
/// read in place (dense), gathered into the buffer `g` (strided) or
/// broadcast.
///
/// # Safety
///
/// Each leaf input describes `start + m` readable `f64`s and register `r`
/// is `m` `f64`s at `reg(r)`, none written while the operand lives; `g`
/// holds `m` `f64`s that nothing else reaches meanwhile.
unsafe fn operand<'a>(
    a: VmArg,
    reg: impl Fn(usize) -> *mut f64,
    inputs: &[Input],
    start: usize,
    m: usize,
    g: *mut f64,
) -> Opnd<'a> {
    match a {
        // SAFETY: register `i`'s `m` values (the contract).
        VmArg::Reg(i) => Opnd::Slice(unsafe { std::slice::from_raw_parts(reg(i), m) }),
        VmArg::Leaf(k) => match inputs[k] {
            Input::Scalar(x) => Opnd::Scalar(x),
            // SAFETY: `m` consecutive aligned f64s of the leaf from element
            // `start` (the contract), not written while the slice lives.
            Input::Dense(p) => Opnd::Slice(unsafe { std::slice::from_raw_parts(p.add(start), m) }),
            Input::Strided(p, s) => {
                // SAFETY: `g` holds `m` f64s nothing else reaches (the
                // contract).
                let g = unsafe { std::slice::from_raw_parts_mut(g, m) };
                for (i, v) in g.iter_mut().enumerate() {
                    // SAFETY: element `start + i` of the leaf (the
                    // contract); any alignment.
                    *v = unsafe {
                        p.offset((start + i) as isize * s)
                            .cast::<f64>()
                            .read_unaligned()
                    };
                }
                Opnd::Slice(g)
            }
        },
    }
}

impl Vm {
    /// Runs the program over `count` elements: leaf `k`'s first at
    /// `src[k]`, `strides[k]` bytes apart, the result's at `dst`,
    /// `dst_stride` apart; register `r` (and the [`EXTRA_BUFFERS`] after
    /// the registers) is the buffer at `bufs + r * buf_bytes`.
    ///
    /// # Safety
    ///
    /// Each leaf holds `count` `float64`s so described and the result
    /// `count` writable ones; the result's memory is no leaf's (a shared
    /// result is copied before evaluation), and nothing else writes any of
    /// it meanwhile. `bufs` holds `regs + EXTRA_BUFFERS` buffers of
    /// `buf_bytes >= CHUNK * 8` bytes each, aligned for `f64`, that only
    /// this call uses. A step never writes a register it reads (the fused
    /// program's buffer assignment).
    #[allow(clippy::too_many_arguments)]
    pub(super) unsafe fn run(
        &self,
        bufs: *mut u8,
        buf_bytes: usize,
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
        let reg = |r: usize| bufs.wrapping_add(r * buf_bytes).cast::<f64>();
        let (result, g0, g1) = (reg(self.regs), reg(self.regs + 1), reg(self.regs + 2));
        let dense_out = dst_stride == 8 && dst.align_offset(std::mem::align_of::<f64>()) == 0;
        let mut start = 0;
        while start < count {
            let m = CHUNK.min(count - start);
            for step in &self.steps {
                let out = match step.out {
                    Some(r) => reg(r),
                    None if dense_out => dst.wrapping_offset(start as isize * 8).cast::<f64>(),
                    None => result,
                };
                // SAFETY: the operands are registers this step does not
                // write, leaves (never the result's memory) and the gather
                // buffers; `out` is `m` writable f64s none of them reaches:
                // a register of its own, the result's elements
                // `start..start + m`, or the result buffer (the contract).
                unsafe {
                    let a = operand(step.args[0], reg, &inputs, start, m, g0);
                    let b = operand(step.args[1], reg, &inputs, start, m, g1);
                    apply(step.op, std::slice::from_raw_parts_mut(out, m), a, b);
                }
            }
            if !dense_out {
                for i in 0..m {
                    // SAFETY: the result buffer's value `i` (written by the
                    // root step above) and element `start + i` of the
                    // result (the contract; any alignment).
                    unsafe {
                        dst.offset((start + i) as isize * dst_stride)
                            .cast::<f64>()
                            .write_unaligned(result.add(i).read())
                    };
                }
            }
            start += m;
        }
    }
}
