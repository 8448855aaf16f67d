//! [`ArrayOps`]: the operations on an [`Array`] that run kernels.
//!
//! The data layer (`dynd-array`) makes arrays and views of them; anything
//! that converts, copies, sorts, gathers or writes values runs a kernel
//! and lives in this crate. Those operations are methods of one extension
//! trait, in the facade's prelude, so they read as methods:
//!
//! ```
//! use dynd::prelude::*;
//!
//! let mut a = nd::array![3, 1, 2];
//! a.sort(-1, false)?;
//! let b = a.cast(&"3 * float32".parse()?, ErrorMode::Fractional)?;
//! assert_eq!(b.to_string(), "[1, 2, 3]");
//! assert_eq!(b.ty().to_string(), "3 * float32");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Each method is one call into the module that implements it
//! (`assign`, `sort`, `take`, `elwise`, `strings`, `na`); code inside this
//! crate calls those modules directly, so that no module imports this top
//! floor.

use dynd_types::Type;

use crate::elwise::{CoreLeaf, Leaf};
use crate::take::TakeMode;
use crate::{Array, Error, ErrorMode, Nested};

/// The operations on an [`Array`] that run kernels: assignment and
/// casting, sorting, `take`, writing a function's results into an
/// existing array, strings, missing values. In the facade's prelude.
pub trait ArrayOps {
    /// As [`Array::from_nested`], then converted to `ty` (checked as
    /// [`ErrorMode::Fractional`]): `var` rows of equal length into a fixed
    /// dimension, `f64` values into `float32`, and so on. The dimensions
    /// must match exactly: nothing broadcasts.
    ///
    /// ```
    /// let t = "2 * 2 * float32".parse()?;
    /// use dynd::nd::{Array, ArrayOps};
    ///
    /// let a = Array::from_nested_as(vec![vec![1.0, 2.0], vec![3.0, 4.0]], &t)?;
    /// assert_eq!(a.ty(), &t);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::FromValue`] naming the level and row whose length differs
    /// from `ty`'s fixed dimension, or a different number of dimensions;
    /// as [`ArrayOps::cast`] for values out of `ty`'s range.
    fn from_nested_as<V: Nested>(v: V, ty: &Type) -> Result<Array, Error>;

    /// Sorts this array along `axis` (negative counts from the end) in
    /// place: stable, ascending or (with `reverse`) descending, NaN last
    /// either way; floats in IEEE total order (`-0` before `0`). Shared
    /// memory is copied first, so views of the old values keep them. Along an innermost `var` axis each row is sorted.
    ///
    /// # Errors
    ///
    /// [`Error::AxisOutOfBounds`] for an axis out of range; [`Error::ReadOnly`];
    /// [`Error::Unsupported`] for data types without an order (strings,
    /// structures; complex numbers sort in NumPy's order: real parts,
    /// then imaginary, NaN parts last) and `var` dimensions other than an
    /// innermost one sorted along.
    fn sort(&mut self, axis: i64, reverse: bool) -> Result<(), Error>;

    /// The array made the only owner of memory it may write: itself where
    /// it already is, else with a copy of each block it shares or may not
    /// write (an Arrow buffer, a view of a read-only array). The values
    /// and the type are unchanged; what a function that returns a changed
    /// copy (`sort`) starts from, so that read-only input works.
    ///
    /// # Errors
    ///
    /// An allocation error for a copy.
    fn into_writable(self) -> Result<Array, Error>;

    /// Each string split at every `sep` (as Python's `str.split(sep)`: an
    /// empty string gives one empty piece), or without a `sep` at the runs
    /// of whitespace (as `str.split()`: no empty pieces, none for a blank
    /// string), in a `var` row per string. The pieces are views: they
    /// share this array's character block.
    ///
    /// # Errors
    ///
    /// [`Error::Argument`] for an empty separator; [`Error::Unsupported`] for
    /// data types other than `string` and for `var` dimensions.
    fn split_strings(&self, sep: Option<&str>) -> Result<Array, Error>;

