//! Reductions: an array folded over a set of its axes with a binary
//! function (NumPy's `ufunc.reduce`).
//!
//! A [`Reduction`] is the combining function with what is known about it:
//! its identity (0 for `+`, none for `min`) and whether it may be
//! regrouped (associative and commutative). A regroupable reduction runs
//! over several axes at once, with eight accumulators per run of
//! contiguous elements and a pairwise tree over blocks — the grouping that
//! makes a floating-point sum both fast and accurate (the error grows with
//! `log n`, not `n`) — and splits large runs into fixed chunks that run
//! on all cores and are combined in a fixed order, so the result is the
//! same bit for bit on any number of threads.
//!
//! ```
//! use dynd_kernels::reduce::{reduce, ReduceArgs, Reduction};
//! use dynd::nd::array;
//!
//! let sum = Reduction { identity: Some(0.0), combine: |a: f64, b: f64| a + b, reorderable: true, neutral: Some(-0.0), run: None };
//! let a = array![[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
//! assert_eq!(reduce(&a, &ReduceArgs::default(), &sum, "sum")?.to_string(), "21");
//! let rows = ReduceArgs { axes: Some(&[-1]), ..ReduceArgs::default() };
//! assert_eq!(reduce(&a, &rows, &sum, "sum")?.to_string(), "[6, 15]");
//! let cols = ReduceArgs { axes: Some(&[0]), keepdims: true, ..ReduceArgs::default() };
//! let r = reduce(&a, &cols, &sum, "sum")?;
//! assert_eq!((r.to_string(), r.ty().to_string()), ("[[5, 7, 9]]".into(), "1 * 3 * float64".into()));
//! # Ok::<(), dynd::Error>(())
//! ```

use dynd_types::{Dim, Type};
use smallvec::SmallVec;

use crate::array::{Array, FreshLayout};
use crate::element::Element;
use crate::error::Error;
use crate::loops::{Elems, Line};

mod float;
mod moments;
mod ragged;

pub use float::Float;
pub use moments::{spread_of_rows, std_dev, variance, VarArgs};
pub use ragged::mean_of_rows;

mod arith;
pub use arith::Arith;
mod extreme;
mod pairwise;
pub use pairwise::sum_of_parts;
use pairwise::*;
pub(crate) use pairwise::{fold8, fold_pairwise_blocks, fold_pairwise_exact, PAIRWISE_BLOCK};
mod stateful;
pub use stateful::{reduce_with, Accumulator, KahanSum};
mod scan;
pub use scan::accumulate;

/// A binary function to reduce with, and what is known about it.
#[derive(Clone, Copy, Debug)]
pub struct Reduction<T, F> {
    /// The identity of `combine`, if it has one (`0` for `+`, `1` for `×`;
    /// `min` and `max` have none): the result of an empty reduction.
    pub identity: Option<T>,
    /// The combining function.
    pub combine: F,
    /// Whether `combine` is associative and commutative, so the elements
    /// may be combined in any grouping: over several axes at once, with
    /// several accumulators, in parallel chunks. Otherwise the reduction
    /// takes one axis and combines its elements in order.
    pub reorderable: bool,
    /// An element that `combine` leaves every value unchanged with, bit
    /// for bit (`-0.0` for a float `+`, since `-0.0 + 0.0` is `0.0`; `0`
    /// for an integer `+`; `1` for `×`; `+∞` for a NaN-propagating float
    /// `min`), or `None`. With one, a reorderable reduction folds short
    /// ragged rows branch-free: each row is read in a fixed-width block
    /// whose lanes past the row's end hold this value.
    pub neutral: Option<T>,
    /// A kernel of the reduction's own for contiguous runs (of at most
    /// 32,768 elements: longer runs are cut into such chunks), which must
    /// give exactly what folding the run with `combine` in the pairwise
    /// tree gives, faster; `None` folds with `combine`. The builtin
    /// `max` and `min` of the common number types have one
    /// ([`Arith::MAX_RUN`]).
    pub run: Option<RunFold<T>>,
}

/// A fold of a contiguous run (see [`Reduction::run`]): `None` for no
/// elements.
pub type RunFold<T> = fn(&[T]) -> Option<T>;

/// What to reduce over, and how.
#[derive(Clone, Copy, Debug)]
pub struct ReduceArgs<'a, T> {
    /// The axes to reduce (negative ones count from the end); `None` for
    /// all of them.
    pub axes: Option<&'a [i64]>,
    /// Whether the reduced axes stay, with size 1.
    pub keepdims: bool,
    /// A value to start each reduction with (needed for an empty
    /// reduction of a function without identity).
    pub initial: Option<T>,
    /// A `bool` mask broadcast to the array (NumPy's `where=`): only
    /// elements where it is true take part.
    pub mask: Option<&'a Array>,
}

impl<T> Default for ReduceArgs<'_, T> {
    fn default() -> Self {
        ReduceArgs {
            axes: None,
            keepdims: false,
            initial: None,
            mask: None,
        }
    }
}

/// Elements in one block of the pairwise tree (summed with eight
/// accumulators).
const BLOCK: usize = 256;

