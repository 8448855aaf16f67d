//! [`ufunc!`](crate::ufunc!): a Rust author's `#[elemental]` fn, from
//! their own pyo3 extension, as a genuine NumPy ufunc that dynd arrays
//! (ragged ones included) run through too.
//!
//! ```ignore
//! use pyo3::prelude::*;
//!
//! #[dynd::elemental]
//! fn haversine(a: [f64; 2], b: [f64; 2]) -> f64 { /* ... */ }
//!
//! #[pymodule]
//! fn geo(m: &Bound<'_, PyModule>) -> PyResult<()> {
//!     dynd_python::ufunc!(m, haversine)
//! }
//! ```
//!
//! From Python, `geo.haversine` is a `numpy.ufunc`: NumPy broadcasts,
//! resolves the overloads' types, takes `out=`, `where=`, `reduce` and
//! `accumulate` (for a binary fn whose inputs and output share a type),
//! and an fn over core dimensions (`[f64; 2]`, `&[f64]`) is a generalized
//! ufunc with their signature (`(2),(2)->()`). Its loops are the dynd
//! callable's, run over NumPy's buffers in place. On dynd arrays — a
//! ragged `var * 2 * float64` included, which NumPy cannot hold — NumPy
//! hands the call to `dynd.Array.__array_ufunc__`, which runs the same
//! callable with dynd's broadcasting (the extension registers it with the
//! `dynd` package when that is installed).
//!
//! Overloads over types NumPy has no dtype for (strings, dates, NA) are
//! left out of the NumPy ufunc and kept in the dynd function; an fn with
//! none NumPy can take is exported as a dynd function only.

