//! `dynd.Array`: a dynd array as a Python object.
//!
//! Arrays are values, as in Rust: a view (`x[1:]`, `x.field`, an array
//! made from NumPy memory) shares memory until one of them is written
//! (`out=`), which first gives the written one memory of its own if it
//! shares it. NumPy views of a dynd array (`np.asarray(x)`) are read-only
//! windows on it for as long as they live.

use dynd::nd::{Array, ArrayOps, ErrorMode, Index};
use dynd::ndt::Dim;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyEllipsis, PyInt, PySlice, PyString, PyTuple};

use crate::convert::{self, parse, to_array};
use crate::errors::{guarded, hooks, index_error, type_error, value_error};
use crate::foreign;
use crate::function::{builtin, call_builtin, Operand};

/// A dynd array: a datashape type, its arrmeta and its data.
#[pyclass(name = "Array", module = "dynd", weakref)]
pub struct PyArray {
    /// The array.
    pub inner: Array,
}

impl PyArray {
    /// The Python object of `inner`.
    pub fn new(inner: Array) -> PyArray {
        PyArray { inner }
    }
}

/// A datashape's canonical text (`dynd._dynd.parse_type`), or the
/// parser's error.
#[pyfunction]
pub(crate) fn parse_type(text: &str) -> PyResult<String> {
    parse(text).map(|t| t.to_string())
}

#[pymethods]
impl PyArray {
    /// `Array(obj, type=None)`: the same as `dynd.array(obj, type)`.
    #[new]
    #[pyo3(signature = (obj, r#type = None))]
    fn py_new(obj: &Bound<'_, PyAny>, r#type: Option<&str>) -> PyResult<PyArray> {
        convert::array(obj, r#type)
    }

    /// The datashape type (`"3 * var * float64"`).
    #[getter]
    fn r#type(&self) -> String {
        self.inner.ty().to_string()
    }

    /// The element type under the dimensions (`"float64"`).
    #[getter]
    fn dtype(&self) -> String {
        self.inner.dtype().to_string()
    }

    /// The number of dimensions.
    #[getter]
    fn ndim(&self) -> usize {
        self.inner.ndim()
    }

