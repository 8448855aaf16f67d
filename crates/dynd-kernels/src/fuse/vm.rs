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
use crate::op::{with_f64_op, FloatApply, Op};

/// Elements per chunk: every step runs over this many before the next
/// step, all of them before the next chunk.
pub(super) const CHUNK: usize = 256;

/// Buffers the loop needs besides one per register: the result chunk (for
/// a result not written in place) and two for gathered strided leaves.
pub(super) const EXTRA_BUFFERS: usize = 3;

/// 16-byte words of each of the loop's buffers (a chunk of `f64`s).
pub(super) const BUF_WORDS: usize = (CHUNK * 8).div_ceil(16);

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
    /// An earlier step computed in the same pass (see [`Vm::new`]): its
    /// value is one of the operands, and `args` holds the other twice.
    pub(super) inner: Option<Inner>,
}

/// A step folded into the next one, which alone reads its value.
#[derive(Clone, Copy, Debug)]
pub(super) struct Inner {
    op: F64Op,
    args: [VmArg; 2],
    /// The register it wrote: still its own, for a chunk whose operands
    /// the pass does not take (a broadcast scalar, a gathered leaf).
    reg: usize,
    /// Whether its value is the outer operation's first operand.
    first: bool,
}

/// The binary operations a pair of steps fuses over.
fn pairs(op: F64Op) -> bool {
    matches!(op, F64Op::Add | F64Op::Sub | F64Op::Mul | F64Op::Div)
}

/// `out[i] = outer(inner(x[i], y[i]), z[i])` (the operands of `outer`
/// swapped where `first` is false): two operations in one pass, each
/// inlined and vectorised, the inner value never stored. The same IEEE
/// operations in the same order as the two steps, so the same bits.
/// Pairs of `+ - * /` ([`pairs`]) are compiled together; any other pair
/// runs as its two operations per element.
#[inline(always)]
fn apply_pair(inner: F64Op, outer: F64Op, first: bool, out: &mut [f64], [x, y, z]: [&[f64]; 3]) {
    #[inline(always)]
    fn each<I: FloatApply, O: FloatApply>(out: &mut [f64], [x, y, z]: [&[f64]; 3], first: bool) {
        let zipped = out.iter_mut().zip(x).zip(y).zip(z);
        if first {
            for (((o, x), y), z) in zipped {
                *o = O::apply(I::apply(*x, *y), *z);
            }
        } else {
            for (((o, x), y), z) in zipped {
                *o = O::apply(*z, I::apply(*x, *y));
            }
        }
    }
    /// `body` with `$T` the type of the pair operation `$op`, else `$else`.
    macro_rules! arith {
        ($op:expr, $T:ident => $body:expr, else $else:expr) => {
            match $op {
                F64Op::Add => {
                    type $T = crate::op::Add;
                    $body
                }
                F64Op::Sub => {
                    type $T = crate::op::Sub;
                    $body
                }
                F64Op::Mul => {
                    type $T = crate::op::Mul;
                    $body
                }
                F64Op::Div => {
                    type $T = crate::op::Div;
                    $body
                }
                _ => $else,
            }
        };
    }
    // Never taken (the caller pairs only `+ - * /`): the same operations
    // in the same order, one element at a time, with nothing allocated.
    let two_steps = |out: &mut [f64]| {
        for (((o, &x), &y), &z) in out.iter_mut().zip(x).zip(y).zip(z) {
            let g = inner.apply(x, y);
            *o = if first {
                outer.apply(g, z)
            } else {
                outer.apply(z, g)
            };
        }
    };
    arith!(inner, I => arith!(outer, O => each::<I, O>(out, [x, y, z], first), else two_steps(out)), else two_steps(out))
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
    with_f64_op!(op, O => {
        let b = if O::ARITY == 1 { a } else { b };
        each(out, a, b, O::apply::<f64>)
    })
}

