//! Fused evaluation: a whole elementwise expression in one pass over its
//! result.
//!
//! A [`Program`] is a list of steps — scalar functions ([`Leaf`]s) and
//! element conversions — over leaves (arrays of any layout, broadcast to
//! the result) and the results of earlier steps. Evaluating it walks the
//! result once with the loop engine (the result's memory order, merged
//! runs, tiles for transposed leaves, threads above the threshold) and, in
//! each run, goes through it a block of [`BLOCK`] elements at a time: every
//! step runs over the block, reading leaves through their own strides and
//! earlier steps from small per-thread buffers, and the last step writes
//! the result. No temporary as large as the result is made, so a compound
//! expression reads and writes memory once instead of once per operation.
//!
//! When every step is a plain `float64` operation ([`F64Op`](crate::elwise::F64Op): the
//! builtins' `float64` `add`, `subtract`, `multiply`, `divide`, `negative`,
//! `abs` and `sqrt`, or any leaf made by [`Leaf::f64_op`]), the steps run
//! together instead, all of them over one chunk of 256 elements before the
//! next, each operation's loop compiled in (no kernel call per step): every
//! leaf then streams from memory at once, as in a hand-written loop, and
//! the bits are the same.
//!
//! Results whose last dimension is `var` (fixed dimensions around it) are
//! fused over the rows' values when every ragged leaf's rows have the
//! result's lengths and lie end to end; a leaf with one value per row is
//! spread over the block (a segmented fill). Other layouts are not taken:
//! [`Program::eval`] says so with `None`, and the caller evaluates step by
//! step instead.
//!
//! Steps are shared: a step with the same function and arguments as an
//! earlier one *is* that one (common subexpressions are computed once per
//! block), and a leaf given twice is one leaf.
//!
//! ```
//! use dynd::nd::{array, fuse::Program, Array, ErrorMode};
//! use dynd::func::Leaf;
//!
//! let (a, b) = (array![[1.0, 2.0], [3.0, 4.0]], array![10.0, 20.0]);
//! let mul = Leaf::map(|x: f64, y: f64| x * y);
//! let add = Leaf::map(|x: f64, y: f64| x + y);
//!
//! // (a * b) + (a * b), with the product computed once per block.
//! let mut p = Program::new();
//! let (la, lb) = (p.leaf(&a), p.leaf(&b));
//! let ab = p.call(&mul, &[la, lb])?;
//! assert_eq!(p.call(&mul, &[la, lb])?, ab);
//! let sum = p.call(&add, &[ab, ab])?;
//! let r = p.eval(sum, &"2 * 2 * float64".parse()?)?.expect("a dense result fuses");
//! assert_eq!(r.to_string(), "[[20, 80], [60, 160]]");
//!
//! // A conversion step: the int32 result of an elementwise step, as float64.
//! let mut p = Program::new();
//! let i = p.leaf(&array![1i32, 2]);
//! let x = p.cast(i, &"float64".parse()?, ErrorMode::Fractional)?;
//! let half = p.leaf(&Array::from_scalar(0.5f64));
//! let y = p.call(&mul, &[x, half])?;
//! let r = p.eval(y, &"2 * float64".parse()?)?.unwrap();
//! assert_eq!(r.to_string(), "[0.5, 1]");
//! # Ok::<(), dynd::Error>(())
//! ```

mod dense;
mod ragged;
mod steps;
mod vm;
pub use dense::F64Arg;
pub use steps::Dense;

use std::cell::RefCell;
use std::sync::Arc;

use smallvec::{smallvec, SmallVec};

use dynd_types::{Dim, Scalar, Type, TypeKind};

use crate::array::Array;
use crate::arrmeta::Arrmeta;
use crate::assign::{push_element_assign, ErrorMode};
use crate::elwise::{Leaf, LeafFit, PARALLEL_MIN};
use crate::error::{Error, KernelError};
use crate::kernel::{Child, Kernel, KernelBuilder};
use crate::loops::{Axis, Order, Plan, Strides};
use crate::shared::Shared;

