//! Small programs over dense arrays ([`Dense`]): each step a leaf's own
//! flat loop, or for plain `float64` arithmetic the operations compiled
//! into one loop, run a chunk at a time.

use super::*;
use crate::loops::FlatRun;

/// A program of elementwise steps over C-contiguous leaves, made ready
/// once for results of one type: evaluating it runs every step over a
/// chunk of 256 elements before the next chunk, with earlier steps'
/// values in small per-thread buffers. No kernel is built and no
/// intermediate array made, so this is the cheap way for small
/// expressions. Where every step is a plain `float64` operation
/// ([`Leaf::f64_op`], the builtins' arithmetic), the operations are
/// compiled into the loop (pairs fused, no call per step); otherwise each
/// step runs its leaf's own loop (the one a call of it runs on such
/// arrays: integers, `float32`, comparisons, `bool`, the math
/// functions). Either way the values are those of calling the leaves
/// step by step, bit for bit.
///
/// A step takes leaves (each C-contiguous with the result's dimensions,
/// or 0-d, of the data type the step reads) and earlier steps' values;
/// every leaf must have a loop that cannot fail, over builtin numbers or
/// `bool`, without options.
///
/// ```
/// use dynd::func::raw::{Dense, F64Arg};
/// use dynd::func::Leaf;
/// use dynd::nd::Array;
///
/// let mul = Leaf::map(|x: i64, y: i64| x.wrapping_mul(y));
/// let less = Leaf::map(|x: i64, y: i64| x < y);
/// // a * a < b, over three int64s.
/// let steps = [
///     (&mul, &[F64Arg::Leaf(0), F64Arg::Leaf(0)][..]),
///     (&less, &[F64Arg::Step(0), F64Arg::Leaf(1)][..]),
/// ];
/// let ty = "3 * bool".parse()?;
/// let p = Dense::new(&steps, &["int64".parse()?, "int64".parse()?], &ty)
///     .expect("loops over int64 and bool");
/// let (a, b) = (Array::from_vec(vec![1i64, 2, 3]), Array::from_scalar(5i64));
/// let r = p.eval(&[&a, &b])?.expect("dense leaves");
/// assert_eq!(r.to_vec::<bool>()?, [true, true, false]);
/// # Ok::<(), dynd::Error>(())
/// ```
pub struct Dense {
    engine: Engine,
    /// Each leaf's data type.
    leaves: SmallVec<[Scalar; 8]>,
    ty: Type,
    /// The result's dimensions and their C-order steps in elements.
    dims: crate::elwise::CDims,
    count: usize,
}

/// How a [`Dense`] program runs.
enum Engine {
    /// Plain `float64` operations compiled into the loop.
    Vm(vm::Vm),
    /// Each step its leaf's loop, with `words` 16-byte words of buffers.
    Steps {
        steps: SmallVec<[FlatStep; 8]>,
        words: usize,
    },
}

/// One step of a [`Dense`] program run by its leaf's loop.
struct FlatStep {
    flat: Arc<dyn FlatRun>,
    args: SmallVec<[F64Arg; 4]>,
    /// The data type of its values, and the size of one.
    output: Scalar,
    size: usize,
    /// Where its buffer starts, in bytes from the first.
    at: usize,
}

impl std::fmt::Debug for Dense {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (engine, steps) = match &self.engine {
            Engine::Vm(vm) => ("float64 operations", vm.steps.len()),
            Engine::Steps { steps, .. } => ("leaves' loops", steps.len()),
        };
        f.debug_struct("Dense")
            .field("ty", &self.ty)
            .field("engine", &engine)
            .field("steps", &steps)
            .field("leaves", &self.leaves)
            .finish()
    }
}