    /// The dimensions' sizes, `None` for a `var` (ragged) one.
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let dims: Vec<Option<usize>> = self
            .inner
            .shape()
            .into_iter()
            .map(|d| match d {
                Dim::Fixed(n) => Some(n),
                _ => None,
            })
            .collect();
        PyTuple::new(py, dims)
    }

    /// The number of elements of the first dimension.
    fn __len__(&self) -> PyResult<usize> {
        if self.inner.ndim() == 0 {
            return Err(type_error(format!(
                "len() of an array with no dimensions (type {})",
                self.inner.ty()
            )));
        }
        Ok(self.inner.len())
    }

    /// The value as nested Python lists, dicts and scalars (`None` for NA).
    fn tolist(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        convert::array_to_python(py, &self.inner)
    }

    /// The value of an array with no dimensions, or an error.
    fn item(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        if self.inner.ndim() != 0 {
            return Err(type_error(format!(
                "item() of an array with dimensions (type {}); index it first",
                self.inner.ty()
            )));
        }
        self.tolist(py)
    }

    fn __float__(&self, py: Python<'_>) -> PyResult<f64> {
        self.item(py)?.extract(py)
    }

    fn __int__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let v = self.item(py)?;
        Ok(v.bind(py).call_method0("__int__")?.unbind())
    }

    fn __index__(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let v = self.item(py)?;
        if !v.bind(py).is_instance_of::<PyInt>() {
            return Err(type_error(format!(
                "only an integer array with no dimensions is an index (type {})",
                self.inner.ty()
            )));
        }
        Ok(v)
    }

    fn __bool__(&self, py: Python<'_>) -> PyResult<bool> {
        match self.inner.ndim() {
            0 => self.item(py)?.bind(py).is_truthy(),
            _ if self.inner.len() == 1 && self.inner.ndim() == 1 => {
                self.inner.at(0).map_err(crate::to_py_err).and_then(|a| PyArray::new(a).__bool__(py))
            }
            _ => Err(value_error(format!(
                "the truth value of an array of more than one element is ambiguous (type {}); use any() or all()",
                self.inner.ty()
            ))),
        }
    }

    fn __repr__(&self) -> String {
        format!("dynd.array({}, type=\"{}\")", self.inner, self.inner.ty())
    }

    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    /// `x[i]`, `x[1:, 0]`, `x[..., None]`, `x["field"]`, `x[mask]` (a
    /// boolean array: the kept elements of each row), `x[indices]` (an
    /// integer array: `take` along the first dimension).
    fn __getitem__(&self, key: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        index(&self.inner, key).map(PyArray::new)
    }

    /// A record field by name (`p.x`), as `p["x"]`.
    fn __getattr__(&self, name: &str) -> PyResult<PyArray> {
        match self.inner.field(name) {
            Ok(f) => Ok(PyArray::new(f)),
            Err(e) => Err(pyo3::exceptions::PyAttributeError::new_err(format!(
                "'dynd.Array' object has no attribute '{name}' ({e})"
            ))),
        }
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyResult<Py<PyAny>> {
        let py = slf.py();
        if slf.inner.ndim() == 0 {
            return Err(type_error(format!(
                "iteration over an array with no dimensions (type {})",
                slf.inner.ty()
            )));
        }
        let rows = (0..slf.inner.len())
            .map(|i| slf.inner.at(i as i64).map(PyArray::new))
            .collect::<Result<Vec<_>, _>>()
            .map_err(crate::to_py_err)?;
        let list = pyo3::types::PyList::new(py, rows)?;
        Ok(list.as_any().try_iter()?.into_any().unbind())
    }

    /// The array converted to `type` (a datashape), under `errmode`
    /// (`"default"`, `"nocheck"`, `"overflow"`, `"fractional"`, `"inexact"`).
    #[pyo3(signature = (r#type, errmode = "default"))]
    fn cast(&self, r#type: &str, errmode: &str) -> PyResult<PyArray> {
        let ty = parse(r#type)?;
        let mode: ErrorMode = errmode.parse().map_err(|e: String| value_error(e))?;
        guarded(|| self.inner.cast(&ty, mode)).map(PyArray::new)
    }

    /// NumPy's array interface: a dense array of numbers is viewed by
    /// NumPy without a copy (read-only while shared).
    #[getter]
    fn __array_interface__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        foreign::array_interface(py, &self.inner)?.ok_or_else(|| {
            pyo3::exceptions::PyAttributeError::new_err(format!(
                "an array of type {} has no NumPy array interface (only dense numbers do)",
                self.inner.ty()
            ))
        })
    }

    /// `np.asarray(x)` for arrays NumPy cannot view: strings and NA as
    /// NumPy makes them of the nested lists; a ragged array is an error.
    #[pyo3(signature = (dtype = None, copy = None))]
    fn __array__<'py>(
        slf: &Bound<'py, Self>,
        dtype: Option<&Bound<'py, PyAny>>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        let np = py.import("numpy")?;
        let this = slf.borrow();
        if this.inner.ty().has_var_dim() {
            return Err(value_error(format!(
                "an array of type {} is ragged: NumPy has no ragged arrays (use tolist(), or pyarrow.array(x) / awkward.from_arrow)",
                this.inner.ty()
            )));
        }
        let kwargs = PyDict::new(py);
        if let Some(d) = dtype {
            kwargs.set_item("dtype", d)?;
        }
        let base = if foreign::array_interface(py, &this.inner)?.is_some() {
            if copy == Some(true) {
                kwargs.set_item("copy", true)?;
            }
            np.call_method("array", (slf,), Some(&kwargs))?
        } else {
            if copy == Some(false) {
                return Err(value_error(format!(
                    "an array of type {} cannot be viewed by NumPy without a copy",
                    this.inner.ty()
                )));
            }
            np.call_method("array", (this.tolist(py)?,), Some(&kwargs))?
        };
        Ok(base)
    }

    /// The buffer protocol (`memoryview(x)`): a read-only view of a dense
    /// array of numbers.
    unsafe fn __getbuffer__(
        slf: Bound<'_, Self>,
        view: *mut pyo3::ffi::Py_buffer,
        flags: std::ffi::c_int,
    ) -> PyResult<()> {
        let a = slf.borrow().inner.clone();
        // SAFETY: Python's `Py_buffer` for this object, as `fill_buffer`
        // takes it.
        unsafe { foreign::fill_buffer(slf.as_any(), &a, view, flags) }
    }

    unsafe fn __releasebuffer__(&self, view: *mut pyo3::ffi::Py_buffer) {
        // SAFETY: a buffer `__getbuffer__` filled, released once by Python.
        unsafe { foreign::release_buffer(view) }
    }

    /// DLPack (`np.from_dlpack(x)`, PyTorch, JAX): a read-only tensor over
    /// dynd's memory, on the CPU.
    #[pyo3(signature = (*, stream = None, max_version = None, dl_device = None, copy = None))]
    fn __dlpack__<'py>(
        &self,
        py: Python<'py>,
        stream: Option<&Bound<'py, PyAny>>,
        max_version: Option<(u32, u32)>,
        dl_device: Option<(i32, i32)>,
        copy: Option<bool>,
    ) -> PyResult<Bound<'py, pyo3::types::PyCapsule>> {
        let _ = stream;
        if dl_device.is_some_and(|d| d != (1, 0)) {
            return Err(pyo3::exceptions::PyBufferError::new_err(
                "dynd arrays live on the CPU (device (1, 0))",
            ));
        }
        if copy == Some(true) {
            let copied = guarded(|| self.inner.cast(self.inner.ty(), ErrorMode::NoCheck))?;
            return foreign::to_dlpack(py, &copied, max_version.is_some_and(|v| v.0 >= 1));
        }
        foreign::to_dlpack(py, &self.inner, max_version.is_some_and(|v| v.0 >= 1))
    }

    /// DLPack's device: the CPU.
    fn __dlpack_device__(&self) -> (i32, i32) {
        (1, 0)
    }

    /// Arrow's PyCapsule interface: `(schema, array)` capsules over dynd's
    /// buffers (`pyarrow.array(x)`, `polars.Series(x)`).
    #[pyo3(signature = (requested_schema = None))]
    fn __arrow_c_array__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let _ = requested_schema;
        foreign::to_arrow_capsules(py, &self.inner)
    }

    /// NumPy's ufunc protocol: `np.sin(x)`, `np.add(x, y, out=z)`,
    /// `np.add.reduce(x, axis=1)` run dynd's builtins.
    #[pyo3(signature = (ufunc, method, *inputs, **kwargs))]
    fn __array_ufunc__<'py>(
        slf: &Bound<'py, Self>,
        ufunc: &Bound<'py, PyAny>,
        method: &Bound<'py, PyAny>,
        inputs: &Bound<'py, PyTuple>,
        kwargs: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        // NumPy's own ufunc called plainly (`np.add(x, y)`): its builtin,
        // without a detour through Python.
        if kwargs.is_none_or(|k| k.is_empty()) && method.extract::<&str>()? == "__call__" {
            if let Some(f) = crate::function::numpy_ufunc_builtin(ufunc)? {
                let ops = inputs
                    .iter()
                    .map(|a| Operand::of(&a))
                    .collect::<PyResult<Vec<_>>>()?;
                return Ok(Bound::new(py, call_builtin(py, f, &ops)?)?.into_any());
            }
        }
        let h = hooks(py)?;
        let kwargs = kwargs.cloned().unwrap_or_else(|| PyDict::new(py));
        h.array_ufunc
            .bind(py)
            .call1((slf, ufunc, method, inputs, kwargs))
    }

    /// NumPy's function protocol: `np.sort(x)`, `np.concatenate([x, y])`,
    /// `np.argmax(x, axis=1)` run dynd's builtins.
    fn __array_function__<'py>(
        slf: &Bound<'py, Self>,
        func: &Bound<'py, PyAny>,
        types: &Bound<'py, PyAny>,
        args: &Bound<'py, PyAny>,
        kwargs: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = slf.py();
        hooks(py)?
            .array_function
            .bind(py)
            .call1((slf, func, types, args, kwargs))
    }

    /// `dynd.sum(x, ...)` as a method, with the builtin's keywords.
    #[pyo3(signature = (*args, **kwargs))]
    fn sum(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        method(slf, "sum", args, kwargs)
    }

    /// `dynd.prod(x, ...)` as a method, with the builtin's keywords.
    #[pyo3(signature = (*args, **kwargs))]
    fn prod(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        method(slf, "prod", args, kwargs)
    }

    /// `dynd.mean(x, ...)` as a method, with the builtin's keywords.
    #[pyo3(signature = (*args, **kwargs))]
    fn mean(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        method(slf, "mean", args, kwargs)
    }

    /// `dynd.std(x, ...)` as a method, with the builtin's keywords.
    #[pyo3(signature = (*args, **kwargs))]
    fn std(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        method(slf, "std", args, kwargs)
    }

    /// `dynd.var(x, ...)` as a method, with the builtin's keywords.
    #[pyo3(signature = (*args, **kwargs))]
    fn var(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        method(slf, "var", args, kwargs)
    }

    /// `dynd.min(x, ...)` as a method, with the builtin's keywords.
    #[pyo3(signature = (*args, **kwargs))]
    fn min(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        method(slf, "min", args, kwargs)
    }

    /// `dynd.max(x, ...)` as a method, with the builtin's keywords.
    #[pyo3(signature = (*args, **kwargs))]
    fn max(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        method(slf, "max", args, kwargs)
    }

    /// `dynd.argmin(x, ...)` as a method, with the builtin's keywords.
    #[pyo3(signature = (*args, **kwargs))]
    fn argmin(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        method(slf, "argmin", args, kwargs)
    }

    /// `dynd.argmax(x, ...)` as a method, with the builtin's keywords.
    #[pyo3(signature = (*args, **kwargs))]
    fn argmax(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        method(slf, "argmax", args, kwargs)
    }

    /// `dynd.any(x, ...)` as a method, with the builtin's keywords.
    #[pyo3(signature = (*args, **kwargs))]
    fn any(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        method(slf, "any", args, kwargs)
    }

    /// `dynd.all(x, ...)` as a method, with the builtin's keywords.
    #[pyo3(signature = (*args, **kwargs))]
    fn all(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        method(slf, "all", args, kwargs)
    }

    /// `dynd.cumsum(x, ...)` as a method, with the builtin's keywords.
    #[pyo3(signature = (*args, **kwargs))]
    fn cumsum(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        method(slf, "cumsum", args, kwargs)
    }

    /// `dynd.cumprod(x, ...)` as a method, with the builtin's keywords.
    #[pyo3(signature = (*args, **kwargs))]
    fn cumprod(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        method(slf, "cumprod", args, kwargs)
    }

    /// `dynd.sort(x, ...)` as a method, with the builtin's keywords.
    #[pyo3(signature = (*args, **kwargs))]
    fn sort(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        method(slf, "sort", args, kwargs)
    }

    /// `dynd.argsort(x, ...)` as a method, with the builtin's keywords.
    #[pyo3(signature = (*args, **kwargs))]
    fn argsort(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        method(slf, "argsort", args, kwargs)
    }

    fn __add__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("add", o, false)
    }
    fn __radd__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("add", o, true)
    }
    fn __sub__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("subtract", o, false)
    }
    fn __rsub__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("subtract", o, true)
    }
    fn __mul__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("multiply", o, false)
    }
    fn __rmul__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("multiply", o, true)
    }
    fn __truediv__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("divide", o, false)
    }
    fn __rtruediv__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("divide", o, true)
    }
    fn __floordiv__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("floor_divide", o, false)
    }
    fn __rfloordiv__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("floor_divide", o, true)
    }
    fn __mod__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("remainder", o, false)
    }
    fn __rmod__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("remainder", o, true)
    }
    fn __pow__(&self, o: &Bound<'_, PyAny>, modulo: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        if !modulo.is_none() {
            return Err(type_error("pow() with a modulus is not supported"));
        }
        self.binary("power", o, false)
    }
    fn __rpow__(&self, o: &Bound<'_, PyAny>, modulo: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        if !modulo.is_none() {
            return Err(type_error("pow() with a modulus is not supported"));
        }
        self.binary("power", o, true)
    }
    fn __and__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("bitwise_and", o, false)
    }
    fn __rand__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("bitwise_and", o, true)
    }
    fn __or__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("bitwise_or", o, false)
    }
    fn __ror__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("bitwise_or", o, true)
    }
    fn __xor__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("bitwise_xor", o, false)
    }
    fn __rxor__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("bitwise_xor", o, true)
    }
    fn __lshift__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("left_shift", o, false)
    }
    fn __rlshift__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("left_shift", o, true)
    }
    fn __rshift__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("right_shift", o, false)
    }
    fn __rrshift__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("right_shift", o, true)
    }
    fn __lt__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("less", o, false)
    }
    fn __le__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("less_equal", o, false)
    }
    fn __gt__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("greater", o, false)
    }
    fn __ge__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("greater_equal", o, false)
    }
    fn __eq__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("equal", o, false)
    }
    fn __ne__(&self, o: &Bound<'_, PyAny>) -> PyResult<PyArray> {
        self.binary("not_equal", o, false)
    }
    fn __neg__(slf: &Bound<'_, Self>) -> PyResult<PyArray> {
        call_builtin(
            slf.py(),
            builtin("negative")?,
            &[Operand::of(slf.as_any())?],
        )
    }
    fn __pos__(slf: &Bound<'_, Self>) -> PyResult<PyArray> {
        call_builtin(
            slf.py(),
            builtin("positive")?,
            &[Operand::of(slf.as_any())?],
        )
    }
    fn __abs__(slf: &Bound<'_, Self>) -> PyResult<PyArray> {
        call_builtin(
            slf.py(),
            builtin("absolute")?,
            &[Operand::of(slf.as_any())?],
        )
    }
    fn __invert__(slf: &Bound<'_, Self>) -> PyResult<PyArray> {
        call_builtin(slf.py(), builtin("invert")?, &[Operand::of(slf.as_any())?])
    }
}