/// Elements per block: every step runs over this many at a time, so the
/// buffers between steps stay in the first levels of cache.
pub const BLOCK: usize = 1024;

/// A value in a [`Program`]: a leaf or the result of a step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slot(Ref);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Ref {
    Leaf(usize),
    Step(usize),
}

/// What a step computes.
#[derive(Clone)]
enum Op {
    /// A scalar function, with how it meets its arguments' types.
    Call(Leaf, LeafFit),
    /// A conversion to the step's data type.
    Cast(ErrorMode),
}

/// One step: its operation, arguments, and result data type.
#[derive(Clone)]
struct Step {
    op: Op,
    args: SmallVec<[Slot; 4]>,
    dtype: Type,
    /// The byte size of one result element.
    size: usize,
}

/// An elementwise program over arrays, evaluated in one fused pass (see
/// the [module docs](self)).
#[derive(Clone, Default)]
pub struct Program {
    leaves: Vec<Array>,
    steps: Vec<Step>,
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let leaves: Vec<String> = self.leaves.iter().map(|a| a.ty().to_string()).collect();
        let steps: Vec<String> = self
            .steps
            .iter()
            .map(|s| {
                let op = match &s.op {
                    Op::Call(leaf, _) => format!("{leaf:?}"),
                    Op::Cast(mode) => format!("cast({mode:?})"),
                };
                format!("{op} {:?} -> {}", &s.args[..], s.dtype)
            })
            .collect();
        f.debug_struct("Program")
            .field("leaves", &leaves)
            .field("steps", &steps)
            .finish()
    }
}

/// Whether two arrays are the same view of the same memory.
fn same_array(a: &Array, b: &Array) -> bool {
    Arc::ptr_eq(a.data_block(), b.data_block())
        && a.data_offset() == b.data_offset()
        && a.ty() == b.ty()
        && std::ptr::eq(a.arrmeta(), b.arrmeta())
}

impl Program {
    /// An empty program.
    pub fn new() -> Program {
        Program {
            leaves: Vec::with_capacity(8),
            steps: Vec::with_capacity(8),
        }
    }

    /// A leaf: the array's elements, broadcast to the result. The same
    /// view given twice is one leaf.
    pub fn leaf(&mut self, a: &Array) -> Slot {
        if let Some(k) = self.leaves.iter().position(|l| same_array(l, a)) {
            return Slot(Ref::Leaf(k));
        }
        self.leaves.push(a.clone());
        Slot(Ref::Leaf(self.leaves.len() - 1))
    }

    /// The data type of a slot's elements.
    ///
    /// # Panics
    ///
    /// If the slot is not one of this program's.
    pub fn dtype(&self, s: Slot) -> &Type {
        match s.0 {
            Ref::Leaf(k) => self.leaves[k].dtype(),
            Ref::Step(j) => &self.steps[j].dtype,
        }
    }

    /// The leaves, in the order they were first given.
    pub fn leaves(&self) -> &[Array] {
        &self.leaves
    }

    /// The same steps over other leaves: `f` gives each leaf's
    /// replacement (a part of it, say, to evaluate the program a part of
    /// the result at a time), of the same data type.
    ///
    /// # Errors
    ///
    /// An error of `f`; [`Error::DtypeMismatch`] for a replacement of
    /// another data type.
    pub fn map_leaves(
        &self,
        mut f: impl FnMut(&Array) -> Result<Array, Error>,
    ) -> Result<Program, Error> {
        let leaves = self
            .leaves
            .iter()
            .map(|a| {
                let b = f(a)?;
                if b.dtype() != a.dtype() {
                    return Err(Error::DtypeMismatch {
                        actual: b.dtype().clone(),
                        requested: a.dtype().clone(),
                    });
                }
                Ok(b)
            })
            .collect::<Result<Vec<_>, Error>>()?;
        Ok(Program {
            leaves,
            steps: self.steps.clone(),
        })
    }

    /// The number of steps (shared ones counted once).
    pub fn steps(&self) -> usize {
        self.steps.len()
    }