impl Dense {
    /// The program of `steps` (each a leaf and its arguments, the last the
    /// result) over leaves of data types `leaves`, for results of type `ty`
    /// (fixed dimensions over the last leaf's output); `None` when a leaf
    /// has no loop that cannot fail, takes or gives an option, is not over
    /// builtin numbers or `bool` or takes more than four arguments, or an
    /// argument is not of the type the leaf reads, is a later step or a
    /// leaf past `leaves`.
    pub fn new(steps: &[(&Leaf, &[F64Arg])], leaves: &[Type], ty: &Type) -> Option<Dense> {
        // Numbers, `bool` and the time types (integers).
        let plain = |s: Scalar| s.storage().is_numeric();
        let leaves: SmallVec<[Scalar; 8]> = leaves
            .iter()
            .map(|t| t.as_scalar().filter(|&s| plain(s)))
            .collect::<Option<_>>()?;
        let mut out: SmallVec<[FlatStep; 8]> = SmallVec::new();
        let mut at = 0;
        for &(leaf, args) in steps {
            let flat = leaf.flat_run()?;
            if leaf.output_option()
                || leaf.options().iter().any(|&o| o)
                || !plain(leaf.output())
                || args.len() != leaf.inputs().len()
                || args.len() > 4
            {
                return None;
            }
            for (a, &want) in args.iter().zip(leaf.inputs()) {
                let have = match *a {
                    F64Arg::Leaf(k) => *leaves.get(k)?,
                    F64Arg::Step(j) => out.get(j).map(|s: &FlatStep| s.output)?,
                };
                if have != want {
                    return None;
                }
            }
            let size = leaf.output().size();
            out.push(FlatStep {
                flat,
                args: args.into(),
                size,
                at,
                output: leaf.output(),
            });
            at += vm::CHUNK * size;
        }
        let last = out.last()?;
        let (shape, count, dtype) = crate::elwise::c_order_dims(ty)?;
        if dtype.as_scalar() != Some(last.output) {
            return None;
        }
        // Every step a plain float64 operation (its arguments checked
        // float64 above): the operations compiled into the loop. Step `j`
        // writes register `j`, the last the result, so a register is
        // never written by a step that reads it.
        let ops: Option<SmallVec<[crate::op::F64Op; 8]>> =
            steps.iter().map(|(l, _)| l.as_f64_op()).collect();
        let engine = match ops {
            Some(ops) => {
                let last = steps.len() - 1;
                let vm_steps = steps
                    .iter()
                    .zip(ops)
                    .enumerate()
                    .map(|(j, ((_, args), op))| {
                        let arg = |a: F64Arg| match a {
                            F64Arg::Leaf(k) => vm::VmArg::Leaf(k),
                            F64Arg::Step(i) => vm::VmArg::Reg(i),
                        };
                        // A unary operation reads its first argument.
                        let second = args.get(1).unwrap_or(&args[0]);
                        vm::VmStep {
                            op,
                            args: [arg(args[0]), arg(*second)],
                            out: (j != last).then_some(j),
                            inner: None,
                        }
                    })
                    .collect();
                Engine::Vm(vm::Vm::new(vm_steps, last))
            }
            None => Engine::Steps {
                steps: out,
                words: at.div_ceil(16),
            },
        };
        Some(Dense {
            engine,
            leaves,
            ty: ty.clone(),
            dims: shape,
            count,
        })
    }

    /// The result type.
    pub fn ty(&self) -> &Type {
        &self.ty
    }

    /// The number of elements of a result.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Whether a result has no element.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// Evaluates the program over `leaves` into a new array: `Ok(None)`
    /// when the leaves are not as many as planned, each of its planned
    /// data type and C-contiguous with the result's dimensions, or 0-d.
    ///
    /// # Errors
    ///
    /// An allocation failure for the result.
    pub fn eval(&self, leaves: &[&Array]) -> Result<Option<Array>, Error> {
        dense::fresh_result(&self.ty, |dst| self.run(leaves, dst))
    }

    /// [`Dense::eval`] into `out`, which must be C-contiguous of the
    /// result type (`Ok(false)`, nothing written, otherwise or where
    /// `eval` gives `None`). `out` is made the only owner of its memory
    /// first, so a leaf sharing it reads what it held before.
    ///
    /// # Errors
    ///
    /// An allocation failure where `out`'s memory is shared and must be
    /// copied first.
    pub fn eval_into(&self, leaves: &[&Array], out: &mut Array) -> Result<bool, Error> {
        let output = self.ty.dtype().as_scalar();
        let fits = output.is_some_and(|t| dense::fits_dense(out, t, &self.dims));
        dense::into_result(out, fits, |dst| self.run(leaves, dst))
    }

