//! Typed entry points over the builtin registry: free functions
//! (`func::add(&a, &b)`, `func::sin(&a)`) and reduction methods on arrays
//! ([`ArrayExt`]: `a.sum()`, `a.mean_axis(1)`, `a.max_with(&opts)`).
//!
//! Each is the builtin of the same name, looked up once and held; calling
//! it is calling the builtin (`builtins::get(name)?.call(...)`), with the
//! same types, broadcasting, ragged rows and errors.

use std::borrow::Cow;
use std::sync::OnceLock;

use dynd_array::expr::{Expr, ScalarOperand};
use dynd_array::Array;
use dynd_arrfunc::{builtins, Callable, Eval};
use dynd_types::Error;

/// The builtin `name`, looked up on first use.
fn handle(cell: &'static OnceLock<Callable>, name: &str) -> &'static Callable {
    cell.get_or_init(|| {
        builtins::get(name).unwrap_or_else(|e| unreachable!("{name} is a builtin: {e}"))
    })
}

/// The typed free functions of the elementwise builtins (`func::add(&a,
/// &b)`, `func::sin(&a)`), one per builtin of one or two arrays, made from
/// the builtins' table (`dynd_arrfunc::__elementwise_builtins!` calls this
/// with each entry): adding a builtin there adds its function here.
macro_rules! elementwise_fns {
    ($(($fname:ident, $handle:ident, $arity:tt))*) => {
        $($crate::typed::elementwise_fn!($fname, $handle, $arity);)*
    };
}

/// One typed function, by the builtin's arity (none for three arrays or
/// core-dimension builtins, which go through the builtin's handle).
macro_rules! elementwise_fn {
    ($fname:ident, $handle:ident, 1) => {
        #[doc = concat!("The builtin `", stringify!($fname), "` of each element (see [`builtins::", stringify!($handle), "`](crate::func::builtins::", stringify!($handle), ") for its signatures).")]
        ///
        /// # Errors
        ///
        /// As [`Callable::call`](crate::func::Callable::call): no overload
        /// for the type.
        pub fn $fname(a: &$crate::nd::Array) -> Result<$crate::nd::Array, $crate::Error> {
            $crate::func::builtins::$handle.call(&[a])
        }
    };
    ($fname:ident, $handle:ident, 2) => {
        #[doc = concat!("The builtin `", stringify!($fname), "` of two arrays, elementwise with broadcasting (see [`builtins::", stringify!($handle), "`](crate::func::builtins::", stringify!($handle), ") for its signatures).")]
        ///
        /// # Errors
        ///
        /// As [`Callable::call`](crate::func::Callable::call): no overload
        /// for the types, shapes that do not broadcast, a value that does
        /// not fit.
        pub fn $fname(
            a: &$crate::nd::Array,
            b: &$crate::nd::Array,
        ) -> Result<$crate::nd::Array, $crate::Error> {
            $crate::func::builtins::$handle.call(&[a, b])
        }
    };
    ($fname:ident, $handle:ident, $other:tt) => {};
}

pub(crate) use {elementwise_fn, elementwise_fns};

/// The axes a reduction runs over: one (`1`, `-1`, `1usize`) or several
/// (`[0, 1]`, `&[0usize, 2][..]`, `vec![0, 1]`). Negative axes count from
/// the last.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Axes(AxesRepr);

/// One axis without an allocation, or several.
#[derive(Clone, Debug, PartialEq, Eq)]
enum AxesRepr {
    One(i64),
    Many(Vec<i64>),
}

impl Axes {
    /// The axes, as given.
    pub fn as_slice(&self) -> &[i64] {
        match &self.0 {
            AxesRepr::One(a) => std::slice::from_ref(a),
            AxesRepr::Many(v) => v,
        }
    }

    fn to_array(&self) -> Cow<'static, Array> {
        match &self.0 {
            AxesRepr::One(a) => axis_array(*a),
            AxesRepr::Many(v) => Cow::Owned(Array::from_vec(v.clone())),
        }
    }
}

macro_rules! axes_from {
    ($($t:ty),*) => {$(
        impl From<$t> for Axes {
            fn from(axis: $t) -> Axes {
                // Axes are far below 2^63: a larger one is out of range
                // anyway, and saturating keeps it so.
                Axes(AxesRepr::One(i64::try_from(axis).unwrap_or(i64::MAX)))
            }
        }
        impl From<&[$t]> for Axes {
            fn from(axes: &[$t]) -> Axes {
                Axes(AxesRepr::Many(
                    axes.iter().map(|&a| i64::try_from(a).unwrap_or(i64::MAX)).collect(),
                ))
            }
        }
        impl<const N: usize> From<[$t; N]> for Axes {
            fn from(axes: [$t; N]) -> Axes {
                Axes::from(&axes[..])
            }
        }
        impl From<Vec<$t>> for Axes {
            fn from(axes: Vec<$t>) -> Axes {
                Axes::from(&axes[..])
            }
        }
    )*};
}
axes_from!(i64, i32, isize, usize, u32);