/// Elements per chunk of a run split across threads; a fixed size, so the
/// grouping does not depend on the number of threads.
pub(crate) const CHUNK: usize = 1 << 15;

/// Runs at least this long are split into chunks run in parallel.
pub(crate) const PARALLEL_RUN: usize = 1 << 17;

/// [`LayoutProblem::Read`](dynd_types::LayoutProblem::Read): `part` (a row's pair, a row) of a validated
/// array read outside its block, which validation rules out.
fn outside(op: &str, part: &'static str) -> Error {
    Error::Layout(Box::new(dynd_types::LayoutProblem::Read {
        op: op.into(),
        part,
    }))
}

/// `a`'s data type must be `T`, the element type of the reduction or scan.
fn check_dtype<T: Element>(a: &Array, name: &str, what: &str) -> Result<(), Error> {
    if a.dtype().as_scalar() == Some(T::SCALAR) {
        return Ok(());
    }
    Err(Error::ArgumentType {
        arg: 0,
        found: a.dtype().clone(),
        expected: T::SCALAR.into(),
        what: format!("the {what} {name}"),
    })
}

/// The error of an empty reduction without identity or `initial`.
fn no_identity(name: &str) -> Error {
    Error::EmptyReduction {
        name: name.into(),
        op: name.into(),
    }
}

/// The reduced axes, in increasing order, from `axes` (negative ones count
/// from the end).
///
/// # Errors
///
/// [`Error::AxisOutOfBounds`] for an axis out of range (naming it and the
/// number of dimensions), [`Error::DuplicateAxis`] for one given twice.
pub fn normalize_axes(axes: Option<&[i64]>, ndim: usize, name: &str) -> Result<Vec<usize>, Error> {
    normalize_axes_inline(axes, ndim, name).map(SmallVec::into_vec)
}

/// [`normalize_axes`] without an allocation for up to eight axes.
pub(crate) fn normalize_axes_inline(
    axes: Option<&[i64]>,
    ndim: usize,
    name: &str,
) -> Result<SmallVec<[usize; 8]>, Error> {
    let Some(axes) = axes else {
        return Ok((0..ndim).collect());
    };
    let mut out = SmallVec::with_capacity(axes.len());
    for &ax in axes {
        let n = ndim as i64;
        if ax >= n || ax < -n {
            return Err(Error::AxisOutOfBounds {
                name: name.into(),
                axis: ax,
                ndim,
            });
        }
        let a = if ax < 0 { ax + n } else { ax } as usize;
        if out.contains(&a) {
            return Err(Error::DuplicateAxis {
                name: name.into(),
                axis: ax,
            });
        }
        out.push(a);
    }
    if out.len() > 1 {
        out.sort_unstable();
    }
    Ok(out)
}

/// The elements of a fixed-dimension array, and per dimension (size,
/// byte stride).
struct Strided<'a> {
    elems: Elems<'a>,
    dims: Vec<(usize, isize)>,
}

/// The line of `len` elements `stride` bytes apart from byte offset `off`
/// of `elems`, or the error of a read outside the block (never, for a
/// validated array).
fn line<'a, T: Element>(
    elems: &Elems<'a>,
    off: isize,
    (len, stride): (usize, isize),
    name: &str,
) -> Result<Line<'a, T>, Error> {
    elems
        .line(off, len, stride)
        .ok_or_else(|| outside(name, "an element"))
}

/// The element at byte offset `off` of `elems`, or the error of a read
/// outside the block (as [`line()`]).
fn element<T: Element>(elems: &Elems<'_>, off: isize, name: &str) -> Result<T, Error> {
    elems.get(off).ok_or_else(|| outside(name, "an element"))
}