    /// The length of each string in characters (Unicode scalar values), as
    /// `int64`.
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] for data types other than `string` and for
    /// `var` dimensions.
    fn string_lengths(&self) -> Result<Array, Error>;

    /// Assigns `src` to this array, converting under `mode` and
    /// broadcasting `src` to this array's shape. If this array shares its
    /// memory (with a clone, a view, or `src` itself), it first gets its own
    /// copy, so the result is what assigning from a temporary copy gives.
    ///
    /// # Errors
    ///
    /// [`Error::ReadOnly`]; [`Error::Broadcast`] naming the dimension; a
    /// [`Error::Kernel`] naming the element for a value that does not fit or
    /// a ragged row that does not broadcast (the array is then partly
    /// assigned: which elements were written depends on the memory order
    /// and, for large arrays, on the threads the loops ran on).
    fn assign(&mut self, src: &Array, mode: ErrorMode) -> Result<(), Error>;

    /// Assigns `src` to the part of this array that `index` selects (as
    /// [`Array::index`] would view it), writing into this array's memory:
    /// `a[1:, 0] = src`. If this array shares its memory, it first gets its
    /// own copy, so a source that is a view of this array reads the values
    /// from before the assignment.
    ///
    /// ```
    /// use dynd::nd::{array, ArrayOps, ErrorMode, Index};
    ///
    /// let mut a = array![[1, 2, 3], [4, 5, 6]];
    /// let reversed = a.index(&[Index::ALL, Index::slice(None, None, -1)])?;
    /// a.assign_at(&[Index::ALL], &reversed, ErrorMode::Fractional)?;
    /// assert_eq!(a.to_string(), "[[3, 2, 1], [6, 5, 4]]");
    /// a.assign_at(&[Index::At(1), Index::slice(Some(1), None, 1)], &array![0], ErrorMode::Fractional)?;
    /// assert_eq!(a.to_string(), "[[3, 2, 1], [6, 0, 0]]");
    /// # Ok::<(), dynd::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Array::index`] and [`ArrayOps::assign`].
    fn assign_at(
        &mut self,
        index: &[crate::Index],
        src: &Array,
        mode: ErrorMode,
    ) -> Result<(), Error>;

    /// A new array of type `ty` holding this array's values, converted
    /// under `mode` (and broadcast, if `ty` has more or size-1-stretched
    /// dimensions). `var` dimensions in `ty` take their row lengths from
    /// this array.
    ///
    /// # Errors
    ///
    /// As [`ArrayOps::assign`], and [`Error::CastVar`] if `ty` has `var`
    /// dimensions where this array does not.
    fn cast(&self, ty: &Type, mode: ErrorMode) -> Result<Array, Error>;

    /// Runs `leaf` elementwise over `srcs` (broadcast to this array's
    /// shape), writing into this array: with [`Leaf::map`], any Rust
    /// function of elements, written into an existing array.
    ///
    /// ```
    /// use dynd::func::Leaf;
    /// use dynd::nd::{array, Array, ArrayOps};
    ///
    /// let mut out = Array::zeros(&"3 * int32".parse()?)?;
    /// out.apply_into(&[&array![1.5, 2.5, 3.5]], &Leaf::map(|x: f64| x as i32 * 2))?;
    /// assert_eq!(out.to_string(), "[2, 4, 6]");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Arity`] if the number of inputs, [`Error::ArgumentType`] if
    /// their data types, [`Error::DtypeMismatch`] if this
    /// array's data type, differ from the leaf's; [`Error::Broadcast`];
    /// [`Error::ReadOnly`]; a ragged-row error naming the row.
    fn apply_into(&mut self, srcs: &[&Array], leaf: &Leaf) -> Result<(), Error>;

    /// Runs `leaf` over `srcs`' leading dimensions (broadcast to this
    /// array's leading dimensions; the core dimensions are the last ones
    /// of each), writing each result core into this array.
    ///
    /// The leaf's function sees the cores as they are; checking that the
    /// core sizes agree with each other (the signature's size variables) is
    /// the caller's, as `dynd_arrfunc`'s type resolution does.
    ///
    /// # Errors
    ///
    /// [`Error::Arity`] if the number of inputs, [`Error::ArgumentType`] if
    /// their data types, [`Error::DtypeMismatch`] if this
    /// array's data type, differ from the leaf's, or an operand has fewer
    /// dimensions than its core; [`Error::Unsupported`] for a core
    /// dimension that is not fixed; [`Error::Broadcast`] for leading
    /// dimensions; [`Error::ReadOnly`]; a ragged-row error naming the row.
    fn apply_core_into(&mut self, srcs: &[&Array], leaf: &CoreLeaf) -> Result<(), Error>;

    /// The elements along `axis` at `indices` (any integer type, any fixed
    /// shape): the result has this array's dimensions with `axis` replaced
    /// by the indices' dimensions. `axis: None` takes from the flattened
    /// array. Negative indices count from the end; `mode` says what an
    /// index outside the axis means. See the [module docs](crate::take)
    /// for when the result is a view.
    ///
    /// # Errors
    ///
    /// [`Error::TakeIndex`] for an index out of bounds under
    /// [`TakeMode::Raise`] (naming it, its position and the axis size), or
    /// any index into an empty axis; [`Error::AxisOutOfBounds`] for an axis
    /// out of range; [`Error::NeedsArray`] for indices that are not
    /// integers; [`Error::Unsupported`] for an axis that is `var` or
    /// below a `var` dimension, and for `var` indices.
    fn take(&self, indices: &Array, axis: Option<i64>, mode: TakeMode) -> Result<Array, Error>;

    /// Views of this `?S` array's values (data type `S`, zero where NA) and
    /// validity (`bool`, true where a value is present), sharing its
    /// memory; `None` when the data type is not an option of a scalar.
    fn option_parts(&self) -> Option<(Array, Array)>;

    /// The `?S` array of `values` (data type `S`) where `valid` (`bool`,
    /// the same dimensions) is true, NA elsewhere.
    ///
    /// # Errors
    ///
    /// [`Error::ArgumentType`] if `valid` is not `bool`, a broadcast error
    /// if the two do not broadcast together; [`Error::Unsupported`] for a data type that is
    /// not a number or `bool`.
    fn from_option_parts(values: &Array, valid: &Array) -> Result<Array, Error>;

    /// `bool`, true where this array is NA: all false for a data type
    /// that is not an option.
    ///
    /// # Errors
    ///
    /// [`Error::Unsupported`] for a data type other than numbers, `bool`
    /// and their options, in `var` dimensions (fixed ones give all false).
    fn is_na(&self) -> Result<Array, Error>;

    /// How many elements are NA: 0 for an array whose data type is not an
    /// option of a scalar.
    ///
    /// # Errors
    ///
    /// None for a validated array; an error from reading the validity
    /// otherwise.
    fn null_count(&self) -> Result<usize, Error>;
}

