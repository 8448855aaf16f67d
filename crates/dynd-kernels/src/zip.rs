//! Hand-written loops over arrays, on the loop engine: [`zip`] (the
//! seed's `nditerate`).
//!
//! Code that is not a function of elements — an update in place, a loop
//! that keeps state, several outputs computed together — walks arrays
//! with `zip((&a, &b, &mut out)).for_each(|(x, y, o)| …)`. The closure
//! gets `&T` for each array borrowed shared and `&mut T` for the one
//! borrowed mutably; the element types are the closure's and are checked
//! against the arrays' once, before the loop. The arrays broadcast as a
//! callable's arguments do (NumPy's rules; ragged `var` rows of equal
//! length, or 1), the walk is the engine's (memory order, contiguous
//! blocks merged into one run, transposed sources read in tiles), and the
//! closure is called directly in the innermost loop (no dispatch per
//! element). [`Zip::par_for_each`] splits large walks among threads;
//! [`Zip::indexed`] passes each element's index too.
//!
//! ```
//! use dynd::nd::{array, zip, Array};
//!
//! let a = array![[1.0, 2.0], [3.0, 4.0]];
//! let b = array![10.0, 20.0];
//! let mut out = Array::zeros(&"2 * 2 * float64".parse()?)?;
//! zip((&a, &b, &mut out)).for_each(|(x, y, o): (&f64, &f64, &mut f64)| *o = x * y + 1.0)?;
//! assert_eq!(out.to_string(), "[[11, 41], [31, 81]]");
//!
//! // State across elements, over ragged rows.
//! let r = array![[1.0, 2.0], [3.0]];
//! let mut total = 0.0;
//! zip((&r,)).for_each(|(x,): (&f64,)| total += x)?;
//! assert_eq!(total, 6.0);
//!
//! // Positions, where the code needs them.
//! let mut diag = 0.0;
//! zip((&a,)).indexed().for_each(|i, (x,): (&f64,)| if i[0] == i[1] { diag += x })?;
//! assert_eq!(diag, 5.0);
//!
//! // A wrong element type is an error before any element is visited.
//! let e = zip((&a,)).for_each(|(_,): (&f32,)| ()).unwrap_err();
//! assert!(e.to_string().contains("float32"), "{e}");
//! # Ok::<(), dynd::Error>(())
//! ```

use smallvec::SmallVec;

use dynd_types::{broadcast, BroadcastMode, Dim, Type};

use crate::array::Array;
use crate::arrmeta::Arrmeta;
use crate::element::Element;
use crate::elwise::push_lifted;
use crate::error::{Error, KernelError};
use crate::kernel::{Child, KernelBuilder, KernelCtx, KernelData};
use crate::loops::Serial;
use crate::shared::Shared;

/// The most arrays one [`zip`] walks.
const MAX: usize = 6;

/// Arrays walked together (see the [module docs](self)): a tuple of one
/// to six `&Array` (read) and at most one `&mut Array` (written).
pub fn zip<O>(operands: O) -> Zip<O> {
    Zip { operands }
}

/// Arrays walked together, made by [`zip`].
#[derive(Debug)]
#[must_use = "a zip does nothing until `for_each` runs it"]
pub struct Zip<O> {
    operands: O,
}

/// [`Zip`] with each element's index passed to the closure, made by
/// [`Zip::indexed`].
#[derive(Debug)]
#[must_use = "a zip does nothing until `for_each` runs it"]
pub struct Indexed<O> {
    operands: O,
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for &crate::Array {}
    impl Sealed for &mut crate::Array {}
}

/// An array as one of a [`zip`]'s operands: `&Array` gives the closure
/// `&T`, `&mut Array` gives `&mut T`. Sealed.
pub trait Operand<'a>: sealed::Sealed {
    /// What the closure gets for one element of type `T`.
    type Ref<'x, T: Element>;

    /// The array, and whether it is written.
    #[doc(hidden)]
    fn access(self) -> Access<'a>;

    /// The element at `p`.
    ///
    /// # Safety
    ///
    /// `p` points to a valid, aligned `T`, shared for a read and not
    /// reached by anything else for a write, for `'x`.
    #[doc(hidden)]
    unsafe fn element<'x, T: Element>(p: *mut u8) -> Self::Ref<'x, T>;
}