    /// The leaves' checks and the loop, writing where `dst()` says
    /// (called once, after every check passed): `Ok(false)` where a check
    /// fails.
    fn run(&self, leaves: &[&Array], dst: dense::Destination<'_>) -> Result<bool, Error> {
        if leaves.len() != self.leaves.len() {
            return Ok(false);
        }
        let types = self.leaves.iter().copied();
        let (mut src, mut strides) = (SmallVec::new(), SmallVec::new());
        if !dense::dense_sources(leaves, types, &self.dims, &mut src, &mut strides) {
            return Ok(false);
        }
        let dst = dst()?;
        match &self.engine {
            Engine::Vm(vm) => with_buffers(vm.buffers() * vm::BUF_WORDS, |bufs| {
                // SAFETY: every leaf is a float64 array read in place:
                // `count` C-contiguous elements (stride 8) or one (stride
                // 0), checked above, as many as the steps read; `dst` is
                // `count` C-contiguous float64s of a fresh array or of an
                // `out` made the only owner of its memory (no leaf's),
                // every one of which the loop writes; `bufs` holds the
                // VM's buffers of CHUNK float64s, this thread's; step `j`
                // writes only register `j` and reads registers of earlier
                // steps (checked in `new`).
                unsafe { vm.run(bufs, vm::BUF_WORDS * 16, dst, 8, &src, &strides, self.count) }
            }),
            Engine::Steps { steps, words } => with_buffers(*words, |bufs| {
                // SAFETY: every leaf is read in place, of the data type
                // its steps read: `count` C-contiguous elements (its
                // element size apart) or one (stride 0), checked above;
                // `dst` is `count` C-contiguous elements of the result's
                // data type, of a fresh array or of an `out` made the only
                // owner of its memory (no leaf's), every one of which the
                // last step writes; `bufs` holds every step's buffer of
                // CHUNK values, this thread's.
                unsafe { run_chunks(steps, self.count, bufs, dst, &src, &strides) }
            }),
        }
        Ok(true)
    }
}