    /// Whether `s` is one of this program's slots.
    fn check(&self, s: Slot) -> Result<(), Error> {
        let ok = match s.0 {
            Ref::Leaf(k) => k < self.leaves.len(),
            Ref::Step(j) => j < self.steps.len(),
        };
        if ok {
            Ok(())
        } else {
            Err(Error::Argument {
                op: "Program",
                what: "a slot",
                expected: "one of this program's",
                found: format!("{s:?}").into(),
            })
        }
    }

    /// A step, or the earlier one that computes the same.
    fn push(&mut self, step: Step) -> Slot {
        let same = |s: &Step| {
            s.args == step.args
                && s.dtype == step.dtype
                && match (&s.op, &step.op) {
                    (Op::Call(a, _), Op::Call(b, _)) => a.same_function(b),
                    (Op::Cast(a), Op::Cast(b)) => a == b,
                    _ => false,
                }
        };
        if let Some(j) = self.steps.iter().position(same) {
            return Slot(Ref::Step(j));
        }
        self.steps.push(step);
        Slot(Ref::Step(self.steps.len() - 1))
    }

    /// A step applying `leaf` to `args`. Its data type is the leaf's
    /// output (an option when an option argument meets a plain parameter:
    /// NA propagates, as in [`crate::elwise::apply`]).
    ///
    /// # Errors
    ///
    /// [`Error::Arity`] or [`Error::ArgumentType`] when the arguments'
    /// data types are not the leaf's; [`Error::Unsupported`] for a leaf
    /// whose result has no fixed size.
    pub fn call(&mut self, leaf: &Leaf, args: &[Slot]) -> Result<Slot, Error> {
        if leaf.reads_text() {
            // Its kernel needs the arrays' text blocks, which a buffer has not.
            return Err(Error::Unsupported {
                operation: "a string function inside a fused loop",
                ty: leaf.output().into(),
            });
        }
        for &a in args {
            self.check(a)?;
        }
        let (dtype, fit) = {
            let dtypes: SmallVec<[&Type; 4]> = args.iter().map(|&a| self.dtype(a)).collect();
            let dtype = leaf.result_type(&dtypes)?;
            let fit = leaf.fit(&dtypes, &dtype)?;
            (dtype, fit)
        };
        let size = dtype.data_layout()?.size;
        Ok(self.push(Step {
            op: Op::Call(leaf.clone(), fit),
            args: args.into(),
            dtype,
            size,
        }))
    }