/// Reduces `a` with `red` as `args` asks; `name` names the operation in
/// errors.
///
/// The result has `a`'s dimensions without the reduced ones (size 1 with
/// `keepdims`), in a new C-order array of `T`. `a` may have fixed
/// dimensions, or fixed ones around an innermost `var` dimension; then the
/// `var` axis reduces each row (`3 * var * T` over axis 1 is `3 * T`), and
/// reducing all axes folds every value.
///
/// # Errors
///
/// [`Error::ArgumentType`] for a data type other than `T`; as
/// [`normalize_axes`]; [`Error::Reduction`] for several axes of a
/// reduction that is not reorderable, or a mask with neither identity nor
/// `initial`; [`Error::EmptyReduction`]; [`Error::MaskType`] or
/// [`Error::MaskShape`] for a mask that is not `bool` or does not
/// broadcast to `a`.
pub fn reduce<T, F>(
    a: &Array,
    args: &ReduceArgs<'_, T>,
    red: &Reduction<T, F>,
    name: &str,
) -> Result<Array, Error>
where
    T: Element,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    check_dtype::<T>(a, name, "reduction")?;
    let ndim = a.ndim();
    let axes = normalize_axes_inline(args.axes, ndim, name)?;
    if !red.reorderable && axes.len() > 1 {
        return Err(Error::Reduction {
            name: name.into(),
            problem: "is not reorderable, so it reduces one axis at a time",
        });
    }
    let start = args.initial.or(red.identity);
    if args.mask.is_some() && start.is_none() {
        return Err(Error::Reduction {
            name: name.into(),
            problem: "has no identity, so a `where` mask needs an `initial` value",
        });
    }
    if a.ty().has_var_dim() {
        return ragged::reduce_var(a, &axes, args, red, name, start);
    }
    if args.mask.is_none() {
        let normalized = || Some(axes.clone());
        let call = SmallCall {
            given: args.axes,
            keepdims: args.keepdims,
            empty: true,
        };
        if let Some(r) = reduce_small(a, call, normalized, start, red, name) {
            return r;
        }
    }
    let shape: Vec<usize> = a
        .shape()
        .iter()
        .map(|d| match d {
            Dim::Fixed(n) => *n,
            _ => 0,
        })
        .collect();
    let strides = a.strides();
    let src = Strided {
        elems: Elems::of(a),
        dims: shape.iter().copied().zip(strides.iter().copied()).collect(),
    };
    let reduced: Vec<bool> = (0..ndim).map(|k| axes.contains(&k)).collect();
    let count: usize = (0..ndim)
        .filter(|k| reduced[*k])
        .map(|k| shape[k])
        .product();
    if count == 0 && start.is_none() {
        return Err(no_identity(name));
    }
    // The result: kept dimensions (reduced ones as 1 with keepdims).
    let out_dims: Vec<usize> = (0..ndim)
        .filter_map(|k| match (reduced[k], args.keepdims) {
            (false, _) => Some(shape[k]),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect();
    let out_ty = Type::with_dims(out_dims.iter().map(|n| Dim::Fixed(*n)), T::SCALAR.into())?;
    let mut out = Array::zeros(&out_ty)?;
    let out_slice = fresh_elements::<T>(&mut out);
    let kept: Vec<(usize, isize)> = (0..ndim)
        .filter(|k| !reduced[*k])
        .map(|k| src.dims[k])
        .collect();
    let red_dims: Vec<(usize, isize)> = (0..ndim)
        .filter(|k| reduced[*k])
        .map(|k| src.dims[k])
        .collect();
    if let Some(mask) = args.mask {
        let start = start.unwrap_or_else(|| unreachable!("checked above"));
        let m = mask_offsets(mask, a, name)?;
        reduce_masked(
            &src,
            &kept,
            &red_dims,
            &reduced,
            &m,
            out_slice,
            start,
            red.combine,
            name,
        )?;
        return Ok(out);
    }
    let inner_reduced = reduced.last().copied().unwrap_or(false);
    if inner_reduced || kept.is_empty() {
        reduce_runs(&src, &kept, &red_dims, out_slice, start, red, name)?;
    } else {
        reduce_rows(&src, &kept, &red_dims, out_slice, start, red, name)?;
    }
    Ok(out)
}

/// A small reduction's entry in front of [`reduce`], for a caller that
/// knows there is no mask and no `initial` value: `a` C-contiguous with
/// fixed dimensions over `T` itself and 1 to 1,024 elements. The same
/// folds as [`reduce`] (both end in its small-array path), so the same
/// bits, without the general path's checks of what cannot apply here.
/// `None` for anything else (an empty array's reduction follows the
/// caller's rules for empty ones), and for axes [`reduce`] refuses (it
/// says why).
///
/// ```
/// use dynd::func::raw::{reduce, reduce_tiny, Reduction, ReduceArgs};
/// use dynd::nd::Array;
///
/// let a = Array::from_shape_vec(&[2, 3], vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let sum = Reduction { identity: Some(0.0), combine: |x: f64, y: f64| x + y, reorderable: true, neutral: Some(-0.0), run: None };
/// let tiny = reduce_tiny(&a, Some(&[1]), false, &sum, "sum").expect("small and dense")?;
/// let args = ReduceArgs { axes: Some(&[1]), keepdims: false, initial: None, mask: None };
/// assert_eq!(tiny.to_vec::<f64>()?, reduce(&a, &args, &sum, "sum")?.to_vec::<f64>()?);
/// assert!(reduce_tiny(&a, Some(&[2]), false, &sum, "sum").is_none()); // the general path names the bad axis
/// # Ok::<(), dynd::Error>(())
/// ```
#[inline]
pub fn reduce_tiny<T, F>(
    a: &Array,
    axes: Option<&[i64]>,
    keepdims: bool,
    red: &Reduction<T, F>,
    name: &str,
) -> Option<Result<Array, Error>>
where
    T: Element,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    // The axes normalized, only when the last plan on this thread is not
    // this call's; a bad axis leaves the call to the general path, which
    // reports it.
    let normalized = || normalize_axes_inline(axes, a.ndim(), name).ok();
    // (`as_slice` checks the element type.)
    let call = SmallCall {
        given: axes,
        keepdims,
        empty: false,
    };
    reduce_small(a, call, normalized, red.identity, red, name)
}

