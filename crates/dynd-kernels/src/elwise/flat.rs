//! The fast paths: arguments that walk as one run of one stride each
//! (C-contiguous, or a view of such with a step) run the leaf's loop once,
//! through the engine's [`run_flat`] (on several threads for long runs).

use smallvec::SmallVec;

use dynd_types::{Dim, Scalar, Type};

use super::*;
use crate::array::{Array, FreshLayout};
use crate::arrmeta::Arrmeta;
use crate::error::Error;
use crate::loops::run_flat;

/// The number of elements of `a` if it is laid out in C order with the
/// fixed dimensions of `shape` (`Some(0)` for a 0-d `a`, which
/// broadcasts), and its data type if that is a builtin scalar.
pub(crate) fn contiguous_count(a: &Array, shape: &Type) -> Option<(usize, Scalar)> {
    let (count, scalar, stride) = linear_layout(a, shape)?;
    (count == 0 || stride == scalar.size() as isize).then_some((count, scalar))
}

/// The number of elements of `a` if its fixed dimensions are `shape`'s
/// and walk it as one loop of one byte stride (each dimension longer
/// than 1 steps over the next such one whole: a C-order array, or a view
/// of one with a step, reversed, or broadcast along all of it), its data
/// type if that is a builtin scalar, and that stride (the element size
/// where no dimension is longer than 1); `(0, scalar, 0)` for a 0-d `a`,
/// which broadcasts.
pub(crate) fn linear_layout(a: &Array, shape: &Type) -> Option<(usize, Scalar, isize)> {
    // One walk over both types and `a`'s arrmeta together: the same fixed
    // dimensions as `shape`, a builtin scalar below, and one stride.
    let mut t = a.ty();
    let mut want = shape;
    let mut m = a.arrmeta();
    let mut count = 1usize;
    let mut is_dim = false;
    let mut last_stride: Option<isize> = None;
    while let TypeKind::Dim(d, element) = t.kind() {
        let (n, stride, inner) = m.as_fixed()?;
        match (d, want.kind()) {
            (Dim::Fixed(x), TypeKind::Dim(Dim::Fixed(y), want_element)) if x == y => {
                want = want_element;
            }
            _ => return None,
        }
        if n > 1 {
            if last_stride.is_some_and(|s| Some(s) != (n as isize).checked_mul(stride)) {
                return None;
            }
            last_stride = Some(stride);
        }
        count *= n;
        is_dim = true;
        t = element;
        m = inner;
    }
    let scalar = t.as_scalar()?;
    if !is_dim {
        return Some((0, scalar, 0));
    }
    if want.is_dim() {
        return None;
    }
    Some((count, scalar, last_stride.unwrap_or(scalar.size() as isize)))
}

/// The fast path for fixed shapes: every argument C-contiguous with the
/// result's shape, or 0-d. The leaf's loop runs once over all elements,
/// with no kernel to build.
pub(super) fn apply_flat(ty: &Type, srcs: &[&Array], leaf: &Leaf) -> Result<Option<Array>, Error> {
    let mut count = 1usize;
    let mut t = ty;
    while let TypeKind::Dim(d, element) = t.kind() {
        let Dim::Fixed(n) = d else {
            return Ok(None);
        };
        count *= n;
        t = element;
    }
    if t.as_scalar() != Some(leaf.output) {
        return Ok(None);
    }
    let (Some(flat), Some(sources)) = (leaf.flat.as_deref(), flat_sources(ty, count, srcs, leaf))
    else {
        return Ok(None);
    };
    // Every element is written below, by a leaf that cannot fail.
    let mut out = Array::for_overwrite(ty)?;
    let dst = out.fresh_data_ptr();
    // SAFETY: `dst` is a fresh, unique, C-contiguous array of `count`
    // elements of the leaf's output type; each source has `count`
    // elements of the leaf's input type `stride` apart from its first
    // (its dimensions walk as one loop of that stride, inside its
    // validated block) or is a single element (stride 0); the leaf reads
    // and writes exactly those types, and the sources do not overlap the
    // fresh destination.
    unsafe {
        run_flat(
            flat,
            dst,
            leaf.output.size() as isize,
            sources.ptrs(),
            sources.strides(),
            count,
        )
    };
    Ok(Some(out))
}