    /// A step converting `x` to data type `to` under `mode` (as
    /// [`ArrayOps::cast`](crate::ops::ArrayOps::cast) converts each element).
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] for data types without an element
    /// conversion (text, structures, dimensions).
    pub fn cast(&mut self, x: Slot, to: &Type, mode: ErrorMode) -> Result<Slot, Error> {
        self.check(x)?;
        let from = self.dtype(x).clone();
        let plain = |t: &Type| match t.kind() {
            TypeKind::Option(inner) => inner.as_scalar().is_some(),
            _ => t.as_scalar().is_some(),
        };
        let text = |t: &Type| matches!(t.as_scalar(), Some(Scalar::String | Scalar::Bytes));
        if !plain(&from) || !plain(to) || text(&from) || text(to) {
            return Err(Error::Unsupported {
                operation: "a fused conversion of this data type",
                ty: if plain(&from) { to.clone() } else { from },
            });
        }
        // The kernel is built here once, so an unsupported pair fails now.
        let mut b = KernelBuilder::new();
        push_element_assign(&mut b, to, &from, mode)?;
        let size = to.data_layout()?.size;
        Ok(self.push(Step {
            op: Op::Cast(mode),
            args: smallvec![x],
            dtype: to.clone(),
            size,
        }))
    }

    /// Evaluates `root` into a new array of type `ty` (the leaves' broadcast
    /// dimensions over `root`'s data type), or `None` when the result's or
    /// a leaf's layout is not one the fused pass takes (see the [module
    /// docs](self)).
    ///
    /// # Errors
    ///
    /// [`Error::DtypeMismatch`] if `ty`'s data type is not `root`'s; an
    /// error of a step (a failed conversion, a fallible function), at the
    /// result's index.
    pub fn eval(&self, root: Slot, ty: &Type) -> Result<Option<Array>, Error> {
        self.check(root)?;
        let (dims, dtype) = ty.split_dims();
        if dtype != self.dtype(root) {
            return Err(Error::DtypeMismatch {
                actual: self.dtype(root).clone(),
                requested: dtype.clone(),
            });
        }
        let Ref::Step(_) = root.0 else {
            return Ok(None);
        };
        match dims.last() {
            Some(Dim::Var) => return ragged::eval(self, root, ty),
            _ if ty.has_var_dim() => return Ok(None),
            _ => {}
        }
        let mut out = Array::for_overwrite(ty)?;
        Ok(self.eval_dense(root, &mut out)?.then_some(out))
    }

    /// Evaluates `root` into `out`, whose dimensions the leaves broadcast
    /// to and whose data type is `root`'s; `false` (nothing written) when
    /// a layout is not one the fused pass takes. An `out` that shares its
    /// memory with other arrays is copied first (arrays are values), so a
    /// leaf reading the same memory sees it as it was.
    ///
    /// # Errors
    ///
    /// As [`Program::eval`], and [`Error::ReadOnly`].
    pub fn eval_into(&self, root: Slot, out: &mut Array) -> Result<bool, Error> {
        self.check(root)?;
        if out.dtype() != self.dtype(root) {
            return Err(Error::DtypeMismatch {
                actual: self.dtype(root).clone(),
                requested: out.dtype().clone(),
            });
        }
        if !matches!(root.0, Ref::Step(_)) || out.ty().has_var_dim() {
            return Ok(false);
        }
        self.eval_dense(root, out)
    }

    /// The steps `root` needs, in order.
    fn needed(&self, root: usize) -> SmallVec<[usize; 16]> {
        let mut need: SmallVec<[bool; 16]> = smallvec![false; root + 1];
        need[root] = true;
        for j in (0..=root).rev() {
            if need[j] {
                for a in &self.steps[j].args {
                    if let Ref::Step(i) = a.0 {
                        need[i] = true;
                    }
                }
            }
        }
        (0..=root).filter(|&j| need[j]).collect()
    }

    /// The fused steps for `root`, their kernels pushed into `b`.
    fn fused<'a>(&'a self, b: &mut KernelBuilder<'a>, root: usize) -> Result<Fused, Error> {
        let order = self.needed(root);
        // Buffers: each step's result lives in one from its step to its
        // last use; a step never writes the buffer of its own arguments.
        let mut last_use: SmallVec<[usize; 16]> = smallvec![0; root + 1];
        for (at, &j) in order.iter().enumerate() {
            for a in &self.steps[j].args {
                if let Ref::Step(i) = a.0 {
                    last_use[i] = at;
                }
            }
        }
        let mut free: SmallVec<[usize; 8]> = SmallVec::new();
        let mut nbuf = 0;
        let mut buf_of: SmallVec<[usize; 16]> = smallvec![usize::MAX; root + 1];
        let mut steps: SmallVec<[FusedStep; 8]> = SmallVec::new();
        // The same steps as plain float64 operations, while they all are.
        let float64 = |t: &Type| t.as_scalar() == Some(Scalar::Float64);
        let mut vm_steps: Option<SmallVec<[vm::VmStep; 8]>> = Some(SmallVec::new());
        for (at, &j) in order.iter().enumerate() {
            let step = &self.steps[j];
            let f64_op = match &step.op {
                Op::Call(leaf, _) => leaf.as_f64_op(),
                Op::Cast(_) => None,
            }
            .filter(|op| {
                float64(&step.dtype)
                    && step.args.len() == op.arity()
                    && step.args.iter().all(|&a| float64(self.dtype(a)))
            });
            let child = match &step.op {
                Op::Call(leaf, fit) => leaf.push_fitted(b, fit, None)?,
                Op::Cast(mode) => {
                    push_element_assign(b, &step.dtype, self.dtype(step.args[0]), *mode)?
                }
            };
            let args: SmallVec<[Arg; 4]> = step
                .args
                .iter()
                .map(|a| match a.0 {
                    Ref::Leaf(k) => Arg::Leaf(k),
                    Ref::Step(i) => Arg::Buf(buf_of[i], self.steps[i].size),
                })
                .collect();
            if j != root {
                buf_of[j] = free.pop().unwrap_or_else(|| {
                    nbuf += 1;
                    nbuf - 1
                });
            }
            for a in &step.args {
                if let Ref::Step(i) = a.0 {
                    if last_use[i] == at && !free.contains(&buf_of[i]) {
                        free.push(buf_of[i]);
                    }
                }
            }
            let out = (j != root).then_some(buf_of[j]);
            vm_steps = match (vm_steps, f64_op) {
                (Some(mut v), Some(op)) => {
                    let arg = |a: &Arg| match *a {
                        Arg::Leaf(k) => vm::VmArg::Leaf(k),
                        Arg::Buf(b, _) => vm::VmArg::Reg(b),
                    };
                    let first = arg(&args[0]);
                    let second = args.get(1).map_or(first, arg);
                    v.push(vm::VmStep {
                        op,
                        args: [first, second],
                        out,
                        inner: None,
                    });
                    Some(v)
                }
                _ => None,
            };
            steps.push(FusedStep {
                child,
                args,
                out,
                size: step.size,
            });
        }
        let vm = vm_steps.map(|steps| vm::Vm::new(steps, nbuf));
        let max_size = order.iter().map(|&j| self.steps[j].size).max().unwrap_or(1);
        // Whole 16-byte words per buffer, so each starts aligned.
        // The float64 loop's registers hold a chunk each, and its result
        // and gather buffers follow them; the kernels' hold a block each.
        let (buf_words, nbuf) = match &vm {
            Some(v) => (vm::BUF_WORDS, v.buffers()),
            None => ((BLOCK * max_size).div_ceil(16), nbuf),
        };
        Ok(Fused {
            steps,
            nbuf,
            buf_words,
            vm,
        })
    }
}