/// The keywords of a reduction, built up: `axis`, `keepdims`, `initial`,
/// `where`, `ddof` and `skip_na` (see the builtins' docs for what each does; a
/// builtin refuses a keyword it does not take, naming it).
///
/// ```
/// use dynd::prelude::*;
///
/// let a = nd::array![[1.0, 5.0], [], [3.0]];
/// let opts = ReduceOptions::new().axis(1).keepdims(true).initial(0.0);
/// assert_eq!(a.max_with(&opts)?.to_string(), "[[5], [0], [3]]");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default)]
pub struct ReduceOptions {
    axis: Option<Axes>,
    keepdims: bool,
    initial: Option<Array>,
    mask: Option<Array>,
    ddof: Option<Array>,
    skip_na: bool,
}

impl ReduceOptions {
    /// Every axis, no kept dimensions, no initial value, no mask.
    pub fn new() -> ReduceOptions {
        ReduceOptions::default()
    }

    /// Reduce over these axes only.
    pub fn axis(mut self, axes: impl Into<Axes>) -> ReduceOptions {
        self.axis = Some(axes.into());
        self
    }

    /// Keep each reduced axis as a dimension of size 1, so the result
    /// broadcasts against the input.
    pub fn keepdims(mut self, keep: bool) -> ReduceOptions {
        self.keepdims = keep;
        self
    }

    /// Start from this value (`sum`, `prod`, `min`, `max`: the value of an
    /// empty reduction).
    pub fn initial(mut self, value: impl ScalarOperand) -> ReduceOptions {
        self.initial = Some(Array::from_scalar(value));
        self
    }

    /// Only the elements where this `bool` array (broadcast to the input)
    /// is true.
    pub fn mask(mut self, mask: &Array) -> ReduceOptions {
        self.mask = Some(mask.clone());
        self
    }

    /// Divide by `n - ddof` (`var` and `std` only; 0 by default, 1 for
    /// the unbiased sample variance).
    pub fn ddof(mut self, ddof: usize) -> ReduceOptions {
        self.ddof = Some(Array::from_scalar(ddof as i64));
        self
    }

    /// Leave NA elements of an option array (`?T`) out, rather than make
    /// the result NA where a group holds one (the default, as arithmetic
    /// propagates NA). Not for `count`, which counts the non-NA elements
    /// anyway.
    ///
    /// ```
    /// use dynd::prelude::*;
    ///
    /// let x = nd::Array::from_json("[[1, null], [2, 3], [null]]", Some(&"3 * var * ?float64".parse()?))?;
    /// assert_eq!(x.sum_axis(1)?.to_string(), "[null, 5, null]");
    /// let skip = ReduceOptions::new().axis(1).skip_na(true);
    /// assert_eq!(x.sum_with(&skip)?.to_string(), "[1, 5, 0]");
    /// assert_eq!(x.mean_with(&skip)?.to_string(), "[1, 2.5, null]");
    /// assert_eq!(x.count_axis(1)?.to_string(), "[1, 2, 0]");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn skip_na(mut self, skip: bool) -> ReduceOptions {
        self.skip_na = skip;
        self
    }

    fn call(&self, f: &Callable, a: &Array) -> Result<Array, Error> {
        let axis = self.axis.as_ref().map(Axes::to_array);
        let keep = self.keepdims.then(|| Array::from_scalar(true));
        let mut kw: Vec<(&str, &Array)> = Vec::with_capacity(4);
        if let Some(axis) = &axis {
            kw.push(("axis", axis));
        }
        if let Some(keep) = &keep {
            kw.push(("keepdims", keep));
        }
        if let Some(initial) = &self.initial {
            kw.push(("initial", initial));
        }
        if let Some(mask) = &self.mask {
            kw.push(("where", mask));
        }
        if let Some(ddof) = &self.ddof {
            kw.push(("ddof", ddof));
        }
        let skip = self.skip_na.then(|| Array::from_scalar(true));
        if let Some(skip) = &skip {
            kw.push(("skip_na", skip));
        }
        f.call_kw(&[a], &kw)
    }
}