/// A flat call worked out once for a result type and a leaf: what
/// [`apply_typed`] finds on each call for arguments that walk the result
/// as one loop (the result's arrmeta and size, the element count, the
/// leaf's loop), kept so that a callable calling the same leaf on arrays
/// of the same types again only checks each argument's layout and runs.
///
/// ```
/// use dynd::func::raw::FlatPlan;
/// use dynd::func::Leaf;
/// use dynd::nd::{Array, Index};
///
/// let leaf = Leaf::map(|a: f64, b: f64| a + b);
/// let ty = "3 * float64".parse()?;
/// let plan = FlatPlan::new(&ty, &leaf).expect("a fixed shape of a plain number type");
/// let x = Array::from_vec(vec![1.0, 2.0, 3.0]);
/// let y = Array::from_scalar(10.0);
/// let sum = plan.call(&[&x, &y])?.expect("both arguments take the flat path");
/// assert_eq!(sum.to_vec::<f64>()?, [11.0, 12.0, 13.0]);
/// // A view with a step is one loop too.
/// let wide = Array::from_vec(vec![1.0, 0.0, 2.0, 0.0, 3.0, 0.0]);
/// let every_other = wide.index(&[Index::slice(None, None, 2)])?;
/// assert_eq!(plan.call(&[&every_other, &y])?.expect("one stride").to_vec::<f64>()?, [11.0, 12.0, 13.0]);
/// // A transposed matrix is not: the caller takes the general path.
/// let plan = FlatPlan::new(&"2 * 2 * float64".parse()?, &leaf).expect("fixed");
/// let m = Array::from_shape_vec(&[2, 2], vec![1.0, 2.0, 3.0, 4.0])?.transpose()?;
/// assert!(plan.call(&[&m, &y])?.is_none());
/// # Ok::<(), dynd::Error>(())
/// ```
#[derive(Clone)]
pub struct FlatPlan {
    out: FreshLayout,
    /// The result's dimensions, and per dimension the number of elements
    /// one step along it passes (the C-order stride in elements).
    shape: SmallVec<[(usize, isize); 4]>,
    count: usize,
    inputs: SmallVec<[Scalar; INLINE_ARGS]>,
    output: Scalar,
    output_size: isize,
    flat: std::sync::Arc<dyn FlatRun>,
}

impl std::fmt::Debug for FlatPlan {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FlatPlan")
            .field("ty", self.out.ty())
            .field("inputs", &self.inputs)
            .finish_non_exhaustive()
    }
}

impl FlatPlan {
    /// The plan for results of type `ty` computed by `leaf`, if the flat
    /// path can make them: `ty` has fixed dimensions over the leaf's
    /// output, a builtin number or `bool`, and the leaf has a loop that
    /// cannot fail.
    pub fn new(ty: &Type, leaf: &Leaf) -> Option<FlatPlan> {
        let flat = leaf.flat.clone()?;
        let output = ty.dtype().as_scalar()?;
        if output != leaf.output
            || !output.storage().is_numeric()
            || leaf.inputs.len() > INLINE_ARGS
        {
            return None;
        }
        let (shape, after, _) = c_order_dims(ty)?;
        Some(FlatPlan {
            out: FreshLayout::new(ty).ok()?,
            shape,
            count: after,
            inputs: leaf.inputs.clone(),
            output,
            output_size: output.size() as isize,
            flat,
        })
    }

    /// The result type.
    pub fn ty(&self) -> &Type {
        self.out.ty()
    }