use std::ffi::{c_char, c_int, c_void, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use dynd::func::Callable;
use dynd::nd::{Array, Arrmeta, MemoryBlock};
use dynd::ndt::{Dim, Type, TypeKind};
use numpy::npyffi::{npy_intp, PyUFuncGenericFunction, PY_UFUNC_API};
use pyo3::prelude::*;
use pyo3::types::PyModule;

use crate::dtypes::{span, Numeric};
use crate::errors::{to_py_err, value_error};
use crate::function::Function;

/// Exports the `#[elemental]` fn `$f` from the pyo3 module `$module` as a
/// NumPy ufunc of the same name that dynd arrays run through too (see the
/// [module docs](mod@crate::ufunc)). Evaluates to `PyResult<()>`.
#[macro_export]
macro_rules! ufunc {
    ($module:expr, $f:ident) => {
        $crate::ufunc::export($module, $f::callable())
    };
}

/// What [`ufunc!`](crate::ufunc!) does: adds `callable` to `module` under
/// its name as a NumPy ufunc (a dynd function if NumPy can take none of
/// its overloads), and registers it with the `dynd` package for dynd
/// arrays.
///
/// # Errors
///
/// A signature NumPy cannot hold (overloads with different core
/// dimensions), or a failure of NumPy's ufunc constructor.
pub fn export(module: &Bound<'_, PyModule>, callable: Callable) -> PyResult<()> {
    let py = module.py();
    let name = callable.name().to_string();
    let doc = callable
        .signatures()
        .iter()
        .map(|s| format!("    {s}"))
        .collect::<Vec<_>>()
        .join("\n");
    let function = Py::new(py, Function::new(callable.clone(), name.clone()))?;
    let loops = numpy_loops(&callable)?;
    if loops.is_empty() {
        return module.add(name.as_str(), function);
    }
    let ufunc = make_ufunc(
        py,
        &name,
        &format!("{name}(...)\n\nSignatures:\n{doc}"),
        loops,
    )?;
    module.add(name.as_str(), &ufunc)?;
    // dynd arrays in a call of the ufunc: the `dynd` package runs the
    // dynd function on them (if it is installed).
    if let Ok(dynd) = py.import("dynd") {
        dynd.call_method1("register_ufunc", (&ufunc, function))?;
    }
    Ok(())
}

/// One inner loop: an overload's argument types and core dimensions.
struct Loop {
    /// The callable (it resolves the overload from the types).
    callable: Callable,
    /// Each argument's data type, the output last.
    dtypes: Vec<Type>,
    /// Each argument's core dimensions.
    core: Vec<Vec<CoreDim>>,
    /// NumPy's type numbers of the arguments.
    numbers: Vec<c_char>,
    /// The signature as NumPy writes it (`(2),(2)->()`), if any argument
    /// has core dimensions.
    signature: Option<String>,
}

/// A core dimension of a loop's argument.
#[derive(Clone, Debug)]
enum CoreDim {
    /// A literal size (NumPy's frozen dimension, `(2)`).
    Fixed(usize),
    /// A named size: its place in NumPy's `dimensions[1..]`.
    Named(usize),
}

/// The loops of the overloads NumPy can take.
fn numpy_loops(callable: &Callable) -> PyResult<Vec<Loop>> {
    let mut loops: Vec<Loop> = Vec::new();
    for sig in callable.signatures() {
        let TypeKind::Callable(s) = sig.kind() else {
            continue;
        };
        if s.variadic_positional || !s.keywords.is_empty() {
            continue;
        }
        let args: Vec<&Type> = s.positional.iter().chain([&s.ret]).collect();
        let mut names: Vec<String> = Vec::new();
        let mut dtypes = Vec::new();
        let mut core = Vec::new();
        let mut numbers = Vec::new();
        let mut parts = Vec::new();
        let mut representable = true;
        for t in &args {
            let (dims, dtype) = t.split_dims();
            let Some(n) = Numeric::of_type(dtype).map(|n| n.npy) else {
                representable = false;
                break;
            };
            let mut arg_core = Vec::new();
            let mut text = Vec::new();
            for d in dims {
                let token = match d {
                    Dim::Fixed(k) => k.to_string(),
                    Dim::TypeVar(name) => name.to_string().to_lowercase(),
                    _ => {
                        representable = false;
                        break;
                    }
                };
                let place = match names.iter().position(|x| *x == token) {
                    Some(p) => p,
                    None => {
                        names.push(token.clone());
                        names.len() - 1
                    }
                };
                arg_core.push(match d {
                    Dim::Fixed(k) => CoreDim::Fixed(*k),
                    _ => CoreDim::Named(place),
                });
                text.push(token);
            }
            if !representable {
                break;
            }
            parts.push(format!("({})", text.join(",")));
            dtypes.push(dtype.clone());
            core.push(arg_core);
            numbers.push(n as c_char);
        }
        if !representable {
            continue;
        }
        let nin = args.len() - 1;
        let signature = core
            .iter()
            .any(|c| !c.is_empty())
            .then(|| format!("{}->{}", parts[..nin].join(","), parts[nin]));
        if let Some(first) = loops.first() {
            if first.signature != signature || first.numbers.len() != numbers.len() {
                return Err(value_error(format!(
                    "{}: NumPy gives a ufunc one signature; the overloads have {} and {}",
                    callable.name(),
                    first.signature.as_deref().unwrap_or("none"),
                    signature.as_deref().unwrap_or("none")
                )));
            }
        }
        loops.push(Loop {
            callable: callable.clone(),
            dtypes,
            core,
            numbers,
            signature,
        });
    }
    Ok(loops)
}

/// NumPy's ufunc object over `loops` (leaked: a ufunc keeps pointers to
/// its tables for as long as the process runs, as C extensions' static
/// tables are).
fn make_ufunc<'py>(
    py: Python<'py>,
    name: &str,
    doc: &str,
    loops: Vec<Loop>,
) -> PyResult<Bound<'py, PyAny>> {
    let nargs = loops[0].numbers.len();
    let ntypes = loops.len();
    let signature = loops[0].signature.clone();
    let types: Vec<c_char> = loops.iter().flat_map(|l| l.numbers.clone()).collect();
    let funcs: Vec<PyUFuncGenericFunction> = vec![Some(inner_loop); ntypes];
    let data: Vec<*mut c_void> = loops
        .into_iter()
        .map(|l| Box::into_raw(Box::new(l)) as *mut c_void)
        .collect();
    let name = CString::new(name).map_err(|e| value_error(e.to_string()))?;
    let doc = CString::new(doc).map_err(|e| value_error(e.to_string()))?;
    let signature = signature
        .map(CString::new)
        .transpose()
        .map_err(|e| value_error(e.to_string()))?;
    let types = types.leak();
    let funcs = funcs.leak();
    let data = data.leak();
    let (name, doc) = (name.into_raw(), doc.into_raw());
    let signature = signature.map_or(std::ptr::null(), |s| s.into_raw() as *const c_char);
    // SAFETY: the tables are leaked, so they outlive the ufunc; `types`
    // holds `ntypes * nargs` type numbers, `funcs` and `data` one entry
    // per loop; `inner_loop` reads `data` as the `Loop` it was made from.
    // `PyUFunc_None` (-1): no identity.
    let raw = unsafe {
        PY_UFUNC_API.PyUFunc_FromFuncAndDataAndSignature(
            py,
            funcs.as_mut_ptr(),
            data.as_mut_ptr(),
            types.as_mut_ptr(),
            ntypes as c_int,
            (nargs - 1) as c_int,
            1,
            -1,
            name,
            doc,
            0,
            signature,
        )
    };
    if raw.is_null() {
        return Err(PyErr::fetch(py));
    }
    // SAFETY: a new reference to the ufunc NumPy just made.
    Ok(unsafe { Bound::from_owned_ptr(py, raw) })
}

