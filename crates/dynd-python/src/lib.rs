//! dynd-rs for Python.
//!
//! Two things live in this crate:
//!
//! - the extension module `dynd._dynd` behind the Python package `dynd`
//!   (`pip install ./crates/dynd-python`): the [`Array`](PyArray)
//!   class, every builtin as a [`Function`] object,
//!   `dynd.evaluate` for fused expressions, NumPy's array protocols and
//!   Arrow's PyCapsule interface, both ways without copying;
//! - for Rust authors, [`ufunc!`]: an `#[elemental]` fn of their own
//!   exposed from their own pyo3 extension as a genuine NumPy ufunc and as
//!   a function over dynd arrays (ragged ones included).
//!
//! How values cross the boundary:
//!
//! | from Python | to dynd |
//! |---|---|
//! | a NumPy array of numbers or `bool` (native byte order, aligned) | a view of its memory (the block keeps the NumPy array alive) |
//! | an object with `__arrow_c_array__` / `__arrow_c_stream__` (pyarrow, Polars, DuckDB, Awkward's `to_arrow`) | a view of its Arrow buffers (a stream of several chunks is concatenated) |
//! | nested lists, tuples, dicts, numbers, strings, `None` | a new array of the inferred (or given) type; ragged lists give `var` |
//!
//! | from dynd | to Python |
//! |---|---|
//! | dense numbers (`np.asarray(x)`) | a NumPy view (`__array_interface__`; the view keeps the dynd array alive) |
//! | any array of `N * T` (`pa.array(x)`, `ak.from_arrow`) | Arrow arrays over dynd's buffers (`__arrow_c_array__`) |
//! | anything (`x.tolist()`) | nested lists of Python values |
//!
//! Errors of the library become `dynd.DyndError` (a `ValueError`),
//! `dynd.DyndTypeError` (also a `TypeError`: no overload, wrong keyword) or
//! `dynd.DyndIndexError` (also an `IndexError`), with the library's message;
//! a panic, should one happen, becomes a `DyndError` too, never an abort.
//! Calls over more than [`RELEASE_GIL_AT`] elements run with the GIL
//! released.

mod array;
mod convert;
mod dtypes;
mod errors;
mod foreign;
mod function;
pub mod ufunc;

use pyo3::prelude::*;

pub use array::PyArray;
pub use convert::to_array;
pub use errors::to_py_err;
pub use function::Function;

/// Elements (summed over a call's arguments) from which a call releases
/// the GIL while it runs: below it, releasing and taking it back costs
/// more than the call.
pub const RELEASE_GIL_AT: usize = 4096;

/// The extension module `dynd._dynd` (the Python package `dynd` wraps it).
#[pymodule]
fn _dynd(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<array::PyArray>()?;
    m.add_class::<function::Function>()?;
    m.add_function(wrap_pyfunction!(convert::array, m)?)?;
    m.add_function(wrap_pyfunction!(function::builtin_table, m)?)?;
    m.add_function(wrap_pyfunction!(function::function, m)?)?;
    m.add_function(wrap_pyfunction!(function::evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(function::assign, m)?)?;
    m.add_function(wrap_pyfunction!(errors::register, m)?)?;
    m.add_function(wrap_pyfunction!(array::parse_type, m)?)?;
    Ok(())
}
