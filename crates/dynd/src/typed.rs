//! Typed entry points over the builtin registry: free functions
//! (`func::add(&a, &b)`, `func::sin(&a)`) and reduction methods on arrays
//! ([`ArrayExt`]: `a.sum()`, `a.mean_axis(1)`, `a.max_with(&opts)`).
//!
//! Each is the builtin of the same name, looked up once and held; calling
//! it is calling the builtin (`builtins::get(name)?.call(...)`), with the
//! same types, broadcasting, ragged rows and errors.

use dynd_array::expr::Expr;
use dynd_array::Array;
use dynd_arrfunc::{builtins, Axes, AxisOptions, Callable, Eval};
use dynd_types::Error;

/// The typed free functions of the builtins (`func::add(&a, &b)`,
/// `func::sin(&a)`, `func::fill_na(&a, &v)`), one per builtin its table
/// marks, made from the builtins' tables (`dynd_arrfunc::__elementwise_builtins!`
/// and the others call this with each entry): adding a builtin there adds
/// its function here.
macro_rules! builtin_fns {
    ($(($fname:ident, $handle:ident, $arity:tt))*) => {
        $($crate::typed::builtin_fn!($fname, $handle, $arity);)*
    };
}

/// One typed function, by the builtin's table entry (see the
/// `builtins!` table's docs): elementwise of 1, 2 or 3 arrays, `f1`/`f2`
/// for other builtins of one or two arrays, `axes` for those that take
/// `AxisOptions`, the hand-written function re-exported for `rs`; none
/// for `_`.
macro_rules! builtin_fn {
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
    ($fname:ident, $handle:ident, 3) => {
        #[doc = concat!("The builtin `", stringify!($fname), "` of three arrays, elementwise with broadcasting (see [`builtins::", stringify!($handle), "`](crate::func::builtins::", stringify!($handle), ") for its signatures).")]
        ///
        /// # Errors
        ///
        /// As [`Callable::call`](crate::func::Callable::call): no overload
        /// for the types, shapes that do not broadcast.
        pub fn $fname(
            a: &$crate::nd::Array,
            b: &$crate::nd::Array,
            c: &$crate::nd::Array,
        ) -> Result<$crate::nd::Array, $crate::Error> {
            $crate::func::builtins::$handle.call(&[a, b, c])
        }
    };
    ($fname:ident, $handle:ident, f1) => {
        #[doc = concat!("The builtin `", stringify!($fname), "` (see [`builtins::", stringify!($handle), "`](crate::func::builtins::", stringify!($handle), ") for what it does and its signatures).")]
        ///
        /// # Errors
        ///
        /// As [`Callable::call`](crate::func::Callable::call): no overload
        /// for the type.
        pub fn $fname(a: &$crate::nd::Array) -> Result<$crate::nd::Array, $crate::Error> {
            $crate::func::builtins::$handle.call(&[a])
        }
    };
    ($fname:ident, $handle:ident, f2) => {
        #[doc = concat!("The builtin `", stringify!($fname), "` of two arrays (see [`builtins::", stringify!($handle), "`](crate::func::builtins::", stringify!($handle), ") for what it does and its signatures).")]
        ///
        /// # Errors
        ///
        /// As [`Callable::call`](crate::func::Callable::call): no overload
        /// for the types, shapes that do not broadcast.
        pub fn $fname(
            a: &$crate::nd::Array,
            b: &$crate::nd::Array,
        ) -> Result<$crate::nd::Array, $crate::Error> {
            $crate::func::builtins::$handle.call(&[a, b])
        }
    };
    ($fname:ident, $handle:ident, axes) => {
        #[doc = concat!("The builtin `", stringify!($fname), "` over the axes and with the keywords of `options` (`&AxisOptions::new()` for every axis; see [`builtins::", stringify!($handle), "`](crate::func::builtins::", stringify!($handle), ")).")]
        ///
        /// # Errors
        ///
        /// As the builtin: a type it does not take, an axis out of range, a
        /// keyword it does not take.
        pub fn $fname(
            a: &$crate::nd::Array,
            options: &$crate::func::AxisOptions,
        ) -> Result<$crate::nd::Array, $crate::Error> {
            $crate::func::builtins::$handle.callable().reduce_with(a, options)
        }
    };
    ($fname:ident, $handle:ident, rs) => {
        #[doc(inline)]
        pub use dynd_arrfunc::$fname;
    };
    ($fname:ident, $handle:ident, $other:tt) => {};
}

pub(crate) use {builtin_fn, builtin_fns};