/// What a small reduction works out from its input's type, the axes it
/// was given and `keepdims`, before it looks at the data: kept for the
/// next call on this thread (see [`reduce_small`]), which has the same
/// three when a loop reduces arrays of one type.
struct SmallPlan {
    /// The input's type, the axes as given (`None`: all of them) and
    /// `keepdims`: the key.
    ty: Type,
    given: Option<SmallVec<[i64; 4]>>,
    keepdims: bool,
    /// The element type of the input and the result.
    scalar: dynd_types::Scalar,
    /// How many axes are reduced (a reduction that is not reorderable
    /// takes one at a time).
    axes: usize,
    /// What the fold reads.
    shape: SmallShape,
    /// The result's layout.
    layout: FreshLayout,
}

impl SmallPlan {
    /// The plan of a small reduction of type `ty` over `axes` (normalized:
    /// in range, increasing, no repeats) given as `given`; `None` where the
    /// small path does not apply (no axes, a dimension not fixed, axes
    /// neither leading nor trailing).
    fn new(
        ty: &Type,
        given: Option<&[i64]>,
        axes: &[usize],
        keepdims: bool,
        scalar: dynd_types::Scalar,
    ) -> Option<Result<SmallPlan, Error>> {
        let k = axes.len();
        if k == 0 {
            return None;
        }
        // One walk over the dimensions: the shape, the reduced count and
        // the kept count (the result's elements).
        let mut shape: SmallVec<[usize; 8]> = SmallVec::new();
        let (mut count, mut kept) = (1usize, 1usize);
        for (i, d) in ty.dims().enumerate() {
            let Dim::Fixed(n) = d else { return None };
            shape.push(*n);
            if axes.contains(&i) {
                count *= n;
            } else {
                kept *= n;
            }
        }
        let ndim = shape.len();
        let trailing = axes.iter().enumerate().all(|(i, &ax)| ax + k == ndim + i);
        let leading = axes.iter().enumerate().all(|(i, &ax)| ax == i);
        if !(trailing || leading) {
            return None;
        }
        let out_dims =
            shape
                .iter()
                .enumerate()
                .filter_map(|(i, &n)| match (axes.contains(&i), keepdims) {
                    (false, _) => Some(Dim::Fixed(n)),
                    (true, true) => Some(Dim::Fixed(1)),
                    (true, false) => None,
                });
        let layout =
            match Type::with_dims(out_dims, scalar.into()).and_then(|t| FreshLayout::new(&t)) {
                Ok(layout) => layout,
                Err(e) => return Some(Err(e)),
            };
        Some(Ok(SmallPlan {
            ty: ty.clone(),
            given: given.map(SmallVec::from_slice),
            keepdims,
            scalar,
            axes: k,
            shape: SmallShape {
                count,
                kept,
                row: shape[ndim - 1],
                trailing,
            },
            layout,
        }))
    }

    /// Whether this is the plan of a reduction of `ty` over `given` with
    /// `keepdims`, into `scalar`s.
    #[inline]
    fn is_for(
        &self,
        ty: &Type,
        given: Option<&[i64]>,
        keepdims: bool,
        scalar: dynd_types::Scalar,
    ) -> bool {
        // Axes compared in place: a slice's `==` calls `memcmp`.
        let same_axes = match (&self.given, given) {
            (None, None) => true,
            (Some(a), Some(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y),
            _ => false,
        };
        same_axes && self.keepdims == keepdims && self.scalar == scalar && self.ty == *ty
    }

    /// Whether a reduction, `reorderable` or not, may fold as this plan
    /// says (one that is not takes one axis at a time).
    #[inline]
    fn serves(&self, reorderable: bool) -> bool {
        reorderable || self.axes == 1
    }
}

/// The counts a small reduction's fold reads from its [`SmallPlan`].
#[derive(Clone, Copy)]
struct SmallShape {
    /// The elements each result element folds, and the result's count.
    count: usize,
    kept: usize,
    /// The innermost dimension's size.
    row: usize,
    /// Whether the reduced axes are the trailing ones (else the leading
    /// ones).
    trailing: bool,
}

/// What a caller of [`reduce_small`] asks: the axes as it was given them
/// (`None`: all), `keepdims`, and whether an array with no elements is
/// reduced here (the kernels' rules for empty reductions) or left to the
/// caller's own.
#[derive(Clone, Copy)]
struct SmallCall<'a> {
    given: Option<&'a [i64]>,
    keepdims: bool,
    empty: bool,
}

thread_local! {
    /// The last small reduction's plan on this thread (see
    /// [`reduce_small`]).
    static SMALL_PLAN: std::cell::RefCell<Option<SmallPlan>> =
        const { std::cell::RefCell::new(None) };
}

/// Arrays of at most this many elements, C-contiguous, reduce without
/// the general planner (see [`reduce_small`]).
const SMALL: usize = 1024;

