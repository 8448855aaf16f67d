//! Reductions and scans of any associative binary callable (NumPy's
//! `add.reduce` and `add.accumulate`).
//!
//! A binary callable declared [associative](Callable::associative) — with
//! its identity, if it has one — gives [`Callable::reduce`]: a callable
//! `(Any, axis: ?Any, keepdims: ?bool, initial: ?Scalar, where: ?Any) ->
//! Any` that folds the array over its axes by calling the operation on
//! whole sub-arrays: the elements of an axis are paired neighbour with
//! neighbour (two strided views), the pairs combined in one elementwise
//! call, and so on — a pairwise tree (accurate for floating-point sums),
//! and since neighbours stay in order only associativity is needed, not
//! commutativity. A long axis folds in blocks of about 128 Ki elements,
//! each block's first levels while it is in cache (on several threads
//! for a large array), and the blocks' results then fold side by side in
//! order. Axes are folded innermost first, which keeps every element
//! in C order too.
//!
//! ```
//! use dynd::func::{builtins, Callable, AxisOptions};
//! use dynd::nd::{array, Array, Value};
//!
//! let add_reduce = builtins::get("add").unwrap().reduce()?;
//! let a = array![[1, 2, 3], [4, 5, 6]];
//! assert_eq!(add_reduce.call(&[&a])?.to_string(), "21");
//! assert_eq!(add_reduce.reduce_with(&a, &AxisOptions::new().axis(0))?.to_string(), "[5, 7, 9]");
//!
//! // Any binary callable, once declared associative with its identity.
//! let gcd = Callable::map("gcd", |mut a: u64, mut b: u64| {
//!     while b != 0 {
//!         (a, b) = (b, a % b);
//!     }
//!     a
//! })
//! .associative(Some(Value::Int(0)))?;
//! let g = gcd.reduce()?.call(&[&Array::from_vec(vec![12u64, 18, 30])])?;
//! assert_eq!(g.to_string(), "6");
//! # Ok::<(), dynd::Error>(())
//! ```
//!
//! The builtin reductions (`sum`, `prod`, `min`, `max`, …) are typed loops
//! and several times faster; they also reduce `var` dimensions, which this
//! generic path does not. [`Callable::accumulate`] gives the scan
//! (`NAME.accumulate`), along a fixed axis or each ragged row.

use dynd_kernels::elwise::PARALLEL_MIN;
use dynd_kernels::par;
use dynd_kernels::reduce::normalize_axes;
use dynd_kernels::ArrayOps;
use dynd_kernels::{Array, ErrorMode, Index, Value};
use dynd_types::{Dim, Type, TypeKind};

use crate::callable::{Callable, Folding};
use crate::error::Error;
use crate::options::{AxisKeyword, AxisOptions};

impl Callable {
    /// Declares this binary callable associative — `f(f(a, b), c) ==
    /// f(a, f(b, c))` — with `identity` (`f(identity, x) == x`) if it has
    /// one, so that [`reduce`](Callable::reduce) may regroup it.
    ///
    /// # Errors
    ///
    /// [`Error::Reduction`] unless the
    /// callable takes two arguments.
    pub fn associative(mut self, identity: Option<Value>) -> Result<Callable, Error> {
        if self.arity() != 2 {
            return Err(Error::Reduction {
                name: self.name().into(),
                problem: "is not a binary operation (two arguments), so it cannot be associative",
            });
        }
        self.folding = Some(Folding { identity });
        Ok(self)
    }

    /// Whether this callable was declared [associative](Callable::associative).
    pub fn is_associative(&self) -> bool {
        self.folding.is_some()
    }

    /// The declared identity of an associative callable.
    pub fn identity(&self) -> Option<&Value> {
        self.folding.as_ref()?.identity.as_ref()
    }

