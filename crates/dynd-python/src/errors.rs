//! The library's errors as Python exceptions, and the Python-side hooks
//! the package registers at import.
//!
//! The exception classes are defined in Python (`dynd/__init__.py`), where
//! a class can derive from both `DyndError` and `TypeError`; the package
//! hands them over once with `_dynd.register`.

use std::panic::{catch_unwind, AssertUnwindSafe};

use pyo3::exceptions::{PyIndexError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyType;

/// What the package registered at import.
pub(crate) struct Hooks {
    /// `DyndError`, a `ValueError`.
    pub(crate) error: Py<PyType>,
    /// `DyndTypeError(DyndError, TypeError)`.
    pub(crate) type_error: Py<PyType>,
    /// `DyndIndexError(DyndError, IndexError)`.
    pub(crate) index_error: Py<PyType>,
    /// `(array, ufunc, method, inputs, kwargs) -> result`: NumPy's
    /// `__array_ufunc__` for dynd arrays.
    pub(crate) array_ufunc: Py<PyAny>,
    /// `(array, func, types, args, kwargs) -> result`: NumPy's
    /// `__array_function__` for dynd arrays.
    pub(crate) array_function: Py<PyAny>,
}

static HOOKS: PyOnceLock<Hooks> = PyOnceLock::new();

/// The hooks, once registered.
pub(crate) fn hooks(py: Python<'_>) -> PyResult<&Hooks> {
    HOOKS.get(py).ok_or_else(|| {
        PyValueError::new_err("dynd._dynd used before the dynd package registered its hooks")
    })
}

/// Hands the package's exception classes and protocol handlers to the
/// extension (called once, by `dynd/__init__.py`).
#[pyfunction]
pub(crate) fn register(
    py: Python<'_>,
    error: Py<PyType>,
    type_error: Py<PyType>,
    index_error: Py<PyType>,
    array_ufunc: Py<PyAny>,
    array_function: Py<PyAny>,
) -> PyResult<()> {
    HOOKS
        .set(
            py,
            Hooks {
                error,
                type_error,
                index_error,
                array_ufunc,
                array_function,
            },
        )
        .map_err(|_| PyValueError::new_err("dynd._dynd.register called twice"))
}

/// Which Python class fits an error of the library.
#[derive(Clone, Copy)]
enum Class {
    Value,
    Type,
    Index,
}

fn class_of(e: &dynd::Error) -> Class {
    use dynd::Error as E;
    match e {
        E::InExpr { source, .. } => class_of(source),
        E::Index { .. } | E::IndexCount { .. } | E::AxisOutOfBounds { .. } => Class::Index,
        E::NoMatch { .. }
        | E::ArgumentType { .. }
        | E::Promote { .. }
        | E::DtypeMismatch { .. }
        | E::Arity { .. }
        | E::Ambiguous { .. }
        | E::UnknownKeyword { .. }
        | E::DuplicateKeyword { .. }
        | E::MissingKeyword { .. }
        | E::UnknownFunction { .. }
        | E::Unsupported { .. } => Class::Type,
        _ => Class::Value,
    }
}

/// The Python exception of a library error, with its message.
pub fn to_py_err(e: dynd::Error) -> PyErr {
    let class = class_of(&e);
    raise(class, e.to_string())
}

fn raise(class: Class, message: String) -> PyErr {
    Python::attach(|py| match HOOKS.get(py) {
        Some(h) => {
            let ty = match class {
                Class::Value => &h.error,
                Class::Type => &h.type_error,
                Class::Index => &h.index_error,
            };
            PyErr::from_type(ty.bind(py).clone(), message)
        }
        None => match class {
            Class::Value => PyValueError::new_err(message),
            Class::Type => PyTypeError::new_err(message),
            Class::Index => PyIndexError::new_err(message),
        },
    })
}

/// A `DyndError` with `message` (for errors found in this crate).
pub(crate) fn value_error(message: impl Into<String>) -> PyErr {
    raise(Class::Value, message.into())
}

/// A `DyndTypeError` with `message`.
pub(crate) fn type_error(message: impl Into<String>) -> PyErr {
    raise(Class::Type, message.into())
}

/// A `DyndIndexError` with `message`.
pub(crate) fn index_error(message: impl Into<String>) -> PyErr {
    raise(Class::Index, message.into())
}

/// `f()`, with a panic turned into a `DyndError` naming it as a bug: no
/// panic reaches Python.
pub(crate) fn guarded<T>(f: impl FnOnce() -> Result<T, dynd::Error>) -> PyResult<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(to_py_err),
        Err(payload) => {
            let what = payload
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| payload.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic".into());
            Err(value_error(format!(
                "internal error in dynd (a bug; please report it): {what}"
            )))
        }
    }
}