/// How a [`zip`] operand is reached.
#[doc(hidden)]
#[derive(Debug)]
pub enum Access<'a> {
    /// Read.
    Read(&'a Array),
    /// Written.
    Write(&'a mut Array),
}

impl<'a> Operand<'a> for &'a Array {
    type Ref<'x, T: Element> = &'x T;

    fn access(self) -> Access<'a> {
        Access::Read(self)
    }

    unsafe fn element<'x, T: Element>(p: *mut u8) -> &'x T {
        // SAFETY: by the contract.
        unsafe { &*p.cast::<T>() }
    }
}

impl<'a> Operand<'a> for &'a mut Array {
    type Ref<'x, T: Element> = &'x mut T;

    fn access(self) -> Access<'a> {
        Access::Write(self)
    }

    unsafe fn element<'x, T: Element>(p: *mut u8) -> &'x mut T {
        // SAFETY: by the contract.
        unsafe { &mut *p.cast::<T>() }
    }
}

/// One run of `count` elements: each operand's first element and stride,
/// in the tuple's order.
type Run = ([*mut u8; MAX], [isize; MAX], usize);

/// Runs the closure behind `env` over a run.
type RunFn = unsafe fn(env: *const (), run: Run);

/// The engine's leaf: a run of elements handed to the caller's loop.
struct ZipLeaf {
    run: RunFn,
    /// The loop, a closure on the caller's stack (see [`walk`]).
    env: Shared<*const ()>,
    /// Tuple position `i` is kernel operand `pos[i]`: 0 the destination,
    /// `k + 1` source `k`.
    pos: [usize; MAX],
    /// The operands' element alignments.
    align: [usize; MAX],
    n: usize,
}

impl KernelData for ZipLeaf {
    unsafe fn single(
        &self,
        ctx: &KernelCtx<'_>,
        dst: *mut u8,
        src: &[*const u8],
    ) -> Result<(), KernelError> {
        let zeros: SmallVec<[isize; MAX]> = SmallVec::from_elem(0, src.len());
        // SAFETY: forwarded contract, one element.
        unsafe { self.strided(ctx, dst, 0, src, &zeros, 1) }
    }

    unsafe fn strided(
        &self,
        _ctx: &KernelCtx<'_>,
        dst: *mut u8,
        dst_stride: isize,
        src: &[*const u8],
        src_stride: &[isize],
        count: usize,
    ) -> Result<(), KernelError> {
        let mut base = [std::ptr::null_mut(); MAX];
        let mut stride = [0isize; MAX];
        for i in 0..self.n {
            let (p, s) = match self.pos[i] {
                0 => (dst, dst_stride),
                k => (src[k - 1].cast_mut(), src_stride[k - 1]),
            };
            let a = self.align[i];
            if !(p as usize).is_multiple_of(a) || (count > 1 && s.rem_euclid(a as isize) != 0) {
                return Err(KernelError::message(format!(
                    "zip: the elements of operand {i} are not aligned for their type \
                     ({a} bytes); copy the array first"
                )));
            }
            base[i] = p;
            stride[i] = s;
        }
        // SAFETY: the engine hands over `count` valid elements of each
        // operand, aligned (checked above), of the element types `walk`
        // checked; `env` is alive and used as `walk` promises.
        unsafe { (self.run)(self.env.get(), (base, stride, count)) };
        Ok(())
    }

    fn describe(&self) -> String {
        format!("zip leaf ({} operands)", self.n)
    }
}