    /// The reduction of this associative binary callable, called
    /// `NAME.reduce` (see the [module docs](self)): over `axis` (one or a
    /// list, negative ones from the end; all by default), with `keepdims`,
    /// `initial` (combined first, and the result of an empty reduction) and
    /// a `where` mask (left-out elements count as the identity).
    ///
    /// # Errors
    ///
    /// [`Error::NotAssociative`] if
    /// the callable was not declared associative. Calls of the reduction fail for an axis out of
    /// range or repeated, an empty reduction or a mask without identity or
    /// `initial`, an operation that changes its operands' type (`less`),
    /// and `var` dimensions.
    pub fn reduce(&self) -> Result<Callable, Error> {
        if self.folding.is_none() {
            return Err(Error::NotAssociative {
                name: self.name().into(),
                what: "reduction",
            });
        }
        let name = format!("{}.reduce", self.name());
        let op = self.clone();
        let label = name.clone();
        let keywords = [
            AxisKeyword::Axes,
            AxisKeyword::Keepdims,
            AxisKeyword::Initial,
            AxisKeyword::Where,
        ];
        let mut c = Callable::over_axes(&name, &keywords, move |a, o| fold(&op, &label, a, o))?;
        // Declared associative: the results of parts combine with it.
        c.reduction = crate::callable::ReductionKind::Combines;
        Ok(c)
    }
}

impl Callable {
    /// The scan of this associative binary callable, called
    /// `NAME.accumulate` (NumPy's `ufunc.accumulate`): the result has the
    /// array's shape, and element `i` along `axis` (0 by default;
    /// negative from the end) combines elements `0..=i` in order. Along a
    /// `var` dimension each ragged row is scanned on its own.
    ///
    /// The scan runs in whole-array calls of the operation: at step `d`
    /// (1, 2, 4, …) every element from position `d` on is combined with
    /// the one `d` before it — `log2 n` calls, each over views that share
    /// the memory, and since the earlier operand always stays on the left
    /// only associativity is needed (a Hillis–Steele scan). That is
    /// `n log2 n` operations: the builtins `cumsum` and `cumprod` are one
    /// sequential pass, about 9 times faster over a row of a million and
    /// 25 times over short ragged rows (`benches/reduce.rs`, `scan`).
    ///
    /// ```
    /// use dynd::func::{builtins, Callable, AxisOptions};
    /// use dynd::nd::{array, Array, Complex};
    ///
    /// let running_max = builtins::get("maximum.accumulate")?;
    /// let a = array![[3, 1, 4, 1, 5], [9, 2, 6]];
    /// let by_row = AxisOptions::new().axis(1);
    /// assert_eq!(running_max.reduce_with(&a, &by_row)?.to_string(), "[[3, 3, 4, 4, 5], [9, 9, 9]]");
    ///
    /// // Not commutative, only associative: the composition of affine maps
    /// // x -> a x + b, as (a, b) pairs packed in a complex number.
    /// let compose = Callable::map("compose", |f: Complex<f64>, g: Complex<f64>| {
    ///     Complex::new(g.re * f.re, g.re * f.im + g.im)
    /// })
    /// .associative(None)?;
    /// let maps = Array::from_vec(vec![Complex::new(2.0, 1.0), Complex::new(3.0, 0.0), Complex::new(1.0, 5.0)]);
    /// // x -> 2x + 1, then x -> 3(2x + 1) = 6x + 3, then x -> 6x + 8
    /// // (complex numbers print as [re, im]).
    /// assert_eq!(compose.accumulate()?.call(&[&maps])?.to_string(), "[[2, 1], [6, 3], [6, 8]]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::NotAssociative`] if
    /// the callable was not declared associative. Calls of the scan fail for an axis out of
    /// range, an operation that changes its operands' type, and a scan
    /// along a fixed dimension of an array with `var` dimensions inside it.
    pub fn accumulate(&self) -> Result<Callable, Error> {
        if self.folding.is_none() {
            return Err(Error::NotAssociative {
                name: self.name().into(),
                what: "scan",
            });
        }
        let name = format!("{}.accumulate", self.name());
        let op = self.clone();
        let label = name.clone();
        Callable::over_axes(&name, &[AxisKeyword::Axis], move |a, o| {
            scan(&op, &label, a, o)
        })
    }
}

