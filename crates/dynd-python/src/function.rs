//! The builtins as Python callables (`dynd.add`, `dynd.sum`, ...), and
//! `dynd.evaluate`.

use std::collections::HashMap;
use std::sync::OnceLock;

use dynd::func::{builtins, Callable, Eval};
use dynd::nd::expr::Expr;
use dynd::nd::{Array, ArrayOps, Arrmeta, Complex, ErrorMode};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyComplex, PyDict, PyFloat, PyInt, PyString, PyTuple};

use crate::array::PyArray;
use crate::convert::{to_array, to_value};
use crate::errors::{guarded, type_error};
use crate::RELEASE_GIL_AT;

/// The builtin called `name`, found once per name.
pub(crate) fn builtin(name: &str) -> PyResult<&'static Callable> {
    static TABLE: OnceLock<HashMap<&'static str, &'static Callable>> = OnceLock::new();
    let table = TABLE.get_or_init(|| builtins::all().map(|c| (c.name(), c)).collect());
    match table.get(name) {
        Some(c) => Ok(c),
        None => Err(crate::to_py_err(builtins::get(name).err().unwrap_or(
            dynd::Error::UnknownFunction {
                name: name.into(),
                suggestions: Vec::new(),
            },
        ))),
    }
}

/// The builtin that runs NumPy's own ufunc `ufunc` (`np.add` → `add`), if
/// it is one of NumPy's and dynd has a builtin of its name. NumPy's ufuncs
/// are found once, by identity, so another extension's ufunc of the same
/// name is never mistaken for one.
pub(crate) fn numpy_ufunc_builtin(ufunc: &Bound<'_, PyAny>) -> PyResult<Option<&'static Callable>> {
    static UFUNCS: PyOnceLock<HashMap<usize, &'static Callable>> = PyOnceLock::new();
    let py = ufunc.py();
    let table = UFUNCS.get_or_try_init(py, || -> PyResult<_> {
        let np = py.import("numpy")?;
        let class = np.getattr("ufunc")?;
        let mut table = HashMap::new();
        for name in np.dir()? {
            let name: String = name.extract()?;
            let Ok(obj) = np.getattr(name.as_str()) else {
                continue;
            };
            if !obj.is_instance(&class)? {
                continue;
            }
            let dynd_name: String = obj.getattr("__name__")?.extract()?;
            if let Ok(f) = builtin(&dynd_name) {
                // NumPy's module holds its ufuncs for as long as the
                // process runs: the address names the one object.
                table.insert(obj.as_ptr() as usize, f);
            }
        }
        Ok(table)
    })?;
    Ok(table.get(&(ufunc.as_ptr() as usize)).copied())
}

/// An argument: an array, or a Python number, which adapts to the other
/// arguments' type as in NumPy 2 (`x * 2.0` keeps `float32` data
/// `float32`).
pub(crate) enum Operand {
    /// An array or a value with a type of its own.
    Strong(Array),
    /// A Python `int`, `float` or `complex`.
    Weak(Array),
}

impl Operand {
    /// `obj` as an argument.
    pub(crate) fn of(obj: &Bound<'_, PyAny>) -> PyResult<Operand> {
        if let Ok(a) = obj.cast::<PyArray>() {
            return Ok(Operand::Strong(a.borrow().inner.clone()));
        }
        if let Ok(b) = obj.cast::<PyBool>() {
            return Ok(Operand::Strong(Array::from_scalar(b.is_true())));
        }
        if let Ok(i) = obj.cast::<PyInt>() {
            if let Ok(v) = i.extract::<i64>() {
                return Ok(Operand::Weak(Array::from_scalar(v)));
            }
        }
        if let Ok(f) = obj.cast::<PyFloat>() {
            return Ok(Operand::Weak(Array::from_scalar(f.value())));
        }
        if let Ok(c) = obj.cast::<PyComplex>() {
            return Ok(Operand::Weak(Array::from_scalar(Complex::new(
                c.real(),
                c.imag(),
            ))));
        }
        to_array(obj).map(Operand::Strong)
    }

    fn array(&self) -> &Array {
        match self {
            Operand::Strong(a) | Operand::Weak(a) => a,
        }
    }
}

/// About how many elements an array holds (its data and `var` rows'
/// values, in 8-byte words), to decide whether a call releases the GIL.
fn weight(a: &Array) -> usize {
    let mut bytes = a.data_block().len();
    let mut m = a.arrmeta();
    loop {
        match m {
            Arrmeta::Fixed { element, .. } => m = element,
            Arrmeta::Var {
                values, element, ..
            } => {
                bytes += values.len();
                m = element;
            }
            Arrmeta::Option(element) => m = element,
            _ => break,
        }
    }
    bytes / 8
}

/// `f(operands)`: fused when a weak scalar is among them and `f` is
/// elementwise, with the GIL released for a large call.
pub(crate) fn call_builtin(py: Python<'_>, f: &Callable, ops: &[Operand]) -> PyResult<PyArray> {
    let weak = ops.iter().any(|o| matches!(o, Operand::Weak(_)));
    let run = || {
        guarded(|| {
            if weak && f.fuses() {
                let args = ops.iter().map(|o| match o {
                    Operand::Strong(a) => Expr::from(a),
                    Operand::Weak(a) => Expr::scalar(a.clone()),
                });
                f.expr(args).eval()
            } else {
                let refs: Vec<&Array> = ops.iter().map(Operand::array).collect();
                f.call(&refs)
            }
        })
    };
    released(py, ops.iter().map(Operand::array), run).map(PyArray::new)
}

/// `run()`, with the GIL released when `inputs` hold [`RELEASE_GIL_AT`]
/// elements or more.
fn released<'a, T: Send>(
    py: Python<'_>,
    inputs: impl Iterator<Item = &'a Array>,
    run: impl FnOnce() -> T + Send,
) -> T {
    let heavy: usize = inputs.map(weight).sum();
    if heavy >= RELEASE_GIL_AT {
        py.detach(run)
    } else {
        run()
    }
}