/// `acc[i % 8] += op(a[i], b[i])` for `i` in `0..m` (each operand
/// `m` long): the root's values folded into eight interleaved
/// accumulators without being stored, in the order [`fold8`] adds them.
///
/// [`fold8`]: crate::reduce::fold8
#[inline(always)]
fn apply_fold(op: F64Op, acc: &mut [f64; 8], m: usize, a: Opnd<'_>, b: Opnd<'_>) {
    #[inline(always)]
    fn each(acc: &mut [f64; 8], m: usize, a: Opnd<'_>, b: Opnd<'_>, f: impl Fn(f64, f64) -> f64) {
        let at = |o: Opnd<'_>, i: usize| match o {
            Opnd::Slice(x) => x[i],
            Opnd::Scalar(x) => x,
        };
        match (a, b) {
            (Opnd::Slice(x), Opnd::Slice(y)) => {
                let (x, y) = (&x[..m], &y[..m]);
                let (xs, ys) = (x.chunks_exact(8), y.chunks_exact(8));
                for (x, y) in xs.zip(ys) {
                    for k in 0..8 {
                        acc[k] += f(x[k], y[k]);
                    }
                }
            }
            (Opnd::Slice(x), Opnd::Scalar(y)) => {
                for x in x[..m].chunks_exact(8) {
                    for k in 0..8 {
                        acc[k] += f(x[k], y);
                    }
                }
            }
            (Opnd::Scalar(x), Opnd::Slice(y)) => {
                for y in y[..m].chunks_exact(8) {
                    for k in 0..8 {
                        acc[k] += f(x, y[k]);
                    }
                }
            }
            (Opnd::Scalar(x), Opnd::Scalar(y)) => {
                let v = f(x, y);
                for _ in 0..m / 8 {
                    for a in acc.iter_mut() {
                        *a += v;
                    }
                }
            }
        }
        // The last `m % 8` values, in the same lanes.
        for i in m - m % 8..m {
            acc[i % 8] += f(at(a, i), at(b, i));
        }
    }
    with_f64_op!(op, O => {
        let b = if O::ARITY == 1 { a } else { b };
        each(acc, m, a, b, O::apply::<f64>)
    })
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
    /// The program of `steps` over `regs` registers, with each binary
    /// step (`+ - * /`) whose value only the next binary step reads
    /// folded into that one: the pair runs as one pass over a chunk, so
    /// the value is neither stored nor loaded again (`a*b + c` is one
    /// loop). A pair is not folded where the outer step writes a register
    /// the inner one reads, which one pass cannot do elementwise.
    pub(super) fn new(steps: SmallVec<[VmStep; 8]>, regs: usize) -> Vm {
        let reads = |s: &VmStep, r: usize| {
            let mut args = s.args.iter().chain(s.inner.iter().flat_map(|i| &i.args));
            args.any(|a| matches!(a, VmArg::Reg(x) if *x == r))
        };
        // How many steps read each register (a register may be reused:
        // all its readers together).
        let mut readers: SmallVec<[u32; 16]> = smallvec::smallvec![0; regs];
        for s in &steps {
            for (r, n) in readers.iter_mut().enumerate() {
                *n += u32::from(reads(s, r));
            }
        }
        let mut out: SmallVec<[VmStep; 8]> = SmallVec::new();
        let mut rest = &steps[..];
        while let [p, tail @ ..] = rest {
            let pair = tail.first().and_then(|s| {
                let r = p.out.filter(|&r| readers.get(r) == Some(&1))?;
                let plain = p.inner.is_none() && s.inner.is_none() && pairs(p.op) && pairs(s.op);
                let first = matches!(s.args[0], VmArg::Reg(x) if x == r);
                let second = matches!(s.args[1], VmArg::Reg(x) if x == r);
                let clash = s.out.is_some_and(|o| reads(p, o));
                let other = if first { s.args[1] } else { s.args[0] };
                (plain && first != second && !clash).then_some(VmStep {
                    op: s.op,
                    args: [other, other],
                    out: s.out,
                    inner: Some(Inner {
                        op: p.op,
                        args: p.args,
                        reg: r,
                        first,
                    }),
                })
            });
            match pair {
                Some(step) => {
                    out.push(step);
                    rest = &tail[1..];
                }
                None => {
                    out.push(p.clone());
                    rest = tail;
                }
            }
        }
        Vm { steps: out, regs }
    }

    /// The buffers a run needs: one per register and [`EXTRA_BUFFERS`].
    pub(super) fn buffers(&self) -> usize {
        self.regs + EXTRA_BUFFERS
    }

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
        let args = (bufs, buf_bytes, dst, dst_stride, src, strides, count);
        // At most AVX2: the loop streams every leaf through the cache, and
        // vectors of a whole cache line (on arrays aligned to 16 bytes, as
        // the allocator gives them) cross a line on every load. On a Zen 4,
        // `a*b + c*d - e` over 1,000 elements ran 10% slower on AVX-512.
        // SAFETY: `Isa::active` is a set this CPU has; the rest is the
        // caller's contract, forwarded.
        unsafe { crate::isa::upto_avx2!(crate::isa::Isa::active(), self.run_any(args)) }
    }

    /// The body of [`Vm::run`], inlined into each instruction set's copy
    /// (the same IEEE operations on each, so the same bits).
    ///
    /// # Safety
    ///
    /// As [`Vm::run`].
    #[inline(always)]
    unsafe fn run_any(&self, args: RunArgs<'_>) {
        let (bufs, buf_bytes, dst, dst_stride, src, strides, count) = args;
        let mut inputs = SmallVec::new();
        self::inputs(src, strides, &mut inputs);
        let reg = |r: usize| bufs.wrapping_add(r * buf_bytes).cast::<f64>();
        let result = reg(self.regs);
        let dense_out = dst_stride == 8 && dst.align_offset(std::mem::align_of::<f64>()) == 0;
        // A result written in place starts its second chunk on a cache
        // line, so that every full vector store after the first chunk
        // stays within one line (a store across two costs two).
        let head = match dst.align_offset(64).min(64) / 8 % 8 {
            k if dense_out && k > 0 => CHUNK - 8 + k,
            _ => CHUNK,
        };
        let mut start = 0;
        while start < count {
            let m = if start == 0 { head } else { CHUNK }.min(count - start);
            let out = if dense_out {
                dst.wrapping_offset(start as isize * 8).cast::<f64>()
            } else {
                result
            };
            // SAFETY: the leaves hold elements `start..start + m` (the
            // contract); `out` is `m` writable f64s no operand reaches: the
            // result's elements `start..start + m` (no leaf's memory) or the
            // result buffer; the buffers are this call's.
            unsafe { self.chunk(reg, &inputs, start, m, Root::Store(out)) };
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

    /// Folds the root's values over `count` elements (leaves as in
    /// [`Vm::run`]) without storing them: the folds of consecutive blocks
    /// of the sum's `PAIRWISE_BLOCK` elements, each exactly [`fold8`] of
    /// that block's values, so the sum's bits are those of summing the
    /// evaluated result.
    ///
    /// # Safety
    ///
    /// As for [`Vm::run`], without the result.
    ///
    /// [`fold8`]: crate::reduce::fold8
    pub(super) unsafe fn fold_blocks(
        &self,
        bufs: *mut u8,
        buf_bytes: usize,
        src: &[*const u8],
        strides: &[isize],
        count: usize,
        folds: &mut Folds,
    ) {
        let args = (bufs, buf_bytes, src, strides, count);
        // SAFETY: `isa::best!` runs on a set this CPU has; the rest
        // is the caller's contract, forwarded.
        crate::isa::best!(unsafe { self.fold_any(args, folds) })
    }

    /// The body of [`Vm::fold_blocks`], inlined into each instruction
    /// set's copy (the same operations in the same order on each).
    ///
    /// # Safety
    ///
    /// As [`Vm::fold_blocks`].
    #[inline(always)]
    unsafe fn fold_any(&self, args: FoldArgs<'_>, folds: &mut Folds) {
        let (bufs, buf_bytes, src, strides, count) = args;
        let block = crate::reduce::PAIRWISE_BLOCK;
        // Chunks start on a multiple of 8 within their block, so element
        // `i` of a block always lands in lane `i % 8`.
        const _: () = assert!(CHUNK.is_multiple_of(8));
        let mut inputs = SmallVec::new();
        self::inputs(src, strides, &mut inputs);
        let reg = |r: usize| bufs.wrapping_add(r * buf_bytes).cast::<f64>();
        let result = reg(self.regs);
        // A program of one step (not a folded pair, which may fall back
        // to its register) over leaves read in place or broadcast uses no
        // buffer: its chunks can be whole blocks.
        let direct = matches!(&self.steps[..], [s] if s.inner.is_none())
            && !inputs.iter().any(|i| matches!(i, Input::Strided(..)));
        let chunk = if direct { block.max(CHUNK) } else { CHUNK };
        let mut first = 0;
        while first < count {
            let len = block.min(count - first);
            if len < 16 {
                // fold8 adds a short block in sequence: its values first.
                // SAFETY: the leaves hold these `len` elements (the
                // contract); the result buffer is this call's and holds
                // CHUNK >= 16 > len f64s.
                unsafe {
                    self.chunk(reg, &inputs, first, len, Root::Store(result));
                    let v = std::slice::from_raw_parts(result, len);
                    folds.extend([crate::reduce::fold8(v, &|x: f64, y: f64| x + y)]);
                }
            } else {
                // -0.0 is the neutral element of `+` (`-0.0 + x` is `x`,
                // bit for bit), so starting from it adds what fold8 adds.
                let mut acc = [-0.0f64; 8];
                let mut start = first;
                while start < first + len {
                    let m = chunk.min(first + len - start);
                    // SAFETY: the leaves hold elements `start..start + m`
                    // (the contract); the buffers are this call's, and a
                    // chunk longer than CHUNK uses none of them (`direct`).
                    unsafe { self.chunk(reg, &inputs, start, m, Root::Fold(&mut acc)) };
                    start += m;
                }
                let a = (acc[0] + acc[1]) + (acc[2] + acc[3]);
                let b = (acc[4] + acc[5]) + (acc[6] + acc[7]);
                folds.extend([Some(a + b)]);
            }
            first += len;
        }
    }

    /// Runs every step over elements `start..start + m`, the root's
    /// values stored or folded: `m <= CHUNK`, or any `m` for one folded
    /// step over leaves that are not gathered (no buffer is used).
    ///
    /// # Safety
    ///
    /// Each leaf input describes `start + m` readable `f64`s; `reg(r)` is
    /// a buffer of CHUNK `f64`s for `r` up to `regs + EXTRA_BUFFERS`, used
    /// by this call alone; a stored root's `m` f64s are writable and no
    /// operand reaches them.
    #[inline(always)]
    unsafe fn chunk(
        &self,
        reg: impl Fn(usize) -> *mut f64 + Copy,
        inputs: &[Input],
        start: usize,
        m: usize,
        mut root: Root<'_>,
    ) {
        let (g0, g1) = (reg(self.regs + 1), reg(self.regs + 2));
        for step in &self.steps {
            if let Some(inner) = step.inner {
                // SAFETY: as for a single step below: the operands are
                // registers neither step writes, leaves and the gather
                // buffers; the inner step's own register is its alone.
                unsafe { self.pair(step, inner, reg, inputs, start, m, &mut root) };
                continue;
            }
            // SAFETY: the operands are registers this step does not write
            // (the buffer assignment), leaves and the gather buffers, valid
            // for these elements (the contract); `out` is `m` writable f64s
            // none of them reaches: a register of its own or the stored
            // root's place.
            unsafe {
                let a = operand(step.args[0], reg, inputs, start, m, g0);
                let b = operand(step.args[1], reg, inputs, start, m, g1);
                write(step, reg, m, &mut root, a, b);
            }
        }
    }
}

/// `step`'s operation on `a` and `b` over `m` elements, into its register
/// or the root (stored or folded).
///
/// # Safety
///
/// `step`'s register (or a stored root's place) is `m` writable `f64`s
/// that neither operand reaches.
#[inline(always)]
unsafe fn write(
    step: &VmStep,
    reg: impl Fn(usize) -> *mut f64,
    m: usize,
    root: &mut Root<'_>,
    a: Opnd<'_>,
    b: Opnd<'_>,
) {
    match (step.out, root) {
        // SAFETY: the contract.
        (Some(r), _) => apply(
            step.op,
            unsafe { std::slice::from_raw_parts_mut(reg(r), m) },
            a,
            b,
        ),
        // SAFETY: the contract.
        (None, Root::Store(p)) => apply(
            step.op,
            unsafe { std::slice::from_raw_parts_mut(*p, m) },
            a,
            b,
        ),
        (None, Root::Fold(acc)) => apply_fold(step.op, acc, m, a, b),
    }
}

impl Vm {
    /// A folded pair of steps over elements `start..start + m` (see
    /// [`Vm::new`]): one pass where every operand is a slice read in
    /// place and the root is stored; otherwise the inner step into its
    /// register, then the outer one.
    ///
    /// # Safety
    ///
    /// As [`Vm::chunk`].
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    unsafe fn pair(
        &self,
        step: &VmStep,
        inner: Inner,
        reg: impl Fn(usize) -> *mut f64 + Copy,
        inputs: &[Input],
        start: usize,
        m: usize,
        root: &mut Root<'_>,
    ) {
        let (g0, g1) = (reg(self.regs + 1), reg(self.regs + 2));
        let gathered =
            |a: VmArg| matches!(a, VmArg::Leaf(k) if matches!(inputs[k], Input::Strided(..)));
        // SAFETY: the inner step's operands are registers that neither
        // step writes (the buffer assignment, and `Vm::new` folds no pair
        // whose outer step writes one), leaves and the gather buffers.
        let (x, y) = unsafe {
            (
                operand(inner.args[0], reg, inputs, start, m, g0),
                operand(inner.args[1], reg, inputs, start, m, g1),
            )
        };
        let out = match (step.out, &*root) {
            // SAFETY: the outer step's register, which no operand is.
            (Some(r), _) => Some(unsafe { std::slice::from_raw_parts_mut(reg(r), m) }),
            // SAFETY: the stored root's place, which no operand reaches.
            (None, Root::Store(p)) => Some(unsafe { std::slice::from_raw_parts_mut(*p, m) }),
            (None, Root::Fold(_)) => None,
        };
        if let (Some(out), Opnd::Slice(x), Opnd::Slice(y), false) =
            (out, x, y, gathered(step.args[0]))
        {
            // SAFETY: the other operand is a register the outer step does
            // not write or a leaf read in place (not gathered: both
            // gather buffers hold the inner operands).
            if let Opnd::Slice(z) = unsafe { operand(step.args[0], reg, inputs, start, m, g0) } {
                apply_pair(inner.op, step.op, inner.first, out, [x, y, z]);
                return;
            }
        }
        // SAFETY: the inner step's own register, which only the outer
        // step reads.
        let r = unsafe { std::slice::from_raw_parts_mut(reg(inner.reg), m) };
        apply(inner.op, r, x, y);
        let value = Opnd::Slice(r);
        // SAFETY: as above; the gather buffers are free again.
        let other = unsafe { operand(step.args[0], reg, inputs, start, m, g0) };
        let (a, b) = if inner.first {
            (value, other)
        } else {
            (other, value)
        };
        // SAFETY: the outer step's register or the root's place, which no
        // operand reaches (as above).
        unsafe { write(step, reg, m, root, a, b) }
    }
}

/// [`Vm::run`]'s arguments, passed on to each instruction set's copy.
type RunArgs<'a> = (
    *mut u8,
    usize,
    *mut u8,
    isize,
    &'a [*const u8],
    &'a [isize],
    usize,
);