/// `a` scanned with `op` along the `axis` keyword's axis.
fn scan(op: &Callable, name: &str, a: &Array, o: &AxisOptions) -> Result<Array, Error> {
    let ndim = a.ndim();
    if ndim == 0 {
        return Err(Error::NeedsArray {
            op: name.into(),
            expected: "an array with a dimension (a scan runs along one)",
            found: a.ty().clone(),
        });
    }
    let axis = o.one_axis(name)?.unwrap_or(0);
    let axis = normalize_axes(Some(&[axis]), ndim, name)?[0];
    let (dims, _) = a.ty().split_dims();
    let along_var = matches!(dims[axis], Dim::Var);
    if dims[..axis].iter().any(|d| matches!(d, Dim::Var))
        || (!along_var && dims[axis + 1..].iter().any(|d| matches!(d, Dim::Var)))
    {
        return Err(dynd_kernels::Error::Unsupported {
            operation: "a scan of a callable along this axis (it runs along a fixed dimension of an array without var dimensions, or along the rows of a var dimension under fixed ones)",
            ty: a.ty().clone(),
        });
    }
    let r = fold_type(op, name, a.dtype())?;
    let mut out = as_fold_type(a, &r)?;
    // The longest line along the axis: the scan's steps stop there.
    let extent = match dims[axis] {
        Dim::Fixed(n) => *n,
        _ => {
            let probe = out
                .option_parts()
                .map_or_else(|| out.clone(), |(values, _)| values);
            let counts =
                dynd_kernels::reduce::count(&probe, Some(&[axis as i64]), false, None, name)?;
            counts
                .reshape([-1])?
                .to_vec::<i64>()?
                .into_iter()
                .max()
                .map_or(0, |n| n as usize)
        }
    };
    let at = |start: Option<i64>, stop: Option<i64>| -> Vec<Index> {
        let mut index = vec![Index::ALL; axis];
        index.push(Index::slice(start, stop, 1));
        index
    };
    let mut d = 1usize;
    while d < extent {
        let step = d as i64;
        let combined = {
            // Views of `out` that end before the write below, so that `out`
            // is again the only owner of its memory and is written in place.
            let earlier = out.index(&at(None, Some(-step)))?;
            let later = out.index(&at(Some(step), None))?;
            op.call(&[&earlier, &later])?
        };
        out.assign_at(&at(Some(step), None), &combined, ErrorMode::NoCheck)?;
        d *= 2;
    }
    Ok(out)
}

/// The type `r` that `op` folds or scans an array of `dtype` in (`op` of
/// two `r` must give `r` again).
fn fold_type(op: &Callable, name: &str, dtype: &Type) -> Result<Type, Error> {
    let pair = [dtype.clone(), dtype.clone()];
    let (takes, r) = match op.dispatch(&pair) {
        Ok(o) => (
            o.inputs().iter().map(|s| Type::from(*s)).collect(),
            Type::from(o.output()),
        ),
        // A function callable: its result type for two of its results.
        Err(_) => {
            let r = op.resolve(&pair)?;
            (vec![r.clone(), r.clone()], op.resolve(&[r.clone(), r])?)
        }
    };
    if takes != [r.clone(), r.clone()] {
        return Err(Error::FoldType {
            name: name.into(),
            op: op.name().into(),
            takes: takes.into(),
            gives: r,
            dtype: dtype.clone(),
        });
    }
    // An overload lifted over NA gives NA for NA: the fold runs in `?r`.
    if matches!(dtype.kind(), TypeKind::Option(_)) && !matches!(r.kind(), TypeKind::Option(_)) {
        return Type::option(r);
    }
    Ok(r)
}

/// `a` as an array of `r`, its dimensions kept.
fn as_fold_type(a: &Array, r: &Type) -> Result<Array, Error> {
    if a.dtype() == r {
        return Ok(a.clone());
    }
    let (dims, _) = a.ty().split_dims();
    a.cast(
        &Type::with_dims(dims.into_iter().cloned(), r.clone())?,
        ErrorMode::Fractional,
    )
}