    /// Runs the planned leaf on `srcs` into a fresh array, if each source
    /// is either 0-d of the leaf's input type (it broadcasts) or has
    /// exactly the result's shape over the input type, walked as one loop
    /// of one stride (C-contiguous, or a view of such with a step or
    /// reversed: what [`apply_typed`] runs flat); `Ok(None)` otherwise
    /// (nothing was run: take the general path, [`apply_general`], which
    /// does not ask again).
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`](crate::Error) if the result cannot be allocated.
    #[inline]
    pub fn call(&self, srcs: &[&Array]) -> Result<Option<Array>, Error> {
        let mut sources = FlatSources::new(srcs.len());
        if !self.sources(srcs, &mut sources) {
            return Ok(None);
        }
        // SAFETY: `dst` is a fresh, unique, C-contiguous array of `count`
        // elements of the leaf's output type (the plan's layout), and the
        // leaf writes each of them (a value of that type, from a loop that
        // cannot fail) before anything reads it; the sources are as
        // `sources` checked them, and do not overlap the fresh destination.
        let out = unsafe { self.out.written(|dst| self.run(dst, &sources))? };
        Ok(Some(out))
    }

    /// As [`FlatPlan::call`], writing into `out` instead of a fresh array:
    /// `out` must have the result's dimensions in C order over the leaf's
    /// output type. `Ok(false)` when it or a source does not fit (nothing
    /// was written: take the general path). `out`'s memory is made its own
    /// first if it shares it (with a source, say).
    ///
    /// # Errors
    ///
    /// [`Error::Alloc`](crate::Error) if `out`'s memory, shared, cannot be
    /// copied.
    #[inline]
    pub fn call_into(&self, out: &mut Array, srcs: &[&Array]) -> Result<bool, Error> {
        if out.dtype().as_scalar() != Some(self.output)
            || !self.fits(out.arrmeta(), self.output.size())
        {
            return Ok(false);
        }
        let mut sources = FlatSources::new(srcs.len());
        if !self.sources(srcs, &mut sources) {
            return Ok(false);
        }
        let dst = crate::assign::data_mut_ptr(out)?;
        // SAFETY: `out`, now the only owner of its memory, holds `count`
        // C-contiguous elements of the leaf's output type (checked by
        // `fits` above); the sources are as `sources` checked them, and
        // cannot overlap memory only `out` holds.
        unsafe { self.run(dst, &sources) };
        Ok(true)
    }

    /// Sets each source's first element and stride in `out` (made for as
    /// many sources), if each is 0-d of the leaf's input type (stride 0:
    /// it broadcasts) or has exactly the result's dimensions over that
    /// type, in C order (stride: its size) or as one loop of another
    /// stride; `false` otherwise. In place, not
    /// returned: a small call would pay for moving the arrays.
    #[inline(always)]
    fn sources(&self, srcs: &[&Array], out: &mut FlatSources) -> bool {
        if srcs.len() != self.inputs.len() || srcs.len() != out.n {
            return false;
        }
        for (k, (a, t)) in srcs.iter().zip(&self.inputs).enumerate() {
            let ty = a.ty();
            if ty.as_scalar() == Some(*t) {
                out.strides[k] = 0;
            } else if ty.dtype().as_scalar() == Some(*t) && self.fits(a.arrmeta(), t.size()) {
                out.strides[k] = t.size() as isize;
            } else if let Some(stride) = self.linear(a, *t) {
                out.strides[k] = stride;
            } else {
                return false;
            }
            out.ptrs[k] = a.data_ptr();
        }
        true
    }

    /// The byte stride of `a` if it walks the result's dimensions as one
    /// loop of one stride over elements of type `t` (a view of a C-order
    /// array with a step, reversed, or broadcast along all of it: see
    /// [`linear_layout`]). Out of line: C order is the common case, asked
    /// first.
    #[cold]
    #[inline(never)]
    fn linear(&self, a: &Array, t: Scalar) -> Option<isize> {
        match linear_layout(a, self.out.ty())? {
            (n, s, stride) if s == t && n == self.count && a.ty().is_dim() => Some(stride),
            _ => None,
        }
    }

    /// Runs the leaf's loop over the plan's `count` elements.
    ///
    /// # Safety
    ///
    /// `dst` is writable for `count` C-contiguous elements of the leaf's
    /// output type, and overlaps no source; `sources` are from
    /// [`Self::sources`] (each source's elements, which lie inside its
    /// block as every array's do, are the leaf's input type).
    #[inline(always)]
    unsafe fn run(&self, dst: *mut u8, sources: &FlatSources) {
        // SAFETY: by the contract: `count` elements on each side (one for
        // a 0-d source, stride 0), of the types the leaf reads and writes.
        unsafe {
            run_flat(
                &*self.flat,
                dst,
                self.output_size,
                sources.ptrs(),
                sources.strides(),
                self.count,
            )
        };
    }

    /// Whether `meta` has exactly the result's fixed dimensions, in C
    /// order over elements of `size` bytes.
    fn fits(&self, meta: &Arrmeta, size: usize) -> bool {
        fits_c_order(meta, &self.shape, size)
    }
}

/// Fixed dimensions with their C-order steps in elements, from the first.
pub(crate) type CDims = SmallVec<[(usize, isize); 4]>;

/// The dimensions of `ty` with their C-order steps (as [`fits_c_order`]
/// takes them), the number of elements, and the data type below them;
/// `None` when a dimension is not fixed or the count overflows.
pub(crate) fn c_order_dims(ty: &Type) -> Option<(CDims, usize, &Type)> {
    let mut dims = CDims::new();
    let mut t = ty;
    while let TypeKind::Dim(d, element) = t.kind() {
        let Dim::Fixed(n) = d else {
            return None;
        };
        dims.push((*n, 0));
        t = element;
    }
    let mut count = 1usize;
    for (n, step) in dims.iter_mut().rev() {
        *step = isize::try_from(count).ok()?;
        count = count.checked_mul(*n)?;
    }
    Some((dims, count, t))
}

/// Whether `meta` has exactly the fixed dimensions `dims` (each a length
/// and the C-order step along it in elements), in C order over elements
/// of `size` bytes: a dimension of one element may have any stride, and
/// the arrmeta of any other kind of dimension does not fit.
pub(crate) fn fits_c_order(meta: &Arrmeta, dims: &[(usize, isize)], size: usize) -> bool {
    let mut m = meta;
    for &(n, step) in dims {
        let Some((len, stride, element)) = m.as_fixed() else {
            return false;
        };
        if len != n || (n > 1 && stride != step * size as isize) {
            return false;
        }
        m = element;
    }
    matches!(m, Arrmeta::Scalar)
}

/// The sources of a flat run: each one's first element and its stride
/// (its element size, or 0 for a 0-d source that broadcasts).
pub(super) struct FlatSources {
    ptrs: [*const u8; INLINE_ARGS],
    strides: [isize; INLINE_ARGS],
    n: usize,
}

impl FlatSources {
    /// `n` sources, none set yet.
    pub(super) fn new(n: usize) -> FlatSources {
        FlatSources {
            ptrs: [std::ptr::null(); INLINE_ARGS],
            strides: [0; INLINE_ARGS],
            n: n.min(INLINE_ARGS),
        }
    }

    /// Sets source `k`'s first element and stride.
    #[inline(always)]
    pub(super) fn set(&mut self, k: usize, ptr: *const u8, stride: isize) {
        self.ptrs[k] = ptr;
        self.strides[k] = stride;
    }

    pub(super) fn ptrs(&self) -> &[*const u8] {
        &self.ptrs[..self.n]
    }

    pub(super) fn strides(&self) -> &[isize] {
        &self.strides[..self.n]
    }
}

/// The sources for a flat run over `shape`'s dimensions, if every source
/// walks them as one loop of one stride (C-contiguous, or a view of such
/// with a step: see [`linear_layout`]) or is 0-d, and is of the leaf's
/// input types.
pub(super) fn flat_sources(
    shape: &Type,
    count: usize,
    srcs: &[&Array],
    leaf: &Leaf,
) -> Option<FlatSources> {
    if srcs.len() != leaf.inputs.len() || srcs.len() > INLINE_ARGS {
        return None;
    }
    let mut out = FlatSources {
        ptrs: [std::ptr::null(); INLINE_ARGS],
        strides: [0; INLINE_ARGS],
        n: srcs.len(),
    };
    for (k, (a, t)) in srcs.iter().zip(&leaf.inputs).enumerate() {
        out.strides[k] = match linear_layout(a, shape) {
            Some((_, s, _)) if s != *t => return None,
            Some((0, _, _)) if !a.ty().is_dim() => 0,
            Some((n, _, stride)) if n == count => stride,
            _ => return None,
        };
        out.ptrs[k] = a.data_ptr();
    }
    Some(out)
}

/// As [`ArrayOps::apply_into`](crate::ops::ArrayOps::apply_into), taking the flat path when this array is
/// C-contiguous and every source walks its shape as one loop of one
/// stride (or is 0-d).
pub(crate) fn apply_flat_into(
    this: &mut Array,
    srcs: &[&Array],
    leaf: &Leaf,
) -> Result<bool, Error> {
    if this.dtype().as_scalar() != Some(leaf.output) || this.ty().has_var_dim() {
        return Ok(false);
    }
    let ty = this.ty().clone();
    let Some((count, _)) = contiguous_count(this, &ty) else {
        return Ok(false);
    };
    let count = if this.ndim() == 0 { 1 } else { count };
    let (Some(flat), Some(sources)) = (leaf.flat.as_deref(), flat_sources(&ty, count, srcs, leaf))
    else {
        return Ok(false);
    };
    let dst = crate::assign::data_mut_ptr(this)?;
    // SAFETY: this array, now the only owner of its memory, holds
    // `count` contiguous elements of the leaf's output type; the
    // sources were checked as in `apply_flat`, and do not overlap the
    // destination's (unique) memory.
    unsafe {
        run_flat(
            flat,
            dst,
            leaf.output.size() as isize,
            sources.ptrs(),
            sources.strides(),
            count,
        )
    };
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::view::Index;

    /// Arrays of one type in several layouts: C order, a dimension of one
    /// with an odd stride, reversed, strided, transposed, and 0-d.
    fn layouts() -> Vec<(&'static str, Array, bool)> {
        let base = |shape: &[usize], first: f64| {
            let n = shape.iter().product::<usize>();
            let v = (0..n).map(|i| first + i as f64).collect();
            Array::from_shape_vec(shape, v).unwrap()
        };
        let c = base(&[3, 4], 1.0);
        let wide = base(&[3, 8], 100.0);
        let every_other = wide
            .index(&[Index::slice(None, None, 1), Index::slice(None, None, 2)])
            .unwrap();
        let reversed = base(&[3, 4], 50.0)
            .index(&[Index::slice(None, None, -1), Index::slice(None, None, 1)])
            .unwrap();
        let transposed = base(&[4, 3], 7.0).transpose().unwrap();
        // 1 x 12 viewed as 3 x 4 is C order; a size-1 leading axis taken
        // from the middle of a bigger one keeps the big stride.
        let tall = base(&[5, 3, 4], 200.0);
        let one_row = tall
            .index(&[Index::slice(Some(2), Some(3), 1)])
            .unwrap()
            .reshape([3usize, 4])
            .unwrap();
        let row_of_one = base(&[4, 1, 3], 300.0)
            .index(&[Index::slice(Some(1), Some(2), 1)])
            .unwrap();
        vec![
            ("c", c, true),
            ("every other column", every_other, true),
            ("reversed rows", reversed, false),
            ("transposed", transposed, false),
            ("one row of a bigger array", one_row, true),
            ("a size-1 axis with a long stride", row_of_one, true),
            ("0-d", Array::from_scalar(0.5f64), true),
        ]
    }

    #[test]
    fn a_plan_runs_exactly_the_linear_layouts_and_matches_the_general_path() {
        let leaf = Leaf::map(|a: f64, b: f64| a * 3.0 - b);
        for (name_a, a, flat_a) in layouts() {
            for (name_b, b, flat_b) in layouts() {
                let shape = |x: &Array| x.ty().split_dims().0.len();
                // Same shapes (or 0-d) only: the plan is per result type.
                let ty = if shape(&a) == 0 {
                    b.ty().clone()
                } else {
                    a.ty().clone()
                };
                if shape(&a) != 0
                    && shape(&b) != 0
                    && a.ty().split_dims().0 != b.ty().split_dims().0
                {
                    continue;
                }
                let plan = FlatPlan::new(&ty, &leaf).unwrap();
                let general = apply_typed(&ty, &[&a, &b], &leaf).unwrap();
                let got = plan.call(&[&a, &b]).unwrap();
                assert_eq!(got.is_some(), flat_a && flat_b, "{name_a} with {name_b}");
                if let Some(got) = got {
                    assert_eq!(got.ty(), general.ty(), "{name_a} with {name_b}");
                    let (g, w) = (
                        got.to_vec::<f64>().unwrap(),
                        general.to_vec::<f64>().unwrap(),
                    );
                    assert_eq!(g, w, "{name_a} with {name_b}");
                }
            }
        }
    }

    #[test]
    fn no_plan_where_the_flat_path_cannot_make_the_result() {
        let add = Leaf::map(|a: f64, b: f64| a + b);
        assert!(FlatPlan::new(&"var * float64".parse().unwrap(), &add).is_none());
        assert!(FlatPlan::new(&"3 * int64".parse().unwrap(), &add).is_none());
        let fallible = Leaf::map(|a: f64| if a < 0.0 { Err("negative") } else { Ok(a) });
        assert!(FlatPlan::new(&"3 * float64".parse().unwrap(), &fallible).is_none());
        // Arguments of another element type, or another shape, are refused
        // at the call: the caller casts or broadcasts on the general path.
        let plan = FlatPlan::new(&"3 * float64".parse().unwrap(), &add).unwrap();
        let x = Array::from_vec(vec![1.0f64, 2.0, 3.0]);
        let ints = Array::from_vec(vec![1i64, 2, 3]);
        let longer = Array::from_vec(vec![1.0f64; 4]);
        let column = Array::from_shape_vec(&[3, 1], vec![1.0f64; 3]).unwrap();
        assert!(plan.call(&[&x, &ints]).unwrap().is_none());
        assert!(plan.call(&[&x, &longer]).unwrap().is_none());
        assert!(plan.call(&[&x, &column]).unwrap().is_none());
        assert!(plan.call(&[&x]).unwrap().is_none());
        let sum = plan.call(&[&x, &x]).unwrap().unwrap();
        assert_eq!(sum.to_vec::<f64>().unwrap(), [2.0, 4.0, 6.0]);
    }

    #[test]
    fn a_plan_writes_into_a_c_order_output_of_its_own() {
        let add = Leaf::map(|a: f64, b: f64| a + b);
        let plan = FlatPlan::new(&"3 * float64".parse().unwrap(), &add).unwrap();
        let x = Array::from_vec(vec![1.0f64, 2.0, 3.0]);
        let mut out = Array::from_vec(vec![0.0f64; 3]);
        assert!(plan.call_into(&mut out, &[&x, &x]).unwrap());
        assert_eq!(out.to_vec::<f64>().unwrap(), [2.0, 4.0, 6.0]);
        // An output that shares its memory with a source gets its own
        // first: the source keeps its values.
        let mut shared = x.clone();
        assert!(plan.call_into(&mut shared, &[&x, &x]).unwrap());
        assert_eq!(shared.to_vec::<f64>().unwrap(), [2.0, 4.0, 6.0]);
        assert_eq!(x.to_vec::<f64>().unwrap(), [1.0, 2.0, 3.0]);
        // A strided output, or one of another type, is refused untouched.
        let wide = Array::from_vec(vec![0.0f64; 6]);
        let mut strided = wide.index(&[Index::slice(None, None, 2)]).unwrap();
        assert!(!plan.call_into(&mut strided, &[&x, &x]).unwrap());
        assert_eq!(strided.to_vec::<f64>().unwrap(), [0.0; 3]);
        let mut ints = Array::from_vec(vec![0i64; 3]);
        assert!(!plan.call_into(&mut ints, &[&x, &x]).unwrap());
    }
}