/// [`reduce`] of a small C-contiguous array over leading or trailing axes
/// (`None` for any other case): the same folds in the same order as the
/// general path ([`reduce_runs`] for trailing axes, [`reduce_rows`] for
/// leading ones), so the same bits, without its offset tables and
/// per-dimension vectors. `axes` makes the axes given in `call`
/// normalized (`None`: one is out of range or repeated).
///
/// What the call works out from the type (the shape, the counts, the
/// result's layout) is a [`SmallPlan`], kept per thread: a loop of calls
/// on arrays of one type makes it once, and each call is then the
/// contiguity check, the result's block and the fold.
fn reduce_small<T, F>(
    a: &Array,
    call: SmallCall<'_>,
    axes: impl FnOnce() -> Option<SmallVec<[usize; 8]>>,
    start: Option<T>,
    red: &Reduction<T, F>,
    name: &str,
) -> Option<Result<Array, Error>>
where
    T: Element,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    let SmallCall {
        given,
        keepdims,
        empty,
    } = call;
    let xs = a.as_slice::<T>().ok()?;
    if xs.len() > SMALL || (xs.is_empty() && !empty) {
        return None;
    }
    // Every element is written below, except `bool`'s, whose slice must
    // hold 0 or 1 from the start.
    let zero = T::SCALAR == dynd_types::Scalar::Bool;
    // The plan's counts, and the result allocated from its layout inside
    // the borrow (the layout is not cloned out per call). No user code
    // runs inside it: the fold below may call a reduction again.
    // (`try_with`: a reduction run from another thread-local's drop, as
    // the thread ends, plans without the kept one.)
    let last = SMALL_PLAN
        .try_with(|last| {
            let last = last.try_borrow().ok()?;
            let p = last.as_ref().filter(|p| {
                p.is_for(a.ty(), given, keepdims, T::SCALAR) && p.serves(red.reorderable)
            })?;
            Some((p.shape, p.layout.allocate(zero)))
        })
        .ok()
        .flatten();
    let (shape, out) = match last {
        Some(hit) => hit,
        None => {
            let list = axes()?;
            let plan = match SmallPlan::new(a.ty(), given, &list, keepdims, T::SCALAR)? {
                Ok(plan) => plan,
                Err(e) => return Some(Err(e)),
            };
            if !plan.serves(red.reorderable) {
                return None;
            }
            let parts = (plan.shape, plan.layout.allocate(zero));
            let _ = SMALL_PLAN.try_with(|last| {
                if let Ok(mut last) = last.try_borrow_mut() {
                    *last = Some(plan);
                }
            });
            parts
        }
    };
    let SmallShape {
        count,
        kept,
        row,
        trailing,
    } = shape;
    if count == 0 && start.is_none() {
        return Some(Err(no_identity(name)));
    }
    Some(out.map(|mut out| {
        let out_slice = fresh_elements_n::<T>(&mut out, kept);
        let f = red.combine;
        if trailing {
            // Each result element: its rows of the innermost axis folded
            // as runs, the runs combined in order (as `reduce_runs`).
            if count == 0 || row == 0 {
                let s = start.unwrap_or_else(|| unreachable!("checked above"));
                out_slice.fill(s);
                return out;
            }
            for (o, part) in out_slice.iter_mut().zip(xs.chunks_exact(count)) {
                let mut acc = start;
                for run in part.chunks_exact(row) {
                    // A short run's fold is `fold8` on every path (as
                    // `fold_run` would run it): inline, without the
                    // calls and the instruction-set dispatch.
                    let r = if red.reorderable && run.len() < SHORT_FOLD {
                        fold8(run, &f)
                    } else if red.reorderable {
                        fold_run(run, f, red.run)
                    } else {
                        run.iter().copied().reduce(f)
                    };
                    if let Some(r) = r {
                        acc = Some(acc.map_or(r, |a| f(a, r)));
                    }
                }
                *o = acc.unwrap_or_else(|| unreachable!("a non-empty fold or a start"));
            }
        } else {
            // The kept innermost part as rows, combined elementwise in
            // order (as `reduce_rows`).
            let width = out_slice.len();
            if let Some(s) = start {
                out_slice.fill(s);
            }
            if width > 0 {
                for (r, line) in xs.chunks_exact(width).enumerate() {
                    if r == 0 && start.is_none() {
                        out_slice.copy_from_slice(line);
                    } else {
                        combine_into(out_slice, line, &f);
                    }
                }
            }
        }
        out
    }))
}

