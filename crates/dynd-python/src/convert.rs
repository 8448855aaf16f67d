//! Python values to dynd arrays and back.

use dynd::nd::{Array, ErrorMode, Value};
use dynd::ndt::Type;
use numpy::PyUntypedArray;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyComplex, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::array::PyArray;
use crate::errors::{guarded, type_error, value_error};
use crate::foreign;

/// How deeply lists may nest in a value from Python (the library's own
/// limit on a type's levels is lower).
const MAX_NESTING: usize = 64;

/// `dynd.array(obj, type=None)`: an array of `obj` — a dynd array, a
/// NumPy array (a view of its memory), an object with Arrow's PyCapsule
/// interface (a view of its buffers), or nested lists, tuples, dicts and
/// scalars (ragged lists give `var` dimensions, `None` NA) — of the type
/// inferred, or of `type` (a datashape) if given.
#[pyfunction]
#[pyo3(signature = (obj, r#type = None))]
pub(crate) fn array(obj: &Bound<'_, PyAny>, r#type: Option<&str>) -> PyResult<PyArray> {
    let ty = r#type.map(parse).transpose()?;
    let a = match &ty {
        // Values are built as the type says (a list of strings as dates).
        Some(ty) if !is_foreign(obj)? => from_python(obj, Some(ty))?,
        _ => to_array(obj)?,
    };
    let a = match ty {
        Some(ty) if a.ty() != &ty => guarded(|| {
            use dynd::nd::ArrayOps;
            a.cast(&ty, ErrorMode::default())
        })?,
        _ => a,
    };
    Ok(PyArray::new(a))
}

/// A datashape, or a `DyndError` with the parser's message.
pub(crate) fn parse(text: &str) -> PyResult<Type> {
    text.parse::<Type>()
        .map_err(|e| value_error(format!("type '{text}': {e}")))
}

/// Whether `obj` brings memory of its own (a dynd or NumPy array, an
/// Arrow producer): those are taken as they are and cast after.
fn is_foreign(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    Ok(obj.is_instance_of::<PyArray>()
        || obj.cast::<PyUntypedArray>().is_ok()
        || obj.hasattr("__arrow_c_array__")?
        || obj.hasattr("__arrow_c_stream__")?)
}

/// `obj` as a dynd array: a dynd array as it is, NumPy and Arrow memory
/// shared, anything else converted by value (type inferred).
pub fn to_array(obj: &Bound<'_, PyAny>) -> PyResult<Array> {
    if let Ok(a) = obj.cast::<PyArray>() {
        return Ok(a.borrow().inner.clone());
    }
    if let Ok(np) = obj.cast::<PyUntypedArray>() {
        if let Some(a) = foreign::from_numpy(np)? {
            return Ok(a);
        }
        // Another byte order, unaligned data: NumPy copies it into a
        // native, aligned array, which is then shared.
        let dtype = obj.getattr("dtype")?;
        if matches!(
            dtype.getattr("kind")?.extract::<String>()?.as_str(),
            "b" | "i" | "u" | "f" | "c"
        ) {
            let native = dtype.call_method1("newbyteorder", ("=",))?;
            let copy = obj.call_method("astype", (native,), None)?;
            if let Ok(np) = copy.cast::<PyUntypedArray>() {
                if let Some(a) = foreign::from_numpy(np)? {
                    return Ok(a);
                }
            }
        }
        return from_python(&obj.call_method0("tolist")?, None);
    }
    // Another extension's dense array (a dynd array of another copy of
    // the library, say): through NumPy, still a view.
    if obj.hasattr("__array_interface__")? {
        let np = obj.py().import("numpy")?.call_method1("asarray", (obj,))?;
        if let Ok(np) = np.cast::<PyUntypedArray>() {
            if let Some(a) = foreign::from_numpy(np)? {
                return Ok(a);
            }
        }
    }
    if let Some(chunks) = foreign::arrow_chunks(obj)? {
        return foreign::from_arrow_chunks(&chunks);
    }
    from_python(obj, None)
}

/// Nested Python values as an array (of `ty`, or inferred).
fn from_python(obj: &Bound<'_, PyAny>, ty: Option<&Type>) -> PyResult<Array> {
    let mut complex = false;
    let v = to_value_with(obj, 0, &mut Complexes::Pairs(&mut complex))?;
    if complex && ty.is_none() {
        // A dynd value has no complex numbers of its own (they are
        // `[re, im]` pairs): the type is inferred with each complex as its
        // real part, then made complex.
        let probe = to_value_with(obj, 0, &mut Complexes::Real)?;
        let real = guarded(|| dynd::nd::infer_type(&probe))?.to_string();
        let head = real.trim_end_matches(|c: char| c.is_ascii_alphanumeric());
        let ty = parse(&format!("{head}complex[float64]"))?;
        return guarded(|| Array::from_value(&v, Some(&ty)));
    }
    guarded(|| Array::from_value(&v, ty))
}