macro_rules! reductions {
    (
        $(($name:ident, $axis:ident, $with:ident, $doc:literal)),* $(,)?;
        trait { $($decl:tt)* }
        impl { $($imp:tt)* }
    ) => {
        /// Reductions as methods of [`Array`] (in the prelude): each is the
        /// builtin of its name, over every axis (`sum`), some axes
        /// (`sum_axis(1)`, `sum_axis([0, 1])`) or with all its keywords
        /// (`sum_with(&ReduceOptions::new()...)`).
        ///
        /// ```
        /// use dynd::prelude::*;
        ///
        /// let x = nd::array![[1.0, 2.0, 6.0], [4.0], []];
        /// assert_eq!(x.sum()?.to_string(), "13");
        /// assert_eq!(x.sum_axis(1)?.to_string(), "[9, 4, 0]");
        /// assert_eq!(x.count_axis(1)?.to_string(), "[3, 1, 0]");
        /// assert_eq!(x.mean_axis(-1)?.to_string(), "[3, 4, NaN]");
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub trait ArrayExt {
            $(
                #[doc = concat!("The ", $doc, " of every element (the builtin `", stringify!($name), "`).")]
                ///
                /// # Errors
                ///
                /// As the builtin: a type it does not take, an empty
                /// reduction with no initial value where one is needed.
                fn $name(&self) -> Result<Array, Error>;

                #[doc = concat!("The ", $doc, " over `axes` (an axis or several; negative from the last).")]
                ///
                /// # Errors
                ///
                /// As the builtin, and an axis out of range.
                fn $axis(&self, axes: impl Into<Axes>) -> Result<Array, Error>;

                #[doc = concat!("The ", $doc, " with every keyword of the builtin.")]
                ///
                /// # Errors
                ///
                /// As the builtin, naming a keyword it does not take.
                fn $with(&self, options: &ReduceOptions) -> Result<Array, Error>;
            )*
            $($decl)*
        }

        impl ArrayExt for Array {
            $(
                fn $name(&self) -> Result<Array, Error> {
                    static CELL: OnceLock<Callable> = OnceLock::new();
                    handle(&CELL, stringify!($name)).call(&[self])
                }

                fn $axis(&self, axes: impl Into<Axes>) -> Result<Array, Error> {
                    static CELL: OnceLock<Callable> = OnceLock::new();
                    let axis = axes.into().to_array();
                    handle(&CELL, stringify!($name)).call_kw(&[self], &[("axis", &axis)])
                }

                fn $with(&self, options: &ReduceOptions) -> Result<Array, Error> {
                    static CELL: OnceLock<Callable> = OnceLock::new();
                    options.call(handle(&CELL, stringify!($name)), self)
                }
            )*
            $($imp)*
        }
    };
}