/// The checks before any element is visited: each array's data type is
/// the closure's, at most one is written, and that one is made this
/// array's alone (no other array reads what it writes). The arrays, and
/// which is written.
fn prepare<'b>(
    ops: Vec<Access<'b>>,
    scalars: &[dynd_types::Scalar],
) -> Result<(SmallVec<[&'b Array; MAX]>, Option<usize>), Error> {
    for (i, (op, &s)) in ops.iter().zip(scalars).enumerate() {
        let a = array_of(op);
        if a.dtype().as_scalar() != Some(s) {
            return Err(Error::ArgumentType {
                arg: i,
                expected: Type::from(s),
                found: a.dtype().clone(),
                what: "the zip's closure".into(),
            });
        }
    }
    let writes: SmallVec<[usize; MAX]> = (0..ops.len())
        .filter(|&i| matches!(ops[i], Access::Write(_)))
        .collect();
    if writes.len() > 1 {
        return Err(Error::Unsupported {
            operation: "a zip writing more than one array (it writes one, through `&mut`)",
            ty: Type::from(scalars[writes[1]]),
        });
    }
    let mut arrays: SmallVec<[&Array; MAX]> = SmallVec::new();
    let mut written = None;
    for (i, op) in ops.into_iter().enumerate() {
        match op {
            Access::Read(a) => arrays.push(a),
            Access::Write(a) => {
                crate::assign::make_unique(a)?;
                written = Some(i);
                arrays.push(a);
            }
        }
    }
    Ok((arrays, written))
}

/// Walks `ops` (element types `scalars`, alignments `align`), calling
/// `run` with `env` for each run of elements; on several threads when
/// `parallel` (then `env` must be usable from several threads at once).
///
/// # Safety
///
/// `run` and `env` make a loop that treats each run's pointers as
/// elements of the checked types (shared for reads, exclusive for the one
/// write); for `parallel`, `run` may be called from several threads at
/// once on distinct runs.
unsafe fn walk(
    ops: Vec<Access<'_>>,
    scalars: &[dynd_types::Scalar],
    align: &[usize],
    parallel: bool,
    run: RunFn,
    env: *const (),
) -> Result<(), Error> {
    let n = ops.len();
    let (arrays, written) = prepare(ops, scalars)?;
    // The destination of the walk: the written array, or a read one with
    // the shape they all broadcast to.
    let driver = match written {
        Some(w) => w,
        None => {
            let types: SmallVec<[Type; MAX]> = arrays.iter().map(|a| a.ty().clone()).collect();
            let joint = broadcast(&types, BroadcastMode::NumPy)?;
            let dims = |t: &Type| -> Vec<Dim> { t.split_dims().0.into_iter().cloned().collect() };
            let want = dims(&joint);
            (0..n)
                .find(|&i| dims(arrays[i].ty()) == want)
                .ok_or_else(|| Error::Unsupported {
                    operation: "a zip without a written array where no array has the shape \
                                they broadcast to (pass the largest, or write one)",
                    ty: joint.clone(),
                })?
        }
    };
    let srcs: SmallVec<[(&Type, &Arrmeta); MAX]> = (0..n)
        .filter(|&i| i != driver)
        .map(|i| (arrays[i].ty(), arrays[i].arrmeta()))
        .collect();
    let mut pos = [0usize; MAX];
    let mut next = 1;
    for (i, p) in pos.iter_mut().enumerate().take(n) {
        if i != driver {
            *p = next;
            next += 1;
        }
    }
    let mut al = [1usize; MAX];
    al[..n].copy_from_slice(align);
    let leaf = ZipLeaf {
        run,
        // SAFETY: the record only carries `env` to `run`; `walk` builds
        // kernels whose runs share `env` among threads only for a closure
        // that is `Sync` (`par_for_each`), and runs them before `env`'s
        // closure goes away.
        env: unsafe { Shared::new(env) },
        pos,
        align: al,
        n,
    };
    let d = arrays[driver];
    let mut b = KernelBuilder::new();
    let dst = (d.ty(), d.arrmeta());
    let mut leaf = Some(leaf);
    let mut push = |b: &mut KernelBuilder<'_>| -> Result<Child, Error> {
        match leaf.take() {
            Some(l) => Ok(b.push(l)),
            None => unreachable!("the engine pushes one leaf"),
        }
    };
    if parallel {
        push_lifted(&mut b, dst, 0, &srcs, &[], &mut push)?;
    } else {
        let mut serial = Serial(&mut b);
        push_lifted(&mut serial, dst, 0, &srcs, &[], &mut |s: &mut Serial<
            '_,
            '_,
        >| {
            push(s.0)
        })?;
    }
    let kernel = b.finish()?;
    let src_ptrs: SmallVec<[*const u8; MAX]> = (0..n)
        .filter(|&i| i != driver)
        .map(|i| arrays[i].data_ptr())
        .collect();
    // SAFETY: the kernel was built for these arrays' types and arrmeta,
    // which are alive; the destination is the written array, made unique
    // above (no source shares its memory), or a read one the leaf only
    // reads; the leaf's `run`/`env` are used as this function's contract
    // allows (one thread unless `parallel`).
    unsafe { kernel.single(d.data_ptr().cast_mut(), &src_ptrs) }?;
    Ok(())
}

