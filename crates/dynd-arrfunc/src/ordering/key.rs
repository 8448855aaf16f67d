//! The order the ordering functions share: [`Key`] (numbers ascending,
//! NaN after them), a dense array's values as a slice, and the typed
//! passes over one run of values that dense axes and ragged rows both use.

use std::cmp::Ordering;

use dynd_kernels::{rowwise, Array, Complex, Element, F16};
use dynd_types::Scalar;

use crate::error::Error;

/// An element with NumPy's sort order: numbers ascending, NaN after them
/// (`-0.0` and `0.0` equal, so stable orders keep them as they came).
pub(crate) trait Key: Element + Copy + PartialOrd {
    /// Whether this is a NaN.
    fn nan(self) -> bool {
        false
    }
    /// The order: NaN last (NaNs equal among themselves).
    #[inline(always)]
    fn order(&self, o: &Self) -> Ordering {
        match self.partial_cmp(o) {
            Some(c) => c,
            None => self.nan().cmp(&o.nan()),
        }
    }
    /// The same value under [`Key::order`] (all NaNs are one value).
    #[inline(always)]
    fn same(&self, o: &Self) -> bool {
        self.order(o) == Ordering::Equal
    }
    /// Whether [`Key::arg_rows`] has a branch-free kernel for the type.
    const ARG_ROWS: bool = false;
    /// Each row's first extreme (as [`arg_extreme_row`] finds it) into
    /// `out`, -1 for an empty row (as `?int64` words where `there` is
    /// given: see `rowwise::arg_extremes_optional`), where
    /// [`Key::ARG_ROWS`]; nothing
    /// written otherwise.
    fn arg_rows(_xs: &[Self], _offsets: &[i64], _max: bool, _there: Option<i64>, _out: &mut [i64]) {
    }
    /// Sorts `v` in [`Key::order`], not necessarily stably (for values,
    /// where only equal values could swap).
    fn sort_values(v: &mut [Self]) {
        v.sort_unstable_by(|a, b| a.order(b));
    }
    /// Whether `self` takes the place of `best` in a scan for the largest
    /// (`MAX`) or smallest element: a better number, or the first NaN
    /// (which nothing takes the place of).
    #[inline(always)]
    fn beats<const MAX: bool>(self, best: Self) -> bool {
        if self.nan() || best.nan() {
            return !best.nan();
        }
        if MAX {
            self > best
        } else {
            self < best
        }
    }
}

macro_rules! int_key {
    ($($t:ty),*; $($fast:ty),*) => {$(
        impl Key for $t {
            fn sort_values(v: &mut [Self]) {
                v.sort_unstable();
            }
        }
    )*$(
        impl Key for $fast {
            fn sort_values(v: &mut [Self]) {
                v.sort_unstable();
            }
            const ARG_ROWS: bool = true;
            fn arg_rows(xs: &[Self], offsets: &[i64], max: bool, there: Option<i64>, out: &mut [i64]) {
                match there {
                    None => rowwise::arg_extremes(xs, offsets, max, out),
                    Some(t) => rowwise::arg_extremes_optional(xs, offsets, max, t, out),
                }
            }
        }
    )*};
}
int_key!(bool, i8, i16, i128, u8, u16, u128; i32, i64, u32, u64);

macro_rules! float_key {
    ($($t:ty),*) => {$(
        impl Key for $t {
            #[inline(always)]
            fn nan(self) -> bool {
                self.is_nan()
            }
            #[inline(always)]
            #[allow(clippy::neg_cmp_op_on_partial_ord)]
            fn beats<const MAX: bool>(self, best: Self) -> bool {
                // Branch-free: a NaN `self` passes the negated compare, a
                // NaN `best` fails `best == best`.
                #[allow(clippy::eq_op)]
                let number = best == best;
                number && if MAX { !(self <= best) } else { !(self >= best) }
            }
            #[inline(always)]
            fn same(&self, o: &Self) -> bool {
                self == o || (self.is_nan() && o.is_nan())
            }
            const ARG_ROWS: bool = true;
            fn arg_rows(xs: &[Self], offsets: &[i64], max: bool, there: Option<i64>, out: &mut [i64]) {
                match there {
                    None => rowwise::arg_extremes(xs, offsets, max, out),
                    Some(t) => rowwise::arg_extremes_optional(xs, offsets, max, t, out),
                }
            }
            fn sort_values(v: &mut [Self]) {
                // The NaNs to the end (when there are any), the numbers by
                // the branch-free total order (-0 before 0: equal under
                // `order`, so still sorted).
                let mut numbers = v.len();
                if v.iter().any(|x| x.is_nan()) {
                    numbers = 0;
                    for k in 0..v.len() {
                        if !v[k].is_nan() {
                            v.swap(numbers, k);
                            numbers += 1;
                        }
                    }
                }
                v[..numbers].sort_unstable_by(<$t>::total_cmp);
            }
        }
    )*};
}
float_key!(f32, f64);
impl Key for F16 {
    fn nan(self) -> bool {
        self.to_f32().is_nan()
    }
    fn order(&self, o: &Self) -> Ordering {
        self.to_f32().order(&o.to_f32())
    }
}