impl ArrayOps for Array {
    fn from_nested_as<V: Nested>(v: V, ty: &Type) -> Result<Array, Error> {
        crate::assign::from_nested_as(v, ty)
    }

    fn sort(&mut self, axis: i64, reverse: bool) -> Result<(), Error> {
        crate::sort::sort(self, axis, reverse)
    }

    fn into_writable(mut self) -> Result<Array, Error> {
        crate::assign::make_owned(&mut self)?;
        Ok(self)
    }

    fn split_strings(&self, sep: Option<&str>) -> Result<Array, Error> {
        crate::strings::split_strings(self, sep)
    }

    fn string_lengths(&self) -> Result<Array, Error> {
        crate::strings::string_lengths(self)
    }

    fn assign(&mut self, src: &Array, mode: ErrorMode) -> Result<(), Error> {
        crate::assign::assign(self, src, mode)
    }

    fn assign_at(
        &mut self,
        index: &[crate::Index],
        src: &Array,
        mode: ErrorMode,
    ) -> Result<(), Error> {
        crate::assign::assign_at(self, index, src, mode)
    }

    fn cast(&self, ty: &Type, mode: ErrorMode) -> Result<Array, Error> {
        crate::assign::cast(self, ty, mode)
    }

    fn apply_into(&mut self, srcs: &[&Array], leaf: &Leaf) -> Result<(), Error> {
        crate::elwise::apply_into(self, srcs, leaf)
    }

    fn apply_core_into(&mut self, srcs: &[&Array], leaf: &CoreLeaf) -> Result<(), Error> {
        crate::elwise::apply_core_into(self, srcs, leaf)
    }

    fn take(&self, indices: &Array, axis: Option<i64>, mode: TakeMode) -> Result<Array, Error> {
        crate::take::take(self, indices, axis, mode)
    }

    fn option_parts(&self) -> Option<(Array, Array)> {
        crate::na::option_parts(self)
    }

    fn from_option_parts(values: &Array, valid: &Array) -> Result<Array, Error> {
        crate::na::from_option_parts(values, valid)
    }

    fn is_na(&self) -> Result<Array, Error> {
        crate::na::is_na(self)
    }

    fn null_count(&self) -> Result<usize, Error> {
        crate::na::null_count(self)
    }
}