/// Each result element folds the reduced axes; the innermost of those is
/// `a`'s innermost axis, a run folded at once (contiguous: eight
/// accumulators, pairwise, chunked).
#[allow(clippy::too_many_arguments)]
fn reduce_runs<T, F>(
    src: &Strided<'_>,
    kept: &[(usize, isize)],
    red_dims: &[(usize, isize)],
    out: &mut [T],
    start: Option<T>,
    red: &Reduction<T, F>,
    name: &str,
) -> Result<(), Error>
where
    T: Element,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    let f = red.combine;
    let (outer_red, run) = match red_dims.split_last() {
        Some((last, rest)) => (rest, *last),
        None => (&[][..], (1, 0)),
    };
    let fold_at = |off: isize| -> Result<Option<T>, Error> {
        let mut acc = start;
        dynd_array::offsets::try_for_each_offset(outer_red, |o| {
            let line = line::<T>(&src.elems, off + o, run, name)?;
            let r = match line.as_slice() {
                Some(xs) if red.reorderable => fold_run(xs, f, red.run),
                _ => line.iter().reduce(f),
            };
            if let Some(r) = r {
                acc = Some(acc.map_or(r, |a| f(a, r)));
            }
            Ok::<(), Error>(())
        })?;
        Ok(acc)
    };
    let mut offsets = Vec::with_capacity(out.len());
    dynd_array::offsets::for_each_offset(kept, |o| offsets.push(o));
    let total = out.len() * red_dims.iter().map(|d| d.0).product::<usize>();
    let fill = |(o, off): (&mut T, &isize)| -> Result<(), Error> {
        if let Some(v) = fold_at(*off)? {
            *o = v;
        }
        Ok(())
    };
    if out.len() > 1 && total >= PARALLEL_RUN && crate::par::threads() > 1 {
        let chunk = out.len().div_ceil(crate::par::threads() * 8);
        crate::par::try_chunks_mut(out, chunk, &|start, part| {
            let offs = &offsets[start..start + part.len()];
            part.iter_mut().zip(offs).try_for_each(fill)
        })
    } else {
        out.iter_mut().zip(offsets.iter()).try_for_each(fill)
    }
}

/// `a`'s innermost axis is kept: the result's innermost rows take each
/// reduced row in turn, combined elementwise (a loop the compiler
/// vectorises); rows split across threads by columns when large.
#[allow(clippy::too_many_arguments)]
fn reduce_rows<T, F>(
    src: &Strided<'_>,
    kept: &[(usize, isize)],
    red_dims: &[(usize, isize)],
    out: &mut [T],
    start: Option<T>,
    red: &Reduction<T, F>,
    name: &str,
) -> Result<(), Error>
where
    T: Element,
    F: Fn(T, T) -> T + Copy + Send + Sync,
{
    let f = red.combine;
    let (outer_kept, row) = kept
        .split_last()
        .map_or((&[][..], (1, 0)), |(l, r)| (r, *l));
    let width = row.0.max(1);
    let mut row_offsets = Vec::new();
    dynd_array::offsets::for_each_offset(outer_kept, |o| row_offsets.push(o));
    let mut red_offsets = Vec::new();
    dynd_array::offsets::for_each_offset(red_dims, |o| red_offsets.push(o));
    // Combines columns `cols` of every reduced row into `out_row`.
    let combine_rows = |out_row: &mut [T], row_off: isize, col0: usize| -> Result<(), Error> {
        for (r, &ro) in red_offsets.iter().enumerate() {
            let off = row_off + ro + col0 as isize * row.1;
            let line = line::<T>(&src.elems, off, (out_row.len(), row.1), name)?;
            let seed = r == 0 && start.is_none();
            match line.as_slice() {
                Some(xs) if seed => out_row.copy_from_slice(xs),
                Some(xs) => combine_into(out_row, xs, &f),
                None => {
                    for (j, o) in out_row.iter_mut().enumerate() {
                        let x = line.get(j);
                        *o = if seed { x } else { f(*o, x) };
                    }
                }
            }
        }
        Ok(())
    };
    if let Some(s) = start {
        out.fill(s);
    }
    let total = out.len() * red_offsets.len();
    let parallel = total >= PARALLEL_RUN && crate::par::threads() > 1;
    for (out_row, &row_off) in out.chunks_mut(width).zip(&row_offsets) {
        if parallel && width >= 64 {
            let cols = width.div_ceil(crate::par::threads() * 2).max(64);
            let combine = |start: usize, part: &mut [T]| combine_rows(part, row_off, start);
            crate::par::try_chunks_mut(out_row, cols, &combine)?;
        } else {
            combine_rows(out_row, row_off, 0)?;
        }
    }
    Ok(())
}

/// The byte offsets of a `bool` mask broadcast to `a`'s shape, or an error
/// naming both shapes.
fn mask_offsets<'a>(
    mask: &'a Array,
    a: &Array,
    name: &str,
) -> Result<(Elems<'a>, Vec<isize>), Error> {
    if mask.dtype().as_scalar() != Some(dynd_types::Scalar::Bool) {
        return Err(Error::MaskType {
            name: name.into(),
            found: mask.dtype().clone(),
        });
    }
    let shape = a.shape();
    let mshape = mask.shape();
    let mstrides = mask.strides();
    if mshape.len() > shape.len() || mstrides.len() != mshape.len() {
        return Err(Error::MaskShape {
            name: name.into(),
            mask: mask.ty().clone(),
            array: a.ty().clone(),
            axis: None,
        });
    }
    let shift = shape.len() - mshape.len();
    let mut strides = vec![0isize; shape.len()];
    for (k, (d, s)) in mshape.iter().zip(&mstrides).enumerate() {
        strides[k + shift] = match (d, &shape[k + shift]) {
            (Dim::Fixed(m), Dim::Fixed(n)) if m == n => *s,
            (Dim::Fixed(1), _) => 0,
            _ => {
                return Err(Error::MaskShape {
                    name: name.into(),
                    mask: mask.ty().clone(),
                    array: a.ty().clone(),
                    axis: Some(k + shift),
                })
            }
        };
    }
    Ok((Elems::of(mask), strides))
}