/// A dense array's elements in C order, for the typed passes below: the
/// array's own memory when it is C-contiguous, else a copy.
pub(crate) fn values<T: Element>(x: &Array) -> Result<std::borrow::Cow<'_, [T]>, Error> {
    Ok(match x.as_slice::<T>() {
        Ok(s) => std::borrow::Cow::Borrowed(s),
        Err(_) => std::borrow::Cow::Owned(x.to_vec::<T>()?),
    })
}

/// What needs an order, for the error without one.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Needs {
    /// `argmax` and `argmin`.
    Extreme,
    /// `searchsorted`.
    Search,
    /// Sorting and `unique`.
    Sort,
}

/// The data type's scalar, for an ordered one (not complex, text or NA).
pub(crate) fn ordered_scalar(x: &Array, needs: Needs) -> Result<Scalar, Error> {
    x.dtype()
        .as_scalar()
        .filter(|s| {
            !matches!(
                s,
                Scalar::Complex64 | Scalar::Complex128 | Scalar::String | Scalar::Bytes
            )
        })
        .ok_or_else(|| Error::Unsupported {
            // The hint names only what applies: NA data can be filled.
            operation: match (needs, na_data(x)) {
                (Needs::Extreme, true) => "argmax/argmin of NA data (fill_na first)",
                (Needs::Extreme, false) => "argmax/argmin of this data type (it has no order)",
                (Needs::Search, true) => "searchsorted of NA data (fill_na first)",
                (Needs::Search, false) => "searchsorted of this data type (it has no order)",
                (Needs::Sort, true) => "ordering NA data (fill_na first)",
                (Needs::Sort, false) => "ordering this data type (it has no order)",
            },
            ty: x.ty().clone(),
        })
}

/// Whether `x`'s data type is `?T` (which `fill_na` makes plain).
pub(crate) fn na_data(x: &Array) -> bool {
    matches!(x.dtype().kind(), dynd_types::TypeKind::Option(_))
}

/// The first index of the largest (`max`) or smallest element, NaN
/// winning at its first place; `None` for no elements. One pass in blocks
/// whose extreme is found by a loop the compiler vectorises; a block is
/// scanned again only when it holds a new extreme or a NaN.
pub(crate) fn arg_extreme<T: Key>(xs: &[T], max: bool) -> Option<usize> {
    const BLOCK: usize = 512;
    let first = *xs.first()?;
    if first.nan() {
        return Some(0);
    }
    let better = |a: T, b: T| if max { a > b } else { a < b };
    let (mut best, mut at) = (first, 0);
    for (b, block) in xs.chunks(BLOCK).enumerate() {
        let mut m = block[0];
        let mut nan = false;
        for &x in block {
            // Branch-free: a select the vectoriser turns into max/min.
            m = if better(x, m) { x } else { m };
            nan |= x.nan();
        }
        if nan {
            // The first NaN wins over every number.
            return Some(b * BLOCK + block.iter().position(|x| x.nan()).unwrap_or(0));
        }
        if better(m, best) {
            best = m;
            at = b * BLOCK
                + block
                    .iter()
                    .position(|&x| !better(m, x) && !better(x, m))
                    .unwrap_or(0);
        }
    }
    Some(at)
}

/// Sorts `idx` (positions in `row`) stably by their elements, NaN last.
pub(crate) fn sort_indexes<I: Copy + TryInto<usize>, T: Key>(
    idx: &mut [I],
    row: &[T],
    ascending: bool,
) {
    let at = |i: I| row[i.try_into().unwrap_or(0)];
    idx.sort_by(|&a, &b| {
        let (x, y) = (at(a), at(b));
        let c = x.order(&y);
        if ascending || x.nan() || y.nan() {
            c
        } else {
            c.reverse()
        }
    });
}

/// Whether an element is not zero (`false` is zero; NaN is not).
pub(crate) trait NonZero: Element + Copy {
    fn nonzero(self) -> bool;
}
macro_rules! nonzero_num {
    ($($t:ty),*) => {$(
        impl NonZero for $t {
            #[inline(always)]
            #[allow(clippy::float_cmp)]
            fn nonzero(self) -> bool { self != (0 as $t) }
        }
    )*};
}
nonzero_num!(i8, i16, i32, i64, i128, u8, u16, u32, u64, u128, f32, f64);
impl NonZero for bool {
    fn nonzero(self) -> bool {
        self
    }
}
impl NonZero for F16 {
    fn nonzero(self) -> bool {
        self.0 & 0x7fff != 0
    }
}
impl NonZero for Complex<f32> {
    fn nonzero(self) -> bool {
        self.re.nonzero() || self.im.nonzero()
    }
}
impl NonZero for Complex<f64> {
    fn nonzero(self) -> bool {
        self.re.nonzero() || self.im.nonzero()
    }
}

/// The first index of the largest (`MAX`) or smallest element of a row,
/// the first NaN winning; `None` for an empty row. One pass, for the
/// short rows of ragged arrays (long ones go to [`arg_extreme`]).
#[inline]
pub(crate) fn arg_extreme_row<T: Key, const MAX: bool>(row: &[T]) -> Option<usize> {
    if row.len() > 256 {
        return arg_extreme(row, MAX);
    }
    let (&first, rest) = row.split_first()?;
    let (mut best, mut at) = (first, 0);
    for (i, &x) in rest.iter().enumerate() {
        if x.beats::<MAX>(best) {
            best = x;
            at = i + 1;
        }
    }
    Some(at)
}