/// The block folds [`Vm::fold_blocks`] appends to (the caller's).
pub(super) type Folds = SmallVec<[Option<f64>; 128]>;

/// [`Vm::fold_blocks`]'s arguments, passed on to each instruction set's
/// copy.
type FoldArgs<'a> = (*mut u8, usize, &'a [*const u8], &'a [isize], usize);

/// Where the root's values go.
enum Root<'a> {
    /// Stored at this address.
    Store(*mut f64),
    /// Folded into these accumulators.
    Fold(&'a mut [f64; 8]),
}

/// How each leaf is read, pushed to `out` (filled in place, not
/// returned: a returned list is copied on every run): broadcast (stride
/// 0), in place (dense and aligned) or gathered.
fn inputs(src: &[*const u8], strides: &[isize], out: &mut SmallVec<[Input; 8]>) {
    out.extend(src.iter().zip(strides).map(|(&p, &s)| {
        if s == 0 {
            // SAFETY: the leaf's one element (the callers' contract); any
            // alignment.
            Input::Scalar(unsafe { p.cast::<f64>().read_unaligned() })
        } else if s == 8 && p.align_offset(std::mem::align_of::<f64>()) == 0 {
            Input::Dense(p.cast::<f64>())
        } else {
            Input::Strided(p, s)
        }
    }));
}