/// NumPy's inner loop for one [`Loop`]: the arguments as dynd arrays over
/// NumPy's buffers, and the callable run into the output's.
unsafe extern "C" fn inner_loop(
    args: *mut *mut c_char,
    dimensions: *mut npy_intp,
    steps: *mut npy_intp,
    data: *mut c_void,
) {
    // SAFETY: `data` is the `Loop` `make_ufunc` leaked for this loop.
    let lp = unsafe { &*(data as *const Loop) };
    // SAFETY: NumPy's arguments to an inner loop, as `run` takes them.
    let r = catch_unwind(AssertUnwindSafe(|| unsafe {
        lp.run(args, dimensions, steps)
    }));
    let failure = match r {
        Ok(Ok(())) => return,
        Ok(Err(e)) => Failure::Library(e),
        Err(_) => Failure::Panic,
    };
    Python::attach(|py| {
        let err = match failure {
            Failure::Library(e) => to_py_err(e),
            Failure::Panic => {
                value_error("internal error in a dynd ufunc loop (a bug; please report it)")
            }
        };
        err.restore(py);
    });
}

enum Failure {
    Library(dynd::Error),
    Panic,
}

impl Loop {
    /// One call of the inner loop.
    ///
    /// # Safety
    ///
    /// NumPy's inner-loop arguments for this loop's types and signature:
    /// `args` holds one pointer per argument, `dimensions` the loop's
    /// length then each named core dimension's size, `steps` each
    /// argument's outer stride then its core dimensions' strides; the
    /// memory they describe is valid for the call (read for inputs,
    /// written for the output).
    unsafe fn run(
        &self,
        args: *mut *mut c_char,
        dimensions: *mut npy_intp,
        steps: *mut npy_intp,
    ) -> Result<(), dynd::Error> {
        let nargs = self.dtypes.len();
        let ncore: usize = self.core.iter().map(Vec::len).sum();
        let named = self
            .core
            .iter()
            .flatten()
            .filter_map(|c| match c {
                CoreDim::Named(i) => Some(*i + 1),
                CoreDim::Fixed(_) => None,
            })
            .max()
            .unwrap_or(0);
        // SAFETY: NumPy passes one pointer per argument, the loop length
        // and a size per core dimension, and a stride per argument and per
        // core dimension of each (the caller's contract).
        let (args, dims, steps) = unsafe {
            (
                std::slice::from_raw_parts(args, nargs),
                std::slice::from_raw_parts(dimensions, 1 + named),
                std::slice::from_raw_parts(steps, nargs + ncore),
            )
        };
        let n = usize::try_from(dims[0]).unwrap_or(0);
        let mut core_steps = steps[nargs..].iter();
        // Each argument's pointer and dimensions (size, byte stride), the
        // loop's dimension first.
        let mut shapes: Vec<Vec<(usize, isize)>> = Vec::with_capacity(nargs);
        for (k, &outer) in steps[..nargs].iter().enumerate() {
            let mut shape = vec![(n, outer)];
            for c in &self.core[k] {
                let size = match c {
                    CoreDim::Fixed(s) => *s,
                    CoreDim::Named(i) => usize::try_from(dims[i + 1]).unwrap_or(0),
                };
                let stride = core_steps.next().copied().unwrap_or(0);
                shape.push((size, stride));
            }
            shapes.push(shape);
        }
        let ptrs: Vec<*mut u8> = args.iter().map(|p| *p as *mut u8).collect();
        let sizes: Vec<usize> = self
            .dtypes
            .iter()
            .map(|t| t.data_layout().map(|l| l.size))
            .collect::<Result<_, _>>()?;
        let span = |k: usize| extent(ptrs[k], &shapes[k], sizes[k]);
        let out_span = span(nargs - 1);
        // An output that overlaps an input (NumPy's `reduce` and
        // `accumulate` pass the running value as input and output, with
        // a stride of 0) is computed element by element, in order.
        let overlaps = (0..nargs - 1).any(|k| {
            let s = span(k);
            s.0 < out_span.1 && out_span.0 < s.1
        });
        if !overlaps {
            let mut views = Vec::with_capacity(nargs);
            for k in 0..nargs {
                // SAFETY: NumPy's buffer for argument `k` covers
                // `shapes[k]` (the caller's contract); the output is last.
                views.push(unsafe { view(ptrs[k], &shapes[k], &self.dtypes[k], k + 1 == nargs)? });
            }
            let mut out = views.pop().expect("an output");
            let before = out.data_ptr();
            let inputs: Vec<&Array> = views.iter().collect();
            self.callable.call_into(&mut out, &inputs)?;
            if out.data_ptr() == before {
                return Ok(());
            }
            // The callable wrote a block of its own: computed again below,
            // element by element, into NumPy's.
        }
        for i in 0..n {
            let mut views = Vec::with_capacity(nargs - 1);
            for k in 0..nargs - 1 {
                let p = ptrs[k].wrapping_offset(i as isize * shapes[k][0].1);
                // SAFETY: element `i` of argument `k`, inside its buffer.
                views.push(unsafe { view(p, &shapes[k][1..], &self.dtypes[k], false)? });
            }
            let inputs: Vec<&Array> = views.iter().collect();
            let r = self.callable.call(&inputs)?;
            drop(views);
            let last = nargs - 1;
            let p = ptrs[last].wrapping_offset(i as isize * shapes[last][0].1);
            // SAFETY: element `i` of the output, inside NumPy's buffer,
            // written after every input view of this element is gone.
            unsafe { write_strided(p, &shapes[last][1..], sizes[last], &r)? };
        }
        Ok(())
    }
}