macro_rules! reductions {
    (
        $(($name:ident, $axis:ident, $with:ident, $handle:ident, $doc:literal),)*;
        trait { $($decl:tt)* }
        impl { $($imp:tt)* }
    ) => {
        /// Reductions as methods of [`Array`] (in the prelude): each is the
        /// builtin of its name, over every axis (`sum`), some axes
        /// (`sum_axis(1)`, `sum_axis([0, 1])`) or with all its keywords
        /// (`sum_with(&AxisOptions::new()...)`).
        ///
        /// ```
        /// use dynd::prelude::*;
        ///
        /// let x = nd::array![[1.0, 2.0, 6.0], [4.0], []];
        /// assert_eq!(x.sum()?.to_string(), "13");
        /// assert_eq!(x.sum_axis(1)?.to_string(), "[9, 4, 0]");
        /// assert_eq!(x.count_axis(1)?.to_string(), "[3, 1, 0]");
        /// assert_eq!(x.mean_axis(-1)?.to_string(), "[3, 4, null]"); // `?float64`: NA for the empty row
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
                fn $with(&self, options: &AxisOptions) -> Result<Array, Error>;
            )*
            $($decl)*
        }

        impl ArrayExt for Array {
            $(
                fn $name(&self) -> Result<Array, Error> {
                    builtins::$handle.call(&[self])
                }

                fn $axis(&self, axes: impl Into<Axes>) -> Result<Array, Error> {
                    builtins::$handle.callable().reduce_with(self, &AxisOptions::new().axis(axes))
                }

                fn $with(&self, options: &AxisOptions) -> Result<Array, Error> {
                    builtins::$handle.callable().reduce_with(self, options)
                }
            )*
            $($imp)*
        }
    };
}