/// Every step over each chunk in turn.
///
/// # Safety
///
/// As in [`Dense::run`]: the leaves at `src` (`strides` apart) and the
/// result at `dst` hold `count` elements of their data types; `bufs`
/// holds the steps' buffers, which only this call uses.
unsafe fn run_chunks(
    program: &[FlatStep],
    count: usize,
    bufs: *mut u8,
    dst: *mut u8,
    src: &[*const u8],
    strides: &[isize],
) {
    let last = program.len() - 1;
    // Plain arrays, not collections: a push's length update in memory
    // stalls the next (a third of the time at 1,000 elements).
    let mut ptrs = [std::ptr::null::<u8>(); 4];
    let mut steps = [0isize; 4];
    let mut start = 0;
    while start < count {
        let m = vm::CHUNK.min(count - start);
        for (j, s) in program.iter().enumerate() {
            let n = s.args.len();
            for ((a, p), st) in s.args.iter().zip(&mut ptrs).zip(&mut steps) {
                (*p, *st) = match *a {
                    F64Arg::Leaf(k) => (
                        src[k].wrapping_offset(start as isize * strides[k]),
                        strides[k],
                    ),
                    F64Arg::Step(i) => {
                        let b = &program[i];
                        (bufs.wrapping_add(b.at).cast_const(), b.size as isize)
                    }
                };
            }
            let (out, size) = if j == last {
                (dst.wrapping_add(start * s.size), s.size)
            } else {
                (bufs.wrapping_add(s.at), s.size)
            };
            // SAFETY: `out` is `m` writable values of the step's
            // output type: the result's elements `start..start + m`
            // (no leaf's memory) or the step's own buffer of CHUNK
            // values, which no step reads until this one has written
            // it; each argument is `m` values of the type the leaf
            // reads (checked in `new`): a leaf's elements from
            // `start` (or its one element, stride 0) or an earlier
            // step's buffer, written for this chunk; the leaf's loop
            // cannot fail.
            unsafe { s.flat.run(out, size as isize, &ptrs[..n], &steps[..n], m) };
        }
        start += m;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> Type {
        s.parse().unwrap()
    }

    #[test]
    fn programs_the_loops_cannot_run_are_refused() {
        let mul = Leaf::map(|x: i64, y: i64| x.wrapping_mul(y));
        let ok = [(&mul, &[F64Arg::Leaf(0), F64Arg::Leaf(1)][..])];
        let ints = [t("int64"), t("int64")];
        assert!(Dense::new(&ok, &ints, &t("3 * int64")).is_some());
        // A result of another data type, or with a `var` dimension.
        assert!(Dense::new(&ok, &ints, &t("3 * int32")).is_none());
        assert!(Dense::new(&ok, &ints, &t("var * int64")).is_none());
        // A leaf of another type than the step reads; a leaf past the
        // leaves; a step reading itself or a later one.
        assert!(Dense::new(&ok, &[t("int64"), t("int32")], &t("3 * int64")).is_none());
        assert!(Dense::new(&ok, &ints[..1], &t("3 * int64")).is_none());
        let own = [(&mul, &[F64Arg::Leaf(0), F64Arg::Step(0)][..])];
        assert!(Dense::new(&own, &ints, &t("3 * int64")).is_none());
        // Too few arguments; no step.
        assert!(Dense::new(&[(&mul, &[F64Arg::Leaf(0)][..])], &ints, &t("int64")).is_none());
        assert!(Dense::new(&[], &ints, &t("int64")).is_none());
        // A fallible leaf, one that takes an option; a leaf of text.
        let checked = Leaf::map(|x: i64| x.checked_neg().ok_or("overflow"));
        let opt = Leaf::map(|x: Option<i64>| x.unwrap_or(0));
        for leaf in [&checked, &opt] {
            let one = [(leaf, &[F64Arg::Leaf(0)][..])];
            assert!(Dense::new(&one, &ints[..1], &t("3 * int64")).is_none());
        }
        let neg = [(&mul, &[F64Arg::Leaf(0), F64Arg::Leaf(0)][..])];
        assert!(Dense::new(&neg, &[t("string")], &t("3 * int64")).is_none());
    }

    #[test]
    fn programrun_over_chunks_with_their_own_buffers() {
        // More elements than a chunk, and not a multiple of one; a 0-d
        // leaf; an int32 comparison giving bool; the value of step 0
        // read by two later steps.
        let n = vm::CHUNK * 2 + 5;
        let sub = Leaf::map(|x: i32, y: i32| x.wrapping_sub(y));
        let mul = Leaf::map(|x: i32, y: i32| x.wrapping_mul(y));
        let less = Leaf::map(|x: i32, y: i32| x < y);
        let steps = [
            (&sub, &[F64Arg::Leaf(0), F64Arg::Leaf(1)][..]),
            (&mul, &[F64Arg::Step(0), F64Arg::Step(0)][..]),
            (&less, &[F64Arg::Step(1), F64Arg::Step(0)][..]),
        ];
        let ty: Type = format!("{n} * bool").parse().unwrap();
        let p = Dense::new(&steps, &[t("int32"), t("int32")], &ty).unwrap();
        let xs: Vec<i32> = (0..n as i32).map(|i| i % 7 - 2).collect();
        let a = Array::from_vec(xs.clone());
        let b = Array::from_scalar(1i32);
        let want: Vec<bool> = xs.iter().map(|&x| (x - 1) * (x - 1) < x - 1).collect();
        let r = p.eval(&[&a, &b]).unwrap().unwrap();
        assert_eq!(r.to_vec::<bool>().unwrap(), want);
        let mut out = Array::from_vec(vec![true; n]);
        assert!(p.eval_into(&[&a, &b], &mut out).unwrap());
        assert_eq!(out.to_vec::<bool>().unwrap(), want);
        // Leaves or an output of another layout are not taken.
        let wide = Array::from_vec(vec![0i32; 2 * n]);
        let strided = wide.index(&[crate::Index::slice(None, None, 2)]).unwrap();
        assert!(p.eval(&[&strided, &b]).unwrap().is_none());
        assert!(p.eval(&[&a]).unwrap().is_none());
        let mut short = Array::from_vec(vec![true; n - 1]);
        assert!(!p.eval_into(&[&a, &b], &mut short).unwrap());
    }
}