/// Whether an element's arrmeta is that of a number, `bool` or an
/// option of one (nothing a step's kernel would need).
fn plain(m: &Arrmeta) -> bool {
    match m {
        Arrmeta::Scalar => true,
        Arrmeta::Option(inner) => matches!(**inner, Arrmeta::Scalar),
        _ => false,
    }
}

/// Where a step reads an argument from.
#[derive(Clone, Copy, Debug)]
enum Arg {
    /// Leaf `k`, through the run's pointer and stride for it.
    Leaf(usize),
    /// Buffer `b`, of elements of this size.
    Buf(usize, usize),
}

/// One step of the fused kernel.
struct FusedStep {
    child: Child,
    args: SmallVec<[Arg; 4]>,
    /// The buffer it writes; `None` for the root, which writes the result.
    out: Option<usize>,
    size: usize,
}

/// The fused steps, run over blocks of every run.
struct Fused {
    steps: SmallVec<[FusedStep; 8]>,
    nbuf: usize,
    /// 16-byte words per buffer.
    buf_words: usize,
    /// The steps as one loop of plain float64 operations, when they all
    /// are.
    vm: Option<vm::Vm>,
}

thread_local! {
    /// Each thread's chunk of values for a fused sum.
    static CHUNKS: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
    /// Each thread's block buffers.
    static BUFFERS: RefCell<Vec<u128>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's buffers, at least `words` 16-byte words
/// from a cache-line boundary (a fresh set when the thread is already
/// inside a fused pass).
///
/// The alignment matters to the vector loops: a 64-byte load or store
/// that straddles two cache lines costs two, and with buffers only
/// 16-byte aligned three of every four would.
fn with_buffers<R>(words: usize, f: impl FnOnce(*mut u8) -> R) -> R {
    // Up to three words of padding bring the start to a cache line.
    const PAD: usize = 64 / 16 - 1;
    let run = |v: &mut Vec<u128>| {
        if v.len() < words + PAD {
            v.resize(words + PAD, 0);
        }
        let p = v.as_mut_ptr().cast::<u8>();
        // `align_offset` of a `u128` pointer to 64 is a multiple of 16 at
        // most 48 bytes: within the padding.
        f(p.wrapping_add(p.align_offset(64).min(PAD * 16)))
    };
    BUFFERS.with(|cell| match cell.try_borrow_mut() {
        Ok(mut v) => run(&mut v),
        Err(_) => run(&mut Vec::new()),
    })
}

impl Fused {
    /// Runs `f` with this thread's block buffers (a fresh set when the
    /// thread is already inside a fused pass).
    fn with_buffers<R>(&self, f: impl FnOnce(*mut u8) -> R) -> R {
        with_buffers(self.nbuf.max(1) * self.buf_words, f)
    }

    /// Runs the steps over `count` elements: leaf `k`'s first at `src[k]`
    /// and `strides[k]` bytes apart, the result's at `dst`, `dst_stride`
    /// apart. An error's index is the element's in the run.
    ///
    /// # Safety
    ///
    /// Every element so described is valid for the steps' kernels (built
    /// for the leaves' and result's data types, records of `kernel`);
    /// `bufs` holds this program's buffers.
    #[allow(clippy::too_many_arguments)]
    unsafe fn run_blocks(
        &self,
        kernel: &Kernel<'_>,
        bufs: *mut u8,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        strides: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        if let Some(vm) = &self.vm {
            // SAFETY: the run's elements are float64 (every step's and
            // leaf's data type is, checked when the VM was built) and valid
            // by the contract; a result that shares memory is copied
            // before evaluation, so it is no leaf's; `bufs` holds this
            // program's buffers (registers and the loop's extra ones, each
            // CHUNK float64s, 16-byte aligned), used by this call alone.
            unsafe {
                vm.run(
                    bufs,
                    self.buf_words * 16,
                    dst,
                    dst_stride,
                    src,
                    strides,
                    count,
                )
            };
            return Ok(());
        }
        let buf = |b: usize| bufs.wrapping_add(b * self.buf_words * 16);
        let mut ptrs: SmallVec<[*const u8; 4]> = SmallVec::new();
        let mut steps: SmallVec<[isize; 4]> = SmallVec::new();
        for start in (0..count).step_by(BLOCK) {
            let m = BLOCK.min(count - start);
            let at = start as isize;
            for s in &self.steps {
                ptrs.clear();
                steps.clear();
                for a in &s.args {
                    let (p, st) = match *a {
                        Arg::Leaf(k) => (src[k].wrapping_offset(at * strides[k]), strides[k]),
                        Arg::Buf(b, size) => (buf(b).cast_const(), size as isize),
                    };
                    ptrs.push(p);
                    steps.push(st);
                }
                let (d, ds) = match s.out {
                    Some(b) => (buf(b), s.size as isize),
                    None => (dst.wrapping_offset(at * dst_stride), dst_stride),
                };
                // SAFETY: `m` elements of each argument from `at` on (valid
                // by the contract) or of an earlier step's buffer, which
                // it wrote for this block; the destination likewise.
                unsafe { kernel.record(s.child).strided(d, ds, &ptrs, &steps, m) }
                    .map_err(|e| shift(e, start))?;
            }
        }
        Ok(())
    }
}

/// The error with the first index of its path moved on by `by`.
fn shift(e: KernelError, by: usize) -> KernelError {
    let path = e.path();
    let Some((&first, deeper)) = path.split_first() else {
        return e.at(by);
    };
    let mut fresh = KernelError::new(e.kind().clone());
    for &i in deeper.iter().rev() {
        fresh = fresh.at(i);
    }
    fresh.at(first + by)
}

#[cfg(test)]
mod tests;