macro_rules! zip_impls {
    ($n:literal; $($O:ident $T:ident $i:tt),+) => {
        impl<'a, $($O: Operand<'a>),+> Zip<($($O,)+)> {
            /// Calls `f` on each element (see the [module docs](self)),
            /// in memory order, on this thread.
            ///
            /// # Errors
            ///
            /// [`Error::ArgumentType`] for an array whose data type is not
            /// the closure's; a broadcast error naming the dimensions; an
            /// error for two written arrays, a read-only one, or elements
            /// not aligned for their type.
            pub fn for_each<$($T: Element),+>(
                self,
                mut f: impl for<'x> FnMut(($($O::Ref<'x, $T>,)+)),
            ) -> Result<(), Error> {
                let mut each = |(base, stride, count): Run| {
                    for k in 0..count as isize {
                        // SAFETY: `walk`'s contract: element `k` of each
                        // operand's run, of its checked type.
                        f(($(unsafe { $O::element::<$T>(base[$i].wrapping_offset(k * stride[$i])) },)+));
                    }
                };
                let env = (&raw mut each).cast::<()>().cast_const();
                // SAFETY: `run_mut` runs `each` (behind `env`) as `walk`
                // asks, on this thread (`parallel` false).
                unsafe { self.go::<$($T),+>(false, run_mut::<_>(&each), env) }
            }

            /// As [`Zip::for_each`], with large walks split among rayon's
            /// threads (each element still visited once; `f` is shared).
            ///
            /// # Errors
            ///
            /// As [`Zip::for_each`].
            pub fn par_for_each<$($T: Element),+>(
                self,
                f: impl for<'x> Fn(($($O::Ref<'x, $T>,)+)) + Sync,
            ) -> Result<(), Error> {
                let each = |(base, stride, count): Run| {
                    for k in 0..count as isize {
                        // SAFETY: as in `for_each`; runs on several
                        // threads are of distinct elements.
                        f(($(unsafe { $O::element::<$T>(base[$i].wrapping_offset(k * stride[$i])) },)+));
                    }
                };
                let env = (&raw const each).cast::<()>();
                // SAFETY: `run_shared` runs `each`, which is `Sync`, from
                // any thread.
                unsafe { self.go::<$($T),+>(true, run_shared::<_>(&each), env) }
            }

            /// The walk of `for_each` and `par_for_each` for element types
            /// `T...`.
            ///
            /// # Safety
            ///
            /// As [`walk`].
            unsafe fn go<$($T: Element),+>(self, parallel: bool, run: RunFn, env: *const ()) -> Result<(), Error> {
                let ops = vec![$(self.operands.$i.access()),+];
                let scalars = [$($T::SCALAR),+];
                let align = [$(std::mem::align_of::<$T>()),+];
                // SAFETY: forwarded contract.
                unsafe { walk(ops, &scalars, &align, parallel, run, env) }
            }

            /// The same walk with each element's index passed first.
            pub fn indexed(self) -> Indexed<($($O,)+)> {
                Indexed { operands: self.operands }
            }
        }

        impl<'a, $($O: Operand<'a>),+> Indexed<($($O,)+)> {
            /// Calls `f` with each element's index (one per dimension of
            /// the walk's shape) and the elements, in C order of the
            /// index, on this thread. Fixed dimensions only.
            ///
            /// # Errors
            ///
            /// As [`Zip::for_each`], and [`Error::Unsupported`] for a
            /// `var` dimension.
            pub fn for_each<$($T: Element),+>(
                self,
                mut f: impl for<'x> FnMut(&[usize], ($($O::Ref<'x, $T>,)+)),
            ) -> Result<(), Error> {
                let ops = vec![$(self.operands.$i.access()),+];
                let (arrays, written) = prepare(ops, &[$($T::SCALAR),+])?;
                let (shape, strides) = index_walk(&arrays, written, &[$(std::mem::align_of::<$T>()),+])?;
                // After `prepare`: the written array's memory is final.
                let bases: [*mut u8; $n] = [$(arrays[$i].data_ptr().cast_mut()),+];
                if shape.contains(&0) {
                    return Ok(());
                }
                let nd = shape.len();
                let mut index = vec![0usize; nd];
                let mut at: [isize; $n] = [0; $n];
                loop {
                    // SAFETY: element `index` of each operand (inside its
                    // validated layout; zero strides where it broadcasts),
                    // of its checked type, aligned (`index_walk`); the
                    // written one is its array's alone and not broadcast,
                    // so the `&mut` is the only reference to its element.
                    f(&index, ($(unsafe { $O::element::<$T>(bases[$i].wrapping_offset(at[$i])) },)+));
                    // The next index in C order, offsets updated.
                    let mut d = nd;
                    loop {
                        if d == 0 {
                            return Ok(());
                        }
                        d -= 1;
                        index[d] += 1;
                        for o in 0..$n {
                            at[o] += strides[o][d];
                        }
                        if index[d] < shape[d] {
                            break;
                        }
                        for o in 0..$n {
                            at[o] -= strides[o][d] * shape[d] as isize;
                        }
                        index[d] = 0;
                    }
                }
            }
        }
    };
}