/// The lowest byte and one past the highest that an argument reaches
/// (an empty range for an empty argument, or one whose span overflows,
/// which NumPy never passes).
fn extent(ptr: *mut u8, shape: &[(usize, isize)], size: usize) -> (usize, usize) {
    match span(shape, size) {
        Ok(Some((low, len))) => {
            let start = (ptr as usize).wrapping_add_signed(low);
            (start, start.wrapping_add(len))
        }
        _ => (ptr as usize, ptr as usize),
    }
}

/// Writes the elements of `r` (C order) to `ptr` laid out as `shape`.
///
/// # Safety
///
/// Every element `shape` reaches from `ptr` is writable, and no array
/// reads those bytes while they are written.
unsafe fn write_strided(
    ptr: *mut u8,
    shape: &[(usize, isize)],
    size: usize,
    r: &Array,
) -> Result<(), dynd::Error> {
    let dims: Vec<usize> = shape.iter().map(|&(n, _)| n).collect();
    let count: usize = dims.iter().product();
    let bytes = r.data_block().bytes();
    let start = r.data_offset();
    // A call's result is a fresh C-order array of the output's core shape.
    if !r.is_c_contiguous() || bytes.len() < start + count * size {
        return Err(dynd::Error::Unsupported {
            operation: "writing a dynd ufunc's result of another size",
            ty: r.ty().clone(),
        });
    }
    let mut index = vec![0usize; dims.len()];
    for e in 0..count {
        let offset: isize = index
            .iter()
            .zip(shape)
            .map(|(&i, &(_, s))| i as isize * s)
            .sum();
        let src = &bytes[start + e * size..start + (e + 1) * size];
        // SAFETY: the caller's contract: the destination element is
        // writable and read by no array meanwhile; `src` is `size` bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(src.as_ptr(), ptr.wrapping_offset(offset), size);
        }
        for d in (0..dims.len()).rev() {
            index[d] += 1;
            if index[d] < dims[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(())
}

/// A dynd array over NumPy's buffer at `ptr`: dimensions `shape` (size,
/// byte stride), elements `dtype`.
///
/// # Safety
///
/// The bytes every element of `shape` reaches from `ptr` are valid (and
/// writable if `writable`) until the array is dropped, which the caller
/// does before it returns to NumPy: the block keeps no owner.
unsafe fn view(
    ptr: *mut u8,
    shape: &[(usize, isize)],
    dtype: &Type,
    writable: bool,
) -> Result<Array, dynd::Error> {
    let size = dtype.data_layout()?.size;
    let (base, len, offset) = match span(shape, size) {
        Ok(Some((low, len))) => (
            ptr.wrapping_offset(low) as *const u8,
            len,
            low.unsigned_abs(),
        ),
        Ok(None) => (ptr as *const u8, 0, 0),
        Err(()) => {
            return Err(dynd::Error::Unsupported {
                operation: "a NumPy buffer whose extent overflows isize",
                ty: dtype.clone(),
            })
        }
    };
    // SAFETY: the caller's contract: NumPy's buffer covers these bytes for
    // the call, and the array over the block is dropped before it ends.
    let block = unsafe { MemoryBlock::from_external(base, len, Box::new(()), writable) };
    let ty = Type::with_dims(shape.iter().map(|&(n, _)| Dim::Fixed(n)), dtype.clone())?;
    let mut meta = Arrmeta::Scalar;
    for &(n, s) in shape.iter().rev() {
        meta = Arrmeta::Fixed {
            size: n,
            stride: s,
            element: Box::new(meta),
        };
    }
    Array::try_from_parts(ty, Arc::new(meta), block, offset)
}