/// `a` folded with `op` as the keywords ask.
fn fold(op: &Callable, name: &str, a: &Array, o: &AxisOptions) -> Result<Array, Error> {
    let identity_value = op.identity();
    let (axes, keepdims, mask) = (o.axes(), o.keepdims, o.mask.clone());
    if a.ty().has_var_dim() {
        return Err(dynd_kernels::Error::Unsupported {
            operation: "reducing var dimensions through a callable's .reduce (the builtins sum, prod, min, max, all, any and mean reduce them)",
            ty: a.ty().clone(),
        });
    }
    let dtype = a.dtype().clone();
    let r = fold_type(op, name, &dtype)?;
    let x = as_fold_type(a, &r)?;
    let as_r = |v: &Array| -> Result<Array, Error> {
        if v.ty() == &r {
            return Ok(v.clone());
        }
        v.cast(&r, ErrorMode::Fractional)
    };
    let identity = identity_value
        .map(|v| as_r(&Array::from_value(v, None)?))
        .transpose()?;
    let initial = o
        .initial
        .as_ref()
        .map(|v| {
            as_r(v).map_err(|e| Error::KeywordValue {
                name: name.into(),
                keyword: "initial".into(),
                expected: format!("a value of the fold's type {r}"),
                found: format!("{v} ({}): {e}", v.ty()),
            })
        })
        .transpose()?;
    let axes = normalize_axes(axes, x.ndim(), name)?;
    let shape: Vec<usize> = x.ty().fixed_shape().unwrap_or_default();
    let kept_shape: Vec<usize> = (0..shape.len())
        .map(|k| if axes.contains(&k) { 1 } else { shape[k] })
        .collect();
    let squeeze = |x: Array| -> Result<Array, Error> {
        if keepdims {
            return Ok(x);
        }
        let index: Vec<Index> = (0..x.ndim())
            .map(|k| {
                if axes.contains(&k) {
                    Index::At(0)
                } else {
                    Index::ALL
                }
            })
            .collect();
        x.index(&index)
    };
    if mask.is_some() && identity.is_none() {
        return Err(Error::Reduction {
            name: name.into(),
            problem: "has no identity, so a `where` mask cannot leave elements out",
        });
    }
    if axes.iter().any(|&k| shape[k] == 0) {
        let fill = initial.or(identity).ok_or_else(|| Error::EmptyReduction {
            name: name.into(),
            op: op.name().into(),
        })?;
        let mut out = Array::zeros(&Type::with_dims(
            kept_shape.iter().map(|n| Dim::Fixed(*n)),
            r.clone(),
        )?)?;
        out.assign(&fill, ErrorMode::NoCheck)?;
        return squeeze(out);
    }
    let mut x = x;
    if let Some(m) = mask {
        let identity = identity.unwrap_or_else(|| unreachable!("checked above"));
        let masked = crate::elementwise::WHERE.call(&[&m, &x, &identity])?;
        if masked.shape() != x.shape() {
            return Err(Error::MaskShape {
                name: name.into(),
                mask: m.ty().clone(),
                array: a.ty().clone(),
                axis: None,
            });
        }
        x = masked;
    }
    for &k in axes.iter().rev() {
        x = fold_axis(op, x, k, shape[k])?;
    }
    if let Some(init) = initial {
        x = op.call(&[&init, &x])?;
    }
    squeeze(x)
}

/// Elements per block of a fold along an axis: a block's first levels
/// run while its elements are in cache (1 MiB of `float64`, the size of
/// this machine's L2), on several threads for a large array.
const FOLD_BLOCK: usize = 1 << 17;

/// The indices along the axis that a block keeps after its levels in
/// cache: below that, a call of the operation costs more than its
/// elements, so the blocks' results join (in order) for the last levels.
const BLOCK_KEEPS: usize = 64;