/// The loop of runs for a `FnMut` over runs behind `env`.
fn run_mut<F: FnMut(Run)>(_: &F) -> RunFn {
    unsafe fn go<F: FnMut(Run)>(env: *const (), run: Run) {
        // SAFETY: `env` is the `F` `for_each` passed, alive and used on
        // one thread (`walk` with `parallel` false).
        let f = unsafe { &mut *env.cast::<F>().cast_mut() };
        f(run);
    }
    go::<F>
}

/// The loop of runs for a `Fn + Sync` behind `env`.
fn run_shared<F: Fn(Run) + Sync>(_: &F) -> RunFn {
    unsafe fn go<F: Fn(Run) + Sync>(env: *const (), run: Run) {
        // SAFETY: `env` is the `F` `par_for_each` passed, alive; `F` is
        // `Sync`, so shared use from several threads is sound.
        let f = unsafe { &*env.cast::<F>() };
        f(run);
    }
    go::<F>
}

zip_impls!(1; O0 T0 0);
zip_impls!(2; O0 T0 0, O1 T1 1);
zip_impls!(3; O0 T0 0, O1 T1 1, O2 T2 2);
zip_impls!(4; O0 T0 0, O1 T1 1, O2 T2 2, O3 T3 3);
zip_impls!(5; O0 T0 0, O1 T1 1, O2 T2 2, O3 T3 3, O4 T4 4);
zip_impls!(6; O0 T0 0, O1 T1 1, O2 T2 2, O3 T3 3, O4 T4 4, O5 T5 5);

fn array_of<'b>(op: &'b Access<'_>) -> &'b Array {
    match op {
        Access::Read(a) => a,
        Access::Write(a) => a,
    }
}