/// How a Python `complex` becomes a dynd value.
enum Complexes<'a> {
    /// `[re, im]`, noting that one was seen.
    Pairs(&'a mut bool),
    /// Its real part (to infer a shape).
    Real,
}

/// A Python value as a dynd value (a complex number as `[re, im]`).
pub(crate) fn to_value(obj: &Bound<'_, PyAny>, depth: usize) -> PyResult<Value> {
    let mut seen = false;
    to_value_with(obj, depth, &mut Complexes::Pairs(&mut seen))
}

fn to_value_with(
    obj: &Bound<'_, PyAny>,
    depth: usize,
    complexes: &mut Complexes<'_>,
) -> PyResult<Value> {
    if depth > MAX_NESTING {
        return Err(value_error(format!(
            "a value nested more than {MAX_NESTING} lists deep"
        )));
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if let Ok(i) = obj.cast::<PyInt>() {
        return match i.extract::<i128>() {
            Ok(v) => Ok(Value::Int(v)),
            Err(_) => i.extract::<u128>().map(Value::UInt).map_err(|_| {
                value_error(format!(
                    "the integer {i} is outside every integer type (int128, uint128)"
                ))
            }),
        };
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Value::Float(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::Str(s.to_str()?.to_string()));
    }
    if let Ok(c) = obj.cast::<PyComplex>() {
        return Ok(match complexes {
            Complexes::Pairs(seen) => {
                **seen = true;
                Value::List(vec![Value::Float(c.real()), Value::Float(c.imag())])
            }
            Complexes::Real => Value::Float(c.real()),
        });
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l
            .iter()
            .map(|x| to_value_with(&x, depth + 1, complexes))
            .collect::<PyResult<_>>()
            .map(Value::List);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t
            .iter()
            .map(|x| to_value_with(&x, depth + 1, complexes))
            .collect::<PyResult<_>>()
            .map(Value::List);
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return d
            .iter()
            .map(|(k, v)| {
                let k = k
                    .cast::<PyString>()
                    .map_err(|_| {
                        type_error(format!(
                            "a record's field name must be a str, not {}",
                            k.get_type()
                                .name()
                                .map(|n| n.to_string())
                                .unwrap_or_default()
                        ))
                    })?
                    .to_str()?
                    .to_string();
                Ok((k, to_value_with(&v, depth + 1, complexes)?))
            })
            .collect::<PyResult<_>>()
            .map(Value::Object);
    }
    if let Ok(a) = obj.cast::<PyArray>() {
        return Ok(a.borrow().inner.to_value());
    }
    // NumPy scalars and arrays inside lists, dates and times: their
    // Python value (`item`, `tolist`) or ISO text (`isoformat`).
    for method in ["tolist", "isoformat"] {
        if obj.hasattr(method)? {
            return to_value_with(&obj.call_method0(method)?, depth + 1, complexes);
        }
    }
    Err(type_error(format!(
        "cannot make a dynd value of a Python {}",
        obj.get_type().name()?
    )))
}

/// The value of an array as a Python value: lists, dicts, numbers,
/// strings, `None`; a complex element as a Python `complex`.
pub(crate) fn array_to_python(py: Python<'_>, a: &Array) -> PyResult<Py<PyAny>> {
    let v = a.to_value();
    let dtype = a.dtype().to_string();
    if dtype.trim_start_matches('?').starts_with("complex") {
        return complex_at(py, &v, a.ndim());
    }
    from_value(py, &v)
}

/// `v` with the `[re, im]` pairs `depth` lists down as complex numbers.
fn complex_at(py: Python<'_>, v: &Value, depth: usize) -> PyResult<Py<PyAny>> {
    match (v, depth) {
        (Value::List(pair), 0) => match pair.as_slice() {
            [Value::Float(re), Value::Float(im)] => {
                Ok(PyComplex::from_doubles(py, *re, *im).into_any().unbind())
            }
            _ => from_value(py, v),
        },
        (Value::List(items), _) => {
            let items = items
                .iter()
                .map(|x| complex_at(py, x, depth - 1))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, items)?.into_any().unbind())
        }
        _ => from_value(py, v),
    }
}

/// A dynd value as a Python value: lists, dicts, numbers, strings, `None`.
pub(crate) fn from_value(py: Python<'_>, v: &Value) -> PyResult<Py<PyAny>> {
    Ok(match v {
        Value::Null => py.None(),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any().unbind(),
        Value::Int(i) => i.into_pyobject(py)?.into_any().unbind(),
        Value::UInt(u) => u.into_pyobject(py)?.into_any().unbind(),
        Value::Float(f) => PyFloat::new(py, *f).into_any().unbind(),
        Value::Str(s) => PyString::new(py, s).into_any().unbind(),
        Value::List(items) => {
            let items = items
                .iter()
                .map(|x| from_value(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            PyList::new(py, items)?.into_any().unbind()
        }
        Value::Object(fields) => {
            let d = PyDict::new(py);
            for (k, x) in fields {
                d.set_item(k, from_value(py, x)?)?;
            }
            d.into_any().unbind()
        }
    })
}