/// `x` folded along axis `k` (of length `n`, at least 1) to length 1.
///
/// A long axis is cut into blocks of about [`FOLD_BLOCK`] elements (a
/// power of two indices each): each block is halved level by level in
/// cache down to [`BLOCK_KEEPS`] indices, the blocks' results are laid
/// side by side in order, and that is folded as a short axis
/// ([`fold_run`]). Every element stays in order, and each level pairs
/// neighbours, so the tree stays pairwise (its depth `log2 n` plus one).
/// The result does not depend on the number of threads.
fn fold_axis(op: &Callable, x: Array, k: usize, n: usize) -> Result<Array, Error> {
    let shape = x.ty().fixed_shape().unwrap_or_default();
    let elements: usize = shape.iter().product();
    let per_index = (elements / n.max(1)).max(1);
    let block = (FOLD_BLOCK / per_index).max(1);
    // A power of two, so that every block but the last halves exactly.
    let block = 1usize << (usize::BITS - 1 - block.leading_zeros());
    if n <= block || block <= BLOCK_KEEPS {
        // Short, or wide (few indices per block): the calls are long
        // already.
        return fold_run(op, x, k, n);
    }
    let fold_block = |&start: &usize| -> Result<Array, Error> {
        let stop = (start + block).min(n);
        let part = axis_view(&x, k, start, stop, 1)?;
        if stop - start < block {
            return fold_run(op, part, k, stop - start);
        }
        halve(op, part, k, block, BLOCK_KEEPS)
    };
    let starts: Vec<usize> = (0..n).step_by(block).collect();
    let parts: Vec<Array> = if elements >= PARALLEL_MIN && par::threads() > 1 {
        par::try_map(starts.len(), &|i| fold_block(&starts[i]))?
    } else {
        starts.iter().map(fold_block).collect::<Result<_, _>>()?
    };
    // The blocks' results side by side, in order.
    let lens: Vec<usize> = parts
        .iter()
        .map(|p| p.ty().fixed_shape().map_or(1, |s| s[k]))
        .collect();
    let mut joined_shape = shape;
    joined_shape[k] = lens.iter().sum();
    let mut joined = Array::zeros(&Type::with_dims(
        joined_shape.iter().map(|n| Dim::Fixed(*n)),
        x.dtype().clone(),
    )?)?;
    let mut at = 0;
    for (part, len) in parts.iter().zip(&lens) {
        let mut index = vec![Index::ALL; k];
        index.push(Index::slice(Some(at as i64), Some((at + len) as i64), 1));
        joined.assign_at(&index, part, ErrorMode::NoCheck)?;
        at += len;
    }
    fold_run(op, joined, k, at)
}

/// `x`, whose axis `k` has `n` indices (`keep` times a power of two),
/// folded level by level to `keep` indices: neighbours paired at each.
fn halve(op: &Callable, mut x: Array, k: usize, mut n: usize, keep: usize) -> Result<Array, Error> {
    while n > keep {
        let even = axis_view(&x, k, 0, n, 2)?;
        let odd = axis_view(&x, k, 1, n, 2)?;
        x = op.call(&[&even, &odd])?;
        n /= 2;
    }
    Ok(x)
}

/// `x` indexed `start..stop` (by `step`) along axis `k`.
fn axis_view(x: &Array, k: usize, start: usize, stop: usize, step: i64) -> Result<Array, Error> {
    let mut index = vec![Index::ALL; k];
    index.push(Index::slice(Some(start as i64), Some(stop as i64), step));
    x.index(&index)
}

/// `x` folded along axis `k` (of length `n`, at least 1) to length 1:
/// neighbours paired level by level (one call of `op` per level, on two
/// strided views), an odd last element kept aside and combined at the end
/// in order.
fn fold_run(op: &Callable, mut x: Array, k: usize, mut n: usize) -> Result<Array, Error> {
    // Everything right of what `x` still covers, folded.
    let mut tail: Option<Array> = None;
    while n > 1 {
        let half = n / 2;
        if n % 2 == 1 {
            let last = axis_view(&x, k, n - 1, n, 1)?;
            tail = Some(match tail {
                None => last,
                Some(t) => op.call(&[&last, &t])?,
            });
        }
        let even = axis_view(&x, k, 0, 2 * half, 2)?;
        let odd = axis_view(&x, k, 1, 2 * half, 2)?;
        x = op.call(&[&even, &odd])?;
        n = half;
    }
    match tail {
        Some(t) => op.call(&[&x, &t]),
        None => Ok(x),
    }
}