impl PyArray {
    /// `self OP o` (or `o OP self`), a Python number as a weak scalar (as
    /// in NumPy 2: `x * 2.0` keeps `float32` data `float32`).
    fn binary(&self, name: &str, o: &Bound<'_, PyAny>, reflected: bool) -> PyResult<PyArray> {
        let py = o.py();
        let this = Operand::Strong(self.inner.clone());
        let other = Operand::of(o)?;
        let f = builtin(name)?;
        if reflected {
            call_builtin(py, f, &[other, this])
        } else {
            call_builtin(py, f, &[this, other])
        }
    }
}

/// `dynd.NAME(slf, *args, **kwargs)`.
fn method(
    slf: &Bound<'_, PyArray>,
    name: &'static str,
    args: &Bound<'_, PyTuple>,
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let mut all = vec![slf.clone().into_any()];
    all.extend(args.iter());
    crate::function::call_py(slf.py(), builtin(name)?, &all, kwargs)
}

/// `a[key]`.
fn index(a: &Array, key: &Bound<'_, PyAny>) -> PyResult<Array> {
    if let Ok(s) = key.cast::<PyString>() {
        return guarded(|| a.field(s.to_str().unwrap_or_default()));
    }
    let entries: Vec<Bound<'_, PyAny>> = match key.cast::<PyTuple>() {
        Ok(t) => t.iter().collect(),
        Err(_) => vec![key.clone()],
    };
    // An array of booleans alone: a mask; of integers alone: `take`.
    if entries.len() == 1 {
        let e = &entries[0];
        let is_plain = e.is_instance_of::<PyInt>()
            || e.is_instance_of::<PySlice>()
            || e.is_none()
            || e.is_instance_of::<PyEllipsis>();
        if !is_plain {
            let k = to_array(e)?;
            let f = if k.dtype().to_string() == "bool" || k.dtype().to_string() == "?bool" {
                "filter"
            } else {
                "take"
            };
            let f = builtin(f)?;
            return guarded(|| f.call(&[a, &k]));
        }
    }
    let plain = entries
        .iter()
        .filter(|e| !e.is_none() && !e.is_instance_of::<PyEllipsis>())
        .count();
    let ellipses = entries
        .iter()
        .filter(|e| e.is_instance_of::<PyEllipsis>())
        .count();
    if ellipses > 1 {
        return Err(index_error(
            "an index can only have a single ellipsis ('...')",
        ));
    }
    let mut idx = Vec::new();
    let mut new_axes = Vec::new();
    let mut kept = 0usize;
    for e in &entries {
        if e.is_none() {
            new_axes.push(kept);
            kept += 1;
        } else if e.is_instance_of::<PyEllipsis>() {
            let fill = a.ndim().saturating_sub(plain);
            idx.extend(std::iter::repeat_n(Index::ALL, fill));
            kept += fill;
        } else if let Ok(s) = e.cast::<PySlice>() {
            let part = |name: &str| -> PyResult<Option<i64>> {
                let v = s.getattr(name)?;
                if v.is_none() {
                    Ok(None)
                } else {
                    v.extract::<i64>().map(Some)
                }
            };
            let step = part("step")?.unwrap_or(1);
            idx.push(Index::slice(part("start")?, part("stop")?, step));
            kept += 1;
        } else if let Ok(i) = e.extract::<i64>() {
            idx.push(Index::At(i));
        } else {
            return Err(index_error(format!(
                "only integers, slices, None, ... and a boolean or integer array alone index an array; found a {}",
                e.get_type().name()?
            )));
        }
    }
    let mut r = if idx.is_empty() {
        a.clone()
    } else {
        guarded(|| a.index(&idx))?
    };
    for axis in new_axes {
        r = guarded(|| r.expand_dims(axis))?;
    }
    Ok(r)
}