/// The masked reduction: element by element, skipping masked-out ones.
#[allow(clippy::too_many_arguments)]
fn reduce_masked<T: Element, F: Fn(T, T) -> T>(
    src: &Strided<'_>,
    kept: &[(usize, isize)],
    red_dims: &[(usize, isize)],
    reduced: &[bool],
    mask: &(Elems<'_>, Vec<isize>),
    out: &mut [T],
    start: T,
    f: F,
    name: &str,
) -> Result<(), Error> {
    let mk: Vec<(usize, isize)> = (0..reduced.len())
        .filter(|k| !reduced[*k])
        .map(|k| (src.dims[k].0, mask.1[k]))
        .collect();
    let mr: Vec<(usize, isize)> = (0..reduced.len())
        .filter(|k| reduced[*k])
        .map(|k| (src.dims[k].0, mask.1[k]))
        .collect();
    let mut kept_offsets = Vec::new();
    dynd_array::offsets::for_each_offset(kept, |o| kept_offsets.push(o));
    let mut mask_kept = Vec::new();
    dynd_array::offsets::for_each_offset(&mk, |o| mask_kept.push(o));
    let mut red_offsets = Vec::new();
    dynd_array::offsets::for_each_offset(red_dims, |o| red_offsets.push(o));
    let mut mask_red = Vec::new();
    dynd_array::offsets::for_each_offset(&mr, |o| mask_red.push(o));
    for ((o, &ko), &mko) in out.iter_mut().zip(&kept_offsets).zip(&mask_kept) {
        let mut acc = start;
        for (&ro, &mro) in red_offsets.iter().zip(&mask_red) {
            // A `bool` mask's bytes are 0 or 1.
            if element::<u8>(&mask.0, mko + mro, name)? != 0 {
                let x = element::<T>(&src.elems, ko + ro, name)?;
                acc = f(acc, x);
            }
        }
        *o = acc;
    }
    Ok(())
}

/// Keeps the failure of the lowest row, as a serial run would report it.
/// The number of elements each reduction of `a` over `axes` folds — those
/// a `where` mask keeps — as `int64`, in the shape the reduction gives
/// (`keepdims` as there). Without a mask nothing is read but the shape: a
/// product of the reduced sizes for fixed dimensions, the row lengths for
/// a ragged axis, and across ragged rows the number of rows long enough
/// at each position (one pass over the rows' lengths). With a mask, one
/// pass over the mask.
///
/// ```
/// use dynd_kernels::{array, reduce::count};
///
/// let a = array![[1.0, 2.0, 3.0], [4.0]];
/// assert_eq!(count(&a, Some(&[1]), false, None, "count")?.to_string(), "[3, 1]");
/// assert_eq!(count(&a, Some(&[0]), false, None, "count")?.to_string(), "[2, 1, 1]");
/// assert_eq!(count(&a, None, false, None, "count")?.to_string(), "4");
/// # Ok::<(), dynd::Error>(())
/// ```
///
/// # Errors
///
/// As [`reduce`] for the axes and the mask; [`Error::Unsupported`] for
/// option data types (counting the elements that are not NA).
pub fn count(
    a: &Array,
    axes: Option<&[i64]>,
    keepdims: bool,
    mask: Option<&Array>,
    name: &str,
) -> Result<Array, Error> {
    if matches!(a.dtype().kind(), dynd_types::TypeKind::Option(_)) {
        return Err(Error::Unsupported {
            operation: "counting the elements of an option type here (the builtin `count` counts the values that are not NA)",
            ty: a.ty().clone(),
        });
    }
    let sum = Reduction {
        identity: Some(0i64),
        combine: |x: i64, y: i64| x + y,
        reorderable: true,
        neutral: Some(0),
        run: None,
    };
    let args = ReduceArgs {
        axes,
        keepdims,
        initial: None,
        mask: None,
    };
    if let Some(mask) = mask {
        if mask.dtype().as_scalar() != Some(dynd_types::Scalar::Bool) {
            return Err(Error::MaskType {
                name: name.into(),
                found: mask.dtype().clone(),
            });
        }
        // The mask in the array's shape, as 0 and 1.
        let ty = dynd_types::Type::with_dims(a.shape(), dynd_types::Scalar::Int64.into())?;
        let mismatch = |_: Error| Error::MaskShape {
            name: name.into(),
            mask: mask.ty().clone(),
            array: a.ty().clone(),
            axis: None,
        };
        let mut ones = crate::alloc::alloc_broadcast(&ty, &[a, mask]).map_err(mismatch)?;
        crate::assign::assign(&mut ones, mask, crate::ErrorMode::NoCheck).map_err(mismatch)?;
        return reduce(&ones, &args, &sum, name);
    }
    let ndim = a.ndim();
    let reduced = normalize_axes(axes, ndim, name)?;
    if a.ty().has_var_dim() {
        return ragged::count_var(a, &reduced, keepdims, name);
    }
    let shape: Vec<usize> = a.ty().fixed_shape().unwrap_or_default();
    let mut n: i64 = 1;
    let mut out: Vec<usize> = Vec::with_capacity(ndim);
    for (k, &size) in shape.iter().enumerate() {
        if reduced.contains(&k) {
            n = n.saturating_mul(size as i64);
            if keepdims {
                out.push(1);
            }
        } else {
            out.push(size);
        }
    }
    let ty = dynd_types::Type::with_dims(
        out.iter().map(|&n| dynd_types::Dim::Fixed(n)),
        dynd_types::Scalar::Int64.into(),
    )?;
    let mut counts = Array::zeros(&ty)?;
    fresh_elements::<i64>(&mut counts).fill(n);
    Ok(counts)
}

fn note_failure(slot: &std::sync::Mutex<Option<(usize, Error)>>, row: usize, e: Error) {
    let mut slot = slot.lock().unwrap_or_else(|p| p.into_inner());
    if slot.as_ref().is_none_or(|(r, _)| row < *r) {
        *slot = Some((row, e));
    }
}

/// Each element of `sum` (the sums of `a`'s rows, from [`reduce`] over its
/// innermost `var` axis) divided by its row's length (`of_len`), or
/// `None` when the shapes do not line up so.
///
/// # Errors
///
/// A value error for a row outside its block (never, for a validated
/// array).
pub fn divide_by_row_lengths<T: Element + std::ops::Div<Output = T>>(
    sum: &Array,
    a: &Array,
    of_len: impl Fn(usize) -> T,
    name: &str,
) -> Result<Option<Array>, Error> {
    ragged::divide_by_row_lengths(sum, a, of_len, name)
}

/// The elements of this fresh, C-order array of `T` (fixed dimensions
/// only, just allocated: zeroed, or for overwriting when every bit
/// pattern is a `T`, as for every element type but `bool`), for
/// writing.
pub(crate) fn fresh_elements<T: Element>(this: &mut Array) -> &mut [T] {
    debug_assert_eq!(this.dtype().as_scalar(), Some(T::SCALAR));
    let n: usize = this
        .ty()
        .dims()
        .map(|d| match d {
            Dim::Fixed(n) => *n,
            _ => 0,
        })
        .product();
    fresh_elements_n(this, n)
}

/// [`fresh_elements`] of an array of `n` elements, a count its caller
/// has (the result layout's), so the type is not walked again.
///
/// # Panics
///
/// If the array's block does not hold `n` elements of `T` from its start
/// (a caller's count that is not its array's: a bug, never bad input).
pub(crate) fn fresh_elements_n<T: Element>(this: &mut Array, n: usize) -> &mut [T] {
    debug_assert_eq!(this.dtype().as_scalar(), Some(T::SCALAR));
    let fits = n
        .checked_mul(std::mem::size_of::<T>())
        .is_some_and(|bytes| this.data_offset() == 0 && bytes <= this.data_block().len());
    assert!(
        fits,
        "{n} elements counted for a fresh array that holds fewer"
    );
    let dst = this.fresh_data_ptr().cast::<T>();
    // SAFETY: a fresh C-order array owns its block alone; the block holds
    // at least `n` initialised `T`s from its start (checked above; a
    // block's bytes always are initialised, zero bytes are a valid value
    // of every element type, and the callers allocate `bool` arrays
    // zeroed), aligned for `T`; the slice borrows the array mutably, so
    // nothing else reaches them while it lives.
    unsafe { std::slice::from_raw_parts_mut(dst, n) }
}

/// The elements of this fresh, C-order array of `?T` (fixed dimensions
/// only, just allocated), as slots for writing; `None` if its data type is
/// not `?T` or its elements are not laid out as
/// [`NaSlot`](float::NaSlot) is.
pub(crate) fn fresh_na_slots<T: Float>(this: &mut Array) -> Option<&mut [float::NaSlot<T>]> {
    let slot = std::mem::size_of::<float::NaSlot<T>>();
    match this.dtype().kind() {
        dynd_types::TypeKind::Option(t) if t.as_scalar() == Some(T::SCALAR) => {}
        _ => return None,
    }
    if this.dtype().data_layout().ok()?.size != slot || !this.is_c_contiguous() {
        return None;
    }
    let n: usize = this.ty().fixed_shape()?.iter().product();
    let dst = this.fresh_data_ptr().cast::<float::NaSlot<T>>();
    debug_assert!(dst.is_aligned());
    // SAFETY: a fresh C-order array owns its block alone and holds `n`
    // elements of `slot` bytes each (checked above), initialised (a
    // block's bytes always are), aligned to 16 bytes (every block is),
    // which is at least `NaSlot<T>`'s alignment; every bit pattern is a
    // `NaSlot<T>` (a float, a byte and bytes, no padding); the slice
    // borrows the array mutably, so nothing else reaches them while it
    // lives.
    Some(unsafe { std::slice::from_raw_parts_mut(dst, n) })
}

#[cfg(test)]
mod tests;