/// The reduction methods of [`ArrayExt`], from the reductions' table
/// (`dynd_arrfunc::__reduction_builtins!` calls this with every entry; those
/// marked `(method NAME_axis NAME_with "what")` become three methods each),
/// and the methods written here beside them.
macro_rules! reduction_methods {
    (@ [$($m:tt)*] ($fname:ident, $handle:ident, (method $axis:ident $with:ident $doc:literal)) $($rest:tt)*) => {
        $crate::typed::reduction_methods!(@ [$($m)* ($fname, $axis, $with, $handle, $doc),] $($rest)*);
    };
    (@ [$($m:tt)*] ($fname:ident, $handle:ident, $other:tt) $($rest:tt)*) => {
        $crate::typed::reduction_methods!(@ [$($m)*] $($rest)*);
    };
    (@ [$($m:tt)*]) => {
        reductions!(
            $($m)*;
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

                /// A sorted copy, along `axis` (the builtin `sort`: ascending, NaN
                /// last; ragged rows each on their own).
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

                /// Each distinct value with its count, most frequent first
                /// (the builtin `value_counts`: `K * {value: T, count:
                /// int64}`, equal counts in ascending value order, NA counted).
                ///
                /// ```
                /// use dynd::prelude::*;
                ///
                /// let x = nd::array!["b", "a", "b"];
                /// assert_eq!(x.value_counts()?.field("count")?.to_string(), "[2, 1]");
                /// # Ok::<(), Box<dyn std::error::Error>>(())
                /// ```
                ///
                /// # Errors
                ///
                /// Not one fixed dimension; values without an order.
                fn value_counts(&self) -> Result<Array, Error>;

                /// These values grouped by `keys` (the builtin `groupby`): one
                /// ragged row per distinct key, keys ascending, NA last.
                ///
                /// ```
                /// use dynd::prelude::*;
                ///
                /// let v = nd::array![1.0, 2.0, 4.0];
                /// assert_eq!(v.groupby(&nd::array!["y", "x", "y"])?.to_string(), "[[2], [1, 4]]");
                /// # Ok::<(), Box<dyn std::error::Error>>(())
                /// ```
                ///
                /// # Errors
                ///
                /// As [`groupby`](crate::func::groupby).
                fn groupby(&self, keys: &Array) -> Result<Array, Error>;

                /// The flat index (C order) of the largest element: the first of
                /// equal maxima, the first NaN if any (NumPy's `argmax`; see
                /// [`func::argmax`](crate::func::argmax)).
                ///
                /// ```
                /// use dynd::prelude::*;
                ///
                /// let x = nd::array![[3.0, 9.0, 1.0], [9.0, 2.0, 7.0]];
                /// assert_eq!(x.argmax()?.to_string(), "1");
                /// assert_eq!(x.argmax_axis(1)?.to_string(), "[1, 0]");
                /// assert_eq!(x.argmin_axis(0)?.to_string(), "[0, 1, 0]");
                /// # Ok::<(), Box<dyn std::error::Error>>(())
                /// ```
                ///
                /// # Errors
                ///
                /// An empty array, a type without an order. (Over `var`
                /// dimensions the index is flat, in C order over the values.)
                fn argmax(&self) -> Result<Array, Error>;

                /// The index of the largest element along `axis` (negative from the
                /// last), that axis removed.
                ///
                /// # Errors
                ///
                /// As [`argmax`](ArrayExt::argmax), and an axis out of range.
                fn argmax_axis(&self, axis: impl TryInto<i64>) -> Result<Array, Error>;

                /// The flat index of the smallest element (NumPy's `argmin`).
                ///
                /// # Errors
                ///
                /// As [`argmax`](ArrayExt::argmax).
                fn argmin(&self) -> Result<Array, Error>;

                /// The index of the smallest element along `axis`.
                ///
                /// # Errors
                ///
                /// As [`argmax_axis`](ArrayExt::argmax_axis).
                fn argmin_axis(&self, axis: impl TryInto<i64>) -> Result<Array, Error>;

                /// The indexes that sort the array along `axis`, ascending, stable,
                /// NaN last (NumPy's `argsort`).
                ///
                /// ```
                /// use dynd::prelude::*;
                ///
                /// let x = nd::array![3, 1, 2, 1];
                /// assert_eq!(x.argsort(-1)?.to_string(), "[1, 3, 2, 0]");
                /// # Ok::<(), Box<dyn std::error::Error>>(())
                /// ```
                ///
                /// # Errors
                ///
                /// As [`argmax_axis`](ArrayExt::argmax_axis).
                fn argsort(&self, axis: impl TryInto<i64>) -> Result<Array, Error>;

                /// The distinct values, sorted, over every element (NumPy's
                /// `unique`; [`func::unique_counts`](crate::func::unique_counts)
                /// also counts them).
                ///
                /// ```
                /// use dynd::prelude::*;
                ///
                /// assert_eq!(nd::array![[2, 1], [2, 5]].unique()?.to_string(), "[1, 2, 5]");
                /// # Ok::<(), Box<dyn std::error::Error>>(())
                /// ```
                ///
                /// # Errors
                ///
                /// A type without an order. (`var` dimensions are flattened, as
                /// NumPy's `unique` flattens.)
                fn unique(&self) -> Result<Array, Error>;

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
                    builtins::CUMSUM.callable().reduce_with(self, &AxisOptions::new().axis(axis_value(axis)))
                }

                fn cumprod(&self, axis: impl TryInto<i64>) -> Result<Array, Error> {
                    builtins::CUMPROD.callable().reduce_with(self, &AxisOptions::new().axis(axis_value(axis)))
                }

                fn accumulate(&self, op: &Callable, axis: impl TryInto<i64>) -> Result<Array, Error> {
                    op.accumulate()?.reduce_with(self, &AxisOptions::new().axis(axis_value(axis)))
                }

                fn sorted(&self, axis: impl TryInto<i64>) -> Result<Array, Error> {
                    dynd_arrfunc::sort(self, axis_value(axis), true)
                }

                fn value_counts(&self) -> Result<Array, Error> {
                    dynd_arrfunc::value_counts(self)
                }

                fn groupby(&self, keys: &Array) -> Result<Array, Error> {
                    dynd_arrfunc::groupby(self, keys)
                }

                fn argmax(&self) -> Result<Array, Error> {
                    dynd_arrfunc::argmax(self, None, false)
                }

                fn argmax_axis(&self, axis: impl TryInto<i64>) -> Result<Array, Error> {
                    dynd_arrfunc::argmax(self, Some(axis_value(axis)), false)
                }

                fn argmin(&self) -> Result<Array, Error> {
                    dynd_arrfunc::argmin(self, None, false)
                }

                fn argmin_axis(&self, axis: impl TryInto<i64>) -> Result<Array, Error> {
                    dynd_arrfunc::argmin(self, Some(axis_value(axis)), false)
                }

                fn argsort(&self, axis: impl TryInto<i64>) -> Result<Array, Error> {
                    dynd_arrfunc::argsort(self, axis_value(axis), true)
                }

                fn unique(&self) -> Result<Array, Error> {
                    dynd_arrfunc::unique(self)
                }

                fn assign_expr(&mut self, e: &Expr<'_>) -> Result<(), Error> {
                    Eval::eval_into(e, self)
                }
            }
        );
    };
    ($($entry:tt)*) => {
        $crate::typed::reduction_methods!(@ [] $($entry)*);
    };
}

pub(crate) use reduction_methods;

/// An axis as `i64`: one past `i64::MAX` saturates, and is out of range
/// anyway.
fn axis_value(axis: impl TryInto<i64>) -> i64 {
    axis.try_into().unwrap_or(i64::MAX)
}

dynd_arrfunc::__reduction_builtins!(crate::typed::reduction_methods);