/// A keyword argument's value as an array (`axis=1`, `axis=(0, 1)`,
/// `errmode="nocheck"`, `return_counts=True`).
fn keyword_value(obj: &Bound<'_, PyAny>) -> PyResult<Array> {
    // The common ones directly (`axis=1`, `keepdims=True`, `axis=(0, 1)`).
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Array::from_scalar(b.is_true()));
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        if let Ok(v) = i.extract::<i64>() {
            return Ok(Array::from_scalar(v));
        }
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Array::from_scalar(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Array::from_text(s.to_str()?));
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        if let Ok(v) = t.extract::<Vec<i64>>() {
            return Ok(Array::from_vec(v));
        }
    }
    if obj.is_instance_of::<PyArray>() || obj.hasattr("__array_interface__")? {
        return to_array(obj);
    }
    let v = to_value(obj, 0)?;
    guarded(|| Array::from_value(&v, None))
}

/// `f(*args, **kwargs)` from Python: `out=` writes into a dynd array (and
/// returns it), a keyword given as `None` is left out (`axis=None`: all
/// axes).
pub(crate) fn call_py(
    py: Python<'_>,
    f: &Callable,
    args: &[Bound<'_, PyAny>],
    kwargs: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let ops = args.iter().map(Operand::of).collect::<PyResult<Vec<_>>>()?;
    let mut out = None;
    let mut kw: Vec<(String, Array)> = Vec::new();
    if let Some(kwargs) = kwargs {
        for (k, v) in kwargs.iter() {
            let k: String = k.extract()?;
            if k == "out" {
                out = (!v.is_none()).then_some(v);
            } else if !v.is_none() {
                kw.push((k, keyword_value(&v)?));
            }
        }
    }
    let result = if kw.is_empty() {
        call_builtin(py, f, &ops)?
    } else {
        let refs: Vec<&Array> = ops.iter().map(Operand::array).collect();
        let kw_refs: Vec<(&str, &Array)> = kw.iter().map(|(k, a)| (k.as_str(), a)).collect();
        let run = || guarded(|| f.call_kw(&refs, &kw_refs));
        PyArray::new(released(py, refs.iter().copied(), run)?)
    };
    match out {
        None => Ok(Py::new(py, result)?.into_any()),
        Some(o) => {
            write_out(&o, &result.inner)?;
            Ok(o.unbind())
        }
    }
}

/// Writes `r` into `out` (a dynd array, or anything NumPy assigns to
/// with `out[...] = r`), which must have `r`'s shape.
pub(crate) fn write_out(out: &Bound<'_, PyAny>, r: &Array) -> PyResult<()> {
    if let Ok(o) = out.cast::<PyArray>() {
        let mut o = o.borrow_mut();
        if o.inner.ty() != r.ty() {
            return Err(type_error(format!(
                "out= has type {} but the result has type {}",
                o.inner.ty(),
                r.ty()
            )));
        }
        return guarded(|| o.inner.assign(r, ErrorMode::NoCheck));
    }
    let value = Py::new(out.py(), PyArray::new(r.clone()))?;
    out.set_item(pyo3::types::PyEllipsis::get(out.py()), value)
}

/// `dynd._dynd.assign(out, value)`: writes `value` into `out` (a dynd
/// array of the same type, or anything NumPy assigns to) and returns `out`.
#[pyfunction]
pub(crate) fn assign<'py>(
    out: &Bound<'py, PyAny>,
    value: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyAny>> {
    let v = to_array(value)?;
    write_out(out, &v)?;
    Ok(out.clone())
}

// A dynd function (a builtin, or a Rust author's `#[elemental]` fn):
// call it on arrays, nested lists, NumPy arrays and numbers; it
// broadcasts, ragged dimensions included. Keywords are the function's
// (`axis=1`, `keepdims=True`); `out=` writes into an existing array.
//
// No doc comment: the class's docstring would hide each instance's
// `__doc__` (the function's own, with its signatures).
#[allow(missing_docs)]
#[pyclass(name = "Function", module = "dynd", frozen)]
pub struct Function {
    callable: Callable,
    doc: String,
}

impl Function {
    /// The Python object of `callable`, documented by `doc`.
    pub fn new(callable: Callable, doc: impl Into<String>) -> Function {
        Function {
            callable,
            doc: doc.into(),
        }
    }
}

#[pymethods]
impl Function {
    #[pyo3(signature = (*args, **kwargs))]
    fn __call__(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        // The common case first: positional arrays, no keywords.
        if kwargs.is_none() {
            let ops = args
                .iter()
                .map(|a| Operand::of(&a))
                .collect::<PyResult<Vec<_>>>()?;
            return Ok(Py::new(py, call_builtin(py, &self.callable, &ops)?)?.into_any());
        }
        let args: Vec<Bound<'_, PyAny>> = args.iter().collect();
        call_py(py, &self.callable, &args, kwargs)
    }

    /// The function's name.
    #[getter]
    fn __name__(&self) -> &str {
        self.callable.name()
    }

    /// The signatures and notes.
    #[getter]
    fn __doc__(&self) -> String {
        let sigs: Vec<String> = self
            .callable
            .signatures()
            .iter()
            .map(|s| format!("    {s}"))
            .collect();
        format!(
            "{}\n\nSignatures:\n{}",
            if self.doc.trim().is_empty() {
                self.callable.name()
            } else {
                self.doc.trim()
            },
            sigs.join("\n")
        )
    }

    /// The datashape signatures, as text.
    #[getter]
    fn signatures(&self) -> Vec<String> {
        self.callable
            .signatures()
            .iter()
            .map(|s| s.to_string())
            .collect()
    }

    /// The reduction of a binary function (`dynd.add.reduce(x, axis=1)`,
    /// as NumPy's `np.add.reduce`).
    #[pyo3(signature = (*args, **kwargs))]
    fn reduce(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let r = guarded(|| self.callable.reduce())?;
        let args: Vec<Bound<'_, PyAny>> = args.iter().collect();
        call_py(py, &r, &args, kwargs)
    }

    /// The running reduction of a binary function
    /// (`dynd.add.accumulate(x, axis=1)`).
    #[pyo3(signature = (*args, **kwargs))]
    fn accumulate(
        &self,
        py: Python<'_>,
        args: &Bound<'_, PyTuple>,
        kwargs: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Py<PyAny>> {
        let r = guarded(|| self.callable.accumulate())?;
        let args: Vec<Bound<'_, PyAny>> = args.iter().collect();
        call_py(py, &r, &args, kwargs)
    }

    /// The outer product (`dynd.multiply.outer(x, y)`).
    #[pyo3(signature = (*args))]
    fn outer(&self, args: &Bound<'_, PyTuple>) -> PyResult<PyArray> {
        let arrays = args
            .iter()
            .map(|a| to_array(&a))
            .collect::<PyResult<Vec<_>>>()?;
        let refs: Vec<&Array> = arrays.iter().collect();
        guarded(|| self.callable.outer(&refs)).map(PyArray::new)
    }

    fn __repr__(&self) -> String {
        format!("<dynd function {}>", self.callable.name())
    }
}

/// `(name, doc)` of every builtin, by name (the package makes a
/// module-level function of each).
#[pyfunction]
#[pyo3(name = "builtins")]
pub(crate) fn builtin_table() -> Vec<(&'static str, &'static str)> {
    let docs: HashMap<&str, &str> = builtins::handles().map(|b| (b.name(), b.doc())).collect();
    let mut all: Vec<(&str, &str)> = builtins::all()
        .map(|c| (c.name(), docs.get(c.name()).copied().unwrap_or("")))
        .collect();
    all.sort_unstable();
    all
}

/// The builtin called `name` as a Python function object.
#[pyfunction]
pub(crate) fn function(name: &str) -> PyResult<Function> {
    let c = builtin(name)?;
    let doc = builtins::handles()
        .find(|b| b.name() == name)
        .map(|b| b.doc())
        .unwrap_or("");
    Ok(Function::new(c.clone(), doc))
}

/// `dynd.evaluate(text, inputs, out=None)`: the expression (`"a*b + c*d -
/// e"`, with the builtins by name and NumPy's operators) over the named
/// inputs, evaluated as one fused pass where it can be.
#[pyfunction]
#[pyo3(signature = (text, inputs, out = None))]
pub(crate) fn evaluate(
    py: Python<'_>,
    text: &str,
    inputs: &Bound<'_, PyDict>,
    out: Option<&Bound<'_, PyAny>>,
) -> PyResult<Py<PyAny>> {
    let mut named: Vec<(String, Array)> = Vec::with_capacity(inputs.len());
    for (k, v) in inputs.iter() {
        let k: String = k
            .extract()
            .map_err(|_| type_error("evaluate's inputs are named by str"))?;
        let a = match Operand::of(&v)? {
            Operand::Strong(a) | Operand::Weak(a) => a,
        };
        named.push((k, a));
    }
    let run = || {
        let refs: Vec<(&str, &Array)> = named.iter().map(|(k, a)| (k.as_str(), a)).collect();
        guarded(|| dynd::func::evaluate(text, &refs))
    };
    let r = released(py, named.iter().map(|(_, a)| a), run)?;
    match out {
        Some(o) if !o.is_none() => {
            write_out(o, &r)?;
            Ok(o.clone().unbind())
        }
        _ => Ok(Py::new(py, PyArray::new(r))?.into_any()),
    }
}