reductions!(
    (sum, sum_axis, sum_with, "sum"),
    (prod, prod_axis, prod_with, "product"),
    (mean, mean_axis, mean_with, "mean"),
    (min, min_axis, min_with, "minimum"),
    (max, max_axis, max_with, "maximum"),
    (
        var,
        var_axis,
        var_with,
        "variance (two-pass; divided by `n - ddof`, `ddof` 0 unless set in the options)"
    ),
    (
        std,
        std_axis,
        std_with,
        "standard deviation (the square root of the variance)"
    ),
    (count, count_axis, count_with, "number of elements"),
    (all, all_axis, all_with, "logical and"),
    (any, any_axis, any_with, "logical or");
    trait {
        /// The running sums along `axis` (the builtin `cumsum`; negative
        /// from the last; along a `var` dimension, each ragged row).
        ///
        /// ```
        /// use dynd::prelude::*;
        ///
        /// let x = nd::array![[1, 2, 3], [4], [5, 6]];
        /// assert_eq!(x.cumsum(1)?.to_string(), "[[1, 3, 6], [4], [5, 11]]");
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        ///
        /// # Errors
        ///
        /// As the builtin: a type it does not take, an axis out of range,
        /// a fixed axis over `var` dimensions.
        fn cumsum(&self, axis: impl TryInto<i64>) -> Result<Array, Error>;

        /// The running products along `axis` (the builtin `cumprod`).
        ///
        /// # Errors
        ///
        /// As [`cumsum`](ArrayExt::cumsum).
        fn cumprod(&self, axis: impl TryInto<i64>) -> Result<Array, Error>;

        /// The scan of an associative binary callable along `axis` (its
        /// `accumulate`): element `i` combines elements `0..=i` in order.
        ///
        /// ```
        /// use dynd::prelude::*;
        ///
        /// let x = nd::array![[3, 1, 4, 1, 5], [9, 2, 6]];
        /// let running_max = x.accumulate(&builtins::get("maximum")?, -1)?;
        /// assert_eq!(running_max.to_string(), "[[3, 3, 4, 4, 5], [9, 9, 9]]");
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        ///
        /// # Errors
        ///
        /// A callable not declared associative; as
        /// [`Callable::accumulate`] otherwise.
        fn accumulate(&self, op: &Callable, axis: impl TryInto<i64>) -> Result<Array, Error>;

        /// A sorted copy, along `axis` (the builtin `sorted`: stable,
        /// ascending, NaN last; ragged rows each on their own).
        /// [`ArrayOps::sort`](crate::nd::ArrayOps::sort) sorts in place.
        ///
        /// ```
        /// use dynd::prelude::*;
        ///
        /// let x = nd::array![[3.0, 1.0, 2.0], [0.5]];
        /// assert_eq!(x.sorted(-1)?.to_string(), "[[1, 2, 3], [0.5]]");
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        ///
        /// # Errors
        ///
        /// As the builtin: a type without an order (complex, strings,
        /// structures), an axis out of range.
        fn sorted(&self, axis: impl TryInto<i64>) -> Result<Array, Error>;

        /// Writes the value of expression `e` into this array, fused (as
        /// [`Eval::eval_into`](crate::func::Eval::eval_into): the type
        /// must be the result's, or dimensions it broadcasts to with its
        /// data type). When a leaf reads this array's memory
        /// (`a = a[::-1] + 1`), the result is that of evaluating into a
        /// temporary first: this array gets memory of its own before it is
        /// written, and the leaf keeps reading the old values.
        ///
        /// ```
        /// use dynd::prelude::*;
        ///
        /// let mut a = nd::array![1.0, 2.0, 3.0];
        /// let reversed = a.index(&[nd::Index::slice(None, None, -1)])?;
        /// a.assign_expr(&(&reversed + 1.0))?;
        /// assert_eq!(a.to_string(), "[4, 3, 2]");
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        ///
        /// # Errors
        ///
        /// As [`Eval::eval_into`](crate::func::Eval::eval_into).
        fn assign_expr(&mut self, e: &Expr<'_>) -> Result<(), Error>;
    }
    impl {
        fn cumsum(&self, axis: impl TryInto<i64>) -> Result<Array, Error> {
            static CELL: OnceLock<Callable> = OnceLock::new();
            let axis = axis_array(axis_value(axis));
            handle(&CELL, "cumsum").call_kw(&[self], &[("axis", &axis)])
        }

        fn cumprod(&self, axis: impl TryInto<i64>) -> Result<Array, Error> {
            static CELL: OnceLock<Callable> = OnceLock::new();
            let axis = axis_array(axis_value(axis));
            handle(&CELL, "cumprod").call_kw(&[self], &[("axis", &axis)])
        }

        fn accumulate(&self, op: &Callable, axis: impl TryInto<i64>) -> Result<Array, Error> {
            let axis = axis_array(axis_value(axis));
            op.accumulate()?.call_kw(&[self], &[("axis", &axis)])
        }

        fn sorted(&self, axis: impl TryInto<i64>) -> Result<Array, Error> {
            static CELL: OnceLock<Callable> = OnceLock::new();
            let axis = axis_array(axis_value(axis));
            handle(&CELL, "sorted").call_kw(&[self], &[("axis", &axis)])
        }

        fn assign_expr(&mut self, e: &Expr<'_>) -> Result<(), Error> {
            Eval::eval_into(e, self)
        }
    }
);

/// The 0-d `int64` array of an axis: for the axes arrays have (-32 to
/// 31), one made once and lent, so a method call neither allocates nor
/// counts references for its keyword.
fn axis_array(axis: i64) -> Cow<'static, Array> {
    const LOW: i64 = -32;
    static CACHE: [OnceLock<Array>; 64] = [const { OnceLock::new() }; 64];
    match axis
        .checked_sub(LOW)
        .and_then(|i| usize::try_from(i).ok())
        .and_then(|i| CACHE.get(i))
    {
        Some(cell) => Cow::Borrowed(cell.get_or_init(|| Array::from_scalar(axis))),
        None => Cow::Owned(Array::from_scalar(axis)),
    }
}

/// An axis as `i64`: one past `i64::MAX` saturates, and is out of range
/// anyway.
fn axis_value(axis: impl TryInto<i64>) -> i64 {
    axis.try_into().unwrap_or(i64::MAX)
}