/// The shape the arrays broadcast to (fixed dimensions only) and each
/// array's byte strides along it (0 where it broadcasts), for the indexed
/// walk; the written array must have that shape, and every array's
/// elements the alignment of their type.
#[allow(clippy::type_complexity)]
fn index_walk(
    arrays: &[&Array],
    written: Option<usize>,
    align: &[usize],
) -> Result<(Vec<usize>, Vec<Vec<isize>>), Error> {
    let types: SmallVec<[Type; MAX]> = arrays.iter().map(|a| a.ty().clone()).collect();
    let joint = broadcast(&types, BroadcastMode::NumPy)?;
    let shape = joint
        .split_dims()
        .0
        .into_iter()
        .map(|d| match d {
            Dim::Fixed(n) => Ok(*n),
            _ => Err(Error::Unsupported {
                operation: "an indexed zip over a var dimension (indices need fixed ones)",
                ty: joint.clone(),
            }),
        })
        .collect::<Result<Vec<usize>, Error>>()?;
    let nd = shape.len();
    let mut all = Vec::with_capacity(arrays.len());
    for (k, a) in arrays.iter().enumerate() {
        let mut strides = vec![0isize; nd];
        let shift = nd - a.ndim();
        let mut m = a.arrmeta();
        for (d, s) in strides.iter_mut().enumerate().skip(shift) {
            let Some((n, stride, element)) = m.as_fixed() else {
                unreachable!("the arrays broadcast to fixed dimensions")
            };
            if n != shape[d] && Some(k) == written {
                return Err(Error::AssignBroadcast {
                    axis: d,
                    dims: Box::new((Dim::Fixed(shape[d]), Some(Dim::Fixed(n)))),
                    src: joint.clone(),
                    dst: a.ty().clone(),
                });
            }
            *s = if n == 1 { 0 } else { stride };
            m = element;
        }
        if Some(k) == written && shift > 0 {
            return Err(Error::AssignBroadcast {
                axis: 0,
                dims: Box::new((Dim::Fixed(shape[0]), None)),
                src: joint.clone(),
                dst: a.ty().clone(),
            });
        }
        let al = align[k] as isize;
        if !(a.data_ptr() as usize).is_multiple_of(align[k]) || strides.iter().any(|s| s % al != 0)
        {
            return Err(Error::Unsupported {
                operation: "a zip over elements not aligned for their type (copy the array first)",
                ty: a.ty().clone(),
            });
        }
        all.push(strides);
    }
    Ok((shape, all))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(n: usize) -> Vec<f64> {
        (0..n).map(|i| i as f64 * 0.5 - 7.0).collect()
    }

    /// The engine's paths (one run, broadcast, transposed strips, ragged
    /// rows, threads) and the indexed walk against naive loops: these run
    /// under valgrind (`scripts/valgrind.sh zip`).
    #[test]
    fn every_path_visits_each_element_once() {
        let (r, c) = (70, 90);
        let a = Array::from_shape_vec(&[r, c], seq(r * c)).unwrap();
        let t = Array::from_shape_vec(&[c, r], seq(r * c))
            .unwrap()
            .transpose()
            .unwrap();
        let row = Array::from_vec(seq(c));
        let mut out = Array::from_shape_vec(&[r, c], vec![0.0; r * c]).unwrap();
        zip((&a, &t, &row, &mut out))
            .for_each(|(x, y, z, o): (&f64, &f64, &f64, &mut f64)| *o = x + 2.0 * y + 3.0 * z)
            .unwrap();
        for i in 0..r {
            for j in 0..c {
                let want = a.get::<f64>(&[i, j]).unwrap()
                    + 2.0 * t.get::<f64>(&[i, j]).unwrap()
                    + 3.0 * row.get::<f64>(&[j]).unwrap();
                assert_eq!(out.get::<f64>(&[i, j]).unwrap(), want);
            }
        }
        let big = Array::from_vec(seq(300_000));
        let mut o = Array::from_vec(vec![0.0; 300_000]);
        zip((&big, &mut o))
            .par_for_each(|(x, o): (&f64, &mut f64)| *o = x * 3.0)
            .unwrap();
        assert_eq!(
            o.to_vec::<f64>().unwrap()[299_999],
            big.get::<f64>(&[299_999]).unwrap() * 3.0
        );
        let ragged = Array::from_offsets(seq(10), &[0usize, 3, 3, 4, 10]).unwrap();
        let per_row = Array::from_shape_vec(&[4, 1], vec![1.0, 2.0, 3.0, 4.0]).unwrap();
        let mut sum = 0.0;
        zip((&per_row, &ragged))
            .for_each(|(m, x): (&f64, &f64)| sum += m * x)
            .unwrap();
        let want: f64 = seq(10)
            .iter()
            .enumerate()
            .map(|(i, x)| x * [1.0, 1.0, 1.0, 3.0, 4.0, 4.0, 4.0, 4.0, 4.0, 4.0][i])
            .sum();
        assert_eq!(sum, want);
        let mut n = 0;
        zip((&t,))
            .indexed()
            .for_each(|i, (x,): (&f64,)| {
                assert_eq!(*x, t.get::<f64>(&[i[0], i[1]]).unwrap());
                n += 1;
            })
            .unwrap();
        assert_eq!(n, r * c);
    }

    /// A panic in the closure unwinds through the engine's loops without
    /// leaking or freeing twice (valgrind).
    #[test]
    fn a_panicking_closure_unwinds_cleanly() {
        let a = Array::from_vec(seq(1000));
        let mut out = Array::from_vec(vec![0.0; 1000]);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            zip((&a, &mut out)).for_each(|(x, o): (&f64, &mut f64)| {
                assert!(*x < 100.0, "a user's panic");
                *o = *x;
            })
        }));
        assert!(r.is_err());
        assert_eq!(out.get::<f64>(&[0]).unwrap(), a.get::<f64>(&[0]).unwrap());
    }
}
